// provpol/log_size/result.hpp - what a log-size decision says (log_size_decision: the log, which step decided,
// whether the tool would make it and why not), what a layout computes for the steps (log_context) and the
// state the steps build (log_state), and the contracts of layouts and steps. Part of <provpol/log_size.hpp>.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_LOG_SIZE_RESULT_HPP
#define PROVPOL_LOG_SIZE_RESULT_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../detail/traits.hpp"
#include "../result.hpp"
#include "geometry.hpp"

#include <cstdint>

namespace provpol {

// ------------------------------------------------------------------------------------------------------------
// Outputs

/// Which step decided the log size.
enum class log_step : unsigned char {
    none,           ///< no step set a size
    ratio,          ///< a fraction of the data blocks
    concurrency,    ///< sized for concurrent maximal transactions (mkfs.xfs >= 6.8)
    floor,          ///< raised to a floor
    tiny_minimum,   ///< a tiny filesystem gets the minimum log
    legacy_rule,    ///< xfsprogs <= 5.14's size brackets
    minimum,        ///< raised to the minimum log (transaction reservations)
    ag_limit,       ///< cut to what fits in an allocation group
    cap,            ///< cut to a maximum (1048576 blocks, 2 GiB - 10 MiB, or a caller's cap)
    stripe_align,   ///< rounded to the log stripe unit
    journal_table,  ///< e2fsprogs' table on the block count
    journal_size,   ///< mke2fs -J size=N, in MiB
    old_journal,    ///< e2fsck re-created the journal with the old one's size (see e2fsprogs_journal_step)
};

/// Why mkfs would not make this log, or a note on a result it would make.
enum class log_reason : unsigned char {
    none,                        ///< mkfs makes this log
    fs_too_small,                ///< soft: data under 300 MiB (xfsprogs >= 5.19 refuses unless --unsupported)
    log_too_small,               ///< soft: log under 64 MiB (idem)
    single_ag,                   ///< soft: one allocation group, no redundant superblock (idem)
    ag_too_small_for_log_floor,  ///< soft: an AG cannot hold a 64 MiB log (xfsprogs 7.2's own message)
    data_too_small,              ///< hard: the data is smaller than one minimal AG (16 MiB)
    invalid_ag_geometry,         ///< hard: AG size outside [16 MiB, 1 TiB) or larger than the data
    ag_too_small_for_log,        ///< hard: an AG cannot hold the minimum log
    log_below_minimum,           ///< hard: stripe alignment left the log under the minimum
    log_crosses_ag,              ///< hard: stripe alignment cannot keep the log inside its AG
    unsupported_option,          ///< hard: this mkfs has no such option or value (parent pointers or -l concurrency
                                 ///< before 6.8; 512-byte blocks for mke2fs)
    no_journal,                  ///< note: mke2fs makes no journal under 2048 blocks
    journal_size_out_of_range,   ///< hard: mke2fs -J size=N gives a total outside [1024, 10240000] blocks
    journal_too_big,             ///< hard: mke2fs -J size=N over half the filesystem ("Total journal size too
                                 ///< big for filesystem"; mke2fs compares with half the free blocks)
};

/// The reason's name, as the CLI prints it ("log_too_small"); "none" for none (the CLI leaves that cell empty).
PROVPOL_NODISCARD constexpr const char* to_text(log_reason r) noexcept {
    switch (r) {
        case log_reason::none:
            return "none";
        case log_reason::fs_too_small:
            return "fs_too_small";
        case log_reason::log_too_small:
            return "log_too_small";
        case log_reason::single_ag:
            return "single_ag";
        case log_reason::ag_too_small_for_log_floor:
            return "ag_too_small_for_log_floor";
        case log_reason::data_too_small:
            return "data_too_small";
        case log_reason::invalid_ag_geometry:
            return "invalid_ag_geometry";
        case log_reason::ag_too_small_for_log:
            return "ag_too_small_for_log";
        case log_reason::log_below_minimum:
            return "log_below_minimum";
        case log_reason::log_crosses_ag:
            return "log_crosses_ag";
        case log_reason::unsupported_option:
            return "unsupported_option";
        case log_reason::no_journal:
            return "no_journal";
        case log_reason::journal_size_out_of_range:
            return "journal_size_out_of_range";
        case log_reason::journal_too_big:
            return "journal_too_big";
    }
    return "unknown";
}

/// The step's name, as the CLI prints it ("floor").
PROVPOL_NODISCARD constexpr const char* to_text(log_step s) noexcept {
    switch (s) {
        case log_step::none:
            return "none";
        case log_step::ratio:
            return "ratio";
        case log_step::concurrency:
            return "concurrency";
        case log_step::floor:
            return "floor";
        case log_step::tiny_minimum:
            return "tiny_minimum";
        case log_step::legacy_rule:
            return "legacy_rule";
        case log_step::minimum:
            return "minimum";
        case log_step::ag_limit:
            return "ag_limit";
        case log_step::cap:
            return "cap";
        case log_step::stripe_align:
            return "stripe_align";
        case log_step::journal_table:
            return "journal_table";
        case log_step::journal_size:
            return "journal_size";
        case log_step::old_journal:
            return "old_journal";
    }
    return "unknown";
}

/// True for the reasons --unsupported cannot override (mkfs exits with an error).
PROVPOL_NODISCARD constexpr bool is_hard(log_reason r) noexcept {
    return (r >= log_reason::data_too_small && r <= log_reason::unsupported_option) ||
           r == log_reason::journal_size_out_of_range || r == log_reason::journal_too_big;
}

/// What the layout computed and every step reads. Sizes are in filesystem blocks.
struct log_context {
    std::uint32_t block_size = 0;          ///< bytes
    unsigned block_log = 0;                ///< log2(block_size)
    std::uint64_t data_blocks = 0;         ///< D: data blocks after the AG layout (the last small AG dropped)
    std::uint64_t agcount = 0;             ///< 0 for filesystems without AGs (ext4)
    std::uint64_t agsize_blocks = 0;       ///< 0 for filesystems without AGs
    std::uint64_t min_log_blocks = 0;      ///< the minimum log mkfs enforces (at least 512; 10 MiB from 1 GiB of data)
    std::uint64_t raw_min_log_blocks = 0;  ///< the transaction-reservation minimum, at least 512 (given or computed)
    bool min_log_computed = false;         ///< raw_min_log_blocks is provpol's computation, not the caller's value
    std::uint64_t max_tx_bytes = 0;        ///< the largest transaction reservation x its log count (XFS)
    std::uint64_t log_concurrency = 0;     ///< concurrent maximal transactions to size the log for (0: none)
    xfsprogs_version version = xfsprogs_version::v6_1;  ///< the mkfs.xfs whose rules the steps follow
    std::uint64_t max_log_blocks = 0;                   ///< largest log an AG holds: AG size - AG headers and roots - 1
    std::uint64_t ag0_backoff = 0;        ///< kept free when the log is in AG 0 (single AG): the root inode chunk
    std::uint64_t log_sunit_blocks = 0;   ///< the log stripe unit mkfs prints (0: none)
    std::uint64_t align_blocks = 0;       ///< what the log is rounded to: the log stripe unit, else the data's
    std::uint64_t log_start = 0;          ///< first free block in the log's AG, rounded up to align_blocks
    std::uint64_t log_ag_blocks = 0;      ///< size of the AG that holds the log (AG count / 2; the last may be short)
    bool allow_unsupported = false;       ///< --unsupported
    bool fast_commit = false;             ///< mke2fs -O fast_commit
    std::int64_t journal_size_mib = -1;   ///< mke2fs -J size=N (-1: not given)
    bool e2fsck_recreate = false;         ///< the journal e2fsck -fy re-creates, not mke2fs's
    std::int64_t old_journal_bytes = -1;  ///< e2fsck: the old journal's size from the superblock backup (-1: none)
};

/// The log size as the steps build it.
struct log_state {
    std::uint64_t blocks = 0;              ///< the log size so far
    std::uint64_t fast_commit_blocks = 0;  ///< ext4 fast-commit area, after the journal
    log_step decided_by = log_step::none;  ///< the last step that changed blocks
    log_reason reason = log_reason::none;  ///< why mkfs would refuse (or a note)
    bool supported = true;                 ///< mkfs would make this filesystem with the flags given

