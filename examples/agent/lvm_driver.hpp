// provpol-agent --lvm VG: the agent on real logical volumes. Every drive is a thick LV in VG holding a qcow2 image
// that qemu-storage-daemon serves; the agent decides as in the other runs (extend_controller, the same flow code
// as simulate_run) and acts with lvm2 itself: a request starts `lvextend -L SIZE VG/LV` at once, in its own
// process, then `lvchange --refresh VG/LV`, and the drive's threshold is re-armed from the LV's real size.
//
// What it models of VDSM: the host's request and refresh, and the SPM's lvextend under the volume group's lock,
// on one machine without the mailbox: no injected latency, no simulated queue. Concurrent requests (one lvextend
// process each, as the SPM's worker threads run them) contend for lvm2's own lock, the flock on
// <locking_dir>/V_<vg>: the lock the domain model (docs/domain.md) says serializes the extends is the real one.
#ifndef PROVPOL_AGENT_LVM_DRIVER_HPP
#define PROVPOL_AGENT_LVM_DRIVER_HPP

#include "driver.hpp"
#include "event_log.hpp"
#include "options.hpp"
#include "stack.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace provpol::agent {

/// The drives' LVs: created in the VG at the policy's initial size, removed (lvremove) when this goes away.
class lvm_volumes {
public:
    lvm_volumes(const std::string& vg, unsigned drives, bytes initial_size);
    lvm_volumes(const lvm_volumes&) = delete;
    lvm_volumes& operator=(const lvm_volumes&) = delete;
    ~lvm_volumes();
    /// /dev/VG/LV of each drive.
    const std::vector<std::string>& devices() const { return devices_; }
    /// VG/LV of drive `d`, as lvm2's commands take it.
    std::string name(unsigned d) const { return vg_ + "/" + lvs_[d]; }

private:
    std::string vg_;
    std::vector<std::string> lvs_, devices_;
};

/// One extend on real LVM. Times are CLOCK_MONOTONIC seconds (so that other logs of the machine, such as a
/// flock trace of lvm2's lock, can be put beside them); -1: did not happen.
struct lvm_extend {
    unsigned drive = 0;
    std::string on;         ///< what triggered it: threshold, pause, monitor
    double event = -1;      ///< QEMU raised the threshold event (its timestamp, mapped onto the monotonic clock)
    double requested = -1;  ///< the agent decided (event received, pause, or tick)
    double lvextend_start = -1, lvextend_end = -1;  ///< lvextend's process: started, reaped
    int lvextend_pid = 0;
    double refresh_start = -1, refresh_end = -1;  ///< lvchange --refresh
    int refresh_pid = 0;
    double done = -1;  ///< the LV's new size seen, threshold re-armed
    double pause = 0;  ///< the guest's pause that this extend's completion ended
    std::uint64_t request = 0, lv_before = 0, lv_after = 0;
};

/// What an --lvm run measured.
struct lvm_measured {
    std::vector<measured> drives;
    std::vector<lvm_extend> extends;  ///< in request order
    double t0 = 0;                    ///< the guests' start, CLOCK_MONOTONIC
};

/// Runs the drives on real LVs. Defined in lvm_driver.cpp for static_agent<vdsm_policy>.
template <class Agent>
lvm_measured run_lvm(const Agent& agent, const options& o, stack& s, const lvm_volumes& lvs, event_log& log);

/// Prints the run's extends and totals, and writes --extends-csv.
void report_lvm(const options& o, const lvm_measured& m);

}  // namespace provpol::agent

#endif  // PROVPOL_AGENT_LVM_DRIVER_HPP
