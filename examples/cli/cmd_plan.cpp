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
#include "text_output.hpp"
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
                                const char* option, seconds monitor) {
    std::vector<workload> out;
    for (rate r : rates) {
        const auto w = workload::make(write(r), r, capacity(r), monitor);
        if (!w)
            fail(w.error(), w.error().setting() == text_view("capacity") ? "--capacity" : option, "write_size", option);
        out.push_back(*w);
    }
    return out;
}

// What --format svg plots (--svg-metric).
enum class svg_metric { pause_probability, pauses };

// The options of one plan, read and checked before anything is simulated.
struct plan_request {
    format f = format::text;
    svg_metric metric = svg_metric::pause_probability;
    std::vector<plan_config> configs;
    std::vector<trace_point> trace;  // --trace: every writer follows it (with --hosts)
    std::vector<rate> rates;         // a trace: its mean rate alone
    std::optional<latency_model> latency_given;
    std::string latency_text;  // the latency's name (--latency as given), for the text's first line and the plot
    seconds monitor{2.0};      // the host's periodic monitor (--config's vm_watermark_interval)
    milliseconds budget{0};    // the rate-aware policies' latency budget
    write_amount amount;       // --write or --duration
    std::optional<bytes> capacity_given;
    std::uint64_t runs = 1000, seed = 1, max_events = default_max_events;
    unsigned jobs = 1;
    bool per_run = false;
    bool domain = false;  // --hosts: a storage domain
    domain_config dcfg;
    std::uint32_t writers = 0;
    seconds stagger{0.0};
    burst_times burst;
    bool mix = false;
    domain_writing writing;  // the writers' workload but for its rate (a trace: all of it)

    [[nodiscard]] const latency_model& latency() const { return *latency_given; }
    // What a writer writes at rate r (--write, or r x --duration; a trace: its last point), on a disk of --capacity
    // or twice that.
    [[nodiscard]] bytes write(rate r) const { return trace.empty() ? amount.at(r) : trace.back().written; }
    [[nodiscard]] bytes capacity(rate r) const { return capacity_given.value_or(saturating_mul(write(r), 2)); }
    [[nodiscard]] std::string written_text() const {
        return trace.empty() ? amount.text() : std::string(format_size(trace.back().written).view()) + " written";
    }
    // What the writers do at rate r (the trace: its own rates).
    [[nodiscard]] domain_writing writing_at(rate r) const {
        if (!trace.empty()) return writing;
        const auto w = workload::make(write(r), r, capacity(r), monitor);
        if (!w)
            fail(w.error(), w.error().setting() == text_view("capacity") ? "--capacity" : amount.option(), "write_size",
                 amount.option());
        const auto d = drive_workload::make(*w, seconds(0), burst.on, burst.off);
        if (!d) fail(d.error(), "--burst");
        domain_writing out = writing;
        out.writer = *d;
        return out;
    }
};

// No option is ignored: one that does not apply to what was asked is an error.
void check_applies(const args& a, const plan_request& q) {
    if (a.has("--svg-metric") && q.f != format::svg) throw usage_error("--svg-metric applies to --format svg");
    if (a.has("--preset") && (a.has("--chunk") || a.has("--percent")))
        throw usage_error("give --preset or --chunk with --percent, not both");
}

svg_metric metric_option(const args& a) {
    const std::string metric = a.value("--svg-metric").value_or("pause-probability");
    if (metric == "pause-probability") return svg_metric::pause_probability;
    if (metric == "pauses") return svg_metric::pauses;
    throw usage_error("--svg-metric: unknown value '" + args::printable(metric) +
                      "': expected pause-probability or pauses");
}

// The options that apply to rate-aware configurations or to a domain alone.
void check_rate_aware_and_domain(const args& a, const plan_request& q) {
    bool any_rate_aware = false;
    for (const plan_config& c : q.configs) any_rate_aware = any_rate_aware || c.rate_aware;
    for (const char* o : {"--budget", "--budget-quantile"})
        if (a.has(o) && !any_rate_aware) throw usage_error(std::string(o) + " applies to --policy rate-aware");
    for (const char* o : {"--stagger", "--burst", "--trace", "--mix"})
        if (a.has(o) && !q.domain)
            throw usage_error(std::string(o) + " applies to a storage domain: give --hosts and --drives-per-host");
}

