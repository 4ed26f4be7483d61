// provpol-agent's driver (see driver.hpp).
#include "driver.hpp"

#include "drive_loop.hpp"
#include "guest.hpp"
#include "posix.hpp"

#include <provpol/extend.hpp>
#include <provpol/simulate.hpp>
#include <provpol/simulate/rate_aware.hpp>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <poll.h>
#include <unistd.h>

namespace provpol::agent {

namespace {

/// Whether an agent type exposes its rate estimate (the rate-aware agent does).
template <class A>
std::uint64_t estimate_of(const A& a) {
    if constexpr (std::is_same_v<A, rate_aware_agent>)
        return a.estimator().estimate().bytes_per_second();
    else
        return 0;
}

}  // namespace

std::string guest_process::read_line(double seconds) {
    const double deadline = monotonic_seconds() + seconds;
    std::string line;
    while (!reader->next(line)) {
        pollfd p{from.get(), POLLIN, 0};
        const int n = ::poll(&p, 1, 50);
        if (n < 0 && errno != EINTR) fail_errno("poll");
        check_signals();
        if (n > 0 && !reader->fill()) throw failure("the guest exited before it was ready");
        if (monotonic_seconds() > deadline) throw failure("the guest did not answer");
    }
    return line;
}

guest_process start_guest(const options& o, const std::string& nbd_socket, const std::string& export_name,
                          std::uint64_t pattern_seed) {
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) fail_errno("pipe2");
    guest_process g;
    fd child_in(in[0]), child_out(out[1]);
    g.to = fd(in[1]);
    g.from = fd(out[0]);
    g.proc = child::spawn(
        {"/proc/self/exe", "guest", nbd_socket, export_name, std::to_string(o.write_rate.bytes_per_second()),
         std::to_string(o.write.count()), std::to_string(o.request.count()), std::to_string(pattern_seed)},
        child_in.get(), child_out.get(), -1);
    g.reader.emplace(g.from.get());
    return g;
}

/// The failure to report when the daemon has exited under the agent: its exit status and the end of its log.
std::string daemon_exited(stack& s, const std::string& context) {
    const std::string log_tail = s.daemon_log();
    return "qemu-storage-daemon exited with status " + std::to_string(s.daemon().exit_code()) + " " + context +
           (log_tail.empty() ? "" : ": " + log_tail);
}

namespace {

/// One run of the real stack (run_real): the controller, the guest and what the run measured, with the steps of
/// the agent's loop as member functions over them.
template <class Agent>
class real_run {
public:
    real_run(Agent agent, const latency_model& latency, const options& o, stack& s, event_log& log)
        : c_(std::move(agent), latency, o.capacity, o.monitor_interval, o.seed),
          o_(o),
          s_(s),
          log_(log),
          extent_(o.config.extent()) {
        if (c_.initial_size().count() != s_.loop().size())
            throw failure("the new LV has " + std::to_string(s_.loop().size()) +
                          " bytes, the agent's initial size is " + std::to_string(c_.initial_size().count()));
        m_.initial_size = s_.loop().size();
    }

    /// The guest started, the loop run until it finished writing and every extend completed, the guest reaped.
    measured run() {
        start();
        while (writing_ || c_.in_flight() > 0) {
            check_signals();
            // Due extends first (they complete at their time, as the SPM's reply arrives).
            while (c_.in_flight() > 0 && c_.next_done().count() <= now()) complete(c_.first_done());
            if (writing_ && c_.next_tick().count() <= now()) monitor_tick();
            qemu_events();
            guest_messages();
            if (!writing_ && c_.in_flight() == 0) break;
            if (!wait()) continue;
            if (s_.daemon().poll_exit()) throw failure(daemon_exited(s_, "while the guest wrote"));
        }
        if (!g_.proc.wait_for(10.0)) throw failure("the guest did not exit");
        if (g_.proc.exit_code() != 0)
            throw failure("the guest exited with status " + std::to_string(g_.proc.exit_code()));
        m_.final_physical = c_.physical();
        m_.extends = c_.extends();
        return m_;
    }

private:
    double now() const { return monotonic_seconds() - t0_; }

    /// Registers QEMU's write threshold and checks that QEMU holds it.
    void arm(double t, bytes threshold_bytes) {
        const std::uint64_t threshold = threshold_bytes.count();
        const std::uint64_t held = s_.set_threshold(threshold);
        if (held != threshold)
            throw failure("QEMU holds write threshold " + std::to_string(held) + ", not " + std::to_string(threshold));
        event_log::row r;
        r.time = t;
        r.event = "threshold-set";
        r.physical = c_.physical();
        r.threshold = threshold;
        r.rate = estimate_of(c_.agent());
        r.detail = "qemu-write-threshold=" + std::to_string(held);
        log_.add(r);
    }

