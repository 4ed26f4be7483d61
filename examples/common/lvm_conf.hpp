// --config FILE for the LVM presets: lvm.conf, lvmlocal.conf, a profile, or what `lvmconfig` prints, read with
// lvm2's own grammar and looked up as lvm2 looks settings up. The grammar is that of libdm's config parser
// (libdm/libdm-config.c: _get_token, _eat_space, _section, _value, _type, _find_or_make_node; the same in lvm2
// 2.03.16 and 2.03.31), checked against the real `lvmconfig --type current` on a generated corpus
// (tests/data/lvm_conf_corpus/):
//   - whitespace is C's isspace; `#` starts a comment at any token's start, to the end of the line;
//   - a key is a "double-quoted" (with \" and \\ escapes) or 'single-quoted' string, or a run of characters up to
//     whitespace, #, =, { or }; it is a path: `/activation//thin_pool_autoextend_threshold = 80` is the setting
//     activation/thin_pool_autoextend_threshold (slashes split it, empty segments are skipped);
//   - `key { ... }` opens a section (a section given twice is one section); `key = VALUE` sets a value, and a
//     setting given again replaces the earlier value (lvm2 warns "Ignoring duplicate config value", then keeps
//     the later one);
//   - a value is a number, a string or an array [v, v, ...] (a comma is needed after a number or a bare word);
//     a number is a token of digits, sign and one dot, converted with strtoll(base 0) or strtod from the token's
//     start to the end of the text, as lvm2 does: `070` is 56, `08` is 0, `0x10` is 0 followed by the key `x10`
//     (a parse error), a value that does not fit in 64 bits is a parse error; a word that is not a number or a
//     quoted string is a string (`monitoring = yes`).
// Lookups are lvm2's (dm_config_tree_find_int and _find_config_bool, find_config_tree_int): an integer setting is
// read only when its value (an array's first) is an integer, truncated to an int; a string, a float or an empty
// array is ignored (lvm2 warns "has invalid type") and lvm2's built-in default applies. A boolean is an integer
// (non-zero is true) or one of y/yes/on/true and n/no/off/false, in any case. Files layer as lvm2 cascades its
// trees: a later file that has the setting at all wins, key by key. Every value keeps its file and line.
// Bounds: 4 MiB per file, 100000 settings, values and sections in all, sections nested 64 deep; a NUL byte is
// refused (lvm2 stops reading at one: what follows it would be silently dropped).
#ifndef PROVPOL_CLI_LVM_CONF_HPP
#define PROVPOL_CLI_LVM_CONF_HPP

#include "cli.hpp"
#include "input.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace provpol::cli {

/// One value as lvm2's parser keeps it (struct dm_config_value).
struct lvm_conf_value {
    enum class kind { integer, real, string, empty_array } type = kind::integer;
    std::int64_t integer = 0;
    double real = 0.0;  ///< a float, as lvm2 keeps it (dm_config_value's v.f is a float)
    std::string text;   ///< a string's characters (quotes removed, \" and \\ unescaped)
};

/// A node of an lvm.conf tree: a section, a setting, or both (`a { } a = 1` makes one node of both).
struct lvm_conf_node {
    std::string key;
    bool has_value = false;
    std::vector<lvm_conf_value> values;  ///< a setting's value: one, or an array's elements
    std::vector<std::size_t> children;   ///< sections' and settings' nodes, in the order first written
    std::map<std::string, std::size_t> by_key;
    std::size_t line = 0;  ///< the line the setting's value was last given on (or the section opened)
};

/// One file's tree, as lvm2's parser builds it.
struct lvm_conf_tree {
    std::string file;                  ///< as messages name it
    std::vector<lvm_conf_node> nodes;  ///< nodes[0] is the root

