// The SVG plots: `provpol plan --format svg` (pause probability per extend, or pauses per run, against the write
// rate, one line per configuration) and `provpol capacity --format svg` (pauses per VM against the concurrent
// writers, one pair of lines per latency profile).
#ifndef PROVPOL_CLI_SVG_PLOT_HPP
#define PROVPOL_CLI_SVG_PLOT_HPP

#include <provpol/parse.hpp>
#include <provpol/simulate.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace provpol::cli {

/// Text as XML character data or an attribute value: &, <, >, " and ' escaped; bytes XML 1.0 cannot hold
/// (control characters other than tab and line breaks, and anything that is not UTF-8) as U+FFFD, so that a
/// title made of a file name is still a well-formed document.
std::string xml_text(std::string_view s);

/// The whole SVG document. results[c][i]: configuration c (named labels[c]) at rates[i]; every text (the title,
/// the labels) is escaped with xml_text.
std::string svg_plot(const std::vector<std::string>& labels, const std::vector<rate>& rates,
                     const std::vector<std::vector<simulation_summary>>& results, const std::string& title,
                     bool pauses_per_run);

/// One latency profile in `provpol capacity --format svg`: pauses per writing VM (the median and the 99th
/// percentile over the VMs, as `plan --hosts` reports them) at each writer count, and the search's answer.
struct capacity_series {
    std::string label;                   ///< the latency profile (and the configuration, when several)
    std::uint32_t max_writers = 0;       ///< marked with a vertical line (none when 0)
    std::vector<std::uint32_t> writers;  ///< increasing
    std::vector<double> p50, p99;        ///< at writers[i]
};

/// The whole SVG document: pauses per VM against writers, the target (a share `vm_quantile` of VMs pause at most
/// `max_pauses` times) as a horizontal line, every point with a <title> that names its profile, quantile, count and
/// value; the title on one line and `subtitle` under it, both escaped with xml_text.
std::string svg_capacity_plot(const std::vector<capacity_series>& series, std::uint32_t max_pauses, double vm_quantile,
                              const std::string& title, const std::string& subtitle);

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_SVG_PLOT_HPP
