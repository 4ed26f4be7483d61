// provpol recommend: the smallest VDSM configuration for a write rate and a pause target (per extend, per VM, or
// per VM on a storage domain), as lines to paste into a VDSM configuration file, checked by simulation. Each simulated
// answer is a scan (simulate/search.hpp): every smaller candidate was simulated and missed; it says the runs it
// rests on and its spread over seeds. The options are read once into a request, answered by the library, printed.
#include "budget.hpp"
#include "commands.hpp"
#include "common/cli.hpp"
#include "common/latency_option.hpp"
#include "common/spec_list.hpp"
#include "common/table.hpp"
#include "domain_options.hpp"
#include "parallel.hpp"
#include "per_value.hpp"
#include "plan.hpp"
#include "rate_range.hpp"
#include "stratis_plan.hpp"
#include "text_output.hpp"
#include "work.hpp"

#include <provpol/domain/capacity.hpp>
#include <provpol/extend.hpp>
#include <provpol/flow/latency.hpp>
#include <provpol/flow/risk.hpp>
#include <provpol/simulate.hpp>
#include <provpol/simulate/rate_aware.hpp>
#include <provpol/simulate/search.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace provpol::cli {

namespace {

/// Every simulated answer is computed for --seed and the next seeds, side by side, and printed with their range:
/// how far the answer moves with the draws.
constexpr std::uint64_t spread_seeds = 4;

/// The simulated VMs a per-VM answer rests on by default: --runs for one VM, and at least as many writing VMs over
/// the domain runs with --hosts (ceil(200 / writers) runs), so that "99% of VMs" is not the worst of a few.
constexpr std::uint64_t default_vms = 200;

/// The rate-aware budget's grid: whole hundredths of a second.
constexpr milliseconds budget_step(10);

/// What recommend was asked: the options, read and checked once (read_request).
struct request {
    explicit request(latency_model l) : latency(std::move(l)) {}
    latency_model latency;
    std::string latency_name;
    std::string rate_text;    ///< --rate in prose, as the user typed it
    rate r{};                 ///< the rate, or the highest of a range
    std::vector<rate> rates;  ///< the rates the answer holds at: --rate, or rate_grid_points across its range
    write_amount amount;      ///< --write or --duration
    double p = 0.01;
    bool p_given = false;
    std::uint64_t percent = 20;
    bool percent_given = false;  ///< --percent fixes it; else the one-VM answers search 0, 10, ..., 90
    vdsm_margin margin;          ///< --chunk-margin and --percent-margin
    std::uint64_t runs = 200;    ///< simulated VMs; with --hosts, domain runs
    bool runs_given = false;
    std::uint64_t seed = 1;
    std::string policy;
    std::optional<per_vm_target> vm;
    workload w{};
    format f = format::text;
    std::uint64_t max_events = default_max_events;
    unsigned jobs = 1;
    std::optional<domain_config> domain;  ///< --hosts
    std::uint32_t writers = 0;
    std::optional<vdsm_config> host;  ///< --config: the host's configuration
    seconds monitor_interval{2};      ///< the host's periodic watermark check (--config's vm_watermark_interval)

    /// The simulated VM's workload at rate x: --write (or x for --duration) on a disk twice as large.
    [[nodiscard]] workload at(rate x) const {
        const bytes write = amount.at(x);
        return workload::make(write, x, saturating_mul(write, 2), monitor_interval).value();
    }
};

/// Text for the output, wrapped to 100 columns before it is printed (text_output.hpp's wrap_comments).
class text_out {
public:
    __attribute__((format(printf, 2, 3))) void printf(const char* fmt, ...) {
        std::va_list args;
        va_start(args, fmt);
        std::va_list again;
        va_copy(again, args);
        const int n = std::vsnprintf(nullptr, 0, fmt, args);
        va_end(args);
        if (n > 0) {
            std::string buf(static_cast<std::size_t>(n) + 1, '\0');
            std::vsnprintf(&buf[0], buf.size(), fmt, again);
            buf.resize(static_cast<std::size_t>(n));
            s_ += buf;
        }
        va_end(again);
    }
    void puts(const std::string& text) { s_ += text; }
    /// Prints it, comments wrapped.
    void flush() const { std::fputs(wrap_comments(s_).c_str(), stdout); }

private:
    std::string s_;
};

std::string per_vm_text(const per_vm_target& t) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%g%% of VMs pause at most %u time%s", t.vm_quantile * 100.0, t.max_pauses_per_run,
                  t.max_pauses_per_run == 1 ? "" : "s");
    return buf;
}

/// The k-th seed of the spread after `seed`, wrapping past 2^64 - 1 to 0 without an unsigned overflow (which the
/// sanitized builds refuse).
std::uint64_t nth_seed(std::uint64_t seed, std::uint64_t k) {
    const std::uint64_t room = ~std::uint64_t{0} - seed;
    return k <= room ? seed + k : k - room - 1;
}

std::string seeds_text(std::uint64_t seed) {
    return "seeds " + std::to_string(seed) + " to " + std::to_string(nth_seed(seed, spread_seeds - 1));
}

/// "seeds 1 to 4 all answer 4736 MiB" or "seeds 1 to 4 answer 6144 to 6400 MiB: more --runs narrow it".
std::string spread_text(std::uint64_t seed, const std::string& low, const std::string& high, const char* unit) {
    if (low == high) return seeds_text(seed) + " all answer " + low + unit;
    return seeds_text(seed) + " answer " + low + " to " + high + unit + ": more --runs narrow it";
}

// The per-VM target (--max-pauses-per-run N [--vm-quantile Q]), if given.
std::optional<per_vm_target> per_vm_option(const args& a, std::uint64_t runs) {
    if (!a.has("--max-pauses-per-run")) {
        if (a.has("--vm-quantile")) throw usage_error("--vm-quantile goes with --max-pauses-per-run");
        return std::nullopt;
    }
    const auto n = a.count("--max-pauses-per-run", 0, 1000000);
    const double q = a.decimal("--vm-quantile", 0.0, 1.0).value_or(0.99);
    const auto t = per_vm_target::make(static_cast<std::uint32_t>(*n), q);
    if (!t) fail(t.error(), "--vm-quantile");
    if (runs == 0) throw usage_error("--runs 0: a per-VM target is checked on simulated runs (--runs 1-100000)");
    return *t;
}

// --hosts H --drives-per-host D [--writers N]: the domain, checked against what it answers.
void read_domain(const args& a, request& q) {
    if (!a.has("--hosts") || !a.has("--drives-per-host"))
        throw usage_error("--hosts and --drives-per-host go together (and --writers needs them)");
    if (!q.vm) throw usage_error("--hosts answers a per-VM target: give --max-pauses-per-run N");
    if (q.policy != "static")
        throw usage_error("--hosts: the domain's answer is a static VDSM configuration (--policy static)");
    if (!q.latency.is_flow())
        throw usage_error(std::string("--hosts needs a --latency with the mailbox's clocks: ") + mailbox_latency_names);
    const auto d =
        domain_config::make(static_cast<std::uint32_t>(*a.count("--hosts", 1, 10000)),
                            static_cast<std::uint32_t>(*a.count("--drives-per-host", 1, 10000)), seconds(1e8));
    if (!d) fail(d.error(), "--drives-per-host");
    q.domain = *d;
    q.writers = static_cast<std::uint32_t>(a.count("--writers", 1, d->drives()).value_or(d->drives()));
}

// --config FILE|DIR: the host's VDSM configuration, read as vdsmd reads it: its [mailbox] and [thinp] settings give
// the latency (unless --latency does), its volume_utilization_percent the percent to keep (unless --percent does),
// its [vars] vm_watermark_interval the monitor's period. A recommend answer is no host's configuration.
std::optional<config_reading> host_config(const args& a) {
    const std::optional<config_reading> conf = config_files_option(a, "recommend");
    if (conf && !conf->flow)
        throw usage_error(
            "--config: recommend reads the host's VDSM configuration (vdsm.conf, its drop-ins, or "
            "/etc/vdsm), not a recommend answer");
    return conf;
}

