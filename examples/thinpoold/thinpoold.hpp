// provpol-thinpoold's core: reads a thin pool's status, estimates its fill rate, decides with
// lvm_rate_aware_config (include/provpol/extend/lvm_rate_aware.hpp) and runs lvextend, as root, failing closed:
// - every command it runs is bounded (the runner's timeout) and every extend is verified by reading the pool back
//   with lvs, whatever lvextend's exit status: what the pool really grew by is what counts against the caps, an
//   extend that grew less than asked is a failure, failures back off exponentially and, repeated, are logged at
//   error level and hand the pool back to dmeventd;
// - what it took of the VG and whether it turned dmeventd's monitoring off are kept in a state file written before
//   each action (state.hpp), so that its caps hold across restarts and a start after a kill repairs what the kill
//   left (the unit's ExecStopPost= runs --restore for the same);
// - with --take-over it gives dmeventd its monitoring back on every way out it sees (a stop signal, --once, an
//   error at start or later) and exits non-zero when that fails.
// Everything it touches of the system goes through `thinpoold_io` (the commands, the status, the clock, the sleep,
// the stop flag, the log, the state and metrics files), so that tests drive it with a pool and a clock of their own
// (tests/thinpoold_test.cpp); main.cpp gives it the real ones.
#ifndef PROVPOL_EXAMPLES_THINPOOLD_HPP
#define PROVPOL_EXAMPLES_THINPOOLD_HPP

#include "fill_rate.hpp"
#include "metrics.hpp"
#include "options.hpp"
#include "pool.hpp"
#include "state.hpp"

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

/// Exit statuses: stopped (or --once done) with the pool as safe as it was found; could not start or a fatal error
/// (monitoring given back); bad input; dmeventd's monitoring, turned off by the daemon, could not be given back.
inline constexpr int exit_ok = 0, exit_failed = 1, exit_usage = 2, exit_not_restored = 3;

/// Consecutive failures (extends, reads) after which the daemon says so at error level and hands the pool back to
/// dmeventd if it took it over.
inline constexpr int failure_limit = 3;
/// The longest back-off between extends after failures, in seconds.
inline constexpr double max_backoff = 60.0;

/// A log line's priority: syslog's levels, as sd-daemon's "<N>" prefixes carry them to the journal.
enum class priority : int { err = 3, warning = 4, notice = 5, info = 6 };

/// A command's end: its exit status (-1: not run, killed, or abandoned) and its output, stdout and stderr.
struct command_result {
    int status = -1;
    std::string output;
    bool timed_out = false;    ///< it ran past --command-timeout and was killed
    bool interrupted = false;  ///< a stop signal came while it ran: it was sent SIGTERM

    bool ok() const noexcept { return status == 0 && !timed_out && !interrupted; }
    /// "exit 5: <its first line>", "timed out", "interrupted".
    std::string why() const {
        const std::string first = output.substr(0, output.find('\n'));
        std::string w = timed_out     ? "timed out"
                        : interrupted ? "interrupted by a stop signal"
                                      : "exit " + std::to_string(status);
        return first.empty() ? w : w + ": " + first;
    }
};

/// A file read: absent, or its text, or why it could not be read.
struct file_read {
    bool exists = false;
    std::string text, error;  ///< error: not "" when it exists and could not be read
};

/// What the daemon touches of the system.
struct thinpoold_io {
    /// Runs a command to its end or its timeout; `interruptible`: a stop signal ends it early (SIGTERM).
    std::function<command_result(const std::vector<std::string>&, bool interruptible)> run;
    std::function<command_result(const std::string& dm_name)> status;           ///< the device's status line(s)
    std::function<command_result(const std::string& dm_name)> uuid;             ///< the device's device-mapper UUID
    std::function<double()> now;                                                ///< seconds, monotonic
    std::function<void(double)> sleep_until;                                    ///< returns early on a signal
    std::function<bool()> stopping;                                             ///< a stop signal seen
    std::function<void(priority, const std::string&)> log;                      ///< one line of the log
    std::function<file_read()> load_state;                                      ///< the pool's state file
    std::function<bool(const std::string& text, std::string& why)> save_state;  ///< atomically
    std::function<void(const std::string& text)> write_metrics;                 ///< empty: no --metrics-file
};

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

