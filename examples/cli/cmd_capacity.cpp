// provpol capacity: the largest number of concurrent writers a storage domain holds under a per-VM pause target
// (domain.hpp's max_writers), one row per latency profile.
#include "common/cli.hpp"
#include "common/latency_option.hpp"
#include "common/table.hpp"
#include "plan.hpp"
#include "work.hpp"

#include <provpol/domain.hpp>
#include <provpol/extend.hpp>
#include <provpol/latency.hpp>
#include <provpol/rate_aware.hpp>
#include <provpol/simulate.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace provpol::cli {

namespace {

template <class Agent>
max_writers_result search(const Agent& agent, const latency_model& latency, const workload& w, const domain_config& cfg,
                          per_vm_target target, std::uint32_t runs, std::uint64_t seed) {
    const auto r = max_writers(
        cfg, latency, [&agent](std::uint32_t) noexcept { return agent; }, w, target, runs, seed);
    if (!r) fail(r.error(), "--latency");
    return *r;
}

}  // namespace

int run_capacity(int argc, char** argv) {
    const args a(
        "capacity",
        "provpol capacity --rate RATE --max-pauses-per-run N --hosts H --drives-per-host D [--vm-quantile Q]\n"
        "                        [--policy static|rate-aware|rate-aware-adaptive] [--preset NAME] [--latency LIST]\n"
        "                        [--write SIZE] [--runs N] [--seed N] [--max-events N] [--format text|csv|json]",
        {{"--rate", "RATE", "each writer's write rate, e.g. 500MiB/s"},
         {"--max-pauses-per-run", "N", "per-VM target: at most this many pauses in --write, 0-1000000"},
         {"--vm-quantile", "Q", "the share of writing VMs that must meet --max-pauses-per-run, (0, 1] (default 0.99)"},
         {"--hosts", "H", "the storage domain's hosts, 1-10000, sharing one SPM and its VG lock"},
         {"--drives-per-host", "D",
          "drives per host, 1-10000 (at most 1000000 drives); the writers are spread over "
          "the hosts in turn, the others idle"},
         {"--policy", "NAME",
          "static (default: the preset as VDSM runs it), rate-aware (the preset is its floor) or "
          "rate-aware-adaptive (rate-aware, its budget growing with the extend latency it observes)"},
         {"--preset", "NAME",
          "vdsm-2022 or vdsm-legacy (default vdsm-2022; with --policy rate-aware, default vdsm-legacy)"},
         {"--latency", "LIST",
          "comma-separated latency profiles with the mailbox's clocks, one row each: vdsm-polling-2022, "
          "vdsm-mailbox-events, vdsm-immediate or vdsm-log:FILE (default vdsm-polling-2022)",
          true},
         {"--write", "SIZE", "how much each writer writes (default 50GiB)"},
         {"--runs", "N", "domain runs per writer count, 1-100000 (default 1)"},
         {"--seed", "N", "the random seed (default 1)"},
         {"--max-events", "N", "refuse a search that would replay more simulated events (default 1000000000)"},
         {"--format", "FORMAT", "text (default), csv or json"}},
        argc, argv);
    const format f = a.output_format({format::text, format::csv, format::json});
    const std::string policy = a.value("--policy").value_or("static");
    check_policy(policy);
    const std::string preset = a.value("--preset").value_or(default_preset(policy));
    const plan_config config = policy_config(policy, preset, vdsm_preset_option(preset));
    const bool rate_aware = config.rate_aware;

    const auto r = a.rate("--rate");
    if (!r) throw usage_error("--rate is required (e.g. --rate 500MiB/s)");
    if (r->bytes_per_second() == 0) throw usage_error("--rate: a rate of 0 writes nothing");
    if (!a.has("--max-pauses-per-run")) throw usage_error("--max-pauses-per-run is required (e.g. 1)");
    const auto max_pauses = a.count("--max-pauses-per-run", 0, 1000000);
    const auto target = per_vm_target::make(static_cast<std::uint32_t>(*max_pauses),
                                            a.decimal("--vm-quantile", 0.0, 1.0).value_or(0.99));
    if (!target) fail(target.error(), "--vm-quantile");
    if (!a.has("--hosts") || !a.has("--drives-per-host"))
        throw usage_error("--hosts and --drives-per-host are required (the storage domain's shape)");
    const auto d = domain_config::make(static_cast<std::uint32_t>(*a.count("--hosts", 1, 10000)),
                                       static_cast<std::uint32_t>(*a.count("--drives-per-host", 1, 10000)), 1e8);
    if (!d) fail(d.error(), "--drives-per-host");
    const domain_config dcfg = *d;

    std::vector<std::string> specs = a.values("--latency");
    if (a.has("--latency") && specs.empty()) throw usage_error("--latency: needs at least one profile");
    if (specs.empty()) specs = {"vdsm-polling-2022"};
    if (specs.size() > 100) throw usage_error("--latency: at most 100 profiles");
    std::vector<latency_model> latencies;
    for (const std::string& s : specs) {
        latencies.push_back(latency_spec(s, "--latency", "capacity"));
        if (!latencies.back().is_flow())
            throw usage_error("--latency: " + args::printable(s) +
                              " has no mailbox clocks: a domain needs vdsm-polling-2022, vdsm-mailbox-events, "
                              "vdsm-immediate or vdsm-log:FILE");
    }

    const bytes write = a.size("--write").value_or(bytes(std::uint64_t{50} << 30));
    if (write.count() == 0) throw usage_error("--write must be at least 1 byte");
    if (write.count() > (std::uint64_t{1} << 50))
        throw usage_error("--write must be at most 1PiB, got " + std::string(format_size(write).view()));
    const auto w = workload::make(write, *r, saturating_mul(write, 2));
    if (!w) fail(w.error(), "--write");
    const auto runs = static_cast<std::uint32_t>(a.count("--runs", 1, 100000).value_or(1));
    const std::uint64_t seed = a.count("--seed", 0, ~std::uint64_t{0}).value_or(1);

    const std::uint64_t max_events = a.count("--max-events", 1, ~std::uint64_t{0}).value_or(default_max_events);
    {  // bounded work: every check runs `runs` domains of every drive; the search makes at most 2 log2(drives) + 2
        const double checks = 2.0 * std::ceil(std::log2(static_cast<double>(dcfg.drives()) + 1.0)) + 2.0;
        double events = 0.0;
        for (const latency_model& l : latencies)
            events += checks * runs * static_cast<double>(dcfg.drives()) *
                      events_per_run(write, *r, config.config.chunk(), l.detection_period());
        check_work("capacity", events, max_events,
                   "up to " + std::to_string(static_cast<int>(checks)) + " writer counts x " + std::to_string(runs) +
                       " runs x " + std::to_string(latencies.size()) + " latency profiles of " +
                       std::to_string(dcfg.drives()) + " drives writing " + std::string(format_size(write).view()));
    }

    progress bar("capacity");
    table t({"latency", "policy", "rate_mib_s", "hosts", "drives_per_host", "max_pauses_per_run", "vm_quantile",
             "max_writers", "pauses_p99_at_max", "latency_p99_s_at_max", "spm_utilization_at_max"});
    for (std::size_t i = 0; i < latencies.size(); ++i) {
        const latency_model& l = latencies[i];
        max_writers_result m;
        if (!rate_aware) {
            m = search(static_agent<vdsm_policy>(make_vdsm_policy(config.config)), l, *w, dcfg, *target, runs, seed);
        } else {
            const std::uint32_t ms = latency_budget_ms(l, 1.0);
            const auto p = make_rate_aware_policy(config.config, ms < 1 ? 1 : ms);
            if (!p) fail(p.error(), "--latency");
            if (config.adaptive)
                m = search(adaptive_rate_aware_agent(*p, load_adaptation::make().value()), l, *w, dcfg, *target, runs,
                           seed);
            else
                m = search(rate_aware_agent(*p), l, *w, dcfg, *target, runs, seed);
        }
        bar.update(i + 1, latencies.size());
        const bool any = m.writers > 0;
        t.add_row({cell::of_text(specs[i]), cell::of_text(config.label), cell::of_real(r->mib_per_second(), 0),
                   cell::of(dcfg.hosts), cell::of(dcfg.drives_per_host), cell::of(target->max_pauses_per_run),
                   cell::of_real(target->vm_quantile, 6), cell::of(m.writers),
                   any ? cell::of_real(m.at_max.pauses_p99, 6) : cell(),
                   any ? cell::of_real(m.at_max.latency_p99, 4) : cell(),
                   any ? cell::of_real(m.at_max.spm_utilization, 4) : cell()});
    }
    const std::string out = t.str(f);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

}  // namespace provpol::cli
