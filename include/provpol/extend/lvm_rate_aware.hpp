// provpol/extend/lvm_rate_aware.hpp - a thin-pool extender that acts on the observed write rate: when to run
// `lvextend -L+SIZE VG/POOL` and by how much, so that the pool does not fill before the extend lands, within
// lvm2's limits and the operator's caps.
//
// Why: dmeventd's rule (extend/lvm.hpp) waits for a usage threshold and grows by a percent of the pool. Neither
// knows how fast the pool fills nor how long lvextend takes: a small pool written fast passes from the threshold
// to full in less than one lvextend (writes then queue, or fail after no_space_timeout), while a large idle pool
// is grown by 20% of itself. This policy is what an extender that watches the pool (`dmsetup status`) decides
// from what it observes: the fill rate and lvextend's own service time.
//
// The contract (lvm_rate_aware_config::decide; r the rate: the observed one, or min_rate when that is higher; S the
// service time, k the lead factor, F_min the floor: the larger of min_free and min_free_percent of the pool's data
// size):
// 1. The lead is L = k x S + margin. The pool is extended when its free data space F (free blocks x chunk) is
//    zero, or when F < F_min + r x L (it would eat into the floor within L at rate r). Otherwise nothing is done.
// 2. The amount is the fewest whole extents, and at least min_extend (one extent at least), that bring the free
//    space to F_min + r x (L + horizon), the floor taken of the pool's new size: after the extend lands (S later),
//    the pool has room for horizon at rate r, and its floor.
// 3. Within the limits, each checked before anything is asked of lvm2, the amount is cut to the largest that fits:
//    the pool no larger than max_pool_size (rounded down to whole extents), the VG space the command allocates
//    (the data extents and the metadata grown with them) no more than the VG's free space and no more than
//    max_vg_take less what this extender already took, and no more than MAX_EXTENT_COUNT (2^32 - 1) extents.
//    The metadata: when the metadata LV's size is known, growing the data grows it to 64 bytes per data chunk of
//    the new size, in whole extents, up to lvm2's maximum (lvm2's _estimate_metadata_size, as decide_lvm_autoextend
//    models it; lvm_metadata_extents_after is checked equal to it): the policy counts that space as lvm2 takes it.
//    An amount cut by a limit is `extend_limited`; a limit that leaves no extent is `blocked` (nothing is run).
// 4. Monotone, as a scan checks (tests/lvm_rate_aware_test.cpp): more used blocks, a higher rate, a longer service
//    time or margin never turn an extend into none, and never make the new size smaller.
// What it guarantees: if decisions are taken at least every `margin` seconds, the pool fills no faster than r and
// lvextend lands within S, then an extend is triggered with F >= r x k x S >= r x S, so the pool does not fill
// before the extend lands (k >= 1); and if horizon >= S the extend leaves at least r x L free when it lands, so
// the next extend is not due at once. The floor and min_rate are room for what the observed rate cannot foresee: a
// burst that starts faster than min_rate + F_min / (margin + S) fills the pool before an extend lands. min_rate
// costs room in proportion to the service time (min_rate x (L + horizon) is kept free while the pool is idle: less
// when lvextend is quick), F_min a fixed amount. A pool already within r x S of full when first seen, a rate that
// rises faster than the estimate, or a limit reached, are where writes can still queue.
// The metadata (decide_metadata): lvm2's own rule, lvextend --use-policies' for the metadata alone (extend/lvm.hpp's
// decide_lvm_autoextend with metadata_threshold and metadata_percent, lvm.conf's thin_pool_autoextend_threshold
// and _percent, whose defaults, 100 and 20, leave it off as lvm2 does), cut by the same VG limits: what an extender
// that took dmeventd's monitoring over owes the pool, since dmeventd no longer grows its metadata.
// What it does not do: shrink anything.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_EXTEND_LVM_RATE_AWARE_HPP
#define PROVPOL_EXTEND_LVM_RATE_AWARE_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../result.hpp"
#include "../time.hpp"
#include "lvm.hpp"

#include <cstdint>

