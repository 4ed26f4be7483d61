// provpol-thinpoold's reach into Linux, for main.cpp: commands run bounded, the stop signals, the lock that keeps
// one daemon per pool, files written atomically, the device-mapper ioctls, and log lines fit for the journal.
#ifndef PROVPOL_EXAMPLES_THINPOOLD_SYSTEM_HPP
#define PROVPOL_EXAMPLES_THINPOOLD_SYSTEM_HPP

#include "thinpoold.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <linux/dm-ioctl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace provpol::thinpoold::sys {

/// The stop signal seen (0: none). SIGTERM, SIGINT, SIGHUP and SIGQUIT stop the daemon; SIGPIPE is ignored (a
/// closed log pipe must not kill it with the monitoring off).
inline volatile std::sig_atomic_t stop_signal = 0;
extern "C" inline void on_stop_signal(int sig) { stop_signal = sig; }

inline void install_signals() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;  // no SA_RESTART: a sleep or a poll returns at once
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT}) sigaction(sig, &sa, nullptr);
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, nullptr);
}

inline double monotonic_now() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

inline void sleep_until(double t) {
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(t);
    ts.tv_nsec = static_cast<long>((t - static_cast<double>(ts.tv_sec)) * 1e9);
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);  // EINTR: a signal; the loop checks it
}

/// How long a command that was sent SIGTERM for its timeout has before SIGKILL, and how long the daemon waits
/// for one it sent SIGTERM on a stop signal before it leaves it (lvm2 holds signals back while it holds a VG lock,
/// lib/misc/lvm-signal.c's block_signals: SIGTERM ends it only outside its critical sections, where SIGKILL could
/// leave a device suspended, so a stop never escalates to SIGKILL).
inline constexpr double kill_grace = 5.0, stop_grace = 0.9;

namespace detail_sys {

inline int pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

// The child's side: its own process group, stdin /dev/null, stdout and stderr the pipe, SIGPIPE back to its
// default (an ignored signal stays ignored across exec), the C locale and no lvm2 warning for inherited fds.
[[noreturn]] inline void exec_child(const std::vector<std::string>& argv, int out, bool null_stdin = true) {
    setpgid(0, 0);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (int sig : {SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT}) sigaction(sig, &dfl, nullptr);
    if (null_stdin) {
        const int null = open("/dev/null", O_RDONLY);
        if (null >= 0) dup2(null, 0);
        dup2(out, 2);
    }
    dup2(out, 1);
    setenv("LC_ALL", "C", 1);
    setenv("LVM_SUPPRESS_FD_WARNINGS", "1", 1);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
}

inline void drain(int fd, std::string& out) {
    char buf[4096];
    for (;;) {
        const ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        if (out.size() < (1u << 20)) out.append(buf, static_cast<std::size_t>(n));  // a bound on what is kept
    }
}

}  // namespace detail_sys

/// Runs argv in its own process group, its stdout and stderr captured, until it exits (not until its output
/// closes: a descendant that keeps the pipe open does not hold the daemon), `timeout` at most: then SIGTERM to
/// its group, and SIGKILL kill_grace later. `interruptible`: a stop signal sends its group SIGTERM and the daemon
/// waits stop_grace for it, then returns (leaving it, see stop_grace).
// long: one poll loop with its three deadlines (timeout, kill, stop) kept together
inline command_result run_command(const std::vector<std::string>& argv, double timeout, bool interruptible) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return {-1, std::string("pipe: ") + std::strerror(errno)};
    const pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]), close(fds[1]);
        return {-1, std::string("fork: ") + std::strerror(errno)};
    }
    if (pid == 0) detail_sys::exec_child(argv, fds[1]);
    setpgid(pid, pid);  // also here: no race with a signal sent before the child runs setpgid
    close(fds[1]);
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    const int pidfd = detail_sys::pidfd_open(pid);
    command_result r;
    const double start = monotonic_now();
    double kill_at = 0.0, leave_at = 0.0;
    bool pipe_open = true, killed = false;
    int st = 0;
    for (;;) {
        if (waitpid(pid, &st, WNOHANG) == pid) {
            detail_sys::drain(fds[0], r.output);
            r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            break;
        }
        const double now = monotonic_now();
        if (interruptible && stop_signal != 0 && !r.interrupted) {
            r.interrupted = true;
            leave_at = now + stop_grace;
            kill(-pid, SIGTERM);
        }
        if (!r.timed_out && now >= start + timeout) {
            r.timed_out = true;
            kill_at = now + kill_grace;
            kill(-pid, SIGTERM);
        }
        if (r.timed_out && !killed && now >= kill_at) {
            killed = true;
            kill(-pid, SIGKILL);
        }
        if ((r.interrupted && now >= leave_at && !r.timed_out) || (killed && now >= kill_at + kill_grace)) {
            r.output += "\n(left running after SIGTERM" + std::string(killed ? " and SIGKILL)" : ")");
            break;  // unkillable (in the kernel), or a stop: not waited for any longer
        }
        pollfd p[2] = {{pidfd, POLLIN, 0}, {pipe_open ? fds[0] : -1, POLLIN, 0}};
        const int wait_ms = pidfd >= 0 ? 100 : 10;  // without a pidfd (Linux < 5.3), the exit is polled for
        if (poll(p, 2, wait_ms) > 0 && (p[1].revents & (POLLIN | POLLHUP)) != 0) {
            const std::size_t before = r.output.size();
            detail_sys::drain(fds[0], r.output);
            if ((p[1].revents & POLLIN) == 0 && r.output.size() == before) pipe_open = false;  // EOF
        }
    }
    if (pidfd >= 0) close(pidfd);
    close(fds[0]);
    if (r.timed_out) r.output = "after " + fmt("%g", timeout) + " s" + (killed ? " (SIGKILL)" : "") + "; " + r.output;
    return r;
}

