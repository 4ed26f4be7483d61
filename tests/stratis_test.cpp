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
    s.data_used = used;
    s.available = available;
    return s;
}

std::string message(const error& e) { return std::string(e.message().view()); }

}  // namespace

// The shipped constants (thinpool.rs:61, :64, :73, :75) and the test ones (:82, :84), at compile time.
static_assert(stratis_data().data_alloc() == 50_GiB);
static_assert(stratis_data().data_lowater() == 15_GiB);
static_assert(stratis_data().data_block() == 1_MiB);
static_assert(stratis_data().mdv_size() == 512_MiB);
static_assert(stratis_data().lowater_blocks() == 15360);
static_assert(stratis_test_constants().data_alloc() == 5_GiB);
static_assert(stratis_test_constants().data_lowater() == 4_GiB);
// MAX_META_SIZE (cmd.rs:44): 255 x 16320 blocks of 4 KiB = 16646400 KiB = 16256.25 MiB, rounded down to a block
// (cmd.rs:573).
static_assert(stratis_data().max_metadata() == 16256_MiB);

TEST_CASE("Stratis: the configuration") {
    CHECK(stratis_config::make(50_GiB, 15_GiB).value() == stratis_data());
    CHECK(message(stratis_config::make(50_GiB, 15_GiB, 96_KiB).error()) ==
          "data_block_size must be a power of two, got 96KiB");
    CHECK(message(stratis_config::make(50_GiB, 15_GiB, 32_KiB).error()) ==
          "data_block_size must be in [64KiB, 1GiB], got 32KiB");
    CHECK(message(stratis_config::make(0_B, 15_GiB).error()) == "data_alloc_size must be in [1MiB, 1PiB], got 0");
    CHECK(message(stratis_config::make(50_GiB + 1_KiB, 15_GiB).error()) ==
          "data_alloc_size must be a multiple of 1MiB, got 52428801KiB");
    CHECK(message(stratis_config::make(50_GiB, 15_GiB + 512_KiB).error()) ==
          "data_lowater must be a multiple of 1MiB, got 15360.5MiB");
    CHECK(message(stratis_config::make(50_GiB, 15_GiB, 1_MiB, bytes(1000)).error()) ==
          "mdv_size must be a multiple of 512, got 1000");
    CHECK(stratis_config::make(50_GiB, 0_B).has_value());  // a zero low water: never extended (size - used < 0)
}

TEST_CASE("Stratis: the metadata device from thin_metadata_size (cmd.rs:561-575)") {
    const stratis_config c = stratis_data();
    // 8 x sectors, rounded up to a 2048-sector block: 1000 sectors -> 8000 -> 8192 sectors = 4 MiB.
    CHECK(stratis_metadata_size(c, 1000) == 4_MiB);
    CHECK(stratis_metadata_size(c, 256) == 1_MiB);  // 2048 sectors exactly
    CHECK(stratis_metadata_size(c, 257) == 2_MiB);  // 2056 -> 4096 sectors
    CHECK(stratis_metadata_size(c, 0) == 0_B);
    // Capped at MAX_META_SIZE rounded down to a block: 16646400 KiB = 16256.25 MiB -> 16256 MiB.
    CHECK(stratis_metadata_size(c, std::uint64_t{1} << 40) == 16256_MiB);
}

TEST_CASE("Stratis: a new pool (ThinPoolSizeParams::new, thinpool.rs:179; ThinPool::new, :787)") {
    const stratis_config c = stratis_data();
    // 1 TiB usable, thin_metadata_size 1000 sectors -> 4 MiB metadata; room 1 TiB - 512 MiB - 8 MiB > 50 GiB.
    const stratis_initial_sizes big = stratis_initial(c, 1_TiB, 1000);
    CHECK(big.metadata == 4_MiB);
    CHECK(big.data == 50_GiB);
    CHECK(big.mdv == 512_MiB);
    CHECK(big.low_water_blocks == 15360);  // min(15 Ki, 51200 / 2)
    CHECK(big.allocated == 50_GiB + 520_MiB);
    // 20 GiB usable: room = 20 GiB - 512 MiB - 8 MiB = 19960 MiB; low water min(15360, 9980) = 9980 blocks.
    const stratis_initial_sizes small = stratis_initial(c, 20_GiB, 1000);
    CHECK(small.data == 19960_MiB);
    CHECK(small.low_water_blocks == 9980);
    // Room under a block is rounded down (sectors_to_datablocks); room under nothing is 0.
    CHECK(stratis_initial(c, 600_MiB + 512_KiB, 1000).data == 80_MiB);  // 600.5 - 512 - 8 = 80.5 MiB -> 80 blocks
    CHECK(stratis_initial(c, 100_MiB, 1000).data == 0_B);
}

