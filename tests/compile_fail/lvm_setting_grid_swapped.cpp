// compile-fail: an lvm_setting_grid cell is addressed by its roles: g.at(20, 70), the two traded, compiled and read
// outside the grid's cells (threshold 20 is below its rows); lvm_box_of(20, 70, m) made the box of another setting.
// expect: could not convert|no known conversion|no viable conversion|cannot convert
#include <provpol/simulate/lvm_recommend.hpp>

provpol::lvm_plan_outcome at_70_20(const provpol::lvm_setting_grid& g) {
#ifdef PROVPOL_COMPILE_FAIL
    return g.at(20, 70);
#else
    return g.at(provpol::lvm_threshold(70), provpol::lvm_percent(20));
#endif
}
