// The provpol CLI's output: one table, printed as aligned text, CSV (RFC 4180) or JSON (an array of objects).
#ifndef PROVPOL_CLI_TABLE_HPP
#define PROVPOL_CLI_TABLE_HPP

#include "cli.hpp"

#include <provpol/parse.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace provpol::cli {

/// A size for people: exact when it has a short exact form ("2.5GiB"), otherwise four significant digits in
/// the largest fitting unit ("883.7MiB"). Scripts read the CSV or JSON bytes instead.
inline std::string human_size(bytes b) {
    const size_text exact = format_size(b);
    const text_view v = exact.view();
    if (b.count() < 1024 || v.back() == 'B') return std::string(v);
    const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double x = static_cast<double>(b.count()) / 1024.0;
    int u = 0;
    while (x >= 1024.0 && u < 5) {
        x /= 1024.0;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g%s", x, units[u]);
    return buf;
}

/// One value in a table. CSV and JSON print the raw value (sizes in bytes, flags 0/1 or true/false); text
/// prints the display form (sizes in IEC units, flags yes/no).
class cell {
public:
    enum class kind { empty, unsigned_integer, signed_integer, real, flag, text, size };

    cell() = default;
    static cell of(std::uint64_t v) { return cell(kind::unsigned_integer, v, 0, 0.0, {}); }
    static cell of_signed(std::int64_t v) { return cell(kind::signed_integer, 0, v, 0.0, {}); }
    /// A real number printed with `digits` significant digits.
    static cell of_real(double v, int digits = 6) {
        cell c(kind::real, 0, 0, v, {});
        c.digits_ = digits;
        return c;
    }
    static cell of_flag(bool v) { return cell(kind::flag, v ? 1 : 0, 0, 0.0, {}); }
    static cell of_text(std::string s) { return cell(kind::text, 0, 0, 0.0, std::move(s)); }
    /// A size: bytes in CSV and JSON, "2.5GiB" in text.
    static cell of_size(bytes b) { return cell(kind::size, b.count(), 0, 0.0, {}); }

    kind type() const { return kind_; }

    /// The value as CSV prints it.
    std::string raw() const {
        switch (kind_) {
            case kind::empty:
                return "";
            case kind::unsigned_integer:
            case kind::size:
            case kind::flag:
                return std::to_string(u_);
            case kind::signed_integer:
                return std::to_string(i_);
            case kind::real:
                return real_text();
            case kind::text:
                return s_;
        }
        return "";
    }
    /// The value as the text table prints it.
    std::string display() const {
        switch (kind_) {
            case kind::size:
                return human_size(bytes(u_));
            case kind::flag:
                return u_ ? "yes" : "no";
            default:
                return raw();
        }
    }
    /// The value as JSON.
    std::string json() const {
        switch (kind_) {
            case kind::empty:
                return "null";
            case kind::flag:
                return u_ ? "true" : "false";
            case kind::text:
                return quote_json(s_);
            case kind::real: {
                if (!(v_ == v_) || v_ - v_ != 0.0) return "null";  // NaN or infinite: JSON has neither
                return real_text();
            }
            default:
                return raw();
        }
    }
    bool right_aligned() const { return kind_ != kind::text && kind_ != kind::flag; }

    static std::string quote_json(const std::string& s) {
        std::string out = "\"";
        for (char c : s) {
            const auto u = static_cast<unsigned char>(c);
            if (c == '"' || c == '\\') {
                out += '\\';
                out += c;
            } else if (u < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", u);
                out += buf;
            } else {
                out += c;
            }
        }
        return out + "\"";
    }

private:
    cell(kind k, std::uint64_t u, std::int64_t i, double v, std::string s)
        : kind_(k), u_(u), i_(i), v_(v), s_(std::move(s)) {}
    std::string real_text() const {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*g", digits_, v_);
        return buf;
    }

    kind kind_ = kind::empty;
    std::uint64_t u_ = 0;
    std::int64_t i_ = 0;
    double v_ = 0.0;
    int digits_ = 6;
    std::string s_;
};

/// Rows of cells under named columns.
class table {
public:
    explicit table(std::vector<std::string> columns) : columns_(std::move(columns)) {}

    void add_row(std::vector<cell> row) {
        row.resize(columns_.size());
        rows_.push_back(std::move(row));
    }
    const std::vector<std::string>& columns() const { return columns_; }
    const std::vector<std::vector<cell>>& rows() const { return rows_; }

    /// Prints in the given format (svg is not a table format: the caller draws it).
    void print(std::FILE* out, format f) const {
        switch (f) {
            case format::csv:
                print_csv(out);
                break;
            case format::json:
                print_json(out);
                break;
            default:
                print_text(out);
                break;
        }
    }

    void print_csv(std::FILE* out) const {
        for (std::size_t c = 0; c < columns_.size(); ++c)
            std::fprintf(out, "%s%s", c ? "," : "", csv_field(columns_[c]).c_str());
        std::fputc('\n', out);
        for (const auto& row : rows_) {
            for (std::size_t c = 0; c < row.size(); ++c)
                std::fprintf(out, "%s%s", c ? "," : "", csv_field(row[c].raw()).c_str());
            std::fputc('\n', out);
        }
    }

    void print_json(std::FILE* out) const {
        std::fputs("[", out);
        for (std::size_t r = 0; r < rows_.size(); ++r) {
            std::fputs(r ? ",\n  {" : "\n  {", out);
            for (std::size_t c = 0; c < columns_.size(); ++c)
                std::fprintf(out, "%s%s: %s", c ? ", " : "", cell::quote_json(columns_[c]).c_str(),
                             rows_[r][c].json().c_str());
            std::fputs("}", out);
        }
        std::fputs(rows_.empty() ? "]\n" : "\n]\n", out);
    }

    void print_text(std::FILE* out) const {
        std::vector<std::size_t> width(columns_.size());
        for (std::size_t c = 0; c < columns_.size(); ++c) width[c] = columns_[c].size();
        std::vector<std::vector<std::string>> shown;
        for (const auto& row : rows_) {
            std::vector<std::string> s;
            for (std::size_t c = 0; c < row.size(); ++c) {
                s.push_back(row[c].display());
                if (s.back().size() > width[c]) width[c] = s.back().size();
            }
            shown.push_back(std::move(s));
        }
        auto pad = [&](const std::string& s, std::size_t w, bool right) {
            const std::string fill(w > s.size() ? w - s.size() : 0, ' ');
            return right ? fill + s : s + fill;
        };
        std::string line;
        for (std::size_t c = 0; c < columns_.size(); ++c) {
            const bool right = !rows_.empty() && rows_[0][c].right_aligned();
            line += (c ? "  " : "") + pad(columns_[c], width[c], right);
        }
        std::fprintf(out, "%s\n", rtrim(line).c_str());
        for (std::size_t r = 0; r < shown.size(); ++r) {
            line.clear();
            for (std::size_t c = 0; c < columns_.size(); ++c)
                line += (c ? "  " : "") + pad(shown[r][c], width[c], rows_[r][c].right_aligned());
            std::fprintf(out, "%s\n", rtrim(line).c_str());
        }
    }

    /// The table printed in the given format, as a string.
    std::string str(format f) const {
        char* buf = nullptr;
        std::size_t len = 0;
        std::FILE* mem = open_memstream(&buf, &len);
        if (mem == nullptr) throw std::bad_alloc();
        print(mem, f);
        std::fclose(mem);
        std::string out(buf, len);
        std::free(buf);
        return out;
    }

    /// One row shown as "name  value" lines (the text form of a single answer).
    void print_vertical(std::FILE* out, std::size_t row = 0) const {
        std::size_t w = 0;
        for (const auto& c : columns_) w = c.size() > w ? c.size() : w;
        for (std::size_t c = 0; c < columns_.size(); ++c) {
            std::string name = columns_[c];
            name.resize(w, ' ');
            std::fprintf(out, "%s  %s\n", name.c_str(), rows_[row][c].display().c_str());
        }
    }

private:
    static std::string csv_field(const std::string& s) {
        if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
        std::string out = "\"";
        for (char c : s) {
            if (c == '"') out += '"';
            out += c;
        }
        return out + "\"";
    }
    static std::string rtrim(std::string s) {
        while (!s.empty() && s.back() == ' ') s.pop_back();
        return s;
    }

    std::vector<std::string> columns_;
    std::vector<std::vector<cell>> rows_;
};

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_TABLE_HPP
