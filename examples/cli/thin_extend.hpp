// provpol extend for the Stratis and XenServer presets: one check() of a Stratis pool's data or metadata
// device, check_fs() on one Stratis filesystem (extend/stratis.hpp), and XenServer thin LVHD's sizes for an SR and a
// VDI (extend/xenserver_lvhd.hpp). docker-devicemapper is lvm2's rule with Docker's profile and runs through the LVM
// path (lvm_extend.hpp). Options of the other presets are refused by cmd_extend.cpp before this runs.
#ifndef PROVPOL_CLI_THIN_EXTEND_HPP
#define PROVPOL_CLI_THIN_EXTEND_HPP

#include "common/cli.hpp"
#include "common/table.hpp"

#include <provpol/extend.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace provpol::cli {

/// The options only the Stratis and XenServer presets read.
inline constexpr const char* thin_only_options[] = {
    "--backstore-free", "--data-tier", "--metadata-low-water", "--error-if-no-space", "--size-limit",
    "--fs-size",        "--quantum",   "--initial-allocation"};

namespace detail_thin {

// One answer: "name value" lines in text, a one-row table in CSV and JSON.
inline std::string one_row(const std::vector<std::pair<std::string, cell>>& row, format f) {
    std::vector<std::string> names;
    std::vector<cell> cells;
    for (const auto& [n, c] : row) {
        names.push_back(n);
        cells.push_back(c);
    }
    table t(names);
    t.add_row(cells);
    if (f != format::text) return t.str(f);
    std::string out;
    for (const auto& [n, c] : row) {
        char line[256];
        std::snprintf(line, sizeof line, "%-24s %s\n", n.c_str(), c.display().c_str());
        out += line;
    }
    return out;
}

inline void refuse(const args& a, std::initializer_list<const char*> options, const char* preset) {
    for (const char* o : options)
        if (a.has(o)) throw usage_error(std::string(o) + " does not apply to --preset " + preset);
}

// The data part of one check: --physical and the used blocks (--allocation or --used-blocks).
inline void stratis_data_inputs(const args& a, const stratis_config& c, const char* name, stratis_pool_state& s) {
    const auto physical = a.size("--physical");
    if (!physical) throw usage_error(std::string("--preset ") + name + " needs --physical, the data device's size");
    const auto allocation = a.size("--allocation");
    const auto used = a.count("--used-blocks", 0, ~std::uint64_t{0});
    if (allocation.has_value() == used.has_value())
        throw usage_error("give --allocation (the data in use) or --used-blocks (1 MiB data blocks), one of them");
    s.data_size = *physical;
    s.data_used = used ? blocks(*used) : blocks_in(*allocation, c.data_block(), rounding::up);
}

// stratisd 3.0's check (stratis-3.0-data, stratis-3.0-metadata): greedy data, metadata at 1/1000 of the tier.
inline std::string stratis_3_0_pool(const args& a, stratis_part part, const char* name, format f) {
    const stratis_config c = stratis_3_0();
    stratis_pool_state s{};
    if (a.has("--error-if-no-space"))
        throw usage_error(std::string("--error-if-no-space does not apply to --preset ") + name +
                          ": stratisd 3.0 puts every pool in error_if_no_space when it makes it");
    if (part == stratis_part::data) {
        refuse(a, {"--metadata-size", "--metadata-used", "--metadata-low-water", "--data-tier"}, name);
        const auto free = a.size("--backstore-free");
        if (!free)
            throw usage_error(std::string("--preset ") + name +
                              " needs --backstore-free: each check gives the data device all of it");
        stratis_data_inputs(a, c, name, s);
        s.available = *free;
        s.datatier_usable = bytes(0);  // the data part alone: no metadata target (stratis-3.0-metadata asks that)
        const stratis_check_decision d = decide_stratis_check(c, s);
        return one_row({{"physical", cell::of_size(s.data_size)},
                        {"used_blocks", cell::of(s.data_used.count())},
                        {"free", cell::of_size(s.data_size - size_of(s.data_used, c.data_block()))},
                        {"backstore_free", cell::of_size(s.available)},
                        {"extend_by", cell::of_size(d.data_extend_by)},
                        {"new_size", cell::of_size(d.data_new_size)},
                        {"low_water_blocks", cell::of(d.low_water_blocks.count())},
                        {"error_if_no_space", cell::of_flag(d.error_if_no_space)},
                        {"outcome", cell::of_text(to_text(d.data))}},
                       f);
    }
    refuse(a, {"--physical", "--allocation", "--used-blocks", "--metadata-used", "--metadata-low-water"}, name);
    const auto msize = a.size("--metadata-size");
    const auto tier = a.size("--data-tier");
    if (!msize || !tier)
        throw usage_error(std::string("--preset ") + name +
                          " needs --metadata-size (the metadata device) and --data-tier (the data tier's usable "
                          "size: the metadata is kept at 1/1000 of it)");
    s.metadata_size = *msize;
    s.datatier_usable = *tier;
    s.available = a.size("--backstore-free").value_or(bytes::max());
    const stratis_check_decision d = decide_stratis_check(c, s);
    return one_row({{"metadata_size", cell::of_size(s.metadata_size)},
                    {"data_tier", cell::of_size(s.datatier_usable)},
                    {"target", cell::of_size(d.metadata_target)},
                    {"extend_by", cell::of_size(d.metadata_extend_by)},
                    {"spare_extend_by", cell::of_size(d.metadata_spare_extend_by)},
                    {"new_size", cell::of_size(d.metadata_new_size)},
                    {"backstore_used", cell::of_size(d.metadata_extend_by + d.metadata_spare_extend_by)},
                    {"outcome", cell::of_text(to_text(d.metadata))}},
                   f);
}

inline std::string stratis_pool(const args& a, extend_preset p, format f) {
    const char* name = to_text(p);
    const stratis_config c = stratis_config_of(p).value();
    const stratis_part part = stratis_part_of(p).value();
    if (c.release() == stratis_release::v3_0) return stratis_3_0_pool(a, part, name, f);
    stratis_pool_state s{};
    s.available = a.size("--backstore-free").value_or(bytes::max());
    s.datatier_usable = a.size("--data-tier").value_or(bytes::max());
    s.error_if_no_space = a.has("--error-if-no-space");
    if (part == stratis_part::data) {
        refuse(a, {"--metadata-size", "--metadata-used", "--metadata-low-water", "--data-tier"}, name);
        stratis_data_inputs(a, c, name, s);
        const stratis_check_decision d = decide_stratis_check(c, s);
        return one_row({{"physical", cell::of_size(s.data_size)},
                        {"used_blocks", cell::of(s.data_used.count())},
                        {"free", cell::of_size(s.data_size - size_of(s.data_used, c.data_block()))},
                        {"data_lowater", cell::of_size(c.data_lowater())},
                        {"trigger_blocks", cell::of(stratis_trigger_blocks(c, s.data_size).count())},
                        {"below_low_water", cell::of_flag(d.data_low_water)},
                        {"extend_by", cell::of_size(d.data_extend_by)},
                        {"new_size", cell::of_size(d.data_new_size)},
                        {"low_water_blocks", cell::of(d.low_water_blocks.count())},
                        {"error_if_no_space", cell::of_flag(d.error_if_no_space)},
                        {"outcome", cell::of_text(to_text(d.data))}},
                       f);
    }
    refuse(a, {"--physical", "--allocation", "--used-blocks", "--error-if-no-space"}, name);
    const auto msize = a.size("--metadata-size");
    if (!msize)
        throw usage_error(std::string("--preset ") + name + " needs --metadata-size, the metadata device's size");
    const auto mused = a.size("--metadata-used");
    const auto mark = a.count("--metadata-low-water", 0, ~std::uint64_t{0});
    if (!mused || !mark)
        throw usage_error(std::string("--preset ") + name +
                          " needs --metadata-used (4 KiB blocks in use, as a size) and "
                          "--metadata-low-water (the pool status's mark, in 4 KiB blocks)");
    s.metadata_size = *msize;
    s.metadata_used = blocks_in(*mused, bytes(4096), rounding::up);
    s.metadata_low_water = blocks(*mark);
    s.data_size = bytes::max();  // the data step is not asked: nothing is under its low water
    const stratis_check_decision d = decide_stratis_check(c, s);
    return one_row({{"metadata_size", cell::of_size(s.metadata_size)},
                    {"metadata_used_blocks", cell::of(s.metadata_used.count())},
                    {"metadata_low_water", cell::of(s.metadata_low_water.count())},
                    {"below_low_water", cell::of_flag(d.metadata_low_water)},
                    {"target", cell::of_size(d.metadata_target)},
                    {"extend_by", cell::of_size(d.metadata_extend_by)},
                    {"new_size", cell::of_size(d.metadata_new_size)},
                    {"backstore_used", cell::of_size(saturating_mul(d.metadata_extend_by, 2))},
                    {"error_if_no_space", cell::of_flag(d.error_if_no_space)},
                    {"outcome", cell::of_text(to_text(d.metadata))}},
                   f);
}

inline std::string stratis_fs(const args& a, extend_preset p, format f) {
    const char* name = to_text(p);
    const stratis_config c = stratis_config_of(p).value();
    refuse(a,
           {"--metadata-size", "--metadata-used", "--metadata-low-water", "--data-tier", "--backstore-free",
            "--used-blocks", "--error-if-no-space"},
           name);
    const auto physical = a.size("--physical");
    const auto used = a.size("--allocation");
    if (!physical || !used)
        throw usage_error(std::string("--preset ") + name +
                          " needs --physical (the filesystem's thin device) and --allocation (its used bytes, as "
                          "statvfs counts them)");
    stratis_filesystem_state s{};
    s.thin_size = *physical;
    s.fs_size = a.size("--fs-size").value_or(*physical);
    s.fs_used = *used;
    if (c.release() == stratis_release::v3_0) {
        if (a.has("--size-limit"))
            throw usage_error(std::string("--size-limit does not apply to --preset ") + name +
                              ": stratisd 3.0 has no filesystem size limit (3.6.0 added it)");
        const stratis_filesystem_decision d = decide_stratis_filesystem(c, s);
        return one_row({{"physical", cell::of_size(s.thin_size)},
                        {"fs_size", cell::of_size(s.fs_size)},
                        {"fs_used", cell::of_size(s.fs_used)},
                        {"fs_free", cell::of_size(s.fs_size - s.fs_used)},
                        {"filesystem_lowater", cell::of_size(c.filesystem_lowater())},
                        {"below_lowater", cell::of_flag(d.free_under_lowater)},
                        {"extend_by", cell::of_size(d.extend_by)},
                        {"new_size", cell::of_size(d.new_size)}},
                       f);
    }
    if (const auto limit = a.size("--size-limit")) {
        const auto l = stratis_size_limit(s.thin_size, *limit);
        if (!l) fail(l.error(), "--size-limit");
        s.size_limit = *l;
    }
    const stratis_filesystem_decision d = decide_stratis_filesystem(c, s);
    return one_row({{"physical", cell::of_size(s.thin_size)},
                    {"fs_size", cell::of_size(s.fs_size)},
                    {"fs_used", cell::of_size(s.fs_used)},
                    {"more_than_half", cell::of_flag(d.more_than_half)},
                    {"extend_by", cell::of_size(d.extend_by)},
                    {"new_size", cell::of_size(d.new_size)}},
                   f);
}

inline std::string xenserver(const args& a, format f) {
    refuse(a,
           {"--allocation", "--used-blocks", "--metadata-size", "--metadata-used", "--metadata-low-water",
            "--data-tier", "--backstore-free", "--error-if-no-space", "--size-limit", "--fs-size"},
           "xenserver-thin-lvhd");
    const auto physical = a.size("--physical");
    if (!physical) throw usage_error("--preset xenserver-thin-lvhd needs --physical, the SR's physical size");
    const auto requested = a.size("--quantum");
    const bytes q =
        requested ? xenserver_allocation_quantum(*physical, *requested) : xenserver_allocation_quantum(*physical);
    const xenserver_host_pool_config pool = xenserver_host_pool(*physical);
    std::vector<std::pair<std::string, cell>> row = {
        {"physical", cell::of_size(*physical)},
        {"allocation_quantum", cell::of_size(q)},
        {"tapdisk_quantum_mib", cell::of(xenserver_tapdisk_quantum_mib(q))},
        {"host_quantum_mib", cell::of(pool.quantum_mib)},
        {"host_low_water_mib", cell::of(pool.low_water_mib)},
        // What one top-up adds: xenvmd asks for the quantum in whole 4 MiB extents (freepool.ml:87).
        {"host_top_up_mib", cell::of(decide_xenserver_host_pool(pool, 0).add_mib)}};
    const bytes initial = a.size("--initial-allocation").value_or(bytes(0));
    if (const auto capacity = a.size("--capacity")) {
        const auto vdi = xenserver_new_vdi(*capacity, initial);
        if (!vdi)
            throw usage_error(std::string(vdi.error().with_setting("--capacity").message().view()) +
                              ": sm refuses a VDI whose size in whole MiB is above MAX_VDI_SIZE_MB, 2093051");
        row.push_back({"capacity", cell::of_size(*capacity)});
        row.push_back({"virtual_size", cell::of_size(vdi->virtual_size)});
        row.push_back({"initial_allocation", cell::of_size(initial)});
        row.push_back({"vdi_lv_size", cell::of_size(vdi->lv_size)});
        row.push_back({"full_lv_size", cell::of_size(vdi->full_lv_size)});
    } else if (a.has("--initial-allocation")) {
        throw usage_error("--initial-allocation sizes a new VDI: give its virtual size with --capacity");
    }
    return one_row(row, f);
}

}  // namespace detail_thin