request read_request(const args& a) {
    const std::optional<config_reading> conf = host_config(a);
    named_latency l = vdsm_latency_option(a, conf ? conf->flow : std::nullopt);
    request q(std::move(l.model));
    q.latency_name = std::move(l.name);
    if (conf) q.host = conf->entries.front().config;
    q.f = a.output_format();
    q.max_events = a.count("--max-events", 1, ~std::uint64_t{0}).value_or(default_max_events);
    q.jobs = jobs_option(a);
    const auto given = a.value("--rate");
    if (!given) throw usage_error("--rate is required (e.g. --rate 400MiB/s)");
    const rate_range range = parse_rate_range(*given, "--rate");
    q.rates = range.grid();
    q.r = range.high;
    q.rate_text = range.is_range() ? range.text : rate_text(q.r, given);
    q.p_given = a.has("--max-pause-probability");
    q.p = a.decimal("--max-pause-probability", 0.0, 1.0).value_or(0.01);
    q.percent = a.count("--percent", 0, 99).value_or(q.host ? q.host->percent() : 20);
    q.percent_given = a.has("--percent") || q.host;  // the host's percent is kept, as --percent keeps it
    q.margin.percent = static_cast<std::uint32_t>(a.count("--percent-margin", 0, 99).value_or(10));
    q.margin.extents =
        a.size_at_least("--chunk-margin", bytes(0), "MiB").value_or(bytes(std::uint64_t{256} << 20)).count() >> 27;
    const bool domain = a.has("--hosts") || a.has("--drives-per-host") || a.has("--writers");
    q.runs_given = a.has("--runs");
    q.runs = domain ? a.count("--runs", 1, 100000).value_or(1) : a.count("--runs", 0, 100000).value_or(default_vms);
    q.seed = a.count("--seed", 0, ~std::uint64_t{0}).value_or(1);
    q.policy = a.value("--policy").value_or("static");
    q.vm = per_vm_option(a, q.runs);
    q.amount = write_option(a);  // --write, or the rate x --duration
    q.monitor_interval = monitor_interval_of(conf);
    q.w = q.at(q.r);
    if (domain) read_domain(a, q);
    if (range.is_range() && (domain || q.policy != "static"))
        throw usage_error(
            "--rate: a range answers for one VM under --policy static (--hosts and --policy rate-aware "
            "answer for one rate)");
    return q;
}

/// answer(s) for --seed and the next spread_seeds - 1 seeds, side by side on `jobs` threads: the answers in seed
/// order. The budget's error first, then the first error in seed order (fail with `option`).
template <class T, class Answer>
std::vector<T> over_seeds(const request& q, work_budget& budget, const char* option, Answer&& answer) {
    std::vector<std::optional<result<T>>> out(spread_seeds);
    parallel_for(
        spread_seeds, q.jobs, [&](std::size_t k) { out[k].emplace(answer(nth_seed(q.seed, k))); }, [](std::size_t) {});
    budget.check();
    std::vector<T> values;
    for (const auto& r : out) {
        if (!*r) fail(r->error(), option);
        values.push_back(**r);
    }
    return values;
}

/// A chunk answer over the seeds: the answer for --seed, and the smallest and largest of all.
struct chunk_spread {
    vdsm_config config;
    std::uint64_t low_mb = 0, high_mb = 0;
};
chunk_spread spread_of(const std::vector<vdsm_config>& answers) {
    chunk_spread s{answers.front(), answers.front().chunk_mb(), answers.front().chunk_mb()};
    for (const vdsm_config& c : answers) {
        s.low_mb = std::min(s.low_mb, c.chunk_mb());
        s.high_mb = std::max(s.high_mb, c.chunk_mb());
    }
    return s;
}

/// The single VM's per-VM answer (recommend_vdsm_per_vm) on `runs` simulated VMs, for each seed; the one function
/// behind recommend --max-pauses-per-run and the "one VM alone" line of its --hosts answer.
chunk_spread answer_per_vm(const request& q, std::uint32_t runs) {
    const bytes extent(std::uint64_t{128} << 20);
    const seconds tick = q.latency.detection_period();
    const std::string what = std::to_string(spread_seeds) + " seeds x " + std::to_string(runs) + " runs of " +
                             std::string(format_size(q.w.write_size).view()) +
                             " per candidate chunk, from 128MiB up to the answer";
    // The first candidate, one extent, is the dearest per run (the most extends): refused at once when it alone
    // passes the bound.
    check_work("recommend",
               static_cast<double>(spread_seeds * runs) * events_per_run(q.w.write_size, q.r, extent, tick),
               q.max_events, what);
    work_budget budget("recommend", q.max_events, what);
    return spread_of(over_seeds<vdsm_config>(q, budget, "--max-pauses-per-run", [&](std::uint64_t seed) {
        return recommend_vdsm_per_vm(q.w, q.latency, *q.vm, q.percent, runs, seed, extent, [&](std::uint64_t k) {
            return budget.spend(runs * events_per_run(q.w.write_size, q.r, bytes(k * extent.count()), tick));
        });
    }));
}

// --- the rate-aware budget -------------------------------------------------------------------------------------

/// The floor the rate-aware agent keeps: --preset or --chunk with --percent (default vdsm-legacy).
plan_config rate_aware_floor(const args& a) {
    std::vector<plan_config> floors;
    if (a.has("--percent") && !a.has("--chunk"))
        throw usage_error(
            "--percent with --policy rate-aware sets the floor with --chunk; alone it applies to "
            "--policy static");
    for (const std::string& name : a.values("--preset")) floors.push_back({name, vdsm_preset_option(name), true});
    if (a.has("--chunk")) {
        if (!a.has("--percent")) throw usage_error("--chunk and --percent go together");
        const auto cfg = vdsm_config::make(*a.size_at_least("--chunk", bytes(std::uint64_t{1} << 20), "MiB"),
                                           *a.count("--percent", 0, 99));
        if (!cfg) fail(cfg.error(), "--chunk");
        floors.push_back({"custom", *cfg, true});
    }
    if (floors.size() > 1) throw usage_error("give one floor: --preset or --chunk with --percent");
    if (floors.empty()) floors.push_back({"vdsm-legacy", vdsm_preset_option("vdsm-legacy"), true});
    return floors.front();
}

/// The rate-aware answer: the budget, its per-VM check and spread, and the per-extend check.
struct rate_aware_answer {
    milliseconds budget{0}, low{0}, high{0};
    bool searched = false;  ///< a per-VM target: the budget was searched
    bool found = true;      ///< a budget up to the longest latency meets the per-VM target
    per_vm_check vm_check{};
    simulation_summary check{};
    bool met = true;
};

/// The per-VM budget: the smallest budget, in whole hundredths of a second from 0.01 s up to the latency's longest
/// (rounded up to the grid), under which the per-VM target holds (smallest_meeting, with meets_per_vm), for each
/// seed. Not found: the longest (where it is checked and missed).
void search_budget(const request& q, const plan_config& floor, milliseconds longest, rate_aware_answer& out) {
    const auto steps = static_cast<std::uint64_t>((longest.count() + budget_step.count() - 1) / budget_step.count());
    const auto agent = [&](std::uint64_t k) {
        return rate_aware_agent(make_rate_aware_policy(floor.config, budget_step * static_cast<long>(k)).value());
    };
    const auto runs = static_cast<std::uint32_t>(q.runs);
    const std::string what = std::to_string(spread_seeds) + " seeds x " + std::to_string(runs) + " runs of " +
                             std::string(format_size(q.w.write_size).view()) + " per candidate budget, up to " +
                             std::to_string(steps) + " candidate budgets";
    const double per_candidate = static_cast<double>(runs) * events_per_run(q.w.write_size, q.r, floor.config.chunk(),
                                                                            q.latency.detection_period());
    check_work("recommend", static_cast<double>(spread_seeds) * per_candidate, q.max_events, what);
    work_budget budget("recommend", q.max_events, what);
    const auto answers = over_seeds<search_answer<std::uint64_t>>(q, budget, "--latency", [&](std::uint64_t seed) {
        return smallest_meeting(std::uint64_t{1}, steps, [&](std::uint64_t k) -> result<bool> {
            if (auto go = budget.spend(per_candidate); !go) return unexpected(go.error());
            return meets_per_vm(agent(k), q.latency, q.w, *q.vm, runs, seed);
        });
    });
    const auto ms = [](const search_answer<std::uint64_t>& s) { return budget_step * static_cast<long>(s.value); };
    out.searched = true;
    out.found = answers.front().found;
    out.budget = out.low = out.high = ms(answers.front());
    for (const auto& s : answers) out.low = std::min(out.low, ms(s)), out.high = std::max(out.high, ms(s));
    out.vm_check = check_per_vm(agent(answers.front().value), q.latency, q.w, *q.vm, runs, q.seed);
}

rate_aware_answer answer_rate_aware(const request& q, const plan_config& floor, double p) {
    rate_aware_answer out;
    const milliseconds longest = latency_budget_option(q.latency, 1.0, "its longest latency");
    out.budget = latency_budget_option(q.latency, 1.0 - p, "its " + decimal_text(1.0 - p, 6) + " quantile");
    if (q.vm) {
        search_budget(q, floor, longest, out);
    } else {
        check_work("recommend",
                   static_cast<double>(q.runs) *
                       events_per_run(q.w.write_size, q.r, floor.config.chunk(), q.latency.detection_period()),
                   q.max_events,
                   std::to_string(q.runs) + " runs of " + std::string(format_size(q.w.write_size).view()));
    }
    if (q.runs > 0)
        out.check = simulate_config(floor, out.budget, q.latency, q.w, static_cast<std::uint32_t>(q.runs), q.seed);
    // The per-extend target, checked on the simulated runs: the budget covers the latency's 1 - p quantile, but
    // the first extend of a burst pauses whatever the budget (the rate is not known before the guest writes).
    const bool extend_met = q.runs == 0 || out.check.pause_probability <= p;
    out.met = q.vm ? out.found : extend_met;
    char why[320];
    if (q.vm && !out.found)
        std::snprintf(why, sizeof why,
                      "provpol recommend: target not met: no budget up to the longest latency (%.3g s) meets it: "
                      "there, %.4g of the simulated VMs pause at most %u times, not %g",
                      in_seconds(longest), out.vm_check.share_within, q.vm->max_pauses_per_run, q.vm->vm_quantile);
    else if (!q.vm && !extend_met)
        std::snprintf(why, sizeof why,
                      "provpol recommend: target not met: %.4g of the simulated extends paused, above "
                      "--max-pause-probability %g (the first extend of a burst pauses whatever the budget: the agent "
                      "cannot know the rate before the guest writes)",
                      out.check.pause_probability, p);
    if (!out.met) warn(why);  // after every value of a list is read: a later bad value is then the only line
    return out;
}

