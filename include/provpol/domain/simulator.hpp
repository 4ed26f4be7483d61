// provpol/domain/simulator.hpp - a seeded, deterministic simulator of a VDSM storage domain: H hosts x D drives, each
// with its workload and its agent, sharing the hosts' mail monitors, one SPM and one volume group lock
// (domain/shared.hpp). It reports, per drive, what simulate_run reports, and for the domain the extend latency
// under load, the SPM's queue and its utilization.
//
// Per drive it is the single-drive simulator (simulate.hpp): the same extend_controller (simulate/agent.hpp), the same
// events in the same order (the extend's completion, the block threshold, the end, ENOSPC, the monitor's tick),
// the same arithmetic. Drive i is seeded with run_seed(seed, i), as run i of simulate(); its latency
// draws are flow_latency::complete's, in the same order, from its own stream; only the waits for the host's mail
// monitor, the SPM's scan and the VG lock depend on the other drives. So a domain of one drive gives exactly
// simulate_run's answer for the same seed (tests/domain_test.cpp), and so does any drive whose requests never
// meet another's. An agent with two extends in flight (rate_aware_agent) is the exception: its second lvextend
// waits for its first on the VG lock, as in VDSM, where the single-drive flow runs them side by side.
//
// Workloads (drive_workload, domain/workload.hpp): a constant rate, a staggered start, on/off bursts, a trace of
// (time, bytes written) points followed piecewise linearly, or idle. The simulation runs until every drive wrote
// everything and the SPM is idle, or for `duration` seconds of simulated time. How many writers a domain holds
// under a per-VM target: domain/capacity.hpp.
//
// The loop is a discrete-event simulation over an indexed heap of the drives' next events (domain/drive.hpp) and the
// SPM's queue:
// O(log drives) per event, memory O(drives), allocated once up front in std::vector (std::bad_alloc propagates, as
// from any standard container), apart from the served requests' latencies, which grow as requests are served.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_DOMAIN_SIMULATOR_HPP
#define PROVPOL_DOMAIN_SIMULATOR_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../detail/math.hpp"
#include "../flow/clocks.hpp"
#include "../flow/latency.hpp"
#include "../random.hpp"
#include "../result.hpp"
#include "../simulate/run.hpp"
#include "drive.hpp"   // IWYU pragma: export
#include "result.hpp"  // IWYU pragma: export
#include "setup.hpp"   // IWYU pragma: export
#include "shared.hpp"
#include "workload.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace provpol {

/// When simulate_domain may end a run before its end: once `drives` drives have each paused more than
/// `pauses_above` times (drives 0, the default: never). A search that asks only whether a per-VM target is missed
/// knows it then, since pauses only add up (check_writers' stop_at_miss); the run's figures then cover the run up to
/// that pause, and domain_summary::stopped says so (the drives past the count, not 0).
struct domain_stop {
    std::uint32_t pauses_above = 0;
    std::uint64_t drives = 0;
};

