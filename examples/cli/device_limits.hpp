// The provpol CLI's view of a device: the I/O limits of a file or block device, read from statx (STATX_DIOALIGN
// where the kernel and the C library offer it, Linux 6.1 and later) and from the sysfs queue limits of the block
// device underneath (/sys/dev/block/MAJ:MIN/queue/, the whole disk's for a partition).
#ifndef PROVPOL_CLI_DEVICE_LIMITS_HPP
#define PROVPOL_CLI_DEVICE_LIMITS_HPP

#include "common/cli.hpp"

#include <provpol/chunk.hpp>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace provpol::cli {

/// What was found at a path: the limits, and where they came from (for the output and error messages).
struct path_limits {
    device_limits limits;
    std::string kind;             ///< "block device", "regular file", "directory", ...
    std::string device;           ///< "254:0": the block device itself, or the one the file lives on
    std::string disk;             ///< "vda": the whole disk whose queue limits were read; "" when sysfs has none
    bool from_sysfs = false;      ///< queue limits were read
    bool dio_from_statx = false;  ///< statx reported the direct-I/O alignment
};

namespace device_detail {

/// Reads one unsigned integer from a sysfs file; false when the file is missing or unreadable.
inline bool read_sysfs_u64(const std::string& file, std::uint64_t& out) {
    std::FILE* f = std::fopen(file.c_str(), "r");
    if (f == nullptr) return false;
    char buf[64] = {};
    const bool ok = std::fgets(buf, sizeof buf, f) != nullptr;
    std::fclose(f);
    if (!ok) return false;
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(buf, &end, 10);
    if (errno != 0 || end == buf) return false;
    out = v;
    return true;
}

inline std::string base_name_of(const std::string& path) {
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) == nullptr) return "";
    const std::string r = resolved;
    const std::size_t slash = r.rfind('/');
    return slash == std::string::npos ? r : r.substr(slash + 1);
}

inline const char* kind_of(mode_t mode) {
    if (S_ISBLK(mode)) return "block device";
    if (S_ISREG(mode)) return "regular file";
    if (S_ISDIR(mode)) return "directory";
    if (S_ISCHR(mode)) return "character device";
    if (S_ISLNK(mode)) return "symbolic link";
    if (S_ISFIFO(mode)) return "fifo";
    if (S_ISSOCK(mode)) return "socket";
    return "special file";
}

}  // namespace device_detail

/// Fills the sysfs queue limits of block device major:minor (following a partition to its disk). Returns the
/// disk's name, or "" when sysfs has no such block device (tmpfs, btrfs subvolumes, NFS, ...).
inline std::string read_queue_limits(unsigned major_no, unsigned minor_no, device_limits& l) {
    const std::string base = "/sys/dev/block/" + std::to_string(major_no) + ":" + std::to_string(minor_no);
    if (::access(base.c_str(), F_OK) != 0) return "";
    const bool partition = ::access((base + "/partition").c_str(), F_OK) == 0;
    const std::string disk = partition ? base + "/.." : base;
    const std::string queue = disk + "/queue/";
    std::uint64_t v = 0;
    if (device_detail::read_sysfs_u64(queue + "logical_block_size", v)) l.logical_block_size = bytes(v);
    if (device_detail::read_sysfs_u64(queue + "physical_block_size", v)) l.physical_block_size = bytes(v);
    if (device_detail::read_sysfs_u64(queue + "minimum_io_size", v)) l.minimum_io_size = bytes(v);
    if (device_detail::read_sysfs_u64(queue + "optimal_io_size", v)) l.optimal_io_size = bytes(v);  // 0: none reported
    if (device_detail::read_sysfs_u64(queue + "max_sectors_kb", v) && v <= (UINT64_MAX >> 10))
        l.max_transfer_size = bytes(v << 10);
    const std::string name = device_detail::base_name_of(disk);
    return name.empty() ? "?" : name;
}

namespace device_detail {

// What statx (or stat) says, turned into limits plus the sysfs queue limits of the device underneath.
inline path_limits limits_from_stat(mode_t mode, unsigned dev_major, unsigned dev_minor, std::uint64_t blksize,
                                    std::uint64_t dio_mem, std::uint64_t dio_offset) {
    path_limits out;
    out.limits.stat_block_size = bytes(blksize);
    // A file that does not support direct I/O reports STATX_DIOALIGN with both alignments 0.
    if (dio_offset != 0) {
        out.limits.dio_mem_align = bytes(dio_mem);
        out.limits.dio_offset_align = bytes(dio_offset);
        out.dio_from_statx = true;
    }
    out.kind = kind_of(mode);
    out.device = std::to_string(dev_major) + ":" + std::to_string(dev_minor);
    if (S_ISBLK(mode) || S_ISREG(mode) || S_ISDIR(mode)) {
        out.disk = read_queue_limits(dev_major, dev_minor, out.limits);
        out.from_sysfs = !out.disk.empty();
    }
    return out;
}

// statx(dirfd, path, flags) with STATX_DIOALIGN where available; false with errno set on failure.
inline bool examine(int dirfd, const char* path, int flags, path_limits& out) {
#if defined(STATX_BASIC_STATS)
    struct statx sx {};
    unsigned mask = STATX_BASIC_STATS;
#if defined(STATX_DIOALIGN)
    mask |= STATX_DIOALIGN;
#endif
    if (::statx(dirfd, path, flags, mask, &sx) != 0) return false;
    std::uint64_t dio_mem = 0, dio_offset = 0;
#if defined(STATX_DIOALIGN)
    if ((sx.stx_mask & STATX_DIOALIGN) != 0) {
        dio_mem = sx.stx_dio_mem_align;
        dio_offset = sx.stx_dio_offset_align;
    }
#endif
    const bool blk = S_ISBLK(sx.stx_mode);
    out = limits_from_stat(sx.stx_mode, blk ? sx.stx_rdev_major : sx.stx_dev_major,
                           blk ? sx.stx_rdev_minor : sx.stx_dev_minor, sx.stx_blksize, dio_mem, dio_offset);
#else
    struct stat st {};
    if (::fstatat(dirfd, path, &st, flags) != 0) return false;
    const dev_t d = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
    out = limits_from_stat(st.st_mode, major(d), minor(d), static_cast<std::uint64_t>(st.st_blksize), 0, 0);
#endif
    return true;
}

}  // namespace device_detail

/// Reads the limits for the file or block device at `path` (symbolic links followed). Throws usage_error when
/// the path cannot be examined.
inline path_limits read_path_limits(const std::string& path, const std::string& option = "--path") {
    path_limits out;
    if (!device_detail::examine(AT_FDCWD, path.c_str(), 0, out))
        throw usage_error(option + ": cannot examine '" + args::printable(path) + "': " + std::strerror(errno));
    return out;
}

/// Reads the limits for an open file. Throws runtime_failure when fstat fails.
inline path_limits read_fd_limits(int fd) {
    path_limits out;
    if (!device_detail::examine(fd, "", AT_EMPTY_PATH, out))
        throw runtime_failure(std::string("cannot examine the scratch file: ") + std::strerror(errno));
    return out;
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_DEVICE_LIMITS_HPP
