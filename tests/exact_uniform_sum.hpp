// An independent, exact reference for the CDF of a sum of independent uniforms, for the tests of
// flow/pipeline.hpp. Every double is a dyadic rational, so P(U_1 + ... + U_n <= x) with U_i uniform on
// [0, w_i) is computed here without rounding: the inclusion-exclusion sum over subsets in arbitrary-precision
// integers on a common power-of-two scale (no quantization: the scale is the finest ulp among the inputs), then one
// division to 64 significant bits. Slow and simple on purpose; it shares no code with the library.
#ifndef PROVPOL_TESTS_EXACT_UNIFORM_SUM_HPP
#define PROVPOL_TESTS_EXACT_UNIFORM_SUM_HPP

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace exact {

/// A non-negative integer of any size, little-endian 32-bit limbs.
struct big {
    std::vector<std::uint32_t> d;

    static big of(std::uint64_t v) {
        big b;
        while (v) {
            b.d.push_back(static_cast<std::uint32_t>(v));
            v >>= 32;
        }
        return b;
    }
    bool zero() const { return d.empty(); }
    void trim() {
        while (!d.empty() && d.back() == 0) d.pop_back();
    }
    std::size_t bits() const {
        if (d.empty()) return 0;
        std::size_t b = 32 * (d.size() - 1);
        for (std::uint32_t top = d.back(); top; top >>= 1) ++b;
        return b;
    }
    bool bit(std::size_t i) const { return i / 32 < d.size() && ((d[i / 32] >> (i % 32)) & 1u); }
};

inline int compare(const big& a, const big& b) {
    if (a.d.size() != b.d.size()) return a.d.size() < b.d.size() ? -1 : 1;
    for (std::size_t i = a.d.size(); i > 0; --i)  // counting down without wrapping past 0
        if (a.d[i - 1] != b.d[i - 1]) return a.d[i - 1] < b.d[i - 1] ? -1 : 1;
    return 0;
}
inline big add(const big& a, const big& b) {
    big r;
    std::uint64_t carry = 0;
    for (std::size_t i = 0; i < std::max(a.d.size(), b.d.size()) || carry; ++i) {
        const std::uint64_t s = carry + (i < a.d.size() ? a.d[i] : 0u) + (i < b.d.size() ? b.d[i] : 0u);
        r.d.push_back(static_cast<std::uint32_t>(s));
        carry = s >> 32;
    }
    r.trim();
    return r;
}
/// a - b, for a >= b.
inline big sub(const big& a, const big& b) {
    big r = a;
    std::int64_t borrow = 0;
    for (std::size_t i = 0; i < r.d.size(); ++i) {
        std::int64_t s = static_cast<std::int64_t>(r.d[i]) - borrow - (i < b.d.size() ? b.d[i] : 0);
        borrow = s < 0 ? 1 : 0;
        if (s < 0) s += std::int64_t{1} << 32;
        r.d[i] = static_cast<std::uint32_t>(s);
    }
    r.trim();
    return r;
}
inline big mul(const big& a, const big& b) {
    if (a.zero() || b.zero()) return {};
    big r;
    r.d.assign(a.d.size() + b.d.size(), 0);
    for (std::size_t i = 0; i < a.d.size(); ++i) {
        std::uint64_t carry = 0;
        for (std::size_t j = 0; j < b.d.size(); ++j) {
            const std::uint64_t t = std::uint64_t{a.d[i]} * b.d[j] + r.d[i + j] + carry;
            r.d[i + j] = static_cast<std::uint32_t>(t);
            carry = t >> 32;
        }
        for (std::size_t k = i + b.d.size(); carry; ++k) {
            const std::uint64_t t = std::uint64_t{r.d[k]} + carry;
            r.d[k] = static_cast<std::uint32_t>(t);
            carry = t >> 32;
        }
    }
    r.trim();
    return r;
}
inline big shl(const big& a, std::size_t n) {
    if (a.zero()) return {};
    big r;
    r.d.assign(n / 32, 0);
    std::uint32_t carry = 0;
    const unsigned s = static_cast<unsigned>(n % 32);
    for (std::uint32_t limb : a.d) {
        // The bits shifted out go to the next limb (masked first: no shift of a bit out of 32, which
        // -fsanitize=integer reports).
        r.d.push_back(s == 0 ? limb : ((limb & (0xffffffffu >> s)) << s) | carry);
        carry = s == 0 ? 0 : limb >> (32 - s);
    }
    if (carry) r.d.push_back(carry);
    r.trim();
    return r;
}

/// num / den as a long double, correct to 64 significant bits (den > 0).
inline long double ratio(const big& num, const big& den) {
    if (num.zero()) return 0.0L;
    // q = floor(num * 2^k / den) with about 70 significant bits, by binary long division.
    const long k = 70 + static_cast<long>(den.bits()) - static_cast<long>(num.bits());
    const big n = k > 0 ? shl(num, static_cast<std::size_t>(k)) : num;
    const big dd = k < 0 ? shl(den, static_cast<std::size_t>(-k)) : den;
    big rem;
    std::uint64_t q = 0;  // at most 72 bits are produced; keep the top 64 and count the rest
    int dropped = 0;
    for (std::size_t j = n.bits(); j > 0; --j) {
        const std::size_t i = j - 1;
        rem = shl(rem, 1);
        if (n.bit(i)) rem = add(rem, big::of(1));
        const bool one = compare(rem, dd) >= 0;
        if (one) rem = sub(rem, dd);
        if (q >> 63) {
            ++dropped;  // below 64 bits of precision: only its exponent matters
        } else {
            q = (q << 1) | (one ? 1u : 0u);
        }
    }
    return std::ldexp(static_cast<long double>(q), dropped - static_cast<int>(k));
}

/// A double as m x 2^e with integer m >= 0 (v >= 0 and finite).
struct dyadic {
    std::uint64_t m;
    int e;
};
inline dyadic split(double v) {
    if (v == 0.0) return {0, 0};
    int e = 0;
    const double f = std::frexp(v, &e);  // v = f 2^e, f in [0.5, 1)
    return {static_cast<std::uint64_t>(std::ldexp(f, 64)), e - 64};
}

/// P(U_1 + ... + U_n <= x) for U_i uniform on [0, w_i), every w_i > 0, as an exact fraction num / den
/// (0 <= num <= den).
struct fraction {
    big num, den;
};
inline fraction uniform_sum_fraction(const std::vector<double>& w, double x) {
    big den = big::of(1);
    if (!(x > 0.0)) return {big{}, den};
    int e0 = split(x).e;
    for (double v : w) e0 = std::min(e0, split(v).e);
    const auto scaled = [&](double v) {
        const dyadic s = split(v);
        return shl(big::of(s.m), static_cast<std::size_t>(s.e - e0));
    };
    const big X = scaled(x);
    std::vector<big> W;
    for (double v : w) W.push_back(scaled(v));
    const std::size_t n = W.size();
    big pos, neg;
    for (std::size_t mask = 0; mask < (std::size_t{1} << n); ++mask) {
        big s;
        int bits = 0;
        for (std::size_t i = 0; i < n; ++i)
            if (mask & (std::size_t{1} << i)) s = add(s, W[i]), ++bits;
        if (compare(X, s) <= 0) continue;
        const big y = sub(X, s);
        big term = big::of(1);
        for (std::size_t i = 0; i < n; ++i) term = mul(term, y);
        if (bits & 1)
            neg = add(neg, term);
        else
            pos = add(pos, term);
    }
    for (std::size_t i = 0; i < n; ++i) den = mul(den, mul(W[i], big::of(i + 1)));
    big num = compare(pos, neg) <= 0 ? big{} : sub(pos, neg);  // (the exact sum is never negative)
    if (compare(num, den) > 0) num = den;                      // (nor above 1: x beyond the total)
    return {num, den};
}

/// P(S <= x), exactly to 64 bits.
inline long double uniform_sum_cdf(const std::vector<double>& w, double x) {
    const fraction f = uniform_sum_fraction(w, x);
    return ratio(f.num, f.den);
}
/// P(S > x), exactly to 64 bits: 1 - F as a fraction, so the far tail keeps its precision.
inline long double uniform_sum_exceed(const std::vector<double>& w, double x) {
    const fraction f = uniform_sum_fraction(w, x);
    return ratio(sub(f.den, f.num), f.den);
}

}  // namespace exact

#endif  // PROVPOL_TESTS_EXACT_UNIFORM_SUM_HPP