namespace detail {

// The first monitor tick of drive i's controller: its host leader's (the leader's stream's first uniform, as the
// leader's controller draws it) when both tick at the same period, so that a host's drives are polled together;
// -1 (its own draw) for the leader itself or a drive of another period.
template <class Agent>
seconds leader_first_tick(const std::vector<domain_drive<Agent>>& drives, std::uint32_t i, std::uint32_t lead,
                          seconds detect, std::uint64_t seed, std::uint64_t first_run) noexcept {
    const auto period_of = [&](std::uint32_t k) noexcept {
        return detect > seconds(0) ? detect : drives[k].w.base.monitor_interval;
    };
    if (lead == i || !(period_of(lead) == period_of(i))) return seconds(-1);
    random_stream rng(run_seed(seed, first_run + lead));
    return period_of(lead) * rng.uniform();
}

// Drive i at the start (its workload read): its latency over the shared flow, its controller, and its guest's
// first state (writing from 0 s, from its start, or idle).
template <class Agent>
void start_drive(domain_drive<Agent>& d, std::uint32_t i, Agent agent, domain_shared& shared, std::uint64_t seed,
                 seconds first_tick) {
    d.latency = domain_drive_latency::of(shared, i);
    d.c.emplace(std::move(agent), *d.latency, d.w.base.capacity, d.w.base.monitor_interval, seed, first_tick);
    d.R = static_cast<double>(d.w.base.write_rate.bytes_per_second());
    d.W = static_cast<double>(d.w.base.write_size.count());
    d.out.initial_size = d.c->initial_size();
    d.P = static_cast<double>(d.out.initial_size.count());
    d.theta = static_cast<double>(d.c->threshold(bytes(0)).count());
    const double begin = d.w.start.count() + (d.w.trace != nullptr ? d.w.trace[0].time.count() : 0.0);
    if (d.w.writing && begin <= 0.0 && d.w.trace != nullptr)
        enter_segment(d, 0);
    else if (d.w.writing && begin <= 0.0)
        d.phase = 1, d.R_now = d.R, d.next_change = d.w.on_seconds.count() > 0.0 ? d.w.on_seconds.count() : never_time;
    else if (d.w.writing)
        d.next_change = begin;
}

// The SPM serves its next request: the extend it answers completes at its drive (the flight of that size not yet
// timed), whose next event moves in the heap.
template <class Agent>
void serve_next(std::vector<domain_drive<Agent>>& drives, domain_shared& shared, drive_heap& heap) {
    const domain_completion done = shared.serve();
    auto& c = *drives[done.drive].c;
    for (unsigned f = 0; f < c.in_flight(); ++f)
        if (c.flight(f).done_at == never && c.flight(f).decision.lv_size_after_extend.count() == done.size)
            c.set_done_at(f, done.done_at, done.reply_read);
    heap.update(done.drive, drive_key(drives[done.drive], shared, done.drive));
}

// How a domain's run ended: the time of its last event, whether it drained (every drive wrote everything and the
// SPM is idle, or nothing is left to happen) or stopped at domain_stop, and how many drives had passed its pauses.
struct domain_run_end {
    double now = 0.0;
    bool drained = false;
    bool stopped = false;
    std::uint64_t over = 0;  // drives that paused more than stop.pauses_above times
};

// The event loop: the SPM's next completion or the earliest drive's next event (a send the host's mail monitor
// takes, or the guest's own step), until the domain drains, the horizon passes or `stop` ends the run.
template <class Agent>
domain_run_end run_domain_events(std::vector<domain_drive<Agent>>& drives, domain_shared& shared, drive_heap& heap,
                                 double horizon, domain_stop stop) {
    domain_run_end end;
    std::uint32_t writing = 0;  // drives still to write: the run ends when none is left and the SPM is idle
    for (const domain_drive<Agent>& d : drives) writing += d.w.writing ? 1u : 0u;
    for (;;) {
        if (writing == 0 && shared.idle()) {  // idle drives alone do not keep the domain running
            end.drained = true;
            break;
        }
        const double td = heap.top_key();
        const double ts = shared.next_spm().count();
        if (ts < td) {
            if (ts > horizon) break;
            end.now = ts;
            serve_next(drives, shared, heap);
            continue;
        }
        if (!(td <= horizon)) {
            end.drained = !(td < never_time) && !(ts < never_time);
            break;
        }
        end.now = td;
        const auto i = static_cast<std::uint32_t>(heap.top());
        domain_drive<Agent>& d = drives[i];
        drive_event which = drive_event::done;
        if (shared.next_send(i).count() <= next_guest_event(d, which))
            shared.send(i);  // the host's mail monitor takes the request (no change to the guest)
        else if (!d.finished) {
            const std::uint32_t paused_before = d.out.pauses;
            guest_step(d, shared);
            writing -= d.finished && d.w.writing ? 1u : 0u;
            if (stop.drives > 0 && paused_before == stop.pauses_above && d.out.pauses > stop.pauses_above &&
                ++end.over >= stop.drives) {
                end.stopped = true;
                break;
            }
        }
        heap.update(i, drive_key(d, shared, i));
    }
    return end;
}

// Drive d's result at the run's end, `elapsed` seconds in: a drive that did not finish counts its pause so far
// and what it wrote by then.
template <class Agent>
domain_drive_result finish_drive(domain_drive<Agent>& d, std::uint32_t host, double elapsed) noexcept {
    run_result& r = d.out;
    const bool done = d.finished && !r.truncated;
    const double begin = d.w.start.count() < elapsed ? d.w.start.count() : elapsed;
    double written = d.a;
    if (!done) {
        if (d.paused) r.pause_seconds += seconds(elapsed - d.pause_start);
        if (!d.paused) written += d.R_now * (elapsed - d.t);
        written = written > d.P ? d.P : (written > d.W ? d.W : written);
    }
    r.extends = d.c->extends();
    r.resent = d.c->resent();
    r.duration = seconds((done ? d.t : elapsed) - begin);
    r.final_physical = bytes(d.c->pending_physical());
    r.unwritten =
        saturating_sub(r.final_physical, done ? d.w.base.write_size : bytes(static_cast<std::uint64_t>(written)));
    return domain_drive_result{r, host, done};
}

// The SPM's figures of a run that lasted `elapsed` seconds: requests served, busy time and utilization, the
// latency of its requests (mean, median, p99, max) and its queue (p99, max), the share that waited for a worker.
inline void summarize_spm(domain_summary& s, domain_shared& shared, double elapsed) {
    s.served = shared.served();
    const seconds overhang = shared.lock_free() > s.elapsed ? shared.lock_free() - s.elapsed : seconds(0);
    s.spm_busy = shared.busy() - overhang;
    s.spm_utilization = elapsed > 0.0 ? s.spm_busy / s.elapsed : 0.0;
    std::vector<seconds>& lat = shared.latencies();
    const std::size_t m = lat.size();
    if (m > 0) {
        std::sort(lat.begin(), lat.end());
        double sum = 0.0;
        for (std::size_t k = 0; k < m; ++k) sum += lat[k].count();
        const auto at = [&](double q) {
            const double idx = detail::ceil(q * static_cast<double>(m));
            return lat[idx < 1.0 ? 0 : static_cast<std::size_t>(idx) - 1];
        };
        s.latency_mean = seconds(sum / static_cast<double>(m));
        s.latency_p50 = at(0.5);
        s.latency_p99 = at(0.99);
        s.latency_max = lat[m - 1];
    }
    const auto& hist = shared.queue_histogram();
    std::uint64_t seen = 0;
    const double need = 0.99 * static_cast<double>(s.served);
    bool p99_set = false;
    for (std::size_t k = 0; k < hist.size(); ++k) {
        seen += hist[k];
        if (!p99_set && s.served > 0 && static_cast<double>(seen) >= need) s.queue_p99 = k, p99_set = true;
        if (hist[k] > 0) s.queue_max = k;
    }
    s.worker_wait_share =
        s.served > 0 ? static_cast<double>(shared.worker_waits()) / static_cast<double>(s.served) : 0.0;
}

}  // namespace detail

