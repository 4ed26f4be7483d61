// provpol extend for LVM presets: the decision lvextend --use-policies takes for a thin pool, a VDO pool or a
// snapshot (decide_lvm_autoextend), for one volume, every row of a CSV, or the extend sequence of a pool that
// fills. Options that mean nothing to LVM are refused by cmd_extend.cpp before this runs.
#ifndef PROVPOL_CLI_LVM_EXTEND_HPP
#define PROVPOL_CLI_LVM_EXTEND_HPP

#include "common/cli.hpp"
#include "common/csv.hpp"
#include "common/lvm_conf.hpp"
#include "common/lvm_defaults.hpp"
#include "common/lvs_report.hpp"
#include "common/table.hpp"

#include <provpol/extend.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace provpol::cli {

/// --max-steps: the rows `extend --sequence` prints at most by default, and the most it may be given (a row
/// is kept in memory until the table is printed).
inline constexpr std::uint64_t default_sequence_steps = 100000;
inline constexpr std::uint64_t max_sequence_steps = 1000000;

/// Where an extend sequence stopped when --max-steps cut it short of the maximum.
struct sequence_cut {
    bool truncated = false;
    bytes size{};     ///< the size after the last extend printed
    bytes maximum{};  ///< the most the volume may grow to
};

/// The exit status of `extend`: 0, or exit_target_not_met (3) with one line on stderr when --max-steps cut the
/// sequence short; the rows printed are the sequence's first ones.
inline int sequence_status(const sequence_cut& cut, std::uint64_t max_steps) {
    if (!cut.truncated) return 0;
    const std::string at = std::string(format_size(cut.size).view());
    const std::string of = cut.maximum == bytes::max()
                               ? at + " (no maximum given)"
                               : at + " of its " + std::string(format_size(cut.maximum).view()) + " maximum";
    std::fflush(stdout);
    std::fprintf(stderr,
                 "provpol extend: --sequence stopped at --max-steps %llu with the volume at %s: raise --max-steps (at "
                 "most %llu) or start nearer the maximum with --physical\n",
                 static_cast<unsigned long long>(max_steps), of.c_str(),
                 static_cast<unsigned long long>(max_sequence_steps));
    return exit_target_not_met;
}

namespace detail_lvm {

// A number with no unit: digits, perhaps one decimal point.
inline bool bare_number(const std::string& v) {
    return !v.empty() && v.find_first_not_of("0123456789.") == std::string::npos &&
           v.find_first_not_of('.') != std::string::npos;
}

// A bare number on an LVM size option is bytes to provpol but MiB to lvcreate -L: refused with the unit meant.
[[noreturn]] inline void bare_size_error(const char* name, const std::string& v) {
    throw usage_error(std::string(name) + " " + v + " (" + v +
                      "B for bytes): a number without a unit is bytes: did you mean " + v + "MiB (" + v +
                      "m, as lvcreate -L " + v + " reads it)?");
}

}  // namespace detail_lvm

/// An LVM size option (args::lvm_size), but a number without a unit other than 0 is refused with the unit lvm
/// would read ("did you mean 2048MiB?"): `--physical 2048` is not a pool of 2048 bytes.
inline std::optional<bytes> lvm_size_option(const args& a, const char* name) {
    const auto v = a.value(name);
    if (v && detail_lvm::bare_number(*v) && v->find_first_not_of("0.") != std::string::npos)
        detail_lvm::bare_size_error(name, *v);
    return a.lvm_size(name);
}

