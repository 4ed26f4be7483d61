// Tests of provpol/domain.hpp: a domain of one drive is simulate_run, bit for bit; a drive whose requests meet no
// other's is too; the SPM's utilization is the extends it served times their service time over the elapsed time;
// the extend latency grows with the writers while the single-drive answer does not; same seed, same numbers.
#include "child_process.hpp"
#include "test_support.hpp"

#include <provpol/domain.hpp>
#include <provpol/flow/latency.hpp>
#include <provpol/simulate.hpp>
#include <provpol/simulate/rate_aware.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

using namespace provpol;
using namespace provpol::literals;

namespace {

rate mib_per_s(std::uint64_t n) { return rate(n << 20); }

workload make_workload(std::uint64_t mib_s, bytes written = 20_GiB) {
    return workload::make(written, mib_per_s(mib_s), written > 100_GiB ? written : 100_GiB).value();
}

void check_same(const run_result& d, const run_result& s) {
    CHECK(d.extends == s.extends);
    CHECK(d.resent == s.resent);
    CHECK(d.pauses == s.pauses);
    CHECK(d.pause_seconds == s.pause_seconds);  // exact: the same arithmetic on the same draws
    CHECK(d.duration == s.duration);
    CHECK(d.initial_size == s.initial_size);
    CHECK(d.final_physical == s.final_physical);
    CHECK(d.unwritten == s.unwritten);
    CHECK(d.truncated == s.truncated);
}

template <class Agent>
domain_result run_domain(const domain_config& cfg, const flow_latency& l, const Agent& agent, const workload& w,
                         std::uint32_t writers, std::uint64_t seed) {
    auto r = simulate_domain(
        cfg, l, [&agent](std::uint32_t) noexcept { return agent; },
        [&](std::uint32_t d) noexcept {
            return cfg.is_writer(d, writers) ? drive_workload::make(w).value() : drive_workload::idle(w);
        },
        seed);
    REQUIRE(r.has_value());
    return static_cast<domain_result&&>(*r);
}

// The polling flow with a fixed SPM service time, so that the lock's busy time is served x service exactly.
flow_latency polling_with_service(double service) {
    const flow_stage stages[] = {flow_stage::monitor("watermark monitor", 2.0_s),
                                 flow_stage::send("host mailbox send", 0.0_s, 0.0_s),
                                 flow_stage::clock("SPM mailbox scan", 2.0_s, 0.005_s),
                                 flow_stage::delay("lvextend under the VG lock", seconds(service), seconds(service)),
                                 flow_stage::reply_poll("host mailbox reply poll", 2.0_s),
                                 flow_stage::delay("host inbox read", 0.04_s, 0.15_s),
                                 flow_stage::delay("LV refresh", 0.15_s, 0.34_s)};
    return flow_latency::make(stages, 7).value();
}

// vdsm-mailbox-events whose requests stall one time in ten: 6 s more of lvextend (under the VG lock), or 9 s more of
// refresh (on the host).
flow_latency stalled_events() {
    flow_stall_case cases[2];
    cases[0].extra[3] = 6.0_s;
    cases[1].extra[7] = 9.0_s;
    return vdsm_mailbox_events_latency().with_stalls(0.1, cases, 2).value();
}

}  // namespace

TEST_CASE("a domain of one host and one drive is simulate_run, every field, bit for bit") {
    const domain_config one = domain_config::make(1, 1, 1e8_s).value();
    const flow_latency flows[] = {vdsm_polling_2022_latency(), vdsm_mailbox_events_latency(), vdsm_immediate_latency(),
                                  stalled_events()};
    const vdsm_policy policies[] = {vdsm_legacy(), vdsm_2022()};
    int compared = 0, paused_runs = 0;
    for (const flow_latency& l : flows)
        for (const vdsm_policy& p : policies)
            for (std::uint64_t mib_s : {50u, 125u, 300u, 600u})
                for (std::uint64_t seed = 1; seed <= 6; ++seed) {
                    const workload w = make_workload(mib_s);
                    const static_agent<vdsm_policy> agent(p);
                    const domain_result d = run_domain(one, l, agent, w, 1, seed);
                    const run_result s = simulate_run(agent, l, w, run_seed(seed, 0));
                    CAPTURE(mib_s);
                    CAPTURE(seed);
                    check_same(d.drive(0).run, s);
                    CHECK(d.drive(0).finished);
                    CHECK(d.summary().extends == s.extends);
                    paused_runs += s.pauses > 0 ? 1 : 0;
                    ++compared;
                }
    CHECK(compared == 192);
    CHECK(paused_runs > 20);  // the comparison covers pauses, not only quiet runs
}

