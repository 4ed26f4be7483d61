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

namespace {

// smallest_meeting_window's contract by definition: the first x in [lo, hi - span] whose window [x, x + span] meets
// throughout; -1 when none.
std::int64_t first_meeting_window(const std::vector<bool>& meets, std::int64_t lo, std::int64_t hi, std::int64_t span) {
    for (std::int64_t x = lo; x + span <= hi; ++x) {
        bool all = true;
        for (std::int64_t y = x; y <= x + span; ++y) all = all && meets[static_cast<std::size_t>(y)];
        if (all) return x;
    }
    return -1;
}

}  // namespace

TEST_CASE("smallest_meeting_window equals an exhaustive scan of every window, and differs from smallest_meeting") {
    detail::xoshiro256 rng(23);
    int on_an_edge = 0;  // smallest_meeting's answer has a miss within span above it
    for (int trial = 0; trial < 4000; ++trial) {
        const std::size_t n = 1 + rng.below(80);
        std::vector<bool> meets(n);
        const std::uint64_t density = 3 + rng.below(7);
        for (std::size_t i = 0; i < n; ++i) meets[i] = rng.below(10) < density;
        const auto lo = static_cast<std::int64_t>(rng.below(n));
        const auto hi = lo + static_cast<std::int64_t>(rng.below(n - static_cast<std::size_t>(lo)));
        const auto span = static_cast<std::int64_t>(rng.below(8));
        std::uint64_t calls = 0;
        std::int64_t last = lo - 1;
        const auto pred = [&](std::int64_t x) {
            ++calls;
            REQUIRE(x == last + 1);  // in increasing order, each once
            last = x;
            return static_cast<bool>(meets[static_cast<std::size_t>(x)]);
        };
        const auto w = smallest_meeting_window(lo, hi, span, pred);
        REQUIRE(w.has_value());
        const std::int64_t want = first_meeting_window(meets, lo, hi, span);
        CHECK(w->found == (want >= 0));
        CHECK(w->value == (want >= 0 ? want : hi));
        CHECK(w->evaluations == calls);
        if (want >= 0) CHECK(w->evaluations == static_cast<std::uint64_t>(want + span - lo + 1));
        const std::int64_t plain = first_meeting(meets, lo, hi);
        if (span == 0) CHECK(want == plain);
        if (want >= 0 && plain >= 0 && plain < want) ++on_an_edge;
    }
    CHECK(on_an_edge > 300);  // the margin moves the answer often: the comparison above can fail
}

TEST_CASE("smallest_meeting_window: a range shorter than the window, errors, and the type's maximum") {
    const auto short_range = smallest_meeting_window(1, 3, 3, [](int) { return true; });
    REQUIRE(short_range.has_value());
    CHECK_FALSE(short_range->found);
    CHECK(short_range->evaluations == 0);
    const auto exact = smallest_meeting_window(1, 4, 3, [](int) { return true; });
    REQUIRE(exact.has_value());
    CHECK(exact->value == 1);
    CHECK(exact->evaluations == 4);
    // 10 meets alone, 12 to 15 meet together: with span 3 the answer is 12, not 10.
    const auto edge = smallest_meeting_window(1, 100, 3, [](int x) { return x == 10 || (x >= 12 && x <= 15); });
    REQUIRE(edge.has_value());
    CHECK(edge->value == 12);
    CHECK(edge->evaluations == 15);
    const auto failing = smallest_meeting_window(1, 10, 2, [](int x) -> result<bool> {
        if (x == 4)
            return unexpected(
                error::out_of_range("percent", error_value::of(4), error_value::of(5), error_value::of(9)));
        return true;
    });
    REQUIRE(failing.has_value());  // 1 to 3 met before 4 was asked
    CHECK(failing->value == 1);
    const auto failing_first = smallest_meeting_window(1, 10, 5, [](int x) -> result<bool> {
        if (x == 4)
            return unexpected(
                error::out_of_range("percent", error_value::of(4), error_value::of(5), error_value::of(9)));
        return true;
    });
    REQUIRE_FALSE(failing_first.has_value());
    constexpr std::uint8_t top = std::numeric_limits<std::uint8_t>::max();
    const auto at_top =
        smallest_meeting_window(std::uint8_t{250}, top, std::uint8_t{2}, [](std::uint8_t x) { return x >= 253; });
    REQUIRE(at_top.has_value());
    CHECK(at_top->value == 253);
    CHECK(at_top->evaluations == 6);
}
