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
//   ],
//    "stalls": {"probability": 0.02, "cases": [
//     {"weight": 1, "add_s": [0, 0, 0, 11.6, 0, 0]},
//     {"weight": 1, "add_s": [0, 0, 0, 0, 0, 30.2]}
//   ]}}
//
// "stalls" is optional (flow_latency::with_stalls): with that probability a request stalls, and then one of the cases,
// chosen by weight, adds its "add_s" (one number of seconds per stage, in the stages' order; above 0 only on a delay
// or the send) to the stages' times. `--save-flow` writes the stalls a log's fit found (fit/vdsm_log_stalls.hpp).
//
// The kinds are flow/clocks.hpp's (flow_stage_kind's names), each with the fields it needs: monitor and
// reply-poll a period_s; clock a period_s and an optional drift_s (default 0); delay min_s and max_s; send an
// optional min_s and max_s (default 0); a delay between the send and the reply poll may say "lock": true, the
// SPM's lvextend under the volume group's lock (flow_stage::locked_delay, how a storage domain serializes it). A flow
// of delays alone is the independent-waits model. A bad file is one usage error naming the stage (its index, from 1,
// and its name) and the field; JSON errors name the line and column. This reader checks what is about JSON (the
// members, their types, the fields each kind takes); the values, the names' length (flow_stage::max_name) and the
// stages' order are flow_latency::make's, whose error names the stage (flow_error), said here in the file's words. The
// JSON is read by nlohmann-json, header-only as the lvs reader uses it (the CLI keeps no runtime dependency; the
// library headers need no JSON at all).
#ifndef PROVPOL_CLI_FLOW_FILE_HPP
#define PROVPOL_CLI_FLOW_FILE_HPP

#include "cli.hpp"
#include "input.hpp"
#include "json.hpp"

#include <provpol/flow/clocks.hpp>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
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

// The JSON is read by nlohmann-json's SAX parser into the reader's value, members in file order (so that an error
// names the first bad member as the file has it); the builder refuses what the flow format refuses as it goes: a
// member twice in one object (a set of names per open object: O(n log n)), nesting deeper than 16, an array of more
// than 1000 values, more than 10000 values in all (memory stays within a small multiple of the file's 1 MiB).
using json = nlohmann::json;

/// "L:C: " for the byte offset `at` of `text`.
inline std::string line_column(const std::string& text, std::size_t at) {
    std::size_t line = 1, column = 1;
    for (std::size_t k = 0; k < at && k < text.size(); ++k) {
        const bool newline = text[k] == '\n';
        column = newline ? std::size_t{1} : column + 1;
        line += newline ? std::size_t{1} : std::size_t{0};
    }
    return std::to_string(line) + ":" + std::to_string(column) + ": ";
}