TEST_CASE("the rate-aware agent: a domain of one drive is simulate_run") {
    // With one extend in flight by construction. With two (the agent's default) only while the drive's own two
    // requests do not meet on the VG lock, which the domain serializes and the single-drive flow does not: true
    // of every run here (and of 900 runs of 50 GiB per flow tried), not a guarantee.
    const domain_config one = domain_config::make(1, 1, 1e8_s).value();
    const flow_latency flows[] = {vdsm_polling_2022_latency(), vdsm_immediate_latency()};
    for (const flow_latency& l : flows)
        for (unsigned in_flight : {1u, 2u}) {
            const rate_aware_agent agent(make_rate_aware_policy(vdsm_legacy().trigger().config, 6500_ms).value(),
                                         in_flight);
            // The same agent adapting its budget to the latency it observes (simulate/rate_aware.hpp).
            const adaptive_rate_aware_agent adaptive(
                make_rate_aware_policy(vdsm_legacy().trigger().config, 6500_ms).value(),
                load_adaptation::make().value(), in_flight);
            for (std::uint64_t mib_s : {100u, 400u, 900u})
                for (std::uint64_t seed = 1; seed <= 5; ++seed) {
                    const workload w = make_workload(mib_s);
                    CAPTURE(mib_s);
                    CAPTURE(seed);
                    CAPTURE(in_flight);
                    check_same(run_domain(one, l, agent, w, 1, seed).drive(0).run,
                               simulate_run(agent, l, w, run_seed(seed, 0)));
                    check_same(run_domain(one, l, adaptive, w, 1, seed).drive(0).run,
                               simulate_run(adaptive, l, w, run_seed(seed, 0)));
                }
        }
}

TEST_CASE("a lone writer among idle drives of many hosts is simulate_run; with other writers it is not") {
    const domain_config cfg = domain_config::make(4, 10, 1e8_s).value();
    const flow_latency l = vdsm_polling_2022_latency();
    const static_agent<vdsm_policy> agent(vdsm_2022());
    const workload w = make_workload(450);
    const run_result alone = simulate_run(agent, l, w, run_seed(7, 0));
    const domain_result lone = run_domain(cfg, l, agent, w, 1, 7);
    check_same(lone.drive(0).run, alone);
    CHECK(lone.drive(1).run.extends == 0);  // an idle drive's agent never extends it
    CHECK_FALSE(lone.drive(1).finished);
    // Any drive, not only drive 0 of host 0: the first writing drive leads its host's monitor and the SPM's scan,
    // so a lone writer at drive k runs its own run's clocks, run first_run + k of simulate_run, bit for bit.
    const flow_latency flows[] = {vdsm_polling_2022_latency(), vdsm_mailbox_events_latency(), vdsm_immediate_latency()};
    int compared = 0;
    for (const flow_latency& f : flows)
        for (std::uint32_t k : {1u, 9u, 10u, 23u, 39u})
            for (std::uint64_t seed = 1; seed <= 4; ++seed) {
                CAPTURE(k);
                CAPTURE(seed);
                auto r = simulate_domain(
                    cfg, f, [&agent](std::uint32_t) noexcept { return agent; },
                    [&](std::uint32_t d) noexcept {
                        return d == k ? drive_workload::make(w).value() : drive_workload::idle(w);
                    },
                    seed, 100);
                REQUIRE(r.has_value());
                CHECK(r->drive(k).finished);
                CHECK(r->drive(k).host == k / 10);
                CHECK(r->drive(k == 1 ? 0 : 1).run.extends == 0);
                check_same(r->drive(k).run, simulate_run(agent, f, w, run_seed(seed, 100 + k)));
                ++compared;
            }
    CHECK(compared == 60);
    const domain_result crowd = run_domain(cfg, l, agent, w, 40, 7);
    const run_result& d0 = crowd.drive(0).run;
    CHECK((d0.pause_seconds != alone.pause_seconds || d0.duration != alone.duration));
}

TEST_CASE("the SPM's utilization is the extends it served times their service time over the elapsed time") {
    const double service = 0.3;
    const flow_latency l = polling_with_service(service);
    const static_agent<vdsm_policy> agent(vdsm_legacy());
    const domain_config cfg = domain_config::make(5, 20, 1800.0_s).value();
    const domain_result r = run_domain(cfg, l, agent, make_workload(100, 1024_GiB), 100, 3);
    const domain_summary& s = r.summary();
    CHECK(s.elapsed == 1800.0_s);
    REQUIRE(s.served > 1000);
    // Independently of the SPM's own counters: every served extend grew one LV by one chunk (vdsm-legacy: 1 GiB,
    // a whole number of 128 MiB extents), so the LVs' growth counts the extends the lock ran, give or take the
    // one each drive may have in flight at the end.
    std::uint64_t grown = 0;
    for (std::uint32_t d = 0; d < r.drives(); ++d) {
        const run_result& run = r.drive(d).run;
        REQUIRE((run.final_physical.count() - run.initial_size.count()) % (1_GiB).count() == 0);
        grown += (run.final_physical.count() - run.initial_size.count()) / (1_GiB).count();
    }
    CHECK(grown >= s.served);
    CHECK(grown <= s.served + r.drives());
    const double elapsed = s.elapsed.count();
    const double from_lvs = static_cast<double>(grown) * service / elapsed;
    CHECK(s.spm_utilization <= from_lvs + 1e-9);
    CHECK(s.spm_utilization >= from_lvs - static_cast<double>(r.drives()) * service / elapsed);
    CHECK(s.spm_utilization == doctest::Approx(static_cast<double>(s.extends) * service / elapsed).epsilon(0.01));
    CHECK(s.spm_utilization > 0.4);
    CHECK(s.spm_utilization <= 1.0);
    // The served requests are all but the few still on their way at the end.
    CHECK(s.served <= s.extends);
    CHECK(s.extends - s.served <= 100);
}

