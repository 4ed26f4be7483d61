// Tests of provpol/extend.hpp: VDSM's vectors from its own tests and from the issue, LVM thin-pool
// autoextend, an independent reference of VDSM's Python arithmetic, and seeded invariant sweeps.
#include <provpol/extend.hpp>
#include <provpol/random.hpp>

#include "batch_support.hpp"
#include "test_support.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

using namespace provpol;
using namespace provpol::literals;

namespace {

constexpr std::uint64_t max64 = std::numeric_limits<std::uint64_t>::max();

constexpr extend_decision vdsm(const vdsm_policy& p, bytes capacity, bytes physical, bytes allocation = 0_B,
                               bool replicating = false) {
    drive_state s{drive_capacity(capacity), drive_physical(physical), drive_allocation(allocation)};
    s.replicating = replicating;
    return p.decide(s);
}

}  // namespace

// --- the constexpr path, checked at compile time ------------------------------------------------------------------

static_assert(vdsm_2022().trigger().config.limit(false) == 2048_MiB);
static_assert(vdsm_legacy().trigger().config.limit(false) == 512_MiB);
static_assert(vdsm(vdsm_2022(), 10_GiB, 5_GiB).next_size == bytes(8053063680));
static_assert(vdsm(vdsm_2022(), 10_GiB, 5_GiB).block_threshold == 3_GiB);
static_assert(vdsm_2022().initial_size(10_GiB) == 2560_MiB);
static_assert(vdsm_legacy().initial_size(10_GiB) == 1_GiB);
static_assert(!vdsm_config::make(1024_MiB, 100).has_value());
// A drive's sizes go in by role (tests/compile_fail/drive_state_*.cpp spell the swaps out); its fields stay plain
// bytes, and a state stays a trivially copyable value.
static_assert(!std::is_constructible_v<drive_state, bytes, bytes, bytes>);
static_assert(!std::is_constructible_v<drive_state, drive_physical, drive_capacity, drive_allocation>);
static_assert(!std::is_convertible_v<bytes, drive_capacity> && !std::is_convertible_v<bytes, drive_physical> &&
              !std::is_convertible_v<bytes, drive_allocation>);
static_assert(!std::is_convertible_v<drive_physical, drive_capacity>);
static_assert(std::is_trivially_copyable_v<drive_state> && std::is_same_v<decltype(drive_state::capacity), bytes>);
static_assert(drive_state{}.capacity == 0_B && drive_state{}.allocation == 0_B && !drive_state{}.replicating);
// A batch's three views of sizes go in by role too (tests/compile_fail/extend_batch_input_*.cpp), views of plain bytes.
static_assert(!std::is_convertible_v<batch_view<bytes>, batch_capacity> &&
              !std::is_convertible_v<batch_view<bytes>, batch_physical> &&
              !std::is_convertible_v<batch_view<bytes>, batch_allocation>);
static_assert(!std::is_convertible_v<batch_physical, batch_capacity> &&
              !std::is_convertible_v<batch_capacity, batch_allocation>);
static_assert(std::is_same_v<decltype(extend_batch_input{}.capacity.data()), const bytes*>);
// The chunk is a size, the percent a number and the extent an lvm_extent_size: none reads another
// (tests/compile_fail/vdsm_config_*.cpp spell the misuses out).
namespace {
template <class... A>
constexpr auto vdsm_make_takes(int) -> decltype((void)vdsm_config::make(std::declval<A>()...), true) {
    return true;
}
template <class... A>
constexpr bool vdsm_make_takes(...) {
    return false;
}
}  // namespace
static_assert(vdsm_make_takes<bytes, int>(0) && vdsm_make_takes<bytes, int, lvm_extent_size>(0));
static_assert(!vdsm_make_takes<int, int>(0) && !vdsm_make_takes<int, bytes>(0));
static_assert(!vdsm_make_takes<bytes, int, bytes>(0) && !vdsm_make_takes<bytes, int, int>(0));
static_assert(!std::is_convertible_v<bytes, lvm_extent_size>);

