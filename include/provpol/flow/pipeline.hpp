// provpol/flow/pipeline.hpp - models of the extend latency: the time from "the guest crossed the block threshold"
// to "the extended LV is visible to the host", as distributions that can be sampled (seeded) and queried
// (mean, quantiles, P(L > t)).
//
// - pipeline_latency: the sum of independent stages, each a fixed time or a wait uniform in [min, max) (a poll
//   of period T is a wait uniform in [0, T)). Its distribution is exact: the CDF of a sum of uniforms is a
//   piecewise polynomial, evaluated in closed form, so tail probabilities such as 1e-6 are not sampled. P(L <= t)
//   and P(L > t) are within a relative 1e-12 of the exact values for any stage widths (the closed form's sum is
//   redone in exact integers where double arithmetic would cancel).
// - empirical_latency: measured samples (e.g. from an agent's logs), used as they are: P(L > t) is the share of
//   samples above t, sampling picks one of them.
// Both draw every request's latency afresh (independent waits); flow/clocks.hpp models the flow as clocks, and
// flow/latency.hpp picks any of them at run time.
//
// Every model is a value; queries are const and allocate nothing. Sampling takes the caller's generator.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FLOW_PIPELINE_HPP
#define PROVPOL_FLOW_PIPELINE_HPP

#include "../config.hpp"
#include "../detail/math.hpp"
#include "../random.hpp"
#include "../result.hpp"
#include "../text.hpp"
#include "../time.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace provpol {

namespace detail {
/// A stage's draw: uniform in [lo, hi), or lo when they are equal. pipeline_latency, flow_latency and the domain's
/// requests (domain/shared.hpp, which must draw what flow_latency::complete draws, bit for bit) all draw here.
PROVPOL_NODISCARD inline double draw_uniform(double lo, double hi, random_stream& rng) noexcept {
    return hi > lo ? lo + (hi - lo) * rng.uniform() : lo;
}

/// The smallest t in [model.min(), model.max()] with model.cdf(t) >= p, by bisection to 1e-9 s: the quantile of
/// any model whose CDF is exact and monotone (pipeline_latency, flow_latency).
template <class Model>
PROVPOL_NODISCARD seconds quantile_by_bisection(const Model& model, double p) noexcept {
    if (!(p > 0.0)) return model.min();
    if (p >= 1.0) return model.max();
    double lo = model.min().count(), hi = model.max().count();
    for (int i = 0; i < 200 && hi - lo > 1e-9; ++i) {
        const double mid = lo + (hi - lo) / 2.0;
        if (model.cdf(seconds(mid)) >= p)
            hi = mid;
        else
            lo = mid;
    }
    return seconds(hi);
}
}  // namespace detail

namespace detail {
/// A fixed-size unsigned integer of 32-bit limbs, enough for exact_uniform_cdf: (2^61)^8 x 2^8 < 2^512.
struct wide_uint {
    static constexpr std::size_t limbs = 17;
    std::uint32_t d[limbs] = {};

