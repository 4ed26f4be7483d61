// provpol-agent's domain run (--drives N): N drives on one host, their loop devices and qcow2 images served by one
// qemu-storage-daemon, N guests writing at once, one agent watching them all, and the host's mailbox and one SPM
// shared by their extends, the SPM running one lvextend at a time under the volume group's lock.
//
// The mailbox and the SPM decide their times as simulate_domain decides them: the agent runs the simulator's own
// queue (domain/shared.hpp, through domain.hpp's per-drive latency) on the real request times, so every request
// draws its delays in the same order from its drive's stream, and only the real stack's timing can make the run
// differ from simulate_domain with the same seed. The real actions happen at those times: the SPM worker grows the
// drive's LV file at the end of its turn under the lock (lvextend), the host refreshes the loop device when the
// model makes the grown LV visible (reply poll, inbox read, lvchange --refresh).
#ifndef PROVPOL_AGENT_DOMAIN_DRIVER_HPP
#define PROVPOL_AGENT_DOMAIN_DRIVER_HPP

#include "driver.hpp"
#include "event_log.hpp"
#include "options.hpp"
#include "stack.hpp"

#include <provpol/flow/latency.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace provpol::agent {

/// One extend of a domain run as the real stack did it, with the times the shared mailbox and SPM gave it
/// (seconds since the first drive's start; -1: did not happen).
struct extend_record {
    unsigned drive = 0;
    double requested = 0;       ///< the request (threshold event, pause or monitor tick)
    double injected_done = -1;  ///< when the model makes the grown LV visible: the host's refresh is due
    double done = -1;           ///< when the agent completed it (LV refreshed, threshold re-armed)
    double handled = -1;        ///< the host's mail monitor took it (the request's host-side stages done)
    double sent = -1;           ///< the host's mail monitor sent it (at once when idle, else on its reply-poll grid)
    double scan = -1;           ///< the SPM's scan took it
    double lock_start = -1, lock_end = -1;  ///< the volume group lock held for its lvextend
    double lvextend_done = -1;              ///< the SPM worker grew the LV (real time)
    double reply_poll = -1;                 ///< the host's reply poll that saw the reply
    double free_s = -1;      ///< the time the guest needs at its nominal rate to fill what was free at the request
    double pause = 0;        ///< the guest's pause that this extend's completion ended
    double event_delay = 0;  ///< how long QEMU's threshold event took to reach the agent
    std::uint64_t request = 0, lv = 0;
    std::string on;  ///< what triggered it: threshold, pause, monitor
};

/// What a domain run measured.
struct domain_measured {
    std::vector<measured> drives;
    std::vector<extend_record> extends;  ///< in request order
    double spm_busy = 0;                 ///< seconds the volume group lock was held
    std::uint32_t lock_waits = 0;        ///< requests that waited for another's lvextend
};

/// Runs the domain on the real stack (s.drives() drives), every drive's agent a copy of `agent`. Defined in
/// domain_driver.cpp for static_agent<vdsm_policy> and rate_aware_agent.
template <class Agent>
domain_measured run_domain(const Agent& agent, const latency_model& latency, const options& o, stack& s,
                           event_log& log);

}  // namespace provpol::agent

#endif  // PROVPOL_AGENT_DOMAIN_DRIVER_HPP
