// provpol/bytes.hpp - the strong byte-count type, IEC literals, alignment with an explicit direction, and
// overflow-aware arithmetic: checked_* returns a result, saturating_* clamps, and percent/ratio of a size
// are exact for every uint64_t input.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_BYTES_HPP
#define PROVPOL_BYTES_HPP

#include "config.hpp"
#include "result.hpp"

#include <cstdint>

namespace provpol {

/// A number of bytes: a uint64_t that does not mix with plain integers by accident. Construction from an
/// integer is explicit. `a + b` and `a - b` saturate (at bytes::max() and at 0: a size never wraps around or goes
/// negative); checked_add and checked_sub return an error instead, and a product must say which it wants
/// (saturating_mul, checked_mul).
class bytes {
public:
    using rep = std::uint64_t;

    constexpr bytes() noexcept = default;
    constexpr explicit bytes(rep count) noexcept : n_(count) {}

    /// The number of bytes.
    PROVPOL_NODISCARD constexpr rep count() const noexcept { return n_; }
    /// The largest representable size, 2^64 - 1 bytes: where saturating arithmetic stops.
    PROVPOL_NODISCARD static constexpr bytes max() noexcept { return bytes(detail::max_u64); }
    /// The size in MiB as a double (for reports and models, never for decisions).
    PROVPOL_NODISCARD constexpr double mib() const noexcept { return static_cast<double>(n_) / 1048576.0; }

    friend constexpr bool operator==(bytes a, bytes b) noexcept { return a.n_ == b.n_; }
    friend constexpr bool operator!=(bytes a, bytes b) noexcept { return a.n_ != b.n_; }
    friend constexpr bool operator<(bytes a, bytes b) noexcept { return a.n_ < b.n_; }
    friend constexpr bool operator<=(bytes a, bytes b) noexcept { return a.n_ <= b.n_; }
    friend constexpr bool operator>(bytes a, bytes b) noexcept { return a.n_ > b.n_; }
    friend constexpr bool operator>=(bytes a, bytes b) noexcept { return a.n_ >= b.n_; }

private:
    rep n_ = 0;
};

/// Which way a division or an alignment rounds. Always written at the call site.
enum class rounding : unsigned char { down, up };
/// "down" or "up".
PROVPOL_NODISCARD constexpr const char* to_text(rounding e) noexcept {
    constexpr const char* names[] = {"down", "up"};
    static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(rounding::up) + 1, "a name each");
    return detail::enum_name(names, e);
}

PROVPOL_NODISCARD constexpr bytes min(bytes a, bytes b) noexcept { return a < b ? a : b; }
PROVPOL_NODISCARD constexpr bytes max(bytes a, bytes b) noexcept { return a < b ? b : a; }

/// True when v is a power of two (0 is not).
PROVPOL_NODISCARD constexpr bool is_power_of_two(std::uint64_t v) noexcept { return v != 0 && (v & (v - 1)) == 0; }

namespace detail {
/// floor(log2(v)) for v >= 1 (0 for v = 0): the exponent of a power of two, the position of the highest set bit.
constexpr unsigned floor_log2(std::uint64_t v) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    return v == 0 ? 0 : 63U - static_cast<unsigned>(__builtin_clzll(v));
#else
    unsigned n = 0;
    while (v > 1) {
        v >>= 1;
        ++n;
    }
    return n;
#endif
}
/// ceil(log2(v)): the smallest r with 2^r >= v (0 for v <= 1), libxfs's log2_roundup.
constexpr unsigned ceil_log2(std::uint64_t v) noexcept { return v <= 1 ? 0 : floor_log2(v - 1) + 1; }
}  // namespace detail

// --- saturating arithmetic: clamps to [0, 2^64 - 1] instead of wrapping ---------------------------------------

// Written without unsigned wrap-around, so that clang's -fsanitize=integer stays quiet on every input.
PROVPOL_NODISCARD constexpr std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) noexcept {
    return a > detail::max_u64 - b ? detail::max_u64 : a + b;
}
PROVPOL_NODISCARD constexpr std::uint64_t saturating_sub(std::uint64_t a, std::uint64_t b) noexcept {
    return a > b ? a - b : 0;
}
PROVPOL_NODISCARD constexpr std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) noexcept {
    if (a == 0 || b == 0) return 0;
    return a > detail::max_u64 / b ? detail::max_u64 : a * b;
}
PROVPOL_NODISCARD constexpr bytes saturating_add(bytes a, bytes b) noexcept {
    return bytes(saturating_add(a.count(), b.count()));
}
PROVPOL_NODISCARD constexpr bytes saturating_sub(bytes a, bytes b) noexcept {
    return bytes(saturating_sub(a.count(), b.count()));
}
PROVPOL_NODISCARD constexpr bytes saturating_mul(bytes a, std::uint64_t factor) noexcept {
    return bytes(saturating_mul(a.count(), factor));
}