/// The daemon: run() is its life, from the first lvs to the last lvchange.
class daemon {
public:
    daemon(const options& o, thinpoold_io& io) : o_(o), io_(io), fill_(o.half_life, o.rate_window) {}

    /// Runs the daemon (or, with --restore, only gives dmeventd's monitoring back); returns its exit status.
    int run() {
        try {
            if (o_.restore) return restore_only();
            const int s = start();
            if (s != exit_ok) return finish(s);
            loop();
            return finish(exit_ok);
        } catch (const std::exception& e) {
            log(priority::err, std::string("fatal: ") + e.what());
            return finish(exit_failed);
        }
    }

private:
    std::string lv_path() const { return o_.vg + "/" + o_.pool; }
    void log(priority p, const std::string& line) { io_.log(p, line); }

    bool save() {
        if (o_.dry_run) return true;
        std::string why;
        if (io_.save_state(state_text(ps_, o_.vg, o_.pool), why)) return true;
        log(priority::err, "cannot write the state of " + lv_path() + ": " + why);
        return false;
    }

    // lvs for the pool, parsed strictly; false (logged) when it fails.
    bool read_lv(pool_lv& into, bool interruptible) {
        const command_result r = io_.run({"lvs", "--config", "log/command_names=0", "--noheadings", "--nameprefixes",
                                          "--units", "b", "--nosuffix", "-o", lvs_fields, "--", lv_path()},
                                         interruptible);
        std::string why = r.why();
        if (r.ok()) {
            if (auto p = parse_lvs(r.output, why)) {
                if (ps_.lv_uuid.empty() || p->lv_uuid == ps_.lv_uuid) {
                    into = *p;
                    return true;
                }
                why = "it is another LV now (uuid " + p->lv_uuid + ", was " + ps_.lv_uuid + ")";
            }
        }
        log(priority::err, "cannot read " + lv_path() + " with lvs: " + why);
        return false;
    }

    // lvs again; an extend whose result was never read (pending) is counted now.
    bool refresh_lv(bool interruptible) {
        pool_lv now;
        if (!read_lv(now, interruptible)) return false;
        lv_ = now;
        lv_stale_ = false;
        if (ps_.pending != 0) {
            const std::uint64_t a = lv_.allocated().count();
            const std::uint64_t grown = a > ps_.pending ? a - ps_.pending : 0;
            ps_.taken += grown;
            log(priority::notice, "an extend of " + lv_path() + " whose end was not seen grew it by " +
                                      std::to_string(grown) + " bytes: taken " + std::to_string(ps_.taken));
            ps_.pending = 0;
            save();
        }
        return true;
    }

    // The status now, checked against lvs (a pool resized by another, dmeventd as the backstop, is read again).
    std::optional<pool_status> read_status() {
        for (int attempt = 0; attempt < 2; ++attempt) {
            const command_result r = io_.status(dev_);
            std::string why = r.why();
            std::optional<pool_status> s;
            if (r.ok()) s = parse_status(r.output, why);
            if (s) why = status_mismatch(*s, lv_);
            if (s && why.empty()) return s;
            if (attempt == 0 && s && refresh_lv(true)) continue;
            log(priority::err, dev_ + ": " + why);
            return std::nullopt;
        }
        return std::nullopt;
    }

    int restore_only();
    int start();
    bool load_state();
    bool resolve_device();
    bool take_over();
    bool give_back(const std::string& why);
    void read_metadata_rule(lvm_rate_aware_settings& s);
    bool configure();
    void loop();
    void step();
    void extend(const std::vector<std::string>& cmd, bytes want_size, bytes want_metadata);
    void failed(const std::string& what);
    void metrics(const pool_status* st, bool force);
    int finish(int code);

    const options& o_;
    thinpoold_io& io_;
    pool_lv lv_;
    pool_state ps_;
    std::string dev_;
    std::optional<lvm_rate_aware_config> cfg_;
    fill_rate fill_;
    bool unmonitored_ = false, lv_stale_ = false, dev_stale_ = false, started_ = false;
    double longest_ = 0.0, backoff_until_ = 0.0, metrics_at_ = -1e300;
    int consecutive_ = 0;
    std::uint64_t extends_ = 0, failures_ = 0;  // this run's
    std::string last_printed_;
    std::optional<pool_status> last_status_;
};

