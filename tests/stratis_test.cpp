// Tests of provpol/extend/stratis.hpp: Stratis's thin-pool growth. The expected values are worked from stratisd's
// code at 28d8d0757f87 (the line each rule is on is named next to it, the arithmetic written out); stratisd's own
// tests are checked row by row in tests/peers/stratisd.
#include "test_support.hpp"

#include <provpol/extend/presets.hpp>
#include <provpol/extend/stratis.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>

using namespace provpol;
using namespace provpol::literals;

namespace {

// A pool of `data` whose used data blocks are `used`, with `available` left in the backstore; metadata not low.
stratis_pool_state pool(bytes data, std::uint64_t used, bytes available) {
    stratis_pool_state s{};
    s.data_size = data;
    s.data_used = blocks(used);
    s.available = available;
    return s;
}

std::string message(const error& e) { return std::string(e.message().view()); }

// stratisd v3.0.4's calc_lowater (thinpool.rs:168-196), transcribed line by line in data blocks, its assertions as
// preconditions (total > 0, used <= size): the reference stratis_3_0_low_water is scanned against.
std::uint64_t calc_lowater_v3_0_4(std::uint64_t used, std::uint64_t data_dev_size, std::uint64_t available) {
    const std::uint64_t data_lowater = 2048;  // :45 DataBlocks(2048)
    const std::uint64_t total = data_dev_size + available;
    const std::uint64_t crit_percent_total = (total * 95) / 100;  // :172, SPACE_CRIT_PCT 95
    const std::uint64_t low_water_for_crit = total - crit_percent_total;
    const std::uint64_t prelim_max =
        data_lowater + available > low_water_for_crit ? data_lowater : low_water_for_crit - available;
    const std::uint64_t free = data_dev_size - used;
    const std::uint64_t fs_event_lowater = free > data_lowater ? free - data_lowater : 0;  // saturating_sub
    return prelim_max > fs_event_lowater ? prelim_max : fs_event_lowater;
}

// stratisd v3.0.4's Backstore::request (backstore.rs:403-437) with nothing spare in the cap device, transcribed:
// how much of `request` it gives when the data tier has `tier_free` free, in sectors.
std::uint64_t request_v3_0_4(std::uint64_t request, std::uint64_t modulus, std::uint64_t tier_free) {
    std::uint64_t internal_request = (request / modulus) * modulus;
    if (internal_request == 0) return 0;
    const std::uint64_t available = 0;  // available_in_cap()
    if (available < internal_request) {
        bool allocated = false;
        std::uint64_t got = 0;
        while (!allocated && internal_request != 0) {
            allocated = internal_request - available <= tier_free;  // data_tier.alloc: avail_space() >= needed
            if (allocated) got = internal_request;
            const std::uint64_t temp = internal_request / 2;
            internal_request = (temp / modulus) * modulus;
        }
        if (!allocated) return 0;
        const std::uint64_t return_amt = request < got ? request : got;  // min(request, available_in_cap())
        return (return_amt / modulus) * modulus;
    }
    return internal_request;
}

}  // namespace

// The shipped constants (thinpool.rs:61, :64, :73, :75) and the test ones (:82, :84), at compile time.
static_assert(stratis_data().data_alloc() == 50_GiB);
static_assert(stratis_data().data_lowater() == 15_GiB);
static_assert(stratis_data().data_block() == 1_MiB);
static_assert(stratis_data().mdv_size() == 512_MiB);
static_assert(stratis_data().lowater_blocks() == blocks(15360));
static_assert(stratis_test_constants().data_alloc() == 5_GiB);
static_assert(stratis_test_constants().data_lowater() == 4_GiB);
// MAX_META_SIZE (cmd.rs:44): 255 x 16320 blocks of 4 KiB = 16646400 KiB = 16256.25 MiB, rounded down to a block
// (cmd.rs:573).
static_assert(stratis_data().max_metadata() == 16256_MiB);

