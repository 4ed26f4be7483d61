// provpol-agent's domain run (see domain_driver.hpp).
#include "domain_driver.hpp"

#include "drive_loop.hpp"
#include "guest.hpp"
#include "posix.hpp"

#include <provpol/domain.hpp>
#include <provpol/extend.hpp>
#include <provpol/simulate/rate_aware.hpp>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <poll.h>

namespace provpol::agent {

namespace {

using drive_latency = domain_drive_latency;

/// The host's mail monitor and the SPM: domain_shared, the simulator's own queue, decides when each request is
/// sent, scanned, served under the VG lock and seen by the host's reply poll; this class keeps those times for
/// the log and runs the SPM worker: the lvextends, one at a time, each at the end of its turn under the lock.
class spm_worker {
public:
    // cfg comes from domain_config::make, which refuses what domain_shared::make refuses: value() throws only on a
    // broken cfg.
    spm_worker(const domain_flow& flow, const domain_config& cfg)
        : shared_(domain_shared::make(flow, cfg.hosts, cfg.drives_per_host, cfg.spm_workers, cfg.host_slots).value()) {}
    domain_shared& shared() { return shared_; }

    /// A drive's request handed to the host's mail monitor: record its send and the SPM scan that will take it.
    void send(unsigned drive, std::vector<extend_record>& extends) {
        const seconds t = shared_.next_send(drive);
        const domain_request& r = shared_.request(shared_.send(drive));
        if (r.st != domain_request::state::at_spm) return;  // the outbox was full: sent later
        if (extend_record* e = find(extends, drive, r.size))
            e->handled = t.count(), e->sent = r.sent.count(), e->scan = r.at.count();
    }

    /// The SPM takes its next request: returns the completion; records the lock and the reply poll; queues the
    /// real lvextend for the start of the request's turn under the lock, so that it runs inside the window it is
    /// compared with even when this process is scheduled late (nothing sees the LV file grow before the host
    /// refreshes the loop device at the reply).
    domain_completion serve(std::vector<extend_record>& extends) {
        const seconds scan = shared_.next_spm();  // the request it takes was scanned then
        const domain_completion c = shared_.serve();
        busy_ += (c.lock_end - c.lock_start).count();
        if (c.lock_start > scan) ++waits_;
        if (extend_record* e = find(extends, c.drive, c.size)) {
            e->lock_start = c.lock_start.count();
            e->lock_end = c.lock_end.count();
            e->reply_poll = c.reply_seen.count();
            e->injected_done = c.done_at.count();
        }
        lvextends_.push_back({c.lock_start.count(), c.drive, c.size});
        return c;
    }

    /// When the SPM worker's next lvextend runs (its turn under the lock starts), or never.
    double next_lvextend() const { return lvextends_.empty() ? never.count() : lvextends_.front().at; }
    /// The next lvextend runs: the drive and the LV size it asked for.
    std::pair<unsigned, std::uint64_t> pop_lvextend() {
        const pending p = lvextends_.front();
        lvextends_.pop_front();
        return {p.drive, p.size};
    }
    bool idle() const { return shared_.idle() && lvextends_.empty(); }
    double busy() const { return busy_; }
    std::uint32_t waits() const { return waits_; }

