// Parsing and printing sizes: what the CLI does per CSV field and what an agent does per config value.
#include <provpol/parse.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <string>

namespace {

void bm_parse_size(benchmark::State& state) {
    const std::array<std::string, 8> inputs = {
        "512MiB", "2.5GiB", "1048576", "10737418240", "2560MiB", "1.125GiB", "18446744073709551615", "128KiB"};
    std::size_t i = 0;
    for (auto _ : state) {
        auto r = provpol::parse_size(inputs[i++ & 7]);
        benchmark::DoNotOptimize(r);
    }
}
BENCHMARK(bm_parse_size);

void bm_format_size(benchmark::State& state) {
    std::uint64_t v = 2684354560ULL;
    for (auto _ : state) {
        auto t = provpol::format_size(provpol::bytes(v));
        benchmark::DoNotOptimize(t);
        v += 1048576;
    }
}
BENCHMARK(bm_format_size);

}  // namespace

BENCHMARK_MAIN();
