// provpol/simulate/rate_aware.hpp - the rate-aware agents (rate_aware_agent, adaptive_rate_aware_agent): an extend
// policy that sizes the free-space limit and the chunk from the write rate the agent observes, on top of any static
// VDSM configuration as its floor.
//
// Why: a static configuration trades pauses against space for every disk alike. vdsm-2022 (2560 MiB / 20%)
// writes four times faster than vdsm-legacy before pausing, at 1.5 GiB more for every new empty disk, and still
// pauses about 18 times per 50 GiB at 1000 MiB/s. The agent sees the allocation grow; a guest that writes fast
// needs a larger limit (rate x latency) and larger chunks (so that one extend in flight keeps pace), an idle
// disk needs neither.
//
// The pieces (the estimator in write_rate_estimator.hpp, the policy in rate_aware_policy.hpp, the agents here; this
// header includes the other two):
// - write_rate_estimator: a small value an agent keeps per drive. Feed it allocation samples and the
//   threshold, pause and extend events with their times; read a rate and how many measured intervals it rests
//   on. Fast attack, slow decay: a burst raises the estimate at once (a pause that an underestimate causes is
//   the costly error), a stall or a quiet spell lowers it with a half-life (default 60 s). It ignores time
//   going backwards, and restarts its baseline when the allocation goes backwards (a reduce) or the guest was
//   paused. A pause event gives the exact rate: the guest wrote from the threshold to the LV end in the time
//   between the two events.
// - rate_aware_steps: the steps of extend_policy (all three roles). limit = max(floor limit, rate x budget);
//   chunk = max(floor chunk, rate x budget); both rounded up to whole MiB. The budget is a latency the agent
//   plans for: a high quantile of a latency model (latency_budget()), or fixed seconds. The floor is any VDSM
//   configuration (default vdsm-legacy: an idle new disk costs 1 GiB, as before 2022). Every VDSM limit holds:
//   1 MiB requests, 128 MiB extents, the qcow2 maximum, the improbable-allocation check.
// - rate_aware_agent: the estimator and the policy together, as the simulator drives an agent.
// - adaptive_rate_aware_agent, load_adaptation and exposure_tracker: the agent whose budget also follows the
//   extend latency it observes. A latency model describes one drive alone; in a storage domain the SPM
//   serializes every drive's lvextend (domain.hpp), and under load an extend takes longer than any model of one
//   drive says. The agent sees it: the time its drive stays past the limit, from the block threshold to the grown
//   LV (its exposure). The adaptive agent's budget is max(the policy's budget, margin x the longest recent
//   exposure): the limit and the chunk grow with the queue, so each drive asks less often (one extend per
//   budget), which shortens the queue.
//   An extend still pending counts too, its time so far weighted (a request that waited x seconds in a queue has
//   more to wait): the agent that learns of the queue only when its extend completes learns it one extend late.
//
// Choices, and why:
// - At most two extends in flight per drive (rate_aware_agent's max_in_flight, default 2; VDSM keeps one). The
//   second request, on top of a pending one, is made only when the pending one, sized from an earlier (lower)
//   estimate, leaves less than the limit free: the mailbox carries many requests, and the estimator already
//   sizes the first extend from the interval that crossed the threshold, so the second is rare. Pass 1 for
//   VDSM's behaviour. The simulator shows what remains: at most the first extend of a burst pauses, because
//   nothing the agent can observe tells it that a burst is coming before it starts.
// - chunk = limit = rate x budget: with a limit of rate x budget the extend completes before the guest
//   reaches the LV end; with a chunk of at least the same the guest cannot gain on the extends, so each cycle
//   starts with at least `limit` free again (the condition under which flow/risk.hpp's per-extend model holds).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_RATE_AWARE_HPP
#define PROVPOL_SIMULATE_RATE_AWARE_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../detail/math.hpp"
#include "../extend/presets.hpp"
#include "../result.hpp"
#include "../time.hpp"
#include "rate_aware_policy.hpp"  // IWYU pragma: export
#include "run.hpp"
#include "write_rate_estimator.hpp"  // IWYU pragma: export

#include <cstdint>

