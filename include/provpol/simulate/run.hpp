// provpol/simulate/run.hpp - a deterministic, seeded simulator of a guest writing into a new thin disk, governed by
// any extend policy and any latency model. It counts extends, pauses, pause time and the space allocated but
// not written, over one run or many.
//
// The flow it replays (oVirt's, see flow/latency.hpp): the guest writes sequentially at a constant rate; the block
// threshold the agent registered fires when the allocation reaches it; the agent's monitor wakes every
// monitoring interval (at a random phase relative to the start of the write) and asks the policy; an extend
// it requests completes after a draw of the latency model; the LV grows to the size the policy decided; the
// agent re-registers the threshold from the real LV size. One extend is in flight per drive, unless the agent's
// optional max_in_flight() allows a second request on top of a pending one (up to 2). The guest pauses
// (ENOSPC) when its allocation reaches the LV size and resumes when an extend completes.
//
// When the latency model has a detection stage (a poll: vdsm-polling-2022, vdsm-mailbox-events), that poll IS
// the agent's monitor: the simulator runs it explicitly and draws only the rest of the pipeline after a
// request. When detection is immediate (vdsm-immediate, fixed:, measured samples), the agent requests at the
// threshold or pause event and the whole latency follows; the monitor still wakes every monitoring interval.
//
// What the agent is told, and nothing else (an agent cannot peek at the simulated rate):
//   observe({sample, t, allocation, physical})    at every monitor wake-up (the first one before the write
//                                                 started, at a negative time: the monitor saw the empty drive)
//   observe({threshold, t, allocation, physical}) when the block threshold fires
//   observe({pause, t, allocation, physical})     when the guest pauses on ENOSPC
//   observe({extended, t, allocation, physical})  when an extend completes (physical is the new LV size)
// and it answers decide(drive_state) with an extend_decision (see extend.hpp).
//
// Agent contract (checked by static_assert):
//   bytes initial_size(bytes capacity) const
//   void observe(const observation&)
//   extend_decision decide(const drive_state&) const
//
// Same seed, same numbers, on every platform: the generator is provpol's own (no std::*_distribution), run i
// of a plan uses the same random numbers whatever the rate or policy (common random numbers, so that curves
// and comparisons are smooth), and the arithmetic is IEEE double without contraction.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_RUN_HPP
#define PROVPOL_SIMULATE_RUN_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../detail/math.hpp"
#include "../extend/presets.hpp"
#include "../random.hpp"
#include "../result.hpp"
#include "../time.hpp"
#include "agent.hpp"
#include "search.hpp"

#include <cstdint>
#include <type_traits>
#include <utility>

namespace provpol {

/// The guest's workload.
struct workload {
    bytes write_size;                       ///< how much the guest writes, sequentially from offset 0
    rate write_rate;                        ///< how fast, when not paused
    bytes capacity;                         ///< the disk's virtual size; at least write_size
    seconds monitor_interval = seconds(2);  ///< the agent's monitor period when detection is immediate (VDSM: 2 s)

