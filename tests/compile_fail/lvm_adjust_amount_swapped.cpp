// compile-fail: lvm_adjust_amount's threshold and percent cannot trade places (both were integers: (95%, 20, 70)
// answered 375 where lvm2 at threshold 70, percent 20 extends by 36).
// expect: could not convert|no known conversion|no viable conversion|cannot convert
#include <provpol/extend/lvm_usage.hpp>

#ifdef PROVPOL_COMPILE_FAIL
static_assert(provpol::lvm_adjust_amount(95000000, 20, 70) == 375, "swapped");
#else
static_assert(provpol::lvm_adjust_amount(95000000, provpol::lvm_threshold(70), provpol::lvm_percent(20)) == 36,
              "lvm2: ceil(95 / 0.7) - 100");
#endif
