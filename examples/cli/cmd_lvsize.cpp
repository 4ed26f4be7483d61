// provpol lvsize: the LV sizes oVirt VDSM picks outside the extend loop: a new volume's, the optimal size of a
// volume after a merge or for a reduce, the base volume's extend before a live merge, and a capacity resize
// (provpol/extend/vdsm_sizes.hpp).
#include "commands.hpp"
#include "common/cli.hpp"
#include "common/table.hpp"

#include <provpol/extend.hpp>
#include <provpol/extend/vdsm_sizes.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace provpol::cli {

namespace {

const char* const usage =
    "provpol lvsize --for new --capacity SIZE [--volume-format cow|raw] [--preallocation sparse|preallocated]\n"
    "                      [--initial-size SIZE]\n"
    "       provpol lvsize --for optimal --capacity SIZE --actual SIZE [--volume-format cow|raw] [--internal]\n"
    "                      [--preallocation sparse|preallocated]\n"
    "       provpol lvsize --for merge --capacity SIZE --current SIZE --required SIZE [--bitmaps SIZE]\n"
    "                      [--internal] [--drive-type block-cow|block-raw|file|network] [--volume-format cow|raw]\n"
    "       provpol lvsize --for resize --capacity SIZE --new-capacity SIZE [--volume-format cow|raw]\n"
    "                      [--preallocation sparse|preallocated]\n"
    "                      [--preset vdsm-2022|vdsm-legacy] [--chunk SIZE] [--extent SIZE] [--format text|csv|json]";

// One answer: named values, printed as a "name value" list in text and as one row in CSV and JSON.
using answer = std::vector<std::pair<const char*, cell>>;

std::string print(const answer& a, format f) {
    if (f == format::text) {
        std::string out;
        for (const auto& [name, value] : a) {
            char line[256];
            std::snprintf(line, sizeof line, "%-16s %s\n", name, value.display().c_str());
            out += line;
        }
        return out;
    }
    std::vector<std::string> columns;
    std::vector<cell> row;
    for (const auto& [name, value] : a) {
        columns.emplace_back(name);
        row.push_back(value);
    }
    table t(std::move(columns));
    t.add_row(std::move(row));
    return t.str(f);
}

vdsm_volume_format format_option(const args& a) {
    const std::string v = a.value("--volume-format").value_or("cow");
    if (v == "cow") return vdsm_volume_format::cow;
    if (v == "raw") return vdsm_volume_format::raw;
    throw usage_error("--volume-format: unknown value '" + args::printable(v) + "': expected cow or raw");
}

// A raw block volume is always preallocated (VDSM creates no sparse raw LV); a cow one is sparse by default.
vdsm_preallocation preallocation_option(const args& a, vdsm_volume_format f) {
    const auto v = a.value("--preallocation");
    if (!v) return f == vdsm_volume_format::raw ? vdsm_preallocation::preallocated : vdsm_preallocation::sparse;
    if (*v == "sparse") return vdsm_preallocation::sparse;
    if (*v == "preallocated") return vdsm_preallocation::preallocated;
    throw usage_error("--preallocation: unknown value '" + args::printable(*v) + "': expected sparse or preallocated");
}

const char* text_of(vdsm_volume_format f) { return f == vdsm_volume_format::cow ? "cow" : "raw"; }
const char* text_of(vdsm_preallocation p) { return p == vdsm_preallocation::sparse ? "sparse" : "preallocated"; }

bytes required_size(const args& a, const char* name, const char* mode) {
    const auto v = a.size(name);
    if (!v) throw usage_error(std::string("--for ") + mode + " needs " + name);
    return *v;
}

}  // namespace

vdsm_drive_type drive_type_option(const args& a, const char* name) {
    const std::string v = a.value(name).value_or("block-cow");
    if (v == "block-cow") return vdsm_drive_type::block_cow;
    if (v == "block-raw") return vdsm_drive_type::block_raw;
    if (v == "file") return vdsm_drive_type::file;
    if (v == "network") return vdsm_drive_type::network;
    throw usage_error(std::string(name) + ": unknown value '" + args::printable(v) +
                      "': expected block-cow, block-raw, file or network");
}

