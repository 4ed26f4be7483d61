// compile-fail: docker_pool_has_free_space reads the pool's status by name (docker_pool_status), so four block counts
// in a row, where data's used and total traded places (or the status's metadata-first order was kept) are refused:
// here 1000 used of 900 would read as a full pool.
// expect: use of deleted function
// expect: call to deleted function
#include <provpol/extend/docker_devmapper.hpp>

provpol::docker_free_space verdict(const provpol::docker_devmapper_config& c) {
#ifdef PROVPOL_COMPILE_FAIL
    return provpol::docker_pool_has_free_space(c, 1000, 900, 0, 500).verdict;
#else
    provpol::docker_pool_status s;
    s.data_used = provpol::blocks(900);
    s.data_total = provpol::blocks(1000);
    s.metadata_total = provpol::blocks(500);
    return provpol::docker_pool_has_free_space(c, s).verdict;
#endif
}
