// provpol/extend/presets.hpp - the extend family's presets by name (extend_preset, extend_preset_registry: its table,
// its names and the choice at run time): oVirt VDSM's (extend/vdsm.hpp), LVM2's (extend/lvm.hpp), Stratis's
// (extend/stratis.hpp), Docker's devicemapper driver (extend/docker_devmapper.hpp) and XenServer's thin LVHD
// (extend/xenserver_lvhd.hpp), each with the public source of its rule.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_EXTEND_PRESETS_HPP
#define PROVPOL_EXTEND_PRESETS_HPP

#include "../detail/traits.hpp"
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

/// The extend presets by name. Each has one entry in extend_preset_registry, which checks that it holds every one
/// (stratis_3_1_filesystem is the last: a new preset goes after it, and the check names the new last one).
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
    xenserver_thin_lvhd,
    stratis_3_0_data,
    stratis_3_0_metadata,
    stratis_3_0_filesystem,
    stratis_3_3_data,
    stratis_3_7_metadata,
    stratis_3_1_filesystem
};

/// XenServer's thin LVHD rules take no configuration (extend/xenserver_lvhd.hpp's functions): its preset is this.
struct xenserver_thin_lvhd_rules {
    friend constexpr bool operator==(xenserver_thin_lvhd_rules, xenserver_thin_lvhd_rules) noexcept { return true; }
    friend constexpr bool operator!=(xenserver_thin_lvhd_rules, xenserver_thin_lvhd_rules) noexcept { return false; }
};
/// XenServer's thin LVHD (sm v1.15.1): its rules are extend/xenserver_lvhd.hpp's functions.
PROVPOL_NODISCARD constexpr xenserver_thin_lvhd_rules xenserver_thin_lvhd() noexcept { return {}; }

