// What the agent's loops share: the single-drive run (driver.cpp), the domain run (domain_driver.cpp) and the run
// on real LVs (lvm_driver.cpp) read QEMU's events, log their drives' rows, watch their guests' pipes and reap their
// guests the same way; written once here.
#ifndef PROVPOL_AGENT_DRIVE_LOOP_HPP
#define PROVPOL_AGENT_DRIVE_LOOP_HPP

#include "driver.hpp"
#include "event_log.hpp"
#include "posix.hpp"
#include "qmp.hpp"

#include <algorithm>
#include <ctime>
#include <string>
#include <vector>

#include <poll.h>

namespace provpol::agent {

/// An event-log row of drive `d` at `t` seconds.
inline event_log::row drive_row(double t, const char* event, unsigned d) {
    event_log::row r;
    r.time = t;
    r.event = event;
    r.drive = static_cast<int>(d);
    return r;
}

/// How long QEMU's event `ev` took to reach the agent, read now (its timestamp is on the realtime clock; a clock
/// step cannot make it negative).
inline double event_delay(const json& ev) {
    timespec rt{};
    clock_gettime(CLOCK_REALTIME, &rt);
    const double sent_at = ev["timestamp"].value("seconds", 0.0) + ev["timestamp"].value("microseconds", 0.0) * 1e-6;
    return std::max(0.0, static_cast<double>(rt.tv_sec) + static_cast<double>(rt.tv_nsec) * 1e-9 - sent_at);
}

/// After a poll over `fds` (QMP, the signals, then drive d's guest at d + 2): a guest whose pipe closed is no longer
/// watched; one whose pipe closed before it finished writing is a failure.
template <class Drive>
void check_guest_pipes(std::vector<Drive>& drives, const std::vector<pollfd>& fds) {
    for (unsigned d = 0; d < drives.size(); ++d) {
        Drive& v = drives[d];
        if (!(fds[d + 2].revents & (POLLIN | POLLHUP | POLLERR)) || v.g.reader->fill()) continue;
        v.guest_open = false;
        if (!v.writing) continue;
        v.g.proc.wait_for(5.0);
        throw failure("guest " + std::to_string(d) + " exited with status " + std::to_string(v.g.proc.exit_code()) +
                      " before it finished writing");
    }
}

/// The guests reaped in drive order (each must exit, with status 0, within 10 s) and each drive's measurement
/// completed from its controller into `out`.
template <class Drive>
void reap_guests(std::vector<Drive>& drives, std::vector<measured>& out) {
    for (unsigned d = 0; d < drives.size(); ++d) {
        Drive& v = drives[d];
        if (!v.g.proc.wait_for(10.0)) throw failure("guest " + std::to_string(d) + " did not exit");
        if (v.g.proc.exit_code() != 0)
            throw failure("guest " + std::to_string(d) + " exited with status " + std::to_string(v.g.proc.exit_code()));
        v.m.final_physical = v.c->physical();
        v.m.extends = v.c->extends();
        out[d] = v.m;
    }
}

}  // namespace provpol::agent

#endif  // PROVPOL_AGENT_DRIVE_LOOP_HPP