TEST_CASE("Stratis: the configuration") {
    // Each constant lands in its role (the types keep them apart at the call; this holds make to them).
    const stratis_config roles = stratis_config::make(stratis_data_alloc(8_GiB), stratis_data_lowater(6_GiB),
                                                      stratis_data_block(2_MiB), stratis_mdv_size(256_MiB))
                                     .value();
    CHECK(roles.data_alloc() == 8_GiB);
    CHECK(roles.data_lowater() == 6_GiB);
    CHECK(roles.data_block() == 2_MiB);
    CHECK(roles.mdv_size() == 256_MiB);
    CHECK(roles.lowater_blocks() == blocks(3072));
    CHECK(stratis_config::make(stratis_data_alloc(50_GiB), stratis_data_lowater(15_GiB)).value() == stratis_data());
    CHECK(message(
              stratis_config::make(stratis_data_alloc(50_GiB), stratis_data_lowater(15_GiB), stratis_data_block(96_KiB))
                  .error()) == "data_block_size must be a power of two, got 96KiB");
    CHECK(message(
              stratis_config::make(stratis_data_alloc(50_GiB), stratis_data_lowater(15_GiB), stratis_data_block(32_KiB))
                  .error()) == "data_block_size must be in [64KiB, 1GiB], got 32KiB");
    CHECK(message(stratis_config::make(stratis_data_alloc(0_B), stratis_data_lowater(15_GiB)).error()) ==
          "data_alloc_size must be in [1MiB, 1PiB], got 0");
    CHECK(message(stratis_config::make(stratis_data_alloc(50_GiB + 1_KiB), stratis_data_lowater(15_GiB)).error()) ==
          "data_alloc_size must be a multiple of 1MiB, got 52428801KiB");
    CHECK(message(stratis_config::make(stratis_data_alloc(50_GiB), stratis_data_lowater(15_GiB + 512_KiB)).error()) ==
          "data_lowater must be a multiple of 1MiB, got 15360.5MiB");
    CHECK(message(stratis_config::make(stratis_data_alloc(50_GiB), stratis_data_lowater(15_GiB),
                                       stratis_data_block(1_MiB), stratis_mdv_size(bytes(1000)))
                      .error()) == "mdv_size must be a multiple of 512, got 1000");
    CHECK(stratis_config::make(stratis_data_alloc(50_GiB), stratis_data_lowater(0_B))
              .has_value());  // a zero low water: never extended (size - used < 0)
}

TEST_CASE("Stratis: the metadata device from thin_metadata_size (cmd.rs:561-575)") {
    const stratis_config c = stratis_data();
    // 8 x sectors, rounded up to a 2048-sector block: 1000 sectors -> 8000 -> 8192 sectors = 4 MiB.
    CHECK(stratis_metadata_size(c, blocks(1000)) == 4_MiB);
    CHECK(stratis_metadata_size(c, blocks(256)) == 1_MiB);  // 2048 sectors exactly
    CHECK(stratis_metadata_size(c, blocks(257)) == 2_MiB);  // 2056 -> 4096 sectors
    CHECK(stratis_metadata_size(c, blocks(0)) == 0_B);
    // Capped at MAX_META_SIZE rounded down to a block: 16646400 KiB = 16256.25 MiB -> 16256 MiB.
    CHECK(stratis_metadata_size(c, blocks(std::uint64_t{1} << 40)) == 16256_MiB);
}

TEST_CASE("Stratis: a new pool (ThinPoolSizeParams::new, thinpool.rs:179; ThinPool::new, :787)") {
    const stratis_config c = stratis_data();
    // 1 TiB usable, thin_metadata_size 1000 sectors -> 4 MiB metadata; room 1 TiB - 512 MiB - 8 MiB > 50 GiB.
    const stratis_initial_sizes big = stratis_initial(c, 1_TiB, blocks(1000));
    CHECK(big.metadata == 4_MiB);
    CHECK(big.data == 50_GiB);
    CHECK(big.mdv == 512_MiB);
    CHECK(big.low_water_blocks == blocks(15360));  // min(15 Ki, 51200 / 2)
    CHECK(big.allocated == 50_GiB + 520_MiB);
    // 20 GiB usable: room = 20 GiB - 512 MiB - 8 MiB = 19960 MiB; low water min(15360, 9980) = 9980 blocks.
    const stratis_initial_sizes small = stratis_initial(c, 20_GiB, blocks(1000));
    CHECK(small.data == 19960_MiB);
    CHECK(small.low_water_blocks == blocks(9980));
    // Room under a block is rounded down (sectors_to_datablocks); room under nothing is 0.
    CHECK(stratis_initial(c, 600_MiB + 512_KiB, blocks(1000)).data ==
          80_MiB);  // 600.5 - 512 - 8 = 80.5 MiB -> 80 blocks
    CHECK(stratis_initial(c, 100_MiB, blocks(1000)).data == 0_B);
}