TEST_CASE("the latency p99 grows with the writers; the single-drive answer does not") {
    const flow_latency l = vdsm_polling_2022_latency();
    const static_agent<vdsm_policy> agent(vdsm_2022());
    const workload w = make_workload(500);
    const domain_config cfg = domain_config::make(10, 40, 600.0_s).value();
    const run_result single = simulate_run(agent, l, w, run_seed(11, 0));
    double last_p99 = 0.0;
    std::uint64_t last_queue = 0;
    std::uint32_t pauses_few = 0, pauses_many = 0;
    for (std::uint32_t writers : {1u, 50u, 150u, 400u}) {
        CAPTURE(writers);
        const domain_result r = run_domain(cfg, l, agent, w, writers, 11);
        const domain_summary& s = r.summary();
        CHECK(s.latency_p99 >= seconds(last_p99));
        CHECK(s.queue_p99 >= last_queue);
        CHECK(s.latency_p50 <= s.latency_p99);
        CHECK(s.latency_p99 <= s.latency_max);
        last_p99 = s.latency_p99.count();
        last_queue = s.queue_p99;
        std::uint32_t pauses = 0;
        for (std::uint32_t d = 0; d < r.drives(); ++d) pauses += r.drive(d).run.pauses;
        if (writers == 1) {
            CHECK(s.latency_p99 <= l.max());  // one writer: the flow's own range
            CHECK(s.queue_p99 == 0);
            pauses_few = pauses;
        }
        if (writers == 400) {
            CHECK(s.latency_p99 > l.max() + 2_s);  // at least one reply poll more than any single-drive extend
            CHECK(s.queue_p99 >= 5);
            CHECK(s.worker_wait_share > 0.0);
            pauses_many = pauses;
        }
        // The single-drive simulator knows nothing of the others: it is drive 0's answer alone, and the domain's
        // drive 0 departs from it once other writers share the SPM (it waits longer for the same extends).
        if (writers == 1) check_same(r.drive(0).run, single);
        if (writers == 400) {
            const run_result& d0 = r.drive(0).run;
            CHECK((d0.pause_seconds > single.pause_seconds || d0.pauses > single.pauses ||
                   d0.duration > single.duration));
        }
    }
    CHECK(pauses_many > 100 * (pauses_few + 1));
}

TEST_CASE("same seed, same numbers; another seed, other numbers") {
    const flow_latency l = vdsm_mailbox_events_latency();
    const rate_aware_agent agent(make_rate_aware_policy(vdsm_legacy().trigger().config, 3600_ms).value());
    const domain_config cfg = domain_config::make(4, 25, 900.0_s).value();
    const workload w = make_workload(300, 100_GiB);
    const domain_result a = run_domain(cfg, l, agent, w, 80, 5);
    const domain_result b = run_domain(cfg, l, agent, w, 80, 5);
    const domain_result c = run_domain(cfg, l, agent, w, 80, 6);
    CHECK(std::memcmp(&a.summary(), &b.summary(), sizeof(domain_summary)) == 0);
    bool differs = false;
    for (std::uint32_t d = 0; d < a.drives(); ++d) {
        check_same(a.drive(d).run, b.drive(d).run);
        differs = differs || a.drive(d).run.pause_seconds != c.drive(d).run.pause_seconds ||
                  a.drive(d).run.duration != c.drive(d).run.duration;
    }
    CHECK(differs);
    CHECK(a.summary().latency_p50 != c.summary().latency_p50);
}

TEST_CASE("workloads: staggered starts and on/off bursts write the same bytes, later") {
    const flow_latency l = vdsm_polling_2022_latency();
    const static_agent<vdsm_policy> agent(vdsm_legacy());
    const domain_config cfg = domain_config::make(1, 3, 1e6_s).value();
    const workload w = make_workload(100, 10_GiB);
    auto r = simulate_domain(
        cfg, l, [&agent](std::uint32_t) noexcept { return agent; },
        [&w](std::uint32_t d) noexcept {
            return d == 0   ? drive_workload::make(w).value()
                   : d == 1 ? drive_workload::make(w, 60.0_s).value()
                            : drive_workload::make(w, 0.0_s, 10.0_s, 30.0_s).value();
        },
        1);
    REQUIRE(r.has_value());
    const double constant = 10.0 * 1024 / 100;  // 102.4 s of writing
    for (std::uint32_t d = 0; d < 3; ++d) {
        CAPTURE(d);
        CHECK(r->drive(d).finished);
        CHECK(r->drive(d).run.final_physical >= 10_GiB);
        CHECK(r->drive(d).run.duration >= seconds(constant - 1e-9));  // drive 1: measured from its start, 60 s
    }
    CHECK(r->drive(1).run.duration < seconds(constant + 10.0));  // measured from its own start
    // Bursts of 10 s every 40 s: about four times as long (the last burst ends the write).
    CHECK(r->drive(2).run.duration > seconds(3.5 * constant));
    CHECK(r->drive(2).run.duration < seconds(4.0 * constant + 20.0));
    CHECK(r->summary().elapsed.count() == doctest::Approx(r->drive(2).run.duration.count()).epsilon(0.05));
}

