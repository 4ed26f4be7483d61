// provpol/flow/vdsm_settings.hpp - VDSM's extend flow as its configuration sets it: the settings of vdsm.conf that
// change the flow (VDSM 4.50's lib/vdsm/common/config.py.in) and the flow they give (flow/clocks.hpp).
//
// What each setting does in VDSM 4.50.6.1 (its last release):
// - [mailbox] events_enable (default true, since v4.50.0.11, oVirt/vdsm 2ec525620): the host writes an event to the
//   SPM's event block after it sends a request, the SPM checks that block every events_interval between its mail
//   scans (storage/mailbox.py SPM_MailMonitor._wait_for_events), and the host polls for the reply every
//   events_interval (HSM_MailMonitor._wait_for_reply); off, both wait the monitor interval, 2 s (hard-coded:
//   sp.py passes no monitorInterval);
// - [mailbox] events_interval (default 0.5 s): the SPM takes min(events_interval, 2 s) (SPM_MailMonitor.__init__),
//   the host takes it as it is (HSM_Mailbox passes the raw value to HSM_MailMonitor);
// - [thinp] extend_timeout (default 2.0 s): how long the host waits for an extend before its periodic monitor asks
//   again (thinp.py _recently_started_extend);
// - since 4.50.1.1 (oVirt/vdsm PR #124) the block-threshold event extends at once (thinp.py on_block_threshold ->
//   _extend_drive_soon), whatever the mailbox does; [vars] vm_watermark_interval (2 s) only paces the periodic
//   monitor that re-sends, which the simulator's workload holds (workload::monitor_interval).
// With the defaults the flow is the vdsm-immediate profile, stage for stage (tests/latency_test.cpp).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FLOW_VDSM_SETTINGS_HPP
#define PROVPOL_FLOW_VDSM_SETTINGS_HPP

#include "../config.hpp"
#include "../error.hpp"
#include "../result.hpp"
#include "../time.hpp"
#include "clocks.hpp"
#include "latency.hpp"
#include "stage.hpp"

namespace provpol {

/// The settings of VDSM's configuration that shape its extend flow, VDSM 4.50's defaults by default.
struct vdsm_flow_settings {
    bool events_enable = true;                       ///< [mailbox] events_enable
    seconds events_interval{0.5};                    ///< [mailbox] events_interval
    seconds extend_timeout{2.0};                     ///< [thinp] extend_timeout
    static constexpr seconds monitor_interval{2.0};  ///< the mailbox's monitorInterval (not a setting)
};

/// VDSM 4.50.6.1's extend flow under `s` (see the header comment): the threshold event's dispatch, the SPM's check
/// (its event block every min(events_interval, 2 s), or its 2 s mail scan), lvextend, the host's reply poll (every
/// events_interval, or 2 s), the refresh; re-sent after extend_timeout. Errors name the setting: events_interval
/// and extend_timeout must be finite, events_interval in [0.001, 1e5) s (a shorter one is a busy loop in VDSM, and
/// 0 or less stops its mailbox: time.sleep() raises), extend_timeout in (0, 1e5) s.
PROVPOL_NODISCARD inline result<flow_latency> vdsm_flow_latency(const vdsm_flow_settings& s) noexcept {
    const double ei = s.events_interval.count(), et = s.extend_timeout.count();
    if (s.events_enable && !(ei >= 0.001 && ei < 1e5))
        return unexpected(error::out_of_range("events_interval", error_value::of_real(ei), error_value::of_real(0.001),
                                              error_value::of_real(1e5)));
    if (!(et > 0.0 && et < 1e5))
        return unexpected(error::out_of_range("extend_timeout", error_value::of_real(et), error_value::of_real(0.0),
                                              error_value::of_real(1e5)));
    const seconds mail = vdsm_flow_settings::monitor_interval;
    const seconds spm = s.events_enable && s.events_interval < mail ? s.events_interval : mail;
    const seconds host = s.events_enable ? s.events_interval : mail;
    // The SPM's drift per check, in proportion to its period: the profiles' 5 ms per 2 s scan (flow/latency.hpp).
    const seconds drift(detail::spm_drift.count() * spm.count() / mail.count());
    const flow_stage stages[] = {
        flow_stage::delay("block threshold event dispatch", 0.01_s, 0.03_s),
        detail::flow_send,
        flow_stage::clock(spm < mail ? "SPM event block check" : "SPM mailbox scan", spm, drift),
        detail::flow_lvextend,
        detail::flow_reply_write,
        flow_stage::reply_poll("host mailbox reply poll", host),
        detail::flow_inbox_read,
        flow_stage::delay("LV refresh", 0.16_s, 0.31_s)};
    const auto f = flow_latency::make(stages, 8);
    if (!f) return unexpected(f.error().cause());
    return f->with_resend(flow_resend::after_timeout, s.extend_timeout);
}

}  // namespace provpol

#endif  // PROVPOL_FLOW_VDSM_SETTINGS_HPP
