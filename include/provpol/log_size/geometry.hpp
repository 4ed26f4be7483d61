// provpol/log_size/geometry.hpp - what a caller would pass to mkfs (fs_geometry_options), validated once into an
// fs_geometry together with what each mkfs.xfs version derives from it before looking at the device size: the
// features it resolves, the AG reservations, the log stripe unit, and the minimum log and max_tx_bytes as step
// functions of the AG size, computed from the transaction reservations (log_size/xfs_reservations.hpp).
// Part of <provpol/log_size.hpp>; see there for the policies.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_LOG_SIZE_GEOMETRY_HPP
#define PROVPOL_LOG_SIZE_GEOMETRY_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../result.hpp"
#include "xfs_reservations.hpp"

#include <cstdint>

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

/// One mkfs.xfs feature switch: the tool's default, or given on or off (assign true or false).
class xfs_feature {
public:
    /// The tool's default (it differs between versions: see xfs_features).
    constexpr xfs_feature() noexcept = default;
    /// Given: on or off, as in `o.features.rmapbt = false`.
    constexpr xfs_feature(bool on) noexcept : v_(on ? 2 : 1) {}  // NOLINT(google-explicit-constructor)
    /// True when given.
    PROVPOL_NODISCARD constexpr bool given() const noexcept { return v_ != 0; }
    /// The value given, else `tool_default`.
    PROVPOL_NODISCARD constexpr bool value_or(bool tool_default) const noexcept {
        return v_ == 0 ? tool_default : v_ == 2;
    }
    /// Equal when both are the default or both are given with the same value.
    friend constexpr bool operator==(xfs_feature a, xfs_feature b) noexcept { return a.v_ == b.v_; }
    friend constexpr bool operator!=(xfs_feature a, xfs_feature b) noexcept { return a.v_ != b.v_; }

private:
    unsigned char v_ = 0;
};

/// XFS on-disk features that change the log (mkfs.xfs -m, -i nrext64, -n parent). Defaults per version:
/// 6.1 crc, finobt, reflink; 6.13 also rmapbt and nrext64; 7.2 also parent. Without crc (a v4 filesystem) the
/// others are off.
struct xfs_features {
    xfs_feature crc;      ///< v5 superblock
    xfs_feature finobt;   ///< free inode btree
    xfs_feature reflink;  ///< refcount btree
    xfs_feature rmapbt;   ///< reverse-mapping btree
    xfs_feature nrext64;  ///< large extent counts (xfsprogs >= 5.19; default from 6.5)
    xfs_feature parent;   ///< parent pointers (xfsprogs >= 6.10; default from 7.0)
};

/// The data device as mkfs.xfs >= 6.8 sees it through the BLKROTATIONAL ioctl.
enum class xfs_device : unsigned char {
    file,            ///< an image file: the ioctl fails, no concurrency sizing
    rotational,      ///< a disk: no concurrency sizing
    non_rotational,  ///< an SSD: the log (and the AG count) sized for the CPU count
};
/// "file", "rotational" or "non_rotational".
PROVPOL_NODISCARD constexpr const char* to_text(xfs_device e) noexcept {
    constexpr const char* names[] = {"file", "rotational", "non_rotational"};
    static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(xfs_device::non_rotational) + 1,
                  "a name each");
    return detail::enum_name(names, e);
}

/// The mkfs.xfs whose defaults and rules apply (5.14 and the 2022 proposals use 6.1's).
enum class xfsprogs_version : unsigned char { v6_1, v6_13, v7_2 };
/// The release as xfsprogs numbers it: "6.1", "6.13" or "7.2".
PROVPOL_NODISCARD constexpr const char* to_text(xfsprogs_version e) noexcept {
    constexpr const char* names[] = {"6.1", "6.13", "7.2"};
    static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(xfsprogs_version::v7_2) + 1,
                  "a name each");
    return detail::enum_name(names, e);
}

