// Tests of provpol/domain.hpp's max_writers: the largest number of concurrent writers under a per-VM target,
// checked through simulate_domain itself (the answer meets the target and one more writer misses it), its edges
// (0 writers, every drive), and its determinism.
#include "test_support.hpp"

#include <provpol/domain.hpp>
#include <provpol/domain/capacity.hpp>
#include <provpol/flow/latency.hpp>
#include <provpol/simulate.hpp>
#include <provpol/simulate/rate_aware.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

using namespace provpol;
using namespace provpol::literals;

namespace {

// The target's pause quantile over the writing VMs of `runs` domains, computed here from simulate_domain's
// per-drive results (not through check_writers).
template <class Agent>
std::uint32_t quantile_by_hand(const domain_config& cfg, const latency_model& l, const Agent& agent, const workload& w,
                               double q, std::uint32_t writers, std::uint32_t runs, std::uint64_t seed) {
    run_accumulator acc;
    for (std::uint32_t k = 0; k < runs; ++k) {
        const auto r = simulate_domain(
            cfg, l, [&agent](std::uint32_t) noexcept { return agent; },
            [&](std::uint32_t d) noexcept {
                return cfg.is_writer(d, writers) ? drive_workload::make(w).value() : drive_workload::idle(w);
            },
            seed, std::uint64_t{k} * cfg.drives());
        REQUIRE(r.has_value());
        for (std::uint32_t d = 0; d < r->drives(); ++d)
            if (cfg.is_writer(d, writers)) acc.add(r->drive(d).run);
    }
    return acc.pauses_quantile(q);
}

template <class Agent>
void check_answer(const domain_config& cfg, const latency_model& l, const Agent& agent, const workload& w,
                  per_vm_target t, std::uint32_t runs, std::uint64_t seed) {
    const auto m = max_writers(
        cfg, l, [&agent](std::uint32_t) noexcept { return agent; }, w, t, runs, seed);
    REQUIRE(m.has_value());
    CAPTURE(m->writers);
    CHECK(m->evaluations >= 1);
    if (m->writers > 0) {
        CHECK(quantile_by_hand(cfg, l, agent, w, t.vm_quantile, m->writers, runs, seed) <= t.max_pauses_per_run);
        CHECK(m->at_max.writers == m->writers);
        CHECK(m->at_max.met);
    } else {
        CHECK(quantile_by_hand(cfg, l, agent, w, t.vm_quantile, 1, runs, seed) > t.max_pauses_per_run);
    }
    if (m->writers < cfg.drives())
        CHECK(quantile_by_hand(cfg, l, agent, w, t.vm_quantile, m->writers + 1, runs, seed) > t.max_pauses_per_run);
}

}  // namespace

TEST_CASE("max_writers: the answer meets the target and one more writer misses it") {
    const domain_config cfg = domain_config::make(4, 8, 1e8_s).value();
    const latency_model l = latency_profile("vdsm-polling-2022").value();
    const auto agent = static_agent<vdsm_policy>(vdsm_2022());
    const workload w = workload::make(10_GiB, rate(std::uint64_t{500} << 20), 20_GiB).value();
    for (std::uint32_t pauses : {0u, 1u, 2u, 4u})
        for (double q : {0.5, 0.9, 0.99}) {
            CAPTURE(pauses);
            CAPTURE(q);
            check_answer(cfg, l, agent, w, per_vm_target::make(pauses, q).value(), 1, 1);
        }
    // Several runs per count, another seed, the events flow.
    check_answer(cfg, latency_profile("vdsm-mailbox-events").value(), agent, w, per_vm_target::make(1, 0.9).value(), 3,
                 7);
}

