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

#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
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
    "    [--mkfs-command] [--format text|csv|json]\n\n"
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
        throw usage_error("--path: '" + args::printable(path) + "' is a " + device_detail::kind_of(st.st_mode) +
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
    if (device_detail::read_sysfs_u64((partition ? base + "/.." : base) + "/queue/rotational", rot))
        g.rotational = rot == 0 ? 0 : 1;
    else
        g.rotational = 1;  // mkfs.xfs: a device that does not say is not solid state
    return g;
}

// One row's preset: the rules, the name the row prints, and a release's feature defaults where they differ from
// the preset's.
struct row_preset {
    log_preset rules;
    std::string name;
    bool rmapbt_nrext64 = false;
};

// --preset NAME: a preset, or xfsprogs-X.Y (or X.Y.Z) for a release from 5.10 to 7.2, which decides with the rule
// set in force in that release (xfsprogs_releases); any other xfsprogs release is refused with the range.
row_preset resolve_preset(const std::string& name) {
    const auto p = parse_log_preset(name, "--preset");
    if (p) return {*p, to_text(*p), false};
    // A bare release ("7.2", "1.47"): say which preset names it.
    unsigned bare_major = 0, bare_minor = 0;
    char bare_tail = 0;
    if (std::sscanf(name.c_str(), "%u.%u%c", &bare_major, &bare_minor, &bare_tail) == 2 &&
        std::isdigit(static_cast<unsigned char>(name[0])))
        throw usage_error("--preset: unknown value '" + args::printable(name) + "' (did you mean " +
                          (name == "1.47" ? "e2fsprogs-1.47" : "xfsprogs-" + name) + "?)");
    unsigned major = 0, minor = 0, patch = 0;
    char tail = 0;
    const int n = std::sscanf(name.c_str(), "xfsprogs-%u.%u%c", &major, &minor, &tail);
    const int n3 = std::sscanf(name.c_str(), "xfsprogs-%u.%u.%u%c", &major, &minor, &patch, &tail);
    if (n == 2 || n3 == 3) {
        const xfsprogs_release_rules* r = find_xfsprogs_release(major, minor);
        const xfsprogs_release_rules& first = xfsprogs_releases[0];
        const xfsprogs_release_rules& last = xfsprogs_releases[std::size(xfsprogs_releases) - 1];
        if (r == nullptr)
            throw usage_error("--preset: " + args::printable(name) +
                              " is outside the xfsprogs releases provpol knows: " + "xfsprogs-X.Y takes " +
                              std::to_string(first.first / 100) + "." + std::to_string(first.first % 100) + " to " +
                              std::to_string(last.last / 100) + "." + std::to_string(last.last % 100));
        return {r->rules, name, r->rmapbt_nrext64};
    }
    fail(p.error(), "--preset");
}

// "5.19 to 6.4" for a release range.
std::string release_range(const xfsprogs_release_rules& r) {
    const auto v = [](unsigned x) { return std::to_string(x / 100) + "." + std::to_string(x % 100); };
    return v(r.first) + (r.first == r.last ? "" : " to " + v(r.last));
}

// The help's list of which releases each rule set covers.
std::string release_help() {
    std::string h =
        " (repeatable; default: every preset); xfsprogs-X.Y for a release from 5.10 "
        "to 7.2 takes the rules in force in it:";
    for (const xfsprogs_release_rules& r : xfsprogs_releases) {
        h += std::string(" ") + release_range(r) + " " + to_text(r.rules);
        if (r.rmapbt_nrext64) h += " with rmapbt=1,nrext64=1 by default";
        h += &r == &xfsprogs_releases[std::size(xfsprogs_releases) - 1] ? "" : ",";
    }
    return h;
}

// What the "# read from" line says about the stripe the topology gave mkfs.xfs.
std::string stripe_text(const topology_stripe& s, bool given) {
    if (given) return "stripe from --su/--sw";
    switch (s.use) {
        case topology_stripe_use::used:
            return "stripe su " + std::to_string(s.stripe_unit.count()) + " sw " + std::to_string(s.stripe_width) +
                   " (mkfs.xfs's, from minimum / optimal I/O)";
        case topology_stripe_use::none:
            return "no stripe reported";
        case topology_stripe_use::same_as_sector:
            return "no stripe (minimum or optimal I/O is the physical sector)";
        case topology_stripe_use::invalid:
            return "no stripe (mkfs.xfs ignores minimum / optimal I/O that is not a stripe)";
        case topology_stripe_use::small_volume:
            return "no stripe (mkfs.xfs ignores the I/O sizes under 1 GiB of data)";
        case topology_stripe_use::not_block_multiple:
            return "no stripe (minimum / optimal I/O not a multiple of the block size)";
    }
    return "";
}

