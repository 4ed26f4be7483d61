// The SVG plots of `provpol plan` and `provpol capacity` (see svg_plot.hpp).
#include "svg_plot.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace provpol::cli {

namespace {

/// The length of the valid UTF-8 sequence at s[i] (1 to 4), or 0 when there is none (a stray continuation
/// byte, an overlong form, a surrogate, beyond U+10FFFF, or cut short).
std::size_t utf8_length(std::string_view s, std::size_t i) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = b(0);
    if (c < 0x80) return 1;
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xbf;  // the second byte's range
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0) lo = 0xa0;  // no overlong form
        if (c == 0xed) hi = 0x9f;  // no surrogate
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0) lo = 0x90;  // no overlong form
        if (c == 0xf4) hi = 0x8f;  // nothing beyond U+10FFFF
    } else {
        return 0;
    }
    if (i + n > s.size() || b(1) < lo || b(1) > hi) return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (b(k) < 0x80 || b(k) > 0xbf) return 0;
    return n;
}

/// 1, 2, 5, 10, 20, 50, ...: the smallest such value at least `top` (1 when `top` is 0 or less).
double round_up_125(double top) {
    double v = 1.0;
    for (double m = 1.0; v < top; m *= 10.0) v = top <= 2.0 * m ? 2.0 * m : (top <= 5.0 * m ? 5.0 * m : 10.0 * m);
    return v;
}

// The series' colours, in turn, in both plots.
constexpr const char* plot_colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};

// Both plots' opening: the <svg> element of w x h on white, and the title at the top left.
void append_head(std::string& s, double w, double h, double left, const std::string& title) {
    char buf[512];
    std::snprintf(
        buf, sizeof buf,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
        "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
        w, h, w, h);
    s += buf;
    std::snprintf(buf, sizeof buf, "<text x=\"%.0f\" y=\"22\" font-size=\"14\">", left);
    s += buf + xml_text(title) + "</text>\n";
}

// The grid of both plots: 11 horizontal lines from 0 to ymax, labelled on the left, and vertical ones every `step`
// from 0 to xmax, labelled under the axis; X and Y map values to the canvas.
template <class ToX, class ToY>
void append_grid(std::string& s, ToX&& X, ToY&& Y, double left, double xmax, double ymax, double step) {
    char buf[512];
    for (int i = 0; i <= 10; ++i) {  // y grid: 0 .. ymax
        const double p = ymax * i / 10.0;
        std::snprintf(
            buf, sizeof buf,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%.1f\" "
            "text-anchor=\"end\">%g</text>\n",
            X(0), Y(p), X(xmax), Y(p), left - 6, Y(p) + 4, p);
        s += buf;
    }
    for (double v = 0; v <= xmax + 1e-9; v += step) {  // x grid
        std::snprintf(
            buf, sizeof buf,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%.1f\" "
            "text-anchor=\"middle\">%.0f</text>\n",
            X(v), Y(0), X(v), Y(ymax), X(v), Y(0) + 18, v);
        s += buf;
    }
}

}  // namespace

std::string xml_text(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        const char c = s[i];
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&apos;";
                break;
            default:
                if (u < 0x20 && c != '\t' && c != '\n' && c != '\r') {
                    out += "\xEF\xBF\xBD";  // U+FFFD: XML 1.0 has no other control characters, not even escaped
                } else if (const std::size_t n = utf8_length(s, i); n == 0) {
                    out += "\xEF\xBF\xBD";  // not UTF-8
                } else {
                    out.append(s.substr(i, n));
                    i += n;
                    continue;
                }
        }
        ++i;
    }
    return out;
}

