// provpol/extend/stratis.hpp - Stratis's thin-pool growth, exact to stratisd: the pool's initial sizes
// (stratis_initial_sizes), one run of ThinPool::check() on the metadata and data devices (decide_stratis_check) and
// one filesystem's growth in check_fs() (decide_stratis_filesystem), with stratisd's constants as the presets
// stratis_data(), stratis_metadata() and stratis_filesystem() (one configuration, three parts of one check).
//
// Sources: stratis-storage/stratisd at 28d8d0757f87b0dc4626c26506700d4ca089adc6 (2026-07-16, 3.9.x), files under
// src/engine/strat_engine/ unless named:
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
//   src/stratis/timer.rs:61   the timed check sleeps 10 s between runs (the dm event runs it at once)
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

/// stratisd's thin-pool constants, validated: the data block, what one data extend adds (DATA_ALLOC_SIZE), the free
/// data under which the pool is extended (DATA_LOWATER) and the metadata volume (INITIAL_MDV_SIZE). stratisd ships
/// 50 GiB and 15 GiB (stratis_data()); its own tests build with 5 GiB and 4 GiB (stratis_test_constants()).
class stratis_config {
public:
    /// Validates the constants: the data block a power of two from 64 KiB to 1 GiB (dm-thin's range); the
    /// allocation and the low water whole data blocks (stratisd's DataBlocks), the allocation at least one block and
    /// both at most 2^50 bytes; the MDV whole sectors, at most 2^50 bytes.
    PROVPOL_NODISCARD static constexpr result<stratis_config> make(bytes data_alloc, bytes data_lowater,
                                                                   bytes data_block = bytes(std::uint64_t{1} << 20),
                                                                   bytes mdv = bytes(std::uint64_t{512}
                                                                                     << 20)) noexcept {
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
        return stratis_config(data_alloc, data_lowater, data_block, mdv);
    }

    PROVPOL_NODISCARD constexpr bytes data_block() const noexcept { return block_; }
    PROVPOL_NODISCARD constexpr bytes data_alloc() const noexcept { return alloc_; }
    PROVPOL_NODISCARD constexpr bytes data_lowater() const noexcept { return lowater_; }
    PROVPOL_NODISCARD constexpr bytes mdv_size() const noexcept { return mdv_; }
    /// DATA_LOWATER in data blocks: the mark check() gives the kernel after a data extend.
    PROVPOL_NODISCARD constexpr std::uint64_t lowater_blocks() const noexcept {
        return lowater_.count() / block_.count();
    }
    /// MAX_META_SIZE (255 x (2^14 - 64) blocks of 4 KiB) rounded down to a data block: the largest metadata device.
    PROVPOL_NODISCARD constexpr bytes max_metadata() const noexcept {
        return align_down(bytes(std::uint64_t{255} * ((1u << 14) - 64) * 4096), block_);
    }

    friend constexpr bool operator==(const stratis_config& a, const stratis_config& b) noexcept {
        return a.alloc_ == b.alloc_ && a.lowater_ == b.lowater_ && a.block_ == b.block_ && a.mdv_ == b.mdv_;
    }
    friend constexpr bool operator!=(const stratis_config& a, const stratis_config& b) noexcept { return !(a == b); }

private:
    constexpr stratis_config(bytes alloc, bytes lowater, bytes block, bytes mdv) noexcept
        : alloc_(alloc), lowater_(lowater), block_(block), mdv_(mdv) {}

    bytes alloc_;
    bytes lowater_;
    bytes block_;
    bytes mdv_;
};

