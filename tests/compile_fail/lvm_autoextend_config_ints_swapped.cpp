// compile-fail: lvm_autoextend_config::make's threshold and percent are both integers, so each is given by role
// (lvm_threshold, lvm_percent) and two bare integers are refused: make(20, 70), the two traded, would validate and
// extend by 70% at 50% (a threshold under 50 acts as 50) where lvm.conf says 20% at 70%.
// expect: use of deleted function
// expect: call to deleted (static )?(member )?function
#include <provpol/extend.hpp>

unsigned acted_threshold() {
#ifdef PROVPOL_COMPILE_FAIL
    return provpol::lvm_autoextend_config::make(20, 70).value().threshold_percent();
#else
    return provpol::lvm_autoextend_config::make(provpol::lvm_threshold(70), provpol::lvm_percent(20))
        .value()
        .threshold_percent();
#endif
}
