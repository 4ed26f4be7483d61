// provpol-thinpoold's core: reads a thin pool's status, estimates its fill rate, decides with
// lvm_rate_aware_config (include/provpol/extend/lvm_rate_aware.hpp) and runs lvextend. Everything it touches of
// the system goes through `thinpoold_io` (the pool's status, the commands it runs, the clock, the sleep, the stop
// flag), so that tests drive it with status lines and a clock of their own and record the commands
// (tests/thinpoold_test.cpp); main.cpp gives it the real ones.
#ifndef PROVPOL_EXAMPLES_THINPOOLD_HPP
#define PROVPOL_EXAMPLES_THINPOOLD_HPP

#include <provpol/extend/lvm_rate_aware.hpp>
#include <provpol/time.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace provpol::thinpoold {

/// One thin-pool status line, as `dmsetup status` prints it for a thin-pool target (the kernel's
/// Documentation/admin-guide/device-mapper/thin-provisioning.rst): "<start> <length> thin-pool <transaction id>
/// <used>/<total metadata blocks> <used>/<total data blocks> <held root> <mode> ...". mode: rw, ro or
/// out_of_data_space.
struct pool_status {
    std::uint64_t length_sectors = 0;  ///< the target's length: the pool's data size in 512-byte sectors
    std::uint64_t transaction_id = 0;
    std::uint64_t metadata_used = 0, metadata_total = 0;
    std::uint64_t data_used = 0, data_total = 0;
    std::string mode;
};

/// Parses a status line; nullopt (with `why`) for anything else: "Fail", another target, a short line.
inline std::optional<pool_status> parse_status(const std::string& line, std::string& why) {
    std::istringstream in(line);
    std::uint64_t start = 0;
    std::string type, meta, data, held;
    pool_status s;
    if (!(in >> start >> s.length_sectors >> type)) {
        why = "not a device-mapper status line: '" + line + "'";
        return std::nullopt;
    }
    if (type != "thin-pool") {
        why = "not a thin-pool target (" + type + ")";
        return std::nullopt;
    }
    std::string rest;
    if (!(in >> rest) || rest == "Fail") {
        why = "the pool reports Fail";
        return std::nullopt;
    }
    char slash1 = 0, slash2 = 0;
    std::istringstream tid(rest);
    std::istringstream m, d;
    if (!(tid >> s.transaction_id) || !(in >> meta >> data >> held >> s.mode)) {
        why = "a short thin-pool status: '" + line + "'";
        return std::nullopt;
    }
    m.str(meta);
    d.str(data);
    if (!(m >> s.metadata_used >> slash1 >> s.metadata_total) || !(d >> s.data_used >> slash2 >> s.data_total) ||
        slash1 != '/' || slash2 != '/' || s.data_total == 0 || s.length_sectors == 0) {
        why = "unreadable block counts in '" + line + "'";
        return std::nullopt;
    }
    return s;
}

/// The fill rate from successive samples, measured over the last `window` at least (a sample's used blocks move in
/// whole writes: over a 50 ms interval one 1 MiB write reads as 20 MiB/s; and two samples close together, as after
/// a long lvextend, would read one write as a flood). The estimate is that window's rate at once when it is higher
/// (a burst must be met now), or the previous estimate decayed with `half_life` (a queued pool, whose usage stops,
/// keeps the rate that filled it). A usage that goes down (discards) restarts the history, and so does a full pool
/// (restart()): the writes it queued land at once when it grows, a backlog and not a rate.
class fill_rate {
public:
    fill_rate(seconds half_life, seconds window) noexcept : half_life_(half_life.count()), window_(window.count()) {}
    void sample(double t, std::uint64_t used_bytes) noexcept {
        if (!h_.empty() && (t <= h_.back().t || used_bytes < h_.back().used)) {
            if (used_bytes < h_.back().used) h_.clear();  // discards; time going back is ignored
            if (!h_.empty()) return;
        }
        h_.push_back({t, used_bytes});
        // The base: the newest sample at least `window` old (or the oldest there is, early on).
        while (h_.size() > 2 && h_[1].t <= t - window_) h_.erase(h_.begin());
        if (h_.size() < 2) return;
        const point& base = h_.front();
        const double inst = static_cast<double>(used_bytes - base.used) / (t - base.t);
        const double decayed = estimate_ * std::exp2(-(t - last_) / half_life_);
        estimate_ = inst > decayed ? inst : decayed;
        last_ = t;
    }
    void restart() noexcept { h_.clear(); }
    rate estimate() const noexcept { return rate(static_cast<std::uint64_t>(estimate_)); }

private:
    struct point {
        double t;
        std::uint64_t used;
    };
    double half_life_, window_;
    double estimate_ = 0.0, last_ = 0.0;
    std::vector<point> h_;
};

