// provpol/simulate/agent.hpp - the extend controller: the one implementation of the flow between a drive, its agent
// and the extend latency that both the simulator (simulate.hpp) and a real agent (examples/agent) drive, so that the
// same seed gives the same run by construction. What an agent observes and the contracts of agents and latencies it
// drives are in simulate/agent_contract.hpp.
//
// The controller's random stream: the monitor's phase (one uniform) first, then the latency's start_run, then the
// latency's draws for each request in the order the requests are made.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_AGENT_HPP
#define PROVPOL_SIMULATE_AGENT_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../extend/presets.hpp"
#include "../flow/clocks.hpp"
#include "../random.hpp"
#include "../time.hpp"
#include "agent_contract.hpp"

#include <cstdint>
#include <type_traits>
#include <utility>

namespace provpol {

/// An extend the controller requested and that has not completed yet (times since the run's start).
struct extend_in_flight {
    seconds requested_at = seconds(0);  ///< when the agent requested it
    seconds done_at = seconds(0);       ///< when the latency model makes the grown LV visible
    seconds exceeded_at = seconds(0);  ///< when the drive crossed its threshold (or paused) for it: the latency's start
    seconds reply_read_at = never;     ///< when the host read the SPM's reply (a flow with the mailbox), else never
    drive_state state;                 ///< what the agent decided on
    extend_decision decision;          ///< what it decided: next_size is the request, lv_size_after_extend the LV
    bool resent = false;               ///< a re-sent copy went through after the reply was read (see flow_resend)
};

/// The flow between one drive, its agent and the extend latency, driven by the caller's event times: the monitor's
/// ticks, the block threshold, the guest's pause on ENOSPC, and the extends' completions. It owns the agent, the
/// random stream and the latency's run state; the caller owns time and the drive.
template <class Agent, class Latency>
class extend_controller {
    static_assert(detail::is_agent<Agent>::value,
                  "extend_controller: Agent must provide initial_size(bytes) const, observe(const observation&) and "
                  "extend_decision decide(const drive_state&) const");
    static_assert(detail::is_simulated_latency_v<Latency>,
                  "extend_controller: Latency must provide seconds detection_period() and either "
                  "start_run(random_stream&) and seconds complete(run&, seconds, random_stream&), or seconds "
                  "sample_after_detection(random_stream&)");

public:
    /// Starts a run: draws the monitor's phase, then the latency's run state; the agent's monitor saw the empty
    /// drive one period before its first tick. `monitor_interval` is used when the latency has no monitor stage.
    /// The controller keeps a pointer to `latency`, which must outlive it.
    /// `first_tick`, when in [0, the tick period), is the monitor's first tick instead of the drawn one (a domain's
    /// drives share their host's monitor, domain.hpp); the uniform is drawn either way, so the stream is the same.
    extend_controller(Agent agent, const Latency& latency, bytes capacity, seconds monitor_interval, std::uint64_t seed,
                      seconds first_tick = seconds(-1)) noexcept
        : agent_(std::move(agent)),
          latency_(&latency),
          rng_(seed),
          capacity_(capacity),
          max_in_flight_(max_in_flight(agent_)),
          resend_(detail::resend_of(latency)),
          resend_timeout_(detail::resend_timeout_of(latency)) {
        const seconds detect = latency.detection_period();
        on_events_ = !(detect > seconds(0));
        tick_period_ = on_events_ ? monitor_interval : detect;
        next_tick_ = tick_period_ * rng_.uniform();
        if (first_tick >= seconds(0) && first_tick < tick_period_) next_tick_ = first_tick;
        run_ = detail::start_latency_run(latency, rng_);
        initial_ = agent_.initial_size(capacity);
        physical_ = initial_.count();
        agent_.observe(observation{observation_kind::sample, next_tick_ - tick_period_, bytes(0), initial_});
    }

