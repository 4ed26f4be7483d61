// provpol plan and provpol recommend for a Stratis pool (--preset stratis-data): a write burst into the pool with
// stratisd's checks (simulate/stratis_pool.hpp), reported per rate, and the smallest backstore headroom that keeps
// every run out of error_if_no_space (recommend_stratis_headroom, a scan). cmd_plan.cpp and cmd_recommend.cpp come
// here when --preset names a Stratis preset (is_stratis_invocation).
#ifndef PROVPOL_CLI_STRATIS_PLAN_HPP
#define PROVPOL_CLI_STRATIS_PLAN_HPP

#include "common/cli.hpp"
#include "common/table.hpp"
#include "plan.hpp"
#include "work.hpp"

#include <provpol/extend.hpp>
#include <provpol/parse.hpp>
#include <provpol/simulate/stratis_pool.hpp>
#include <provpol/simulate/stratis_recommend.hpp>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace provpol::cli {

/// True when --preset names a Stratis preset (plan and recommend then simulate a Stratis pool).
inline bool is_stratis_invocation(int argc, char** argv) {
    for (int i = 0; i < argc; ++i) {  // argv holds the command's arguments only
        const std::string_view arg = argv[i];
        std::string_view v;
        if (arg == "--preset" && i + 1 < argc)
            v = argv[i + 1];
        else if (arg.substr(0, 9) == "--preset=")
            v = arg.substr(9);
        else
            continue;
        return v.substr(0, 8) == "stratis-";
    }
    return false;
}