/// What the daemon was asked to do.
struct options {
    std::string vg, pool, dm_name;  ///< dm_name: the pool's device (default VG-POOL-tpool)
    seconds interval = seconds(1.0);
    std::optional<bytes> max_pool_size;  ///< default: twice the pool's size at start
    std::optional<bytes> max_vg_take;    ///< default: the pool's size at start
    double lead_factor = 2.0;
    std::optional<seconds> margin;  ///< default: the interval
    seconds horizon = seconds(30.0);
    seconds lvextend_time = seconds(1.0);  ///< the modelled upper bound; the longest observed raises it
    seconds half_life = seconds(30.0);
    seconds rate_window = seconds(1.0);  ///< the rate is measured over at least this
    bytes min_extend{};
    bool dry_run = false, once = false, take_over = false;
};

/// A command's end: its exit status (-1: it could not be run) and its output, stdout and stderr.
struct command_result {
    int status = -1;
    std::string output;
};

/// What the daemon touches of the system.
struct thinpoold_io {
    std::function<command_result(const std::vector<std::string>&)> run;  ///< runs a command, waits for it
    std::function<command_result(const std::string& dm_name)> status;    ///< the device's status line(s)
    std::function<double()> now;                                         ///< seconds, monotonic
    std::function<void(double)> sleep_until;                             ///< returns early on a signal
    std::function<bool()> stopping;                                      ///< SIGINT or SIGTERM seen
    std::function<void(const std::string&)> print;                       ///< one line of the log (stdout)
    std::function<void(const std::string&)> error;                       ///< one line on stderr
};

/// The pool's device-mapper name: lvm2 doubles '-' in VG and LV names and joins them with '-'; a pool with thin
/// volumes active is its -tpool device.
inline std::string dm_name(const std::string& vg, const std::string& lv, const char* layer) {
    auto esc = [](const std::string& s) {
        std::string o;
        for (char c : s) o += c == '-' ? std::string("--") : std::string(1, c);
        return o;
    };
    return esc(vg) + "-" + esc(lv) + layer;
}

inline std::string join(const std::vector<std::string>& argv) {
    std::string s;
    for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
    return s;
}

inline std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

/// What lvs says of the pool and its VG at start (and after a failed extend).
struct pool_lv {
    bytes size, metadata_size, extent, vg_free;
    bool monitored = false;
};

/// `lvs` for the pool: its size, its metadata's, the VG's extent and free space, and whether dmeventd monitors it.
inline std::optional<pool_lv> read_lv(const options& o, thinpoold_io& io) {
    // log/command_names=0: a configuration that names commands would prefix every line lvs prints.
    const command_result r =
        io.run({"lvs", "--config", "log/command_names=0", "--noheadings", "--nosuffix", "--units", "b", "--separator",
                ",", "-o", "lv_size,lv_metadata_size,vg_extent_size,vg_free,seg_monitor", o.vg + "/" + o.pool});
    std::istringstream in(r.output);
    std::string line, f[5];
    while (std::getline(in, line)) {
        std::istringstream l(line);
        int n = 0;
        while (n < 5 && std::getline(l, f[n], ',')) ++n;
        if (n < 4) continue;
        for (auto& x : f) x.erase(0, x.find_first_not_of(' '));
        try {
            pool_lv p{bytes(std::stoull(f[0])), bytes(f[1].empty() ? 0 : std::stoull(f[1])), bytes(std::stoull(f[2])),
                      bytes(std::stoull(f[3])), n == 5 && f[4] == "monitored"};
            if (r.status == 0) return p;
        } catch (const std::exception&) {
        }
    }
    const std::string first = r.output.substr(0, r.output.find('\n'));
    io.error("thinpoold: cannot read " + o.vg + "/" + o.pool + " with lvs (exit " + std::to_string(r.status) +
             "): " + first);
    return std::nullopt;
}