namespace provpol {

/// The metadata LV's extents after the data grows to `new_data_extents`: lvm2 grows it to 64 bytes per data
/// chunk of the new size (_estimate_metadata_size, in 512-byte sectors, then whole extents) when that is more than
/// it has, never past the maximum metadata size (without cropping) and never below what it has. 0 when the
/// metadata's size is not known (0).
PROVPOL_NODISCARD constexpr std::uint64_t lvm_metadata_extents_after(std::uint64_t new_data_extents,
                                                                     bytes metadata_size, bytes extent,
                                                                     bytes pool_chunk) noexcept {
    if (metadata_size.count() == 0) return 0;
    const std::uint64_t mle = detail::lvm_extents(metadata_size, extent);
    const std::uint64_t max_mle = divide(detail::lvm_max_metadata_bytes, extent.count(), rounding::up);
    const std::uint64_t want_sectors =
        saturating_mul(new_data_extents, extent.count() / 512) / ((pool_chunk.count() / 512) * (512 / 64));
    std::uint64_t new_mle = mle;
    if (saturating_mul(want_sectors, 512) > metadata_size.count())
        new_mle = divide(saturating_mul(want_sectors, 512), extent.count(), rounding::up);
    if (new_mle > max_mle) new_mle = max_mle;
    return new_mle < mle ? mle : new_mle;
}

/// What the extender sees of the pool and the VG at one decision.
struct lvm_pool_view {
    bytes size;                    ///< the pool's data LV (whole extents)
    blocks used{};                 ///< used data blocks (dmsetup status)
    blocks total{};                ///< data blocks in all; 0 means size / chunk, rounded down
    bytes metadata_size{};         ///< the metadata LV's size; 0: not known (its growth is not counted)
    blocks metadata_used{};        ///< used metadata blocks of 4 KiB (dmsetup status)
    blocks metadata_total{};       ///< metadata blocks in all
    bytes vg_free = bytes::max();  ///< the VG's free space
    bytes taken{};                 ///< VG space this extender took so far (counts against max_vg_take)
};

/// How a decision ends.
enum class lvm_rate_aware_outcome : unsigned char {
    none = 0,            ///< the free space lasts the lead at the observed rate: nothing to run
    extend = 1,          ///< extend by the full amount
    extend_limited = 2,  ///< extend, by less than the amount: a limit cut it
    blocked = 3,         ///< an extend is due but a limit leaves no extent: nothing to run
};

/// Which limit cut or blocked an extend.
enum class lvm_rate_aware_limit : unsigned char { none = 0, pool_cap, vg_take, vg_free, extent_count };

/// "none", "extend", "extend-limited", "blocked".
PROVPOL_NODISCARD constexpr const char* to_text(lvm_rate_aware_outcome o) noexcept {
    switch (o) {
        case lvm_rate_aware_outcome::none:
            return "none";
        case lvm_rate_aware_outcome::extend:
            return "extend";
        case lvm_rate_aware_outcome::extend_limited:
            return "extend-limited";
        case lvm_rate_aware_outcome::blocked:
            return "blocked";
    }
    return "unknown";
}

/// "none", "max-pool-size", "max-vg-take", "vg-free", "extent-count".
PROVPOL_NODISCARD constexpr const char* to_text(lvm_rate_aware_limit l) noexcept {
    switch (l) {
        case lvm_rate_aware_limit::none:
            return "none";
        case lvm_rate_aware_limit::pool_cap:
            return "max-pool-size";
        case lvm_rate_aware_limit::vg_take:
            return "max-vg-take";
        case lvm_rate_aware_limit::vg_free:
            return "vg-free";
        case lvm_rate_aware_limit::extent_count:
            return "extent-count";
    }
    return "unknown";
}

/// One decision, with what it rests on.
struct lvm_rate_aware_decision {
    lvm_rate_aware_outcome outcome = lvm_rate_aware_outcome::none;
    lvm_rate_aware_limit limit = lvm_rate_aware_limit::none;  ///< what cut or blocked the extend
    bytes free;                                               ///< free data space now
    seconds lead{};                                           ///< k x service + margin
    std::uint64_t wanted_extents = 0;                         ///< the amount before the limits (0 when none is due)
    std::uint64_t add_extents = 0;                            ///< data extents the extend adds (what -L+ asks for)
    bytes add;                                                ///< add_extents in bytes: the SIZE of lvextend -L+SIZE
    bytes new_size;                          ///< the pool's data LV after the extend (its size now when none)
    std::uint64_t metadata_add_extents = 0;  ///< metadata extents lvm2 adds with the data (when its size is known)
    bytes vg_needed;                         ///< VG space the extend allocates: data and metadata
    blocks metadata_free{};                  ///< free metadata blocks (decide_metadata acts on them)
    bytes floor;                             ///< F_min now: the free data space the pool keeps at least
    rate rate_used{};                        ///< r: the observed rate, or min_rate when that is higher

