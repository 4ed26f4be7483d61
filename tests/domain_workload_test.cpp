// Tests of the domain's per-drive workloads and mixed agents (domain.hpp, simulate/either_agent.hpp): a trace of one
// constant-rate segment is the constant workload; a trace's extends, pauses and bytes as counted by hand; a trace
// is the guest's own time (a pause delays the rest of it); a domain of either_agent holding one type is the domain
// of that type; a lone writer of another type among idle drives is simulate_run's answer for it.
#include "test_support.hpp"

#include <provpol/domain.hpp>
#include <provpol/flow/latency.hpp>
#include <provpol/simulate.hpp>
#include <provpol/simulate/either_agent.hpp>
#include <provpol/simulate/rate_aware.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

using namespace provpol;
using namespace provpol::literals;

namespace {

using static_vdsm = static_agent<vdsm_policy>;
using mixed = either_agent<static_vdsm, rate_aware_agent>;

static_assert(detail::is_agent<mixed>::value, "either_agent satisfies the agent contract");
static_assert(std::is_trivially_copyable<mixed>::value, "either_agent is trivially copyable");
static_assert(sizeof(mixed) <= sizeof(rate_aware_agent) + 8, "either_agent: the larger agent and a flag");

void check_same(const run_result& d, const run_result& s) {
    CHECK(d.extends == s.extends);
    CHECK(d.pauses == s.pauses);
    CHECK(d.pause_seconds == s.pause_seconds);
    CHECK(d.duration == s.duration);
    CHECK(d.initial_size == s.initial_size);
    CHECK(d.final_physical == s.final_physical);
    CHECK(d.unwritten == s.unwritten);
    CHECK(d.truncated == s.truncated);
}

template <class Agent, class WorkloadOf>
domain_result run(const domain_config& cfg, const flow_latency& l, const Agent& agent, WorkloadOf&& of,
                  std::uint64_t seed) {
    auto r = simulate_domain(
        cfg, l, [&agent](std::uint32_t) noexcept { return agent; }, of, seed);
    REQUIRE(r.has_value());
    return static_cast<domain_result&&>(*r);
}

template <class Agent>
domain_result run_one(const flow_latency& l, const Agent& agent, const drive_workload& w, std::uint64_t seed,
                      double duration = 1e8) {
    return run(
        domain_config::make(1, 1, seconds(duration)).value(), l, agent, [&w](std::uint32_t) noexcept { return w; },
        seed);
}

// Bytes the drive had written at the end: the LV (with what is in flight) less what it left unwritten.
bytes written(const domain_drive_result& d) { return bytes(d.run.final_physical.count() - d.run.unwritten.count()); }

constexpr std::uint64_t mib = std::uint64_t{1} << 20;

}  // namespace

TEST_CASE("a trace of one constant-rate segment is the constant workload, bit for bit") {
    // 16 GiB in 32 s: 2^34 / 2^5 = 2^29 bytes/s, exactly 512 MiB/s, so the trace's rate is the workload's.
    const trace_point one[] = {{0.0_s, bytes(0)}, {32.0_s, 16_GiB}};
    const workload w = workload::make(16_GiB, rate(512 * mib), 40_GiB).value();
    const flow_latency flows[] = {vdsm_polling_2022_latency(), vdsm_immediate_latency()};
    const vdsm_policy policies[] = {vdsm_legacy(), vdsm_2022()};
    int compared = 0, paused = 0;
    for (const flow_latency& l : flows)
        for (const vdsm_policy& p : policies)
            for (double start : {0.0, 30.0})
                for (std::uint64_t seed = 1; seed <= 5; ++seed) {
                    CAPTURE(start);
                    CAPTURE(seed);
                    const static_vdsm agent(p);
                    const drive_workload traced = drive_workload::make_trace(one, 2, 40_GiB, seconds(start)).value();
                    const domain_result a = run_one(l, agent, traced, seed);
                    const domain_result b = run_one(l, agent, drive_workload::make(w, seconds(start)).value(), seed);
                    check_same(a.drive(0).run, b.drive(0).run);
                    CHECK(a.drive(0).finished);
                    CHECK(a.summary().elapsed == b.summary().elapsed);
                    if (start == 0.0) check_same(a.drive(0).run, simulate_run(agent, l, w, run_seed(seed, 0)));
                    paused += a.drive(0).run.pauses > 0 ? 1 : 0;
                    ++compared;
                }
    CHECK(compared == 40);
    CHECK(paused > 10);  // vdsm-legacy pauses at 512 MiB/s: the comparison covers pauses
}

