// The CLI's readers of an operator's files (examples/common): lvm.conf and lvmconfig's output (lvm_conf.hpp) and
// lvs's JSON report (lvs_report.hpp), on what lvm2 2.03.16 itself printed in the e2e guest
// (tests/data/lvm2_2.03.16/, captured by tests/data/capture_lvm_reports.sh) and on hand-written files for what one
// captured file cannot show. The expected values are what lvm2 printed, read off the files by eye, not provpol's.
#include "common/lvm_conf.hpp"
#include "common/lvm_defaults.hpp"
#include "common/lvs_report.hpp"

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

using namespace provpol;
using namespace provpol::cli;

namespace {

const std::string data = std::string(PROVPOL_TEST_DATA_DIR) + "/lvm2_2.03.16/";

std::string scratch(const std::string& name, const std::string& text) {
    const std::string path = std::string(PROVPOL_TEST_SCRATCH_DIR) + "/" + name;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f != nullptr);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    return path;
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const usage_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

std::optional<std::int64_t> int_at(const lvm_conf& c, const char* path) { return c.integer(path).value; }

TEST_CASE("lvm.conf: lvm2's own files and lvmconfig's output") {
    // The guest's /etc/lvm/lvm.conf (threshold 70, percent 20, monitoring 1), as written.
    const lvm_conf conf = read_lvm_conf_files({data + "lvm.conf"}, "--config");
    CHECK(int_at(conf, "activation/thin_pool_autoextend_threshold") == 70);
    CHECK(int_at(conf, "activation/thin_pool_autoextend_percent") == 20);
    CHECK(conf.boolean("activation/monitoring").value == 1);
    CHECK(conf.find("devices/filter").first->values.size() == 2);  // an array of two strings
    CHECK(conf.find("activation/vdo_pool_autoextend_threshold").first == nullptr);
    // lvmconfig activation, lvmconfig --type full activation, and lvmconfig activation/KEY (bare keys, read as
    // lvmconfig's output only when asked: lvm2 itself would not take a top-level setting).
    for (const char* f : {"lvmconfig_activation.txt", "lvmconfig_full_activation.txt", "lvmconfig_keys.txt"}) {
        CAPTURE(f);
        lvm_conf c = read_lvm_conf_files({data + f}, "--config");
        c.lvmconfig_bare_keys = true;
        CHECK(int_at(c, "activation/thin_pool_autoextend_threshold") == 70);
        CHECK(int_at(c, "activation/thin_pool_autoextend_percent") == 20);
    }
    CHECK(int_at(read_lvm_conf_files({data + "lvmconfig_keys.txt"}, "--config"),
                 "activation/thin_pool_autoextend_threshold") == std::nullopt);
    const lvm_conf full = read_lvm_conf_files({data + "lvmconfig_full_activation.txt"}, "--config");
    CHECK(int_at(full, "activation/snapshot_autoextend_threshold") == 100);
    CHECK(int_at(full, "activation/vdo_pool_autoextend_percent") == 20);
    CHECK(full.find("activation/readahead").first->values.front().text == "auto");
    // lvm2 reads a setting written as a path: lvmconfig --config "activation/thin_pool_autoextend_threshold=85"
    // printed 85 (lvmconfig_path_syntax.txt).
    const lvm_conf path =
        read_lvm_conf_files({scratch("path.conf", "activation/thin_pool_autoextend_threshold=85\n")}, "--config");
    CHECK(int_at(path, "activation/thin_pool_autoextend_threshold") == 85);
}

TEST_CASE("lvm.conf: Debian's stock files set no autoextend key: lvm2's defaults apply") {
    // lvmconfig --type full activation on the stock file printed threshold 100, percent 20, monitoring 1, lvm2's
    // built-in values (lvmconfig_full_stock.txt); the file itself sets none of them.
    for (const char* v : {"lvm2_2.03.16/", "lvm2_2.03.31/"}) {
        CAPTURE(v);
        const std::string dir = std::string(PROVPOL_TEST_DATA_DIR) + "/" + v;
        const lvm_conf stock = read_lvm_conf_files({dir + "stock_lvm.conf"}, "--config");
        for (const char* k : {"activation/thin_pool_autoextend_threshold", "activation/thin_pool_autoextend_percent",
                              "activation/monitoring", "activation/vdo_pool_autoextend_threshold",
                              "activation/snapshot_autoextend_threshold"})
            CHECK(stock.find(k).first == nullptr);
        const lvm_conf full = read_lvm_conf_files({dir + "lvmconfig_full_stock.txt"}, "--config");
        const lvm2_defaults d;
        for (const char* k : {"activation/thin_pool_autoextend_threshold", "activation/thin_pool_autoextend_percent",
                              "activation/vdo_pool_autoextend_threshold", "activation/vdo_pool_autoextend_percent",
                              "activation/snapshot_autoextend_threshold", "activation/snapshot_autoextend_percent"}) {
            CAPTURE(k);
            CHECK(int_at(full, k) == d.of(k));
        }
        CHECK(full.boolean("activation/monitoring").value == d.monitoring);
        // The same from --type full over an lvm.conf that sets nothing.
        const lvm_conf empty = read_lvm_conf_files({dir + "lvmconfig_full_empty.txt"}, "--config");
        CHECK(int_at(empty, "activation/thin_pool_autoextend_threshold") == d.thin_pool_threshold);
        CHECK(int_at(empty, "activation/thin_pool_autoextend_percent") == d.thin_pool_percent);
    }
}

TEST_CASE("lvm.conf: layers, comments, sections on their own line, and errors with file and line") {
    const std::string a = scratch("a.conf",
                                  "# lvm.conf\nactivation\n{\n  thin_pool_autoextend_threshold = 80 # comment\n"
                                  "  thin_pool_autoextend_percent = 20\n  volume_list = [ \"vg\", \"vg2/lv\" ]\n}\n"
                                  "global { units = \"r\" }\n");
    const std::string b = scratch("b.conf", "activation { thin_pool_autoextend_percent = 35 }\n");
    const lvm_conf c = read_lvm_conf_files({a, b}, "--config");
    CHECK(int_at(c, "activation/thin_pool_autoextend_threshold") == 80);
    CHECK(int_at(c, "activation/thin_pool_autoextend_percent") == 35);  // the later file
    CHECK(c.find("activation/thin_pool_autoextend_percent").first->line == 1);
    CHECK(c.source("activation/thin_pool_autoextend_threshold").find("a.conf line 4") != std::string::npos);

    const std::string open_section = scratch("open.conf", "activation {\n thin_pool_autoextend_threshold = 80\n");
    CHECK(error_of([&] { (void)read_lvm_conf_files({open_section}, "--config"); }).find("a section without its '}'") !=
          std::string::npos);
    const std::string no_value = scratch("novalue.conf", "activation {\n thin_pool_autoextend_threshold =\n}\n");
    CHECK(error_of([&] { (void)read_lvm_conf_files({no_value}, "--config"); }).find("novalue.conf:3:") !=
          std::string::npos);
    // A string where lvm2 wants an integer: lvm2 warns and takes its default; the lookup says why.
    const std::string string_value = scratch("str.conf", "activation {\n thin_pool_autoextend_threshold = \"70\"\n}\n");
    const lvm_conf s = read_lvm_conf_files({string_value}, "--config");
    CHECK(s.integer("activation/thin_pool_autoextend_threshold").value == std::nullopt);
    CHECK(s.integer("activation/thin_pool_autoextend_threshold").ignored == "a string");
}

TEST_CASE("lvs --reportformat json: the pool lvm2 reported, in bytes") {
    // lvs_units_b.json: --units b --nosuffix, the pool and its thin LV; lvs_pool_suffix_b.json: --units b (a B
    // after each size), the pool alone.
    for (const char* f : {"lvs_units_b.json", "lvs_pool_suffix_b.json"}) {
        CAPTURE(f);
        const lvs_pool p = read_lvs_report(data + f, "--lvs");
        CHECK(p.vg == "vg");
        CHECK(p.name == "pool");
        CHECK(p.size == bytes(176160768));  // 168 MiB
        CHECK(p.data_percent == "59.52");
        CHECK(p.metadata_size == bytes(4194304));
        CHECK(p.metadata_percent == "11.62");
        CHECK(p.chunk == bytes(65536));
        CHECK(p.vg_free == bytes(352321536));
        CHECK(p.extent == bytes(4194304));
    }
    CHECK(read_lvs_report(data + "lvs_units_b.json", "--lvs", "vg/pool").name == "pool");
    // lvs's default report (lvs --reportformat json vg): the pool is found by its lv_attr (twi-aot---), there being
    // no segtype; every field it lacks is named at once, with its rounded sizes, and the command that adds them.
    const std::string e = error_of([&] { (void)read_lvs_report(data + "lvs_default.json", "--lvs"); });
    CHECK(e == "--lvs: '" + data +
                   "lvs_default.json': the report has no lv_metadata_size, chunk_size, vg_free and vg_extent_size "
                   "fields, and its sizes are lvs's rounded units (lv_size is '168.00m'); run lvs --reportformat json "
                   "--units b --nosuffix -o +lv_metadata_size,chunk_size,vg_free,vg_extent_size vg/pool");
    CHECK(error_of([&] {
              (void)read_lvs_report(data + "lvs_units_b.json", "--lvs", "vg/other");
          }).find("no thin pool vg/other in the report (thin pools: vg/pool)") != std::string::npos);
}

TEST_CASE("lvs reports: rounded sizes, json_std numbers, several pools, not JSON") {
    const char* row = R"({"lv_name":"%s", "vg_name":"vg", "segtype":"thin-pool", "lv_size":%s, "data_percent":"70.00",)"
                      R"( "lv_metadata_size":"4194304", "metadata_percent":"1.00", "chunk_size":"65536",)"
                      R"( "vg_free":"0", "vg_extent_size":"4194304"})";
    auto report = [&](const std::string& rows) { return "{\"report\": [{\"lv\": [" + rows + "]}]}"; };
    auto one = [&](const char* name, const char* size) {
        char buf[512];
        std::snprintf(buf, sizeof buf, row, name, size);
        return std::string(buf);
    };
    const std::string rounded = scratch("rounded.json", report(one("pool", "\"<168.00m\"")));
    CHECK(
        error_of([&] { (void)read_lvs_report(rounded, "--lvs"); })
            .find(": its sizes are lvs's rounded units (lv_size is '<168.00m'); run lvs --reportformat json --units b "
                  "--nosuffix -o +lv_metadata_size,chunk_size,vg_free,vg_extent_size vg/pool") != std::string::npos);
    const std::string std_numbers = scratch("std.json", report(one("pool", "176160768")));
    CHECK(read_lvs_report(std_numbers, "--lvs").size == bytes(176160768));
    const std::string two = scratch("two.json", report(one("a", "\"1048576\"") + "," + one("b", "\"1048576\"")));
    CHECK(error_of([&] {
              (void)read_lvs_report(two, "--lvs");
          }).find("2 thin pools in the report (vg/a, vg/b): name one with --lvs-pool VG/POOL") != std::string::npos);
    CHECK(read_lvs_report(two, "--lvs", "b").name == "b");
    const std::string text = scratch("text.json", "  LV   VG Attr\n  pool vg twi-aot---\n");
    CHECK(error_of([&] { (void)read_lvs_report(text, "--lvs"); }).find("not JSON") != std::string::npos);
}

// The `key=value` lines of a dump, without their indentation, in order.
std::vector<std::string> setting_lines(const std::string& dump) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < dump.size()) {
        const std::size_t end = dump.find('\n', start);
        std::string line = dump.substr(start, end - start);
        start = end == std::string::npos ? dump.size() : end + 1;
        line = line.substr(line.find_first_not_of('\t'));
        if (line != "}" && !(line.size() > 2 && line.compare(line.size() - 2, 2, " {") == 0)) out.push_back(line);
    }
    return out;
}