/// `provpol extend --preset stratis-*|xenserver-thin-lvhd`: refuses what the other presets read, then decides.
inline int run_thin_extend(const args& a, extend_preset p, format f) {
    for (const char* o :
         {"--chunk", "--percent", "--config", "--extent", "--threshold", "--extend-percent", "--pool-chunk",
          "--vg-free", "--total-blocks", "--cow-max", "--vdo-slab", "--replicating", "--threshold-exceeded",
          "--drive-type", "--replica-type", "--input", "--sequence", "--max-steps"})
        if (a.has(o)) throw usage_error(std::string(o) + " does not apply to --preset " + to_text(p));
    std::string out;
    if (p == extend_preset::xenserver_thin_lvhd) {
        out = detail_thin::xenserver(a, f);
    } else if (stratis_part_of(p).value() == stratis_part::filesystem) {
        if (a.has("--capacity")) throw usage_error(std::string("--capacity does not apply to --preset ") + to_text(p));
        out = detail_thin::stratis_fs(a, p, f);
    } else {
        if (a.has("--capacity")) throw usage_error(std::string("--capacity does not apply to --preset ") + to_text(p));
        for (const char* o : {"--size-limit", "--fs-size", "--quantum", "--initial-allocation"})
            if (a.has(o)) throw usage_error(std::string(o) + " does not apply to --preset " + to_text(p));
        out = detail_thin::stratis_pool(a, p, f);
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_THIN_EXTEND_HPP