/// A size as lvcreate -L reads it when it ends in one of lvm's unit letters (tools/lvmcmdline.c, _size_arg): the
/// number before the letter (digits and at most one '.') read with strtod; k, m, g, t, p and e, in either case, are
/// powers of 1024, multiplied out in double in 512-byte sectors and then cut to whole sectors (1.82t is 3908420239
/// sectors, not 3908420239.36); s is sectors (cut too), b bytes, which lvm2 takes only in whole sectors. Sizes from
/// 16EiB on are refused, as lvm2 refuses them. nullopt when `v` has no unit letter (provpol's own units).
inline std::optional<std::uint64_t> lvcreate_sectors(const std::string& v, const char* name) {
    static const std::string units = "kmgtpebs";
    if (v.size() < 2) return std::nullopt;
    const auto u = units.find(static_cast<char>(std::tolower(static_cast<unsigned char>(v.back()))));
    const std::string number = v.substr(0, v.size() - 1);
    if (u == std::string::npos || !detail_lvm::bare_number(number) || number.find('.') != number.rfind('.'))
        return std::nullopt;
    double n = std::strtod(number.c_str(), nullptr);  // the CLI runs in the C locale: '.' is the radix
    if (u == 6) {
        const auto whole = static_cast<std::uint64_t>(n);
        if (whole % 512 != 0)
            throw usage_error(
                std::string(name) + " " + v + ": not a multiple of 512 bytes (lvcreate refuses it too: " + "try " +
                std::to_string(whole / 512 * 512) + "b or " + std::to_string(whole / 512 * 512 + 512) + "b)");
        n /= 512;
    } else if (u < 6) {
        for (std::size_t i = u; i > 0; --i) n *= 1024;
        n *= 2;
    }
    if (n >= static_cast<double>(~std::uint64_t{0} >> 9))
        throw usage_error(std::string(name) + " " + v + ": 16EiB or more (lvm2 refuses it too)");
    return static_cast<std::uint64_t>(n);
}

/// The most data in `whole` (whole blocks of `block`) whose usage as lvm2 reads it (lvm_usage) is at most `units`
/// (1e-6 %): a percent typed off lvs is never read above itself. It reads exactly the percent when a whole number
/// of blocks gives it (70% of 100GiB in 64KiB chunks is 70.000000%), else the nearest below (70% of 2TiB is
/// 69.999998%, not 70.000001%, which would cross threshold 70).
inline bytes lvm_percent_fill(bytes whole, bytes block, std::int32_t units) {
    const std::uint64_t total = whole.count() / block.count();
    auto used = static_cast<std::uint64_t>(static_cast<long double>(total) * units / lvm_percent_100);
    while (used < total && lvm_usage(used + 1, total) <= units) ++used;
    while (used > 0 && lvm_usage(used, total) > units) --used;
    return bytes(used * block.count());
}

/// An LVM option that is a size or a percent of `whole` as lvs shows Data% and Meta% ("70%", read by
/// lvm_percent_fill in blocks of `block`). A bare number is refused: up to 100 with "did you mean 70%?" (an admin
/// copying Data% types 70), above it with the unit hint of lvm_size_option; 0 is 0. With `worst` (plan and
/// recommend, which answer for a pool as lvs showed it), a percent is taken at the worst its rounding allows
/// (lvs_percent_worst) and worst->note says so; without it (extend, lvm2's decision for the value given), as typed.
struct lvm_used_worst {
    const char* what;  ///< "Data%" or "Meta%", for the note
    std::string note;  ///< lvs_percent_note's words, when the percent was widened
};
inline std::optional<bytes> lvm_used_option(const args& a, const char* name, std::optional<bytes> whole,
                                            const char* whole_name, bytes block, lvm_used_worst* worst = nullptr) {
    const auto v = a.value(name);
    if (!v) return std::nullopt;
    if (detail_lvm::bare_number(*v) && v->find_first_not_of("0.") != std::string::npos) {
        const auto n = parse_decimal(*v, name, 0.0, 1e30);
        if (n && *n <= 100.0)
            throw usage_error(std::string(name) + " " + *v + " (" + *v +
                              "B for bytes): a number without a unit is bytes: did you mean " + *v + "% (of " +
                              whole_name + ", as lvs shows it)?");
        detail_lvm::bare_size_error(name, *v);
    }
    if (v->empty() || v->back() != '%' || !whole) return a.lvm_size_or_percent(name, whole, whole_name);
    const std::string typed = v->substr(0, v->size() - 1);
    const auto pct = parse_decimal(typed, name, 0.0, 100.0);
    if (!pct) fail(pct.error().with_text(text_view(v->data(), v->size())), name);
    if (worst == nullptr)
        return lvm_percent_fill(*whole, block, static_cast<std::int32_t>(std::llround(*pct * lvm_percent_1)));
    const lvs_percent_read r = lvs_percent_worst(typed, *pct);
    worst->note = lvs_percent_note(worst->what, typed, r);
    return lvm_percent_fill(*whole, block, r.units);
}

/// Whether one of `option`'s values is "-" (stdin), which only one option may read.
inline bool lvm_reads_stdin(const args& a, const char* option) {
    const std::vector<std::string> v = a.values(option, false);
    return std::find(v.begin(), v.end(), "-") != v.end();
}