void print_rate_aware_text(const request& q, const plan_config& floor, double p, const rate_aware_answer& x) {
    const bytes at_rate = bytes_written_in(q.r, x.budget);
    const std::string& rate_text = q.rate_text;
    std::printf("# provpol recommend --policy rate-aware: %s, latency %s (%s)\n", rate_text.c_str(),
                q.latency_name.c_str(), describe(q.latency).c_str());
    // Stock VDSM has no rate-aware agent: the floor alone, pasted into vdsm.conf.d, is a static configuration
    // that pauses at this rate. So the block is commented out, and the line says what runs it.
    std::printf(
        "# stock VDSM cannot run this: it needs provpol's rate-aware agent (docs/agent.md) over the floor below;\n"
        "# pasted alone into /etc/vdsm/vdsm.conf.d/ the floor is static %s, which pauses at this rate (see "
        "provpol plan --preset %s --rate %s);\n# for stock VDSM: provpol recommend --rate %s\n",
        floor.label.c_str(), floor.label == "custom" ? "vdsm-legacy" : floor.label.c_str(), rate_text.c_str(),
        rate_text.c_str());
    std::printf("# the agent's floor (a new empty disk costs %s, as with it today):\n",
                human_size(align_up(floor.config.chunk(), floor.config.extent())).c_str());
    std::printf("# [irs]\n# volume_utilization_chunk_mb = %llu\n# volume_utilization_percent = %u\n",
                static_cast<unsigned long long>(floor.config.chunk_mb()), floor.config.percent());
    if (x.searched) {
        std::printf(
            "# the agent plans for %.3g s of latency, the least for which %s (in 0.01 s steps; %s in %g%% of the %llu "
            "simulated VMs, seed %llu%s)\n",
            in_seconds(x.budget), per_vm_text(*q.vm).c_str(), x.found ? "met" : "NOT met: at most that",
            x.vm_check.share_within * 100.0, static_cast<unsigned long long>(q.runs),
            static_cast<unsigned long long>(q.seed), x.found ? "" : ", with the longest latency");
        std::printf(
            "# %s\n",
            spread_text(q.seed, decimal_text(in_seconds(x.low), 6), decimal_text(in_seconds(x.high), 6), " s").c_str());
    } else {
        std::printf("# the agent plans for %.3g s of latency (%s)%s\n", in_seconds(x.budget),
                    p == 0.0 ? std::string("the longest the latency model gives").c_str()
                             : ("its " + decimal_text(1.0 - p, 6) + " quantile").c_str(),
                    x.met ? ""
                          : "; the target is NOT met: the first extend of a burst pauses whatever "
                            "the budget (exit status 3)");
    }
    std::printf("# at %s it extends by %s whenever less than %s is free; an idle disk keeps the floor's %s limit\n",
                rate_text.c_str(), human_size(max(floor.config.chunk(), at_rate)).c_str(),
                human_size(max(floor.config.limit(false), at_rate)).c_str(),
                human_size(floor.config.limit(false)).c_str());
    const simulation_summary& c = x.check;
    if (q.runs > 0)
        std::printf(
            "# simulated: %s written at %s, %llu runs: %.2f extends and %.3g pauses per run (at most %g in a "
            "run;\n# per VM: median %g, 90%% %g, 99%% %g), %s allocated but unwritten at the end\n",
            human_size(q.w.write_size).c_str(), rate_text.c_str(), static_cast<unsigned long long>(q.runs), c.extends,
            c.pauses, c.max_pauses, c.pauses_p50, c.pauses_p90, c.pauses_p99,
            human_size(bytes(static_cast<std::uint64_t>(c.unwritten))).c_str());
}

table rate_aware_table(const request& q, const plan_config& floor, double p, const rate_aware_answer& x) {
    table t({"rate_mib_s",
             "policy",
             "floor_chunk_mb",
             "floor_percent",
             "budget_s",
             "limit",
             "chunk",
             "new_disk_size",
             "simulated_runs",
             "simulated_extends",
             "simulated_pauses",
             "simulated_max_pauses",
             "simulated_unwritten_end",
             "pauses_p50",
             "pauses_p90",
             "pauses_p99",
             "runs_mostly_paused",
             "target",
             "max_pause_probability",
             "simulated_pause_probability",
             "max_pauses_per_run",
             "vm_quantile",
             "share_within_target",
             "target_met",
             "seeds",
             "budget_s_min_over_seeds",
             "budget_s_max_over_seeds"});
    const bytes at_rate = bytes_written_in(q.r, x.budget);
    const simulation_summary& c = x.check;
    const bool vm = q.vm.has_value();
    t.add_row({cell::of_rate_mib(q.r),
               cell::of_text("rate-aware/" + floor.label),
               cell::of(floor.config.chunk_mb()),
               cell::of(floor.config.percent()),
               cell::of_real(in_seconds(x.budget), 6),
               cell::of_size(max(floor.config.limit(false), at_rate)),
               cell::of_size(max(floor.config.chunk(), at_rate)),
               cell::of_size(align_up(floor.config.chunk(), floor.config.extent())),
               cell::of(q.runs),
               cell::of_real(c.extends, 6),
               cell::of_real(c.pauses, 6),
               cell::of_real(c.max_pauses, 6),
               cell::of_size(bytes(static_cast<std::uint64_t>(c.unwritten))),
               cell::of_real(c.pauses_p50, 6),
               cell::of_real(c.pauses_p90, 6),
               cell::of_real(c.pauses_p99, 6),
               cell::of_real(c.runs_mostly_paused, 4),
               cell::of_text(vm ? "per-vm" : "per-extend"),
               cell::of_real(p, 6),
               cell::of_real(c.pause_probability, 4),
               vm ? cell::of(q.vm->max_pauses_per_run) : cell(),
               vm ? cell::of_real(q.vm->vm_quantile, 6) : cell(),
               vm ? cell::of_real(x.vm_check.share_within, 6) : cell(),
               cell::of(x.met ? 1u : 0u),
               vm ? cell::of(spread_seeds) : cell(),
               vm ? cell::of_real(in_seconds(x.low), 6) : cell(),
               vm ? cell::of_real(in_seconds(x.high), 6) : cell()});
    return t;
}

// recommend --policy rate-aware: keep a static floor in VDSM's configuration and let the agent size extends.
int recommend_rate_aware(const args& a, const request& q) {
    const plan_config floor = rate_aware_floor(a);
    // The rate-aware agent plans for the latency's longest unless a target is given.
    const double p = q.p_given ? q.p : 0.0;
    const rate_aware_answer x = answer_rate_aware(q, floor, p);
    if (q.f == format::text)
        print_rate_aware_text(q, floor, p, x);
    else
        std::fputs(rate_aware_table(q, floor, p, x).str(q.f).c_str(), stdout);
    return x.met ? 0 : exit_target_not_met;
}

// --- the domain --------------------------------------------------------------------------------------------------

/// recommend --hosts: the chunk under which every writer count up to the domain's writers meets at every seed, its
/// check at the writers, and the single VM's answer.
struct domain_answer {
    vdsm_config chunk;
    writers_check check;
    chunk_spread one_vm;
};

/// The domain runs a writer count is checked on: --runs, or enough for default_vms writing VMs (as capacity).
writers_runs domain_runs(const request& q) {
    return {q.runs_given ? static_cast<std::uint32_t>(q.runs) : 0, default_vms};
}

domain_answer answer_domain(const request& q) {
    const domain_config& d = *q.domain;
    const writers_runs runs = domain_runs(q);
    const bytes extent(std::uint64_t{128} << 20);
    const seconds tick = q.latency.detection_period();
    const auto seeds = static_cast<std::uint32_t>(spread_seeds);
    const std::string what = "every writer count from 1 to " + std::to_string(q.writers) + " at " +
                             std::to_string(seeds) + " seeds, on domain runs of " + std::to_string(d.drives()) +
                             " drives writing " + std::string(format_size(q.w.write_size).view()) +
                             ", per candidate chunk from 128MiB up to the answer";
    // A candidate is checked at the writers first: what that costs at one extent is checked before anything runs.
    const auto at_writers = [&](std::uint64_t k) {
        return static_cast<double>(runs.at(q.writers)) * d.drives() * seeds *
               events_per_run(q.w.write_size, q.r, bytes(k * extent.count()), tick);
    };
    check_work("recommend", at_writers(1), q.max_events, what);
    work_budget budget("recommend", q.max_events, what);
    const auto chunk = recommend_vdsm_writers(d, q.latency, q.w, *q.vm, q.writers, q.percent, runs, q.seed, seeds,
                                              extent, [&](std::uint64_t k) { return budget.spend(at_writers(k)); });
    budget.check();
    if (!chunk) fail(chunk.error(), "--max-pauses-per-run");
    const static_agent<vdsm_policy> agent(make_vdsm_policy(*chunk));
    const auto check = check_writers(
        d, q.latency, [&agent](std::uint32_t) noexcept { return agent; }, q.w, *q.vm, q.writers, runs.at(q.writers),
        q.seed);
    if (!check) fail(check.error(), "--runs");
    // One VM alone: recommend without --hosts, on as many simulated VMs as it takes by default.
    return {*chunk, *check, answer_per_vm(q, static_cast<std::uint32_t>(default_vms))};
}

