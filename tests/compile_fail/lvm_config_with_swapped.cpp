// compile-fail: lvm_config_with takes the threshold and the percent by their roles, as lvm_autoextend_config::make
// does: lvm_config_with(c, 20, 70), the two traded, compiled and simulated a pool extended by 70% at 50% (a
// threshold under 50 acts as 50) where lvm.conf says 20% at 70%.
// expect: could not convert|no known conversion|no viable conversion|cannot convert
#include <provpol/simulate/lvm_recommend.hpp>

provpol::lvm_autoextend_config at_70_20(const provpol::lvm_autoextend_config& c) {
#ifdef PROVPOL_COMPILE_FAIL
    return provpol::lvm_config_with(c, 20, 70);
#else
    return provpol::lvm_config_with(c, provpol::lvm_threshold(70), provpol::lvm_percent(20));
#endif
}