// --hosts, --drives-per-host and --writers.
void read_domain(const args& a, plan_request& q) {
    // --drives-per-host first: the order GCC evaluated the two when they were arguments of one call, so that with
    // both out of range the error is the one it always was.
    const auto per_host = *a.count("--drives-per-host", 1, 10000);
    const auto hosts = *a.count("--hosts", 1, 10000);
    const auto d =
        domain_config::make(static_cast<std::uint32_t>(hosts), static_cast<std::uint32_t>(per_host), seconds(1e8));
    if (!d && std::string(d.error().message().view()).rfind("drives ", 0) == 0)  // the limit on their product
        throw usage_error("--hosts x --drives-per-host: at most 1000000 drives, got " +
                          std::to_string(hosts * per_host));
    if (!d) fail(d.error(), "--drives-per-host");
    q.dcfg = *d;
    q.writers = static_cast<std::uint32_t>(a.count("--writers", 1, q.dcfg.drives()).value_or(q.dcfg.drives()));
    if (!q.latency().is_flow())
        throw usage_error(std::string("--hosts needs a --latency with the mailbox's clocks: ") + mailbox_latency_names);
}

// The writers' workload (domain_writing, plan.hpp): a constant rate, bursts or the trace, staggered or not.
void read_writing(const args& a, plan_request& q) {
    q.stagger = a.time("--stagger", seconds(0.0), seconds(max_workload_seconds)).value_or(seconds(0.0));
    if (q.writers > 1 && static_cast<double>(q.writers - 1) * q.stagger.count() > max_workload_seconds)
        throw usage_error("--stagger " + *a.value("--stagger") + " starts the last of " + std::to_string(q.writers) +
                          " writers after 10000000 s: at most " +
                          std::to_string(max_workload_seconds / static_cast<double>(q.writers - 1)).substr(0, 12) +
                          " with this many");
    q.burst = burst_option(a);
    q.mix = a.has("--mix");
    if (q.mix && q.configs.size() < 2)
        throw usage_error("--mix needs at least two configurations (--policy or --preset given twice)");
    q.writing.writers = q.writers;
    q.writing.stagger = q.stagger;
    if (!q.trace.empty()) {
        const auto t = drive_workload::make_trace(q.trace.data(), q.trace.size(), q.capacity(rate(1)));
        if (!t) fail(t.error(), t.error().setting() == text_view("capacity") ? "--capacity" : "--trace");
        q.writing.writer = *t;
        q.rates = {t->base.write_rate};  // the trace's mean rate, for the rate column and the work estimate
    }
}

// Bounded work: the events of every run estimated before simulating. Bursts write a share on / (on + off) of the
// time; a staggered start adds every drive's ticks until the last writer starts; a trace, an event per point.
void check_plan_work(const plan_request& q) {
    const double drives_per_run = q.domain ? static_cast<double>(q.dcfg.drives()) : 1.0;
    const seconds period = q.latency().detection_period();
    const double duty = q.burst.on > seconds(0) ? q.burst.on.count() / (q.burst.on.count() + q.burst.off.count()) : 1.0;
    const double wait = q.writers > 1 ? static_cast<double>(q.writers - 1) * q.stagger.count() : 0.0;
    const double tick = period > seconds(0) ? period.count() : 2.0;
    double events = 0.0;
    for (const plan_config& c : q.configs)
        for (rate r : q.rates) {
            const double slow = static_cast<double>(r.bytes_per_second()) * duty;
            events += static_cast<double>(q.runs) * drives_per_run *
                      (events_per_run(q.write(r), rate(slow < 1.0 ? 1 : static_cast<std::uint64_t>(slow)),
                                      c.config.chunk(), period) +
                       wait / tick + static_cast<double>(q.trace.size()));
        }
    const rate slowest = *std::min_element(q.rates.begin(), q.rates.end(),
                                           [](rate x, rate y) { return x.bytes_per_second() < y.bytes_per_second(); });
    check_work("plan", events, q.max_events,
               std::to_string(q.runs) + " runs x " + std::to_string(q.rates.size()) + " rates x " +
                   std::to_string(q.configs.size()) + " configurations, " + q.written_text() + ", the slowest rate " +
                   std::string(format_rate(slowest).view()));
}

