// provpol/extend/lvm.hpp - LVM2's autoextend decision, exact to lvm2 2.03: usage in libdm's units
// (lvm_usage), the amount rule (lvm_adjust_amount), the configuration as lvm.conf is read
// (lvm_autoextend_config: thin pools, VDO pools, snapshots), the whole lvextend --use-policies decision for a
// volume (decide_lvm_autoextend, with the thin pool's metadata) and the fewest used blocks that trigger it
// (lvm_trigger_blocks). The same rule as extend_policy steps, and its presets, are extend/lvm_steps.hpp's. The
// usage and amount in lvm2's units are lvm_usage.hpp's, the configuration lvm_config.hpp's (this header includes
// both).
//
// Sources (lvm2 2.03.16, Debian 12's; the functions named are the ones each rule reproduces):
//   libdm/libdm-report.c     dm_make_percent: used / total in units of 1e-6 %, through a double, truncated;
//                            only used == total is 100%, and a nonzero ratio is never 0%.
//   lib/metadata/lv_manip.c  _adjust_amount: nothing unless 50% < usage <= 100% and usage > threshold; the
//                            amount is max(percent, ceil(100 x usage / threshold) - 100) (lvm2 commit 40eea582a,
//                            2015). _lvresize_adjust_policy: a threshold under 50 counts as 50, 100 or more
//                            disables, percent 0 fails; the metadata threshold is min(policy, the metadata
//                            minimum) and its amount gets one percent more. _lvresize_prepare: VDO grows by at
//                            least max(one slab, 128 MiB + 128 KiB) in whole extents; a snapshot's COW no
//                            further than cow_max_extents; metadata no further than the maximum metadata size;
//                            growing the data grows the metadata to 64 bytes per data chunk.
//   lib/misc/lvm-percent.c   percent_of_extents: (percent x extents + 99) / 100 in 64 bits, kept in 32.
//   lib/metadata/thin_manip.c pool_metadata_min_threshold: 100% - min(25%, 4 MiB of the metadata LV).
//   lib/config/defaults.h    DEFAULT_THIN_POOL_AUTOEXTEND_THRESHOLD 100, _PERCENT 20 (and the same for VDO pools
//                            and snapshots), DEFAULT_THIN_POOL_CHUNK_SIZE 64 KiB, DEFAULT_EXTENT_SIZE 4 MiB,
//                            DEFAULT_THIN_POOL_MAX_METADATA_SIZE_V1_KB (the metadata maximum without cropping).
// When dmeventd runs the decision (the low-water event, the 10 s poll and its 5% steps) is simulate/lvm_pool.hpp's.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_EXTEND_LVM_HPP
#define PROVPOL_EXTEND_LVM_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../result.hpp"
#include "lvm_config.hpp"  // IWYU pragma: export
#include "lvm_usage.hpp"   // IWYU pragma: export
#include "policy.hpp"

#include <cstdint>

namespace provpol {

// ============================================================================================================
// The decision lvextend --use-policies takes

/// What lvm2 sees of a volume when dmeventd runs lvextend --use-policies on it.
struct lvm_volume_state {
    bytes size;                    ///< the LV's size now (the pool's data LV; whole extents)
    blocks used{};                 ///< blocks in use: the pool's used data blocks (dmsetup status)
    blocks total{};                ///< blocks in all; 0 means size / pool chunk, rounded down (the kernel's)
    bytes vg_free = bytes::max();  ///< the VG's free space (an lvextend it cannot satisfy fails whole)
    bytes metadata_size{};         ///< thin pools: the metadata LV's size (0: not checked)
    blocks metadata_used{};        ///< thin pools: used metadata blocks (of 4 KiB)
    blocks metadata_total{};       ///< thin pools: metadata blocks in all
    bytes cow_max = bytes::max();  ///< snapshots: the largest useful COW (lvm2's cow_max_extents)