    /// The drive's request for an LV of `lv` bytes not yet completed.
    static extend_record* find(std::vector<extend_record>& extends, unsigned drive, std::uint64_t lv) {
        for (auto it = extends.rbegin(); it != extends.rend(); ++it)
            if (it->drive == drive && it->lv == lv && it->done < 0) return &*it;
        return nullptr;
    }

private:
    struct pending {
        double at;
        unsigned drive;
        std::uint64_t size;
    };
    domain_shared shared_;
    std::deque<pending> lvextends_;  // in lock order: their starts increase
    double busy_ = 0;
    std::uint32_t waits_ = 0;
};

/// One drive: its controller and its guest.
template <class Agent>
struct drive {
    std::unique_ptr<extend_controller<Agent, drive_latency>> c;
    guest_process g;
    measured m;
    bool writing = true, guest_open = true, paused = false;
    double start = 0, pause_start = 0, last_extend_done = -1e300, paused_by_guest = 0;
};

/// One domain run on the real stack (run_domain): the drives, the SPM worker and what the run measured, with the
/// steps of the agent's loop as member functions over them.
template <class Agent>
class domain_run {
public:
    domain_run(const Agent& agent, const latency_model& latency, const options& o, stack& s, event_log& log)
        : o_(o),
          s_(s),
          log_(log),
          n_(s.drives()),
          cfg_(domain_config::make(1, n_)),
          flow_(domain_flow::make(latency.flow())),
          spm_(checked_flow(), *cfg_),
          drives_(n_),
          extent_(o.config.extent().count()) {
        out_.drives.resize(n_);
        latencies_.reserve(n_);  // each controller keeps a reference to its latency: no reallocation below
        // Constructed in drive order, as simulate_domain does; every drive writes, so drive 0 leads the host's
        // monitor and the SPM scan (domain_leaders).
        for (unsigned d = 0; d < n_; ++d) {
            latencies_.push_back(drive_latency::of(spm_.shared(), d));
            const seconds period =
                flow_->flow().detection_period() > seconds(0) ? flow_->flow().detection_period() : o.monitor_interval;
            random_stream lead(run_seed(o.seed, 0));
            const seconds first_tick = d == 0 ? seconds(-1) : period * lead.uniform();
            drives_[d].c = std::make_unique<extend_controller<Agent, drive_latency>>(
                agent, latencies_[d], o.capacity, o.monitor_interval, run_seed(o.seed, d), first_tick);
            drives_[d].start = (o.stagger * d).count();
            drives_[d].m.initial_size = s.loop(d).size();
            if (drives_[d].c->initial_size().count() != s.loop(d).size())
                throw failure("the new LV has " + std::to_string(s.loop(d).size()) +
                              " bytes, the agent's initial size is " +
                              std::to_string(drives_[d].c->initial_size().count()));
        }
        spm_.shared().set_spm_phase_of(0);
    }
    domain_run(const domain_run&) = delete;
    domain_run& operator=(const domain_run&) = delete;

    /// The guests started, the loop run until every drive finished writing and the SPM is idle, the guests reaped.
    domain_measured run() {
        start();
        for (;;) {
            check_signals();
            bool busy = !spm_.idle();
            for (const drive<Agent>& v : drives_) busy = busy || v.writing || v.c->in_flight() > 0;
            if (!busy) break;
            due_events();
            qemu_events();
            for (unsigned d = 0; d < n_; ++d) guest_messages(d);
            wait();
            if (s_.daemon().poll_exit()) throw failure(daemon_exited(s_, "while the guests wrote"));
        }
        reap_guests(drives_, out_.drives);
        out_.spm_busy = spm_.busy();
        out_.lock_waits = spm_.waits();
        return out_;
    }

private:
    /// The flow, once the domain is one the simulator can run (the SPM worker's queue needs both).
    const domain_flow& checked_flow() const {
        if (!cfg_ || !flow_) throw failure("--drives: not a domain the simulator can run");
        return *flow_;
    }
    double now() const { return monotonic_seconds() - t0_; }

    /// Registers drive d's write threshold and checks that QEMU holds it.
    void arm(unsigned d, double t, bytes threshold_bytes) {
        const std::uint64_t threshold = threshold_bytes.count();
        const std::uint64_t held = s_.set_threshold(threshold, d);
        if (held != threshold)
            throw failure("QEMU holds write threshold " + std::to_string(held) + ", not " + std::to_string(threshold));
        event_log::row r = drive_row(t, "threshold-set", d);
        r.physical = drives_[d].c->physical();
        r.threshold = threshold;
        r.detail = "qemu-write-threshold=" + std::to_string(held);
        log_.add(r);
    }

    /// A request the controller made (none when f is null): the SPM's queue needs its size, the log its record.
    void requested(unsigned d, const extend_in_flight* f, double t, std::uint64_t allocation, const char* on,
                   double event_delay) {
        if (f == nullptr) return;
        domain_request& q = spm_.shared().request(spm_.shared().last_added());
        q.size = f->decision.lv_size_after_extend.count();
        q.exceeded_at = f->exceeded_at;
        extend_record e;
        e.drive = d;
        e.requested = t;
        e.request = f->decision.next_size.count();
        e.lv = f->decision.lv_size_after_extend.count();
        e.free_s =
            static_cast<double>(f->state.physical.count() > allocation ? f->state.physical.count() - allocation : 0) /
            static_cast<double>(o_.write_rate.bytes_per_second());
        e.on = on;
        e.event_delay = event_delay;
        out_.extends.push_back(e);
        event_log::row r = drive_row(t, "extend-requested", d);
        r.allocation = allocation;
        r.physical = f->state.physical.count();
        r.threshold = f->decision.block_threshold.count();
        r.requested = e.request;
        r.lv_size = e.lv;
        r.max_size = f->decision.max_size.count();
        r.free_s = e.free_s;
        char why[64];
        std::snprintf(why, sizeof why, "on=%s event-delay=%.6f", on, event_delay);
        r.detail = why;
        log_.add(r);
    }