std::string svg_plot(const std::vector<std::string>& labels, const std::vector<rate>& rates,
                     const std::vector<std::vector<simulation_summary>>& results, const std::string& title,
                     bool pauses_per_run) {
    double ymax = 1.0;
    if (pauses_per_run) {
        double top = 0.0;
        for (const auto& row : results)
            for (const auto& r : row) top = r.pauses > top ? r.pauses : top;
        // 1, 2, 5, 10, 20, 50, ...: ten grid lines at round values
        ymax = 1.0;
        for (double m = 1.0; ymax < top; m *= 10.0)
            ymax = top <= 2.0 * m ? 2.0 * m : (top <= 5.0 * m ? 5.0 * m : 10.0 * m);
    }
    auto value = [&](const simulation_summary& r) { return pauses_per_run ? r.pauses : r.pause_probability; };
    const double w = 760, h = 420, left = 70, right = 220, top = 40, bottom = 60;
    double xmax = 0;
    for (rate r : rates) xmax = r.mib_per_second() > xmax ? r.mib_per_second() : xmax;
    double step = 50;
    while (xmax / step > 10) step *= 2;
    xmax = (static_cast<int>(xmax / step) + 1) * step;
    auto X = [&](double v) { return left + (w - left - right) * v / xmax; };
    auto Y = [&](double p) { return top + (h - top - bottom) * (1.0 - p / ymax); };
    std::string s;
    char buf[512];
    append_head(s, w, h, left, title);
    append_grid(s, X, Y, left, xmax, ymax, step);
    std::snprintf(buf, sizeof buf,
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">write rate (MiB/s)</text>\n"
                  "<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
                  (X(0) + X(xmax)) / 2, h - 14, (Y(0) + Y(ymax)) / 2,
                  pauses_per_run ? "pauses per run" : "pauses per extend");
    s += buf;
    for (std::size_t c = 0; c < labels.size(); ++c) {
        const char* color = plot_colors[c % 6];
        std::string points;
        for (std::size_t i = 0; i < rates.size(); ++i) {
            std::snprintf(buf, sizeof buf, "%s%.1f,%.1f", i ? " " : "", X(rates[i].mib_per_second()),
                          Y(value(results[c][i])));
            points += buf;
        }
        s += "<polyline fill=\"none\" stroke=\"" + std::string(color) + "\" stroke-width=\"2\" points=\"" + points +
             "\"/>\n";
        for (std::size_t i = 0; i < rates.size(); ++i) {
            std::snprintf(buf, sizeof buf, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n",
                          X(rates[i].mib_per_second()), Y(value(results[c][i])), color);
            s += buf;
        }
        std::snprintf(buf, sizeof buf,
                      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>"
                      "<text x=\"%.1f\" y=\"%.1f\">",
                      w - right + 15, top + 20.0 * static_cast<double>(c), w - right + 40,
                      top + 20.0 * static_cast<double>(c), color, w - right + 46,
                      top + 20.0 * static_cast<double>(c) + 4);
        s += buf + xml_text(labels[c]) + "</text>\n";
    }
    s += "</svg>\n";
    return s;
}

// One series of the capacity plot: its answer (a vertical line at max_writers), its 99th percentile (solid) and
// median (dashed) with a point per count checked, and its legend entries from legend_y down, at x = lx.
template <class XF, class YF>
void append_capacity_series(std::string& s, const capacity_series& k, const char* color, XF X, YF Y, double ymax,
                            double lx, double& legend_y) {
    char buf[512];
    if (k.max_writers > 0) {  // the answer: a vertical line at max_writers
        std::snprintf(buf, sizeof buf,
                      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\" "
                      "stroke-dasharray=\"2 3\"><title>",
                      X(k.max_writers), Y(0), X(k.max_writers), Y(ymax), color);
        s += buf + xml_text(k.label);
        std::snprintf(buf, sizeof buf, " max_writers %u</title></line>\n", static_cast<unsigned>(k.max_writers));
        s += buf;
    }
    for (int q = 0; q < 2; ++q) {  // the 99th percentile solid, the median dashed
        const std::vector<double>& v = q == 0 ? k.p99 : k.p50;
        const char* name = q == 0 ? "p99" : "p50";
        std::string points;
        for (std::size_t i = 0; i < k.writers.size(); ++i) {
            std::snprintf(buf, sizeof buf, "%s%.1f,%.1f", i ? " " : "", X(k.writers[i]), Y(v[i]));
            points += buf;
        }
        s += "<polyline fill=\"none\" stroke=\"" + std::string(color) + "\" stroke-width=\"2\"" +
             (q == 0 ? "" : " stroke-dasharray=\"5 3\"") + " points=\"" + points + "\"/>\n";
        for (std::size_t i = 0; i < k.writers.size(); ++i) {
            std::snprintf(buf, sizeof buf, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\" stroke=\"%s\"><title>",
                          X(k.writers[i]), Y(v[i]), q == 0 ? color : "white", color);
            s += buf + xml_text(k.label);
            std::snprintf(buf, sizeof buf, " %s at %u writer%s: %.6g pauses per run</title></circle>\n", name,
                          static_cast<unsigned>(k.writers[i]), k.writers[i] == 1 ? "" : "s", v[i]);
            s += buf;
        }
        std::snprintf(buf, sizeof buf,
                      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"%s/>"
                      "<text x=\"%.1f\" y=\"%.1f\">",
                      lx + 15, legend_y, lx + 40, legend_y, color, q == 0 ? "" : " stroke-dasharray=\"5 3\"", lx + 46,
                      legend_y + 4);
        s += buf + xml_text(k.label) + " " + name + "</text>\n";
        legend_y += 18.0;
    }
    std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\">max_writers %u</text>\n", lx + 46,
                  legend_y + 4, color, static_cast<unsigned>(k.max_writers));
    s += buf;
    legend_y += 26.0;
}

