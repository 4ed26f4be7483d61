// compile-fail: a function returning result<bytes> cannot return a raw integer.
// expect: could not convert '42' from 'int'|no viable conversion from returned value of type 'int'
#include <provpol/bytes.hpp>
#include <provpol/result.hpp>

provpol::result<provpol::bytes> size() {
#ifdef PROVPOL_COMPILE_FAIL
    return 42;
#else
    return provpol::bytes(42);
#endif
}
