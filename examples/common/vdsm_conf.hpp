// VDSM's configuration as vdsmd reads it: lib/vdsm/common/config.py.in's load() makes one configparser.ConfigParser()
// with its defaults (strict, BasicInterpolation, '=' and ':' delimiters, '#' and ';' comment lines, no inline
// comments, empty lines kept in values, [DEFAULT], optionxform str.lower), sets the schema's defaults
// (set_defaults(): every section and key of vdsm_schema.hpp), then cfg.read()s vdsm.conf and the drop-ins in order.
// This is that parser, line for line with CPython 3.11's RawConfigParser._read and BasicInterpolation:
//   - the file is UTF-8 (the locale's encoding on an oVirt host), read through universal newlines ('\n', "\r\n" and
//     '\r' end a line); text the decoder refuses raises UnicodeDecodeError when TextIOWrapper decodes the 8192-byte
//     chunk that holds it, so the lines before that chunk are parsed first (and may raise first);
//   - a line is a comment when its stripped text starts with '#' or ';'; blank lines go into the value being
//     continued; a line indented deeper than the option line continues its value (checked before a section header
//     is looked for); "[name]" up to the line's last ']' is a section header; "key = value" splits at the first
//     '=' or ':'; indentation and stripping are by code point and str.isspace();
//   - refusals: a setting before any section (MissingSectionHeaderError), a section or a key twice in one file
//     (DuplicateSectionError, DuplicateOptionError: [DEFAULT] itself may repeat), raised at once; lines that are no
//     setting (ParsingError) and an empty key, raised at the end of the file;
//   - a value is its lines joined by '\n' and right-stripped; get() interpolates %(name)s from the section, then
//     [DEFAULT], and "%%", ten levels deep at most, as BasicInterpolation.before_get does.
// One deliberate difference: a NUL byte refuses the file (Python would read it as a character): a vdsm.conf with
// NUL bytes is a binary file, not a configuration anyone wrote.
// Bounded: a file is at most max_file_bytes, every lookup and duplicate check is a hash (linear in the file), and
// memory is the file's text plus 32 bytes a setting.
#ifndef PROVPOL_CLI_VDSM_CONF_HPP
#define PROVPOL_CLI_VDSM_CONF_HPP

#include "cli.hpp"
#include "py_text.hpp"
#include "vdsm_schema.hpp"

#include <provpol/config.hpp>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace provpol::cli {

/// configparser's reading of VDSM's files over VDSM's schema defaults (see the header comment).
class vdsm_conf {
public:
    /// The largest file read (a stock vdsm.conf is under 50 KiB).
    static constexpr std::size_t max_file_bytes = std::size_t{4} << 20;
    /// The file index of a value set_defaults() gave.
    static constexpr std::uint32_t schema_file = 0xFFFFFFFFu;

    /// A value as configparser holds it, and where it was set.
    struct value {
        std::string_view raw;  ///< the raw (not interpolated) value, UTF-8
        std::uint32_t file = schema_file;
        std::uint32_t line = 0;
    };
    /// A setting provpol may warn about: a key or section VDSM does not have, or a key in another section.
    struct odd_setting {
        std::uint32_t file, line;
        std::string section, key;
        bool known_section;  ///< false: the section is not VDSM's (key is its first)
    };

    /// set_defaults(): VDSM's schema, or nothing (`with_schema` false: a bare ConfigParser).
    explicit vdsm_conf(bool with_schema = true) {
        sections_.reserve(64);
        section_id("DEFAULT");  // id 0: configparser's defaults, never a section of its own
        if (!with_schema) return;
        for (const char* s : vdsm_schema_sections) {
            section_rec& r = sections_[section_id(s)];
            r.file = schema_file;
            r.schema = true;
        }
        for (const vdsm_schema_key& k : vdsm_schema) put(section_id(k.section), k.key, k.value, schema_file, 0);
    }

    /// cfg.read() of one file's bytes; `name` is how messages name it ("FILE:LINE: ..."). Throws usage_error, with
    /// `option` first, for what configparser refuses (see the header comment).
    void read(std::string_view text, const std::string& name, const std::string& option) {
        const auto file = static_cast<std::uint32_t>(names_.size());
        names_.push_back(name);
        file_parse p(*this, text, file, option + ": " + name + ":");
        p.run();
    }