TEST_CASE("a trace that stops writing before the free space runs out: the extends counted by hand") {
    // vdsm-2022: a new disk of 2560 MiB (one chunk), an extend of 2560 MiB when less than 80% of a chunk
    // (2048 MiB) is free, so the block threshold sits at the LV size - 2048 MiB.
    const static_vdsm agent(vdsm_2022());
    const flow_latency l = vdsm_polling_2022_latency();
    SUBCASE("two rates, 1 GiB: one threshold (512 MiB) crossed, the next (3072 MiB) never") {
        const trace_point t[] = {{0.0_s, bytes(0)}, {10.0_s, bytes(256 * mib)}, {20.0_s, 1_GiB}};
        for (std::uint64_t seed = 1; seed <= 8; ++seed) {
            const domain_result r = run_one(l, agent, drive_workload::make_trace(t, 3, 10_GiB).value(), seed);
            const run_result& x = r.drive(0).run;
            CHECK(r.drive(0).finished);
            CHECK(x.extends == 1);
            CHECK(x.pauses == 0);
            CHECK(x.initial_size == bytes(2560 * mib));
            CHECK(x.final_physical == bytes(5120 * mib));
            CHECK(written(r.drive(0)) == 1_GiB);                               // the trace's last point
            CHECK(x.duration.count() == doctest::Approx(20.0).epsilon(1e-9));  // no pause: the trace's own time
        }
    }
    SUBCASE("write, idle a minute, write faster: thresholds at 512, 3072 and 5632 MiB, not 8192") {
        // 2 GiB in 40 s (51.2 MiB/s), 60 s idle, 4 GiB in 40 s (102.4 MiB/s): at most 2048 MiB free is used in 20 s,
        // far longer than an extend takes.
        const trace_point t[] = {{0.0_s, bytes(0)}, {40.0_s, 2_GiB}, {100.0_s, 2_GiB}, {140.0_s, 6_GiB}};
        for (std::uint64_t seed = 1; seed <= 8; ++seed) {
            CAPTURE(seed);
            const domain_result r = run_one(l, agent, drive_workload::make_trace(t, 4, 20_GiB).value(), seed);
            const run_result& x = r.drive(0).run;
            CHECK(r.drive(0).finished);
            CHECK(x.extends == 3);
            CHECK(x.pauses == 0);
            CHECK(x.final_physical == bytes(10240 * mib));
            CHECK(x.unwritten == 4_GiB);
            CHECK(written(r.drive(0)) == 6_GiB);
            CHECK(x.duration.count() == doctest::Approx(140.0).epsilon(1e-9));
            // Cut at 120 s: 2048 MiB + 20 s x 102.4 MiB/s = 4096 MiB written; the thresholds at 512 and 3072 MiB
            // (at 10 s and 110 s) crossed, the one at 5632 MiB not yet.
            const domain_result cut = run_one(l, agent, drive_workload::make_trace(t, 4, 20_GiB).value(), seed, 120.0);
            CHECK_FALSE(cut.drive(0).finished);
            CHECK(cut.summary().elapsed == 120.0_s);
            CHECK(cut.drive(0).run.extends == 2);
            CHECK(cut.drive(0).run.final_physical == bytes(7680 * mib));
            CHECK(static_cast<double>(written(cut.drive(0)).count()) == doctest::Approx(4096.0 * mib).epsilon(1e-9));
        }
    }
}

TEST_CASE("a trace is the guest's time: a pause delays the rest, and every byte of the last point is written") {
    // 1000 MiB/s against vdsm-legacy (1024 MiB chunks, 512 MiB free at the threshold: half a second) pauses on
    // most extends; the trace's 40 s of writing then take 40 s plus the time paused, and the drive still writes
    // exactly the last point's bytes.
    const trace_point t[] = {
        {5.0_s, bytes(0)}, {25.0_s, bytes(20000 * mib)}, {35.0_s, bytes(20000 * mib)}, {55.0_s, bytes(40000 * mib)}};
    const static_vdsm agent(vdsm_legacy());
    const flow_latency l = vdsm_polling_2022_latency();
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        CAPTURE(seed);
        const domain_result r = run_one(l, agent, drive_workload::make_trace(t, 4, 100_GiB).value(), seed);
        const run_result& x = r.drive(0).run;
        CHECK(r.drive(0).finished);
        CHECK(x.pauses > 10);
        CHECK(written(r.drive(0)) == bytes(40000 * mib));
        CHECK(x.duration.count() == doctest::Approx(55.0 + x.pause_seconds.count()).epsilon(1e-9));
    }
}

