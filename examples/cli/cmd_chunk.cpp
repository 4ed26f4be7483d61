// provpol chunk: the I/O chunk size for a device and a tool's rule (a preset), optionally calibrated from measured
// samples (`provpol calibrate --save-samples`) or planned for a deadline.
#include "chunk_report.hpp"
#include "common/cli.hpp"
#include "common/csv.hpp"
#include "common/table.hpp"
#include "device_limits.hpp"

#include <provpol/chunk.hpp>
#include <provpol/fit/chunk.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace provpol::cli {

namespace {

// The rate columns --samples reads, with their unit in bytes per second: dd's MB/s and GB/s (10^6 and 10^9 bytes,
// as dd prints them; coreutils' src/ioblksize.h table is in GB/s) and MiB/s (ovirt-imageio's table).
struct rate_column {
    const char* name;
    double bytes_per_second;
};
constexpr rate_column rate_columns[] = {{"mb_per_s", 1e6}, {"gb_per_s", 1e9}, {"mib_per_s", 1048576.0}};

// The one rate column of the file: none or several is an error.
std::pair<std::size_t, rate_column> find_rate_column(const csv_reader& r, const std::string& file) {
    std::optional<std::pair<std::size_t, rate_column>> found;
    for (const rate_column& c : rate_columns) {
        const long i = r.optional_column(c.name);
        if (i < 0) continue;
        if (found)
            throw usage_error("--samples: '" + args::printable(file) + "' has both '" + found->second.name + "' and '" +
                              c.name + "': give one rate column");
        found = std::make_pair(static_cast<std::size_t>(i), c);
    }
    if (!found) r.column("mb_per_s', 'gb_per_s' or 'mib_per_s");  // throws, listing the header
    return *found;
}

// "a, b and c"
std::string names_text(const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i)
        out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + args::printable(names[i]);
    return out;
}

// Reads `block_size` and rate rows, one per run. A file with a `table` column holds several tables (one per
// machine or array, as the published tables are): --table picks one; without it, one table only is accepted.
std::vector<throughput_sample> read_samples(const std::string& file, const std::optional<std::string>& table) {
    csv_reader r(file, "--samples", "a CSV file");
    const std::size_t bs_col = r.column("block_size");
    const auto [rate_col, rate] = find_rate_column(r, file);
    const long table_col = r.optional_column("table");
    if (table && table_col < 0) r.column("table");  // throws: --table needs the column
    std::vector<throughput_sample> out;
    std::vector<std::string> tables;
    while (r.next()) {
        const bytes bs = r.size(bs_col);
        if (bs.count() == 0) throw usage_error(r.where() + "column 'block_size': must be at least 1 byte, got 0");
        const double v = r.decimal(rate_col, 0.0, 1e12);
        if (!(v > 0.0)) throw usage_error(r.where() + "column '" + rate.name + "': must be greater than 0, got 0");
        if (table_col >= 0) {
            const std::string& name = r.field(static_cast<std::size_t>(table_col));
            if (std::find(tables.begin(), tables.end(), name) == tables.end()) tables.push_back(name);
            if (table && name != *table) continue;
        }
        out.push_back({bs, v * rate.bytes_per_second});
    }
    if (table && out.empty())
        throw usage_error("--table: '" + args::printable(file) + "' has no table '" + args::printable(*table) +
                          "' (its tables: " + names_text(tables) + ")");
    if (!table && tables.size() > 1)
        throw usage_error("--samples: '" + args::printable(file) + "' holds " + std::to_string(tables.size()) +
                          " tables (" + names_text(tables) + "): choose one with --table");
    if (out.empty()) throw usage_error("--samples: '" + args::printable(file) + "' has a header but no samples");
    return out;
}

struct chunk_inputs {
    std::string preset;
    device_limits limits;
    std::optional<path_limits> path;
    std::string path_text;
    double target_fraction = default_target_fraction;
    std::optional<calibration> cal;  // from --samples
    std::optional<seconds> deadline;
    std::optional<bytes> total;
    bytes file_size;  // rsync's preset: the file's length (--file-size)
};

// rsync's largest file (protocol 30): 2^31 - 1 blocks of 128 KiB; its block count is an int32.
constexpr std::uint64_t rsync_max_file_size = ((std::uint64_t{1} << 31) - 1) * rsync_block_length::max_length;

