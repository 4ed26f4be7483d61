// Tests of provpol/vdsm_log.hpp: the parser on VDSM's extend lines and on broken ones, the statistics against
// contrib/extend-stats' arithmetic (values Python computed, and an independent computation), and the fit on
// synthetic VDSM logs made from flow models with known parameters.
#include "test_support.hpp"

#include <provpol/latency.hpp>
#include <provpol/vdsm_log.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

using namespace provpol;

namespace {

const char* const vdsm_line =
    "2022-03-23 03:57:59,502+0200 INFO  (mailbox-hsm/3) [virt.vm] (vmId='108e7903-08a0-42b7-94cd-2e18272bda06') "
    "Extend volume 7d859aa5-feb5-4fa1-8ab4-657976a9888c completed <Clock(total=1.65, wait=0.28, extend-volume=1.09, "
    "refresh-volume=0.28)> (thinp:567)";

std::string clock_line(const std::string& clock, const char* what = "Extend volume") {
    return "2022-03-23 03:57:59,502+0200 INFO  (mailbox-hsm/3) [virt.vm] (vmId='108e') " + std::string(what) +
           " 7d85 completed <Clock(" + clock + ")> (thinp:567)";
}

std::string error_of(const std::string& line) {
    const auto r = parse_vdsm_extend_line(line);
    return r ? std::string("(no error)") : std::string(r.error().message().view());
}

}  // namespace

TEST_CASE("vdsm log: an extend completion line, as thinp.py logs it") {
    const auto r = parse_vdsm_extend_line(vdsm_line);
    REQUIRE(r);
    CHECK(r->what == vdsm_extend_record::kind::volume);
    CHECK(r->get(vdsm_stage::total) == 1.65);
    CHECK(r->get(vdsm_stage::wait) == 0.28);
    CHECK(r->get(vdsm_stage::extend_volume) == 1.09);
    CHECK(r->get(vdsm_stage::refresh_volume) == 0.28);
    CHECK_FALSE(r->has(vdsm_stage::extend_replica));
    CHECK(r->present == 0xfU);
    // CRLF, and a line that ends right after the Clock.
    const auto crlf = parse_vdsm_extend_line(std::string(vdsm_line) + "\r");
    REQUIRE(crlf);
    CHECK(crlf->get(vdsm_stage::refresh_volume) == 0.28);
    const auto bare = parse_vdsm_extend_line(
        "Extend volume x completed <Clock(total=1.65, extend-volume=1.09, "
        "refresh-volume=0.28)>\r\r");
    REQUIRE(bare);
    CHECK_FALSE(bare->has(vdsm_stage::wait));  // no threshold event: no wait timer
}

TEST_CASE("vdsm log: replica, migration and unknown timers") {
    const auto both = parse_vdsm_extend_line(clock_line(
        "total=4.10, wait=0.50, extend-replica=1.20, refresh-replica=0.30, extend-volume=1.80, refresh-volume=0.30"));
    REQUIRE(both);
    CHECK(both->what == vdsm_extend_record::kind::volume);
    CHECK(both->get(vdsm_stage::extend_replica) == 1.2);
    CHECK(both->get(vdsm_stage::refresh_replica) == 0.3);
    CHECK(both->get(vdsm_stage::extend_volume) == 1.8);
    const auto replica = parse_vdsm_extend_line(
        clock_line("total=2.00, wait=0.50, extend-replica=1.20, refresh-replica=0.30", "Extend replica"));
    REQUIRE(replica);
    CHECK(replica->what == vdsm_extend_record::kind::replica);
    CHECK_FALSE(replica->has(vdsm_stage::extend_volume));
    const auto migration = parse_vdsm_extend_line(
        clock_line("total=2.00, wait=0.50, extend-volume=1.00, refresh-destination-volume=0.20, refresh-volume=0.30"));
    REQUIRE(migration);
    CHECK(migration->get(vdsm_stage::refresh_destination_volume) == 0.2);
    const auto unknown =
        parse_vdsm_extend_line(clock_line("total=2.00, extend-volume=1.00, future-timer=0.20, refresh-volume=0.30"));
    REQUIRE(unknown);
    CHECK(unknown->present == (1U | 4U | 8U));
}

