// Tests of the fast paths in provpol/extend.hpp: VDSM's branch-free single decision and its vectorised batch
// must equal the policy's saturating steps for every input. The reference is the same steps composed under
// types that have no fast path (the steps' own functions, not a second implementation).
#include <provpol/extend.hpp>
#include <provpol/random.hpp>

#include "test_support.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

using namespace provpol;
using namespace provpol::literals;

namespace {

constexpr std::uint64_t max64 = std::numeric_limits<std::uint64_t>::max();

// The reference of every fast path: the policy's own steps, with saturating arithmetic (decide_steps).
template <class Policy>
struct steps_reference {
    Policy policy;
    extend_decision decide(const drive_state& d) const { return policy.decide_steps(d); }
};
template <class Policy>
steps_reference<Policy> reference_of(const Policy& p) {
    return {p};
}

// The batch's flags byte, from a single decision.
constexpr unsigned flags_of(const extend_decision& d) {
    return (d.needs_extend ? 1u : 0u) * extend_flag_needs_extend +
           (d.improbable_allocation ? 1u : 0u) * extend_flag_improbable +
           (d.can_extend ? 1u : 0u) * extend_flag_can_extend;
}

// Sizes that sit on the fast paths' boundaries: 0, 1, MiB and extent edges, multiples of 10 MiB (where
// floor(11c / 10) crosses a MiB), the batch's 2^47, the single decisions' 2^53 (LVM) and 2^63 (VDSM), and
// 2^64 - 1.
std::vector<std::uint64_t> edge_sizes() {
    std::vector<std::uint64_t> v = {0, 1, 2, 9, 10, 11, max64, max64 - 1, max64 / 10, max64 / 11};
    for (unsigned bits : {20u, 27u, 30u, 34u, 40u, 47u, 50u, 51u, 52u, 60u, 61u, 62u, 63u}) {
        const std::uint64_t b = std::uint64_t{1} << bits;
        for (std::uint64_t d : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2}}) {
            v.push_back(b - d);
            v.push_back(b + d);
        }
    }
    for (std::uint64_t k : {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{953251}, std::uint64_t{12345678}}) {
        const std::uint64_t ten_mib = std::uint64_t{10} << 20;
        v.push_back(k * ten_mib - 10);
        v.push_back(k * ten_mib - 1);
        v.push_back(k * ten_mib);
        v.push_back(k * ten_mib + 1);
    }
    return v;
}

// A random size: uniform magnitude (so that every power of two is common), whole MiB or GiB now and then.
std::uint64_t random_size(detail::xoshiro256& rng, std::uint64_t limit_bits) {
    std::uint64_t v = rng.next() >> (64 - limit_bits + rng.below(limit_bits));
    switch (rng.below(4)) {
        case 0:
            v &= ~((std::uint64_t{1} << 20) - 1);
            break;
        case 1:
            v &= ~((std::uint64_t{1} << 30) - 1);
            break;
        default:
            break;
    }
    return v;
}

const std::pair<std::uint64_t, std::uint64_t> vdsm_settings[] = {{2560, 20}, {1024, 50}, {1, 0},         {1, 99},
                                                                 {3, 33},    {7, 1},     {1ULL << 30, 7}};

}  // namespace

// The fast path is constexpr like the steps.
static_assert(vdsm_2022().decide(drive_state{drive_capacity(10_GiB), drive_physical(5_GiB), drive_allocation(4_GiB)}) ==
              vdsm_2022().decide_steps(drive_state{drive_capacity(10_GiB), drive_physical(5_GiB),
                                                   drive_allocation(4_GiB)}));

// Steps are made only from validated configuration: limits with an extent lvextend cannot have (100 MiB, not a
// power of two) do not compile, and VDSM's policy holds its configuration once.
static_assert(!std::is_constructible_v<qcow2_lvm_limits, bytes>);
static_assert(!std::is_constructible_v<vdsm_steps, bytes>);
static_assert(!std::is_constructible_v<lvm_thin_steps, bytes>);
static_assert(!std::is_constructible_v<vdsm_policy, vdsm_steps, vdsm_steps, qcow2_lvm_limits>);
static_assert(!std::is_default_constructible_v<vdsm_steps>);
static_assert(!std::is_default_constructible_v<qcow2_lvm_limits>);
static_assert(sizeof(vdsm_policy) == sizeof(vdsm_config));

