// Fuzzes the LVM presets' --lvs reader (examples/common/lvs_report.hpp: a thin pool from `lvs --reportformat json`)
// with arbitrary files, read as the CLI reads them (read_lvs_report over a text_input), choosing the pool by the
// first byte (none, "pool" or "vg/pool"). Every input either gives a pool or throws the CLI's usage_error, one line
// naming the option and file; it never crashes, hangs or throws anything else. A pool read is whole: its percents
// are lvs's (digits, at most two decimals' worth of text) when it is active, both empty when it is not, and written
// back as an lvs report of its own it reads back to the same pool.
#include "fuzz_check.hpp"

#include "common/lvs_report.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

namespace {

using provpol::cli::lvs_pool;

struct memfile {
    std::FILE* f = nullptr;
    memfile(const char* data, std::size_t size) {
        static const char empty = 0;
        f = fmemopen(const_cast<char*>(size ? data : &empty), size ? size : 1, "rb");
        PROVPOL_FUZZ_CHECK(f != nullptr);
        if (size == 0) std::fgetc(f);
    }
    memfile(const memfile&) = delete;
    memfile& operator=(const memfile&) = delete;
    ~memfile() { std::fclose(f); }
};

bool percent_text(const std::string& t) {
    if (t.empty() || t.size() > 8) return false;
    for (const char c : t)
        if (c != '.' && (c < '0' || c > '9')) return false;
    return true;
}

lvs_pool read(const std::string& text, const std::string& select) {
    const memfile f(text.data(), text.size());
    provpol::cli::text_input in(f.f, "fuzz.json", "--lvs", provpol::cli::lvs_report_rules());
    return provpol::cli::read_lvs_report(in, "--lvs", select);
}

// The pool as a one-row lvs report of the fields --lvs reads (lvs_command's), lv_attr when it had one.
std::string report_of(const lvs_pool& p) {
    nlohmann::json row = {{"lv_name", p.name},
                          {"vg_name", p.vg},
                          {"lv_size", std::to_string(p.size.count())},
                          {"data_percent", p.data_percent},
                          {"metadata_percent", p.metadata_percent},
                          {"lv_metadata_size", std::to_string(p.metadata_size.count())},
                          {"chunk_size", std::to_string(p.chunk.count())},
                          {"vg_free", std::to_string(p.vg_free.count())},
                          {"vg_extent_size", std::to_string(p.extent.count())}};
    if (p.attr.empty())
        row["segtype"] = "thin-pool";
    else
        row["lv_attr"] = p.attr;
    return nlohmann::json{{"report", nlohmann::json::array({{{"lv", nlohmann::json::array({row})}}})}}.dump();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0 || size > (std::size_t{1} << 20)) return 0;
    static const char* const selects[] = {"", "pool", "vg/pool"};
    const std::string select = selects[data[0] % 3];
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    lvs_pool p;
    try {
        p = read(text, select);
    } catch (const provpol::cli::usage_error& e) {
        const std::string m = e.what();  // "--lvs: 'fuzz.json': ...", or "--lvs: fuzz.json:LINE: ..." for a line
        PROVPOL_FUZZ_CHECK(m.rfind("--lvs: ", 0) == 0 && m.find("fuzz.json") != std::string::npos);
        PROVPOL_FUZZ_CHECK(m.find('\n') == std::string::npos);
        return 0;
    }
    if (!select.empty()) PROVPOL_FUZZ_CHECK(select == p.name || select == p.vg + "/" + p.name);
    if (p.active) {
        PROVPOL_FUZZ_CHECK(percent_text(p.data_percent) && percent_text(p.metadata_percent));
    } else {
        PROVPOL_FUZZ_CHECK(p.data_percent.empty() && p.metadata_percent.empty());
    }
    // A pool found by its lv_attr is a thin pool's (t); the round trip keeps how it was found.
    if (!p.attr.empty() && p.attr.front() != 't') p.attr.clear();  // found by segtype; its lv_attr says otherwise
    lvs_pool q;
    try {
        q = read(report_of(p), "");
    } catch (const provpol::cli::usage_error& e) {
        std::fprintf(stderr, "written back: %s\nrefused: %s\n", report_of(p).c_str(), e.what());
        PROVPOL_FUZZ_CHECK(false && "the pool written back reads back");
    }
    PROVPOL_FUZZ_CHECK(q.vg == p.vg && q.name == p.name && q.active == p.active);
    PROVPOL_FUZZ_CHECK(q.size == p.size && q.metadata_size == p.metadata_size && q.chunk == p.chunk);
    PROVPOL_FUZZ_CHECK(q.vg_free == p.vg_free && q.extent == p.extent);
    PROVPOL_FUZZ_CHECK(q.data_percent == p.data_percent && q.metadata_percent == p.metadata_percent);
    return 0;
}
