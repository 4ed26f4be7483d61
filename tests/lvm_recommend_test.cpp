// Tests of provpol/simulate/lvm_recommend.hpp: each answer against an exhaustive evaluation of its contract with
// simulate_lvm_plan (every percent below the answer simulated whole and missing, the answer meeting), on the
// examples where a bisection answered above the smallest; the run-by-run check against the whole plan;
// the space a burst needs; the check at other seeds against the plans it summarises.
#include "test_support.hpp"

#include <provpol/simulate/lvm_recommend.hpp>

#include <doctest/doctest.h>

#include <cstdint>

using namespace provpol;
using namespace provpol::literals;

namespace {

const lvm_autoextend_config c70 = lvm_autoextend_config::make(70, 20).value();

lvm_autoextend_config at(std::uint32_t threshold, std::uint32_t percent) {
    return lvm_autoextend_config::make(threshold, percent).value();
}

// The contract by definition: the first percent in [1, max_percent] whose whole plan meets; 0 when none does.
std::uint32_t first_meeting(const lvm_pool_workload& w, std::uint32_t threshold, seconds max_queued, std::uint32_t runs,
                            std::uint64_t seed, double max_extends, std::uint32_t max_percent) {
    for (std::uint32_t p = 1; p <= max_percent; ++p)
        if (lvm_target_met(simulate_lvm_plan(at(threshold, p), lvm_dmeventd(), w, runs, seed), max_queued, max_extends))
            return p;
    return 0;
}

rate gib_s(std::uint64_t n) { return rate(n << 30); }

}  // namespace

TEST_CASE("recommend_lvm_percent: the 1GiB/s example is the smallest percent that meets, not a bisection's") {
    // recommend --preset lvm-thin-autoextend --rate 1GiB/s --pool-size 1GiB --write 200GiB --max-queued 0.25: the
    // bisection answered 98 where 49 met (and 97 did not). CLI defaults: 100 runs, seed 1, at most 20 extends.
    const lvm_pool_workload w{1_GiB, {}, bytes::max(), 200_GiB, gib_s(1)};
    const lvm_percent_answer a = recommend_lvm_percent(c70, lvm_dmeventd(), w, 70, 250_ms, 100, 1, 1000, 20.0);
    const std::uint32_t want = first_meeting(w, 70, 250_ms, 100, 1, 20.0, 1000);
    REQUIRE(want != 0);
    CHECK(a.met);
    CHECK(a.percent == want);
    CHECK(a.plans == want);  // 1 to the answer, each once: the answer's plan is the one the scan held
    const lvm_plan_summary whole = simulate_lvm_plan(at(70, want), lvm_dmeventd(), w, 100, 1);
    CHECK(a.at.queued_max == whole.queued_max);
    CHECK(a.at.extends_mean == whole.extends_mean);
    CHECK(a.at.pool_end_max == whole.pool_end_max);
    CHECK(a.missed_queued + a.missed_extends >= want - 1);  // every percent below missed on something
    // The target is not monotone here: some larger percent misses again (what the bisection assumed away).
    bool misses_above = false;
    for (std::uint32_t p = want + 1; p <= 200 && !misses_above; ++p)
        misses_above = !lvm_target_met(simulate_lvm_plan(at(70, p), lvm_dmeventd(), w, 100, 1), 250_ms, 20.0);
    CHECK(misses_above);
}

TEST_CASE("recommend_lvm_percent: the 16GiB/s example, --max-queued 1") {
    // The bisection answered 809 where 306 met.
    const lvm_pool_workload w{1_GiB, {}, bytes::max(), 200_GiB, gib_s(16)};
    const lvm_percent_answer a = recommend_lvm_percent(c70, lvm_dmeventd(), w, 70, 1_s, 100, 1, 1000, 20.0);
    const std::uint32_t want = first_meeting(w, 70, 1_s, 100, 1, 20.0, 1000);
    REQUIRE(want != 0);
    CHECK(a.met);
    CHECK(a.percent == want);
}

TEST_CASE("recommend_lvm_percent: the user's settings keep up, so an answer exists") {
    // --pool-size 2TiB --pool-used 70% --vg-free 500GiB --threshold 80 --rate 1GB/s --write 1TB: percent 1000's
    // first extend cannot fit in the VG, so a search that starts there said "cannot keep up"; percent 20 queues
    // nothing. 20 runs here.
    const bytes pool = 2_TiB;
    const lvm_pool_workload w{pool, bytes(pool.count() / 10 * 7), 500_GiB, bytes(std::uint64_t{1000000000000}),
                              rate(std::uint64_t{1000000000})};
    const auto c80 = at(80, 20);
    const lvm_percent_answer a = recommend_lvm_percent(c80, lvm_dmeventd(), w, 80, 0_s, 20, 1, 1000, 20.0);
    CHECK(a.met);
    CHECK(a.percent == first_meeting(w, 80, 0_s, 20, 1, 20.0, 1000));
    CHECK(a.percent <= 20);
    CHECK(lvm_target_met(simulate_lvm_plan(c80, lvm_dmeventd(), w, 20, 1), 0_s, 20.0));
    CHECK_FALSE(lvm_target_met(simulate_lvm_plan(at(80, 1000), lvm_dmeventd(), w, 20, 1), 0_s, 20.0));
}

