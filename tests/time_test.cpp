// provpol/time.hpp: the literals, their conversions, parse_seconds and the seconds in error messages.
#include <provpol/time.hpp>

#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <string_view>
#include <type_traits>

using namespace provpol;
using namespace provpol::literals;

static_assert(std::is_same_v<decltype(2_s), std::chrono::seconds>);
static_assert(std::is_same_v<decltype(2.5_s), seconds>);
static_assert(std::is_same_v<decltype(500_ms), std::chrono::milliseconds>);
static_assert(std::is_same_v<decltype(2_s + 500_ms), std::chrono::milliseconds>);
static_assert((2_s + 500_ms).count() == 2500);
static_assert(seconds(2_s + 500_ms).count() == 2.5);
static_assert(seconds(5_min).count() == 300.0);
static_assert(in_seconds(1.5_s) == 1.5);
// No bare number passes as a time, and seconds do not narrow to milliseconds without a cast.
static_assert(!std::is_convertible_v<double, seconds>);
static_assert(!std::is_convertible_v<seconds, milliseconds>);
static_assert(std::is_convertible_v<milliseconds, seconds>);
// within() compares the counts: NaN is in no range, where std::chrono's a >= b, written !(a < b), would say yes.
static_assert(within(1_s, 1_s, 2_s) && within(2_s, 1_s, 2_s) && !within(2.5_s, 1_s, 2_s) && !within(0.5_s, 1_s, 2_s));
static_assert(!within(seconds(__builtin_nan("")), 0_s, 1e9_s));
#if PROVPOL_CPLUSPLUS < 202002L
// C++17's duration >= is !(a < b) ([time.duration.comparisons]); libstdc++'s C++20 mode compares through <=>,
// where NaN is unordered and >= is false. within() gives the same answer in both.
static_assert(seconds(__builtin_nan("")) >= 0_s, "the C++17 std::chrono behaviour within() avoids");
#endif

TEST_CASE("parse_seconds reads a decimal with no unit, s, ms, min or h, as the double nearest the decimal") {
    CHECK(parse_seconds("2", "t").value() == 2_s);
    CHECK(parse_seconds("2.5s", "t").value() == 2.5_s);
    CHECK(parse_seconds("500ms", "t").value() == 500_ms);
    CHECK(parse_seconds("1.5min", "t").value() == 90_s);
    CHECK(parse_seconds("2h", "t").value() == 7200_s);
    CHECK(parse_seconds("0.5h", "t").value() == 30_min);
    CHECK(parse_seconds("0.001", "t").value() == 1_ms);
    // The unit moves the decimal exponent: the nearest double to 0.0015, where 1.5 / 1000 could round twice.
    CHECK(parse_seconds("1.5ms", "t").value().count() == 0.0015);
    CHECK(parse_seconds("7ms", "t").value().count() == 0.007);
    CHECK(parse_seconds("1e-3", "t").value() == 1_ms);
}

TEST_CASE("parse_seconds rejects what is not a time, naming the setting, and quotes bounds in seconds") {
    for (const char* bad :
         {"", "s", "ms", "h", "2 s", "2sec", "2hr", "2 h", "1e3h", "--1", "1e-3ms", "nan", "0x10", "1.5.2"}) {
        CAPTURE(bad);
        const auto r = parse_seconds(bad, "--budget");
        REQUIRE_FALSE(r);
        CHECK(r.error().code() == errc::invalid_syntax);
        CHECK(std::strstr(r.error().message().c_str(), "--budget") != nullptr);
    }
    const auto low = parse_seconds("0.5ms", "--budget", 1_ms, 3600_s);
    REQUIRE_FALSE(low);
    CHECK(low.error().code() == errc::out_of_range);
    CHECK(low.error().value() == error_value::of_seconds(0.0005));
    CHECK(std::string_view(low.error().message().c_str()) == "--budget must be in [0.001 s, 3600 s], got 0.0005 s");
    CHECK_FALSE(parse_seconds("-1", "t"));
    // Negative zero would pass a range that starts at 0 s: refused as negative, with or without a unit.
    for (const char* negative : {"-0", "-0s", "-0ms", "-0.0min", "-0e0"}) {
        CAPTURE(negative);
        const auto r = parse_seconds(negative, "--stagger");
        REQUIRE_FALSE(r);
        CHECK(std::strstr(r.error().message().c_str(), "negative times are not accepted") != nullptr);
    }
    // A range that allows negative times accepts them.
    CHECK(parse_seconds("-2s", "t", -5_s, 5_s).value() == -2_s);
    CHECK(parse_seconds("3600s", "t", 1_ms, 3600_s).value() == 3600_s);
}
