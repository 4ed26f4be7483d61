// provpol-agent's block stack: a loop device over a sparse file as the LV, a qcow2 image on it, and
// qemu-storage-daemon serving it over NBD with a QMP monitor (see agent.cpp for what stands for what).
#ifndef PROVPOL_AGENT_STACK_HPP
#define PROVPOL_AGENT_STACK_HPP

#include "loop_device.hpp"
#include "posix.hpp"
#include "qmp.hpp"

#include <provpol/bytes.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace provpol::agent {

/// A private directory under the work directory, removed with everything in it.
class scratch_dir {
public:
    explicit scratch_dir(const std::string& parent);
    scratch_dir(const scratch_dir&) = delete;
    scratch_dir& operator=(const scratch_dir&) = delete;
    ~scratch_dir();
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

/// The last 600 bytes of a file on one line, for error messages (the daemon's log); "" when it cannot be read.
std::string tail_of(const std::string& file);

/// The whole stack: per drive an LV file, a loop device and a qcow2 image, all served by one qemu-storage-daemon
/// (one NBD export per drive, one QMP monitor), as one QEMU serves every disk of a host. The members are destroyed
/// in reverse order: QMP, daemon (stopped and reaped), loop devices (detached), files.
class stack {
public:
    /// Drive 0's node names (drive d's are file<d> and disk<d>).
    static constexpr const char* file_node = "file0";
    static constexpr const char* format_node = "disk0";
    static std::string file_node_of(unsigned drive) { return "file" + std::to_string(drive); }
    static std::string format_node_of(unsigned drive) { return "disk" + std::to_string(drive); }

    /// Builds the stack in a scratch directory under `workdir`: `drives` LVs of `initial_size`, a qcow2 image of
    /// `capacity` on each, the daemon started with an export per drive and its QMP monitor connected.
    stack(const std::string& workdir, bytes initial_size, bytes capacity, unsigned drives = 1);
    /// The same on block devices that exist (real LVs, --lvm): a qcow2 image of `capacity` on each, served by the
    /// daemon; the stack neither creates nor removes the devices.
    stack(const std::string& workdir, bytes capacity, const std::vector<std::string>& devices);

    unsigned drives() const { return static_cast<unsigned>(devices_.size()); }
    /// The block device under drive `drive`'s qcow2 image (its loop device, or the LV given).
    const std::string& device(unsigned drive) const { return devices_[drive]; }
    qmp_client& qmp() { return *qmp_; }
    loop_device& loop(unsigned drive = 0) { return loops_[drive]; }
    child& daemon() { return daemon_; }
    const std::string& dir() const { return dir_.path(); }
    const std::string& lv_file(unsigned drive = 0) const { return lv_files_[drive]; }
    const std::string& nbd_socket() const { return nbd_socket_; }
    std::string daemon_log() const { return tail_of(daemon_log_); }
    /// Why the daemon was restarted while the stack was built (on real LVs only), or "".
    const std::string& restart_note() const { return restart_note_; }

    /// The allocation libvirt reports: wr_highest_offset of the drive's host_device node.
    std::uint64_t allocation(unsigned drive = 0);
    /// Every drive's allocation from one query-blockstats.
    std::vector<std::uint64_t> allocations();
    /// Registers the write threshold on the drive's host_device node and returns what QEMU reports holding.
    std::uint64_t set_threshold(std::uint64_t threshold, unsigned drive = 0);
    /// The drive of a host_device node name, or -1 when it is none of the stack's.
    int drive_of_file_node(const std::string& node) const;
    /// Stops the daemon through QMP (flushing the images) and waits for it.
    void stop_daemon();

private:
    void start_daemon(double qmp_timeout);
    static std::string thread_states(int pid);

    scratch_dir dir_;
    std::vector<std::string> devices_;
    std::vector<std::string> lv_files_;
    std::string nbd_socket_, daemon_log_, restart_note_;
    std::vector<loop_device> loops_;
    child daemon_;
    std::optional<qmp_client> qmp_;
};

}  // namespace provpol::agent

#endif  // PROVPOL_AGENT_STACK_HPP