// A size as mkfs.xfs and mke2fs read it: bytes with a k suffix when whole KiB (both tools read k as 1024 bytes),
// else 512-byte sectors (s), else plain bytes for mkfs.xfs.
std::string mkfs_size(std::uint64_t b, bool sectors_ok) {
    if (b % 1024 == 0) return std::to_string(b / 1024) + "k";
    if (sectors_ok && b % 512 == 0) return std::to_string(b / 512) + "s";
    return std::to_string(b);
}

// The mkfs.xfs command line that makes this answer: every option the answer assumed (block and sector size, the
// size when --size gave it, AGs, stripe, log stripe unit, features, concurrency, --unsupported), on the target.
// It formats the target (add -N to see the geometry without writing); the rotational flag and the CPU count are
// the target's and the machine's own.
// A proposal's log is not what mkfs.xfs computes: its command gives the size (-l size=N blocks).
std::string mkfs_xfs_command(const args& a, const fs_geometry_options& o, const log_size_decision& d, bool sized,
                             bool explicit_log, const std::string& target) {
    std::string c = "mkfs.xfs -b size=" + std::to_string(d.block_size) +
                    " -s size=" + std::to_string(o.sector_size == 0 ? 512 : o.sector_size);
    std::string dopts;
    const auto add = [](std::string& list, const std::string& item) { list += (list.empty() ? "" : ",") + item; };
    if (sized) add(dopts, "size=" + mkfs_size(o.device_size.count(), false));
    if (o.agcount != 0) add(dopts, "agcount=" + std::to_string(o.agcount));
    if (o.agsize.count() != 0) add(dopts, "agsize=" + mkfs_size(o.agsize.count(), false));
    if (o.stripe_unit.count() != 0)
        add(dopts, "su=" + mkfs_size(o.stripe_unit.count(), false) + ",sw=" + std::to_string(o.stripe_width));
    if (o.data_concurrency >= 0) add(dopts, "concurrency=" + std::to_string(o.data_concurrency));
    if (!dopts.empty()) c += " -d " + dopts;
    std::string lopts;
    if (explicit_log) add(lopts, "size=" + std::to_string(d.log_blocks) + "b");
    if (o.log_stripe_unit.count() != 0) add(lopts, "su=" + mkfs_size(o.log_stripe_unit.count(), false));
    if (o.log_concurrency >= 0) add(lopts, "concurrency=" + std::to_string(o.log_concurrency));
    if (!lopts.empty()) c += " -l " + lopts;
    std::string mopts;
    const xfs_features& f = o.features;
    const auto flag = [&](std::string& list, const char* name, xfs_feature v) {
        if (v.given()) add(list, std::string(name) + "=" + (v.value_or(false) ? "1" : "0"));
    };
    flag(mopts, "crc", f.crc);
    flag(mopts, "finobt", f.finobt);
    flag(mopts, "reflink", f.reflink);
    flag(mopts, "rmapbt", f.rmapbt);
    if (!mopts.empty()) c += " -m " + mopts;
    if (f.nrext64.given()) c += std::string(" -i nrext64=") + (f.nrext64.value_or(false) ? "1" : "0");
    if (f.parent.given()) c += std::string(" -n parent=") + (f.parent.value_or(false) ? "1" : "0");
    if (a.has("--unsupported")) c += " --unsupported";
    return c + " " + args::visible(target);
}

