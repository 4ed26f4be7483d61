// provpol/flow/risk.hpp - pause risk: will a guest writing at a given rate pause before an extend completes? And
// the planner that inverts it: for a write rate and an acceptable pause probability, the smallest VDSM
// configuration that meets it, and what it costs.
//
// The model is the argument of the VDSM change for BZ#2051997, made exact. When the guest crosses the block threshold
// it has `limit` bytes of free space; it pauses (ENOSPC) if it writes them before the extend completes, i.e. if the
// extend latency L exceeds limit / rate. So one extend pauses with probability P(L > limit / rate), and the largest
// rate that keeps that under p is limit / Q(1 - p), Q the latency's quantile function. That change's 138.4 MiB/s
// is the same arithmetic with the mean latency (512 MiB / 3.7 s).
//
// This treats extends as independent, which holds when the chunk is at least the limit (every VDSM
// configuration with percent <= 50, and both presets): after an extend completes the guest again has at
// least `limit` free. simulate.hpp replays whole workloads when that does not hold, or to check it.
//
// Latency is any model with double exceed_probability(seconds) and seconds quantile(double) (see flow/latency.hpp).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FLOW_RISK_HPP
#define PROVPOL_FLOW_RISK_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../detail/math.hpp"
#include "../extend/presets.hpp"
#include "../result.hpp"
#include "../time.hpp"

#include <cstdint>

namespace provpol {

/// The probability that one extend pauses a guest writing at `write_rate`, with `limit` bytes free at the
/// threshold: P(L > limit / rate). A rate of 0 never pauses.
template <class Latency>
PROVPOL_NODISCARD double pause_probability(bytes limit, rate write_rate, const Latency& latency) noexcept {
    if (write_rate.bytes_per_second() == 0) return 0.0;
    const double t = static_cast<double>(limit.count()) / static_cast<double>(write_rate.bytes_per_second());
    return latency.exceed_probability(seconds(t));
}

/// The largest write rate whose pause probability per extend stays at or below `max_probability`:
/// limit / Q(1 - max_probability). With max_probability 0 it is limit / (the longest latency).
template <class Latency>
PROVPOL_NODISCARD rate max_write_rate(bytes limit, const Latency& latency, double max_probability) noexcept {
    double p = max_probability;
    if (!(p >= 0.0)) p = 0.0;
    if (p > 1.0) p = 1.0;
    const double q = latency.quantile(1.0 - p).count();
    if (!(q > 0.0)) return rate(~std::uint64_t{0});  // zero latency: any rate
    const double r = detail::floor(static_cast<double>(limit.count()) / q);
    return rate(r >= 1.8e19 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(r));
}

/// How many extends a guest needs to write `written` bytes into a new volume of `initial` bytes extended by
/// `chunk` whenever less than `limit` is free: one per threshold crossing at initial - limit + k * chunk
/// below `written`.
PROVPOL_NODISCARD constexpr std::uint64_t extends_needed(bytes initial, bytes chunk, bytes limit,
                                                         bytes written) noexcept {
    if (chunk.count() == 0) return 0;
    const std::uint64_t first = saturating_sub(initial.count(), limit.count());  // allocation of the first crossing
    if (written.count() <= first) return 0;
    return divide(written.count() - first, chunk.count(), rounding::up);
}

/// The expected number of pauses while a guest writes `written` bytes at `write_rate` into a new disk
/// governed by a VDSM policy: extends_needed x pause_probability (extends independent; see above).
template <class Latency>
PROVPOL_NODISCARD double expected_pauses(const vdsm_policy& policy, bytes capacity, bytes written, rate write_rate,
                                         const Latency& latency) noexcept {
    const vdsm_config& c = policy.trigger().config;
    const std::uint64_t n = extends_needed(policy.initial_size(capacity), c.chunk(false), c.limit(false), written);
    return static_cast<double>(n) * pause_probability(c.limit(false), write_rate, latency);
}

/// The planner's answer: a VDSM configuration, and what it buys and costs.
struct vdsm_recommendation {
    vdsm_config config;        ///< paste as [irs] volume_utilization_chunk_mb and volume_utilization_percent
    bytes limit;               ///< the free-space limit it gives
    bytes required_limit;      ///< rate x Q(1 - max_probability): the least limit that meets the target
    bytes new_disk_size;       ///< what every new empty disk costs (the chunk, rounded up to the extent)
    double pause_probability;  ///< the model's probability that one extend pauses, at this rate
    rate max_rate;             ///< the largest rate that still meets the target with this configuration
};

/// The smallest VDSM configuration that keeps one extend's pause probability at or below `max_probability`
/// for a guest writing at `write_rate`, with the given volume_utilization_percent (VDSM's default is 20). The
/// chunk is rounded up to a whole number of extents: every new disk's LV is rounded up to the extent anyway,
/// so the rounding buys a larger limit for free. Errors name the setting: a percent outside [0, 99], a
/// probability outside [0, 1], or a rate that needs a chunk above VDSM's largest.
template <class Latency>
PROVPOL_NODISCARD result<vdsm_recommendation> recommend_vdsm(rate write_rate, const Latency& latency,
                                                             double max_probability, std::uint64_t percent = 20,
                                                             bytes extent = bytes(std::uint64_t{128} << 20)) noexcept {
    if (!(max_probability >= 0.0 && max_probability <= 1.0))
        return unexpected(error::out_of_range("max_pause_probability", error_value::of_real(max_probability),
                                              error_value::of_real(0.0), error_value::of_real(1.0)));
    if (percent > 99)
        return unexpected(error::out_of_range("volume_utilization_percent", error_value::of(percent),
                                              error_value::of(0), error_value::of(99)));
    // The least limit: the bytes written during the (1 - p) quantile of the latency.
    const double q = latency.quantile(1.0 - max_probability).count();
    const double need = detail::ceil(static_cast<double>(write_rate.bytes_per_second()) * (q > 0.0 ? q : 0.0));
    const double max_chunk = static_cast<double>(vdsm_config::max_chunk_mb << 20);
    if (!(need <= max_chunk))
        return unexpected(error::unsupported(
            "rate", "needs a free-space limit above 1PiB: no VDSM configuration meets it (bytes per second)",
            error_value::of(write_rate.bytes_per_second())));
    const bytes required(static_cast<std::uint64_t>(need));
    // limit = (100 - percent) * chunk // 100 >= required  <=>  chunk >= required * 100 / (100 - percent),
    // then whole extents (which are whole MiB); at least one extent.
    std::uint64_t chunk = ratio_of(required.count(), 100, static_cast<std::uint32_t>(100 - percent), rounding::up);
    chunk = align_up(chunk < extent.count() ? extent.count() : chunk, extent.count());
    const auto cfg = vdsm_config::make(bytes(chunk), percent, lvm_extent_size(extent));
    if (!cfg) return unexpected(cfg.error());
    const bytes limit = cfg->limit(false);
    return vdsm_recommendation{*cfg,
                               limit,
                               required,
                               align_up(cfg->chunk(), extent),
                               pause_probability(limit, write_rate, latency),
                               max_write_rate(limit, latency, max_probability)};
}

}  // namespace provpol

#endif  // PROVPOL_FLOW_RISK_HPP
