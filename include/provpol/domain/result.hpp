// provpol/domain/result.hpp - what a storage domain run (domain/simulator.hpp) reports: per drive simulate_run's
// figures, and for the domain the extends, the extend latency under load, the SPM's queue and its utilization.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_DOMAIN_RESULT_HPP
#define PROVPOL_DOMAIN_RESULT_HPP

#include "../config.hpp"
#include "../simulate/run.hpp"
#include "../time.hpp"

#include <cstdint>
#include <vector>

namespace provpol {

/// One drive's outcome: simulate_run's, its host, and whether it wrote everything within the duration.
struct domain_drive_result {
    run_result run{};
    std::uint32_t host = 0;
    bool finished = false;
};

/// The domain's shared figures.
struct domain_summary {
    std::uint64_t extends = 0;          ///< extends requested by all drives
    std::uint64_t resent = 0;           ///< re-sent requests that went through (run_result::resent)
    std::uint64_t served = 0;           ///< requests the SPM took (the others were still on their way at the end)
    seconds elapsed = seconds(0);       ///< simulated time: the duration, or until everything was written
    seconds spm_busy = seconds(0);      ///< how long the VG lock was held, within the elapsed time
    double spm_utilization = 0.0;       ///< spm_busy / elapsed
    seconds latency_mean = seconds(0);  ///< extend latency over the served requests: from the threshold event (or the
                                        ///< pause) to the grown LV seen, the span `provpol latency` reports
    seconds latency_p50 = seconds(0);
    seconds latency_p99 = seconds(0);
    seconds latency_max = seconds(0);
    std::uint64_t queue_p99 = 0;  ///< requests waiting for the VG lock or a worker just after each arrival
                                  ///< (the arriving one included when it waits), 99th percentile over arrivals
    std::uint64_t queue_max = 0;
    double worker_wait_share = 0.0;  ///< the share of requests that found every worker taken
    std::uint64_t stopped = 0;  ///< ended early by simulate_domain's domain_stop: the drives that had paused past its
                                ///< count then (0: the run went to its end); the figures cover the run up to there
};

class domain_result;
namespace detail {
struct domain_result_access;
}  // namespace detail

/// A domain run's outcome: per drive, and for the domain.
class domain_result {
public:
    PROVPOL_NODISCARD std::uint32_t drives() const noexcept { return static_cast<std::uint32_t>(drives_.size()); }
    PROVPOL_NODISCARD const domain_drive_result& drive(std::uint32_t i) const noexcept { return drives_[i]; }
    PROVPOL_NODISCARD const domain_summary& summary() const noexcept { return summary_; }

private:
    friend struct detail::domain_result_access;
    std::vector<domain_drive_result> drives_;
    domain_summary summary_;
};

namespace detail {
/// simulate_domain's access to the result it fills.
struct domain_result_access {
    static std::vector<domain_drive_result>& drives(domain_result& r) noexcept { return r.drives_; }
    static domain_summary& summary(domain_result& r) noexcept { return r.summary_; }
};
}  // namespace detail

}  // namespace provpol

#endif  // PROVPOL_DOMAIN_RESULT_HPP