TEST_CASE("Stratis: the data device in check() (thinpool.rs:1269-1287, 1470-1494)") {
    const stratis_config c = stratis_data();
    // 100 GiB data device: extended when size - used < 15 GiB, i.e. used > 85 GiB = 87040 blocks.
    CHECK(stratis_trigger_blocks(c, 100_GiB) == blocks(87041));
    auto d = decide_stratis_check(c, pool(100_GiB, 87040, 1_TiB));  // exactly 15 GiB free: not under it
    CHECK_FALSE(d.data_low_water);
    CHECK(d.data == stratis_outcome::none);
    CHECK(d.low_water_blocks == blocks(0));
    d = decide_stratis_check(c, pool(100_GiB, 87041, 1_TiB));
    CHECK(d.data_low_water);
    CHECK(d.data == stratis_outcome::extend);
    CHECK(d.data_extend_by == 50_GiB);  // min(available, DATA_ALLOC_SIZE)
    CHECK(d.data_new_size == 150_GiB);
    CHECK(d.low_water_blocks == blocks(15360));  // set_low_water_mark(DATA_LOWATER)
    CHECK(d.available_after == 1_TiB - 50_GiB);
    // Less than 50 GiB in the backstore: what there is, in whole blocks.
    d = decide_stratis_check(c, pool(100_GiB, 100 * 1024, 20_GiB + 700_KiB));
    CHECK(d.data_extend_by == 20_GiB);
    CHECK_FALSE(d.error_if_no_space);
    // Under one block: error_if_no_space, and the low-water mark is reset all the same.
    d = decide_stratis_check(c, pool(100_GiB, 100 * 1024, 700_KiB));
    CHECK(d.data == stratis_outcome::error_if_no_space);
    CHECK(d.error_if_no_space);
    CHECK(d.data_extend_by == 0_B);
    CHECK(d.low_water_blocks == blocks(15360));
    // Already in error_if_no_space: check() does not try (out_of_alloc_space).
    auto s = pool(100_GiB, 100 * 1024, 1_TiB);
    s.error_if_no_space = true;
    d = decide_stratis_check(c, s);
    CHECK(d.data == stratis_outcome::skipped);
    CHECK(d.data_new_size == 100_GiB);
    // A device smaller than the low water is extended at once, even empty.
    CHECK(stratis_trigger_blocks(c, 10_GiB) == blocks(0));
    CHECK(decide_stratis_check(c, pool(10_GiB, 0, 1_TiB)).data == stratis_outcome::extend);
}

TEST_CASE("Stratis: the metadata device in check() (thinpool.rs:1242-1262, 1582-1646)") {
    const stratis_config c = stratis_data();
    auto s = pool(100_GiB, 0, 1_TiB);
    s.metadata_size = 64_MiB;  // 16384 blocks of 4 KiB
    s.metadata_low_water = blocks(1024);
    s.metadata_used = blocks(16384 - 1024);  // exactly at the mark: not under it
    auto d = decide_stratis_check(c, s);
    CHECK_FALSE(d.metadata_low_water);
    CHECK(d.metadata == stratis_outcome::none);  // and no estimate given: no growth
    s.metadata_used = blocks(16384 - 1023);
    d = decide_stratis_check(c, s);
    CHECK(d.metadata_low_water);
    CHECK(d.metadata == stratis_outcome::extend);
    CHECK(d.metadata_target == 128_MiB);
    CHECK(d.metadata_extend_by == 64_MiB);
    CHECK(d.metadata_new_size == 128_MiB);
    CHECK(d.available_after == 1_TiB - 128_MiB);  // the spare grows as much
    // Doubling is capped at the data tier's usable size.
    s.datatier_usable = 100_MiB;
    CHECK(decide_stratis_check(c, s).metadata_extend_by == 36_MiB);
    s.datatier_usable = bytes::max();
    // 2 x growth over the available space: out of metadata space, error_if_no_space; the data step is skipped.
    s.available = 128_MiB - 1_B;
    s.data_used = blocks(100 * 1024);
    d = decide_stratis_check(c, s);
    CHECK(d.metadata == stratis_outcome::error_if_no_space);
    CHECK(d.out_of_metadata_space);
    CHECK(d.error_if_no_space);
    CHECK(d.data == stratis_outcome::skipped);
    s.available = 128_MiB;  // exactly enough: the metadata grows, nothing is left for the data
    d = decide_stratis_check(c, s);
    CHECK(d.metadata == stratis_outcome::extend);
    CHECK(d.data == stratis_outcome::error_if_no_space);
    // Out of metadata space already: the metadata is not looked at again.
    s.out_of_metadata_space = true;
    CHECK(decide_stratis_check(c, s).metadata == stratis_outcome::skipped);
    s.out_of_metadata_space = false;
    // Not at the mark: the size is thin_metadata_size's estimate x 8 when that is larger (devices added).
    s.available = 1_TiB;
    s.metadata_used = blocks(0);
    s.metadata_estimate = blocks(20000);  // x 8 = 160000 sectors -> 161792 (79 MiB)
    d = decide_stratis_check(c, s);
    CHECK(d.metadata_target == 79_MiB);
    CHECK(d.metadata_extend_by == 15_MiB);
    s.metadata_estimate = blocks(1000);  // 4 MiB: smaller than the device, which is never shrunk
    CHECK(decide_stratis_check(c, s).metadata == stratis_outcome::none);
}

