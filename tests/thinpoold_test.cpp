// Tests of provpol-thinpoold's core (examples/thinpoold) with its system replaced: a fake pool that fills at a fixed
// rate on a fake clock answers the status and lvs reads, lvextend grows it, the commands are recorded and the state
// file is kept in memory. The decisions are worked by hand from extend/lvm_rate_aware.hpp's contract; the readers
// (status, lvs, names, state, metrics) are held to their formats. tests/cli/thinpoold_test.sh runs the program.
#include "thinpoold/thinpoold.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using namespace provpol;
using namespace provpol::thinpoold;

namespace {

const char* const lv_uuid = "Abcdef-1234-5678-9abc-def0-1234-567890";
const char* const vg_uuid = "Vgvgvg-1234-5678-9abc-def0-1234-567890";

// A 64 MiB pool of 64 KiB chunks, written at 8 MiB/s from t = 0; lvextend -L+Nk grows it and takes 0.25 s.
struct fake_pool {
    double t = 0.0;
    std::uint64_t size = std::uint64_t{64} << 20, written0 = 0;
    std::uint64_t rate = std::uint64_t{8} << 20;
    std::vector<std::string> commands, errors;
    std::string state;
    bool monitored = true;
    int sleeps = 0, stop_after = 12;

    std::uint64_t used_blocks() const {
        const std::uint64_t total = size / 65536;
        const auto used = (written0 + static_cast<std::uint64_t>(static_cast<double>(rate) * t)) / 65536;
        return used > total ? total : used;
    }
    thinpoold_io io() {
        thinpoold_io io;
        io.now = [this] { return t; };
        io.sleep_until = [this](double until) {
            if (until > t) t = until;
            ++sleeps;
        };
        io.stopping = [this] { return sleeps >= stop_after; };
        io.log = [this](priority p, const std::string& l) {
            if (p <= priority::warning) errors.push_back(l);
        };
        io.status = [this](const std::string&) {
            const std::uint64_t total = size / 65536;
            return command_result{0, "0 " + std::to_string(size / 512) + " thin-pool 1 11/1024 " +
                                         std::to_string(used_blocks()) + "/" + std::to_string(total) +
                                         " - rw no_discard_passdown queue_if_no_space - 1024\n"};
        };
        io.uuid = [](const std::string&) {
            return command_result{0, "LVM-Vgvgvg123456789abcdef01234567890Abcdef123456789abcdef01234567890-tpool\n"};
        };
        io.run = [this](const std::vector<std::string>& argv, bool) {
            if (argv[0] == "lvs")
                return command_result{
                    0, "  LVM2_LV_SIZE='" + std::to_string(size) +
                           "' LVM2_LV_METADATA_SIZE='4194304' LVM2_VG_EXTENT_SIZE='4194304' LVM2_VG_FREE='1073741824' "
                           "LVM2_CHUNK_SIZE='65536' LVM2_SEG_MONITOR='" +
                           (monitored ? "monitored" : "not monitored") + "' LVM2_LV_UUID='" + lv_uuid +
                           "' LVM2_VG_UUID='" + vg_uuid + "' LVM2_SEGTYPE='thin-pool' LVM2_LV_PROFILE=''\n"};
            if (argv[0] == "lvmconfig")
                return command_result{0, "thin_pool_autoextend_threshold=100\nthin_pool_autoextend_percent=20\n"};
            commands.push_back(join(argv));
            if (argv[0] == "lvextend") {
                for (const auto& a : argv)
                    if (a.rfind("-L+", 0) == 0) size += std::stoull(a.substr(3)) << 10;  // -L+Nk
                t += 0.25;
            }
            if (argv[0] == "lvchange") monitored = argv[2] == "y";
            return command_result{0, ""};
        };
        io.load_state = [this] {
            file_read f;
            f.exists = !state.empty();
            f.text = state;
            return f;
        };
        io.save_state = [this](const std::string& text, std::string&) {
            state = text;
            return true;
        };
        return io;
    }
};

options base_options() {
    options o;
    o.vg = "vg";
    o.pool = "pool";
    o.min_free_percent = 0;  // the rate rule alone, as worked by hand
    return o;
}

}  // namespace

