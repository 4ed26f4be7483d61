// Tests of provpol/parse.hpp: the size, rate, count and decimal grammars, their errors, and round trips.
#include <provpol/parse.hpp>
#include <provpol/random.hpp>

#include "test_support.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>

using namespace provpol;
using namespace provpol::literals;

static_assert(parse_size("1048576").value() == 1_MiB);
static_assert(parse_size("512MiB").value() == 512_MiB);
static_assert(parse_size("2.5GiB").value() == 2560_MiB);
static_assert(parse_size("15.9375EiB").value() == bytes(0xFF00000000000000ULL));
static_assert(!parse_size("4k").has_value());
static_assert(parse_rate("400MiB/s").value() == rate(400ULL << 20));
static_assert(format_size(2560_MiB) == "2.5GiB");
static_assert(format_size(bytes(1181745152)) == "1127MiB");
static_assert(format_size(bytes(1000)) == "1000");
static_assert(format_rate(rate(400ULL << 20)) == "400MiB/s");

namespace {
constexpr std::uint64_t max64 = std::numeric_limits<std::uint64_t>::max();

std::string message_of(const result<bytes>& r) {
    return r ? std::string("ok") : std::string(r.error().message().view());
}
}  // namespace

TEST_CASE("sizes in every documented spelling") {
    CHECK(parse_size("0").value() == 0_B);
    CHECK(parse_size("0B").value() == 0_B);
    CHECK(parse_size("4096B").value() == 4_KiB);
    CHECK(parse_size("1KiB").value() == 1_KiB);
    CHECK(parse_size("1.5KiB").value() == bytes(1536));
    CHECK(parse_size("2.50GiB").value() == 2560_MiB);  // trailing zeros are fine
    CHECK(parse_size("007MiB").value() == 7_MiB);
    CHECK(parse_size("3TiB").value() == 3_TiB);
    CHECK(parse_size("1PiB").value() == bytes(1ULL << 50));
    CHECK(parse_size("1EiB").value() == bytes(1ULL << 60));
    CHECK(parse_size("0.0009765625KiB").value() == bytes(1));  // 1/1024 KiB is one byte
    CHECK(parse_size("18446744073709551615").value() == bytes::max());
    CHECK(parse_size("18446744073709551615B").value() == bytes::max());
    // 2^-60 EiB is exactly one byte: a whole number of bytes, however many decimals it takes.
    CHECK(parse_size("0.000000000000000000867361737988403547205962240695953369140625EiB").value() == bytes(1));
    CHECK(parse_size("15.999999999999999999132638262011596452794037759304046630859375EiB").value() == bytes::max());
    CHECK_FALSE(parse_size("0.0000000000000000008673617379884035472059622406959533691406251EiB").has_value());
    CHECK_FALSE(parse_size("0.1B").has_value());
}

TEST_CASE("sizes: every rejection says why") {
    CHECK(message_of(parse_size("")) ==
          "size: invalid value '': empty; expected a size such as 1048576, 512MiB or 2.5GiB");
    CHECK(message_of(parse_size("-1")) == "size: invalid value '-1': sizes cannot be negative");
    CHECK(message_of(parse_size("-0")) == "size: invalid value '-0': sizes cannot be negative");
    CHECK(message_of(parse_size("5 GB")) ==
          "size: invalid value '5 GB': spaces are not accepted (write 512MiB, not 512 MiB)");
    CHECK(message_of(parse_size(" 5GiB")).find("spaces") != std::string::npos);
    CHECK(message_of(parse_size("1.1KiB")) == "size: invalid value '1.1KiB': not a whole number of bytes");
    CHECK(message_of(parse_size("0.5")) == "size: invalid value '0.5': not a whole number of bytes");
    CHECK(message_of(parse_size("18446744073709551616")) ==
          "size: '18446744073709551616' is too large: the largest accepted value is 18446744073709551615");
    CHECK(parse_size("16EiB").error().code() == errc::overflow);
    CHECK(parse_size("99999999999999999999999999GiB").error().code() == errc::overflow);
    CHECK(parse_size("18446744073709551615.5B").error().code() == errc::invalid_syntax);
    for (const char* bad : {"4k",    "4K",     "4kb",    "5G",        "5gB", "2mb",   "1kib",  "1Mib",    "1mib",
                            "1e3",   "0x10",   "1,5GiB", "NaN",       "inf", ".5GiB", "1.GiB", "1..5GiB", "GiB",
                            "+5MiB", "5MiB/s", "5MiBs",  "1 048 576", "1\t", "\n",    "1\r"}) {
        CAPTURE(bad);
        const auto r = parse_size(bad);
        REQUIRE_FALSE(r.has_value());
        CHECK((r.error().code() == errc::invalid_syntax || r.error().code() == errc::overflow));
        CHECK(r.error().text() == std::string(bad));
    }
    CHECK(message_of(parse_size("4k")).find("unknown unit") != std::string::npos);
    CHECK(parse_size("5", "--chunk").value() == bytes(5));
    CHECK(std::string(parse_size("x", "--chunk").error().message().view()).rfind("--chunk: ", 0) == 0);
}