    void add(const wide_uint& o) noexcept {
        std::uint64_t carry = 0;
        for (std::size_t i = 0; i < limbs; ++i) {
            const std::uint64_t s = std::uint64_t{d[i]} + o.d[i] + carry;
            d[i] = static_cast<std::uint32_t>(s);
            carry = s >> 32;
        }
    }
    /// *this - o, for *this >= o.
    void sub(const wide_uint& o) noexcept {
        std::uint64_t borrow = 0;
        for (std::size_t i = 0; i < limbs; ++i) {  // without wrapping: clang's -fsanitize=integer stays quiet
            const std::uint64_t need = std::uint64_t{o.d[i]} + borrow;
            const std::uint64_t have = d[i];
            borrow = need > have ? 1u : 0u;
            d[i] = static_cast<std::uint32_t>(have + (borrow << 32) - need);
        }
    }
    void mul(std::uint64_t m) noexcept {  // *this x m, for m < 2^64 (the product must fit)
        const std::uint64_t lo = m & 0xffffffffu, hi = m >> 32;
        wide_uint a = *this, b = *this;
        a.mul32(lo);
        b.mul32(hi);
        for (std::size_t i = limbs; i-- > 1;) b.d[i] = b.d[i - 1];
        b.d[0] = 0;
        a.add(b);
        *this = a;
    }
    void mul32(std::uint64_t m) noexcept {
        std::uint64_t carry = 0;
        for (std::size_t i = 0; i < limbs; ++i) {
            const std::uint64_t t = std::uint64_t{d[i]} * m + carry;
            d[i] = static_cast<std::uint32_t>(t);
            carry = t >> 32;
        }
    }
    PROVPOL_NODISCARD bool less(const wide_uint& o) const noexcept {
        for (std::size_t i = limbs; i > 0; --i)  // counting down without wrapping past 0
            if (d[i - 1] != o.d[i - 1]) return d[i - 1] < o.d[i - 1];
        return false;
    }
    /// The value as m x 2^e, m its top 64 bits (truncated; m = 0 for zero).
    void top(std::uint64_t& m, int& e) const noexcept {
        std::size_t bits = 0;
        for (std::size_t i = limbs; i > 0; --i)
            if (d[i - 1] != 0) {
                bits = 32 * (i - 1);
                for (std::uint32_t t = d[i - 1]; t != 0; t >>= 1) ++bits;
                break;
            }
        m = 0;
        const std::size_t from = bits > 64 ? bits - 64 : 0;  // the lowest bit kept
        for (std::size_t b = bits; b > from; --b) m = (m << 1) | ((d[(b - 1) / 32] >> ((b - 1) % 32)) & 1u);
        e = static_cast<int>(from);
    }
};

/// P(U_1 + ... + U_n <= x) for U_i uniform on [0, w_i), computed exactly on a grid of q = 2^-60 of the total
/// width: the widths and x are rounded to whole q (moving the answer as a shift of t by at most (n + 1) q / 2,
/// under 1e-17 of the total width), then the inclusion-exclusion sum is exact in integers and rounded once.
/// Relative error: a few units in the last place. About 30 times the cost of the sum in double; pipeline_latency
/// uses it only where that sum cannot bound its error.
PROVPOL_NODISCARD inline double exact_uniform_cdf(const double* widths, std::size_t n, double x,
                                                  double total) noexcept {
    int e = 0;
    static_cast<void>(detail::frexp(total, &e));  // total < 2^e
    const double to_grid = detail::ldexp(1.0, 60 - e);
    std::uint64_t W[8] = {};
    std::size_t m = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double g = detail::floor(widths[i] * to_grid + 0.5);
        if (g >= 1.0) W[m++] = static_cast<std::uint64_t>(g);
    }
    const double xg = detail::floor(x * to_grid + 0.5);
    if (m == 0 || xg <= 0.0) return 0.0;
    const auto X = static_cast<std::uint64_t>(xg);
    wide_uint pos, neg;
    for (unsigned mask = 0; mask < (1u << m); ++mask) {
        std::uint64_t shift = 0;  // at most 8 x 2^60 (rounded widths of a total below 2^60)
        int bits = 0;
        for (std::size_t i = 0; i < m; ++i)
            if (mask & (1u << i)) shift += W[i], ++bits;
        if (shift >= X) continue;
        wide_uint term;
        term.d[0] = 1;
        for (std::size_t i = 0; i < m; ++i) term.mul(X - shift);
        if (bits & 1)
            neg.add(term);
        else
            pos.add(term);
    }
    if (!neg.less(pos)) return 0.0;
    pos.sub(neg);
    wide_uint den;
    den.d[0] = 1;
    for (std::size_t i = 0; i < m; ++i) {
        den.mul(W[i]);
        den.mul32(i + 1);
    }
    if (!pos.less(den)) return 1.0;
    std::uint64_t nm = 0, dm = 0;
    int ne = 0, de = 0;
    pos.top(nm, ne);
    den.top(dm, de);
    return detail::ldexp(static_cast<double>(nm) / static_cast<double>(dm), ne - de);
}
}  // namespace detail

