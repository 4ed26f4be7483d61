// provpol-agent --lvm VG (see lvm_driver.hpp).
#include "lvm_driver.hpp"

#include "drive_loop.hpp"
#include "guest.hpp"
#include "posix.hpp"

#include <provpol/extend.hpp>
#include <provpol/simulate/agent.hpp>
#include <provpol/simulate/run.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include <fcntl.h>
#include <linux/fs.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace provpol::agent {

namespace {

/// No injected latency: the extend is done when the real lvextend and refresh are; the driver sets its time.
struct real_latency {
    PROVPOL_NODISCARD seconds detection_period() const noexcept { return seconds(0); }
    PROVPOL_NODISCARD int start_run(random_stream&) const noexcept { return 0; }
    PROVPOL_NODISCARD seconds complete(int&, seconds, random_stream&) const noexcept { return never; }
};

/// A command run without throwing (for clean-up in destructors): its exit code, or -1 when it could not run.
int run_quietly(const std::vector<std::string>& argv) {
    try {
        fd null(::open("/dev/null", O_WRONLY | O_CLOEXEC));
        child c = child::spawn(argv, -1, null.get(), null.get());
        if (!c.wait_for(60.0, false)) return -1;
        return c.exit_code();
    } catch (const std::exception&) {
        return -1;
    }
}

std::uint64_t device_size(const std::string& dev) {
    fd f(::open(dev.c_str(), O_RDONLY | O_CLOEXEC));
    if (!f) fail_errno("open " + dev);
    std::uint64_t size = 0;
    if (::ioctl(f.get(), BLKGETSIZE64, &size) != 0) fail_errno("BLKGETSIZE64 " + dev);
    return size;
}

/// One drive: its controller, its guest, and the lvm2 command it is running for its extend (at most one: VDSM's
/// agent has one extend in flight).
template <class Agent>
struct lvm_drive {
    std::unique_ptr<extend_controller<Agent, real_latency>> c;
    guest_process g;
    measured m;
    bool writing = true, guest_open = true, paused = false;
    double pause_start = 0, last_extend_done = -1e300;
    enum class step { none, lvextend, refresh } st = step::none;
    child cmd;
    std::size_t ext = 0;  // its extend's index in lvm_measured::extends
};

}  // namespace

lvm_volumes::lvm_volumes(const std::string& vg, unsigned drives, bytes initial_size) : vg_(vg) {
    try {
        for (unsigned d = 0; d < drives; ++d) {
            const std::string lv = "provpol-agent-d" + std::to_string(d);
            const tool_result r = run_tool(
                {"lvcreate", "-y", "-Wn", "-Zn", "-L", std::to_string(initial_size.count()) + "b", "-n", lv, vg});
            if (r.code != 0) throw failure("lvcreate " + vg + "/" + lv + " failed: " + r.output);
            lvs_.push_back(lv);
            devices_.push_back("/dev/" + vg + "/" + lv);
            if (device_size(devices_.back()) != initial_size.count())
                throw failure(devices_.back() + " does not have the policy's initial size " +
                              std::to_string(initial_size.count()) + " (is the VG's extent a divisor of it?)");
        }
    } catch (...) {
        for (unsigned d = 0; d < lvs_.size(); ++d) run_quietly({"lvremove", "-y", "-f", name(d)});
        throw;
    }
}

lvm_volumes::~lvm_volumes() {
    for (unsigned d = 0; d < lvs_.size(); ++d)
        if (run_quietly({"lvremove", "-y", "-f", name(d)}) != 0)
            std::fprintf(stderr, "provpol-agent: lvremove %s failed\n", name(d).c_str());
}

namespace {

/// One run on real LVs (run_lvm): the drives, their lvm2 commands and what the run measured, with the steps of the
/// agent's loop as member functions over them.
template <class Agent>
class lvm_run {
    using step = typename lvm_drive<Agent>::step;

public:
    lvm_run(const Agent& agent, const options& o, stack& s, const lvm_volumes& lvs, event_log& log)
        : o_(o), s_(s), lvs_(lvs), log_(log), n_(s.drives()), drives_(n_), fds_(n_ + 2) {
        out_.drives.resize(n_);
        for (unsigned d = 0; d < n_; ++d) {
            drives_[d].c = std::make_unique<extend_controller<Agent, real_latency>>(
                agent, latency_, o.capacity, o.monitor_interval, run_seed(o.seed, d));
            drives_[d].m.initial_size = device_size(s.device(d));
        }
    }
    lvm_run(const lvm_run&) = delete;
    lvm_run& operator=(const lvm_run&) = delete;

