// Tests of provpol/log_size/xfs_reservations.hpp and of the mkfs.xfs 6.13 and 7.2 presets (and 6.1's V4 rows with
// 512-byte blocks). The parity data (tests/data/mkfs_xfs_6.13.csv, mkfs_xfs_7.2.csv, mkfs_xfs_6.1_v4.csv) comes
// from the real mkfs.xfs 6.13.0, 7.2.0 and 6.1.0 run by `tests/data/generate_mkfs_parity.sh modern` in Debian
// roots; nothing here is computed by provpol first. The minimum log is never given: provpol computes it.
#include <provpol/log_size.hpp>
#include <provpol/log_size/xfs_reservations.hpp>
#include <provpol/random.hpp>

#include "log_size_csv.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

using namespace provpol;
using namespace provpol::literals;
using provpol_test::csv_table;
using provpol_test::num;
using provpol_test::read_csv;

namespace {

// A row of a modern sweep: the options as given to mkfs.xfs, and what it printed.
struct modern_row {
    std::string where;
    fs_geometry_options o;
    std::string verdict, message;
    bool has_geometry = false;
    std::uint64_t data_blocks = 0, agcount = 0, agsize = 0, log_blocks = 0, log_sunit = 0, min_log = 0;
    bool crc = false, finobt = false, reflink = false, rmapbt = false, nrext64 = false, parent = false;
};

// "rmapbt=0+reflink=0" -> the features given.
xfs_features parse_features(const std::string& text) {
    xfs_features f;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('+', start);
        if (end == std::string::npos) end = text.size();
        const std::string item = text.substr(start, end - start);
        const std::string key = item.substr(0, item.find('='));
        const bool on = item.substr(item.find('=') + 1) == "1";
        if (key == "crc")
            f.crc = on;
        else if (key == "finobt")
            f.finobt = on;
        else if (key == "reflink")
            f.reflink = on;
        else if (key == "rmapbt")
            f.rmapbt = on;
        else if (key == "nrext64")
            f.nrext64 = on;
        else if (key == "parent")
            f.parent = on;
        else
            FAIL("unknown feature " << key);
        start = end + 1;
    }
    return f;
}

std::vector<modern_row> modern_rows(const std::string& file, const std::string& version) {
    const csv_table t = read_csv(file);
    REQUIRE(!t.comments.empty());
    CHECK(t.comments[0].find("mkfs.xfs version " + version) != std::string::npos);
    std::vector<modern_row> out;
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
        const auto& r = t.rows[i];
        auto at = [&](const char* c) -> const std::string& { return r[t.col(c)]; };
        modern_row x;
        x.where = file + " row " + std::to_string(i + 1) + " (" + at("case") + ", " + at("device_size") +
                  " bytes, bs " + at("block_size") + ", features '" + at("features_opt") + "', concurrency '" +
                  at("log_concurrency") + "', rotational '" + at("rotational") + "')";
        x.o.device_size = bytes(num(at("device_size")));
        x.o.block_size = static_cast<std::uint32_t>(num(at("block_size")));
        x.o.sector_size = static_cast<std::uint32_t>(num(at("sector_size")));
        x.o.agcount = num(at("agcount_opt"));
        x.o.agsize = bytes(num(at("agsize_opt")));
        x.o.stripe_unit = bytes(num(at("su")));
        x.o.stripe_width = static_cast<std::uint32_t>(num(at("sw")));
        x.o.log_stripe_unit = bytes(num(at("log_su")));
        x.o.features = parse_features(at("features_opt"));
        x.o.log_concurrency =
            at("log_concurrency").empty() ? -1 : static_cast<std::int64_t>(num(at("log_concurrency")));
        x.o.device = at("rotational").empty()  ? xfs_device::file
                     : at("rotational") == "1" ? xfs_device::rotational
                                               : xfs_device::non_rotational;
        x.o.cpus = static_cast<std::uint32_t>(num(at("cpus")));
        x.o.allow_unsupported = at("unsupported") == "1";
        x.verdict = at("verdict");
        x.message = at("message");
        x.has_geometry = !at("data_blocks").empty();
        x.data_blocks = num(at("data_blocks"));
        x.agcount = num(at("agcount"));
        x.agsize = num(at("agsize_blocks"));
        x.log_blocks = num(at("log_blocks"));
        x.log_sunit = num(at("log_sunit_blocks"));
        x.min_log = num(at("min_log_blocks"));
        x.crc = at("crc") == "1";
        x.finobt = at("finobt") == "1";
        x.reflink = at("reflink") == "1";
        x.rmapbt = at("rmapbt") == "1";
        x.nrext64 = at("nrext64") == "1";
        x.parent = at("parent") == "1";
        out.push_back(x);
    }
    return out;
}

