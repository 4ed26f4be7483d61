// Shared by the extend tests: decide_batch held to decide(), drive by drive, on the drives a sweep has collected.
#ifndef PROVPOL_TESTS_BATCH_SUPPORT_HPP
#define PROVPOL_TESTS_BATCH_SUPPORT_HPP

#include <provpol/extend/policy.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace provpol_test {

inline unsigned flags_of(const provpol::extend_decision& d) {
    return (d.needs_extend ? 1u : 0u) | (d.improbable_allocation ? 2u : 0u) | (d.can_extend ? 4u : 0u);
}

// Decides `drives` with decide_batch (as one batch, with every optional view filled) and with decide() one by one,
// and returns how many drives differ in the action, the next size, the block threshold or the flags (each difference
// is CHECKed with the drive captured).
template <class Policy>
std::size_t batch_mismatches(const Policy& policy, const std::vector<provpol::drive_state>& drives) {
    using namespace provpol;
    const std::size_t n = drives.size();
    std::vector<bytes> cap(n), phys(n), alloc(n), next(n), thr(n);
    std::vector<rate> rates(n);
    const std::unique_ptr<bool[]> rep(new bool[n + 1]), event(new bool[n + 1]);  // std::vector<bool> has no data()
    std::vector<extend_action> action(n);
    std::vector<std::uint8_t> flags(n);
    for (std::size_t i = 0; i < n; ++i) {
        cap[i] = drives[i].capacity;
        phys[i] = drives[i].physical;
        alloc[i] = drives[i].allocation;
        rep[i] = drives[i].replicating;
        event[i] = drives[i].threshold_exceeded;
        rates[i] = drives[i].write_rate;
    }
    const extend_batch_input in{batch_capacity(cap), batch_physical(phys), batch_allocation(alloc),
                                {rep.get(), n},      {event.get(), n},     rates};
    const auto ok =
        decide_batch(policy, in, extend_batch_output{action, batch_next_size(next), batch_block_threshold(thr), flags});
    REQUIRE(ok.has_value());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const extend_decision d = policy.decide(drives[i]);
        if (action[i] == d.action && next[i] == d.next_size && thr[i] == d.block_threshold && flags[i] == flags_of(d))
            continue;
        ++wrong;
        CAPTURE(i);
        CAPTURE(cap[i].count());
        CAPTURE(phys[i].count());
        CAPTURE(alloc[i].count());
        CAPTURE(rep[i]);
        CAPTURE(event[i]);
        CHECK(to_text(action[i]) == std::string(to_text(d.action)));
        CHECK(next[i] == d.next_size);
        CHECK(thr[i] == d.block_threshold);
        CHECK(static_cast<unsigned>(flags[i]) == flags_of(d));
    }
    return wrong;
}

}  // namespace provpol_test

#endif  // PROVPOL_TESTS_BATCH_SUPPORT_HPP
