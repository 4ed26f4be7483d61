// provpol plan and provpol recommend for LVM thin pools: writers bursting into one pool under dmeventd
// (simulate_lvm_plan), and the smallest autoextend percent (and threshold) under which no run queues writes
// longer than a target (recommend_lvm_percent, a scan: the target is not monotone in the percent). plan and
// recommend come here when --preset names an LVM preset (is_lvm_invocation). --policy rate-aware replaces dmeventd
// with the rate-aware extender (lvm_pool.hpp's lvm_extender, examples/thinpoold's policy): plan simulates it, and
// recommend finds the smallest --horizon that meets the target (recommend_lvm_horizon, a scan too).
#include "budget.hpp"
#include "commands.hpp"
#include "common/cli.hpp"
#include "common/preset_option.hpp"
#include "common/spec_list.hpp"
#include "common/table.hpp"
#include "lvm_extend.hpp"
#include "parallel.hpp"
#include "per_value.hpp"
#include "plan.hpp"
#include "rate_range.hpp"
#include "text_output.hpp"
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
         "with --config: the lvm2 whose built-in defaults fill the keys no file sets (the one lvm version "
         "names here by default, else 2.03.31)"},
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
        {"--lvs-pool", "VG/POOL",
         "the thin pool of the --lvs report, needed by plan when it has several; recommend answers for every active "
         "pool of the report, or of --lvs-pool VG"},
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
        {"--burst-rate", "RATE",
         "rate-aware: the rate the pool is kept ready for before it is seen (provpol-thinpoold's --burst-rate; "
         "default 0: the estimate alone)"},
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
constexpr const char* rate_aware_only[] = {"--interval",      "--horizon",     "--lead-factor", "--margin",
                                           "--max-pool-size", "--max-vg-take", "--burst-rate"};

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
    st.min_rate = a.rate("--burst-rate").value_or(rate(0));
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
    std::string name;                   ///< "vg/pool" when --lvs gives the pool
    std::vector<std::string> notes;     ///< how its Data% and Meta% were taken (lvs_percent_note), when widened
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
std::pair<bytes, bytes> metadata_of(const args& a, const lvm_autoextend_config& c, const lvs_pool* lvs,
                                    lvm_used_worst& worst) {
    constexpr bytes block(thin_metadata_block);
    if (lvs != nullptr && lvs->active)
        return {lvs->metadata_size, lvs->metadata_size.count() == 0
                                        ? bytes(0)
                                        : lvs_fill(lvs->metadata_percent, lvs->metadata_size, block, &worst)};
    if (lvs != nullptr) {  // inactive: --metadata-used gives its usage, or the metadata is not simulated
        if (!a.has("--metadata-used") || lvs->metadata_size.count() == 0) return {bytes(0), bytes(0)};
        const bytes used = lvm_used_option(a, "--metadata-used", lvs->metadata_size,
                                           "the --lvs pool's lv_metadata_size", block, &worst)
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
    const bytes used = lvm_used_option(a, "--metadata-used", size, "--metadata-size", block, &worst).value_or(bytes(0));
    if (used > *size)
        throw usage_error("--metadata-used (" + std::string(format_size(used).view()) +
                          ") is more than --metadata-size (" + std::string(format_size(*size).view()) + ")");
    return {*size, used};
}

// The options --lvs gives, and those it gives only for an active pool.
constexpr std::initializer_list<const char*> lvs_replaced = {"--pool-size", "--metadata-size", "--vg-free",
                                                             "--pool-chunk", "--extent"};
constexpr lvs_usage_options lvs_usage = {"--pool-used", "--metadata-used"};

// The thin pools of --lvs: every one of the report, of --lvs-pool's VG, or the one it names (read_lvs_pools);
// none without --lvs. The options the report gives are refused alongside it, as lvs_option refuses them. One pool
// may be inactive when --pool-used gives its usage (lvs_usage_checks); of several, the inactive ones are left out
// (lvs prints no usage for them), and stderr names them.
std::vector<lvs_pool> lvs_pools_of(const args& a) {
    if (!lvs_option_checks(a, lvs_replaced)) return {};
    std::vector<lvs_pool> pools = read_lvs_pools(*a.value("--lvs"), "--lvs", a.value("--lvs-pool").value_or(""));
    if (pools.size() == 1) {
        lvs_usage_checks(a, pools.front(), lvs_usage);
        return pools;
    }
    for (const char* o : {lvs_usage.data, lvs_usage.metadata})
        if (a.has(o))
            throw usage_error(std::string(o) + " gives one pool's usage, and the --lvs report has " +
                              std::to_string(pools.size()) + " thin pools: name one with --lvs-pool VG/POOL");
    std::vector<lvs_pool> active;
    std::string left;
    for (const lvs_pool& p : pools) {
        if (p.active)
            active.push_back(p);
        else
            left += (left.empty() ? "" : ", ") + args::printable(p.vg + "/" + p.name);
    }
    if (active.empty())
        throw usage_error("--lvs: no thin pool of the report is active (" + left +
                          "): lvs reports a pool's usage only while it is active; name one with --lvs-pool VG/POOL "
                          "and give its usage with --pool-used");
    if (!left.empty())
        warn("provpol " + a.command() + ": --lvs: left out, inactive (lvs prints no usage for them): " + left +
             "; plan one with --lvs-pool VG/POOL --pool-used");
    return active;
}

// plan's and recommend's pool: from --lvs (the one pool it reports, or `lvs` when given) or the options. Data% and
// Meta% are taken at the worst their rounding allows (lvs_percent_worst), and `notes` say so.
pool_setup pool_setup_of(const args& a, const lvs_pool* given = nullptr) {
    const auto preset = parse_extend_preset(a.value("--preset").value_or("lvm-thin-autoextend"), "--preset");
    if (!preset) fail(preset.error(), "--preset");
    const auto lvm = lvm_config_of(*preset);
    if (!lvm) fail(lvm.error(), "--preset");
    if (lvm->kind() != lvm_volume_kind::thin_pool)
        throw usage_error("--preset: " + std::string(to_text(*preset)) +
                          " is not a thin pool: plan and recommend simulate thin pools (lvm-thin-autoextend, "
                          "lvm-thin-default)");
    const std::optional<lvs_pool> lvs =
        given != nullptr ? std::optional<lvs_pool>(*given) : lvs_option(a, lvs_replaced, lvs_usage);
    lvm_host host;
    lvm_autoextend_config c = lvm_config_from(a, *preset, lvs ? &*lvs : nullptr, &host);
    warn_lvm_clamp(c);
    // monitoring = 0: dmeventd never runs lvextend --use-policies, so the pool is simulated with autoextend off.
    if (!host.monitored) c = lvm_config_with(c, lvm_threshold(100), lvm_percent(c.extend_percent()));
    const lvm_dmeventd_model m = model_of(a);
    const bytes pool = lvs ? lvs->size : pool_size_of(a, c);
    lvm_used_worst data{"Data%", {}}, meta{"Meta%", {}};
    const bytes used = lvs && lvs->active
                           ? lvs_fill(lvs->data_percent, pool, c.pool_chunk(), &data)
                           : lvm_used_option(a, "--pool-used", pool, lvs ? "the --lvs pool's lv_size" : "--pool-size",
                                             c.pool_chunk(), &data)
                                 .value_or(bytes(0));
    if (used > pool)
        throw usage_error("--pool-used (" + std::string(format_size(used).view()) + ") is more than " +
                          (lvs ? "the --lvs pool's lv_size (" : "--pool-size (") +
                          std::string(format_size(pool).view()) + ")");
    const auto [metadata, metadata_used] = metadata_of(a, c, lvs ? &*lvs : nullptr, meta);
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
                   extender_of(a, c, pool),
                   lvs ? lvs->vg + "/" + lvs->name : std::string(),
                   {}};
    for (const std::string& n : {data.note, meta.note})
        if (!n.empty()) out.notes.push_back(n);
    out.monitored = host.monitored;
    out.autoextend_off_given = host.described && !c.enabled();
    return out;
}

