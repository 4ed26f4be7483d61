// Tests of provpol/simulate/lvm_pool.hpp's rate-aware extender (lvm_extender) and lvm_recommend.hpp's
// recommend_lvm_horizon: runs followed by hand with a fixed lvextend time (the timeline next to each value), the
// caps over a grid, the burst dmeventd cannot keep up with, the metadata grown as lvm2 grows it, and the horizon
// recommend finds against an exhaustive scan of its contract.
#include "test_support.hpp"

#include <provpol/simulate/lvm_pool.hpp>
#include <provpol/simulate/lvm_recommend.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

using namespace provpol;
using namespace provpol::literals;

namespace {

const lvm_autoextend_config c70 =
    lvm_autoextend_config::make(lvm_threshold(70), lvm_percent(20)).value();  // 4 MiB extents, 64 KiB chunks

// lvextend takes exactly 1 s; dmeventd's poll is an hour apart (it does not run with the rate-aware extender).
lvm_dmeventd_model fixed_model() { return lvm_dmeventd_model::make(1_s, 1_s, 0.5, 3600_s, 60_s).value(); }

// lead factor 2, margin 1 s, the given horizon; 4 MiB extents, 64 KiB chunks; the given caps; no floor (the rate
// rule alone, as worked by hand below; the floor and the metadata rule have their own cases).
lvm_extender rate_aware(seconds interval, seconds horizon = 30_s, bytes max_pool = bytes::max(),
                        bytes max_take = bytes::max(), std::uint32_t floor_percent = 0,
                        std::uint64_t metadata_threshold = 100) {
    lvm_rate_aware_settings s;
    s.min_free_percent = floor_percent;
    s.metadata_threshold = metadata_threshold;
    s.horizon = horizon;
    s.max_pool_size = max_pool;
    s.max_vg_take = max_take;
    return lvm_extender::make_rate_aware(lvm_rate_aware_config::make(s).value(), interval).value();
}

constexpr rate mib_s(std::uint64_t n) { return rate(n << 20); }

// Seed 7's first draw, the sample's phase as a fraction of the interval (checked below).
constexpr std::uint64_t seed = 7;

}  // namespace

TEST_CASE("lvm_extender: the interval is checked") {
    const auto cfg = lvm_rate_aware_config::make(lvm_rate_aware_settings{}).value();
    CHECK(std::string(lvm_extender::make_rate_aware(cfg, 5_ms).error().message().view()) ==
          "interval must be in [0.01 s, 3600 s], got 0.005 s");
    CHECK(lvm_extender::make_rate_aware(cfg, 3601_s).error().setting() == text_view("interval"));
    CHECK(lvm_extender::make_rate_aware(cfg, 10_ms).value().is_rate_aware());
    CHECK_FALSE(lvm_extender::dmeventd().is_rate_aware());
    CHECK(random_stream(seed).uniform() == doctest::Approx(0.700576482).epsilon(1e-9));
}

TEST_CASE("rate-aware: a 64 MiB pool filled at 50 MiB/s, sampled every second, followed event by event") {
    const lvm_pool_workload w{64_MiB, {}, bytes::max(), 70_MiB, mib_s(50)};
    const lvm_run_result r = simulate_lvm_run(c70, fixed_model(), w, seed, rate_aware(1_s));
    // The last sample before the burst, at 0.700576482 - 1 s, saw 0 blocks. The next, at 0.700576482 s, sees
    // 35.0288 MiB written: 561 blocks, a rate of 561 x 64 KiB / 1 s = 35.0625 MiB/s (the window holds idle time).
    // Lead 2 x 1 + 1 = 3 s: 105.1875 MiB > the 463 free blocks (28.9375 MiB), an extend. Amount: 35.0625 x 33 -
    // 28.9375 = 1128.125 MiB, 283 extents: 16 + 283 = 299 extents, 1196 MiB, live at 1.700576482 s. The pool was
    // full at 64 / 50 = 1.28 s: queued 0.420576482 s. The last 6 MiB are written by 1.820576482 s.
    CHECK(r.extends == 1);
    CHECK(r.commands == 1);
    CHECK(r.failed_commands == 0);
    CHECK(r.times_full == 1);
    CHECK(r.queued.count() == doctest::Approx(0.420576482).epsilon(1e-9));
    CHECK(r.pool_end == 1196_MiB);
    CHECK(r.ended_at.count() == doctest::Approx(1.820576482).epsilon(1e-9));
    CHECK_FALSE(r.eio);
    CHECK_FALSE(r.vg_exhausted);
    CHECK(r.vg_free_end == bytes::max());
    // dmeventd on the same burst queues 0.61625 s (lvm_flow_test.cpp).
    CHECK(simulate_lvm_run(c70, fixed_model(), w, seed).queued.count() == doctest::Approx(0.61625).epsilon(1e-9));
}

