// Fuzzes provpol's parsers against an independent reading of the documented grammar (parse.hpp's header):
// whatever the input, parse_size, parse_rate, parse_count and parse_decimal accept exactly the texts the grammar
// allows, with exactly the value it gives (computed here with arbitrary-precision integers, and strtod for
// decimals), and every value they print reads back unchanged.
#include "fuzz_check.hpp"

#include <provpol/parse.hpp>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using provpol::bytes;

// A non-negative integer of any size, base 2^32, least significant limb first.
struct big {
    std::vector<std::uint32_t> limbs;
    void mul_add(std::uint32_t m, std::uint32_t a) {
        std::uint64_t carry = a;
        for (auto& l : limbs) {
            const std::uint64_t v = static_cast<std::uint64_t>(l) * m + carry;
            l = static_cast<std::uint32_t>(v);
            carry = v >> 32;
        }
        if (carry) limbs.push_back(static_cast<std::uint32_t>(carry));
    }
    std::uint32_t div_small(std::uint32_t d) {  // returns the remainder
        std::uint64_t rem = 0;
        for (std::size_t i = limbs.size(); i > 0; --i) {
            const std::uint64_t cur = (rem << 32) | limbs[i - 1];
            limbs[i - 1] = static_cast<std::uint32_t>(cur / d);
            rem = cur % d;
        }
        while (!limbs.empty() && limbs.back() == 0) limbs.pop_back();
        return static_cast<std::uint32_t>(rem);
    }
    bool fits_u64() const { return limbs.size() <= 2; }
    std::uint64_t u64() const {
        return (limbs.size() > 0 ? limbs[0] : 0) | (limbs.size() > 1 ? static_cast<std::uint64_t>(limbs[1]) << 32 : 0);
    }
};

bool digit(char c) { return c >= '0' && c <= '9'; }

// The grammar's reading of a size: 0 = rejected, 1 = accepted with value, 2 = too large (the parser's overflow).
// `round` reads it as a rate's size does: to the nearest whole byte, half up (at most 60 digits after the point).
int reference_size(const std::string& s, std::uint64_t& value, bool round = false) {
    std::size_t i = 0;
    while (i < s.size() && digit(s[i])) ++i;
    if (i == 0) return 0;
    const std::string whole = s.substr(0, i);
    std::string frac;
    if (i < s.size() && s[i] == '.') {
        const std::size_t f0 = ++i;
        while (i < s.size() && digit(s[i])) ++i;
        if (i == f0) return 0;
        frac = s.substr(f0, i - f0);
    }
    const std::string unit = s.substr(i);
    int shift = 0, power = 0;  // 2^shift (IEC) or 10^(3 * power) (SI)
    if (unit == "kB" || unit == "KB")
        power = 1;
    else if (unit == "MB")
        power = 2;
    else if (unit == "GB")
        power = 3;
    else if (unit == "TB")
        power = 4;
    else if (unit == "PB")
        power = 5;
    else if (unit == "EB")
        power = 6;
    else if (unit.empty() || unit == "B")
        shift = 0;
    else if (unit == "KiB")
        shift = 10;
    else if (unit == "MiB")
        shift = 20;
    else if (unit == "GiB")
        shift = 30;
    else if (unit == "TiB")
        shift = 40;
    else if (unit == "PiB")
        shift = 50;
    else if (unit == "EiB")
        shift = 60;
    else
        return 0;
    if (round) {
        std::string t = frac;
        while (!t.empty() && t.back() == '0') t.pop_back();
        if (t.size() > 60) return 0;
    }
    // (whole * 10^k + frac) * 2^shift (or 10^(3 * power)) / 10^k, exactly; rounding on the first digit dropped.
    big n;
    for (char c : whole) n.mul_add(10, static_cast<std::uint32_t>(c - '0'));
    for (char c : frac) n.mul_add(10, static_cast<std::uint32_t>(c - '0'));
    for (int k = 0; k < shift; ++k) n.mul_add(2, 0);
    for (int k = 0; k < 3 * power; ++k) n.mul_add(10, 0);
    bool inexact = false;
    std::uint32_t first_dropped = 0;
    for (std::size_t k = 0; k < frac.size(); ++k) {
        first_dropped = n.div_small(10);
        inexact = inexact || first_dropped != 0;
    }
    if (inexact && !round) {
        // Not a whole number of bytes -- unless the integer part alone already overflows, in which case the
        // parser may say either; the caller accepts both.
        return 3;
    }
    if (inexact && first_dropped >= 5) n.mul_add(1, 1);
    if (!n.fits_u64()) return 2;
    value = n.u64();
    return 1;
}

