// provpol/log_size/policy.hpp - how large a journal mkfs will create, and how large you want it: filesystem log-size
// policies composed of steps (ratio, concurrency, floor, caps, alignment, support rules) over a layout (the
// tool's own geometry rules), with presets that reproduce mkfs.xfs 6.1, 6.13, 7.2 and 5.14 and mke2fs 1.47
// exactly (and 5.15's rules; every release from 5.10 to 7.2 maps to one of them, xfsprogs_releases), and the two 2022
// proposals from the xfs list (1:256, and a 32 MiB floor).
//
//   using namespace provpol::literals;
//   const auto g = provpol::fs_geometry::make({220_GiB}).value();   // device size; everything else default
//   const auto d = provpol::xfsprogs_6_1().decide(g);               // d.log_blocks == 28160 (110 MiB)
//
// A policy is log_size_policy<Layout, Steps...>. The layout turns an fs_geometry (what you would pass to
// mkfs; log_size/geometry.hpp) into a log_context: block size, data blocks after the AG layout, AG count and
// size, the minimum log and the largest log an AG can hold, the log stripe unit, max_tx_bytes and the log
// concurrency. The steps then run in order over a log_state (the log size so far, which step decided it,
// whether mkfs would accept it and why not; log_size/result.hpp).
//
// Contract of a layout L (checked by static_assert in log_size_policy):
//   constexpr void lay_out(const fs_geometry&, log_context&, log_state&) const noexcept;
//   trivially copyable (a policy is a small value).
// Contract of a step S:
//   constexpr void apply(const log_context&, log_state&) const noexcept;
//   trivially copyable.
// A step that changes the size records itself in log_state::decided_by (use log_state::set); a step that finds
// mkfs would refuse sets the reason with log_state::refuse (soft: --unsupported overrides it) or
// log_state::fail (hard: mkfs exits with an error whatever the flags).
//
// The rules reproduced (facts from xfsprogs' mkfs/xfs_mkfs.c, libxfs/topology.c, libxfs/xfs_alloc.c and
// libxfs/xfs_trans_resv.c, and e2fsprogs' lib/ext2fs/mkjournal.c and misc/mke2fs.c; each checked against the
// real tools by tests/data/generate_mkfs_parity.sh and tests/log_size_test.cpp):
//  - mkfs.xfs 6.1 (the same from 5.19 to 6.7): L = D / 2048 raised to 64 MiB; below 300 MiB of data the
//    minimum log; then at least the minimum, at most what an AG holds (AG size - headers - 1), at most
//    1048576 blocks and 2 GiB - 10 MiB; rounded to the log stripe unit; refused (unless --unsupported) when
//    the data is under 300 MiB, the log under 64 MiB, or there is a single AG.
//  - mkfs.xfs 6.13 (Debian 13) and 7.2: the same, with the concurrency-sized log (6.8) between the ratio and the
//    floor: max(L, min(max_tx_bytes x 3 x concurrency / 2, 2 GiB - 10 MiB)) from 1 GiB of data, concurrency from
//    -l concurrency or the CPU count on a non-rotational device (which also sizes the AG count); their default
//    features (6.13: rmapbt, reflink, nrext64; 7.2: also parent pointers) change the AG overhead and the
//    reservations; 7.2 refuses an AG too small for a 64 MiB log with a reason of its own.
//  - mkfs.xfs 5.14: under 1 GiB the minimum log; 1 to 16 GiB min(10 MiB, 5 x minimum) raised to the minimum
//    and 10 MiB; from 16 GiB D / 2048; the same limits and alignment; no refusals.
//  - mke2fs 1.47: a step table on the block count, fast_commit adds 1/64; 1 KiB blocks below 512 MiB.
//
// The minimum log and max_tx_bytes are computed from the transaction reservations (log_size/xfs_reservations.hpp) for
// each version's features, once per geometry (fs_geometry::make) as a step function of the AG size; a caller
// may still override the minimum with fs_geometry_options::min_log_blocks.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_LOG_SIZE_POLICY_HPP
#define PROVPOL_LOG_SIZE_POLICY_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../registry.hpp"
#include "../result.hpp"
#include "../text.hpp"
#include "geometry.hpp"
#include "result.hpp"
#include "xfs.hpp"
#include "xfs_reservations.hpp"

#include <cstdint>
#include <type_traits>