TEST_CASE("vdsm log: other lines are not extend lines") {
    for (const char* line : {"", "garbage", "\r", "Extend volume x completed", "completed <Clock", "<Clock(total=1.0)>",
                             "2022-03-23 INFO (mailbox-hsm/3) [storage.mailbox] sending extend request"}) {
        const auto r = parse_vdsm_extend_line(line);
        REQUIRE(r);
        CHECK(r->what == vdsm_extend_record::kind::none);
    }
    // Binary junk with NUL bytes and the marker's prefix.
    const std::string junk("\0\xff completed <Cloc\0k(", 22);
    const auto r = parse_vdsm_extend_line(junk);
    REQUIRE(r);
    CHECK(r->what == vdsm_extend_record::kind::none);
}

TEST_CASE("vdsm log: malformed extend lines are errors that name the timer and the value") {
    CHECK(error_of(clock_line("total=1.65, wait=nan, extend-volume=1.09, refresh-volume=0.28")) ==
          "Clock wait: invalid value 'nan': expected a decimal number such as 0.5, 3.7 or 1e-3");
    CHECK(error_of(clock_line("total=1.65, wait=inf, extend-volume=1.09, refresh-volume=0.28")) ==
          "Clock wait: invalid value 'inf': expected a decimal number such as 0.5, 3.7 or 1e-3");
    CHECK(error_of(clock_line("total=-1.65, wait=0.28, extend-volume=1.09, refresh-volume=0.28")) ==
          "Clock total: invalid value '-1.65': negative values are not accepted");
    CHECK(error_of(clock_line("total=1.65, wait=0.28, extend-volume=1.09, refresh-volume=1e6")) ==
          "Clock refresh-volume must be in [0, 100000], got 1000000");
    CHECK(error_of(clock_line("total=1.65*, wait=0.28, extend-volume=1.09, refresh-volume=0.28")) ==
          "Clock total: invalid value '1.65*': a running timer, not a completed extend");
    CHECK(error_of(clock_line("total=1.65, wait=, extend-volume=1.09, refresh-volume=0.28")) ==
          "Clock wait: invalid value '': empty; expected a decimal number");
    CHECK(error_of(clock_line("total=1.65, total=1.0, extend-volume=1.09, refresh-volume=0.28")) ==
          "Clock total: invalid value 'total': the timer appears twice");
    CHECK(error_of(clock_line("wait=0.28, extend-volume=1.09, refresh-volume=0.28")) ==
          "vdsm log Clock: an extend line without the total timer");
    CHECK(error_of(clock_line("total=1.65, wait=0.28, extend-volume=1.09")).find("without its extend and refresh") !=
          std::string::npos);
    CHECK(error_of(clock_line("total=1.65, extend-replica=1.09, refresh-replica=0.2")).find("without its extend") !=
          std::string::npos);  // an "Extend volume" line needs extend-volume
    CHECK(
        error_of(clock_line("total=1.65,wait=0.28, extend-volume=1.09, refresh-volume=0.28")) ==
        "vdsm log Clock: invalid value ',wait=0.28, extend-v...': expected \", \" between timers");  // cut at
                                                                                                     // error::max_text
    CHECK(error_of(clock_line("total 1.65, extend-volume=1.09, refresh-volume=0.28")) ==
          "vdsm log Clock: invalid value 'total 1.65': expected name=seconds");
    CHECK(error_of(clock_line("")) == "vdsm log Clock: invalid value '': expected name=seconds");
    // Truncated Clocks: cut anywhere after the marker, the line is malformed, never a record.
    const std::string full = clock_line("total=1.65, wait=0.28, extend-volume=1.09, refresh-volume=0.28");
    const std::size_t marker = full.find("completed <Clock(") + 17;
    for (std::size_t cut = marker; cut < full.find(")>") + 2; ++cut) {
        CAPTURE(cut);
        const auto r = parse_vdsm_extend_line(full.substr(0, cut));
        CHECK_FALSE(r);
    }
    CHECK(error_of(full.substr(0, full.find(")>") + 1)) ==
          "vdsm log Clock: invalid value 'refresh-volume=0.28)': "
          "truncated: no closing )>");
    // A huge line is read in one pass: 4 MB of noise, then the Clock.
    const std::string huge = std::string(4u << 20, 'x') + full;
    const auto h = parse_vdsm_extend_line(huge);
    REQUIRE(h);
    CHECK(h->get(vdsm_stage::extend_volume) == 1.09);
}

