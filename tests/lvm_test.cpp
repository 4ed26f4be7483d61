// Tests of provpol/extend/lvm.hpp: LVM2's autoextend decision. The expected values are worked by hand from
// lvm2 2.03.16's rules as the header cites them (the arithmetic is written next to each value), from the issue's
// example (a 100 GiB pool at 95% grows to 136 GiB), and, for thousands of cases, from lvm2's own functions
// compiled by tests/data/generate_lvm_parity.sh (lvm_parity_test.cpp).
#include "test_support.hpp"

#include <provpol/extend.hpp>
#include <provpol/random.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

using namespace provpol;
using namespace provpol::literals;

namespace {

lvm_autoextend_config cfg(std::uint64_t threshold, std::uint64_t percent,
                          lvm_volume_kind kind = lvm_volume_kind::thin_pool, bytes slab = 2_GiB) {
    return lvm_autoextend_config::make(lvm_threshold(threshold), lvm_percent(percent), lvm_extent_size(4_MiB),
                                       lvm_chunk_size(64_KiB), kind, vdo_slab_size(slab))
        .value();
}

// A state with explicit block counts (used / total), as dmsetup status reports them.
lvm_volume_state with_blocks(bytes size, std::uint64_t used, std::uint64_t total) {
    lvm_volume_state s{};
    s.size = size;
    s.used = blocks(used);
    s.total = blocks(total);
    return s;
}

TEST_CASE("LVM: the configuration as lvm.conf is read") {
    // Thresholds are taken as written: under 50 acts as 50, 100 and more disable.
    CHECK(cfg(10, 20).threshold_percent() == 50);
    CHECK(cfg(10, 20).threshold_clamped());
    CHECK(cfg(10, 20).threshold_as_written() == 10);
    CHECK(cfg(70, 20).threshold_percent() == 70);
    CHECK_FALSE(cfg(100, 20).enabled());
    CHECK_FALSE(cfg(150, 20).enabled());
    CHECK(cfg(99, 20).enabled());
    // Each setting lands in its role (the types keep them apart at the call; this holds make to them).
    const lvm_autoextend_config roles =
        lvm_autoextend_config::make(lvm_threshold(75), lvm_percent(30), lvm_extent_size(8_MiB), lvm_chunk_size(128_KiB),
                                    lvm_volume_kind::vdo_pool, vdo_slab_size(4_GiB))
            .value();
    CHECK(roles.threshold_as_written() == 75);
    CHECK(roles.extend_percent() == 30);
    CHECK(roles.extent() == 8_MiB);
    CHECK(roles.pool_chunk() == 128_KiB);
    CHECK(roles.kind() == lvm_volume_kind::vdo_pool);
    CHECK(roles.vdo_slab() == 4_GiB);
    // Percent 0 is accepted (it fails at extend time).
    CHECK(lvm_autoextend_config::make(lvm_threshold(70), lvm_percent(0)).has_value());
    // Errors name the lvm.conf key of the kind, the value and the range.
    CHECK(std::string(lvm_autoextend_config::make(lvm_threshold(70), lvm_percent(1000001)).error().message().view()) ==
          "thin_pool_autoextend_percent must be in [0, 1000000], got 1000001");
    CHECK(std::string(lvm_autoextend_config::make(lvm_threshold(70), lvm_percent(1000001), lvm_extent_size(4_MiB),
                                                  lvm_chunk_size(64_KiB), lvm_volume_kind::vdo_pool)
                          .error()
                          .message()
                          .view()) == "vdo_pool_autoextend_percent must be in [0, 1000000], got 1000001");
    CHECK(std::string(lvm_autoextend_config::make(lvm_threshold(std::uint64_t{1} << 31), lvm_percent(20),
                                                  lvm_extent_size(4_MiB), lvm_chunk_size(64_KiB),
                                                  lvm_volume_kind::snapshot)
                          .error()
                          .message()
                          .view()) == "snapshot_autoextend_threshold must be in [0, 2147483647], got 2147483648");
    CHECK(
        lvm_autoextend_config::make(lvm_threshold(70), lvm_percent(20), lvm_extent_size(bytes(3000))).error().code() ==
        errc::not_a_power_of_two);
    CHECK(std::string(lvm_autoextend_config::make(lvm_threshold(70), lvm_percent(20), lvm_extent_size(4_MiB),
                                                  lvm_chunk_size(96_KiB))
                          .error()
                          .message()
                          .view()) == "thin_pool_chunk_size must be a multiple of 64KiB, got 96KiB");
    CHECK(std::string(lvm_autoextend_config::make(lvm_threshold(70), lvm_percent(20), lvm_extent_size(4_MiB),
                                                  lvm_chunk_size(32_KiB))
                          .error()
                          .message()
                          .view()) == "thin_pool_chunk_size must be in [64KiB, 1GiB], got 32KiB");
    CHECK(
        lvm_autoextend_config::make(lvm_threshold(70), lvm_percent(20), lvm_extent_size(4_MiB), lvm_chunk_size(192_KiB))
            .has_value());  // a multiple of 64 KiB is enough
}

TEST_CASE("LVM: usage in libdm's units (dm_make_percent)") {
    CHECK(lvm_usage(0, 100) == 0);
    CHECK(lvm_usage(100, 100) == 100000000);
    CHECK(lvm_usage(1, 3) == 33333333);   // 1e8 / 3 = 33333333.3, truncated
    CHECK(lvm_usage(2, 3) == 66666666);   // 66666666.6, truncated, not rounded
    CHECK(lvm_usage(5, 0) == 100000000);  // libdm: a zero denominator reads 100%
    // Only used == total is 100%: a ratio that rounds to 1.0 reads 99.999999%.
    CHECK(lvm_usage((std::uint64_t{1} << 60) - 1, std::uint64_t{1} << 60) == 99999999);
    // A nonzero ratio is never 0%: 1e8 / 2^40 = 0.00009 reads 0.000001%.
    CHECK(lvm_usage(1, std::uint64_t{1} << 40) == 1);
    CHECK(lvm_usage(7, 5) == 100000000);  // more used than total counts as full
}

TEST_CASE("LVM: the amount (_adjust_amount)") {
    // Nothing unless above 50% and above the threshold.
    CHECK(lvm_adjust_amount(70000000, lvm_threshold(70), lvm_percent(20)) == 0);
    CHECK(lvm_adjust_amount(50000000, lvm_threshold(50), lvm_percent(20)) == 0);
    // ceil(70000001 / 700000) - 100 = 1 < 20.
    CHECK(lvm_adjust_amount(70000001, lvm_threshold(70), lvm_percent(20)) == 20);
    // 95%: ceil(95000000 / 700000) - 100 = ceil(135.71) - 100 = 36 > 20.
    CHECK(lvm_adjust_amount(95000000, lvm_threshold(70), lvm_percent(20)) == 36);
    // The configured percent when it is larger.
    CHECK(lvm_adjust_amount(95000000, lvm_threshold(70), lvm_percent(50)) == 50);
    // Full at threshold 50: ceil(1e8 / 500000) - 100 = 100.
    CHECK(lvm_adjust_amount(100000000, lvm_threshold(50), lvm_percent(20)) == 100);
    CHECK(lvm_adjust_amount(100000000, lvm_threshold(100), lvm_percent(20)) == 0);  // disabled
    // A percent past what lvm.conf's ints hold is taken as 2^32 - 1, not wrapped to 0.
    CHECK(lvm_adjust_amount(95000000, lvm_threshold(70), lvm_percent(std::uint64_t{1} << 32)) == 0xffffffffU);
}

TEST_CASE("LVM: the issue's pool at 95% grows to 136 GiB, not 120 GiB") {
    const auto c = cfg(70, 20);
    const lvm_autoextend_decision d = decide_lvm_autoextend(c, lvm_volume_state::thin(100_GiB, 95_GiB, 64_KiB));
    CHECK(d.usage == 95000000);
    CHECK(d.amount == 36);
    CHECK(d.add_extents == 9216);  // ceil(36 x 25600 / 100)
    CHECK(d.new_size == 136_GiB);
    CHECK(d.outcome == lvm_outcome::extend);
    // The same through the extend_policy steps, with the VG's limit as capacity.
    const extend_decision p = lvm_thin_autoextend().decide(
        drive_state{drive_capacity(1_TiB), drive_physical(100_GiB), drive_allocation(95_GiB)});
    CHECK(p.action == extend_action::extend);
    CHECK(p.next_size == 136_GiB);
    CHECK(p.chunk == 36_GiB);
}

TEST_CASE("LVM: the threshold itself, block for block") {
    const auto c = cfg(70, 20);
    // 100 GiB of 64 KiB blocks: 1638400; 70% is exactly 1146880 blocks, which is not above 70%.
    CHECK(decide_lvm_autoextend(c, with_blocks(100_GiB, 1146880, 1638400)).outcome == lvm_outcome::none);
    const auto one_more = decide_lvm_autoextend(c, with_blocks(100_GiB, 1146881, 1638400));
    CHECK(one_more.outcome == lvm_outcome::extend);
    CHECK(one_more.amount == 20);
    CHECK(one_more.new_size == 120_GiB);  // 25600 + 5120 extents
    // In free-space terms: the block threshold is the 1146880th block's end (70 GiB).
    const extend_decision at = lvm_thin_autoextend().decide(
        drive_state{drive_capacity(1_TiB), drive_physical(100_GiB), drive_allocation(70_GiB)});
    CHECK_FALSE(at.needs_extend);
    CHECK(at.block_threshold == 70_GiB);
    CHECK(lvm_thin_autoextend()
              .decide(drive_state{drive_capacity(1_TiB), drive_physical(100_GiB),
                                  drive_allocation(bytes((70_GiB).count() + 1))})
              .needs_extend);
    // On 2e8 blocks one block above 70% is 70.0000005%, truncated to 70.000000%: no extend; two blocks extend.
    CHECK(decide_lvm_autoextend(c, with_blocks(12800_GiB, 140000001, 200000000)).outcome == lvm_outcome::none);
    CHECK(decide_lvm_autoextend(c, with_blocks(12800_GiB, 140000002, 200000000)).outcome == lvm_outcome::extend);
    CHECK(lvm_trigger_blocks(blocks(200000000), 70) == blocks(140000002));
    CHECK(lvm_trigger_blocks(blocks(1638400), 70) == blocks(1146881));
}

TEST_CASE("LVM: the clamp, percent 0, disabled") {
    // Threshold 10 acts as 50: at 80%, ceil(80e6 / 500000) - 100 = 60.
    const auto d = decide_lvm_autoextend(cfg(10, 20), lvm_volume_state::thin(10_GiB, 8_GiB, 64_KiB));
    CHECK(d.amount == 60);
    CHECK(d.add_extents == 1536);  // 60% of 2560 extents
    // Percent 0 fails whatever the usage, before usage matters.
    CHECK(decide_lvm_autoextend(cfg(70, 0), lvm_volume_state::thin(10_GiB, 1_GiB, 64_KiB)).outcome ==
          lvm_outcome::fails_percent_zero);
    CHECK(failed(lvm_outcome::fails_percent_zero));
    CHECK(decide_lvm_autoextend(cfg(100, 20), lvm_volume_state::thin(10_GiB, 10_GiB, 64_KiB)).outcome ==
          lvm_outcome::disabled);
    CHECK(decide_lvm_autoextend(cfg(100, 0), lvm_volume_state::thin(10_GiB, 10_GiB, 64_KiB)).outcome ==
          lvm_outcome::disabled);  // disabled is checked first
    CHECK_FALSE(lvm_thin_default()
                    .decide(drive_state{drive_capacity(1_TiB), drive_physical(10_GiB), drive_allocation(10_GiB)})
                    .needs_extend);
}

TEST_CASE("LVM: partial extents, the VG's free space") {
    // At 75%, ceil(75e6 / 700000) - 100 = 8 < 20: 11 extents x 20% = 2.2, rounded up to 3 extents.
    CHECK(decide_lvm_autoextend(cfg(70, 20), lvm_volume_state::thin(44_MiB, 33_MiB, 64_KiB)).add_extents == 3);
    // Full, the amount is ceil(1e8 / 700000) - 100 = 43: 11 x 43% = 4.73, rounded up to 5.
    CHECK(decide_lvm_autoextend(cfg(70, 20), lvm_volume_state::thin(44_MiB, 44_MiB, 64_KiB)).add_extents == 5);
    // The 95% case needs 36 GiB: a VG with 35 GiB free fails whole, nothing grows.
    auto s = lvm_volume_state::thin(100_GiB, 95_GiB, 64_KiB, 35_GiB);
    const auto d = decide_lvm_autoextend(cfg(70, 20), s);
    CHECK(d.outcome == lvm_outcome::fails_vg_space);
    CHECK(d.new_size == 100_GiB);
    CHECK(d.vg_needed == 36_GiB);
    s.vg_free = 36_GiB;
    CHECK(decide_lvm_autoextend(cfg(70, 20), s).outcome == lvm_outcome::extend);
}

TEST_CASE("LVM: VDO pools grow by at least a slab") {
    const auto vdo = cfg(70, 20, lvm_volume_kind::vdo_pool);
    // 4 GiB (1024 extents) at 80%: 20% is 205 extents; one 2 GiB slab is 512, which wins.
    auto d = decide_lvm_autoextend(vdo, with_blocks(4_GiB, 80, 100));
    CHECK(d.amount == 20);
    CHECK(d.add_extents == 512);
    CHECK(d.new_size == 6_GiB);
    // A 128 MiB slab: at least 128 MiB + 128 KiB (journal and summary), so 33 extents of 4 MiB.
    d = decide_lvm_autoextend(cfg(70, 20, lvm_volume_kind::vdo_pool, 128_MiB), with_blocks(40_MiB, 80, 100));
    CHECK(d.add_extents == 33);
}

TEST_CASE("LVM: a snapshot's COW grows no further than it is useful") {
    const auto snap = cfg(70, 20, lvm_volume_kind::snapshot);
    lvm_volume_state s = with_blocks(1_GiB, 80, 100);  // 256 extents
    s.cow_max = 1100_MiB;                              // 275 extents
    auto d = decide_lvm_autoextend(snap, s);
    CHECK(d.add_extents == 19);  // 20% would be 52 (to 308): capped at 275
    CHECK(d.new_size == 1100_MiB);
    s.size = 1100_MiB;
    d = decide_lvm_autoextend(snap, s);
    CHECK(d.outcome == lvm_outcome::none);
    CHECK(d.new_size == 1100_MiB);
}

TEST_CASE("LVM: a thin pool's metadata") {
    // 8 MiB of metadata: 4 MiB is 50% of it, min(25%, 50%) must stay free: threshold min(80, 75) = 75.
    lvm_volume_state s = lvm_volume_state::thin(10_GiB, 1_GiB, 64_KiB);  // data at 10%: only metadata
    s.metadata_size = 8_MiB;
    s.metadata_total = blocks(2048);
    s.metadata_used = blocks(1639);  // 80.029296875%
    auto d = decide_lvm_autoextend(cfg(80, 20), s);
    CHECK(d.metadata_threshold == 75);
    CHECK(d.metadata_usage == 80029296);
    CHECK(d.metadata_amount == 21);      // max(20, ceil(80029296 / 750000) - 100 = 7), plus one
    CHECK(d.metadata_add_extents == 1);  // (21 x 2 + 99) / 100
    CHECK(d.metadata_new_size == 12_MiB);
    CHECK(d.amount == 0);
    CHECK(d.new_size == 10_GiB);
    CHECK(d.outcome == lvm_outcome::extend);
    // 1 GiB of metadata: 4 MiB is 0.39%, so 99.609375% may be used, truncated to 99: min(70, 99) = 70.
    s.metadata_size = 1_GiB;
    s.metadata_used = blocks(0);
    s.metadata_total = blocks(262144);
    CHECK(decide_lvm_autoextend(cfg(70, 20), s).metadata_threshold == 70);
    CHECK(decide_lvm_autoextend(cfg(90, 20), s).metadata_threshold == 90);
    // Data growth grows the metadata to 64 bytes per data chunk: 136 GiB of 64 KiB chunks wants 136 MiB.
    s = lvm_volume_state::thin(100_GiB, 95_GiB, 64_KiB);
    s.metadata_size = 128_MiB;
    s.metadata_total = blocks(32768);
    s.metadata_used = blocks(100);
    d = decide_lvm_autoextend(cfg(70, 20), s);
    CHECK(d.new_size == 136_GiB);
    CHECK(d.metadata_amount == 0);
    CHECK(d.metadata_new_size == 136_MiB);
    CHECK(d.metadata_add_extents == 2);
    CHECK(d.vg_needed == bytes((36_GiB).count() + (8_MiB).count()));
}

TEST_CASE("LVM: the extend_policy steps decide as decide_lvm_autoextend does") {
    detail::xoshiro256 rng(2015);
    int compared = 0;
    for (std::uint64_t threshold : {50u, 70u, 72u, 95u, 99u}) {
        for (std::uint64_t percent : {1u, 20u, 50u, 200u}) {
            const auto c = cfg(threshold, percent);
            const lvm_thin_policy p = make_lvm_thin_policy(c);
            for (int i = 0; i < 500; ++i) {
                const std::uint64_t extents = 1 + rng.below(std::uint64_t{1} << (4 + rng.below(20)));
                const bytes size = bytes(extents << 22);
                const bytes alloc = bytes(rng.below(size.count() + 1));
                const auto want = decide_lvm_autoextend(c, lvm_volume_state::thin(size, alloc, 64_KiB));
                const extend_decision got =
                    p.decide(drive_state{drive_capacity(bytes::max()), drive_physical(size), drive_allocation(alloc)});
                CAPTURE(threshold);
                CAPTURE(percent);
                CAPTURE(size.count());
                CAPTURE(alloc.count());
                CHECK(got.needs_extend == (want.amount != 0));
                if (want.amount != 0) CHECK(got.next_size == want.new_size);
                ++compared;
            }
        }
    }
    CHECK(compared == 5 * 4 * 500);
}

}  // namespace

namespace {
TEST_CASE("LVM: lvm_trigger_blocks is the first block count lvm_usage puts above the threshold") {
    detail::xoshiro256 rng(40);
    for (int i = 0; i < 20000; ++i) {
        const std::uint64_t total = 1 + (rng.next() >> rng.below(64));
        const auto threshold = static_cast<std::uint32_t>(50 + rng.below(50));
        const std::uint64_t u = lvm_trigger_blocks(blocks(total), threshold).count();
        CAPTURE(total);
        CAPTURE(threshold);
        REQUIRE(u >= 1);
        REQUIRE(u <= total);
        CHECK(lvm_usage(u, total) > static_cast<std::int32_t>(threshold) * lvm_percent_1);
        CHECK(lvm_usage(u - 1, total) <= static_cast<std::int32_t>(threshold) * lvm_percent_1);
    }
    CHECK(lvm_trigger_blocks(blocks(0), 70) == blocks(1));
    CHECK(lvm_trigger_blocks(blocks(1000), 100) == blocks(1001));
    CHECK(lvm_trigger_blocks(blocks(~std::uint64_t{0}), 100) == blocks(~std::uint64_t{0}));  // saturates
}
}  // namespace