// The mke2fs command line: ext4, the block size, fast_commit, the stride from the topology, and the size (k) when
// --size gave it. It formats the target (mke2fs -n does not print the journal's size).
std::string mke2fs_command(const fs_geometry_options& o, const log_size_decision& d, const e2fsprogs_stride& e,
                           bool sized, const std::string& target) {
    std::string c = "mke2fs -t ext4 -b " + std::to_string(d.block_size);
    if (o.fast_commit) c += " -O fast_commit";
    if (o.journal_size_mib >= 0) c += " -J size=" + std::to_string(o.journal_size_mib);
    if (e.stride != 0 || e.stripe_width != 0) {
        std::string x;
        if (e.stride != 0) x = "stride=" + std::to_string(e.stride);
        if (e.stripe_width != 0)
            x += (x.empty() ? "" : ",") + std::string("stripe_width=") + std::to_string(e.stripe_width);
        c += " -E " + x;
    }
    c += " " + args::visible(target);
    if (sized) c += " " + mkfs_size(o.device_size.count(), true);
    return c;
}

// --size as provpol reads sizes, or with the one-letter suffixes mkfs.xfs (cvtnum) and mke2fs (parse_num_blocks2)
// both read: k, m, g, t, p, e in either case, powers of 1024 ("20t" is 20 TiB). Their block ('b') and sector ('s')
// suffixes depend on the geometry and are not read.
std::optional<bytes> mkfs_size_option(const args& a, const char* name) {
    const auto v = a.value(name);
    if (!v) return std::nullopt;
    const std::string& t = *v;
    const std::string units = "kmgtpe";
    const char last = t.empty() ? '\0' : static_cast<char>(std::tolower(static_cast<unsigned char>(t.back())));
    const std::size_t u = units.find(last);
    bool digits = t.size() >= 2 && u != std::string::npos;
    for (std::size_t i = 0; digits && i + 1 < t.size(); ++i)
        digits = std::isdigit(static_cast<unsigned char>(t[i])) != 0;
    if (!digits) return a.size(name);
    const unsigned shift = 10 * static_cast<unsigned>(u + 1);
    std::uint64_t n = 0;
    for (std::size_t i = 0; i + 1 < t.size(); ++i) {
        if (n > (~std::uint64_t{0} >> shift) / 10)
            throw usage_error(std::string(name) + ": '" + args::printable(t) + "' is too large");
        n = n * 10 + static_cast<std::uint64_t>(t[i] - '0');
    }
    if (n > (~std::uint64_t{0} >> shift))
        throw usage_error(std::string(name) + ": '" + args::printable(t) + "' is too large");
    return bytes(n << shift);
}

// What logsize answers for: the device (read from --path, --size over it), the geometry options every preset
// decides on, the stripe read from the topology, and the presets asked for.
struct logsize_request {
    std::optional<path_geometry> read;
    std::optional<bytes> size;
    fs_geometry_options o;
    topology_stripe stripe;
    device_topology topo;
    std::vector<row_preset> presets;
};

args logsize_args(int argc, char** argv) {
    return args(
        "logsize", usage_text,
        {{"--size", "SIZE",
          "device size, as given to mkfs: 220GiB, or with mkfs's own one-letter suffixes k m g t p e (either case, "
          "powers of 1024: 20t is 20TiB)"},
         {"--path", "DEVICE|FILE",
          "read the size, sector sizes and rotational flag of a block device, or an image file's size, as "
          "mkfs does (read only); options given override what it read"},
         {"--preset", "NAME", std::string(log_preset_names.c_str()) + release_help(), true},
         {"--block-size", "N", "block size in bytes (default 4096, or 1024 for e2fsprogs-1.47 below 512MiB)"},
         {"--sector-size", "N", "sector size in bytes (default 512)"},
         {"--agcount", "N", "number of allocation groups (mkfs.xfs -d agcount)"},
         {"--agsize", "SIZE", "allocation group size (mkfs.xfs -d agsize)"},
         {"--su", "SIZE", "data stripe unit (mkfs.xfs -d su)"},
         {"--sw", "N", "data stripe width in stripe units (mkfs.xfs -d sw)"},
         {"--log-su", "SIZE", "log stripe unit (mkfs.xfs -l su)"},
         {"--features", "LIST", "crc, finobt, reflink, rmapbt (-m), nrext64 (-i), parent (-n) as name=0|1"},
         {"--data-concurrency", "N",
          "mkfs.xfs -d concurrency: AGs for N writers (1: the CPU count; 0: the default geometry; 6.13 "
          "and later)"},
         {"--log-concurrency", "N", "mkfs.xfs -l concurrency (1: the CPU count; 6.13 and later)"},
         {"--rotational", "0|1", "the data device's rotational flag (0: an SSD; default: an image file)"},
         {"--cpus", "N", "online CPUs, for --rotational 0, --log-concurrency 1 or --data-concurrency 1"},
         {"--min-log-blocks", "N", "mkfs.xfs's minimum log, to override the computed one"},
         {"--unsupported", nullptr, "as mkfs.xfs --unsupported: format what it would refuse"},
         {"--fast-commit", nullptr, "as mke2fs -O fast_commit"},
         {"--journal-size", "MIB", "mke2fs -J size=MIB (0: its table); refused outside 1024 to 10240000 blocks"},
         {"--e2fsck-recreate", nullptr, "the journal e2fsck -fy makes in place of a lost one, not mke2fs's"},
         {"--old-journal", "SIZE",
          "with --e2fsck-recreate: the lost journal's size in the superblock's backup (none when not "
          "given)"},
         {"--mkfs-command", nullptr,
          "add a mkfs_command column: the mkfs.xfs or mke2fs command line that makes each answer on the "
          "target (DEVICE with --size)"},
         {"--format", "FORMAT", "text (default), csv or json"}},
        argc, argv);
}

