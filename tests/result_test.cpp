// Tests of provpol/result.hpp: result<T>, result<void>, error messages, bad_result_access.
#include <provpol/parse.hpp>
#include <provpol/result.hpp>

#include "test_support.hpp"

#include <doctest/doctest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

using namespace provpol;

namespace {

constexpr result<int> half(int v) {
    if (v % 2 != 0)
        return unexpected(
            error::not_a_multiple("value", error_value::of(static_cast<std::uint64_t>(v)), error_value::of(2)));
    return v / 2;
}

}  // namespace

// result is a literal type for trivially copyable T, so validation runs in constant expressions.
static_assert(half(8).value() == 4);
static_assert(!half(7).has_value());
static_assert(half(7).error().code() == errc::not_a_multiple);
static_assert(half(7).value_or(-1) == -1);
static_assert(half(16).and_then(half).value() == 4);
static_assert(half(16).transform([](int v) { return v + 1; }).value() == 9);
static_assert(std::is_trivially_copyable_v<result<int>>);
static_assert(std::is_trivially_copyable_v<error>);

TEST_CASE("error messages name the setting, the value and the allowed range") {
    CHECK(
        error::out_of_range("volume_utilization_percent", error_value::of(120), error_value::of(0), error_value::of(99))
            .message() == "volume_utilization_percent must be in [0, 99], got 120");
    CHECK(error::out_of_range("chunk", error_value::of_size(0), error_value::of_size(1048576), {}).message() ==
          "chunk must be at least 1MiB, got 0");
    CHECK(error::out_of_range("x", error_value::of_signed(-3), {}, error_value::of_signed(-4)).message() ==
          "x must be at most -4, got -3");
    CHECK(error::out_of_range("p", error_value::of_real(1.5), error_value::of_real(0), error_value::of_real(1))
              .message() == "p must be in [0, 1], got 1.5");
    CHECK(error::not_a_multiple("volume_utilization_chunk", error_value::of_size(1000), error_value::of_size(1048576))
              .message() == "volume_utilization_chunk must be a multiple of 1MiB, got 1000");
    CHECK(error::not_a_power_of_two("extent_size", error_value::of_size(3 << 20)).message() ==
          "extent_size must be a power of two, got 3MiB");
    CHECK(error::invalid_syntax("--chunk", "abc", "expected a size").message() ==
          "--chunk: invalid value 'abc': expected a size");
    CHECK(error::invalid_syntax("", "abc", "expected a size").message() == "invalid value 'abc': expected a size");
    CHECK(error::overflow("size", "99EiB", error_value::of(18446744073709551615ULL)).message() ==
          "size: '99EiB' is too large: the largest accepted value is 18446744073709551615");
    CHECK(error::overflow("lv", error_value::of_size(5), error_value::of_size(4)).message() ==
          "lv: 5 is too large: the largest accepted value is 4");
    CHECK(error::unknown_name("--preset", "vdsm-2023", "one of vdsm-2022, vdsm-legacy").message() ==
          "--preset: unknown value 'vdsm-2023': expected one of vdsm-2022, vdsm-legacy");
    CHECK(error::conflict("optimal_io_size", error_value::of(512), "must be a multiple of", "logical_block_size",
                          error_value::of(4096))
              .message() == "optimal_io_size (512) must be a multiple of logical_block_size (4096)");
    CHECK(error::unsupported("mode", "O_DIRECT needs a known logical block size").message() ==
          "mode: O_DIRECT needs a known logical block size");
    CHECK(error::arithmetic("*", error_value::of(3), error_value::of(4)).message() == "3 * 4 is outside [0, 2^64 - 1]");
}

TEST_CASE("error keeps at most max_text characters of user text and marks truncated messages") {
    const std::string long_text(500, 'x');
    const error e = error::invalid_syntax("s", long_text, "too long");
    CHECK(e.text().size() == error::max_text);
    CHECK(e.text_truncated());
    const error_message m = e.message();
    CHECK(m.size() <= error_message::capacity());
    CHECK(m.view() == "s: invalid value 'xxxxxxxxxxxxxxxxxxxx...': too long");
    const error exact = error::invalid_syntax("s", std::string(error::max_text, 'y'), "d");
    CHECK_FALSE(exact.text_truncated());
    CHECK(exact.message().view() == "s: invalid value 'yyyyyyyyyyyyyyyyyyyy': d");
    fixed_string<16> f;
    f.append("0123456789abcdefghij");
    CHECK(f.view() == "0123456789ab...");
    CHECK(f.size() == 15);
}

namespace {
// A configuration reader's helper: the key's name lives in a std::string (on the heap: longer than any small-string
// buffer) that is overwritten and then destroyed before the caller reads the error, as a reader's line buffer is.
result<bytes> read_size(text_view value, std::string key) {
    result<bytes> r = parse_size(value, key.c_str());
    key.assign(key.size(), '#');
    return r;
}
}  // namespace