TEST_CASE("configuration: VDSM's settings are validated with the setting, the value and the range") {
    CHECK(vdsm_config::make(2560_MiB, 120).error().message() ==
          "volume_utilization_percent must be in [0, 99], got 120");
    CHECK(vdsm_config::make(0_MiB, 20).error().message() ==
          "volume_utilization_chunk_mb must be in [1MiB, 1PiB], got 0");
    CHECK(vdsm_config::make(2560_MiB, 20, lvm_extent_size(3_MiB)).error().message() ==
          "extent_size must be a power of two, got 3MiB");
    CHECK(vdsm_config::make(2560_MiB, 20, lvm_extent_size(512_KiB)).error().message() ==
          "extent_size must be in [1MiB, 16GiB], got 512KiB");
    CHECK(vdsm_config::make(bytes(1048577), 20).error().message() ==
          "volume_utilization_chunk_mb must be a multiple of 1MiB, got 1048577");
    CHECK(vdsm_config::make(bytes(1000), 20).error().message() ==
          "volume_utilization_chunk_mb must be in [1MiB, 1PiB], got 1000");
    CHECK(vdsm_config::make(1024_TiB + 1_MiB, 20).error().message() ==
          "volume_utilization_chunk_mb must be in [1MiB, 1PiB], got 1073741825MiB");
    CHECK(vdsm_config::make(bytes::max(), 20).error().message() ==
          "volume_utilization_chunk_mb must be in [1MiB, 1PiB], got 18446744073709551615");
    CHECK(vdsm_config::make(1024_TiB, 99).value().chunk_mb() == vdsm_config::max_chunk_mb);
    CHECK(vdsm_config::make(2560_MiB, 20).value().chunk() == 2560_MiB);
    CHECK(vdsm_config::make(2560_MiB, 20).value().chunk_mb() == 2560);
    const vdsm_config c = vdsm_config::make(1024_MiB, 0).value();
    CHECK(c.limit(false) == 1_GiB);  // percent 0: extend whenever less than a whole chunk is free
    CHECK(vdsm_config::make(1024_MiB, 99).value().limit(false) == bytes(1073741824ULL / 100));  // floor division
    // (100 - percent) * chunk // 100 in bytes, floor: 1 MiB * 67 // 100 = 702545.92 -> 702545
    CHECK(vdsm_config::make(1_MiB, 33).value().limit(false) == bytes(702545));
    CHECK(vdsm_config::make(1_MiB, 33).value().limit(true) == bytes(1405091));  // 2 MiB * 67 // 100
}

TEST_CASE("VDSM's test vectors: block threshold") {
    // physical 4 GiB -> threshold 2 GiB (2560 MiB / 20%) and 3.5 GiB (1024 MiB / 50%)
    CHECK(vdsm(vdsm_2022(), 10_GiB, 4_GiB).block_threshold == 2_GiB);
    CHECK(vdsm(vdsm_legacy(), 10_GiB, 4_GiB).block_threshold == 3584_MiB);
    // physical 128 MiB -> threshold 1 (never 0: 0 clears the threshold)
    CHECK(vdsm(vdsm_2022(), 10_GiB, 128_MiB).block_threshold == bytes(1));
    CHECK(vdsm(vdsm_legacy(), 10_GiB, 128_MiB).block_threshold == bytes(1));
    // capacity 10 GiB, physical 5 GiB -> threshold 3 GiB; replicating doubles the chunk and the limit -> 1 GiB
    CHECK(vdsm(vdsm_2022(), 10_GiB, 5_GiB).block_threshold == 3_GiB);
    CHECK(vdsm(vdsm_2022(), 10_GiB, 5_GiB, 0_B, true).block_threshold == 1_GiB);
    CHECK(vdsm(vdsm_2022(), 10_GiB, 5_GiB, 0_B, true).chunk == 5_GiB);
    CHECK(vdsm(vdsm_2022(), 10_GiB, 5_GiB, 0_B, true).limit == 4_GiB);
}