// The reason provpol gives for a verdict, and the words of mkfs.xfs's own message for it.
struct reason_words {
    log_reason reason;
    const char* words;
};
constexpr reason_words reasons[] = {
    {log_reason::none, ""},
    {log_reason::fs_too_small, "Filesystem must be larger than 300M"},
    {log_reason::log_too_small, "Log size must be at least 64M"},
    {log_reason::single_ag, "at least 2 superblocks for redundancy"},
    {log_reason::ag_too_small_for_log_floor, "is too small to hold the minimum 64MiB log"},
    {log_reason::data_too_small, "of data subvolume is too small"},
    {log_reason::invalid_ag_geometry, "agsize"},
    {log_reason::ag_too_small_for_log, "smaller than min log size"},
    {log_reason::log_below_minimum, "too small, minimum size is"},
    {log_reason::log_crosses_ag, "Due to stripe alignment"},
};

const reason_words& reason_of(const std::string& verdict) {
    const std::string v = verdict == "ok" ? "none" : verdict.rfind("error:", 0) == 0 ? verdict.substr(6) : verdict;
    for (const reason_words& r : reasons)
        if (v == to_text(r.reason)) return r;
    FAIL("unknown verdict " << verdict);
    return reasons[0];
}

// Checks a decision against a row; true when everything matched (counted by the callers).
bool check_modern_row(const modern_row& x, const fs_geometry& g, xfsprogs_version v, const log_size_decision& d) {
    INFO(x.where);
    bool same = true;
    auto expect = [&same](bool ok) {
        CHECK(ok);
        same = same && ok;
    };
    const reason_words& want = reason_of(x.verdict);
    // The verdict, and the tool's own reason for it. With --unsupported mkfs formats what it would refuse and
    // says nothing: provpol says supported (and may name the refusal it overrode).
    if (x.o.allow_unsupported && want.reason == log_reason::none) {
        expect(d.supported);
        expect(!is_hard(d.reason));
    } else {
        expect(to_text(d.reason) == std::string(to_text(want.reason)));
        expect(d.supported == (want.reason == log_reason::none));
        expect(x.message.find(want.words) != std::string::npos);
    }
    if (x.has_geometry) {
        expect(d.data_blocks == x.data_blocks);
        expect(d.agcount == x.agcount);
        expect(d.agsize_blocks == x.agsize);
        expect(d.log_blocks == x.log_blocks);
        expect(d.log_sunit_blocks == x.log_sunit);
        // The features this version formats with, as mkfs printed them.
        const auto f = g.features(v);
        expect(f.crc == x.crc && f.finobt == x.finobt && f.reflink == x.reflink && f.rmapbt == x.rmapbt &&
               f.nrext64 == x.nrext64 && f.parent == x.parent);
    }
    if (x.min_log != 0) {  // the minimum mkfs named when asked for a 2 MiB log
        expect(d.min_log_computed);
        expect(d.min_log_blocks == x.min_log);
    }
    return same;
}

