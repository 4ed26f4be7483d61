// The domain simulator's cost (the target: 1,000 drives writing for an hour of simulated time, under 1 s on one
// core): 50 hosts x 20 drives, every drive writing for 3600 s, under the polling flow, with static VDSM agents
// at a load the SPM holds and at one it does not, with rate-aware agents, and with both in one domain.
#include <provpol/domain.hpp>
#include <provpol/flow/latency.hpp>
#include <provpol/simulate/either_agent.hpp>
#include <provpol/simulate/rate_aware.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>

namespace {

using namespace provpol;

constexpr std::uint64_t mib = std::uint64_t{1} << 20;

// 1000 drives, each writing `mib_s` MiB/s for an hour (4 TiB to write: none finishes), one run per iteration.
// Staggered: drive d starts at d x `stagger` seconds (0: all at once, a boot storm whose first extends all
// arrive together).
// Drive d's agent is make_agent(d).
template <class MakeAgent>
void domain_hour_of(benchmark::State& state, MakeAgent make_agent, const flow_latency& latency, std::uint64_t mib_s,
                    double stagger) {
    const domain_config cfg = domain_config::make(50, 20, 3600.0_s).value();
    const workload w =
        workload::make(bytes(4 * 1024 * 1024 * mib), rate(mib_s * mib), bytes(4 * 1024 * 1024 * mib)).value();
    std::uint64_t seed = 1;
    double extends = 0.0, utilization = 0.0, p99 = 0.0;
    for (auto _ : state) {
        const auto r = simulate_domain(
            cfg, latency, make_agent,
            [&w, stagger](std::uint32_t d) noexcept { return drive_workload::make(w, seconds(d * stagger)).value(); },
            seed++);
        benchmark::DoNotOptimize(r);
        extends = static_cast<double>(r->summary().extends);
        utilization = r->summary().spm_utilization;
        p99 = r->summary().latency_p99.count();
    }
    state.counters["extends"] = extends;
    state.counters["spm_utilization"] = utilization;
    state.counters["latency_p99_s"] = p99;
}

template <class Agent>
void domain_hour(benchmark::State& state, const Agent& agent, const flow_latency& latency, std::uint64_t mib_s,
                 double stagger) {
    domain_hour_of(
        state, [&agent](std::uint32_t) noexcept { return agent; }, latency, mib_s, stagger);
}

// vdsm-2022 at 4 MiB/s per drive: 1000 x 4 MiB/s / 2.5 GiB = 1.6 extends/s, within the SPM's ~3 per second;
// the starts spread over one extend cycle (640 s).
void bm_domain_1000_drives_hour_held(benchmark::State& state) {
    domain_hour(state, static_agent<vdsm_policy>(vdsm_2022()), vdsm_polling_2022_latency(), 4, 0.64);
}

// The same drives all starting at once: their first extends arrive together and wait minutes for the VG lock.
void bm_domain_1000_drives_hour_boot_storm(benchmark::State& state) {
    domain_hour(state, static_agent<vdsm_policy>(vdsm_2022()), vdsm_polling_2022_latency(), 4, 0.0);
}
BENCHMARK(bm_domain_1000_drives_hour_boot_storm)->Unit(benchmark::kMillisecond);
BENCHMARK(bm_domain_1000_drives_hour_held)->Unit(benchmark::kMillisecond);

// vdsm-2022 at 100 MiB/s per drive: 40 extends/s asked of an SPM that serves ~3; the guests mostly wait.
void bm_domain_1000_drives_hour_overloaded(benchmark::State& state) {
    domain_hour(state, static_agent<vdsm_policy>(vdsm_2022()), vdsm_polling_2022_latency(), 100, 0.64);
}
BENCHMARK(bm_domain_1000_drives_hour_overloaded)->Unit(benchmark::kMillisecond);

// Rate-aware agents (vdsm-legacy floor, the flow's 0.99 quantile as budget) at 4 MiB/s per drive.
void bm_domain_1000_drives_hour_rate_aware(benchmark::State& state) {
    const flow_latency l = vdsm_polling_2022_latency();
    const rate_aware_agent agent(
        make_rate_aware_policy(vdsm_legacy().trigger().config, latency_budget(l, 0.99)).value());
    domain_hour(state, agent, l, 4, 0.64);
}
BENCHMARK(bm_domain_1000_drives_hour_rate_aware)->Unit(benchmark::kMillisecond);

// Both in one domain (either_agent, as `provpol plan --hosts ... --mix` runs it): even drives static vdsm-2022,
// odd drives rate-aware, at 4 MiB/s per drive.
void bm_domain_1000_drives_hour_mixed(benchmark::State& state) {
    const flow_latency l = vdsm_polling_2022_latency();
    using mixed = either_agent<static_agent<vdsm_policy>, rate_aware_agent>;
    const mixed fixed{static_agent<vdsm_policy>(vdsm_2022())};
    const mixed aware{
        rate_aware_agent(make_rate_aware_policy(vdsm_legacy().trigger().config, latency_budget(l, 0.99)).value())};
    domain_hour_of(
        state, [&](std::uint32_t d) noexcept { return d % 2 == 0 ? fixed : aware; }, l, 4, 0.64);
}
BENCHMARK(bm_domain_1000_drives_hour_mixed)->Unit(benchmark::kMillisecond);

// Rate-aware agents adapting their budget to the latency they observe (vdsm-2022 floor, load_adaptation's
// defaults), all starting at once at 50 MiB/s per drive: 1000 x 50 MiB/s, far beyond what the SPM serves with
// vdsm-2022's chunks; the budgets grow with the queue.
void bm_domain_1000_drives_hour_adaptive_storm(benchmark::State& state) {
    const flow_latency l = vdsm_polling_2022_latency();
    const adaptive_rate_aware_agent agent(
        make_rate_aware_policy(vdsm_2022().trigger().config, latency_budget(l, 1.0)).value(),
        load_adaptation::make().value());
    domain_hour(state, agent, l, 50, 0.0);
}
BENCHMARK(bm_domain_1000_drives_hour_adaptive_storm)->Unit(benchmark::kMillisecond);

// The same 1000 drives under mailbox events (0.5 s polls and scans).
void bm_domain_1000_drives_hour_events(benchmark::State& state) {
    domain_hour(state, static_agent<vdsm_policy>(vdsm_2022()), vdsm_mailbox_events_latency(), 4, 0.64);
}
BENCHMARK(bm_domain_1000_drives_hour_events)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
