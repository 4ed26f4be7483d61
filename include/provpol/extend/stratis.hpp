// provpol/extend/stratis.hpp - Stratis's thin-pool growth, exact to stratisd: the pool's initial sizes
// (stratis_initial_sizes), one run of ThinPool::check() on the metadata and data devices (decide_stratis_check) and
// one filesystem's growth in check_fs() (decide_stratis_filesystem), with stratisd's constants as the presets
// stratis_data(), stratis_metadata() and stratis_filesystem() (one configuration, three parts of one check).
//
// Two lines of stratisd decide differently, and a configuration says which it follows (stratis_release):
// - 3.1 and later (stratis_release::v3_1, the presets above): grow the data device by up to 50 GiB when less than
//   15 GiB of it is free, the metadata at its low-water mark, a filesystem more than half full. Read at 3.9.2 below;
//   each part holds back to a release of its own: the filesystem rule to 3.1.0, the data rule to 3.3.0 (3.1.0-3.2.x
//   split each data extend with the metadata's growth, thinpool.rs:276 calculate_subdevice_extension at v3.1.0),
//   the metadata rule to 3.7.0 (3.4.2 first doubled at the low-water mark, 3.7.0 first reserved the spare's growth
//   too), the initial metadata (thin_metadata_size x 8 rounded to a block) to 3.6.2.
// - 3.0.0-3.0.4 (stratis_release::v3_0, stratis_3_0()): every check gives the data device all the backstore has
//   (a new pool starts at 768 MiB), keeps the metadata at 1/1000 of the data tier, sets a low-water mark from
//   DATA_LOWATER 2 GiB and a 95% critical level, and doubles a filesystem with less than 8 GiB free. The pool's
//   table always has error_if_no_space. Read at v3.0.4 (00330e6a102b, 2022-02-11; 3.0.0-3.0.3 decide the same):
//   thinpool/thinpool.rs:44   DATA_BLOCK_SIZE 2 Ki sectors; :45 DATA_LOWATER 2048 blocks (2 GiB)
//   thinpool/thinpool.rs:47   INITIAL_META_SIZE 4 Ki metadata blocks (16 MiB); :49 MIN_META_SEGMENT_SIZE the same
//   thinpool/thinpool.rs:50   INITIAL_DATA_SIZE 768 blocks; :51 INITIAL_MDV_SIZE 32 Ki sectors (16 MiB)
//   thinpool/thinpool.rs:56   SPACE_CRIT_PCT 95
//   thinpool/thinpool.rs:168  calc_lowater(used, size, available): max(DATA_LOWATER when DATA_LOWATER + available
//                             > total - floor(total x 95 / 100), else that minus available; (size - used) - 2 GiB)
//   thinpool/thinpool.rs:416  ThinPool::new (and :497 setup) put error_if_no_space in the pool's table
//   thinpool/thinpool.rs:574  check(): metadata to min(datatier usable sectors / 1000 in 4 KiB blocks, MAX_META_SIZE)
//                             when short by more than MIN_META_SEGMENT_SIZE (the spare asked as much, after it);
//                             then the data device by all the backstore's free space (at least one block); then
//                             the low-water mark calc_lowater(used, the new size, what is left)
//   backstore/backstore.rs:403 request(size, modulus): the size down to the modulus, halved (down to the modulus)
//                             until the data tier can give it, or nothing
//   thinpool/filesystem.rs:49 FILESYSTEM_LOWATER = 4 x DATA_LOWATER (8 GiB); :250 a filesystem with free (statvfs)
//                             under it is grown by its size (:286 extend_size), no limit
//   pool.rs:228, :288, :607   check() when the pool is set up, on each dm event of the pool and when data devices
//                             are added; src/stratis/timer.rs:71 every 10 s
//
// Sources of the 3.1 line: stratis-storage/stratisd at 28d8d0757f87b0dc4626c26506700d4ca089adc6 (2026-07-16, tag
// stratisd-v3.9.2), files under src/engine/strat_engine/ unless named:
//   thinpool/thinpool.rs:58   DEFAULT_FS_LIMIT = 100 (filesystems a pool's metadata is first sized for)
//   thinpool/thinpool.rs:61   DATA_BLOCK_SIZE = 2 Ki sectors (1 MiB, the dm-thin data block)
//   thinpool/thinpool.rs:64   INITIAL_MDV_SIZE = 1 Mi sectors (512 MiB, the metadata volume)
//   thinpool/thinpool.rs:73   DATA_ALLOC_SIZE = 50 Ki blocks (50 GiB) as shipped; :82 5 Ki blocks under #[cfg(test)]
//   thinpool/thinpool.rs:75   DATA_LOWATER = 15 Ki blocks (15 GiB) as shipped; :84 4 Ki blocks under #[cfg(test)]
//   thinpool/thinpool.rs:163  room_for_data: usable - INITIAL_MDV_SIZE - 2 x metadata, saturating
//   thinpool/thinpool.rs:179  ThinPoolSizeParams::new: metadata from thin_metadata_size, data min(room,
//   DATA_ALLOC_SIZE) thinpool/thinpool.rs:787  the low-water mark a new pool gets: min(DATA_LOWATER, (data blocks) / 2)
//   thinpool/thinpool.rs:1226 check(): metadata first (extend_thin_meta_device, doubling when free metadata blocks
//                             are under the status's metadata low-water mark), then data when size - used <
//                             DATA_LOWATER and the pool is not in error_if_no_space, then
//                             set_low_water_mark(DATA_LOWATER)
//   thinpool/thinpool.rs:1471 extend_thin_data_device: min(available blocks, DATA_ALLOC_SIZE); none -> set_error_mode
//   thinpool/thinpool.rs:1582 extend_thin_meta_device: doubled (capped at the data tier's usable size) or
//                             thin_metadata_size's estimate; the spare grows as much; 2 x growth over the available
//                             space -> out of metadata space and set_error_mode; :1600 the overprovisioning guard
//   thinpool/filesystem.rs:282 a filesystem is extended when 2 x used > its size (statvfs)
//   thinpool/filesystem.rs:348 extend_size: min(its size, size limit - size, room left without overprovisioning)
//   thinpool/filesystem.rs:414 set_size_limit refuses a limit under the filesystem's size
//   cmd.rs:44                 MAX_META_SIZE = 255 x (2^14 - 64) metadata blocks of 4 KiB
//   cmd.rs:50, :561           THIN_META_MULT_FACTOR = 8: thin_metadata_size's sectors x 8, rounded up to a data
//                             block, at most MAX_META_SIZE rounded down to one
//   src/stratis/timer.rs:61   the timed check sleeps 10 s between runs (the dm event runs it at once); both run
//                             check() on the pools, then check_fs() on their filesystems (src/stratis/dm.rs:60-67)
//   pool/v2.rs:1021, :1249    adding a data device or growing one puts the pool back in queue mode (clears
//                             error_if_no_space); adding one, destroying a filesystem or enabling overprovisioning
//                             clears out of metadata space (thinpool.rs:536, :646, :1717)
// The check's timing (the 10 s timer, the dm event) is the caller's; thin_metadata_size (thin-provisioning-tools)
// is run by stratisd, so its answer is an input here.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_EXTEND_STRATIS_HPP
#define PROVPOL_EXTEND_STRATIS_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../error.hpp"
#include "../result.hpp"

