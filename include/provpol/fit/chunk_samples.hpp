// provpol/fit/chunk_samples.hpp - the measurements a chunk size is chosen from (throughput_sample, in dd's MB/s or
// bytes per second), their checks and order (check_samples, sort_samples), the target fractions accepted, and the
// statistics of one block size's runs (size_stats). The rules over them are chunk.hpp's, the model
// chunk_cost_model.hpp's.
//
// Samples are held by the caller: the functions take a pointer and a count. sort_samples() sorts them in place.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FIT_CHUNK_SAMPLES_HPP
#define PROVPOL_FIT_CHUNK_SAMPLES_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../detail/math.hpp"
#include "../result.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

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

}  // namespace provpol

#endif  // PROVPOL_FIT_CHUNK_SAMPLES_HPP
