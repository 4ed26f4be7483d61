// provpol/log_size.hpp - how large a journal mkfs will create, and how large you want it: filesystem log-size
// policies composed of steps (ratio, floor, caps, alignment, support rules) over a layout (the tool's own
// geometry rules), with presets that reproduce mkfs.xfs 6.1 and 5.14 and mke2fs 1.47 exactly, and the two
// 2022 proposals from the xfs list (1:256, and a 32 MiB floor).
//
//   using namespace provpol::literals;
//   const auto g = provpol::fs_geometry::make({220_GiB}).value();   // device size; everything else default
//   const auto d = provpol::xfsprogs_6_1().decide(g);               // d.log_blocks == 28160 (110 MiB)
//
// A policy is log_size_policy<Layout, Steps...>. The layout turns an fs_geometry (what you would pass to
// mkfs) into a log_context: block size, data blocks after the AG layout, AG count and size, the minimum log
// and the largest log an AG can hold, the log stripe unit. The steps then run in order over a log_state
// (the log size so far, which step decided it, whether mkfs would accept it and why not).
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
// The rules reproduced (facts from xfsprogs' mkfs/xfs_mkfs.c, libxfs/topology.c and libxfs/xfs_alloc.c, and
// e2fsprogs' lib/ext2fs/mkjournal.c and misc/mke2fs.c; each checked against the real tools by
// tests/data/generate_mkfs_parity.sh and tests/log_size_test.cpp):
//  - mkfs.xfs 6.1 (the same from 5.19 to 6.7): L = D / 2048 raised to 64 MiB; below 300 MiB of data the
//    minimum log; then at least the minimum, at most what an AG holds (AG size - headers - 1), at most
//    1048576 blocks and 2 GiB - 10 MiB; rounded to the log stripe unit; refused (unless --unsupported) when
//    the data is under 300 MiB, the log under 64 MiB, or there is a single AG.
//  - mkfs.xfs 5.14: under 1 GiB the minimum log; 1 to 16 GiB min(10 MiB, 5 x minimum) raised to the minimum
//    and 10 MiB; from 16 GiB D / 2048; the same limits and alignment; no refusals.
//  - mke2fs 1.47: a step table on the block count, fast_commit adds 1/64; 1 KiB blocks below 512 MiB.
//
// The minimum log (mkfs.xfs's transaction-reservation minimum) is an input: pass it as
// fs_geometry_options::min_log_blocks when you know it (mkfs.xfs -N -l size=<tiny> prints it). Otherwise
// provpol estimates it from a table measured with mkfs.xfs 6.1 (detail/xfs_min_log_table.hpp): exact for
// 512- and 4096-byte sectors without -l su, for every block size from 1 to 64 KiB, feature set and AG size;
// with a log stripe unit of its own the table value plus 64 stripe units is used, an upper bound (the parity
// test checks both claims on every row; other sector sizes use the nearest table, unchecked). The minimum decides the
// log only below 300 MiB (xfsprogs 6.1), below 16 GiB (5.14), or when an AG is too small for it.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_LOG_SIZE_HPP
#define PROVPOL_LOG_SIZE_HPP

#include "bytes.hpp"
#include "config.hpp"
#include "detail/text_view.hpp"
#include "detail/xfs_min_log_table.hpp"
#include "result.hpp"

#include <cstdint>
#include <type_traits>

/// Forces the decision path's small functions inline, so that the log context stays in registers and the
/// fields a policy never reads are never written: the instruction budget for a log-size decision with AG
/// geometry is 250 at g++ -O2. A user may define it (e.g. as `inline`) before including this header.
#ifndef PROVPOL_LOG_SIZE_INLINE
#if defined(__GNUC__) || defined(__clang__)
#define PROVPOL_LOG_SIZE_INLINE __attribute__((always_inline)) inline
#else
#define PROVPOL_LOG_SIZE_INLINE inline
#endif
#endif

