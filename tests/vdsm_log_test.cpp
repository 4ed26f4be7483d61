// Tests of provpol/fit/vdsm_log.hpp: the parser on VDSM's extend lines and on broken ones, the statistics against
// contrib/extend-stats' arithmetic (values Python computed, and an independent computation), and the fit on
// synthetic VDSM logs made from flow models with known parameters.
#include "test_support.hpp"

#include <provpol/fit/vdsm_log.hpp>
#include <provpol/flow/latency.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
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
    CHECK(r->get(vdsm_stage::total) == 1.65_s);
    CHECK(r->get(vdsm_stage::wait) == 0.28_s);
    CHECK(r->get(vdsm_stage::extend_volume) == 1.09_s);
    CHECK(r->get(vdsm_stage::refresh_volume) == 0.28_s);
    CHECK_FALSE(r->has(vdsm_stage::extend_replica));
    CHECK(r->present == 0xfU);
    // CRLF, and a line that ends right after the Clock.
    const auto crlf = parse_vdsm_extend_line(std::string(vdsm_line) + "\r");
    REQUIRE(crlf);
    CHECK(crlf->get(vdsm_stage::refresh_volume) == 0.28_s);
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
    CHECK(both->get(vdsm_stage::extend_replica) == 1.2_s);
    CHECK(both->get(vdsm_stage::refresh_replica) == 0.3_s);
    CHECK(both->get(vdsm_stage::extend_volume) == 1.8_s);
    const auto replica = parse_vdsm_extend_line(
        clock_line("total=2.00, wait=0.50, extend-replica=1.20, refresh-replica=0.30", "Extend replica"));
    REQUIRE(replica);
    CHECK(replica->what == vdsm_extend_record::kind::replica);
    CHECK_FALSE(replica->has(vdsm_stage::extend_volume));
    const auto migration = parse_vdsm_extend_line(
        clock_line("total=2.00, wait=0.50, extend-volume=1.00, refresh-destination-volume=0.20, refresh-volume=0.30"));
    REQUIRE(migration);
    CHECK(migration->get(vdsm_stage::refresh_destination_volume) == 0.2_s);
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
    CHECK(h->get(vdsm_stage::extend_volume) == 1.09_s);
}

TEST_CASE("vdsm log statistics: the caller's samples are not modified, and may be const") {
    std::vector<seconds> v = {1.15_s, 0.28_s, 1.98_s, 0.01_s, 0.59_s, 0.28_s, 0.89_s};
    const std::vector<seconds> given = v;
    const vdsm_stage_statistics s = vdsm_stage_stats(v.data(), v.size());
    CHECK(v == given);
    CHECK(s.min == 0.01_s);
    CHECK(s.median == 0.59_s);
    CHECK(s.max == 1.98_s);
    const vdsm_stage_statistics c = vdsm_stage_stats(given.data(), given.size());
    CHECK((c.min == s.min && c.mean == s.mean && c.median == s.median && c.p99 == s.p99 && c.max == s.max));
}

TEST_CASE("vdsm log statistics: extend-stats' arithmetic, as Python computed it") {
    // Python 3.11: d = sorted(v); d[0], sum(d) / len(d), d[-1], statistics.median(d),
    // statistics.quantiles(d, n=100, method='inclusive')[89] and [98].
    std::vector<seconds> v = {3.05_s, 1.65_s, 2.65_s};
    vdsm_stage_statistics s = vdsm_stage_stats(v.data(), v.size());
    CHECK(s.samples == 3);
    CHECK(s.min == 1.65_s);
    CHECK(s.mean == 2.4499999999999997_s);
    CHECK(s.max == 3.05_s);
    CHECK(s.median == 2.65_s);
    CHECK(s.p90 == 2.97_s);
    CHECK(s.p99 == 3.042_s);
    std::vector<seconds> w = {0.28_s, 1.09_s, 0.59_s, 0.89_s, 0.01_s, 1.98_s, 0.56_s, 0.1_s, 0.3_s, 1.15_s};
    const std::vector<seconds> w_given = w;
    s = vdsm_stage_stats(w.data(), w.size());
    CHECK(s.min == 0.01_s);
    CHECK(s.mean == 0.6950000000000001_s);
    CHECK(s.max == 1.98_s);
    CHECK(s.median == 0.575_s);
    CHECK(s.p90 == 1.2329999999999999_s);
    CHECK(s.p99 == 1.9053_s);
    CHECK(w == w_given);  // the statistics sort a copy: the caller's samples are as they were
    // One sample; none.
    const seconds one = 0.7_s;
    s = vdsm_stage_stats(&one, 1);
    CHECK((s.min == one && s.mean == one && s.median == one && s.p90 == one && s.p99 == one && s.max == one));
    s = vdsm_stage_stats(nullptr, 0);
    CHECK(s.samples == 0);
}

