// --rate as a range, for the commands whose answer must hold whatever the rate within it (recommend, capacity): a
// rate known to +-20% is a range, and an answer for its middle may miss at its top. Written as the README's rates
// are: LOW-HIGH (400-600MiB/s, the unit written once at the end; or 400MiB/s-600MiB/s), or RATE+-P% (500MiB/s+-20%,
// also with the sign U+00B1: 500MiB/s±20%). The answer is checked at rate_grid_points rates spread evenly over the
// range, its ends included: the quantities checked are not monotone in the rate, so a range is not two rates.
#ifndef PROVPOL_CLI_RATE_RANGE_HPP
#define PROVPOL_CLI_RATE_RANGE_HPP

#include "common/cli.hpp"

#include <provpol/bytes.hpp>
#include <provpol/parse.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace provpol::cli {

/// The rates a range is checked at: its ends and the three quarter points between them.
inline constexpr std::uint64_t rate_grid_points = 5;

/// A rate or a range of rates, as given.
struct rate_range {
    rate low{}, high{};
    std::string text;  ///< as typed, for the output

    PROVPOL_NODISCARD bool is_range() const { return low.bytes_per_second() != high.bytes_per_second(); }
    /// The rates checked: `low` alone, or rate_grid_points from low to high (whole bytes per second, rounded to the
    /// nearest; repeated rates of a narrow range kept once).
    PROVPOL_NODISCARD std::vector<rate> grid() const {
        if (!is_range()) return {low};
        std::vector<rate> out;
        const auto lo = static_cast<double>(low.bytes_per_second()), hi = static_cast<double>(high.bytes_per_second());
        for (std::uint64_t i = 0; i < rate_grid_points; ++i) {
            const double x = lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(rate_grid_points - 1);
            const rate r(i + 1 == rate_grid_points ? high.bytes_per_second()
                                                   : static_cast<std::uint64_t>(std::llround(x)));
            if (out.empty() || out.back().bytes_per_second() != r.bytes_per_second()) out.push_back(r);
        }
        return out;
    }
};

namespace detail_rate {

// One rate of a range; `unit`, when the text has none ("400" of 400-600MiB/s), is the other end's.
inline rate one_rate(std::string text, const std::string& unit, const char* name, const std::string& whole) {
    if (text.find_first_not_of("0123456789.") == std::string::npos) text += unit;
    const auto r = parse_rate(text, name);
    if (!r) fail(r.error().with_text(text_view(whole.data(), whole.size())), name);
    return *r;
}

}  // namespace detail_rate

/// `v` of option `name` as a rate or a range (see the header comment). Usage errors name the option and the value:
/// a rate that does not parse, a range whose low end is above its high end or at 0, a +- percent outside [0, 100).
inline rate_range parse_rate_range(const std::string& v, const char* name) {
    rate_range out;
    out.text = args::printable(v);
    const std::string pm = "\xC2\xB1";  // U+00B1 PLUS-MINUS SIGN in UTF-8
    std::size_t at = v.find(pm);
    std::size_t width = pm.size();
    if (at == std::string::npos) at = v.find("+-"), width = 2;
    if (at != std::string::npos) {
        const rate mid = detail_rate::one_rate(v.substr(0, at), "", name, v);
        std::string pct = v.substr(at + width);
        if (pct.empty() || pct.back() != '%')
            throw usage_error(std::string(name) + ": '" + out.text + "': expected RATE+-P%, such as 500MiB/s+-20%");
        pct.pop_back();
        const auto p = parse_decimal(pct, name, 0.0, 99.999);
        if (!p) fail(p.error().with_text(text_view(v.data(), v.size())), name);
        const auto m = static_cast<double>(mid.bytes_per_second());
        out.low = rate(static_cast<std::uint64_t>(std::llround(m * (1.0 - *p / 100.0))));
        out.high = rate(static_cast<std::uint64_t>(std::llround(m * (1.0 + *p / 100.0))));
    } else if (const std::size_t dash = v.find('-'); dash != std::string::npos) {
        const std::string hi = v.substr(dash + 1);
        const std::size_t unit_at = hi.find_first_not_of("0123456789.");
        out.high = detail_rate::one_rate(hi, "", name, v);
        out.low =
            detail_rate::one_rate(v.substr(0, dash), unit_at == std::string::npos ? "" : hi.substr(unit_at), name, v);
        if (out.low.bytes_per_second() > out.high.bytes_per_second())
            throw usage_error(std::string(name) + ": '" + out.text + "': the low end is above the high end");
    } else {
        out.low = out.high = detail_rate::one_rate(v, "", name, v);
    }
    if (out.low.bytes_per_second() == 0) throw usage_error(std::string(name) + ": a rate of 0 writes nothing");
    return out;
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_RATE_RANGE_HPP
