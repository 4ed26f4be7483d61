// provpol plan and provpol recommend for LVM thin pools: writers bursting into one pool under dmeventd
// (simulate_lvm_plan), and the smallest autoextend percent (and threshold) under which no run queues writes
// longer than a target (recommend_lvm_percent, a scan: the target is not monotone in the percent). plan and
// recommend come here when --preset names an LVM preset (is_lvm_invocation). --policy rate-aware replaces dmeventd
// with the rate-aware extender (lvm_pool.hpp's lvm_extender, examples/thinpoold's policy): plan simulates it, and
// recommend finds the smallest --horizon that meets the target (recommend_lvm_horizon, a scan too).
#include "commands.hpp"
#include "common/cli.hpp"
#include "common/preset_option.hpp"
#include "common/spec_list.hpp"
#include "common/table.hpp"
#include "lvm_extend.hpp"
#include "per_value.hpp"
#include "plan.hpp"
#include "work.hpp"

#include <provpol/extend.hpp>
#include <provpol/parse.hpp>
#include <provpol/simulate/lvm_pool.hpp>
#include <provpol/simulate/lvm_recommend.hpp>
#include <provpol/simulate/thin_metadata.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace provpol::cli {

namespace {

// The options plan and recommend share for a pool.
std::vector<option> pool_options() {
    return {
        {"--preset", "NAME",
         "lvm-thin-autoextend (70/20, lvm.conf's example) or lvm-thin-default (100/20, as LVM ships); plan takes a "
         "comma-separated list, one plan each"},
        {"--threshold", "N",
         "thin_pool_autoextend_threshold as lvm.conf has it (under 50 acts as 50); with --preset docker-devicemapper, "
         "dm.thinp_autoextend_threshold: 0-100, 0 meaning Docker's 80"},
        {"--extend-percent", "N",
         "thin_pool_autoextend_percent, 0-1000000; with --preset docker-devicemapper, dm.thinp_autoextend_percent: "
         "0-100, 0 meaning Docker's 20"},
        {"--config", "FILE",
         "lvm.conf files or lvmconfig's output (- for stdin), repeated as lvm reads them (later files win): "
         "activation/thin_pool_autoextend_threshold and _percent, instead of --threshold and --extend-percent; "
         "recommend's answer reads back",
         true},
        {"--lvm-version", "VERSION",
         "with --config: the lvm2 whose built-in defaults fill the keys no file sets (default: what lvm version "
         "prints here, else 2.03.31)"},
        {"--extent", "SIZE", "the VG's extent size (default 4MiB)"},
        {"--pool-chunk", "SIZE", "the thin pool's chunk (default 64KiB)"},
        {"--pool-size", "SIZE",
         "the pool's data size when the burst starts (required), read as lvcreate -L reads it (1.82t) and rounded "
         "up to whole extents as lvcreate rounds it"},
        {"--pool-used", "SIZE",
         "data already in the pool, a size or a percent of --pool-size as lvs shows Data% (e.g. 95%: the most whole "
         "chunks lvm2 reads as at most 95%; a number without a unit is refused; default 0)"},
        {"--vg-free", "SIZE", "free space in the VG for the pool to grow into (default: unlimited)"},
        {"--metadata-size", "SIZE",
         "the pool's metadata LV, whole extents of at least 2MiB (default: the metadata is not simulated); given, "
         "it fills as the data is written (one 4KiB block per 126 chunks, as thin_metadata_size estimates), grows "
         "by lvm2's rule, and a pool whose metadata runs out fails its writes (EIO)"},
        {"--metadata-used", "SIZE",
         "metadata in use, a size or a percent of --metadata-size as lvs shows Meta% (default 0)"},
        {"--lvs", "FILE",
         "the pool as lvs reports it (- for stdin; run lvs --reportformat json --units b --nosuffix -o "
         "+lv_metadata_size,chunk_size,vg_free,vg_extent_size VG/POOL): its size, Data%, metadata size, Meta%, "
         "chunk, extent and the VG's free space, instead of --pool-size, --pool-used, --metadata-size, "
         "--metadata-used, --vg-free, --pool-chunk and --extent; an inactive pool (no Data%) needs --pool-used "
         "(and --metadata-used)"},
        {"--lvs-pool", "VG/POOL", "the thin pool of the --lvs report, needed when it has several"},
        {"--writers", "N", "writers, each into its own thin LV of the pool, 1-100000 (default 1)"},
        {"--write", "SIZE", "new data each writer writes (default 50GiB)"},
        {"--duration", "TIME", duration_help},
        {"--latency", "PROFILE", "lvm-dmeventd (the default; the only LVM flow)"},
        {"--lvextend-time", "MIN,MAX", "lvextend's service time in seconds, uniform (default lvm-dmeventd's 0.2,0.55)"},
        {"--poll-interval", "SECONDS", "dmeventd's poll (default 10)"},
        {"--no-space-timeout", "SECONDS", "dm-thin-pool's no_space_timeout, 0 queues forever (default 60)"},
        {"--error-when-full", nullptr, "the pool fails writes at once when full (lvcreate --errorwhenfull y)"},
        {"--runs", "N", "simulated runs per rate, 1-100000 (default 100)"},
        {"--seed", "N", "the random seed (default 1)"},
        {"--policy", "NAME",
         "the extender: dmeventd (the default: lvm2's autoextend) or rate-aware (provpol-thinpoold's policy, "
         "dmeventd's monitoring off; the options below are its own, with its defaults); plan takes a list, "
         "dmeventd,rate-aware: one plan each, the options below for rate-aware's"},
        {"--interval", "TIME", "rate-aware: between samples; [0.01, 3600] s (default 1s)"},
        {"--horizon", "TIME",
         "rate-aware: the free space an extend leaves, in seconds at the rate; [0.1, 86400] s (default 30s)"},
        {"--lead-factor", "K", "rate-aware: the lead is K x lvextend's longest time + --margin; [1, 100] (default 2)"},
        {"--margin", "TIME", "rate-aware: added to the lead; [0, 3600] s (default: the interval)"},
        {"--max-pool-size", "SIZE", "rate-aware: the pool's data is never grown past it (default: twice --pool-size)"},
        {"--max-vg-take", "SIZE",
         "rate-aware: the most VG space it allocates, data and metadata (default: --pool-size)"},
        {"--format", "FORMAT", "text (default), csv or json"},
    };
}

// Set when plan's --policy lists rate-aware with another extender: the rate-aware options are then given for it, and
// the other plans do not refuse them.
bool rate_aware_options_shared = false;

// The options only the rate-aware extender reads.
constexpr const char* rate_aware_only[] = {"--interval", "--horizon",       "--lead-factor",
                                           "--margin",   "--max-pool-size", "--max-vg-take"};

// --policy: dmeventd (lvm2's autoextend: today's plan) or rate-aware, with provpol-thinpoold's options and defaults.
// Its service time is the model's longest lvextend (the daemon's --lvextend-time); the extent and the chunk are the
// pool's. An option of the other extender is refused rather than ignored.
lvm_extender extender_of(const args& a, const lvm_autoextend_config& c, bytes pool) {
    const std::string policy = a.value("--policy").value_or("dmeventd");
    if (policy == "dmeventd") {
        for (const char* o : rate_aware_only)
            if (a.has(o) && !rate_aware_options_shared)
                throw usage_error(std::string(o) + " applies to --policy rate-aware, not to dmeventd");
        return lvm_extender::dmeventd();
    }
    if (policy != "rate-aware")
        throw usage_error("--policy: unknown value '" + args::printable(policy) +
                          "' for an LVM pool: expected dmeventd or rate-aware (static and rate-aware-adaptive are "
                          "VDSM's agents)");
    for (const char* o : {"--threshold", "--extend-percent", "--poll-interval"})
        if (a.has(o))
            throw usage_error(std::string(o) +
                              " is dmeventd's: --policy rate-aware takes the pool's monitoring over (it decides "
                              "every --interval)");
    const seconds interval = a.time("--interval", seconds(0.01), seconds(3600.0)).value_or(seconds(1.0));
    lvm_rate_aware_settings st;
    st.lead_factor = a.decimal("--lead-factor", 1.0, 100.0).value_or(2.0);
    st.margin = a.time("--margin", seconds(0.0), seconds(3600.0)).value_or(interval);
    st.horizon = a.time("--horizon", seconds(0.1), seconds(86400.0)).value_or(seconds(30.0));
    st.extent = c.extent();
    st.pool_chunk = c.pool_chunk();
    st.max_pool_size = lvm_size_option(a, "--max-pool-size").value_or(saturating_add(pool, pool));
    st.max_vg_take = lvm_size_option(a, "--max-vg-take").value_or(pool);
    // The metadata by lvm2's own rule with the pool's threshold and percent, as the daemon reads lvm.conf's.
    st.metadata_threshold = c.enabled() ? c.threshold_percent() : 100;
    st.metadata_percent = c.extend_percent();
    const auto cfg = lvm_rate_aware_config::make(st);
    if (!cfg) fail(cfg.error(), "--policy");
    return lvm_extender::make_rate_aware(*cfg, interval).value();  // the interval is in range: cannot fail
}

struct pool_setup {
    lvm_autoextend_config config;
    lvm_dmeventd_model model;
    bytes pool_size, pool_used, vg_free, write;
    bytes metadata_size, metadata_used;    ///< 0 and 0: the metadata is not simulated
    std::vector<std::string> rates_typed;  ///< --rate's values as typed, to print a rate as the user wrote it
    std::optional<seconds> duration;  ///< --duration: each writer writes its rate for this long, instead of --write
    std::string duration_text;        ///< --duration as given, for messages
    std::uint64_t writers;
    std::uint32_t runs;
    std::uint64_t seed;
    std::uint64_t max_events;
    lvm_extender extender;              ///< --policy: dmeventd, or the rate-aware extender
    bool monitored = true;              ///< --config's activation/monitoring (0: simulated with autoextend off)
    bool autoextend_off_given = false;  ///< the host's settings (--config) turn autoextend off
};

// dmeventd's model: lvm-dmeventd with --lvextend-time, --poll-interval and --no-space-timeout applied.
lvm_dmeventd_model model_of(const args& a) {
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
    return m->with_error_when_full(a.has("--error-when-full"));
}

// --pool-size as lvcreate -L reads it (lvcreate_sectors for lvm's unit letters, provpol's units otherwise; a number
// without a unit is refused by lvm_size_option), rounded up to whole extents as lvcreate rounds it (lib/metadata/
// metadata.c, extents_from_size: "Rounding up size to full physical extent"), which stderr says; at most lvm2's
// 4294967295 extents (MAX_EXTENT_COUNT), and at least one pool chunk.
bytes pool_size_of(const args& a, const lvm_autoextend_config& c) {
    const auto v = a.value("--pool-size");
    if (!v)
        throw usage_error(
            "an LVM plan needs --pool-size, the pool's data size when the burst starts (or --lvs, lvs's report of it)");
    const std::optional<std::uint64_t> sectors = lvcreate_sectors(*v, "--pool-size");
    const bytes given = sectors ? bytes(*sectors * 512) : *lvm_size_option(a, "--pool-size");
    const std::uint64_t e = c.extent().count();
    const std::uint64_t extents = given.count() / e + (given.count() % e != 0 ? 1 : 0);
    if (extents > 0xFFFFFFFFu || extents > ~std::uint64_t{0} / e)
        throw usage_error("--pool-size " + args::printable(*v) + ": more than lvm2's 4294967295 extents of " +
                          std::string(format_size(c.extent()).view()) + " (lvcreate refuses it too)");
    const bytes pool(extents * e);
    if (pool != given)
        warn("provpol " + a.command() + ": --pool-size " + args::printable(*v) + " is " +
             (sectors ? std::to_string(*sectors) + " sectors as lvcreate -L reads it (" +
                            std::string(format_size(given).view()) + ")"
                      : std::string(format_size(given).view())) +
             "; lvcreate rounds it up to whole extents (" + std::string(format_size(c.extent()).view()) +
             "): the pool is " + std::string(format_size(pool).view()) + " (" + std::to_string(pool.count()) +
             " bytes; lvs's default units round sizes: --lvs reads the pool's own)");
    if (pool.count() < c.pool_chunk().count())
        throw usage_error("--pool-size must hold at least one --pool-chunk (" +
                          std::string(format_size(c.pool_chunk()).view()) + "), got " +
                          std::string(format_size(pool).view()));
    return pool;
}

// The metadata LV and its use: from --lvs (lv_metadata_size and Meta%), or --metadata-size and --metadata-used;
// 0 and 0 when neither gives it (not simulated).
std::pair<bytes, bytes> metadata_of(const args& a, const lvm_autoextend_config& c, const lvs_pool* lvs) {
    constexpr bytes block(thin_metadata_block);
    if (lvs != nullptr && lvs->active)
        return {lvs->metadata_size, lvs->metadata_size.count() == 0
                                        ? bytes(0)
                                        : lvs_fill(lvs->metadata_percent, lvs->metadata_size, block)};
    if (lvs != nullptr) {  // inactive: --metadata-used gives its usage, or the metadata is not simulated
        if (!a.has("--metadata-used") || lvs->metadata_size.count() == 0) return {bytes(0), bytes(0)};
        const bytes used =
            lvm_used_option(a, "--metadata-used", lvs->metadata_size, "the --lvs pool's lv_metadata_size", block)
                .value_or(bytes(0));
        if (used > lvs->metadata_size)
            throw usage_error("--metadata-used (" + std::string(format_size(used).view()) +
                              ") is more than the --lvs pool's lv_metadata_size (" +
                              std::string(format_size(lvs->metadata_size).view()) + ")");
        return {lvs->metadata_size, used};
    }
    const auto size = lvm_size_option(a, "--metadata-size");
    if (!size) {
        if (a.has("--metadata-used"))
            throw usage_error("--metadata-used needs --metadata-size, the metadata LV's size");
        return {bytes(0), bytes(0)};
    }
    if (size->count() < (std::uint64_t{2} << 20) || !is_aligned(*size, c.extent()))
        throw usage_error("--metadata-size must be whole extents (" + std::string(format_size(c.extent()).view()) +
                          ") of at least 2MiB, as lvm2 allocates it, got " + std::string(format_size(*size).view()));
    const bytes used = lvm_used_option(a, "--metadata-used", size, "--metadata-size", block).value_or(bytes(0));
    if (used > *size)
        throw usage_error("--metadata-used (" + std::string(format_size(used).view()) +
                          ") is more than --metadata-size (" + std::string(format_size(*size).view()) + ")");
    return {*size, used};
}

pool_setup pool_setup_of(const args& a) {
    const auto preset = parse_extend_preset(a.value("--preset").value_or("lvm-thin-autoextend"), "--preset");
    if (!preset) fail(preset.error(), "--preset");
    const auto lvm = lvm_config_of(*preset);
    if (!lvm) fail(lvm.error(), "--preset");
    if (lvm->kind() != lvm_volume_kind::thin_pool)
        throw usage_error("--preset: " + std::string(to_text(*preset)) +
                          " is not a thin pool: plan and recommend simulate thin pools (lvm-thin-autoextend, "
                          "lvm-thin-default)");
    const std::optional<lvs_pool> lvs =
        lvs_option(a, {"--pool-size", "--metadata-size", "--vg-free", "--pool-chunk", "--extent"},
                   {"--pool-used", "--metadata-used"});
    lvm_host host;
    lvm_autoextend_config c = lvm_config_from(a, *preset, lvs ? &*lvs : nullptr, &host);
    warn_lvm_clamp(c);
    // monitoring = 0: dmeventd never runs lvextend --use-policies, so the pool is simulated with autoextend off.
    if (!host.monitored) c = lvm_config_with(c, 100, c.extend_percent());
    const lvm_dmeventd_model m = model_of(a);
    const bytes pool = lvs ? lvs->size : pool_size_of(a, c);
    const bytes used =
        lvs && lvs->active
            ? lvs_fill(lvs->data_percent, pool, c.pool_chunk())
            : lvm_used_option(a, "--pool-used", pool, lvs ? "the --lvs pool's lv_size" : "--pool-size", c.pool_chunk())
                  .value_or(bytes(0));
    if (used > pool)
        throw usage_error("--pool-used (" + std::string(format_size(used).view()) + ") is more than " +
                          (lvs ? "the --lvs pool's lv_size (" : "--pool-size (") +
                          std::string(format_size(pool).view()) + ")");
    const auto [metadata, metadata_used] = metadata_of(a, c, lvs ? &*lvs : nullptr);
    if (a.has("--write") && a.has("--duration"))
        throw usage_error("give --write or --duration, not both: a duration writes the rate for that time");
    const std::optional<seconds> duration = a.time("--duration", seconds(0.001), seconds(1e7));
    const bytes write = lvm_size_option(a, "--write").value_or(bytes(std::uint64_t{50} << 30));
    if (write.count() == 0) throw usage_error("--write must be at least 1 byte");
    if (write.count() > (std::uint64_t{1} << 50))
        throw usage_error("--write must be at most 1PiB, got " + std::string(format_size(write).view()));
    const std::uint64_t writers = a.count("--writers", 1, 100000).value_or(1);
    if (write.count() > (std::uint64_t{1} << 50) / writers)
        throw usage_error("--writers x --write must be at most 1PiB");
    pool_setup out{c,
                   m,
                   pool,
                   used,
                   lvs ? lvs->vg_free : lvm_size_option(a, "--vg-free").value_or(bytes::max()),
                   write,
                   metadata,
                   metadata_used,
                   a.values("--rate"),
                   duration,
                   duration ? args::printable(*a.value("--duration")) : std::string(),
                   writers,
                   static_cast<std::uint32_t>(a.count("--runs", 1, 100000).value_or(100)),
                   a.count("--seed", 0, ~std::uint64_t{0}).value_or(1),
                   a.count("--max-events", 1, ~std::uint64_t{0}).value_or(default_max_events),
                   extender_of(a, c, pool)};
    out.monitored = host.monitored;
    out.autoextend_off_given = host.described && !c.enabled();
    return out;
}

// What each writer writes at `per_writer`: --write, or the rate for --duration (whole bytes, 1B to 1PiB in all).
bytes write_of(const pool_setup& s, rate per_writer) {
    if (!s.duration) return s.write;
    const double b = std::floor(static_cast<double>(per_writer.bytes_per_second()) * s.duration->count());
    if (b < 1.0 || b * static_cast<double>(s.writers) > static_cast<double>(std::uint64_t{1} << 50))
        throw usage_error("--duration " + s.duration_text + " at " + std::string(format_rate(per_writer).view()) +
                          " writes " + decimal_text(b, 0) + " bytes per writer: the writers' total is 1B-1PiB");
    return bytes(static_cast<std::uint64_t>(b));
}

lvm_pool_workload workload_of(const pool_setup& s, rate per_writer) {
    lvm_pool_workload w{};
    w.pool_size = s.pool_size;
    w.pool_used = s.pool_used;
    w.vg_free = s.vg_free;
    w.write = bytes(write_of(s, per_writer).count() * s.writers);
    w.write_rate = rate(saturating_mul(per_writer.bytes_per_second(), s.writers));
    w.metadata_size = s.metadata_size;
    w.metadata_used = s.metadata_used;
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

// --- bounded work ----------------------------------------------------------------------------------------------
// dmeventd's poll, or the rate-aware extender's samples.
double wakeup_interval(const pool_setup& s) {
    return s.extender.is_rate_aware() ? s.extender.interval().count() : s.model.poll_interval().count();
}

// The events one run replays, about: a poll (or a sample) every interval while the burst writes, and a handful
// per extend (its trigger, the status read, the return, the pool filling and the mode events).
double lvm_run_events(const pool_setup& s, const lvm_pool_workload& w, double extends) {
    const double writing = static_cast<double>(w.write.count()) / static_cast<double>(w.write_rate.bytes_per_second());
    return writing / wakeup_interval(s) + 6.0 * (extends + 1.0) + 8.0;
}

// The polls a run replays while its writes wait on a full pool: through one no_space_timeout, or the day a run
// may hang when it is 0 (at most `longest` seconds when the answer stops a run that queued longer).
double lvm_wait_events(const pool_setup& s, double longest = 86400.0) {
    const double nospace = s.model.no_space_timeout().count();
    return std::min(nospace > 0.0 ? nospace : 86400.0, longest) / wakeup_interval(s);
}

// The extends a run takes at most at `percent`: lvm2 grows the pool by at least the percent each time (its amount
// is never below it), from its size to the data it must hold.
double lvm_extends_bound(const lvm_pool_workload& w, std::uint32_t percent) {
    const double need = (static_cast<double>(w.pool_used.count()) + static_cast<double>(w.write.count())) /
                        static_cast<double>(w.pool_size.count());
    if (percent == 0 || need <= 1.0) return 1.0;  // percent 0: every extend fails
    return std::ceil(std::log(need) / std::log1p(static_cast<double>(percent) / 100.0)) + 1.0;
}

cell vg_cell(bytes b) { return b == bytes::max() ? cell() : cell::of_size(b); }

// plan's columns: the rate per writer, then the summary over runs (sizes in bytes in CSV and JSON).
const std::vector<std::string>& plan_columns() {
    static const std::vector<std::string> c = {
        "rate_mib_s",    "writers",         "runs",        "extends_mean",      "commands_mean",     "times_full_mean",
        "queued_s_mean", "queued_s_max",    "queued_runs", "eio_runs",          "vg_exhausted_runs", "hung_runs",
        "pool_end_max",  "vg_free_end_min", "end_s_mean",  "meta_extends_mean", "meta_full_runs",    "meta_full_s_mean",
        "meta_end_max"};
    return c;
}

std::vector<cell> plan_row(rate r, std::uint64_t writers, const lvm_plan_summary& s) {
    const bool meta = s.metadata_end_max.count() != 0;  // simulated (a metadata LV is never 0 bytes)
    const auto if_meta = [&](cell c) { return meta ? c : cell(); };
    return {cell::of_rate_mib(r),
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
            cell::of_seconds(s.ended_at_mean, 4),
            if_meta(cell::of_real(s.metadata_extends_mean, 4)),
            if_meta(cell::of(s.metadata_full_runs)),
            s.metadata_full_runs != 0 ? cell::of_seconds(s.metadata_full_at_mean, 4) : cell(),
            if_meta(cell::of_size(s.metadata_end_max))};
}

// A rate as the user typed it in --rate (1GB/s, not 976562.5KiB/s), or as provpol prints it.
std::string rate_shown(const pool_setup& s, rate r) {
    for (const std::string& typed : s.rates_typed)
        if (const auto t = parse_rate(typed, "--rate"); t && t->bytes_per_second() == r.bytes_per_second())
            return args::printable(typed);
    return std::string(format_rate(r).view());
}

// How long the burst writes before the metadata runs out if it never grows: its free blocks above the kernel's
// reserve, 126 chunks each (thin_metadata.hpp); nothing when the metadata is not simulated.
std::optional<double> metadata_lasts(const pool_setup& s, const lvm_pool_workload& w) {
    const std::uint64_t total = thin_metadata_blocks(s.metadata_size);
    if (total == 0) return std::nullopt;
    const double used = static_cast<double>(divide(s.metadata_used, bytes(thin_metadata_block), rounding::up));
    const double left = std::max(0.0, static_cast<double>(total - thin_metadata_reserve(total)) - used);
    return left * static_cast<double>(thin_chunks_per_metadata_block) *
           static_cast<double>(s.config.pool_chunk().count()) / static_cast<double>(w.write_rate.bytes_per_second());
}

// What plan says under its table about one rate's runs.
std::string plan_notes(const pool_setup& s, rate r, const lvm_plan_summary& sum) {
    std::string notes;
    const std::string at = rate_shown(s, r);
    const lvm_pool_workload w = workload_of(s, r);
    const double writing = static_cast<double>(w.write.count()) / static_cast<double>(w.write_rate.bytes_per_second());
    // Only when the burst could get there: the data the pool and the VG can take maps that much metadata.
    const lvm_space space = lvm_pool_space(s.config, w);
    const double room = static_cast<double>(saturating_sub(space.available, w.pool_used).count()) /
                        static_cast<double>(w.write_rate.bytes_per_second());
    if (const std::optional<double> t = metadata_lasts(s, w); t && *t < writing && *t < room)
        notes += "at " + at + ": the metadata runs out after " + decimal_text(*t, 4) + " s of the " +
                 decimal_text(writing, 3) + " s burst unless it grows (a 4KiB block per 126 chunks of " +
                 std::string(format_size(s.config.pool_chunk()).view()) + ", the kernel holding back " +
                 std::to_string(thin_metadata_reserve(thin_metadata_blocks(s.metadata_size))) + " blocks)\n";
    const std::string of = " of " + std::to_string(sum.runs) + " runs";
    if (!s.config.enabled() && !s.extender.is_rate_aware()) {
        const double fills = static_cast<double>(saturating_sub(w.pool_size, w.pool_used).count()) /
                             static_cast<double>(w.write_rate.bytes_per_second());
        notes += "at " + at + ": autoextend is off (" +
                 (s.monitored ? "threshold " + std::to_string(s.config.threshold_as_written())
                              : std::string("monitoring = 0")) +
                 "): the pool never grows; " +
                 (fills < writing
                      ? "it fills after " + decimal_text(fills, 3) + " s of the " + decimal_text(writing, 3) +
                            " s burst, and its writes then " +
                            (s.model.error_when_full() ? std::string("fail at once (EIO, --error-when-full)")
                             : s.model.no_space_timeout().count() > 0.0
                                 ? "queue for no_space_timeout (" +
                                       decimal_text(in_seconds(s.model.no_space_timeout()), 0) + " s) and fail (EIO)"
                                 : std::string("queue forever (no_space_timeout 0)"))
                      : std::string("the burst fits in it")) +
                 "\n";
    }
    if (sum.vg_exhausted_runs != 0)
        notes += "at " + at + ": the VG ran out in " + std::to_string(sum.vg_exhausted_runs) + of +
                 (s.extender.is_rate_aware() ? std::string(" (the VG's free space cut an extend)\n")
                                             : std::string(" (an extend needed more than its free space and failed "
                                                           "whole)\n"));
    if (sum.metadata_full_runs != 0)
        notes += "at " + at + ": the metadata ran out in " + std::to_string(sum.metadata_full_runs) + of + ", after " +
                 decimal_text(in_seconds(sum.metadata_full_at_mean), 4) +
                 " s on average: the pool failed the writes that needed new blocks (EIO; a filesystem on it shuts "
                 "down)\n";
    if (sum.eio_runs != sum.metadata_full_runs)
        notes += "at " + at + ": writes failed with EIO in " + std::to_string(sum.eio_runs - sum.metadata_full_runs) +
                 of + " (" +
                 (s.model.error_when_full() ? std::string("--error-when-full")
                                            : "queued past no_space_timeout, " +
                                                  decimal_text(in_seconds(s.model.no_space_timeout()), 0) + " s") +
                 ")\n";
    if (sum.hung_runs != 0)
        notes += "at " + at + ": writes never completed in " + std::to_string(sum.hung_runs) + of +
                 " (no_space_timeout 0 queues them forever)\n";
    return notes;
}

constexpr std::uint32_t recommend_max_percent = 1000;

// --- recommend ---------------------------------------------------------------------------------------------------

struct recommend_setup {
    pool_setup pool;
    rate per_writer;
    lvm_pool_workload work;
    seconds target;
    double max_extends;
    std::uint32_t seeds;                    // the answer is checked at seeds seed to seed + seeds - 1
    std::vector<std::uint32_t> thresholds;  // in the order tried: the user's (or the preset's) first
    bool host_off = false;                  // --config's settings turn autoextend off
};

// What recommend found: the thresholds tried, the answer (the last tried, when met), how it holds at other seeds,
// and whether the user's own settings (their threshold with the preset's percent) meet the target.
struct recommend_outcome {
    std::vector<lvm_percent_answer> tried;
    bool met = false;
    lvm_seed_check seeds;
    bool own_met = false;
};

std::vector<option> recommend_options() {
    std::vector<option> opts = pool_options();
    opts.insert(opts.begin() + 16, {"--rate", "LIST",
                                    "the write rate per writer to plan for (required); a comma-separated list "
                                    "answers for each",
                                    true, "--rates"});
    opts.insert(opts.begin() + 17,
                {"--max-queued", "SECONDS", "the longest any run may queue writes on a full pool (default 0)"});
    opts.insert(opts.begin() + 18,
                {"--max-extends", "N",
                 "the most extends a run may take on average, 1-1000000 (default 20: each lvextend suspends the "
                 "pool and commits the VG metadata)"});
    opts.insert(opts.end() - 1, {"--seeds", "N",
                                 "seeds the answer is checked at, 1-100: --seed to --seed + N - 1, --runs runs each "
                                 "(default 5; 1 checks none but --seed)"});
    opts.insert(opts.end() - 1,
                {"--max-events", "N", "refuse a search that would replay more simulated events (default 1000000000)"});
    return opts;
}

// The synopsis, then the contract (a paragraph of --help and of the man page).
const char* recommend_usage() {
    return "provpol recommend --preset lvm-thin-autoextend --rate LIST (--pool-size SIZE | --lvs FILE) [--max-queued "
           "S]\n"
           "                         [--max-extends N] [--threshold N | --config FILE] [--pool-used SIZE] [--vg-free "
           "SIZE]\n"
           "                         [--metadata-size SIZE [--metadata-used SIZE]]\n"
           "                         [--writers N] [--write SIZE | --duration TIME] [--extent SIZE] [--pool-chunk "
           "SIZE]\n"
           "                         [--latency lvm-dmeventd] [--lvextend-time MIN,MAX] [--poll-interval S]\n"
           "                         [--no-space-timeout S] [--runs N] [--seed N] [--seeds N] [--max-events N]\n"
           "                         [--policy dmeventd|rate-aware [--interval S] [--lead-factor K] [--margin S]\n"
           "                          [--max-pool-size SIZE] [--max-vg-take SIZE]] [--format text|csv|json]\n\n"
           "The answer: at --threshold (the preset's when not given), the smallest thin_pool_autoextend_percent in\n"
           "[1, 1000] under which no run of --runs (from --seed) queues writes longer than --max-queued or fails with\n"
           "EIO, and the runs take at most --max-extends extends on average. Every percent below it was simulated and\n"
           "missed: the target is not monotone in the percent (a larger extend can land later, or not fit in the VG),\n"
           "so none is skipped. When none meets and --threshold is not given, thresholds 5 lower down to 50 are tried\n"
           "in turn; the first with an answer gives it. The answer is checked at --seeds seeds: how many it meets at,\n"
           "and the smallest percent that meets at all of them. When the pool and the VG cannot hold the data (used +\n"
           "written above the pool and the VG's free space) no setting meets, and recommend says how much space is\n"
           "missing. No answer exits with status 3.\n\n"
           "With --policy rate-aware the answer is the smallest --horizon in whole seconds in [1, 3600] under which\n"
           "the rate-aware extender (provpol-thinpoold's policy, with its other settings as given) meets the same\n"
           "target: no run queues writes longer than --max-queued, none fails with EIO, and the runs take at most\n"
           "--max-extends extends on average. Every horizon below it was simulated and missed (a scan: a longer\n"
           "horizon takes fewer, larger extends, which the caps can cut). --seeds is not checked for it.";
}

recommend_setup recommend_setup_of(const args& a) {
    if (a.value("--policy").value_or("dmeventd") == "rate-aware") {
        if (a.has("--horizon")) throw usage_error("--horizon is what recommend --policy rate-aware finds");
        if (a.has("--seeds"))
            throw usage_error(
                "--seeds checks dmeventd's percent: recommend --policy rate-aware "
                "answers at --seed");
    }
    if (a.has("--extend-percent"))
        throw usage_error("--extend-percent is what recommend finds: give --threshold to fix the threshold");
    if (a.has("--error-when-full"))
        throw usage_error("--error-when-full fails every write on a full pool: recommend plans for queueing pools");
    const std::vector<rate> rates = rates_of(a, "--rate");
    if (rates.size() != 1) throw usage_error("recommend needs one --rate");
    const pool_setup s = pool_setup_of(a);
    const bool host_off = !s.config.enabled() && !s.extender.is_rate_aware() && !a.has("--threshold");
    if (!s.config.enabled() && !s.extender.is_rate_aware() && !host_off)
        throw usage_error("--threshold " + std::to_string(s.config.threshold_as_written()) +
                          " disables autoextend (100 or more): give a threshold under 100 to recommend a percent");
    recommend_setup r{s,
                      rates[0],
                      workload_of(s, rates[0]),
                      a.time("--max-queued", seconds(0.0), seconds(86400.0)).value_or(seconds(0.0)),
                      static_cast<double>(a.count("--max-extends", 1, 1000000).value_or(20)),
                      static_cast<std::uint32_t>(a.count("--seeds", 1, 100).value_or(5)),
                      {s.config.threshold_percent()}};
    // The host's settings turn autoextend off (threshold 100 or more, or monitoring = 0): they cannot meet any
    // target; the search starts at the highest threshold that extends, 95, and goes down in 5% steps to 50.
    if (host_off) {
        r.host_off = true;
        r.thresholds = {95};
    }
    // The threshold given (or the preset's) first; when no percent meets the target there, lower thresholds in 5%
    // steps down to 50 (unless --threshold fixes it).
    if (!a.has("--threshold"))
        for (std::uint32_t th = (r.thresholds.front() - 1) / 5 * 5; th >= 50; th -= 5) r.thresholds.push_back(th);
    return r;
}

// Bounded work: the most plans the search can simulate (every percent at every threshold, and every percent at
// every seed of the check), each of --runs runs. A plan that misses stops at its first run that cannot meet, and
// once its extends pass --max-extends a run: its extends are bounded by that, its waiting by one run's.
void check_recommend_work(const recommend_setup& r) {
    const pool_setup& s = r.pool;
    const double runs = s.runs, one_run = lvm_extends_bound(r.work, 1);
    const double extends = std::min(runs * one_run, r.max_extends * runs + one_run);
    const double plan = runs * (lvm_run_events(s, r.work, 0.0) + lvm_wait_events(s, r.target.count())) + 6.0 * extends +
                        lvm_wait_events(s);
    const double plans =
        static_cast<double>(recommend_max_percent) * static_cast<double>(r.thresholds.size() + r.seeds);
    check_work("recommend", plan * plans, s.max_events,
               "up to " + decimal_text(plans, 0) + " plans of " + std::to_string(s.runs) + " runs of " +
                   std::string(format_size(r.work.write).view()) + " at " +
                   std::string(format_rate(r.work.write_rate).view()));
}

// The search: each threshold in turn until one has a percent that meets; then that answer at other seeds, and
// the user's own settings (their threshold with the configuration's percent) against the same target.
recommend_outcome search(const recommend_setup& r) {
    const pool_setup& s = r.pool;
    recommend_outcome o;
    for (const std::uint32_t th : r.thresholds) {
        o.tried.push_back(recommend_lvm_percent(s.config, s.model, r.work, th, r.target, s.runs, s.seed,
                                                recommend_max_percent, r.max_extends));
        if (o.tried.back().met || o.tried.back().space.missing() != bytes(0)) break;
    }
    o.met = o.tried.back().met;
    if (!o.met) return o;
    const lvm_percent_answer& b = o.tried.back();
    o.seeds = check_lvm_percent_seeds(s.config, s.model, r.work, b.threshold, b.percent, r.target, s.runs, s.seed,
                                      r.seeds, recommend_max_percent, r.max_extends);
    const std::uint32_t own = s.config.extend_percent();
    if (o.tried.size() == 1 && own >= b.percent)  // below the answer: simulated and missed
        o.own_met = own == b.percent || check_lvm_plan(lvm_config_with(s.config, b.threshold, own), s.model, r.work,
                                                       s.runs, s.seed, r.target, r.max_extends)
                                            .met;
    return o;
}

// recommend's columns: one row per threshold tried; the check at other seeds on the chosen row.
const std::vector<std::string>& recommend_columns() {
    static const std::vector<std::string> c = {
        "threshold",       "percent",           "met",          "chosen",         "queued_s_max",
        "eio_runs",        "extends_mean",      "pool_end_max", "runs",           "seed",
        "plans",           "missed_queued",     "missed_eio",   "missed_hung",    "missed_extends",
        "missed_vg",       "space_missing",     "seeds",        "meets_at_seeds", "percent_all_seeds",
        "missed_metadata", "meta_extends_mean", "meta_end_max"};
    return c;
}

// The cells recommend's percent and horizon rows share: the runs, the plans simulated and why they missed.
template <class Answer>
std::vector<cell> miss_cells(const recommend_setup& r, const Answer& a) {
    return {cell::of(r.pool.runs),      cell::of(r.pool.seed),  cell::of(a.plans),
            cell::of(a.missed_queued),  cell::of(a.missed_eio), cell::of(a.missed_hung),
            cell::of(a.missed_extends), cell::of(a.missed_vg),  cell::of_size(a.space.missing())};
}

std::vector<cell> recommend_row(const recommend_setup& r, const recommend_outcome& o, const lvm_percent_answer& a) {
    const bool chosen = o.met && &a == &o.tried.back();
    const auto if_met = [&](cell c) { return a.met ? c : cell(); };
    const auto if_chosen = [&](cell c) { return chosen ? c : cell(); };
    const bool meta = r.pool.metadata_size.count() != 0;
    std::vector<cell> row = {cell::of(a.threshold),
                             if_met(cell::of(a.percent)),
                             cell::of_flag(a.met),
                             cell::of_flag(chosen),
                             if_met(cell::of_seconds(a.at.queued_max, 4)),
                             if_met(cell::of(a.at.eio_runs)),
                             if_met(cell::of_real(a.at.extends_mean, 4)),
                             if_met(cell::of_size(a.at.pool_end_max))};
    for (cell& c : miss_cells(r, a)) row.push_back(std::move(c));
    row.push_back(if_chosen(cell::of(o.seeds.seeds)));
    row.push_back(if_chosen(cell::of(o.seeds.meets_at)));
    row.push_back(chosen && o.seeds.found_all ? cell::of(o.seeds.percent_all) : cell());
    row.push_back(cell::of(a.missed_metadata));
    row.push_back(a.met && meta ? cell::of_real(a.at.metadata_extends_mean, 4) : cell());
    row.push_back(a.met && meta ? cell::of_size(a.at.metadata_end_max) : cell());
    return row;
}

// A size for prose: exact when short ("2548GiB", "500GiB"), else "~" and four significant digits ("~1.091TiB").
std::string size_words(bytes b) {
    const std::string exact(format_size(b).view());
    if (exact.size() <= 7) return exact;
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double x = static_cast<double>(b.count());
    int u = 0;
    while (x >= 1024.0 && u < 6) {
        x /= 1024.0;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "~%.4g%s", x, units[u]);
    return buf;
}

// "4GiB/s into a 10GiB pool" (with the writers when more than one).
std::string burst_words(const recommend_setup& r) {
    return rate_shown(r.pool, r.per_writer) +
           (r.pool.writers > 1 ? " x " + std::to_string(r.pool.writers) + " writers" : std::string()) + " into a " +
           std::string(format_size(r.pool.pool_size).view()) + " pool";
}

// "threshold 70", "thresholds 70 to 50".
std::string threshold_words(const std::vector<lvm_percent_answer>& tried) {
    if (tried.size() == 1) return "threshold " + std::to_string(tried.front().threshold);
    return "thresholds " + std::to_string(tried.front().threshold) + " to " + std::to_string(tried.back().threshold);
}

// Sizes that are added up in one sentence, in one unit: the largest in which `b` is at least 100, exact when whole
// ("2548GiB"), else to a tenth ("~1433.6GiB").
struct size_unit {
    double scale = 1.0;
    const char* name = "B";
    explicit size_unit(bytes b) {
        const char* names[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        for (const char* n : names) {
            if (static_cast<double>(b.count()) / (scale * 1024.0) < 100.0) break;
            scale *= 1024.0;
            name = n;
        }
    }
    std::string operator()(bytes b) const {
        const double x = static_cast<double>(b.count()) / scale;
        if (b.count() == 0) return "0";
        if (x < 0.1) return size_words(b);  // too small for this unit
        char buf[48];
        const bool near_whole = std::fabs(x - std::round(x)) < 0.05;
        std::snprintf(buf, sizeof buf, x == std::floor(x) ? "%.0f%s" : near_whole ? "~%.0f%s" : "~%.1f%s", x, name);
        return buf;
    }
};

// Space, not speed: the data cannot fit in the pool and the VG whatever the settings and the rate.
std::string space_text(const recommend_setup& r, const lvm_space& sp) {
    const size_unit u(sp.needed);
    const std::string missing = u(sp.missing());
    const std::string holds = sp.extent_limit ? "lvm2 grows an LV to at most 2^32 - 2 extents of " +
                                                    std::string(format_size(r.pool.config.extent()).view()) + ", " +
                                                    u(sp.available) + " of data"
                                              : "the pool (" + u(r.pool.pool_size) + ") and the VG's free space (" +
                                                    u(r.pool.vg_free) + ") hold " + u(sp.available);
    return "LVM cannot hold this burst at any setting: " + u(r.pool.pool_used) + " used + " + u(r.work.write) +
           " written = " + u(sp.needed) + ", but " + holds + ": " + missing +
           " missing. No autoextend setting and no write rate change that: " +
           (sp.extent_limit ? "use a larger extent (vgcreate -s)"
                            : "add at least " + missing + " to the VG (vgextend)") +
           ", or write less.\n";
}

// Nothing meets, though the data fits: what the percents missed on, summed over the thresholds tried.
std::string miss_text(const recommend_setup& r, const recommend_outcome& o) {
    std::uint64_t plans = 0, queued = 0, eio = 0, hung = 0, vg = 0, extends = 0, metadata = 0;
    for (const lvm_percent_answer& a : o.tried) {
        plans += a.plans, queued += a.missed_queued, eio += a.missed_eio, hung += a.missed_hung;
        vg += a.missed_vg, extends += a.missed_extends, metadata += a.missed_metadata;
    }
    const lvm_space& sp = o.tried.back().space;
    std::string out = "LVM cannot keep up at " + burst_words(r) + ": at " + threshold_words(o.tried) +
                      ", every percent from 1 to " + std::to_string(recommend_max_percent) + " misses the target (" +
                      std::to_string(plans) + " plans, seed " + std::to_string(r.pool.seed) + ", " +
                      std::to_string(r.pool.runs) + " runs each)";
    if (vg == plans)  // the VG, not the rate: each percent's extends outgrow what the VG has left
        return out + ": each runs the VG out, though the data fits (" + size_words(sp.needed) + " of the " +
               size_words(sp.available) + " the pool and the VG hold): an extend that needs more than the VG has " +
               "left fails whole, and writes queue. Give the VG more room (vgextend) or start with a larger pool.\n";
    std::vector<std::string> why;
    if (queued != 0)
        why.push_back(std::to_string(queued) + " with a run that queues writes longer than " +
                      decimal_text(r.target, 3) + " s");
    if (eio != 0) why.push_back(std::to_string(eio) + " with a run that fails with EIO");
    if (hung != 0) why.push_back(std::to_string(hung) + " with a run whose writes never complete");
    if (extends != 0)
        why.push_back(std::to_string(extends) + " taking more than " + decimal_text(r.max_extends, 0) +
                      " extends a run on average");
    if (vg != 0) why.push_back(std::to_string(vg) + " running the VG out");
    if (metadata != 0) why.push_back(std::to_string(metadata) + " running the metadata out (its EIO counted above)");
    for (std::size_t i = 0; i < why.size(); ++i)
        out += (i == 0 ? ": " : i + 1 == why.size() ? ", and " : ", ") + why[i];
    if (metadata == plans)
        return out +
               ". The metadata runs out before lvm2 grows it: give the pool more metadata now (lvextend "
               "--poolmetadatasize), or a larger chunk (fewer mappings per byte).\n";
    if (queued == 0 && eio == 0 && hung == 0)
        return out +
               ". Every percent that keeps writes from queueing extends too often: raise --max-extends or "
               "start with a larger pool.\n";
    return out +
           ". The first extend must land before the space above the threshold is written: start with a "
           "larger pool" +
           (vg != 0 ? std::string(", give the VG more room") : std::string()) + ", or write slower.\n";
}

// "threshold 100", "monitoring = 0 from lvm.conf line 3": what turns the host's autoextend off.
std::string own_off_words(const recommend_setup& r) {
    return r.pool.monitored ? "threshold " + std::to_string(r.pool.config.threshold_as_written())
                            : std::string("monitoring = 0");
}

// When the burst fills a pool that never grows, and what its writes do then.
std::string fill_words(const recommend_setup& r) {
    const double fills = static_cast<double>(saturating_sub(r.work.pool_size, r.work.pool_used).count()) /
                         static_cast<double>(r.work.write_rate.bytes_per_second());
    const double writing =
        static_cast<double>(r.work.write.count()) / static_cast<double>(r.work.write_rate.bytes_per_second());
    if (fills >= writing) return "the burst fits in the pool as it is";
    return "the pool fills after " + decimal_text(fills, 3) + " s of the " + decimal_text(writing, 3) +
           " s burst, then its writes queue for no_space_timeout (" +
           decimal_text(in_seconds(r.pool.model.no_space_timeout()), 0) + " s) and fail (EIO)";
}

// The answer, what it rests on, and the lvm.conf block.
std::string found_text(const recommend_setup& r, const recommend_outcome& o) {
    const lvm_percent_answer& b = o.tried.back();
    const std::string p = std::to_string(b.percent), th = std::to_string(b.threshold);
    std::string out = "# " + burst_words(r) + " queues writes at most " + decimal_text(b.at.queued_max, 3) +
                      " s over " + std::to_string(r.pool.runs) + " runs (seed " + std::to_string(r.pool.seed) +
                      "; target " + decimal_text(r.target, 3) + " s) with " + decimal_text(b.at.extends_mean, 3) +
                      " extends a run; the pool ends at " + size_words(b.at.pool_end_max) + "\n";
    if (r.pool.metadata_size.count() != 0)
        out += "# the metadata (" + size_words(r.pool.metadata_size) + ", " +
               (r.pool.metadata_used.count() == 0 ? std::string("none") : size_words(r.pool.metadata_used)) +
               " used) grows " + decimal_text(b.at.metadata_extends_mean, 3) + " times a run and ends at " +
               size_words(b.at.metadata_end_max) + " at most; it never ran out\n";
    if (o.tried.size() > 1)
        out += "# no percent from 1 to " + std::to_string(recommend_max_percent) + " meets the target at " +
               threshold_words(std::vector<lvm_percent_answer>(o.tried.begin(), o.tried.end() - 1)) + "\n";
    out += "# " + p + " is the smallest percent in [1, " + std::to_string(recommend_max_percent) +
           "] that meets it at threshold " + th +
           (b.percent > 2   ? ": percents 1 to " + std::to_string(b.percent - 1) + " were simulated and missed\n"
            : b.percent > 1 ? std::string(": percent 1 was simulated and missed\n")
                            : std::string("\n"));
    const lvm_seed_check& k = o.seeds;
    const std::string seeds = std::to_string(r.pool.seed) + "-" + std::to_string(r.pool.seed + k.seeds - 1);
    if (k.seeds <= 1)
        out += "# checked at seed " + std::to_string(r.pool.seed) + " only (--seeds 1)\n";
    else if (k.meets_at == k.seeds)
        out += "# at seeds " + seeds + " (" + std::to_string(r.pool.runs) + " runs each) percent " + p +
               " meets at all " + std::to_string(k.seeds) + "\n";
    else
        out += "# at seeds " + seeds + " (" + std::to_string(r.pool.runs) + " runs each) percent " + p + " meets at " +
               std::to_string(k.meets_at) + " of " + std::to_string(k.seeds) +
               (k.found_all ? "; the smallest percent that meets at all of them is " + std::to_string(k.percent_all)
                            : "; no percent up to " + std::to_string(recommend_max_percent) + " meets at all of them") +
               "\n";
    out += r.host_off
               ? "# your settings turn autoextend off (" + own_off_words(r) + "): " + fill_words(r) + "\n"
               : "# your settings, threshold " + std::to_string(r.thresholds.front()) + " with percent " +
                     std::to_string(r.pool.config.extend_percent()) +
                     (o.own_met ? ", already meet the target: nothing needs to change\n" : ", miss the target\n");
    return out +
           "# for /etc/lvm/lvm.conf (or an lvm profile):\nactivation {\n    thin_pool_autoextend_threshold = " + th +
           "\n    thin_pool_autoextend_percent = " + p + (r.pool.monitored ? "" : "\n    monitoring = 1") + "\n}\n" +
           (r.pool.monitored ? "" : "# and monitor the pool: lvchange --monitor y VG/POOL\n");
}

// --- recommend --policy rate-aware -------------------------------------------------------------------------------

constexpr std::uint32_t recommend_max_horizon = 3600;

// Bounded work: every horizon of the scan, each a plan of --runs runs (samples every --interval, the waits on a full
// pool, one extend a sample at most).
void check_horizon_work(const recommend_setup& r) {
    const pool_setup& s = r.pool;
    const double writing =
        static_cast<double>(r.work.write.count()) / static_cast<double>(r.work.write_rate.bytes_per_second());
    const double run = lvm_run_events(s, r.work, writing / wakeup_interval(s) + 1.0) + lvm_wait_events(s);
    check_work("recommend", run * s.runs * recommend_max_horizon, s.max_events,
               "up to " + std::to_string(recommend_max_horizon) + " plans of " + std::to_string(s.runs) + " runs of " +
                   std::string(format_size(r.work.write).view()) + " at " +
                   std::string(format_rate(r.work.write_rate).view()));
}

const std::vector<std::string>& horizon_columns() {
    static const std::vector<std::string> c = {
        "policy",       "horizon_s",      "met",       "queued_s_max",  "eio_runs",        "extends_mean",
        "pool_end_max", "runs",           "seed",      "plans",         "missed_queued",   "missed_eio",
        "missed_hung",  "missed_extends", "missed_vg", "space_missing", "missed_metadata", "meta_extends_mean",
        "meta_end_max"};
    return c;
}

std::vector<cell> horizon_row(const recommend_setup& r, const lvm_horizon_answer& a) {
    const auto if_met = [&](cell c) { return a.met ? c : cell(); };
    const bool meta = a.met && r.pool.metadata_size.count() != 0;
    std::vector<cell> row = {cell::of_text("rate-aware"),
                             if_met(cell::of(a.horizon)),
                             cell::of_flag(a.met),
                             if_met(cell::of_seconds(a.at.queued_max, 4)),
                             if_met(cell::of(a.at.eio_runs)),
                             if_met(cell::of_real(a.at.extends_mean, 4)),
                             if_met(cell::of_size(a.at.pool_end_max))};
    for (cell& c : miss_cells(r, a)) row.push_back(std::move(c));
    row.push_back(cell::of(a.missed_metadata));
    row.push_back(meta ? cell::of_real(a.at.metadata_extends_mean, 4) : cell());
    row.push_back(meta ? cell::of_size(a.at.metadata_end_max) : cell());
    return row;
}

// The answer, what it rests on, and the daemon's options that carry it out.
std::string horizon_found_text(const recommend_setup& r, const lvm_horizon_answer& a) {
    const lvm_rate_aware_settings& st = r.pool.extender.rate_aware()->settings();
    const std::string h = std::to_string(a.horizon);
    return "# " + burst_words(r) + " queues writes at most " + decimal_text(a.at.queued_max, 3) + " s over " +
           std::to_string(r.pool.runs) + " runs (seed " + std::to_string(r.pool.seed) + "; target " +
           decimal_text(r.target, 3) + " s) with " + decimal_text(a.at.extends_mean, 3) +
           " extends a run under the rate-aware extender; the pool ends at " + size_words(a.at.pool_end_max) + "\n" +
           "# " + h + " s is the smallest --horizon in [1, " + std::to_string(recommend_max_horizon) +
           "] s that meets it" +
           (a.horizon > 1 ? ": horizons 1 to " + std::to_string(a.horizon - 1) + " s were simulated and missed\n"
                          : std::string("\n")) +
           "# for provpol-thinpoold (dmeventd's monitoring of the pool off: --take-over):\n" + "--interval " +
           decimal_text(r.pool.extender.interval().count(), 3) + "s --horizon " + h + "s --lead-factor " +
           decimal_text(st.lead_factor, 3) + " --margin " + decimal_text(st.margin.count(), 3) + "s --lvextend-time " +
           decimal_text(r.pool.model.lvextend_max().count(), 3) + "s --max-pool-size " +
           std::string(format_size(st.max_pool_size).view()) + " --max-vg-take " +
           std::string(format_size(st.max_vg_take).view()) + "\n";
}

// Nothing meets, though the data fits: what the horizons missed on.
std::string horizon_miss_text(const recommend_setup& r, const lvm_horizon_answer& a) {
    std::string out = "The rate-aware extender cannot keep up at " + burst_words(r) + ": every horizon from 1 to " +
                      std::to_string(recommend_max_horizon) + " s misses the target (" + std::to_string(a.plans) +
                      " plans, seed " + std::to_string(r.pool.seed) + ", " + std::to_string(r.pool.runs) +
                      " runs each)";
    std::vector<std::string> why;
    if (a.missed_queued != 0)
        why.push_back(std::to_string(a.missed_queued) + " with a run that queues writes longer than " +
                      decimal_text(r.target, 3) + " s");
    if (a.missed_eio != 0) why.push_back(std::to_string(a.missed_eio) + " with a run that fails with EIO");
    if (a.missed_hung != 0) why.push_back(std::to_string(a.missed_hung) + " with a run whose writes never complete");
    if (a.missed_extends != 0)
        why.push_back(std::to_string(a.missed_extends) + " taking more than " + decimal_text(r.max_extends, 0) +
                      " extends a run on average");
    if (a.missed_vg != 0) why.push_back(std::to_string(a.missed_vg) + " with an extend cut by the VG's free space");
    if (a.missed_metadata != 0) why.push_back(std::to_string(a.missed_metadata) + " running the metadata out");
    for (std::size_t i = 0; i < why.size(); ++i)
        out += (i == 0 ? ": " : i + 1 == why.size() ? ", and " : ", ") + why[i];
    // The caps before the rate: the data the pool may hold under them (the metadata's share left out).
    const lvm_rate_aware_settings& st = r.pool.extender.rate_aware()->settings();
    const bytes hold = std::min(st.max_pool_size, saturating_add(r.pool.pool_size, st.max_vg_take));
    const bytes needed = saturating_add(r.pool.pool_used, r.work.write);
    if (needed > hold)
        return out + ". The caps let the pool hold at most " + size_words(hold) + " (--max-pool-size " +
               size_words(st.max_pool_size) + ", --max-vg-take " + size_words(st.max_vg_take) + " from " +
               size_words(r.pool.pool_size) + "), the burst needs " + size_words(needed) +
               ": raise them (their defaults are twice the pool and the pool).\n";
    return out +
           ". An extend must land before the pool fills and the caps must let the pool hold the burst: raise "
           "--max-pool-size and --max-vg-take, sample more often (--interval), start with a larger pool, or write "
           "slower.\n";
}

// recommend --policy rate-aware: the scan, then the answer (exit 3 when none meets).
int recommend_horizon(const recommend_setup& r, format f) {
    const pool_setup& s = r.pool;
    if (lvm_pool_space(s.config, r.work).missing() == bytes(0)) check_horizon_work(r);
    const lvm_horizon_answer a =
        recommend_lvm_horizon(s.config, s.model, r.work, s.extender.rate_aware()->settings(), s.extender.interval(),
                              r.target, s.runs, s.seed, recommend_max_horizon, r.max_extends);
    std::string out;
    if (f != format::text) {
        table t(horizon_columns());
        t.add_row(horizon_row(r, a));
        out = t.str(f);
    } else if (a.met) {
        out = horizon_found_text(r, a);
    } else if (a.space.missing() != bytes(0)) {
        out = space_text(r, a.space);
    } else {
        out = horizon_miss_text(r, a);
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return a.met ? 0 : exit_target_not_met;
}

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
            // A name no registry has is the error, not the options of the command it would have chosen.
            const auto p = parse_extend_preset(text_view(name.data(), name.size()), "--preset");
            if (!p) preset_error(p.error(), name);
            if (lvm_config_of(*p)) return true;
            if (comma == std::string_view::npos) break;
            v = v.substr(comma + 1);
        }
    }
    return false;
}

int run_plan_lvm(int argc, char** argv) {
    // A list of presets (--preset lvm-thin-autoextend,lvm-thin-default): one plan per preset, with a preset column.
    if (const auto v = values_in(argc, argv, {"--preset"}, split_commas); v.size() > 1)
        return run_per_value(argc, argv, {"--preset"}, v, "preset", run_plan_lvm);
    // A list of extenders (--policy dmeventd,rate-aware): one plan each, with a policy column.
    if (const auto v = values_in(argc, argv, {"--policy"}, split_commas); v.size() > 1) {
        rate_aware_options_shared = std::find(v.begin(), v.end(), "rate-aware") != v.end();
        return run_per_value(argc, argv, {"--policy"}, v, "policy", run_plan_lvm);
    }
    std::vector<option> opts = pool_options();
    opts.insert(opts.begin() + 16, {"--rate", "LIST",
                                    "write rates per writer, comma-separated (default "
                                    "100MiB/s,500MiB/s,1GiB/s,4GiB/s)",
                                    true, "--rates"});
    opts.insert(opts.end() - 1,
                {"--max-events", "N", "refuse a plan that would replay more simulated events (default 1000000000)"});
    const args a("plan",
                 "provpol plan --preset lvm-thin-autoextend|lvm-thin-default (--pool-size SIZE [--pool-used SIZE] | "
                 "--lvs FILE)\n"
                 "                    [--metadata-size SIZE [--metadata-used SIZE]] [--vg-free SIZE] [--writers N]\n"
                 "                    [--rate LIST] [--write SIZE | --duration TIME] [--threshold N]\n"
                 "                    [--extend-percent N | --config FILE] [--extent SIZE] [--pool-chunk SIZE] "
                 "[--latency lvm-dmeventd]\n"
                 "                    [--lvextend-time MIN,MAX] [--poll-interval S] [--no-space-timeout S] "
                 "[--error-when-full]\n"
                 "                    [--policy dmeventd|rate-aware [--interval S] [--horizon S] [--lead-factor K]\n"
                 "                     [--margin S] [--max-pool-size SIZE] [--max-vg-take SIZE]]\n"
                 "                    [--runs N] [--seed N] [--max-events N] [--format text|csv|json]",
                 opts, argc, argv);
    const format f = a.output_format();
    const pool_setup s = pool_setup_of(a);
    std::vector<rate> rates = rates_of(a, "--rate");
    if (rates.empty())
        rates = {rate(std::uint64_t{100} << 20), rate(std::uint64_t{500} << 20), rate(std::uint64_t{1} << 30),
                 rate(std::uint64_t{4} << 30)};
    double events = 0.0;  // bounded work: estimated before simulating
    for (const rate r : rates) {
        const lvm_pool_workload w = workload_of(s, r);
        // The rate-aware extender extends at most once a sample.
        const double extends = s.extender.is_rate_aware()
                                   ? static_cast<double>(w.write.count()) /
                                             static_cast<double>(w.write_rate.bytes_per_second()) / wakeup_interval(s) +
                                         1.0
                                   : lvm_extends_bound(w, s.config.extend_percent());
        events += s.runs * (lvm_run_events(s, w, extends) + lvm_wait_events(s));
    }
    check_work("plan", events, s.max_events,
               std::to_string(s.runs) + " runs x " + std::to_string(rates.size()) + " rates of " +
                   (s.duration ? s.duration_text + " of writing"
                               : std::string(format_size(bytes(s.write.count() * s.writers)).view())) +
                   ", the slowest rate " +
                   std::string(format_rate(*std::min_element(rates.begin(), rates.end(), [](rate x, rate y) {
                                   return x.bytes_per_second() < y.bytes_per_second();
                               })).view()));
    // The text table leaves out the metadata's columns when it is not simulated (CSV and JSON keep them, empty).
    std::vector<std::string> columns = plan_columns();
    if (f == format::text && s.metadata_size.count() == 0) columns.resize(columns.size() - 4);
    table t(columns);  // add_row drops the cells past the last column
    t.one_size_unit_per_column();
    std::string notes;
    for (const rate r : rates) {
        const lvm_plan_summary sum =
            simulate_lvm_plan(s.config, s.model, workload_of(s, r), s.runs, s.seed, s.extender);
        t.add_row(plan_row(r, s.writers, sum));
        notes += plan_notes(s, r, sum);
    }
    const std::string out = t.str(f);
    std::fwrite(out.data(), 1, out.size(), stdout);
    if (f == format::text && !notes.empty()) std::fputs(notes.c_str(), stdout);
    return 0;
}

int run_recommend_lvm(int argc, char** argv) {
    const args a("recommend", recommend_usage(), recommend_options(), argc, argv);
    const format f = a.output_format();
    const recommend_setup r = recommend_setup_of(a);
    if (r.pool.extender.is_rate_aware()) return recommend_horizon(r, f);
    // A burst the pool and the VG cannot hold is answered without simulating: no bound to check.
    if (lvm_pool_space(r.pool.config, r.work).missing() == bytes(0)) check_recommend_work(r);
    const recommend_outcome o = search(r);
    // No percent meeting the target is its own exit status (3), in every format.
    const int status = o.met ? 0 : exit_target_not_met;
    std::string out;
    if (f != format::text) {
        table t(recommend_columns());
        for (const lvm_percent_answer& ans : o.tried) t.add_row(recommend_row(r, o, ans));
        out = t.str(f);
    } else if (o.met) {
        out = found_text(r, o);
    } else {
        out = r.host_off ? "# your settings turn autoextend off (" + own_off_words(r) + "): " + fill_words(r) + "\n"
                         : std::string();
        out += o.tried.back().space.missing() != bytes(0) ? space_text(r, o.tried.back().space) : miss_text(r, o);
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return status;
}

}  // namespace provpol::cli
