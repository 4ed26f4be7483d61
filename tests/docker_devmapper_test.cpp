// Tests of provpol/extend/docker_devmapper.hpp: Docker's devicemapper driver. The expected values are worked from
// moby's code at 81359cecdf25 (the line each rule is on is named next to it); moby's own tests of the loopback
// files are checked row by row in tests/peers/moby.
#include "test_support.hpp"

#include <provpol/extend/docker_devmapper.hpp>
#include <provpol/extend/presets.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <type_traits>

using namespace provpol;
using namespace provpol::literals;

namespace {
std::string message(const error& e) { return std::string(e.message().view()); }
bool same(const lvm_autoextend_config& a, const lvm_autoextend_config& b) {
    return a.threshold_as_written() == b.threshold_as_written() && a.extend_percent() == b.extend_percent() &&
           a.extent() == b.extent() && a.pool_chunk() == b.pool_chunk() && a.kind() == b.kind();
}
}  // namespace

// deviceset.go:37-48 and devmapper.go:449, at compile time.
static_assert(docker_devmapper_defaults().min_free_space_percent() == 10);
static_assert(docker_devmapper_defaults().block() == 64_KiB);
static_assert(docker_devmapper_defaults().data_loopback() == 100_GiB);
static_assert(docker_devmapper_defaults().metadata_loopback() == 2_GiB);
static_assert(docker_devmapper_defaults().base_size() == 10_GiB);
static_assert(docker_devmapper_defaults().low_water() == 2_GiB);  // 32768 x 64 KiB
// device_setup.go:183-189, 217.
static_assert(docker_devicemapper().threshold_percent() == 80);
static_assert(docker_devicemapper().extend_percent() == 20);
static_assert(docker_devicemapper().pool_chunk() == 512_KiB);
static_assert(docker_devicemapper().extent() == 4_MiB);

TEST_CASE("Docker devicemapper: the direct-lvm profile (device_setup.go:183-222, deviceset.go:2760-2777)") {
    CHECK(
        same(docker_direct_lvm(lvm_threshold(0), lvm_percent(0)).value(), docker_devicemapper()));  // unset: 80 and 20
    CHECK(docker_direct_lvm(lvm_threshold(90), lvm_percent(0)).value().threshold_percent() == 90);
    CHECK(docker_direct_lvm(lvm_threshold(0), lvm_percent(50)).value().extend_percent() == 50);
    CHECK(docker_direct_lvm(lvm_threshold(100), lvm_percent(100))
              .has_value());  // the check is > 100 (its message says "less than 100")
    CHECK_FALSE(docker_direct_lvm(lvm_threshold(100), lvm_percent(20))
                    .value()
                    .enabled());  // lvm2 never extends at threshold 100
    CHECK(message(docker_direct_lvm(lvm_threshold(101), lvm_percent(0)).error()) ==
          "dm.thinp_autoextend_threshold must be in [0, 100], got 101");
    CHECK(message(docker_direct_lvm(lvm_threshold(0), lvm_percent(101)).error()) ==
          "dm.thinp_autoextend_percent must be in [0, 100], got 101");
    // What lvm2 then does: a 100 GiB pool of 512 KiB chunks (204800) at one chunk over 80% grows by 20%.
    const lvm_volume_state s = lvm_volume_state::thin(100_GiB, bytes(std::uint64_t{163841} << 19), 512_KiB);
    CHECK(decide_lvm_autoextend(docker_devicemapper(), s).new_size == 120_GiB);
    const lvm_volume_state at = lvm_volume_state::thin(100_GiB, 80_GiB, 512_KiB);  // exactly 80%: nothing
    CHECK(decide_lvm_autoextend(docker_devicemapper(), at).outcome == lvm_outcome::none);
    CHECK(same(lvm_config_of(extend_preset::docker_devicemapper).value(), docker_devicemapper()));
}