    /// A thin pool of `size` whose data holds `allocated` bytes: used blocks are allocated / chunk, rounded up
    /// (a block is taken whole), total blocks size / chunk, rounded down.
    PROVPOL_NODISCARD static constexpr lvm_volume_state thin(bytes size, bytes allocated, bytes pool_chunk,
                                                             bytes vg_free = bytes::max()) noexcept {
        lvm_volume_state s{};
        s.size = size;
        s.used = blocks_in(allocated, pool_chunk, rounding::up);
        s.total = blocks_in(size, pool_chunk, rounding::down);
        s.vg_free = vg_free;
        return s;
    }
};

/// How an lvextend --use-policies ends.
enum class lvm_outcome : unsigned char {
    none = 0,                ///< usage at or under the threshold (or 50%): nothing to do, success
    extend = 1,              ///< the volume (and perhaps its metadata) grows
    disabled = 2,            ///< threshold 100 or more: nothing to do, success
    fails_percent_zero = 3,  ///< percent 0: lvm2 logs "Can't extend ... autoextend percent set to 0%" and fails
    fails_vg_space = 4,      ///< the VG has fewer free extents than the extend needs: it fails whole
    fails_extent_limit = 5,  ///< the new size would pass 2^32 - 1 extents: lvm2 refuses ("exceeds limit")
};

/// "none", "extend", "disabled", "fails-percent-zero", "fails-vg-space", "fails-extent-limit".
PROVPOL_NODISCARD constexpr const char* to_text(lvm_outcome o) noexcept {
    switch (o) {
        case lvm_outcome::none:
            return "none";
        case lvm_outcome::extend:
            return "extend";
        case lvm_outcome::disabled:
            return "disabled";
        case lvm_outcome::fails_percent_zero:
            return "fails-percent-zero";
        case lvm_outcome::fails_vg_space:
            return "fails-vg-space";
        case lvm_outcome::fails_extent_limit:
            return "fails-extent-limit";
    }
    return "unknown";
}
/// True for the outcomes where lvextend exits non-zero (dmeventd then backs off).
PROVPOL_NODISCARD constexpr bool failed(lvm_outcome o) noexcept {
    return o == lvm_outcome::fails_percent_zero || o == lvm_outcome::fails_vg_space ||
           o == lvm_outcome::fails_extent_limit;
}

/// Every output of one lvextend --use-policies.
struct lvm_autoextend_decision {
    std::int32_t usage;                  ///< data usage, 1e-6 % units (lvm_usage)
    std::uint32_t amount;                ///< percent of the LV the data grows by (0: it does not)
    std::uint64_t add_extents;           ///< extents the data grows by
    bytes new_size;                      ///< the LV's size after the command (its size now when nothing grows)
    std::int32_t metadata_usage;         ///< thin: metadata usage (0 when not checked)
    std::uint32_t metadata_threshold;    ///< thin: the whole-percent threshold metadata is held to
    std::uint32_t metadata_amount;       ///< thin: percent the metadata grows by, its extra 1 included (0: none)
    std::uint64_t metadata_add_extents;  ///< thin: extents the metadata LV grows by (by policy or with the data)
    bytes metadata_new_size;             ///< thin: the metadata LV's size after the command
    bytes vg_needed;                     ///< VG space the command allocates (data and metadata)
    lvm_outcome outcome;                 ///< how the command ends (see lvm_outcome)