TEST_CASE("rate-aware: sampled every 0.1 s the same burst never queues, where dmeventd always does") {
    const lvm_pool_workload w{64_MiB, {}, bytes::max(), 70_MiB, mib_s(50)};
    // Seed 7: the sample at 0.0700576482 s sees 57 blocks over 0.1 s, 35.625 MiB/s; 106.875 MiB > 60.4375 MiB free.
    // Amount 35.625 x 33 - 60.4375 = 1115.1875 MiB, 279 extents, to 295 (1180 MiB), live at 1.0700576 s < 1.28 s.
    const lvm_run_result r = simulate_lvm_run(c70, fixed_model(), w, seed, rate_aware(100_ms));
    CHECK(r.times_full == 0);
    CHECK(r.queued == 0_s);
    CHECK(r.pool_end == 1180_MiB);
    CHECK(r.ended_at.count() == doctest::Approx(1.4).epsilon(1e-9));
    // Every phase: the first sample comes within 0.1 s, the extend within 1.1 s, before the pool fills at 1.28 s.
    for (std::uint64_t s = 1; s <= 200; ++s) {
        CAPTURE(s);
        const lvm_run_result q = simulate_lvm_run(c70, fixed_model(), w, s, rate_aware(100_ms));
        CHECK(q.queued == 0_s);
        CHECK_FALSE(q.eio);
        CHECK(simulate_lvm_run(c70, fixed_model(), w, s).queued > 0_s);
    }
    // With dmeventd's own service times (0.2-0.55 s) dmeventd queues in some runs (its event comes at 0.896 s, its
    // extend lands by 1.446 s), the rate-aware extender in none.
    const lvm_plan_summary p = simulate_lvm_plan(c70, lvm_dmeventd(), w, 100, 1, rate_aware(100_ms));
    CHECK(p.queued_runs == 0);
    CHECK(simulate_lvm_plan(c70, lvm_dmeventd(), w, 100, 1).queued_runs > 0);
}

TEST_CASE("rate-aware: no low-water event and no poll: an idle pool above the threshold is left alone") {
    // 90% used, nothing written: dmeventd extends on its first poll; the rate-aware extender sees rate 0.
    const lvm_pool_workload w{64_MiB, 58_MiB, bytes::max(), 64_KiB, rate(1)};
    const lvm_dmeventd_model poll = lvm_dmeventd_model::make(1_s, 1_s, 0.5, 10_s, 60_s).value();
    CHECK(simulate_lvm_run(c70, poll, w, seed).extends >= 1);
    const lvm_run_result r = simulate_lvm_run(c70, poll, w, seed, rate_aware(1_s));
    CHECK(r.extends == 0);
    CHECK(r.commands == 0);
    CHECK(r.pool_end == 64_MiB);
}

