// provpol plan: replays a guest writing at each of several rates through one or more extend configurations and
// a latency model, and reports extends, pauses and space per rate (text, CSV, JSON, or an SVG plot of the
// pause probability against the write rate).
//
// provpol recommend: the smallest VDSM configuration that keeps the pause probability per extend under a
// target for a write rate, as lines to paste into a VDSM configuration file, checked by simulation.
#include "common/cli.hpp"
#include "common/latency_option.hpp"
#include "common/table.hpp"

#include <provpol/extend.hpp>
#include <provpol/latency.hpp>
#include <provpol/rate_aware.hpp>
#include <provpol/risk.hpp>
#include <provpol/simulate.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace provpol::cli {

namespace {

// One configuration under test: a static VDSM configuration, or the rate-aware policy over it as its floor.
struct plan_config {
    std::string label;
    vdsm_config config;
    bool rate_aware = false;
};

// --policy static|rate-aware (repeatable) x --preset ... (repeatable) or --chunk/--percent.
std::vector<plan_config> configs_option(const args& a) {
    std::vector<std::string> policies = a.values("--policy");
    if (policies.empty()) policies = {"static"};
    for (const std::string& p : policies)
        if (p != "static" && p != "rate-aware")
            throw usage_error("--policy: unknown value '" + args::printable(p) + "': expected static or rate-aware");
    std::vector<std::pair<std::string, vdsm_config>> presets;
    for (const std::string& p : a.values("--preset")) {
        if (p == "vdsm-2022")
            presets.push_back({p, vdsm_2022().trigger().config});
        else if (p == "vdsm-legacy")
            presets.push_back({p, vdsm_legacy().trigger().config});
        else
            throw usage_error("--preset: unknown value '" + args::printable(p) +
                              "': expected one of vdsm-2022, vdsm-legacy");
    }
    if (a.has("--chunk") || a.has("--percent")) {
        if (!a.has("--chunk") || !a.has("--percent")) throw usage_error("--chunk and --percent go together");
        const auto cfg = vdsm_config::make_bytes(*a.size("--chunk"), *a.count("--percent", 0, 99));
        if (!cfg) fail(cfg.error(), "--chunk");
        presets.push_back(
            {"chunk-" + std::to_string(cfg->chunk_mb()) + "MiB-" + std::to_string(cfg->percent()) + "pct", *cfg});
    }
    std::vector<plan_config> out;
    for (const std::string& policy : policies) {
        const bool ra = policy == "rate-aware";
        if (presets.empty()) {  // defaults: the static policy runs vdsm-2022, the rate-aware one floors at vdsm-legacy
            if (ra)
                out.push_back({"rate-aware/vdsm-legacy", vdsm_legacy().trigger().config, true});
            else
                out.push_back({"vdsm-2022", vdsm_2022().trigger().config, false});
            continue;
        }
        for (const auto& [name, cfg] : presets) out.push_back({ra ? "rate-aware/" + name : name, cfg, ra});
    }
    return out;
}

// --budget SECONDS or --budget-quantile Q (default 1: the longest latency the model allows).
std::uint32_t budget_option(const args& a, const latency_model& latency) {
    if (a.has("--budget") && a.has("--budget-quantile"))
        throw usage_error("give --budget or --budget-quantile, not both");
    if (const auto s = a.decimal("--budget", 0.001, max_latency_budget_ms / 1000.0))
        return static_cast<std::uint32_t>(*s * 1000.0 + 0.5) < 1 ? 1 : static_cast<std::uint32_t>(*s * 1000.0 + 0.5);
    const double q = a.decimal("--budget-quantile", 0.5, 1.0).value_or(1.0);
    const std::uint32_t ms = latency_budget_ms(latency, q);
    return ms < 1 ? 1 : ms;
}

// Runs one configuration at one rate, handing every run to `on_run(i, result)`, and summarises them.
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
        simulate_each(rate_aware_agent(*policy), latency, w, runs, seed, each);
    }
    return acc.summary();
}

simulation_summary simulate_config(const plan_config& c, std::uint32_t budget_ms, const latency_model& latency,
                                   const workload& w, std::uint32_t runs, std::uint64_t seed) {
    return simulate_config(c, budget_ms, latency, w, runs, seed, [](std::uint32_t, const run_result&) {});
}

