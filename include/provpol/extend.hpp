// provpol/extend.hpp - the thin-volume extend decision: when to extend a thin volume (a qcow2 image on an
// LVM logical volume, or an LVM thin pool) and to what size.
//
// An agent feeds what libvirt reports for a drive (capacity = virtual size, physical = LV size,
// allocation = highest written offset) and gets back every decision oVirt VDSM takes today, computed as
// VDSM computes it: the block threshold to register, whether to extend, the next size, the LV size after
// lvextend's extent rounding, the threshold to register after the extend, the maximum size and the size of
// a new disk. The same policy template, with other steps, decides an LVM thin pool's autoextend.
//
// A policy is extend_policy<Trigger, Growth, Limits>, each step a small value type:
//
//   Trigger  when to extend.
//     constexpr bytes limit(const drive_state&, bytes chunk) const noexcept
//         the free-space limit: the drive needs an extend when physical - allocation < limit;
//     constexpr bool improbable(const drive_state&, bytes next_size) const noexcept
//         true when the reported allocation cannot be real (the agent pauses instead of extending).
//   Growth   how much to add.
//     constexpr bytes chunk(const drive_state&) const noexcept
//         the amount the next extend adds (before rounding and the maximum);
//     constexpr bytes initial_size(bytes capacity) const noexcept
//         the size of a new, empty volume before extent rounding.
//   Limits   the storage's rules.
//     constexpr bytes max_size(bytes capacity) const noexcept          the largest size an extend may request;
//     constexpr bytes max_size_storage(bytes capacity) const noexcept  the same, rounded as the storage creates it;
//     constexpr bytes request(bytes physical, bytes chunk) const noexcept
//         the size requested for physical + chunk (before the maximum);
//     constexpr bytes lv_size(bytes requested) const noexcept          the LV size the storage makes of a request.
//
// Every step function is constexpr, noexcept and total over all inputs (sizes saturate near 2^64, never wrap).
// Configurations are validated once, by make(); deciding cannot fail.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_EXTEND_HPP
#define PROVPOL_EXTEND_HPP

