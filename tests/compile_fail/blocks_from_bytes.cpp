// compile-fail: blocks and bytes do not convert into each other silently: a size where a block count goes is refused.
// expect: conversion from 'provpol::bytes' to non-scalar type 'provpol::blocks'
// expect: no viable conversion from 'provpol::bytes' to 'provpol::blocks'
// expect: could not convert
#include <provpol/bytes.hpp>

using namespace provpol::literals;

provpol::blocks metadata_blocks(provpol::bytes metadata_size) {
#ifdef PROVPOL_COMPILE_FAIL
    provpol::blocks b = metadata_size;
#else
    provpol::blocks b = provpol::blocks_in(metadata_size, 4_KiB, provpol::rounding::down);
#endif
    return b;
}
