// Instruction budgets of provpol's decision paths, counted by callgrind (tools/instruction_budget.sh runs it,
// and the ctest test perf.instruction_budget checks the budgets).
//
// Method. For every entry the program runs two loops over the same table of varying inputs, N iterations each:
//   walk    loads input i (i cycles through a 4096-row table) and hands every input field to use_in_register();
//   decide  does exactly the same, then decides and hands every output field to use_anywhere().
// Both are empty asm statements: the compiler must load every input into a register and compute every output,
// but nothing is stored or printed. Each loop is its own noinline function, bracketed by CALLGRIND_ZERO_STATS
// and CALLGRIND_DUMP_STATS_AT("provpol:<entry>:walk" or ":decide"), so callgrind writes the exact instruction
// count of each loop to a dump of its own. Instructions per decision = (decide - walk) / N: the input walk,
// the loop control and the client requests cancel, and what is left is the decision, from the inputs in
// registers to every output computed. The policy is made opaque to the compiler (its address escapes), as in
// an agent that reads its configuration at run time, so no configuration value is folded into the code.
// Callgrind counts executed instructions, not time: the result is the same on every run and every x86-64
// machine, for one compiler and one set of flags (the budgets are for g++ 12 at -O2).
//
// Batch entries ("extend-batch/...", no budget) report instructions per drive of decide_batch's vectorised blocks, each
// instruction-set version run directly: decide over N drives in calls of 4096, minus the same calls to an
// empty function.
//
// Usage:
//   instructions --list     "callgrind-requests yes|no", "compiler <version>", "flags <flags>" (when the build
//                           defines PROVPOL_BENCH_FLAGS), then one line per entry:
//                           "entry <name> <budget> <iterations>" (budget 0: reported only; names have no spaces)
//   instructions            run every entry (under valgrind --tool=callgrind for the counts; run natively it
//                           only exercises the loops)
//
// Adding a family (bench/README.md has the recipe): a sink() for its output type, a table of varying inputs,
// and one line in entries[] with the name, the budget and a lambda that decides one input.
//
// SPDX-License-Identifier: MIT
#include <provpol/chunk.hpp>
#include <provpol/extend.hpp>
#include <provpol/log_size.hpp>
#include <provpol/log_size/xfs_reservations.hpp>
#include <provpol/random.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define PROVPOL_BENCH_CALLGRIND 1
#endif
#endif
#ifndef PROVPOL_BENCH_CALLGRIND
#define PROVPOL_BENCH_CALLGRIND 0
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(name) static_cast<void>(name)
#endif