TEST_CASE("max_writers: 0 when one writer misses the target, every drive when all of them meet it") {
    const domain_config cfg = domain_config::make(2, 3, 1e8_s).value();
    const latency_model l = latency_profile("vdsm-polling-2022").value();
    const auto agent = static_agent<vdsm_policy>(vdsm_2022());
    // 50 GiB at 500 MiB/s: a lone vdsm-2022 writer pauses 3 times; never 0 times.
    const workload fast = workload::make(50_GiB, rate(std::uint64_t{500} << 20), 100_GiB).value();
    const auto none = max_writers(
        cfg, l, [&agent](std::uint32_t) noexcept { return agent; }, fast, per_vm_target::make(0, 1.0).value(), 1, 1);
    REQUIRE(none.has_value());
    CHECK(none->writers == 0);
    CHECK(none->evaluations == 1);
    CHECK(none->at_max.pauses_p99 == 0.0);
    // 1 GiB at 10 MiB/s: nobody pauses.
    const workload slow = workload::make(1_GiB, rate(std::uint64_t{10} << 20), 2_GiB).value();
    const auto all = max_writers(
        cfg, l, [&agent](std::uint32_t) noexcept { return agent; }, slow, per_vm_target::make(0, 1.0).value(), 1, 1);
    REQUIRE(all.has_value());
    CHECK(all->writers == cfg.drives());
    CHECK(all->at_max.pauses_p99 == 0.0);
    check_answer(cfg, l, agent, slow, per_vm_target::make(0, 1.0).value(), 1, 1);
}

TEST_CASE("max_writers: the rate-aware agent, deterministic, and its errors") {
    const domain_config cfg = domain_config::make(3, 4, 1e8_s).value();
    const latency_model l = latency_profile("vdsm-polling-2022").value();
    const auto policy = make_rate_aware_policy(vdsm_config::make(1024, 50).value(), latency_budget(l, 1.0)).value();
    const rate_aware_agent agent(policy);
    const workload w = workload::make(10_GiB, rate(std::uint64_t{400} << 20), 20_GiB).value();
    const per_vm_target t = per_vm_target::make(1, 0.99).value();
    check_answer(cfg, l, agent, w, t, 2, 3);
    const auto a = max_writers(
        cfg, l, [&agent](std::uint32_t) noexcept { return agent; }, w, t, 2, 3);
    const auto b = max_writers(
        cfg, l, [&agent](std::uint32_t) noexcept { return agent; }, w, t, 2, 3);
    REQUIRE(a.has_value());
    REQUIRE(b.has_value());
    CHECK(a->writers == b->writers);
    CHECK(a->at_max.latency_p99 == b->at_max.latency_p99);
    CHECK(a->at_max.spm_utilization == b->at_max.spm_utilization);
    CHECK_FALSE(max_writers(
                    cfg, l, [&agent](std::uint32_t) noexcept { return agent; }, w, t, 0, 3)
                    .has_value());
    CHECK_FALSE(
        max_writers(
            cfg, latency_profile("fixed:3").value(), [&agent](std::uint32_t) noexcept { return agent; }, w, t, 1, 3)
            .has_value());
}

TEST_CASE("max_writers: the rate-aware agent adapting to the load, and the goal it was built for") {
    // 50 GiB at 500 MiB/s per writer, all starting together, 99% of VMs at most 1 pause: under the events flow the
    // adapting agent over the vdsm-2022 floor holds at least twice the writers vdsm-2022 holds; under the polling
    // flow vdsm-2022 holds none (one writer alone pauses 3 times) and the adapting agent holds some.
    const domain_config cfg = domain_config::make(10, 20, 1e8_s).value();
    const workload w = workload::make(50_GiB, rate(std::uint64_t{500} << 20), 100_GiB).value();
    const per_vm_target t = per_vm_target::make(1, 0.99).value();
    for (const char* name : {"vdsm-mailbox-events", "vdsm-polling-2022"}) {
        CAPTURE(name);
        const latency_model l = latency_profile(name).value();
        const adaptive_rate_aware_agent adapting(
            make_rate_aware_policy(vdsm_2022().trigger().config, latency_budget(l, 1.0)).value(),
            load_adaptation::make().value());
        const rate_aware_agent fixed(
            make_rate_aware_policy(vdsm_2022().trigger().config, latency_budget(l, 1.0)).value());
        const auto static_2022 = static_agent<vdsm_policy>(vdsm_2022());
        const auto cap = [&](const auto& agent) {
            const auto m = max_writers(
                cfg, l, [&agent](std::uint32_t) noexcept { return agent; }, w, t, 3, 1);
            REQUIRE(m.has_value());
            return m->writers;
        };
        const std::uint32_t a = cap(adapting), f = cap(fixed), s = cap(static_2022);
        CAPTURE(a);
        CAPTURE(f);
        CAPTURE(s);
        CHECK(a >= 2 * s);
        CHECK(a > f);  // the adaptation, not the floor, makes the difference
        CHECK(a >= 8);
        check_answer(cfg, l, adapting, w, t, 3, 1);
    }
}

