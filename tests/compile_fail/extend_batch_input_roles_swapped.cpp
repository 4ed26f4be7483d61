// compile-fail: extend_batch_input takes its views of sizes in one order of roles; a batch_physical where the
// batch_capacity goes does not convert, even spelled with its role.
// expect: could not convert
// expect: no viable conversion from
// expect: conversion from '[^']*' to non-scalar type 'provpol::batch_capacity'
#include <provpol/extend.hpp>

#include <vector>

provpol::extend_batch_input input(const std::vector<provpol::bytes>& capacity,
                                  const std::vector<provpol::bytes>& physical,
                                  const std::vector<provpol::bytes>& allocation) {
#ifdef PROVPOL_COMPILE_FAIL
    return {provpol::batch_physical(physical), provpol::batch_capacity(capacity),
            provpol::batch_allocation(allocation)};
#else
    return {provpol::batch_capacity(capacity), provpol::batch_physical(physical),
            provpol::batch_allocation(allocation)};
#endif
}