TEST_CASE("vdsm log statistics: extend-stats' arithmetic, as Python computed it") {
    // Python 3.11: d = sorted(v); d[0], sum(d) / len(d), d[-1], statistics.median(d),
    // statistics.quantiles(d, n=100, method='inclusive')[89] and [98].
    std::vector<double> v = {3.05, 1.65, 2.65};
    vdsm_stage_statistics s = vdsm_stage_stats(v.data(), v.size());
    CHECK(s.samples == 3);
    CHECK(s.min == 1.65);
    CHECK(s.mean == 2.4499999999999997);
    CHECK(s.max == 3.05);
    CHECK(s.median == 2.65);
    CHECK(s.p90 == 2.97);
    CHECK(s.p99 == 3.042);
    std::vector<double> w = {0.28, 1.09, 0.59, 0.89, 0.01, 1.98, 0.56, 0.1, 0.3, 1.15};
    s = vdsm_stage_stats(w.data(), w.size());
    CHECK(s.min == 0.01);
    CHECK(s.mean == 0.6950000000000001);
    CHECK(s.max == 1.98);
    CHECK(s.median == 0.575);
    CHECK(s.p90 == 1.2329999999999999);
    CHECK(s.p99 == 1.9053);
    CHECK(std::is_sorted(w.begin(), w.end()));
    // One sample; none.
    double one = 0.7;
    s = vdsm_stage_stats(&one, 1);
    CHECK((s.min == 0.7 && s.mean == 0.7 && s.median == 0.7 && s.p90 == 0.7 && s.p99 == 0.7 && s.max == 0.7));
    s = vdsm_stage_stats(nullptr, 0);
    CHECK(s.samples == 0);
}

