// provpol/extend_lvm.hpp - LVM2's thin-pool autoextend as extend_policy steps: lvm.conf's
// activation/thin_pool_autoextend_threshold and thin_pool_autoextend_percent (lvm_thin_config), the steps that
// play all three roles of extend_policy.hpp (lvm_thin_steps, with a fast path), and the preset
// lvm_thin_autoextend.
//
// Sources: lvm2 daemons/dmeventd/plugins/thin/dmeventd_thin.c (the threshold clamp and the policy check) and
// tools/lvresize.c (--use-policies: percent of the current size in whole extents, rounded up).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_EXTEND_LVM_HPP
#define PROVPOL_EXTEND_LVM_HPP

#include "bytes.hpp"
#include "config.hpp"
#include "extend_policy.hpp"
#include "result.hpp"

#include <cstdint>

namespace provpol {

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
    /// log2(extent), extent - 1 and its complement, precomputed for the fast path.
    PROVPOL_NODISCARD constexpr unsigned extent_shift() const noexcept { return shift_; }
    PROVPOL_NODISCARD constexpr std::uint64_t extent_mask() const noexcept { return extent_.count() - 1; }
    PROVPOL_NODISCARD constexpr std::uint64_t extent_align() const noexcept { return align_; }
    /// False when the threshold is 100: LVM never autoextends.
    PROVPOL_NODISCARD constexpr bool enabled() const noexcept { return threshold_ < 100; }

private:
    constexpr lvm_thin_config(std::uint32_t threshold, std::uint32_t percent, bytes extent) noexcept
        : extent_(extent),
          align_(~(extent.count() - 1)),
          threshold_(threshold),
          percent_(percent),
          shift_(log2(extent.count())) {}
    static constexpr unsigned log2(std::uint64_t v) noexcept {
        unsigned k = 0;
        while ((std::uint64_t{1} << k) < v) ++k;
        return k;
    }

    bytes extent_;
    std::uint64_t align_;
    std::uint32_t threshold_;
    std::uint32_t percent_;
    unsigned shift_;
};

namespace detail {
// Inputs below 2^53 keep every intermediate of the LVM fast path below 2^60: physical * threshold percent
// (<= 100), and the chunk, at most 10 * physical + 11 extents (percent <= 1000, extent <= 2^34).
constexpr unsigned lvm_thin_fast_bits = 53;
}  // namespace detail

/// LVM's rules for a thin pool, one value playing extend_policy's three roles (the configuration held once):
/// - trigger: extend when data usage is above threshold percent of the pool (lvresize --use-policies acts when
///   percent > policy_threshold). In free-space terms the limit is physical - floor(physical * threshold / 100),
///   exact for integer allocations. A thin pool cannot hold more data than its size, so an allocation above
///   physical is the improbable case;
/// - growth: percent of the current size in whole extents, rounded up (lvresize's percent_of_extents with
///   roundup), and at least one extent (a pool is never empty; this keeps the policy total at size 0). A new pool
///   is created at its full requested size, rounded to the extent;
/// - limits: requests and LVs in whole extents, never beyond `capacity` (the most the pool may grow to, e.g. the
///   volume group's size).
/// Made only from a validated lvm_thin_config. Offers a fast path (decide_fast: sizes below 2^53).
class lvm_thin_steps {
public:
    constexpr explicit lvm_thin_steps(const lvm_thin_config& c) noexcept : config(c) {}

    lvm_thin_config config;  ///< the configuration: any lvm_thin_config is valid (it is made only by make())