TEST_CASE("sizes: SI units are powers of 1000, as dd and fio read them") {
    CHECK(parse_size("2MB").value() == bytes(2000000));
    CHECK(parse_size("4KB").value() == bytes(4000));
    CHECK(parse_size("4kB").value() == bytes(4000));
    CHECK(parse_size("5GB").value() == bytes(5000000000));
    CHECK(parse_size("220GB").value() == bytes(220000000000));
    CHECK(parse_size("1.5MB").value() == bytes(1500000));
    CHECK(parse_size("0.000001MB").value() == bytes(1));
    CHECK(parse_size("18EB").value() == bytes(18000000000000000000ULL));
    CHECK(parse_size("19EB").error().code() == errc::overflow);
    CHECK(parse_size("18.446744073709551615EB").value() == bytes::max());
    CHECK(parse_size("18.446744073709551616EB").error().code() == errc::overflow);
    CHECK(message_of(parse_size("1.0000001MB")) == "size: invalid value '1.0000001MB': not a whole number of bytes");
    CHECK(message_of(parse_size("4k")).find("kB, MB, GB") != std::string::npos);
}

TEST_CASE("sizes: a long garbage string is rejected without overflow and quoted truncated") {
    std::string huge(100000, '9');
    const auto r = parse_size(huge);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().code() == errc::overflow);
    CHECK(r.error().text().size() == error::max_text);
    std::string binary("\x01\xff\x00z", 4);
    CHECK_FALSE(parse_size(binary).has_value());
}

TEST_CASE("format_size prints exactly and parse_size reads it back (seeded sweep)") {
    CHECK(format_size(0_B) == "0");
    CHECK(format_size(bytes(1023)) == "1023");
    CHECK(format_size(1_KiB) == "1KiB");
    CHECK(format_size(bytes(1536)) == "1.5KiB");
    CHECK(format_size(bytes(1025)) == "1025");
    CHECK(format_size(bytes(1207959552)) == "1.125GiB");
    CHECK(format_size(bytes(8053063680)) == "7.5GiB");
    CHECK(format_size(bytes::max()) == "18446744073709551615");
    CHECK(format_size(bytes(0xFF00000000000000ULL)) == "16320PiB");  // 15.9375EiB needs four decimals

    detail::xoshiro256 rng(42);
    for (int i = 0; i < 200000; ++i) {
        // Mix arbitrary values with values that have few significant bits (the ones printed with units).
        std::uint64_t v = rng.next() >> rng.below(64);
        if (i % 2 == 0) v &= ~((std::uint64_t{1} << rng.below(62)) - 1);
        const size_text t = format_size(bytes(v));
        const auto back = parse_size(t.view());
        if (!back || back->count() != v) {
            CAPTURE(v);
            CAPTURE(std::string(t.view()));
            CHECK(back.has_value());
            CHECK(back.value_or(bytes(0)).count() == v);
        }
    }
}