TEST_CASE("lvm_pool_space: the data against the pool and the VG's free extents, to the byte") {
    // 1 GiB pool, 1 GiB + 3 MiB free in a VG of 4 MiB extents: the pool grows by 256 extents at most, to 2 GiB.
    lvm_pool_workload w{1_GiB, 512_MiB, bytes((std::uint64_t{1} << 30) + (std::uint64_t{3} << 20)), 1536_MiB, gib_s(1)};
    lvm_space s = lvm_pool_space(c70, w);
    CHECK(s.needed == 2_GiB);
    CHECK(s.available == 2_GiB);
    CHECK(s.missing() == 0_B);
    CHECK_FALSE(s.extent_limit);
    w.write = w.write + 1_B;  // one byte more than the pool can ever hold
    s = lvm_pool_space(c70, w);
    CHECK(s.missing() == 1_B);
    // Then no percent meets, at once: nothing is simulated.
    const lvm_percent_answer a = recommend_lvm_percent(c70, lvm_dmeventd(), w, 70, 86400_s, 5, 1, 1000, 1e300);
    CHECK_FALSE(a.met);
    CHECK(a.plans == 0);
    CHECK(a.space.missing() == 1_B);
    // And the simulator agrees: the pool fills and its writes fail, whatever the percent.
    for (const std::uint32_t p : {1u, 20u, 100u, 1000u}) {
        const lvm_plan_summary sum = simulate_lvm_plan(at(70, p), lvm_dmeventd(), w, 5, 1);
        CHECK(sum.eio_runs == 5);
    }
    // Unlimited VG, 1 KiB extents: lvm2's 2^32 - 1 extents (an extend stays below it) bound the pool at 4 TiB - 2 KiB.
    const auto small_extents = lvm_autoextend_config::make(70, 20, 1_KiB).value();
    const lvm_pool_workload big{1_GiB, {}, bytes::max(), 8_TiB, gib_s(1)};
    s = lvm_pool_space(small_extents, big);
    CHECK(s.extent_limit);
    CHECK(s.available == bytes((std::uint64_t{0xffffffff} - 1) * 1024 / 65536 * 65536));
    CHECK(s.missing() == bytes(big.write.count() - s.available.count()));
}

TEST_CASE("check_lvm_plan: the whole plan's verdict, run by run, and its summary when it meets") {
    const lvm_pool_workload w{1_GiB, {}, bytes::max(), 200_GiB, gib_s(1)};
    int met = 0, missed = 0;
    for (std::uint32_t p = 1; p <= 150; ++p)
        for (const double max_extends : {20.0, 1e300}) {
            const lvm_plan_summary whole = simulate_lvm_plan(at(70, p), lvm_dmeventd(), w, 30, 4);
            const lvm_plan_check k = check_lvm_plan(at(70, p), lvm_dmeventd(), w, 30, 4, 250_ms, max_extends);
            CAPTURE(p);
            CHECK(k.met == lvm_target_met(whole, 250_ms, max_extends));
            if (k.met) {
                ++met;
                CHECK(k.seen.runs == 30);
                CHECK(k.seen.queued_mean == whole.queued_mean);
                CHECK(k.seen.extends_mean == whole.extends_mean);
                CHECK(k.seen.ended_at_mean == whole.ended_at_mean);
            } else {
                ++missed;
                CHECK(k.seen.runs <= 30);
                CHECK((k.queued_over || k.extends_over || k.seen.eio_runs != 0));
            }
        }
    CHECK(met > 0);
    CHECK(missed > 0);
}

TEST_CASE("check_lvm_percent_seeds: the answer at other seeds, against their plans") {
    // An answer that holds at some seeds only (38 meets at 2 of seeds 7-11; 45 at all five).
    const lvm_pool_workload w{1_GiB, {}, bytes::max(), 100_GiB, gib_s(1)};
    const lvm_percent_answer a = recommend_lvm_percent(c70, lvm_dmeventd(), w, 70, 300_ms, 20, 7, 1000, 20.0);
    REQUIRE(a.met);
    const lvm_seed_check k =
        check_lvm_percent_seeds(c70, lvm_dmeventd(), w, 70, a.percent, 300_ms, 20, 7, 5, 1000, 20.0);
    const auto meets_all = [&](std::uint32_t p) {
        for (std::uint64_t s = 7; s < 12; ++s)
            if (!lvm_target_met(simulate_lvm_plan(at(70, p), lvm_dmeventd(), w, 20, s), 300_ms, 20.0)) return false;
        return true;
    };
    std::uint32_t meets_at = 0;
    for (std::uint64_t s = 7; s < 12; ++s)
        meets_at +=
            lvm_target_met(simulate_lvm_plan(at(70, a.percent), lvm_dmeventd(), w, 20, s), 300_ms, 20.0) ? 1u : 0u;
    CHECK(k.seeds == 5);
    CHECK(k.meets_at == meets_at);
    std::uint32_t all = 0;
    for (std::uint32_t p = 1; p <= 1000 && all == 0; ++p)
        if (meets_all(p)) all = p;
    CHECK(k.found_all == (all != 0));
    CHECK(k.percent_all == all);
    CHECK(k.meets_at < 5);  // the case this test is for: the answer at one seed is not the answer at all
}
