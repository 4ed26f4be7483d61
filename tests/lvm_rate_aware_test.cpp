// Tests of provpol/extend/lvm_rate_aware.hpp: the rate-aware thin-pool extender. Hand-worked cases (the arithmetic
// next to each value), the metadata growth against decide_lvm_autoextend (lvm.hpp, lvm2's own rule), the limits
// over an exhaustive grid (never exceeded, and the amount the largest that fits), monotonicity by scan, and the
// header's guarantee (the pool does not fill before the extend lands) in a small time-stepped run.
#include <provpol/extend/lvm_rate_aware.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

using namespace provpol;
using namespace provpol::literals;

namespace {

lvm_rate_aware_settings base() {
    lvm_rate_aware_settings s;
    s.lead_factor = 2.0;
    s.margin = seconds(1.0);
    s.horizon = seconds(30.0);
    s.min_free_percent = 0;  // the rate rule alone: the floor has its own cases
    return s;                // 4 MiB extents, 64 KiB chunks, no caps
}

lvm_rate_aware_config make(const lvm_rate_aware_settings& s) { return lvm_rate_aware_config::make(s).value(); }

lvm_pool_view pool(bytes size, std::uint64_t used) {
    lvm_pool_view v{};
    v.size = size;
    v.used = blocks(used);
    return v;
}

constexpr rate mib_s(std::uint64_t n) { return rate(n << 20); }

}  // namespace

TEST_CASE("lvm_rate_aware: hand-worked decisions") {
    const auto c = make(base());
    // 64 MiB = 1024 blocks; lead = 2 x 0.5 s + 1 s = 2 s; at 8 MiB/s the pool must have 16 MiB free.
    auto d = c.decide(pool(64_MiB, 512), mib_s(8), seconds(0.5));  // 32 MiB free
    CHECK(d.outcome == lvm_rate_aware_outcome::none);
    CHECK(d.free == 32_MiB);
    CHECK(d.lead.count() == doctest::Approx(2.0));
    CHECK_FALSE(d.extends());
    CHECK(d.new_size == 64_MiB);
    // 768 used: 256 blocks = 16 MiB free, not less than 16 MiB: none.
    CHECK(c.decide(pool(64_MiB, 768), mib_s(8), seconds(0.5)).outcome == lvm_rate_aware_outcome::none);
    // 769 used: 255 blocks = 15.9375 MiB free: extend to 8 MiB/s x 32 s = 256 MiB free: 240.0625 MiB short,
    // 60.015625 extents, so 61 extents (244 MiB): 308 MiB.
    d = c.decide(pool(64_MiB, 769), mib_s(8), seconds(0.5));
    CHECK(d.outcome == lvm_rate_aware_outcome::extend);
    CHECK(d.wanted_extents == 61);
    CHECK(d.add_extents == 61);
    CHECK(d.add == 244_MiB);
    CHECK(d.new_size == 308_MiB);
    CHECK(d.vg_needed == 244_MiB);
    CHECK(d.limit == lvm_rate_aware_limit::none);
    // Rate 0: nothing until the pool is full, then the smallest extend, one extent.
    CHECK(c.decide(pool(64_MiB, 1023), rate(0), seconds(0.5)).outcome == lvm_rate_aware_outcome::none);
    d = c.decide(pool(64_MiB, 1024), rate(0), seconds(0.5));
    CHECK(d.outcome == lvm_rate_aware_outcome::extend);
    CHECK(d.add_extents == 1);
    CHECK(d.new_size == 68_MiB);
    // min_extend 10 MiB: three extents.
    auto s = base();
    s.min_extend = 10_MiB;
    CHECK(make(s).decide(pool(64_MiB, 1024), rate(0), seconds(0.5)).add_extents == 3);
}