namespace {

using namespace provpol;

// --- sinks ----------------------------------------------------------------------------------------------------
// An input is taken in a register (both loops load it: that is the walk); an output is taken wherever the
// compiler has it, register or stack slot ("g"), so that the sink adds no instruction of its own.

template <class T>
inline void use_in_register(T v) noexcept {
    asm volatile("" : : "r"(v));
}
template <class T>
inline void use_anywhere(T v) noexcept {
    asm volatile("" : : "g"(v));
}

inline void sink(const drive_state& s) noexcept {
    use_in_register(s.capacity.count());
    use_in_register(s.physical.count());
    use_in_register(s.allocation.count());
    use_in_register(s.replicating);
    use_in_register(s.threshold_exceeded);
    use_in_register(s.write_rate.bytes_per_second());
}
inline void sink(const extend_decision& d) noexcept {
    use_anywhere(d.chunk.count());
    use_anywhere(d.limit.count());
    use_anywhere(d.block_threshold.count());
    use_anywhere(d.needs_extend);
    use_anywhere(d.improbable_allocation);
    use_anywhere(d.can_extend);
    use_anywhere(d.max_size.count());
    use_anywhere(d.next_size.count());
    use_anywhere(d.lv_size_after_extend.count());
    use_anywhere(d.next_block_threshold.count());
    use_anywhere(d.max_size_storage.count());
    use_anywhere(d.initial_size.count());
    use_anywhere(static_cast<unsigned char>(d.action));
}

inline void sink(const fs_geometry& g) noexcept { use_in_register(&g); }  // the decision reads what it needs
inline void sink(const log_size_decision& d) noexcept {
    use_anywhere(d.block_size);
    use_anywhere(d.data_blocks);
    use_anywhere(d.agcount);
    use_anywhere(d.agsize_blocks);
    use_anywhere(d.log_blocks);
    use_anywhere(d.log_sunit_blocks);
    use_anywhere(d.fast_commit_blocks);
    use_anywhere(d.min_log_blocks);
    use_anywhere(d.min_log_computed);
    use_anywhere(d.max_tx_bytes);
    use_anywhere(d.log_concurrency);
    use_anywhere(d.supported);
    use_anywhere(static_cast<unsigned char>(d.reason));
    use_anywhere(static_cast<unsigned char>(d.decided_by));
}
inline void sink(const xfs_sb_params& sb) noexcept { use_in_register(&sb); }  // read where needed
inline void sink(const fs_geometry_options& o) noexcept { use_in_register(&o); }
inline void sink(const result<fs_geometry>& g) noexcept {
    use_anywhere(g.has_value());
    use_anywhere(detail::fs_geometry_access::xfs(*g, xfsprogs_version::v6_13).min_log[0].min_log_blocks);
}
inline void sink(const xfs_log_minimum_result& m) noexcept {
    use_anywhere(m.largest.logres);
    use_anywhere(m.largest.logcount);
    use_anywhere(static_cast<unsigned char>(m.largest_type));
    use_anywhere(m.max_tx_bytes);
    use_anywhere(m.min_log_blocks);
}
inline void sink(bytes b) noexcept { use_in_register(b.count()); }
inline void sink(const chunk_decision& d) noexcept {
    use_anywhere(d.size.count());
    use_anywhere(static_cast<unsigned char>(d.decided_by));
}

// Hides a value from the optimiser: after this the compiler knows nothing of its contents.
template <class T>
inline void opaque(T& v) noexcept {
    asm volatile("" : : "r"(&v) : "memory");
}

// --- the two loops --------------------------------------------------------------------------------------------

constexpr std::size_t table_size = 4096;  // a power of two: the walk is one add and one mask

template <class Input>
__attribute__((noinline)) void walk_loop(const Input* table, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) sink(table[i & (table_size - 1)]);
}

template <class Input, class Decide>
__attribute__((noinline)) void decide_loop(const Decide& decide, const Input* table, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        const Input& in = table[i & (table_size - 1)];
        sink(in);
        sink(decide(in));
    }
}

// --- entries --------------------------------------------------------------------------------------------------

struct entry {
    const char* name;
    unsigned budget;  // instructions per decision at g++ -O2 on x86-64; 0: reported, not enforced
    std::size_t iterations;
    void (*run)(const entry&);
};

// Runs the walk and then the decide loop of one entry, each in a callgrind dump of its own.
template <class Walk, class Decide>
void measure(const entry& e, const Walk& walk, const Decide& decide) {
    char label[160];
    std::snprintf(label, sizeof label, "provpol:%s:walk", e.name);
    CALLGRIND_ZERO_STATS;
    walk();
    CALLGRIND_DUMP_STATS_AT(label);
    std::snprintf(label, sizeof label, "provpol:%s:decide", e.name);
    CALLGRIND_ZERO_STATS;
    decide();
    CALLGRIND_DUMP_STATS_AT(label);
}

// A single-decision entry: N decisions over a table of inputs.
template <class Input, class Decide>
void measure_decisions(const entry& e, const std::vector<Input>& table, const Decide& decide) {
    measure(
        e, [&] { walk_loop(table.data(), e.iterations); }, [&] { decide_loop(decide, table.data(), e.iterations); });
}

