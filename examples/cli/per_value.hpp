// A command that answers for one value of an option (recommend for one --rate, plan for one --latency) answering
// for a list of them: the command runs once per value and the answers are joined as one, in the --format asked:
// text one after another, CSV under one header, JSON in one array. With `column`, CSV and JSON rows start with
// it (the value each row answers for), and text answers with a "# --option VALUE" line; answers with different
// columns share one CSV header, the union of theirs. The exit status is 3
// when any answer misses its target; a usage error in any value is the command's, with nothing on stdout.
#ifndef PROVPOL_CLI_PER_VALUE_HPP
#define PROVPOL_CLI_PER_VALUE_HPP

#include "common/cli.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace provpol::cli {

namespace per_value_detail {

// Standard output sent to a temporary file until destroyed (also on a usage error), then read back.
class captured_stdout {
public:
    captured_stdout() {
        std::fflush(stdout);
        file_ = std::tmpfile();
        saved_ = ::dup(1);
        if (file_ == nullptr || saved_ < 0 || ::dup2(fileno(file_), 1) < 0)
            throw runtime_failure(std::string("cannot capture an answer: ") + std::strerror(errno));
    }
    captured_stdout(const captured_stdout&) = delete;
    captured_stdout& operator=(const captured_stdout&) = delete;
    ~captured_stdout() {
        restore();
        if (file_ != nullptr) std::fclose(file_);
    }
    std::string text() {
        restore();
        std::string out;
        std::rewind(file_);
        char buf[65536];
        for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, file_)) > 0;) out.append(buf, n);
        return out;
    }

private:
    void restore() {
        if (saved_ < 0) return;
        std::fflush(stdout);
        ::dup2(saved_, 1);
        ::close(saved_);
        saved_ = -1;
    }
    std::FILE* file_ = nullptr;
    int saved_ = -1;
};

inline std::vector<std::string> lines_of(const std::string& s) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < s.size()) {
        const std::size_t nl = s.find('\n', start);
        out.push_back(s.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
        if (nl == std::string::npos) break;
        start = nl + 1;
    }
    return out;
}

// The cells of one CSV line as written (a quoted cell keeps its quotes, so that it is copied out unchanged).
inline std::vector<std::string> csv_cells(const std::string& line) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (char c : line) {
        if (c == '"') quoted = !quoted;
        if (c == ',' && !quoted)
            out.emplace_back();
        else
            out.back() += c;
    }
    return out;
}

inline std::string csv_field(const std::string& v) {
    if (v.find_first_of(",\"\n\r") == std::string::npos) return v;
    std::string q = "\"";
    for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

inline std::string json_string(const std::string& v) {
    std::string q = "\"";
    for (char c : v) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            q += '\\';
            q += c;
        } else if (u < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", u);
            q += buf;
        } else {
            q += c;
        }
    }
    return q + "\"";
}

}  // namespace per_value_detail

/// The format an argv asks for ("text" when none).
inline std::string format_in(int argc, char** argv) {
    std::string f = "text";
    for (int i = 0; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--format" && i + 1 < argc) f = argv[i + 1];
        if (a.rfind("--format=", 0) == 0) f = a.substr(9);
    }
    return f;
}

