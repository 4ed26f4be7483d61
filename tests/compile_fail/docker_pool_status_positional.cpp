// compile-fail: docker_pool_status's four counts are all blocks, so it is no aggregate: a positional
// {used, total, used, total} (which could as well be {total, used, ...} or the status's metadata-first order) is
// refused, and each count is set by name.
// expect: could not convert
// expect: no matching function for call to 'provpol::docker_pool_status::docker_pool_status
// expect: no matching constructor for initialization of
#include <provpol/extend/docker_devmapper.hpp>

provpol::docker_pool_status status(provpol::blocks used, provpol::blocks total) {
#ifdef PROVPOL_COMPILE_FAIL
    const provpol::docker_pool_status s{total, used, provpol::blocks(0), provpol::blocks(500)};
#else
    provpol::docker_pool_status s;
    s.data_used = used;
    s.data_total = total;
    s.metadata_total = provpol::blocks(500);
#endif
    return s;
}