    /// The files read, in order (value::file indexes them).
    const std::vector<std::string>& files() const { return names_; }

    /// The raw value of `key` (lower case) in `section`, or in [DEFAULT] (configparser's ChainMap), if any.
    std::optional<value> raw(std::string_view section, std::string_view key) const {
        const std::uint32_t s = find_section(section);
        if (s != none)
            if (const std::uint32_t e = find_entry(s, key); e != none) return value_of(e);
        if (const std::uint32_t e = find_entry(0, key); e != none) return value_of(e);
        return std::nullopt;
    }
    /// Whether `section` exists (set_defaults' or a file's).
    bool has_section(std::string_view section) const { return section != "DEFAULT" && find_section(section) != none; }

    /// cfg.get(section, key): the interpolated value, or why BasicInterpolation refuses it (`error`, in
    /// configparser's terms). The expansion is bounded: more than a million steps or 1 MiB of text is refused
    /// (Python would run on for a very long time).
    std::optional<std::string> get(std::string_view section, std::string_view key, std::string& error) const {
        const auto v = raw(section, key);
        if (!v) {
            error = "no option " + std::string(key) + " in [" + std::string(section) + "]";
            return std::nullopt;
        }
        std::string out;
        std::size_t steps = 0;
        if (!interpolate(section, key, v->raw, 1, out, steps, error)) return std::nullopt;
        return out;
    }

    /// One setting as configparser holds it.
    struct setting {
        std::string_view key;
        value v;
    };
    /// The sections configparser has, in its order (set_defaults' first, then the files'), without DEFAULT.
    std::vector<std::string_view> section_names() const {
        std::vector<std::string_view> out;
        for (std::size_t i = 1; i < sections_.size(); ++i)
            out.push_back(text(sections_[i].name_off, sections_[i].name_len));
        return out;
    }
    /// Whether `section` is one of VDSM's schema.
    bool schema_section(std::string_view section) const {
        const std::uint32_t s = find_section(section);
        return s != none && sections_[s].schema;
    }
    /// The settings of `section` ("DEFAULT" for configparser's defaults) in configparser's order (a key keeps the
    /// place it was first set at).
    std::vector<setting> settings_of(std::string_view section) const {
        std::vector<setting> out;
        const std::uint32_t s = find_section(section);
        for (std::uint32_t i = 0; s != none && i < entries_.size(); ++i)
            if (entries_[i].section == s) out.push_back({text(entries_[i].key_off, entries_[i].key_len), value_of(i)});
        return out;
    }

    /// The settings VDSM's schema does not know, in file order: a key a section of VDSM's does not have (another
    /// section's, or none's), and the first key of each section VDSM does not have.
    const std::vector<odd_setting>& odd_settings() const { return odd_; }
    /// How many there were (odd_settings keeps the first 1000).
    std::size_t odd_count() const { return odd_total_; }

private:
    static constexpr std::uint32_t none = 0xFFFFFFFFu;
    struct section_rec {
        std::uint32_t name_off, name_len;
        std::uint32_t file = none;  // the file that declared it last (a second header in that file is refused)
        bool schema = false;        // one of VDSM's
        bool noted = false;         // not VDSM's, and odd_settings has it
    };
    struct entry {
        std::uint32_t section, key_off, key_len, val_off, val_len, file, line, next;
    };

    // ---- storage: one arena of text, open hashing into vectors of 32-bit records ----

