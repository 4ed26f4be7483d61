// provpol/detail/math.hpp - the few floating-point functions the models need (sqrt, log, exp, floor, ceil,
// pow, frexp, ldexp), without <cmath>: that header alone costs about 0.15 s of compile time with g++ 12, more than half
// of the umbrella header's budget. GCC and Clang provide the same functions as builtins; other compilers get <cmath>.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_DETAIL_MATH_HPP
#define PROVPOL_DETAIL_MATH_HPP

#include "../config.hpp"

#if !defined(__GNUC__) && !defined(__clang__)
#include <cmath>
#endif

namespace provpol::detail {

#if defined(__GNUC__) || defined(__clang__)
inline double sqrt(double x) noexcept { return __builtin_sqrt(x); }
inline double log(double x) noexcept { return __builtin_log(x); }
inline double exp(double x) noexcept { return __builtin_exp(x); }
inline double pow(double x, double y) noexcept { return __builtin_pow(x, y); }
inline double frexp(double x, int* e) noexcept { return __builtin_frexp(x, e); }
inline double ldexp(double x, int e) noexcept { return __builtin_ldexp(x, e); }
// floor and ceil by truncation, because clang 14 cannot evaluate __builtin_floor/__builtin_ceil in a constant
// expression (-Winvalid-constexpr is an error). |x| >= 2^52 is already integral; NaN and infinities pass through.
// (The sign of a zero result is not kept: floor(-0.0) is +0.0.)
constexpr double floor(double x) noexcept {
    if (!(x > -4503599627370496.0 && x < 4503599627370496.0)) return x;
    const double t = static_cast<double>(static_cast<long long>(x));
    return t > x ? t - 1.0 : t;
}
constexpr double ceil(double x) noexcept {
    if (!(x > -4503599627370496.0 && x < 4503599627370496.0)) return x;
    const double t = static_cast<double>(static_cast<long long>(x));
    return t < x ? t + 1.0 : t;
}
constexpr double fabs(double x) noexcept { return __builtin_fabs(x); }
constexpr bool isnan(double x) noexcept { return x != x; }
constexpr bool isfinite(double x) noexcept { return x == x && x - x == 0.0; }
#else
inline double sqrt(double x) noexcept { return std::sqrt(x); }
inline double log(double x) noexcept { return std::log(x); }
inline double exp(double x) noexcept { return std::exp(x); }
inline double pow(double x, double y) noexcept { return std::pow(x, y); }
inline double frexp(double x, int* e) noexcept { return std::frexp(x, e); }
inline double ldexp(double x, int e) noexcept { return std::ldexp(x, e); }
inline double floor(double x) noexcept { return std::floor(x); }
inline double ceil(double x) noexcept { return std::ceil(x); }
inline double fabs(double x) noexcept { return std::fabs(x); }
constexpr bool isnan(double x) noexcept { return x != x; }
constexpr bool isfinite(double x) noexcept { return x == x && x - x == 0.0; }
#endif

}  // namespace provpol::detail

#endif  // PROVPOL_DETAIL_MATH_HPP
