// provpol/simulate/search.hpp - the searches behind every recommend and capacity answer, with contracts that hold
// whatever the shape of the quantity searched: smallest_meeting (the smallest setting that meets a target),
// smallest_meeting_window (the smallest setting from which the next `span` settings meet too: an answer with a
// margin) and longest_meeting_run (the largest count such that every count up to it meets).
//
// Neither assumes monotonicity. A simulated target is not monotone in the setting: a larger LVM autoextend
// percent can queue longer (its extend lands when the pool is fuller, or no longer fits in the VG), a larger VDSM
// chunk can pause a VM more often under the same random draws, and one more writer can relieve a domain's SPM by
// shifting its phases. A bisection that assumes otherwise returns a local answer, and a test that checks only "one
// step below misses" cannot catch it, since bisection guarantees exactly that. Both searches here scan: every
// candidate below the answer was evaluated and missed, so the contract is the answer's definition, and a test can
// compare it with an exhaustive evaluation of the range.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_SEARCH_HPP
#define PROVPOL_SIMULATE_SEARCH_HPP

#include "../config.hpp"
#include "../result.hpp"

#include <cstdint>
#include <type_traits>
#include <utility>

namespace provpol {

/// What a search found, and what it cost.
template <class Int>
struct search_answer {
    /// smallest_meeting: the smallest candidate that meets (meaningful when `found`).
    /// longest_meeting_run: the last count of the run from `lo` that meets throughout (lo - 1 when lo misses).
    Int value{};
    bool found = false;             ///< smallest_meeting: a candidate in the range meets; longest_meeting_run: lo meets
    bool whole_range = false;       ///< longest_meeting_run: every count from lo to hi meets (always false for
                                    ///< smallest_meeting)
    std::uint64_t evaluations = 0;  ///< calls of the predicate
};

namespace detail {

// A predicate's outcome as result<bool>: a predicate may return bool or result<bool>.
template <class R>
constexpr result<bool> search_outcome(R&& r) {
    if constexpr (std::is_same_v<std::decay_t<R>, bool>) {
        return r;
    } else {
        if (!r) return unexpected(r.error());
        return static_cast<bool>(*r);
    }
}

}  // namespace detail

/// The smallest x in [lo, hi] for which meets(x) holds: meets is called on lo, lo + 1, ... in increasing order
/// and the scan stops at the first x that meets, so every candidate below the answer was evaluated and missed.
/// Not found (`found` false, `value` hi) when none in the range meets. meets returns bool or result<bool>; its
/// first error ends the search and is returned. At most hi - lo + 1 evaluations; lo > hi evaluates nothing.
template <class Int, class Meets>
PROVPOL_NODISCARD result<search_answer<Int>> smallest_meeting(Int lo, Int hi, Meets&& meets) {
    static_assert(std::is_integral_v<Int>, "smallest_meeting: the candidates are integers");
    search_answer<Int> a;
    a.value = hi;
    for (Int x = lo; x <= hi; ++x) {
        ++a.evaluations;
        const result<bool> m = detail::search_outcome(meets(x));
        if (!m) return unexpected(m.error());
        if (*m) {
            a.value = x;
            a.found = true;
            return a;
        }
        if (x == hi) break;  // x + 1 would wrap at the type's maximum
    }
    return a;
}

/// The smallest x in [lo, hi - span] such that meets(y) holds for every y in [x, x + span]: an answer with a margin,
/// since an operator who moves it up by as much as `span` (rounding it "for safety") still meets. meets is called on
/// lo, lo + 1, ... in increasing order, each once, and the scan stops at the end of the first run of span + 1
/// meeting values, so every x below the answer has a value in its window that was evaluated and missed. span 0 is
/// smallest_meeting. Not found (`found` false, `value` hi) when no window in the range meets throughout (a range
/// shorter than span + 1 has none). meets returns bool or result<bool>; its first error ends the search and is
/// returned. At most hi - lo + 1 evaluations.
template <class Int, class Meets>
PROVPOL_NODISCARD result<search_answer<Int>> smallest_meeting_window(Int lo, Int hi, Int span, Meets&& meets) {
    static_assert(std::is_integral_v<Int>, "smallest_meeting_window: the candidates are integers");
    search_answer<Int> a;
    a.value = hi;
    using U = std::make_unsigned_t<Int>;
    if constexpr (std::is_signed_v<Int>)
        if (span < 0) return a;
    if (lo > hi || static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo)) < static_cast<U>(span)) return a;
    Int run_start = lo;
    bool in_run = false;
    for (Int x = lo; x <= hi; ++x) {
        ++a.evaluations;
        const result<bool> m = detail::search_outcome(meets(x));
        if (!m) return unexpected(m.error());
        if (!*m) {
            in_run = false;
        } else {
            if (!in_run) run_start = x;
            in_run = true;
            if (static_cast<U>(static_cast<U>(x) - static_cast<U>(run_start)) == static_cast<U>(span)) {
                a.value = run_start;
                a.found = true;
                return a;
            }
        }
        if (x == hi) break;  // x + 1 would wrap at the type's maximum
    }
    return a;
}

/// The largest n in [lo, hi] such that meets(x) holds for every x in [lo, n] ("every count from lo to n meets
/// the target; n + 1 does not, or n is hi"): meets is called on lo, lo + 1, ... and the scan stops at the first
/// x that misses. `found` is false and `value` lo - 1 when lo itself misses; `whole_range` says every count up to
/// hi met. meets returns bool or result<bool>; its first error ends the search and is returned. At most
/// hi - lo + 1 evaluations. Requires lo >= 1 for an unsigned Int (value lo - 1 must be representable).
template <class Int, class Meets>
PROVPOL_NODISCARD result<search_answer<Int>> longest_meeting_run(Int lo, Int hi, Meets&& meets) {
    static_assert(std::is_integral_v<Int>, "longest_meeting_run: the candidates are integers");
    search_answer<Int> a;
    a.value = static_cast<Int>(lo - 1);
    for (Int x = lo; x <= hi; ++x) {
        ++a.evaluations;
        const result<bool> m = detail::search_outcome(meets(x));
        if (!m) return unexpected(m.error());
        if (!*m) return a;
        a.value = x;
        a.found = true;
        if (x == hi) break;  // x + 1 would wrap at the type's maximum
    }
    a.whole_range = a.found && a.value == hi;
    return a;
}

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_SEARCH_HPP