namespace detail_stratis {

// The options plan and recommend share.
inline std::vector<option> pool_options(bool plan) {
    return {
        {"--preset", "NAME", "stratis-data: stratisd's constants (DATA_LOWATER 15 GiB, DATA_ALLOC_SIZE 50 GiB)"},
        {"--pool-size", "SIZE", "the thin pool's data device when the burst starts, e.g. 100GiB (required)"},
        {"--pool-used", "SIZE", "data already in the pool (default 0)"},
        {"--backstore-free", "SIZE",
         plan ? "the backstore's unallocated space, what the pool can grow into, e.g. 1TiB (required; 0: none)"
              : "not taken: recommend answers it"},
        {"--metadata-size", "SIZE",
         "the pool's metadata device (default: what stratisd makes of thin_metadata_size's estimate x 8 for the data "
         "tier; a smaller one grows to that at the first check)"},
        {"--rate", "LIST",
         plan ? "write rates, comma-separated (default 1GB/s,3GB/s,10GB/s)" : "the write rate, e.g. 3GB/s (required)",
         plan, "--rates"},
        {"--write", "SIZE", "new data written in all (default 50GiB)"},
        {"--duration", "TIME", duration_help},
        {"--check-time", "MIN,MAX", "seconds a check that reloads no table takes, uniform (default 0.01,0.05)"},
        {"--extend-time", "MIN,MAX",
         "seconds a check that reloads the pool's table takes (suspend, reload, resume, metadata save), uniform "
         "(default 0.1,0.5)"},
        {"--timer", "SECONDS", "stratisd's sleep between timed checks (default 10)"},
        {"--no-space-timeout", "SECONDS", "dm-thin-pool's no_space_timeout, 0 queues forever (default 60)"},
        {"--runs", "N", "simulated runs per rate, 1-100000 (default 100)"},
        {"--seed", "N", "the random seed (default 1)"},
        {"--max-events", "N", "refuse work that would replay more simulated events (default 1000000000)"},
        {"--format", "FORMAT", "text (default), csv or json"},
    };
}

// A size option: a number without a unit is refused (--backstore-free 70 is not 70 bytes), as is a negative one.
inline std::optional<bytes> size_option(const args& a, const char* name) {
    const auto v = a.value(name);
    if (!v) return std::nullopt;
    if (!v->empty() && v->find_first_not_of("0123456789.") == std::string::npos &&
        v->find_first_not_of("0.") != std::string::npos)
        throw usage_error(std::string(name) + " " + args::printable(*v) + ": a size needs a unit, e.g. " +
                          args::printable(*v) + "GiB (0 to 1PiB)");
    if (!v->empty() && (*v)[0] == '-')
        throw usage_error(std::string(name) + " " + args::printable(*v) + ": a size is 0 to 1PiB, not negative");
    const auto b = a.size(name);
    if (b && b->count() > (std::uint64_t{1} << 50))
        throw usage_error(std::string(name) + " " + args::printable(*v) + ": at most 1PiB");
    return b;
}

// One MIN,MAX option of seconds (MIN above 0).
inline void range_option(const args& a, const char* name, seconds& lo, seconds& hi) {
    const auto v = a.value(name);
    if (!v) return;
    const std::size_t comma = v->find(',');
    const std::string l = v->substr(0, comma), h = comma == std::string::npos ? l : v->substr(comma + 1);
    const auto pl = parse_seconds(l, name, seconds(0.0), seconds(3600.0));
    if (!pl) fail(pl.error(), name);
    const auto ph = parse_seconds(h, name, seconds(0.0), seconds(3600.0));
    if (!ph) fail(ph.error(), name);
    if (*pl <= seconds(0.0))
        throw usage_error(std::string(name) + ": the shortest time must be above 0 s, got " + args::printable(l));
    if (*ph < *pl)
        throw usage_error(std::string(name) + ": expected MIN,MAX with MIN <= MAX, got " + args::printable(*v));
    lo = *pl;
    hi = *ph;
}

inline stratis_check_timing timing_of(const args& a) {
    const stratis_check_timing d = stratis_check_timing_default();
    seconds cmin = d.check_min(), cmax = d.check_max(), emin = d.extend_min(), emax = d.extend_max();
    range_option(a, "--check-time", cmin, cmax);
    range_option(a, "--extend-time", emin, emax);
    const seconds timer = a.time("--timer", seconds(0.1), seconds(3600.0)).value_or(d.timer());
    const seconds nospace = a.time("--no-space-timeout", seconds(0.0), seconds(86400.0)).value_or(d.no_space_timeout());
    const auto m = stratis_check_timing::make(cmin, cmax, emin, emax, timer, nospace);
    if (!m) fail(m.error(), "--check-time");
    return *m;
}

struct setup {
    stratis_config config = stratis_data();
    stratis_check_timing timing = stratis_check_timing_default();
    stratis_pool_workload pool{};  ///< write and write_rate set per rate
    write_amount write;
    std::vector<std::string> rates_typed;
    std::uint32_t runs = 100;
    std::uint64_t seed = 1;
    std::uint64_t max_events = default_max_events;
    bool metadata_given = false;  ///< --metadata-size: the same device whatever the headroom
};

inline setup setup_of(const args& a, bool plan) {
    setup s;
    const auto preset = parse_extend_preset(a.value("--preset").value_or("stratis-data"), "--preset");
    if (!preset) fail(preset.error(), "--preset");
    if (const auto c = stratis_config_of(*preset); c && c->release() == stratis_release::v3_0)
        throw usage_error("--preset " + std::string(to_text(*preset)) +
                          ": plan and recommend simulate stratisd 3.1 and later (--preset stratis-data); stratisd "
                          "3.0 gives the data device all the backstore at every check, so a burst fails only when "
                          "the backstore is full");
    if (*preset != extend_preset::stratis_data)
        throw usage_error("--preset " + std::string(to_text(*preset)) +
                          ": plan and recommend simulate the whole pool: --preset stratis-data");
    s.timing = timing_of(a);
    const auto pool = size_option(a, "--pool-size");
    if (!pool) throw usage_error("a Stratis plan needs --pool-size, the pool's data device, e.g. 100GiB");
    if (*pool < s.config.data_block() || !is_aligned(*pool, s.config.data_block()))
        throw usage_error("--pool-size must be whole 1MiB data blocks, at least one, got " +
                          std::string(format_size(*pool).view()));
    s.pool.pool_size = *pool;
    s.pool.pool_used = size_option(a, "--pool-used").value_or(bytes(0));
    if (s.pool.pool_used > *pool)
        throw usage_error("--pool-used (" + std::string(format_size(s.pool.pool_used).view()) +
                          ") is more than --pool-size (" + std::string(format_size(*pool).view()) + ")");
    const auto free = size_option(a, "--backstore-free");
    if (plan && !free)
        throw usage_error("a Stratis plan needs --backstore-free, what the pool can grow into, e.g. 1TiB");
    if (!plan && free) throw usage_error("--backstore-free is what recommend answers: leave it out");
    s.pool.backstore_free = free.value_or(bytes(0));
    stratis_size_metadata(s.config, s.pool);  // recommend sizes it again for each headroom unless given
    s.metadata_given = a.has("--metadata-size");
    if (const auto meta = size_option(a, "--metadata-size")) s.pool.metadata_size = *meta;
    if (s.pool.metadata_size < bytes(std::uint64_t{1} << 20))
        throw usage_error("--metadata-size must be at least 1MiB, got " +
                          std::string(format_size(s.pool.metadata_size).view()));
    s.write = write_option(a);
    if (!s.write.duration && s.write.size.count() == 0) throw usage_error("--write must be at least 1 byte");
    s.rates_typed = a.values("--rate");
    s.runs = static_cast<std::uint32_t>(a.count("--runs", 1, 100000).value_or(100));
    s.seed = a.count("--seed", 0, ~std::uint64_t{0}).value_or(1);
    s.max_events = a.count("--max-events", 1, ~std::uint64_t{0}).value_or(default_max_events);
    return s;
}

inline std::vector<rate> rates_of(const setup& s) {
    std::vector<std::string> typed = s.rates_typed;
    if (typed.empty()) typed = {"1GB/s", "3GB/s", "10GB/s"};
    std::vector<rate> out;
    for (const std::string& t : typed) {
        const auto r = parse_rate(t, "--rate");
        if (!r) fail(r.error(), "--rate");
        if (r->bytes_per_second() == 0) throw usage_error("--rate: a rate of 0 writes nothing");
        out.push_back(*r);
    }
    return out;
}

inline std::string rate_text(const setup& s, rate r) {
    for (const std::string& t : s.rates_typed)
        if (const auto x = parse_rate(t, "--rate"); x && x->bytes_per_second() == r.bytes_per_second())
            return args::printable(t);
    if (s.rates_typed.empty() && r.bytes_per_second() % 1000000000 == 0)
        return std::to_string(r.bytes_per_second() / 1000000000) + "GB/s";
    return std::string(format_rate(r).view());
}

// The workload at a rate: --write, or the rate for --duration (1 byte to 1 PiB).
inline stratis_pool_workload workload_at(const setup& s, rate r) {
    stratis_pool_workload w = s.pool;
    w.write_rate = r;
    w.write = s.write.size;
    if (s.write.duration) {
        const double b = std::floor(static_cast<double>(r.bytes_per_second()) * s.write.duration->count());
        if (b < 1.0 || b > static_cast<double>(std::uint64_t{1} << 50))
            throw usage_error("--duration " + s.write.duration_text + " at " + rate_text(s, r) + " writes " +
                              decimal_text(b, 0) + " bytes: 1B-1PiB");
        w.write = bytes(static_cast<std::uint64_t>(b));
    }
    return w;
}

// Events one run replays at most, about: a timer check every period, the extends and their events, the start.
inline double run_events(const setup& s, const stratis_pool_workload& w) {
    const double secs = static_cast<double>(w.write.count()) / static_cast<double>(w.write_rate.bytes_per_second());
    const double extends = static_cast<double>(w.write.count()) / static_cast<double>(s.config.data_alloc().count());
    return secs / in_seconds(s.timing.timer()) + 6.0 * extends + 40.0;
}

// How long DATA_LOWATER lasts at r, against the check that extends and the timer: the keep-up line of plan and
// recommend. Within a timer period it is not enough: the dm event's check decides on the status the previous check
// read (ThinPool::check reads self.used()), so the extend can wait for the timer's check or for a full pool's event.
inline std::string keep_up_text(const setup& s, rate r) {
    const double lasts =
        static_cast<double>(s.config.data_lowater().count()) / static_cast<double>(r.bytes_per_second());
    const double ext = in_seconds(s.timing.extend_max()), timer = in_seconds(s.timing.timer());
    std::string out = "at " + rate_text(s, r) + ": " + std::string(format_size(s.config.data_lowater()).view()) +
                      " of low water lasts " + decimal_text(lasts, 3) + " s";
    if (lasts <= ext)
        return out + ", not longer than a check that extends (up to " + decimal_text(ext, 3) +
               " s): stratisd's constants cannot keep up at this rate, whatever the headroom\n";
    if (lasts <= timer + ext)
        return out + ", longer than a check that extends (at most " + decimal_text(ext, 3) + " s) but not than the " +
               decimal_text(timer, 3) +
               " s timer and its check: the dm event's check decides on the status the previous check read, so an "
               "extend can wait for the timer or for the pool to fill\n";
    return out + ", longer than the " + decimal_text(timer, 3) + " s timer and a check that extends (at most " +
           decimal_text(ext, 3) + " s): the timer's next check extends in time\n";
}

// What went wrong at a rate, in words: runs that queued, entered error_if_no_space, failed writes.
inline std::string outcome_text(const setup& s, rate r, const stratis_plan_summary& m) {
    std::string out;
    const std::string at = "at " + rate_text(s, r) + ": ", of = " of " + std::to_string(m.runs) + " runs";
    if (m.queued_runs != 0)
        out += at + "writes waited on a full pool in " + std::to_string(m.queued_runs) + of + " (at most " +
               decimal_text(in_seconds(m.queued_max), 4) + " s)\n";
    if (m.error_mode_runs != 0)
        out += at + "the backstore had nothing left and the pool went to error_if_no_space in " +
               std::to_string(m.error_mode_runs) + of + "\n";
    if (m.eio_runs != 0) out += at + "writes failed with EIO in " + std::to_string(m.eio_runs) + of + "\n";
    return out;
}

}  // namespace detail_stratis