// The generated corpus (tests/data/lvm_conf_corpus: generate.py's texts, capture.sh's answers from lvm2 2.03.16 and
// 2.03.31 themselves): provpol refuses what lvm2's parser refuses, builds the tree `lvmconfig --type current`
// prints, and takes the values lvm2's own lookups (libdevmapper's dm_config_tree_find_int and _find_bool) take.
TEST_CASE("lvm.conf: the reader agrees with lvm2 on the generated corpus") {
    std::ifstream in(std::string(PROVPOL_TEST_DATA_DIR) + "/lvm_conf_corpus/expected.json");
    REQUIRE(in.good());
    const nlohmann::json doc = nlohmann::json::parse(in);
    const auto& cases = doc.at("cases");
    REQUIRE(cases.size() >= 500);
    static const char* const keys[] = {"thin_pool_autoextend_threshold", "thin_pool_autoextend_percent",
                                       "vdo_pool_autoextend_threshold",  "vdo_pool_autoextend_percent",
                                       "snapshot_autoextend_threshold",  "snapshot_autoextend_percent"};
    std::size_t refused = 0, accepted = 0, dumps = 0, values = 0, defaults = 0;
    for (const auto& c : cases) {
        const std::string text = c.at("text").get<std::string>();
        CAPTURE(text);
        lvm_conf conf;
        conf.files.emplace_back();
        bool ok = true;
        std::string error;
        try {
            parse_lvm_conf(text, "corpus:", conf.files.back());
        } catch (const usage_error& e) {
            ok = false;
            error = e.what();
        }
        for (const char* v : {"lvm2_2.03.16", "lvm2_2.03.31"}) {
            CAPTURE(v);
            const auto& r = c.at(v);
            const auto& lookups = r.at("lookups");
            CHECK(ok == !lookups.contains("refused"));
            if (!ok || lookups.contains("refused")) continue;
            for (const char* k : keys) {
                const std::string want = lookups.at(k).get<std::string>();
                const lvm_conf_int got = conf.integer(std::string("activation/") + k);
                CAPTURE(k);
                if (want == "default") {
                    CHECK(got.value == std::nullopt);
                    ++defaults;
                } else {
                    CHECK(got.value == std::optional<std::int64_t>(std::stoll(want)));
                    ++values;
                }
            }
            const std::string want = lookups.at("monitoring").get<std::string>();
            const lvm_conf_int m = conf.boolean("activation/monitoring");
            if (want == "section")
                CHECK((m.node != nullptr && !m.node->has_value));
            else if (want == "default")
                CHECK(m.value == std::nullopt);
            else
                CHECK(m.value == std::optional<std::int64_t>(std::stoll(want)));
        }
        ok ? ++accepted : ++refused;
        // Every setting `lvmconfig --type current` printed (2.03.31's) is in provpol's tree with the same value.
        // Its printer is no tree dump to compare whole: it leaves out settings its validation calls unknown (but
        // not always), the section line of a node a path made inside another section, and prints top-level
        // sections in an order of its own; lvm2's lookups above are the contract.
        const auto& r31 = c.at("lvm2_2.03.31");
        if (ok && r31.at("status").get<int>() == 0) {
            const std::string want = r31.at("current").get<std::string>();
            std::vector<std::string> ours = setting_lines(conf.files.back().dump());
            std::sort(ours.begin(), ours.end());
            for (const std::string& line : setting_lines(want)) {
                CAPTURE(line);
                CHECK(std::binary_search(ours.begin(), ours.end(), line));
            }
            ++dumps;
        }
    }
    MESSAGE(accepted << " accepted, " << refused << " refused, " << dumps << " trees, " << values << " values, "
                     << defaults << " defaults");
    CHECK(refused > 50);
    CHECK(accepted > 150);
}

