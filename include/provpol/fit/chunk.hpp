// provpol/fit/chunk.hpp - choosing an I/O chunk size from measurements: the dd experiment of xen-api CA-42914, done
// properly.
//
//   (a) the rule: from measured samples (block size, throughput; repeated runs allowed), the smallest block size
//       whose median throughput reaches a target fraction (default 95%) of the best median. This is the Xen-API
//       redo log's 2010 reasoning written down: "4 KiB is the minimum block size that should be considered ...
//       we'll default to 16 KiB to be on the safe side".
//   (a') the steady rule: the same question asked of each size's steady throughput, the lowest median among the
//       measured sizes within a factor of 2 of it (block_size / 2 to 2 * block_size). A size next to a collapse
//       (ovirt-imageio's 24 MiB, 8 MiB below the 32 MiB that falls under 1 MiB's throughput) or on a steep slope
//       (CA-42914's 4 KiB on NFS, next to 2 KiB at a quarter of its speed) scores what its neighbour gives: a
//       device whose curve sits a factor of 2 away from the one measured would give that. On
//       tests/data/chunk_tables it picks what the projects chose "to be on the safe side": 16 KiB on all three of
//       CA-42914's tables (the rule: 4 KiB on NFS), 8 MiB on both of ovirt-imageio's arrays (the rule: 16 and 24
//       MiB). Sizes measured 4 times apart or more have no neighbour within the factor: it is then the rule.
//   (b) the model: a least-squares fit of the queue-depth-1 cost of one write, time(bs) = t0 + bs / B (a fixed
//       per-write latency t0, a bandwidth B), and the size at which it reaches the target fraction of B,
//       bs = f / (1 - f) * t0 * B. Two or three measured sizes suffice, and the answer is not limited to the sizes
//       tried.
//   (c) the deadline planner: given bytes to write, a total deadline (Xen's redo log has one per flush: 30 s for a
//       database, 2 s for a delta) and the model, the smallest chunk that meets the deadline with a stated margin,
//       or an error saying that it cannot be met on this device.
//
// Samples are held by the caller: the functions take a pointer and a count. sort_samples() sorts them in place;
// choose_by_rule() and choose_by_steady_rule() do not modify them: they sort a copy (std::vector, the only
// allocations here). Nothing here
// reads a clock or does I/O; `provpol calibrate` is the program that measures.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FIT_CHUNK_HPP
#define PROVPOL_FIT_CHUNK_HPP

#include "../bytes.hpp"
#include "../chunk/policy.hpp"
#include "../config.hpp"
#include "../detail/math.hpp"
#include "../result.hpp"
#include "../time.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace provpol {

/// One measured run: every write had `block_size` bytes, and the run wrote at `bytes_per_second`.
struct throughput_sample {
    bytes block_size;         ///< the size of each write, >= 1
    double bytes_per_second;  ///< bytes written / seconds elapsed, positive and finite (dd's MB/s times 10^6)
};

/// dd's MB/s (10^6 bytes per second, as dd prints it) in bytes per second.
PROVPOL_NODISCARD constexpr double from_mb_per_s(double mb_per_s) noexcept { return mb_per_s * 1e6; }
/// Bytes per second in dd's MB/s.
PROVPOL_NODISCARD constexpr double to_mb_per_s(double bytes_per_second) noexcept { return bytes_per_second / 1e6; }

/// The accepted target fractions: below 1% the rule says nothing, and the model needs f < 1 (at f = 1 no finite
/// size reaches the bandwidth).
inline constexpr double min_target_fraction = 0.01;
/// See min_target_fraction.
inline constexpr double max_target_fraction = 0.999;
/// The default target fraction: 95% of the best.
inline constexpr double default_target_fraction = 0.95;

namespace detail {

constexpr bool sample_less(const throughput_sample& a, const throughput_sample& b) noexcept {
    return a.block_size < b.block_size || (a.block_size == b.block_size && a.bytes_per_second < b.bytes_per_second);
}

// True when `v` reaches `fraction` of `best`. A relative slack of 1e-12, far below any measurement's precision and
// far above double rounding, makes a value equal to the target in decimal reach it: 7.885 is 95% of 8.3, but
// 0.95 * 8.3 rounds to 7.885000000000001 in double. The published tables hold such ties (coreutils' system #8:
// 17.1 is 95% of 18.0).
constexpr bool reaches(double v, double fraction, double best) noexcept { return v >= fraction * best * (1.0 - 1e-12); }

constexpr result<void> check_target_fraction(double f) noexcept {
    if (!(f >= min_target_fraction && f <= max_target_fraction))  // also rejects NaN
        return unexpected(error::out_of_range("target_fraction", error_value::of_real(f),
                                              error_value::of_real(min_target_fraction),
                                              error_value::of_real(max_target_fraction)));
    return {};
}

}  // namespace detail