/// Where the n-th (from 1) member named `key` ends (just after its closing quote), or npos when a key written
/// with escapes cannot be found as it is (the error then names no line).
inline std::size_t key_end(const std::string& text, const std::string& key, std::size_t n) {
    const std::string quoted = "\"" + key + "\"";
    for (std::size_t at = text.find(quoted); at != std::string::npos; at = text.find(quoted, at + 1)) {
        std::size_t k = at + quoted.size();
        while (k < text.size() && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' || text[k] == '\r')) ++k;
        if (k < text.size() && text[k] == ':' && --n == 0) return at + quoted.size();
    }
    return std::string::npos;
}

/// A parse error of nlohmann's ("... at line 2, column 1: syntax error while parsing object - ...") as
/// "2:1: <what>": the reader's own wording for the common mistakes, nlohmann's text for the rest.
inline std::string syntax_error_text(const std::string& m) {
    std::string at = " ";  // "'FILE': what" when nlohmann gives no position (a number beyond a double)
    const std::size_t l = m.find(" at line "), c = m.find(", column ");
    if (l != std::string::npos && c != std::string::npos)
        at = m.substr(l + 9, c - l - 9) + ":" + m.substr(c + 9, m.find(':', c) - c - 9) + ": ";
    const std::size_t dash = m.find(" - "), tag = m.find("] ");
    const std::string what =
        dash != std::string::npos ? m.substr(dash + 3) : m.substr(tag == std::string::npos ? 0 : tag + 2);
    if (what.find("expected '[', '{', or a literal") != std::string::npos) return at + "expected a JSON value";
    if (m.find("while parsing object") != std::string::npos && what.find("expected '}'") != std::string::npos)
        return at + "expected ',' or '}' in an object";
    if (m.find("while parsing array") != std::string::npos && what.find("expected ']'") != std::string::npos)
        return at + "expected ',' or ']' in an array";
    return at + what;
}

/// Builds the reader's value from nlohmann's SAX events; every refusal is a usage error starting with `where`.
class builder : public nlohmann::json_sax<json> {
public:
    builder(const std::string& text, std::string where) : text_(text), where_(std::move(where)) {}
    value root;

    bool null() override { return add(value{}); }
    bool boolean(bool b) override {
        value v;
        v.kind = value::type::boolean;
        v.boolean = b;
        return add(std::move(v));
    }
    bool number_integer(number_integer_t n) override { return number(static_cast<double>(n)); }
    bool number_unsigned(number_unsigned_t n) override { return number(static_cast<double>(n)); }
    bool number_float(number_float_t d, const string_t&) override { return number(d); }
    bool string(string_t& s) override {
        value v;
        v.kind = value::type::string;
        v.text = s;
        return add(std::move(v));
    }
    bool binary(binary_t&) override { return fail("binary values are not JSON"); }
    bool start_object(std::size_t) override { return open(value::type::object); }
    bool start_array(std::size_t) override { return open(value::type::array); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool key(string_t& k) override {
        const std::size_t seen = ++key_count_[k];
        if (!names_.back().insert(k).second)
            return fail("member '" + args::printable(k) + "' appears twice", key_end(text_, k, seen));
        key_ = k;
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
        throw usage_error(where_ + ":" + syntax_error_text(e.what()));
    }

private:
    bool fail(const std::string& what, std::size_t at = std::string::npos) {
        throw usage_error(where_ + ":" + (at == std::string::npos ? " " : line_column(text_, at)) + what);
    }
    bool number(double d) {
        value v;
        v.kind = value::type::number;
        v.number = d;
        return add(std::move(v));
    }
    // Adds v to the open array or object (or makes it the document); returns where it now lives. A flow has a few
    // dozen values: more than max_values is no flow file (and would cost far more memory than the file's size).
    value* place(value&& v) {
        if (++values_ > max_values) fail("more than " + std::to_string(max_values) + " JSON values: not a flow file");
        if (open_.empty()) return &(root = std::move(v));
        value& top = *open_.back();
        if (top.kind == value::type::array) {
            if (top.items.size() >= 1000) fail("an array of more than 1000 values");
            top.items.push_back(std::move(v));
            return &top.items.back();
        }
        top.fields.push_back({key_, std::move(v)});
        return &top.fields.back().second;
    }
    bool add(value&& v) {
        place(std::move(v));
        return true;
    }
    bool open(value::type kind) {
        if (open_.size() >= 17) fail("nested too deeply");
        value v;
        v.kind = kind;
        open_.push_back(place(std::move(v)));  // stable: a parent's members do not move while a child is open
        if (kind == value::type::object) names_.emplace_back();
        return true;
    }
    bool close() {
        if (open_.back()->kind == value::type::object) names_.pop_back();
        open_.pop_back();
        return true;
    }

    static constexpr std::size_t max_values = 10000;
    const std::string& text_;
    std::string where_;
    std::size_t values_ = 0;
    std::vector<value*> open_;
    std::vector<std::set<std::string>> names_;
    std::map<std::string, std::size_t> key_count_;
    std::string key_;
};

/// Parses a flow file's text into the reader's value.
inline value parse_json(const std::string& text, const std::string& where) {
    builder b(text, where);
    json::sax_parse(text, &b);
    return std::move(b.root);
}

// The member `key` of an object, or nullptr.
inline const value* member(const value& object, const char* key) {
    for (const auto& f : object.fields)
        if (f.first == key) return &f.second;
    return nullptr;
}

// The file's text, at most 1 MiB; `shown` gets the file's name as errors show it.
inline std::string read_text(const std::string& path, const std::string& option, std::string& shown) {
    text_input::rules rules;
    rules.nul = "a NUL byte: not a flow file";
    rules.not_a = "a flow file";
    rules.dash_is_stdin = false;
    rules.max_bytes = std::size_t{1} << 20;
    if (path.empty()) throw usage_error(option + ": flow: needs a file name (flow:FILE)");
    text_input in(path, option, rules);
    std::string text;
    in.read_all(text);
    shown = in.shown();
    return text;
}

// The document's "stages": an object of that member (and "stalls"), an array of 1 to flow_latency::max_stages.
inline const value& stage_array(const value& doc, const std::string& where) {
    if (doc.kind != value::type::object) throw usage_error(where + ": expected an object {\"stages\": [...]}");
    const value* stages = nullptr;
    for (const auto& f : doc.fields) {
        if (f.first == "stalls") continue;
        if (f.first != "stages")
            throw usage_error(where + ": unknown member '" + args::printable(f.first) +
                              "' (a flow file has \"stages\" and \"stalls\")");
        stages = &f.second;
    }
    if (stages == nullptr) throw usage_error(where + ": no \"stages\" member");
    if (stages->kind != value::type::array)
        throw usage_error(where + ": \"stages\" must be an array, got " + type_name(stages->kind));
    if (stages->items.empty() || stages->items.size() > flow_latency::max_stages)
        throw usage_error(where + ": \"stages\" must hold 1 to " + std::to_string(flow_latency::max_stages) +
                          " stages, got " + std::to_string(stages->items.size()));
    return *stages;
}

// A stage's "kind". `at` names the stage.
inline flow_stage_kind kind_of(const value& st, const std::string& at) {
    const value* kind = member(st, "kind");
    if (kind == nullptr || kind->kind != value::type::string)
        throw usage_error(at + ": \"kind\" must be one of monitor, clock, send, delay, reply-poll");
    for (flow_stage_kind c : {flow_stage_kind::monitor, flow_stage_kind::clock, flow_stage_kind::send,
                              flow_stage_kind::delay, flow_stage_kind::reply_poll})
        if (kind->text == to_text(c)) return c;
    throw usage_error(at + ": unknown kind '" + args::printable(kind->text) +
                      "' (one of monitor, clock, send, delay, reply-poll)");
}

// A stage's fields against its kind: only the ones it takes, each of its type, and the ones it needs.
inline void check_fields(const value& st, flow_stage_kind k, const std::string& at) {
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
                throw usage_error(at + ": lock must be true or false, got " + type_name(f.second.kind));
            continue;
        }
        if (f.second.kind != value::type::number)
            throw usage_error(at + ": " + f.first + " must be a number of seconds, got " + type_name(f.second.kind));
    }
    for (const char* n : needed)
        if (member(st, n) == nullptr) throw usage_error(at + ": a " + kind_text + " stage needs " + n);
}