void print_domain_text(const request& q, const domain_answer& x) {
    const domain_config& d = *q.domain;
    const vdsm_config& c = x.chunk;
    const writers_runs runs = domain_runs(q);
    std::printf("# provpol recommend: %s per VM, %s at once on %s x %s sharing one SPM, latency %s (%s)\n",
                q.rate_text.c_str(), count_text(q.writers, "writer").c_str(), count_text(d.hosts, "host").c_str(),
                count_text(d.drives_per_host, "drive").c_str(), q.latency_name.c_str(), describe(q.latency).c_str());
    std::printf("# per VM: %s in %s written, at every writer count from 1 to %u (%s)\n", per_vm_text(*q.vm).c_str(),
                human_size(q.w.write_size).c_str(), q.writers,
                runs.fixed != 0 ? (count_text(runs.fixed, "domain run") + " a count").c_str()
                                : ("ceil(" + std::to_string(runs.vms) + " / writers) domain runs a count").c_str());
    std::printf("[irs]\nvolume_utilization_chunk_mb = %llu\nvolume_utilization_percent = %u\n",
                static_cast<unsigned long long>(c.chunk_mb()), c.percent());
    std::printf(
        "# the smallest chunk in 128MiB steps under which every count from 1 to %u meets the target at each of %s\n"
        "#   (every smaller chunk misses at one count and seed); with it, provpol capacity answers at least %u\n",
        q.writers, seeds_text(q.seed).c_str(), q.writers);
    std::printf(
        "# simulated at %u writers, seed %llu: pauses per writing VM at the %g quantile %u, 99%% %g; latency p99 "
        "%.3g s;\n#   SPM %.2f busy; a new disk takes %s\n",
        q.writers, static_cast<unsigned long long>(q.seed), q.vm->vm_quantile, x.check.pauses_at_quantile,
        x.check.pauses_p99, x.check.latency_p99.count(), x.check.spm_utilization,
        format_size(align_up(c.chunk(), c.extent())).c_str());
    const std::uint64_t alone = x.one_vm.config.chunk_mb();
    std::printf(
        "# one VM alone needs volume_utilization_chunk_mb = %llu (recommend without --hosts: %llu simulated VMs,\n"
        "#   seed %llu; %s)%s\n",
        static_cast<unsigned long long>(alone), static_cast<unsigned long long>(default_vms),
        static_cast<unsigned long long>(q.seed),
        spread_text(q.seed, std::to_string(x.one_vm.low_mb), std::to_string(x.one_vm.high_mb), " MiB").c_str(),
        c.chunk_mb() > alone ? ": the other writers' extends at the SPM cost the rest" : "");
}

table domain_table(const request& q, const domain_answer& x) {
    const domain_config& d = *q.domain;
    const vdsm_config& c = x.chunk;
    table t({"rate_mib_s",
             "volume_utilization_chunk_mb",
             "volume_utilization_percent",
             "hosts",
             "drives_per_host",
             "writers",
             "runs",
             "max_pauses_per_run",
             "vm_quantile",
             "pauses_at_quantile",
             "pauses_p99",
             "latency_p99_s",
             "spm_utilization",
             "new_disk_size",
             "one_vm_chunk_mb",
             "scope",
             "target_met",
             "seeds",
             "vms_per_count",
             "one_vm_runs"});
    const writers_runs runs = domain_runs(q);
    t.add_row({cell::of_rate_mib(q.r),
               cell::of(c.chunk_mb()),
               cell::of(c.percent()),
               cell::of(d.hosts),
               cell::of(d.drives_per_host),
               cell::of(q.writers),
               cell::of(runs.at(q.writers)),
               cell::of(q.vm->max_pauses_per_run),
               cell::of_real(q.vm->vm_quantile, 6),
               cell::of(x.check.pauses_at_quantile),
               cell::of_real(x.check.pauses_p99, 6),
               cell::of_seconds(x.check.latency_p99, 4),
               cell::of_real(x.check.spm_utilization, 4),
               cell::of_size(align_up(c.chunk(), c.extent())),
               cell::of(x.one_vm.config.chunk_mb()),
               cell::of_text("domain"),
               cell::of(x.check.met ? 1u : 0u),
               cell::of(spread_seeds),
               runs.fixed == 0 ? cell::of(runs.vms) : cell(),
               cell::of(default_vms)});
    return t;
}

// recommend --hosts H --drives-per-host D [--writers N]: the smallest VDSM configuration under which N writers on
// the domain meet the per-VM target (recommend_vdsm_domain).
int recommend_domain(const request& q) {
    const domain_answer x = answer_domain(q);
    if (q.f == format::text)
        print_domain_text(q, x);
    else
        std::fputs(domain_table(q, x).str(q.f).c_str(), stdout);
    return x.check.met ? 0 : exit_target_not_met;
}

// --- one VM ------------------------------------------------------------------------------------------------------

/// fail()'s message for `e`, without throwing it: a reason printed next to another answer.
std::string error_message_of(const provpol::error& e, const char* option) {
    try {
        fail(e, option);
    } catch (const usage_error& u) {
        return u.what();
    }
}

/// The rate in prose: as typed, or "the top of 300-500MiB/s" for a range (its highest rate, the worst per extend).
std::string rate_words(const request& q) { return q.rates.size() > 1 ? "the top of " + q.rate_text : q.rate_text; }

/// VDSM's extent: the chunks searched are whole extents (every new disk's LV is rounded up to one anyway).
constexpr bytes vdsm_extent(std::uint64_t{128} << 20);

/// The percents a one-VM answer is searched over: --percent alone, or 0, 10, ..., 90.
std::vector<std::uint32_t> percent_grid(const request& q) {
    if (q.percent_given) return {static_cast<std::uint32_t>(q.percent)};
    std::vector<std::uint32_t> g;
    for (std::uint32_t p = 0; p < 100; p += 10) g.push_back(p);
    return g;
}

vdsm_config config_at(std::uint64_t extents, std::uint32_t percent) {
    return vdsm_config::make(bytes(extents * vdsm_extent.count()), percent, lvm_extent_size(vdsm_extent)).value();
}

/// What a setting costs: the disk written at all (vdsm_disk_cost's written_disk), in bytes.
std::uint64_t disk_cost(std::uint64_t extents, std::uint32_t percent) {
    const vdsm_config c = config_at(extents, percent);
    return vdsm_disk_cost_of(c).written_disk(c).count();
}

/// One percent of the grid: its smallest chunk with the margin (0: none), and its check on the simulated VMs.
struct grid_row {
    std::uint32_t percent = 0;
    std::uint64_t extents = 0;
    simulation_summary check{};
    double share_within = 0.0;  ///< per-VM: the share of VMs within the target, at --seed
};

/// The per-extend answer: the cheapest setting whose every chunk from C to C + --chunk-margin at every percent of
/// the grid from p - --percent-margin to p gives the free-space limit the latency's 1 - P quantile needs at the
/// highest rate (recommend_vdsm's model: the smallest chunk at a percent meets, and every larger one does), its
/// figures and simulated check, or why no configuration serves it per extend (then only a per-VM answer is given).
struct per_extend_answer {
    std::optional<vdsm_recommendation> rec;
    std::string refused;  ///< why there is no per-extend answer
    simulation_summary check{};
    bool met = false;
    std::vector<grid_row> rows;
};

// The smallest setting at the grid's percents for the per-extend model: the required limit at the highest rate.
result<vdsm_setting_answer> per_extend_search(const request& q, bytes required) {
    const std::uint64_t most = (vdsm_config::max_chunk_mb << 20) / vdsm_extent.count();
    return search_vdsm_setting(
        percent_grid(q), most, q.margin,
        [&](std::uint64_t e, std::uint32_t p) { return config_at(e, p).limit(false) >= required; }, disk_cost, false);
}