TEST_CASE("Stratis: the overprovisioning guard on metadata (thinpool.rs:1600-1622)") {
    const stratis_config c = stratis_data();
    auto s = pool(100_GiB, 0, 1_TiB);
    s.metadata_size = 64_MiB;
    s.metadata_used = blocks(16000);
    s.metadata_low_water = blocks(1024);
    s.overprovisioning = false;
    s.datatier_usable = 200_GiB;
    // filesystems + MDV + 2 x metadata = 200 GiB - 640 MiB + 512 MiB + 128 MiB = the usable size: refused.
    s.filesystems_size = 200_GiB - 640_MiB;
    auto d = decide_stratis_check(c, s);
    CHECK(d.metadata == stratis_outcome::refused_overprovision);
    CHECK(d.out_of_metadata_space);
    CHECK_FALSE(d.error_if_no_space);              // this path does not switch the pool to error mode
    s.filesystems_size = 200_GiB - 640_MiB - 1_B;  // one byte under: allowed
    CHECK(decide_stratis_check(c, s).metadata == stratis_outcome::extend);
}

TEST_CASE("Stratis: a filesystem in check_fs() (filesystem.rs:282, 348)") {
    stratis_filesystem_state s{};
    s.fs_size = 1_TiB;
    s.thin_size = 1_TiB;
    s.fs_used = 512_GiB;  // exactly half: not more than half
    CHECK_FALSE(decide_stratis_filesystem(s).more_than_half);
    CHECK(decide_stratis_filesystem(s).new_size == 1_TiB);
    s.fs_used = 512_GiB + 1_B;
    auto d = decide_stratis_filesystem(s);
    CHECK(d.more_than_half);
    CHECK(d.extend_by == 1_TiB);  // doubles
    CHECK(d.new_size == 2_TiB);
    s.size_limit = 1_TiB + 300_GiB;  // the limit leaves 300 GiB
    CHECK(decide_stratis_filesystem(s).extend_by == 300_GiB);
    s.size_limit = 1_TiB;  // at its limit: nothing
    CHECK(decide_stratis_filesystem(s).extend_by == 0_B);
    s.size_limit = bytes::max();
    s.pool_room = 100_GiB;  // overprovisioning off: the pool's room is shared
    d = decide_stratis_filesystem(s);
    CHECK(d.extend_by == 100_GiB);
    CHECK(d.pool_room_after == 0_B);
    CHECK(message(stratis_size_limit(1_TiB, 1_TiB - 1_B).error()) ==
          "size_limit must be at least 1TiB, got 1099511627775");
    CHECK(stratis_size_limit(1_TiB, 1_TiB).value() == 1_TiB);
}

TEST_CASE("Stratis: the presets by name") {
    for (const char* name : {"stratis-data", "stratis-metadata", "stratis-filesystem"}) {
        CAPTURE(name);
        const auto p = parse_extend_preset(name);
        REQUIRE(p.has_value());
        CHECK(stratis_config_of(*p).value() == stratis_data());
        CHECK_FALSE(lvm_config_of(*p).has_value());
        CHECK_FALSE(vdsm_config_of(*p).has_value());
        CHECK(std::string(to_text(*p)) == name);
    }
    CHECK_FALSE(stratis_config_of(extend_preset::vdsm_2022).has_value());
}

TEST_CASE("Stratis: the trigger is where check() first extends (a scan)") {
    for (const stratis_config& c : {stratis_data(), stratis_test_constants()}) {
        for (const bytes size : {1_GiB, 4_GiB, 15_GiB, 15_GiB + 1_MiB, 16_GiB, 100_GiB, 1_TiB}) {
            CAPTURE(size);
            const std::uint64_t blocks = size.count() >> 20;
            const std::uint64_t t = stratis_trigger_blocks(c, size).count();
            std::uint64_t first = blocks + 1;
            for (std::uint64_t u = 0; u <= blocks; ++u)
                if (decide_stratis_check(c, pool(size, u, 1_TiB)).data_low_water) {
                    first = u;
                    break;
                }
            CHECK(t == first);
        }
    }
}

// ============================================================================================================
// stratisd 3.0.0-3.0.4 (stratis_3_0()), worked from v3.0.4 (00330e6a102b)

