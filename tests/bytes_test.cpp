// Tests of provpol/bytes.hpp: literals, alignment, saturating and checked arithmetic, exact ratios.
#include <provpol/bytes.hpp>
#include <provpol/random.hpp>

#include "test_support.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <type_traits>

using namespace provpol;
using namespace provpol::literals;

namespace {
constexpr std::uint64_t max64 = std::numeric_limits<std::uint64_t>::max();
}

// --- compile-time checks of the constexpr paths -----------------------------------------------------------------

static_assert(1_KiB == bytes(1024));
static_assert(512_MiB == bytes(536870912));
static_assert(2560_MiB == bytes(2684354560));
static_assert(1_TiB == bytes(1099511627776));
static_assert(1'024_B == 1_KiB);
static_assert(16777215_TiB == bytes(0xFFFFFF0000000000ULL));  // the largest TiB literal that fits
static_assert(bytes() == 0_B);
static_assert(bytes::max().count() == max64);
static_assert(!std::is_convertible_v<std::uint64_t, bytes>, "bytes must not be built from an integer implicitly");

static_assert(align_up(bytes(1), 128_MiB) == 128_MiB);
static_assert(align_up(128_MiB, 128_MiB) == 128_MiB);
static_assert(align_down(bytes(128 * 1048576 - 1), 128_MiB) == 0_B);
static_assert(align_up(bytes(5), 0_B) == bytes(5), "alignment 0 means none");
static_assert(align_up(bytes::max(), 128_MiB) == align_down(bytes::max(), 128_MiB), "saturates aligned");
static_assert(saturating_add(bytes::max(), 1_B) == bytes::max());
static_assert(saturating_sub(1_B, 2_B) == 0_B);
static_assert(saturating_mul(bytes(max64 / 2 + 1), 2) == bytes::max());
static_assert(ratio_of(bytes(max64), 11, 10, rounding::down) == bytes::max());
static_assert(ratio_of(10_GiB, 11, 10, rounding::down) == bytes(11811160064));
static_assert(percent_of(2560_MiB, 80, rounding::down) == 2048_MiB);
static_assert(percent_of(bytes(3), 50, rounding::up) == bytes(2));
static_assert(percent_of(bytes(3), 50, rounding::down) == bytes(1));
static_assert(divide(bytes(10), bytes(3), rounding::up) == 4);
static_assert(divide(bytes(9), bytes(3), rounding::up) == 3);
static_assert(is_power_of_two(1) && is_power_of_two(std::uint64_t{1} << 63) && !is_power_of_two(0) &&
              !is_power_of_two(6));
static_assert(18_GiB + 512_MiB == bytes(19864223744), "18.5 GiB");
static_assert(3_GiB - 512_MiB == 2560_MiB);
static_assert(bytes::max() + 1_B == bytes::max(), "+ saturates at the largest size");
static_assert(1_GiB - 2_GiB == 0_B, "- saturates at 0");
static_assert(
    [] {
        bytes b = 1_GiB;
        b += 512_MiB;
        b -= 1_MiB;
        b -= 2_GiB;
        b += bytes::max();
        return b;
    }() == bytes::max(),
    "+= and -= saturate like + and -");
static_assert(checked_add(bytes::max(), 0_B).value() == bytes::max());
static_assert(!checked_add(bytes::max(), 1_B).has_value());
static_assert(!checked_sub(1_B, 2_B).has_value());
static_assert(!checked_mul(bytes(max64), 2).has_value());

TEST_CASE("byte literals and accessors") {
    CHECK((2_GiB).count() == 2147483648ULL);
    CHECK((2560_MiB).mib() == doctest::Approx(2560.0));
    CHECK(min(1_MiB, 2_MiB) == 1_MiB);
    CHECK(max(1_MiB, 2_MiB) == 2_MiB);
}

TEST_CASE("alignment names its direction and never wraps") {
    SUBCASE("power-of-two and other alignments") {
        CHECK(align_up(bytes(1), 1_MiB) == 1_MiB);
        CHECK(align_up(bytes(3000), bytes(1000)) == bytes(3000));
        CHECK(align_up(bytes(3001), bytes(1000)) == bytes(4000));
        CHECK(align_down(bytes(3999), bytes(1000)) == bytes(3000));
        CHECK(is_aligned(4_GiB, 128_MiB));
        CHECK_FALSE(is_aligned(bytes((4_GiB).count() + 1), 128_MiB));
    }
    SUBCASE("near 2^64") {
        const bytes top = align_down(bytes::max(), 128_MiB);
        CHECK(align_up(bytes(top.count() + 1), 128_MiB) == top);  // saturated: the largest multiple, aligned
        CHECK(is_aligned(align_up(bytes::max(), 128_MiB), 128_MiB));
        CHECK_FALSE(checked_align_up(bytes(top.count() + 1), 128_MiB).has_value());
        CHECK(checked_align_up(top, 128_MiB).value() == top);
        // An alignment that is not a power of two, at the very top of the range.
        CHECK(align_up(bytes(max64), bytes(3)) == bytes(max64));  // 2^64 - 1 is a multiple of 3
        CHECK(align_up(bytes(max64 - 1), bytes(7)) == bytes(max64 - max64 % 7));
    }
}

TEST_CASE("checked arithmetic reports the operands") {
    const auto r = checked_add(bytes::max(), 1_B);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == errc::arithmetic);
    CHECK(r.error().message() == "18446744073709551615 + 1 is outside [0, 2^64 - 1]");
    CHECK(checked_sub(1_MiB, 2_MiB).error().message() == "1MiB - 2MiB is outside [0, 2^64 - 1]");
    CHECK(checked_mul(std::uint64_t{1} << 32, std::uint64_t{1} << 32).error().code() == errc::arithmetic);
    CHECK(checked_mul(std::uint64_t{1} << 31, std::uint64_t{1} << 32).value() == std::uint64_t{1} << 63);
    CHECK(checked_add(std::uint64_t{1}, std::uint64_t{2}).value() == 3);
}

