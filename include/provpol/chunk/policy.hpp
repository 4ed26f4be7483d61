// provpol/chunk/policy.hpp - the I/O chunk size: what block size storage code that owns its device I/O (a redo log, an
// image copier, a backup agent) should write in, for the device and the mode in front of it.
//
// A chunk policy is validated once, from the device's limits (as Linux reports them in
// /sys/dev/block/MAJ:MIN/queue/ and through statx(STATX_DIOALIGN); any may be unknown) and the caller's I/O mode
// (direct or buffered, with or without O_DSYNC). Its decision then runs these steps, in this order:
//
//   1. default       the size used when the caller requests none: the DefaultStep's, e.g. a preset's constant
//   2. floor         at least 4 KiB: below a page, buffered writes to uncached pages read every page first
//   3. alignment     rounded up to a multiple of the device's granularity (logical and physical block size,
//                    minimum I/O size and, for O_DIRECT, statx's offset alignment; for buffered I/O whole 4 KiB
//                    pages unless the floor is below a page), and of the optimal I/O size where the device
//                    reports one; a size misaligned for O_DIRECT is never returned
//   4. max_transfer  capped at the largest aligned size within the device's maximum transfer size
//
// Every decision says which step decided it (chunk_decision::decided_by): the last step that changed the size.
// Limits that contradict each other (an optimal I/O size below the logical block size, a maximum transfer below
// the floor, block sizes that are not powers of two, ...) are rejected by make() with an error naming the limits
// and their values, never turned into a silent bad size.
//
// The DefaultStep contract (basic_chunk_policy's template parameter; is_chunk_default_step_v checks it):
//   - `bytes default_size(const device_limits&) const noexcept`: the size for a device, >= 1 byte. make() calls it
//     once; a constexpr default_size makes the whole policy usable in constant expressions.
//   - trivially copyable: a policy is a small value that is copied freely and shared between threads.
// provpol ships fixed_default (a constant), coreutils_io_blksize and coreutils_io_blksize_max (GNU coreutils'
// io_blksize() since 9.2 and before it) and rsync_block_length (rsync's block length for a file's length).
//
// Calibration from measurements (the rule on samples, the fitted cost model, the deadline planner) lives in
// provpol/fit/chunk.hpp.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_CHUNK_POLICY_HPP
#define PROVPOL_CHUNK_POLICY_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../detail/traits.hpp"
#include "../result.hpp"
#include "../text.hpp"

#include <cstdint>

