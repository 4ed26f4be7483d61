// provpol/domain/simulator.hpp - a seeded, deterministic simulator of a VDSM storage domain: H hosts x D drives, each
// with its workload and its agent, sharing the hosts' mail monitors, one SPM and one volume group lock
// (domain/shared.hpp). It reports, per drive, what simulate_run reports, and for the domain the extend latency
// under load, the SPM's queue and its utilization.
//
// Per drive it is the single-drive simulator (simulate.hpp): the same extend_controller (simulate/agent.hpp), the same
// events in the same order (the extend's completion, the block threshold, the end, ENOSPC, the monitor's tick),
// the same arithmetic. Drive i is seeded with detail::run_seed(seed, i), as run i of simulate(); its latency
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
// The loop is a discrete-event simulation over an indexed heap of the drives' next events and the SPM's queue:
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
#include "../simulate/agent.hpp"
#include "../simulate/run.hpp"
#include "shared.hpp"
#include "workload.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace provpol {

/// The domain's shape and its shared parts.
struct domain_config {
    std::uint32_t hosts = 1;
    std::uint32_t drives_per_host = 1;
    double duration = 3600.0;                                          ///< simulated seconds at most
    std::uint32_t spm_workers = 5;                                     ///< sp.py: thread_pool_size (10) // 2
    std::uint32_t host_slots = detail::domain_shared::slots_per_host;  ///< mailbox.py: requests in flight per host

    /// Validates: 1 to 10,000 hosts, 1 to 10,000 drives per host, at most 1,000,000 drives; duration in (0, 1e9) s;
    /// 1 to 1000 workers; 1 to 63 slots per host.
    PROVPOL_NODISCARD static result<domain_config> make(std::uint32_t hosts, std::uint32_t drives_per_host,
                                                        double duration = 3600.0, std::uint32_t spm_workers = 5,
                                                        std::uint32_t host_slots = 63) noexcept {
        if (hosts < 1 || hosts > 10000)
            return unexpected(
                error::out_of_range("hosts", error_value::of(hosts), error_value::of(1), error_value::of(10000)));
        if (drives_per_host < 1 || drives_per_host > 10000)
            return unexpected(error::out_of_range("drives_per_host", error_value::of(drives_per_host),
                                                  error_value::of(1), error_value::of(10000)));
        if (std::uint64_t{hosts} * drives_per_host > 1000000)
            return unexpected(error::out_of_range("drives", error_value::of(std::uint64_t{hosts} * drives_per_host),
                                                  error_value::of(1), error_value::of(1000000)));
        if (!(duration > 0.0 && duration < 1e9))
            return unexpected(error::out_of_range("duration", error_value::of_real(duration), error_value::of_real(0.0),
                                                  error_value::of_real(1e9)));
        if (spm_workers < 1 || spm_workers > 1000)
            return unexpected(error::out_of_range("spm_workers", error_value::of(spm_workers), error_value::of(1),
                                                  error_value::of(1000)));
        if (host_slots < 1 || host_slots > 63)
            return unexpected(error::out_of_range("host_slots", error_value::of(host_slots), error_value::of(1),
                                                  error_value::of(63)));
        return domain_config{hosts, drives_per_host, duration, spm_workers, host_slots};
    }
    PROVPOL_NODISCARD std::uint32_t drives() const noexcept { return hosts * drives_per_host; }
    /// Whether drive `d` is among the first `writers`, taken host by host in turn (drive 0 of every host, then
    /// drive 1, ...), so that writers spread over the hosts.
    PROVPOL_NODISCARD bool is_writer(std::uint32_t d, std::uint32_t writers) const noexcept {
        return writer_rank(d) < writers;
    }
    /// Drive `d`'s place in that order: writer 0 is drive 0 of host 0, writer 1 drive 0 of host 1, ... (for a
    /// staggered start, writer i at i x the step).
    PROVPOL_NODISCARD std::uint64_t writer_rank(std::uint32_t d) const noexcept {
        return std::uint64_t{d % drives_per_host} * hosts + d / drives_per_host;
    }
};

