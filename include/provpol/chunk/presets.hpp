// provpol/chunk/presets.hpp - the real tools' chunk rules as presets (Xen-API's redo log, GNU cp in each of its
// io_blksize() eras, qemu-img convert, ovirt-imageio's server and client, rsync's block length), each with the public
// source of its size, and the presets by name (chunk_tool, chunk_preset_registry: its table, its names and the choice
// at run time).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_CHUNK_PRESETS_HPP
#define PROVPOL_CHUNK_PRESETS_HPP

#include "../config.hpp"
#include "../detail/traits.hpp"
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

/// Default step: qemu-img convert's buffer, as img_convert() in qemu-img.c sizes it (qemu since 2.1, Peter Lieven's
/// "qemu-img: convert: use opt_transfer and discard_alignment"): `s.buf_sectors` starts at IO_BUF_SIZE (2 MiB) in
/// 512-byte sectors and becomes min(MAX_BUF_SECTORS (32768 sectors, 16 MiB), max(that, the output's
/// bl.opt_transfer >> BDRV_SECTOR_BITS, its bl.pdiscard_alignment >> BDRV_SECTOR_BITS)): each limit in whole
/// sectors, rounded down. The optimal transfer is device_limits::optimal_io_size (0: none reported; qemu's drivers
/// report it for iSCSI, NBD and libblkio outputs); the discard alignment is the member (qemu's file-posix reads
/// Linux's queue/discard_granularity for it on a host block device; 0: unknown). Both unknown: 2 MiB.
struct qemu_img_convert_buffer {
    static constexpr std::uint64_t sector = 512;                                        ///< BDRV_SECTOR_SIZE
    static constexpr std::uint64_t io_buf_sectors = (std::uint64_t{2} << 20) / sector;  ///< IO_BUF_SIZE, 2 MiB
    static constexpr std::uint64_t max_buf_sectors = 32768;                             ///< MAX_BUF_SECTORS, 16 MiB

    bytes discard_alignment{};  ///< the output's discard alignment (qemu's bl.pdiscard_alignment), 0: unknown

    PROVPOL_NODISCARD constexpr bytes default_size(const device_limits& limits) const noexcept {
        const std::uint64_t opt = limits.optimal_io_size.count() / sector;
        const std::uint64_t discard = discard_alignment.count() / sector;
        std::uint64_t s = opt > discard ? opt : discard;
        if (s < io_buf_sectors) s = io_buf_sectors;
        if (s > max_buf_sectors) s = max_buf_sectors;
        return bytes(s * sector);
    }
};

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

// GNU cp (and cat, mv, install, split), one preset per io_blksize() of coreutils' releases. Sources:
// coreutils/coreutils, src/ioblksize.h (src/system.h in 7.2), read at each release tag; every era keeps st_blksize as
// gnulib's STP_BLKSIZE reads it. cp takes the lcm of the source's and the destination's io_blksize; these are the rule
// for one file.

/// GNU cp 7.2 to 8.16 (2009-2012): `return MAX (IO_BUFSIZE, ST_BLKSIZE (sb));` with `IO_BUFSIZE = 32*1024`
/// (src/system.h:697-701 at v7.2; commit 55efc5f3, "As of Mar 2009, 32KiB is determined to be the minimium blksize").
PROVPOL_NODISCARD constexpr chunk_preset<coreutils_io_blksize_max> coreutils_cp_2009() noexcept {
    return {"coreutils-cp-2009", coreutils_io_blksize_max{bytes(std::uint64_t{32} << 10)}, io_mode::buffered,
            chunk_floor};
}

/// GNU cp 8.17 to 8.22 (2012-2013): the same MAX with `IO_BUFSIZE = 64*1024` (src/ioblksize.h:67-71 at v8.17;
/// commit a18ba2f1, written in July 2011 and first released in 8.17: "As of Jul 2011, 64KiB ...").
PROVPOL_NODISCARD constexpr chunk_preset<coreutils_io_blksize_max> coreutils_cp_2012() noexcept {
    return {"coreutils-cp-2012", coreutils_io_blksize_max{bytes(std::uint64_t{64} << 10)}, io_mode::buffered,
            chunk_floor};
}

