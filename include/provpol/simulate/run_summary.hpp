// provpol/simulate/run_summary.hpp - many runs summarized: the means per run, the share of extends that paused, and
// the distribution of pauses over runs (VMs), accumulated run by run without allocating.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_RUN_SUMMARY_HPP
#define PROVPOL_SIMULATE_RUN_SUMMARY_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../detail/math.hpp"
#include "../time.hpp"
#include "run_result.hpp"

#include <cstdint>

namespace provpol {

/// Many runs' outcome: means per run, the share of extends that paused, and the distribution over runs (VMs).
struct simulation_summary {
    std::uint32_t runs = 0;
    double extends = 0.0;                ///< mean extends per run
    double resent = 0.0;                 ///< mean re-sent requests per run that went through (run_result::resent)
    double pauses = 0.0;                 ///< mean pauses per run
    double pause_probability = 0.0;      ///< pauses / extends over all runs (BZ#2051997's "pauses" of "extends")
    double runs_with_pause = 0.0;        ///< the share of runs that paused at least once
    seconds pause_seconds = seconds(0);  ///< mean total pause time per run
    double max_pauses = 0.0;             ///< the most pauses in one run
    double pauses_p50 = 0.0;             ///< per VM: the median of pauses per run
    double pauses_p90 = 0.0;             ///< per VM: 90% of runs paused at most this many times
    double pauses_p99 = 0.0;             ///< per VM: 99% of runs paused at most this many times
    double runs_mostly_paused = 0.0;     ///< the share of runs in which more than half of the extends paused
    double unwritten = 0.0;              ///< mean bytes allocated but not written at the end
    seconds duration = seconds(0);       ///< mean time to write everything
    bytes initial_size;                  ///< the new disk's LV size
    std::uint32_t truncated_runs = 0;    ///< runs stopped by the event limit
};

/// Accumulates runs into a simulation_summary, including the distribution of pauses over runs (over VMs): a
/// pause risk is a distribution over VMs, since the flow's clocks keep their phase for the life of a VM. The
/// pause-count quantiles are exact up to pause_histogram_size - 1 pauses per run (above, a run counts in the last
/// bin and quantiles_exact() says so). No allocation.
class run_accumulator {
public:
    static constexpr std::uint32_t pause_histogram_size = 1024;

    void add(const run_result& r) noexcept {
        ++runs_;
        extends_ += r.extends;
        resent_ += r.resent;
        pauses_ += r.pauses;
        paused_runs_ += r.pauses > 0 ? 1.0 : 0.0;
        // "mostly paused": more than half of the run's extends paused the guest
        mostly_paused_ += 2.0 * r.pauses > static_cast<double>(r.extends) && r.pauses > 0 ? 1.0 : 0.0;
        pause_seconds_ += r.pause_seconds.count();
        unwritten_ += static_cast<double>(r.unwritten.count());
        duration_ += r.duration.count();
        if (r.pauses > max_pauses_) max_pauses_ = r.pauses;
        truncated_ += r.truncated ? 1 : 0;
        initial_size_ = r.initial_size;
        ++histogram_[r.pauses < pause_histogram_size ? r.pauses : pause_histogram_size - 1];
    }

    /// The smallest pause count k such that a share of at least q of the runs paused at most k times.
    PROVPOL_NODISCARD std::uint32_t pauses_quantile(double q) const noexcept {
        if (runs_ == 0) return 0;
        // ceil(q x runs) whole runs (the product's last-bit noise, as in 0.29 x 100 = 28.999999999999996, is not
        // a run).
        const double need = detail::ceil(q * static_cast<double>(runs_) - 1e-9);
        double seen = 0.0;
        for (std::uint32_t k = 0; k < pause_histogram_size; ++k) {
            seen += histogram_[k];
            if (seen >= need && seen > 0.0) return k == pause_histogram_size - 1 ? max_pauses_ : k;
        }
        return max_pauses_;
    }
    /// The share of runs that paused at most `n` times.
    PROVPOL_NODISCARD double share_with_at_most(std::uint32_t n) const noexcept {
        if (runs_ == 0) return 1.0;
        double seen = 0.0;
        for (std::uint32_t k = 0; k <= n && k < pause_histogram_size; ++k) seen += histogram_[k];
        return seen / static_cast<double>(runs_);
    }
    /// Whether every run paused fewer than pause_histogram_size - 1 times (the quantiles are then exact).
    PROVPOL_NODISCARD bool quantiles_exact() const noexcept { return max_pauses_ < pause_histogram_size - 1; }

    PROVPOL_NODISCARD simulation_summary summary() const noexcept {
        simulation_summary s;
        s.runs = runs_;
        s.max_pauses = max_pauses_;
        s.truncated_runs = truncated_;
        s.initial_size = initial_size_;
        if (runs_ > 0) {
            const double n = runs_;
            s.extends = extends_ / n;
            s.resent = resent_ / n;
            s.pauses = pauses_ / n;
            s.pause_probability = extends_ > 0.0 ? pauses_ / extends_ : 0.0;
            s.runs_with_pause = paused_runs_ / n;
            s.runs_mostly_paused = mostly_paused_ / n;
            s.pause_seconds = seconds(pause_seconds_ / n);
            s.unwritten = unwritten_ / n;
            s.duration = seconds(duration_ / n);
            s.pauses_p50 = pauses_quantile(0.5);
            s.pauses_p90 = pauses_quantile(0.9);
            s.pauses_p99 = pauses_quantile(0.99);
        }
        return s;
    }

private:
    std::uint32_t runs_ = 0;
    double extends_ = 0.0, resent_ = 0.0, pauses_ = 0.0, paused_runs_ = 0.0, mostly_paused_ = 0.0, pause_seconds_ = 0.0;
    double unwritten_ = 0.0, duration_ = 0.0;
    std::uint32_t max_pauses_ = 0;
    std::uint32_t truncated_ = 0;
    bytes initial_size_;
    std::uint32_t histogram_[pause_histogram_size] = {};
};

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_RUN_SUMMARY_HPP