/// One drive's outcome: simulate_run's, its host, and whether it wrote everything within the duration.
struct domain_drive_result {
    run_result run{};
    std::uint32_t host = 0;
    bool finished = false;
};

/// The domain's shared figures.
struct domain_summary {
    std::uint64_t extends = 0;     ///< extends requested by all drives
    std::uint64_t resent = 0;      ///< re-sent requests that went through (run_result::resent)
    std::uint64_t served = 0;      ///< requests the SPM took (the others were still on their way at the end)
    double elapsed = 0.0;          ///< simulated seconds: the duration, or until everything was written
    double spm_busy = 0.0;         ///< seconds the VG lock was held, within the elapsed time
    double spm_utilization = 0.0;  ///< spm_busy / elapsed
    double latency_mean = 0.0;     ///< extend latency over the served requests: from the threshold event (or the pause)
                                   ///< to the grown LV seen, the span `provpol latency` reports
    double latency_p50 = 0.0;
    double latency_p99 = 0.0;
    double latency_max = 0.0;
    std::uint64_t queue_p99 = 0;  ///< requests waiting for the VG lock or a worker just after each arrival
                                  ///< (the arriving one included when it waits), 99th percentile over arrivals
    std::uint64_t queue_max = 0;
    double worker_wait_share = 0.0;  ///< the share of requests that found every worker taken
};

class domain_result;
namespace detail {
struct domain_result_access;
}  // namespace detail

/// A domain run's outcome: per drive, and for the domain.
class domain_result {
public:
    PROVPOL_NODISCARD std::uint32_t drives() const noexcept { return static_cast<std::uint32_t>(drives_.size()); }
    PROVPOL_NODISCARD const domain_drive_result& drive(std::uint32_t i) const noexcept { return drives_[i]; }
    PROVPOL_NODISCARD const domain_summary& summary() const noexcept { return summary_; }

private:
    friend struct detail::domain_result_access;
    std::vector<domain_drive_result> drives_;
    domain_summary summary_;
};

namespace detail {
/// simulate_domain's access to the result it fills.
struct domain_result_access {
    static std::vector<domain_drive_result>& drives(domain_result& r) noexcept { return r.drives_; }
    static domain_summary& summary(domain_result& r) noexcept { return r.summary_; }
};
}  // namespace detail

namespace detail {

/// A drive's latency in a domain: the flow's clocks and draws, with the completion decided by the shared queue.
struct domain_drive_latency {
    const flow_latency* flow = nullptr;
    domain_shared* shared = nullptr;
    std::uint32_t drive = 0;