/// What a caller would pass to mkfs, before validation. Zero means "the tool's default".
struct fs_geometry_options {
    bytes device_size{};                   ///< the device (or file) size, as mkfs sees it
    std::uint32_t block_size = 0;          ///< 0: 4096 for XFS; for ext4 1024 below 512 MiB, else 4096
    std::uint32_t sector_size = 0;         ///< 0: 512
    std::uint64_t agcount = 0;             ///< mkfs.xfs -d agcount (0: default geometry)
    bytes agsize{};                        ///< mkfs.xfs -d agsize (0: default geometry)
    bytes stripe_unit{};                   ///< mkfs.xfs -d su (0: no stripe)
    std::uint32_t stripe_width = 0;        ///< mkfs.xfs -d sw, in stripe units (needed with stripe_unit)
    bytes log_stripe_unit{};               ///< mkfs.xfs -l su (0: from the data stripe unit or the sector size)
    xfs_features features{};               ///< mkfs.xfs -m, -i nrext64, -n parent
    std::int64_t log_concurrency = -1;     ///< mkfs.xfs -l concurrency (-1: not given; 1 means the CPU count)
    std::int64_t data_concurrency = -1;    ///< mkfs.xfs -d concurrency (-1: not given; 0: the default AG
                                           ///< geometry; 1 means the CPU count)
    xfs_device device = xfs_device::file;  ///< what BLKROTATIONAL says (mkfs.xfs >= 6.8)
    std::uint32_t cpus = 0;                ///< online CPUs, as mkfs.xfs's nr_cpus() reads them (0: unknown)
    std::uint64_t min_log_blocks = 0;      ///< the minimum log, to override provpol's computation (0: compute it)
    bool allow_unsupported = false;        ///< mkfs.xfs --unsupported: format what it would otherwise refuse
    bool fast_commit = false;              ///< mke2fs -O fast_commit
    std::int64_t journal_size_mib = -1;    ///< mke2fs -J size=N, in MiB (-1: not given; 0: the default, as mke2fs)
    bool e2fsck_recreate = false;          ///< the journal e2fsck -fy re-creates for a lost one, not mke2fs's
    std::int64_t old_journal_bytes = -1;   ///< e2fsck: the lost journal's size kept in the superblock's backup
                                           ///< (s_jnl_blocks; -1: no backup of its blocks)
};

// ------------------------------------------------------------------------------------------------------------
// XFS internals (facts from xfsprogs' mkfs/xfs_mkfs.c, libxfs/topology.c and libxfs/xfs_alloc.c)

/// The features an mkfs.xfs version formats with (fs_geometry::features): the given ones, its defaults for the rest;
/// without crc none of the v5 features (mkfs.xfs turns them off for a v4 filesystem).
struct xfs_resolved_features {
    bool crc = true, finobt = true, reflink = true, rmapbt = false, nrext64 = false, parent = false;
};

class fs_geometry;

namespace detail {

inline constexpr std::uint64_t xfs_min_log_blocks_floor = 512;  // XFS_MIN_LOG_BLOCKS
inline constexpr std::uint64_t xfs_max_log_blocks = 1048576;    // XFS_MAX_LOG_BLOCKS
inline constexpr std::uint64_t xfs_max_log_bytes =
    (std::uint64_t{2} << 30) - (std::uint64_t{10} << 20);                    // XFS_MAX_LOG_BYTES
inline constexpr std::uint64_t xfs_min_log_bytes = std::uint64_t{10} << 20;  // XFS_MIN_LOG_BYTES
inline constexpr std::uint64_t xfs_max_lsunit_bytes = std::uint64_t{256}
                                                      << 10;  // log v2 stripe unit limit; forced to 32 KiB above
inline constexpr unsigned xfs_version_count = 3;

constexpr xfs_resolved_features xfs_resolve(const xfs_features& f, xfsprogs_version v) noexcept {
    const bool modern = v != xfsprogs_version::v6_1;  // 6.13 (Debian 13) and 7.2 defaults, from their output
    xfs_resolved_features r;
    r.crc = f.crc.value_or(true);
    r.finobt = r.crc && f.finobt.value_or(true);
    r.reflink = r.crc && f.reflink.value_or(true);
    r.rmapbt = r.crc && f.rmapbt.value_or(modern);
    r.nrext64 = r.crc && f.nrext64.value_or(modern);
    r.parent = r.crc && f.parent.value_or(v == xfsprogs_version::v7_2);
    return r;
}

/// The minimum log and max_tx_bytes from agblocks_from AG blocks on (up to the next step).
struct xfs_min_log_step {
    std::uint32_t agblocks_from = 0;
    std::uint32_t min_log_blocks = 0;
    std::uint32_t max_tx_bytes = 0;
};

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
    agcount = divide(dblocks, blocks, rounding::up);
}

/// What one mkfs.xfs version derives from the options alone (not from the device size): computed once, by
/// fs_geometry::make.
struct xfs_derived {
    xfs_resolved_features features{};     ///< the features this version formats with
    std::uint64_t ag_reserved = 11;       ///< AG headers (4 sectors), AGFL reserve, btree roots, plus 1 (the clamp)
    std::uint64_t log_start = 6;          ///< first free AG block: after the AGFL, bno/cnt/ino and optional roots
    std::uint64_t ag0_backoff = 32;       ///< kept free when the log is in AG 0: 4 inode chunks or 2 stripe units
    std::uint64_t aligned_log_start = 6;  ///< log_start rounded up to the alignment
    std::uint64_t lsunit = 0;             ///< the log stripe unit this version prints (blocks)
    std::uint64_t align = 0;              ///< what the log is rounded to: lsunit, else the data stripe unit
    std::uint32_t step_count = 0;         ///< entries of min_log before the end marker
    /// The minimum log and max_tx_bytes over the AG sizes from 16 MiB to 1 TiB, ended by a step that never holds.
    xfs_min_log_step min_log[33]{};
};

