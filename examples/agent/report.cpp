// provpol-agent's report (see report.hpp).
#include "report.hpp"

#include "posix.hpp"

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

namespace provpol::agent {

using cli::human_size;
using cli::usage_error;

double prediction::quantile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    const std::size_t i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::min(v.size() - 1, i == 0 ? 0 : i - 1)];
}

double prediction::mean(const std::vector<double>& v) {
    double s = 0;
    for (double x : v) s += x;
    return v.empty() ? 0 : s / static_cast<double>(v.size());
}

template <class Agent>
prediction predict(const Agent& agent, const latency_model& latency, const options& o) {
    const auto w = workload::make(o.write, o.write_rate, o.capacity, o.monitor_interval);
    if (!w) throw usage_error(std::string(w.error().message().view()));
    prediction p;
    extend_log log;
    log.extends.reserve(4096);
    p.paired = simulate_run(recording_agent<Agent>(agent, &log), latency, *w, o.seed);
    p.paired_extends = log.extends;
    for (std::uint32_t i = 0; i < o.runs; ++i) {
        // Other seeds than the paired run's: the distribution of runs under the model.
        const std::uint64_t seed = o.seed < ~std::uint64_t{0} - o.runs ? o.seed + 1 + i : o.seed - 1 - i;
        const run_result r = simulate_run(agent, latency, *w, seed);
        p.pauses.push_back(r.pauses);
        p.pause_seconds.push_back(r.pause_seconds.count());
        p.extends.push_back(r.extends);
        p.final_physical.push_back(static_cast<double>(r.final_physical.count()));
    }
    return p;
}

template prediction predict(const static_agent<vdsm_policy>&, const latency_model&, const options&);
template prediction predict(const rate_aware_agent&, const latency_model&, const options&);

namespace {

std::string format_field(const char* fmt, double v) {
    char b[64];
    std::snprintf(b, sizeof b, fmt, v);
    return b;
}

/// --summary-csv: one row per metric; the simulated columns empty where the simulator has no counterpart.
void write_summary_csv(const options& o, const measured& m, const prediction& p) {
    std::string out;
    cli::csv_writer w(out);
    for (const char* c :
         {"metric", "measured", "simulated_seed", "simulated_mean", "simulated_q005", "simulated_q995", "runs"})
        w.field(c);
    w.end_row();
    auto row = [&](const char* name, double meas, double paired, const std::vector<double>& v) {
        w.field(name);
        for (double x :
             {meas, paired, prediction::mean(v), prediction::quantile(v, 0.005), prediction::quantile(v, 0.995)})
            w.field(format_field("%.6f", x));
        w.field(std::uint64_t{o.runs});
        w.end_row();
    };
    // A metric without a distribution: its fields, the rest of the row empty.
    auto partial = [&](const char* name, std::initializer_list<std::string> fields) {
        w.field(name);
        std::size_t n = 0;
        for (const std::string& f : fields) {
            w.field(f);
            ++n;
        }
        for (; n < 6; ++n) w.field("");
        w.end_row();
    };
    auto u64 = [](std::uint64_t v) { return std::to_string(v); };
    row("extends", m.extends, p.paired.extends, p.extends);
    row("pauses", m.pauses, p.paired.pauses, p.pauses);
    row("pause_seconds", m.pause_seconds, p.paired.pause_seconds.count(), p.pause_seconds);
    row("final_lv_size", static_cast<double>(m.final_physical), static_cast<double>(p.paired.final_physical.count()),
        p.final_physical);
    partial("duration_s", {format_field("%.6f", m.duration), format_field("%.6f", p.paired.duration.count())});
    partial("achieved_rate", {format_field("%.1f", m.achieved_rate),
                              format_field("%.1f", static_cast<double>(o.write_rate.bytes_per_second()))});
    partial("max_lateness_s", {format_field("%.6f", m.max_lateness)});
    partial("max_extend_overhead_s", {format_field("%.6f", m.max_overhead)});
    partial("initial_size", {u64(m.initial_size), u64(p.paired.initial_size.count())});
    partial("limit", {u64(o.config.limit(false).count())});
    partial("verified_mib", {u64(o.write.count() >> 20)});

    std::FILE* f = std::fopen(o.summary_path.c_str(), "w");
    if (f == nullptr) fail_errno("open " + o.summary_path);
    std::fwrite(out.data(), 1, out.size(), f);
    std::fclose(f);
}

}  // namespace

