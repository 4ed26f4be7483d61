// provpol/log_size/ext4.hpp - mke2fs's parts of a log-size policy: its geometry (e2fsprogs_layout) and its journal step
// (e2fsprogs_journal_step: the step table, fast_commit, -J size and e2fsck's re-created journal), facts from
// e2fsprogs 1.47 (lib/ext2fs/mkjournal.c ext2fs_default_journal_size and ext2fs_get_journal_params, misc/mke2fs.c,
// e2fsck/unix.c).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_LOG_SIZE_EXT4_HPP
#define PROVPOL_LOG_SIZE_EXT4_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "geometry.hpp"
#include "result.hpp"

#include <cstdint>

namespace provpol {

/// mke2fs's geometry (e2fsprogs 1.47 with Debian's mke2fs.conf): 1 KiB blocks below 512 MiB (the "floppy" and
/// "small" size types), 4 KiB from there, unless given; the block count is the device size in blocks. Up to
/// 16 KiB blocks that is exact for the journal: mke2fs may drop a last partial block group, which never crosses
/// a journal-table step (every step is a multiple of the group size). With 32 and 64 KiB blocks mke2fs shrinks
/// the groups to hold their inodes and can end a little under a step (16 GiB of 64 KiB blocks: 262112 blocks,
/// a 4096-block journal where this layout says 8192); the parity test counts those rows.
struct e2fsprogs_layout {
    PROVPOL_LOG_SIZE_INLINE constexpr void lay_out(const fs_geometry& geo, log_context& c,
                                                   log_state& s) const noexcept {
        const fs_geometry_options& o = geo.options();
        const std::uint32_t bs =
            o.block_size != 0 ? o.block_size : (o.device_size.count() < (std::uint64_t{512} << 20) ? 1024U : 4096U);
        c.block_size = bs;
        c.block_log = detail::floor_log2(bs);
        c.data_blocks = o.device_size.count() >> c.block_log;
        c.allow_unsupported = o.allow_unsupported;
        c.fast_commit = o.fast_commit;
        c.journal_size_mib = o.journal_size_mib;
        c.e2fsck_recreate = o.e2fsck_recreate;
        c.old_journal_bytes = o.old_journal_bytes;
        if (PROVPOL_UNLIKELY(bs < 1024)) s.fail(log_reason::unsupported_option);  // mke2fs -b 512: no such size
        // The smallest filesystem mke2fs 1.47.0 -t ext4 makes ("Not enough space to build proposed filesystem";
        // "Device size reported to be zero" for an empty device): 60 blocks of 1 KiB, 56 of 2 to 8 KiB, 55 of
        // 16 to 64 KiB (tests/data/mke2fs_1.47_minimum.csv, measured with mke2fs -n).
        const std::uint64_t least = bs == 1024 ? 60 : (bs <= 8192 ? 56 : 55);
        if (PROVPOL_UNLIKELY(c.data_blocks < least)) s.fail(log_reason::data_too_small);
    }
};

/// e2fsprogs 1.47's ext2fs_default_journal_size on the block count n: none under 2048 blocks, then 1024, 4096,
/// 8192, 16384, 32768, 65536, 131072 and 262144 blocks at 32768, 256K, 512K, 4M, 8M, 16M and 32M blocks;
/// fast_commit adds journal / 64 (EXT2_JOURNAL_TO_FC_BLKS_RATIO).
///
/// mke2fs -J size=N (misc/util.c figure_journal_size): nothing under 2048 blocks ("Filesystem too small for a
/// journal", size given or not); N = 0 is the table; else N x 1024 / (block size / 1024) blocks, computed in a C
/// int (so N from 2^21 MiB on wraps, as the real tool does: 4194305 MiB of 4 KiB blocks is 256 blocks), plus the
/// table's fast-commit area; refused outside [1024, 10240000] blocks, and above half the free blocks. provpol
/// has no free-block count: it refuses above half the blocks, which is certain, and cannot see the band between
/// half the free blocks and half the blocks (the overhead: inode tables, bitmaps, group descriptors).
///
/// e2fsck re-creating a lost journal (e2fsck/unix.c, after e2fsck_run): it reads the old journal's size in MiB
/// from the superblock's backup ((s_jnl_blocks[15] << 12) | (s_jnl_blocks[16] >> 20), none with fast_commit or
/// without a backup of the blocks); from 1024 it makes that many *blocks* with no fast-commit area, else the
/// table (ext2fs_get_journal_params).
struct e2fsprogs_journal_step {
    PROVPOL_LOG_SIZE_INLINE constexpr void apply(const log_context& c, log_state& s) const noexcept {
        const std::uint64_t n = c.data_blocks;
        std::uint64_t j = 262144;
        if (n < 2048)
            j = 0;
        else if (n < 32768)
            j = 1024;
        else if (n < std::uint64_t{256} * 1024)
            j = 4096;
        else if (n < std::uint64_t{512} * 1024)
            j = 8192;
        else if (n < std::uint64_t{4096} * 1024)
            j = 16384;
        else if (n < std::uint64_t{8192} * 1024)
            j = 32768;
        else if (n < std::uint64_t{16384} * 1024)
            j = 65536;
        else if (n < std::uint64_t{32768} * 1024)
            j = 131072;
        s.blocks = j;
        s.decided_by = log_step::journal_table;
        s.fast_commit_blocks = c.fast_commit ? j / 64 : 0;
        if (j == 0) {
            s.reason = log_reason::no_journal;
            return;
        }
        if (c.e2fsck_recreate) {
            // int journal_size = (i_size_high << 12) | (i_size >> 20): the size in MiB, bytes under 2^51 here.
            const std::int64_t old_mib = c.old_journal_bytes >= 0 && !c.fast_commit ? c.old_journal_bytes >> 20 : -1;
            if (old_mib >= 1024) {
                s.blocks = static_cast<std::uint64_t>(old_mib);
                s.fast_commit_blocks = 0;
                s.decided_by = log_step::old_journal;
            }
            return;
        }
        if (c.journal_size_mib <= 0) return;
        // jsize_to_blks: (size * 1024) / (blocksize / 1024) in int arithmetic, which wraps on x86-64.
        const auto wrap32 = [](std::int64_t v) {
            const std::uint32_t u = static_cast<std::uint32_t>(static_cast<std::uint64_t>(v) & 0xffffffffU);
            return u < 0x80000000U ? static_cast<std::int64_t>(u)
                                   : static_cast<std::int64_t>(u) - (std::int64_t{1} << 32);
        };
        const std::int64_t blocks = wrap32(c.journal_size_mib * 1024) / static_cast<std::int64_t>(c.block_size / 1024);
        const std::int64_t total = wrap32(blocks + static_cast<std::int64_t>(s.fast_commit_blocks));
        s.decided_by = log_step::journal_size;
        s.blocks = blocks > 0 ? static_cast<std::uint64_t>(blocks) : 0;
        if (total < 1024 || total > 10240000)
            s.fail(log_reason::journal_size_out_of_range);
        else if (static_cast<std::uint64_t>(total) > c.data_blocks / 2)
            s.fail(log_reason::journal_too_big);
    }
};

}  // namespace provpol

#endif  // PROVPOL_LOG_SIZE_EXT4_HPP
