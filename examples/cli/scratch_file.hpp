// The scratch file `provpol calibrate` writes: created by the program itself, inside a directory, and gone when it
// stops, however it stops. A calibration tool pointed at the wrong path must not be able to destroy data, so:
//
//   - the path must be a directory that can be written: a block device, a symbolic link to one, a character
//     device, a regular file and a read-only or unwritable directory are all refused before anything is opened;
//   - the file is created with O_CREAT | O_EXCL | O_NOFOLLOW under a random name, so an existing file (or a link
//     planted under that name) is never opened for writing, and checked to be a new, empty regular file;
//   - its name is removed right after that check, while SIGINT, SIGTERM and SIGHUP are blocked: from then on the
//     file has no name, and the kernel frees it when the descriptor closes, on success, on error, on a signal,
//     even on SIGKILL. The signal handler covers the name should removal ever be deferred: it unlinks the name,
//     then restores the default action and re-raises, so the exit status still says which signal it was;
//   - free space is checked (statvfs) before writing: the write must leave at least 5% of the filesystem free.
#ifndef PROVPOL_CLI_SCRATCH_FILE_HPP
#define PROVPOL_CLI_SCRATCH_FILE_HPP

#include "common/cli.hpp"

#include <provpol/parse.hpp>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace provpol::cli {

/// The share of a filesystem that must stay free after the scratch file is written: 5%.
inline constexpr std::uint64_t scratch_free_margin_percent = 5;

namespace scratch_detail {

// State the signal handler reads: only async-signal-safe operations on it.
inline volatile std::sig_atomic_t armed = 0;     // 1 while `name` exists in `dirfd`
inline volatile std::sig_atomic_t progress = 0;  // 1 while a progress line is on the terminal
inline int dirfd = -1;
inline char name[64] = {};

inline void on_signal(int sig) {
    if (armed != 0) {
        ::unlinkat(dirfd, name, 0);
        armed = 0;
    }
    if (progress != 0) {
        const char nl = '\n';
        [[maybe_unused]] const ssize_t ignored = ::write(STDERR_FILENO, &nl, 1);
    }
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

inline const int handled_signals[] = {SIGINT, SIGTERM, SIGHUP};

}  // namespace scratch_detail

/// Installs the cleanup handler for SIGINT, SIGTERM and SIGHUP; restores the previous handlers when destroyed.
class signal_cleanup {
public:
    signal_cleanup() {
        struct sigaction sa {};
        sa.sa_handler = scratch_detail::on_signal;
        sigemptyset(&sa.sa_mask);
        for (std::size_t i = 0; i < 3; ++i) ::sigaction(scratch_detail::handled_signals[i], &sa, &old_[i]);
    }
    signal_cleanup(const signal_cleanup&) = delete;
    signal_cleanup& operator=(const signal_cleanup&) = delete;
    ~signal_cleanup() {
        for (std::size_t i = 0; i < 3; ++i) ::sigaction(scratch_detail::handled_signals[i], &old_[i], nullptr);
    }

private:
    struct sigaction old_[3]{};
};

/// Blocks SIGINT, SIGTERM and SIGHUP for its lifetime.
class signals_blocked {
public:
    signals_blocked() {
        sigset_t set;
        sigemptyset(&set);
        for (int s : scratch_detail::handled_signals) sigaddset(&set, s);
        ::sigprocmask(SIG_BLOCK, &set, &old_);
    }
    signals_blocked(const signals_blocked&) = delete;
    signals_blocked& operator=(const signals_blocked&) = delete;
    ~signals_blocked() { ::sigprocmask(SIG_SETMASK, &old_, nullptr); }

private:
    sigset_t old_{};
};

/// A directory that passed the checks, held open (so that it cannot be swapped for another path afterwards).
class scratch_dir {
public:
    /// Checks `path` (see the header comment) and that `bytes_to_write` leaves the margin free. Throws
    /// usage_error naming `option` and the reason.
    scratch_dir(const std::string& path, std::uint64_t bytes_to_write, const std::string& option = "--path")
        : path_(path) {
        const std::string shown = "'" + args::printable(path) + "'";
        if (path.empty()) throw usage_error(option + ": empty path");
        struct stat lst {};
        if (::lstat(path.c_str(), &lst) != 0)
            throw usage_error(option + ": cannot examine " + shown + ": " + std::strerror(errno));
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0)
            throw usage_error(option + ": " + shown +
                              " is a symbolic link that leads nowhere: " + std::strerror(errno));
        const bool link = S_ISLNK(lst.st_mode);
        const std::string what = link ? shown + " is a symbolic link to " : shown + " is ";
        const char* never = "; calibrate writes only a new file of its own inside a directory";
        if (S_ISBLK(st.st_mode))
            throw usage_error(option + ": " + what + "a block device" + never +
                              " (give a directory on a filesystem of that device)");
        if (S_ISCHR(st.st_mode)) throw usage_error(option + ": " + what + "a character device" + never);
        if (S_ISREG(st.st_mode))
            throw usage_error(option + ": " + what + "a regular file" + never +
                              ", it never writes to an existing file");
        if (!S_ISDIR(st.st_mode)) throw usage_error(option + ": " + what + "not a directory" + never);

