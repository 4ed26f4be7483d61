// The provpol CLI's output: one table, printed as aligned text, CSV (RFC 4180, through csv_writer) or JSON (an
// array of objects, through json_writer).
#ifndef PROVPOL_CLI_TABLE_HPP
#define PROVPOL_CLI_TABLE_HPP

#include "cli.hpp"
#include "csv.hpp"
#include "json.hpp"

#include <provpol/bytes.hpp>
#include <provpol/parse.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace provpol::cli {

/// A size for prose: exact when it has a short exact form ("2.5GiB"), otherwise "~" and four significant digits
/// in the largest fitting unit ("~883.7MiB": marked as not a size to paste). Tables print exact sizes
/// (format_size: the IEC form, or bytes), which the CLI reads back.
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
    std::snprintf(buf, sizeof buf, "~%.4g%s", x, units[u]);
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
    /// A real number printed with `digits` significant digits (0: as many as reading it back needs), never in
    /// exponent notation.
    static cell of_real(double v, int digits = 6) {
        cell c(kind::real, 0, 0, v, {});
        c.digits_ = digits;
        return c;
    }
    /// A time, as its number of seconds (of_real's printing).
    static cell of_seconds(seconds t, int digits = 6) { return of_real(t.count(), digits); }
    static cell of_flag(bool v) { return cell(kind::flag, v ? 1 : 0, 0, 0.0, {}); }
    static cell of_text(std::string s) { return cell(kind::text, 0, 0, 0.0, std::move(s)); }
    /// A size: bytes in CSV and JSON, "2.5GiB" in text.
    static cell of_size(bytes b) { return cell(kind::size, b.count(), 0, 0.0, {}); }
    /// A rate in MiB/s: CSV and JSON exact (the shortest text that reads back), the text table to six significant
    /// digits (1GB/s is 953.67431640625 MiB/s in CSV, 953.674 in text).
    static cell of_rate_mib(rate r) {
        cell c = of_real(r.mib_per_second(), 0);
        c.shown_digits_ = 6;
        return c;
    }

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
    /// The value as the text table prints it (reals with the cell's significant digits).
    std::string display() const {
        switch (kind_) {
            case kind::size:
                return std::string(format_size(bytes(u_)).view());
            case kind::flag:
                return u_ ? "yes" : "no";
            case kind::real:
                return decimal_text(v_, shown_digits_ != 0 ? shown_digits_ : digits_);
            default:
                return raw();
        }
    }
    /// A size as the text table prints it in a column of sizes: in `shift`'s unit (size_column_shift), exact;
    /// shift 0 is bytes; not_sizes, as display().
    static constexpr unsigned not_sizes = 64;
    std::string display_in(unsigned shift) const {
        if (kind_ != kind::size || shift == not_sizes) return display();
        if (shift == 0) return raw();
        return size_in_unit(u_, shift);
    }
    /// The number of 2^shift units in v, exactly (at most three decimals: size_column_shift chose the unit), and
    /// the unit's name.
    static std::string size_in_unit(std::uint64_t v, unsigned shift) {
        const std::uint64_t unit = std::uint64_t{1} << shift, rest = v & (unit - 1);
        std::string out = std::to_string(v >> shift);
        if (rest != 0) {
            const std::uint64_t grain = std::uint64_t{1} << (shift - 3);  // rest x 1000 / unit == rest / grain x 125
            std::string milli = std::to_string(1000 + rest / grain * 125).substr(1);
            while (milli.back() == '0') milli.pop_back();
            out += "." + milli;
        }
        // The unit's name as format_size spells it: 2^shift bytes print as 1 and the name ("1GiB"), a byte as "1".
        const std::string one(format_size(bytes(std::uint64_t{1} << shift)).view());
        return out + one.substr(1);
    }
    /// Whether v is a whole number of 2^shift units to three decimals (the exactness format_size keeps).
    static bool exact_in_unit(std::uint64_t v, unsigned shift) {
        return shift == 0 || (v & ((std::uint64_t{1} << (shift - 3)) - 1)) == 0;
    }
    /// The value as JSON (sizes in bytes, flags true or false, reals JSON cannot hold as null).
    void write_json(json_writer& w) const {
        switch (kind_) {
            case kind::empty:
                return w.null();
            case kind::flag:
                return w.boolean(u_ != 0);
            case kind::text:
                return w.string(s_);
            case kind::real:
                return w.token(v_ == v_ && v_ - v_ == 0.0 ? decimal_text(v_, digits_) : std::string("null"));
            case kind::signed_integer:
                return w.number(i_);
            case kind::unsigned_integer:
            case kind::size:
                return w.number(u_);
        }
    }
    bool right_aligned() const { return kind_ != kind::text && kind_ != kind::flag; }