TEST_CASE("VDSM's test vectors: next size and maximum size") {
    CHECK(vdsm(vdsm_2022(), 10_GiB, 5_GiB).next_size == bytes(8053063680));  // 7.5 GiB
    CHECK(vdsm(vdsm_2022(), 8_GiB, 1_GiB).next_size == 3584_MiB);
    CHECK(vdsm(vdsm_2022(), 8_GiB, 2_GiB).next_size == 4608_MiB);
    CHECK(vdsm(vdsm_legacy(), 8_GiB, 1_GiB).next_size == 2_GiB);
    CHECK(vdsm(vdsm_legacy(), 8_GiB, 2_GiB).next_size == 3_GiB);
    const extend_decision near_max = vdsm(vdsm_2022(), 8_GiB, bytes((8_GiB).count() - 1));
    CHECK(near_max.next_size == bytes(9449766912));
    CHECK(near_max.next_size == near_max.max_size);
    CHECK(vdsm(vdsm_2022(), 10_GiB, 0_B).max_size == bytes(11811160064));
    CHECK(vdsm(vdsm_2022(), 1_GiB, 0_B).max_size == bytes(1181745152));
    CHECK(vdsm(vdsm_2022(), 1_GiB, 0_B).max_size_storage == bytes(1207959552));
    const extend_decision big = vdsm(vdsm_2022(), 22_GiB, 22_GiB);
    CHECK(big.max_size == bytes(25984761856));
    CHECK(big.next_size == bytes(25984761856));
    CHECK(big.lv_size_after_extend == 24832_MiB);
    CHECK(extend_succeeded(big.next_size, big.lv_size_after_extend));
    CHECK_FALSE(extend_succeeded(big.next_size, 24_GiB));
}

TEST_CASE("VDSM: needs extension is strict and never wraps") {
    const vdsm_policy p = vdsm_2022();
    // free == limit does not extend; one byte less does.
    CHECK_FALSE(vdsm(p, 10_GiB, 5_GiB, 3_GiB).needs_extend);
    CHECK(vdsm(p, 10_GiB, 5_GiB, bytes((3_GiB).count() + 1)).needs_extend);
    CHECK(vdsm(p, 10_GiB, 5_GiB, bytes((3_GiB).count() + 1)).action == extend_action::extend);
    CHECK(vdsm(p, 10_GiB, 5_GiB, 3_GiB).action == extend_action::none);
    // Allocation above physical (the guest wrote past the LV end as libvirt reports it): no free space.
    const extend_decision over = vdsm(p, 10_GiB, 5_GiB, 6_GiB);
    CHECK(over.needs_extend);
    CHECK_FALSE(over.improbable_allocation);  // 6 GiB <= next size 7.5 GiB
    CHECK(over.action == extend_action::extend);
    CHECK(vdsm(p, bytes::max(), bytes::max(), bytes::max()).needs_extend);
    CHECK(vdsm(p, bytes::max(), 0_B, bytes::max()).needs_extend);
}

TEST_CASE("VDSM: improbable allocation pauses instead of extending") {
    const extend_decision d = vdsm(vdsm_2022(), 10_GiB, 5_GiB, bytes(8053063680 + 1));
    CHECK(d.improbable_allocation);
    CHECK(d.action == extend_action::pause_improbable);
    CHECK_FALSE(vdsm(vdsm_2022(), 10_GiB, 5_GiB, bytes(8053063680)).improbable_allocation);  // strict
    // After a threshold event VDSM extends regardless of the allocation libvirt reports.
    drive_state s{drive_capacity(10_GiB), drive_physical(5_GiB), drive_allocation(bytes(8053063680 + 1))};
    s.threshold_exceeded = true;
    CHECK(vdsm_2022().decide(s).action == extend_action::extend);
    s.allocation = 0_B;
    CHECK(vdsm_2022().decide(s).action == extend_action::extend);
}

TEST_CASE("VDSM: a 10 GiB disk goes 2.5, 5, 7.5, 10, 11 GiB, then cannot extend") {
    const vdsm_policy p = vdsm_2022();
    bytes lv = p.initial_size(10_GiB);
    CHECK(lv == 2560_MiB);
    const bytes expected[] = {5_GiB, 7680_MiB, 10_GiB, 11_GiB};
    for (bytes want : expected) {
        const extend_decision d = vdsm(p, 10_GiB, lv, lv);  // the guest filled the volume
        REQUIRE(d.action == extend_action::extend);
        lv = d.lv_size_after_extend;
        CHECK(lv == want);
        // The next threshold comes from the real LV size.
        CHECK(d.next_block_threshold == block_threshold(lv, 2048_MiB));
    }
    const extend_decision last = vdsm(p, 10_GiB, lv, lv);
    CHECK_FALSE(last.can_extend);
    CHECK(last.action == extend_action::at_maximum);
    CHECK(vdsm(p, 10_GiB, lv, 0_B).action == extend_action::at_maximum);  // at the maximum whatever the allocation
    // The legacy configuration goes by 1 GiB: 1, 2, ..., 10, 11 GiB.
    bytes lv2 = vdsm_legacy().initial_size(10_GiB);
    int extends = 0;
    while (vdsm(vdsm_legacy(), 10_GiB, lv2, lv2).action == extend_action::extend) {
        lv2 = vdsm(vdsm_legacy(), 10_GiB, lv2, lv2).lv_size_after_extend;
        ++extends;
    }
    CHECK(extends == 10);
    CHECK(lv2 == 11_GiB);
}

