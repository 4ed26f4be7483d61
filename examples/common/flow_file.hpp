// A flow the user writes: --latency flow:FILE reads a JSON file of the extend flow's stages, in order, and
// `provpol latency --vdsm-log F --save-flow OUT` writes a fitted flow in the same format:
//
//   {"stages": [
//     {"kind": "monitor", "name": "watermark monitor", "period_s": 2},
//     {"kind": "send", "name": "host mailbox send"},
//     {"kind": "clock", "name": "SPM event block check", "period_s": 0.2, "drift_s": 0.0005},
//     {"kind": "delay", "name": "SPM lvextend", "min_s": 0.15, "max_s": 1.8},
//     {"kind": "reply-poll", "name": "host mailbox reply poll", "period_s": 0.2},
//     {"kind": "delay", "name": "LV refresh", "min_s": 0.16, "max_s": 0.31}
//   ]}
//
// The kinds are flow/clocks.hpp's (flow_stage_kind's names), each with the fields it needs: monitor and
// reply-poll a period_s; clock a period_s and an optional drift_s (default 0); delay min_s and max_s; send an
// optional min_s and max_s (default 0); a delay between the send and the reply poll may say "lock": true, the
// SPM's lvextend under the volume group's lock (flow_stage::locked_delay, how a storage domain serializes it). A flow
// of delays alone is the independent-waits model. A bad file is one usage error naming the stage (its index, from 1,
// and its name) and the field; JSON errors name the line and column. The reader is a small JSON parser of its own: the
// CLI needs no JSON library, and the library headers none at all.
#ifndef PROVPOL_CLI_FLOW_FILE_HPP
#define PROVPOL_CLI_FLOW_FILE_HPP

#include "cli.hpp"
#include "input.hpp"
#include "json.hpp"

#include <provpol/flow/clocks.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace provpol::cli {

namespace flow_json {

struct field;

/// A JSON value, as much of it as a flow file needs.
struct value {
    enum class type { null, boolean, number, string, array, object } kind = type::null;
    double number = 0.0;
    bool boolean = false;
    std::string text;           // string
    std::vector<value> items;   // array
    std::vector<field> fields;  // object, in file order (a struct, not a std::pair: a vector of a pair of an
                                // incomplete type does not compile in C++20 with libstdc++ 12)
};

/// An object's member: its key and its value.
struct field {
    std::string first;
    value second;
};

inline const char* type_name(value::type t) {
    switch (t) {
        case value::type::null:
            return "null";
        case value::type::boolean:
            return "a boolean";
        case value::type::number:
            return "a number";
        case value::type::string:
            return "a string";
        case value::type::array:
            return "an array";
        case value::type::object:
            return "an object";
    }
    return "?";
}

/// A recursive-descent JSON parser (RFC 8259) over a whole file; errors carry the line and column.
class parser {
public:
    parser(const std::string& text, std::string where) : s_(text), where_(std::move(where)) {}