    /// Logs the extend the controller requested (nothing when it requested none).
    void requested(const extend_in_flight* f, double t, std::uint64_t allocation, const std::string& why) {
        if (f == nullptr) return;
        event_log::row r;
        r.time = t;
        r.event = "extend-requested";
        r.allocation = allocation;
        r.physical = f->state.physical.count();
        r.threshold = f->decision.block_threshold.count();
        r.requested = f->decision.next_size.count();
        r.lv_size = f->decision.lv_size_after_extend.count();
        r.max_size = f->decision.max_size.count();
        r.delay = (f->done_at - f->requested_at).count();
        // The time the guest needs, at the nominal rate, to fill what is free now: it pauses if the delay is longer.
        r.free_s =
            static_cast<double>(f->state.physical.count() > allocation ? f->state.physical.count() - allocation : 0) /
            static_cast<double>(o_.write_rate.bytes_per_second());
        r.rate = estimate_of(c_.agent());
        r.detail = why;
        log_.add(r);
    }

    /// The guest started and ready, the first threshold armed, the write begun: t0 is its first write's time.
    void start() {
        g_ = start_guest(o_, s_.nbd_socket(), stack::format_node, o_.seed);
        {
            const std::string ready = g_.read_line(10.0);
            if (ready.rfind("ready ", 0) != 0) throw failure("the guest could not open the disk: " + ready);
        }
        // The controller's monitor already ran before the write started: its last look saw the empty drive.
        arm(0.0, c_.threshold(bytes(0)));
        write_all(g_.to.get(), "go\n");
        const std::string start = g_.read_line(10.0);
        if (start.rfind("start ", 0) != 0) throw failure("the guest did not start: " + start);
        t0_ = std::strtod(start.c_str() + 6, nullptr);
    }

    /// The guest resumes (VDSM's cont): the pause is over, its length logged.
    void resume(const char* why) {
        write_all(g_.to.get(), "resume\n");
        paused_ = false;
        const double t_resume = now();
        m_.pause_seconds += t_resume - pause_start_;
        event_log::row rr;
        rr.time = t_resume;
        rr.event = "resume";
        rr.physical = c_.physical();
        rr.delay = t_resume - pause_start_;
        rr.detail = why;
        log_.add(rr);
    }

    /// Extend `i` is due: the LV grows, the loop device sees it, the threshold is re-armed, the guest resumed.
    void complete(unsigned i) {
        const extend_in_flight f = c_.flight(i);
        const std::uint64_t request = f.decision.next_size.count();
        // The SPM: lvextend rounds the request up to the extent; then the host refreshes the LV.
        const std::uint64_t lv = (request + extent_.count() - 1) / extent_.count() * extent_.count();
        grow_file(s_.lv_file(), lv);
        s_.loop().refresh_capacity();
        const std::uint64_t real = s_.loop().size();
        if (!extend_succeeded(bytes(request), bytes(real)))
            throw failure("extend to " + std::to_string(request) + " left the LV at " + std::to_string(real));
        const double t = now();
        m_.max_overhead = std::max(m_.max_overhead, t - f.done_at.count());
        last_extend_done_ = t;
        event_log::row r;
        r.time = t;
        r.event = "extend-done";
        r.physical = real;
        r.requested = request;
        r.lv_size = f.decision.lv_size_after_extend.count();
        r.delay = t - f.requested_at.count();
        char d[96];
        std::snprintf(d, sizeof d, "injected=%.3fs overhead=%.1fms", (f.done_at - f.requested_at).count(),
                      (t - f.done_at.count()) * 1000.0);
        r.detail = d;
        log_.add(r);
        // The threshold is re-registered from the device's real size, never the requested one.
        arm(t, c_.completed(i, seconds(t), bytes(s_.allocation()), bytes(real)));
        if (paused_) resume("");
    }

    /// The monitor wakes: it samples the allocation and may request an extend.
    void monitor_tick() {
        const double t = now();
        const std::uint64_t a = s_.allocation();
        const extend_in_flight* f = c_.tick(seconds(t), bytes(a));
        event_log::row r;
        r.time = t;
        r.event = "sample";
        r.allocation = a;
        r.physical = c_.physical();
        r.rate = estimate_of(c_.agent());
        log_.add(r, false);
        requested(f, t, a, "on=monitor");
        if (paused_ && c_.in_flight() == 0)
            throw failure("the guest paused on ENOSPC and the policy requests no extend (at its maximum?)");
    }