TEST_CASE("VDSM: a new disk, with and without an explicit initial size") {
    CHECK(vdsm_2022().initial_size(100_GiB) == 2560_MiB);  // BZ#2051997: 2.5 GiB instead of 1 GiB
    CHECK(vdsm_legacy().initial_size(100_GiB) == 1_GiB);
    CHECK(vdsm_2022().initial_size(1_GiB) == 1_GiB);                             // min(chunk, capacity)
    CHECK(vdsm_2022().initial_size(100_MiB) == 128_MiB);                         // rounded up to the extent
    CHECK(vdsm(vdsm_2022(), 100_GiB, 0_B, 0_B, true).initial_size == 2560_MiB);  // never doubled
    const qcow2_lvm_limits limits(vdsm_config::make(2560_MiB, 20).value());      // the 128 MiB extent
    CHECK(initial_size_for(limits, 10_GiB, 1_GiB).value() ==
          1152_MiB);  // floor(1 GiB * 1.1) -> 1126.4 MiB -> 9 extents
    CHECK(initial_size_for(limits, 10_GiB, 10_GiB).value() == 11264_MiB);
    // blockVolume.py calculate_volume_alloc_size refuses only initial_size > max_size (here roundup(11 GiB, 128 MiB)
    // = 11 GiB): at the maximum it allocates floor(11 GiB * 1.1) = 12390.4 MiB -> 97 extents.
    CHECK(initial_size_for(limits, 10_GiB, 11_GiB).value() == 12416_MiB);
    const auto too_big = initial_size_for(limits, 10_GiB, bytes((11_GiB).count() + 1));
    REQUIRE_FALSE(too_big.has_value());
    CHECK(too_big.error().code() == errc::out_of_range);
    CHECK(std::string(too_big.error().message().view()).rfind("initial_size must be in [0, ", 0) == 0);
}

// --- an independent reference: VDSM's Python arithmetic with unbounded integers and IEEE doubles ----------------

#if defined(__SIZEOF_INT128__)
__extension__ using i128 = __int128;

struct reference_decision {
    i128 threshold, next, max_size;
    bool needs, improbable, can_extend;
};

// Transcribes the rules as VDSM states them (thinp.py, storage.py), in 128-bit signed integers so that
// nothing can wrap: Python ints do not.
reference_decision vdsm_reference(std::uint64_t chunk_mb, std::uint64_t percent, std::uint64_t capacity,
                                  std::uint64_t physical, std::uint64_t allocation, bool replicating) {
    const i128 mib = 1048576;
    const i128 chunk = static_cast<i128>(chunk_mb) * mib * (replicating ? 2 : 1);
    const i128 limit = static_cast<i128>(100 - percent) * chunk / 100;
    auto round_up = [](i128 n, i128 size) { return (n + size - 1) / size * size; };
    const i128 max_size = round_up(static_cast<i128>(capacity) * 11 / 10, mib);
    // getNextVolumeSize: min(round(physical + chunk, MiB), getMaxVolumeSize(capacity)).
    i128 vdsm_next = round_up(static_cast<i128>(physical) + chunk, mib);
    if (vdsm_next > max_size) vdsm_next = max_size;
    // provpol's next_size never falls below physical: at the maximum there is no request (_can_extend_drive).
    const i128 next = vdsm_next < physical ? static_cast<i128>(physical) : vdsm_next;
    i128 threshold = static_cast<i128>(physical) - limit;
    if (threshold < 1) threshold = 1;
    return {threshold,
            next,
            max_size,
            static_cast<i128>(physical) - static_cast<i128>(allocation) < limit,
            static_cast<i128>(allocation) > vdsm_next,  // _drive_needs_extend: allocation > nextPhysSize
            static_cast<i128>(physical) < max_size};
}

