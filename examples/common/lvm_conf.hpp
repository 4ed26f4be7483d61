// --config FILE for the LVM presets: lvm.conf as lvm2 writes and reads it (lvm.conf(5); lvm2's libdm-config.c
// grammar), and what `lvmconfig` prints, for the autoextend settings of the activation section:
//   thin_pool_autoextend_threshold, thin_pool_autoextend_percent, vdo_pool_autoextend_threshold,
//   vdo_pool_autoextend_percent, snapshot_autoextend_threshold, snapshot_autoextend_percent, monitoring.
// The grammar: sections `name { ... }` (nested, a section may open on the next line), settings `key = value`
// whose value is an integer, a real, a "string" or an [array], # comments to the end of a line. A setting may
// also be written as a path (`activation/thin_pool_autoextend_threshold = 70`), and one of the keys above may
// stand alone (what `lvmconfig activation/KEY` prints: `thin_pool_autoextend_threshold=70`). A section given
// twice merges (lvm2 merges them too); files given in order, a later one wins; every value keeps its file and
// line, so that the command can say where it came from.
#ifndef PROVPOL_CLI_LVM_CONF_HPP
#define PROVPOL_CLI_LVM_CONF_HPP

#include "cli.hpp"
#include "input.hpp"

#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace provpol::cli {

/// One setting as read: its text (a string's without quotes), whether it was a string, and where.
struct lvm_conf_value {
    std::string text;
    bool is_string = false;
    std::string file;  ///< as messages name it
    std::size_t line = 0;
};

/// The settings of one or more lvm.conf files, by path ("activation/thin_pool_autoextend_threshold").
struct lvm_conf {
    std::map<std::string, lvm_conf_value> values;

    /// The setting at `path`, if a file set it.
    const lvm_conf_value* find(const std::string& path) const {
        const auto it = values.find(path);
        return it == values.end() ? nullptr : &it->second;
    }
    /// The integer at `path`, if set; a usage error naming the file and line when it is not an integer in
    /// [lo, hi].
    std::optional<std::int64_t> integer(const std::string& path, std::int64_t lo, std::int64_t hi,
                                        const std::string& option) const {
        const lvm_conf_value* v = find(path);
        if (v == nullptr) return std::nullopt;
        const std::string at = option + ": " + v->file + ":" + std::to_string(v->line) + ": " + path;
        if (v->is_string)
            throw usage_error(at + " is a string, \"" + args::printable(v->text) + "\": lvm2 wants an integer");
        std::size_t i = v->text[0] == '-' ? 1 : 0;
        std::int64_t n = 0;
        if (i == v->text.size()) throw usage_error(at + " = " + args::printable(v->text) + ": not an integer");
        for (; i < v->text.size(); ++i) {
            if (!std::isdigit(static_cast<unsigned char>(v->text[i])))
                throw usage_error(at + " = " + args::printable(v->text) + ": not an integer");
            if (n < 100000000000000LL) n = n * 10 + (v->text[i] - '0');
        }
        if (v->text[0] == '-') n = -n;
        if (n < lo || n > hi)
            throw usage_error(at + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                              args::printable(v->text));
        return n;
    }
    /// "thin_pool_autoextend_threshold = 70 from lvm.conf line 12", for the note on what was read.
    std::string source(const std::string& path) const {
        const lvm_conf_value* v = find(path);
        if (v == nullptr) return "";
        const std::string key = path.substr(path.rfind('/') + 1);
        return key + " = " + (v->is_string ? "\"" + v->text + "\"" : v->text) + " from " + v->file + " line " +
               std::to_string(v->line);
    }
};

namespace lvm_conf_detail {

// The activation keys a file may give without their section (lvmconfig activation/KEY prints them so).
inline bool bare_activation_key(const std::string& k) {
    static const char* const keys[] = {"thin_pool_autoextend_threshold",
                                       "thin_pool_autoextend_percent",
                                       "vdo_pool_autoextend_threshold",
                                       "vdo_pool_autoextend_percent",
                                       "snapshot_autoextend_threshold",
                                       "snapshot_autoextend_percent",
                                       "monitoring"};
    for (const char* s : keys)
        if (k == s) return true;
    return false;
}

struct token {
    enum kind_t { name, number, string, punct, end } kind;
    std::string text;
    std::size_t line;
};

// The tokens of lvm2's config grammar: names ([A-Za-z0-9_./-]+, which also covers numbers, told apart below),
// "strings" with backslash escapes, and { } [ ] = , ; # comments run to the end of the line.
class lexer {
public:
    lexer(const std::vector<std::string>& lines, std::string where) : lines_(lines), where_(std::move(where)) {}

