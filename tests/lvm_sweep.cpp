// The thin-pool recommend sweep: random configurations (pool sizes, data already in the pool, VG free space, write
// sizes and rates, thresholds, queueing and extend targets, runs, seeds, dmeventd's timing), each answered by
// recommend_lvm_percent and compared with an exhaustive scan of simulate_lvm_plan over every percent from 1 to
// 1000 under recommend's contract: the answer is the smallest percent whose plan meets lvm_target_met, and "none"
// only when no percent does. Where the library has check_lvm_plan (the run-by-run check recommend scans with), its
// verdict is compared with the whole plan's at every percent too, and its summary with the plan's when it meets.
//
//   lvm_sweep [--configs N] [--seed S] [--first I] [--verbose]
//
// ctest runs a few dozen configurations (lvm.sweep); tools/lvm_sweep.sh runs 1,200 and prints the figures that
// docs/lvm.md quotes. Exit status 0 when every answer agrees, 1 otherwise (each disagreement is printed).
// The program builds against the header before the scan too (no check_lvm_plan there): that is how the count of
// wrong answers of the old bisection was taken.
#if __has_include(<provpol/simulate/lvm_recommend.hpp>)
#include <provpol/simulate/lvm_recommend.hpp>
#define PROVPOL_SWEEP_HAS_CHECK 1
#else
#include <provpol/simulate/lvm_pool.hpp>
#define PROVPOL_SWEEP_HAS_CHECK 0
#endif
#include <provpol/random.hpp>
#include <provpol/simulate/run.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace provpol;