    /// The node at `path` as lvm2's _find_config_node finds it ("activation/monitoring"), or nullptr.
    const lvm_conf_node* find(const std::string& path) const {
        std::size_t at = 0, i = 0;
        for (;;) {
            while (i < path.size() && path[i] == '/') ++i;
            std::size_t e = path.find('/', i);
            if (e == std::string::npos) e = path.size();
            const auto& kids = nodes[at].by_key;
            const auto it = kids.find(path.substr(i, e - i));
            if (it == kids.end()) return nullptr;
            if (e == path.size()) return &nodes[it->second];
            at = it->second;
            i = e;
        }
    }

    /// True when the file has settings and no section (lvmconfig's output for one setting's path).
    bool settings_only() const {
        for (const std::size_t c : nodes[0].children)
            if (!nodes[c].has_value) return false;
        return !nodes[0].children.empty();
    }

    /// The tree as `lvmconfig --type current` prints it (libdm's _write_config): tabs, `key=value`, `key {`.
    std::string dump() const {
        std::string out;
        dump_children(0, 0, out);
        return out;
    }

private:
    static void append_value(const lvm_conf_value& v, std::string& out) {
        char buf[512];
        switch (v.type) {
            case lvm_conf_value::kind::integer:
                std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v.integer));
                out += buf;
                return;
            case lvm_conf_value::kind::real:
                if (std::snprintf(buf, sizeof buf, "%f", v.real) >= static_cast<int>(sizeof buf)) {
                    std::vector<char> big(static_cast<std::size_t>(std::snprintf(nullptr, 0, "%f", v.real)) + 1);
                    std::snprintf(big.data(), big.size(), "%f", v.real);
                    out += big.data();
                    return;
                }
                out += buf;
                return;
            case lvm_conf_value::kind::string:
                out += '"';
                for (const char c : v.text) {
                    if (c == '"' || c == '\\') out += '\\';
                    out += c;
                }
                out += '"';
                return;
            case lvm_conf_value::kind::empty_array:
                out += "[]";
                return;
        }
    }
    void dump_children(std::size_t at, std::size_t level, std::string& out) const {
        const std::string indent(level < 32 ? level : 32, '\t');
        for (const std::size_t c : nodes[at].children) {
            const lvm_conf_node& n = nodes[c];
            out += indent;
            if (n.key.find_first_of("#\"!") != std::string::npos) {
                out += '"';
                for (const char ch : n.key) {
                    if (ch == '"' || ch == '\\') out += '\\';
                    out += ch;
                }
                out += '"';
            } else {
                out += n.key;
            }
            if (!n.has_value) {
                out += " {\n";
                dump_children(c, level + 1, out);
                out += indent + "}\n";
                continue;
            }
            out += '=';
            if (n.values.size() > 1) out += '[';
            for (std::size_t i = 0; i < n.values.size(); ++i) {
                if (i != 0) out += ',';
                append_value(n.values[i], out);
            }
            if (n.values.size() > 1) out += ']';
            out += '\n';
        }
    }
};

namespace lvm_conf_detail {

inline constexpr std::size_t max_file_bytes = std::size_t{4} << 20;
inline constexpr std::size_t max_items = 100000;
inline constexpr std::size_t max_depth = 64;

inline bool c_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }
inline bool c_digit(char c) { return c >= '0' && c <= '9'; }

enum class tok {
    eof,
    section_b,
    section_e,
    array_b,
    array_e,
    comma,
    eq,
    integer,
    real,
    string_quoted,
    string_escaped,
    string_bare,
    identifier
};

// libdm's tokenizer over one file's text (NUL-free: the reader refuses NUL bytes).
class parser {
public:
    parser(const std::string& text, std::string where, lvm_conf_tree& tree)
        : s_(text), where_(std::move(where)), tree_(tree) {}