/// Runs a domain: drive d (host d / drives_per_host) gets the agent make_agent(d) and the workload
/// workload_of(d) (both noexcept), and is seeded with run_seed(seed, first_run + d), as run first_run + d
/// of simulate() (so that domain k of a series can take runs k x drives on). The latency must be a flow with
/// the mailbox (a send and a reply poll: the vdsm-* profiles); see domain/shared.hpp for how its stages map onto
/// the hosts and the SPM. `stop` may end the run early (domain_stop). Errors: a config or a drive's workload that
/// make() would refuse (checked here too, both being aggregates); a flow without the mailbox. Allocates O(drives)
/// (std::bad_alloc propagates).
template <class MakeAgent, class WorkloadOf>
PROVPOL_NODISCARD result<domain_result> simulate_domain(const domain_config& cfg, const flow_latency& latency,
                                                        MakeAgent&& make_agent, WorkloadOf&& workload_of,
                                                        std::uint64_t seed, std::uint64_t first_run = 0,
                                                        domain_stop stop = {}) {
    using agent_type = decltype(make_agent(std::uint32_t{}));
    static_assert(detail::is_agent<agent_type>::value,
                  "simulate_domain: make_agent(drive) must return an agent: initial_size(bytes) const, "
                  "observe(const observation&) and extend_decision decide(const drive_state&) const");
    // The config is an aggregate anyone can fill: check it as make() does (host_slots 0 would wait forever,
    // hosts x drives_per_host would wrap).
    if (const auto valid =
            domain_config::make(cfg.hosts, cfg.drives_per_host, cfg.duration, cfg.spm_workers, cfg.host_slots);
        !valid)
        return unexpected(valid.error());
    const auto flow = domain_flow::make(latency);
    if (!flow) return unexpected(flow.error());
    const std::uint32_t n = cfg.drives();
    auto made = domain_shared::make(*flow, cfg.hosts, cfg.drives_per_host, cfg.spm_workers, cfg.host_slots);
    if (!made) return unexpected(made.error());
    domain_shared& shared = *made;
    std::vector<detail::domain_drive<agent_type>> drives(n);
    detail::drive_heap heap;
    heap.init(n);
    domain_result out;
    detail::domain_result_access::drives(out).resize(n);

    for (std::uint32_t i = 0; i < n; ++i) {
        drives[i].w = workload_of(i);
        if (const auto valid = drive_workload::check(drives[i].w); !valid) return unexpected(valid.error());
    }
    std::vector<std::uint32_t> host_leader;
    std::uint32_t spm_leader = 0;
    detail::domain_leaders(
        cfg.hosts, cfg.drives_per_host, [&](std::uint32_t i) noexcept { return drives[i].w.writing; }, host_leader,
        spm_leader);
    const seconds detect = flow->flow().detection_period();
    for (std::uint32_t i = 0; i < n; ++i) {
        const seconds first_tick =
            detail::leader_first_tick(drives, i, host_leader[i / cfg.drives_per_host], detect, seed, first_run);
        detail::start_drive(drives[i], i, make_agent(i), shared, run_seed(seed, first_run + i), first_tick);
        heap.update(i, detail::drive_key(drives[i], shared, i));
    }
    shared.set_spm_phase_of(spm_leader);

    const detail::domain_run_end end = detail::run_domain_events(drives, shared, heap, cfg.duration.count(), stop);

    domain_summary& s = detail::domain_result_access::summary(out);
    const double elapsed = end.drained || end.stopped ? end.now : cfg.duration.count();
    s.elapsed = seconds(elapsed);
    s.stopped = end.stopped ? end.over : 0;
    for (std::uint32_t i = 0; i < n; ++i) {
        detail::domain_result_access::drives(out)[i] =
            detail::finish_drive(drives[i], i / cfg.drives_per_host, elapsed);
        s.extends += drives[i].out.extends;
        s.resent += drives[i].out.resent;
    }
    detail::summarize_spm(s, shared, elapsed);
    return out;
}

/// The same with a latency_model: it must be a flow (flow/latency.hpp's vdsm-* profiles, or a flow fitted from a log).
template <class MakeAgent, class WorkloadOf>
PROVPOL_NODISCARD result<domain_result> simulate_domain(const domain_config& cfg, const latency_model& latency,
                                                        MakeAgent&& make_agent, WorkloadOf&& workload_of,
                                                        std::uint64_t seed, std::uint64_t first_run = 0,
                                                        domain_stop stop = {}) {
    if (!latency.is_flow())
        return unexpected(error::unsupported("domain latency",
                                             "needs a flow model with the mailbox's clocks "
                                             "(vdsm-polling-2022, vdsm-mailbox-events, vdsm-immediate)"));
    return simulate_domain(cfg, latency.flow(), std::forward<MakeAgent>(make_agent),
                           std::forward<WorkloadOf>(workload_of), seed, first_run, stop);
}

}  // namespace provpol

#endif  // PROVPOL_DOMAIN_SIMULATOR_HPP