    /// True when the threshold was passed (the data or, for a thin pool, the metadata).
    PROVPOL_NODISCARD constexpr bool needs_extend() const noexcept { return amount != 0 || metadata_amount != 0; }
};

namespace detail {
// lvm2's limits: MAX_EXTENT_COUNT (UINT32_MAX) and, without metadata cropping (lvm.conf
// allocation/thin_pool_crop_metadata = 0, the default), DEFAULT_THIN_POOL_MAX_METADATA_SIZE_V1_KB.
constexpr std::uint64_t lvm_max_extent_count = 0xffffffffu;
constexpr std::uint64_t lvm_max_metadata_bytes = std::uint64_t{255} * ((1u << 14) - 64) * 4 * 1024;

// pool_metadata_min_threshold() / DM_PERCENT_1: the whole percent of the metadata LV that must stay free, 100% -
// min(25%, 4 MiB of it), truncated.
constexpr std::uint32_t lvm_metadata_min_threshold(bytes metadata_size) noexcept {
    const std::int32_t four_mib = lvm_usage(std::uint64_t{8192}, metadata_size.count() / 512);  // in sectors
    const std::int32_t free = four_mib < 25 * lvm_percent_1 ? four_mib : 25 * lvm_percent_1;
    return static_cast<std::uint32_t>((lvm_percent_100 - free) / lvm_percent_1);
}

// Extents of `size`, rounded up (an LV is whole extents; a partial one is counted whole), kept in 32 bits.
constexpr std::uint64_t lvm_extents(bytes size, bytes extent) noexcept { return divide(size, extent, rounding::up); }
}  // namespace detail

namespace detail {
// Step 2 for a thin pool's metadata: its usage, the threshold it is held to (min(threshold, the metadata
// minimum)) and its amount, one percent more when nonzero.
constexpr void lvm_metadata_amount(const lvm_autoextend_config& c, const lvm_volume_state& s, std::uint32_t threshold,
                                   lvm_autoextend_decision& d) noexcept {
    d.metadata_usage = lvm_usage(s.metadata_used, s.metadata_total);
    const std::uint32_t min_threshold = lvm_metadata_min_threshold(s.metadata_size);
    d.metadata_threshold = min_threshold < threshold ? min_threshold : threshold;
    d.metadata_amount =
        lvm_adjust_amount(d.metadata_usage, lvm_threshold(d.metadata_threshold), lvm_percent(c.extend_percent()));
    if (d.metadata_amount != 0) ++d.metadata_amount;
}

// Step 3's extents to add for `amount` percent of `le` extents; a VDO pool at least max(one slab,
// 128 MiB + 128 KiB), in whole extents when larger than one extent.
constexpr std::uint64_t lvm_data_add(const lvm_autoextend_config& c, std::uint32_t amount, std::uint64_t le) noexcept {
    std::uint64_t add = lvm_percent_of_extents(amount, static_cast<std::uint32_t>(le));
    if (c.kind() == lvm_volume_kind::vdo_pool) {
        const std::uint64_t e = c.extent().count();
        const std::uint64_t slab_kib = c.vdo_slab().count() >> 10;
        const std::uint64_t min_bytes = (slab_kib > 128 * 1024 + 128 ? slab_kib : 128 * 1024 + 128) * 1024;
        if (min_bytes > e) {
            const std::uint64_t min_le = divide(min_bytes, e, rounding::up);
            if (min_le > add) add = min_le;
        }
    }
    return add;
}

// Step 4: the metadata LV's extents after the command, from `mle` now (within the extent limit), the data's `le`
// before and `new_le` after.
constexpr std::uint64_t lvm_metadata_new_extents(const lvm_autoextend_config& c, const lvm_volume_state& s,
                                                 const lvm_autoextend_decision& d, std::uint64_t mle, std::uint64_t le,
                                                 std::uint64_t new_le) noexcept {
    const bytes e = c.extent();
    const std::uint64_t max_mle = divide(lvm_max_metadata_bytes, e.count(), rounding::up);
    std::uint64_t new_mle = mle;
    if (d.metadata_amount != 0 && d.amount != 0) {
        // Both grow: lvm2 resizes the metadata as an auxiliary LV whose percent it clears
        // (_lvresize_setup_aux sets PERCENT_NONE), so the amount is taken as extents, not as a percent.
        new_mle = mle + d.metadata_amount;
    } else if (d.metadata_amount != 0) {
        new_mle = mle + lvm_percent_of_extents(d.metadata_amount, static_cast<std::uint32_t>(mle));
    } else if (new_le > le) {
        // 64 bytes of metadata per data chunk (_estimate_metadata_size), in sectors, then whole extents.
        const std::uint64_t want_sectors = new_le * (e.count() / 512) / ((c.pool_chunk().count() / 512) * (512 / 64));
        if (want_sectors * 512 > s.metadata_size.count()) new_mle = divide(want_sectors * 512, e.count(), rounding::up);
    }
    if (new_mle > max_mle) new_mle = max_mle;
    if (new_mle < mle) new_mle = mle;
    return new_mle;
}
}  // namespace detail

/// The decision lvextend --use-policies takes for a volume (lvm2's _lvresize_adjust_policy, then the
/// preparation of the resize), total over every input:
/// 1. threshold 100 or more: disabled; percent 0: fails (before usage is read);
/// 2. the data amount from usage (lvm_adjust_amount); for a thin pool with metadata given, the metadata amount
///    against min(threshold, the metadata minimum), plus one when nonzero;
/// 3. the data grows by percent_of_extents(amount, extents) extents; a VDO pool by at least max(one slab,
///    128 MiB + 128 KiB) in whole extents; a snapshot's COW no further than cow_max (nothing if already there);
/// 4. a thin pool's metadata grows by its own amount, as a percent of its extents when it grows alone and as a
///    number of extents when the data grows too (lvm2 clears the auxiliary LV's percent), capped at the maximum
///    metadata size; or else, when the data grows, to 64 bytes per data chunk of the new size if that is more;
/// 5. the command fails whole if the VG lacks the space or the size would pass 2^32 - 1 extents.
PROVPOL_NODISCARD constexpr lvm_autoextend_decision decide_lvm_autoextend(const lvm_autoextend_config& c,
                                                                          const lvm_volume_state& s) noexcept {
    lvm_autoextend_decision d{};
    d.new_size = s.size;
    d.metadata_new_size = s.metadata_size;
    const bool thin = c.kind() == lvm_volume_kind::thin_pool;
    const blocks total = s.total.count() != 0 ? s.total : blocks_in(s.size, c.pool_chunk(), rounding::down);
    d.usage = lvm_usage(s.used, total);
    if (!c.enabled()) {
        d.outcome = lvm_outcome::disabled;
        return d;
    }
    if (c.extend_percent() == 0) {
        d.outcome = lvm_outcome::fails_percent_zero;
        return d;
    }
    const std::uint32_t threshold = c.threshold_percent();
    const bool metadata = thin && s.metadata_size.count() != 0;
    if (metadata) detail::lvm_metadata_amount(c, s, threshold, d);
    d.amount = lvm_adjust_amount(d.usage, lvm_threshold(threshold), lvm_percent(c.extend_percent()));
    if (d.amount == 0 && d.metadata_amount == 0) {
        d.outcome = lvm_outcome::none;
        return d;
    }

    const bytes e = c.extent();
    const std::uint64_t le = detail::lvm_extents(s.size, e);
    if (le > detail::lvm_max_extent_count) {  // not an LV lvm2 can hold
        d.outcome = lvm_outcome::fails_extent_limit;
        return d;
    }
    std::uint64_t new_le = le;
    if (d.amount != 0) {
        const std::uint64_t add = detail::lvm_data_add(c, d.amount, le);
        if (add >= detail::lvm_max_extent_count - le) {
            d.outcome = lvm_outcome::fails_extent_limit;
            return d;
        }
        new_le = le + add;
        if (c.kind() == lvm_volume_kind::snapshot) {
            const std::uint64_t cap = divide(s.cow_max, e, rounding::up);
            if (cap < new_le) new_le = cap < le ? le : cap;
        }
        d.add_extents = new_le - le;
    }
    std::uint64_t meta_add = 0;
    if (metadata) {
        const std::uint64_t mle = detail::lvm_extents(s.metadata_size, e);
        if (mle > detail::lvm_max_extent_count) {
            d.outcome = lvm_outcome::fails_extent_limit;
            d.metadata_new_size = s.metadata_size;
            return d;
        }
        const std::uint64_t new_mle = detail::lvm_metadata_new_extents(c, s, d, mle, le, new_le);
        meta_add = new_mle - mle;
        d.metadata_add_extents = meta_add;
        d.metadata_new_size = bytes(saturating_mul(new_mle, e.count()));
    }
    d.vg_needed = bytes(saturating_mul(d.add_extents + meta_add, e.count()));
    if (d.add_extents + meta_add == 0) {
        d.outcome = lvm_outcome::none;  // a snapshot at its useful maximum, metadata at its maximum
        d.metadata_new_size = s.metadata_size;
        return d;
    }
    if (d.vg_needed > s.vg_free) {
        d.outcome = lvm_outcome::fails_vg_space;
        d.metadata_new_size = s.metadata_size;
        return d;
    }
    d.new_size = bytes(saturating_mul(new_le, e.count()));
    d.outcome = lvm_outcome::extend;
    return d;
}

/// The fewest used blocks of `total_blocks` at which lvm2 extends: the smallest u with lvm_usage(u, total) above
/// `threshold`% (a whole percent; under 50 counts as 50); total + 1 when none (total 0, or a threshold of 100 or
/// more). Both counts are blocks of the pool's chunk. In exact arithmetic that is ceil(total x (threshold x 10^6 + 1) /
/// 10^8), computed exactly (ratio_of); the double lvm2 goes through can move the boundary by a block or two, so the
/// candidate is then stepped to where lvm_usage itself crosses, with a binary search as the bound should the steps not
/// settle.
PROVPOL_NODISCARD constexpr blocks lvm_trigger_blocks(blocks total_blocks, std::uint32_t threshold) noexcept {
    const std::uint64_t total = total_blocks.count();
    if (total == 0 || threshold >= 100) return total_blocks + blocks(1);  // saturating
    const std::uint32_t t = threshold < 50 ? 50 : threshold;
    const std::int32_t limit = static_cast<std::int32_t>(t) * lvm_percent_1;
    std::uint64_t u = ratio_of(total, t * 1000000u + 1u, 100000000u, rounding::up);
    if (u > total) u = total;
    for (int step = 0; step < 8; ++step) {
        if (u > 1 && lvm_usage(u - 1, total) > limit) {
            --u;
        } else if (lvm_usage(u, total) <= limit) {
            ++u;
        } else {
            return blocks(u);
        }
    }
    std::uint64_t lo = 0, hi = total;  // usage(total) = 100% > limit; the first u in (lo, hi] above it
    while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        if (lvm_usage(mid, total) > limit)
            hi = mid;
        else
            lo = mid;
    }
    return blocks(hi);
}

}  // namespace provpol

#endif  // PROVPOL_EXTEND_LVM_HPP
