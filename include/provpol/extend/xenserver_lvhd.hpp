// provpol/extend/xenserver_lvhd.hpp - XenServer's thin-provisioned LVHD ("xlvhd"), exact to xapi-project/sm's last
// release with it: the allocation quantum a VDI grows by (xenserver_allocation_quantum), the initial allocation and
// the sizes a new VDI gets (xenserver_new_vdi: its virtual size normalised and capped as LVHDVDI.create does, its
// LV), and the host's free pool that xenvmd tops up in whole 4 MiB extents (xenserver_host_pool,
// decide_xenserver_host_pool). Thin LVHD never shipped in a GA release: it was in the XenServer "Dundee" (7.0)
// betas 1 and 2, removed from beta 3 on (xenserver.org blog, "XenServer Dundee Beta 3 Available"), and sm's own
// code went in 75fba4cd2090 ("Remove xlvhd thin-provisioning code from SM", v1.16.0).
//
// Sources: xapi-project/sm at tag v1.15.1, b2d54e5a1ba63d29a347dbb68c9c4a43c1d761ca (2016-08-19), the last tag with
// thin provisioning (v1.12.0 to v1.15.1), and xapi-project/xenvm at 401754dfb05376b5fc78c9290453b006f6f38aa1
// (2015-11-09):
//   sm drivers/util.py:1751-1763  xlvhd_adjust_allocation_quantum: default physical / 10000; clamped to
//                                 [physical / 50000, physical / 4000] (integer division); at least 16777216 (16 MiB)
//   sm drivers/util.py:1786       xlvhd_adjust_initial_allocation: default 0, a negative value 0
//   sm drivers/LVHDSR.py:1629-1632 LVHDVDI.MAX_VDI_SIZE_MB = 2093051, VHD_SIZE_INC = MIN_VIRT_SIZE = 2 MiB
//   sm drivers/LVHDSR.py:1687-1694 LVHDVDI.create: size / 1024 / 1024 > MAX_VDI_SIZE_MB refused ("VDI size cannot
//                                 exceed"), then raised to MIN_VIRT_SIZE and rounded up to VHD_SIZE_INC
//   sm drivers/LVHDSR.py:1740-1745 a new xlvhd VDI's LV: roundup(4 MiB, min(max(initial, thin minimum), full size of
//                                 the rounded size))
//   sm drivers/lvhdutil.py:33-38  MSIZE = 2 TiB (metadata preallocated for it), LVM_SIZE_INCREMENT = 4 MiB
//   sm drivers/lvhdutil.py:99     calcSizeVHDLV: roundup(4 MiB, virtual + empty overhead(MSIZE) + bitmaps(virtual))
//   sm drivers/vhdutil.py:64-87   calcOverheadEmpty (3 KiB + 4 bytes per 2 MiB block, to 512; + 1 bit per block, to
//                                 4 KiB) and calcOverheadBitmap (4 KiB per started 2 MiB block)
//   sm drivers/util.py:85         roundup: 0 counts as 1
//   sm drivers/blktap2.py:1553    tapdisk gets the quantum in whole MiB, int(aq / MiB)
//   sm drivers/lvutil.py:288-294  the host's free pool: quantum max(160, 0.5% of the VG in MiB, as a float), low-water
//                                 mark half of it, both written with %d (truncated)
//   xenvm xenvmd/freepool.ml:259  top_up_host: a host's free LV whose extents x the extent size in MiB are under the
//                                 low-water mark (MiB) is grown (journal op ExpandFree, extra_size = the quantum)
//   xenvm xenvmd/freepool.ml:87-94 perform_expand_free: extra_size / extent size in MiB extents (Int64.div, so down
//                                 to a whole extent); fewer free in the VG: all the VG's free extents
//   xenvm xenvm/vgcreate.ml:29    the VG sm creates (lvutil.py:673 createVG runs `xenvm vgcreate`) is formatted with
//                                 no extent size: mirage-block-volume's default, Constants.extent_size, 4 MiB
// The issue that asked for this preset read the VDI quantum as 1% of the virtual size and the initial allocation as
// 20% of it: sm's code has neither (the quantum is 0.01% of the SR's physical size, the initial allocation 0 by
// default). xenvm's own setup.sh and test.ml use a 128 MiB quantum and an 8 MiB mark; sm writes the rule above.
// When tapdisk asks for the next quantum is blktap's thin-provisioning code, not in sm and not reproduced here.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_EXTEND_XENSERVER_LVHD_HPP
#define PROVPOL_EXTEND_XENSERVER_LVHD_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../error.hpp"
#include "../result.hpp"

