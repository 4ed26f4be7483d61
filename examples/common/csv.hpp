// The provpol CLI's CSV, in and out. In: a header row, then records, streamed one at a time through text_input
// (a million-row file is read in constant memory). Quoted fields (RFC 4180, without embedded line breaks), CRLF
// line ends and a UTF-8 BOM are accepted; a missing column, a short row, a NUL byte or an over-long line is an
// error naming the file and line. Out: csv_writer, RFC 4180 quoting where a field needs it.
#ifndef PROVPOL_CLI_CSV_HPP
#define PROVPOL_CLI_CSV_HPP

#include "cli.hpp"
#include "input.hpp"

#include <provpol/parse.hpp>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace provpol::cli {

/// Writes CSV rows into a string: fields separated by commas, each quoted (quotes doubled) only when it holds a
/// comma, a quote or a line break, rows ended by '\n'.
class csv_writer {
public:
    explicit csv_writer(std::string& out) : out_(out) {}

    csv_writer& field(std::string_view s) {
        separate();
        if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
            out_ += s;
            return *this;
        }
        out_ += '"';
        for (char c : s) {
            if (c == '"') out_ += '"';
            out_ += c;
        }
        out_ += '"';
        return *this;
    }
    csv_writer& field(std::uint64_t v) {
        separate();
        char buf[24];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        out_.append(buf, r.ptr);
        return *this;
    }
    void end_row() {
        out_ += '\n';
        fields_ = 0;
    }

private:
    void separate() {
        if (fields_++ != 0) out_ += ',';
    }

    std::string& out_;
    std::size_t fields_ = 0;
};

class csv_reader {
public:
    /// Longest accepted line; longer lines are an error, never a reason to read a whole file into memory.
    static constexpr std::size_t max_line = 1 << 16;

    /// Opens `path` ("-" for standard input) and reads the header. `option` names the flag in errors; a directory
    /// is "not <not_a>" when given (text_input::rules::not_a).
    csv_reader(const std::string& path, const std::string& option, const std::string& not_a = "")
        : in_(path, option, rules(not_a)) {
        read_header();
    }
    /// Reads from an open stream (not closed by the reader); `name` stands for it in messages.
    csv_reader(std::FILE* stream, std::string name, std::string option)
        : in_(stream, std::move(name), std::move(option), rules()) {
        read_header();
    }

    /// The index of a required column; an error listing the header when it is missing.
    std::size_t column(std::string_view name) const {
        for (std::size_t i = 0; i < header_.size(); ++i)
            if (header_[i] == name) return i;
        std::string have;
        for (const auto& h : header_) have += (have.empty() ? "" : ",") + args::printable(h);
        throw usage_error(in_.option() + ": " + in_.shown() + " has no column '" + std::string(name) +
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
    std::size_t line() const { return in_.line(); }

    /// Field i read as a size; an error naming file, line and column otherwise.
    bytes size(std::size_t i) const {
        const auto r = parse_size(fields_[i], "");
        if (!r) throw usage_error(where() + "column '" + header_[i] + "': " + std::string(r.error().message().view()));
        return *r;
    }
    /// Field i read as a decimal in [lo, hi].
    double decimal(std::size_t i, double lo, double hi) const {
        const auto r = parse_decimal(fields_[i], "", lo, hi);
        if (!r) {
            std::string m(r.error().message().view());
            if (!m.empty() && m[0] == ' ') m.erase(0, 1);  // a range error without a setting: " must be in ..."
            throw usage_error(where() + "column '" + header_[i] + "': " + m);
        }
        return *r;
    }

    /// "--input: file.csv:12: " for messages.
    std::string where() const { return in_.where(); }

private:
    void read_header() {
        if (!read_record()) throw usage_error(where() + "empty file: expected a header row");
        header_ = fields_;
        if (!header_.empty() && header_[0].size() >= 3 && header_[0].compare(0, 3, "\xEF\xBB\xBF") == 0)
            header_[0].erase(0, 3);  // UTF-8 byte order mark
    }

    static text_input::rules rules(const std::string& not_a = "") {
        text_input::rules r;
        r.not_a = not_a;
        r.max_line = max_line;
        r.too_long = "line longer than " + std::to_string(max_line) + " bytes";
        r.nul = "contains a NUL byte (not a text CSV file)";
        return r;
    }

    // One line, without a trailing '\r' (CRLF files).
    bool read_line(std::string& out) {
        if (!in_.next(out)) return false;
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

    text_input in_;
    std::string buf_;
    std::vector<std::string> header_;
    std::vector<std::string> fields_;
};

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_CSV_HPP
