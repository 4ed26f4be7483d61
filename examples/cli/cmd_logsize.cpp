// provpol logsize: the log (journal) mkfs.xfs or mke2fs would create for a device, under each preset: the
// comparison an operator or an image builder wants before running mkfs.
#include "common/cli.hpp"
#include "common/table.hpp"
#include "device_limits.hpp"

#include <provpol/log_size.hpp>

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace provpol::cli {

namespace {

const char* const usage_text =
    "provpol logsize (--size SIZE | --path DEVICE|FILE) [--preset NAME ...] [--block-size N] [--sector-size N] "
    "[--agcount N | --agsize SIZE]\n"
    "    [--su SIZE --sw N] [--log-su SIZE] [--features crc=1,finobt=1,reflink=1,rmapbt=1,nrext64=1,parent=1]\n"
    "    [--data-concurrency N] [--log-concurrency N | --rotational 0|1 [--cpus N]] [--min-log-blocks N]\n"
    "    [--unsupported] [--fast-commit] [--journal-size MIB | --e2fsck-recreate [--old-journal SIZE]]\n"
    "    [--format text|csv|json]\n\n"
    "The log each preset makes for a device of --size (as given to mkfs), one row per --preset (all presets when\n"
    "none is given). No option is ignored: XFS's options need an xfsprogs preset among them, --fast-commit needs\n"
    "e2fsprogs-1.47. Features not\n"
    "given take each version's default. mkfs.xfs >= 6.8 sizes the log for --log-concurrency transactions (1: the\n"
    "CPU count), or on a non-rotational device (--rotational 0) for --cpus; decided_by names the step that set the\n"
    "size. The minimum log and max_tx_bytes are computed from the transaction reservations (min_log_source=computed)\n"
    "unless --min-log-blocks gives the minimum. --data-concurrency sizes the AG count for N writers as mkfs.xfs -d\n"
    "concurrency=N does, on any device.";

// The flag that carries each fs_geometry setting, for error messages.
const char* flag_of(text_view setting) {
    struct pair {
        const char* setting;
        const char* flag;
    };
    static const pair names[] = {{"block_size", "--block-size"},
                                 {"sector_size", "--sector-size"},
                                 {"agcount", "--agcount"},
                                 {"agsize", "--agsize"},
                                 {"stripe_unit", "--su"},
                                 {"stripe_width", "--sw"},
                                 {"log_stripe_unit", "--log-su"},
                                 {"min_log_blocks", "--min-log-blocks"},
                                 {"log_concurrency", "--log-concurrency"},
                                 {"data_concurrency", "--data-concurrency"},
                                 {"journal_size", "--journal-size"},
                                 {"old_journal", "--old-journal"}};
    for (const pair& p : names)
        if (setting == p.setting) return p.flag;
    return "--size";
}

// A block or sector size: a size (4096, 4KiB) that fits the geometry's 32-bit field.
std::uint32_t small_size(const args& a, const char* name) {
    const auto v = a.size(name);
    if (!v) return 0;
    if (v->count() == 0 || v->count() > 65536)
        throw usage_error(std::string(name) + " must be in [512, 65536], got " + std::to_string(v->count()));
    return static_cast<std::uint32_t>(v->count());
}

// --features crc=1,finobt=1,reflink=1,rmapbt=1,nrext64=1,parent=1 (any subset, in any order; the rest default).
xfs_features parse_features(const std::string& text) {
    xfs_features f;
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const std::size_t eq = item.find('=');
        const std::string key = item.substr(0, eq);
        const std::string val = eq == std::string::npos ? "" : item.substr(eq + 1);
        xfs_feature* target = key == "crc"       ? &f.crc
                              : key == "finobt"  ? &f.finobt
                              : key == "reflink" ? &f.reflink
                              : key == "rmapbt"  ? &f.rmapbt
                              : key == "nrext64" ? &f.nrext64
                              : key == "parent"  ? &f.parent
                                                 : nullptr;
        if (target == nullptr)
            throw usage_error("--features: unknown feature '" + args::printable(key) +
                              "': expected crc, finobt, reflink, rmapbt, nrext64 or parent as name=0 or name=1");
        if (val != "0" && val != "1")
            throw usage_error("--features: " + key + " must be 0 or 1, got '" + args::printable(val) + "'");
        *target = val == "1";
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return f;
}

// What --path read, as mkfs.xfs and mke2fs read it: a block device's size (BLKGETSIZE64), logical and physical
// sector sizes (BLKSSZGET, BLKPBSZGET), minimum and optimal I/O (BLKIOMIN, BLKIOOPT) and rotational flag
// (/sys/dev/block/M:m/queue/rotational, a partition's from its disk); a regular file as mkfs treats an image:
// its size, 512-byte sectors, no topology, not known to be solid state. Online CPUs as mkfs.xfs counts them
// (sysconf(_SC_NPROCESSORS_ONLN)). Read only: the file is opened O_RDONLY and nothing is written.
struct path_geometry {
    bool block = false;
    std::uint64_t size = 0;
    std::uint32_t logical = 512, physical = 512, min_io = 0, opt_io = 0;
    int rotational = -1;  ///< 0 or 1 for a block device; -1: an image file
    std::uint32_t cpus = 1;
};

path_geometry read_path_geometry(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw usage_error("--path: cannot open '" + args::printable(path) + "': " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const int e = errno;
        ::close(fd);
        throw runtime_failure("--path: cannot examine '" + args::printable(path) + "': " + std::strerror(e));
    }
    path_geometry g;
    const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    g.cpus = cpus > 0 ? static_cast<std::uint32_t>(cpus) : 1;
    if (S_ISREG(st.st_mode)) {
        g.size = static_cast<std::uint64_t>(st.st_size);
        ::close(fd);
        return g;
    }
    if (!S_ISBLK(st.st_mode)) {
        ::close(fd);
        throw usage_error("--path: '" + args::printable(path) + "' is a " + detail::kind_of(st.st_mode) +
                          ", neither a block device nor a regular file (an image)");
    }
    g.block = true;
    std::uint64_t size = 0;
    int logical = 0;
    unsigned int physical = 0, min_io = 0, opt_io = 0;
    const bool ok = ::ioctl(fd, BLKGETSIZE64, &size) == 0 && ::ioctl(fd, BLKSSZGET, &logical) == 0 &&
                    ::ioctl(fd, BLKPBSZGET, &physical) == 0 && ::ioctl(fd, BLKIOMIN, &min_io) == 0 &&
                    ::ioctl(fd, BLKIOOPT, &opt_io) == 0;
    const int e = errno;
    ::close(fd);
    if (!ok) throw runtime_failure("--path: reading '" + args::printable(path) + "''s geometry: " + std::strerror(e));
    g.size = size;
    g.logical = static_cast<std::uint32_t>(logical);
    g.physical = physical;
    g.min_io = min_io;
    g.opt_io = opt_io;
    const std::string base =
        "/sys/dev/block/" + std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev));
    const bool partition = ::access((base + "/partition").c_str(), F_OK) == 0;
    std::uint64_t rot = 1;
    if (detail::read_sysfs_u64((partition ? base + "/.." : base) + "/queue/rotational", rot))
        g.rotational = rot == 0 ? 0 : 1;
    else
        g.rotational = 1;  // mkfs.xfs: a device that does not say is not solid state
    return g;
}