    /// Drive d's guest resumes (VDSM's cont): the pause is over, its length counted into `e` and logged.
    void resume(unsigned d, extend_record* e, const char* why) {
        drive<Agent>& v = drives_[d];
        write_all(v.g.to.get(), "resume\n");
        v.paused = false;
        const double t = now(), paused = t - v.pause_start;
        v.m.pause_seconds += paused;
        if (e != nullptr) e->pause += paused;
        event_log::row r = drive_row(t, "resume", d);
        r.physical = v.c->physical();
        r.delay = paused;
        r.detail = why;
        log_.add(r);
    }

    /// Drive d's first extend is due: the host refreshes the LV, re-arms the threshold and resumes the guest.
    void complete(unsigned d) {
        drive<Agent>& v = drives_[d];
        const unsigned i = v.c->first_done();
        const extend_in_flight f = v.c->flight(i);
        const std::uint64_t request = f.decision.next_size.count();
        // The host sees the reply and refreshes the LV: the SPM worker's lvextend has grown the file by now.
        s_.loop(d).refresh_capacity();
        const std::uint64_t real = s_.loop(d).size();
        if (!extend_succeeded(bytes(request), bytes(real)))
            throw failure("extend to " + std::to_string(request) + " left the LV at " + std::to_string(real));
        const double t = now();
        v.m.max_overhead = std::max(v.m.max_overhead, t - f.done_at.count());
        v.last_extend_done = t;
        extend_record* e = spm_worker::find(out_.extends, d, f.decision.lv_size_after_extend.count());
        event_log::row r = drive_row(t, "extend-done", d);
        r.physical = real;
        r.requested = request;
        r.lv_size = f.decision.lv_size_after_extend.count();
        r.delay = t - f.requested_at.count();
        char detail_text[160];
        std::snprintf(detail_text, sizeof detail_text,
                      "injected=%.3fs overhead=%.1fms sent=%.3f scan=%.3f lock=%.3f-%.3f reply-poll=%.3f",
                      (f.done_at - f.requested_at).count(), (t - f.done_at.count()) * 1000.0, e ? e->sent : -1,
                      e ? e->scan : -1, e ? e->lock_start : -1, e ? e->lock_end : -1, e ? e->reply_poll : -1);
        r.detail = detail_text;
        log_.add(r);
        arm(d, t, v.c->completed(i, seconds(t), bytes(s_.allocation(d)), bytes(real)));
        if (e != nullptr) e->done = t;  // after completed(): find() looks for the extends not done yet
        if (v.paused) resume(d, e, "");
    }

    /// The guests started on one clock (drive d at t0 + d x stagger), each ready and its threshold armed first.
    void start() {
        for (unsigned d = 0; d < n_; ++d)
            drives_[d].g = start_guest(o_, s_.nbd_socket(), stack::format_node_of(d), o_.seed + d);
        for (unsigned d = 0; d < n_; ++d) {
            const std::string ready = drives_[d].g.read_line(10.0);
            if (ready.rfind("ready ", 0) != 0)
                throw failure("guest " + std::to_string(d) + " could not open its disk: " + ready);
            arm(d, 0.0, drives_[d].c->threshold(bytes(0)));
        }
        t0_ = monotonic_seconds() + 0.2;
        for (unsigned d = 0; d < n_; ++d) {
            char go[64];
            std::snprintf(go, sizeof go, "go %.6f\n", t0_ + drives_[d].start);
            write_all(drives_[d].g.to.get(), go);
        }
        // Their "start" lines come in the loop: the first drives write while the later ones wait for theirs.
    }

    /// The scheduled events that are due, earliest first; at equal times as simulate_domain orders them: the
    /// drives' (the host's send, the extend's completion, the monitor's tick), then the SPM.
    void due_events() {
        for (;;) {
            double when = never.count();
            int kind = -1;
            unsigned which = 0;
            for (unsigned d = 0; d < n_; ++d) {
                const double ts = spm_.shared().next_send(d).count(), td = drives_[d].c->next_done().count();
                const double tt = drives_[d].writing ? drives_[d].c->next_tick().count() : never.count();
                if (ts < when) when = ts, kind = 0, which = d;
                if (td < when) when = td, kind = 1, which = d;
                if (tt < when) when = tt, kind = 2, which = d;
            }
            if (spm_.next_lvextend() < when) when = spm_.next_lvextend(), kind = 3;
            if (spm_.shared().next_spm().count() < when) when = spm_.shared().next_spm().count(), kind = 4;
            if (kind < 0 || when > now()) break;
            if (kind == 0) {
                spm_.send(which, out_.extends);
            } else if (kind == 1) {
                complete(which);
            } else if (kind == 2) {
                monitor_tick(which);
            } else if (kind == 3) {
                lvextend();
            } else {
                const domain_completion c = spm_.serve(out_.extends);
                auto& ctl = *drives_[c.drive].c;
                for (unsigned f = 0; f < ctl.in_flight(); ++f)
                    if (ctl.flight(f).done_at == never && ctl.flight(f).decision.lv_size_after_extend.count() == c.size)
                        ctl.set_done_at(f, c.done_at, c.reply_read);
            }
        }
    }