std::vector<rate> rates_option(const args& a) {
    std::vector<std::string> items = a.values("--rates");
    if (items.empty())
        items = {"75MiB/s", "100MiB/s", "125MiB/s", "150MiB/s", "200MiB/s", "300MiB/s", "400MiB/s", "500MiB/s"};
    std::vector<rate> out;
    for (const std::string& s : items) {
        const auto r = parse_rate(s, "--rates");
        if (!r) fail(r.error(), "--rates");
        if (r->bytes_per_second() == 0) throw usage_error("--rates: a rate of 0 writes nothing");
        out.push_back(*r);
    }
    if (out.size() > 1000) throw usage_error("--rates: at most 1000 rates");
    return out;
}

// The SVG plot: pause probability per extend against the write rate, one line per configuration.
std::string svg_plot(const std::vector<plan_config>& configs, const std::vector<rate>& rates,
                     const std::vector<std::vector<simulation_summary>>& results, const std::string& title,
                     bool pauses_per_run) {
    double ymax = 1.0;
    if (pauses_per_run) {
        double top = 0.0;
        for (const auto& row : results)
            for (const auto& r : row) top = r.pauses > top ? r.pauses : top;
        // 1, 2, 5, 10, 20, 50, ...: ten grid lines at round values
        ymax = 1.0;
        for (double m = 1.0; ymax < top; m *= 10.0)
            ymax = top <= 2.0 * m ? 2.0 * m : (top <= 5.0 * m ? 5.0 * m : 10.0 * m);
    }
    auto value = [&](const simulation_summary& r) { return pauses_per_run ? r.pauses : r.pause_probability; };
    const double w = 760, h = 420, left = 70, right = 220, top = 40, bottom = 60;
    double xmax = 0;
    for (rate r : rates) xmax = r.mib_per_second() > xmax ? r.mib_per_second() : xmax;
    double step = 50;
    while (xmax / step > 10) step *= 2;
    xmax = (static_cast<int>(xmax / step) + 1) * step;
    auto X = [&](double v) { return left + (w - left - right) * v / xmax; };
    auto Y = [&](double p) { return top + (h - top - bottom) * (1.0 - p / ymax); };
    const char* colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};
    std::string s;
    char buf[512];
    std::snprintf(
        buf, sizeof buf,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
        "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
        w, h, w, h);
    s += buf;
    std::snprintf(buf, sizeof buf, "<text x=\"%.0f\" y=\"22\" font-size=\"14\">%s</text>\n", left, title.c_str());
    s += buf;
    for (int i = 0; i <= 10; ++i) {  // y grid: 0 .. ymax
        const double p = ymax * i / 10.0;
        std::snprintf(
            buf, sizeof buf,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%.1f\" "
            "text-anchor=\"end\">%g</text>\n",
            X(0), Y(p), X(xmax), Y(p), left - 6, Y(p) + 4, p);
        s += buf;
    }
    for (double v = 0; v <= xmax + 1e-9; v += step) {  // x grid
        std::snprintf(
            buf, sizeof buf,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%.1f\" "
            "text-anchor=\"middle\">%.0f</text>\n",
            X(v), Y(0), X(v), Y(ymax), X(v), Y(0) + 18, v);
        s += buf;
    }
    std::snprintf(buf, sizeof buf,
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">write rate (MiB/s)</text>\n"
                  "<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
                  (X(0) + X(xmax)) / 2, h - 14, (Y(0) + Y(ymax)) / 2,
                  pauses_per_run ? "pauses per run" : "pauses per extend");
    s += buf;
    for (std::size_t c = 0; c < configs.size(); ++c) {
        const char* color = colors[c % 6];
        std::string points;
        for (std::size_t i = 0; i < rates.size(); ++i) {
            std::snprintf(buf, sizeof buf, "%s%.1f,%.1f", i ? " " : "", X(rates[i].mib_per_second()),
                          Y(value(results[c][i])));
            points += buf;
        }
        s += "<polyline fill=\"none\" stroke=\"" + std::string(color) + "\" stroke-width=\"2\" points=\"" + points +
             "\"/>\n";
        for (std::size_t i = 0; i < rates.size(); ++i) {
            std::snprintf(buf, sizeof buf, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
                          X(rates[i].mib_per_second()), Y(value(results[c][i])), color);
            s += buf;
        }
        std::snprintf(buf, sizeof buf,
                      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>"
                      "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n",
                      w - right + 15, top + 20.0 * static_cast<double>(c), w - right + 40,
                      top + 20.0 * static_cast<double>(c), color, w - right + 46,
                      top + 20.0 * static_cast<double>(c) + 4, configs[c].label.c_str());
        s += buf;
    }
    s += "</svg>\n";
    return s;
}

}  // namespace