/// GNU cp 8.23 to 9.1 (2014-2022): the same MAX with `IO_BUFSIZE = 128*1024` (src/ioblksize.h:73-77 at v8.23;
/// commit 74ca6e84, "As of May 2014, 128KiB is determined to be the minimium blksize to best minimize system call
/// overhead"). 9.1 caps the result at 2^62, which STP_BLKSIZE's 2^61 never reaches (src/ioblksize.h:74-81 at v9.1).
/// Debian 12's coreutils 9.1 reads and writes 131072 bytes at a time (cat traced with strace on ext4, st_blksize
/// 4096).
PROVPOL_NODISCARD constexpr chunk_preset<coreutils_io_blksize_max> coreutils_cp_2014() noexcept {
    return {"coreutils-cp-2014", coreutils_io_blksize_max{bytes(std::uint64_t{128} << 10)}, io_mode::buffered,
            chunk_floor};
}

/// GNU cp 9.2 to 9.4 (2023): IO_BUFSIZE 128 KiB with the rounding of commit 6c343a55 ("copy: fix possible over
/// allocation for regular files"): the smallest multiple of st_blksize >= IO_BUFSIZE, a power of two for regular
/// files, capped at 2^62 (src/ioblksize.h:75-108 at v9.2).
PROVPOL_NODISCARD constexpr chunk_preset<coreutils_io_blksize> coreutils_cp_2023() noexcept {
    return {"coreutils-cp-2023",
            coreutils_io_blksize{bytes(std::uint64_t{128} << 10), true, bytes(coreutils_io_blksize::idx_max_half)},
            io_mode::buffered, chunk_floor};
}

/// GNU cp 9.5 to 9.7 (2024-2025): the 9.2 rounding with `IO_BUFSIZE = 256 * 1024` (src/ioblksize.h:78-110 at v9.5;
/// commit fcfba90d, "As of Feb 2024, 256KiB is determined to be the best blksize to minimize system call overhead
/// across most systems"), capped at 2^62.
PROVPOL_NODISCARD constexpr chunk_preset<coreutils_io_blksize> coreutils_cp_2024() noexcept {
    return {"coreutils-cp-2024",
            coreutils_io_blksize{bytes(std::uint64_t{256} << 10), true, bytes(coreutils_io_blksize::idx_max_half)},
            io_mode::buffered, chunk_floor};
}

/// GNU cp since 9.8 (2025): the 9.5 rule capped at gnulib's SYS_BUFSIZE_MAX, 2146435072 (`return MIN
/// (SYS_BUFSIZE_MAX, blocksize);`, src/ioblksize.h:79-111 at v9.8; commit d3c7072a): the smallest multiple of
/// st_blksize that is >= 256 KiB, a power of two for regular files, at most 2146435072. Buffered. It differs from
/// coreutils-cp-2024 only for an st_blksize above 2146435072 (XFS may report 2 GiB).
PROVPOL_NODISCARD constexpr chunk_preset<coreutils_io_blksize> coreutils_cp() noexcept {
    return {"coreutils-cp", coreutils_io_blksize{bytes(std::uint64_t{256} << 10), true}, io_mode::buffered,
            chunk_floor};
}

/// qemu-img convert's buffer for an output (qemu_img_convert_buffer) whose discard alignment is
/// `discard_alignment` (0: unknown or none); the output's optimal transfer comes from the device limits. The
/// target's default cache mode is "unsafe": buffered, flushes ignored.
PROVPOL_NODISCARD constexpr chunk_preset<qemu_img_convert_buffer> qemu_img_convert(
    bytes discard_alignment = bytes()) noexcept {
    return {"qemu-img-convert", qemu_img_convert_buffer{discard_alignment}, io_mode::buffered, chunk_floor};
}

/// ovirt-imageio's file backend: `buffer_size = 8 * 1024**2` ([backend_file] in ovirt_imageio/_internal/config.py:
/// "seems to give optimal throughput with both low end and high end storage, using iSCSI and FC"), on a file or
/// block device opened with O_DIRECT (backends/file.py: `util.open(url.path, mode, direct=True)`). The measurements
/// behind it are commit 0bdc698e's table (tests/data/chunk_tables/ovirt_imageio_0bdc698e.csv).
PROVPOL_NODISCARD constexpr chunk_preset<fixed_default> ovirt_imageio() noexcept {
    return {"ovirt-imageio", fixed_default{bytes(std::uint64_t{8} << 20)}, io_mode::direct, chunk_floor};
}

/// ovirt-imageio's client (ovirt-img upload and download, imageio's client API): `BUFFER_SIZE = 4 * MiB`
/// (ovirt_imageio/client/_io.py:30 at 0eb617cd, whose comment asks for more testing of it; `--buffer-size` takes 64 KiB
/// to 16 MiB, _options.py:222-223), written through qemu-nbd, which opens the image with cache=none (O_DIRECT) where
/// the filesystem supports direct I/O (_internal/qemu_nbd.py:91-93).
PROVPOL_NODISCARD constexpr chunk_preset<fixed_default> ovirt_imageio_client() noexcept {
    return {"ovirt-imageio-client", fixed_default{bytes(std::uint64_t{4} << 20)}, io_mode::direct, chunk_floor};
}

