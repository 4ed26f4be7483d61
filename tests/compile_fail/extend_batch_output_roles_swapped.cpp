// compile-fail: extend_batch_output's spans of sizes are given by role (batch_next_size, batch_block_threshold): the
// thresholds where the next sizes go, which decide_batch would fill without a sign (every agent would then register
// the size to request as its threshold), are refused, bare or spelled with their roles.
// expect: could not convert
// expect: no viable conversion from
// expect: conversion from '[^']*' to non-scalar type 'provpol::batch_next_size'
#include <provpol/extend.hpp>

#include <vector>

provpol::extend_batch_output output(std::vector<provpol::extend_action>& action, std::vector<provpol::bytes>& next,
                                    std::vector<provpol::bytes>& threshold) {
#ifdef PROVPOL_COMPILE_FAIL
    return {action, provpol::batch_block_threshold(threshold), provpol::batch_next_size(next)};
#else
    return {action, provpol::batch_next_size(next), provpol::batch_block_threshold(threshold)};
#endif
}