TEST_CASE("lvm_rate_aware: the caps cut the amount and say which") {
    auto s = base();
    s.max_pool_size = 102_MiB;  // 25 extents (rounded down): room for 9 more
    auto d = make(s).decide(pool(64_MiB, 769), mib_s(8), seconds(0.5));
    CHECK(d.outcome == lvm_rate_aware_outcome::extend_limited);
    CHECK(d.limit == lvm_rate_aware_limit::pool_cap);
    CHECK(d.add_extents == 9);
    CHECK(d.new_size == 100_MiB);
    s = base();
    s.max_vg_take = 40_MiB;
    auto v = pool(64_MiB, 769);
    v.taken = 30_MiB;  // 10 MiB left: 2 extents
    d = make(s).decide(v, mib_s(8), seconds(0.5));
    CHECK(d.outcome == lvm_rate_aware_outcome::extend_limited);
    CHECK(d.limit == lvm_rate_aware_limit::vg_take);
    CHECK(d.add_extents == 2);
    v = pool(64_MiB, 769);
    v.vg_free = 3_MiB;  // less than one extent
    d = make(base()).decide(v, mib_s(8), seconds(0.5));
    CHECK(d.outcome == lvm_rate_aware_outcome::blocked);
    CHECK(d.limit == lvm_rate_aware_limit::vg_free);
    CHECK_FALSE(d.extends());
    CHECK(d.new_size == 64_MiB);
    // At the cap already: blocked, whatever the VG has.
    s = base();
    s.max_pool_size = 64_MiB;
    d = make(s).decide(pool(64_MiB, 1024), mib_s(8), seconds(0.5));
    CHECK(d.outcome == lvm_rate_aware_outcome::blocked);
    CHECK(d.limit == lvm_rate_aware_limit::pool_cap);
}

TEST_CASE("lvm_rate_aware: the metadata grows with the data as lvm2 grows it, and counts against the VG") {
    // 4 GiB pool (1024 extents) full, 4 MiB metadata; 100 MiB/s, service 1 s: lead 3 s, target 3300 MiB = 825
    // extents. 1849 extents need 1849 x 8 = 14792 sectors of metadata (64 bytes per 64 KiB chunk), 7396 KiB:
    // 2 extents, one more than it has.
    auto v = pool(4_GiB, 65536);
    v.metadata_size = 4_MiB;
    const auto c = make(base());
    auto d = c.decide(v, mib_s(100), seconds(1.0));
    CHECK(d.add_extents == 825);
    CHECK(d.metadata_add_extents == 1);
    CHECK(d.vg_needed == bytes(826 * (std::uint64_t{4} << 20)));
    // 825 extents free: the data may take 824 (1848 extents still need 2 metadata extents).
    v.vg_free = bytes(825 * (std::uint64_t{4} << 20));
    d = c.decide(v, mib_s(100), seconds(1.0));
    CHECK(d.outcome == lvm_rate_aware_outcome::extend_limited);
    CHECK(d.limit == lvm_rate_aware_limit::vg_free);
    CHECK(d.add_extents == 824);
    CHECK(d.metadata_add_extents == 1);
}

TEST_CASE("lvm_metadata_extents_after: equal to decide_lvm_autoextend's metadata growth with the data") {
    // lvextend --use-policies past the threshold grows the data by percent and the metadata to 64 bytes per chunk;
    // with the metadata's own usage at 0 only that rule acts.
    int compared = 0, grown = 0;
    for (std::uint64_t extent_kib : {1024u, 4096u, 65536u}) {
        for (std::uint64_t chunk_kib : {64u, 128u, 1024u}) {
            const bytes e(extent_kib << 10), ch(chunk_kib << 10);
            const auto cfg =
                lvm_autoextend_config::make(lvm_threshold(70), lvm_percent(20), lvm_extent_size(e), lvm_chunk_size(ch))
                    .value();
            for (std::uint64_t le = 1; le <= 20000; le = le * 3 + 1) {
                for (std::uint64_t mle : {1u, 2u, 5u, 40u}) {
                    lvm_volume_state s{};
                    s.size = bytes(le * e.count());
                    s.total = blocks(le * e.count() / ch.count());
                    s.used = s.total;
                    s.metadata_size = bytes(mle * e.count());
                    s.metadata_total = blocks(1000);
                    const auto d = decide_lvm_autoextend(cfg, s);
                    if (d.outcome != lvm_outcome::extend || d.add_extents == 0) continue;
                    const std::uint64_t after = lvm_metadata_extents_after(le + d.add_extents, s.metadata_size, e, ch);
                    CHECK(after - mle == d.metadata_add_extents);
                    ++compared;
                    grown += d.metadata_add_extents != 0;
                }
            }
        }
    }
    CHECK(compared > 300);
    CHECK(grown > 20);  // the grid reaches the rule, not only the sizes where it does nothing
}