TEST_CASE("thinpoold: extends once the free space lasts less than the lead, by the horizon at the rate") {
    fake_pool p;
    options o = base_options();
    o.lvextend_time = seconds(0.5);  // lead = 2 x 0.5 s + 1 s (the interval) = 2 s: 16 MiB at 8 MiB/s
    o.max_pool_size = bytes(std::uint64_t{1} << 30);
    o.max_vg_take = bytes(std::uint64_t{1} << 30);
    auto io = p.io();
    CHECK(run(o, io) == exit_ok);
    // t = 6: 768 blocks used, 256 free (16 MiB), not less than 16 MiB; t = 7: 896 used, 8 MiB free: extend to
    // 8 MiB/s x (2 s + 30 s) = 256 MiB free: 248 MiB = 62 extents. Then 248 MiB free lasts past t = 12.
    REQUIRE(p.commands.size() == 1);
    CHECK(p.commands[0] == "lvextend -L+253952k -- vg/pool");
    CHECK(p.size == (std::uint64_t{312} << 20));
    CHECK(p.errors.empty());
    // The state: what was taken, verified (lvs after the lvextend), the base of the default caps.
    std::string why;
    const auto s = parse_state(p.state, why);
    REQUIRE(s);
    CHECK(s->taken == (std::uint64_t{248} << 20));
    CHECK(s->first_size == (std::uint64_t{64} << 20));
    CHECK(s->extends == 1);
    CHECK(s->pending == 0);
}

TEST_CASE("thinpoold: the VG budget is spent across extends, never past max-vg-take, and across restarts") {
    fake_pool p;
    p.rate = std::uint64_t{64} << 20;  // 64 MiB/s: each extend wants far more than the budget
    p.stop_after = 40;
    options o = base_options();
    o.max_vg_take = bytes(std::uint64_t{40} << 20);  // 10 extents in all
    auto io = p.io();
    CHECK(run(o, io) == exit_ok);
    std::uint64_t added = 0;
    for (const auto& c : p.commands)
        if (c.rfind("lvextend -L+", 0) == 0) added += std::stoull(c.substr(12)) << 10;
    CHECK(added == (std::uint64_t{40} << 20));
    CHECK(p.size == (std::uint64_t{104} << 20));
    // A restart keeps the account: nothing more is taken.
    p.commands.clear();
    p.sleeps = 0;
    auto io2 = p.io();
    CHECK(run(o, io2) == exit_ok);
    CHECK(p.commands.empty());
    CHECK(p.size == (std::uint64_t{104} << 20));
}

TEST_CASE("thinpoold: --take-over turns the monitoring off, records it first, and gives it back at the end") {
    fake_pool p;
    options o = base_options();
    o.take_over = true;
    o.max_pool_size = bytes(std::uint64_t{1} << 30);
    o.max_vg_take = bytes(std::uint64_t{1} << 30);
    o.lvextend_time = seconds(0.5);
    bool recorded_before = false;
    auto io = p.io();
    const auto run_inner = io.run;
    io.run = [&](const std::vector<std::string>& argv, bool i) {
        if (join(argv) == "lvchange --monitor n -- vg/pool")
            recorded_before = p.state.find("monitoring_off=1") != std::string::npos;
        return run_inner(argv, i);
    };
    CHECK(run(o, io) == exit_ok);
    CHECK(recorded_before);
    REQUIRE(p.commands.size() == 3);
    CHECK(p.commands[0] == "lvchange --monitor n -- vg/pool");
    CHECK(p.commands[1] == "lvextend --config activation/monitoring=0 -L+253952k -- vg/pool");
    CHECK(p.commands[2] == "lvchange --monitor y -- vg/pool");
    CHECK(p.monitored);
    CHECK(p.state.find("monitoring_off=0") != std::string::npos);
}