per_extend_answer answer_per_extend(const request& q) {
    per_extend_answer out;
    const bytes write = q.w.write_size;
    auto rec = recommend_vdsm(q.r, q.latency, q.p, q.percent_given ? q.percent : 20);
    if (!rec) {
        out.refused = error_message_of(rec.error(), "--rate");
    } else if (const auto s = per_extend_search(q, rec->required_limit); s && s->found) {
        const vdsm_config c = config_at(s->extents, s->percent);
        *rec = vdsm_recommendation{c,
                                   c.limit(false),
                                   rec->required_limit,
                                   align_up(c.chunk(), c.extent()),
                                   pause_probability(c.limit(false), q.r, q.latency),
                                   max_write_rate(c.limit(false), q.latency, q.p)};
        for (const auto& [p, e] : s->per_percent) out.rows.push_back({p, e, {}, 0.0});
    }
    // A limit beyond the write: every disk would be allocated in full before it is written, and the check would
    // simulate a write that never reaches an extend. Say so instead of printing the chunk.
    if (rec && out.refused.empty() && rec->required_limit >= write)
        out.refused = "--rate " + q.rate_text + ": the guest writes " + human_size(rec->required_limit) +
                      " during the latency's " + decimal_text(1.0 - q.p, 6) + " quantile, more than --write " +
                      std::string(format_size(write).view()) + ": no extend keeps up, and a chunk that large (" +
                      human_size(rec->new_disk_size) +
                      ") preallocates every disk; thin provisioning cannot serve this rate";
    // A new disk that already holds the write: the check would simulate no extend and pass whatever the
    // configuration (a vacuous "met").
    else if (rec && out.refused.empty() && q.runs > 0 && rec->new_disk_size >= write)
        out.refused = "--percent " + std::to_string(rec->config.percent()) + ": a new disk takes " +
                      human_size(rec->new_disk_size) + ", at least --write " + std::string(format_size(write).view()) +
                      ": the check would simulate no extend; raise --write, lower --percent, or pass --runs 0";
    if (!out.refused.empty()) {
        if (!q.vm) throw usage_error(out.refused);  // the per-extend answer is the only one asked for
        out.rows.clear();
        return out;
    }
    out.rec = *rec;
    check_work("recommend",
               static_cast<double>(q.runs * out.rows.size()) *
                   events_per_run(write, q.r, vdsm_extent, q.latency.detection_period()),
               q.max_events,
               std::to_string(q.runs) + " runs of " + std::string(format_size(write).view()) + " x " +
                   std::to_string(out.rows.size()) + " percents");
    for (grid_row& row : out.rows)
        if (q.runs > 0 && row.extents != 0)
            row.check = simulate(static_agent<vdsm_policy>(make_vdsm_policy(config_at(row.extents, row.percent))),
                                 q.latency, q.w, static_cast<std::uint32_t>(q.runs), q.seed);
    for (const grid_row& row : out.rows)
        if (row.percent == rec->config.percent()) out.check = row.check;
    out.met = rec->pause_probability <= q.p;
    return out;
}

/// recommend --max-pauses-per-run without --hosts: the cheapest setting whose every chunk from C to C +
/// --chunk-margin at every percent of the grid from p - --percent-margin to p meets the per-VM target on --runs
/// simulated VMs at each of --seed and the next 3 seeds and every rate of --rate (search_vdsm_setting with
/// meets_per_vm), each percent's own smallest setting, and the answer's check at --seed.
struct per_vm_answer {
    vdsm_config config = config_at(1, 20);
    bool found = false;
    per_vm_check check{};
    std::vector<grid_row> rows;
    std::vector<std::string> sensitivity;  ///< how the answer holds as the rate and the write grow
};

/// How the per-VM answer holds as each input grows alone by 5, 10, 20 and 50% (the rates of --rate; the data each VM
/// writes), at the same seeds and runs: a line per input, and the one it is most sensitive to.
std::vector<std::string> per_vm_sensitivity(const request& q, const vdsm_config& c) {
    const static_agent<vdsm_policy> agent(make_vdsm_policy(c));
    const auto runs = static_cast<std::uint32_t>(q.runs);
    const auto holds = [&](double rate_by, double write_by) {
        std::vector<char> met(q.rates.size() * spread_seeds, 0);
        parallel_for(
            met.size(), q.jobs,
            [&](std::size_t i) {
                const rate x(static_cast<std::uint64_t>(
                    static_cast<double>(q.rates[i / spread_seeds].bytes_per_second()) * rate_by));
                const bytes write(
                    static_cast<std::uint64_t>(static_cast<double>(q.at(x).write_size.count()) * write_by));
                const workload w = workload::make(write, x, saturating_mul(write, 2)).value();
                met[i] = meets_per_vm(agent, q.latency, w, *q.vm, runs, nth_seed(q.seed, i % spread_seeds)) ? 1 : 0;
            },
            [](std::size_t) {});
        return std::all_of(met.begin(), met.end(), [](char m) { return m != 0; });
    };
    std::vector<std::string> lines;
    int first = 100;
    std::string most;
    for (const bool is_rate : {true, false}) {
        const char* name = is_rate ? "the rate" : "the data each VM writes";
        std::string line = std::string(name) + ": holds at 50% more";
        for (const int step : {5, 10, 20, 50}) {
            const double by = 1.0 + step / 100.0;
            if (holds(is_rate ? by : 1.0, is_rate ? 1.0 : by)) continue;
            line = std::string(name) + ": misses at " + std::to_string(step) + "% more";
            if (step < first) first = step, most = name;
            break;
        }
        lines.push_back(line);
    }
    lines.push_back(most.empty() ? std::string("each can grow 50% alone and the answer still meets")
                                 : "most sensitive to " + most + " (" + std::to_string(first) + "%)");
    return lines;
}

per_vm_answer answer_one_vm(const request& q) {
    const auto runs = static_cast<std::uint32_t>(q.runs);
    const seconds tick = q.latency.detection_period();
    const std::string what = std::to_string(spread_seeds) + " seeds x " + std::to_string(q.rates.size()) + " rates x " +
                             std::to_string(runs) + " runs of " + std::string(format_size(q.w.write_size).view()) +
                             " per candidate setting, chunks from 128MiB up";
    const auto events = [&](std::uint64_t e) {
        return static_cast<double>(spread_seeds * runs * q.rates.size()) *
               events_per_run(q.w.write_size, q.rates.back(), bytes(e * vdsm_extent.count()), tick);
    };
    // The first candidate, one extent, is the dearest (the most extends): refused at once when it alone passes.
    check_work("recommend", events(1), q.max_events, what);
    work_budget budget("recommend", q.max_events, what);
    const auto meets = [&](std::uint64_t e, std::uint32_t p) -> result<bool> {
        if (auto go = budget.spend(events(e)); !go) return unexpected(go.error());
        const static_agent<vdsm_policy> agent(make_vdsm_policy(config_at(e, p)));
        std::vector<char> met(q.rates.size() * spread_seeds, 0);
        parallel_for(
            met.size(), q.jobs,
            [&](std::size_t i) {
                met[i] = meets_per_vm(agent, q.latency, q.at(q.rates[i / spread_seeds]), *q.vm, runs,
                                      nth_seed(q.seed, i % spread_seeds))
                             ? 1
                             : 0;
            },
            [](std::size_t) {});
        return std::all_of(met.begin(), met.end(), [](char m) { return m != 0; });
    };
    const auto s = search_vdsm_setting(percent_grid(q), vdsm_chunk_bound(q.w.write_size, vdsm_extent), q.margin, meets,
                                       disk_cost, false);
    budget.check();
    if (!s) fail(s.error(), "--max-pauses-per-run");
    per_vm_answer out;
    for (const auto& [p, e] : s->per_percent) {
        grid_row row{p, e, {}, 0.0};
        if (e != 0) {
            const per_vm_check k = check_per_vm(static_agent<vdsm_policy>(make_vdsm_policy(config_at(e, p))), q.latency,
                                                q.w, *q.vm, runs, q.seed);
            row.check = k.summary;
            row.share_within = k.share_within;
        }
        out.rows.push_back(row);
    }
    if (!s->found)
        throw usage_error(
            "--max-pauses-per-run: no VDSM chunk up to the write's size meets the per-VM target at "
            "every percent of its margin (pauses per run)");
    out.found = true;
    out.config = config_at(s->extents, s->percent);
    out.check =
        check_per_vm(static_agent<vdsm_policy>(make_vdsm_policy(out.config)), q.latency, q.w, *q.vm, runs, q.seed);
    out.sensitivity = per_vm_sensitivity(q, out.config);
    return out;
}

/// The grid's rows as a commented table: each percent's smallest setting, what a disk costs under it, and its
/// pauses (per VM: at the target's quantile and the share within it; per extend: the model's and the simulated).
std::string grid_text(const request& q, const std::vector<grid_row>& rows, bool vm) {
    table t({"percent", "chunk_mb", "extend_after_mb", "written_disk_mb", "extends", "pauses_p99",
             vm ? "within_target" : "pause_probability"});
    const auto mib = [](bytes b) { return cell::of_real(static_cast<double>(b.count()) / 1048576.0, 6); };
    for (const grid_row& r : rows) {
        if (r.extents == 0) {
            t.add_row({cell::of(r.percent), cell::of_text("none")});
            continue;
        }
        const vdsm_config c = config_at(r.extents, r.percent);
        const vdsm_disk_cost k = vdsm_disk_cost_of(c);
        t.add_row({cell::of(r.percent), cell::of(c.chunk_mb()), mib(k.before_first_extend), mib(k.written_disk(c)),
                   cell::of_real(r.check.extends, 4), cell::of_real(r.check.pauses_p99, 4),
                   vm ? cell::of_real(r.share_within, 4)
                      : cell::of_real(pause_probability(c.limit(false), q.r, q.latency), 4)});
    }
    std::string out, text = t.str(format::text);
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t end = text.find('\n', at);
        out += "#   " + text.substr(at, end - at) + "\n";
        at = end + 1;
    }
    return out;
}