TEST_CASE("lvs reports as admins run them: lv_attr finds the pool, missing fields named at once, inactive pools") {
    // The fields of lvs's default columns and the four --lvs adds (lvs_command), a thin pool by its lv_attr.
    auto row = [](const std::string& name, const std::string& attr, const std::string& data_pct,
                  const std::string& meta_pct) {
        return "{\"lv_name\":\"" + name + "\", \"vg_name\":\"vg\", \"lv_attr\":\"" + attr +
               "\", \"lv_size\":\"176160768\", \"pool_lv\":\"\", \"origin\":\"\", \"data_percent\":" + data_pct +
               ", \"metadata_percent\":" + meta_pct +
               ", \"lv_metadata_size\":\"4194304\", \"chunk_size\":\"65536\", \"vg_free\":\"0\", "
               "\"vg_extent_size\":\"4194304\"}";
    };
    auto report = [](const std::string& rows) { return "{\"report\": [{\"lv\": [" + rows + "]}]}"; };
    // A thin pool (t), its thin volume (V), and lvs -a's hidden data (T) and metadata (e) LVs: one pool.
    const std::string all = scratch("attr.json", report(row("pool", "twi-aot---", "\"59.52\"", "\"11.62\"") + "," +
                                                        row("thin", "Vwi-a-t---", "\"9.77\"", "\"\"") + "," +
                                                        row("[pool_tdata]", "Twi-ao----", "\"\"", "\"\"") + "," +
                                                        row("[pool_tmeta]", "ewi-ao----", "\"\"", "\"\"")));
    const lvs_pool p = read_lvs_report(all, "--lvs");
    CHECK(p.name == "pool");
    CHECK(p.attr == "twi-aot---");
    CHECK(p.active);
    CHECK(p.data_percent == "59.52");
    CHECK(p.size == bytes(176160768));
    // segtype wins over lv_attr when the report has both.
    const std::string typed = scratch(
        "typed.json", report("{\"segtype\":\"linear\"," + row("pool", "twi-aot---", "\"1.00\"", "\"1.00\"").substr(1)));
    CHECK(error_of([&] { (void)read_lvs_report(typed, "--lvs"); }).find("no thin pool in the report") !=
          std::string::npos);
    // An inactive pool: lvs prints Data% and Meta% empty ("json"), or null ("json_std"): read, not refused.
    for (const char* empty : {"\"\"", "null"}) {
        CAPTURE(empty);
        const std::string off = scratch("off.json", report(row("pool", "twi---tz--", empty, empty)));
        const lvs_pool q = read_lvs_report(off, "--lvs");
        CHECK(!q.active);
        CHECK(q.data_percent.empty());
        CHECK(q.inactive_words() == "inactive (lv_attr twi---tz--, Data% and Meta% empty)");
    }
    // Data% without Meta% is no inactive pool: refused as the percent it is not.
    const std::string half = scratch("half.json", report(row("pool", "twi-aot---", "\"5.00\"", "\"\"")));
    CHECK(error_of([&] {
              (void)read_lvs_report(half, "--lvs");
          }).find("vg/pool: metadata_percent is '', not a percent such as 59.52") != std::string::npos);
    // Neither segtype nor lv_attr: no pool can be told apart; named with the rest.
    const std::string bare = scratch("bare.json", report("{\"lv_name\":\"pool\", \"vg_name\":\"vg\"}"));
    CHECK(error_of([&] { (void)read_lvs_report(bare, "--lvs"); })
              .find(": the report has no lv_attr (or segtype), lv_size, data_percent, lv_metadata_size, "
                    "metadata_percent, chunk_size, vg_free and vg_extent_size fields; run lvs --reportformat json "
                    "--units b --nosuffix -o +lv_metadata_size,chunk_size,vg_free,vg_extent_size VG/POOL") !=
          std::string::npos);
    // One field missing: named alone, singular.
    const std::string one = scratch("one.json", report("{\"lv_name\":\"pool\", \"vg_name\":\"vg\", "
                                                       "\"segtype\":\"thin-pool\", \"lv_size\":\"4194304\", "
                                                       "\"data_percent\":\"1.00\", \"lv_metadata_size\":\"4194304\", "
                                                       "\"metadata_percent\":\"1.00\", \"chunk_size\":\"65536\", "
                                                       "\"vg_free\":\"0\"}"));
    CHECK(error_of([&] {
              (void)read_lvs_report(one, "--lvs");
          }).find(": the report has no vg_extent_size field; run lvs ") != std::string::npos);
}