TEST_CASE("errors: a flow without the mailbox, a time-blind model, bad shapes and workloads") {
    const static_agent<vdsm_policy> agent(vdsm_legacy());
    const workload w = make_workload(100);
    const auto each = [&w](std::uint32_t) noexcept { return drive_workload::make(w).value(); };
    const auto agents = [&agent](std::uint32_t) noexcept { return agent; };
    const domain_config cfg = domain_config::make(1, 1).value();
    const flow_stage no_mailbox[] = {flow_stage::monitor("m", 2.0_s), flow_stage::delay("d", 1.0_s, 2.0_s)};
    const auto r1 = simulate_domain(cfg, flow_latency::make(no_mailbox, 2).value(), agents, each, 1);
    REQUIRE_FALSE(r1.has_value());
    CHECK(std::string(r1.error().message().view()).find("a send and a reply poll") != std::string::npos);
    const auto r2 = simulate_domain(cfg, latency_profile("fixed:3").value(), agents, each, 1);
    CHECK_FALSE(r2.has_value());
    CHECK(simulate_domain(cfg, latency_profile("vdsm-immediate").value(), agents, each, 1).has_value());
    CHECK(std::string(domain_config::make(0, 1).error().message().view()) == "hosts must be in [1, 10000], got 0");
    CHECK_FALSE(domain_config::make(1001, 1000).has_value());
    CHECK(domain_config::make(1000, 1000).has_value());  // a million drives, the most
    CHECK(std::string(domain_config::make(1000, 1001).error().message().view()) ==
          "drives must be in [1, 1000000], got 1001000");
    CHECK_FALSE(domain_config::make(1, 1, 0.0_s).has_value());
    CHECK_FALSE(domain_config::make(1, 1, 10.0_s, 0).has_value());
    CHECK_FALSE(domain_config::make(1, 1, 10.0_s, 5, 64).has_value());
    CHECK(domain_config::make(1, 1, 10.0_s, 5, 63).has_value());
    CHECK_FALSE(drive_workload::make(w, -1.0_s).has_value());
    CHECK_FALSE(drive_workload::make(w, 0.0_s, 10.0_s, 0.0_s).has_value());
    CHECK(drive_workload::make(w, 0.0_s, 10.0_s, 5.0_s).has_value());
}

TEST_CASE("the drives' event heap: the earliest event first, equal times to the lower drive") {
    // The domain's determinism rests on this order: two drives of one host tick at the very same time.
    detail::drive_heap h;
    h.init(6);
    h.update(3, 1.0);
    h.update(1, 1.0);
    h.update(5, 1.0);
    h.update(0, 2.0);
    h.update(4, 0.5);
    std::vector<std::size_t> order;
    while (h.top_key() < detail::never_time) {
        order.push_back(h.top());
        h.update(h.top(), never.count());
    }
    CHECK(order == std::vector<std::size_t>{4, 1, 3, 5, 0});
    h.update(2, 1.0);  // a later arrival at the same time still goes by index
    h.update(1, 1.0);
    CHECK(h.top() == 1);
}

TEST_CASE("writers spread over the hosts in turn") {
    const domain_config cfg = domain_config::make(3, 4).value();
    // drive d = host * 4 + j; writer order: j * 3 + host
    CHECK(cfg.is_writer(0, 1));
    CHECK_FALSE(cfg.is_writer(4, 1));
    CHECK(cfg.is_writer(4, 2));
    CHECK(cfg.is_writer(8, 3));
    CHECK_FALSE(cfg.is_writer(1, 3));
    CHECK(cfg.is_writer(1, 4));
    CHECK(cfg.is_writer(11, 12));
    CHECK_FALSE(cfg.is_writer(11, 11));
}

