// Tests of provpol/simulate/search.hpp: each search against an exhaustive evaluation of its range, on predicates
// that are not monotone (the case a bisection gets wrong), with errors, empty ranges and the type's maximum.
#include <provpol/random.hpp>
#include <provpol/simulate/search.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <vector>

using namespace provpol;

namespace {

// The contracts, written as definitions over a table of outcomes: the first index that meets; the last index of
// the run of meeting indices that starts at lo.
std::int64_t first_meeting(const std::vector<bool>& meets, std::int64_t lo, std::int64_t hi) {
    for (std::int64_t x = lo; x <= hi; ++x)
        if (meets[static_cast<std::size_t>(x)]) return x;
    return -1;
}
std::int64_t end_of_run(const std::vector<bool>& meets, std::int64_t lo, std::int64_t hi) {
    std::int64_t n = lo - 1;
    while (n + 1 <= hi && meets[static_cast<std::size_t>(n + 1)]) ++n;
    return n;
}

}  // namespace

TEST_CASE("smallest_meeting and longest_meeting_run equal an exhaustive scan on non-monotone predicates") {
    detail::xoshiro256 rng(11);
    int non_monotone = 0, bisection_wrong = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        const std::size_t n = 1 + rng.below(60);
        std::vector<bool> meets(n);
        const std::uint64_t density = 1 + rng.below(9);  // from rarely to nearly always meeting
        for (std::size_t i = 0; i < n; ++i) meets[i] = rng.below(10) < density;
        const auto lo = static_cast<std::int64_t>(rng.below(n));
        const auto hi = lo + static_cast<std::int64_t>(rng.below(n - static_cast<std::size_t>(lo)));
        std::uint64_t calls = 0;
        const auto pred = [&](std::int64_t x) {
            ++calls;
            REQUIRE(x >= lo);
            REQUIRE(x <= hi);
            return static_cast<bool>(meets[static_cast<std::size_t>(x)]);
        };
        const auto s = smallest_meeting(lo, hi, pred);
        REQUIRE(s.has_value());
        const std::int64_t want = first_meeting(meets, lo, hi);
        CHECK(s->found == (want >= 0));
        if (want >= 0) CHECK(s->value == want);
        CHECK(s->evaluations == calls);
        CHECK(s->evaluations == static_cast<std::uint64_t>((want >= 0 ? want : hi) - lo + 1));

        calls = 0;
        const auto r = longest_meeting_run(lo, hi, pred);
        REQUIRE(r.has_value());
        const std::int64_t run = end_of_run(meets, lo, hi);
        CHECK(r->value == run);
        CHECK(r->found == (run >= lo));
        CHECK(r->whole_range == (run == hi));
        CHECK(r->evaluations == calls);

        // What a bisection between a known miss and a known meet would answer: often a local answer.
        bool monotone = true;
        for (std::int64_t x = lo; x < hi; ++x)
            if (meets[static_cast<std::size_t>(x)] && !meets[static_cast<std::size_t>(x + 1)]) monotone = false;
        if (!monotone) {
            ++non_monotone;
            if (want >= 0 && meets[static_cast<std::size_t>(hi)] && !meets[static_cast<std::size_t>(lo)]) {
                std::int64_t a = lo, b = hi;  // a misses, b meets
                while (b - a > 1) {
                    const std::int64_t mid = a + (b - a) / 2;
                    (meets[static_cast<std::size_t>(mid)] ? b : a) = mid;
                }
                if (b != want) ++bisection_wrong;
            }
        }
    }
    CHECK(non_monotone > 1000);    // the sweep exercises what the searches are for
    CHECK(bisection_wrong > 100);  // and on it a bisection is wrong, so the comparison above can fail
}

TEST_CASE("the searches stop at the first answer, pass errors on, and handle empty ranges and the type's maximum") {
    int calls = 0;
    const auto s = smallest_meeting(1, 1000, [&](int x) {
        ++calls;
        return x >= 7;
    });
    REQUIRE(s.has_value());
    CHECK(s->value == 7);
    CHECK(calls == 7);
    CHECK(s->evaluations == 7);

    const auto none = smallest_meeting(3, 9, [](int) { return false; });
    REQUIRE(none.has_value());
    CHECK_FALSE(none->found);
    CHECK(none->evaluations == 7);

    const auto empty = smallest_meeting(5, 4, [](int) { return true; });
    REQUIRE(empty.has_value());
    CHECK_FALSE(empty->found);
    CHECK(empty->evaluations == 0);

    const auto failing = smallest_meeting(1, 10, [](int x) -> result<bool> {
        if (x == 3)
            return unexpected(
                error::out_of_range("writers", error_value::of(3), error_value::of(4), error_value::of(9)));
        return false;
    });
    REQUIRE_FALSE(failing.has_value());
    CHECK(failing.error().code() == errc::out_of_range);

    const auto first_misses =
        longest_meeting_run(std::uint32_t{1}, std::uint32_t{50}, [](std::uint32_t) { return false; });
    REQUIRE(first_misses.has_value());
    CHECK(first_misses->value == 0);
    CHECK_FALSE(first_misses->found);
    CHECK(first_misses->evaluations == 1);

    // 1..5 meet, 6 misses, 7.. meet again: the run ends at 5 whatever lies beyond.
    const auto gap = longest_meeting_run(std::uint32_t{1}, std::uint32_t{20}, [](std::uint32_t x) { return x != 6; });
    REQUIRE(gap.has_value());
    CHECK(gap->value == 5);
    CHECK_FALSE(gap->whole_range);

    constexpr std::uint8_t top = std::numeric_limits<std::uint8_t>::max();
    const auto all = longest_meeting_run(std::uint8_t{250}, top, [](std::uint8_t) { return true; });
    REQUIRE(all.has_value());
    CHECK(all->value == top);
    CHECK(all->whole_range);
    CHECK(all->evaluations == 6);
    const auto at_top = smallest_meeting(std::uint8_t{250}, top, [](std::uint8_t x) { return x == top; });
    REQUIRE(at_top.has_value());
    CHECK(at_top->value == top);
    CHECK(at_top->evaluations == 6);
}