// --restore: the unit's ExecStopPost=. Gives dmeventd's monitoring back when the state says the daemon turned it
// off (a daemon killed, or one that could not), and nothing else.
inline int daemon::restore_only() {
    if (!load_state()) return exit_failed;
    if (!ps_.monitoring_off) {
        log(priority::info, "dmeventd's monitoring of " + lv_path() + " is not the daemon's to give back");
        return exit_ok;
    }
    pool_lv lv;
    if (!read_lv(lv, false)) log(priority::warning, "giving the monitoring back all the same");
    return give_back("--restore") ? exit_ok : exit_not_restored;
}

// The state file: absent (a first start), or read strictly.
inline bool daemon::load_state() {
    const file_read f = io_.load_state();
    if (!f.error.empty()) {
        log(priority::err, "cannot read the state of " + lv_path() + ": " + f.error);
        return false;
    }
    if (!f.exists) return true;
    std::string why;
    const auto s = parse_state(f.text, why);
    if (!s) {
        log(priority::err, "the state of " + lv_path() + " is not readable (" + why +
                               "): remove it, or pass --reset-state (dmeventd's monitoring of the pool is then "
                               "the operator's to check)");
        return false;
    }
    ps_ = *s;
    return true;
}

// The pool's device: --dm-name, or VG-POOL-tpool, else VG-POOL; its device-mapper UUID must be the pool's.
inline bool daemon::resolve_device() {
    std::vector<std::string> devs{o_.dm_name};
    if (o_.dm_name.empty()) devs = {dm_name(o_.vg, o_.pool, "-tpool"), dm_name(o_.vg, o_.pool, "")};
    command_result r;
    for (const std::string& d : devs) {
        dev_ = d;
        r = io_.uuid(d);
        if (r.ok()) break;
    }
    if (!r.ok()) {
        log(priority::err, dev_ + ": " + r.why());
        return false;
    }
    std::string uuid = r.output.substr(0, r.output.find('\n'));
    uuid.erase(uuid.find_last_not_of(" \t\r") + 1);
    uuid.erase(0, uuid.find_first_not_of(" \t"));
    const std::string want = lv_.dm_uuid();
    if (uuid != want && uuid != want + "-tpool") {
        log(priority::err,
            dev_ + " is not " + lv_path() + "'s device: its UUID is '" + uuid + "', the pool's " + want + "[-tpool]");
        return false;
    }
    return true;
}

// --take-over: the state says so first (a kill right after leaves a record), then lvchange, then lvs says so.
inline bool daemon::take_over() {
    const std::vector<std::string> off{"lvchange", "--monitor", "n", "--", lv_path()};
    if (o_.dry_run) {
        log(priority::info, "dry-run: " + join(off));
        return true;
    }
    ps_.monitoring_off = true;
    if (!save()) return false;
    const command_result r = io_.run(off, false);
    pool_lv now;
    if (read_lv(now, false) && !now.monitored()) {
        lv_ = now;
        log(priority::notice, "took " + lv_path() + " over from dmeventd (" + join(off) + ")");
        return true;
    }
    log(priority::err, join(off) + " did not turn dmeventd's monitoring off: " + r.why());
    give_back("taking over failed");
    return false;
}

// Turns dmeventd's monitoring back on if the daemon turned it off, and reads it back; false when it is still off.
inline bool daemon::give_back(const std::string& why) {
    if (!ps_.monitoring_off) return true;
    const std::vector<std::string> on{"lvchange", "--monitor", "y", "--", lv_path()};
    if (o_.dry_run) {
        log(priority::info, "dry-run: " + join(on));
        return true;
    }
    // Twice: a stop signalled to the unit's whole control group can end the lvm shell as the first attempt is
    // written to it (the command lost, not failed); the second runs in a new shell. lvchange --monitor y is
    // idempotent, and each attempt is bounded by --command-timeout.
    command_result r;
    for (int attempt = 0; attempt < 2; ++attempt) {
        r = io_.run(on, false);
        pool_lv now;
        if (read_lv(now, false) && now.monitored()) {
            ps_.monitoring_off = false;
            unmonitored_ = false;
            save();
            log(priority::notice, "dmeventd monitors " + lv_path() + " again (" + why + ")");
            return true;
        }
    }
    log(priority::err, join(on) + " failed (" + r.why() + "): dmeventd does not monitor " + lv_path() +
                           "; run `lvchange --monitor y " + lv_path() + "`");
    return false;
}

