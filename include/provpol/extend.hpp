// provpol/extend.hpp - the thin-volume extend family: the generic policy (extend_policy.hpp), oVirt VDSM's
// steps and presets (extend_vdsm.hpp), and LVM2's thin-pool autoextend (extend_lvm.hpp).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_EXTEND_HPP
#define PROVPOL_EXTEND_HPP

#include "extend_lvm.hpp"     // IWYU pragma: export
#include "extend_policy.hpp"  // IWYU pragma: export
#include "extend_vdsm.hpp"    // IWYU pragma: export
#include "registry.hpp"
#include "text.hpp"

namespace provpol {

/// The extend presets by name.
enum class extend_preset : unsigned char { vdsm_2022, vdsm_legacy, lvm_thin_autoextend };

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
            break;
    }
    return unexpected(error::unsupported(setting,
                                         "lvm-thin-autoextend is not a VDSM configuration (expected one of "
                                         "vdsm-2022, vdsm-legacy)"));
}

/// Calls f with the preset's policy (a vdsm_policy or an lvm_thin_policy) and returns what f returns.
template <class F>
constexpr decltype(auto) with_extend_preset(extend_preset p, F&& f) {
    switch (p) {
        case extend_preset::vdsm_legacy:
            return f(vdsm_legacy());
        case extend_preset::lvm_thin_autoextend:
            return f(lvm_thin_autoextend());
        case extend_preset::vdsm_2022:
            break;
    }
    return f(vdsm_2022());
}

}  // namespace provpol

#endif  // PROVPOL_EXTEND_HPP
