// provpol/extend/docker_devmapper.hpp - Docker's devicemapper storage driver, exact to moby's last commit with it:
// the autoextend profile its direct-lvm setup writes (docker_direct_lvm, lvm2's rule with Docker's settings), the
// free-space floor under which it refuses new devices (dm.min_free_space: docker_pool_has_free_space), the loopback
// files of a loop-lvm pool (docker_loopback_size) and the pool's low-water mark.
//
// Sources: moby/moby at 81359cecdf25c08481b378ae7b54bc8d6cbc0476 (2023-04-20), the parent of dc11d2a2d8e1 that
// removed the driver ("remove deprecated devicemapper storage-driver"):
//   daemon/graphdriver/devmapper/deviceset.go:37    defaultDataLoopbackSize = 100 GiB
//   daemon/graphdriver/devmapper/deviceset.go:38    defaultMetaDataLoopbackSize = 2 GiB
//   daemon/graphdriver/devmapper/deviceset.go:39    defaultBaseFsSize = 10 GiB (a container's thin device)
//   daemon/graphdriver/devmapper/deviceset.go:40    defaultThinpBlockSize = 128 sectors (64 KiB)
//   daemon/graphdriver/devmapper/deviceset.go:48    defaultMinFreeSpacePercent = 10
//   daemon/graphdriver/devmapper/deviceset.go:261   ensureImage: a loopback file is created at its size, grown to a
//                                                   larger one, never shrunk
//   daemon/graphdriver/devmapper/deviceset.go:759   poolHasFreeSpace: percent 0 checks nothing; else at least
//                                                   max(1, total x percent / 100) blocks free, data then metadata
//   daemon/graphdriver/devmapper/deviceset.go:2583  Status's MinFreeSpace (docker info's "Min Free Space"):
//                                                   floor(total x percent / 100) x block sectors x 512, without
//                                                   poolHasFreeSpace's max(1): 0 for a pool under 100 / percent blocks
//   daemon/graphdriver/devmapper/deviceset.go:2713  dm.min_free_space: "N%", N < 100
//   daemon/graphdriver/devmapper/deviceset.go:2760  dm.thinp_autoextend_percent, _threshold: at most 100
//   daemon/graphdriver/devmapper/device_setup.go:183 autoextend percent 0 -> 20, threshold 0 -> 80
//   daemon/graphdriver/devmapper/device_setup.go:217 lvconvert -c 512K: the direct-lvm pool's chunk
//   daemon/graphdriver/devmapper/device_setup.go:222 the profile: thin_pool_autoextend_threshold, _percent
//   pkg/devicemapper/devmapper.go:449               the thin-pool table's low-water mark: 32768 blocks
// The VG is made by a plain vgcreate, so its extent is lvm2's DEFAULT_EXTENT_SIZE (4 MiB, extend/lvm.hpp).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_EXTEND_DOCKER_DEVMAPPER_HPP
#define PROVPOL_EXTEND_DOCKER_DEVMAPPER_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../error.hpp"
#include "../result.hpp"
#include "lvm.hpp"

#include <cstdint>