    void run() {
        tree_.nodes.assign(1, lvm_conf_node{});
        next(tok::section_e);
        std::vector<std::size_t> open;  // the sections being read
        std::size_t depth = 0;          // their nesting, path segments included
        std::vector<std::size_t> depth_at{0};
        for (;;) {
            if (t_ == tok::eof) {
                if (!open.empty()) error("a section without its '}'");
                // dm_config_parse fails on a text with no setting at all (an empty tree).
                if (tree_.nodes[0].children.empty()) error("no setting or section at all, only comments or space");
                return;
            }
            if (t_ == tok::section_e && !open.empty()) {
                open.pop_back();
                depth_at.pop_back();
                depth = depth_at.back();
                next(tok::section_e);
                continue;
            }
            std::string key;
            if (t_ == tok::string_escaped || t_ == tok::string_quoted) {
                key = string_token(t_ == tok::string_escaped);
            } else if (t_ == tok::identifier) {
                key = token();
            } else {
                error("unexpected '" + args::printable(token()) + "' where a setting or a section starts");
            }
            if (key.empty()) error("an empty setting or section name");
            const std::size_t line = line_;
            next(t_);
            std::size_t segments = 0;
            const std::size_t node = find_or_make(open.empty() ? 0 : open.back(), key, segments);
            if (t_ == tok::section_b) {
                if (depth + segments > max_depth)
                    error("sections nested more than " + std::to_string(max_depth) + " deep");
                open.push_back(node);
                depth_at.push_back(depth + segments);
                depth = depth_at.back();
                if (!tree_.nodes[node].has_value) tree_.nodes[node].line = line;
                next(tok::section_b);
                continue;
            }
            if (t_ != tok::eq) error("expected '=' or '{' after '" + args::printable(key) + "'");
            next(tok::eq);
            std::vector<lvm_conf_value> values = value();
            lvm_conf_node& n = tree_.nodes[node];
            n.has_value = true;
            n.values = std::move(values);
            n.line = line;
        }
    }

private:
    [[noreturn]] void error(const std::string& why) const {
        throw usage_error(where_ + std::to_string(line_) + ": " + why + " (lvm2 refuses the file too)");
    }
    std::string token() const { return s_.substr(tb_, te_ - tb_); }

    // _dup_string_tok: the token without its first and last character (an unterminated string at the end of the
    // text loses its last character, as in lvm2), unescaped for "double quotes".
    std::string string_token(bool escaped) const {
        if (te_ - tb_ < 2) error("a string without its closing quote");
        std::string raw = s_.substr(tb_ + 1, te_ - tb_ - 2);
        if (!escaped) return raw;
        std::string out;
        for (std::size_t i = 0; i < raw.size(); ++i) {
            if (raw[i] == '\\' && i + 1 < raw.size() && (raw[i + 1] == '"' || raw[i + 1] == '\\')) ++i;
            out += raw[i];
        }
        return out;
    }

    // _find_or_make_node: the node at the path `key` under `parent`, made when missing; `segments` counts the
    // path's levels.
    std::size_t find_or_make(std::size_t parent, const std::string& key, std::size_t& segments) {
        std::size_t i = 0;
        for (;;) {
            while (i < key.size() && key[i] == '/') ++i;
            std::size_t e = key.find('/', i);
            if (e == std::string::npos) e = key.size();
            const std::string seg = key.substr(i, e - i);
            ++segments;
            std::size_t child;
            const auto it = tree_.nodes[parent].by_key.find(seg);
            if (it != tree_.nodes[parent].by_key.end()) {
                child = it->second;
            } else {
                count_item();
                child = tree_.nodes.size();
                lvm_conf_node n;
                n.key = seg;
                n.line = line_;
                tree_.nodes.push_back(std::move(n));
                tree_.nodes[parent].children.push_back(child);
                tree_.nodes[parent].by_key.emplace(seg, child);
            }
            if (e == key.size()) return child;
            if (segments > max_depth) error("a setting's path more than " + std::to_string(max_depth) + " deep");
            parent = child;
            i = e;
        }
    }

    void count_item() {
        if (++items_ > max_items) error("more than " + std::to_string(max_items) + " settings, values and sections");
    }

