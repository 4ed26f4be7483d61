// provpol/simulate/either_agent.hpp - one agent type that holds either of two agents, so that drives of different agent
// types (static VDSM agents and rate-aware ones, say) run in one storage domain (domain.hpp), whose drives share
// one agent type.
//
// It satisfies the agent contract (simulate/agent.hpp) by forwarding every call to the agent it holds, max_in_flight()
// included (detail::max_in_flight of the held agent: 1 for an agent without one), so a drive behaves exactly as
// it would with the held agent itself (tests/domain_test.cpp). More than two types nest:
// either_agent<A, either_agent<B, C>>.
//
// A tagged union without <variant> (which would add about 3,000 lines, a third, to what provpol.hpp preprocesses to):
// the agents must be trivially copyable, as static_agent and rate_aware_agent are; it is then trivially copyable
// itself, and as large as the larger agent plus a flag.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_EITHER_AGENT_HPP
#define PROVPOL_SIMULATE_EITHER_AGENT_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../extend/presets.hpp"
#include "agent.hpp"

#include <type_traits>

namespace provpol {

/// An agent that is an A or a B, chosen when it is made.
template <class A, class B>
class either_agent {
    static_assert(detail::is_agent<A>::value && detail::is_agent<B>::value,
                  "either_agent: A and B must be agents: initial_size(bytes) const, observe(const observation&) and "
                  "extend_decision decide(const drive_state&) const");
    static_assert(std::is_trivially_copyable<A>::value && std::is_trivially_copyable<B>::value,
                  "either_agent: A and B must be trivially copyable (a tagged union, without <variant>)");
    static_assert(!std::is_same<A, B>::value, "either_agent: A and B must be different types (use the agent itself)");

public:
    constexpr either_agent(const A& a) noexcept : first_(true), a_(a) {}   // NOLINT(google-explicit-constructor)
    constexpr either_agent(const B& b) noexcept : first_(false), b_(b) {}  // NOLINT(google-explicit-constructor)

    /// 0 when it holds an A, 1 when it holds a B (as std::variant::index).
    PROVPOL_NODISCARD constexpr unsigned index() const noexcept { return first_ ? 0u : 1u; }
    /// The A it holds (index() == 0).
    PROVPOL_NODISCARD constexpr const A& first() const noexcept {
        PROVPOL_ASSERT(first_, "either_agent::first: it holds a B");
        return a_;
    }
    /// The B it holds (index() == 1).
    PROVPOL_NODISCARD constexpr const B& second() const noexcept {
        PROVPOL_ASSERT(!first_, "either_agent::second: it holds an A");
        return b_;
    }

    PROVPOL_NODISCARD constexpr bytes initial_size(bytes capacity) const noexcept {
        return first_ ? a_.initial_size(capacity) : b_.initial_size(capacity);
    }
    constexpr void observe(const observation& o) noexcept {
        if (first_)
            a_.observe(o);
        else
            b_.observe(o);
    }
    PROVPOL_NODISCARD constexpr extend_decision decide(const drive_state& s) const noexcept {
        return first_ ? a_.decide(s) : b_.decide(s);
    }
    /// The held agent's extends in flight (1 when it does not say).
    PROVPOL_NODISCARD constexpr unsigned max_in_flight() const noexcept {
        return first_ ? detail::max_in_flight(a_) : detail::max_in_flight(b_);
    }

private:
    bool first_;
    union {
        A a_;
        B b_;
    };
};

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_EITHER_AGENT_HPP