TEST_CASE("Docker devicemapper: the driver's settings (deviceset.go:2713-2728)") {
    // Each size lands in its role (the types keep them apart at the call; this holds make to them).
    const docker_devmapper_config roles =
        docker_devmapper_config::make(20, docker_block_size(128_KiB), docker_loop_data_size(50_GiB),
                                      docker_loop_metadata_size(1_GiB), docker_base_size(20_GiB))
            .value();
    CHECK(roles.min_free_space_percent() == 20);
    CHECK(roles.block() == 128_KiB);
    CHECK(roles.data_loopback() == 50_GiB);
    CHECK(roles.metadata_loopback() == 1_GiB);
    CHECK(roles.base_size() == 20_GiB);
    CHECK(message(docker_devmapper_config::make(100).error()) == "dm.min_free_space must be in [0, 99], got 100");
    CHECK(docker_devmapper_config::make(99).has_value());
    CHECK(docker_devmapper_config::make(0).has_value());
    CHECK(message(docker_devmapper_config::make(10, docker_block_size(32_KiB)).error()) ==
          "dm.blocksize must be in [64KiB, 1GiB], got 32KiB");
    CHECK(message(docker_devmapper_config::make(10, docker_block_size(96_KiB)).error()) ==
          "dm.blocksize must be a multiple of 64KiB, got 96KiB");
    CHECK(message(docker_devmapper_config::make(10, docker_block_size(64_KiB), docker_loop_data_size(0_B)).error()) ==
          "dm.loopdatasize must be in [1, 1EiB], got 0");
}

// The status's four counts are set by name (tests/compile_fail/docker_pool_*.cpp spell the misuses out).
static_assert(!std::is_aggregate_v<docker_pool_status>);
static_assert(!std::is_constructible_v<docker_pool_status, blocks, blocks, blocks, blocks>);

namespace {
// The status as the tests below write it: used and total data blocks, then used and total metadata blocks.
docker_pool_status status(std::uint64_t data_used, std::uint64_t data_total, std::uint64_t metadata_used,
                          std::uint64_t metadata_total) {
    docker_pool_status s;
    s.data_used = blocks(data_used);
    s.data_total = blocks(data_total);
    s.metadata_used = blocks(metadata_used);
    s.metadata_total = blocks(metadata_total);
    return s;
}
}  // namespace

TEST_CASE("Docker devicemapper: dm.min_free_space (poolHasFreeSpace, deviceset.go:759-790)") {
    const docker_devmapper_config c = docker_devmapper_defaults();
    // 1000 data blocks: at least 100 free. 900 used leaves exactly 100: allowed; 901 leaves 99: refused.
    auto d = docker_pool_has_free_space(c, status(900, 1000, 0, 500));
    CHECK(d.verdict == docker_free_space::ok);
    CHECK(d.min_free_data == blocks(100));
    CHECK(d.min_free_metadata == blocks(50));
    CHECK(d.min_free_space == 6400_KiB);  // 100 blocks of 64 KiB: Status's MinFreeSpace, in bytes
    d = docker_pool_has_free_space(c, status(901, 1000, 0, 500));
    CHECK(d.verdict == docker_free_space::low_data);
    CHECK(d.min_free_metadata == blocks(0));  // not reached: data is checked first
    // Metadata: 500 blocks, at least 50 free.
    CHECK(docker_pool_has_free_space(c, status(0, 1000, 450, 500)).verdict == docker_free_space::ok);
    CHECK(docker_pool_has_free_space(c, status(0, 1000, 451, 500)).verdict == docker_free_space::low_metadata);
    // floor(total x percent / 100), at least 1: 19 blocks at 10% is 1 (1.9 truncated), 5 blocks is 0 -> 1.
    CHECK(docker_pool_has_free_space(c, status(18, 19, 0, 500)).min_free_data == blocks(1));
    CHECK(docker_pool_has_free_space(c, status(19, 19, 0, 500)).verdict == docker_free_space::low_data);
    CHECK(docker_pool_has_free_space(c, status(4, 5, 0, 500)).verdict == docker_free_space::ok);
    CHECK(docker_pool_has_free_space(c, status(5, 5, 0, 500)).verdict == docker_free_space::low_data);  // 0 < max(1, 0)
    CHECK(docker_pool_has_free_space(c, status(0, 1000, 5, 5)).verdict == docker_free_space::low_metadata);
    // Used above total (no kernel reports it) counts as full, as Go's unsigned total - used would not: no wrap to a
    // huge free count.
    CHECK(docker_pool_has_free_space(c, status(1001, 1000, 0, 500)).verdict == docker_free_space::low_data);
    CHECK(docker_pool_has_free_space(c, status(0, 1000, 501, 500)).verdict == docker_free_space::low_metadata);
    // 0% checks nothing, even a full pool.
    const docker_devmapper_config off = docker_devmapper_config::make(0).value();
    CHECK(docker_pool_has_free_space(off, status(1000, 1000, 500, 500)).verdict == docker_free_space::ok);
    CHECK(docker_pool_has_free_space(off, status(1000, 1000, 500, 500)).min_free_data == blocks(0));
    // 25%: the percent is read, not fixed at 10.
    const docker_devmapper_config q = docker_devmapper_config::make(25).value();
    CHECK(docker_pool_has_free_space(q, status(750, 1000, 0, 500)).verdict == docker_free_space::ok);
    CHECK(docker_pool_has_free_space(q, status(751, 1000, 0, 500)).verdict == docker_free_space::low_data);
}

