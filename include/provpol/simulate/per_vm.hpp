// provpol/simulate/per_vm.hpp - a per-VM pause target (a share of VMs pause at most N times), whether simulated VMs
// meet it, and the smallest VDSM chunk that does; the VDSM setting (chunk and percent) with a margin, and what a new
// disk costs under it (search_vdsm_setting, vdsm_disk_cost).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_PER_VM_HPP
#define PROVPOL_SIMULATE_PER_VM_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../error.hpp"
#include "../extend/presets.hpp"
#include "../result.hpp"
#include "agent.hpp"
#include "run.hpp"
#include "run_result.hpp"
#include "run_summary.hpp"
#include "search.hpp"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace provpol {

/// A per-VM pause target: a share `vm_quantile` of VMs (runs) pause at most `max_pauses_per_run` times.
struct per_vm_target {
    std::uint32_t max_pauses_per_run = 1;
    double vm_quantile = 0.99;

    /// Validates: vm_quantile in (0, 1].
    PROVPOL_NODISCARD static result<per_vm_target> make(std::uint32_t max_pauses_per_run, double vm_quantile) noexcept {
        if (!(vm_quantile > 0.0 && vm_quantile <= 1.0))
            return unexpected(error::unsupported("vm_quantile", "must be above 0 and at most 1 (a share of VMs)",
                                                 error_value::of_real(vm_quantile)));
        return per_vm_target{max_pauses_per_run, vm_quantile};
    }
};

namespace detail {

/// How many of `vms` simulated VMs must pause at most a target's count for a share q of them to: ceil(q x vms)
/// whole VMs (the product's last-bit noise, as in 0.99 x 200 = 198.00000000000003, is not a VM), and at least one,
/// since no simulated VM is no evidence. run_accumulator::pauses_quantile(q) counts the same way (below its
/// histogram's last bin).
PROVPOL_NODISCARD inline std::uint64_t vms_needed(double q, std::uint64_t vms) noexcept {
    const double need = detail::ceil(q * static_cast<double>(vms) - 1e-9);
    return need < 1.0 ? 1 : static_cast<std::uint64_t>(need);
}

}  // namespace detail

/// A per-VM target counted VM by VM, as check_per_vm and meets_per_vm count it and check_writers counts a domain's
/// writing VMs: add each VM's pause count; met() when at least ceil(Q x VMs) of them, and at least one, paused at
/// most max_pauses_per_run times. For a caller that runs the VMs itself (a domain plan on several threads) and must
/// answer as the library does; no quantile of the pause counts is taken, so no histogram bound applies.
class per_vm_tally {
public:
    constexpr explicit per_vm_tally(per_vm_target target) noexcept : target_(target) {}
    /// One more VM, which paused `pauses` times.
    constexpr void add(std::uint64_t pauses) noexcept {
        ++vms_;
        if (pauses <= target_.max_pauses_per_run) ++within_;
    }
    PROVPOL_NODISCARD constexpr std::uint64_t vms() const noexcept { return vms_; }
    /// The VMs that paused at most max_pauses_per_run times.
    PROVPOL_NODISCARD constexpr std::uint64_t within() const noexcept { return within_; }
    /// The VMs that must be within for the target to be met: ceil(Q x vms()), at least 1.
    PROVPOL_NODISCARD std::uint64_t needed() const noexcept { return detail::vms_needed(target_.vm_quantile, vms_); }
    PROVPOL_NODISCARD bool met() const noexcept { return within_ >= needed(); }

private:
    per_vm_target target_;
    std::uint64_t vms_ = 0;
    std::uint64_t within_ = 0;
};

/// Whether `runs` simulated VMs under `agent` meet `target`, and their summary.
struct per_vm_check {
    bool met = false;           ///< at least detail::vms_needed(vm_quantile, runs) runs paused at most the target
    double share_within = 0.0;  ///< the share of runs that paused at most max_pauses_per_run times (0 for 0 runs)
    simulation_summary summary;
};