// The decision of the version's preset (6.1, 6.13 or 7.2).
log_size_decision xfsprogs_layout_decision(const fs_geometry& g, xfsprogs_version v) {
    switch (v) {
        case xfsprogs_version::v6_1:
            return xfsprogs_6_1().decide(g);
        case xfsprogs_version::v6_13:
            return xfsprogs_6_13().decide(g);
        case xfsprogs_version::v7_2:
            return xfsprogs_7_2().decide(g);
    }
    return log_size_decision{};
}

struct sweep_summary {
    std::size_t rows = 0, exact = 0, min_logs = 0, refused = 0, errors = 0, concurrency = 0;
};

template <class Policy>
sweep_summary check_sweep(const std::string& file, const std::string& version, Policy policy, xfsprogs_version v) {
    const auto rows = modern_rows(file, version);
    sweep_summary s;
    for (const modern_row& x : rows) {
        const auto g = fs_geometry::make(x.o);
        REQUIRE_MESSAGE(g.has_value(), x.where);
        const log_size_decision d = policy.decide(*g);
        ++s.rows;
        s.exact += check_modern_row(x, *g, v, d) ? 1U : 0U;
        s.min_logs += x.min_log != 0 ? 1U : 0U;
        s.errors += x.verdict.rfind("error:", 0) == 0 ? 1U : 0U;
        s.refused += x.verdict != "ok" && x.verdict.rfind("error:", 0) != 0 ? 1U : 0U;
        s.concurrency += d.decided_by == log_step::concurrency ? 1U : 0U;
    }
    MESSAGE("mkfs.xfs " << version << ": " << s.exact << " of " << s.rows << " rows exact (" << s.min_logs
                        << " minimum logs, " << s.refused << " refusals, " << s.errors << " errors, " << s.concurrency
                        << " logs decided by concurrency)");
    return s;
}

}  // namespace

// --- compile-time checks: the numbers, computed -----------------------------------------------------

namespace {
constexpr xfs_sb_params sb_4gib(bool parent) {
    xfs_sb_params sb;  // 4 KiB blocks, 512-byte sectors, rmapbt, reflink, nrext64: 6.13's defaults
    sb.agblocks = 262144;
    sb.parent = parent;
    return sb;
}
}  // namespace

// A default 4 GiB filesystem: minimum log 3693 blocks under 6.13, 2001 under 7.2 (parent pointers).
static_assert(xfs_log_minimum(sb_4gib(false)).min_log_blocks == 3693);
static_assert(xfs_log_minimum(sb_4gib(true)).min_log_blocks == 2001);
// -l concurrency=64: max_tx_bytes x 3 x 64 / 2 = 102600 and 50175 blocks.
static_assert(xfs_log_minimum(sb_4gib(false)).max_tx_bytes * 96 / 4096 == 102600);
static_assert(xfs_log_minimum(sb_4gib(true)).max_tx_bytes * 96 / 4096 == 50175);
static_assert(noexcept(xfs_log_minimum(std::declval<const xfs_sb_params&>())));

// --- parity -------------------------------------------------------------------------------------------------

TEST_CASE("xfsprogs_6_13 matches every mkfs.xfs 6.13.0 row, the minimum log computed") {
    const sweep_summary s = check_sweep("mkfs_xfs_6.13.csv", "6.13.0", xfsprogs_6_13(), xfsprogs_version::v6_13);
    CHECK(s.rows >= 200);
    CHECK(s.exact == s.rows);
    CHECK(s.min_logs >= 200);
    CHECK(s.concurrency >= 20);
    CHECK(s.refused >= 4);
}

TEST_CASE("xfsprogs_7_2 matches every mkfs.xfs 7.2.0 row, the minimum log computed") {
    const sweep_summary s = check_sweep("mkfs_xfs_7.2.csv", "7.2.0", xfsprogs_7_2(), xfsprogs_version::v7_2);
    CHECK(s.rows >= 200);
    CHECK(s.exact == s.rows);
    CHECK(s.min_logs >= 200);
    CHECK(s.concurrency >= 20);
    CHECK(s.refused >= 4);
}