// lvm2's rule for the metadata, with lvm.conf's threshold and percent (the pool's profile merged in) unless given.
inline void daemon::read_metadata_rule(lvm_rate_aware_settings& s) {
    s.metadata_threshold = o_.metadata_threshold.value_or(100);
    s.metadata_percent = o_.metadata_percent.value_or(20);
    if (!unmonitored_) {
        s.metadata_threshold = 100;  // dmeventd grows it, with lvm.conf's rule
        log(priority::info, "the metadata is dmeventd's: it monitors " + lv_path());
        return;
    }
    if (!o_.metadata_threshold || !o_.metadata_percent) {
        std::vector<std::string> cmd{"lvmconfig", "--config", "log/command_names=0", "--type", "full"};
        if (!lv_.profile.empty()) cmd.insert(cmd.end(), {"--mergedconfig", "--metadataprofile", lv_.profile});
        cmd.insert(cmd.end(), {"activation/thin_pool_autoextend_threshold", "activation/thin_pool_autoextend_percent"});
        const command_result r = io_.run(cmd, true);
        std::istringstream in(r.output);
        std::uint64_t t = 100, p = 20;
        int found = 0;
        for (std::string line; r.ok() && std::getline(in, line);) {
            line.erase(0, line.find_first_not_of(" \t"));
            for (auto [key, to] : {std::pair<const char*, std::uint64_t*>{"thin_pool_autoextend_threshold=", &t},
                                   {"thin_pool_autoextend_percent=", &p}})
                if (line.rfind(key, 0) == 0 && read_u64(line.substr(std::string(key).size()), *to)) ++found;
        }
        if (found != 2)
            log(priority::warning, join(cmd) + " did not report both settings (" + r.why() +
                                       "): the metadata is grown with lvm2's defaults, 100 (off) and 20");
        if (!o_.metadata_threshold) s.metadata_threshold = found == 2 ? t : 100;
        if (!o_.metadata_percent) s.metadata_percent = found == 2 ? p : 20;
    }
    log(priority::info,
        "the metadata is grown by lvm2's rule: threshold " + std::to_string(s.metadata_threshold) + ", percent " +
            std::to_string(s.metadata_percent) +
            (s.metadata_threshold >= 100 ? " (off: it grows only with the data, as lvextend grows it)" : ""));
}

// The start: the state, the pool and its device read and checked, the monitoring repaired or taken over, the
// policy made. Anything wrong is exit_failed before the daemon acts on the pool.
inline int daemon::start() {
    if (!load_state()) return exit_failed;
    const pool_state loaded = ps_;
    ps_.lv_uuid.clear();  // read_lv checks the uuid only once it is the state's
    if (!read_lv(lv_, true)) return exit_failed;
    if (!loaded.lv_uuid.empty() && loaded.lv_uuid != lv_.lv_uuid && !o_.reset_state) {
        log(priority::err, "the state of " + lv_path() + " is for another pool (LV uuid " + loaded.lv_uuid +
                               ", this one is " + lv_.lv_uuid + "): remove it, or pass --reset-state");
        ps_ = loaded;
        ps_.monitoring_off = false;  // not this pool's to give back
        return exit_failed;
    }
    if (loaded.lv_uuid.empty() || o_.reset_state) {
        if (!loaded.lv_uuid.empty())
            log(priority::notice, "--reset-state: the accounting of " + lv_path() + " starts over (it had taken " +
                                      std::to_string(loaded.taken) + " bytes)");
        const bool off = loaded.lv_uuid == lv_.lv_uuid && loaded.monitoring_off;
        ps_ = pool_state{};
        ps_.monitoring_off = off;  // what the daemon turned off stays its to give back
        ps_.first_size = lv_.size.count();
    } else {
        ps_ = loaded;
    }
    ps_.lv_uuid = lv_.lv_uuid;
    if (ps_.pending != 0 && !refresh_lv(true)) return exit_failed;
    if (!save()) return exit_failed;
    if (!resolve_device()) return exit_failed;
    const auto st = read_status();
    if (!st) return exit_failed;
    if (io_.stopping()) return exit_ok;  // stopped while starting: nothing taken over yet
    if (ps_.monitoring_off && !o_.take_over) {
        if (!give_back("a previous provpol-thinpoold ended with it off")) return exit_not_restored;
    } else if (ps_.monitoring_off) {
        log(priority::notice, "a previous provpol-thinpoold ended with dmeventd's monitoring of " + lv_path() +
                                  " off: taking it over again");
    }
    if (o_.take_over && lv_.monitored() && !take_over()) return exit_failed;
    unmonitored_ = ps_.monitoring_off || !lv_.monitored() || (o_.dry_run && o_.take_over);
    if (!configure()) return exit_failed;
    started_ = true;
    // The first sample is the baseline of the rate; the first decision one interval later (with --once, the only).
    fill_.sample(io_.now(), st->data_used * lv_.chunk.count(), st->full());
    last_status_ = st;
    metrics(&*st, true);
    return exit_ok;
}