template <class DefaultStep>
report_fields decide_chunk(chunk_preset<DefaultStep> preset, const chunk_inputs& in) {
    if constexpr (std::is_same_v<DefaultStep, rsync_block_length>) preset.default_step.file_length = in.file_size;
    const auto made = make_chunk_policy(preset, in.limits);
    if (!made) {
        std::string m(made.error().message().view());
        if (in.path) m += " (limits read from '" + args::printable(in.path_text) + "'; flags override them)";
        throw usage_error(m);
    }
    const basic_chunk_policy<DefaultStep>& policy = *made;

    chunk_decision d = policy.decide();
    std::string requested_by = "preset";
    std::optional<bytes> requested;
    std::optional<deadline_decision> dl;
    if (in.deadline) {
        const calibration& c = *in.cal;
        if (!c.fit) throw usage_error("--deadline: the samples give no cost model: " + c.fit_problem);
        const auto r = decide_for_deadline(policy, *in.total, *in.deadline, c.fit->model, default_deadline_margin);
        if (!r) throw usage_error(deadline_problem(r.error(), *in.deadline, *in.total, c.fit->model));
        dl = *r;
        d = r->decision;
        requested = r->plan.chunk;
        requested_by = "deadline";
    } else if (in.cal) {
        requested = in.cal->rule.block_size;
        d = policy.decide(*requested);
        requested_by = "samples";
    }

    report_fields f;
    f.add("chunk_size", cell::of_size(d.size));
    f.add("decided_by", cell::of_text(text_of(to_text(d.decided_by))));
    f.add("requested_by", cell::of_text(requested_by));
    f.add("requested_size", requested ? cell::of_size(*requested) : cell());
    f.add("preset", cell::of_text(preset.name));
    f.add("file_size", std::is_same_v<DefaultStep, rsync_block_length> ? cell::of_size(in.file_size) : cell());
    add_policy_fields(f, policy, in.path ? &*in.path : nullptr);
    add_calibration_fields(f, in.cal ? &*in.cal : nullptr, policy, in.target_fraction);
    f.add("deadline_seconds", dl ? cell::of_seconds(*in.deadline) : cell());
    f.add("bytes", dl ? cell::of_size(*in.total) : cell());
    f.add("margin", dl ? cell::of_real(default_deadline_margin) : cell());
    f.add("writes", dl ? cell::of(dl->writes) : cell());
    f.add("predicted_seconds", dl ? cell::of_seconds(dl->predicted_seconds, 4) : cell());
    return f;
}

// --file-size: needed by rsync's preset, refused by the others.
void read_file_size(const args& a, chunk_tool tool, chunk_inputs& in) {
    const auto v = a.size("--file-size");
    if (tool != chunk_tool::rsync) {
        if (v) throw usage_error("--file-size is only used with --preset rsync");
        return;
    }
    if (!v) throw usage_error("--preset rsync needs --file-size (rsync's block length depends on the file's length)");
    if (v->count() > rsync_max_file_size)
        throw usage_error("--file-size must be at most " + std::to_string(rsync_max_file_size) +
                          " (2^31 - 1 blocks of 128KiB: rsync refuses a larger file), got " +
                          std::to_string(v->count()));
    in.file_size = *v;
}

// The command's options and --help.
args chunk_args(int argc, char** argv) {
    return args(
        "chunk",
        "provpol chunk [--preset NAME] [--logical-block-size N] [--physical-block-size N] [--minimum-io N]\n"
        "                     [--optimal-io N] [--max-io SIZE] [--dio-align N] [--path PATH] [--samples FILE.csv]\n"
        "                     [--table NAME] [--rule smallest|steady] [--target-fraction F] [--file-size SIZE]\n"
        "                     [--deadline SECONDS --bytes SIZE] [--format text|csv|json]\n\n"
        "The I/O chunk size for a device: the preset's size (or the one the samples or the deadline call for),\n"
        "raised to the preset's floor (4 KiB; rsync's: 1 byte), aligned up to the device's granularity (and\n"
        "optimal I/O size), capped at its maximum transfer. decided_by names the step that decided. With\n"
        "--samples, the rule picks the smallest size whose median throughput reaches the target fraction of\n"
        "the best; the steady rule does the same with each size's lowest median within a factor of 2 of it,\n"
        "so that a size next to a collapse or a steep slope is not picked; both picks are reported.",
        {
            {"--preset", "NAME",
             std::string(chunk_preset_names.c_str()) +
                 ": the tool whose rule gives the default size and the I/O mode (default xapi-redo-log)"},
            {"--logical-block-size", "N", "the device's logical block size (bytes or IEC size)"},
            {"--physical-block-size", "N", "the device's physical block size"},
            {"--minimum-io", "N", "the device's minimum I/O size (e.g. a RAID chunk)"},
            {"--optimal-io", "N", "the device's optimal I/O size (e.g. a RAID stripe width)"},
            {"--max-io", "SIZE", "the device's maximum transfer size (max_sectors_kb)"},
            {"--dio-align", "N", "the O_DIRECT memory and offset alignment (statx)"},
            {"--path", "PATH", "read the limits of this file or block device (statx, sysfs); flags override"},
            {"--samples", "FILE.csv",
             "measured runs: block_size and one of mb_per_s, gb_per_s (10^6, 10^9 bytes, as dd prints) or "
             "mib_per_s; a table column names the table of each row"},
            {"--table", "NAME", "with --samples: the rows of this table only (a file of several needs it)"},
            {"--rule", "RULE",
             "smallest or steady: which pick of the samples becomes the requested size (with --samples, default "
             "smallest)"},
            {"--file-size", "SIZE",
             "with --preset rsync (needed): the file's length, which rsync's block length depends on"},
            {"--target-fraction", "F",
             "the share of the best throughput to reach, in [0.01, 0.999] (with --samples, default 0.95)"},
            {"--deadline", "SECONDS", "plan the smallest chunk that writes --bytes within this time (needs --samples)"},
            {"--bytes", "SIZE", "the size written within --deadline"},
            {"--format", "FORMAT", "text (default), csv or json"},
        },
        argc, argv);
}

