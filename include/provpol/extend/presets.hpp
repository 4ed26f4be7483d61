// provpol/extend/presets.hpp - the extend family's presets by name (extend_preset, extend_presets): oVirt VDSM's
// (extend/vdsm.hpp) and LVM2's (extend/lvm.hpp), each with the public source of its rule.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_EXTEND_PRESETS_HPP
#define PROVPOL_EXTEND_PRESETS_HPP

#include "../registry.hpp"
#include "../text.hpp"
#include "lvm.hpp"        // IWYU pragma: export
#include "lvm_steps.hpp"  // IWYU pragma: export
#include "policy.hpp"     // IWYU pragma: export
#include "vdsm.hpp"       // IWYU pragma: export

namespace provpol {

/// The extend presets by name.
enum class extend_preset : unsigned char {
    vdsm_2022,
    vdsm_legacy,
    lvm_thin_autoextend,
    lvm_thin_default,
    lvm_vdo_autoextend,
    lvm_snapshot_autoextend
};

/// The extend family's registry: every preset's name, what it does and where its rule comes from.
inline constexpr preset_info<extend_preset> extend_presets[] = {
    {extend_preset::vdsm_2022, "vdsm-2022", "oVirt VDSM 4.50: extend by 2560 MiB when less than 2048 MiB is free",
     "oVirt VDSM 4.50, BZ#2051997: volume_utilization_chunk_mb = 2560, volume_utilization_percent = 20"},
    {extend_preset::vdsm_legacy, "vdsm-legacy",
     "oVirt VDSM before 4.50: extend by 1 GiB when less than 512 MiB is free",
     "oVirt VDSM before 4.50: volume_utilization_chunk_mb = 1024, volume_utilization_percent = 50"},
    {extend_preset::lvm_thin_autoextend, "lvm-thin-autoextend",
     "LVM2 thin-pool autoextend: grow by 20% when data usage passes 70%",
     "lvm2 lvm.conf example: thin_pool_autoextend_threshold = 70, thin_pool_autoextend_percent = 20"},
    {extend_preset::lvm_thin_default, "lvm-thin-default", "LVM2 thin-pool autoextend as LVM ships it: disabled",
     "lvm2 lib/config/defaults.h: DEFAULT_THIN_POOL_AUTOEXTEND_THRESHOLD 100, _PERCENT 20"},
    {extend_preset::lvm_vdo_autoextend, "lvm-vdo-autoextend",
     "LVM2 VDO-pool autoextend: grow by 20%, at least one slab, when usage passes 70%",
     "lvm2 lvm.conf example: vdo_pool_autoextend_threshold = 70, vdo_pool_autoextend_percent = 20"},
    {extend_preset::lvm_snapshot_autoextend, "lvm-snapshot-autoextend",
     "LVM2 snapshot autoextend: grow the COW by 20%, to its useful maximum, when usage passes 70%",
     "lvm2 lvm.conf example: snapshot_autoextend_threshold = 70, snapshot_autoextend_percent = 20"},
};
/// "vdsm-2022, vdsm-legacy, lvm-thin-autoextend", and the same after "one of " for errors.
inline constexpr preset_list extend_preset_names = preset_names(extend_presets);
inline constexpr preset_list extend_preset_choices = detail::preset_choices(extend_preset_names);

/// Reads an extend preset's name.
PROVPOL_NODISCARD constexpr result<extend_preset> parse_extend_preset(text_view name,
                                                                      const char* setting = "preset") noexcept {
    return parse_preset(extend_presets, extend_preset_choices, name, setting);
}
/// The preset's name.
PROVPOL_NODISCARD constexpr const char* to_text(extend_preset p) noexcept { return preset_of(extend_presets, p).name; }

/// The VDSM configuration of a VDSM preset; an error naming the setting for one that is not VDSM's.
PROVPOL_NODISCARD constexpr result<vdsm_config> vdsm_config_of(extend_preset p,
                                                               const char* setting = "preset") noexcept {
    switch (p) {
        case extend_preset::vdsm_2022:
            return vdsm_2022().trigger().config;
        case extend_preset::vdsm_legacy:
            return vdsm_legacy().trigger().config;
        case extend_preset::lvm_thin_autoextend:
        case extend_preset::lvm_thin_default:
        case extend_preset::lvm_vdo_autoextend:
        case extend_preset::lvm_snapshot_autoextend:
            break;
    }
    return unexpected(error::unsupported(setting,
                                         "an LVM preset is not a VDSM configuration (expected one of "
                                         "vdsm-2022, vdsm-legacy)"));
}

/// The LVM autoextend configuration of an LVM preset; an error naming the setting for one that is not LVM's.
PROVPOL_NODISCARD constexpr result<lvm_autoextend_config> lvm_config_of(extend_preset p,
                                                                        const char* setting = "preset") noexcept {
    switch (p) {
        case extend_preset::lvm_thin_autoextend:
            return lvm_autoextend_config::make(70, 20);
        case extend_preset::lvm_thin_default:
            return lvm_autoextend_config::make(100, 20);
        case extend_preset::lvm_vdo_autoextend:
            return lvm_autoextend_config::make(70, 20, bytes(std::uint64_t{4} << 20), bytes(std::uint64_t{64} << 10),
                                               lvm_volume_kind::vdo_pool);
        case extend_preset::lvm_snapshot_autoextend:
            return lvm_autoextend_config::make(70, 20, bytes(std::uint64_t{4} << 20), bytes(std::uint64_t{64} << 10),
                                               lvm_volume_kind::snapshot);
        case extend_preset::vdsm_2022:
        case extend_preset::vdsm_legacy:
            break;
    }
    return unexpected(error::unsupported(setting,
                                         "a VDSM preset is not an LVM configuration (expected one of "
                                         "lvm-thin-autoextend, lvm-thin-default, lvm-vdo-autoextend, "
                                         "lvm-snapshot-autoextend)"));
}

}  // namespace provpol

#endif  // PROVPOL_EXTEND_PRESETS_HPP