int run_plan(int argc, char** argv) {
    const args a(
        "plan",
        "provpol plan [--policy static|rate-aware ...] [--preset vdsm-2022|vdsm-legacy ... | --chunk SIZE --percent "
        "N]\n"
        "                    [--latency PROFILE] [--budget SECONDS | --budget-quantile Q] [--rates LIST] [--write "
        "SIZE]\n"
        "                    [--capacity SIZE] [--runs N] [--seed N] [--per-run] [--format text|csv|json|svg] "
        "[--svg-metric M]",
        {{"--policy", "NAME",
          "static (default: the preset as VDSM runs it) or rate-aware (the preset is its floor); repeat to compare",
          true},
         {"--preset", "NAME", "vdsm-2022 (static default) or vdsm-legacy (rate-aware default); repeat to compare",
          true},
         {"--chunk", "SIZE", "a custom volume_utilization_chunk_mb, as a size (whole MiB)"},
         {"--percent", "N", "a custom volume_utilization_percent, 0-99"},
         {"--latency", "PROFILE", latency_spec_names + " (default vdsm-polling-2022)"},
         {"--budget", "SECONDS", "rate-aware: the latency to plan for"},
         {"--budget-quantile", "Q",
          "rate-aware: plan for this quantile of the latency, 0.5-1 (default 1: its longest)"},
         {"--rates", "LIST", "comma-separated write rates, e.g. 75MiB/s,100MiB/s (default 75 to 500 MiB/s)", true},
         {"--write", "SIZE", "how much the guest writes per run (default 50GiB)"},
         {"--capacity", "SIZE", "the disk's virtual size (default twice --write)"},
         {"--runs", "N", "seeded runs per rate and configuration, 1-100000 (default 1000)"},
         {"--seed", "N", "the seed (default 1)"},
         {"--per-run", nullptr, "one row per run (a VM): rate_mib_s,run,extends,pauses,pause_seconds and the policy"},
         {"--format", "FORMAT", "text (default), csv, json or svg"},
         {"--svg-metric", "METRIC", "what the SVG plots: pause-probability (per extend, default) or pauses (per run)"}},
        argc, argv);
    const format f = a.output_format({format::text, format::csv, format::json, format::svg});
    const std::string metric = a.value("--svg-metric").value_or("pause-probability");
    if (metric != "pause-probability" && metric != "pauses")
        throw usage_error("--svg-metric: unknown value '" + args::printable(metric) +
                          "': expected pause-probability or pauses");
    const std::vector<plan_config> configs = configs_option(a);
    const std::vector<rate> rates = rates_option(a);
    const latency_model latency = latency_option(a);
    const std::uint32_t budget_ms = budget_option(a, latency);
    const bytes write = a.size("--write").value_or(bytes(std::uint64_t{50} << 30));
    if (write.count() == 0) throw usage_error("--write must be at least 1 byte");
    if (write.count() > (std::uint64_t{1} << 50))
        throw usage_error("--write must be at most 1PiB, got " + std::string(format_size(write).view()));
    const bytes capacity = a.size("--capacity").value_or(saturating_mul(write, 2));
    const std::uint64_t runs = a.count("--runs", 1, 100000).value_or(1000);
    const std::uint64_t seed = a.count("--seed", 0, ~std::uint64_t{0}).value_or(1);

    const bool per_run = a.has("--per-run");
    if (per_run && f == format::svg) throw usage_error("--per-run prints rows, not a plot: use text, csv or json");
    std::vector<std::vector<simulation_summary>> results(configs.size());
    table t({"rate_mib_s", "extends", "pauses", "pause_probability", "policy", "chunk_mb", "percent", "limit",
             "initial_size", "unwritten_end", "runs_with_pause", "pause_seconds", "max_pauses", "pauses_p50",
             "pauses_p90", "pauses_p99", "runs_mostly_paused", "model_pause_probability", "runs", "write",
             "latency_mean_s", "budget_s"});
    table each({"rate_mib_s", "run", "extends", "pauses", "pause_seconds", "policy", "chunk_mb", "percent",
                "budget_s"});
    for (std::size_t c = 0; c < configs.size(); ++c) {
        for (rate r : rates) {
            const auto w = workload::make(write, r, capacity);
            if (!w) fail(w.error(), w.error().setting() == text_view("capacity") ? "--capacity" : "--write");
            const cell budget = configs[c].rate_aware ? cell::of_real(budget_ms / 1000.0, 6) : cell();
            const simulation_summary s = simulate_config(
                configs[c], budget_ms, latency, *w, static_cast<std::uint32_t>(runs), seed,
                [&](std::uint32_t i, const run_result& x) {
                    if (!per_run) return;
                    each.add_row({cell::of_real(r.mib_per_second(), 10), cell::of(i), cell::of(x.extends),
                                  cell::of(x.pauses), cell::of_real(x.pause_seconds, 6), cell::of_text(configs[c].label),
                                  cell::of(configs[c].config.chunk_mb()), cell::of(configs[c].config.percent()),
                                  budget});
                });
            results[c].push_back(s);
            // The static limit, and the per-extend model of risk.hpp (for the rate-aware policy: its limit at
            // this rate, known exactly).
            bytes limit = configs[c].config.limit(false);
            if (configs[c].rate_aware) limit = max(limit, bytes(detail::rate_budget_bytes(r, budget_ms)));
            t.add_row({cell::of_real(r.mib_per_second(), 10), cell::of_real(s.extends, 6), cell::of_real(s.pauses, 6),
                       cell::of_real(s.pause_probability, 4), cell::of_text(configs[c].label),
                       cell::of(configs[c].config.chunk_mb()), cell::of(configs[c].config.percent()),
                       cell::of_size(limit), cell::of_size(s.initial_size),
                       cell::of_size(bytes(static_cast<std::uint64_t>(s.unwritten))),
                       cell::of_real(s.runs_with_pause, 4), cell::of_real(s.pause_seconds, 4),
                       cell::of_real(s.max_pauses, 6), cell::of_real(s.pauses_p50, 6), cell::of_real(s.pauses_p90, 6),
                       cell::of_real(s.pauses_p99, 6), cell::of_real(s.runs_mostly_paused, 4),
                       cell::of_real(pause_probability(limit, r, latency), 4), cell::of(runs), cell::of_size(write),
                       cell::of_real(latency.mean(), 4), budget});
        }
    }
    if (f == format::svg) {
        const std::string title = std::string(metric == "pauses" ? "pauses per run" : "pause probability per extend") +
                                  ", " + std::string(format_size(write).view()) + " written, " +
                                  a.value("--latency").value_or("vdsm-polling-2022") + " latency, " +
                                  std::to_string(runs) + " runs";
        const std::string svg = svg_plot(configs, rates, results, title, metric == "pauses");
        std::fwrite(svg.data(), 1, svg.size(), stdout);
        return 0;
    }
    const std::string out = per_run ? each.str(f) : t.str(f);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

// The per-VM target of recommend (--max-pauses-per-run N [--vm-quantile Q]), if given.
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

std::string per_vm_text(const per_vm_target& t) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%g%% of VMs pause at most %u time%s", t.vm_quantile * 100.0,
                  t.max_pauses_per_run, t.max_pauses_per_run == 1 ? "" : "s");
    return buf;
}