namespace {

// Which size VDSM decides (--for).
enum class lvsize_for { new_volume, optimal, merge, resize };

const char* text_of(lvsize_for w) {
    switch (w) {
        case lvsize_for::new_volume:
            return "new";
        case lvsize_for::optimal:
            return "optimal";
        case lvsize_for::merge:
            return "merge";
        case lvsize_for::resize:
            return "resize";
    }
    return "";
}

// The options of one lvsize question, read and checked; the fields a mode does not read keep their defaults.
struct lvsize_request {
    format f = format::text;
    lvsize_for what = lvsize_for::new_volume;
    std::optional<vdsm_config> config;  // the chunk and extent (the preset's, or --chunk and --extent)
    bytes capacity;
    vdsm_volume_format volume_format = vdsm_volume_format::cow;
    vdsm_preallocation preallocation = vdsm_preallocation::sparse;  // new, optimal, resize
    std::optional<bytes> initial;                                   // new: --initial-size
    bytes actual;                                                   // optimal: 0 for raw without --actual
    bool internal = false;                                          // optimal, merge: --internal
    bytes current, required, bitmaps;                               // merge
    vdsm_drive_type drive_type = vdsm_drive_type::block_cow;        // merge
    bytes new_capacity;                                             // resize
};

lvsize_for for_option(const args& a) {
    const auto what = a.value("--for");
    if (!what) throw usage_error("--for is required: new, optimal, merge or resize");
    for (lvsize_for w : {lvsize_for::new_volume, lvsize_for::optimal, lvsize_for::merge, lvsize_for::resize})
        if (*what == text_of(w)) return w;
    throw usage_error("--for: unknown value '" + args::printable(*what) + "': expected new, optimal, merge or resize");
}

// No option is ignored: each applies to the modes that read it.
void check_applies(const args& a, const std::string& mode) {
    struct applies {
        const char* option;
        const char* modes;
    };
    static const applies only[] = {{"--initial-size", " new "},
                                   {"--actual", " optimal "},
                                   {"--internal", " optimal merge "},
                                   {"--current", " merge "},
                                   {"--required", " merge "},
                                   {"--bitmaps", " merge "},
                                   {"--drive-type", " merge "},
                                   {"--new-capacity", " resize "},
                                   {"--preallocation", " new optimal resize "},
                                   {"--chunk", " new optimal merge "},
                                   {"--preset", " new optimal merge "}};
    for (const applies& o : only)
        if (a.has(o.option) && std::string(o.modes).find(" " + mode + " ") == std::string::npos)
            throw usage_error(std::string(o.option) + " does not apply to --for " + mode + " (it applies to --for" +
                              std::string(o.modes).substr(0, std::string(o.modes).size() - 1) + ")");
}

// --preset, then --chunk and --extent over it.
vdsm_config config_option(const args& a) {
    const auto preset = parse_extend_preset(a.value("--preset").value_or("vdsm-2022"), "--preset");
    if (!preset) fail(preset.error(), "--preset");
    const auto base = vdsm_config_of(*preset, "--preset");
    if (!base) fail(base.error(), "--preset");
    const bytes chunk = a.size_at_least("--chunk", bytes(std::uint64_t{1} << 20), "MiB").value_or(base->chunk());
    const bytes extent = a.size("--extent").value_or(base->extent());
    const auto cfg = vdsm_config::make(chunk, base->percent(), lvm_extent_size(extent));
    if (!cfg) fail(cfg.error(), cfg.error().setting() == text_view("extent_size") ? "--extent" : "--chunk");
    return *cfg;
}

// The options each mode reads, in the order their errors are reported.
void read_mode_options(const args& a, lvsize_request& q) {
    if (q.what != lvsize_for::merge) q.preallocation = preallocation_option(a, q.volume_format);
    switch (q.what) {
        case lvsize_for::new_volume:
            q.initial = a.size("--initial-size");
            if (q.initial && q.initial->count() == 0)
                throw usage_error("--initial-size must be at least 1 byte (leave it out for none), got 0");
            break;
        case lvsize_for::optimal:  // a raw volume's optimal size is its capacity: it needs no --actual
            q.actual = q.volume_format == vdsm_volume_format::raw && !a.has("--actual")
                           ? bytes(0)
                           : required_size(a, "--actual", "optimal");
            q.internal = a.has("--internal");
            break;
        case lvsize_for::merge:
            q.current = required_size(a, "--current", "merge");
            q.required = required_size(a, "--required", "merge");
            q.bitmaps = a.size("--bitmaps").value_or(bytes(0));
            q.internal = a.has("--internal");
            q.drive_type = drive_type_option(a, "--drive-type");
            break;
        case lvsize_for::resize:
            q.new_capacity = required_size(a, "--new-capacity", "resize");
            break;
    }
}

lvsize_request read_lvsize_request(const args& a) {
    lvsize_request q;
    q.f = a.output_format();
    q.what = for_option(a);
    check_applies(a, text_of(q.what));
    q.config = config_option(a);
    q.capacity = required_size(a, "--capacity", text_of(q.what));
    q.volume_format = format_option(a);
    read_mode_options(a, q);
    return q;
}

// The library's answers, after the fields every mode prints.
void answer_new(const lvsize_request& q, const vdsm_block_sizes& sizes, answer& out) {
    const bytes initial = q.initial.value_or(bytes(0));
    const auto alloc = sizes.alloc_size(q.preallocation, q.volume_format, q.capacity, initial);
    if (!alloc) fail(alloc.error(), "--initial-size");
    const auto lv = sizes.new_volume_size(q.preallocation, q.volume_format, q.capacity, initial);
    if (!lv) fail(lv.error(), "--initial-size");
    out.emplace_back("preallocation", cell::of_text(text_of(q.preallocation)));
    out.emplace_back("initial_size", cell::of_size(initial));
    out.emplace_back("volume_capacity", cell::of_size(vdsm_volume_capacity(q.capacity)));
    out.emplace_back("max_size", cell::of_size(sizes.max_size(q.volume_format, q.capacity)));
    out.emplace_back("alloc_size", cell::of_size(*alloc));
    out.emplace_back("lv_size", cell::of_size(*lv));
}

void answer_optimal(const lvsize_request& q, const vdsm_block_sizes& sizes, answer& out) {
    const bool leaf = !q.internal;
    const auto optimal = sizes.optimal_size(q.volume_format, q.actual, q.capacity, leaf);
    if (!optimal) fail(optimal.error(), "--actual");
    out.emplace_back("preallocation", cell::of_text(text_of(q.preallocation)));
    out.emplace_back("actual", cell::of_size(q.actual));
    out.emplace_back("leaf", cell::of_flag(leaf));
    out.emplace_back("max_size", cell::of_size(sizes.max_size(q.volume_format, q.capacity)));
    out.emplace_back("optimal_size", cell::of_size(*optimal));
    out.emplace_back("can_reduce", cell::of_flag(vdsm_can_reduce(q.volume_format, q.preallocation)));
}

void answer_merge(const lvsize_request& q, answer& out) {
    vdsm_merge_input in;
    in.capacity = q.capacity;
    in.current = q.current;
    in.required = q.required;
    in.bitmaps = q.bitmaps;
    in.active_commit = !q.internal;
    in.chunked = vdsm_chunked(q.drive_type);
    in.base_cow = q.volume_format == vdsm_volume_format::cow;
    const vdsm_merge_decision d = vdsm_merge_extend(*q.config, in);
    out.emplace_back("current", cell::of_size(in.current));
    out.emplace_back("required", cell::of_size(d.required));
    out.emplace_back("active_commit", cell::of_flag(in.active_commit));
    out.emplace_back("max_size", cell::of_size(d.max_size));
    out.emplace_back("action", cell::of_text(to_text(d.action)));
    out.emplace_back("new_size", cell::of_size(d.new_size));
    out.emplace_back("request_mb", cell::of(vdsm_size_mb(d.new_size)));
    out.emplace_back("lv_size", cell::of_size(d.lv_size));
}

void answer_resize(const lvsize_request& q, const vdsm_block_sizes& sizes, answer& out) {
    const auto d = vdsm_resize(q.volume_format, q.preallocation, q.capacity, q.new_capacity, sizes.extent());
    if (!d) fail(d.error(), "--new-capacity", "capacity", "--capacity");
    out.emplace_back("preallocation", cell::of_text(text_of(q.preallocation)));
    out.emplace_back("new_capacity", cell::of_size(d->capacity));
    out.emplace_back("action", cell::of_text(to_text(d->action)));
    out.emplace_back("lv_size", cell::of_size(d->lv_size));
}

answer lvsize_answer(const lvsize_request& q) {
    const vdsm_block_sizes sizes(*q.config);
    answer out;
    out.emplace_back("for", cell::of_text(text_of(q.what)));
    out.emplace_back("volume_format", cell::of_text(text_of(q.volume_format)));
    out.emplace_back("capacity", cell::of_size(q.capacity));
    switch (q.what) {
        case lvsize_for::new_volume:
            answer_new(q, sizes, out);
            break;
        case lvsize_for::optimal:
            answer_optimal(q, sizes, out);
            break;
        case lvsize_for::merge:
            answer_merge(q, out);
            break;
        case lvsize_for::resize:
            answer_resize(q, sizes, out);
            break;
    }
    return out;
}

}  // namespace

