// provpol/extend/vdsm_sizes.hpp - oVirt VDSM's size rules around the extend policy: which drives are chunked
// (monitored and extended), a new volume's LV size, the optimal size after a merge or for a reduce, the base
// volume's extend before a live merge, and a capacity resize.
//
// Sources (oVirt/vdsm): lib/vdsm/virt/vmdevices/storage.py (Drive.chunked, Drive.replicaChunked,
// Drive.getMaxVolumeSize), lib/vdsm/virt/thinp.py (VolumeMonitor._amend_block_info), lib/vdsm/storage/
// blockVolume.py (calculate_volume_alloc_size, optimal_cow_size, optimal_size, can_reduce, _create, extend),
// lib/vdsm/storage/volume.py (max_size, extendSize), lib/vdsm/virt/livemerge.py (_base_needs_extend,
// _validate_base_size) and lib/vdsm/storage/hsm.py (extendVolume, extendVolumeSize).
//
// Not part of extend.hpp nor of the embedder's umbrella provpol.hpp (their compile cost, docs/design.md), only of
// models.hpp: include it by name.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_EXTEND_VDSM_SIZES_HPP
#define PROVPOL_EXTEND_VDSM_SIZES_HPP

#include "../bytes.hpp"
#include "../error.hpp"
#include "../result.hpp"
#include "vdsm.hpp"

#include <cstdint>

namespace provpol {

// ============================================================================================================
// Which drives are chunked

/// A drive's storage as VDSM tells it apart: its disk type (storage.py DISK_TYPE) and, for block, its format.
/// A file or network drive's format does not change any rule, so it is not part of the kind.
enum class vdsm_drive_type : unsigned char {
    block_cow,  ///< a qcow2 volume on an LV: chunked
    block_raw,  ///< a raw LV (preallocated) or a LUN: not chunked
    file,       ///< a file on NFS, GlusterFS or a POSIX domain: the file system allocates, not VDSM
    network,    ///< a network disk (libgfapi, Ceph): not chunked
};
/// "block_cow", "block_raw", "file" or "network".
PROVPOL_NODISCARD constexpr const char* to_text(vdsm_drive_type e) noexcept {
    constexpr const char* names[] = {"block_cow", "block_raw", "file", "network"};
    static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(vdsm_drive_type::network) + 1,
                  "a name each");
    return detail::enum_name(names, e);
}

/// storage.py Drive.chunked: "diskType == BLOCK and format == cow" (and Drive.replicaChunked for a replica).
PROVPOL_NODISCARD constexpr bool vdsm_chunked(vdsm_drive_type t) noexcept { return t == vdsm_drive_type::block_cow; }

/// Whose physical size the volume monitor compares with the allocation.
enum class vdsm_physical_source : unsigned char {
    none,     ///< neither the drive nor its replica is chunked: VDSM does not monitor the drive
    drive,    ///< the drive is chunked: its own LV size
    replica,  ///< only the replica is chunked: the replica's LV size (thinp.py _amend_block_info)
};
/// "none", "drive" or "replica".
PROVPOL_NODISCARD constexpr const char* to_text(vdsm_physical_source e) noexcept {
    constexpr const char* names[] = {"none", "drive", "replica"};
    static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(vdsm_physical_source::replica) + 1,
                  "a name each");
    return detail::enum_name(names, e);
}

/// Where the monitor's physical size comes from, for a drive and an optional replica (live storage migration).
/// VDSM monitors a drive that is chunked or whose replica is (storage.py Drive.needs_monitoring); libvirt
/// reports the same allocation and physical for a file drive, so a drive that is not chunked but replicates to
/// a chunked replica takes the replica's physical size (thinp.py VolumeMonitor._amend_block_info).
PROVPOL_NODISCARD constexpr vdsm_physical_source vdsm_physical_source_of(vdsm_drive_type drive, bool replicating,
                                                                         vdsm_drive_type replica) noexcept {
    if (vdsm_chunked(drive)) return vdsm_physical_source::drive;
    if (replicating && vdsm_chunked(replica)) return vdsm_physical_source::replica;
    return vdsm_physical_source::none;
}

/// Checks a replica's type: storage.py Drive.needs_monitoring's table says replicating to a network drive is
/// not supported (a libvirt/QEMU limit).
PROVPOL_NODISCARD constexpr result<vdsm_drive_type> vdsm_check_replica(vdsm_drive_type replica) noexcept {
    if (replica == vdsm_drive_type::network)
        return unexpected(error::unsupported("replica_type", "VDSM cannot replicate to a network drive"));
    return replica;
}

// ============================================================================================================
// Volume sizes on a block storage domain