namespace {

constexpr std::uint32_t max_percent = 1000;

struct sweep_config {
    lvm_autoextend_config config = lvm_autoextend_config::make(lvm_threshold(70), lvm_percent(20)).value();
    lvm_dmeventd_model model = lvm_dmeventd();
    lvm_pool_workload work{};
    std::uint32_t threshold = 70;
    seconds max_queued{0.0};
    double max_extends = 1e300;
    std::uint32_t runs = 10;
    std::uint64_t seed = 1;
};

// Draws from provpol's own generator, so that a configuration is the same on every platform.
class draw {
public:
    explicit draw(std::uint64_t seed) : rng_(seed) {}
    double unit() {
        return static_cast<double>(rng_.below(std::uint64_t{1} << 40)) / static_cast<double>(std::uint64_t{1} << 40);
    }
    std::uint64_t below(std::uint64_t n) { return rng_.below(n); }
    double log_uniform(double lo, double hi) { return std::exp(std::log(lo) + (std::log(hi) - std::log(lo)) * unit()); }
    bool chance(std::uint64_t percent) { return rng_.below(100) < percent; }

private:
    detail::xoshiro256 rng_;
};

constexpr double mib = 1024.0 * 1024.0;

lvm_dmeventd_model model_of(draw& d) {
    if (d.chance(60)) return lvm_dmeventd();
    const double lo = d.log_uniform(0.05, 2.0), hi = lo * (1.0 + 2.0 * d.unit());
    const double poll = d.chance(50) ? 10.0 : static_cast<double>(1 + d.below(30));
    const double nospace = d.chance(70) ? 60.0 : static_cast<double>(d.below(3) * 30);  // 0: queue forever
    return lvm_dmeventd_model::make(seconds(lo), seconds(hi), 0.55, seconds(poll), seconds(nospace)).value();
}

// The burst is drawn against the pool, so that the answers spread over the percents: the data written is 2 to 500
// pools, the rate writes the space above the threshold in 0.05 to 20 s (lvextend takes 0.2 to 0.55 s), and a
// limited VG holds 0.7 to 3 times what the burst needs beyond the pool (where the VG and the percent interact).
sweep_config config_of(std::uint64_t seed, std::uint64_t index) {
    draw d(run_seed(seed, index));
    sweep_config s;
    const std::uint64_t extent = std::uint64_t{1} << (20 + d.below(6));                        // 1 to 32 MiB
    const std::uint64_t chunk = (std::uint64_t{64} << 10) << (d.chance(80) ? 0 : d.below(4));  // 64 to 512 KiB
    s.threshold = static_cast<std::uint32_t>(d.chance(90) ? 50 + d.below(46) : 96 + d.below(4));
    s.config = lvm_autoextend_config::make(lvm_threshold(s.threshold), lvm_percent(20), lvm_extent_size(bytes(extent)),
                                           lvm_chunk_size(bytes(chunk)))
                   .value();
    s.model = model_of(d);
    const auto pool = static_cast<std::uint64_t>(d.log_uniform(256.0 * mib, 1024.0 * 1024 * mib));
    s.work.pool_size = bytes((pool / extent + 1) * extent);
    const double size = static_cast<double>(s.work.pool_size.count());
    s.work.pool_used = d.chance(50) ? bytes(0) : bytes(static_cast<std::uint64_t>(size * 0.95 * d.unit()));
    double write = size * d.log_uniform(2.0, 500.0);
    double r = size * (100.0 - s.threshold) / 100.0 / d.log_uniform(0.05, 20.0);
    if (r < 1.0 * mib) r = 1.0 * mib;
    if (write / r > 3000.0) write = r * d.log_uniform(10.0, 3000.0);  // bound the burst's duration, and the sweep's
    s.work.write = bytes(static_cast<std::uint64_t>(write) + 1);
    s.work.write_rate = rate(static_cast<std::uint64_t>(r));
    const double beyond = static_cast<double>(s.work.pool_used.count()) + write - size;
    s.work.vg_free = d.chance(40) || beyond <= 0.0
                         ? bytes::max()
                         : bytes(static_cast<std::uint64_t>(beyond * d.log_uniform(0.7, 3.0)));
    s.max_queued = d.chance(40) ? seconds(0.0) : seconds(std::round(d.log_uniform(10.0, 5000.0)) / 1000.0);
    s.max_extends = d.chance(20) ? 1e300 : (d.chance(50) ? 20.0 : static_cast<double>(5 + d.below(56)));
    s.runs = static_cast<std::uint32_t>(3 + d.below(28));
    s.seed = d.below(1000000);
    return s;
}

lvm_autoextend_config at_percent(const sweep_config& s, std::uint32_t percent) {
    return lvm_autoextend_config::make(lvm_threshold(s.threshold), lvm_percent(percent),
                                       lvm_extent_size(s.config.extent()), lvm_chunk_size(s.config.pool_chunk()))
        .value();
}

bool same(const lvm_plan_summary& a, const lvm_plan_summary& b) {
    return a.runs == b.runs && a.extends_mean == b.extends_mean && a.commands_mean == b.commands_mean &&
           a.times_full_mean == b.times_full_mean && a.queued_mean == b.queued_mean && a.queued_max == b.queued_max &&
           a.queued_runs == b.queued_runs && a.eio_runs == b.eio_runs && a.hung_runs == b.hung_runs &&
           a.vg_exhausted_runs == b.vg_exhausted_runs && a.pool_end_max == b.pool_end_max &&
           a.vg_free_end_min == b.vg_free_end_min && a.ended_at_mean == b.ended_at_mean;
}

struct tally {
    std::uint64_t configs = 0, answered = 0, none = 0, space_short = 0, wrong = 0, above = 0, false_none = 0;
    std::uint64_t non_monotone = 0;
    std::uint64_t check_wrong = 0, recommend_plans = 0, scan_plans = 0;
    double recommend_seconds = 0.0, scan_seconds = 0.0;
};

double since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// One configuration: the answer against the exhaustive scan. Returns false on a disagreement (printed).
bool sweep_one(std::uint64_t index, const sweep_config& s, tally& t, bool verbose) {
    auto t0 = std::chrono::steady_clock::now();
    const lvm_percent_answer a = recommend_lvm_percent(s.config, s.model, s.work, lvm_threshold(s.threshold),
                                                       s.max_queued, s.runs, s.seed, max_percent, s.max_extends);
    t.recommend_seconds += since(t0);
    t0 = std::chrono::steady_clock::now();
    std::vector<bool> meets(max_percent + 1, false);
    bool ok = true;
    for (std::uint32_t p = 1; p <= max_percent; ++p) {
        const lvm_plan_summary sum = simulate_lvm_plan(at_percent(s, p), s.model, s.work, s.runs, s.seed);
        meets[p] = lvm_target_met(sum, s.max_queued, s.max_extends);
#if PROVPOL_SWEEP_HAS_CHECK
        const lvm_plan_check k =
            check_lvm_plan(at_percent(s, p), s.model, s.work, s.runs, s.seed, s.max_queued, s.max_extends);
        if (k.met != meets[p] || (k.met && !same(k.seen, sum))) {
            ++t.check_wrong;
            ok = false;
            std::printf("config %llu: check_lvm_plan at percent %u says %d, the whole plan %d\n",
                        static_cast<unsigned long long>(index), p, k.met ? 1 : 0, meets[p] ? 1 : 0);
        }
#endif
    }
    t.scan_seconds += since(t0);
    t.scan_plans += max_percent;
    std::uint32_t smallest = 0;
    for (std::uint32_t p = 1; p <= max_percent && smallest == 0; ++p)
        if (meets[p]) smallest = p;
    for (std::uint32_t p = 1; p < max_percent; ++p)
        if (meets[p] && !meets[p + 1]) {
            ++t.non_monotone;
            break;
        }
#if PROVPOL_SWEEP_HAS_CHECK
    t.recommend_plans += a.plans;
    if (a.space.missing() != bytes(0)) ++t.space_short;
#endif
    const bool agree = smallest == 0 ? !a.met : (a.met && a.percent == smallest);
    if (smallest == 0)
        ++t.none;
    else
        ++t.answered;
    if (!agree) {
        ++t.wrong;
        if (a.met && smallest != 0 && a.percent > smallest) ++t.above;
        if (!a.met && smallest != 0) ++t.false_none;
        ok = false;
        std::printf("config %llu: recommend says %s%u, the smallest percent that meets is %s\n",
                    static_cast<unsigned long long>(index), a.met ? "" : "none at ", a.percent,
                    smallest == 0 ? "none" : std::to_string(smallest).c_str());
    }
    if (verbose || !agree)
        std::printf(
            "  config %llu: pool %llu used %llu vg %llu write %llu rate %llu threshold %u max_queued %g "
            "max_extends %g runs %u seed %llu lvextend %g-%g poll %g nospace %g extent %llu chunk %llu -> %s\n",
            static_cast<unsigned long long>(index), static_cast<unsigned long long>(s.work.pool_size.count()),
            static_cast<unsigned long long>(s.work.pool_used.count()),
            static_cast<unsigned long long>(s.work.vg_free.count()),
            static_cast<unsigned long long>(s.work.write.count()),
            static_cast<unsigned long long>(s.work.write_rate.bytes_per_second()), s.threshold, s.max_queued.count(),
            s.max_extends, s.runs, static_cast<unsigned long long>(s.seed), s.model.lvextend_min().count(),
            s.model.lvextend_max().count(), s.model.poll_interval().count(), s.model.no_space_timeout().count(),
            static_cast<unsigned long long>(s.config.extent().count()),
            static_cast<unsigned long long>(s.config.pool_chunk().count()),
            smallest == 0 ? "none" : std::to_string(smallest).c_str());
    ++t.configs;
    return ok;
}

std::uint64_t number(const char* name, const char* v) {
    char* end = nullptr;
    const unsigned long long n = std::strtoull(v, &end, 10);
    if (end == v || *end != '\0') {
        std::fprintf(stderr, "lvm_sweep: %s expects a number, got %s\n", name, v);
        std::exit(2);
    }
    return n;
}

}  // namespace

