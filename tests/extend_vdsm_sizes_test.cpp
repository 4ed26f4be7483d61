// Tests of provpol/extend/vdsm_sizes.hpp: VDSM's size rules, each with its boundaries and refusals. Expected
// values are VDSM's own where its tests state them (tests/storage/blockvolume_test.py, tests/virt/
// vmstorage_test.py, tests/storage/hsm_test.py; the whole list, case by case, is tests/peers/vdsm/cases.csv)
// and otherwise worked by hand from the rule the comment quotes.
#include <provpol/extend/vdsm_sizes.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>

using namespace provpol;
using namespace provpol::literals;

namespace {

constexpr std::uint64_t max64 = std::numeric_limits<std::uint64_t>::max();
using vt = vdsm_volume_format;
using pa = vdsm_preallocation;
using dt = vdsm_drive_type;

// blockvolume_test.py configures volume_utilization_chunk_mb = 1024 (CHUNK_SIZE_MB); the extent is VDSM's
// VG_EXTENT_SIZE, 128 MiB.
constexpr vdsm_block_sizes test_sizes() { return vdsm_block_sizes(vdsm_config::make(1024_MiB, 50).value()); }

}  // namespace

// --- which drives are chunked ------------------------------------------------------------------------------------

static_assert(vdsm_chunked(dt::block_cow));
static_assert(!vdsm_chunked(dt::block_raw) && !vdsm_chunked(dt::file) && !vdsm_chunked(dt::network));

TEST_CASE("chunked: the drive's own LV when it is chunked, the replica's when only the replica is") {
    // thinp.py _amend_block_info: a file drive replicating to block cow takes the replica's physical size.
    CHECK(vdsm_physical_source_of(dt::file, true, dt::block_cow) == vdsm_physical_source::replica);
    CHECK(vdsm_physical_source_of(dt::network, true, dt::block_cow) == vdsm_physical_source::replica);
    // A chunked drive keeps its own size whatever it replicates to.
    CHECK(vdsm_physical_source_of(dt::block_cow, true, dt::file) == vdsm_physical_source::drive);
    CHECK(vdsm_physical_source_of(dt::block_cow, true, dt::block_cow) == vdsm_physical_source::drive);
    CHECK(vdsm_physical_source_of(dt::block_cow, false, dt::file) == vdsm_physical_source::drive);
    // Neither chunked, or a replica that is not: not monitored.
    CHECK(vdsm_physical_source_of(dt::file, true, dt::block_raw) == vdsm_physical_source::none);
    CHECK(vdsm_physical_source_of(dt::file, true, dt::file) == vdsm_physical_source::none);
    CHECK(vdsm_physical_source_of(dt::block_raw, false, dt::block_cow) == vdsm_physical_source::none);
    // Not replicating: the replica type is not looked at.
    CHECK(vdsm_physical_source_of(dt::file, false, dt::block_cow) == vdsm_physical_source::none);
}

TEST_CASE("chunked: a network replica is refused with the setting named") {
    CHECK(vdsm_check_replica(dt::block_cow).value() == dt::block_cow);
    CHECK(vdsm_check_replica(dt::file).value() == dt::file);
    REQUIRE(!vdsm_check_replica(dt::network));
    CHECK(vdsm_check_replica(dt::network).error().message() ==
          "replica_type: VDSM cannot replicate to a network drive");
}

// --- a new volume -------------------------------------------------------------------------------------------------

// blockvolume_test.py test_max_size_cow: max_size(10 GiB, cow) == 11811160064; test_max_size_raw: 1 GiB.
static_assert(test_sizes().max_size(vt::cow, 10_GiB) == bytes(11811160064));
static_assert(test_sizes().max_size(vt::raw, 1_GiB) == 1_GiB);

TEST_CASE("new volume: calculate_volume_alloc_size, VDSM's own vectors") {
    const vdsm_block_sizes s = test_sizes();
    // blockvolume_test.py test_block_volume_size.
    CHECK(s.alloc_size(pa::preallocated, vt::raw, 1_MiB, 0_B).value() == 1_MiB);
    CHECK(s.alloc_size(pa::preallocated, vt::raw, bytes(1048577), 0_B).value() == bytes(1048577));
    CHECK(s.alloc_size(pa::preallocated, vt::raw, 1_GiB, 0_B).value() == 1_GiB);
    CHECK(s.alloc_size(pa::preallocated, vt::cow, 2_GiB, 1_GiB).value() == 1_GiB);
    CHECK(s.alloc_size(pa::preallocated, vt::cow, 1_GiB, 0_B).value() == 1_GiB);
    CHECK(s.alloc_size(pa::sparse, vt::cow, 1023_MiB, 0_B).value() == 1023_MiB);
    CHECK(s.alloc_size(pa::sparse, vt::cow, 4_GiB, bytes(952320)).value() == bytes(1047552));  // int(952320 * 1.1)
    CHECK(s.alloc_size(pa::sparse, vt::cow, 4_GiB, bytes(957440)).value() == bytes(1053184));  // int(957440 * 1.1)
}