    /// Validates: write size >= 1 byte, rate >= 1 byte/s, capacity >= write size, interval in (0, 3600] s.
    PROVPOL_NODISCARD static result<workload> make(bytes write_size, rate write_rate, bytes capacity,
                                                   seconds monitor_interval = seconds(2)) noexcept {
        if (write_size.count() == 0)
            return unexpected(error::out_of_range("write_size", error_value::of_size(0), error_value::of_size(1), {}));
        if (write_rate.bytes_per_second() == 0)
            return unexpected(error::out_of_range("rate", error_value::of(0), error_value::of(1), {}));
        if (capacity < write_size)
            return unexpected(error::conflict("capacity", error_value::of_size(capacity.count()), "must be at least",
                                              "write_size", error_value::of_size(write_size.count())));
        if (!(monitor_interval.count() > 0.0 && monitor_interval.count() <= 3600.0))
            return unexpected(error::out_of_range("monitor_interval", error_value::of_real(monitor_interval.count()),
                                                  error_value::of_real(0.0), error_value::of_real(3600.0)));
        return workload{write_size, write_rate, capacity, monitor_interval};
    }
};

/// One run's outcome.
struct run_result {
    std::uint32_t extends = 0;           ///< extends requested (each grew the LV)
    std::uint32_t resent = 0;            ///< re-sent requests that went through and grew nothing (flow/clocks.hpp's
                                         ///< flow_resend); VDSM's log counts them as extends completed
    std::uint32_t pauses = 0;            ///< times the guest paused on ENOSPC
    seconds pause_seconds = seconds(0);  ///< total time paused
    seconds duration = seconds(0);       ///< the time to write everything
    bytes initial_size;                  ///< the new disk's LV size
    bytes final_physical;                ///< the LV size at the end (including an extend still in flight)
    bytes unwritten;                     ///< allocated but not written at the end: final_physical - write_size
    bool truncated = false;              ///< stopped by the event limit (a policy that cannot keep up at all)
    bool stopped = false;  ///< stopped at simulate_run's pause_limit: the figures cover the run up to that pause
};

/// Many runs' outcome: means per run, the share of extends that paused, and the distribution over runs (VMs).
struct simulation_summary {
    std::uint32_t runs = 0;
    double extends = 0.0;                ///< mean extends per run
    double resent = 0.0;                 ///< mean re-sent requests per run that went through (run_result::resent)
    double pauses = 0.0;                 ///< mean pauses per run
    double pause_probability = 0.0;      ///< pauses / extends over all runs (BZ#2051997's "pauses" of "extends")
    double runs_with_pause = 0.0;        ///< the share of runs that paused at least once
    seconds pause_seconds = seconds(0);  ///< mean total pause time per run
    double max_pauses = 0.0;             ///< the most pauses in one run
    double pauses_p50 = 0.0;             ///< per VM: the median of pauses per run
    double pauses_p90 = 0.0;             ///< per VM: 90% of runs paused at most this many times
    double pauses_p99 = 0.0;             ///< per VM: 99% of runs paused at most this many times
    double runs_mostly_paused = 0.0;     ///< the share of runs in which more than half of the extends paused
    double unwritten = 0.0;              ///< mean bytes allocated but not written at the end
    seconds duration = seconds(0);       ///< mean time to write everything
    bytes initial_size;                  ///< the new disk's LV size
    std::uint32_t truncated_runs = 0;    ///< runs stopped by the event limit
};

/// The generator seed of run `run` of a series seeded `seed`, as simulate_runs and the domain simulator draw it
/// (common random numbers: independent of the rate and the policy). A driver that replays a run by hand seeds its
/// random_stream with run_seed(seed, i) to get the simulator's run i. The mixing multiplies modulo 2^64 on purpose.
PROVPOL_NODISCARD PROVPOL_MODULAR_ARITHMETIC constexpr std::uint64_t run_seed(std::uint64_t seed,
                                                                              std::uint64_t run) noexcept {
    detail::splitmix64 sm(seed ^ (0x9e3779b97f4a7c15ULL * (run + 1)));
    return sm.next();
}

/// The most events one run may process before it is reported as truncated.
inline constexpr std::uint64_t simulation_event_limit = 50'000'000;

/// simulate_run's pause_limit when the run is to go to its end.
inline constexpr std::uint32_t no_pause_limit = ~std::uint32_t{0};

namespace detail {

// The guest and the clock of one run of simulate_run: the time, the bytes written, the LV size and the block
// threshold (as doubles, the run's units), whether the threshold is armed and whether the guest is paused.
struct run_guest {
    // The next event of a run; ties go to the first in this order, as they happen in the real flow.
    enum event { done, threshold, end, full, tick };

