// provpol plan and provpol recommend for LVM thin pools: writers bursting into one pool under dmeventd
// (simulate_lvm_plan), and the smallest autoextend percent (and threshold) under which no run queues writes
// longer than a target. plan and recommend come here when --preset names an LVM preset (is_lvm_invocation).
#include "common/cli.hpp"
#include "common/table.hpp"
#include "lvm_extend.hpp"

#include <provpol/extend.hpp>
#include <provpol/parse.hpp>
#include <provpol/simulate/lvm_pool.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace provpol::cli {

namespace {

// The options plan and recommend share for a pool.
std::vector<option> pool_options() {
    return {
        {"--preset", "NAME",
         "lvm-thin-autoextend (70/20, lvm.conf's example) or lvm-thin-default (100/20, as LVM ships)"},
        {"--threshold", "N", "thin_pool_autoextend_threshold as lvm.conf has it (under 50 acts as 50)"},
        {"--extend-percent", "N", "thin_pool_autoextend_percent, 0-1000000"},
        {"--extent", "SIZE", "the VG's extent size (default 4MiB)"},
        {"--pool-chunk", "SIZE", "the thin pool's chunk (default 64KiB)"},
        {"--pool-size", "SIZE", "the pool's data size when the burst starts (required)"},
        {"--pool-used", "SIZE",
         "data already in the pool, a size or a percent of --pool-size as lvs shows Data% (e.g. 95%; default 0)"},
        {"--vg-free", "SIZE", "free space in the VG for the pool to grow into (default: unlimited)"},
        {"--writers", "N", "writers, each into its own thin LV of the pool, 1-100000 (default 1)"},
        {"--write", "SIZE", "new data each writer writes (default 50GiB)"},
        {"--latency", "PROFILE", "lvm-dmeventd (the default; the only LVM flow)"},
        {"--lvextend-time", "MIN,MAX", "lvextend's service time in seconds, uniform (default lvm-dmeventd's 0.2,0.55)"},
        {"--poll-interval", "SECONDS", "dmeventd's poll (default 10)"},
        {"--no-space-timeout", "SECONDS", "dm-thin-pool's no_space_timeout, 0 queues forever (default 60)"},
        {"--error-when-full", nullptr, "the pool fails writes at once when full (lvcreate --errorwhenfull y)"},
        {"--runs", "N", "simulated runs per rate, 1-100000 (default 100)"},
        {"--seed", "N", "the random seed (default 1)"},
        {"--format", "FORMAT", "text (default), csv or json"},
    };
}

struct pool_setup {
    lvm_autoextend_config config;
    lvm_dmeventd_model model;
    bytes pool_size, pool_used, vg_free, write;
    std::uint64_t writers;
    std::uint32_t runs;
    std::uint64_t seed;
};

pool_setup pool_setup_of(const args& a) {
    const auto preset = parse_extend_preset(a.value("--preset").value_or("lvm-thin-autoextend"), "--preset");
    if (!preset) fail(preset.error(), "--preset");
    const auto lvm = lvm_config_of(*preset);
    if (!lvm) fail(lvm.error(), "--preset");
    if (lvm->kind() != lvm_volume_kind::thin_pool)
        throw usage_error("--preset: " + std::string(to_text(*preset)) +
                          " is not a thin pool: plan and recommend simulate thin pools (lvm-thin-autoextend, "
                          "lvm-thin-default)");
    const lvm_autoextend_config c = lvm_config_from(a, *preset);
    warn_lvm_clamp(c);
    const std::string latency = a.value("--latency").value_or("lvm-dmeventd");
    if (latency != "lvm-dmeventd")
        throw usage_error("--latency: unknown value '" + args::printable(latency) +
                          "' for an LVM pool: expected lvm-dmeventd (VDSM's flows do not run LVM's autoextend)");
    lvm_dmeventd_model base = lvm_dmeventd();
    seconds mn = base.lvextend_min(), mx = base.lvextend_max();
    if (const auto v = a.value("--lvextend-time")) {
        const std::size_t comma = v->find(',');
        const std::string lo = v->substr(0, comma), hi = comma == std::string::npos ? lo : v->substr(comma + 1);
        const auto l = parse_seconds(lo, "--lvextend-time", seconds(0.0), seconds(3600.0));
        if (!l) fail(l.error(), "--lvextend-time");
        const auto h = parse_seconds(hi, "--lvextend-time", seconds(0.0), seconds(3600.0));
        if (!h) fail(h.error(), "--lvextend-time");
        mn = *l;
        mx = *h;
        if (mn <= seconds(0.0))
            throw usage_error("--lvextend-time: the shortest time must be above 0 s, got " + args::printable(lo));
        if (mx < mn) throw usage_error("--lvextend-time: expected MIN,MAX with MIN <= MAX, got " + args::printable(*v));
    }
    const seconds poll = a.time("--poll-interval", seconds(0.1), seconds(3600.0)).value_or(base.poll_interval());
    const seconds nospace =
        a.time("--no-space-timeout", seconds(0.0), seconds(86400.0)).value_or(base.no_space_timeout());
    const auto m = lvm_dmeventd_model::make(mn, mx, base.status_read_fraction(), poll, nospace);
    if (!m) fail(m.error(), "--lvextend-time");
    const auto pool = a.lvm_size("--pool-size");
    if (!pool) throw usage_error("an LVM plan needs --pool-size, the pool's data size when the burst starts");
    if (pool->count() < c.pool_chunk().count()) {
        // A number without a unit is bytes here, MiB to lvcreate -L: say so.
        const std::string v = *a.value("--pool-size");
        const bool bare = std::all_of(v.begin(), v.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
        throw usage_error("--pool-size must hold at least one --pool-chunk (" +
                          std::string(format_size(c.pool_chunk()).view()) + "), got " +
                          std::string(format_size(*pool).view()) +
                          (bare ? "; a number without a unit is bytes: did you mean " + v + "MiB (" + v +
                                      "m, as lvcreate -L " + v + " reads it)?"
                                : std::string()));
    }
    if (!is_aligned(*pool, c.extent()))
        throw usage_error("--pool-size must be a whole number of extents (" +
                          std::string(format_size(c.extent()).view()) + "), got " +
                          std::string(format_size(*pool).view()));
    const bytes used = a.lvm_size_or_percent("--pool-used", pool, "--pool-size").value_or(bytes(0));
    if (used > *pool)
        throw usage_error("--pool-used (" + std::string(format_size(used).view()) + ") is more than --pool-size (" +
                          std::string(format_size(*pool).view()) + ")");
    const bytes write = a.lvm_size("--write").value_or(bytes(std::uint64_t{50} << 30));
    if (write.count() == 0) throw usage_error("--write must be at least 1 byte");
    if (write.count() > (std::uint64_t{1} << 50))
        throw usage_error("--write must be at most 1PiB, got " + std::string(format_size(write).view()));
    const std::uint64_t writers = a.count("--writers", 1, 100000).value_or(1);
    if (write.count() > (std::uint64_t{1} << 50) / writers)
        throw usage_error("--writers x --write must be at most 1PiB");
    pool_setup s{c,
                 m->with_error_when_full(a.has("--error-when-full")),
                 *pool,
                 used,
                 a.lvm_size("--vg-free").value_or(bytes::max()),
                 write,
                 writers,
                 static_cast<std::uint32_t>(a.count("--runs", 1, 100000).value_or(100)),
                 a.count("--seed", 0, ~std::uint64_t{0}).value_or(1)};
    return s;
}

lvm_pool_workload workload_of(const pool_setup& s, rate per_writer) {
    lvm_pool_workload w{};
    w.pool_size = s.pool_size;
    w.pool_used = s.pool_used;
    w.vg_free = s.vg_free;
    w.write = bytes(s.write.count() * s.writers);
    w.write_rate = rate(saturating_mul(per_writer.bytes_per_second(), s.writers));
    return w;
}

std::vector<rate> rates_of(const args& a, const char* name) {
    std::vector<rate> out;
    for (const std::string& item : a.values(name)) {
        const auto r = parse_rate(item, name);
        if (!r) fail(r.error(), name);
        if (r->bytes_per_second() == 0) throw usage_error(std::string(name) + ": a rate of 0 writes nothing");
        out.push_back(*r);
    }
    if (out.size() > 1000) throw usage_error(std::string(name) + ": at most 1000 rates");
    return out;
}

cell vg_cell(bytes b) { return b == bytes::max() ? cell() : cell::of_size(b); }

// plan's columns: the rate per writer, then the summary over runs (sizes in bytes in CSV and JSON).
const std::vector<std::string>& plan_columns() {
    static const std::vector<std::string> c = {
        "rate_mib_s",        "writers",       "runs",         "extends_mean",    "commands_mean",
        "times_full_mean",   "queued_s_mean", "queued_s_max", "queued_runs",     "eio_runs",
        "vg_exhausted_runs", "hung_runs",     "pool_end_max", "vg_free_end_min", "end_s_mean"};
    return c;
}

std::vector<cell> plan_row(rate r, std::uint64_t writers, const lvm_plan_summary& s) {
    return {cell::of_real(r.mib_per_second(), 0),
            cell::of(writers),
            cell::of(s.runs),
            cell::of_real(s.extends_mean, 4),
            cell::of_real(s.commands_mean, 4),
            cell::of_real(s.times_full_mean, 4),
            cell::of_seconds(s.queued_mean, 4),
            cell::of_seconds(s.queued_max, 4),
            cell::of(s.queued_runs),
            cell::of(s.eio_runs),
            cell::of(s.vg_exhausted_runs),
            cell::of(s.hung_runs),
            cell::of_size(s.pool_end_max),
            vg_cell(s.vg_free_end_min),
            cell::of_seconds(s.ended_at_mean, 4)};
}

// recommend's columns: one row per threshold tried.
const std::vector<std::string>& recommend_columns() {
    static const std::vector<std::string> c = {"threshold",    "percent",  "met",          "chosen",
                                               "queued_s_max", "eio_runs", "extends_mean", "pool_end_max"};
    return c;
}

std::vector<cell> recommend_row(const lvm_percent_answer& a, bool chosen) {
    return {cell::of(a.threshold),
            a.met ? cell::of(a.percent) : cell(),
            cell::of_flag(a.met),
            cell::of_flag(chosen),
            cell::of_seconds(a.at.queued_max, 4),
            cell::of(a.at.eio_runs),
            cell::of_real(a.at.extends_mean, 4),
            cell::of_size(a.at.pool_end_max)};
}

constexpr std::uint32_t recommend_max_percent = 1000;

}  // namespace

bool is_lvm_invocation(int argc, char** argv) {
    for (int i = 0; i < argc; ++i) {
        const std::string_view arg = argv[i];
        std::string_view v;
        if (arg == "--preset" && i + 1 < argc)
            v = argv[i + 1];
        else if (arg.substr(0, 9) == "--preset=")
            v = arg.substr(9);
        else
            continue;
        while (!v.empty()) {
            const std::size_t comma = v.find(',');
            const std::string_view name = v.substr(0, comma);
            const auto p = parse_extend_preset(text_view(name.data(), name.size()));
            if (p && lvm_config_of(*p)) return true;
            if (comma == std::string_view::npos) break;
            v = v.substr(comma + 1);
        }
    }
    return false;
}

int run_plan_lvm(int argc, char** argv) {
    std::vector<option> opts = pool_options();
    opts.insert(opts.begin() + 10, {"--rate", "LIST",
                                    "write rates per writer, comma-separated (default "
                                    "100MiB/s,500MiB/s,1GiB/s,4GiB/s)",
                                    true, "--rates"});
    const args a(
        "plan",
        "provpol plan --preset lvm-thin-autoextend|lvm-thin-default --pool-size SIZE [--pool-used SIZE]\n"
        "                    [--vg-free SIZE] [--writers N] [--rate LIST] [--write SIZE] [--threshold N]\n"
        "                    [--extend-percent N] [--extent SIZE] [--pool-chunk SIZE] [--latency lvm-dmeventd]\n"
        "                    [--lvextend-time MIN,MAX] [--poll-interval S] [--no-space-timeout S] "
        "[--error-when-full]\n"
        "                    [--runs N] [--seed N] [--format text|csv|json]",
        opts, argc, argv);
    const format f = a.output_format();
    const pool_setup s = pool_setup_of(a);
    std::vector<rate> rates = rates_of(a, "--rate");
    if (rates.empty())
        rates = {rate(std::uint64_t{100} << 20), rate(std::uint64_t{500} << 20), rate(std::uint64_t{1} << 30),
                 rate(std::uint64_t{4} << 30)};
    table t(plan_columns());
    std::string notes;
    for (const rate r : rates) {
        const lvm_plan_summary sum = simulate_lvm_plan(s.config, s.model, workload_of(s, r), s.runs, s.seed);
        t.add_row(plan_row(r, s.writers, sum));
        const std::string at = std::string(format_rate(r).view());
        if (sum.vg_exhausted_runs != 0)
            notes += "at " + at + ": the VG ran out in " + std::to_string(sum.vg_exhausted_runs) + " of " +
                     std::to_string(sum.runs) + " runs (an extend needed more than its free space and failed whole)\n";
        if (sum.eio_runs != 0)
            notes += "at " + at + ": writes failed with EIO in " + std::to_string(sum.eio_runs) + " of " +
                     std::to_string(sum.runs) + " runs (" +
                     (s.model.error_when_full() ? std::string("--error-when-full")
                                                : "queued past no_space_timeout, " +
                                                      decimal_text(in_seconds(s.model.no_space_timeout()), 0) + " s") +
                     ")\n";
        if (sum.hung_runs != 0)
            notes += "at " + at + ": writes never completed in " + std::to_string(sum.hung_runs) + " of " +
                     std::to_string(sum.runs) + " runs (no_space_timeout 0 queues them forever)\n";
    }
    const std::string out = t.str(f);
    std::fwrite(out.data(), 1, out.size(), stdout);
    if (f == format::text && !notes.empty()) std::fputs(notes.c_str(), stdout);
    return 0;
}

int run_recommend_lvm(int argc, char** argv) {
    std::vector<option> opts = pool_options();
    opts.insert(opts.begin() + 10, {"--rate", "LIST",
                                    "the write rate per writer to plan for (required); a comma-separated list "
                                    "answers for each",
                                    true, "--rates"});
    opts.insert(opts.begin() + 11,
                {"--max-queued", "SECONDS", "the longest any run may queue writes on a full pool (default 0)"});
    opts.insert(opts.begin() + 12,
                {"--max-extends", "N",
                 "the most extends a run may take on average, 1-1000000 (default 20: each lvextend suspends the "
                 "pool and commits the VG metadata)"});
    const args a("recommend",
                 "provpol recommend --preset lvm-thin-autoextend --rate LIST --pool-size SIZE [--max-queued S]\n"
                 "                         [--threshold N] [--pool-used SIZE] [--vg-free SIZE] [--writers N] "
                 "[--write SIZE]\n"
                 "                         [--extent SIZE] [--pool-chunk SIZE] [--latency lvm-dmeventd]\n"
                 "                         [--lvextend-time MIN,MAX] [--poll-interval S] [--no-space-timeout S]\n"
                 "                         [--runs N] [--seed N] [--format text|csv|json]",
                 opts, argc, argv);
    const format f = a.output_format();
    if (a.has("--extend-percent"))
        throw usage_error("--extend-percent is what recommend finds: give --threshold to fix the threshold");
    if (a.has("--error-when-full"))
        throw usage_error("--error-when-full fails every write on a full pool: recommend plans for queueing pools");
    const std::vector<rate> rates = rates_of(a, "--rate");
    if (rates.size() != 1) throw usage_error("recommend needs one --rate");
    const pool_setup s = pool_setup_of(a);
    const seconds target = a.time("--max-queued", seconds(0.0), seconds(86400.0)).value_or(seconds(0.0));
    const auto max_extends = static_cast<double>(a.count("--max-extends", 1, 1000000).value_or(20));
    const lvm_pool_workload w = workload_of(s, rates[0]);
    // The threshold given (or the preset's) first; when no percent meets the target there, lower thresholds
    // in 5% steps down to 50 (unless --threshold fixes it).
    if (!s.config.enabled())
        throw usage_error("--threshold " + std::to_string(s.config.threshold_as_written()) +
                          " disables autoextend (100 or more): give a threshold under 100 to recommend a percent");
    std::vector<std::uint32_t> thresholds{s.config.threshold_percent()};
    if (!a.has("--threshold"))
        for (std::uint32_t th = (s.config.threshold_percent() - 1) / 5 * 5; th >= 50; th -= 5) thresholds.push_back(th);
    // The first threshold that some percent up to 1000 meets is the answer, at its smallest percent.
    std::vector<lvm_percent_answer> tried;
    const lvm_percent_answer* best = nullptr;
    for (const std::uint32_t th : thresholds) {
        tried.push_back(recommend_lvm_percent(s.config, s.model, w, th, target, s.runs, s.seed, recommend_max_percent,
                                              max_extends));
        if (tried.back().met) break;
    }
    if (tried.back().met) best = &tried.back();
    table t(recommend_columns());
    for (const lvm_percent_answer& ans : tried) t.add_row(recommend_row(ans, &ans == best));
    // No percent meeting the target is its own exit status (3), in every format.
    const int status = best == nullptr ? exit_target_not_met : 0;
    if (f != format::text) {
        const std::string out = t.str(f);
        std::fwrite(out.data(), 1, out.size(), stdout);
        return status;
    }
    std::string out;
    const std::string at = std::string(format_rate(rates[0]).view()) +
                           (s.writers > 1 ? " x " + std::to_string(s.writers) + " writers" : std::string());
    if (best == nullptr) {
        const lvm_plan_summary& last = tried.back().at;
        out = "LVM cannot keep up at " + at + " into a " + std::string(format_size(s.pool_size).view()) +
              " pool: even at threshold " + std::to_string(thresholds.back()) + " with percent " +
              std::to_string(recommend_max_percent) + " a run queues writes " + decimal_text(last.queued_max, 3) +
              " s (target " + decimal_text(target, 3) + " s)" +
              (last.eio_runs != 0 ? ", and " + std::to_string(last.eio_runs) + " runs fail with EIO" : std::string()) +
              (last.extends_mean > max_extends ? ", with " + decimal_text(last.extends_mean, 3) +
                                                     " extends a run (at most " + decimal_text(max_extends, 0) + ")"
                                               : std::string()) +
              ". The first extend must land before the space above the threshold is written: start with a larger "
              "pool, give the VG more room, or write slower.\n";
    } else {
        const lvm_percent_answer& b = *best;
        out = "# " + at + " into a " + std::string(format_size(s.pool_size).view()) + " pool queues writes at most " +
              decimal_text(b.at.queued_max, 3) + " s over " + std::to_string(s.runs) + " runs (target " +
              decimal_text(target, 3) + " s) with " + decimal_text(b.at.extends_mean, 3) +
              " extends a run; the pool ends at " + human_size(b.at.pool_end_max) +
              "\n# for /etc/lvm/lvm.conf (or an lvm profile):\n";
        out += "activation {\n    thin_pool_autoextend_threshold = " + std::to_string(b.threshold) +
               "\n    thin_pool_autoextend_percent = " + std::to_string(b.percent) + "\n}\n";
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return status;
}

}  // namespace provpol::cli
