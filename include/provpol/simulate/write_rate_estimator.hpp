// provpol/simulate/write_rate_estimator.hpp - the write rate of one drive, estimated from what an agent observes
// (write_rate_estimator): allocation samples and the threshold, pause and extend events with their times. Fast
// attack, slow decay; a pause event gives the exact rate. Why it is built so, and the agents that keep one, are
// rate_aware.hpp's.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_WRITE_RATE_ESTIMATOR_HPP
#define PROVPOL_SIMULATE_WRITE_RATE_ESTIMATOR_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../detail/math.hpp"
#include "../time.hpp"

#include <cstdint>

namespace provpol {

/// The write rate of one drive, estimated from what the agent observes.
class write_rate_estimator {
public:
    /// half_life: how fast the estimate falls when the guest slows down (it rises at once).
    constexpr explicit write_rate_estimator(seconds half_life = seconds(60)) noexcept
        : tau_(half_life.count() / 0.6931471805599453) {}

    /// An allocation sample at time t (any origin, the same for every call).
    void sample(seconds t, bytes allocation) noexcept { point(t.count(), allocation); }

    /// The block threshold fired at time t; allocation is the threshold (or what libvirt reported).
    void threshold(seconds at, bytes allocation) noexcept {
        const double t = at.count();
        point(t, allocation);
        threshold_time_ = t;
        threshold_allocation_ = allocation;
        has_threshold_ = true;
    }

    /// The guest paused on ENOSPC at time t with `allocation` = the LV size. If the threshold fired in the same
    /// cycle, the guest wrote from there to here at its exact rate.
    void pause(seconds at, bytes allocation) noexcept {
        const double t = at.count();
        if (has_threshold_ && t > threshold_time_ && allocation > threshold_allocation_) {
            const double r =
                static_cast<double>(allocation.count() - threshold_allocation_.count()) / (t - threshold_time_);
            if (provisional_ || r > rate_) rate_ = r;  // measured, not a bound: it replaces a provisional estimate
            provisional_ = false;
            last_interval_rate_ = r;
            ++intervals_;
        } else {
            point(t, allocation);
        }
        paused_ = true;
        has_point_ = false;  // no progress is measured while the guest is paused
    }

    /// An extend completed at time t (the guest, if paused, resumes now from `allocation`).
    void extended(seconds t, bytes allocation) noexcept {
        has_threshold_ = false;
        if (paused_) {
            paused_ = false;
            has_point_ = false;
        }
        point(t.count(), allocation);
    }

    /// The estimated write rate (0 until two observations are known).
    PROVPOL_NODISCARD rate estimate() const noexcept {
        const double r = rate_ < 0.0 ? 0.0 : rate_;
        return rate(r >= 1.8e19 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(r));
    }
    /// How many intervals the estimate rests on (0: none yet; the first interval of a burst may underestimate).
    PROVPOL_NODISCARD std::uint64_t intervals() const noexcept { return intervals_; }
    /// True while the guest is paused (between a pause and the extend that resumes it).
    PROVPOL_NODISCARD bool paused() const noexcept { return paused_; }
    /// True while the estimate rests on the first interval of a burst only (a lower bound, planned at twice).
    PROVPOL_NODISCARD bool provisional() const noexcept { return provisional_; }

private:
    void point(double t, bytes allocation) noexcept {
        if (paused_) return;
        if (!has_point_) {
            has_point_ = true;
            last_time_ = t;
            last_allocation_ = allocation;
            return;
        }
        const double dt = t - last_time_;
        if (!(dt > 0.0)) return;              // time did not move forward: ignore
        if (allocation < last_allocation_) {  // a reduce: restart the baseline, keep the estimate
            last_time_ = t;
            last_allocation_ = allocation;
            return;
        }
        const double r = static_cast<double>(allocation.count() - last_allocation_.count()) / dt;
        if (r > 0.0 && !(last_interval_rate_ > 0.0)) {
            // The first interval of a burst after an idle one: the writes started somewhere inside it, so r is a
            // lower bound. With the start uniform over the interval, the median of the true rate is 2r: plan
            // for that until the next interval measures the rate in full.
            if (2.0 * r > rate_) rate_ = 2.0 * r;
            provisional_ = true;
        } else if (provisional_ || r >= rate_) {
            rate_ = r;  // attack (never plan below what was just measured), or replace a provisional estimate
            provisional_ = false;
        } else {
            const double keep = detail::exp(-dt / tau_);
            rate_ = rate_ * keep + r * (1.0 - keep);
        }
        last_interval_rate_ = r;
        ++intervals_;
        last_time_ = t;
        last_allocation_ = allocation;
    }

    double tau_;
    double rate_ = 0.0;
    double last_time_ = 0.0;
    bytes last_allocation_{};
    double threshold_time_ = 0.0;
    bytes threshold_allocation_{};
    std::uint64_t intervals_ = 0;
    double last_interval_rate_ = 0.0;
    bool has_point_ = false;
    bool has_threshold_ = false;
    bool provisional_ = false;
    bool paused_ = false;
};

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_WRITE_RATE_ESTIMATOR_HPP