/// A volume's format (storage constants.py COW_FORMAT, RAW_FORMAT).
enum class vdsm_volume_format : unsigned char { cow, raw };
/// "cow" or "raw", as VDSM's constants.py names the formats.
PROVPOL_NODISCARD constexpr const char* to_text(vdsm_volume_format e) noexcept {
    constexpr const char* names[] = {"cow", "raw"};
    static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(vdsm_volume_format::raw) + 1,
                  "a name each");
    return detail::enum_name(names, e);
}
/// A volume's allocation policy (constants.py SPARSE_VOL, PREALLOCATED_VOL).
enum class vdsm_preallocation : unsigned char { sparse, preallocated };
/// "sparse" or "preallocated".
PROVPOL_NODISCARD constexpr const char* to_text(vdsm_preallocation e) noexcept {
    constexpr const char* names[] = {"sparse", "preallocated"};
    static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(vdsm_preallocation::preallocated) + 1,
                  "a name each");
    return detail::enum_name(names, e);
}

/// What lvcreate and lvextend make of a size VDSM asks for: VDSM passes whole MiB, rounded up
/// (blockVolume.py _create and extend, hsm.py extendVolume: utils.round(size, MiB) // MiB), and LVM rounds up to
/// the extent.
PROVPOL_NODISCARD constexpr bytes vdsm_lv_size(bytes requested, bytes extent) noexcept {
    constexpr std::uint64_t mib = std::uint64_t{1} << 20;
    return bytes(align_up(align_up(requested.count(), mib), extent.count()));
}

/// hsm.py extendVolume's request: the size in whole MiB, rounded up (utils.round(size, MiB) // MiB).
PROVPOL_NODISCARD constexpr std::uint64_t vdsm_size_mb(bytes requested) noexcept {
    return align_up(requested.count(), std::uint64_t{1} << 20) >> 20;
}

/// volume.py create: a new volume's capacity (and initial size), rounded up to 4 KiB (sc.BLOCK_SIZE_4K).
PROVPOL_NODISCARD constexpr bytes vdsm_volume_capacity(bytes requested) noexcept {
    return bytes(align_up(requested.count(), std::uint64_t{4096}));
}

/// The size rules of VDSM's block volumes (blockVolume.py, volume.py), for one configuration: the chunk
/// ([irs] volume_utilization_chunk_mb) and the VG extent (constants.py VG_EXTENT_SIZE, 128 MiB; BlockVolume's
/// align_size). Made only from a validated vdsm_config, so every decision is total.
class vdsm_block_sizes {
public:
    constexpr explicit vdsm_block_sizes(const vdsm_config& c) noexcept : chunk_(c.chunk()), extent_(c.extent()) {}

    PROVPOL_NODISCARD constexpr bytes chunk() const noexcept { return chunk_; }
    PROVPOL_NODISCARD constexpr bytes extent() const noexcept { return extent_; }

    /// volume.py max_size: a raw volume's capacity; a cow volume's roundup(floor(capacity * 1.1), extent)
    /// (sc.COW_OVERHEAD = 1.1, aligned to BlockVolume.align_size). Saturates near 2^64.
    PROVPOL_NODISCARD constexpr bytes max_size(vdsm_volume_format f, bytes capacity) const noexcept {
        if (f == vdsm_volume_format::raw) return capacity;
        return bytes(detail::qcow2_max(capacity.count(), extent_.count()));
    }

    /// blockVolume.py calculate_volume_alloc_size: the bytes VDSM asks for a new volume. An initial size of 0
    /// means none (VDSM tests it for truth). Refused: an initial size for a raw volume, and one above
    /// max_size(cow, capacity); an initial size equal to the maximum is accepted and grows by the overhead
    /// (VDSM's own comment says so). Sparse cow: floor(initial * 1.1) (QCOW_OVERHEAD_FACTOR), or without one
    /// min(chunk, capacity); preallocated: the initial size, or the capacity. A sparse raw volume is not a block
    /// volume VDSM creates (constants.py: raw on block is preallocated); it gets the preallocated rule, as VDSM's
    /// code does.
    PROVPOL_NODISCARD constexpr result<bytes> alloc_size(vdsm_preallocation p, vdsm_volume_format f, bytes capacity,
                                                         bytes initial) const noexcept {
        if (initial.count() != 0) {
            if (f == vdsm_volume_format::raw)
                return unexpected(error::unsupported("initial_size", "an initial size is not supported for raw volumes",
                                                     error_value::of_size(initial.count())));
            const bytes most = max_size(vdsm_volume_format::cow, capacity);
            if (initial > most)
                return unexpected(error::out_of_range("initial_size", error_value::of_size(initial.count()),
                                                      error_value::of_size(0), error_value::of_size(most.count())));
        }
        if (p == vdsm_preallocation::sparse && f == vdsm_volume_format::cow) {
            if (initial.count() != 0) return bytes(detail::qcow2_overhead(initial.count()));
            return min(chunk_, capacity);
        }
        return initial.count() != 0 ? initial : capacity;
    }