TEST_CASE("VDSM: agrees with an unbounded-integer reference wherever the result fits in 64 bits") {
    detail::xoshiro256 rng(3);
    const std::uint64_t edges[] = {0,
                                   1,
                                   2,
                                   1048575,
                                   1048576,
                                   1048577,
                                   128ULL << 20,
                                   (128ULL << 20) - 1,
                                   1ULL << 30,
                                   10ULL << 30,
                                   (1ULL << 52) - 1,
                                   1ULL << 52,
                                   max64 / 11,
                                   max64 / 10,
                                   max64 - 1,
                                   max64};
    const std::pair<std::uint64_t, std::uint64_t> configs[] = {{2560, 20}, {1024, 50}, {1, 0},
                                                               {1, 99},    {3, 33},    {1ULL << 30, 7}};
    int checked = 0;
    for (const auto& config : configs) {
        const std::uint64_t chunk_mb = config.first;  // not a structured binding: clang 14 cannot capture those
        const std::uint64_t percent = config.second;
        const vdsm_policy p = make_vdsm_policy(vdsm_config::make(bytes(chunk_mb << 20), percent).value());
        std::vector<drive_state> swept;  // every case, for the batch below
        for (int i = 0; i < 40000; ++i) {
            auto pick = [&]() {
                const std::uint64_t r = rng.next();
                if (r % 4 == 0) return edges[rng.below(std::size(edges))];
                return rng.next() >> rng.below(64);
            };
            const std::uint64_t cap = pick(), phys = pick(), alloc = pick();
            const bool rep = (i & 1) != 0;
            const reference_decision ref = vdsm_reference(chunk_mb, percent, cap, phys, alloc, rep);
            drive_state s{drive_capacity(bytes(cap)), drive_physical(bytes(phys)), drive_allocation(bytes(alloc))};
            s.replicating = rep;
            const extend_decision got = p.decide(s);
            s.threshold_exceeded = (i % 6) == 5;
            swept.push_back(s);
            if (ref.max_size > static_cast<i128>(max64) || phys > max64 - (std::uint64_t{1} << 53))
                continue;  // where Python's result is not a uint64_t, provpol saturates (the invariants test covers it)
            ++checked;
            const bool ok = static_cast<i128>(got.block_threshold.count()) == ref.threshold &&
                            static_cast<i128>(got.next_size.count()) == ref.next &&
                            static_cast<i128>(got.max_size.count()) == ref.max_size && got.needs_extend == ref.needs &&
                            got.improbable_allocation == ref.improbable && got.can_extend == ref.can_extend;
            if (!ok) {
                CAPTURE(chunk_mb);
                CAPTURE(percent);
                CAPTURE(cap);
                CAPTURE(phys);
                CAPTURE(alloc);
                CAPTURE(rep);
                CHECK(ok);
            }
        }
        CHECK(provpol_test::batch_mismatches(p, swept) == 0);  // decide_batch is decide(), every case
    }
    CHECK(checked > 100000);
}
#endif

TEST_CASE("VDSM: max_size equals VDSM's float arithmetic, int(capacity * 1.1), below 465 TiB") {
    // utils.round(capacity * 1.1, MiB) == int(capacity * 1.1 + MiB - 1) // MiB * MiB, all in IEEE doubles.
    auto python = [](std::uint64_t capacity) {
        const double n = static_cast<double>(capacity) * 1.1;
        const auto count = static_cast<std::uint64_t>(n + 1048576.0 - 1.0) / 1048576;
        return count * 1048576;
    };
    const qcow2_lvm_limits limits(vdsm_config::make(2560_MiB, 20).value());  // the 128 MiB extent
    constexpr std::uint64_t first_difference = 511772687788219ULL;           // 465 TiB
    detail::xoshiro256 rng(11);
    for (int i = 0; i < 300000; ++i) {
        std::uint64_t cap = rng.next() >> (15 + rng.below(49));  // below 2^49
        if (cap >= first_difference) cap >>= 1;
        if (i % 3 == 0) cap &= ~std::uint64_t{(1 << 20) - 1};  // whole MiB, as virtual sizes usually are
        if (i % 3 == 1) cap &= ~std::uint64_t{511};            // whole sectors
        if (limits.max_size(bytes(cap)).count() != python(cap)) {
            CAPTURE(cap);
            CHECK(limits.max_size(bytes(cap)).count() == python(cap));
        }
    }
    // The only capacities where the two can differ: 11c/10 = m MiB + r/10 (r = 1..9), where the float product's
    // rounding error can carry floor() past the MiB multiple: those next to 200,000 random MiB multiples agree.
    int candidates = 0;
    for (std::uint64_t k = 0; k < 200000; ++k) {
        const std::uint64_t m = 1 + rng.below((first_difference / 10 * 11) >> 20);
        for (std::uint64_t r = 1; r <= 9; ++r) {
            const std::uint64_t eleven_c = 10 * (m << 20) + r;  // < 2^53: no overflow
            if (eleven_c % 11 != 0) continue;
            const std::uint64_t cap = eleven_c / 11;
            if (cap >= first_difference) continue;
            ++candidates;
            if (limits.max_size(bytes(cap)).count() != python(cap)) {
                CAPTURE(cap);
                CHECK(limits.max_size(bytes(cap)).count() == python(cap));
            }
        }
    }
    CHECK(candidates > 100000);
    // The first capacity where VDSM's float rounds up past a MiB multiple: provpol keeps the exact value.
    CHECK(python(first_difference) == 562949957615616ULL);
    CHECK(limits.max_size(bytes(first_difference)).count() == 562949956567040ULL);  // roundup(c + c/10, MiB)
}