/// One stage of the extend pipeline: a wait uniform in [min_seconds, max_seconds), or fixed when equal:
/// `{"SPM mailbox scan", 0_s, 2_s}`, `{"lvextend", 0.4_s, 0.8_s}`.
struct latency_stage {
    const char* name = "";             ///< what the stage is ("SPM mailbox scan"); a string with static storage
    seconds min_seconds = seconds(0);  ///< the shortest wait
    seconds max_seconds = seconds(0);  ///< the longest wait (exclusive when above min_seconds)
    bool detection = false;            ///< the agent's own poll, which a simulator of the agent models itself
};

/// The extend latency as a pipeline of independent stages (see latency_stage).
class pipeline_latency {
public:
    /// At most this many stages (the closed-form CDF sums over subsets of the uniform stages: 2^8 terms).
    static constexpr std::size_t max_stages = 8;

    /// Validates the stages: 1 to 8 of them, each with 0 <= min <= max < 1e6 seconds (finite), and at most
    /// one detection stage, which must be the first.
    PROVPOL_NODISCARD static result<pipeline_latency> make(const latency_stage* stages, std::size_t count) noexcept {
        if (count < 1 || count > max_stages)
            return unexpected(error::out_of_range("latency stages", error_value::of(count), error_value::of(1),
                                                  error_value::of(max_stages)));
        pipeline_latency p;
        for (std::size_t i = 0; i < count; ++i) {
            const latency_stage& s = stages[i];
            const double lo = s.min_seconds.count(), hi = s.max_seconds.count();
            if (!detail::isfinite(lo) || lo < 0.0 || lo >= 1e6)
                return unexpected(error::out_of_range("latency stage min_seconds", error_value::of_real(lo),
                                                      error_value::of_real(0.0), error_value::of_real(1e6)));
            if (!detail::isfinite(hi) || hi < lo || hi >= 1e6)
                return unexpected(error::out_of_range("latency stage max_seconds", error_value::of_real(hi),
                                                      error_value::of_real(lo), error_value::of_real(1e6)));
            if (s.detection && i != 0)
                return unexpected(
                    error::unsupported("latency stages", "only the first stage can be the detection poll"));
            p.stages_[i] = s;
        }
        p.count_ = count;
        p.prepare();
        return p;
    }

    /// A single fixed latency.
    PROVPOL_NODISCARD static result<pipeline_latency> fixed(seconds t) noexcept {
        const latency_stage s{"fixed", t, t, false};
        const auto r = make(&s, 1);
        if (!r)
            return unexpected(error::out_of_range("fixed latency seconds", error_value::of_real(t.count()),
                                                  error_value::of_real(0.0), error_value::of_real(1e6)));
        return r;
    }

    PROVPOL_NODISCARD std::size_t size() const noexcept { return count_; }
    PROVPOL_NODISCARD const latency_stage& stage(std::size_t i) const noexcept { return stages_[i]; }

    /// The expected latency.
    PROVPOL_NODISCARD seconds mean() const noexcept { return seconds(offset_ + total_width_ / 2.0); }
    /// The shortest possible latency.
    PROVPOL_NODISCARD seconds min() const noexcept { return seconds(offset_); }
    /// The supremum of the latency (never reached when a stage is a uniform wait).
    PROVPOL_NODISCARD seconds max() const noexcept { return seconds(offset_ + total_width_); }

    /// P(L <= t).
    PROVPOL_NODISCARD double cdf(seconds t) const noexcept { return 1.0 - exceed_probability(t); }