namespace provpol {

// ------------------------------------------------------------------------------------------------------------
// Inputs

/// XFS on-disk features that change the log's limits (mkfs.xfs -m). Defaults are mkfs.xfs 6.1's.
struct xfs_features {
    bool crc = true;      ///< v5 superblock; without it finobt, reflink and rmapbt are off
    bool finobt = true;   ///< free inode btree: one more AG root block
    bool reflink = true;  ///< refcount btree: one more AG root block
    bool rmapbt = false;  ///< reverse-mapping btree: one more AG root block
};

/// What a caller would pass to mkfs, before validation. Zero means "the tool's default".
struct fs_geometry_options {
    bytes device_size{};               ///< the device (or file) size, as mkfs sees it
    std::uint32_t block_size = 0;      ///< 0: 4096 for XFS; for ext4 1024 below 512 MiB, else 4096
    std::uint32_t sector_size = 0;     ///< 0: 512
    std::uint64_t agcount = 0;         ///< mkfs.xfs -d agcount (0: default geometry)
    bytes agsize{};                    ///< mkfs.xfs -d agsize (0: default geometry)
    bytes stripe_unit{};               ///< mkfs.xfs -d su (0: no stripe)
    std::uint32_t stripe_width = 0;    ///< mkfs.xfs -d sw, in stripe units (needed with stripe_unit)
    bytes log_stripe_unit{};           ///< mkfs.xfs -l su (0: from the data stripe unit or the sector size)
    xfs_features features{};           ///< mkfs.xfs -m
    std::uint64_t min_log_blocks = 0;  ///< the minimum log mkfs.xfs computes (0: estimate it)
    bool allow_unsupported = false;    ///< mkfs.xfs --unsupported: format what it would otherwise refuse
    bool fast_commit = false;          ///< mke2fs -O fast_commit
};

// ------------------------------------------------------------------------------------------------------------
// XFS internals (xfsprogs 6.1 source facts)

namespace detail {

inline constexpr std::uint64_t xfs_min_log_blocks_floor = 512;  // XFS_MIN_LOG_BLOCKS
inline constexpr std::uint64_t xfs_max_log_blocks = 1048576;    // XFS_MAX_LOG_BLOCKS
inline constexpr std::uint64_t xfs_max_log_bytes =
    (std::uint64_t{2} << 30) - (std::uint64_t{10} << 20);                    // XFS_MAX_LOG_BYTES
inline constexpr std::uint64_t xfs_min_log_bytes = std::uint64_t{10} << 20;  // XFS_MIN_LOG_BYTES
inline constexpr std::uint64_t xfs_max_lsunit_bytes = std::uint64_t{256}
                                                      << 10;  // log v2 stripe unit limit; forced to 32 KiB above

// log2 of a power of two (the block size).
constexpr unsigned log2_exact(std::uint64_t v) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    return static_cast<unsigned>(__builtin_ctzll(v));
#else
    unsigned n = 0;
    while (v > 1) {
        v >>= 1;
        ++n;
    }
    return n;
#endif
}

// ceil(a / b) for b > 0 and a + b < 2^64 (block counts here are under 2^54, divisors under 2^41).
constexpr std::uint64_t div_up(std::uint64_t a, std::uint64_t b) noexcept { return (a + b - 1) / b; }

/// Where the minimum-log steps of a block size, feature set and sector size are in xfs_min_log_steps: the
/// 4096-byte-sector table for sectors of 4096 bytes or more, else the 512-byte one.
constexpr xfs_min_log_class xfs_min_log_class_of(unsigned bl, const xfs_features& f, std::uint32_t sector) noexcept {
    const unsigned feat = f.crc ? (f.finobt ? 4U : 0U) + (f.reflink ? 2U : 0U) + (f.rmapbt ? 1U : 0U) : 8U;
    const unsigned base = ((bl - 10) * 9 + feat) * 2;
    const xfs_min_log_class c = xfs_min_log_classes[base + (sector >= 4096 ? 1U : 0U)];
    return c.count != 0 ? c : xfs_min_log_classes[base];
}

/// The step that holds at this AG size (each class ends with a step that never holds: no bound check).
/// Precondition: agblocks < 2^32 - 1 (an AG has at most 2^30 blocks).
PROVPOL_LOG_SIZE_INLINE constexpr std::uint64_t xfs_min_log_lookup(xfs_min_log_class c,
                                                                   std::uint64_t agblocks) noexcept {
    const xfs_min_log_step* s = xfs_min_log_steps + c.first;
    while (agblocks >= s[1].agblocks_from) ++s;
    return s->min_log_blocks;
}

/// What a log stripe unit of its own adds to the estimate (see xfs_estimate_min_log): none when the stripe unit
/// is the one the sector size implies (none for 512-byte sectors, one block for larger ones), else 64 units.
constexpr std::uint64_t xfs_min_log_stripe_bound(std::uint32_t sector, std::uint64_t lsunit) noexcept {
    return lsunit != (sector > 512 ? 1U : 0U) ? 64 * lsunit : 0;
}

/// provpol's estimate of libxfs_log_calc_minimum_size (raised to 512): the step table mkfs.xfs 6.1 printed for
/// this block size, feature set and sector size (512 bytes, or 4096 for any larger sector) at this AG size.
/// Exact when the log stripe unit is the one the sector implies. Any other log stripe unit adds about
/// 2 (roundoff) x 8 (the largest log count) x 3 (XFS_MIN_LOG_FACTOR) stripe units plus log record headers:
/// 64 units are added, an upper bound on every row of the parity sweep.
constexpr std::uint64_t xfs_estimate_min_log(unsigned bl, const xfs_features& f, std::uint64_t agblocks,
                                             std::uint32_t sector, std::uint64_t lsunit) noexcept {
    const std::uint64_t ag = agblocks < 0xfffffffeU ? agblocks : 0xfffffffeU;  // under the end marker
    return xfs_min_log_lookup(xfs_min_log_class_of(bl, f, sector), ag) + xfs_min_log_stripe_bound(sector, lsunit);
}

/// libxfs/topology.c calc_default_ag_geometry: 4 AGs from 128 MiB to 4 TiB on one disk, 1 TiB AGs above
/// (always from 32 TiB); with a stripe ("multidisk") 2^shift AGs, shift from 5 down to 0 with the size.
PROVPOL_LOG_SIZE_INLINE constexpr void xfs_default_ag_geometry(unsigned bl, std::uint64_t dblocks, bool multidisk,
                                                               std::uint64_t& agsize, std::uint64_t& agcount) noexcept {
    const std::uint64_t ag_max = ((std::uint64_t{1} << 40) - 1) >> bl;  // XFS_AG_MAX_BLOCKS
    const std::uint64_t bytes = dblocks << bl;                          // exact: dblocks came from a byte count
    constexpr std::uint64_t mib = std::uint64_t{1} << 20, gib = std::uint64_t{1} << 30, tib = std::uint64_t{1} << 40;
    std::uint64_t blocks = ag_max;
    if (bytes < 32 * tib && (multidisk || bytes < 4 * tib)) {
        unsigned shift = 2;  // XFS_NOMULTIDISK_AGLOG
        if (multidisk || bytes < 128 * mib) {
            // XFS_MULTIDISK_AGLOG, less one per size class
            shift = 5U - static_cast<unsigned>(bytes <= 512 * gib) - static_cast<unsigned>(bytes <= 8 * gib) -
                    static_cast<unsigned>(bytes < 128 * mib) - static_cast<unsigned>(bytes < 64 * mib) -
                    static_cast<unsigned>(bytes < 32 * mib);
        }
        blocks = dblocks >> shift;
        if ((dblocks & ((std::uint64_t{1} << shift) - 1)) != 0 && blocks < ag_max) ++blocks;
    }
    agsize = blocks;
    agcount = div_up(dblocks, blocks);
}

/// What mkfs.xfs derives from the options alone (not from the device size): computed once, by fs_geometry::make.
struct xfs_derived {
    unsigned block_log = 12;              ///< log2(block size), 4096 by default
    std::uint64_t dsunit = 0;             ///< data stripe unit, blocks
    std::uint64_t dswidth = 0;            ///< data stripe width, blocks
    std::uint64_t ag_reserved = 11;       ///< AG headers (4 sectors), AGFL reserve, btree roots, plus 1 (the clamp)
    std::uint64_t log_start = 6;          ///< first free AG block: after the AGFL, bno/cnt/ino and optional roots
    std::uint64_t ag0_backoff = 32;       ///< kept free when the log is in AG 0: 4 inode chunks or 2 stripe units
    std::uint64_t lsunit = 0;             ///< the log stripe unit mkfs prints
    std::uint64_t align = 0;              ///< what the log is rounded to: lsunit, else dsunit
    std::uint64_t aligned_log_start = 6;  ///< log_start rounded up to align
    std::uint64_t gib_blocks = 262144;    ///< 1 GiB in blocks: from there the minimum is at least 10 MiB
    std::uint64_t min_log_bytes_blocks = 2560;  ///< XFS_MIN_LOG_BYTES (10 MiB) in blocks
    xfs_min_log_class min_log_class{};          ///< the minimum-log steps for this block size, features and sector
    std::uint64_t min_log_stripe_bound = 0;     ///< added to the table for a log stripe unit of its own
};

/// xfs_derived from validated options: calc_stripe_factors, libxfs_alloc_ag_max_usable,
/// libxfs_prealloc_blocks and adjust_ag0_internal_logblocks, as xfsprogs 6.1 computes them.
constexpr xfs_derived xfs_derive(const fs_geometry_options& o) noexcept {
    xfs_derived x;
    const std::uint64_t bs = o.block_size == 0 ? 4096 : o.block_size;
    const unsigned bl = log2_exact(bs);
    const xfs_features& f = o.features;
    const std::uint64_t sect = o.sector_size == 0 ? 512 : o.sector_size;
    x.block_log = bl;
    x.dsunit = o.stripe_unit.count() >> bl;
    x.dswidth = (o.stripe_unit.count() * o.stripe_width) >> bl;
    // AG headers (4 sectors), AGFL reserve (4), bno/cnt/ino roots (3), one root per optional btree; and the
    // one block calculate_log_size keeps free.
    const std::uint64_t roots = (f.finobt ? 1U : 0U) + (f.rmapbt ? 1U : 0U) + (f.reflink ? 1U : 0U);
    x.ag_reserved = div_up(4 * sect, bs) + 4 + 3 + roots + 1;
    // The log starts after the AGFL block, the bno/cnt/ino roots and the optional roots.
    x.log_start = (3 * sect) / bs + 4 + roots;
    // In AG 0, room for the root inode chunk (64 inodes) four times over, or two data stripe units.
    const std::uint64_t ichunk = (64 * (f.crc ? 512U : 256U)) >> bl;
    x.ag0_backoff = 4 * ichunk > 2 * x.dsunit ? 4 * ichunk : 2 * x.dsunit;
    // -l su, else one block with sectors over 512 bytes, else the data stripe unit; over 256 KiB it is forced
    // to 32 KiB (0 blocks with 64 KiB blocks, as xfsprogs does).
    std::uint64_t lsunit = x.dsunit;
    if (o.log_stripe_unit.count() != 0)
        lsunit = o.log_stripe_unit.count() >> bl;
    else if (sect > 512)
        lsunit = 1;
    if (lsunit * bs > xfs_max_lsunit_bytes) lsunit = (32 * 1024) >> bl;
    x.lsunit = lsunit;
    x.align = lsunit != 0 ? lsunit : x.dsunit;
    x.aligned_log_start = x.align != 0 ? div_up(x.log_start, x.align) * x.align : x.log_start;
    x.gib_blocks = (std::uint64_t{1} << 30) >> bl;
    x.min_log_bytes_blocks = xfs_min_log_bytes >> bl;
    x.min_log_class = xfs_min_log_class_of(bl, f, static_cast<std::uint32_t>(sect));
    x.min_log_stripe_bound = xfs_min_log_stripe_bound(static_cast<std::uint32_t>(sect), lsunit);
    return x;
}

}  // namespace detail

