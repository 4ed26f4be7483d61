// provpol/fit/vdsm_log_parse.hpp - VDSM's own extend measurements: its "Extend volume ... completed <Clock(...)>" log
// lines, read one at a time into a record of the Clock's timers (fit/vdsm_log.hpp includes the statistics and the
// fit on top).
//
// The line. oVirt/vdsm lib/vdsm/virt/thinp.py (VolumeMonitor._extend_volume_completed, _extend_replica_completed)
// logs, when an extend completes, the extend's time.Clock (lib/vdsm/common/time.py; commit 8c119243e "vm: Use
// time.Clock for timing extend flow"), whose repr prints each timer in start order as "name=%.2f" ("name=%.2f*"
// while it still runs):
//   ... Extend volume <uuid> completed <Clock(total=1.65, wait=0.28, extend-volume=1.09, refresh-volume=0.28)> ...
//   ... Extend volume <uuid> completed <Clock(total=.., wait=.., extend-replica=.., refresh-replica=..,
//                                             extend-volume=.., refresh-volume=..)> ...     (during replication)
//   ... Extend replica <uuid> completed <Clock(total=.., wait=.., extend-replica=.., refresh-replica=..)> ...
// The timers (thinp.py, VolumeMonitor.extend_volume and its callbacks):
//   total           from the block threshold event (drive.exceeded_time; commit b6fdfb71b "thinp: Include the
//                   wait time in total extend time") to the end of the refresh
//   wait            from the event to the extend request: the watermark monitor's next tick, or the immediate
//                   dispatch of 4.50.1.1 (PR #124). Absent when no event started the extend.
//   extend-volume   from the request (before sendExtendMsg) to the callback of the host's mail monitor: the
//                   mailbox round trip, the SPM's lvextend and the host's inbox read
//   refresh-volume  `lvchange --refresh` on the host
//   extend-replica, refresh-replica   the same for the replica, first, while a disk is replicated
//   refresh-destination-volume        the migration destination's refresh, during a migration
//
// parse_vdsm_extend_line() reads one line. A line without "completed <Clock(" is not an extend line and is
// ignored, as contrib/extend-stats ignores it. An extend line whose Clock is truncated, holds a value that is not
// a finite decimal in [0, 1e5] s (nan, -0.1, "1.2*" of a running timer), repeats a timer, or lacks total or a
// complete extend/refresh pair is malformed: an error naming the timer and the value. Unknown timers with valid
// values are ignored (a later VDSM may add one). A trailing '\r' (CRLF logs) is ignored.
//
// Memory: the parser allocates nothing (the caller keeps the samples: 8 bytes per timer per line).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FIT_VDSM_LOG_PARSE_HPP
#define PROVPOL_FIT_VDSM_LOG_PARSE_HPP

#include "../config.hpp"
#include "../parse.hpp"
#include "../result.hpp"
#include "../text.hpp"
#include "../time.hpp"

#include <cstddef>

namespace provpol {

/// The timers of VDSM's extend Clock, in the order provpol reports them.
enum class vdsm_stage : unsigned char {
    total,
    wait,
    extend_volume,
    refresh_volume,
    extend_replica,
    refresh_replica,
    refresh_destination_volume
};
inline constexpr std::size_t vdsm_stage_count = 7;

/// The timer's name in VDSM's Clock: "total", "wait", "extend-volume", ...
PROVPOL_NODISCARD constexpr const char* to_text(vdsm_stage s) noexcept {
    switch (s) {
        case vdsm_stage::total:
            return "total";
        case vdsm_stage::wait:
            return "wait";
        case vdsm_stage::extend_volume:
            return "extend-volume";
        case vdsm_stage::refresh_volume:
            return "refresh-volume";
        case vdsm_stage::extend_replica:
            return "extend-replica";
        case vdsm_stage::refresh_replica:
            return "refresh-replica";
        case vdsm_stage::refresh_destination_volume:
            return "refresh-destination-volume";
    }
    return "unknown";
}

namespace detail {
// The setting names of the Clock's values, for errors: "Clock total", ... (static storage, as error wants).
PROVPOL_NODISCARD constexpr const char* vdsm_clock_setting(std::size_t i) noexcept {
    constexpr const char* names[vdsm_stage_count] = {"Clock total",
                                                     "Clock wait",
                                                     "Clock extend-volume",
                                                     "Clock refresh-volume",
                                                     "Clock extend-replica",
                                                     "Clock refresh-replica",
                                                     "Clock refresh-destination-volume"};
    return i < vdsm_stage_count ? names[i] : "Clock";
}
// The first position of `needle` in `text`, or npos.
PROVPOL_NODISCARD constexpr std::size_t find_text(text_view text, text_view needle) noexcept {
    if (needle.size() > text.size()) return text_view::npos;
    for (std::size_t i = 0; i + needle.size() <= text.size(); ++i)
        if (text.substr(i, needle.size()) == needle) return i;
    return text_view::npos;
}
}  // namespace detail

/// One extend completion line: which extend it reports and its Clock's values.
struct vdsm_extend_record {
    /// none: not an extend completion line (ignore it); volume: "Extend volume"; replica: "Extend replica".
    enum class kind : unsigned char { none, volume, replica };
    kind what = kind::none;
    seconds timers[vdsm_stage_count] = {};  ///< by vdsm_stage; valid where has()
    unsigned present = 0;                   ///< bit i set: timer i was in the Clock
    text_view vm_id;                        ///< the line's vmId='...' (a view into the line), empty without one