/// What every version shares: block log, stripe units, the log stripe unit.
struct xfs_common {
    unsigned block_log = 12;                    ///< log2(block size), 4096 by default
    std::uint64_t dsunit = 0;                   ///< data stripe unit, blocks
    std::uint64_t dswidth = 0;                  ///< data stripe width, blocks
    std::uint64_t lsunit = 0;                   ///< the log stripe unit before 6.19 (xfs_derived::lsunit: per version)
    std::uint64_t align = 0;                    ///< what the log is rounded to: lsunit, else dsunit
    std::uint64_t gib_blocks = 262144;          ///< 1 GiB in blocks: from there the minimum is at least 10 MiB
    std::uint64_t min_log_bytes_blocks = 2560;  ///< XFS_MIN_LOG_BYTES (10 MiB) in blocks
};

/// calc_stripe_factors and the log stripe unit: -l su, else one block with sectors over 512 bytes, else the data
/// stripe unit; over 256 KiB it is forced to 32 KiB (0 blocks with 64 KiB blocks, as xfsprogs does).
constexpr xfs_common xfs_derive_common(const fs_geometry_options& o) noexcept {
    xfs_common x;
    const std::uint64_t bs = o.block_size == 0 ? 4096 : o.block_size;
    const unsigned bl = floor_log2(bs);
    const std::uint64_t sect = o.sector_size == 0 ? 512 : o.sector_size;
    x.block_log = bl;
    x.dsunit = o.stripe_unit.count() >> bl;
    x.dswidth = (o.stripe_unit.count() * o.stripe_width) >> bl;
    std::uint64_t lsunit = x.dsunit;
    if (o.log_stripe_unit.count() != 0)
        lsunit = o.log_stripe_unit.count() >> bl;
    else if (sect > 512)
        lsunit = 1;
    if (lsunit * bs > xfs_max_lsunit_bytes) lsunit = (32 * 1024) >> bl;
    x.lsunit = lsunit;
    x.align = lsunit != 0 ? lsunit : x.dsunit;
    x.gib_blocks = (std::uint64_t{1} << 30) >> bl;
    x.min_log_bytes_blocks = xfs_min_log_bytes >> bl;
    return x;
}