// The policy, from the options, the pool and the state's base (the caps are absolute: twice and once the size the
// pool had when the daemon first saw it, by default).
inline bool daemon::configure() {
    lvm_rate_aware_settings s;
    s.lead_factor = o_.lead_factor;
    s.margin = o_.margin.value_or(o_.interval);
    s.horizon = o_.horizon;
    s.extent = lv_.extent;
    s.pool_chunk = lv_.chunk;
    s.min_extend = o_.min_extend;
    s.min_free = o_.min_free;
    s.min_free_percent = o_.min_free_percent;
    s.min_rate = o_.burst_rate;
    const bytes first(ps_.first_size);
    s.max_pool_size = o_.max_pool_size.value_or(first + first);
    s.max_vg_take = o_.max_vg_take.value_or(first);
    read_metadata_rule(s);
    auto cfg = lvm_rate_aware_config::make(s);
    if (!cfg) {
        log(priority::err, std::string(cfg.error().message().view()));
        return false;
    }
    cfg_ = *cfg;
    log(priority::info,
        "watching " + lv_path() + " (" + dev_ + "): size " + std::to_string(lv_.size.count()) + ", chunk " +
            std::to_string(s.pool_chunk.count()) + ", extent " + std::to_string(s.extent.count()) + ", VG free " +
            std::to_string(lv_.vg_free.count()) + "; max pool size " + std::to_string(s.max_pool_size.count()) +
            ", max VG take " + std::to_string(s.max_vg_take.count()) + " (taken " + std::to_string(ps_.taken) +
            "); floor max(" + std::to_string(s.min_free.count()) + ", " + std::to_string(s.min_free_percent) +
            "%); burst rate " + std::to_string(s.min_rate.bytes_per_second()) + " B/s; lead " +
            fmt("%g", s.lead_factor) + " x max(" + fmt("%g", o_.lvextend_time.count()) +
            " s, the longest lvextend) + " + fmt("%g", s.margin.count()) + " s, horizon " +
            fmt("%g", s.horizon.count()) + " s; dmeventd " +
            (unmonitored_ ? "does not monitor it" : "monitors it (the backstop)") + (o_.dry_run ? "; dry run" : ""));
    return true;
}

inline void daemon::loop() {
    for (double next = io_.now() + o_.interval.count(); !io_.stopping(); next += o_.interval.count()) {
        io_.sleep_until(next);
        if (io_.stopping()) break;
        step();
        if (o_.once) break;
        if (next < io_.now()) next = io_.now();  // a long command: no ticks to catch up on, the next one interval on
    }
}