// read_lvm_conf_files, with a hint when a file is an ini section (VDSM's [irs]) rather than lvm.conf.
inline lvm_conf read_lvm_conf(const std::vector<std::string>& paths) {
    try {
        return read_lvm_conf_files(paths, "--config");
    } catch (const usage_error& e) {
        const std::string m = e.what();
        if (m.find("unexpected '['") == std::string::npos && m.find("got '['") == std::string::npos) throw;
        throw usage_error(m + " (a VDSM configuration? With an LVM preset --config reads lvm.conf)");
    }
}

/// What --config said about the host beyond the threshold and percent: whether dmeventd monitors the volume
/// (activation/monitoring), and the lvm2 version whose defaults filled the keys no file sets.
struct lvm_host {
    bool described = false;         ///< --config was given: the settings are the host's, not the preset's
    bool monitored = true;          ///< activation/monitoring as lvm2 reads it
    std::string monitoring_source;  ///< "monitoring = 0 from lvm.conf line 12", when a file set it to 0
    std::string version;            ///< "2.03.16", when described
};

namespace detail_lvm {

// One key of --config as lvm2 reads it: its value and the words that say where it came from.
struct conf_key {
    std::int64_t value;
    std::string said;        // "thin_pool_autoextend_threshold = 70 from lvm.conf line 24"
    bool defaulted = false;  // lvm2's built-in default (no file sets it, or lvm2 ignores what one sets)
};

inline conf_key conf_integer(const lvm_conf& conf, const std::string& path, const lvm2_version& v) {
    const std::string key = path.substr(path.rfind('/') + 1);
    const lvm_conf_int r = conf.integer(path);
    const std::int64_t def = v.defaults.of(path);
    const std::string dflt = "lvm2 " + v.version + "'s default";
    if (r.value) return {*r.value, conf.source(path)};
    if (r.node == nullptr) return {def, key + " = " + std::to_string(def) + " (" + dflt + ": no file sets it)", true};
    return {def,
            conf.source(path) + " is " + r.ignored + ", which lvm2 ignores (\"has invalid type\"): " + key + " = " +
                std::to_string(def) + ", " + dflt,
            true};
}

}  // namespace detail_lvm

/// The threshold and percent --config FILE... gives for `kind` (lvm.conf syntax or lvmconfig's output, read as lvm2
/// reads them: later files win), or `base`'s without --config. A key no file sets, or one lvm2 ignores (a string, a
/// float), is lvm2's built-in default for the version (choose_lvm2_version), never the preset's. On stderr: where
/// each value came from, that autoextend is off when the threshold is 100 or more or monitoring is 0.
inline std::pair<std::uint64_t, std::uint64_t> lvm_conf_settings(const args& a, const lvm_autoextend_config& base,
                                                                 lvm_host& host) {
    std::uint64_t threshold = base.threshold_as_written(), percent = base.extend_percent();
    const std::vector<std::string> paths = a.values("--config", false);
    if (paths.empty()) {
        if (a.has("--lvm-version"))
            throw usage_error(
                "--lvm-version gives lvm2's defaults for the keys --config's files leave out: give "
                "--config too");
        return {threshold, percent};
    }
    if (a.has("--threshold") || a.has("--extend-percent"))
        throw usage_error("give --config or --threshold and --extend-percent, not both");
    lvm_conf conf = read_lvm_conf(paths);
    conf.lvmconfig_bare_keys = true;
    const lvm2_version v = choose_lvm2_version(a);
    host.described = true;
    host.version = v.version;
    const std::string th = std::string("activation/") + lvm_autoextend_config::threshold_key(base.kind());
    const std::string pc = std::string("activation/") + lvm_autoextend_config::percent_key(base.kind());
    const detail_lvm::conf_key t = detail_lvm::conf_integer(conf, th, v);
    const detail_lvm::conf_key p = detail_lvm::conf_integer(conf, pc, v);
    const std::string cmd = "provpol " + a.command() + ": --config: ";
    if (p.value < 0 || static_cast<std::uint64_t>(p.value) > lvm_autoextend_config::max_percent)
        throw usage_error("--config: " + p.said + ": provpol takes " + lvm_autoextend_config::percent_key(base.kind()) +
                          " in [0, " + std::to_string(lvm_autoextend_config::max_percent) + "]");
    const lvm_conf_int m = conf.boolean("activation/monitoring");
    warn(cmd + t.said + ", " + p.said +
         (m.node == nullptr ? ", monitoring = " + std::to_string(v.defaults.monitoring) + " (lvm2 " + v.version +
                                  "'s default: no file sets it)"
                            : std::string()));
    if (t.defaulted || p.defaulted || !m.value)
        warn(cmd + "the keys no file sets (or that lvm2 ignores) take lvm2 " + v.version + "'s defaults: " + v.how);
    if (t.value < 50)  // lvm2 reads it as 50 and warns (_lvresize_adjust_policy)
        warn(std::string("provpol: warning: ") + lvm_autoextend_config::threshold_key(base.kind()) + " " +
             std::to_string(t.value) + " is below lvm2's minimum: lvm2 uses 50");
    threshold = t.value < 50 ? 50 : static_cast<std::uint64_t>(t.value);
    percent = static_cast<std::uint64_t>(p.value);
    if (threshold >= 100)
        warn(cmd + "threshold " + std::to_string(threshold) + ": autoextend is off (lvm2 extends only under 100), " +
             "the volume never grows by itself");
    if (m.node != nullptr && !m.value)
        warn(cmd + conf.source("activation/monitoring") + " is " + m.ignored + ", which lvm2 ignores: monitoring = " +
             std::to_string(v.defaults.monitoring) + ", lvm2 " + v.version + "'s default");
    if (m.value == std::optional<std::int64_t>(0)) {
        host.monitored = false;
        host.monitoring_source = conf.source("activation/monitoring");
        warn(cmd + host.monitoring_source +
             ": dmeventd does not monitor the volume, so lvm2 never extends it by itself (autoextend is off)" +
             (a.command() == "extend" ? "; the answer is what lvextend --use-policies would do when run" : ""));
    }
    return {threshold, percent};
}

