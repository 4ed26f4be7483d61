// provpol/simulate/agent_contract.hpp - what an extend agent observes and the contracts of agents and latency models
// that the extend controller (simulate/agent.hpp) drives: the observation, static_agent for any static policy, the
// traits that check both contracts, an agent's extends in flight, and `never`.
//
// Agent contract (checked by static_assert):
//   bytes initial_size(bytes capacity) const
//   void observe(const observation&)
//   extend_decision decide(const drive_state&) const
//   optional: unsigned max_in_flight() const        extends in flight at once, 1 or 2 (default 1, as VDSM)
//
// Latency contract, time-aware (checked by static_assert; times are provpol::seconds, since the run's start):
//   seconds detection_period() const                the agent's monitor period, 0 to request on the event
//   State start_run(random_stream&) const           per-run state (the clocks' phases), any copyable type
//   seconds complete(State&, seconds t, random_stream&) const
//                                                   the time the grown LV is visible for a request made at t
// or the earlier, time-blind one, which the controller adapts (the latency after the request is independent of
// its time and of every other request):
//   seconds detection_period() const
//   seconds sample_after_detection(random_stream&) const
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_AGENT_CONTRACT_HPP
#define PROVPOL_SIMULATE_AGENT_CONTRACT_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../extend/presets.hpp"
#include "../flow/clocks.hpp"
#include "../random.hpp"
#include "../time.hpp"

#include <cstdint>
#include <type_traits>
#include <utility>

namespace provpol {

/// What happened, as the agent sees it.
enum class observation_kind : unsigned char { sample, threshold, pause, extended };
/// "sample", "threshold", "pause" or "extended".
PROVPOL_NODISCARD constexpr const char* to_text(observation_kind e) noexcept {
    constexpr const char* names[] = {"sample", "threshold", "pause", "extended"};
    static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(observation_kind::extended) + 1,
                  "a name each");
    return detail::enum_name(names, e);
}

/// One thing the agent observes, with its time (since the write started).
struct observation {
    observation_kind kind;
    seconds time;
    bytes allocation;
    bytes physical;
    seconds latency = seconds(0);  ///< extended: from the request to the grown LV (0 for the other kinds)
};

/// An agent for any static extend policy (VDSM, LVM): it observes nothing and decides from the drive alone.
template <class Policy>
class static_agent {
public:
    constexpr explicit static_agent(Policy policy) noexcept : policy_(policy) {}
    PROVPOL_NODISCARD constexpr bytes initial_size(bytes capacity) const noexcept {
        return policy_.initial_size(capacity);
    }
    constexpr void observe(const observation&) noexcept {}
    PROVPOL_NODISCARD constexpr extend_decision decide(const drive_state& s) const noexcept {
        return policy_.decide(s);
    }
    PROVPOL_NODISCARD constexpr const Policy& policy() const noexcept { return policy_; }

private:
    Policy policy_;
};

/// The run state of a latency model whose draws do not depend on the request's time.
struct independent_run {};

