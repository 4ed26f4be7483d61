// Tests of provpol-thinpoold's core (examples/thinpoold/thinpoold.hpp) with its system replaced: a fake pool that
// fills at a fixed rate on a fake clock answers the status reads, and the commands are recorded. The decisions are
// worked by hand from extend/lvm_rate_aware.hpp's contract. tests/cli/thinpoold_test.sh runs the program itself.
#include "thinpoold/thinpoold.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

using namespace provpol;
using namespace provpol::thinpoold;

namespace {

// A 64 MiB pool of 64 KiB chunks, written at 8 MiB/s from t = 0; lvextend -L+Nk grows it and takes 0.25 s.
struct fake_pool {
    double t = 0.0;
    std::uint64_t size = std::uint64_t{64} << 20;
    std::uint64_t rate = std::uint64_t{8} << 20;
    std::vector<std::string> commands;
    int sleeps = 0, stop_after = 12;

    thinpoold_io io() {
        thinpoold_io io;
        io.now = [this] { return t; };
        io.sleep_until = [this](double until) {
            if (until > t) t = until;
            ++sleeps;
        };
        io.stopping = [this] { return sleeps >= stop_after; };
        io.print = [](const std::string&) {};
        io.error = [this](const std::string& l) { commands.push_back("error: " + l); };
        io.status = [this](const std::string& dev) {
            const std::uint64_t total = size / 65536;
            std::uint64_t used = static_cast<std::uint64_t>(static_cast<double>(rate) * t) / 65536;
            if (used > total) used = total;
            return command_result{0, "0 " + std::to_string(size / 512) + " thin-pool 1 11/1024 " +
                                         std::to_string(used) + "/" + std::to_string(total) + " - rw " + dev + "\n"};
        };
        io.run = [this](const std::vector<std::string>& argv) {
            commands.push_back(join(argv));
            if (argv[0] == "lvs") return command_result{0, "  67108864,4194304,4194304,1073741824,monitored\n"};
            if (argv[0] == "lvextend") {
                size += std::stoull(argv[1].substr(3)) << 10;  // -L+Nk
                t += 0.25;
            }
            return command_result{0, ""};
        };
        return io;
    }
};

}  // namespace

TEST_CASE("thinpoold: extends once the free space lasts less than the lead, by the horizon at the rate") {
    fake_pool p;
    options o;
    o.vg = "vg";
    o.pool = "pool";
    o.lvextend_time = seconds(0.5);  // lead = 2 x 0.5 s + 1 s (the interval) = 2 s: 16 MiB at 8 MiB/s
    o.max_pool_size = bytes(std::uint64_t{1} << 30);
    o.max_vg_take = bytes(std::uint64_t{1} << 30);
    auto io = p.io();
    CHECK(run(o, io) == 0);
    // t = 6: 768 blocks used, 256 free (16 MiB), not less than 16 MiB; t = 7: 896 used, 8 MiB free: extend to
    // 8 MiB/s x (2 s + 30 s) = 256 MiB free: 248 MiB = 62 extents. Then 248 MiB free lasts past t = 12.
    REQUIRE(p.commands.size() == 2);
    CHECK(p.commands[0].rfind("lvs ", 0) == 0);
    CHECK(p.commands[1] == "lvextend -L+253952k vg/pool");
    CHECK(p.size == (std::uint64_t{312} << 20));
}

TEST_CASE("thinpoold: the VG budget is spent across extends, never past max-vg-take") {
    fake_pool p;
    p.rate = std::uint64_t{64} << 20;  // 64 MiB/s: each extend wants far more than the budget
    p.stop_after = 40;
    options o;
    o.vg = "vg";
    o.pool = "pool";
    o.max_vg_take = bytes(std::uint64_t{40} << 20);  // 10 extents in all
    auto io = p.io();
    CHECK(run(o, io) == 0);
    std::uint64_t added = 0;
    for (const auto& c : p.commands)
        if (c.rfind("lvextend -L+", 0) == 0) added += std::stoull(c.substr(12)) << 10;
    CHECK(added == (std::uint64_t{40} << 20));
    CHECK(p.size == (std::uint64_t{104} << 20));
}

TEST_CASE("thinpoold: parse_status reads dmsetup's thin-pool line and refuses anything else") {
    std::string why;
    const auto s = parse_status(
        "0 131072 thin-pool 7 11/1024 900/1024 - out_of_data_space no_discard_passdown "
        "queue_if_no_space - 1024",
        why);
    REQUIRE(s);
    CHECK(s->length_sectors == 131072);
    CHECK(s->transaction_id == 7);
    CHECK(s->metadata_used == 11);
    CHECK(s->metadata_total == 1024);
    CHECK(s->data_used == 900);
    CHECK(s->data_total == 1024);
    CHECK(s->mode == "out_of_data_space");
    CHECK_FALSE(parse_status("0 131072 thin-pool Fail", why));
    CHECK(why == "the pool reports Fail");
    CHECK_FALSE(parse_status("0 131072 linear 8:0 0", why));
    CHECK_FALSE(parse_status("0 131072 thin-pool 1 11/1024", why));
    CHECK_FALSE(parse_status("0 131072 thin-pool 1 11/1024 5/0 - rw", why));
    CHECK_FALSE(parse_status("", why));
}

TEST_CASE("thinpoold: fill_rate measures over its window, rises at once and decays with its half-life") {
    fill_rate f(seconds(10.0), seconds(1.0));
    f.sample(0.0, 0);
    f.sample(0.5, 100 << 20);  // early: over what there is, 200 MiB/s
    CHECK(f.estimate().bytes_per_second() == (200u << 20));
    f.sample(1.0, 100 << 20);  // over the second since 0: 100 MiB/s, less than 200 decayed by 0.5 s
    CHECK(f.estimate().bytes_per_second() > (190u << 20));
    f.sample(1.01, 101 << 20);  // one write 10 ms after the last: still over a whole second (from 0.5 s)
    CHECK(f.estimate().bytes_per_second() < (200u << 20));
    f.sample(11.01, 101 << 20);  // a stall of 10 s: half
    CHECK(static_cast<double>(f.estimate().bytes_per_second()) ==
          doctest::Approx(static_cast<double>(200u << 20) * std::exp2(-10.51 / 10.0)).epsilon(0.01));
    f.sample(12.01, 201 << 20);  // 100 MiB/s again, over the last second
    CHECK(f.estimate().bytes_per_second() == (100u << 20));
    f.sample(13.0, 0);  // a discard: the history restarts, the estimate stays
    CHECK(f.estimate().bytes_per_second() == (100u << 20));
    f.restart();  // the pool was full: the backlog that lands when it grows is no rate
    f.sample(14.0, 900 << 20);
    CHECK(f.estimate().bytes_per_second() == (100u << 20));
}
