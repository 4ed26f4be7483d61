// compile-fail: lvm_autoextend_config::make's extent and pool chunk are both sizes, so each is given by role
// (lvm_extent_size, lvm_chunk_size): make(70, 20, 64_KiB, 4_MiB), the two traded, would validate (a 64 KiB extent
// is a power of two, a 4 MiB chunk a multiple of 64 KiB) and round every extend to the wrong unit.
// expect: use of deleted function
// expect: call to deleted (static )?(member )?function
#include <provpol/extend.hpp>

using namespace provpol::literals;

bool valid() {
#ifdef PROVPOL_COMPILE_FAIL
    return provpol::lvm_autoextend_config::make(70, 20, 64_KiB, 4_MiB).has_value();
#else
    return provpol::lvm_autoextend_config::make(provpol::lvm_threshold(70), provpol::lvm_percent(20),
                                                provpol::lvm_extent_size(4_MiB), provpol::lvm_chunk_size(64_KiB))
        .has_value();
#endif
}