// The device and mkfs.xfs's geometry options, with their conflicts, in the order mkfs checks them.
void read_geometry_options(const args& a, logsize_request& req) {
    std::optional<path_geometry>& read = req.read;
    std::optional<bytes>& size = req.size;
    fs_geometry_options& o = req.o;
    if (const auto path = a.value("--path")) read = read_path_geometry(*path);
    size = mkfs_size_option(a, "--size");
    if (!size && !read) throw usage_error("--size or --path is required (see provpol logsize --help)");
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
}

// mke2fs's journal and e2fsck's recreated one.
void read_journal_options(const args& a, fs_geometry_options& o) {
    if (a.has("--journal-size") && a.has("--e2fsck-recreate"))
        throw usage_error("--journal-size cannot be given with --e2fsck-recreate (mke2fs's option, not e2fsck's)");
    if (a.has("--old-journal") && !a.has("--e2fsck-recreate"))
        throw usage_error("--old-journal is used only with --e2fsck-recreate");
    o.journal_size_mib =
        a.has("--journal-size") ? static_cast<std::int64_t>(*a.count("--journal-size", 0, 0x7fffffff)) : -1;
    o.e2fsck_recreate = a.has("--e2fsck-recreate");
    if (o.e2fsck_recreate && a.has("--mkfs-command"))
        throw usage_error("--mkfs-command prints mkfs command lines; --e2fsck-recreate answers for e2fsck -fy");
    if (const auto old = a.size("--old-journal")) {
        if (old->count() >= (std::uint64_t{1} << 51))
            throw usage_error("--old-journal must be under 2PiB, got " + std::to_string(old->count()));
        o.old_journal_bytes = static_cast<std::int64_t>(old->count());
    }
}

// The zero sizes refused, and a block device's stripe as mkfs reads it.
void read_stripe(const args& a, logsize_request& r) {
    fs_geometry_options& o = r.o;
    topology_stripe& stripe = r.stripe;
    device_topology& topo = r.topo;
    const std::optional<path_geometry>& read = r.read;
    if (a.has("--agsize") && o.agsize.count() == 0) throw usage_error("--agsize must not be 0");
    if (a.has("--su") && o.stripe_unit.count() == 0) throw usage_error("--su must not be 0");
    if (a.has("--log-su") && o.log_stripe_unit.count() == 0) throw usage_error("--log-su must not be 0");
    // A block device's stripe as mkfs reads it from the topology (minimum / optimal I/O); --su/--sw override it.
    if (read && read->block) {
        topo = device_topology{read->min_io, read->opt_io, read->physical};
        if (!a.has("--su") && !a.has("--sw")) {
            stripe = xfs_stripe_from_topology(topo, o.device_size, o.block_size);
            o.stripe_unit = stripe.stripe_unit;
            o.stripe_width = stripe.stripe_width;
        }
    }
}