// The shared parts on a flow without randomness, worked by hand: monitor 2 s, send, SPM scan every 2 s from 0.5 s,
// 0.3 s under the VG lock, reply poll every 2 s from the send, 0.1 s refresh.
namespace {
flow_latency hand_flow() {
    const flow_stage stages[] = {flow_stage::monitor("monitor", 2.0_s), flow_stage::send("send", 0.0_s, 0.0_s),
                                 flow_stage::clock("SPM scan", 2.0_s),  flow_stage::delay("lvextend", 0.3_s, 0.3_s),
                                 flow_stage::reply_poll("poll", 2.0_s), flow_stage::delay("refresh", 0.1_s, 0.1_s)};
    return flow_latency::make(stages, 6).value();
}
struct hand_domain {
    domain_shared shared;
    random_stream rng{1};
    hand_domain(std::uint32_t hosts, std::uint32_t per_host, std::uint32_t slots = 63)
        : shared(domain_shared::make(domain_flow::make(hand_flow()).value(), hosts, per_host, 5, slots).value()) {
        flow_run run;
        run.phase[2] = 0.5_s;
        for (std::uint32_t d = 0; d < hosts * per_host; ++d) shared.start(d, run);
        shared.set_spm_phase_of(0);
    }
    void request(std::uint32_t drive, double t) {
        const std::size_t slot = shared.add(drive, seconds(t), rng);
        shared.request(slot).size = 1;
        CHECK(shared.next_send(drive) == seconds(t));
        shared.send(drive);
    }
};
}  // namespace

TEST_CASE("a host's mail monitor: while a reply is pending, a new request waits for its next loop") {
    hand_domain h(1, 2);
    CHECK(domain_flow::make(hand_flow()).value().role(3) == domain_role::spm_service);
    h.request(0, 1.0);                    // idle: sent at once, on a grid from 1.0
    CHECK(h.shared.next_spm() == 2.5_s);  // the SPM's next scan
    h.request(1, 1.5);                    // the reply for drive 0 is pending: sent at the loop at 3.0
    const auto c0 = h.shared.serve();     // scan 2.5, lvextend to 2.8, the reply seen at 3.0, refresh
    CHECK(c0.drive == 0);
    CHECK(c0.done_at.count() == doctest::Approx(3.1));
    CHECK(h.shared.next_spm().count() == doctest::Approx(4.5));  // sent at 3.0: the scan at 4.5
    const auto c1 = h.shared.serve();                            // 4.5 to 4.8, the reply at the grid's 5.0
    CHECK(c1.drive == 1);
    CHECK(c1.done_at.count() == doctest::Approx(5.1));
    CHECK(h.shared.idle());
    CHECK(h.shared.busy().count() == doctest::Approx(0.6));
}

TEST_CASE("the VG lock: requests of one scan run one at a time, host by host") {
    hand_domain h(2, 1);
    h.request(1, 1.0);  // host 1 sends first ...
    h.request(0, 1.2);  // ... but the scan reads host 0's mailbox first
    const auto a = h.shared.serve();
    const auto b = h.shared.serve();
    CHECK(a.drive == 0);
    CHECK(a.done_at.count() == doctest::Approx(3.3));  // 2.5 to 2.8 under the lock, its host's poll at 3.2
    CHECK(b.drive == 1);
    CHECK(b.done_at.count() == doctest::Approx(5.1));  // waits for the lock, 2.8 to 3.1: misses its host's poll at 3.0
    CHECK(h.shared.queue_histogram()[0] == 1);         // the first found nobody waiting
    CHECK(h.shared.queue_histogram()[1] == 1);         // the second found one ahead
    CHECK(h.shared.busy().count() == doctest::Approx(0.6));
}

// A driver that runs this queue against real time (provpol-agent --drives) logs when each request was written,
// held the lock and was seen: the queue says so itself, so that no driver re-derives the reply poll's rule.
TEST_CASE("domain_shared reports each request's send, its turn under the VG lock and the poll that saw its reply") {
    hand_domain h(2, 1);
    const std::size_t s1 = h.shared.add(1, 1.0_s, h.rng);
    h.shared.request(s1).size = 1;
    CHECK(h.shared.send(1) == s1);
    CHECK(h.shared.request(s1).sent == 1.0_s);  // idle: written at once
    const std::size_t s0 = h.shared.add(0, 1.2_s, h.rng);
    h.shared.request(s0).size = 1;
    CHECK(h.shared.send(0) == s0);
    CHECK(h.shared.request(s0).sent == 1.2_s);
    const auto a = h.shared.serve();  // drive 0: scanned at 2.5, the lock 2.5 to 2.8, its host's poll at 3.2
    CHECK(a.drive == 0);
    CHECK(a.lock_start.count() == doctest::Approx(2.5));
    CHECK(a.lock_end.count() == doctest::Approx(2.8));
    CHECK(a.reply_seen.count() == doctest::Approx(3.2));
    CHECK(a.reply_read.count() == doctest::Approx(3.2));
    const auto b = h.shared.serve();  // drive 1 waits for the lock: 2.8 to 3.1, misses the poll at 3.0, seen at 5.0
    CHECK(b.drive == 1);
    CHECK(b.lock_start.count() == doctest::Approx(2.8));
    CHECK(b.lock_end.count() == doctest::Approx(3.1));
    CHECK(b.reply_seen.count() == doctest::Approx(5.0));
    CHECK(b.done_at.count() == doctest::Approx(5.1));

    // While its first reply is pending, a host writes a new request at its reply poll's next loop.
    hand_domain p(1, 2);
    p.request(0, 1.0);
    const std::size_t s = p.shared.add(1, 1.5_s, p.rng);
    p.shared.request(s).size = 1;
    CHECK(p.shared.send(1) == s);
    CHECK(p.shared.request(s).st == domain_request::state::at_spm);
    CHECK(p.shared.request(s).sent.count() == doctest::Approx(3.0));
    CHECK(p.shared.request(s).at.count() == doctest::Approx(4.5));  // the first SPM scan after it was written
}