TEST_CASE("xfsprogs_6_1 matches mkfs.xfs 6.1.0's V4 rows with 512-byte blocks") {
    const sweep_summary s = check_sweep("mkfs_xfs_6.1_v4.csv", "6.1.0", xfsprogs_6_1(), xfsprogs_version::v6_1);
    CHECK(s.rows >= 20);
    CHECK(s.exact == s.rows);
}

TEST_CASE("the concurrency-sized log: the issue's 64-CPU SSD, and what 6.1 does with the option") {
    fs_geometry_options o;
    o.device_size = 4_GiB;
    o.device = xfs_device::non_rotational;
    o.cpus = 64;
    const auto g = fs_geometry::make(o).value();
    const auto d13 = xfsprogs_6_13().decide(g);
    CHECK(d13.log_blocks == 102600);  // the same as -l concurrency=64 (see the sweep)
    CHECK(d13.decided_by == log_step::concurrency);
    CHECK(d13.log_concurrency == 64);
    CHECK(d13.max_tx_bytes == 4377600);
    const auto d72 = xfsprogs_7_2().decide(g);
    CHECK(d72.log_blocks == 50175);
    // The same device as an image file or a disk: no concurrency, the 64 MiB floor.
    o.device = xfs_device::rotational;
    CHECK(xfsprogs_6_13().decide(fs_geometry::make(o).value()).log_blocks == 16384);
    o.device = xfs_device::file;
    CHECK(xfsprogs_6_13().decide(fs_geometry::make(o).value()).decided_by == log_step::floor);
    // 6.1 ignores the device but has no -l concurrency and no parent pointers: mkfs.xfs 6.1 rejects them.
    CHECK(xfsprogs_6_1().decide(g).log_blocks == 16384);
    o.log_concurrency = 8;
    CHECK(xfsprogs_6_1().decide(fs_geometry::make(o).value()).reason == log_reason::unsupported_option);
    o.log_concurrency = -1;
    o.features.parent = false;
    CHECK(xfsprogs_6_1().decide(fs_geometry::make(o).value()).reason == log_reason::unsupported_option);
    // A v4 geometry with 512-byte blocks is mkfs.xfs's alone: mke2fs has no 512-byte blocks.
    fs_geometry_options v4;
    v4.device_size = 1_GiB;
    v4.block_size = 512;
    v4.features.crc = false;
    const auto gv4 = fs_geometry::make(v4).value();
    CHECK(xfsprogs_6_1().decide(gv4).supported);
    CHECK(e2fsprogs_1_47().decide(gv4).reason == log_reason::unsupported_option);
    CHECK_FALSE(e2fsprogs_1_47().decide(gv4).supported);
    // Under 1 GiB of data the concurrency is not used (calc_concurrency_logblocks).
    fs_geometry_options small;
    small.device_size = 1023_MiB;
    small.log_concurrency = 256;
    CHECK(xfsprogs_6_13().decide(fs_geometry::make(small).value()).log_blocks == 16384);
    // -l concurrency=1 means the CPU count.
    small.device_size = 4_GiB;
    small.log_concurrency = 1;
    small.cpus = 64;
    CHECK(xfsprogs_6_13().decide(fs_geometry::make(small).value()).log_blocks == 102600);
}