/// The extend family's registry: each preset's name, what it does, where its rule comes from, and what it is: a
/// vdsm_policy, an lvm_thin_policy, an lvm_autoextend_config (VDO pools, snapshots, Docker's pool), a stratis_config
/// (stratisd 3.0's for the stratis-3.0-* presets, the 3.1 line's for the others) or xenserver_thin_lvhd_rules. The
/// table, the lists, the parse and the *_config_of accessors all come from it.
namespace detail {
// The registry itself: a variable template over its id type only so that it is built where it is read
// (extend_preset_family::get, preset_registry_of in registry.hpp). Each entry names its id as Id::..., which makes the
// initializer depend on the template parameter: g++ builds a variable template's non-dependent initializer where
// it is defined.
template <class Id>
inline constexpr preset_registry extend_registry_v{
    preset_def{Id::vdsm_2022, "vdsm-2022", "oVirt VDSM 4.50: extend by 2560 MiB when less than 2048 MiB is free",
               "oVirt VDSM 4.50, BZ#2051997: volume_utilization_chunk_mb = 2560, volume_utilization_percent = 20",
               vdsm_2022},
    preset_def{Id::vdsm_legacy, "vdsm-legacy", "oVirt VDSM before 4.50: extend by 1 GiB when less than 512 MiB is free",
               "oVirt VDSM before 4.50: volume_utilization_chunk_mb = 1024, volume_utilization_percent = 50",
               vdsm_legacy},
    preset_def{Id::lvm_thin_autoextend, "lvm-thin-autoextend",
               "LVM2 thin-pool autoextend: grow by 20% when data usage passes 70%",
               "lvm2 lvm.conf example: thin_pool_autoextend_threshold = 70, thin_pool_autoextend_percent = 20",
               lvm_thin_autoextend},
    preset_def{Id::lvm_thin_default, "lvm-thin-default", "LVM2 thin-pool autoextend as LVM ships it: disabled",
               "lvm2 lib/config/defaults.h: DEFAULT_THIN_POOL_AUTOEXTEND_THRESHOLD 100, _PERCENT 20", lvm_thin_default},
    preset_def{Id::lvm_vdo_autoextend, "lvm-vdo-autoextend",
               "LVM2 VDO-pool autoextend: grow by 20%, at least one slab, when usage passes 70%",
               "lvm2 lvm.conf example: vdo_pool_autoextend_threshold = 70, vdo_pool_autoextend_percent = 20",
               lvm_vdo_autoextend},
    preset_def{Id::lvm_snapshot_autoextend, "lvm-snapshot-autoextend",
               "LVM2 snapshot autoextend: grow the COW by 20%, to its useful maximum, when usage passes 70%",
               "lvm2 lvm.conf example: snapshot_autoextend_threshold = 70, snapshot_autoextend_percent = 20",
               lvm_snapshot_autoextend},
    preset_def{
        Id::stratis_data, "stratis-data",
        "Stratis: extend the pool's data device by up to 50 GiB when less than 15 GiB of it is free",
        "stratisd 28d8d0757f87 thinpool.rs:73,75: DATA_ALLOC_SIZE 50 GiB, DATA_LOWATER 15 GiB; check() every 10 s "
        "(timer.rs:61) and on the pool's dm event",
        stratis_data},
    preset_def{Id::stratis_metadata, "stratis-metadata",
               "Stratis: double the pool's metadata device (and its spare) under the kernel's metadata low-water mark",
               "stratisd 28d8d0757f87 thinpool.rs:1582 extend_thin_meta_device; cmd.rs:50 thin_metadata_size x 8",
               stratis_metadata},
    preset_def{Id::stratis_filesystem, "stratis-filesystem",
               "Stratis: double a filesystem more than half full, up to its size limit",
               "stratisd 28d8d0757f87 filesystem.rs:282,348 visit_values, extend_size", stratis_filesystem},
    preset_def{
        Id::stratis_3_0_data, "stratis-3.0-data",
        "Stratis 3.0.x: every check gives the pool's data device all the backstore's free space (a new pool: 768 "
        "MiB)",
        "stratisd v3.0.4 thinpool.rs:574-640 check(), :50 INITIAL_DATA_SIZE 768, :168 calc_lowater (DATA_LOWATER 2 "
        "GiB, SPACE_CRIT_PCT 95)",
        stratis_3_0},
    preset_def{
        Id::stratis_3_0_metadata, "stratis-3.0-metadata",
        "Stratis 3.0.x: grow the metadata device and its spare to 1/1000 of the data tier when short by over 16 MiB",
        "stratisd v3.0.4 thinpool.rs:585-611 check(), :49 MIN_META_SEGMENT_SIZE; backstore.rs:403 request",
        stratis_3_0},
    preset_def{Id::stratis_3_0_filesystem, "stratis-3.0-filesystem",
               "Stratis 3.0.x: double a filesystem with less than 8 GiB free",
               "stratisd v3.0.4 filesystem.rs:49 FILESYSTEM_LOWATER 4 x DATA_LOWATER, :250 check, :286 extend_size",
               stratis_3_0},
    preset_def{
        Id::stratis_3_3_data, "stratis-3.3-data",
        "Stratis 3.3 and later (as stratis-data): extend the data device by up to 50 GiB when under 15 GiB is free",
        "stratisd v3.3.0 to v3.9.2: thinpool.rs (3.9.2) :73,:75 DATA_ALLOC_SIZE, DATA_LOWATER, :1270 check, :1471",
        stratis_data},
    preset_def{Id::stratis_3_7_metadata, "stratis-3.7-metadata",
               "Stratis 3.7 and later (as stratis-metadata): double the metadata device and its spare at its low-water "
               "mark",
               "stratisd v3.7.0 to v3.9.2: thinpool.rs (3.9.2) :1582 extend_thin_meta_device, cmd.rs:50 x 8",
               stratis_metadata},
    preset_def{
        Id::stratis_3_1_filesystem, "stratis-3.1-filesystem",
        "Stratis 3.1 and later (as stratis-filesystem): double a filesystem more than half full, up to its limit",
        "stratisd v3.1.0 to v3.9.2: filesystem.rs (3.9.2) :282, :348; size limits from v3.6.0", stratis_filesystem},
    preset_def{Id::docker_devicemapper, "docker-devicemapper",
               "Docker's devicemapper direct-lvm pool: lvm2 grows it by 20% when data usage passes 80%",
               "moby 81359cecdf25 device_setup.go:183-222: thin_pool_autoextend_threshold 80, _percent 20, chunk 512K; "
               "deviceset.go:48 dm.min_free_space 10%",
               docker_devicemapper},
    preset_def{
        Id::xenserver_thin_lvhd, "xenserver-thin-lvhd",
        "XenServer thin LVHD: VDIs grow by 0.01% of the SR (16 MiB at least); hosts' free pools by max(160 MiB, "
        "0.5%)",
        "xapi-project/sm v1.15.1 util.py:1728 xlvhd_adjust_allocation_quantum, lvutil.py:282 write_xenvmd_config",
        xenserver_thin_lvhd},
};
}  // namespace detail