    PROVPOL_NODISCARD double detection_period() const noexcept { return flow->detection_period(); }
    PROVPOL_NODISCARD flow_resend resend() const noexcept { return flow->resend(); }
    PROVPOL_NODISCARD double resend_timeout() const noexcept { return flow->resend_timeout(); }
    PROVPOL_NODISCARD flow_run start_run(random_stream& rng) const noexcept {
        const flow_run r = flow->start_run(rng);
        shared->start(drive, r);
        return r;
    }
    PROVPOL_NODISCARD double complete(flow_run&, double t, random_stream& rng) const noexcept {
        (void)shared->add(drive, t, rng);
        return never;  // the SPM's queue decides it; the domain calls extend_controller::set_done_at
    }
};

/// One drive of a domain: its controller and the guest's state, as simulate_run keeps them.
template <class Agent>
struct domain_drive {
    std::optional<extend_controller<Agent, domain_drive_latency>> c;  // made once the drive's workload is known
    domain_drive_latency latency{};
    drive_workload w{};
    run_result out{};
    double R = 0.0, W = 0.0, R_now = 0.0, next_change = never;
    double t = 0.0, a = 0.0, P = 0.0, theta = 0.0, pause_start = 0.0;
    std::size_t seg = 0;      // a trace: the point the current segment starts from (W: where its writing ends)
    unsigned char phase = 0;  // 0 before the start, 1 writing (or following the trace), 2 idling between bursts
    bool paused = false, armed = true, finished = false;
    std::uint64_t events = 0;
};

/// An indexed min-heap of the drives' next event times; ties go to the lower drive.
class drive_heap {
public:
    void init(std::size_t n) {
        heap_.resize(n);
        pos_.resize(n);
        key_.assign(n, never);
        for (std::size_t i = 0; i < n; ++i) heap_[i] = pos_[i] = i;
    }
    PROVPOL_NODISCARD std::size_t top() const noexcept { return heap_[0]; }
    PROVPOL_NODISCARD double top_key() const noexcept { return key_[heap_[0]]; }
    void update(std::size_t d, double k) noexcept {
        const double old = key_[d];
        key_[d] = k;
        if (k < old)
            up(pos_[d]);
        else
            down(pos_[d]);
    }

private:
    PROVPOL_NODISCARD bool less(std::size_t x, std::size_t y) const noexcept {
        return key_[x] < key_[y] || (key_[x] == key_[y] && x < y);
    }
    void swap(std::size_t i, std::size_t j) noexcept {
        const std::size_t x = heap_[i];
        heap_[i] = heap_[j];
        heap_[j] = x;
        pos_[heap_[i]] = i;
        pos_[heap_[j]] = j;
    }
    void up(std::size_t i) noexcept {
        while (i > 0 && less(heap_[i], heap_[(i - 1) / 2])) swap(i, (i - 1) / 2), i = (i - 1) / 2;
    }
    void down(std::size_t i) noexcept {
        const std::size_t n = heap_.size();
        for (;;) {
            std::size_t c = 2 * i + 1;
            if (c >= n) return;
            if (c + 1 < n && less(heap_[c + 1], heap_[c])) ++c;
            if (!less(heap_[c], heap_[i])) return;
            swap(i, c);
            i = c;
        }
    }
    std::vector<std::size_t> heap_, pos_;
    std::vector<double> key_;
};

enum class drive_event : unsigned char { done, threshold, end, full, change, tick };

/// The drive's next guest event, chosen as simulate_run chooses (ties to the first in drive_event's order).
template <class Agent>
double next_guest_event(const domain_drive<Agent>& d, drive_event& which) noexcept {
    if (d.finished) return never;
    const bool moving = !d.paused && d.R_now > 0.0;
    const double R = d.R_now;
    const double t_end = moving ? d.t + (d.W - d.a) / R : never;
    const double t_full = moving ? (d.a >= d.P ? d.t : d.t + (d.P - d.a) / R) : never;
    const double t_thr =
        (d.armed && !d.paused) ? (d.a >= d.theta ? d.t : (moving ? d.t + (d.theta - d.a) / R : never)) : never;
    double next = d.c->next_done();
    which = drive_event::done;
    if (t_thr < next) next = t_thr, which = drive_event::threshold;
    if (t_end < next) next = t_end, which = drive_event::end;
    if (t_full < next) next = t_full, which = drive_event::full;
    if (d.next_change < next) next = d.next_change, which = drive_event::change;
    if (d.c->next_tick() < next) next = d.c->next_tick(), which = drive_event::tick;
    return next;
}

/// A trace's drive enters segment k (from point k to k + 1) at d.t: writing at the segment's rate until the
/// allocation reaches its end (W is that position, so the segment's end is drive_event::end, at no cost to the
/// other workloads), or idling for its seconds (a drive_event::change).
template <class Agent>
void enter_segment(domain_drive<Agent>& d, std::size_t k) noexcept {
    d.phase = 1, d.seg = k, d.next_change = never, d.R_now = 0.0;
    if (k + 1 >= d.w.trace_points) return;
    const trace_point& p = d.w.trace[k];
    const trace_point& q = d.w.trace[k + 1];
    if (q.written > p.written) {
        d.R_now = static_cast<double>(q.written.count() - p.written.count()) / (q.time - p.time);
        d.W = static_cast<double>(q.written.count());
    } else {
        d.next_change = d.t + (q.time - p.time);
    }
}

/// Processes the drive's next guest event: simulate_run's loop body.
template <class Agent>
void guest_step(domain_drive<Agent>& d, domain_shared& shared) noexcept {
    drive_event which = drive_event::done;
    const double next = next_guest_event(d, which);
    if (d.events++ >= simulation_event_limit) {  // simulate_run's limit, counted the same way
        d.out.truncated = true;
        d.finished = true;
        return;
    }
    if (!d.paused) {
        d.a += d.R_now * (next - d.t);
        if (which == drive_event::threshold && d.a < d.theta) d.a = d.theta;
        if (which == drive_event::full || d.a > d.P) d.a = d.P;
        if (which == drive_event::end || d.a > d.W) d.a = d.W;
    }
    d.t = next;
    const auto alloc = bytes(static_cast<std::uint64_t>(d.a));
    const extend_in_flight* f = nullptr;
    switch (which) {
        case drive_event::done: {
            const unsigned i = d.c->first_done();
            const bytes lv = d.c->flight(i).decision.lv_size_after_extend;
            if (d.paused) {
                d.paused = false;
                d.out.pause_seconds += d.t - d.pause_start;
            }
            d.theta = static_cast<double>(d.c->completed(i, d.t, alloc, lv).count());
            d.P = static_cast<double>(d.c->physical());
            d.armed = true;
            break;
        }
        case drive_event::threshold:
            d.armed = false;
            f = d.c->threshold_crossed(d.t, alloc);
            break;
        case drive_event::end:  // everything written, or a trace's writing segment's end
            if (d.w.trace != nullptr && d.W < static_cast<double>(d.w.base.write_size.count()))
                enter_segment(d, d.seg + 1);
            else
                d.finished = true;
            break;
        case drive_event::full:
            d.paused = true;
            d.pause_start = d.t;
            ++d.out.pauses;
            f = d.c->paused(d.t, alloc);
            break;
        case drive_event::change:        // before the start -> writing -> idling -> writing ...
            if (d.w.trace != nullptr) {  // a trace: its start, or an idle segment's end
                enter_segment(d, d.phase == 0 ? 0 : d.seg + 1);
            } else if (d.phase != 1) {
                d.phase = 1, d.R_now = d.R;
                d.next_change = d.w.on_seconds > 0.0 ? d.t + d.w.on_seconds : never;
            } else {
                d.phase = 2, d.R_now = 0.0;
                d.next_change = d.t + d.w.off_seconds;
            }
            break;
        case drive_event::tick:
            f = d.c->tick(d.t, alloc);
            break;
    }
    if (f != nullptr) {
        domain_request& r = shared.request(shared.last_added());
        r.size = f->decision.lv_size_after_extend.count();
        r.exceeded_at = f->exceeded_at;
    }
}

/// The first writing drive of each host leads its watermark monitor (VDSM runs one per host, periodic.py), and the
/// first writing drive of the domain leads the SPM's scan: the other drives take the leader's clock phase. A drive
/// that writes alone therefore runs on its own run's clocks.
template <class WorkloadAt>
void domain_leaders(std::uint32_t hosts, std::uint32_t per_host, WorkloadAt&& writing,
                    std::vector<std::uint32_t>& host_leader, std::uint32_t& spm_leader) {
    host_leader.assign(hosts, 0);
    const std::uint32_t none = hosts * per_host;
    spm_leader = none;
    for (std::uint32_t h = 0; h < hosts; ++h) {
        host_leader[h] = h * per_host;
        for (std::uint32_t k = 0; k < per_host; ++k)
            if (writing(h * per_host + k)) {
                host_leader[h] = h * per_host + k;
                break;
            }
        if (writing(host_leader[h]) && (spm_leader == none || host_leader[h] < spm_leader)) spm_leader = host_leader[h];
    }
    if (spm_leader == none) spm_leader = 0;
}

template <class Agent>
double drive_key(const domain_drive<Agent>& d, const domain_shared& shared, std::uint32_t i) noexcept {
    drive_event which = drive_event::done;
    const double g = next_guest_event(d, which);
    const double s = shared.next_send(i);
    return s < g ? s : g;
}

}  // namespace detail