    /// The guests started, the loop run until every drive finished writing and no lvm2 command runs, the guests
    /// reaped.
    lvm_measured run() {
        start();
        for (;;) {
            check_signals();
            bool busy = false, running = false;
            for (const lvm_drive<Agent>& v : drives_) {
                busy = busy || v.writing || v.c->in_flight() > 0;
                running = running || v.st != step::none;
            }
            if (!busy && !running) break;
            for (unsigned d = 0; d < n_; ++d)
                if (drives_[d].st != step::none && drives_[d].cmd.poll_exit()) step_done(d);
            for (unsigned d = 0; d < n_; ++d) monitor_tick(d);
            qemu_events();
            for (unsigned d = 0; d < n_; ++d) guest_messages(d);
            wait();
            if (s_.daemon().poll_exit()) throw failure(daemon_exited(s_, "while the guests wrote"));
        }
        reap_guests(drives_, out_.drives);
        return out_;
    }

private:
    double now() const { return monotonic_seconds() - t0_; }
    std::string cmd_log(unsigned d) const { return s_.dir() + "/lvm-d" + std::to_string(d) + ".log"; }
    child spawn(unsigned d, const std::vector<std::string>& argv) const {
        fd f(::open(cmd_log(d).c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
        if (!f) fail_errno("open " + cmd_log(d));
        return child::spawn(argv, -1, f.get(), f.get());
    }

    /// Registers drive d's write threshold and checks that QEMU holds it.
    void arm(unsigned d, double t, bytes threshold_bytes) {
        const std::uint64_t held = s_.set_threshold(threshold_bytes.count(), d);
        // A threshold the drive has already passed fires at once and QEMU clears it (holds 0): the event follows.
        // That happens here when extends queue behind each other long enough for the guest to write past it.
        if (held != threshold_bytes.count() && !(held == 0 && s_.allocation(d) > threshold_bytes.count()))
            throw failure("QEMU holds write threshold " + std::to_string(held) + ", not " +
                          std::to_string(threshold_bytes.count()));
        event_log::row r = drive_row(t, "threshold-set", d);
        r.physical = drives_[d].c->physical();
        r.threshold = held;
        log_.add(r);
    }

    /// The controller's request: lvextend starts at once, in its own process.
    void requested(unsigned d, const extend_in_flight* f, double t, std::uint64_t allocation, const char* on,
                   double event_mono) {
        if (f == nullptr) return;
        lvm_drive<Agent>& v = drives_[d];
        if (v.st != step::none) throw failure("a second extend in flight on drive " + std::to_string(d));
        lvm_extend e;
        e.drive = d;
        e.on = on;
        e.event = event_mono;
        e.requested = t + t0_;
        e.request = f->decision.next_size.count();
        e.lv_before = f->state.physical.count();
        e.lvextend_start = monotonic_seconds();
        v.cmd = spawn(d, {"lvextend", "-L", std::to_string(e.request) + "b", lvs_.name(d)});
        e.lvextend_pid = static_cast<int>(v.cmd.pid());
        v.st = step::lvextend;
        v.ext = out_.extends.size();
        out_.extends.push_back(e);
        event_log::row r = drive_row(t, "extend-requested", d);
        r.allocation = allocation;
        r.physical = e.lv_before;
        r.requested = e.request;
        r.lv_size = f->decision.lv_size_after_extend.count();
        r.detail = std::string("on=") + on + " lvextend-pid=" + std::to_string(e.lvextend_pid);
        log_.add(r);
    }

    /// Drive d's guest resumes (VDSM's cont): the pause is over, its length counted into `e` and logged.
    void resume(unsigned d, lvm_extend* e, const char* why) {
        lvm_drive<Agent>& v = drives_[d];
        write_all(v.g.to.get(), "resume\n");
        v.paused = false;
        const double t = now(), paused = t - v.pause_start;
        v.m.pause_seconds += paused;
        if (e != nullptr) e->pause += paused;
        event_log::row r = drive_row(t, "resume", d);
        r.delay = paused;
        r.detail = why;
        log_.add(r);
    }

    /// A drive's lvm2 command exited: lvextend -> refresh; refresh -> the extend is done.
    void step_done(unsigned d) {
        lvm_drive<Agent>& v = drives_[d];
        lvm_extend& e = out_.extends[v.ext];
        const double tm = monotonic_seconds();
        if (v.cmd.exit_code() != 0)
            throw failure(std::string(v.st == step::lvextend ? "lvextend" : "lvchange --refresh") + " " + lvs_.name(d) +
                          " exited with status " + std::to_string(v.cmd.exit_code()) + ": " + tail_of(cmd_log(d)));
        if (v.st == step::lvextend) {
            e.lvextend_end = tm;
            e.refresh_start = monotonic_seconds();
            v.cmd = spawn(d, {"lvchange", "--refresh", lvs_.name(d)});
            e.refresh_pid = static_cast<int>(v.cmd.pid());
            v.st = step::refresh;
            return;
        }
        e.refresh_end = tm;
        v.st = step::none;
        extend_done(d, e);
    }

    /// Drive d's LV refreshed: its new size checked, the threshold re-armed, the guest resumed.
    void extend_done(unsigned d, lvm_extend& e) {
        lvm_drive<Agent>& v = drives_[d];
        const std::uint64_t real = device_size(s_.device(d));
        const unsigned i = v.c->first_done();
        const extend_in_flight f = v.c->flight(i);
        if (!extend_succeeded(f.decision.next_size, bytes(real)))
            throw failure("lvextend to " + std::to_string(e.request) + " left " + lvs_.name(d) + " at " +
                          std::to_string(real));
        const double t = now();
        v.c->set_done_at(i, seconds(t));
        e.lv_after = real;
        e.done = t + t0_;
        v.last_extend_done = t;
        event_log::row r = drive_row(t, "extend-done", d);
        r.physical = real;
        r.requested = e.request;
        r.delay = e.done - (e.event >= 0 ? e.event : e.requested);
        char detail[128];
        std::snprintf(detail, sizeof detail, "lvextend=%.3fs refresh=%.3fs", e.lvextend_end - e.lvextend_start,
                      e.refresh_end - e.refresh_start);
        r.detail = detail;
        log_.add(r);
        arm(d, t, v.c->completed(i, seconds(t), bytes(s_.allocation(d)), bytes(real)));
        if (v.paused) resume(d, &e, "");
    }

    /// The guests started on one clock (drive d at t0 + d x stagger), each ready and its threshold armed first.
    void start() {
        for (unsigned d = 0; d < n_; ++d)
            drives_[d].g = start_guest(o_, s_.nbd_socket(), stack::format_node_of(d), o_.seed + d);
        for (unsigned d = 0; d < n_; ++d) {
            const std::string ready = drives_[d].g.read_line(30.0);
            if (ready.rfind("ready ", 0) != 0)
                throw failure("guest " + std::to_string(d) + " could not open its disk: " + ready);
            arm(d, 0.0, drives_[d].c->threshold(bytes(0)));
        }
        t0_ = monotonic_seconds() + 0.2;
        out_.t0 = t0_;
        for (unsigned d = 0; d < n_; ++d) {
            char go[64];
            std::snprintf(go, sizeof go, "go %.6f\n", t0_ + (o_.stagger * d).count());
            write_all(drives_[d].g.to.get(), go);
        }
    }

    /// Drive d's monitor, when it is due: it samples the allocation and may request an extend.
    void monitor_tick(unsigned d) {
        lvm_drive<Agent>& v = drives_[d];
        if (!v.writing || v.c->next_tick().count() > now()) return;
        const double t = now();
        const std::uint64_t a = s_.allocation(d);
        event_log::row r = drive_row(t, "sample", d);
        r.allocation = a;
        r.physical = v.c->physical();
        log_.add(r, false);
        requested(d, v.c->tick(seconds(t), bytes(a)), t, a, "monitor", -1);
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
            const double delay = event_delay(ev);
            const std::uint64_t threshold = ev["data"]["write-threshold"].get<std::uint64_t>();
            const std::uint64_t a = threshold + ev["data"]["amount-exceeded"].get<std::uint64_t>();
            event_log::row r = drive_row(t, "threshold-crossed", d);
            r.allocation = a;
            r.physical = drives_[d].c->physical();
            r.threshold = threshold;
            log_.add(r);
            requested(d, drives_[d].c->threshold_crossed(seconds(t), bytes(a)), t, a, "threshold", t + t0_ - delay);
        }
    }

    /// Drive d's guest's messages: a pause and the end of its write (its start and lateness are not used here).
    void guest_messages(unsigned d) {
        lvm_drive<Agent>& v = drives_[d];
        std::string line;
        while (v.g.reader->next(line)) {
            if (line.rfind("start ", 0) == 0 || line.rfind("late ", 0) == 0) continue;
            if (line.rfind("pause ", 0) == 0) {
                guest_paused(d, line);
            } else if (line.rfind("done ", 0) == 0) {
                guest_done(d, line);
            } else {
                throw failure("guest " + std::to_string(d) + " sent '" + line + "'");
            }
        }
    }

    /// Drive d's guest paused on ENOSPC: resumed at once when the space is there, otherwise an extend requested.
    void guest_paused(unsigned d, const std::string& line) {
        lvm_drive<Agent>& v = drives_[d];
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
        log_.add(r);
        v.paused = true;
        v.pause_start = tp;
        if (v.last_extend_done >= issued) {
            // Sent while the LV had its old size, failed after the extend completed (driver.cpp).
            lvm_extend* last = nullptr;
            for (lvm_extend& e : out_.extends)
                if (e.drive == d && e.done >= 0) last = &e;
            resume(d, last, "the extend completed while the failed write was in flight");
            return;
        }
        requested(d, v.c->paused(seconds(tp), bytes(a)), tp, a, "pause", -1);
        if (v.c->in_flight() == 0)
            throw failure("the guest paused on ENOSPC and the policy requests no extend (at its maximum?)");
    }

    /// Drive d's guest finished writing: its duration, lateness and achieved rate.
    void guest_done(unsigned d, const std::string& line) {
        lvm_drive<Agent>& v = drives_[d];
        double t_done = 0, paused_by_guest = 0;
        unsigned long long written = 0;
        if (std::sscanf(line.c_str() + 5, "%lf %llu %lf %lf", &t_done, &written, &v.m.max_lateness, &paused_by_guest) !=
            4)
            throw failure("guest " + std::to_string(d) + " sent '" + line + "'");
        v.m.duration = t_done - t0_ - (o_.stagger * d).count();
        v.writing = false;
        const double busy_s = v.m.duration - paused_by_guest;
        v.m.achieved_rate = busy_s > 0 ? static_cast<double>(written) / busy_s : 0;
        event_log::row r = drive_row(t_done - t0_, "write-done", d);
        r.physical = v.c->physical();
        char detail[96];
        std::snprintf(detail, sizeof detail, "rate=%.2fMiB/s max-lateness=%.1fms", v.m.achieved_rate / 1048576.0,
                      v.m.max_lateness * 1000.0);
        r.detail = detail;
        log_.add(r);
    }

    /// Sleeps until the next tick, something to read, or (while lvm2 runs) 2 ms: a command's exit is seen then. A
    /// guest that closed its pipe before it finished writing is a failure.
    void wait() {
        double deadline = 1.0;
        for (const lvm_drive<Agent>& v : drives_) {
            if (v.writing) deadline = std::min(deadline, v.c->next_tick().count() - now());
            if (v.st != step::none) deadline = std::min(deadline, 0.002);
        }
        fds_[0] = {s_.qmp().get(), POLLIN, 0};
        fds_[1] = {signal_fd(), POLLIN, 0};
        for (unsigned d = 0; d < n_; ++d)
            fds_[d + 2] = {drives_[d].guest_open ? drives_[d].g.from.get() : -1, POLLIN, 0};
        const int k =
            ::poll(fds_.data(), fds_.size(), deadline <= 0 ? 0 : static_cast<int>(std::ceil(deadline * 1000.0)));
        if (k < 0 && errno != EINTR) fail_errno("poll");
        if (k <= 0) return;
        if ((fds_[0].revents & (POLLIN | POLLHUP | POLLERR)) && !s_.qmp().pump())
            throw failure("QMP: the daemon closed the monitor connection");
        check_guest_pipes(drives_, fds_);
    }

    const options& o_;
    stack& s_;
    const lvm_volumes& lvs_;
    event_log& log_;
    const unsigned n_;
    lvm_measured out_;
    real_latency latency_;
    std::vector<lvm_drive<Agent>> drives_;
    std::vector<pollfd> fds_;
    double t0_ = 0;
};

}  // namespace

template <class Agent>
lvm_measured run_lvm(const Agent& agent, const options& o, stack& s, const lvm_volumes& lvs, event_log& log) {
    lvm_run<Agent> run(agent, o, s, lvs, log);
    return run.run();
}

template lvm_measured run_lvm(const static_agent<vdsm_policy>&, const options&, stack&, const lvm_volumes&, event_log&);

void report_lvm(const options& o, const lvm_measured& m) {
    std::FILE* csv = nullptr;
    if (!o.extends_csv_path.empty()) {
        csv = std::fopen(o.extends_csv_path.c_str(), "w");
        if (csv == nullptr) fail_errno("open " + o.extends_csv_path);
        std::fprintf(csv,
                     "drive,on,event,requested,lvextend_start,lvextend_end,lvextend_pid,refresh_start,refresh_end,"
                     "refresh_pid,done,"
                     "pause,request,lv_before,lv_after\n");
    }
    std::printf("\nextends on %s (seconds since the guests' start; lvextend and refresh: the commands' own time):\n",
                o.lvm_vg.c_str());
    std::printf("drive  on         event  request  lvextend  refresh   latency  pause  LV MiB\n");
    double lvx = 0, ref = 0, pause = 0;
    for (const lvm_extend& e : m.extends) {
        const double origin = e.event >= 0 ? e.event : e.requested;
        std::printf("d%-4u  %-9s %6.3f  %+.4f  %8.3f  %7.3f  %8.3f  %5.3f  %llu->%llu\n", e.drive, e.on.c_str(),
                    origin - m.t0, e.requested - origin, e.lvextend_end - e.lvextend_start,
                    e.refresh_end - e.refresh_start, e.done - origin, e.pause,
                    static_cast<unsigned long long>(e.lv_before >> 20),
                    static_cast<unsigned long long>(e.lv_after >> 20));
        lvx += e.lvextend_end - e.lvextend_start;
        ref += e.refresh_end - e.refresh_start;
        if (csv != nullptr)
            std::fprintf(csv, "%u,%s,%.6f,%.6f,%.6f,%.6f,%d,%.6f,%.6f,%d,%.6f,%.6f,%llu,%llu,%llu\n", e.drive,
                         e.on.c_str(), e.event, e.requested, e.lvextend_start, e.lvextend_end, e.lvextend_pid,
                         e.refresh_start, e.refresh_end, e.refresh_pid, e.done, e.pause,
                         static_cast<unsigned long long>(e.request), static_cast<unsigned long long>(e.lv_before),
                         static_cast<unsigned long long>(e.lv_after));
    }
    if (csv != nullptr) std::fclose(csv);
    std::uint32_t pauses = 0;
    for (const measured& d : m.drives) pauses += d.pauses, pause += d.pause_seconds;
    const double k = m.extends.empty() ? 1.0 : static_cast<double>(m.extends.size());
    std::printf(
        "summary: %u drives on %s, %zu extends (lvextend mean %.3f s, refresh mean %.3f s), %u pauses, %.3f s "
        "paused\n",
        static_cast<unsigned>(m.drives.size()), o.lvm_vg.c_str(), m.extends.size(), lvx / k, ref / k, pauses, pause);
    for (unsigned d = 0; d < m.drives.size(); ++d)
        std::printf("d%u: %u extends, %u pauses, %.3f s paused, final LV %llu MiB, %.2f MiB/s; image: %s; data: %s\n",
                    d, m.drives[d].extends, m.drives[d].pauses, m.drives[d].pause_seconds,
                    static_cast<unsigned long long>(m.drives[d].final_physical >> 20),
                    m.drives[d].achieved_rate / 1048576.0, m.drives[d].check.c_str(), m.drives[d].verify.c_str());
}

}  // namespace provpol::agent