namespace provpol {

// --- mode -------------------------------------------------------------------------------------------------------

/// How the caller opens the device or file: O_DIRECT or the page cache, with or without O_DSYNC.
enum class io_mode : unsigned char { buffered = 0, buffered_dsync = 1, direct = 2, direct_dsync = 3 };

/// True for O_DIRECT modes: their sizes, offsets and buffers must be aligned.
PROVPOL_NODISCARD constexpr bool is_direct(io_mode m) noexcept { return (static_cast<unsigned>(m) & 2U) != 0; }
/// True for O_DSYNC modes: every write waits for the device.
PROVPOL_NODISCARD constexpr bool is_dsync(io_mode m) noexcept { return (static_cast<unsigned>(m) & 1U) != 0; }

/// The mode's name as the CLI spells it: "buffered", "buffered-dsync", "direct", "direct-dsync".
PROVPOL_NODISCARD constexpr const char* to_text(io_mode m) noexcept {
    switch (m) {
        case io_mode::buffered:
            return "buffered";
        case io_mode::buffered_dsync:
            return "buffered-dsync";
        case io_mode::direct:
            return "direct";
        case io_mode::direct_dsync:
            return "direct-dsync";
    }
    return "unknown";
}

/// Reads a mode name (see to_text). (A template only so that it is compiled where it is called.)
template <class Deferred = void>
PROVPOL_NODISCARD constexpr result<io_mode> parse_io_mode(text_view text, const char* setting = "mode") noexcept {
    constexpr io_mode modes[] = {io_mode::direct, io_mode::direct_dsync, io_mode::buffered, io_mode::buffered_dsync};
    for (io_mode m : modes)
        if (text == to_text(m)) return m;
    return unexpected(error::unknown_name(setting, text, "direct, direct-dsync, buffered or buffered-dsync"));
}

// --- device limits ----------------------------------------------------------------------------------------------

/// A device's I/O limits, in bytes, as Linux reports them. 0 means unknown (or, for optimal_io_size, none reported).
struct device_limits {
    bytes logical_block_size{};   ///< queue/logical_block_size: the smallest unit the device addresses
    bytes physical_block_size{};  ///< queue/physical_block_size: smaller writes cost a read-modify-write (512e disks)
    bytes minimum_io_size{};      ///< queue/minimum_io_size: e.g. a RAID chunk
    bytes optimal_io_size{};      ///< queue/optimal_io_size: e.g. a RAID stripe width
    bytes max_transfer_size{};    ///< queue/max_sectors_kb * 1024: the largest request the kernel sends at once
    bytes dio_mem_align{};        ///< statx stx_dio_mem_align: O_DIRECT buffer address alignment
    bytes dio_offset_align{};     ///< statx stx_dio_offset_align: O_DIRECT offset and length alignment
    bytes stat_block_size{};      ///< stat st_blksize: the "preferred I/O size" (coreutils' io_blksize reads it)
};

/// The smallest logical block size Linux accepts (blk_validate_block_size: 512, SECTOR_SIZE).
inline constexpr bytes min_logical_block_size = bytes(512);
/// The largest logical block size Linux accepts: BLK_MAX_BLOCK_SIZE, 64 KiB since Linux 6.15 (PAGE_SIZE before).
inline constexpr bytes max_logical_block_size = bytes(std::uint64_t{64} << 10);
/// The floor of every preset: below a 4 KiB page, a buffered write to an uncached page reads the page first, and
/// the Xen-API redo log measurements (2010) showed 4 KiB as "the minimum block size that should be considered".
inline constexpr bytes chunk_floor = bytes(4096);

// --- decisions --------------------------------------------------------------------------------------------------

/// Which step of a chunk policy decided a size.
enum class chunk_step : unsigned char {
    default_size,  ///< the DefaultStep's size, unchanged
    requested,     ///< the caller's requested size (e.g. from calibration), unchanged
    floor,         ///< raised to the floor
    optimal_io,    ///< rounded up to a multiple of the optimal I/O size (and of the granularity)
    alignment,     ///< rounded up to a multiple of the device's granularity
    max_transfer,  ///< capped at the maximum transfer size
};

/// The step's name: "default", "requested", "floor", "optimal_io", "alignment", "max_transfer".
PROVPOL_NODISCARD constexpr const char* to_text(chunk_step s) noexcept {
    switch (s) {
        case chunk_step::default_size:
            return "default";
        case chunk_step::requested:
            return "requested";
        case chunk_step::floor:
            return "floor";
        case chunk_step::optimal_io:
            return "optimal_io";
        case chunk_step::alignment:
            return "alignment";
        case chunk_step::max_transfer:
            return "max_transfer";
    }
    return "unknown";
}

/// A chunk size and the step that decided it.
struct chunk_decision {
    bytes size;             ///< the chunk size: aligned, within [min_chunk, max_chunk]
    chunk_step decided_by;  ///< the last step that changed the size

    friend constexpr bool operator==(const chunk_decision& a, const chunk_decision& b) noexcept {
        return a.size == b.size && a.decided_by == b.decided_by;
    }
    friend constexpr bool operator!=(const chunk_decision& a, const chunk_decision& b) noexcept { return !(a == b); }
};

// --- default steps ----------------------------------------------------------------------------------------------

/// Default step: a constant size (the Xen-API redo log's 16 KiB, qemu-img convert's 2 MiB, ...).
struct fixed_default {
    bytes size;  ///< the size, >= 1 byte

