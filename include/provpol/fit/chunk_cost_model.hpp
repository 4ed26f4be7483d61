// provpol/fit/chunk_cost_model.hpp - the cost model an I/O chunk size is chosen by (beside chunk.hpp's rules):
//   (b) the model: a least-squares fit of the queue-depth-1 cost of one write, time(bs) = t0 + bs / B (a fixed
//       per-write latency t0, a bandwidth B), and the size at which it reaches the target fraction of B,
//       bs = f / (1 - f) * t0 * B. Two or three measured sizes suffice, and the answer is not limited to the sizes
//       tried.
// Nothing here reads a clock or does I/O.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FIT_CHUNK_COST_MODEL_HPP
#define PROVPOL_FIT_CHUNK_COST_MODEL_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../detail/math.hpp"
#include "../result.hpp"
#include "../time.hpp"
#include "chunk_samples.hpp"

#include <cstddef>
#include <cstdint>

namespace provpol {

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

}  // namespace provpol

#endif  // PROVPOL_FIT_CHUNK_COST_MODEL_HPP