/// One long-lived `lvm` shell that runs the daemon's lvm2 commands (lvs, lvextend, lvchange, lvmconfig) without a
/// fork, an exec, the loading of lvm2's libraries and configuration per command: what makes a daemon's lvextend
/// slower than dmeventd's, which runs lvm2 in its own process (lvm2's shell reads one command a line from its
/// standard input, tools/lvm.c's lvm_shell). Built with editline, as Debian's lvm2 is, the shell prints no prompt
/// when its input is a pipe; a command's end is found by the line sent after it, a name no lvm2 command has, whose
/// "No such command" on standard error follows the command's own output (lvm2 writes each command's output before it
/// reads the next line). lvm2's shell reports no exit status: a command failed when it wrote to standard error
/// something other than a warning (lvm2's log_error; lvm_shell says "Command failed" when a command did not) -- and
/// the daemon reads back what it did with lvs in any case. A command that times out, or a stop signal, ends the
/// shell as run_command ends a command (SIGTERM to its group, SIGKILL kill_grace later); the next command starts a
/// new one. Arguments are single words (lvm2's shell splits a line on blanks): names lvm2 accepts, sizes, options.
class lvm_shell {
public:
    ~lvm_shell() { stop(); }

    /// True once a shell could not be started, or the first ended before it ran anything: no lvm shell here (the
    /// caller runs every command itself).
    bool broken() const noexcept { return broken_; }
    /// Runs argv in the shell; nullopt when there is no shell to run it in (broken()).
    std::optional<command_result> run(const std::vector<std::string>& argv, double timeout, bool interruptible) {
        if (broken_) return std::nullopt;
        const bool fresh = pid_ < 0;
        if (fresh && !start()) return std::nullopt;
        const std::string end = "provpol-thinpoold-end-" + std::to_string(++seq_);
        // A new shell says things of its own first (libedit: "Cannot read termcap database"): what comes before a
        // first marker is not the command's.
        const std::string begin = fresh ? "provpol-thinpoold-begin-" + std::to_string(seq_) : std::string();
        std::string line = fresh ? begin + "\n" : std::string();
        for (std::size_t i = 0; i < argv.size(); ++i) line += (i == 0 ? "" : " ") + argv[i];
        line += "\n" + end + "\n";
        command_result r;
        if (!write_all(line)) {
            // The shell was gone before it read the command (a SIGTERM to the unit's whole control group at a stop
            // ends it too, while the daemon still has the monitoring to give back): a new one runs it.
            close_all();
            if (!fresh) return run(argv, timeout, interruptible);
            r.output = "the lvm shell is gone";
            return r;
        }
        std::string out, err;
        const std::string done = "No such command '" + end + "'";
        const double start_t = monotonic_now();
        double kill_at = 0.0;
        // What a shell ended by the SIGTERM below leaves: the time-out said, then what it printed.
        const auto killed_output = [&] {
            return (r.timed_out ? "after " + fmt("%g", timeout) + " s (the lvm shell ended); " : std::string()) + out +
                   err;
        };
        for (;;) {
            const double now = monotonic_now();
            if ((interruptible && stop_signal != 0) || now >= start_t + timeout) {
                r.interrupted = interruptible && stop_signal != 0;
                r.timed_out = !r.interrupted;
                if (kill_at == 0.0) kill(-pid_, SIGTERM), kill_at = now + (r.interrupted ? stop_grace : kill_grace);
                if (now >= kill_at || reap()) {
                    if (r.timed_out && pid_ > 0) kill(-pid_, SIGKILL);  // a stop never escalates (stop_grace)
                    close_all();
                    r.output = killed_output();
                    return r;
                }
            }
            pollfd p[3] = {{out_, POLLIN, 0}, {err_, POLLIN, 0}, {pidfd_, POLLIN, 0}};
            poll(p, 3, pidfd_ >= 0 ? 100 : 10);
            const std::size_t o = out.size(), e = err.size();
            detail_sys::drain(out_, out);
            detail_sys::drain(err_, err);
            const auto at = err.find(done);
            if (at != std::string::npos) {
                err.erase(err.rfind('\n', at) == std::string::npos ? 0 : err.rfind('\n', at) + 1);
                if (!begin.empty()) {  // the begin marker's line and what came before it are the shell's own
                    const auto b = err.find("No such command '" + begin + "'");
                    const auto nl = b == std::string::npos ? b : err.find('\n', b);
                    if (nl != std::string::npos) err.erase(0, nl + 1);
                }
                detail_sys::drain(out_, out);
                r.status = failed(err) ? 1 : 0;
                r.output = out + err;
                return r;
            }
            if (out.size() == o && err.size() == e && reap()) {
                close_all();
                if (kill_at != 0.0) {  // it ended of the SIGTERM sent above: the time-out or the stop is the cause
                    r.output = killed_output();
                    return r;
                }
                if (fresh && out.empty()) {  // it never ran a command: no lvm shell here (no lvm, or no editline)
                    broken_ = true;
                    return std::nullopt;
                }
                r.output = "the lvm shell ended: " + out + err;
                return r;
            }
        }
    }

private:
    // lvm2's errors are log_error's; its warnings start "WARNING:" after the log prefix.
    static bool failed(const std::string& err) {
        std::size_t at = 0;
        while (at < err.size()) {
            const std::size_t nl = err.find('\n', at);
            std::string l = err.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
            at = nl == std::string::npos ? err.size() : nl + 1;
            l.erase(0, l.find_first_not_of(" \t"));
            if (!l.empty() && l.rfind("WARNING:", 0) != 0) return true;
        }
        return false;
    }
    bool start() {
        int in[2], out[2], err[2];
        if (pipe2(in, O_CLOEXEC) != 0) return false;
        if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return false;
        const pid_t pid = fork();
        if (pid < 0) return false;
        if (pid == 0) {
            dup2(in[0], 0);
            dup2(err[1], 2);
            setenv("HOME", "/dev/null", 1);  // no ~/.lvm_history read or written (tools/lvm.c's _hist_file)
            detail_sys::exec_child({"lvm"}, out[1], false);
        }
        setpgid(pid, pid);
        close(in[0]), close(out[1]), close(err[1]);
        pid_ = pid, in_ = in[1], out_ = out[0], err_ = err[0];
        fcntl(out_, F_SETFL, O_NONBLOCK);
        fcntl(err_, F_SETFL, O_NONBLOCK);
        pidfd_ = detail_sys::pidfd_open(pid);
        return true;
    }
    bool write_all(const std::string& s) {
        std::size_t done = 0;
        while (done < s.size()) {
            const ssize_t n = write(in_, s.data() + done, s.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return false;  // EPIPE: the shell is gone (SIGPIPE is ignored)
            done += static_cast<std::size_t>(n);
        }
        return true;
    }
    // True when the shell has exited (and is reaped).
    bool reap() {
        int st = 0;
        if (pid_ < 0 || waitpid(pid_, &st, WNOHANG) != pid_) return false;
        pid_ = -1;
        return true;
    }
    // At the daemon's end: the shell's input closed, it exits when its command is done (a shell that lingers is
    // sent SIGTERM after a second, never SIGKILL: it may be inside lvm2's critical section).
    void stop() {
        if (in_ >= 0) close(in_), in_ = -1;
        for (int i = 0; pid_ > 0 && i < 50 && !reap(); ++i) sleep_until(monotonic_now() + 0.02);
        if (pid_ > 0) kill(-pid_, SIGTERM);
        close_all();
    }
    // The shell given up (ended, or left to end): the next command starts a new one. A zombie left behind is
    // reaped by the next waitpid on it, or at the daemon's exit.
    void close_all() {
        if (pid_ > 0) reap();
        for (int* fd : {&in_, &out_, &err_, &pidfd_})
            if (*fd >= 0) close(*fd), *fd = -1;
        pid_ = -1;
    }
    pid_t pid_ = -1;
    int in_ = -1, out_ = -1, err_ = -1, pidfd_ = -1;
    unsigned long seq_ = 0;
    bool broken_ = false;
};

/// The DM_DEV_STATUS / DM_TABLE_STATUS ioctls (no fork), as `dmsetup status --noflush` prints the table status,
/// and as `dmsetup info -c -o uuid` prints the UUID.
inline command_result dm_ioctl_call(const std::string& name, bool want_uuid) {
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
    if (name.size() >= sizeof u.io.name) return {-1, name + ": name too long"};
    std::snprintf(u.io.name, sizeof u.io.name, "%s", name.c_str());
    if (ioctl(ctl, want_uuid ? DM_DEV_STATUS : DM_TABLE_STATUS, &u.io) != 0)
        return {-1, name + ": " + std::strerror(errno)};
    if (want_uuid) return {0, std::string(u.io.uuid, strnlen(u.io.uuid, sizeof u.io.uuid)) + "\n"};
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

/// Creates `dir` and its parents (mode 0755) as needed; "" on success, else why.
inline std::string make_dirs(const std::string& dir) {
    for (std::size_t at = 1; at <= dir.size(); ++at) {
        if (at != dir.size() && dir[at] != '/') continue;
        const std::string d = dir.substr(0, at);
        if (mkdir(d.c_str(), 0755) != 0 && errno != EEXIST) return d + ": " + std::strerror(errno);
    }
    return "";
}

/// Writes `text` to `path` atomically: a temporary file in the same directory, fsync, rename, fsync of the
/// directory (`durable`); "" on success, else why.
inline std::string write_atomically(const std::string& path, const std::string& text, bool durable) {
    const std::string tmp = path + ".tmp";
    const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return tmp + ": " + std::strerror(errno);
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
    }
    const bool ok = done == text.size() && (!durable || fsync(fd) == 0);
    const int err = errno;
    close(fd);
    if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = tmp + ": " + std::strerror(ok ? errno : err);
        unlink(tmp.c_str());
        return why;
    }
    if (durable) {
        const std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/') + 1);
        const int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) fsync(dfd), close(dfd);
    }
    return "";
}