/// A validated filesystem geometry: the input every log-size decision takes. Made only by make(), so a
/// decision never sees an impossible block size or a stripe that is not a multiple of it.
class fs_geometry {
public:
    /// An empty device with every option at its default: the same as make({}).
    constexpr fs_geometry() noexcept = default;

    /// Validates the options: block size a power of two in [1024, 65536] (or 0), sector size a power of two in
    /// [512, 32768] and at most the block size, agcount and agsize not both, agsize in [16 MiB, 1 TiB] and a
    /// multiple of the block size, stripe unit and width both or neither, multiples of the sector and block
    /// size, log stripe unit a multiple of the block size.
    PROVPOL_NODISCARD static constexpr result<fs_geometry> make(const fs_geometry_options& o) noexcept {
        const std::uint32_t bs_check = o.block_size == 0 ? 4096 : o.block_size;
        if (o.block_size != 0 && !is_power_of_two(o.block_size))
            return unexpected(error::not_a_power_of_two("block_size", error_value::of(o.block_size)));
        if (o.block_size != 0 && (o.block_size < 1024 || o.block_size > 65536))
            return unexpected(error::out_of_range("block_size", error_value::of(o.block_size), error_value::of(1024),
                                                  error_value::of(65536)));
        const std::uint32_t sect = o.sector_size == 0 ? 512 : o.sector_size;
        if (!is_power_of_two(sect)) return unexpected(error::not_a_power_of_two("sector_size", error_value::of(sect)));
        if (sect < 512 || sect > 32768)
            return unexpected(error::out_of_range("sector_size", error_value::of(sect), error_value::of(512),
                                                  error_value::of(32768)));
        if (sect > bs_check)
            return unexpected(error::conflict("sector_size", error_value::of(sect), "must not exceed", "block_size",
                                              error_value::of(bs_check)));
        if (o.agcount != 0 && o.agsize.count() != 0)
            return unexpected(error::conflict("agcount", error_value::of(o.agcount), "cannot be given with", "agsize",
                                              error_value::of_size(o.agsize.count())));
        if (o.agcount > max_agcount)
            return unexpected(error::out_of_range("agcount", error_value::of(o.agcount), error_value::of(1),
                                                  error_value::of(max_agcount)));
        if (o.agsize.count() != 0) {
            if (o.agsize.count() < (std::uint64_t{1} << 24) || o.agsize.count() > (std::uint64_t{1} << 40))
                return unexpected(error::out_of_range("agsize", error_value::of_size(o.agsize.count()),
                                                      error_value::of_size(std::uint64_t{1} << 24),
                                                      error_value::of_size(std::uint64_t{1} << 40)));
            if (o.agsize.count() % bs_check != 0)
                return unexpected(
                    error::not_a_multiple("agsize", error_value::of_size(o.agsize.count()), error_value::of(bs_check)));
        }
        const bool su = o.stripe_unit.count() != 0;
        if (su != (o.stripe_width != 0))
            return unexpected(su ? error::unsupported("stripe_width", "is needed with stripe_unit")
                                 : error::unsupported("stripe_unit", "is needed with stripe_width"));
        if (su) {
            // mkfs.xfs keeps the stripe in 512-byte units in an int: su * sw must stay under 2^31 * 512 bytes.
            if (o.stripe_unit.count() > (std::uint64_t{1} << 40))
                return unexpected(error::out_of_range("stripe_unit", error_value::of_size(o.stripe_unit.count()),
                                                      error_value::of_size(bs_check),
                                                      error_value::of_size(std::uint64_t{1} << 40)));
            if (o.stripe_unit.count() % bs_check != 0)
                return unexpected(error::not_a_multiple("stripe_unit", error_value::of_size(o.stripe_unit.count()),
                                                        error_value::of(bs_check)));
            if (o.stripe_width > (std::uint64_t{1} << 40) / o.stripe_unit.count())
                return unexpected(
                    error::out_of_range("stripe_width", error_value::of(o.stripe_width), error_value::of(1),
                                        error_value::of((std::uint64_t{1} << 40) / o.stripe_unit.count())));
        }
        if (o.log_stripe_unit.count() != 0) {
            if (o.log_stripe_unit.count() % bs_check != 0)
                return unexpected(error::not_a_multiple(
                    "log_stripe_unit", error_value::of_size(o.log_stripe_unit.count()), error_value::of(bs_check)));
            if (o.log_stripe_unit.count() > (std::uint64_t{1} << 30))
                return unexpected(
                    error::out_of_range("log_stripe_unit", error_value::of_size(o.log_stripe_unit.count()),
                                        error_value::of_size(bs_check), error_value::of_size(std::uint64_t{1} << 30)));
        }
        if (o.min_log_blocks > (std::uint64_t{1} << 32))
            return unexpected(error::out_of_range("min_log_blocks", error_value::of(o.min_log_blocks),
                                                  error_value::of(0), error_value::of(std::uint64_t{1} << 32)));
        fs_geometry g;
        g.o_ = o;
        g.o_.sector_size = sect;
        if (!o.features.crc) {  // mkfs.xfs: a v4 filesystem has none of the v5 btrees
            g.o_.features.finobt = false;
            g.o_.features.reflink = false;
            g.o_.features.rmapbt = false;
        }
        g.x_ = detail::xfs_derive(g.o_);
        return g;
    }