#include <cstdint>

namespace provpol {

namespace detail {
constexpr std::uint64_t xen_mib = std::uint64_t{1} << 20;
constexpr std::uint64_t xen_lvm_increment = std::uint64_t{4} << 20;  // lvhdutil.py:38 LVM_SIZE_INCREMENT
constexpr std::uint64_t xen_msize = std::uint64_t{2} << 40;          // lvhdutil.py:33-34 MSIZE
constexpr std::uint64_t xen_vhd_block = std::uint64_t{2} << 20;      // vhdutil.py:33 VHD_BLOCK_SIZE

// util.roundup(divisor, value): 0 counts as 1, then up to a multiple (saturating).
constexpr std::uint64_t xen_roundup(std::uint64_t divisor, std::uint64_t value) noexcept {
    return align_up(value == 0 ? 1 : value, divisor);
}
}  // namespace detail

/// vhdutil.calcOverheadEmpty: the VHD metadata of an empty VDI of `virtual_size` (footer, header, BAT, BATMAP).
PROVPOL_NODISCARD constexpr bytes xenserver_vhd_overhead_empty(bytes virtual_size) noexcept {
    const std::uint64_t size_mb = virtual_size.count() / detail::xen_mib;
    std::uint64_t overhead = std::uint64_t{3072} + (size_mb / 2) * 4;  // footer + header, then the BAT
    overhead = detail::xen_roundup(512, overhead);
    overhead += (size_mb / 2) / 8;
    return bytes(detail::xen_roundup(4096, overhead));
}

/// vhdutil.calcOverheadBitmap: 4 KiB of bitmap per 2 MiB block, a partial block counted whole.
PROVPOL_NODISCARD constexpr bytes xenserver_vhd_bitmaps(bytes virtual_size) noexcept {
    return bytes(saturating_mul(divide(virtual_size.count(), detail::xen_vhd_block, rounding::up), 4096));
}

/// lvhdutil.calcSizeVHDLV: the LV of a fully allocated VDI (its metadata preallocated for 2 TiB).
PROVPOL_NODISCARD constexpr bytes xenserver_full_lv_size(bytes virtual_size) noexcept {
    const std::uint64_t sum = saturating_add(
        saturating_add(virtual_size.count(), xenserver_vhd_overhead_empty(bytes(detail::xen_msize)).count()),
        xenserver_vhd_bitmaps(virtual_size).count());
    return bytes(detail::xen_roundup(detail::xen_lvm_increment, sum));
}

/// The smallest LV of a thin VDI: roundup(4 MiB, calcOverheadEmpty(MSIZE)) = 8 MiB.
PROVPOL_NODISCARD constexpr bytes xenserver_thin_minimum() noexcept {
    return bytes(
        detail::xen_roundup(detail::xen_lvm_increment, xenserver_vhd_overhead_empty(bytes(detail::xen_msize)).count()));
}

/// xlvhd_adjust_allocation_quantum(physical_size, requested): what a thin SR's VDIs grow by. `requested` (sm-config's
/// allocation_quantum) is clamped to [physical / 50000, physical / 4000] and raised to at least 16 MiB. Integer
/// division, as Python 2's. (A negative request, which sm also clamps to physical / 50000, has no bytes value.)
PROVPOL_NODISCARD constexpr bytes xenserver_allocation_quantum(bytes physical_size, bytes requested) noexcept {
    const std::uint64_t relative_max = physical_size.count() / 4000;
    const std::uint64_t relative_min = physical_size.count() / 50000;
    std::uint64_t v = requested.count();
    if (v < relative_min)
        v = relative_min;
    else if (v > relative_max)
        v = relative_max;
    return bytes(v < (std::uint64_t{16} << 20) ? std::uint64_t{16} << 20 : v);
}
/// The default quantum, with no allocation_quantum in sm-config: physical / 10000 (0.01% of the SR), adjusted as
/// above, so at least 16 MiB.
PROVPOL_NODISCARD constexpr bytes xenserver_allocation_quantum(bytes physical_size) noexcept {
    return xenserver_allocation_quantum(physical_size, bytes(physical_size.count() / 10000));
}

/// The quantum as tapdisk is given it (-q): whole MiB, rounded down.
PROVPOL_NODISCARD constexpr std::uint64_t xenserver_tapdisk_quantum_mib(bytes quantum) noexcept {
    return quantum.count() / detail::xen_mib;
}

/// LVHDVDI.MAX_VDI_SIZE_MB: the largest virtual size sm creates or resizes a VDI to, compared in whole MiB
/// (size / 1024 / 1024 > 2093051 is refused, so anything under 2093052 MiB passes).
inline constexpr std::uint64_t xenserver_max_vdi_size_mib = 2093051;

/// The virtual size LVHDVDI.create gives a new VDI asked for `requested` bytes, with the refusal left out: raised
/// to MIN_VIRT_SIZE (2 MiB) and rounded up to VHD_SIZE_INC (2 MiB), saturating near 2^64. So 0 and 1 byte are
/// 2 MiB, 2 MiB + 1 is 4 MiB, and the largest size sm accepts, 2093052 MiB - 1, becomes 2093052 MiB.
PROVPOL_NODISCARD constexpr bytes xenserver_normalized_virtual_size(bytes requested) noexcept {
    return align_up(max(requested, bytes(detail::xen_vhd_block)), bytes(detail::xen_vhd_block));
}

/// The LV a new VDI asked for `virtual_size` gets on a thin SR with initial allocation `initial` (0 by default:
/// xlvhd_adjust_initial_allocation): roundup(4 MiB, min(max(initial, thin minimum), full LV size)), the full size
/// being that of the virtual size as LVHDVDI.create normalises it first (xenserver_normalized_virtual_size). A size
/// sm refuses (above xenserver_max_vdi_size_mib) is sized all the same here: xenserver_new_vdi refuses it.
PROVPOL_NODISCARD constexpr bytes xenserver_vdi_lv_size(bytes virtual_size, bytes initial = bytes(0)) noexcept {
    const bytes wanted = max(initial, xenserver_thin_minimum());
    const bytes full = xenserver_full_lv_size(xenserver_normalized_virtual_size(virtual_size));
    return bytes(detail::xen_roundup(detail::xen_lvm_increment, min(wanted, full).count()));
}

/// What LVHDVDI.create makes of a new VDI on a thin SR.
struct xenserver_new_vdi_sizes {
    bytes virtual_size;  ///< the VHD's virtual size: the request raised to 2 MiB and rounded up to 2 MiB
    bytes lv_size;       ///< the LV it gets now (xenserver_vdi_lv_size)
    bytes full_lv_size;  ///< the LV it would take fully allocated (calcSizeVHDLV of the virtual size)
};

/// LVHDVDI.create for a thin SR: a request above MAX_VDI_SIZE_MB (in whole MiB: `requested` / MiB > 2093051) is
/// refused, naming virtual_size, the value and the largest accepted size; else the sizes sm gives the VDI. (A template
/// only so that it is compiled where it is called.)
template <class Deferred = void>
PROVPOL_NODISCARD constexpr result<xenserver_new_vdi_sizes> xenserver_new_vdi(bytes requested,
                                                                              bytes initial = bytes(0)) noexcept {
    if (requested.count() / detail::xen_mib > xenserver_max_vdi_size_mib)
        return unexpected(
            error::out_of_range("virtual_size", error_value::of_size(requested.count()), error_value::of_size(0),
                                error_value::of_size((xenserver_max_vdi_size_mib + 1) * detail::xen_mib - 1)));
    const bytes v = xenserver_normalized_virtual_size(requested);
    return xenserver_new_vdi_sizes{v, xenserver_vdi_lv_size(v, initial), xenserver_full_lv_size(v)};
}

// ============================================================================================================
// The host's free pool (xenvmd)

/// What sm writes to xenvmd's configuration for a thin SR: host_allocation_quantum and host_low_water_mark, MiB.
struct xenserver_host_pool_config {
    std::uint64_t quantum_mib;    ///< what a host's free LV grows by
    std::uint64_t low_water_mib;  ///< under this free size the host's free LV is grown
};

/// lvutil.write_xenvmd_config for a VG of `vg_size`: quantum max(160, vg_size x 0.005 / MiB) MiB, mark half of it;
/// sm computes both in double precision and writes them with %d, which truncates (done the same way here: one
/// multiplication, one division and one halving, each correctly rounded in IEEE 754).
PROVPOL_NODISCARD constexpr xenserver_host_pool_config xenserver_host_pool(bytes vg_size) noexcept {
    const double computed = static_cast<double>(vg_size.count()) * 0.005 / 1048576.0;
    const double quantum = computed > 160.0 ? computed : 160.0;
    return {static_cast<std::uint64_t>(quantum), static_cast<std::uint64_t>(quantum * 0.5)};
}

/// The extent of the VG a thin SR lives on: `xenvm vgcreate` formats it with mirage-block-volume's 4 MiB extents.
inline constexpr std::uint64_t xenserver_extent_mib = 4;

/// What xenvmd does for one host's free LV.
struct xenserver_host_pool_decision {
    bool top_up;                ///< the free LV's size in MiB (extents x 4) is under the low-water mark
    std::uint64_t add_extents;  ///< the extents it gets: quantum / 4 (rounded down), or all the VG's free ones if fewer
    std::uint64_t add_mib;      ///< add_extents x 4
    std::uint64_t new_free_mib;  ///< the free LV after the top-up, MiB
};

/// xenvmd's top_up_host and perform_expand_free for a host's free LV of `free_extents` 4 MiB extents, the VG
/// having `vg_free_extents` free: under the low-water mark (MiB, strictly) it grows by the quantum rounded down to a
/// whole extent (Int64.div quantum 4), or by every free extent of the VG when it has fewer ("Expanding to use all
/// the available space"). Saturating.
PROVPOL_NODISCARD constexpr xenserver_host_pool_decision decide_xenserver_host_pool(
    const xenserver_host_pool_config& c, std::uint64_t free_extents,
    std::uint64_t vg_free_extents = ~std::uint64_t{0}) noexcept {
    xenserver_host_pool_decision d{};
    const std::uint64_t free_mib = saturating_mul(free_extents, xenserver_extent_mib);
    d.top_up = free_mib < c.low_water_mib;
    if (d.top_up) {
        const std::uint64_t wanted = c.quantum_mib / xenserver_extent_mib;
        d.add_extents = wanted <= vg_free_extents ? wanted : vg_free_extents;
    }
    d.add_mib = saturating_mul(d.add_extents, xenserver_extent_mib);
    d.new_free_mib = saturating_add(free_mib, d.add_mib);
    return d;
}

}  // namespace provpol

#endif  // PROVPOL_EXTEND_XENSERVER_LVHD_HPP
