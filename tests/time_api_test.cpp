// The model layer's times are provpol::seconds: every latency, period, timeout, budget and result time of the public
// API, checked on the types (a bare double neither comes out nor goes in), and the latency contract that refuses a
// model of one's own whose times are bare doubles.
#include "test_support.hpp"

#include <provpol/models.hpp>

#include <doctest/doctest.h>

#include <type_traits>
#include <utility>

using namespace provpol;

namespace {

// Whether Op<Args...> is a valid expression (the detection idiom).
template <class, template <class...> class Op, class... Args>
struct detected : std::false_type {};
template <template <class...> class Op, class... Args>
struct detected<std::void_t<Op<Args...>>, Op, Args...> : std::true_type {};
template <template <class...> class Op, class... Args>
inline constexpr bool is_detected = detected<void, Op, Args...>::value;

// The queries every latency model answers.
template <class M>
using mean_of = decltype(std::declval<const M&>().mean());
template <class M>
using min_of = decltype(std::declval<const M&>().min());
template <class M>
using max_of = decltype(std::declval<const M&>().max());
template <class M>
using quantile_of = decltype(std::declval<const M&>().quantile(0.5));
template <class M>
using detection_of = decltype(std::declval<const M&>().detection_period());
template <class M>
using cdf_of_seconds = decltype(std::declval<const M&>().cdf(seconds(1)));
template <class M>
using cdf_of_double = decltype(std::declval<const M&>().cdf(1.0));
template <class M>
using exceed_of_double = decltype(std::declval<const M&>().exceed_probability(1.0));

template <class M>
constexpr bool times_are_seconds() {
    return std::is_same_v<mean_of<M>, seconds> && std::is_same_v<min_of<M>, seconds> &&
           std::is_same_v<max_of<M>, seconds> && std::is_same_v<quantile_of<M>, seconds> &&
           std::is_same_v<detection_of<M>, seconds> && std::is_same_v<cdf_of_seconds<M>, double> &&
           !is_detected<cdf_of_double, M> && !is_detected<exceed_of_double, M>;
}
static_assert(times_are_seconds<pipeline_latency>(), "pipeline_latency: times are seconds, probabilities double");
static_assert(times_are_seconds<empirical_latency>(), "empirical_latency: times are seconds");
static_assert(times_are_seconds<flow_latency>(), "flow_latency: times are seconds");
static_assert(times_are_seconds<latency_model>(), "latency_model: times are seconds");

// The run and its clocks.
static_assert(std::is_same_v<decltype(std::declval<const flow_latency&>().complete(std::declval<flow_run&>(), seconds(),
                                                                                   std::declval<random_stream&>())),
                             seconds>);
static_assert(std::is_same_v<decltype(flow_run{}.send_time), seconds>);
static_assert(std::is_same_v<decltype(flow_stage{}.min()), seconds>);
static_assert(std::is_same_v<decltype(flow_stage{}.period()), seconds>);
static_assert(std::is_same_v<decltype(latency_stage{}.max_seconds), seconds>);
static_assert(std::is_same_v<decltype(std::declval<const flow_latency&>().resend_timeout()), seconds>);
static_assert(std::is_same_v<decltype(next_clock_tick(seconds(), seconds(), seconds())), seconds>);
template <class T>
using clock_of = decltype(flow_stage::clock("c", std::declval<T>()));
static_assert(is_detected<clock_of, seconds> && !is_detected<clock_of, double>, "a clock's period is seconds");

// What the agent sees and what the controller hands out.
static_assert(std::is_same_v<decltype(observation{}.time), seconds>);
static_assert(std::is_same_v<decltype(observation{}.latency), seconds>);
static_assert(std::is_same_v<decltype(extend_in_flight{}.done_at), seconds>);
using vdsm_controller = extend_controller<static_agent<vdsm_policy>, latency_model>;
static_assert(std::is_same_v<decltype(std::declval<const vdsm_controller&>().next_tick()), seconds>);
static_assert(std::is_same_v<decltype(std::declval<const vdsm_controller&>().next_done()), seconds>);
static_assert(std::is_same_v<decltype(std::declval<const vdsm_controller&>().tick_period()), seconds>);
static_assert(!std::is_constructible_v<vdsm_controller, static_agent<vdsm_policy>, const latency_model&, bytes, double,
                                       std::uint64_t>,
              "extend_controller takes its monitor interval as seconds");

// Results.
static_assert(std::is_same_v<decltype(workload{}.monitor_interval), seconds>);
static_assert(std::is_same_v<decltype(run_result{}.pause_seconds), seconds>);
static_assert(std::is_same_v<decltype(run_result{}.duration), seconds>);
static_assert(std::is_same_v<decltype(simulation_summary{}.duration), seconds>);
static_assert(std::is_same_v<decltype(domain_summary{}.latency_p99), seconds>);
static_assert(std::is_same_v<decltype(domain_summary{}.elapsed), seconds>);
static_assert(std::is_same_v<decltype(domain_config{}.duration), seconds>);
static_assert(std::is_same_v<decltype(drive_workload{}.start), seconds>);
static_assert(std::is_same_v<decltype(trace_point{}.time), seconds>);
static_assert(std::is_same_v<decltype(writers_check{}.latency_p99), seconds>);
static_assert(std::is_same_v<decltype(lvm_run_result{}.queued), seconds>);
static_assert(std::is_same_v<decltype(lvm_plan_summary{}.queued_max), seconds>);
static_assert(std::is_same_v<decltype(std::declval<const exposure_tracker&>().exposure()), seconds>);
static_assert(std::is_same_v<decltype(std::declval<const load_adaptation&>().half_life()), seconds>);
static_assert(std::is_same_v<decltype(latency_budget(std::declval<const latency_model&>(), 0.99)), milliseconds>);

// The fitters.
static_assert(std::is_same_v<decltype(std::declval<const vdsm_extend_record&>().get(vdsm_stage::total)), seconds>);
static_assert(std::is_same_v<decltype(vdsm_stage_statistics{}.p99), seconds>);
static_assert(std::is_same_v<decltype(vdsm_fit_sample{}.trip), seconds>);
static_assert(std::is_same_v<decltype(vdsm_log_fit{}.poll_interval), seconds>);
static_assert(std::is_same_v<decltype(cost_model{}.latency_seconds), seconds>);
static_assert(std::is_same_v<decltype(std::declval<const cost_model&>().seconds_to_write(bytes(), bytes())), seconds>);
static_assert(std::is_same_v<decltype(deadline_plan{}.budget_seconds), seconds>);

// A latency model of one's own: its times must be seconds; one that returns bare doubles is refused.
struct seconds_model {
    seconds detection_period() const noexcept { return seconds(0); }
    seconds sample_after_detection(random_stream&) const noexcept { return seconds(1); }
};
struct double_model {
    double detection_period() const noexcept { return 0.0; }
    double sample_after_detection(random_stream&) const noexcept { return 1.0; }
};
struct double_flow_model {
    double detection_period() const noexcept { return 0.0; }
    flow_run start_run(random_stream&) const noexcept { return {}; }
    double complete(flow_run&, double t, random_stream&) const noexcept { return t + 1.0; }
};
static_assert(detail::is_simulated_latency_v<seconds_model>);
static_assert(!detail::is_simulated_latency_v<double_model>, "a model's times are seconds, not bare doubles");
static_assert(!detail::is_simulated_latency_v<double_flow_model>, "a flow model's times are seconds too");
static_assert(detail::is_simulated_latency_v<flow_latency> && detail::is_simulated_latency_v<latency_model> &&
              detail::is_simulated_latency_v<pipeline_latency> && detail::is_simulated_latency_v<empirical_latency>);

}  // namespace