        fd_ = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd_ < 0) throw usage_error(option + ": cannot open the directory " + shown + ": " + std::strerror(errno));
        struct stat opened {};
        if (::fstat(fd_, &opened) != 0 || opened.st_dev != st.st_dev || opened.st_ino != st.st_ino) {
            close_dir();
            throw usage_error(option + ": " + shown + " changed while it was being checked");
        }
        struct statvfs vfs {};
        if (::fstatvfs(fd_, &vfs) != 0) {
            const int e = errno;
            close_dir();
            throw usage_error(option + ": cannot examine the filesystem of " + shown + ": " + std::strerror(e));
        }
        if ((vfs.f_flag & ST_RDONLY) != 0) {
            close_dir();
            throw usage_error(option + ": " + shown + " is on a read-only filesystem");
        }
        if (::faccessat(fd_, ".", W_OK | X_OK, AT_EACCESS) != 0) {
            const int e = errno;
            close_dir();
            throw usage_error(option + ": cannot create a file in " + shown + ": " + std::strerror(e));
        }
        const std::uint64_t unit = vfs.f_frsize != 0 ? vfs.f_frsize : vfs.f_bsize;
        const std::uint64_t avail = saturating_mul(static_cast<std::uint64_t>(vfs.f_bavail), unit);
        const std::uint64_t size = saturating_mul(static_cast<std::uint64_t>(vfs.f_blocks), unit);
        const std::uint64_t margin =
            percent_of(size, static_cast<std::uint32_t>(scratch_free_margin_percent), rounding::up);
        if (bytes_to_write > avail) {
            close_dir();
            throw usage_error("--bytes: writing " + approx(bytes_to_write) + " in " + shown + " needs more than the " +
                              approx(avail) + " available there; use a smaller --bytes or another --path");
        }
        if (avail - bytes_to_write < margin) {
            close_dir();
            throw usage_error("--bytes: writing " + approx(bytes_to_write) + " in " + shown + " would leave " +
                              approx(avail - bytes_to_write) + " free, less than " +
                              std::to_string(scratch_free_margin_percent) + "% of the filesystem (" + approx(margin) +
                              " of " + approx(size) + "); use a smaller --bytes or another --path");
        }
        available_ = avail;
    }
    scratch_dir(const scratch_dir&) = delete;
    scratch_dir& operator=(const scratch_dir&) = delete;
    ~scratch_dir() { close_dir(); }

    int fd() const { return fd_; }
    const std::string& path() const { return path_; }
    std::uint64_t available() const { return available_; }

    /// A size exactly ("16MiB", "1000").
    static std::string size_text_of(std::uint64_t v) { return std::string(format_size(bytes(v)).c_str()); }
    /// A size to three significant digits, for messages about free space ("75.6GiB").
    static std::string approx(std::uint64_t v) {
        static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double x = static_cast<double>(v);
        std::size_t u = 0;
        while (x >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
            x /= 1024.0;
            ++u;
        }
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.3g%s", x, units[u]);
        return buf;
    }