/// Checks every sample: at least one, each with a block size >= 1 byte and a positive, finite throughput.
PROVPOL_NODISCARD constexpr result<void> check_samples(const throughput_sample* samples, std::size_t count) noexcept {
    if (samples == nullptr || count == 0) return unexpected(error::unsupported("samples", "need at least one sample"));
    for (std::size_t i = 0; i < count; ++i) {
        if (samples[i].block_size.count() == 0)
            return unexpected(error::out_of_range("block_size", error_value::of_size(0), error_value::of_size(1), {}));
        const double v = samples[i].bytes_per_second;
        if (!(v > 0.0) || !detail::isfinite(v))
            return unexpected(error::unsupported("bytes_per_second", "must be a positive, finite throughput",
                                                 error_value::of_real(v)));
    }
    return {};
}

/// Checks the samples and sorts them in place by block size, then throughput. Returns the number of distinct
/// block sizes.
PROVPOL_NODISCARD inline result<std::size_t> sort_samples(throughput_sample* samples, std::size_t count) noexcept {
    if (auto r = check_samples(samples, count); !r) return unexpected(r.error());
    std::sort(samples, samples + count, detail::sample_less);
    std::size_t sizes = 1;
    for (std::size_t i = 1; i < count; ++i)
        if (samples[i].block_size != samples[i - 1].block_size) ++sizes;
    return sizes;
}

/// The runs of one block size.
struct size_stats {
    bytes block_size;                ///< the block size
    std::size_t runs;                ///< how many samples it has
    double median_bytes_per_second;  ///< their median (the mean of the middle two for an even count)
    double min_bytes_per_second;     ///< the slowest run
    double max_bytes_per_second;     ///< the fastest run
};

/// The statistics of the block size whose runs start at sorted[first], in samples sorted by sort_samples();
/// `runs` says how far the next block size starts. Precondition: first < count.
PROVPOL_NODISCARD constexpr size_stats size_stats_at(const throughput_sample* sorted, std::size_t count,
                                                     std::size_t first) noexcept {
    std::size_t end = first + 1;
    while (end < count && sorted[end].block_size == sorted[first].block_size) ++end;
    const std::size_t n = end - first;
    const std::size_t mid = first + n / 2;
    const double median = n % 2 == 1 ? sorted[mid].bytes_per_second
                                     : (sorted[mid - 1].bytes_per_second + sorted[mid].bytes_per_second) / 2.0;
    return {sorted[first].block_size, n, median, sorted[first].bytes_per_second, sorted[end - 1].bytes_per_second};
}

/// What the rule picked, and why.
struct rule_choice {
    bytes block_size;                ///< the smallest block size whose median reaches target_fraction of the best
    double median_bytes_per_second;  ///< its median throughput
    bytes best_block_size;           ///< the (smallest) block size with the best median
    double best_bytes_per_second;    ///< the best median
    double target_fraction;          ///< the fraction asked for
    std::size_t sizes;               ///< how many distinct block sizes were measured
};

