// compile-fail: extend_batch_input's capacities, physical sizes and allocations are all bytes, so each view is given
// by role (batch_capacity, batch_physical, batch_allocation): bare views in the wrong order (here the physical sizes
// where the capacities go, which decide_batch would answer for every drive without a sign) are refused.
// expect: could not convert
// expect: no viable conversion from
// expect: conversion from '[^']*' to non-scalar type 'provpol::batch_capacity'
#include <provpol/extend.hpp>

#include <vector>

bool decide(const std::vector<provpol::bytes>& capacity, const std::vector<provpol::bytes>& physical,
            const std::vector<provpol::bytes>& allocation, std::vector<provpol::extend_action>& action,
            std::vector<provpol::bytes>& next, std::vector<provpol::bytes>& threshold) {
#ifdef PROVPOL_COMPILE_FAIL
    const provpol::extend_batch_input in{physical, capacity, allocation};
#else
    const provpol::extend_batch_input in{provpol::batch_capacity(capacity), provpol::batch_physical(physical),
                                         provpol::batch_allocation(allocation)};
#endif
    return provpol::decide_batch(provpol::vdsm_2022(), in,
                                 provpol::extend_batch_output{action, provpol::batch_next_size(next),
                                                              provpol::batch_block_threshold(threshold)})
        .has_value();
}