// Another pool of --lvs for recommend, on the first one's options (its burst, its model): the first's setup with
// the pool's own size, Data% and Meta% (at their worst), metadata, chunk, extent and VG free space.
pool_setup pool_setup_for(const pool_setup& first, const lvs_pool& p) {
    pool_setup s = first;
    const lvm_autoextend_config& f = first.config;
    const auto c = lvm_autoextend_config::make(lvm_threshold(f.threshold_as_written()), lvm_percent(f.extend_percent()),
                                               lvm_extent_size(p.extent), lvm_chunk_size(p.chunk), f.kind(),
                                               vdo_slab_size(f.vdo_slab()));
    if (!c) fail(c.error(), "--lvs");
    s.config = *c;
    s.pool_size = p.size;
    lvm_used_worst data{"Data%", {}}, meta{"Meta%", {}};
    s.pool_used = lvs_fill(p.data_percent, p.size, c->pool_chunk(), &data);
    s.metadata_size = p.metadata_size;
    s.metadata_used = p.metadata_size.count() == 0
                          ? bytes(0)
                          : lvs_fill(p.metadata_percent, p.metadata_size, bytes(thin_metadata_block), &meta);
    s.vg_free = p.vg_free;
    s.name = p.vg + "/" + p.name;
    s.notes.clear();
    for (const std::string& n : {data.note, meta.note})
        if (!n.empty()) s.notes.push_back(n);
    return s;
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
                 (s.extender.is_rate_aware() ? std::string(" (the VG's free space cut an extend)")
                                             : std::string(" (an extend needed more than its free space and failed "
                                                           "whole)")) +
                 (sum.queued_runs == 0 && sum.eio_runs == 0 && sum.hung_runs == 0
                      ? ", but the pool kept up: no write waited (the extends that did fit held the data)\n"
                      : ", and writes waited in " + std::to_string(sum.queued_runs) + of + ", up to " +
                            decimal_text(in_seconds(sum.queued_max), 4) + " s: it matters\n");
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
    pool_setup pool;         ///< the first pool (--policy rate-aware answers for it alone)
    rate per_writer;         ///< the first rate checked
    lvm_pool_workload work;  ///< the first pool's burst at per_writer
    seconds target;
    double max_extends;
    std::uint32_t seeds;                  ///< every setting read is held at seeds --seed to --seed + seeds - 1
    std::vector<pool_setup> pools;        ///< every pool the answer serves: pools.front() is `pool`
    rate_range rates;                     ///< --rate, a rate or a range
    std::vector<rate> grid;               ///< the rates the answer is checked at (rates.grid())
    lvm_margin margin;                    ///< --percent-margin and --threshold-margin
    std::uint32_t top = 99, bottom = 50;  ///< the thresholds searched, from top down
    std::vector<lvm_pool_case> cases;     ///< every pool at every rate, pool by pool
    unsigned jobs = 1;                    ///< --jobs
};

// What recommend found: the answer with its margin (or, when none has it, the setting with none), the landscape
// around it, the operator's own settings against the same target, and how the answer holds when an input moves.
struct recommend_outcome {
    lvm_setting_grid grid{recommend_max_percent};
    lvm_setting_answer answer;                 ///< with the margin asked for
    lvm_setting_answer bare;                   ///< with no margin: the fallback when `answer` is not found
    bool met = false;                          ///< answer.found
    std::uint32_t threshold = 0, percent = 0;  ///< what the block sets: answer's, else bare's (when found)
    std::vector<lvm_plan_check> at;            ///< each case's plan at that setting and --seed
    bool own_enabled = true;                   ///< the operator's threshold is under 100
    std::uint32_t own_threshold = 0, own_percent = 0;
    lvm_box_check own_point, own_box;  ///< their setting alone, and with the margin
    bool own_checked = false;          ///< own_point was simulated (not when the burst cannot fit)
    bool own_in_grid = false;          ///< their setting lies in the grid (percent 1 to 1000, threshold 50 to 99)
    std::size_t short_case = 0;        ///< the case whose data cannot fit, when space_short
    bool space_short = false;
    std::vector<std::string> sensitivity;  ///< lines on how the answer holds as each input moves
};

std::vector<option> recommend_options() {
    std::vector<option> opts = pool_options();
    opts.insert(opts.begin() + 16, {"--rate", "RATE",
                                    "the write rate per writer to plan for (required): a rate, a range the answer must "
                                    "hold across (400-600MiB/s, 500MiB/s+-20%), or a comma-separated list of them, "
                                    "one answer each",
                                    true, "--rates"});
    opts.insert(opts.begin() + 17,
                {"--max-queued", "SECONDS", "the longest any run may queue writes on a full pool (default 0)"});
    opts.insert(opts.begin() + 18,
                {"--max-extends", "N",
                 "the most extends a run may take on average, 1-1000000 (default 20: each lvextend suspends the "
                 "pool and commits the VG metadata)"});
    opts.insert(opts.begin() + 19, {"--percent-margin", "N",
                                    "percents above the answer's that must meet too, 0-100 (default 5: rounded up "
                                    "to the next multiple of 5, it still meets)"});
    opts.insert(opts.begin() + 20,
                {"--threshold-margin", "N", "thresholds below the answer's that must meet too, 0-49 (default 5)"});
    opts.insert(opts.end() - 1, {"--seeds", "N",
                                 "seeds every setting is held at, 1-100: --seed to --seed + N - 1, --runs runs each "
                                 "(default 5)"});
    opts.insert(opts.end() - 1,
                {"--max-events", "N", "refuse a search that would replay more simulated events (default 1000000000)"});
    opts.insert(opts.end() - 1, {"--jobs", "N", jobs_help});
    return opts;
}