private:
    cell(kind k, std::uint64_t u, std::int64_t i, double v, std::string s)
        : kind_(k), u_(u), i_(i), v_(v), s_(std::move(s)) {}
    // CSV: positional, never an exponent; `digits_` significant digits, or (0) the shortest text that reads back
    // as the same double.
    std::string real_text() const { return decimal_text(v_, digits_); }

    kind kind_ = kind::empty;
    std::uint64_t u_ = 0;
    std::int64_t i_ = 0;
    double v_ = 0.0;
    int digits_ = 6;
    int shown_digits_ = 0;  // the text table's significant digits (0: digits_)
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
    /// The text table prints each column of sizes in one unit (size_column_shift): for tables of outcomes, where
    /// sizes are compared down a column (a pool's end size at each rate). Tables of settings (block sizes, a
    /// sequence of extends) keep each size's own shortest exact form.
    void one_size_unit_per_column() { one_unit_ = true; }
    const std::vector<std::vector<cell>>& rows() const { return rows_; }
    /// The columns the text table prints, in this order (CSV and JSON print every column): names of columns(), or
    /// "all". An unknown name is a usage error naming `option` and the columns there are.
    void text_columns(const std::vector<std::string>& names, const char* option = "--columns") {
        text_.clear();
        for (const std::string& n : names) {
            if (n == "all") {
                text_.clear();
                return;
            }
            const auto it = std::find(columns_.begin(), columns_.end(), n);
            if (it == columns_.end()) {
                std::string known;
                for (const std::string& c : columns_) known += (known.empty() ? "" : ",") + c;
                throw usage_error(std::string(option) + ": unknown column '" + args::printable(n) +
                                  "' (all, or some of " + known + ")");
            }
            text_.push_back(static_cast<std::size_t>(it - columns_.begin()));
        }
    }

    /// Prints in the given format (svg is not a table format: the caller draws it).
    void print(std::FILE* out, format f) const {
        const std::string s = str(f);
        std::fwrite(s.data(), 1, s.size(), out);
    }

    /// The table printed in the given format, as a string.
    std::string str(format f) const {
        std::string out;
        switch (f) {
            case format::csv:
                write_csv(out);
                break;
            case format::json: {
                json_writer w(out);
                write_json(w);
                break;
            }
            default:
                write_text(out);
                break;
        }
        return out;
    }

    /// A header row, then one row per row (RFC 4180; cells as raw values).
    void write_csv(std::string& out) const {
        csv_writer w(out);
        for (const auto& c : columns_) w.field(c);
        w.end_row();
        for (const auto& row : rows_) {
            for (const auto& c : row) w.field(c.raw());
            w.end_row();
        }
    }

    /// An array of objects, one per row, named by the columns.
    void write_json(json_writer& w) const {
        w.begin_array();
        for (std::size_t r = 0; r < rows_.size(); ++r) write_json_row(w, r);
        w.end_array();
    }

    /// Row r as one JSON object, named by the columns.
    void write_json_row(json_writer& w, std::size_t r) const {
        w.begin_object();
        for (std::size_t c = 0; c < columns_.size(); ++c) {
            w.key(columns_[c]);
            rows_[r][c].write_json(w);
        }
        w.end_object();
    }

    void print_text(std::FILE* out) const {
        std::string s;
        write_text(s);
        std::fwrite(s.data(), 1, s.size(), out);
    }

    /// The unit a column of sizes is printed in, one for all its rows: the largest IEC unit, no larger than the
    /// column's largest size, in which every size is exact to three decimals (0: bytes; cell::not_sizes: a column
    /// with other cells than sizes, or none).
    /// 2516584MiB and 2TiB in one column print as 2516584MiB and 2097152MiB, not in two units.
    unsigned size_column_shift(std::size_t c) const {
        std::uint64_t largest = 0;
        bool any = false;
        for (const auto& row : rows_) {
            if (row[c].type() == cell::kind::empty) continue;
            if (row[c].type() != cell::kind::size) return cell::not_sizes;
            any = true;
            largest = std::max<std::uint64_t>(largest, std::stoull(row[c].raw()));
        }
        for (unsigned shift = 60; shift >= 10; shift -= 10) {  // the IEC units, EiB to KiB, largest first
            if (largest < (std::uint64_t{1} << shift)) continue;
            bool exact = true;
            for (const auto& row : rows_)
                if (row[c].type() == cell::kind::size)
                    exact = exact && cell::exact_in_unit(std::stoull(row[c].raw()), shift);
            if (exact) return shift;
        }
        return any ? 0 : cell::not_sizes;
    }

    /// Aligned columns: numbers to the right, text to the left, two spaces between; a column of sizes in one unit.
    /// Only the text_columns() when they were chosen.
    void write_text(std::string& out) const {
        std::vector<std::size_t> cols = text_;
        if (cols.empty())
            for (std::size_t c = 0; c < columns_.size(); ++c) cols.push_back(c);
        std::vector<std::size_t> width(cols.size());
        std::vector<unsigned> shift(cols.size());
        for (std::size_t i = 0; i < cols.size(); ++i) {
            width[i] = columns_[cols[i]].size();
            shift[i] = one_unit_ ? size_column_shift(cols[i]) : cell::not_sizes;
        }
        std::vector<std::vector<std::string>> shown;
        for (const auto& row : rows_) {
            std::vector<std::string> s;
            for (std::size_t i = 0; i < cols.size(); ++i) {
                s.push_back(row[cols[i]].display_in(shift[i]));
                if (s.back().size() > width[i]) width[i] = s.back().size();
            }
            shown.push_back(std::move(s));
        }
        auto pad = [&](const std::string& s, std::size_t w, bool right) {
            const std::string fill(w > s.size() ? w - s.size() : 0, ' ');
            return right ? fill + s : s + fill;
        };
        std::string line;
        for (std::size_t i = 0; i < cols.size(); ++i) {
            const bool right = !rows_.empty() && rows_[0][cols[i]].right_aligned();
            line += (i ? "  " : "") + pad(columns_[cols[i]], width[i], right);
        }
        (out += rtrim(line)) += '\n';
        for (std::size_t r = 0; r < shown.size(); ++r) {
            line.clear();
            for (std::size_t i = 0; i < cols.size(); ++i)
                line += (i ? "  " : "") + pad(shown[r][i], width[i], rows_[r][cols[i]].right_aligned());
            (out += rtrim(line)) += '\n';
        }
    }

private:
    static std::string rtrim(std::string s) {
        while (!s.empty() && s.back() == ' ') s.pop_back();
        return s;
    }

    std::vector<std::string> columns_;
    std::vector<std::vector<cell>> rows_;
    std::vector<std::size_t> text_;  // the columns the text table prints; empty: all
    bool one_unit_ = false;
};

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_TABLE_HPP