inline file_read read_file(const std::string& path) {
    file_read f;
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT) f.error = path + ": " + std::strerror(errno);
        return f;
    }
    f.exists = true;
    char buf[4096];
    for (;;) {
        const ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) f.error = path + ": " + std::strerror(errno);
        if (n <= 0 || f.text.size() > (1u << 20)) break;
        f.text.append(buf, static_cast<std::size_t>(n));
    }
    close(fd);
    return f;
}

/// Takes the pool's lock (flock on `path`, kept for the process's life: its fd is never closed); waits up to
/// `wait` seconds for it. "" when taken, else why.
inline std::string take_lock(const std::string& path, double wait) {
    const std::string dir = path.substr(0, path.rfind('/'));
    if (std::string why = make_dirs(dir); !why.empty()) return why;
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return path + ": " + std::strerror(errno);
    const double until = monotonic_now() + wait;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) return path + ": " + std::strerror(errno);
        if (monotonic_now() >= until || stop_signal != 0) {
            close(fd);
            return "another provpol-thinpoold holds " + path;
        }
        sleep_until(monotonic_now() + 0.05);
    }
    return "";
}

/// True when `fd` is the stream systemd connected to the journal: $JOURNAL_STREAM holds its "device:inode"
/// (systemd.exec(5)). Its lines then carry sd-daemon's "<N>" priority prefixes (sd-daemon(3)) and no time: the
/// journal stamps them.
inline bool is_journal_stream(int fd) {
    const char* js = std::getenv("JOURNAL_STREAM");
    struct stat s {};
    if (js == nullptr || fstat(fd, &s) != 0) return false;
    const std::string want = std::to_string(static_cast<unsigned long long>(s.st_dev)) + ":" +
                             std::to_string(static_cast<unsigned long long>(s.st_ino));
    return want == js;
}

}  // namespace provpol::thinpoold::sys

#endif  // PROVPOL_EXAMPLES_THINPOOLD_SYSTEM_HPP