    value document() {
        value v = parse_value(0);
        skip_space();
        if (i_ != s_.size()) fail("unexpected text after the JSON value");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        std::size_t line = 1, column = 1;
        for (std::size_t k = 0; k < i_ && k < s_.size(); ++k) {
            if (s_[k] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        throw usage_error(where_ + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + what);
    }
    void skip_space() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    }
    bool literal(const char* word) {
        const std::size_t n = std::strlen(word);
        if (s_.compare(i_, n, word) != 0) return false;
        i_ += n;
        return true;
    }
    value parse_value(int depth) {
        if (depth > 16) fail("nested too deeply");
        skip_space();
        if (i_ >= s_.size()) fail("expected a JSON value, found the end of the file");
        value v;
        const char c = s_[i_];
        if (c == '{') {
            v.kind = value::type::object;
            ++i_;
            skip_space();
            if (i_ < s_.size() && s_[i_] == '}') {
                ++i_;
                return v;
            }
            // The names so far, to refuse a repeated one: a set, so that an object of n members costs O(n log n)
            // (a scan of the members before each one took 10 s on a 1 MiB file of 85,000 members).
            std::set<std::string> names;
            for (;;) {
                skip_space();
                if (i_ >= s_.size() || s_[i_] != '"') fail("expected a member name in double quotes");
                std::string key = parse_string();
                if (!names.insert(key).second) fail("member '" + args::printable(key) + "' appears twice");
                skip_space();
                if (i_ >= s_.size() || s_[i_] != ':') fail("expected ':' after a member name");
                ++i_;
                value member = parse_value(depth + 1);
                v.fields.push_back(field{std::move(key), std::move(member)});
                skip_space();
                if (i_ < s_.size() && s_[i_] == ',') {
                    ++i_;
                    continue;
                }
                if (i_ < s_.size() && s_[i_] == '}') {
                    ++i_;
                    return v;
                }
                fail("expected ',' or '}' in an object");
            }
        }
        if (c == '[') {
            v.kind = value::type::array;
            ++i_;
            skip_space();
            if (i_ < s_.size() && s_[i_] == ']') {
                ++i_;
                return v;
            }
            for (;;) {
                v.items.push_back(parse_value(depth + 1));
                if (v.items.size() > 1000) fail("an array of more than 1000 values");
                skip_space();
                if (i_ < s_.size() && s_[i_] == ',') {
                    ++i_;
                    continue;
                }
                if (i_ < s_.size() && s_[i_] == ']') {
                    ++i_;
                    return v;
                }
                fail("expected ',' or ']' in an array");
            }
        }
        if (c == '"') {
            v.kind = value::type::string;
            v.text = parse_string();
            return v;
        }
        if (literal("true")) {
            v.kind = value::type::boolean;
            v.boolean = true;
            return v;
        }
        if (literal("false")) {
            v.kind = value::type::boolean;
            return v;
        }
        if (literal("null")) return v;
        if (c == '-' || (c >= '0' && c <= '9')) {
            v.kind = value::type::number;
            v.number = parse_number();
            return v;
        }
        fail("expected a JSON value");
    }
    // JSON's number grammar, checked here; the value read by strtod (the C locale's decimal point).
    double parse_number() {
        const std::size_t start = i_;
        if (s_[i_] == '-') ++i_;
        const auto digits = [this] {
            const std::size_t from = i_;
            while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
            return i_ - from;
        };
        if (i_ < s_.size() && s_[i_] == '0') {
            ++i_;
        } else if (digits() == 0) {
            fail("expected digits in a number");
        }
        if (i_ < s_.size() && s_[i_] == '.') {
            ++i_;
            if (digits() == 0) fail("expected digits after the decimal point");
        }
        if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
            ++i_;
            if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
            if (digits() == 0) fail("expected digits in the exponent");
        }
        const std::string text = s_.substr(start, i_ - start);
        errno = 0;
        const double d = std::strtod(text.c_str(), nullptr);
        if (errno == ERANGE && (d > 1.0 || d < -1.0)) fail("number " + text + " is out of range");
        return d;
    }
    std::string parse_string() {
        ++i_;  // the opening quote
        std::string out;
        for (;;) {
            if (i_ >= s_.size()) fail("unterminated string");
            const char c = s_[i_++];
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) fail("a control character in a string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (i_ >= s_.size()) fail("unterminated string");
            const char e = s_[i_++];
            switch (e) {
                case '"':
                case '\\':
                case '/':
                    out += e;
                    break;
                case 'b':
                    out += '\b';
                    break;
                case 'f':
                    out += '\f';
                    break;
                case 'n':
                    out += '\n';
                    break;
                case 'r':
                    out += '\r';
                    break;
                case 't':
                    out += '\t';
                    break;
                case 'u': {
                    unsigned cp = hex4();
                    if (cp >= 0xD800 && cp < 0xDC00) {  // a surrogate pair
                        if (!(i_ + 1 < s_.size() && s_[i_] == '\\' && s_[i_ + 1] == 'u')) fail("a lone surrogate");
                        i_ += 2;
                        const unsigned lo = hex4();
                        if (lo < 0xDC00 || lo >= 0xE000) fail("a lone surrogate");
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    } else if (cp >= 0xDC00 && cp < 0xE000) {
                        fail("a lone surrogate");
                    }
                    utf8(out, cp);
                    break;
                }
                default:
                    --i_;
                    fail("an unknown escape in a string");
            }
        }
    }
    unsigned hex4() {
        unsigned v = 0;
        for (int k = 0; k < 4; ++k, ++i_) {
            if (i_ >= s_.size()) fail("expected four hex digits after \\u");
            const char h = s_[i_];
            v <<= 4;
            if (h >= '0' && h <= '9')
                v |= static_cast<unsigned>(h - '0');
            else if (h >= 'a' && h <= 'f')
                v |= static_cast<unsigned>(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
                v |= static_cast<unsigned>(h - 'A' + 10);
            else
                fail("expected four hex digits after \\u");
        }
        return v;
    }
    static void utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out += static_cast<char>(cp);
        } else if (cp < 0x800) {
            out += static_cast<char>(0xC0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += static_cast<char>(0xE0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        } else {
            out += static_cast<char>(0xF0 | (cp >> 18));
            out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (cp & 0x3F));
        }
    }

