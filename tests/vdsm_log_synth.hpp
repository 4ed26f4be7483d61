// Test-side generator of VDSM-like extend logs from the flow model (flow/clocks.hpp), for the fitter's tests
// (vdsm_log_fit_test.cpp). Nothing here is read by the fitter: it only sees the Clock lines.
//
// A host as the flow model runs it: each VM is one flow_run, whose clocks (the SPM's event check or scan, and
// the VM's watermark monitor) keep the phase drawn when the VM starts for the whole log, as VDSM's clocks do.
// The VMs of one host may share the SPM's phase (one SPM clock for the host). A VM's next block threshold event
// comes gap_lo to gap_hi seconds after its last extend completed; the request is made at the monitor's next tick,
// or dispatch_lo to dispatch_hi after the event (4.50.1.1). The round trip ends read_lo to read_hi after the reply
// poll: the 50 to 120 ms real VDSM logs show between the reply poll and the logged time (PR #80: 2.05 to 2.12 s; commit
// 064a7a0d9: 0.56 to 1.13 s). Every time is logged as VDSM's Clock prints it, "%.2f".
//
// The truth a fit is judged against: the totals of many runs of the same flow with fresh phases (marginal()),
// unrounded: the generator's flow, not the fitter's. whole_flow() is the same flow as one flow_latency, whose exact
// marginal the sampled truth is checked against.
#ifndef PROVPOL_TESTS_VDSM_LOG_SYNTH_HPP
#define PROVPOL_TESTS_VDSM_LOG_SYNTH_HPP

#include <provpol/fit/vdsm_log.hpp>
#include <provpol/flow/clocks.hpp>
#include <provpol/random.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace synth {

using provpol::flow_latency;
using provpol::flow_run;
using provpol::flow_stage;
using provpol::random_stream;
using provpol::seconds;

/// One host's extend flow, as the generator runs it (see the header comment).
struct host_flow {
    bool monitor = true;          ///< the watermark monitor sends the request; else dispatch at once
    double monitor_period = 2.0;  ///< the monitor's period (VDSM: 2 s)
    double dispatch_lo = 0.0, dispatch_hi = 0.0;
    double poll = 0.5;                      ///< the host's reply poll and the SPM's event check or scan
    double spm_drift = 0.00125;             ///< the SPM's cycle is poll + drift
    double work_lo = 0.15, work_hi = 0.49;  ///< the SPM's scan read, lvextend and reply write
    double read_lo = 0.05, read_hi = 0.12;  ///< from the reply poll to the logged time
    double refresh_lo = 0.16, refresh_hi = 0.31;
    std::size_t vms = 1;                 ///< VMs on the host, each its own clocks' phases
    bool shared_spm = false;             ///< the VMs share the SPM's phase
    double gap_lo = 6.0, gap_hi = 20.0;  ///< from one VM's extend completed to its next threshold event
};

/// The round trip as a flow: send, SPM clock, SPM work, reply poll, read.
inline flow_latency trip_flow(const host_flow& h) {
    const flow_stage stages[] = {flow_stage::send("send", seconds(0), seconds(0)),
                                 flow_stage::clock("SPM", seconds(h.poll), seconds(h.spm_drift)),
                                 flow_stage::delay("SPM work", seconds(h.work_lo), seconds(h.work_hi)),
                                 flow_stage::reply_poll("reply poll", seconds(h.poll)),
                                 flow_stage::delay("read", seconds(h.read_lo), seconds(h.read_hi))};
    return flow_latency::make(stages, 5).value();
}

/// The whole flow: detection, the round trip, the refresh (the truth's exact marginal, for a cross-check).
inline flow_latency whole_flow(const host_flow& h) {
    const flow_stage stages[] = {h.monitor
                                     ? flow_stage::monitor("monitor", seconds(h.monitor_period))
                                     : flow_stage::delay("dispatch", seconds(h.dispatch_lo), seconds(h.dispatch_hi)),
                                 flow_stage::send("send", seconds(0), seconds(0)),
                                 flow_stage::clock("SPM", seconds(h.poll), seconds(h.spm_drift)),
                                 flow_stage::delay("SPM work", seconds(h.work_lo), seconds(h.work_hi)),
                                 flow_stage::reply_poll("reply poll", seconds(h.poll)),
                                 flow_stage::delay("read", seconds(h.read_lo), seconds(h.read_hi)),
                                 flow_stage::delay("refresh", seconds(h.refresh_lo), seconds(h.refresh_hi))};
    return flow_latency::make(stages, 7).value();
}

