// The provpol CLI's CSV input: a header row, then records, streamed one at a time (a million-row file is read
// in constant memory). Quoted fields (RFC 4180, without embedded line breaks), CRLF line ends and a UTF-8 BOM
// are accepted; a missing column, a short row, a NUL byte or an over-long line is an error naming the file
// and line.
#ifndef PROVPOL_CLI_CSV_HPP
#define PROVPOL_CLI_CSV_HPP

#include "cli.hpp"

#include <provpol/parse.hpp>

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace provpol::cli {

class csv_reader {
public:
    /// Longest accepted line; longer lines are an error, never a reason to read a whole file into memory.
    static constexpr std::size_t max_line = 1 << 16;
    /// How much is read at a time.
    static constexpr std::size_t block_size = 1 << 16;

    /// Opens `path` ("-" for standard input) and reads the header. `option` names the flag in errors.
    csv_reader(const std::string& path, std::string option) : path_(path), option_(std::move(option)) {
        if (path.empty()) throw usage_error(option_ + ": empty file name");
        if (path == "-") {
            f_ = stdin;
        } else {
            f_ = std::fopen(path.c_str(), "rb");
            if (f_ == nullptr)
                throw usage_error(option_ + ": cannot open '" + args::printable(path) + "': " + std::strerror(errno));
            struct stat st {};
            if (fstat(fileno(f_), &st) == 0 && S_ISDIR(st.st_mode)) {
                std::fclose(f_);
                f_ = nullptr;
                throw usage_error(option_ + ": cannot open '" + args::printable(path) + "': Is a directory");
            }
        }
        read_header();
    }
    /// Reads from an open stream (not closed by the reader); `name` stands for it in messages.
    csv_reader(std::FILE* stream, std::string name, std::string option)
        : path_(std::move(name)), option_(std::move(option)), f_(stream), owned_(false) {
        read_header();
    }
    csv_reader(const csv_reader&) = delete;
    csv_reader& operator=(const csv_reader&) = delete;
    ~csv_reader() {
        if (owned_ && f_ != nullptr && f_ != stdin) std::fclose(f_);
    }

    /// The index of a required column; an error listing the header when it is missing.
    std::size_t column(std::string_view name) const {
        for (std::size_t i = 0; i < header_.size(); ++i)
            if (header_[i] == name) return i;
        std::string have;
        for (const auto& h : header_) have += (have.empty() ? "" : ",") + args::printable(h);
        throw usage_error(option_ + ": '" + args::printable(path_) + "' has no column '" + std::string(name) +
                          "' (header: " + have + ")");
    }
    /// The index of an optional column, or -1.
    long optional_column(std::string_view name) const {
        for (std::size_t i = 0; i < header_.size(); ++i)
            if (header_[i] == name) return static_cast<long>(i);
        return -1;
    }

    /// Reads the next record; false at the end of the file. Blank lines are skipped.
    bool next() {
        for (;;) {
            if (!read_record()) return false;
            if (fields_.size() == 1 && fields_[0].empty()) continue;
            if (fields_.size() < header_.size())
                throw usage_error(where() + "has " + std::to_string(fields_.size()) + " fields, the header has " +
                                  std::to_string(header_.size()));
            return true;
        }
    }
    const std::string& field(std::size_t i) const { return fields_[i]; }
    std::size_t line() const { return line_; }

    /// Field i read as a size; an error naming file, line and column otherwise.
    bytes size(std::size_t i) const {
        const auto r = parse_size(fields_[i], "");
        if (!r) throw usage_error(where() + "column '" + header_[i] + "': " + std::string(r.error().message().view()));
        return *r;
    }
    /// Field i read as a decimal in [lo, hi].
    double decimal(std::size_t i, double lo, double hi) const {
        const auto r = parse_decimal(fields_[i], "", lo, hi);
        if (!r) throw usage_error(where() + "column '" + header_[i] + "': " + std::string(r.error().message().view()));
        return *r;
    }

    /// "--input: file.csv:12: " for messages.
    std::string where() const { return option_ + ": " + args::printable(path_) + ":" + std::to_string(line_) + ": "; }

private:
    void read_header() {
        if (!read_record()) throw usage_error(where() + "empty file: expected a header row");
        header_ = fields_;
        if (!header_.empty() && header_[0].size() >= 3 && header_[0].compare(0, 3, "\xEF\xBB\xBF") == 0)
            header_[0].erase(0, 3);  // UTF-8 byte order mark
    }

    // Reads one line (without its '\n' and a trailing '\r') through a block buffer: fread and memchr, not a call
    // per byte. False at the end of the input.
    bool read_line(std::string& out) {
        out.clear();
        bool any = false;
        for (;;) {
            if (pos_ == len_) {
                len_ = std::fread(block_.get(), 1, block_size, f_);
                pos_ = 0;
                if (len_ == 0) {
                    if (std::ferror(f_))
                        throw runtime_failure(option_ + ": reading '" + args::printable(path_) + "' failed");
                    break;
                }
            }
            any = true;
            const char* start = block_.get() + pos_;
            const std::size_t avail = len_ - pos_;
            const void* nl = std::memchr(start, '\n', avail);
            const std::size_t take = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - start) : avail;
            if (std::memchr(start, '\0', take) != nullptr) {
                ++line_;
                throw usage_error(where() + "contains a NUL byte (not a text CSV file)");
            }
            if (out.size() + take > max_line) {
                ++line_;
                throw usage_error(where() + "line longer than " + std::to_string(max_line) + " bytes");
            }
            out.append(start, take);
            pos_ += take;
            if (nl) {
                ++pos_;  // the '\n'
                break;
            }
        }
        if (!any) return false;
        ++line_;
        if (!out.empty() && out.back() == '\r') out.pop_back();
        return true;
    }

    bool read_record() {
        if (!read_line(buf_)) return false;
        fields_.clear();
        std::string cur;
        std::size_t i = 0;
        for (;;) {
            cur.clear();
            if (i < buf_.size() && buf_[i] == '"') {
                ++i;
                for (;;) {
                    if (i >= buf_.size()) throw usage_error(where() + "unterminated quoted field");
                    if (buf_[i] == '"') {
                        if (i + 1 < buf_.size() && buf_[i + 1] == '"') {
                            cur += '"';
                            i += 2;
                            continue;
                        }
                        ++i;
                        break;
                    }
                    cur += buf_[i++];
                }
                if (i < buf_.size() && buf_[i] != ',') throw usage_error(where() + "text after a closing quote");
            } else {
                const std::size_t comma = buf_.find(',', i);
                const std::size_t end = comma == std::string::npos ? buf_.size() : comma;
                cur.assign(buf_, i, end - i);
                i = end;
            }
            fields_.push_back(cur);
            if (i >= buf_.size()) break;
            ++i;  // the comma
        }
        return true;
    }

    std::string path_;
    std::string option_;
    std::FILE* f_ = nullptr;
    bool owned_ = true;
    std::unique_ptr<char[]> block_ = std::make_unique<char[]>(block_size);
    std::size_t pos_ = 0;
    std::size_t len_ = 0;
    std::string buf_;
    std::vector<std::string> header_;
    std::vector<std::string> fields_;
    std::size_t line_ = 0;
};

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_CSV_HPP
