// The CLI's vdsm.conf reader (examples/common/vdsm_conf.hpp) against Python's configparser set up as VDSM's
// config.py.in sets it up, on the corpus tools/vdsm_conf_corpus.py generated (tests/data/vdsm_conf: 600 cases, one to
// four files each, about half of them files configparser refuses). expected.txt is configparser's reading of each
// case (the ctest vdsm_conf.corpus_reference runs configparser again and checks that it still is); here the reader
// prints the same lines for every case and they must be equal, refusals (their kind and line) included. One
// difference is by design: a NUL byte refuses a file that Python would read.
#include "common/vdsm_conf.hpp"
#include "common/input.hpp"

#include <doctest/doctest.h>

#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace provpol;
using namespace provpol::cli;

namespace {

const std::string corpus_dir = std::string(PROVPOL_TEST_DATA_DIR) + "/vdsm_conf/";

std::string esc(std::string_view s) {
    std::string out;
    for (char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c >= 0x20 && c < 0x7F && c != '\\') {
            out += ch;
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        }
    }
    return out;
}

std::string file_bytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// The exception's name a message gives ("... (DuplicateOptionError): ..."), or "".
std::string kind_of(const std::string& message) {
    static const std::regex name("([A-Za-z]+Error)\\b");
    std::smatch m;
    std::string last;
    for (auto it = message.cbegin(); std::regex_search(it, message.cend(), m, name); it = m[0].second) last = m[1];
    return last;
}

// The reader's lines for one case, in expected.txt's format.
std::vector<std::string> reading(const std::vector<std::string>& names, bool& has_nul) {
    vdsm_conf conf;
    has_nul = false;
    try {
        for (const std::string& n : names) {
            const std::string text = file_bytes(corpus_dir + "corpus/" + n);
            has_nul = has_nul || text.find('\0') != std::string::npos;
            conf.read(text, n, "--config");
        }
    } catch (const usage_error& e) {
        const std::string m = e.what();  // "--config: NAME:LINE: what (KindError)..."
        const std::size_t name = m.find(": ") + 2, colon = m.find(':', name), end = m.find(':', colon + 1);
        return {"refused " + kind_of(m) + " " + m.substr(name, end - name)};
    }
    std::map<std::pair<std::string, std::string>, std::string> defaults;
    for (const vdsm_schema_key& k : vdsm_schema) defaults[{k.section, k.key}] = k.value;
    std::vector<std::string> out;
    std::vector<std::string_view> sections = conf.section_names();
    sections.insert(sections.begin(), "DEFAULT");
    for (std::string_view s : sections) {
        if (s != "DEFAULT" && !conf.schema_section(s)) out.push_back("section " + esc(s));
        for (const vdsm_conf::setting& st : conf.settings_of(s)) {
            const auto d = defaults.find({std::string(s), std::string(st.key)});
            if (d != defaults.end() && d->second == st.v.raw) continue;
            out.push_back("raw " + esc(s) + " " + esc(st.key) + " " + esc(st.v.raw));
            std::string error;
            const auto got = conf.get(s, st.key, error);
            out.push_back(got ? "get " + esc(*got) : "get !" + kind_of(error));
        }
    }
    const auto typed = [&](const char* kind, const char* s, const char* k) {
        std::string error, v;
        if (std::strcmp(kind, "int") == 0) {
            const auto r = conf_getint(conf, s, k, error);
            if (r) v = r->huge ? "huge" : std::to_string(r->value);
        } else if (std::strcmp(kind, "float") == 0) {
            const auto r = conf_getfloat(conf, s, k, error);
            if (r) {
                std::uint64_t bits;
                std::memcpy(&bits, &*r, sizeof bits);
                char buf[24];
                std::snprintf(buf, sizeof buf, "%016" PRIx64, bits);
                v = *r != *r ? "nan" : buf;
            }
        } else {
            const auto r = conf_getboolean(conf, s, k, error);
            if (r) v = *r ? "true" : "false";
        }
        if (v.empty()) v = "!" + (kind_of(error).empty() ? std::string("ValueError") : kind_of(error));
        out.push_back(std::string(kind) + " " + s + " " + k + " " + v);
    };
    typed("int", "irs", "volume_utilization_chunk_mb");
    typed("int", "irs", "volume_utilization_percent");
    typed("bool", "mailbox", "events_enable");
    typed("float", "mailbox", "events_interval");
    typed("float", "thinp", "extend_timeout");
    typed("int", "vars", "vm_watermark_interval");
    return out;
}

}  // namespace

TEST_CASE("vdsm.conf: every case of the corpus read as configparser reads it for VDSM") {
    std::ifstream expected(corpus_dir + "expected.txt");
    REQUIRE(expected.good());
    std::string line;
    std::vector<std::string> names, want;
    std::size_t cases = 0, refused = 0, nul = 0;
    const auto check = [&] {
        if (names.empty()) return;
        ++cases;
        bool has_nul = false;
        const std::vector<std::string> got = reading(names, has_nul);
        std::string case_name;
        for (const std::string& n : names) case_name += n + " ";
        CAPTURE(case_name);
        if (has_nul) {  // by design: refused, whatever Python makes of it
            ++nul;
            REQUIRE(got.size() == 1);
            CHECK(got[0].rfind("refused ", 0) == 0);
            return;
        }
        refused += want.size() == 1 && want[0].rfind("refused ", 0) == 0 ? 1u : 0u;
        std::string g, w;
        for (const std::string& l : got) g += l + "\n";
        for (const std::string& l : want) w += l + "\n";
        CHECK(g == w);
    };
    while (std::getline(expected, line)) {
        if (line.rfind("case ", 0) == 0) {
            check();
            names.clear();
            want.clear();
            std::istringstream s(line.substr(5));
            for (std::string n; s >> n;) names.push_back(n);
        } else {
            want.push_back(line.substr(2));
        }
    }
    check();
    CHECK(cases >= 500);
    CHECK(refused >= 150);
    MESSAGE(cases << " cases, " << refused << " refused by configparser, " << nul << " with a NUL byte");
}