namespace {

// contrib/extend-stats' arithmetic, written again with the standard library: sort, add left to right, divide;
// the median and the inclusive percentiles as Python's statistics module defines them.
vdsm_stage_statistics reference_stats(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    vdsm_stage_statistics s;
    s.samples = v.size();
    s.min = v.front();
    s.max = v.back();
    s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    const std::size_t n = v.size();
    s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    auto q = [&](std::size_t i) {
        const std::size_t pos = i * (n - 1), j = pos / 100, delta = pos - j * 100;
        return (v[j] * static_cast<double>(100 - delta) + v[j + 1] * static_cast<double>(delta)) / 100;
    };
    s.p90 = q(90);
    s.p99 = q(99);
    return s;
}

std::string two_decimals(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

// A synthetic VDSM log from a flow of the profiles' structure with known parameters: runs (VMs) of extends
// whose block threshold events come every 8 to 20 s; each line's Clock as thinp.py times it:
// wait = request - event, extend-volume = reply seen + inbox read - request, refresh-volume, total.
struct synthetic_log {
    std::vector<std::string> lines;
    std::size_t mismatches = 0;  // extends where the stages' sum differs from the whole flow's complete()
};

synthetic_log make_log(const flow_latency& full, std::size_t runs, std::size_t extends, std::uint64_t seed) {
    synthetic_log out;
    // The flow's parts, run one after the other with the same draws as the whole flow.
    const bool monitor = full.stage(0).kind == flow_stage_kind::monitor;
    flow_stage trip_stages[5], detect_stage = full.stage(0), refresh_stage = full.stage(6);
    for (std::size_t i = 0; i < 5; ++i) trip_stages[i] = full.stage(i + 1);
    const flow_latency detect = flow_latency::make(&detect_stage, 1).value();
    const flow_latency trip = flow_latency::make(trip_stages, 5).value();
    const flow_latency refresh = flow_latency::make(&refresh_stage, 1).value();
    random_stream events(seed ^ 0x5eedULL);
    for (std::size_t r = 0; r < runs; ++r) {
        random_stream rng(seed + r), whole(seed + r);
        const double period = full.detection_period();
        const double phase = monitor ? period * rng.uniform() : 0.0;
        if (monitor) (void)whole.uniform();
        flow_run detect_run = detect.start_run(rng), trip_run = trip.start_run(rng),
                 refresh_run = refresh.start_run(rng);
        flow_run whole_run = full.start_run(whole);
        double event = 5.0 * events.uniform();
        for (std::size_t e = 0; e < extends; ++e) {
            event += 8.0 + 12.0 * events.uniform();
            const double request = monitor ? phase + period * std::ceil((event - phase) / period)
                                           : detect.complete(detect_run, event, rng);
            const double seen = trip.complete(trip_run, request, rng);
            const double done = refresh.complete(refresh_run, seen, rng);
            const double whole_done = full.complete(whole_run, monitor ? request : event, whole);
            if (std::fabs(whole_done - done) > 1e-9) ++out.mismatches;
            out.lines.push_back(
                "2022-03-23 03:57:59,502+0200 INFO  (mailbox-hsm/3) [virt.vm] (vmId='vm-" + std::to_string(r) +
                "') Extend volume 7d85-" + std::to_string(e) + " completed <Clock(total=" + two_decimals(done - event) +
                ", wait=" + two_decimals(request - event) + ", extend-volume=" + two_decimals(seen - request) +
                ", refresh-volume=" + two_decimals(done - seen) + ")> (thinp:567)");
        }
    }
    return out;
}

struct parsed_log {
    std::vector<double> stage[vdsm_stage_count];
    vdsm_log_samples samples() {
        vdsm_log_samples s;
        for (std::size_t i = 0; i < vdsm_stage_count; ++i) {
            s.data[i] = stage[i].data();
            s.count[i] = stage[i].size();
        }
        return s;
    }
};

parsed_log parse_log(const std::vector<std::string>& lines) {
    parsed_log p;
    for (const std::string& l : lines) {
        const auto r = parse_vdsm_extend_line(l);
        REQUIRE(r);
        REQUIRE(r->what == vdsm_extend_record::kind::volume);
        for (std::size_t i = 0; i < vdsm_stage_count; ++i)
            if (r->has(static_cast<vdsm_stage>(i))) p.stage[i].push_back(r->seconds[i]);
    }
    return p;
}

// The criterion, per fitted stage: the model's mean within 5% of the log's, its min and max within 10%
// (0.02 s, two of the Clock's hundredths, when the log's value is under 0.2 s). Returns what fails.
std::string criterion(const char* stage, const vdsm_stage_fit& f) {
    std::string failed;
    auto near = [&](const char* what, double model, double log, double share) {
        const double tolerance = std::fabs(log) < 0.2 ? 0.02 : share * std::fabs(log);
        if (!(std::fabs(model - log) <= tolerance))
            failed += std::string(stage) + " " + what + ": model " + std::to_string(model) + ", log " +
                      std::to_string(log) + "; ";
    };
    near("mean", f.model_mean, f.log_mean, 0.05);
    near("min", f.model_min, f.log_min, 0.10);
    near("max", f.model_max, f.log_max, 0.10);
    return failed;
}

std::string criteria(const vdsm_log_fit& f) {
    std::string failed = criterion("wait", f.wait) + criterion("extend-volume", f.extend_volume) +
                         criterion("refresh-volume", f.refresh_volume);
    // The total: the mean within 5%, and the log's range inside the model's (the sum of the stages' extremes is
    // rarer than any sample of a thousand).
    if (!(std::fabs(f.total.model_mean - f.total.log_mean) <= 0.05 * f.total.log_mean))
        failed +=
            "total mean: model " + std::to_string(f.total.model_mean) + ", log " + std::to_string(f.total.log_mean);
    if (!(f.total.model_min <= f.total.log_min + 0.01 && f.total.log_max <= f.total.model_max + 0.01))
        failed += "total range: the model's does not cover the log's";
    return failed;
}

struct known_case {
    const char* name;
    flow_latency model;
    vdsm_detection detection;
    bool events;
    double monitor_period;  // 0 for an event
    double read_lo, read_hi, refresh_lo, refresh_hi, work_mean;
};

flow_latency custom_flow() {
    const flow_stage stages[] = {flow_stage::monitor("watermark monitor", 2.0),
                                 flow_stage::send("host mailbox send", 0.0, 0.0),
                                 flow_stage::clock("SPM event block check", 0.5, 0.00125),
                                 flow_stage::delay("SPM work", 0.30, 0.45),
                                 flow_stage::reply_poll("host mailbox reply poll", 0.5),
                                 flow_stage::delay("host inbox read", 0.05, 0.12),
                                 flow_stage::delay("LV refresh", 0.25, 0.60)};
    return flow_latency::make(stages, 7).value();
}

}  // namespace

TEST_CASE("vdsm log fit: synthetic logs from flows with known parameters") {
    const known_case cases[] = {
        {"vdsm-polling-2022", vdsm_polling_2022_latency(), vdsm_detection::monitor, false, 2.0, 0.04, 0.15, 0.15, 0.34,
         0.32},
        {"vdsm-mailbox-events", vdsm_mailbox_events_latency(), vdsm_detection::monitor, true, 2.0, 0.04, 0.15, 0.19,
         0.38, 0.32},
        {"vdsm-immediate", vdsm_immediate_latency(), vdsm_detection::event, true, 0.0, 0.04, 0.15, 0.16, 0.31, 0.32},
        {"custom events, slow SPM and refresh", custom_flow(), vdsm_detection::monitor, true, 2.0, 0.05, 0.12, 0.25,
         0.60, 0.375},
    };
    std::vector<vdsm_log_fit> fits;
    for (const known_case& c : cases) {
        CAPTURE(c.name);
        const synthetic_log log = make_log(c.model, 50, 20, 2022);
        CHECK(log.mismatches == 0);  // the stages as logged add up to the whole flow's complete()
        REQUIRE(log.lines.size() == 1000);
        parsed_log p = parse_log(log.lines);
        // Statistics: extend-stats' arithmetic, recomputed independently.
        for (std::size_t i = 0; i < 4; ++i) {
            CAPTURE(i);
            const vdsm_stage_statistics ref = reference_stats(p.stage[i]);
            const vdsm_stage_statistics s = vdsm_stage_stats(p.stage[i].data(), p.stage[i].size());
            CHECK(s.samples == ref.samples);
            CHECK(s.min == ref.min);
            CHECK(s.mean == ref.mean);
            CHECK(s.median == ref.median);
            CHECK(s.p90 == ref.p90);
            CHECK(s.p99 == ref.p99);
            CHECK(s.max == ref.max);
        }
        const auto fit = fit_vdsm_log(p.samples());
        REQUIRE(fit);
        const vdsm_log_fit& f = *fit;
        INFO(std::string(c.name) << ": period " << f.monitor_period.max << ", dispatch " << f.dispatch.min << "-"
                                 << f.dispatch.max << ", work " << f.spm_work.min << "-" << f.spm_work.max << ", read "
                                 << f.inbox_read.min << "-" << f.inbox_read.max << ", refresh " << f.refresh.min << "-"
                                 << f.refresh.max << "; trip log " << f.extend_volume.log_min << "/"
                                 << f.extend_volume.log_mean << "/" << f.extend_volume.log_max << " model "
                                 << f.extend_volume.model_min << "/" << f.extend_volume.model_mean << "/"
                                 << f.extend_volume.model_max << "; total log " << f.total.log_min << "/"
                                 << f.total.log_mean << "/" << f.total.log_max << " model " << f.total.model_min << "/"
                                 << f.total.model_mean << "/" << f.total.model_max);
        CHECK(f.detection == c.detection);
        CHECK(f.mailbox_events == c.events);
        CHECK(f.poll_interval == (c.events ? 0.5 : 2.0));
        if (c.detection == vdsm_detection::monitor) {
            CHECK(f.monitor_period.max == doctest::Approx(c.monitor_period).epsilon(0.03));
            CHECK(f.model.detection_period() == f.monitor_period.max);
        } else {
            CHECK(f.dispatch.min == doctest::Approx(0.01).epsilon(0.5));
            CHECK(f.dispatch.max == doctest::Approx(0.03).epsilon(0.5));
            CHECK(f.model.detection_period() == 0.0);
        }
        // The known ranges, within the Clock's 0.01 s resolution (plus sampling).
        CHECK(std::fabs(f.inbox_read.min - c.read_lo) < 0.02);
        CHECK(std::fabs(f.inbox_read.max - c.read_hi) < 0.02);
        CHECK(std::fabs(f.refresh.min - c.refresh_lo) < 0.02);
        CHECK(std::fabs(f.refresh.max - c.refresh_hi) < 0.02);
        CHECK(std::fabs((f.spm_work.min + f.spm_work.max) / 2 - c.work_mean) < 0.05);
        CHECK(f.below_first_poll == 0);
        // The criterion.
        CHECK(criteria(f) == "");
        // The model's stage figures are the sub-flows' exact marginals: the wait of a monitor is [0, period).
        if (c.detection == vdsm_detection::monitor) {
            CHECK(f.wait.model_min == 0.0);
            CHECK(f.wait.model_mean == doctest::Approx(f.monitor_period.max / 2));
        }
        fits.push_back(f);
    }
    // The criterion can fail: the polling log's figures against the events model, and the reverse.
    vdsm_log_fit crossed = fits[0];
    crossed.extend_volume = {fits[0].extend_volume.log_min,    fits[0].extend_volume.log_mean,
                             fits[0].extend_volume.log_max,    fits[1].extend_volume.model_min,
                             fits[1].extend_volume.model_mean, fits[1].extend_volume.model_max};
    CHECK(criteria(crossed) != "");
    crossed = fits[2];
    crossed.wait = {fits[2].wait.log_min,   fits[2].wait.log_mean,   fits[2].wait.log_max,
                    fits[1].wait.model_min, fits[1].wait.model_mean, fits[1].wait.model_max};
    CHECK(criteria(crossed) != "");
}

TEST_CASE("vdsm log fit: a skewed stage keeps its mean, and the samples above are counted") {
    // extend-stats' refresh: 0.19 to 0.40 s, and one 0.60 s.
    std::vector<double> wait, trip, refresh;
    for (int i = 0; i < 100; ++i) {
        wait.push_back(0.02 * i);
        trip.push_back(0.56 + 0.005 * i);
        refresh.push_back(0.19 + 0.002 * (i % 100));
    }
    refresh.back() = 0.60;
    vdsm_log_samples s;
    s.data[1] = wait.data();
    s.count[1] = wait.size();
    s.data[2] = trip.data();
    s.count[2] = trip.size();
    s.data[3] = refresh.data();
    s.count[3] = refresh.size();
    const auto f = fit_vdsm_log(s);
    REQUIRE(f);
    const double mean = std::accumulate(refresh.begin(), refresh.end(), 0.0) / 100;
    CHECK(f->refresh.mean_kept);
    CHECK(f->refresh.above >= 1);
    CHECK((f->refresh.min + f->refresh.max) / 2 == doctest::Approx(mean));
    CHECK(f->refresh.max < 0.6);
    CHECK(f->total.log_mean == 0.0);  // no total timers were given: nothing to compare
}

TEST_CASE("vdsm log fit: errors name the stage that is missing") {
    std::vector<double> x = {0.5, 0.7};
    vdsm_log_samples s;
    const auto none = fit_vdsm_log(s);
    REQUIRE_FALSE(none);
    CHECK(std::string(none.error().message().view()) == "Clock wait: no samples in the log: cannot fit a flow model");
    s.data[1] = x.data();
    s.count[1] = x.size();
    s.data[2] = x.data();
    s.count[2] = x.size();
    const auto no_refresh = fit_vdsm_log(s);
    REQUIRE_FALSE(no_refresh);
    CHECK(std::string(no_refresh.error().message().view()) ==
          "Clock refresh-volume: no samples in the log: cannot fit a flow model");
}

TEST_CASE("vdsm log fit: outliers and degenerate logs still give a valid model") {
    // 200 extends of the events flow's shape, then one stuck for 2000 s (an SPM failover), a 1e5 s refresh and a
    // 600 s wait.
    std::vector<double> wait, trip, refresh;
    for (int i = 0; i < 200; ++i) {
        wait.push_back(0.01 * i);
        trip.push_back(0.5 * (1 + i % 2) + 0.04 + 0.0005 * i);
        refresh.push_back(0.2 + 0.001 * i);
    }
    wait.push_back(600.0);
    trip.push_back(2000.0);
    refresh.push_back(1e5);
    vdsm_log_samples s;
    s.data[1] = wait.data();
    s.count[1] = wait.size();
    s.data[2] = trip.data();
    s.count[2] = trip.size();
    s.data[3] = refresh.data();
    s.count[3] = refresh.size();
    const auto f = fit_vdsm_log(s);
    REQUIRE(f);
    CHECK(f->detection == vdsm_detection::monitor);
    CHECK(f->monitor_period.mean_kept);  // the 600 s wait: the period is twice the mean
    CHECK(f->monitor_period.max == doctest::Approx(2.0 * std::accumulate(wait.begin(), wait.end(), 0.0) / 201));
    CHECK(f->polls_max == 4000);
    CHECK(f->refresh.mean_kept);
    CHECK(f->refresh.above == 1);
    CHECK(f->model.max() < 1e5);
    // The means still match the log's: the model is honest about the average, and says where it cut.
    CHECK(f->extend_volume.model_mean == doctest::Approx(f->extend_volume.log_mean).epsilon(1e-6));
    CHECK(f->refresh_volume.model_mean == doctest::Approx(f->refresh_volume.log_mean).epsilon(1e-6));

    // Every wait 0 (an event dispatched within the Clock's 0.01 s), every round trip under one poll.
    std::vector<double> zeros(10, 0.0), short_trips(10, 0.3), one_refresh(1, 0.25);
    vdsm_log_samples d;
    d.data[1] = zeros.data();
    d.count[1] = zeros.size();
    d.data[2] = short_trips.data();
    d.count[2] = short_trips.size();
    d.data[3] = one_refresh.data();
    d.count[3] = one_refresh.size();
    const auto g = fit_vdsm_log(d);
    REQUIRE(g);
    CHECK(g->detection == vdsm_detection::event);
    CHECK(g->dispatch.min == 0.0);
    CHECK(g->dispatch.max == 0.0);
    CHECK(g->below_first_poll == 10);  // reported: the mode does not explain them
    CHECK(g->refresh.min == 0.25);
    CHECK(g->refresh.max == 0.25);
    CHECK(g->model.min() >= 0.5);
}

TEST_CASE("vdsm log fit: the ranges' end points, by hand") {
    // Waits 0.5, 1.0, 1.5: a monitor's period max x (n + 1) / n = 2.0 (mean 1.0, the period's middle).
    // Round trips 0.6, 0.7, 1.1 with 0.5 s polls: reads 0.1, 0.2, 0.1, widened by w / (n - 1) = 0.05 each side.
    // Refreshes 0.2, 0.3, 0.4: [0.2 - 0.1, 0.4 + 0.1].
    std::vector<double> wait = {1.0, 0.5, 1.5}, trip = {0.7, 1.1, 0.6}, refresh = {0.3, 0.4, 0.2};
    vdsm_log_samples s;
    s.data[1] = wait.data();
    s.count[1] = 3;
    s.data[2] = trip.data();
    s.count[2] = 3;
    s.data[3] = refresh.data();
    s.count[3] = 3;
    const auto f = fit_vdsm_log(s);
    REQUIRE(f);
    CHECK(f->detection == vdsm_detection::monitor);
    CHECK(f->monitor_period.max == doctest::Approx(2.0).epsilon(1e-12));
    CHECK_FALSE(f->monitor_period.mean_kept);
    CHECK(f->mailbox_events);
    CHECK(f->polls_max == 2);
    CHECK(f->inbox_read.min == doctest::Approx(0.05).epsilon(1e-9));
    CHECK(f->inbox_read.max == doctest::Approx(0.25).epsilon(1e-9));
    CHECK(f->refresh.min == doctest::Approx(0.1).epsilon(1e-12));
    CHECK(f->refresh.max == doctest::Approx(0.5).epsilon(1e-12));
    CHECK_FALSE(f->refresh.mean_kept);
    // The round trip's mean, 0.8 s, is 0.15 s of read and 1.3 polls: shorter than work in [0, 0.49875) (the
    // widest that never needs a third poll, 2 x 0.5 - 0.50125) gives, so the work starts at 0 and b narrows.
    CHECK(f->spm_work.min == 0.0);
    CHECK(f->spm_work.max > 0.1);
    CHECK(f->spm_work.max < 0.49875);
    CHECK(f->extend_volume.model_mean == doctest::Approx((0.6 + 0.7 + 1.1) / 3).epsilon(1e-7));
    CHECK(f->extend_volume.model_max == doctest::Approx(1.25).epsilon(1e-9));
    CHECK(f->wait.model_max == doctest::Approx(2.0).epsilon(1e-12));
    CHECK(f->refresh_volume.model_mean == doctest::Approx(0.3).epsilon(1e-12));
    // The whole model is the stages in the profiles' order.
    REQUIRE(f->model.size() == 7);
    CHECK(f->model.stage(0).kind == flow_stage_kind::monitor);
    CHECK(f->model.stage(2).kind == flow_stage_kind::clock);
    CHECK(f->model.stage(2).cycle() == doctest::Approx(0.50125));
    CHECK(f->model.stage(4).kind == flow_stage_kind::reply_poll);
    CHECK(f->model.mean() == doctest::Approx(1.0 + (0.6 + 0.7 + 1.1) / 3 + 0.3).epsilon(1e-7));
}

TEST_CASE("vdsm log: a seeded sweep of lines made of the Clock's pieces") {
    // Whatever the pieces, the parser returns; a record it accepts keeps its promises. Half the lines are pieces
    // in any order, half are Clocks with a few pieces wrong.
    const char* const pieces[] = {"completed <Clock(",
                                  "total=",
                                  "wait=",
                                  "extend-volume=",
                                  "refresh-volume=",
                                  "extend-replica=",
                                  "refresh-replica=",
                                  "1.65",
                                  "0.28",
                                  "-0.2",
                                  "nan",
                                  "1e400",
                                  ", ",
                                  ")>",
                                  ")",
                                  "*",
                                  "\r",
                                  "Extend replica ",
                                  "Extend volume ",
                                  "=",
                                  ",",
                                  " ",
                                  "\x01",
                                  "\xff"};
    const char* const timers[] = {"total", "wait", "extend-volume", "refresh-volume"};
    const char* const bad_values[] = {"-0.2", "nan", "1e400", "0.5*", "", "1,5", "0x10"};
    random_stream rng(14);
    std::size_t accepted = 0, extend = 0, malformed = 0;
    for (int i = 0; i < 20000; ++i) {
        std::string line;
        if (i % 2 == 0) {
            const std::uint64_t n = rng.below(14);
            for (std::uint64_t k = 0; k < n; ++k) line += pieces[rng.below(sizeof pieces / sizeof pieces[0])];
        } else {
            line = "Extend volume v completed <Clock(";
            bool first = true;
            for (const char* t : timers) {
                if (rng.below(10) == 0) continue;  // a timer left out
                if (!first) line += rng.below(20) == 0 ? "," : ", ";
                first = false;
                line += t;
                line += '=';
                line += rng.below(10) == 0 ? std::string(bad_values[rng.below(7)]) : two_decimals(3.0 * rng.uniform());
            }
            const std::uint64_t end = rng.below(20);
            line += end == 0 ? "" : end == 1 ? ")" : ")> (thinp:567)";
            if (rng.below(4) == 0) line += '\r';
        }
        CAPTURE(line);
        const auto r = parse_vdsm_extend_line(line);
        if (!r) {
            ++malformed;
            continue;
        }
        ++accepted;
        if (r->what == vdsm_extend_record::kind::none) continue;
        ++extend;
        CHECK(r->has(vdsm_stage::total));
        CHECK((r->has(vdsm_stage::extend_volume) || r->has(vdsm_stage::extend_replica)));
        for (std::size_t k = 0; k < vdsm_stage_count; ++k)
            if (r->has(static_cast<vdsm_stage>(k))) CHECK((r->seconds[k] >= 0.0 && r->seconds[k] <= 1e5));
    }
    // The sweep reaches every outcome.
    CHECK(accepted > 5000);
    CHECK(extend > 1000);
    CHECK(malformed > 1000);
}

TEST_CASE("a Clock timer without a name is malformed, not an unknown timer skipped") {
    // VDSM's Clock prints name=seconds for every timer (vdsm/common/time.py, Clock.__repr__): "=0.5" is a damaged
    // line, and reading it as some other timer would hide the damage.
    const auto bad = parse_vdsm_extend_line(clock_line("total=1.65, =0.5, extend-volume=1.09, refresh-volume=0.28"));
    REQUIRE_FALSE(bad.has_value());
    CHECK(std::string(bad.error().message().view()).find("expected name=seconds") != std::string::npos);
    CHECK(parse_vdsm_extend_line(clock_line("total=1.65, wait=0.5, extend-volume=1.09, refresh-volume=0.28"))
              .has_value());
}