TEST_CASE("thinpoold: parse_status reads dmsetup's thin-pool line strictly and refuses anything else") {
    std::string why;
    const auto s = parse_status(
        "0 131072 thin-pool 7 11/1024 900/1024 - out_of_data_space no_discard_passdown queue_if_no_space - 1024\n",
        why);
    REQUIRE(s);
    CHECK(s->length_sectors == 131072);
    CHECK(s->transaction_id == 7);
    CHECK(s->metadata_used == 11);
    CHECK(s->metadata_total == 1024);
    CHECK(s->data_used == 900);
    CHECK(s->data_total == 1024);
    CHECK(s->mode == "out_of_data_space");
    CHECK(s->full());
    CHECK_FALSE(parse_status("0 131072 thin-pool Fail", why));
    CHECK(why == "the pool reports Fail");
    const char* bad[] = {
        "0 131072 linear 8:0 0",
        "0 131072 thin-pool 1 11/1024",
        "0 131072 thin-pool 1 11/1024 5/0 - rw - - -",
        "0 131072 thin-pool 1 11/1024 2000/1024 - rw - - -",                  // used above total
        "0 131072 thin-pool 1 11/1024 -5/1024 - rw - - -",                    // a sign: no unsigned wrap
        "0 131072 thin-pool 1 11/1024 +5/1024 - rw - - -",                    // a sign
        "0 131072 thin-pool 1 11/1024 5/1024x - rw - - -",                    // a suffix
        "0 131072 thin-pool 1 2000/1024 5/1024 - rw - - -",                   // metadata used above total
        "0 131072 thin-pool 1 11/1024 5 - rw - - -",                          // no fraction
        "0 131072 thin-pool 1 11/1024 99999999999999999999/1024 - rw - - -",  // past 2^64
        "8 131072 thin-pool 1 11/1024 5/1024 - rw - - -",                     // not the first sector
        "0 0 thin-pool 1 11/1024 5/0 - rw - - -",
        "0 131072 thin-pool 1 11/1024 5/1024 - fast - - -",                  // an unknown mode
        "0 131072 thin-pool 1 11/1024 5/1024 - rw - - -\n8 8 linear 8:0 0",  // two targets
        "",
    };
    for (const char* b : bad) CHECK_MESSAGE(!parse_status(b, why), b);
}

TEST_CASE("thinpoold: the status must be the pool's: its length lvs's size, its blocks that size in chunks") {
    pool_lv lv;
    lv.size = bytes(std::uint64_t{64} << 20);
    lv.chunk = bytes(65536);
    std::string why;
    auto s = parse_status("0 131072 thin-pool 1 11/1024 5/1024 - rw - - -", why);
    REQUIRE(s);
    CHECK(status_mismatch(*s, lv).empty());
    s->length_sectors = 262144;
    CHECK(status_mismatch(*s, lv).find("not the pool's size") != std::string::npos);
    s->length_sectors = 131072;
    s->data_total = 512;
    CHECK(status_mismatch(*s, lv).find("data blocks") != std::string::npos);
}

TEST_CASE("thinpoold: names are held to lvm2's rules (lib/misc/lvm-string.c)") {
    CHECK(lvm_name_error("vg0", false).empty());
    CHECK(lvm_name_error("a.b_c+d-e", true).empty());
    CHECK(lvm_name_error(std::string(127, 'v'), false).empty());
    CHECK_FALSE(lvm_name_error(std::string(128, 'v'), false).empty());
    CHECK_FALSE(lvm_name_error("", false).empty());
    CHECK_FALSE(lvm_name_error("-fy", false).empty());
    CHECK_FALSE(lvm_name_error(".", true).empty());
    CHECK_FALSE(lvm_name_error("..", true).empty());
    CHECK(lvm_name_error("...", true).empty());  // only "." and ".." are refused
    CHECK_FALSE(lvm_name_error("a/b", false).empty());
    CHECK_FALSE(lvm_name_error("a b", false).empty());
    CHECK_FALSE(lvm_name_error("pvmove0", true).empty());
    CHECK_FALSE(lvm_name_error("snapshot", true).empty());
    CHECK(lvm_name_error("snapshot", false).empty());  // a VG may be called so
    CHECK_FALSE(lvm_name_error("pool_tdata", true).empty());
    CHECK_FALSE(lvm_name_error("x_pmspare", true).empty());
    CHECK(lvm_name_error("my_pool", true).empty());
    CHECK(dm_name("my-vg", "thin-pool", "-tpool") == "my--vg-thin--pool-tpool");
}