namespace provpol {

// ============================================================================================================
// direct-lvm: lvm2 autoextends the pool with the profile Docker writes

/// The chunk of the pool Docker's direct-lvm setup converts (lvconvert -c 512K).
inline constexpr bytes docker_direct_lvm_chunk = bytes(std::uint64_t{512} << 10);

/// The lvm2 autoextend configuration Docker's direct-lvm setup writes to /etc/lvm/profile/docker-thinpool.profile
/// from dm.thinp_autoextend_threshold and dm.thinp_autoextend_percent: 0 (unset) is Docker's default, 80 and 20;
/// above 100 is refused as Docker refuses it (100 is accepted: lvm2 then never extends). The pool's chunk is
/// 512 KiB, the VG's extent lvm2's default 4 MiB. What lvm2 then decides is decide_lvm_autoextend's. The two are
/// named as lvm_autoextend_config::make names them: `docker_direct_lvm(lvm_threshold(90), lvm_percent(10))`.
PROVPOL_NODISCARD constexpr result<lvm_autoextend_config> docker_direct_lvm(
    lvm_threshold threshold_option = lvm_threshold(0), lvm_percent percent_option = lvm_percent(0)) noexcept {
    const std::uint64_t threshold = threshold_option.value, percent = percent_option.value;
    if (threshold > 100)
        return unexpected(error::out_of_range("dm.thinp_autoextend_threshold", error_value::of(threshold),
                                              error_value::of(0), error_value::of(100)));
    if (percent > 100)
        return unexpected(error::out_of_range("dm.thinp_autoextend_percent", error_value::of(percent),
                                              error_value::of(0), error_value::of(100)));
    return lvm_autoextend_config::make(
        lvm_threshold(threshold == 0 ? 80 : threshold), lvm_percent(percent == 0 ? 20 : percent),
        lvm_extent_size(bytes(std::uint64_t{4} << 20)), lvm_chunk_size(docker_direct_lvm_chunk));
}
/// Refused: the two integers trade places unseen (lvm_threshold and lvm_percent name them).
result<lvm_autoextend_config> docker_direct_lvm(std::uint64_t, std::uint64_t) = delete;

/// Docker's direct-lvm pool as it sets it up by default: lvm2 grows it by 20% when data usage passes 80%.
PROVPOL_NODISCARD constexpr lvm_autoextend_config docker_devicemapper() noexcept {
    return detail::valid(docker_direct_lvm());
}

// ============================================================================================================
// The driver's own settings

/// dm.blocksize: the loop-lvm pool's block. docker_devmapper_config::make takes its four sizes by role, so that
/// none can take another's place: `make(10, docker_block_size(64_KiB), docker_loop_data_size(100_GiB))`.
struct docker_block_size {
    constexpr explicit docker_block_size(bytes v) noexcept : value(v) {}
    bytes value;
};
/// dm.loopdatasize: the loop-lvm pool's data file.
struct docker_loop_data_size {
    constexpr explicit docker_loop_data_size(bytes v) noexcept : value(v) {}
    bytes value;
};
/// dm.loopmetadatasize: the loop-lvm pool's metadata file.
struct docker_loop_metadata_size {
    constexpr explicit docker_loop_metadata_size(bytes v) noexcept : value(v) {}
    bytes value;
};
/// dm.basesize: a container's thin device.
struct docker_base_size {
    constexpr explicit docker_base_size(bytes v) noexcept : value(v) {}
    bytes value;
};

/// The devicemapper driver's own settings: dm.min_free_space, dm.blocksize (the loop-lvm pool's block),
/// dm.loopdatasize, dm.loopmetadatasize and dm.basesize, validated.
class docker_devmapper_config {
public:
    /// The defaults are Docker's (deviceset.go:37-48). min_free_space is a percent below 100 (0 checks nothing); the
    /// block a multiple of 64 KiB from 64 KiB to 1 GiB (dm-thin's range; Docker passes it on unchecked); the
    /// loopback and base sizes from 1 byte to 2^60.
    PROVPOL_NODISCARD static constexpr result<docker_devmapper_config> make(
        std::uint64_t min_free_space_percent = 10,
        docker_block_size block_size = docker_block_size(bytes(std::uint64_t{64} << 10)),
        docker_loop_data_size data_loopback = docker_loop_data_size(bytes(std::uint64_t{100} << 30)),
        docker_loop_metadata_size metadata_loopback = docker_loop_metadata_size(bytes(std::uint64_t{2} << 30)),
        docker_base_size base_size = docker_base_size(bytes(std::uint64_t{10} << 30))) noexcept {
        const bytes block = block_size.value;
        if (min_free_space_percent > 99)
            return unexpected(error::out_of_range("dm.min_free_space", error_value::of(min_free_space_percent),
                                                  error_value::of(0), error_value::of(99)));
        constexpr std::uint64_t k64 = std::uint64_t{64} << 10;
        if (block.count() < k64 || block.count() > (std::uint64_t{1} << 30))
            return unexpected(error::out_of_range("dm.blocksize", error_value::of_size(block.count()),
                                                  error_value::of_size(k64),
                                                  error_value::of_size(std::uint64_t{1} << 30)));
        if (!is_aligned(block.count(), k64))
            return unexpected(
                error::not_a_multiple("dm.blocksize", error_value::of_size(block.count()), error_value::of_size(k64)));
        constexpr std::uint64_t cap = std::uint64_t{1} << 60;
        const char* names[3] = {"dm.loopdatasize", "dm.loopmetadatasize", "dm.basesize"};
        const bytes sizes[3] = {data_loopback.value, metadata_loopback.value, base_size.value};
        for (int i = 0; i < 3; ++i)
            if (sizes[i].count() < 1 || sizes[i].count() > cap)
                return unexpected(error::out_of_range(names[i], error_value::of_size(sizes[i].count()),
                                                      error_value::of_size(1), error_value::of_size(cap)));
        return docker_devmapper_config(static_cast<std::uint32_t>(min_free_space_percent), block, sizes[0], sizes[1],
                                       sizes[2]);
    }
    /// Refused: the sizes in a row trade places unseen (the role types above name each).
    static result<docker_devmapper_config> make(std::uint64_t, bytes, bytes = bytes(), bytes = bytes(),
                                                bytes = bytes()) = delete;

