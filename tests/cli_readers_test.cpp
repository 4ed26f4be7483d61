// The CLI's readers of an operator's files (examples/common): lvm.conf and lvmconfig's output (lvm_conf.hpp) and
// lvs's JSON report (lvs_report.hpp), on what lvm2 2.03.16 itself printed in the e2e guest
// (tests/data/lvm2_2.03.16/, captured by tests/data/capture_lvm_reports.sh) and on hand-written files for what one
// captured file cannot show. The expected values are what lvm2 printed, read off the files by eye, not provpol's.
#include "common/lvm_conf.hpp"
#include "common/lvs_report.hpp"

#include <doctest/doctest.h>

#include <cstdio>
#include <functional>
#include <string>

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

TEST_CASE("lvm.conf: lvm2's own files and lvmconfig's output") {
    // The guest's /etc/lvm/lvm.conf (threshold 70, percent 20, monitoring 1), as written.
    const lvm_conf conf = read_lvm_conf_files({data + "lvm.conf"}, "--config");
    CHECK(conf.integer("activation/thin_pool_autoextend_threshold", 0, 100, "--config") == 70);
    CHECK(conf.integer("activation/thin_pool_autoextend_percent", 0, 1000000, "--config") == 20);
    CHECK(conf.integer("activation/monitoring", 0, 1, "--config") == 1);
    CHECK(conf.find("devices/filter") != nullptr);  // an array, kept as text
    CHECK(conf.find("activation/vdo_pool_autoextend_threshold") == nullptr);
    // lvmconfig activation, lvmconfig --type full activation, and lvmconfig activation/KEY (bare keys).
    for (const char* f : {"lvmconfig_activation.txt", "lvmconfig_full_activation.txt", "lvmconfig_keys.txt"}) {
        CAPTURE(f);
        const lvm_conf c = read_lvm_conf_files({data + f}, "--config");
        CHECK(c.integer("activation/thin_pool_autoextend_threshold", 0, 100, "--config") == 70);
        CHECK(c.integer("activation/thin_pool_autoextend_percent", 0, 1000000, "--config") == 20);
    }
    const lvm_conf full = read_lvm_conf_files({data + "lvmconfig_full_activation.txt"}, "--config");
    CHECK(full.integer("activation/snapshot_autoextend_threshold", 0, 100, "--config") == 100);
    CHECK(full.integer("activation/vdo_pool_autoextend_percent", 0, 1000000, "--config") == 20);
    CHECK(full.find("activation/readahead")->text == "auto");
    CHECK(full.find("activation/readahead")->is_string);
    // lvm2 reads a setting written as a path: lvmconfig --config "activation/thin_pool_autoextend_threshold=85"
    // printed 85 (lvmconfig_path_syntax.txt); so does provpol.
    const lvm_conf path =
        read_lvm_conf_files({scratch("path.conf", "activation/thin_pool_autoextend_threshold=85\n")}, "--config");
    CHECK(path.integer("activation/thin_pool_autoextend_threshold", 0, 100, "--config") == 85);
    CHECK(read_lvm_conf_files({data + "lvmconfig_path_syntax.txt"}, "--config")
              .integer("activation/thin_pool_autoextend_threshold", 0, 100, "--config") == 85);
}

TEST_CASE("lvm.conf: layers, comments, sections on their own line, and errors with file and line") {
    const std::string a = scratch("a.conf",
                                  "# lvm.conf\nactivation\n{\n  thin_pool_autoextend_threshold = 80 # comment\n"
                                  "  thin_pool_autoextend_percent = 20\n  volume_list = [ \"vg\", \"vg2/lv\" ]\n}\n"
                                  "global { units = \"r\" }\n");
    const std::string b = scratch("b.conf", "activation { thin_pool_autoextend_percent = 35 }\n");
    const lvm_conf c = read_lvm_conf_files({a, b}, "--config");
    CHECK(c.integer("activation/thin_pool_autoextend_threshold", 0, 100, "--config") == 80);
    CHECK(c.integer("activation/thin_pool_autoextend_percent", 0, 1000000, "--config") == 35);  // the later file
    CHECK(c.find("activation/thin_pool_autoextend_percent")->line == 1);
    CHECK(c.source("activation/thin_pool_autoextend_threshold").find("a.conf line 4") != std::string::npos);

    const std::string open_section = scratch("open.conf", "activation {\n thin_pool_autoextend_threshold = 80\n");
    CHECK(error_of([&] { (void)read_lvm_conf_files({open_section}, "--config"); }).find("a section without its '}'") !=
          std::string::npos);
    const std::string no_value = scratch("novalue.conf", "activation {\n thin_pool_autoextend_threshold =\n}\n");
    CHECK(error_of([&] { (void)read_lvm_conf_files({no_value}, "--config"); }).find("novalue.conf:3:") !=
          std::string::npos);
    const std::string string_value = scratch("str.conf", "activation {\n thin_pool_autoextend_threshold = \"70\"\n}\n");
    const lvm_conf s = read_lvm_conf_files({string_value}, "--config");
    CHECK(error_of([&] {
              (void)s.integer("activation/thin_pool_autoextend_threshold", 0, 100, "--config");
          }).find("str.conf:2: activation/thin_pool_autoextend_threshold is a string") != std::string::npos);
    const std::string big = scratch("big.conf", "activation { thin_pool_autoextend_percent = 2000000 }\n");
    CHECK(error_of([&] {
              (void)read_lvm_conf_files({big}, "--config")
                  .integer("activation/thin_pool_autoextend_percent", 0, 1000000, "--config");
          }) ==
          "--config: " + big + ":1: activation/thin_pool_autoextend_percent must be in [0, 1000000], got 2000000");
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
    // lvs's default report: rounded units and too few fields; the error gives the command to run.
    const std::string e = error_of([&] { (void)read_lvs_report(data + "lvs_default.json", "--lvs"); });
    CHECK(e.find("the report has no segtype field; run lvs --reportformat json --units b --nosuffix -o ") !=
          std::string::npos);
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
    CHECK(error_of([&] {
              (void)read_lvs_report(rounded, "--lvs");
          }).find("lv_size is '<168.00m', not a byte count (lvs's default units round): run lvs") != std::string::npos);
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