// The stage of kind k named `name` from its fields (check_fields has seen their types); flow_latency::make checks
// their values.
inline flow_stage stage_of(const value& st, flow_stage_kind k, const std::string& name) {
    const auto num = [&st](const char* key, double fallback) {
        const value* v = member(st, key);
        return v == nullptr ? fallback : v->number;
    };
    const seconds period(num("period_s", 0.0)), lo(num("min_s", 0.0)), hi(num("max_s", lo.count()));
    const value* lock = member(st, "lock");
    switch (k) {
        case flow_stage_kind::monitor:
            return flow_stage::monitor(name, period);
        case flow_stage_kind::reply_poll:
            return flow_stage::reply_poll(name, period);
        case flow_stage_kind::clock:
            return flow_stage::clock(name, period, seconds(num("drift_s", 0.0)));
        case flow_stage_kind::send:
            return flow_stage::send(name, lo, hi);
        case flow_stage_kind::delay:
            break;
    }
    return lock != nullptr && lock->boolean ? flow_stage::locked_delay(name, lo, hi) : flow_stage::delay(name, lo, hi);
}

// Stage i (from 0) of a flow file: an object with a "name", a "kind" and that kind's fields.
inline flow_stage read_stage(const value& st, std::size_t i, const std::string& where) {
    std::string at = where + ": stage " + std::to_string(i + 1);
    if (st.kind != value::type::object) throw usage_error(at + ": expected an object, got " + type_name(st.kind));
    const value* name = member(st, "name");
    if (name == nullptr || name->kind != value::type::string || name->text.empty())
        throw usage_error(at + ": \"name\" must be a string of 1 or more bytes");
    at += " (" + args::printable(name->text) + ")";
    const flow_stage_kind k = kind_of(st, at);
    check_fields(st, k, at);
    return stage_of(st, k, name->text);
}