// One decision: the status, the rate, the data's extend or else, when dmeventd does not watch the pool, lvm2's
// rule for its metadata. Nothing is run while a back-off lasts.
inline void daemon::step() {
    if (lv_stale_ && !refresh_lv(true)) return failed("lvs");
    if (dev_stale_ && !resolve_device()) return failed("the pool's device");
    dev_stale_ = false;
    const auto st = read_status();
    if (!st) {
        dev_stale_ = o_.dm_name.empty();  // its thin volumes (de)activated: -tpool or not, found again
        return failed("the status");
    }
    const double t = io_.now();
    last_status_ = st;
    fill_.sample(t, st->data_used * lv_.chunk.count(), st->full());
    lvm_pool_view v{};
    v.size = lv_.size;
    v.used = blocks(st->data_used);
    v.total = blocks(st->data_total);
    v.metadata_size = lv_.metadata_size;
    v.metadata_used = blocks(st->metadata_used);
    v.metadata_total = blocks(st->metadata_total);
    v.vg_free = lv_.vg_free;
    v.taken = bytes(ps_.taken);
    // A pool that took nothing for a whole rate window is not filling: its floor only (fill_rate::still).
    const rate r = fill_.still(t) ? rate(0) : fill_.estimate();
    const seconds service(std::max(o_.lvextend_time.count(), longest_));
    const lvm_rate_aware_decision d = cfg_->decide(v, r, service);
    const bool waiting = t < backoff_until_;
    const std::string line =
        "decide used=" + std::to_string(st->data_used) + "/" + std::to_string(st->data_total) + " mode=" + st->mode +
        " free=" + std::to_string(d.free.count()) + " floor=" + std::to_string(d.floor.count()) +
        " rate=" + std::to_string(d.rate_used.bytes_per_second()) + " service=" + fmt("%.3f", service.count()) +
        " lead=" + fmt("%.3f", d.lead.count()) + " outcome=" + to_text(d.outcome) + " limit=" + to_text(d.limit) +
        " add=" + std::to_string(d.add.count()) + " new_size=" + std::to_string(d.new_size.count()) +
        " vg_needed=" + std::to_string(d.vg_needed.count()) + (waiting ? " (backing off)" : "");
    const std::string key = std::string(to_text(d.outcome)) + to_text(d.limit) + (waiting ? "w" : "");
    const bool changed = key != last_printed_;
    if (d.extends() || changed)
        log(d.outcome == lvm_rate_aware_outcome::blocked ? (st->full() ? priority::err : priority::warning)
                                                         : priority::info,
            line);
    last_printed_ = key;
    metrics(&*st, false);
    if (waiting) return;
    const std::string flags = unmonitored_ ? "activation/monitoring=0" : "";
    if (d.extends()) {
        std::vector<std::string> cmd{"lvextend"};
        if (unmonitored_) cmd.insert(cmd.end(), {"--config", flags});
        cmd.insert(cmd.end(), {"-L+" + std::to_string(d.add.count() >> 10) + "k", "--", lv_path()});
        return extend(cmd, d.new_size, lv_.metadata_size);
    }
    if (!unmonitored_) return;
    const lvm_metadata_decision m = cfg_->decide_metadata(v);
    if (m.outcome == lvm_rate_aware_outcome::blocked && changed)
        log(priority::warning, "the metadata of " + lv_path() + " is past lvm2's threshold and " + to_text(m.limit) +
                                   " leaves no extent to grow it");
    if (!m.extends()) return;
    log(priority::info, "metadata used=" + std::to_string(st->metadata_used) + "/" +
                            std::to_string(st->metadata_total) + " threshold=" + std::to_string(m.threshold) +
                            "% outcome=" + to_text(m.outcome) + " add=" + std::to_string(m.add.count()));
    std::vector<std::string> cmd{"lvextend"};
    if (unmonitored_) cmd.insert(cmd.end(), {"--config", flags});
    cmd.insert(cmd.end(), {"--poolmetadatasize", "+" + std::to_string(m.add.count() >> 10) + "k", "--", lv_path()});
    extend(cmd, lv_.size, m.new_size);
}