std::string svg_capacity_plot(const std::vector<capacity_series>& series, std::uint32_t max_pauses, double vm_quantile,
                              const std::string& title, const std::string& subtitle) {
    const double target_pauses = max_pauses;
    double top = target_pauses, most = 1.0;
    for (const capacity_series& c : series) {
        for (double v : c.p99) top = v > top ? v : top;
        for (double v : c.p50) top = v > top ? v : top;
        for (std::uint32_t n : c.writers) most = n > most ? n : most;
    }
    const double ymax = round_up_125(top);
    // x: 0 to a round count past the last one sampled, at most 10 grid steps of 1, 2, 5, 10, ... writers
    double step = 1.0;
    while (most / step > 10.0) step = round_up_125(step * 1.5);
    const double xmax = (static_cast<double>(static_cast<std::uint64_t>(most / step)) + 1.0) * step;
    const double w = 760, h = 460, left = 70, right = 250, top_margin = 60, bottom = 60;
    auto X = [&](double v) { return left + (w - left - right) * v / xmax; };
    auto Y = [&](double p) { return top_margin + (h - top_margin - bottom) * (1.0 - p / ymax); };
    std::string s;
    char buf[512];
    append_head(s, w, h, left, title);
    std::snprintf(buf, sizeof buf, "<text x=\"%.0f\" y=\"40\" fill=\"#444\">", left);
    s += buf + xml_text(subtitle) + "</text>\n";
    char target_text[128], target_share[64];
    std::snprintf(target_text, sizeof target_text, "target: at most %u pause%s", static_cast<unsigned>(max_pauses),
                  max_pauses == 1 ? "" : "s");
    std::snprintf(target_share, sizeof target_share, "for %g%% of VMs", vm_quantile * 100.0);
    append_grid(s, X, Y, left, xmax, ymax, step);
    std::snprintf(buf, sizeof buf,
                  "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">concurrent writers</text>\n"
                  "<text transform=\"translate(18 %.1f) rotate(-90)\" text-anchor=\"middle\">pauses per VM (per "
                  "run)</text>\n",
                  (X(0) + X(xmax)) / 2, h - 14, (Y(0) + Y(ymax)) / 2);
    s += buf;
    // The target: at most target_pauses pauses for the target's share of VMs.
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\" stroke-width=\"1.5\" "
                  "stroke-dasharray=\"8 4\"><title>",
                  X(0), Y(target_pauses), X(xmax), Y(target_pauses));
    s += buf + xml_text(target_text) + " " + target_share + "</title></line>\n";
    double legend_y = top_margin;
    std::snprintf(buf, sizeof buf,
                  "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\" stroke-width=\"1.5\" "
                  "stroke-dasharray=\"8 4\"/><text x=\"%.1f\" y=\"%.1f\">",
                  w - right + 15, legend_y, w - right + 40, legend_y, w - right + 46, legend_y + 4);
    s += buf + xml_text(target_text) + "</text>\n";
    std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", w - right + 46, legend_y + 20,
                  target_share);
    s += buf;
    legend_y += 44.0;
    for (std::size_t c = 0; c < series.size(); ++c)
        append_capacity_series(s, series[c], plot_colors[c % 6], X, Y, ymax, w - right, legend_y);
    s += "</svg>\n";
    return s;
}

}  // namespace provpol::cli
