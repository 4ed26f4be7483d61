// provpol capacity: how many concurrent writers a storage domain holds under a per-VM pause target, one row per
// latency profile and configuration: N such that every writer count from 1 to N meets the target at each of 4 seeds
// and N + 1 does not at one of them (domain/capacity.hpp's max_writers_seeds: the conservative end of the seeds'
// answers, whose spread is printed), each count on enough domain runs for 200 writing VMs (writers_runs) unless
// --runs fixes them. The options are read once into a
// request; the searches run on --jobs threads; the rows or the plot are printed.
#include "budget.hpp"
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
#include "text_output.hpp"
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
    bool met = false;               ///< check_writers' met (target_count)
};

/// check_writers' `met`, from the same domain runs added in the same order: each writing VM's pauses in the library's
/// per_vm_tally (the pauses' quantile cannot decide it: above run_accumulator's histogram, 1023 pauses, it is the
/// largest count, so a target of thousands of pauses that enough VMs meet read as missed).
class target_count {
public:
    target_count(const domain_config& cfg, std::uint32_t writers, per_vm_target target)
        : cfg_(cfg), writers_(writers), tally_(target) {}
    void add(const domain_result& r) {
        for (std::uint32_t d = 0; d < r.drives(); ++d)
            if (cfg_.is_writer(d, writers_)) tally_.add(r.drive(d).run.pauses);
    }
    [[nodiscard]] bool met() const { return tally_.met(); }

private:
    domain_config cfg_;
    std::uint32_t writers_;
    per_vm_tally tally_;
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
    writers_runs runs;  ///< the domain runs of each count
    std::uint64_t seed;
    work_budget* work = nullptr;
    double events_per_domain_run = 0.0;  ///< what work is charged per domain run of a count
    std::map<std::uint32_t, count_figures> seen;

    /// A fresh accumulator for `writers` and the task that computes domain run k of it.
    [[nodiscard]] domain_plan_accumulator accumulator(std::uint32_t writers) const {
        return {cfg, writers, runs.at(writers)};
    }
    [[nodiscard]] domain_result run(std::uint32_t writers, std::uint32_t k) const {
        domain_writing at = w;
        at.writers = writers;
        return simulate_domain_config_run(config, budget, latency, at, cfg, k, seed);
    }
    [[nodiscard]] target_count counter(std::uint32_t writers) const { return {cfg, writers, target}; }
    void keep(std::uint32_t writers, const domain_plan_accumulator& acc, const target_count& count) {
        seen[writers] = count_figures{acc.result(), acc.vms().pauses_quantile(target.vm_quantile), count.met()};
    }