    /// The options as validated (sector size 0 replaced by 512, v5 features off without crc).
    PROVPOL_NODISCARD constexpr const fs_geometry_options& options() const noexcept { return o_; }
    /// The device size.
    PROVPOL_NODISCARD constexpr bytes device_size() const noexcept { return o_.device_size; }
    /// What mkfs.xfs derives from the options (stripe units, AG reservations, the minimum-log table row):
    /// computed once here, so that each decision only does what depends on the device size.
    PROVPOL_NODISCARD constexpr const detail::xfs_derived& xfs() const noexcept { return x_; }

    /// mkfs.xfs's largest AG count (NULLAGNUMBER - 1).
    static constexpr std::uint64_t max_agcount = 0xfffffffeULL;

private:
    fs_geometry_options o_{};
    detail::xfs_derived x_ = detail::xfs_derive(fs_geometry_options{});
};

// ------------------------------------------------------------------------------------------------------------
// Outputs

/// Which step decided the log size.
enum class log_step : unsigned char {
    none,           ///< no step set a size
    ratio,          ///< a fraction of the data blocks
    floor,          ///< raised to a floor
    tiny_minimum,   ///< a tiny filesystem gets the minimum log
    legacy_rule,    ///< xfsprogs <= 5.14's size brackets
    minimum,        ///< raised to the minimum log (transaction reservations)
    ag_limit,       ///< cut to what fits in an allocation group
    cap,            ///< cut to a maximum (1048576 blocks, 2 GiB - 10 MiB, or a caller's cap)
    stripe_align,   ///< rounded to the log stripe unit
    journal_table,  ///< e2fsprogs' table on the block count
};

/// Why mkfs would not make this log, or a note on a result it would make.
enum class log_reason : unsigned char {
    none,                  ///< mkfs makes this log
    fs_too_small,          ///< soft: data under 300 MiB (xfsprogs >= 5.19 refuses unless --unsupported)
    log_too_small,         ///< soft: log under 64 MiB (idem)
    single_ag,             ///< soft: one allocation group, no redundant superblock (idem)
    data_too_small,        ///< hard: the data is smaller than one minimal AG (16 MiB)
    invalid_ag_geometry,   ///< hard: AG size outside [16 MiB, 1 TiB) or larger than the data
    ag_too_small_for_log,  ///< hard: an AG cannot hold the minimum log
    log_below_minimum,     ///< hard: stripe alignment left the log under the minimum
    log_crosses_ag,        ///< hard: stripe alignment cannot keep the log inside its AG
    no_journal,            ///< note: mke2fs makes no journal under 2048 blocks
};