    PROVPOL_NODISCARD constexpr std::uint32_t min_free_space_percent() const noexcept { return percent_; }
    PROVPOL_NODISCARD constexpr bytes block() const noexcept { return block_; }
    PROVPOL_NODISCARD constexpr bytes data_loopback() const noexcept { return data_; }
    PROVPOL_NODISCARD constexpr bytes metadata_loopback() const noexcept { return metadata_; }
    PROVPOL_NODISCARD constexpr bytes base_size() const noexcept { return base_; }
    /// The loop-lvm pool's low-water mark: 32768 blocks (pkg/devicemapper/devmapper.go:449), 2 GiB of 64 KiB blocks.
    /// The kernel raises a dm event there; Docker registers nothing for it, so nothing extends a loop-lvm pool.
    static constexpr blocks low_water_blocks = blocks(32768);
    PROVPOL_NODISCARD constexpr bytes low_water() const noexcept { return size_of(low_water_blocks, block_); }

    friend constexpr bool operator==(const docker_devmapper_config& a, const docker_devmapper_config& b) noexcept {
        return a.percent_ == b.percent_ && a.block_ == b.block_ && a.data_ == b.data_ && a.metadata_ == b.metadata_ &&
               a.base_ == b.base_;
    }
    friend constexpr bool operator!=(const docker_devmapper_config& a, const docker_devmapper_config& b) noexcept {
        return !(a == b);
    }

private:
    constexpr docker_devmapper_config(std::uint32_t percent, bytes block, bytes data, bytes metadata,
                                      bytes base) noexcept
        : block_(block), data_(data), metadata_(metadata), base_(base), percent_(percent) {}

    bytes block_;
    bytes data_;
    bytes metadata_;
    bytes base_;
    std::uint32_t percent_;
};

/// Docker's defaults: dm.min_free_space=10%, 64 KiB blocks, 100 GiB and 2 GiB loopback files, 10 GiB base devices.
PROVPOL_NODISCARD constexpr docker_devmapper_config docker_devmapper_defaults() noexcept {
    return detail::valid(docker_devmapper_config::make());
}

// ============================================================================================================
// dm.min_free_space: may a new device (a container or an image layer) be created?

/// Why poolHasFreeSpace refuses, or none.
enum class docker_free_space : unsigned char {
    ok = 0,           ///< enough free data and metadata (or the check is off, percent 0)
    low_data = 1,     ///< "Thin Pool has N free data blocks which is less than minimum required M"
    low_metadata = 2  ///< the same for metadata blocks (checked only when data passes)
};

/// "ok", "low-data", "low-metadata".
PROVPOL_NODISCARD constexpr const char* to_text(docker_free_space v) noexcept {
    switch (v) {
        case docker_free_space::ok:
            return "ok";
        case docker_free_space::low_data:
            return "low-data";
        case docker_free_space::low_metadata:
            return "low-metadata";
    }
    return "unknown";
}

/// poolHasFreeSpace's answer and the floors it compared with.
struct docker_free_space_decision {
    blocks min_free_data;       ///< data blocks that must stay free: max(1, total x percent / 100); 0 when off
    blocks min_free_metadata;   ///< the same for metadata blocks; 0 when off or not reached
    bytes min_free_space;       ///< what `docker info` shows (docker_info_min_free_space): no max(1) there
    docker_free_space verdict;  ///< ok, or which floor refused the device
};

/// What poolHasFreeSpace reads of the pool's status (devicemapper's GetStatus, `dmsetup status`: used/total metadata
/// blocks of 4 KiB, then used/total data blocks of the pool's block). Not an aggregate: each count is set by name
/// (`s.data_used = blocks(900);`), so that the four counts, all blocks, cannot be given in the wrong order (the
/// status lists metadata before data); a count not set is 0.
struct docker_pool_status {
    blocks data_used;       ///< used data blocks
    blocks data_total;      ///< data blocks in all
    blocks metadata_used;   ///< used metadata blocks
    blocks metadata_total;  ///< metadata blocks in all

