// provpol/domain/capacity.hpp - how many concurrent writers a storage domain holds under a per-VM pause target:
// check_writers() runs domains (domain.hpp) at one writer count, max_writers() searches the count (doubling, then
// bisection), search_max_writers() is that search over any check.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_DOMAIN_CAPACITY_HPP
#define PROVPOL_DOMAIN_CAPACITY_HPP

#include "../config.hpp"
#include "../flow/latency.hpp"
#include "../result.hpp"
#include "../simulate/run.hpp"
#include "simulator.hpp"

#include <cstdint>

namespace provpol {

/// A domain in which `writers` drives write (domain_config::is_writer) and the others idle, over `runs` domain
/// runs, measured against a per-VM target (simulate.hpp's per_vm_target).
struct writers_check {
    std::uint32_t writers = 0;
    bool met = false;                      ///< the target's quantile of pauses per writing VM is at most its maximum
    std::uint32_t pauses_at_quantile = 0;  ///< that quantile (run_accumulator::pauses_quantile)
    double pauses_p99 = 0.0;               ///< pauses per writing VM, 99th percentile over every writer of every run
    seconds latency_p99 = seconds(0);      ///< the domain's extend latency p99, the mean over the runs
    double spm_utilization = 0.0;          ///< the mean over the runs
};

/// Runs `runs` domains of `cfg` (domain k seeded as runs k x drives on, as `provpol plan --hosts` does) in which
/// the first `writers` drives write `w` from the start and the others idle; every drive gets make_agent(d).
/// Errors: simulate_domain's; `runs` 0.
template <class MakeAgent>
PROVPOL_NODISCARD result<writers_check> check_writers(const domain_config& cfg, const latency_model& latency,
                                                      MakeAgent&& make_agent, const workload& w, per_vm_target target,
                                                      std::uint32_t writers, std::uint32_t runs, std::uint64_t seed) {
    if (runs == 0)  // no domain run is no evidence: never "met"
        return unexpected(
            error::out_of_range("runs", error_value::of(runs), error_value::of(1), error_value::of(~std::uint32_t{0})));
    writers_check out;
    out.writers = writers;
    run_accumulator acc;
    const drive_workload writing{w, seconds(0), seconds(0), seconds(0), true};
    const drive_workload idle = drive_workload::idle(w);
    for (std::uint32_t k = 0; k < runs; ++k) {
        const auto r = simulate_domain(
            cfg, latency, make_agent,
            [&](std::uint32_t d) noexcept { return cfg.is_writer(d, writers) ? writing : idle; }, seed,
            std::uint64_t{k} * cfg.drives());
        if (!r) return unexpected(r.error());
        for (std::uint32_t d = 0; d < r->drives(); ++d)
            if (cfg.is_writer(d, writers)) acc.add(r->drive(d).run);
        out.latency_p99 += r->summary().latency_p99 / runs;
        out.spm_utilization += r->summary().spm_utilization / runs;
    }
    out.pauses_at_quantile = acc.pauses_quantile(target.vm_quantile);
    out.met = out.pauses_at_quantile <= target.max_pauses_per_run;
    out.pauses_p99 = acc.summary().pauses_p99;
    return out;
}

/// The largest number of concurrent writers the domain holds under a per-VM target, and its figures.
struct max_writers_result {
    std::uint32_t writers = 0;      ///< 0: even one writer misses the target; cfg.drives(): every drive meets it
    writers_check at_max;           ///< check_writers at `writers` (all zero when it is 0)
    std::uint32_t evaluations = 0;  ///< check_writers calls made
};

/// The search behind max_writers, over any check of a writer count: check(writers) returns a
/// result<writers_check> (check_writers', or the same figures computed otherwise, e.g. on several threads). The
/// counts double from 1 (1, 2, 4, ... up to `drives`), then bisect between the last count that met the target and
/// the first that missed it: the answer meets it and one more writer does not (unless it is every drive). At most
/// about 2 log2(drives) + 2 checks, each count at most once. Errors: the check's.
template <class Check>
PROVPOL_NODISCARD result<max_writers_result> search_max_writers(std::uint32_t drives, Check&& check) noexcept(
    noexcept(check(std::uint32_t{}))) {
    max_writers_result out;
    const std::uint32_t n = drives;
    const auto counted = [&](std::uint32_t writers) {
        ++out.evaluations;
        return check(writers);
    };
    result<writers_check> lo = counted(1);
    if (!lo) return unexpected(lo.error());
    if (!lo->met) return out;
    std::uint32_t hi = n + 1;  // the smallest count known to miss (n + 1: none known)
    while (lo->writers < n) {
        const std::uint32_t next = lo->writers > n / 2 ? n : lo->writers * 2;
        result<writers_check> c = counted(next);
        if (!c) return unexpected(c.error());
        if (!c->met) {
            hi = next;
            break;
        }
        lo = c;
    }
    while (hi <= n && hi - lo->writers > 1) {
        const std::uint32_t mid = lo->writers + (hi - lo->writers) / 2;
        result<writers_check> c = counted(mid);
        if (!c) return unexpected(c.error());
        if (c->met)
            lo = c;
        else
            hi = mid;
    }
    out.writers = lo->writers;
    out.at_max = *lo;
    return out;
}

/// Searches the writers (search_max_writers) with check_writers. Deterministic: every count is checked with the
/// same seeds. Errors: simulate_domain's; `runs` 0.
template <class MakeAgent>
PROVPOL_NODISCARD result<max_writers_result> max_writers(const domain_config& cfg, const latency_model& latency,
                                                         MakeAgent&& make_agent, const workload& w,
                                                         per_vm_target target, std::uint32_t runs, std::uint64_t seed) {
    if (runs == 0)
        return unexpected(
            error::out_of_range("runs", error_value::of(runs), error_value::of(1), error_value::of(~std::uint32_t{0})));
    return search_max_writers(cfg.drives(), [&](std::uint32_t writers) {
        return check_writers(cfg, latency, make_agent, w, target, writers, runs, seed);
    });
}

/// The smallest VDSM configuration (the chunk in whole extents, `percent` kept) under which `writers` drives of
/// `cfg` writing `w` at once meet the per-VM target (check_writers with VDSM's static agent): recommend_vdsm_per_vm
/// for a storage domain, where the writers' extends queue at the one SPM. The chunk doubles from `from_extents`
/// (at least 1; the single VM's answer is a lower bound worth starting from) until the target is met, then
/// bisects; every candidate runs the same domains. Errors: check_writers'; a percent or an extent vdsm_config
/// refuses; writers 0 or above the drives; no chunk up to VDSM's largest meets the target.
PROVPOL_NODISCARD inline result<vdsm_config> recommend_vdsm_domain(const domain_config& cfg,
                                                                   const latency_model& latency, const workload& w,
                                                                   per_vm_target target, std::uint32_t writers,
                                                                   std::uint64_t percent, std::uint32_t runs,
                                                                   std::uint64_t seed, std::uint64_t from_extents = 1,
                                                                   bytes extent = bytes(std::uint64_t{128} << 20)) {
    if (const auto valid = vdsm_config::make(1, percent, extent); !valid) return unexpected(valid.error());
    if (writers < 1 || writers > cfg.drives())
        return unexpected(error::out_of_range("writers", error_value::of(writers), error_value::of(1),
                                              error_value::of(cfg.drives())));
    const std::uint64_t max_extents = (vdsm_config::max_chunk_mb << 20) / extent.count();
    const auto config = [&](std::uint64_t extents) {
        return vdsm_config::make_bytes(bytes(extents * extent.count()), percent, extent);
    };
    const auto meets = [&](std::uint64_t extents) -> result<bool> {
        const auto c = config(extents);
        if (!c) return unexpected(c.error());
        const static_agent<vdsm_policy> agent(make_vdsm_policy(*c));
        const auto r = check_writers(
            cfg, latency, [&agent](std::uint32_t) noexcept { return agent; }, w, target, writers, runs, seed);
        if (!r) return unexpected(r.error());
        return r->met;
    };
    std::uint64_t lo = 0;
    std::uint64_t hi = from_extents < 1 ? 1 : (from_extents > max_extents ? max_extents : from_extents);
    for (;;) {
        const auto m = meets(hi);
        if (!m) return unexpected(m.error());
        if (*m) break;
        if (hi >= max_extents)
            return unexpected(error::unsupported("max_pauses_per_run",
                                                 "no VDSM chunk up to 1PiB meets the per-VM target for these "
                                                 "writers on this domain (pauses per run)",
                                                 error_value::of(target.max_pauses_per_run)));
        lo = hi;
        hi = hi * 2 > max_extents ? max_extents : hi * 2;
    }
    while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        const auto m = meets(mid);
        if (!m) return unexpected(m.error());
        if (*m)
            hi = mid;
        else
            lo = mid;
    }
    return config(hi);
}

}  // namespace provpol

#endif  // PROVPOL_DOMAIN_CAPACITY_HPP
