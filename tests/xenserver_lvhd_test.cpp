// Tests of provpol/extend/xenserver_lvhd.hpp: XenServer thin LVHD's size rules. Every row of
// tests/data/thin_systems/xenserver_lvhd_cases.csv was computed by sm's own Python 2 functions at tag v1.15.1
// (generate_xenserver_lvhd.sh runs them verbatim); the hand-worked cases below say where each number comes from.
#include "test_support.hpp"

#include <provpol/extend/presets.hpp>
#include <provpol/extend/xenserver_lvhd.hpp>

#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace provpol;
using namespace provpol::literals;

namespace {

std::vector<std::string> split(const std::string& line, char sep) {
    std::vector<std::string> out;
    std::stringstream ss(line);
    std::string f;
    while (std::getline(ss, f, sep)) out.push_back(f);
    if (!line.empty() && line.back() == sep) out.emplace_back();
    return out;
}

std::uint64_t u64(const std::string& s) { return std::stoull(s); }

}  // namespace

// What the functions are, as constant expressions: the preset's numbers at compile time.
static_assert(xenserver_thin_minimum() == 8_MiB);
static_assert(xenserver_allocation_quantum(1_TiB) == bytes(109951162));  // 1 TiB / 10000
static_assert(xenserver_host_pool(100_GiB).quantum_mib == 512);          // 0.5% of 100 GiB
static_assert(xenserver_host_pool(100_GiB).low_water_mib == 256);

TEST_CASE("XenServer thin LVHD: every case sm's own code computed") {
    std::ifstream in(std::string(PROVPOL_TEST_DATA_DIR) + "/thin_systems/xenserver_lvhd_cases.csv");
    REQUIRE(in.good());
    std::string line;
    std::getline(in, line);
    REQUIRE(line.rfind("# xapi-project/sm v1.15.1 at b2d54e5a1ba63d29a347dbb68c9c4a43c1d761ca", 0) == 0);
    int rows = 0, quantum = 0, vdi = 0, pool = 0, overhead = 0;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#' || line.rfind("id,", 0) == 0) continue;
        const auto f = split(line, ',');
        REQUIRE(f.size() == 5);
        CAPTURE(line);
        ++rows;
        const std::string& rule = f[1];
        if (rule == "quantum") {
            const bytes physical(u64(f[2]));
            const bytes got = f[3] == "default" ? xenserver_allocation_quantum(physical)
                                                : xenserver_allocation_quantum(physical, bytes(u64(f[3])));
            CHECK(got.count() == u64(f[4]));
            ++quantum;
        } else if (rule == "initial") {
            // xlvhd_adjust_initial_allocation: the default is 0 and a request is kept (a negative one, which bytes
            // cannot hold, is 0): the bytes a caller passes are the answer.
            CHECK((f[2] == "default" ? 0 : u64(f[2])) == u64(f[4]));
        } else if (rule == "overhead_empty") {
            CHECK(xenserver_vhd_overhead_empty(bytes(u64(f[2]))).count() == u64(f[4]));
            ++overhead;
        } else if (rule == "overhead_bitmap") {
            CHECK(xenserver_vhd_bitmaps(bytes(u64(f[2]))).count() == u64(f[4]));
            ++overhead;
        } else if (rule == "full_lv") {
            CHECK(xenserver_full_lv_size(bytes(u64(f[2]))).count() == u64(f[4]));
        } else if (rule == "vdi_lv") {
            CHECK(xenserver_vdi_lv_size(bytes(u64(f[2])), bytes(u64(f[3]))).count() == u64(f[4]));
            ++vdi;
        } else if (rule == "host_pool") {
            const auto want = split(f[4], ';');
            REQUIRE(want.size() == 2);
            const xenserver_host_pool_config c = xenserver_host_pool(bytes(u64(f[2])));
            CHECK(c.quantum_mib == u64(want[0]));
            CHECK(c.low_water_mib == u64(want[1]));
            ++pool;
        } else {
            FAIL("unknown rule " << rule);
        }
    }
    CHECK(rows == 411);
    CHECK(overhead == 28);
    CHECK(quantum == 236);
    CHECK(vdi == 117);
    CHECK(pool == 13);
}