/// `provpol plan --preset stratis-data ...`.
inline int run_plan_stratis(int argc, char** argv) {
    using namespace detail_stratis;
    const args a(
        "plan",
        "provpol plan --preset stratis-data --pool-size SIZE --backstore-free SIZE [--pool-used SIZE]\n"
        "                    [--metadata-size SIZE] [--rate LIST] [--write SIZE | --duration TIME]\n"
        "                    [--check-time MIN,MAX] [--extend-time MIN,MAX] [--timer S] [--no-space-timeout S]\n"
        "                    [--runs N] [--seed N] [--max-events N] [--format text|csv|json]\n"
        "  A write burst into a Stratis pool: stratisd's check() on each dm event and every 10 s, deciding on\n"
        "  the status its previous check read, extending by min(backstore free, 50GiB) when free data is under\n"
        "  15GiB, doubling the metadata at the kernel's threshold, and error_if_no_space (writes then fail\n"
        "  with EIO once the pool is full) when the backstore has nothing left. Per rate: data and metadata\n"
        "  extends, checks, times full, runs and seconds in error_if_no_space, EIO runs, the pool's end size\n"
        "  and the backstore left (simulate/stratis_pool.hpp states the model).",
        pool_options(true), argc, argv);
    const format f = a.output_format();
    const setup s = setup_of(a, true);
    const std::vector<rate> rates = rates_of(s);
    double events = 0.0;
    for (const rate r : rates) events += s.runs * run_events(s, workload_at(s, r));
    check_work("plan", events, s.max_events,
               std::to_string(s.runs) + " runs x " + std::to_string(rates.size()) + " rates");
    table t({"rate", "runs", "data_extends_mean", "metadata_extends_mean", "checks_mean", "times_full_mean",
             "queued_s_max", "error_if_no_space_runs", "error_if_no_space_s_mean", "error_if_no_space_s_max",
             "eio_runs", "pool_end_max", "metadata_end_max", "backstore_left_min", "end_s_mean"});
    t.one_size_unit_per_column();
    std::string notes;
    for (const rate r : rates) {
        const stratis_plan_summary m = simulate_stratis_plan(s.config, s.timing, workload_at(s, r), s.runs, s.seed);
        t.add_row({cell::of_text(rate_text(s, r)), cell::of(m.runs), cell::of_real(m.data_extends_mean, 4),
                   cell::of_real(m.metadata_extends_mean, 4), cell::of_real(m.checks_mean, 4),
                   cell::of_real(m.times_full_mean, 4), cell::of_seconds(m.queued_max, 4), cell::of(m.error_mode_runs),
                   cell::of_seconds(m.error_mode_mean, 4), cell::of_seconds(m.error_mode_max, 4), cell::of(m.eio_runs),
                   cell::of_size(m.pool_end_max), cell::of_size(m.metadata_end_max), cell::of_size(m.backstore_end_min),
                   cell::of_seconds(m.ended_at_mean, 4)});
        notes += keep_up_text(s, r) + outcome_text(s, r, m);
    }
    const std::string out = t.str(f);
    std::fwrite(out.data(), 1, out.size(), stdout);
    if (f == format::text) std::fputs(notes.c_str(), stdout);
    return 0;
}