/// The options that give a pool's usage (--pool-used and --metadata-used; extend's --allocation), taken with --lvs
/// only when the report's pool is inactive: lvs prints no Data% or Meta% for it.
struct lvs_usage_options {
    const char* data;
    const char* metadata;
};

/// --lvs's checks: --lvs-pool only with --lvs, none of `replaced` with it (the report gives them), stdin read once.
/// Whether --lvs is given.
inline bool lvs_option_checks(const args& a, std::initializer_list<const char*> replaced) {
    const auto path = a.value("--lvs");
    if (!path) {
        if (a.has("--lvs-pool")) throw usage_error("--lvs-pool names a pool of the --lvs report, which is not given");
        return false;
    }
    for (const char* o : replaced)
        if (a.has(o)) throw usage_error(std::string("give --lvs or ") + o + ", not both: the report gives it");
    if (*path == "-" && lvm_reads_stdin(a, "--config"))
        throw usage_error("--lvs - and --config - both read stdin: give one of them a file");
    return true;
}

/// The usage of --lvs's pool `p`: an active pool's is the report's (giving `usage`'s options too is an error); an
/// inactive pool needs `usage.data` (the usage the pool will have when it is activated), `usage.metadata` optional,
/// and stderr says whose usage is planned.
inline void lvs_usage_checks(const args& a, const lvs_pool& p, lvs_usage_options usage) {
    const std::string name = args::printable(p.vg + "/" + p.name);
    if (p.active) {
        for (const char* o : {usage.data, usage.metadata})
            if (a.has(o))
                throw usage_error(std::string("give --lvs or ") + o + ", not both: the report gives it (" + name +
                                  " is active)");
        return;
    }
    const std::string what = "--lvs: " + name + " is " + p.inactive_words();
    if (!a.has(usage.data))
        throw usage_error(what + ": lvs reports a pool's usage only while it is active; activate it (lvchange -ay " +
                          name + ") and run lvs again, or give its usage with " + usage.data + " (and " +
                          usage.metadata + ")");
    warn("provpol " + a.command() + ": " + what + ": its usage is " + usage.data + "'s" +
         (a.has(usage.metadata) ? " and " + std::string(usage.metadata) + "'s"
                                : std::string(", its metadata is not simulated (no ") + usage.metadata + ")") +
         ", the usage it will have once active");
}

/// --lvs FILE|- (and --lvs-pool VG/POOL): the thin pool as `lvs --reportformat json` reports it (read_lvs_report),
/// or nothing. It replaces the options in `replaced`: giving one of them too is an error. Its usage (Data%, Meta%)
/// replaces `usage`'s options too, unless the pool is inactive (lvs_usage_checks).
inline std::optional<lvs_pool> lvs_option(const args& a, std::initializer_list<const char*> replaced,
                                          lvs_usage_options usage) {
    if (!lvs_option_checks(a, replaced)) return std::nullopt;
    const lvs_pool p = read_lvs_report(*a.value("--lvs"), "--lvs", a.value("--lvs-pool").value_or(""));
    lvs_usage_checks(a, p, usage);
    return p;
}

