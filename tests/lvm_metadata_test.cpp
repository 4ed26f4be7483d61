// Tests of a thin pool's metadata under a burst (provpol/simulate/thin_metadata.hpp and the metadata half of
// simulate/lvm_pool.hpp and lvm_dmeventd.hpp). As in lvm_flow_test.cpp, lvextend takes exactly 1 s and reads the
// status half-way, and dmeventd polls an hour apart, so each event is followed by hand next to its expected value.
// The estimate is checked against the real thin_metadata_size's answers (tests/data/thin_metadata_size).
#include "test_support.hpp"

#include <provpol/simulate/lvm_pool.hpp>
#include <provpol/simulate/thin_metadata.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

using namespace provpol;
using namespace provpol::literals;

namespace {

lvm_dmeventd_model fixed_model() { return lvm_dmeventd_model::make(1_s, 1_s, 0.5, 3600_s, 60_s).value(); }
constexpr std::uint64_t seed = 7;              // its poll phase falls after these runs (lvm_flow_test.cpp checks it)
const rate one_gib_s(std::uint64_t{1} << 30);  // 16384 chunks of 64 KiB a second

lvm_pool_workload burst(bytes metadata, bytes metadata_used, bytes write) {
    lvm_pool_workload w{1_TiB, {}, bytes::max(), write, one_gib_s};
    w.metadata_size = metadata;
    w.metadata_used = metadata_used;
    return w;
}

}  // namespace

TEST_CASE("thin metadata: the kernel's low-water mark, reserve and limit") {
    // calc_metadata_threshold: min(1024, a quarter); __set_metadata_reserve: min(4096, a tenth).
    CHECK(thin_metadata_low_water(1024) == 256);
    CHECK(thin_metadata_low_water(4096) == 1024);
    CHECK(thin_metadata_low_water(1u << 20) == 1024);
    CHECK(thin_metadata_reserve(1024) == 102);
    CHECK(thin_metadata_reserve(40960) == 4096);
    CHECK(thin_metadata_reserve(1u << 20) == 4096);
    // THIN_METADATA_MAX_SECTORS: 255 x 2^14 blocks; a larger device's excess is not used.
    CHECK(thin_metadata_blocks(4_MiB) == 1024);
    CHECK(thin_metadata_blocks(bytes(4095)) == 0);
    CHECK(thin_metadata_blocks(16_GiB) == 255u * 16384u);
    CHECK(thin_metadata_estimate_blocks(125, 0) == 1);
    CHECK(thin_metadata_estimate_blocks(126, 1) == 3);
}

TEST_CASE("thin metadata: the estimate is thin_metadata_size's (Debian 12, thin-provisioning-tools 0.9.0)") {
    // Rows written by tests/data/capture_thin_metadata_size.sh from the real tool: block size, pool size and
    // thins in, bytes out.
    std::ifstream in(std::string(PROVPOL_TEST_DATA_DIR) + "/thin_metadata_size/debian12_0.9.0.csv");
    REQUIRE(in);
    std::string line;
    std::getline(in, line);
    REQUIRE(line == "block_bytes,pool_bytes,thins,metadata_bytes");
    int rows = 0;
    while (std::getline(in, line)) {
        std::istringstream f(line);
        std::uint64_t block = 0, pool = 0, thins = 0, meta = 0;
        char comma = 0;
        REQUIRE((f >> block >> comma >> pool >> comma >> thins >> comma >> meta));
        CAPTURE(line);
        CHECK(thin_metadata_estimate_blocks(pool / block, thins) * thin_metadata_block == meta);
        ++rows;
    }
    CHECK(rows >= 40);
}

TEST_CASE("thin metadata: dmeventd's metadata check levels (process_event's metadata half)") {
    detail::lvm_dso_state d{};
    constexpr std::int32_t pct = lvm_percent_1;
    d.known_total = 1000;
    d.known_metadata_total = 1000;
    CHECK_FALSE(d.on_status(10 * pct, 1000, 50 * pct, 1000));  // 50% is not above 50%
    CHECK(d.on_status(10 * pct, 1000, 55 * pct, 1000));        // above 50%: the level moves to 60%
    CHECK(d.metadata_check == 60 * pct);
    CHECK(d.check == 50 * pct);  // the data's own level is untouched
    CHECK_FALSE(d.on_status(10 * pct, 1000, 58 * pct, 1000));
    CHECK(d.on_status(10 * pct, 1000, 61 * pct, 1000));
    CHECK(d.metadata_check == 65 * pct);
    // A metadata resize clears its level (and the failures).
    d.fails = 3;
    CHECK(d.on_status(10 * pct, 1000, 51 * pct, 2000));
    CHECK(d.fails == 0);
    CHECK(d.metadata_check == 55 * pct);
    // Not modelled (0 of 0): never a reason, as before the metadata was simulated.
    detail::lvm_dso_state e{};
    e.known_total = 1000;
    CHECK_FALSE(e.on_status(40 * pct, 1000));
    CHECK(e.on_status(51 * pct, 1000));
}

