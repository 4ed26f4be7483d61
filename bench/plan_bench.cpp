// The planner's costs: a full `provpol plan` of 8 rates x 1000 seeded runs of 50 GiB (the target: well
// under a second), one simulated run, `recommend` (the analytic inversion), and the rate-aware agent's runs.
#include <provpol/flow/latency.hpp>
#include <provpol/flow/risk.hpp>
#include <provpol/simulate.hpp>
#include <provpol/simulate/rate_aware.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>

namespace {

using namespace provpol;

constexpr std::uint64_t mib = std::uint64_t{1} << 20;

// 8 rates x `runs` runs, 50 GiB each, one static configuration: what `provpol plan --preset vdsm-legacy` does,
// under the flow model (targets: 1000 runs well under a second, 10,000 runs under 1 s).
void bm_plan_8_rates(benchmark::State& state, std::uint32_t runs) {
    const latency_model latency = vdsm_polling_2022_latency();
    const static_agent<vdsm_policy> agent(vdsm_legacy());
    const std::uint64_t rates[] = {75, 100, 125, 150, 200, 300, 400, 500};
    std::uint64_t seed = 1;
    for (auto _ : state) {
        double pauses = 0.0;
        for (std::uint64_t r : rates) {
            const workload w = workload::make(bytes(50 * 1024 * mib), rate(r * mib), bytes(100 * 1024 * mib)).value();
            pauses += simulate(agent, latency, w, runs, seed).pauses;
        }
        benchmark::DoNotOptimize(pauses);
        ++seed;  // other random numbers every iteration
    }
    state.counters["runs_per_s"] =
        benchmark::Counter(static_cast<double>(state.iterations()) * 8.0 * runs, benchmark::Counter::kIsRate);
}
void bm_plan_8_rates_1000_runs(benchmark::State& state) { bm_plan_8_rates(state, 1000); }
BENCHMARK(bm_plan_8_rates_1000_runs)->Unit(benchmark::kMillisecond);
void bm_plan_8_rates_10000_runs(benchmark::State& state) { bm_plan_8_rates(state, 10000); }
BENCHMARK(bm_plan_8_rates_10000_runs)->Unit(benchmark::kMillisecond);

// Simulated runs of 50 GiB at `mib_s` MiB/s with `agent`, one per iteration, each with its own seed.
template <class Agent>
void simulate_runs(benchmark::State& state, const Agent& agent, const latency_model& latency, std::uint64_t mib_s) {
    const workload w = workload::make(bytes(50 * 1024 * mib), rate(mib_s * mib), bytes(100 * 1024 * mib)).value();
    std::uint64_t seed = 0;
    for (auto _ : state) {
        auto r = simulate_run(agent, latency, w, seed++);
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations());
}

// One simulated run of 50 GiB at 100 MiB/s (50 extends, 256 monitor wake-ups), under the flow model (issue:
// at least 200,000 runs/s).
void bm_simulate_one_run(benchmark::State& state) {
    const latency_model latency = vdsm_polling_2022_latency();
    simulate_runs(state, static_agent<vdsm_policy>(vdsm_legacy()), latency, 100);
}
BENCHMARK(bm_simulate_one_run)->Unit(benchmark::kMicrosecond);

// The same with the flow model's own type (no run-time dispatch through latency_model).
void bm_simulate_one_run_flow_type(benchmark::State& state) {
    const flow_latency latency = vdsm_polling_2022_latency();
    const workload w = workload::make(bytes(50 * 1024 * mib), rate(100 * mib), bytes(100 * 1024 * mib)).value();
    const static_agent<vdsm_policy> agent(vdsm_legacy());
    std::uint64_t seed = 0;
    for (auto _ : state) {
        auto r = simulate_run(agent, latency, w, seed++);
        benchmark::DoNotOptimize(r);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_simulate_one_run_flow_type)->Unit(benchmark::kMicrosecond);

// The same under the independent-waits model, for comparison with the flow.
void bm_simulate_one_run_independent(benchmark::State& state) {
    const latency_model latency = vdsm_polling_2022_independent_latency();
    simulate_runs(state, static_agent<vdsm_policy>(vdsm_legacy()), latency, 100);
}
BENCHMARK(bm_simulate_one_run_independent)->Unit(benchmark::kMicrosecond);

// The same at 500 MiB/s with the rate-aware agent (its estimator observes every wake-up).
void bm_simulate_one_run_rate_aware(benchmark::State& state) {
    const latency_model latency = vdsm_polling_2022_latency();
    const rate_aware_agent agent(
        make_rate_aware_policy(vdsm_legacy().trigger().config, latency_budget(latency, 1.0)).value());
    simulate_runs(state, agent, latency, 500);
}
BENCHMARK(bm_simulate_one_run_rate_aware)->Unit(benchmark::kMicrosecond);

// `provpol recommend` without its simulated check: the quantile inversion and the configuration.
void bm_recommend(benchmark::State& state) {
    const latency_model latency = vdsm_polling_2022_latency();
    std::uint64_t r = 100;
    for (auto _ : state) {
        auto rec = recommend_vdsm(rate(r * mib), latency, 0.01, 20);
        benchmark::DoNotOptimize(rec);
        r = r == 2000 ? 100 : r + 1;
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_recommend)->Unit(benchmark::kMicrosecond);

// The closed-form tail probability the planner and risk model evaluate.
void bm_exceed_probability(benchmark::State& state) {
    const pipeline_latency latency = vdsm_polling_2022_independent_latency();
    double t = 0.5;
    for (auto _ : state) {
        benchmark::DoNotOptimize(latency.exceed_probability(seconds(t)));
        t = t > 6.9 ? 0.5 : t + 0.001;
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bm_exceed_probability);

}  // namespace

BENCHMARK_MAIN();
