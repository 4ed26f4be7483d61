// Policies and models are immutable values: many threads may decide from the same one at once. This test runs
// the decision paths from 8 threads sharing one policy, one latency model and one agent, compares every
// answer with the single-threaded one, and runs under ThreadSanitizer in CI (the tsan workflow preset).
#include "test_support.hpp"

#include <provpol/models.hpp>

#include "cli/parallel.hpp"  // the CLI's --jobs threads (examples/cli): header-only, no CLI dependency

#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <stdexcept>
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
            drive_state s{drive_capacity(bytes((1 + rng.below(4096)) << 28)),
                          drive_physical(bytes(rng.below(1ULL << 40))), drive_allocation(bytes(rng.below(1ULL << 40)))};
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
    const rate_aware_policy ra = make_rate_aware_policy(vdsm_legacy().trigger().config, 6900_ms).value();
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
    const seconds want_q = l.quantile(0.99);
    std::atomic<int> mismatches{0};
    in_threads([&](int) {
        const simulation_summary got = simulate(agent, l, w, 50, 3);
        if (got.pauses != want.pauses || got.extends != want.extends || got.pause_seconds != want.pause_seconds)
            ++mismatches;
        if (l.quantile(0.99) != want_q) ++mismatches;
        if (pause_probability(512_MiB, rate(150ULL << 20), l) != l.exceed_probability(seconds(512.0 / 150.0)))
            ++mismatches;
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

// provpol plan and capacity --jobs (examples/cli/parallel.hpp): runs computed on several threads and added up in
// run order give the single-threaded numbers bit for bit, however many threads and however the runs are windowed.
TEST_CASE("ordered_parallel: runs on many threads, added up in run order, are simulate()'s numbers exactly") {
    const latency_model l = vdsm_polling_2022_latency();
    const rate_aware_agent agent(make_rate_aware_policy(vdsm_legacy().trigger().config, 6900_ms).value());
    const workload w = workload::make(5_GiB, rate(300ULL << 20), 10_GiB).value();
    const std::uint32_t runs = 700;
    const simulation_summary want = simulate(agent, l, w, runs, 5);
    REQUIRE(want.pauses > 0.0);  // something to add up
    for (const unsigned jobs : {1u, 2u, 3u, 8u}) {
        for (const std::uint64_t window : {std::uint64_t{1}, std::uint64_t{64}, std::uint64_t{1000}}) {
            run_accumulator acc;
            std::uint64_t expected_next = 0;
            bool in_order = true;
            cli::ordered_parallel(
                runs, jobs, window,
                [&](std::uint64_t i) {
                    run_result out;
                    simulate_each(agent, l, w, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i + 1), 5,
                                  [&out](std::uint32_t, const run_result& r) { out = r; });
                    return out;
                },
                [&](std::uint64_t i, const run_result& r) {
                    in_order = in_order && i == expected_next++;
                    acc.add(r);
                },
                [](std::uint64_t, std::uint64_t) {});
            const simulation_summary got = acc.summary();
            CAPTURE(jobs);
            CAPTURE(window);
            CHECK(in_order);
            CHECK(got.runs == runs);
            // Exact equality on purpose: the same sums in the same order.
            CHECK(got.pauses == want.pauses);
            CHECK(got.pause_seconds == want.pause_seconds);
            CHECK(got.duration == want.duration);
            CHECK(got.unwritten == want.unwritten);
            CHECK(got.pauses_p99 == want.pauses_p99);
        }
    }
}

TEST_CASE("ordered_parallel: domain runs on many threads give check_writers' figures exactly") {
    const latency_model l = vdsm_polling_2022_latency();
    const static_agent<vdsm_policy> agent(vdsm_2022());
    const workload w = workload::make(5_GiB, rate(500ULL << 20), 10_GiB).value();
    const domain_config cfg = domain_config::make(3, 4).value();
    const std::uint32_t writers = 7, runs = 4;
    const auto make_agent = [&agent](std::uint32_t) noexcept { return agent; };
    const writers_check want =
        check_writers(cfg, l, make_agent, w, per_vm_target::make(1, 0.99).value(), writers, runs, 9).value();
    const drive_workload writing{w, 0.0_s, 0.0_s, 0.0_s, true};
    const drive_workload idle = drive_workload::idle(w);
    for (const unsigned jobs : {1u, 3u}) {
        run_accumulator acc;
        seconds latency_p99{};
        double spm = 0.0;
        cli::ordered_parallel(
            runs, jobs, 2,
            [&](std::uint64_t k) {
                return simulate_domain(
                           cfg, l, make_agent,
                           [&](std::uint32_t d) noexcept { return cfg.is_writer(d, writers) ? writing : idle; }, 9,
                           k * cfg.drives())
                    .value();
            },
            [&](std::uint64_t, domain_result&& r) {
                for (std::uint32_t d = 0; d < r.drives(); ++d)
                    if (cfg.is_writer(d, writers)) acc.add(r.drive(d).run);
                latency_p99 += r.summary().latency_p99 / runs;
                spm += r.summary().spm_utilization / runs;
            },
            [](std::uint64_t, std::uint64_t) {});
        CAPTURE(jobs);
        CHECK(acc.summary().runs == writers * runs);
        CHECK(acc.summary().pauses_p99 == want.pauses_p99);
        CHECK(latency_p99 == want.latency_p99);
        CHECK(spm == want.spm_utilization);
    }
}

TEST_CASE("parallel_for: the exception of the smallest index that threw, whatever the threads") {
    for (const unsigned jobs : {1u, 2u, 8u}) {
        std::vector<std::atomic<int>> ran(1000);
        std::optional<std::string> caught;
        try {
            cli::parallel_for(
                ran.size(), jobs,
                [&](std::size_t i) {
                    ++ran[i];
                    if (i == 7 || i == 500 || i == 900) throw std::runtime_error("task " + std::to_string(i));
                },
                [](std::size_t) {});
        } catch (const std::runtime_error& e) {
            caught = e.what();
        }
        CAPTURE(jobs);
        REQUIRE(caught.has_value());
        CHECK(*caught == "task 7");
        // Every index below the one that threw ran, once; none ran twice.
        bool below = true, once = true;
        for (std::size_t i = 0; i < ran.size(); ++i) {
            below = below && (i > 7 || ran[i].load() == 1);
            once = once && ran[i].load() <= 1;
        }
        CHECK(below);
        CHECK(once);
    }
    // No tasks, and more threads than tasks.
    int count = 0;
    cli::parallel_for(
        0, 4, [&](std::size_t) { ++count; }, [](std::size_t) {});
    std::atomic<int> few{0};
    cli::parallel_for(
        3, 16, [&](std::size_t) { ++few; }, [](std::size_t) {});
    CHECK(count == 0);
    CHECK(few.load() == 3);
}
