// provpol/extend/xenserver_lvhd.hpp - XenServer's thin-provisioned LVHD ("xlvhd"), exact to xapi-project/sm's last
// release with it: the allocation quantum a VDI grows by (xenserver_allocation_quantum), the initial allocation and
// the LV a new VDI gets (xenserver_vdi_lv_size), and the host's free pool that xenvmd tops up
// (xenserver_host_pool, decide_xenserver_host_pool).
//
// Sources: xapi-project/sm at tag v1.15.1, b2d54e5a1ba63d29a347dbb68c9c4a43c1d761ca (2016-08-19), the last tag with
// thin provisioning (v1.12.0 to v1.15.1), and xapi-project/xenvm at 401754dfb05376b5fc78c9290453b006f6f38aa1
// (2015-11-09):
//   sm drivers/util.py:1751-1763  xlvhd_adjust_allocation_quantum: default physical / 10000; clamped to
//                                 [physical / 50000, physical / 4000] (integer division); at least 16777216 (16 MiB)
//   sm drivers/util.py:1786       xlvhd_adjust_initial_allocation: default 0, a negative value 0
//   sm drivers/LVHDSR.py:1740-1745 a new xlvhd VDI's LV: roundup(4 MiB, min(max(initial, thin minimum), full size))
//   sm drivers/lvhdutil.py:33-38  MSIZE = 2 TiB (metadata preallocated for it), LVM_SIZE_INCREMENT = 4 MiB
//   sm drivers/lvhdutil.py:99     calcSizeVHDLV: roundup(4 MiB, virtual + empty overhead(MSIZE) + bitmaps(virtual))
//   sm drivers/vhdutil.py:64-87   calcOverheadEmpty (3 KiB + 4 bytes per 2 MiB block, to 512; + 1 bit per block, to
//                                 4 KiB) and calcOverheadBitmap (4 KiB per started 2 MiB block)
//   sm drivers/util.py:85         roundup: 0 counts as 1
//   sm drivers/blktap2.py:1553    tapdisk gets the quantum in whole MiB, int(aq / MiB)
//   sm drivers/lvutil.py:288-294  the host's free pool: quantum max(160, 0.5% of the VG in MiB, as a float), low-water
//                                 mark half of it, both written with %d (truncated)
//   xenvm xenvmd/freepool.ml:259  a host's free LV under the low-water mark (MiB) is grown by the quantum (MiB)
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

/// The LV a new VDI of `virtual_size` gets on a thin SR with initial allocation `initial` (0 by default:
/// xlvhd_adjust_initial_allocation): roundup(4 MiB, min(max(initial, thin minimum), full LV size)).
PROVPOL_NODISCARD constexpr bytes xenserver_vdi_lv_size(bytes virtual_size, bytes initial = bytes(0)) noexcept {
    const bytes wanted = max(initial, xenserver_thin_minimum());
    return bytes(
        detail::xen_roundup(detail::xen_lvm_increment, min(wanted, xenserver_full_lv_size(virtual_size)).count()));
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

/// What xenvmd does for one host's free LV of `free_mib` MiB (its extents x the extent size in MiB).
struct xenserver_host_pool_decision {
    bool top_up;            ///< free_mib < low_water_mib
    std::uint64_t add_mib;  ///< the quantum when topping up, else 0
    std::uint64_t new_free_mib;
};

/// xenvmd's top_up_host: a free LV strictly under the low-water mark gets the quantum (ExpandFree).
PROVPOL_NODISCARD constexpr xenserver_host_pool_decision decide_xenserver_host_pool(const xenserver_host_pool_config& c,
                                                                                    std::uint64_t free_mib) noexcept {
    xenserver_host_pool_decision d{};
    d.top_up = free_mib < c.low_water_mib;
    d.add_mib = d.top_up ? c.quantum_mib : 0;
    d.new_free_mib = saturating_add(free_mib, d.add_mib);
    return d;
}

}  // namespace provpol

#endif  // PROVPOL_EXTEND_XENSERVER_LVHD_HPP
