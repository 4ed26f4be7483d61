// provpol/log_size/topology.hpp - a stripe from the device's I/O topology: what mkfs.xfs (libxfs/topology.c) and mke2fs
// (the stride and stripe width from the device's minimum and optimal I/O sizes) make of it.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_LOG_SIZE_TOPOLOGY_HPP
#define PROVPOL_LOG_SIZE_TOPOLOGY_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../result.hpp"
#include "geometry.hpp"

#include <cstdint>

namespace provpol {

/// A block device's I/O topology as libblkid reports it to mkfs (blkid_topology_get_minimum_io_size and
/// _optimal_io_size: the kernel's BLKIOMIN and BLKIOOPT), with its physical sector size (BLKPBSZGET).
struct device_topology {
    std::uint64_t minimum_io = 0;       ///< bytes; 0: not reported
    std::uint64_t optimal_io = 0;       ///< bytes; 0: not reported
    std::uint64_t physical_sector = 0;  ///< bytes
};

/// Why mkfs.xfs took, or did not take, a stripe from the topology.
enum class topology_stripe_use : unsigned char {
    used,                ///< the stripe below is the one mkfs.xfs uses
    none,                ///< nothing reported (both 0)
    same_as_sector,      ///< minimum or optimal I/O equals the physical sector: reported as no stripe
    invalid,             ///< "Volume reports invalid stripe unit ... ignoring": one of the two is 0, the unit is
                         ///< larger than the width, the width is not a multiple of the unit, or over INT_MAX
    small_volume,        ///< "small data volume, ignoring data volume stripe unit": under 1 GiB of data
    not_block_multiple,  ///< unit or width not a multiple of the block size: cleared (no alignment)
};
/// The case's name as written above: "used", "none", ..., "not_block_multiple".
PROVPOL_NODISCARD constexpr const char* to_text(topology_stripe_use e) noexcept {
    constexpr const char* names[] = {"used", "none", "same_as_sector", "invalid", "small_volume", "not_block_multiple"};
    static_assert(
        sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(topology_stripe_use::not_block_multiple) + 1,
        "a name each");
    return detail::enum_name(names, e);
}

/// The stripe mkfs.xfs takes from the topology when no -d su/sw or sunit/swidth is given.
struct topology_stripe {
    bytes stripe_unit{};             ///< as -d su; 0 unless used
    std::uint32_t stripe_width = 0;  ///< as -d sw (in stripe units); 0 unless used
    topology_stripe_use use = topology_stripe_use::none;
};

/// mkfs.xfs's rule (xfsprogs 6.1 libxfs/topology.c blkid_get_topology, libfrog/topology.c from 6.2; mkfs/xfs_mkfs.c
/// calc_stripe_factors with libxfs_validate_stripe_geometry): minimum and optimal I/O dropped when either equals
/// the physical sector, kept in 512-byte units (rounded down), ignored when not a valid stripe (both or neither,
/// unit <= width, width a multiple of the unit, width <= INT_MAX bytes) or under 1 GiB of data (device_size in
/// blocks, as mkfs counts it), cleared when not multiples of the block size (0: 4096).
PROVPOL_NODISCARD constexpr topology_stripe xfs_stripe_from_topology(const device_topology& t, bytes device_size,
                                                                     std::uint32_t block_size = 0) noexcept {
    topology_stripe r;
    if (t.minimum_io == t.physical_sector || t.optimal_io == t.physical_sector) {
        r.use = topology_stripe_use::same_as_sector;
        return r;
    }
    const std::uint64_t su = t.minimum_io >> 9 << 9, sw = t.optimal_io >> 9 << 9;
    if (su == 0 && sw == 0) return r;  // none
    if (sw > 0x7fffffffULL || su > sw || su == 0 || sw == 0 || sw % su != 0) {
        r.use = topology_stripe_use::invalid;
        return r;
    }
    const std::uint64_t bs = block_size == 0 ? 4096 : block_size;
    if (device_size.count() / bs < (std::uint64_t{1} << 30) / bs) {
        r.use = topology_stripe_use::small_volume;
        return r;
    }
    if (su % bs != 0 || sw % bs != 0) {
        r.use = topology_stripe_use::not_block_multiple;
        return r;
    }
    r.stripe_unit = bytes(su);
    r.stripe_width = static_cast<std::uint32_t>(sw / su);
    r.use = topology_stripe_use::used;
    return r;
}

/// mke2fs's stride and stripe width (blocks) from the topology (e2fsprogs 1.47 misc/mke2fs.c get_device_geometry
/// and PRS): a missing minimum I/O is the physical sector when that exceeds the block size, a missing optimal I/O
/// the minimum (else the physical sector when that exceeds the block size); each is used only when larger than the
/// block size ("setting stripe/stride to blocksize is pointless"), rounded down to blocks.
struct e2fsprogs_stride {
    std::uint64_t stride = 0;        ///< -E stride, blocks (0: none)
    std::uint64_t stripe_width = 0;  ///< -E stripe_width, blocks (0: none)
};
PROVPOL_NODISCARD constexpr e2fsprogs_stride e2fsprogs_stride_from_topology(const device_topology& t,
                                                                            std::uint32_t block_size) noexcept {
    std::uint64_t min_io = t.minimum_io, opt_io = t.optimal_io;
    if (min_io == 0 && t.physical_sector > block_size) min_io = t.physical_sector;
    if (opt_io == 0 && min_io > 0) opt_io = min_io;
    if (opt_io == 0 && t.physical_sector > block_size) opt_io = t.physical_sector;
    e2fsprogs_stride r;
    if (block_size == 0) return r;
    if (min_io > block_size) r.stride = min_io / block_size;
    if (opt_io > block_size) r.stripe_width = opt_io / block_size;
    return r;
}

}  // namespace provpol

#endif  // PROVPOL_LOG_SIZE_TOPOLOGY_HPP