TEST_CASE("Docker devicemapper: docker info's Min Free Space has no max(1) (DeviceSet.Status, deviceset.go:2583)") {
    // moby 81359cecdf25 Status(): minFreeData := (dataTotal * uint64(devices.minFreeSpacePercent)) / 100, then
    // status.MinFreeSpace = minFreeData * blockSizeInSectors * 512: the floor without poolHasFreeSpace's
    // `if minFreeData < 1 { minFreeData = 1 }` (deviceset.go:769-772).
    const docker_devmapper_config c = docker_devmapper_defaults();
    static_assert(docker_info_min_free_space(docker_devmapper_defaults(), blocks(1000)) == 6400_KiB);
    CHECK(docker_info_min_free_space(c, blocks(9)) == 0_B);  // 0.9 blocks truncated: docker info shows 0 B
    CHECK(docker_info_min_free_space(c, blocks(10)) == 64_KiB);
    CHECK(docker_info_min_free_space(c, blocks(19)) == 64_KiB);
    CHECK(docker_info_min_free_space(c, blocks(0)) == 0_B);
    // A 5-block pool: docker info says 0, yet a new device needs one free block.
    const auto d = docker_pool_has_free_space(c, status(4, 5, 0, 500));
    CHECK(d.min_free_space == 0_B);
    CHECK(d.min_free_data == blocks(1));
    CHECK(docker_pool_has_free_space(c, status(5, 5, 0, 500)).min_free_space == 0_B);
    // The block is dm.blocksize's: 1000 blocks of 1 MiB at 10% show 100 MiB.
    CHECK(docker_info_min_free_space(docker_devmapper_config::make(10, docker_block_size(1_MiB)).value(),
                                     blocks(1000)) == 100_MiB);
    // 0% checks nothing and shows 0; 99% of 1000 blocks is 990.
    CHECK(docker_info_min_free_space(docker_devmapper_config::make(0).value(), blocks(1000)) == 0_B);
    CHECK(
        docker_pool_has_free_space(docker_devmapper_config::make(0).value(), status(0, 1000, 0, 500)).min_free_space ==
        0_B);
    CHECK(docker_info_min_free_space(docker_devmapper_config::make(99).value(), blocks(1000)) ==
          bytes(std::uint64_t{990} * 65536));
    // 2^40 blocks x 10 / 100 = 109951162777.6, truncated; past 2^64 bytes it saturates.
    CHECK(docker_info_min_free_space(c, blocks(std::uint64_t{1} << 40)) == bytes(std::uint64_t{109951162777} * 65536));
    CHECK(docker_info_min_free_space(c, blocks(~std::uint64_t{0})) == bytes::max());
}

TEST_CASE("Docker devicemapper: the loopback files (ensureImage, deviceset.go:261-298)") {
    CHECK(docker_loopback_size(0_B, 100_GiB) == 100_GiB);      // created
    CHECK(docker_loopback_size(100_GiB, 110_GiB) == 110_GiB);  // grown
    CHECK(docker_loopback_size(100_GiB, 90_GiB) == 100_GiB);   // never shrunk
}
