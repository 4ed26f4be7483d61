// The thin-volume extend decision: one drive with every output, and a host's worth of drives in a batch,
// measured against a memcpy of the same input and output bytes in the same run (bench/README.md).
#include <provpol/extend.hpp>
#include <provpol/random.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

using provpol::bytes;

// Drives as a host has them: capacities of 1 GiB to 2 TiB, LVs in 128 MiB extents up to the capacity,
// allocations anywhere up to 1 GiB past the LV (so every flag and action occurs). Seeded.
struct drives {
    explicit drives(std::size_t n) : capacity(n), physical(n), allocation(n) {
        provpol::detail::xoshiro256 rng(1);
        for (std::size_t i = 0; i < n; ++i) {
            capacity[i] = bytes((1 + rng.below(2048)) << 30);
            physical[i] = bytes((1 + rng.below(capacity[i].count() >> 27)) << 27);
            allocation[i] = bytes(rng.below(physical[i].count() + (1 << 30)));
        }
    }
    std::vector<bytes> capacity, physical, allocation;
};

// Order statistics besides Google Benchmark's mean/median/stddev: on a shared machine the minimum is the run
// least disturbed by other processes.
void add_statistics(benchmark::internal::Benchmark* b) {
    b->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); });
}

// --- one decision, every output -------------------------------------------------------------------------------

// The inputs vary per iteration: a 4096-drive table walked in order (the compiler cannot see the values), one
// drive in eight replicating and one in sixteen with a threshold event.
template <class Policy>
void bm_decide(benchmark::State& state, Policy policy) {
    const drives in(4096);
    std::vector<provpol::drive_state> table(4096);
    for (std::size_t i = 0; i < table.size(); ++i) {
        table[i] =
            provpol::drive_state{provpol::drive_capacity(in.capacity[i]), provpol::drive_physical(in.physical[i]),
                                 provpol::drive_allocation(in.allocation[i])};
        table[i].replicating = i % 8 == 7;
        table[i].threshold_exceeded = i % 16 == 5;
    }
    benchmark::DoNotOptimize(policy);
    std::size_t i = 0;
    for (auto _ : state) {
        auto d = policy.decide(table[i]);
        benchmark::DoNotOptimize(d);
        i = (i + 1) & 4095;
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK_CAPTURE(bm_decide, vdsm_2022, provpol::vdsm_2022())->Apply(add_statistics);
BENCHMARK_CAPTURE(bm_decide, vdsm_legacy, provpol::vdsm_legacy())->Apply(add_statistics);
BENCHMARK_CAPTURE(bm_decide, lvm_thin_autoextend, provpol::lvm_thin_autoextend())->Apply(add_statistics);

// --- a million drives -----------------------------------------------------------------------------------------

constexpr std::size_t batch_drives = std::size_t{1} << 20;
// Per drive the batch reads capacity, physical and allocation (3 x 8 bytes) and writes the threshold, the next
// size (2 x 8 bytes), the action and the flags (2 x 1 byte): 42 MiB per run, more than this machine's 32 MiB L3 per
// CCD.
constexpr std::int64_t bytes_per_drive = 3 * 8 + 2 * 8 + 2;

struct batch_buffers {
    batch_buffers()
        : in(batch_drives), threshold(batch_drives), next(batch_drives), action(batch_drives), flags(batch_drives) {}
    drives in;
    std::vector<bytes> threshold, next;  // zero-filled: every page is mapped before the first run
    std::vector<provpol::extend_action> action;
    std::vector<std::uint8_t> flags;
    provpol::extend_batch_input input() const {
        return {provpol::batch_capacity(in.capacity), provpol::batch_physical(in.physical),
                provpol::batch_allocation(in.allocation)};
    }
    provpol::extend_batch_output output() {
        return {action, provpol::batch_next_size(next), provpol::batch_block_threshold(threshold), flags};
    }
    void clobber() {
        benchmark::DoNotOptimize(threshold.data());
        benchmark::DoNotOptimize(next.data());
        benchmark::DoNotOptimize(action.data());
        benchmark::DoNotOptimize(flags.data());
        benchmark::ClobberMemory();
    }
};

void set_batch_counters(benchmark::State& state) {
    state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(batch_drives));
    state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(batch_drives) * bytes_per_drive);
}

template <class Policy>
void bm_decide_batch(benchmark::State& state, Policy policy) {
    batch_buffers b;
    const provpol::extend_batch_input in = b.input();
    const provpol::extend_batch_output out = b.output();
    benchmark::DoNotOptimize(policy);
    for (auto _ : state) {
        benchmark::DoNotOptimize(provpol::decide_batch(policy, in, out));
        b.clobber();
    }
    set_batch_counters(state);
}
BENCHMARK_CAPTURE(bm_decide_batch, vdsm_2022, provpol::vdsm_2022())
    ->Unit(benchmark::kMillisecond)
    ->Apply(add_statistics);
BENCHMARK_CAPTURE(bm_decide_batch, lvm_thin_autoextend, provpol::lvm_thin_autoextend())
    ->Unit(benchmark::kMillisecond)
    ->Apply(add_statistics);

