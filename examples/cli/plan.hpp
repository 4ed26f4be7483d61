// What `provpol plan` and `provpol recommend` share: a configuration under test and its simulation.
#ifndef PROVPOL_CLI_PLAN_HPP
#define PROVPOL_CLI_PLAN_HPP

#include "common/cli.hpp"
#include "common/preset_option.hpp"

#include <provpol/domain.hpp>
#include <provpol/extend.hpp>
#include <provpol/latency.hpp>
#include <provpol/rate_aware.hpp>
#include <provpol/simulate.hpp>

#include <cstdint>
#include <string>

namespace provpol::cli {

/// One configuration under test: a static VDSM configuration, or the rate-aware policy over it as its floor
/// (adaptive: adaptive_rate_aware_agent, its budget following the latency it observes, load_adaptation's defaults).
struct plan_config {
    std::string label;
    vdsm_config config;
    bool rate_aware = false;
    bool adaptive = false;
};

/// The --policy values of plan and capacity.
inline constexpr const char* policy_names = "static, rate-aware or rate-aware-adaptive";

/// Throws usage_error unless `policy` is one of policy_names.
inline void check_policy(const std::string& policy) {
    if (policy != "static" && policy != "rate-aware" && policy != "rate-aware-adaptive")
        throw usage_error("--policy: unknown value '" + args::printable(policy) + "': expected " + policy_names);
}

/// A --policy value and a preset as a configuration: the label, and the adaptation's defaults for
/// rate-aware-adaptive. Throws usage_error for an unknown policy.
inline plan_config policy_config(const std::string& policy, const std::string& preset, const vdsm_config& cfg) {
    check_policy(policy);
    if (policy == "static") return {preset, cfg, false};
    if (policy == "rate-aware") return {"rate-aware/" + preset, cfg, true};
    return {"rate-aware-adaptive/" + preset, cfg, true, true};
}

/// The preset a --policy runs when none is given: vdsm-2022 for the static policy and for rate-aware-adaptive (a
/// boot storm: every new disk's first extend queues behind the others', and 2.5 GiB lasts longer than 1 GiB),
/// vdsm-legacy for rate-aware.
inline std::string default_preset(const std::string& policy) {
    return policy == "rate-aware" ? "vdsm-legacy" : "vdsm-2022";
}

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
        if (c.adaptive)
            simulate_each(adaptive_rate_aware_agent(*policy, load_adaptation::make().value()), latency, w, runs, seed,
                          each);
        else
            simulate_each(rate_aware_agent(*policy), latency, w, runs, seed, each);
    }
    return acc.summary();
}

/// The same, without looking at each run.
inline simulation_summary simulate_config(const plan_config& c, std::uint32_t budget_ms, const latency_model& latency,
                                          const workload& w, std::uint32_t runs, std::uint64_t seed) {
    return simulate_config(c, budget_ms, latency, w, runs, seed, [](std::uint32_t, const run_result&) {});
}

/// A configuration in a storage domain (`plan --hosts`): the writers' per-VM distribution, and the domain's
/// shared figures, each the mean over the domain runs.
struct domain_plan_result {
    simulation_summary vms;
    double latency_p50 = 0.0;
    double latency_p99 = 0.0;
    double spm_utilization = 0.0;
    double queue_p99 = 0.0;
};

/// Runs `runs` domains of `cfg` in which `writers` drives write `w` and the others idle; each drive gets a copy of
/// `agent`. Drive d of domain k is run k x drives + d of `plan` without --hosts: a domain of one drive gives
/// plan's per-VM figures.
template <class Agent>
domain_plan_result simulate_domain_runs(const Agent& agent, const latency_model& latency, const workload& w,
                                        const domain_config& cfg, std::uint32_t writers, std::uint32_t runs,
                                        std::uint64_t seed) {
    run_accumulator acc;
    domain_plan_result out;
    const drive_workload writing{w, 0.0, 0.0, 0.0, true};
    const drive_workload idle = drive_workload::idle(w);
    for (std::uint32_t k = 0; k < runs; ++k) {
        const auto r = simulate_domain(
            cfg, latency, [&agent](std::uint32_t) noexcept { return agent; },
            [&](std::uint32_t d) noexcept { return cfg.is_writer(d, writers) ? writing : idle; }, seed,
            std::uint64_t{k} * cfg.drives());
        if (!r) fail(r.error(), "--latency");
        for (std::uint32_t d = 0; d < r->drives(); ++d)
            if (cfg.is_writer(d, writers)) acc.add(r->drive(d).run);
        const domain_summary& s = r->summary();
        out.latency_p50 += s.latency_p50 / runs;
        out.latency_p99 += s.latency_p99 / runs;
        out.spm_utilization += s.spm_utilization / runs;
        out.queue_p99 += static_cast<double>(s.queue_p99) / runs;
    }
    out.vms = acc.summary();
    return out;
}

/// The same for a plan_config (static, or rate-aware over its floor).
inline domain_plan_result simulate_domain_config(const plan_config& c, std::uint32_t budget_ms,
                                                 const latency_model& latency, const workload& w,
                                                 const domain_config& cfg, std::uint32_t writers, std::uint32_t runs,
                                                 std::uint64_t seed) {
    if (!c.rate_aware)
        return simulate_domain_runs(static_agent<vdsm_policy>(make_vdsm_policy(c.config)), latency, w, cfg, writers,
                                    runs, seed);
    const auto policy = make_rate_aware_policy(c.config, budget_ms);
    if (!policy) fail(policy.error(), "--budget");
    if (c.adaptive)
        return simulate_domain_runs(adaptive_rate_aware_agent(*policy, load_adaptation::make().value()), latency, w,
                                    cfg, writers, runs, seed);
    return simulate_domain_runs(rate_aware_agent(*policy), latency, w, cfg, writers, runs, seed);
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_PLAN_HPP
