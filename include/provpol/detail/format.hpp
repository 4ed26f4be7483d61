// provpol/detail/format.hpp - the size formatting behind error messages and format_size (fixed_string is in
// text.hpp). No allocation, no <string> (text_view converts from a fixed_string): error messages are
// formatted on demand into a buffer the caller holds by value.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_DETAIL_FORMAT_HPP
#define PROVPOL_DETAIL_FORMAT_HPP

#include "../config.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include "../text.hpp"

namespace provpol {

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