// The reference for ratio_of: exact 128-bit arithmetic where the compiler has it (tests only).
#if defined(__SIZEOF_INT128__)
__extension__ using u128 = unsigned __int128;
static std::uint64_t reference_ratio(std::uint64_t v, std::uint32_t num, std::uint32_t den, rounding r) {
    u128 p = static_cast<u128>(v) * num;
    u128 q = p / den;
    if (r == rounding::up && p % den != 0) ++q;
    return q > max64 ? max64 : static_cast<std::uint64_t>(q);
}

TEST_CASE("ratio_of is exact for every input (seeded sweep against 128-bit arithmetic)") {
    detail::xoshiro256 rng(20221130);
    const std::uint64_t edges[] = {
        0, 1, 2, 9, 10, 11, 99, 100, 101, 1048575, 1048576, max64 / 11, max64 / 10, max64 / 10 + 1, max64 - 1, max64};
    const std::uint32_t dens[] = {1, 2, 3, 10, 100, 128, 4096, 0xFFFFFFFFu};
    for (std::uint64_t v : edges)
        for (std::uint32_t d : dens)
            for (std::uint32_t n : {0u, 1u, 11u, 80u, 100u, 0xFFFFFFFFu})
                for (rounding r : {rounding::down, rounding::up}) {
                    CAPTURE(v);
                    CAPTURE(n);
                    CAPTURE(d);
                    CHECK(ratio_of(v, n, d, r) == reference_ratio(v, n, d, r));
                }
    for (int i = 0; i < 200000; ++i) {
        const std::uint64_t v = rng.next() >> rng.below(64);
        const auto n = static_cast<std::uint32_t>(rng.next() >> (32 + rng.below(32)));
        const auto d = static_cast<std::uint32_t>((rng.next() >> (32 + rng.below(32))) | 1);
        const rounding r = (i & 1) ? rounding::up : rounding::down;
        const std::uint64_t got = ratio_of(v, n, d, r);
        const std::uint64_t want = reference_ratio(v, n, d, r);
        if (got != want) {
            CAPTURE(v);
            CAPTURE(n);
            CAPTURE(d);
            CHECK(got == want);
        }
    }
}
#endif

