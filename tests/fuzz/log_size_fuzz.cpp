// Fuzzes the log-size policies (mkfs.xfs 6.1 to 7.2, concurrency and devices included) with arbitrary mkfs options:
// every decision of a valid geometry stays within mkfs.xfs's floors and caps, is aligned to the log stripe unit, fits
// in an allocation group, replays identically, and (for the default geometry, where the real tool is monotonic) never
// shrinks as the device grows; ext4's journal is always a step of mke2fs's table.
#include "fuzz_check.hpp"

#include <provpol/log_size.hpp>

#include <cstdint>

namespace {

using namespace provpol;

constexpr std::uint64_t ext4_steps[] = {0, 1024, 4096, 8192, 16384, 32768, 65536, 131072, 262144};

bool hard_error(log_reason r) {
    return r == log_reason::data_too_small || r == log_reason::invalid_ag_geometry ||
           r == log_reason::ag_too_small_for_log || r == log_reason::log_below_minimum ||
           r == log_reason::log_crosses_ag || r == log_reason::unsupported_option;
}

void check_xfs(const log_size_decision& d) {
    if (hard_error(d.reason)) {  // mkfs refuses outright, --unsupported or not: no log is made
        PROVPOL_FUZZ_CHECK(!d.supported);
        return;
    }
    PROVPOL_FUZZ_CHECK(d.log_blocks >= 1);
    PROVPOL_FUZZ_CHECK(d.log_blocks <= 1048576);  // XFS_MAX_LOG_BLOCKS
    PROVPOL_FUZZ_CHECK(d.log_blocks * d.block_size <=
                       (std::uint64_t{2} << 30) - (std::uint64_t{10} << 20));  // XFS_MAX_LOG_BYTES
    PROVPOL_FUZZ_CHECK(d.log_sunit_blocks == 0 || d.log_blocks % d.log_sunit_blocks == 0);
    PROVPOL_FUZZ_CHECK(d.agsize_blocks == 0 || d.log_blocks < d.agsize_blocks);  // an internal log fits in its AG
    PROVPOL_FUZZ_CHECK(d.min_log_blocks >= 512);
    PROVPOL_FUZZ_CHECK(d.agcount >= 1);
    PROVPOL_FUZZ_CHECK(d.supported || d.reason != log_reason::none);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::reader in(data, size);
    fs_geometry_options o;
    const std::uint8_t shape = in.u8();
    o.device_size = bytes(shape & 1 ? (in.u64() & ((std::uint64_t{1} << (20 + in.u8() % 36)) - 1)) : in.size_like());
    o.block_size = shape & 2 ? 0u : (1u << (9 + in.u8() % 9)) + (shape & 4 ? in.u8() % 3 : 0);
    o.sector_size = shape & 8 ? 0u : (1u << (9 + in.u8() % 8));
    if (shape & 16) o.agcount = in.u8() % 70;
    if (shape & 32) o.agsize = bytes((std::uint64_t{1} << (20 + in.u8() % 22)) + (in.flag() ? 4096 : 0));
    if (shape & 64) {
        o.stripe_unit = bytes(std::uint64_t{1} << (9 + in.u8() % 14));
        o.stripe_width = in.u8() % 9;
    }
    if (in.flag()) o.log_stripe_unit = bytes(std::uint64_t{1} << (9 + in.u8() % 12));
    o.features.crc = in.flag();
    o.features.finobt = in.flag();
    o.features.reflink = in.flag();
    o.features.rmapbt = in.flag();
    o.min_log_blocks = in.flag() ? in.u32() % 100000 : 0;
    o.allow_unsupported = in.flag();
    o.fast_commit = in.flag();
    // mkfs.xfs >= 6.8 inputs, read last so that the saved corpus keeps its meaning for the fields above.
    if (in.flag()) o.features.nrext64 = in.flag();
    if (in.flag()) o.features.parent = in.flag();
    if (in.flag()) o.log_concurrency = static_cast<std::int64_t>(in.u32() % 4096);
    o.device = static_cast<xfs_device>(in.u8() % 3);
    o.cpus = in.u32() % 1024;

    const auto g = fs_geometry::make(o);
    if (!g) {
        PROVPOL_FUZZ_CHECK(g.error().message().size() > 0);
        return 0;
    }
    for (log_preset p : all_log_presets) {
        const log_size_decision d = decide_log_size(p, *g);
        PROVPOL_FUZZ_CHECK(decide_log_size(p, *g).log_blocks == d.log_blocks);  // replay
        if (p == log_preset::e2fsprogs_1_47) {
            bool step = false;
            for (std::uint64_t s : ext4_steps) step = step || d.log_blocks == s;
            PROVPOL_FUZZ_CHECK(step);
            PROVPOL_FUZZ_CHECK(d.fast_commit_blocks == (o.fast_commit ? d.log_blocks / 64 : 0));
            continue;
        }
        check_xfs(d);
        if (!hard_error(d.reason) && (p == log_preset::xfsprogs_6_1 || p == log_preset::xfs_ratio_256)) {
            PROVPOL_FUZZ_CHECK(d.log_blocks >= d.min_log_blocks || d.log_blocks + 1 >= d.agsize_blocks - 16 ||
                               d.log_sunit_blocks != 0);
        }
    }
    // Monotone in the device size for the default geometry (no explicit AGs, no stripe): what the real mkfs.xfs
    // 6.1 does (tests/data/mkfs_xfs_6.1.csv), in log blocks, for a fixed block size and sector size.
    if (o.agcount == 0 && o.agsize.count() == 0 && o.stripe_unit.count() == 0 && o.log_stripe_unit.count() == 0) {
        fs_geometry_options bigger = o;
        bigger.device_size = bytes(saturating_add(o.device_size.count(), in.u64() >> (in.u8() % 64)));
        const auto g2 = fs_geometry::make(bigger);
        if (g2) {
            const log_size_decision a = xfsprogs_6_1().decide(*g), b = xfsprogs_6_1().decide(*g2);
            if (!hard_error(a.reason) && !hard_error(b.reason) && o.min_log_blocks != 0)
                PROVPOL_FUZZ_CHECK(b.log_blocks >= a.log_blocks);
        }
    }
    return 0;
}