TEST_CASE("new volume: the boundaries of the rule") {
    const vdsm_block_sizes s = test_sizes();
    // Sparse cow without an initial size: min(chunk, capacity), on both sides of the chunk.
    CHECK(s.alloc_size(pa::sparse, vt::cow, 1024_MiB, 0_B).value() == 1024_MiB);
    CHECK(s.alloc_size(pa::sparse, vt::cow, 1025_MiB, 0_B).value() == 1024_MiB);
    // The maximum of 1 GiB cow is roundup(1.1 GiB, 128 MiB) = 1152 MiB: equal is accepted and grows by 10%
    // (1207959552 * 1.1 = 1328755507.2, floored), one byte more is refused.
    CHECK(s.alloc_size(pa::sparse, vt::cow, 1_GiB, 1152_MiB).value() == bytes(1328755507));
    CHECK(s.new_volume_size(pa::sparse, vt::cow, 1_GiB, 1152_MiB).value() == 1280_MiB);
    REQUIRE(!s.alloc_size(pa::sparse, vt::cow, 1_GiB, bytes(1152 * 1048576 + 1)));
    CHECK(s.alloc_size(pa::sparse, vt::cow, 1_GiB, bytes(1152 * 1048576 + 1)).error().message() ==
          "initial_size must be in [0, 1.125GiB], got 1207959553");
    // Preallocated cow is checked against the cow maximum too.
    CHECK(!s.alloc_size(pa::preallocated, vt::cow, 1_GiB, bytes(1152 * 1048576 + 1)));
    // Raw takes no initial size at all, even a small one (blockvolume_test.py test_fail_invalid_block_volume_size
    // uses max_size + 1).
    REQUIRE(!s.alloc_size(pa::preallocated, vt::raw, 1_GiB, 1_B));
    CHECK(s.alloc_size(pa::preallocated, vt::raw, 1_GiB, 1_B).error().message() ==
          "initial_size: an initial size is not supported for raw volumes, got 1");
}

TEST_CASE("new volume: the LV is whole MiB, then whole extents") {
    const vdsm_block_sizes s = test_sizes();
    CHECK(s.new_volume_size(pa::preallocated, vt::raw, 1_MiB, 0_B).value() == 128_MiB);
    CHECK(s.new_volume_size(pa::preallocated, vt::raw, 128_MiB, 0_B).value() == 128_MiB);
    CHECK(s.new_volume_size(pa::preallocated, vt::raw, bytes(128 * 1048576 + 1), 0_B).value() == 256_MiB);
    CHECK(s.new_volume_size(pa::sparse, vt::cow, 10_GiB, 0_B).value() == 1024_MiB);
    CHECK(!s.new_volume_size(pa::preallocated, vt::raw, 1_GiB, 1_MiB));
    // A 1 MiB extent shows the MiB rounding alone.
    const vdsm_block_sizes mib(vdsm_config::make(1024_MiB, 50, lvm_extent_size(1_MiB)).value());
    CHECK(mib.new_volume_size(pa::preallocated, vt::raw, bytes(1048577), 0_B).value() == 2_MiB);
    // Near 2^64: saturates to the largest extent multiple, never wraps.
    CHECK(s.new_volume_size(pa::preallocated, vt::raw, bytes(max64), 0_B).value() ==
          bytes(max64 & ~((128_MiB).count() - 1)));
    CHECK(s.max_size(vt::cow, bytes(max64)) == bytes(max64 & ~((128_MiB).count() - 1)));
}

// --- the optimal size ---------------------------------------------------------------------------------------------

TEST_CASE("optimal size: VDSM's own vectors (blockvolume_test.py test_optimal_size_cow_internal, _as_leaf)") {
    const vdsm_block_sizes s = test_sizes();
    CHECK(s.optimal_cow_size(200_MiB, 512_MiB, false).value() == 256_MiB);  // limited by max size
    CHECK(s.optimal_cow_size(262144_B, 2_GiB, false).value() == 128_MiB);   // empty qcow2: one extent
    CHECK(s.optimal_cow_size(1023_MiB, 2_GiB, false).value() == 1024_MiB);  // aligned to the extent
    CHECK(s.optimal_cow_size(1024_MiB, 2_GiB, false).value() == 1024_MiB);
    CHECK(s.optimal_size(vt::cow, 512_MiB, 3_GiB, true).value() == 1536_MiB);  // as a leaf: plus one chunk
    CHECK(s.optimal_size(vt::raw, 0_B, 1_GiB, false).value() == 1_GiB);        // raw: the capacity
}