    double t = 0.0;
    double a = 0.0;      // allocation: bytes written so far
    double P = 0.0;      // the LV size
    double theta = 0.0;  // the registered block threshold
    double pause_start = 0.0;
    bool paused = false;
    bool armed = true;

    PROVPOL_NODISCARD bytes allocation() const noexcept { return bytes(static_cast<std::uint64_t>(a)); }

    // The earliest event at write rate R with W bytes to write in all, and its time in `next`; `next_done` and
    // `next_tick` are the controller's (an extend completing, the monitor waking).
    PROVPOL_NODISCARD event next_event(double R, double W, double next_done, double next_tick,
                                       double& next) const noexcept {
        const double t_end = paused ? never_time : t + (W - a) / R;
        const double t_full = paused ? never_time : (a >= P ? t : t + (P - a) / R);
        const double t_thr = (armed && !paused) ? (a >= theta ? t : t + (theta - a) / R) : never_time;
        event which = done;
        next = next_done;
        if (t_thr < next) next = t_thr, which = threshold;
        if (t_end < next) next = t_end, which = end;
        if (t_full < next) next = t_full, which = full;
        if (next_tick < next) next = next_tick, which = tick;
        return which;
    }

    // Moves the clock to `next` and, unless paused, the writes with it.
    void advance(double next, event which, double R, double W) noexcept {
        if (!paused) {
            a += R * (next - t);
            // Position events land exactly where they are, whatever the rounding of t + distance / R (a
            // rounding shortfall would otherwise leave the allocation a hair short, forever).
            if (which == threshold && a < theta) a = theta;
            if (which == full || a > P) a = P;
            if (which == end || a > W) a = W;
        }
        t = next;
    }
};

}  // namespace detail

/// Replays one run. `agent` is copied: each run starts from the agent's given state. The flow between the drive,
/// the agent and the latency is extend_controller's (simulate/agent.hpp); this function moves the guest and the clock
/// (detail::run_guest). With a `pause_limit`, the run stops at the guest's pause number pause_limit + 1
/// (run_result::stopped): a search that asks only whether the run pauses more than that many times knows it then,
/// since pauses only add up, and skips the rest of a run that may take thousands of extends.
template <class Agent, class Latency>
PROVPOL_NODISCARD run_result simulate_run(Agent agent, const Latency& latency, const workload& w, std::uint64_t seed,
                                          std::uint32_t pause_limit = no_pause_limit) noexcept {
    static_assert(detail::is_agent<Agent>::value,
                  "simulate_run: Agent must provide initial_size(bytes) const, observe(const observation&) and "
                  "extend_decision decide(const drive_state&) const");
    static_assert(detail::is_simulated_latency_v<Latency>,
                  "simulate_run: Latency must provide seconds detection_period() and either "
                  "start_run(random_stream&) and seconds complete(run&, seconds, random_stream&), or seconds "
                  "sample_after_detection(random_stream&)");
    using event = detail::run_guest::event;
    extend_controller<Agent, Latency> c(std::move(agent), latency, w.capacity, w.monitor_interval, seed);
    const double R = static_cast<double>(w.write_rate.bytes_per_second());
    const double W = static_cast<double>(w.write_size.count());

    run_result out;
    out.initial_size = c.initial_size();
    detail::run_guest g;
    g.P = static_cast<double>(out.initial_size.count());
    g.theta = static_cast<double>(c.threshold(bytes(0)).count());

    for (std::uint64_t events = 0;; ++events) {
        if (events >= simulation_event_limit) {
            out.truncated = true;
            break;
        }
        double next = 0.0;
        const event which = g.next_event(R, W, c.next_done().count(), c.next_tick().count(), next);
        g.advance(next, which, R, W);
        if (which == event::done) {  // the extend completed: the LV grew, the threshold is re-registered
            const unsigned i = c.first_done();
            const bytes lv = c.flight(i).decision.lv_size_after_extend;
            if (g.paused) {
                g.paused = false;
                out.pause_seconds += seconds(g.t - g.pause_start);
            }
            g.theta = static_cast<double>(c.completed(i, seconds(g.t), g.allocation(), lv).count());
            g.P = static_cast<double>(c.physical());
            g.armed = true;
        } else if (which == event::threshold) {  // the block threshold fired
            g.armed = false;
            (void)c.threshold_crossed(seconds(g.t), g.allocation());
        } else if (which == event::end) {  // everything written
            break;
        } else if (which == event::full) {  // ENOSPC: the guest pauses until an extend completes
            g.paused = true;
            g.pause_start = g.t;
            if (++out.pauses > pause_limit) {
                out.stopped = true;
                break;
            }
            (void)c.paused(seconds(g.t), g.allocation());
        } else {
            (void)c.tick(seconds(g.t), g.allocation());  // the monitor wakes
        }
    }
    out.extends = c.extends();
    out.resent = c.resent();
    out.duration = seconds(g.t);
    out.final_physical = bytes(c.pending_physical());
    out.unwritten = saturating_sub(out.final_physical, w.write_size);
    return out;
}

/// Replays runs first_run to last_run - 1 of a series (run i seeded by run_seed(seed, i)) and hands each to
/// `on_run(i, result)`: runs depend on their index alone, so a caller may split a series into ranges and replay
/// them on several threads; summed in run order (run_accumulator::add), the ranges give the whole series' numbers.
template <class Agent, class Latency, class OnRun>
void simulate_each(const Agent& agent, const Latency& latency, const workload& w, std::uint32_t first_run,
                   std::uint32_t last_run, std::uint64_t seed,
                   OnRun&& on_run) noexcept(noexcept(on_run(std::uint32_t{}, run_result{}))) {
    for (std::uint32_t i = first_run; i < last_run; ++i) on_run(i, simulate_run(agent, latency, w, run_seed(seed, i)));
}

/// Replays `runs` runs (run i seeded by run_seed(seed, i)) and hands each to `on_run(i, result)`.
template <class Agent, class Latency, class OnRun>
void simulate_each(const Agent& agent, const Latency& latency, const workload& w, std::uint32_t runs,
                   std::uint64_t seed, OnRun&& on_run) noexcept(noexcept(on_run(std::uint32_t{}, run_result{}))) {
    simulate_each(agent, latency, w, std::uint32_t{0}, runs, seed, std::forward<OnRun>(on_run));
}

/// Accumulates runs into a simulation_summary, including the distribution of pauses over runs (over VMs): a
/// pause risk is a distribution over VMs, since the flow's clocks keep their phase for the life of a VM. The
/// pause-count quantiles are exact up to pause_histogram_size - 1 pauses per run (above, a run counts in the last
/// bin and quantiles_exact() says so). No allocation.
class run_accumulator {
public:
    static constexpr std::uint32_t pause_histogram_size = 1024;

