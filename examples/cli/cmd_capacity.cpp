// provpol capacity: the largest number of concurrent writers a storage domain holds under a per-VM pause target
// (domain.hpp's max_writers), one row per latency profile.
#include "common/cli.hpp"
#include "common/config_input.hpp"
#include "common/latency_option.hpp"
#include "common/spec_list.hpp"
#include "common/table.hpp"
#include "domain_options.hpp"
#include "parallel.hpp"
#include "per_value.hpp"
#include "plan.hpp"
#include "svg_plot.hpp"
#include "work.hpp"

#include <provpol/domain.hpp>
#include <provpol/domain/capacity.hpp>
#include <provpol/extend.hpp>
#include <provpol/flow/latency.hpp>
#include <provpol/simulate.hpp>
#include <provpol/simulate/rate_aware.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace provpol::cli {

namespace {

/// The figures at one writer count: plan --hosts's (simulate_domain_config_run for runs 0 .. runs - 1, added up in
/// run order), and the pause quantiles the plot and the target need.
struct count_figures {
    domain_plan_result plan;
    std::uint32_t at_quantile = 0;  ///< pauses per writing VM at the target's quantile
};

/// One latency profile's search: the domain runs of a writer count on `jobs` threads, every count's figures kept
/// (the plot draws the counts the search visited).
struct profile_search {
    const plan_config& config;
    milliseconds budget;
    const latency_model& latency;
    const domain_writing& w;  ///< the writers' workload; its writer count is the search's
    const domain_config& cfg;
    per_vm_target target;
    std::uint32_t runs;
    std::uint64_t seed;
    std::uint32_t first = 0;  ///< the series' first domain run: a search over run `first` alone gives its spread
    std::map<std::uint32_t, count_figures> seen;

    /// A fresh accumulator for `writers` and the task that computes domain run k of it.
    domain_plan_accumulator accumulator(std::uint32_t writers) const { return {cfg, writers, runs}; }
    domain_result run(std::uint32_t writers, std::uint32_t k) const {
        domain_writing at = w;
        at.writers = writers;
        return simulate_domain_config_run(config, budget, latency, at, cfg, first + k, seed);
    }
    void keep(std::uint32_t writers, const domain_plan_accumulator& acc) {
        seen[writers] = count_figures{acc.result(), acc.vms().pauses_quantile(target.vm_quantile)};
    }

    /// check_writers' figures at `writers` (domain.hpp), from the same runs added up in the same order.
    writers_check check(std::uint32_t writers, unsigned jobs) {
        if (seen.count(writers) == 0) {
            domain_plan_accumulator acc = accumulator(writers);
            ordered_parallel(
                runs, jobs, domain_window(cfg, jobs),
                [&](std::uint64_t k) { return run(writers, static_cast<std::uint32_t>(k)); },
                [&](std::uint64_t, domain_result&& one) { acc.add(one); }, [](std::uint64_t, std::uint64_t) {});
            keep(writers, acc);
        }
        const count_figures& f = seen.at(writers);
        writers_check c;
        c.writers = writers;
        c.pauses_at_quantile = f.at_quantile;
        c.met = f.at_quantile <= target.max_pauses_per_run;
        c.pauses_p99 = f.plan.vms.pauses_p99;
        c.latency_p99 = f.plan.latency_p99;
        c.spm_utilization = f.plan.spm_utilization;
        return c;
    }
    max_writers_result search(unsigned jobs) {
        const auto r = search_max_writers(
            cfg.drives(), [&](std::uint32_t writers) -> result<writers_check> { return check(writers, jobs); });
        if (!r) fail(r.error(), "--latency");
        return *r;
    }
};

/// The writer counts the plot shows beyond those the search visited: max_writers and one more, and 8 counts
/// spread evenly up to about twice max_writers (at least 4, at most every drive).
std::vector<std::uint32_t> plot_counts(std::uint32_t max_writers, std::uint32_t drives) {
    const std::uint64_t wide = 2 * std::uint64_t{max_writers} + 2 > 4 ? 2 * std::uint64_t{max_writers} + 2 : 4;
    const std::uint64_t upper = wide < drives ? wide : drives;
    std::vector<std::uint32_t> out;
    for (std::uint64_t k = 1; k <= 8; ++k) out.push_back(static_cast<std::uint32_t>((upper * k + 4) / 8));
    out.push_back(max_writers);
    if (max_writers < drives) out.push_back(max_writers + 1);
    std::vector<std::uint32_t> kept;
    for (std::uint32_t n : out)
        if (n >= 1 && n <= drives) kept.push_back(n);
    std::sort(kept.begin(), kept.end());
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
    return kept;
}

/// The most writer counts plot_counts adds.
constexpr int plot_extra_counts = 10;

}  // namespace

