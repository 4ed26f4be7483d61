// The provpol CLI's one input reader: a file named by an option, or standard input for "-", read line by line
// through a 64 KiB block buffer (read(2) and memchr, not a call per byte), in constant memory whatever the file's
// size. Every file the CLI reads comes through it: CSV (--input, --samples), --latency samples:FILE and
// vdsm-log:FILE, --vdsm-log, --config, flow files, lvs reports. What a file may hold (how long a line, whether a
// NUL byte is an error) is the caller's rule; what is the same everywhere:
//   - every way a read can fail is the input's error, one line, exit 2 (usage_error): a file that cannot be opened,
//     a directory, a read error (EIO, EBADF: stdin closed), more than rules::max_bytes (a FIFO or device that never
//     ends: /dev/zero, `yes |`), and a pipe, FIFO or socket that gives nothing for rules::idle_timeout (a FIFO with
//     no writer is opened without blocking, then waited for with poll(2));
//   - with rules::decompress, a file that starts with gzip's, xz's, bzip2's or zstd's magic (logrotate's rotated
//     logs: vdsm.log.1.xz) is read through the tool's own `-dc` (gzip, xz, bzip2, zstd found on PATH, run without a
//     shell), so that the CLI links no compression library; the output counts against max_bytes, the tool is
//     stopped when reading stops early, and its failure (a corrupt or truncated file) is the input's error.
#ifndef PROVPOL_CLI_INPUT_HPP
#define PROVPOL_CLI_INPUT_HPP

#include "cli.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

extern char** environ;

namespace provpol::cli {

class text_input {
public:
    /// What the caller accepts, and how its errors name the file. Errors about a line are usage errors that
    /// read "OPTION: FILE:LINE: " followed by the rule's text.
    struct rules {
        std::size_t max_line = std::size_t{1} << 16;  ///< the longest line, in bytes, without its '\n'
        std::string too_long;       ///< a longer line is this error; empty: it is cut to max_line and reading goes on
        std::string nul;            ///< a NUL byte is this error; empty: NUL bytes are data
        std::string not_a;          ///< a directory: "OPTION: 'DIR' is a directory, not <not_a>" ("" : "cannot open")
        bool dash_is_stdin = true;  ///< "-" is standard input, "stdin" in messages (false: a file named "-")
        std::uint64_t max_bytes = std::uint64_t{1} << 30;  ///< more (decompressed) bytes is an error
        int idle_timeout_ms = 60000;  ///< a pipe, FIFO or socket silent this long is an error (a terminal: never)
        bool decompress = false;      ///< read gzip, xz, bzip2 and zstd files through their tool (see above)
    };

    /// How much is read at a time.
    static constexpr std::size_t block_size = std::size_t{1} << 16;

    /// Opens `path` for `option` ("--input"). Usage errors: no name, a file that cannot be opened, a directory.
    text_input(const std::string& path, std::string option, rules r)
        : path_(path), option_(std::move(option)), rules_(std::move(r)) {
        if (path.empty())
            throw usage_error(option_ + ": needs a file name" + (rules_.dash_is_stdin ? " (or - for stdin)" : ""));
        if (path == "-" && rules_.dash_is_stdin) {
            is_stdin_ = true;
            if (::fcntl(0, F_GETFD) < 0) throw usage_error(option_ + ": cannot read stdin: " + std::strerror(errno));
            fd_ = 0;
            owned_ = false;
        } else {
            // Without blocking: a FIFO with no writer must not hang open(2); its reads wait in poll(2) instead.
            fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
            if (fd_ < 0) throw usage_error(option_ + ": cannot open " + shown() + ": " + std::strerror(errno));
        }
        setup();
    }
    /// Reads an open stream (not closed here); `name` stands for it in messages.
    text_input(std::FILE* stream, std::string name, std::string option, rules r)
        : path_(std::move(name)), option_(std::move(option)), rules_(std::move(r)), owned_(false) {
        fd_ = stream == nullptr ? -1 : fileno(stream);
        if (fd_ < 0) throw usage_error(option_ + ": cannot read " + shown() + ": " + std::strerror(EBADF));
        setup();
    }
    text_input(const text_input&) = delete;
    text_input& operator=(const text_input&) = delete;
    ~text_input() { close(); }