private:
    void close_dir() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }
    std::string path_;
    int fd_ = -1;
    std::uint64_t available_ = 0;
};

/// The scratch file: created new inside a scratch_dir, unnamed at once, closed when destroyed.
class scratch_file {
public:
    /// Creates the file with `extra_flags` (O_DIRECT, O_DSYNC) added to O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW.
    /// Throws usage_error when the filesystem refuses the flags (EINVAL: no O_DIRECT), runtime_failure otherwise.
    scratch_file(const scratch_dir& dir, int extra_flags, const char* flags_name) {
        const signals_blocked blocked;  // no signal between creating the name and removing it
        for (int attempt = 0; attempt < 16 && fd_ < 0; ++attempt) {
            std::snprintf(scratch_detail::name, sizeof scratch_detail::name, ".provpol-calibrate-%ld-%016llx",
                          static_cast<long>(::getpid()), static_cast<unsigned long long>(random64()));
            const int fd = ::openat(dir.fd(), scratch_detail::name,
                                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | extra_flags, 0600);
            if (fd >= 0) {
                fd_ = fd;
                scratch_detail::dirfd = dir.fd();
                scratch_detail::armed = 1;
                break;
            }
            if (errno == EEXIST) continue;  // someone else's file: never touched; try another name
            const int e = errno;
            if (e == EINVAL && extra_flags != 0)
                throw usage_error(std::string("--mode: the filesystem of '") + args::printable(dir.path()) +
                                  "' does not accept " + flags_name + " (" + std::strerror(e) +
                                  "); use --mode buffered or another --path");
            throw runtime_failure("cannot create a scratch file in '" + args::printable(dir.path()) +
                                  "': " + std::strerror(e));
        }
        if (fd_ < 0)
            throw runtime_failure("cannot create a scratch file in '" + args::printable(dir.path()) +
                                  "': 16 names taken");
        struct stat st {};
        const bool fresh = ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 && st.st_size == 0;
        const bool unnamed = ::unlinkat(dir.fd(), scratch_detail::name, 0) == 0;
        if (unnamed) scratch_detail::armed = 0;
        if (!fresh || !unnamed) {
            ::close(fd_);
            fd_ = -1;
            if (scratch_detail::armed != 0 && ::unlinkat(dir.fd(), scratch_detail::name, 0) == 0)
                scratch_detail::armed = 0;
            throw runtime_failure("the scratch file in '" + args::printable(dir.path()) +
                                  (fresh ? "' could not be removed" : "' is not a new empty regular file"));
        }
    }
    scratch_file(const scratch_file&) = delete;
    scratch_file& operator=(const scratch_file&) = delete;
    ~scratch_file() {
        if (fd_ >= 0) ::close(fd_);
    }

    int fd() const { return fd_; }

private:
    static unsigned long long random64() {
        unsigned long long v = 0;
        std::FILE* f = std::fopen("/dev/urandom", "rb");
        if (f != nullptr) {
            if (std::fread(&v, sizeof v, 1, f) != 1) v = 0;
            std::fclose(f);
        }
        struct timespec ts {};
        ::clock_gettime(CLOCK_MONOTONIC, &ts);
        return v ^ (static_cast<unsigned long long>(ts.tv_nsec) << 20) ^ static_cast<unsigned long long>(ts.tv_sec);
    }
    int fd_ = -1;
};

/// Marks a progress line on the terminal, so that a signal ends it with a newline.
class progress_line {
public:
    explicit progress_line(bool on) : on_(on) { scratch_detail::progress = on ? 1 : 0; }
    progress_line(const progress_line&) = delete;
    progress_line& operator=(const progress_line&) = delete;
    ~progress_line() { clear(); }
    bool on() const { return on_; }
    void clear() {
        if (on_) std::fputs("\r\033[K", stderr);
        scratch_detail::progress = 0;
        on_ = false;
    }

private:
    bool on_;
};

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_SCRATCH_FILE_HPP
