// Tests of provpol/latency.hpp: the closed-form pipeline distribution against known values and against its
// own sampler, the built-in profiles against the measurements they cite, and measured samples.
#include "test_support.hpp"

#include <provpol/latency.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

using namespace provpol;

namespace {

pipeline_latency uniforms(std::initializer_list<std::pair<double, double>> ranges) {
    std::vector<latency_stage> stages;
    for (const auto& [lo, hi] : ranges) stages.push_back({"stage", lo, hi, false});
    return pipeline_latency::make(stages.data(), stages.size()).value();
}

}  // namespace

TEST_CASE("pipeline: the closed form matches the Irwin-Hall distribution") {
    // Three waits uniform on [0, 1): P(S > x) = (3 - x)^3 / 6 for 2 <= x <= 3; P(S <= x) = x^3 / 6 for x <= 1.
    const pipeline_latency l = uniforms({{0, 1}, {0, 1}, {0, 1}});
    CHECK(l.mean() == doctest::Approx(1.5));
    CHECK(l.exceed_probability(2.21) == doctest::Approx(0.79 * 0.79 * 0.79 / 6).epsilon(1e-12));
    CHECK(l.cdf(0.5) == doctest::Approx(0.125 / 6).epsilon(1e-12));
    CHECK(l.exceed_probability(1.5) == doctest::Approx(0.5).epsilon(1e-12));
    // Between 1 and 2: F(x) = (-2x^3 + 9x^2 - 9x + 3) / 6.
    const double x = 1.698;
    CHECK(l.cdf(x) == doctest::Approx((-2 * x * x * x + 9 * x * x - 9 * x + 3) / 6).epsilon(1e-12));
    CHECK(l.exceed_probability(-1.0) == 1.0);
    CHECK(l.exceed_probability(3.0) == 0.0);
    // The far tail is computed from the mirror image, not as 1 - (1 - tiny).
    CHECK(l.exceed_probability(2.999) == doctest::Approx(1e-9 / 6).epsilon(1e-6));
    CHECK(l.exceed_probability(2.999) > 0.0);
}

TEST_CASE("pipeline: unequal widths and fixed stages against a two-stage convolution") {
    // U[0,2) + U[0,0.5) + 0.7 fixed: P(S <= x) for the sum of the two uniforms (trapezoid distribution).
    const pipeline_latency l = uniforms({{0, 2}, {0.7, 0.7}, {0, 0.5}});
    CHECK(l.min() == doctest::Approx(0.7));
    CHECK(l.max() == doctest::Approx(3.2));
    CHECK(l.mean() == doctest::Approx(1.95));
    auto trapezoid_cdf = [](double y) {  // sum of U[0,2) and U[0,0.5)
        if (y <= 0) return 0.0;
        if (y <= 0.5) return y * y / 2.0;
        if (y <= 2.0) return (0.125 + (y - 0.5) * 0.5) / 1.0;
        if (y <= 2.5) return 1.0 - (2.5 - y) * (2.5 - y) / 2.0;
        return 1.0;
    };
    for (double t : {0.7, 0.9, 1.2, 1.9, 2.6, 2.8, 3.1, 3.19}) {
        CAPTURE(t);
        CHECK(l.cdf(t) == doctest::Approx(trapezoid_cdf(t - 0.7)).epsilon(1e-12));
    }
}

TEST_CASE("pipeline: the sampler and the closed form agree (one million draws)") {
    const pipeline_latency l = vdsm_polling_2022_latency();
    detail::xoshiro256 rng(2022);
    constexpr int n = 1000000;
    const double points[] = {1.0, 2.0, 3.0, 3.7, 4.1, 5.12, 6.0, 6.5};
    int above[std::size(points)] = {};
    double sum = 0.0;
    for (int i = 0; i < n; ++i) {
        const double v = l.sample(rng);
        sum += v;
        REQUIRE((v >= l.min() && v < l.max()));
        for (std::size_t k = 0; k < std::size(points); ++k) above[k] += v > points[k];
    }
    CHECK(sum / n == doctest::Approx(l.mean()).epsilon(0.002));
    for (std::size_t k = 0; k < std::size(points); ++k) {
        CAPTURE(points[k]);
        // Binomial standard error at n = 1e6 is at most 5e-4: 0.0025 is five of them.
        CHECK(std::abs(static_cast<double>(above[k]) / n - l.exceed_probability(points[k])) < 0.0025);
    }
}

