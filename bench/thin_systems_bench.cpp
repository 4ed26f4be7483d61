// The decisions of Stratis, Docker's devicemapper driver and XenServer's thin LVHD (docs/thin-systems.md): one
// decision per iteration over a table of varied inputs the compiler cannot see (bench/README.md).
#include <provpol/extend.hpp>
#include <provpol/random.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace {

using provpol::bytes;

constexpr std::size_t table_size = 4096;

void add_statistics(benchmark::internal::Benchmark* b) {
    b->ComputeStatistics("min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); });
}

// Pools of 1 GiB to 1 TiB, any fill, metadata of 16 to 1040 MiB near its mark, backstores up to 2 TiB free.
std::vector<provpol::stratis_pool_state> stratis_pools() {
    provpol::detail::xoshiro256 rng(1);
    std::vector<provpol::stratis_pool_state> t(table_size);
    for (auto& s : t) {
        s.data_size = bytes((1 + rng.below(1024)) << 30);
        s.data_used = provpol::blocks(rng.below((s.data_size.count() >> 20) + 1));
        s.metadata_size = bytes((16 + rng.below(1024)) << 20);
        s.metadata_used = provpol::blocks((s.metadata_size.count() >> 12) - rng.below(2048));
        s.metadata_low_water = provpol::blocks(1024);
        s.available = bytes(rng.below(std::uint64_t{2} << 40));
    }
    return t;
}

void bm_stratis_check(benchmark::State& state) {
    const auto t = stratis_pools();
    const provpol::stratis_config c = provpol::stratis_data();
    std::size_t i = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(provpol::decide_stratis_check(c, t[i]));
        i = (i + 1) % table_size;
    }
}
BENCHMARK(bm_stratis_check)->Apply(add_statistics);

void bm_stratis_filesystem(benchmark::State& state) {
    provpol::detail::xoshiro256 rng(2);
    std::vector<provpol::stratis_filesystem_state> t(table_size);
    for (auto& s : t) {
        s.thin_size = bytes((1 + rng.below(4096)) << 30);
        s.fs_size = s.thin_size;
        s.fs_used = bytes(rng.below(s.thin_size.count()));
        if (rng.below(2) == 0) s.size_limit = s.thin_size + bytes(rng.below(std::uint64_t{1} << 40));
    }
    std::size_t i = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(provpol::decide_stratis_filesystem(t[i]));
        i = (i + 1) % table_size;
    }
}
BENCHMARK(bm_stratis_filesystem)->Apply(add_statistics);

void bm_docker_free_space(benchmark::State& state) {
    provpol::detail::xoshiro256 rng(3);
    std::vector<provpol::docker_pool_status> status(table_size);
    for (auto& s : status) {
        const std::uint64_t total = 1 + rng.below(std::uint64_t{1} << 24), used = rng.below(total + 1);
        s.data_used = provpol::blocks(used);
        s.data_total = provpol::blocks(total);
        s.metadata_used = provpol::blocks(used >> 8);
        s.metadata_total = provpol::blocks(total >> 8);
    }
    const provpol::docker_devmapper_config c = provpol::docker_devmapper_defaults();
    std::size_t i = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(provpol::docker_pool_has_free_space(c, status[i]));
        i = (i + 1) % table_size;
    }
}
BENCHMARK(bm_docker_free_space)->Apply(add_statistics);

void bm_xenserver_sizes(benchmark::State& state) {
    provpol::detail::xoshiro256 rng(4);
    std::vector<bytes> physical(table_size), virtual_size(table_size);
    for (std::size_t k = 0; k < table_size; ++k) {
        physical[k] = bytes((1 + rng.below(std::uint64_t{1} << 20)) << 20);
        virtual_size[k] = bytes(rng.below(std::uint64_t{2} << 40));
    }
    std::size_t i = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(provpol::xenserver_allocation_quantum(physical[i]));
        benchmark::DoNotOptimize(provpol::xenserver_vdi_lv_size(virtual_size[i]));
        benchmark::DoNotOptimize(provpol::xenserver_host_pool(physical[i]));
        i = (i + 1) % table_size;
    }
}
BENCHMARK(bm_xenserver_sizes)->Apply(add_statistics);

}  // namespace

BENCHMARK_MAIN();