// flow_latency::make's field as the file spells it.
inline std::string file_field(text_view setting) {
    for (const auto& m : {std::pair<const char*, const char*>{"min_seconds", "min_s"},
                          {"max_seconds", "max_s"},
                          {"period", "period_s"},
                          {"drift", "drift_s"},
                          {"stall_seconds", "add_s"}})
        if (setting == m.first) return m.second;
    return std::string(setting);
}

// flow_latency::make's error about a flow file's stages: "stage N (NAME): " (the name as the file has it) before
// what is wrong, in the file's words.
inline std::string error_text(const flow_error& e, const value& stages, const std::string& where) {
    if (e.stage() == flow_error::no_stage) return where + ": " + std::string(e.message().view());
    const std::size_t i = e.stage();
    return where + ": stage " + std::to_string(i + 1) + " (" + args::printable(member(stages.items[i], "name")->text) +
           "): " + std::string(e.what(file_field(e.cause().setting())).view());
}

// The document's "stalls", if any, as with_stalls takes them: the probability and the cases of a flow of `stages`
// stages (the values are with_stalls' to check; here their JSON types and counts).
inline std::vector<flow_stall_case> read_stalls(const value& doc, std::size_t stages, double& probability,
                                                const std::string& where) {
    std::vector<flow_stall_case> cases;
    probability = 0.0;
    const value* st = member(doc, "stalls");
    if (st == nullptr) return cases;
    const std::string at = where + ": stalls";
    if (st->kind != value::type::object) throw usage_error(at + ": expected an object, got " + type_name(st->kind));
    const value *p = nullptr, *list = nullptr;
    for (const auto& f : st->fields) {
        if (f.first == "probability") {
            p = &f.second;
        } else if (f.first == "cases") {
            list = &f.second;
        } else {
            throw usage_error(at + ": unknown member '" + args::printable(f.first) +
                              "' (stalls have \"probability\" and \"cases\")");
        }
    }
    if (p == nullptr || p->kind != value::type::number) throw usage_error(at + ": \"probability\" must be a number");
    if (list == nullptr || list->kind != value::type::array) throw usage_error(at + ": \"cases\" must be an array");
    probability = p->number;
    for (std::size_t c = 0; c < list->items.size(); ++c) {
        const value& item = list->items[c];
        const std::string here = at + ": case " + std::to_string(c + 1);
        if (item.kind != value::type::object)
            throw usage_error(here + ": expected an object, got " + type_name(item.kind));
        flow_stall_case sc;
        const value *weight = nullptr, *add = nullptr;
        for (const auto& f : item.fields) {
            if (f.first == "weight") {
                weight = &f.second;
            } else if (f.first == "add_s") {
                add = &f.second;
            } else {
                throw usage_error(here + ": unknown member '" + args::printable(f.first) +
                                  "' (a case has \"weight\" and \"add_s\")");
            }
        }
        if (weight != nullptr && weight->kind != value::type::number)
            throw usage_error(here + ": \"weight\" must be a number");
        if (weight != nullptr) sc.weight = weight->number;
        if (add == nullptr || add->kind != value::type::array || add->items.size() != stages)
            throw usage_error(here + ": \"add_s\" must be an array of " + std::to_string(stages) +
                              " numbers of seconds, one per stage");
        for (std::size_t i = 0; i < stages; ++i) {
            if (add->items[i].kind != value::type::number)
                throw usage_error(here + ": \"add_s\" must hold numbers of seconds, got " +
                                  type_name(add->items[i].kind) + " for stage " + std::to_string(i + 1));
            sc.extra[i] = seconds(add->items[i].number);
        }
        cases.push_back(sc);
    }
    return cases;
}

}  // namespace flow_json