TEST_CASE("rate-aware: the floor: an idle pool 90% used is grown to keep 10% free, once") {
    // 928 of 1024 blocks used: 6 MiB free, under 10% of 64 MiB (6.4 MiB): (6.4 - 6) / 0.9 MiB short, one extent;
    // 68 MiB keeps 10 MiB free, more than its 6.8 MiB floor, for the rest of the run.
    const lvm_pool_workload w{64_MiB, 58_MiB, bytes::max(), 64_KiB, rate(1)};
    const lvm_dmeventd_model poll = lvm_dmeventd_model::make(1_s, 1_s, 0.5, 10_s, 60_s).value();
    const lvm_run_result r =
        simulate_lvm_run(c70, poll, w, seed, rate_aware(1_s, 30_s, bytes::max(), bytes::max(), 10));
    CHECK(r.extends == 1);
    CHECK(r.pool_end == 68_MiB);
    CHECK(r.times_full == 0);
}

TEST_CASE("rate-aware: a pool full when the burst starts catches its writer (what it takes once grown is the rate)") {
    // 64 MiB full, 512 MiB to write at 64 MiB/s, sampled every 0.1 s, lvextend 0.2 to 0.55 s. The first sample sees
    // no rate: one extent. Once it lands the pool takes 64 MiB/s again; the next sample, one interval later, finds it
    // full again, and what it took since the extend returned, over that time, is 64 MiB/s: the next extend is sized
    // for it. (A rate measured afresh from each sample, as before, read 0 every time: one extent a tick.)
    const lvm_pool_workload w{64_MiB, 64_MiB, bytes::max(), 512_MiB, mib_s(64)};
    for (std::uint64_t s = 1; s <= 50; ++s) {
        CAPTURE(s);
        const lvm_run_result r = simulate_lvm_run(c70, lvm_dmeventd(), w, s, rate_aware(100_ms, 5_s));
        CHECK(r.times_full <= 3);
        CHECK(r.extends <= 4);
        CHECK(r.queued < 2_s);
        CHECK_FALSE(r.eio);
    }
}

TEST_CASE("rate-aware: the metadata grows by lvm2's own rule with dmeventd's monitoring off") {
    // plan --policy rate-aware --pool-size 1t --metadata-size 128m --metadata-used 50% --rate 1GB/s --duration 20min:
    // the data has room for the whole burst, the metadata does not (it runs out after 108.2 s). Without a rule for
    // the metadata (threshold 100, lvm2's default) every run fails with EIO there; with the pool's 70/20, none does.
    lvm_pool_workload w{1_TiB, {}, bytes::max(), bytes(std::uint64_t{1200} * 1000000000), rate(1000000000)};
    w.metadata_size = 128_MiB;
    w.metadata_used = 64_MiB;
    const lvm_extender off = rate_aware(1_s, 30_s, 2_TiB, 1_TiB, 10, 100);
    const lvm_extender on = rate_aware(1_s, 30_s, 2_TiB, 1_TiB, 10, 70);
    const lvm_plan_summary without = simulate_lvm_plan(c70, lvm_dmeventd(), w, 10, 1, off);
    CHECK(without.metadata_full_runs == 10);
    const lvm_plan_summary with = simulate_lvm_plan(c70, lvm_dmeventd(), w, 10, 1, on);
    CHECK(with.metadata_full_runs == 0);
    CHECK(with.eio_runs == 0);
    CHECK(with.metadata_extends_mean > 1.0);
}

