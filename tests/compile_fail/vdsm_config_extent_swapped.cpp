// compile-fail: vdsm_config::make's chunk and LVM extent are both sizes, so the extent is an lvm_extent_size and a bare
// size in its place is refused: make(128_MiB, 20, 1024_MiB), the chunk and the extent traded, would otherwise validate
// (a 128 MiB chunk over 1 GiB extents) and decide with the wrong sizes.
// expect: use of deleted function
// expect: call to deleted (static )?(member )?function
#include <provpol/extend.hpp>

using namespace provpol::literals;

bool valid() {
#ifdef PROVPOL_COMPILE_FAIL
    return provpol::vdsm_config::make(128_MiB, 20, 1024_MiB).has_value();
#else
    return provpol::vdsm_config::make(1024_MiB, 20, provpol::lvm_extent_size(128_MiB)).has_value();
#endif
}