TEST_CASE("thin metadata: with autoextend off the metadata runs out and the pool fails writes") {
    // 4 MiB of metadata, 1024 blocks, none used; each block maps 126 chunks of 64 KiB, 1/130.03 s at 1 GiB/s.
    // The low-water event (256 free) comes at 768 blocks, 768 x 126 / 16384 = 5.90625 s: lvextend runs and finds
    // autoextend disabled. The reserve is 102 blocks: at 922 blocks, 922 x 126 / 16384 = 7.090576171875 s, the
    // pool runs out of metadata space and fails writes.
    const auto off = lvm_autoextend_config::make(lvm_threshold(100), lvm_percent(20)).value();
    const lvm_run_result r = simulate_lvm_run(off, fixed_model(), burst(4_MiB, {}, 100_GiB), seed);
    CHECK(r.metadata_full);
    CHECK(r.eio);
    CHECK(r.ended_at.count() == doctest::Approx(7.090576171875).epsilon(1e-12));
    CHECK(r.commands == 1);
    CHECK(r.extends == 0);
    CHECK(r.metadata_extends == 0);
    CHECK(r.metadata_end == 4_MiB);
    CHECK(r.times_full == 0);
}

TEST_CASE("thin metadata: lvm2 grows the metadata alone by its own threshold") {
    const auto c70 = lvm_autoextend_config::make(lvm_threshold(70), lvm_percent(20)).value();
    // The event at 768 blocks (5.90625 s); the status at 6.40625 s: ceil(6.40625 x 16384 / 126) = 834 blocks,
    // 81.44%; the metadata threshold is min(70, 100 - min(25%, 4 MiB of 4 MiB)) = 70; amount max(20,
    // ceil(8144.53 / 70) - 100 = 17) + 1 = 21% of 1 extent, rounded up: 1 extent, to 8 MiB (2048 blocks) at
    // 6.90625 s. Its low water is 512 free: 1536 blocks, at 11.8125 s; the status at 12.3125 s reads 1602
    // blocks, 78.22%, threshold min(70, 75) = 70, amount 21% of 2 extents: 1 extent, to 12 MiB at 12.8125 s. The
    // next event (768 free of 3072) would come at 17.71875 s: the 14 GiB burst ends at 14 s.
    const lvm_run_result r = simulate_lvm_run(c70, fixed_model(), burst(4_MiB, {}, 14_GiB), seed);
    CHECK_FALSE(r.metadata_full);
    CHECK_FALSE(r.eio);
    CHECK(r.metadata_extends == 2);
    CHECK(r.metadata_end == 12_MiB);
    CHECK(r.extends == 0);  // the data, 1.4% of 1 TiB, never grew
    CHECK(r.pool_end == 1_TiB);
    CHECK(r.commands == 2);
    CHECK(r.ended_at.count() == doctest::Approx(14.0).epsilon(1e-12));
    // Without the metadata (size 0) the same burst is nothing to the pool.
    const lvm_run_result d = simulate_lvm_run(c70, fixed_model(), burst({}, {}, 14_GiB), seed);
    CHECK(d.commands == 0);
    CHECK(d.metadata_end == bytes(0));
}

TEST_CASE("thin metadata: at lvm2's largest metadata, the reserve comes before the kernel's event") {
    // DEFAULT_THIN_POOL_MAX_METADATA_SIZE_V1_KB: 255 x 16320 blocks. The event would come with 1024 blocks free,
    // the pool stops with 4096 free: it runs out without an event. Starting 1000 blocks short of that, it runs out
    // after 126000 chunks, 126000 / 16384 = 7.6904296875 s.
    const std::uint64_t total = 255u * 16320u;
    const auto c70 = lvm_autoextend_config::make(lvm_threshold(70), lvm_percent(20)).value();
    const bytes used((total - 4096 - 1000) * thin_metadata_block);
    const lvm_run_result r =
        simulate_lvm_run(c70, fixed_model(), burst(bytes(total * thin_metadata_block), used, 100_GiB), seed);
    CHECK(r.metadata_full);
    CHECK(r.commands == 0);
    CHECK(r.ended_at.count() == doctest::Approx(7.6904296875).epsilon(1e-12));
    // A summary counts the runs and when they ran out.
    const lvm_plan_summary s =
        simulate_lvm_plan(c70, fixed_model(), burst(bytes(total * thin_metadata_block), used, 100_GiB), 4, seed);
    CHECK(s.metadata_full_runs == 4);
    CHECK(s.eio_runs == 4);
    CHECK(s.metadata_full_at_mean.count() == doctest::Approx(7.6904296875).epsilon(1e-12));
}
