// provpol/log_size/xfs_reservations.hpp - the XFS transaction log reservations, computed as libxfs computes them when
// mkfs.xfs sizes a log: the reservation of each transaction type for a superblock geometry and feature set,
// the largest one (libxfs_log_get_max_trans_res), the minimum log it implies (libxfs_log_calc_minimum_size) and
// mkfs.xfs's max_tx_bytes (tr_logres x tr_logcount of the largest, the unit of the 6.8+ concurrency-sized log).
//
//   provpol::xfs_sb_params sb;                  // 4 KiB blocks, 512-byte sectors, v5, mkfs.xfs 6.13's features
//   sb.agblocks = 262144;                        // a 4 GiB filesystem's 1 GiB AGs
//   const auto m = provpol::xfs_log_minimum(sb); // m.min_log_blocks == 3693, m.max_tx_bytes == 4377600
//
// What is computed (learnt from xfsprogs 6.1.0 and 6.13.0, libxfs/xfs_trans_resv.c, xfs_log_rlimit.c,
// util.c xfs_log_calc_unit_res, and the btree height rules of xfs_alloc.c, xfs_ialloc.c, xfs_bmap.c,
// xfs_rmap_btree.c, xfs_refcount_btree.c; provpol's own code):
//  - the btree heights: free space (bnobt/cntbt) over half the AG, inobt over every inode number an AG can hold,
//    bmbt over the largest extent count (2^31 - 1, or 2^48 - 1 with nrext64), rmapbt (with reflink: the height
//    that fills the AG with blocks, xfs_btree_space_to_height) and refcountbt over the AG blocks;
//  - the 26 reservations of struct xfs_trans_resv in its order (27 in 7.x, with tr_atomic_ioend), each as the largest
//  of its alternatives plus
//    the dquot overhead, with the parent-pointer overheads when parent=1 (xfsprogs >= 6.10);
//  - for the minimum log, the historical adjustments of xfs_log_calc_trans_resv_for_minlogblocks: unless the
//    filesystem has parent pointers, rmapbt height 9 with reflink, log counts 8 for write/itruncate/dqalloc with
//    reflink (2 with rmapbt alone), and the write/itruncate reservations with the refcountbt splits folded in;
//    the xattr-set reservation with its unit error unless parent pointers are on (xfs_log_calc_max_attrsetm_res);
//  - the log-record overhead of xfs_log_calc_unit_res (256 KiB v2 iclogs, 4 KiB headers, roundoff to the log
//    stripe unit) and the minimum log: 3 x (largest unit x log count, rounded to the log stripe unit, + 2 units
//    or + 2 x 512 basic blocks), in filesystem blocks, at least XFS_MIN_LOG_BLOCKS (512).
// No realtime device (mkfs.xfs without -r), default inode sizes (512 bytes on v5, 256 on v4), directory blocks of
// max(4 KiB, block size). Every function is constexpr noexcept; all arithmetic is exact in 64 bits.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_LOG_SIZE_XFS_RESERVATIONS_HPP
#define PROVPOL_LOG_SIZE_XFS_RESERVATIONS_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "xfs_trans_resv.hpp"

#include <cstdint>