    PROVPOL_NODISCARD constexpr bool has(vdsm_stage s) const noexcept {
        return (present >> static_cast<unsigned>(s) & 1U) != 0;
    }
    PROVPOL_NODISCARD constexpr seconds get(vdsm_stage s) const noexcept { return timers[static_cast<unsigned>(s)]; }
};

/// "none", "volume" (an "Extend volume" line) or "replica" (an "Extend replica" line).
PROVPOL_NODISCARD constexpr const char* to_text(vdsm_extend_record::kind e) noexcept {
    constexpr const char* names[] = {"none", "volume", "replica"};
    static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(vdsm_extend_record::kind::replica) + 1,
                  "a name each");
    return detail::enum_name(names, e);
}

/// Reads one line of a VDSM log (see the header comment): a record of kind none for any other line, the Clock's
/// values for an extend completion line, or an error naming what is malformed.
PROVPOL_NODISCARD inline result<vdsm_extend_record> parse_vdsm_extend_line(text_view line) noexcept {
    constexpr text_view marker = "completed <Clock(";
    vdsm_extend_record r;
    const std::size_t at = detail::find_text(line, marker);
    if (at == text_view::npos) return r;
    const text_view before = line.substr(0, at);
    r.what = detail::find_text(before, "Extend replica ") != text_view::npos ? vdsm_extend_record::kind::replica
                                                                             : vdsm_extend_record::kind::volume;
    // virt.vm's log prefix names the VM: "(vmId='108e7903-...')".
    if (const std::size_t vm = detail::find_text(before, "vmId='"); vm != text_view::npos) {
        const text_view id = before.substr(vm + 6);
        r.vm_id = id.substr(0, id.find('\''));
    }
    text_view rest = line.substr(at + marker.size());
    while (!rest.empty() && rest.back() == '\r') rest.remove_suffix(1);
    for (;;) {
        // name=value followed by ", " or ")>"
        std::size_t eq = rest.find('=');
        std::size_t end = 0;
        while (end < rest.size() && rest[end] != ',' && rest[end] != ')') ++end;
        if (end == rest.size())
            return unexpected(error::invalid_syntax("vdsm log Clock", rest, "truncated: no closing )>"));
        if (eq == text_view::npos || eq > end || eq == 0)
            return unexpected(error::invalid_syntax("vdsm log Clock", rest.substr(0, end), "expected name=seconds"));
        const text_view name = rest.substr(0, eq);
        const text_view value = rest.substr(eq + 1, end - eq - 1);
        std::size_t stage = vdsm_stage_count;
        for (std::size_t i = 0; i < vdsm_stage_count; ++i)
            if (name == to_text(static_cast<vdsm_stage>(i))) stage = i;
        const char* setting = detail::vdsm_clock_setting(stage);
        if (!value.empty() && value.back() == '*')
            return unexpected(error::invalid_syntax(setting, value, "a running timer, not a completed extend"));
        const result<double> v = parse_decimal(value, setting, 0.0, 1e5);
        if (!v) return unexpected(v.error());
        if (stage < vdsm_stage_count) {
            if ((r.present >> stage & 1U) != 0)
                return unexpected(error::invalid_syntax(setting, name, "the timer appears twice"));
            r.present |= 1U << stage;
            r.timers[stage] = seconds(*v);
        }
        if (rest[end] == ')') {
            if (end + 1 >= rest.size() || rest[end + 1] != '>')
                return unexpected(error::invalid_syntax("vdsm log Clock", rest, "truncated: no closing )>"));
            break;
        }
        if (end + 1 >= rest.size() || rest[end + 1] != ' ')
            return unexpected(
                error::invalid_syntax("vdsm log Clock", rest.substr(end), "expected \", \" between timers"));
        rest = rest.substr(end + 2);
    }
    const auto has = [&r](vdsm_stage s) noexcept { return r.has(s); };
    if (!has(vdsm_stage::total))
        return unexpected(error::unsupported("vdsm log Clock", "an extend line without the total timer"));
    const bool volume = has(vdsm_stage::extend_volume) && has(vdsm_stage::refresh_volume);
    const bool replica = has(vdsm_stage::extend_replica) && has(vdsm_stage::refresh_replica);
    if (has(vdsm_stage::extend_volume) != has(vdsm_stage::refresh_volume) ||
        has(vdsm_stage::extend_replica) != has(vdsm_stage::refresh_replica) ||
        (r.what == vdsm_extend_record::kind::volume ? !volume : !replica))
        return unexpected(error::unsupported(
            "vdsm log Clock",
            "an extend line without its extend and refresh timers (extend-volume and refresh-volume, "
            "or extend-replica and refresh-replica)"));
    return r;
}

}  // namespace provpol

#endif  // PROVPOL_FIT_VDSM_LOG_PARSE_HPP
