// provpol/simulate/stratis_pool_run.hpp - a write burst into a Stratis pool (stratis_pool_workload, its metadata
// sized as stratisd sizes a new pool's: stratis_thin_metadata_sectors, stratis_size_metadata) and what one run of
// it shows (stratis_run_result): the input and the answer of stratis_pool.hpp's simulate_stratis_run.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_STRATIS_POOL_RUN_HPP
#define PROVPOL_SIMULATE_STRATIS_POOL_RUN_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../extend/stratis.hpp"
#include "../time.hpp"

#include <cstdint>

namespace provpol {

/// Mapped data blocks per 4 KiB metadata block: btree leaves half full (thin-provisioning-tools' estimate).
inline constexpr std::uint64_t stratis_mappings_per_metadata_block = 126;

/// thin_metadata_size's answer in 512-byte sectors (as blocks) in the form of thin-provisioning-tools' metadata_size
/// estimate: a 4 KiB leaf (8 sectors) per 126 data blocks of `usable`, plus one per thin device of `max_thins`
/// (stratisd passes its fs_limit, 100 by default). An input of stratis_metadata_size; give a real pool's metadata size
/// where it differs.
PROVPOL_NODISCARD constexpr blocks stratis_thin_metadata_sectors(bytes usable, bytes data_block,
                                                                 std::uint64_t max_thins = 100) noexcept {
    const std::uint64_t data = usable.count() / data_block.count();
    const std::uint64_t leaves =
        data / stratis_mappings_per_metadata_block + (data % stratis_mappings_per_metadata_block != 0 ? 1 : 0);
    return blocks(saturating_mul(saturating_add(leaves, max_thins), 8));
}

/// A burst of writes into a Stratis pool (every filesystem together: they share the pool's data blocks).
struct stratis_pool_workload {
    bytes pool_size;            ///< the thin pool's data device when the burst starts
    bytes pool_used{};          ///< data already in the pool
    bytes backstore_free;       ///< the backstore's unallocated space (available_in_backstore)
    bytes metadata_size{};      ///< the metadata device (its spare is as large)
    blocks metadata_sectors{};  ///< thin_metadata_size's 512-byte sectors for the data tier (0: no growth)
    bytes write;                ///< new data written in all
    rate write_rate;            ///< bytes per second in all, while the pool has room
};

/// Sizes the metadata as stratisd sizes a new pool's for the data tier the workload implies (its data device, the
/// MDV and the backstore's free space): metadata_sectors is the estimate of stratis_thin_metadata_sectors for it,
/// metadata_size what stratis_metadata_size makes of that (x 8, whole data blocks, at most the cap).
constexpr void stratis_size_metadata(const stratis_config& c, stratis_pool_workload& w) noexcept {
    w.metadata_sectors = stratis_thin_metadata_sectors(w.pool_size + c.mdv_size() + w.backstore_free, c.data_block());
    w.metadata_size = stratis_metadata_size(c, w.metadata_sectors);
}

/// One run of a burst.
struct stratis_run_result {
    std::uint32_t data_extends = 0;      ///< checks that grew the data device
    std::uint32_t metadata_extends = 0;  ///< checks that grew the metadata device (doubled or to the estimate)
    std::uint32_t checks = 0;            ///< check() runs, by the timer and by dm events
    std::uint32_t times_full = 0;        ///< times the data device filled with data still to write
    bool error_if_no_space = false;      ///< a check put the pool in error_if_no_space (the backstore short)
    seconds error_mode = seconds(0);     ///< from that check's end to the run's end
    seconds queued = seconds(0);         ///< how long writes waited on a full pool (queue_if_no_space), in all
    seconds longest_queue = seconds(0);  ///< the longest of those waits
    bool eio =
        false;  ///< writes failed: a full pool in error_if_no_space, queued past no_space_timeout, or metadata full
    bool hung = false;              ///< writes still queued a day after the burst should have ended
    bytes pool_end;                 ///< the data device when the run ended
    bytes metadata_end;             ///< the metadata device then
    bytes backstore_end;            ///< the backstore's free space then
    seconds ended_at = seconds(0);  ///< when the last byte was written, or writes failed
};

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_STRATIS_POOL_RUN_HPP