    // _value: an array or one value.
    std::vector<lvm_conf_value> value() {
        std::vector<lvm_conf_value> out;
        if (t_ != tok::array_b) {
            out.push_back(one());
            return out;
        }
        next(tok::array_b);
        while (t_ != tok::array_e) {
            out.push_back(one());
            if (t_ == tok::comma) next(tok::comma);
        }
        next(tok::array_e);
        if (out.empty()) {
            count_item();
            out.push_back({lvm_conf_value::kind::empty_array, 0, 0.0, {}});
        }
        return out;
    }

    // _type: one value, converted as lvm2 converts it (strtoll/strtod read on from the token's start).
    lvm_conf_value one() {
        count_item();
        lvm_conf_value v;
        const tok t = t_;
        switch (t) {
            case tok::integer: {
                errno = 0;
                v.type = lvm_conf_value::kind::integer;
                v.integer = std::strtoll(s_.c_str() + tb_, nullptr, 0);
                if (errno != 0) error("'" + args::printable(token()) + "...' does not fit in a 64-bit integer");
                break;
            }
            case tok::real: {
                errno = 0;
                v.type = lvm_conf_value::kind::real;
                v.real = static_cast<double>(static_cast<float>(std::strtod(s_.c_str() + tb_, nullptr)));
                if (errno != 0) error("'" + args::printable(token()) + "' is out of a double's range");
                break;
            }
            case tok::string_quoted:
            case tok::string_escaped:
                v.type = lvm_conf_value::kind::string;
                v.text = string_token(t == tok::string_escaped);
                break;
            case tok::string_bare:
                v.type = lvm_conf_value::kind::string;
                v.text = token();
                break;
            default:
                error(t == tok::eof ? std::string("a setting without its value")
                                    : "expected a value, got '" + args::printable(token()) + "'");
        }
        next(t);
        return v;
    }

    // _eat_space then _get_token: the next token after one of kind `prev` (a value may follow =, [ and ,).
    void next(tok prev) {
        const bool values_allowed = prev == tok::eq || prev == tok::array_b || prev == tok::comma;
        std::size_t p = te_;
        const std::size_t n = s_.size();
        for (;;) {
            if (p < n && s_[p] == '#')
                while (p < n && s_[p] != '\n') ++p;
            else if (p >= n || !c_space(s_[p]))
                break;
            while (p < n && c_space(s_[p])) ++p;
        }
        for (; counted_ < p; ++counted_)  // the line of the token
            if (s_[counted_] == '\n') ++line_;
        tb_ = p;
        if (p >= n) {
            t_ = tok::eof;
            te_ = p;
            return;
        }
        const char c = s_[p];
        std::size_t e = p + 1;
        switch (c) {
            case '{':
                t_ = tok::section_b;
                break;
            case '}':
                t_ = tok::section_e;
                break;
            case '[':
                t_ = tok::array_b;
                break;
            case ']':
                t_ = tok::array_e;
                break;
            case ',':
                t_ = tok::comma;
                break;
            case '=':
                t_ = tok::eq;
                break;
            case '"':
                t_ = tok::string_escaped;
                while (e < n && s_[e] != '"') e += (s_[e] == '\\' && e + 1 < n) ? std::size_t{2} : std::size_t{1};
                if (e < n) ++e;
                break;
            case '\'':
                t_ = tok::string_quoted;
                while (e < n && s_[e] != '\'') ++e;
                if (e < n) ++e;
                break;
            default:
                if (values_allowed && (c == '.' || c == '+' || c == '-' || c_digit(c))) {
                    t_ = c == '.' ? tok::real : tok::integer;
                    for (; e < n; ++e) {
                        if (c_digit(s_[e])) continue;
                        if (s_[e] == '.' && t_ != tok::real) {
                            t_ = tok::real;
                            continue;
                        }
                        break;
                    }
                    break;
                }
                t_ = values_allowed ? tok::string_bare : tok::identifier;
                while (e < n && !c_space(s_[e]) && s_[e] != '#' && s_[e] != '=' && s_[e] != '{' && s_[e] != '}') ++e;
        }
        te_ = e;
    }