/// Reads a flow file (see the header comment); errors are usage errors that start with `option` and the file.
inline flow_latency read_flow_file(const std::string& path, const std::string& option) {
    std::string shown;
    const std::string text = flow_json::read_text(path, option, shown);
    const std::string where = option + ": " + shown;
    const flow_json::value doc = flow_json::parse_json(text, where);
    const flow_json::value& stages = flow_json::stage_array(doc, where);
    flow_stage parsed[flow_latency::max_stages];
    for (std::size_t i = 0; i < stages.items.size(); ++i) parsed[i] = flow_json::read_stage(stages.items[i], i, where);
    const auto f = flow_latency::make(parsed, stages.items.size());
    if (!f) throw usage_error(flow_json::error_text(f.error(), stages, where));
    double probability = 0.0;
    const std::vector<flow_stall_case> cases = flow_json::read_stalls(doc, stages.items.size(), probability, where);
    if (!flow_json::member(doc, "stalls")) return *f;
    const auto stalled = f->with_stalls(probability, cases.data(), cases.size());
    if (!stalled) {
        if (stalled.error().stage() == flow_error::no_stage)
            throw usage_error(where + ": stalls: " + std::string(stalled.error().message().view()));
        throw usage_error(flow_json::error_text(stalled.error(), stages, where + ": stalls"));
    }
    return *stalled;
}

/// A flow as a flow file's text (see the header comment): every time as the shortest decimal that reads back as
/// the same double, so that reading it gives the same model.
inline std::string flow_file_text(const flow_latency& f) {
    std::string out = "{\"stages\": [\n";
    for (std::size_t i = 0; i < f.size(); ++i) {
        const flow_stage& s = f.stage(i);
        out += "  {\"kind\": " + json_quote(to_text(s.kind())) + ", \"name\": " + json_quote(std::string(s.name()));
        switch (s.kind()) {
            case flow_stage_kind::monitor:
            case flow_stage_kind::reply_poll:
                out += ", \"period_s\": " + decimal_text(s.period().count());
                break;
            case flow_stage_kind::clock:
                out += ", \"period_s\": " + decimal_text(s.period().count()) +
                       ", \"drift_s\": " + decimal_text(s.drift().count());
                break;
            case flow_stage_kind::send:
            case flow_stage_kind::delay:
                out +=
                    ", \"min_s\": " + decimal_text(s.min().count()) + ", \"max_s\": " + decimal_text(s.max().count());
                if (s.locked()) out += ", \"lock\": true";
                break;
        }
        out += i + 1 < f.size() ? "},\n" : "}\n";
    }
    if (f.stall_case_count() == 0) return out + "]}\n";
    out += "],\n \"stalls\": {\"probability\": " + decimal_text(f.stall_probability()) + ", \"cases\": [\n";
    for (std::size_t c = 0; c < f.stall_case_count(); ++c) {
        const flow_stall_case& sc = f.stall_case(c);
        out += "  {\"weight\": " + decimal_text(sc.weight) + ", \"add_s\": [";
        for (std::size_t i = 0; i < f.size(); ++i) out += (i == 0 ? "" : ", ") + decimal_text(sc.extra[i].count());
        out += c + 1 < f.stall_case_count() ? "]},\n" : "]}\n";
    }
    return out + "]}}\n";
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
