// provpol/simulate/rate_aware_policy.hpp - the rate-aware extend policy (rate_aware_steps, rate_aware_policy,
// make_rate_aware_policy): limit and chunk max(the floor's, rate x budget), rounded up to whole MiB, over any VDSM
// configuration as its floor; the budget a latency model's quantile (latency_budget) or fixed. Why, and the agents
// that drive it with a rate estimate, are rate_aware.hpp's.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_RATE_AWARE_POLICY_HPP
#define PROVPOL_SIMULATE_RATE_AWARE_POLICY_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../detail/math.hpp"
#include "../extend/presets.hpp"
#include "../result.hpp"
#include "../time.hpp"

#include <algorithm>
#include <cstdint>

namespace provpol {

/// The latency a rate-aware policy plans for: the `quantile` of a latency model, rounded up to whole
/// milliseconds (a negative quantile counts as 0; a longer one than std::chrono::milliseconds holds saturates).
/// Latency is any model with seconds quantile(double) (flow/latency.hpp).
template <class Latency>
PROVPOL_NODISCARD milliseconds latency_budget(const Latency& latency, double quantile) noexcept {
    const double s = seconds(latency.quantile(quantile)).count();
    const double ms = detail::ceil((s > 0.0 ? s : 0.0) * 1000.0);
    return milliseconds(ms >= 9e18 ? milliseconds::rep{9000000000000000000} : static_cast<milliseconds::rep>(ms));
}

/// The longest latency budget a rate-aware policy accepts: one hour.
inline constexpr milliseconds max_latency_budget = std::chrono::hours(1);

namespace detail {
// Bytes written at `r` during `budget` (held to 0 .. max_latency_budget), rounded up to whole MiB (VDSM's request
// granularity).
constexpr std::uint64_t rate_budget_bytes(rate r, milliseconds budget) noexcept {
    const auto ms = static_cast<std::uint32_t>(std::clamp(budget, milliseconds(0), max_latency_budget).count());
    return align_up(ratio_of(r.bytes_per_second(), ms, 1000, rounding::up), std::uint64_t{1} << 20);
}
}  // namespace detail

/// The bytes written at `r` during `budget` (held to 0 .. max_latency_budget), rounded up to whole MiB, VDSM's
/// request granularity: what a rate-aware policy adds to its floor's limit and chunk at that rate.
PROVPOL_NODISCARD constexpr bytes bytes_written_in(rate r, milliseconds budget) noexcept {
    return bytes(detail::rate_budget_bytes(r, budget));
}

/// The rate-aware rules, one value playing extend_policy's three roles (the floor and the budget held once):
/// - trigger: extend when free space falls under max(floor limit, rate x budget); VDSM's improbable check;
/// - growth: extend by max(floor chunk, rate x budget); a new disk costs what the floor's does;
/// - limits: qcow2_lvm_limits of the floor's extent.
/// Made only by make(), which validates the budget.
class rate_aware_steps {
public:
    /// Validates the budget: 1 ms to one hour (max_latency_budget). The error names "latency_budget" and quotes
    /// times in seconds. A budget in seconds that is not whole milliseconds is rounded up by the caller, as
    /// latency_budget() does: std::chrono::ceil<milliseconds>(t).
    PROVPOL_NODISCARD static constexpr result<rate_aware_steps> make(const vdsm_config& floor,
                                                                     milliseconds budget) noexcept {
        if (budget < milliseconds(1) || budget > max_latency_budget)
            return unexpected(error::out_of_range("latency_budget", error_value_of(budget),
                                                  error_value_of(milliseconds(1)), error_value_of(max_latency_budget)));
        return rate_aware_steps(floor, budget);
    }

    /// The static configuration below which the policy never goes.
    PROVPOL_NODISCARD constexpr const vdsm_config& floor() const noexcept { return floor_; }
    /// The latency planned for.
    PROVPOL_NODISCARD constexpr milliseconds budget() const noexcept { return budget_; }

    // Trigger
    PROVPOL_NODISCARD constexpr bytes limit(const drive_state& d, bytes /*chunk*/) const noexcept {
        return max(floor_.limit(d.replicating), bytes(detail::rate_budget_bytes(d.write_rate, budget_)));
    }
    PROVPOL_NODISCARD constexpr bool improbable(const drive_state& d, bytes requested) const noexcept {
        return d.allocation > requested;  // VDSM's check, unchanged
    }
    // Growth
    PROVPOL_NODISCARD constexpr bytes chunk(const drive_state& d) const noexcept {
        return max(floor_.chunk(d.replicating), bytes(detail::rate_budget_bytes(d.write_rate, budget_)));
    }
    PROVPOL_NODISCARD constexpr bytes initial_size(bytes capacity) const noexcept {
        return min(floor_.chunk(), capacity);
    }
    // Limits
    PROVPOL_NODISCARD constexpr bytes max_size(bytes capacity) const noexcept {
        return qcow2_lvm_limits(floor_).max_size(capacity);
    }
    PROVPOL_NODISCARD constexpr bytes max_size_storage(bytes capacity) const noexcept {
        return qcow2_lvm_limits(floor_).max_size_storage(capacity);
    }
    PROVPOL_NODISCARD constexpr bytes request(bytes physical, bytes chunk) const noexcept {
        return qcow2_lvm_limits(floor_).request(physical, chunk);
    }
    PROVPOL_NODISCARD constexpr bytes lv_size(bytes requested) const noexcept {
        return qcow2_lvm_limits(floor_).lv_size(requested);
    }

private:
    constexpr rate_aware_steps(const vdsm_config& floor, milliseconds budget) noexcept
        : floor_(floor), budget_(budget) {}
    vdsm_config floor_;
    milliseconds budget_;
};

/// The rate-aware policy type.
using rate_aware_policy = extend_policy<rate_aware_steps, rate_aware_steps, rate_aware_steps>;

/// A rate-aware policy over a floor configuration and a latency budget (1 ms to one hour), validated:
/// make_rate_aware_policy(vdsm_legacy, 6_s) or (vdsm_legacy, 6200_ms).
PROVPOL_NODISCARD constexpr result<rate_aware_policy> make_rate_aware_policy(const vdsm_config& floor,
                                                                             milliseconds budget) noexcept {
    const auto steps = rate_aware_steps::make(floor, budget);
    if (!steps) return unexpected(steps.error());
    return rate_aware_policy(*steps);
}

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_RATE_AWARE_POLICY_HPP
