// provpol/extend/lvm_steps.hpp - LVM2's thin-pool autoextend rule (extend/lvm.hpp) as extend_policy steps:
// lvm_thin_steps (with a fast path the instruction budget holds), lvm_thin_policy, make_lvm_thin_policy, and the
// presets lvm_thin_autoextend (70/20) and lvm_thin_default (100/20).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_EXTEND_LVM_STEPS_HPP
#define PROVPOL_EXTEND_LVM_STEPS_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../result.hpp"
#include "lvm.hpp"
#include "policy.hpp"

#include <cstdint>

namespace provpol {

namespace detail {
// lvm_usage's double arithmetic alone, unclamped, for used <= total < 2^53 (so the value is at most 100%, and
// 100% at total as lvm_usage has it): the count goes to the double through int64_t, the same double below 2^53
// without the unsigned conversion's test.
constexpr std::int32_t lvm_usage_unclamped(std::uint64_t used, double total) noexcept {
    const auto u = static_cast<double>(static_cast<std::int64_t>(used));
    return static_cast<std::int32_t>(static_cast<double>(lvm_percent_100) * (u / total));
}
// lvm_usage(used, total) > limit, for used <= total < 2^53 and a limit from 50% to 99%: without lvm_usage's clamps,
// which apply only at 0% and 100% and so cannot change the comparison there.
constexpr bool lvm_usage_above(std::uint64_t used, double total, std::int32_t limit) noexcept {
    return lvm_usage_unclamped(used, total) > limit;
}

// lvm_trigger_blocks(total, c.threshold_percent()), the same value, for an enabled configuration and
// 1 <= total < 2^53 (the fast decision's): the guess is the floor of total x c.trigger_fraction() (made once per
// configuration), and lvm_usage's double is evaluated at the guess and one block beside it. Usage is monotonic
// in the used blocks, so a block above the threshold after one that is not is the first; where the two
// evaluations do not show that crossing (the guess a block or more off) the general function answers.
constexpr std::uint64_t lvm_trigger_blocks_near(std::uint64_t total, const lvm_autoextend_config& c) noexcept {
    const auto t = static_cast<double>(static_cast<std::int64_t>(total));
    const std::int32_t limit = c.usage_limit();
    // Below total: the fraction is under 0.9901 and total x 0.0099 is far above the product's rounding error.
    const auto u = static_cast<std::uint64_t>(static_cast<std::int64_t>(t * c.trigger_fraction()));
    if (lvm_usage_above(u, t, limit)) {
        if (!lvm_usage_above(u - 1, t, limit)) return u;  // u >= 1: usage(0) is 0
    } else if (lvm_usage_above(u + 1, t, limit)) {        // u + 1 <= total, whose usage is 100%
        return u + 1;
    }
    return lvm_trigger_blocks(blocks(total), c.threshold_percent()).count();
}
}  // namespace detail

/// LVM's rules for a thin pool as one value playing extend_policy's three roles, over drive_state read as a
/// pool: capacity = the most the pool may grow to (its size plus the VG's free space), physical = the pool's
/// size, allocation = the data written (used blocks = allocation / pool chunk, rounded up):
/// - trigger: extend when usage is above the threshold: free space physical - allocation under limit =
///   physical - (u - 1) x chunk, u the fewest used blocks that pass it (lvm_trigger_blocks); with threshold 100
///   the limit is 0. An allocation above physical is improbable;
/// - growth: decide_lvm_autoextend's data extents (amount from usage, at least the percent); for a pool not
///   past its threshold, what an extend at the threshold would add (the percent of its extents, at least one);
/// - limits: whole extents, never beyond capacity. A new pool is created at its full size, in whole extents.
/// Percent 0 (accepted as lvm.conf accepts it) adds nothing: decide_lvm_autoextend reports it as failing.
class lvm_thin_steps {
public:
    constexpr explicit lvm_thin_steps(const lvm_autoextend_config& c) noexcept : config(c) {}

    lvm_autoextend_config
        config;  ///< the configuration: any lvm_autoextend_config is valid (it is made only by make())

    // Trigger
    PROVPOL_NODISCARD constexpr bytes limit(const drive_state& d, bytes /*chunk*/) const noexcept {
        if (!config.enabled()) return bytes(0);
        const blocks total = blocks_in(d.physical, config.pool_chunk(), rounding::down);
        const blocks u = lvm_trigger_blocks(total, config.threshold_percent());  // at least 1
        return saturating_sub(d.physical, size_of(u - blocks(1), config.pool_chunk()));
    }
    PROVPOL_NODISCARD constexpr bool improbable(const drive_state& d, bytes /*next_size*/) const noexcept {
        return d.allocation > d.physical;
    }
    // Growth
    PROVPOL_NODISCARD constexpr bytes chunk(const drive_state& d) const noexcept {
        if (config.extend_percent() == 0) return bytes(0);
        const lvm_volume_state s = lvm_volume_state::thin(d.physical, d.allocation, config.pool_chunk());
        const std::uint32_t amount =
            lvm_adjust_amount(lvm_usage(s.used, s.total), lvm_threshold(config.threshold_percent()),
                              lvm_percent(config.extend_percent()));
        std::uint64_t le = detail::lvm_extents(d.physical, config.extent());
        if (le > detail::lvm_max_extent_count) le = detail::lvm_max_extent_count;  // beyond any LV: saturate
        const std::uint64_t add =
            lvm_percent_of_extents(amount != 0 ? amount : config.extend_percent(), static_cast<std::uint32_t>(le));
        return bytes(saturating_mul(add == 0 ? 1 : add, config.extent().count()));
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
        return align_up(saturating_add(physical, chunk), config.extent());
    }
    PROVPOL_NODISCARD constexpr bytes lv_size(bytes requested) const noexcept {
        return align_up(requested, config.extent());
    }