/// The rule (a): the smallest block size whose median throughput reaches `target_fraction` of the best median
/// (a median equal to the target in decimal reaches it: see detail::reaches).
/// Does not modify `samples`: it sorts a copy (sort_samples; allocates, std::bad_alloc propagates).
/// target_fraction must be in [min_target_fraction, max_target_fraction].
PROVPOL_NODISCARD inline result<rule_choice> choose_by_rule(const throughput_sample* samples, std::size_t count,
                                                            double target_fraction = default_target_fraction) {
    if (auto r = detail::check_target_fraction(target_fraction); !r) return unexpected(r.error());
    if (auto r = check_samples(samples, count); !r) return unexpected(r.error());
    std::vector<throughput_sample> copy(samples, samples + count);
    const throughput_sample* const sorted = copy.data();
    const result<std::size_t> sizes = sort_samples(copy.data(), count);
    if (!sizes) return unexpected(sizes.error());
    size_stats best = size_stats_at(sorted, count, 0);
    for (std::size_t i = best.runs; i < count;) {
        const size_stats s = size_stats_at(sorted, count, i);
        if (s.median_bytes_per_second > best.median_bytes_per_second) best = s;
        i += s.runs;
    }
    for (std::size_t i = 0; i < count;) {
        const size_stats s = size_stats_at(sorted, count, i);
        if (detail::reaches(s.median_bytes_per_second, target_fraction, best.median_bytes_per_second))
            return rule_choice{s.block_size,    s.median_bytes_per_second,
                               best.block_size, best.median_bytes_per_second,
                               target_fraction, *sizes};
        i += s.runs;
    }
    // Unreachable: the best size reaches any fraction <= 1 of itself.
    return rule_choice{best.block_size, best.median_bytes_per_second,
                       best.block_size, best.median_bytes_per_second,
                       target_fraction, *sizes};
}

// --- (a') the steady rule ------------------------------------------------------------------------------------------

/// The factor of the steady rule's neighbourhood: a size's steady throughput is the lowest median among the
/// measured sizes from block_size / 2 to 2 * block_size. 2 is one step of the power-of-two grids the published
/// tables (and dd) measure; a factor of 4 would reach past the knee itself (on ovirt-imageio's table, 8 MiB's
/// neighbourhood would take in the 32 MiB collapse, and the rule would fall back to 1 MiB).
inline constexpr std::uint64_t steady_factor = 2;

/// What the steady rule picked, and why.
struct steady_choice {
    bytes block_size;                     ///< the smallest size whose steady throughput reaches the fraction
    double median_bytes_per_second;       ///< its median throughput
    double steady_bytes_per_second;       ///< its steady throughput (the lowest median within its neighbourhood)
    bytes best_steady_block_size;         ///< the (smallest) size with the best steady throughput
    double best_steady_bytes_per_second;  ///< that steady throughput: the fraction is of this
    bytes fastest_block_size;             ///< the (smallest) size with the best median, as the rule reports it
    double fastest_bytes_per_second;      ///< the best median
    double target_fraction;               ///< the fraction asked for
    std::size_t sizes;                    ///< how many distinct block sizes were measured
};

namespace detail {

// Every distinct block size's statistics, in ascending order (samples sorted by sort_samples()).
inline std::vector<size_stats> stats_per_size(const throughput_sample* sorted, std::size_t count) {
    std::vector<size_stats> out;
    for (std::size_t i = 0; i < count; i += out.back().runs) out.push_back(size_stats_at(sorted, count, i));
    return out;
}

// Each size's steady throughput: the lowest median among sizes t with t * factor >= s and t <= s * factor. Both
// ends of the window only move up with s, so one pass with a queue of rising minima suffices (a million sizes
// cost a million steps, not a million squared).
inline std::vector<double> steady_medians(const std::vector<size_stats>& st) {
    std::vector<double> out(st.size());
    std::vector<std::size_t> q(st.size());  // indices of medians rising from q[head] to q[tail - 1]
    std::size_t head = 0, tail = 0, next = 0, lo = 0;
    for (std::size_t i = 0; i < st.size(); ++i) {
        const std::uint64_t s = st[i].block_size.count();
        for (; next < st.size() && st[next].block_size.count() <= saturating_mul(s, steady_factor); ++next) {
            while (tail > head && st[q[tail - 1]].median_bytes_per_second >= st[next].median_bytes_per_second) --tail;
            q[tail++] = next;
        }
        while (saturating_mul(st[lo].block_size.count(), steady_factor) < s) ++lo;
        while (q[head] < lo) ++head;
        out[i] = st[q[head]].median_bytes_per_second;
    }
    return out;
}

}  // namespace detail