#include <cstdint>

namespace provpol {

/// Which line of stratisd a configuration decides as.
enum class stratis_release : unsigned char {
    v3_0 = 0,  ///< stratisd 3.0.0-3.0.4: greedy data, metadata at 1/1000 of the tier, filesystems under 8 GiB free
    v3_1 = 1   ///< stratisd 3.1.0 and later, as 3.9.2 runs it: 15 GiB / 50 GiB data, metadata at its mark, half-full
};

/// "3.0", "3.1".
PROVPOL_NODISCARD constexpr const char* to_text(stratis_release r) noexcept {
    switch (r) {
        case stratis_release::v3_0:
            return "3.0";
        case stratis_release::v3_1:
            return "3.1";
    }
    return "unknown";
}

/// DATA_ALLOC_SIZE: what one data extend adds at most. stratis_config::make takes its four sizes by role, so that
/// none can take another's place: `make(stratis_data_alloc(50_GiB), stratis_data_lowater(15_GiB))`.
struct stratis_data_alloc {
    constexpr explicit stratis_data_alloc(bytes v) noexcept : value(v) {}
    bytes value;
};
/// DATA_LOWATER: the free data under which the pool is extended.
struct stratis_data_lowater {
    constexpr explicit stratis_data_lowater(bytes v) noexcept : value(v) {}
    bytes value;
};
/// DATA_BLOCK_SIZE: the dm-thin data block.
struct stratis_data_block {
    constexpr explicit stratis_data_block(bytes v) noexcept : value(v) {}
    bytes value;
};
/// INITIAL_MDV_SIZE: the metadata volume.
struct stratis_mdv_size {
    constexpr explicit stratis_mdv_size(bytes v) noexcept : value(v) {}
    bytes value;
};

/// stratisd's thin-pool constants, validated: the data block, what one data extend adds (DATA_ALLOC_SIZE), the free
/// data under which the pool is extended (DATA_LOWATER) and the metadata volume (INITIAL_MDV_SIZE). stratisd ships
/// 50 GiB and 15 GiB (stratis_data()); its own tests build with 5 GiB and 4 GiB (stratis_test_constants()).
class stratis_config {
public:
    /// Validates the constants: the data block a power of two from 64 KiB to 1 GiB (dm-thin's range); the
    /// allocation and the low water whole data blocks (stratisd's DataBlocks), the allocation at least one block and
    /// both at most 2^50 bytes; the MDV whole sectors, at most 2^50 bytes.
    PROVPOL_NODISCARD static constexpr result<stratis_config> make(
        stratis_data_alloc alloc, stratis_data_lowater lowater,
        stratis_data_block block = stratis_data_block(bytes(std::uint64_t{1} << 20)),
        stratis_mdv_size mdv_size = stratis_mdv_size(bytes(std::uint64_t{512} << 20))) noexcept {
        const bytes data_alloc = alloc.value, data_lowater = lowater.value, data_block = block.value;
        const bytes mdv = mdv_size.value;
        constexpr std::uint64_t cap = std::uint64_t{1} << 50;
        if (!is_power_of_two(data_block.count()))
            return unexpected(error::not_a_power_of_two("data_block_size", error_value::of_size(data_block.count())));
        if (data_block.count() < (std::uint64_t{64} << 10) || data_block.count() > (std::uint64_t{1} << 30))
            return unexpected(error::out_of_range("data_block_size", error_value::of_size(data_block.count()),
                                                  error_value::of_size(std::uint64_t{64} << 10),
                                                  error_value::of_size(std::uint64_t{1} << 30)));
        if (data_alloc.count() < data_block.count() || data_alloc.count() > cap)
            return unexpected(error::out_of_range("data_alloc_size", error_value::of_size(data_alloc.count()),
                                                  error_value::of_size(data_block.count()), error_value::of_size(cap)));
        if (!is_aligned(data_alloc, data_block))
            return unexpected(error::not_a_multiple("data_alloc_size", error_value::of_size(data_alloc.count()),
                                                    error_value::of_size(data_block.count())));
        if (data_lowater.count() > cap)
            return unexpected(error::out_of_range("data_lowater", error_value::of_size(data_lowater.count()),
                                                  error_value::of_size(0), error_value::of_size(cap)));
        if (!is_aligned(data_lowater, data_block))
            return unexpected(error::not_a_multiple("data_lowater", error_value::of_size(data_lowater.count()),
                                                    error_value::of_size(data_block.count())));
        if (mdv.count() > cap)
            return unexpected(error::out_of_range("mdv_size", error_value::of_size(mdv.count()),
                                                  error_value::of_size(0), error_value::of_size(cap)));
        if (!is_aligned(mdv.count(), 512))
            return unexpected(
                error::not_a_multiple("mdv_size", error_value::of_size(mdv.count()), error_value::of_size(512)));
        return stratis_config(data_alloc, data_lowater, data_block, mdv, stratis_release::v3_1);
    }
    /// Refused: four sizes in a row trade places unseen (make(15_GiB, 50_GiB) validates); the role types name each.
    static result<stratis_config> make(bytes, bytes, bytes = bytes(), bytes = bytes()) = delete;