/// The pool's status now, or nullopt with the reason printed.
inline std::optional<pool_status> read_status(const std::string& dev, thinpoold_io& io,
                                              std::optional<command_result> read = std::nullopt) {
    const command_result r = read ? *read : io.status(dev);
    std::string why = "no status";
    if (r.status == 0) {
        std::istringstream in(r.output);
        std::string line;
        while (std::getline(in, line))
            if (auto s = parse_status(line, why)) return s;
    } else {
        why = r.output.substr(0, r.output.find('\n'));
    }
    io.error("thinpoold: " + dev + ": " + why);
    return std::nullopt;
}

/// The daemon's state between samples.
struct watch_state {
    pool_lv lv;
    std::optional<lvm_rate_aware_config> cfg;
    fill_rate fill;
    bytes taken{};
    double longest_lvextend = 0.0;
    int extends = 0, failures = 0;
    bool was_full = false;     ///< the last sample found the pool full
    bool unmonitored = false;  ///< dmeventd does not monitor the pool: lvextend must not make it
    lvm_rate_aware_outcome last_printed = lvm_rate_aware_outcome::none;
};

/// One sample and its decision; runs lvextend when it extends (prints it in a dry run).
inline void step(const options& o, const std::string& dev, watch_state& w, thinpoold_io& io) {
    const auto st = read_status(dev, io);
    if (!st) return;
    const double t = io.now();
    const bytes chunk = w.cfg->settings().pool_chunk;
    if (w.was_full) w.fill.restart();
    w.fill.sample(t, st->data_used * chunk.count());
    w.was_full = st->data_used >= st->data_total || st->mode == "out_of_data_space";
    lvm_pool_view v{};
    v.size = bytes(st->length_sectors * 512);
    v.used = st->data_used;
    v.total = st->data_total;
    v.metadata_size = w.lv.metadata_size;
    v.metadata_used = st->metadata_used;
    v.metadata_total = st->metadata_total;
    v.vg_free = w.lv.vg_free;
    v.taken = w.taken;
    const seconds service(std::max(o.lvextend_time.count(), w.longest_lvextend));
    const rate r = w.fill.estimate();
    const auto d = w.cfg->decide(v, r, service);
    if (d.outcome == lvm_rate_aware_outcome::none ||
        (d.outcome == lvm_rate_aware_outcome::blocked && w.last_printed == lvm_rate_aware_outcome::blocked)) {
        w.last_printed = d.outcome;
        return;
    }
    w.last_printed = d.outcome;
    io.print(fmt("%.3f", t) + " decide used=" + std::to_string(st->data_used) + "/" + std::to_string(st->data_total) +
             " mode=" + st->mode + " free=" + std::to_string(d.free.count()) +
             " rate=" + std::to_string(r.bytes_per_second()) + " service=" + fmt("%.3f", service.count()) +
             " lead=" + fmt("%.3f", d.lead.count()) + " outcome=" + to_text(d.outcome) + " limit=" + to_text(d.limit) +
             " add=" + std::to_string(d.add.count()) + " new_size=" + std::to_string(d.new_size.count()) +
             " vg_needed=" + std::to_string(d.vg_needed.count()));
    if (!d.extends()) return;
    // A pool dmeventd does not monitor (taken over, or left so by the operator) stays so: lvextend registers the pool
    // with dmeventd again as it resumes it when activation/monitoring is on (lvm2 2.03's lvextend has no
    // --ignoremonitoring). A monitored pool is extended as it is, and lvextend keeps it monitored.
    std::vector<std::string> cmd{"lvextend"};
    if (w.unmonitored) cmd.insert(cmd.end(), {"--config", "activation/monitoring=0"});
    cmd.insert(cmd.end(), {"-L+" + std::to_string(d.add.count() >> 10) + "k", o.vg + "/" + o.pool});
    if (o.dry_run) {
        io.print(fmt("%.3f", t) + " dry-run: " + join(cmd));
        return;
    }
    const double t0 = io.now();
    const command_result r2 = io.run(cmd);
    const double took = io.now() - t0;
    if (r2.status == 0) {
        ++w.extends;
        w.taken = w.taken + d.vg_needed;
        w.lv.vg_free = w.lv.vg_free - d.vg_needed;
        if (took > w.longest_lvextend) w.longest_lvextend = took;
        io.print(fmt("%.3f", io.now()) + " extended: " + join(cmd) + " took=" + fmt("%.3f", took) +
                 " taken=" + std::to_string(w.taken.count()));
    } else {
        ++w.failures;
        io.error("thinpoold: " + join(cmd) + " failed (exit " + std::to_string(r2.status) +
                 "): " + r2.output.substr(0, r2.output.find('\n')));
        if (auto lv = read_lv(o, io)) w.lv.vg_free = lv->vg_free;  // what the VG really has now
    }
}