plan_request read_plan_request(const args& a) {
    plan_request q;
    q.f = a.output_format({format::text, format::csv, format::json, format::svg});
    check_applies(a, q);
    q.metric = metric_option(a);
    const std::optional<config_reading> conf = config_files_option(a, "plan");
    q.configs = configs_option(a, conf);
    q.monitor = monitor_interval_of(conf);
    q.domain = a.has("--hosts") || a.has("--drives-per-host") || a.has("--writers");
    check_rate_aware_and_domain(a, q);
    q.trace = trace_option(a);
    q.rates = rates_option(a);
    named_latency l = vdsm_latency_option(a, conf ? conf->flow : std::nullopt);
    q.latency_given = std::move(l.model);
    q.latency_text = std::move(l.name);
    q.budget = budget_option(a, q.latency());
    q.amount = write_option(a);
    q.capacity_given = a.size("--capacity");
    if (q.domain && (!a.has("--hosts") || !a.has("--drives-per-host")))
        throw usage_error("--hosts and --drives-per-host go together (and --writers needs them)");
    if (q.domain && a.has("--per-run")) throw usage_error("--per-run applies to single drives, not to --hosts");
    if (q.domain && q.f == format::svg) throw usage_error("--format svg plots single drives, not --hosts");
    q.runs = a.count("--runs", 1, 100000).value_or(q.domain ? 1 : 1000);
    q.seed = a.count("--seed", 0, ~std::uint64_t{0}).value_or(1);
    if (q.domain) read_domain(a, q);
    read_writing(a, q);
    q.max_events = a.count("--max-events", 1, ~std::uint64_t{0}).value_or(default_max_events);
    q.jobs = jobs_option(a);
    check_plan_work(q);
    q.per_run = a.has("--per-run");
    if (q.per_run && q.f == format::svg) throw usage_error("--per-run prints rows, not a plot: use text, csv or json");
    return q;
}

// The text's first line: the latency the plan ran with ("# latency vdsm-immediate: mean ..."); nothing in CSV,
// JSON and SVG (the plot's title names it).
std::string latency_line(const plan_request& q) {
    if (q.f != format::text) return "";
    return "# latency " + q.latency_text + ": " + describe(q.latency()) + "\n";
}

// --- a storage domain (--hosts) ------------------------------------------------------------------------------

// Every domain run is a task, computed on `jobs` threads and added up in task order (parallel.hpp). Without --mix:
// task k + runs x (rate + rates x configuration), each configuration's domain on its own; with --mix: task k + runs
// x rate, the configurations in one domain, their writers in as many groups. The results by configuration, then
// rate, whichever way the domains ran.
std::vector<std::vector<domain_plan_result>> run_domain_plans(const plan_request& q, progress& bar) {
    const std::vector<plan_config>& configs = q.configs;
    const std::size_t rates = q.rates.size();
    const std::uint64_t runs = q.runs;
    const std::size_t per_domain = q.mix ? configs.size() : 1;
    const std::uint64_t series = q.mix ? rates : configs.size() * rates;
    std::vector<domain_writing> writing_by_rate;
    for (rate r : q.rates) writing_by_rate.push_back(q.writing_at(r));
    std::vector<plan_agent_type> agents;
    if (q.mix)
        for (const plan_config& c : configs) agents.push_back(plan_agent(c, q.budget));
    std::vector<std::vector<domain_plan_result>> results(configs.size(), std::vector<domain_plan_result>(rates));
    std::optional<domain_plan_accumulator> acc;
    ordered_parallel(
        series * runs, q.jobs, domain_window(q.dcfg, q.jobs),
        [&](std::uint64_t task) {
            const std::uint64_t pair = task / runs;
            const auto k = static_cast<std::uint32_t>(task % runs);
            if (q.mix) return simulate_domain_mix_run(agents, q.latency(), writing_by_rate[pair], q.dcfg, k, q.seed);
            return simulate_domain_config_run(configs[pair / rates], q.budget, q.latency(),
                                              writing_by_rate[pair % rates], q.dcfg, k, q.seed);
        },
        [&](std::uint64_t task, domain_result&& one) {
            if (task % runs == 0) acc.emplace(q.dcfg, q.writers, static_cast<std::uint32_t>(runs), per_domain);
            acc->add(one);
            if (task % runs != runs - 1) return;
            const std::uint64_t pair = task / runs;
            if (q.mix)
                for (std::size_t c = 0; c < configs.size(); ++c) results[c][pair] = acc->result(c);
            else
                results[pair / rates][pair % rates] = acc->result();
        },
        [&](std::uint64_t done, std::uint64_t total) { bar.update(done, total); });
    return results;
}