/// Runs i = 0 .. runs - 1 (seeded run_seed(seed, i)) and counts, exactly, the runs that paused at most
/// target.max_pauses_per_run times: met when they are at least ceil(Q x runs) (and at least one).
template <class Agent, class Latency>
PROVPOL_NODISCARD per_vm_check check_per_vm(const Agent& agent, const Latency& latency, const workload& w,
                                            per_vm_target target, std::uint32_t runs, std::uint64_t seed) noexcept {
    run_accumulator acc;
    per_vm_tally tally(target);
    simulate_each(agent, latency, w, runs, seed, [&](std::uint32_t, const run_result& r) noexcept {
        acc.add(r);
        tally.add(r.pauses);
    });
    per_vm_check c;
    c.share_within = runs > 0 ? static_cast<double>(tally.within()) / runs : 0.0;
    c.met = tally.met();
    c.summary = acc.summary();
    return c;
}

/// check_per_vm(...).met, with no more simulation than that answer needs: a run stops at its pause
/// max_pauses_per_run + 1 (simulate_run's pause_limit), and the runs stop once more of them missed than the target
/// allows. The same runs and seeds, so the same answer (tests/simulate_test.cpp compares the two); what a search pays
/// for the many candidates that miss.
template <class Agent, class Latency>
PROVPOL_NODISCARD bool meets_per_vm(const Agent& agent, const Latency& latency, const workload& w, per_vm_target target,
                                    std::uint32_t runs, std::uint64_t seed) noexcept {
    const std::uint64_t needed = detail::vms_needed(target.vm_quantile, runs);
    if (needed > runs) return false;
    const std::uint64_t allowed = runs - needed;  // runs that may pause more than the target
    std::uint64_t missed = 0;
    for (std::uint32_t i = 0; i < runs; ++i) {
        const run_result r = simulate_run(agent, latency, w, run_seed(seed, i), target.max_pauses_per_run);
        if (r.pauses > target.max_pauses_per_run && ++missed > allowed) return false;
    }
    return true;
}

/// The largest chunk, in extents, that recommend_vdsm_per_vm and recommend_vdsm_domain try: the write rounded up to
/// whole extents, at most VDSM's largest chunk (vdsm_config::max_chunk_mb). A new disk of that chunk holds the
/// whole write, so no VM reaches its LV's end and every target is met there: "none meets" is left for a write
/// above VDSM's largest chunk. The extent must be one vdsm_config accepts (a power of two in [1 MiB, 16 GiB]).
PROVPOL_NODISCARD inline std::uint64_t vdsm_chunk_bound(bytes write_size, bytes extent) noexcept {
    const std::uint64_t e = extent.count();
    const std::uint64_t most = (vdsm_config::max_chunk_mb << 20) / e;
    const std::uint64_t whole = write_size.count() / e + (write_size.count() % e != 0 ? 1 : 0);
    return whole < 1 ? 1 : (whole > most ? most : whole);
}

// --- the VDSM setting with a margin -------------------------------------------------------------------------------

/// What a VDSM setting costs an operator before any pause: the LV a new thin disk gets (VDSM's initial size for a
/// sparse qcow2 volume: the chunk, rounded up to the extent; extend/vdsm_sizes.hpp's alloc_size), and how much a
/// guest writes into it before its first extend (the initial size less the free-space limit). At percent 0 that is
/// nothing: the first write extends it, so every disk written at all holds two chunks.
struct vdsm_disk_cost {
    bytes new_disk;             ///< the LV of a new thin disk
    bytes before_first_extend;  ///< written before its first extend: new_disk - limit (0: the first write extends)
    /// What a disk holds once written at all: new_disk, plus a chunk when its first write extends it.
    PROVPOL_NODISCARD constexpr bytes written_disk(const vdsm_config& c) const noexcept {
        return before_first_extend.count() == 0 ? saturating_add(new_disk, c.chunk()) : new_disk;
    }
};

/// vdsm_disk_cost of a configuration (the disk's capacity taken as at least its chunk).
PROVPOL_NODISCARD constexpr vdsm_disk_cost vdsm_disk_cost_of(const vdsm_config& c) noexcept {
    const bytes lv = align_up(c.chunk(), c.extent());
    return {lv, saturating_sub(lv, c.limit(false))};
}