TEST_CASE("VDSM fast decision equals the saturating steps for edge and random inputs") {
    const std::vector<std::uint64_t> edges = edge_sizes();
    detail::xoshiro256 rng(81);
    long compared = 0;
    for (const auto& setting : vdsm_settings) {
        const std::uint64_t chunk_mb = setting.first;  // not a structured binding: clang 14 cannot capture those
        const std::uint64_t percent = setting.second;
        for (std::uint64_t extent_mib : {1u, 4u, 128u, 16384u}) {
            const vdsm_policy p = make_vdsm_policy(
                vdsm_config::make(bytes(chunk_mb << 20), percent, lvm_extent_size(bytes(extent_mib << 20))).value());
            const auto ref = reference_of(p);
            for (int i = 0; i < 20000; ++i) {
                auto pick = [&] { return rng.below(3) == 0 ? edges[rng.below(edges.size())] : random_size(rng, 64); };
                drive_state s{drive_capacity(bytes(pick())), drive_physical(bytes(pick())),
                              drive_allocation(bytes(pick()))};
                if (i % 3 == 0) s.allocation = bytes(s.physical.count() - rng.below(s.physical.count() / 2 + 1));
                s.replicating = rng.below(4) == 0;
                s.threshold_exceeded = rng.below(8) == 0;
                const extend_decision got = p.decide(s);
                const extend_decision want = ref.decide(s);
                ++compared;
                if (got != want) {
                    CAPTURE(chunk_mb);
                    CAPTURE(percent);
                    CAPTURE(extent_mib);
                    CAPTURE(s.capacity.count());
                    CAPTURE(s.physical.count());
                    CAPTURE(s.allocation.count());
                    CAPTURE(s.replicating);
                    CHECK(got == want);
                }
            }
        }
    }
    CHECK(compared == 7 * 4 * 20000);
}

TEST_CASE("the issue's snippet: 100 MiB limits are rejected, as make() rejects them") {
    // `vdsm_policy(vdsm_trigger{c}, vdsm_growth{c}, qcow2_lvm_limits{bytes(100u << 20)})` compiled and gave LV
    // sizes that were not multiples of the extent. Limits are made from a vdsm_config now (static_asserts above),
    // and a vdsm_config with a 100 MiB extent is the error make() gives.
    const auto c = vdsm_config::make(2560_MiB, 20, lvm_extent_size(bytes(100u << 20)));
    REQUIRE_FALSE(c.has_value());
    CHECK(std::string(c.error().message().view()) == "extent_size must be a power of two, got 100MiB");
}

namespace {

// The batch kernels a program may run: decide_batch as called, and each instruction-set version of VDSM's
// blocks on its own (decide_batch runs only one of them on a given CPU). A kernel decides a prefix of the
// drives and returns its length; the rest is decided drive by drive, as decide_batch does.
struct batch_kernel {
    const char* name;
    std::size_t (*run)(const vdsm_policy&, const extend_batch_input&, const extend_batch_output&);
};

std::vector<batch_kernel> batch_kernels() {
    std::vector<batch_kernel> k = {
        {"decide_batch",
         [](const vdsm_policy& p, const extend_batch_input& in, const extend_batch_output& out) {
             return decide_batch(p, in, out).has_value() ? in.size() : std::size_t{0};
         }},
        {"blocks (baseline instruction set)",
         [](const vdsm_policy& p, const extend_batch_input& in, const extend_batch_output& out) {
             return detail::vdsm_batch_blocks(p, in, out);
         }},
    };
#ifdef PROVPOL_EXTEND_BATCH_AVX2
    if (detail::cpu_has_avx2())
        k.push_back(
            {"blocks (AVX2)", [](const vdsm_policy& p, const extend_batch_input& in, const extend_batch_output& out) {
                 return detail::vdsm_batch_blocks_avx2(p, in, out);
             }});
    else
        MESSAGE("this CPU has no AVX2: the AVX2 blocks are not run");
#endif
    return k;
}

void run_kernel(const batch_kernel& k, const vdsm_policy& p, const extend_batch_input& in,
                const extend_batch_output& out) {
    for (std::size_t i = k.run(p, in, out); i < in.size(); ++i) detail::decide_batch_one(p, in, out, i);
}

}  // namespace