    /// The LV a new volume gets (volume.py create, then blockVolume.py _create): the capacity and the initial size
    /// rounded up to 4 KiB (vdsm_volume_capacity), alloc_size of those, in whole MiB, rounded up to the extent by
    /// lvcreate.
    PROVPOL_NODISCARD constexpr result<bytes> new_volume_size(vdsm_preallocation p, vdsm_volume_format f,
                                                              bytes capacity, bytes initial) const noexcept {
        const result<bytes> a = alloc_size(p, f, vdsm_volume_capacity(capacity), vdsm_volume_capacity(initial));
        if (!a) return a;
        return vdsm_lv_size(*a, extent_);
    }

    /// blockVolume.py optimal_cow_size: a leaf's required size plus one chunk (so that a started VM does not
    /// pause at once), an internal volume's required size, rounded up to the extent and capped at
    /// max_size(cow, capacity). `required` is qemu-img check's offset (the volume's actual size) or, for the base
    /// after a merge, the measured size; an internal volume's cannot be 0 (it holds the qcow2 metadata; VDSM
    /// asserts it).
    PROVPOL_NODISCARD constexpr result<bytes> optimal_cow_size(bytes required, bytes capacity,
                                                               bool leaf) const noexcept {
        if (!leaf && required.count() == 0)
            return unexpected(
                error::out_of_range("actual_size", error_value::of_size(0), error_value::of_size(1), error_value{}));
        const std::uint64_t want = leaf ? saturating_add(required.count(), chunk_.count()) : required.count();
        const bytes aligned(align_up(want, extent_.count()));
        return min(aligned, max_size(vdsm_volume_format::cow, capacity));
    }

    /// blockVolume.py optimal_size: a raw volume's capacity; a cow volume's optimal_cow_size (`leaf` is
    /// isLeaf() or as_leaf, the base volume about to become the leaf after a merge).
    PROVPOL_NODISCARD constexpr result<bytes> optimal_size(vdsm_volume_format f, bytes actual, bytes capacity,
                                                           bool leaf) const noexcept {
        if (f == vdsm_volume_format::raw) return capacity;
        return optimal_cow_size(actual, capacity, leaf);
    }

private:
    bytes chunk_;
    bytes extent_;
};

/// blockVolume.py can_reduce: only a sparse cow volume can be reduced (chunked() and type SPARSE).
PROVPOL_NODISCARD constexpr bool vdsm_can_reduce(vdsm_volume_format f, vdsm_preallocation p) noexcept {
    return f == vdsm_volume_format::cow && p == vdsm_preallocation::sparse;
}

// ============================================================================================================
// The base volume's extend before a live merge

/// What livemerge.py _base_needs_extend decides.
enum class vdsm_merge_action : unsigned char {
    commit = 0,       ///< base has room: start the commit at once
    extend = 1,       ///< extend the base to new_size first
    not_chunked = 2,  ///< the drive is not chunked or the base is not cow: VDSM never extends it
    at_maximum = 3,   ///< the base is at (or, rounded to the extent, past) its maximum: commit at once
};

/// The decision and the sizes behind it.
struct vdsm_merge_decision {
    vdsm_merge_action action;
    bytes required;  ///< measured required size plus bitmaps
    bytes max_size;  ///< Drive.getMaxVolumeSize(capacity): roundup(floor(capacity * 1.1), 1 MiB)
    bytes new_size;  ///< the size VDSM asks for (0 unless extend)
    bytes lv_size;  ///< the base LV after the extend: new_size in whole MiB, rounded up to the extent (0 unless extend)
};

/// The inputs of one merge: the base's capacity and current size (apparentsize), qemu-img measure's required and
/// bitmaps sizes for top into base, and whether the merge is an active commit (the top is the leaf).
struct vdsm_merge_input {
    bytes capacity;
    bytes current;
    bytes required;
    bytes bitmaps;
    bool active_commit = false;
    bool chunked = true;   ///< drive.chunked
    bool base_cow = true;  ///< the base's format is cow
};

