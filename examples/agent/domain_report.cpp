// provpol-agent's domain report (see domain_report.hpp).
#include "domain_report.hpp"

#include "posix.hpp"
#include "sim_record.hpp"

#include "common/cli.hpp"
#include "common/csv.hpp"
#include "common/table.hpp"

#include <provpol/extend.hpp>
#include <provpol/simulate/rate_aware.hpp>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace provpol::agent {

namespace {

double latency_of(const extend_record& e) { return e.done >= 0 ? e.done - e.requested : -1; }

struct latency_stats {
    double mean = 0, p50 = 0, max = 0;
};
/// Mean, median and maximum as domain_summary computes them (the nearest rank).
latency_stats stats_of(std::vector<double> v) {
    latency_stats s;
    if (v.empty()) return s;
    std::sort(v.begin(), v.end());
    for (double x : v) s.mean += x;
    s.mean /= static_cast<double>(v.size());
    const auto i = static_cast<std::size_t>(std::ceil(0.5 * static_cast<double>(v.size())));
    s.p50 = v[i < 1 ? 0 : i - 1];
    s.max = v.back();
    return s;
}
/// Every extend's latency in the domain (the measured ones).
latency_stats domain_stats(const std::vector<extend_record>& extends) {
    std::vector<double> v;
    for (const extend_record& e : extends)
        if (latency_of(e) >= 0) v.push_back(latency_of(e));
    return stats_of(v);
}

/// A drive's latencies over the extends that completed in all three (measured, simulated, alone): the simulator
/// stops watching a drive once it wrote everything, so an extend completing after that has no simulated latency.
struct drive_latencies {
    latency_stats measured, simulated, alone;
};
drive_latencies drive_stats(const std::vector<extend_record>& extends, unsigned drive, const simulated_drive& sim,
                            const simulated_drive& alone) {
    std::vector<double> m, s, a;
    std::size_t k = 0;
    for (const extend_record& e : extends) {
        if (e.drive != drive) continue;
        const std::size_t i = k++;
        if (latency_of(e) < 0 || i >= sim.extends.size() || i >= alone.extends.size()) continue;
        if (latency_of(sim.extends[i]) < 0 || latency_of(alone.extends[i]) < 0) continue;
        m.push_back(latency_of(e));
        s.push_back(latency_of(sim.extends[i]));
        a.push_back(latency_of(alone.extends[i]));
    }
    return {stats_of(m), stats_of(s), stats_of(a)};
}

std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}
std::string fmt(const char* f, seconds v) { return fmt(f, v.count()); }

void write_file(const std::string& path, const std::string& text) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr) fail_errno("open " + path);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
}

}  // namespace

template <class Agent>
domain_prediction predict_domain(const Agent& agent, const latency_model& latency, const options& o) {
    const auto w = workload::make(o.write, o.write_rate, o.capacity, o.monitor_interval);
    if (!w) throw cli::usage_error(std::string(w.error().message().view()));
    const auto cfg = domain_config::make(1, o.drives);
    if (!cfg) throw cli::usage_error(std::string(cfg.error().message().view()));
    std::vector<drive_workload> loads;
    for (std::uint32_t d = 0; d < o.drives; ++d) {
        const auto dw = drive_workload::make(*w, o.stagger * d);
        if (!dw) throw cli::usage_error(std::string(dw.error().message().view()));
        loads.push_back(*dw);
    }
    domain_prediction p;
    p.paired.resize(o.drives);
    p.alone.resize(o.drives);
    // only < 0: every drive writes; otherwise only that one, the others idle.
    auto run = [&](std::vector<simulated_drive>& into, int only) {
        std::vector<extend_log> logs(o.drives);
        for (extend_log& l : logs) l.extends.reserve(4096);
        const auto r = simulate_domain(
            *cfg, latency, [&](std::uint32_t d) noexcept { return recording_agent<Agent>(agent, &logs[d]); },
            [&](std::uint32_t d) noexcept {
                return only < 0 || d == static_cast<std::uint32_t>(only) ? loads[d]
                                                                         : drive_workload::idle(loads[d].base);
            },
            o.seed);
        if (!r) throw failure("simulate_domain: " + std::string(r.error().message().view()));
        for (std::uint32_t d = 0; d < o.drives; ++d)
            if (only < 0 || d == static_cast<std::uint32_t>(only)) into[d] = {r->drive(d).run, logs[d].extends};
        if (only < 0) p.summary = r->summary();
    };
    run(p.paired, -1);
    for (std::uint32_t d = 0; d < o.drives; ++d) run(p.alone, static_cast<int>(d));
    return p;
}

template domain_prediction predict_domain(const static_agent<vdsm_policy>&, const latency_model&, const options&);
template domain_prediction predict_domain(const rate_aware_agent&, const latency_model&, const options&);

