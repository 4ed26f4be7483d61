// Tests of provpol/simulate/lvm_pool.hpp: dmeventd's timing and a thin pool under a write burst. The scenarios use a
// fixed lvextend time and a poll an hour apart, so that each event can be followed by hand; the timeline is
// written next to each expected value.
#include "test_support.hpp"

#include <provpol/simulate/lvm_pool.hpp>
#include <provpol/simulate/run.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using namespace provpol;
using namespace provpol::literals;

namespace {

const lvm_autoextend_config c70 =
    lvm_autoextend_config::make(lvm_threshold(70), lvm_percent(20)).value();  // 4 MiB extents, 64 KiB chunks

// lvextend takes exactly 1 s and reads the status half-way; dmeventd polls once an hour.
lvm_dmeventd_model fixed_model() { return lvm_dmeventd_model::make(1_s, 1_s, 0.5, 3600_s, 60_s).value(); }

// Seed 7's first draw, the poll's phase, is late enough (checked here) that no poll falls in these scenarios.
constexpr std::uint64_t seed = 7;

TEST_CASE("LVM flow: the model's settings are checked") {
    CHECK(std::string(lvm_dmeventd_model::make(0_s, 1_s).error().message().view()) ==
          "lvextend_min must be in [0 s, 3600 s], got 0 s");
    CHECK(std::string(lvm_dmeventd_model::make(2_s, 1500_ms).error().message().view()) ==
          "lvextend_max must be in [2 s, 3600 s], got 1.5 s");
    CHECK(lvm_dmeventd_model::make(1_s, 1_s, 1.5).error().setting() == text_view("status_read_fraction"));
    CHECK(std::string(lvm_dmeventd_model::make(1_s, 1_s, 0.5, 50_ms).error().message().view()) ==
          "poll_interval must be in [0.1 s, 3600 s], got 0.05 s");
    CHECK(lvm_dmeventd_model::make(1_s, 1_s, 0.5, 10_s, seconds(-1.0)).error().setting() ==
          text_view("no_space_timeout"));
    CHECK(lvm_dmeventd_model::make(1_s, 1_s, 0.5, 10_s, 86401_s).error().setting() == text_view("no_space_timeout"));
    // NaN is refused for every time (std::chrono's >= and <= would let it pass: a >= b is !(a < b)).
    const seconds nan(std::numeric_limits<double>::quiet_NaN());
    CHECK(lvm_dmeventd_model::make(nan, 1_s).error().setting() == text_view("lvextend_min"));
    CHECK(lvm_dmeventd_model::make(1_s, nan).error().setting() == text_view("lvextend_max"));
    CHECK(lvm_dmeventd_model::make(1_s, 1_s, 0.5, nan).error().setting() == text_view("poll_interval"));
    CHECK(lvm_dmeventd_model::make(1_s, 1_s, 0.5, 10_s, nan).error().setting() == text_view("no_space_timeout"));
    // The bounds themselves are accepted, and the accessors give back what was made.
    const lvm_dmeventd_model edge = lvm_dmeventd_model::make(1_ms, 3600_s, 0.0, 100_ms, 86400_s).value();
    CHECK(edge.lvextend_min() == 1_ms);
    CHECK(edge.lvextend_max() == 3600_s);
    CHECK(edge.poll_interval() == 100_ms);
    CHECK(edge.no_space_timeout() == 86400_s);
    // dmeventd's defaults (lvm_dmeventd()): lvextend 0.2-0.55 s, a 10 s poll, dm-thin's 60 s no_space_timeout.
    CHECK(lvm_dmeventd().poll_interval() == 10_s);
    CHECK(lvm_dmeventd().no_space_timeout() == 60_s);
    CHECK(random_stream(seed).uniform() * 3600.0 > 100.0);
}

TEST_CASE("LVM flow: a 64 MiB pool filled at 50 MiB/s, followed event by event") {
    const lvm_pool_workload w{64_MiB, {}, bytes::max(), 70_MiB, rate(std::uint64_t{50} << 20)};
    const lvm_run_result r = simulate_lvm_run(c70, fixed_model(), w, seed);
    // 1024 blocks, low-water mark 1024 x 30 / 100 = 307: the event comes with block 718, past 717 x 64 KiB =
    // 44.8125 MiB, at 0.89625 s. lvextend reads the status at 1.39625 s; the pool was full at 64 / 50 = 1.28 s
    // (its event waits for the running command): 100% is amount ceil(1e8 / 700000) - 100 = 43, 16 x 43% = 6.88,
    // so 7 extents, to 92 MiB, live at 1.89625 s. Queued 1.89625 - 1.28 = 0.61625 s.
    CHECK(r.times_full == 1);
    CHECK(r.queued.count() == doctest::Approx(0.61625).epsilon(1e-9));
    CHECK(r.longest_queue.count() == doctest::Approx(0.61625).epsilon(1e-9));
    // The full pool's pending event runs lvextend again at 1.89625 s; 92 MiB is 1472 blocks, low water 441, so
    // block 1032 (64.4375 MiB, at 1.905 s) raises an event that waits too. The burst ends at 70 MiB, 2.01625 s.
    // The second lvextend reads 1120 of 1472 blocks (76.09%): amount max(20, 9), 23 x 20% = 4.6, 5 extents, to
    // 112 MiB. The third, for the low-water event, finds 62.5%: nothing.
    CHECK(r.extends == 2);
    CHECK(r.commands == 3);
    CHECK(r.pool_end == 112_MiB);
    CHECK(r.ended_at.count() == doctest::Approx(2.01625).epsilon(1e-9));
    CHECK_FALSE(r.eio);
    CHECK_FALSE(r.vg_exhausted);
    CHECK(r.vg_free_end == bytes::max());  // unlimited stays unlimited
}

TEST_CASE("LVM flow: the VG runs out, writes queue for no_space_timeout, then fail") {
    const lvm_pool_workload w{64_MiB, {}, bytes(0), 70_MiB, rate(std::uint64_t{50} << 20)};
    const lvm_run_result r = simulate_lvm_run(c70, fixed_model(), w, seed);
    CHECK(r.vg_exhausted);
    CHECK(r.extends == 0);
    CHECK(r.failed_commands >= 1);
    CHECK(r.eio);
    CHECK(r.queued.count() == doctest::Approx(60.0).epsilon(1e-9));  // full at 1.28 s, EIO at 61.28 s
    CHECK(r.ended_at.count() == doctest::Approx(61.28).epsilon(1e-9));
    CHECK(r.pool_end == 64_MiB);
    // With error_when_full the first full pool fails writes at once.
    const lvm_run_result e = simulate_lvm_run(c70, fixed_model().with_error_when_full(true), w, seed);
    CHECK(e.eio);
    CHECK(e.queued == 0_s);
    CHECK(e.ended_at.count() == doctest::Approx(1.28).epsilon(1e-9));
}

TEST_CASE("LVM flow: on the poll alone a threshold acts at the next 5% step") {
    // 1024 blocks written at one block per second to 757 blocks (73.9%); a poll every 10 s lands in every 1% of
    // usage. At the first poll above 70% the check level becomes 75%: at threshold 72 that poll's lvextend finds
    // about 70.5% (nothing to do) and no later poll passes 75%, so the pool never grows. The kernel's event
    // extends it at 72%.
    const lvm_pool_workload w{
        64_MiB, {}, bytes::max(), bytes(757 * (std::uint64_t{64} << 10)), rate(std::uint64_t{64} << 10)};
    const lvm_dmeventd_model poll_only =
        lvm_dmeventd_model::make(1_s, 1_s, 0.5, 10_s, 60_s).value().with_low_water_event(false);
    const auto c72 = lvm_autoextend_config::make(lvm_threshold(72), lvm_percent(20)).value();
    for (std::uint64_t s = 1; s <= 20; ++s) {
        CAPTURE(s);
        CHECK(simulate_lvm_run(c72, poll_only, w, s).extends == 0);
        CHECK(simulate_lvm_run(c72, poll_only.with_low_water_event(true), w, s).extends == 1);
        CHECK(simulate_lvm_run(c70, poll_only, w, s).extends == 1);
    }
}

TEST_CASE("LVM flow: runs are deterministic per seed; run i is seeded run_seed(seed, i); seeds share no run") {
    const lvm_pool_workload w{8_MiB, {}, bytes::max(), 200_MiB, rate(std::uint64_t{16} << 20)};
    const lvm_plan_summary a = simulate_lvm_plan(c70, lvm_dmeventd(), w, 50, 3);
    const lvm_plan_summary b = simulate_lvm_plan(c70, lvm_dmeventd(), w, 50, 3);
    CHECK(a.queued_mean == b.queued_mean);
    CHECK(a.extends_mean == b.extends_mean);
    double sum = 0.0, most = 0.0;
    for (std::uint64_t i = 0; i < 50; ++i) {
        const lvm_run_result r = simulate_lvm_run(c70, lvm_dmeventd(), w, run_seed(3, i));
        sum += r.queued.count();
        if (r.queued.count() > most) most = r.queued.count();
    }
    CHECK(a.queued_mean.count() == doctest::Approx(sum / 50.0));
    CHECK(a.queued_max.count() == most);
    CHECK(a.runs == 50);
    // Seeds 1, 2 and 3 draw 300 different runs (seeded seed + i, they shared 98 of every 100): every run queues, for
    // a time that the poll's phase and lvextend's draws set to the last bit, so equal times would be a shared run.
    std::vector<double> queued;
    for (std::uint64_t s = 1; s <= 3; ++s) {
        const lvm_plan_summary p = simulate_lvm_plan(c70, lvm_dmeventd(), w, 100, s);
        REQUIRE(p.queued_runs == 100);
        double plan_sum = 0.0;
        for (std::uint64_t i = 0; i < 100; ++i) {
            queued.push_back(simulate_lvm_run(c70, lvm_dmeventd(), w, run_seed(s, i)).queued.count());
            plan_sum += queued.back();
        }
        CHECK(p.queued_mean.count() == doctest::Approx(plan_sum / 100.0));  // the plan is those runs
    }
    std::sort(queued.begin(), queued.end());
    CHECK(std::adjacent_find(queued.begin(), queued.end()) == queued.end());
}

// dmeventd_thin.c's back-off, from lvm2 2.03.16's process_event: after a failed _use_policy (fails = 1) each later
// call runs `if (state->fails++ <= state->max_fails) goto out;` (postponed), else doubles max_fails up to MAX_FAILS
// (256) and retries with fails = 1; a success resets max_fails to 1. Only the DM_EVENT_DEVICE_ERROR branch reads
// the status again after its command fails ("Rather update oldish status"), and so runs that postponing step once
// at once; a failure on the timeout path waits for the next alarm. With every command failing from poll 0 on
// (max_fails 1), the timeout path alone therefore retries at polls 0, 2, 5, 10, 19, 36, 69, 134, 263, 520, 777 (a
// gap of max_fails + 1, max_fails 1, 2, 4, ... 256, 256); after a device event's failure (its re-read counts one
// postponement) the polls retry at 0, 3, 8, 17, 34, 67, 132. These tables are worked from lvm2's code by hand.
constexpr std::uint32_t timeout_retries[] = {0, 2, 5, 10, 19, 36, 69, 134, 263, 520, 777};
constexpr std::uint32_t after_event_retries[] = {0, 3, 8, 17, 34, 67, 132};

// A pool above its threshold in a VG with no free extent, written slowly: every lvextend fails for the VG's space
// and the run lasts `end_s` seconds. 256 MiB at 75% used (threshold 70), 64 KiB/s: never full within 1000 s.
lvm_run_result failing_pool(const lvm_dmeventd_model& m, double end_s, std::uint64_t s) {
    const auto write = static_cast<std::uint64_t>(end_s) * (std::uint64_t{64} << 10);
    const lvm_pool_workload w{256_MiB, 192_MiB, bytes(0), bytes(write), rate(std::uint64_t{64} << 10)};
    return simulate_lvm_run(c70, m, w, s);
}

TEST_CASE("LVM flow: a failed command waits for the next poll, unless a device event ran it (lvm2's back-off)") {
    // lvextend takes 1 s (status read at 0.5 s), dmeventd polls every 10 s at phase u x 10 s (u the seed's first
    // draw); no device events on the poll-only model.
    const lvm_dmeventd_model poll_only = lvm_dmeventd_model::make(1_s, 1_s, 0.5, 10_s, 60_s)
                                             .value()
                                             .with_low_water_event(false)
                                             .with_mode_change_events(false);
    for (std::uint64_t s = 1; s <= 6; ++s)
        for (double end_s = 5.0; end_s <= 1000.0; end_s += 7.0) {
            const double phase = random_stream(s).uniform() * 10.0;
            std::uint32_t want = 0;  // the polls before the burst ends that retry
            for (const std::uint32_t k : timeout_retries) want += phase + 10.0 * k < end_s ? 1u : 0u;
            const lvm_run_result r = failing_pool(poll_only, end_s, s);
            CAPTURE(s);
            CAPTURE(end_s);
            CHECK(r.failed_commands == want);
            CHECK(r.commands == want);
            CHECK(r.extends == 0);
            CHECK(r.times_full == 0);
        }
    // With the kernel's low-water event the pool, already past its mark, raises one at 0 s: that lvextend fails
    // too, and process_event reads the status again at once (1 s). Seeds whose first poll falls after 1 s (a poll
    // during the command is skipped).
    const lvm_dmeventd_model with_event = poll_only.with_low_water_event(true);
    int seeds = 0;
    for (std::uint64_t s = 1; s <= 30; ++s) {
        const double phase = random_stream(s).uniform() * 10.0;
        if (phase <= 1.5) continue;
        ++seeds;
        for (double end_s = 5.0; end_s <= 1000.0; end_s += 11.0) {
            std::uint32_t want = 1;  // the event's
            for (const std::uint32_t k : after_event_retries) want += phase + 10.0 * k < end_s ? 1u : 0u;
            CAPTURE(s);
            CAPTURE(end_s);
            CHECK(failing_pool(with_event, end_s, s).failed_commands == want);
        }
    }
    CHECK(seeds >= 10);
}

}  // namespace
