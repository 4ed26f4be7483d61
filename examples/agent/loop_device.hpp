// The logical volume's stand-in: a loop device over a sparse file. "lvextend" grows the file to the new size;
// "lvchange --refresh" is LOOP_SET_CAPACITY, after which the kernel (and QEMU's host_device node) sees the new
// size. The device is attached with LO_FLAGS_AUTOCLEAR, so even an agent killed with SIGKILL leaves no loop
// device behind once the daemon (which dies with it) closes it.
#ifndef PROVPOL_AGENT_LOOP_DEVICE_HPP
#define PROVPOL_AGENT_LOOP_DEVICE_HPP

#include "posix.hpp"

#include <cstdint>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace provpol::agent {

/// A loop device attached to a file, detached when this object goes away.
class loop_device {
public:
    loop_device() = default;
    loop_device(const loop_device&) = delete;
    loop_device& operator=(const loop_device&) = delete;
    loop_device(loop_device&& o) noexcept : dev_(std::move(o.dev_)), path_(std::move(o.path_)) {}
    loop_device& operator=(loop_device&& o) noexcept {
        if (this != &o) {
            detach();
            dev_ = std::move(o.dev_);
            path_ = std::move(o.path_);
        }
        return *this;
    }
    ~loop_device() { detach(); }

    /// Attaches a free loop device to `file` (read-write, autoclear, direct I/O off: the backing file is sparse).
    static loop_device attach(const std::string& file) {
        fd backing(::open(file.c_str(), O_RDWR | O_CLOEXEC));
        if (!backing) fail_errno("open " + file);
        fd control(::open("/dev/loop-control", O_RDWR | O_CLOEXEC));
        if (!control) fail_errno("open /dev/loop-control");
        for (int attempt = 0; attempt < 20; ++attempt) {
            const int n = ::ioctl(control.get(), LOOP_CTL_GET_FREE);
            if (n < 0) fail_errno("LOOP_CTL_GET_FREE");
            loop_device d;
            d.path_ = "/dev/loop" + std::to_string(n);
            d.dev_ = fd(::open(d.path_.c_str(), O_RDWR | O_CLOEXEC));
            if (!d.dev_) fail_errno("open " + d.path_);
            loop_config cfg{};
            cfg.fd = static_cast<std::uint32_t>(backing.get());
            cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
            std::strncpy(reinterpret_cast<char*>(cfg.info.lo_file_name), file.c_str(), LO_NAME_SIZE - 1);
            if (::ioctl(d.dev_.get(), LOOP_CONFIGURE, &cfg) == 0) return d;
            if (errno != EBUSY) fail_errno("LOOP_CONFIGURE " + d.path_);
            d.dev_.reset();  // another process took it between GET_FREE and CONFIGURE: try the next one
            d.path_.clear();
        }
        throw failure("no free loop device after 20 attempts");
    }

    const std::string& path() const { return path_; }
    int get() const { return dev_.get(); }

    /// The device's size in bytes, as the kernel reports it now (BLKGETSIZE64).
    std::uint64_t size() const {
        std::uint64_t s = 0;
        if (::ioctl(dev_.get(), BLKGETSIZE64, &s) != 0) fail_errno("BLKGETSIZE64 " + path_);
        return s;
    }

    /// Makes the device pick up its backing file's new size (losetup -c).
    void refresh_capacity() const {
        if (::ioctl(dev_.get(), LOOP_SET_CAPACITY, 0) != 0) fail_errno("LOOP_SET_CAPACITY " + path_);
    }

    /// Detaches (lazily while QEMU still holds the device: autoclear finishes it at the last close).
    void detach() {
        if (!dev_) return;
        ::ioctl(dev_.get(), LOOP_CLR_FD, 0);
        dev_.reset();
    }

private:
    fd dev_;
    std::string path_;
};

/// Grows (never shrinks) a sparse file to `size` bytes: the SPM's lvextend.
inline void grow_file(const std::string& file, std::uint64_t size) {
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) fail_errno("stat " + file);
    if (static_cast<std::uint64_t>(st.st_size) >= size) return;
    if (::truncate(file.c_str(), static_cast<off_t>(size)) != 0) fail_errno("truncate " + file);
}

}  // namespace provpol::agent

#endif  // PROVPOL_AGENT_LOOP_DEVICE_HPP