    const std::string& s_;
    std::string where_;
    lvm_conf_tree& tree_;
    tok t_ = tok::eof;
    std::size_t tb_ = 0, te_ = 0;
    std::size_t line_ = 1, counted_ = 0;
    std::size_t items_ = 0;
};

}  // namespace lvm_conf_detail

/// A setting's integer as lvm2 reads it (find_config_tree_int): set (an integer, truncated to an int as lvm2's
/// dm_config_find_int does), or not, and why not.
struct lvm_conf_int {
    const lvm_conf_node* node = nullptr;  ///< the node lvm2 finds, or nullptr when no file has the setting
    const lvm_conf_tree* tree = nullptr;
    std::optional<std::int64_t> value;  ///< what lvm2 uses, when the node's value is an integer
    std::string ignored;                ///< why lvm2 ignores the node ("a string"), when it does
};

/// The settings of one or more lvm.conf files, in the order lvm2 layers them (the last file first).
struct lvm_conf {
    std::vector<lvm_conf_tree> files;

    /// Read a file of settings only, no section (what `lvmconfig activation/KEY` prints:
    /// `thin_pool_autoextend_threshold=70`), as that section's settings. lvm2 itself would not (it warns that a
    /// top-level setting is unknown and ignores it): off for lvm2's own lookups, on for --config, where such a file
    /// can only be lvmconfig's output (no lvm2 section but activation has the autoextend keys and monitoring), and
    /// source() says so. A file with a section, or a path (`activation/KEY=70`), is read as lvm2 reads it.
    bool lvmconfig_bare_keys = false;

    /// The node lvm2 finds at `path` (the last file that has it), and its tree.
    std::pair<const lvm_conf_node*, const lvm_conf_tree*> find(const std::string& path) const {
        const std::string last = path.substr(path.rfind('/') + 1);
        for (auto it = files.rbegin(); it != files.rend(); ++it) {
            if (const lvm_conf_node* n = it->find(path)) return {n, &*it};
            if (lvmconfig_bare_keys && it->settings_only())
                if (const lvm_conf_node* n = it->find(last)) return {n, &*it};
        }
        return {nullptr, nullptr};
    }

    /// The integer lvm2 reads at `path` (dm_config_tree_find_int).
    lvm_conf_int integer(const std::string& path) const {
        lvm_conf_int r;
        std::tie(r.node, r.tree) = find(path);
        if (r.node == nullptr) return r;
        if (!r.node->has_value) {
            r.ignored = "a section";
            return r;
        }
        const lvm_conf_value& v = r.node->values.front();
        if (v.type == lvm_conf_value::kind::integer) {
            r.value = static_cast<std::int64_t>(static_cast<std::int32_t>(static_cast<std::uint32_t>(v.integer)));
            return r;
        }
        r.ignored = v.type == lvm_conf_value::kind::string ? "a string"
                    : v.type == lvm_conf_value::kind::real ? "a float"
                                                           : "an empty array";
        return r;
    }

    /// The boolean lvm2 reads at `path` (_find_config_bool): an integer (non-zero is true) or y/yes/on/true,
    /// n/no/off/false in any case; nullopt when lvm2 takes its default (no setting, or another value).
    lvm_conf_int boolean(const std::string& path) const {
        lvm_conf_int r;
        std::tie(r.node, r.tree) = find(path);
        if (r.node == nullptr) return r;
        if (!r.node->has_value) {
            r.ignored = "a section";
            return r;
        }
        const lvm_conf_value& v = r.node->values.front();
        if (v.type == lvm_conf_value::kind::integer) {
            r.value = v.integer != 0 ? 1 : 0;
            return r;
        }
        if (v.type == lvm_conf_value::kind::string) {
            std::string l;
            for (const char c : v.text) l += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
            for (const char* t : {"y", "yes", "on", "true"})
                if (l == t) r.value = 1;
            for (const char* f : {"n", "no", "off", "false"})
                if (l == f) r.value = 0;
            if (!r.value) r.ignored = "the string \"" + args::printable(v.text) + "\", not a boolean";
            return r;
        }
        r.ignored = v.type == lvm_conf_value::kind::real ? "a float" : "an empty array";
        return r;
    }

