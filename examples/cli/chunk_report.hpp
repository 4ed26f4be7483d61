// What `provpol chunk` and `provpol calibrate` share: the presets by name, the calibration of samples (rule and
// model), and the report both print (text: one "name  value" line per known field; csv and json: every field).
#ifndef PROVPOL_CLI_CHUNK_REPORT_HPP
#define PROVPOL_CLI_CHUNK_REPORT_HPP

#include "common/cli.hpp"
#include "common/table.hpp"
#include "device_limits.hpp"

#include <provpol/chunk.hpp>
#include <provpol/fit/chunk.hpp>

#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace provpol::cli {

/// Which rule turns samples into a size: choose_by_rule ("smallest") or choose_by_steady_rule ("steady").
enum class sample_rule { smallest, steady };

/// The rule's name as --rule spells it.
inline const char* rule_name(sample_rule r) { return r == sample_rule::steady ? "steady" : "smallest"; }

/// Reads --rule (absent: smallest).
inline sample_rule parse_sample_rule(const args& a) {
    const auto v = a.value("--rule");
    if (!v || *v == "smallest") return sample_rule::smallest;
    if (*v == "steady") return sample_rule::steady;
    throw usage_error("--rule: unknown value '" + args::printable(*v) + "': expected smallest or steady");
}

/// Samples and what the rule and the model make of them.
struct calibration {
    std::vector<throughput_sample> sorted;  ///< by block size, then throughput
    sample_rule which = sample_rule::smallest;
    rule_choice rule{};      ///< the chosen rule's pick (for steady: its size and median, best = the fastest size)
    rule_choice smallest{};  ///< choose_by_rule's answer, whichever rule was chosen
    steady_choice steady{};  ///< choose_by_steady_rule's answer, whichever rule was chosen
    std::optional<cost_model_fit> fit;
    std::string fit_problem;        ///< why there is no fit (one block size, times that do not grow)
    std::optional<bytes> fit_size;  ///< the size the model says reaches the target fraction of B
    double target_fraction = default_target_fraction;
};

inline std::string text_of(text_view t) { return std::string(t.data(), t.size()); }

/// Runs both rules (`which` one decides) and the fit. Throws usage_error on samples the library rejects.
inline calibration calibrate_samples(std::vector<throughput_sample> samples, double target_fraction,
                                     sample_rule which = sample_rule::smallest) {
    calibration c;
    c.target_fraction = target_fraction;
    c.which = which;
    c.sorted = std::move(samples);
    const auto rule = choose_by_rule(c.sorted.data(), c.sorted.size(), target_fraction);
    if (!rule) throw usage_error("samples: " + text_of(rule.error().message().view()));
    c.smallest = *rule;
    const auto steady = choose_by_steady_rule(c.sorted.data(), c.sorted.size(), target_fraction);
    if (!steady) throw usage_error("samples: " + text_of(steady.error().message().view()));
    c.steady = *steady;
    c.rule = c.smallest;
    if (which == sample_rule::steady) {
        c.rule.block_size = steady->block_size;
        c.rule.median_bytes_per_second = steady->median_bytes_per_second;
    }
    // choose_by_rule sorts a copy; the report and the fit take the samples sorted (valid: the rule took them).
    if (const auto in_order = sort_samples(c.sorted.data(), c.sorted.size()); !in_order)
        throw usage_error("samples: " + text_of(in_order.error().message().view()));
    const auto fit = fit_cost_model(c.sorted.data(), c.sorted.size());
    if (fit) {
        c.fit = *fit;
        const auto size = size_for_fraction(fit->model, target_fraction);
        if (size) c.fit_size = *size;
    } else {
        c.fit_problem = text_of(fit.error().message().view());
        if (c.fit_problem.rfind("samples: ", 0) == 0) c.fit_problem.erase(0, 9);
    }
    return c;
}

/// Named cells, printed as one row (csv, json) or as "name  value" lines without the empty ones (text).
class report_fields {
public:
    void add(std::string name, cell value) { fields_.emplace_back(std::move(name), std::move(value)); }

    cli::table table() const {
        std::vector<std::string> names;
        std::vector<cell> row;
        for (const auto& f : fields_) {
            names.push_back(f.first);
            row.push_back(f.second);
        }
        cli::table t(names);
        t.add_row(row);
        return t;
    }

    void print_text(std::FILE* out) const {
        std::size_t w = 0;
        for (const auto& f : fields_)
            if (f.second.type() != cell::kind::empty && f.first.size() > w) w = f.first.size();
        for (const auto& f : fields_) {
            if (f.second.type() == cell::kind::empty) continue;
            std::string name = f.first;
            name.resize(w, ' ');
            std::fprintf(out, "%s  %s\n", name.c_str(), f.second.display().c_str());
        }
    }

private:
    std::vector<std::pair<std::string, cell>> fields_;
};

/// A size that may be unknown (0): empty when unknown.
inline cell known_size(bytes b) { return b.count() == 0 ? cell() : cell::of_size(b); }

