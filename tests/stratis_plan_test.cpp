// Tests of provpol/simulate/stratis_pool.hpp: the Stratis pool simulator against cases worked by hand from
// stratisd's rules (a rate at which nothing fills, a burst that must exhaust a small backstore, the metadata
// doublings of a small metadata device), and recommend_stratis_headroom against an exhaustive scan.
#include <provpol/simulate/stratis_pool.hpp>
#include <provpol/simulate/stratis_recommend.hpp>

#include <doctest/doctest.h>

#include <cstdint>

using namespace provpol;
using namespace provpol::literals;

namespace {

const stratis_config stratis = stratis_data();
const stratis_check_timing timing = stratis_check_timing_default();

stratis_pool_workload burst(bytes pool, bytes backstore, bytes write, rate r) {
    stratis_pool_workload w{};
    w.pool_size = pool;
    w.backstore_free = backstore;
    w.metadata_size = 1_GiB;  // far above what the writes map: no metadata event
    w.write = write;
    w.write_rate = r;
    return w;
}

}  // namespace

TEST_CASE("a rate at which nothing fills: no extend, no error, the burst ends at write / rate") {
    // 100 GiB pool, 10 GiB written at 100 MiB/s: free data never falls under DATA_LOWATER (15 GiB) nor to the
    // low-water mark, so no check extends and the backstore is untouched; the last byte lands at 102.4 s.
    const stratis_pool_workload w = burst(100_GiB, 1_TiB, 10_GiB, rate((100_MiB).count()));
    for (std::uint64_t i = 0; i < 20; ++i) {
        const stratis_run_result r = simulate_stratis_run(stratis, timing, w, run_seed(1, i));
        CHECK(r.data_extends == 0);
        CHECK(r.metadata_extends == 0);
        CHECK(r.times_full == 0);
        CHECK_FALSE(r.error_if_no_space);
        CHECK_FALSE(r.eio);
        CHECK(r.pool_end == 100_GiB);
        CHECK(r.backstore_end == 1_TiB);
        CHECK(in_seconds(r.ended_at) == doctest::Approx(102.4).epsilon(1e-9));
        // The timer runs every 10 s plus its check (at most 0.05 s here) from a phase in [0, 10 s): 10 or 11 checks.
        CHECK(r.checks >= 10);
        CHECK(r.checks <= 11);
    }
}

TEST_CASE("a burst that must exhaust a small backstore: one extend of what is left, error_if_no_space, EIO") {
    // 20 GiB pool, 10 GiB free in the backstore, 100 GiB written at 1 GiB/s. The first check that finds free data
    // under 15 GiB extends by min(10 GiB available, DATA_ALLOC_SIZE 50 GiB) = 10 GiB: 30 GiB, backstore empty. The
    // next one that finds free data under 15 GiB has no block to give: error_if_no_space. The pool then fills with
    // 70 GiB still to write: the writes fail, at 30 GiB written (plus what they queued before the extend).
    const stratis_pool_workload w = burst(20_GiB, 10_GiB, 100_GiB, rate((1_GiB).count()));
    for (std::uint64_t i = 0; i < 50; ++i) {
        const stratis_run_result r = simulate_stratis_run(stratis, timing, w, run_seed(7, i));
        CAPTURE(i);
        CHECK(r.data_extends == 1);
        CHECK(r.pool_end == 30_GiB);
        CHECK(r.backstore_end == 0_B);
        CHECK(r.error_if_no_space);
        CHECK(r.eio);
        CHECK(in_seconds(r.ended_at) == doctest::Approx(30.0 + in_seconds(r.queued)).epsilon(1e-9));
        CHECK(r.error_mode > seconds(0));
    }
}

TEST_CASE("metadata doubling: a 4 MiB metadata device doubles three times for 400 GiB of mappings") {
    // 1 data block per mapping, 126 mappings per 4 KiB metadata block. stratisd doubles the metadata when its free
    // blocks are under the kernel's threshold, min(1024, blocks / 4):
    //   4 MiB  = 1024 blocks, threshold  256: doubled once more than  768 blocks are used, past  767 x 126 MiB
    //   8 MiB  = 2048 blocks, threshold  512: past 1535 x 126 MiB (188.9 GiB)
    //   16 MiB = 4096 blocks, threshold 1024: past 3071 x 126 MiB (377.9 GiB)
    //   32 MiB = 8192 blocks, threshold 1024: past 7167 x 126 MiB (881.9 GiB), beyond the 400 GiB written.
    // Each doubling takes twice its growth from the backstore (the spare): 2 x (4 + 8 + 16) MiB = 56 MiB. The data
    // device (1000 GiB) never comes within 15 GiB of full. thin_metadata_size's answer is left out (0: no growth
    // from the estimate), so every extend is a doubling.
    stratis_pool_workload w = burst(1000_GiB, 1_TiB, 400_GiB, rate((1_GiB).count()));
    w.metadata_size = 4_MiB;
    w.metadata_sectors = blocks(0);
    for (std::uint64_t i = 0; i < 20; ++i) {
        const stratis_run_result r = simulate_stratis_run(stratis, timing, w, run_seed(3, i));
        CAPTURE(i);
        CHECK(r.metadata_extends == 3);
        CHECK(r.metadata_end == 32_MiB);
        CHECK(r.data_extends == 0);
        CHECK(r.backstore_end == 1_TiB - 56_MiB);
        CHECK_FALSE(r.eio);
        CHECK_FALSE(r.error_if_no_space);
    }
}