    /// P(L > t), exact to a relative 1e-12 (closed form for a sum of independent uniforms; accurate in the far
    /// tail, where it is computed from the mirror image, P(S > x) = P(S <= W - x)).
    PROVPOL_NODISCARD double exceed_probability(seconds t) const noexcept {
        const double x = t.count() - offset_;
        if (x < 0.0) return 1.0;
        if (x >= total_width_) return 0.0;
        if (n_uniform_ == 0) return 0.0;  // fixed latency, and x >= 0 == total width handled above
        if (x > total_width_ / 2.0) return sum_cdf(total_width_ - x);
        return 1.0 - sum_cdf(x);
    }

    /// The smallest t with P(L <= t) >= p, for p in [0, 1] (by bisection on the exact CDF, to 1e-9 s).
    PROVPOL_NODISCARD seconds quantile(double p) const noexcept { return detail::quantile_by_bisection(*this, p); }

    /// One draw of the latency.
    PROVPOL_NODISCARD seconds sample(random_stream& rng) const noexcept {
        double t = 0.0;
        for (std::size_t i = 0; i < count_; ++i) t += draw(stages_[i], rng);
        return seconds(t);
    }

    /// The poll period of the detection stage (its max - min), or 0 when detection is immediate.
    PROVPOL_NODISCARD seconds detection_period() const noexcept {
        return count_ > 0 && stages_[0].detection ? stages_[0].max_seconds - stages_[0].min_seconds : seconds(0);
    }
    /// One draw of the latency after detection (every stage but the detection poll): what a simulator that
    /// models the agent's own polling adds after the agent requested the extend.
    PROVPOL_NODISCARD seconds sample_after_detection(random_stream& rng) const noexcept {
        double t = 0.0;
        for (std::size_t i = 0; i < count_; ++i)
            t += stages_[i].detection ? stages_[i].min_seconds.count() : draw(stages_[i], rng);
        return seconds(t);
    }

private:
    static double draw(const latency_stage& s, random_stream& rng) noexcept {
        return detail::draw_uniform(s.min_seconds.count(), s.max_seconds.count(), rng);
    }

    void prepare() noexcept {
        offset_ = 0.0;
        total_width_ = 0.0;
        n_uniform_ = 0;
        for (std::size_t i = 0; i < count_; ++i) {
            offset_ += stages_[i].min_seconds.count();
            const double w = stages_[i].max_seconds.count() - stages_[i].min_seconds.count();
            if (w > 0.0) {
                widths_[n_uniform_++] = w;
                total_width_ += w;
            }
        }
        // n! * product of widths: the normaliser of the closed-form CDF.
        double norm = 1.0;
        for (std::size_t i = 0; i < n_uniform_; ++i) norm *= static_cast<double>(i + 1) * widths_[i];
        norm_ = norm;
    }

    // P(U_1 + ... + U_n <= x) for U_i uniform on [0, w_i): (1 / (n! prod w)) sum over subsets J of
    // (-1)^|J| (x - sum_J w)_+^n. The alternating sum cancels when the widths differ in scale (its terms reach
    // x^n / (n! prod w), the result stays in [0, 1]): {2 s, 7 x 1 ms} lost every digit. So the sum in double
    // also bounds its own rounding error (each term's, from the rounded x - sum_J w, and the summation's); when
    // that bound exceeds 1e-13 of the result, the sum is redone exactly in integers (detail::exact_uniform_cdf).
    // Either way the result is within a relative 1e-12 of the exact value (tests/latency_test.cpp checks it against
    // an independent exact computation over random stage sets).
    PROVPOL_NODISCARD double sum_cdf(double x) const noexcept {
        if (x <= 0.0) return 0.0;
        if (x >= total_width_) return 1.0;
        const std::size_t n = n_uniform_;
        constexpr double u = 1.1102230246251565e-16;  // 2^-53, the unit roundoff
        double acc = 0.0, magnitude = 0.0, term_error = 0.0;
        for (unsigned mask = 0; mask < (1u << n); ++mask) {
            double shift = 0.0;
            int bits = 0;
            for (std::size_t i = 0; i < n; ++i)
                if (mask & (1u << i)) {
                    shift += widths_[i];
                    ++bits;
                }
            const double y = x - shift;
            // |y - exact| <= d: the rounding of the shift's sum and of the subtraction.
            const double d = static_cast<double>(n + 1) * u * (x + shift);
            if (y <= -d) continue;  // exactly nonpositive: no term
            const double ay = y > 0.0 ? y : 0.0;
            double term = 1.0, below = 1.0;  // ay^n and (ay + d)^(n-1)
            for (std::size_t i = 0; i < n; ++i) term *= ay;
            for (std::size_t i = 1; i < n; ++i) below *= ay + d;
            // |ay^n - exact^n| <= n (ay + d)^(n-1) d, plus n roundings of the product.
            term_error += static_cast<double>(n) * below * d + static_cast<double>(n) * u * term;
            if (y <= 0.0) continue;
            magnitude += term;
            acc += (bits & 1) ? -term : term;
        }
        const double f = acc / norm_;
        const double bound = (term_error + static_cast<double>((1u << n) + n) * u * magnitude) / norm_ * 1.01 +
                             static_cast<double>(4 * n + 4) * u * (f < 0.0 ? -f : f);
        if (norm_ > 1e-280 && detail::isfinite(bound) && f > 0.0 && bound <= 1e-13 * f) return f > 1.0 ? 1.0 : f;
        return detail::exact_uniform_cdf(widths_, n, x, total_width_);
    }

