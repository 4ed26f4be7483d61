// What `provpol plan` and `provpol recommend` share: a configuration under test and its simulation.
#ifndef PROVPOL_CLI_PLAN_HPP
#define PROVPOL_CLI_PLAN_HPP

#include "common/cli.hpp"
#include "common/json.hpp"
#include "common/preset_option.hpp"

#include <provpol/domain.hpp>
#include <provpol/extend.hpp>
#include <provpol/flow/latency.hpp>
#include <provpol/simulate.hpp>
#include <provpol/simulate/either_agent.hpp>
#include <provpol/simulate/rate_aware.hpp>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
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

/// --write SIZE or --duration TIME, the one or the other (default --write 50GiB): what each writer writes per run.
/// A burst is a rate for a time ("1GB/s for 20min"): with --duration the write at rate r is r x TIME, rounded down
/// to whole bytes, one write per rate of a --rate list. Every write is 1B-1PiB; an error names the option given.
struct write_amount {
    bytes size{std::uint64_t{50} << 30};  ///< --write (or its default), when no --duration
    std::optional<seconds> duration;      ///< --duration
    std::string duration_text;            ///< --duration as given, for messages

    /// The write at rate r; a usage_error when it falls outside 1B-1PiB.
    bytes at(rate r) const {
        if (!duration) return size;
        const double b = std::floor(static_cast<double>(r.bytes_per_second()) * duration->count());
        if (b < 1.0 || b > static_cast<double>(std::uint64_t{1} << 50))
            throw usage_error("--duration " + duration_text + " at " + std::string(format_rate(r).view()) + " writes " +
                              decimal_text(b, 0) + " bytes: a write is 1B-1PiB");
        return bytes(static_cast<std::uint64_t>(b));
    }
    /// The option the write came from, for errors.
    const char* option() const { return duration ? "--duration" : "--write"; }
    /// For titles and messages: "50GiB written" or "20min of writing".
    std::string text() const {
        return duration ? duration_text + " of writing" : std::string(format_size(size).view()) + " written";
    }
};

/// The help of --duration, the same in every command that takes a write size.
inline constexpr const char* duration_help =
    "instead of --write: how long each writer writes at its rate, e.g. 20min, 90s or 500ms (1GB/s for 20min writes "
    "1.2TB); with a --rate list, each rate writes for TIME";

/// Reads --write or --duration (write_amount).
inline write_amount write_option(const args& a) {
    write_amount out;
    if (a.has("--write") && a.has("--duration"))
        throw usage_error("give --write or --duration, not both: a duration writes the rate for that time");
    if (const auto d = a.time("--duration", seconds(0.001), seconds(1e7))) {
        out.duration = *d;
        out.duration_text = args::printable(*a.value("--duration"));
        return out;
    }
    out.size = a.size("--write").value_or(out.size);
    if (out.size.count() == 0 || out.size.count() > (std::uint64_t{1} << 50))
        throw usage_error("--write must be in [1B, 1PiB], got " + std::string(format_size(out.size).view()));
    return out;
}

/// The --latency forms a storage domain (--hosts, capacity) takes: those with the mailbox's clocks.
inline constexpr const char* mailbox_latency_names =
    "vdsm-polling-2022, vdsm-mailbox-events, vdsm-immediate, vdsm-log:FILE or flow:FILE (a flow with a send and a "
    "reply poll)";