    PROVPOL_MODULAR_ARITHMETIC static std::uint64_t hash(std::uint64_t h, std::string_view s) {
        for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;  // FNV-1a
        return h;
    }
    std::string_view text(std::uint32_t off, std::uint32_t len) const {
        return std::string_view(arena_).substr(off, len);
    }
    std::uint32_t store(std::string_view s) {
        const auto off = static_cast<std::uint32_t>(arena_.size());
        arena_.append(s.data(), s.size());
        return off;
    }
    std::uint32_t find_section(std::string_view name) const {
        if (section_buckets_.empty()) return none;
        const std::size_t mask = section_buckets_.size() - 1;
        for (std::size_t b = hash(0xcbf29ce484222325ull, name) & mask;; b = (b + 1) & mask) {
            const std::uint32_t id = section_buckets_[b];
            if (id == none) return none;
            if (text(sections_[id].name_off, sections_[id].name_len) == name) return id;
        }
    }
    std::uint32_t section_id(std::string_view name) {
        if (const std::uint32_t id = find_section(name); id != none) return id;
        const auto id = static_cast<std::uint32_t>(sections_.size());
        sections_.push_back({store(name), static_cast<std::uint32_t>(name.size())});
        if (section_buckets_.size() < 2 * sections_.size())
            rehash(section_buckets_, 4 * sections_.size(), true);
        else
            insert_bucket(section_buckets_, id, true);
        return id;
    }
    PROVPOL_MODULAR_ARITHMETIC std::uint64_t entry_hash(std::uint32_t section, std::string_view key) const {
        return hash(0xcbf29ce484222325ull ^ (std::uint64_t{section} * 0x9E3779B97F4A7C15ull), key);
    }
    std::uint32_t find_entry(std::uint32_t section, std::string_view key) const {
        if (entry_buckets_.empty()) return none;
        const std::size_t mask = entry_buckets_.size() - 1;
        for (std::size_t b = entry_hash(section, key) & mask;; b = (b + 1) & mask) {
            const std::uint32_t id = entry_buckets_[b];
            if (id == none) return none;
            const entry& e = entries_[id];
            if (e.section == section && text(e.key_off, e.key_len) == key) return id;
        }
    }
    void insert_bucket(std::vector<std::uint32_t>& buckets, std::uint32_t id, bool is_section) {
        const std::size_t mask = buckets.size() - 1;
        const std::uint64_t h =
            is_section ? hash(0xcbf29ce484222325ull, text(sections_[id].name_off, sections_[id].name_len))
                       : entry_hash(entries_[id].section, text(entries_[id].key_off, entries_[id].key_len));
        std::size_t b = h & mask;
        while (buckets[b] != none) b = (b + 1) & mask;
        buckets[b] = id;
    }
    void rehash(std::vector<std::uint32_t>& buckets, std::size_t at_least, bool is_section) {
        std::size_t n = 16;
        while (n < at_least) n *= 2;
        buckets.assign(n, none);
        const std::size_t count = is_section ? sections_.size() : entries_.size();
        for (std::size_t i = 0; i < count; ++i) insert_bucket(buckets, static_cast<std::uint32_t>(i), is_section);
    }
    // Sets key in section (the latest wins); the entry's index.
    std::uint32_t put(std::uint32_t section, std::string_view key, std::string_view val, std::uint32_t file,
                      std::uint32_t line) {
        std::uint32_t id = find_entry(section, key);
        if (id == none) {
            id = static_cast<std::uint32_t>(entries_.size());
            entries_.push_back({section, store(key), static_cast<std::uint32_t>(key.size()), 0, 0, file, line, none});
            if (entry_buckets_.size() < 2 * entries_.size())
                rehash(entry_buckets_, 4 * entries_.size(), false);
            else
                insert_bucket(entry_buckets_, id, false);
        }
        entry& e = entries_[id];
        e.val_off = store(val);
        e.val_len = static_cast<std::uint32_t>(val.size());
        e.file = file;
        e.line = line;
        return id;
    }
    value value_of(std::uint32_t id) const {
        const entry& e = entries_[id];
        return {text(e.val_off, e.val_len), e.file, e.line};
    }

    // ---- BasicInterpolation.before_get ----