TEST_CASE("VDSM batch equals decide() on vectorised blocks, mixed blocks and tails") {
    const std::vector<std::uint64_t> edges = edge_sizes();
    for (const batch_kernel& kernel : batch_kernels()) {
        detail::xoshiro256 rng(47);
        for (const auto& setting : vdsm_settings) {
            const std::uint64_t chunk_mb = setting.first;  // not a structured binding: clang 14 cannot capture those
            const std::uint64_t percent = setting.second;
            const vdsm_policy p = make_vdsm_policy(vdsm_config::make(bytes(chunk_mb << 20), percent).value());
            for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{31}, std::size_t{32}, std::size_t{33},
                                  std::size_t{4099}}) {
                std::vector<bytes> cap(n), phys(n), alloc(n), thr(n), next(n);
                std::vector<extend_action> action(n);
                std::vector<std::uint8_t> flags(n);
                // A replicating drive or a threshold event here and there: their blocks are decided drive by drive,
                // the others by the kernel, with the views given.
                const std::unique_ptr<bool[]> rep(new bool[n + 1]()), event(new bool[n + 1]());
                for (std::size_t i = 0; i < n; ++i) {
                    // Mostly below 2^47 (the vectorised blocks); every 197th drive anywhere, so that some blocks
                    // take the drive-by-drive path.
                    const std::uint64_t bits = i % 197 == 196 ? 64 : 47;
                    auto pick = [&] {
                        if (rng.below(4) == 0) {
                            const std::uint64_t e = edges[rng.below(edges.size())];
                            if (bits == 64 || e < (std::uint64_t{1} << 47)) return e;
                        }
                        return random_size(rng, bits);
                    };
                    cap[i] = bytes(pick());
                    phys[i] = bytes(pick());
                    alloc[i] = i % 3 == 0 ? bytes(phys[i].count() - rng.below(phys[i].count() / 4 + 1)) : bytes(pick());
                    rep[i] = i % 211 == 100;
                    event[i] = i % 223 == 50;
                }
                run_kernel(kernel, p,
                           extend_batch_input{batch_capacity(cap),
                                              batch_physical(phys),
                                              batch_allocation(alloc),
                                              {rep.get(), n},
                                              {event.get(), n}},
                           extend_batch_output{action, batch_next_size(next), batch_block_threshold(thr), flags});
                for (std::size_t i = 0; i < n; ++i) {
                    drive_state s{drive_capacity(cap[i]), drive_physical(phys[i]), drive_allocation(alloc[i])};
                    s.replicating = rep[i];
                    s.threshold_exceeded = event[i];
                    const extend_decision d = p.decide(s);
                    if (thr[i] != d.block_threshold || next[i] != d.next_size || flags[i] != flags_of(d) ||
                        action[i] != d.action) {
                        CAPTURE(kernel.name);
                        CAPTURE(chunk_mb);
                        CAPTURE(percent);
                        CAPTURE(i);
                        CAPTURE(cap[i]);
                        CAPTURE(phys[i]);
                        CAPTURE(alloc[i]);
                        CHECK(thr[i] == d.block_threshold);
                        CHECK(next[i] == d.next_size);
                        CHECK(static_cast<unsigned>(flags[i]) == flags_of(d));
                        CHECK(static_cast<unsigned>(action[i]) == static_cast<unsigned>(d.action));
                    }
                }
            }
        }
    }
}

