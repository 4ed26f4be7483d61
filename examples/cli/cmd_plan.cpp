// provpol plan: replays a guest writing at each of several rates through one or more extend configurations and
// a latency model, and reports extends, pauses and space per rate (text, CSV, JSON, or an SVG plot of the
// pause probability against the write rate).
#include "commands.hpp"
#include "common/cli.hpp"
#include "common/config_input.hpp"
#include "common/csv.hpp"
#include "common/latency_option.hpp"
#include "common/spec_list.hpp"
#include "common/table.hpp"
#include "domain_options.hpp"
#include "parallel.hpp"
#include "per_value.hpp"
#include "plan.hpp"
#include "stratis_plan.hpp"
#include "svg_plot.hpp"
#include "work.hpp"

#include <provpol/domain.hpp>
#include <provpol/extend.hpp>
#include <provpol/flow/latency.hpp>
#include <provpol/flow/risk.hpp>
#include <provpol/simulate.hpp>
#include <provpol/simulate/rate_aware.hpp>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace provpol::cli {

namespace {

// --budget SECONDS or --budget-quantile Q (default 1: the longest latency the model allows).
milliseconds budget_option(const args& a, const latency_model& latency) {
    if (a.has("--budget") && a.has("--budget-quantile"))
        throw usage_error("give --budget or --budget-quantile, not both");
    if (const auto s = a.time("--budget", milliseconds(1), max_latency_budget)) {
        const milliseconds ms(static_cast<milliseconds::rep>(in_seconds(*s) * 1000.0 + 0.5));  // the nearest
        return ms < milliseconds(1) ? milliseconds(1) : ms;
    }
    const double q = a.decimal("--budget-quantile", 0.5, 1.0).value_or(1.0);
    return latency_budget_option(latency, q,
                                 q >= 1.0 ? "its longest latency" : "its " + decimal_text(q, 6) + " quantile");
}

std::vector<rate> rates_option(const args& a) {
    std::vector<std::string> items = a.values("--rate");
    if (items.empty())
        items = {"75MiB/s", "100MiB/s", "125MiB/s", "150MiB/s", "200MiB/s", "300MiB/s", "400MiB/s", "500MiB/s"};
    std::vector<rate> out;
    for (const std::string& s : items) {
        const auto r = parse_rate(s, "--rate");
        if (!r) fail(r.error(), "--rate");
        if (r->bytes_per_second() == 0) throw usage_error("--rate: a rate of 0 writes nothing");
        out.push_back(*r);
    }
    if (out.size() > 1000) throw usage_error("--rate: at most 1000 rates");
    return out;
}

// The workload at each rate (the same for every configuration): write(r) on a disk of capacity(r).
template <class Write, class Capacity>
std::vector<workload> workloads(const Write& write, const std::vector<rate>& rates, const Capacity& capacity,
                                const char* option) {
    std::vector<workload> out;
    for (rate r : rates) {
        const auto w = workload::make(write(r), r, capacity(r));
        if (!w)
            fail(w.error(), w.error().setting() == text_view("capacity") ? "--capacity" : option, "write_size", option);
        out.push_back(*w);
    }
    return out;
}

}  // namespace