TEST_CASE("Stratis: the data device in check() (thinpool.rs:1269-1287, 1470-1494)") {
    const stratis_config c = stratis_data();
    // 100 GiB data device: extended when size - used < 15 GiB, i.e. used > 85 GiB = 87040 blocks.
    CHECK(stratis_trigger_blocks(c, 100_GiB) == 87041);
    auto d = decide_stratis_check(c, pool(100_GiB, 87040, 1_TiB));  // exactly 15 GiB free: not under it
    CHECK_FALSE(d.data_low_water);
    CHECK(d.data == stratis_outcome::none);
    CHECK(d.low_water_blocks == 0);
    d = decide_stratis_check(c, pool(100_GiB, 87041, 1_TiB));
    CHECK(d.data_low_water);
    CHECK(d.data == stratis_outcome::extend);
    CHECK(d.data_extend_by == 50_GiB);  // min(available, DATA_ALLOC_SIZE)
    CHECK(d.data_new_size == 150_GiB);
    CHECK(d.low_water_blocks == 15360);  // set_low_water_mark(DATA_LOWATER)
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
    CHECK(d.low_water_blocks == 15360);
    // Already in error_if_no_space: check() does not try (out_of_alloc_space).
    auto s = pool(100_GiB, 100 * 1024, 1_TiB);
    s.error_if_no_space = true;
    d = decide_stratis_check(c, s);
    CHECK(d.data == stratis_outcome::skipped);
    CHECK(d.data_new_size == 100_GiB);
    // A device smaller than the low water is extended at once, even empty.
    CHECK(stratis_trigger_blocks(c, 10_GiB) == 0);
    CHECK(decide_stratis_check(c, pool(10_GiB, 0, 1_TiB)).data == stratis_outcome::extend);
}

TEST_CASE("Stratis: the metadata device in check() (thinpool.rs:1242-1262, 1582-1646)") {
    const stratis_config c = stratis_data();
    auto s = pool(100_GiB, 0, 1_TiB);
    s.metadata_size = 64_MiB;  // 16384 blocks of 4 KiB
    s.metadata_low_water = 1024;
    s.metadata_used = 16384 - 1024;  // exactly at the mark: not under it
    auto d = decide_stratis_check(c, s);
    CHECK_FALSE(d.metadata_low_water);
    CHECK(d.metadata == stratis_outcome::none);  // and no estimate given: no growth
    s.metadata_used = 16384 - 1023;
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
    s.data_used = 100 * 1024;
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
    s.metadata_used = 0;
    s.metadata_estimate = 20000;  // x 8 = 160000 sectors -> 161792 (79 MiB)
    d = decide_stratis_check(c, s);
    CHECK(d.metadata_target == 79_MiB);
    CHECK(d.metadata_extend_by == 15_MiB);
    s.metadata_estimate = 1000;  // 4 MiB: smaller than the device, which is never shrunk
    CHECK(decide_stratis_check(c, s).metadata == stratis_outcome::none);
}

TEST_CASE("Stratis: the overprovisioning guard on metadata (thinpool.rs:1600-1622)") {
    const stratis_config c = stratis_data();
    auto s = pool(100_GiB, 0, 1_TiB);
    s.metadata_size = 64_MiB;
    s.metadata_used = 16000;
    s.metadata_low_water = 1024;
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
            const std::uint64_t t = stratis_trigger_blocks(c, size);
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