TEST_CASE("-d concurrency=N at AGs of exactly 4 GiB per thread: the AG size is the floor of the blocks per thread") {
    // mkfs.xfs 6.13.0 (Debian 13 root) and 7.2.0 (unstable root), mkfs.xfs -N -f -d concurrency=N on image files of
    // 16 GiB and 16 GiB + 4 KiB and + 8 KiB: with 4 threads (the default AG count of a 16 GiB device) every size gives
    // agcount=4, agsize=1048576 blks, blocks=4194304 (the 1 or 2 blocks over dropped with the last AG); with 5
    // threads 4 AGs of 1048576, 1048577 and 1048577 blocks, the default geometry's size rounded up.
    struct row {
        std::uint64_t extra, threads, agsize, blocks;
    };
    const row rows[] = {{0, 4, 1048576, 4194304}, {4096, 4, 1048576, 4194304}, {8192, 4, 1048576, 4194304},
                        {0, 5, 1048576, 4194304}, {4096, 5, 1048577, 4194305}, {8192, 5, 1048577, 4194306}};
    for (const row& r : rows) {
        for (log_preset p : {log_preset::xfsprogs_6_13, log_preset::xfsprogs_7_2}) {
            CAPTURE(r.extra);
            CAPTURE(r.threads);
            fs_geometry_options o;
            o.device_size = bytes((16_GiB).count() + r.extra);
            o.data_concurrency = static_cast<std::int64_t>(r.threads);
            const log_size_decision d = decide_log_size(p, fs_geometry::make(o).value());
            CHECK(d.agcount == 4);
            CHECK(d.agsize_blocks == r.agsize);
            CHECK(d.data_blocks == r.blocks);
        }
    }
}

TEST_CASE(
    "-d concurrency=N sizes the AGs on any device, before -d agcount and agsize (calculate_initial_ag_geometry)") {
    // Expected values: xfstests' tests/xfs/614.out.lba512 (kdave/xfstests 63a29724), lines 73, 87, 130, 139 and
    // 176, for mkfs.xfs -N -d concurrency=C -l concurrency=C on an image file; tests/peers/xfstests has all 640.
    auto run = [](bytes size, std::int64_t c) {
        fs_geometry_options o;
        o.device_size = size;
        o.data_concurrency = c;
        o.log_concurrency = c;
        return xfsprogs_6_13().decide(fs_geometry::make(o).value());
    };
    CHECK(run(256_GiB, 40).agcount == 40);
    CHECK(run(256_GiB, 40).log_blocks == 64125);
    CHECK(run(512_GiB, 160).agcount == 128);
    CHECK(run(16_TiB, 96).agcount == 96);
    CHECK(run(64_TiB, 40).agcount == 64);
    CHECK(run(1024_TiB, 512).agcount == 1024);
    // 0 keeps the default geometry, even on a non-rotational device (mkfs only takes the CPU count when the
    // option is not given); 1 is the CPU count, and no CPU count known leaves the default too. 1 TiB makes 4 AGs
    // by default and 16 for 16 threads (614.out.lba512 lines 90 and 93).
    fs_geometry_options o;
    o.device_size = 1_TiB;
    o.device = xfs_device::non_rotational;
    o.cpus = 16;
    CHECK(xfsprogs_6_13().decide(fs_geometry::make(o).value()).agcount == 16);
    o.data_concurrency = 0;
    CHECK(xfsprogs_6_13().decide(fs_geometry::make(o).value()).agcount == 4);
    o.device = xfs_device::file;
    o.data_concurrency = 1;
    CHECK(xfsprogs_6_13().decide(fs_geometry::make(o).value()).agcount == 16);
    o.cpus = 0;
    CHECK(xfsprogs_6_13().decide(fs_geometry::make(o).value()).agcount == 4);
    // mkfs.xfs 6.1 has no -d concurrency.
    CHECK(xfsprogs_6_1().decide(fs_geometry::make(o).value()).reason == log_reason::unsupported_option);
    // It conflicts with -d agcount and -d agsize, and mkfs.xfs keeps it in an int.
    o.agcount = 8;
    CHECK(std::string(fs_geometry::make(o).error().message().view()) ==
          "data_concurrency (1) cannot be given with agcount (8)");
    o.agcount = 0;
    o.agsize = 1_GiB;
    CHECK(std::string(fs_geometry::make(o).error().message().view()) ==
          "data_concurrency (1) cannot be given with agsize (1GiB)");
    o.agsize = bytes(0);
    o.data_concurrency = std::int64_t{1} << 31;
    CHECK(std::string(fs_geometry::make(o).error().message().view()) ==
          "data_concurrency must be in [-1, 2147483647], got 2147483648");
}

