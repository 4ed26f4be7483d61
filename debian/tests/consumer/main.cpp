// A consumer of the installed headers: one decision per family, each compared with what the real system does.
#include <provpol/provpol.hpp>

#include <cstdio>

namespace {
int failures = 0;
void check(bool ok, const char* what) {
    std::printf("%s: %s\n", ok ? "ok" : "FAIL", what);
    if (!ok) ++failures;
}
}  // namespace

int main() {
    using namespace provpol::literals;

    // oVirt VDSM 4.50 ([irs] volume_utilization_chunk_mb = 2560, volume_utilization_percent = 20): a 10 GiB drive
    // on a 5 GiB LV written to 3.5 GiB is past the threshold (2048 MiB before the end) and grows by one chunk.
    const auto extend = provpol::vdsm_2022().decide(provpol::drive_state{
        provpol::drive_capacity(10_GiB), provpol::drive_physical(5_GiB), provpol::drive_allocation(3584_MiB)});
    check(extend.needs_extend && extend.block_threshold == 3_GiB && extend.next_size == 7680_MiB,
          "vdsm-2022 extends a 5 GiB LV written to 3.5 GiB to 7.5 GiB, threshold 3 GiB");

    // mkfs.xfs 6.1.0 on 220 GiB with 4 KiB blocks prints "log =internal log bsize=4096 blocks=28160".
    const auto geometry = provpol::fs_geometry::make({220_GiB}).value();
    check(provpol::xfsprogs_6_1().decide(geometry).log_blocks == 28160, "xfsprogs-6.1 on 220 GiB: 28160 log blocks");

    // The Xen-API redo log of 2010 writes 16 KiB chunks (block_device_io.ml, ~block_size:16384).
    const auto chunk =
        provpol::make_chunk_policy(provpol::chunk_presets::xapi_redo_log_2010(), provpol::device_limits{}).value();
    check(chunk.decide(0_B).size == 16_KiB, "xapi-redo-log-2010: 16 KiB chunks");

    std::printf("provpol %s consumer: %d failed\n", PROVPOL_VERSION_STRING, failures);
    return failures == 0 ? 0 : 1;
}