    /// Drive d's monitor wakes: it samples the allocation and may request an extend.
    void monitor_tick(unsigned which) {
        drive<Agent>& v = drives_[which];
        const double t = now();
        const std::uint64_t a = s_.allocation(which);
        const extend_in_flight* f = v.c->tick(seconds(t), bytes(a));
        event_log::row r = drive_row(t, "sample", which);
        r.allocation = a;
        r.physical = v.c->physical();
        log_.add(r, false);
        requested(which, f, t, a, "monitor", 0);
        if (v.paused && v.c->in_flight() == 0)
            throw failure("the guest paused on ENOSPC and the policy requests no extend (at its maximum?)");
    }

    /// The SPM worker's lvextend: the LV file grows to the request rounded up to the extent.
    void lvextend() {
        const auto [d, lv_size] = spm_.pop_lvextend();
        const drive<Agent>& v = drives_[d];
        std::uint64_t request = lv_size;
        for (unsigned f = 0; f < v.c->in_flight(); ++f)
            if (v.c->flight(f).decision.lv_size_after_extend.count() == lv_size)
                request = v.c->flight(f).decision.next_size.count();
        grow_file(s_.lv_file(d), (request + extent_ - 1) / extent_ * extent_);
        if (extend_record* e = spm_worker::find(out_.extends, d, lv_size)) e->lvextend_done = now();
    }

    /// QEMU's threshold events.
    void qemu_events() {
        json ev;
        while (s_.qmp().next_event(ev)) {
            if (ev["event"] != "BLOCK_WRITE_THRESHOLD") continue;
            const int dn = s_.drive_of_file_node(ev["data"].value("node-name", ""));
            if (dn < 0) continue;
            const auto d = static_cast<unsigned>(dn);
            const double t = now();
            const std::uint64_t threshold = ev["data"]["write-threshold"].get<std::uint64_t>();
            const std::uint64_t a = threshold + ev["data"]["amount-exceeded"].get<std::uint64_t>();
            const extend_in_flight* f = drives_[d].c->threshold_crossed(seconds(t), bytes(a));
            event_log::row r = drive_row(t, "threshold-crossed", d);
            r.allocation = a;
            r.physical = drives_[d].c->physical();
            r.threshold = threshold;
            log_.add(r);
            requested(d, f, t, a, "threshold", event_delay(ev));
        }
    }

    /// Drive d's guest's messages: its start, a pause, its lateness, the end of its write.
    void guest_messages(unsigned d) {
        drive<Agent>& v = drives_[d];
        std::string line;
        while (v.g.reader->next(line)) {
            if (line.rfind("start ", 0) == 0) continue;
            if (line.rfind("pause ", 0) == 0) {
                guest_paused(d, line);
            } else if (line.rfind("late ", 0) == 0) {
                double t_late = 0, late = 0;
                if (std::sscanf(line.c_str() + 5, "%lf %lf", &t_late, &late) != 2)
                    throw failure("guest " + std::to_string(d) + " sent '" + line + "'");
                event_log::row r = drive_row(t_late - t0_, "guest-late", d);
                r.delay = late;
                log_.add(r, false);
            } else if (line.rfind("done ", 0) == 0) {
                guest_done(d, line);
            } else {
                throw failure("guest " + std::to_string(d) + " sent '" + line + "'");
            }
        }
    }