TEST_CASE("the AG geometry of a non-rotational device follows the CPU count (calc_concurrency_ag_geometry)") {
    // Hand-derived from mkfs.xfs 6.13's calc_concurrency_ag_geometry (the sweep machine has 2 CPUs, fewer than
    // the default 4 AGs, so the sweep only shows the default): 1 TiB on 16 CPUs gives 16 AGs of 64 GiB; 40 GiB
    // on 64 CPUs gives 10 AGs of 4 GiB (AGs under 4 GiB are avoided); 2 CPUs keep the default 4.
    auto ags = [](bytes size, std::uint32_t cpus) {
        fs_geometry_options o;
        o.device_size = size;
        o.device = xfs_device::non_rotational;
        o.cpus = cpus;
        return xfsprogs_6_13().decide(fs_geometry::make(o).value()).agcount;
    };
    CHECK(ags(1_TiB, 16) == 16);
    CHECK(ags(40_GiB, 64) == 10);
    CHECK(ags(1_TiB, 2) == 4);
    CHECK(ags(64_TiB, 256) == 256);  // 256 GiB AGs
    CHECK(ags(100_TiB, 64) == 100);  // fewer CPUs than the default 101 AGs (the last, 100 blocks, dropped)
    // The boundary: 16 GiB + 4 KiB holds exactly 4 AGs of 4 GiB, no more than the default 4: mkfs keeps the
    // default geometry (AGs of 1048577 blocks) rather than 4 AGs of 1048576 and a dropped 1-block tail.
    fs_geometry_options o;
    o.device_size = bytes((16_GiB).count() + 4096);
    o.device = xfs_device::non_rotational;
    o.cpus = 64;
    const auto d = xfsprogs_6_13().decide(fs_geometry::make(o).value());
    CHECK(d.agsize_blocks == 1048577);
    CHECK(d.data_blocks == 4194305);
}

TEST_CASE("the reservation steps of every geometry agree with the direct computation at every AG size") {
    // fs_geometry::make keeps the minimum log and max_tx_bytes as step functions of the AG size; each step
    // starts where a btree grows a level. Checked against xfs_log_minimum at and just below every step, for every
    // block size, both sector sizes and each version's features.
    std::size_t steps = 0;
    unsigned most = 0;
    for (std::uint32_t bs = 512; bs <= 65536; bs *= 2)
        for (std::uint32_t sect : {512U, 4096U}) {
            if (sect > bs) continue;
            for (bool crc : {true, false}) {
                if (bs == 512 && crc) continue;
                fs_geometry_options o;
                o.block_size = bs;
                o.sector_size = sect;
                o.features.crc = crc;
                const auto g = fs_geometry::make(o).value();
                for (unsigned v = 0; v < 3; ++v) {
                    const auto& x = detail::fs_geometry_access::xfs(g, static_cast<xfsprogs_version>(v));
                    most = x.step_count > most ? x.step_count : most;
                    xfs_sb_params sb;
                    sb.block_log = detail::floor_log2(bs);
                    sb.sector_size = sect;
                    sb.log_sunit_bytes = sect > 512 ? bs : 0;
                    sb.crc = x.features.crc;
                    sb.finobt = x.features.finobt;
                    sb.reflink = x.features.reflink;
                    sb.rmapbt = x.features.rmapbt;
                    sb.nrext64 = x.features.nrext64;
                    sb.parent = x.features.parent;
                    sb.two_pointer_root = v != 0;
                    sb.atomic_ioend = v == 2;
                    for (unsigned i = 0; i < x.step_count; ++i) {
                        const auto& s = x.min_log[i];
                        INFO("bs " << bs << " sector " << sect << " crc " << crc << " version " << v << " step " << i);
                        sb.agblocks = s.agblocks_from;
                        const auto m = xfs_log_minimum(sb);
                        CHECK(m.min_log_blocks == s.min_log_blocks);
                        CHECK(m.max_tx_bytes == s.max_tx_bytes);
                        const std::uint32_t last = x.min_log[i + 1].agblocks_from - 1;  // the end marker: 2^32 - 2
                        sb.agblocks = last < (((std::uint64_t{1} << 40) - 1) >> sb.block_log)
                                          ? last
                                          : static_cast<std::uint32_t>(((std::uint64_t{1} << 40) - 1) >> sb.block_log);
                        const auto e = xfs_log_minimum(sb);
                        CHECK(e.min_log_blocks == s.min_log_blocks);
                        CHECK(e.max_tx_bytes == s.max_tx_bytes);
                        ++steps;
                    }
                }
            }
        }
    MESSAGE(steps << " steps checked; at most " << most << " in one geometry (room for 32)");
    CHECK(most <= 32);
}