/// The reason's name, as the CLI prints it ("log_too_small").
PROVPOL_NODISCARD constexpr const char* to_text(log_reason r) noexcept {
    switch (r) {
        case log_reason::none:
            return "";
        case log_reason::fs_too_small:
            return "fs_too_small";
        case log_reason::log_too_small:
            return "log_too_small";
        case log_reason::single_ag:
            return "single_ag";
        case log_reason::data_too_small:
            return "data_too_small";
        case log_reason::invalid_ag_geometry:
            return "invalid_ag_geometry";
        case log_reason::ag_too_small_for_log:
            return "ag_too_small_for_log";
        case log_reason::log_below_minimum:
            return "log_below_minimum";
        case log_reason::log_crosses_ag:
            return "log_crosses_ag";
        case log_reason::no_journal:
            return "no_journal";
    }
    return "";
}

/// The step's name, as the CLI prints it ("floor").
PROVPOL_NODISCARD constexpr const char* to_text(log_step s) noexcept {
    switch (s) {
        case log_step::none:
            return "none";
        case log_step::ratio:
            return "ratio";
        case log_step::floor:
            return "floor";
        case log_step::tiny_minimum:
            return "tiny_minimum";
        case log_step::legacy_rule:
            return "legacy_rule";
        case log_step::minimum:
            return "minimum";
        case log_step::ag_limit:
            return "ag_limit";
        case log_step::cap:
            return "cap";
        case log_step::stripe_align:
            return "stripe_align";
        case log_step::journal_table:
            return "journal_table";
    }
    return "none";
}

/// True for the reasons --unsupported cannot override (mkfs exits with an error).
PROVPOL_NODISCARD constexpr bool is_hard(log_reason r) noexcept {
    return r >= log_reason::data_too_small && r <= log_reason::log_crosses_ag;
}

/// What the layout computed and every step reads. Sizes are in filesystem blocks.
struct log_context {
    std::uint32_t block_size = 0;          ///< bytes
    unsigned block_log = 0;                ///< log2(block_size)
    std::uint64_t data_blocks = 0;         ///< D: data blocks after the AG layout (the last small AG dropped)
    std::uint64_t agcount = 0;             ///< 0 for filesystems without AGs (ext4)
    std::uint64_t agsize_blocks = 0;       ///< 0 for filesystems without AGs
    std::uint64_t min_log_blocks = 0;      ///< the minimum log mkfs enforces (at least 512; 10 MiB from 1 GiB of data)
    std::uint64_t raw_min_log_blocks = 0;  ///< the transaction-reservation minimum, at least 512 (given or estimated)
    bool min_log_estimated = false;        ///< raw_min_log_blocks is provpol's estimate, not the caller's value
    std::uint64_t max_log_blocks = 0;      ///< largest log an AG holds: AG size - AG headers and roots - 1
    std::uint64_t ag0_backoff = 0;         ///< kept free when the log is in AG 0 (single AG): the root inode chunk
    std::uint64_t log_sunit_blocks = 0;    ///< the log stripe unit mkfs prints (0: none)
    std::uint64_t align_blocks = 0;        ///< what the log is rounded to: the log stripe unit, else the data's
    std::uint64_t log_start = 0;           ///< first free block in the log's AG, rounded up to align_blocks
    std::uint64_t log_ag_blocks = 0;       ///< size of the AG that holds the log (AG count / 2; the last may be short)
    bool allow_unsupported = false;        ///< --unsupported
    bool fast_commit = false;              ///< mke2fs -O fast_commit
};

/// The log size as the steps build it.
struct log_state {
    std::uint64_t blocks = 0;              ///< the log size so far
    std::uint64_t fast_commit_blocks = 0;  ///< ext4 fast-commit area, after the journal
    log_step decided_by = log_step::none;  ///< the last step that changed blocks
    log_reason reason = log_reason::none;  ///< why mkfs would refuse (or a note)
    bool supported = true;                 ///< mkfs would make this filesystem with the flags given

    /// Sets the size; records `step` as the decider when the size changes.
    constexpr void set(std::uint64_t v, log_step step) noexcept {
        if (v != blocks) {
            blocks = v;
            decided_by = step;
        }
    }
    /// A soft refusal: kept as the reason; supported only with --unsupported. A hard error stays first.
    constexpr void refuse(log_reason r, bool allow_unsupported) noexcept {
        if (reason != log_reason::none) return;
        reason = r;
        supported = allow_unsupported;
    }
    /// A hard error: mkfs exits whatever the flags. The first one is kept.
    constexpr void fail(log_reason r) noexcept {
        if (is_hard(reason)) return;
        reason = r;
        supported = false;
    }
};

/// One decision: the geometry the tool would use, the log, and whether the tool would make it.
struct log_size_decision {
    std::uint32_t block_size = 0;          ///< bytes
    std::uint64_t data_blocks = 0;         ///< after the AG layout
    std::uint64_t agcount = 0;             ///< 0 when the filesystem has no AGs (ext4)
    std::uint64_t agsize_blocks = 0;       ///< 0 when the filesystem has no AGs
    std::uint64_t log_blocks = 0;          ///< the log (journal) size
    std::uint64_t log_sunit_blocks = 0;    ///< the log stripe unit (0: none)
    std::uint64_t fast_commit_blocks = 0;  ///< ext4 fast-commit blocks (0 otherwise)
    std::uint64_t min_log_blocks = 0;      ///< the minimum log used (XFS), at least 512
    bool min_log_estimated = false;        ///< min_log_blocks is provpol's estimate
    bool supported = true;                 ///< the tool makes it with the flags given
    log_reason reason = log_reason::none;  ///< why not (or a note when supported)
    log_step decided_by = log_step::none;  ///< which step decided log_blocks

    /// The log in bytes (journal plus fast-commit area), saturating.
    PROVPOL_NODISCARD constexpr bytes log_size() const noexcept {
        return bytes(saturating_mul(saturating_add(log_blocks, fast_commit_blocks), block_size));
    }
    /// True when the filesystem has allocation groups (the AG columns mean something).
    PROVPOL_NODISCARD constexpr bool has_ags() const noexcept { return agcount != 0; }
};

// ------------------------------------------------------------------------------------------------------------
// Contract checks