    void add(const run_result& r) noexcept {
        ++runs_;
        extends_ += r.extends;
        resent_ += r.resent;
        pauses_ += r.pauses;
        paused_runs_ += r.pauses > 0 ? 1.0 : 0.0;
        // "mostly paused": more than half of the run's extends paused the guest
        mostly_paused_ += 2.0 * r.pauses > static_cast<double>(r.extends) && r.pauses > 0 ? 1.0 : 0.0;
        pause_seconds_ += r.pause_seconds.count();
        unwritten_ += static_cast<double>(r.unwritten.count());
        duration_ += r.duration.count();
        if (r.pauses > max_pauses_) max_pauses_ = r.pauses;
        truncated_ += r.truncated ? 1 : 0;
        initial_size_ = r.initial_size;
        ++histogram_[r.pauses < pause_histogram_size ? r.pauses : pause_histogram_size - 1];
    }

    /// The smallest pause count k such that a share of at least q of the runs paused at most k times.
    PROVPOL_NODISCARD std::uint32_t pauses_quantile(double q) const noexcept {
        if (runs_ == 0) return 0;
        // ceil(q x runs) whole runs (the product's last-bit noise, as in 0.29 x 100 = 28.999999999999996, is not
        // a run).
        const double need = detail::ceil(q * static_cast<double>(runs_) - 1e-9);
        double seen = 0.0;
        for (std::uint32_t k = 0; k < pause_histogram_size; ++k) {
            seen += histogram_[k];
            if (seen >= need && seen > 0.0) return k == pause_histogram_size - 1 ? max_pauses_ : k;
        }
        return max_pauses_;
    }
    /// The share of runs that paused at most `n` times.
    PROVPOL_NODISCARD double share_with_at_most(std::uint32_t n) const noexcept {
        if (runs_ == 0) return 1.0;
        double seen = 0.0;
        for (std::uint32_t k = 0; k <= n && k < pause_histogram_size; ++k) seen += histogram_[k];
        return seen / static_cast<double>(runs_);
    }
    /// Whether every run paused fewer than pause_histogram_size - 1 times (the quantiles are then exact).
    PROVPOL_NODISCARD bool quantiles_exact() const noexcept { return max_pauses_ < pause_histogram_size - 1; }