namespace {

/// One row of --summary-csv: a drive's (or "all") metric, measured, simulated with the same seed, and alone.
void srow(cli::csv_writer& sw, const std::string& drive, const char* metric, const std::string& a, const std::string& b,
          const std::string& c) {
    sw.field(drive).field(metric).field(a).field(b).field(c);
    sw.end_row();
}

/// What the drives measured together, for the domain's line.
struct drive_totals {
    double max_lateness = 0, max_overhead = 0, pause_total = 0;
    std::uint32_t pauses_total = 0;
};

/// The run's heading and the table of the drives: measured | simulated | alone.
drive_totals summarize_drives(const options& o, const domain_measured& m, const domain_prediction& p,
                              cli::csv_writer& sw) {
    std::printf(
        "\nsummary: %u drives on one host, %s, each writes %s at %s, drive d starting at d x %.2f s; latency "
        "%s; seed %" PRIu64 "\n",
        o.drives, o.label.c_str(), cli::human_size(o.write).c_str(), format_rate(o.write_rate).c_str(),
        o.stagger.count(), o.latency_name.c_str(), o.seed);
    std::printf(
        "measured | simulate_domain with the same seed | the drive alone in the domain (simulated); a drive's "
        "latencies over its extends that completed before it finished writing\n");
    std::printf("%-6s %9s %13s %22s %24s %15s\n", "drive", "extends", "pauses", "pause time (s)",
                "extend latency mean (s)", "max (s)");
    for (const char* c : {"drive", "metric", "measured", "simulated", "alone"}) sw.field(c);
    sw.end_row();
    drive_totals t;
    for (std::uint32_t d = 0; d < o.drives; ++d) {
        const measured& md = m.drives[d];
        const run_result& sr = p.paired[d].run;
        const run_result& ar = p.alone[d].run;
        const drive_latencies l = drive_stats(m.extends, d, p.paired[d], p.alone[d]);
        const latency_stats &lm = l.measured, &ls = l.simulated, &la = l.alone;
        std::printf("d%-5u %4u|%-4u %3u|%3u|%-3u %7.3f|%6.3f|%6.3f %7.3f|%7.3f|%7.3f %7.3f|%7.3f\n", d, md.extends,
                    sr.extends, md.pauses, sr.pauses, ar.pauses, md.pause_seconds, sr.pause_seconds.count(),
                    ar.pause_seconds.count(), lm.mean, ls.mean, la.mean, lm.max, ls.max);
        const std::string dn = std::to_string(d);
        auto u = [](std::uint64_t v) { return std::to_string(v); };
        srow(sw, dn, "extends", u(md.extends), u(sr.extends), u(ar.extends));
        srow(sw, dn, "pauses", u(md.pauses), u(sr.pauses), u(ar.pauses));
        srow(sw, dn, "pause_seconds", fmt("%.6f", md.pause_seconds), fmt("%.6f", sr.pause_seconds),
             fmt("%.6f", ar.pause_seconds));
        srow(sw, dn, "latency_mean", fmt("%.6f", lm.mean), fmt("%.6f", ls.mean), fmt("%.6f", la.mean));
        srow(sw, dn, "latency_max", fmt("%.6f", lm.max), fmt("%.6f", ls.max), fmt("%.6f", la.max));
        srow(sw, dn, "duration_s", fmt("%.6f", md.duration), fmt("%.6f", sr.duration), fmt("%.6f", ar.duration));
        srow(sw, dn, "final_lv_size", u(md.final_physical), u(sr.final_physical.count()), u(ar.final_physical.count()));
        srow(sw, dn, "max_lateness_s", fmt("%.6f", md.max_lateness), "", "");
        srow(sw, dn, "max_extend_overhead_s", fmt("%.6f", md.max_overhead), "", "");
        srow(sw, dn, "achieved_rate", fmt("%.1f", md.achieved_rate),
             fmt("%.1f", static_cast<double>(o.write_rate.bytes_per_second())), "");
        t.max_lateness = std::max(t.max_lateness, md.max_lateness);
        t.max_overhead = std::max(t.max_overhead, md.max_overhead);
        t.pauses_total += md.pauses;
        t.pause_total += md.pause_seconds;
    }
    return t;
}

/// The domain's line: all drives' extends, pauses and latencies, and the VG lock, measured | simulated.
void summarize_totals(const domain_measured& m, const domain_prediction& p, const drive_totals& t,
                      cli::csv_writer& sw) {
    const latency_stats lm = domain_stats(m.extends);
    std::uint32_t sim_pauses = 0;
    double sim_pause_total = 0;
    for (const simulated_drive& sd : p.paired)
        sim_pauses += sd.run.pauses, sim_pause_total += sd.run.pause_seconds.count();
    const domain_summary& ss = p.summary;
    std::printf("domain: %zu extends | %" PRIu64
                "; pauses %u | %u, %.3f s | %.3f s; extend latency mean %.3f | %.3f s, "
                "median %.3f | %.3f s, max %.3f | %.3f s; VG lock held %.3f s, %u requests waited for another's "
                "lvextend | %.3f s held\n",
                m.extends.size(), ss.extends, t.pauses_total, sim_pauses, t.pause_total, sim_pause_total, lm.mean,
                ss.latency_mean.count(), lm.p50, ss.latency_p50.count(), lm.max, ss.latency_max.count(), m.spm_busy,
                m.lock_waits, ss.spm_busy.count());
    srow(sw, "all", "extends", std::to_string(m.extends.size()), std::to_string(ss.extends), "");
    srow(sw, "all", "pauses", std::to_string(t.pauses_total), std::to_string(sim_pauses), "");
    srow(sw, "all", "pause_seconds", fmt("%.6f", t.pause_total), fmt("%.6f", sim_pause_total), "");
    srow(sw, "all", "latency_mean", fmt("%.6f", lm.mean), fmt("%.6f", ss.latency_mean), "");
    srow(sw, "all", "latency_p50", fmt("%.6f", lm.p50), fmt("%.6f", ss.latency_p50), "");
    srow(sw, "all", "latency_max", fmt("%.6f", lm.max), fmt("%.6f", ss.latency_max), "");
    srow(sw, "all", "spm_busy_s", fmt("%.6f", m.spm_busy), fmt("%.6f", ss.spm_busy), "");
    srow(sw, "all", "lock_waits", std::to_string(m.lock_waits), "", "");
    srow(sw, "all", "max_lateness_s", fmt("%.6f", t.max_lateness), "", "");
    srow(sw, "all", "max_extend_overhead_s", fmt("%.6f", t.max_overhead), "", "");
}

/// Every extend, measured | simulated with the same seed, with its path through the mailbox and the SPM.
void list_extends(const options& o, const domain_measured& m, const domain_prediction& p, cli::csv_writer& ew) {
    std::printf(
        "extends, measured | simulate_domain (same seed); the measured one's path through the mailbox and "
        "the SPM:\n");
    for (const char* c : {"drive",           "k",
                          "requested_s",     "latency_s",
                          "injected_s",      "pause_s",
                          "free_s",          "handled_s",
                          "sent_s",          "scan_s",
                          "lock_start_s",    "lock_end_s",
                          "lvextend_done_s", "reply_poll_s",
                          "event_delay_s",   "lv",
                          "sim_requested_s", "sim_latency_s",
                          "sim_pause_s",     "sim_lv",
                          "alone_latency_s"})
        ew.field(c);
    ew.end_row();
    std::vector<std::uint32_t> k(o.drives, 0);
    for (const extend_record& e : m.extends) {
        const std::uint32_t i = k[e.drive]++;
        const auto& se = p.paired[e.drive].extends;
        const auto& ae = p.alone[e.drive].extends;
        const simulated_extend s = i < se.size() ? se[i] : simulated_extend{-1, -1, -1, 0};
        const double alone = i < ae.size() ? latency_of(ae[i]) : -1;
        const std::string sim_latency =
            latency_of(s) >= 0 ? fmt("%.3f", latency_of(s)) : std::string("(after its write)");
        std::printf(
            "d%u #%-2u requested %7.3f | %7.3f  latency %.3f (injected %.3f) | %s  pause %.3f | %.3f  sent "
            "%.3f scan %.3f lock %.3f-%.3f reply %.3f\n",
            e.drive, i + 1, e.requested, s.requested, latency_of(e), e.injected_done - e.requested, sim_latency.c_str(),
            e.pause, s.pause, e.sent, e.scan, e.lock_start, e.lock_end, e.reply_poll);
        ew.field(std::uint64_t{e.drive}).field(std::uint64_t{i + 1});
        for (double v : {e.requested, latency_of(e), e.injected_done - e.requested, e.pause, e.free_s, e.handled,
                         e.sent, e.scan, e.lock_start, e.lock_end, e.lvextend_done, e.reply_poll, e.event_delay})
            ew.field(fmt("%.6f", v));
        ew.field(e.lv);
        for (double v : {s.requested, latency_of(s), s.pause}) ew.field(fmt("%.6f", v));
        ew.field(s.lv).field(fmt("%.6f", alone));
        ew.end_row();
    }
}

}  // namespace

void summarize_domain(const options& o, const domain_measured& m, const domain_prediction& p) {
    std::string sum, ext;
    cli::csv_writer sw(sum), ew(ext);
    const drive_totals t = summarize_drives(o, m, p, sw);
    summarize_totals(m, p, t, sw);
    list_extends(o, m, p, ew);
    std::printf(
        "\nguests: at most %.1f ms behind schedule; extend overhead beyond the injected delay: at most %.1f ms\n",
        t.max_lateness * 1000.0, t.max_overhead * 1000.0);
    for (std::uint32_t d = 0; d < o.drives; ++d)
        std::printf("image d%u: qemu-img check: %s; data: %s\n", d, m.drives[d].check.c_str(),
                    m.drives[d].verify.c_str());
    if (!o.summary_path.empty()) write_file(o.summary_path, sum);
    if (!o.extends_csv_path.empty()) write_file(o.extends_csv_path, ext);
}

}  // namespace provpol::agent