TEST_CASE("saturating arithmetic agrees with checked arithmetic wherever checked succeeds") {
    detail::xoshiro256 rng(7);
    for (int i = 0; i < 100000; ++i) {
        const std::uint64_t a = rng.next() >> rng.below(64);
        const std::uint64_t b = rng.next() >> rng.below(64);
        const auto add = checked_add(a, b);
        CHECK(saturating_add(a, b) == (add ? *add : max64));
        const auto sub = checked_sub(a, b);
        CHECK(saturating_sub(a, b) == (sub ? *sub : 0));
        const auto mul = checked_mul(a, b);
        CHECK(saturating_mul(a, b) == (mul ? *mul : max64));
        if (!add) REQUIRE(a > max64 - b);
        if (!mul) REQUIRE((a != 0 && b > max64 / a));
    }
}

#if defined(__SIZEOF_INT128__)
TEST_CASE("+ and - on bytes are the exact sum and difference clamped to [0, 2^64 - 1] (against 128-bit arithmetic)") {
    detail::xoshiro256 rng(20261202);
    using wide = u128;
    const auto clamp = [](wide v) { return v > wide{max64} ? max64 : static_cast<std::uint64_t>(v); };
    for (int i = 0; i < 100000; ++i) {
        const std::uint64_t a = rng.next() >> rng.below(64);
        const std::uint64_t b = rng.next() >> rng.below(64);
        CHECK((bytes(a) + bytes(b)).count() == clamp(wide{a} + wide{b}));
        CHECK((bytes(a) - bytes(b)).count() == (a > b ? a - b : 0));
        bytes c(a);
        c += bytes(b);
        CHECK(c == bytes(a) + bytes(b));
        c -= bytes(a);
        CHECK(c.count() == clamp(wide{a} + wide{b}) - a);
    }
}
#endif

#if defined(__SIZEOF_INT128__)
TEST_CASE("blocks: size_of and blocks_in against 128-bit arithmetic, + and - clamped to [0, 2^64 - 1]") {
    detail::xoshiro256 rng(20261207);
    using wide = u128;
    const auto clamp = [](wide v) { return v > wide{max64} ? max64 : static_cast<std::uint64_t>(v); };
    for (int i = 0; i < 100000; ++i) {
        const std::uint64_t n = rng.next() >> rng.below(64);
        const std::uint64_t block = 1 + (rng.next() >> rng.below(64) >> 1);  // never 0
        const std::uint64_t size = rng.next() >> rng.below(64);
        CHECK(size_of(blocks(n), bytes(block)).count() == clamp(wide{n} * wide{block}));
        CHECK(blocks_in(bytes(size), bytes(block), rounding::down).count() == size / block);
        CHECK(blocks_in(bytes(size), bytes(block), rounding::up).count() == (wide{size} + block - 1) / block);
        CHECK((blocks(n) + blocks(size)).count() == clamp(wide{n} + wide{size}));
        CHECK((blocks(n) - blocks(size)).count() == (n > size ? n - size : 0));
        CHECK(min(blocks(n), blocks(size)).count() == (n < size ? n : size));
        CHECK(max(blocks(n), blocks(size)).count() == (n < size ? size : n));
    }
}
#endif

TEST_CASE("blocks: a count and a size meet only through a named block size") {
    static_assert(!std::is_convertible_v<std::uint64_t, blocks>, "no integer becomes blocks silently");
    static_assert(!std::is_convertible_v<blocks, std::uint64_t>, "nor blocks an integer");
    static_assert(!std::is_convertible_v<bytes, blocks> && !std::is_convertible_v<blocks, bytes>, "nor bytes");
    static_assert(!std::is_constructible_v<bytes, blocks> && !std::is_constructible_v<blocks, bytes>,
                  "even explicitly");
    CHECK(size_of(blocks(769), 64_KiB) == bytes(769ULL << 16));
    CHECK(blocks_in(64_MiB + 1_B, 64_KiB, rounding::up) == blocks(1025));
    CHECK(blocks_in(64_MiB + 1_B, 64_KiB, rounding::down) == blocks(1024));
    CHECK(size_of(blocks(max64), 4_KiB) == bytes::max());           // saturates
    CHECK(blocks_in(1_GiB, 0_B, rounding::down) == blocks(max64));  // divide's total answer for a zero divisor
    CHECK(blocks_in(0_B, 0_B, rounding::up) == blocks(0));
}