// Runs an lvextend and verifies it by lvs, whatever its exit status: what the pool grew by is taken; less than
// asked (`want_size` data, `want_metadata` metadata) is a failure. The state holds the size before (pending) while
// it runs, so that a kill in between is accounted at the next start.
inline void daemon::extend(const std::vector<std::string>& cmd, bytes want_size, bytes want_metadata) {
    if (o_.dry_run) {
        log(priority::info, "dry-run: " + join(cmd));
        return;
    }
    const pool_lv before = lv_;
    ps_.pending = before.allocated().count();
    if (!save()) {
        ps_.pending = 0;
        return failed("the state file (nothing run)");
    }
    const double t0 = io_.now();
    const command_result r = io_.run(cmd, true);
    const double took = io_.now() - t0;
    pool_lv after;
    if (!read_lv(after, false)) {
        lv_stale_ = true;  // pending stays: the next lvs that works counts it
        return failed(join(cmd) + " (" + r.why() + ", not verified)");
    }
    lv_ = after;
    const std::uint64_t a0 = before.allocated().count(), a1 = after.allocated().count();
    const std::uint64_t grown = a1 > a0 ? a1 - a0 : 0;
    ps_.taken += grown;
    ps_.pending = 0;
    if (grown != 0) fill_.grown(io_.now());
    const bool enough = after.size >= want_size && after.metadata_size >= want_metadata;
    if (enough) {
        ++ps_.extends, ++extends_;
        consecutive_ = 0;
        if (r.ok() && took > longest_) longest_ = took;
        save();
        log(priority::notice, "extended: " + join(cmd) + " took=" + fmt("%.3f", took) +
                                  " taken=" + std::to_string(ps_.taken) +
                                  (r.ok() ? "" : " (" + r.why() + ", but the pool grew as asked)"));
    } else {
        failed(join(cmd) + " grew " + lv_path() + " by " + std::to_string(grown) + " bytes, less than asked (" +
               r.why() + "; taken " + std::to_string(ps_.taken) + ")");
    }
    metrics(last_status_ ? &*last_status_ : nullptr, true);
}

// A failure: counted, logged, the next extend backed off (the interval doubled per failure in a row, up to
// max_backoff); at failure_limit in a row, an error, and the pool handed back to dmeventd if the daemon took it.
inline void daemon::failed(const std::string& what) {
    ++ps_.failures, ++failures_, ++consecutive_;
    save();
    const double backoff =
        std::min(max_backoff, o_.interval.count() * std::exp2(static_cast<double>(std::min(consecutive_, 40))));
    backoff_until_ = io_.now() + backoff;
    const bool limit = consecutive_ == failure_limit;
    log(limit ? priority::err : priority::warning,
        "failed: " + what + "; " + std::to_string(consecutive_) + " in a row, the next extend in " +
            fmt("%.3f", backoff) + " s" +
            (limit && ps_.monitoring_off ? ": handing " + lv_path() + " back to dmeventd" : ""));
    if (limit && ps_.monitoring_off) give_back(std::to_string(failure_limit) + " failures in a row");
    metrics(last_status_ ? &*last_status_ : nullptr, true);
}

inline void daemon::metrics(const pool_status* st, bool force) {
    if (!io_.write_metrics || !cfg_) return;
    const double t = io_.now();
    if (!force && t - metrics_at_ < 1.0) return;
    metrics_at_ = t;
    metrics_values m;
    m.size = lv_.size.count();
    m.metadata_size = lv_.metadata_size.count();
    if (st) {
        m.free = (st->data_total - st->data_used) * lv_.chunk.count();
        m.metadata_free = (st->metadata_total - st->metadata_used) * 4096;
    }
    m.rate = fill_.estimate().bytes_per_second();
    m.extends = ps_.extends, m.failures = ps_.failures;
    m.taken = ps_.taken;
    m.max_vg_take = cfg_->settings().max_vg_take.count();
    m.max_pool_size = cfg_->settings().max_pool_size.count();
    m.monitoring_off = ps_.monitoring_off;
    io_.write_metrics(metrics_text(o_.vg, o_.pool, m));
}

// Every way out of run(): dmeventd's monitoring given back if the daemon turned it off, the last metrics, a line.
inline int daemon::finish(int code) {
    if (ps_.monitoring_off && !ps_.lv_uuid.empty()) give_back("exit");
    if (ps_.monitoring_off && !ps_.lv_uuid.empty() && !o_.dry_run) code = exit_not_restored;
    metrics(last_status_ ? &*last_status_ : nullptr, true);
    log(code == exit_ok ? priority::info : priority::err,
        "stopped: " + std::to_string(extends_) + " extends, " + std::to_string(failures_) + " failed, " +
            std::to_string(ps_.taken) + " bytes taken in all, longest lvextend " + fmt("%.3f", longest_) + " s" +
            (code == exit_ok ? std::string() : ", exit status " + std::to_string(code)));
    return code;
}

/// Runs the daemon; returns its exit status (exit_ok, exit_failed, exit_not_restored).
inline int run(const options& o, thinpoold_io& io) {
    daemon d(o, io);
    return d.run();
}

}  // namespace provpol::thinpoold

#endif  // PROVPOL_EXAMPLES_THINPOOLD_HPP