// --- invariants over every preset ---------------------------------------------------------------------------------

namespace {
struct preset_vdsm_2022 {
    static constexpr vdsm_policy make() { return vdsm_2022(); }
};
struct preset_vdsm_legacy {
    static constexpr vdsm_policy make() { return vdsm_legacy(); }
};
struct preset_lvm_thin {
    static constexpr lvm_thin_policy make() { return lvm_thin_autoextend(); }
};
}  // namespace

TEST_CASE_TEMPLATE("invariants hold for random and edge inputs", Preset, preset_vdsm_2022, preset_vdsm_legacy,
                   preset_lvm_thin) {
    const auto policy = Preset::make();
    const std::uint64_t extent = policy.limits().config.extent().count();
    detail::xoshiro256 rng(99);
    const std::uint64_t edges[] = {0,          1,           extent - 1,     extent,    extent + 1,
                                   1ULL << 20, 10ULL << 30, max64 - extent, max64 - 1, max64};
    std::vector<drive_state> swept;  // every case, for the batch below
    for (int i = 0; i < 100000; ++i) {
        auto pick = [&]() { return (i % 5 == 0) ? edges[rng.below(std::size(edges))] : rng.next() >> rng.below(64); };
        drive_state s{drive_capacity(bytes(pick())), drive_physical(bytes(pick())), drive_allocation(bytes(pick()))};
        s.replicating = (i & 2) != 0;
        s.threshold_exceeded = (i & 4) != 0;
        swept.push_back(s);
        const extend_decision d = policy.decide(s);
        CAPTURE(s.capacity.count());
        CAPTURE(s.physical.count());
        CAPTURE(s.allocation.count());
        bool ok = d.block_threshold.count() >= 1 && d.next_block_threshold.count() >= 1;
        ok = ok && d.next_size <= max(d.max_size, s.physical) && d.next_size >= s.physical;
        ok = ok && (d.can_extend ? d.next_size > s.physical : d.next_size == s.physical);  // at the maximum: stays
        ok = ok && d.lv_size_after_extend.count() % extent == 0 && d.initial_size.count() % extent == 0;
        ok = ok && (d.lv_size_after_extend >= d.next_size || d.next_size.count() > max64 - extent);
        ok = ok && (d.action != extend_action::extend || d.can_extend);
        ok = ok && policy.decide(s) == d;  // replaying the same input gives the same decision
        // Monotonic in capacity: a larger virtual disk never gets a smaller maximum or next size.
        drive_state larger = s;
        larger.capacity = bytes(s.capacity.count() + (max64 - s.capacity.count()) / 2);
        const extend_decision dl = policy.decide(larger);
        ok =
            ok && dl.max_size >= d.max_size && dl.next_size >= d.next_size && dl.max_size_storage >= d.max_size_storage;
        if (!ok) CHECK(ok);
    }
    CHECK(provpol_test::batch_mismatches(policy, swept) == 0);  // decide_batch is decide(), every case
}

