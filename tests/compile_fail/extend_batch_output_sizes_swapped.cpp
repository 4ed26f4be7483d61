// compile-fail: extend_batch_output's next sizes and block thresholds are both spans of bytes, so each is given by
// role: bare spans (here in the wrong order, thresholds first) are refused.
// expect: could not convert
// expect: no viable conversion from
// expect: conversion from '[^']*' to non-scalar type 'provpol::batch_next_size'
#include <provpol/extend.hpp>

#include <vector>

provpol::extend_batch_output output(std::vector<provpol::extend_action>& action, std::vector<provpol::bytes>& next,
                                    std::vector<provpol::bytes>& threshold) {
#ifdef PROVPOL_COMPILE_FAIL
    return {action, threshold, next};
#else
    return {action, provpol::batch_next_size(next), provpol::batch_block_threshold(threshold)};
#endif
}
