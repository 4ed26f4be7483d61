// provpol/detail/format.hpp - fixed-capacity text, and the integer and size formatting behind error
// messages and format_size. No allocation, no <string> (text_view converts from a fixed_string): error messages are
// formatted on demand into a buffer the caller holds by value.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_DETAIL_FORMAT_HPP
#define PROVPOL_DETAIL_FORMAT_HPP

#include "../config.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include "text_view.hpp"

namespace provpol {

/// A NUL-terminated string of at most N - 1 characters, held by value. Text appended past the capacity is
/// dropped and the last characters replaced by "...", so a truncated message is visibly truncated.
template <std::size_t N>
class fixed_string {
    static_assert(N >= 8, "fixed_string: capacity must be at least 8");

public:
    constexpr fixed_string() noexcept = default;

    /// The text, without the terminating NUL.
    PROVPOL_NODISCARD constexpr text_view view() const noexcept { return {buf_, size_}; }
    PROVPOL_NODISCARD constexpr const char* c_str() const noexcept { return buf_; }
    PROVPOL_NODISCARD constexpr const char* data() const noexcept { return buf_; }
    PROVPOL_NODISCARD constexpr std::size_t size() const noexcept { return size_; }
    PROVPOL_NODISCARD constexpr bool empty() const noexcept { return size_ == 0; }
    PROVPOL_NODISCARD static constexpr std::size_t capacity() noexcept { return N - 1; }

    constexpr fixed_string& append(text_view s) noexcept {
        for (char c : s) push(c);
        return *this;
    }
    constexpr fixed_string& append(char c) noexcept {
        push(c);
        return *this;
    }
    /// Appends a decimal unsigned integer.
    constexpr fixed_string& append_uint(std::uint64_t v) noexcept {
        char tmp[20] = {};
        int n = 0;
        do {
            tmp[n++] = static_cast<char>('0' + static_cast<int>(v % 10));
            v /= 10;
        } while (v != 0);
        while (n > 0) push(tmp[--n]);
        return *this;
    }
    /// Appends a decimal signed integer (INT64_MIN included).
    constexpr fixed_string& append_int(std::int64_t v) noexcept {
        if (v < 0) {
            push('-');
            return append_uint(static_cast<std::uint64_t>(-(v + 1)) + 1U);
        }
        return append_uint(static_cast<std::uint64_t>(v));
    }
    /// Appends a floating-point value with `digits` significant digits (printf's %g).
    fixed_string& append_double(double v, int digits = 6) noexcept {
        char tmp[40];
        const int n = std::snprintf(tmp, sizeof tmp, "%.*g", digits, v);
        if (n > 0)
            append(text_view(tmp,
                             static_cast<std::size_t>(n) < sizeof tmp ? static_cast<std::size_t>(n) : sizeof tmp - 1));
        return *this;
    }

    friend constexpr bool operator==(const fixed_string& a, text_view b) noexcept { return a.view() == b; }
    friend constexpr bool operator!=(const fixed_string& a, text_view b) noexcept { return a.view() != b; }

private:
    constexpr void push(char c) noexcept {
        if (size_ < N - 1) {
            buf_[size_++] = c;
            buf_[size_] = '\0';
        } else if (!truncated_) {
            truncated_ = true;
            for (std::size_t i = N - 4; i < N - 1; ++i) buf_[i] = '.';
        }
    }

    char buf_[N] = {};
    std::size_t size_ = 0;
    bool truncated_ = false;
};

namespace detail {

/// The IEC units format_size and parse_size know, largest first, with their shift (log2 of the unit).
struct iec_unit {
    const char* name;
    unsigned shift;
};
inline constexpr iec_unit iec_units[] = {{"EiB", 60}, {"PiB", 50}, {"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}};

/// Appends v bytes exactly and as briefly as possible: in the largest IEC unit in which v is at least 1
/// and has at most three decimals (2684354560 -> "2.5GiB", 1181745152 -> "1127MiB"), otherwise in plain
/// bytes ("1000"). parse_size reads every such text back to the same value.
template <std::size_t N>
constexpr void append_size(fixed_string<N>& out, std::uint64_t v) noexcept {
    for (const iec_unit& u : iec_units) {
        const std::uint64_t unit = std::uint64_t{1} << u.shift;
        if (v < unit) continue;
        const std::uint64_t whole = v >> u.shift;
        const std::uint64_t rest = v & (unit - 1);
        // rest / unit as a decimal has at most three digits iff rest * 1000 is a multiple of unit.
        // rest < 2^60, so rest * 1000 could overflow; rest * 125 / 2^(shift-3) avoids it (1000 = 8 * 125).
        if (rest != 0) {
            // rest * 1000 % 2^shift == 0  <=>  rest % 2^(shift-3) == 0 (125 is odd, shift >= 10).
            const std::uint64_t grain = std::uint64_t{1} << (u.shift - 3);
            if (rest % grain != 0) continue;
            std::uint64_t milli = (rest / grain) * 125;  // == rest * 1000 / unit, < 1000
            out.append_uint(whole);
            out.append('.');
            char digits[3] = {static_cast<char>('0' + milli / 100), static_cast<char>('0' + milli / 10 % 10),
                              static_cast<char>('0' + milli % 10)};
            int len = 3;
            while (len > 1 && digits[len - 1] == '0') --len;
            out.append(text_view(digits, static_cast<std::size_t>(len)));
        } else {
            out.append_uint(whole);
        }
        out.append(u.name);
        return;
    }
    out.append_uint(v);
}

}  // namespace detail
}  // namespace provpol

#endif  // PROVPOL_DETAIL_FORMAT_HPP