    /// check_writers' figures at `writers` (domain.hpp), from the same runs added up in the same order.
    writers_check check(std::uint32_t writers, unsigned jobs) {
        if (seen.count(writers) == 0) {
            if (work != nullptr) work->spend_or_throw(events_per_domain_run * runs.at(writers));
            domain_plan_accumulator acc = accumulator(writers);
            target_count count = counter(writers);
            ordered_parallel(
                runs.at(writers), jobs, domain_window(cfg, jobs),
                [&](std::uint64_t k) { return run(writers, static_cast<std::uint32_t>(k)); },
                [&](std::uint64_t, domain_result&& one) {
                    acc.add(one);
                    count.add(one);
                },
                [](std::uint64_t, std::uint64_t) {});
            keep(writers, acc, count);
        }
        const count_figures& f = seen.at(writers);
        writers_check c;
        c.writers = writers;
        c.pauses_at_quantile = f.at_quantile;
        c.met = f.met;
        c.pauses_p99 = f.plan.vms.pauses_p99;
        c.latency_p99 = f.plan.latency_p99;
        c.spm_utilization = f.plan.spm_utilization;
        return c;
    }
    /// search_max_writers: every count from 1 to the answer meets the target, one more does not.
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

/// The seeds every count is checked at: --seed and the next three. The answer is the smallest of their answers, and
/// their spread is printed.
constexpr std::uint32_t capacity_seeds = 4;

/// The writing VMs each count rests on by default (ceil(vms / writers) domain runs), as recommend --hosts.
constexpr std::uint32_t default_count_vms = 200;

/// What capacity was asked: the options, read and checked once.
struct capacity_request {
    format f = format::text;
    std::vector<plan_config> configs;
    std::vector<std::string> specs;
    seconds monitor{2.0};  ///< the host's periodic monitor (--config's vm_watermark_interval)
    std::vector<latency_model> latencies;
    std::vector<trace_point> trace;
    rate r{};
    per_vm_target target;
    domain_config dcfg;
    bytes write;
    std::string rate_shown;  ///< the rate in prose: --rate as typed, or the trace's mean
    domain_writing writing;
    std::string shape;
    writers_runs runs{0, default_count_vms};  ///< --runs fixes them; else enough for 200 writing VMs a count
    std::uint64_t seed = 1;
    std::uint64_t max_events = default_max_events;
    unsigned jobs = 1;
};

// --latency LIST: the profiles, each a flow with the mailbox's clocks; without it, the flow --config's VDSM files
// give, or VDSM 4.50's (vdsm_latency_option).
void read_latencies(const args& a, capacity_request& q, const std::optional<config_reading>& conf) {
    q.specs = spec_list(a, "--latency");
    if (a.has("--latency") && q.specs.empty()) throw usage_error("--latency: needs at least one profile");
    if (q.specs.empty()) {
        named_latency l = vdsm_latency_option(a, conf ? conf->flow : std::nullopt);
        q.specs = {l.name};
        q.latencies.push_back(std::move(l.model));
        return;
    }
    if (conf && conf->flow && conf->flow->set_by_file)
        warn(
            "provpol capacity: --latency: the extend flow --config's [mailbox] and [thinp] settings give is not "
            "used");
    if (q.specs.size() > 100) throw usage_error("--latency: at most 100 profiles");
    for (const std::string& s : q.specs) {
        q.latencies.push_back(latency_spec(s, "--latency", "capacity"));
        if (!q.latencies.back().is_flow())
            throw usage_error("--latency: " + args::printable(s) + " has no mailbox clocks: a domain needs " +
                              mailbox_latency_names);
    }
}

// The writers' workload, as plan --hosts has it: a constant rate, bursts or the trace, staggered or not.
void read_writing(const args& a, capacity_request& q, std::optional<rate> r) {
    const write_amount amount = write_option(a);  // --write, or the rate x --duration
    q.write = q.trace.empty() ? amount.at(*r) : q.trace.back().written;
    const bytes capacity = a.size("--capacity").value_or(saturating_mul(q.write, 2));
    const seconds stagger = a.time("--stagger", seconds(0.0), seconds(max_workload_seconds)).value_or(seconds(0.0));
    if (q.dcfg.drives() > 1 && static_cast<double>(q.dcfg.drives() - 1) * stagger.count() > max_workload_seconds)
        throw usage_error("--stagger " + *a.value("--stagger") + " would start the last of " +
                          std::to_string(q.dcfg.drives()) + " writers after 10000000 s");
    const burst_times burst = burst_option(a);
    q.writing.stagger = stagger;
    if (!q.trace.empty()) {
        const auto t = drive_workload::make_trace(q.trace.data(), q.trace.size(), capacity);
        if (!t) fail(t.error(), t.error().setting() == text_view("capacity") ? "--capacity" : "--trace");
        q.writing.writer = *t;
        r = t->base.write_rate;  // the trace's mean rate, for the rate column and the work estimate
        q.shape = "trace " + args::printable(*a.value("--trace"));
    } else {
        const auto w = workload::make(q.write, *r, capacity, q.monitor);
        if (!w)
            fail(w.error(), w.error().setting() == text_view("capacity") ? "--capacity" : amount.option(), "write_size",
                 amount.option());
        const auto dw = drive_workload::make(*w, seconds(0), burst.on, burst.off);
        if (!dw) fail(dw.error(), "--burst");
        q.writing.writer = *dw;
        q.shape = burst.on > seconds(0)
                      ? "bursts " + decimal_text(burst.on, 6) + " s on, " + decimal_text(burst.off, 6) + " s off"
                      : "constant";
    }
    q.r = *r;
    q.rate_shown = q.trace.empty() ? rate_text(*r, a.value("--rate")) : std::string(format_rate(*r).view());
    q.shape += stagger > seconds(0) ? ", writer i starts at i x " + decimal_text(stagger, 6) + " s"
                                    : ", every writer starts at once";
}

capacity_request read_capacity_request(const args& a) {
    capacity_request q;
    q.f = a.output_format({format::text, format::csv, format::json, format::svg});
    if (a.has("--preset") && (a.has("--chunk") || a.has("--percent")))
        throw usage_error("give --preset or --chunk/--percent, not both");
    const std::optional<config_reading> conf = config_files_option(a, "capacity");
    q.configs = configs_option(a, conf);
    q.monitor = monitor_interval_of(conf);
    if (q.configs.size() > 100) throw usage_error("--policy x --preset: at most 100 configurations");
    q.trace = trace_option(a);
    if (const auto v = a.value("--rate");
        v && (v->find('-') != std::string::npos || v->find("\xC2\xB1") != std::string::npos))
        throw usage_error("--rate: '" + args::printable(*v) +
                          "': capacity answers for a rate; give a list (400MiB/s,500MiB/s,600MiB/s), one row each "
                          "(a writer count holds across them when every row holds it)");
    const std::optional<rate> r = a.rate("--rate");
    if (!r && q.trace.empty()) throw usage_error("--rate is required (e.g. --rate 500MiB/s)");
    if (r && r->bytes_per_second() == 0) throw usage_error("--rate: a rate of 0 writes nothing");
    if (!a.has("--max-pauses-per-run")) throw usage_error("--max-pauses-per-run is required (e.g. 1)");
    const auto max_pauses = a.count("--max-pauses-per-run", 0, 1000000);
    const auto target = per_vm_target::make(static_cast<std::uint32_t>(*max_pauses),
                                            a.decimal("--vm-quantile", 0.0, 1.0).value_or(0.99));
    if (!target) fail(target.error(), "--vm-quantile");
    q.target = *target;
    if (!a.has("--hosts") || !a.has("--drives-per-host"))
        throw usage_error("--hosts and --drives-per-host are required (the storage domain's shape)");
    const auto d =
        domain_config::make(static_cast<std::uint32_t>(*a.count("--hosts", 1, 10000)),
                            static_cast<std::uint32_t>(*a.count("--drives-per-host", 1, 10000)), seconds(1e8));
    if (!d) fail(d.error(), "--drives-per-host");
    q.dcfg = *d;
    read_latencies(a, q, conf);
    read_writing(a, q, r);
    q.runs.fixed = static_cast<std::uint32_t>(a.count("--runs", 1, 100000).value_or(0));
    q.seed = a.count("--seed", 0, ~std::uint64_t{0}).value_or(1);
    q.max_events = a.count("--max-events", 1, ~std::uint64_t{0}).value_or(default_max_events);
    q.jobs = jobs_option(a);
    return q;
}

// "29 domain runs (ceil(200 / writers) a count)" or "3 domain runs".
std::string runs_words(const capacity_request& q) {
    if (q.runs.fixed != 0) return count_text(q.runs.fixed, "domain run");
    return "ceil(" + std::to_string(q.runs.vms) + " / writers) domain runs";
}

/// The searches of a request: one per configuration, profile and seed (search i x capacity_seeds + j: configuration
/// i / profiles, profile i % profiles, seed --seed + j), what each found, and each row's answer: the smallest of its
/// seeds' (every count up to it meets at every seed).
struct capacity_searches {
    std::vector<milliseconds> budgets;  ///< per profile: the rate-aware policy plans for its longest latency
    std::vector<profile_search> seeded;
    std::vector<max_writers_result> found_seed;
    std::vector<max_writers_result> found;  ///< per row
    [[nodiscard]] std::size_t rows() const { return seeded.size() / capacity_seeds; }
    [[nodiscard]] const profile_search& first(std::size_t row) const { return seeded[row * capacity_seeds]; }
};

/// One domain run of every drive at a configuration and profile, in events (events_per_run per drive).
double domain_run_events(const capacity_request& q, const plan_config& c, const latency_model& l) {
    return static_cast<double>(q.dcfg.drives()) * events_per_run(q.write, q.r, c.config.chunk(), l.detection_period());
}

void prepare_searches(const capacity_request& q, work_budget& work, capacity_searches& s) {
    for (const latency_model& l : q.latencies) {
        const milliseconds ms = std::max(latency_budget(l, 1.0), milliseconds(1));
        for (const plan_config& config : q.configs)
            if (config.rate_aware)
                if (const auto p = make_rate_aware_policy(config.config, ms); !p) fail(p.error(), "--latency");
        s.budgets.push_back(ms);
    }
    const std::size_t profiles = q.latencies.size();
    double first_counts = 0.0;  // every search's first count, checked before anything runs
    for (const plan_config& config : q.configs)
        for (std::size_t i = 0; i < profiles; ++i) {
            const double e = domain_run_events(q, config, q.latencies[i]);
            for (std::uint32_t j = 0; j < capacity_seeds; ++j) {
                first_counts += e * q.runs.at(1);
                s.seeded.push_back({config,
                                    s.budgets[i],
                                    q.latencies[i],
                                    q.writing,
                                    q.dcfg,
                                    q.target,
                                    q.runs,
                                    writers_nth_seed(q.seed, j),
                                    &work,
                                    e,
                                    {}});
            }
        }
    check_work("capacity", first_counts, q.max_events,
               "writer counts from 1 up, each " + runs_words(q) + " at " + std::to_string(capacity_seeds) +
                   " seeds, x " + std::to_string(profiles) + " latency profiles x " + std::to_string(q.configs.size()) +
                   " configurations of " + std::to_string(q.dcfg.drives()) + " drives writing " +
                   std::string(format_size(q.write).view()));
}

// On `jobs` threads: the searches side by side (one thread each) when there are at least as many as threads, else
// one after another with each count's domain runs side by side. The figures are the same either way. Each row's
// answer is the smallest of its seeds'.
void run_searches(const capacity_request& q, capacity_searches& s) {
    progress bar("capacity");
    s.found_seed.resize(s.seeded.size());
    const bool by_search = s.seeded.size() >= q.jobs;
    ordered_parallel(
        s.seeded.size(), by_search ? q.jobs : 1, s.seeded.size(),
        [&](std::uint64_t i) { return s.seeded[i].search(by_search ? 1 : q.jobs); },
        [&](std::uint64_t i, const max_writers_result& m) { s.found_seed[i] = m; },
        [&](std::uint64_t done, std::uint64_t total) { bar.update(done, total); });
    for (std::size_t row = 0; row < s.rows(); ++row) {
        std::size_t low = row * capacity_seeds;
        for (std::size_t j = low; j < (row + 1) * capacity_seeds; ++j)
            if (s.found_seed[j].writers < s.found_seed[low].writers) low = j;
        max_writers_result m = s.found_seed[low];
        // The figures at the answer: the first seed's (every seed's search checked every count up to it).
        if (m.writers > 0) m.at_max = s.seeded[row * capacity_seeds].check(m.writers, q.jobs);
        s.found.push_back(m);
    }
}

/// capacity's columns (CSV and JSON print them all) and those its text prints by default.
const std::vector<std::string>& capacity_columns() {
    static const std::vector<std::string> c = {"latency",
                                               "policy",
                                               "rate_mib_s",
                                               "hosts",
                                               "drives_per_host",
                                               "max_pauses_per_run",
                                               "vm_quantile",
                                               "max_writers",
                                               "pauses_p99_at_max",
                                               "latency_p99_s_at_max",
                                               "spm_utilization_at_max",
                                               "write",
                                               "runs",
                                               "workload",
                                               "max_writers_min",
                                               "max_writers_max",
                                               "seeds",
                                               "vms_per_count"};
    return c;
}
const std::vector<std::string>& capacity_text_columns() {
    static const std::vector<std::string> c = {"latency",     "policy",          "rate_mib_s",
                                               "max_writers", "max_writers_max", "pauses_p99_at_max"};
    return c;
}

table capacity_table(const capacity_request& q, const capacity_searches& s) {
    const std::size_t profiles = q.latencies.size();
    table t(capacity_columns());
    for (std::size_t i = 0; i < s.rows(); ++i) {
        const max_writers_result& m = s.found[i];
        const bool any = m.writers > 0;
        // Over the seeds, each alone: the answer is the smallest.
        std::uint32_t high = 0;
        for (std::uint32_t j = 0; j < capacity_seeds; ++j)
            high = std::max(high, s.found_seed[i * capacity_seeds + j].writers);
        t.add_row({cell::of_text(q.specs[i % profiles]), cell::of_text(s.first(i).config.label),
                   q.trace.empty() ? cell::of_rate_mib(q.r) : cell::of_real(q.r.mib_per_second(), 6),
                   cell::of(q.dcfg.hosts), cell::of(q.dcfg.drives_per_host), cell::of(q.target.max_pauses_per_run),
                   cell::of_real(q.target.vm_quantile, 6), cell::of(m.writers),
                   any ? cell::of_real(m.at_max.pauses_p99, 6) : cell(),
                   any ? cell::of_seconds(m.at_max.latency_p99, 4) : cell(),
                   any ? cell::of_real(m.at_max.spm_utilization, 4) : cell(), cell::of_size(q.write),
                   cell::of(q.runs.at(std::max(m.writers, 1u))), cell::of_text(q.shape), cell::of(m.writers),
                   cell::of(high), cell::of(capacity_seeds), q.runs.fixed == 0 ? cell::of(q.runs.vms) : cell()});
    }
    return t;
}

// What the text says under the table: what the answer rests on, and, for a row that holds no writer, why (one
// writer alone misses: the domain's SPM is not the cause, the configuration is).
std::string capacity_notes(const capacity_request& q, capacity_searches& s) {
    std::string out = "# max_writers: every writer count from 1 to it meets the target at each of seeds " +
                      std::to_string(q.seed) + " to " + std::to_string(writers_nth_seed(q.seed, capacity_seeds - 1)) +
                      ",\n#   on " + runs_words(q) +
                      " a count; max_writers_max: the largest of the seeds' own answers\n";
    const std::size_t profiles = q.latencies.size();
    for (std::size_t i = 0; i < s.rows(); ++i) {
        if (s.found[i].writers > 0) continue;
        std::size_t j = i * capacity_seeds;
        while (j + 1 < (i + 1) * capacity_seeds && s.found_seed[j].writers > 0) ++j;
        const writers_check one = s.seeded[j].check(1, q.jobs);
        out += "# " + s.first(i).config.label + ", " + q.specs[i % profiles] +
               ": the domain holds no writer: one writer alone pauses " + std::to_string(one.pauses_at_quantile) +
               " times at the " + decimal_text(q.target.vm_quantile, 6) + " quantile (seed " +
               std::to_string(s.seeded[j].seed) + "), above --max-pauses-per-run " +
               std::to_string(q.target.max_pauses_per_run) +
               ": no other writer is at the SPM, so the configuration is the cause (provpol recommend --rate " +
               q.rate_shown + " --max-pauses-per-run " + std::to_string(q.target.max_pauses_per_run) +
               " finds a chunk that meets it)\n";
    }
    return out;
}

/// The plot: the counts the first seed's search visited, and those plot_counts adds, every domain run of each a
/// task.
std::string capacity_svg(const capacity_request& q, capacity_searches& s) {
    const std::size_t profiles = q.latencies.size();
    std::vector<std::pair<std::size_t, std::uint32_t>> more;  // (search, count), the searches of the first seed
    for (std::size_t i = 0; i < s.rows(); ++i)
        for (std::uint32_t n : plot_counts(s.found[i].writers, q.dcfg.drives()))
            if (s.first(i).seen.count(n) == 0) more.push_back({i * capacity_seeds, n});
    for (const auto& [i, n] : more) s.seeded[i].check(n, q.jobs);
    std::vector<capacity_series> series;
    for (std::size_t i = 0; i < s.rows(); ++i) {
        // One configuration: the profile names the series; one profile: the configuration; else both.
        const std::string label = q.configs.size() == 1 ? q.specs[i % profiles]
                                  : profiles == 1       ? s.first(i).config.label
                                                        : s.first(i).config.label + ", " + q.specs[i % profiles];
        capacity_series c{label, s.found[i].writers, {}, {}, {}};
        for (const auto& [n, fig] : s.first(i).seen) {
            c.writers.push_back(n);
            c.p50.push_back(fig.plan.vms.pauses_p50);
            c.p99.push_back(fig.plan.vms.pauses_p99);
        }
        series.push_back(std::move(c));
    }
    const std::string subtitle = count_text(q.dcfg.hosts, "host") + " x " +
                                 count_text(q.dcfg.drives_per_host, "drive") + ", " + q.rate_shown + " each, " +
                                 std::string(format_size(q.write).view()) + " written, " +
                                 (q.configs.size() == 1 ? q.configs[0].label + ", " : std::string()) +
                                 (profiles == 1 && q.configs.size() > 1 ? q.specs[0] + ", " : std::string()) +
                                 runs_words(q) + " per count, seed " + std::to_string(q.seed);
    return svg_capacity_plot(series, q.target.max_pauses_per_run, q.target.vm_quantile,
                             "pauses per VM against concurrent writers", subtitle);
}

// The options and help of provpol capacity.
args capacity_args(int argc, char** argv) {
    return args(
        "capacity",
        "provpol capacity --rate LIST --max-pauses-per-run N --hosts H --drives-per-host D [--vm-quantile Q]\n"
        "                        [--policy static|rate-aware|rate-aware-adaptive ...] [--preset NAME ... | --chunk "
        "SIZE "
        "--percent N]\n"
        "                        [--config FILE|DIR ...] [--latency LIST] [--write SIZE | --duration TIME] [--capacity "
        "SIZE]\n"
        "                        [--stagger SECONDS] [--burst ON,OFF | --trace FILE] [--runs N] [--seed N]\n"
        "                        [--max-events N] [--jobs N] [--columns LIST] [--format text|csv|json|svg]\n\n"
        "The answer, max_writers N: every writer count from 1 to N meets the target at each of --seed and the next\n"
        "3 seeds; N + 1 misses at one of them (or N is every drive). Each count is checked on enough domain runs for\n"
        "200 writing VMs, ceil(200 / writers) (--runs fixes them), so that \"99% of VMs\" is not the worst of a few.\n"
        "Each count from 1 up is simulated until one misses: a count can miss between two that meet, so no count is\n"
        "skipped. N is the smallest of the seeds' own answers (max_writers_min), the largest is max_writers_max: how\n"
        "far the answer moves with the draws. recommend --hosts H --drives-per-host D --writers N answers the\n"
        "smallest chunk under which every count from 1 to N meets at the same seeds and runs: with it, capacity\n"
        "answers at least N. A domain that holds no writer exits with status 3 and says why.\n\n"
        "Columns (text: those marked *; --columns all or a list for others; CSV and JSON: every one):\n"
        "  latency*, policy*, rate_mib_s*     the row's latency profile, configuration and rate per writer (MiB/s)\n"
        "  max_writers*                       the answer N\n"
        "  max_writers_min, max_writers_max*  the smallest and largest of the seeds' own answers\n"
        "  pauses_p99_at_max*                 pauses per writing VM at N, 99th percentile (first seed)\n"
        "  latency_p99_s_at_max               the domain's extend latency at N, 99th percentile, seconds\n"
        "  spm_utilization_at_max*            the share of time the SPM was busy at N\n"
        "  hosts, drives_per_host, write, workload, max_pauses_per_run, vm_quantile   the question asked\n"
        "  runs, vms_per_count, seeds         the domain runs at N, the writing VMs a count rests on, the seeds",
        {{"--rate", "LIST", "each writer's write rate, e.g. 500MiB/s; a comma-separated list searches each", true,
          "--rates"},
         {"--max-pauses-per-run", "N",
          "per-VM target: at most this many pauses in --write, 0-1000000; the answer N is the writer count such "
          "that every count from 1 to N meets it and N + 1 does not"},
         {"--vm-quantile", "Q", "the share of writing VMs that must meet --max-pauses-per-run, (0, 1] (default 0.99)"},
         {"--hosts", "H", "the storage domain's hosts, 1-10000, sharing one SPM and its VG lock"},
         {"--drives-per-host", "D",
          "drives per host, 1-10000 (at most 1000000 drives); the writers are spread over "
          "the hosts in turn, the others idle"},
         {"--policy", "NAME", policy_help, true},
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
          "comma-separated latency profiles, one row each: " + latency_spec_names +
              " (default vdsm-immediate, or the flow --config's [mailbox] and [thinp] settings give: what VDSM 4.50 "
              "runs); a domain takes those with the mailbox's clocks: " +
              mailbox_latency_names,
          true},
         {"--write", "SIZE", "how much each writer writes (default 50GiB)"},
         {"--duration", "TIME", duration_help},
         {"--capacity", "SIZE", "each writer's virtual disk size (default twice --write)"},
         {"--stagger", "SECONDS",
          "writer i starts at i x SECONDS (default 0: every writer at once, a boot storm), as plan --hosts"},
         {"--burst", "ON,OFF",
          "every writer writes for ON, then idles for OFF, in turn: times such as 60,30 or 2s,10s (seconds "
          "when no unit is given)"},
         {"--trace", "FILE",
          "every writer follows this CSV of time_s,bytes_written (- for stdin), in place of --rate and --write"},
         {"--runs", "N",
          "domain runs per writer count, 1-100000; without it, enough for 200 writing VMs at each count, "
          "ceil(200 / writers)"},
         {"--seed", "N", "the random seed (default 1)"},
         {"--max-events", "N", "refuse a search that would replay more simulated events (default 1000000000)"},
         {"--jobs", "N", jobs_help},
         {"--columns", "LIST", columns_help},
         {"--format", "FORMAT",
          "text (default), csv, json, or svg: pauses per VM (p50, p99) against the writers, per latency profile"}},
        argc, argv);
}

}  // namespace