namespace provpol {

/// How an adaptive_rate_aware_agent's latency budget follows the exposure it observes (see the header comment):
/// budget = max(policy budget, margin x exposure), the exposure decaying with a half-life.
class load_adaptation {
public:
    /// Validates: margin in [1, 10]; half_life in [1 s, 1e6 s] (how fast a past exposure stops counting);
    /// pending_weight in [1, 10] (the factor on a pending extend's time so far). The defaults are the ones
    /// bench/domain_adaptation.cpp measured best (docs/domain.md).
    PROVPOL_NODISCARD static constexpr result<load_adaptation> make(double margin = 1.75,
                                                                    seconds half_life = seconds(600),
                                                                    double pending_weight = 1.5) noexcept {
        if (!(margin >= 1.0 && margin <= 10.0))
            return unexpected(error::out_of_range("margin", error_value::of_real(margin), error_value::of_real(1.0),
                                                  error_value::of_real(10.0)));
        if (!within(half_life, seconds(1), seconds(1e6)))
            return unexpected(error::out_of_range("half_life", error_value_of(half_life), error_value_of(seconds(1)),
                                                  error_value_of(seconds(1e6))));
        if (!(pending_weight >= 1.0 && pending_weight <= 10.0))
            return unexpected(error::out_of_range("pending_weight", error_value::of_real(pending_weight),
                                                  error_value::of_real(1.0), error_value::of_real(10.0)));
        return load_adaptation(margin, half_life, pending_weight);
    }
    /// The factor on the exposure.
    PROVPOL_NODISCARD constexpr double margin() const noexcept { return margin_; }
    PROVPOL_NODISCARD constexpr seconds half_life() const noexcept { return half_life_; }
    PROVPOL_NODISCARD constexpr double pending_weight() const noexcept { return pending_weight_; }

private:
    constexpr load_adaptation(double margin, seconds half_life, double pending_weight) noexcept
        : margin_(margin), half_life_(half_life), pending_weight_(pending_weight) {}
    double margin_;
    seconds half_life_;
    double pending_weight_;
};

/// The exposure of one drive: how long it stays past its limit before an extend grows it, measured from the
/// block-threshold observation to the extended one that completes it, and at least that extend's own latency
/// (observation::latency; what an extend the agent requested before the threshold fired reports, since the agent
/// observes no request event). While the threshold has fired and no extend has completed, the time so far already
/// counts, times `pending_weight`. It rises at once and falls toward newer exposures with a half-life, at each
/// completed extend.
class exposure_tracker {
public:
    constexpr explicit exposure_tracker(seconds half_life = seconds(600), double pending_weight = 1.0) noexcept
        : tau_(half_life.count() / 0.6931471805599453), pending_weight_(pending_weight) {}

    void observe(const observation& o) noexcept {
        const double now = o.time.count();
        if (o.kind == observation_kind::threshold && !(since_ >= 0.0)) since_ = now;
        const double so_far = since_ >= 0.0 ? now - since_ : 0.0;
        if (o.kind != observation_kind::extended) {
            if (pending_weight_ * so_far > seconds_) seconds_ = pending_weight_ * so_far, at_ = now;
            return;
        }
        const double e = so_far > o.latency.count() ? so_far : o.latency.count();
        if (e >= seconds_) {
            seconds_ = e;
        } else if (now > at_) {
            const double keep = detail::exp(-(now - at_) / tau_);
            seconds_ = seconds_ * keep + e * (1.0 - keep);
        }
        at_ = now;
        since_ = -1.0;
        ++extends_;
    }
    /// The longest recent exposure (0 before the first threshold).
    PROVPOL_NODISCARD provpol::seconds exposure() const noexcept { return provpol::seconds(seconds_); }
    /// The completed extends seen.
    PROVPOL_NODISCARD std::uint64_t extends() const noexcept { return extends_; }

private:
    double tau_;
    double pending_weight_;
    double seconds_ = 0.0;
    double at_ = 0.0;
    double since_ = -1.0;
    std::uint64_t extends_ = 0;
};

/// An agent that keeps a write_rate_estimator per drive and decides with a rate-aware policy: it passes its
/// estimate as drive_state::write_rate. Satisfies simulate.hpp's Agent contract.
class rate_aware_agent {
public:
    explicit rate_aware_agent(rate_aware_policy policy, unsigned max_in_flight = 2,
                              seconds half_life = seconds(60)) noexcept
        : policy_(policy), estimator_(half_life), max_in_flight_(max_in_flight) {}

    PROVPOL_NODISCARD bytes initial_size(bytes capacity) const noexcept { return policy_.initial_size(capacity); }

    void observe(const observation& o) noexcept {
        switch (o.kind) {
            case observation_kind::sample:
                estimator_.sample(o.time, o.allocation);
                break;
            case observation_kind::threshold:
                estimator_.threshold(o.time, o.allocation);
                break;
            case observation_kind::pause:
                estimator_.pause(o.time, o.allocation);
                break;
            case observation_kind::extended:
                estimator_.extended(o.time, o.allocation);
                break;
        }
    }