// The device's limits: from --path, then the flags over them.
void read_limits(const args& a, chunk_inputs& in) {
    if (const auto p = a.value("--path")) {
        in.path_text = *p;
        in.path = read_path_limits(*p);
        in.limits = in.path->limits;
    }
    // A block size of 0 means nothing: an unknown block size is the flag left out.
    for (const char* flag : {"--logical-block-size", "--physical-block-size"})
        if (const auto v = a.size(flag); v && v->count() == 0)
            throw usage_error(std::string(flag) + " must be at least 512 (leave it out when unknown), got 0");
    if (const auto v = a.size("--logical-block-size")) in.limits.logical_block_size = *v;
    if (const auto v = a.size("--physical-block-size")) in.limits.physical_block_size = *v;
    if (const auto v = a.size("--minimum-io")) in.limits.minimum_io_size = *v;
    if (const auto v = a.size("--optimal-io")) in.limits.optimal_io_size = *v;
    if (const auto v = a.size("--max-io")) in.limits.max_transfer_size = *v;
    if (const auto v = a.size("--dio-align")) {
        in.limits.dio_mem_align = *v;
        in.limits.dio_offset_align = *v;
    }
}

// --samples and what needs them: the target fraction, the rule and the deadline with its --bytes.
void read_samples_and_deadline(const args& a, chunk_inputs& in) {
    if (const auto f = a.decimal("--target-fraction", min_target_fraction, max_target_fraction))
        in.target_fraction = *f;
    if (const auto d = a.time("--deadline", seconds(0.0), seconds(1e9))) in.deadline = *d;
    in.total = a.size("--bytes");
    if (in.deadline && !in.total) throw usage_error("--deadline needs --bytes (the size to write within it)");
    if (in.total && !in.deadline) throw usage_error("--bytes is only used with --deadline");
    if (in.deadline && !(*in.deadline > seconds(0))) throw usage_error("--deadline must be greater than 0, got 0");
    if (in.total && in.total->count() == 0) throw usage_error("--bytes must be at least 1, got 0");
    if (in.deadline && !a.has("--samples"))
        throw usage_error("--deadline needs --samples (the cost model is fitted to them)");
    const sample_rule rule = parse_sample_rule(a);
    if (const auto s = a.value("--samples")) {
        in.cal = calibrate_samples(read_samples(*s, a.value("--table")), in.target_fraction, rule);
    } else {
        for (const char* flag : {"--table", "--rule"})
            if (a.has(flag)) throw usage_error(std::string(flag) + " is only used with --samples");
    }
}

}  // namespace

int run_chunk(int argc, char** argv) {
    const args a = chunk_args(argc, argv);
    const format fmt = a.output_format();

    chunk_inputs in;
    const auto tool = parse_chunk_preset(a.value("--preset").value_or("xapi-redo-log"), "--preset");
    if (!tool) fail(tool.error(), "--preset");
    in.preset = to_text(*tool);
    read_limits(a, in);
    read_samples_and_deadline(a, in);
    read_file_size(a, *tool, in);

    const report_fields f = with_chunk_preset(*tool, [&](const auto& preset) { return decide_chunk(preset, in); });
    if (fmt == format::text) {
        f.print_text(stdout);
        if (in.cal) {
            std::fputs("\n", stdout);
            print_size_table(stdout, *in.cal);
        }
    } else {
        f.table().print(stdout, fmt);
    }
    return 0;
}

}  // namespace provpol::cli