/// xfs_derived for one version: libxfs_alloc_ag_max_usable, libxfs_prealloc_blocks, adjust_ag0_internal_logblocks,
/// and the minimum log (libxfs_log_calc_minimum_size) with max_tx_bytes at every AG size where a btree height
/// changes, from 16 MiB to 1 TiB AGs.
constexpr xfs_derived xfs_derive(const fs_geometry_options& o, const xfs_common& c, xfsprogs_version v) noexcept {
    xfs_derived x;
    const unsigned bl = c.block_log;
    const std::uint64_t bs = std::uint64_t{1} << bl;
    const std::uint64_t sect = o.sector_size == 0 ? 512 : o.sector_size;
    const xfs_resolved_features f = xfs_resolve(o.features, v);
    x.features = f;
    // AG headers (4 sectors), AGFL reserve (4), bno/cnt/ino roots (3), one root per optional btree; and the
    // one block calculate_log_size keeps free.
    const std::uint64_t roots = (f.finobt ? 1U : 0U) + (f.rmapbt ? 1U : 0U) + (f.reflink ? 1U : 0U);
    x.ag_reserved = divide(4 * sect, bs, rounding::up) + 4 + 3 + roots + 1;
    // The log starts after the AGFL block, the bno/cnt/ino roots and the optional roots.
    x.log_start = (3 * sect) / bs + 4 + roots;
    // In AG 0, room for the root inode chunk (64 inodes) four times over, or two data stripe units.
    const std::uint64_t ichunk = (64 * (f.crc ? 512U : 256U)) >> bl;
    x.ag0_backoff = 4 * ichunk > 2 * c.dsunit ? 4 * ichunk : 2 * c.dsunit;
    // The log stripe unit: xfs_common's, except that from 6.19 ("mkfs: fix log sunit automatic configuration") a
    // data stripe wins over the one block a log sector over 512 bytes asks for (mkfs.xfs 7.2 -N -s size=4096
    // -d su=64k,sw=4 prints log sunit=16 blks, 6.13 sunit=1), still forced to 32 KiB over 256 KiB.
    x.lsunit = c.lsunit;
    if (v == xfsprogs_version::v7_2 && o.log_stripe_unit.count() == 0 && c.dsunit != 0)
        x.lsunit = c.dsunit * bs > xfs_max_lsunit_bytes ? (32 * 1024) >> bl : c.dsunit;
    x.align = x.lsunit != 0 ? x.lsunit : c.dsunit;
    x.aligned_log_start = align_up(x.log_start, x.align);
    // The minimum log as a step function of the AG size.
    xfs_sb_params sb;
    sb.block_log = bl;
    sb.sector_size = static_cast<std::uint32_t>(sect);
    sb.log_sunit_bytes = static_cast<std::uint32_t>(x.lsunit << bl);
    sb.crc = f.crc;
    sb.finobt = f.finobt;
    sb.reflink = f.reflink;
    sb.rmapbt = f.rmapbt;
    sb.nrext64 = f.nrext64;
    sb.parent = f.parent;
    sb.two_pointer_root = v != xfsprogs_version::v6_1;
    sb.atomic_ioend = v == xfsprogs_version::v7_2;
    const std::uint64_t lo = (std::uint64_t{1} << 24) >> bl, hi = ((std::uint64_t{1} << 40) - 1) >> bl;
    const xfs_ag_breaks br = xfs_level_breaks(sb, lo, hi);
    for (unsigned i = 0; i <= br.count; ++i) {
        const std::uint64_t from = i == 0 ? lo : br.at[i - 1];
        sb.agblocks = static_cast<std::uint32_t>(from);
        const xfs_log_minimum_result m = xfs_log_minimum(sb);
        x.min_log[i] = xfs_min_log_step{static_cast<std::uint32_t>(from), static_cast<std::uint32_t>(m.min_log_blocks),
                                        static_cast<std::uint32_t>(m.max_tx_bytes)};
    }
    x.step_count = br.count + 1;
    x.min_log[x.step_count] = xfs_min_log_step{0xffffffffU, 0, 0};
    return x;
}

/// The step that holds at this AG size (agblocks < 2^32 - 1; below the first step, the first).
PROVPOL_LOG_SIZE_INLINE constexpr const xfs_min_log_step& xfs_min_log_at(const xfs_derived& x,
                                                                         std::uint64_t agblocks) noexcept {
    const xfs_min_log_step* s = x.min_log;
    while (agblocks >= s[1].agblocks_from) ++s;
    return *s;
}

// The XFS layout's (and the tests') access to what fs_geometry derives once; not API.
struct fs_geometry_access {
    static constexpr const xfs_common& common(const fs_geometry& g) noexcept;
    static constexpr const xfs_derived& xfs(const fs_geometry& g, xfsprogs_version v) noexcept;
};

}  // namespace detail

/// A validated filesystem geometry: the input every log-size decision takes. Made only by make(), so a
/// decision never sees an impossible block size or a stripe that is not a multiple of it.
class fs_geometry {
public:
    /// An empty device with every option at its default: the same as make({}).
    constexpr fs_geometry() noexcept : fs_geometry(fs_geometry_options{}, 0) {}

