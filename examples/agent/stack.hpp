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

/// The whole stack: LV file, loop device, qcow2, qemu-storage-daemon with its NBD export and QMP monitor. The
/// members are destroyed in reverse order: QMP, daemon (stopped and reaped), loop device (detached), files.
class stack {
public:
    static constexpr const char* file_node = "file0";
    static constexpr const char* format_node = "disk0";

    /// Builds the stack in a scratch directory under `workdir`: an LV of `initial_size`, a qcow2 image of
    /// `capacity` on it, the daemon started and its QMP monitor connected.
    stack(const std::string& workdir, bytes initial_size, bytes capacity);

    qmp_client& qmp() { return *qmp_; }
    loop_device& loop() { return loop_; }
    child& daemon() { return daemon_; }
    const std::string& dir() const { return dir_.path(); }
    const std::string& lv_file() const { return lv_file_; }
    const std::string& nbd_socket() const { return nbd_socket_; }
    std::string daemon_log() const { return tail_of(daemon_log_); }

    /// The allocation libvirt reports: wr_highest_offset of the host_device node.
    std::uint64_t allocation();
    /// Registers the write threshold on the host_device node and returns what QEMU reports holding.
    std::uint64_t set_threshold(std::uint64_t threshold);
    /// Stops the daemon through QMP (flushing the image) and waits for it.
    void stop_daemon();

private:
    scratch_dir dir_;
    std::string lv_file_, nbd_socket_, daemon_log_;
    loop_device loop_;
    child daemon_;
    std::optional<qmp_client> qmp_;
};

}  // namespace provpol::agent

#endif  // PROVPOL_AGENT_STACK_HPP