    /// QEMU's threshold events for the drive's file node.
    void qemu_events() {
        json ev;
        while (s_.qmp().next_event(ev)) {
            if (ev["event"] != "BLOCK_WRITE_THRESHOLD" || ev["data"].value("node-name", "") != stack::file_node)
                continue;
            const double t = now();
            const std::uint64_t a =
                ev["data"]["write-threshold"].get<std::uint64_t>() + ev["data"]["amount-exceeded"].get<std::uint64_t>();
            const extend_in_flight* f = c_.threshold_crossed(seconds(t), bytes(a));
            event_log::row r;
            r.time = t;
            r.event = "threshold-crossed";
            r.allocation = a;
            r.physical = c_.physical();
            r.threshold = ev["data"]["write-threshold"].get<std::uint64_t>();
            log_.add(r);
            char why[64];
            std::snprintf(why, sizeof why, "on=threshold event-delay=%.6f", event_delay(ev));
            requested(f, t, a, why);
        }
    }

    /// The guest's messages: a pause, its lateness, the end of its write.
    void guest_messages() {
        std::string line;
        while (g_.reader->next(line)) {
            if (line.rfind("pause ", 0) == 0) {
                guest_paused(line);
            } else if (line.rfind("late ", 0) == 0) {
                double t_late = 0, late = 0;
                if (std::sscanf(line.c_str() + 5, "%lf %lf", &t_late, &late) != 2)
                    throw failure("the guest sent '" + line + "'");
                event_log::row r;
                r.time = t_late - t0_;
                r.event = "guest-late";
                r.delay = late;
                log_.add(r, false);
            } else if (line.rfind("done ", 0) == 0) {
                guest_done(line);
            } else {
                throw failure("the guest sent '" + line + "'");
            }
        }
    }

    /// The guest paused on ENOSPC: resumed at once when the space is there, otherwise an extend requested.
    void guest_paused(const std::string& line) {
        const double tp = std::strtod(line.c_str() + 6, nullptr) - t0_;
        const std::uint64_t a = s_.allocation();
        ++m_.pauses;
        event_log::row r;
        r.time = tp;
        r.event = "pause";
        r.allocation = a;
        r.physical = c_.physical();
        unsigned long long off = 0;
        double issued = tp + t0_, tpa = 0;
        if (std::sscanf(line.c_str() + 6, "%lf %llu %lf", &tpa, &off, &issued) != 3)
            throw failure("the guest sent '" + line + "'");
        issued -= t0_;
        char d[96];
        std::snprintf(d, sizeof d, "guest-offset=%llu write-issued=%.3f", off, issued);
        r.detail = d;
        log_.add(r);
        paused_ = true;
        pause_start_ = tp;
        if (last_extend_done_ >= issued) {
            // The write was sent while the LV still had its old size and failed after the extend completed: the
            // space is there now, resume at once (VDSM resumes a VM whose drive no longer needs an extend).
            resume("the extend completed while the failed write was in flight");
            return;
        }
        // The request is made at the pause's time, as the simulator makes it (the agent reads the guest's message
        // a few ms later; the injected latency counts from the pause).
        requested(c_.paused(seconds(tp), bytes(a)), tp, a, "on=pause");
        if (c_.decides_on_events() && c_.in_flight() == 0)
            throw failure("the guest paused on ENOSPC and the policy requests no extend (at its maximum?)");
    }

    /// The guest finished writing: its duration, lateness and achieved rate.
    void guest_done(const std::string& line) {
        double t_done = 0;
        unsigned long long written = 0;
        if (std::sscanf(line.c_str() + 5, "%lf %llu %lf %lf", &t_done, &written, &m_.max_lateness, &paused_by_guest_) !=
            4)
            throw failure("the guest sent '" + line + "'");
        m_.duration = t_done - t0_;
        total_ = written;
        writing_ = false;
        const double busy = m_.duration - paused_by_guest_;
        m_.achieved_rate = busy > 0 ? static_cast<double>(total_) / busy : 0;
        event_log::row r;
        r.time = m_.duration;
        r.event = "write-done";
        r.allocation = s_.allocation();
        r.physical = c_.physical();
        char d[96];
        std::snprintf(d, sizeof d, "rate=%.1fMiB/s max-lateness=%.1fms", m_.achieved_rate / 1048576.0,
                      m_.max_lateness * 1000.0);
        r.detail = d;
        log_.add(r);
    }

