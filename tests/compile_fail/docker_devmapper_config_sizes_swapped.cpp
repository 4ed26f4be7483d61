// compile-fail: docker_devmapper_config::make's block, loopback and base sizes are all sizes, so each is given by
// role (docker_block_size, docker_loop_data_size, docker_loop_metadata_size, docker_base_size): make(10, 64_KiB,
// 2_GiB, 100_GiB), dm.loopdatasize and dm.loopmetadatasize traded, would validate (both in [1, 2^60]).
// expect: use of deleted function
// expect: call to deleted (static )?(member )?function
#include <provpol/extend/docker_devmapper.hpp>

using namespace provpol::literals;

bool valid() {
#ifdef PROVPOL_COMPILE_FAIL
    return provpol::docker_devmapper_config::make(10, 64_KiB, 2_GiB, 100_GiB).has_value();
#else
    return provpol::docker_devmapper_config::make(10, provpol::docker_block_size(64_KiB),
                                                  provpol::docker_loop_data_size(100_GiB),
                                                  provpol::docker_loop_metadata_size(2_GiB))
        .has_value();
#endif
}