// Drives as an agent sees them: realistic sizes, a few edge cases (1 in 64: empty, 2^64 - 1, near 2^64, which
// take the saturating path), replication and threshold events now and then. Seeded: every run walks the same
// inputs.
std::vector<drive_state> drive_table() {
    detail::xoshiro256 rng(8);
    std::vector<drive_state> t(table_size);
    const std::uint64_t max64 = ~std::uint64_t{0};
    for (std::size_t i = 0; i < table_size; ++i) {
        drive_state& s = t[i];
        if (i % 64 == 63) {
            s.capacity = bytes(i % 128 == 127 ? max64 : 0);
            s.physical = bytes(max64 - rng.below(1 << 20));
            s.allocation = bytes(rng.next());
        } else {
            s.capacity = bytes((1 + rng.below(2048)) << 30);
            s.physical = bytes((1 + rng.below(s.capacity.count() >> 27)) << 27);
            s.allocation = bytes(rng.below(s.physical.count() + (std::uint64_t{1} << 30)));
        }
        s.replicating = rng.below(8) == 0;
        s.threshold_exceeded = rng.below(16) == 0;
    }
    return t;
}

template <class Policy>
void run_extend(const entry& e, Policy policy) {
    const std::vector<drive_state> table = drive_table();
    opaque(policy);
    measure_decisions(e, table, [&policy](const drive_state& s) { return policy.decide(s); });
}

// A batch entry: kernel(policy, input, output) over the table's drives, iterations / table_size times.
using batch_kernel = std::size_t (*)(const vdsm_policy&, const extend_batch_input&, const extend_batch_output&);

__attribute__((noinline)) std::size_t no_kernel(const vdsm_policy&, const extend_batch_input& in,
                                                const extend_batch_output&) {
    asm volatile("" : : "r"(in.capacity.data()) : "memory");
    return 0;
}

__attribute__((noinline)) void batch_loop(batch_kernel kernel, const vdsm_policy& policy, const extend_batch_input& in,
                                          const extend_batch_output& out, std::size_t calls) {
    for (std::size_t i = 0; i < calls; ++i) kernel(policy, in, out);
}

void run_batch(const entry& e, batch_kernel kernel) {
    // The benchmark's drives (bench/extend_bench.cpp): every block takes the vectorised path.
    detail::xoshiro256 rng(1);
    std::vector<bytes> cap(table_size), phys(table_size), alloc(table_size), thr(table_size), next(table_size);
    std::vector<extend_action> action(table_size);
    std::vector<std::uint8_t> flags(table_size);
    for (std::size_t i = 0; i < table_size; ++i) {
        cap[i] = bytes((1 + rng.below(2048)) << 30);
        phys[i] = bytes((1 + rng.below(cap[i].count() >> 27)) << 27);
        alloc[i] = bytes(rng.below(phys[i].count() + (std::uint64_t{1} << 30)));
    }
    vdsm_policy policy = vdsm_2022();
    opaque(policy);
    const extend_batch_input in{batch_capacity(cap), batch_physical(phys), batch_allocation(alloc)};
    const extend_batch_output out{action, batch_next_size(next), batch_block_threshold(thr), flags};
    const std::size_t calls = e.iterations / table_size;
    measure(
        e, [&] { batch_loop(no_kernel, policy, in, out, calls); }, [&] { batch_loop(kernel, policy, in, out, calls); });
}

// Filesystems as an image builder sees them: device sizes from 300 MiB to 64 TiB (the default AG geometry: 4 AGs
// to 4 TiB, 1 TiB AGs above), 4 KiB blocks, the default features; `striped` adds a RAID stripe (su 64 KiB, sw 4:
// multidisk AG layout and log stripe rounding).
std::vector<fs_geometry> geometry_table(bool striped, std::int64_t log_concurrency = -1) {
    detail::xoshiro256 rng(6);
    std::vector<fs_geometry> t;
    t.reserve(table_size);
    while (t.size() < table_size) {
        fs_geometry_options o;
        const std::uint64_t mib = (std::uint64_t{300} + rng.below(64ULL << 20));  // 300 MiB .. 64 TiB
        o.device_size = bytes(mib << 20);
        if (striped) {
            o.stripe_unit = bytes(64 * 1024);
            o.stripe_width = 4;
        }
        o.log_concurrency = log_concurrency;
        const auto g = fs_geometry::make(o);
        if (g) t.push_back(*g);
    }
    return t;
}

