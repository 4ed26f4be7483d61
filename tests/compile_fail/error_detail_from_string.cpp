// compile-fail: an error keeps a pointer to its wording (detail, relation, the other setting of a conflict), so it
// takes only string literals or text named static (static_text::of_static), never a std::string's c_str().
// expect: could not convert|cannot convert|no viable conversion|no matching
#include <provpol/error.hpp>

#include <string>

provpol::error refuse(const std::string& why) {
#ifdef PROVPOL_COMPILE_FAIL
    return provpol::error::unsupported("mode", why.c_str());
#else
    (void)why;
    return provpol::error::unsupported("mode", "not supported here");
#endif
}
