// provpol/extend/lvm_config.hpp - an LVM2 autoextend configuration as lvm2 reads lvm.conf (lvm_autoextend_config:
// thin pools, VDO pools, snapshots), validated by its make() and with the values the decision (extend/lvm.hpp)
// acts on precomputed.
//
// Sources (lvm2 2.03.16, Debian 12's):
//   lib/metadata/lv_manip.c  _lvresize_adjust_policy: a threshold under 50 counts as 50, 100 or more disables,
//                            percent 0 fails.
//   lib/config/defaults.h    DEFAULT_THIN_POOL_AUTOEXTEND_THRESHOLD 100, _PERCENT 20 (and the same for VDO pools
//                            and snapshots), DEFAULT_THIN_POOL_CHUNK_SIZE 64 KiB, DEFAULT_EXTENT_SIZE 4 MiB.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_EXTEND_LVM_CONFIG_HPP
#define PROVPOL_EXTEND_LVM_CONFIG_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../result.hpp"
#include "lvm_usage.hpp"

#include <cstdint>

namespace provpol {

// ============================================================================================================
// The configuration

/// What autoextends: a thin pool (activation/thin_pool_autoextend_*), a VDO pool (vdo_pool_autoextend_*) or an
/// old-style snapshot's COW (snapshot_autoextend_*). One rule, three sets of lvm.conf keys.
enum class lvm_volume_kind : unsigned char { thin_pool, vdo_pool, snapshot };

/// The lvm.conf key prefix of a kind: "thin_pool", "vdo_pool", "snapshot".
PROVPOL_NODISCARD constexpr const char* to_text(lvm_volume_kind k) noexcept {
    switch (k) {
        case lvm_volume_kind::thin_pool:
            return "thin_pool";
        case lvm_volume_kind::vdo_pool:
            return "vdo_pool";
        case lvm_volume_kind::snapshot:
            return "snapshot";
    }
    return "unknown";
}

class lvm_thin_steps;

// lvm_threshold and lvm_percent, the two integer settings, are lvm_usage.hpp's (lvm_adjust_amount takes them too).
/// The thin pool's chunk (lvcreate --chunksize, allocation/thin_pool_chunk_size).
struct lvm_chunk_size {
    constexpr explicit lvm_chunk_size(bytes v) noexcept : value(v) {}
    bytes value;
};
/// A VDO pool's slab (allocation/vdo_slab_size_mb).
struct vdo_slab_size {
    constexpr explicit vdo_slab_size(bytes v) noexcept : value(v) {}
    bytes value;
};

/// An autoextend configuration as lvm2 reads lvm.conf: the threshold and percent as written, the VG's extent
/// size, the thin pool's chunk and, for a VDO pool, its slab size.
class lvm_autoextend_config {
public:
    /// The largest percent accepted (lvm.conf takes any int; 10^6 % keeps every product below 2^53).
    static constexpr std::uint64_t max_percent = 1000000;
    /// The largest threshold accepted as written: any value from 100 up disables autoextend.
    static constexpr std::uint64_t max_threshold = 0x7fffffff;