TEST_CASE("thinpoold: parse_lvs reads lvs --nameprefixes, every field once") {
    const std::string line =
        "  LVM2_LV_SIZE='67108864' LVM2_LV_METADATA_SIZE='4194304' LVM2_VG_EXTENT_SIZE='4194304' "
        "LVM2_VG_FREE='1073741824' LVM2_CHUNK_SIZE='65536' LVM2_SEG_MONITOR='not monitored' "
        "LVM2_LV_UUID='Abcdef-1234-5678-9abc-def0-1234-567890' LVM2_VG_UUID='Vgvgvg-1234-5678-9abc-def0-1234-567890' "
        "LVM2_SEGTYPE='thin-pool' LVM2_LV_PROFILE=''\n";
    std::string why;
    const auto p = parse_lvs(line, why);
    REQUIRE(p);
    CHECK(p->size.count() == 67108864);
    CHECK(p->monitor == "not monitored");
    CHECK_FALSE(p->monitored());
    CHECK(p->allocated().count() == 67108864 + 4194304);
    CHECK(p->dm_uuid() == "LVM-Vgvgvg123456789abcdef01234567890Abcdef123456789abcdef01234567890");
    CHECK_FALSE(parse_lvs(line + line, why));  // two LVs
    std::string linear = line;
    linear.replace(linear.find("thin-pool"), 9, "linear");
    CHECK_FALSE(parse_lvs(linear, why));
    CHECK(why == "not a thin pool (segtype linear)");
    std::string neg = line;
    neg.replace(neg.find("'67108864'"), 10, "'-67108864'");
    CHECK_FALSE(parse_lvs(neg, why));
    CHECK_FALSE(parse_lvs("", why));
}

TEST_CASE("thinpoold: the state file round-trips and is read strictly") {
    pool_state s;
    s.lv_uuid = lv_uuid;
    s.first_size = 67108864;
    s.taken = 12345;
    s.pending = 9;
    s.monitoring_off = true;
    s.extends = 3;
    s.failures = 2;
    std::string why;
    const auto back = parse_state(state_text(s, "vg", "pool"), why);
    REQUIRE(back);
    CHECK(back->lv_uuid == s.lv_uuid);
    CHECK(back->taken == 12345);
    CHECK(back->pending == 9);
    CHECK(back->monitoring_off);
    CHECK(back->failures == 2);
    const std::string good = state_text(s, "vg", "pool");
    CHECK_FALSE(parse_state(good + "taken=1\n", why));  // twice
    CHECK_FALSE(parse_state(good + "extra=1\n", why));
    std::string bad = good;
    bad.replace(bad.find("taken=12345"), 11, "taken=-1");
    CHECK_FALSE(parse_state(bad, why));
    bad = good;
    bad.replace(bad.find("format=1"), 8, "format=2");
    CHECK_FALSE(parse_state(bad, why));
    CHECK_FALSE(parse_state("format=1\n", why));
    CHECK(why == "no lv_uuid= line");
}

TEST_CASE("thinpoold: fill_rate measures over its window, rises at once and decays with its half-life") {
    fill_rate f(seconds(10.0), seconds(1.0));
    f.sample(0.0, 0, false);
    CHECK_FALSE(f.measured());
    f.sample(0.5, 100 << 20, false);  // early: over what there is, 200 MiB/s
    CHECK(f.estimate().bytes_per_second() == (200u << 20));
    f.sample(1.0, 100 << 20, false);  // over the second since 0: 100 MiB/s, less than 200 decayed by 0.5 s
    CHECK(f.estimate().bytes_per_second() > (190u << 20));
    f.sample(1.01, 101 << 20, false);  // one write 10 ms after the last: still over a whole second (from 0.5 s)
    CHECK(f.estimate().bytes_per_second() < (200u << 20));
    f.sample(11.01, 101 << 20, false);  // a stall of 10 s: half
    CHECK(static_cast<double>(f.estimate().bytes_per_second()) ==
          doctest::Approx(static_cast<double>(200u << 20) * std::exp2(-10.51 / 10.0)).epsilon(0.01));
    f.sample(12.01, 201 << 20, false);  // 100 MiB/s again, over the last second
    CHECK(f.estimate().bytes_per_second() == (100u << 20));
    f.sample(13.0, 0, false);  // a discard: the history restarts, the estimate stays
    CHECK(f.estimate().bytes_per_second() == (100u << 20));
}