/// A percent as lvs prints Data% or Meta% ("59.52") of `whole`, read in blocks of `block` by lvm_percent_fill. With
/// `worst`, at the worst its rounding allows (lvs_percent_worst), worst->note saying so.
inline bytes lvs_fill(const std::string& percent, bytes whole, bytes block, lvm_used_worst* worst = nullptr) {
    const auto p = parse_decimal(percent, "--lvs", 0.0, 100.0);
    if (!p) fail(p.error(), "--lvs");
    if (worst == nullptr)
        return lvm_percent_fill(whole, block, static_cast<std::int32_t>(std::llround(*p * lvm_percent_1)));
    const lvs_percent_read r = lvs_percent_worst(percent, *p);
    worst->note = lvs_percent_note(worst->what, percent, r);
    return lvm_percent_fill(whole, block, r.units);
}

/// docker-devicemapper's --threshold or --extend-percent (`option`): dm.thinp_autoextend_threshold or _percent
/// (`setting`) as dockerd reads it (deviceset.go:2760-2777: strconv.ParseUint of the value without a trailing %,
/// 32 bits; above 100 refused), then as setupDirectLVM writes it to the lvm profile (device_setup.go:183-189: 0 is
/// Docker's default, `docker_default`). Nothing when the option is not given.
inline std::optional<std::uint64_t> docker_profile_option(const args& a, const char* option, const char* setting,
                                                          std::uint64_t docker_default) {
    const auto v = a.value(option);
    if (!v) return std::nullopt;
    const std::string digits = !v->empty() && v->back() == '%' ? v->substr(0, v->size() - 1) : *v;
    const auto n = parse_count(digits, option, 0, ~std::uint64_t{0});
    if (!n) fail(n.error(), option);
    if (*n > 100)
        throw usage_error(std::string(option) + " is " + setting +
                          " with --preset docker-devicemapper: it must be in " +
                          "[0, 100] (dockerd refuses more), got " + args::printable(*v));
    if (*n != 0) return *n;
    warn("provpol " + a.command() + ": " + option + " 0: " + setting + " unset, Docker's default " +
         std::to_string(docker_default));
    return docker_default;
}

/// The LVM settings the extend, plan and recommend commands share: the preset's configuration with --config (or
/// --threshold and --extend-percent), --extent, --pool-chunk and --vdo-slab applied. With docker-devicemapper,
/// --threshold and --extend-percent are Docker's dm.thinp_autoextend_* options (docker_profile_option).
inline lvm_autoextend_config lvm_config_from(const args& a, extend_preset preset, const lvs_pool* lvs = nullptr,
                                             lvm_host* host = nullptr) {
    const lvm_autoextend_config base = lvm_config_of(preset).value();
    if (lvs != nullptr && base.kind() != lvm_volume_kind::thin_pool)
        throw usage_error("--lvs reads a thin pool: give it with --preset lvm-thin-autoextend or lvm-thin-default");
    lvm_host own;
    lvm_host& h = host != nullptr ? *host : own;
    const auto [conf_threshold, conf_percent] = lvm_conf_settings(a, base, h);
    const bool docker = preset == extend_preset::docker_devicemapper;
    if (lvs != nullptr && !h.described && !a.has("--threshold") && !a.has("--extend-percent"))
        warn("provpol " + a.command() + ": --lvs gives the pool, not lvm.conf: threshold " +
             std::to_string(base.threshold_as_written()) + " and percent " + std::to_string(base.extend_percent()) +
             " are --preset " + std::string(to_text(preset)) +
             "'s (what if); give --config /etc/lvm/lvm.conf (or lvmconfig --type full activation's output) for "
             "the host's");
    const std::uint64_t threshold =
        (docker ? docker_profile_option(a, "--threshold", "dm.thinp_autoextend_threshold", 80)
                : a.count("--threshold", 0, lvm_autoextend_config::max_threshold))
            .value_or(conf_threshold);
    const std::uint64_t percent =
        (docker ? docker_profile_option(a, "--extend-percent", "dm.thinp_autoextend_percent", 20)
                : a.count("--extend-percent", 0, lvm_autoextend_config::max_percent))
            .value_or(conf_percent);
    const bytes extent = lvs ? lvs->extent : lvm_size_option(a, "--extent").value_or(base.extent());
    const bytes chunk = lvs ? lvs->chunk : lvm_size_option(a, "--pool-chunk").value_or(base.pool_chunk());
    const bytes slab = lvm_size_option(a, "--vdo-slab").value_or(base.vdo_slab());
    if (a.has("--vdo-slab") && base.kind() != lvm_volume_kind::vdo_pool)
        throw usage_error("--vdo-slab applies to --preset lvm-vdo-autoextend");
    const auto c = lvm_autoextend_config::make(lvm_threshold(threshold), lvm_percent(percent), lvm_extent_size(extent),
                                               lvm_chunk_size(chunk), base.kind(), vdo_slab_size(slab));
    if (!c) {
        const text_view s = c.error().setting();
        fail(c.error(), s == text_view("extent_size")            ? "--extent"
                        : s == text_view("thin_pool_chunk_size") ? "--pool-chunk"
                        : s == text_view("vdo_slab_size_mb")     ? "--vdo-slab"
                                                                 : "--extend-percent");
    }
    return *c;
}