// The synopsis, then the contract (a paragraph of --help and of the man page).
const char* recommend_usage() {
    return "provpol recommend --preset lvm-thin-autoextend --rate RATE (--pool-size SIZE | --lvs FILE)\n"
           "                         [--max-queued S] [--max-extends N] [--percent-margin N] [--threshold-margin N]\n"
           "                         [--threshold N | --config FILE] [--pool-used SIZE] [--vg-free SIZE]\n"
           "                         [--metadata-size SIZE [--metadata-used SIZE]] [--lvs-pool VG|VG/POOL]\n"
           "                         [--writers N] [--write SIZE | --duration TIME] [--extent SIZE] [--pool-chunk "
           "SIZE]\n"
           "                         [--latency lvm-dmeventd] [--lvextend-time MIN,MAX] [--poll-interval S]\n"
           "                         [--no-space-timeout S] [--runs N] [--seed N] [--seeds N] [--max-events N]\n"
           "                         [--jobs N] [--policy dmeventd|rate-aware [--interval S] [--lead-factor K]\n"
           "                          [--margin S] [--max-pool-size SIZE] [--max-vg-take SIZE]] [--format "
           "text|csv|json]\n\n"
           "The target: no run of --runs, at each of --seeds seeds from --seed, queues writes longer than "
           "--max-queued,\n"
           "fails with EIO or hangs, and the runs take at most --max-extends extends on average; for every pool of\n"
           "--lvs (lvm.conf is global: one setting serves them all, each pool taking the burst alone) and every rate "
           "of\n"
           "a --rate range (checked at 5 rates spread over it, its ends included). Data% and Meta% (--pool-used and\n"
           "--metadata-used percents, --lvs) are taken at the most data lvs prints so: 85.00 is up to 85.004999%.\n\n"
           "The answer, threshold T with percent P: every percent from P to P + --percent-margin at every threshold\n"
           "from T - --threshold-margin to T meets the target (a threshold below 50 acts as 50). T is the highest "
           "such\n"
           "threshold from yours (--threshold, --config or the preset; 99 when autoextend is off) down to 50, or\n"
           "--threshold alone when given; P the smallest such percent in [1, 1000] at T. Every setting above T and\n"
           "below P was simulated and missed, none is skipped: the target is not monotone in either (a larger extend\n"
           "can land later, or not fit in what is left of the VG). Around the answer the text prints which settings\n"
           "miss and why (the VG's space, time, extends, metadata), your own settings against the same target, and\n"
           "the input the answer is most sensitive to. When no setting has the margin, the one with none is printed,\n"
           "marked, with status 3; when the pool and the VG cannot hold the data, how much space is missing, status "
           "3.\n"
           "\n"
           "With --policy rate-aware the answer is the smallest --horizon in whole seconds in [1, 3600] under which\n"
           "the rate-aware extender (provpol-thinpoold's policy, with its other settings as given) meets the same\n"
           "target: no run queues writes longer than --max-queued, none fails with EIO, and the runs take at most\n"
           "--max-extends extends on average. Every horizon below it was simulated and missed (a scan: a longer\n"
           "horizon takes fewer, larger extends, which the caps can cut). It answers for one pool and one rate, at\n"
           "--seed.";
}

// recommend's refusals of options that are its answer or that it cannot plan for.
void recommend_refusals(const args& a) {
    if (a.value("--policy").value_or("dmeventd") == "rate-aware") {
        if (a.has("--horizon")) throw usage_error("--horizon is what recommend --policy rate-aware finds");
        for (const char* o : {"--seeds", "--percent-margin", "--threshold-margin"})
            if (a.has(o))
                throw usage_error(std::string(o) +
                                  " holds dmeventd's setting: recommend --policy rate-aware answers "
                                  "at --seed");
    }
    if (a.has("--extend-percent"))
        throw usage_error("--extend-percent is what recommend finds: give --threshold to fix the threshold");
    if (a.has("--error-when-full"))
        throw usage_error("--error-when-full fails every write on a full pool: recommend plans for queueing pools");
}

recommend_setup recommend_setup_of(const args& a) {
    recommend_refusals(a);
    const std::vector<std::string> given = a.values("--rate");
    if (given.size() != 1) throw usage_error("recommend needs one --rate");
    const rate_range rates = parse_rate_range(given.front(), "--rate");
    const std::vector<lvs_pool> reported = lvs_pools_of(a);
    const pool_setup s = pool_setup_of(a, reported.empty() ? nullptr : &reported.front());
    if (s.extender.is_rate_aware() && (reported.size() > 1 || rates.is_range()))
        throw usage_error(std::string("--policy rate-aware answers for one pool and one rate: ") +
                          (reported.size() > 1 ? "name the pool with --lvs-pool VG/POOL" : "give one --rate"));
    recommend_setup r{s,
                      rates.low,
                      workload_of(s, rates.low),
                      a.time("--max-queued", seconds(0.0), seconds(86400.0)).value_or(seconds(0.0)),
                      static_cast<double>(a.count("--max-extends", 1, 1000000).value_or(20)),
                      static_cast<std::uint32_t>(a.count("--seeds", 1, 100).value_or(5)),
                      {s},
                      rates,
                      rates.grid(),
                      lvm_margin{static_cast<std::uint32_t>(a.count("--percent-margin", 0, 100).value_or(5)),
                                 static_cast<std::uint32_t>(a.count("--threshold-margin", 0, 49).value_or(5))},
                      99,
                      50,
                      {},
                      jobs_option(a)};
    for (std::size_t i = 1; i < reported.size(); ++i) r.pools.push_back(pool_setup_for(s, reported[i]));
    // From the operator's threshold down (99 when theirs turns autoextend off); --threshold fixes it.
    r.top = s.config.enabled() ? std::max<std::uint32_t>(50, s.config.threshold_percent()) : 99;
    r.bottom = a.has("--threshold") && s.config.enabled() ? r.top : 50;
    for (const pool_setup& p : r.pools)
        for (const rate x : r.grid) r.cases.push_back({p.config, workload_of(p, x)});
    return r;
}

// Bounded work: what one setting costs at most (a plan of --runs runs at each of --seeds seeds for every case; a
// plan that misses stops at its first run that cannot meet, and once its extends pass --max-extends a run: its
// extends are bounded by that, its waiting by one run's), refused at once when one setting alone passes
// --max-events; the search charges it for each setting it reads (work_budget).
double setting_events(const recommend_setup& r) {
    double plan = 0.0;
    const pool_setup& s = r.pool;
    for (const lvm_pool_case& c : r.cases) {
        const double runs = s.runs, one_run = lvm_extends_bound(c.work, 1);
        const double extends = std::min(runs * one_run, r.max_extends * runs + one_run);
        plan += (runs * (lvm_run_events(s, c.work, 0.0) + lvm_wait_events(s, r.target.count())) + 6.0 * extends +
                 lvm_wait_events(s)) *
                r.seeds;
    }
    return plan;
}

std::string recommend_work_words(const recommend_setup& r) {
    return std::to_string(r.pool.runs) + " runs x " + std::to_string(r.seeds) + " seeds x " +
           std::to_string(r.cases.size()) + (r.cases.size() == 1 ? " burst" : " bursts (pools x rates)") + " of " +
           std::string(format_size(r.work.write).view()) + " at " + std::string(format_rate(r.work.write_rate).view()) +
           " per setting";
}