    /// Validates the options: block size a power of two in [1024, 65536] (or 0; 512 too without crc, a v4
    /// filesystem), sector size a power of two in [512, 32768] and at most the block size, agcount and agsize
    /// not both, agsize in [16 MiB, 1 TiB] and a multiple of the block size, stripe unit and width both or
    /// neither, multiples of the block size, log stripe unit a multiple of the block size, log and data
    /// concurrency in [-1, 2^31 - 1], data concurrency not with agcount or agsize (mkfs.xfs's -d concurrency
    /// conflicts with both).
    /// (A template only so that this validation is compiled where it is called, not in every translation unit that
    /// includes the header: call it as a function, fs_geometry::make(options).)
    template <class Deferred = void>
    // long: one check per mkfs.xfs option, each naming its setting
    PROVPOL_NODISCARD static constexpr result<fs_geometry> make(const fs_geometry_options& o) noexcept {
        const std::uint32_t bs_check = o.block_size == 0 ? 4096 : o.block_size;
        const bool v4 = !o.features.crc.value_or(true);
        if (o.block_size != 0 && !is_power_of_two(o.block_size))
            return unexpected(error::not_a_power_of_two("block_size", error_value::of(o.block_size)));
        const std::uint32_t min_bs = v4 ? 512 : 1024;
        if (o.block_size != 0 && (o.block_size < min_bs || o.block_size > 65536))
            return unexpected(error::out_of_range("block_size", error_value::of(o.block_size), error_value::of(min_bs),
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
        if (o.log_concurrency < -1 || o.log_concurrency > 0x7fffffff)  // mkfs.xfs keeps it in an int
            return unexpected(error::out_of_range("log_concurrency", error_value::of_signed(o.log_concurrency),
                                                  error_value::of_signed(-1), error_value::of(0x7fffffffU)));
        if (o.data_concurrency < -1 || o.data_concurrency > 0x7fffffff)  // mkfs.xfs keeps it in an int
            return unexpected(error::out_of_range("data_concurrency", error_value::of_signed(o.data_concurrency),
                                                  error_value::of_signed(-1), error_value::of(0x7fffffffU)));
        if (o.data_concurrency >= 0 && (o.agcount != 0 || o.agsize.count() != 0))
            return unexpected(o.agcount != 0
                                  ? error::conflict("data_concurrency", error_value::of_signed(o.data_concurrency),
                                                    "cannot be given with", "agcount", error_value::of(o.agcount))
                                  : error::conflict("data_concurrency", error_value::of_signed(o.data_concurrency),
                                                    "cannot be given with", "agsize",
                                                    error_value::of_size(o.agsize.count())));
        // mke2fs keeps -J size in an int (strtoul's value truncated); provpol takes what an int holds.
        if (o.journal_size_mib < -1 || o.journal_size_mib > 0x7fffffff)
            return unexpected(error::out_of_range("journal_size", error_value::of_signed(o.journal_size_mib),
                                                  error_value::of_signed(-1), error_value::of(0x7fffffffU)));
        if (o.e2fsck_recreate && o.journal_size_mib >= 0)
            return unexpected(error::conflict("journal_size", error_value::of_signed(o.journal_size_mib),
                                              "cannot be given with", "e2fsck_recreate", error_value::of(1)));
        // The backup keeps i_size in two 32-bit words: under 2^64 bytes; e2fsck reads its MiB into an int.
        if (o.old_journal_bytes < -1 || o.old_journal_bytes >= (std::int64_t{1} << 51))
            return unexpected(error::out_of_range("old_journal", error_value::of_signed(o.old_journal_bytes),
                                                  error_value::of_signed(-1),
                                                  error_value::of_size((std::uint64_t{1} << 51) - 1)));
        if (o.min_log_blocks > (std::uint64_t{1} << 32))
            return unexpected(error::out_of_range("min_log_blocks", error_value::of(o.min_log_blocks),
                                                  error_value::of(0), error_value::of(std::uint64_t{1} << 32)));
        return fs_geometry(o, sect);
    }

    /// The options as validated (sector size 0 replaced by 512).
    PROVPOL_NODISCARD constexpr const fs_geometry_options& options() const noexcept { return o_; }
    /// The device size.
    PROVPOL_NODISCARD constexpr bytes device_size() const noexcept { return o_.device_size; }
    /// The features version v formats with.
    PROVPOL_NODISCARD constexpr xfs_resolved_features features(xfsprogs_version v) const noexcept {
        return x_[static_cast<unsigned>(v)].features;
    }

    /// mkfs.xfs's largest AG count (NULLAGNUMBER - 1).
    static constexpr std::uint64_t max_agcount = 0xfffffffeULL;

private:
    // What every mkfs.xfs derives from the options (stripe units, the log stripe unit), and what one version
    // derives (features, AG reservations, the minimum-log steps): computed once here, so that each decision only
    // does what depends on the device size. Internals of the XFS layout, read through detail::fs_geometry_access.
    friend struct detail::fs_geometry_access;
    constexpr fs_geometry(const fs_geometry_options& o, std::uint32_t sect) noexcept : o_(o) {
        o_.sector_size = sect;
        c_ = detail::xfs_derive_common(o_);
        for (unsigned v = 0; v < detail::xfs_version_count; ++v)
            x_[v] = detail::xfs_derive(o_, c_, static_cast<xfsprogs_version>(v));
    }
    fs_geometry_options o_{};
    detail::xfs_common c_{};
    detail::xfs_derived x_[detail::xfs_version_count]{};
};

namespace detail {
constexpr const xfs_common& fs_geometry_access::common(const fs_geometry& g) noexcept { return g.c_; }
constexpr const xfs_derived& fs_geometry_access::xfs(const fs_geometry& g, xfsprogs_version v) noexcept {
    return g.x_[static_cast<unsigned>(v)];
}
}  // namespace detail

}  // namespace provpol

#endif  // PROVPOL_LOG_SIZE_GEOMETRY_HPP
