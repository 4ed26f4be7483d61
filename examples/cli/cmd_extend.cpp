// provpol extend: every thin-volume extend decision VDSM (or LVM thin-pool autoextend) takes for a drive, for
// one drive given on the command line, for every row of a CSV file, or as the extend sequence of a disk that
// the guest fills.
#include "commands.hpp"
#include "common/cli.hpp"
#include "common/config_input.hpp"
#include "common/csv.hpp"
#include "common/json.hpp"
#include "common/preset_option.hpp"
#include "common/table.hpp"
#include "lvm_extend.hpp"
#include "thin_extend.hpp"

#include <provpol/extend.hpp>
#include <provpol/extend/vdsm_sizes.hpp>
#include <provpol/parse.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace provpol::cli {

namespace {

const char* const usage =
    "provpol extend [--preset vdsm-2022|vdsm-legacy] [--chunk SIZE --percent N | --config FILE] [--extent SIZE]\n"
    "                      [--replicating] [--threshold-exceeded] [--drive-type TYPE] [--replica-type TYPE]\n"
    "                      (--capacity SIZE --physical SIZE --allocation SIZE | --input FILE.csv |\n"
    "                       --capacity SIZE --sequence [--max-steps N])\n"
    "       provpol extend --preset lvm-thin-autoextend|lvm-thin-default|lvm-vdo-autoextend|lvm-snapshot-autoextend\n"
    "                      [--threshold N --extend-percent N | --config FILE] [--extent SIZE] [--pool-chunk SIZE]\n"
    "                      [--lvs FILE [--lvs-pool VG/POOL]]\n"
    "                      [--capacity SIZE | --vg-free SIZE] [--metadata-size SIZE --metadata-used SIZE]\n"
    "                      [--cow-max SIZE] [--vdo-slab SIZE]\n"
    "                      (--physical SIZE (--allocation SIZE | --used-blocks N [--total-blocks N]) | --input "
    "FILE.csv |\n"
    "                       --physical SIZE --sequence [--max-steps N])\n"
    "       provpol extend --preset docker-devicemapper ... (as the LVM presets: lvm2 with Docker's profile)\n"
    "       provpol extend --preset stratis-data|stratis-3.3-data --physical SIZE (--allocation SIZE | --used-blocks "
    "N)\n"
    "                      [--backstore-free SIZE] [--error-if-no-space]\n"
    "       provpol extend --preset stratis-metadata|stratis-3.7-metadata --metadata-size SIZE --metadata-used SIZE\n"
    "                      --metadata-low-water N [--backstore-free SIZE] [--data-tier SIZE]\n"
    "       provpol extend --preset stratis-filesystem|stratis-3.1-filesystem --physical SIZE --allocation SIZE\n"
    "                      [--fs-size SIZE] [--size-limit SIZE]\n"
    "       provpol extend --preset stratis-3.0-data --physical SIZE (--allocation SIZE | --used-blocks N)\n"
    "                      --backstore-free SIZE\n"
    "       provpol extend --preset stratis-3.0-metadata --metadata-size SIZE --data-tier SIZE [--backstore-free "
    "SIZE]\n"
    "       provpol extend --preset stratis-3.0-filesystem --physical SIZE --allocation SIZE [--fs-size SIZE]\n"
    "       provpol extend --preset xenserver-thin-lvhd --physical SIZE [--quantum SIZE]\n"
    "                      [--capacity SIZE [--initial-allocation SIZE]]\n"
    "                      [--format text|csv|json]";

// The CSV columns, in the order the issue fixes (sizes in bytes, flags 0/1).
const char* const columns[] = {"capacity",
                               "physical",
                               "allocation",
                               "chunk",
                               "limit",
                               "block_threshold",
                               "needs_extend",
                               "improbable_allocation",
                               "max_size",
                               "can_extend",
                               "next_size",
                               "lv_size_after_extend",
                               "next_block_threshold",
                               "max_size_storage",
                               "initial_size",
                               "action"};

// The text table's width of column i: its name, or the widest value it takes (a size like "1023.999GiB").
int text_width(std::size_t i) {
    const int name = static_cast<int>(std::char_traits<char>::length(columns[i]));
    const bool flag = i == 6 || i == 7 || i == 9;
    const int value = i == 15 ? 16 : (flag ? 3 : 12);
    return name > value ? name : value;
}

// Appends one row of a decision in CSV, JSON or text form to `out` (streaming: a million rows need no table).
class row_writer {
public:
    row_writer(format f, std::string& out) : f_(f), out_(out), csv_(out), json_(out) {}

