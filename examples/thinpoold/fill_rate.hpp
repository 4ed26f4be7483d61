// provpol-thinpoold's estimate of how fast the pool fills, from the used blocks it samples.
#ifndef PROVPOL_EXAMPLES_THINPOOLD_FILL_RATE_HPP
#define PROVPOL_EXAMPLES_THINPOOLD_FILL_RATE_HPP

#include <provpol/bytes.hpp>
#include <provpol/time.hpp>

#include <cmath>
#include <cstdint>
#include <vector>

namespace provpol::thinpoold {

/// The fill rate from successive samples, measured over the last `window` at least (a sample's used blocks move in
/// whole writes: over a 50 ms interval one 1 MiB write reads as 20 MiB/s; and two samples close together, as after
/// a long lvextend, would read one write as a flood). The estimate is that window's rate at once when it is higher
/// (a burst must be met now), or the previous estimate decayed with `half_life`. A usage that goes down (discards)
/// restarts the history.
///
/// A full pool tells nothing while it stays full (its writes queue), and the estimate is kept as it is: the writer
/// is waiting, not gone. What the pool takes once it has room again is the rate: when a sample follows one that
/// found the pool full, the blocks taken since, over the time since the pool was grown (grown(); the earlier
/// sample's time when it was not), are a rate the estimate rises to at once. The writes the pool queued land in
/// that span: a deep queue makes it read high, a writer that fills the new room before the sample makes it read
/// low, and the next full sample raises it again; either way the pool catches a writer it had no measure of (a pool
/// full when first seen) within a few extends, where a rate of 0 would grow it by its floor a tick at a time.
/// A pool that took nothing for a whole window is still() (its writer stopped or paused): the daemon then keeps its
/// floor only, where the remembered rate would grow it for a writer that is not writing.
class fill_rate {
public:
    fill_rate(seconds half_life, seconds window) noexcept : half_life_(half_life.count()), window_(window.count()) {}

    /// A sample at `t` (seconds, monotonic) of `used_bytes`, and whether the pool was full.
    void sample(double t, std::uint64_t used_bytes, bool full) {
        if (!h_.empty() && t <= h_.back().t) return;  // time going back, or the same instant: ignored
        if (first_t_ < 0.0)
            first_t_ = t;
        else if (used_bytes > prev_used_ || full)
            grew_t_ = t;
        prev_used_ = used_bytes;
        if (!h_.empty() && used_bytes < h_.back().used) h_.clear();  // discards: the history restarts
        if (full_ && !h_.empty()) {
            const point p = h_.back();
            const double since = grown_at_ > p.t && grown_at_ < t ? grown_at_ : p.t;
            if (used_bytes > p.used) raise(static_cast<double>(used_bytes - p.used) / (t - since), t);
            h_.clear();  // a window across a full spell would count the queue as idle time
        }
        full_ = full;
        h_.push_back({t, used_bytes});
        // The base: the newest sample at least `window` old (or the oldest there is, early on).
        while (h_.size() > 2 && h_[1].t <= t - window_) h_.erase(h_.begin());
        if (h_.size() < 2) return;
        const point& base = h_.front();
        raise(static_cast<double>(used_bytes - base.used) / (t - base.t), t);
    }
    /// The pool was grown at `t` (an extend returned): it has room from then on.
    void grown(double t) noexcept { grown_at_ = t; }
    PROVPOL_NODISCARD rate estimate() const noexcept {
        return rate(estimate_ >= 1.8e19 ? std::uint64_t{18000000000000000000u} : static_cast<std::uint64_t>(estimate_));
    }
    /// True once a rate was measured (two samples, or a sample after a full one).
    PROVPOL_NODISCARD bool measured() const noexcept { return measured_; }
    /// True when the pool took nothing, and was not full, for a whole window up to the last sample at `t`: it is not
    /// filling, whatever the estimate remembers (the decay keeps a writer's rate through a pause, and over a queue).
    PROVPOL_NODISCARD bool still(double t) const noexcept {
        const double since = grew_t_ > first_t_ ? grew_t_ : first_t_;
        return first_t_ >= 0.0 && !full_ && t - since >= window_;
    }

private:
    struct point {
        double t;
        std::uint64_t used;
    };
    void raise(double inst, double t) noexcept {
        const double decayed = measured_ ? estimate_ * std::exp2(-(t - last_) / half_life_) : 0.0;
        estimate_ = inst > decayed ? inst : decayed;
        last_ = t;
        measured_ = true;
    }
    double half_life_, window_;
    double estimate_ = 0.0, last_ = 0.0, grown_at_ = -1.0, first_t_ = -1.0, grew_t_ = -1.0;
    bool full_ = false, measured_ = false;
    std::uint64_t prev_used_ = 0;
    std::vector<point> h_;
};

}  // namespace provpol::thinpoold

#endif  // PROVPOL_EXAMPLES_THINPOOLD_FILL_RATE_HPP