/// The extend family's registry as preset_registry_of reads it: its id type, its size (every extend_preset through the
/// last; preset_registry_of checks that the registry holds each once) and get<D>(), the registry itself, built where it
/// is first read.
struct extend_preset_family {
    using id_type = extend_preset;
    static constexpr std::size_t size = static_cast<std::size_t>(extend_preset::stratis_3_1_filesystem) + 1;
    template <class Deferred>
    static constexpr const auto& get() noexcept {
        return detail::extend_registry_v<detail::dependent_t<Deferred, extend_preset>>;
    }
};

inline constexpr preset_registry_of<extend_preset_family> extend_preset_registry{};

/// The family's entries: extend_preset_registry, read as its table (begin, end, operator[]; table() for the
/// preset_table).
inline constexpr const preset_registry_of<extend_preset_family>& extend_presets = extend_preset_registry;
/// "vdsm-2022, vdsm-legacy, lvm-thin-autoextend, ...", and the same after "one of " for errors (each a
/// preset_list_of: built where it is read).
inline constexpr preset_list_of<extend_preset_registry> extend_preset_names{};
inline constexpr preset_list_of<extend_preset_registry, true> extend_preset_choices{};

/// Reads an extend preset's name. (A template only so that its body is compiled where it is called, not in every
/// translation unit that includes the header: call it as a function.)
template <class Deferred = void>
PROVPOL_NODISCARD constexpr result<extend_preset> parse_extend_preset(text_view name,
                                                                      const char* setting = "preset") noexcept {
    return parse_preset(extend_presets, detail::deferred<Deferred>(extend_preset_choices).list(), name, setting);
}
/// The preset's name. (A template only so that the registry is built where a name is read: call it as a function.)
template <class Deferred = void>
PROVPOL_NODISCARD constexpr const char* to_text(extend_preset p) noexcept {
    return preset_name(detail::deferred<Deferred>(extend_preset_registry), p);
}

namespace detail {
// The kinds of extend preset, by what the registry makes of them.
template <class V>
inline constexpr bool is_vdsm_preset_v = detail::is_same_v<V, vdsm_policy>;
template <class V>
inline constexpr bool is_lvm_preset_v =
    detail::is_same_v<V, lvm_thin_policy> || detail::is_same_v<V, lvm_autoextend_config>;
template <class V>
inline constexpr bool is_stratis_preset_v = detail::is_same_v<V, stratis_config>;
struct vdsm_kind {
    template <class V>
    static constexpr bool of = is_vdsm_preset_v<V>;
};
struct lvm_kind {
    template <class V>
    static constexpr bool of = is_lvm_preset_v<V>;
};
struct stratis_kind {
    template <class V>
    static constexpr bool of = is_stratis_preset_v<V>;
};
// "prefix" and the names of the registry's presets of a kind, "a, b, c", and ")": the accessors' errors.
template <class Kind, class Deferred>
constexpr preset_list extend_kind_message(const char* prefix) noexcept {
    preset_list out;
    out.append(prefix);
    extend_preset_registry.for_each([&out, first = true](const preset_info<extend_preset>& e, auto make) mutable {
        if constexpr (Kind::template of<decltype(make())>) {
            if (!first) out.append(", ");
            out.append(e.name);
            first = false;
        }
    });
    out.append(')');
    return out;
}
// The accessors' errors, as variable templates: built where an accessor is compiled, not where the header is included.
template <class Deferred = void>
inline constexpr preset_list vdsm_from_lvm =
    extend_kind_message<vdsm_kind, Deferred>("an LVM preset is not a VDSM configuration (expected one of ");
template <class Deferred = void>
inline constexpr preset_list vdsm_from_other = extend_kind_message<vdsm_kind, Deferred>(
    "a Stratis or XenServer preset is not a VDSM configuration (expected one of ");
template <class Deferred = void>
inline constexpr preset_list lvm_from_vdsm =
    extend_kind_message<lvm_kind, Deferred>("a VDSM preset is not an LVM configuration (expected one of ");
template <class Deferred = void>
inline constexpr preset_list lvm_from_other = extend_kind_message<lvm_kind, Deferred>(
    "a Stratis or XenServer preset is not an LVM configuration (expected one of ");
template <class Deferred = void>
inline constexpr preset_list stratis_from_other =
    extend_kind_message<stratis_kind, Deferred>("not a Stratis preset (expected one of ");
}  // namespace detail