    void begin() {
        if (f_ == format::csv) {
            for (const char* c : columns) csv_.field(c);
            csv_.end_row();
        } else if (f_ == format::json) {
            json_.begin_array();
        } else {
            // The same column names as CSV and JSON.
            for (std::size_t i = 0; i < std::size(columns); ++i) cell_text(i, columns[i]);
            out_ += '\n';
        }
    }

    void row(const drive_state& s, const extend_decision& d) {
        const std::uint64_t v[] = {s.capacity.count(),
                                   s.physical.count(),
                                   s.allocation.count(),
                                   d.chunk.count(),
                                   d.limit.count(),
                                   d.block_threshold.count(),
                                   d.needs_extend,
                                   d.improbable_allocation,
                                   d.max_size.count(),
                                   d.can_extend,
                                   d.next_size.count(),
                                   d.lv_size_after_extend.count(),
                                   d.next_block_threshold.count(),
                                   d.max_size_storage.count(),
                                   d.initial_size.count()};
        if (f_ == format::csv) {
            for (std::uint64_t x : v) csv_.field(x);
            csv_.field(to_text(d.action));
            csv_.end_row();
        } else if (f_ == format::json) {
            json_.begin_object();
            for (std::size_t i = 0; i < std::size(v); ++i) {
                json_.key(columns[i]);
                const bool flag = i == 6 || i == 7 || i == 9;
                if (flag)
                    json_.boolean(v[i] != 0);
                else
                    json_.number(v[i]);
            }
            json_.key("action");
            json_.string(to_text(d.action));
            json_.end_object();
        } else {
            for (std::size_t i = 0; i < std::size(v); ++i) {
                const bool flag = i == 6 || i == 7 || i == 9;
                cell_text(i, flag ? std::string(v[i] ? "yes" : "no") : std::string(format_size(bytes(v[i])).view()));
            }
            cell_text(15, to_text(d.action));
            out_ += '\n';
        }
    }