TEST_CASE("VDSM batch: the max-size arithmetic is exact on every MiB boundary below 2^47") {
    // max size = roundup(floor(capacity * 11 / 10), MiB). Capacities where floor(11c / 10) is a multiple of a
    // MiB, and one byte either side, are where a wrong floor or ceil would show.
    const vdsm_policy p = vdsm_2022();
    std::vector<bytes> cap;
    detail::xoshiro256 rng(1047);
    for (int i = 0; i < 20000; ++i) {
        const std::uint64_t m = rng.below(std::uint64_t{1} << 27) + 1;  // a max size of m MiB
        // The smallest c with floor(11c / 10) >= m MiB is ceil(10 m MiB / 11).
        const std::uint64_t c = (m * 10 * (std::uint64_t{1} << 20) + 10) / 11;
        for (std::uint64_t d : {c - 1, c, c + 1}) cap.push_back(bytes(d));
    }
    const std::size_t n = cap.size();
    std::vector<bytes> zero(n, 0_B), phys(n);
    for (std::size_t i = 0; i < n; ++i)
        phys[i] =
            p.decide(drive_state{drive_capacity(cap[i]), drive_physical(0_B), drive_allocation(0_B)}).max_size - 1_B;
    for (const batch_kernel& kernel : batch_kernels()) {
        CAPTURE(kernel.name);
        // Physical 0 and allocation 0: next size = min(chunk, max size); can extend = max size > 0.
        std::vector<bytes> thr(n), next(n);
        std::vector<extend_action> action(n);
        std::vector<std::uint8_t> flags(n);
        run_kernel(kernel, p, extend_batch_input{batch_capacity(cap), batch_physical(zero), batch_allocation(zero)},
                   extend_batch_output{action, batch_next_size(next), batch_block_threshold(thr), flags});
        // The same question with physical just below the max size, so that next size is the max size itself.
        std::vector<bytes> thr2(n), next2(n);
        std::vector<extend_action> action2(n);
        std::vector<std::uint8_t> flags2(n);
        run_kernel(kernel, p, extend_batch_input{batch_capacity(cap), batch_physical(phys), batch_allocation(zero)},
                   extend_batch_output{action2, batch_next_size(next2), batch_block_threshold(thr2), flags2});
        int mismatches = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const extend_decision d =
                p.decide(drive_state{drive_capacity(cap[i]), drive_physical(0_B), drive_allocation(0_B)});
            const extend_decision d2 =
                p.decide(drive_state{drive_capacity(cap[i]), drive_physical(phys[i]), drive_allocation(0_B)});
            // An independent statement of the maximum: the smallest multiple of a MiB >= floor(11c / 10).
            const std::uint64_t exact = cap[i].count() + cap[i].count() / 10;
            const std::uint64_t want_max = (exact + (std::uint64_t{1} << 20) - 1) >> 20 << 20;
            if (d.max_size.count() != want_max || next[i] != d.next_size || flags[i] != flags_of(d) ||
                action[i] != d.action || next2[i].count() != want_max || next2[i] != d2.next_size ||
                flags2[i] != flags_of(d2) || action2[i] != d2.action)
                ++mismatches;
        }
        CHECK(mismatches == 0);
    }
}

// The batch is constexpr too: in a constant expression every drive goes through decide().
namespace {
constexpr bool batch_in_constant_evaluation() {
    constexpr std::size_t n = 35;
    bytes cap[n] = {}, phys[n] = {}, alloc[n] = {}, thr[n] = {}, next[n] = {};
    bool rep[n] = {}, event[n] = {};
    extend_action action[n] = {};
    std::uint8_t flags[n] = {};
    for (std::size_t i = 0; i < n; ++i) {
        cap[i] = bytes((i + 1) * (std::uint64_t{3} << 30));
        phys[i] = bytes((i + 1) * (std::uint64_t{1} << 30));
        alloc[i] = bytes(phys[i].count() - (i << 28));
        rep[i] = i % 3 == 0;
        event[i] = i % 5 == 0;
    }
    const vdsm_policy p = vdsm_2022();
    if (!decide_batch(
            p, extend_batch_input{batch_capacity(cap), batch_physical(phys), batch_allocation(alloc), rep, event},
            extend_batch_output{action, batch_next_size(next), batch_block_threshold(thr), flags}))
        return false;
    for (std::size_t i = 0; i < n; ++i) {
        drive_state s{drive_capacity(cap[i]), drive_physical(phys[i]), drive_allocation(alloc[i])};
        s.replicating = rep[i];
        s.threshold_exceeded = event[i];
        const extend_decision d = p.decide(s);
        if (thr[i] != d.block_threshold || next[i] != d.next_size || flags[i] != flags_of(d) || action[i] != d.action)
            return false;
    }
    return true;
}
}  // namespace
static_assert(batch_in_constant_evaluation());