    PROVPOL_NODISCARD simulation_summary summary() const noexcept {
        simulation_summary s;
        s.runs = runs_;
        s.max_pauses = max_pauses_;
        s.truncated_runs = truncated_;
        s.initial_size = initial_size_;
        if (runs_ > 0) {
            const double n = runs_;
            s.extends = extends_ / n;
            s.resent = resent_ / n;
            s.pauses = pauses_ / n;
            s.pause_probability = extends_ > 0.0 ? pauses_ / extends_ : 0.0;
            s.runs_with_pause = paused_runs_ / n;
            s.runs_mostly_paused = mostly_paused_ / n;
            s.pause_seconds = seconds(pause_seconds_ / n);
            s.unwritten = unwritten_ / n;
            s.duration = seconds(duration_ / n);
            s.pauses_p50 = pauses_quantile(0.5);
            s.pauses_p90 = pauses_quantile(0.9);
            s.pauses_p99 = pauses_quantile(0.99);
        }
        return s;
    }

private:
    std::uint32_t runs_ = 0;
    double extends_ = 0.0, resent_ = 0.0, pauses_ = 0.0, paused_runs_ = 0.0, mostly_paused_ = 0.0, pause_seconds_ = 0.0;
    double unwritten_ = 0.0, duration_ = 0.0;
    std::uint32_t max_pauses_ = 0;
    std::uint32_t truncated_ = 0;
    bytes initial_size_;
    std::uint32_t histogram_[pause_histogram_size] = {};
};

/// Replays `runs` runs (run i seeded by run_seed(seed, i)) and summarises them.
template <class Agent, class Latency>
PROVPOL_NODISCARD simulation_summary simulate(const Agent& agent, const Latency& latency, const workload& w,
                                              std::uint32_t runs, std::uint64_t seed) noexcept {
    run_accumulator acc;
    simulate_each(agent, latency, w, runs, seed, [&acc](std::uint32_t, const run_result& r) noexcept { acc.add(r); });
    return acc.summary();
}

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
    std::uint64_t within = 0;
    simulate_each(agent, latency, w, runs, seed, [&](std::uint32_t, const run_result& r) noexcept {
        acc.add(r);
        within += r.pauses <= target.max_pauses_per_run ? 1u : 0u;
    });
    per_vm_check c;
    c.share_within = runs > 0 ? static_cast<double>(within) / runs : 0.0;
    c.met = within >= detail::vms_needed(target.vm_quantile, runs);
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
    if (const auto valid = vdsm_config::make(1, percent, extent); !valid) return unexpected(valid.error());
    const auto config = [&](std::uint64_t extents) {
        return vdsm_config::make_bytes(bytes(extents * extent.count()), percent, extent);
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

#endif  // PROVPOL_SIMULATE_RUN_HPP