/// The steady rule (a'): the smallest block size whose steady throughput (the lowest median among the measured
/// sizes from block_size / steady_factor to block_size * steady_factor, itself included) reaches `target_fraction`
/// of the best steady throughput. Does not modify `samples` (it sorts a copy; allocates, std::bad_alloc
/// propagates). target_fraction must be in [min_target_fraction, max_target_fraction].
PROVPOL_NODISCARD inline result<steady_choice> choose_by_steady_rule(const throughput_sample* samples,
                                                                     std::size_t count,
                                                                     double target_fraction = default_target_fraction) {
    if (auto r = detail::check_target_fraction(target_fraction); !r) return unexpected(r.error());
    if (auto r = check_samples(samples, count); !r) return unexpected(r.error());
    std::vector<throughput_sample> copy(samples, samples + count);
    std::sort(copy.begin(), copy.end(), detail::sample_less);
    const std::vector<size_stats> st = detail::stats_per_size(copy.data(), count);
    const std::vector<double> steady = detail::steady_medians(st);
    std::size_t best = 0, fastest = 0;
    for (std::size_t i = 1; i < st.size(); ++i) {
        if (steady[i] > steady[best]) best = i;
        if (st[i].median_bytes_per_second > st[fastest].median_bytes_per_second) fastest = i;
    }
    std::size_t pick = best;  // the best reaches any fraction <= 1 of itself
    for (std::size_t i = 0; i < best; ++i)
        if (detail::reaches(steady[i], target_fraction, steady[best])) {
            pick = i;
            break;
        }
    return steady_choice{st[pick].block_size,
                         st[pick].median_bytes_per_second,
                         steady[pick],
                         st[best].block_size,
                         steady[best],
                         st[fastest].block_size,
                         st[fastest].median_bytes_per_second,
                         target_fraction,
                         st.size()};
}

// --- (b) the cost model -----------------------------------------------------------------------------------------

/// The queue-depth-1 cost of one write of bs bytes: t0 + bs / B.
struct cost_model {
    seconds latency_seconds;            ///< t0: the fixed cost of one write (system call, round trip, O_DSYNC flush)
    double bandwidth_bytes_per_second;  ///< B: the rate at which the bytes themselves move

    /// The time one write of `size` bytes takes.
    PROVPOL_NODISCARD constexpr seconds seconds_per_write(bytes size) const noexcept {
        return seconds(latency_seconds.count() + static_cast<double>(size.count()) / bandwidth_bytes_per_second);
    }
    /// The throughput writes of `size` bytes reach: size / (t0 + size / B), approaching B from below.
    PROVPOL_NODISCARD constexpr double bytes_per_second(bytes size) const noexcept {
        return static_cast<double>(size.count()) / seconds_per_write(size).count();
    }
    /// The time to write `total` bytes in writes of `chunk` bytes (the last one partial): ceil(total / chunk) * t0 +
    /// total / B. chunk == 0 is treated as 1.
    PROVPOL_NODISCARD constexpr seconds seconds_to_write(bytes total, bytes chunk) const noexcept {
        const std::uint64_t writes = divide(total.count(), chunk.count() == 0 ? 1 : chunk.count(), rounding::up);
        return seconds(static_cast<double>(writes) * latency_seconds.count() +
                       static_cast<double>(total.count()) / bandwidth_bytes_per_second);
    }
};

/// Checks that a model is usable: latency >= 0 and bandwidth > 0, both finite.
PROVPOL_NODISCARD constexpr result<void> check_cost_model(const cost_model& m) noexcept {
    if (!(m.latency_seconds.count() >= 0.0) || !detail::isfinite(m.latency_seconds.count()))
        return unexpected(error::unsupported("latency_seconds", "must be finite and at least 0",
                                             error_value::of_real(m.latency_seconds.count())));
    if (!(m.bandwidth_bytes_per_second > 0.0) || !detail::isfinite(m.bandwidth_bytes_per_second))
        return unexpected(error::unsupported("bandwidth_bytes_per_second", "must be positive and finite",
                                             error_value::of_real(m.bandwidth_bytes_per_second)));
    return {};
}

/// The smallest whole number of bytes (at least 1) whose throughput under the model reaches `fraction` of the
/// bandwidth: fraction / (1 - fraction) * t0 * B, rounded up; 2^64 - 1 when that is not representable.
PROVPOL_NODISCARD inline result<bytes> size_for_fraction(const cost_model& m, double fraction) noexcept {
    if (auto r = detail::check_target_fraction(fraction); !r) return unexpected(r.error());
    if (auto r = check_cost_model(m); !r) return unexpected(r.error());
    const double s = fraction / (1.0 - fraction) * m.latency_seconds.count() * m.bandwidth_bytes_per_second;
    if (!(s < 18446744073709549568.0)) return bytes::max();  // the largest double below 2^64
    const double up = detail::ceil(s);
    return bytes(up < 1.0 ? 1 : static_cast<std::uint64_t>(up));
}