    const std::string& s_;
    std::string where_;
    std::size_t i_ = 0;
};

/// The stages' names live as long as the process: flow_stage keeps a const char* (static storage).
inline const char* keep_name(const std::string& name) {
    static std::deque<std::string> names;
    for (const std::string& n : names)
        if (n == name) return n.c_str();
    names.push_back(name);
    return names.back().c_str();
}

}  // namespace flow_json

/// Reads a flow file (see the header comment); errors are usage errors that start with `option` and the file.
inline flow_latency read_flow_file(const std::string& path, const std::string& option) {
    text_input::rules rules;
    rules.max_line = std::size_t{1} << 16;
    rules.too_long = "a line longer than 64 KiB: not a flow file";
    rules.nul = "a NUL byte: not a flow file";
    rules.not_a = "a flow file";
    rules.dash_is_stdin = false;
    if (path.empty()) throw usage_error(option + ": flow: needs a file name (flow:FILE)");
    text_input in(path, option, rules);
    std::string text, line;
    while (in.next(line)) {
        text += line;
        text += '\n';
        if (text.size() > (std::size_t{1} << 20)) throw usage_error(option + ": " + in.shown() + ": larger than 1 MiB");
    }
    const std::string where = option + ": " + in.shown();
    using flow_json::value;
    const value doc = flow_json::parser(text, where).document();
    if (doc.kind != value::type::object) throw usage_error(where + ": expected an object {\"stages\": [...]}");
    const value* stages = nullptr;
    for (const auto& f : doc.fields) {
        if (f.first != "stages")
            throw usage_error(where + ": unknown member '" + args::printable(f.first) +
                              "' (a flow file has \"stages\")");
        stages = &f.second;
    }
    if (stages == nullptr) throw usage_error(where + ": no \"stages\" member");
    if (stages->kind != value::type::array)
        throw usage_error(where + ": \"stages\" must be an array, got " + flow_json::type_name(stages->kind));
    if (stages->items.empty() || stages->items.size() > flow_latency::max_stages)
        throw usage_error(where + ": \"stages\" must hold 1 to " + std::to_string(flow_latency::max_stages) +
                          " stages, got " + std::to_string(stages->items.size()));

    flow_stage parsed[flow_latency::max_stages];
    bool seen_send = false, seen_poll = false;
    for (std::size_t i = 0; i < stages->items.size(); ++i) {
        const value& st = stages->items[i];
        std::string at = where + ": stage " + std::to_string(i + 1);
        if (st.kind != value::type::object)
            throw usage_error(at + ": expected an object, got " + flow_json::type_name(st.kind));
        const auto find = [&st](const char* key) -> const value* {
            for (const auto& f : st.fields)
                if (f.first == key) return &f.second;
            return nullptr;
        };
        const value* name = find("name");
        if (name == nullptr || name->kind != value::type::string || name->text.empty() || name->text.size() > 200)
            throw usage_error(at + ": \"name\" must be a string of 1 to 200 bytes");
        at += " (" + args::printable(name->text) + ")";
        const value* kind = find("kind");
        if (kind == nullptr || kind->kind != value::type::string)
            throw usage_error(at + ": \"kind\" must be one of monitor, clock, send, delay, reply-poll");
        flow_stage_kind k = flow_stage_kind::delay;
        bool known = false;
        for (flow_stage_kind c : {flow_stage_kind::monitor, flow_stage_kind::clock, flow_stage_kind::send,
                                  flow_stage_kind::delay, flow_stage_kind::reply_poll})
            if (kind->text == to_text(c)) {
                k = c;
                known = true;
            }
        if (!known)
            throw usage_error(at + ": unknown kind '" + args::printable(kind->text) +
                              "' (one of monitor, clock, send, delay, reply-poll)");
        // The fields this kind takes, and which of them it needs.
        std::vector<const char*> allowed, needed;
        switch (k) {
            case flow_stage_kind::monitor:
            case flow_stage_kind::reply_poll:
                allowed = needed = {"period_s"};
                break;
            case flow_stage_kind::clock:
                allowed = {"period_s", "drift_s"};
                needed = {"period_s"};
                break;
            case flow_stage_kind::send:
                allowed = {"min_s", "max_s"};
                break;
            case flow_stage_kind::delay:
                allowed = {"min_s", "max_s", "lock"};
                needed = {"min_s", "max_s"};
                break;
        }
        const std::string kind_text = to_text(k);
        for (const auto& f : st.fields) {
            if (f.first == "kind" || f.first == "name") continue;
            bool ok = false;
            for (const char* a : allowed) ok = ok || f.first == a;
            if (!ok) {
                std::string list;
                for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
                throw usage_error(at + ": a " + kind_text + " stage has no field '" + args::printable(f.first) + "' (" +
                                  (list.empty() ? std::string("it takes none") : "it takes " + list) + ")");
            }
            if (f.first == "lock") {
                if (f.second.kind != value::type::boolean)
                    throw usage_error(at + ": lock must be true or false, got " + flow_json::type_name(f.second.kind));
                continue;
            }
            if (f.second.kind != value::type::number)
                throw usage_error(at + ": " + f.first + " must be a number of seconds, got " +
                                  flow_json::type_name(f.second.kind));
        }
        for (const char* n : needed)
            if (find(n) == nullptr) throw usage_error(at + ": a " + kind_text + " stage needs " + n);
        const auto num = [&find](const char* key, double fallback) {
            const value* v = find(key);
            return v == nullptr ? fallback : v->number;
        };
        // Each field in its range, as flow_latency::make checks it, named here.
        const auto range = [&at](const char* field, double v, double lo, double hi, bool hi_open) {
            if (!(v >= lo && (hi_open ? v < hi : v <= hi)))
                throw usage_error(at + ": " + field + " must be in [" + decimal_text(lo) + ", " + decimal_text(hi) +
                                  (hi_open ? ")" : "]") + ", got " + decimal_text(v));
        };
        const char* kept = flow_json::keep_name(name->text);
        switch (k) {
            case flow_stage_kind::monitor:
            case flow_stage_kind::reply_poll: {
                const double p = num("period_s", 0.0);
                range("period_s", p, 0.001, 1e5, true);
                parsed[i] = k == flow_stage_kind::monitor ? flow_stage::monitor(kept, seconds(p))
                                                          : flow_stage::reply_poll(kept, seconds(p));
                break;
            }
            case flow_stage_kind::clock: {
                const double p = num("period_s", 0.0);
                range("period_s", p, 0.001, 1e5, true);
                const double d = num("drift_s", 0.0);
                range("drift_s", d, 0.0, p, true);
                parsed[i] = flow_stage::clock(kept, seconds(p), seconds(d));
                break;
            }
            case flow_stage_kind::send:
            case flow_stage_kind::delay: {
                const double lo = num("min_s", 0.0);
                range("min_s", lo, 0.0, 1e5, true);
                const double hi = num("max_s", lo);
                range("max_s", hi, lo, 1e5, true);
                const value* lock = find("lock");
                const seconds from(lo), to(hi);
                parsed[i] = k == flow_stage_kind::send         ? flow_stage::send(kept, from, to)
                            : lock != nullptr && lock->boolean ? flow_stage::locked_delay(kept, from, to)
                                                               : flow_stage::delay(kept, from, to);
                break;
            }
        }
        if (k == flow_stage_kind::monitor && i != 0)
            throw usage_error(at + ": kind monitor (the agent's own detection) can only be the first stage");
        if (k == flow_stage_kind::send) {
            if (seen_send) throw usage_error(at + ": a second send (a flow has at most one)");
            seen_send = true;
        }
        if (k == flow_stage_kind::reply_poll) {
            if (seen_poll) throw usage_error(at + ": a second reply-poll (a flow has at most one)");
            if (!seen_send) throw usage_error(at + ": a reply-poll counts from the send: put a send stage before it");
            seen_poll = true;
        }
    }
    const auto f = flow_latency::make(parsed, stages->items.size());
    if (!f) throw usage_error(where + ": " + std::string(f.error().message().view()));
    return *f;
}