TEST_CASE("optimal size: boundaries and the refusal") {
    const vdsm_block_sizes s = test_sizes();
    // A leaf: actual + chunk, rounded up to the extent.
    CHECK(s.optimal_cow_size(128_MiB, 10_GiB, true).value() == 1152_MiB);
    CHECK(s.optimal_cow_size(bytes(128 * 1048576 + 1), 10_GiB, true).value() == 1280_MiB);
    CHECK(s.optimal_cow_size(0_B, 10_GiB, true).value() == 1024_MiB);
    // Capped at roundup(1.1 * capacity, extent): 2 GiB -> 2304 MiB.
    CHECK(s.optimal_cow_size(1280_MiB, 2_GiB, true).value() == 2304_MiB);
    CHECK(s.optimal_cow_size(1279_MiB, 2_GiB, true).value() == 2304_MiB);
    CHECK(s.optimal_cow_size(1152_MiB, 2_GiB, true).value() == 2176_MiB);
    // An internal volume of 0 bytes cannot exist (VDSM asserts required_size > 0).
    REQUIRE(!s.optimal_cow_size(0_B, 2_GiB, false));
    CHECK(s.optimal_cow_size(0_B, 2_GiB, false).error().message() == "actual_size must be at least 1, got 0");
    CHECK(s.optimal_cow_size(1_B, 2_GiB, false).value() == 128_MiB);
    // Saturation: a huge actual size is capped at the maximum, never wraps to a small size.
    CHECK(s.optimal_cow_size(bytes(max64), 2_GiB, true).value() == 2304_MiB);
}

// blockvolume_test.py test_can_reduce.
static_assert(!vdsm_can_reduce(vt::raw, pa::preallocated));
static_assert(!vdsm_can_reduce(vt::cow, pa::preallocated));
static_assert(vdsm_can_reduce(vt::cow, pa::sparse));

// --- the base volume before a live merge --------------------------------------------------------------------------

TEST_CASE("merge: active commit extends when required + bitmaps + chunk exceeds the current size") {
    const vdsm_config c = vdsm_config::make(1024_MiB, 50).value();
    vdsm_merge_input in{10_GiB, 4_GiB, 3_GiB, 0_B, true};
    // 3 GiB + 1 GiB == 4 GiB: not more than the current size, so commit.
    CHECK(vdsm_merge_extend(c, in).action == vdsm_merge_action::commit);
    // One MiB of bitmaps tips it over (livemerge_test.py simulate_base_needs_extend's 1 MiB): 5121 MiB,
    // lvextend makes 5248 MiB of it.
    in.bitmaps = 1_MiB;
    const vdsm_merge_decision d = vdsm_merge_extend(c, in);
    CHECK(d.action == vdsm_merge_action::extend);
    CHECK(d.required == 3073_MiB);
    CHECK(d.new_size == 4097_MiB);
    CHECK(d.lv_size == 4224_MiB);
    CHECK(d.max_size == 11264_MiB);
    CHECK(std::string(to_text(d.action)) == "extend");
}

TEST_CASE("merge: internal merge extends when required + bitmaps exceeds the current size, without a chunk") {
    const vdsm_config c = vdsm_config::make(1024_MiB, 50).value();
    vdsm_merge_input in{10_GiB, 4_GiB, 4_GiB, 0_B, false};
    CHECK(vdsm_merge_extend(c, in).action == vdsm_merge_action::commit);
    in.bitmaps = 1_B;
    const vdsm_merge_decision d = vdsm_merge_extend(c, in);
    CHECK(d.action == vdsm_merge_action::extend);
    CHECK(d.new_size == bytes((4_GiB).count() + 1));
    CHECK(d.lv_size == 4224_MiB);
}

TEST_CASE("merge: skipped at the maximum and for drives VDSM does not extend") {
    const vdsm_config c = vdsm_config::make(1024_MiB, 50).value();
    // The maximum is Drive.getMaxVolumeSize: roundup(1.1 * 10 GiB, 1 MiB) = 11264 MiB.
    vdsm_merge_input in{10_GiB, 11264_MiB, 20_GiB, 1_MiB, true};
    CHECK(vdsm_merge_extend(c, in).action == vdsm_merge_action::at_maximum);
    in.current = 11263_MiB;
    CHECK(vdsm_merge_extend(c, in).action == vdsm_merge_action::extend);
    in.current = 11392_MiB;  // past the maximum, as the extent rounding leaves it
    CHECK(vdsm_merge_extend(c, in).action == vdsm_merge_action::at_maximum);
    in.current = 1_GiB;
    in.chunked = false;
    CHECK(vdsm_merge_extend(c, in).action == vdsm_merge_action::not_chunked);
    in.chunked = true;
    in.base_cow = false;
    CHECK(vdsm_merge_extend(c, in).action == vdsm_merge_action::not_chunked);
    // Saturating sums: a huge measure asks for the most, never wraps below the current size.
    in.base_cow = true;
    in.required = bytes(max64);
    CHECK(vdsm_merge_extend(c, in).new_size == bytes(max64));
}

