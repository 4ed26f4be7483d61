// Policies and models are immutable values: many threads may decide from the same one at once. This test runs
// the decision paths from 8 threads sharing one policy, one latency model and one agent, compares every
// answer with the single-threaded one, and runs under ThreadSanitizer in CI (the tsan workflow preset).
#include "test_support.hpp"

#include <provpol/provpol.hpp>

#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

using namespace provpol;
using namespace provpol::literals;

namespace {

struct drives {
    std::vector<drive_state> all;
    explicit drives(std::size_t n) {
        detail::xoshiro256 rng(12);
        for (std::size_t i = 0; i < n; ++i) {
            drive_state s{bytes((1 + rng.below(4096)) << 28), bytes(rng.below(1ULL << 40)),
                          bytes(rng.below(1ULL << 40))};
            s.replicating = (i % 7) == 0;
            s.write_rate = rate(rng.below(2000ULL << 20));
            all.push_back(s);
        }
    }
};

template <class F>
void in_threads(F&& work) {
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) threads.emplace_back([&work, t] { work(t); });
    for (auto& th : threads) th.join();
}

}  // namespace

TEST_CASE("extend policies decide from many threads at once") {
    const drives in(20000);
    const vdsm_policy vdsm = vdsm_2022();
    const lvm_thin_policy lvm = lvm_thin_autoextend();
    const rate_aware_policy ra = make_rate_aware_policy(vdsm_legacy().trigger().config, 6900).value();
    std::vector<extend_decision> want_v, want_l, want_r;
    for (const auto& s : in.all) {
        want_v.push_back(vdsm.decide(s));
        want_l.push_back(lvm.decide(s));
        want_r.push_back(ra.decide(s));
    }
    std::atomic<int> mismatches{0};
    in_threads([&](int t) {
        for (std::size_t i = static_cast<std::size_t>(t); i < in.all.size(); i += 3) {
            if (!(vdsm.decide(in.all[i]) == want_v[i])) ++mismatches;
            if (!(lvm.decide(in.all[i]) == want_l[i])) ++mismatches;
            if (!(ra.decide(in.all[i]) == want_r[i])) ++mismatches;
        }
    });
    CHECK(mismatches.load() == 0);
}

TEST_CASE("latency models, risk and the simulator are shared read-only") {
    const latency_model l = vdsm_polling_2022_latency();
    const static_agent<vdsm_policy> agent(vdsm_legacy());
    const workload w = workload::make(5_GiB, rate(150ULL << 20), 10_GiB).value();
    const simulation_summary want = simulate(agent, l, w, 50, 3);
    const double want_q = l.quantile(0.99);
    std::atomic<int> mismatches{0};
    in_threads([&](int) {
        const simulation_summary got = simulate(agent, l, w, 50, 3);
        if (got.pauses != want.pauses || got.extends != want.extends || got.pause_seconds != want.pause_seconds)
            ++mismatches;
        if (l.quantile(0.99) != want_q) ++mismatches;
        if (pause_probability(512_MiB, rate(150ULL << 20), l) != l.exceed_probability(512.0 / 150.0)) ++mismatches;
    });
    CHECK(mismatches.load() == 0);
}

TEST_CASE("parsers from many threads") {
    const std::vector<std::string> texts = {"512MiB", "2.5GiB", "4k", "18446744073709551616", "400MiB/s", "1.5KiB"};
    std::atomic<int> mismatches{0};
    in_threads([&](int) {
        for (int round = 0; round < 2000; ++round) {
            for (const auto& t : texts) {
                const auto a = parse_size(t);
                const auto b = parse_size(t);
                if (a.has_value() != b.has_value() || (a && *a != *b)) ++mismatches;
                if (!a && a.error().message().view() != b.error().message().view()) ++mismatches;
            }
        }
    });
    CHECK(mismatches.load() == 0);
}