/// `provpol recommend --preset stratis-data ...`: exit 0 with the headroom, 3 when none up to the bound meets.
inline int run_recommend_stratis(int argc, char** argv) {
    using namespace detail_stratis;
    const args a(
        "recommend",
        "provpol recommend --preset stratis-data --pool-size SIZE --rate RATE [--write SIZE | --duration TIME]\n"
        "                         [--pool-used SIZE] [--metadata-size SIZE] [--check-time MIN,MAX]\n"
        "                         [--extend-time MIN,MAX] [--timer S] [--no-space-timeout S] [--runs N] [--seed N]\n"
        "                         [--max-events N] [--format text|csv|json]\n"
        "  The smallest backstore free space, in whole GiB in [1, N], such that in every one of --runs seeded\n"
        "  runs of the burst the Stratis pool never enters error_if_no_space and no write fails (EIO); N is\n"
        "  what the data past the pool plus 15GiB of low water and the metadata and its spare at their cap\n"
        "  need, so past N no headroom runs short. A scan from 1 GiB up: every smaller headroom was simulated\n"
        "  and missed. Exit 3 when none up to N meets (writes then fail for want of time, not space). Also\n"
        "  says whether 15GiB of low water outlasts the check that extends at that rate.",
        pool_options(false), argc, argv);
    const format f = a.output_format();
    setup s = setup_of(a, false);
    if (s.rates_typed.size() != 1) throw usage_error("recommend needs one --rate, e.g. --rate 3GB/s");
    const rate r = rates_of(s).front();
    const stratis_pool_workload w = workload_at(s, r);
    const std::uint64_t bound = stratis_headroom_bound(s.config, w);
    check_work("recommend", static_cast<double>(bound + 1) * s.runs * run_events(s, w), s.max_events,
               std::to_string(s.runs) + " runs x up to " + std::to_string(bound) + " headrooms");
    const stratis_headroom_answer ans =
        recommend_stratis_headroom(s.config, s.timing, w, s.runs, s.seed, bound, !s.metadata_given);
    const stratis_plan_summary& m = ans.at_answer;
    if (f != format::text) {
        table t({"rate", "runs", "found", "backstore_free_gib", "bound_gib", "evaluations", "data_extends_mean",
                 "times_full_mean", "queued_s_max", "eio_runs", "error_if_no_space_runs"});
        t.add_row({cell::of_text(rate_text(s, r)), cell::of(m.runs), cell::of_flag(ans.found), cell::of(ans.gib),
                   cell::of(bound), cell::of(ans.evaluations), cell::of_real(m.data_extends_mean, 4),
                   cell::of_real(m.times_full_mean, 4), cell::of_seconds(m.queued_max, 4), cell::of(m.eio_runs),
                   cell::of(m.error_mode_runs)});
        const std::string out = t.str(f);
        std::fwrite(out.data(), 1, out.size(), stdout);
        return ans.found ? 0 : exit_target_not_met;
    }
    std::string out;
    const std::string burst = (s.write.duration ? s.write.duration_text : std::string(format_size(w.write).view())) +
                              " at " + rate_text(s, r) + " into a " + std::string(format_size(w.pool_size).view()) +
                              " pool";
    if (ans.found)
        out = "backstore_free " + std::to_string(ans.gib) + "GiB: the smallest whole GiB in [1, " +
              std::to_string(bound) + "] with which no run of " + std::to_string(s.runs) + " (" + burst +
              ") enters error_if_no_space or fails a write\n";
    else
        out = "no backstore_free in [1, " + std::to_string(bound) + "] GiB keeps every run of " +
              std::to_string(s.runs) + " (" + burst +
              ") out of error_if_no_space and EIO: " + std::to_string(m.eio_runs) + " runs failed writes even with " +
              std::to_string(bound) + "GiB\n";
    out += "with " + std::to_string(ans.found ? ans.gib : bound) + "GiB: " + decimal_text(m.data_extends_mean, 4) +
           " data extends a run on average\n";
    out += keep_up_text(s, r) + outcome_text(s, r, m);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return ans.found ? 0 : exit_target_not_met;
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_STRATIS_PLAN_HPP
