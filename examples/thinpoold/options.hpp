// provpol-thinpoold's options: the command line and the configuration file, one table of names for both (a file
// line `interval = 0.05s` is `--interval 0.05s`; a flag is `take-over = yes`), the command line after the file.
// Every value is checked when read: a bad one is one line naming the option (or FILE:LINE), and exit status 2.
#ifndef PROVPOL_EXAMPLES_THINPOOLD_OPTIONS_HPP
#define PROVPOL_EXAMPLES_THINPOOLD_OPTIONS_HPP

#include "pool.hpp"

#include <provpol/parse.hpp>
#include <provpol/time.hpp>

#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace provpol::thinpoold {

/// What the daemon was asked to do.
struct options {
    std::string vg, pool, dm_name;  ///< dm_name: the pool's device (default VG-POOL-tpool, else VG-POOL)
    seconds interval = seconds(1.0);
    std::optional<bytes> max_pool_size;  ///< default: twice the pool's size when first seen (the state file's)
    std::optional<bytes> max_vg_take;    ///< default: the pool's size when first seen
    double lead_factor = 2.0;
    std::optional<seconds> margin;  ///< default: the interval
    seconds horizon = seconds(30.0);
    seconds lvextend_time = seconds(1.0);  ///< the modelled upper bound; the longest observed raises it
    seconds half_life = seconds(30.0);
    seconds rate_window = seconds(1.0);  ///< the rate is measured over at least this
    bytes min_extend{};
    bytes min_free{};                     ///< --min-free SIZE
    std::uint32_t min_free_percent = 10;  ///< --min-free N% (default 10%)
    rate burst_rate{0};  ///< --burst-rate: the rate the pool is kept ready for (lvm_rate_aware's min_rate)
    std::optional<std::uint64_t> metadata_threshold, metadata_percent;  ///< default: lvm.conf's (lvmconfig)
    seconds command_timeout = seconds(30.0);  ///< each command's bound (then SIGTERM, then SIGKILL)
    std::string status_source = "dmsetup";    ///< dmsetup or ioctl
    bool lvm_shell = true;                    ///< lvm2's commands in one long-lived `lvm` shell
    std::string state_dir = "/var/lib/provpol-thinpoold", lock_dir = "/run/lock/provpol-thinpoold";
    std::string metrics_file;  ///< node_exporter's textfile format; "" none
    bool dry_run = false, once = false, take_over = false, reset_state = false, restore = false;
};

/// A usage error: one line, exit status 2.
struct usage_error {
    std::string what;
};

namespace detail_options {

template <class T>
T need(const result<T>& r, const std::string& where) {
    if (!r) throw usage_error{where + std::string(r.error().message().view())};
    return *r;
}

inline bool yes_no(const std::string& v, const std::string& name) {
    if (v == "yes" || v == "true" || v == "1") return true;
    if (v == "no" || v == "false" || v == "0") return false;
    throw usage_error{name + " must be yes or no, got '" + v + "'"};
}

inline void name_option(std::string& to, const std::string& v, const std::string& name, bool lv) {
    const std::string why = lvm_name_error(v, lv);
    if (!why.empty()) throw usage_error{name + " '" + v + "' " + why};
    to = v;
}

// --min-free SIZE or N%.
inline void min_free(options& o, const std::string& v, const std::string& name, const std::string& where) {
    if (!v.empty() && v.back() == '%') {
        o.min_free_percent =
            static_cast<std::uint32_t>(need(parse_count(v.substr(0, v.size() - 1), name.c_str(), 0, 50), where));
        o.min_free = bytes(0);
    } else {
        o.min_free = need(parse_size(v, name.c_str()), where);
        o.min_free_percent = 0;
    }
}

}  // namespace detail_options

/// The flags (no value). `config_ok`: may be set in the configuration file.
struct flag_spec {
    const char* name;
    bool options::*field;
    bool config_ok;
};
inline constexpr flag_spec flag_specs[] = {
    {"take-over", &options::take_over, true}, {"dry-run", &options::dry_run, false},
    {"once", &options::once, false},          {"reset-state", &options::reset_state, false},
    {"restore", &options::restore, false},
};