TEST_CASE("the batch is decide() vectorised: the action, replication and threshold events, by hand") {
    // 10 GiB disks under VDSM 4.50 (2560 MiB chunk, 2048 MiB limit; doubled while replicating).
    const bytes cap[] = {10_GiB, 10_GiB, 10_GiB, 10_GiB, 10_GiB};
    const bytes phys[] = {5_GiB, 5_GiB, 11_GiB, 5_GiB, 11_GiB};
    const bytes alloc[] = {4_GiB, 1536_MiB, 11_GiB, 9_GiB, 1_GiB};
    const bool rep[] = {false, true, false, false, false};
    const bool event[] = {false, false, false, false, true};
    bytes next[5], thr[5];
    extend_action action[5];
    REQUIRE(
        decide_batch(vdsm_2022(),
                     extend_batch_input{batch_capacity(cap), batch_physical(phys), batch_allocation(alloc), rep, event},
                     extend_batch_output{action, batch_next_size(next), batch_block_threshold(thr)})
            .has_value());
    CHECK(action[0] == extend_action::extend);  // 1 GiB free < 2048 MiB
    CHECK(next[0] == 7680_MiB);
    CHECK(action[1] == extend_action::extend);  // 3.5 GiB free < 4096 MiB, replicating: two chunks
    CHECK(next[1] == 10_GiB);
    CHECK(thr[1] == 1_GiB);
    CHECK(action[2] == extend_action::at_maximum);  // 11 GiB is the maximum (10 GiB x 1.1)
    CHECK(next[2] == 11_GiB);
    CHECK(action[3] == extend_action::pause_improbable);  // 9 GiB written in a 5 GiB LV
    CHECK(action[4] == extend_action::at_maximum);        // an event at the maximum: nothing to request
    // Views that do not hold one element per drive are refused, naming the view, and nothing is written.
    bytes short_next[4];
    const auto refused = decide_batch(
        vdsm_2022(), extend_batch_input{batch_capacity(cap), batch_physical(phys), batch_allocation(alloc)},
        extend_batch_output{action, batch_next_size(short_next), batch_block_threshold(thr)});
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error().message() == "next_size (4) must hold at least the drives of capacity (5)");
    const bool two[] = {true, false};
    CHECK(decide_batch(vdsm_2022(),
                       extend_batch_input{batch_capacity(cap), batch_physical(phys), batch_allocation(alloc), two},
                       extend_batch_output{action, batch_next_size(next), batch_block_threshold(thr)})
              .error()
              .message() == "replicating (2) must hold the drives of capacity (5)");
}

TEST_CASE("one agent, two policies: switching is a type or a preset, not code") {
    auto run = [](const auto& policy, bytes capacity, bytes start) {
        bytes lv = start;
        int extends = 0;
        for (int i = 0; i < 1000; ++i) {
            const extend_decision d =
                policy.decide(drive_state{drive_capacity(capacity), drive_physical(lv), drive_allocation(lv)});
            if (d.action != extend_action::extend) break;
            lv = d.lv_size_after_extend;
            ++extends;
        }
        return extends;
    };
    CHECK(run(vdsm_2022(), 10_GiB, 2560_MiB) == 4);
    CHECK(run(lvm_thin_autoextend(), 10_GiB, 1_GiB) > 4);
}

// --- a policy of three step types -----------------------------------------------------------------------------------

namespace {
// VDSM's rule split into its three roles, each a type of its own (the Trigger and the Growth here; qcow2_lvm_limits is
// VDSM's Limits): composed, they must decide as vdsm_steps, which plays all three, does.
struct vdsm_watermark_trigger {
    vdsm_config config;
    constexpr bytes limit(const drive_state& d, bytes /*chunk*/) const noexcept { return config.limit(d.replicating); }
    constexpr bool improbable(const drive_state& d, bytes requested) const noexcept { return d.allocation > requested; }
};
struct vdsm_chunk_growth {
    vdsm_config config;
    constexpr bytes chunk(const drive_state& d) const noexcept { return config.chunk(d.replicating); }
    constexpr bytes initial_size(bytes capacity) const noexcept { return min(config.chunk(), capacity); }
};
// A growth VDSM does not have: double the LV (at least 1 GiB); a new disk gets 1 GiB.
struct doubling_growth {
    constexpr bytes chunk(const drive_state& d) const noexcept { return max(d.physical, 1_GiB); }
    constexpr bytes initial_size(bytes capacity) const noexcept { return min(1_GiB, capacity); }
};
using split_vdsm_policy = extend_policy<vdsm_watermark_trigger, vdsm_chunk_growth, qcow2_lvm_limits>;
using doubling_policy = extend_policy<vdsm_watermark_trigger, doubling_growth, qcow2_lvm_limits>;

constexpr vdsm_config config_2022 = vdsm_config::make(2560_MiB, 20).value();
constexpr split_vdsm_policy split_2022{vdsm_watermark_trigger{config_2022}, vdsm_chunk_growth{config_2022},
                                       qcow2_lvm_limits(config_2022)};
constexpr doubling_policy doubling{vdsm_watermark_trigger{config_2022}, doubling_growth{},
                                   qcow2_lvm_limits(config_2022)};
}  // namespace