    /// Validates the settings as lvm2 reads them. `threshold` is taken as written: under 50 it acts as 50 (lvm2
    /// warns), 100 or more disables autoextend. `percent` 0 is accepted, as lvm.conf accepts it, and makes every
    /// extend fail (lvm_outcome::fails_percent_zero). The extent is a power of two from 1 KiB to 16 GiB; the
    /// pool chunk a multiple of 64 KiB from 64 KiB to 1 GiB (dm-thin's data block limits); the VDO slab a power
    /// of two from 128 MiB to 32 GiB (VDO's). Errors name the lvm.conf key of `kind`.
    PROVPOL_NODISCARD static constexpr result<lvm_autoextend_config> make(
        lvm_threshold threshold_as_written, lvm_percent percent_as_written,
        lvm_extent_size extent_size = lvm_extent_size(bytes(std::uint64_t{4} << 20)),
        lvm_chunk_size chunk_size = lvm_chunk_size(bytes(std::uint64_t{64} << 10)),
        lvm_volume_kind kind = lvm_volume_kind::thin_pool,
        vdo_slab_size slab_size = vdo_slab_size(bytes(std::uint64_t{2} << 30))) noexcept {
        const std::uint64_t threshold = threshold_as_written.value, percent = percent_as_written.value;
        const bytes extent = extent_size.value, pool_chunk = chunk_size.value, vdo_slab = slab_size.value;
        if (threshold > max_threshold)
            return unexpected(error::out_of_range(threshold_key(kind), error_value::of(threshold), error_value::of(0),
                                                  error_value::of(max_threshold)));
        if (percent > max_percent)
            return unexpected(error::out_of_range(percent_key(kind), error_value::of(percent), error_value::of(0),
                                                  error_value::of(max_percent)));
        if (!is_power_of_two(extent.count()))
            return unexpected(error::not_a_power_of_two("extent_size", error_value::of_size(extent.count())));
        if (extent.count() < 1024 || extent.count() > (std::uint64_t{1} << 34))
            return unexpected(error::out_of_range("extent_size", error_value::of_size(extent.count()),
                                                  error_value::of_size(1024),
                                                  error_value::of_size(std::uint64_t{1} << 34)));
        constexpr std::uint64_t min_chunk = std::uint64_t{64} << 10, max_chunk = std::uint64_t{1} << 30;
        if (pool_chunk.count() < min_chunk || pool_chunk.count() > max_chunk)
            return unexpected(error::out_of_range("thin_pool_chunk_size", error_value::of_size(pool_chunk.count()),
                                                  error_value::of_size(min_chunk), error_value::of_size(max_chunk)));
        if (pool_chunk.count() % min_chunk != 0)
            return unexpected(error::not_a_multiple("thin_pool_chunk_size", error_value::of_size(pool_chunk.count()),
                                                    error_value::of_size(min_chunk)));
        constexpr std::uint64_t min_slab = std::uint64_t{128} << 20, max_slab = std::uint64_t{32} << 30;
        if (!is_power_of_two(vdo_slab.count()))
            return unexpected(error::not_a_power_of_two("vdo_slab_size_mb", error_value::of_size(vdo_slab.count())));
        if (vdo_slab.count() < min_slab || vdo_slab.count() > max_slab)
            return unexpected(error::out_of_range("vdo_slab_size_mb", error_value::of_size(vdo_slab.count()),
                                                  error_value::of_size(min_slab), error_value::of_size(max_slab)));
        return lvm_autoextend_config(kind, static_cast<std::uint32_t>(threshold), static_cast<std::uint32_t>(percent),
                                     extent, pool_chunk, vdo_slab);
    }
    /// Refused: two integers and three sizes in a row trade places unseen (make(20, 70) validates); the role
    /// types above name each.
    static result<lvm_autoextend_config> make(std::uint64_t, std::uint64_t, bytes = bytes(), bytes = bytes(),
                                              lvm_volume_kind = lvm_volume_kind::thin_pool, bytes = bytes()) = delete;

    PROVPOL_NODISCARD constexpr lvm_volume_kind kind() const noexcept { return kind_; }
    /// The threshold as written in lvm.conf.
    PROVPOL_NODISCARD constexpr std::uint32_t threshold_as_written() const noexcept { return threshold_; }
    /// The threshold lvm2 acts on: at least 50, and 100 when disabled.
    PROVPOL_NODISCARD constexpr std::uint32_t threshold_percent() const noexcept { return threshold_acted_; }
    PROVPOL_NODISCARD constexpr std::uint32_t extend_percent() const noexcept { return percent_; }
    PROVPOL_NODISCARD constexpr bytes extent() const noexcept { return extent_; }
    PROVPOL_NODISCARD constexpr bytes pool_chunk() const noexcept { return chunk_; }
    PROVPOL_NODISCARD constexpr bytes vdo_slab() const noexcept { return slab_; }
    /// False when the threshold is 100 or more: lvm2 never autoextends.
    PROVPOL_NODISCARD constexpr bool enabled() const noexcept { return threshold_ < 100; }
    /// True when lvm2 reads the threshold as 50 and warns ("set below minimum supported 50%").
    PROVPOL_NODISCARD constexpr bool threshold_clamped() const noexcept { return threshold_ < 50; }
    /// True when an extend can happen at all: enabled and a percent above 0.
    PROVPOL_NODISCARD constexpr bool extends() const noexcept { return extends_; }
    /// log2 of the extent (a power of two): the decision's extent arithmetic is shifts and masks.
    PROVPOL_NODISCARD constexpr unsigned extent_shift() const noexcept { return extent_shift_; }
    /// threshold_percent() in lvm_usage's units (1e-6 %): a usage above it passes the threshold.
    PROVPOL_NODISCARD constexpr std::int32_t usage_limit() const noexcept { return usage_limit_; }
    /// (usage_limit() + 1) / 10^8 as a double, made once: in exact arithmetic the first used block count whose
    /// usage passes the threshold is the ceiling of total x this (where lvm_thin_steps' fast path starts).
    PROVPOL_NODISCARD constexpr double trigger_fraction() const noexcept { return trigger_fraction_; }

