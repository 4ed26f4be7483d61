// provpol/parse.hpp - reading and printing sizes, rates, counts and decimals, for command lines, config
// files and agents. Strict and exact: a text is either read exactly as written or rejected with an error
// that quotes it; nothing wraps around, nothing is rounded silently, nothing depends on the locale.
//
// Grammar (no spaces, no sign, case-sensitive):
//   size    := number [unit]          "1048576", "512MiB", "2.5GiB", "4096B"
//   number  := digit+ ["." digit+]
//   unit    := "B" | "KiB" | "MiB" | "GiB" | "TiB" | "PiB" | "EiB"    (powers of 1024)
//            | "kB" | "KB" | "MB" | "GB" | "TB" | "PB" | "EB"          (powers of 1000, as dd and fio read them)
//   rate    := size "/s"              "400MiB/s", "500MB/s", "8.2GiB/s"
//   count   := digit+
//   decimal := ["-"] digit+ ["." digit+] [("e" | "E") ["+" | "-"] digit+]     (at most 15 significant digits)
//
// A size must be a whole number of bytes: "1.5KiB" is 1536, "1.1KiB" is an error; a rate is not a byte count
// and is taken to the nearest byte per second. SI units are powers of 1000 ("2MB" is 2000000), as dd, fio and
// the disk vendors write them. One-letter units ("4k", "5G") are rejected rather than guessed: storage tools
// disagree on whether "k" means 1000 or 1024 (dd, lvm and parted all differ), and a size off by 7% is a bug that
// is found too late (the CLI reads LVM's own suffixes on LVM's options, as lvm does).
//
// parse_size, parse_rate, parse_count and parse_decimal are function templates with one defaulted parameter that is
// never named (`class Deferred = void`): their code is compiled in the translation units that call them, not in
// every one that includes provpol.hpp (docs/design.md, "Compile cost"). Call them as functions; taking one's
// address needs `<>` (&parse_size<>).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_PARSE_HPP
#define PROVPOL_PARSE_HPP

#include "bytes.hpp"
#include "config.hpp"
#include "detail/format.hpp"
#include "result.hpp"

#include <cstdint>

