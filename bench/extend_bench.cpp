// The thin-volume extend decision: one drive with every output, and a host's worth of drives in a batch,
// measured against a memcpy of the same input and output bytes in the same run.
#include <provpol/detail/random.hpp>
#include <provpol/extend.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

using provpol::bytes;

// Inputs that vary per iteration: a table of realistic drives walked with a stride the compiler cannot see.
struct drives {
    explicit drives(std::size_t n) : capacity(n), physical(n), allocation(n) {
        provpol::detail::xoshiro256 rng(1);
        for (std::size_t i = 0; i < n; ++i) {
            capacity[i] = (1 + rng.below(2048)) << 30;
            physical[i] = (1 + rng.below(capacity[i] >> 27)) << 27;
            allocation[i] = rng.below(physical[i] + (1 << 30));
        }
    }
    std::vector<std::uint64_t> capacity, physical, allocation;
};

template <class Policy>
void bm_decide(benchmark::State& state, Policy policy) {
    const drives in(4096);
    std::size_t i = 0;
    for (auto _ : state) {
        const provpol::drive_state s{bytes(in.capacity[i]), bytes(in.physical[i]), bytes(in.allocation[i])};
        auto d = policy.decide(s);
        benchmark::DoNotOptimize(d);
        i = (i + 1) & 4095;
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(bm_decide, vdsm_2022, provpol::vdsm_2022());
BENCHMARK_CAPTURE(bm_decide, vdsm_legacy, provpol::vdsm_legacy());
BENCHMARK_CAPTURE(bm_decide, lvm_thin_autoextend, provpol::lvm_thin_autoextend());

constexpr std::size_t batch_drives = 1 << 20;  // a million drives

// decide_batch over a million drives (3 x 8 bytes in, 8 + 8 + 1 bytes out per drive).
void bm_decide_batch(benchmark::State& state) {
    const drives in(batch_drives);
    std::vector<std::uint64_t> threshold(batch_drives), next(batch_drives);
    std::vector<std::uint8_t> flags(batch_drives);
    const auto policy = provpol::vdsm_2022();
    for (auto _ : state) {
        provpol::decide_batch(policy,
                              provpol::extend_batch_input{in.capacity.data(), in.physical.data(), in.allocation.data(), batch_drives},
                              provpol::extend_batch_output{threshold.data(), next.data(), flags.data()});
        benchmark::DoNotOptimize(threshold.data());
        benchmark::DoNotOptimize(next.data());
        benchmark::DoNotOptimize(flags.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(batch_drives));
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(batch_drives * (3 * 8 + 8 + 8 + 1)));
}
BENCHMARK(bm_decide_batch)->Unit(benchmark::kMillisecond);

// The floor for the batch: copying the same bytes (read 24 + write 17 per drive) with memcpy.
void bm_memcpy_same_bytes(benchmark::State& state) {
    const drives in(batch_drives);
    std::vector<std::uint64_t> threshold(batch_drives), next(batch_drives);
    std::vector<std::uint8_t> flags(batch_drives);
    for (auto _ : state) {
        std::memcpy(threshold.data(), in.capacity.data(), batch_drives * 8);
        std::memcpy(next.data(), in.physical.data(), batch_drives * 8);
        std::memcpy(flags.data(), in.allocation.data(), batch_drives);
        benchmark::DoNotOptimize(threshold.data());
        benchmark::DoNotOptimize(next.data());
        benchmark::DoNotOptimize(flags.data());
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(batch_drives));
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(batch_drives * (3 * 8 + 8 + 8 + 1)));
}
BENCHMARK(bm_memcpy_same_bytes)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