    /// Sizes below 2^fast_bits take the fast path: there the largest chunk, percent 10^6 of the extents,
    /// 10^4 x (physical + one extent) with extents up to 2^34, plus physical and an extent stays below 2^64.
    static constexpr unsigned fast_bits = 50;

    /// The fast path, when capacity and allocation are below 2^fast_bits, physical is from one pool chunk to
    /// 2^fast_bits and (2^32 - 1) extents, and the configuration extends (enabled, percent above 0; the
    /// configuration holds that range, precomputed, as physical - chunk below its span): no step saturates or
    /// clamps there, the extent arithmetic is shifts and masks, usage is read through the double only past the
    /// trigger (a used block count at or above lvm_trigger_blocks is exactly a usage above the threshold) and
    /// the trigger from the configuration's precomputed fraction. Every output equals the steps'
    /// (tests/extend_fast_test.cpp).
    PROVPOL_NODISCARD PROVPOL_MODULAR_ARITHMETIC constexpr bool fast_path_applies(const drive_state& d) const noexcept {
        return ((d.capacity.count() | d.allocation.count()) >> fast_bits) == 0 &&
               d.physical.count() - config.pool_chunk().count() < config.fast_span_;  // wraps below one chunk
    }
    PROVPOL_NODISCARD PROVPOL_ALWAYS_INLINE constexpr extend_decision decide_fast(const drive_state& d) const noexcept {
        const std::uint64_t c = d.capacity.count();
        const std::uint64_t p = d.physical.count();
        const std::uint64_t a = d.allocation.count();
        const std::uint64_t block = config.pool_chunk().count();
        const unsigned shift = config.extent_shift();
        const std::uint64_t e = config.extent().count() - 1;  // the extent's mask
        const std::uint64_t total = p / block;                // >= 1
        const std::uint64_t u = detail::lvm_trigger_blocks_near(total, config);
        const std::uint64_t limit = p - (u - 1) * block;  // u <= total: no wrap
        const std::uint64_t used = (a + block - 1) / block;
        std::uint32_t amount = config.extend_percent();
        if (used >= u) {  // usage above the threshold: lvm_adjust_amount's amount, without its range checks
            std::int32_t usage = lvm_percent_100;  // lvm_usage of used >= total
            if (used < total) {
                usage = detail::lvm_usage_unclamped(used, static_cast<double>(static_cast<std::int64_t>(total)));
                if (usage >= lvm_percent_100) usage = lvm_percent_100 - 1;  // lvm_usage's clamp (> 0: past u)
            }
            amount = detail::lvm_amount_past(usage, config.threshold_percent(), amount);
        }
        const std::uint64_t le = (p + e) >> shift;  // <= 2^32 - 1: fast_path_applies
        const std::uint64_t add = lvm_percent_of_extents(amount, static_cast<std::uint32_t>(le));
        const std::uint64_t chunk = (add == 0 ? 1 : add) << shift;
        extend_decision out{};
        out.chunk = bytes(chunk);
        out.limit = bytes(limit);
        out.block_threshold = bytes(p > limit ? p - limit : 1);
        out.needs_extend = p < a + limit;  // a > p, or p - a < limit
        const std::uint64_t max_size = c & ~e;
        out.max_size = bytes(max_size);
        out.can_extend = p < max_size;
        const std::uint64_t request = (p + chunk + e) & ~e;
        const std::uint64_t requested = request < max_size ? request : max_size;
        const std::uint64_t next = requested < p ? p : requested;
        out.next_size = bytes(next);
        out.improbable_allocation = a > p;
        const std::uint64_t lv = (next + e) & ~e;
        out.lv_size_after_extend = bytes(lv);
        out.next_block_threshold = bytes(lv > limit ? lv - limit : 1);
        out.max_size_storage = bytes(max_size);
        out.initial_size = bytes((c + e) & ~e);
        out.action =
            detail::extend_action_of(out.can_extend, d.threshold_exceeded, out.improbable_allocation, out.needs_extend);
        return out;
    }
};

/// LVM2 thin-pool autoextend's policy type.
using lvm_thin_policy = extend_policy<lvm_thin_steps, lvm_thin_steps, lvm_thin_steps>;

/// An LVM thin-pool autoextend policy from a validated configuration.
PROVPOL_NODISCARD constexpr lvm_thin_policy make_lvm_thin_policy(const lvm_autoextend_config& c) noexcept {
    return lvm_thin_policy(lvm_thin_steps(c));
}

/// lvm.conf's example values for thin-pool autoextend (activation/thin_pool_autoextend_threshold = 70,
/// thin_pool_autoextend_percent = 20) with LVM's default 4 MiB extent and 64 KiB pool chunk.
PROVPOL_NODISCARD constexpr lvm_thin_policy lvm_thin_autoextend() noexcept {
    return make_lvm_thin_policy(detail::valid(lvm_autoextend_config::make(lvm_threshold(70), lvm_percent(20))));
}
/// What LVM ships (lib/config/defaults.h): threshold 100, autoextend disabled, percent 20.
PROVPOL_NODISCARD constexpr lvm_thin_policy lvm_thin_default() noexcept {
    return make_lvm_thin_policy(detail::valid(lvm_autoextend_config::make(lvm_threshold(100), lvm_percent(20))));
}

}  // namespace provpol

#endif  // PROVPOL_EXTEND_LVM_STEPS_HPP
