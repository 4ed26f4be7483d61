// provpol/time.hpp - time as a type: provpol::seconds (std::chrono::duration<double>) for the latencies, periods,
// budgets and timeouts of the model layer, std::chrono's integral durations where a time is whole milliseconds,
// the literals 2_s, 2.5_s, 500_ms, 0.5_ms, 5_min, 1.5_min, 2_h and 0.5_h, and parse_seconds, which reads a command
// line's time once.
//
//   using namespace provpol::literals;
//   provpol::seconds t = 2_s + 500_ms;   // 2.5 s: an integral literal is exact, and converts to seconds
//   t.count();                           // 2.5, the model's own arithmetic unit
//   provpol::parse_seconds("500ms", "--budget").value() == 0.5_s
//
// Why std::chrono: its durations already are the strong type (no bare double passes as a time, and a time in
// milliseconds converts to seconds without a cast, never the other way round without one), and the model layer,
// which only tools include, may include <chrono>. The decisions (extend, log size, chunk) take no time and do not
// include this header; <chrono> costs 0.37 x <string>, this header 0.70 x (tools/compile_cost.sh --instructions).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_TIME_HPP
#define PROVPOL_TIME_HPP

#include "config.hpp"
#include "error.hpp"
#include "parse.hpp"
#include "result.hpp"
#include "text.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace provpol {

/// A time span in seconds, as a double: every latency, period, budget and timeout of the model layer.
using seconds = std::chrono::duration<double>;
/// A time span in whole milliseconds (std::chrono::milliseconds): budgets that are whole milliseconds.
using milliseconds = std::chrono::milliseconds;

/// `t` in seconds, as a double: where a model computes with the number itself.
PROVPOL_NODISCARD constexpr double in_seconds(seconds t) noexcept { return t.count(); }

/// Whether lo <= t <= hi; false when t is NaN. Validate times with it, not with >= and <=: std::chrono writes
/// a >= b as !(a < b), so a NaN duration compares >= and <= anything.
PROVPOL_NODISCARD constexpr bool within(seconds t, seconds lo, seconds hi) noexcept {
    return t.count() >= lo.count() && t.count() <= hi.count();
}

/// The error value for a time: printed in seconds ("0.5 s"), whatever unit the time was given in.
PROVPOL_NODISCARD constexpr error_value error_value_of(seconds t) noexcept {
    return error_value::of_seconds(t.count());
}

inline namespace literals {
// Integral literals are std::chrono's exact integral durations (2_s + 500_ms is 2500 ms); floating ones are
// provpol::seconds. Both convert to provpol::seconds implicitly. Every unit parse_seconds reads has both (1.5_min is
// 90 s, as parse_seconds reads "1.5min": minutes multiply by 60, hours by 3600).
constexpr std::chrono::seconds operator""_s(unsigned long long v) noexcept {
    return std::chrono::seconds(static_cast<std::chrono::seconds::rep>(v));
}
constexpr seconds operator""_s(long double v) noexcept { return seconds(static_cast<double>(v)); }
constexpr std::chrono::milliseconds operator""_ms(unsigned long long v) noexcept {
    return std::chrono::milliseconds(static_cast<std::chrono::milliseconds::rep>(v));
}
constexpr seconds operator""_ms(long double v) noexcept { return seconds(static_cast<double>(v) / 1000.0); }
constexpr std::chrono::minutes operator""_min(unsigned long long v) noexcept {
    return std::chrono::minutes(static_cast<std::chrono::minutes::rep>(v));
}
constexpr seconds operator""_min(long double v) noexcept { return seconds(static_cast<double>(v) * 60.0); }
constexpr std::chrono::hours operator""_h(unsigned long long v) noexcept {
    return std::chrono::hours(static_cast<std::chrono::hours::rep>(v));
}
constexpr seconds operator""_h(long double v) noexcept { return seconds(static_cast<double>(v) * 3600.0); }
}  // namespace literals

/// Reads a time: a decimal number (parse_decimal's grammar) followed by no unit or "s" (seconds), "ms"
/// (milliseconds), "min" (minutes) or "h" (hours), such as "2", "2.5s", "500ms", "1.5min" or "2h". The value is
/// the double nearest to the decimal in seconds (the unit moves the decimal exponent, so "1.5ms" is the double
/// nearest 0.0015, not 1.5 / 1000 rounded twice; minutes and hours multiply the number read). Errors name `setting`; a
/// time outside [lo, hi] is quoted in seconds.
PROVPOL_NODISCARD inline result<seconds> parse_seconds(text_view text, const char* setting, seconds lo = seconds(0.0),
                                                       seconds hi = seconds(1e9)) noexcept {
    std::size_t n = text.size();
    int shift = 0;        // the unit's power of ten (minutes and hours are a multiplication instead)
    double factor = 1.0;  // seconds per minute or hour
    const auto ends_with = [&](const char* suffix, std::size_t len) {
        if (n < len) return false;
        for (std::size_t i = 0; i < len; ++i)
            if (text[n - len + i] != suffix[i]) return false;
        return true;
    };
    if (ends_with("min", 3)) {
        n -= 3;
        factor = 60.0;
    } else if (ends_with("h", 1)) {
        n -= 1;
        factor = 3600.0;
    } else if (ends_with("ms", 2)) {
        n -= 2;
        shift = -3;
    } else if (ends_with("s", 1)) {
        n -= 1;
    }
    const text_view number = text.substr(0, n);
    // "-0" reads as zero: refused as negative before it can pass a range that starts at zero.
    if (!number.empty() && number[0] == '-' && lo >= seconds(0.0))
        return unexpected(error::invalid_syntax(setting, text, "negative times are not accepted"));
    if (number.empty())
        return unexpected(
            error::invalid_syntax(setting, text, "expected a time such as 2.5, 2.5s, 500ms, 1.5min or 2h"));
    for (std::size_t i = 0; i < number.size(); ++i)
        if (number[i] == 'e' || number[i] == 'E') {
            if (shift != 0 || factor != 1.0)
                return unexpected(error::invalid_syntax(setting, text, "an exponent takes no unit; write seconds"));
            break;
        }
    // The number's text with the unit's exponent appended ("1.5" "ms" -> "1.5e-3"), read once.
    char buf[80];
    if (number.size() + 4 > sizeof buf) return unexpected(error::invalid_syntax(setting, text, "too long"));
    std::size_t len = 0;
    for (std::size_t i = 0; i < number.size(); ++i) buf[len++] = number[i];
    if (shift != 0) {
        buf[len++] = 'e';
        buf[len++] = '-';
        buf[len++] = '3';
    }
    const auto v = parse_decimal(text_view(buf, len), setting, -1e300, 1e300);
    if (!v)
        return unexpected(
            error::invalid_syntax(setting, text, "expected a time such as 2.5, 2.5s, 500ms, 1.5min or 2h"));
    const seconds t(*v * factor);
    if (!within(t, lo, hi))
        return unexpected(error::out_of_range(setting, error_value_of(t), error_value_of(lo), error_value_of(hi)));
    return t;
}

}  // namespace provpol

#endif  // PROVPOL_TIME_HPP
