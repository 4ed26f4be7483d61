// provpol-agent's report: what the simulator predicts for the run's configuration (the run replayed with its seed,
// and the distribution over other seeds), printed next to what the run measured, and written as CSV.
#ifndef PROVPOL_AGENT_REPORT_HPP
#define PROVPOL_AGENT_REPORT_HPP

#include "driver.hpp"
#include "options.hpp"
#include "sim_record.hpp"

#include <provpol/flow/latency.hpp>
#include <provpol/simulate.hpp>

#include <vector>

namespace provpol::agent {

/// The simulator's runs: the one paired with the real run (same seed), and --runs others.
struct prediction {
    run_result paired;
    std::vector<simulated_extend> paired_extends;  ///< the paired run's extends, in request order
    std::vector<double> pauses, pause_seconds, extends, final_physical;
    /// The q quantile of v (the nearest rank).
    static double quantile(std::vector<double> v, double q);
    static double mean(const std::vector<double>& v);
};

/// Simulates the run's configuration (defined in report.cpp for static_agent<vdsm_policy> and rate_aware_agent).
template <class Agent>
prediction predict(const Agent& agent, const latency_model& latency, const options& o);

/// Prints the measured run next to the prediction, and writes both to --summary-csv (and the paired run's
/// extends to --extends-csv).
void summarize(const options& o, const measured& m, const prediction& p);

}  // namespace provpol::agent

#endif  // PROVPOL_AGENT_REPORT_HPP