TEST_CASE("Data% and Meta% as lvs prints them, and the most usage each stands for") {
    // lvm2 2.03.16's report (lvs_units_b.json): the thin LV holds 9.77% of 1 GiB, 100 MiB written by the capture
    // script, 1600 chunks of 64 KiB; the pool's 2688 chunks are then 59.52% used, as lvs printed.
    CHECK(lvs_shown_hundredths(lvm_usage(1600, 16384)) == 977);
    CHECK(lvs_shown_hundredths(lvm_usage(1600, 2688)) == 5952);
    // The most usage lvs prints as 59.52 holds 1600 of the 2688 chunks (the real pool), where "at most 59.52%"
    // reads 1599.
    const std::int32_t most = lvs_shown_max(5952);
    CHECK(lvs_shown_hundredths(most) == 5952);
    CHECK(lvs_shown_hundredths(most + 1) == 5953);
    std::uint64_t chunks = 0;
    while (chunks < 2688 && lvm_usage(chunks + 1, 2688) <= most) ++chunks;
    CHECK(chunks == 1600);
    // lvm2's rounding at the ends (dm_percent_to_round_float): above 0 never prints 0.00, below 100 never 100.00.
    CHECK(lvs_shown_hundredths(0) == 0);
    CHECK(lvs_shown_hundredths(1) == 1);
    CHECK(lvs_shown_hundredths(lvm_percent_100 - 1) == 9999);
    CHECK(lvs_shown_hundredths(lvm_percent_100) == 10000);
    CHECK(lvs_shown_max(10000) == lvm_percent_100);
    CHECK(lvs_shown_max(0) == 0);
    // Typed with two decimals or fewer: widened to the most lvs prints so; with more, taken as written.
    const lvs_percent_read r = lvs_percent_worst("85", 85.0);
    CHECK(r.widened);
    CHECK(lvs_shown_hundredths(r.units) == 8500);
    CHECK(lvs_shown_hundredths(r.units + 1) == 8501);
    CHECK_FALSE(lvs_percent_worst("85.001", 85.001).widened);
    CHECK(lvs_percent_worst("85.001", 85.001).units == 85001000);
    CHECK(lvs_percent_note("Data%", "85", r).find("Data% 85% taken as up to 85.00") == 0);
}

