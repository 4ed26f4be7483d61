// provpol/log_size/policy.hpp - how a filesystem log-size policy is built: log_size_policy<Layout, Steps...>, a
// layout (the tool's own geometry rules) and steps in order (ratio, floor, caps, the tiny-filesystem rule); the
// real tools' policies are log_size/presets.hpp's, mkfs.xfs's steps log_size/xfs.hpp's and mke2fs's
// log_size/ext4.hpp's.
//
//   using namespace provpol::literals;
//   const auto g = provpol::fs_geometry::make({220_GiB}).value();   // device size; everything else default
//   const auto d = provpol::xfsprogs_6_1().decide(g);               // d.log_blocks == 28160 (110 MiB)
//
// A policy is log_size_policy<Layout, Steps...>. The layout turns an fs_geometry (what you would pass to
// mkfs; log_size/geometry.hpp) into a log_context: block size, data blocks after the AG layout, AG count and
// size, the minimum log and the largest log an AG can hold, the log stripe unit, max_tx_bytes and the log
// concurrency. The steps then run in order over a log_state (the log size so far, which step decided it,
// whether mkfs would accept it and why not; log_size/result.hpp).
//
// Contract of a layout L (checked by static_assert in log_size_policy):
//   constexpr void lay_out(const fs_geometry&, log_context&, log_state&) const noexcept;
//   trivially copyable (a policy is a small value).
// Contract of a step S:
//   constexpr void apply(const log_context&, log_state&) const noexcept;
//   trivially copyable.
// A step that changes the size records itself in log_state::decided_by (use log_state::set); a step that finds
// mkfs would refuse sets the reason with log_state::refuse (soft: --unsupported overrides it) or
// log_state::fail (hard: mkfs exits with an error whatever the flags).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_LOG_SIZE_POLICY_HPP
#define PROVPOL_LOG_SIZE_POLICY_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../detail/traits.hpp"
#include "../result.hpp"
#include "geometry.hpp"
#include "result.hpp"

#include <cstdint>