/// stratisd as shipped (thinpool.rs:73, :75, #[cfg(not(test))]): extend the data device by 50 GiB when less than
/// 15 GiB of it is free; 1 MiB data blocks, a 512 MiB MDV. The data part of check().
PROVPOL_NODISCARD constexpr stratis_config stratis_data() noexcept {
    return stratis_config::make(bytes(std::uint64_t{50} << 30), bytes(std::uint64_t{15} << 30)).value();
}
/// The same constants: the metadata part of check() (doubling at the kernel's metadata low-water mark).
PROVPOL_NODISCARD constexpr stratis_config stratis_metadata() noexcept { return stratis_data(); }
/// The same constants: check_fs(), which doubles a filesystem more than half full (no constant of its own).
PROVPOL_NODISCARD constexpr stratis_config stratis_filesystem() noexcept { return stratis_data(); }
/// The constants stratisd's own tests build with (thinpool.rs:82, :84, #[cfg(test)]): 5 GiB and 4 GiB. Not what a
/// Stratis pool runs with: for checking stratisd's tests only.
PROVPOL_NODISCARD constexpr stratis_config stratis_test_constants() noexcept {
    return stratis_config::make(bytes(std::uint64_t{5} << 30), bytes(std::uint64_t{4} << 30)).value();
}

// ============================================================================================================
// Sizes

/// The metadata device stratisd makes of thin_metadata_size's answer (`sectors`, what `thin_metadata_size -n`
/// printed for the data block, the pool size and the filesystem limit): x 8, rounded up to a data block, at most
/// max_metadata() (cmd.rs:561). Saturates instead of wrapping where 8 x sectors passes 2^64 bytes.
PROVPOL_NODISCARD constexpr bytes stratis_metadata_size(const stratis_config& c, std::uint64_t sectors) noexcept {
    const bytes raw(saturating_mul(saturating_mul(sectors, 8), 512));
    return min(align_up(raw, c.data_block()), c.max_metadata());  // align_up saturates to a multiple
}

/// What ThinPoolSizeParams::new and ThinPool::new make of a new pool.
struct stratis_initial_sizes {
    bytes metadata;                  ///< the metadata device (and its spare, the same size)
    bytes data;                      ///< the data device: min(room for data, DATA_ALLOC_SIZE), whole blocks
    bytes mdv;                       ///< the metadata volume (INITIAL_MDV_SIZE)
    std::uint64_t low_water_blocks;  ///< min(DATA_LOWATER, data blocks / 2)
    bytes allocated;                 ///< 2 x metadata + data + mdv: what the pool takes from the backstore
};

/// A new pool on `usable` bytes of data tier, `metadata_sectors` being thin_metadata_size's answer for it and
/// DEFAULT_FS_LIMIT (100) filesystems.
PROVPOL_NODISCARD constexpr stratis_initial_sizes stratis_initial(const stratis_config& c, bytes usable,
                                                                  std::uint64_t metadata_sectors) noexcept {
    stratis_initial_sizes s{};
    s.metadata = stratis_metadata_size(c, metadata_sectors);
    const bytes room = usable - c.mdv_size() - saturating_mul(s.metadata, 2);
    s.data = align_down(min(room, c.data_alloc()), c.data_block());
    s.mdv = c.mdv_size();
    const std::uint64_t half = s.data.count() / c.data_block().count() / 2;
    s.low_water_blocks = half < c.lowater_blocks() ? half : c.lowater_blocks();
    s.allocated = saturating_mul(s.metadata, 2) + s.data + s.mdv;
    return s;
}

// ============================================================================================================
// One check() of the pool

/// What stratisd reads of a pool when it runs check() (the pool's status, its table and its backstore).
struct stratis_pool_state {
    bytes data_size;                       ///< the data device's size
    std::uint64_t data_used = 0;           ///< used data blocks (the pool's status)
    bytes metadata_size{};                 ///< the metadata device's size
    std::uint64_t metadata_used = 0;       ///< used metadata blocks of 4 KiB (the status)
    std::uint64_t metadata_low_water = 0;  ///< the status's metadata low-water mark, in 4 KiB blocks (0: none given)
    std::uint64_t metadata_estimate = 0;   ///< thin_metadata_size's sectors for the data tier (0: no growth from it)
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
    bytes metadata_extend_by;        ///< what the metadata device grows by (its spare grows as much)
    bytes metadata_new_size;         ///< the metadata device after the check
    bool data_low_water;             ///< data size - used < DATA_LOWATER
    stratis_outcome data;            ///< what happened to the data device
    bytes data_extend_by;            ///< what the data device grows by
    bytes data_new_size;             ///< the data device after the check
    std::uint64_t low_water_blocks;  ///< the data low-water mark set (DATA_LOWATER blocks), 0 when it is not reset
    bytes available_after;           ///< the backstore's unallocated space after the check
    bool error_if_no_space;          ///< the pool's mode after the check
    bool out_of_metadata_space;      ///< stratisd's flag after the check
};