// thinpool.rs:44-56: DATA_BLOCK_SIZE 2 Ki sectors, DATA_LOWATER 2048 blocks, INITIAL_MDV_SIZE 32 Ki sectors;
// filesystem.rs:49 FILESYSTEM_LOWATER 4 x DATA_LOWATER blocks; MAX_META_SIZE (:54) not rounded to a block.
static_assert(stratis_3_0().release() == stratis_release::v3_0);
static_assert(stratis_data().release() == stratis_release::v3_1);
static_assert(stratis_3_0().data_block() == 1_MiB);
static_assert(stratis_3_0().data_lowater() == 2_GiB);
static_assert(stratis_3_0().lowater_blocks() == blocks(2048));
static_assert(stratis_3_0().mdv_size() == 16_MiB);
static_assert(stratis_3_0().filesystem_lowater() == 8_GiB);
static_assert(stratis_data().filesystem_lowater() == 0_B);
static_assert(stratis_3_0().max_metadata() == bytes(std::uint64_t{4161600} * 4096));
static_assert(stratis_3_0() != stratis_data());

TEST_CASE("Stratis 3.0: calc_lowater (thinpool.rs:168 at v3.0.4) against its transcription, scanned") {
    const stratis_config c = stratis_3_0();
    std::uint64_t cases = 0;
    for (std::uint64_t size = 1; size <= 6000; size += 7)
        for (std::uint64_t available = 0; available <= 9000; available += 13)
            for (const std::uint64_t used : {std::uint64_t{0}, size / 3, size - size / 20, size}) {
                CAPTURE(size);
                CAPTURE(available);
                CAPTURE(used);
                REQUIRE(stratis_3_0_low_water(c, blocks(used), blocks(size), blocks(available)).count() ==
                        calc_lowater_v3_0_4(used, size, available));
                ++cases;
            }
    CHECK(cases == 4 * 858 * 693);
    // The three values by hand. An empty 100 GiB pool with nothing left in the backstore: 5% of 102400 blocks is
    // 5120 (the event at 95% full), but 102400 - 2048 free blocks is more: an event after the next 2 GiB written.
    CHECK(stratis_3_0_low_water(c, blocks(0), blocks(102400), blocks(0)) == blocks(100352));
    // 100000 used: 2400 free - 2048 = 352 < 5120: the 95% mark.
    CHECK(stratis_3_0_low_water(c, blocks(100000), blocks(102400), blocks(0)) == blocks(5120));
    // A backstore with room: DATA_LOWATER + available passes the 5% of the total: DATA_LOWATER.
    CHECK(stratis_3_0_low_water(c, blocks(102000), blocks(102400), blocks(10000)) == blocks(2048));
    // Past u64 in stratisd's total x 95, exact here; used above size counts as full.
    CHECK(stratis_3_0_low_water(c, blocks(0), blocks(std::uint64_t{1} << 62), blocks(std::uint64_t{1} << 62)) ==
          blocks((std::uint64_t{1} << 62) - 2048));
    CHECK(stratis_3_0_low_water(c, blocks(5000), blocks(4000), blocks(0)) == blocks(2048));
}

TEST_CASE("Stratis 3.0: a new pool (ThinPoolSizeParams::default, thinpool.rs:270, ThinPool::new :401-417)") {
    const stratis_config c = stratis_3_0();
    const stratis_initial_sizes s = stratis_initial(c, 100_GiB, blocks(12345));  // no thin_metadata_size in 3.0
    CHECK(s.metadata == 16_MiB);  // INITIAL_META_SIZE 4 Ki blocks of 4 KiB
    CHECK(s.data == 768_MiB);     // INITIAL_DATA_SIZE
    CHECK(s.mdv == 16_MiB);
    CHECK(s.allocated == 816_MiB);  // 2 x 16 + 768 + 16
    // calc_lowater(0, 768, 102400 - 816 = 101584): 2048 + 101584 passes 5% of 102352 (5118): DATA_LOWATER, more than
    // the whole 768 MiB device, so the first write raises the event whose check gives it the backstore.
    CHECK(s.low_water_blocks == blocks(2048));
}