    /// Reads the next line into `out`, without its '\n' (a '\r' before it is kept: the caller's format decides).
    /// False at the end of the input. Throws usage_error on a line the rules refuse and on every read error.
    bool next(std::string& out) {
        out.clear();
        bool any = false, cut = false;
        for (;;) {
            if (pos_ == len_ && !fill()) break;
            any = true;
            const char* start = block_.get() + pos_;
            const std::size_t avail = len_ - pos_;
            const void* nl = std::memchr(start, '\n', avail);
            const std::size_t take = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - start) : avail;
            if (!rules_.nul.empty() && std::memchr(start, '\0', take) != nullptr) refuse(rules_.nul);
            if (out.size() + take > rules_.max_line) {
                if (!rules_.too_long.empty()) refuse(rules_.too_long);
                cut = true;
            }
            if (!cut)
                out.append(start, take);
            else if (out.size() < rules_.max_line)
                out.append(start, rules_.max_line - out.size());
            pos_ += take;
            if (nl) {
                ++pos_;  // the '\n'
                break;
            }
        }
        if (!any) return false;
        ++line_;
        return true;
    }

    /// Reads the whole input into `out` (at most rules::max_bytes; rules::nul applies, lines are not split).
    void read_all(std::string& out) {
        out.clear();
        while (pos_ < len_ || fill()) {
            const char* start = block_.get() + pos_;
            if (!rules_.nul.empty() && std::memchr(start, '\0', len_ - pos_) != nullptr)
                throw usage_error(option_ + ": " + shown() + ": " + rules_.nul);
            out.append(start, len_ - pos_);
            pos_ = len_;
        }
    }

    /// The first bytes of the input, up to `n` (at most block_size), without consuming them.
    std::string peek(std::size_t n) {
        if (pos_ == len_) fill();
        return std::string(block_.get() + pos_, std::min(n, len_ - pos_));
    }

    /// Lines read so far (the number of the line next() returned last).
    std::size_t line() const { return line_; }
    /// Bytes read so far (after decompression).
    std::uint64_t bytes_read() const { return total_; }
    /// The file as messages quote it: 'name', or stdin.
    std::string shown() const { return is_stdin_ ? std::string("stdin") : "'" + args::printable(path_) + "'"; }
    /// "--input: file.csv:12: ", the start of a message about the current line.
    std::string where() const { return option_ + ": " + args::printable(path_) + ":" + std::to_string(line_) + ": "; }
    const std::string& option() const { return option_; }
    /// The tool the input is read through ("xz"), or empty.
    const std::string& decompressor() const { return tool_; }

private:
    [[noreturn]] void refuse(const std::string& why) {
        ++line_;
        throw usage_error(where() + why);
    }
    [[noreturn]] void read_failed(int err) {
        throw usage_error(option_ + ": reading " + shown() + " failed: " + std::strerror(err));
    }

    // A directory is refused; a pipe, FIFO or socket is waited for with poll(2); a regular file is read as it is,
    // and with rules::decompress through its tool when it starts with a compressor's magic.
    void setup() {
        struct stat st {};
        if (::fstat(fd_, &st) != 0) read_failed(errno);
        if (S_ISDIR(st.st_mode)) {
            close();
            if (rules_.not_a.empty()) throw usage_error(option_ + ": cannot open " + shown() + ": Is a directory");
            throw usage_error(option_ + ": " + shown() + " is a directory, not " + rules_.not_a);
        }
        waits_ = (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) && rules_.idle_timeout_ms > 0;
        if (rules_.decompress) start_decompressor(st);
    }

