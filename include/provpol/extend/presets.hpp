// provpol/extend/presets.hpp - the extend family's presets by name (extend_preset, extend_presets): oVirt VDSM's
// (extend/vdsm.hpp), LVM2's (extend/lvm.hpp), Stratis's (extend/stratis.hpp), Docker's devicemapper driver
// (extend/docker_devmapper.hpp) and XenServer's thin LVHD (extend/xenserver_lvhd.hpp), each with the public source of
// its rule.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_EXTEND_PRESETS_HPP
#define PROVPOL_EXTEND_PRESETS_HPP

#include "../registry.hpp"
#include "../text.hpp"
#include "docker_devmapper.hpp"  // IWYU pragma: export
#include "lvm.hpp"               // IWYU pragma: export
#include "lvm_steps.hpp"         // IWYU pragma: export
#include "policy.hpp"            // IWYU pragma: export
#include "stratis.hpp"           // IWYU pragma: export
#include "vdsm.hpp"              // IWYU pragma: export
#include "xenserver_lvhd.hpp"    // IWYU pragma: export

namespace provpol {

/// The extend presets by name.
enum class extend_preset : unsigned char {
    vdsm_2022,
    vdsm_legacy,
    lvm_thin_autoextend,
    lvm_thin_default,
    lvm_vdo_autoextend,
    lvm_snapshot_autoextend,
    stratis_data,
    stratis_metadata,
    stratis_filesystem,
    docker_devicemapper,
    xenserver_thin_lvhd
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
    {extend_preset::stratis_data, "stratis-data",
     "Stratis: extend the pool's data device by up to 50 GiB when less than 15 GiB of it is free",
     "stratisd 28d8d0757f87 thinpool.rs:73,75: DATA_ALLOC_SIZE 50 GiB, DATA_LOWATER 15 GiB; check() every 10 s "
     "(timer.rs:61) and on the pool's dm event"},
    {extend_preset::stratis_metadata, "stratis-metadata",
     "Stratis: double the pool's metadata device (and its spare) under the kernel's metadata low-water mark",
     "stratisd 28d8d0757f87 thinpool.rs:1582 extend_thin_meta_device; cmd.rs:50 thin_metadata_size x 8"},
    {extend_preset::stratis_filesystem, "stratis-filesystem",
     "Stratis: double a filesystem more than half full, up to its size limit",
     "stratisd 28d8d0757f87 filesystem.rs:282,348 visit_values, extend_size"},
    {extend_preset::docker_devicemapper, "docker-devicemapper",
     "Docker's devicemapper direct-lvm pool: lvm2 grows it by 20% when data usage passes 80%",
     "moby 81359cecdf25 device_setup.go:183-222: thin_pool_autoextend_threshold 80, _percent 20, chunk 512K; "
     "deviceset.go:48 dm.min_free_space 10%"},
    {extend_preset::xenserver_thin_lvhd, "xenserver-thin-lvhd",
     "XenServer thin LVHD: VDIs grow by 0.01% of the SR (16 MiB at least); hosts' free pools by max(160 MiB, 0.5%)",
     "xapi-project/sm v1.15.1 util.py:1728 xlvhd_adjust_allocation_quantum, lvutil.py:282 write_xenvmd_config"},
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
        case extend_preset::docker_devicemapper:
            break;
        case extend_preset::stratis_data:
        case extend_preset::stratis_metadata:
        case extend_preset::stratis_filesystem:
        case extend_preset::xenserver_thin_lvhd:
            return unexpected(error::unsupported(setting,
                                                 "a Stratis or XenServer preset is not a VDSM configuration "
                                                 "(expected one of vdsm-2022, vdsm-legacy)"));
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
        case extend_preset::docker_devicemapper:
            return docker_direct_lvm();
        case extend_preset::stratis_data:
        case extend_preset::stratis_metadata:
        case extend_preset::stratis_filesystem:
        case extend_preset::xenserver_thin_lvhd:
            return unexpected(error::unsupported(setting,
                                                 "a Stratis or XenServer preset is not an LVM configuration "
                                                 "(expected one of lvm-thin-autoextend, lvm-thin-default, "
                                                 "lvm-vdo-autoextend, lvm-snapshot-autoextend, "
                                                 "docker-devicemapper)"));
        case extend_preset::vdsm_2022:
        case extend_preset::vdsm_legacy:
            break;
    }
    return unexpected(error::unsupported(setting,
                                         "a VDSM preset is not an LVM configuration (expected one of "
                                         "lvm-thin-autoextend, lvm-thin-default, lvm-vdo-autoextend, "
                                         "lvm-snapshot-autoextend, docker-devicemapper)"));
}

/// The Stratis constants of a Stratis preset (the three parts share stratisd's constants); an error naming the
/// setting for one that is not Stratis's.
PROVPOL_NODISCARD constexpr result<stratis_config> stratis_config_of(extend_preset p,
                                                                     const char* setting = "preset") noexcept {
    if (p == extend_preset::stratis_data || p == extend_preset::stratis_metadata ||
        p == extend_preset::stratis_filesystem)
        return stratis_data();
    return unexpected(error::unsupported(setting,
                                         "not a Stratis preset (expected one of stratis-data, "
                                         "stratis-metadata, stratis-filesystem)"));
}

}  // namespace provpol

#endif  // PROVPOL_EXTEND_PRESETS_HPP