    bool interpolate(std::string_view section, std::string_view key, std::string_view rest, int depth, std::string& out,
                     std::size_t& steps, std::string& error) const {
        if (depth > 10) {
            error = "interpolation of " + std::string(key) +
                    " goes more than 10 references deep "
                    "(InterpolationDepthError)";
            return false;
        }
        while (!rest.empty()) {
            if (++steps > 1000000 || out.size() > (std::size_t{1} << 20)) {
                error = "interpolation of " + std::string(key) + " expands without end (over a million steps or " +
                        "1 MiB)";
                return false;
            }
            const std::size_t p = rest.find('%');
            if (p == std::string_view::npos) {
                out.append(rest.data(), rest.size());
                return true;
            }
            out.append(rest.data(), p);
            rest.remove_prefix(p);
            const char c = rest.size() > 1 ? rest[1] : '\0';
            if (c == '%') {
                out += '%';
                rest.remove_prefix(2);
            } else if (c == '(') {
                const std::size_t close = rest.find(')');
                if (close == std::string_view::npos || close == 2 || close + 1 >= rest.size() ||
                    rest[close + 1] != 's') {
                    error = "bad interpolation variable reference '" + args::printable(std::string(rest)) + "' in " +
                            std::string(key) + " (InterpolationSyntaxError)";
                    return false;
                }
                const std::string var = py::encode(py::lower(py::decode(rest.substr(2, close - 2))));
                rest.remove_prefix(close + 2);
                const auto v = raw(section, var);
                if (!v) {
                    error = std::string(key) + " refers to %(" + args::printable(var) + ")s, which [" +
                            std::string(section) + "] does not have (InterpolationMissingOptionError)";
                    return false;
                }
                if (v->raw.find('%') != std::string_view::npos) {
                    if (!interpolate(section, key, v->raw, depth + 1, out, steps, error)) return false;
                } else {
                    out.append(v->raw.data(), v->raw.size());
                }
            } else {
                error = "'%' must be followed by '%' or '(' in " + std::string(key) + ", found '" +
                        args::printable(std::string(rest.substr(0, 16))) + "' (InterpolationSyntaxError)";
                return false;
            }
        }
        return true;
    }

    // ---- RawConfigParser._read of one file ----

    struct file_parse {
        file_parse(vdsm_conf& c, std::string_view t, std::uint32_t f, std::string w)
            : conf(c), text(t), file(f), where(std::move(w)) {}
        vdsm_conf& conf;
        std::string_view text;
        std::uint32_t file;
        std::string where;  // "--config: NAME:"

        std::uint32_t cursect = none;  // the section lines go to, none before the first header
        bool have_option = false;      // optname is set (a truthy name)
        std::uint32_t option_section = none;
        std::string option_key;    // optname, lower case
        std::string option_value;  // its lines joined by '\n', not yet right-stripped
        std::uint32_t option_line = 0;
        std::size_t indent_level = 0;
        std::size_t first_bad = 0, bad_lines = 0;  // ParsingError's lines
        std::string first_bad_text;

        [[noreturn]] void refuse(std::size_t line, const std::string& what) const {
            throw usage_error(where + std::to_string(line) + ": " + what);
        }

        void run();
        void line(std::u32string_view l, std::size_t number);
        void commit() {
            if (option_section == none) return;
            const std::u32string v = py::decode(option_value);
            conf.put(option_section, option_key, py::encode(py::rstrip(v)), file, option_line);
            option_section = none;
        }
        void section_header(std::u32string_view value, std::size_t number);
        void option(std::u32string_view value, std::size_t number);
    };

    // A key VDSM's schema does not have in a section it has, or the first key of a section it does not have.
    void note_odd(std::uint32_t file, std::uint32_t line, std::uint32_t section, std::string_view key) {
        if (section == 0) return;  // [DEFAULT]: any name is a variable for interpolation
        section_rec& s = sections_[section];
        if (s.schema ? schema_has(text(s.name_off, s.name_len), key) : s.noted) return;
        s.noted = true;
        ++odd_total_;
        if (odd_.size() < 1000)
            odd_.push_back({file, line, std::string(text(s.name_off, s.name_len)), std::string(key), s.schema});
    }
    static bool schema_has(std::string_view section, std::string_view key) {
        static const std::vector<std::string> sorted = [] {
            std::vector<std::string> v;
            for (const vdsm_schema_key& k : vdsm_schema) v.push_back(std::string(k.section) + '\n' + k.key);
            std::sort(v.begin(), v.end());
            return v;
        }();
        std::string k(section);
        k += '\n';
        k.append(key.data(), key.size());
        return std::binary_search(sorted.begin(), sorted.end(), k);
    }

    std::string arena_;
    std::vector<section_rec> sections_;
    std::vector<std::uint32_t> section_buckets_;
    std::vector<entry> entries_;
    std::vector<std::uint32_t> entry_buckets_;
    std::vector<std::string> names_;
    std::vector<odd_setting> odd_;
    std::size_t odd_total_ = 0;
};