// The answer's contract in words: the cheapest setting of the grid with its margin.
std::string contract_text(const request& q, const vdsm_config& c) {
    const std::uint64_t top = c.chunk_mb() + (q.margin.extents * vdsm_extent.count() >> 20);
    const std::uint32_t low = c.percent() >= q.margin.percent ? c.percent() - q.margin.percent : 0;
    std::string grid =
        q.percent_given ? "--percent " + std::to_string(q.percent) : std::string("percents 0, 10, ..., 90");
    return "# every chunk from " + std::to_string(c.chunk_mb()) + " to " + std::to_string(top) + " MiB" +
           (q.percent_given || low == c.percent()
                ? std::string()
                : " at every percent from " + std::to_string(low) + " to " + std::to_string(c.percent())) +
           " meets it; of " + grid +
           " (chunks in 128MiB steps), the cheapest disk once written (a new disk's LV, and "
           "a chunk more at percent 0, whose first write extends it), ties to the larger percent\n";
}

void print_per_vm_text(text_out& o, const request& q, const per_vm_answer& v) {
    const vdsm_config& c = v.config;
    const simulation_summary& s = v.check.summary;
    o.printf(
        "# per VM: %s in %s written (%llu simulated VMs at each of %s%s)\n", per_vm_text(*q.vm).c_str(),
        human_size(q.w.write_size).c_str(), static_cast<unsigned long long>(q.runs), seeds_text(q.seed).c_str(),
        q.rates.size() > 1 ? (", at " + std::to_string(q.rates.size()) + " rates across " + q.rate_text).c_str() : "");
    o.printf("[irs]\nvolume_utilization_chunk_mb = %llu\nvolume_utilization_percent = %u\n",
             static_cast<unsigned long long>(c.chunk_mb()), c.percent());
    o.puts(contract_text(q, c));
    o.printf(
        "# simulated at seed %llu: %.4g of the VMs within the target; pauses per run: median %g, 90%% %g, 99%% %g, "
        "at most %g; a new disk takes %s\n",
        static_cast<unsigned long long>(q.seed), v.check.share_within, s.pauses_p50, s.pauses_p90, s.pauses_p99,
        s.max_pauses, format_size(align_up(c.chunk(), c.extent())).c_str());
    if (!q.percent_given)
        o.puts(
            "# each percent's own smallest setting: MiB written before its first extend, MiB a disk holds once "
            "written, and its pauses (seed " +
            std::to_string(q.seed) + "):\n" + grid_text(q, v.rows, true));
    for (std::size_t i = 0; i < v.sensitivity.size(); ++i)
        o.puts((i == 0 ? "# each input grown alone (5, 10, 20, 50%), at the same seeds and runs:\n#   " : "#   ") +
               v.sensitivity[i] + "\n");
    if (align_up(c.chunk(), c.extent()) >= q.w.write_size)
        o.puts(
            "# a new disk of this chunk holds all of --write: nothing is extended, and thin provisioning saves no "
            "space at this rate\n");
}

constexpr const char* one_vm_scope =
    "# for one VM alone: no other writer's extends at the SPM (--hosts H --drives-per-host D --writers N "
    "--max-pauses-per-run N answers for a storage domain)\n";

void print_per_extend_text(text_out& o, const request& q, const per_extend_answer& e) {
    const bool vm = q.vm.has_value();
    if (vm && !e.rec) {
        o.printf("# next to it, the per-extend target (at most %g of extends pausing): none: %s\n", q.p,
                 e.refused.c_str());
        o.puts(one_vm_scope);
        return;
    }
    if (vm) o.printf("# next to it, the per-extend target (at most %g of extends pausing):\n", q.p);
    const vdsm_recommendation& rec = *e.rec;
    const char* hash = vm ? "# " : "";
    o.printf("%s[irs]\n%svolume_utilization_chunk_mb = %llu\n%svolume_utilization_percent = %u\n", hash, hash,
             static_cast<unsigned long long>(rec.config.chunk_mb()), hash, rec.config.percent());
    o.printf("# free-space limit %s (needs %s: what %s writes during the latency's %g quantile, %.3g s)\n",
             human_size(rec.limit).c_str(), human_size(rec.required_limit).c_str(), rate_words(q).c_str(), 1.0 - q.p,
             q.latency.quantile(1.0 - q.p).count());
    if (!vm) o.puts(contract_text(q, rec.config));
    o.printf("# cost: every new empty disk takes %s (vdsm-legacy: 1GiB, vdsm-2022: 2.5GiB)\n",
             format_size(rec.new_disk_size).c_str());
    o.puts(one_vm_scope);
    if (q.latency.max() > seconds(0))
        o.printf(
            "# model: %.4g of extends pause at this rate; this configuration meets the target up to %.1f MiB/s"
            " (%+.0f%%: the input it is most sensitive to)\n",
            rec.pause_probability, rec.max_rate.mib_per_second(),
            (rec.max_rate.mib_per_second() / q.r.mib_per_second() - 1.0) * 100.0);
    else  // no time to write in: the rate bound is the saturated 2^64 B/s, not a limit
        o.printf(
            "# model: %.4g of extends pause at this rate; with a latency of 0 this configuration meets the target at "
            "any rate\n",
            rec.pause_probability);
    const simulation_summary& c = e.check;
    if (q.runs > 0)
        o.printf(
            "# simulated: %s written at %s, %llu runs: %.2f extends and %.3g pauses per run, %.4g of extends "
            "paused;\n# per VM: median %g, 90%% %g, 99%% %g pauses per run\n",
            human_size(q.w.write_size).c_str(), rate_words(q).c_str(), static_cast<unsigned long long>(q.runs),
            c.extends, c.pauses, c.pause_probability, c.pauses_p50, c.pauses_p90, c.pauses_p99);
    if (!vm && !q.percent_given && q.runs > 0)
        o.puts(
            "# each percent's own smallest setting: MiB written before its first extend, MiB a disk holds once "
            "written, and its pauses (simulated, seed " +
            std::to_string(q.seed) + "):\n" + grid_text(q, e.rows, false));
}

// With --config: the host's own configuration at this rate, by the per-extend model.
void print_host_text(text_out& o, const request& q) {
    if (!q.host) return;
    const bytes limit = q.host->limit(false);
    const double p = pause_probability(limit, q.r, q.latency);
    o.printf(
        "# the host's configuration (--config): volume_utilization_chunk_mb = %llu, "
        "volume_utilization_percent = %u, free-space limit %s; model: %.4g of extends pause at this rate, "
        "%s the target of %g\n",
        static_cast<unsigned long long>(q.host->chunk_mb()), q.host->percent(), human_size(limit).c_str(), p,
        p <= q.p ? "within" : "above", q.p);
}

void print_one_vm_text(text_out& o, const request& q, const per_extend_answer& e, const std::optional<per_vm_answer>& v,
                       bool met) {
    o.printf("# provpol recommend: %s, at most %g of extends pausing, latency %s (%s)\n", q.rate_text.c_str(), q.p,
             q.latency_name.c_str(), describe(q.latency).c_str());
    print_host_text(o, q);
    if (v) print_per_vm_text(o, q, *v);
    print_per_extend_text(o, q, e);
    if (!met)
        o.printf("# the target is NOT met (exit status 3)%s\n",
                 v && !v->check.met ? ": the per-VM configuration above is the best found, not one that meets it" : "");
}

table one_vm_table(const request& q, const per_extend_answer& e, const std::optional<per_vm_answer>& v) {
    table t({"rate_mib_s",
             "max_pause_probability",
             "volume_utilization_chunk_mb",
             "volume_utilization_percent",
             "limit",
             "required_limit",
             "new_disk_size",
             "model_pause_probability",
             "max_rate_mib_s",
             "simulated_runs",
             "simulated_extends",
             "simulated_pauses",
             "simulated_pause_probability",
             "pauses_p50",
             "pauses_p90",
             "pauses_p99",
             "runs_mostly_paused",
             "target",
             "max_pauses_per_run",
             "vm_quantile",
             "share_within_target",
             "target_met",
             "seeds",
             "written_disk",
             "first_extend_after",
             "chunk_margin_mb",
             "percent_margin",
             "percents_searched",
             "rate_low_mib_s"});
    const std::vector<std::uint32_t> grid = percent_grid(q);
    const std::string percents = grid.size() == 1 ? std::to_string(grid.front())
                                                  : std::to_string(grid.front()) + "-" + std::to_string(grid.back());
    const auto add = [&](const vdsm_config& c, cell required, const simulation_summary& s, const char* target, bool met,
                         const per_vm_answer* vm) {
        const bytes limit = c.limit(false);
        const vdsm_disk_cost k = vdsm_disk_cost_of(c);
        t.add_row({cell::of_rate_mib(q.r),
                   cell::of_real(q.p, 6),
                   cell::of(c.chunk_mb()),
                   cell::of(c.percent()),
                   cell::of_size(limit),
                   std::move(required),
                   cell::of_size(align_up(c.chunk(), c.extent())),
                   cell::of_real(pause_probability(limit, q.r, q.latency), 4),
                   cell::of_rate_mib(max_write_rate(limit, q.latency, q.p)),
                   cell::of(q.runs),
                   cell::of_real(s.extends, 6),
                   cell::of_real(s.pauses, 6),
                   cell::of_real(s.pause_probability, 4),
                   cell::of_real(s.pauses_p50, 6),
                   cell::of_real(s.pauses_p90, 6),
                   cell::of_real(s.pauses_p99, 6),
                   cell::of_real(s.runs_mostly_paused, 4),
                   cell::of_text(target),
                   vm ? cell::of(q.vm->max_pauses_per_run) : cell(),
                   vm ? cell::of_real(q.vm->vm_quantile, 6) : cell(),
                   vm ? cell::of_real(vm->check.share_within, 6) : cell(),
                   cell::of(met ? 1u : 0u),
                   vm ? cell::of(spread_seeds) : cell(),
                   cell::of_size(k.written_disk(c)),
                   cell::of_size(k.before_first_extend),
                   cell::of(q.margin.extents * (vdsm_extent.count() >> 20)),
                   cell::of(q.margin.percent),
                   cell::of_text(percents),
                   cell::of_rate_mib(q.rates.front())});
    };
    if (e.rec) add(e.rec->config, cell::of_size(e.rec->required_limit), e.check, "per-extend", e.met, nullptr);
    if (v) add(v->config, cell(), v->check.summary, "per-vm", v->check.met, &*v);
    return t;
}