    /// True when lvextend is to be run.
    PROVPOL_NODISCARD constexpr bool extends() const noexcept { return add_extents != 0; }
};

/// The settings; lvm_rate_aware_config::make validates them.
struct lvm_rate_aware_settings {
    double lead_factor = 2.0;         ///< k: the lead is k x the lvextend service time (+ margin); [1, 100]
    seconds margin = seconds(1.0);    ///< added to the lead: at least the interval between decisions; [0, 3600] s
    seconds horizon = seconds(30.0);  ///< the free space an extend leaves, in seconds at the rate; [0.1, 86400] s
    bytes extent = bytes(std::uint64_t{4} << 20);       ///< the VG's extent size (as lvm.hpp accepts it)
    bytes pool_chunk = bytes(std::uint64_t{64} << 10);  ///< the pool's chunk (as lvm.hpp accepts it)
    bytes min_extend{};                  ///< the smallest extend (rounded up to an extent; one extent at least)
    bytes max_pool_size = bytes::max();  ///< the pool's data LV is never grown past this (whole extents)
    bytes max_vg_take = bytes::max();    ///< the most VG space this extender allocates, data and metadata
    bytes min_free{};                    ///< the floor: free data space kept at least
    /// The floor as a percent of the pool's data size (the larger of the two counts); [0, 50]. 10, as Docker's
    /// devicemapper driver keeps 10% of its pool free (moby's daemon/graphdriver/devmapper, dm.min_free_space).
    std::uint32_t min_free_percent = 10;
    /// The rate the pool is kept ready for when the observed one is lower (a writer that may start at once: a
    /// restore, a VM's first boot); 0, the default, adds nothing. Any rate.
    rate min_rate{0};
    /// lvm2's rule for the metadata (decide_metadata): lvm.conf's thin_pool_autoextend_threshold and _percent, as
    /// lvm_autoextend_config::make reads them; lvm2's defaults, 100 (off) and 20.
    std::uint64_t metadata_threshold = 100, metadata_percent = 20;
};

/// What decide_metadata decides: lvm2's metadata rule, cut by the VG limits.
struct lvm_metadata_decision {
    lvm_rate_aware_outcome outcome = lvm_rate_aware_outcome::none;
    lvm_rate_aware_limit limit = lvm_rate_aware_limit::none;  ///< what cut or blocked it (vg-take or vg-free)
    std::int32_t usage = 0;                                   ///< metadata usage, in lvm_usage's 1e-6 % units
    std::uint32_t threshold = 0;       ///< the whole percent it is held to: min(threshold, lvm2's metadata minimum)
    std::uint64_t wanted_extents = 0;  ///< what lvm2's rule adds, before the limits
    std::uint64_t add_extents = 0;     ///< metadata extents to add (lvextend --poolmetadatasize +SIZE)
    bytes add;                         ///< add_extents in bytes
    bytes new_size;                    ///< the metadata LV after it (its size now when none)

    /// True when lvextend --poolmetadatasize is to be run.
    PROVPOL_NODISCARD constexpr bool extends() const noexcept { return add_extents != 0; }
};

/// A validated configuration; decide() is the policy.
class lvm_rate_aware_config {
public:
    /// Validates the settings: errors name the setting (lead_factor, margin, horizon, extent_size,
    /// thin_pool_chunk_size) with its range.
    PROVPOL_NODISCARD static constexpr result<lvm_rate_aware_config> make(const lvm_rate_aware_settings& s) noexcept {
        if (!(s.lead_factor >= 1.0 && s.lead_factor <= 100.0))
            return unexpected(error::out_of_range("lead_factor", error_value::of_real(s.lead_factor),
                                                  error_value::of_real(1.0), error_value::of_real(100.0)));
        if (!(s.margin.count() >= 0.0 && s.margin.count() <= 3600.0))
            return unexpected(error::out_of_range("margin", error_value_of(s.margin), error_value_of(seconds(0.0)),
                                                  error_value_of(seconds(3600.0))));
        if (!(s.horizon.count() >= 0.1 && s.horizon.count() <= 86400.0))
            return unexpected(error::out_of_range("horizon", error_value_of(s.horizon), error_value_of(seconds(0.1)),
                                                  error_value_of(seconds(86400.0))));
        if (s.min_free_percent > 50)
            return unexpected(error::out_of_range("min_free_percent", error_value::of(s.min_free_percent),
                                                  error_value::of(0), error_value::of(50)));
        // The extent, the chunk and the metadata rule as lvm2 accepts them: lvm.hpp's checks, and its errors.
        const auto lvm =
            lvm_autoextend_config::make(lvm_threshold(s.metadata_threshold), lvm_percent(s.metadata_percent),
                                        lvm_extent_size(s.extent), lvm_chunk_size(s.pool_chunk));
        if (!lvm) return unexpected(lvm.error());
        return lvm_rate_aware_config(s, *lvm);
    }