// long: not split here: other work changes this file today (options, run and printing in one)
int run_plan(int argc, char** argv) {
    if (is_stratis_invocation(argc, argv)) return run_plan_stratis(argc, argv);
    // A list of latency profiles: one plan per profile, joined with a latency column (per_value.hpp).
    if (!is_lvm_invocation(argc, argv))
        if (const auto v = values_in(argc, argv, {"--latency"}, split_specs); v.size() > 1)
            return run_per_value(argc, argv, {"--latency"}, v, "latency", run_plan);
    if (is_lvm_invocation(argc, argv)) return run_plan_lvm(argc, argv);
    const args a(
        "plan",
        "provpol plan [--policy static|rate-aware|rate-aware-adaptive ...]\n"
        "                    [--preset vdsm-2022|vdsm-legacy ... | --chunk SIZE --percent N | --config FILE ...]\n"
        "                    [--latency LIST] [--budget SECONDS | --budget-quantile Q] [--rate LIST]\n"
        "                    [--write SIZE | --duration TIME] [--capacity SIZE] [--runs N] [--seed N] [--per-run]\n"
        "                    [--format text|csv|json|svg] [--svg-metric M]\n"
        "                    [--hosts H --drives-per-host D [--writers N] [--stagger SECONDS] [--burst ON,OFF | "
        "--trace FILE] [--mix]]\n"
        "                    [--jobs N]\n"
        "       provpol plan --preset lvm-thin-autoextend --pool-size SIZE ...   (an LVM thin pool under dmeventd: "
        "provpol plan --preset lvm-thin-autoextend --help)\n"
        "       provpol plan --preset stratis-data --pool-size SIZE --backstore-free SIZE ...   (a Stratis pool: "
        "provpol plan --preset stratis-data --help)",
        {{"--policy", "NAME", policy_help, true},
         {"--preset", "NAME", preset_help, true},
         {"--chunk", "SIZE", "a custom volume_utilization_chunk_mb, as a size (whole MiB)"},
         {"--percent", "N", "a custom volume_utilization_percent, 0-99"},
         {"--config", "FILE",
          "the VDSM configurations in FILE (- for stdin): provpol recommend's answer in any --format, or, given "
          "once or more, vdsm.conf and its vdsm.conf.d drop-ins, read in order as VDSM reads them (later files win, "
          "VDSM 4.50's defaults for a key no file sets; stderr says which file set each value)",
          true},
         {"--latency", "LIST",
          latency_spec_names + " (default vdsm-polling-2022); a comma-separated list plans each, with a latency "
                               "column",
          true},
         {"--budget", "SECONDS", "rate-aware: the latency to plan for"},
         {"--budget-quantile", "Q",
          "rate-aware: plan for this quantile of the latency, 0.5-1 (with --policy rate-aware, default 1: its "
          "longest)"},
         {"--rate", "LIST",
          "comma-separated write rates (default "
          "75MiB/s,100MiB/s,125MiB/s,150MiB/s,200MiB/s,300MiB/s,400MiB/s,500MiB/s)",
          true, "--rates"},
         {"--write", "SIZE", "how much the guest writes per run (default 50GiB)"},
         {"--duration", "TIME", duration_help},
         {"--capacity", "SIZE", "the disk's virtual size (twice --write by default)"},
         {"--runs", "N",
          "seeded runs per rate and configuration, 1-100000 (default 1000; with --hosts, default 1: "
          "runs of the whole domain)"},
         {"--hosts", "H", "simulate a storage domain of H hosts, 1-10000, sharing one SPM and its VG lock"},
         {"--drives-per-host", "D", "with --hosts: drives per host, 1-10000 (at most 1000000 drives)"},
         {"--writers", "N",
          "with --hosts: how many drives write, spread over the hosts in turn; every drive writes "
          "when not given"},
         {"--stagger", "SECONDS",
          "with --hosts: writer i starts at i x SECONDS, in --writers' order (with --hosts, default 0: all at once)"},
         {"--burst", "ON,OFF",
          "with --hosts: every writer writes for ON, then idles for OFF, in turn: times such as 60,30 or 2s,10s "
          "(seconds "
          "when no unit is given)"},
         {"--trace", "FILE",
          "with --hosts: every writer follows this CSV of time_s,bytes_written (a header line, then cumulative bytes "
          "from 0; - for stdin), in place of --rate and --write"},
         {"--mix", nullptr,
          "with --hosts: the configurations (--policy, --preset) in one domain, the writers taking them in turn; "
          "a row each"},
         {"--seed", "N", "the random seed (default 1)"},
         {"--per-run", nullptr,
          "one row per run (a VM): rate_mib_s,run,extends,pauses,pause_seconds, the policy and resent"},
         {"--max-events", "N", "refuse a plan that would replay more simulated events (default 1000000000)"},
         {"--jobs", "N", jobs_help},
         {"--format", "FORMAT", "text (default), csv, json or svg"},
         {"--svg-metric", "METRIC",
          "what --format svg plots: pause-probability (per extend) or pauses (per run) (with --format "
          "svg, default pause-probability)"}},
        argc, argv);
    const format f = a.output_format({format::text, format::csv, format::json, format::svg});
    // No option is ignored: one that does not apply to what was asked is an error.
    if (a.has("--svg-metric") && f != format::svg) throw usage_error("--svg-metric applies to --format svg");
    if (a.has("--preset") && (a.has("--chunk") || a.has("--percent")))
        throw usage_error("give --preset or --chunk with --percent, not both");
    const std::string metric = a.value("--svg-metric").value_or("pause-probability");
    if (metric != "pause-probability" && metric != "pauses")
        throw usage_error("--svg-metric: unknown value '" + args::printable(metric) +
                          "': expected pause-probability or pauses");
    const std::vector<plan_config> configs = configs_option(a, "plan");
    bool any_rate_aware = false;
    for (const plan_config& c : configs) any_rate_aware = any_rate_aware || c.rate_aware;
    for (const char* o : {"--budget", "--budget-quantile"})
        if (a.has(o) && !any_rate_aware) throw usage_error(std::string(o) + " applies to --policy rate-aware");
    const bool domain = a.has("--hosts") || a.has("--drives-per-host") || a.has("--writers");
    for (const char* o : {"--stagger", "--burst", "--trace", "--mix"})
        if (a.has(o) && !domain)
            throw usage_error(std::string(o) + " applies to a storage domain: give --hosts and --drives-per-host");
    const std::vector<trace_point> trace = trace_option(a);
    std::vector<rate> rates = rates_option(a);
    const latency_model latency = latency_option(a);
    const milliseconds budget = budget_option(a, latency);
    // What a writer writes at rate r (--write, or r x --duration; a trace: its last point), on a disk of
    // --capacity or twice that.
    const write_amount amount = write_option(a);
    const auto write = [&](rate r) { return trace.empty() ? amount.at(r) : trace.back().written; };
    const std::optional<bytes> capacity_given = a.size("--capacity");
    const auto capacity = [&](rate r) { return capacity_given.value_or(saturating_mul(write(r), 2)); };
    const std::string written_text =
        trace.empty() ? amount.text() : std::string(format_size(trace.back().written).view()) + " written";
    if (domain && (!a.has("--hosts") || !a.has("--drives-per-host")))
        throw usage_error("--hosts and --drives-per-host go together (and --writers needs them)");
    if (domain && a.has("--per-run")) throw usage_error("--per-run applies to single drives, not to --hosts");
    if (domain && f == format::svg) throw usage_error("--format svg plots single drives, not --hosts");
    const std::uint64_t runs = a.count("--runs", 1, 100000).value_or(domain ? 1 : 1000);
    const std::uint64_t seed = a.count("--seed", 0, ~std::uint64_t{0}).value_or(1);

    domain_config dcfg;
    std::uint32_t writers = 0;
    if (domain) {
        const auto d =
            domain_config::make(static_cast<std::uint32_t>(*a.count("--hosts", 1, 10000)),
                                static_cast<std::uint32_t>(*a.count("--drives-per-host", 1, 10000)), seconds(1e8));
        if (!d && std::string(d.error().message().view()).rfind("drives ", 0) == 0)  // the limit on their product
            throw usage_error("--hosts x --drives-per-host: at most 1000000 drives, got " +
                              std::to_string(*a.count("--hosts", 1, 10000) * *a.count("--drives-per-host", 1, 10000)));
        if (!d) fail(d.error(), "--drives-per-host");
        dcfg = *d;
        writers = static_cast<std::uint32_t>(a.count("--writers", 1, dcfg.drives()).value_or(dcfg.drives()));
        if (!latency.is_flow())
            throw usage_error(std::string("--hosts needs a --latency with the mailbox's clocks: ") +
                              mailbox_latency_names);
    }
    // The writers' workload (domain_writing, plan.hpp): a constant rate, bursts or the trace, staggered or not.
    const seconds stagger = a.time("--stagger", seconds(0.0), seconds(max_workload_seconds)).value_or(seconds(0.0));
    if (writers > 1 && static_cast<double>(writers - 1) * stagger.count() > max_workload_seconds)
        throw usage_error("--stagger " + *a.value("--stagger") + " starts the last of " + std::to_string(writers) +
                          " writers after 10000000 s: at most " +
                          std::to_string(max_workload_seconds / static_cast<double>(writers - 1)).substr(0, 12) +
                          " with this many");
    const burst_times burst = burst_option(a);
    const bool mix = a.has("--mix");
    if (mix && configs.size() < 2)
        throw usage_error("--mix needs at least two configurations (--policy or --preset given twice)");
    domain_writing writing;
    writing.writers = writers;
    writing.stagger = stagger;
    if (!trace.empty()) {
        const auto t = drive_workload::make_trace(trace.data(), trace.size(), capacity(rate(1)));
        if (!t) fail(t.error(), t.error().setting() == text_view("capacity") ? "--capacity" : "--trace");
        writing.writer = *t;
        rates = {t->base.write_rate};  // the trace's mean rate, for the rate column and the work estimate
    }
    // What the writers do at rate r (the trace: its own rates).
    const auto writing_at = [&](rate r) {
        if (!trace.empty()) return writing;
        const auto w = workload::make(write(r), r, capacity(r));
        if (!w)
            fail(w.error(), w.error().setting() == text_view("capacity") ? "--capacity" : amount.option(), "write_size",
                 amount.option());
        const auto d = drive_workload::make(*w, seconds(0), burst.on, burst.off);
        if (!d) fail(d.error(), "--burst");
        domain_writing out = writing;
        out.writer = *d;
        return out;
    };
    const double drives_per_run = domain ? static_cast<double>(dcfg.drives()) : 1.0;

    const std::uint64_t max_events = a.count("--max-events", 1, ~std::uint64_t{0}).value_or(default_max_events);
    const unsigned jobs = jobs_option(a);
    {  // bounded work: estimate before simulating
        double events = 0.0;
        // Bursts write a share on / (on + off) of the time; a staggered start adds every drive's ticks until the
        // last writer starts; a trace, an event per point.
        const double duty = burst.on > seconds(0) ? burst.on.count() / (burst.on.count() + burst.off.count()) : 1.0;
        const double wait = writers > 1 ? static_cast<double>(writers - 1) * stagger.count() : 0.0;
        const double tick = latency.detection_period() > seconds(0) ? latency.detection_period().count() : 2.0;
        for (const plan_config& c : configs)
            for (rate r : rates) {
                const double slow = static_cast<double>(r.bytes_per_second()) * duty;
                events += static_cast<double>(runs) * drives_per_run *
                          (events_per_run(write(r), rate(slow < 1.0 ? 1 : static_cast<std::uint64_t>(slow)),
                                          c.config.chunk(), latency.detection_period()) +
                           wait / tick + static_cast<double>(trace.size()));
            }
        check_work("plan", events, max_events,
                   std::to_string(runs) + " runs x " + std::to_string(rates.size()) + " rates x " +
                       std::to_string(configs.size()) + " configurations, " + written_text + ", the slowest rate " +
                       std::string(format_rate(*std::min_element(rates.begin(), rates.end(), [](rate x, rate y) {
                                       return x.bytes_per_second() < y.bytes_per_second();
                                   })).view()));
    }
    progress bar("plan");
    if (domain) {  // a storage domain: the writers' per-VM columns and the domain's shared figures
        table d({"rate_mib_s",
                 "extends",
                 "pauses",
                 "pause_probability",
                 "policy",
                 "chunk_mb",
                 "percent",
                 "hosts",
                 "drives_per_host",
                 "writers",
                 "pauses_p50",
                 "pauses_p90",
                 "pauses_p99",
                 "runs_mostly_paused",
                 "latency_p50_s",
                 "latency_p99_s",
                 "spm_utilization",
                 "queue_p99",
                 "runs",
                 "write",
                 "budget_s",
                 "resent"});
        // Every domain run is a task, computed on `jobs` threads and added up in task order (parallel.hpp). Without
        // --mix: task k + runs x (rate + rates x configuration), each configuration's domain on its own; with --mix:
        // task k + runs x rate, the configurations in one domain, their writers in as many groups.
        const std::size_t per_domain = mix ? configs.size() : 1;
        const std::uint64_t series = mix ? rates.size() : configs.size() * rates.size();
        std::vector<domain_writing> writing_by_rate;
        for (rate r : rates) writing_by_rate.push_back(writing_at(r));
        std::vector<plan_agent_type> agents;
        if (mix)
            for (const plan_config& c : configs) agents.push_back(plan_agent(c, budget));
        // Rows in configuration order, then rate order, whichever way the domains ran.
        std::vector<std::vector<domain_plan_result>> results(configs.size(),
                                                             std::vector<domain_plan_result>(rates.size()));
        std::optional<domain_plan_accumulator> acc;
        ordered_parallel(
            series * runs, jobs, domain_window(dcfg, jobs),
            [&](std::uint64_t task) {
                const std::uint64_t pair = task / runs;
                const auto k = static_cast<std::uint32_t>(task % runs);
                if (mix) return simulate_domain_mix_run(agents, latency, writing_by_rate[pair], dcfg, k, seed);
                return simulate_domain_config_run(configs[pair / rates.size()], budget, latency,
                                                  writing_by_rate[pair % rates.size()], dcfg, k, seed);
            },
            [&](std::uint64_t task, domain_result&& one) {
                if (task % runs == 0) acc.emplace(dcfg, writers, static_cast<std::uint32_t>(runs), per_domain);
                acc->add(one);
                if (task % runs != runs - 1) return;
                const std::uint64_t pair = task / runs;
                if (mix)
                    for (std::size_t c = 0; c < configs.size(); ++c) results[c][pair] = acc->result(c);
                else
                    results[pair / rates.size()][pair % rates.size()] = acc->result();
            },
            [&](std::uint64_t done, std::uint64_t total) { bar.update(done, total); });
        for (std::size_t ci = 0; ci < configs.size(); ++ci)
            for (std::size_t ri = 0; ri < rates.size(); ++ri) {
                const plan_config& c = configs[ci];
                const rate r = rates[ri];
                const domain_plan_result& x = results[ci][ri];
                const simulation_summary& s = x.vms;
                d.add_row(
                    {trace.empty() ? cell::of_rate_mib(r) : cell::of_real(r.mib_per_second(), 6),  // a trace: its mean
                     cell::of_real(s.extends, 6),
                     cell::of_real(s.pauses, 6),
                     cell::of_real(s.pause_probability, 4),
                     cell::of_text(c.label),
                     cell::of(c.config.chunk_mb()),
                     cell::of(c.config.percent()),
                     cell::of(dcfg.hosts),
                     cell::of(dcfg.drives_per_host),
                     cell::of(writers),
                     cell::of_real(s.pauses_p50, 6),
                     cell::of_real(s.pauses_p90, 6),
                     cell::of_real(s.pauses_p99, 6),
                     cell::of_real(s.runs_mostly_paused, 4),
                     cell::of_seconds(x.latency_p50, 4),
                     cell::of_seconds(x.latency_p99, 4),
                     cell::of_real(x.spm_utilization, 4),
                     cell::of_real(x.queue_p99, 6),
                     cell::of(runs),
                     cell::of_size(write(r)),
                     c.rate_aware ? cell::of_real(in_seconds(budget), 6) : cell(),
                     cell::of_real(s.resent, 6)});
            }
        const std::string out = d.str(f);
        std::fwrite(out.data(), 1, out.size(), stdout);
        return 0;
    }
    const bool per_run = a.has("--per-run");
    if (per_run && f == format::svg) throw usage_error("--per-run prints rows, not a plot: use text, csv or json");
    std::vector<std::vector<simulation_summary>> results(configs.size());
    table t({"rate_mib_s",
             "extends",
             "pauses",
             "pause_probability",
             "policy",
             "chunk_mb",
             "percent",
             "limit",
             "initial_size",
             "unwritten_end",
             "runs_with_pause",
             "pause_seconds",
             "max_pauses",
             "pauses_p50",
             "pauses_p90",
             "pauses_p99",
             "runs_mostly_paused",
             "model_pause_probability",
             "runs",
             "write",
             "latency_mean_s",
             "budget_s",
             "resent"});
    table each({"rate_mib_s", "run", "extends", "pauses", "pause_seconds", "policy", "chunk_mb", "percent", "budget_s",
                "resent"});
    // Every run of every configuration and rate is a task (i + runs x (rate + rates x configuration)), computed on
    // `jobs` threads and added up in task order (parallel.hpp), as one thread adds them.
    const std::vector<workload> loads = workloads(write, rates, capacity, amount.option());
    run_accumulator acc;
    ordered_parallel(
        configs.size() * rates.size() * runs, jobs, std::uint64_t{1} << 16,
        [&](std::uint64_t task) {
            const std::uint64_t pair = task / runs;
            return simulate_config_run(configs[pair / rates.size()], budget, latency, loads[pair % rates.size()], seed,
                                       static_cast<std::uint32_t>(task % runs));
        },
        [&](std::uint64_t task, const run_result& x) {
            const std::uint64_t pair = task / runs, i = task % runs;
            const std::size_t c = pair / rates.size();
            const rate r = rates[pair % rates.size()];
            const cell budget_cell = configs[c].rate_aware ? cell::of_real(in_seconds(budget), 6) : cell();
            if (i == 0) acc = run_accumulator();
            acc.add(x);
            if (per_run)
                each.add_row({cell::of_rate_mib(r), cell::of(i), cell::of(x.extends), cell::of(x.pauses),
                              cell::of_seconds(x.pause_seconds, 6), cell::of_text(configs[c].label),
                              cell::of(configs[c].config.chunk_mb()), cell::of(configs[c].config.percent()),
                              budget_cell, cell::of(x.resent)});
            if (i != runs - 1) return;
            const simulation_summary s = acc.summary();
            results[c].push_back(s);
            // The static limit, and the per-extend model of flow/risk.hpp (for the rate-aware policy: its limit at
            // this rate, known exactly).
            bytes limit = configs[c].config.limit(false);
            if (configs[c].rate_aware) limit = max(limit, bytes_written_in(r, budget));
            t.add_row({cell::of_rate_mib(r),
                       cell::of_real(s.extends, 6),
                       cell::of_real(s.pauses, 6),
                       cell::of_real(s.pause_probability, 4),
                       cell::of_text(configs[c].label),
                       cell::of(configs[c].config.chunk_mb()),
                       cell::of(configs[c].config.percent()),
                       cell::of_size(limit),
                       cell::of_size(s.initial_size),
                       cell::of_size(bytes(static_cast<std::uint64_t>(s.unwritten))),
                       cell::of_real(s.runs_with_pause, 4),
                       cell::of_seconds(s.pause_seconds, 4),
                       cell::of_real(s.max_pauses, 6),
                       cell::of_real(s.pauses_p50, 6),
                       cell::of_real(s.pauses_p90, 6),
                       cell::of_real(s.pauses_p99, 6),
                       cell::of_real(s.runs_mostly_paused, 4),
                       cell::of_real(pause_probability(limit, r, latency), 4),
                       cell::of(runs),
                       cell::of_size(write(r)),
                       cell::of_seconds(latency.mean(), 4),
                       budget_cell,
                       cell::of_real(s.resent, 6)});
        },
        [&](std::uint64_t done, std::uint64_t total) { bar.update(done, total); });
    if (f == format::svg) {
        const std::string title = std::string(metric == "pauses" ? "pauses per run" : "pause probability per extend") +
                                  ", " + written_text + ", " + a.value("--latency").value_or("vdsm-polling-2022") +
                                  " latency, " + std::to_string(runs) + " runs";
        std::vector<std::string> labels;
        for (const plan_config& c : configs) labels.push_back(c.label);
        const std::string svg = svg_plot(labels, rates, results, title, metric == "pauses");
        std::fwrite(svg.data(), 1, svg.size(), stdout);
        return 0;
    }
    const std::string out = per_run ? each.str(f) : t.str(f);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

}  // namespace provpol::cli
