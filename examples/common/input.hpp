// The provpol CLI's one input reader: a file named by an option, or standard input for "-", read line by line
// through a 64 KiB block buffer (fread and memchr, not a call per byte), in constant memory whatever the file's
// size. Every file the CLI reads comes through it: CSV (--input, --samples), --latency samples:FILE and
// vdsm-log:FILE, --vdsm-log. What a file may hold (how long a line, whether a NUL byte is an error) is the
// caller's rule; opening, directories, read errors and their messages are the same everywhere.
#ifndef PROVPOL_CLI_INPUT_HPP
#define PROVPOL_CLI_INPUT_HPP

#include "cli.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

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
    };

    /// How much is read at a time.
    static constexpr std::size_t block_size = std::size_t{1} << 16;

    /// Opens `path` for `option` ("--input"). Usage errors: no name, a file that cannot be opened, a directory.
    text_input(const std::string& path, std::string option, rules r)
        : path_(path), option_(std::move(option)), rules_(std::move(r)) {
        if (path.empty())
            throw usage_error(option_ + ": needs a file name" + (rules_.dash_is_stdin ? " (or - for stdin)" : ""));
        if (path == "-" && rules_.dash_is_stdin) {
            f_ = stdin;
            owned_ = false;
            is_stdin_ = true;
        } else {
            f_ = std::fopen(path.c_str(), "rb");
            if (f_ == nullptr) throw usage_error(option_ + ": cannot open " + shown() + ": " + std::strerror(errno));
        }
        struct stat st {};
        if (::fstat(fileno(f_), &st) == 0 && S_ISDIR(st.st_mode)) {
            close();
            if (rules_.not_a.empty()) throw usage_error(option_ + ": cannot open " + shown() + ": Is a directory");
            throw usage_error(option_ + ": " + shown() + " is a directory, not " + rules_.not_a);
        }
    }
    /// Reads an open stream (not closed here); `name` stands for it in messages.
    text_input(std::FILE* stream, std::string name, std::string option, rules r)
        : path_(std::move(name)), option_(std::move(option)), rules_(std::move(r)), f_(stream), owned_(false) {}
    text_input(const text_input&) = delete;
    text_input& operator=(const text_input&) = delete;
    ~text_input() { close(); }

    /// Reads the next line into `out`, without its '\n' (a '\r' before it is kept: the caller's format decides).
    /// False at the end of the input. Throws usage_error on a line the rules refuse, runtime_failure on a read
    /// error.
    bool next(std::string& out) {
        out.clear();
        bool any = false, cut = false;
        for (;;) {
            if (pos_ == len_) {
                len_ = std::fread(block_.get(), 1, block_size, f_);
                pos_ = 0;
                if (len_ == 0) {
                    if (std::ferror(f_))
                        throw runtime_failure(option_ + ": reading " + shown() + " failed: " + std::strerror(errno));
                    break;
                }
            }
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

    /// Lines read so far (the number of the line next() returned last).
    std::size_t line() const { return line_; }
    /// The file as messages quote it: 'name', or stdin.
    std::string shown() const { return is_stdin_ ? std::string("stdin") : "'" + args::printable(path_) + "'"; }
    /// "--input: file.csv:12: ", the start of a message about the current line.
    std::string where() const { return option_ + ": " + args::printable(path_) + ":" + std::to_string(line_) + ": "; }
    const std::string& option() const { return option_; }

private:
    [[noreturn]] void refuse(const std::string& why) {
        ++line_;
        throw usage_error(where() + why);
    }
    void close() {
        if (owned_ && f_ != nullptr) std::fclose(f_);
        f_ = nullptr;
    }

    std::string path_;
    std::string option_;
    rules rules_;
    std::FILE* f_ = nullptr;
    bool owned_ = true;
    bool is_stdin_ = false;
    std::unique_ptr<char[]> block_ = std::make_unique<char[]>(block_size);
    std::size_t pos_ = 0;
    std::size_t len_ = 0;
    std::size_t line_ = 0;
};

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_INPUT_HPP