namespace provpol {

// ------------------------------------------------------------------------------------------------------------
// Layouts

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
        c.block_log = detail::log2_exact(bs);
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

// ------------------------------------------------------------------------------------------------------------
// Steps

/// L = D x numerator / denominator, rounded down (xfsprogs: 1/2048; the 2022 proposal: 1/256).
class ratio_step {
public:
    /// numerator in [1, 2^32), denominator in [1, 2^32).
    PROVPOL_NODISCARD static constexpr result<ratio_step> make(std::uint32_t numerator,
                                                               std::uint32_t denominator) noexcept {
        if (numerator == 0)
            return unexpected(error::out_of_range("ratio numerator", error_value::of(numerator), error_value::of(1),
                                                  error_value::of(0xffffffffULL)));
        if (denominator == 0)
            return unexpected(error::out_of_range("ratio denominator", error_value::of(denominator), error_value::of(1),
                                                  error_value::of(0xffffffffULL)));
        return ratio_step(numerator, denominator);
    }
    PROVPOL_LOG_SIZE_INLINE constexpr void apply(const log_context& c, log_state& s) const noexcept {
        s.set(num_ == 1 ? c.data_blocks / den_ : ratio_of(c.data_blocks, num_, den_, rounding::down), log_step::ratio);
    }
    PROVPOL_NODISCARD constexpr std::uint32_t numerator() const noexcept { return num_; }
    PROVPOL_NODISCARD constexpr std::uint32_t denominator() const noexcept { return den_; }

private:
    constexpr ratio_step(std::uint32_t n, std::uint32_t d) noexcept : num_(n), den_(d) {}
    std::uint32_t num_;
    std::uint32_t den_;
};

/// L = max(L, floor), the floor rounded up to whole blocks (xfsprogs >= 5.15: 64 MiB; the 2022 proposal: 32 MiB).
class floor_step {
public:
    /// floor in [0, 1 TiB].
    PROVPOL_NODISCARD static constexpr result<floor_step> make(bytes floor) noexcept {
        if (floor.count() > (std::uint64_t{1} << 40))
            return unexpected(error::out_of_range("log floor", error_value::of_size(floor.count()),
                                                  error_value::of_size(0),
                                                  error_value::of_size(std::uint64_t{1} << 40)));
        return floor_step(floor);
    }
    PROVPOL_LOG_SIZE_INLINE constexpr void apply(const log_context& c, log_state& s) const noexcept {
        const std::uint64_t f = (floor_.count() + c.block_size - 1) >> c.block_log;  // floor <= 1 TiB: no overflow
        if (s.blocks < f) s.set(f, log_step::floor);
    }
    PROVPOL_NODISCARD constexpr bytes floor() const noexcept { return floor_; }

private:
    constexpr explicit floor_step(bytes f) noexcept : floor_(f) {}
    bytes floor_;
};

/// L = min(L, cap), the cap rounded down to whole blocks: a caller's own limit.
class cap_step {
public:
    /// cap at least 1 MiB.
    PROVPOL_NODISCARD static constexpr result<cap_step> make(bytes cap) noexcept {
        if (cap.count() < (std::uint64_t{1} << 20))
            return unexpected(error::out_of_range("log cap", error_value::of_size(cap.count()),
                                                  error_value::of_size(std::uint64_t{1} << 20), error_value{}));
        return cap_step(cap);
    }
    PROVPOL_LOG_SIZE_INLINE constexpr void apply(const log_context& c, log_state& s) const noexcept {
        const std::uint64_t m = cap_.count() >> c.block_log;
        if (s.blocks > m) s.set(m, log_step::cap);
    }
    PROVPOL_NODISCARD constexpr bytes cap() const noexcept { return cap_; }

private:
    constexpr explicit cap_step(bytes c) noexcept : cap_(c) {}
    bytes cap_;
};

/// Below `below` of data, the minimum log instead (xfsprogs >= 5.19: 300 MiB, "tiny filesystems").
class tiny_filesystem_step {
public:
    /// below in [0, 1 TiB].
    PROVPOL_NODISCARD static constexpr result<tiny_filesystem_step> make(bytes below) noexcept {
        if (below.count() > (std::uint64_t{1} << 40))
            return unexpected(error::out_of_range("tiny filesystem size", error_value::of_size(below.count()),
                                                  error_value::of_size(0),
                                                  error_value::of_size(std::uint64_t{1} << 40)));
        return tiny_filesystem_step(below);
    }
    PROVPOL_LOG_SIZE_INLINE constexpr void apply(const log_context& c, log_state& s) const noexcept {
        if (c.data_blocks < (below_.count() >> c.block_log)) {
            s.blocks = c.min_log_blocks;
            s.decided_by = log_step::tiny_minimum;
        }
    }
    PROVPOL_NODISCARD constexpr bytes below() const noexcept { return below_; }

private:
    constexpr explicit tiny_filesystem_step(bytes b) noexcept : below_(b) {}
    bytes below_;
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

// ------------------------------------------------------------------------------------------------------------
// The policy

namespace detail {

template <class... Steps>
struct step_list;
template <>
struct step_list<> {
    constexpr void apply(const log_context&, log_state&) const noexcept {}
};
template <class S, class... Rest>
struct step_list<S, Rest...> {
    constexpr explicit step_list(const S& s, const Rest&... rest) noexcept : head(s), tail(rest...) {}
    PROVPOL_LOG_SIZE_INLINE constexpr void apply(const log_context& c, log_state& st) const noexcept {
        head.apply(c, st);
        tail.apply(c, st);
    }
    S head;
    step_list<Rest...> tail;
};

}  // namespace detail

/// A log-size policy: a layout, then steps in order. A small value; decide() is a pure function.
template <class Layout, class... Steps>
class log_size_policy {
    static_assert(detail::has_lay_out<Layout>::value,
                  "provpol::log_size_policy: Layout must provide void lay_out(const fs_geometry&, log_context&, "
                  "log_state&) const");
    static_assert(detail::lay_out_is_noexcept<Layout>::value,
                  "provpol::log_size_policy: Layout::lay_out must be noexcept");
    static_assert(detail::is_trivially_copyable_v<Layout>,
                  "provpol::log_size_policy: Layout must be trivially copyable");
    static_assert((detail::has_apply<Steps>::value && ...),
                  "provpol::log_size_policy: every Step must provide void apply(const log_context&, log_state&) const");
    static_assert((detail::apply_is_noexcept<Steps>::value && ...),
                  "provpol::log_size_policy: every Step::apply must be noexcept");
    static_assert((detail::is_trivially_copyable_v<Steps> && ...),
                  "provpol::log_size_policy: every Step must be trivially copyable");

public:
    /// The policy from a layout and steps already made (each step's make() validated it).
    constexpr explicit log_size_policy(Layout layout, Steps... steps) noexcept : layout_(layout), steps_(steps...) {}