/// a + b, saturating at bytes::max() (2^64 - 1 bytes) like saturating_add: `18_GiB + 512_MiB` is 18.5 GiB, and a
/// sum past the largest size stays there instead of wrapping to a small one. checked_add says when that happens.
PROVPOL_NODISCARD constexpr bytes operator+(bytes a, bytes b) noexcept { return saturating_add(a, b); }
/// a - b, saturating at 0 like saturating_sub: `1_GiB - 2_GiB` is 0, not 16 EiB. checked_sub is the error instead.
PROVPOL_NODISCARD constexpr bytes operator-(bytes a, bytes b) noexcept { return saturating_sub(a, b); }
/// a = a + b, saturating (see operator+).
constexpr bytes& operator+=(bytes& a, bytes b) noexcept { return a = a + b; }
/// a = a - b, saturating at 0 (see operator-).
constexpr bytes& operator-=(bytes& a, bytes b) noexcept { return a = a - b; }

// --- checked arithmetic: an error instead of a wrong value ----------------------------------------------------

/// a + b, or an overflow error.
PROVPOL_NODISCARD constexpr result<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) noexcept {
    if (a > detail::max_u64 - b) return unexpected(error::arithmetic("+", error_value::of(a), error_value::of(b)));
    return a + b;
}
/// a - b, or an error when b > a.
PROVPOL_NODISCARD constexpr result<std::uint64_t> checked_sub(std::uint64_t a, std::uint64_t b) noexcept {
    if (b > a) return unexpected(error::arithmetic("-", error_value::of(a), error_value::of(b)));
    return a - b;
}
/// a * b, or an overflow error.
PROVPOL_NODISCARD constexpr result<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) noexcept {
    if (a != 0 && b > detail::max_u64 / a)
        return unexpected(error::arithmetic("*", error_value::of(a), error_value::of(b)));
    return a * b;
}
PROVPOL_NODISCARD constexpr result<bytes> checked_add(bytes a, bytes b) noexcept {
    if (a.count() > detail::max_u64 - b.count())
        return unexpected(error::arithmetic("+", error_value::of_size(a.count()), error_value::of_size(b.count())));
    return bytes(a.count() + b.count());
}
PROVPOL_NODISCARD constexpr result<bytes> checked_sub(bytes a, bytes b) noexcept {
    if (b > a)
        return unexpected(error::arithmetic("-", error_value::of_size(a.count()), error_value::of_size(b.count())));
    return bytes(a.count() - b.count());
}
PROVPOL_NODISCARD constexpr result<bytes> checked_mul(bytes a, std::uint64_t factor) noexcept {
    if (a.count() != 0 && factor > detail::max_u64 / a.count())
        return unexpected(error::arithmetic("*", error_value::of_size(a.count()), error_value::of(factor)));
    return bytes(a.count() * factor);
}

// --- division and alignment with a named direction ------------------------------------------------------------

/// v / d rounded in the given direction. d == 0 is a precondition violation; it yields 2^64 - 1 (or 0 for
/// v == 0) so that the function stays total.
PROVPOL_NODISCARD constexpr std::uint64_t divide(std::uint64_t v, std::uint64_t d, rounding r) noexcept {
    if (PROVPOL_UNLIKELY(d == 0)) return v == 0 ? 0 : detail::max_u64;
    const std::uint64_t q = v / d;  // v / d and v % d: one division (x86's div gives both)
    return (r == rounding::up && v % d != 0) ? q + 1 : q;
}
/// How many whole `unit`s fit in v (rounding down), or how many are needed to hold v (rounding up).
PROVPOL_NODISCARD constexpr std::uint64_t divide(bytes v, bytes unit, rounding r) noexcept {
    return divide(v.count(), unit.count(), r);
}

/// The largest multiple of a that is <= v. a == 0 means "no alignment" (returns v).
PROVPOL_NODISCARD constexpr std::uint64_t align_down(std::uint64_t v, std::uint64_t a) noexcept {
    return a == 0 ? v : v - v % a;
}
/// The smallest multiple of a that is >= v. a == 0 means "no alignment". When that multiple is not
/// representable, the result saturates to the largest representable multiple of a (which is below v):
/// alignment is kept, because a misaligned size is never valid for the caller.
PROVPOL_NODISCARD constexpr std::uint64_t align_up(std::uint64_t v, std::uint64_t a) noexcept {
    if (a == 0) return v;
    if ((a & (a - 1)) == 0) {  // a power of two (an extent, a MiB): one add and one mask, the same saturation
        const std::uint64_t mask = a - 1;
        return v > detail::max_u64 - mask ? (detail::max_u64 & ~mask) : (v + mask) & ~mask;
    }
    const std::uint64_t r = v % a;
    if (r == 0) return v;
    const std::uint64_t step = a - r;
    return v > detail::max_u64 - step ? align_down(detail::max_u64, a) : v + step;
}
/// True when v is a multiple of a (a == 0: always).
PROVPOL_NODISCARD constexpr bool is_aligned(std::uint64_t v, std::uint64_t a) noexcept { return a == 0 || v % a == 0; }

