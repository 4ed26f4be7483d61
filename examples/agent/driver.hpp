// provpol-agent's driver: the guest started on the stack, the agent's loop (the monitor's ticks, QEMU's threshold
// events, the guest's pauses, the injected extends), and the check that every byte written reads back.
#ifndef PROVPOL_AGENT_DRIVER_HPP
#define PROVPOL_AGENT_DRIVER_HPP

#include "event_log.hpp"
#include "options.hpp"
#include "posix.hpp"
#include "stack.hpp"

#include <provpol/flow/latency.hpp>

#include <cstdint>
#include <optional>
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

/// The guest process and its pipes.
struct guest_process {
    child proc;
    fd to, from;
    std::optional<line_reader> reader;

    /// The guest's next line, waiting at most `seconds`.
    std::string read_line(double seconds);
};

/// Starts the guest writing the run's pattern (for `pattern_seed`) to the export `export_name`.
guest_process start_guest(const options& o, const std::string& nbd_socket, const std::string& export_name,
                          std::uint64_t pattern_seed);

/// What the image check and the read-back found.
struct verified {
    std::string check, verify;
};

/// After the daemon stopped: qemu-img check of the qcow2 image on `device`, then every MiB of `write` read back by
/// qemu-io and compared with the pattern for `pattern_seed` (throws failure when data did not read back).
verified verify_image(const std::string& device, bytes write, std::uint64_t pattern_seed);

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