/// cfg.getint(section, key): Python's int() of the interpolated value; nothing, with `error` saying why
/// ("... (ValueError)" or an interpolation error), when VDSM's call would raise.
inline std::optional<py::py_int> conf_getint(const vdsm_conf& c, std::string_view section, std::string_view key,
                                             std::string& error) {
    const auto v = c.get(section, key, error);
    if (!v) return std::nullopt;
    auto r = py::to_int(py::decode(*v));
    if (!r) error = "'" + args::printable(*v) + "' is not a whole number (int() raises ValueError)";
    return r;
}
/// cfg.getfloat(section, key), as conf_getint.
inline std::optional<double> conf_getfloat(const vdsm_conf& c, std::string_view section, std::string_view key,
                                           std::string& error) {
    const auto v = c.get(section, key, error);
    if (!v) return std::nullopt;
    auto r = py::to_float(py::decode(*v));
    if (!r) error = "'" + args::printable(*v) + "' is not a number (float() raises ValueError)";
    return r;
}
/// cfg.getboolean(section, key), as conf_getint.
inline std::optional<bool> conf_getboolean(const vdsm_conf& c, std::string_view section, std::string_view key,
                                           std::string& error) {
    const auto v = c.get(section, key, error);
    if (!v) return std::nullopt;
    auto r = py::to_bool(py::decode(*v));
    if (!r)
        error = "'" + args::printable(*v) +
                "' is not a boolean (configparser reads 1, yes, true, on, 0, no, false, off: ValueError)";
    return r;
}

namespace vdsm_conf_detail {

// Where line `number` (from 1) of `text` starts, ends (before its terminator) and where the decoder must have reached
// for readline() to return it (see read_offsets).
struct line_span {
    std::size_t begin, end, needs;
};

// The line starting at `begin`: universal newlines ('\n', "\r\n", '\r'); `needs` is the last byte the decoder must
// have decoded to know the line ended (the '\n' of "\r\n", the character after a lone '\r'), text.size() at the end.
inline line_span next_line(std::string_view text, std::size_t begin) {
    std::size_t i = begin;
    while (i < text.size() && text[i] != '\n' && text[i] != '\r') ++i;
    if (i == text.size()) return {begin, i, text.size()};
    if (text[i] == '\n') return {begin, i, i};
    if (i + 1 == text.size()) return {begin, i, text.size()};
    if (text[i + 1] == '\n') return {begin, i, i + 1};
    char32_t cp;
    std::size_t need = 1;
    py::utf8_at(text, i + 1, cp, &need);
    return {begin, i, std::min(text.size(), i + std::max<std::size_t>(need, 1))};
}

// Where the line after the one starting at `begin` starts (text.size() after the last).
inline std::size_t after(std::string_view text, std::size_t begin) {
    const std::size_t end = next_line(text, begin).end;
    if (end == text.size()) return end;
    return end + (text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n' ? 2 : 1);
}

// The line (from 1) that holds byte `at`.
inline std::size_t line_of(std::string_view text, std::size_t at) {
    std::size_t line = 1;
    for (std::size_t b = 0; b < text.size(); b = after(text, b), ++line)
        if (after(text, b) > at) return line;
    return line;
}

}  // namespace vdsm_conf_detail

inline void vdsm_conf::file_parse::run() {
    namespace d = vdsm_conf_detail;
    if (text.size() > max_file_bytes)
        throw usage_error(where.substr(0, where.size() - 1) + " is larger than " +
                          std::to_string(max_file_bytes >> 20) + " MiB: not a vdsm.conf");
    if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos)
        refuse(d::line_of(text, nul), "a NUL byte: a binary file, not a vdsm.conf");
    // TextIOWrapper decodes 8192-byte chunks as readline() needs them: a line is parsed only if every byte it
    // needs lies in a chunk before the one where the decoder finds the first error (a sequence cut by the end of
    // the file is found by the decode at EOF, one past the last chunk).
    const py::utf8_error bad = py::first_utf8_error(text);
    const std::size_t chunk = 8192, eof_chunk = (text.size() + chunk - 1) / chunk;
    const auto chunk_of = [&](std::size_t at) { return at >= text.size() ? eof_chunk : at / chunk; };
    const std::size_t bad_chunk = bad.at == std::string_view::npos ? ~std::size_t{0} : chunk_of(bad.known_at);
    std::size_t number = 0;
    for (std::size_t b = 0; b < text.size(); b = d::after(text, b)) {
        const d::line_span s = d::next_line(text, b);
        ++number;
        if (chunk_of(s.needs) >= bad_chunk)
            refuse(d::line_of(text, bad.at), "not UTF-8 text (UnicodeDecodeError at byte " + std::to_string(bad.at) +
                                                 "): vdsmd cannot read the file");
        line(py::decode(text.substr(s.begin, s.end - s.begin)), number);
    }
    commit();
    if (bad_lines > 0)
        refuse(first_bad, "'" + args::printable(first_bad_text) + "' is no 'key = value' setting (ParsingError" +
                              (bad_lines > 1 ? ", and " + std::to_string(bad_lines - 1) + " more lines" : "") +
                              "): vdsmd does not start");
}