// Each instruction-set version of VDSM's blocks on its own (decide_batch picks one at run time).
using vdsm_kernel = std::size_t (*)(const provpol::vdsm_policy&, const provpol::extend_batch_input&,
                                    const provpol::extend_batch_output&);
void bm_vdsm_batch_kernel(benchmark::State& state, vdsm_kernel kernel) {
    batch_buffers b;
    const provpol::extend_batch_input in = b.input();
    const provpol::extend_batch_output out = b.output();
    auto policy = provpol::vdsm_2022();
    benchmark::DoNotOptimize(policy);
    for (auto _ : state) {
        benchmark::DoNotOptimize(kernel(policy, in, out));  // 2^20 drives: whole blocks, no tail
        b.clobber();
    }
    set_batch_counters(state);
}
BENCHMARK_CAPTURE(bm_vdsm_batch_kernel, baseline_isa,
                  [](const provpol::vdsm_policy& p, const provpol::extend_batch_input& in,
                     const provpol::extend_batch_output& out) {
                      return provpol::detail::vdsm_batch_blocks(p, in, out);
                  })
    ->Unit(benchmark::kMillisecond)
    ->Apply(add_statistics);
#ifdef PROVPOL_EXTEND_BATCH_AVX2
BENCHMARK_CAPTURE(bm_vdsm_batch_kernel, avx2,
                  [](const provpol::vdsm_policy& p, const provpol::extend_batch_input& in,
                     const provpol::extend_batch_output& out) {
                      return provpol::detail::cpu_has_avx2() ? provpol::detail::vdsm_batch_blocks_avx2(p, in, out)
                                                             : std::size_t{0};
                  })
    ->Unit(benchmark::kMillisecond)
    ->Apply(add_statistics);
#endif

// Reads n words (n a multiple of 16) as fast as the memory delivers them: 16-word blocks, which GCC's -O2
// vectoriser takes, ORed into one word so that nothing is optimised away.
__attribute__((noinline)) std::uint64_t read_words(const bytes* words, std::size_t n) {
    std::uint64_t acc[16] = {};
    for (std::size_t i = 0; i < n; i += 16)
        for (std::size_t j = 0; j < 16; ++j) acc[j] |= words[i + j].count();
    std::uint64_t all = 0;
    for (std::uint64_t w : acc) all |= w;
    return all;
}

// The floor for the batch: the same bytes read and written, by memcpy. Threshold <- capacity and next <-
// physical are 8 MiB memcpys; flags and action <- the first two MiB of allocation are 1 MiB memcpys, and the other
// 6 MiB of allocation are read by read_words. Every input byte is read once and every output byte written once, from
// and to the same buffers as the batch's, as in the batch.
void bm_memcpy_same_bytes(benchmark::State& state) {
    batch_buffers b;
    for (auto _ : state) {
        std::memcpy(b.threshold.data(), b.in.capacity.data(), batch_drives * 8);
        std::memcpy(b.next.data(), b.in.physical.data(), batch_drives * 8);
        std::memcpy(b.flags.data(), b.in.allocation.data(), batch_drives);
        std::memcpy(b.action.data(), b.in.allocation.data() + batch_drives / 8, batch_drives);
        benchmark::DoNotOptimize(
            read_words(b.in.allocation.data() + batch_drives / 4, batch_drives - batch_drives / 4));
        b.clobber();
    }
    set_batch_counters(state);
}
BENCHMARK(bm_memcpy_same_bytes)->Unit(benchmark::kMillisecond)->Apply(add_statistics);

// The same seven streams as the batch, in one pass, with no arithmetic: threshold = capacity, next = physical,
// flags and action = the low bytes of allocation, in 16-drive blocks like the batch's. It shows what the access
// pattern itself costs next to memcpy.
void copy_streams(const bytes* __restrict c, const bytes* __restrict p, const bytes* __restrict a, bytes* __restrict t,
                  bytes* __restrict x, std::uint8_t* __restrict f, provpol::extend_action* __restrict act,
                  std::size_t n) {
    for (std::size_t i = 0; i < n; i += 16) {
        for (std::size_t j = 0; j < 16; ++j) {
            t[i + j] = c[i + j];
            x[i + j] = p[i + j];
            f[i + j] = static_cast<std::uint8_t>(a[i + j].count());
            act[i + j] = static_cast<provpol::extend_action>((a[i + j].count() >> 8) & 3U);
        }
    }
}

void bm_copy_same_streams(benchmark::State& state) {
    batch_buffers b;
    for (auto _ : state) {
        copy_streams(b.in.capacity.data(), b.in.physical.data(), b.in.allocation.data(), b.threshold.data(),
                     b.next.data(), b.flags.data(), b.action.data(), batch_drives);
        b.clobber();
    }
    set_batch_counters(state);
}
BENCHMARK(bm_copy_same_streams)->Unit(benchmark::kMillisecond)->Apply(add_statistics);

}  // namespace

BENCHMARK_MAIN();