// The rows and percents the landscape shows around (threshold, percent): the box's thresholds with one below and one
// above, and 45 percents from 10 below the answer.
struct landscape_window {
    std::uint32_t t_low = 50, t_high = 50, p_low = 1, p_high = 1;
};
landscape_window window_of(const recommend_setup& r, lvm_threshold threshold, lvm_percent percent) {
    landscape_window w;
    const lvm_setting_box b = lvm_box_of(threshold, percent, r.margin);
    w.t_high = std::min<std::uint32_t>(lvm_setting_grid::highest_threshold, b.threshold_high + 1);
    w.t_low = std::max<std::uint32_t>(lvm_setting_grid::lowest_threshold, b.threshold_low - 1);
    w.p_low = b.percent_low > 10 ? b.percent_low - 10 : 1;
    w.p_high = std::min<std::uint32_t>(recommend_max_percent, w.p_low + 44);
    return w;
}

// A copy of the cases with one input moved the harmful way by `fraction`: the rate up (with --duration the data
// written with it), the data written up, the data already in each pool up (its free space down by the fraction), or
// the VG's free space down.
enum class input_kind { rate, written, pool_data, vg_free };
std::vector<lvm_pool_case> moved(const recommend_setup& r, input_kind k, double fraction) {
    std::vector<lvm_pool_case> out = r.cases;
    const auto scale = [](bytes b, double f) {
        return bytes(static_cast<std::uint64_t>(static_cast<double>(b.count()) * f));
    };
    for (lvm_pool_case& c : out) {
        lvm_pool_workload& w = c.work;
        if (k == input_kind::rate) {
            w.write_rate = rate(
                static_cast<std::uint64_t>(static_cast<double>(w.write_rate.bytes_per_second()) * (1.0 + fraction)));
            if (r.pool.duration) w.write = scale(w.write, 1.0 + fraction);
        } else if (k == input_kind::written) {
            w.write = scale(w.write, 1.0 + fraction);
        } else if (k == input_kind::pool_data) {
            const bytes add = align_down(scale(w.pool_size - w.pool_used, fraction), c.base.pool_chunk());
            w.pool_used = w.pool_used + add;
        } else if (w.vg_free != bytes::max()) {
            w.vg_free = scale(w.vg_free, 1.0 - fraction);
        }
    }
    return out;
}

// check_lvm_setting on --jobs threads: every case at every seed side by side, each plan stopped at its own miss
// (check_lvm_plan), and the first miss in case and seed order, as check_lvm_setting reports it. The runs simulated
// are charged to `budget`, `per_run` events each.
lvm_setting_check check_setting(const recommend_setup& r, const std::vector<lvm_pool_case>& cases,
                                lvm_threshold threshold, lvm_percent percent, work_budget& budget, double per_run) {
    const pool_setup& s = r.pool;
    const std::size_t n = cases.size() * r.seeds;
    std::vector<lvm_plan_check> checks(n);
    parallel_for(
        n, r.jobs,
        [&](std::size_t i) {
            const lvm_pool_case& c = cases[i / r.seeds];
            checks[i] = check_lvm_plan(lvm_config_with(c.base, threshold, percent), s.model, c.work, s.runs,
                                       lvm_nth_seed(s.seed, i % r.seeds), r.target, r.max_extends);
        },
        [](std::size_t) {});
    double runs = 0.0;
    for (const lvm_plan_check& k : checks) runs += k.seen.runs;
    budget.spend_or_throw(runs * per_run);
    for (std::size_t i = 0; i < n; ++i)
        if (!checks[i].met)
            return {lvm_plan_outcome_of(checks[i]), i / r.seeds, lvm_nth_seed(s.seed, i % r.seeds), checks[i]};
    return {};
}

// How the answer holds as each input moves the harmful way by 5, 10, 20 and 50% (each alone): a line per input, and
// the one it is most sensitive to (the smallest move that makes it miss).
std::vector<std::string> sensitivity_of(const recommend_setup& r, lvm_threshold threshold, lvm_percent percent,
                                        work_budget& budget, double per_run) {
    struct input {
        input_kind kind;
        const char* name;
        const char* way;
    };
    std::vector<input> inputs = {{input_kind::rate, "the rate", "more"},
                                 {input_kind::written, "the data written", "more"},
                                 {input_kind::pool_data, "the pool's free space (a higher Data%)", "less"}};
    if (r.pool.vg_free != bytes::max()) inputs.push_back({input_kind::vg_free, "the VG's free space", "less"});
    std::vector<std::string> lines;
    int first = 100;
    std::vector<std::string> most;
    for (const input& in : inputs) {
        std::string line;
        for (const int step : {5, 10, 20, 50}) {
            const lvm_setting_check k =
                check_setting(r, moved(r, in.kind, step / 100.0), threshold, percent, budget, per_run);
            if (k.outcome == lvm_plan_outcome::met) continue;
            line = std::string(in.name) + ": misses at " + std::to_string(step) + "% " + in.way + " (" +
                   to_text(k.outcome) + ")";
            if (step < first) first = step, most.clear();
            if (step == first) most.push_back(in.name);
            break;
        }
        if (line.empty()) line = std::string(in.name) + ": holds at 50% " + in.way;
        lines.push_back(line);
    }
    if (most.empty()) {
        lines.push_back("each input can move 50% the harmful way alone and threshold " +
                        std::to_string(threshold.value) + " with percent " + std::to_string(percent.value) +
                        " still meets");
    } else {
        std::string names;
        for (std::size_t i = 0; i < most.size(); ++i)
            names += (i == 0 ? "" : i + 1 == most.size() ? " and " : ", ") + most[i];
        lines.push_back("most sensitive to " + names + " (" + std::to_string(first) + "%)");
    }
    return lines;
}

// The search: the setting with the margin (or with none, the fallback), the operator's own settings, the landscape
// around the answer, each case's plan at it, and its sensitivity to the inputs.
recommend_outcome search(const recommend_setup& r) {
    const pool_setup& s = r.pool;
    recommend_outcome o;
    const double per_setting = setting_events(r);
    const double per_run = per_setting / (static_cast<double>(s.runs) * r.seeds * static_cast<double>(r.cases.size()));
    // An answer's box is simulated whole: at least that much work, refused at once when it passes the bound.
    const double box = static_cast<double>(r.margin.percent + 1) * (r.margin.threshold + 1);
    check_work("recommend", per_setting * box, s.max_events,
               "an answer's " + decimal_text(box, 0) + " settings, " + recommend_work_words(r));
    work_budget budget("recommend", s.max_events,
                       "thresholds 50 to 99 x percents 1 to 1000 at most, " + recommend_work_words(r));
    const auto outcome = [&](lvm_threshold t, lvm_percent p) {
        return check_setting(r, r.cases, t, p, budget, per_run).outcome;
    };
    o.answer = search_lvm_setting(r.top, r.margin, o.grid, outcome, r.bottom);
    o.met = o.answer.found;
    if (!o.met) o.bare = search_lvm_setting(r.top, lvm_margin{0, 0}, o.grid, outcome, r.bottom);
    const lvm_setting_answer& chosen = o.met ? o.answer : o.bare;
    o.own_enabled = s.config.enabled();
    o.own_threshold = s.config.threshold_percent();
    o.own_percent = s.config.extend_percent();
    const lvm_threshold own_threshold(o.own_threshold);
    const lvm_percent own_percent(o.own_percent);
    o.own_in_grid = o.own_enabled && o.grid.holds(own_threshold, own_percent);
    o.own_checked = o.own_enabled;
    if (o.own_in_grid) {
        o.own_point = check_lvm_box(o.grid, own_threshold, own_percent, lvm_margin{0, 0}, outcome);
        if (o.own_point.outcome == lvm_plan_outcome::met)
            o.own_box = check_lvm_box(o.grid, own_threshold, own_percent, r.margin, outcome);
    } else if (o.own_enabled) {  // percent 0 (every extend fails) or above 1000: checked alone
        o.own_point.outcome = check_setting(r, r.cases, own_threshold, own_percent, budget, per_run).outcome;
        o.own_box.outside = true;
    }
    if (!chosen.found) return o;
    o.threshold = chosen.threshold;
    o.percent = chosen.percent;
    const lvm_threshold threshold(o.threshold);
    const lvm_percent percent(o.percent);
    const landscape_window w = window_of(r, threshold, percent);
    for (std::uint32_t t = w.t_high; t + 1 > w.t_low; --t)
        for (std::uint32_t p = w.p_low; p <= w.p_high; ++p) (void)o.grid.get(lvm_threshold(t), lvm_percent(p), outcome);
    for (const lvm_pool_case& c : r.cases)
        o.at.push_back(check_lvm_plan(lvm_config_with(c.base, threshold, percent), s.model, c.work, s.runs, s.seed,
                                      r.target, r.max_extends));
    o.sensitivity = sensitivity_of(r, threshold, percent, budget, per_run);
    return o;
}