    latency_stage stages_[max_stages] = {};
    std::size_t count_ = 0;
    double widths_[max_stages] = {};
    std::size_t n_uniform_ = 0;
    double offset_ = 0.0;
    double total_width_ = 0.0;
    double norm_ = 1.0;
};

/// The extend latency as measured samples, used as they are (the empirical distribution).
class empirical_latency {
public:
    /// The most samples kept. Above it, the largest capacity / 2 samples are kept as they are (the tail that a
    /// target of 1e-4 reads, and the maximum), and the others are summarised by capacity / 2 order statistics
    /// at evenly spaced ranks from the smallest sample up. Each kept sample remembers its rank, so that in the
    /// tail P(L > t), quantiles and sampling are exact, and in the summarised body they err upwards (toward
    /// longer latencies) by at most one rank step, (samples - capacity / 2) / (capacity / 2 - 1) samples.
    static constexpr std::size_t capacity = 512;

    /// Validates and keeps the samples: 1 or more, each finite and in [0, 1e6) seconds. Does not modify
    /// `samples`: it sorts a copy (allocates; std::bad_alloc propagates).
    PROVPOL_NODISCARD static result<empirical_latency> make(const seconds* samples, std::size_t count) {
        if (count == 0) return unexpected(error::unsupported("latency samples", "no samples were given"));
        std::vector<double> sorted(count);
        for (std::size_t i = 0; i < count; ++i) {
            const double x = samples[i].count();
            if (!detail::isfinite(x) || x < 0.0 || x >= 1e6)
                return unexpected(error::out_of_range("latency sample", error_value::of_real(x),
                                                      error_value::of_real(0.0), error_value::of_real(1e6)));
            sorted[i] = x;
        }
        std::sort(sorted.begin(), sorted.end());
        empirical_latency e;
        e.count_ = count < capacity ? count : capacity;
        e.total_ = count;
        const std::size_t tail = count <= capacity ? count : capacity / 2;
        const std::size_t body = e.count_ - tail;  // kept points below the tail
        const std::size_t below = count - tail;    // samples they stand for
        for (std::size_t i = 0; i < e.count_; ++i) {
            // body point i at rank i (below - 1) / (body - 1): the smallest sample first, the tail's neighbour last
            std::size_t rank = i >= body ? below + (i - body) : (body == 1 ? 0 : i * (below - 1) / (body - 1));
            // among equal samples, the last: P(L <= x) counts them all
            const auto last_equal =
                std::upper_bound(sorted.begin() + static_cast<std::ptrdiff_t>(rank), sorted.end(), sorted[rank]) - 1;
            e.x_[i] = sorted[rank];
            e.rank_[i] = static_cast<std::size_t>(last_equal - sorted.begin());
        }
        double sum = 0.0;
        for (std::size_t i = 0; i < count; ++i) sum += sorted[i];  // in ascending order, as before
        e.mean_ = sum / static_cast<double>(count);
        return e;
    }