TEST_CASE("the metadata grows to thin_metadata_size's estimate x 8 at the first check, then stays") {
    // A 100 GiB pool with 1 TiB free: the data tier is 102400 + 2 x 4 + 512 + 1048576 = 1151496 MiB, data blocks
    // of 1 MiB: ceil(1151496 / 126) = 9139 leaves + 100 roots = 9239 blocks = 73912 sectors; x 8 = 591296 sectors
    // = 288.72 MiB, rounded up to a data block: 289 MiB. One extend, from 4 MiB, its spare as large.
    stratis_pool_workload w = burst(100_GiB, 1_TiB, 10_GiB, rate((100_MiB).count()));
    w.metadata_size = 4_MiB;
    const bytes usable = 100_GiB + 8_MiB + 512_MiB + 1_TiB;
    w.metadata_sectors = stratis_thin_metadata_sectors(usable, stratis.data_block());
    CHECK(w.metadata_sectors == blocks(73912));
    const stratis_run_result r = simulate_stratis_run(stratis, timing, w, 5);
    CHECK(r.metadata_extends == 1);
    CHECK(r.metadata_end == 289_MiB);
    CHECK(r.backstore_end == 1_TiB - saturating_mul(289_MiB - 4_MiB, 2));
}

TEST_CASE("runs are deterministic for a seed, and the summary adds them in run order") {
    const stratis_pool_workload w = burst(100_GiB, 1_TiB, 360_GiB, rate(3000000000));
    const stratis_plan_summary a = simulate_stratis_plan(stratis, timing, w, 30, 11);
    const stratis_plan_summary b = simulate_stratis_plan(stratis, timing, w, 30, 11);
    CHECK(a.data_extends_mean == b.data_extends_mean);
    CHECK(a.queued_mean == b.queued_mean);
    double extends = 0.0;
    for (std::uint32_t i = 0; i < 30; ++i)
        extends += simulate_stratis_run(stratis, timing, w, run_seed(11, i)).data_extends;
    CHECK(a.data_extends_mean == doctest::Approx(extends / 30.0));
    // 360 GiB into 100 GiB needs at least ceil((360 + 15 - 100) / 50) = 6 extends of 50 GiB with 1 TiB behind it.
    CHECK(a.data_extends_mean >= 5.0);
    CHECK(a.error_mode_runs == 0);
}

TEST_CASE("recommend's headroom is the first candidate of an exhaustive scan that meets, and within hand bounds") {
    // 20 GiB pool, 60 GiB written at 500 MiB/s. By hand: with at most 40 GiB free the pool can reach at most 60 GiB,
    // so free data falls under 15 GiB with nothing left to give (error_if_no_space); with 56 GiB the pool reaches
    // 76 GiB and free data never falls under 16 GiB. The answer is in [41, 56].
    const stratis_pool_workload w = burst(20_GiB, 0_B, 60_GiB, rate((500_MiB).count()));
    const std::uint32_t runs = 20;
    const std::uint64_t bound = stratis_headroom_bound(stratis, w);
    const stratis_headroom_answer a = recommend_stratis_headroom(stratis, timing, w, runs, 9, bound);
    std::uint64_t first = 0;
    for (std::uint64_t gib = 1; gib <= bound; ++gib) {
        stratis_pool_workload x = w;
        x.backstore_free = bytes(gib << 30);
        const stratis_plan_summary s = simulate_stratis_plan(stratis, timing, x, runs, 9);
        if (first == 0 && s.error_mode_runs == 0 && s.eio_runs == 0) first = gib;
    }
    REQUIRE(a.found);
    CHECK(a.gib == first);
    CHECK(a.evaluations == first);
    CHECK(a.gib >= 41);
    CHECK(a.gib <= 56);
    CHECK(a.at_answer.error_mode_runs == 0);
}

TEST_CASE("the dm event's check decides on the previous check's status: at 3 GiB/s the pool can fill") {
    // 15 GiB of low water last 5 s at 3 GiB/s, ten times the longest check that extends (0.5 s). Were the event's
    // check to read the pool's status, it would see free data under 15 GiB and extend within 0.5 s: never full.
    // stratisd's check reads the status its previous check cached (ThinPool::check, self.used()): when that was a
    // timer check ending more than about 4.5 s before the event, it still saw more than 15 GiB free, the event's check
    // does nothing (and the kernel does not send the event again before a resume), and the extend waits for the
    // next timer check, 10 s after the last one, or for the pool to fill: about half of the extend cycles fill.
    // 20 runs of 6 cycles each fill at least once; each fill waits for one check that extends (at most 0.55 s).
    const stratis_pool_workload w = burst(100_GiB, 1_TiB, 400_GiB, rate((3_GiB).count()));
    std::uint32_t fills = 0;
    for (std::uint64_t i = 0; i < 20; ++i) {
        const stratis_run_result r = simulate_stratis_run(stratis, timing, w, run_seed(21, i));
        fills += r.times_full;
        CHECK(r.longest_queue <= seconds(0.55 + 1e-9));
        CHECK_FALSE(r.eio);
    }
    CHECK(fills > 0);
}
