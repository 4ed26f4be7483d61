// The SVG plot of `provpol plan --format svg`: pause probability per extend (or pauses per run) against the
// write rate, one line per configuration.
#ifndef PROVPOL_CLI_SVG_PLOT_HPP
#define PROVPOL_CLI_SVG_PLOT_HPP

#include <provpol/parse.hpp>
#include <provpol/simulate.hpp>

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

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_SVG_PLOT_HPP