TEST_CASE("rate-aware: the caps are never exceeded, and the metadata grows as lvm2 grows it") {
    const lvm_dmeventd_model m = lvm_dmeventd();
    for (const std::uint64_t cap_mib : {1024u, 1100u, 2048u, 3000u, 8192u})
        for (const std::uint64_t take_mib : {0u, 4u, 100u, 1000u, 5000u})
            for (const std::uint64_t vg_mib : {8u, 600u, 1500u, 100000u})
                for (const std::uint64_t s : {1u, 2u, 3u}) {
                    CAPTURE(cap_mib);
                    CAPTURE(take_mib);
                    CAPTURE(vg_mib);
                    CAPTURE(s);
                    lvm_pool_workload w{1_GiB, 512_MiB, bytes(vg_mib << 20), 4_GiB, mib_s(400)};
                    w.metadata_size = 4_MiB;
                    w.metadata_used = 100_KiB;
                    const bytes cap(cap_mib << 20), take(take_mib << 20);
                    const lvm_run_result r = simulate_lvm_run(c70, m, w, s, rate_aware(1_s, 30_s, cap, take));
                    const bytes taken = (r.pool_end - w.pool_size) + (r.metadata_end - w.metadata_size);
                    CHECK(r.pool_end <= (cap > w.pool_size ? cap : w.pool_size));
                    CHECK(taken <= take);
                    CHECK(taken <= w.vg_free);
                    CHECK(r.vg_free_end == w.vg_free - taken);
                    const std::uint64_t le = r.pool_end.count() >> 22;
                    CHECK(r.metadata_end.count() ==
                          lvm_metadata_extents_after(le, w.metadata_size, 4_MiB, 64_KiB) * (std::uint64_t{4} << 20));
                    CHECK(r.failed_commands == 0);
                    CHECK(r.commands == r.extends);
                    // Without a cap in the way the burst is met.
                    if (cap_mib >= 8192 && take_mib >= 5000 && vg_mib >= 100000) CHECK_FALSE(r.eio);
                }
    // The metadata grew at all: 4 GiB more of 64 KiB chunks wants 64 B each, more than 4 MiB.
    lvm_pool_workload w{1_GiB, 512_MiB, bytes::max(), 4_GiB, mib_s(400)};
    w.metadata_size = 4_MiB;
    const lvm_run_result r = simulate_lvm_run(c70, m, w, 1, rate_aware(1_s));
    CHECK(r.metadata_extends >= 1);
    CHECK(r.metadata_end > 4_MiB);
}

namespace {

// The contract by definition: the first horizon in [1, max_h] whose whole plan meets; 0 when none does.
std::uint32_t first_meeting_horizon(const lvm_pool_workload& w, seconds interval, seconds max_queued,
                                    std::uint32_t runs, std::uint64_t s, double max_extends, std::uint32_t max_h) {
    for (std::uint32_t h = 1; h <= max_h; ++h)
        if (lvm_target_met(simulate_lvm_plan(c70, lvm_dmeventd(), w, runs, s,
                                             rate_aware(interval, seconds(static_cast<double>(h)))),
                           max_queued, max_extends))
            return h;
    return 0;
}

}  // namespace

TEST_CASE("recommend_lvm_horizon: the smallest horizon that meets, against an exhaustive scan") {
    const lvm_pool_workload w{1_GiB, {}, bytes::max(), 8_GiB, mib_s(200)};
    lvm_rate_aware_settings st;
    for (const double max_extends : {2.0, 3.0, 5.0, 8.0, 30.0})
        for (const std::uint64_t s : {1u, 2u}) {
            CAPTURE(max_extends);
            CAPTURE(s);
            const lvm_horizon_answer a =
                recommend_lvm_horizon(c70, lvm_dmeventd(), w, st, 1_s, 0_s, 10, s, 60, max_extends);
            const std::uint32_t want = first_meeting_horizon(w, 1_s, 0_s, 10, s, max_extends, 60);
            CHECK(a.met == (want != 0));
            if (want == 0) continue;
            CHECK(a.horizon == want);
            CHECK(a.plans == want);
            CHECK(a.missed_extends + a.missed_queued >= want - 1);
            st.horizon = seconds(static_cast<double>(want));
            const lvm_plan_summary p =
                simulate_lvm_plan(c70, lvm_dmeventd(), w, 10, s,
                                  lvm_extender::make_rate_aware(lvm_rate_aware_config::make(st).value(), 1_s).value());
            CHECK(a.at.extends_mean == p.extends_mean);
            CHECK(a.at.queued_max == p.queued_max);
        }
    // A burst the pool and the VG cannot hold: no horizon, nothing simulated.
    const lvm_pool_workload big{1_GiB, {}, 1_GiB, 8_GiB, mib_s(200)};
    const lvm_horizon_answer none = recommend_lvm_horizon(c70, lvm_dmeventd(), big, st, 1_s, 0_s, 10, 1);
    CHECK_FALSE(none.met);
    CHECK(none.plans == 0);
    CHECK(none.space.missing() > bytes(0));
}
