// provpol/log_size/xfs_trans_resv.hpp - the inputs and parts of the XFS transaction reservations
// (log_size/xfs_reservations.hpp): the superblock fields they read (xfs_sb_params), a reservation and the
// transaction types, and, in detail, the on-disk structure sizes, the btree heights and the components of
// libxfs/xfs_trans_resv.c, one function each (xfsprogs 6.1.0 and 6.13.0; the function named in each comment).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_LOG_SIZE_XFS_TRANS_RESV_HPP
#define PROVPOL_LOG_SIZE_XFS_TRANS_RESV_HPP

#include "../bytes.hpp"
#include "../config.hpp"

#include <cstdint>

namespace provpol {

/// The superblock fields the reservations read, as mkfs.xfs sets them before it sizes the log.
struct xfs_sb_params {
    unsigned block_log = 12;            ///< sb_blocklog: 9 (512-byte blocks, v4 only) to 16
    std::uint32_t sector_size = 512;    ///< sb_sectsize
    std::uint32_t inode_size = 0;       ///< sb_inodesize (0: mkfs's default, 512 on v5 and 256 on v4)
    std::uint32_t agblocks = 0;         ///< sb_agblocks: the AG size in blocks
    std::uint32_t log_sunit_bytes = 0;  ///< sb_logsunit when over one byte (0: no log stripe unit)
    bool crc = true;                    ///< v5 superblock (v3 inodes, CRC btree blocks)
    bool finobt = true;                 ///< free inode btree
    bool reflink = true;                ///< refcount btree
    bool rmapbt = true;                 ///< reverse-mapping btree
    bool nrext64 = true;                ///< large extent counts
    bool parent = false;                ///< parent pointers (and the minimum-log fixes they switch on)
    /// xfs_btree_space_to_height starts from a root of two pointers (6.13, 7.2); 6.1 starts from a full node,
    /// which makes the reflink rmapbt one level shorter in the runtime reservations (xfs_db logres shows it).
    bool two_pointer_root = true;
    /// struct xfs_trans_resv ends with tr_atomic_ioend (xfsprogs 7.x): a copy of tr_itruncate when mkfs sets no
    /// atomic write size. Last and equal to an earlier one, it never changes the largest reservation.
    bool atomic_ioend = false;
};

/// One reservation: bytes per log ticket and tickets (tr_logres, tr_logcount).
struct xfs_trans_reservation {
    std::uint32_t logres = 0;
    std::uint32_t logcount = 0;
};

/// The transaction types of struct xfs_trans_resv, in its order (the order decides ties).
enum class xfs_trans_type : unsigned char {
    write,
    itruncate,
    rename,
    link,
    remove,
    symlink,
    create,
    create_tmpfile,
    mkdir,
    ifree,
    ichange,
    growdata,
    addafork,
    writeid,
    attrinval,
    attrsetm,
    attrsetrt,
    attrrm,
    clearagi,
    growrtalloc,
    growrtzero,
    growrtfree,
    qm_setqlim,
    qm_dqalloc,
    sb,
    fsyncts,
    atomic_ioend
};

/// The reservation's name in struct xfs_trans_resv without its tr_ prefix: "write", "itruncate", ...
PROVPOL_NODISCARD constexpr const char* to_text(xfs_trans_type e) noexcept {
    constexpr const char* names[] = {
        "write",          "itruncate",  "rename",     "link",    "remove",   "symlink",     "create",
        "create_tmpfile", "mkdir",      "ifree",      "ichange", "growdata", "addafork",    "writeid",
        "attrinval",      "attrsetm",   "attrsetrt",  "attrrm",  "clearagi", "growrtalloc", "growrtzero",
        "growrtfree",     "qm_setqlim", "qm_dqalloc", "sb",      "fsyncts",  "atomic_ioend"};
    static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(xfs_trans_type::atomic_ioend) + 1,
                  "a name each");
    return detail::enum_name(names, e);
}

/// What libxfs_log_get_max_trans_res and libxfs_log_calc_minimum_size give mkfs.xfs.
struct xfs_log_minimum_result {
    xfs_trans_reservation largest{};   ///< the largest reservation (logres x logcount), ties to the first
    xfs_trans_type largest_type{};     ///< its transaction type (attrsetm also for the xattr-size rule)
    std::uint64_t max_tx_bytes = 0;    ///< largest.logres x largest.logcount (mkfs.xfs >= 6.8)
    std::uint64_t min_log_blocks = 0;  ///< libxfs_log_calc_minimum_size, raised to XFS_MIN_LOG_BLOCKS
};