/// Sets option `name` (without "--") to `v`; `where` prefixes a value's error ("FILE:LINE: " or ""). False when no
/// option has that name.
// long: one branch per option, each a line; splitting them would only scatter the table
inline bool set_option(options& o, const std::string& name, const std::string& v, const std::string& where) {
    using detail_options::need;
    const std::string opt = "--" + name;
    const char* n = opt.c_str();
    if (opt == "--vg")
        detail_options::name_option(o.vg, v, opt, false);
    else if (opt == "--pool")
        detail_options::name_option(o.pool, v, opt, true);
    else if (opt == "--dm-name" && !v.empty() && v.size() < 128 && v.find('/') == std::string::npos && v[0] != '-')
        o.dm_name = v;
    else if (opt == "--dm-name")
        throw usage_error{where + "--dm-name '" + v + "' is not a device-mapper name (1 to 127 characters, no '/')"};
    else if (opt == "--interval")
        o.interval = need(parse_seconds(v, n, seconds(0.01), seconds(3600)), where);
    else if (opt == "--max-pool-size")
        o.max_pool_size = need(parse_size(v, n), where);
    else if (opt == "--max-vg-take")
        o.max_vg_take = need(parse_size(v, n), where);
    else if (opt == "--lead-factor")
        o.lead_factor = need(parse_decimal(v, n, 1.0, 100.0), where);
    else if (opt == "--margin")
        o.margin = need(parse_seconds(v, n, seconds(0), seconds(3600)), where);
    else if (opt == "--horizon")
        o.horizon = need(parse_seconds(v, n, seconds(0.1), seconds(86400)), where);
    else if (opt == "--lvextend-time")
        o.lvextend_time = need(parse_seconds(v, n, seconds(0), seconds(3600)), where);
    else if (opt == "--half-life")
        o.half_life = need(parse_seconds(v, n, seconds(0.1), seconds(86400)), where);
    else if (opt == "--rate-window")
        o.rate_window = need(parse_seconds(v, n, seconds(0), seconds(3600)), where);
    else if (opt == "--min-extend")
        o.min_extend = need(parse_size(v, n), where);
    else if (opt == "--min-free")
        detail_options::min_free(o, v, opt, where);
    else if (opt == "--burst-rate")
        o.burst_rate = need(parse_rate(v, n), where);
    else if (opt == "--metadata-threshold")
        o.metadata_threshold = need(parse_count(v, n, 0, 100), where);
    else if (opt == "--metadata-percent")
        o.metadata_percent = need(parse_count(v, n, 0, 1000), where);
    else if (opt == "--command-timeout")
        o.command_timeout = need(parse_seconds(v, n, seconds(0.1), seconds(3600)), where);
    else if (opt == "--status" && (v == "dmsetup" || v == "ioctl"))
        o.status_source = v;
    else if (opt == "--status")
        throw usage_error{where + "--status must be dmsetup or ioctl, got '" + v + "'"};
    else if (opt == "--lvm-shell")
        o.lvm_shell = detail_options::yes_no(v, where + opt);
    else if (opt == "--state-dir" || opt == "--lock-dir" || opt == "--metrics-file") {
        if (v.empty()) throw usage_error{where + opt + " must be a path, got ''"};
        (opt == "--state-dir" ? o.state_dir : opt == "--lock-dir" ? o.lock_dir : o.metrics_file) = v;
    } else
        return false;
    return true;
}

/// Reads a configuration file into `o`: `name = value` lines (a flag's value yes or no), '#' comments.
inline void read_config(options& o, const std::string& path) {
    std::ifstream in(path);
    if (!in) throw usage_error{"--config: cannot read " + path};
    int line_no = 0;
    for (std::string line; std::getline(in, line);) {
        ++line_no;
        const std::string where = path + ":" + std::to_string(line_no) + ": ";
        const auto hash = line.find('#');
        if (hash != std::string::npos) line.erase(hash);
        const auto b = line.find_first_not_of(" \t"), e = line.find_last_not_of(" \t\r");
        if (b == std::string::npos) continue;
        line = line.substr(b, e - b + 1);
        const auto eq = line.find('=');
        if (eq == std::string::npos) throw usage_error{where + "expected NAME = VALUE, got '" + line + "'"};
        std::string name = line.substr(0, eq), value = line.substr(eq + 1);
        name.erase(name.find_last_not_of(" \t") + 1);
        value.erase(0, value.find_first_not_of(" \t"));
        bool flag = false;
        for (const flag_spec& f : flag_specs)
            if (name == f.name) {
                if (!f.config_ok) throw usage_error{where + name + " is a command-line flag, not a setting"};
                o.*f.field = detail_options::yes_no(value, where + name);
                flag = true;
            }
        if (!flag && !set_option(o, name, value, where)) throw usage_error{where + "unknown setting '" + name + "'"};
    }
}

/// What main does after the options: run, or print and exit.
enum class action { run, help, version };

/// Parses the command line (and the --config file it names, read first whatever its place).
inline action parse_options(int argc, char** argv, options& o) {
    for (int i = 1; i + 1 < argc; ++i)
        if (std::string(argv[i]) == "--config") read_config(o, argv[i + 1]);
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help") return action::help;
        if (a == "--version") return action::version;
        if (a.rfind("--", 0) != 0) throw usage_error{"unknown argument " + a + " (see --help)"};
        bool flag = false;
        for (const flag_spec& f : flag_specs)
            if (a.substr(2) == f.name) o.*f.field = flag = true;
        if (flag) continue;
        if (i + 1 >= argc) throw usage_error{a + " needs a value"};
        const std::string v = argv[++i];
        if (a == "--config") continue;  // read above
        if (!set_option(o, a.substr(2), v, "")) throw usage_error{"unknown option " + a + " (see --help)"};
    }
    if (o.vg.empty() || o.pool.empty()) throw usage_error{"--vg and --pool are required (see --help)"};
    if (o.restore && (o.dry_run || o.once || o.reset_state))
        throw usage_error{"--restore takes no --dry-run, --once or --reset-state"};
    return action::run;
}

}  // namespace provpol::thinpoold

#endif  // PROVPOL_EXAMPLES_THINPOOLD_OPTIONS_HPP