    /// Which stratisd line the configuration decides as (make() builds the 3.1 line's; stratis_3_0() is 3.0's).
    PROVPOL_NODISCARD constexpr stratis_release release() const noexcept { return release_; }
    PROVPOL_NODISCARD constexpr bytes data_block() const noexcept { return block_; }
    /// What one data extend adds at most (DATA_ALLOC_SIZE); 3.0 has no such cap (0: all the backstore has).
    PROVPOL_NODISCARD constexpr bytes data_alloc() const noexcept { return alloc_; }
    PROVPOL_NODISCARD constexpr bytes data_lowater() const noexcept { return lowater_; }
    PROVPOL_NODISCARD constexpr bytes mdv_size() const noexcept { return mdv_; }
    /// DATA_LOWATER in data blocks: the mark check() gives the kernel after a data extend.
    PROVPOL_NODISCARD constexpr blocks lowater_blocks() const noexcept {
        return blocks_in(lowater_, block_, rounding::down);
    }
    /// MAX_META_SIZE (255 x (2^14 - 64) blocks of 4 KiB) rounded down to a data block: the largest metadata device
    /// (cmd.rs:573). 3.0 caps its metadata target at MAX_META_SIZE itself (thinpool.rs:589), not rounded.
    PROVPOL_NODISCARD constexpr bytes max_metadata() const noexcept {
        const bytes max_meta(std::uint64_t{255} * ((1u << 14) - 64) * 4096);
        return release_ == stratis_release::v3_0 ? max_meta : align_down(max_meta, block_);
    }
    /// 3.0's FILESYSTEM_LOWATER, 4 x DATA_LOWATER: a filesystem with less free is doubled. 0 in the 3.1 line.
    PROVPOL_NODISCARD constexpr bytes filesystem_lowater() const noexcept {
        return release_ == stratis_release::v3_0 ? saturating_mul(lowater_, 4) : bytes(0);
    }