/// The warning lvm2 itself prints for a threshold under 50 (it acts as 50), on stderr, once (see warn()).
inline void warn_lvm_clamp(const lvm_autoextend_config& c) {
    if (c.threshold_clamped())
        warn(std::string("provpol: warning: ") + lvm_autoextend_config::threshold_key(c.kind()) + " " +
             std::to_string(c.threshold_as_written()) + " is below lvm2's minimum: lvm2 uses 50");
}

namespace detail_lvm {

inline const std::vector<std::string>& lvm_columns() {
    static const std::vector<std::string> c = {"physical",
                                               "allocation",
                                               "used_blocks",
                                               "total_blocks",
                                               "usage_percent",
                                               "threshold",
                                               "extend_percent",
                                               "amount_percent",
                                               "add_extents",
                                               "new_size",
                                               "metadata_size",
                                               "metadata_usage_percent",
                                               "metadata_threshold",
                                               "metadata_amount_percent",
                                               "metadata_new_size",
                                               "vg_needed",
                                               "outcome"};
    return c;
}

inline cell percent_cell(std::int32_t units) { return cell::of_real(static_cast<double>(units) / 1e6, 0); }

inline std::vector<cell> lvm_row(const lvm_autoextend_config& c, const lvm_volume_state& s,
                                 std::optional<bytes> allocation, const lvm_autoextend_decision& d) {
    const bool meta = s.metadata_size.count() != 0 && !failed(d.outcome) && d.outcome != lvm_outcome::disabled;
    const blocks total = s.total.count() != 0 ? s.total : blocks_in(s.size, c.pool_chunk(), rounding::down);
    return {cell::of_size(s.size),
            allocation ? cell::of_size(*allocation) : cell(),  // --used-blocks gave the blocks instead
            cell::of(s.used.count()),
            cell::of(total.count()),
            percent_cell(d.usage),
            cell::of(c.threshold_percent()),
            cell::of(c.extend_percent()),
            cell::of(d.amount),
            cell::of(d.add_extents),
            cell::of_size(d.new_size),
            s.metadata_size.count() != 0 ? cell::of_size(s.metadata_size) : cell(),
            meta ? percent_cell(d.metadata_usage) : cell(),
            meta ? cell::of(d.metadata_threshold) : cell(),
            meta ? cell::of(d.metadata_amount) : cell(),
            s.metadata_size.count() != 0 ? cell::of_size(d.metadata_new_size) : cell(),
            cell::of_size(d.vg_needed),
            cell::of_text(to_text(d.outcome))};
}

// One volume: "name value" lines in text, a one-row table in CSV and JSON.
inline std::string lvm_one(const std::vector<cell>& row, format f) {
    table t(lvm_columns());
    t.add_row(row);
    if (f != format::text) return t.str(f);
    std::string out;
    for (std::size_t i = 0; i < row.size(); ++i) {
        if (row[i].type() == cell::kind::empty) continue;
        char line[256];
        std::snprintf(line, sizeof line, "%-24s %s\n", lvm_columns()[i].c_str(), row[i].display().c_str());
        out += line;
    }
    return out;
}

}  // namespace detail_lvm