    /// How many samples were given, and how many are kept.
    PROVPOL_NODISCARD std::size_t samples_given() const noexcept { return total_; }
    PROVPOL_NODISCARD std::size_t size() const noexcept { return count_; }
    PROVPOL_NODISCARD seconds sample_at(std::size_t i) const noexcept { return seconds(i < count_ ? x_[i] : 0.0); }

    /// The mean of every sample given (0 for a default, empty model).
    PROVPOL_NODISCARD seconds mean() const noexcept { return seconds(mean_); }
    /// The smallest and the largest sample given (0 for an empty model).
    PROVPOL_NODISCARD seconds min() const noexcept { return seconds(count_ > 0 ? x_[0] : 0.0); }
    PROVPOL_NODISCARD seconds max() const noexcept { return seconds(count_ > 0 ? x_[count_ - 1] : 0.0); }
    /// P(L > t): the share of samples above t (exact in the kept tail; an upper bound in the summarised body).
    PROVPOL_NODISCARD double exceed_probability(seconds t) const noexcept {
        if (count_ == 0) return 0.0;
        const std::size_t j = first_above(t.count());
        if (j == 0) return 1.0;
        return static_cast<double>(total_ - 1 - rank_[j - 1]) / static_cast<double>(total_);
    }
    PROVPOL_NODISCARD double cdf(seconds t) const noexcept { return 1.0 - exceed_probability(t); }
    /// The smallest sample t with P(L <= t) >= p (exact in the kept tail; in the summarised body, the kept
    /// sample at or above it).
    PROVPOL_NODISCARD seconds quantile(double p) const noexcept {
        if (count_ == 0) return seconds(0);
        if (!(p > 0.0)) return min();
        if (p >= 1.0) return max();
        const double k = detail::ceil(p * static_cast<double>(total_));  // the rank needed, 1-based
        const std::size_t need =
            k < 1.0 ? 0 : (k >= static_cast<double>(total_) ? total_ - 1 : static_cast<std::size_t>(k) - 1);
        return seconds(x_[first_rank_at_least(need)]);
    }
    /// One of the samples, uniformly over every sample given (a summarised one by the kept sample at or above).
    PROVPOL_NODISCARD seconds sample(random_stream& rng) const noexcept {
        if (count_ == 0) return seconds(0);
        if (total_ == count_) return seconds(x_[rng.below(count_)]);
        return seconds(x_[first_rank_at_least(static_cast<std::size_t>(rng.below(total_)))]);
    }
    /// Measured samples include detection: a simulator requests at the event and adds the whole sample.
    PROVPOL_NODISCARD seconds detection_period() const noexcept { return seconds(0); }
    PROVPOL_NODISCARD seconds sample_after_detection(random_stream& rng) const noexcept { return sample(rng); }

private:
    // The first kept index with x > t (count_ when none).
    PROVPOL_NODISCARD std::size_t first_above(double t) const noexcept {
        return static_cast<std::size_t>(std::upper_bound(x_, x_ + count_, t) - x_);
    }
    // The first kept index whose rank is at least r (ranks rise; the last is total_ - 1 >= r).
    PROVPOL_NODISCARD std::size_t first_rank_at_least(std::size_t r) const noexcept {
        return static_cast<std::size_t>(std::lower_bound(rank_, rank_ + (count_ - 1), r) - rank_);
    }

    double x_[capacity] = {};
    std::size_t rank_[capacity] = {};  ///< x_[i]'s rank among the sorted samples (the last of equal ones)
    std::size_t count_ = 0;
    std::size_t total_ = 0;
    double mean_ = 0.0;
};

}  // namespace provpol

#endif  // PROVPOL_FLOW_PIPELINE_HPP