namespace {

// VDSM's getNextVolumeSize(physical, capacity) as lib/vdsm/virt/vmdevices/storage.py writes it, in Python's
// arithmetic: utils.round(n, size) is n + size - 1 less its remainder, getMaxVolumeSize rounds the float
// capacity * VOLWM_COW_OVERHEAD (1.1), and min() compares an int with a float exactly (every value here is
// below 2^53, where a double holds it exactly). Written from VDSM's source, not from provpol.
double vdsm_next_phys_size(std::uint64_t capacity, std::uint64_t physical, std::uint64_t chunk) {
    const double mib = 1048576.0;
    const double a = static_cast<double>(capacity) * 1.1 + (mib - 1);
    const double max_size = a - std::fmod(a, mib);
    const std::uint64_t b = physical + chunk + (std::uint64_t{1} << 20) - 1;
    const double next = static_cast<double>(b - b % (std::uint64_t{1} << 20));
    return next < max_size ? next : max_size;
}

}  // namespace

TEST_CASE("VDSM's improbable allocation on LVs above the maximum, on every path (steps, fast path, batch kernels)") {
    // thinp.py's _drive_needs_extend pauses the VM (EOTHER, BZ#998443) when allocation > getNextVolumeSize(), which
    // is min(physical + chunk, maximum): below the LV when the LV was rounded up past the maximum to the 128 MiB
    // extent, or created larger. It runs before _handle_exceeded's _can_extend_drive, so the VM pauses at the
    // maximum too; after a threshold event (_handle_exceeded) there is no allocation check.
    // capacity 128 MiB: maximum 141 MiB (140.8 rounded up); an LV of 256 MiB; VDSM's next size 141 MiB.
    CHECK(vdsm_next_phys_size(std::uint64_t{128} << 20, std::uint64_t{256} << 20, std::uint64_t{2560} << 20) ==
          147849216.0);
    const std::uint64_t mib = std::uint64_t{1} << 20;
    const std::uint64_t capacities[] = {128 * mib,   1024 * mib,     1025 * mib,  10240 * mib,
                                        21504 * mib, 3072 * mib + 5, 102400 * mib};
    const std::uint64_t extent = 128 * mib;
    std::vector<bytes> cap, phys, alloc;
    std::vector<bool> improbable;
    int above_maximum = 0, paused = 0;
    for (const vdsm_policy& p : {vdsm_2022(), vdsm_legacy()}) {
        CAPTURE(p.trigger().config.chunk_mb());
        cap.clear();
        phys.clear();
        alloc.clear();
        improbable.clear();
        for (const std::uint64_t c : capacities) {
            const double a = static_cast<double>(c) * 1.1 + 1048575.0;
            const auto max_size = static_cast<std::uint64_t>(a - std::fmod(a, 1048576.0));
            const std::uint64_t rounded = (max_size + extent - 1) / extent * extent;
            // The LV at, just past, rounded up past and well past the maximum, and one chunk below it.
            const std::uint64_t gib = std::uint64_t{1} << 30;
            const std::uint64_t lvs[] = {max_size,     max_size + 4096,
                                         rounded,      rounded + extent,
                                         2 * max_size, max_size > 4 * gib ? max_size - 3 * gib : max_size / 2};
            for (const std::uint64_t lv : lvs) {
                for (const bool rep : {false, true}) {
                    const std::uint64_t chunk = p.trigger().config.chunk(rep).count();
                    const auto next = static_cast<std::uint64_t>(vdsm_next_phys_size(c, lv, chunk));
                    for (const std::uint64_t al : {next - 1, next, next + 1}) {
                        CAPTURE(c);
                        CAPTURE(lv);
                        CAPTURE(al);
                        CAPTURE(rep);
                        const bool want = static_cast<double>(al) > vdsm_next_phys_size(c, lv, chunk);
                        drive_state s{drive_capacity(bytes(c)), drive_physical(bytes(lv)), drive_allocation(bytes(al))};
                        s.replicating = rep;
                        const extend_decision d = p.decide(s), steps = p.decide_steps(s);
                        CHECK(p.trigger().fast_path_applies(s));
                        CHECK(d.improbable_allocation == want);
                        CHECK(steps.improbable_allocation == want);
                        CHECK(d == steps);
                        CHECK(d.next_size >= s.physical);  // next_size keeps its meaning: never a shrink
                        CHECK((d.action == extend_action::pause_improbable) == want);
                        s.threshold_exceeded = true;  // _handle_exceeded: no allocation check
                        CHECK(p.decide(s).action ==
                              (lv < max_size ? extend_action::extend : extend_action::at_maximum));
                        if (lv > max_size) ++above_maximum;
                        if (want && lv > max_size) ++paused;
                        if (!rep) {
                            cap.push_back(bytes(c));
                            phys.push_back(bytes(lv));
                            alloc.push_back(bytes(al));
                            improbable.push_back(want);
                        }
                    }
                }
            }
        }
        // The batch: whole blocks of 32 drives (the vectorised kernels) and a tail, from the same rows.
        const std::size_t rows = cap.size();
        while (cap.size() < 3 * detail::vdsm_batch_block + 5) {
            const std::size_t j = cap.size() % rows;
            cap.push_back(cap[j]);
            phys.push_back(phys[j]);
            alloc.push_back(alloc[j]);
            improbable.push_back(improbable[j]);
        }
        const std::size_t n = cap.size();
        for (const batch_kernel& kernel : batch_kernels()) {
            CAPTURE(kernel.name);
            std::vector<bytes> thr(n), next(n);
            std::vector<extend_action> action(n);
            std::vector<std::uint8_t> flags(n);
            run_kernel(kernel, p,
                       extend_batch_input{batch_capacity(cap), batch_physical(phys), batch_allocation(alloc)},
                       extend_batch_output{action, batch_next_size(next), batch_block_threshold(thr), flags});
            for (std::size_t i = 0; i < n; ++i) {
                CAPTURE(i);
                CAPTURE(cap[i]);
                CAPTURE(phys[i]);
                CAPTURE(alloc[i]);
                CHECK(((flags[i] & extend_flag_improbable) != 0) == improbable[i]);
                CHECK((action[i] == extend_action::pause_improbable) == improbable[i]);
                CHECK(next[i] >= phys[i]);
            }
        }
    }
    CHECK(above_maximum > 100);
    CHECK(paused > 50);  // the case the rule is about: above the maximum and improbable
}