    // Fills the block; false at the end of the input.
    bool fill() {
        pos_ = len_ = 0;
        if (eof_) return false;
        for (;;) {
            if (waits_) wait_readable();
            const ssize_t n = ::read(fd_, block_.get(), block_size);
            if (n > 0) {
                len_ = static_cast<std::size_t>(n);
                total_ += len_;
                if (total_ > rules_.max_bytes)
                    throw usage_error(option_ + ": " + shown() + " is larger than " + size_text(rules_.max_bytes) +
                                      (tool_.empty() ? std::string() : " once decompressed") + ": not " +
                                      (rules_.not_a.empty() ? std::string("a file provpol reads") : rules_.not_a));
                return true;
            }
            if (n == 0) {
                eof_ = true;
                finish_decompressor();
                return false;
            }
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                waits_ = true;  // a descriptor left non-blocking (a FIFO opened so, a terminal): wait for it
                if (rules_.idle_timeout_ms <= 0) rules_.idle_timeout_ms = 60000;
                continue;
            }
            read_failed(errno);
        }
    }

    void wait_readable() {
        pollfd p{fd_, POLLIN, 0};
        for (;;) {
            const int r = ::poll(&p, 1, rules_.idle_timeout_ms);
            if (r > 0) return;  // data, the writer's end closed, or an error read(2) reports
            if (r == 0) {
                char wait[32];
                std::snprintf(wait, sizeof wait, "%g", rules_.idle_timeout_ms / 1000.0);
                throw usage_error(option_ + ": " + shown() + " gave nothing for " + wait +
                                  " s (a FIFO with no writer?)");
            }
            if (errno != EINTR) read_failed(errno);
        }
    }

    static std::string size_text(std::uint64_t n) {
        return n % (std::uint64_t{1} << 30) == 0   ? std::to_string(n >> 30) + " GiB"
               : n % (std::uint64_t{1} << 20) == 0 ? std::to_string(n >> 20) + " MiB"
                                                   : std::to_string(n) + " bytes";
    }

    // The compressor whose magic `head` starts with, or nullptr.
    static const char* compressor_of(const unsigned char* head, std::size_t n) {
        if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) return "gzip";
        if (n >= 6 && std::memcmp(head,
                                  "\xfd"
                                  "7zXZ\0",
                                  6) == 0)
            return "xz";
        if (n >= 3 && std::memcmp(head, "BZh", 3) == 0) return "bzip2";
        if (n >= 4 && std::memcmp(head, "\x28\xb5\x2f\xfd", 4) == 0) return "zstd";
        return nullptr;
    }

    // With rules::decompress: a regular file that starts with a compressor's magic becomes that tool's output.
    void start_decompressor(const struct stat& st) {
        unsigned char head[6] = {};
        if (!S_ISREG(st.st_mode)) {
            // A pipe cannot be given back to a tool once its first bytes are read: peek at what arrives, refuse it
            // if compressed.
            if (!fill()) return;
            if (const char* tool = compressor_of(reinterpret_cast<const unsigned char*>(block_.get()), len_))
                throw usage_error(option_ + ": " + shown() + " is " + tool + "-compressed: give the file's name, or " +
                                  "pipe it through " + tool + " -dc");
            return;
        }
        const ssize_t n = ::pread(fd_, head, sizeof head, 0);
        if (n < 0) read_failed(errno);
        const char* tool = compressor_of(head, static_cast<std::size_t>(n));
        if (tool == nullptr) return;
        int out[2], err[2];
        if (::pipe2(out, O_CLOEXEC) != 0) read_failed(errno);
        if (::pipe2(err, O_CLOEXEC) != 0) {
            const int e = errno;
            ::close(out[0]);
            ::close(out[1]);
            read_failed(e);
        }
        const int flags = ::fcntl(fd_, F_GETFL);
        if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, fd_, 0);
        posix_spawn_file_actions_adddup2(&fa, out[1], 1);
        posix_spawn_file_actions_adddup2(&fa, err[1], 2);
        char arg0[8], arg1[] = "-dc";
        std::snprintf(arg0, sizeof arg0, "%s", tool);
        char* argv[] = {arg0, arg1, nullptr};
        pid_t pid = -1;
        const int rc = ::posix_spawnp(&pid, tool, &fa, nullptr, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        ::close(out[1]);
        ::close(err[1]);
        if (rc != 0) {
            ::close(out[0]);
            ::close(err[0]);
            throw usage_error(option_ + ": " + shown() + " is " + tool + "-compressed, and " + tool +
                              " cannot be run: " + std::strerror(rc) + " (install " +
                              (std::strcmp(tool, "xz") == 0 ? "xz-utils" : tool) + ", or decompress it first)");
        }
        if (owned_) ::close(fd_);
        fd_ = out[0];
        owned_ = true;
        err_fd_ = err[0];
        child_ = pid;
        tool_ = tool;
        waits_ = rules_.idle_timeout_ms > 0;
    }

    // At the end of the tool's output: its exit status; a failure is the input's error, with the tool's first line.
    void finish_decompressor() {
        if (child_ < 0) return;
        int status = 0;
        while (::waitpid(child_, &status, 0) < 0 && errno == EINTR) {
        }
        child_ = -1;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
        char buf[512] = {};
        const ssize_t n = ::read(err_fd_, buf, sizeof buf - 1);
        std::string why = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
        why = why.substr(0, why.find('\n'));
        if (why.empty())
            why = WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status)) : std::string("killed");
        throw usage_error(option_ + ": " + shown() + ": " + tool_ + " -dc failed: " + args::printable(why));
    }

    void close() {
        if (child_ > 0) {  // reading stopped early: stop the tool this reader started
            ::kill(child_, SIGTERM);
            int status = 0;
            while (::waitpid(child_, &status, 0) < 0 && errno == EINTR) {
            }
            child_ = -1;
        }
        if (err_fd_ >= 0) ::close(err_fd_);
        err_fd_ = -1;
        if (owned_ && fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }

    std::string path_;
    std::string option_;
    rules rules_;
    int fd_ = -1;
    bool owned_ = true;
    bool is_stdin_ = false;
    bool waits_ = false;
    bool eof_ = false;
    pid_t child_ = -1;
    int err_fd_ = -1;
    std::string tool_;
    std::unique_ptr<char[]> block_ = std::make_unique<char[]>(block_size);
    std::size_t pos_ = 0;
    std::size_t len_ = 0;
    std::uint64_t total_ = 0;
    std::size_t line_ = 0;
};

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_INPUT_HPP