PROVPOL_NODISCARD constexpr bytes align_down(bytes v, bytes a) noexcept {
    return bytes(align_down(v.count(), a.count()));
}
/// See align_up(std::uint64_t, std::uint64_t): saturates to the largest representable multiple of a.
PROVPOL_NODISCARD constexpr bytes align_up(bytes v, bytes a) noexcept { return bytes(align_up(v.count(), a.count())); }
PROVPOL_NODISCARD constexpr bool is_aligned(bytes v, bytes a) noexcept { return is_aligned(v.count(), a.count()); }
/// align_up, or an overflow error when the aligned size is not representable.
PROVPOL_NODISCARD constexpr result<bytes> checked_align_up(bytes v, bytes a) noexcept {
    const bytes up = align_up(v, a);
    if (up < v)
        return unexpected(error::overflow("", error_value::of_size(v.count()),
                                          error_value::of_size(align_down(bytes::max(), a).count())));
    return up;
}

// --- exact ratios ---------------------------------------------------------------------------------------------

/// v * num / den, rounded in the given direction, exact for every uint64_t v (no floating point, no
/// 128-bit type): with v = q * den + r, the result is q * num + (r * num) / den, and r * num < 2^64 because
/// num, den < 2^32. Saturates at 2^64 - 1. den == 0 is a precondition violation and yields 2^64 - 1.
PROVPOL_NODISCARD constexpr std::uint64_t ratio_of(std::uint64_t v, std::uint32_t num, std::uint32_t den,
                                                   rounding r) noexcept {
    if (PROVPOL_UNLIKELY(den == 0)) return detail::max_u64;
    const std::uint64_t q = v / den;
    const std::uint64_t rem = v % den;
    const std::uint64_t part = rem * num;  // < den * num < 2^64
    const std::uint64_t frac = part / den + ((r == rounding::up && part % den != 0) ? 1 : 0);
    return saturating_add(saturating_mul(q, num), frac);
}
PROVPOL_NODISCARD constexpr bytes ratio_of(bytes v, std::uint32_t num, std::uint32_t den, rounding r) noexcept {
    return bytes(ratio_of(v.count(), num, den, r));
}
/// percent% of v, rounded in the given direction; exact, saturating (percent may exceed 100).
PROVPOL_NODISCARD constexpr std::uint64_t percent_of(std::uint64_t v, std::uint32_t percent, rounding r) noexcept {
    return ratio_of(v, percent, 100, r);
}
PROVPOL_NODISCARD constexpr bytes percent_of(bytes v, std::uint32_t percent, rounding r) noexcept {
    return bytes(percent_of(v.count(), percent, r));
}

// --- block counts ---------------------------------------------------------------------------------------------

/// A number of blocks (a thin pool's data blocks, its 4 KiB metadata blocks, 512-byte sectors), whose size the
/// count does not carry: a uint64_t that mixes neither with plain integers nor with bytes by accident. Construction
/// from an integer is explicit, and a conversion to or from bytes names the block size (size_of, blocks_in).
/// `a + b` and `a - b` saturate as bytes' do.
class blocks {
public:
    using rep = std::uint64_t;

    constexpr blocks() noexcept = default;
    constexpr explicit blocks(rep count) noexcept : n_(count) {}

    /// The number of blocks.
    PROVPOL_NODISCARD constexpr rep count() const noexcept { return n_; }

    friend constexpr bool operator==(blocks a, blocks b) noexcept { return a.n_ == b.n_; }
    friend constexpr bool operator!=(blocks a, blocks b) noexcept { return a.n_ != b.n_; }
    friend constexpr bool operator<(blocks a, blocks b) noexcept { return a.n_ < b.n_; }
    friend constexpr bool operator<=(blocks a, blocks b) noexcept { return a.n_ <= b.n_; }
    friend constexpr bool operator>(blocks a, blocks b) noexcept { return a.n_ > b.n_; }
    friend constexpr bool operator>=(blocks a, blocks b) noexcept { return a.n_ >= b.n_; }
    /// a + b, saturating at 2^64 - 1 blocks.
    friend constexpr blocks operator+(blocks a, blocks b) noexcept { return blocks(saturating_add(a.n_, b.n_)); }
    /// a - b, saturating at 0.
    friend constexpr blocks operator-(blocks a, blocks b) noexcept { return blocks(saturating_sub(a.n_, b.n_)); }

private:
    rep n_ = 0;
};