// LVM's fast path (lvm_thin_steps::decide_fast) against its steps: every lvm.conf corner (threshold under 50, 50
// to 99, disabled; percent 0, 1, 20, past 100; extents from 1 KiB, where (2^32 - 1) extents bound the fast path,
// to 16 GiB; pool chunks of 64 KiB, a multiple that is no power of two, 1 GiB), sizes on the fast path's bounds
// (2^50, one chunk) and allocations on the trigger's block and the blocks beside it.
TEST_CASE("LVM fast decision equals the saturating steps for edge and random inputs") {
    const std::vector<std::uint64_t> edges = edge_sizes();
    detail::xoshiro256 rng(82);
    long compared = 0, fast = 0, extending = 0;
    for (std::uint64_t threshold : {0u, 50u, 69u, 70u, 95u, 99u, 100u}) {
        for (std::uint64_t percent : {0u, 1u, 20u, 150u, 1000000u}) {
            for (std::uint64_t extent : {std::uint64_t{1} << 10, std::uint64_t{4} << 20, std::uint64_t{16} << 30}) {
                for (std::uint64_t chunk :
                     {std::uint64_t{64} << 10, std::uint64_t{192} << 10, std::uint64_t{1} << 30}) {
                    const lvm_thin_policy p = make_lvm_thin_policy(
                        lvm_autoextend_config::make(lvm_threshold(threshold), lvm_percent(percent),
                                                    lvm_extent_size(bytes(extent)), lvm_chunk_size(bytes(chunk)))
                            .value());
                    const auto ref = reference_of(p);
                    for (int i = 0; i < 1500; ++i) {
                        auto pick = [&] {
                            return rng.below(3) == 0 ? edges[rng.below(edges.size())] : random_size(rng, 51);
                        };
                        drive_state s{drive_capacity(bytes(pick())), drive_physical(bytes(pick())),
                                      drive_allocation(bytes(pick()))};
                        if (i % 3 != 0) {  // the allocation at the trigger's block, or a block beside it
                            const std::uint64_t total = s.physical.count() / chunk;
                            const std::uint64_t u =
                                lvm_trigger_blocks(blocks(total), p.trigger().config.threshold_percent()).count();
                            // The block before the trigger's, the trigger's or the next (none before block 0), its
                            // last byte or the one before; saturating, as a physical size near 2^64 gives a trigger
                            // whose byte offset passes 64 bits (no unsigned wrap).
                            const std::uint64_t step = rng.below(3), back = rng.below(2);
                            const std::uint64_t block = (u == 0 ? 0 : u - 1) + step;
                            const std::uint64_t at =
                                block > ~std::uint64_t{0} / chunk ? ~std::uint64_t{0} : block * chunk;
                            s.allocation = bytes(at >= back ? at - back : 0);
                        }
                        s.threshold_exceeded = rng.below(8) == 0;
                        const extend_decision got = p.decide(s);
                        const extend_decision want = ref.decide(s);
                        ++compared;
                        if (p.trigger().fast_path_applies(s)) {
                            ++fast;
                            if (want.chunk.count() != (extent * percent + 99) / 100 / extent * extent) ++extending;
                        }
                        if (got != want) {
                            CAPTURE(threshold);
                            CAPTURE(percent);
                            CAPTURE(extent);
                            CAPTURE(chunk);
                            CAPTURE(s.capacity.count());
                            CAPTURE(s.physical.count());
                            CAPTURE(s.allocation.count());
                            CHECK(got == want);
                        }
                    }
                }
            }
        }
    }
    CHECK(compared == 7 * 5 * 3 * 3 * 1500);
    CHECK(fast > compared / 5);  // the fast path is what is compared (not disabled, percent 0 or over 2^50)
    CHECK(extending > fast / 20);
}