/// The VDSM configuration of a VDSM preset; an error naming the setting for one that is not VDSM's.
template <class Deferred = void>
PROVPOL_NODISCARD constexpr result<vdsm_config> vdsm_config_of(extend_preset p,
                                                               const char* setting = "preset") noexcept {
    return extend_preset_registry.visit(p, [setting](const auto& v) -> result<vdsm_config> {
        using V = detail::remove_cvref_t<decltype(v)>;
        if constexpr (detail::is_vdsm_preset_v<V>)
            return v.trigger().config;
        else
            return unexpected(error::unsupported(
                setting,
                static_text::of_static(detail::is_lvm_preset_v<V> ? detail::vdsm_from_lvm<Deferred>.c_str()
                                                                  : detail::vdsm_from_other<Deferred>.c_str())));
    });
}

/// The LVM autoextend configuration of an LVM preset; an error naming the setting for one that is not LVM's.
template <class Deferred = void>
PROVPOL_NODISCARD constexpr result<lvm_autoextend_config> lvm_config_of(extend_preset p,
                                                                        const char* setting = "preset") noexcept {
    return extend_preset_registry.visit(p, [setting](const auto& v) -> result<lvm_autoextend_config> {
        using V = detail::remove_cvref_t<decltype(v)>;
        if constexpr (detail::is_same_v<V, lvm_thin_policy>)
            return v.trigger().config;
        else if constexpr (detail::is_same_v<V, lvm_autoextend_config>)
            return v;
        else
            return unexpected(error::unsupported(
                setting,
                static_text::of_static(detail::is_vdsm_preset_v<V> ? detail::lvm_from_vdsm<Deferred>.c_str()
                                                                   : detail::lvm_from_other<Deferred>.c_str())));
    });
}

/// The part of stratisd's check a Stratis preset names.
enum class stratis_part : unsigned char {
    data = 0,       ///< the data device (check())
    metadata = 1,   ///< the metadata device and its spare (check())
    filesystem = 2  ///< one filesystem (check_fs())
};

/// "data", "metadata", "filesystem".
PROVPOL_NODISCARD constexpr const char* to_text(stratis_part p) noexcept {
    switch (p) {
        case stratis_part::data:
            return "data";
        case stratis_part::metadata:
            return "metadata";
        case stratis_part::filesystem:
            return "filesystem";
    }
    return "unknown";
}

/// The part of the check a Stratis preset names; an error naming the setting for one that is not Stratis's.
template <class Deferred = void>
PROVPOL_NODISCARD constexpr result<stratis_part> stratis_part_of(extend_preset p,
                                                                 const char* setting = "preset") noexcept {
    switch (p) {
        case extend_preset::stratis_data:
        case extend_preset::stratis_3_0_data:
        case extend_preset::stratis_3_3_data:
            return stratis_part::data;
        case extend_preset::stratis_metadata:
        case extend_preset::stratis_3_0_metadata:
        case extend_preset::stratis_3_7_metadata:
            return stratis_part::metadata;
        case extend_preset::stratis_filesystem:
        case extend_preset::stratis_3_0_filesystem:
        case extend_preset::stratis_3_1_filesystem:
            return stratis_part::filesystem;
        default:
            break;
    }
    return unexpected(
        error::unsupported(setting, static_text::of_static(detail::stratis_from_other<Deferred>.c_str())));
}

/// The Stratis constants of a Stratis preset: stratisd 3.0's for the stratis-3.0-* presets, the 3.1 line's (as
/// stratisd 3.9.2 has them) for the others; an error naming the setting for one that is not Stratis's.
template <class Deferred = void>
PROVPOL_NODISCARD constexpr result<stratis_config> stratis_config_of(extend_preset p,
                                                                     const char* setting = "preset") noexcept {
    return extend_preset_registry.visit(p, [setting](const auto& v) -> result<stratis_config> {
        using V = detail::remove_cvref_t<decltype(v)>;
        if constexpr (detail::is_stratis_preset_v<V>)
            return v;
        else
            return unexpected(
                error::unsupported(setting, static_text::of_static(detail::stratis_from_other<Deferred>.c_str())));
    });
}

}  // namespace provpol

#endif  // PROVPOL_EXTEND_PRESETS_HPP
