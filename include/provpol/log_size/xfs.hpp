// provpol/log_size/xfs.hpp - mkfs.xfs's parts of a log-size policy: its geometry (xfsprogs_layout, per version)
// and its steps: the concurrency-sized log (6.8+), the 5.14 size brackets, the limits, stripe alignment and the
// refusals. Part of <provpol/log_size.hpp>; facts from xfsprogs 6.1.0, 6.13.0 (mkfs/xfs_mkfs.c
// calculate_initial_ag_geometry, calc_concurrency_ag_geometry, align_ag_geometry, calculate_log_size,
// calc_concurrency_logblocks, align_internal_log, validate_supported) and the behaviour of mkfs.xfs 7.2.0.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_LOG_SIZE_XFS_HPP
#define PROVPOL_LOG_SIZE_XFS_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../result.hpp"
#include "geometry.hpp"
#include "result.hpp"

#include <cstdint>

namespace provpol {

namespace detail {

/// calc_concurrency_ag_geometry (mkfs.xfs >= 6.8 on a non-rotational device without -d agcount/agsize): one AG
/// per CPU when that leaves AGs of at least 4 GiB, else fewer (never fewer than the default geometry); AGs over
/// the AG limit get more AGs, a multiple of the CPU count. mkfs's two loops in closed form.
constexpr void xfs_concurrency_ag_geometry(unsigned bl, std::uint64_t d, std::uint64_t nr, std::uint64_t def_agsize,
                                           std::uint64_t def_agcount, std::uint64_t& agsize,
                                           std::uint64_t& agcount) noexcept {
    agsize = def_agsize;
    if (nr != 0 && nr >= def_agcount) {
        const std::uint64_t four_gib = (std::uint64_t{4} << 30) >> bl;
        const std::uint64_t ag_max = ((std::uint64_t{1} << 40) - 1) >> bl;
        if (d / nr < four_gib) {
            // The largest thread count under nr with AGs of 4 GiB, if it beats the default AG count.
            const std::uint64_t t = d / four_gib;
            agsize = t > def_agcount ? d / t : def_agsize;
        } else {
            // Add nr threads until the AG size is at most the AG limit (the default AG size is never above it).
            const std::uint64_t k = d / ((ag_max + 1) * nr) + 1;
            agsize = d / (k * nr);
        }
    }
    agcount = divide(d, agsize, rounding::up);
}

}  // namespace detail

/// mkfs.xfs's geometry for one version (6.1 by default; 5.14 and the 2022 proposals use 6.1's): data blocks from
/// the device, the AG size and count (given; calc_default_ag_geometry; from 6.13 on a non-rotational device the
/// concurrency geometry; aligned to the stripe unit; a last AG under 16 MiB dropped), the AG headers and root
/// blocks (libxfs_alloc_ag_max_usable), where the internal log starts (libxfs_prealloc_blocks, in AG count / 2),
/// its stripe unit, the minimum log and max_tx_bytes (computed from the transaction reservations for this AG size,
/// see log_size/xfs_reservations.hpp) and the log concurrency (-l concurrency, or the CPU count on a non-rotational
/// device).
struct xfsprogs_layout {
    xfsprogs_version version = xfsprogs_version::v6_1;  ///< whose defaults and rules

