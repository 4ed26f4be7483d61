// provpol-thinpoold: watches one LVM thin pool and extends it before it fills, from the fill rate it observes and
// the time lvextend takes (include/provpol/extend/lvm_rate_aware.hpp decides; thinpoold.hpp is the loop). The
// system is reached here only: commands run with fork and exec (each in its own process group, so that a Ctrl-C
// meant for the daemon does not cut an lvextend short: the daemon waits for it), the status read with `dmsetup
// status` or the DM_TABLE_STATUS ioctl, the monotonic clock, and SIGINT/SIGTERM, which end the loop.
#include "thinpoold.hpp"

#include <provpol/parse.hpp>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using namespace provpol;
using provpol::thinpoold::command_result;

volatile std::sig_atomic_t stop_signal = 0;
extern "C" void on_signal(int sig) { stop_signal = sig; }

const char* const usage_text =
    R"(usage: provpol-thinpoold --vg VG --pool POOL [options]
Watches one LVM thin pool and runs `lvextend -L+SIZE VG/POOL` before it fills: every --interval it reads the pool's
status (used and total data blocks), estimates the fill rate (the rate over the last --rate-window, or the previous
estimate decayed with --half-life, whichever is higher), and extends when the free space lasts less than
  lead = --lead-factor x max(--lvextend-time, the longest lvextend seen) + --margin
at that rate (or the pool is full), by the fewest whole extents that leave the free space for lead + --horizon,
never past --max-pool-size, never taking more of the VG than --max-vg-take (data and the metadata lvm2 grows with
it) nor more than the VG has. If it decides at least every --margin seconds, the pool fills no faster than the
estimate and lvextend lands within the lead, the pool does not fill before the extend lands.

options:
  --vg VG, --pool POOL     the thin pool (required)
  --dm-name NAME           its device-mapper device (default VG-POOL-tpool, else VG-POOL)
  --interval TIME          between samples; [0.01, 3600] s (default 1s)
  --max-pool-size SIZE     the pool's data is never grown past it (default: twice its size at start)
  --max-vg-take SIZE       the most VG space the daemon allocates in all (default: the pool's size at start)
  --lead-factor K          [1, 100] (default 2)
  --margin TIME            added to the lead; [0, 3600] s (default: the interval)
  --horizon TIME           the free space an extend leaves, in seconds at the rate; [0.1, 86400] s (default 30s)
  --lvextend-time TIME     lvextend's time, an upper bound; [0, 3600] s (default 1s)
  --half-life TIME         how fast the rate estimate falls; [0.1, 86400] s (default 30s)
  --rate-window TIME       the rate is measured over at least this (a 1 MiB write in 50 ms reads as 20 MiB/s);
                           [0, 3600] s (default 1s)
  --min-extend SIZE        the smallest extend (default one extent)
  --status dmsetup|ioctl   read the status with `dmsetup status` (default) or the DM_TABLE_STATUS ioctl (no fork)
  --take-over              turn dmeventd's monitoring of the pool off (lvchange --monitor n) while running, and
                           back on at exit, if it was on
  --dry-run                run no lvextend or lvchange: print what would be run
  --once                   two samples one interval apart, one decision, then exit
  -h, --help               this text
Exit status: 0 stopped by SIGINT or SIGTERM (or --once done); 1 the pool could not be read at start; 2 bad input.
Output: one line per decision that extends (or is blocked by a limit) and per lvextend, on stdout; errors on stderr.
)";

struct usage_error {
    std::string what;
};

template <class T>
T need(const result<T>& r) {
    if (!r) throw usage_error{std::string(r.error().message().view())};
    return *r;
}

