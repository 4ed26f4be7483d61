// provpol lvsize: the LV sizes oVirt VDSM picks outside the extend loop: a new volume's, the optimal size of a
// volume after a merge or for a reduce, the base volume's extend before a live merge, and a capacity resize
// (provpol/extend/vdsm_sizes.hpp).
#include "commands.hpp"
#include "common/cli.hpp"
#include "common/table.hpp"

#include <provpol/extend.hpp>
#include <provpol/extend/vdsm_sizes.hpp>

#include <cstdio>
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

// long: not split yet: options, checks, library calls and printing of the command in one
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
    const format f = a.output_format();
    const auto what = a.value("--for");
    if (!what) throw usage_error("--for is required: new, optimal, merge or resize");
    const std::string mode = *what;
    if (mode != "new" && mode != "optimal" && mode != "merge" && mode != "resize")
        throw usage_error("--for: unknown value '" + args::printable(mode) +
                          "': expected new, optimal, merge or resize");

    // No option is ignored: each applies to the modes that read it.
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

    const auto preset = parse_extend_preset(a.value("--preset").value_or("vdsm-2022"), "--preset");
    if (!preset) fail(preset.error(), "--preset");
    const auto base = vdsm_config_of(*preset, "--preset");
    if (!base) fail(base.error(), "--preset");
    const bytes chunk = a.size_at_least("--chunk", bytes(std::uint64_t{1} << 20), "MiB").value_or(base->chunk());
    const bytes extent = a.size("--extent").value_or(base->extent());
    const auto cfg = vdsm_config::make_bytes(chunk, base->percent(), extent);
    if (!cfg) fail(cfg.error(), cfg.error().setting() == text_view("extent_size") ? "--extent" : "--chunk");
    const vdsm_block_sizes sizes(*cfg);

    const bytes capacity = required_size(a, "--capacity", mode.c_str());
    const vdsm_volume_format vf = format_option(a);
    answer out;
    out.emplace_back("for", cell::of_text(mode));
    out.emplace_back("volume_format", cell::of_text(text_of(vf)));
    out.emplace_back("capacity", cell::of_size(capacity));

    if (mode == "new") {
        const vdsm_preallocation p = preallocation_option(a, vf);
        const bytes initial = a.size("--initial-size").value_or(bytes(0));
        if (a.has("--initial-size") && initial.count() == 0)
            throw usage_error("--initial-size must be at least 1 byte (leave it out for none), got 0");
        const auto alloc = sizes.alloc_size(p, vf, capacity, initial);
        if (!alloc) fail(alloc.error(), "--initial-size");
        const auto lv = sizes.new_volume_size(p, vf, capacity, initial);
        if (!lv) fail(lv.error(), "--initial-size");
        out.emplace_back("preallocation", cell::of_text(text_of(p)));
        out.emplace_back("initial_size", cell::of_size(initial));
        out.emplace_back("volume_capacity", cell::of_size(vdsm_volume_capacity(capacity)));
        out.emplace_back("max_size", cell::of_size(sizes.max_size(vf, capacity)));
        out.emplace_back("alloc_size", cell::of_size(*alloc));
        out.emplace_back("lv_size", cell::of_size(*lv));
    } else if (mode == "optimal") {
        const vdsm_preallocation p = preallocation_option(a, vf);
        // A raw volume's optimal size is its capacity: it needs no --actual.
        const bytes actual =
            vf == vdsm_volume_format::raw && !a.has("--actual") ? bytes(0) : required_size(a, "--actual", "optimal");
        const bool leaf = !a.has("--internal");
        const auto optimal = sizes.optimal_size(vf, actual, capacity, leaf);
        if (!optimal) fail(optimal.error(), "--actual");
        out.emplace_back("preallocation", cell::of_text(text_of(p)));
        out.emplace_back("actual", cell::of_size(actual));
        out.emplace_back("leaf", cell::of_flag(leaf));
        out.emplace_back("max_size", cell::of_size(sizes.max_size(vf, capacity)));
        out.emplace_back("optimal_size", cell::of_size(*optimal));
        out.emplace_back("can_reduce", cell::of_flag(vdsm_can_reduce(vf, p)));
    } else if (mode == "merge") {
        vdsm_merge_input in;
        in.capacity = capacity;
        in.current = required_size(a, "--current", "merge");
        in.required = required_size(a, "--required", "merge");
        in.bitmaps = a.size("--bitmaps").value_or(bytes(0));
        in.active_commit = !a.has("--internal");
        in.chunked = vdsm_chunked(drive_type_option(a, "--drive-type"));
        in.base_cow = vf == vdsm_volume_format::cow;
        const vdsm_merge_decision d = vdsm_merge_extend(*cfg, in);
        out.emplace_back("current", cell::of_size(in.current));
        out.emplace_back("required", cell::of_size(d.required));
        out.emplace_back("active_commit", cell::of_flag(in.active_commit));
        out.emplace_back("max_size", cell::of_size(d.max_size));
        out.emplace_back("action", cell::of_text(to_text(d.action)));
        out.emplace_back("new_size", cell::of_size(d.new_size));
        out.emplace_back("request_mb", cell::of(vdsm_size_mb(d.new_size)));
        out.emplace_back("lv_size", cell::of_size(d.lv_size));
    } else {
        const vdsm_preallocation p = preallocation_option(a, vf);
        const bytes requested = required_size(a, "--new-capacity", "resize");
        const auto d = vdsm_resize(vf, p, capacity, requested, sizes.extent());
        if (!d) fail(d.error(), "--new-capacity", "capacity", "--capacity");
        out.emplace_back("preallocation", cell::of_text(text_of(p)));
        out.emplace_back("new_capacity", cell::of_size(d->capacity));
        out.emplace_back("action", cell::of_text(to_text(d->action)));
        out.emplace_back("lv_size", cell::of_size(d->lv_size));
    }
    const std::string s = print(out, f);
    std::fwrite(s.data(), 1, s.size(), stdout);
    return 0;
}

}  // namespace provpol::cli