TEST_CASE("a decision's minimum log and max_tx_bytes are the reservations at its AG size (random geometries)") {
    // The step table of fs_geometry::make against xfs_log_minimum at the AG size each decision lays out:
    // block sizes 512 (v4) to 64 KiB, sectors, log stripe units, AG counts, features, all three versions.
    detail::xoshiro256 rng(0x7265737673ULL);
    std::size_t checked = 0;
    for (int i = 0; i < 3000; ++i) {
        fs_geometry_options o;
        const bool v4 = rng.below(6) == 0;
        o.features.crc = !v4;
        const unsigned bl = (v4 ? 9U : 10U) + static_cast<unsigned>(rng.below(v4 ? 8 : 7));
        o.block_size = 1U << bl;
        o.device_size = bytes((std::uint64_t{1} << (25 + rng.below(22))) + rng.below(std::uint64_t{1} << 30));
        if (rng.below(3) == 0) o.sector_size = o.block_size < 4096 ? o.block_size : 4096;
        if (rng.below(3) == 0) o.agcount = 1 + rng.below(300);
        if (rng.below(4) == 0) o.log_stripe_unit = bytes(std::uint64_t{o.block_size} << rng.below(4));
        if (rng.below(2) == 0) o.features.reflink = rng.below(2) == 0;
        if (rng.below(2) == 0) o.features.rmapbt = rng.below(2) == 0;
        if (rng.below(2) == 0) o.features.finobt = rng.below(2) == 0;
        if (rng.below(3) == 0) o.features.nrext64 = rng.below(2) == 0;
        const auto g = fs_geometry::make(o);
        REQUIRE(g.has_value());
        for (unsigned v = 0; v < 3; ++v) {
            const auto version = static_cast<xfsprogs_version>(v);
            const log_size_decision d = xfsprogs_layout_decision(*g, version);
            if (d.agsize_blocks == 0 || is_hard(d.reason)) continue;
            const auto f = g->features(version);
            xfs_sb_params sb;
            sb.block_log = bl;
            sb.sector_size = g->options().sector_size;
            sb.agblocks = static_cast<std::uint32_t>(d.agsize_blocks);
            sb.log_sunit_bytes = static_cast<std::uint32_t>(d.log_sunit_blocks << bl);
            sb.crc = f.crc;
            sb.finobt = f.finobt;
            sb.reflink = f.reflink;
            sb.rmapbt = f.rmapbt;
            sb.nrext64 = f.nrext64;
            sb.parent = f.parent;
            sb.two_pointer_root = v != 0;
            sb.atomic_ioend = v == 2;
            const auto m = xfs_log_minimum(sb);
            INFO("version " << v << ", bs " << o.block_size << ", AG blocks " << d.agsize_blocks);
            CHECK(d.min_log_blocks == m.min_log_blocks);
            CHECK(d.max_tx_bytes == m.max_tx_bytes);
            ++checked;
        }
    }
    MESSAGE(checked << " decisions checked against the reservations at their AG size");
    CHECK(checked > 5000);
}

