// provpol recommend: the smallest VDSM configuration that keeps the pause probability per extend under a
// target for a write rate, as lines to paste into a VDSM configuration file, checked by simulation.
#include "commands.hpp"
#include "common/cli.hpp"
#include "common/latency_option.hpp"
#include "common/spec_list.hpp"
#include "common/table.hpp"
#include "per_value.hpp"
#include "plan.hpp"
#include "work.hpp"

#include <provpol/domain/capacity.hpp>
#include <provpol/extend.hpp>
#include <provpol/flow/latency.hpp>
#include <provpol/flow/risk.hpp>
#include <provpol/simulate.hpp>
#include <provpol/simulate/rate_aware.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace provpol::cli {

namespace {

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
    std::snprintf(buf, sizeof buf, "%g%% of VMs pause at most %u time%s", t.vm_quantile * 100.0, t.max_pauses_per_run,
                  t.max_pauses_per_run == 1 ? "" : "s");
    return buf;
}

// recommend --policy rate-aware: keep a static floor in VDSM's configuration and let the agent size extends.
int recommend_rate_aware(const args& a, rate r, double p, const latency_model& latency, std::uint64_t runs,
                         std::uint64_t seed, format f, const workload& w, const std::optional<per_vm_target>& vm,
                         std::uint64_t max_events) {
    std::vector<plan_config> floors;
    if (a.has("--percent") && !a.has("--chunk"))
        throw usage_error(
            "--percent with --policy rate-aware sets the floor with --chunk; alone it applies to "
            "--policy static");
    for (const std::string& name : a.values("--preset")) floors.push_back({name, vdsm_preset_option(name), true});
    if (a.has("--chunk")) {
        if (!a.has("--percent")) throw usage_error("--chunk and --percent go together");
        const auto cfg = vdsm_config::make_bytes(*a.size_at_least("--chunk", bytes(std::uint64_t{1} << 20), "MiB"),
                                                 *a.count("--percent", 0, 99));
        if (!cfg) fail(cfg.error(), "--chunk");
        floors.push_back({"custom", *cfg, true});
    }
    if (floors.size() > 1) throw usage_error("give one floor: --preset or --chunk with --percent");
    if (floors.empty()) floors.push_back({"vdsm-legacy", vdsm_preset_option("vdsm-legacy"), true});
    const plan_config& floor = floors.front();
    // Bounded work, as for the static answer: the check's runs, and with a per-VM target the bisection of the budget
    // (at most 23 candidates: whole milliseconds up to an hour, and the longest first).
    check_work("recommend",
               static_cast<double>(runs) * (vm ? 24.0 : 1.0) *
                   events_per_run(w.write_size, r, floor.config.chunk(), latency.detection_period()),
               max_events,
               std::to_string(runs) + " runs of " + std::string(format_size(w.write_size).view()) +
                   (vm ? ", up to 24 candidate budgets" : ""));
    // The budget: the latency's 1 - p quantile (its longest for p = 0); with a per-VM target, the smallest budget
    // in whole milliseconds, up to the longest latency, under which the target holds.
    const milliseconds longest = latency_budget_option(latency, 1.0, "its longest latency");
    milliseconds budget = latency_budget_option(latency, 1.0 - p, "its " + decimal_text(1.0 - p, 6) + " quantile");
    per_vm_check vm_check{};
    if (vm) {
        auto check_budget = [&](milliseconds ms) {
            return check_per_vm(rate_aware_agent(make_rate_aware_policy(floor.config, ms).value()), latency, w, *vm,
                                static_cast<std::uint32_t>(runs), seed);
        };
        milliseconds lo(0), hi = longest;
        vm_check = check_budget(hi);
        if (vm_check.met) {
            while (hi - lo > milliseconds(1)) {
                const milliseconds mid = lo + (hi - lo) / 2;
                const per_vm_check c = check_budget(mid);
                if (c.met)
                    hi = mid, vm_check = c;
                else
                    lo = mid;
            }
        }
        budget = hi;
        if (!vm_check.met) {
            char why[240];
            std::snprintf(why, sizeof why,
                          "provpol recommend: target not met: with the longest latency as its budget (%.3g s), %.4g of "
                          "the simulated VMs pause at most %u times, not %g",
                          in_seconds(longest), vm_check.share_within, vm->max_pauses_per_run, vm->vm_quantile);
            warn(why);  // after every value of a list is read: a later bad value is then the only line
        }
    }
    const bytes at_rate = bytes_written_in(r, budget);
    const bytes limit = max(floor.config.limit(false), at_rate);
    const bytes chunk = max(floor.config.chunk(), at_rate);
    simulation_summary check{};
    if (runs > 0) check = simulate_config(floor, budget, latency, w, static_cast<std::uint32_t>(runs), seed);
    // The per-extend target, checked on the simulated runs: the budget covers the latency's 1 - p quantile, but
    // the first extend of a burst pauses whatever the budget (the rate is not known before the guest writes).
    const bool extend_target_met = runs == 0 || check.pause_probability <= p;
    const bool met = vm ? vm_check.met : extend_target_met;
    if (!vm && !extend_target_met) {
        char why[320];
        std::snprintf(why, sizeof why,
                      "provpol recommend: target not met: %.4g of the simulated extends paused, above "
                      "--max-pause-probability %g (the first extend of a burst pauses whatever the budget: the agent "
                      "cannot know the rate before the guest writes)",
                      check.pause_probability, p);
        warn(why);
    }
    if (f == format::text) {
        std::printf("# provpol recommend --policy rate-aware: %s, latency %s (%s)\n", format_rate(r).c_str(),
                    a.value("--latency").value_or("vdsm-polling-2022").c_str(), describe(latency).c_str());
        // Stock VDSM has no rate-aware agent: the floor alone, pasted into vdsm.conf.d, is a static configuration
        // that pauses at this rate. So the block is commented out, and the line says what runs it.
        std::printf(
            "# stock VDSM cannot run this: it needs provpol's rate-aware agent (docs/agent.md) over the floor below;\n"
            "# pasted alone into /etc/vdsm/vdsm.conf.d/ the floor is static %s, which pauses at this rate (see "
            "provpol plan --preset %s --rate %s);\n# for stock VDSM: provpol recommend --rate %s\n",
            floor.label.c_str(), floor.label == "custom" ? "vdsm-legacy" : floor.label.c_str(), format_rate(r).c_str(),
            format_rate(r).c_str());
        std::printf("# the agent's floor (a new empty disk costs %s, as with it today):\n",
                    human_size(align_up(floor.config.chunk(), floor.config.extent())).c_str());
        std::printf("# [irs]\n# volume_utilization_chunk_mb = %llu\n# volume_utilization_percent = %u\n",
                    static_cast<unsigned long long>(floor.config.chunk_mb()), floor.config.percent());
        if (vm)
            std::printf(
                "# the agent plans for %.3g s of latency, the least for which %s (%s in %g%% of the "
                "simulated VMs%s)\n",
                in_seconds(budget), per_vm_text(*vm).c_str(), vm_check.met ? "met" : "NOT met: at most that",
                vm_check.share_within * 100.0, vm_check.met ? "" : " with the longest latency");
        else
            std::printf("# the agent plans for %.3g s of latency (%s)%s\n", in_seconds(budget),
                        p == 0.0 ? std::string("the longest the latency model gives").c_str()
                                 : ("its " + decimal_text(1.0 - p, 6) + " quantile").c_str(),
                        extend_target_met ? ""
                                          : "; the target is NOT met: the first extend of a burst pauses whatever "
                                            "the budget (exit status 3)");
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
        return met ? 0 : exit_target_not_met;
    }
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
             "target_met"});
    t.add_row({cell::of_real(r.mib_per_second(), 0),
               cell::of_text("rate-aware/" + floor.label),
               cell::of(floor.config.chunk_mb()),
               cell::of(floor.config.percent()),
               cell::of_real(in_seconds(budget), 6),
               cell::of_size(limit),
               cell::of_size(chunk),
               cell::of_size(align_up(floor.config.chunk(), floor.config.extent())),
               cell::of(runs),
               cell::of_real(check.extends, 6),
               cell::of_real(check.pauses, 6),
               cell::of_real(check.max_pauses, 6),
               cell::of_size(bytes(static_cast<std::uint64_t>(check.unwritten))),
               cell::of_real(check.pauses_p50, 6),
               cell::of_real(check.pauses_p90, 6),
               cell::of_real(check.pauses_p99, 6),
               cell::of_real(check.runs_mostly_paused, 4),
               cell::of_text(vm ? "per-vm" : "per-extend"),
               cell::of_real(p, 6),
               cell::of_real(check.pause_probability, 4),
               vm ? cell::of(vm->max_pauses_per_run) : cell(),
               vm ? cell::of_real(vm->vm_quantile, 6) : cell(),
               vm ? cell::of_real(vm_check.share_within, 6) : cell(),
               cell::of(met ? 1u : 0u)});
    const std::string out = t.str(f);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return met ? 0 : exit_target_not_met;
}
// recommend --hosts H --drives-per-host D [--writers N]: the smallest VDSM configuration under which N writers on
// the domain meet the per-VM target (recommend_vdsm_domain), starting from the single VM's answer `one_vm`.
int recommend_domain(const args& a, rate r, const latency_model& latency, const workload& w, per_vm_target vm,
                     std::uint64_t percent, std::uint32_t runs, std::uint64_t seed, format f, const vdsm_config& one_vm,
                     std::uint64_t max_events) {
    const auto d =
        domain_config::make(static_cast<std::uint32_t>(*a.count("--hosts", 1, 10000)),
                            static_cast<std::uint32_t>(*a.count("--drives-per-host", 1, 10000)), seconds(1e8));
    if (!d) fail(d.error(), "--drives-per-host");
    const auto writers = static_cast<std::uint32_t>(a.count("--writers", 1, d->drives()).value_or(d->drives()));
    // Bounded work: at most about 2 log2(chunk extents) + 2 candidates, each `runs` domains of every drive.
    check_work("recommend",
               36.0 * runs * static_cast<double>(d->drives()) *
                   events_per_run(w.write_size, r, one_vm.chunk(), latency.detection_period()),
               max_events,
               "up to 36 candidate configurations x " + std::to_string(runs) + " domain runs of " +
                   std::to_string(d->drives()) + " drives writing " + std::string(format_size(w.write_size).view()));
    const std::uint64_t from = one_vm.chunk().count() / one_vm.extent().count();
    const auto c = recommend_vdsm_domain(*d, latency, w, vm, writers, percent, runs, seed, from, one_vm.extent());
    if (!c) fail(c.error(), "--max-pauses-per-run");
    const static_agent<vdsm_policy> agent(make_vdsm_policy(*c));
    const auto check = check_writers(
        *d, latency, [&agent](std::uint32_t) noexcept { return agent; }, w, vm, writers, runs, seed);
    if (!check) fail(check.error(), "--runs");
    if (f == format::text) {
        std::printf(
            "# provpol recommend: %s per VM, %u writers at once on %u hosts x %u drives sharing one SPM, "
            "latency %s (%s)\n",
            format_rate(r).c_str(), writers, d->hosts, d->drives_per_host,
            a.value("--latency").value_or("vdsm-polling-2022").c_str(), describe(latency).c_str());
        std::printf("# per VM: %s in %s written (%u domain runs)\n", per_vm_text(vm).c_str(),
                    human_size(w.write_size).c_str(), runs);
        std::printf("[irs]\nvolume_utilization_chunk_mb = %llu\nvolume_utilization_percent = %u\n",
                    static_cast<unsigned long long>(c->chunk_mb()), c->percent());
        std::printf(
            "# simulated: pauses per writing VM at the %g quantile %u, 99%% %g; latency p99 %.3g s; SPM %.2f "
            "busy; a new disk takes %s\n",
            vm.vm_quantile, check->pauses_at_quantile, check->pauses_p99, check->latency_p99.count(),
            check->spm_utilization, format_size(align_up(c->chunk(), c->extent())).c_str());
        std::printf(
            "# one VM alone needs volume_utilization_chunk_mb = %llu: the other writers' extends at the SPM "
            "cost the rest\n",
            static_cast<unsigned long long>(one_vm.chunk_mb()));
        return 0;
    }
    table t({"rate_mib_s", "volume_utilization_chunk_mb", "volume_utilization_percent", "hosts", "drives_per_host",
             "writers", "runs", "max_pauses_per_run", "vm_quantile", "pauses_at_quantile", "pauses_p99",
             "latency_p99_s", "spm_utilization", "new_disk_size", "one_vm_chunk_mb", "scope", "target_met"});
    t.add_row({cell::of_real(r.mib_per_second(), 0), cell::of(c->chunk_mb()), cell::of(c->percent()),
               cell::of(d->hosts), cell::of(d->drives_per_host), cell::of(writers), cell::of(runs),
               cell::of(vm.max_pauses_per_run), cell::of_real(vm.vm_quantile, 6), cell::of(check->pauses_at_quantile),
               cell::of_real(check->pauses_p99, 6), cell::of_seconds(check->latency_p99, 4),
               cell::of_real(check->spm_utilization, 4), cell::of_size(align_up(c->chunk(), c->extent())),
               cell::of(one_vm.chunk_mb()), cell::of_text("domain"), cell::of(check->met ? 1u : 0u)});
    const std::string out = t.str(f);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}
}  // namespace