// recommend's columns: one row per pool, the answer and its margin, the pool's figures at it (the worst over the
// rates), what the settings read missed on, the operator's own settings, and the input it is most sensitive to.
const std::vector<std::string>& recommend_columns() {
    static const std::vector<std::string> c = {"pool",
                                               "threshold",
                                               "percent",
                                               "met",
                                               "percent_margin",
                                               "threshold_margin",
                                               "queued_s_max",
                                               "eio_runs",
                                               "extends_mean",
                                               "pool_end_max",
                                               "runs",
                                               "seed",
                                               "seeds",
                                               "rate_low_mib_s",
                                               "rate_high_mib_s",
                                               "rates",
                                               "settings",
                                               "missed_space",
                                               "missed_time",
                                               "missed_extends",
                                               "missed_metadata",
                                               "space_missing",
                                               "own_threshold",
                                               "own_percent",
                                               "own_met",
                                               "own_margin_met",
                                               "most_sensitive",
                                               "pool_used",
                                               "meta_extends_mean",
                                               "meta_end_max"};
    return c;
}

// The cells recommend's percent and horizon rows share: the runs, the plans simulated and why they missed.
template <class Answer>
std::vector<cell> miss_cells(const recommend_setup& r, const Answer& a) {
    return {cell::of(r.pool.runs),      cell::of(r.pool.seed),  cell::of(a.plans),
            cell::of(a.missed_queued),  cell::of(a.missed_eio), cell::of(a.missed_hung),
            cell::of(a.missed_extends), cell::of(a.missed_vg),  cell::of_size(a.space.missing())};
}

// How many settings the grid holds with each outcome.
std::uint64_t count_of(const lvm_setting_grid& g, lvm_plan_outcome o) {
    std::uint64_t n = 0;
    for (std::uint32_t t = lvm_setting_grid::lowest_threshold; t <= lvm_setting_grid::highest_threshold; ++t)
        for (std::uint32_t p = 1; p <= g.max_percent(); ++p) {
            const lvm_threshold th(t);
            const lvm_percent pc(p);
            n += g.known(th, pc) && g.at(th, pc) == o ? 1u : 0u;
        }
    return n;
}

// One pool's figures at the answer: the worst over its rates (cases i x rates to i x rates + rates - 1).
lvm_plan_summary pool_figures(const recommend_setup& r, const recommend_outcome& o, std::size_t pool) {
    lvm_plan_summary s;
    const std::size_t n = r.grid.size();
    for (std::size_t i = pool * n; i < (pool + 1) * n && i < o.at.size(); ++i) {
        const lvm_plan_summary& x = o.at[i].seen;
        s.queued_max = std::max(s.queued_max, x.queued_max);
        s.eio_runs = std::max(s.eio_runs, x.eio_runs);
        s.extends_mean = std::max(s.extends_mean, x.extends_mean);
        s.pool_end_max = std::max(s.pool_end_max, x.pool_end_max);
        s.metadata_extends_mean = std::max(s.metadata_extends_mean, x.metadata_extends_mean);
        s.metadata_end_max = std::max(s.metadata_end_max, x.metadata_end_max);
    }
    return s;
}

// The first lvm_pool_space shortfall over the cases: the pool and the VG cannot hold the burst at any setting.
std::optional<std::size_t> short_case(const recommend_setup& r) {
    for (std::size_t i = 0; i < r.cases.size(); ++i)
        if (lvm_pool_space(r.cases[i].base, r.cases[i].work).missing() != bytes(0)) return i;
    return std::nullopt;
}

