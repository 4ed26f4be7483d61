// provpol/domain/drive.hpp - one drive of a storage domain as the simulator (domain/simulator.hpp) runs it: its
// latency through the shared queue, its controller and guest state, the indexed heap of the drives' next events, and
// the guest's step, simulate_run's loop body event for event. Internals, in provpol::detail.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_DOMAIN_DRIVE_HPP
#define PROVPOL_DOMAIN_DRIVE_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../flow/clocks.hpp"
#include "../random.hpp"
#include "../simulate/agent.hpp"
#include "../simulate/run.hpp"
#include "shared.hpp"
#include "workload.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace provpol {

/// A drive's latency in a domain: the flow's clocks and draws, with the completion decided by a domain_shared
/// queue (an extend_controller's Latency, as in simulate_domain). Made by of(shared, drive), it reads the flow the
/// queue owns; the queue must outlive it and stay where it is. start_run() registers the drive's run with the
/// queue, complete() adds its request there and answers never: the caller sets the completion
/// (extend_controller::set_done_at) when the queue serves it. Always bound: of() is the only way to make one (a slot
/// filled later is a std::optional<domain_drive_latency>).
class domain_drive_latency {
public:
    /// Drive `drive` of the queue's domain.
    PROVPOL_NODISCARD static domain_drive_latency of(domain_shared& shared, std::uint32_t drive) noexcept {
        return domain_drive_latency(shared, drive);
    }

    PROVPOL_NODISCARD seconds detection_period() const noexcept { return flow().detection_period(); }
    PROVPOL_NODISCARD flow_resend resend() const noexcept { return flow().resend(); }
    PROVPOL_NODISCARD seconds resend_timeout() const noexcept { return flow().resend_timeout(); }
    PROVPOL_NODISCARD flow_run start_run(random_stream& rng) const noexcept {
        const flow_run r = flow().start_run(rng);
        shared_->start(drive_, r);
        return r;
    }
    PROVPOL_NODISCARD seconds complete(flow_run&, seconds t, random_stream& rng) const noexcept {
        (void)shared_->add(drive_, t, rng);
        return never;  // the SPM's queue decides it; the domain calls extend_controller::set_done_at
    }

private:
    domain_drive_latency(domain_shared& shared, std::uint32_t drive) noexcept : shared_(&shared), drive_(drive) {}
    PROVPOL_NODISCARD const flow_latency& flow() const noexcept { return shared_->flow().flow(); }
    domain_shared* shared_;
    std::uint32_t drive_;
};

namespace detail {

/// One drive of a domain: its controller and the guest's state, as simulate_run keeps them (times in seconds, as
/// simulate_run computes them).
template <class Agent>
struct domain_drive {
    std::optional<extend_controller<Agent, domain_drive_latency>> c;  // made once the drive's workload is known
    std::optional<domain_drive_latency> latency;                      // bound with c (c reads it by reference)
    drive_workload w{};
    run_result out{};
    double R = 0.0, W = 0.0, R_now = 0.0, next_change = never_time;
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
        key_.assign(n, never_time);
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
    if (d.finished) return never_time;
    const bool moving = !d.paused && d.R_now > 0.0;
    const double R = d.R_now;
    const double t_end = moving ? d.t + (d.W - d.a) / R : never_time;
    const double t_full = moving ? (d.a >= d.P ? d.t : d.t + (d.P - d.a) / R) : never_time;
    const double t_thr = (d.armed && !d.paused)
                             ? (d.a >= d.theta ? d.t : (moving ? d.t + (d.theta - d.a) / R : never_time))
                             : never_time;
    double next = d.c->next_done().count();
    which = drive_event::done;
    if (t_thr < next) next = t_thr, which = drive_event::threshold;
    if (t_end < next) next = t_end, which = drive_event::end;
    if (t_full < next) next = t_full, which = drive_event::full;
    if (d.next_change < next) next = d.next_change, which = drive_event::change;
    if (d.c->next_tick().count() < next) next = d.c->next_tick().count(), which = drive_event::tick;
    return next;
}

/// A trace's drive enters segment k (from point k to k + 1) at d.t: writing at the segment's rate until the
/// allocation reaches its end (W is that position, so the segment's end is drive_event::end, at no cost to the
/// other workloads), or idling for its seconds (a drive_event::change).
template <class Agent>
void enter_segment(domain_drive<Agent>& d, std::size_t k) noexcept {
    d.phase = 1, d.seg = k, d.next_change = never_time, d.R_now = 0.0;
    if (k + 1 >= d.w.trace_points) return;
    const trace_point& p = d.w.trace[k];
    const trace_point& q = d.w.trace[k + 1];
    if (q.written > p.written) {
        d.R_now = static_cast<double>(q.written.count() - p.written.count()) / (q.time - p.time).count();
        d.W = static_cast<double>(q.written.count());
    } else {
        d.next_change = d.t + (q.time - p.time).count();
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
                d.out.pause_seconds += seconds(d.t - d.pause_start);
            }
            d.theta = static_cast<double>(d.c->completed(i, seconds(d.t), alloc, lv).count());
            d.P = static_cast<double>(d.c->physical());
            d.armed = true;
            break;
        }
        case drive_event::threshold:
            d.armed = false;
            f = d.c->threshold_crossed(seconds(d.t), alloc);
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
            f = d.c->paused(seconds(d.t), alloc);
            break;
        case drive_event::change:        // before the start -> writing -> idling -> writing ...
            if (d.w.trace != nullptr) {  // a trace: its start, or an idle segment's end
                enter_segment(d, d.phase == 0 ? 0 : d.seg + 1);
            } else if (d.phase != 1) {
                d.phase = 1, d.R_now = d.R;
                d.next_change = d.w.on_seconds.count() > 0.0 ? d.t + d.w.on_seconds.count() : never_time;
            } else {
                d.phase = 2, d.R_now = 0.0;
                d.next_change = d.t + d.w.off_seconds.count();
            }
            break;
        case drive_event::tick:
            f = d.c->tick(seconds(d.t), alloc);
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
    const double s = shared.next_send(i).count();
    return s < g ? s : g;
}

}  // namespace detail

}  // namespace provpol

#endif  // PROVPOL_DOMAIN_DRIVE_HPP