// An unknown --preset: for xfsprogs-X.Y, the preset whose log rules X.Y has (the registry's boundaries: 5.15's
// 64 MiB floor, 6.8's concurrency-sized log), not the nearest spelling (6.8 is not 6.1).
[[noreturn]] void fail_xfsprogs_version(const std::string& name, const provpol::error& e) {
    unsigned major = 0, minor = 0;
    char tail = 0;
    if (std::sscanf(name.c_str(), "xfsprogs-%u.%u%c", &major, &minor, &tail) == 2) {
        const unsigned v = major * 100 + minor;
        const char* rules = v >= 702   ? "xfsprogs-7.2"
                            : v >= 608 ? "xfsprogs-6.13 (6.8 brought the concurrency-sized log)"
                            : v >= 515 ? "xfsprogs-6.1 (5.15 brought the 64 MiB floor)"
                                       : "xfsprogs-5.14";
        throw usage_error("--preset: " + args::printable(name) + " is not a preset; its log-size rules are " + rules +
                          "'s, its feature defaults may not be: give --features as that release's mkfs.xfs does");
    }
    fail(e, "--preset");
}

}  // namespace

int run_logsize(int argc, char** argv) {
    const args a(
        "logsize", usage_text,
        {{"--size", "SIZE", "device size, as given to mkfs (e.g. 220GiB)"},
         {"--path", "DEVICE|FILE",
          "read the size, sector sizes and rotational flag of a block device, or an image file's size, as "
          "mkfs does (read only); options given override what it read"},
         {"--preset", "NAME",
          std::string(log_preset_names.c_str()) +
              " (repeatable; default: all); the log-size rules of xfsprogs-5.14 cover releases up to 5.14, "
              "xfsprogs-6.1 5.15 to 6.7, xfsprogs-6.13 6.8 to 7.1",
          true},
         {"--block-size", "N", "block size in bytes (default 4096, or 1024 for e2fsprogs-1.47 below 512MiB)"},
         {"--sector-size", "N", "sector size in bytes (default 512)"},
         {"--agcount", "N", "number of allocation groups (mkfs.xfs -d agcount)"},
         {"--agsize", "SIZE", "allocation group size (mkfs.xfs -d agsize)"},
         {"--su", "SIZE", "data stripe unit (mkfs.xfs -d su)"},
         {"--sw", "N", "data stripe width in stripe units (mkfs.xfs -d sw)"},
         {"--log-su", "SIZE", "log stripe unit (mkfs.xfs -l su)"},
         {"--features", "LIST", "crc, finobt, reflink, rmapbt (-m), nrext64 (-i), parent (-n) as name=0|1"},
         {"--data-concurrency", "N",
          "mkfs.xfs -d concurrency: AGs for N writers (1: the CPU count; 0: the default geometry; 6.13 and "
          "later)"},
         {"--log-concurrency", "N", "mkfs.xfs -l concurrency (1: the CPU count; 6.13 and later)"},
         {"--rotational", "0|1", "the data device's rotational flag (0: an SSD; default: an image file)"},
         {"--cpus", "N", "online CPUs, for --rotational 0, --log-concurrency 1 or --data-concurrency 1"},
         {"--min-log-blocks", "N", "mkfs.xfs's minimum log, to override the computed one"},
         {"--unsupported", nullptr, "as mkfs.xfs --unsupported: format what it would refuse"},
         {"--fast-commit", nullptr, "as mke2fs -O fast_commit"},
         {"--journal-size", "MIB", "mke2fs -J size=MIB (0: its table); refused outside 1024 to 10240000 blocks"},
         {"--e2fsck-recreate", nullptr, "the journal e2fsck -fy makes in place of a lost one, not mke2fs's"},
         {"--old-journal", "SIZE",
          "with --e2fsck-recreate: the lost journal's size in the superblock's backup (none when not given)"},
         {"--format", "FORMAT", "text (default), csv or json"}},
        argc, argv);
    const format out = a.output_format();

    // Validate everything before printing anything.
    std::optional<path_geometry> read;
    if (const auto path = a.value("--path")) read = read_path_geometry(*path);
    const auto size = a.size("--size");
    if (!size && !read) throw usage_error("--size or --path is required (see provpol logsize --help)");
    fs_geometry_options o;
    o.device_size = size ? *size : bytes(read->size);
    o.block_size = small_size(a, "--block-size");
    o.sector_size = small_size(a, "--sector-size");
    // mkfs.xfs's default sector size is the device's physical one (its logical one when larger than XFS's 32 KiB
    // maximum); an image has 512-byte sectors.
    if (read && !a.has("--sector-size")) o.sector_size = read->physical <= 32768 ? read->physical : read->logical;
    o.agcount = a.count("--agcount", 1, fs_geometry::max_agcount).value_or(0);
    o.agsize = a.size("--agsize").value_or(bytes(0));
    o.stripe_unit = a.size("--su").value_or(bytes(0));
    o.stripe_width = static_cast<std::uint32_t>(a.count("--sw", 1, 0x7fffffff).value_or(0));
    o.log_stripe_unit = a.size("--log-su").value_or(bytes(0));
    if (const auto f = a.value("--features")) o.features = parse_features(*f);
    if (a.has("--log-concurrency") && a.has("--rotational"))
        throw usage_error("--log-concurrency cannot be given with --rotational (it replaces the automatic choice)");
    o.log_concurrency = static_cast<std::int64_t>(a.count("--log-concurrency", 0, 0x7fffffff).value_or(0));
    if (!a.has("--log-concurrency")) o.log_concurrency = -1;
    // mkfs.xfs refuses -d concurrency with -d agcount or -d agsize (their conflicts tables).
    for (const char* ag : {"--agcount", "--agsize"})
        if (a.has("--data-concurrency") && a.has(ag))
            throw usage_error(std::string("--data-concurrency cannot be given with ") + ag +
                              " (it sizes the AGs itself, as mkfs.xfs -d concurrency does)");
    o.data_concurrency =
        a.has("--data-concurrency") ? static_cast<std::int64_t>(*a.count("--data-concurrency", 0, 0x7fffffff)) : -1;
    if (const auto r = a.count("--rotational", 0, 1))
        o.device = *r == 0 ? xfs_device::non_rotational : xfs_device::rotational;
    else if (read && read->block && !a.has("--log-concurrency"))
        o.device = read->rotational == 0 ? xfs_device::non_rotational : xfs_device::rotational;
    o.cpus = static_cast<std::uint32_t>(a.count("--cpus", 1, 0x7fffffff).value_or(0));
    const bool cpus_used = o.device == xfs_device::non_rotational || o.log_concurrency == 1 || o.data_concurrency == 1;
    const bool cpus_read = read && !a.has("--cpus") && cpus_used;
    if (cpus_read) o.cpus = read->cpus;
    if (cpus_used && !a.has("--cpus") && !cpus_read)
        throw usage_error(std::string(o.log_concurrency == 1    ? "--log-concurrency 1"
                                      : o.data_concurrency == 1 ? "--data-concurrency 1"
                                                                : "--rotational 0") +
                          " needs --cpus N (mkfs.xfs sizes the log and the AGs for the CPU count)");
    if (a.has("--cpus") && !cpus_used)
        throw usage_error("--cpus is used only with --rotational 0, --log-concurrency 1 or --data-concurrency 1");
    o.min_log_blocks = a.count("--min-log-blocks", 1, std::uint64_t{1} << 32).value_or(0);
    o.allow_unsupported = a.has("--unsupported");
    o.fast_commit = a.has("--fast-commit");
    if (a.has("--journal-size") && a.has("--e2fsck-recreate"))
        throw usage_error("--journal-size cannot be given with --e2fsck-recreate (mke2fs's option, not e2fsck's)");
    if (a.has("--old-journal") && !a.has("--e2fsck-recreate"))
        throw usage_error("--old-journal is used only with --e2fsck-recreate");
    o.journal_size_mib =
        a.has("--journal-size") ? static_cast<std::int64_t>(*a.count("--journal-size", 0, 0x7fffffff)) : -1;
    o.e2fsck_recreate = a.has("--e2fsck-recreate");
    if (const auto old = a.size("--old-journal")) {
        if (old->count() >= (std::uint64_t{1} << 51))
            throw usage_error("--old-journal must be under 2PiB, got " + std::to_string(old->count()));
        o.old_journal_bytes = static_cast<std::int64_t>(old->count());
    }
    if (a.has("--agsize") && o.agsize.count() == 0) throw usage_error("--agsize must not be 0");
    if (a.has("--su") && o.stripe_unit.count() == 0) throw usage_error("--su must not be 0");
    if (a.has("--log-su") && o.log_stripe_unit.count() == 0) throw usage_error("--log-su must not be 0");
    const result<fs_geometry> g = fs_geometry::make(o);
    if (!g) fail(g.error(), flag_of(g.error().setting()));

    std::vector<log_preset> presets;
    for (const std::string& name : a.values("--preset")) {
        const auto p = parse_log_preset(name, "--preset");
        if (!p) fail_xfsprogs_version(name, p.error());
        presets.push_back(*p);
    }
    if (presets.empty()) presets.assign(std::begin(all_log_presets), std::end(all_log_presets));
    // No option is quietly ignored: one that none of the presets asked for reads is an error.
    bool any_xfs = false, any_ext4 = false;
    for (log_preset p : presets) (p == log_preset::e2fsprogs_1_47 ? any_ext4 : any_xfs) = true;
    if (a.has("--fast-commit") && !any_ext4)
        throw usage_error("--fast-commit is mke2fs's (-O fast_commit): add --preset e2fsprogs-1.47");
    if (a.has("--journal-size") && !any_ext4)
        throw usage_error("--journal-size is mke2fs's (-J size): add --preset e2fsprogs-1.47");
    for (const char* e2fsck_only : {"--e2fsck-recreate", "--old-journal"})
        if (a.has(e2fsck_only) && !any_ext4)
            throw usage_error(std::string(e2fsck_only) + " is e2fsck's: add --preset e2fsprogs-1.47");
    if (!any_xfs)
        for (const char* xfs_only :
             {"--agcount", "--agsize", "--su", "--sw", "--log-su", "--features", "--log-concurrency",
              "--data-concurrency", "--rotational", "--cpus", "--min-log-blocks", "--unsupported"})
            if (a.has(xfs_only))
                throw usage_error(std::string(xfs_only) +
                                  " is mkfs.xfs's: e2fsprogs-1.47 does not read it (add an xfsprogs "
                                  "--preset)");

    table t({"preset", "block_size", "data_blocks", "agcount", "agsize_blocks", "log_blocks", "log_sunit_blocks",
             "supported", "made", "reason", "fast_commit_blocks", "log_size", "decided_by", "min_log_blocks",
             "min_log_source", "max_tx_bytes", "log_concurrency"});
    for (log_preset p : presets) {
        const log_size_decision d = decide_log_size(p, *g);
        const bool xfs = p != log_preset::e2fsprogs_1_47;
        // Errors in the layout (no AG geometry) leave nothing to report about the log.
        const bool no_log = is_hard(d.reason) && d.log_blocks == 0;
        const bool ag = xfs && d.agcount != 0;
        // supported: the tool makes this filesystem as it is; made: it makes it with the flags given (a soft
        // refusal overridden by --unsupported is made but not supported, and its reason stays).
        const bool soft_refusal =
            d.reason != log_reason::none && d.reason != log_reason::no_journal && !is_hard(d.reason);
        const bool supported = d.supported && !soft_refusal;
        t.add_row({cell::of_text(to_text(p)), cell::of(d.block_size), cell::of(d.data_blocks),
                   ag ? cell::of(d.agcount) : cell(), ag ? cell::of(d.agsize_blocks) : cell(),
                   no_log ? cell() : cell::of(d.log_blocks), xfs && !no_log ? cell::of(d.log_sunit_blocks) : cell(),
                   cell::of_flag(supported), cell::of_flag(d.supported),
                   d.reason == log_reason::none ? cell() : cell::of_text(to_text(d.reason)),
                   xfs ? cell() : cell::of(d.fast_commit_blocks), no_log ? cell() : cell::of_size(d.log_size()),
                   no_log ? cell() : cell::of_text(to_text(d.decided_by)),
                   xfs && !no_log ? cell::of(d.min_log_blocks) : cell(),
                   xfs && !no_log ? cell::of_text(d.min_log_computed ? "computed" : "given") : cell(),
                   xfs && !no_log ? cell::of(d.max_tx_bytes) : cell(),
                   xfs && !no_log ? cell::of(d.log_concurrency) : cell()});
    }
    if (read && out == format::text)
        std::printf(
            "# read from %s (%s): size %llu, sectors %u logical / %u physical, I/O %u minimum / %u optimal, "
            "%s, %u online CPUs%s\n",
            args::visible(*a.value("--path")).c_str(), read->block ? "block device" : "image file",
            static_cast<unsigned long long>(read->size), read->logical, read->physical, read->min_io, read->opt_io,
            read->rotational < 0    ? "an image (not known to be solid state)"
            : read->rotational == 0 ? "rotational 0"
                                    : "rotational 1",
            read->cpus,
            size || a.has("--sector-size") || a.has("--rotational") || a.has("--cpus") ? "; options given override it"
                                                                                       : "");
    t.print(stdout, out);
    return 0;
}

}  // namespace provpol::cli
