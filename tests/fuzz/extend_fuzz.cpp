// Fuzzes the extend policies (VDSM, LVM thin pool, rate-aware) with arbitrary configurations and drives, and
// checks the invariants a storage engineer relies on: the next size never exceeds the maximum and never falls
// below physical unless the volume is at its maximum, thresholds are at least 1, LV sizes are extent-aligned,
// the batch path agrees with the single decision, and replaying an input gives the same decision.
#include "fuzz_check.hpp"

#include <provpol/extend.hpp>
#include <provpol/simulate/rate_aware.hpp>

#include <cstdint>

namespace {

using namespace provpol;

template <class Policy>
void check(const Policy& policy, const drive_state& s, std::uint64_t extent) {
    const extend_decision d = policy.decide(s);
    PROVPOL_FUZZ_CHECK(d.block_threshold.count() >= 1);
    PROVPOL_FUZZ_CHECK(d.next_block_threshold.count() >= 1);
    PROVPOL_FUZZ_CHECK(d.next_size <= max(d.max_size, s.physical));
    PROVPOL_FUZZ_CHECK(d.can_extend ? d.next_size > s.physical : d.next_size == s.physical);
    PROVPOL_FUZZ_CHECK(d.can_extend == (s.physical < d.max_size));
    PROVPOL_FUZZ_CHECK(d.lv_size_after_extend.count() % extent == 0);
    PROVPOL_FUZZ_CHECK(d.initial_size.count() % extent == 0);
    PROVPOL_FUZZ_CHECK(d.lv_size_after_extend >= d.next_size || d.next_size.count() > ~std::uint64_t{0} - extent);
    PROVPOL_FUZZ_CHECK(d.needs_extend ==
                       (s.allocation > s.physical || s.physical.count() - s.allocation.count() < d.limit.count()));
    PROVPOL_FUZZ_CHECK(d.block_threshold == max(bytes(1), saturating_sub(s.physical, d.limit)));
    PROVPOL_FUZZ_CHECK(d.action != extend_action::extend || d.can_extend);
    PROVPOL_FUZZ_CHECK(d.action != extend_action::at_maximum || !d.can_extend);
    // Without a threshold event an improbable allocation pauses, at the maximum too (VDSM's _handle_unset).
    PROVPOL_FUZZ_CHECK((d.action == extend_action::pause_improbable) ==
                       (d.improbable_allocation && !s.threshold_exceeded));
    PROVPOL_FUZZ_CHECK(policy.decide(s) == d);  // a replay decides the same
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::reader in(data, size);
    const std::uint64_t chunk_mb = in.u64() % (vdsm_config::max_chunk_mb + 2);  // includes invalid 0 and max + 1
    const std::uint64_t percent = in.u8() % 102;
    const std::uint64_t extent = std::uint64_t{1} << (in.u8() % 40);
    drive_state s{drive_capacity(bytes(in.size_like())), drive_physical(bytes(in.size_like())),
                  drive_allocation(bytes(in.size_like()))};
    s.replicating = in.flag();
    s.threshold_exceeded = in.flag();
    s.write_rate = rate(in.size_like());
    const milliseconds budget(static_cast<milliseconds::rep>(in.u32() % (max_latency_budget.count() + 2)));

    const auto vc = vdsm_config::make(bytes(chunk_mb << 20), percent, lvm_extent_size(bytes(extent)));
    const bool valid = chunk_mb >= 1 && chunk_mb <= vdsm_config::max_chunk_mb && percent <= 99 &&
                       extent >= (1u << 20) && extent <= (std::uint64_t{1} << 34);
    PROVPOL_FUZZ_CHECK(vc.has_value() == valid);
    if (vc) {
        PROVPOL_FUZZ_CHECK(vc->limit(false).count() <= vc->chunk().count());
        check(make_vdsm_policy(*vc), s, extent);
        const auto ra = make_rate_aware_policy(*vc, budget);
        PROVPOL_FUZZ_CHECK(ra.has_value() == (budget >= milliseconds(1) && budget <= max_latency_budget));
        if (ra) {
            check(*ra, s, extent);
            const extend_decision dr = ra->decide(s);
            drive_state still = s;
            still.write_rate = rate(0);
            const extend_decision df = make_vdsm_policy(*vc).decide(still);
            PROVPOL_FUZZ_CHECK(dr.limit >= df.limit && dr.chunk >= df.chunk);  // never below the floor
        }
        // The batch path decides exactly like the single one, replication and threshold events included.
        const bool rep = s.replicating, event = s.threshold_exceeded;
        bytes thr, next;
        extend_action action = extend_action::none;
        std::uint8_t flags = 0;
        const extend_batch_input batch{batch_capacity({&s.capacity, 1}),
                                       batch_physical({&s.physical, 1}),
                                       batch_allocation({&s.allocation, 1}),
                                       {&rep, 1},
                                       {&event, 1}};
        PROVPOL_FUZZ_CHECK(
            decide_batch(make_vdsm_policy(*vc), batch,
                         {{&action, 1}, batch_next_size({&next, 1}), batch_block_threshold({&thr, 1}), {&flags, 1}})
                .has_value());
        drive_state plain = s;
        plain.write_rate = rate(0);
        const extend_decision one = make_vdsm_policy(*vc).decide(plain);
        PROVPOL_FUZZ_CHECK(thr == one.block_threshold && next == one.next_size && action == one.action);
        PROVPOL_FUZZ_CHECK(((flags & extend_flag_needs_extend) != 0) == one.needs_extend);
        PROVPOL_FUZZ_CHECK(((flags & extend_flag_improbable) != 0) == one.improbable_allocation);
        PROVPOL_FUZZ_CHECK(((flags & extend_flag_can_extend) != 0) == one.can_extend);
    }

    // LVM: the threshold as lvm.conf takes it (any value; under 50 acts as 50, 100 and more disable), percent 0
    // to 10^6 (0 accepted, failing at extend time), the extent a power of two from 1 KiB to 16 GiB.
    const std::uint64_t threshold = in.u8() % 2 == 0 ? in.u8() % 110 : in.u32();
    const std::uint64_t grow = in.u32() % 1100000;
    const std::uint64_t lvm_extent = std::uint64_t{1} << (in.u8() % 40);
    const auto lc =
        lvm_autoextend_config::make(lvm_threshold(threshold), lvm_percent(grow), lvm_extent_size(bytes(lvm_extent)));
    PROVPOL_FUZZ_CHECK(lc.has_value() == (threshold <= 0x7fffffffu && grow <= 1000000 && lvm_extent >= 1024 &&
                                          lvm_extent <= (std::uint64_t{1} << 34)));
    if (lc) {
        drive_state pool = s;
        pool.replicating = false;
        if (grow >= 1) check(make_lvm_thin_policy(*lc), pool, lvm_extent);
        // The whole lvextend decision: never shrinks, grows only on "extend", in whole extents, within the VG.
        lvm_volume_state v = lvm_volume_state::thin(align_down(s.physical, bytes(lvm_extent)), s.allocation,
                                                    lc->pool_chunk(), bytes(in.u64()));
        const lvm_autoextend_decision d = decide_lvm_autoextend(*lc, v);
        PROVPOL_FUZZ_CHECK(d.usage >= 0 && d.usage <= lvm_percent_100);
        PROVPOL_FUZZ_CHECK(d.new_size >= v.size);
        PROVPOL_FUZZ_CHECK((d.new_size > v.size) == (d.outcome == lvm_outcome::extend && d.add_extents != 0));
        PROVPOL_FUZZ_CHECK(d.new_size.count() % lvm_extent == 0);
        PROVPOL_FUZZ_CHECK(d.outcome != lvm_outcome::extend || d.vg_needed <= v.vg_free);
        PROVPOL_FUZZ_CHECK(!lc->enabled() ? d.outcome == lvm_outcome::disabled : true);
        PROVPOL_FUZZ_CHECK(decide_lvm_autoextend(*lc, v).new_size == d.new_size);  // a replay decides the same
    }
    return 0;
}
