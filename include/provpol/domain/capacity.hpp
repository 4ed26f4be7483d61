// provpol/domain/capacity.hpp - how many concurrent writers a storage domain holds under a per-VM pause target:
// check_writers() runs domains (domain.hpp) at one writer count, max_writers() answers "every count from 1 to N
// meets the target; N + 1 does not", search_max_writers() is that search over any check, recommend_vdsm_domain() the
// smallest chunk for a number of writers. The searches are simulate/search.hpp's scans: no monotonicity is assumed.
//
// A count's check rests on its writing VMs: with one domain run, "99% of 7 VMs" is all 7 of them, and the answer
// moves by several writers from one seed to the next. writers_runs gives each count enough domain runs for a number
// of writing VMs (ceil(vms / writers)), and the _seeds searches hold each count at several seeds: the answer is the
// conservative end of the seeds' answers, and capacity's and recommend's answers agree by construction
// (recommend_vdsm_writers: the smallest chunk under which every count from 1 to N meets at every seed, the same
// check as max_writers_seeds').
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_DOMAIN_CAPACITY_HPP
#define PROVPOL_DOMAIN_CAPACITY_HPP

#include "../config.hpp"
#include "../flow/latency.hpp"
#include "../result.hpp"
#include "../simulate/per_vm.hpp"
#include "../simulate/run.hpp"
#include "../simulate/search.hpp"
#include "simulator.hpp"

#include <cstdint>

