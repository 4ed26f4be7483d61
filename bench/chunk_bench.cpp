// The chunk family: the decision an agent takes per write batch, the policy's validation per device, and the
// calibration fit per measurement. Inputs vary per iteration so that nothing is constant-folded or predicted.
#include <provpol/chunk.hpp>
#include <provpol/fit/chunk.hpp>
#include <provpol/random.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <vector>

namespace {

using namespace provpol::literals;

// This machine's virtio disk (512e, max_sectors_kb 4096) and an md RAID 5 (64 KiB chunks, 3 data disks).
constexpr provpol::device_limits vda{512_B, 4_KiB, 4_KiB, 0_B, 4_MiB, 512_B, 512_B, 4_KiB};
constexpr provpol::device_limits raid5{512_B, 4_KiB, 64_KiB, 192_KiB, 1_MiB, 512_B, 512_B, 4_KiB};

std::array<provpol::bytes, 256> requests() {
    std::array<provpol::bytes, 256> r{};
    provpol::detail::xoshiro256 rng(1);
    for (auto& b : r) b = provpol::bytes(rng.below(16 << 20));  // 0 (the default) to 16 MiB
    return r;
}

// The decision on a power-of-two unit (the common case: a mask, no division).
void bm_chunk_decide_512e(benchmark::State& state) {
    const auto policy =
        provpol::chunk_policy::make(vda, provpol::io_mode::direct, provpol::fixed_default{64_KiB}).value();
    const auto in = requests();
    std::size_t i = 0;
    for (auto _ : state) {
        auto d = policy.decide(in[i++ & 255]);
        benchmark::DoNotOptimize(d);
    }
}
BENCHMARK(bm_chunk_decide_512e);

// The decision on a stripe-width unit (192 KiB: one division).
void bm_chunk_decide_raid5(benchmark::State& state) {
    const auto policy =
        provpol::chunk_policy::make(raid5, provpol::io_mode::direct, provpol::fixed_default{64_KiB}).value();
    const auto in = requests();
    std::size_t i = 0;
    for (auto _ : state) {
        auto d = policy.decide(in[i++ & 255]);
        benchmark::DoNotOptimize(d);
    }
}
BENCHMARK(bm_chunk_decide_raid5);

// Validation and precomputation, once per device (varying the maximum transfer).
void bm_chunk_make(benchmark::State& state) {
    provpol::device_limits l = raid5;
    std::uint64_t k = 0;
    for (auto _ : state) {
        l.max_transfer_size = provpol::bytes((1 + (k++ & 15)) << 20);
        auto p = provpol::make_chunk_policy(provpol::chunk_presets::coreutils_cp(), l);
        benchmark::DoNotOptimize(p);
    }
}
BENCHMARK(bm_chunk_make);

// rsync's preset, made per file (its size depends on the file's length) and asked once: 0 to 16 GiB files.
void bm_chunk_make_rsync(benchmark::State& state) {
    std::array<provpol::bytes, 256> lengths{};
    provpol::detail::xoshiro256 rng(3);
    for (auto& b : lengths) b = provpol::bytes(rng.below(std::uint64_t{16} << 30));
    std::size_t i = 0;
    for (auto _ : state) {
        auto d = provpol::make_chunk_policy(provpol::chunk_presets::rsync(lengths[i++ & 255]), vda)->decide();
        benchmark::DoNotOptimize(d);
    }
}
BENCHMARK(bm_chunk_make_rsync);

// samples_for(n): n runs of 6 block sizes from a noisy t0 + bs / B device, a different draw per set.
std::vector<std::vector<provpol::throughput_sample>> sample_sets(int runs) {
    std::vector<std::vector<provpol::throughput_sample>> sets(64);
    provpol::detail::xoshiro256 rng(2);
    for (auto& s : sets) {
        for (int r = 0; r < runs; ++r)
            for (std::uint64_t bs : {4096ULL, 16384ULL, 65536ULL, 262144ULL, 1048576ULL, 4194304ULL}) {
                const double t = (70e-6 + static_cast<double>(bs) / 1.5e9) * (1.0 + 0.05 * (rng.uniform() - 0.5));
                s.push_back({provpol::bytes(bs), static_cast<double>(bs) / t});
            }
    }
    return sets;
}

// The cost-model fit over 3 runs x 6 sizes (what `provpol calibrate` fits by default).
void bm_calibration_fit(benchmark::State& state) {
    const auto sets = sample_sets(static_cast<int>(state.range(0)));
    std::size_t i = 0;
    for (auto _ : state) {
        const auto& s = sets[i++ & 63];
        auto fit = provpol::fit_cost_model(s.data(), s.size());
        benchmark::DoNotOptimize(fit);
    }
}
BENCHMARK(bm_calibration_fit)->Arg(3)->Arg(30);

// The rule (sorts a copy of the samples, then medians per size).
void bm_calibration_rule(benchmark::State& state) {
    const auto sets = sample_sets(static_cast<int>(state.range(0)));
    std::size_t i = 0;
    for (auto _ : state) {
        const auto& s = sets[i++ & 63];
        auto r = provpol::choose_by_rule(s.data(), s.size());
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(bm_calibration_rule)->Arg(3)->Arg(30);

// The steady rule on the same samples (a second pass over the sizes for each one's neighbourhood).
void bm_calibration_steady_rule(benchmark::State& state) {
    const auto sets = sample_sets(static_cast<int>(state.range(0)));
    std::size_t i = 0;
    for (auto _ : state) {
        const auto& s = sets[i++ & 63];
        auto r = provpol::choose_by_steady_rule(s.data(), s.size());
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(bm_calibration_steady_rule)->Arg(3)->Arg(30);

}  // namespace

BENCHMARK_MAIN();