TEST_CASE("pipeline: quantile inverts the CDF") {
    const pipeline_latency l = vdsm_polling_2022_latency();
    for (double p : {0.001, 0.05, 0.5, 0.9, 0.99, 0.999999}) {
        CAPTURE(p);
        const double q = l.quantile(p);
        CHECK(l.cdf(q) >= p - 1e-9);
        CHECK(l.cdf(q - 1e-6) < p + 1e-9);
    }
    CHECK(l.quantile(0.0) == l.min());
    CHECK(l.quantile(1.0) == l.max());
    CHECK(l.quantile(0.5) == doctest::Approx(3.7).epsilon(1e-6));  // symmetric distribution
}

TEST_CASE("pipeline: validation names the setting and the range") {
    const latency_stage negative{"x", -1.0, 1.0, false};
    CHECK(std::string(pipeline_latency::make(&negative, 1).error().message().view()) ==
          "latency stage min_seconds must be in [0, 1000000], got -1");
    const latency_stage inverted{"x", 2.0, 1.0, false};
    CHECK(std::string(pipeline_latency::make(&inverted, 1).error().message().view()) ==
          "latency stage max_seconds must be in [2, 1000000], got 1");
    const latency_stage nan{"x", 0.0, std::numeric_limits<double>::quiet_NaN(), false};
    CHECK_FALSE(pipeline_latency::make(&nan, 1).has_value());
    latency_stage many[9] = {};
    CHECK(std::string(pipeline_latency::make(many, 9).error().message().view()) ==
          "latency stages must be in [1, 8], got 9");
    CHECK_FALSE(pipeline_latency::make(many, 0).has_value());
    const latency_stage late_detection[] = {{"a", 0, 1, false}, {"b", 0, 2, true}};
    CHECK(pipeline_latency::make(late_detection, 2).error().code() == errc::unsupported);
}

TEST_CASE("profiles reproduce the measurements they cite") {
    const pipeline_latency polling = vdsm_polling_2022_latency();
    CHECK(polling.mean() == doctest::Approx(3.7));  // the seed: mean 3.7 s
    CHECK(polling.min() <= 2.2);                    // the seed: 2.2 to 6.2 s
    CHECK(polling.max() >= 6.2);
    CHECK(polling.detection_period() == 2.0);
    const pipeline_latency events = vdsm_mailbox_events_latency();
    CHECK(events.min() <= 1.14);  // VDSM 4.50.0.11: 1.14 to 3.31 s
    CHECK(events.max() >= 3.31);
    CHECK(events.mean() == doctest::Approx(2.2));
    const pipeline_latency immediate = vdsm_immediate_latency();
    CHECK(immediate.min() <= 0.77);  // VDSM 4.50.1.1: 0.77 / 1.15 / 1.39 s
    CHECK(immediate.max() >= 1.39);
    CHECK(immediate.mean() == doctest::Approx(1.15).epsilon(0.05));
    CHECK(immediate.detection_period() == 0.0);

    CHECK(latency_profile("vdsm-polling-2022").value().mean() == doctest::Approx(3.7));
    CHECK(latency_profile("fixed:3.7").value().exceed_probability(3.69) == 1.0);
    CHECK(latency_profile("fixed:3.7").value().exceed_probability(3.7) == 0.0);
    CHECK(std::string(latency_profile("vdsm-2023").error().message().view()) ==
          "latency: unknown value 'vdsm-2023': expected one of vdsm-polling-2022, vdsm-mailbox-events, vdsm-immediate, "
          "fixed:SECONDS");
    CHECK(latency_profile("fixed:abc").error().text() == "fixed:abc");
    CHECK_FALSE(latency_profile("fixed:-1").has_value());
    CHECK_FALSE(latency_profile("fixed:").has_value());
}