// The writers' per-VM columns and the domain's shared figures, a row per configuration and rate.
cli::table domain_table(const plan_request& q, const std::vector<std::vector<domain_plan_result>>& results) {
    cli::table d({"rate_mib_s",
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
    for (std::size_t ci = 0; ci < q.configs.size(); ++ci)
        for (std::size_t ri = 0; ri < q.rates.size(); ++ri) {
            const plan_config& c = q.configs[ci];
            const rate r = q.rates[ri];
            const domain_plan_result& x = results[ci][ri];
            const simulation_summary& s = x.vms;
            d.add_row(
                {q.trace.empty() ? cell::of_rate_mib(r) : cell::of_real(r.mib_per_second(), 6),  // a trace: its mean
                 cell::of_real(s.extends, 6),
                 cell::of_real(s.pauses, 6),
                 cell::of_real(s.pause_probability, 4),
                 cell::of_text(c.label),
                 cell::of(c.config.chunk_mb()),
                 cell::of(c.config.percent()),
                 cell::of(q.dcfg.hosts),
                 cell::of(q.dcfg.drives_per_host),
                 cell::of(q.writers),
                 cell::of_real(s.pauses_p50, 6),
                 cell::of_real(s.pauses_p90, 6),
                 cell::of_real(s.pauses_p99, 6),
                 cell::of_real(s.runs_mostly_paused, 4),
                 cell::of_seconds(x.latency_p50, 4),
                 cell::of_seconds(x.latency_p99, 4),
                 cell::of_real(x.spm_utilization, 4),
                 cell::of_real(x.queue_p99, 6),
                 cell::of(q.runs),
                 cell::of_size(q.write(r)),
                 c.rate_aware ? cell::of_real(in_seconds(q.budget), 6) : cell(),
                 cell::of_real(s.resent, 6)});
        }
    return d;
}

// --- single drives ---------------------------------------------------------------------------------------------

// One run of a configuration at a rate (--per-run's row).
struct plan_run {
    std::size_t config = 0, rate = 0;
    std::uint64_t run = 0;
    run_result result;
};

// Single drives' answer: per configuration and rate, the runs' summary; with --per-run, every run.
struct plan_answer {
    std::vector<std::vector<simulation_summary>> summaries;  // [configuration][rate]
    std::vector<plan_run> runs;
};

// Every run of every configuration and rate is a task (i + runs x (rate + rates x configuration)), computed on
// `jobs` threads and added up in task order (parallel.hpp), as one thread adds them.
plan_answer run_plans(const plan_request& q, progress& bar) {
    const auto capacity = [&](rate r) { return q.capacity(r); };
    const std::vector<workload> loads =
        workloads([&](rate r) { return q.write(r); }, q.rates, capacity, q.amount.option(), q.monitor);
    const std::size_t rates = q.rates.size();
    const std::uint64_t runs = q.runs;
    plan_answer out;
    out.summaries.resize(q.configs.size());
    run_accumulator acc;
    ordered_parallel(
        q.configs.size() * rates * runs, q.jobs, std::uint64_t{1} << 16,
        [&](std::uint64_t task) {
            const std::uint64_t pair = task / runs;
            return simulate_config_run(q.configs[pair / rates], q.budget, q.latency(), loads[pair % rates], q.seed,
                                       static_cast<std::uint32_t>(task % runs));
        },
        [&](std::uint64_t task, const run_result& x) {
            const std::uint64_t pair = task / runs, i = task % runs;
            if (i == 0) acc = run_accumulator();
            acc.add(x);
            if (q.per_run) out.runs.push_back({pair / rates, pair % rates, i, x});
            if (i == runs - 1) out.summaries[pair / rates].push_back(acc.summary());
        },
        [&](std::uint64_t done, std::uint64_t total) { bar.update(done, total); });
    return out;
}

cell budget_cell(const plan_request& q, const plan_config& c) {
    return c.rate_aware ? cell::of_real(in_seconds(q.budget), 6) : cell();
}

// A row per configuration and rate: the runs' summary, the limit, and the per-extend model of flow/risk.hpp (for
// the rate-aware policy: its limit at this rate, known exactly).
cli::table summary_table(const plan_request& q, const plan_answer& x) {
    cli::table t({"rate_mib_s",
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
    for (std::size_t ci = 0; ci < q.configs.size(); ++ci)
        for (std::size_t ri = 0; ri < q.rates.size(); ++ri) {
            const plan_config& c = q.configs[ci];
            const rate r = q.rates[ri];
            const simulation_summary& s = x.summaries[ci][ri];
            bytes limit = c.config.limit(false);
            if (c.rate_aware) limit = max(limit, bytes_written_in(r, q.budget));
            t.add_row({cell::of_rate_mib(r),
                       cell::of_real(s.extends, 6),
                       cell::of_real(s.pauses, 6),
                       cell::of_real(s.pause_probability, 4),
                       cell::of_text(c.label),
                       cell::of(c.config.chunk_mb()),
                       cell::of(c.config.percent()),
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
                       cell::of_real(pause_probability(limit, r, q.latency()), 4),
                       cell::of(q.runs),
                       cell::of_size(q.write(r)),
                       cell::of_seconds(q.latency().mean(), 4),
                       budget_cell(q, c),
                       cell::of_real(s.resent, 6)});
        }
    return t;
}

// --per-run: a row per run (a VM).
cli::table runs_table(const plan_request& q, const plan_answer& x) {
    cli::table each({"rate_mib_s", "run", "extends", "pauses", "pause_seconds", "policy", "chunk_mb", "percent",
                     "budget_s", "resent"});
    for (const plan_run& p : x.runs) {
        const plan_config& c = q.configs[p.config];
        const run_result& r = p.result;
        each.add_row({cell::of_rate_mib(q.rates[p.rate]), cell::of(p.run), cell::of(r.extends), cell::of(r.pauses),
                      cell::of_seconds(r.pause_seconds, 6), cell::of_text(c.label), cell::of(c.config.chunk_mb()),
                      cell::of(c.config.percent()), budget_cell(q, c), cell::of(r.resent)});
    }
    return each;
}

// --format svg: the pause probability (or pauses) against the rate, a series per configuration.
std::string plan_svg(const plan_request& q, const plan_answer& x) {
    const bool pauses = q.metric == svg_metric::pauses;
    const std::string title = std::string(pauses ? "pauses per run" : "pause probability per extend") + ", " +
                              q.written_text() + ", " + q.latency_text + " latency, " + std::to_string(q.runs) +
                              " runs";
    std::vector<std::string> labels;
    for (const plan_config& c : q.configs) labels.push_back(c.label);
    return svg_plot(labels, q.rates, x.summaries, title, pauses);
}

void print(const std::string& out) { std::fwrite(out.data(), 1, out.size(), stdout); }

// The command's options: its usage and its table (args, common/cli.hpp).
// long: the command's option table, one entry per option (its help is the man page's)
args plan_args(int argc, char** argv) {
    return args(
        "plan",
        "provpol plan [--policy static|rate-aware|rate-aware-adaptive ...]\n"
        "                    [--preset vdsm-2022|vdsm-legacy ... | --chunk SIZE --percent N | --config FILE|DIR ...]\n"
        "                    [--latency LIST] [--budget SECONDS | --budget-quantile Q] [--rate LIST]\n"
        "                    [--write SIZE | --duration TIME] [--capacity SIZE] [--runs N] [--seed N] [--per-run]\n"
        "                    [--format text|csv|json|svg] [--svg-metric M]\n"
        "                    [--hosts H --drives-per-host D [--writers N] [--stagger SECONDS] [--burst ON,OFF | "
        "--trace FILE] [--mix]]\n"
        "                    [--jobs N] [--columns LIST]\n"
        "       provpol plan --preset lvm-thin-autoextend --pool-size SIZE ...   (an LVM thin pool under dmeventd: "
        "provpol plan --preset lvm-thin-autoextend --help)\n"
        "       provpol plan --preset stratis-data --pool-size SIZE --backstore-free SIZE ...   (a Stratis pool: "
        "provpol plan --preset stratis-data --help)\n\n"
        "Columns (text: those marked *; --columns all or a list for others; CSV and JSON: every one; sizes in one\n"
        "unit per column in text, bytes in CSV and JSON). One drive, a row per configuration and rate, over --runs:\n"
        "  rate_mib_s*, policy*, chunk_mb*, percent*   the rate (MiB/s) and the configuration\n"
        "  extends*, pauses*                 extends and pauses per run, on average\n"
        "  pause_probability                 the share of extends that paused\n"
        "  pauses_p50, pauses_p90, pauses_p99*, max_pauses   pauses per run (a VM): percentiles over the runs, most\n"
        "  runs_with_pause, runs_mostly_paused   the share of runs with a pause, with more pauses than extends half\n"
        "  pause_seconds                     seconds paused per run, on average\n"
        "  limit, initial_size, unwritten_end*   the free-space limit, a new disk's size, allocated but unwritten at\n"
        "                                    the end (on average)\n"
        "  model_pause_probability           flow/risk.hpp's per-extend model at this rate\n"
        "  runs, write, latency_mean_s, budget_s, resent   what it rests on; resent: requests re-sent per run\n"
        "With --hosts, a row per configuration and rate over the domain's writers:\n"
        "  rate_mib_s*, policy*, writers*, hosts, drives_per_host, chunk_mb, percent   the question\n"
        "  pauses_p50*, pauses_p90, pauses_p99*, runs_mostly_paused   pauses per writing VM\n"
        "  latency_p50_s, latency_p99_s*, spm_utilization*, queue_p99   the extends' latency, the SPM's busy share\n"
        "                                    and its queue",
        {{"--policy", "NAME", policy_help, true},
         {"--preset", "NAME", preset_help, true},
         {"--chunk", "SIZE", "a custom volume_utilization_chunk_mb, as a size (whole MiB)"},
         {"--percent", "N", "a custom volume_utilization_percent, 0-99"},
         {"--config", "FILE|DIR",
          "the VDSM configuration: vdsm.conf, a vdsm.conf.d drop-in, or a directory read as vdsmd reads /etc/vdsm "
          "(vdsm.conf, then the vdsm.conf.d drop-ins in VDSM's order); given once or more, in layers as configparser "
          "reads them (a later file wins, VDSM 4.50's default for a key no file sets, what configparser refuses "
          "refused); stderr says where each value came from and names a key VDSM does not have. Its [mailbox] and "
          "[thinp] settings give the latency when --latency is not given. Or provpol recommend's answer in any "
          "--format (- for stdin)",
          true},
         {"--latency", "LIST",
          latency_spec_names +
              " (default vdsm-immediate, or the flow --config's [mailbox] and [thinp] settings give: what VDSM 4.50 "
              "runs, mailbox events and the extend on the block-threshold event; the text's first line names it); a "
              "comma-separated list plans each, with a latency column",
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
         {"--columns", "LIST", columns_help},
         {"--format", "FORMAT", "text (default), csv, json or svg"},
         {"--svg-metric", "METRIC",
          "what --format svg plots: pause-probability (per extend) or pauses (per run) (with --format "
          "svg, default pause-probability)"}},
        argc, argv);
}

}  // namespace

int run_plan(int argc, char** argv) {
    if (is_stratis_invocation(argc, argv)) return run_plan_stratis(argc, argv);
    // A list of latency profiles: one plan per profile, joined with a latency column (per_value.hpp).
    if (!is_lvm_invocation(argc, argv))
        if (const auto v = values_in(argc, argv, {"--latency"}, split_specs); v.size() > 1)
            return run_per_value(argc, argv, {"--latency"}, v, "latency", run_plan);
    if (is_lvm_invocation(argc, argv)) return run_plan_lvm(argc, argv);
    const args a = plan_args(argc, argv);
    const plan_request q = read_plan_request(a);
    progress bar("plan");
    if (q.domain) {
        cli::table t = domain_table(q, run_domain_plans(q, bar));
        text_columns_of(
            a, t, {"rate_mib_s", "policy", "writers", "pauses_p50", "pauses_p99", "latency_p99_s", "spm_utilization"});
        print(latency_line(q) + t.str(q.f));
        return 0;
    }
    const plan_answer x = run_plans(q, bar);
    if (q.f == format::svg) {
        print(plan_svg(q, x));
    } else if (q.per_run) {
        cli::table t = runs_table(q, x);
        text_columns_of(a, t, t.columns());
        print(latency_line(q) + t.str(q.f));
    } else {
        cli::table t = summary_table(q, x);
        t.one_size_unit_per_column();
        text_columns_of(
            a, t, {"rate_mib_s", "policy", "chunk_mb", "percent", "extends", "pauses", "pauses_p99", "unwritten_end"});
        print(latency_line(q) + t.str(q.f));
    }
    return 0;
}

}  // namespace provpol::cli