TEST_CASE("rates") {
    CHECK(parse_rate("400MiB/s").value().bytes_per_second() == 419430400);
    CHECK(parse_rate("1048576/s").value().bytes_per_second() == 1048576);
    CHECK(parse_rate("0.5MiB/s").value().bytes_per_second() == 524288);
    CHECK(parse_rate("0/s").value().bytes_per_second() == 0);
    const auto no_suffix = parse_rate("400MiB");
    REQUIRE_FALSE(no_suffix);
    CHECK(no_suffix.error().message() == "rate: invalid value '400MiB': expected a rate such as 400MiB/s");
    const auto bad_unit = parse_rate("400M/s");
    REQUIRE_FALSE(bad_unit);
    CHECK(bad_unit.error().text() == "400M/s");  // the whole text is quoted
    // SI rates, and a rate with a fraction of a byte per second: the nearest whole byte per second.
    CHECK(parse_rate("500MB/s").value().bytes_per_second() == 500000000);
    CHECK(parse_rate("8.2GiB/s").value().bytes_per_second() == 8804682957);  // 8804682956.8
    CHECK(parse_rate("8.2GB/s").value().bytes_per_second() == 8200000000);
    CHECK(parse_rate("0.4B/s").value().bytes_per_second() == 0);
    CHECK(parse_rate("0.5B/s").value().bytes_per_second() == 1);
    CHECK(parse_rate("1.1KiB/s").value().bytes_per_second() == 1126);  // 1126.4
    CHECK(parse_rate("1.0000005MB/s").value().bytes_per_second() == 1000001);
    CHECK(parse_rate("1.00000049MB/s").value().bytes_per_second() == 1000000);
    CHECK(parse_rate("16EiB/s").error().code() == errc::overflow);
    CHECK(parse_rate("16EiB/s").error().text() == "16EiB/s");
    for (const char* bad : {"", "/s", "MiB/s", "-5MiB/s", "5MiB/sec", "5MiB/ s", "5 MiB/s", "5MiB/h", "5MiB//s"}) {
        CAPTURE(bad);
        CHECK_FALSE(parse_rate(bad).has_value());
    }
    for (std::uint64_t bps : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{419430400}, max64}) {
        CHECK(parse_rate(format_rate(rate(bps)).view()).value() == rate(bps));
    }
}

TEST_CASE("counts") {
    CHECK(parse_count("20", "percent", 0, 99).value() == 20);
    CHECK(parse_count("0", "percent", 0, 99).value() == 0);
    CHECK(parse_count("18446744073709551615", "n").value() == max64);
    CHECK(parse_count("120", "percent", 0, 99).error().message() == "percent must be in [0, 99], got 120");
    CHECK(parse_count("18446744073709551616", "n").error().code() == errc::overflow);
    for (const char* bad : {"", "-1", "+1", "1.0", "1e3", " 1", "0x10", "one"}) {
        CAPTURE(bad);
        CHECK(parse_count(bad, "n").error().code() == errc::invalid_syntax);
    }
}

TEST_CASE("decimals: exact nearest double, strict grammar") {
    CHECK(parse_decimal("3.7", "s", 0, 100).value() == 3.7);
    CHECK(parse_decimal("0.1", "p", 0, 1).value() == 0.1);
    CHECK(parse_decimal("1e-3", "p", 0, 1).value() == 0.001);
    CHECK(parse_decimal("2.5E1", "s", 0, 100).value() == 25.0);
    CHECK(parse_decimal("0", "p", 0, 1).value() == 0.0);
    CHECK(parse_decimal("100", "s", 0, 100).value() == 100.0);
    CHECK(parse_decimal("123456789012345", "x", 0, 1e300).value() == 123456789012345.0);
    CHECK(parse_decimal("12345678901234500000", "x", 0, 1e300).value() == 12345678901234500000.0);
    CHECK(parse_decimal("0.000000000000000000001", "x", 0, 1).value() == 1e-21);
    CHECK(parse_decimal("-2.5", "x", -10, 10).value() == -2.5);
    CHECK(parse_decimal("1.5", "p", 0, 1).error().message() == "p must be in [0, 1], got 1.5");
    CHECK(parse_decimal("-0", "p", 0, 1).error().message() ==
          "p: invalid value '-0': negative values are not accepted");
    CHECK(parse_decimal("1234567890123456", "x", 0, 1e300).error().code() == errc::invalid_syntax);
    CHECK(parse_decimal("1e400", "x", 0, 1e300).error().code() == errc::invalid_syntax);
    for (const char* bad : {"", "NaN", "nan", "inf", "-inf", "1e", "1e+", ".5", "5.", "0x1p3", "1,5", " 1", "1 ", "--1",
                            "1e5.5", "1.2.3"}) {
        CAPTURE(bad);
        CHECK_FALSE(parse_decimal(bad, "x", -1e300, 1e300).has_value());
    }
}