    // The body twice on purpose: forwarding to the overload below through a reference to policy_ costs the
    // single-drive simulator 4% more instructions with g++ 12 -O2 (callgrind, 400 runs of 50 GiB).
    PROVPOL_NODISCARD extend_decision decide(const drive_state& s) const noexcept {
        drive_state with_rate = s;
        with_rate.write_rate = estimator_.estimate();
        extend_decision d = policy_.decide(with_rate);
        if (estimator_.provisional() && d.action == extend_action::extend && !s.threshold_exceeded) {
            // A provisional estimate sizes an extend but does not start one: extend early only on a measured
            // rate, or when the floor alone would.
            drive_state floor_only = s;
            floor_only.write_rate = rate(0);
            if (!policy_.decide(floor_only).needs_extend) d.action = extend_action::none;
        }
        return d;
    }

    /// Decides with another rate-aware policy (another floor or budget) on this agent's estimate.
    PROVPOL_NODISCARD extend_decision decide(const drive_state& s, const rate_aware_policy& p) const noexcept {
        drive_state with_rate = s;
        with_rate.write_rate = estimator_.estimate();
        extend_decision d = p.decide(with_rate);
        if (estimator_.provisional() && d.action == extend_action::extend && !s.threshold_exceeded) {
            drive_state floor_only = s;  // as above
            floor_only.write_rate = rate(0);
            if (!p.decide(floor_only).needs_extend) d.action = extend_action::none;
        }
        return d;
    }

    /// Two extends may be in flight: a request on top of a pending one when the pending one, sized from an
    /// earlier estimate, leaves less than the limit free (see the header comment).
    PROVPOL_NODISCARD unsigned max_in_flight() const noexcept { return max_in_flight_; }

    PROVPOL_NODISCARD const rate_aware_policy& policy() const noexcept { return policy_; }
    PROVPOL_NODISCARD const write_rate_estimator& estimator() const noexcept { return estimator_; }

private:
    rate_aware_policy policy_;
    write_rate_estimator estimator_;
    unsigned max_in_flight_;
};

/// The rate-aware agent whose budget also follows the exposure it observes (see the header comment): budget =
/// max(the policy's budget, margin x exposure), rounded up to whole milliseconds, at most max_latency_budget.
/// A type of its own, so that the agent without adaptation pays nothing for it. Satisfies the Agent contract.
class adaptive_rate_aware_agent {
public:
    explicit adaptive_rate_aware_agent(rate_aware_policy policy, load_adaptation adapt, unsigned max_in_flight = 2,
                                       seconds half_life = seconds(60)) noexcept
        : agent_(policy, max_in_flight, half_life),
          exposure_(adapt.half_life(), adapt.pending_weight()),
          adapt_(adapt) {}

    PROVPOL_NODISCARD bytes initial_size(bytes capacity) const noexcept { return agent_.initial_size(capacity); }

    void observe(const observation& o) noexcept {
        agent_.observe(o);
        exposure_.observe(o);
    }

    PROVPOL_NODISCARD extend_decision decide(const drive_state& s) const noexcept {
        const auto steps = rate_aware_steps::make(agent_.policy().trigger().floor(), budget());
        return steps ? agent_.decide(s, rate_aware_policy(*steps)) : agent_.decide(s);
    }

    /// The budget the next decision plans for.
    PROVPOL_NODISCARD milliseconds budget() const noexcept {
        const milliseconds base = agent_.policy().trigger().budget();
        const double ms = detail::ceil(adapt_.margin() * exposure_.exposure().count() * 1000.0);
        if (!(ms > static_cast<double>(base.count()))) return base;
        return ms >= static_cast<double>(max_latency_budget.count()) ? max_latency_budget
                                                                     : milliseconds(static_cast<milliseconds::rep>(ms));
    }

    PROVPOL_NODISCARD unsigned max_in_flight() const noexcept { return agent_.max_in_flight(); }
    /// The policy as made (its budget the floor of the adapted one).
    PROVPOL_NODISCARD const rate_aware_policy& policy() const noexcept { return agent_.policy(); }
    PROVPOL_NODISCARD const write_rate_estimator& estimator() const noexcept { return agent_.estimator(); }
    PROVPOL_NODISCARD const exposure_tracker& exposure() const noexcept { return exposure_; }
    PROVPOL_NODISCARD const load_adaptation& adaptation() const noexcept { return adapt_; }

private:
    rate_aware_agent agent_;
    exposure_tracker exposure_;
    load_adaptation adapt_;
};

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_RATE_AWARE_HPP