/// The policy's settings and the device's limits.
template <class DefaultStep>
void add_policy_fields(report_fields& f, const basic_chunk_policy<DefaultStep>& p, const path_limits* path) {
    const device_limits& l = p.limits();
    f.add("mode", cell::of_text(text_of(to_text(p.mode()))));
    f.add("default_size", cell::of_size(p.default_size()));
    f.add("floor", cell::of_size(p.floor()));
    f.add("granularity", cell::of_size(p.granularity()));
    f.add("alignment_unit", cell::of_size(p.alignment_unit()));
    f.add("min_chunk", cell::of_size(p.min_chunk()));
    f.add("max_chunk", l.max_transfer_size.count() != 0 ? cell::of_size(p.max_chunk()) : cell());  // no cap: empty
    f.add("buffer_alignment", cell::of_size(p.buffer_alignment()));
    f.add("logical_block_size", known_size(l.logical_block_size));
    f.add("physical_block_size", known_size(l.physical_block_size));
    f.add("minimum_io_size", known_size(l.minimum_io_size));
    f.add("optimal_io_size", known_size(l.optimal_io_size));
    f.add("max_transfer_size", known_size(l.max_transfer_size));
    f.add("dio_mem_align", known_size(l.dio_mem_align));
    f.add("dio_offset_align", known_size(l.dio_offset_align));
    f.add("stat_block_size", known_size(l.stat_block_size));
    f.add("path_kind", path ? cell::of_text(path->kind) : cell());
    f.add("device", path ? cell::of_text(path->device) : cell());
    f.add("disk", path && !path->disk.empty() ? cell::of_text(path->disk) : cell());
}

/// The rule's and the model's results, and the model's size through the policy.
template <class DefaultStep>
void add_calibration_fields(report_fields& f, const calibration* c, const basic_chunk_policy<DefaultStep>& p,
                            double target_fraction) {
    const bool fit = c != nullptr && c->fit.has_value();
    f.add("target_fraction", c ? cell::of_real(target_fraction) : cell());
    f.add("rule", c ? cell::of_text(rule_name(c->which)) : cell());
    f.add("rule_block_size", c ? cell::of_size(c->rule.block_size) : cell());
    f.add("rule_mb_per_s", c ? cell::of_real(to_mb_per_s(c->rule.median_bytes_per_second), 4) : cell());
    f.add("best_block_size", c ? cell::of_size(c->rule.best_block_size) : cell());
    f.add("best_mb_per_s", c ? cell::of_real(to_mb_per_s(c->rule.best_bytes_per_second), 4) : cell());
    f.add("smallest_block_size", c ? cell::of_size(c->smallest.block_size) : cell());
    f.add("steady_block_size", c ? cell::of_size(c->steady.block_size) : cell());
    f.add("steady_mb_per_s", c ? cell::of_real(to_mb_per_s(c->steady.steady_bytes_per_second), 4) : cell());
    f.add("fit_latency_us", fit ? cell::of_real(c->fit->model.latency_seconds.count() * 1e6, 4) : cell());
    f.add("fit_bandwidth_mb_per_s",
          fit ? cell::of_real(to_mb_per_s(c->fit->model.bandwidth_bytes_per_second), 4) : cell());
    f.add("fit_rms_residual", fit ? cell::of_real(c->fit->rms_relative_residual, 3) : cell());
    f.add("fit_max_residual", fit ? cell::of_real(c->fit->max_relative_residual, 3) : cell());
    f.add("fit_block_size", fit && c->fit_size ? cell::of_size(*c->fit_size) : cell());
    f.add("fit_chunk_size", fit && c->fit_size ? cell::of_size(p.decide(*c->fit_size).size) : cell());
    f.add("fit_problem", c && !fit ? cell::of_text(c->fit_problem) : cell());
}

/// "+2.1%"
inline std::string percent_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%+.1f%%", v * 100.0);
    return buf;
}

/// Per block size: runs, median, range, and the model's throughput and residual there.
inline void print_size_table(std::FILE* out, const calibration& c) {
    cli::table t(
        {"block_size", "runs", "median_mb_per_s", "min_mb_per_s", "max_mb_per_s", "model_mb_per_s", "residual"});
    for (std::size_t i = 0; i < c.sorted.size();) {
        const size_stats s = size_stats_at(c.sorted.data(), c.sorted.size(), i);
        std::vector<cell> row = {cell::of_size(s.block_size), cell::of(s.runs),
                                 cell::of_real(to_mb_per_s(s.median_bytes_per_second), 4),
                                 cell::of_real(to_mb_per_s(s.min_bytes_per_second), 4),
                                 cell::of_real(to_mb_per_s(s.max_bytes_per_second), 4)};
        if (c.fit) {
            row.push_back(cell::of_real(to_mb_per_s(c.fit->model.bytes_per_second(s.block_size)), 4));
            row.push_back(cell::of_text(
                percent_text(relative_residual(c.fit->model, {s.block_size, s.median_bytes_per_second}))));
        }
        t.add_row(row);
        i += s.runs;
    }
    t.print_text(out);
}

/// A deadline error from the library, as one line naming --deadline.
inline std::string deadline_problem(const error& e, seconds deadline, bytes total, const cost_model& m) {
    char buf[320];
    if (e.code() == errc::out_of_range && e.setting() == "deadline_seconds") {
        std::snprintf(buf, sizeof buf,
                      "--deadline: %g s cannot be met on this device: one write of %s takes %.3g s (t0 %.3g us, B %.4g "
                      "MB/s), so the deadline must be at least %.3g s with the %g%% margin",
                      deadline.count(), format_size(total).c_str(), m.seconds_per_write(total).count(),
                      m.latency_seconds.count() * 1e6, to_mb_per_s(m.bandwidth_bytes_per_second),
                      e.lower_bound().as_real(), default_deadline_margin * 100);
        return buf;
    }
    std::string msg = text_of(e.message().view());
    if (msg.rfind("deadline_seconds", 0) == 0) msg = "--deadline" + msg.substr(16);
    return msg;
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_CHUNK_REPORT_HPP
