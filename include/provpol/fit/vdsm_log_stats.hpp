// provpol/fit/vdsm_log_stats.hpp - one Clock timer's statistics over a log, as oVirt/vdsm's contrib/extend-stats
// computes them.
//
// Statistics: vdsm_stage_stats() sorts a copy of one stage's samples and computes, as contrib/extend-stats does
// (oVirt/vdsm commit 770a9a9c7 "contrib: Collect extend stats"): min = first sorted, max = last sorted,
// mean = the sorted values added left to right, divided by their count (Python's sum() on the Python of EL8 and
// EL9; Python 3.12's sum() adds with Neumaier compensation and may differ in the last bits). extend-stats prints
// no median or percentiles; provpol adds them as Python would: median as statistics.median (the middle value, or
// the mean of the two middle values), p90 and p99 as statistics.quantiles(n=100, method='inclusive'), i.e. linear
// interpolation between the closest ranks (R's type 7, numpy's default). Where provpol departs from extend-stats:
// it keeps every stage's own sample count (extend-stats skips a line without wait entirely; provpol counts its
// total), reads replica lines (on which extend-stats' regular expression captures "0.50, extend-replica=1.20,
// ..." as the wait and float() fails), and rejects nan and negative values (which float() accepts).
//
// Memory: vdsm_stage_stats sorts a copy of the samples in a std::vector (std::bad_alloc propagates); the caller's
// samples are not modified.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FIT_VDSM_LOG_STATS_HPP
#define PROVPOL_FIT_VDSM_LOG_STATS_HPP

#include "../config.hpp"
#include "../time.hpp"
#include "vdsm_log_parse.hpp"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace provpol {

/// One stage's statistics, as contrib/extend-stats computes them (plus median and percentiles; see the header).
struct vdsm_stage_statistics {
    std::size_t samples = 0;
    seconds min{}, mean{}, median{}, p90{}, p99{}, max{};
};

namespace detail {
// statistics.quantiles(data, n=100, method='inclusive')[i - 1] on sorted data: Python's own integer arithmetic
// for the position and its interpolation (data[j] * (n - delta) + data[j + 1] * delta) / n.
PROVPOL_NODISCARD inline double python_percentile(const double* x, std::size_t count, std::size_t i) noexcept {
    if (count == 1) return x[0];
    const std::size_t m = count - 1;
    const std::size_t j = i * m / 100, delta = i * m % 100;
    return (x[j] * static_cast<double>(100 - delta) + x[j + 1] * static_cast<double>(delta)) / 100.0;
}
}  // namespace detail

/// The statistics of `count` samples; all zero without samples. Does not modify `samples`: it sorts a copy
/// (allocates; std::bad_alloc propagates).
PROVPOL_NODISCARD inline vdsm_stage_statistics vdsm_stage_stats(const seconds* samples, std::size_t count) {
    vdsm_stage_statistics s;
    if (count == 0) return s;
    std::vector<double> values(count);
    for (std::size_t i = 0; i < count; ++i) values[i] = samples[i].count();
    std::sort(values.begin(), values.end());
    double sum = 0.0;
    for (std::size_t i = 0; i < count; ++i) sum += values[i];  // Python's sum(), left to right
    s.samples = count;
    s.min = seconds(values[0]);
    s.max = seconds(values[count - 1]);
    s.mean = seconds(sum / static_cast<double>(count));
    s.median = seconds(count % 2 == 1 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2.0);
    s.p90 = seconds(detail::python_percentile(values.data(), count, 90));
    s.p99 = seconds(detail::python_percentile(values.data(), count, 99));
    return s;
}

/// The samples of a log, by stage: arrays the caller owns (vdsm_stage_stats reads each, and does not modify it).
struct vdsm_log_samples {
    const seconds* data[vdsm_stage_count] = {};
    std::size_t count[vdsm_stage_count] = {};

    PROVPOL_NODISCARD constexpr std::size_t size(vdsm_stage s) const noexcept {
        return count[static_cast<unsigned>(s)];
    }
    PROVPOL_NODISCARD constexpr const seconds* values(vdsm_stage s) const noexcept {
        return data[static_cast<unsigned>(s)];
    }
};

}  // namespace provpol

#endif  // PROVPOL_FIT_VDSM_LOG_STATS_HPP