static_assert(!std::is_same_v<split_vdsm_policy::trigger_type, split_vdsm_policy::growth_type>);
static_assert(
    split_2022.decide(drive_state{drive_capacity(10_GiB), drive_physical(5_GiB), drive_allocation(3584_MiB)}) ==
    vdsm_2022().decide(drive_state{drive_capacity(10_GiB), drive_physical(5_GiB), drive_allocation(3584_MiB)}));

TEST_CASE("extend_policy of three step types: VDSM's roles as three types decide as vdsm_steps on a sweep") {
    const vdsm_policy whole = vdsm_2022();
    detail::xoshiro256 rng(51);
    for (int i = 0; i < 100000; ++i) {
        drive_state d{drive_capacity(bytes(rng.next() >> rng.below(64))),
                      drive_physical(bytes(rng.next() >> rng.below(64))),
                      drive_allocation(bytes(rng.next() >> rng.below(64)))};
        d.replicating = rng.below(4) == 0;
        d.threshold_exceeded = rng.below(4) == 0;
        if (i % 5 == 0) d.allocation = d.physical;
        const extend_decision a = split_2022.decide(d), b = whole.decide(d);
        if (!(a == b)) CHECK(a == b);
    }
}

TEST_CASE("extend_policy of three step types: a doubling growth over VDSM's trigger and limits, by hand") {
    // 10 GiB disk, a 4 GiB LV with 3 GiB written: 1 GiB free is under VDSM 4.50's 2048 MiB limit, so the LV doubles
    // to 8 GiB (already whole MiB and whole 128 MiB extents), below the maximum of 11 GiB.
    const extend_decision d =
        doubling.decide(drive_state{drive_capacity(10_GiB), drive_physical(4_GiB), drive_allocation(3_GiB)});
    CHECK(d.action == extend_action::extend);
    CHECK(d.chunk == 4_GiB);
    CHECK(d.limit == 2048_MiB);
    CHECK(d.block_threshold == 2_GiB);
    CHECK(d.next_size == 8_GiB);
    CHECK(d.lv_size_after_extend == 8_GiB);
    CHECK(d.next_block_threshold == 6_GiB);
    CHECK(d.max_size == 11_GiB);
    CHECK(d.initial_size == 1_GiB);
    // At 8 GiB the doubling asks 16 GiB and gets the maximum, 11 GiB (11264 MiB, 88 extents).
    const extend_decision e =
        doubling.decide(drive_state{drive_capacity(10_GiB), drive_physical(8_GiB), drive_allocation(7_GiB)});
    CHECK(e.next_size == 11_GiB);
    CHECK(e.lv_size_after_extend == 11_GiB);
}

TEST_CASE("the batch of a policy without a kernel (three step types, LVM's) is decide() too") {
    detail::xoshiro256 rng(5);
    std::vector<drive_state> drives;
    for (int i = 0; i < 3000; ++i) {
        drive_state d{drive_capacity(bytes(rng.next() >> rng.below(64))),
                      drive_physical(bytes(rng.next() >> rng.below(64))),
                      drive_allocation(bytes(rng.next() >> rng.below(64)))};
        d.replicating = rng.below(3) == 0;
        d.threshold_exceeded = rng.below(3) == 0;
        if (i % 3 == 0) d.allocation = d.physical;
        drives.push_back(d);
    }
    CHECK(provpol_test::batch_mismatches(split_2022, drives) == 0);
    CHECK(provpol_test::batch_mismatches(doubling, drives) == 0);
    CHECK(provpol_test::batch_mismatches(lvm_thin_autoextend(), drives) == 0);
}

// LVM2's autoextend has its own tests: lvm_test.cpp.