TEST_CASE("pipeline: the detection poll is left to the simulator") {
    const pipeline_latency l = vdsm_polling_2022_latency();
    detail::xoshiro256 rng(1);
    double sum = 0.0;
    for (int i = 0; i < 100000; ++i) {
        const double v = l.sample_after_detection(rng);
        CHECK((v >= 0.5 && v < 4.9));
        sum += v;
    }
    CHECK(sum / 100000 == doctest::Approx(2.7).epsilon(0.01));  // 3.7 minus the 1 s mean wait of the monitor poll
}

TEST_CASE("empirical: measured samples are the distribution") {
    std::vector<double> s = {3.1, 2.2, 6.2, 3.7, 4.0, 2.9, 3.3, 5.1, 3.0, 3.5};
    const empirical_latency e = empirical_latency::make(s.data(), s.size()).value();
    CHECK(e.size() == 10);
    CHECK(e.min() == 2.2);
    CHECK(e.max() == 6.2);
    CHECK(e.mean() == doctest::Approx(37.0 / 10));
    CHECK(e.exceed_probability(4.0) == doctest::Approx(0.2));  // 5.1 and 6.2
    CHECK(e.exceed_probability(1.0) == 1.0);
    CHECK(e.exceed_probability(6.2) == 0.0);
    CHECK(e.quantile(0.5) == 3.3);  // the 5th of 10 sorted samples
    CHECK(e.quantile(0.95) == 6.2);
    CHECK(e.quantile(0.1) == 2.2);
    detail::xoshiro256 rng(4);
    int above4 = 0;
    for (int i = 0; i < 100000; ++i) above4 += e.sample(rng) > 4.0;
    CHECK(above4 / 100000.0 == doctest::Approx(0.2).epsilon(0.03));
}

TEST_CASE("empirical: more samples than kept are summarised by evenly spaced order statistics") {
    std::vector<double> s(100000);
    for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<double>((i * 7919) % s.size()) / 1000.0;  // 0..99.999
    const empirical_latency e = empirical_latency::make(s.data(), s.size()).value();
    CHECK(e.samples_given() == 100000);
    CHECK(e.size() == empirical_latency::capacity);
    CHECK(e.mean() == doctest::Approx(50.0).epsilon(0.001));
    CHECK(e.exceed_probability(90.0) == doctest::Approx(0.1).epsilon(0.01));
    CHECK(e.quantile(0.5) == doctest::Approx(50.0).epsilon(0.01));
}

TEST_CASE("empirical: validation") {
    std::vector<double> bad = {1.0, -0.5};
    CHECK(std::string(empirical_latency::make(bad.data(), bad.size()).error().message().view()) ==
          "latency sample must be in [0, 1000000], got -0.5");
    std::vector<double> inf = {1.0, std::numeric_limits<double>::infinity()};
    CHECK_FALSE(empirical_latency::make(inf.data(), inf.size()).has_value());
    CHECK_FALSE(empirical_latency::make(nullptr, 0).has_value());
}

TEST_CASE("latency_model dispatches to either model") {
    std::vector<double> s = {1.0, 2.0};
    const latency_model m1 = vdsm_immediate_latency();
    const latency_model m2 = empirical_latency::make(s.data(), s.size()).value();
    CHECK(m1.is_pipeline());
    CHECK_FALSE(m2.is_pipeline());
    CHECK(m1.mean() == doctest::Approx(1.2));
    CHECK(m2.mean() == 1.5);
    CHECK(m2.exceed_probability(1.5) == 0.5);
    CHECK(m1.quantile(0.5) == doctest::Approx(1.2).epsilon(1e-6));
    detail::xoshiro256 a(9), b(9);
    CHECK(m1.sample(a) == vdsm_immediate_latency().sample(b));  // same generator, same draw
}