TEST_CASE("a trace and staggered starts in one domain: each drive as the trace says") {
    const trace_point t[] = {{0.0_s, bytes(0)}, {64.0_s, 8_GiB}, {128.0_s, 8_GiB}, {192.0_s, 24_GiB}};
    const static_vdsm agent(vdsm_2022());
    const domain_config cfg = domain_config::make(2, 2, 1e6_s).value();
    const domain_result r = run(
        cfg, vdsm_polling_2022_latency(), agent,
        [&t](std::uint32_t d) noexcept { return drive_workload::make_trace(t, 4, 50_GiB, seconds(100.0 * d)).value(); },
        3);
    for (std::uint32_t d = 0; d < 4; ++d) {
        CAPTURE(d);
        CHECK(r.drive(d).finished);
        CHECK(written(r.drive(d)) == 24_GiB);
        CHECK(r.drive(d).run.duration >= 192.0_s);
    }
    // The last drive starts at 300 s and writes for 192 s at the least.
    CHECK(r.summary().elapsed >= 492.0_s);
    CHECK(r.summary().elapsed < seconds(492.0 + 60.0));
}

TEST_CASE("trace errors name the setting, the value and the bound") {
    const auto message = [](const error& e) { return std::string(e.message().view()); };
    const trace_point ok[] = {{0.0_s, bytes(0)}, {10.0_s, 1_GiB}};
    CHECK(drive_workload::make_trace(ok, 2, 1_GiB).has_value());
    CHECK(message(drive_workload::make_trace(ok, 1, 1_GiB).error()) == "trace points must be at least 2, got 1");
    CHECK(message(drive_workload::make_trace(nullptr, 5, 1_GiB).error()) == "trace points must be at least 2, got 0");
    CHECK(message(drive_workload::make_trace(ok, 2, 512_MiB).error()) ==
          "trace bytes_written (1GiB) must be at most capacity (512MiB)");
    const trace_point back[] = {{0.0_s, bytes(0)}, {10.0_s, 1_GiB}, {10.0_s, 2_GiB}};
    CHECK(message(drive_workload::make_trace(back, 3, 10_GiB).error()) ==
          "trace time (10) must be above the previous point's time (10)");
    const trace_point shrink[] = {{0.0_s, bytes(0)}, {10.0_s, 2_GiB}, {20.0_s, 1_GiB}};
    CHECK(message(drive_workload::make_trace(shrink, 3, 10_GiB).error()) ==
          "trace bytes_written (1GiB) must be at least the previous point's bytes_written (2GiB)");
    const trace_point first[] = {{0.0_s, 1_MiB}, {10.0_s, 2_GiB}};
    CHECK(message(drive_workload::make_trace(first, 2, 10_GiB).error()) ==
          "trace bytes_written: must be 0 at the first point (bytes written since the drive's start), got 1MiB");
    const trace_point negative[] = {{-1.0_s, bytes(0)}, {10.0_s, 2_GiB}};
    CHECK(message(drive_workload::make_trace(negative, 2, 10_GiB).error()).rfind("trace time must be in [0, ", 0) == 0);
    const double nan = __builtin_nan("");
    const trace_point not_a_number[] = {{0.0_s, bytes(0)}, {seconds(nan), 2_GiB}};
    CHECK_FALSE(drive_workload::make_trace(not_a_number, 2, 10_GiB).has_value());
    const trace_point nothing[] = {{0.0_s, bytes(0)}, {10.0_s, bytes(0)}};
    CHECK(message(drive_workload::make_trace(nothing, 2, 10_GiB).error()) ==
          "trace bytes_written at the last point must be at least 1, got 0");
    const trace_point fast[] = {{0.0_s, bytes(0)},
                                {seconds(1.0 / 1048576), 1_TiB}};  // 2^40 bytes in 2^-20 s: 2^60 per second
    CHECK(message(drive_workload::make_trace(fast, 2, 10_TiB).error()) ==
          "trace rate per second must be at most 1PiB, got 1EiB");
    const trace_point late[] = {{0.0_s, bytes(0)}, {10.0_s, 1_GiB}};
    CHECK_FALSE(drive_workload::make_trace(late, 2, 10_GiB, 2e9_s).has_value());
}

TEST_CASE("either_agent: a domain whose drives all hold A is the domain of A, drive by drive") {
    const flow_latency l = vdsm_polling_2022_latency();
    const domain_config cfg = domain_config::make(3, 4, 1e6_s).value();
    const workload w = workload::make(10_GiB, rate(450 * mib), 20_GiB).value();
    const auto of = [&](std::uint32_t d) noexcept {
        return cfg.is_writer(d, 8) ? drive_workload::make(w).value() : drive_workload::idle(w);
    };
    const static_vdsm a(vdsm_2022());
    const rate_aware_agent b(make_rate_aware_policy(vdsm_legacy().trigger().config, 6500_ms).value());
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        CAPTURE(seed);
        const domain_result pure_a = run(cfg, l, a, of, seed);
        const domain_result mixed_a = run(cfg, l, mixed(a), of, seed);
        const domain_result pure_b = run(cfg, l, b, of, seed);
        const domain_result mixed_b = run(cfg, l, mixed(b), of, seed);
        std::uint32_t pauses = 0;
        for (std::uint32_t d = 0; d < cfg.drives(); ++d) {
            CAPTURE(d);
            check_same(mixed_a.drive(d).run, pure_a.drive(d).run);
            check_same(mixed_b.drive(d).run, pure_b.drive(d).run);
            pauses += pure_a.drive(d).run.pauses;
        }
        CHECK(std::memcmp(&mixed_a.summary(), &pure_a.summary(), sizeof(domain_summary)) == 0);
        CHECK(std::memcmp(&mixed_b.summary(), &pure_b.summary(), sizeof(domain_summary)) == 0);
        CHECK(pauses > 0);  // 8 writers at 450 MiB/s: the drives meet on the SPM
    }
}

