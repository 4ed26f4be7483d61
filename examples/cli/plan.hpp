// What `provpol plan` and `provpol recommend` share: a configuration under test and its simulation.
#ifndef PROVPOL_CLI_PLAN_HPP
#define PROVPOL_CLI_PLAN_HPP

#include "common/cli.hpp"
#include "common/preset_option.hpp"

#include <provpol/extend.hpp>
#include <provpol/latency.hpp>
#include <provpol/rate_aware.hpp>
#include <provpol/simulate.hpp>

#include <cstdint>
#include <string>

namespace provpol::cli {

/// One configuration under test: a static VDSM configuration, or the rate-aware policy over it as its floor.
struct plan_config {
    std::string label;
    vdsm_config config;
    bool rate_aware = false;
};

/// Runs one configuration at one rate, handing every run to `on_run(i, result)`, and summarises them.
template <class OnRun>
simulation_summary simulate_config(const plan_config& c, std::uint32_t budget_ms, const latency_model& latency,
                                   const workload& w, std::uint32_t runs, std::uint64_t seed, OnRun&& on_run) {
    run_accumulator acc;
    auto each = [&](std::uint32_t i, const run_result& r) {
        acc.add(r);
        on_run(i, r);
    };
    if (!c.rate_aware) {
        simulate_each(static_agent<vdsm_policy>(make_vdsm_policy(c.config)), latency, w, runs, seed, each);
    } else {
        const auto policy = make_rate_aware_policy(c.config, budget_ms);
        if (!policy) fail(policy.error(), "--budget");
        simulate_each(rate_aware_agent(*policy), latency, w, runs, seed, each);
    }
    return acc.summary();
}

/// The same, without looking at each run.
inline simulation_summary simulate_config(const plan_config& c, std::uint32_t budget_ms, const latency_model& latency,
                                          const workload& w, std::uint32_t runs, std::uint64_t seed) {
    return simulate_config(c, budget_ms, latency, w, runs, seed, [](std::uint32_t, const run_result&) {});
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_PLAN_HPP