namespace provpol {

// ------------------------------------------------------------------------------------------------------------
// Steps

/// L = D x numerator / denominator, rounded down (xfsprogs: 1/2048; the 2022 proposal: 1/256).
class ratio_step {
public:
    /// numerator in [1, 2^32), denominator in [1, 2^32).
    PROVPOL_NODISCARD static constexpr result<ratio_step> make(std::uint32_t numerator,
                                                               std::uint32_t denominator) noexcept {
        if (numerator == 0)
            return unexpected(error::out_of_range("ratio numerator", error_value::of(numerator), error_value::of(1),
                                                  error_value::of(0xffffffffULL)));
        if (denominator == 0)
            return unexpected(error::out_of_range("ratio denominator", error_value::of(denominator), error_value::of(1),
                                                  error_value::of(0xffffffffULL)));
        return ratio_step(numerator, denominator);
    }
    PROVPOL_LOG_SIZE_INLINE constexpr void apply(const log_context& c, log_state& s) const noexcept {
        s.set(num_ == 1 ? c.data_blocks / den_ : ratio_of(c.data_blocks, num_, den_, rounding::down), log_step::ratio);
    }
    PROVPOL_NODISCARD constexpr std::uint32_t numerator() const noexcept { return num_; }
    PROVPOL_NODISCARD constexpr std::uint32_t denominator() const noexcept { return den_; }

private:
    constexpr ratio_step(std::uint32_t n, std::uint32_t d) noexcept : num_(n), den_(d) {}
    std::uint32_t num_;
    std::uint32_t den_;
};

/// L = max(L, floor), the floor rounded up to whole blocks (xfsprogs >= 5.15: 64 MiB; the 2022 proposal: 32 MiB).
class floor_step {
public:
    /// floor in [0, 1 TiB].
    PROVPOL_NODISCARD static constexpr result<floor_step> make(bytes floor) noexcept {
        if (floor.count() > (std::uint64_t{1} << 40))
            return unexpected(error::out_of_range("log floor", error_value::of_size(floor.count()),
                                                  error_value::of_size(0),
                                                  error_value::of_size(std::uint64_t{1} << 40)));
        return floor_step(floor);
    }
    PROVPOL_LOG_SIZE_INLINE constexpr void apply(const log_context& c, log_state& s) const noexcept {
        const std::uint64_t f = (floor_.count() + c.block_size - 1) >> c.block_log;  // floor <= 1 TiB: no overflow
        if (s.blocks < f) s.set(f, log_step::floor);
    }
    PROVPOL_NODISCARD constexpr bytes floor() const noexcept { return floor_; }

private:
    constexpr explicit floor_step(bytes f) noexcept : floor_(f) {}
    bytes floor_;
};

/// L = min(L, cap), the cap rounded down to whole blocks: a caller's own limit.
class cap_step {
public:
    /// cap at least 1 MiB.
    PROVPOL_NODISCARD static constexpr result<cap_step> make(bytes cap) noexcept {
        if (cap.count() < (std::uint64_t{1} << 20))
            return unexpected(error::out_of_range("log cap", error_value::of_size(cap.count()),
                                                  error_value::of_size(std::uint64_t{1} << 20), error_value{}));
        return cap_step(cap);
    }
    PROVPOL_LOG_SIZE_INLINE constexpr void apply(const log_context& c, log_state& s) const noexcept {
        const std::uint64_t m = cap_.count() >> c.block_log;
        if (s.blocks > m) s.set(m, log_step::cap);
    }
    PROVPOL_NODISCARD constexpr bytes cap() const noexcept { return cap_; }

private:
    constexpr explicit cap_step(bytes c) noexcept : cap_(c) {}
    bytes cap_;
};

/// Below `below` of data, the minimum log instead (xfsprogs >= 5.19: 300 MiB, "tiny filesystems").
class tiny_filesystem_step {
public:
    /// below in [0, 1 TiB].
    PROVPOL_NODISCARD static constexpr result<tiny_filesystem_step> make(bytes below) noexcept {
        if (below.count() > (std::uint64_t{1} << 40))
            return unexpected(error::out_of_range("tiny filesystem size", error_value::of_size(below.count()),
                                                  error_value::of_size(0),
                                                  error_value::of_size(std::uint64_t{1} << 40)));
        return tiny_filesystem_step(below);
    }
    PROVPOL_LOG_SIZE_INLINE constexpr void apply(const log_context& c, log_state& s) const noexcept {
        if (c.data_blocks < (below_.count() >> c.block_log)) {
            s.blocks = c.min_log_blocks;
            s.decided_by = log_step::tiny_minimum;
        }
    }
    PROVPOL_NODISCARD constexpr bytes below() const noexcept { return below_; }

private:
    constexpr explicit tiny_filesystem_step(bytes b) noexcept : below_(b) {}
    bytes below_;
};

// ------------------------------------------------------------------------------------------------------------
// The policy

namespace detail {

template <class... Steps>
struct step_list;
template <>
struct step_list<> {
    constexpr void apply(const log_context&, log_state&) const noexcept {}
};
template <class S, class... Rest>
struct step_list<S, Rest...> {
    constexpr explicit step_list(const S& s, const Rest&... rest) noexcept : head(s), tail(rest...) {}
    PROVPOL_LOG_SIZE_INLINE constexpr void apply(const log_context& c, log_state& st) const noexcept {
        head.apply(c, st);
        tail.apply(c, st);
    }
    S head;
    step_list<Rest...> tail;
};

}  // namespace detail

/// A log-size policy: a layout, then steps in order. A small value; decide() is a pure function.
template <class Layout, class... Steps>
class log_size_policy {
    static_assert(detail::has_lay_out<Layout>::value,
                  "provpol::log_size_policy: Layout must provide void lay_out(const fs_geometry&, log_context&, "
                  "log_state&) const");
    static_assert(detail::lay_out_is_noexcept<Layout>::value,
                  "provpol::log_size_policy: Layout::lay_out must be noexcept");
    static_assert(detail::is_trivially_copyable_v<Layout>,
                  "provpol::log_size_policy: Layout must be trivially copyable");
    static_assert((detail::has_apply<Steps>::value && ...),
                  "provpol::log_size_policy: every Step must provide void apply(const log_context&, log_state&) const");
    static_assert((detail::apply_is_noexcept<Steps>::value && ...),
                  "provpol::log_size_policy: every Step::apply must be noexcept");
    static_assert((detail::is_trivially_copyable_v<Steps> && ...),
                  "provpol::log_size_policy: every Step must be trivially copyable");

public:
    /// The policy from a layout and steps already made (each step's make() validated it).
    constexpr explicit log_size_policy(Layout layout, Steps... steps) noexcept : layout_(layout), steps_(steps...) {}

    /// The log mkfs would make (or the policy would choose) for this geometry.
    PROVPOL_NODISCARD PROVPOL_LOG_SIZE_INLINE constexpr log_size_decision decide(const fs_geometry& g) const noexcept {
        log_context c{};
        log_state s{};
        layout_.lay_out(g, c, s);
        if (!is_hard(s.reason)) steps_.apply(c, s);
        log_size_decision d{};
        d.block_size = c.block_size;
        d.data_blocks = c.data_blocks;
        d.agcount = c.agcount;
        d.agsize_blocks = c.agsize_blocks;
        d.log_blocks = s.blocks;
        d.log_sunit_blocks = c.log_sunit_blocks;
        d.fast_commit_blocks = s.fast_commit_blocks;
        d.min_log_blocks = c.raw_min_log_blocks;
        d.min_log_computed = c.min_log_computed;
        d.max_tx_bytes = c.max_tx_bytes;
        d.log_concurrency = c.log_concurrency;
        d.supported = s.supported;
        d.reason = s.reason;
        d.decided_by = s.decided_by;
        return d;
    }

    /// The layout.
    PROVPOL_NODISCARD constexpr const Layout& layout() const noexcept { return layout_; }

private:
    Layout layout_;
    detail::step_list<Steps...> steps_;
};

}  // namespace provpol

#endif  // PROVPOL_LOG_SIZE_POLICY_HPP