void summarize(const options& o, const measured& m, const prediction& p) {
    std::printf("\nsummary: %s, %s written at %s, latency %s, seed %" PRIu64 "\n", o.label.c_str(),
                human_size(o.write).c_str(), format_rate(o.write_rate).c_str(), o.latency_name.c_str(), o.seed);
    std::printf("%-22s %10s %18s   %s\n", "", "measured", "simulated, seed", "simulated runs: mean [0.5%, 99.5%]");
    auto line = [&](const char* name, const std::string& meas, const std::string& paired, const std::vector<double>& v,
                    const char* fmt) {
        char d[128], q[3][32];
        std::snprintf(q[0], sizeof q[0], fmt, prediction::mean(v));
        std::snprintf(q[1], sizeof q[1], fmt, prediction::quantile(v, 0.005));
        std::snprintf(q[2], sizeof q[2], fmt, prediction::quantile(v, 0.995));
        std::snprintf(d, sizeof d, "%s [%s, %s] (%u runs)", q[0], q[1], q[2], o.runs);
        std::printf("%-22s %10s %18s   %s\n", name, meas.c_str(), paired.c_str(), d);
    };
    auto num = [](double v, const char* fmt) {
        char b[32];
        std::snprintf(b, sizeof b, fmt, v);
        return std::string(b);
    };
    line("extends", num(m.extends, "%.0f"), num(p.paired.extends, "%.0f"), p.extends, "%.2f");
    line("pauses", num(m.pauses, "%.0f"), num(p.paired.pauses, "%.0f"), p.pauses, "%.2f");
    line("total pause time (s)", num(m.pause_seconds, "%.3f"), num(p.paired.pause_seconds.count(), "%.3f"),
         p.pause_seconds, "%.3f");
    std::vector<double> mib;
    for (double b : p.final_physical) mib.push_back(b / 1048576.0);
    line("final LV size (MiB)", num(static_cast<double>(m.final_physical >> 20), "%.0f"),
         num(static_cast<double>(p.paired.final_physical.count() >> 20), "%.0f"), mib, "%.0f");
    std::printf("%-22s %10s %18s\n", "write time (s)", num(m.duration, "%.3f").c_str(),
                num(p.paired.duration.count(), "%.3f").c_str());
    std::printf(
        "\nguest: %.1f MiB/s when not paused (nominal %.1f), at most %.1f ms behind schedule; extend overhead beyond "
        "the "
        "injected delay: at most %.1f ms\n",
        m.achieved_rate / 1048576.0, o.write_rate.mib_per_second(), m.max_lateness * 1000.0, m.max_overhead * 1000.0);
    std::printf("image: qemu-img check: %s; data: %s\n", m.check.c_str(), m.verify.c_str());

    if (!o.summary_path.empty()) write_summary_csv(o, m, p);
    if (!o.extends_csv_path.empty()) {
        // The paired simulation's extends: the agent's events CSV has the real ones, in the same order.
        std::string out;
        cli::csv_writer w(out);
        for (const char* c : {"k", "sim_requested_s", "sim_latency_s", "sim_pause_s", "sim_lv"}) w.field(c);
        w.end_row();
        std::uint64_t k = 0;
        for (const simulated_extend& e : p.paired_extends) {
            w.field(++k).field(format_field("%.6f", e.requested)).field(format_field("%.6f", latency_of(e)));
            w.field(format_field("%.6f", e.pause)).field(e.lv);
            w.end_row();
        }
        std::FILE* f = std::fopen(o.extends_csv_path.c_str(), "w");
        if (f == nullptr) fail_errno("open " + o.extends_csv_path);
        std::fwrite(out.data(), 1, out.size(), f);
        std::fclose(f);
    }
}

}  // namespace provpol::agent
