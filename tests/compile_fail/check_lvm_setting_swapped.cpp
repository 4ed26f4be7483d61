// compile-fail: check_lvm_setting (and check_lvm_percent_seeds, recommend_lvm_percent's threshold) take the setting
// by its roles: check_lvm_setting(cases, m, 20, 70, ...), the two traded, compiled and checked threshold 20 (acting
// as 50) with percent 70, so a setting that misses could be reported as met.
// expect: could not convert|no known conversion|no viable conversion|cannot convert
#include <provpol/simulate/lvm_recommend.hpp>

#include <vector>

bool met_70_20(const std::vector<provpol::lvm_pool_case>& cases) {
    using namespace provpol::literals;
#ifdef PROVPOL_COMPILE_FAIL
    return provpol::check_lvm_setting(cases, provpol::lvm_dmeventd(), 20, 70, 1_s, 10, 1, 1).outcome ==
           provpol::lvm_plan_outcome::met;
#else
    return provpol::check_lvm_setting(cases, provpol::lvm_dmeventd(), provpol::lvm_threshold(70),
                                      provpol::lvm_percent(20), 1_s, 10, 1, 1)
               .outcome == provpol::lvm_plan_outcome::met;
#endif
}
