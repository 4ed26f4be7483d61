// What provpol-thinpoold remembers of a pool across its restarts, and the file that holds it. The daemon's caps are
// absolute only if what it took survives it: a daemon restarted five times must not take five times its
// --max-vg-take, and a daemon killed while dmeventd's monitoring of the pool is off must leave a record that the
// next start (or the unit's ExecStopPost=) reads to turn it back on.
#ifndef PROVPOL_EXAMPLES_THINPOOLD_STATE_HPP
#define PROVPOL_EXAMPLES_THINPOOLD_STATE_HPP

#include "pool.hpp"

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>

namespace provpol::thinpoold {

/// The state of one pool, kept in STATE_DIR/<dm name>.state (dm_name(vg, pool, "")).
struct pool_state {
    std::string lv_uuid;           ///< the pool it is about: lvm2's LV id (a pool made again is another pool)
    std::uint64_t first_size = 0;  ///< the pool's data size when the daemon first saw it (the caps' base)
    std::uint64_t taken = 0;       ///< VG space (data and metadata) the daemon's extends allocated, verified
    std::uint64_t pending = 0;     ///< the pool's data and metadata before an extend under way (0: none)
    bool monitoring_off = false;   ///< dmeventd monitored the pool and the daemon turned that off, not yet back
    std::uint64_t extends = 0, failures = 0;  ///< in all, for the log and the metrics
};

/// The file's text: "# comment" lines, then one `key=value` per field.
inline std::string state_text(const pool_state& s, const std::string& vg, const std::string& pool) {
    std::ostringstream o;
    o << "# provpol-thinpoold's state of " << vg << "/" << pool
      << ": what it took of the VG and whether it turned dmeventd's\n"
         "# monitoring of the pool off. Written by the daemon; `provpol-thinpoold --reset-state` starts the "
         "accounting over.\n"
      << "format=1\nlv_uuid=" << s.lv_uuid << "\nfirst_size=" << s.first_size << "\ntaken=" << s.taken
      << "\npending=" << s.pending << "\nmonitoring_off=" << (s.monitoring_off ? 1 : 0) << "\nextends=" << s.extends
      << "\nfailures=" << s.failures << "\n";
    return o.str();
}

/// Reads a state file's text strictly: format 1, every key once, nothing else; nullopt with `why` otherwise.
inline std::optional<pool_state> parse_state(const std::string& text, std::string& why) {
    pool_state s;
    std::istringstream in(text);
    const char* keys[] = {"format",  "lv_uuid",        "first_size", "taken",
                          "pending", "monitoring_off", "extends",    "failures"};
    bool seen[8] = {};
    int line_no = 0;
    for (std::string line; std::getline(in, line);) {
        ++line_no;
        if (line.empty() || line[0] == '#') continue;
        const auto eq = line.find('=');
        const std::string key = line.substr(0, eq), value = eq == std::string::npos ? "" : line.substr(eq + 1);
        int k = 0;
        while (k < 8 && key != keys[k]) ++k;
        std::uint64_t n = 0;
        const bool number = read_u64(value, n);
        bool ok = k < 8 && !seen[k] && eq != std::string::npos;
        if (ok) seen[k] = true;
        if (ok && k == 0) ok = value == "1";
        if (ok && k == 1) ok = value.size() == 38, s.lv_uuid = value;
        if (ok && k >= 2) ok = number;
        if (ok && k == 5) ok = n <= 1;
        if (!ok) {
            why = "line " + std::to_string(line_no) + ": '" + line + "' is not a line of format 1";
            return std::nullopt;
        }
        if (k == 2) s.first_size = n;
        if (k == 3) s.taken = n;
        if (k == 4) s.pending = n;
        if (k == 5) s.monitoring_off = n == 1;
        if (k == 6) s.extends = n;
        if (k == 7) s.failures = n;
    }
    for (int k = 0; k < 8; ++k)
        if (!seen[k]) {
            why = std::string("no ") + keys[k] + "= line";
            return std::nullopt;
        }
    return s;
}

}  // namespace provpol::thinpoold

#endif  // PROVPOL_EXAMPLES_THINPOOLD_STATE_HPP
