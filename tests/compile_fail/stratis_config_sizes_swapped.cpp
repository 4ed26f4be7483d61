// compile-fail: stratis_config::make's four constants are all sizes, so each is given by role (stratis_data_alloc,
// stratis_data_lowater, stratis_data_block, stratis_mdv_size): make(15_GiB, 50_GiB), DATA_ALLOC_SIZE and
// DATA_LOWATER traded, would validate (both whole 1 MiB blocks) and extend by 15 GiB under 50 GiB free.
// expect: use of deleted function
// expect: call to deleted (static )?(member )?function
#include <provpol/extend/stratis.hpp>

using namespace provpol::literals;

bool valid() {
#ifdef PROVPOL_COMPILE_FAIL
    return provpol::stratis_config::make(15_GiB, 50_GiB).has_value();
#else
    return provpol::stratis_config::make(provpol::stratis_data_alloc(50_GiB), provpol::stratis_data_lowater(15_GiB))
        .has_value();
#endif
}