/// The floor of rsync's preset: rsync accepts a block of any length from one byte (--block-size), and picks 700
/// bytes and up itself, so the 4 KiB floor (and whole pages) would not be rsync.
inline constexpr bytes rsync_floor = bytes(1);

/// rsync's block length for a file of `file_length` bytes (rsync_block_length: generator.c sum_sizes_sqroot(),
/// lines 720-739 at RsyncProject/rsync 7c20b077), with protocol 30 or later (rsync 3.0 and up on both ends).
/// Buffered, with a floor of one byte: on a device that imposes nothing, decide() is rsync's length itself.
PROVPOL_NODISCARD constexpr chunk_preset<rsync_block_length> rsync(bytes file_length = bytes()) noexcept {
    return {"rsync", rsync_block_length{file_length}, io_mode::buffered, rsync_floor};
}

}  // namespace chunk_presets

/// The chunk presets by name. Each has one entry in chunk_preset_registry, which checks that it holds every one
/// (ovirt_imageio is the last: a new preset goes after it, and the check names the new last one).
enum class chunk_tool : unsigned char {
    xapi_redo_log_2010,
    xapi_redo_log,
    coreutils_cp,
    coreutils_cp_2014,
    qemu_img_convert,
    coreutils_cp_2009,
    coreutils_cp_2012,
    coreutils_cp_2023,
    coreutils_cp_2024,
    ovirt_imageio_client,
    rsync,
    ovirt_imageio  ///< last: tests/to_text_test.cpp checks the names from the first value to this one
};

namespace detail {
// The presets whose function takes what the device or the file adds, with nothing added (the registry's makers take
// no argument): qemu-img convert with no discard alignment, rsync's block length for a file of length 0.
constexpr chunk_preset<qemu_img_convert_buffer> qemu_img_convert_preset() noexcept {
    return chunk_presets::qemu_img_convert();
}
constexpr chunk_preset<rsync_block_length> rsync_preset() noexcept { return chunk_presets::rsync(); }
}  // namespace detail

/// The chunk family's registry: each preset's name, what it does, where its size comes from, and the preset itself.
/// The table, the lists, the parse and with_chunk_preset all come from it.
namespace detail {
// The registry itself: a variable template over its id type only so that it is built where it is read
// (chunk_preset_family::get, preset_registry_of in registry.hpp). Each entry names its id as Id::..., which makes the
// initializer depend on the template parameter: g++ builds a variable template's non-dependent initializer where
// it is defined.
template <class Id>
inline constexpr preset_registry chunk_registry_v{
    preset_def{Id::xapi_redo_log_2010, "xapi-redo-log-2010", "Xen-API redo log, 2010: 16 KiB, O_DSYNC",
               "xen-api CA-42914: read_in_chunks ~block_size:16384", chunk_presets::xapi_redo_log_2010},
    preset_def{Id::xapi_redo_log, "xapi-redo-log", "Xen-API redo log since 2018: 64 KiB, O_DSYNC",
               "xen-api PR #3580 (CP-27880, CA-288635): block_device_io.ml ~block_size:65536",
               chunk_presets::xapi_redo_log},
    preset_def{Id::coreutils_cp, "coreutils-cp", "GNU cp since 9.8: 256 KiB in st_blksize multiples, buffered",
               "coreutils src/ioblksize.h (v9.8): IO_BUFSIZE = 256 KiB, at most SYS_BUFSIZE_MAX",
               chunk_presets::coreutils_cp},
    preset_def{Id::coreutils_cp_2024, "coreutils-cp-2024",
               "GNU cp 9.5 to 9.7: 256 KiB in st_blksize multiples, buffered",
               "coreutils src/ioblksize.h (v9.5, Feb 2024): IO_BUFSIZE = 256 KiB", chunk_presets::coreutils_cp_2024},
    preset_def{Id::coreutils_cp_2023, "coreutils-cp-2023",
               "GNU cp 9.2 to 9.4: 128 KiB in st_blksize multiples, buffered",
               "coreutils src/ioblksize.h (v9.2): IO_BUFSIZE = 128 KiB, rounded", chunk_presets::coreutils_cp_2023},
    preset_def{Id::coreutils_cp_2014, "coreutils-cp-2014", "GNU cp 8.23 to 9.1: max(128 KiB, st_blksize), buffered",
               "coreutils src/ioblksize.h (v8.23, May 2014): IO_BUFSIZE = 128 KiB", chunk_presets::coreutils_cp_2014},
    preset_def{Id::coreutils_cp_2012, "coreutils-cp-2012", "GNU cp 8.17 to 8.22: max(64 KiB, st_blksize), buffered",
               "coreutils src/ioblksize.h (v8.17, Jul 2011): IO_BUFSIZE = 64 KiB", chunk_presets::coreutils_cp_2012},
    preset_def{Id::coreutils_cp_2009, "coreutils-cp-2009", "GNU cp 7.2 to 8.16: max(32 KiB, st_blksize), buffered",
               "coreutils src/system.h (v7.2, Mar 2009): IO_BUFSIZE = 32 KiB", chunk_presets::coreutils_cp_2009},
    preset_def{Id::qemu_img_convert, "qemu-img-convert",
               "qemu-img convert: 2 MiB, up to the output's optimal transfer or discard alignment (at most 16 MiB), "
               "buffered (cache=unsafe)",
               "qemu-img.c img_convert: buf_sectors = MIN(MAX_BUF_SECTORS, MAX(IO_BUF_SIZE, opt_transfer, "
               "pdiscard_alignment))",
               detail::qemu_img_convert_preset},
    preset_def{Id::ovirt_imageio, "ovirt-imageio", "ovirt-imageio's file backend: 8 MiB, O_DIRECT",
               "ovirt_imageio/_internal/config.py [backend_file] buffer_size", chunk_presets::ovirt_imageio},
    preset_def{Id::ovirt_imageio_client, "ovirt-imageio-client", "ovirt-imageio's client: 4 MiB, O_DIRECT (qemu-nbd)",
               "ovirt_imageio/client/_io.py BUFFER_SIZE = 4 * MiB", chunk_presets::ovirt_imageio_client},
    preset_def{Id::rsync, "rsync", "rsync's block length: sqrt(file length) in [700 B, 128 KiB], buffered",
               "rsync generator.c sum_sizes_sqroot(), protocol 30+", detail::rsync_preset},
};
}  // namespace detail