TEST_CASE("thinpoold: fill_rate on a full pool: kept while full, then what it took since it was grown") {
    fill_rate f(seconds(30.0), seconds(1.0));
    f.sample(0.0, 64 << 20, true);  // full when first seen: no rate
    f.sample(0.125, 64 << 20, true);
    CHECK_FALSE(f.measured());
    f.grown(0.1875);                 // an extend returned at 0.1875 s
    f.sample(0.25, 68 << 20, true);  // 4 MiB in 0.0625 s since: 64 MiB/s (full again: at least that)
    CHECK(f.measured());
    CHECK(f.estimate().bytes_per_second() == (64u << 20));
    f.sample(0.375, 68 << 20, true);  // still full: the estimate is kept, not decayed toward 0
    CHECK(f.estimate().bytes_per_second() == (64u << 20));
    f.grown(0.4375);
    f.sample(0.5, 76 << 20, false);  // 8 MiB in 0.0625 s: 128 MiB/s
    CHECK(f.estimate().bytes_per_second() == (128u << 20));
    f.sample(0.625, 80 << 20, false);  // the window restarts after a full spell: 4 MiB in 0.125 s, below the decay
    CHECK(f.estimate().bytes_per_second() < (128u << 20));
    CHECK(static_cast<double>(f.estimate().bytes_per_second()) ==
          doctest::Approx(static_cast<double>(128u << 20) * std::exp2(-0.125 / 30.0)).epsilon(1e-8));
}

TEST_CASE("thinpoold: fill_rate: a pool that took nothing for a whole window is still, whatever the estimate") {
    fill_rate f(seconds(30.0), seconds(1.0));
    f.sample(0.0, 0, false);
    f.sample(0.5, 0, false);
    CHECK_FALSE(f.still(0.5));  // not a whole window yet
    f.sample(1.0, 0, false);
    CHECK(f.still(1.0));
    f.sample(1.25, 8 << 20, false);  // a burst: 8 MiB in 0.25 s
    CHECK_FALSE(f.still(1.25));
    CHECK(f.estimate().bytes_per_second() > 0);
    f.sample(2.0, 8 << 20, false);
    CHECK_FALSE(f.still(2.0));
    f.sample(2.25, 8 << 20, false);  // a second since it last grew: still, the estimate remembered
    CHECK(f.still(2.25));
    CHECK(f.estimate().bytes_per_second() > 0);
    f.sample(3.5, 8 << 20, true);  // full: its writer waits, it is not still
    CHECK_FALSE(f.still(3.5));
}

TEST_CASE("thinpoold: the metrics file is node_exporter's textfile format") {
    metrics_values m;
    m.size = 100;
    m.free = 50;
    m.rate = 10;
    m.extends = 2;
    const std::string t = metrics_text("vg", "pool", m);
    CHECK(t.find("# TYPE provpol_thinpoold_extends_total counter\n"
                 "provpol_thinpoold_extends_total{vg=\"vg\",pool=\"pool\"} 2\n") != std::string::npos);
    CHECK(t.find("provpol_thinpoold_time_to_full_seconds{vg=\"vg\",pool=\"pool\"} 5.000000\n") != std::string::npos);
    m.rate = 0;
    CHECK(metrics_text("vg", "pool", m).find("time_to_full_seconds{vg=\"vg\",pool=\"pool\"} +Inf\n") !=
          std::string::npos);
}