    void end() {
        if (f_ == format::json) json_.end_array();
    }

private:
    // One right-aligned cell of the text table, with the space before it.
    void cell_text(std::size_t i, const std::string& text) {
        if (i > 0) out_ += ' ';
        const int w = text_width(i);
        if (static_cast<int>(text.size()) < w) out_.append(static_cast<std::size_t>(w) - text.size(), ' ');
        out_ += text;
    }

public:
private:
    format f_;
    std::string& out_;
    csv_writer csv_;
    json_writer json_;
};

// One drive given on the command line: a vertical "name value" list in text, one row in CSV and JSON.
template <class Policy>
std::string decide_one(const Policy& policy, const drive_state& s, format f) {
    const extend_decision d = policy.decide(s);
    if (f != format::text) {
        std::string out;
        row_writer w(f, out);
        w.begin();
        w.row(s, d);
        w.end();
        return out;
    }
    table t({"setting", "value"});
    auto add = [&](const char* name, cell c) { t.add_row({cell::of_text(name), std::move(c)}); };
    add("capacity", cell::of_size(s.capacity));
    add("physical", cell::of_size(s.physical));
    add("allocation", cell::of_size(s.allocation));
    add("chunk", cell::of_size(d.chunk));
    add("limit", cell::of_size(d.limit));
    // The bytes libvirt's setBlockThreshold takes, and the short form when there is one (not the same number twice).
    const std::string threshold_bytes = std::to_string(d.block_threshold.count());
    const std::string threshold_size(format_size(d.block_threshold).view());
    add("block_threshold",
        cell::of_text(threshold_size == threshold_bytes ? threshold_bytes
                                                        : threshold_bytes + " (" + threshold_size + ")"));
    add("needs_extend", cell::of_flag(d.needs_extend));
    add("improbable_allocation", cell::of_flag(d.improbable_allocation));
    add("max_size", cell::of_size(d.max_size));
    add("can_extend", cell::of_flag(d.can_extend));
    add("next_size", cell::of_size(d.next_size));
    add("lv_size_after_extend", cell::of_size(d.lv_size_after_extend));
    add("next_block_threshold", cell::of_size(d.next_block_threshold));
    add("max_size_storage", cell::of_size(d.max_size_storage));
    add("initial_size", cell::of_size(d.initial_size));
    add("action", cell::of_text(to_text(d.action)));
    std::string out;
    for (const auto& row : t.rows()) {
        char line[256];
        std::snprintf(line, sizeof line, "%-22s %s\n", row[0].display().c_str(), row[1].display().c_str());
        out += line;
    }
    return out;
}

// Every row of a CSV file with columns capacity, physical, allocation (bytes; other columns are ignored).
template <class Policy>
std::string decide_file(const Policy& policy, const std::string& path, bool replicating, bool exceeded, format f) {
    csv_reader in(path, "--input");
    const std::size_t c_cap = in.column("capacity"), c_phys = in.column("physical"), c_alloc = in.column("allocation");
    std::string out;
    row_writer w(f, out);
    w.begin();
    while (in.next()) {
        drive_state s{drive_capacity(in.size(c_cap)), drive_physical(in.size(c_phys)),
                      drive_allocation(in.size(c_alloc))};
        s.replicating = replicating;
        s.threshold_exceeded = exceeded;
        w.row(s, policy.decide(s));
    }
    w.end();
    return out;
}

// The extend sequence of a new disk that the guest keeps filling: initial size, each extend, the maximum; at
// most `max_steps` rows. `cut` says whether it stopped there before the maximum, and at what size.
template <class Policy>
std::string sequence(const Policy& policy, bytes capacity, bytes start, bool replicating, std::uint64_t max_steps,
                     format f, sequence_cut& cut) {
    table t({"step", "physical", "block_threshold", "next_size", "lv_size_after_extend", "action"});
    bytes lv = start, maximum = start;
    // The guest fills the LV, up to the most it can write: an LV rounded up past the maximum holds more than the
    // disk can (an allocation above the maximum is improbable, and VDSM pauses the VM).
    const bytes fillable = policy.limits().max_size(capacity);
    for (std::uint64_t step = 0; step < max_steps; ++step) {
        drive_state s{drive_capacity(capacity), drive_physical(lv), drive_allocation(min(lv, fillable))};
        s.replicating = replicating;
        const extend_decision d = policy.decide(s);
        t.add_row({cell::of(step), cell::of_size(lv), cell::of_size(d.block_threshold),
                   d.action == extend_action::extend ? cell::of_size(d.next_size) : cell(),
                   d.action == extend_action::extend ? cell::of_size(d.lv_size_after_extend) : cell(),
                   cell::of_text(to_text(d.action))});
        if (d.action != extend_action::extend || d.lv_size_after_extend <= lv) return t.str(f);
        lv = d.lv_size_after_extend;
        maximum = d.max_size;
    }
    cut = {true, lv, maximum};  // every row was an extend: the maximum is further on
    return t.str(f);
}

// An LVM volume's inputs: sizes as lvm_size_option reads them, --allocation and --metadata-used also as lvs's
// Data% and Meta% (lvm_used_option: in the pool's chunks and dm-thin's 4 KiB metadata blocks).
lvm_extend_inputs lvm_inputs_of(const args& a, const lvm_autoextend_config& c, const std::optional<lvs_pool>& lvs) {
    lvm_extend_inputs in;
    if (lvs) {  // the pool as lvs reports it: Data% and Meta% read as lvm_used_option reads a percent
        in.physical = lvs->size;
        in.vg_free = lvs->vg_free;
        if (lvs->active) {
            in.allocation = lvs_fill(lvs->data_percent, lvs->size, c.pool_chunk());
            in.metadata_size = lvs->metadata_size;
            in.metadata_used = lvs_fill(lvs->metadata_percent, lvs->metadata_size, bytes(4096));
            return in;
        }
        // An inactive pool: its usage is --allocation's (and --metadata-used's), as lvs would show it once active.
        in.allocation = lvm_used_option(a, "--allocation", lvs->size, "the --lvs pool's lv_size", c.pool_chunk());
        if (a.has("--metadata-used")) {
            in.metadata_size = lvs->metadata_size;
            in.metadata_used = lvm_used_option(a, "--metadata-used", lvs->metadata_size,
                                               "the --lvs pool's lv_metadata_size", bytes(4096));
        }
        return in;
    }
    in.capacity = lvm_size_option(a, "--capacity");
    in.physical = lvm_size_option(a, "--physical");
    in.allocation = lvm_used_option(a, "--allocation", in.physical, "--physical", c.pool_chunk());
    in.vg_free = lvm_size_option(a, "--vg-free");
    in.metadata_size = lvm_size_option(a, "--metadata-size");
    in.metadata_used = lvm_used_option(a, "--metadata-used", in.metadata_size, "--metadata-size", bytes(4096));
    in.cow_max = lvm_size_option(a, "--cow-max");
    return in;
}

// What every extend preset reads first, before its own options: the output format, the preset, the VDSM drive's
// copy and event flags (refused by LVM), and the mode (--input, --sequence and its --max-steps).
struct extend_mode {
    format f = format::text;
    extend_preset preset = extend_preset::vdsm_2022;
    bool replicating = false;
    bool exceeded = false;
    std::optional<std::string> input;
    bool seq = false;
    std::uint64_t max_steps = default_sequence_steps;
};

// A VDSM drive's sizes, read before the mode's options so that the first error is the one it always was.
struct drive_sizes {
    std::optional<bytes> capacity, physical, allocation;
};

// long: the command's option table, one entry per option (its help is the man page's)
args extend_args(int argc, char** argv) {
    return args(
        "extend", usage,
        {{"--preset", "NAME", std::string(extend_preset_names.c_str()) + " (default vdsm-2022)"},
         {"--chunk", "SIZE",
          "volume_utilization_chunk_mb as a size (whole MiB), overrides the preset's (default 2560MiB; with "
          "--preset vdsm-legacy, default 1GiB)"},
         {"--percent", "N",
          "volume_utilization_percent, 0-99, overrides the preset's (default 20; with --preset vdsm-legacy, default "
          "50)"},
         {"--config", "FILE",
          "the VDSM configuration in FILE (- for stdin), instead of --chunk and --percent: provpol recommend's "
          "answer in any --format, or VDSM's own files, repeated as configparser reads them for vdsmd (vdsm.conf, "
          "then its vdsm.conf.d drop-ins in order: later files win, a key no file sets is the preset's VDSM "
          "default), or a directory read as vdsmd reads /etc/vdsm; stderr says which file set each value and "
          "names a key VDSM does not have; with an LVM preset, lvm.conf files or lvmconfig's output, "
          "instead of --threshold and --extend-percent (activation/*_autoextend_threshold and _percent, later "
          "files win)",
          true},
         {"--lvm-version", "VERSION",
          "LVM, with --config: the lvm2 whose built-in defaults fill the keys no file sets (the one lvm "
          "version names here by default, else 2.03.31)"},
         {"--extent", "SIZE", "LVM extent size (default 128MiB; with --preset lvm-thin-autoextend, default 4MiB)"},
         {"--threshold", "N",
          "LVM: the preset's *_autoextend_threshold as lvm.conf has it: under 50 acts as 50, 100 or more disables "
          "(lvm-thin-default 100, the others 70); with --preset docker-devicemapper, dm.thinp_autoextend_threshold "
          "as dockerd reads it: 0-100, 0 meaning Docker's 80"},
         {"--extend-percent", "N",
          "LVM: *_autoextend_percent, 0-1000000, 0 making every extend fail (with --preset lvm-thin-autoextend, "
          "default 20); with --preset docker-devicemapper, dm.thinp_autoextend_percent: 0-100, 0 meaning Docker's 20"},
         {"--pool-chunk", "SIZE",
          "LVM: the thin pool's chunk, a multiple of 64KiB up to 1GiB (with --preset lvm-thin-autoextend, default "
          "64KiB)"},
         {"--vg-free", "SIZE", "LVM: free space in the volume group (unlimited when neither this nor --capacity)"},
         {"--lvs", "FILE",
          "LVM thin pools: the pool as lvs reports it (- for stdin; run lvs --reportformat json --units b --nosuffix "
          "-o +lv_metadata_size,chunk_size,vg_free,vg_extent_size VG/POOL), instead of --physical, --allocation, "
          "--vg-free, --metadata-size, --metadata-used, --pool-chunk and --extent; an inactive pool (no Data%) "
          "needs --allocation (and --metadata-used)"},
         {"--lvs-pool", "VG/POOL", "the thin pool of the --lvs report, needed when it has several"},
         {"--used-blocks", "N", "LVM: used data blocks as dmsetup status reports them (instead of --allocation)"},
         {"--total-blocks", "N", "LVM: total data blocks (default --physical / --pool-chunk)"},
         {"--metadata-size", "SIZE", "LVM thin pools: the metadata LV's size, to decide its autoextend too"},
         {"--metadata-used", "SIZE",
          "LVM thin pools: metadata in use (4 KiB blocks), a size or a percent of --metadata-size as lvs shows Meta%"},
         {"--cow-max", "SIZE", "LVM snapshots: the largest useful COW size"},
         {"--vdo-slab", "SIZE", "LVM VDO pools: the slab size (with --preset lvm-vdo-autoextend, default 2GiB)"},
         {"--replicating", nullptr, "the drive is being copied (live storage migration): chunk doubled"},
         {"--threshold-exceeded", nullptr, "a block-threshold event arrived: extend regardless of allocation"},
         {"--drive-type", "TYPE",
          "VDSM: the drive's storage, block-cow, block-raw, file or network; only block-cow is chunked (default "
          "block-cow)"},
         {"--replica-type", "TYPE",
          "VDSM: the drive is being copied to a replica on block-cow, block-raw or file storage (implies "
          "--replicating); a drive that is not chunked copying to block-cow is decided on the replica's LV, so "
          "--physical is the replica's"},
         {"--capacity", "SIZE",
          "virtual size of the drive (qcow2 virtual size; for LVM, the most the pool may grow to: its size plus "
          "the VG's free space; for XenServer, a new VDI's size, raised to 2MiB and rounded up to 2MiB as sm does, "
          "refused above 2093051 whole MiB)"},
         {"--physical", "SIZE", "size of the logical volume now (for LVM, the pool's data LV)"},
         {"--allocation", "SIZE",
          "highest written offset (libvirt allocation); for LVM, the data in the pool, a size or a percent of "
          "--physical as lvs shows Data% (e.g. 95%: the most whole chunks lvm2 reads as at most 95%); on LVM presets a "
          "number without a unit is refused (70B is bytes)"},
         {"--input", "FILE.csv", "decide every row of a CSV with columns capacity,physical,allocation (bytes)"},
         {"--sequence", nullptr, "show the extend sequence of a new disk of --capacity that the guest fills"},
         {"--max-steps", "N",
          "the most rows --sequence prints, 1-1000000 (with --sequence, default 100000); a sequence cut short "
          "before the maximum says so on stderr and exits 3"},
         {"--backstore-free", "SIZE",
          "Stratis: the backstore's unallocated space, what an extend can take (unlimited when not given; required "
          "by stratis-3.0-data, whose every check takes all of it)"},
         {"--data-tier", "SIZE",
          "Stratis metadata: the data tier's usable size, the most it doubles to (unlimited when not given); with "
          "stratis-3.0-metadata, required: the metadata is kept at 1/1000 of it"},
         {"--metadata-low-water", "N",
          "Stratis metadata: the pool status's metadata low-water mark, in 4 KiB blocks (the metadata doubles when "
          "fewer blocks are free)"},
         {"--error-if-no-space", nullptr,
          "Stratis data (3.1 and later): the pool is already in error_if_no_space (not extended)"},
         {"--size-limit", "SIZE",
          "Stratis filesystems (3.1 and later; stratisd has limits from 3.6.0): the filesystem's size limit (none "
          "when not given)"},
         {"--fs-size", "SIZE", "Stratis filesystems: its size as statvfs reports it (--physical when not given)"},
         {"--quantum", "SIZE",
          "XenServer: the SR's allocation_quantum in sm-config (0.01% of --physical when not given; clamped to "
          "0.002%-0.025%, at least 16MiB)"},
         {"--initial-allocation", "SIZE", "XenServer: the SR's initial_allocation for a new VDI (0 when not given)"},
         {"--format", "FORMAT", "text (default), csv or json"}},
        argc, argv);
}

// An LVM preset: its options, read as lvm writes them (lvm_inputs_of), one decision, a file or a sequence.
int extend_lvm(const args& a, const extend_mode& m) {
    const format f = m.f;
    const extend_preset preset = m.preset;
    const bool replicating = m.replicating, exceeded = m.exceeded;
    const std::optional<std::string>& input = m.input;
    const bool seq = m.seq;
    const std::uint64_t max_steps = m.max_steps;
    sequence_cut cut;
    if (a.has("--chunk") || a.has("--percent"))
        throw usage_error(
            "--chunk and --percent belong to the VDSM presets; LVM uses --threshold and --extend-percent (or "
            "--config lvm.conf)");
    if (input && *input == "-" && lvm_reads_stdin(a, "--config"))
        throw usage_error("--config - and --input - both read stdin: give one of them a file");
    if (replicating) throw usage_error("--replicating applies to VDSM drives, not LVM");
    if (exceeded) throw usage_error("--threshold-exceeded applies to VDSM drives: LVM decides from usage alone");
    for (const char* o : {"--drive-type", "--replica-type"})
        if (a.has(o)) throw usage_error(std::string(o) + " applies to VDSM drives, not LVM");
    if (a.has("--vg-free") && a.has("--capacity")) throw usage_error("give --capacity or --vg-free, not both");
    const std::optional<lvs_pool> lvs =
        lvs_option(a,
                   {"--physical", "--capacity", "--vg-free", "--metadata-size", "--pool-chunk", "--extent",
                    "--used-blocks", "--total-blocks", "--input"},
                   {"--allocation", "--metadata-used"});
    const lvm_autoextend_config c = lvm_config_from(a, preset, lvs ? &*lvs : nullptr);
    lvm_extend_inputs in = lvm_inputs_of(a, c, lvs);
    in.used_blocks = a.count("--used-blocks", 0, ~std::uint64_t{0});
    in.total_blocks = a.count("--total-blocks", 1, ~std::uint64_t{0});
    in.input = input;
    in.sequence = seq;
    in.max_steps = max_steps;
    const int lvm_modes = (input ? 1 : 0) + (seq ? 1 : 0) + ((in.allocation || in.used_blocks) ? 1 : 0);
    if (lvm_modes != 1)
        throw usage_error(
            "give --physical with --allocation (or --used-blocks), or --input FILE.csv, or --physical with "
            "--sequence");
    if (seq && !in.physical)
        throw usage_error(
            "--sequence with an LVM preset needs --physical, the pool's size now (a pool is created at its "
            "full size, so it would start at --capacity, its maximum)");
    if (!input && !in.physical) throw usage_error("an LVM decision needs --physical, the volume's size now");
    if (input && (in.physical || in.capacity))
        throw usage_error("--input takes sizes from the file: drop --physical and --capacity");
    if (in.allocation && in.used_blocks) throw usage_error("give --allocation or --used-blocks, not both");
    if (in.metadata_used && !in.metadata_size) throw usage_error("--metadata-used needs --metadata-size");
    if (in.metadata_size && c.kind() != lvm_volume_kind::thin_pool)
        throw usage_error("--metadata-size applies to thin pools");
    if (in.cow_max && c.kind() != lvm_volume_kind::snapshot)
        throw usage_error("--cow-max applies to --preset lvm-snapshot-autoextend");
    warn_lvm_clamp(c);
    const std::string out = run_lvm_extend(c, in, f, cut);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return sequence_status(cut, max_steps);
}

// A VDSM preset's configuration: the preset's, or --config's files, with --chunk, --percent and --extent over it.
vdsm_config extend_vdsm_config(const args& a, const extend_mode& m) {
    const extend_preset preset = m.preset;
    const std::optional<std::string>& input = m.input;
    vdsm_config base = vdsm_config_of(preset).value();
    if (const std::vector<std::string> paths = a.values("--config", false); !paths.empty()) {
        if (a.has("--chunk") || a.has("--percent"))
            throw usage_error("give --config or --chunk and --percent, not both");
        if (input && *input == "-" && std::find(paths.begin(), paths.end(), "-") != paths.end())
            throw usage_error("--config - and --input - both read stdin: give one of them a file");
        const config_reading read = read_config_files(
            paths, "--config", preset == extend_preset::vdsm_legacy ? vdsm_legacy_defaults : vdsm_4_50_defaults);
        if (read.entries.size() != 1)
            throw usage_error("--config: " + std::to_string(read.entries.size()) +
                              " configurations in the file; extend decides with one (recommend "
                              "--max-pauses-per-run prints two rows: keep the one you deploy)");
        base = read.entries.front().config;
        for (const std::string& n : read.notes) warn("provpol extend: --config: " + n);
        if (!read.sources.empty()) warn("provpol extend: --config: " + read.sources);
    }
    const bytes chunk = a.size_at_least("--chunk", bytes(std::uint64_t{1} << 20), "MiB").value_or(base.chunk());
    const std::uint64_t percent = a.count("--percent", 0, 99).value_or(base.percent());
    const bytes extent = a.size("--extent").value_or(base.extent());
    const auto cfg = vdsm_config::make(chunk, percent, lvm_extent_size(extent));
    if (!cfg) {
        const auto& e = cfg.error();
        const char* opt = e.setting() == text_view("extent_size") ? "--extent" : "--chunk";
        fail(e, opt);
    }
    return *cfg;
}

// A VDSM preset: the drive's type and replica, the configuration (--config or --chunk and --percent), then one
// decision, a file or a sequence.
int extend_vdsm(const args& a, const extend_mode& m, const drive_sizes& d) {
    const format f = m.f;
    const bool replicating = m.replicating, exceeded = m.exceeded;
    const std::optional<std::string>& input = m.input;
    const bool seq = m.seq;
    const std::uint64_t max_steps = m.max_steps;
    const std::optional<bytes>& capacity = d.capacity;
    const std::optional<bytes>& physical = d.physical;
    const std::optional<bytes>& allocation = d.allocation;
    sequence_cut cut;
    static const char* const lvm_only[] = {"--pool-chunk",    "--vg-free",        "--used-blocks", "--total-blocks",
                                           "--metadata-size", "--metadata-used",  "--cow-max",     "--vdo-slab",
                                           "--threshold",     "--extend-percent", "--lvs",         "--lvs-pool",
                                           "--lvm-version"};
    for (const char* o : lvm_only)
        if (a.has(o))
            throw usage_error(std::string(o) + " belongs to the LVM presets (--preset lvm-thin-autoextend, ...)");

    // --sequence may start from --physical (an LVM thin pool's created size); a drive needs --allocation too.
    const int modes = (input ? 1 : 0) + (seq ? 1 : 0) + ((allocation || (physical && !seq)) ? 1 : 0);
    if (modes != 1 && !(modes == 0 && capacity))
        throw usage_error(
            "give --capacity, --physical and --allocation, or --input FILE.csv, or --capacity with --sequence");
    if (modes == 0)
        throw usage_error("--capacity alone decides nothing: add --physical and --allocation, or --sequence");
    if (input && capacity) throw usage_error("--input takes sizes from the file: drop --capacity");
    if (!seq && (physical || allocation) && (!capacity || !physical || !allocation))
        throw usage_error("a single drive needs all of --capacity, --physical and --allocation");
    if (seq && !capacity) throw usage_error("--sequence needs --capacity");

    auto run = [&](const auto& policy) -> std::string {
        if (input) return decide_file(policy, *input, replicating, exceeded, f);
        if (seq)
            return sequence(policy, *capacity, physical ? *physical : policy.initial_size(*capacity), replicating,
                            max_steps, f, cut);
        drive_state s{drive_capacity(*capacity), drive_physical(*physical), drive_allocation(*allocation)};
        s.replicating = replicating;
        s.threshold_exceeded = exceeded;
        return decide_one(policy, s, f);
    };

    // Which volume VDSM watches (storage.py Drive.chunked, thinp.py _amend_block_info): none, and the answer is
    // that the drive is not extended at all.
    const vdsm_drive_type drive = drive_type_option(a, "--drive-type");
    const vdsm_drive_type replica =
        a.has("--replica-type") ? drive_type_option(a, "--replica-type") : vdsm_drive_type::block_raw;
    if (const auto r = vdsm_check_replica(replica); !r) fail(r.error(), "--replica-type");
    if (vdsm_physical_source_of(drive, replicating, replica) == vdsm_physical_source::none) {
        table t({"drive_type", "replica_type", "chunked", "action"});
        t.add_row({cell::of_text(a.value("--drive-type").value_or("block-cow")),
                   cell::of_text(a.value("--replica-type").value_or("")), cell::of_flag(false),
                   cell::of_text("not-chunked")});
        const std::string out = t.str(f);
        std::fwrite(out.data(), 1, out.size(), stdout);
        return 0;
    }

    const vdsm_config cfg = extend_vdsm_config(a, m);
    const std::string out = run(make_vdsm_policy(cfg));
    std::fwrite(out.data(), 1, out.size(), stdout);
    return sequence_status(cut, max_steps);
}

}  // namespace