    /// Sets the size; records `step` as the decider when the size changes.
    constexpr void set(std::uint64_t v, log_step step) noexcept {
        if (v != blocks) {
            blocks = v;
            decided_by = step;
        }
    }
    /// A soft refusal: kept as the reason; supported only with --unsupported. A hard error stays first.
    constexpr void refuse(log_reason r, bool allow_unsupported) noexcept {
        if (reason != log_reason::none) return;
        reason = r;
        supported = allow_unsupported;
    }
    /// A hard error: mkfs exits whatever the flags. The first one is kept.
    constexpr void fail(log_reason r) noexcept {
        if (is_hard(reason)) return;
        reason = r;
        supported = false;
    }
};

/// One decision: the geometry the tool would use, the log, and whether the tool would make it.
struct log_size_decision {
    std::uint32_t block_size = 0;          ///< bytes
    std::uint64_t data_blocks = 0;         ///< after the AG layout
    std::uint64_t agcount = 0;             ///< 0 when the filesystem has no AGs (ext4)
    std::uint64_t agsize_blocks = 0;       ///< 0 when the filesystem has no AGs
    std::uint64_t log_blocks = 0;          ///< the log (journal) size
    std::uint64_t log_sunit_blocks = 0;    ///< the log stripe unit (0: none)
    std::uint64_t fast_commit_blocks = 0;  ///< ext4 fast-commit blocks (0 otherwise)
    std::uint64_t min_log_blocks = 0;      ///< the minimum log used (XFS), at least 512
    bool min_log_computed = false;         ///< min_log_blocks is provpol's computation (not given)
    std::uint64_t max_tx_bytes = 0;        ///< XFS: the largest transaction reservation x its log count
    std::uint64_t log_concurrency = 0;     ///< XFS: the concurrency the log was sized for (0: none)
    bool supported = true;                 ///< the tool makes it with the flags given
    log_reason reason = log_reason::none;  ///< why not (or a note when supported)
    log_step decided_by = log_step::none;  ///< which step decided log_blocks

