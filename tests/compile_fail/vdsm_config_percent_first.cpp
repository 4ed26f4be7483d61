// compile-fail: vdsm_config::make's chunk is a size and its percent an integer, so the two cannot trade places.
// expect: cannot convert '[^']*' to 'provpol::bytes'
// expect: could not convert
// expect: no known conversion from
// expect: no matching function for call to
#include <provpol/extend.hpp>

using namespace provpol::literals;

bool valid() {
#ifdef PROVPOL_COMPILE_FAIL
    return provpol::vdsm_config::make(20, 2560_MiB).has_value();
#else
    return provpol::vdsm_config::make(2560_MiB, 20).has_value();
#endif
}
