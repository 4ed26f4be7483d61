// provpol/simulate/stratis_check_timing.hpp - when stratisd's checks run and how long they take
// (stratis_check_timing, validated, and its assumed defaults), as the Stratis pool simulator (stratis_pool.hpp)
// runs them. The sources, and which of these figures are assumptions rather than stratisd's, are listed in
// stratis_pool.hpp's header.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_STRATIS_CHECK_TIMING_HPP
#define PROVPOL_SIMULATE_STRATIS_CHECK_TIMING_HPP

#include "../config.hpp"
#include "../error.hpp"
#include "../result.hpp"
#include "../time.hpp"

namespace provpol {

/// When stratisd's checks run and how long they take, validated.
class stratis_check_timing {
public:
    /// A check that reloads no table takes uniform [check_min, check_max], one that does [extend_min, extend_max]
    /// (0 < min <= max <= 3600 s each); the timer sleeps `timer` (0.1-3600 s) after each timed check;
    /// no_space_timeout 0-86400 s (0: a full pool queues writes forever). Errors name the setting and the range.
    PROVPOL_NODISCARD static constexpr result<stratis_check_timing> make(
        seconds check_min, seconds check_max, seconds extend_min, seconds extend_max, seconds timer = seconds(10.0),
        seconds no_space_timeout = seconds(60.0)) noexcept {
        constexpr seconds zero(0.0), hour(3600.0), day(86400.0), tick(0.1);
        if (!(check_min > zero && within(check_min, zero, hour)))
            return unexpected(error::out_of_range("check_min", error_value_of(check_min), error_value_of(zero),
                                                  error_value_of(hour)));
        if (!within(check_max, check_min, hour))
            return unexpected(error::out_of_range("check_max", error_value_of(check_max), error_value_of(check_min),
                                                  error_value_of(hour)));
        if (!(extend_min > zero && within(extend_min, zero, hour)))
            return unexpected(error::out_of_range("extend_min", error_value_of(extend_min), error_value_of(zero),
                                                  error_value_of(hour)));
        if (!within(extend_max, extend_min, hour))
            return unexpected(error::out_of_range("extend_max", error_value_of(extend_max), error_value_of(extend_min),
                                                  error_value_of(hour)));
        if (!within(timer, tick, hour))
            return unexpected(
                error::out_of_range("timer", error_value_of(timer), error_value_of(tick), error_value_of(hour)));
        if (!within(no_space_timeout, zero, day))
            return unexpected(error::out_of_range("no_space_timeout", error_value_of(no_space_timeout),
                                                  error_value_of(zero), error_value_of(day)));
        return stratis_check_timing(check_min, check_max, extend_min, extend_max, timer, no_space_timeout);
    }

    PROVPOL_NODISCARD constexpr seconds check_min() const noexcept { return check_min_; }
    PROVPOL_NODISCARD constexpr seconds check_max() const noexcept { return check_max_; }
    PROVPOL_NODISCARD constexpr seconds extend_min() const noexcept { return extend_min_; }
    PROVPOL_NODISCARD constexpr seconds extend_max() const noexcept { return extend_max_; }
    PROVPOL_NODISCARD constexpr seconds timer() const noexcept { return timer_; }
    PROVPOL_NODISCARD constexpr seconds no_space_timeout() const noexcept { return no_space_; }

private:
    constexpr stratis_check_timing(seconds cmin, seconds cmax, seconds emin, seconds emax, seconds timer,
                                   seconds no_space) noexcept
        : check_min_(cmin),
          check_max_(cmax),
          extend_min_(emin),
          extend_max_(emax),
          timer_(timer),
          no_space_(no_space) {}

    seconds check_min_, check_max_, extend_min_, extend_max_, timer_, no_space_;
};

/// The defaults, assumed rather than measured: a check that only reads (the pool's status, thin_metadata_size run
/// as a process) 10-50 ms; one that reloads the pool's table (suspend, which waits for in-flight writes, reload,
/// resume, the pool's metadata saved to its devices) 0.1-0.5 s; stratisd's 10 s timer; dm-thin's 60 s
/// no_space_timeout.
PROVPOL_NODISCARD constexpr stratis_check_timing stratis_check_timing_default() noexcept {
    return stratis_check_timing::make(seconds(0.01), seconds(0.05), seconds(0.1), seconds(0.5)).value();
}

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_STRATIS_CHECK_TIMING_HPP
