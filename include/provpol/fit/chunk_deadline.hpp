// provpol/fit/chunk_deadline.hpp - the smallest I/O chunk that meets a deadline, planned over chunk_cost_model.hpp's
// model:
//   (c) the deadline planner: given bytes to write, a total deadline (Xen's redo log has one per flush: 30 s for a
//       database, 2 s for a delta) and the model, the smallest chunk that meets the deadline with a stated margin,
//       or an error saying that it cannot be met on this device.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FIT_CHUNK_DEADLINE_HPP
#define PROVPOL_FIT_CHUNK_DEADLINE_HPP

#include "../bytes.hpp"
#include "../chunk/policy.hpp"
#include "../config.hpp"
#include "../detail/math.hpp"
#include "../result.hpp"
#include "../time.hpp"
#include "chunk_cost_model.hpp"

#include <cstdint>

namespace provpol {

// --- (c) the deadline planner -----------------------------------------------------------------------------------

/// The default margin: plan to finish within 80% of the deadline, so that the model may be 25% optimistic.
inline constexpr double default_deadline_margin = 0.2;

/// A plan that meets a deadline.
struct deadline_plan {
    bytes chunk;                ///< the smallest chunk that meets the deadline with the margin (before any policy)
    std::uint64_t writes;       ///< ceil(total / chunk)
    seconds predicted_seconds;  ///< the model's time for the whole write
    seconds budget_seconds;     ///< deadline * (1 - margin): the time the plan must fit in
};

/// The planner (c): the smallest chunk with which writing `total` bytes takes at most deadline * (1 - margin)
/// under the model (ceil(total / chunk) writes of t0 each, plus total / B). An error naming the deadline and the
/// shortest one that can be met when even a single write of `total` bytes is too slow. margin in [0, 0.9].
PROVPOL_NODISCARD inline result<deadline_plan> plan_for_deadline(bytes total, seconds deadline, const cost_model& m,
                                                                 double margin = default_deadline_margin) noexcept {
    const double deadline_seconds = deadline.count();
    if (auto r = check_cost_model(m); !r) return unexpected(r.error());
    if (total.count() == 0)
        return unexpected(error::out_of_range("total", error_value::of_size(0), error_value::of_size(1), {}));
    if (!(margin >= 0.0 && margin <= 0.9))
        return unexpected(error::out_of_range("margin", error_value::of_real(margin), error_value::of_real(0.0),
                                              error_value::of_real(0.9)));
    if (!(deadline_seconds > 0.0) || !detail::isfinite(deadline_seconds))
        return unexpected(error::unsupported("deadline_seconds", "must be positive and finite",
                                             error_value::of_real(deadline_seconds)));
    const double budget = deadline_seconds * (1.0 - margin);
    const double t0 = m.latency_seconds.count();
    const double transfer = static_cast<double>(total.count()) / m.bandwidth_bytes_per_second;
    if (t0 + transfer > budget) {
        const double shortest = (t0 + transfer) / (1.0 - margin);
        return unexpected(error::out_of_range("deadline_seconds", error_value::of_real(deadline_seconds),
                                              error_value::of_real(shortest), {}));
    }
    // The most writes that fit: k = floor((budget - transfer) / t0) >= 1; the chunk is ceil(total / k).
    std::uint64_t k = total.count();
    if (t0 > 0.0) {
        const double kmax = detail::floor((budget - transfer) / t0);
        if (kmax < static_cast<double>(total.count())) k = kmax < 1.0 ? 1 : static_cast<std::uint64_t>(kmax);
    }
    bytes chunk(divide(total.count(), k, rounding::up));
    // Rounding in the floating-point bound can overshoot by a write; step back until the plan fits (k = 1 does).
    while (m.seconds_to_write(total, chunk).count() > budget && k > 1) {
        --k;
        chunk = bytes(divide(total.count(), k, rounding::up));
    }
    return deadline_plan{chunk, divide(total.count(), chunk.count(), rounding::up), m.seconds_to_write(total, chunk),
                         seconds(budget)};
}

/// A policy's chunk for a deadline.
struct deadline_decision {
    chunk_decision decision;    ///< the policy's decision for the plan's chunk
    deadline_plan plan;         ///< the plan (before the policy)
    std::uint64_t writes;       ///< ceil(total / decision.size)
    seconds predicted_seconds;  ///< the model's time with decision.size
};

/// The planner through a policy: the policy's decision for the plan's chunk (aligning up only makes fewer
/// writes, so it still meets the deadline), or an error when the device's largest chunk is below the plan's.
template <class DefaultStep>
PROVPOL_NODISCARD inline result<deadline_decision> decide_for_deadline(
    const basic_chunk_policy<DefaultStep>& policy, bytes total, seconds deadline, const cost_model& m,
    double margin = default_deadline_margin) noexcept {
    const result<deadline_plan> plan = plan_for_deadline(total, deadline, m, margin);
    if (!plan) return unexpected(plan.error());
    const chunk_decision d = policy.decide(plan->chunk);
    if (d.size < plan->chunk)
        return unexpected(error::conflict("deadline_seconds", error_value::of_real(deadline.count()),
                                          "needs chunks larger than", "the device's largest chunk",
                                          error_value::of_size(policy.max_chunk().count())));
    return deadline_decision{d, *plan, divide(total.count(), d.size.count(), rounding::up),
                             m.seconds_to_write(total, d.size)};
}

}  // namespace provpol

#endif  // PROVPOL_FIT_CHUNK_DEADLINE_HPP