TEST_CASE("a host with all its mailbox slots in flight holds a new request until a loop with a free slot") {
    hand_domain h(1, 2, 1);
    h.request(0, 1.0);
    const std::size_t slot = h.shared.add(1, 1.5_s, h.rng);
    h.shared.request(slot).size = 1;
    h.shared.send(1);                                              // the one slot is taken
    CHECK(h.shared.next_send(1).count() == doctest::Approx(3.0));  // the mail monitor's next loop
    CHECK(h.shared.serve().done_at.count() == doctest::Approx(3.1));
    h.shared.send(1);  // at 3.0 drive 0's reply was seen: the slot is free, the host idle
    CHECK(h.shared.next_send(1) == never);
    CHECK(h.shared.next_spm().count() == doctest::Approx(4.5));
    CHECK(h.shared.serve().done_at.count() == doctest::Approx(5.1));  // a new grid from 3.0: the poll at 5.0
}

// domain_shared (public for drivers such as provpol-agent --drives) took 0 SPM workers, and serve()
// then read the first worker of an empty pool. make refuses what domain_config::make refuses.
TEST_CASE("domain_shared::make refuses no SPM worker, no mailbox slot, no host or drive") {
    const auto message = [&](std::uint32_t hosts, std::uint32_t per_host, std::uint32_t workers, std::uint32_t slots) {
        const auto r = domain_shared::make(domain_flow::make(hand_flow()).value(), hosts, per_host, workers, slots);
        return r ? std::string() : std::string(r.error().message().view());
    };
    CHECK(message(1, 1, 0, 63) == "spm_workers must be in [1, 1000], got 0");
    CHECK(message(1, 1, 1001, 63) == "spm_workers must be in [1, 1000], got 1001");
    CHECK(message(1, 1, 5, 0) == "host_slots must be in [1, 63], got 0");
    CHECK(message(0, 1, 5, 63) == "hosts must be in [1, 10000], got 0");
    CHECK(message(1, 0, 5, 63) == "drives_per_host must be in [1, 10000], got 0");
    CHECK(message(1000, 1001, 5, 63) == "drives_per_host must be in [1, 1000], got 1001");
    REQUIRE(message(1, 1, 1, 63).empty());
}

// domain_shared owns its flow: the queue made from a flow that is gone (a temporary, as a driver that builds the
// flow in place writes) still runs it; one worker is enough, a request goes through it.
TEST_CASE("domain_shared keeps its own copy of the flow: made from a temporary, it runs after the flow is gone") {
    auto made = domain_shared::make(domain_flow::make(hand_flow()).value(), 1, 1, 1, 63);
    REQUIRE(made);
    domain_shared shared = std::move(*made);
    CHECK(shared.flow().scan_stage() == 2);
    flow_run run;
    run.phase[2] = 0.5_s;
    shared.start(0, run);
    shared.set_spm_phase_of(0);
    random_stream rng(1);
    shared.request(shared.add(0, 1.0_s, rng)).size = 1;
    shared.send(0);
    CHECK(shared.serve().done_at.count() == doctest::Approx(3.1));  // the hand flow: scan 2.5, lock to 2.8, poll 3.0
    CHECK(shared.idle());
}

// The drive's latency reads the flow through its queue (no second pointer that could name another flow), and is
// never unbound: of() is the only way to make one.
static_assert(!std::is_default_constructible_v<domain_drive_latency>);
TEST_CASE("domain_drive_latency::of reads the queue's flow") {
    auto shared = domain_shared::make(domain_flow::make(hand_flow()).value(), 1, 2, 5, 63).value();
    const domain_drive_latency l = domain_drive_latency::of(shared, 1);
    CHECK(l.detection_period() == 2.0_s);
    random_stream rng(3);
    flow_run run = l.start_run(rng);
    CHECK(l.complete(run, 1.0_s, rng) == never);
    CHECK(shared.next_send(1) == 1.0_s);  // the monitor's request reached drive 1's host at once (no host stage)
}