/// One extend as VDSM's Clock times it (unrounded), and its VM.
struct extend_times {
    std::size_t vm = 0;
    double wait = 0, trip = 0, refresh = 0, total = 0;
    std::uint64_t polls = 0;  ///< the reply polls the round trip took
};

/// `extends` extends of a host's VMs, each VM a run of the flow whose phases hold for the whole log, VM after VM
/// (the fit reads no order). A VM's next block threshold event comes gap_lo to gap_hi after its last extend
/// completed (VDSM sets the next threshold then). `first_vm` numbers the VMs.
inline std::vector<extend_times> run_host(const host_flow& h, const flow_latency& trip, std::size_t extends,
                                          std::uint64_t seed, std::size_t first_vm = 0) {
    random_stream rng(seed);
    const double spm_phase = (h.poll + h.spm_drift) * rng.uniform();
    std::vector<extend_times> out;
    for (std::size_t v = 0; v < h.vms; ++v) {
        flow_run run = trip.start_run(rng);                   // the VM's SPM phase, kept for the whole log...
        if (h.shared_spm) run.phase[1] = seconds(spm_phase);  // ...or the host's
        const double monitor_phase = h.monitor_period * rng.uniform();
        const std::size_t mine = extends / h.vms + (v < extends % h.vms ? 1 : 0);
        double event = h.gap_hi * rng.uniform();
        for (std::size_t e = 0; e < mine; ++e) {
            event += h.gap_lo + (h.gap_hi - h.gap_lo) * rng.uniform();
            const double request =
                h.monitor ? monitor_phase + h.monitor_period * std::ceil((event - monitor_phase) / h.monitor_period)
                          : event + h.dispatch_lo + (h.dispatch_hi - h.dispatch_lo) * rng.uniform();
            const double seen = trip.complete(run, seconds(request), rng).count();
            const double refresh = h.refresh_lo + (h.refresh_hi - h.refresh_lo) * rng.uniform();
            // The send is the request (a VM's extends never overlap), so the round trip is polls x poll + read.
            const auto polls = static_cast<std::uint64_t>(std::floor((seen - request) / h.poll));
            out.push_back({first_vm + v, request - event, seen - request, refresh, seen + refresh - event, polls});
            event = seen + refresh;  // the drive's next threshold is set when this extend completes
        }
    }
    return out;
}
/// The same, with the round trip's flow made from `h`.
inline std::vector<extend_times> run_host(const host_flow& h, std::size_t extends, std::uint64_t seed,
                                          std::size_t first_vm = 0) {
    return run_host(h, trip_flow(h), extends, seed, first_vm);
}

/// The flow's marginal: the totals of `runs` runs of `per_run` extends, each run fresh phases (one VM), unrounded,
/// sorted; and the largest total of the round trips that took fewer polls than `polls_below` (0: every one).
struct marginal_totals {
    std::vector<double> totals;
    double max_below = 0.0;
};
inline marginal_totals marginal(const host_flow& h, std::size_t runs, std::size_t per_run, std::uint64_t seed,
                                std::uint64_t polls_below = 0) {
    host_flow one = h;
    one.vms = 1;
    const flow_latency trip = trip_flow(h);
    marginal_totals m;
    m.totals.reserve(runs * per_run);
    for (std::size_t r = 0; r < runs; ++r)
        for (const extend_times& e : run_host(one, trip, per_run, seed + 7919 * r)) {
            m.totals.push_back(e.total);
            if ((polls_below == 0 || e.polls < polls_below) && e.total > m.max_below) m.max_below = e.total;
        }
    std::sort(m.totals.begin(), m.totals.end());
    return m;
}

/// Where a stall holds an extend up (see add_stalls).
enum class stall_at {
    spm,      ///< the SPM's work (lvextend retries, an overloaded SPM): the reply is seen that much later, at a poll
    refresh,  ///< the host's refresh (a storage hiccup on the host)
    outside,  ///< outside the Clock's timers (an overloaded host between them)
    wait      ///< before the request (a late monitor tick, a late event dispatch)
};

