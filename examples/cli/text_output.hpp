// The default text of plan, recommend and capacity fits 100 columns: its tables print the columns that answer the
// question (every column with --columns all, or those named; CSV and JSON keep every column), and comment lines
// ("# ...") longer than that are wrapped at a space, the rest on lines of their own that start "#   ". Lines that
// are not comments (an lvm.conf block, a table) are left as they are: they are pasted or read by column.
#ifndef PROVPOL_CLI_TEXT_OUTPUT_HPP
#define PROVPOL_CLI_TEXT_OUTPUT_HPP

#include "common/cli.hpp"
#include "common/table.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace provpol::cli {

/// The widest line the default text prints.
inline constexpr std::size_t text_width = 100;

/// `text` with each comment line longer than `width` wrapped at its last space that fits (a word longer than the
/// line is left whole); with `prose`, every other line too, its rest indented by two spaces (for sentences under a
/// table, never for the table itself).
inline std::string wrap_comments(const std::string& text, std::size_t width = text_width, bool prose = false) {
    std::string out;
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(at, end - at);
        at = end + 1;
        const bool comment = line.rfind("#", 0) == 0;
        while (line.size() > width && (comment || prose)) {
            std::size_t cut = line.rfind(' ', width);
            if (cut == std::string::npos || cut < 5) cut = line.find(' ', width);
            if (cut == std::string::npos) break;
            out += line.substr(0, cut) + "\n";
            std::size_t rest = line.find_first_not_of(' ', cut);
            line = (comment ? "#   " : "  ") + (rest == std::string::npos ? std::string() : line.substr(rest));
        }
        out += line;
        if (end < text.size() || (!text.empty() && text.back() == '\n')) out += "\n";
    }
    return out;
}

/// --columns' help, for the commands whose text table chooses its columns.
inline constexpr const char* columns_help =
    "the text table's columns: a comma-separated list, or all; without it, those that answer the question (marked * "
    "in the list of columns below); CSV and JSON print every column";

/// The text table's columns: --columns (all, or a comma-separated list of the table's columns), else `defaults`.
inline void text_columns_of(const args& a, table& t, const std::vector<std::string>& defaults) {
    const auto v = a.value("--columns");
    if (!v) return t.text_columns(defaults);
    std::vector<std::string> names;
    std::size_t at = 0;
    while (at <= v->size()) {
        const std::size_t comma = v->find(',', at);
        const std::string name = v->substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        if (name.empty()) throw usage_error("--columns: an empty name in '" + args::printable(*v) + "'");
        names.push_back(name);
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    t.text_columns(names);
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_TEXT_OUTPUT_HPP