namespace detail {

template <class A, class = void>
struct is_agent : std::false_type {};
template <class A>
struct is_agent<A, std::void_t<decltype(std::declval<const A&>().initial_size(bytes())),
                               decltype(std::declval<A&>().observe(std::declval<const observation&>())),
                               decltype(std::declval<const A&>().decide(std::declval<const drive_state&>()))>>
    : std::is_same<decltype(std::declval<const A&>().decide(std::declval<const drive_state&>())), extend_decision> {};

// A latency model's times are provpol::seconds: a model whose detection_period(), complete() or
// sample_after_detection() returns a bare double does not satisfy the contract.
template <class L>
using detection_period_t = decltype(std::declval<const L&>().detection_period());
template <class L>
using sample_after_detection_t =
    decltype(std::declval<const L&>().sample_after_detection(std::declval<random_stream&>()));
template <class L>
using latency_run_t = decltype(std::declval<const L&>().start_run(std::declval<random_stream&>()));
template <class L>
using complete_t = decltype(std::declval<const L&>().complete(std::declval<latency_run_t<L>&>(), seconds(),
                                                              std::declval<random_stream&>()));

template <class L, class = void>
struct is_time_blind_latency : std::false_type {};
template <class L>
struct is_time_blind_latency<L, std::void_t<detection_period_t<L>, sample_after_detection_t<L>>>
    : std::bool_constant<std::is_same_v<detection_period_t<L>, seconds> &&
                         std::is_same_v<sample_after_detection_t<L>, seconds>> {};

template <class L, class = void>
struct is_flow_latency : std::false_type {};
template <class L>
struct is_flow_latency<L, std::void_t<detection_period_t<L>, complete_t<L>>>
    : std::bool_constant<std::is_same_v<detection_period_t<L>, seconds> && std::is_same_v<complete_t<L>, seconds>> {};

template <class L>
inline constexpr bool is_simulated_latency_v = is_flow_latency<L>::value || is_time_blind_latency<L>::value;

/// The per-run state type of a latency model.
template <class L, bool Flow = is_flow_latency<L>::value>
struct latency_run_of {
    using type = independent_run;
};
template <class L>
struct latency_run_of<L, true> {
    using type = latency_run_t<L>;
};

template <class L>
auto start_latency_run(const L& l, random_stream& rng) noexcept {
    if constexpr (is_flow_latency<L>::value)
        return l.start_run(rng);
    else
        return independent_run{};
}

template <class L, class S>
seconds complete_request(const L& l, S& run, seconds t, random_stream& rng) noexcept {
    if constexpr (is_flow_latency<L>::value)
        return l.complete(run, t, rng);
    else
        return t + l.sample_after_detection(rng);
}

}  // namespace detail

/// The most extends any agent may have in flight (2).
inline constexpr unsigned max_extends_in_flight = 2;

namespace detail {
template <class A, class = void>
struct has_max_in_flight : std::false_type {};
template <class A>
struct has_max_in_flight<A, std::void_t<decltype(std::declval<const A&>().max_in_flight())>> : std::true_type {};

}  // namespace detail

/// An agent's extends in flight: its max_in_flight() when it has one, held to [1, max_extends_in_flight]; 1 (VDSM's
/// one extend at a time) for an agent without it.
template <class A>
PROVPOL_NODISCARD constexpr unsigned max_in_flight(const A& agent) noexcept {
    if constexpr (detail::has_max_in_flight<A>::value) {
        const auto n = agent.max_in_flight();
        return n < 1 ? 1u : (n > max_extends_in_flight ? max_extends_in_flight : static_cast<unsigned>(n));
    } else {
        return 1;
    }
}

namespace detail {
/// The time of an event that does not happen, as a number of seconds: where the simulators compute in doubles.
inline constexpr double never_time = 1e300;
}  // namespace detail

/// The time of an event that does not happen (1e300 s, after any run): extend_in_flight::reply_read_at before the
/// reply is read, extend_controller::next_done() with nothing in flight.
inline constexpr seconds never = seconds(detail::never_time);

namespace detail {

template <class L, class = void>
struct has_resend : std::false_type {};
template <class L>
struct has_resend<
    L, std::void_t<decltype(std::declval<const L&>().resend()), decltype(std::declval<const L&>().resend_timeout())>>
    : std::true_type {};
/// The latency's re-send rule (flow/clocks.hpp's flow_resend), or never.
template <class L>
constexpr flow_resend resend_of(const L& l) noexcept {
    if constexpr (has_resend<L>::value)
        return l.resend();
    else
        return flow_resend::never;
}
template <class L>
constexpr seconds resend_timeout_of(const L& l) noexcept {
    if constexpr (has_resend<L>::value)
        return l.resend_timeout();
    else
        return seconds(2);
}
/// When the host read the reply of the request the latency's run state last completed, or never.
template <class S>
constexpr seconds reply_read_of(const S& run) noexcept {
    if constexpr (std::is_same<S, flow_run>::value)
        return run.reply_read;
    else
        return never;
}

}  // namespace detail

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_AGENT_CONTRACT_HPP