    PROVPOL_NODISCARD constexpr bytes default_size(const device_limits&) const noexcept { return size; }
};

namespace detail {

/// The integer square root: the largest r with r * r <= v, by Newton's iteration from a power of two above sqrt(v)
/// (from above it decreases to the answer and never overshoots).
PROVPOL_NODISCARD constexpr std::uint64_t isqrt(std::uint64_t v) noexcept {
    std::uint64_t r = 1;
    for (std::uint64_t t = v; t != 0; t >>= 2) r <<= 1;  // 2^ceil(bits(v) / 2) > sqrt(v), at most 2^32
    for (;;) {
        const std::uint64_t next = (r + v / r) / 2;
        if (next >= r) return r;
        r = next;
    }
}

/// gnulib's STP_BLKSIZE (stat-size.h) on Linux: st_blksize when it is in (0, SIZE_MAX / 8 + 1], else DEV_BSIZE (512,
/// from <sys/param.h>). coreutils reads st_blksize through it in every release, so an unknown (0) or impossible
/// st_blksize counts as 512 bytes, which every IO_BUFSIZE is a multiple of.
PROVPOL_NODISCARD constexpr std::uint64_t coreutils_stp_blksize(const device_limits& limits) noexcept {
    const std::uint64_t st = limits.stat_block_size.count();
    return st != 0 && st <= (detail::max_u64 >> 3) + 1 ? st : 512;
}

}  // namespace detail

/// Default step: GNU coreutils' io_blksize() (src/ioblksize.h) since coreutils 9.2, which cp, cat and friends use
/// for their buffers: st_blksize (as gnulib's STP_BLKSIZE reads it: 512 when unknown or above 2^61) raised to the
/// smallest multiple of itself that is >= io_bufsize; for a regular file, a result that is not a power of two
/// becomes the next power of two (coreutils' workaround for ZFS understating st_blksize); never above `max_size`:
/// gnulib's SYS_BUFSIZE_MAX (INT_MAX >> 20 << 20, sys-limits.h) since coreutils 9.8, the largest power of two in
/// idx_t, 2^62, from 9.2 to 9.7 (which no st_blksize up to 2^61 reaches).
struct coreutils_io_blksize {
    /// gnulib's SYS_BUFSIZE_MAX: the largest size coreutils 9.8 and later pass to one read or write.
    static constexpr std::uint64_t sys_bufsize_max = (std::uint64_t{0x7fffffff} >> 20) << 20;
    /// MIN (IDX_MAX, SIZE_MAX) / 2 + 1 on a 64-bit system: the cap of coreutils 9.1 to 9.7.
    static constexpr std::uint64_t idx_max_half = std::uint64_t{1} << 62;

    bytes io_bufsize;                         ///< coreutils' IO_BUFSIZE
    bool regular_file = true;                 ///< the file written is a regular file (cp's destination usually is)
    bytes max_size = bytes(sys_bufsize_max);  ///< the release's cap (see above)

    PROVPOL_NODISCARD constexpr bytes default_size(const device_limits& limits) const noexcept {
        const std::uint64_t io = io_bufsize.count();
        if (io == 0) return bytes(0);  // rejected by make(): default_size must be at least 1
        std::uint64_t b = detail::coreutils_stp_blksize(limits);
        b = saturating_add(b, (io - 1) - (io - 1) % b);  // the smallest multiple of b that is >= io
        if (regular_file && !is_power_of_two(b)) {
            std::uint64_t p = 1;
            while (p < b && p <= (std::uint64_t{1} << 61)) p <<= 1;  // coreutils keeps b when 2^k exceeds IDX_MAX
            if (p >= b) b = p;
        }
        return bytes(b < max_size.count() ? b : max_size.count());
    }
};

/// Default step: GNU coreutils' io_blksize() from coreutils 7.2 (2009) to 9.1 (2022): MAX (IO_BUFSIZE,
/// ST_BLKSIZE (sb)), st_blksize as gnulib's STP_BLKSIZE reads it, with no rounding. (9.1 also caps the result at
/// 2^62, which an st_blksize of at most 2^61 never reaches.)
struct coreutils_io_blksize_max {
    bytes io_bufsize;  ///< coreutils' IO_BUFSIZE

    PROVPOL_NODISCARD constexpr bytes default_size(const device_limits& limits) const noexcept {
        const std::uint64_t b = detail::coreutils_stp_blksize(limits);
        return bytes(io_bufsize.count() > b ? io_bufsize.count() : b);
    }
};

/// Default step: rsync's block length for a file (generator.c, sum_sizes_sqroot(), without --block-size): 700
/// bytes (BLOCK_SIZE) up to a 700 * 700 byte file; above it, the square root of the file length rounded down to a
/// multiple of 8, at least 700; once the file reaches max^2 bytes, max itself: MAX_BLOCK_SIZE (128 KiB) since
/// protocol 30 (rsync 3.0), OLD_MAX_BLOCK_SIZE (2^29) before it. The device does not enter: rsync's block length
/// is the unit its checksums cut the file into. rsync cannot transfer a file of 2^63 bytes or more (its length is
/// an int64) or of more than 2^31 - 1 blocks; this step still answers for them (the maximum).
struct rsync_block_length {
    /// BLOCK_SIZE: the smallest block length rsync picks.
    static constexpr std::uint64_t min_length = 700;
    /// MAX_BLOCK_SIZE, the largest block length since protocol 30.
    static constexpr std::uint64_t max_length = std::uint64_t{1} << 17;
    /// OLD_MAX_BLOCK_SIZE, the largest block length before protocol 30.
    static constexpr std::uint64_t old_max_length = std::uint64_t{1} << 29;