    /// Drive d's guest paused on ENOSPC: resumed at once when the space is there, otherwise an extend requested.
    void guest_paused(unsigned d, const std::string& line) {
        drive<Agent>& v = drives_[d];
        double tp = 0, issued = 0;
        unsigned long long off = 0;
        if (std::sscanf(line.c_str() + 6, "%lf %llu %lf", &tp, &off, &issued) != 3)
            throw failure("guest " + std::to_string(d) + " sent '" + line + "'");
        tp -= t0_;
        issued -= t0_;
        const std::uint64_t a = s_.allocation(d);
        ++v.m.pauses;
        event_log::row r = drive_row(tp, "pause", d);
        r.allocation = a;
        r.physical = v.c->physical();
        char detail_text[96];
        std::snprintf(detail_text, sizeof detail_text, "guest-offset=%llu write-issued=%.3f", off, issued);
        r.detail = detail_text;
        log_.add(r);
        v.paused = true;
        v.pause_start = tp;
        if (v.last_extend_done >= issued) {
            // Sent while the LV had its old size, failed after the extend completed (driver.cpp).
            extend_record* last = nullptr;
            for (extend_record& e : out_.extends)
                if (e.drive == d && e.done >= 0) last = &e;
            resume(d, last, "the extend completed while the failed write was in flight");
            return;
        }
        requested(d, v.c->paused(seconds(tp), bytes(a)), tp, a, "pause", 0);
        if (v.c->decides_on_events() && v.c->in_flight() == 0)
            throw failure("the guest paused on ENOSPC and the policy requests no extend (at its maximum?)");
    }

    /// Drive d's guest finished writing: its duration, lateness and achieved rate.
    void guest_done(unsigned d, const std::string& line) {
        drive<Agent>& v = drives_[d];
        double t_done = 0;
        unsigned long long written = 0;
        if (std::sscanf(line.c_str() + 5, "%lf %llu %lf %lf", &t_done, &written, &v.m.max_lateness,
                        &v.paused_by_guest) != 4)
            throw failure("guest " + std::to_string(d) + " sent '" + line + "'");
        v.m.duration = t_done - t0_ - v.start;
        v.writing = false;
        const double busy_s = v.m.duration - v.paused_by_guest;
        v.m.achieved_rate = busy_s > 0 ? static_cast<double>(written) / busy_s : 0;
        event_log::row r = drive_row(t_done - t0_, "write-done", d);
        r.allocation = s_.allocation(d);
        r.physical = v.c->physical();
        char detail_text[96];
        std::snprintf(detail_text, sizeof detail_text, "rate=%.1fMiB/s max-lateness=%.1fms",
                      v.m.achieved_rate / 1048576.0, v.m.max_lateness * 1000.0);
        r.detail = detail_text;
        log_.add(r);
    }

    /// Sleeps until the next scheduled event (at most 1 s) or something to read; a guest that closed its pipe
    /// before it finished writing is a failure.
    void wait() {
        double deadline = std::min(spm_.shared().next_spm().count(), spm_.next_lvextend());
        for (unsigned d = 0; d < n_; ++d) {
            deadline = std::min({deadline, spm_.shared().next_send(d).count(), drives_[d].c->next_done().count(),
                                 drives_[d].writing ? drives_[d].c->next_tick().count() : never.count()});
        }
        const double wait = deadline - now();
        fds_[0] = {s_.qmp().get(), POLLIN, 0};
        fds_[1] = {signal_fd(), POLLIN, 0};
        for (unsigned d = 0; d < n_; ++d)
            fds_[d + 2] = {drives_[d].guest_open ? drives_[d].g.from.get() : -1, POLLIN, 0};
        const int k =
            ::poll(fds_.data(), fds_.size(), wait <= 0 ? 0 : static_cast<int>(std::ceil(std::min(wait, 1.0) * 1000.0)));
        if (k < 0 && errno != EINTR) fail_errno("poll");
        if (k <= 0) return;
        if ((fds_[0].revents & (POLLIN | POLLHUP | POLLERR)) && !s_.qmp().pump())
            throw failure("QMP: the daemon closed the monitor connection");
        check_guest_pipes(drives_, fds_);
    }

    const options& o_;
    stack& s_;
    event_log& log_;
    const unsigned n_;
    const result<domain_config> cfg_;
    const result<domain_flow> flow_;
    spm_worker spm_;
    domain_measured out_;
    std::vector<drive_latency> latencies_;
    std::vector<drive<Agent>> drives_;
    const std::uint64_t extent_;
    double t0_ = 0;
    std::vector<pollfd> fds_ = std::vector<pollfd>(n_ + 2);
};

}  // namespace

template <class Agent>
domain_measured run_domain(const Agent& agent, const latency_model& latency, const options& o, stack& s,
                           event_log& log) {
    domain_run<Agent> run(agent, latency, o, s, log);
    return run.run();
}

template domain_measured run_domain(const static_agent<vdsm_policy>&, const latency_model&, const options&, stack&,
                                    event_log&);
template domain_measured run_domain(const rate_aware_agent&, const latency_model&, const options&, stack&, event_log&);

}  // namespace provpol::agent