/// "1 writer", "2 writers": a count and its noun (regular plural), for prose people paste.
inline std::string count_text(std::uint64_t n, const char* noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

/// A rate in prose as the user typed it ("1GB/s", not "976562.5KiB/s") when `given` reads back to it, else
/// format_rate's.
inline std::string rate_text(rate r, const std::optional<std::string>& given) {
    if (given) {
        const auto g = parse_rate(*given, "--rate");
        if (g && g->bytes_per_second() == r.bytes_per_second()) return args::printable(*given);
    }
    return std::string(format_rate(r).view());
}

/// The --policy values of plan and capacity.
inline constexpr const char* policy_names = "static, rate-aware or rate-aware-adaptive";

/// The help of plan's and capacity's --policy and --preset.
inline constexpr const char* policy_help =
    "static (default: the preset as VDSM runs it), rate-aware (the preset is its floor) or rate-aware-adaptive "
    "(rate-aware, its budget growing with the extend latency it observes); repeat to compare";
inline constexpr const char* preset_help =
    "vdsm-2022 or vdsm-legacy; repeat to compare (default vdsm-2022; with --policy rate-aware, default vdsm-legacy)";

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

/// --policy values (repeatable; none: static) x presets (repeatable), policy by policy; a policy without presets
/// runs its default_preset.
inline std::vector<plan_config> policy_configs(std::vector<std::string> policies,
                                               const std::vector<std::pair<std::string, vdsm_config>>& presets) {
    if (policies.empty()) policies = {"static"};
    for (const std::string& p : policies) check_policy(p);
    std::vector<plan_config> out;
    for (const std::string& policy : policies) {
        if (presets.empty()) {
            const std::string preset = default_preset(policy);
            out.push_back(policy_config(policy, preset, vdsm_preset_option(preset)));
            continue;
        }
        for (const auto& [name, cfg] : presets) out.push_back(policy_config(policy, name, cfg));
    }
    return out;
}

/// The rate-aware budget for the latency's `quantile`, in whole milliseconds (at least 1): a usage error naming
/// --latency, in seconds, when it is beyond what a rate-aware policy accepts (max_latency_budget, one hour).
/// `what` says which quantile ("its longest latency", "its 0.99 quantile").
inline milliseconds latency_budget_option(const latency_model& latency, double quantile, const std::string& what) {
    const milliseconds ms = latency_budget(latency, quantile);
    if (ms > max_latency_budget)
        throw usage_error("--latency: " + what + ", " + decimal_text(in_seconds(ms)) +
                          " s, is beyond the longest latency a rate-aware agent plans for, " +
                          decimal_text(in_seconds(max_latency_budget)) + " s");
    return ms < milliseconds(1) ? milliseconds(1) : ms;
}

/// Calls f(agent) with configuration c's agent: the static VDSM policy, or the rate-aware one over it as its floor
/// (adaptive_rate_aware_agent with load_adaptation's defaults when c.adaptive).
template <class F>
decltype(auto) with_agent(const plan_config& c, milliseconds budget, F&& f) {
    if (!c.rate_aware) return f(static_agent<vdsm_policy>(make_vdsm_policy(c.config)));
    const auto policy = make_rate_aware_policy(c.config, budget);
    if (!policy) fail(policy.error(), "--budget");
    if (c.adaptive) return f(adaptive_rate_aware_agent(*policy, load_adaptation::make().value()));
    return f(rate_aware_agent(*policy));
}

/// Run i of one configuration at one rate (simulate.hpp's run i: any range of runs, on any thread).
inline run_result simulate_config_run(const plan_config& c, milliseconds budget, const latency_model& latency,
                                      const workload& w, std::uint64_t seed, std::uint32_t i) {
    return with_agent(c, budget, [&](const auto& agent) {
        run_result out;
        simulate_each(agent, latency, w, i, i + 1, seed, [&out](std::uint32_t, const run_result& r) { out = r; });
        return out;
    });
}

/// Runs one configuration at one rate, handing every run to `on_run(i, result)`, and summarises them.
template <class OnRun>
simulation_summary simulate_config(const plan_config& c, milliseconds budget, const latency_model& latency,
                                   const workload& w, std::uint32_t runs, std::uint64_t seed, OnRun&& on_run) {
    run_accumulator acc;
    auto each = [&](std::uint32_t i, const run_result& r) {
        acc.add(r);
        on_run(i, r);
    };
    with_agent(c, budget, [&](const auto& agent) { simulate_each(agent, latency, w, runs, seed, each); });
    return acc.summary();
}

/// The same, without looking at each run.
inline simulation_summary simulate_config(const plan_config& c, milliseconds budget, const latency_model& latency,
                                          const workload& w, std::uint32_t runs, std::uint64_t seed) {
    return simulate_config(c, budget, latency, w, runs, seed, [](std::uint32_t, const run_result&) {});
}

/// A configuration in a storage domain (`plan --hosts`): the writers' per-VM distribution, and the domain's
/// shared figures, each the mean over the domain runs.
struct domain_plan_result {
    simulation_summary vms;
    seconds latency_p50{};
    seconds latency_p99{};
    double spm_utilization = 0.0;
    double queue_p99 = 0.0;
};

/// How the drives of a `plan --hosts` domain write: the first `writers` (domain_config::is_writer) do as `writer`
/// says (a constant rate, bursts or a trace), writer i from i x `stagger` seconds on; the others idle.
struct domain_writing {
    drive_workload writer;
    std::uint32_t writers = 0;
    seconds stagger{};

    drive_workload of(const domain_config& cfg, std::uint32_t d) const noexcept {
        if (!cfg.is_writer(d, writers)) return drive_workload::idle(writer.base);
        drive_workload w = writer;
        w.start += static_cast<double>(cfg.writer_rank(d)) * stagger;
        return w;
    }
    /// `writers` drives writing `w` from the start, at once.
    static domain_writing constant(const workload& w, std::uint32_t writers) noexcept {
        return {drive_workload{w, seconds(0), seconds(0), seconds(0), true}, writers, seconds(0)};
    }
};

/// Domain run k of a series of `cfg` written as `wl` says; drive d gets agent_of(d). Drive d of domain k is run
/// k x drives + d of `plan` without --hosts: a domain of one drive gives plan's per-VM figures. Runs depend on k
/// alone: any of them, on any thread.
template <class AgentOf>
domain_result simulate_domain_run(AgentOf&& agent_of, const latency_model& latency, const domain_writing& wl,
                                  const domain_config& cfg, std::uint32_t k, std::uint64_t seed) {
    auto r = simulate_domain(
        cfg, latency, agent_of, [&](std::uint32_t d) noexcept { return wl.of(cfg, d); }, seed,
        std::uint64_t{k} * cfg.drives());
    if (!r) fail(r.error(), "--latency");
    return std::move(*r);
}

/// The same for a plan_config (static, or rate-aware over its floor): every drive runs it.
inline domain_result simulate_domain_config_run(const plan_config& c, milliseconds budget, const latency_model& latency,
                                                const domain_writing& wl, const domain_config& cfg, std::uint32_t k,
                                                std::uint64_t seed) {
    return with_agent(c, budget, [&](const auto& agent) {
        return simulate_domain_run([&agent](std::uint32_t) noexcept { return agent; }, latency, wl, cfg, k, seed);
    });
}

/// The same with `writers` drives writing `w` from the start (`provpol capacity`).
inline domain_result simulate_domain_config_run(const plan_config& c, milliseconds budget, const latency_model& latency,
                                                const workload& w, const domain_config& cfg, std::uint32_t writers,
                                                std::uint32_t k, std::uint64_t seed) {
    return simulate_domain_config_run(c, budget, latency, domain_writing::constant(w, writers), cfg, k, seed);
}

/// The agent type of plan_agent(): static, rate-aware or adaptive rate-aware.
using plan_agent_type =
    either_agent<static_agent<vdsm_policy>, either_agent<rate_aware_agent, adaptive_rate_aware_agent>>;

/// The agent a plan_config runs, as one type for a domain of mixed configurations (`--mix`).
inline plan_agent_type plan_agent(const plan_config& c, milliseconds budget) {
    using rate_aware_either = either_agent<rate_aware_agent, adaptive_rate_aware_agent>;
    return with_agent(c, budget, [](const auto& agent) -> plan_agent_type {
        using A = std::decay_t<decltype(agent)>;
        if constexpr (std::is_same<A, static_agent<vdsm_policy>>::value)
            return agent;
        else
            return rate_aware_either(agent);
    });
}

/// `plan --hosts ... --mix`, domain run k: the configurations' agents in one domain, drive d running
/// agents[mix_group(d)] (the writers take them in turn).
inline domain_result simulate_domain_mix_run(const std::vector<plan_agent_type>& agents, const latency_model& latency,
                                             const domain_writing& wl, const domain_config& cfg, std::uint32_t k,
                                             std::uint64_t seed) {
    return simulate_domain_run([&](std::uint32_t d) noexcept { return agents[cfg.writer_rank(d) % agents.size()]; },
                               latency, wl, cfg, k, seed);
}

/// How many domain runs of `cfg` to compute before adding them up (ordered_parallel's window): about a million
/// drives' results, at most 65536 domains, at least one per thread.
inline std::uint64_t domain_window(const domain_config& cfg, unsigned jobs) {
    const std::uint64_t by_drives = (std::uint64_t{1} << 20) / cfg.drives();
    const std::uint64_t w = by_drives < (std::uint64_t{1} << 16) ? by_drives : std::uint64_t{1} << 16;
    return w > jobs ? w : jobs;
}

/// Adds up `runs` domain runs, in run order (the order fixes every floating-point sum): the writers' runs, drive
/// by drive, into `groups` accumulators (a writer's group: writer_rank mod groups, as `--mix` assigns the
/// configurations), and the means of the domain's shared figures.
class domain_plan_accumulator {
public:
    domain_plan_accumulator(const domain_config& cfg, std::uint32_t writers, std::uint32_t runs, std::size_t groups = 1)
        : cfg_(cfg), writers_(writers), runs_(runs), acc_(groups) {}

    void add(const domain_result& r) {
        for (std::uint32_t d = 0; d < r.drives(); ++d)
            if (cfg_.is_writer(d, writers_)) acc_[cfg_.writer_rank(d) % acc_.size()].add(r.drive(d).run);
        const domain_summary& s = r.summary();
        out_.latency_p50 += s.latency_p50 / runs_;
        out_.latency_p99 += s.latency_p99 / runs_;
        out_.spm_utilization += s.spm_utilization / runs_;
        out_.queue_p99 += static_cast<double>(s.queue_p99) / runs_;
    }
    /// Group g's writers' runs, as added so far.
    const run_accumulator& vms(std::size_t g = 0) const { return acc_[g]; }
    /// Group g's per-VM figures and the domain's shared ones.
    domain_plan_result result(std::size_t g = 0) const {
        domain_plan_result out = out_;
        out.vms = acc_[g].summary();
        return out;
    }

private:
    domain_config cfg_;
    std::uint32_t writers_ = 0;
    std::uint32_t runs_ = 1;
    std::vector<run_accumulator> acc_;
    domain_plan_result out_;
};

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_PLAN_HPP