    bytes file_length;                ///< the file's length (rsync's `len`)
    bool before_protocol_30 = false;  ///< a transfer with a peer older than rsync 3.0

    PROVPOL_NODISCARD constexpr bytes default_size(const device_limits&) const noexcept {
        const std::uint64_t len = file_length.count();
        const std::uint64_t max = before_protocol_30 ? old_max_length : max_length;
        if (len <= min_length * min_length) return bytes(min_length);
        if (len >= max * max) return bytes(max);  // rsync: the power of two under sqrt(len) is >= max
        const std::uint64_t root = detail::isqrt(len) & ~std::uint64_t{7};
        return bytes(root > min_length ? root : min_length);
    }
};

namespace detail {

template <class S, class = void>
struct has_default_size : detail::false_type {};
template <class S>
struct has_default_size<
    S, detail::void_t<decltype(detail::declval<const S&>().default_size(detail::declval<const device_limits&>()))>>
    : detail::is_same<decltype(detail::declval<const S&>().default_size(detail::declval<const device_limits&>())),
                      bytes> {};

template <class S, bool = has_default_size<S>::value>
struct default_size_is_noexcept : detail::false_type {};
template <class S>
struct default_size_is_noexcept<S, true> : detail::bool_constant<noexcept(detail::declval<const S&>().default_size(
                                               detail::declval<const device_limits&>()))> {};

constexpr std::uint64_t gcd(std::uint64_t a, std::uint64_t b) noexcept {
    while (b != 0) {
        const std::uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

// lcm(a, b) for a, b >= 1, or 0 when it is not representable.
constexpr std::uint64_t lcm_or_zero(std::uint64_t a, std::uint64_t b) noexcept {
    const std::uint64_t q = a / gcd(a, b);
    return q > detail::max_u64 / b ? 0 : q * b;
}

constexpr error conflict(text_view setting, bytes value, static_text relation, static_text other,
                         bytes other_value) noexcept {
    return error::conflict(setting, error_value::of_size(value.count()), relation, other,
                           error_value::of_size(other_value.count()));
}

// A block size that must be 0 or a power of two.
constexpr result<void> check_power_of_two(const char* setting, bytes v) noexcept {
    if (v.count() != 0 && !is_power_of_two(v.count()))
        return unexpected(error::not_a_power_of_two(setting, error_value::of_size(v.count())));
    return {};
}

}  // namespace detail

/// True when S satisfies the DefaultStep contract (see the header comment).
template <class S>
inline constexpr bool is_chunk_default_step_v = detail::has_default_size<S>::value&&
    detail::default_size_is_noexcept<S>::value&& detail::is_trivially_copyable_v<S>;

/// Checks that a device's limits are consistent with each other (0 = unknown passes every check). The same checks
/// run in basic_chunk_policy::make(), which adds those that involve the floor and the mode. (A template only so that
/// it is compiled where it is called: call it as a function.)
template <class Deferred = void>
PROVPOL_NODISCARD constexpr result<void> check_device_limits(const device_limits& l) noexcept {
    using detail::conflict;
    const bytes lbs = l.logical_block_size, pbs = l.physical_block_size, min_io = l.minimum_io_size,
                opt = l.optimal_io_size;
    if (auto r = detail::check_power_of_two("logical_block_size", lbs); !r) return r;
    if (lbs.count() != 0 && (lbs < min_logical_block_size || lbs > max_logical_block_size))
        return unexpected(error::out_of_range("logical_block_size", error_value::of_size(lbs.count()),
                                              error_value::of_size(min_logical_block_size.count()),
                                              error_value::of_size(max_logical_block_size.count())));
    if (auto r = detail::check_power_of_two("physical_block_size", pbs); !r) return r;
    if (pbs.count() != 0 && pbs < min_logical_block_size)
        return unexpected(error::out_of_range("physical_block_size", error_value::of_size(pbs.count()),
                                              error_value::of_size(min_logical_block_size.count()), {}));
    if (pbs.count() != 0 && lbs.count() != 0 && pbs < lbs)
        return unexpected(conflict("physical_block_size", pbs, "must be at least", "logical_block_size", lbs));
    if (min_io.count() != 0) {
        if (lbs.count() != 0 && min_io < lbs)
            return unexpected(conflict("minimum_io_size", min_io, "must be at least", "logical_block_size", lbs));
        if (pbs.count() != 0 && min_io < pbs)
            return unexpected(conflict("minimum_io_size", min_io, "must be at least", "physical_block_size", pbs));
        if (!is_aligned(min_io, lbs))
            return unexpected(conflict("minimum_io_size", min_io, "must be a multiple of", "logical_block_size", lbs));
        if (!is_aligned(min_io, pbs))
            return unexpected(conflict("minimum_io_size", min_io, "must be a multiple of", "physical_block_size", pbs));
    }
    if (opt.count() != 0) {
        if (lbs.count() != 0 && opt < lbs)
            return unexpected(conflict("optimal_io_size", opt, "must be at least", "logical_block_size", lbs));
        if (!is_aligned(opt, lbs))
            return unexpected(conflict("optimal_io_size", opt, "must be a multiple of", "logical_block_size", lbs));
        if (min_io.count() != 0 && opt < min_io)
            return unexpected(conflict("optimal_io_size", opt, "must be at least", "minimum_io_size", min_io));
    }
    // Linux counts I/O in 512-byte sectors: a granularity below one, or not a whole number of them, is not a
    // device's (and would let an O_DIRECT size slip below what the kernel accepts).
    const struct {
        const char* name;
        bytes v;
    } sector_based[] = {
        {"minimum_io_size", min_io}, {"optimal_io_size", opt}, {"dio_offset_align", l.dio_offset_align}};
    for (const auto& g : sector_based)
        if (g.v.count() != 0 && !is_aligned(g.v, min_logical_block_size))
            return unexpected(error::not_a_multiple(g.name, error_value::of_size(g.v.count()),
                                                    error_value::of_size(min_logical_block_size.count())));
    if (auto r = detail::check_power_of_two("dio_mem_align", l.dio_mem_align); !r) return r;
    if (auto r = detail::check_power_of_two("dio_offset_align", l.dio_offset_align); !r) return r;
    const bytes max = l.max_transfer_size;
    if (max.count() != 0) {
        // Every granularity must fit in one transfer, or no aligned chunk exists.
        const struct {
            static_text name;
            bytes v;
        } parts[] = {{"logical_block_size", lbs},
                     {"physical_block_size", pbs},
                     {"minimum_io_size", min_io},
                     {"dio_offset_align", l.dio_offset_align}};
        for (const auto& p : parts)
            if (max < p.v) return unexpected(conflict("max_transfer_size", max, "must be at least", p.name, p.v));
    }
    return {};
}

// --- the policy -------------------------------------------------------------------------------------------------

/// An I/O chunk-size policy for one device and mode: validated once by make(), then decide() is a constexpr,
/// noexcept, allocation-free function of the requested size. See the header comment for the steps and the
/// DefaultStep contract.
template <class DefaultStep>
class basic_chunk_policy {
    static_assert(detail::has_default_size<DefaultStep>::value,
                  "basic_chunk_policy: DefaultStep must provide `bytes default_size(const device_limits&) const`");
    static_assert(detail::default_size_is_noexcept<DefaultStep>::value,
                  "basic_chunk_policy: DefaultStep::default_size must be noexcept");
    static_assert(detail::is_trivially_copyable_v<DefaultStep>,
                  "basic_chunk_policy: DefaultStep must be trivially copyable (a policy is a value)");

public:
    using default_step_type = DefaultStep;

    /// Validates the limits against each other, the floor and the mode, and precomputes the decision's constants.
    /// `floor` must be in [1, 1 GiB].
    // long: one check per limit, each naming its setting, then the decision's constants
    PROVPOL_NODISCARD static constexpr result<basic_chunk_policy> make(const device_limits& limits, io_mode mode,
                                                                       const DefaultStep& step,
                                                                       bytes floor = chunk_floor) noexcept {
        using detail::conflict;
        if (auto r = check_device_limits(limits); !r) return unexpected(r.error());
        constexpr std::uint64_t max_floor = std::uint64_t{1} << 30;
        if (floor.count() == 0 || floor.count() > max_floor)
            return unexpected(error::out_of_range("floor", error_value::of_size(floor.count()), error_value::of_size(1),
                                                  error_value::of_size(max_floor)));
        const bytes def = step.default_size(limits);
        if (def.count() == 0)
            return unexpected(
                error::out_of_range("default_size", error_value::of_size(0), error_value::of_size(1), {}));

        basic_chunk_policy p;
        p.limits_ = limits;
        p.step_ = step;
        p.mode_ = mode;
        p.floor_ = floor.count();
        p.default_ = def.count();

        // The granularity: the least common multiple of every known block-size limit. All but minimum_io_size are
        // powers of two, and check_device_limits made minimum_io_size a multiple of the others, so this cannot
        // overflow; lcm_or_zero keeps that true for any future limit.
        std::uint64_t g = 1;
        const bool direct = is_direct(mode);
        const std::uint64_t parts[] = {limits.logical_block_size.count(), limits.physical_block_size.count(),
                                       limits.minimum_io_size.count(), direct ? limits.dio_offset_align.count() : 0};
        for (std::uint64_t v : parts)
            if (v != 0) g = detail::lcm_or_zero(g, v);
        // O_DIRECT with neither the logical block size nor statx's alignment known: 4 KiB, a multiple of every
        // logical block size in common use (512 and 4096). Buffered writes go through the page cache: a chunk
        // that is not a whole number of 4 KiB pages starts every other write mid-page, and the kernel reads that
        // page first when it is not cached, the cost the floor exists to avoid; so buffered chunks are whole pages,
        // unless the floor itself is below a page: a caller (rsync's preset, whose blocks are 700 bytes and up)
        // that accepts writes smaller than a page has accepted that cost.
        const bool pages = !direct && floor.count() >= chunk_floor.count();
        if ((direct && limits.logical_block_size.count() == 0 && limits.dio_offset_align.count() == 0) || pages)
            g = detail::lcm_or_zero(g, chunk_floor.count());
        if (g == 0)
            return unexpected(error::unsupported("minimum_io_size",
                                                 "has no common multiple with the block sizes below 2^64",
                                                 error_value::of_size(limits.minimum_io_size.count())));
        p.granularity_ = g;

        // One alignment step: to the optimal I/O size and the granularity together where the device reports an
        // optimal size (a multiple of both), to the granularity otherwise.
        std::uint64_t unit = g;
        p.unit_step_ = chunk_step::alignment;
        if (limits.optimal_io_size.count() != 0) {
            unit = detail::lcm_or_zero(limits.optimal_io_size.count(), g);
            if (unit == 0)
                return unexpected(error::unsupported("optimal_io_size",
                                                     "has no common multiple with the device's granularity below 2^64",
                                                     error_value::of_size(limits.optimal_io_size.count())));
            p.unit_step_ = chunk_step::optimal_io;
        }
        p.unit_ = unit;
        p.unit_mask_ = is_power_of_two(unit) ? unit - 1 : 0;
        p.unit_is_power_of_two_ = is_power_of_two(unit);
        p.top_ = align_down(detail::max_u64, unit);

        // The range every decision lands in: [floor rounded up to the granularity, max transfer rounded down].
        const std::uint64_t max = limits.max_transfer_size.count();
        p.lo_ = align_up(floor.count(), g);
        p.hi_ = align_down(max != 0 ? max : detail::max_u64, g);
        if (max != 0 && max < floor.count())
            return unexpected(
                conflict("max_transfer_size", limits.max_transfer_size, "must be at least", "the floor", floor));
        if (p.hi_ < p.lo_)
            return unexpected(conflict("max_transfer_size", limits.max_transfer_size, "must be at least",
                                       "the floor rounded up to the device's granularity", bytes(p.lo_)));

        // The buffer alignment O_DIRECT needs: statx's memory alignment, else the logical block size, else 4 KiB.
        std::uint64_t mem = 1;
        if (direct) {
            mem = limits.dio_mem_align.count() != 0        ? limits.dio_mem_align.count()
                  : limits.logical_block_size.count() != 0 ? limits.logical_block_size.count()
                                                           : chunk_floor.count();
        }
        p.buffer_alignment_ = mem;
        return p;
    }

    /// The chunk size for a requested size (0: the default step's). Steps: default, floor, alignment (optimal
    /// I/O), max transfer; the result is a multiple of granularity() (and of the optimal I/O size unless the cap
    /// decided), within [min_chunk(), max_chunk()]. Requests near 2^64 saturate, they never wrap.
    PROVPOL_NODISCARD constexpr chunk_decision decide(bytes requested = bytes()) const noexcept {
        std::uint64_t v = requested.count();
        chunk_step by = chunk_step::requested;
        if (v == 0) {
            v = default_;
            by = chunk_step::default_size;
        }
        if (v < floor_) {
            v = floor_;
            by = chunk_step::floor;
        }
        const std::uint64_t rem = unit_is_power_of_two_ ? (v & unit_mask_) : v % unit_;
        if (rem != 0) {
            const std::uint64_t up = unit_ - rem;  // v + up is the next multiple of unit_; top_ is the last one
            v = v > top_ - up ? top_ : v + up;
            by = unit_step_;
        }
        if (v > hi_) {
            v = hi_;
            by = chunk_step::max_transfer;
        }
        return {bytes(v), by};
    }

    /// The limits the policy was made for.
    PROVPOL_NODISCARD constexpr const device_limits& limits() const noexcept { return limits_; }
    /// The default step.
    PROVPOL_NODISCARD constexpr const DefaultStep& default_step() const noexcept { return step_; }
    /// The I/O mode.
    PROVPOL_NODISCARD constexpr io_mode mode() const noexcept { return mode_; }
    /// The default step's size for these limits (before the floor, alignment and cap).
    PROVPOL_NODISCARD constexpr bytes default_size() const noexcept { return bytes(default_); }
    /// The floor.
    PROVPOL_NODISCARD constexpr bytes floor() const noexcept { return bytes(floor_); }
    /// Every chunk is a multiple of this: the lcm of the known block sizes, minimum I/O and (O_DIRECT) statx's
    /// offset alignment; 4 KiB for O_DIRECT when neither the logical block size nor statx's alignment is known;
    /// whole 4 KiB pages for buffered I/O when the floor is at least a page.
    PROVPOL_NODISCARD constexpr bytes granularity() const noexcept { return bytes(granularity_); }
    /// The alignment step's unit: lcm(optimal I/O size, granularity()) where an optimal size is reported.
    PROVPOL_NODISCARD constexpr bytes alignment_unit() const noexcept { return bytes(unit_); }
    /// The smallest chunk any decision returns: the floor rounded up to granularity().
    PROVPOL_NODISCARD constexpr bytes min_chunk() const noexcept { return bytes(lo_); }
    /// The largest chunk any decision returns: the maximum transfer rounded down to granularity().
    PROVPOL_NODISCARD constexpr bytes max_chunk() const noexcept { return bytes(hi_); }
    /// The memory alignment the I/O buffer needs (posix_memalign): for O_DIRECT statx's memory alignment, else the
    /// logical block size, else 4 KiB; 1 for buffered I/O.
    PROVPOL_NODISCARD constexpr bytes buffer_alignment() const noexcept { return bytes(buffer_alignment_); }

private:
    constexpr basic_chunk_policy() noexcept = default;

    device_limits limits_{};
    DefaultStep step_{};
    std::uint64_t default_ = 0;
    std::uint64_t floor_ = 0;
    std::uint64_t granularity_ = 1;
    std::uint64_t unit_ = 1;
    std::uint64_t unit_mask_ = 0;
    std::uint64_t top_ = 0;
    std::uint64_t lo_ = 0;
    std::uint64_t hi_ = 0;
    std::uint64_t buffer_alignment_ = 1;
    io_mode mode_ = io_mode::buffered;
    chunk_step unit_step_ = chunk_step::alignment;
    bool unit_is_power_of_two_ = true;
};

/// The policy with a constant default: what most callers and the fixed-size presets use.
using chunk_policy = basic_chunk_policy<fixed_default>;

}  // namespace provpol

#endif  // PROVPOL_CHUNK_POLICY_HPP