    // NOLINTNEXTLINE(modernize-use-equals-default): user-provided, so that no positional {a, b, c, d} compiles
    constexpr docker_pool_status() noexcept {}
};

/// `docker info`'s "Min Free Space" (Status's MinFreeSpace, deviceset.go:2583): floor(total data blocks x
/// dm.min_free_space / 100) blocks in bytes. Unlike the floor poolHasFreeSpace enforces, it has no max(1): a pool of
/// fewer than 100 / percent blocks shows 0 while a new device still needs one free block; percent 0 shows 0.
PROVPOL_NODISCARD constexpr bytes docker_info_min_free_space(const docker_devmapper_config& c,
                                                             blocks data_total) noexcept {
    return size_of(blocks(ratio_of(data_total.count(), c.min_free_space_percent(), 100, rounding::down)), c.block());
}

/// docker_info_min_free_space's earlier spelling, kept for one release (CHANGELOG.md): the total is blocks now.
[[deprecated("use docker_info_min_free_space(config, blocks data_total)")]] PROVPOL_NODISCARD constexpr bytes
docker_info_min_free_space(const docker_devmapper_config& c, std::uint64_t data_total) noexcept {
    return docker_info_min_free_space(c, blocks(data_total));
}

/// Docker's check before it creates a thin device, from the pool's status (used and total blocks; data blocks of
/// the pool's block, metadata blocks of 4 KiB): free data under max(1, floor(total x percent / 100)) refuses, then
/// free metadata under the same floor of its own; percent 0 checks nothing. Used above total counts as full.
PROVPOL_NODISCARD constexpr docker_free_space_decision docker_pool_has_free_space(
    const docker_devmapper_config& c, const docker_pool_status& s) noexcept {
    docker_free_space_decision d{};
    d.verdict = docker_free_space::ok;
    d.min_free_space = docker_info_min_free_space(c, s.data_total);
    if (c.min_free_space_percent() == 0) return d;
    // total x percent in 64 bits as Go computes it: exact below 2^57 blocks, which no pool has (2^73 bytes).
    const auto floor_of = [&](blocks total) {
        return max(blocks(ratio_of(total.count(), c.min_free_space_percent(), 100, rounding::down)), blocks(1));
    };
    d.min_free_data = floor_of(s.data_total);
    if (s.data_total - s.data_used < d.min_free_data) {  // blocks' minus saturates: used above total is no room
        d.verdict = docker_free_space::low_data;
        return d;
    }
    d.min_free_metadata = floor_of(s.metadata_total);
    if (s.metadata_total - s.metadata_used < d.min_free_metadata) d.verdict = docker_free_space::low_metadata;
    return d;
}
/// The four counts in a row are refused: they trade places unseen (docker_pool_status names them).
docker_free_space_decision docker_pool_has_free_space(const docker_devmapper_config&, std::uint64_t, std::uint64_t,
                                                      std::uint64_t, std::uint64_t) = delete;

// ============================================================================================================
// Loopback files (loop-lvm)

/// The size a loopback file has after Docker starts with `wanted` (dm.loopdatasize or dm.loopmetadatasize):
/// a file that does not exist (`existing` 0) is created at `wanted`, a smaller one grown to it, a larger one kept
/// ("Can't shrink loopback file").
PROVPOL_NODISCARD constexpr bytes docker_loopback_size(bytes existing, bytes wanted) noexcept {
    return existing < wanted ? wanted : existing;
}

}  // namespace provpol

#endif  // PROVPOL_EXTEND_DOCKER_DEVMAPPER_HPP