    /// The log mkfs would make (or the policy would choose) for this geometry.
    PROVPOL_NODISCARD PROVPOL_LOG_SIZE_INLINE constexpr log_size_decision decide(const fs_geometry& g) const noexcept {
        log_context c{};
        log_state s{};
        layout_.lay_out(g, c, s);
        if (!is_hard(s.reason)) steps_.apply(c, s);
        log_size_decision d{};
        d.block_size = c.block_size;
        d.data_blocks = c.data_blocks;
        d.agcount = c.agcount;
        d.agsize_blocks = c.agsize_blocks;
        d.log_blocks = s.blocks;
        d.log_sunit_blocks = c.log_sunit_blocks;
        d.fast_commit_blocks = s.fast_commit_blocks;
        d.min_log_blocks = c.raw_min_log_blocks;
        d.min_log_computed = c.min_log_computed;
        d.max_tx_bytes = c.max_tx_bytes;
        d.log_concurrency = c.log_concurrency;
        d.supported = s.supported;
        d.reason = s.reason;
        d.decided_by = s.decided_by;
        return d;
    }

    /// The layout.
    PROVPOL_NODISCARD constexpr const Layout& layout() const noexcept { return layout_; }

private:
    Layout layout_;
    detail::step_list<Steps...> steps_;
};

// ------------------------------------------------------------------------------------------------------------
// Presets

/// xfsprogs' limits and alignment, the tail every XFS preset shares.
using xfsprogs_caps = xfsprogs_limits_step;

/// The policy type of the XFS presets: ratio, the concurrency-sized log (a no-op before 6.8: the 6.1 layout
/// leaves no concurrency), floor, tiny filesystems, the xfsprogs caps, stripe alignment, and the support rules.
using xfs_modern_policy =
    log_size_policy<xfsprogs_layout, ratio_step, xfsprogs_concurrency_step, floor_step, tiny_filesystem_step,
                    xfsprogs_caps, xfsprogs_stripe_align_step, xfsprogs_support_step>;

namespace detail {
using namespace provpol::literals;
constexpr xfs_modern_policy xfs_modern(std::uint32_t den, bytes floor, bytes min_log,
                                       xfsprogs_version v = xfsprogs_version::v6_1) noexcept {
    return xfs_modern_policy(xfsprogs_layout{v}, *ratio_step::make(1, den), xfsprogs_concurrency_step{},
                             *floor_step::make(floor), *tiny_filesystem_step::make(300_MiB), xfsprogs_caps{},
                             xfsprogs_stripe_align_step{}, *xfsprogs_support_step::make(300_MiB, min_log));
}
}  // namespace detail

/// mkfs.xfs 6.1 (Debian bookworm; the same rule from 5.19 to 6.7): 1:2048 of the data, at least 64 MiB
/// (XFS_MIN_REALISTIC_LOG_BLOCKS, from 5.15), the minimum log below 300 MiB of data, the xfsprogs caps, stripe
/// alignment; refuses under 300 MiB of data, a log under 64 MiB, a single AG (validate_supported, 5.19).
PROVPOL_NODISCARD constexpr xfs_modern_policy xfsprogs_6_1() noexcept {
    using namespace provpol::literals;
    return detail::xfs_modern(2048, 64_MiB, 64_MiB);
}

/// mkfs.xfs 6.13 (Debian 13): 6.1's rule with the concurrency-sized log of 6.8 ("mkfs: allow sizing internal
/// logs for concurrency") and 6.13's defaults (rmapbt, reflink, nrext64 on); the minimum log and max_tx_bytes from
/// its transaction reservations.
PROVPOL_NODISCARD constexpr xfs_modern_policy xfsprogs_6_13() noexcept {
    using namespace provpol::literals;
    return detail::xfs_modern(2048, 64_MiB, 64_MiB, xfsprogs_version::v6_13);
}

/// mkfs.xfs 7.2 (Debian unstable): 6.13's rule with parent pointers on by default (so the corrected minimum-log
/// reservations of xfs_log_rlimit.c, xfs_want_minlogsize_fixes) and its own refusal of AGs under a 64 MiB log.
PROVPOL_NODISCARD constexpr xfs_modern_policy xfsprogs_7_2() noexcept {
    using namespace provpol::literals;
    return detail::xfs_modern(2048, 64_MiB, 64_MiB, xfsprogs_version::v7_2);
}

/// The 2022 proposal to raise the ratio to 1:256 (Darrick Wong, "mkfs: increase default log size for new (aka
/// bigtime) filesystems"), with xfsprogs 6.1's floor, caps and support rules.
PROVPOL_NODISCARD constexpr xfs_modern_policy xfs_ratio_256() noexcept {
    using namespace provpol::literals;
    return detail::xfs_modern(256, 64_MiB, 64_MiB);
}

/// The 2022 counter-proposal (Dave Chinner): keep 1:2048 with a 32 MiB minimum; xfsprogs 6.1's caps and
/// support rules, except that a log is refused only under its own 32 MiB floor.
PROVPOL_NODISCARD constexpr xfs_modern_policy xfs_floor_32m() noexcept {
    using namespace provpol::literals;
    return detail::xfs_modern(2048, 32_MiB, 32_MiB);
}

/// The policy type of xfsprogs 5.15 to 5.18: 6.1's size rule without its support rules.
using xfs_floor_policy = log_size_policy<xfsprogs_layout, ratio_step, xfsprogs_concurrency_step, floor_step,
                                         tiny_filesystem_step, xfsprogs_caps, xfsprogs_stripe_align_step>;

/// mkfs.xfs 5.15 to 5.18: 1:2048 with the 64 MiB floor and the minimum log below 300 MiB of data (xfsprogs
/// commit cdfa467e, "mkfs: increase the minimum log size to 64MB when possible", v5.15.0), but no refusals: those
/// came with validate_supported (6e0ed3d1, "mkfs: stop allowing tiny filesystems", v5.19.0). The 5.18 changes to
/// the log's stripe rounding (8d1bff2b, 0da883dd) are taken to be 6.1's throughout.
PROVPOL_NODISCARD constexpr xfs_floor_policy xfsprogs_5_15() noexcept {
    using namespace provpol::literals;
    return xfs_floor_policy(xfsprogs_layout{}, *ratio_step::make(1, 2048), xfsprogs_concurrency_step{},
                            *floor_step::make(64_MiB), *tiny_filesystem_step::make(300_MiB), xfsprogs_caps{},
                            xfsprogs_stripe_align_step{});
}

/// The policy type of xfsprogs 5.14: the legacy size brackets, the xfsprogs caps, stripe alignment, no refusals.
using xfs_legacy_policy =
    log_size_policy<xfsprogs_layout, xfsprogs_5_14_size_step, xfsprogs_caps, xfsprogs_stripe_align_step>;

/// mkfs.xfs 5.14 and earlier (RHEL 9's 5.14; from xfsprogs' own 5.14 source): under 1 GiB the minimum log,
/// 1 to 16 GiB min(10 MiB, 5 x minimum) raised to the minimum and 10 MiB, from 16 GiB 1:2048; no 64 MiB floor and
/// no refusals. Its AG geometry, limits and alignment are taken to be 6.1's (unchanged in those functions).
PROVPOL_NODISCARD constexpr xfs_legacy_policy xfsprogs_5_14() noexcept {
    return xfs_legacy_policy(xfsprogs_layout{}, xfsprogs_5_14_size_step{}, xfsprogs_caps{},
                             xfsprogs_stripe_align_step{});
}

/// The policy type of e2fsprogs: mke2fs's block size and count, then the journal table.
using ext4_journal_policy = log_size_policy<e2fsprogs_layout, e2fsprogs_journal_step>;

/// mke2fs 1.47 (-t ext4, Debian's mke2fs.conf): the journal table on the block count, fast_commit adds 1/64.
/// Note: 1 KiB blocks below 512 MiB make the journal's block count fall at 512 MiB (8192 1 KiB blocks ->
/// 4096 4 KiB blocks); its byte size still rises (8 MiB -> 16 MiB).
PROVPOL_NODISCARD constexpr ext4_journal_policy e2fsprogs_1_47() noexcept {
    return ext4_journal_policy(e2fsprogs_layout{}, e2fsprogs_journal_step{});
}

// ------------------------------------------------------------------------------------------------------------
// Presets by name (for command lines and configuration files)

/// The named presets.
enum class log_preset : unsigned char {
    xfsprogs_6_1,
    xfsprogs_5_14,
    xfs_ratio_256,
    xfs_floor_32m,
    e2fsprogs_1_47,
    xfsprogs_6_13,
    xfsprogs_7_2,
    xfsprogs_5_15
};

/// The log-size family's registry, in the order the CLI lists them (newest first).
inline constexpr preset_info<log_preset> log_presets[] = {
    {log_preset::xfsprogs_7_2, "xfsprogs-7.2", "mkfs.xfs 7.2: 6.13 with parent pointers on by default",
     "xfsprogs 7.2.0 (Debian unstable), mkfs -N parity"},
    {log_preset::xfsprogs_6_13, "xfsprogs-6.13",
     "mkfs.xfs 6.13: the 6.8 concurrency-sized log; rmapbt, reflink, nrext64 on by default",
     "xfsprogs 6.13.0 (Debian 13): mkfs/xfs_mkfs.c calculate_log_size, libxfs/xfs_trans_resv.c"},
    {log_preset::xfsprogs_6_1, "xfsprogs-6.1", "mkfs.xfs 6.1: 1:2048 of the filesystem, a 64 MiB floor",
     "xfsprogs 6.1.0 (Debian 12): mkfs/xfs_mkfs.c calculate_log_size"},
    {log_preset::xfsprogs_5_15, "xfsprogs-5.15", "mkfs.xfs 5.15 to 5.18: 6.1's size rule without its refusals",
     "xfsprogs v5.15.0 (cdfa467e, the 64 MiB floor) to v5.18.0; validate_supported came in v5.19.0 (6e0ed3d1)"},
    {log_preset::xfsprogs_5_14, "xfsprogs-5.14", "mkfs.xfs 5.14: 1:2048, the minimum log and no 64 MiB floor",
     "xfsprogs 5.14, before the 5.15 floor"},
    {log_preset::xfs_ratio_256, "xfs-ratio-256", "the 1:256 ratio proposed for bigtime filesystems",
     "linux-xfs, [PATCH 19/17] mkfs: increase default log size for new (aka bigtime) filesystems"},
    {log_preset::xfs_floor_32m, "xfs-floor-32m", "the 32 MB floor proposed in the same thread",
     "linux-xfs, Re: [PATCH 19/17] (Dave Chinner)"},
    {log_preset::e2fsprogs_1_47, "e2fsprogs-1.47", "mke2fs 1.47: ext4's journal size step table",
     "e2fsprogs 1.47 lib/ext2fs/mkjournal.c ext2fs_default_journal_size"},
};

/// Every preset, in the order the CLI lists them.
inline constexpr log_preset all_log_presets[] = {
    log_preset::xfsprogs_7_2,  log_preset::xfsprogs_6_13, log_preset::xfsprogs_6_1,  log_preset::xfsprogs_5_14,
    log_preset::xfs_ratio_256, log_preset::xfs_floor_32m, log_preset::e2fsprogs_1_47};
/// The presets' names, and the same after "one of " for errors.
inline constexpr preset_list log_preset_names = preset_names(log_presets);
inline constexpr preset_list log_preset_choices = detail::preset_choices(log_preset_names);

/// The preset's name as the CLI spells it ("xfsprogs-6.1").
PROVPOL_NODISCARD constexpr const char* to_text(log_preset p) noexcept { return preset_of(log_presets, p).name; }

/// Reads a preset name ("xfsprogs-6.1", ...).
PROVPOL_NODISCARD constexpr result<log_preset> parse_log_preset(text_view text,
                                                                const char* setting = "preset") noexcept {
    return parse_preset(log_presets, log_preset_choices, text, setting);
}

/// One range of xfsprogs releases and the rule set in force in it: `xfsprogs-X.Y` for any X.Y in
/// [first, last] (major x 100 + minor) decides as `rules`, with that release's feature defaults where they differ
/// from the preset's (`rmapbt_nrext64`: rmapbt and nrext64 on). The evidence is the release that changed the rule
/// (xfsprogs doc/CHANGES, and the commit where the history is public).
struct xfsprogs_release_rules {
    unsigned first;
    unsigned last;
    log_preset rules;
    bool rmapbt_nrext64;
    const char* source;
};

/// The xfsprogs releases provpol knows, oldest first: 5.10 to 7.2.
inline constexpr xfsprogs_release_rules xfsprogs_releases[] = {
    {510, 514, log_preset::xfsprogs_5_14, false,
     "the size brackets before v5.15.0; rmapbt and nrext64 off, as mkfs/lts_5.10.conf has them"},
    {515, 518, log_preset::xfsprogs_5_15, false,
     "v5.15.0: mkfs: increase the minimum log size to 64MB when possible (cdfa467e)"},
    {519, 604, log_preset::xfsprogs_6_1, false, "v5.19.0: mkfs: stop allowing tiny filesystems (6e0ed3d1)"},
    {605, 607, log_preset::xfsprogs_6_1, true,
     "v6.5.0: mkfs: enable reverse mapping by default (bcd5b1b7), enable large extent counts by default "
     "(e5b18d7d)"},
    {608, 617, log_preset::xfsprogs_6_13, false, "v6.8.0: mkfs: allow sizing internal logs for concurrency"},
    {618, 702, log_preset::xfsprogs_7_2, false,
     "v6.18.0: mkfs: enable new features by default (parent pointers: mkfs/lts_6.18.conf's parent=1)"},
};

/// The range that holds release major.minor, or nullptr outside 5.10 to 7.2.
PROVPOL_NODISCARD constexpr const xfsprogs_release_rules* find_xfsprogs_release(unsigned major,
                                                                                unsigned minor) noexcept {
    if (minor > 99) return nullptr;
    const unsigned v = major * 100 + minor;
    for (const xfsprogs_release_rules& r : xfsprogs_releases)
        if (v >= r.first && v <= r.last) return &r;
    return nullptr;
}

/// The decision of a preset chosen at run time.
PROVPOL_NODISCARD constexpr log_size_decision decide_log_size(log_preset p, const fs_geometry& g) noexcept {
    switch (p) {
        case log_preset::xfsprogs_7_2:
            return xfsprogs_7_2().decide(g);
        case log_preset::xfsprogs_6_13:
            return xfsprogs_6_13().decide(g);
        case log_preset::xfsprogs_6_1:
            return xfsprogs_6_1().decide(g);
        case log_preset::xfsprogs_5_15:
            return xfsprogs_5_15().decide(g);
        case log_preset::xfsprogs_5_14:
            return xfsprogs_5_14().decide(g);
        case log_preset::xfs_ratio_256:
            return xfs_ratio_256().decide(g);
        case log_preset::xfs_floor_32m:
            return xfs_floor_32m().decide(g);
        case log_preset::e2fsprogs_1_47:
            return e2fsprogs_1_47().decide(g);
    }
    return log_size_decision{};
}

}  // namespace provpol

#endif  // PROVPOL_LOG_SIZE_POLICY_HPP