// The grammar's reading of a decimal: digits, optional fraction, optional exponent, at most 15 significant digits
// (zeros after the last nonzero digit of the digit string do not count), and an exponent that keeps the
// significant digits within 10^-22 .. 10^22 of their integer value.
bool reference_decimal_syntax(const std::string& s, bool allow_negative) {
    std::size_t i = 0;
    if (i < s.size() && s[i] == '-') {
        if (!allow_negative) return false;
        ++i;
    }
    const std::size_t d0 = i;
    while (i < s.size() && digit(s[i])) ++i;
    if (i == d0) return false;
    std::string digits = s.substr(d0, i - d0);
    long exp10 = 0;
    if (i < s.size() && s[i] == '.') {
        const std::size_t f0 = ++i;
        while (i < s.size() && digit(s[i])) ++i;
        if (i == f0) return false;
        digits += s.substr(f0, i - f0);
        exp10 -= static_cast<long>(i - f0);
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        bool neg = false;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
        const std::size_t e0 = i;
        long e = 0;
        while (i < s.size() && digit(s[i])) {
            if (e < 100000) e = e * 10 + (s[i] - '0');
            ++i;
        }
        if (i == e0) return false;
        exp10 += neg ? -e : e;
    }
    if (i != s.size()) return false;
    std::size_t first = 0;
    while (first < digits.size() && digits[first] == '0') ++first;
    if (first == digits.size()) return true;  // zero: any exponent
    std::size_t last = digits.size();
    while (digits[last - 1] == '0') --last;
    exp10 += static_cast<long>(digits.size() - last);
    if (last - first > 15) return false;
    return exp10 >= -22 && exp10 <= 22;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > 4096) return 0;
    const std::string text(reinterpret_cast<const char*>(data), size);

    // --- sizes --------------------------------------------------------------------------------------------------
    std::uint64_t want = 0;
    const int ref = reference_size(text, want);
    const auto got = provpol::parse_size(text);
    if (ref == 1) {
        PROVPOL_FUZZ_CHECK(got.has_value());
        PROVPOL_FUZZ_CHECK(got->count() == want);
    } else if (ref == 0 || ref == 3) {
        PROVPOL_FUZZ_CHECK(!got.has_value());
    } else {
        PROVPOL_FUZZ_CHECK(!got.has_value() && got.error().code() == provpol::errc::overflow);
    }
    if (got) {  // what format_size prints reads back
        const auto again = provpol::parse_size(provpol::format_size(*got));
        PROVPOL_FUZZ_CHECK(again.has_value() && *again == *got);
    } else {
        PROVPOL_FUZZ_CHECK(got.error().message().size() > 0);
    }

    // --- rates --------------------------------------------------------------------------------------------------
    const auto r = provpol::parse_rate(text);
    const bool rate_syntax = text.size() >= 2 && text.compare(text.size() - 2, 2, "/s") == 0;
    if (rate_syntax) {
        std::uint64_t rv = 0;
        const int rref = reference_size(text.substr(0, text.size() - 2), rv, true);
        PROVPOL_FUZZ_CHECK(r.has_value() == (rref == 1));
        if (r) {
            PROVPOL_FUZZ_CHECK(r->bytes_per_second() == rv);
            const auto back = provpol::parse_rate(provpol::format_rate(*r));
            PROVPOL_FUZZ_CHECK(back.has_value() && *back == *r);
        }
    } else {
        PROVPOL_FUZZ_CHECK(!r.has_value());
    }

    // --- counts: digits only, in [lo, hi] -----------------------------------------------------------------------
    const std::uint64_t lo = size > 0 ? data[0] % 7 : 0, hi = size > 1 ? lo + data[1] * 1000ULL : lo;
    const auto c = provpol::parse_count(text, "n", lo, hi);
    bool all_digits = !text.empty();
    for (char ch : text) all_digits = all_digits && digit(ch);
    if (!all_digits) {
        PROVPOL_FUZZ_CHECK(!c.has_value() && c.error().code() == provpol::errc::invalid_syntax);
    } else if (c) {
        PROVPOL_FUZZ_CHECK(*c >= lo && *c <= hi);
        PROVPOL_FUZZ_CHECK(std::to_string(*c) == text.substr(text.find_first_not_of('0') == std::string::npos
                                                                 ? text.size() - 1
                                                                 : text.find_first_not_of('0')));
    }

    // --- decimals: the grammar, and the value strtod gives (correctly rounded) -----------------------------------
    const bool neg_ok = size > 2 && (data[2] & 1);
    const double dlo = neg_ok ? -1e300 : 0.0;
    const auto d = provpol::parse_decimal(text, "x", dlo, 1e300);
    const bool syntax = reference_decimal_syntax(text, neg_ok);
    PROVPOL_FUZZ_CHECK(d.has_value() == syntax);
    if (d) {
        errno = 0;
        const double want_d = std::strtod(text.c_str(), nullptr);
        PROVPOL_FUZZ_CHECK(*d == want_d);
    }
    return 0;
}
