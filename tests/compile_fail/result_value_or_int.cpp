// compile-fail: value_or's fallback must convert to T implicitly, as std::expected mandates.
// expect: the fallback must convert to T implicitly
#include <provpol/bytes.hpp>
#include <provpol/result.hpp>

provpol::bytes size(const provpol::result<provpol::bytes>& r) {
#ifdef PROVPOL_COMPILE_FAIL
    return r.value_or(0);
#else
    return r.value_or(provpol::bytes(0));
#endif
}