    // long: mkfs.xfs's layout steps in its order, each reading the last one's state
    PROVPOL_LOG_SIZE_INLINE constexpr void lay_out(const fs_geometry& geo, log_context& c,
                                                   log_state& s) const noexcept {
        const fs_geometry_options& o = geo.options();
        const detail::xfs_common& xc = detail::fs_geometry_access::common(geo);
        const detail::xfs_derived& x = detail::fs_geometry_access::xfs(geo, version);
        const unsigned bl = xc.block_log;
        const bool modern = version != xfsprogs_version::v6_1;
        c.block_size = std::uint32_t{1} << bl;
        c.block_log = bl;
        c.allow_unsupported = o.allow_unsupported;
        c.version = version;

        const std::uint64_t ag_min = (std::uint64_t{1} << 24) >> bl;        // XFS_AG_MIN_BLOCKS
        const std::uint64_t ag_max = ((std::uint64_t{1} << 40) - 1) >> bl;  // XFS_AG_MAX_BLOCKS
        std::uint64_t d = o.device_size.count() >> bl;
        c.data_blocks = d;
        // xfsprogs 6.1 has neither parent pointers (6.10) nor -l/-d concurrency (6.8): it rejects the option.
        if (PROVPOL_UNLIKELY(!modern &&
                             (o.features.parent.given() || o.log_concurrency >= 0 || o.data_concurrency >= 0))) {
            s.fail(log_reason::unsupported_option);
            return;
        }
        if (d < ag_min) {  // validate_datadev: "size of data subvolume is too small"
            s.fail(log_reason::data_too_small);
            return;
        }
        // calculate_initial_ag_geometry: -d agsize, -d agcount, -d concurrency (1: the CPU count; 0 CPUs leave the
        // default), the default geometry.
        std::uint64_t agsize = o.agsize.count() >> bl;
        std::uint64_t agcount = o.agcount;
        // The default geometry always passes validate_ag_geometry; given AGs and stripe rounding may not.
        bool check = true;
        if (agsize != 0)
            agcount = divide(d, agsize, rounding::up);
        else if (agcount != 0)
            agsize = divide(d, agcount, rounding::up);
        else {
            detail::xfs_default_ag_geometry(bl, d, xc.dsunit != 0, agsize, agcount);
            check = xc.dsunit != 0;
            // -d concurrency=N, which excludes -d agcount and agsize (N = 0 keeps the default even on an SSD), else
            // the CPU count on a non-rotational device.
            if (PROVPOL_UNLIKELY(o.data_concurrency >= 0 || (modern && o.device == xfs_device::non_rotational))) {
                const std::uint64_t nr = o.data_concurrency < 0 || o.data_concurrency == 1
                                             ? o.cpus
                                             : static_cast<std::uint64_t>(o.data_concurrency);
                detail::xfs_concurrency_ag_geometry(bl, d, nr, agsize, agcount, agsize, agcount);
                check = true;
            }
        }
        // align_ag_geometry: AGs start on a stripe unit, and not all on the same disk of the stripe.
        if (PROVPOL_UNLIKELY(xc.dsunit != 0)) {
            const std::uint64_t su = xc.dsunit;
            if (agsize % su != 0) {
                std::uint64_t t = align_up(agsize, su);
                if (t > ag_max) t = agsize / su * su;
                agsize = t;
                if (o.agcount == 0) agcount = divide(d, agsize, rounding::up);
            }
            if (o.agcount == 0 && o.agsize.count() == 0 && agcount > 1 && xc.dswidth != su &&
                agsize % xc.dswidth == 0) {
                std::uint64_t t = agsize - su;
                if (t < ag_min) t = d < agsize ? agsize : agsize + su;
                agsize = t;
                agcount = divide(d, agsize, rounding::up);
            }
        }
        // A last AG under 16 MiB is dropped, with its blocks.
        const std::uint64_t tail = d % agsize;
        if (tail != 0 && tail < ag_min) {
            d = (agcount - 1) * agsize;
            --agcount;
        }
        c.data_blocks = d;
        c.agcount = agcount;
        c.agsize_blocks = agsize;
        if (check && (agsize < ag_min || agsize > ag_max || agsize > d)) {  // validate_ag_geometry
            s.fail(log_reason::invalid_ag_geometry);
            return;
        }
        c.max_log_blocks = agsize - x.ag_reserved;  // agsize >= 16 MiB holds every reservation
        // The log goes in AG agcount / 2 (the last AG may be short); in AG 0, room for the root inode chunk.
        const std::uint64_t logagno = agcount / 2;
        c.log_start = x.aligned_log_start;
        c.log_ag_blocks = logagno == agcount - 1 ? d - logagno * agsize : agsize;
        c.ag0_backoff = logagno == 0 ? x.ag0_backoff : 0;
        c.log_sunit_blocks = x.lsunit;
        c.align_blocks = x.align;

        // calculate_log_size: the minimum, at least XFS_MIN_LOG_BLOCKS, and XFS_MIN_LOG_BYTES from 1 GiB; the
        // largest transaction for the concurrency-sized log.
        const detail::xfs_min_log_step& m = detail::xfs_min_log_at(x, agsize);
        std::uint64_t raw = o.min_log_blocks;
        c.min_log_computed = raw == 0;
        if (raw == 0) raw = m.min_log_blocks;
        if (raw < detail::xfs_min_log_blocks_floor) raw = detail::xfs_min_log_blocks_floor;
        c.raw_min_log_blocks = raw;
        c.min_log_blocks = (d >= xc.gib_blocks && raw < xc.min_log_bytes_blocks) ? xc.min_log_bytes_blocks : raw;
        c.max_tx_bytes = m.max_tx_bytes;
        // -l concurrency=N (1: the CPU count), else the CPU count on a non-rotational device.
        std::uint64_t lc = 0;
        if (modern) {
            if (o.log_concurrency < 0)
                lc = o.device == xfs_device::non_rotational ? o.cpus : 0;
            else
                lc = o.log_concurrency == 1 ? o.cpus : static_cast<std::uint64_t>(o.log_concurrency);
        }
        c.log_concurrency = lc;
    }
};

/// calc_concurrency_logblocks (mkfs.xfs >= 6.8): from 1 GiB of data, at least room for `concurrency` maximal
/// transactions and half as many again (max_tx_bytes x 3 x concurrency / 2), at most XFS_MAX_LOG_BYTES. It runs
/// after the ratio and before the 64 MiB floor. provpol saturates where mkfs's 64-bit product would wrap
/// (over 2^31 concurrent transactions of 4 GiB).
struct xfsprogs_concurrency_step {
    PROVPOL_LOG_SIZE_INLINE constexpr void apply(const log_context& c, log_state& s) const noexcept {
        if (c.log_concurrency == 0 || c.data_blocks < ((std::uint64_t{1} << 30) >> c.block_log)) return;
        const std::uint64_t log_bytes = saturating_mul(saturating_mul(c.max_tx_bytes, 3), c.log_concurrency) / 2;
        const std::uint64_t cap = detail::xfs_max_log_bytes >> c.block_log;
        const std::uint64_t n = (log_bytes >> c.block_log) < cap ? (log_bytes >> c.block_log) : cap;
        if (n > s.blocks) s.set(n, log_step::concurrency);
    }
};

/// xfsprogs <= 5.14's initial size (removed in 5.15): under 1 GiB the minimum log; 1 to 16 GiB
/// min(XFS_MIN_LOG_BYTES, 5 x minimum) (XFS_DFL_LOG_FACTOR); from 16 GiB D / 2048.
struct xfsprogs_5_14_size_step {
    PROVPOL_LOG_SIZE_INLINE constexpr void apply(const log_context& c, log_state& s) const noexcept {
        const std::uint64_t d = c.data_blocks;
        if (d < ((std::uint64_t{1} << 30) >> c.block_log)) {
            s.blocks = c.min_log_blocks;
        } else if (d < ((std::uint64_t{16} << 30) >> c.block_log)) {
            const std::uint64_t ten = detail::xfs_min_log_bytes >> c.block_log;
            const std::uint64_t five = saturating_mul(c.min_log_blocks, 5);
            s.blocks = ten < five ? ten : five;
        } else {
            s.blocks = d / 2048;
        }
        s.decided_by = log_step::legacy_rule;
    }
};

/// "The xfsprogs caps": at least the minimum log; at most what an AG holds (libxfs_alloc_ag_max_usable - 1),
/// XFS_MAX_LOG_BLOCKS (1048576) and XFS_MAX_LOG_BYTES (2 GiB - 10 MiB); in AG 0 (a single AG) room for the
/// root inode chunk. mkfs fails when the AG cannot hold the minimum.
struct xfsprogs_limits_step {
    PROVPOL_LOG_SIZE_INLINE constexpr void apply(const log_context& c, log_state& s) const noexcept {
        if (c.agcount != 0 && c.max_log_blocks < c.min_log_blocks) s.fail(log_reason::ag_too_small_for_log);
        if (s.blocks < c.min_log_blocks) s.set(c.min_log_blocks, log_step::minimum);
        if (c.agcount != 0 && s.blocks > c.max_log_blocks) s.set(c.max_log_blocks, log_step::ag_limit);
        if (s.blocks > detail::xfs_max_log_blocks) s.set(detail::xfs_max_log_blocks, log_step::cap);
        const std::uint64_t byte_cap = detail::xfs_max_log_bytes >> c.block_log;
        if (s.blocks > byte_cap) s.set(byte_cap, log_step::cap);
        if (PROVPOL_UNLIKELY(c.ag0_backoff != 0)) {
            const std::uint64_t ag0_max = saturating_sub(c.max_log_blocks, c.ag0_backoff);
            if (s.blocks > ag0_max) s.set(ag0_max, log_step::ag_limit);
        }
        if (s.blocks < c.min_log_blocks) s.fail(log_reason::log_below_minimum);
    }
};

/// xfsprogs' align_internal_log: the log start and size rounded up to the log stripe unit (down when that would
/// pass a cap or the AG limit), one unit less when the log would run past its AG; mkfs fails when it still
/// does, or when alignment left the log under the minimum.
struct xfsprogs_stripe_align_step {
    PROVPOL_LOG_SIZE_INLINE constexpr void apply(const log_context& c, log_state& s) const noexcept {
        const std::uint64_t u = c.align_blocks;
        if (u == 0 || c.agcount == 0) return;
        const std::uint64_t start = c.log_start;  // already rounded up to u by the layout
        if (start >= c.log_ag_blocks) {
            s.fail(log_reason::log_crosses_ag);
            return;
        }
        std::uint64_t l = s.blocks;
        if (l % u != 0) {
            const std::uint64_t up = align_up(l, u);
            const std::uint64_t max = saturating_sub(c.max_log_blocks, c.ag0_backoff);
            l = (up > detail::xfs_max_log_blocks || up > (detail::xfs_max_log_bytes >> c.block_log) || up > max)
                    ? l / u * u
                    : up;
        }
        if (start + l > c.log_ag_blocks && l > u) l -= u;
        s.set(l, log_step::stripe_align);
        if (start + l > c.log_ag_blocks) s.fail(log_reason::log_crosses_ag);
        if (s.blocks < c.min_log_blocks) s.fail(log_reason::log_below_minimum);
    }
};

/// xfsprogs >= 5.19's validate_supported: refuse (unless --unsupported) data under `min_data`, a log under
/// `min_log` (mkfs.xfs 7.2 gives its own reason when the AG cannot hold `min_log`), and fewer than two AGs,
/// checked in that order.
class xfsprogs_support_step {
public:
    /// min_data and min_log in [0, 1 TiB].
    PROVPOL_NODISCARD static constexpr result<xfsprogs_support_step> make(bytes min_data, bytes min_log) noexcept {
        if (min_data.count() > (std::uint64_t{1} << 40))
            return unexpected(error::out_of_range("minimum data size", error_value::of_size(min_data.count()),
                                                  error_value::of_size(0),
                                                  error_value::of_size(std::uint64_t{1} << 40)));
        if (min_log.count() > (std::uint64_t{1} << 40))
            return unexpected(error::out_of_range("minimum log size", error_value::of_size(min_log.count()),
                                                  error_value::of_size(0),
                                                  error_value::of_size(std::uint64_t{1} << 40)));
        return xfsprogs_support_step(min_data, min_log);
    }
    PROVPOL_LOG_SIZE_INLINE constexpr void apply(const log_context& c, log_state& s) const noexcept {
        if (is_hard(s.reason)) return;
        const std::uint64_t min_log = min_log_.count() >> c.block_log;
        if (c.data_blocks < (min_data_.count() >> c.block_log))
            s.refuse(log_reason::fs_too_small, c.allow_unsupported);
        else if (s.blocks < min_log)  // 7.2 names an AG that cannot hold the log
            s.refuse(c.version == xfsprogs_version::v7_2 && c.max_log_blocks < min_log
                         ? log_reason::ag_too_small_for_log_floor
                         : log_reason::log_too_small,
                     c.allow_unsupported);
        else if (c.agcount < 2)
            s.refuse(log_reason::single_ag, c.allow_unsupported);
    }
    PROVPOL_NODISCARD constexpr bytes min_data() const noexcept { return min_data_; }
    PROVPOL_NODISCARD constexpr bytes min_log() const noexcept { return min_log_; }

private:
    constexpr xfsprogs_support_step(bytes d, bytes l) noexcept : min_data_(d), min_log_(l) {}
    bytes min_data_;
    bytes min_log_;
};

}  // namespace provpol

#endif  // PROVPOL_LOG_SIZE_XFS_HPP