namespace provpol {

/// A domain in which `writers` drives write (domain_config::is_writer) and the others idle, over `runs` domain
/// runs, measured against a per-VM target (simulate.hpp's per_vm_target).
struct writers_check {
    std::uint32_t writers = 0;
    bool met = false;  ///< at least detail::vms_needed(Q, writers x runs) writing VMs paused at most the target
    std::uint32_t pauses_at_quantile = 0;  ///< the target's quantile (run_accumulator::pauses_quantile)
    double pauses_p99 = 0.0;               ///< pauses per writing VM, 99th percentile over every writer of every run
    seconds latency_p99 = seconds(0);      ///< the domain's extend latency p99, the mean over the runs
    double spm_utilization = 0.0;          ///< the mean over the runs
    bool complete = true;  ///< false when stop_at_miss ended the check at a miss: the figures are partial
};

/// Runs `runs` domains of `cfg` (domain k seeded as runs k x drives on, as `provpol plan --hosts` does) in which
/// the first `writers` drives write `w` from the start and the others idle; every drive gets make_agent(d). `met`
/// counts the writing VMs within the target exactly. With `stop_at_miss`, the check ends as soon as more writing
/// VMs paused more than the target than it allows (a domain run stops there: domain_stop), so a miss costs little;
/// `met` is the same, the figures partial (`complete` false). Errors: simulate_domain's; `runs` 0; `writers` outside
/// [1, drives] (no writing VM is no evidence).
template <class MakeAgent>
PROVPOL_NODISCARD result<writers_check> check_writers(const domain_config& cfg, const latency_model& latency,
                                                      MakeAgent&& make_agent, const workload& w, per_vm_target target,
                                                      std::uint32_t writers, std::uint32_t runs, std::uint64_t seed,
                                                      bool stop_at_miss = false) {
    if (runs == 0)  // no domain run is no evidence: never "met"
        return unexpected(
            error::out_of_range("runs", error_value::of(runs), error_value::of(1), error_value::of(~std::uint32_t{0})));
    if (writers < 1 || writers > cfg.drives())
        return unexpected(error::out_of_range("writers", error_value::of(writers), error_value::of(1),
                                              error_value::of(cfg.drives())));
    writers_check out;
    out.writers = writers;
    run_accumulator acc;
    const drive_workload writing{w, seconds(0), seconds(0), seconds(0), true};
    const drive_workload idle = drive_workload::idle(w);
    const std::uint64_t vms = std::uint64_t{writers} * runs;
    const std::uint64_t allowed = vms - detail::vms_needed(target.vm_quantile, vms);  // VMs that may miss
    std::uint64_t missed = 0;
    std::uint32_t k = 0;
    for (; k < runs && out.complete; ++k) {
        const domain_stop stop{target.max_pauses_per_run, stop_at_miss ? allowed - missed + 1 : 0};
        const auto r = simulate_domain(
            cfg, latency, make_agent,
            [&](std::uint32_t d) noexcept { return cfg.is_writer(d, writers) ? writing : idle; }, seed,
            std::uint64_t{k} * cfg.drives(), stop);
        if (!r) return unexpected(r.error());
        for (std::uint32_t d = 0; d < r->drives(); ++d) {
            if (!cfg.is_writer(d, writers)) continue;
            acc.add(r->drive(d).run);
            missed += r->drive(d).run.pauses > target.max_pauses_per_run ? 1u : 0u;
        }
        out.latency_p99 += r->summary().latency_p99 / runs;
        out.spm_utilization += r->summary().spm_utilization / runs;
        out.complete = !(stop_at_miss && missed > allowed);
    }
    out.pauses_at_quantile = acc.pauses_quantile(target.vm_quantile);
    out.met = missed <= allowed;
    out.pauses_p99 = acc.summary().pauses_p99;
    out.complete = k == runs && out.complete;
    return out;
}

/// How many concurrent writers the domain holds under a per-VM target, and its figures.
struct max_writers_result {
    std::uint32_t writers = 0;      ///< every count from 1 to `writers` meets the target; writers + 1 does not, or
                                    ///< it is every drive (cfg.drives()). 0: one writer already misses it
    writers_check at_max;           ///< the check at `writers` (all zero when it is 0)
    std::uint32_t evaluations = 0;  ///< checks made: writers + 1, or every drive when all meet
};

/// The search behind max_writers, over any check of a writer count: check(writers) returns a
/// result<writers_check> (check_writers', or the same figures computed otherwise, e.g. on several threads). The
/// answer N is "every writer count from 1 to N meets the target; N + 1 does not (or N is every drive)": the counts
/// are checked from 1 up, each once, until one misses (longest_meeting_run). Nothing monotone is assumed, since
/// nothing is: one more writer can shift the SPM's phases and relieve it, so a count can miss between two that
/// meet (capacity --hosts 4 --drives-per-host 4 at 500 MiB/s under mailbox events: 1 to 10 meet, 11 and 12 miss,
/// 13 meets; tests/capacity_test.cpp), and the doubling and bisection this replaces answered counts with a miss
/// below them. N + 1 checks. Errors: the check's.
template <class Check>
PROVPOL_NODISCARD result<max_writers_result> search_max_writers(std::uint32_t drives, Check&& check) noexcept(
    noexcept(check(std::uint32_t{}))) {
    max_writers_result out;
    const auto run = longest_meeting_run(std::uint32_t{1}, drives, [&](std::uint32_t writers) -> result<bool> {
        result<writers_check> c = check(writers);
        if (!c) return unexpected(c.error());
        if (c->met) out.at_max = *c;
        return c->met;
    });
    if (!run) return unexpected(run.error());
    out.writers = run->found ? run->value : 0;
    out.evaluations = static_cast<std::uint32_t>(run->evaluations);
    return out;
}

/// Searches the writers (search_max_writers) with check_writers: every count from 1 to the answer meets the target,
/// one more does not (or it is every drive). Deterministic: every count is checked with the same seeds; the count
/// that misses stops at its miss (check_writers' stop_at_miss). Errors: simulate_domain's; `runs` 0.
template <class MakeAgent>
PROVPOL_NODISCARD result<max_writers_result> max_writers(const domain_config& cfg, const latency_model& latency,
                                                         MakeAgent&& make_agent, const workload& w,
                                                         per_vm_target target, std::uint32_t runs, std::uint64_t seed) {
    if (runs == 0)
        return unexpected(
            error::out_of_range("runs", error_value::of(runs), error_value::of(1), error_value::of(~std::uint32_t{0})));
    return search_max_writers(cfg.drives(), [&](std::uint32_t writers) {
        return check_writers(cfg, latency, make_agent, w, target, writers, runs, seed, true);
    });
}

/// How many domain runs a writer count is checked on: `fixed` runs at every count, or (fixed 0) enough for `vms`
/// writing VMs, ceil(vms / writers), so that "a share of the writing VMs" rests on as many VMs at every count.
struct writers_runs {
    std::uint32_t fixed = 0;  ///< runs at every count; 0: by `vms`
    std::uint32_t vms = 200;  ///< writing VMs per count when `fixed` is 0
    /// The runs at `writers` (at least 1).
    PROVPOL_NODISCARD constexpr std::uint32_t at(std::uint32_t writers) const noexcept {
        if (fixed != 0) return fixed;
        const std::uint32_t w = writers < 1 ? 1 : writers;
        const std::uint32_t n = vms / w + (vms % w != 0 ? 1u : 0u);
        return n < 1 ? 1 : n;
    }
};

/// seed + k, wrapping past 2^64 - 1 to 0: the seeds a check is held at.
PROVPOL_NODISCARD PROVPOL_MODULAR_ARITHMETIC constexpr std::uint64_t writers_nth_seed(std::uint64_t seed,
                                                                                      std::uint64_t k) noexcept {
    return seed + k;
}

/// check_writers at each of `seeds` seeds from `seed` (writers_nth_seed), each on runs.at(writers) domain runs:
/// met only when every seed meets; the figures are the first seed's, or, when a seed misses, that seed's. Stops at
/// the first seed that misses. Errors: check_writers'; `seeds` 0.
template <class MakeAgent>
PROVPOL_NODISCARD result<writers_check> check_writers_seeds(const domain_config& cfg, const latency_model& latency,
                                                            MakeAgent&& make_agent, const workload& w,
                                                            per_vm_target target, std::uint32_t writers,
                                                            writers_runs runs, std::uint64_t seed, std::uint32_t seeds,
                                                            bool stop_at_miss = false) {
    if (seeds == 0)
        return unexpected(error::out_of_range("seeds", error_value::of(seeds), error_value::of(1),
                                              error_value::of(~std::uint32_t{0})));
    writers_check first;
    for (std::uint32_t j = 0; j < seeds; ++j) {
        result<writers_check> c = check_writers(cfg, latency, make_agent, w, target, writers, runs.at(writers),
                                                writers_nth_seed(seed, j), stop_at_miss);
        if (!c || !c->met) return c;
        if (j == 0) first = *c;
    }
    return first;
}

/// max_writers held at `seeds` seeds, each count on runs.at(count) domain runs (check_writers_seeds): every count
/// from 1 to N meets the target at every seed; N + 1 misses at one of them (or N is every drive). It is the smallest
/// of the seeds' own answers: the conservative end of their spread. Errors: check_writers_seeds'.
template <class MakeAgent>
PROVPOL_NODISCARD result<max_writers_result> max_writers_seeds(const domain_config& cfg, const latency_model& latency,
                                                               MakeAgent&& make_agent, const workload& w,
                                                               per_vm_target target, writers_runs runs,
                                                               std::uint64_t seed, std::uint32_t seeds) {
    return search_max_writers(cfg.drives(), [&](std::uint32_t writers) {
        return check_writers_seeds(cfg, latency, make_agent, w, target, writers, runs, seed, seeds, true);
    });
}

namespace detail {

/// The scan recommend_vdsm_writers and recommend_vdsm_domain share: the smallest VDSM chunk, in whole extents from 1
/// up to vdsm_chunk_bound(w.write_size, extent), at `percent`, whose static agent `agent_meets(agent)` holds (a
/// result<bool>), `before(extents)` called before each candidate. Errors: a percent or an extent vdsm_config
/// refuses; writers 0 or above the drives; no chunk up to the bound meets; before's and agent_meets'.
template <class Before, class AgentMeets>
PROVPOL_NODISCARD result<vdsm_config> smallest_vdsm_domain_chunk(const domain_config& cfg, const workload& w,
                                                                 per_vm_target target, std::uint32_t writers,
                                                                 std::uint64_t percent, bytes extent, Before&& before,
                                                                 AgentMeets&& agent_meets) {
    if (const auto valid = vdsm_config::make(bytes(std::uint64_t{1} << 20), percent, lvm_extent_size(extent)); !valid)
        return unexpected(valid.error());
    if (writers < 1 || writers > cfg.drives())
        return unexpected(error::out_of_range("writers", error_value::of(writers), error_value::of(1),
                                              error_value::of(cfg.drives())));
    const auto config = [&](std::uint64_t extents) {
        return vdsm_config::make(bytes(extents * extent.count()), percent, lvm_extent_size(extent));
    };
    const auto meets = [&](std::uint64_t extents) -> result<bool> {
        if (auto go = before(extents); !go) return unexpected(go.error());
        const auto c = config(extents);
        if (!c) return unexpected(c.error());
        const static_agent<vdsm_policy> agent(make_vdsm_policy(*c));
        return agent_meets(agent);
    };
    const auto found = smallest_meeting(std::uint64_t{1}, vdsm_chunk_bound(w.write_size, extent), meets);
    if (!found) return unexpected(found.error());
    if (!found->found)
        return unexpected(error::unsupported("max_pauses_per_run",
                                             "no VDSM chunk up to the write's size (at most 1PiB) meets the per-VM "
                                             "target for these writers on this domain (pauses per run)",
                                             error_value::of(target.max_pauses_per_run)));
    return config(found->value);
}

}  // namespace detail

/// The smallest VDSM configuration under which every writer count from 1 to `writers` of `cfg` meets the per-VM
/// target at each of `seeds` seeds (check_writers_seeds, each count on runs.at(count) domain runs), `percent` kept:
/// the chunk capacity answers for. The smallest chunk in whole extents from 1 up to vdsm_chunk_bound(w.write_size,
/// extent), scanned from one extent up (smallest_meeting): every chunk below the answer has a count and a seed at
/// which it was simulated and missed. A candidate is checked at `writers` first (where it most often misses), then
/// from 1 up, stopping at its first miss. So max_writers_seeds with the answer's configuration and the same runs and
/// seeds is at least `writers`, and a configuration for which it is at least `writers` is no smaller than the
/// answer. `before(extents)` is called before each candidate, as in recommend_vdsm_per_vm. Errors: those of
/// recommend_vdsm_domain.
template <class Before>
PROVPOL_NODISCARD result<vdsm_config> recommend_vdsm_writers(const domain_config& cfg, const latency_model& latency,
                                                             const workload& w, per_vm_target target,
                                                             std::uint32_t writers, std::uint64_t percent,
                                                             writers_runs runs, std::uint64_t seed, std::uint32_t seeds,
                                                             bytes extent, Before&& before) {
    return detail::smallest_vdsm_domain_chunk(
        cfg, w, target, writers, percent, extent, before, [&](const static_agent<vdsm_policy>& agent) -> result<bool> {
            const auto make = [&agent](std::uint32_t) noexcept { return agent; };
            for (std::uint32_t i = 0; i < writers; ++i) {
                const std::uint32_t n = i == 0 ? writers : i;  // `writers` first, then 1 to writers - 1
                const auto r = check_writers_seeds(cfg, latency, make, w, target, n, runs, seed, seeds, true);
                if (!r) return unexpected(r.error());
                if (!r->met) return false;
            }
            return true;
        });
}

/// The smallest VDSM configuration under which `writers` drives of `cfg` writing `w` at once meet the per-VM target
/// (check_writers with VDSM's static agent), `percent` kept: recommend_vdsm_per_vm for a storage domain, where the
/// writers' extends queue at the one SPM. The smallest chunk, in whole extents from 1 up to
/// vdsm_chunk_bound(w.write_size, extent) (where no VM can pause), that meets the target over `runs` domain runs:
/// scanned from one extent up (smallest_meeting; a candidate that misses stops at its miss), so every chunk below
/// the answer was simulated and missed. No bound from the single VM's answer is assumed: nothing proves that a
/// domain needs at least what one VM alone needs under other draws. Deterministic: every candidate runs the same
/// domains. `before(extents)` is called before each candidate, as in recommend_vdsm_per_vm. Errors: check_writers';
/// a percent or an extent vdsm_config refuses; writers 0 or above the drives; no chunk up to the bound meets the
/// target (only for a write above VDSM's largest chunk); before's.
template <class Before>
PROVPOL_NODISCARD result<vdsm_config> recommend_vdsm_domain(const domain_config& cfg, const latency_model& latency,
                                                            const workload& w, per_vm_target target,
                                                            std::uint32_t writers, std::uint64_t percent,
                                                            std::uint32_t runs, std::uint64_t seed, bytes extent,
                                                            Before&& before) {
    return detail::smallest_vdsm_domain_chunk(
        cfg, w, target, writers, percent, extent, before, [&](const static_agent<vdsm_policy>& agent) -> result<bool> {
            const auto r = check_writers(
                cfg, latency, [&agent](std::uint32_t) noexcept { return agent; }, w, target, writers, runs, seed, true);
            if (!r) return unexpected(r.error());
            return r->met;
        });
}

/// recommend_vdsm_domain without a hook.
PROVPOL_NODISCARD inline result<vdsm_config> recommend_vdsm_domain(const domain_config& cfg,
                                                                   const latency_model& latency, const workload& w,
                                                                   per_vm_target target, std::uint32_t writers,
                                                                   std::uint64_t percent, std::uint32_t runs,
                                                                   std::uint64_t seed,
                                                                   bytes extent = bytes(std::uint64_t{128} << 20)) {
    return recommend_vdsm_domain(cfg, latency, w, target, writers, percent, runs, seed, extent,
                                 [](std::uint64_t) noexcept { return result<void>(); });
}

}  // namespace provpol

#endif  // PROVPOL_DOMAIN_CAPACITY_HPP