    PROVPOL_NODISCARD constexpr const lvm_rate_aware_settings& settings() const noexcept { return s_; }

    /// The decision for a pool seen as `v`, filling at `r`, with lvextend taking up to `service` (the contract is
    /// the header's). A negative or NaN service time counts as 0.
    PROVPOL_NODISCARD constexpr lvm_rate_aware_decision decide(const lvm_pool_view& v, rate r,
                                                               seconds service) const noexcept {
        lvm_rate_aware_decision d{};
        d.new_size = v.size;
        const bytes chunk = s_.pool_chunk, e = s_.extent;
        const blocks total = v.total.count() != 0 ? v.total : blocks_in(v.size, chunk, rounding::down);
        d.free = size_of(total - min(v.used, total), chunk);
        d.metadata_free = v.metadata_total - v.metadata_used;
        const double svc = service.count() > 0.0 ? service.count() : 0.0;
        d.lead = seconds(s_.lead_factor * svc + s_.margin.count());
        d.rate_used = r < s_.min_rate ? s_.min_rate : r;
        const auto rb = static_cast<double>(d.rate_used.bytes_per_second());
        const auto free = static_cast<double>(d.free.count());
        const auto size = static_cast<double>(v.size.count());
        const double pct = s_.min_free_percent / 100.0;
        const double floor_abs = static_cast<double>(s_.min_free.count());
        const double floor_now = floor_abs > pct * size ? floor_abs : pct * size;
        d.floor = bytes(static_cast<std::uint64_t>(floor_now >= 1.8e19 ? 1.8e19 : floor_now));
        if (!(d.free.count() == 0 || free < floor_now + rb * d.lead.count())) return d;

        const std::uint64_t min_le =
            divide(s_.min_extend.count() == 0 ? e.count() : s_.min_extend.count(), e.count(), rounding::up);
        d.wanted_extents = min_le;
        // Bytes short of the target, F_min + r x (L + horizon), with the percent floor of the grown pool: an add A
        // meets it when F + A >= max(min_free, pct x (size + A)) + r x (L + horizon).
        const double room = rb * (d.lead.count() + s_.horizon.count());
        const double by_abs = floor_abs + room - free;
        const double by_pct = (pct * size + room - free) / (1.0 - pct);
        const double want = by_abs > by_pct ? by_abs : by_pct;
        if (want > 0.0) {
            const double le = want / static_cast<double>(e.count());
            const auto whole = le >= 4294967296.0 ? std::uint64_t{4294967296} : static_cast<std::uint64_t>(le);
            const std::uint64_t up = whole + (static_cast<double>(whole) < le ? 1 : 0);
            if (up > d.wanted_extents) d.wanted_extents = up;
        }
        limit(v, d);
        return d;
    }