/// How far a VDSM answer stands from a setting that misses, in the directions an operator moves it to be safer: every
/// chunk from the answer's to `extents` extents above it, at every percent of the grid from the answer's down to
/// `percent` below it (a lower percent extends earlier), meets.
struct vdsm_margin {
    std::uint64_t extents = 2;   ///< chunks above the answer's, in extents (2 x 128 MiB: 256 MiB)
    std::uint32_t percent = 10;  ///< percents below the answer's, on the grid searched
};

/// What search_vdsm_setting found.
struct vdsm_setting_answer {
    std::uint64_t extents = 0;  ///< the chunk, in extents (when found)
    std::uint32_t percent = 0;  ///< volume_utilization_percent (when found)
    bool found = false;
    /// Per percent of the grid, in the grid's order: the smallest chunk (extents) whose box meets, 0 when none does up
    /// to where the search stopped looking (a chunk that could not beat the answer).
    std::vector<std::pair<std::uint32_t, std::uint64_t>> per_percent;
    std::uint64_t evaluations = 0;  ///< settings evaluated, each once
};

/// The VDSM setting with a margin over a grid of percents (`percents`, each in [0, 99]) and chunks of 1 to
/// `max_extents` extents: for a percent p, C(p) is the smallest chunk C such that every chunk from C to C +
/// m.extents meets at every percent q of the grid with p - m.percent <= q <= p (smallest_meeting_window over the
/// chunks, each column "every such percent meets at this chunk"); the answer is the (C(p), p) whose disk is cheapest,
/// `cost(extents, percent)` (smaller is better), ties to the larger percent (it extends later). Every chunk below C(p)
/// at p has a setting in its box that was evaluated and missed, whatever the shape of meets (it is not monotone in
/// the chunk: a larger chunk's extends fall on other clocks' phases). A percent whose chunks cannot beat the answer
/// found so far is scanned only as far as that, so per_percent holds 0 there. meets(extents, percent) returns bool or
/// result<bool>; its first error ends the search. Each setting is evaluated at most once. cost(extents, percent) must
/// not decrease as the chunk grows at one percent (vdsm_disk_cost's written_disk does not).
/// With `prune` false every percent is scanned to its own C(p) (per_percent then holds each), for a caller that
/// prints the trade-off at every percent.
template <class Meets, class Cost>
PROVPOL_NODISCARD result<vdsm_setting_answer> search_vdsm_setting(const std::vector<std::uint32_t>& percents,
                                                                  std::uint64_t max_extents, vdsm_margin m,
                                                                  Meets&& meets, Cost&& cost, bool prune = true) {
    vdsm_setting_answer a;
    std::map<std::pair<std::uint64_t, std::uint32_t>, bool> seen;
    const auto get = [&](std::uint64_t extents, std::uint32_t percent) -> result<bool> {
        const auto key = std::make_pair(extents, percent);
        if (const auto it = seen.find(key); it != seen.end()) return it->second;
        const result<bool> r = detail::search_outcome(meets(extents, percent));
        if (!r) return r;
        seen.emplace(key, *r);
        ++a.evaluations;
        return r;
    };
    for (const std::uint32_t p : percents) {
        // The answer so far bounds the scan: the cost grows with the chunk at one percent, so a C(p) above the
        // largest chunk that costs no more than the answer cannot beat it (found by bisection on that order).
        std::uint64_t hi = max_extents;
        if (a.found && prune) {
            const auto best = cost(a.extents, a.percent);
            std::uint64_t lo = 0, up = max_extents;  // cost(lo, p) <= best (lo 0: none), cost(up + 1, p) > best
            while (lo < up) {
                const std::uint64_t mid = lo + (up - lo + 1) / 2;
                if (best < cost(mid, p))
                    up = mid - 1;
                else
                    lo = mid;
            }
            if (lo == 0) {
                a.per_percent.emplace_back(p, 0);
                continue;
            }
            hi = max_extents - lo < m.extents ? max_extents : lo + m.extents;
        }
        const auto column = [&](std::uint64_t extents) -> result<bool> {
            for (const std::uint32_t q : percents) {
                if (q > p || q + m.percent < p) continue;
                const result<bool> r = get(extents, q);
                if (!r || !*r) return r;
            }
            return true;
        };
        const auto w = smallest_meeting_window(std::uint64_t{1}, hi, m.extents, column);
        if (!w) return unexpected(w.error());
        a.per_percent.emplace_back(p, w->found ? w->value : 0);
        if (!w->found) continue;
        const auto better = [&](std::uint64_t e, std::uint32_t q) {
            const auto c = cost(e, q), best = cost(a.extents, a.percent);
            return c < best || (!(best < c) && q > a.percent);
        };
        if (!a.found || better(w->value, p)) {
            a.extents = w->value;
            a.percent = p;
            a.found = true;
        }
    }
    return a;
}

