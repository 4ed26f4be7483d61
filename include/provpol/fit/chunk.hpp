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
//   (b) the model, fitted by least squares, and (c) the deadline planner over it are chunk_cost_model.hpp's and
//       chunk_deadline.hpp's; the samples and their per-size statistics chunk_samples.hpp's (this header includes
//       the three).
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
#include "../config.hpp"
#include "../detail/math.hpp"
#include "../result.hpp"
#include "../time.hpp"
#include "chunk_cost_model.hpp"  // IWYU pragma: export
#include "chunk_deadline.hpp"    // IWYU pragma: export
#include "chunk_samples.hpp"     // IWYU pragma: export

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace provpol {

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

}  // namespace provpol

#endif  // PROVPOL_FIT_CHUNK_HPP
