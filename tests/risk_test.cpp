// Tests of provpol/flow/risk.hpp: BZ#2051997's arithmetic, the 4x between the VDSM configurations, and the planner.
#include "test_support.hpp"

#include <provpol/flow/latency.hpp>
#include <provpol/flow/risk.hpp>

#include <doctest/doctest.h>

#include <string>

using namespace provpol;
using namespace provpol::literals;

namespace {
rate mib_per_s(std::uint64_t n) { return rate(n << 20); }
}  // namespace

TEST_CASE("BZ#2051997's arithmetic: 512 MiB in 3.7 s is 138.4 MiB/s") {
    const pipeline_latency mean_latency = pipeline_latency::fixed(3.7_s).value();
    const rate r = max_write_rate(512_MiB, mean_latency, 0.0);
    CHECK(r.mib_per_second() == doctest::Approx(138.4).epsilon(0.001));
    CHECK(pause_probability(512_MiB, mib_per_s(138), mean_latency) == 0.0);
    CHECK(pause_probability(512_MiB, mib_per_s(139), mean_latency) == 1.0);
    CHECK(pause_probability(512_MiB, rate(0), mean_latency) == 0.0);
}

TEST_CASE("2048 MiB against 512 MiB: four times the pause-free write rate, at every target") {
    const pipeline_latency l = vdsm_polling_2022_independent_latency();
    for (double p : {0.0, 1e-6, 0.001, 0.01, 0.1, 0.5}) {
        CAPTURE(p);
        const double legacy = max_write_rate(vdsm_legacy().trigger().config.limit(false), l, p).mib_per_second();
        const double now = max_write_rate(vdsm_2022().trigger().config.limit(false), l, p).mib_per_second();
        CHECK(now / legacy == doctest::Approx(4.0).epsilon(1e-6));
    }
    // With the longest latency of the polling flow (6.9 s) nothing pauses below 74 and 296 MiB/s.
    CHECK(max_write_rate(512_MiB, l, 0.0).mib_per_second() == doctest::Approx(512.0 / 6.9).epsilon(1e-6));
    // The review's "still pauses above about 400 MiB/s": at 400 MiB/s about 8% of the extends pause.
    CHECK(pause_probability(2048_MiB, mib_per_s(400), l) == doctest::Approx(0.0822).epsilon(0.01));
}

TEST_CASE("pause probability is P(L > limit / rate), monotone in the rate") {
    const pipeline_latency l = vdsm_polling_2022_independent_latency();
    double previous = 0.0;
    for (std::uint64_t r = 10; r <= 2000; r += 10) {
        const double p = pause_probability(512_MiB, mib_per_s(r), l);
        CHECK(p >= previous);
        CHECK(p == l.exceed_probability(seconds(512.0 / static_cast<double>(r))));
        previous = p;
    }
}

TEST_CASE("extends needed to write a disk, and the expected pauses") {
    // Legacy: a 1 GiB disk, crossings at 0.5, 1.5, ..., 49.5 GiB: 50 extends for 50 GiB.
    CHECK(extends_needed(1_GiB, 1_GiB, 512_MiB, 50_GiB) == 50);
    // 2022: a 2.5 GiB disk, crossings at 0.5, 3, 5.5, ... GiB: 20 below 50 GiB.
    CHECK(extends_needed(2560_MiB, 2560_MiB, 2048_MiB, 50_GiB) == 20);
    CHECK(extends_needed(1_GiB, 1_GiB, 512_MiB, 512_MiB) == 0);
    CHECK(extends_needed(1_GiB, 1_GiB, 512_MiB, bytes((512_MiB).count() + 1)) == 1);
    CHECK(extends_needed(1_GiB, 0_B, 512_MiB, 50_GiB) == 0);
    const pipeline_latency l = vdsm_polling_2022_independent_latency();
    CHECK(expected_pauses(vdsm_legacy(), 100_GiB, 50_GiB, mib_per_s(100), l) ==
          doctest::Approx(50 * l.exceed_probability(5.12_s)));
    CHECK(expected_pauses(vdsm_legacy(), 100_GiB, 50_GiB, mib_per_s(75), l) < 1e-3);
}

TEST_CASE("recommend: the smallest configuration that meets the target") {
    const pipeline_latency l = vdsm_polling_2022_independent_latency();
    for (std::uint64_t r : {50u, 138u, 300u, 400u, 550u, 1000u, 4000u}) {
        for (double p : {0.0, 0.001, 0.01, 0.05}) {
            for (std::uint64_t percent : {0u, 20u, 50u, 90u}) {
                CAPTURE(r);
                CAPTURE(p);
                CAPTURE(percent);
                const auto rec = recommend_vdsm(mib_per_s(r), l, p, percent);
                REQUIRE(rec.has_value());
                CHECK(rec->config.percent() == percent);
                CHECK(rec->limit >= rec->required_limit);
                CHECK(rec->pause_probability <= p + 1e-12);
                CHECK(rec->config.chunk().count() % (128ULL << 20) == 0);
                CHECK(rec->new_disk_size == rec->config.chunk());
                CHECK(rec->max_rate >= mib_per_s(r));
                // One extent less no longer meets the target.
                if (rec->config.chunk() > 128_MiB) {
                    const auto smaller = vdsm_config::make(rec->config.chunk() - 128_MiB, percent).value();
                    CHECK(smaller.limit(false) < rec->required_limit);
                }
            }
        }
    }
    // 400 MiB/s with 5% per extend at VDSM's 20%: close to what VDSM chose in 2022 (2560 MiB).
    const auto rec = recommend_vdsm(mib_per_s(400), l, 0.05, 20).value();
    CHECK(rec.config.chunk_mb() == 2688);
}

TEST_CASE("recommend: errors name the setting") {
    const pipeline_latency l = vdsm_polling_2022_independent_latency();
    CHECK(std::string(recommend_vdsm(rate(1), l, 1.5).error().message().view()) ==
          "max_pause_probability must be in [0, 1], got 1.5");
    CHECK(std::string(recommend_vdsm(rate(1), l, 0.01, 100).error().message().view()) ==
          "volume_utilization_percent must be in [0, 99], got 100");
    CHECK(recommend_vdsm(rate(~std::uint64_t{0}), l, 0.01).error().code() == errc::unsupported);
}