TEST_CASE("search_max_writers: doubling then bisection over any check, each count once") {
    // A check made up here: met up to `limit` writers (monotone), or a non-monotone pattern; the answer is a count
    // that meets the target while the next one misses it, found in at most 2 log2(drives) + 2 checks.
    const auto search = [](std::uint32_t drives, auto met) {
        std::vector<std::uint32_t> asked;
        const auto r = search_max_writers(drives, [&](std::uint32_t n) -> result<writers_check> {
            asked.push_back(n);
            writers_check c;
            c.writers = n;
            c.met = met(n);
            c.pauses_p99 = n;  // a figure to carry to at_max
            return c;
        });
        REQUIRE(r.has_value());
        CHECK(r->evaluations == asked.size());
        std::vector<std::uint32_t> sorted = asked;
        std::sort(sorted.begin(), sorted.end());
        CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());  // no count twice
        for (std::uint32_t n : asked) CHECK((n >= 1 && n <= drives));
        return std::make_pair(*r, asked);
    };
    for (const std::uint32_t limit : {1u, 2u, 13u, 39u, 40u}) {
        const auto [r, asked] = search(40, [limit](std::uint32_t n) { return n <= limit; });
        CAPTURE(limit);
        CHECK(r.writers == limit);
        CHECK(r.at_max.writers == limit);
        CHECK(r.at_max.pauses_p99 == limit);
        CHECK(asked.size() <= 2 * 6 + 2);  // 2 ceil(log2(41)) + 2
    }
    // 13: doubling 1, 2, 4, 8, 16 (misses), then bisection 12, 14, 13.
    CHECK(search(40, [](std::uint32_t n) { return n <= 13; }).second ==
          std::vector<std::uint32_t>{1, 2, 4, 8, 16, 12, 14, 13});
    // None: one check. Every drive: doubling to 32, then 40.
    CHECK(search(40, [](std::uint32_t) { return false; }).first.writers == 0);
    CHECK(search(40, [](std::uint32_t) { return false; }).second.size() == 1);
    CHECK(search(40, [](std::uint32_t) { return true; }).second == std::vector<std::uint32_t>{1, 2, 4, 8, 16, 32, 40});
    // Not monotone (met at 1-5 and 9-11): the answer meets the target and the next count misses it.
    const auto odd = [](std::uint32_t n) { return n <= 5 || (n >= 9 && n <= 11); };
    const auto r = search(40, odd).first;
    CHECK(odd(r.writers));
    CHECK(!odd(r.writers + 1));
    // An error from the check is the search's.
    const auto e = search_max_writers(10, [](std::uint32_t n) -> result<writers_check> {
        if (n == 4) return unexpected(error::unsupported("domain", "out of memory"));
        writers_check c;
        c.writers = n;
        c.met = true;
        return c;
    });
    REQUIRE(!e.has_value());
    CHECK(e.error().setting() == text_view("domain"));
}

// A review found: 0 domain runs reported "met".
TEST_CASE("check_writers: 0 runs is an error, not a met target") {
    const domain_config cfg = domain_config::make(1, 2).value();
    const latency_model l = vdsm_immediate_latency();
    const static_agent<vdsm_policy> agent(vdsm_2022());
    const workload w = workload::make(1_GiB, rate(std::uint64_t{100} << 20), 2_GiB).value();
    const auto agents = [&agent](std::uint32_t) noexcept { return agent; };
    const auto r = check_writers(cfg, l, agents, w, per_vm_target::make(1000, 0.5).value(), 1, 0, 1);
    REQUIRE_FALSE(r.has_value());
    CHECK(std::string(r.error().message().view()).find("runs") != std::string::npos);
    CHECK(check_writers(cfg, l, agents, w, per_vm_target::make(1000, 0.5).value(), 1, 1, 1)->met);
}