// recommend --policy rate-aware: keep a static floor in VDSM's configuration and let the agent size extends.
int recommend_rate_aware(const args& a, rate r, double p, const latency_model& latency, std::uint64_t runs,
                         std::uint64_t seed, format f, const workload& w, const std::optional<per_vm_target>& vm) {
    std::vector<plan_config> floors;
    for (const std::string& name : a.values("--preset")) {
        if (name == "vdsm-2022")
            floors.push_back({name, vdsm_2022().trigger().config, true});
        else if (name == "vdsm-legacy")
            floors.push_back({name, vdsm_legacy().trigger().config, true});
        else
            throw usage_error("--preset: unknown value '" + args::printable(name) +
                              "': expected one of vdsm-2022, vdsm-legacy");
    }
    if (a.has("--chunk")) {
        if (!a.has("--percent")) throw usage_error("--chunk and --percent go together");
        const auto cfg = vdsm_config::make_bytes(*a.size("--chunk"), *a.count("--percent", 0, 99));
        if (!cfg) fail(cfg.error(), "--chunk");
        floors.push_back({"custom", *cfg, true});
    }
    if (floors.size() > 1) throw usage_error("give one floor: --preset or --chunk with --percent");
    if (floors.empty()) floors.push_back({"vdsm-legacy", vdsm_legacy().trigger().config, true});
    const plan_config& floor = floors.front();
    // The budget: the latency's 1 - p quantile (its longest for p = 0); with a per-VM target, the smallest budget
    // in whole milliseconds, up to the longest latency, under which the target holds.
    const std::uint32_t longest = latency_budget_ms(latency, 1.0) < 1 ? 1 : latency_budget_ms(latency, 1.0);
    std::uint32_t budget_ms = latency_budget_ms(latency, 1.0 - p) < 1 ? 1 : latency_budget_ms(latency, 1.0 - p);
    per_vm_check vm_check{};
    if (vm) {
        auto check_budget = [&](std::uint32_t ms) {
            return check_per_vm(rate_aware_agent(make_rate_aware_policy(floor.config, ms).value()), latency, w, *vm,
                                static_cast<std::uint32_t>(runs), seed);
        };
        std::uint32_t lo = 0, hi = longest;
        vm_check = check_budget(hi);
        if (vm_check.met) {
            while (hi - lo > 1) {
                const std::uint32_t mid = lo + (hi - lo) / 2;
                const per_vm_check c = check_budget(mid);
                if (c.met)
                    hi = mid, vm_check = c;
                else
                    lo = mid;
            }
        }
        budget_ms = hi;
        if (!vm_check.met)
            std::fprintf(stderr,
                         "provpol recommend: target not met: with the longest latency as its budget (%.3g s), %.4g of "
                         "the simulated VMs pause at most %u times, not %g\n",
                         longest / 1000.0, vm_check.share_within, vm->max_pauses_per_run, vm->vm_quantile);
    }
    const bytes at_rate(detail::rate_budget_bytes(r, budget_ms));
    const bytes limit = max(floor.config.limit(false), at_rate);
    const bytes chunk = max(floor.config.chunk(), at_rate);
    simulation_summary check{};
    if (runs > 0) check = simulate_config(floor, budget_ms, latency, w, static_cast<std::uint32_t>(runs), seed);
    if (f == format::text) {
        std::printf("# provpol recommend --policy rate-aware: %s, latency %s (%s)\n", format_rate(r).c_str(),
                    a.value("--latency").value_or("vdsm-polling-2022").c_str(), describe(latency).c_str());
        std::printf("# keep the floor in VDSM's configuration: a new empty disk costs %s, as with it today\n",
                    human_size(align_up(floor.config.chunk(), floor.config.extent())).c_str());
        std::printf("[irs]\nvolume_utilization_chunk_mb = %llu\nvolume_utilization_percent = %u\n",
                    static_cast<unsigned long long>(floor.config.chunk_mb()), floor.config.percent());
        if (vm)
            std::printf("# the agent plans for %.3g s of latency, the least for which %s (%s in %g%% of the "
                        "simulated VMs%s)\n",
                        budget_ms / 1000.0, per_vm_text(*vm).c_str(), vm_check.met ? "met" : "NOT met: at most that",
                        vm_check.share_within * 100.0, vm_check.met ? "" : " with the longest latency");
        else
            std::printf("# the agent plans for %.3g s of latency (the %g quantile)\n", budget_ms / 1000.0, 1.0 - p);
        std::printf("# at %s it extends by %s whenever less than %s is free; an idle disk keeps the floor's %s limit\n",
                    format_rate(r).c_str(), human_size(chunk).c_str(), human_size(limit).c_str(),
                    human_size(floor.config.limit(false)).c_str());
        if (runs > 0)
            std::printf(
                "# simulated: %s written at %s, %llu runs: %.2f extends and %.3g pauses per run (at most %g in a "
                "run;\n# per VM: median %g, 90%% %g, 99%% %g), %s allocated but unwritten at the end\n",
                human_size(w.write_size).c_str(), format_rate(r).c_str(), static_cast<unsigned long long>(runs),
                check.extends, check.pauses, check.max_pauses, check.pauses_p50, check.pauses_p90, check.pauses_p99,
                human_size(bytes(static_cast<std::uint64_t>(check.unwritten))).c_str());
        return 0;
    }
    table t({"rate_mib_s", "policy", "floor_chunk_mb", "floor_percent", "budget_s", "limit", "chunk", "new_disk_size",
             "simulated_runs", "simulated_extends", "simulated_pauses", "simulated_max_pauses",
             "simulated_unwritten_end", "pauses_p50", "pauses_p90", "pauses_p99", "runs_mostly_paused", "target",
             "max_pauses_per_run", "vm_quantile", "share_within_target", "target_met"});
    t.add_row({cell::of_real(r.mib_per_second(), 10), cell::of_text("rate-aware/" + floor.label),
               cell::of(floor.config.chunk_mb()), cell::of(floor.config.percent()),
               cell::of_real(budget_ms / 1000.0, 6), cell::of_size(limit), cell::of_size(chunk),
               cell::of_size(align_up(floor.config.chunk(), floor.config.extent())), cell::of(runs),
               cell::of_real(check.extends, 6), cell::of_real(check.pauses, 6), cell::of_real(check.max_pauses, 6),
               cell::of_size(bytes(static_cast<std::uint64_t>(check.unwritten))), cell::of_real(check.pauses_p50, 6),
               cell::of_real(check.pauses_p90, 6), cell::of_real(check.pauses_p99, 6),
               cell::of_real(check.runs_mostly_paused, 4), cell::of_text(vm ? "per-vm" : "per-extend"),
               vm ? cell::of(vm->max_pauses_per_run) : cell(), vm ? cell::of_real(vm->vm_quantile, 6) : cell(),
               vm ? cell::of_real(vm_check.share_within, 6) : cell(), vm ? cell::of(vm_check.met ? 1u : 0u) : cell()});
    const std::string out = t.str(f);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

int run_recommend(int argc, char** argv) {
    const args a(
        "recommend",
        "provpol recommend --rate RATE [--max-pause-probability P] [--max-pauses-per-run N [--vm-quantile Q]]\n"
        "                         [--latency PROFILE] [--percent N] [--write SIZE]\n"
        "                         [--policy static|rate-aware [--preset P | --chunk SIZE --percent N]]\n"
        "                         [--runs N] [--seed N] [--format text|csv|json]",
        {{"--rate", "RATE", "the guest's write rate to plan for, e.g. 400MiB/s"},
         {"--policy", "NAME",
          "static (default: the smallest VDSM configuration) or rate-aware (a floor and a latency budget)"},
         {"--preset", "NAME", "rate-aware: the floor, vdsm-legacy (default) or vdsm-2022"},
         {"--chunk", "SIZE", "rate-aware: a custom floor chunk (with --percent)"},
         {"--max-pause-probability", "P", "acceptable share of extends that pause the guest, 0-1 (default 0.01)"},
         {"--max-pauses-per-run", "N",
          "per-VM target: the smallest configuration under which --vm-quantile of the simulated VMs pause at most "
          "N times in the write"},
         {"--vm-quantile", "Q", "with --max-pauses-per-run: the share of VMs that must meet it, (0, 1] (default 0.99)"},
         {"--write", "SIZE", "how much each simulated VM writes, at --rate, on a disk twice as large (default 50GiB)"},
         {"--latency", "PROFILE", latency_spec_names + " (default vdsm-polling-2022)"},
         {"--percent", "N", "volume_utilization_percent to keep, 0-99 (default 20, VDSM's)"},
         {"--runs", "N", "simulated runs that check the answer, 0-100000 (default 200; 0 skips the check)"},
         {"--seed", "N", "the simulation's seed (default 1)"},
         {"--format", "FORMAT", "text (default: lines to paste into a VDSM configuration), csv or json"}},
        argc, argv);
    const format f = a.output_format();
    const auto r = a.rate("--rate");
    if (!r) throw usage_error("--rate is required (e.g. --rate 400MiB/s)");
    if (r->bytes_per_second() == 0) throw usage_error("--rate must be above 0");
    const double p = a.decimal("--max-pause-probability", 0.0, 1.0).value_or(0.01);
    const std::uint64_t percent = a.count("--percent", 0, 99).value_or(20);
    const std::uint64_t runs = a.count("--runs", 0, 100000).value_or(200);
    const std::uint64_t seed = a.count("--seed", 0, ~std::uint64_t{0}).value_or(1);
    const latency_model latency = latency_option(a);
    const std::string policy = a.value("--policy").value_or("static");
    const std::optional<per_vm_target> vm = per_vm_option(a, runs);
    const bytes write = a.size("--write").value_or(bytes(std::uint64_t{50} << 30));
    if (write.count() == 0 || write.count() > (std::uint64_t{1} << 50))
        throw usage_error("--write must be in [1B, 1PiB], got " + std::string(format_size(write).view()));
    const workload w = workload::make(write, *r, saturating_mul(write, 2)).value();
    // The rate-aware agent plans for the latency's longest unless a target is given.
    if (policy == "rate-aware")
        return recommend_rate_aware(a, *r, a.has("--max-pause-probability") ? p : 0.0, latency, runs, seed, f, w, vm);
    if (policy != "static")
        throw usage_error("--policy: unknown value '" + args::printable(policy) + "': expected static or rate-aware");
    if (a.has("--preset") || a.has("--chunk"))
        throw usage_error("--preset and --chunk set the floor of --policy rate-aware");
    const auto rec = recommend_vdsm(*r, latency, p, percent);
    if (!rec) fail(rec.error(), "--rate");

    // Check the answer by simulation: --write at the rate, on a disk twice as large.
    simulation_summary check{};
    if (runs > 0)
        check = simulate(static_agent<vdsm_policy>(make_vdsm_policy(rec->config)), latency, w,
                         static_cast<std::uint32_t>(runs), seed);
    // The per-VM target: its own configuration, checked on the same runs.
    std::optional<vdsm_config> vm_config;
    per_vm_check vm_check{};
    if (vm) {
        const auto c = recommend_vdsm_per_vm(w, latency, *vm, percent, static_cast<std::uint32_t>(runs), seed);
        if (!c) fail(c.error(), "--max-pauses-per-run");
        vm_config = *c;
        vm_check = check_per_vm(static_agent<vdsm_policy>(make_vdsm_policy(*c)), latency, w, *vm,
                                static_cast<std::uint32_t>(runs), seed);
    }
    if (f == format::text) {
        const std::string spec = a.value("--latency").value_or("vdsm-polling-2022");
        std::printf("# provpol recommend: %s, at most %g of extends pausing, latency %s (%s)\n",
                    format_rate(*r).c_str(), p, spec.c_str(), describe(latency).c_str());
        if (vm_config) {
            std::printf("# per VM: %s in %s written (%llu simulated VMs)\n", per_vm_text(*vm).c_str(),
                        human_size(write).c_str(), static_cast<unsigned long long>(runs));
            std::printf("[irs]\nvolume_utilization_chunk_mb = %llu\nvolume_utilization_percent = %u\n",
                        static_cast<unsigned long long>(vm_config->chunk_mb()), vm_config->percent());
            std::printf("# simulated: %.4g of the VMs within the target; pauses per run: median %g, 90%% %g, 99%% "
                        "%g, at most %g; a new disk takes %s\n",
                        vm_check.share_within, vm_check.summary.pauses_p50, vm_check.summary.pauses_p90,
                        vm_check.summary.pauses_p99, vm_check.summary.max_pauses,
                        format_size(align_up(vm_config->chunk(), vm_config->extent())).c_str());
            std::printf("# next to it, the per-extend target (at most %g of extends pausing):\n", p);
        }
        std::printf("%s[irs]\n%svolume_utilization_chunk_mb = %llu\n%svolume_utilization_percent = %u\n",
                    vm_config ? "# " : "", vm_config ? "# " : "",
                    static_cast<unsigned long long>(rec->config.chunk_mb()), vm_config ? "# " : "",
                    rec->config.percent());
        std::printf("# free-space limit %s (needs %s: what %s writes during the latency's %g quantile, %.3g s)\n",
                    human_size(rec->limit).c_str(), human_size(rec->required_limit).c_str(), format_rate(*r).c_str(),
                    1.0 - p, latency.quantile(1.0 - p));
        std::printf("# cost: every new empty disk takes %s (vdsm-legacy: 1GiB, vdsm-2022: 2.5GiB)\n",
                    format_size(rec->new_disk_size).c_str());
        std::printf(
            "# model: %.4g of extends pause at this rate; this configuration meets the target up to %.1f MiB/s\n",
            rec->pause_probability, rec->max_rate.mib_per_second());
        if (runs > 0)
            std::printf(
                "# simulated: %s written at %s, %llu runs: %.2f extends and %.3g pauses per run, %.4g of extends "
                "paused;\n# per VM: median %g, 90%% %g, 99%% %g pauses per run\n",
                human_size(write).c_str(), format_rate(*r).c_str(), static_cast<unsigned long long>(runs),
                check.extends, check.pauses, check.pause_probability, check.pauses_p50, check.pauses_p90,
                check.pauses_p99);
        return 0;
    }
    table t({"rate_mib_s", "max_pause_probability", "volume_utilization_chunk_mb", "volume_utilization_percent",
             "limit", "required_limit", "new_disk_size", "model_pause_probability", "max_rate_mib_s", "simulated_runs",
             "simulated_extends", "simulated_pauses", "simulated_pause_probability", "pauses_p50", "pauses_p90",
             "pauses_p99", "runs_mostly_paused", "target", "max_pauses_per_run", "vm_quantile", "share_within_target",
             "target_met"});
    t.add_row({cell::of_real(r->mib_per_second(), 10), cell::of_real(p, 6), cell::of(rec->config.chunk_mb()),
               cell::of(rec->config.percent()), cell::of_size(rec->limit), cell::of_size(rec->required_limit),
               cell::of_size(rec->new_disk_size), cell::of_real(rec->pause_probability, 4),
               cell::of_real(rec->max_rate.mib_per_second(), 6), cell::of(runs), cell::of_real(check.extends, 6),
               cell::of_real(check.pauses, 6), cell::of_real(check.pause_probability, 4),
               cell::of_real(check.pauses_p50, 6), cell::of_real(check.pauses_p90, 6),
               cell::of_real(check.pauses_p99, 6), cell::of_real(check.runs_mostly_paused, 4),
               cell::of_text("per-extend"), cell(), cell(), cell(),
               cell::of(rec->pause_probability <= p ? 1u : 0u)});
    if (vm_config) {
        const simulation_summary& v = vm_check.summary;
        const bytes vm_limit = vm_config->limit(false);
        t.add_row({cell::of_real(r->mib_per_second(), 10), cell::of_real(p, 6), cell::of(vm_config->chunk_mb()),
                   cell::of(vm_config->percent()), cell::of_size(vm_limit), cell(),
                   cell::of_size(align_up(vm_config->chunk(), vm_config->extent())),
                   cell::of_real(pause_probability(vm_limit, *r, latency), 4),
                   cell::of_real(max_write_rate(vm_limit, latency, p).mib_per_second(), 6), cell::of(runs),
                   cell::of_real(v.extends, 6), cell::of_real(v.pauses, 6), cell::of_real(v.pause_probability, 4),
                   cell::of_real(v.pauses_p50, 6), cell::of_real(v.pauses_p90, 6), cell::of_real(v.pauses_p99, 6),
                   cell::of_real(v.runs_mostly_paused, 4), cell::of_text("per-vm"), cell::of(vm->max_pauses_per_run),
                   cell::of_real(vm->vm_quantile, 6), cell::of_real(vm_check.share_within, 6),
                   cell::of(vm_check.met ? 1u : 0u)});
    }
    const std::string out = t.str(f);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

}  // namespace provpol::cli
