// provpol/simulate/lvm_plan_summary.hpp - what runs of a burst into a thin pool show together (lvm_plan_summary):
// means, maxima and counts over lvm_pool.hpp's runs, added in run order (simulate_lvm_plan).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_LVM_PLAN_SUMMARY_HPP
#define PROVPOL_SIMULATE_LVM_PLAN_SUMMARY_HPP

#include "../bytes.hpp"
#include "../time.hpp"
#include "lvm_pool_run.hpp"

#include <cstdint>

namespace provpol {

/// What runs of a burst show together.
struct lvm_plan_summary {
    std::uint32_t runs = 0;
    double extends_mean = 0.0;
    double commands_mean = 0.0;
    double times_full_mean = 0.0;
    seconds queued_mean = seconds(0);
    seconds queued_max = seconds(0);  ///< the most any run queued
    std::uint32_t queued_runs = 0;    ///< runs that queued at all
    std::uint32_t eio_runs = 0;       ///< runs whose writes failed (EIO)
    std::uint32_t hung_runs = 0;      ///< runs whose writes never completed (no_space_timeout 0)
    std::uint32_t vg_exhausted_runs = 0;
    bytes pool_end_max;  ///< the largest the pool ended at
    bytes vg_free_end_min = bytes::max();
    seconds ended_at_mean = seconds(0);
    double metadata_extends_mean = 0.0;          ///< extends that grew the metadata, a run on average
    std::uint32_t metadata_full_runs = 0;        ///< runs whose metadata ran out (counted in eio_runs too)
    seconds metadata_full_at_mean = seconds(0);  ///< when it ran out, over those runs (0: none did)
    bytes metadata_end_max;                      ///< the largest the metadata LV ended at (0: not simulated)
};

namespace detail {

// Adds a run to a summary, in run order (the means are sums until lvm_plan_means).
inline void lvm_plan_add(lvm_plan_summary& s, const lvm_run_result& r) noexcept {
    ++s.runs;
    s.extends_mean += r.extends;
    s.commands_mean += r.commands;
    s.times_full_mean += r.times_full;
    s.queued_mean += r.queued;
    if (r.queued > s.queued_max) s.queued_max = r.queued;
    if (r.queued > seconds(0)) ++s.queued_runs;
    if (r.eio) ++s.eio_runs;
    if (r.hung) ++s.hung_runs;
    if (r.vg_exhausted) ++s.vg_exhausted_runs;
    if (r.pool_end > s.pool_end_max) s.pool_end_max = r.pool_end;
    if (r.vg_free_end < s.vg_free_end_min) s.vg_free_end_min = r.vg_free_end;
    s.ended_at_mean += r.ended_at;
    s.metadata_extends_mean += r.metadata_extends;
    if (r.metadata_full) {
        ++s.metadata_full_runs;
        s.metadata_full_at_mean += r.ended_at;
    }
    if (r.metadata_end > s.metadata_end_max) s.metadata_end_max = r.metadata_end;
}

// Turns the sums of lvm_plan_add into means over the runs added.
inline void lvm_plan_means(lvm_plan_summary& s) noexcept {
    if (s.runs == 0) return;
    const auto n = static_cast<double>(s.runs);
    s.extends_mean /= n;
    s.commands_mean /= n;
    s.times_full_mean /= n;
    s.queued_mean /= n;
    s.ended_at_mean /= n;
    s.metadata_extends_mean /= n;
    if (s.metadata_full_runs != 0) s.metadata_full_at_mean /= static_cast<double>(s.metadata_full_runs);
}

}  // namespace detail

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_LVM_PLAN_SUMMARY_HPP