/// A flow as a flow file's text (see the header comment): every time as the shortest decimal that reads back as
/// the same double, so that reading it gives the same model.
inline std::string flow_file_text(const flow_latency& f) {
    std::string out = "{\"stages\": [\n";
    for (std::size_t i = 0; i < f.size(); ++i) {
        const flow_stage& s = f.stage(i);
        out += "  {\"kind\": " + json_quote(to_text(s.kind)) + ", \"name\": " + json_quote(s.name);
        switch (s.kind) {
            case flow_stage_kind::monitor:
            case flow_stage_kind::reply_poll:
                out += ", \"period_s\": " + decimal_text(s.min_seconds.count());
                break;
            case flow_stage_kind::clock:
                out += ", \"period_s\": " + decimal_text(s.min_seconds.count()) +
                       ", \"drift_s\": " + decimal_text(s.drift.count());
                break;
            case flow_stage_kind::send:
            case flow_stage_kind::delay:
                out += ", \"min_s\": " + decimal_text(s.min_seconds.count()) +
                       ", \"max_s\": " + decimal_text(s.max_seconds.count());
                if (s.locked) out += ", \"lock\": true";
                break;
        }
        out += i + 1 < f.size() ? "},\n" : "}\n";
    }
    return out + "]}\n";
}

/// Writes a flow file to `path` for `option`; a failure is a runtime failure naming the file.
inline void write_flow_file(const std::string& path, const flow_latency& f, const std::string& option) {
    const std::string text = flow_file_text(f);
    std::FILE* out = std::fopen(path.c_str(), "w");
    if (out == nullptr)
        throw runtime_failure(option + ": cannot create '" + args::printable(path) + "': " + std::strerror(errno));
    const bool written = std::fwrite(text.data(), 1, text.size(), out) == text.size();
    if (std::fclose(out) != 0 || !written)
        throw runtime_failure(option + ": writing '" + args::printable(path) + "' failed: " + std::strerror(errno));
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_FLOW_FILE_HPP