TEST_CASE("lvs reports: every pool of a VG, or of the report") {
    const auto pool = [](const char* vg, const char* name) {
        return std::string("{\"lv_name\":\"") + name + "\", \"vg_name\":\"" + vg +
               "\", \"segtype\":\"thin-pool\", \"lv_size\":\"1073741824\", \"data_percent\":\"10.00\", "
               "\"lv_metadata_size\":\"4194304\", \"metadata_percent\":\"1.00\", \"chunk_size\":\"65536\", "
               "\"vg_free\":\"2147483648\", \"vg_extent_size\":\"4194304\"}";
    };
    const std::string three = scratch("three.json", "{\"report\": [{\"lv\": [" + pool("vg", "a") + "," +
                                                        pool("vg", "b") + "," + pool("other", "c") + "]}]}");
    CHECK(read_lvs_pools(three, "--lvs").size() == 3);
    const std::vector<lvs_pool> vg = read_lvs_pools(three, "--lvs", "vg");
    REQUIRE(vg.size() == 2);
    CHECK(vg[0].name == "a");
    CHECK(vg[1].name == "b");
    CHECK(read_lvs_pools(three, "--lvs", "other/c").size() == 1);
    CHECK(error_of([&] { (void)read_lvs_report(three, "--lvs", "vg"); }).find("2 thin pools in the report") !=
          std::string::npos);
    CHECK(error_of([&] { (void)read_lvs_pools(three, "--lvs", "nope"); }).find("no thin pool nope") !=
          std::string::npos);
}