    PROVPOL_NODISCARD bytes initial_size() const noexcept { return initial_; }
    /// The LV size as the agent knows it (grown when an extend completed).
    PROVPOL_NODISCARD std::uint64_t physical() const noexcept { return physical_; }
    /// The size the LV will have once every extend in flight completed.
    PROVPOL_NODISCARD std::uint64_t pending_physical() const noexcept {
        std::uint64_t p = physical_;
        for (unsigned i = 0; i < in_flight_; ++i) {
            const std::uint64_t s = flights_[i].decision.lv_size_after_extend.count();
            p = s > p ? s : p;
        }
        return p;
    }
    /// Whether the agent requests on the threshold and pause events (no monitor stage in the latency).
    PROVPOL_NODISCARD bool decides_on_events() const noexcept { return on_events_; }
    PROVPOL_NODISCARD seconds tick_period() const noexcept { return tick_period_; }
    /// The time of the monitor's next tick.
    PROVPOL_NODISCARD seconds next_tick() const noexcept { return next_tick_; }
    PROVPOL_NODISCARD unsigned in_flight() const noexcept { return in_flight_; }
    PROVPOL_NODISCARD const extend_in_flight& flight(unsigned i) const noexcept { return flights_[i]; }
    /// The in-flight extend that completes first (in_flight() > 0).
    PROVPOL_NODISCARD unsigned first_done() const noexcept {
        unsigned f = 0;
        for (unsigned i = 1; i < in_flight_; ++i) f = flights_[i].done_at < flights_[f].done_at ? i : f;
        return f;
    }
    /// When the first in-flight extend completes, or never.
    PROVPOL_NODISCARD seconds next_done() const noexcept {
        return in_flight_ > 0 ? flights_[first_done()].done_at : never;
    }
    PROVPOL_NODISCARD std::uint32_t extends() const noexcept { return extends_; }
    /// Re-sent requests that went through (flow_resend): extends completed that grew nothing.
    PROVPOL_NODISCARD std::uint32_t resent() const noexcept { return resent_; }
    PROVPOL_NODISCARD const Agent& agent() const noexcept { return agent_; }

    /// The block threshold to register for the drive at `allocation` (the agent decides on the LV it knows).
    PROVPOL_NODISCARD bytes threshold(bytes allocation) const noexcept {
        return agent_.decide(state(allocation)).block_threshold;
    }