int run_extend(int argc, char** argv) {
    const args a = extend_args(argc, argv);
    extend_mode m;
    m.f = a.output_format();
    const std::string preset_name = a.value("--preset").value_or("vdsm-2022");
    const auto parsed = parse_extend_preset(preset_name, "--preset");
    if (!parsed) preset_error(parsed.error(), preset_name);
    m.preset = *parsed;
    // Stratis's and XenServer's rules take their own inputs; docker-devicemapper is an LVM preset.
    if (stratis_config_of(m.preset) || m.preset == extend_preset::xenserver_thin_lvhd)
        return run_thin_extend(a, m.preset, m.f);
    for (const char* o : thin_only_options)
        if (a.has(o))
            throw usage_error(std::string(o) +
                              " belongs to the Stratis and XenServer presets (--preset stratis-data, ...)");
    m.replicating = a.has("--replicating") || a.has("--replica-type");
    m.exceeded = a.has("--threshold-exceeded");
    // An LVM preset reads its sizes in lvm_inputs_of (as lvm writes them, percents as lvs shows them).
    const bool lvm = static_cast<bool>(lvm_config_of(m.preset));
    drive_sizes d;
    if (!lvm) d = {a.size("--capacity"), a.size("--physical"), a.size("--allocation")};
    m.input = a.value("--input");
    m.seq = a.has("--sequence");
    m.max_steps = a.count("--max-steps", 1, max_sequence_steps).value_or(default_sequence_steps);
    if (a.has("--max-steps") && !m.seq) throw usage_error("--max-steps applies to --sequence");
    return lvm ? extend_lvm(a, m) : extend_vdsm(a, m, d);
}

}  // namespace provpol::cli