int main(int argc, char** argv) {
    std::uint64_t configs = 40, seed = 1, first = 0;
    bool verbose = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--verbose") == 0) {
            verbose = true;
        } else if (i + 1 < argc && std::strcmp(argv[i], "--configs") == 0) {
            configs = number("--configs", argv[++i]);
        } else if (i + 1 < argc && std::strcmp(argv[i], "--seed") == 0) {
            seed = number("--seed", argv[++i]);
        } else if (i + 1 < argc && std::strcmp(argv[i], "--first") == 0) {
            first = number("--first", argv[++i]);
        } else {
            std::fprintf(stderr, "usage: lvm_sweep [--configs N] [--seed S] [--first I] [--verbose]\n");
            return 2;
        }
    }
    tally t;
    bool ok = true;
    for (std::uint64_t i = first; i < first + configs; ++i) ok = sweep_one(i, config_of(seed, i), t, verbose) && ok;
    std::printf(
        "configurations %llu (seed %llu, from %llu): answered %llu, none meets %llu (%llu of them short of "
        "space), non-monotone %llu\n",
        static_cast<unsigned long long>(t.configs), static_cast<unsigned long long>(seed),
        static_cast<unsigned long long>(first), static_cast<unsigned long long>(t.answered),
        static_cast<unsigned long long>(t.none), static_cast<unsigned long long>(t.space_short),
        static_cast<unsigned long long>(t.non_monotone));
    std::printf(
        "disagreements with the exhaustive scan: %llu (answers above the smallest: %llu, none where a percent "
        "meets: %llu); check_lvm_plan disagreements: %llu\n",
        static_cast<unsigned long long>(t.wrong), static_cast<unsigned long long>(t.above),
        static_cast<unsigned long long>(t.false_none), static_cast<unsigned long long>(t.check_wrong));
    std::printf("plans: recommend %llu in %.2f s, the exhaustive scan %llu in %.2f s\n",
                static_cast<unsigned long long>(t.recommend_plans), t.recommend_seconds,
                static_cast<unsigned long long>(t.scan_plans), t.scan_seconds);
    return ok ? 0 : 1;
}