    /// Sleeps until the next deadline or something to read. Returns false when the guest closed its pipe after it
    /// finished writing (the loop goes on without the daemon's check).
    bool wait() {
        const double deadline = std::min(writing_ ? c_.next_tick().count() : 1e300, c_.next_done().count());
        const double wait = deadline - now();
        // After "done", the guest's end of the pipe closes: stop watching it (poll ignores a negative fd).
        pollfd p[3] = {
            {s_.qmp().get(), POLLIN, 0}, {guest_open_ ? g_.from.get() : -1, POLLIN, 0}, {signal_fd(), POLLIN, 0}};
        const int n = ::poll(p, 3, wait <= 0 ? 0 : static_cast<int>(std::ceil(wait * 1000.0)));
        if (n < 0 && errno != EINTR) fail_errno("poll");
        if (n > 0) {
            if ((p[0].revents & (POLLIN | POLLHUP | POLLERR)) && !s_.qmp().pump())
                throw failure("QMP: the daemon closed the monitor connection");
            if ((p[1].revents & (POLLIN | POLLHUP | POLLERR)) && !g_.reader->fill()) {
                guest_open_ = false;
                if (!writing_) return false;
                g_.proc.wait_for(5.0);
                throw failure("the guest exited with status " + std::to_string(g_.proc.exit_code()) +
                              (writing_ ? " before it finished writing" : ""));
            }
        }
        return true;
    }

    measured m_;
    extend_controller<Agent, latency_model> c_;
    const options& o_;
    stack& s_;
    event_log& log_;
    const bytes extent_;
    guest_process g_;
    bool paused_ = false, writing_ = true, guest_open_ = true;
    double pause_start_ = 0, last_extend_done_ = -1e300, paused_by_guest_ = 0;
    double t0_ = 0;  // CLOCK_MONOTONIC of the guest's first write
    std::uint64_t total_ = 0;
};

}  // namespace

/// Drives the real stack with `agent` through provpol's extend_controller, the same flow code simulate_run runs, so
/// that the simulator with the same seed replays the same run by construction: the monitor's phase, the flow's
/// clocks and every extend's latency come from one stream, drawn in the same order, at the real event times.
template <class Agent>
measured run_real(Agent agent, const latency_model& latency, const options& o, stack& s, event_log& log) {
    real_run<Agent> run(std::move(agent), latency, o, s, log);
    return run.run();
}

template measured run_real(static_agent<vdsm_policy>, const latency_model&, const options&, stack&, event_log&);
template measured run_real(rate_aware_agent, const latency_model&, const options&, stack&, event_log&);

verified verify_image(const std::string& device, bytes write, std::uint64_t pattern_seed) {
    verified v;
    const tool_result check = run_tool({"qemu-img", "check", "-f", "qcow2", device});
    // 0: no errors; 3: leaked clusters only (a write that failed with ENOSPC may leak its clusters).
    if (check.code != 0 && check.code != 3) throw failure("qemu-img check found errors: " + check.output);
    v.check = check.code == 0 ? "no errors" : "leaked clusters only";
    std::vector<std::string> argv = {"qemu-io", "-r", "-t", "none", "-f", "qcow2", device};
    const std::uint64_t mibs = write.count() >> 20;
    for (std::uint64_t i = 0; i < mibs; ++i) {
        char cmd[96];
        std::snprintf(cmd, sizeof cmd, "read -q -P 0x%02x %" PRIu64 " 1048576", pattern_byte(i, pattern_seed), i << 20);
        argv.push_back("-c");
        argv.push_back(cmd);
    }
    const tool_result r = run_tool(argv);
    std::size_t failed = 0;
    for (std::size_t p = r.output.find("Pattern verification failed"); p != std::string::npos;
         p = r.output.find("Pattern verification failed", p + 1))
        ++failed;
    if (r.code != 0 || failed != 0 || r.output.find("fail") != std::string::npos)
        throw failure("data lost: " + std::to_string(failed) + " of " + std::to_string(mibs) +
                      " MiB did not read back as written: " + r.output.substr(0, 400));
    v.verify = std::to_string(mibs) + " MiB read back by qemu-io, all as written";
    return v;
}

/// After the daemon stopped: qemu-img check, then every MiB read back through qemu-io (a separate QEMU process
/// reading the qcow2 image on the device) and compared with the pattern by qemu-io itself (read -P).
void verify(const options& o, stack& s, measured& m) {
    const verified v = verify_image(s.loop().path(), o.write, o.seed);
    m.check = v.check;
    m.verify = v.verify;
}

}  // namespace provpol::agent
