// compile-fail: vdsm_config::make takes the chunk as a size; a bare number is not read as MiB (2560 would otherwise
// be 2560 MiB here, and 2560 bytes anywhere else).
// expect: cannot convert '[^']*' to 'provpol::bytes'
// expect: could not convert
// expect: no viable conversion from 'int' to 'provpol::bytes'
// expect: no matching function for call to
#include <provpol/extend.hpp>

using namespace provpol::literals;

bool valid() {
#ifdef PROVPOL_COMPILE_FAIL
    return provpol::vdsm_config::make(2560, 20).has_value();
#else
    return provpol::vdsm_config::make(2560_MiB, 20).has_value();
#endif
}