    /// lvm2's rule for the metadata alone (the header's), for a pool seen as `v` (its metadata size, used and total
    /// blocks; none when its size is not known): the amount lvextend --use-policies would grow the metadata by when
    /// only the metadata passes its threshold (a percent of its extents, up to lvm2's maximum metadata size), cut to
    /// the VG's free space and what is left of max_vg_take in whole extents.
    PROVPOL_NODISCARD constexpr lvm_metadata_decision decide_metadata(const lvm_pool_view& v) const noexcept {
        lvm_metadata_decision m{};
        m.new_size = v.metadata_size;
        if (v.metadata_size.count() == 0 || v.metadata_total.count() == 0) return m;
        lvm_volume_state st{};
        st.size = v.size;
        st.used = blocks(0);  // the data is the rate-aware rule's: lvm2's rule decides the metadata alone
        st.total = blocks(1);
        st.metadata_size = v.metadata_size;
        st.metadata_used = v.metadata_used;
        st.metadata_total = v.metadata_total;
        const lvm_autoextend_decision d = decide_lvm_autoextend(metadata_rule_, st);
        m.usage = d.metadata_usage;
        m.threshold = d.metadata_threshold;
        if (d.outcome != lvm_outcome::extend || d.metadata_add_extents == 0) return m;
        m.wanted_extents = d.metadata_add_extents;
        const bytes take_left = s_.max_vg_take - v.taken;
        const bool take_binds = take_left < v.vg_free;
        const std::uint64_t budget = divide(take_binds ? take_left : v.vg_free, s_.extent, rounding::down);
        m.add_extents = m.wanted_extents < budget ? m.wanted_extents : budget;
        if (m.add_extents < m.wanted_extents)
            m.limit = take_binds ? lvm_rate_aware_limit::vg_take : lvm_rate_aware_limit::vg_free;
        m.outcome = m.add_extents == 0                 ? lvm_rate_aware_outcome::blocked
                    : m.add_extents < m.wanted_extents ? lvm_rate_aware_outcome::extend_limited
                                                       : lvm_rate_aware_outcome::extend;
        m.add = bytes(saturating_mul(m.add_extents, s_.extent.count()));
        m.new_size =
            bytes(saturating_mul(detail::lvm_extents(v.metadata_size, s_.extent) + m.add_extents, s_.extent.count()));
        return m;
    }

private:
    constexpr lvm_rate_aware_config(const lvm_rate_aware_settings& s, const lvm_autoextend_config& m) noexcept
        : s_(s), metadata_rule_(m) {}

    // VG space an extend of `add` data extents allocates: the data and the metadata grown with it.
    PROVPOL_NODISCARD constexpr std::uint64_t needed_extents(const lvm_pool_view& v, std::uint64_t le,
                                                             std::uint64_t add) const noexcept {
        if (add == 0) return 0;  // nothing is run: the metadata does not grow either
        const std::uint64_t mle = v.metadata_size.count() == 0 ? 0 : detail::lvm_extents(v.metadata_size, s_.extent);
        const std::uint64_t new_mle = lvm_metadata_extents_after(le + add, v.metadata_size, s_.extent, s_.pool_chunk);
        return add + (new_mle - mle);
    }

    // Step 3 of the contract: the wanted amount cut to the pool cap, the extent count and the VG budget.
    constexpr void limit(const lvm_pool_view& v, lvm_rate_aware_decision& d) const noexcept {
        const bytes e = s_.extent;
        const std::uint64_t le = detail::lvm_extents(v.size, e);
        std::uint64_t add = d.wanted_extents;
        const std::uint64_t cap_le = divide(s_.max_pool_size, e, rounding::down);
        const std::uint64_t room_cap = cap_le > le ? cap_le - le : 0;
        const std::uint64_t room_count = detail::lvm_max_extent_count > le ? detail::lvm_max_extent_count - le : 0;
        if (add > room_count) {
            add = room_count;
            d.limit = lvm_rate_aware_limit::extent_count;
        }
        if (add > room_cap) {
            add = room_cap;
            d.limit = lvm_rate_aware_limit::pool_cap;
        }
        const bytes take_left = s_.max_vg_take - v.taken;
        const bool take_binds = take_left < v.vg_free;
        const std::uint64_t budget = divide(take_binds ? take_left : v.vg_free, e, rounding::down);
        if (add != 0 && needed_extents(v, le, add) > budget) {
            // needed_extents grows with add: the largest add that fits, by bisection over [0, add).
            std::uint64_t lo = 0, hi = add;
            while (hi - lo > 1) {
                const std::uint64_t mid = lo + (hi - lo) / 2;
                if (needed_extents(v, le, mid) <= budget)
                    lo = mid;
                else
                    hi = mid;
            }
            add = lo;
            d.limit = take_binds ? lvm_rate_aware_limit::vg_take : lvm_rate_aware_limit::vg_free;
        }
        if (add == 0) {
            d.outcome = lvm_rate_aware_outcome::blocked;
            return;
        }
        d.outcome = add < d.wanted_extents ? lvm_rate_aware_outcome::extend_limited : lvm_rate_aware_outcome::extend;
        d.add_extents = add;
        d.add = bytes(add * e.count());
        d.new_size = bytes(saturating_mul(le + add, e.count()));
        d.metadata_add_extents = needed_extents(v, le, add) - add;
        d.vg_needed = bytes(saturating_mul(add + d.metadata_add_extents, e.count()));
    }

    lvm_rate_aware_settings s_;
    lvm_autoextend_config metadata_rule_;
};

}  // namespace provpol

#endif  // PROVPOL_EXTEND_LVM_RATE_AWARE_HPP