inline void vdsm_conf::file_parse::line(std::u32string_view l, std::size_t number) {
    const std::u32string_view stripped = py::strip(l);
    const bool comment = !stripped.empty() && (stripped[0] == '#' || stripped[0] == ';');
    if (comment || stripped.empty()) {
        if (!comment && cursect != none && have_option) option_value += '\n';  // an empty line of the value
        return;
    }
    std::size_t indent = 0;
    while (indent < l.size() && py::isspace(l[indent])) ++indent;
    if (cursect != none && have_option && indent > indent_level) {  // a continuation line
        option_value += '\n';
        option_value += py::encode(stripped);
        return;
    }
    indent_level = indent;
    if (stripped[0] == '[') {
        const std::size_t close = stripped.rfind(U']');
        if (close != std::u32string_view::npos && close >= 2)
            return section_header(stripped.substr(1, close - 1), number);
    }
    if (cursect == none)
        refuse(number, "'" + args::printable(py::encode(l)) +
                           "' before any [section] (MissingSectionHeaderError): vdsmd does not start");
    option(stripped, number);
}

inline void vdsm_conf::file_parse::section_header(std::u32string_view header, std::size_t number) {
    commit();
    const std::string name = py::encode(header);
    const std::uint32_t existing = conf.find_section(name);
    if (name == "DEFAULT") {
        cursect = 0;
    } else if (existing != none) {
        if (conf.sections_[existing].file == file)
            refuse(number, "[" + args::printable(name) +
                               "] again in the same file (DuplicateSectionError): vdsmd does not start");
        conf.sections_[existing].file = file;
        cursect = existing;
    } else {
        cursect = conf.section_id(name);
        conf.sections_[cursect].file = file;
    }
    have_option = false;
}

inline void vdsm_conf::file_parse::option(std::u32string_view value, std::size_t number) {
    const std::size_t d = value.find_first_of(U"=:");
    if (d == std::u32string_view::npos) {  // no delimiter: ParsingError at the end; optname is left as it was
        if (bad_lines++ == 0) {
            first_bad = number;
            first_bad_text = py::encode(value);
        }
        return;
    }
    commit();
    const std::u32string_view name = py::rstrip(value.substr(0, d));
    if (name.empty() && bad_lines++ == 0) {  // ParsingError at the end, yet the empty key is set
        first_bad = number;
        first_bad_text = py::encode(value);
    }
    const std::string key = py::encode(py::lower(name));
    const std::uint32_t existing = conf.find_entry(cursect, key);
    if (existing != none && conf.entries_[existing].file == file)
        refuse(number, (key.empty() ? std::string("an empty key") : args::printable(key)) + " again in [" +
                           args::printable(std::string(
                               conf.text(conf.sections_[cursect].name_off, conf.sections_[cursect].name_len))) +
                           "] in the same file (DuplicateOptionError): vdsmd does not start");
    // Taken now, so that a second setting of the key in this file is seen; the value is stored at commit().
    conf.put(cursect, key, "", file, static_cast<std::uint32_t>(number));
    conf.note_odd(file, static_cast<std::uint32_t>(number), cursect, key);
    have_option = !key.empty();
    option_section = cursect;
    option_key = key;
    option_value = py::encode(py::strip(value.substr(d + 1)));
    option_line = static_cast<std::uint32_t>(number);
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_VDSM_CONF_HPP