int run_capacity(int argc, char** argv) {
    // A list of rates: one search per rate, joined (per_value.hpp); the rows carry rate_mib_s.
    if (const auto v = values_in(argc, argv, {"--rate", "--rates"}, split_commas); v.size() > 1)
        return run_per_value(argc, argv, {"--rate", "--rates"}, v, nullptr, run_capacity);
    const args a = capacity_args(argc, argv);
    const capacity_request q = read_capacity_request(a);
    work_budget work("capacity", q.max_events,
                     "writer counts from 1 up to each answer and one more, each " + runs_words(q) + " at " +
                         std::to_string(capacity_seeds) + " seeds of " + std::to_string(q.dcfg.drives()) +
                         " drives writing " + std::string(format_size(q.write).view()));
    capacity_searches s;
    prepare_searches(q, work, s);
    run_searches(q, s);
    // A domain that holds no writer misses the target asked for: its own exit status (3), in every format.
    const bool none =
        std::any_of(s.found.begin(), s.found.end(), [](const max_writers_result& m) { return m.writers == 0; });
    if (q.f == format::svg) {
        const std::string svg = capacity_svg(q, s);
        std::fwrite(svg.data(), 1, svg.size(), stdout);
        return none ? exit_target_not_met : 0;
    }
    table t = capacity_table(q, s);
    text_columns_of(a, t, capacity_text_columns());
    t.one_size_unit_per_column();
    std::string out = t.str(q.f);
    if (q.f == format::text) out += wrap_comments(capacity_notes(q, s));
    std::fwrite(out.data(), 1, out.size(), stdout);
    return none ? exit_target_not_met : 0;
}

}  // namespace provpol::cli