template <class Policy>
void run_log_size(const entry& e, Policy policy, bool striped, std::int64_t log_concurrency = -1) {
    const std::vector<fs_geometry> table = geometry_table(striped, log_concurrency);
    opaque(policy);
    measure_decisions(e, table, [&policy](const fs_geometry& g) { return policy.decide(g); });
}

// The transaction reservations themselves (what fs_geometry::make computes at each AG size where a btree grows,
// 8 to 15 times per version): 4 KiB blocks, 6.13's features, AG sizes from 16 MiB to 1 TiB.
void run_xfs_log_minimum(const entry& e) {
    detail::xoshiro256 rng(7);
    std::vector<xfs_sb_params> table(table_size);
    for (auto& sb : table) sb.agblocks = static_cast<std::uint32_t>(4096 + rng.below(268435455 - 4096));
    measure_decisions(e, table, [](const xfs_sb_params& sb) { return xfs_log_minimum(sb); });
}

// Validating a geometry once: fs_geometry::make computes each version's reservation steps (default options,
// device sizes as in geometry_table; the steps do not depend on the size).
void run_fs_geometry_make(const entry& e) {
    detail::xoshiro256 rng(9);
    std::vector<fs_geometry_options> table(table_size);
    for (auto& o : table) o.device_size = bytes((std::uint64_t{300} + rng.below(64ULL << 20)) << 20);
    measure_decisions(e, table, [](const fs_geometry_options& o) { return fs_geometry::make(o); });
}

// Requested chunk sizes as calibration produces them: 1 byte to 64 MiB, most of them unaligned.
template <class Policy>
void run_chunk(const entry& e, Policy policy) {
    detail::xoshiro256 rng(4);
    std::vector<bytes> table(table_size);
    for (auto& b : table) b = bytes(rng.below(std::uint64_t{64} << 20) + 1);
    opaque(policy);
    measure_decisions(e, table, [&policy](bytes requested) { return policy.decide(requested); });
}

// This machine's virtio disk (512e, max_sectors_kb 4096), and a RAID 5 of four 64 KiB chunks (192 KiB stripe).
device_limits vda_limits() {
    device_limits l;
    l.logical_block_size = bytes(512);
    l.physical_block_size = l.minimum_io_size = bytes(4096);
    l.max_transfer_size = bytes(std::uint64_t{4} << 20);
    l.dio_mem_align = l.dio_offset_align = bytes(512);
    return l;
}
device_limits raid5_limits() {
    device_limits l = vda_limits();
    l.minimum_io_size = bytes(64 * 1024);
    l.optimal_io_size = bytes(192 * 1024);
    return l;
}

// File lengths for rsync's preset: 0 to 16 GiB, where its block length is a square root (128 KiB from 16 GiB).
std::vector<bytes> file_lengths() {
    detail::xoshiro256 rng(5);
    std::vector<bytes> table(table_size);
    for (auto& b : table) b = bytes(rng.below(std::uint64_t{16} << 30));
    return table;
}

// rsync's block length alone (its default step: an integer square root).
void run_rsync_block_length(const entry& e) {
    measure_decisions(e, file_lengths(), [](bytes length) { return rsync_block_length{length}.default_size({}); });
}

// rsync's preset per file: the policy is made per file (its default step depends on the length), then decides.
void run_chunk_rsync(const entry& e) {
    static const device_limits vda = vda_limits();
    measure_decisions(e, file_lengths(),
                      [](bytes length) { return make_chunk_policy(chunk_presets::rsync(length), vda)->decide(); });
}

constexpr std::size_t iterations = 100000;
constexpr std::size_t batch_iterations = 64 * table_size;