int run_capacity(int argc, char** argv) {
    // A list of rates: one search per rate, joined (per_value.hpp); the rows carry rate_mib_s.
    if (const auto v = values_in(argc, argv, {"--rate", "--rates"}, split_commas); v.size() > 1)
        return run_per_value(argc, argv, {"--rate", "--rates"}, v, nullptr, run_capacity);
    const args a(
        "capacity",
        "provpol capacity --rate LIST --max-pauses-per-run N --hosts H --drives-per-host D [--vm-quantile Q]\n"
        "                        [--policy static|rate-aware|rate-aware-adaptive ...] [--preset NAME ... | --chunk "
        "SIZE "
        "--percent N]\n"
        "                        [--config FILE] [--latency LIST] [--write SIZE] [--capacity SIZE] [--stagger "
        "SECONDS]\n"
        "                        [--burst ON,OFF | --trace FILE] [--runs N] [--seed N] [--max-events N] [--jobs N]\n"
        "                        [--format text|csv|json|svg]",
        {{"--rate", "LIST", "each writer's write rate, e.g. 500MiB/s; a comma-separated list searches each", true,
          "--rates"},
         {"--max-pauses-per-run", "N", "per-VM target: at most this many pauses in --write, 0-1000000"},
         {"--vm-quantile", "Q", "the share of writing VMs that must meet --max-pauses-per-run, (0, 1] (default 0.99)"},
         {"--hosts", "H", "the storage domain's hosts, 1-10000, sharing one SPM and its VG lock"},
         {"--drives-per-host", "D",
          "drives per host, 1-10000 (at most 1000000 drives); the writers are spread over "
          "the hosts in turn, the others idle"},
         {"--policy", "NAME", policy_help, true},
         {"--preset", "NAME", preset_help, true},
         {"--chunk", "SIZE", "a custom volume_utilization_chunk_mb, as a size (whole MiB)"},
         {"--percent", "N", "a custom volume_utilization_percent, 0-99"},
         {"--config", "FILE",
          "the VDSM configurations in FILE (- for stdin): provpol recommend's answer in any --format, or a "
          "vdsm.conf.d file"},
         {"--latency", "LIST",
          "comma-separated latency profiles with the mailbox's clocks, one row each: vdsm-polling-2022, "
          "vdsm-mailbox-events, vdsm-immediate or vdsm-log:FILE (default vdsm-polling-2022)",
          true},
         {"--write", "SIZE", "how much each writer writes (default 50GiB)"},
         {"--capacity", "SIZE", "each writer's virtual disk size (default twice --write)"},
         {"--stagger", "SECONDS",
          "writer i starts at i x SECONDS (default 0: every writer at once, a boot storm), as plan --hosts"},
         {"--burst", "ON,OFF", "every writer writes for ON seconds, then idles for OFF seconds, in turn"},
         {"--trace", "FILE",
          "every writer follows this CSV of time_s,bytes_written (- for stdin), in place of --rate and --write"},
         {"--runs", "N",
          "domain runs per writer count, 1-100000 (default 1); above 1 the answer's spread is searched too, each "
          "run alone"},
         {"--seed", "N", "the random seed (default 1)"},
         {"--max-events", "N", "refuse a search that would replay more simulated events (default 1000000000)"},
         {"--jobs", "N", jobs_help},
         {"--format", "FORMAT",
          "text (default), csv, json, or svg: pauses per VM (p50, p99) against the writers, per latency profile"}},
        argc, argv);
    const format f = a.output_format({format::text, format::csv, format::json, format::svg});
    if (a.has("--preset") && (a.has("--chunk") || a.has("--percent")))
        throw usage_error("give --preset or --chunk/--percent, not both");
    const std::vector<plan_config> configs = configs_option(a);
    if (configs.size() > 100) throw usage_error("--policy x --preset: at most 100 configurations");

    const std::vector<trace_point> trace = trace_option(a);
    std::optional<rate> r = a.rate("--rate");
    if (!r && trace.empty()) throw usage_error("--rate is required (e.g. --rate 500MiB/s)");
    if (r && r->bytes_per_second() == 0) throw usage_error("--rate: a rate of 0 writes nothing");
    if (!a.has("--max-pauses-per-run")) throw usage_error("--max-pauses-per-run is required (e.g. 1)");
    const auto max_pauses = a.count("--max-pauses-per-run", 0, 1000000);
    const auto target = per_vm_target::make(static_cast<std::uint32_t>(*max_pauses),
                                            a.decimal("--vm-quantile", 0.0, 1.0).value_or(0.99));
    if (!target) fail(target.error(), "--vm-quantile");
    if (!a.has("--hosts") || !a.has("--drives-per-host"))
        throw usage_error("--hosts and --drives-per-host are required (the storage domain's shape)");
    const auto d =
        domain_config::make(static_cast<std::uint32_t>(*a.count("--hosts", 1, 10000)),
                            static_cast<std::uint32_t>(*a.count("--drives-per-host", 1, 10000)), seconds(1e8));
    if (!d) fail(d.error(), "--drives-per-host");
    const domain_config dcfg = *d;

    std::vector<std::string> specs = spec_list(a, "--latency");
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

    const bytes write =
        trace.empty() ? a.size("--write").value_or(bytes(std::uint64_t{50} << 30)) : trace.back().written;
    if (write.count() == 0) throw usage_error("--write must be at least 1 byte");
    if (write.count() > (std::uint64_t{1} << 50))
        throw usage_error("--write must be at most 1PiB, got " + std::string(format_size(write).view()));
    const bytes capacity = a.size("--capacity").value_or(saturating_mul(write, 2));
    // The writers' workload, as plan --hosts has it: a constant rate, bursts or the trace, staggered or not.
    const seconds stagger = a.time("--stagger", seconds(0.0), seconds(max_workload_seconds)).value_or(seconds(0.0));
    if (dcfg.drives() > 1 && static_cast<double>(dcfg.drives() - 1) * stagger.count() > max_workload_seconds)
        throw usage_error("--stagger " + *a.value("--stagger") + " would start the last of " +
                          std::to_string(dcfg.drives()) + " writers after 10000000 s");
    const std::pair<double, double> burst = burst_option(a);
    domain_writing writing;
    writing.stagger = stagger;
    std::string shape;
    if (!trace.empty()) {
        const auto t = drive_workload::make_trace(trace.data(), trace.size(), capacity);
        if (!t) fail(t.error(), t.error().setting() == text_view("capacity") ? "--capacity" : "--trace");
        writing.writer = *t;
        r = t->base.write_rate;  // the trace's mean rate, for the rate column and the work estimate
        shape = "trace " + args::printable(*a.value("--trace"));
    } else {
        const auto w = workload::make(write, *r, capacity);
        if (!w)
            fail(w.error(), w.error().setting() == text_view("capacity") ? "--capacity" : "--write", "write_size",
                 "--write");
        const auto dw = drive_workload::make(*w, seconds(0), seconds(burst.first), seconds(burst.second));
        if (!dw) fail(dw.error(), "--burst");
        writing.writer = *dw;
        shape = burst.first > 0.0
                    ? "bursts " + decimal_text(burst.first, 6) + " s on, " + decimal_text(burst.second, 6) + " s off"
                    : "constant";
    }
    shape += stagger > seconds(0) ? ", writer i starts at i x " + decimal_text(stagger, 6) + " s"
                                  : ", every writer starts at once";
    const auto runs = static_cast<std::uint32_t>(a.count("--runs", 1, 100000).value_or(1));
    const std::uint64_t seed = a.count("--seed", 0, ~std::uint64_t{0}).value_or(1);

    const std::uint64_t max_events = a.count("--max-events", 1, ~std::uint64_t{0}).value_or(default_max_events);
    const unsigned jobs = jobs_option(a);
    {  // bounded work: every check runs `runs` domains of every drive; the search makes at most 2 log2(drives) + 2,
       // the plot at most plot_extra_counts more
        const double checks = 2.0 * std::ceil(std::log2(static_cast<double>(dcfg.drives()) + 1.0)) + 2.0 +
                              (f == format::svg ? plot_extra_counts : 0);
        double events = 0.0;
        for (const plan_config& config : configs)
            for (const latency_model& l : latencies)
                events += checks * runs * (runs > 1 ? 2.0 : 1.0) * static_cast<double>(dcfg.drives()) *
                          events_per_run(write, *r, config.config.chunk(), l.detection_period());
        check_work("capacity", events, max_events,
                   "up to " + std::to_string(static_cast<int>(checks)) + " writer counts x " + std::to_string(runs) +
                       " runs x " + std::to_string(latencies.size()) + " latency profiles x " +
                       std::to_string(configs.size()) + " configurations of " + std::to_string(dcfg.drives()) +
                       " drives writing " + std::string(format_size(write).view()));
    }

    // The rate-aware policy plans for each profile's longest latency. One search per configuration and profile,
    // search i = configuration i / profiles, profile i % profiles.
    std::vector<milliseconds> budgets;
    for (const latency_model& l : latencies) {
        const milliseconds ms = std::max(latency_budget(l, 1.0), milliseconds(1));
        for (const plan_config& config : configs)
            if (config.rate_aware)
                if (const auto p = make_rate_aware_policy(config.config, ms); !p) fail(p.error(), "--latency");
        budgets.push_back(ms);
    }
    const std::size_t profiles = latencies.size();
    std::vector<profile_search> searches;
    for (const plan_config& config : configs)
        for (std::size_t i = 0; i < profiles; ++i)
            searches.push_back({config, budgets[i], latencies[i], writing, dcfg, *target, runs, seed, 0, {}});
    // The spread of the answer over the runs: the same search on each run alone (runs above 1).
    std::vector<profile_search> alone;
    for (std::size_t i = 0; runs > 1 && i < searches.size(); ++i)
        for (std::uint32_t k = 0; k < runs; ++k) {
            profile_search one = searches[i];
            one.runs = 1;
            one.first = k;
            alone.push_back(std::move(one));
        }

    // On `jobs` threads: the domain runs of each writer count, or, with more profiles and fewer runs than threads,
    // the profiles' searches side by side (one thread each). The figures are the same either way.
    progress bar("capacity");
    std::vector<max_writers_result> found(searches.size()), found_alone(alone.size());
    const bool by_profile = searches.size() > 1 && runs < jobs;
    ordered_parallel(
        searches.size(), by_profile ? jobs : 1, searches.size(),
        [&](std::uint64_t i) { return searches[i].search(by_profile ? 1 : jobs); },
        [&](std::uint64_t i, const max_writers_result& m) { found[i] = m; },
        [&](std::uint64_t done, std::uint64_t total) { bar.update(done, total + alone.size()); });
    ordered_parallel(
        alone.size(), jobs, alone.size(), [&](std::uint64_t i) { return alone[i].search(1); },
        [&](std::uint64_t i, const max_writers_result& m) { found_alone[i] = m; },
        [&](std::uint64_t done, std::uint64_t) { bar.update(searches.size() + done, searches.size() + alone.size()); });

    // Over the runs, each run alone: the smallest and the largest answer.
    const auto spread_min = [&](std::size_t i) {
        std::uint32_t v = ~std::uint32_t{0};
        for (std::uint32_t k = 0; k < runs; ++k) v = std::min(v, found_alone[i * runs + k].writers);
        return v;
    };
    const auto spread_max = [&](std::size_t i) {
        std::uint32_t v = 0;
        for (std::uint32_t k = 0; k < runs; ++k) v = std::max(v, found_alone[i * runs + k].writers);
        return v;
    };
    table t({"latency", "policy", "rate_mib_s", "hosts", "drives_per_host", "max_pauses_per_run", "vm_quantile",
             "max_writers", "pauses_p99_at_max", "latency_p99_s_at_max", "spm_utilization_at_max", "write", "runs",
             "workload", "max_writers_min", "max_writers_max"});
    for (std::size_t i = 0; i < searches.size(); ++i) {
        const max_writers_result& m = found[i];
        const bool any = m.writers > 0;
        t.add_row({cell::of_text(specs[i % profiles]), cell::of_text(searches[i].config.label),
                   cell::of_real(r->mib_per_second(), trace.empty() ? 0 : 6), cell::of(dcfg.hosts),
                   cell::of(dcfg.drives_per_host), cell::of(target->max_pauses_per_run),
                   cell::of_real(target->vm_quantile, 6), cell::of(m.writers),
                   any ? cell::of_real(m.at_max.pauses_p99, 6) : cell(),
                   any ? cell::of_seconds(m.at_max.latency_p99, 4) : cell(),
                   any ? cell::of_real(m.at_max.spm_utilization, 4) : cell(), cell::of_size(write), cell::of(runs),
                   cell::of_text(shape), runs > 1 ? cell::of(spread_min(i)) : cell(),
                   runs > 1 ? cell::of(spread_max(i)) : cell()});
    }
    if (f == format::svg) {
        // The counts the plot adds to those the searches visited, every domain run of every one a task.
        std::vector<std::pair<std::size_t, std::uint32_t>> more;
        for (std::size_t i = 0; i < searches.size(); ++i)
            for (std::uint32_t n : plot_counts(found[i].writers, dcfg.drives()))
                if (searches[i].seen.count(n) == 0) more.push_back({i, n});
        std::optional<domain_plan_accumulator> acc;
        ordered_parallel(
            more.size() * runs, jobs, domain_window(dcfg, jobs),
            [&](std::uint64_t task) {
                const auto& [i, n] = more[task / runs];
                return searches[i].run(n, static_cast<std::uint32_t>(task % runs));
            },
            [&](std::uint64_t task, domain_result&& one) {
                const auto& [i, n] = more[task / runs];
                if (task % runs == 0) acc.emplace(searches[i].accumulator(n));
                acc->add(one);
                if (task % runs == runs - 1) searches[i].keep(n, *acc);
            },
            [](std::uint64_t, std::uint64_t) {});
        std::vector<capacity_series> series;
        for (std::size_t i = 0; i < searches.size(); ++i) {
            // One configuration: the profile names the series; one profile: the configuration; else both.
            const std::string label = configs.size() == 1 ? specs[i % profiles]
                                      : profiles == 1     ? searches[i].config.label
                                                          : searches[i].config.label + ", " + specs[i % profiles];
            capacity_series c{label, found[i].writers, {}, {}, {}};
            for (const auto& [n, fig] : searches[i].seen) {
                c.writers.push_back(n);
                c.p50.push_back(fig.plan.vms.pauses_p50);
                c.p99.push_back(fig.plan.vms.pauses_p99);
            }
            series.push_back(std::move(c));
        }
        const std::string subtitle =
            std::to_string(dcfg.hosts) + " hosts x " + std::to_string(dcfg.drives_per_host) + " drives, " +
            std::string(format_rate(*r).view()) + " each, " + std::string(format_size(write).view()) + " written, " +
            (configs.size() == 1 ? configs[0].label + ", " : std::string()) +
            (profiles == 1 && configs.size() > 1 ? specs[0] + ", " : std::string()) + std::to_string(runs) +
            (runs == 1 ? " run" : " runs") + " per count, seed " + std::to_string(seed);
        const std::string svg = svg_capacity_plot(series, target->max_pauses_per_run, target->vm_quantile,
                                                  "pauses per VM against concurrent writers", subtitle);
        std::fwrite(svg.data(), 1, svg.size(), stdout);
        return 0;
    }
    const std::string out = t.str(f);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

}  // namespace provpol::cli
