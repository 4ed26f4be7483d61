// provpol/extend/lvm_steps.hpp - LVM2's thin-pool autoextend rule (extend/lvm.hpp) as extend_policy steps:
// lvm_thin_steps, lvm_thin_policy, make_lvm_thin_policy, and the presets lvm_thin_autoextend (70/20) and
// lvm_thin_default (100/20).
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
    constexpr explicit lvm_thin_steps(const lvm_thin_config& c) noexcept : config(c) {}

    lvm_thin_config config;  ///< the configuration: any lvm_thin_config is valid (it is made only by make())

    // Trigger
    PROVPOL_NODISCARD constexpr bytes limit(const drive_state& d, bytes /*chunk*/) const noexcept {
        if (!config.enabled()) return bytes(0);
        const std::uint64_t total = divide(d.physical, config.pool_chunk(), rounding::down);
        const std::uint64_t u = lvm_trigger_blocks(total, config.threshold_percent());
        return saturating_sub(d.physical, bytes(saturating_mul(u - 1, config.pool_chunk().count())));
    }
    PROVPOL_NODISCARD constexpr bool improbable(const drive_state& d, bytes /*next_size*/) const noexcept {
        return d.allocation > d.physical;
    }
    // Growth
    PROVPOL_NODISCARD constexpr bytes chunk(const drive_state& d) const noexcept {
        if (config.extend_percent() == 0) return bytes(0);
        const lvm_volume_state s = lvm_volume_state::thin(d.physical, d.allocation, config.pool_chunk());
        const std::uint32_t amount =
            lvm_adjust_amount(lvm_usage(s.used, s.total), config.threshold_percent(), config.extend_percent());
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
};

/// LVM2 thin-pool autoextend's policy type.
using lvm_thin_policy = extend_policy<lvm_thin_steps, lvm_thin_steps, lvm_thin_steps>;

/// An LVM thin-pool autoextend policy from a validated configuration.
PROVPOL_NODISCARD constexpr lvm_thin_policy make_lvm_thin_policy(const lvm_thin_config& c) noexcept {
    return lvm_thin_policy(lvm_thin_steps(c));
}

/// lvm.conf's example values for thin-pool autoextend (activation/thin_pool_autoextend_threshold = 70,
/// thin_pool_autoextend_percent = 20) with LVM's default 4 MiB extent and 64 KiB pool chunk.
PROVPOL_NODISCARD constexpr lvm_thin_policy lvm_thin_autoextend() noexcept {
    return make_lvm_thin_policy(lvm_thin_config::make(70, 20).value());
}
/// What LVM ships (lib/config/defaults.h): threshold 100, autoextend disabled, percent 20.
PROVPOL_NODISCARD constexpr lvm_thin_policy lvm_thin_default() noexcept {
    return make_lvm_thin_policy(lvm_thin_config::make(100, 20).value());
}

}  // namespace provpol

#endif  // PROVPOL_EXTEND_LVM_STEPS_HPP