namespace {

// contrib/extend-stats' arithmetic, written again with the standard library: sort, add left to right, divide;
// the median and the inclusive percentiles as Python's statistics module defines them.
vdsm_stage_statistics reference_stats(const std::vector<seconds>& times) {
    std::vector<double> v;
    for (const seconds t : times) v.push_back(t.count());
    std::sort(v.begin(), v.end());
    vdsm_stage_statistics s;
    s.samples = v.size();
    s.min = seconds(v.front());
    s.max = seconds(v.back());
    s.mean = seconds(std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size()));
    const std::size_t n = v.size();
    s.median = seconds(n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
    auto q = [&](std::size_t i) {
        const std::size_t pos = i * (n - 1), j = pos / 100, delta = pos - j * 100;
        return seconds((v[j] * static_cast<double>(100 - delta) + v[j + 1] * static_cast<double>(delta)) / 100);
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
    const bool monitor = full.stage(0).kind() == flow_stage_kind::monitor;
    const std::size_t trips = full.size() - 2;  // between the detection and the refresh, the last stage
    flow_stage trip_stages[flow_latency::max_stages], detect_stage = full.stage(0),
                                                      refresh_stage = full.stage(full.size() - 1);
    for (std::size_t i = 0; i < trips; ++i) trip_stages[i] = full.stage(i + 1);
    const flow_latency detect = flow_latency::make(&detect_stage, 1).value();
    const flow_latency trip = flow_latency::make(trip_stages, trips).value();
    const flow_latency refresh = flow_latency::make(&refresh_stage, 1).value();
    random_stream events(seed ^ 0x5eedULL);
    for (std::size_t r = 0; r < runs; ++r) {
        random_stream rng(seed + r), whole(seed + r);
        const double period = full.detection_period().count();
        const double phase = monitor ? period * rng.uniform() : 0.0;
        if (monitor) (void)whole.uniform();
        flow_run detect_run = detect.start_run(rng), trip_run = trip.start_run(rng),
                 refresh_run = refresh.start_run(rng);
        flow_run whole_run = full.start_run(whole);
        double event = 5.0 * events.uniform();
        for (std::size_t e = 0; e < extends; ++e) {
            event += 8.0 + 12.0 * events.uniform();
            const double request = monitor ? phase + period * std::ceil((event - phase) / period)
                                           : detect.complete(detect_run, seconds(event), rng).count();
            const double seen = trip.complete(trip_run, seconds(request), rng).count();
            const double done = refresh.complete(refresh_run, seconds(seen), rng).count();
            const double whole_done = full.complete(whole_run, seconds(monitor ? request : event), whole).count();
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
    std::vector<seconds> stage[vdsm_stage_count];
    std::vector<vdsm_fit_sample> extends;
};

parsed_log parse_log(const std::vector<std::string>& lines) {
    parsed_log p;
    std::vector<std::string> vms;
    for (const std::string& l : lines) {
        const auto r = parse_vdsm_extend_line(l);
        REQUIRE(r);
        if (r->what == vdsm_extend_record::kind::none) continue;
        for (std::size_t i = 0; i < vdsm_stage_count; ++i)
            if (r->has(static_cast<vdsm_stage>(i))) p.stage[i].push_back(r->timers[i]);
        const std::string vm(r->vm_id.data(), r->vm_id.size());
        const auto at = std::find(vms.begin(), vms.end(), vm);
        const std::size_t number = static_cast<std::size_t>(at - vms.begin());
        if (at == vms.end()) vms.push_back(vm);
        p.extends.push_back(vdsm_sample_of(*r, number));
    }
    return p;
}

result<vdsm_log_fit> fit_lines(const std::vector<std::string>& lines) {
    const parsed_log p = parse_log(lines);
    return fit_vdsm_log(p.extends.data(), p.extends.size());
}

// Per fitted stage: the model's mean within 5% of the log's, its min and max within 10% (0.02 s, two of the
// Clock's hundredths, when the log's value is under 0.2 s). Returns what fails.
std::string criterion(const char* stage, const vdsm_stage_fit& f) {
    std::string failed;
    auto near = [&](const char* what, double model, double log, double share) {
        const double tolerance = std::fabs(log) < 0.2 ? 0.02 : share * std::fabs(log);
        if (!(std::fabs(model - log) <= tolerance))
            failed += std::string(stage) + " " + what + ": model " + std::to_string(model) + ", log " +
                      std::to_string(log) + "; ";
    };
    near("mean", f.model_mean.count(), f.log_mean.count(), 0.05);
    near("min", f.model_min.count(), f.log_min.count(), 0.10);
    near("max", f.model_max.count(), f.log_max.count(), 0.10);
    return failed;
}

std::string criteria(const vdsm_log_fit& f) {
    std::string failed = criterion("wait", f.wait) + criterion("extend-volume", f.extend_volume) +
                         criterion("refresh-volume", f.refresh_volume);
    // The total: the mean within 5%, and the log's range inside the model's.
    const vdsm_stage_fit& t = f.total;
    if (!(std::fabs((t.model_mean - t.log_mean).count()) <= 0.05 * t.log_mean.count()))
        failed +=
            "total mean: model " + std::to_string(t.model_mean.count()) + ", log " + std::to_string(t.log_mean.count());
    if (!(t.model_min <= t.log_min + 0.01_s && t.log_max <= t.model_max + 0.01_s))
        failed += "total range: the model's does not cover the log's";
    return failed;
}

struct known_case {
    const char* name;
    flow_latency model;
    vdsm_detection detection;
    bool events;
    double monitor_period;  // 0 for an event
    double read_lo, read_hi, refresh_lo, refresh_hi;
};

flow_latency custom_flow() {
    const flow_stage stages[] = {flow_stage::monitor("watermark monitor", 2.0_s),
                                 flow_stage::send("host mailbox send", 0.0_s, 0.0_s),
                                 flow_stage::clock("SPM event block check", 0.5_s, 0.00125_s),
                                 flow_stage::delay("SPM work", 0.30_s, 0.45_s),
                                 flow_stage::reply_poll("host mailbox reply poll", 0.5_s),
                                 flow_stage::delay("host inbox read", 0.05_s, 0.12_s),
                                 flow_stage::delay("LV refresh", 0.25_s, 0.60_s)};
    return flow_latency::make(stages, 7).value();
}

// ---- a VDSM host written again, independent of provpol: its clocks, its mail monitor, its services -----------
//
// One host runs `vms` VMs. Its watermark monitor (one per host, periodic.py's per_vm_operation) ticks every
// monitor_period from one phase; with detection at once the extend is dispatched dispatch_lo..hi after the event.
// The host's mail monitor sends a request at once when no reply is pending, else at its next loop tick (every
// `poll` from the last send), and sees the reply at the first of its polls (send + k x poll) after the SPM is done.
// The SPM's clock ticks every spm_cycle from its own phase; its work, the host's inbox read and the refresh are
// uniform. Each VM's block threshold events come 8 to 20 s apart. Times come from std::mt19937_64.
struct vdsm_host_flow {
    const char* name;
    bool monitor;
    double monitor_period, dispatch_lo, dispatch_hi;
    double poll, spm_cycle, work_lo, work_hi, read_lo, read_hi, refresh_lo, refresh_hi;
    std::size_t vms;
    bool shared = true;  // the VMs share the host's watermark monitor and mail monitor (else each has its own)
};

struct generated_extend {
    std::size_t vm;
    double wait, trip, refresh, total;
};

std::vector<generated_extend> run_hosts(const vdsm_host_flow& f, std::size_t hosts, std::size_t extends_per_vm,
                                        std::uint64_t seed) {
    std::mt19937_64 gen(seed);
    auto u = [&gen](double lo, double hi) { return lo + (hi - lo) * std::generate_canonical<double, 53>(gen); };
    std::vector<generated_extend> out;
    for (std::size_t h = 0; h < hosts; ++h) {
        const double spm_phase = u(0.0, f.spm_cycle);
        // One watermark monitor and one mail monitor per host, or one each per VM.
        const std::size_t monitors = f.shared ? 1 : f.vms;
        std::vector<double> monitor_phase(monitors), last_send(monitors, -1e9), pending_until(monitors, -1e9);
        for (double& p : monitor_phase) p = u(0.0, f.monitor_period);
        std::vector<std::pair<double, std::size_t>> events;  // (time, vm)
        for (std::size_t v = 0; v < f.vms; ++v) {
            double t = u(0.0, 5.0);
            for (std::size_t e = 0; e < extends_per_vm; ++e) {
                t += u(8.0, 20.0);
                events.emplace_back(t, h * f.vms + v);
            }
        }
        std::sort(events.begin(), events.end());
        for (const auto& [event, vm] : events) {
            const std::size_t m = f.shared ? 0 : vm % f.vms;
            const double phase = monitor_phase[m];
            const double request = f.monitor ? phase + f.monitor_period * std::ceil((event - phase) / f.monitor_period)
                                             : event + u(f.dispatch_lo, f.dispatch_hi);
            double send = request;
            if (send < pending_until[m])
                send = last_send[m] + f.poll * std::ceil((send - last_send[m]) / f.poll);
            else
                last_send[m] = send;
            const double spm = spm_phase + f.spm_cycle * std::ceil((send - spm_phase) / f.spm_cycle);
            const double done = spm + u(f.work_lo, f.work_hi);
            const double k = std::max(1.0, std::ceil((done - last_send[m]) / f.poll));
            const double seen = last_send[m] + k * f.poll;
            pending_until[m] = std::max(pending_until[m], seen);
            const double reply = seen + u(f.read_lo, f.read_hi);
            const double end = reply + u(f.refresh_lo, f.refresh_hi);
            out.push_back({vm, request - event, reply - request, end - reply, end - event});
        }
    }
    return out;
}

std::vector<std::string> log_lines(const std::vector<generated_extend>& extends) {
    std::vector<std::string> lines;
    for (const generated_extend& e : extends)
        lines.push_back("2022-05-01 10:00:00,000+0300 INFO  (mailbox-hsm/1) [virt.vm] (vmId='vm-" +
                        std::to_string(e.vm) + "') Extend volume 7d85 completed <Clock(total=" + two_decimals(e.total) +
                        ", wait=" + two_decimals(e.wait) + ", extend-volume=" + two_decimals(e.trip) +
                        ", refresh-volume=" + two_decimals(e.refresh) + ")> (thinp:588)");
    return lines;
}

// Quantile of sorted values, by linear interpolation between the closest ranks.
double sorted_quantile(const std::vector<double>& v, double p) {
    const double pos = p * static_cast<double>(v.size() - 1);
    const auto j = static_cast<std::size_t>(pos);
    return j + 1 < v.size() ? v[j] + (v[j + 1] - v[j]) * (pos - static_cast<double>(j)) : v.back();
}

std::vector<std::string> read_lines(const std::string& path) {
    std::vector<std::string> lines;
    std::FILE* f = std::fopen(path.c_str(), "r");
    REQUIRE(f != nullptr);
    char buf[4096];
    while (std::fgets(buf, sizeof buf, f) != nullptr) {
        std::string l = buf;
        while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
        lines.push_back(l);
    }
    std::fclose(f);
    return lines;
}

}  // namespace

TEST_CASE("vdsm log: the VM of a line") {
    const auto r = parse_vdsm_extend_line(vdsm_line);
    REQUIRE(r);
    CHECK(std::string(r->vm_id.data(), r->vm_id.size()) == "108e7903-08a0-42b7-94cd-2e18272bda06");
    const auto none = parse_vdsm_extend_line(
        "Extend volume x completed <Clock(total=1.0, extend-volume=0.6, "
        "refresh-volume=0.3)>");
    REQUIRE(none);
    CHECK(none->vm_id.empty());
    // A replica line's sample is its replica timers.
    const auto replica = parse_vdsm_extend_line(
        clock_line("total=2.00, wait=0.50, extend-replica=1.20, refresh-replica=0.30", "Extend replica"));
    REQUIRE(replica);
    const vdsm_fit_sample s = vdsm_sample_of(*replica, 7);
    CHECK(s.trip == 1.2_s);
    CHECK(s.refresh == 0.3_s);
    CHECK(s.wait == 0.5_s);
    CHECK(s.vm == 7);
    const auto no_wait = parse_vdsm_extend_line(clock_line("total=2.00, extend-volume=1.20, refresh-volume=0.30"));
    REQUIRE(no_wait);
    CHECK(vdsm_sample_of(*no_wait, 0).wait < 0.0_s);
}

TEST_CASE("vdsm log fit: synthetic logs from flows with known parameters") {
    const known_case cases[] = {
        {"vdsm-polling-2022", vdsm_polling_2022_latency(), vdsm_detection::monitor, false, 2.0, 0.04, 0.15, 0.15, 0.34},
        {"vdsm-mailbox-events", vdsm_mailbox_events_latency(), vdsm_detection::monitor, true, 2.0, 0.04, 0.15, 0.19,
         0.38},
        {"vdsm-immediate", vdsm_immediate_latency(), vdsm_detection::event, true, 0.0, 0.04, 0.15, 0.16, 0.31},
        {"custom events, slow SPM and refresh", custom_flow(), vdsm_detection::monitor, true, 2.0, 0.05, 0.12, 0.25,
         0.60},
    };
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
        const auto fit = fit_vdsm_log(p.extends.data(), p.extends.size());
        REQUIRE(fit);
        const vdsm_log_fit& f = *fit;
        INFO(std::string(c.name) << ": period " << f.monitor_period.max << ", dispatch " << f.dispatch.min << "-"
                                 << f.dispatch.max << ", poll " << f.poll_interval << ", work " << f.spm_work.min << "-"
                                 << f.spm_work.max << ", read " << f.inbox_read.min << "-" << f.inbox_read.max
                                 << ", refresh " << f.refresh.min << "-" << f.refresh.max << ": "
                                 << vdsm_verdict_text(f));
        CHECK(f.explained);
        CHECK(f.vms == 50);
        CHECK(f.detection == c.detection);
        CHECK(f.mailbox_events == c.events);
        CHECK(f.poll_interval == (c.events ? 0.5_s : 2_s));
        if (c.detection == vdsm_detection::monitor) {
            CHECK(f.monitor_period.max.count() == doctest::Approx(c.monitor_period).epsilon(0.03));
            CHECK(f.model.detection_period() == f.monitor_period.max);
        } else {
            CHECK(f.dispatch.min.count() == doctest::Approx(0.01).epsilon(0.6));
            CHECK(f.dispatch.max.count() == doctest::Approx(0.03).epsilon(0.6));
            CHECK(f.model.detection_period() == 0.0_s);
        }
        // The known ranges, within the Clock's 0.01 s resolution (plus sampling).
        CHECK(std::fabs(f.inbox_read.min.count() - c.read_lo) < 0.02);
        CHECK(std::fabs(f.inbox_read.max.count() - c.read_hi) < 0.02);
        CHECK(std::fabs(f.refresh.min.count() - c.refresh_lo) < 0.02);
        CHECK(std::fabs(f.refresh.max.count() - c.refresh_hi) < 0.02);
        CHECK(f.below_first_poll == 0);
        CHECK_FALSE(f.has_other);
        CHECK(criteria(f) == "");
        if (c.detection == vdsm_detection::monitor) {
            CHECK(f.wait.model_min == 0.0_s);
            CHECK(f.wait.model_mean.count() == doctest::Approx(f.monitor_period.max.count() / 2));
        }
    }
}

TEST_CASE("vdsm log fit: flows it was not tuned on, within 10% of the true flow") {
    // Each flow's truth: 400,000 extends of the host written above (unrounded), on other seeds than the log's.
    const vdsm_host_flow flows[] = {
        // Mailbox events and an SPM whose lvextend takes 1.2 to 2 s (a busy VG): round trips of 3 to 5 polls.
        {"events, slow SPM", true, 2.0, 0, 0, 0.5, 0.50125, 1.2, 2.0, 0.03, 0.12, 0.15, 0.35, 1, true},
        // Dispatch on the event (4.50.1.1) and mailbox events.
        {"dispatch at once, events", false, 0, 0.01, 0.04, 0.5, 0.50125, 0.2, 0.45, 0.04, 0.14, 0.16, 0.30, 1, true},
        // Six VMs on one host, each with its own watermark monitor phase and mailbox, one SPM clock; polling.
        {"six VMs on one host, polling", true, 2.0, 0, 0, 2.0, 2.005, 0.2, 0.6, 0.05, 0.15, 0.15, 0.30, 6, false},
        // The same six VMs sharing the host's one watermark monitor and one mail monitor, whose pending replies
        // hold new sends (VDSM's HSM_MailMonitor): a tail no marginal flow of these stages has (below).
        {"six VMs sharing a host's monitors, polling", true, 2.0, 0, 0, 2.0, 2.005, 0.2, 0.6, 0.05, 0.15, 0.15, 0.30, 6,
         true},
        // An operator's events_interval of 0.2 s, dispatch at once, an SPM of 0.3 to 0.9 s.
        {"events_interval 0.2 s, dispatch at once", false, 0, 0.01, 0.03, 0.2, 0.2005, 0.3, 0.9, 0.02, 0.08, 0.2, 0.4,
         1, true},
        // Polling with a slow SPM (1.5 to 2.5 s) and a 1 s watermark monitor.
        {"polling, slow SPM, 1 s monitor", true, 1.0, 0, 0, 2.0, 2.005, 1.5, 2.5, 0.04, 0.15, 0.2, 0.5, 1, true},
    };
    std::uint64_t seed = 11;
    for (const vdsm_host_flow& flow : flows) {
        CAPTURE(std::string(flow.name));
        std::vector<double> truth;
        for (const generated_extend& e : run_hosts(flow, 40000 / flow.vms, 10, seed++)) truth.push_back(e.total);
        std::sort(truth.begin(), truth.end());
        const double true_mean = std::accumulate(truth.begin(), truth.end(), 0.0) / static_cast<double>(truth.size());
        // Logs of 50 and of 10 hosts (each host one SPM phase, each VM its clocks' phases), 20 extends per VM.
        for (std::size_t hosts : {std::size_t{50}, std::size_t{10}}) {
            CAPTURE(hosts);
            const std::vector<std::string> lines = log_lines(run_hosts(flow, hosts, 20, seed++));
            const auto fit = fit_lines(lines);
            REQUIRE(fit);
            const vdsm_log_fit& f = *fit;
            INFO("poll " << f.poll_interval << ", detection " << static_cast<int>(f.detection) << ", work "
                         << f.spm_work.min << "-" << f.spm_work.max << ", read " << f.inbox_read.min << "-"
                         << f.inbox_read.max << ", polls " << f.polls_min << "-" << f.polls_max << ": "
                         << vdsm_verdict_text(f));
            CHECK(f.explained);
            CHECK(f.stalls.total.count == 0);              // a flow's own extends are never stalls
            CHECK(f.poll_interval == seconds(flow.poll));  // never polling for a slow SPM with events
            CHECK(f.detection == (flow.monitor ? vdsm_detection::monitor : vdsm_detection::event));
            const double got[] = {f.model.mean().count(), f.model.quantile(0.5).count(), f.model.quantile(0.9).count(),
                                  f.model.quantile(0.99).count(), f.model.max().count()};
            const double want[] = {true_mean, sorted_quantile(truth, 0.5), sorted_quantile(truth, 0.9),
                                   sorted_quantile(truth, 0.99), truth.back()};
            const std::string names[] = {"mean", "median", "p90", "p99", "max"};
            // A shared mail monitor holds a send behind another VM's pending reply, now and then behind several:
            // its rare long round trips set the true max (8.4 s here) beyond any flow of these stage kinds (6.5 s).
            // Its max is measured in docs/latency.md, not required.
            const int checked = flow.shared && flow.vms > 1 ? 4 : 5;
            for (int i = 0; i < checked; ++i) {
                CAPTURE(names[i]);
                CAPTURE(got[i]);
                CAPTURE(want[i]);
                CHECK(std::fabs(got[i] - want[i]) <= 0.10 * want[i]);
            }
        }
    }
}

TEST_CASE("vdsm log fit: real logs published in VDSM's history") {
    // tests/data/vdsm_logs: each file names the oVirt/vdsm commit or pull request it was copied from.
    struct real_log {
        const char* file;
        vdsm_detection detection;
        double poll;  // 0: the log is too short to tell
        vdsm_verdict verdict;
    };
    // The two short logs (3 extends and 1) are fitted, but too few to show a mailbox flow: a model
    // they cannot confirm is not given to plan with.
    const real_log logs[] = {
        {"events_064a7a0d9.log", vdsm_detection::monitor, 0.5, vdsm_verdict::explained},
        {"polling_pr80.log", vdsm_detection::monitor, 2.0, vdsm_verdict::explained},
        {"replica_8c119243e.log", vdsm_detection::none, 0.0, vdsm_verdict::too_few},
        {"overloaded_843e8a5b8.log", vdsm_detection::none, 0.0, vdsm_verdict::too_few},
    };
    for (const real_log& l : logs) {
        CAPTURE(std::string(l.file));
        const std::vector<std::string> lines = read_lines(std::string(PROVPOL_TEST_DATA_DIR) + "/vdsm_logs/" + l.file);
        const parsed_log p = parse_log(lines);
        REQUIRE_FALSE(p.extends.empty());
        const auto fit = fit_vdsm_log(p.extends.data(), p.extends.size());
        REQUIRE(fit);
        CAPTURE(vdsm_verdict_text(*fit));
        CHECK(fit->verdict == l.verdict);
        CHECK(fit->explained == (l.verdict == vdsm_verdict::explained));
        CHECK(fit->detection == l.detection);
        if (l.poll > 0.0) CHECK(fit->poll_interval == seconds(l.poll));
        // None holds an extend beyond its flow's reach (PR #80's 4.09 s round trip is one poll more than the
        // others: its flow's; the two short logs are too short to tell: n / 10 = 0 stalls allowed).
        CHECK(fit->stalls.total.count == 0);
        // The fitted model covers every logged total (each logged to the hundredth).
        for (const vdsm_fit_sample& s : p.extends) {
            CAPTURE(s.total);
            CHECK(fit->model.min() <= s.total + 0.005_s);
            CHECK(s.total - 0.005_s <= fit->model.max());
            CHECK(fit->model.cdf(s.total + 0.005_s) > 0.0);
            CHECK(fit->model.exceed_probability(s.total - 0.005_s) > 0.0);
        }
    }
}

TEST_CASE("vdsm log fit: VDSM's own stalled extend among VDSM's own extends") {
    // Commit 843e8a5b8's extend of an overloaded host (34.39 s: a 17.16 s round trip, an 8.90 s refresh, 8.33 s
    // outside the timers) added to the 20 extends of commit 064a7a0d9 (events on) and to the 10 of PR #80 (events
    // off): a stall, reported with its timers, the flow fitted as it is without it, and the model's mean the log's.
    const std::string dir = std::string(PROVPOL_TEST_DATA_DIR) + "/vdsm_logs/";
    const parsed_log stalled = parse_log(read_lines(dir + "overloaded_843e8a5b8.log"));
    REQUIRE(stalled.extends.size() == 1);
    for (const char* file : {"events_064a7a0d9.log", "polling_pr80.log"}) {
        CAPTURE(std::string(file));
        const parsed_log alone = parse_log(read_lines(dir + file));
        std::vector<vdsm_fit_sample> both = alone.extends;
        both.push_back(stalled.extends[0]);
        const auto a = fit_vdsm_log(alone.extends.data(), alone.extends.size());
        const auto f = fit_vdsm_log(both.data(), both.size());
        REQUIRE(a);
        REQUIRE(f);
        CAPTURE(vdsm_stall_text(*f));
        CHECK(f->explained);
        CHECK(f->stalls.total.count == 1);
        CHECK(f->stalls.total.min == 34.39_s);
        CHECK(f->stalls.refresh_volume.count == 1);
        CHECK(f->stalls.other.count == 1);
        CHECK(f->model.stall_probability() == doctest::Approx(1.0 / static_cast<double>(both.size())));
        // The flow is the flow of the log alone, every fitted range to the bit.
        CHECK(f->poll_interval == a->poll_interval);
        CHECK(f->monitor_period.max == a->monitor_period.max);
        CHECK(f->spm_work.min == a->spm_work.min);
        CHECK(f->spm_work.max == a->spm_work.max);
        CHECK(f->inbox_read.min == a->inbox_read.min);
        CHECK(f->inbox_read.max == a->inbox_read.max);
        CHECK(f->refresh.min == a->refresh.min);
        CHECK(f->refresh.max == a->refresh.max);
        double mean = 0.0;
        for (const vdsm_fit_sample& x : both) mean += x.total.count() / static_cast<double>(both.size());
        CHECK(f->model.mean().count() == doctest::Approx(mean).epsilon(0.05));
        CHECK(f->model.max() >= 34.39_s);
    }
}

TEST_CASE("vdsm log fit: a log no mode explains is said, not fitted") {
    // Round trips of 0.01 to 0.1 s: shorter than any reply poll.
    std::mt19937_64 gen(5);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<vdsm_fit_sample> fast(300);
    for (vdsm_fit_sample& s : fast) {
        s.wait = seconds(2.0 * u(gen));
        s.trip = seconds(0.01 + 0.09 * u(gen));
        s.refresh = seconds(0.2);
        s.total = s.wait + s.trip + s.refresh;
    }
    const auto none = fit_vdsm_log(fast.data(), fast.size());
    REQUIRE_FALSE(none);
    CHECK(std::string(none.error().message().view()) ==
          "vdsm log fit: no mailbox mode gives a model of the round trips");
    // Events round trips, but a refresh of 0.1 s or 3 s: no uniform refresh explains the totals.
    std::vector<vdsm_fit_sample> bimodal(1000);
    for (std::size_t i = 0; i < bimodal.size(); ++i) {
        vdsm_fit_sample& s = bimodal[i];
        s.wait = seconds(2.0 * u(gen));
        s.trip = seconds(0.5 * (u(gen) < 0.6 ? 1 : 2) + 0.04 + 0.1 * u(gen));
        s.refresh = seconds(i % 2 == 0 ? 0.1 : 3.0);
        s.total = s.wait + s.trip + s.refresh;
    }
    const auto bad = fit_vdsm_log(bimodal.data(), bimodal.size());
    REQUIRE(bad);
    CHECK_FALSE(bad->explained);
    CHECK(bad->verdict == vdsm_verdict::stage_gap);  // the refresh is not one range...
    CHECK(bad->evidence.gap_stage == vdsm_stage::refresh_volume);
    CHECK(bad->poll_interval == 0.5_s);  // ...while the round trips are on the lattice
    CHECK(bad->evidence.lattice_chance < -3.0);
    // The same log with a refresh uniform in [0.1, 3): explained.
    for (vdsm_fit_sample& s : bimodal) {
        s.refresh = seconds(0.1 + 2.9 * u(gen));
        s.total = s.wait + s.trip + s.refresh;
    }
    const auto good = fit_vdsm_log(bimodal.data(), bimodal.size());
    REQUIRE(good);
    CHECK(good->explained);
    CHECK(fit_vdsm_log(nullptr, 0).error().message().view() ==
          "vdsm log: no extend lines in the log: cannot fit a flow model");
}

TEST_CASE("vdsm log fit: a log without wait is fitted without detection") {
    // The events flow's round trips and refreshes, no wait timer (VDSM before 4.50): the flow starts at the send.
    std::mt19937_64 gen(8);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<vdsm_fit_sample> s(400);
    for (vdsm_fit_sample& x : s) {
        x.trip = seconds(0.5 * (u(gen) < 0.5 ? 1 : 2) + 0.04 + 0.1 * u(gen));
        x.refresh = seconds(0.2 + 0.1 * u(gen));
        x.total = x.trip + x.refresh;
    }
    const auto f = fit_vdsm_log(s.data(), s.size());
    REQUIRE(f);
    CHECK(f->detection == vdsm_detection::none);
    CHECK(f->model.stage(0).kind() == flow_stage_kind::send);
    CHECK(f->model.detection_period() == 0.0_s);
    CHECK(f->explained);
    CHECK(f->poll_interval == 0.5_s);
    CHECK(f->model.min() >= 0.5_s);
    CHECK(f->model.max() < 1.5_s);
}

TEST_CASE("vdsm log fit: outliers are left out and counted, stalls modelled apart, time outside the timers a stage") {
    // 300 extends of the events flow, one off the lattice (a round trip of 1.30 s: its read 0.30 s after the poll),
    // and one stuck for 2000 s (an SPM failover): a stall, apart from the flow, in the model's tail.
    std::mt19937_64 gen(9);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<vdsm_fit_sample> s(302);
    for (vdsm_fit_sample& x : s) {
        x.wait = seconds(2.0 * u(gen));
        x.trip = seconds(0.5 * (u(gen) < 0.5 ? 1 : 2) + 0.04 + 0.1 * u(gen));
        x.refresh = seconds(0.2 + 0.1 * u(gen));
        x.total = x.wait + x.trip + x.refresh;
    }
    s.front().trip = 1.30_s;
    s.front().total = s.front().wait + s.front().trip + s.front().refresh;
    s.back().trip = seconds(2000.03);
    s.back().total = s.back().wait + s.back().trip + s.back().refresh;
    const auto f = fit_vdsm_log(s.data(), s.size());
    REQUIRE(f);
    CHECK(f->explained);
    CHECK(f->poll_interval == 0.5_s);
    CHECK(f->trip_outliers + f->below_first_poll == 1);
    CHECK(f->polls_max == 2);
    CHECK(f->stalls.total.count == 1);
    CHECK(f->stalls.extend_volume.count == 1);
    CHECK(f->stalls.extend_volume.min == seconds(2000.03));
    CHECK(f->model.stall_probability() == doctest::Approx(1.0 / 302.0));
    const flow_latency flow = f->model.with_stalls(0.0, nullptr, 0).value();  // the flow without its stall
    CHECK(flow.max() < 5.0_s);
    CHECK(f->model.max() >= s.back().total);       // the model's tail is the log's...
    CHECK(f->model.quantile(0.99) <= flow.max());  // ...at its own share, 1 in 302
    double mean = 0.0;
    for (const vdsm_fit_sample& x : s) mean += x.total.count() / static_cast<double>(s.size());
    CHECK(f->model.mean().count() == doctest::Approx(mean).epsilon(0.01));
    // An overloaded host: 1 to 3 s of each total outside its timers.
    for (vdsm_fit_sample& x : s) {
        x.trip = seconds(0.5 * (u(gen) < 0.5 ? 1 : 2) + 0.04 + 0.1 * u(gen));
        x.total = x.wait + x.trip + x.refresh + 1_s + seconds(2.0 * u(gen));
    }
    const auto g = fit_vdsm_log(s.data(), s.size());
    REQUIRE(g);
    CHECK(g->has_other);
    CHECK(g->other.min.count() == doctest::Approx(1.0).epsilon(0.05));
    CHECK(g->other.max.count() == doctest::Approx(3.0).epsilon(0.05));
    CHECK(g->model.size() == 8);
    CHECK(g->explained);
    CHECK(g->stalls.total.count == 0);
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
            if (r->has(static_cast<vdsm_stage>(k))) CHECK((r->timers[k] >= 0_s && r->timers[k] <= 1e5_s));
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
