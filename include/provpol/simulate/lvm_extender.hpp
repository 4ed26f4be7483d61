// provpol/simulate/lvm_extender.hpp - which extender grows a thin pool in a simulated run (lvm_pool.hpp): dmeventd
// and lvextend --use-policies (lvm_dmeventd.hpp), or the rate-aware extender (extend/lvm_rate_aware.hpp, as
// examples/thinpoold runs it) with its sample interval and its rate estimate's half-life. How a run drives each is
// lvm_pool.hpp's.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_LVM_EXTENDER_HPP
#define PROVPOL_SIMULATE_LVM_EXTENDER_HPP

#include "../config.hpp"
#include "../extend/lvm_rate_aware.hpp"
#include "../result.hpp"
#include "../time.hpp"

#include <optional>

namespace provpol {

/// Which extender grows the pool in a simulated run: dmeventd (the default) or the rate-aware extender. Made only
/// by its factories, so a rate-aware extender's interval is always in range (a run samples every interval).
class lvm_extender {
public:
    /// dmeventd and lvextend --use-policies (lvm_dmeventd.hpp).
    PROVPOL_NODISCARD static lvm_extender dmeventd() noexcept { return lvm_extender(); }
    /// The rate-aware extender deciding with `c` every `interval`, in [0.01, 3600] s as the daemon's --interval;
    /// its rate estimate decays with the daemon's default --half-life, 30 s.
    PROVPOL_NODISCARD static result<lvm_extender> make_rate_aware(const lvm_rate_aware_config& c,
                                                                  seconds interval) noexcept {
        if (!(interval.count() >= 0.01 && interval.count() <= 3600.0))
            return unexpected(error::out_of_range("interval", error_value_of(interval), error_value_of(seconds(0.01)),
                                                  error_value_of(seconds(3600.0))));
        lvm_extender x;
        x.rate_aware_ = c;
        x.interval_ = interval;
        return x;
    }
    PROVPOL_NODISCARD bool is_rate_aware() const noexcept { return rate_aware_.has_value(); }
    /// The rate-aware extender's policy (empty: dmeventd).
    PROVPOL_NODISCARD const std::optional<lvm_rate_aware_config>& rate_aware() const noexcept { return rate_aware_; }
    /// Between its samples (the daemon's --interval).
    PROVPOL_NODISCARD seconds interval() const noexcept { return interval_; }
    /// How fast its rate estimate falls (the daemon's --half-life).
    PROVPOL_NODISCARD seconds half_life() const noexcept { return half_life_; }

private:
    lvm_extender() noexcept = default;
    std::optional<lvm_rate_aware_config> rate_aware_;
    seconds interval_ = seconds(1.0);
    seconds half_life_ = seconds(30.0);
};

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_LVM_EXTENDER_HPP