TEST_CASE("merge: a raw base smaller than the top is refused (livemerge.py _validate_base_size)") {
    CHECK(vdsm_check_raw_base(2_GiB, 2_GiB).value() == 2_GiB);
    REQUIRE(!vdsm_check_raw_base(1_GiB, 2_GiB));
    CHECK(vdsm_check_raw_base(1_GiB, 2_GiB).error().message() ==
          "base_capacity (1GiB) must be at least top_capacity (2GiB)");
}

// --- a capacity resize --------------------------------------------------------------------------------------------

TEST_CASE("resize: preallocated volumes grow to the new capacity, sparse cow ones do not") {
    const bytes extent = 128_MiB;
    const auto raw = vdsm_resize(vt::raw, pa::preallocated, 3_GiB, 5_GiB, extent).value();
    CHECK(raw.action == vdsm_resize_action::grow);
    CHECK(raw.lv_size == 5_GiB);
    CHECK(vdsm_resize(vt::cow, pa::preallocated, 3_GiB, 5_GiB, extent).value().action == vdsm_resize_action::grow);
    // filevolume_test.py test_extend_volume: a raw sparse (file) volume grows too.
    CHECK(vdsm_resize(vt::raw, pa::sparse, 3_GiB, 5_GiB, extent).value().action == vdsm_resize_action::grow);
    const auto cow = vdsm_resize(vt::cow, pa::sparse, 3_GiB, 5_GiB, extent).value();
    CHECK(cow.action == vdsm_resize_action::sparse_cow);
    CHECK(cow.lv_size == 0_B);
    // Sparse cow is skipped before any size check, even for a smaller capacity.
    CHECK(vdsm_resize(vt::cow, pa::sparse, 3_GiB, 1_GiB, extent).value().action == vdsm_resize_action::sparse_cow);
}

TEST_CASE("resize: the requested capacity is rounded up to 4 KiB, then compared") {
    const bytes extent = 128_MiB;
    // 10 GiB + 512 becomes 10 GiB + 4 KiB (filevolume_test.py test_volume_size_unaligned states the same 4 KiB
    // alignment for a new volume's capacity).
    const auto d = vdsm_resize(vt::raw, pa::preallocated, 3_GiB, bytes((10_GiB).count() + 512), extent).value();
    CHECK(d.capacity == bytes((10_GiB).count() + 4096));
    CHECK(d.lv_size == 10368_MiB);
    // Equal after rounding: unchanged; 1 byte below the current size rounds up to it.
    CHECK(vdsm_resize(vt::raw, pa::preallocated, 3_GiB, 3_GiB, extent).value().action == vdsm_resize_action::unchanged);
    CHECK(vdsm_resize(vt::raw, pa::preallocated, 3_GiB, bytes((3_GiB).count() - 1), extent).value().action ==
          vdsm_resize_action::unchanged);
    // Smaller: refused (VolumeResizeValueError).
    REQUIRE(!vdsm_resize(vt::raw, pa::preallocated, 3_GiB, bytes((3_GiB).count() - 4096), extent));
    CHECK(vdsm_resize(vt::raw, pa::preallocated, 3_GiB, bytes((3_GiB).count() - 4096), extent).error().message() ==
          "new_capacity (3145724KiB) must be at least capacity (3GiB)");
    // Near 2^64 the 4 KiB rounding saturates.
    CHECK(vdsm_resize(vt::raw, pa::preallocated, 3_GiB, bytes(max64), extent).value().capacity ==
          bytes(max64 & ~std::uint64_t{4095}));
}

TEST_CASE("resize: HSM asks lvextend for whole MiB, rounded up (hsm_test.py test_extend_volume)") {
    CHECK(vdsm_size_mb(100_MiB) == 100);
    CHECK(vdsm_size_mb(bytes(100 * 1048576 - 1)) == 100);
    CHECK(vdsm_size_mb(bytes(100 * 1048576 + 1)) == 101);
    CHECK(vdsm_size_mb(0_B) == 0);
}