TEST_CASE("Stratis 3.0: check() gives the data device the backstore (thinpool.rs:574-640 at v3.0.4)") {
    const stratis_config c = stratis_3_0();
    // The first check of a new pool on a 100 GiB tier: the metadata's target is 100 GiB in sectors / 1000 =
    // 209715 sectors = 26214 blocks of 4 KiB (102.4 MiB); 16 MiB are 4096 blocks, short by 22118 (86.4 MiB), more
    // than MIN_META_SEGMENT_SIZE: asked down to 16 MiB, 80 MiB, for the device and then its spare. The data device
    // takes the rest: 100 GiB - 816 MiB - 160 MiB = 101424 MiB, 102192 MiB in all.
    stratis_pool_state s = pool(768_MiB, 0, 100_GiB - 816_MiB);
    s.metadata_size = 16_MiB;
    s.datatier_usable = 100_GiB;
    auto d = decide_stratis_check(c, s);
    CHECK(d.metadata_target == bytes(std::uint64_t{26214} * 4096));
    CHECK(d.metadata == stratis_outcome::extend);
    CHECK(d.metadata_extend_by == 80_MiB);
    CHECK(d.metadata_spare_extend_by == 80_MiB);
    CHECK(d.metadata_new_size == 96_MiB);
    CHECK(d.data == stratis_outcome::extend);
    CHECK(d.data_extend_by == 101424_MiB);
    CHECK(d.data_new_size == 102192_MiB);
    CHECK(d.available_after == 0_B);
    CHECK(d.error_if_no_space);  // the table has it from ThinPool::new (thinpool.rs:416)
    // calc_lowater(0, 102192, 0): 5% of 102192 is 5110; 102192 - 2048 = 100144 is more.
    CHECK(d.low_water_blocks == blocks(100144));
    // stratisd's own test_greedy_allocation (thinpool.rs:1353-1375 at v3.0.4) after new() and one check(): under a
    // block left; meta x 1500 > data; meta x 500 < data, or the metadata still INITIAL_META_SIZE (on tiers whose
    // 1/1000 is under MAX_META_SIZE, as its loop devices are; past 16 TiB the cap breaks meta x 1500 > data).
    for (const bytes tier : {1_GiB, 2_GiB, 3_GiB, 10_GiB, 100_GiB, 1_TiB, 10_TiB}) {
        CAPTURE(tier);
        const stratis_initial_sizes i = stratis_initial(c, tier, blocks(0));
        stratis_pool_state t = pool(i.data, 0, tier - i.allocated);
        t.metadata_size = i.metadata;
        t.datatier_usable = tier;
        const auto g = decide_stratis_check(c, t);
        CHECK(g.available_after < c.data_block());
        CHECK(saturating_mul(g.metadata_new_size, 1500) > g.data_new_size);
        CHECK((saturating_mul(g.metadata_new_size, 500) < g.data_new_size || g.metadata_new_size == 16_MiB));
        CHECK(g.metadata_new_size + g.metadata_spare_extend_by + i.metadata + g.data_new_size + i.mdv +
                  g.available_after ==
              tier);
    }
    // The next check: the metadata (96 MiB, 24576 blocks) is short of 26214 by 1638 blocks, under 16 MiB: nothing;
    // nothing left for the data; the mark again from what is used.
    s = pool(102192_MiB, 5000, 0_B);
    s.metadata_size = 96_MiB;
    s.datatier_usable = 100_GiB;
    d = decide_stratis_check(c, s);
    CHECK(d.metadata == stratis_outcome::none);
    CHECK(d.metadata_extend_by == 0_B);
    CHECK(d.data == stratis_outcome::none);
    CHECK(d.data_extend_by == 0_B);
    CHECK(d.low_water_blocks == blocks(102192 - 5000 - 2048));
    // No trigger: every check extends while the backstore has a block.
    CHECK(stratis_trigger_blocks(c, 102192_MiB) == blocks(0));
    CHECK(stratis_trigger_blocks(stratis_data(), 102192_MiB) == blocks(102192 - 15360 + 1));
    // Half a block in the backstore: not a block, not taken.
    s.available = 512_KiB;
    CHECK(decide_stratis_check(c, s).data == stratis_outcome::none);
    // Nor counted in the mark: calc_lowater(100000, 102401, 0) is 5% of 102401 rounded up, 5121, where one block
    // more available would give 5121 - 1 (the 5% of 102402 is 5121 too).
    s = pool(102401_MiB, 100000, 512_KiB);
    s.metadata_size = 96_MiB;
    s.datatier_usable = 100_GiB;
    CHECK(decide_stratis_check(c, s).low_water_blocks == blocks(calc_lowater_v3_0_4(100000, 102401, 0)));
    CHECK(decide_stratis_check(c, s).low_water_blocks == blocks(5121));
    // A device added to a full pool (test_full_pool, thinpool.rs:1394-1500): the next check takes all of it.
    s = pool(1_GiB, 1024, 1_GiB + 700_KiB);
    s.metadata_size = 16_MiB;
    s.datatier_usable = 2_GiB;
    d = decide_stratis_check(c, s);
    CHECK(d.metadata == stratis_outcome::none);  // 2 GiB / 1000 is 524 blocks: under 16 MiB already
    CHECK(d.data_new_size == 2_GiB);
    CHECK(d.available_after == 700_KiB);
    // The 3.1 line decides the same pool otherwise: 15 GiB of low water, at most 50 GiB an extend.
    s = pool(102192_MiB, 0, 1_TiB);
    s.datatier_usable = 0_B;  // the data part alone: no metadata target
    CHECK(decide_stratis_check(stratis_data(), s).data == stratis_outcome::none);
    CHECK(decide_stratis_check(c, s).data_extend_by == 1_TiB);
}