#include "bytes.hpp"
#include "config.hpp"
#include "result.hpp"

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace provpol {

/// What an agent knows about one drive when it decides.
struct drive_state {
    bytes capacity;  ///< the virtual size the guest sees (qcow2 virtual size; for a thin pool, the most it may grow to)
    bytes physical;  ///< the size of the logical volume now
    bytes allocation;                 ///< the highest offset written (libvirt's allocation, QEMU's wr_highest_offset)
    bool replicating = false;         ///< the drive is being copied (live storage migration): VDSM doubles the chunk
    bool threshold_exceeded = false;  ///< a block-threshold event arrived since the last extend
    rate write_rate{};                ///< the observed write rate (0: unknown); static steps ignore it
};

/// What the agent should do now.
enum class extend_action : unsigned char {
    none = 0,              ///< enough free space: only keep the block threshold registered
    extend = 1,            ///< request an extend to next_size
    at_maximum = 2,        ///< the volume is at its maximum: no request; monitoring can stop until a resize
    pause_improbable = 3,  ///< the allocation cannot be real: pause the guest instead of extending (VDSM, BZ#998443)
};

/// Every output of one decision.
struct extend_decision {
    bytes chunk;                 ///< the amount an extend adds now (doubled while replicating, for VDSM)
    bytes limit;                 ///< the free-space limit: extend when physical - allocation < limit
    bytes block_threshold;       ///< the threshold to register now: max(1, physical - limit); 0 means "clear"
    bool needs_extend;           ///< physical - allocation < limit (allocation above physical counts as no free space)
    bool improbable_allocation;  ///< the reported allocation cannot be real
    bool can_extend;             ///< physical < max_size
    bytes max_size;              ///< the largest size an extend may request
    bytes next_size;             ///< the size to request: min(request(physical, chunk), max_size)
    bytes lv_size_after_extend;  ///< what the storage makes of next_size (LVM extent rounding)
    bytes next_block_threshold;  ///< the threshold to register after the extend, from the real LV size
    bytes max_size_storage;      ///< the maximum as the storage creates volumes (rounded to the extent)
    bytes initial_size;          ///< the LV size of a new empty volume
    extend_action action;        ///< what to do now (see extend_action)

    friend constexpr bool operator==(const extend_decision& a, const extend_decision& b) noexcept {
        return a.chunk == b.chunk && a.limit == b.limit && a.block_threshold == b.block_threshold &&
               a.needs_extend == b.needs_extend && a.improbable_allocation == b.improbable_allocation &&
               a.can_extend == b.can_extend && a.max_size == b.max_size && a.next_size == b.next_size &&
               a.lv_size_after_extend == b.lv_size_after_extend && a.next_block_threshold == b.next_block_threshold &&
               a.max_size_storage == b.max_size_storage && a.initial_size == b.initial_size && a.action == b.action;
    }
    friend constexpr bool operator!=(const extend_decision& a, const extend_decision& b) noexcept { return !(a == b); }
};

/// The name of an action, for logs and the CLI ("none", "extend", "at-maximum", "pause-improbable").
PROVPOL_NODISCARD constexpr const char* to_string(extend_action a) noexcept {
    switch (a) {
        case extend_action::none:
            return "none";
        case extend_action::extend:
            return "extend";
        case extend_action::at_maximum:
            return "at-maximum";
        case extend_action::pause_improbable:
            return "pause-improbable";
    }
    return "unknown";
}

/// The block threshold for a volume of `physical` bytes and a free-space limit: max(1, physical - limit).
/// 1 is the smallest meaningful threshold; 0 is reserved for clearing the threshold (QEMU and libvirt).
PROVPOL_NODISCARD constexpr bytes block_threshold(bytes physical, bytes limit) noexcept {
    return max(bytes(1), saturating_sub(physical, limit));
}

namespace detail {

// Power-of-two alignment used on the decision path: one add and one mask, saturating at the top.
constexpr std::uint64_t align_up_pow2(std::uint64_t v, std::uint64_t a) noexcept {
    const std::uint64_t mask = a - 1;
    return v > ~std::uint64_t{0} - mask ? (~std::uint64_t{0} & ~mask) : (v + mask) & ~mask;
}

// floor(capacity * 11 / 10) for every uint64_t, saturating: with c = 10q + r, 11c/10 = 11q + r + r/10 and
// r/10 = 0, so the result is c + q. Rounded up to a MiB as VDSM does, this equals VDSM's float arithmetic,
// utils.round(capacity * 1.1, MiB), for every capacity below 465 TiB: the two can differ only where the exact
// 11c/10 lies a few tenths below a MiB multiple and the float product rounds up past it, and the first such
// capacity is 511772687788219 bytes (2^48.86; tests/extend_test.cpp searches the candidates and checks it).
// Above it provpol keeps the exact value.
constexpr std::uint64_t qcow2_overhead(std::uint64_t capacity) noexcept {
    return saturating_add(capacity, capacity / 10);
}

// VDSM's order (virt/thinp.py, _should_extend_volume): at the maximum nothing is requested; after a threshold
// event the drive is extended whatever the allocation says (libvirt may still report the old value);
// otherwise an improbable allocation pauses the VM, and low free space extends. Written as selects on small
// integers so that compilers emit conditional moves, not branches on data.
constexpr extend_action extend_action_of(bool can_extend, bool threshold_exceeded, bool improbable,
                                         bool needs_extend) noexcept {
    unsigned a = (needs_extend ? 1u : 0u) | (improbable ? 3u : 0u);  // improbable ? 3 : needs_extend
    a = threshold_exceeded ? 1u : a;
    a = can_extend ? a : 2u;
    return static_cast<extend_action>(a);
}

}  // namespace detail

// ============================================================================================================
// oVirt VDSM steps

/// VDSM's [irs] volume_utilization_chunk_mb and volume_utilization_percent, validated, with the derived
/// free-space limits precomputed so that deciding costs no division.
class vdsm_config {
public:
    /// The largest chunk accepted, in MiB (1 PiB): keeps the doubled chunk and every sum far from 2^64.
    static constexpr std::uint64_t max_chunk_mb = std::uint64_t{1} << 30;

    /// Validates VDSM's two settings. The LVM extent (128 MiB in oVirt block storage domains) is the unit
    /// lvextend rounds to.
    PROVPOL_NODISCARD static constexpr result<vdsm_config> make(std::uint64_t chunk_mb, std::uint64_t percent,
                                                                bytes extent = bytes(std::uint64_t{128}
                                                                                     << 20)) noexcept {
        if (chunk_mb < 1 || chunk_mb > max_chunk_mb)
            return unexpected(error::out_of_range("volume_utilization_chunk_mb", error_value::of(chunk_mb),
                                                  error_value::of(1), error_value::of(max_chunk_mb)));
        if (percent > 99)
            return unexpected(error::out_of_range("volume_utilization_percent", error_value::of(percent),
                                                  error_value::of(0), error_value::of(99)));
        if (!is_power_of_two(extent.count()))
            return unexpected(error::not_a_power_of_two("extent_size", error_value::of_size(extent.count())));
        if (extent.count() < (std::uint64_t{1} << 20) || extent.count() > (std::uint64_t{1} << 34))
            return unexpected(error::out_of_range("extent_size", error_value::of_size(extent.count()),
                                                  error_value::of_size(std::uint64_t{1} << 20),
                                                  error_value::of_size(std::uint64_t{1} << 34)));
        return vdsm_config(chunk_mb, static_cast<std::uint32_t>(percent), extent);
    }
    /// The same, from a chunk in bytes (which must be a whole number of MiB, as VDSM's setting is).
    PROVPOL_NODISCARD static constexpr result<vdsm_config> make_bytes(bytes chunk, std::uint64_t percent,
                                                                      bytes extent = bytes(std::uint64_t{128}
                                                                                           << 20)) noexcept {
        if (chunk.count() < (std::uint64_t{1} << 20) || chunk.count() > (max_chunk_mb << 20))
            return unexpected(error::out_of_range("volume_utilization_chunk", error_value::of_size(chunk.count()),
                                                  error_value::of_size(std::uint64_t{1} << 20),
                                                  error_value::of_size(max_chunk_mb << 20)));
        if (chunk.count() % (std::uint64_t{1} << 20) != 0)
            return unexpected(error::not_a_multiple("volume_utilization_chunk", error_value::of_size(chunk.count()),
                                                    error_value::of_size(std::uint64_t{1} << 20)));
        return make(chunk.count() >> 20, percent, extent);
    }

    PROVPOL_NODISCARD constexpr std::uint64_t chunk_mb() const noexcept { return chunk_.count() >> 20; }
    PROVPOL_NODISCARD constexpr std::uint32_t percent() const noexcept { return percent_; }
    PROVPOL_NODISCARD constexpr bytes extent() const noexcept { return extent_; }
    /// The configured chunk (a new disk's size, and the extend step when not replicating).
    PROVPOL_NODISCARD constexpr bytes chunk() const noexcept { return chunk_; }
    /// The chunk used now: doubled while the drive is being copied (VDSM's VOLWM_CHUNK_REPLICATE_MULT = 2).
    PROVPOL_NODISCARD constexpr bytes chunk(bool replicating) const noexcept { return chunks_[replicating ? 1 : 0]; }
    /// VDSM's watermarkLimit: (100 - percent) * chunk // 100, of the chunk used now.
    PROVPOL_NODISCARD constexpr bytes limit(bool replicating) const noexcept { return limits_[replicating ? 1 : 0]; }

    friend constexpr bool operator==(const vdsm_config& a, const vdsm_config& b) noexcept {
        return a.chunk_ == b.chunk_ && a.percent_ == b.percent_ && a.extent_ == b.extent_;
    }
    friend constexpr bool operator!=(const vdsm_config& a, const vdsm_config& b) noexcept { return !(a == b); }

private:
    constexpr vdsm_config(std::uint64_t chunk_mb, std::uint32_t percent, bytes extent) noexcept
        : chunk_(chunk_mb << 20),
          chunks_{bytes(chunk_mb << 20), bytes(chunk_mb << 21)},
          limits_{ratio_of(bytes(chunk_mb << 20), 100 - percent, 100, rounding::down),
                  ratio_of(bytes(chunk_mb << 21), 100 - percent, 100, rounding::down)},
          extent_(extent),
          percent_(percent) {}

    bytes chunk_;
    // Indexed by `replicating`: a decision selects with one indexed load instead of a branch.
    bytes chunks_[2];
    bytes limits_[2];
    bytes extent_;
    std::uint32_t percent_;
};

/// VDSM's trigger: extend when free space falls under the watermark limit; an allocation above the next
/// size is improbable (VDSM pauses the VM: BZ#998443).
struct vdsm_trigger {
    vdsm_config config;

    PROVPOL_NODISCARD constexpr bytes limit(const drive_state& d, bytes /*chunk*/) const noexcept {
        return config.limit(d.replicating);
    }
    PROVPOL_NODISCARD constexpr bool improbable(const drive_state& d, bytes next_size) const noexcept {
        return d.allocation > next_size;
    }
};

/// VDSM's growth: one chunk (doubled while replicating); a new disk gets min(chunk, capacity).
struct vdsm_growth {
    vdsm_config config;

    PROVPOL_NODISCARD constexpr bytes chunk(const drive_state& d) const noexcept { return config.chunk(d.replicating); }
    PROVPOL_NODISCARD constexpr bytes initial_size(bytes capacity) const noexcept {
        return min(config.chunk(), capacity);
    }
};

/// oVirt's limits for qcow2 on LVM: a 1.1 overhead factor for qcow2 metadata (VDSM's VOLWM_COW_OVERHEAD),
/// requests rounded up to 1 MiB (drive.getNextVolumeSize), LVs rounded up to the VG extent by lvextend.
struct qcow2_lvm_limits {
    bytes extent = bytes(std::uint64_t{128} << 20);  ///< a power of two (checked by vdsm_config::make)

    /// roundup(floor(capacity * 1.1), 1 MiB): VDSM's drive.getMaxVolumeSize.
    PROVPOL_NODISCARD constexpr bytes max_size(bytes capacity) const noexcept {
        return bytes(detail::align_up_pow2(detail::qcow2_overhead(capacity.count()), std::uint64_t{1} << 20));
    }
    /// roundup(floor(capacity * 1.1), extent): the maximum as the storage side creates volumes.
    PROVPOL_NODISCARD constexpr bytes max_size_storage(bytes capacity) const noexcept {
        return bytes(detail::align_up_pow2(detail::qcow2_overhead(capacity.count()), extent.count()));
    }
    /// roundup(physical + chunk, 1 MiB).
    PROVPOL_NODISCARD constexpr bytes request(bytes physical, bytes chunk) const noexcept {
        return bytes(detail::align_up_pow2(saturating_add(physical.count(), chunk.count()), std::uint64_t{1} << 20));
    }
    /// roundup(requested, extent): what lvextend makes of a request.
    PROVPOL_NODISCARD constexpr bytes lv_size(bytes requested) const noexcept {
        return bytes(detail::align_up_pow2(requested.count(), extent.count()));
    }
};

// ============================================================================================================
// LVM2 thin-pool autoextend steps

/// lvm.conf's activation/thin_pool_autoextend_threshold and thin_pool_autoextend_percent, validated.
class lvm_thin_config {
public:
    /// Validates the two settings: threshold in [50, 100] (100 disables autoextend), percent in [1, 1000],
    /// extent a power of two in [1 KiB, 16 GiB]. Use from_lvm_conf to read values as LVM itself does.
    PROVPOL_NODISCARD static constexpr result<lvm_thin_config> make(std::uint64_t threshold_percent,
                                                                    std::uint64_t extend_percent,
                                                                    bytes extent = bytes(std::uint64_t{4}
                                                                                         << 20)) noexcept {
        if (threshold_percent < 50 || threshold_percent > 100)
            return unexpected(error::out_of_range("thin_pool_autoextend_threshold", error_value::of(threshold_percent),
                                                  error_value::of(50), error_value::of(100)));
        if (extend_percent < 1 || extend_percent > 1000)
            return unexpected(error::out_of_range("thin_pool_autoextend_percent", error_value::of(extend_percent),
                                                  error_value::of(1), error_value::of(1000)));
        if (!is_power_of_two(extent.count()))
            return unexpected(error::not_a_power_of_two("extent_size", error_value::of_size(extent.count())));
        if (extent.count() < 1024 || extent.count() > (std::uint64_t{1} << 34))
            return unexpected(error::out_of_range("extent_size", error_value::of_size(extent.count()),
                                                  error_value::of_size(1024),
                                                  error_value::of_size(std::uint64_t{1} << 34)));
        return lvm_thin_config(static_cast<std::uint32_t>(threshold_percent),
                               static_cast<std::uint32_t>(extend_percent), extent);
    }
    /// As dmeventd reads lvm.conf: a threshold below 50 counts as 50, above 100 as 100 (disabled).
    PROVPOL_NODISCARD static constexpr result<lvm_thin_config> from_lvm_conf(std::uint64_t threshold_percent,
                                                                             std::uint64_t extend_percent,
                                                                             bytes extent = bytes(std::uint64_t{4}
                                                                                                  << 20)) noexcept {
        const std::uint64_t t = threshold_percent < 50 ? 50 : (threshold_percent > 100 ? 100 : threshold_percent);
        return make(t, extend_percent, extent);
    }

    PROVPOL_NODISCARD constexpr std::uint32_t threshold_percent() const noexcept { return threshold_; }
    PROVPOL_NODISCARD constexpr std::uint32_t extend_percent() const noexcept { return percent_; }
    PROVPOL_NODISCARD constexpr bytes extent() const noexcept { return extent_; }
    /// False when the threshold is 100: LVM never autoextends.
    PROVPOL_NODISCARD constexpr bool enabled() const noexcept { return threshold_ < 100; }

private:
    constexpr lvm_thin_config(std::uint32_t threshold, std::uint32_t percent, bytes extent) noexcept
        : extent_(extent), threshold_(threshold), percent_(percent) {}

    bytes extent_;
    std::uint32_t threshold_;
    std::uint32_t percent_;
};

/// LVM's trigger: extend when data usage is above threshold percent of the pool (lvresize --use-policies
/// acts when percent > policy_threshold). In free-space terms the limit is physical - floor(physical *
/// threshold / 100), exact for integer allocations. A thin pool cannot hold more data than its size, so an
/// allocation above physical is the improbable case.
struct lvm_thin_trigger {
    lvm_thin_config config;

    PROVPOL_NODISCARD constexpr bytes limit(const drive_state& d, bytes /*chunk*/) const noexcept {
        if (!config.enabled()) return bytes(0);
        return saturating_sub(d.physical, ratio_of(d.physical, config.threshold_percent(), 100, rounding::down));
    }
    PROVPOL_NODISCARD constexpr bool improbable(const drive_state& d, bytes /*next_size*/) const noexcept {
        return d.allocation > d.physical;
    }
};

/// LVM's growth: percent of the current size in whole extents, rounded up (lvresize's percent_of_extents
/// with roundup), and at least one extent (a pool is never empty; this keeps the policy total at size 0).
/// A new pool is created at its full requested size, rounded to the extent.
struct lvm_thin_growth {
    lvm_thin_config config;

    PROVPOL_NODISCARD constexpr bytes chunk(const drive_state& d) const noexcept {
        const std::uint64_t e = config.extent().count();
        const std::uint64_t extents = divide(d.physical.count(), e, rounding::up);
        const std::uint64_t add = ratio_of(extents, config.extend_percent(), 100, rounding::up);
        return bytes(saturating_mul(add == 0 ? 1 : add, e));
    }
    PROVPOL_NODISCARD constexpr bytes initial_size(bytes capacity) const noexcept { return capacity; }
};

/// LVM's limits for a thin pool: requests and LVs in whole extents, never beyond `capacity` (the most the
/// pool may grow to, e.g. the volume group's size).
struct lvm_pool_limits {
    bytes extent = bytes(std::uint64_t{4} << 20);  ///< a power of two (checked by lvm_thin_config::make)

    PROVPOL_NODISCARD constexpr bytes max_size(bytes capacity) const noexcept { return align_down(capacity, extent); }
    PROVPOL_NODISCARD constexpr bytes max_size_storage(bytes capacity) const noexcept {
        return align_down(capacity, extent);
    }
    PROVPOL_NODISCARD constexpr bytes request(bytes physical, bytes chunk) const noexcept {
        return bytes(detail::align_up_pow2(saturating_add(physical.count(), chunk.count()), extent.count()));
    }
    PROVPOL_NODISCARD constexpr bytes lv_size(bytes requested) const noexcept {
        return bytes(detail::align_up_pow2(requested.count(), extent.count()));
    }
};

// ============================================================================================================
// The policy template

namespace detail {

template <class T, class = void>
struct has_limit : std::false_type {};
template <class T>
struct has_limit<T, std::enable_if_t<std::is_same_v<
                        decltype(std::declval<const T&>().limit(std::declval<const drive_state&>(), bytes())), bytes>>>
    : std::true_type {};
template <class T, class = void>
struct has_improbable : std::false_type {};
template <class T>
struct has_improbable<
    T, std::enable_if_t<std::is_same_v<
           decltype(std::declval<const T&>().improbable(std::declval<const drive_state&>(), bytes())), bool>>>
    : std::true_type {};
template <class T, class = void>
struct has_chunk : std::false_type {};
template <class T>
struct has_chunk<T, std::enable_if_t<std::is_same_v<
                        decltype(std::declval<const T&>().chunk(std::declval<const drive_state&>())), bytes>>>
    : std::true_type {};
template <class T, class = void>
struct has_initial_size : std::false_type {};
template <class T>
struct has_initial_size<
    T, std::enable_if_t<std::is_same_v<decltype(std::declval<const T&>().initial_size(bytes())), bytes>>>
    : std::true_type {};
template <class T, class = void>
struct has_limits_api : std::false_type {};
template <class T>
struct has_limits_api<
    T, std::enable_if_t<std::is_same_v<decltype(std::declval<const T&>().max_size(bytes())), bytes> &&
                        std::is_same_v<decltype(std::declval<const T&>().max_size_storage(bytes())), bytes> &&
                        std::is_same_v<decltype(std::declval<const T&>().request(bytes(), bytes())), bytes> &&
                        std::is_same_v<decltype(std::declval<const T&>().lv_size(bytes())), bytes>>> : std::true_type {
};

// True for the steps of vdsm_policy and lvm_thin_policy, whose decisions have fast paths
// (extend_policy::decide).
template <class Trigger, class Growth, class Limits>
constexpr bool is_vdsm_steps = std::is_same_v<Trigger, vdsm_trigger>&& std::is_same_v<Growth, vdsm_growth>&&
    std::is_same_v<Limits, qcow2_lvm_limits>;
template <class Trigger, class Growth, class Limits>
constexpr bool is_lvm_thin_steps = std::is_same_v<Trigger, lvm_thin_trigger>&& std::is_same_v<Growth, lvm_thin_growth>&&
    std::is_same_v<Limits, lvm_pool_limits>;

// Inputs below 2^63 keep every sum of the VDSM fast path below 2^64: the largest is
// capacity + capacity / 10 + (extent - 1) < 0.55 * 2^64 + 2^62, with the extent at most 2^62.
constexpr unsigned vdsm_fast_bits = 63;
// Inputs below 2^53 keep every intermediate of the LVM fast path below 2^60: physical * threshold percent
// (<= 100), and the chunk, at most 10 * physical + 11 extents (percent <= 1000, extent <= 2^34).
constexpr unsigned lvm_thin_fast_bits = 53;

// The limits' extent mask for a policy's fast path: extent - 1 when the fast path is exact with that extent,
// and 2^63 otherwise, so that the fast path's guard, which ORs the mask with the inputs, always fails and the
// saturating steps decide. The configurations are valid by construction; the limits' extent is a plain
// member, so it is the one checked: VDSM's fast path takes any extent in [1, 2^62], LVM's a power of two up
// to 2^34 (its steps round down with a remainder, which a mask equals only for powers of two).
template <class Trigger, class Growth, class Limits>
constexpr std::uint64_t fast_extent_mask(const Limits& limits) noexcept {
    const std::uint64_t e = limits.extent.count();
    if constexpr (is_vdsm_steps<Trigger, Growth, Limits>) {
        if (e >= 1 && e <= (std::uint64_t{1} << 62)) return e - 1;
    } else if constexpr (is_lvm_thin_steps<Trigger, Growth, Limits>) {
        if (is_power_of_two(e) && e <= (std::uint64_t{1} << 34)) return e - 1;
    }
    return std::uint64_t{1} << 63;
}

// log2 of LVM's growth extent (a power of two by lvm_thin_config::make), for the fast path's shifts.
template <class Growth>
constexpr unsigned growth_extent_shift(const Growth& growth) noexcept {
    unsigned k = 0;
    if constexpr (std::is_same_v<Growth, lvm_thin_growth>) {
        while ((std::uint64_t{1} << k) < growth.config.extent().count()) ++k;
    }
    return k;
}

}  // namespace detail

/// A thin-volume extend policy composed of a trigger (when), a growth (how much) and limits (the storage's
/// rounding and maximum). A small regular value: copy it freely; deciding is a pure function.
template <class Trigger, class Growth, class Limits>
class extend_policy {
    static_assert(
        detail::has_limit<Trigger>::value,
        "extend_policy: Trigger must provide constexpr bytes limit(const drive_state&, bytes chunk) const noexcept");
    static_assert(detail::has_improbable<Trigger>::value,
                  "extend_policy: Trigger must provide constexpr bool improbable(const drive_state&, bytes next_size) "
                  "const noexcept");
    static_assert(detail::has_chunk<Growth>::value,
                  "extend_policy: Growth must provide constexpr bytes chunk(const drive_state&) const noexcept");
    static_assert(detail::has_initial_size<Growth>::value,
                  "extend_policy: Growth must provide constexpr bytes initial_size(bytes capacity) const noexcept");
    static_assert(
        detail::has_limits_api<Limits>::value,
        "extend_policy: Limits must provide max_size, max_size_storage, request and lv_size (see extend.hpp)");

public:
    using trigger_type = Trigger;
    using growth_type = Growth;
    using limits_type = Limits;

    constexpr extend_policy(Trigger trigger, Growth growth, Limits limits) noexcept
        : trigger_(trigger),
          growth_(growth),
          limits_(limits),
          extent_mask_(detail::fast_extent_mask<Trigger, Growth, Limits>(limits)),
          extent_align_(~extent_mask_),
          growth_shift_(detail::growth_extent_shift(growth)) {}

    PROVPOL_NODISCARD constexpr const Trigger& trigger() const noexcept { return trigger_; }
    PROVPOL_NODISCARD constexpr const Growth& growth() const noexcept { return growth_; }
    PROVPOL_NODISCARD constexpr const Limits& limits() const noexcept { return limits_; }

    /// Every decision for one drive. Total: any uint64_t sizes, allocation above physical, capacity 0.
    PROVPOL_NODISCARD constexpr extend_decision decide(const drive_state& d) const noexcept {
        if constexpr (detail::is_vdsm_steps<Trigger, Growth, Limits>) {
            // VDSM's policy decides every drive an agent watches, every few seconds: sizes below 2^63 take a
            // branch-free path without saturation checks; the rest take the saturating steps.
            const std::uint64_t any = d.capacity.count() | d.physical.count() | d.allocation.count() | extent_mask_;
            if (PROVPOL_LIKELY((any >> detail::vdsm_fast_bits) == 0)) return decide_vdsm_fast(d);
            return decide_cold(d);
        } else if constexpr (detail::is_lvm_thin_steps<Trigger, Growth, Limits>) {
            // The same for LVM's thin-pool autoextend, below 2^53 (8 PiB).
            const std::uint64_t any = d.capacity.count() | d.physical.count() | d.allocation.count() | extent_mask_;
            if (PROVPOL_LIKELY((any >> detail::lvm_thin_fast_bits) == 0)) return decide_lvm_thin_fast(d);
            return decide_cold(d);
        } else {
            return decide_steps(d);
        }
    }

    /// The LV size of a new empty volume: the growth's initial size, rounded by the storage.
    PROVPOL_NODISCARD constexpr bytes initial_size(bytes capacity) const noexcept {
        return limits_.lv_size(growth_.initial_size(capacity));
    }

    /// The block threshold for a volume of `physical` bytes (register it after every extend, from the real
    /// LV size the storage reports, not the requested size).
    PROVPOL_NODISCARD constexpr bytes threshold_for(const drive_state& d) const noexcept {
        return block_threshold(d.physical, trigger_.limit(d, growth_.chunk(d)));
    }

private:
    // The decision as the steps define it, with saturating arithmetic: the reference for every fast path.
    PROVPOL_NODISCARD constexpr extend_decision decide_steps(const drive_state& d) const noexcept {
        extend_decision out{};
        out.chunk = growth_.chunk(d);
        out.limit = trigger_.limit(d, out.chunk);
        out.block_threshold = block_threshold(d.physical, out.limit);
        // physical - allocation < limit, with allocation above physical meaning no free space at all.
        out.needs_extend = d.allocation > d.physical || d.physical.count() - d.allocation.count() < out.limit.count();
        out.max_size = limits_.max_size(d.capacity);
        out.can_extend = d.physical < out.max_size;
        out.next_size = min(limits_.request(d.physical, out.chunk), out.max_size);
        out.improbable_allocation = trigger_.improbable(d, out.next_size);
        out.lv_size_after_extend = limits_.lv_size(out.next_size);
        out.next_block_threshold = block_threshold(out.lv_size_after_extend, out.limit);
        out.max_size_storage = limits_.max_size_storage(d.capacity);
        out.initial_size = initial_size(d.capacity);
        out.action =
            detail::extend_action_of(out.can_extend, d.threshold_exceeded, out.improbable_allocation, out.needs_extend);
        return out;
    }

    // The saturating path of a policy with a fast path, out of line so that decide() inlines.
    PROVPOL_NODISCARD PROVPOL_COLD constexpr extend_decision decide_cold(const drive_state& d) const noexcept {
        return decide_steps(d);
    }

    // decide_steps() for VDSM's steps, when capacity, physical and allocation are below 2^63 and the extent
    // is in [1, 2^62] (extent_mask_ < 2^62): then no sum below reaches 2^64 (chunk <= 2^51 and limit <= chunk
    // by vdsm_config::make; see detail::vdsm_fast_bits), so every saturating step reduces to plain arithmetic,
    // and every output equals decide_steps()'s (tests/extend_fast_test.cpp compares them).
    PROVPOL_NODISCARD constexpr extend_decision decide_vdsm_fast(const drive_state& d) const noexcept {
        constexpr std::uint64_t mib_mask = (std::uint64_t{1} << 20) - 1;
        const std::uint64_t c = d.capacity.count();
        const std::uint64_t p = d.physical.count();
        const std::uint64_t a = d.allocation.count();
        const std::uint64_t e = extent_mask_;
        const std::uint64_t not_e = extent_align_;
        const std::uint64_t chunk = growth_.config.chunk(d.replicating).count();
        const std::uint64_t limit = trigger_.config.limit(d.replicating).count();
        const std::uint64_t overhead = c + c / 10;  // qcow2_overhead without saturation
        extend_decision out{};
        out.chunk = bytes(chunk);
        out.limit = bytes(limit);
        out.block_threshold = bytes(p > limit ? p - limit : 1);
        out.needs_extend = p < a + limit;  // a > p, or p - a < limit
        out.max_size = bytes((overhead + mib_mask) & ~mib_mask);
        out.can_extend = p < out.max_size.count();
        const std::uint64_t request = (p + chunk + mib_mask) & ~mib_mask;
        const std::uint64_t next = request < out.max_size.count() ? request : out.max_size.count();
        out.next_size = bytes(next);
        out.improbable_allocation = a > next;
        const std::uint64_t lv = (next + e) & not_e;
        out.lv_size_after_extend = bytes(lv);
        out.next_block_threshold = bytes(lv > limit ? lv - limit : 1);
        out.max_size_storage = bytes((overhead + e) & not_e);
        const std::uint64_t base = growth_.config.chunk().count();
        out.initial_size = bytes(((c < base ? c : base) + e) & not_e);
        out.action =
            detail::extend_action_of(out.can_extend, d.threshold_exceeded, out.improbable_allocation, out.needs_extend);
        return out;
    }

    // decide_steps() for LVM's steps, when capacity, physical and allocation are below 2^53 and the limits'
    // extent is a power of two up to 2^34 (extent_mask_ < 2^34): no intermediate reaches 2^60 (see
    // detail::lvm_thin_fast_bits), so the saturating steps reduce to plain arithmetic, and:
    //   limit = physical - floor(physical * threshold / 100), so physical - limit = that floor (q): the block
    //   threshold is max(q, 1), and physical - allocation < limit is q < allocation (limit <= physical); with
    //   threshold 100 (disabled) q = physical and limit = 0, as the step says;
    //   the request and the maximum are multiples of the extent, so the LV after the extend is the next size.
    // Every output equals decide_steps()'s (tests/extend_fast_test.cpp compares them).
    PROVPOL_NODISCARD constexpr extend_decision decide_lvm_thin_fast(const drive_state& d) const noexcept {
        const std::uint64_t c = d.capacity.count();
        const std::uint64_t p = d.physical.count();
        const std::uint64_t a = d.allocation.count();
        const std::uint64_t e = extent_mask_;
        const std::uint64_t not_e = extent_align_;
        const lvm_thin_config& grow = growth_.config;
        const std::uint64_t extents = (p + grow.extent().count() - 1) >> growth_shift_;  // ceil(p / extent)
        const std::uint64_t add = (extents * grow.extend_percent() + 99) / 100;          // ceil(extents * % / 100)
        const std::uint64_t chunk = (add + (add == 0 ? 1 : 0)) << growth_shift_;         // at least one extent
        const std::uint64_t q = p * trigger_.config.threshold_percent() / 100;           // floor(p * threshold / 100)
        const std::uint64_t limit = p - q;
        extend_decision out{};
        out.chunk = bytes(chunk);
        out.limit = bytes(limit);
        out.block_threshold = bytes(q + (q == 0 ? 1 : 0));  // max(q, 1)
        out.needs_extend = q < a;
        out.max_size = bytes(c & not_e);
        out.can_extend = p < out.max_size.count();
        const std::uint64_t request = (p + chunk + e) & not_e;
        const std::uint64_t next = request < out.max_size.count() ? request : out.max_size.count();
        out.next_size = bytes(next);
        out.improbable_allocation = a > p;
        out.lv_size_after_extend = bytes(next);
        out.next_block_threshold = bytes(next > limit ? next - limit : 1);
        out.max_size_storage = out.max_size;
        out.initial_size = bytes((c + e) & not_e);
        out.action =
            detail::extend_action_of(out.can_extend, d.threshold_exceeded, out.improbable_allocation, out.needs_extend);
        return out;
    }

    Trigger trigger_;
    Growth growth_;
    Limits limits_;
    std::uint64_t extent_mask_;   // limits_.extent - 1 for the fast path, or 2^63 (see detail::fast_extent_mask)
    std::uint64_t extent_align_;  // ~extent_mask_
    unsigned growth_shift_;       // log2 of LVM's growth extent (detail::growth_extent_shift); 0 for others
};

/// oVirt VDSM's policy type.
using vdsm_policy = extend_policy<vdsm_trigger, vdsm_growth, qcow2_lvm_limits>;
/// LVM2 thin-pool autoextend's policy type.
using lvm_thin_policy = extend_policy<lvm_thin_trigger, lvm_thin_growth, lvm_pool_limits>;

/// A VDSM policy from a validated configuration.
PROVPOL_NODISCARD constexpr vdsm_policy make_vdsm_policy(const vdsm_config& c) noexcept {
    return vdsm_policy(vdsm_trigger{c}, vdsm_growth{c}, qcow2_lvm_limits{c.extent()});
}
/// An LVM thin-pool autoextend policy from a validated configuration.
PROVPOL_NODISCARD constexpr lvm_thin_policy make_lvm_thin_policy(const lvm_thin_config& c) noexcept {
    return lvm_thin_policy(lvm_thin_trigger{c}, lvm_thin_growth{c}, lvm_pool_limits{c.extent()});
}

// ============================================================================================================
// Presets

/// oVirt VDSM 4.50 (2022, BZ#2051997): volume_utilization_chunk_mb = 2560, volume_utilization_percent = 20:
/// extend by 2.5 GiB when free space falls under 2048 MiB; a new empty disk takes 2.5 GiB.
PROVPOL_NODISCARD constexpr vdsm_policy vdsm_2022() noexcept {
    return make_vdsm_policy(vdsm_config::make(2560, 20).value());
}

/// oVirt VDSM before 4.50: volume_utilization_chunk_mb = 1024, volume_utilization_percent = 50: extend by
/// 1 GiB when free space falls under 512 MiB; a new empty disk takes 1 GiB.
PROVPOL_NODISCARD constexpr vdsm_policy vdsm_legacy() noexcept {
    return make_vdsm_policy(vdsm_config::make(1024, 50).value());
}

/// LVM2's lvm.conf example values for thin-pool autoextend (activation/thin_pool_autoextend_threshold = 70,
/// activation/thin_pool_autoextend_percent = 20) with LVM's default 4 MiB extent. (LVM ships 100, disabled.)
PROVPOL_NODISCARD constexpr lvm_thin_policy lvm_thin_autoextend() noexcept {
    return make_lvm_thin_policy(lvm_thin_config::make(70, 20).value());
}

// ============================================================================================================
// Creating volumes with an explicit initial size

/// A new volume's size when the caller asks for an explicit initial size (VDSM's
/// calculate_volume_alloc_size for sparse volumes): floor(initial * 1.1) for qcow2 metadata, rejected when
/// above the storage-side maximum for the capacity. Returns the LV size (rounded up to the extent).
PROVPOL_NODISCARD constexpr result<bytes> initial_size_for(const qcow2_lvm_limits& limits, bytes capacity,
                                                           bytes requested) noexcept {
    const bytes with_overhead(detail::qcow2_overhead(requested.count()));
    const bytes maximum = limits.max_size_storage(capacity);
    if (with_overhead > maximum)
        return unexpected(error::out_of_range("initial_size", error_value::of_size(requested.count()),
                                              error_value::of_size(0),
                                              error_value::of_size(ratio_of(maximum.count(), 10, 11, rounding::down))));
    return limits.lv_size(with_overhead);
}

/// True when an extend succeeded: the LV is at least the requested size (VDSM's _verify_volume_extension).
PROVPOL_NODISCARD constexpr bool extend_succeeded(bytes requested, bytes lv_size) noexcept {
    return lv_size >= requested;
}

// ============================================================================================================
// Batch decisions

/// Flags of one batch decision (extend_batch_output::flags).
enum extend_flags : std::uint8_t {
    extend_flag_needs_extend = 1,
    extend_flag_improbable = 2,
    extend_flag_can_extend = 4,
};

/// Structure-of-arrays input: n drives, not replicating, no pending threshold event.
struct extend_batch_input {
    const std::uint64_t* capacity;
    const std::uint64_t* physical;
    const std::uint64_t* allocation;
    std::size_t size;
};

/// Structure-of-arrays output, one element per input drive.
struct extend_batch_output {
    std::uint64_t* block_threshold;
    std::uint64_t* next_size;
    std::uint8_t* flags;
};

namespace detail {

// True in a constant expression: the batch kernels (not constexpr: they keep an uninitialised scratch array)
// are skipped there. Without the builtin every drive goes through decide(), which is always right.
constexpr bool constant_evaluated() noexcept {
#if defined(__GNUC__) || defined(__clang__) || (defined(_MSC_VER) && _MSC_VER >= 1925)
    return __builtin_is_constant_evaluated();
#else
    return true;
#endif
}

// One drive of a batch, through decide().
template <class Policy>
constexpr void decide_batch_one(const Policy& policy, const extend_batch_input& in, const extend_batch_output& out,
                                std::size_t i) noexcept {
    const extend_decision r =
        policy.decide(drive_state{bytes(in.capacity[i]), bytes(in.physical[i]), bytes(in.allocation[i])});
    out.block_threshold[i] = r.block_threshold.count();
    out.next_size[i] = r.next_size.count();
    out.flags[i] = static_cast<std::uint8_t>((r.needs_extend ? extend_flag_needs_extend : 0) |
                                             (r.improbable_allocation ? extend_flag_improbable : 0) |
                                             (r.can_extend ? extend_flag_can_extend : 0));
}

// VDSM's batch works in blocks of 32 drives: a fixed trip count, which GCC's -O2 vectoriser (the "very
// cheap" cost model, which accepts a loop only when the vector code replaces all of it) takes, and a whole
// number of 16- and 32-byte vectors of one-byte flags.
constexpr std::size_t vdsm_batch_block = 32;
// The block path is exact when every capacity, physical and allocation of the block is below 2^47 (128 TiB);
// other blocks are decided drive by drive (see vdsm_batch_lanes).
constexpr unsigned vdsm_batch_bits = 47;

// decide() of VDSM's steps for 32 drives that are not replicating and have no threshold event, with
// chunk <= 2^50 and limit <= chunk (vdsm_config::make). Returns false, and the outputs are meaningless, when
// an input of the block is 2^47 (128 TiB) or more: the caller then decides the block drive by drive. Checking
// inside the loop (an OR of the inputs it loads anyway) instead of in a pass before it is 20% faster with AVX2.
//
// Written in the operations SSE2 has for every lane (64-bit add, subtract, shift, and; 32-bit compare;
// int32 <-> double), with no branch; differences are taken modulo 2^64 or 2^32 and their sign bit read:
//   block threshold  max(physical - limit, 1), with the sign of the difference as the select;
//   needs extend     physical - limit < allocation, the sign of (physical - limit) - allocation;
//   max size         in MiB: ceil(floor(11 capacity / 10) / 2^20) = floor(z / 10) with
//                    z = floor((11 capacity + 10 * 2^20 - 10) / 2^20) < 2^31; floor(z / 10) is the truncated
//                    double product z * 0.1: the double nearest 0.1 is above 0.1 and the product's error is
//                    below 1e-7, so an exact quotient k is never computed below k and a quotient k + j/10
//                    (j >= 1) never reaches k + 1, in every rounding mode;
//   next size        min(ceil((physical + chunk) / 2^20), max) MiB (chunk is whole MiB);
//   can extend       physical < max size, i.e. floor(physical / 2^20) < max MiB;
//   improbable       allocation > next size, i.e. ceil(allocation / 2^20) > next MiB.
// Below 2^47 every MiB count fits in 31 bits, so the 32-bit differences' signs are the comparisons. The flags
// are built in 32-bit lanes and narrowed to bytes once, after the loop.
PROVPOL_MODULAR_ARITHMETIC PROVPOL_ALWAYS_INLINE bool vdsm_batch_lanes(std::uint64_t chunk, std::uint64_t limit,
                                                                       const std::uint64_t* PROVPOL_RESTRICT capacity,
                                                                       const std::uint64_t* PROVPOL_RESTRICT physical,
                                                                       const std::uint64_t* PROVPOL_RESTRICT allocation,
                                                                       std::uint64_t* PROVPOL_RESTRICT threshold,
                                                                       std::uint64_t* PROVPOL_RESTRICT next_size,
                                                                       std::uint8_t* PROVPOL_RESTRICT flags) noexcept {
    constexpr std::uint64_t mib_mask = (std::uint64_t{1} << 20) - 1;
    constexpr std::uint64_t max_size_bias = (std::uint64_t{10} << 20) - 10;
    const std::uint64_t request_bias = chunk + mib_mask;
    std::uint64_t any = 0;
    std::uint32_t bits[vdsm_batch_block];  // every element is written below; not zeroed (no rep stos per block)
    for (std::size_t i = 0; i < vdsm_batch_block; ++i) {
        const std::uint64_t c = capacity[i];
        const std::uint64_t p = physical[i];
        const std::uint64_t a = allocation[i];
        any |= c | p | a;
        const std::uint64_t free_limit = p - limit;  // physical - limit; the sign bit says physical < limit
        const std::uint64_t below = free_limit - 1;
        threshold[i] = (below & ((below >> 63) - 1)) + 1;
        const std::uint32_t needs = static_cast<std::uint32_t>((free_limit - a) >> 63);
        const std::int32_t z = static_cast<std::int32_t>(static_cast<std::uint32_t>((11 * c + max_size_bias) >> 20));
        const std::int32_t max_mib = static_cast<std::int32_t>(static_cast<double>(z) * 0.1);
        const std::int32_t request_mib =
            static_cast<std::int32_t>(static_cast<std::uint32_t>((p + request_bias) >> 20));
        const std::int32_t next_mib = request_mib < max_mib ? request_mib : max_mib;
        next_size[i] = static_cast<std::uint64_t>(static_cast<std::uint32_t>(next_mib)) << 20;
        const std::uint32_t physical_mib = static_cast<std::uint32_t>(p >> 20);
        const std::uint32_t allocation_mib = static_cast<std::uint32_t>((a + mib_mask) >> 20);
        bits[i] = needs | (((static_cast<std::uint32_t>(next_mib) - allocation_mib) >> 31) << 1) |
                  (((physical_mib - static_cast<std::uint32_t>(max_mib)) >> 31) << 2);
    }
    for (std::size_t i = 0; i < vdsm_batch_block; ++i) flags[i] = static_cast<std::uint8_t>(bits[i]);
    return (any >> vdsm_batch_bits) == 0;
}

// Decides the whole blocks of a VDSM batch and returns how many drives that is.
template <class Policy>
PROVPOL_ALWAYS_INLINE std::size_t vdsm_batch_blocks(const Policy& policy, const extend_batch_input& in,
                                                    const extend_batch_output& out) noexcept {
    const std::uint64_t chunk = policy.growth().config.chunk().count();
    const std::uint64_t limit = policy.trigger().config.limit(false).count();
    std::size_t i = 0;
    for (; in.size - i >= vdsm_batch_block; i += vdsm_batch_block) {
        if (PROVPOL_UNLIKELY(!vdsm_batch_lanes(chunk, limit, in.capacity + i, in.physical + i, in.allocation + i,
                                               out.block_threshold + i, out.next_size + i, out.flags + i))) {
            for (std::size_t j = i; j < i + vdsm_batch_block; ++j) decide_batch_one(policy, in, out, j);
        }
    }
    return i;
}

// On x86 with GCC or Clang, unless the whole program is already built for AVX2, the same blocks are also
// compiled for AVX2 (four 64-bit lanes per vector instead of SSE2's two, three-operand instructions) and chosen
// at run time when the CPU has AVX2: at g++ -O2 the SSE2 blocks cost 28.5 instructions per drive, about 1.9x a
// memcpy of the same bytes, and the AVX2 ones 15.0, about 1.4x (bench/README.md).
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__)) && !defined(__AVX2__)
/// Defined when decide_batch has an AVX2 build of VDSM's blocks, chosen at run time (x86, GCC or Clang).
#define PROVPOL_EXTEND_BATCH_AVX2 1
template <class Policy>
__attribute__((target("avx2"))) std::size_t vdsm_batch_blocks_avx2(const Policy& policy, const extend_batch_input& in,
                                                                   const extend_batch_output& out) noexcept {
    return vdsm_batch_blocks(policy, in, out);
}
inline bool cpu_has_avx2() noexcept { return __builtin_cpu_supports("avx2"); }
#endif

}  // namespace detail

/// Decides n drives at once: element i of the output is decide() of drive i (threshold, next size and the
/// three flags). The arrays must not overlap. VDSM's policy decides in vectorised blocks of 32 drives (see
/// detail::vdsm_batch_lanes; with AVX2 where the CPU has it); other policies, blocks with a size of 128 TiB
/// or more, the last n % 32 drives, and every drive in a constant expression are decided drive by drive.
template <class Policy>
constexpr void decide_batch(const Policy& policy, const extend_batch_input& in,
                            const extend_batch_output& out) noexcept {
    std::size_t i = 0;
    if constexpr (std::is_same_v<Policy, vdsm_policy>) {
        if (!detail::constant_evaluated()) {
#ifdef PROVPOL_EXTEND_BATCH_AVX2
            if (detail::cpu_has_avx2())
                i = detail::vdsm_batch_blocks_avx2(policy, in, out);
            else
#endif
                i = detail::vdsm_batch_blocks(policy, in, out);
        }
    }
    for (; i < in.size; ++i) detail::decide_batch_one(policy, in, out, i);
}

}  // namespace provpol

#endif  // PROVPOL_EXTEND_HPP