// A review found: domain_config and the workloads are aggregates anyone can fill; simulate_domain checks them
// on entry as make() would, so a config that make() refuses never runs (host_slots 0 waited forever; hosts x
// drives wrapped in uint32_t).
TEST_CASE("simulate_domain refuses what make() refuses, however the config was built") {
    const static_agent<vdsm_policy> agent(vdsm_legacy());
    const workload w = make_workload(100, 1_GiB);
    const auto agents = [&agent](std::uint32_t) noexcept { return agent; };
    const auto each = [&w](std::uint32_t) noexcept { return drive_workload::make(w).value(); };
    const flow_latency l = vdsm_polling_2022_latency();
    const auto refused = [&](const domain_config& cfg, const char* field) {
        const child::outcome o = child::run([&] {
            const auto r = simulate_domain(cfg, l, agents, each, 1);
            return !r && std::string(r.error().message().view()).find(field) != std::string::npos ? 0 : 1;
        });
        const std::string name = field;
        CAPTURE(name);
        CHECK(o.signal == 0);  // SIGALRM: still waiting after 20 s
        CHECK(o.exited);
        CHECK(o.status == 0);
    };
    domain_config c = domain_config::make(1, 2, 600.0_s).value();
    c.host_slots = 0;
    refused(c, "host_slots");
    c = domain_config::make(1, 2, 600.0_s).value();
    c.hosts = 65536;
    c.drives_per_host = 65536;  // 2^32 drives: 0 in uint32_t
    refused(c, "hosts");
    c.hosts = 5000;
    c.drives_per_host = 5000;
    refused(c, "drives");
    c = domain_config::make(1, 2, 600.0_s).value();
    c.spm_workers = 0;
    refused(c, "spm_workers");
    c = domain_config::make(1, 2, 600.0_s).value();
    c.duration = -1_s;
    refused(c, "duration");
    // A workload filled by hand with a rate of 0 (workload::make refuses it).
    workload bad = w;
    bad.write_rate = rate(0);
    const auto bad_each = [&bad](std::uint32_t) noexcept { return drive_workload{bad, 0.0_s, 0.0_s, 0.0_s, true}; };
    const child::outcome o = child::run([&] {
        const auto r = simulate_domain(domain_config::make(1, 2, 600.0_s).value(), l, agents, bad_each, 1);
        return !r && std::string(r.error().message().view()).find("rate") != std::string::npos ? 0 : 1;
    });
    CHECK(o.exited);
    CHECK(o.status == 0);
    // What make() accepts still runs.
    CHECK(simulate_domain(domain_config::make(1, 2, 600.0_s).value(), l, agents, each, 1).has_value());
}

namespace {
// VDSM's agent that also notes its first monitor tick (the first sample at a time >= 0).
struct tick_recorder {
    static_agent<vdsm_policy> inner{vdsm_legacy()};
    double* first = nullptr;
    bytes initial_size(bytes capacity) const noexcept { return inner.initial_size(capacity); }
    void observe(const observation& o) noexcept {
        if (o.kind == observation_kind::sample && o.time >= 0_s && *first < 0.0) *first = o.time.count();
    }
    extend_decision decide(const drive_state& s) const noexcept { return inner.decide(s); }
};

// A polling flow whose SPM work is `locked` seconds under the VG lock and `unlocked` seconds outside it.
flow_latency split_work(double locked, double unlocked, bool scan = true) {
    flow_stage stages[7];
    std::size_t n = 0;
    stages[n++] = flow_stage::monitor("watermark monitor", 2.0_s);
    stages[n++] = flow_stage::send("host mailbox send", 0.0_s, 0.0_s);
    if (scan) stages[n++] = flow_stage::clock("SPM mailbox scan", 2.0_s, 0.005_s);
    stages[n++] = flow_stage::locked_delay("lvextend", seconds(locked), seconds(locked));
    stages[n++] = flow_stage::delay("SPM work outside the lock", seconds(unlocked), seconds(unlocked));
    stages[n++] = flow_stage::reply_poll("host mailbox reply poll", 2.0_s);
    stages[n++] = flow_stage::delay("LV refresh", 0.15_s, 0.34_s);
    return flow_latency::make(stages, n).value();
}
}  // namespace

TEST_CASE("one watermark monitor per host: a host's drives tick together, other hosts on their own phase") {
    const domain_config cfg = domain_config::make(3, 4, 60.0_s).value();
    std::vector<double> first(cfg.drives(), -1.0);
    const workload w = make_workload(100, 2_GiB);
    auto r = simulate_domain(
        cfg, vdsm_polling_2022_latency(),
        [&first](std::uint32_t d) noexcept {
            return tick_recorder{static_agent<vdsm_policy>(vdsm_legacy()), &first[d]};
        },
        [&](std::uint32_t) noexcept { return drive_workload::make(w).value(); }, 9);
    REQUIRE(r.has_value());
    for (std::uint32_t d = 0; d < cfg.drives(); ++d) {
        CAPTURE(d);
        REQUIRE(first[d] >= 0.0);
        CHECK(first[d] == first[d / 4 * 4]);  // the host's first drive leads its monitor
    }
    CHECK(first[0] != first[4]);
    CHECK(first[4] != first[8]);
    // The leader's phase is its own run's first draw: drive 0 ticks first where simulate_run's run 0 does.
    random_stream rng(run_seed(9, 0));
    CHECK(first[0] == 2.0 * rng.uniform());
}