TEST_CASE("Stratis 3.0: the backstore halves a request it cannot hold (backstore.rs:403-437 at v3.0.4)") {
    const stratis_config c = stratis_3_0();
    // 50 MiB left, 80 MiB asked for the metadata: 80 does not fit, 40 -> 32 MiB (down to 16 MiB) does; the spare
    // asks 80 of the 18 MiB left: 80, 32, then 16 MiB. The data device gets the last 2 MiB.
    stratis_pool_state s = pool(768_MiB, 0, 50_MiB);
    s.metadata_size = 16_MiB;
    s.datatier_usable = 100_GiB;
    const auto d = decide_stratis_check(c, s);
    CHECK(d.metadata_extend_by == 32_MiB);
    CHECK(d.metadata_spare_extend_by == 16_MiB);
    CHECK(d.data_extend_by == 2_MiB);
    CHECK(d.available_after == 0_B);
    // Under 16 MiB left: nothing for the metadata, all for the data.
    s.available = 15_MiB;
    const auto e = decide_stratis_check(c, s);
    CHECK(e.metadata == stratis_outcome::none);
    CHECK(e.metadata_extend_by == 0_B);
    CHECK(e.data_extend_by == 15_MiB);
    // The metadata's request against its transcription, for every free space in 1 MiB steps up to the request.
    const std::uint64_t sector = 512, modulus = (16_MiB).count() / sector;
    for (const std::uint64_t want_mib : {17u, 31u, 32u, 33u, 80u, 100u, 1000u}) {
        const std::uint64_t want = want_mib * 2048;  // sectors
        for (std::uint64_t free_mib = 0; free_mib <= want_mib + 1; ++free_mib) {
            CAPTURE(want_mib);
            CAPTURE(free_mib);
            stratis_pool_state t = pool(768_MiB, 0, bytes(free_mib << 20));
            t.metadata_size = 16_MiB;
            // A tier whose 1/1000 is 16 MiB + want (in 4 KiB blocks, exactly): 1000 x (16 MiB + want) bytes.
            t.datatier_usable = bytes(1000 * ((16_MiB).count() + want * sector));
            const auto g = decide_stratis_check(c, t);
            CHECK(g.metadata_extend_by.count() == request_v3_0_4(want, modulus, free_mib * 2048) * sector);
        }
    }
}

TEST_CASE("Stratis 3.0: the metadata's target and its cap (thinpool.rs:585-593 at v3.0.4)") {
    const stratis_config c = stratis_3_0();
    stratis_pool_state s = pool(768_MiB, 0, bytes::max());
    s.metadata_size = 16_MiB;
    // Exactly 16 MiB short is not more than MIN_META_SEGMENT_SIZE: nothing; one 4 KiB block more is, and is asked
    // down to 16 MiB.
    s.datatier_usable = bytes(1000 * (32_MiB).count());
    CHECK(decide_stratis_check(c, s).metadata == stratis_outcome::none);
    s.datatier_usable = bytes(1000 * (32_MiB + 4_KiB).count());
    CHECK(decide_stratis_check(c, s).metadata_extend_by == 16_MiB);
    // The target stops at MAX_META_SIZE, 4161600 blocks (16256.25 MiB), whatever the tier.
    s.datatier_usable = bytes(std::uint64_t{1} << 60);
    const auto d = decide_stratis_check(c, s);
    CHECK(d.metadata_target == bytes(std::uint64_t{4161600} * 4096));
    CHECK(d.metadata_extend_by == 16240_MiB);  // 16256.25 - 16 = 16240.25, down to 16 MiB: 16240
    // The 3.1 rules' inputs mean nothing here: a low metadata mark, overprovisioning off.
    s.metadata_used = blocks(4000);
    s.metadata_low_water = blocks(1024);
    s.overprovisioning = false;
    CHECK(decide_stratis_check(c, s).metadata_extend_by == 16240_MiB);
}