    friend constexpr bool operator==(const stratis_config& a, const stratis_config& b) noexcept {
        return a.alloc_ == b.alloc_ && a.lowater_ == b.lowater_ && a.block_ == b.block_ && a.mdv_ == b.mdv_ &&
               a.release_ == b.release_;
    }
    friend constexpr bool operator!=(const stratis_config& a, const stratis_config& b) noexcept { return !(a == b); }

private:
    friend constexpr stratis_config stratis_3_0() noexcept;
    constexpr stratis_config(bytes alloc, bytes lowater, bytes block, bytes mdv, stratis_release release) noexcept
        : alloc_(alloc), lowater_(lowater), block_(block), mdv_(mdv), release_(release) {}

    bytes alloc_;
    bytes lowater_;
    bytes block_;
    bytes mdv_;
    stratis_release release_;
};

/// stratisd as shipped (thinpool.rs:73, :75, #[cfg(not(test))]): extend the data device by 50 GiB when less than
/// 15 GiB of it is free; 1 MiB data blocks, a 512 MiB MDV. The data part of check().
PROVPOL_NODISCARD constexpr stratis_config stratis_data() noexcept {
    return detail::valid(stratis_config::make(stratis_data_alloc(bytes(std::uint64_t{50} << 30)),
                                              stratis_data_lowater(bytes(std::uint64_t{15} << 30))));
}
/// The same constants: the metadata part of check() (doubling at the kernel's metadata low-water mark).
PROVPOL_NODISCARD constexpr stratis_config stratis_metadata() noexcept { return stratis_data(); }
/// The same constants: check_fs(), which doubles a filesystem more than half full (no constant of its own).
PROVPOL_NODISCARD constexpr stratis_config stratis_filesystem() noexcept { return stratis_data(); }
/// The constants stratisd's own tests build with (thinpool.rs:82, :84, #[cfg(test)]): 5 GiB and 4 GiB. Not what a
/// Stratis pool runs with: for checking stratisd's tests only.
PROVPOL_NODISCARD constexpr stratis_config stratis_test_constants() noexcept {
    return detail::valid(stratis_config::make(stratis_data_alloc(bytes(std::uint64_t{5} << 30)),
                                              stratis_data_lowater(bytes(std::uint64_t{4} << 30))));
}
/// stratisd 3.0.0-3.0.4 (thinpool.rs:44-56 at v3.0.4): 1 MiB data blocks, DATA_LOWATER 2 GiB, a 16 MiB MDV, no
/// DATA_ALLOC_SIZE (every check gives the data device all the backstore has). The data, metadata and filesystem parts
/// of its check, as stratis-3.0-data, stratis-3.0-metadata and stratis-3.0-filesystem.
PROVPOL_NODISCARD constexpr stratis_config stratis_3_0() noexcept {
    return stratis_config(bytes(0), bytes(std::uint64_t{2} << 30), bytes(std::uint64_t{1} << 20),
                          bytes(std::uint64_t{16} << 20), stratis_release::v3_0);
}

// ============================================================================================================
// Sizes

/// The metadata device stratisd makes of thin_metadata_size's answer (`sectors`, the 512-byte sectors
/// `thin_metadata_size -n` printed for the data block, the pool size and the filesystem limit, as blocks, as
/// stratis_pool_state's metadata_estimate holds them): x 8, rounded up to a data block, at most max_metadata()
/// (cmd.rs:561). Saturates instead of wrapping where 8 x sectors passes 2^64 bytes. A count in another unit (the
/// answer in bytes, `-u b`; 4 KiB metadata blocks) is the caller's to convert: blocks_in(size, bytes(512), up).
PROVPOL_NODISCARD constexpr bytes stratis_metadata_size(const stratis_config& c, blocks sectors) noexcept {
    const bytes raw(saturating_mul(saturating_mul(sectors.count(), 8), 512));
    return min(align_up(raw, c.data_block()), c.max_metadata());  // align_up saturates to a multiple
}

/// What ThinPoolSizeParams::new and ThinPool::new make of a new pool.
struct stratis_initial_sizes {
    bytes metadata;           ///< the metadata device (and its spare, the same size)
    bytes data;               ///< the data device: min(room for data, DATA_ALLOC_SIZE), whole blocks
    bytes mdv;                ///< the metadata volume (INITIAL_MDV_SIZE)
    blocks low_water_blocks;  ///< min(DATA_LOWATER, data blocks / 2), in data blocks
    bytes allocated;          ///< 2 x metadata + data + mdv: what the pool takes from the backstore
};

namespace detail {
constexpr std::uint32_t stratis_3_0_crit_pct = 95;                           // thinpool.rs:56 SPACE_CRIT_PCT
constexpr bytes stratis_3_0_meta_segment = bytes(std::uint64_t{16} << 20);   // :47, :49 4 Ki metadata blocks
constexpr bytes stratis_3_0_initial_data = bytes(std::uint64_t{768} << 20);  // :50 INITIAL_DATA_SIZE
}  // namespace detail

/// stratisd 3.0's calc_lowater (thinpool.rs:168-196 at v3.0.4), in data blocks: the larger of DATA_LOWATER (or, when
/// DATA_LOWATER + available <= the 5% left above SPACE_CRIT_PCT of size + available, that 5% minus available) and
/// the free blocks minus DATA_LOWATER (so that the next 2 GiB written raise an event for check_fs). Exact (the
/// 95% product in 128 bits where stratisd's u64 would overflow, past 2^57 blocks); `used_blocks` above `size_blocks`
/// counts as full. A size + available of 0, where stratisd's assertion fails, gives DATA_LOWATER.
PROVPOL_NODISCARD constexpr blocks stratis_3_0_low_water(const stratis_config& c, blocks used_blocks,
                                                         blocks size_blocks, blocks available_blocks) noexcept {
    const std::uint64_t used = used_blocks.count(), size = size_blocks.count(), available = available_blocks.count();
    const std::uint64_t lowater = c.lowater_blocks().count();
    const std::uint64_t total = saturating_add(size, available);
    const std::uint64_t for_crit = total - ratio_of(total, detail::stratis_3_0_crit_pct, 100, rounding::down);
    const std::uint64_t prelim =
        saturating_add(lowater, available) > for_crit || total == 0 ? lowater : for_crit - available;
    const std::uint64_t free = size - (used < size ? used : size);
    const std::uint64_t fs_event = free > lowater ? free - lowater : 0;
    return blocks(prelim > fs_event ? prelim : fs_event);
}

/// A new pool on `usable` bytes of data tier, `metadata_sectors` being thin_metadata_size's answer for it and
/// DEFAULT_FS_LIMIT (100) filesystems, in 512-byte sectors (stratis_metadata_size). stratisd 3.0 runs no
/// thin_metadata_size (`metadata_sectors` unused): its ThinPoolSizeParams::default() is 16 MiB of metadata (and spare),
/// 768 MiB of data and a 16 MiB MDV, with the low-water mark calc_lowater(0, 768 blocks, what the backstore has left);
/// stratisd refuses a pool whose tier holds less than `allocated`, and its first check gives the data device the rest.
PROVPOL_NODISCARD constexpr stratis_initial_sizes stratis_initial(const stratis_config& c, bytes usable,
                                                                  blocks metadata_sectors) noexcept {
    stratis_initial_sizes s{};
    if (c.release() == stratis_release::v3_0) {
        s.metadata = detail::stratis_3_0_meta_segment;
        s.data = detail::stratis_3_0_initial_data;
        s.mdv = c.mdv_size();
        s.allocated = saturating_mul(s.metadata, 2) + s.data + s.mdv;
        s.low_water_blocks = stratis_3_0_low_water(c, blocks(0), blocks_in(s.data, c.data_block(), rounding::down),
                                                   blocks_in(usable - s.allocated, c.data_block(), rounding::down));
        return s;
    }
    s.metadata = stratis_metadata_size(c, metadata_sectors);
    const bytes room = usable - c.mdv_size() - saturating_mul(s.metadata, 2);
    s.data = align_down(min(room, c.data_alloc()), c.data_block());
    s.mdv = c.mdv_size();
    const std::uint64_t half = s.data.count() / c.data_block().count() / 2;
    s.low_water_blocks = min(blocks(half), c.lowater_blocks());
    s.allocated = saturating_mul(s.metadata, 2) + s.data + s.mdv;
    return s;
}

// ============================================================================================================
// One check() of the pool

/// What stratisd reads of a pool when it runs check() (the pool's status, its table and its backstore).
struct stratis_pool_state {
    bytes data_size;                       ///< the data device's size
    blocks data_used{};                    ///< used data blocks, of the configuration's data_block (the pool's status)
    bytes metadata_size{};                 ///< the metadata device's size
    blocks metadata_used{};                ///< used metadata blocks of 4 KiB (the status)
    blocks metadata_low_water{};           ///< the status's metadata low-water mark, in 4 KiB blocks (0: none given)
    blocks metadata_estimate{};            ///< thin_metadata_size's 512-byte sectors for the data tier (0: no growth)
    bytes available;                       ///< the backstore's unallocated space (available_in_backstore)
    bytes datatier_usable = bytes::max();  ///< the data tier's usable size (caps the doubled metadata)
    bool error_if_no_space = false;        ///< the pool's table has error_if_no_space (out_of_alloc_space)
    bool out_of_metadata_space = false;    ///< stratisd has already found no room for metadata
    bool overprovisioning = true;          ///< overprovisioning allowed (the default)
    bytes filesystems_size{};              ///< sum of the filesystems' sizes (read when overprovisioning is off)
};

/// What one part (metadata or data) of check() does.
enum class stratis_outcome : unsigned char {
    none = 0,                   ///< nothing to grow
    extend = 1,                 ///< the device grows (the metadata's spare with it)
    error_if_no_space = 2,      ///< no room in the backstore: the pool is put in error_if_no_space
    refused_overprovision = 3,  ///< metadata: filesystems + MDV + 2 x metadata fill the data tier, overprovisioning off
    skipped = 4,                ///< not tried: metadata already out of space, or data with the pool in error mode
};

/// "none", "extend", "error-if-no-space", "refused-overprovision", "skipped".
PROVPOL_NODISCARD constexpr const char* to_text(stratis_outcome o) noexcept {
    switch (o) {
        case stratis_outcome::none:
            return "none";
        case stratis_outcome::extend:
            return "extend";
        case stratis_outcome::error_if_no_space:
            return "error-if-no-space";
        case stratis_outcome::refused_overprovision:
            return "refused-overprovision";
        case stratis_outcome::skipped:
            return "skipped";
    }
    return "unknown";
}

/// Everything one check() decides.
struct stratis_check_decision {
    bool metadata_low_water;         ///< free metadata blocks under the status's mark: the metadata is doubled
    bytes metadata_target;           ///< the size aimed at: doubled (capped at the data tier) or the estimate
    stratis_outcome metadata;        ///< what happened to the metadata device
    bytes metadata_extend_by;        ///< what the metadata device grows by
    bytes metadata_spare_extend_by;  ///< what its spare grows by: as much (3.1); asked after it, so maybe less (3.0)
    bytes metadata_new_size;         ///< the metadata device after the check
    bool data_low_water;             ///< data size - used < DATA_LOWATER
    stratis_outcome data;            ///< what happened to the data device
    bytes data_extend_by;            ///< what the data device grows by
    bytes data_new_size;             ///< the data device after the check
    blocks low_water_blocks;         ///< the data low-water mark set (DATA_LOWATER blocks), 0 when it is not reset;
                                     ///< 3.0 sets calc_lowater's at every check
    bytes available_after;           ///< the backstore's unallocated space after the check
    bool error_if_no_space;          ///< the pool's mode after the check
    bool out_of_metadata_space;      ///< stratisd's flag after the check
};

namespace detail {
// extend_thin_meta_device (thinpool.rs:1500-1646) on d, from the state s.
constexpr void stratis_metadata_step(const stratis_config& c, const stratis_pool_state& s,
                                     stratis_check_decision& d) noexcept {
    d.metadata_new_size = s.metadata_size;
    const blocks total = blocks_in(s.metadata_size, bytes(4096), rounding::down);
    d.metadata_low_water = total - min(s.metadata_used, total) < s.metadata_low_water;
    if (s.out_of_metadata_space) {
        d.metadata = stratis_outcome::skipped;
        return;
    }
    d.metadata_target = d.metadata_low_water ? min(saturating_mul(s.metadata_size, 2), s.datatier_usable)
                                             : stratis_metadata_size(c, s.metadata_estimate);
    const bytes growth = d.metadata_target - s.metadata_size;
    if (!s.overprovisioning && growth.count() != 0 &&
        s.filesystems_size + c.mdv_size() + saturating_mul(s.metadata_size, 2) >= s.datatier_usable) {
        d.metadata = stratis_outcome::refused_overprovision;
        d.out_of_metadata_space = true;
        return;
    }
    if (saturating_mul(growth, 2) > s.available) {
        d.metadata = stratis_outcome::error_if_no_space;
        d.out_of_metadata_space = true;
        d.error_if_no_space = true;
        return;
    }
    if (growth.count() == 0) return;
    d.metadata = stratis_outcome::extend;
    d.metadata_extend_by = growth;
    d.metadata_spare_extend_by = growth;
    d.metadata_new_size = s.metadata_size + growth;
    d.available_after = d.available_after - saturating_mul(growth, 2);
}

// The data part of check() (thinpool.rs:1269-1287) and extend_thin_data_device (:1470-1494) on d.
constexpr void stratis_data_step(const stratis_config& c, const stratis_pool_state& s,
                                 stratis_check_decision& d) noexcept {
    d.data_new_size = s.data_size;
    const bytes used = size_of(s.data_used, c.data_block());
    d.data_low_water = s.data_size - used < c.data_lowater();
    if (!d.data_low_water) return;
    if (d.error_if_no_space) {
        d.data = stratis_outcome::skipped;
        return;
    }
    d.low_water_blocks = c.lowater_blocks();  // set whether or not the extend succeeds
    const bytes ext = min(align_down(d.available_after, c.data_block()), c.data_alloc());
    if (ext.count() == 0) {
        d.data = stratis_outcome::error_if_no_space;
        d.error_if_no_space = true;
        return;
    }
    d.data = stratis_outcome::extend;
    d.data_extend_by = ext;
    d.data_new_size = s.data_size + ext;
    d.available_after = d.available_after - ext;
}
// Backstore::request (backstore.rs:403-437 at v3.0.4), the cap device holding nothing spare: `request` down to
// `modulus`, halved (down to `modulus`) until the data tier's free space holds it, or 0.
constexpr bytes stratis_3_0_request(bytes request, bytes modulus, bytes available) noexcept {
    std::uint64_t r = request.count() / modulus.count() * modulus.count();
    while (r != 0 && r > available.count()) r = r / 2 / modulus.count() * modulus.count();
    return bytes(r);
}

// stratisd 3.0's check() (thinpool.rs:574-640 at v3.0.4) on d.
constexpr void stratis_3_0_check(const stratis_config& c, const stratis_pool_state& s,
                                 stratis_check_decision& d) noexcept {
    // The metadata: min(usable sectors / 1000 as 4 KiB blocks, MAX_META_SIZE), when the device is short of it by
    // more than MIN_META_SEGMENT_SIZE; the device, then its spare, each ask the backstore for the shortfall.
    d.metadata_new_size = s.metadata_size;
    const std::uint64_t target_blocks = s.datatier_usable.count() / 512 / 1000 / 8;
    const std::uint64_t max_blocks = c.max_metadata().count() / 4096;
    d.metadata_target = bytes(saturating_mul(target_blocks < max_blocks ? target_blocks : max_blocks, 4096));
    const std::uint64_t have = s.metadata_size.count() / 4096;
    const bytes short_by = d.metadata_target - bytes(saturating_mul(have, 4096));
    if (short_by > detail::stratis_3_0_meta_segment) {
        d.metadata_extend_by = stratis_3_0_request(short_by, detail::stratis_3_0_meta_segment, d.available_after);
        d.available_after = d.available_after - d.metadata_extend_by;
        d.metadata_spare_extend_by = stratis_3_0_request(short_by, detail::stratis_3_0_meta_segment, d.available_after);
        d.available_after = d.available_after - d.metadata_spare_extend_by;
        d.metadata_new_size = s.metadata_size + d.metadata_extend_by;
        if (d.metadata_extend_by.count() != 0) d.metadata = stratis_outcome::extend;
    }
    // The data: all the backstore has left, in whole blocks, when at least one block is free.
    d.data_new_size = s.data_size;
    d.data_extend_by = align_down(d.available_after, c.data_block());
    if (d.data_extend_by.count() != 0) {
        d.data = stratis_outcome::extend;
        d.data_new_size = s.data_size + d.data_extend_by;
        d.available_after = d.available_after - d.data_extend_by;
    }
    d.low_water_blocks =
        stratis_3_0_low_water(c, s.data_used, blocks_in(d.data_new_size, c.data_block(), rounding::down),
                              blocks_in(d.available_after, c.data_block(), rounding::down));
    d.error_if_no_space = true;  // ThinPool::new and setup put it in the table (thinpool.rs:416, :497)
}
}  // namespace detail

/// One ThinPool::check(): the metadata first, then the data, as stratisd runs it on a dm event and every 10 s.
/// Metadata: doubled (at most the data tier's usable size) when its free blocks are under the status's metadata
/// low-water mark, else grown to thin_metadata_size's estimate x 8 if that is larger; the spare grows as much, so
/// 2 x the growth must be available or the pool goes to error_if_no_space and metadata is out of space (until a data
/// device is added, a filesystem destroyed or overprovisioning enabled: the caller's state, out_of_metadata_space).
/// Data: when size - used < DATA_LOWATER and the pool is not in error_if_no_space, grown by min(available, rounded
/// down to a block, DATA_ALLOC_SIZE), and the low-water mark reset to DATA_LOWATER (even if the extend fails); no
/// block available puts the pool in error_if_no_space (until a data device is added or grown: the caller's state,
/// error_if_no_space). Total and saturating on every input.
/// stratisd 3.0 (c.release() v3_0) decides its own way: the metadata grown to 1/1000 of the data tier
/// (`datatier_usable`) when short of it by more than 16 MiB (the device, then its spare, asking the backstore, each
/// halving its request until it fits); the data device grown by all the backstore has left in whole blocks; the
/// low-water mark set by stratis_3_0_low_water; error_if_no_space always on. data_low_water, metadata_low_water and
/// the overprovisioning inputs mean nothing there.
PROVPOL_NODISCARD constexpr stratis_check_decision decide_stratis_check(const stratis_config& c,
                                                                        const stratis_pool_state& s) noexcept {
    stratis_check_decision d{};
    d.available_after = s.available;
    d.error_if_no_space = s.error_if_no_space;
    d.out_of_metadata_space = s.out_of_metadata_space;
    if (c.release() == stratis_release::v3_0) {
        detail::stratis_3_0_check(c, s, d);
        return d;
    }
    detail::stratis_metadata_step(c, s, d);
    detail::stratis_data_step(c, s, d);
    return d;
}

/// The fewest used data blocks at which check() extends the data: the smallest u with size - u x block <
/// DATA_LOWATER (0 when the device is already under it: a pool smaller than 15 GiB is extended at once). 0 for
/// stratisd 3.0, whose every check extends while the backstore has a block.
PROVPOL_NODISCARD constexpr blocks stratis_trigger_blocks(const stratis_config& c, bytes data_size) noexcept {
    if (c.release() == stratis_release::v3_0 || data_size < c.data_lowater()) return blocks(0);
    // size - u b < L  <=>  u > (size - L) / b  <=>  u >= floor((size - L) / b) + 1
    return blocks_in(data_size - c.data_lowater(), c.data_block(), rounding::down) + blocks(1);
}

// ============================================================================================================
// One filesystem in check_fs()

/// What check_fs() reads of a mounted filesystem.
struct stratis_filesystem_state {
    bytes fs_size;                    ///< the filesystem's size as statvfs gives it (f_frsize x f_blocks)
    bytes fs_used;                    ///< its used bytes (f_frsize x (f_blocks - f_bfree))
    bytes thin_size;                  ///< the thin device's size
    bytes size_limit = bytes::max();  ///< the filesystem's size limit (max: none)
    bytes pool_room = bytes::max();   ///< overprovisioning off: room left for filesystems (max: it is on)
};

/// What check_fs() does to one filesystem.
struct stratis_filesystem_decision {
    bool more_than_half;      ///< 2 x used > size: the filesystem is to be extended (the 3.1 line)
    bool free_under_lowater;  ///< size - used < FILESYSTEM_LOWATER, 8 GiB: the filesystem is to be extended (3.0)
    bytes extend_by;          ///< what the thin device grows by (0: nothing, or nothing allowed)
    bytes new_size;           ///< the thin device after the check
    bytes pool_room_after;    ///< the room left for the next filesystem (max when overprovisioning is on)
};

/// A filesystem more than half full (2 x used > size, strictly) grows by min(its thin device's size, the limit
/// minus that size, the pool's room without overprovisioning): it doubles until a limit stops it.
PROVPOL_NODISCARD constexpr stratis_filesystem_decision decide_stratis_filesystem(
    const stratis_filesystem_state& s) noexcept {
    stratis_filesystem_decision d{};
    d.new_size = s.thin_size;
    d.pool_room_after = s.pool_room;
    d.more_than_half = saturating_mul(s.fs_used, 2) > s.fs_size;
    if (!d.more_than_half) return d;
    d.extend_by = min(min(s.thin_size, s.size_limit - s.thin_size), s.pool_room);
    d.new_size = s.thin_size + d.extend_by;
    if (s.pool_room != bytes::max()) d.pool_room_after = s.pool_room - d.extend_by;
    return d;
}

/// check_fs() on one filesystem as the configuration's stratisd runs it: the 3.1 line as above; stratisd 3.0
/// (filesystem.rs:242-286 at v3.0.4) grows a filesystem whose free bytes (size - used, statvfs) are under
/// FILESYSTEM_LOWATER, 8 GiB, by its thin device's size, with no limit and no overprovisioning guard (3.0 has
/// neither: size_limit and pool_room are not read).
PROVPOL_NODISCARD constexpr stratis_filesystem_decision decide_stratis_filesystem(
    const stratis_config& c, const stratis_filesystem_state& s) noexcept {
    if (c.release() != stratis_release::v3_0) return decide_stratis_filesystem(s);
    stratis_filesystem_decision d{};
    d.new_size = s.thin_size;
    d.pool_room_after = s.pool_room;
    d.free_under_lowater = s.fs_size - s.fs_used < c.filesystem_lowater();
    if (!d.free_under_lowater) return d;
    d.extend_by = s.thin_size;
    d.new_size = saturating_mul(s.thin_size, 2);
    return d;
}

/// A filesystem's size limit as set_size_limit takes it: refused under the thin device's size. (A template only so that
/// it is compiled where it is called.)
template <class Deferred = void>
PROVPOL_NODISCARD constexpr result<bytes> stratis_size_limit(bytes thin_size, bytes limit) noexcept {
    if (limit < thin_size)
        return unexpected(error::out_of_range("size_limit", error_value::of_size(limit.count()),
                                              error_value::of_size(thin_size.count()), error_value{}));
    return limit;
}

}  // namespace provpol

#endif  // PROVPOL_EXTEND_STRATIS_HPP
