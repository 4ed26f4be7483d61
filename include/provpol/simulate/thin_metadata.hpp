// provpol/simulate/thin_metadata.hpp - a thin pool's metadata space as dm-thin counts it: the metadata each newly
// mapped data chunk takes (as thin-provisioning-tools' thin_metadata_size estimates it), the kernel's metadata
// low-water mark, the reserve below which the pool stops allocating, and the largest metadata device the kernel
// uses. The thin-pool simulator (lvm_pool.hpp) fills the metadata with these as the data grows.
//
// Sources:
//   thin-provisioning-tools  thin_metadata_size (Debian 12's 0.9.0, and src/thin/metadata_size.rs in the Rust
//       releases): one 4 KiB leaf of the mapping btree per 126 data chunks, the leaves assumed half full
//       (calc_max_entries: (4096 - 32) / 16 bytes = 254, rounded down to a multiple of 3, 252; half is 126),
//       plus one block and one root block per thin device. 0.9.0 counts floor(chunks / 126) leaves, the Rust
//       releases ceil(chunks / 126). tests/data/thin_metadata_size holds the real tool's answers
//       (capture_thin_metadata_size.sh).
//   drivers/md/dm-thin.c (Linux 6.1)  calc_metadata_threshold: the metadata low-water event is sent when the
//       free metadata blocks fall below min(1024 blocks (4 MiB), a quarter of the device); check_for_metadata_space:
//       no free block (past the reserve) turns the pool PM_OUT_OF_METADATA_SPACE, and should_error_unserviceable_bio
//       fails every write that needs a new block with EIO until the metadata is resized (a filesystem on the pool
//       shuts down at the first). Above 40 MiB of metadata the reserve is larger than the low-water mark: the
//       pool runs out before the kernel's event, and only dmeventd's poll grows the metadata in time.
//   drivers/md/dm-thin-metadata.c  __set_metadata_reserve: min(4096 blocks (16 MiB), a tenth of the device) held
//       back; dm_pool_get_free_metadata_block_count reports the free blocks less the reserve.
//   drivers/md/dm-thin-metadata.h  THIN_METADATA_MAX_SECTORS: the kernel uses at most 255 x 2^14 blocks of 4 KiB.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_THIN_METADATA_HPP
#define PROVPOL_SIMULATE_THIN_METADATA_HPP

#include "../bytes.hpp"
#include "../config.hpp"

#include <cstdint>

namespace provpol {

/// dm-thin's metadata block (THIN_METADATA_BLOCK_SIZE): Meta% is used / total of these.
inline constexpr std::uint64_t thin_metadata_block = 4096;

/// Data chunks mapped per metadata block, as thin_metadata_size estimates (mapping leaves half full).
inline constexpr std::uint64_t thin_chunks_per_metadata_block = 126;

/// The most metadata blocks the kernel uses (THIN_METADATA_MAX_SECTORS / 8): a larger device's excess is unused.
inline constexpr std::uint64_t thin_metadata_max_blocks = std::uint64_t{255} << 14;

/// thin_metadata_size's estimate in metadata blocks for `data_chunks` chunks and `thins` thin devices, as Debian
/// 12's thin-provisioning-tools 0.9.0 prints it (-n -u b, divided by 4096): floor(chunks / 126) + 1 + thins
/// (the Rust releases count ceil(chunks / 126) + 1 + thins: they differ by a block at whole leaves).
PROVPOL_NODISCARD constexpr std::uint64_t thin_metadata_estimate_blocks(std::uint64_t data_chunks,
                                                                        std::uint64_t thins) noexcept {
    return data_chunks / thin_chunks_per_metadata_block + 1 + thins;
}

/// The metadata blocks a metadata device of `size` gives the kernel: whole 4 KiB blocks, at most
/// thin_metadata_max_blocks.
PROVPOL_NODISCARD constexpr std::uint64_t thin_metadata_blocks(bytes size) noexcept {
    const std::uint64_t b = size.count() / thin_metadata_block;
    return b < thin_metadata_max_blocks ? b : thin_metadata_max_blocks;
}

/// calc_metadata_threshold: the low-water event fires when fewer than this many metadata blocks are free.
PROVPOL_NODISCARD constexpr std::uint64_t thin_metadata_low_water(std::uint64_t total_blocks) noexcept {
    const std::uint64_t quarter = total_blocks / 4;
    return quarter < 1024 ? quarter : 1024;
}

/// __set_metadata_reserve: the blocks held back; the pool runs out of metadata when only these are free.
PROVPOL_NODISCARD constexpr std::uint64_t thin_metadata_reserve(std::uint64_t total_blocks) noexcept {
    const std::uint64_t tenth = total_blocks / 10;
    return tenth < 4096 ? tenth : 4096;
}

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_THIN_METADATA_HPP