/// A stall of `stall` seconds added to one extend, where `where` says: in the SPM's work the reply is seen at the first
/// poll after the stall has passed (the host's polls keep their lattice from the send), so the round trip grows by
/// the stall rounded up to a whole number of polls; in the refresh, outside the timers or before the request, by the
/// stall itself. The total grows by the same. The VM's later events are left as they were (the fit reads no order).
inline void add_stall(extend_times& e, const host_flow& h, double stall, stall_at where) {
    double added = stall;
    switch (where) {
        case stall_at::spm:
            added = h.poll * std::ceil(stall / h.poll);
            e.trip += added;
            e.polls += static_cast<std::uint64_t>(std::llround(added / h.poll));
            break;
        case stall_at::refresh:
            e.refresh += stall;
            break;
        case stall_at::outside:
            break;
        case stall_at::wait:
            e.wait += stall;
            break;
    }
    e.total += added;
}

/// `count` distinct indices below `n`, drawn by `rng`, sorted.
inline std::vector<std::size_t> pick(std::size_t n, std::size_t count, random_stream& rng) {
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    for (std::size_t i = 0; i < count && i < n; ++i)  // a partial Fisher-Yates shuffle
        std::swap(order[i], order[i + rng.below(n - i)]);
    order.resize(count < n ? count : n);
    std::sort(order.begin(), order.end());
    return order;
}

/// A stall's length: uniform in [lo, hi] seconds, or log-uniform.
inline double stall_length(double lo, double hi, bool log_uniform, random_stream& rng) {
    const double u = rng.uniform();
    return log_uniform ? lo * std::pow(hi / lo, u) : lo + (hi - lo) * u;
}

/// Stalls added to `count` of the extends, chosen at random by `seed`, each of a length drawn from [lo, hi]
/// (stall_length), all at `where` (add_stall). Returns the indices of the stalled extends, sorted.
inline std::vector<std::size_t> add_stalls(std::vector<extend_times>& x, const host_flow& h, std::size_t count,
                                           double lo, double hi, bool log_uniform, stall_at where, std::uint64_t seed) {
    random_stream rng(seed);
    const std::vector<std::size_t> at = pick(x.size(), count, rng);
    for (const std::size_t i : at) add_stall(x[i], h, stall_length(lo, hi, log_uniform, rng), where);
    return at;
}

inline std::string two_decimals(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

/// A VDSM log line of thinp.py for an extend.
inline std::string clock_line(const extend_times& e) {
    return "2022-05-01 10:00:00,000+0300 INFO  (mailbox-hsm/1) [virt.vm] (vmId='vm-" + std::to_string(e.vm) +
           "') Extend volume 7d85 completed <Clock(total=" + two_decimals(e.total) + ", wait=" + two_decimals(e.wait) +
           ", extend-volume=" + two_decimals(e.trip) + ", refresh-volume=" + two_decimals(e.refresh) + ")> (thinp:588)";
}

/// The extends as the fit reads them from the log: each line parsed back (the Clock's rounding included).
inline std::vector<provpol::vdsm_fit_sample> as_logged(const std::vector<extend_times>& extends) {
    std::vector<provpol::vdsm_fit_sample> out;
    for (const extend_times& e : extends) {
        const std::string line = clock_line(e);
        const auto r = provpol::parse_vdsm_extend_line(line);
        if (r && r->what != provpol::vdsm_extend_record::kind::none) out.push_back(provpol::vdsm_sample_of(*r, e.vm));
    }
    return out;
}

/// The quantile p of sorted values, linear between the closest ranks.
inline double quantile(const std::vector<double>& sorted, double p) {
    const double pos = p * static_cast<double>(sorted.size() - 1);
    const auto j = static_cast<std::size_t>(pos);
    return j + 1 < sorted.size() ? sorted[j] + (sorted[j + 1] - sorted[j]) * (pos - static_cast<double>(j))
                                 : sorted.back();
}

}  // namespace synth

#endif  // PROVPOL_TESTS_VDSM_LOG_SYNTH_HPP