namespace detail {

template <class, class = void>
struct has_lay_out : std::false_type {};
template <class L>
struct has_lay_out<L,
                   std::void_t<decltype(std::declval<const L&>().lay_out(
                       std::declval<const fs_geometry&>(), std::declval<log_context&>(), std::declval<log_state&>()))>>
    : std::true_type {};

template <class, class = void>
struct lay_out_is_noexcept : std::false_type {};
template <class L>
struct lay_out_is_noexcept<L, std::enable_if_t<has_lay_out<L>::value>>
    : std::bool_constant<noexcept(std::declval<const L&>().lay_out(
          std::declval<const fs_geometry&>(), std::declval<log_context&>(), std::declval<log_state&>()))> {};

template <class, class = void>
struct has_apply : std::false_type {};
template <class S>
struct has_apply<S, std::void_t<decltype(std::declval<const S&>().apply(
                        std::declval<const log_context&>(), std::declval<log_state&>()))>> : std::true_type {};

template <class, class = void>
struct apply_is_noexcept : std::false_type {};
template <class S>
struct apply_is_noexcept<S, std::enable_if_t<has_apply<S>::value>>
    : std::bool_constant<noexcept(
          std::declval<const S&>().apply(std::declval<const log_context&>(), std::declval<log_state&>()))> {};

}  // namespace detail

/// True when L satisfies the layout contract (see the header comment).
template <class L>
inline constexpr bool is_log_layout_v =
    detail::has_lay_out<L>::value&& detail::lay_out_is_noexcept<L>::value&& std::is_trivially_copyable_v<L>;
/// True when S satisfies the step contract (see the header comment).
template <class S>
inline constexpr bool is_log_step_v =
    detail::has_apply<S>::value&& detail::apply_is_noexcept<S>::value&& std::is_trivially_copyable_v<S>;

// ------------------------------------------------------------------------------------------------------------
// Layouts

/// mkfs.xfs's geometry (xfsprogs 6.1; unchanged in 5.14): data blocks from the device, the AG size and count
/// (given, or calc_default_ag_geometry; aligned to the stripe unit; a last AG under 16 MiB dropped), the AG
/// headers and root blocks (libxfs_alloc_ag_max_usable), where the internal log starts (libxfs_prealloc_blocks,
/// in AG count / 2), its stripe unit, and the minimum log.
struct xfsprogs_layout {
    PROVPOL_LOG_SIZE_INLINE constexpr void lay_out(const fs_geometry& geo, log_context& c,
                                                   log_state& s) const noexcept {
        const fs_geometry_options& o = geo.options();
        const detail::xfs_derived& x = geo.xfs();
        const unsigned bl = x.block_log;
        c.block_size = std::uint32_t{1} << bl;
        c.block_log = bl;
        c.allow_unsupported = o.allow_unsupported;

        const std::uint64_t ag_min = (std::uint64_t{1} << 24) >> bl;        // XFS_AG_MIN_BLOCKS
        const std::uint64_t ag_max = ((std::uint64_t{1} << 40) - 1) >> bl;  // XFS_AG_MAX_BLOCKS
        std::uint64_t d = o.device_size.count() >> bl;
        c.data_blocks = d;
        if (d < ag_min) {  // validate_datadev: "size of data subvolume is too small"
            s.fail(log_reason::data_too_small);
            return;
        }
        // calculate_initial_ag_geometry
        std::uint64_t agsize = o.agsize.count() >> bl;
        std::uint64_t agcount = o.agcount;
        // The default geometry always passes validate_ag_geometry; given AGs and stripe rounding may not.
        bool check = true;
        if (agsize != 0)
            agcount = detail::div_up(d, agsize);
        else if (agcount != 0)
            agsize = detail::div_up(d, agcount);
        else {
            detail::xfs_default_ag_geometry(bl, d, x.dsunit != 0, agsize, agcount);
            check = x.dsunit != 0;
        }
        // align_ag_geometry: AGs start on a stripe unit, and not all on the same disk of the stripe.
        if (PROVPOL_UNLIKELY(x.dsunit != 0)) {
            const std::uint64_t su = x.dsunit;
            if (agsize % su != 0) {
                std::uint64_t t = detail::div_up(agsize, su) * su;
                if (t > ag_max) t = agsize / su * su;
                agsize = t;
                if (o.agcount == 0) agcount = detail::div_up(d, agsize);
            }
            if (o.agcount == 0 && o.agsize.count() == 0 && agcount > 1 && x.dswidth != su && agsize % x.dswidth == 0) {
                std::uint64_t t = agsize - su;
                if (t < ag_min) t = d < agsize ? agsize : agsize + su;
                agsize = t;
                agcount = detail::div_up(d, agsize);
            }
        }
        // A last AG under 16 MiB is dropped, with its blocks.
        const std::uint64_t tail = d % agsize;
        if (tail != 0 && tail < ag_min) {
            d = (agcount - 1) * agsize;
            --agcount;
        }
        c.data_blocks = d;
        c.agcount = agcount;
        c.agsize_blocks = agsize;
        if (check && (agsize < ag_min || agsize > ag_max || agsize > d)) {  // validate_ag_geometry
            s.fail(log_reason::invalid_ag_geometry);
            return;
        }
        c.max_log_blocks = agsize - x.ag_reserved;  // agsize >= 16 MiB holds every reservation
        // The log goes in AG agcount / 2 (the last AG may be short); in AG 0, room for the root inode chunk.
        const std::uint64_t logagno = agcount / 2;
        c.log_start = x.aligned_log_start;
        c.log_ag_blocks = logagno == agcount - 1 ? d - logagno * agsize : agsize;
        c.ag0_backoff = logagno == 0 ? x.ag0_backoff : 0;
        c.log_sunit_blocks = x.lsunit;
        c.align_blocks = x.align;

        // calculate_log_size: the minimum, at least XFS_MIN_LOG_BLOCKS, and XFS_MIN_LOG_BYTES from 1 GiB.
        std::uint64_t raw = o.min_log_blocks;
        c.min_log_estimated = raw == 0;
        if (raw == 0) raw = detail::xfs_min_log_lookup(x.min_log_class, agsize) + x.min_log_stripe_bound;
        if (raw < detail::xfs_min_log_blocks_floor) raw = detail::xfs_min_log_blocks_floor;
        c.raw_min_log_blocks = raw;
        c.min_log_blocks = (d >= x.gib_blocks && raw < x.min_log_bytes_blocks) ? x.min_log_bytes_blocks : raw;
    }
};

