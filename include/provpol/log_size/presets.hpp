// provpol/log_size/presets.hpp - the real tools' log-size policies and the 2022 proposals as presets (xfsprogs_6_1(),
// xfsprogs_5_14(), e2fsprogs_1_47(), ...), the presets by name (log_preset, log_preset_registry: its table, its names
// and the choice at run time) and which xfsprogs release follows which rules (xfsprogs_releases).
//
// The rules reproduced by the presets (facts from xfsprogs' mkfs/xfs_mkfs.c, libxfs/topology.c, libxfs/xfs_alloc.c and
// libxfs/xfs_trans_resv.c, and e2fsprogs' lib/ext2fs/mkjournal.c and misc/mke2fs.c; each checked against the
// real tools by tests/data/generate_mkfs_parity.sh and tests/log_size_test.cpp):
//  - mkfs.xfs 6.1 (the same from 5.19 to 6.7): L = D / 2048 raised to 64 MiB; below 300 MiB of data the
//    minimum log; then at least the minimum, at most what an AG holds (AG size - headers - 1), at most
//    1048576 blocks and 2 GiB - 10 MiB; rounded to the log stripe unit; refused (unless --unsupported) when
//    the data is under 300 MiB, the log under 64 MiB, or there is a single AG.
//  - mkfs.xfs 6.13 (Debian 13) and 7.2: the same, with the concurrency-sized log (6.8) between the ratio and the
//    floor: max(L, min(max_tx_bytes x 3 x concurrency / 2, 2 GiB - 10 MiB)) from 1 GiB of data, concurrency from
//    -l concurrency or the CPU count on a non-rotational device (which also sizes the AG count); their default
//    features (6.13: rmapbt, reflink, nrext64; 7.2: also parent pointers) change the AG overhead and the
//    reservations; 7.2 refuses an AG too small for a 64 MiB log with a reason of its own.
//  - mkfs.xfs 5.14: under 1 GiB the minimum log; 1 to 16 GiB min(10 MiB, 5 x minimum) raised to the minimum
//    and 10 MiB; from 16 GiB D / 2048; the same limits and alignment; no refusals.
//  - mke2fs 1.47: a step table on the block count, fast_commit adds 1/64; 1 KiB blocks below 512 MiB.
//
// The minimum log and max_tx_bytes are computed from the transaction reservations (log_size/xfs_reservations.hpp) for
// each version's features, once per geometry (fs_geometry::make) as a step function of the AG size; a caller
// may still override the minimum with fs_geometry_options::min_log_blocks.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_LOG_SIZE_PRESETS_HPP
#define PROVPOL_LOG_SIZE_PRESETS_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../registry.hpp"
#include "../result.hpp"
#include "../text.hpp"
#include "ext4.hpp"
#include "geometry.hpp"
#include "policy.hpp"
#include "result.hpp"
#include "xfs.hpp"
#include "xfs_reservations.hpp"

#include <cstdint>