/// The smallest VDSM configuration for a per-VM target, the per-VM counterpart of recommend_vdsm's per-extend one:
/// the smallest chunk, in whole extents from 1 up to vdsm_chunk_bound(w.write_size, extent), under which a share
/// target.vm_quantile of `runs` simulated VMs writing `w` pause at most target.max_pauses_per_run times
/// (check_per_vm), `percent` kept. The candidates are scanned from one extent up (smallest_meeting, with
/// meets_per_vm): every chunk below the answer was simulated and missed. No monotonicity is assumed, for there is
/// none: under the same draws a larger chunk can pause a VM more often (its extends fall on other monitor and mailbox
/// phases), and the doubling and bisection this replaces answered above the smallest chunk that meets (the sweep in
/// tests/simulate_test.cpp). Run i of every candidate uses the same random numbers, so the answer is deterministic
/// for these runs and this seed; another seed may answer another chunk (recommend prints the spread over seeds).
/// `before(extents)`, called before each candidate is simulated, returns result<void>: its error ends the search
/// and is returned (a caller's bound on the work, or its progress). Errors: a percent outside [0, 99] or an extent
/// vdsm_config refuses; no chunk up to the bound meets the target (only for a write above VDSM's largest chunk, or 0
/// runs); before's.
template <class Latency, class Before>
PROVPOL_NODISCARD result<vdsm_config> recommend_vdsm_per_vm(const workload& w, const Latency& latency,
                                                            per_vm_target target, std::uint64_t percent,
                                                            std::uint32_t runs, std::uint64_t seed, bytes extent,
                                                            Before&& before) {
    // Validates percent and the extent (a power of two in [1 MiB, 16 GiB]) before dividing by it.
    if (const auto valid = vdsm_config::make(bytes(std::uint64_t{1} << 20), percent, lvm_extent_size(extent)); !valid)
        return unexpected(valid.error());
    const auto config = [&](std::uint64_t extents) {
        return vdsm_config::make(bytes(extents * extent.count()), percent, lvm_extent_size(extent));
    };
    const auto found = smallest_meeting(
        std::uint64_t{1}, vdsm_chunk_bound(w.write_size, extent), [&](std::uint64_t extents) -> result<bool> {
            if (auto go = before(extents); !go) return unexpected(go.error());
            const auto c = config(extents);
            if (!c) return unexpected(c.error());
            return meets_per_vm(static_agent<vdsm_policy>(make_vdsm_policy(*c)), latency, w, target, runs, seed);
        });
    if (!found) return unexpected(found.error());
    if (!found->found)
        return unexpected(error::unsupported("max_pauses_per_run",
                                             "no VDSM chunk up to the write's size (at most 1PiB) meets the per-VM "
                                             "target at this rate (pauses per run)",
                                             error_value::of(target.max_pauses_per_run)));
    return config(found->value);
}

/// recommend_vdsm_per_vm without a hook.
template <class Latency>
PROVPOL_NODISCARD result<vdsm_config> recommend_vdsm_per_vm(const workload& w, const Latency& latency,
                                                            per_vm_target target, std::uint64_t percent,
                                                            std::uint32_t runs, std::uint64_t seed,
                                                            bytes extent = bytes(std::uint64_t{128} << 20)) noexcept {
    return recommend_vdsm_per_vm(w, latency, target, percent, runs, seed, extent,
                                 [](std::uint64_t) noexcept { return result<void>(); });
}

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_PER_VM_HPP
