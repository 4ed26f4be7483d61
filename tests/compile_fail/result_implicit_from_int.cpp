// compile-fail: result<bytes> takes no integer implicitly, since bytes does not (result's converting constructor is
// explicit exactly when T's is, as std::expected's).
// expect: conversion from 'int' to non-scalar type|no viable conversion from 'int'
#include <provpol/bytes.hpp>
#include <provpol/result.hpp>

provpol::result<provpol::bytes> size() {
#ifdef PROVPOL_COMPILE_FAIL
    provpol::result<provpol::bytes> r = 42;
#else
    provpol::result<provpol::bytes> r = provpol::bytes(42);
#endif
    return r;
}