namespace detail {
// extend_thin_meta_device (thinpool.rs:1500-1646) on d, from the state s.
constexpr void stratis_metadata_step(const stratis_config& c, const stratis_pool_state& s,
                                     stratis_check_decision& d) noexcept {
    d.metadata_new_size = s.metadata_size;
    const std::uint64_t total = s.metadata_size.count() / 4096;
    d.metadata_low_water = total - (s.metadata_used < total ? s.metadata_used : total) < s.metadata_low_water;
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
    d.metadata_new_size = s.metadata_size + growth;
    d.available_after = d.available_after - saturating_mul(growth, 2);
}

// The data part of check() (thinpool.rs:1269-1287) and extend_thin_data_device (:1470-1494) on d.
constexpr void stratis_data_step(const stratis_config& c, const stratis_pool_state& s,
                                 stratis_check_decision& d) noexcept {
    d.data_new_size = s.data_size;
    const bytes used = saturating_mul(c.data_block(), s.data_used);
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
}  // namespace detail

/// One ThinPool::check(): the metadata first, then the data, as stratisd runs it on a dm event and every 10 s.
/// Metadata: doubled (at most the data tier's usable size) when its free blocks are under the status's metadata
/// low-water mark, else grown to thin_metadata_size's estimate x 8 if that is larger; the spare grows as much, so
/// 2 x the growth must be available or the pool goes to error_if_no_space and metadata is out of space for good.
/// Data: when size - used < DATA_LOWATER and the pool is not in error_if_no_space, grown by min(available, rounded
/// down to a block, DATA_ALLOC_SIZE), and the low-water mark reset to DATA_LOWATER (even if the extend fails); no
/// block available puts the pool in error_if_no_space. Total and saturating on every input.
PROVPOL_NODISCARD constexpr stratis_check_decision decide_stratis_check(const stratis_config& c,
                                                                        const stratis_pool_state& s) noexcept {
    stratis_check_decision d{};
    d.available_after = s.available;
    d.error_if_no_space = s.error_if_no_space;
    d.out_of_metadata_space = s.out_of_metadata_space;
    detail::stratis_metadata_step(c, s, d);
    detail::stratis_data_step(c, s, d);
    return d;
}

/// The fewest used data blocks at which check() extends the data: the smallest u with size - u x block <
/// DATA_LOWATER (0 when the device is already under it: a pool smaller than 15 GiB is extended at once).
PROVPOL_NODISCARD constexpr std::uint64_t stratis_trigger_blocks(const stratis_config& c, bytes data_size) noexcept {
    if (data_size < c.data_lowater()) return 0;
    // size - u b < L  <=>  u > (size - L) / b  <=>  u >= floor((size - L) / b) + 1
    return (data_size - c.data_lowater()).count() / c.data_block().count() + 1;
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
    bool more_than_half;    ///< 2 x used > size: the filesystem is to be extended
    bytes extend_by;        ///< what the thin device grows by (0: nothing, or nothing allowed)
    bytes new_size;         ///< the thin device after the check
    bytes pool_room_after;  ///< the room left for the next filesystem (max when overprovisioning is on)
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

/// A filesystem's size limit as set_size_limit takes it: refused under the thin device's size.
PROVPOL_NODISCARD constexpr result<bytes> stratis_size_limit(bytes thin_size, bytes limit) noexcept {
    if (limit < thin_size)
        return unexpected(error::out_of_range("size_limit", error_value::of_size(limit.count()),
                                              error_value::of_size(thin_size.count()), error_value{}));
    return limit;
}

}  // namespace provpol

#endif  // PROVPOL_EXTEND_STRATIS_HPP
