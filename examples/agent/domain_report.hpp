// provpol-agent's domain report: simulate_domain for the run's domain and seed (every drive's extends, recorded as
// the simulator makes them), each drive alone in the same domain, and the summary that prints them next to what
// the real stack measured, and writes them as CSV (--summary-csv, --extends-csv).
#ifndef PROVPOL_AGENT_DOMAIN_REPORT_HPP
#define PROVPOL_AGENT_DOMAIN_REPORT_HPP

#include "domain_driver.hpp"
#include "options.hpp"
#include "sim_record.hpp"

#include <provpol/domain.hpp>
#include <provpol/flow/latency.hpp>

#include <cstdint>
#include <vector>

namespace provpol::agent {

/// simulate_domain's answer for a drive: its run_result and its extends.
struct simulated_drive {
    run_result run{};
    std::vector<simulated_extend> extends;
};

/// The domain as simulate_domain runs it with the run's seed and workloads, and each drive alone in it (the
/// others idle: the extends it would see without the others' lvextends).
struct domain_prediction {
    std::vector<simulated_drive> paired, alone;
    domain_summary summary{};
};

/// Simulates the run's domain (defined in domain_report.cpp for the agents provpol-agent runs).
template <class Agent>
domain_prediction predict_domain(const Agent& agent, const latency_model& latency, const options& o);

/// Prints the measured domain next to the prediction, and writes --summary-csv and --extends-csv.
void summarize_domain(const options& o, const domain_measured& m, const domain_prediction& p);

}  // namespace provpol::agent

#endif  // PROVPOL_AGENT_DOMAIN_REPORT_HPP