TEST_CASE("Stratis 3.0: a filesystem under 8 GiB free doubles (filesystem.rs:242-286 at v3.0.4)") {
    const stratis_config c = stratis_3_0();
    stratis_filesystem_state s{};
    s.thin_size = 1_TiB;
    s.fs_size = 1_TiB;
    s.fs_used = 1_TiB - 8_GiB;  // exactly FILESYSTEM_LOWATER free: not under it
    auto d = decide_stratis_filesystem(c, s);
    CHECK_FALSE(d.free_under_lowater);
    CHECK(d.extend_by == 0_B);
    CHECK(d.new_size == 1_TiB);
    s.fs_used = 1_TiB - 8_GiB + 1_B;  // one byte under: free_bytes.sectors() rounds down, 16777215 sectors
    d = decide_stratis_filesystem(c, s);
    CHECK(d.free_under_lowater);
    CHECK_FALSE(d.more_than_half);
    CHECK(d.extend_by == 1_TiB);
    CHECK(d.new_size == 2_TiB);
    // stratisd's own test_thindev_expand (thinpool.rs:1843-1930): a filesystem of FILESYSTEM_LOWATER + 1 MiB with
    // 2 MiB written has 1 MiB under the mark free: check_fs grows it.
    s.thin_size = 8_GiB + 1_MiB;
    s.fs_size = 8_GiB + 1_MiB;
    s.fs_used = 2_MiB;
    CHECK(decide_stratis_filesystem(c, s).new_size == 16_GiB + 2_MiB);
    // Where the lines differ: 60 of 100 GiB used is more than half (3.1 doubles it) but leaves 40 GiB (3.0 does
    // not); 3 of 10 GiB is under half (3.1 waits) but leaves 7 GiB (3.0 doubles).
    s = stratis_filesystem_state{100_GiB, 60_GiB, 100_GiB};
    CHECK(decide_stratis_filesystem(stratis_data(), s).extend_by == 100_GiB);
    CHECK(decide_stratis_filesystem(c, s).extend_by == 0_B);
    s = stratis_filesystem_state{10_GiB, 3_GiB, 10_GiB};
    CHECK(decide_stratis_filesystem(stratis_data(), s).extend_by == 0_B);
    CHECK(decide_stratis_filesystem(c, s).extend_by == 10_GiB);
    // 3.0 has no size limit and no overprovisioning guard: both are ignored; the 3.1 line reads them.
    s.size_limit = 12_GiB;
    s.pool_room = 1_GiB;
    CHECK(decide_stratis_filesystem(c, s).extend_by == 10_GiB);
    s.fs_used = 6_GiB;
    CHECK(decide_stratis_filesystem(stratis_data(), s).extend_by == 1_GiB);
    // The same as the one-argument form for the 3.1 line.
    CHECK(decide_stratis_filesystem(stratis_data(), s).new_size == decide_stratis_filesystem(s).new_size);
    // Used above the size (never from statvfs) counts as none free.
    s = stratis_filesystem_state{1_GiB, 2_GiB, 1_GiB};
    CHECK(decide_stratis_filesystem(c, s).extend_by == 1_GiB);
    s = stratis_filesystem_state{bytes::max(), 0_B, bytes::max()};
    s.fs_used = bytes::max();
    CHECK(decide_stratis_filesystem(c, s).new_size == bytes::max());
}

TEST_CASE("Stratis: the presets by version") {
    struct row {
        const char* name;
        stratis_release release;
        stratis_part part;
    };
    const row rows[] = {{"stratis-data", stratis_release::v3_1, stratis_part::data},
                        {"stratis-metadata", stratis_release::v3_1, stratis_part::metadata},
                        {"stratis-filesystem", stratis_release::v3_1, stratis_part::filesystem},
                        {"stratis-3.0-data", stratis_release::v3_0, stratis_part::data},
                        {"stratis-3.0-metadata", stratis_release::v3_0, stratis_part::metadata},
                        {"stratis-3.0-filesystem", stratis_release::v3_0, stratis_part::filesystem},
                        {"stratis-3.3-data", stratis_release::v3_1, stratis_part::data},
                        {"stratis-3.7-metadata", stratis_release::v3_1, stratis_part::metadata},
                        {"stratis-3.1-filesystem", stratis_release::v3_1, stratis_part::filesystem}};
    for (const row& r : rows) {
        CAPTURE(r.name);
        const auto p = parse_extend_preset(r.name);
        REQUIRE(p.has_value());
        CHECK(std::string(to_text(*p)) == r.name);
        CHECK(stratis_config_of(*p).value().release() == r.release);
        CHECK(stratis_config_of(*p).value() == (r.release == stratis_release::v3_0 ? stratis_3_0() : stratis_data()));
        CHECK(stratis_part_of(*p).value() == r.part);
        CHECK_FALSE(lvm_config_of(*p).has_value());
        CHECK_FALSE(vdsm_config_of(*p).has_value());
    }
    CHECK_FALSE(stratis_part_of(extend_preset::docker_devicemapper).has_value());
    CHECK(std::string(to_text(stratis_release::v3_0)) == "3.0");
    CHECK(std::string(to_text(stratis_part::filesystem)) == "filesystem");
}