/// The chunk family's registry as preset_registry_of reads it: its id type, its size (every chunk_tool through the
/// last; preset_registry_of checks that the registry holds each once) and get<D>(), the registry itself, built where it
/// is first read.
struct chunk_preset_family {
    using id_type = chunk_tool;
    static constexpr std::size_t size = static_cast<std::size_t>(chunk_tool::ovirt_imageio) + 1;
    template <class Deferred>
    static constexpr const auto& get() noexcept {
        return detail::chunk_registry_v<detail::dependent_t<Deferred, chunk_tool>>;
    }
};

inline constexpr preset_registry_of<chunk_preset_family> chunk_preset_registry{};

/// The family's entries: chunk_preset_registry, read as its table (begin, end, operator[]; table() for the
/// preset_table).
inline constexpr const preset_registry_of<chunk_preset_family>& chunk_preset_table = chunk_preset_registry;
/// The presets' names, and the same after "one of " for errors (each a preset_list_of: built where it is read).
inline constexpr preset_list_of<chunk_preset_registry> chunk_preset_names{};
inline constexpr preset_list_of<chunk_preset_registry, true> chunk_preset_choices{};
/// Reads a chunk preset's name ("xapi-redo-log", ...). (A template only so that its body is compiled where it is
/// called, not in every translation unit that includes the header: call it as a function.)
template <class Deferred = void>
PROVPOL_NODISCARD constexpr result<chunk_tool> parse_chunk_preset(text_view name,
                                                                  const char* setting = "preset") noexcept {
    return parse_preset(chunk_preset_table, detail::deferred<Deferred>(chunk_preset_choices).list(), name, setting);
}
/// The preset's name. (A template only so that the registry is built where a name is read: call it as a function.)
template <class Deferred = void>
PROVPOL_NODISCARD constexpr const char* to_text(chunk_tool t) noexcept {
    return preset_name(detail::deferred<Deferred>(chunk_preset_registry), t);
}

/// Calls f(preset) with the preset of `t` (presets differ in their default step's type) and returns what f
/// returns (the same type for every preset): chunk_preset_registry.visit. rsync's preset comes with a file length of
/// 0: set its default_step.file_length for the file in question.
template <class F>
constexpr decltype(auto) with_chunk_preset(chunk_tool t, F&& f) {
    return chunk_preset_registry.visit(t, detail::forward<F>(f));
}

}  // namespace provpol

#endif  // PROVPOL_CHUNK_PRESETS_HPP