int run_recommend(int argc, char** argv) {
    // A list of rates or latency profiles: one answer per value, joined (per_value.hpp).
    if (const auto v = values_in(argc, argv, {"--rate", "--rates"}, split_commas); v.size() > 1)
        return run_per_value(argc, argv, {"--rate", "--rates"}, v, nullptr, run_recommend);
    if (const auto v = values_in(argc, argv, {"--latency"}, split_specs); v.size() > 1)
        return run_per_value(argc, argv, {"--latency"}, v, "latency", run_recommend);
    if (const auto v = values_in(argc, argv, {"--policy"}, split_commas); v.size() > 1)
        return run_per_value(argc, argv, {"--policy"}, v, "policy", run_recommend);
    if (is_lvm_invocation(argc, argv)) return run_recommend_lvm(argc, argv);
    const args a(
        "recommend",
        "provpol recommend --rate LIST [--max-pause-probability P] [--max-pauses-per-run N [--vm-quantile Q]]\n"
        "                         [--latency LIST] [--percent N] [--write SIZE]\n"
        "                         [--policy LIST [--preset P | --chunk SIZE --percent N]]\n"
        "                         [--hosts H --drives-per-host D [--writers N]] [--runs N] [--seed N]\n"
        "                         [--format text|csv|json]\n"
        "       provpol recommend --preset lvm-thin-autoextend --rate LIST --pool-size SIZE ...   (LVM autoextend: "
        "provpol recommend --preset lvm-thin-autoextend --help)",
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
          "per-VM target: the smallest configuration under which --vm-quantile of the simulated VMs pause at most "
          "N times in the write"},
         {"--vm-quantile", "Q",
          "the share of VMs that must meet --max-pauses-per-run, (0, 1] (with --max-pauses-per-run, "
          "default 0.99)"},
         {"--write", "SIZE", "how much each simulated VM writes, at --rate, on a disk twice as large (default 50GiB)"},
         {"--latency", "LIST",
          latency_spec_names + " (default vdsm-polling-2022); a comma-separated list answers for each", true},
         {"--percent", "N", "volume_utilization_percent to keep, 0-99 (default 20, VDSM's)"},
         {"--hosts", "H",
          "with --max-pauses-per-run: answer for --writers VMs writing at once on a storage domain of H hosts "
          "sharing one SPM (without it the answer is for one VM alone)"},
         {"--drives-per-host", "D", "with --hosts: drives per host, 1-10000 (at most 1000000 drives)"},
         {"--writers", "N",
          "with --hosts: the VMs writing at once, spread over the hosts in turn (default every drive)"},
         {"--runs", "N",
          "simulated runs that check the answer, 0-100000 (default 200, 0 skips the check; with --hosts, default "
          "1: domain runs per candidate, 1-100000)"},
         {"--seed", "N", "the simulation's seed (default 1)"},
         {"--max-events", "N", "refuse a check that would replay more simulated events (default 1000000000)"},
         {"--format", "FORMAT", "text (default: lines to paste into a VDSM configuration), csv or json"}},
        argc, argv);
    const format f = a.output_format();
    const std::uint64_t max_events = a.count("--max-events", 1, ~std::uint64_t{0}).value_or(default_max_events);
    const auto r = a.rate("--rate");
    if (!r) throw usage_error("--rate is required (e.g. --rate 400MiB/s)");
    if (r->bytes_per_second() == 0) throw usage_error("--rate must be above 0");
    const double p = a.decimal("--max-pause-probability", 0.0, 1.0).value_or(0.01);
    const std::uint64_t percent = a.count("--percent", 0, 99).value_or(20);
    const bool domain = a.has("--hosts") || a.has("--drives-per-host") || a.has("--writers");
    const std::uint64_t runs =
        domain ? a.count("--runs", 1, 100000).value_or(1) : a.count("--runs", 0, 100000).value_or(200);
    const std::uint64_t seed = a.count("--seed", 0, ~std::uint64_t{0}).value_or(1);
    const latency_model latency = latency_option(a);
    const std::string policy = a.value("--policy").value_or("static");
    const std::optional<per_vm_target> vm = per_vm_option(a, runs);
    const bytes write = a.size("--write").value_or(bytes(std::uint64_t{50} << 30));
    if (write.count() == 0 || write.count() > (std::uint64_t{1} << 50))
        throw usage_error("--write must be in [1B, 1PiB], got " + std::string(format_size(write).view()));
    const workload w = workload::make(write, *r, saturating_mul(write, 2)).value();
    if (domain) {
        if (!a.has("--hosts") || !a.has("--drives-per-host"))
            throw usage_error("--hosts and --drives-per-host go together (and --writers needs them)");
        if (!vm) throw usage_error("--hosts answers a per-VM target: give --max-pauses-per-run N");
        if (policy != "static")
            throw usage_error("--hosts: the domain's answer is a static VDSM configuration (--policy static)");
        if (!latency.is_flow())
            throw usage_error(
                "--hosts needs a --latency with the mailbox's clocks (vdsm-polling-2022, vdsm-mailbox-events, "
                "vdsm-immediate, vdsm-log:FILE or flow:FILE)");
    }
    // The rate-aware agent plans for the latency's longest unless a target is given.
    if (policy == "rate-aware")
        return recommend_rate_aware(a, *r, a.has("--max-pause-probability") ? p : 0.0, latency, runs, seed, f, w, vm,
                                    max_events);
    if (policy != "static")
        throw usage_error("--policy: unknown value '" + args::printable(policy) + "': expected static or rate-aware");
    if (a.has("--preset") || a.has("--chunk"))
        throw usage_error("--preset and --chunk set the floor of --policy rate-aware");
    const auto rec = recommend_vdsm(*r, latency, p, percent);
    if (!rec) fail(rec.error(), "--rate");
    // A limit beyond the write: every disk would be allocated in full before it is written, and the check would
    // simulate a write that never reaches an extend. Say so instead of printing the chunk.
    if (rec->required_limit >= write)
        throw usage_error("--rate " + std::string(format_rate(*r).view()) + ": the guest writes " +
                          human_size(rec->required_limit) + " during the latency's " + decimal_text(1.0 - p, 6) +
                          " quantile, more than --write " + std::string(format_size(write).view()) +
                          ": no extend keeps up, and a chunk that large (" + human_size(rec->new_disk_size) +
                          ") preallocates every disk; thin provisioning cannot serve this rate");
    // A new disk that already holds the write: the check would simulate no extend and pass whatever the
    // configuration (a vacuous "met").
    if (runs > 0 && rec->new_disk_size >= write)
        throw usage_error("--percent " + std::to_string(percent) + ": a new disk takes " +
                          human_size(rec->new_disk_size) + ", at least --write " +
                          std::string(format_size(write).view()) +
                          ": the check would simulate no extend; raise --write, lower --percent, or pass --runs 0");
    check_work("recommend",
               static_cast<double>(runs) * (vm ? 64.0 : 1.0) *
                   events_per_run(write, *r, rec->config.chunk(), latency.detection_period()),
               max_events,
               std::to_string(runs) + " runs of " + std::string(format_size(write).view()) +
                   (vm ? ", up to 64 candidate configurations" : ""));

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
    if (domain)
        return recommend_domain(a, *r, latency, w, *vm, percent, static_cast<std::uint32_t>(runs), seed, f, *vm_config,
                                max_events);
    // A target not met is its own exit status (3), in every format.
    const bool met = rec->pause_probability <= p && (!vm || vm_check.met);
    if (f == format::text) {
        const std::string spec = a.value("--latency").value_or("vdsm-polling-2022");
        std::printf("# provpol recommend: %s, at most %g of extends pausing, latency %s (%s)\n",
                    format_rate(*r).c_str(), p, spec.c_str(), describe(latency).c_str());
        if (vm_config) {
            std::printf("# per VM: %s in %s written (%llu simulated VMs)\n", per_vm_text(*vm).c_str(),
                        human_size(write).c_str(), static_cast<unsigned long long>(runs));
            std::printf("[irs]\nvolume_utilization_chunk_mb = %llu\nvolume_utilization_percent = %u\n",
                        static_cast<unsigned long long>(vm_config->chunk_mb()), vm_config->percent());
            std::printf(
                "# simulated: %.4g of the VMs within the target; pauses per run: median %g, 90%% %g, 99%% "
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
                    1.0 - p, latency.quantile(1.0 - p).count());
        std::printf("# cost: every new empty disk takes %s (vdsm-legacy: 1GiB, vdsm-2022: 2.5GiB)\n",
                    format_size(rec->new_disk_size).c_str());
        std::printf(
            "# for one VM alone: no other writer's extends at the SPM (--hosts H --drives-per-host D "
            "--writers N --max-pauses-per-run N answers for a storage domain)\n");
        if (latency.max() > seconds(0))
            std::printf(
                "# model: %.4g of extends pause at this rate; this configuration meets the target up to %.1f MiB/s\n",
                rec->pause_probability, rec->max_rate.mib_per_second());
        else  // no time to write in: the rate bound is the saturated 2^64 B/s, not a limit
            std::printf(
                "# model: %.4g of extends pause at this rate; with a latency of 0 this configuration meets "
                "the target at any rate\n",
                rec->pause_probability);
        if (runs > 0)
            std::printf(
                "# simulated: %s written at %s, %llu runs: %.2f extends and %.3g pauses per run, %.4g of extends "
                "paused;\n# per VM: median %g, 90%% %g, 99%% %g pauses per run\n",
                human_size(write).c_str(), format_rate(*r).c_str(), static_cast<unsigned long long>(runs),
                check.extends, check.pauses, check.pause_probability, check.pauses_p50, check.pauses_p90,
                check.pauses_p99);
        if (!met)
            std::printf(
                "# the target is NOT met (exit status 3)%s\n",
                vm && !vm_check.met ? ": the per-VM configuration above is the best found, not one that meets it" : "");
        return met ? 0 : exit_target_not_met;
    }
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
             "target_met"});
    t.add_row({cell::of_real(r->mib_per_second(), 0),
               cell::of_real(p, 6),
               cell::of(rec->config.chunk_mb()),
               cell::of(rec->config.percent()),
               cell::of_size(rec->limit),
               cell::of_size(rec->required_limit),
               cell::of_size(rec->new_disk_size),
               cell::of_real(rec->pause_probability, 4),
               cell::of_real(rec->max_rate.mib_per_second(), 0),
               cell::of(runs),
               cell::of_real(check.extends, 6),
               cell::of_real(check.pauses, 6),
               cell::of_real(check.pause_probability, 4),
               cell::of_real(check.pauses_p50, 6),
               cell::of_real(check.pauses_p90, 6),
               cell::of_real(check.pauses_p99, 6),
               cell::of_real(check.runs_mostly_paused, 4),
               cell::of_text("per-extend"),
               cell(),
               cell(),
               cell(),
               cell::of(rec->pause_probability <= p ? 1u : 0u)});
    if (vm_config) {
        const simulation_summary& v = vm_check.summary;
        const bytes vm_limit = vm_config->limit(false);
        t.add_row({cell::of_real(r->mib_per_second(), 0),
                   cell::of_real(p, 6),
                   cell::of(vm_config->chunk_mb()),
                   cell::of(vm_config->percent()),
                   cell::of_size(vm_limit),
                   cell(),
                   cell::of_size(align_up(vm_config->chunk(), vm_config->extent())),
                   cell::of_real(pause_probability(vm_limit, *r, latency), 4),
                   cell::of_real(max_write_rate(vm_limit, latency, p).mib_per_second(), 0),
                   cell::of(runs),
                   cell::of_real(v.extends, 6),
                   cell::of_real(v.pauses, 6),
                   cell::of_real(v.pause_probability, 4),
                   cell::of_real(v.pauses_p50, 6),
                   cell::of_real(v.pauses_p90, 6),
                   cell::of_real(v.pauses_p99, 6),
                   cell::of_real(v.runs_mostly_paused, 4),
                   cell::of_text("per-vm"),
                   cell::of(vm->max_pauses_per_run),
                   cell::of_real(vm->vm_quantile, 6),
                   cell::of_real(vm_check.share_within, 6),
                   cell::of(vm_check.met ? 1u : 0u)});
    }
    const std::string out = t.str(f);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return met ? 0 : exit_target_not_met;
}

}  // namespace provpol::cli
