// compile-fail: docker_direct_lvm's dm.thinp_autoextend_threshold and _percent are both integers, so they are given
// by role as lvm_autoextend_config::make's are: docker_direct_lvm(20, 90), the two traded, would validate (both at
// most 100) and write a profile that extends by 90% at 50%.
// expect: use of deleted function
// expect: call to deleted function
#include <provpol/extend/docker_devmapper.hpp>

bool valid() {
#ifdef PROVPOL_COMPILE_FAIL
    return provpol::docker_direct_lvm(20, 90).has_value();
#else
    return provpol::docker_direct_lvm(provpol::lvm_threshold(90), provpol::lvm_percent(20)).has_value();
#endif
}