TEST_CASE("lvm_rate_aware: no limit is ever exceeded, and a cut amount is the largest that fits (grid)") {
    const bytes e = 4_MiB;
    long checked = 0, limited = 0;
    for (std::uint64_t cap_ext : {0u, 8u, 16u, 17u, 30u, 1000u}) {
        for (std::uint64_t take_mib : {0u, 3u, 4u, 9u, 40u, 100000u}) {
            auto s = base();
            s.max_pool_size = bytes(cap_ext * e.count() + (cap_ext == 17 ? 1 : 0));  // 17: not whole extents
            s.max_vg_take = bytes(take_mib << 20);
            const auto c = make(s);
            for (std::uint64_t le : {1u, 4u, 16u, 40u}) {
                for (std::uint64_t meta_kib : {0u, 4096u}) {
                    for (std::uint64_t free_mib : {0u, 2u, 4u, 12u, 1000u}) {
                        for (std::uint64_t taken_mib : {0u, 2u, 8u}) {
                            const std::uint64_t total = le * 64;
                            for (std::uint64_t used = 0; used <= total; used += (used + 8 >= total ? 1 : total / 7)) {
                                for (std::uint64_t r : {0u, 1u, 8u, 200u}) {
                                    lvm_pool_view v = pool(bytes(le * e.count()), used);
                                    v.metadata_size = bytes(meta_kib << 10);
                                    v.vg_free = bytes(free_mib << 20);
                                    v.taken = bytes(taken_mib << 20);
                                    const auto d = c.decide(v, mib_s(r), seconds(0.7));
                                    const bytes take_left = s.max_vg_take - v.taken;
                                    const bytes budget = take_left < v.vg_free ? take_left : v.vg_free;
                                    const bytes cap = align_down(s.max_pool_size, e);
                                    ++checked;
                                    CHECK(d.vg_needed <= budget);
                                    CHECK((d.new_size <= cap || d.new_size == v.size));
                                    CHECK(d.add_extents <= d.wanted_extents);
                                    CHECK(d.new_size == v.size + d.add);
                                    if (d.outcome == lvm_rate_aware_outcome::extend_limited ||
                                        d.outcome == lvm_rate_aware_outcome::blocked) {
                                        ++limited;
                                        // One more extent would break a limit.
                                        const std::uint64_t a = d.add_extents + 1;
                                        const std::uint64_t ml =
                                            v.metadata_size.count() == 0 ? 0 : v.metadata_size.count() / e.count();
                                        const std::uint64_t meta =
                                            lvm_metadata_extents_after(le + a, v.metadata_size, e, s.pool_chunk) - ml;
                                        const bool over =
                                            bytes((le + a) * e.count()) > cap || bytes((a + meta) * e.count()) > budget;
                                        CHECK(over);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    CHECK(checked > 100000);
    CHECK(limited > 1000);
}

TEST_CASE("lvm_rate_aware: the extent count stays at most 2^32 - 1") {
    auto s = base();
    s.extent = 1_KiB;
    s.pool_chunk = 64_KiB;
    const auto c = make(s);
    auto v = pool(bytes((std::uint64_t{0xffffffff} - 3) << 10), 0);
    v.total = blocks(1);
    v.used = blocks(1);  // full
    const auto d = c.decide(v, rate(std::uint64_t{1} << 40), seconds(10.0));
    CHECK(d.outcome == lvm_rate_aware_outcome::extend_limited);
    CHECK(d.limit == lvm_rate_aware_limit::extent_count);
    CHECK(d.add_extents == 3);
}

TEST_CASE("lvm_rate_aware: monotone in used blocks, rate, service time and margin (scan)") {
    for (double k : {1.0, 2.0, 3.5}) {
        for (std::uint64_t cap_mib : {96u, 100000u}) {
            auto s = base();
            s.lead_factor = k;
            s.max_pool_size = bytes(cap_mib << 20);
            const auto c = make(s);
            for (std::uint64_t r : {0u, 1u, 3u, 8u, 32u, 100u}) {
                for (double svc : {0.0, 0.2, 0.5, 2.0}) {
                    bool was = false;
                    bytes last = 0_B;
                    for (std::uint64_t used = 0; used <= 1024; ++used) {
                        const auto d = c.decide(pool(64_MiB, used), mib_s(r), seconds(svc));
                        const bool due = d.outcome != lvm_rate_aware_outcome::none;
                        CHECK_FALSE((was && !due));
                        CHECK(d.new_size >= last);
                        was = due;
                        last = d.new_size;
                    }
                }
            }
            for (std::uint64_t used : {0u, 500u, 900u, 1000u, 1024u}) {
                bool was = false;
                bytes last = 0_B;
                for (std::uint64_t r = 0; r <= 400; r += 3) {
                    const auto d = c.decide(pool(64_MiB, used), rate(r << 18), seconds(0.4));
                    const bool due = d.outcome != lvm_rate_aware_outcome::none;
                    CHECK_FALSE((was && !due));
                    CHECK(d.new_size >= last);
                    was = due;
                    last = d.new_size;
                }
                was = false;
                last = 0_B;
                for (int i = 0; i <= 200; ++i) {
                    const auto d = c.decide(pool(64_MiB, used), mib_s(8), seconds(i * 0.05));
                    const bool due = d.outcome != lvm_rate_aware_outcome::none;
                    CHECK_FALSE((was && !due));
                    CHECK(d.new_size >= last);
                    was = due;
                    last = d.new_size;
                }
            }
        }
    }
}

TEST_CASE("lvm_rate_aware: the guarantee: decided every margin, the pool never fills before the extend lands") {
    // Constant rate r, a decision every `margin` seconds while no extend is in flight, each extend landing S later;
    // the pool starts with room for more than the lead. Used blocks as dmsetup reports them (partial chunks whole).
    int runs = 0, extends = 0;
    for (double k : {1.0, 1.5, 3.0}) {
        for (double svc : {0.05, 0.3, 1.0}) {
            for (std::uint64_t r_mib : {1u, 16u, 64u, 300u}) {
                auto s = base();
                s.lead_factor = k;
                s.margin = seconds(0.25);
                s.horizon = seconds(svc > 0.5 ? svc : 0.5);
                const auto c = make(s);
                const double r = static_cast<double>(r_mib << 20);
                const double chunk = 65536.0, e = 4194304.0;
                double size = e * std::ceil(r * (k * svc + 0.25) * 1.5 / e), written = 0.0, min_free = 1e300;
                double land = -1.0, add = 0.0;
                for (double t = 0.0; t < 20.0; t += 0.25) {
                    if (land >= 0.0 && t >= land) {  // the extend landed in this step
                        min_free = std::min(min_free, size - (written + r * (land - (t - 0.25))));
                        size += add;
                        land = -1.0;
                    }
                    written = r * t;
                    min_free = std::min(min_free, size - written);
                    if (land >= 0.0) continue;
                    const auto used = static_cast<std::uint64_t>(std::ceil(written / chunk));
                    const auto d =
                        c.decide(pool(bytes(static_cast<std::uint64_t>(size)), used), rate(r_mib << 20), seconds(svc));
                    if (d.extends()) {
                        land = t + svc;
                        add = static_cast<double>(d.add.count());
                        ++extends;
                    }
                }
                CHECK(min_free >= 0.0);
                ++runs;
            }
        }
    }
    CHECK(runs == 36);
    CHECK(extends >= 72);  // every run extends, most more than once
}

TEST_CASE("lvm_rate_aware: bad settings name the setting and its range") {
    auto s = base();
    s.lead_factor = 0.5;
    auto c = lvm_rate_aware_config::make(s);
    REQUIRE_FALSE(c);
    CHECK(std::string(c.error().message().view()).find("lead_factor") != std::string::npos);
    s = base();
    s.horizon = seconds(0.0);
    c = lvm_rate_aware_config::make(s);
    REQUIRE_FALSE(c);
    CHECK(std::string(c.error().message().view()).find("horizon") != std::string::npos);
    s = base();
    s.margin = seconds(-1.0);
    CHECK_FALSE(lvm_rate_aware_config::make(s));
    s = base();
    s.extent = 3_MiB;
    c = lvm_rate_aware_config::make(s);
    REQUIRE_FALSE(c);
    CHECK(std::string(c.error().message().view()).find("extent_size") != std::string::npos);
    s = base();
    s.pool_chunk = 96_KiB;
    CHECK_FALSE(lvm_rate_aware_config::make(s));
}

TEST_CASE("lvm_rate_aware: the floor, absolute or a percent of the grown pool, in the trigger and the amount") {
    // An absolute floor of 4 MiB at rate 0: 960 of 1024 blocks used leaves exactly 4 MiB, not below it: none; one
    // block more is below: one extent.
    auto s = base();
    s.min_free = 4_MiB;
    auto c = make(s);
    CHECK(c.decide(pool(64_MiB, 960), rate(0), seconds(0.5)).outcome == lvm_rate_aware_outcome::none);
    auto d = c.decide(pool(64_MiB, 961), rate(0), seconds(0.5));
    CHECK(d.outcome == lvm_rate_aware_outcome::extend);
    CHECK(d.add_extents == 1);
    CHECK(d.floor == 4_MiB);
    // 8 MiB and a rate: lead 2 x 0.5 + 1 = 2 s, trigger under 8 + 16 = 24 MiB free (640 used: exactly 24 MiB, none);
    // the target 8 + 8 x 32 = 264 MiB free: 264 - 23.9375 = 240.0625 MiB short, 61 extents.
    s.min_free = 8_MiB;
    c = make(s);
    CHECK(c.decide(pool(64_MiB, 640), mib_s(8), seconds(0.5)).outcome == lvm_rate_aware_outcome::none);
    d = c.decide(pool(64_MiB, 641), mib_s(8), seconds(0.5));
    CHECK(d.add_extents == 61);
    // The default floor, 10% of the pool: 973 used leaves 3.1875 MiB, under 6.4 MiB; the amount keeps 10% of the
    // grown pool: (6.4 - 3.1875) / 0.9 = 3.57 MiB, one extent; 68 MiB keep 7.1875 MiB, above their 6.8 MiB.
    c = make(lvm_rate_aware_settings{});
    d = c.decide(pool(64_MiB, 973), rate(0), seconds(0.5));
    CHECK(d.outcome == lvm_rate_aware_outcome::extend);
    CHECK(d.add_extents == 1);
    CHECK(d.floor.count() == 6710886);
    CHECK(c.decide(pool(68_MiB, 973), rate(0), seconds(0.5)).outcome == lvm_rate_aware_outcome::none);
    // 50% of a full 64 MiB pool: 64 MiB more keep half of 128 MiB free; 15 extents would keep 60 of 124, less.
    s = base();
    s.min_free_percent = 50;
    d = make(s).decide(pool(64_MiB, 1024), rate(0), seconds(0.5));
    CHECK(d.add_extents == 16);
    CHECK(d.new_size == 128_MiB);
    s.min_free_percent = 51;
    CHECK(std::string(lvm_rate_aware_config::make(s).error().message().view()) ==
          "min_free_percent must be in [0, 50], got 51");
}

TEST_CASE("lvm_rate_aware: decide_metadata is lvm2's rule for the metadata alone (decide_lvm_autoextend)") {
    // 4 MiB of metadata, 1024 blocks; 800 used is 78.125%, past min(70, lvm2's minimum for 4 MiB, 75): the amount is
    // max(20, ceil(100 x 78.125 / 70) - 100 = 12) = 20, one more, 21% of one extent rounded up: one extent.
    auto s = base();
    s.metadata_threshold = 70;
    s.metadata_percent = 20;
    const auto c = make(s);
    lvm_pool_view v = pool(64_MiB, 0);
    v.metadata_size = 4_MiB;
    v.metadata_total = blocks(1024);
    v.metadata_used = blocks(800);
    auto m = c.decide_metadata(v);
    CHECK(m.outcome == lvm_rate_aware_outcome::extend);
    CHECK(m.threshold == 70);
    CHECK(m.add_extents == 1);
    CHECK(m.new_size == 8_MiB);
    v.metadata_used = blocks(716);  // 69.9%: not past 70
    CHECK_FALSE(c.decide_metadata(v).extends());
    // lvm2's default threshold, 100, leaves it; the VG's free space or the take left cut it, to nothing here.
    CHECK_FALSE(make(base()).decide_metadata(v).extends());
    v.metadata_used = blocks(800);
    v.vg_free = 2_MiB;
    m = c.decide_metadata(v);
    CHECK(m.outcome == lvm_rate_aware_outcome::blocked);
    CHECK(m.limit == lvm_rate_aware_limit::vg_free);
    v.vg_free = bytes::max();
    s.max_vg_take = 64_MiB;
    v.taken = 64_MiB;
    m = make(s).decide_metadata(v);
    CHECK(m.limit == lvm_rate_aware_limit::vg_take);
    CHECK_FALSE(m.extends());
    // Against decide_lvm_autoextend, over usage, thresholds, percents and sizes: the same metadata size.
    int cases = 0;
    for (const std::uint32_t threshold : {50u, 60u, 70u, 80u, 95u, 100u})
        for (const std::uint32_t percent : {1u, 20u, 100u, 333u})
            for (const bytes size : {4_MiB, 8_MiB, 64_MiB, 1_GiB})
                for (std::uint64_t used = 0; used <= 1000; used += 7) {
                    auto t = base();
                    t.metadata_threshold = threshold;
                    t.metadata_percent = percent;
                    lvm_pool_view w = pool(64_MiB, 0);
                    w.metadata_size = size;
                    w.metadata_total = blocks_in(size, 4_KiB, rounding::down);
                    w.metadata_used = blocks(used * w.metadata_total.count() / 1000);
                    lvm_volume_state st{};
                    st.size = 64_MiB;
                    st.total = blocks(1);
                    st.metadata_size = size;
                    st.metadata_used = w.metadata_used;
                    st.metadata_total = w.metadata_total;
                    const auto lvm = decide_lvm_autoextend(
                        lvm_autoextend_config::make(lvm_threshold(threshold), lvm_percent(percent)).value(), st);
                    CHECK(make(t).decide_metadata(w).new_size == lvm.metadata_new_size);
                    ++cases;
                }
    CHECK(cases == 6 * 4 * 4 * 143);
}

TEST_CASE("lvm_rate_aware: min_rate stands in for a lower observed rate, in the trigger and the amount") {
    auto s = base();
    s.min_rate = mib_s(8);
    const auto c = make(s);
    const auto plain = make(base());
    // The hand-worked case above at an observed rate of 0: the same decisions as at 8 MiB/s.
    for (const std::uint64_t used : {512u, 768u, 769u, 1024u}) {
        CAPTURE(used);
        const auto d = c.decide(pool(64_MiB, used), rate(0), seconds(0.5));
        const auto at8 = plain.decide(pool(64_MiB, used), mib_s(8), seconds(0.5));
        CHECK(d.outcome == at8.outcome);
        CHECK(d.add_extents == at8.add_extents);
        CHECK(d.rate_used == mib_s(8));
    }
    CHECK(c.decide(pool(64_MiB, 769), rate(0), seconds(0.5)).add_extents == 61);
    // A higher observed rate is taken as it is: 16 MiB/s needs 32 MiB free (512 used: exactly, none; 513: extend).
    CHECK(c.decide(pool(64_MiB, 512), mib_s(16), seconds(0.5)).outcome == lvm_rate_aware_outcome::none);
    CHECK(c.decide(pool(64_MiB, 513), mib_s(16), seconds(0.5)).add_extents ==
          plain.decide(pool(64_MiB, 513), mib_s(16), seconds(0.5)).add_extents);
}

TEST_CASE("lvm_rate_aware: a burst from idle at min_rate, never observed, does not fill the pool") {
    // The pool idles (its floor only, rate 0 observed) and is decided on until nothing is due; then a writer starts
    // at once at `burst` and the extender still observes 0 (its estimate lags the whole run, the worst case). A
    // decision every `margin` while no extend is in flight, each landing S later. With min_rate at the burst's rate
    // the pool never fills; without it, it fills in every run (what the test tells apart).
    int runs = 0, filled_without = 0;
    for (double svc : {0.05, 0.3, 1.0}) {
        for (std::uint64_t r_mib : {8u, 64u, 300u}) {
            double min_free[2] = {1e300, 1e300};
            for (int with = 0; with < 2; ++with) {
                auto s = base();
                s.lead_factor = 1.0;
                s.margin = seconds(0.05);
                s.horizon = seconds(svc > 0.1 ? svc : 0.1);
                s.min_rate = with != 0 ? mib_s(r_mib) : rate(0);
                const auto c = make(s);
                const double r = static_cast<double>(r_mib << 20), chunk = 65536.0;
                double size = 4194304.0;
                for (int i = 0; i < 100; ++i) {  // idle: the decisions before the burst, each landing at once
                    const auto d = c.decide(pool(bytes(static_cast<std::uint64_t>(size)), 0), rate(0), seconds(svc));
                    if (!d.extends()) break;
                    size = static_cast<double>(d.new_size.count());
                }
                double written = 0.0, land = -1.0, add = 0.0;
                for (double t = 0.0; t < 10.0; t += 0.05) {
                    if (land >= 0.0 && t >= land) {
                        min_free[with] = std::min(min_free[with], size - r * land);
                        size += add;
                        land = -1.0;
                    }
                    written = r * t;
                    min_free[with] = std::min(min_free[with], size - written);
                    if (land >= 0.0) continue;
                    const auto used = static_cast<std::uint64_t>(std::ceil(written / chunk));
                    const auto d = c.decide(pool(bytes(static_cast<std::uint64_t>(size)), used), rate(0), seconds(svc));
                    if (d.extends()) {
                        land = t + svc;
                        add = static_cast<double>(d.add.count());
                    }
                }
            }
            CAPTURE(svc);
            CAPTURE(r_mib);
            CHECK(min_free[1] > -1.0);  // at k = 1 the extend can land as the last byte is taken: under a byte of float
            filled_without += min_free[0] < 0.0 ? 1 : 0;
            ++runs;
        }
    }
    CHECK(runs == 9);
    CHECK(filled_without == 9);
}
