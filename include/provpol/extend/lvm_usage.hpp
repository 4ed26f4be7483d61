// provpol/extend/lvm_usage.hpp - LVM2's usage and extend amount in its own units, exact to lvm2 2.03: libdm's
// percent (lvm_usage), the amount an extend adds (lvm_adjust_amount), a percent of extents
// (lvm_percent_of_extents) and the extent itself (lvm_extent_size, which VDSM's configuration takes too). The
// configuration they are read against is lvm_config.hpp's, the whole decision extend/lvm.hpp's.
//
// Sources (lvm2 2.03.16, Debian 12's; the functions named are the ones each rule reproduces):
//   libdm/libdm-report.c     dm_make_percent: used / total in units of 1e-6 %, through a double, truncated;
//                            only used == total is 100%, and a nonzero ratio is never 0%.
//   lib/metadata/lv_manip.c  _adjust_amount: nothing unless 50% < usage <= 100% and usage > threshold; the
//                            amount is max(percent, ceil(100 x usage / threshold) - 100) (lvm2 commit 40eea582a,
//                            2015).
//   lib/misc/lvm-percent.c   percent_of_extents: (percent x extents + 99) / 100 in 64 bits, kept in 32.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_EXTEND_LVM_USAGE_HPP
#define PROVPOL_EXTEND_LVM_USAGE_HPP

#include "../bytes.hpp"
#include "../config.hpp"

#include <cstdint>

namespace provpol {

/// The volume group's extent size (vgcreate -s; lvm2's default 4 MiB, 128 MiB in oVirt block storage domains): the
/// unit lvextend rounds an LV to. Its own type, so that no other size of vdsm_config::make or
/// lvm_autoextend_config::make can take its place: `vdsm_config::make(1024_MiB, 20, lvm_extent_size(128_MiB))`.
struct lvm_extent_size {
    constexpr explicit lvm_extent_size(bytes v) noexcept : value(v) {}
    bytes value;  ///< the extent in bytes
};

// ============================================================================================================
// Usage and the amount, in lvm2's own units

/// libdm's percent unit (dm_percent_t): 1 = 1e-6 %, so 100% is 100,000,000.
inline constexpr std::int32_t lvm_percent_1 = 1000000;
inline constexpr std::int32_t lvm_percent_100 = 100 * lvm_percent_1;

/// dm_make_percent(used, total): used / total in 1e-6 % units, as lvm2 computes it. The ratio goes through a
/// double and is truncated, so on a pool of 3e7 blocks one block above 70% still reads 70.000000%; only
/// used == total reads 100% (a ratio that rounds to 100% reads 99.999999%), and a nonzero ratio that rounds to
/// 0 reads 0.000001%. total == 0 reads 100%, as libdm does. used above total (no kernel reports it) counts as
/// total. The double arithmetic is one division and one multiplication, both correctly rounded in IEEE 754, so
/// the value is the same on every platform that computes doubles without excess precision (not x87).
PROVPOL_NODISCARD constexpr std::int32_t lvm_usage(std::uint64_t used, std::uint64_t total) noexcept {
    if (total == 0) return lvm_percent_100;
    if (used == 0) return 0;
    if (used >= total) return lvm_percent_100;
    const double ratio = static_cast<double>(used) / static_cast<double>(total);
    const auto p = static_cast<std::int32_t>(static_cast<double>(lvm_percent_100) * ratio);  // truncates, < 2^31
    if (p >= lvm_percent_100) return lvm_percent_100 - 1;
    if (p <= 0) return 1;
    return p;
}
/// The same for block counts (a pool's data or metadata blocks, both of one block size).
PROVPOL_NODISCARD constexpr std::int32_t lvm_usage(blocks used, blocks total) noexcept {
    return lvm_usage(used.count(), total.count());
}

/// activation/<kind>_autoextend_threshold as written. lvm_autoextend_config::make and lvm_adjust_amount take each
/// setting by its role:
/// the threshold and the percent are both integers, the extent, the pool's chunk and the VDO slab all sizes, so
/// none can take another's place (`make(lvm_threshold(70), lvm_percent(20))`; make(20, 70), the two traded, would
/// validate and act at 50%).
struct lvm_threshold {
    constexpr explicit lvm_threshold(std::uint64_t v) noexcept : value(v) {}
    std::uint64_t value;
};
/// activation/<kind>_autoextend_percent: what one extend adds, in percent of the volume.
struct lvm_percent {
    constexpr explicit lvm_percent(std::uint64_t v) noexcept : value(v) {}
    std::uint64_t value;
};

namespace detail {
// _adjust_amount's amount once usage is past `threshold` (and 50%): the larger of `percent` and
// ceil(usage / t) - 100, t the threshold in 1e-6 % units / 100 (> 0: threshold >= 1), as lvm2 computes it.
constexpr std::uint32_t lvm_amount_past(std::int32_t usage, std::uint32_t threshold, std::uint32_t percent) noexcept {
    const std::int32_t t = static_cast<std::int32_t>(threshold) * (lvm_percent_1 / 100);
    const auto needed = static_cast<std::uint32_t>((usage + t - 1) / t - 100);  // >= 1 here
    return percent < needed ? needed : percent;
}
}  // namespace detail

/// _adjust_amount: the percent of the volume an extend adds, 0 when nothing is to be done. Something is done
/// only when usage is above 50% and above `threshold` (a whole percent, 50-99 after lvm.conf's clamp); then
/// the amount is the larger of `percent` and the smallest whole percent that brings usage back to the
/// threshold, ceil(100 x usage / threshold) - 100, computed in 1e-6 % units as lvm2 does.
/// A percent past 2^32 - 1 (lvm.conf's settings are ints) is taken as 2^32 - 1, not wrapped.
PROVPOL_NODISCARD constexpr std::uint32_t lvm_adjust_amount(std::int32_t usage, lvm_threshold threshold,
                                                            lvm_percent percent) noexcept {
    if (!(50 * lvm_percent_1 < usage && usage <= lvm_percent_100)) return 0;
    if (threshold.value >= 100 || usage <= static_cast<std::int32_t>(threshold.value) * lvm_percent_1) return 0;
    constexpr std::uint64_t max32 = 0xffffffffU;
    return detail::lvm_amount_past(usage, static_cast<std::uint32_t>(threshold.value),
                                   static_cast<std::uint32_t>(percent.value < max32 ? percent.value : max32));
}

/// percent_of_extents(percent, extents, roundup = 1): (percent x extents + 99) / 100, in 64 bits and kept in 32
/// as lvm2 keeps it (a result of 2^32 extents or more wraps there; lvextend then refuses the extend or makes a
/// wrong one, see decide_lvm_autoextend).
PROVPOL_NODISCARD constexpr std::uint32_t lvm_percent_of_extents(std::uint32_t percent,
                                                                 std::uint32_t extents) noexcept {
    return static_cast<std::uint32_t>((std::uint64_t{percent} * extents + 99) / 100);
}

}  // namespace provpol

#endif  // PROVPOL_EXTEND_LVM_USAGE_HPP