    // Trigger
    PROVPOL_NODISCARD constexpr bytes limit(const drive_state& d, bytes /*chunk*/) const noexcept {
        if (!config.enabled()) return bytes(0);
        return saturating_sub(d.physical, ratio_of(d.physical, config.threshold_percent(), 100, rounding::down));
    }
    PROVPOL_NODISCARD constexpr bool improbable(const drive_state& d, bytes /*next_size*/) const noexcept {
        return d.allocation > d.physical;
    }
    // Growth
    PROVPOL_NODISCARD constexpr bytes chunk(const drive_state& d) const noexcept {
        const std::uint64_t e = config.extent().count();
        const std::uint64_t extents = divide(d.physical.count(), e, rounding::up);
        const std::uint64_t add = ratio_of(extents, config.extend_percent(), 100, rounding::up);
        return bytes(saturating_mul(add == 0 ? 1 : add, e));
    }
    PROVPOL_NODISCARD constexpr bytes initial_size(bytes capacity) const noexcept { return capacity; }
    // Limits
    PROVPOL_NODISCARD constexpr bytes max_size(bytes capacity) const noexcept {
        return align_down(capacity, config.extent());
    }
    PROVPOL_NODISCARD constexpr bytes max_size_storage(bytes capacity) const noexcept {
        return align_down(capacity, config.extent());
    }
    PROVPOL_NODISCARD constexpr bytes request(bytes physical, bytes chunk) const noexcept {
        return bytes(detail::align_up_pow2(saturating_add(physical.count(), chunk.count()), config.extent().count()));
    }
    PROVPOL_NODISCARD constexpr bytes lv_size(bytes requested) const noexcept {
        return bytes(detail::align_up_pow2(requested.count(), config.extent().count()));
    }

    /// The fast path, when capacity, physical and allocation are below 2^53 (the extent is a power of two up to
    /// 2^34 by lvm_thin_config::make): no intermediate reaches 2^60 (see detail::lvm_thin_fast_bits), so the
    /// saturating steps reduce to plain arithmetic, and:
    ///   limit = physical - floor(physical * threshold / 100), so physical - limit = that floor (q): the block
    ///   threshold is max(q, 1), and physical - allocation < limit is q < allocation (limit <= physical); with
    ///   threshold 100 (disabled) q = physical and limit = 0, as the step says;
    ///   the request and the maximum are multiples of the extent, so the LV after the extend is the next size.
    /// Every output equals the steps' (tests/extend_fast_test.cpp compares them).
    PROVPOL_NODISCARD constexpr bool fast_path_applies(const drive_state& d) const noexcept {
        return ((d.capacity.count() | d.physical.count() | d.allocation.count()) >> detail::lvm_thin_fast_bits) == 0;
    }
    PROVPOL_NODISCARD constexpr extend_decision decide_fast(const drive_state& d) const noexcept {
        const std::uint64_t c = d.capacity.count();
        const std::uint64_t p = d.physical.count();
        const std::uint64_t a = d.allocation.count();
        const std::uint64_t e = config.extent_mask();
        const std::uint64_t not_e = config.extent_align();
        const unsigned shift = config.extent_shift();
        const std::uint64_t extents = (p + e) >> shift;                            // ceil(p / extent)
        const std::uint64_t add = (extents * config.extend_percent() + 99) / 100;  // ceil(extents * % / 100)
        const std::uint64_t chunk = (add + (add == 0 ? 1 : 0)) << shift;           // at least one extent
        const std::uint64_t q = p * config.threshold_percent() / 100;              // floor(p * threshold / 100)
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
};

/// LVM2 thin-pool autoextend's policy type.
using lvm_thin_policy = extend_policy<lvm_thin_steps, lvm_thin_steps, lvm_thin_steps>;

/// An LVM thin-pool autoextend policy from a validated configuration.
PROVPOL_NODISCARD constexpr lvm_thin_policy make_lvm_thin_policy(const lvm_thin_config& c) noexcept {
    return lvm_thin_policy(lvm_thin_steps(c));
}

/// LVM2's lvm.conf example values for thin-pool autoextend (activation/thin_pool_autoextend_threshold = 70,
/// activation/thin_pool_autoextend_percent = 20) with LVM's default 4 MiB extent. (LVM ships 100, disabled.)
PROVPOL_NODISCARD constexpr lvm_thin_policy lvm_thin_autoextend() noexcept {
    return make_lvm_thin_policy(lvm_thin_config::make(70, 20).value());
}

}  // namespace provpol

#endif  // PROVPOL_EXTEND_LVM_HPP
