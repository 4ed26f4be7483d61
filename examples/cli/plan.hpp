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
#include <utility>

namespace provpol::cli {

/// One configuration under test: a static VDSM configuration, or the rate-aware policy over it as its floor.
struct plan_config {
    std::string label;
    vdsm_config config;
    bool rate_aware = false;
};

/// Calls f(agent) with configuration c's agent: the static VDSM policy, or the rate-aware one over it as its floor.
template <class F>
decltype(auto) with_agent(const plan_config& c, std::uint32_t budget_ms, F&& f) {
    if (!c.rate_aware) return f(static_agent<vdsm_policy>(make_vdsm_policy(c.config)));
    const auto policy = make_rate_aware_policy(c.config, budget_ms);
    if (!policy) fail(policy.error(), "--budget");
    return f(rate_aware_agent(*policy));
}

/// Run i of one configuration at one rate (simulate.hpp's run i: any range of runs, on any thread).
inline run_result simulate_config_run(const plan_config& c, std::uint32_t budget_ms, const latency_model& latency,
                                      const workload& w, std::uint64_t seed, std::uint32_t i) {
    return with_agent(c, budget_ms, [&](const auto& agent) {
        run_result out;
        simulate_each(agent, latency, w, i, i + 1, seed, [&out](std::uint32_t, const run_result& r) { out = r; });
        return out;
    });
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
    with_agent(c, budget_ms, [&](const auto& agent) { simulate_each(agent, latency, w, runs, seed, each); });
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

/// Domain run k of a series of `cfg` in which `writers` drives write `w` and the others idle; each drive gets a
/// copy of `agent`. Drive d of domain k is run k x drives + d of `plan` without --hosts: a domain of one drive
/// gives plan's per-VM figures. Runs depend on k alone: any of them, on any thread.
template <class Agent>
domain_result simulate_domain_run(const Agent& agent, const latency_model& latency, const workload& w,
                                  const domain_config& cfg, std::uint32_t writers, std::uint32_t k,
                                  std::uint64_t seed) {
    const drive_workload writing{w, 0.0, 0.0, 0.0, true};
    const drive_workload idle = drive_workload::idle(w);
    auto r = simulate_domain(
        cfg, latency, [&agent](std::uint32_t) noexcept { return agent; },
        [&](std::uint32_t d) noexcept { return cfg.is_writer(d, writers) ? writing : idle; }, seed,
        std::uint64_t{k} * cfg.drives());
    if (!r) fail(r.error(), "--latency");
    return std::move(*r);
}

/// The same for a plan_config (static, or rate-aware over its floor).
inline domain_result simulate_domain_config_run(const plan_config& c, std::uint32_t budget_ms,
                                                const latency_model& latency, const workload& w,
                                                const domain_config& cfg, std::uint32_t writers, std::uint32_t k,
                                                std::uint64_t seed) {
    return with_agent(c, budget_ms,
                      [&](const auto& agent) { return simulate_domain_run(agent, latency, w, cfg, writers, k, seed); });
}

/// How many domain runs of `cfg` to compute before adding them up (ordered_parallel's window): about a million
/// drives' results, at most 65536 domains, at least one per thread.
inline std::uint64_t domain_window(const domain_config& cfg, unsigned jobs) {
    const std::uint64_t by_drives = (std::uint64_t{1} << 20) / cfg.drives();
    const std::uint64_t w = by_drives < (std::uint64_t{1} << 16) ? by_drives : std::uint64_t{1} << 16;
    return w > jobs ? w : jobs;
}

/// Adds up `runs` domain runs, in run order (the order fixes every floating-point sum): the writers' runs, drive
/// by drive, and the means of the domain's figures.
class domain_plan_accumulator {
public:
    domain_plan_accumulator(const domain_config& cfg, std::uint32_t writers, std::uint32_t runs)
        : cfg_(cfg), writers_(writers), runs_(runs) {}

    void add(const domain_result& r) {
        for (std::uint32_t d = 0; d < r.drives(); ++d)
            if (cfg_.is_writer(d, writers_)) acc_.add(r.drive(d).run);
        const domain_summary& s = r.summary();
        out_.latency_p50 += s.latency_p50 / runs_;
        out_.latency_p99 += s.latency_p99 / runs_;
        out_.spm_utilization += s.spm_utilization / runs_;
        out_.queue_p99 += static_cast<double>(s.queue_p99) / runs_;
    }
    /// The writers' runs, as added so far.
    const run_accumulator& vms() const { return acc_; }
    domain_plan_result result() const {
        domain_plan_result out = out_;
        out.vms = acc_.summary();
        return out;
    }

private:
    domain_config cfg_;
    std::uint32_t writers_ = 0;
    std::uint32_t runs_ = 1;
    run_accumulator acc_;
    domain_plan_result out_;
};

/// Runs `runs` domains of `cfg` (simulate_domain_run for k = 0 .. runs - 1, one after the other) and adds them up.
template <class Agent>
domain_plan_result simulate_domain_runs(const Agent& agent, const latency_model& latency, const workload& w,
                                        const domain_config& cfg, std::uint32_t writers, std::uint32_t runs,
                                        std::uint64_t seed) {
    domain_plan_accumulator acc(cfg, writers, runs);
    for (std::uint32_t k = 0; k < runs; ++k) acc.add(simulate_domain_run(agent, latency, w, cfg, writers, k, seed));
    return acc.result();
}

/// The same for a plan_config (static, or rate-aware over its floor).
inline domain_plan_result simulate_domain_config(const plan_config& c, std::uint32_t budget_ms,
                                                 const latency_model& latency, const workload& w,
                                                 const domain_config& cfg, std::uint32_t writers, std::uint32_t runs,
                                                 std::uint64_t seed) {
    return with_agent(c, budget_ms, [&](const auto& agent) {
        return simulate_domain_runs(agent, latency, w, cfg, writers, runs, seed);
    });
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_PLAN_HPP