thinpoold::options parse_options(int argc, char** argv, std::string& status_source) {
    thinpoold::options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            std::fputs(usage_text, stdout);
            std::exit(0);
        }
        if (a == "--dry-run" || a == "--once" || a == "--take-over") {
            (a == "--dry-run" ? o.dry_run : a == "--once" ? o.once : o.take_over) = true;
            continue;
        }
        if (i + 1 >= argc) throw usage_error{a.rfind("--", 0) == 0 ? a + " needs a value" : "unknown argument " + a};
        const std::string v = argv[++i];
        const char* name = argv[i - 1];
        if (a == "--vg")
            o.vg = v;
        else if (a == "--pool")
            o.pool = v;
        else if (a == "--dm-name")
            o.dm_name = v;
        else if (a == "--interval")
            o.interval = need(parse_seconds(v, name, seconds(0.01), seconds(3600)));
        else if (a == "--max-pool-size")
            o.max_pool_size = need(parse_size(v, name));
        else if (a == "--max-vg-take")
            o.max_vg_take = need(parse_size(v, name));
        else if (a == "--lead-factor")
            o.lead_factor = need(parse_decimal(v, name, 1.0, 100.0));
        else if (a == "--margin")
            o.margin = need(parse_seconds(v, name, seconds(0), seconds(3600)));
        else if (a == "--horizon")
            o.horizon = need(parse_seconds(v, name, seconds(0.1), seconds(86400)));
        else if (a == "--lvextend-time")
            o.lvextend_time = need(parse_seconds(v, name, seconds(0), seconds(3600)));
        else if (a == "--half-life")
            o.half_life = need(parse_seconds(v, name, seconds(0.1), seconds(86400)));
        else if (a == "--rate-window")
            o.rate_window = need(parse_seconds(v, name, seconds(0), seconds(3600)));
        else if (a == "--min-extend")
            o.min_extend = need(parse_size(v, name));
        else if (a == "--status" && (v == "dmsetup" || v == "ioctl"))
            status_source = v;
        else if (a == "--status")
            throw usage_error{"--status must be dmsetup or ioctl, got '" + v + "'"};
        else
            throw usage_error{"unknown option " + a + " (see --help)"};
    }
    if (o.vg.empty() || o.pool.empty()) throw usage_error{"--vg and --pool are required (see --help)"};
    return o;
}

// Runs argv in its own process group, its stdout and stderr captured; waits for it even across SIGINT/SIGTERM.
command_result run_command(const std::vector<std::string>& argv) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return {-1, std::string("pipe: ") + std::strerror(errno)};
    const pid_t pid = fork();
    if (pid < 0) return {-1, std::string("fork: ") + std::strerror(errno)};
    if (pid == 0) {
        setpgid(0, 0);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        std::vector<char*> args;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    command_result r;
    char buf[4096];
    for (;;) {
        const ssize_t n = read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        r.output.append(buf, static_cast<std::size_t>(n));
    }
    close(fds[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return r;
}

// DM_TABLE_STATUS without flushing (as `dmsetup status --noflush`), in dmsetup's line format.
command_result ioctl_status(const std::string& name) {
    static const int ctl = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
    if (ctl < 0) return {-1, std::string("/dev/mapper/control: ") + std::strerror(errno)};
    union {
        dm_ioctl io;
        char raw[16384];
    } u{};
    u.io.version[0] = DM_VERSION_MAJOR;
    u.io.data_size = sizeof u;
    u.io.data_start = sizeof u.io;
    u.io.flags = DM_NOFLUSH_FLAG;
    std::snprintf(u.io.name, sizeof u.io.name, "%s", name.c_str());
    if (ioctl(ctl, DM_TABLE_STATUS, &u.io) != 0) return {-1, name + ": " + std::strerror(errno)};
    if ((u.io.flags & DM_BUFFER_FULL_FLAG) != 0) return {-1, name + ": status too long"};
    command_result r{0, ""};
    std::size_t at = u.io.data_start;
    for (unsigned i = 0; i < u.io.target_count; ++i) {
        dm_target_spec t{};
        std::memcpy(&t, u.raw + at, sizeof t);
        r.output += std::to_string(t.sector_start) + " " + std::to_string(t.length) + " " + t.target_type + " " +
                    std::string(u.raw + at + sizeof t) + "\n";
        at = u.io.data_start + t.next;
    }
    return r;
}

double monotonic_now() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

void sleep_until(double t) {
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(t);
    ts.tv_nsec = static_cast<long>((t - static_cast<double>(ts.tv_sec)) * 1e9);
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);  // EINTR: a signal; the loop checks it
}

}  // namespace

int main(int argc, char** argv) {
    std::string source = "dmsetup";
    thinpoold::options o;
    try {
        o = parse_options(argc, argv, source);
    } catch (const usage_error& e) {
        std::fprintf(stderr, "provpol-thinpoold: %s\n", e.what.c_str());
        return 2;
    }
    struct sigaction sa {};
    sa.sa_handler = on_signal;  // no SA_RESTART: the sleep returns at once
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    setvbuf(stdout, nullptr, _IOLBF, 0);
    thinpoold::thinpoold_io io;
    io.run = run_command;
    io.status = source == "ioctl" ? ioctl_status : [](const std::string& dev) {
        return run_command({"dmsetup", "status", "--noflush", dev});
    };
    io.now = monotonic_now;
    io.sleep_until = sleep_until;
    io.stopping = [] { return stop_signal != 0; };
    io.print = [](const std::string& l) { std::printf("%s\n", l.c_str()); };
    io.error = [](const std::string& l) { std::fprintf(stderr, "%s\n", l.c_str()); };
    return thinpoold::run(o, io);
}