TEST_CASE("either_agent: a lone rate-aware writer among idle static drives is simulate_run's rate-aware answer") {
    const domain_config cfg = domain_config::make(4, 5, 1e8_s).value();
    const static_vdsm idle_agent(vdsm_2022());
    const rate_aware_agent writer(make_rate_aware_policy(vdsm_legacy().trigger().config, 6500_ms).value(), 1);
    const flow_latency flows[] = {vdsm_polling_2022_latency(), vdsm_immediate_latency()};
    for (const flow_latency& l : flows)
        for (std::uint64_t mib_s : {200u, 700u})
            for (std::uint64_t seed = 1; seed <= 4; ++seed) {
                CAPTURE(mib_s);
                CAPTURE(seed);
                const workload w = workload::make(20_GiB, rate(mib_s * mib), 100_GiB).value();
                auto r = simulate_domain(
                    cfg, l, [&](std::uint32_t d) noexcept { return d == 0 ? mixed(writer) : mixed(idle_agent); },
                    [&](std::uint32_t d) noexcept {
                        return d == 0 ? drive_workload::make(w).value() : drive_workload::idle(w);
                    },
                    seed);
                REQUIRE(r.has_value());
                check_same(r->drive(0).run, simulate_run(writer, l, w, run_seed(seed, 0)));
                // The idle drives are static vdsm-2022 agents: one chunk, 2560 MiB, and never extended; the writer
                // started at its rate-aware floor's 1 GiB (vdsm-legacy).
                CHECK(r->drive(0).run.initial_size == 1_GiB);
                for (std::uint32_t d = 1; d < cfg.drives(); ++d) {
                    CHECK(r->drive(d).run.initial_size == bytes(2560 * mib));
                    CHECK(r->drive(d).run.extends == 0);
                }
            }
}

TEST_CASE("either_agent forwards max_in_flight, and says which agent it holds") {
    const rate_aware_agent two(make_rate_aware_policy(vdsm_legacy().trigger().config, 6500_ms).value(), 2);
    const static_vdsm one(vdsm_2022());
    CHECK(max_in_flight(mixed(two)) == 2);
    CHECK(max_in_flight(mixed(one)) == 1);
    CHECK(mixed(one).index() == 0);
    CHECK(mixed(two).index() == 1);
    CHECK(mixed(one).first().policy().trigger().config.chunk_mb() == 2560);
    const drive_state s{drive_capacity(100_GiB), drive_physical(2560_MiB), drive_allocation(600_MiB)};
    CHECK(mixed(one).decide(s).action == one.decide(s).action);
    CHECK(mixed(one).decide(s).lv_size_after_extend == bytes(5120 * mib));
}

// A drive_workload is an aggregate, and one with a trace whose base write_size is not the trace's
// last point was accepted: the drive finishes when it has written write_size, so with more it never finished (the
// domain ran to its duration) and with less it stopped inside the trace.
TEST_CASE("drive_workload::check refuses a trace whose write_size is not the trace's total") {
    const trace_point t[] = {{0.0_s, bytes(0)}, {30.0_s, 6_GiB}};
    const drive_workload made = drive_workload::make_trace(t, 2, 12_GiB).value();
    CHECK(made.base.write_size == 6_GiB);
    CHECK(drive_workload::check(made).has_value());
    for (const bytes size : {7_GiB, 5_GiB}) {
        drive_workload d = made;
        d.base.write_size = size;
        const auto c = drive_workload::check(d);
        REQUIRE_FALSE(c.has_value());
        CHECK(std::string(c.error().message().view()) == "write_size (" + std::string(format_size(size).view()) +
                                                             ") must equal the trace's last bytes_written (6GiB)");
        const auto r = simulate_domain(
            domain_config::make(1, 1, 1e6_s).value(), vdsm_mailbox_events_latency(),
            [](std::uint32_t) noexcept { return static_vdsm(vdsm_2022()); }, [&d](std::uint32_t) noexcept { return d; },
            1);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().setting() == text_view("write_size"));
    }
}