    /// The log in bytes (journal plus fast-commit area), saturating.
    PROVPOL_NODISCARD constexpr bytes log_size() const noexcept {
        return bytes(saturating_mul(saturating_add(log_blocks, fast_commit_blocks), block_size));
    }
    /// True when the filesystem has allocation groups (the AG columns mean something).
    PROVPOL_NODISCARD constexpr bool has_ags() const noexcept { return agcount != 0; }
};

// ------------------------------------------------------------------------------------------------------------
// Contract checks

namespace detail {

template <class, class = void>
struct has_lay_out : detail::false_type {};
template <class L>
struct has_lay_out<
    L, detail::void_t<decltype(detail::declval<const L&>().lay_out(
           detail::declval<const fs_geometry&>(), detail::declval<log_context&>(), detail::declval<log_state&>()))>>
    : detail::true_type {};

template <class, class = void>
struct lay_out_is_noexcept : detail::false_type {};
template <class L>
struct lay_out_is_noexcept<L, detail::enable_if_t<has_lay_out<L>::value>>
    : detail::bool_constant<noexcept(detail::declval<const L&>().lay_out(
          detail::declval<const fs_geometry&>(), detail::declval<log_context&>(), detail::declval<log_state&>()))> {};

template <class, class = void>
struct has_apply : detail::false_type {};
template <class S>
struct has_apply<S, detail::void_t<decltype(detail::declval<const S&>().apply(
                        detail::declval<const log_context&>(), detail::declval<log_state&>()))>> : detail::true_type {};

template <class, class = void>
struct apply_is_noexcept : detail::false_type {};
template <class S>
struct apply_is_noexcept<S, detail::enable_if_t<has_apply<S>::value>>
    : detail::bool_constant<noexcept(
          detail::declval<const S&>().apply(detail::declval<const log_context&>(), detail::declval<log_state&>()))> {};

}  // namespace detail

/// True when L satisfies the layout contract (see the header comment).
template <class L>
inline constexpr bool is_log_layout_v =
    detail::has_lay_out<L>::value&& detail::lay_out_is_noexcept<L>::value&& detail::is_trivially_copyable_v<L>;
/// True when S satisfies the step contract (see the header comment).
template <class S>
inline constexpr bool is_log_step_v =
    detail::has_apply<S>::value&& detail::apply_is_noexcept<S>::value&& detail::is_trivially_copyable_v<S>;

}  // namespace provpol

#endif  // PROVPOL_LOG_SIZE_RESULT_HPP