namespace provpol {

/// xfsprogs_limits_step's earlier name, kept for one release (CHANGELOG.md): one name for one concept.
using xfsprogs_caps [[deprecated("use xfsprogs_limits_step")]] = xfsprogs_limits_step;

/// The policy type of the XFS presets: ratio, the concurrency-sized log (a no-op before 6.8: the 6.1 layout
/// leaves no concurrency), floor, tiny filesystems, the xfsprogs caps, stripe alignment, and the support rules.
using xfs_modern_policy =
    log_size_policy<xfsprogs_layout, ratio_step, xfsprogs_concurrency_step, floor_step, tiny_filesystem_step,
                    xfsprogs_limits_step, xfsprogs_stripe_align_step, xfsprogs_support_step>;

namespace detail {
using namespace provpol::literals;
constexpr xfs_modern_policy xfs_modern(std::uint32_t den, bytes floor, bytes min_log,
                                       xfsprogs_version v = xfsprogs_version::v6_1) noexcept {
    return xfs_modern_policy(xfsprogs_layout{v}, *ratio_step::make(1, den), xfsprogs_concurrency_step{},
                             *floor_step::make(floor), *tiny_filesystem_step::make(300_MiB), xfsprogs_limits_step{},
                             xfsprogs_stripe_align_step{}, *xfsprogs_support_step::make(300_MiB, min_log));
}
}  // namespace detail

/// mkfs.xfs 6.1 (Debian bookworm; the same rule from 5.19 to 6.7): 1:2048 of the data, at least 64 MiB
/// (XFS_MIN_REALISTIC_LOG_BLOCKS, from 5.15), the minimum log below 300 MiB of data, the xfsprogs caps, stripe
/// alignment; refuses under 300 MiB of data, a log under 64 MiB, a single AG (validate_supported, 5.19).
PROVPOL_NODISCARD constexpr xfs_modern_policy xfsprogs_6_1() noexcept {
    using namespace provpol::literals;
    return detail::xfs_modern(2048, 64_MiB, 64_MiB);
}

/// mkfs.xfs 6.13 (Debian 13): 6.1's rule with the concurrency-sized log of 6.8 ("mkfs: allow sizing internal
/// logs for concurrency") and 6.13's defaults (rmapbt, reflink, nrext64 on); the minimum log and max_tx_bytes from
/// its transaction reservations.
PROVPOL_NODISCARD constexpr xfs_modern_policy xfsprogs_6_13() noexcept {
    using namespace provpol::literals;
    return detail::xfs_modern(2048, 64_MiB, 64_MiB, xfsprogs_version::v6_13);
}

/// mkfs.xfs 7.2 (Debian unstable): 6.13's rule with parent pointers on by default (so the corrected minimum-log
/// reservations of xfs_log_rlimit.c, xfs_want_minlogsize_fixes) and its own refusal of AGs under a 64 MiB log.
PROVPOL_NODISCARD constexpr xfs_modern_policy xfsprogs_7_2() noexcept {
    using namespace provpol::literals;
    return detail::xfs_modern(2048, 64_MiB, 64_MiB, xfsprogs_version::v7_2);
}

/// The 2022 proposal to raise the ratio to 1:256 (Darrick Wong, "mkfs: increase default log size for new (aka
/// bigtime) filesystems"), with xfsprogs 6.1's floor, caps and support rules.
PROVPOL_NODISCARD constexpr xfs_modern_policy xfs_ratio_256() noexcept {
    using namespace provpol::literals;
    return detail::xfs_modern(256, 64_MiB, 64_MiB);
}

/// The 2022 counter-proposal (Dave Chinner): keep 1:2048 with a 32 MiB minimum; xfsprogs 6.1's caps and
/// support rules, except that a log is refused only under its own 32 MiB floor.
PROVPOL_NODISCARD constexpr xfs_modern_policy xfs_floor_32m() noexcept {
    using namespace provpol::literals;
    return detail::xfs_modern(2048, 32_MiB, 32_MiB);
}

/// The policy type of xfsprogs 5.15 to 5.18: 6.1's size rule without its support rules.
using xfs_floor_policy = log_size_policy<xfsprogs_layout, ratio_step, xfsprogs_concurrency_step, floor_step,
                                         tiny_filesystem_step, xfsprogs_limits_step, xfsprogs_stripe_align_step>;

/// mkfs.xfs 5.15 to 5.18: 1:2048 with the 64 MiB floor and the minimum log below 300 MiB of data (xfsprogs
/// commit cdfa467e, "mkfs: increase the minimum log size to 64MB when possible", v5.15.0), but no refusals: those
/// came with validate_supported (6e0ed3d1, "mkfs: stop allowing tiny filesystems", v5.19.0). The 5.18 changes to
/// the log's stripe rounding (8d1bff2b, 0da883dd) are taken to be 6.1's throughout.
PROVPOL_NODISCARD constexpr xfs_floor_policy xfsprogs_5_15() noexcept {
    using namespace provpol::literals;
    return xfs_floor_policy(xfsprogs_layout{}, *ratio_step::make(1, 2048), xfsprogs_concurrency_step{},
                            *floor_step::make(64_MiB), *tiny_filesystem_step::make(300_MiB), xfsprogs_limits_step{},
                            xfsprogs_stripe_align_step{});
}

/// The policy type of xfsprogs 5.14: the legacy size brackets, the xfsprogs caps, stripe alignment, no refusals.
using xfs_legacy_policy =
    log_size_policy<xfsprogs_layout, xfsprogs_5_14_size_step, xfsprogs_limits_step, xfsprogs_stripe_align_step>;

/// mkfs.xfs 5.14 and earlier (RHEL 9's 5.14; from xfsprogs' own 5.14 source): under 1 GiB the minimum log,
/// 1 to 16 GiB min(10 MiB, 5 x minimum) raised to the minimum and 10 MiB, from 16 GiB 1:2048; no 64 MiB floor and
/// no refusals. Its AG geometry, limits and alignment are taken to be 6.1's (unchanged in those functions).
PROVPOL_NODISCARD constexpr xfs_legacy_policy xfsprogs_5_14() noexcept {
    return xfs_legacy_policy(xfsprogs_layout{}, xfsprogs_5_14_size_step{}, xfsprogs_limits_step{},
                             xfsprogs_stripe_align_step{});
}

/// The policy type of e2fsprogs: mke2fs's block size and count, then the journal table.
using ext4_journal_policy = log_size_policy<e2fsprogs_layout, e2fsprogs_journal_step>;

/// mke2fs 1.47 (-t ext4, Debian's mke2fs.conf): the journal table on the block count, fast_commit adds 1/64.
/// Note: 1 KiB blocks below 512 MiB make the journal's block count fall at 512 MiB (8192 1 KiB blocks ->
/// 4096 4 KiB blocks); its byte size still rises (8 MiB -> 16 MiB).
PROVPOL_NODISCARD constexpr ext4_journal_policy e2fsprogs_1_47() noexcept {
    return ext4_journal_policy(e2fsprogs_layout{}, e2fsprogs_journal_step{});
}

// ------------------------------------------------------------------------------------------------------------
// Presets by name (for command lines and configuration files)

/// The named presets. Each has one entry in log_preset_registry, which checks that it holds every one (xfsprogs_5_15
/// is the last: a new preset goes after it, and the check names the new last one).
enum class log_preset : unsigned char {
    xfsprogs_6_1,
    xfsprogs_5_14,
    xfs_ratio_256,
    xfs_floor_32m,
    e2fsprogs_1_47,
    xfsprogs_6_13,
    xfsprogs_7_2,
    xfsprogs_5_15
};

/// The log-size family's registry, in the order the CLI lists them (newest first): each preset's name, what it does,
/// where its rule comes from, and its policy. The table, the lists, the parse and decide_log_size all come from it.
namespace detail {
// The registry itself: a variable template over its id type only so that it is built where it is read
// (log_preset_family::get, preset_registry_of in registry.hpp). Each entry names its id as Id::..., which makes the
// initializer depend on the template parameter: g++ builds a variable template's non-dependent initializer where
// it is defined.
template <class Id>
inline constexpr preset_registry log_registry_v{
    preset_def{Id::xfsprogs_7_2, "xfsprogs-7.2", "mkfs.xfs 7.2: 6.13 with parent pointers on by default",
               "xfsprogs 7.2.0 (Debian unstable), mkfs -N parity", xfsprogs_7_2},
    preset_def{Id::xfsprogs_6_13, "xfsprogs-6.13",
               "mkfs.xfs 6.13: the 6.8 concurrency-sized log; rmapbt, reflink, nrext64 on by default",
               "xfsprogs 6.13.0 (Debian 13): mkfs/xfs_mkfs.c calculate_log_size, libxfs/xfs_trans_resv.c",
               xfsprogs_6_13},
    preset_def{Id::xfsprogs_6_1, "xfsprogs-6.1", "mkfs.xfs 6.1: 1:2048 of the filesystem, a 64 MiB floor",
               "xfsprogs 6.1.0 (Debian 12): mkfs/xfs_mkfs.c calculate_log_size", xfsprogs_6_1},
    preset_def{
        Id::xfsprogs_5_15, "xfsprogs-5.15", "mkfs.xfs 5.15 to 5.18: 6.1's size rule without its refusals",
        "xfsprogs v5.15.0 (cdfa467e, the 64 MiB floor) to v5.18.0; validate_supported came in v5.19.0 (6e0ed3d1)",
        xfsprogs_5_15},
    preset_def{Id::xfsprogs_5_14, "xfsprogs-5.14", "mkfs.xfs 5.14: 1:2048, the minimum log and no 64 MiB floor",
               "xfsprogs 5.14, before the 5.15 floor", xfsprogs_5_14},
    preset_def{Id::xfs_ratio_256, "xfs-ratio-256", "the 1:256 ratio proposed for bigtime filesystems",
               "linux-xfs, [PATCH 19/17] mkfs: increase default log size for new (aka bigtime) filesystems",
               xfs_ratio_256},
    preset_def{Id::xfs_floor_32m, "xfs-floor-32m", "the 32 MB floor proposed in the same thread",
               "linux-xfs, Re: [PATCH 19/17] (Dave Chinner)", xfs_floor_32m},
    preset_def{Id::e2fsprogs_1_47, "e2fsprogs-1.47", "mke2fs 1.47: ext4's journal size step table",
               "e2fsprogs 1.47 lib/ext2fs/mkjournal.c ext2fs_default_journal_size", e2fsprogs_1_47},
};
}  // namespace detail

/// The log family's registry as preset_registry_of reads it: its id type, its size (every log_preset through the
/// last; preset_registry_of checks that the registry holds each once) and get<D>(), the registry itself, built where it
/// is first read.
struct log_preset_family {
    using id_type = log_preset;
    static constexpr std::size_t size = static_cast<std::size_t>(log_preset::xfsprogs_5_15) + 1;
    template <class Deferred>
    static constexpr const auto& get() noexcept {
        return detail::log_registry_v<detail::dependent_t<Deferred, log_preset>>;
    }
};

inline constexpr preset_registry_of<log_preset_family> log_preset_registry{};

/// The family's entries, in the order the CLI lists them: log_preset_registry, read as its table (begin, end,
/// operator[]; table() for the preset_table).
inline constexpr const preset_registry_of<log_preset_family>& log_presets = log_preset_registry;
/// Every preset, in the order the CLI lists them (log_preset_registry's ids, built where they are read).
inline constexpr preset_ids_of<log_preset_family> all_log_presets{};
/// The presets' names, and the same after "one of " for errors (each a preset_list_of: built where it is read).
inline constexpr preset_list_of<log_preset_registry> log_preset_names{};
inline constexpr preset_list_of<log_preset_registry, true> log_preset_choices{};

/// The preset's name as the CLI spells it ("xfsprogs-6.1"). (A template only so that the registry is built where a
/// name is read: call it as a function.)
template <class Deferred = void>
PROVPOL_NODISCARD constexpr const char* to_text(log_preset p) noexcept {
    return preset_name(detail::deferred<Deferred>(log_preset_registry), p);
}

/// Reads a preset name ("xfsprogs-6.1", ...). (A template only so that its body is compiled where it is called, not
/// in every translation unit that includes the header: call it as a function.)
template <class Deferred = void>
PROVPOL_NODISCARD constexpr result<log_preset> parse_log_preset(text_view text,
                                                                const char* setting = "preset") noexcept {
    return parse_preset(log_presets, detail::deferred<Deferred>(log_preset_choices).list(), text, setting);
}

/// One range of xfsprogs releases and the rule set in force in it: `xfsprogs-X.Y` for any X.Y in
/// [first, last] (major x 100 + minor) decides as `rules`, with that release's feature defaults where they differ
/// from the preset's (`rmapbt_nrext64`: rmapbt and nrext64 on). The evidence is the release that changed the rule
/// (xfsprogs doc/CHANGES, and the commit where the history is public).
struct xfsprogs_release_rules {
    unsigned first;
    unsigned last;
    log_preset rules;
    bool rmapbt_nrext64;
    const char* source;
};

/// The xfsprogs releases provpol knows, oldest first: 5.10 to 7.2.
inline constexpr xfsprogs_release_rules xfsprogs_releases[] = {
    {510, 514, log_preset::xfsprogs_5_14, false,
     "the size brackets before v5.15.0; rmapbt and nrext64 off, as mkfs/lts_5.10.conf has them"},
    {515, 518, log_preset::xfsprogs_5_15, false,
     "v5.15.0: mkfs: increase the minimum log size to 64MB when possible (cdfa467e)"},
    {519, 604, log_preset::xfsprogs_6_1, false, "v5.19.0: mkfs: stop allowing tiny filesystems (6e0ed3d1)"},
    {605, 607, log_preset::xfsprogs_6_1, true,
     "v6.5.0: mkfs: enable reverse mapping by default (bcd5b1b7), enable large extent counts by default "
     "(e5b18d7d)"},
    {608, 617, log_preset::xfsprogs_6_13, false, "v6.8.0: mkfs: allow sizing internal logs for concurrency"},
    {618, 702, log_preset::xfsprogs_7_2, false,
     "v6.18.0: mkfs: enable new features by default (parent pointers: mkfs/lts_6.18.conf's parent=1)"},
};

/// The range that holds release major.minor, or nullptr outside 5.10 to 7.2.
PROVPOL_NODISCARD constexpr const xfsprogs_release_rules* find_xfsprogs_release(unsigned major,
                                                                                unsigned minor) noexcept {
    if (minor > 99) return nullptr;
    const unsigned v = major * 100 + minor;
    for (const xfsprogs_release_rules& r : xfsprogs_releases)
        if (v >= r.first && v <= r.last) return &r;
    return nullptr;
}

/// The decision of a preset chosen at run time (log_preset_registry.visit). (A template only so that the presets'
/// decide(), which it instantiates, is compiled where it is called: call it as a function.)
template <class Deferred = void>
PROVPOL_NODISCARD constexpr log_size_decision decide_log_size(log_preset p, const fs_geometry& g) noexcept {
    return log_preset_registry.visit(p, [&g](const auto& policy) noexcept { return policy.decide(g); });
}

}  // namespace provpol

#endif  // PROVPOL_LOG_SIZE_PRESETS_HPP