/// The inputs of one LVM volume from the command line (sizes parsed; `vg_free` from --vg-free or --capacity).
struct lvm_extend_inputs {
    std::optional<bytes> capacity, physical, allocation, vg_free, metadata_size, metadata_used, cow_max;
    std::optional<std::uint64_t> used_blocks, total_blocks;
    std::optional<std::string> input;
    bool sequence = false;
    std::uint64_t max_steps = default_sequence_steps;  ///< --max-steps: the most rows --sequence prints
};

/// Runs provpol extend for an LVM preset; returns what to print.
inline std::string run_lvm_extend(const lvm_autoextend_config& c, const lvm_extend_inputs& in, format f,
                                  sequence_cut& cut) {
    using namespace detail_lvm;
    const bool thin = c.kind() == lvm_volume_kind::thin_pool;
    auto vg_of = [&](bytes physical) -> bytes {
        if (in.vg_free) return *in.vg_free;
        if (in.capacity) {
            if (*in.capacity < physical)
                throw usage_error("--capacity (" + std::string(format_size(*in.capacity).view()) +
                                  ") is below --physical (" + std::string(format_size(physical).view()) +
                                  "): it is the most the volume may grow to");
            return saturating_sub(*in.capacity, physical);
        }
        return bytes::max();
    };
    auto state_of = [&](bytes physical, std::optional<bytes> allocation) {
        lvm_volume_state s =
            lvm_volume_state::thin(physical, allocation.value_or(bytes(0)), c.pool_chunk(), vg_of(physical));
        if (in.used_blocks) s.used = blocks(*in.used_blocks);
        if (in.total_blocks) s.total = blocks(*in.total_blocks);
        if (in.metadata_size) {
            s.metadata_size = *in.metadata_size;
            s.metadata_total = blocks_in(*in.metadata_size, bytes(4096), rounding::down);  // dm-thin's are 4 KiB
            s.metadata_used = blocks_in(in.metadata_used.value_or(bytes(0)), bytes(4096), rounding::up);
        }
        if (in.cow_max) s.cow_max = *in.cow_max;
        return s;
    };
    if (in.input) {
        csv_reader r(*in.input, "--input");
        const std::size_t c_phys = r.column("physical"), c_alloc = r.column("allocation");
        table t(lvm_columns());
        while (r.next()) {
            const bytes physical = r.size(c_phys), allocation = r.size(c_alloc);
            const lvm_volume_state s = state_of(physical, allocation);
            t.add_row(lvm_row(c, s, allocation, decide_lvm_autoextend(c, s)));
        }
        return t.str(f);
    }
    if (in.sequence) {
        // A pool the writers keep filling: each extend runs when usage first passes the threshold (the
        // low-water event's moment), until the VG limit stops it.
        if (!thin) throw usage_error("--sequence is for thin pools (--preset lvm-thin-autoextend)");
        if (!c.enabled()) throw usage_error("--sequence: the threshold disables autoextend (100 or more)");
        table t({"step", "physical", "used_blocks", "usage_percent", "amount_percent", "new_size", "outcome"});
        bytes size = *in.physical;
        const bytes vg_limit = in.capacity ? *in.capacity : saturating_add(size, vg_of(size));
        for (std::uint64_t step = 0; step < in.max_steps; ++step) {
            const blocks total = blocks_in(size, c.pool_chunk(), rounding::down);
            lvm_volume_state s = lvm_volume_state::thin(size, bytes(0), c.pool_chunk(), saturating_sub(vg_limit, size));
            s.used = lvm_trigger_blocks(total, c.threshold_percent());
            const lvm_autoextend_decision d = decide_lvm_autoextend(c, s);
            t.add_row({cell::of(step), cell::of_size(size), cell::of(s.used.count()), percent_cell(d.usage),
                       cell::of(d.amount), d.outcome == lvm_outcome::extend ? cell::of_size(d.new_size) : cell(),
                       cell::of_text(to_text(d.outcome))});
            if (d.outcome != lvm_outcome::extend || d.new_size <= size) return t.str(f);
            size = d.new_size;
        }
        cut = {true, size, vg_limit};  // every row was an extend: the limit is further on
        return t.str(f);
    }
    const lvm_volume_state s = state_of(*in.physical, in.allocation);
    return lvm_one(lvm_row(c, s, in.allocation, decide_lvm_autoextend(c, s)), f);
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_LVM_EXTEND_HPP
