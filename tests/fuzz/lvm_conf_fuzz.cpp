// Fuzzes the LVM presets' --config reader (examples/common/lvm_conf.hpp: lvm2's config grammar and lookups) with
// arbitrary files, read as the CLI reads them (read_lvm_conf_input over a text_input). Every input either reads or
// throws the CLI's usage_error, one line naming the option and file; it never crashes, hangs or throws anything
// else. What it reads holds lvm2's bounds (64 levels of sections, 100000 settings, values and sections), and lvm2's
// lookups of the autoextend keys answer consistently (an integer only from an integer value, cut to an int; a
// boolean 0 or 1). When every key is one lvm2's writer prints as it reads it, the tree written back as
// `lvmconfig --type current` writes it (dump) reads back to the same text and the same lookups.
#include "fuzz_check.hpp"

#include "common/lvm_conf.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>

namespace {

using provpol::cli::lvm_conf;
using provpol::cli::lvm_conf_int;
using provpol::cli::lvm_conf_node;
using provpol::cli::lvm_conf_tree;
using provpol::cli::lvm_conf_value;

// The fuzz input as a stream (fmemopen: no file system, so the fuzzer runs fast).
struct memfile {
    std::FILE* f = nullptr;
    memfile(const char* data, std::size_t size) {
        static const char empty = 0;
        f = fmemopen(const_cast<char*>(size ? data : &empty), size ? size : 1, "rb");
        PROVPOL_FUZZ_CHECK(f != nullptr);
        if (size == 0) std::fgetc(f);  // an empty stream: consume the placeholder byte
    }
    memfile(const memfile&) = delete;
    memfile& operator=(const memfile&) = delete;
    ~memfile() { std::fclose(f); }
};

const char* const keys[] = {"activation/thin_pool_autoextend_threshold",
                            "activation/thin_pool_autoextend_percent",
                            "activation/vdo_pool_autoextend_threshold",
                            "activation/vdo_pool_autoextend_percent",
                            "activation/snapshot_autoextend_threshold",
                            "activation/snapshot_autoextend_percent",
                            "activation/monitoring"};

// A key the writer prints bare (or quoted, for # " !) that the tokenizer reads back as the same key: no character
// that ends an identifier or splits a path, and no first character that starts another token.
bool writes_back(const std::string& key) {
    if (key.empty() || key.find_first_of(" \t\n\v\f\r#={}/") != std::string::npos) return false;
    const char c = key.front();
    return c != '\'' && c != '[' && c != ']' && c != ',';
}

// Whether the tree written back reads back the same: every key writes back, no node is both a section and a
// setting (the writer prints the setting alone), and no float is infinite (printed "inf", a bare string).
bool round_trips(const lvm_conf_tree& t) {
    for (std::size_t i = 1; i < t.nodes.size(); ++i) {
        const lvm_conf_node& n = t.nodes[i];
        if (!writes_back(n.key) || (n.has_value && !n.children.empty())) return false;
        for (const lvm_conf_value& v : n.values)
            if (v.type == lvm_conf_value::kind::real && !std::isfinite(v.real)) return false;
    }
    return true;
}

// The depth of the deepest node under `at`.
std::size_t depth(const lvm_conf_tree& t, std::size_t at, std::size_t level) {
    std::size_t most = level;
    for (const std::size_t c : t.nodes[at].children) {
        const std::size_t d = depth(t, c, level + 1);
        if (d > most) most = d;
    }
    return most;
}

void check_lookups(const lvm_conf& conf) {
    for (const char* k : keys) {
        const lvm_conf_int i = conf.integer(k);
        if (i.value) {
            PROVPOL_FUZZ_CHECK(i.node != nullptr && i.node->has_value && i.ignored.empty());
            PROVPOL_FUZZ_CHECK(i.node->values.front().type == lvm_conf_value::kind::integer);
            PROVPOL_FUZZ_CHECK(*i.value >= std::numeric_limits<std::int32_t>::min() &&
                               *i.value <= std::numeric_limits<std::int32_t>::max());
        } else {
            PROVPOL_FUZZ_CHECK(i.node == nullptr || !i.ignored.empty());
        }
        const lvm_conf_int b = conf.boolean(k);
        PROVPOL_FUZZ_CHECK(!b.value || *b.value == 0 || *b.value == 1);
        PROVPOL_FUZZ_CHECK((b.node != nullptr) == (i.node != nullptr));
        if (i.node != nullptr) PROVPOL_FUZZ_CHECK(conf.source(k).find(" from fuzz.conf line ") != std::string::npos);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > (std::size_t{1} << 20)) return 0;
    const memfile f(reinterpret_cast<const char*>(data), size);
    lvm_conf conf;
    try {
        provpol::cli::text_input in(f.f, "fuzz.conf", "--config", provpol::cli::lvm_conf_rules());
        conf.files.push_back(provpol::cli::read_lvm_conf_input(in, "fuzz.conf", "--config"));
    } catch (const provpol::cli::usage_error& e) {
        const std::string m = e.what();
        PROVPOL_FUZZ_CHECK(m.rfind("--config: ", 0) == 0 && m.find("fuzz.conf") != std::string::npos);
        PROVPOL_FUZZ_CHECK(m.find('\n') == std::string::npos);
        return 0;
    }
    const lvm_conf_tree& t = conf.files.front();
    PROVPOL_FUZZ_CHECK(!t.nodes.empty() && !t.nodes.front().children.empty());  // lvm2 refuses an empty tree
    PROVPOL_FUZZ_CHECK(t.nodes.size() <= 100001);
    PROVPOL_FUZZ_CHECK(depth(t, 0, 0) <= 64);
    check_lookups(conf);
    conf.lvmconfig_bare_keys = true;  // lvmconfig KEY's output: a bare key as the activation section's
    check_lookups(conf);
    conf.lvmconfig_bare_keys = false;
    const std::string written = t.dump();
    if (!round_trips(t)) return 0;
    lvm_conf again;
    again.files.emplace_back();
    again.files.front().file = "fuzz.conf";
    try {
        provpol::cli::parse_lvm_conf(written, "fuzz.conf:", again.files.front());
    } catch (const provpol::cli::usage_error& e) {
        std::fprintf(stderr, "written back:\n%s\nrefused: %s\n", written.c_str(), e.what());
        PROVPOL_FUZZ_CHECK(false && "the tree written back reads back");
    }
    PROVPOL_FUZZ_CHECK(again.files.front().dump() == written);
    for (const char* k : keys) {
        PROVPOL_FUZZ_CHECK(again.integer(k).value == conf.integer(k).value);
        PROVPOL_FUZZ_CHECK(again.boolean(k).value == conf.boolean(k).value);
    }
    return 0;
}