namespace provpol {

/// Printed size or rate: a short NUL-terminated string held by value.
using size_text = fixed_string<40>;

namespace detail {

inline constexpr char decimal_grammar[] = "expected a decimal number such as 0.5, 3.7 or 1e-3";
inline constexpr char size_grammar[] =
    "expected a size such as 1048576, 512MiB or 2.5GiB (units: B, KiB, MiB, GiB, TiB, PiB, EiB; kB, MB, GB, TB, PB, "
    "EB)";

constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// The shift of an IEC unit name, or -1. "" and "B" are bytes.
constexpr int unit_shift(text_view u) noexcept {
    if (u.empty() || u == "B") return 0;
    for (const iec_unit& iu : iec_units)
        if (u == iu.name) return static_cast<int>(iu.shift);
    return -1;
}

}  // namespace detail

namespace detail {

// The power of 1000 of an SI unit name ("kB" or "KB" 1, "MB" 2, ... "EB" 6), or -1.
constexpr int si_unit_power(text_view u) noexcept {
    constexpr const char* names[] = {"kB", "MB", "GB", "TB", "PB", "EB"};
    if (u == "KB") return 1;
    for (int i = 0; i < 6; ++i)
        if (u == names[i]) return i + 1;
    return -1;
}

// parse_size and parse_rate: `round` takes a value that is not a whole number of bytes to the nearest one (half
// up) instead of refusing it.
// long: one scanner (number, fraction, unit), each refusal with its own message
template <class Deferred = void>
PROVPOL_NODISCARD constexpr result<bytes> parse_size_rounding(text_view text, const char* setting,
                                                              bool round) noexcept {
    constexpr std::uint64_t max64 = max_u64;
    if (text.empty())
        return unexpected(
            error::invalid_syntax(setting, text, "empty; expected a size such as 1048576, 512MiB or 2.5GiB"));
    if (text[0] == '-') return unexpected(error::invalid_syntax(setting, text, "sizes cannot be negative"));
    for (char c : text)
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            return unexpected(
                error::invalid_syntax(setting, text, "spaces are not accepted (write 512MiB, not 512 MiB)"));

    std::size_t i = 0;
    std::uint64_t whole = 0;
    bool overflow = false;
    const std::size_t int_begin = i;
    while (i < text.size() && is_digit(text[i])) {
        const auto d = static_cast<std::uint64_t>(text[i] - '0');
        if (whole > (max64 - d) / 10)
            overflow = true;
        else
            whole = whole * 10 + d;
        ++i;
    }
    if (i == int_begin) return unexpected(error::invalid_syntax(setting, text, size_grammar));

    // Fraction digits, trailing zeros dropped.
    text_view frac;
    if (i < text.size() && text[i] == '.') {
        const std::size_t f0 = ++i;
        while (i < text.size() && is_digit(text[i])) ++i;
        if (i == f0) return unexpected(error::invalid_syntax(setting, text, size_grammar));
        frac = text.substr(f0, i - f0);
        while (!frac.empty() && frac.back() == '0') frac.remove_suffix(1);
    }

    const text_view unit = text.substr(i);
    const int shift = unit_shift(unit);
    const int power = shift < 0 ? si_unit_power(unit) : -1;
    if (shift < 0 && power < 0)
        return unexpected(error::invalid_syntax(setting, text,
                                                "unknown unit: use B, KiB, MiB, GiB, TiB, PiB, EiB or kB, MB, GB, TB, "
                                                "PB, EB (powers of 1000, as dd and fio read them; k, M, G are "
                                                "ambiguous and not accepted)"));
    if (overflow) return unexpected(error::overflow(setting, text, error_value::of(max64)));

    if (power > 0) {  // SI: value = whole * 10^z + frac * 10^z / 10^k, z = 3 * power
        const std::size_t z = 3 * static_cast<std::size_t>(power);
        std::uint64_t scale = 1;
        for (std::size_t j = 0; j < z; ++j) scale *= 10;
        if (whole > max64 / scale) return unexpected(error::overflow(setting, text, error_value::of(max64)));
        std::uint64_t frac_bytes = 0;
        for (std::size_t j = 0; j < z; ++j)
            frac_bytes = frac_bytes * 10 + (j < frac.size() ? static_cast<std::uint64_t>(frac[j] - '0') : 0);
        if (frac.size() > z) {
            if (!round) return unexpected(error::invalid_syntax(setting, text, "not a whole number of bytes"));
            if (frac[z] >= '5') ++frac_bytes;
        }
        const std::uint64_t base = whole * scale;
        if (base > max64 - frac_bytes) return unexpected(error::overflow(setting, text, error_value::of(max64)));
        return bytes(base + frac_bytes);
    }

    // value = whole * 2^shift + frac * 2^shift / 10^k, which must be a whole number of bytes. frac * 2^s / 10^k
    // (frac without trailing zeros, so odd or not a multiple of 5) is whole only if k <= s <= 60: doubling the
    // fraction's digits s times, exactly, carries its integer part out and must leave only zeros.
    std::uint64_t frac_bytes = 0;
    if (!frac.empty()) {
        if (frac.size() > 60)  // not whole for any unit up to 2^60; for a rate, more digits than it reads
            return unexpected(error::invalid_syntax(setting, text,
                                                    round ? static_text("more than 60 digits after the point")
                                                          : static_text("not a whole number of bytes")));
        char digits[60] = {};
        const std::size_t k = frac.size();
        for (std::size_t j = 0; j < k; ++j) digits[j] = static_cast<char>(frac[j] - '0');
        for (int d = 0; d < shift; ++d) {
            int carry = 0;
            for (std::size_t j = k; j > 0; --j) {
                const int v = digits[j - 1] * 2 + carry;
                digits[j - 1] = static_cast<char>(v % 10);
                carry = v / 10;
            }
            frac_bytes = frac_bytes * 2 + static_cast<std::uint64_t>(carry);  // < 2^shift <= 2^60
        }
        bool rest = false;
        for (std::size_t j = 0; j < k; ++j) rest = rest || digits[j] != 0;
        if (rest && !round) return unexpected(error::invalid_syntax(setting, text, "not a whole number of bytes"));
        if (rest && digits[0] >= 5) ++frac_bytes;  // the remainder's first digit: half up
    }
    if (shift != 0 && whole > (max64 >> shift))
        return unexpected(error::overflow(setting, text, error_value::of(max64)));
    const std::uint64_t base = whole << shift;
    if (base > max64 - frac_bytes) return unexpected(error::overflow(setting, text, error_value::of(max64)));
    return bytes(base + frac_bytes);
}

}  // namespace detail

/// Reads a size (see the grammar above). `setting` names what is being read in error messages.
template <class Deferred = void>
PROVPOL_NODISCARD constexpr result<bytes> parse_size(text_view text, const char* setting = "size") noexcept {
    return detail::parse_size_rounding<Deferred>(text, setting, false);
}

/// Reads a rate: a size followed by "/s" ("400MiB/s", "1048576/s", "500MB/s"). A rate is not a byte count: one
/// with a fraction of a byte per second ("8.2GiB/s") is taken to the nearest whole byte per second.
template <class Deferred = void>
PROVPOL_NODISCARD constexpr result<rate> parse_rate(text_view text, const char* setting = "rate") noexcept {
    constexpr text_view suffix = "/s";
    if (text.size() < suffix.size() || text.substr(text.size() - suffix.size()) != suffix)
        return unexpected(error::invalid_syntax(setting, text, "expected a rate such as 400MiB/s"));
    const text_view size_part = text.substr(0, text.size() - suffix.size());
    const result<bytes> b = detail::parse_size_rounding<Deferred>(size_part, setting, true);
    if (!b) return unexpected(b.error().with_text(text));  // quote all the user wrote, "/s" included
    return rate(b->count());
}

/// Reads an unsigned integer in [lo, hi].
template <class Deferred = void>
PROVPOL_NODISCARD constexpr result<std::uint64_t> parse_count(text_view text, const char* setting, std::uint64_t lo = 0,
                                                              std::uint64_t hi = detail::max_u64) noexcept {
    if (text.empty()) return unexpected(error::invalid_syntax(setting, text, "empty; expected a whole number"));
    std::uint64_t v = 0;
    bool overflow = false;
    for (char c : text) {
        if (!detail::is_digit(c))
            return unexpected(error::invalid_syntax(setting, text, "expected a whole number such as 20"));
        const auto d = static_cast<std::uint64_t>(c - '0');
        if (v > (detail::max_u64 - d) / 10)
            overflow = true;
        else
            v = v * 10 + d;
    }
    if (overflow) return unexpected(error::overflow(setting, text, error_value::of(hi)));
    if (v > hi || v < lo)
        return unexpected(error::out_of_range(setting, error_value::of(v), error_value::of(lo), error_value::of(hi)));
    return v;
}

/// Reads a decimal number in [lo, hi] (see the grammar above; no "nan", "inf" or hexadecimal). The value is
/// the double nearest to the decimal written: at most 15 significant digits and a decimal exponent within
/// +-22 of them keep the conversion exact (one correctly rounded multiplication or division).
template <class Deferred = void>
PROVPOL_NODISCARD result<double> parse_decimal(text_view text, const char* setting, double lo, double hi) noexcept {
    using detail::is_digit;
    constexpr const auto& grammar = detail::decimal_grammar;
    if (text.empty()) return unexpected(error::invalid_syntax(setting, text, "empty; expected a decimal number"));
    std::size_t i = 0;
    bool negative = false;
    if (text[0] == '-') {
        if (lo >= 0.0) return unexpected(error::invalid_syntax(setting, text, "negative values are not accepted"));
        negative = true;
        ++i;
    }
    std::uint64_t mantissa = 0;
    int digits = 0;         // significant digits kept in mantissa
    int exponent = 0;       // decimal exponent applied to mantissa
    int pending_zeros = 0;  // zeros seen after the last nonzero digit, not yet in the mantissa
    bool any = false;
    auto take = [&](char c, bool after_point) -> bool {
        any = true;
        if (after_point) --exponent;
        if (c == '0') {
            if (digits > 0) ++pending_zeros;
            return true;
        }
        // Flush pending zeros into the mantissa, then the digit.
        if (digits + pending_zeros + 1 > 15) return false;
        for (; pending_zeros > 0; --pending_zeros) {
            mantissa *= 10;
            ++digits;
        }
        mantissa = mantissa * 10 + static_cast<std::uint64_t>(c - '0');
        ++digits;
        return true;
    };
    const std::size_t int_begin = i;
    for (; i < text.size() && is_digit(text[i]); ++i)
        if (!take(text[i], false))
            return unexpected(error::invalid_syntax(setting, text, "more than 15 significant digits"));
    if (i == int_begin) return unexpected(error::invalid_syntax(setting, text, grammar));
    if (i < text.size() && text[i] == '.') {
        const std::size_t f0 = ++i;
        for (; i < text.size() && is_digit(text[i]); ++i)
            if (!take(text[i], true))
                return unexpected(error::invalid_syntax(setting, text, "more than 15 significant digits"));
        if (i == f0) return unexpected(error::invalid_syntax(setting, text, grammar));
    }
    // Zeros after the last significant digit scale by ten each.
    exponent += pending_zeros;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        bool eneg = false;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) eneg = text[i++] == '-';
        const std::size_t e0 = i;
        int e = 0;
        for (; i < text.size() && is_digit(text[i]); ++i) {
            if (e < 10000) e = e * 10 + (text[i] - '0');
        }
        if (i == e0) return unexpected(error::invalid_syntax(setting, text, grammar));
        exponent += eneg ? -e : e;
    }
    if (i != text.size() || !any) return unexpected(error::invalid_syntax(setting, text, grammar));

    constexpr double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    double v = 0.0;
    if (mantissa != 0) {
        if (exponent > 22 || exponent < -22)
            return unexpected(
                error::invalid_syntax(setting, text, "decimal exponent beyond the exactly readable +-22"));
        v = static_cast<double>(mantissa);  // exact: < 10^15 < 2^53
        v = exponent >= 0 ? v * pow10[exponent] : v / pow10[-exponent];
    }
    if (negative) v = -v;
    if (v < lo || v > hi)
        return unexpected(
            error::out_of_range(setting, error_value::of_real(v), error_value::of_real(lo), error_value::of_real(hi)));
    return v;
}

/// Prints a size exactly and briefly: "2.5GiB", "1127MiB", "1000". parse_size(format_size(b)) == b. (A template only so
/// that it is compiled where it is called.)
template <class Deferred = void>
PROVPOL_NODISCARD constexpr size_text format_size(bytes b) noexcept {
    size_text t;
    detail::append_size(t, b.count());
    return t;
}

/// Prints a rate exactly: "400MiB/s". parse_rate(format_rate(r)) == r. (A template only so that it is compiled where it
/// is called.)
template <class Deferred = void>
PROVPOL_NODISCARD constexpr size_text format_rate(rate r) noexcept {
    size_text t;
    detail::append_size(t, r.bytes_per_second());
    t.append("/s");
    return t;
}

}  // namespace provpol

#endif  // PROVPOL_PARSE_HPP
