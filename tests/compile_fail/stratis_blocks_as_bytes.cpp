// compile-fail: stratis_pool_state's used data blocks do not turn into bytes without their block size (size_of
// names it).
// expect: no matching function for call to 'provpol::bytes::bytes
// expect: no matching conversion for functional-style cast
// expect: no matching constructor
#include <provpol/extend.hpp>

provpol::bytes used(const provpol::stratis_pool_state& s) {
#ifdef PROVPOL_COMPILE_FAIL
    return provpol::bytes(s.data_used);
#else
    return provpol::size_of(s.data_used, provpol::stratis_data().data_block());
#endif
}