/// mke2fs's geometry (e2fsprogs 1.47 with Debian's mke2fs.conf): 1 KiB blocks below 512 MiB (the "floppy" and
/// "small" size types), 4 KiB from there, unless given; the block count is the device size in blocks. Up to
/// 16 KiB blocks that is exact for the journal: mke2fs may drop a last partial block group, which never crosses
/// a journal-table step (every step is a multiple of the group size). With 32 and 64 KiB blocks mke2fs shrinks
/// the groups to hold their inodes and can end a little under a step (16 GiB of 64 KiB blocks: 262112 blocks,
/// a 4096-block journal where this layout says 8192); the parity test counts those rows.
struct e2fsprogs_layout {
    PROVPOL_LOG_SIZE_INLINE constexpr void lay_out(const fs_geometry& geo, log_context& c, log_state&) const noexcept {
        const fs_geometry_options& o = geo.options();
        const std::uint32_t bs =
            o.block_size != 0 ? o.block_size : (o.device_size.count() < (std::uint64_t{512} << 20) ? 1024U : 4096U);
        c.block_size = bs;
        c.block_log = detail::log2_exact(bs);
        c.data_blocks = o.device_size.count() >> c.block_log;
        c.allow_unsupported = o.allow_unsupported;
        c.fast_commit = o.fast_commit;
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

/// xfsprogs <= 5.14's initial size (removed in 5.15): under 1 GiB the minimum log; 1 to 16 GiB
/// min(XFS_MIN_LOG_BYTES, 5 x minimum) (XFS_DFL_LOG_FACTOR); from 16 GiB D / 2048.
struct xfsprogs_5_14_size_step {
    PROVPOL_LOG_SIZE_INLINE constexpr void apply(const log_context& c, log_state& s) const noexcept {
        const std::uint64_t d = c.data_blocks;
        if (d < ((std::uint64_t{1} << 30) >> c.block_log)) {
            s.blocks = c.min_log_blocks;
        } else if (d < ((std::uint64_t{16} << 30) >> c.block_log)) {
            const std::uint64_t ten = detail::xfs_min_log_bytes >> c.block_log;
            const std::uint64_t five = saturating_mul(c.min_log_blocks, 5);
            s.blocks = ten < five ? ten : five;
        } else {
            s.blocks = d / 2048;
        }
        s.decided_by = log_step::legacy_rule;
    }
};

/// "The xfsprogs caps": at least the minimum log; at most what an AG holds (libxfs_alloc_ag_max_usable - 1),
/// XFS_MAX_LOG_BLOCKS (1048576) and XFS_MAX_LOG_BYTES (2 GiB - 10 MiB); in AG 0 (a single AG) room for the
/// root inode chunk. mkfs fails when the AG cannot hold the minimum.
struct xfsprogs_limits_step {
    PROVPOL_LOG_SIZE_INLINE constexpr void apply(const log_context& c, log_state& s) const noexcept {
        if (c.agcount != 0 && c.max_log_blocks < c.min_log_blocks) s.fail(log_reason::ag_too_small_for_log);
        if (s.blocks < c.min_log_blocks) s.set(c.min_log_blocks, log_step::minimum);
        if (c.agcount != 0 && s.blocks > c.max_log_blocks) s.set(c.max_log_blocks, log_step::ag_limit);
        if (s.blocks > detail::xfs_max_log_blocks) s.set(detail::xfs_max_log_blocks, log_step::cap);
        const std::uint64_t byte_cap = detail::xfs_max_log_bytes >> c.block_log;
        if (s.blocks > byte_cap) s.set(byte_cap, log_step::cap);
        if (PROVPOL_UNLIKELY(c.ag0_backoff != 0)) {
            const std::uint64_t ag0_max = saturating_sub(c.max_log_blocks, c.ag0_backoff);
            if (s.blocks > ag0_max) s.set(ag0_max, log_step::ag_limit);
        }
        if (s.blocks < c.min_log_blocks) s.fail(log_reason::log_below_minimum);
    }
};

/// xfsprogs' align_internal_log: the log start and size rounded up to the log stripe unit (down when that would
/// pass a cap or the AG limit), one unit less when the log would run past its AG; mkfs fails when it still
/// does, or when alignment left the log under the minimum.
struct xfsprogs_stripe_align_step {
    PROVPOL_LOG_SIZE_INLINE constexpr void apply(const log_context& c, log_state& s) const noexcept {
        const std::uint64_t u = c.align_blocks;
        if (u == 0 || c.agcount == 0) return;
        const std::uint64_t start = c.log_start;  // already rounded up to u by the layout
        if (start >= c.log_ag_blocks) {
            s.fail(log_reason::log_crosses_ag);
            return;
        }
        std::uint64_t l = s.blocks;
        if (l % u != 0) {
            const std::uint64_t up = detail::div_up(l, u) * u;
            const std::uint64_t max = saturating_sub(c.max_log_blocks, c.ag0_backoff);
            l = (up > detail::xfs_max_log_blocks || up > (detail::xfs_max_log_bytes >> c.block_log) || up > max)
                    ? l / u * u
                    : up;
        }
        if (start + l > c.log_ag_blocks && l > u) l -= u;
        s.set(l, log_step::stripe_align);
        if (start + l > c.log_ag_blocks) s.fail(log_reason::log_crosses_ag);
        if (s.blocks < c.min_log_blocks) s.fail(log_reason::log_below_minimum);
    }
};

/// xfsprogs >= 5.19's validate_supported: refuse (unless --unsupported) data under `min_data`, a log under
/// `min_log`, and fewer than two AGs, checked in that order.
class xfsprogs_support_step {
public:
    /// min_data and min_log in [0, 1 TiB].
    PROVPOL_NODISCARD static constexpr result<xfsprogs_support_step> make(bytes min_data, bytes min_log) noexcept {
        if (min_data.count() > (std::uint64_t{1} << 40))
            return unexpected(error::out_of_range("minimum data size", error_value::of_size(min_data.count()),
                                                  error_value::of_size(0),
                                                  error_value::of_size(std::uint64_t{1} << 40)));
        if (min_log.count() > (std::uint64_t{1} << 40))
            return unexpected(error::out_of_range("minimum log size", error_value::of_size(min_log.count()),
                                                  error_value::of_size(0),
                                                  error_value::of_size(std::uint64_t{1} << 40)));
        return xfsprogs_support_step(min_data, min_log);
    }
    PROVPOL_LOG_SIZE_INLINE constexpr void apply(const log_context& c, log_state& s) const noexcept {
        if (is_hard(s.reason)) return;
        if (c.data_blocks < (min_data_.count() >> c.block_log))
            s.refuse(log_reason::fs_too_small, c.allow_unsupported);
        else if (s.blocks < (min_log_.count() >> c.block_log))
            s.refuse(log_reason::log_too_small, c.allow_unsupported);
        else if (c.agcount < 2)
            s.refuse(log_reason::single_ag, c.allow_unsupported);
    }
    PROVPOL_NODISCARD constexpr bytes min_data() const noexcept { return min_data_; }
    PROVPOL_NODISCARD constexpr bytes min_log() const noexcept { return min_log_; }

private:
    constexpr xfsprogs_support_step(bytes d, bytes l) noexcept : min_data_(d), min_log_(l) {}
    bytes min_data_;
    bytes min_log_;
};

/// e2fsprogs 1.47's ext2fs_default_journal_size on the block count n: none under 2048 blocks, then 1024, 4096,
/// 8192, 16384, 32768, 65536, 131072 and 262144 blocks at 32768, 256K, 512K, 4M, 8M, 16M and 32M blocks;
/// fast_commit adds journal / 64 (EXT2_JOURNAL_TO_FC_BLKS_RATIO).
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
        if (j == 0) s.reason = log_reason::no_journal;
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
    static_assert(std::is_trivially_copyable_v<Layout>, "provpol::log_size_policy: Layout must be trivially copyable");
    static_assert((detail::has_apply<Steps>::value && ...),
                  "provpol::log_size_policy: every Step must provide void apply(const log_context&, log_state&) const");
    static_assert((detail::apply_is_noexcept<Steps>::value && ...),
                  "provpol::log_size_policy: every Step::apply must be noexcept");
    static_assert((std::is_trivially_copyable_v<Steps> && ...),
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
        d.min_log_estimated = c.min_log_estimated;
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

/// The policy type of the XFS presets: ratio, floor, tiny filesystems, the xfsprogs caps, stripe alignment,
/// and the support rules.
using xfs_modern_policy = log_size_policy<xfsprogs_layout, ratio_step, floor_step, tiny_filesystem_step, xfsprogs_caps,
                                          xfsprogs_stripe_align_step, xfsprogs_support_step>;

namespace detail {
using namespace provpol::literals;
constexpr xfs_modern_policy xfs_modern(std::uint32_t den, bytes floor, bytes min_log) noexcept {
    return xfs_modern_policy(xfsprogs_layout{}, *ratio_step::make(1, den), *floor_step::make(floor),
                             *tiny_filesystem_step::make(300_MiB), xfsprogs_caps{}, xfsprogs_stripe_align_step{},
                             *xfsprogs_support_step::make(300_MiB, min_log));
}
}  // namespace detail

/// mkfs.xfs 6.1 (Debian bookworm; the same rule from 5.19 to 6.7): 1:2048 of the data, at least 64 MiB
/// (XFS_MIN_REALISTIC_LOG_BLOCKS, from 5.15), the minimum log below 300 MiB of data, the xfsprogs caps, stripe
/// alignment; refuses under 300 MiB of data, a log under 64 MiB, a single AG (validate_supported, 5.19).
PROVPOL_NODISCARD constexpr xfs_modern_policy xfsprogs_6_1() noexcept {
    using namespace provpol::literals;
    return detail::xfs_modern(2048, 64_MiB, 64_MiB);
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
enum class log_preset : unsigned char { xfsprogs_6_1, xfsprogs_5_14, xfs_ratio_256, xfs_floor_32m, e2fsprogs_1_47 };

/// Every preset, in the order the CLI lists them.
inline constexpr log_preset all_log_presets[] = {log_preset::xfsprogs_6_1, log_preset::xfsprogs_5_14,
                                                 log_preset::xfs_ratio_256, log_preset::xfs_floor_32m,
                                                 log_preset::e2fsprogs_1_47};

/// The preset's name as the CLI spells it ("xfsprogs-6.1").
PROVPOL_NODISCARD constexpr const char* to_text(log_preset p) noexcept {
    switch (p) {
        case log_preset::xfsprogs_6_1:
            return "xfsprogs-6.1";
        case log_preset::xfsprogs_5_14:
            return "xfsprogs-5.14";
        case log_preset::xfs_ratio_256:
            return "xfs-ratio-256";
        case log_preset::xfs_floor_32m:
            return "xfs-floor-32m";
        case log_preset::e2fsprogs_1_47:
            return "e2fsprogs-1.47";
    }
    return "";
}

/// Reads a preset name ("xfsprogs-6.1", ...).
PROVPOL_NODISCARD constexpr result<log_preset> parse_log_preset(text_view text,
                                                                const char* setting = "preset") noexcept {
    for (log_preset p : all_log_presets)
        if (text == to_text(p)) return p;
    return unexpected(error::unknown_name(
        setting, text, "xfsprogs-6.1, xfsprogs-5.14, xfs-ratio-256, xfs-floor-32m or e2fsprogs-1.47"));
}

/// The decision of a preset chosen at run time.
PROVPOL_NODISCARD constexpr log_size_decision decide_log_size(log_preset p, const fs_geometry& g) noexcept {
    switch (p) {
        case log_preset::xfsprogs_6_1:
            return xfsprogs_6_1().decide(g);
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

#endif  // PROVPOL_LOG_SIZE_HPP