// The presets asked for (all of them by default), and every option given that none of them reads refused.
std::vector<row_preset> read_presets(const args& a) {
    std::vector<row_preset> presets;
    for (const std::string& name : a.values("--preset")) presets.push_back(resolve_preset(name));
    if (presets.empty())
        for (log_preset p : all_log_presets) presets.push_back({p, to_text(p), false});
    // No option is quietly ignored: one that none of the presets asked for reads is an error.
    bool any_xfs = false, any_ext4 = false;
    for (const row_preset& p : presets) (p.rules == log_preset::e2fsprogs_1_47 ? any_ext4 : any_xfs) = true;
    if (a.has("--fast-commit") && !any_ext4)
        throw usage_error("--fast-commit is mke2fs's (-O fast_commit): add --preset e2fsprogs-1.47");
    if (a.has("--journal-size") && !any_ext4)
        throw usage_error("--journal-size is mke2fs's (-J size): add --preset e2fsprogs-1.47");
    for (const char* e2fsck_only : {"--e2fsck-recreate", "--old-journal"})
        if (a.has(e2fsck_only) && !any_ext4)
            throw usage_error(std::string(e2fsck_only) + " is e2fsck's: add --preset e2fsprogs-1.47");
    // --rotational and --cpus size the log and the AGs for concurrency from mkfs.xfs 6.8 (the xfsprogs-6.13 and
    // xfsprogs-7.2 rules); an older release does not read them.
    bool any_concurrency = false;
    for (const row_preset& p : presets)
        any_concurrency =
            any_concurrency || p.rules == log_preset::xfsprogs_6_13 || p.rules == log_preset::xfsprogs_7_2;
    if (any_xfs && !any_concurrency)
        for (const char* modern_only : {"--rotational", "--cpus"})
            if (a.has(modern_only))
                throw usage_error(std::string(modern_only) +
                                  " is read by mkfs.xfs 6.8 and later (log and AG concurrency on a non-rotational "
                                  "device): none of the presets asked for reads it (add --preset xfsprogs-6.13 or "
                                  "xfsprogs-7.2)");
    if (!any_xfs)
        for (const char* xfs_only :
             {"--agcount", "--agsize", "--su", "--sw", "--log-su", "--features", "--log-concurrency",
              "--data-concurrency", "--rotational", "--cpus", "--min-log-blocks", "--unsupported"})
            if (a.has(xfs_only))
                throw usage_error(std::string(xfs_only) +
                                  " is mkfs.xfs's: e2fsprogs-1.47 does not read it (add an xfsprogs "
                                  "--preset)");

    return presets;
}

// One preset's answer as a row of the table (log, AGs, stripe, the reason, and the mkfs command when asked).
std::vector<cell> logsize_row(const args& a, const logsize_request& r, const result<fs_geometry>& g,
                              const row_preset& p, bool commands, const std::string& target) {
    const fs_geometry_options& o = r.o;
    const std::optional<path_geometry>& read = r.read;
    const std::optional<bytes>& size = r.size;
    const device_topology& topo = r.topo;
    // A release whose feature defaults differ from its rule set's preset decides on its own geometry.
    fs_geometry_options ro = o;
    if (p.rmapbt_nrext64) {
        if (!ro.features.rmapbt.given()) ro.features.rmapbt = true;
        if (!ro.features.nrext64.given()) ro.features.nrext64 = true;
    }
    const result<fs_geometry> rg = p.rmapbt_nrext64 ? fs_geometry::make(ro) : g;
    if (!rg) fail(rg.error(), flag_of(rg.error().setting()));
    const log_size_decision d = decide_log_size(p.rules, *rg);
    const bool xfs = p.rules != log_preset::e2fsprogs_1_47;
    // Errors in the layout (no AG geometry) leave nothing to report about the log.
    const bool no_log = is_hard(d.reason) && d.log_blocks == 0;
    const bool ag = xfs && d.agcount != 0;
    // supported: the tool makes this filesystem as it is; made: it makes it with the flags given (a soft
    // refusal overridden by --unsupported is made but not supported, and its reason stays).
    const bool soft_refusal = d.reason != log_reason::none && d.reason != log_reason::no_journal && !is_hard(d.reason);
    const bool supported = d.supported && !soft_refusal;
    // The stripe: XFS's data stripe in blocks; ext4's stride and stripe width from the topology read.
    const e2fsprogs_stride ext =
        read && read->block ? e2fsprogs_stride_from_topology(topo, d.block_size) : e2fsprogs_stride{};
    // (mkfs.xfs's dsunit and dswidth: the stripe unit, a multiple of the block size, and the width in blocks)
    const std::uint64_t block = d.block_size == 0 ? 1 : d.block_size;
    const std::uint64_t sunit = xfs ? rg->options().stripe_unit.count() / block : ext.stride;
    const std::uint64_t swidth =
        xfs ? rg->options().stripe_unit.count() * rg->options().stripe_width / block : ext.stripe_width;
    std::vector<cell> row = {cell::of_text(p.name),
                             cell::of(d.block_size),
                             cell::of(d.data_blocks),
                             ag ? cell::of(d.agcount) : cell(),
                             ag ? cell::of(d.agsize_blocks) : cell(),
                             no_log ? cell() : cell::of(d.log_blocks),
                             xfs && !no_log ? cell::of(d.log_sunit_blocks) : cell(),
                             cell::of_flag(supported),
                             cell::of_flag(d.supported),
                             d.reason == log_reason::none ? cell() : cell::of_text(to_text(d.reason)),
                             xfs ? cell() : cell::of(d.fast_commit_blocks),
                             no_log ? cell() : cell::of_size(d.log_size()),
                             no_log ? cell() : cell::of_text(to_text(d.decided_by)),
                             xfs && !no_log ? cell::of(d.min_log_blocks) : cell(),
                             xfs && !no_log ? cell::of_text(d.min_log_computed ? "computed" : "given") : cell(),
                             xfs && !no_log ? cell::of(d.max_tx_bytes) : cell(),
                             xfs && !no_log ? cell::of(d.log_concurrency) : cell(),
                             xfs ? cell::of(rg->options().sector_size) : cell(),
                             cell::of(sunit),
                             cell::of(swidth)};
    if (commands)
        row.push_back(cell::of_text(
            xfs ? mkfs_xfs_command(a, ro, d, size.has_value(),
                                   p.rules == log_preset::xfs_ratio_256 || p.rules == log_preset::xfs_floor_32m, target)
                : mke2fs_command(o, d, ext, size.has_value(), target)));
    return row;
}