TEST_CASE("XenServer thin LVHD: the quantum by hand (util.py:1751-1761)") {
    // 200 GiB = 214748364800 bytes: the default / 10000 = 21474836 lies in [/ 50000, / 4000] = [4294967, 53687091]
    // and above 16 MiB, so it stands.
    CHECK(xenserver_allocation_quantum(200_GiB) == bytes(21474836));  // 214748364800 / 10000, above 16 MiB
    CHECK(xenserver_allocation_quantum(100_GiB) == 16_MiB);           // 10737418 < 16 MiB: the absolute floor
    // A request above physical / 4000 is cut to it; under physical / 50000 raised to it; both then floored at 16 MiB.
    CHECK(xenserver_allocation_quantum(10_TiB, 10_GiB) == bytes(10995116277760 / 4000));
    CHECK(xenserver_allocation_quantum(10_TiB, 1_MiB) == bytes(10995116277760 / 50000));
    CHECK(xenserver_allocation_quantum(10_TiB, 0_B) == bytes(10995116277760 / 50000));  // an explicit 0 is a request
    CHECK(xenserver_allocation_quantum(1_GiB, 1_GiB) == 16_MiB);
    CHECK(xenserver_tapdisk_quantum_mib(bytes(21474836)) == 20);  // int(aq / MiB): 20.48 MiB -> 20
}

TEST_CASE("XenServer thin LVHD: a new VDI's LV (LVHDSR.py:1740-1745)") {
    // The metadata of a 2 TiB VHD: 3 KiB + 4 x 1048576 blocks = 4197376 (a multiple of 512), + 131072 bitmap bytes =
    // 4328448, up to 4 KiB: 4329472; up to 4 MiB: 8 MiB.
    CHECK(xenserver_vhd_overhead_empty(2_TiB) == bytes(4329472));
    CHECK(xenserver_vdi_lv_size(10_GiB) == 8_MiB);
    CHECK(xenserver_vdi_lv_size(10_GiB, 200_MiB) == 200_MiB);
    CHECK(xenserver_vdi_lv_size(10_GiB, 8_MiB + 1_B) == 12_MiB);
    // A full 10 GiB VDI: 10 GiB + 4329472 + 5120 bitmaps x 4 KiB, up to 4 MiB: 10 GiB + 28 MiB.
    CHECK(xenserver_full_lv_size(10_GiB) == 10_GiB + 28_MiB);
    CHECK(xenserver_vdi_lv_size(10_GiB, 1_TiB) == 10_GiB + 28_MiB);
}

TEST_CASE("XenServer thin LVHD: the host's free pool (lvutil.py:288-294, freepool.ml:259)") {
    CHECK(xenserver_host_pool(1_GiB).quantum_mib == 160);
    CHECK(xenserver_host_pool(1_GiB).low_water_mib == 80);
    CHECK(xenserver_host_pool(1_TiB).quantum_mib == 5242);    // 5242.88 truncated
    CHECK(xenserver_host_pool(1_TiB).low_water_mib == 2621);  // 2621.44 truncated
    const xenserver_host_pool_config c{160, 80};
    CHECK_FALSE(decide_xenserver_host_pool(c, 80).top_up);  // strictly under the mark
    const auto d = decide_xenserver_host_pool(c, 79);
    CHECK(d.top_up);
    CHECK(d.add_mib == 160);
    CHECK(d.new_free_mib == 239);
    // xenvm's own development setup (setup.sh, test.ml): 128 MiB and 8 MiB, the figures the issue quoted.
    CHECK(decide_xenserver_host_pool({128, 8}, 7).add_mib == 128);
    CHECK(decide_xenserver_host_pool({128, 8}, 8).add_mib == 0);
}

TEST_CASE("XenServer thin LVHD: the preset by name") {
    CHECK(parse_extend_preset("xenserver-thin-lvhd").value() == extend_preset::xenserver_thin_lvhd);
    CHECK_FALSE(lvm_config_of(extend_preset::xenserver_thin_lvhd).has_value());
    CHECK_FALSE(vdsm_config_of(extend_preset::xenserver_thin_lvhd).has_value());
}