namespace per_value_detail {

/// argv without `names`' occurrences (the option and its value, or --name=value); refused when what is left reads
/// stdin ("-" or --opt=-), which the runs cannot each read.
inline std::vector<std::string> argv_without(int argc, char** argv, const std::vector<std::string>& names) {
    std::vector<std::string> kept;
    for (int i = 0; i < argc; ++i) {
        const std::string a = argv[i];
        bool drop = false;
        for (const std::string& n : names) {
            if (a == n && i + 1 < argc) {
                drop = true;
                ++i;
            } else if (a.rfind(n + "=", 0) == 0) {
                drop = true;
            }
        }
        if (!drop) kept.push_back(a);
    }
    for (std::size_t i = 0; i < kept.size(); ++i)
        if (kept[i] == "-" ||
            (kept[i].rfind("--", 0) == 0 && kept[i].size() > 2 && kept[i].substr(kept[i].size() - 2) == "=-"))
            throw usage_error(names[0] + ": a list answers once per value and stdin can be read once: give " +
                              (kept[i] != "-" ? kept[i].substr(0, kept[i].size() - 2)
                               : i > 0        ? kept[i - 1]
                                              : std::string("its option")) +
                              " a file instead of -");
    return kept;
}

/// The answers' CSV joined under one header: the columns of every answer in the order they first appear.
inline std::string join_csv(const std::vector<std::string>& answers, const std::vector<std::string>& values,
                            const char* column) {
    std::string out;
    // One header: the columns of every answer in the order they first appear (answers of different kinds,
    // such as recommend's static and rate-aware policies, have different columns; a cell an answer lacks is
    // empty). `column` comes first, unless an answer has a column of that name: then its own value stays.
    std::vector<std::string> header;
    if (column) header.push_back(column);
    std::vector<std::vector<std::string>> heads;
    for (const std::string& answer : answers) {
        const auto lines = lines_of(answer);
        heads.push_back(lines.empty() ? std::vector<std::string>{} : csv_cells(lines[0]));
        for (const std::string& name : heads.back())
            if (std::find(header.begin(), header.end(), name) == header.end()) header.push_back(name);
    }
    for (std::size_t c = 0; c < header.size(); ++c) out += (c == 0 ? "" : ",") + header[c];
    out += "\n";
    for (std::size_t k = 0; k < answers.size(); ++k) {
        const auto lines = lines_of(answers[k]);
        for (std::size_t i = 1; i < lines.size(); ++i) {
            const std::vector<std::string> cells = csv_cells(lines[i]);
            std::vector<std::string> row(header.size());
            if (column) row[0] = csv_field(values[k]);
            for (std::size_t j = 0; j < cells.size() && j < heads[k].size(); ++j)
                row[static_cast<std::size_t>(std::find(header.begin(), header.end(), heads[k][j]) - header.begin())] =
                    cells[j];
            for (std::size_t c = 0; c < row.size(); ++c) out += (c == 0 ? "" : ",") + row[c];
            out += "\n";
        }
    }
    return out;
}

/// The answers' JSON rows joined in one array, each with `column` when it lacks it.
inline std::string join_json(const std::vector<std::string>& answers, const std::vector<std::string>& values,
                             const char* column) {
    std::string out;
    std::string rows;
    for (std::size_t k = 0; k < answers.size(); ++k)
        for (std::string line : lines_of(answers[k])) {
            const std::size_t brace = line.find('{');
            if (brace == std::string::npos) continue;  // "[" and "]"
            if (!line.empty() && line.back() == ',') line.pop_back();
            if (column && line.find(json_string(column) + ": ") == std::string::npos)
                line.insert(brace + 1, json_string(column) + ": " + json_string(values[k]) + ", ");
            rows += (rows.empty() ? "" : ",\n") + line;
        }
    out = "[\n" + rows + (rows.empty() ? "" : "\n") + "]\n";
    return out;
}

/// The answers' text one after the other, each under a "# NAME VALUE" line when `column` is given.
inline std::string join_text(const std::vector<std::string>& answers, const std::vector<std::string>& values,
                             const char* column, const std::string& name) {
    std::string out;
    for (std::size_t k = 0; k < answers.size(); ++k) {
        if (k != 0) out += "\n";
        if (column) out += "# " + name + " " + values[k] + "\n";
        out += answers[k];
    }
    return out;
}

}  // namespace per_value_detail

/// What a command makes of its text answers for a list, before they are printed: the joined text by default
/// (join_text); recommend's keeps one [irs] section active and may write a file per answer.
using text_joiner = std::function<std::string(const std::vector<std::string>& answers,
                                              const std::vector<std::string>& values, const std::string& joined)>;

/// Runs `run` once per value (argv without `names`' occurrences, plus `names[0] value`) and joins the answers.
template <class Run>
int run_per_value(int argc, char** argv, const std::vector<std::string>& names, const std::vector<std::string>& values,
                  const char* column, Run run, const text_joiner& text_join = {}) {
    using namespace per_value_detail;
    const std::string f = format_in(argc, argv);
    if (f == "svg") throw usage_error(names[0] + ": --format svg plots one value; give one");
    const std::vector<std::string> kept = argv_without(argc, argv, names);
    std::vector<std::string> answers;
    int status = 0;
    for (const std::string& v : values) {
        std::vector<std::string> one = kept;
        one.push_back(names[0]);
        one.push_back(v);
        std::vector<char*> av;
        for (std::string& s : one) av.push_back(s.data());
        av.push_back(nullptr);
        captured_stdout cap;
        const int s = run(static_cast<int>(one.size()), av.data());
        if (s == exit_target_not_met) status = s;
        answers.push_back(cap.text());
    }
    std::string out = f == "csv"    ? join_csv(answers, values, column)
                      : f == "json" ? join_json(answers, values, column)
                                    : join_text(answers, values, column, names[0]);
    if (f != "csv" && f != "json" && text_join) out = text_join(answers, values, out);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return status;
}

/// The values of `names` (an option and its aliases) in argv, split at commas (`spec_split` for latency specs),
/// without parsing anything else: a command decides from them whether to answer per value.
template <class Split>
std::vector<std::string> values_in(int argc, char** argv, const std::vector<std::string>& names, Split split) {
    std::vector<std::string> out;
    for (int i = 0; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--help" || a == "-h") return {};
        for (const std::string& n : names) {
            std::string v;
            if (a == n && i + 1 < argc)
                v = argv[++i];  // the value is consumed, as run_per_value drops it: "--rate --rates=0" is one value
            else if (a.rfind(n + "=", 0) == 0)
                v = a.substr(n.size() + 1);
            else
                continue;
            for (std::string& s : split(v)) out.push_back(std::move(s));
            break;
        }
    }
    return out;
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_PER_VALUE_HPP