TEST_CASE("the reservations react to each feature as libxfs does") {
    xfs_sb_params sb = sb_4gib(false);
    const auto base = xfs_log_minimum(sb);
    CHECK(base.largest_type == xfs_trans_type::itruncate);  // the old reflink log count (8) makes it the largest
    CHECK(base.largest.logcount == 8);
    sb.reflink = false;  // rmapbt alone: log count 2 for the minimum
    CHECK(xfs_log_minimum(sb).largest.logcount < 8);
    sb = sb_4gib(false);
    sb.log_sunit_bytes = 256 * 1024;  // a log stripe unit pads each transaction twice over
    CHECK(xfs_log_minimum(sb).min_log_blocks > base.min_log_blocks + 2 * 3 * 64);
    sb = sb_4gib(false);
    sb.crc = false;  // v4: none of the v5 btrees, smaller inodes
    CHECK(xfs_log_minimum(sb).min_log_blocks < base.min_log_blocks);
}

TEST_CASE("every transaction reservation is the one xfs_db logres prints (xfsprogs 6.1, 6.13, 7.2)") {
    // tests/data/xfs_db_logres_*.csv: real filesystems formatted by each version, read back with
    // `xfs_db -r -c logres`: the 26 runtime reservations (xfs_trans_resv_calc) and the largest one for the
    // minimum log ("minlogsize"), for block sizes 512 (v4) to 64 KiB, 4 KiB sectors, log stripe units, features.
    for (const char* file : {"xfs_db_logres_6.1.csv", "xfs_db_logres_6.13.csv", "xfs_db_logres_7.2.csv"}) {
        const csv_table t = read_csv(file);
        std::size_t rows = 0, exact = 0;
        for (std::size_t i = 0; i < t.rows.size(); ++i) {
            const auto& r = t.rows[i];
            auto at = [&](const std::string& c) -> const std::string& { return r[t.col(c)]; };
            INFO(std::string(file) << " row " << i + 1 << " (" << at("case") << ", bs " << at("block_size")
                                   << ", features '" << at("features_opt") << "')");
            xfs_sb_params sb;
            const std::uint64_t bs = num(at("block_size"));
            sb.block_log = detail::floor_log2(bs);
            sb.sector_size = static_cast<std::uint32_t>(num(at("sector_size")));
            sb.agblocks = static_cast<std::uint32_t>(num(at("agblocks")));
            sb.log_sunit_bytes = static_cast<std::uint32_t>(num(at("log_sunit_blocks")) * bs);
            sb.crc = at("crc") == "1";
            sb.finobt = at("finobt") == "1";
            sb.reflink = at("reflink") == "1";
            sb.rmapbt = at("rmapbt") == "1";
            sb.nrext64 = at("nrext64") == "1";
            sb.parent = at("parent") == "1";
            sb.two_pointer_root = std::string(file) != "xfs_db_logres_6.1.csv";
            sb.atomic_ioend = !at("r26_logres").empty();  // 7.x
            const auto table = detail::xfs_reservations(detail::xfs_resv_geometry_of(sb), false, sb.atomic_ioend);
            bool same = table.count == (sb.atomic_ioend ? 27U : 26U);
            CHECK(same);
            for (unsigned k = 0; k < table.count; ++k) {
                const std::string n = "r" + std::to_string(k);
                INFO("transaction type " << k);
                CHECK(table.r[k].logres == num(at(n + "_logres")));
                CHECK(table.r[k].logcount == num(at(n + "_logcount")));
                same = same && table.r[k].logres == num(at(n + "_logres")) &&
                       table.r[k].logcount == num(at(n + "_logcount"));
            }
            const auto m = xfs_log_minimum(sb);
            CHECK(m.largest.logres == num(at("minlog_logres")));
            CHECK(m.largest.logcount == num(at("minlog_logcount")));
            same = same && m.largest.logres == num(at("minlog_logres")) &&
                   m.largest.logcount == num(at("minlog_logcount"));
            ++rows;
            exact += same ? 1U : 0U;
        }
        MESSAGE(std::string(file) << ": " << exact << " of " << rows
                                  << " filesystems with every reservation and the minimum-log one exact");
        CHECK(rows >= 20);
        CHECK(exact == rows);
    }
}
