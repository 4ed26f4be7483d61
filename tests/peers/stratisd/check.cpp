// peers.stratisd: the growth results stratisd's own tests state (cases.csv, extracted by extract.sh from
// stratis-storage/stratisd at a pinned commit), asked of provpol/extend/stratis.hpp with the constants those tests
// build with (stratis_test_constants(): stratisd's #[cfg(test)] DATA_ALLOC_SIZE and DATA_LOWATER), as
// tests/peers/README.md describes. Ends with "stratisd: N rows, C checked, L left out, F failed".
#include <provpol/extend/stratis.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace provpol;

namespace {

std::vector<std::string> split(const std::string& line) {
    std::vector<std::string> out;
    std::stringstream ss(line + ",");
    std::string f;
    while (std::getline(ss, f, ',')) out.push_back(f);
    return out;
}

std::uint64_t u64(const std::string& s) { return std::stoull(s); }

// The answer provpol gives for one check row, in the row's terms.
std::string ask(const stratis_config& c, std::map<std::string, std::string>& r) {
    if (r["rule"] == "filesystem") {
        stratis_filesystem_state s{};
        s.thin_size = bytes(u64(r["thin_size_sectors"]) * 512);
        s.fs_size = s.thin_size;  // statvfs's size taken as the device's (extract.sh says why that is safe here)
        s.fs_used = bytes(u64(r["fs_used_bytes"]));
        if (!r["size_limit_sectors"].empty()) s.size_limit = bytes(u64(r["size_limit_sectors"]) * 512);
        return std::to_string(decide_stratis_filesystem(s).new_size.count() / 512);
    }
    if (r["rule"] == "size_limit") {
        const auto l =
            stratis_size_limit(bytes(u64(r["thin_size_sectors"]) * 512), bytes(u64(r["size_limit_sectors"]) * 512));
        return l ? "ok" : "error";
    }
    if (r["rule"] == "data") {
        stratis_pool_state s{};
        s.data_size = bytes(u64(r["data_size_bytes"]));
        s.data_used = provpol::blocks(u64(r["data_used_blocks"]));
        s.available = bytes(u64(r["available_bytes"]));
        const stratis_check_decision d = decide_stratis_check(c, s);
        if (d.data == stratis_outcome::extend) return "extend:" + std::to_string(d.data_new_size.count());
        return to_text(d.data);
    }
    return "unknown rule " + r["rule"];
}

}  // namespace

TEST_CASE("peers.stratisd: every check row of stratisd's own tests") {
    std::ifstream in(PROVPOL_PEERS_CSV);
    REQUIRE(in.good());
    std::string line, commit;
    std::getline(in, line);
    REQUIRE(line.rfind("# stratis-storage/stratisd at ", 0) == 0);
    commit = line.substr(std::string("# stratis-storage/stratisd at ").size(), 40);
    while (std::getline(in, line) && line[0] == '#') {
    }
    const std::vector<std::string> header = split(line);
    REQUIRE(header.size() >= 5);
    REQUIRE(header[0] == "id");
    REQUIRE(header[4] == "reason");
    int rows = 0, checked = 0, left_out = 0, failed = 0;
    std::set<std::string> ids;
    while (std::getline(in, line)) {
        const std::vector<std::string> f = split(line);
        REQUIRE(f.size() == header.size());
        std::map<std::string, std::string> r;
        for (std::size_t i = 0; i < f.size(); ++i) r[header[i]] = f[i];
        CAPTURE(line);
        ++rows;
        CHECK(ids.insert(r["id"]).second);
        if (r["status"] == "left_out") {
            CHECK(!r["reason"].empty());
            ++left_out;
            continue;
        }
        REQUIRE(r["status"] == "check");
        CHECK(r["reason"].empty());
        CHECK(std::stoul(r["line"]) > 0);
        ++checked;
        REQUIRE(r["constants"] == "test");  // stratisd's tests build with its #[cfg(test)] constants
        const std::string got = ask(stratis_test_constants(), r);
        if (got != r["expect"]) {
            ++failed;
            std::fprintf(stderr, "FAIL: %s (%s:%s): the peer expects '%s', provpol says '%s'\n", r["id"].c_str(),
                         r["file"].c_str(), r["line"].c_str(), r["expect"].c_str(), got.c_str());
        }
    }
    std::printf("stratisd: %d rows, %d checked, %d left out, %d failed\n", rows, checked, left_out, failed);
    CHECK(failed == 0);
    CHECK(checked > 0);
    // docs/peers.md carries the counts line.
    std::ifstream docs(std::string(PROVPOL_TEST_DATA_DIR) + "/../../docs/peers.md");
    REQUIRE(docs.good());
    const std::string want = "| stratisd | `" + commit.substr(0, 12) + "` | " + std::to_string(rows) + " | " +
                             std::to_string(checked) + " | " + std::to_string(left_out) + " |";
    bool found = false;
    while (std::getline(docs, line)) found = found || line.find(want) != std::string::npos;
    CHECK_MESSAGE(found, "docs/peers.md lacks the counts line '" << want << "'");
}