    /// The lvm.conf keys of a kind, for errors and for the lvm.conf snippets the CLI prints.
    PROVPOL_NODISCARD static constexpr const char* threshold_key(lvm_volume_kind k) noexcept {
        return k == lvm_volume_kind::thin_pool  ? "thin_pool_autoextend_threshold"
               : k == lvm_volume_kind::vdo_pool ? "vdo_pool_autoextend_threshold"
                                                : "snapshot_autoextend_threshold";
    }
    PROVPOL_NODISCARD static constexpr const char* percent_key(lvm_volume_kind k) noexcept {
        return k == lvm_volume_kind::thin_pool  ? "thin_pool_autoextend_percent"
               : k == lvm_volume_kind::vdo_pool ? "vdo_pool_autoextend_percent"
                                                : "snapshot_autoextend_percent";
    }

private:
    friend class lvm_thin_steps;  // its fast path reads fast_span_

    constexpr lvm_autoextend_config(lvm_volume_kind kind, std::uint32_t threshold, std::uint32_t percent, bytes extent,
                                    bytes chunk, bytes slab) noexcept
        : extent_(extent),
          chunk_(chunk),
          slab_(slab),
          threshold_(threshold),
          percent_(percent),
          kind_(kind),
          extent_shift_(static_cast<unsigned char>(detail::floor_log2(extent.count()))) {
        threshold_acted_ = threshold_ < 50 ? 50 : (threshold_ >= 100 ? 100 : threshold_);
        extends_ = threshold_ < 100 && percent_ != 0;
        usage_limit_ = static_cast<std::int32_t>(threshold_acted_) * lvm_percent_1;
        trigger_fraction_ = static_cast<double>(usage_limit_ + 1) / static_cast<double>(lvm_percent_100);
        // Pools from one chunk to 2^50 bytes and (2^32 - 1) extents (lvm2's MAX_EXTENT_COUNT), as physical - chunk
        // below this span; none when nothing extends.
        // (2^32 - 1) << shift is below 2^50 up to shift 18 (256 KiB extents); larger extents reach 2^50 first (and
        // from 2^33-byte extents the shift would pass 64 bits).
        const std::uint64_t most =
            extent_shift_ <= 18 ? std::uint64_t{0xffffffffu} << extent_shift_ : std::uint64_t{1} << 50;
        fast_span_ = extends_ ? most - chunk.count() : 0;
    }

    bytes extent_;
    bytes chunk_;
    bytes slab_;
    double trigger_fraction_ = 0;   // precomputed for the decision (trigger_fraction())
    std::uint64_t fast_span_ = 0;   // precomputed for lvm_thin_steps' fast path
    std::int32_t usage_limit_ = 0;  // precomputed for the decision (usage_limit())
    std::uint32_t threshold_;
    std::uint32_t threshold_acted_ = 0;  // precomputed (threshold_percent())
    std::uint32_t percent_;
    lvm_volume_kind kind_;
    unsigned char extent_shift_;  // precomputed for the decision (extent_shift())
    bool extends_ = false;        // precomputed for the decision (extends())
};

/// lvm_autoextend_config's other name, kept for one release (CHANGELOG.md): one name for one concept.
using lvm_thin_config [[deprecated("use lvm_autoextend_config")]] = lvm_autoextend_config;

/// lvm.conf's example values for VDO-pool autoextend (activation/vdo_pool_autoextend_threshold = 70,
/// vdo_pool_autoextend_percent = 20), LVM's default 4 MiB extent: each extend at least one slab.
PROVPOL_NODISCARD constexpr lvm_autoextend_config lvm_vdo_autoextend() noexcept {
    return detail::valid(
        lvm_autoextend_config::make(lvm_threshold(70), lvm_percent(20), lvm_extent_size(bytes(std::uint64_t{4} << 20)),
                                    lvm_chunk_size(bytes(std::uint64_t{64} << 10)), lvm_volume_kind::vdo_pool));
}
/// lvm.conf's example values for snapshot autoextend (activation/snapshot_autoextend_threshold = 70,
/// snapshot_autoextend_percent = 20), LVM's default 4 MiB extent: the COW grows to its useful maximum at most.
PROVPOL_NODISCARD constexpr lvm_autoextend_config lvm_snapshot_autoextend() noexcept {
    return detail::valid(
        lvm_autoextend_config::make(lvm_threshold(70), lvm_percent(20), lvm_extent_size(bytes(std::uint64_t{4} << 20)),
                                    lvm_chunk_size(bytes(std::uint64_t{64} << 10)), lvm_volume_kind::snapshot));
}

}  // namespace provpol

#endif  // PROVPOL_EXTEND_LVM_CONFIG_HPP
