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
#include "run_result.hpp"
#include "run_summary.hpp"

#include <cstdint>
#include <type_traits>
#include <utility>

namespace provpol {

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

/// Replays `runs` runs (run i seeded by run_seed(seed, i)) and summarises them.
template <class Agent, class Latency>
PROVPOL_NODISCARD simulation_summary simulate(const Agent& agent, const Latency& latency, const workload& w,
                                              std::uint32_t runs, std::uint64_t seed) noexcept {
    run_accumulator acc;
    simulate_each(agent, latency, w, runs, seed, [&acc](std::uint32_t, const run_result& r) noexcept { acc.add(r); });
    return acc.summary();
}

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_RUN_HPP