namespace provpol {

namespace detail {

/// Every reservation of xfs_trans_resv_calc (for_minlog: as xfs_log_calc_trans_resv_for_minlogblocks adjusts
/// them without parent pointers), in the struct's order; `count` is 26, or 27 with tr_atomic_ioend.
struct xfs_reservation_table {
    xfs_trans_reservation r[27]{};
    unsigned count = 26;
};

constexpr xfs_trans_reservation xfs_res(std::uint64_t logres, std::uint64_t logcount) noexcept {
    return xfs_trans_reservation{static_cast<std::uint32_t>(logres), static_cast<std::uint32_t>(logcount)};
}

constexpr xfs_reservation_table xfs_reservations(const xfs_resv_geometry& g, bool for_minlog,
                                                 bool atomic_ioend = false) noexcept {
    xfs_reservation_table t;
    const std::uint64_t bs = g.bs, sect = g.sect;
    const std::uint64_t attrsetm = xfs_attrsetm_res(g), attrrm = xfs_attrrm_res(g);
    const std::uint64_t pcount = g.parent ? 3 : 0;  // XFS_ATTRSET_LOG_COUNT, XFS_ATTRRM_LOG_COUNT
    std::uint64_t adj = 0;                          // BUI, refcount and rmap intent items
    if (g.reflink || g.rmapbt) ++adj;
    if (g.reflink) ++adj;
    if (g.rmapbt) ++adj;
    std::uint64_t rw_count = 2 + adj;
    if (for_minlog && g.reflink)
        rw_count = 8;  // XFS_WRITE_LOG_COUNT_REFLINK, XFS_ITRUNCATE_LOG_COUNT_REFLINK
    else if (for_minlog && g.rmapbt)
        rw_count = 2;
    const std::uint64_t write = xfs_write_res(g, for_minlog);
    t.r[0] = xfs_res(write, rw_count);
    t.r[1] = xfs_res(xfs_itruncate_res(g, for_minlog), rw_count);
    // rename: five inodes and two directory operations, or freeing three extents, or the parent attr update
    {
        const std::uint64_t t1 = xfs_inode_res(g, 5) + xfs_buf_res(2 * xfs_dirop_log_count(g), bs);
        const std::uint64_t t2 = xfs_buf_res(7, sect) + xfs_buf_res(xfs_allocfree_blocks(g, 3), bs);
        const std::uint64_t t3 = g.parent ? xfs_max2(attrsetm, attrrm) : 0;
        const std::uint64_t rename_ovh = xfs_pptr_replace_overhead + 2 * xfs_pptr_link_overhead;
        const std::uint64_t ovh =
            xfs_dquot_logres + (g.parent ? xfs_max2(rename_ovh, 2 * xfs_pptr_replace_overhead) : 0);
        t.r[2] = xfs_res(ovh + xfs_max3(t1, t2, t3), 2 + pcount);
    }
    {  // link
        const std::uint64_t t1 = xfs_inode_res(g, 2) + xfs_buf_res(xfs_dirop_log_count(g), bs);
        const std::uint64_t t2 = xfs_buf_res(3, sect) + xfs_buf_res(xfs_allocfree_blocks(g, 1), bs);
        const std::uint64_t ovh =
            xfs_dquot_logres + xfs_iunlink_remove_res(g) + (g.parent ? xfs_pptr_link_overhead : 0);
        t.r[3] = xfs_res(ovh + xfs_max3(t1, t2, g.parent ? attrsetm : 0), 2 + pcount);
    }
    {  // remove
        const std::uint64_t t1 = xfs_inode_res(g, 2) + xfs_buf_res(xfs_dirop_log_count(g), bs);
        const std::uint64_t t2 = xfs_buf_res(4, sect) + xfs_buf_res(xfs_allocfree_blocks(g, 2), bs);
        const std::uint64_t ovh = xfs_dquot_logres + xfs_iunlink_add_res(g) + (g.parent ? xfs_pptr_link_overhead : 0);
        t.r[4] = xfs_res(ovh + xfs_max3(t1, t2, g.parent ? attrrm : 0), 2 + pcount);
    }
    const std::uint64_t icreate = xfs_icreate_res(g);
    t.r[5] = xfs_res(icreate + xfs_buf_res(1, 1024), 3 + pcount);  // symlink: XFS_SYMLINK_MAXLEN
    t.r[6] = xfs_res(icreate, 2 + pcount);                         // create
    t.r[7] = xfs_res(xfs_dquot_logres + xfs_icreate_alloc_res(g) + xfs_iunlink_add_res(g), 2);  // create_tmpfile
    t.r[8] = xfs_res(icreate, 3 + pcount);                                                      // mkdir
    t.r[9] = xfs_res(xfs_dquot_logres + xfs_inode_res(g, 1) + xfs_buf_res(3, sect) + xfs_iunlink_remove_res(g) +
                         xfs_inode_chunk_res(g, false) + xfs_inobt_res(g) + xfs_finobt_res(g),
                     2);                                                                       // ifree
    t.r[10] = xfs_res(xfs_dquot_logres + xfs_inode_res(g, 1) + xfs_buf_res(1, sect), 0);       // ichange
    t.r[11] = xfs_res(xfs_buf_res(3, sect) + xfs_buf_res(xfs_allocfree_blocks(g, 1), bs), 2);  // growdata
    t.r[12] = xfs_res(xfs_dquot_logres + xfs_inode_res(g, 1) + xfs_buf_res(2, sect) + xfs_buf_res(1, g.dir_bytes) +
                          xfs_buf_res(xfs_nextentadd_blocks(g, g.dir_fsbs, g.bm_data_levels) + 1, bs) +
                          xfs_buf_res(xfs_allocfree_blocks(g, 1), bs),
                      2);                       // addafork
    t.r[13] = xfs_res(xfs_inode_res(g, 1), 0);  // writeid
    t.r[14] = xfs_res(xfs_max2(xfs_inode_res(g, 1) + xfs_buf_res(g.bm_attr_levels, bs),
                               xfs_buf_res(9, sect) + xfs_buf_res(xfs_allocfree_blocks(g, 4), bs)),
                      1);                        // attrinval
    t.r[15] = xfs_res(attrsetm, 3);              // attrsetm
    t.r[16] = xfs_res(xfs_attrsetrt_res(g), 0);  // attrsetrt
    t.r[17] = xfs_res(attrrm, 3);                // attrrm
    t.r[18] = xfs_res(xfs_buf_res(1, sect), 0);  // clearagi
    t.r[19] = xfs_res(xfs_buf_res(2, sect) + xfs_buf_res(g.bm_data_levels, bs) + xfs_inode_res(g, 1) +
                          xfs_buf_res(xfs_allocfree_blocks(g, 1), bs),
                      2);                      // growrtalloc
    t.r[20] = xfs_res(xfs_buf_res(1, bs), 0);  // growrtzero
    t.r[21] = xfs_res(xfs_buf_res(1, sect) + xfs_inode_res(g, 2) + xfs_buf_res(1, bs) + xfs_buf_res(1, 0), 0);
    t.r[22] = xfs_res(xfs_buf_res(1, 104), 1);                    // qm_setqlim: xfs_disk_dquot
    t.r[23] = xfs_res(write + xfs_buf_res(1, bs - 1), rw_count);  // qm_dqalloc
    t.r[24] = xfs_res(xfs_buf_res(1, sect), 1);                   // sb
    t.r[25] = xfs_res(xfs_inode_res(g, 1), 0);                    // fsyncts
    if (atomic_ioend) {
        t.r[26] = t.r[1];  // tr_atomic_ioend (7.x): tr_itruncate's without an atomic write size
        t.count = 27;
    }
    return t;
}

/// xfs_log_calc_unit_res: a reservation plus the log-record overhead of writing it (v2 logs: 256 KiB iclogs with
/// 4 KiB headers), and the roundoff of the log stripe unit (or of a basic block) twice.
constexpr std::uint64_t xfs_log_unit_res(std::uint64_t unit, std::uint64_t log_sunit_bytes) noexcept {
    constexpr std::uint64_t iclog_size = std::uint64_t{256} * 1024, header = 4096, space = iclog_size - header;
    unit += 2 * xfs_op_header_bytes + xfs_trans_header_bytes;  // transaction header, start record
    std::uint64_t headers = divide(unit, space, rounding::up);
    unit += xfs_op_header_bytes * headers;  // split records
    while (headers == 0 || divide(unit, space, rounding::up) > headers) {
        unit += xfs_op_header_bytes;
        ++headers;
    }
    unit += header * headers + header;  // record headers, and one for the commit record
    unit += log_sunit_bytes > 1 ? 2 * log_sunit_bytes : std::uint64_t{2} * 512;
    return unit;
}

/// xfs_btree_height's capacity: the most records a tree of `h` levels indexes (saturating).
constexpr std::uint64_t xfs_btree_capacity(std::uint64_t leaf, std::uint64_t node, unsigned h) noexcept {
    std::uint64_t c = leaf;
    for (unsigned i = 1; i < h; ++i) c = c > (std::uint64_t{1} << 62) / node ? (std::uint64_t{1} << 62) : c * node;
    return c;
}

/// AG sizes (in blocks) from which some btree height the reservations read changes; between two of them every
/// reservation, the minimum log and max_tx_bytes are constant. At most 32.
struct xfs_ag_breaks {
    std::uint32_t at[32]{};
    unsigned count = 0;
    constexpr void add(std::uint64_t a, std::uint64_t lo, std::uint64_t hi) noexcept {
        if (a <= lo || a > hi || count == 32) return;
        for (unsigned i = 0; i < count; ++i)
            if (at[i] == a) return;
        unsigned i = count++;
        for (; i > 0 && at[i - 1] > a; --i) at[i] = at[i - 1];  // kept sorted
        at[i] = static_cast<std::uint32_t>(a);
    }
};

/// The AG sizes in (lo, hi] where the free-space, inode, reverse-mapping or refcount btree grows a level
/// (hi < 2^32): from the capacities of xfs_btree_height and xfs_btree_space_height, and for the inode btree
/// at the powers of two where its height changes.
constexpr xfs_ag_breaks xfs_level_breaks(const xfs_sb_params& sb, std::uint64_t lo, std::uint64_t hi) noexcept {
    xfs_ag_breaks b;
    const xfs_resv_geometry g = xfs_resv_geometry_of(sb);
    const std::uint64_t bs = g.bs, shdr = sb.crc ? 56 : 16;
    // Free space: (a + 1) / 2 records exceed the capacity of h levels from a = 2 x capacity + 1.
    for (unsigned h = 1; h < 16; ++h) {
        const std::uint64_t c = xfs_btree_capacity((bs - shdr) / 8 / 2, (bs - shdr) / 12 / 2, h);
        if (2 * c + 1 > hi) break;
        b.add(2 * c + 1, lo, hi);
    }
    // Inode btree: its record count doubles with log2_roundup(a); a height change at 2^(k-1) + 1.
    {
        const unsigned inode_log = ceil_log2(g.isize);
        unsigned prev = 0;
        for (unsigned k = 1; k <= 32 && (std::uint64_t{1} << (k - 1)) < hi; ++k) {
            const unsigned bits = (sb.block_log - inode_log) + k;
            const unsigned h =
                xfs_btree_height((bs - shdr) / 16 / 2, (bs - shdr) / 8 / 2, (std::uint64_t{1} << bits) >> 6);
            if (k > 1 && h != prev) b.add((std::uint64_t{1} << (k - 1)) + 1, lo, hi);
            prev = h;
        }
    }
    // Reverse mapping: one record per block, or (with reflink) the height that fills the AG.
    if (g.rmapbt) {
        const std::uint64_t leaf = (bs - 56) / 24 / 2, node = (bs - 56) / 44 / 2;
        if (g.reflink) {
            const std::uint64_t root = sb.two_pointer_root ? 2 : node;
            std::uint64_t sum = 1, pow = 1;  // a >= root x (1 + n + ... + n^(k-1)) + 2 adds level k + 1
            for (unsigned k = 1; k < 16 && root * sum + 2 <= hi; ++k) {
                b.add(root * sum + 2, lo, hi);
                pow *= node;
                sum += pow;
            }
        } else {
            for (unsigned h = 1; h < 16; ++h) {
                const std::uint64_t c = xfs_btree_capacity(leaf, node, h);
                if (c + 1 > hi) break;
                b.add(c + 1, lo, hi);
            }
        }
    }
    if (g.reflink)
        for (unsigned h = 1; h < 16; ++h) {
            const std::uint64_t c = xfs_btree_capacity((bs - 56) / 12 / 2, (bs - 56) / 8 / 2, h);
            if (c + 1 > hi) break;
            b.add(c + 1, lo, hi);
        }
    return b;
}

}  // namespace detail

/// The largest transaction reservation, the minimum log and max_tx_bytes, as mkfs.xfs computes them for this
/// superblock (libxfs_log_get_max_trans_res, libxfs_log_calc_minimum_size). Preconditions (fs_geometry checks
/// them): block_log in [9, 16] (9 only without crc), sector_size a power of two in [512, block size],
/// agblocks in [1, 2^31].
PROVPOL_NODISCARD constexpr xfs_log_minimum_result xfs_log_minimum(const xfs_sb_params& sb) noexcept {
    using namespace detail;
    xfs_resv_geometry g = xfs_resv_geometry_of(sb);
    // The xattr reservation for the largest local attribute value (xfs_log_calc_max_attrsetm_res); without
    // parent pointers the value's length in bytes stands where blocks were meant.
    const std::uint64_t value = g.bs / 2 + g.bs / 4 - 256 - 1;
    const std::uint64_t value_blocks = divide(value, g.bs, rounding::up);
    const std::uint64_t daenter = 1 * xfs_da_node_maxdepth + xfs_da_node_maxdepth * (g.bm_attr_levels - 1U);
    const std::uint64_t nblks =
        daenter + value_blocks + xfs_nextentadd_blocks(g, g.parent ? value_blocks : value, g.bm_attr_levels);
    const std::uint64_t attr_space = xfs_attrsetm_res(g) + xfs_attrsetrt_res(g) * nblks;
    // The reservations for the minimum log: the historical ones unless parent pointers are on.
    const bool old = !g.parent;
    if (old && g.rmapbt && g.reflink) g.rmap_levels = static_cast<unsigned>(xfs_old_reflink_rmap_levels);
    const xfs_reservation_table t = xfs_reservations(g, old, sb.atomic_ioend);
    xfs_log_minimum_result m;
    std::uint64_t space = 0;
    for (unsigned i = 0; i < t.count; ++i) {
        const xfs_trans_reservation& r = t.r[i];
        const std::uint64_t v = r.logcount > 1 ? std::uint64_t{r.logres} * r.logcount : r.logres;
        if (space < v) {
            space = v;
            m.largest = r;
            m.largest_type = static_cast<xfs_trans_type>(i);
        }
    }
    if (attr_space > space) {
        m.largest = xfs_trans_reservation{static_cast<std::uint32_t>(attr_space), t.r[15].logcount};
        m.largest_type = xfs_trans_type::attrsetm;
    }
    m.max_tx_bytes = std::uint64_t{m.largest.logres} * m.largest.logcount;
    // libxfs_log_calc_minimum_size: two maximal transactions (XFS_MIN_LOG_FACTOR 3), padded to the stripe unit.
    std::uint64_t max_logres = xfs_log_unit_res(m.largest.logres, sb.log_sunit_bytes);
    if (m.largest.logcount > 1) max_logres *= m.largest.logcount;
    const std::uint64_t lsunit_bb = sb.log_sunit_bytes > 1 ? sb.log_sunit_bytes / 512 : 0;
    std::uint64_t bb = divide(max_logres, 512, rounding::up);
    bb = lsunit_bb != 0 ? divide(bb, lsunit_bb, rounding::up) * lsunit_bb + 2 * lsunit_bb : bb + std::uint64_t{2} * 512;
    bb *= 3;
    const std::uint64_t blocks = divide(bb, g.bs / 512, rounding::up);
    m.min_log_blocks = blocks < 512 ? 512 : blocks;  // XFS_MIN_LOG_BLOCKS
    return m;
}

}  // namespace provpol

#endif  // PROVPOL_LOG_SIZE_XFS_RESERVATIONS_HPP