int run_lvsize(int argc, char** argv) {
    const args a(
        "lvsize", usage,
        {{"--for", "WHAT", "new, optimal, merge or resize: which size VDSM decides"},
         {"--preset", "NAME", "vdsm-2022 or vdsm-legacy, for the chunk (default vdsm-2022)"},
         {"--chunk", "SIZE",
          "volume_utilization_chunk_mb as a size (whole MiB), overrides the preset's (default 2560MiB; "
          "with --preset vdsm-legacy, default 1GiB)"},
         {"--extent", "SIZE", "the VG's extent size, a power of two in [1MiB, 16GiB] (default 128MiB)"},
         {"--capacity", "SIZE", "the volume's virtual size (qcow2 virtual size; for resize, the current one)"},
         {"--volume-format", "FORMAT", "cow (qcow2) or raw (default cow)"},
         {"--preallocation", "POLICY", "sparse or preallocated (default sparse for cow, preallocated for raw)"},
         {"--initial-size", "SIZE", "new: the initial size asked for a cow volume (engine's initialSize)"},
         {"--actual", "SIZE",
          "optimal: the volume's actual size (qemu-img check's offset, or measure's); not needed for raw"},
         {"--internal", nullptr,
          "optimal: the volume is internal (no chunk of free space added); merge: an internal merge (the "
          "top is not the active layer)"},
         {"--current", "SIZE", "merge: the base volume's size now (its LV, apparentsize)"},
         {"--required", "SIZE", "merge: qemu-img measure's required size of top into base"},
         {"--bitmaps", "SIZE", "merge: qemu-img measure's bitmaps size (with --for merge, default 0)"},
         {"--drive-type", "TYPE",
          "merge: the drive's storage, block-cow, block-raw, file or network (with --for merge, default block-cow)"},
         {"--new-capacity", "SIZE", "resize: the capacity asked for"},
         {"--format", "FORMAT", "text (default), csv or json"}},
        argc, argv);
    const lvsize_request q = read_lvsize_request(a);
    const std::string s = print(lvsize_answer(q), q.f);
    std::fwrite(s.data(), 1, s.size(), stdout);
    return 0;
}

}  // namespace provpol::cli
