// provpol/chunk/presets.hpp - the real tools' chunk rules as presets (Xen-API's redo log, GNU cp, qemu-img convert,
// ovirt-imageio), each with the public source of its size, and the presets by name (chunk_tool, chunk_preset_table).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_CHUNK_PRESETS_HPP
#define PROVPOL_CHUNK_PRESETS_HPP

#include "../config.hpp"
#include "../registry.hpp"
#include "../result.hpp"
#include "../text.hpp"
#include "policy.hpp"

namespace provpol {

// --- presets ----------------------------------------------------------------------------------------------------

/// A real tool's rule: its default step, the mode it opens the device with, and the floor.
template <class DefaultStep>
struct chunk_preset {
    const char* name;          ///< the preset's name, as `provpol chunk --preset` takes it
    DefaultStep default_step;  ///< the tool's size rule
    io_mode mode;              ///< how the tool opens its output
    bytes floor;               ///< chunk_floor for every shipped preset
};

/// Makes the policy a preset describes, for a device.
template <class DefaultStep>
PROVPOL_NODISCARD constexpr result<basic_chunk_policy<DefaultStep>> make_chunk_policy(
    const chunk_preset<DefaultStep>& preset, const device_limits& limits) noexcept {
    return basic_chunk_policy<DefaultStep>::make(limits, preset.mode, preset.default_step, preset.floor);
}

/// The real tools' rules. Each preset reproduces its tool's size on a device that imposes nothing else (the
/// floor, alignment and cap then change nothing); on other devices decided_by shows where the device overrides.
namespace chunk_presets {

/// Xen-API redo log, 2010 (CA-42914, SCTX-434, xen-api patch "Speed up writes of the database to the redo-log"):
/// `read_in_chunks ~block_size:16384`, chosen from dd timings "to be on the safe side" of the 4 KiB minimum. The
/// block device is opened O_RDWR|O_DSYNC (ocaml/database/block_device_io.ml; xen-api PR #3580 describes these
/// 16 KiB chunks as written to a file opened with O_DSYNC).
PROVPOL_NODISCARD constexpr chunk_preset<fixed_default> xapi_redo_log_2010() noexcept {
    return {"xapi-redo-log-2010", fixed_default{bytes(std::uint64_t{16} << 10)}, io_mode::buffered_dsync, chunk_floor};
}

/// Xen-API redo log since 2018 (xen-api PR #3580, "CP-27880, CA-288635: Reduce redo log traffic"): 16 KiB chunks
/// on O_DSYNC took 1.68 s for a 15 MiB database, so block_device_io.ml reads and writes `~block_size:65536`, the
/// OCaml runtime's largest single write.
PROVPOL_NODISCARD constexpr chunk_preset<fixed_default> xapi_redo_log() noexcept {
    return {"xapi-redo-log", fixed_default{bytes(std::uint64_t{64} << 10)}, io_mode::buffered_dsync, chunk_floor};
}

/// GNU cp since 2024: io_blksize() with IO_BUFSIZE = 256 KiB (src/ioblksize.h: "As of Feb 2024, 256KiB is
/// determined to be the best blksize to minimize system call overhead across most systems"): the smallest multiple
/// of st_blksize that is >= 256 KiB, a power of two for regular files. Buffered. (cp takes the lcm of the source's
/// and the destination's io_blksize; this is the rule for one file.)
PROVPOL_NODISCARD constexpr chunk_preset<coreutils_io_blksize> coreutils_cp() noexcept {
    return {"coreutils-cp", coreutils_io_blksize{bytes(std::uint64_t{256} << 10), true}, io_mode::buffered,
            chunk_floor};
}

/// GNU cp from 2014 to 2024: IO_BUFSIZE = 128 KiB ("As of May 2014, 128KiB is determined to be the minimium blksize
/// to best minimize system call overhead"), with the io_blksize() rounding of the 2023 src/ioblksize.h. Debian 12's
/// coreutils 9.1 reads and writes 131072 bytes at a time (cat traced with strace on ext4, st_blksize 4096). Until
/// about 2022 io_blksize() was MAX(IO_BUFSIZE, st_blksize) (coreutils 8.27), which differs only for an st_blksize
/// below 128 KiB that does not divide it, or above it and not a power of two.
PROVPOL_NODISCARD constexpr chunk_preset<coreutils_io_blksize> coreutils_cp_2014() noexcept {
    return {"coreutils-cp-2014", coreutils_io_blksize{bytes(std::uint64_t{128} << 10), true}, io_mode::buffered,
            chunk_floor};
}

/// qemu-img convert: `.buf_sectors = IO_BUF_SIZE / BDRV_SECTOR_SIZE` with `#define IO_BUF_SIZE (2 * MiB)`
/// (qemu-img.c, img_convert). The target's default cache mode is "unsafe": buffered, flushes ignored.
PROVPOL_NODISCARD constexpr chunk_preset<fixed_default> qemu_img_convert() noexcept {
    return {"qemu-img-convert", fixed_default{bytes(std::uint64_t{2} << 20)}, io_mode::buffered, chunk_floor};
}

/// ovirt-imageio's file backend: `buffer_size = 8 * 1024**2` ([backend_file] in ovirt_imageio/_internal/config.py:
/// "seems to give optimal throughput with both low end and high end storage, using iSCSI and FC"), on a file or
/// block device opened with O_DIRECT (backends/file.py: `util.open(url.path, mode, direct=True)`).
PROVPOL_NODISCARD constexpr chunk_preset<fixed_default> ovirt_imageio() noexcept {
    return {"ovirt-imageio", fixed_default{bytes(std::uint64_t{8} << 20)}, io_mode::direct, chunk_floor};
}

}  // namespace chunk_presets

/// The chunk presets by name.
enum class chunk_tool : unsigned char {
    xapi_redo_log_2010,
    xapi_redo_log,
    coreutils_cp,
    coreutils_cp_2014,
    qemu_img_convert,
    ovirt_imageio
};

/// The chunk family's registry.
inline constexpr preset_info<chunk_tool> chunk_preset_table[] = {
    {chunk_tool::xapi_redo_log_2010, "xapi-redo-log-2010", "Xen-API redo log, 2010: 16 KiB, O_DSYNC",
     "xen-api CA-42914: read_in_chunks ~block_size:16384"},
    {chunk_tool::xapi_redo_log, "xapi-redo-log", "Xen-API redo log since 2018: 64 KiB, O_DSYNC",
     "xen-api PR #3580 (CP-27880, CA-288635): block_device_io.ml ~block_size:65536"},
    {chunk_tool::coreutils_cp, "coreutils-cp", "GNU cp since 2024: 256 KiB in st_blksize multiples, buffered",
     "coreutils src/ioblksize.h (Feb 2024): IO_BUFSIZE = 256 KiB"},
    {chunk_tool::coreutils_cp_2014, "coreutils-cp-2014", "GNU cp 2014 to 2024: 128 KiB, buffered",
     "coreutils src/ioblksize.h (May 2014): IO_BUFSIZE = 128 KiB"},
    {chunk_tool::qemu_img_convert, "qemu-img-convert", "qemu-img convert: 2 MiB, buffered (cache=unsafe)",
     "qemu-img.c img_convert: IO_BUF_SIZE = 2 MiB"},
    {chunk_tool::ovirt_imageio, "ovirt-imageio", "ovirt-imageio's file backend: 8 MiB, O_DIRECT",
     "ovirt_imageio/_internal/config.py [backend_file] buffer_size"},
};
/// The presets' names, and the same after "one of " for errors.
inline constexpr preset_list chunk_preset_names = preset_names(chunk_preset_table);
inline constexpr preset_list chunk_preset_choices = detail::preset_choices(chunk_preset_names);

/// Reads a chunk preset's name ("xapi-redo-log", ...).
PROVPOL_NODISCARD constexpr result<chunk_tool> parse_chunk_preset(text_view name,
                                                                  const char* setting = "preset") noexcept {
    return parse_preset(chunk_preset_table, chunk_preset_choices, name, setting);
}
/// The preset's name.
PROVPOL_NODISCARD constexpr const char* to_text(chunk_tool t) noexcept { return preset_of(chunk_preset_table, t).name; }

/// Calls f(preset) with the preset of `t` (presets differ in their default step's type) and returns what f
/// returns (the same type for every preset).
template <class F>
constexpr decltype(auto) with_chunk_preset(chunk_tool t, F&& f) {
    switch (t) {
        case chunk_tool::xapi_redo_log_2010:
            return f(chunk_presets::xapi_redo_log_2010());
        case chunk_tool::coreutils_cp:
            return f(chunk_presets::coreutils_cp());
        case chunk_tool::coreutils_cp_2014:
            return f(chunk_presets::coreutils_cp_2014());
        case chunk_tool::qemu_img_convert:
            return f(chunk_presets::qemu_img_convert());
        case chunk_tool::ovirt_imageio:
            return f(chunk_presets::ovirt_imageio());
        case chunk_tool::xapi_redo_log:
            break;
    }
    return f(chunk_presets::xapi_redo_log());
}

}  // namespace provpol

#endif  // PROVPOL_CHUNK_PRESETS_HPP
