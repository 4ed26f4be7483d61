// provpol-thinpoold's --metrics-file: the pool as node_exporter's textfile collector reads it (the Prometheus text
// exposition format: "# HELP", "# TYPE", one sample a line), so that it shows where operators already look.
#ifndef PROVPOL_EXAMPLES_THINPOOLD_METRICS_HPP
#define PROVPOL_EXAMPLES_THINPOOLD_METRICS_HPP

#include <cstdint>
#include <string>

namespace provpol::thinpoold {

/// What the metrics file shows.
struct metrics_values {
    std::uint64_t size = 0, metadata_size = 0, free = 0, metadata_free = 0, rate = 0;
    std::uint64_t extends = 0, failures = 0, taken = 0, max_vg_take = 0, max_pool_size = 0;
    bool monitoring_off = false;
};

/// The text of the file: every metric named provpol_thinpoold_*, labelled with the pool's vg and pool (names lvm2
/// accepts need no escaping: no quote, backslash or newline). time_to_full_seconds is free / rate, +Inf at rate 0.
inline std::string metrics_text(const std::string& vg, const std::string& pool, const metrics_values& m) {
    const std::string labels = "{vg=\"" + vg + "\",pool=\"" + pool + "\"}";
    std::string out;
    auto add = [&](const char* name, const char* type, const char* help, const std::string& value) {
        out += std::string("# HELP provpol_thinpoold_") + name + " " + help + "\n# TYPE provpol_thinpoold_" + name +
               " " + type + "\nprovpol_thinpoold_" + name + labels + " " + value + "\n";
    };
    auto n = [](std::uint64_t v) { return std::to_string(v); };
    add("pool_size_bytes", "gauge", "The thin pool's data size.", n(m.size));
    add("pool_free_bytes", "gauge", "Free data space in the thin pool.", n(m.free));
    add("metadata_size_bytes", "gauge", "The thin pool's metadata size.", n(m.metadata_size));
    add("metadata_free_bytes", "gauge", "Free metadata space in the thin pool.", n(m.metadata_free));
    add("fill_rate_bytes_per_second", "gauge", "The fill rate the daemon estimates.", n(m.rate));
    std::string ttf = "+Inf";
    if (m.rate != 0) ttf = std::to_string(static_cast<double>(m.free) / static_cast<double>(m.rate));
    add("time_to_full_seconds", "gauge", "Free space over the fill rate.", ttf);
    add("extends_total", "counter", "Extends that grew the pool as asked.", n(m.extends));
    add("extend_failures_total", "counter", "Failed extends and reads.", n(m.failures));
    add("vg_taken_bytes", "gauge", "VG space the daemon's extends took, across restarts.", n(m.taken));
    add("vg_take_limit_bytes", "gauge", "The most VG space the daemon takes (--max-vg-take).", n(m.max_vg_take));
    add("pool_size_limit_bytes", "gauge", "The largest pool the daemon makes (--max-pool-size).", n(m.max_pool_size));
    add("monitoring_taken_over", "gauge", "1 while dmeventd's monitoring of the pool is off by the daemon.",
        m.monitoring_off ? "1" : "0");
    return out;
}

}  // namespace provpol::thinpoold

#endif  // PROVPOL_EXAMPLES_THINPOOLD_METRICS_HPP
