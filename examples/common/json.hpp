// The one JSON writer of the provpol CLI: every --format json document is written through it, so strings are
// escaped, reals that JSON cannot hold become null, and the layout is the same in every command.
//
// The layout: an object on one line ({"a": 1, "b": "x"}); an array one element per line, indented by two spaces
// ([\n  {...},\n  {...}\n], or [] when empty); a document object (begin_object(layout::lines)) with each member
// after the first on a new line, indented by one space; a newline after the document.
#ifndef PROVPOL_CLI_JSON_HPP
#define PROVPOL_CLI_JSON_HPP

#include <provpol/time.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace provpol::cli {

/// A JSON string literal: quotes, backslashes and control characters escaped; other bytes as they are.
inline std::string json_quote(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (u < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", u);
            out += buf;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

/// A real number as JSON: `digits` significant digits (printf's %g), or null for NaN and infinities.
/// A double in positional notation, never with an exponent (1048576, not 1.04858e+06; 0.00001, not 1e-05): with
/// `significant` == 0 the shortest text that reads back as the same double, else that many significant digits.
/// NaN and infinities read "nan", "inf", "-inf".
inline std::string decimal_text(double v, int significant = 0) {
    if (v != v) return "nan";
    if (v - v != 0.0) return v > 0 ? "inf" : "-inf";
    if (v == 0.0) return "0";
    char buf[400];
    int p = significant > 0 ? (significant > 17 ? 17 : significant) : 17;
    if (significant <= 0)
        for (int q = 1; q <= 17; ++q) {
            std::snprintf(buf, sizeof buf, "%.*g", q, v);
            if (std::strtod(buf, nullptr) == v) {
                p = q;
                break;
            }
        }
    std::snprintf(buf, sizeof buf, "%.*e", p - 1, v);  // d.ddd...e+XX: the exponent after rounding to p digits
    const char* e = std::strchr(buf, 'e');
    const int exponent = e != nullptr ? std::atoi(e + 1) : 0;
    const int decimals = p - 1 - exponent > 0 ? p - 1 - exponent : 0;
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    std::string out = buf;
    if (out.find('.') != std::string::npos) {
        while (out.back() == '0') out.pop_back();
        if (out.back() == '.') out.pop_back();
    }
    return out;
}

/// A time as decimal_text prints its number of seconds (columns and prose say "s").
inline std::string decimal_text(seconds t, int significant = 0) { return decimal_text(t.count(), significant); }

/// A real as JSON: the shortest positional text that reads back as the same double (null where JSON has no
/// number). `digits` is kept for callers that asked for fewer; it no longer shortens machine output.
inline std::string json_real(double v, int /*digits*/ = 0) {
    if (!(v == v) || v - v != 0.0) return "null";
    return decimal_text(v);
}

/// Writes one JSON document into a string, value by value (a million rows stream through it).
class json_writer {
public:
    /// How an object lays out its members.
    enum class layout {
        inline_members,  ///< {"a": 1, "b": 2}
        lines            ///< {"a": 1,\n "b": 2}: a document made of a few large members
    };

    explicit json_writer(std::string& out) : out_(out) {}

    void begin_object(layout l = layout::inline_members) {
        before_value();
        out_ += '{';
        stack_.push_back({l == layout::lines ? frame::lines_object : frame::object, 0});
    }
    void end_object() { close('}', ""); }
    void begin_array() {
        before_value();
        out_ += '[';
        stack_.push_back({frame::array, 0});
    }
    void end_array() { close(']', "\n"); }

    /// The next member's name (in an object).
    void key(std::string_view name) {
        frame& f = stack_.back();
        if (f.count++ != 0) out_ += f.kind == frame::lines_object ? ",\n " : ", ";
        out_ += json_quote(name);
        out_ += ": ";
        after_key_ = true;
    }

    void string(std::string_view s) { token(json_quote(s)); }
    void number(std::uint64_t v) { token(std::to_string(v)); }
    void number(std::int64_t v) { token(std::to_string(v)); }
    void real(double v, int digits) { token(json_real(v, digits)); }
    void boolean(bool v) { token(v ? "true" : "false"); }
    void null() { token("null"); }
    /// A value already written as JSON text (a number formatted by the caller).
    void token(std::string_view json_text) {
        before_value();
        out_ += json_text;
        after_value();
    }

private:
    struct frame {
        enum kind_t { object, lines_object, array } kind;
        std::size_t count;
    };

    void before_value() {
        if (after_key_) {
            after_key_ = false;
            return;
        }
        if (!stack_.empty() && stack_.back().kind == frame::array) out_ += stack_.back().count++ ? ",\n  " : "\n  ";
    }
    void after_value() {
        if (stack_.empty()) out_ += '\n';  // a document ends its line
    }
    void close(char bracket, const char* before_if_any) {
        if (stack_.back().count != 0) out_ += before_if_any;
        out_ += bracket;
        stack_.pop_back();
        after_value();
    }

    std::string& out_;
    std::vector<frame> stack_;
    bool after_key_ = false;
};

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_JSON_HPP