std::vector<cell> recommend_row(const recommend_setup& r, const recommend_outcome& o, std::size_t pool) {
    const bool any = o.threshold != 0;
    const auto if_any = [&](cell c) { return any ? c : cell(); };
    const lvm_plan_summary f = pool_figures(r, o, pool);
    const pool_setup& p = r.pools[pool];
    const bool meta = any && p.metadata_size.count() != 0;
    const std::optional<std::size_t> sc = short_case(r);
    std::string sensitive;
    if (!o.sensitivity.empty() && o.sensitivity.back().rfind("most sensitive to ", 0) == 0)
        sensitive = o.sensitivity.back().substr(18, o.sensitivity.back().rfind(" (") - 18);
    return {cell::of_text(p.name),
            if_any(cell::of(o.threshold)),
            if_any(cell::of(o.percent)),
            cell::of_flag(o.met),
            cell::of(r.margin.percent),
            cell::of(r.margin.threshold),
            if_any(cell::of_seconds(f.queued_max, 4)),
            if_any(cell::of(f.eio_runs)),
            if_any(cell::of_real(f.extends_mean, 4)),
            if_any(cell::of_size(f.pool_end_max)),
            cell::of(r.pool.runs),
            cell::of(r.pool.seed),
            cell::of(r.seeds),
            cell::of_rate_mib(r.rates.low),
            cell::of_rate_mib(r.rates.high),
            cell::of(r.grid.size()),
            cell::of(o.grid.evaluated()),
            cell::of(count_of(o.grid, lvm_plan_outcome::space)),
            cell::of(count_of(o.grid, lvm_plan_outcome::time)),
            cell::of(count_of(o.grid, lvm_plan_outcome::extends)),
            cell::of(count_of(o.grid, lvm_plan_outcome::metadata)),
            cell::of_size(sc ? lvm_pool_space(r.cases[*sc].base, r.cases[*sc].work).missing() : bytes(0)),
            cell::of(r.pool.config.threshold_as_written()),
            cell::of(r.pool.config.extend_percent()),
            o.own_checked ? cell::of_flag(o.own_point.outcome == lvm_plan_outcome::met) : cell(),
            o.own_checked ? cell::of_flag(o.own_point.outcome == lvm_plan_outcome::met && !o.own_box.outside &&
                                          o.own_box.outcome == lvm_plan_outcome::met)
                          : cell(),
            cell::of_text(sensitive),
            cell::of_size(p.pool_used),
            meta ? cell::of_real(f.metadata_extends_mean, 4) : cell(),
            meta ? cell::of_size(f.metadata_end_max) : cell()};
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

// "4GiB/s into a 10GiB pool" (with the writers when more than one, the range when --rate is one, the pools when
// --lvs gives several).
std::string burst_words(const recommend_setup& r) {
    const std::string at = r.rates.is_range() ? r.rates.text : rate_shown(r.pool, r.per_writer);
    const std::string who = r.pool.writers > 1 ? " x " + std::to_string(r.pool.writers) + " writers" : std::string();
    if (r.pools.size() > 1) return at + who + " into each of " + std::to_string(r.pools.size()) + " pools";
    return at + who + " into a " + std::string(format_size(r.pool.pool_size).view()) + " pool" +
           (r.pool.name.empty() ? std::string() : " (" + r.pool.name + ")");
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
std::string space_text(const recommend_setup& r, const pool_setup& p, const lvm_pool_workload& w, const lvm_space& sp) {
    const size_unit u(sp.needed);
    const std::string missing = u(sp.missing());
    const std::string holds = sp.extent_limit ? "lvm2 grows an LV to at most 2^32 - 2 extents of " +
                                                    std::string(format_size(p.config.extent()).view()) + ", " +
                                                    u(sp.available) + " of data"
                                              : "the pool (" + u(p.pool_size) + ") and the VG's free space (" +
                                                    u(p.vg_free) + ") hold " + u(sp.available);
    return "LVM cannot hold this burst at any setting" + (p.name.empty() ? std::string() : " in " + p.name) +
           (r.rates.is_range() ? " at " + std::string(format_rate(w.write_rate).view()) : std::string()) + ": " +
           u(p.pool_used) + " used + " + u(w.write) + " written = " + u(sp.needed) + ", but " + holds + ": " + missing +
           " missing. No autoextend setting and no write rate change that: " +
           (sp.extent_limit ? "use a larger extent (vgcreate -s)"
                            : "add at least " + missing + " to the VG (vgextend)") +
           ", or write less.\n";
}

// Why a setting missed, in words an operator acts on.
std::string outcome_words(const recommend_setup& r, lvm_plan_outcome o) {
    switch (o) {
        case lvm_plan_outcome::met:
            return "meets the target";
        case lvm_plan_outcome::space:
            return "the VG ran out: an extend asked for more than was left of it, lvm2 grew nothing, and writes "
                   "queued or failed";
        case lvm_plan_outcome::metadata:
            return "the pool's metadata ran out (EIO)";
        case lvm_plan_outcome::time:
            return "writes queued longer than " + decimal_text(r.target, 3) +
                   " s or failed: the extends came too late or too small";
        case lvm_plan_outcome::extends:
            return "more than " + decimal_text(r.max_extends, 0) + " extends a run on average";
    }
    return "";
}

// The landscape's character for a setting: o meets (* inside the answer's box), v the VG's space, t time, x extends,
// m metadata, a space not simulated.
char landscape_char(const recommend_outcome& o, const lvm_setting_box& box, lvm_threshold th, lvm_percent pc) {
    if (!o.grid.known(th, pc)) return ' ';
    const std::uint64_t t = th.value, p = pc.value;
    const bool in_box =
        t >= box.threshold_low && t <= box.threshold_high && p >= box.percent_low && p <= box.percent_high;
    switch (o.grid.at(th, pc)) {
        case lvm_plan_outcome::met:
            return in_box ? '*' : 'o';
        case lvm_plan_outcome::space:
            return 'v';
        case lvm_plan_outcome::time:
            return 't';
        case lvm_plan_outcome::extends:
            return 'x';
        case lvm_plan_outcome::metadata:
            return 'm';
    }
    return '?';
}

// The settings around the answer, a row per threshold, a character per percent (landscape_char), with its legend.
std::string landscape_text(const recommend_setup& r, const recommend_outcome& o) {
    const lvm_threshold threshold(o.threshold);
    const lvm_percent percent(o.percent);
    const landscape_window w = window_of(r, threshold, percent);
    const lvm_setting_box box = lvm_box_of(threshold, percent, o.met ? r.margin : lvm_margin{0, 0});
    std::string out = "# around it: * the setting" + std::string(o.met ? " and its margin" : "") +
                      ", o meets, v the VG ran out, t too late, x over " + decimal_text(r.max_extends, 0) +
                      " extends, m metadata ran out\n";
    const std::string lead = "#   threshold NN  ";
    std::string ruler(w.p_high - w.p_low + 1, ' ');
    for (std::uint32_t p = w.p_low; p <= w.p_high; ++p)
        if (p % 10 == 0 || (p == w.p_low && 10 - p % 10 > std::to_string(p).size())) {
            const std::string n = std::to_string(p);
            if (p - w.p_low + n.size() > ruler.size()) continue;
            for (std::size_t i = 0; i < n.size(); ++i) ruler[p - w.p_low + i] = n[i];
        }
    while (!ruler.empty() && ruler.back() == ' ') ruler.pop_back();
    out += "#   percent       " + ruler + "\n";
    for (std::uint32_t t = w.t_high; t + 1 > w.t_low; --t) {
        std::string row = "#   threshold " + std::to_string(t) + "  ";
        row.resize(lead.size(), ' ');
        for (std::uint32_t p = w.p_low; p <= w.p_high; ++p)
            row += landscape_char(o, box, lvm_threshold(t), lvm_percent(p));
        while (!row.empty() && row.back() == ' ') row.pop_back();
        out += row + "\n";
    }
    return out;
}

// "thresholds 80 to 50" or "threshold 70" (the thresholds searched).
std::string thresholds_words(const recommend_setup& r) {
    if (r.top == r.bottom) return "threshold " + std::to_string(r.top);
    return "thresholds " + std::to_string(r.top) + " to " + std::to_string(r.bottom);
}

// "100 runs at each of seeds 1-5" (and the rates of a range).
std::string evidence_words(const recommend_setup& r) {
    const std::uint64_t last = lvm_nth_seed(r.pool.seed, r.seeds - 1);
    std::string out = std::to_string(r.pool.runs) + " runs at " +
                      (r.seeds == 1 ? "seed " + std::to_string(r.pool.seed)
                                    : "each of seeds " + std::to_string(r.pool.seed) + "-" + std::to_string(last));
    if (r.grid.size() > 1)
        out += ", at " + std::to_string(r.grid.size()) + " rates across " + r.rates.text + ", its ends included";
    return out;
}

// Nothing meets, though the data fits: what the settings missed on.
std::string miss_text(const recommend_setup& r, const recommend_outcome& o) {
    const std::uint64_t plans = o.grid.evaluated();
    const std::uint64_t vg = count_of(o.grid, lvm_plan_outcome::space), time = count_of(o.grid, lvm_plan_outcome::time);
    const std::uint64_t extends = count_of(o.grid, lvm_plan_outcome::extends);
    const std::uint64_t metadata = count_of(o.grid, lvm_plan_outcome::metadata);
    const lvm_space sp = lvm_pool_space(r.cases.front().base, r.cases.front().work);
    std::string out = "LVM cannot keep up at " + burst_words(r) + ": at " + thresholds_words(r) +
                      ", every percent from 1 to " + std::to_string(recommend_max_percent) + " misses the target (" +
                      std::to_string(plans) + " settings, " + evidence_words(r) + ")";
    if (vg == plans)  // the VG, not the rate: each percent's extends outgrow what the VG has left
        return out + ": each runs the VG out, though the data fits (" + size_words(sp.needed) + " of the " +
               size_words(sp.available) + " the pool and the VG hold): an extend that needs more than the VG has " +
               "left fails whole, and writes queue. Give the VG more room (vgextend) or start with a larger pool.\n";
    std::vector<std::string> why;
    if (time != 0)
        why.push_back(std::to_string(time) + " with writes queued longer than " + decimal_text(r.target, 3) +
                      " s or failed");
    if (vg != 0) why.push_back(std::to_string(vg) + " running the VG out");
    if (extends != 0)
        why.push_back(std::to_string(extends) + " taking more than " + decimal_text(r.max_extends, 0) +
                      " extends a run on average");
    if (metadata != 0) why.push_back(std::to_string(metadata) + " running the metadata out");
    for (std::size_t i = 0; i < why.size(); ++i)
        out += (i == 0 ? ": " : i + 1 == why.size() ? ", and " : ", ") + why[i];
    if (metadata == plans)
        return out +
               ". The metadata runs out before lvm2 grows it: give the pool more metadata now (lvextend "
               "--poolmetadatasize), or a larger chunk (fewer mappings per byte).\n";
    if (time == 0 && vg == 0)
        return out +
               ". Every percent that keeps writes from queueing extends too often: raise --max-extends or "
               "start with a larger pool.\n";
    return out +
           ". The first extend must land before the space above the threshold is written: start with a "
           "larger pool" +
           (vg != 0 ? std::string(", give the VG more room") : std::string()) + ", or write slower.\n";
}

// "threshold 100" or "monitoring = 0": what turns the host's autoextend off.
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

// Before an answer that sets nothing (no setting meets, or the burst cannot fit): that the host's own settings turn
// autoextend off, and what the burst does to its pool then.
std::string off_text(const recommend_setup& r) {
    if (r.pool.config.enabled()) return "";
    return "# your settings turn autoextend off (" + own_off_words(r) + "): " + fill_words(r) + "\n";
}

// Whether the block keeps the operator's own settings: they meet the target with the margin, or no setting has the
// margin and theirs meet.
bool keeps_own(const recommend_outcome& o) {
    if (!o.own_enabled || o.own_point.outcome != lvm_plan_outcome::met) return false;
    return !o.met || (!o.own_box.outside && o.own_box.outcome == lvm_plan_outcome::met);
}

// The operator's own settings against the same target, and what the block changes.
std::string own_text(const recommend_setup& r, const recommend_outcome& o) {
    if (!o.own_enabled)
        return "# your settings turn autoextend off (" + own_off_words(r) + "): lvm2 never grows the pool; " +
               fill_words(r) + "; the block below turns it on\n";
    const std::string mine =
        "threshold " + std::to_string(o.own_threshold) + " with percent " + std::to_string(o.own_percent);
    if (o.own_point.outcome != lvm_plan_outcome::met)
        return "# your settings, " + mine + ", miss the target: " + outcome_words(r, o.own_point.outcome) + "\n";
    if (keeps_own(o)) {
        const bool smaller = o.met && (o.threshold != o.own_threshold || o.percent != o.own_percent);
        return "# your settings, " + mine + ", meet the target" + (o.met ? " with the margin" : "") +
               ": nothing needs to change, the block below is yours" +
               (smaller ? " (the smallest setting above takes less of the VG at each extend)" : "") + "\n";
    }
    if (o.own_box.outside)
        return "# your settings, " + mine + ", meet the target; their margin passes percent " +
               std::to_string(recommend_max_percent) + ", not checked: the block below has one\n";
    return "# your settings, " + mine + ", meet the target but with no margin: threshold " +
           std::to_string(o.own_box.threshold) + " with percent " + std::to_string(o.own_box.percent) + " misses (" +
           outcome_words(r, o.own_box.outcome) + "); the block below has the margin\n";
}

// Each pool at the answer (the worst over the rates), and, for pools of one VG, what they would take together.
std::string pools_text(const recommend_setup& r, const recommend_outcome& o) {
    std::string out;
    for (std::size_t i = 0; i < r.pools.size(); ++i) {
        const lvm_plan_summary f = pool_figures(r, o, i);
        const pool_setup& p = r.pools[i];
        out += "# at it" + (p.name.empty() ? std::string() : ", " + p.name) + ": writes queue at most " +
               decimal_text(f.queued_max, 3) + " s, " + decimal_text(f.extends_mean, 3) +
               " extends a run, the pool ends at " + size_words(f.pool_end_max) + " at most\n";
        if (p.metadata_size.count() != 0)
            out += "#   the metadata (" + size_words(p.metadata_size) + ", " +
                   (p.metadata_used.count() == 0 ? std::string("none") : size_words(p.metadata_used)) +
                   " used) grows " + decimal_text(f.metadata_extends_mean, 3) + " times a run and ends at " +
                   size_words(f.metadata_end_max) + " at most\n";
    }
    // Pools of one VG, each simulated alone with all of its free space: what their bursts would take at once.
    for (std::size_t i = 0; i < r.pools.size(); ++i) {
        const std::string vg = r.pools[i].name.substr(0, r.pools[i].name.find('/'));
        bool first = true;
        std::size_t n = 0;
        bytes grow(0);
        for (std::size_t j = 0; j < r.pools.size(); ++j) {
            if (r.pools[j].name.substr(0, r.pools[j].name.find('/')) != vg) continue;
            first = first && j >= i;
            ++n;
            grow = saturating_add(grow, saturating_sub(pool_figures(r, o, j).pool_end_max, r.pools[j].pool_size));
        }
        if (!first || n < 2 || vg.empty()) continue;
        out += "# " + vg + "'s " + std::to_string(n) + " pools took the burst one at a time; at once they would take " +
               size_words(grow) + (grow > r.pools[i].vg_free ? ", more than" : " of") + " its " +
               size_words(r.pools[i].vg_free) + " free\n";
    }
    return out;
}

// The answer and what it rests on, the landscape, the operator's settings, the sensitivity, and the lvm.conf block.
std::string found_text(const recommend_setup& r, const recommend_outcome& o) {
    const std::string th = std::to_string(o.threshold), p = std::to_string(o.percent);
    std::string out = "# " + burst_words(r) + ": no run queues writes longer than " + decimal_text(r.target, 3) +
                      " s, fails or hangs, at most " + decimal_text(r.max_extends, 0) + " extends a run\n#   (" +
                      evidence_words(r) + ")\n";
    for (const pool_setup& s : r.pools)
        for (const std::string& n : s.notes) out += "# " + (s.name.empty() ? std::string() : s.name + ": ") + n + "\n";
    const lvm_setting_box b = lvm_box_of(lvm_threshold(o.threshold), lvm_percent(o.percent), r.margin);
    if (o.met) {
        out += "# the smallest setting with the margin: threshold " + th + ", percent " + p +
               "\n#   every percent from " + p + " to " + std::to_string(b.percent_high) + " at every threshold from " +
               std::to_string(b.threshold_low) + " to " + th + " meets\n";
        if (o.threshold < r.top)
            out += "#   no threshold from " + std::to_string(r.top) + " to " + std::to_string(o.threshold + 1) +
                   " has such a margin at any percent\n";
    } else {
        out += "# NO setting of " + thresholds_words(r) + " has the margin (percents P to P + " +
               std::to_string(r.margin.percent) + " at thresholds T - " + std::to_string(r.margin.threshold) +
               " to T all meeting): threshold " + th + ", percent " + p +
               " meets with none, next to settings that miss\n";
    }
    out += pools_text(r, o) + landscape_text(r, o) + own_text(r, o);
    for (std::size_t i = 0; i < o.sensitivity.size(); ++i)
        out += (i == 0 ? "# each input moved alone, the harmful way, at 5, 10, 20 and 50%:\n#   " : "#   ") +
               o.sensitivity[i] + "\n";
    const bool own = keeps_own(o);
    return out + "# for /etc/lvm/lvm.conf (or an lvm profile):\nactivation {\n    thin_pool_autoextend_threshold = " +
           (own ? std::to_string(o.own_threshold) : th) +
           "\n    thin_pool_autoextend_percent = " + (own ? std::to_string(o.own_percent) : p) +
           (r.pool.monitored ? "" : "\n    monitoring = 1") + "\n}\n" +
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
           std::string(format_size(st.max_vg_take).view()) +
           (st.min_rate.bytes_per_second() != 0 ? " --burst-rate " + std::string(format_rate(st.min_rate).view())
                                                : std::string()) +
           "\n";
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
        out = wrap_comments(horizon_found_text(r, a));
    } else if (a.space.missing() != bytes(0)) {
        out = wrap_comments(space_text(r, r.pool, r.work, a.space), text_width, true);
    } else {
        out = wrap_comments(horizon_miss_text(r, a), text_width, true);
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return a.met ? 0 : exit_target_not_met;
}

// plan's synopsis for a pool, and its columns (a paragraph of --help and of the man page).
const char* plan_lvm_usage() {
    return "provpol plan --preset lvm-thin-autoextend|lvm-thin-default (--pool-size SIZE [--pool-used SIZE] | "
           "--lvs FILE)\n"
           "                    [--metadata-size SIZE [--metadata-used SIZE]] [--vg-free SIZE] [--writers N]\n"
           "                    [--rate LIST] [--write SIZE | --duration TIME] [--threshold N]\n"
           "                    [--extend-percent N | --config FILE] [--extent SIZE] [--pool-chunk SIZE] "
           "[--latency lvm-dmeventd]\n"
           "                    [--lvextend-time MIN,MAX] [--poll-interval S] [--no-space-timeout S] "
           "[--error-when-full]\n"
           "                    [--policy dmeventd|rate-aware [--interval S] [--horizon S] [--lead-factor K]\n"
           "                     [--margin S] [--max-pool-size SIZE] [--max-vg-take SIZE]]\n"
           "                    [--runs N] [--seed N] [--max-events N] [--columns LIST] [--format text|csv|json]\n\n"
           "Columns (text: those marked *; --columns all or a list for others; CSV and JSON: every one, sizes in\n"
           "bytes), a row per rate, over --runs runs:\n"
           "  rate_mib_s*, writers*         the rate per writer (MiB/s) and the writers into the pool\n"
           "  extends_mean*, commands_mean  lvextends that grew the pool, and lvextend --use-policies runs, a run\n"
           "  times_full_mean               times a run's pool filled with data still to write\n"
           "  queued_s_mean, queued_s_max*  seconds writes waited on a full pool: a run's mean, the most any run\n"
           "  queued_runs, eio_runs*, hung_runs   runs that queued at all, failed writes with EIO, never finished\n"
           "  vg_exhausted_runs*            runs in which an extend found too little VG space (lvm2 grew\n"
           "                                nothing): it matters when writes then queued (see the notes)\n"
           "  pool_end_max*, vg_free_end_min, end_s_mean   the largest pool, the least VG space left, the end\n"
           "  meta_extends_mean, meta_full_runs*, meta_full_s_mean, meta_end_max   the metadata LV, when given";
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
    opts.insert(opts.end() - 1, {"--columns", "LIST", columns_help});
    const args a("plan", plan_lvm_usage(), opts, argc, argv);
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
    table t(plan_columns());
    t.one_size_unit_per_column();
    // The text table: the columns that answer (the metadata's when it is simulated), or --columns.
    std::vector<std::string> shown = {"rate_mib_s", "writers",           "extends_mean", "queued_s_max",
                                      "eio_runs",   "vg_exhausted_runs", "pool_end_max"};
    if (s.metadata_size.count() != 0)
        shown = {"rate_mib_s",        "extends_mean",   "queued_s_max", "eio_runs",
                 "vg_exhausted_runs", "meta_full_runs", "pool_end_max"};
    text_columns_of(a, t, shown);
    std::string notes;
    for (const std::string& n : s.notes) notes += n + "\n";
    for (const rate r : rates) {
        const lvm_plan_summary sum =
            simulate_lvm_plan(s.config, s.model, workload_of(s, r), s.runs, s.seed, s.extender);
        t.add_row(plan_row(r, s.writers, sum));
        notes += plan_notes(s, r, sum);
    }
    const std::string out = t.str(f);
    std::fwrite(out.data(), 1, out.size(), stdout);
    if (f == format::text && !notes.empty()) std::fputs(wrap_comments(notes, text_width, true).c_str(), stdout);
    return 0;
}

int run_recommend_lvm(int argc, char** argv) {
    const args a("recommend", recommend_usage(), recommend_options(), argc, argv);
    const format f = a.output_format();
    const recommend_setup r = recommend_setup_of(a);
    if (r.pool.extender.is_rate_aware()) return recommend_horizon(r, f);
    // A burst a pool and its VG cannot hold is answered without simulating.
    const std::optional<std::size_t> short_at = short_case(r);
    recommend_outcome o;
    if (!short_at) o = search(r);
    // No setting with the margin is its own exit status (3), in every format.
    const int status = o.met ? 0 : exit_target_not_met;
    std::string out;
    if (f != format::text) {
        table t(recommend_columns());
        for (std::size_t i = 0; i < r.pools.size(); ++i) t.add_row(recommend_row(r, o, i));
        out = t.str(f);
    } else if (short_at) {
        const lvm_pool_case& c = r.cases[*short_at];
        out = wrap_comments(
            off_text(r) + space_text(r, r.pools[*short_at / r.grid.size()], c.work, lvm_pool_space(c.base, c.work)),
            text_width, true);
    } else if (o.threshold != 0) {
        out = wrap_comments(found_text(r, o));
    } else {
        out = wrap_comments(off_text(r) + miss_text(r, o), text_width, true);
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return status;
}

}  // namespace provpol::cli
