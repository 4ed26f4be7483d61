// provpol-agent's small POSIX layer: file descriptors, the monotonic clock, child processes that die with the
// agent, and the signals (Ctrl-C, SIGTERM) that turn into an orderly clean-up instead of an exit.
#ifndef PROVPOL_AGENT_POSIX_HPP
#define PROVPOL_AGENT_POSIX_HPP

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace provpol::agent {

/// The work failed: the stack could not be built, a tool or the daemon failed. main() exits 1.
struct failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// A signal (SIGINT, SIGTERM, SIGHUP) asked the agent to stop. main() cleans up and exits 128 + signal.
struct interrupted : std::runtime_error {
    explicit interrupted(int sig) : std::runtime_error(std::string("interrupted by ") + strsignal(sig)), signal(sig) {}
    int signal;
};

/// "what: strerror(errno)" as a failure.
[[noreturn]] inline void fail_errno(const std::string& what) { throw failure(what + ": " + std::strerror(errno)); }

/// An owned file descriptor.
class fd {
public:
    fd() = default;
    explicit fd(int v) : v_(v) {}
    fd(const fd&) = delete;
    fd& operator=(const fd&) = delete;
    fd(fd&& o) noexcept : v_(std::exchange(o.v_, -1)) {}
    fd& operator=(fd&& o) noexcept {
        if (this != &o) {
            reset();
            v_ = std::exchange(o.v_, -1);
        }
        return *this;
    }
    ~fd() { reset(); }
    int get() const { return v_; }
    explicit operator bool() const { return v_ >= 0; }
    void reset() {
        if (v_ >= 0) ::close(v_);
        v_ = -1;
    }

private:
    int v_ = -1;
};

/// Seconds on CLOCK_MONOTONIC (the same clock in the agent and the guest process).
inline double monotonic_seconds() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// ------------------------------------------------------------------------------------------------------------
// Signals: the handler only records the signal and wakes the main loop through a pipe; everything else (killing
// the daemon, detaching the loop device, removing files) happens in normal code, in the destructors.

namespace posix_detail {
inline volatile std::sig_atomic_t pending_signal = 0;
inline int wake_pipe[2] = {-1, -1};
extern "C" inline void on_signal(int sig) {
    const int saved = errno;
    pending_signal = sig;
    if (wake_pipe[1] >= 0) {
        const char c = 1;
        [[maybe_unused]] const ssize_t n = ::write(wake_pipe[1], &c, 1);
    }
    errno = saved;
}
}  // namespace posix_detail

/// Installs the handlers for SIGINT, SIGTERM and SIGHUP (without SA_RESTART: blocking calls return EINTR) and
/// ignores SIGPIPE (a dead child's pipe is an error to report, not a reason to die silently).
inline void install_signal_handlers() {
    if (posix_detail::wake_pipe[0] < 0 && ::pipe2(posix_detail::wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
        fail_errno("pipe2");
    struct sigaction sa {};
    sa.sa_handler = posix_detail::on_signal;
    sigemptyset(&sa.sa_mask);
    for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &sa, nullptr);
    std::signal(SIGPIPE, SIG_IGN);
}

/// The read end of the wake-up pipe, for poll().
inline int signal_fd() { return posix_detail::wake_pipe[0]; }

/// Throws `interrupted` if a signal arrived.
inline void check_signals() {
    if (posix_detail::pending_signal != 0) throw interrupted(posix_detail::pending_signal);
}

// ------------------------------------------------------------------------------------------------------------
// Child processes

/// A child process, killed (SIGTERM, then SIGKILL) and reaped when this object goes away. The child runs in its
/// own process group (a Ctrl-C in the terminal reaches only the agent, which then stops it in order) and gets
/// SIGKILL if the agent dies without cleaning up (PR_SET_PDEATHSIG).
class child {
public:
    child() = default;
    child(const child&) = delete;
    child& operator=(const child&) = delete;
    child(child&& o) noexcept : pid_(std::exchange(o.pid_, -1)), status_(o.status_) {}
    child& operator=(child&& o) noexcept {
        if (this != &o) {
            stop();
            pid_ = std::exchange(o.pid_, -1);
            status_ = o.status_;
        }
        return *this;
    }
    ~child() { stop(); }

    /// Starts argv[0] (searched in PATH) with stdin/stdout/stderr redirected to the given descriptors (-1:
    /// /dev/null for stdin, inherited for stdout and stderr).
    static child spawn(const std::vector<std::string>& argv, int in = -1, int out = -1, int err = -1) {
        std::vector<char*> args;
        for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        const pid_t parent = ::getpid();
        const pid_t pid = ::fork();
        if (pid < 0) fail_errno("fork");
        if (pid == 0) {
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (::getppid() != parent) ::_exit(127);  // the agent died between fork and prctl
            ::setpgid(0, 0);
            struct sigaction sa {};
            sa.sa_handler = SIG_DFL;
            sigemptyset(&sa.sa_mask);
            for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaction(s, &sa, nullptr);
            const int null = ::open("/dev/null", O_RDWR);
            ::dup2(in >= 0 ? in : null, 0);
            if (out >= 0) ::dup2(out, 1);
            if (err >= 0) ::dup2(err, 2);
            ::execvp(args[0], args.data());
            const char* msg = "provpol-agent: cannot execute ";
            [[maybe_unused]] ssize_t n = ::write(2, msg, std::strlen(msg));
            n = ::write(2, args[0], std::strlen(args[0]));
            n = ::write(2, "\n", 1);
            ::_exit(127);
        }
        child c;
        c.pid_ = pid;
        return c;
    }

    pid_t pid() const { return pid_; }
    bool running() const { return pid_ > 0; }

    /// Reaps the child if it exited; returns true then (status() is its wait status).
    bool poll_exit() {
        if (pid_ <= 0) return true;
        int st = 0;
        const pid_t r = ::waitpid(pid_, &st, WNOHANG);
        if (r == pid_) {
            pid_ = -1;
            status_ = st;
            return true;
        }
        return false;
    }

    /// Waits for the child to exit, up to `seconds` (signals are checked meanwhile); returns false on timeout.
    bool wait_for(double seconds, bool honour_signals = true) {
        const double deadline = monotonic_seconds() + seconds;
        while (!poll_exit()) {
            if (honour_signals) check_signals();
            if (monotonic_seconds() > deadline) return false;
            ::usleep(2000);
        }
        return true;
    }

    /// The wait status, after the child was reaped.
    int status() const { return status_; }
    /// The exit code, or 128 + signal.
    int exit_code() const { return WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_); }

    /// SIGTERM, up to 5 s to exit, then SIGKILL; always reaps.
    void stop() {
        if (pid_ <= 0) return;
        ::kill(pid_, SIGTERM);
        if (!wait_for(5.0, false)) {
            ::kill(pid_, SIGKILL);
            int st = 0;
            while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
            }
            status_ = st;
            pid_ = -1;
        }
    }

private:
    pid_t pid_ = -1;
    int status_ = 0;
};