/// Runs the daemon; returns its exit status: 0 done (--once) or stopped by SIGINT/SIGTERM; 1 the pool could not
/// be read at start, or its settings are not lvm2's.
inline int run(const options& o, thinpoold_io& io) {
    auto lv = read_lv(o, io);
    if (!lv) return 1;
    std::string dev = o.dm_name;
    std::optional<command_result> first;
    if (dev.empty()) {
        dev = dm_name(o.vg, o.pool, "-tpool");
        first = io.status(dev);
        if (first->status != 0) {
            dev = dm_name(o.vg, o.pool, "");
            first.reset();
        }
    }
    const auto st = read_status(dev, io, first);
    if (!st) return 1;
    lvm_rate_aware_settings s;
    s.lead_factor = o.lead_factor;
    s.margin = o.margin.value_or(o.interval);
    s.horizon = o.horizon;
    s.extent = lv->extent;
    s.pool_chunk = bytes(st->length_sectors * 512 / st->data_total);
    s.min_extend = o.min_extend;
    const bytes size(st->length_sectors * 512);
    s.max_pool_size = o.max_pool_size.value_or(size + size);
    s.max_vg_take = o.max_vg_take.value_or(size);
    auto cfg = lvm_rate_aware_config::make(s);
    if (!cfg) {
        io.error("thinpoold: " + std::string(cfg.error().message().view()));
        return 1;
    }
    watch_state w{*lv, *cfg, fill_rate(o.half_life, o.rate_window)};
    io.print("thinpoold: watching " + o.vg + "/" + o.pool + " (" + dev + "): size " + std::to_string(size.count()) +
             ", chunk " + std::to_string(s.pool_chunk.count()) + ", extent " + std::to_string(s.extent.count()) +
             ", VG free " + std::to_string(lv->vg_free.count()) + "; max pool size " +
             std::to_string(s.max_pool_size.count()) + ", max VG take " + std::to_string(s.max_vg_take.count()) +
             "; lead " + fmt("%g", s.lead_factor) + " x max(" + fmt("%g", o.lvextend_time.count()) +
             " s, the longest lvextend) + " + fmt("%g", s.margin.count()) + " s, horizon " +
             fmt("%g", s.horizon.count()) + " s" + (o.dry_run ? "; dry run" : ""));
    const std::vector<std::string> off{"lvchange", "--monitor", "n", o.vg + "/" + o.pool};
    const bool restore = o.take_over && lv->monitored;
    w.unmonitored = restore || !lv->monitored;
    if (restore) {
        if (o.dry_run) {
            io.print("dry-run: " + join(off));
        } else if (const auto r = io.run(off); r.status != 0) {
            io.error("thinpoold: " + join(off) + " failed (exit " + std::to_string(r.status) + ")");
            return 1;
        }
    }
    // The first sample is the baseline of the rate; the first decision one interval later (with --once, the only).
    w.fill.sample(io.now(), st->data_used * s.pool_chunk.count());
    for (double next = io.now() + o.interval.count(); !io.stopping(); next += o.interval.count()) {
        io.sleep_until(next);
        if (io.stopping()) break;
        step(o, dev, w, io);
        if (o.once) break;
        if (next < io.now()) next = io.now();  // a long lvextend: no ticks to catch up on, the next one interval on
    }
    if (restore) {
        const std::vector<std::string> on{"lvchange", "--monitor", "y", o.vg + "/" + o.pool};
        if (o.dry_run)
            io.print("dry-run: " + join(on));
        else if (io.run(on).status != 0)
            io.error("thinpoold: " + join(on) + " failed: dmeventd does not monitor " + o.vg + "/" + o.pool);
    }
    io.print("thinpoold: stopped: " + std::to_string(w.extends) + " extends, " + std::to_string(w.failures) +
             " failed, " + std::to_string(w.taken.count()) + " bytes taken, longest lvextend " +
             fmt("%.3f", w.longest_lvextend) + " s");
    return 0;
}

}  // namespace provpol::thinpoold

#endif  // PROVPOL_EXAMPLES_THINPOOLD_HPP
