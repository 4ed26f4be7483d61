// peers.moby: the loopback sizes moby's own devicemapper tests state (cases.csv, extracted by extract.sh from
// moby/moby at the last commit with the driver), asked of provpol/extend/docker_devmapper.hpp with the loopback
// defaults those tests set in init(), as tests/peers/README.md describes. Ends with
// "moby: N rows, C checked, L left out, F failed".
#include <provpol/extend/docker_devmapper.hpp>

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

// The size provpol gives the row's loopback file, with the test's defaults as the driver's configuration.
std::string ask(std::map<std::string, std::string>& r) {
    const auto c = docker_devmapper_config::make(10, docker_block_size(bytes(std::uint64_t{64} << 10)),
                                                 docker_loop_data_size(bytes(u64(r["config_data_loopback"]))),
                                                 docker_loop_metadata_size(bytes(u64(r["config_metadata_loopback"]))));
    if (!c) return std::string(c.error().message().view());
    // A file that does not exist yet is created at the size asked for, which with no option is the default.
    const bytes def = r["which"] == "data" ? c->data_loopback() : c->metadata_loopback();
    const bytes wanted(u64(r["wanted"]));
    if (u64(r["existing"]) == 0 && wanted != def) return "the row asks a new file for other than the default";
    return std::to_string(docker_loopback_size(bytes(u64(r["existing"])), wanted).count());
}

}  // namespace

TEST_CASE("peers.moby: every check row of moby's devicemapper tests") {
    std::ifstream in(PROVPOL_PEERS_CSV);
    REQUIRE(in.good());
    std::string line, commit;
    std::getline(in, line);
    REQUIRE(line.rfind("# moby/moby at ", 0) == 0);
    commit = line.substr(std::string("# moby/moby at ").size(), 40);
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
        const std::string got = ask(r);
        if (got != r["expect"]) {
            ++failed;
            std::fprintf(stderr, "FAIL: %s (%s:%s): the peer expects '%s', provpol says '%s'\n", r["id"].c_str(),
                         r["file"].c_str(), r["line"].c_str(), r["expect"].c_str(), got.c_str());
        }
    }
    std::printf("moby: %d rows, %d checked, %d left out, %d failed\n", rows, checked, left_out, failed);
    CHECK(failed == 0);
    CHECK(checked > 0);
    // docs/peers.md carries the counts line.
    std::ifstream docs(std::string(PROVPOL_TEST_DATA_DIR) + "/../../docs/peers.md");
    REQUIRE(docs.good());
    const std::string want = "| moby | `" + commit.substr(0, 12) + "` | " + std::to_string(rows) + " | " +
                             std::to_string(checked) + " | " + std::to_string(left_out) + " |";
    bool found = false;
    while (std::getline(docs, line)) found = found || line.find(want) != std::string::npos;
    CHECK_MESSAGE(found, "docs/peers.md lacks the counts line '" << want << "'");
}