// The fast path's trigger: the first used block count above the threshold from the configuration's precomputed
// fraction, equal to lvm_trigger_blocks for every pool of 1 to 20,000 blocks at every threshold lvm2 acts on, and
// for random pools up to 2^53 blocks.
TEST_CASE("LVM fast trigger equals lvm_trigger_blocks") {
    long compared = 0;
    detail::xoshiro256 rng(83);
    for (std::uint64_t threshold = 50; threshold <= 99; ++threshold) {
        const lvm_autoextend_config c = lvm_autoextend_config::make(lvm_threshold(threshold), lvm_percent(20)).value();
        for (std::uint64_t total = 1; total <= 20000; ++total) {
            const std::uint64_t got = detail::lvm_trigger_blocks_near(total, c);
            if (got != lvm_trigger_blocks(blocks(total), c.threshold_percent()).count()) {
                CAPTURE(threshold);
                CAPTURE(total);
                CHECK(got == lvm_trigger_blocks(blocks(total), c.threshold_percent()).count());
            }
            ++compared;
        }
        for (int i = 0; i < 2000; ++i) {
            const std::uint64_t total = 1 + (rng.next() >> (11 + rng.below(53)));
            CAPTURE(threshold);
            CAPTURE(total);
            CHECK(detail::lvm_trigger_blocks_near(total, c) ==
                  lvm_trigger_blocks(blocks(total), c.threshold_percent()).count());
        }
    }
    CHECK(compared == 50 * 20000);
}