    token next() {
        for (;;) {
            if (row_ >= lines_.size()) return {token::end, "", row_};
            const std::string& l = lines_[row_];
            if (col_ >= l.size() || l[col_] == '#') {
                ++row_;
                col_ = 0;
                continue;
            }
            const char c = l[col_];
            if (std::isspace(static_cast<unsigned char>(c))) {
                ++col_;
                continue;
            }
            const std::size_t line = row_ + 1;
            if (c == '"') return string_token(l, line);
            if (c == '{' || c == '}' || c == '[' || c == ']' || c == '=' || c == ',' || c == ';') {
                ++col_;
                return {token::punct, std::string(1, c), line};
            }
            const std::size_t start = col_;
            while (col_ < l.size() && (std::isalnum(static_cast<unsigned char>(l[col_])) || l[col_] == '_' ||
                                       l[col_] == '.' || l[col_] == '/' || l[col_] == '-' || l[col_] == '+'))
                ++col_;
            if (col_ == start)
                throw usage_error(where_ + std::to_string(line) + ": unexpected '" +
                                  args::printable(std::string(1, c)) + "' (lvm.conf: section { key = value })");
            std::string t = l.substr(start, col_ - start);
            const bool numeric =
                std::isdigit(static_cast<unsigned char>(t[0])) || ((t[0] == '-' || t[0] == '+') && t.size() > 1);
            return {numeric ? token::number : token::name, t, line};
        }
    }
    const std::string& where() const { return where_; }

private:
    token string_token(const std::string& l, std::size_t line) {
        std::string s;
        for (++col_; col_ < l.size(); ++col_) {
            if (l[col_] == '\\' && col_ + 1 < l.size()) {
                s += l[++col_];
                continue;
            }
            if (l[col_] == '"') {
                ++col_;
                return {token::string, s, line};
            }
            s += l[col_];
        }
        throw usage_error(where_ + std::to_string(line) + ": a string without its closing quote");
    }

    const std::vector<std::string>& lines_;
    std::string where_;
    std::size_t row_ = 0, col_ = 0;
};

// Parses settings and sections until '}' (depth > 0) or the end, recording each setting under `prefix`.
inline void parse_block(lexer& lx, const std::string& prefix, int depth, const std::string& file, lvm_conf& out) {
    for (;;) {
        token t = lx.next();
        if (t.kind == token::end) {
            if (depth > 0) throw usage_error(lx.where() + std::to_string(t.line) + ": a section without its '}'");
            return;
        }
        if (t.kind == token::punct && t.text == "}") {
            if (depth == 0) throw usage_error(lx.where() + std::to_string(t.line) + ": '}' without a section");
            return;
        }
        if (t.kind != token::name)
            throw usage_error(lx.where() + std::to_string(t.line) + ": expected a setting or a section, got '" +
                              args::printable(t.text) + "'");
        const token op = lx.next();
        if (op.kind == token::punct && op.text == "{") {
            parse_block(lx, prefix + t.text + "/", depth + 1, file, out);
            continue;
        }
        if (!(op.kind == token::punct && op.text == "="))
            throw usage_error(lx.where() + std::to_string(op.line) + ": expected '=' or '{' after '" +
                              args::printable(t.text) + "'");
        lvm_conf_value v;
        v.file = file;
        v.line = t.line;
        token val = lx.next();
        if (val.kind == token::punct && val.text == "[") {  // an array: kept as text, read by no key here
            std::string joined;
            for (val = lx.next(); !(val.kind == token::punct && val.text == "]"); val = lx.next()) {
                if (val.kind == token::end)
                    throw usage_error(lx.where() + std::to_string(t.line) + ": an array without its ']'");
                if (!(val.kind == token::punct && val.text == ",")) joined += (joined.empty() ? "" : ",") + val.text;
            }
            v.text = joined;
            v.is_string = true;
        } else if (val.kind == token::string || val.kind == token::number || val.kind == token::name) {
            v.text = val.text;
            v.is_string = val.kind == token::string;
        } else {
            throw usage_error(lx.where() + std::to_string(val.line) + ": '" + args::printable(t.text) +
                              "' has no value");
        }
        std::string path = prefix + t.text;
        if (prefix.empty() && t.text.find('/') == std::string::npos && bare_activation_key(t.text))
            path = "activation/" + t.text;
        out.values[path] = v;
    }
}

}  // namespace lvm_conf_detail

/// The settings of `paths` in order (a later file wins), for `option` (--config); "-" is stdin. Usage errors name
/// the file and line.
inline lvm_conf read_lvm_conf_files(const std::vector<std::string>& paths, const std::string& option) {
    lvm_conf out;
    for (const std::string& path : paths) {
        text_input::rules rules;
        rules.too_long = "a line longer than 65536 bytes";
        rules.nul = "a NUL byte (not a text file)";
        rules.not_a = "an lvm.conf file";
        text_input in(path, option, rules);
        std::vector<std::string> lines;
        std::string line;
        while (in.next(line)) {
            if (lines.size() >= 100000) throw usage_error(in.where() + "more than 100000 lines");
            lines.push_back(line);
        }
        const std::string file = path == "-" ? std::string("stdin") : args::printable(path);
        lvm_conf_detail::lexer lx(lines, option + ": " + file + ":");
        lvm_conf_detail::parse_block(lx, "", 0, file, out);
    }
    return out;
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_LVM_CONF_HPP