/// The result of a tool run to completion.
struct tool_result {
    int code = 0;        ///< the exit code (128 + signal when killed)
    std::string output;  ///< stdout and stderr together
};

/// Runs a tool to completion, capturing its output; a signal to the agent stops the tool and throws.
inline tool_result run_tool(const std::vector<std::string>& argv) {
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) fail_errno("pipe2");
    fd rd(p[0]), wr(p[1]);
    child c = child::spawn(argv, -1, wr.get(), wr.get());
    wr.reset();
    tool_result r;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(rd.get(), buf, sizeof buf);
        if (n > 0) {
            r.output.append(buf, static_cast<std::size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR) {
            check_signals();  // the child is stopped by its destructor
            continue;
        }
        break;
    }
    c.wait_for(60.0);
    r.code = c.exit_code();
    return r;
}

/// A line of text from a descriptor, buffered (for the guest's and the QMP socket's line protocols).
class line_reader {
public:
    explicit line_reader(int f) : fd_(f) {}
    /// Reads what is available; returns false at end of file. Call after poll() says the fd is readable.
    bool fill() {
        char buf[65536];
        for (;;) {
            const ssize_t n = ::read(fd_, buf, sizeof buf);
            if (n > 0) {
                data_.append(buf, static_cast<std::size_t>(n));
                return true;
            }
            if (n == 0) return false;
            if (errno == EINTR) {
                check_signals();
                continue;
            }
            if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
            fail_errno("read");
        }
    }
    /// The next complete line (without the newline), if any.
    bool next(std::string& line) {
        const std::size_t nl = data_.find('\n');
        if (nl == std::string::npos) return false;
        line.assign(data_, 0, nl);
        data_.erase(0, nl + 1);
        return true;
    }

private:
    int fd_;
    std::string data_;
};

/// Writes all of `s` to a descriptor.
inline void write_all(int f, const std::string& s) {
    std::size_t done = 0;
    while (done < s.size()) {
        const ssize_t n = ::write(f, s.data() + done, s.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail_errno("write");
        }
        done += static_cast<std::size_t>(n);
    }
}

}  // namespace provpol::agent

#endif  // PROVPOL_AGENT_POSIX_HPP