// recommend without --hosts: the per-extend answer, and the per-VM one with --max-pauses-per-run.
int recommend_one_vm(const request& q) {
    const per_extend_answer e = answer_per_extend(q);
    std::optional<per_vm_answer> v;
    if (q.vm) v = answer_one_vm(q);
    // A target not met is its own exit status (3), in every format.
    const bool met = (!e.rec || e.met) && (!v || v->check.met);
    if (q.f == format::text) {
        text_out o;
        print_one_vm_text(o, q, e, v, met);
        o.flush();
    } else
        std::fputs(one_vm_table(q, e, v).str(q.f).c_str(), stdout);
    return met ? 0 : exit_target_not_met;
}

// ---- several answers as one file VDSM loads ----

// The line that starts the text of one answer, and what it answers for ("# provpol recommend: 800MiB/s, ...").
constexpr const char* answer_start = "# provpol recommend: ";
// The line one_vdsm_file puts first.
constexpr const char* one_section_note = "# VDSM reads one [irs] section from a file";

// The text answers for a list (one per rate, latency or policy) as one file VDSM loads: configparser refuses a
// section twice in one file (DuplicateSectionError: vdsmd does not start), so the [irs] block with the largest
// free-space limit stays active, the one that leaves each answer's rate the most room, and the others are
// commented out; a first line says which. The text of a single block is left as it is.
std::string one_vdsm_file(const std::string& text) {
    std::vector<std::string> lines;
    for (std::size_t b = 0; b < text.size();) {
        const std::size_t e = text.find('\n', b);
        lines.push_back(text.substr(b, e == std::string::npos ? std::string::npos : e - b));
        b = e == std::string::npos ? text.size() : e + 1;
    }
    struct block {
        std::size_t at;  // the [irs] line
        std::uint64_t chunk, percent;
        std::string answers_for;
    };
    std::vector<block> blocks;
    std::string current;
    const std::string chunk_key = "volume_utilization_chunk_mb = ", percent_key = "volume_utilization_percent = ";
    for (std::size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].rfind(answer_start, 0) == 0)
            current = lines[i].substr(std::strlen(answer_start), lines[i].find(',') - std::strlen(answer_start));
        if (lines[i] != "[irs]" || i + 2 >= lines.size() || lines[i + 1].rfind(chunk_key, 0) != 0 ||
            lines[i + 2].rfind(percent_key, 0) != 0)
            continue;
        blocks.push_back({i, std::stoull(lines[i + 1].substr(chunk_key.size())),
                          std::stoull(lines[i + 2].substr(percent_key.size())), current});
    }
    if (blocks.size() < 2) return text;
    std::size_t keep = 0;
    const auto limit = [](const block& b) { return b.chunk * (100 - std::min<std::uint64_t>(b.percent, 100)); };
    for (std::size_t k = 1; k < blocks.size(); ++k)
        if (limit(blocks[k]) >= limit(blocks[keep])) keep = k;
    for (std::size_t k = 0; k < blocks.size(); ++k)
        if (k != keep)
            for (std::size_t j = 0; j < 3; ++j) lines[blocks[k].at + j] = "# " + lines[blocks[k].at + j];
    const std::string note[] = {
        std::string(one_section_note) + " (a second is refused): of the " + std::to_string(blocks.size()) +
            " answers below,",
        "#   the one with the largest free-space limit, volume_utilization_chunk_mb = " +
            std::to_string(blocks[keep].chunk) +
            (blocks[keep].answers_for.empty() ? std::string() : " for " + blocks[keep].answers_for) + ", is left",
        "#   active: it leaves every other answer's rate more room than that answer's own; the others are",
        "#   commented out (--output-dir DIR writes one file each)"};
    std::string out;
    for (const std::string& n : note) out += n + "\n";
    bool in_note = false;  // a list of lists: the inner answers' note gives way to this one
    for (const std::string& l : lines) {
        in_note = l.rfind(one_section_note, 0) == 0 || (in_note && l.rfind("#   ", 0) == 0);
        if (!in_note) out += l + "\n";
    }
    if (!text.empty() && text.back() != '\n') out.pop_back();
    return out;
}

// --output-dir DIR: each answer's text as a file of its own, DIR/recommend-VALUE.conf (VALUE with every character
// but letters, digits, '.', '_' and '-' as '-'), a drop-in VDSM loads; the files written go to stderr.
void write_answers(const std::string& dir, const std::vector<std::string>& answers,
                   const std::vector<std::string>& values) {
    std::vector<std::string> names;
    for (const std::string& v : values) {
        std::string n = "recommend-";
        for (char c : v) n += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ? c : '-';
        n += ".conf";
        if (std::find(names.begin(), names.end(), n) != names.end())
            throw usage_error("--output-dir: two answers would both be written to " + args::printable(n));
        names.push_back(n);
    }
    std::string written;
    for (std::size_t k = 0; k < answers.size(); ++k) {
        const std::string path = dir + "/" + names[k];
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
            throw runtime_failure("--output-dir: cannot write " + args::printable(path) + ": " + std::strerror(errno));
        const std::string& t = answers[k];
        std::size_t done = 0;
        while (done < t.size()) {
            const ssize_t n = ::write(fd, t.data() + done, t.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                const int e = errno;
                ::close(fd);
                throw runtime_failure("--output-dir: writing " + args::printable(path) +
                                      " failed: " + std::strerror(e));
            }
            done += static_cast<std::size_t>(n);
        }
        if (::close(fd) != 0)
            throw runtime_failure("--output-dir: writing " + args::printable(path) +
                                  " failed: " + std::strerror(errno));
        written += (written.empty() ? "" : ", ") + args::printable(path);
    }
    warn("provpol recommend: --output-dir: wrote " + written +
         (answers.size() > 1 ? " (one answer each: a vdsm.conf.d takes one of them)" : ""));
}

// argv without --output-dir DIR (or --output-dir=DIR), and DIR.
std::vector<std::string> without_output_dir(int argc, char** argv, std::optional<std::string>& dir) {
    std::vector<std::string> kept;
    for (int i = 0; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--output-dir" && i + 1 < argc) {
            if (dir) throw usage_error("--output-dir is given more than once");
            dir = argv[++i];
        } else if (a.rfind("--output-dir=", 0) == 0) {
            if (dir) throw usage_error("--output-dir is given more than once");
            dir = a.substr(13);
        } else {
            kept.push_back(a);
        }
    }
    return kept;
}

int recommend_values(int argc, char** argv, const text_joiner& join);

}  // namespace

int run_recommend(int argc, char** argv);

