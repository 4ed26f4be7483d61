// Log-size decisions: one per preset, each including the default AG geometry (calc_default_ag_geometry), the
// minimum-log estimate and the limits, over 64 geometries that change every iteration (sizes from 300 MiB to
// 64 TiB, block sizes 1 to 64 KiB, some stripes and explicit AG counts).
#include <provpol/log_size.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

namespace {

std::vector<provpol::fs_geometry> geometries() {
    std::vector<provpol::fs_geometry> out;
    std::uint64_t size = std::uint64_t{300} << 20;
    for (unsigned i = 0; i < 64; ++i) {
        provpol::fs_geometry_options o;
        o.device_size = provpol::bytes(size);
        o.block_size = (i % 5 == 0) ? 1024U : (i % 7 == 0) ? 65536U : 4096U;
        if (i % 3 == 0) {
            o.stripe_unit = provpol::bytes(std::uint64_t{64} << (10 + i % 4));
            o.stripe_width = 4;
        }
        if (i % 11 == 0) o.agcount = 32 + i;
        if (i % 2 == 0) o.min_log_blocks = 2580;
        out.push_back(provpol::fs_geometry::make(o).value());
        size = size + size / 5 + 4096 * i;  // 300 MiB * 1.2^63 is about 28 PiB
        if (size > (std::uint64_t{64} << 40)) size = std::uint64_t{300} << 20;
    }
    return out;
}

template <class Policy>
void run(benchmark::State& state, const Policy& policy) {
    const auto gs = geometries();
    std::size_t i = 0;
    for (auto _ : state) {
        auto d = policy.decide(gs[i++ & 63]);
        benchmark::DoNotOptimize(d);
    }
}

void bm_xfsprogs_6_1(benchmark::State& state) { run(state, provpol::xfsprogs_6_1()); }
void bm_xfsprogs_5_14(benchmark::State& state) { run(state, provpol::xfsprogs_5_14()); }
void bm_xfs_ratio_256(benchmark::State& state) { run(state, provpol::xfs_ratio_256()); }
void bm_xfs_floor_32m(benchmark::State& state) { run(state, provpol::xfs_floor_32m()); }
void bm_e2fsprogs_1_47(benchmark::State& state) { run(state, provpol::e2fsprogs_1_47()); }

// A preset chosen at run time, as the CLI does.
void bm_by_name(benchmark::State& state) {
    const auto gs = geometries();
    std::size_t i = 0;
    for (auto _ : state) {
        auto d = provpol::decide_log_size(provpol::all_log_presets[i % 5], gs[i & 63]);
        ++i;
        benchmark::DoNotOptimize(d);
    }
}

BENCHMARK(bm_xfsprogs_6_1);
BENCHMARK(bm_xfsprogs_5_14);
BENCHMARK(bm_xfs_ratio_256);
BENCHMARK(bm_xfs_floor_32m);
BENCHMARK(bm_e2fsprogs_1_47);
BENCHMARK(bm_by_name);

}  // namespace

BENCHMARK_MAIN();