TEST_CASE("division rounds in the direction asked, and zero divisors stay total") {
    CHECK(divide(std::uint64_t{7}, 2, rounding::down) == 3);
    CHECK(divide(std::uint64_t{7}, 2, rounding::up) == 4);
    CHECK(divide(max64, 1, rounding::up) == max64);
    CHECK(divide(std::uint64_t{5}, 0, rounding::down) == max64);
    CHECK(divide(std::uint64_t{0}, 0, rounding::down) == 0);
    CHECK(ratio_of(std::uint64_t{5}, 1, 0, rounding::down) == max64);
}

namespace {
// The references the helpers replaced, as they were written: libxfs's howmany() and log2_roundup(), and the
// remainder form of align_up for every alignment.
std::uint64_t howmany(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }
unsigned log2_roundup(std::uint64_t v) {
    unsigned n = 0;
    while (n < 64 && (std::uint64_t{1} << n) < v) ++n;
    return n;
}
unsigned log2_by_shifts(std::uint64_t v) {
    unsigned n = 0;
    while (v > 1) {
        v >>= 1;
        ++n;
    }
    return n;
}
std::uint64_t align_up_by_remainder(std::uint64_t v, std::uint64_t a) {
    if (a == 0 || v % a == 0) return v;
    const std::uint64_t step = a - v % a;
    return v > max64 - step ? max64 - max64 % a : v + step;
}
}  // namespace

TEST_CASE("one helper per job: divide, floor_log2, ceil_log2 and align_up against the forms they replaced") {
    detail::xoshiro256 rng(7);
    for (int i = 0; i < 200000; ++i) {
        const std::uint64_t b = (rng.next() >> rng.below(64)) | 1;
        const std::uint64_t a = rng.next() >> rng.below(64);
        if (a <= max64 - b) REQUIRE(divide(a, b, rounding::up) == howmany(a, b));
        const std::uint64_t v = rng.next() >> rng.below(64);
        REQUIRE(detail::floor_log2(v | 1) == log2_by_shifts(v | 1));
        REQUIRE(detail::ceil_log2(v) == log2_roundup(v));
        const std::uint64_t p = std::uint64_t{1} << rng.below(64);  // a power of two: align_up's mask path
        REQUIRE(align_up(v, p) == align_up_by_remainder(v, p));
        const std::uint64_t top = max64 - rng.below(std::uint64_t{1} << 40);  // near 2^64: the saturation
        REQUIRE(align_up(top, p) == align_up_by_remainder(top, p));
    }
    for (unsigned k = 0; k < 64; ++k) {  // every power of two and its neighbours
        const std::uint64_t p = std::uint64_t{1} << k;
        for (std::uint64_t v : {p - 1, p, p + 1, max64 - p, max64 - p + 1, max64}) {
            CHECK(detail::floor_log2(v == 0 ? 1 : v) == log2_by_shifts(v == 0 ? 1 : v));
            CHECK(detail::ceil_log2(v) == log2_roundup(v));
            CHECK(align_up(v, p) == align_up_by_remainder(v, p));
        }
    }
    static_assert(detail::floor_log2(4096) == 12 && detail::ceil_log2(4097) == 13 && detail::ceil_log2(1) == 0);
}

TEST_CASE("rate") {
    constexpr rate r(400ULL << 20);
    static_assert(r.bytes_per_second() == 419430400);
    CHECK(r.mib_per_second() == doctest::Approx(400.0));
    CHECK(rate(1) < rate(2));
}
