// provpol/simulate/either_agent.hpp - one agent type that holds either of two agents, so that drives of different agent
// types (static VDSM agents and rate-aware ones, say) run in one storage domain (domain.hpp), whose drives share
// one agent type.
//
// It satisfies the agent contract (simulate/agent.hpp) by forwarding every call to the agent it holds, max_in_flight()
// included (max_in_flight of the held agent: 1 for an agent without one), so a drive behaves exactly as
// it would with the held agent itself (tests/domain_test.cpp). More than two types nest:
// either_agent<A, either_agent<B, C>>.
//
// A std::variant of the two: as large as the larger agent plus its index, trivially copyable when both agents are,
// and it dispatches with one branch on the index (as latency_model does: a std::visit cost the simulators an
// inlining there).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_EITHER_AGENT_HPP
#define PROVPOL_SIMULATE_EITHER_AGENT_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../extend/presets.hpp"
#include "agent.hpp"

#include <type_traits>
#include <utility>
#include <variant>

namespace provpol {

/// An agent that is an A or a B, chosen when it is made.
template <class A, class B>
class either_agent {
    static_assert(detail::is_agent<A>::value && detail::is_agent<B>::value,
                  "either_agent: A and B must be agents: initial_size(bytes) const, observe(const observation&) and "
                  "extend_decision decide(const drive_state&) const");
    static_assert(!std::is_same<A, B>::value, "either_agent: A and B must be different types (use the agent itself)");

public:
    constexpr either_agent(const A& a) noexcept
        : agent_(std::in_place_index<0>, a) {}  // NOLINT(google-explicit-constructor)
    constexpr either_agent(const B& b) noexcept
        : agent_(std::in_place_index<1>, b) {}  // NOLINT(google-explicit-constructor)

    /// 0 when it holds an A, 1 when it holds a B (as std::variant::index).
    PROVPOL_NODISCARD constexpr unsigned index() const noexcept { return agent_.index() == 0 ? 0u : 1u; }
    /// The A it holds (index() == 0).
    PROVPOL_NODISCARD constexpr const A& first() const noexcept {
        PROVPOL_ASSERT(agent_.index() == 0, "either_agent::first: it holds a B");
        return *std::get_if<0>(&agent_);
    }
    /// The B it holds (index() == 1).
    PROVPOL_NODISCARD constexpr const B& second() const noexcept {
        PROVPOL_ASSERT(agent_.index() == 1, "either_agent::second: it holds an A");
        return *std::get_if<1>(&agent_);
    }

    PROVPOL_NODISCARD constexpr bytes initial_size(bytes capacity) const noexcept {
        return agent_.index() == 0 ? std::get_if<0>(&agent_)->initial_size(capacity)
                                   : std::get_if<1>(&agent_)->initial_size(capacity);
    }
    constexpr void observe(const observation& o) noexcept {
        if (agent_.index() == 0)
            std::get_if<0>(&agent_)->observe(o);
        else
            std::get_if<1>(&agent_)->observe(o);
    }
    PROVPOL_NODISCARD constexpr extend_decision decide(const drive_state& s) const noexcept {
        return agent_.index() == 0 ? std::get_if<0>(&agent_)->decide(s) : std::get_if<1>(&agent_)->decide(s);
    }
    /// The held agent's extends in flight (1 when it does not say).
    PROVPOL_NODISCARD constexpr unsigned max_in_flight() const noexcept {
        return agent_.index() == 0 ? provpol::max_in_flight(*std::get_if<0>(&agent_))
                                   : provpol::max_in_flight(*std::get_if<1>(&agent_));
    }

private:
    std::variant<A, B> agent_;
};

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_EITHER_AGENT_HPP