PROVPOL_NODISCARD constexpr blocks min(blocks a, blocks b) noexcept { return a < b ? a : b; }
PROVPOL_NODISCARD constexpr blocks max(blocks a, blocks b) noexcept { return a < b ? b : a; }

/// The size of n blocks of `block` bytes each, saturating at bytes::max().
PROVPOL_NODISCARD constexpr bytes size_of(blocks n, bytes block) noexcept {
    return bytes(saturating_mul(n.count(), block.count()));
}
/// The blocks of `block` bytes in `size`: the whole ones (rounding::down) or the ones needed to hold it
/// (rounding::up). block == 0 is a precondition violation (see divide).
PROVPOL_NODISCARD constexpr blocks blocks_in(bytes size, bytes block, rounding r) noexcept {
    return blocks(divide(size, block, r));
}

// --- rates ------------------------------------------------------------------------------------------------------

/// A write rate in whole bytes per second. parse_rate reads "400MiB/s"; format_rate prints it back.
class rate {
public:
    constexpr rate() noexcept = default;
    constexpr explicit rate(std::uint64_t bytes_per_second) noexcept : bps_(bytes_per_second) {}
    /// The rate in bytes per second.
    PROVPOL_NODISCARD constexpr std::uint64_t bytes_per_second() const noexcept { return bps_; }
    /// The rate in MiB/s (for models and reports).
    PROVPOL_NODISCARD constexpr double mib_per_second() const noexcept { return static_cast<double>(bps_) / 1048576.0; }

    friend constexpr bool operator==(rate a, rate b) noexcept { return a.bps_ == b.bps_; }
    friend constexpr bool operator!=(rate a, rate b) noexcept { return a.bps_ != b.bps_; }
    friend constexpr bool operator<(rate a, rate b) noexcept { return a.bps_ < b.bps_; }
    friend constexpr bool operator<=(rate a, rate b) noexcept { return a.bps_ <= b.bps_; }
    friend constexpr bool operator>(rate a, rate b) noexcept { return a.bps_ > b.bps_; }
    friend constexpr bool operator>=(rate a, rate b) noexcept { return a.bps_ >= b.bps_; }

private:
    std::uint64_t bps_ = 0;
};

// --- literals ---------------------------------------------------------------------------------------------------

namespace detail {

struct literal_value {
    std::uint64_t value;
    bool overflow;
    bool not_decimal;
};

// Reads a decimal integer literal's characters (digit separators allowed) times 2^shift, at compile time.
template <char... Cs>
constexpr literal_value parse_byte_literal(unsigned shift) noexcept {
    constexpr char text[] = {Cs..., '\0'};
    literal_value out{0, false, false};
    const std::size_t n = sizeof...(Cs);
    if (n > 1 && text[0] == '0') out.not_decimal = true;  // 0x.., 0b.., and octal 017 are not read as decimal
    for (std::size_t i = 0; i < n; ++i) {
        const char c = text[i];
        if (c == '\'') continue;
        if (c < '0' || c > '9') {
            out.not_decimal = true;
            continue;
        }
        const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
        if (out.value > (detail::max_u64 - d) / 10) out.overflow = true;
        out.value = out.value * 10 + d;
    }
    if (shift != 0 && out.value > (detail::max_u64 >> shift)) out.overflow = true;
    out.value <<= shift;
    return out;
}

template <unsigned Shift, char... Cs>
constexpr bytes byte_literal() noexcept {
    constexpr literal_value v = parse_byte_literal<Cs...>(Shift);
    static_assert(!v.not_decimal, "provpol byte literals must be decimal integers, e.g. 512_MiB");
    static_assert(!v.overflow, "provpol byte literal does not fit in 2^64 - 1 bytes");
    return bytes(v.value);
}

}  // namespace detail

/// IEC size literals: 512_MiB == bytes(512 * 2^20). Overflow and non-decimal spellings are compile errors.
inline namespace literals {
template <char... Cs>
constexpr bytes operator""_B() noexcept {
    return detail::byte_literal<0, Cs...>();
}
template <char... Cs>
constexpr bytes operator""_KiB() noexcept {
    return detail::byte_literal<10, Cs...>();
}
template <char... Cs>
constexpr bytes operator""_MiB() noexcept {
    return detail::byte_literal<20, Cs...>();
}
template <char... Cs>
constexpr bytes operator""_GiB() noexcept {
    return detail::byte_literal<30, Cs...>();
}
template <char... Cs>
constexpr bytes operator""_TiB() noexcept {
    return detail::byte_literal<40, Cs...>();
}
}  // namespace literals

}  // namespace provpol

#endif  // PROVPOL_BYTES_HPP