/// Runs a domain: drive d (host d / drives_per_host) gets the agent make_agent(d) and the workload
/// workload_of(d) (both noexcept), and is seeded with detail::run_seed(seed, first_run + d), as run first_run + d
/// of simulate() (so that domain k of a series can take runs k x drives on). The latency must be a flow with
/// the mailbox (a send and a reply poll: the vdsm-* profiles); see domain/shared.hpp for how its stages map onto
/// the hosts and the SPM. Errors: a config or a drive's workload that make() would refuse (checked here too, both
/// being aggregates); a flow without the mailbox. Allocates O(drives) (std::bad_alloc propagates).
template <class MakeAgent, class WorkloadOf>
PROVPOL_NODISCARD result<domain_result> simulate_domain(const domain_config& cfg, const flow_latency& latency,
                                                        MakeAgent&& make_agent, WorkloadOf&& workload_of,
                                                        std::uint64_t seed, std::uint64_t first_run = 0) {
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
    detail::domain_shared shared;
    shared.init(*flow, cfg.hosts, cfg.drives_per_host, cfg.spm_workers, cfg.host_slots);
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
    // The leader's first monitor tick, as its controller draws it (the stream's first uniform).
    const double detect = flow->flow().detection_period();
    const auto period_of = [&](std::uint32_t i) noexcept {
        return detect > 0.0 ? detect : drives[i].w.base.monitor_interval;
    };
    const auto first_tick_of = [&](std::uint32_t i) noexcept {
        random_stream rng(detail::run_seed(seed, first_run + i));
        return period_of(i) * rng.uniform();
    };
    for (std::uint32_t i = 0; i < n; ++i) {
        detail::domain_drive<agent_type>& d = drives[i];
        d.latency = detail::domain_drive_latency{&flow->flow(), &shared, i};
        const std::uint32_t lead = host_leader[i / cfg.drives_per_host];
        const double first_tick = lead != i && period_of(lead) == period_of(i) ? first_tick_of(lead) : -1.0;
        d.c.emplace(make_agent(i), d.latency, d.w.base.capacity, d.w.base.monitor_interval,
                    detail::run_seed(seed, first_run + i), first_tick);
        d.R = static_cast<double>(d.w.base.write_rate.bytes_per_second());
        d.W = static_cast<double>(d.w.base.write_size.count());
        d.out.initial_size = d.c->initial_size();
        d.P = static_cast<double>(d.out.initial_size.count());
        d.theta = static_cast<double>(d.c->threshold(bytes(0)).count());
        const double begin = d.w.start + (d.w.trace != nullptr ? d.w.trace[0].time : 0.0);
        if (d.w.writing && begin <= 0.0 && d.w.trace != nullptr)
            detail::enter_segment(d, 0);
        else if (d.w.writing && begin <= 0.0)
            d.phase = 1, d.R_now = d.R, d.next_change = d.w.on_seconds > 0.0 ? d.w.on_seconds : detail::never;
        else if (d.w.writing)
            d.next_change = begin;
        heap.update(i, detail::drive_key(d, shared, i));
    }
    shared.set_spm_phase_of(spm_leader);

    const double horizon = cfg.duration;
    double now = 0.0;
    bool drained = false;
    std::uint32_t writing = 0;  // drives still to write: the run ends when none is left and the SPM is idle
    for (std::uint32_t i = 0; i < n; ++i) writing += drives[i].w.writing ? 1u : 0u;
    for (;;) {
        if (writing == 0 && shared.idle()) {  // idle drives alone do not keep the domain running
            drained = true;
            break;
        }
        const double td = heap.top_key();
        const double ts = shared.next_spm();
        if (ts < td) {
            if (ts > horizon) break;
            now = ts;
            const detail::domain_completion done = shared.serve();
            auto& c = *drives[done.drive].c;
            for (unsigned f = 0; f < c.in_flight(); ++f)
                if (c.flight(f).done_at == detail::never &&
                    c.flight(f).decision.lv_size_after_extend.count() == done.size)
                    c.set_done_at(f, done.done_at, done.reply_read);
            heap.update(done.drive, detail::drive_key(drives[done.drive], shared, done.drive));
            continue;
        }
        if (!(td <= horizon)) {
            drained = !(td < detail::never) && !(ts < detail::never);
            break;
        }
        now = td;
        const auto i = static_cast<std::uint32_t>(heap.top());
        detail::domain_drive<agent_type>& d = drives[i];
        detail::drive_event which = detail::drive_event::done;
        if (shared.next_send(i) <= detail::next_guest_event(d, which))
            shared.send(i);  // the host's mail monitor takes the request (no change to the guest)
        else if (!d.finished) {
            detail::guest_step(d, shared);
            writing -= d.finished && d.w.writing ? 1u : 0u;
        }
        heap.update(i, detail::drive_key(d, shared, i));
    }

    domain_summary& s = detail::domain_result_access::summary(out);
    s.elapsed = drained ? now : horizon;
    for (std::uint32_t i = 0; i < n; ++i) {
        detail::domain_drive<agent_type>& d = drives[i];
        run_result& r = d.out;
        const bool done = d.finished && !r.truncated;
        const double begin = d.w.start < s.elapsed ? d.w.start : s.elapsed;
        double written = d.a;
        if (!done) {
            if (d.paused) r.pause_seconds += s.elapsed - d.pause_start;
            if (!d.paused) written += d.R_now * (s.elapsed - d.t);
            written = written > d.P ? d.P : (written > d.W ? d.W : written);
        }
        r.extends = d.c->extends();
        r.resent = d.c->resent();
        r.duration = (done ? d.t : s.elapsed) - begin;
        r.final_physical = bytes(d.c->pending_physical());
        r.unwritten =
            saturating_sub(r.final_physical, done ? d.w.base.write_size : bytes(static_cast<std::uint64_t>(written)));
        detail::domain_result_access::drives(out)[i] = domain_drive_result{r, i / cfg.drives_per_host, done};
        s.extends += r.extends;
        s.resent += r.resent;
    }
    s.served = shared.served();
    const double overhang = shared.lock_free() > s.elapsed ? shared.lock_free() - s.elapsed : 0.0;
    s.spm_busy = shared.busy() - overhang;
    s.spm_utilization = s.elapsed > 0.0 ? s.spm_busy / s.elapsed : 0.0;
    std::vector<double>& lat = shared.latencies();
    const std::size_t m = lat.size();
    if (m > 0) {
        std::sort(lat.begin(), lat.end());
        double sum = 0.0;
        for (std::size_t k = 0; k < m; ++k) sum += lat[k];
        const auto at = [&](double q) {
            const double idx = detail::ceil(q * static_cast<double>(m));
            return lat[idx < 1.0 ? 0 : static_cast<std::size_t>(idx) - 1];
        };
        s.latency_mean = sum / static_cast<double>(m);
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
    return out;
}

/// The same with a latency_model: it must be a flow (flow/latency.hpp's vdsm-* profiles, or a flow fitted from a log).
template <class MakeAgent, class WorkloadOf>
PROVPOL_NODISCARD result<domain_result> simulate_domain(const domain_config& cfg, const latency_model& latency,
                                                        MakeAgent&& make_agent, WorkloadOf&& workload_of,
                                                        std::uint64_t seed, std::uint64_t first_run = 0) {
    if (!latency.is_flow())
        return unexpected(error::unsupported("domain latency",
                                             "needs a flow model with the mailbox's clocks "
                                             "(vdsm-polling-2022, vdsm-mailbox-events, vdsm-immediate)"));
    return simulate_domain(cfg, latency.flow(), std::forward<MakeAgent>(make_agent),
                           std::forward<WorkloadOf>(workload_of), seed, first_run);
}

}  // namespace provpol

#endif  // PROVPOL_DOMAIN_SIMULATOR_HPP