/// livemerge.py _base_needs_extend: nothing for a drive that is not chunked or a base that is not cow; nothing
/// when the base is at its maximum (current >= max_size); an active commit extends when required + bitmaps +
/// one chunk exceeds the current size, to that sum (one chunk of free space, so the guest does not pause during
/// or right after the extend); an internal merge when required + bitmaps does, to that sum. Sums saturate.
PROVPOL_NODISCARD constexpr vdsm_merge_decision vdsm_merge_extend(const vdsm_config& c,
                                                                  const vdsm_merge_input& in) noexcept {
    vdsm_merge_decision d{};
    d.required = saturating_add(in.required, in.bitmaps);
    d.max_size = bytes(detail::qcow2_max(in.capacity.count(), std::uint64_t{1} << 20));
    if (!in.chunked || !in.base_cow) {
        d.action = vdsm_merge_action::not_chunked;
        return d;
    }
    if (in.current >= d.max_size) {
        d.action = vdsm_merge_action::at_maximum;
        return d;
    }
    const bytes want = in.active_commit ? saturating_add(d.required, c.chunk()) : d.required;
    if (want > in.current) {
        d.action = vdsm_merge_action::extend;
        d.new_size = want;
        d.lv_size = vdsm_lv_size(want, c.extent());
    } else {
        d.action = vdsm_merge_action::commit;
    }
    return d;
}

/// livemerge.py _validate_base_size: a raw base on block storage cannot be extended by libvirt, so a merge into
/// one smaller than the top is refused (engine must extend it first).
PROVPOL_NODISCARD constexpr result<bytes> vdsm_check_raw_base(bytes base_capacity, bytes top_capacity) noexcept {
    if (base_capacity < top_capacity)
        return unexpected(error::conflict("base_capacity", error_value::of_size(base_capacity.count()),
                                          "must be at least", "top_capacity",
                                          error_value::of_size(top_capacity.count())));
    return base_capacity;
}

/// The text of a merge action, kebab-case.
PROVPOL_NODISCARD constexpr const char* to_text(vdsm_merge_action a) noexcept {
    switch (a) {
        case vdsm_merge_action::commit:
            return "commit";
        case vdsm_merge_action::extend:
            return "extend";
        case vdsm_merge_action::not_chunked:
            return "not-chunked";
        case vdsm_merge_action::at_maximum:
            return "at-maximum";
    }
    return "unknown";
}

// ============================================================================================================
// A capacity resize

/// What volume.py extendSize does for a new capacity.
enum class vdsm_resize_action : unsigned char {
    grow = 0,        ///< the volume grows to the new capacity
    unchanged = 1,   ///< the new capacity equals the current one: nothing to do
    sparse_cow = 2,  ///< a sparse cow volume: only its qcow2 header changes (hsm.py updateVolumeSize), not its size
};

/// The decision: the action and, for grow, the new size and the LV it makes on block storage.
struct vdsm_resize_decision {
    vdsm_resize_action action;
    bytes capacity;  ///< the requested capacity rounded up to 4 KiB (hsm.py extendVolumeSize)
    bytes lv_size;   ///< block: the LV after lvextend (whole MiB, then the extent); 0 unless grow
};

/// hsm.py extendVolumeSize and volume.py extendSize: the requested capacity is rounded up to 4 KiB
/// (sc.BLOCK_SIZE_4K); a sparse cow volume is skipped (its size follows the guest's writes); a smaller capacity
/// than the current one is refused (VolumeResizeValueError); an equal one changes nothing; otherwise the volume
/// grows to the new capacity (lvextend on block storage, in whole MiB rounded to the extent). VDSM also refuses a
/// shared (template) or an internal non-base volume (VolumeNonWritable); those are states, not sizes, and are
/// left to the caller.
PROVPOL_NODISCARD constexpr result<vdsm_resize_decision> vdsm_resize(vdsm_volume_format f, vdsm_preallocation p,
                                                                     bytes current, bytes requested,
                                                                     bytes extent) noexcept {
    vdsm_resize_decision d{};
    d.capacity = vdsm_volume_capacity(requested);
    if (f == vdsm_volume_format::cow && p == vdsm_preallocation::sparse) {
        d.action = vdsm_resize_action::sparse_cow;
        return d;
    }
    if (d.capacity < current)
        return unexpected(error::conflict("new_capacity", error_value::of_size(d.capacity.count()), "must be at least",
                                          "capacity", error_value::of_size(current.count())));
    if (d.capacity == current) {
        d.action = vdsm_resize_action::unchanged;
        return d;
    }
    d.action = vdsm_resize_action::grow;
    d.lv_size = vdsm_lv_size(d.capacity, extent);
    return d;
}

/// The text of a resize action, kebab-case.
PROVPOL_NODISCARD constexpr const char* to_text(vdsm_resize_action a) noexcept {
    switch (a) {
        case vdsm_resize_action::grow:
            return "grow";
        case vdsm_resize_action::unchanged:
            return "unchanged";
        case vdsm_resize_action::sparse_cow:
            return "sparse-cow";
    }
    return "unknown";
}

}  // namespace provpol

#endif  // PROVPOL_EXTEND_VDSM_SIZES_HPP