TEST_CASE("an error owns its setting's name: made from a std::string's c_str(), read after the string is gone") {
    // Under AddressSanitizer (the asan-ubsan preset) an error that kept the pointer is a heap-use-after-free here; in
    // any build it would read the overwritten name.
    const result<bytes> r = read_size("4k", std::string("activation/thin_pool_autoextend_size"));
    REQUIRE_FALSE(r);
    CHECK(r.error().setting() == "activation/thin_pool_autoextend_size");
    CHECK_FALSE(r.error().setting_truncated());
    CHECK(
        std::string(r.error().message().view()).rfind("activation/thin_pool_autoextend_size: invalid value '4k'", 0) ==
        0);
    // with_setting copies too.
    std::string flag = "--pool-metadata-size";
    const error renamed = r.error().with_setting(flag);
    flag.assign(flag.size(), '#');
    flag.clear();
    flag.shrink_to_fit();
    CHECK(renamed.setting() == "--pool-metadata-size");
}

TEST_CASE("an error keeps at most max_setting characters of the name and marks a cut one") {
    const std::string name(error::max_setting, 'n');
    const error exact = error::not_a_power_of_two(name, error_value::of(3));
    CHECK(exact.setting() == name);
    CHECK_FALSE(exact.setting_truncated());
    CHECK(exact.message() == name + " must be a power of two, got 3");
    const error cut = error::not_a_power_of_two(name + "tail", error_value::of(3));
    CHECK(cut.setting() == name);
    CHECK(cut.setting_truncated());
    CHECK(cut.message() == name + "... must be a power of two, got 3");
    CHECK(cut != exact);  // a cut name is not the name
    CHECK(error::unsupported(name + "tail", "no").message() == name + "...: no");
}

TEST_CASE("with_setting and with_text rename without changing the rest") {
    const error e = error::out_of_range("percent", error_value::of(120), error_value::of(0), error_value::of(99));
    const error f = e.with_setting("--percent");
    CHECK(f.setting() == "--percent");
    CHECK(f.code() == errc::out_of_range);
    CHECK(f.message() == "--percent must be in [0, 99], got 120");
    CHECK(e.with_text("abc").text() == "abc");
}

TEST_CASE("value() on an error throws bad_result_access carrying the message") {
    const result<int> r = half(3);
    REQUIRE_FALSE(r);
    CHECK_THROWS_AS(static_cast<void>(r.value()), bad_result_access<error>);
    try {
        (void)r.value();
        FAIL("value() did not throw");
    } catch (const bad_result_access<error>& e) {
        CHECK(std::string(e.what()) == "value must be a multiple of 2, got 3");
        CHECK(e.error().code() == errc::not_a_multiple);
    }
    CHECK_THROWS_AS(value_or_throw(half(5)), bad_result_access<error>);
    CHECK(value_or_throw(half(6)) == 3);
}

TEST_CASE("result holds non-trivial values with correct lifetimes") {
    auto counter = std::make_shared<int>(0);
    {
        result<std::shared_ptr<int>> a = counter;
        CHECK(counter.use_count() == 2);
        result<std::shared_ptr<int>> b = a;  // copy
        CHECK(counter.use_count() == 3);
        result<std::shared_ptr<int>> c = std::move(b);  // move
        CHECK(counter.use_count() == 3);
        result<std::shared_ptr<int>> d = unexpected(error::unsupported("x", "no value"));
        d = c;  // error -> value
        CHECK(counter.use_count() == 4);
        d = result<std::shared_ptr<int>>(unexpected(error::unsupported("x", "no value")));  // value -> error
        CHECK(counter.use_count() == 3);
        CHECK_FALSE(d.has_value());
        CHECK(d.error().detail() == "no value");
        CHECK(**a == 0);
        CHECK(a->get() == counter.get());
    }
    CHECK(counter.use_count() == 1);

    const result<std::string> s = std::string("text");
    CHECK(s.value() == "text");
    CHECK(s.value_or("other") == "text");
    const result<std::string> t = unexpected(error::unsupported("x", "none"));
    CHECK(t.value_or("other") == "other");
    CHECK(s.transform([](const std::string& v) { return v.size(); }).value() == 4);
}

TEST_CASE("result<void>") {
    const result<void> ok;
    CHECK(ok.has_value());
    CHECK_NOTHROW(ok.value());
    const result<void> bad = unexpected(error::unsupported("mode", "not supported"));
    CHECK_FALSE(bad);
    CHECK(bad.error().message() == "mode: not supported");
    CHECK_THROWS_AS(bad.value(), bad_result_access<error>);
}