/// A fitted cost model and how well it fits.
struct cost_model_fit {
    cost_model model;              ///< the fitted t0 and B
    std::size_t samples;           ///< samples used
    double rms_relative_residual;  ///< root mean square of (model time - measured time) / measured time per write
    double max_relative_residual;  ///< the largest |model time - measured time| / measured time
    bool latency_clamped;          ///< least squares gave t0 < 0; this is the best fit with t0 = 0
};

/// The relative residual of one sample under a model: (model time - measured time) / measured time per write.
PROVPOL_NODISCARD constexpr double relative_residual(const cost_model& m, const throughput_sample& s) noexcept {
    const double measured = static_cast<double>(s.block_size.count()) / s.bytes_per_second;
    return (m.seconds_per_write(s.block_size).count() - measured) / measured;
}

/// The model (b): fits time(bs) = t0 + bs / B to the samples by weighted least squares on the time per write
/// (bs / throughput), each sample weighted by 1 / time^2. Unweighted, the largest sizes (whose writes take the
/// longest) would decide t0 alone; weighted, every sample's relative error counts the same, which matches how
/// throughput noise behaves (a few percent at every size). Needs two distinct block sizes, and times that grow
/// with the block size. A negative t0 (noise on a device with no measurable latency) is clamped to 0 and B
/// refitted, and the fit says so.
PROVPOL_NODISCARD inline result<cost_model_fit> fit_cost_model(const throughput_sample* samples,
                                                               std::size_t count) noexcept {
    if (auto r = check_samples(samples, count); !r) return unexpected(r.error());
    bool two_sizes = false;
    for (std::size_t i = 1; i < count && !two_sizes; ++i) two_sizes = samples[i].block_size != samples[0].block_size;
    if (!two_sizes)
        return unexpected(error::unsupported("samples", "the cost model needs at least two different block sizes"));
    // Weighted means, then centred sums (better conditioned than the raw normal equations: x reaches 1e9 and more).
    double sw = 0.0, swx = 0.0, swy = 0.0;
    for (std::size_t i = 0; i < count; ++i) {
        const double x = static_cast<double>(samples[i].block_size.count());
        const double y = x / samples[i].bytes_per_second;
        const double w = 1.0 / (y * y);
        sw += w;
        swx += w * x;
        swy += w * y;
    }
    const double mx = swx / sw, my = swy / sw;
    double sxx = 0.0, sxy = 0.0;
    for (std::size_t i = 0; i < count; ++i) {
        const double x = static_cast<double>(samples[i].block_size.count());
        const double y = x / samples[i].bytes_per_second;
        const double w = 1.0 / (y * y);
        sxx += w * (x - mx) * (x - mx);
        sxy += w * (x - mx) * (y - my);
    }
    double slope = sxy / sxx;
    double t0 = my - slope * mx;
    bool clamped = false;
    if (!(slope > 0.0) || !detail::isfinite(slope) || !detail::isfinite(t0))
        return unexpected(error::unsupported(
            "samples", "the time per write does not grow with the block size, so t0 + bs / B does not fit them"));
    if (t0 < 0.0) {
        // The best B with t0 = 0: minimise sum w (x / B - y)^2, i.e. slope = sum w x y / sum w x^2.
        double swxy = 0.0, swxx = 0.0;
        for (std::size_t i = 0; i < count; ++i) {
            const double x = static_cast<double>(samples[i].block_size.count());
            const double y = x / samples[i].bytes_per_second;
            const double w = 1.0 / (y * y);
            swxy += w * x * y;
            swxx += w * x * x;
        }
        slope = swxy / swxx;
        t0 = 0.0;
        clamped = true;
    }
    cost_model_fit fit{cost_model{seconds(t0), 1.0 / slope}, count, 0.0, 0.0, clamped};
    double sum_sq = 0.0;
    for (std::size_t i = 0; i < count; ++i) {
        const double r = relative_residual(fit.model, samples[i]);
        sum_sq += r * r;
        if (detail::fabs(r) > fit.max_relative_residual) fit.max_relative_residual = detail::fabs(r);
    }
    fit.rms_relative_residual = detail::sqrt(sum_sq / static_cast<double>(count));
    return fit;
}

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

#endif  // PROVPOL_FIT_CHUNK_HPP