namespace {

// recommend with --output-dir DIR: the answers of the one list given (or of the one value) written one per file.
int recommend_to_dir(int argc, char** argv, const std::string& dir) {
    struct stat st {};
    if (dir.empty() || ::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        throw usage_error("--output-dir: " + args::printable(dir) + " is not a directory");
    if (format_in(argc, argv) != "text")
        throw usage_error("--output-dir writes VDSM's files, the text answer: give no --format");
    if (is_stratis_invocation(argc, argv) || is_lvm_invocation(argc, argv))
        throw usage_error("--output-dir writes VDSM configuration files: an LVM or Stratis answer is not one");
    const text_joiner join = [&dir](const std::vector<std::string>& answers, const std::vector<std::string>& values,
                                    const std::string& joined) {
        write_answers(dir, answers, values);
        return one_vdsm_file(joined);
    };
    const std::size_t lists = (values_in(argc, argv, {"--rate", "--rates"}, split_commas).size() > 1 ? 1u : 0u) +
                              (values_in(argc, argv, {"--latency"}, split_specs).size() > 1 ? 1u : 0u) +
                              (values_in(argc, argv, {"--policy"}, split_commas).size() > 1 ? 1u : 0u);
    if (lists > 1)
        throw usage_error(
            "--output-dir writes a file per value of one list: give one of --rate, "
            "--latency and --policy a list");
    if (lists == 1) return recommend_values(argc, argv, join);
    auto v = values_in(argc, argv, {"--rate", "--rates"}, split_commas);
    if (v.empty()) throw usage_error("--rate is required (e.g. --rate 400MiB/s)");
    return run_per_value(argc, argv, {"--rate", "--rates"}, v, nullptr, run_recommend, join);
}

// A list of rates, latency profiles or policies: one answer per value, joined (per_value.hpp) as one file VDSM
// loads; -1 when no option holds a list.
int recommend_values(int argc, char** argv, const text_joiner& join) {
    const auto text = [&join](const std::vector<std::string>& answers, const std::vector<std::string>& values,
                              const std::string& joined) {
        return join ? join(answers, values, joined) : one_vdsm_file(joined);
    };
    if (const auto v = values_in(argc, argv, {"--rate", "--rates"}, split_commas); v.size() > 1)
        return run_per_value(argc, argv, {"--rate", "--rates"}, v, nullptr, run_recommend, text);
    if (const auto v = values_in(argc, argv, {"--latency"}, split_specs); v.size() > 1)
        return run_per_value(argc, argv, {"--latency"}, v, "latency", run_recommend, text);
    if (const auto v = values_in(argc, argv, {"--policy"}, split_commas); v.size() > 1)
        return run_per_value(argc, argv, {"--policy"}, v, "policy", run_recommend, text);
    return -1;
}

// The options and help of provpol recommend.
// long: the command's option table, one entry per option (its help is the man page's)
args recommend_args(int argc, char** argv) {
    return args(
        "recommend",
        "provpol recommend --rate LIST [--max-pause-probability P] [--max-pauses-per-run N [--vm-quantile Q]]\n"
        "                         [--config FILE|DIR ...] [--latency LIST] [--percent N] [--chunk-margin SIZE]\n"
        "                         [--percent-margin N] [--write SIZE | --duration TIME]\n"
        "                         [--policy LIST [--preset P | --chunk SIZE --percent N]]\n"
        "                         [--hosts H --drives-per-host D [--writers N]] [--runs N] [--seed N] [--jobs N]\n"
        "                         [--format text|csv|json | --output-dir DIR]\n"
        "       provpol recommend --preset lvm-thin-autoextend --rate LIST --pool-size SIZE ...   (LVM autoextend: "
        "provpol recommend --preset lvm-thin-autoextend --help)\n"
        "       provpol recommend --preset stratis-data --pool-size SIZE --rate RATE ...   (a Stratis pool's backstore "
        "headroom: provpol recommend --preset stratis-data --help)\n\n"
        "The answer for one VM: VDSM's chunk and percent together. At each percent of 0, 10, ..., 90 (or --percent\n"
        "alone) the smallest chunk C, in 128MiB steps, such that every chunk from C to C + --chunk-margin at every\n"
        "percent from that one down to --percent-margin below it meets the target; of those, the cheapest disk once\n"
        "written (VDSM's new-disk LV, the chunk; a chunk more at percent 0, whose first write extends it), ties to\n"
        "the larger percent. Each percent's own setting, its cost and its pauses are printed beside it.\n"
        "The per-extend target (--max-pause-probability, the default) is the latency model's: the free-space limit\n"
        "covers what the guest writes during the latency's 1 - P quantile at the highest rate of --rate.\n"
        "The per-VM target (--max-pauses-per-run N): --vm-quantile of --runs simulated VMs pause at most N times,\n"
        "at each of --seed and the next 3 seeds and every rate of a --rate range; every chunk below the answer's\n"
        "has a setting in its margin that was simulated and missed.\n"
        "With --hosts, the smallest chunk at --percent under which every writer count\n"
        "from 1 to --writers meets the per-VM target at those seeds, each count on ceil(200 / writers) domain runs.\n"
        "--rate takes a range (400-600MiB/s, 500MiB/s+-20%) for one VM: the answer holds across it.",
        {{"--rate", "LIST",
          "the guest's write rate to plan for, e.g. 400MiB/s; a comma-separated list answers for each, as one "
          "table",
          true, "--rates"},
         {"--policy", "LIST",
          "static (default: the smallest VDSM configuration) or rate-aware (a floor and a latency budget); "
          "static,rate-aware answers for each, one block or row per policy",
          true},
         {"--preset", "NAME",
          "rate-aware: the floor, vdsm-legacy or vdsm-2022 (with --policy rate-aware, default vdsm-legacy)"},
         {"--chunk", "SIZE", "rate-aware: a custom floor chunk (with --percent)"},
         {"--max-pause-probability", "P",
          "acceptable share of extends that pause the guest, 0-1 (default 0.01; with --policy "
          "rate-aware, default 0: budget for the longest latency)"},
         {"--max-pauses-per-run", "N",
          "per-VM target: the smallest chunk, in 128MiB steps from 128MiB up to --write, under which --vm-quantile "
          "of the simulated VMs pause at most N times in the write; every smaller chunk was simulated and misses "
          "(with --policy rate-aware: the smallest latency budget in 0.01 s steps, up to the latency's longest). "
          "Printed with the answers of --seed and the next 3 seeds"},
         {"--vm-quantile", "Q",
          "the share of VMs that must meet --max-pauses-per-run, (0, 1] (with --max-pauses-per-run, "
          "default 0.99)"},
         {"--write", "SIZE", "how much each simulated VM writes, at --rate, on a disk twice as large (default 50GiB)"},
         {"--duration", "TIME", duration_help},
         {"--config", "FILE|DIR",
          "the host's VDSM configuration, read as vdsmd reads it: vdsm.conf, a vdsm.conf.d drop-in or /etc/vdsm "
          "(given once or more, in layers); its [mailbox] and [thinp] settings give the latency, its "
          "volume_utilization_percent the percent to keep, and the answer says what its own configuration gives",
          true},
         {"--latency", "LIST",
          latency_spec_names + " (default vdsm-immediate, or the flow --config's [mailbox] and [thinp] settings " +
              "give: what VDSM 4.50 runs, mailbox events and the extend on the block-threshold event); a " +
              "comma-separated list answers for each",
          true},
         {"--percent", "N",
          "volume_utilization_percent, 0-99: fixes it (with --hosts, default 20, VDSM's; with --config, the host's); "
          "without it one VM's answer is searched over percents 0, 10, ..., 90"},
         {"--chunk-margin", "SIZE",
          "chunks above the answer's that must meet too, whole 128MiB extents (default 256MiB: rounded up to the "
          "next 256MiB, it still meets)"},
         {"--percent-margin", "N",
          "percents of the grid below the answer's that must meet too, 0-99 (default 10: a lower percent extends "
          "earlier)"},
         {"--hosts", "H",
          "with --max-pauses-per-run: answer for --writers VMs writing at once on a storage domain of H hosts "
          "sharing one SPM (without it the answer is for one VM alone)"},
         {"--drives-per-host", "D", "with --hosts: drives per host, 1-10000 (at most 1000000 drives)"},
         {"--writers", "N",
          "with --hosts: the VMs writing at once, spread over the hosts in turn (default every drive)"},
         {"--runs", "N",
          "simulated runs that check the answer, 0-100000 (default 200, 0 skips the check; with --hosts: domain "
          "runs per candidate, 1-100000, by default enough for 200 writing VMs, ceil(200 / writers))"},
         {"--seed", "N", "the simulation's seed (default 1)"},
         {"--max-events", "N", "refuse a search that would replay more simulated events (default 1000000000)"},
         {"--jobs", "N", jobs_help},
         {"--format", "FORMAT",
          "text (default: a file VDSM loads, to paste into a vdsm.conf.d drop-in: with a list, the [irs] of the "
          "answer with the largest free-space limit, the others commented out), csv or json"},
         {"--output-dir", "DIR",
          "also write each answer of the list (or the one answer) to DIR/recommend-VALUE.conf, a drop-in VDSM "
          "loads; the files go to stderr"}},
        argc, argv);
}

}  // namespace

int run_recommend(int argc, char** argv) {
    std::optional<std::string> dir;
    std::vector<std::string> kept = without_output_dir(argc, argv, dir);
    std::vector<char*> av;
    for (std::string& k : kept) av.push_back(k.data());
    av.push_back(nullptr);
    if (dir) return recommend_to_dir(static_cast<int>(kept.size()), av.data(), *dir);
    if (const int s = recommend_values(argc, argv, {}); s >= 0) return s;
    if (is_stratis_invocation(argc, argv)) return run_recommend_stratis(argc, argv);
    if (is_lvm_invocation(argc, argv)) return run_recommend_lvm(argc, argv);
    const args a = recommend_args(argc, argv);
    const request q = read_request(a);
    if (q.policy == "rate-aware") return recommend_rate_aware(a, q);
    if (q.policy != "static")
        throw usage_error("--policy: unknown value '" + args::printable(q.policy) + "': expected static or rate-aware");
    if (a.has("--preset") || a.has("--chunk"))
        throw usage_error("--preset and --chunk set the floor of --policy rate-aware");
    if (q.domain) return recommend_domain(q);
    return recommend_one_vm(q);
}

}  // namespace provpol::cli