namespace detail {

// On-disk structure sizes (xfs_log_format.h, xfs_format.h, xfs_da_format.h).
inline constexpr std::uint64_t xfs_op_header_bytes = 12;         // struct xlog_op_header
inline constexpr std::uint64_t xfs_trans_header_bytes = 16;      // xfs_trans_header_t
inline constexpr std::uint64_t xfs_inode_log_format_bytes = 56;  // struct xfs_inode_log_format
inline constexpr std::uint64_t xfs_buf_overhead_bytes = 128;     // op header + xfs_buf_log_format, rounded to 128
inline constexpr std::uint64_t xfs_dquot_logres =
    std::uint64_t{24 + 104} * 6;                                 // (xfs_dq_logformat + xfs_disk_dquot) x 6
inline constexpr std::uint64_t xfs_da_node_maxdepth = 5;         // XFS_DA_NODE_MAXDEPTH
inline constexpr std::uint64_t xfs_old_reflink_rmap_levels = 9;  // XFS_OLD_REFLINK_RMAP_MAXLEVELS
// Parent-pointer intent overheads: xfs_attri_log_format (40) + iovec(xfs_parent_rec, 12) + iovec(255 -> 256).
inline constexpr std::uint64_t xfs_pptr_link_overhead = 40 + 12 + 256;
inline constexpr std::uint64_t xfs_pptr_replace_overhead = 40 + 2 * (12 + 256);

constexpr std::uint64_t xfs_max2(std::uint64_t a, std::uint64_t b) noexcept { return a < b ? b : a; }
constexpr std::uint64_t xfs_max3(std::uint64_t a, std::uint64_t b, std::uint64_t c) noexcept {
    return xfs_max2(xfs_max2(a, b), c);
}
// xfs_calc_buf_res: n buffers of `size` bytes, each with its log format overhead.
constexpr std::uint64_t xfs_buf_res(std::uint64_t n, std::uint64_t size) noexcept {
    return n * (size + xfs_buf_overhead_bytes);
}

/// xfs_btree_compute_maxlevels: the height that indexes `records` with at least `leaf` records per leaf and
/// `node` pointers per node block.
constexpr unsigned xfs_btree_height(std::uint64_t leaf, std::uint64_t node, std::uint64_t records) noexcept {
    std::uint64_t blocks = divide(records, leaf, rounding::up);  // libxfs's howmany()
    unsigned h = 1;
    while (blocks > 1) {
        blocks = divide(blocks, node, rounding::up);
        ++h;
    }
    return h;
}

/// xfs_btree_space_to_height: the height of a btree that uses `blocks` blocks with `node` pointers per node
/// (a root of `root` pointers: 2 from xfsprogs 6.13 on, `node` in 6.1).
constexpr unsigned xfs_btree_space_height(std::uint64_t node, std::uint64_t blocks, std::uint64_t root) noexcept {
    if (blocks < 1) return 0;
    std::uint64_t node_blocks = root, left = blocks - 1;
    unsigned h = 1;
    while (node_blocks < left) {
        left -= node_blocks;
        node_blocks *= node;
        ++h;
    }
    return h;
}

/// The geometry-derived quantities xfs_trans_resv_calc reads (struct xfs_mount and xfs_ino_geometry).
struct xfs_resv_geometry {
    std::uint64_t bs = 4096;         // block size
    std::uint64_t sect = 512;        // sector size
    std::uint64_t isize = 512;       // inode size
    std::uint64_t dir_bytes = 4096;  // directory block size
    std::uint64_t dir_fsbs = 1;      // directory block in filesystem blocks (m_dir_geo->fsbcount)
    std::uint64_t bmbt_hdr = 72;     // xfs_bmbt_block_len
    std::uint64_t contig_ext = 0;    // XFS_MAX_CONTIG_EXTENTS_PER_BLOCK: m_alloc_mxr[0] - m_alloc_mnr[0]
    std::uint64_t cluster = 16384;   // inode_cluster_size
    std::uint64_t ialloc_blks = 8;   // blocks per inode chunk
    unsigned alloc_levels = 0, inobt_levels = 0, bm_data_levels = 0, bm_attr_levels = 0;
    unsigned rmap_levels = 0, refc_levels = 0;
    bool crc = true, finobt = true, reflink = true, rmapbt = true, parent = false;
};

/// xfs_bmap_compute_maxlevels: the bmbt height for `maxleafents` extents, the root in the inode holding
/// `root_recs` pointers.
constexpr unsigned xfs_bmap_levels(std::uint64_t maxleafents, std::uint64_t leaf_min, std::uint64_t node_min,
                                   std::uint64_t root_recs) noexcept {
    std::uint64_t blocks = divide(maxleafents, leaf_min, rounding::up);
    unsigned level = 1;
    for (; blocks > 1; ++level) blocks = blocks <= root_recs ? 1 : divide(blocks, node_min, rounding::up);
    return level;
}

/// struct xfs_mount's derived geometry from the superblock fields (xfs_sb_mount_common, xfs_da_mount,
/// xfs_ialloc_setup_geometry and the *_compute_maxlevels functions).
constexpr xfs_resv_geometry xfs_resv_geometry_of(const xfs_sb_params& sb) noexcept {
    xfs_resv_geometry g;
    const unsigned bl = sb.block_log;
    g.bs = std::uint64_t{1} << bl;
    g.sect = sb.sector_size;
    g.crc = sb.crc;
    g.finobt = sb.crc && sb.finobt;
    g.reflink = sb.crc && sb.reflink;
    g.rmapbt = sb.crc && sb.rmapbt;
    g.parent = sb.crc && sb.parent;
    const bool nrext64 = sb.crc && sb.nrext64;
    g.isize = sb.inode_size != 0 ? sb.inode_size : (sb.crc ? 512U : 256U);
    g.dir_bytes = g.bs < 4096 ? 4096 : g.bs;  // mkfs: directory blocks of at least 4 KiB
    g.dir_fsbs = g.dir_bytes >> bl;
    const std::uint64_t shdr = sb.crc ? 56 : 16;  // XFS_BTREE_SBLOCK_CRC_LEN, XFS_BTREE_SBLOCK_LEN
    g.bmbt_hdr = sb.crc ? 72 : 24;                // XFS_BTREE_LBLOCK_CRC_LEN, XFS_BTREE_LBLOCK_LEN
    // Free space btrees: 8-byte records, 8-byte keys and 4-byte pointers; at their largest when every other
    // block of the AG is free.
    const std::uint64_t alloc_leaf = (g.bs - shdr) / 8, alloc_node = (g.bs - shdr) / 12;
    g.contig_ext = alloc_leaf - alloc_leaf / 2;
    g.alloc_levels = xfs_btree_height(alloc_leaf / 2, alloc_node / 2, (std::uint64_t{sb.agblocks} + 1) / 2);
    // Inode btree: 16-byte records, 4-byte keys and pointers, over every inode number of an AG (agino bits).
    const unsigned inode_log = ceil_log2(g.isize);
    const unsigned agino_bits = (bl - inode_log) + ceil_log2(sb.agblocks);
    g.inobt_levels =
        xfs_btree_height((g.bs - shdr) / 16 / 2, (g.bs - shdr) / 8 / 2, (std::uint64_t{1} << agino_bits) >> 6);
    // Inode chunks of 64 inodes (at least a block); clusters of 8 KiB scaled by the v5 inode size.
    const std::uint64_t inopblock = g.bs / g.isize;
    g.ialloc_blks = (inopblock > 64 ? inopblock : 64) / inopblock;
    const std::uint64_t raw_cluster = 8192 * (sb.crc ? g.isize / 256 : 1);
    g.cluster = raw_cluster > g.bs ? raw_cluster / g.bs * g.bs : g.bs;
    // Block map btree: 16-byte records, keys and pointers; a root in the inode of 3 (data) or 2 (attr) pointers.
    const std::uint64_t bm_min = (g.bs - g.bmbt_hdr) / 16 / 2;
    g.bm_data_levels =
        xfs_bmap_levels(nrext64 ? (std::uint64_t{1} << 48) - 1 : (std::uint64_t{1} << 31) - 1, bm_min, bm_min, 3);
    g.bm_attr_levels =
        xfs_bmap_levels(nrext64 ? (std::uint64_t{1} << 32) - 1 : (std::uint64_t{1} << 15) - 1, bm_min, bm_min, 2);
    // Reverse mapping btree: 24-byte records, two 20-byte keys and a 4-byte pointer per node entry.
    if (g.rmapbt) {
        const std::uint64_t leaf = (g.bs - 56) / 24 / 2, node = (g.bs - 56) / 44 / 2;
        g.rmap_levels = g.reflink ? xfs_btree_space_height(node, sb.agblocks, sb.two_pointer_root ? 2 : node)
                                  : xfs_btree_height(leaf, node, sb.agblocks);
    }
    // Refcount btree: 12-byte records, 4-byte keys and pointers.
    if (g.reflink) g.refc_levels = xfs_btree_height((g.bs - 56) / 12 / 2, (g.bs - 56) / 8 / 2, sb.agblocks);
    return g;
}

// The components of xfs_trans_resv.c, one function each (the xfsprogs function in the comment).
constexpr std::uint64_t xfs_allocfree_blocks(const xfs_resv_geometry& g, std::uint64_t ops) noexcept {
    // xfs_allocfree_block_count
    return ops * 2 * (2 * std::uint64_t{g.alloc_levels} - 1) +
           (g.rmapbt ? ops * (2 * std::uint64_t{g.rmap_levels} - 1) : 0);
}
constexpr std::uint64_t xfs_refcountbt_blocks(const xfs_resv_geometry& g, std::uint64_t ops) noexcept {
    return ops * (2 * std::uint64_t{g.refc_levels} - 1);  // xfs_refcountbt_block_count
}
constexpr std::uint64_t xfs_inode_res(const xfs_resv_geometry& g, std::uint64_t n) noexcept {
    // xfs_calc_inode_res: four op headers, the inode log format, the inode, two bmbt block headers
    return n * (4 * xfs_op_header_bytes + xfs_inode_log_format_bytes + g.isize + 2 * g.bmbt_hdr);
}
constexpr std::uint64_t xfs_inobt_res(const xfs_resv_geometry& g) noexcept {  // xfs_calc_inobt_res
    return xfs_buf_res(g.inobt_levels, g.bs) + xfs_buf_res(xfs_allocfree_blocks(g, 1), g.bs);
}
constexpr std::uint64_t xfs_finobt_res(const xfs_resv_geometry& g) noexcept {  // xfs_calc_finobt_res
    return g.finobt ? xfs_inobt_res(g) : 0;
}
constexpr std::uint64_t xfs_inode_chunk_res(const xfs_resv_geometry& g, bool alloc) noexcept {
    // xfs_calc_inode_chunk_res: v5 allocates chunks with ordered buffers
    const std::uint64_t res = xfs_buf_res(xfs_allocfree_blocks(g, 1), g.bs);
    if (alloc && g.crc) return res;
    return res + xfs_buf_res(g.ialloc_blks, alloc ? g.bs : 0);
}
constexpr std::uint64_t xfs_refcountbt_res(const xfs_resv_geometry& g, std::uint64_t ops) noexcept {
    // xfs_calc_refcountbt_reservation
    return g.reflink ? xfs_buf_res(ops, g.sect) + xfs_buf_res(xfs_refcountbt_blocks(g, ops), g.bs) : 0;
}
constexpr std::uint64_t xfs_write_res(const xfs_resv_geometry& g, bool for_minlog) noexcept {
    // xfs_calc_write_reservation (no realtime: t2 = 0)
    std::uint64_t t1 = xfs_inode_res(g, 1) + xfs_buf_res(g.bm_data_levels, g.bs) + xfs_buf_res(3, g.sect) +
                       xfs_buf_res(xfs_allocfree_blocks(g, 2), g.bs);
    std::uint64_t t3 = xfs_buf_res(5, g.sect) + xfs_buf_res(xfs_allocfree_blocks(g, 2), g.bs);
    if (for_minlog) {
        const std::uint64_t adj = g.reflink ? xfs_buf_res(xfs_refcountbt_blocks(g, 2), g.bs) : 0;
        t1 += adj;
        t3 += adj;
        return xfs_dquot_logres + xfs_max2(t1, t3);
    }
    return xfs_dquot_logres + xfs_max3(xfs_refcountbt_res(g, 1), t1, t3);
}
constexpr std::uint64_t xfs_itruncate_res(const xfs_resv_geometry& g, bool for_minlog) noexcept {
    // xfs_calc_itruncate_reservation
    const std::uint64_t t1 = xfs_inode_res(g, 1) + xfs_buf_res(g.bm_data_levels + 1U, g.bs);
    std::uint64_t t2 = xfs_buf_res(9, g.sect) + xfs_buf_res(xfs_allocfree_blocks(g, 4), g.bs);
    if (for_minlog) {
        if (g.reflink) t2 += xfs_buf_res(xfs_refcountbt_blocks(g, 4), g.bs);
        return xfs_dquot_logres + xfs_max2(t1, t2);
    }
    return xfs_dquot_logres + xfs_max3(xfs_refcountbt_res(g, 2), t1, t2);
}
constexpr std::uint64_t xfs_nextentadd_blocks(const xfs_resv_geometry& g, std::uint64_t b, unsigned levels) noexcept {
    return divide(b, g.contig_ext, rounding::up) * (levels - 1U);  // XFS_NEXTENTADD_SPACE_RES
}
constexpr std::uint64_t xfs_dirop_log_count(const xfs_resv_geometry& g) noexcept {
    // XFS_DIROP_LOG_COUNT: (XFS_DA_NODE_MAXDEPTH + 2) directory blocks and their bmap updates, plus one
    const std::uint64_t dbs = xfs_da_node_maxdepth + 2;
    return g.dir_fsbs * dbs + dbs * xfs_nextentadd_blocks(g, g.dir_fsbs, g.bm_data_levels) + 1;
}
constexpr std::uint64_t xfs_iunlink_remove_res(const xfs_resv_geometry& g) noexcept {
    return xfs_buf_res(1, g.sect) + 2 * g.cluster;
}
constexpr std::uint64_t xfs_iunlink_add_res(const xfs_resv_geometry& g) noexcept {
    return xfs_buf_res(1, g.sect) + g.cluster;
}
constexpr std::uint64_t xfs_icreate_alloc_res(const xfs_resv_geometry& g) noexcept {
    // xfs_calc_icreate_resv_alloc
    return xfs_buf_res(2, g.sect) + g.sect + xfs_inode_chunk_res(g, true) + xfs_inobt_res(g) + xfs_finobt_res(g);
}
constexpr std::uint64_t xfs_create_modify_res(const xfs_resv_geometry& g) noexcept {
    // xfs_calc_create_resv_modify
    return xfs_inode_res(g, 2) + xfs_buf_res(1, g.sect) + g.bs + xfs_buf_res(xfs_dirop_log_count(g), g.bs) +
           xfs_finobt_res(g);
}
constexpr std::uint64_t xfs_attrsetm_res(const xfs_resv_geometry& g) noexcept {
    return xfs_dquot_logres + xfs_inode_res(g, 1) + xfs_buf_res(1, g.sect) + xfs_buf_res(xfs_da_node_maxdepth, g.bs);
}
constexpr std::uint64_t xfs_attrsetrt_res(const xfs_resv_geometry& g) noexcept {
    return xfs_buf_res(1, g.sect) + xfs_buf_res(g.bm_attr_levels, g.bs);
}
constexpr std::uint64_t xfs_attrrm_res(const xfs_resv_geometry& g) noexcept {
    return xfs_dquot_logres + xfs_max2(xfs_inode_res(g, 1) + xfs_buf_res(xfs_da_node_maxdepth, g.bs) +
                                           g.bs * g.bm_attr_levels + xfs_buf_res(g.bm_data_levels, 0),
                                       xfs_buf_res(5, g.sect) + xfs_buf_res(xfs_allocfree_blocks(g, 2), g.bs));
}
constexpr std::uint64_t xfs_icreate_res(const xfs_resv_geometry& g) noexcept {
    // xfs_calc_icreate_reservation (and mkdir)
    const std::uint64_t t3 = g.parent ? xfs_attrsetm_res(g) : 0;
    const std::uint64_t overhead = xfs_dquot_logres + (g.parent ? xfs_pptr_link_overhead : 0);
    return overhead + xfs_max3(xfs_icreate_alloc_res(g), xfs_create_modify_res(g), t3);
}

}  // namespace detail

}  // namespace provpol

#endif  // PROVPOL_LOG_SIZE_XFS_TRANS_RESV_HPP