    /// The monitor ticks at `t` (next_tick()): the agent samples the drive and may request an extend.
    PROVPOL_ALWAYS_INLINE const extend_in_flight* tick(seconds t, bytes allocation) noexcept {
        next_tick_ += tick_period_;
        agent_.observe(observation{observation_kind::sample, t, allocation, bytes(physical_)});
        if (exceeded_ && resend_ != flow_resend::never)
            resend(t, resend_ == flow_resend::after_timeout ? resend_timeout_ : seconds(0));
        return request(t, allocation);
    }
    /// The block threshold fired at `t`. Requests at once when the agent decides on events.
    const extend_in_flight* threshold_crossed(seconds t, bytes allocation) noexcept {
        exceed(t);
        agent_.observe(observation{observation_kind::threshold, t, allocation, bytes(physical_)});
        return on_events_ ? request(t, allocation) : nullptr;
    }
    /// The guest paused on ENOSPC at `t`. Requests at once when the agent decides on events, or when the host
    /// re-sends (flow_resend: VDSM handles ENOSPC at once).
    const extend_in_flight* paused(seconds t, bytes allocation) noexcept {
        exceed(t);
        agent_.observe(observation{observation_kind::pause, t, allocation, bytes(physical_)});
        if (resend_ != flow_resend::never) resend(t, seconds(0));
        return on_events_ || resend_ != flow_resend::never ? request(t, allocation) : nullptr;
    }
    /// Sets in-flight extend `i`'s completion time, and when the host read its reply. For a latency whose answer
    /// depends on other drives (the domain simulator's shared SPM, domain.hpp): its complete() returns
    /// never, and the caller fills the times in once the shared queue has decided them.
    void set_done_at(unsigned i, seconds t, seconds reply_read = never) noexcept {
        flights_[i].done_at = t;
        flights_[i].reply_read_at = reply_read;
    }
    /// In-flight extend `i` completed at `t`, leaving the LV at `lv_size` (the device's real size; the simulator
    /// passes the decided size). Returns the threshold to register from the real size.
    bytes completed(unsigned i, seconds t, bytes allocation, bytes lv_size) noexcept {
        physical_ = lv_size.count() > physical_ ? lv_size.count() : physical_;
        const seconds latency = t - flights_[i].requested_at;
        --in_flight_;
        flights_[i] = flights_[in_flight_];
        exceeded_ = false;
        agent_.observe(observation{observation_kind::extended, t, allocation, bytes(physical_), latency});
        return threshold(allocation);
    }

private:
    void exceed(seconds t) noexcept {
        if (!exceeded_) exceeded_at_ = t;
        exceeded_ = true;
    }
    // The host asks again for its pending extends at `t` (flow_resend): a copy goes through when the host has read
    // the reply and is refreshing the LV, `min_age` seconds or more after the request; the mail monitor drops the
    // others as duplicates.
    void resend(seconds t, seconds min_age) noexcept {
        for (unsigned i = 0; i < in_flight_; ++i) {
            extend_in_flight& f = flights_[i];
            if (!f.resent && t >= f.reply_read_at && t < f.done_at && t - f.requested_at >= min_age) {
                f.resent = true;
                ++resent_;
            }
        }
    }
    PROVPOL_NODISCARD drive_state state(bytes allocation) const noexcept {
        drive_state s{drive_capacity(capacity_), drive_physical(bytes(physical_)), drive_allocation(allocation)};
        s.threshold_exceeded = exceeded_;
        return s;
    }
    // The agent decides at `t` and may request an extend. tick() and request() are inlined into the simulators' loops
    // by force: g++ 12 -O2 stopped inlining request() once its times were seconds, and the domain benchmarks ran 1.3%
    // more instructions for it; forced, they run 0.1% to 2.8% fewer than with doubles (bench/README.md).
    PROVPOL_ALWAYS_INLINE const extend_in_flight* request(seconds t, bytes allocation) noexcept {
        if (in_flight_ >= max_in_flight_) return nullptr;
        drive_state s = state(allocation);
        if (in_flight_ > 0) {  // a request on top of a pending one: decide as if it had completed
            s.physical = bytes(pending_physical());
            s.threshold_exceeded = false;
        }
        const extend_decision d = agent_.decide(s);
        if (d.action != extend_action::extend || d.lv_size_after_extend.count() <= s.physical.count()) return nullptr;
        extend_in_flight& f = flights_[in_flight_++];
        f.requested_at = t;
        f.exceeded_at = exceeded_ && exceeded_at_ <= t ? exceeded_at_ : t;
        f.done_at = detail::complete_request(*latency_, run_, t, rng_);
        f.reply_read_at = f.done_at < never ? detail::reply_read_of(run_) : never;
        f.resent = false;
        f.state = s;
        f.decision = d;
        ++extends_;
        return &f;
    }

    Agent agent_;
    const Latency* latency_;
    random_stream rng_;
    typename detail::latency_run_of<Latency>::type run_{};
    bytes capacity_;
    bytes initial_;
    std::uint64_t physical_ = 0;
    seconds tick_period_ = seconds(2);
    seconds next_tick_ = seconds(0);
    bool on_events_ = false;
    bool exceeded_ = false;
    unsigned max_in_flight_ = 1;
    unsigned in_flight_ = 0;
    std::uint32_t extends_ = 0;
    std::uint32_t resent_ = 0;
    flow_resend resend_ = flow_resend::never;
    seconds resend_timeout_ = seconds(2);
    seconds exceeded_at_ = seconds(0);
    extend_in_flight flights_[max_extends_in_flight] = {};
};

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_AGENT_HPP