    /// "thin_pool_autoextend_threshold = 70 from lvm.conf line 12", for the note on what was read.
    std::string source(const std::string& path) const {
        const auto [n, t] = find(path);
        if (n == nullptr) return "";
        const std::string key = path.substr(path.rfind('/') + 1);
        lvm_conf_tree one;
        one.nodes.resize(2);
        one.nodes[0].children.push_back(1);
        one.nodes[1] = *n;
        one.nodes[1].children.clear();
        one.nodes[1].key = key;
        std::string shown = n->has_value ? one.dump() : key + " { }\n";
        shown.pop_back();
        const std::size_t eq = shown.find('=');
        if (n->has_value && eq != std::string::npos) shown = shown.substr(0, eq) + " = " + shown.substr(eq + 1);
        const bool bare = t->find(path) != n;  // found as a bare key (lvmconfig_bare_keys)
        return shown + " from " + t->file + " line " + std::to_string(n->line) +
               (bare ? " (a file of bare settings, as `lvmconfig " + path +
                           "` prints them, read as that section's; lvm2 itself would ignore a top-level setting)"
                     : std::string());
    }
};

/// Parses one file's text (lvm2's grammar) into `tree`; errors name "`where`LINE: ".
inline void parse_lvm_conf(const std::string& text, const std::string& where, lvm_conf_tree& tree) {
    lvm_conf_detail::parser(text, where, tree).run();
}

/// One file's settings from `in` (lvm2's grammar), for `option` (--config); `file` names it in messages. Usage
/// errors (exit 2) name the file and line: what lvm2 refuses, a NUL byte, a file over 4 MiB, a read error.
inline lvm_conf_tree read_lvm_conf_input(text_input& in, const std::string& file, const std::string& option) {
    std::string text, line;
    try {
        while (in.next(line)) {
            if (text.size() + line.size() > lvm_conf_detail::max_file_bytes)
                throw usage_error(option + ": " + in.shown() +
                                  " is over 4 MiB (an lvm.conf is a few hundred KiB at most)");
            text += line;
            text += '\n';
        }
    } catch (const runtime_failure& e) {
        throw usage_error(e.what());  // a read error is the input's: exit 2, one line
    }
    lvm_conf_tree tree;
    tree.file = file;
    parse_lvm_conf(text, option + ": " + tree.file + ":", tree);
    return tree;
}

/// The rules an lvm.conf is read by (text_input): NUL bytes refused, the whole file one "line" at most 4 MiB.
inline text_input::rules lvm_conf_rules() {
    text_input::rules rules;
    rules.max_line = lvm_conf_detail::max_file_bytes;
    rules.too_long = "over 4 MiB (an lvm.conf is a few hundred KiB at most)";
    rules.nul = "a NUL byte (not a text file)";
    rules.not_a = "an lvm.conf file";
    return rules;
}

/// The settings of `paths` in order (a later file wins), for `option` (--config); "-" is stdin. Usage errors (exit
/// 2) as read_lvm_conf_input's.
inline lvm_conf read_lvm_conf_files(const std::vector<std::string>& paths, const std::string& option) {
    lvm_conf out;
    for (const std::string& path : paths) {
        text_input in(path, option, lvm_conf_rules());
        out.files.push_back(
            read_lvm_conf_input(in, path == "-" ? std::string("stdin") : args::printable(path), option));
    }
    return out;
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_LVM_CONF_HPP