// The table of budgets: one line per decision path. The budgets are the issue's, for g++ 12 -O2 on x86-64.
const entry entries[] = {
    {"extend/vdsm_2022", 60, iterations, [](const entry& e) { run_extend(e, vdsm_2022()); }},
    {"extend/vdsm_legacy", 60, iterations, [](const entry& e) { run_extend(e, vdsm_legacy()); }},
    // LVM's exact rule: its fast path (lvm_thin_steps::decide_fast) reads libdm's double at most three times.
    {"extend/lvm_thin_autoextend", 120, iterations, [](const entry& e) { run_extend(e, lvm_thin_autoextend()); }},
    {"extend-batch/vdsm_2022/baseline-isa", 0, batch_iterations,
     [](const entry& e) {
         run_batch(e, [](const vdsm_policy& p, const extend_batch_input& in, const extend_batch_output& out) {
             return detail::vdsm_batch_blocks(p, in, out);
         });
     }},
#ifdef PROVPOL_EXTEND_BATCH_AVX2
    {"extend-batch/vdsm_2022/avx2", 0, batch_iterations,
     [](const entry& e) {
         if (!detail::cpu_has_avx2()) return;  // no dump: the script reports the entry as not run
         run_batch(e, [](const vdsm_policy& p, const extend_batch_input& in, const extend_batch_output& out) {
             return detail::vdsm_batch_blocks_avx2(p, in, out);
         });
     }},
#endif
    // Log size, with the default AG geometry computed in the decision (the budget: 250).
    {"log_size/xfsprogs_6_1", 250, iterations, [](const entry& e) { run_log_size(e, xfsprogs_6_1(), false); }},
    {"log_size/xfsprogs_5_14", 250, iterations, [](const entry& e) { run_log_size(e, xfsprogs_5_14(), false); }},
    {"log_size/e2fsprogs_1_47", 250, iterations, [](const entry& e) { run_log_size(e, e2fsprogs_1_47(), false); }},
    {"log_size/xfsprogs_6_13", 250, iterations, [](const entry& e) { run_log_size(e, xfsprogs_6_13(), false); }},
    {"log_size/xfsprogs_7_2", 250, iterations, [](const entry& e) { run_log_size(e, xfsprogs_7_2(), false); }},
    {"log_size/xfsprogs_6_1/striped", 0, iterations, [](const entry& e) { run_log_size(e, xfsprogs_6_1(), true); }},
    {"log_size/xfsprogs_6_13/concurrency_64", 0, iterations,
     [](const entry& e) { run_log_size(e, xfsprogs_6_13(), false, 64); }},
    {"xfs_reservations/log_minimum", 0, iterations / 10, [](const entry& e) { run_xfs_log_minimum(e); }},
    {"log_size/fs_geometry_make", 0, iterations / 100, [](const entry& e) { run_fs_geometry_make(e); }},
    // Chunk size (the budget: 60).
    {"chunk/xapi_redo_log/vda", 60, iterations,
     [](const entry& e) { run_chunk(e, make_chunk_policy(chunk_presets::xapi_redo_log(), vda_limits()).value()); }},
    {"chunk/ovirt_imageio/raid5", 60, iterations,
     [](const entry& e) { run_chunk(e, make_chunk_policy(chunk_presets::ovirt_imageio(), raid5_limits()).value()); }},
    {"chunk/coreutils_cp_2014/vda", 60, iterations,
     [](const entry& e) { run_chunk(e, make_chunk_policy(chunk_presets::coreutils_cp_2014(), vda_limits()).value()); }},
    {"chunk/rsync/block_length", 0, iterations / 10, [](const entry& e) { run_rsync_block_length(e); }},
    {"chunk/rsync/make_and_decide", 0, iterations / 10, [](const entry& e) { run_chunk_rsync(e); }},
};

}  // namespace

int main(int argc, char** argv) {
    if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
        std::printf("callgrind-requests %s\n", PROVPOL_BENCH_CALLGRIND ? "yes" : "no");
#if defined(__clang__)
        std::printf("compiler clang %s\n", __clang_version__);
#elif defined(__GNUC__)
        std::printf("compiler g++ %s\n", __VERSION__);
#endif
#ifdef PROVPOL_BENCH_FLAGS
        std::printf("flags %s\n", PROVPOL_BENCH_FLAGS);  // the build passes its flags, for the record
#endif
        for (const entry& e : entries) std::printf("entry %s %u %zu\n", e.name, e.budget, e.iterations);
        return 0;
    }
    if (argc != 1) {
        std::fprintf(stderr, "usage: %s [--list]\n", argv[0]);
        return 2;
    }
    for (const entry& e : entries) e.run(e);
    return 0;
}
