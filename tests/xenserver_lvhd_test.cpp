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
std::string message(const error& e) { return std::string(e.message().view()); }

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
    int rows = 0, quantum = 0, vdi = 0, refused = 0, pool = 0, overhead = 0;
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
        } else if (rule == "vdi_create") {
            const bytes asked(u64(f[2])), initial(u64(f[3]));
            const auto got = xenserver_new_vdi(asked, initial);
            if (f[4] == "VDISize") {
                REQUIRE_FALSE(got.has_value());
                CHECK(got.error().setting() == text_view("virtual_size"));
                ++refused;
            } else {
                const auto want = split(f[4], ';');
                REQUIRE(want.size() == 3);
                REQUIRE(got.has_value());
                CHECK(got->virtual_size.count() == u64(want[0]));
                CHECK(got->lv_size.count() == u64(want[1]));
                CHECK(got->full_lv_size.count() == u64(want[2]));
                CHECK(xenserver_vdi_lv_size(asked, initial).count() == u64(want[1]));
            }
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
    CHECK(rows == 574);
    CHECK(overhead == 28);
    CHECK(quantum == 236);
    CHECK(vdi == 280);
    CHECK(refused == 70);
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

TEST_CASE("XenServer thin LVHD: a new VDI's virtual size as LVHDVDI.create normalises it (LVHDSR.py:1687-1694)") {
    // sm v1.15.1 LVHDVDI.create: `if size / 1024 / 1024 > self.MAX_VDI_SIZE_MB` refuses (2093051, in whole MiB, so
    // everything under 2093052 MiB passes), `if size < self.MIN_VIRT_SIZE` raises to 2 MiB, and
    // util.roundup(VHD_SIZE_INC, size) rounds up to 2 MiB: the VHD and its full LV are of that size.
    static_assert(xenserver_normalized_virtual_size(0_B) == 2_MiB);
    static_assert(xenserver_normalized_virtual_size(1_B) == 2_MiB);
    static_assert(xenserver_normalized_virtual_size(2_MiB + 1_B) == 4_MiB);
    static_assert(xenserver_normalized_virtual_size(10_GiB + 3_B) == 10_GiB + 2_MiB);
    static_assert(xenserver_normalized_virtual_size(bytes::max()) == bytes(~std::uint64_t{0} - (2_MiB).count() + 1));
    // A 2 MiB + 1 VDI is a 4 MiB one: its full LV is roundup(4 MiB, 4 MiB + 4329472 + 2 x 4 KiB) = 12 MiB, which an
    // initial allocation of 1 TiB gets; sized on the 2 MiB + 1 asked, it would be 8 MiB.
    CHECK(xenserver_vdi_lv_size(2_MiB + 1_B, 1_TiB) == 12_MiB);
    CHECK(xenserver_full_lv_size(2_MiB + 1_B) == 8_MiB);
    const auto tiny = xenserver_new_vdi(1_B, 1_TiB);
    REQUIRE(tiny.has_value());
    CHECK(tiny->virtual_size == 2_MiB);
    CHECK(tiny->lv_size == 8_MiB);  // roundup(4 MiB, 2 MiB + 4329472 + 4 KiB)
    CHECK(tiny->full_lv_size == 8_MiB);
    // The cap: 2093052 MiB - 1 byte is 2093051 whole MiB and passes (and becomes 2093052 MiB, above the cap); one
    // byte more is refused, and so is 2 TiB.
    constexpr bytes last = bytes(std::uint64_t{2093052} * 1048576 - 1);
    static_assert(xenserver_new_vdi(last).value().virtual_size == bytes(std::uint64_t{2093052} * 1048576));
    CHECK_FALSE(xenserver_new_vdi(last + 1_B).has_value());
    CHECK_FALSE(xenserver_new_vdi(2_TiB).has_value());
    CHECK(message(xenserver_new_vdi(2_TiB).error()) == "virtual_size must be in [0, 2194724093951], got 2TiB");
    CHECK_FALSE(xenserver_new_vdi(bytes::max()).has_value());
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

TEST_CASE("XenServer thin LVHD: the host's free pool (lvutil.py:288-294, freepool.ml:250-296, :87-94)") {
    CHECK(xenserver_host_pool(1_GiB).quantum_mib == 160);
    CHECK(xenserver_host_pool(1_GiB).low_water_mib == 80);
    CHECK(xenserver_host_pool(1_TiB).quantum_mib == 5242);    // 5242.88 truncated
    CHECK(xenserver_host_pool(1_TiB).low_water_mib == 2621);  // 2621.44 truncated
    // top_up_host compares the free LV's extents x 4 MiB with the mark, strictly.
    const xenserver_host_pool_config c{160, 80};
    CHECK_FALSE(decide_xenserver_host_pool(c, 20).top_up);  // 80 MiB: not under 80
    const auto d = decide_xenserver_host_pool(c, 19);       // 76 MiB
    CHECK(d.top_up);
    CHECK(d.add_extents == 40);
    CHECK(d.add_mib == 160);
    CHECK(d.new_free_mib == 236);
    // perform_expand_free asks for Int64.div extra_size extent_size_mib extents: a quantum that is not a multiple of
    // 4 MiB is rounded down. A 1 TiB VG: 5242 MiB -> 1310 extents, 5240 MiB; its mark 2621 MiB is 655.25 extents, so
    // 655 extents (2620 MiB) are under it and 656 (2624 MiB) are not.
    const xenserver_host_pool_config t = xenserver_host_pool(1_TiB);
    CHECK(decide_xenserver_host_pool(t, 655).top_up);
    CHECK_FALSE(decide_xenserver_host_pool(t, 656).top_up);
    CHECK(decide_xenserver_host_pool(t, 0).add_extents == 1310);
    CHECK(decide_xenserver_host_pool(t, 0).add_mib == 5240);
    // A 33 GiB VG: 33 x 1024 x 0.005 = 168.96 -> 168 MiB, 42 extents; 34 GiB: 174.08 -> 174 MiB -> 43 extents, 172.
    CHECK(decide_xenserver_host_pool(xenserver_host_pool(33_GiB), 0).add_mib == 168);
    CHECK(decide_xenserver_host_pool(xenserver_host_pool(34_GiB), 0).add_mib == 172);
    // Fewer free extents in the VG than the quantum needs: OnlyThisMuchFree, and the LV takes all the VG's free space.
    const auto short_vg = decide_xenserver_host_pool(c, 0, 7);
    CHECK(short_vg.add_extents == 7);
    CHECK(short_vg.add_mib == 28);
    CHECK(decide_xenserver_host_pool(c, 0, 0).add_mib == 0);
    CHECK(decide_xenserver_host_pool(c, 0, 40).add_extents == 40);
    // xenvm's own development setup (setup.sh, test.ml): 128 MiB and 8 MiB.
    CHECK(decide_xenserver_host_pool({128, 8}, 1).add_mib == 128);
    CHECK(decide_xenserver_host_pool({128, 8}, 2).add_mib == 0);
    // A quantum under one extent asks for none.
    CHECK(decide_xenserver_host_pool({3, 8}, 0).add_mib == 0);
    CHECK(decide_xenserver_host_pool(c, ~std::uint64_t{0}).new_free_mib == ~std::uint64_t{0});
}

TEST_CASE("XenServer thin LVHD: the preset by name") {
    CHECK(parse_extend_preset("xenserver-thin-lvhd").value() == extend_preset::xenserver_thin_lvhd);
    CHECK_FALSE(lvm_config_of(extend_preset::xenserver_thin_lvhd).has_value());
    CHECK_FALSE(vdsm_config_of(extend_preset::xenserver_thin_lvhd).has_value());
}