// The text form's first line when --path was read: what was read, and whether options override it.
void print_path_line(const args& a, const logsize_request& r) {
    const std::optional<path_geometry>& read = r.read;
    const std::optional<bytes>& size = r.size;
    const topology_stripe& stripe = r.stripe;
    if (read)
        std::printf(
            "# read from %s (%s): size %llu, sectors %u logical / %u physical, I/O %u minimum / %u optimal, "
            "%s, %u online CPUs; %s%s\n",
            args::visible(*a.value("--path")).c_str(), read->block ? "block device" : "image file",
            static_cast<unsigned long long>(read->size), read->logical, read->physical, read->min_io, read->opt_io,
            read->rotational < 0    ? "an image (not known to be solid state)"
            : read->rotational == 0 ? "rotational 0"
                                    : "rotational 1",
            read->cpus, stripe_text(stripe, a.has("--su") || a.has("--sw")).c_str(),
            size || a.has("--sector-size") || a.has("--rotational") || a.has("--cpus") || a.has("--su")
                ? "; options given override it"
                : "");
}

}  // namespace

int run_logsize(int argc, char** argv) {
    const args a = logsize_args(argc, argv);
    const format out = a.output_format();
    // Validate everything before printing anything.
    logsize_request r;
    read_geometry_options(a, r);
    read_journal_options(a, r.o);
    read_stripe(a, r);
    const result<fs_geometry> g = fs_geometry::make(r.o);
    if (!g) fail(g.error(), flag_of(g.error().setting()));
    r.presets = read_presets(a);

    const bool commands = a.has("--mkfs-command");
    std::vector<std::string> columns = {
        "preset",           "block_size",     "data_blocks",    "agcount",      "agsize_blocks",      "log_blocks",
        "log_sunit_blocks", "supported",      "made",           "reason",       "fast_commit_blocks", "log_size",
        "decided_by",       "min_log_blocks", "min_log_source", "max_tx_bytes", "log_concurrency",    "sector_size",
        "sunit_blocks",     "swidth_blocks"};
    if (commands) columns.push_back("mkfs_command");
    table t(columns);
    const std::string target = r.read ? *a.value("--path") : std::string("DEVICE");
    for (const row_preset& p : r.presets) t.add_row(logsize_row(a, r, g, p, commands, target));
    if (out == format::text) print_path_line(a, r);
    t.print(stdout, out);
    return 0;
}

}  // namespace provpol::cli