TEST_CASE("the VG lock holds lvextend only; the SPM's workers matter once work outside the lock is long") {
    const static_agent<vdsm_policy> agent(vdsm_legacy());
    const workload w = make_workload(200, 20_GiB);  // every request served before the end: no overhang
    const domain_config one_worker = domain_config::make(1, 40, 1e7_s, 1).value();
    const domain_config five_workers = domain_config::make(1, 40, 1e7_s, 5).value();
    // 0.1 s under the lock, 1.5 s outside it: with one worker the requests of a scan wait for each other's
    // whole work; with five, only for each other's lvextend.
    const flow_latency long_outside = split_work(0.1, 1.5);
    const domain_summary a = run_domain(one_worker, long_outside, agent, w, 40, 4).summary();
    const domain_summary b = run_domain(five_workers, long_outside, agent, w, 40, 4).summary();
    CHECK(a.latency_p99 > b.latency_p99 + 1_s);
    CHECK(a.worker_wait_share > 0.2);
    // The lock's busy time counts lvextend alone: served x 0.1 s, not x 1.6 s.
    REQUIRE(b.served == b.extends);
    CHECK(b.spm_busy.count() == doctest::Approx(static_cast<double>(b.served) * 0.1).epsilon(1e-9));
    // All work under the lock: the worker pool is never the bottleneck, one worker or five give the same run.
    const flow_latency all_locked = split_work(1.6, 0.0);
    const domain_summary c = run_domain(one_worker, all_locked, agent, w, 40, 4).summary();
    const domain_summary d = run_domain(five_workers, all_locked, agent, w, 40, 4).summary();
    CHECK(c.latency_p99 == d.latency_p99);
    CHECK(c.extends == d.extends);
}

TEST_CASE("a flow without an SPM scan still serializes the SPM's lvextend") {
    const static_agent<vdsm_policy> agent(vdsm_legacy());
    const workload w = make_workload(300, 200_GiB);
    const flow_latency no_scan = split_work(0.5, 0.0, false);
    const domain_flow f = domain_flow::make(no_scan).value();
    CHECK(f.scan_stage() == -1);
    CHECK(f.role(2) == domain_role::spm_service);
    const domain_config cfg = domain_config::make(4, 10, 300.0_s).value();
    const domain_summary one = run_domain(cfg, no_scan, agent, w, 1, 2).summary();
    const domain_summary many = run_domain(cfg, no_scan, agent, w, 40, 2).summary();
    CHECK(one.queue_max == 0);
    CHECK(many.queue_max >= 3);
    CHECK(many.latency_p99 > one.latency_p99 + 0.5_s);
}

TEST_CASE("the domain's extend latency is the span provpol latency reports: the event to the grown LV") {
    // Lone writers on their own clocks: over many runs the domain's latencies follow the flow's marginal.
    const flow_latency l = vdsm_polling_2022_latency();
    const static_agent<vdsm_policy> agent(vdsm_2022());
    const workload w = make_workload(100, 100_GiB);
    const domain_config cfg = domain_config::make(1, 1, 1e8_s).value();
    double sum = 0.0, medians = 0.0;
    const int runs = 60;
    for (int seed = 1; seed <= runs; ++seed) {
        const domain_summary s = run_domain(cfg, l, agent, w, 1, static_cast<std::uint64_t>(seed)).summary();
        REQUIRE(s.served > 10);
        CHECK(s.latency_max <= l.max() + 1e-9_s);
        CHECK(s.latency_p50 >= l.min() - 1e-9_s);
        sum += s.latency_mean.count();
        medians += s.latency_p50.count();
    }
    CHECK(sum / runs == doctest::Approx(l.mean().count()).epsilon(0.05));
    CHECK(medians / runs == doctest::Approx(l.quantile(0.5).count()).epsilon(0.1));
}

TEST_CASE("a domain of 20,000 drives: every drive accounted for, the SPM's queue bounded by the writers") {
    // The largest domain the tests run (the sanitizer leg runs it too): 200 hosts x 100 drives, one writer in 10,
    // a short write each, so the buffers sized by hosts x drives and the SPM's queue are exercised at scale.
    const flow_latency l = vdsm_polling_2022_latency();
    const static_agent<vdsm_policy> agent(vdsm_2022());
    const workload w = make_workload(500, 8_GiB);
    const domain_config cfg = domain_config::make(200, 100, 120.0_s).value();
    const std::uint32_t writers = 2000;
    const domain_result r = run_domain(cfg, l, agent, w, writers, 5);
    REQUIRE(r.drives() == 20000);
    std::uint32_t extended = 0, idle_extends = 0;
    for (std::uint32_t d = 0; d < r.drives(); ++d) {
        const run_result& run = r.drive(d).run;
        if (cfg.is_writer(d, writers))
            extended += run.extends > 0 ? 1u : 0u;
        else
            idle_extends += run.extends;
    }
    CHECK(extended == writers);  // 8 GiB at 500 MiB/s from a 2.5 GiB disk: every writer extends
    CHECK(idle_extends == 0);
    const domain_summary& s = r.summary();
    CHECK(s.queue_p99 <= writers);
    CHECK(s.latency_p50 <= s.latency_p99);
    CHECK(s.latency_p99 <= s.latency_max);
    CHECK(s.latency_p99 > l.max());  // 2000 writers share one SPM: the queue adds whole reply polls
}