TEST_CASE("a model of one's own with seconds runs: the extend's latency is the model's") {
    const workload w = workload::make(4_GiB, rate(256ULL << 20), 10_GiB).value();
    const run_result r = simulate_run(static_agent<vdsm_policy>(vdsm_legacy()), seconds_model{}, w, 1);
    CHECK(r.extends == 4);  // thresholds at 0.5, 1.5, 2.5 and 3.5 GiB; 1 s extends never pause 256 MiB/s
    CHECK(r.pauses == 0);
    CHECK(r.duration.count() == doctest::Approx(16.0));
}

// The duration literals: every unit parse_seconds reads has a floating literal, a provpol::seconds, that reads the
// text as parse_seconds reads it.
static_assert(std::is_same_v<decltype(1.5_min), seconds>);
static_assert(std::is_same_v<decltype(0.5_ms), seconds>);
static_assert(1.5_min == seconds(90.0));
static_assert(std::is_same_v<decltype(0.5_h), seconds>);
static_assert(0.5_h == seconds(1800.0) && seconds(2_h) == seconds(7200.0));

TEST_CASE("the floating duration literals read as parse_seconds reads the same text") {
    CHECK(1.5_min == parse_seconds("1.5min", "t").value());
    CHECK(0.25_min == parse_seconds("0.25min", "t").value());
    CHECK(2.5_s == parse_seconds("2.5s", "t").value());
    CHECK(0.5_ms == parse_seconds("0.5ms", "t").value());
    CHECK(0.5_h == parse_seconds("0.5h", "t").value());
    CHECK(1.25_h == parse_seconds("1.25h", "t").value());
    CHECK(seconds(1.5_min) + 500_ms == seconds(90.5));
}
