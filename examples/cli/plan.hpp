// What `provpol plan` and `provpol recommend` share: a configuration under test and its simulation.
#ifndef PROVPOL_CLI_PLAN_HPP
#define PROVPOL_CLI_PLAN_HPP

#include "common/cli.hpp"
#include "common/preset_option.hpp"

#include <provpol/domain.hpp>
#include <provpol/either_agent.hpp>
#include <provpol/extend.hpp>
#include <provpol/latency.hpp>
#include <provpol/rate_aware.hpp>
#include <provpol/simulate.hpp>

#include <cstdint>
#include <string>
#include <vector>

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

/// How the drives of a `plan --hosts` domain write: the first `writers` (domain_config::is_writer) do as `writer`
/// says (a constant rate, bursts or a trace), writer i from i x `stagger` seconds on; the others idle.
struct domain_writing {
    drive_workload writer;
    std::uint32_t writers = 0;
    double stagger = 0.0;

    drive_workload of(const domain_config& cfg, std::uint32_t d) const noexcept {
        if (!cfg.is_writer(d, writers)) return drive_workload::idle(writer.base);
        drive_workload w = writer;
        w.start += static_cast<double>(cfg.writer_rank(d)) * stagger;
        return w;
    }
};

/// Runs `runs` domains of `cfg` written as `wl` says; drive d gets agent_of(d). Drive d of domain k is run
/// k x drives + d of `plan` without --hosts: a domain of one drive gives plan's per-VM figures. Each writer's run
/// goes to the accumulator accs[group(d)].
template <class AgentOf, class Group>
domain_plan_result simulate_domain_runs(AgentOf&& agent_of, const latency_model& latency, const domain_writing& wl,
                                        const domain_config& cfg, std::uint32_t runs, std::uint64_t seed,
                                        std::vector<run_accumulator>& accs, Group&& group) {
    domain_plan_result out;
    for (std::uint32_t k = 0; k < runs; ++k) {
        const auto r = simulate_domain(
            cfg, latency, agent_of, [&](std::uint32_t d) noexcept { return wl.of(cfg, d); }, seed,
            std::uint64_t{k} * cfg.drives());
        if (!r) fail(r.error(), "--latency");
        for (std::uint32_t d = 0; d < r->drives(); ++d)
            if (cfg.is_writer(d, wl.writers)) accs[group(d)].add(r->drive(d).run);
        const domain_summary& s = r->summary();
        out.latency_p50 += s.latency_p50 / runs;
        out.latency_p99 += s.latency_p99 / runs;
        out.spm_utilization += s.spm_utilization / runs;
        out.queue_p99 += static_cast<double>(s.queue_p99) / runs;
    }
    return out;
}

/// The agent type of plan_agent(): static, rate-aware or adaptive rate-aware.
using plan_agent_type =
    either_agent<static_agent<vdsm_policy>, either_agent<rate_aware_agent, adaptive_rate_aware_agent>>;

/// The agent a plan_config runs: static, or rate-aware over its floor (adapting to the load when c.adaptive).
inline plan_agent_type plan_agent(const plan_config& c, std::uint32_t budget_ms) {
    using rate_aware_either = either_agent<rate_aware_agent, adaptive_rate_aware_agent>;
    if (!c.rate_aware) return static_agent<vdsm_policy>(make_vdsm_policy(c.config));
    const auto policy = make_rate_aware_policy(c.config, budget_ms);
    if (!policy) fail(policy.error(), "--budget");
    if (c.adaptive) return rate_aware_either(adaptive_rate_aware_agent(*policy, load_adaptation::make().value()));
    return rate_aware_either(rate_aware_agent(*policy));
}

/// The same for a plan_config (static, or rate-aware over its floor): every drive runs it.
inline domain_plan_result simulate_domain_config(const plan_config& c, std::uint32_t budget_ms,
                                                 const latency_model& latency, const domain_writing& wl,
                                                 const domain_config& cfg, std::uint32_t runs, std::uint64_t seed) {
    std::vector<run_accumulator> accs(1);
    const auto group = [](std::uint32_t) noexcept { return std::size_t{0}; };
    domain_plan_result out;
    const auto run = [&](const auto& agent) {
        out = simulate_domain_runs([&agent](std::uint32_t) noexcept { return agent; }, latency, wl, cfg, runs, seed,
                                   accs, group);
    };
    const plan_agent_type agent = plan_agent(c, budget_ms);
    if (agent.index() == 0)
        run(agent.first());
    else if (agent.second().index() == 0)
        run(agent.second().first());
    else
        run(agent.second().second());
    out.vms = accs[0].summary();
    return out;
}

/// `plan --hosts ... --mix`: the configurations in one domain, drive d running configuration writer_rank(d) mod
/// C (so the writers take them in turn); one result per configuration, its per-VM figures over its own writers and
/// the domain's shared figures.
inline std::vector<domain_plan_result> simulate_domain_mix(const std::vector<plan_config>& cs, std::uint32_t budget_ms,
                                                           const latency_model& latency, const domain_writing& wl,
                                                           const domain_config& cfg, std::uint32_t runs,
                                                           std::uint64_t seed) {
    std::vector<plan_agent_type> agents;
    for (const plan_config& c : cs) agents.push_back(plan_agent(c, budget_ms));
    std::vector<run_accumulator> accs(cs.size());
    const auto group = [&](std::uint32_t d) noexcept {
        return static_cast<std::size_t>(cfg.writer_rank(d) % cs.size());
    };
    const domain_plan_result shared = simulate_domain_runs([&](std::uint32_t d) noexcept { return agents[group(d)]; },
                                                           latency, wl, cfg, runs, seed, accs, group);
    std::vector<domain_plan_result> out(cs.size(), shared);
    for (std::size_t i = 0; i < cs.size(); ++i) out[i].vms = accs[i].summary();
    return out;
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_PLAN_HPP
