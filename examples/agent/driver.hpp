// provpol-agent's driver: the guest started on the stack, the agent's loop (the monitor's ticks, QEMU's threshold
// events, the guest's pauses, the injected extends), and the check that every byte written reads back.
#ifndef PROVPOL_AGENT_DRIVER_HPP
#define PROVPOL_AGENT_DRIVER_HPP

#include "event_log.hpp"
#include "options.hpp"
#include "stack.hpp"

#include <provpol/latency.hpp>

#include <cstdint>
#include <string>

namespace provpol::agent {

/// What the run measured.
struct measured {
    std::uint32_t extends = 0, pauses = 0;
    double pause_seconds = 0, duration = 0;
    std::uint64_t final_physical = 0, initial_size = 0;
    double max_lateness = 0, achieved_rate = 0;
    double max_overhead = 0;  // the longest real extend time beyond the injected delay
    std::string check, verify;
};

/// Drives the real stack with `agent` through provpol's extend_controller, the same flow code simulate_run runs, so
/// that the simulator with the same seed replays the same run. Defined in driver.cpp for the agents provpol-agent
/// runs: static_agent<vdsm_policy> and rate_aware_agent.
template <class Agent>
measured run_real(Agent agent, const latency_model& latency, const options& o, stack& s, event_log& log);

/// After the daemon stopped: qemu-img check, then every MiB read back and compared with the guest's pattern.
void verify(const options& o, stack& s, measured& m);

/// The failure to report when the daemon has exited under the agent: its exit status and the end of its log.
std::string daemon_exited(stack& s, const std::string& context);

}  // namespace provpol::agent

#endif  // PROVPOL_AGENT_DRIVER_HPP