TEST_CASE("error: 112 bytes at most, trivially copyable, and == compares what it says") {
    static_assert(sizeof(error) <= 112);
    static_assert(std::is_trivially_copyable_v<error>);
    const auto range = [](std::uint64_t v) {
        return error::out_of_range("percent", error_value::of(v), error_value::of(0), error_value::of(99));
    };
    CHECK(range(1) == range(1));
    CHECK(range(1) != range(2));  // the same setting and kind, another value
    CHECK(range(1) != error::out_of_range("percent", error_value::of(1), error_value::of(0), error_value::of(98)));
    CHECK(range(1) != error::out_of_range("percent", error_value::of(1), error_value::of(1), error_value::of(99)));
    CHECK(range(1) != range(1).with_setting("other"));
    CHECK(error_value::of(1) != error_value::of_size(1));  // printed differently: not the same error
    CHECK(error::out_of_range("x", error_value::of_real(0.5), {}, {}) ==
          error::out_of_range("x", error_value::of_real(0.5), {}, {}));
    CHECK(error::out_of_range("x", error_value::of_real(0.5), {}, {}) !=
          error::out_of_range("x", error_value::of_real(0.25), {}, {}));
    CHECK(error::unsupported("mode", "a") != error::unsupported("mode", "b"));  // the detail counts
    CHECK(error::invalid_syntax("s", "4k", "d") != error::invalid_syntax("s", "5k", "d"));
    // Every kind of value survives the compact storage.
    const error e = error::out_of_range("v", error_value::of_signed(-5), error_value::of_real(-0.125),
                                        error_value::of_size(std::uint64_t{3} << 30));
    CHECK(e.value().type() == error_value::kind::signed_integer);
    CHECK(e.value().as_signed() == -5);
    CHECK(e.lower_bound().as_real() == -0.125);
    CHECK(e.upper_bound().type() == error_value::kind::size);
    CHECK(e.message() == "v must be in [-0.125, 3GiB], got -5");
    // A conflict names the other setting, whatever its length, and compares it.
    const error c = error::conflict("a", error_value::of(1), "must be at least",
                                    "the floor rounded up to the device's granularity", error_value::of(2));
    CHECK(c.message() == "a (1) must be at least the floor rounded up to the device's granularity (2)");
    CHECK(c.other() == "the floor rounded up to the device's granularity");
    CHECK(c.upper_bound().empty());
    CHECK(c != error::conflict("a", error_value::of(1), "must be at least", "b", error_value::of(2)));
}

#if PROVPOL_HAS_EXCEPTIONS
namespace {
// A value whose copy throws when asked to: to watch result's assignment keep its old state.
struct fragile {
    static inline bool fail = false;
    int v = 0;
    explicit fragile(int x) : v(x) {}
    fragile(const fragile& o) : v(o.v) {
        if (fail) throw std::runtime_error("copy failed");
    }
    fragile(fragile&& o) : v(o.v) {  // NOLINT: a move that may throw, on purpose
        if (fail) throw std::runtime_error("move failed");
    }
    fragile& operator=(const fragile& o) = default;
    fragile& operator=(fragile&&) = default;
};
}  // namespace

TEST_CASE("result's copy assignment gives the strong guarantee") {
    const result<fragile> value = fragile(7);
    result<fragile> target = unexpected(error::unsupported("x", "was an error"));
    fragile::fail = true;
    CHECK_THROWS_AS(target = value, std::runtime_error);
    fragile::fail = false;
    REQUIRE_FALSE(target.has_value());  // unchanged: still the error it held, not destroyed
    CHECK(target.error() == error::unsupported("x", "was an error"));
    target = value;
    REQUIRE(target.has_value());
    CHECK(target->v == 7);
    // value -> error: the error is built without throwing
    target = result<fragile>(unexpected(error::unsupported("y", "now an error")));
    CHECK(target.error() == error::unsupported("y", "now an error"));
}
#endif

namespace {
// An error type whose move may throw: result's move must not claim noexcept then.
struct throwing_move_error {
    throwing_move_error() = default;
    throwing_move_error(const throwing_move_error&) = default;
    throwing_move_error(throwing_move_error&&) noexcept(false) {}
    throwing_move_error& operator=(const throwing_move_error&) = default;
    throwing_move_error& operator=(throwing_move_error&&) noexcept(false) { return *this; }
    ~throwing_move_error() {}  // not trivial: the non-trivial storage
};
}  // namespace

// A review found: the traits say what the operations do. Checked at run time so that a regression reports as a
// failed test rather than a compile error elsewhere; the same facts as static_asserts would stop the build.
TEST_CASE("result<T> is copyable exactly when T and E are, and its moves are noexcept only when both are") {
    using move_only = result<std::unique_ptr<int>>;
    CHECK_FALSE(std::is_copy_constructible_v<move_only>);
    CHECK_FALSE(std::is_copy_assignable_v<move_only>);
    CHECK(std::is_move_constructible_v<move_only>);
    CHECK(std::is_move_assignable_v<move_only>);
    CHECK(std::is_nothrow_move_constructible_v<move_only>);
    CHECK(std::is_copy_constructible_v<result<std::string>>);
    CHECK(std::is_copy_assignable_v<result<std::string>>);
    using throwing_e = result<std::string, throwing_move_error>;
    CHECK(std::is_copy_constructible_v<throwing_e>);
    CHECK_FALSE(std::is_nothrow_move_constructible_v<throwing_e>);
    CHECK_FALSE(std::is_nothrow_move_assignable_v<throwing_e>);
    // And a move-only value still moves through.
    move_only a(std::make_unique<int>(7));
    move_only b(std::move(a));
    REQUIRE(b.has_value());
    CHECK(**b == 7);
}
