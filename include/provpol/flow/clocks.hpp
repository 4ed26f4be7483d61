// provpol/flow/clocks.hpp - the extend flow as clocks: a latency model whose waits are periodic clocks that keep
// their phase for the life of a run (a VM), not dice drawn afresh for every extend.
//
// VDSM's extend flow (oVirt/vdsm: lib/vdsm/virt/periodic.py, thinp.py, storage/mailbox.py) is a chain of
//   - the host's watermark monitor, a periodic task (vm_watermark_interval, 2 s) with its own phase: before
//     4.50.1.1 it sends the extend request at its next tick after the block-threshold event;
//   - the host's mail monitor (HSM_MailMonitor), which writes the request to its outbox at once when idle, then
//     sleeps its reply interval (2 s; events_interval 0.5 s with [mailbox] events_enable), reads its inbox, and
//     sleeps again while a reply is pending: the reply is seen at send + k x interval, a clock started by the send;
//   - the SPM's mail monitor (SPM_MailMonitor), a loop that reads every host's mailbox and sleeps 2 s, so its
//     period is 2 s plus the read and its phase drifts slowly against the hosts' clocks; with events it checks
//     the event block every 0.5 s between scans;
//   - lvextend on the SPM, the host's inbox read, and `lvchange --refresh` on the host: service times.
//
// flow_latency models such a chain as stages of five kinds:
//   monitor(period)           the agent's own periodic monitor (detection); only as the first stage. A simulator
//                             runs it itself: the request is made at its tick.
//   clock(period, drift)      wait for the next tick of a free-running clock: ticks at phase + n x (period + drift),
//                             the phase drawn once per run, uniform in [0, period + drift).
//   send(min, max)            a service time, after which the request is in the mailbox: the reply poll counts
//                             from here. At most one.
//   delay(min, max)           a service time or an event's dispatch, uniform in [min, max) (fixed when equal).
//   reply_poll(period)        wait for the first tick of a clock started at the send: send + k x period, k >= 1.
//                             At most one, after the send. While a reply is pending, a new request is sent only
//                             at this clock's next tick (the mail monitor picks up new requests once per loop).
// A delay between the send and the reply poll can be marked as holding the volume group's lock (lvextend): in a
// storage domain (domain/shared.hpp) those delays are serialized, the others run side by side.
//
// The host's re-sends (flow_resend): VDSM asks again for an extend still pending, and the host's mail monitor drops a
// message equal to one still waiting for its reply. A re-sent request goes through only once the host has read the
// reply and is refreshing the LV (the last delay after the reply poll); the SPM then finds the LV already extended
// (lvm.py's extendLV returns at once) and replies, and the host refreshes again: an extend completed that grew
// nothing, which VDSM's log counts as an extend. The rule is VDSM's version's (see flow_resend).
//
// Stalls (with_stalls): rare requests that take far longer than the flow, as a real SPM's stalled lvextend, an
// overloaded SPM or a host's storage hiccup does. With probability p a request stalls: one of up to 32 stall cases,
// chosen by its weight, adds its own time to some of the delays and the send (the SPM's work, the refresh, the event's
// dispatch), on top of their draws. The flow keeps its clocks: a stall in the SPM's work is still seen at a reply
// poll. The marginal latency is then the mixture (1 - p) L + p L', L' the flow with a case's times added; its CDF is
// exact as below, the reply poll's sum taken for each case over the polls its shifted work can need.
//
// Two views of one model:
//   - per run (simulate_run, the agent): start_run() draws the clocks' phases, complete() gives, for a request
//     made at time t, the time the grown LV is visible. The same VM is lucky or unlucky extend after extend.
//   - marginal (flow/risk.hpp, recommend, rate-aware budgets): the latency of one request made at a time uniform
//     against every clock. Each clock's wait is then uniform in [0, period + drift) and independent of the
//     others, and with A the stages up to the send, X those between the send and the reply poll of period T,
//     B those after it: L = A + T x max(1, ceil(X / T)) + B. Its CDF is exact:
//       P(L <= t) = sum_k P(K = k) P(A + B <= t - k T),  P(K = k) = F_X(kT) - F_X((k - 1)T)  (k >= 2),
//     with F of a sum of independent uniforms in closed form (pipeline_latency). Mean, min, max, P(L > t) are
//     exact; quantiles are found by bisection on the exact CDF to 1e-9 s.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FLOW_CLOCKS_HPP
#define PROVPOL_FLOW_CLOCKS_HPP

#include "../config.hpp"
#include "../detail/math.hpp"
#include "../random.hpp"
#include "../result.hpp"
#include "../time.hpp"
#include "pipeline.hpp"
#include "stage.hpp"

#include <cstddef>
#include <cstdint>

namespace provpol {

/// A run's state of a flow: the clocks' phases and the mail monitor's pending reply. Times are since the run's
/// start.
struct flow_run {
    static constexpr std::size_t max_stages = 8;
    seconds phase[max_stages] = {};       ///< each clock's first tick at or after time 0, in [0, cycle)
    seconds send_time = seconds(-1e300);  ///< the last send: the reply poll's clock counts from there
    seconds reply_pending_until =
        seconds(-1e300);                   ///< when the last pending reply is seen; a request before that waits
    seconds reply_read = seconds(-1e300);  ///< the last request's: when the host read its reply (see flow_resend)
};

/// When VDSM's host asks again for an extend that has not completed (oVirt/vdsm lib/vdsm/virt/thinp.py).
enum class flow_resend : unsigned char {
    never,          ///< it does not: a request is sent once
    every_check,    ///< VDSM before 4.50.1: at every monitor tick while the drive is over its limit, and at once
                    ///< on ENOSPC (thinp.py's on_enospc called monitor_volumes(); changed by oVirt/vdsm a62c7377c)
    after_timeout,  ///< VDSM 4.50.1 on (oVirt/vdsm b8910cf36, "Minimize duplicate extend requests"): at a tick once
                    ///< extend_timeout (2 s) has passed since the request, and at once on ENOSPC (urgent)
};
/// "never", "every_check" or "after_timeout".
PROVPOL_NODISCARD constexpr const char* to_text(flow_resend e) noexcept {
    constexpr const char* names[] = {"never", "every_check", "after_timeout"};
    static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(flow_resend::after_timeout) + 1,
                  "a name each");
    return detail::enum_name(names, e);
}

namespace detail {
/// The first tick of the clock phase + n x cycle at or after t (within an ulp). flow_latency's runs and the domain's
/// shared clocks both take their ticks from here, so that a lone writer in a domain is simulate_run bit for bit.
inline double next_clock_tick(double phase, double cycle, double t) noexcept {
    const double n = detail::ceil((t - phase) / cycle);
    const double tick = phase + n * cycle;
    return tick < t ? tick + cycle : tick;
}
}  // namespace detail

/// When a clock that ticks at phase + n x cycle (n any integer) next ticks at or after `t`, within an ulp: the
/// moment a poll or a scan on that clock sees what happened at `t`. The same arithmetic the flows' runs and the
/// domain's shared clocks use, so a driver that schedules its own events agrees with the simulator to the bit.
/// `cycle` must be above 0.
PROVPOL_NODISCARD inline seconds next_clock_tick(seconds phase, seconds cycle, seconds t) noexcept {
    return seconds(detail::next_clock_tick(phase.count(), cycle.count(), t.count()));
}

/// One way a request of a flow stalls (flow_latency::with_stalls): the time it adds to each stage (by the stage's
/// index; only a delay or the send takes time), and its weight among the flow's stall cases.
struct flow_stall_case {
    double weight = 1.0;
    seconds extra[flow_run::max_stages] = {};
};

/// The extend latency as the flow of clocks and service times (see the header comment).
class flow_latency {
public:
    static constexpr std::size_t max_stages = flow_run::max_stages;
    /// The most reply polls one request can wait (bounds the exact CDF's sum).
    static constexpr std::uint64_t max_reply_polls = 1000;
    /// The most stall cases a flow keeps (with_stalls).
    static constexpr std::size_t max_stall_cases = 32;
    /// draw_stall()'s answer for a request that does not stall.
    static constexpr std::size_t no_stall = max_stall_cases;

    /// Validates the stages: 1 to 8; a monitor only first; a locked delay only between the send and the reply
    /// poll; at most one send and one reply poll, the poll after the send; names of at most flow_stage::max_name
    /// bytes; times finite in [0, 1e5) seconds with min <= max; periods in [1 ms, 1e5 s); drift in [0, period).
    /// An error about a stage names it (flow_error).
    PROVPOL_NODISCARD static result<flow_latency, flow_error> make(const flow_stage* stages,
                                                                   std::size_t count) noexcept {
        if (count < 1 || count > max_stages)
            return unexpected(flow_error(error::out_of_range("flow stages", error_value::of(count), error_value::of(1),
                                                             error_value::of(max_stages))));
        flow_latency f;
        int send = -1, poll = -1;
        for (std::size_t i = 0; i < count; ++i) {
            const flow_stage& s = stages[i];
            const auto checked = check_stage(s, i, send, poll);
            if (!checked) return unexpected(flow_error(checked.error(), i, s));
            if (s.kind_ == flow_stage_kind::send) send = static_cast<int>(i);
            if (s.kind_ == flow_stage_kind::reply_poll) poll = static_cast<int>(i);
            f.stages_[i] = s;
        }
        f.count_ = count;
        f.send_ = send;
        f.poll_ = poll;
        if (poll >= 0)
            for (std::size_t i = static_cast<std::size_t>(poll) + 1; i < count; ++i)
                if (stages[i].kind_ == flow_stage_kind::delay) f.refresh_ = static_cast<int>(i);
        const auto prepared = f.prepare();
        if (!prepared) return unexpected(flow_error(prepared.error()));
        return f;
    }

    PROVPOL_NODISCARD std::size_t size() const noexcept { return count_; }
    PROVPOL_NODISCARD const flow_stage& stage(std::size_t i) const noexcept { return stages_[i]; }

    /// The same flow with the host's re-send rule (`timeout`: extend_timeout for flow_resend::after_timeout, in
    /// (0, 1e5) s). The marginal latency does not depend on it; a run's extend count and the host's mail monitor do.
    PROVPOL_NODISCARD result<flow_latency> with_resend(flow_resend rule, seconds timeout = seconds(2)) const noexcept {
        if (!(timeout.count() > 0.0 && timeout.count() < 1e5))
            return unexpected(error::out_of_range("flow resend timeout", error_value::of_real(timeout.count()),
                                                  error_value::of_real(0.0), error_value::of_real(1e5)));
        flow_latency f = *this;
        f.resend_ = poll_ >= 0 ? rule : flow_resend::never;  // without the mailbox there is nothing to re-send
        f.resend_timeout_ = timeout;
        return f;
    }
    PROVPOL_NODISCARD flow_resend resend() const noexcept { return resend_; }
    PROVPOL_NODISCARD seconds resend_timeout() const noexcept { return resend_timeout_; }
    /// The stage the host is in after it read the reply (the LV refresh: the last delay after the reply poll), or
    /// -1 without one.
    PROVPOL_NODISCARD int refresh_stage() const noexcept { return refresh_; }

    /// The same flow whose requests stall with probability `probability` (see the header comment): `count` cases,
    /// each adding its times to the stages' draws, chosen by weight (the weights need not add up to 1). Validates:
    /// probability in [0, 1]; 1 to max_stall_cases cases when it is above 0, none at 0 (the flow without stalls);
    /// weights finite and above 0; each case's times finite in [0, 1e5) s, and above 0 only on a delay or the send.
    /// An error about a case's time names the stage. Replaces the stalls the flow had.
    PROVPOL_NODISCARD result<flow_latency, flow_error> with_stalls(double probability, const flow_stall_case* cases,
                                                                   std::size_t count) const noexcept {
        if (!(probability >= 0.0 && probability <= 1.0))
            return unexpected(
                flow_error(error::out_of_range("flow stall probability", error_value::of_real(probability),
                                               error_value::of_real(0.0), error_value::of_real(1.0))));
        const std::size_t lo = probability > 0.0 ? 1 : 0, hi = probability > 0.0 ? max_stall_cases : 0;
        if (count < lo || count > hi || (count > 0 && cases == nullptr))
            return unexpected(flow_error(error::out_of_range("flow stall cases", error_value::of(count),
                                                             error_value::of(lo), error_value::of(hi))));
        flow_latency f = *this;
        double sum = 0.0;
        for (std::size_t c = 0; c < count; ++c) {
            const double w = cases[c].weight;
            if (!(detail::isfinite(w) && w > 0.0))
                return unexpected(
                    flow_error(error::unsupported("flow stall weight", "a weight must be finite and above 0")));
            for (std::size_t i = 0; i < max_stages; ++i) {
                const double x = cases[c].extra[i].count();
                if (!detail::isfinite(x) || x < 0.0 || x >= 1e5)
                    return unexpected(
                        flow_error(error::out_of_range("stall_seconds", error_value::of_real(x),
                                                       error_value::of_real(0.0), error_value::of_real(1e5)),
                                   i, stages_[i]));
                if (x > 0.0 && (i >= count_ || !stages_[i].timed()))
                    return unexpected(flow_error(
                        error::unsupported(nullptr, "a stall adds time only to a delay or the send"), i, stages_[i]));
            }
            sum += w;
            f.stalls_[c] = cases[c];
        }
        if (!detail::isfinite(sum))
            return unexpected(flow_error(error::unsupported("flow stall weight", "the weights' sum must be finite")));
        f.stall_count_ = count;
        f.stall_p_ = count == 0 ? 0.0 : probability;
        double cum = 0.0;
        for (std::size_t c = 0; c < count; ++c) {
            f.stall_share_[c] = cases[c].weight / sum;
            cum += f.stall_share_[c];
            f.stall_cum_[c] = c + 1 == count ? 1.0 : cum;
        }
        f.prepare_stalls();
        return f;
    }
    /// The probability that a request stalls (0 without stalls).
    PROVPOL_NODISCARD double stall_probability() const noexcept { return stall_p_; }
    /// The stall cases, as given (a case's share of the stalls is its weight over the weights' sum).
    PROVPOL_NODISCARD std::size_t stall_case_count() const noexcept { return stall_count_; }
    PROVPOL_NODISCARD const flow_stall_case& stall_case(std::size_t c) const noexcept { return stalls_[c]; }
    /// Stall case c's share of the stalls: its weight over the weights' sum.
    PROVPOL_NODISCARD double stall_share(std::size_t c) const noexcept {
        return c < stall_count_ ? stall_share_[c] : 0.0;
    }
    /// Whether a request stalls, and how: the case's index, or no_stall. Draws one uniform from `rng` when the flow has
    /// stalls, none otherwise (so that a flow without stalls draws what it always drew). complete() and a domain's
    /// requests (domain/shared.hpp) draw it first, before the stages' draws.
    PROVPOL_NODISCARD std::size_t draw_stall(random_stream& rng) const noexcept {
        if (!(stall_p_ > 0.0)) return no_stall;
        const double u = rng.uniform();
        if (!(u < stall_p_)) return no_stall;
        const double v = u / stall_p_;
        for (std::size_t c = 0; c + 1 < stall_count_; ++c)
            if (v < stall_cum_[c]) return c;
        return stall_count_ - 1;
    }
    /// The time stall case `c` adds to stage `i` (0 for no_stall).
    PROVPOL_NODISCARD seconds stall_extra(std::size_t c, std::size_t i) const noexcept {
        return c < stall_count_ && i < max_stages ? stalls_[c].extra[i] : seconds(0);
    }

    // ---- the marginal latency: a request at a time uniform against every clock ------------------------------

    PROVPOL_NODISCARD seconds mean() const noexcept { return seconds(mean_); }
    PROVPOL_NODISCARD seconds min() const noexcept { return seconds(min_); }
    /// The supremum of the latency.
    PROVPOL_NODISCARD seconds max() const noexcept { return seconds(max_); }
    PROVPOL_NODISCARD double cdf(seconds t) const noexcept {
        double acc = stall_p_ < 1.0 ? (1.0 - stall_p_) * part(t.count(), 0.0, 0.0, k_min_, k_max_, false) : 0.0;
        for (std::size_t c = 0; c < stall_count_; ++c)
            acc += stall_p_ * stall_share_[c] *
                   part(t.count(), stall_x_[c], stall_ab_[c], stall_k_min_[c], stall_k_max_[c], false);
        return acc < 0.0 ? 0.0 : (acc > 1.0 ? 1.0 : acc);
    }
    /// P(L > t), computed as a sum of upper tails so that small probabilities keep their precision.
    PROVPOL_NODISCARD double exceed_probability(seconds t) const noexcept {
        double acc = stall_p_ < 1.0 ? (1.0 - stall_p_) * part(t.count(), 0.0, 0.0, k_min_, k_max_, true) : 0.0;
        for (std::size_t c = 0; c < stall_count_; ++c)
            acc += stall_p_ * stall_share_[c] *
                   part(t.count(), stall_x_[c], stall_ab_[c], stall_k_min_[c], stall_k_max_[c], true);
        return acc < 0.0 ? 0.0 : (acc > 1.0 ? 1.0 : acc);
    }
    /// The smallest t with P(L <= t) >= p (bisection on the exact CDF, to 1e-9 s).
    PROVPOL_NODISCARD seconds quantile(double p) const noexcept { return detail::quantile_by_bisection(*this, p); }
    /// P(K = k): the probability that the reply is seen at the k-th poll after the send (1 without a poll), stalls
    /// included.
    PROVPOL_NODISCARD double poll_probability(std::uint64_t k) const noexcept {
        double acc = stall_p_ < 1.0 ? (1.0 - stall_p_) * shifted_poll_probability(k, 0.0) : 0.0;
        for (std::size_t c = 0; c < stall_count_; ++c)
            acc += stall_p_ * stall_share_[c] * shifted_poll_probability(k, stall_x_[c]);
        return acc;
    }

    // ---- one run -------------------------------------------------------------------------------------------

    /// The agent's monitor period (the first stage when it is a monitor), or 0 when the agent requests on the
    /// threshold event itself.
    PROVPOL_NODISCARD seconds detection_period() const noexcept {
        return stages_[0].kind_ == flow_stage_kind::monitor ? stages_[0].lo_ : seconds(0);
    }
    /// Draws the run's clock phases, in stage order, one uniform each (the monitor's phase is the caller's).
    PROVPOL_NODISCARD flow_run start_run(random_stream& rng) const noexcept {
        flow_run r;
        for (std::size_t i = 0; i < count_; ++i)
            if (stages_[i].kind_ == flow_stage_kind::clock) r.phase[i] = stages_[i].cycle() * rng.uniform();
        return r;
    }
    /// The time the grown LV is visible for a request the agent made at time `t` (at its monitor's tick, or at the
    /// event when the flow has no monitor). Updates the run's pending-reply state.
    PROVPOL_NODISCARD seconds complete(flow_run& run, seconds at, random_stream& rng) const noexcept {
        double t = at.count();
        run.reply_read = seconds(1e300);  // set at the refresh stage, when the flow has one
        const std::size_t stall = draw_stall(rng);
        for (std::size_t i = 0; i < count_; ++i) {
            const flow_stage& s = stages_[i];
            switch (s.kind_) {
                case flow_stage_kind::monitor:
                    break;  // the request is made at the monitor's tick
                case flow_stage_kind::clock:
                    t = detail::next_clock_tick(run.phase[i].count(), s.cycle().count(), t);
                    break;
                case flow_stage_kind::delay:
                    if (static_cast<int>(i) == refresh_) run.reply_read = seconds(t);
                    t += draw(s, rng) + stall_extra(stall, i).count();
                    break;
                case flow_stage_kind::send:
                    t += draw(s, rng) + stall_extra(stall, i).count();
                    if (poll_ >= 0) {
                        if (t < run.reply_pending_until.count())  // the mail monitor is sleeping on a pending reply
                            t = detail::next_clock_tick(run.send_time.count(), period_, t);
                        else
                            run.send_time = seconds(t);
                    }
                    break;
                case flow_stage_kind::reply_poll: {
                    // The first poll after the send that sees the reply (the send is on this clock's grid).
                    const double sent = run.send_time.count();
                    const double k = detail::ceil((t - sent) / period_);
                    t = sent + (k < 1.0 ? 1.0 : k) * period_;
                    if (t > run.reply_pending_until.count()) run.reply_pending_until = seconds(t);
                    break;
                }
            }
        }
        return seconds(t);
    }

private:
    // Stage i against its kind's ranges and its place, given the send and the reply poll before it (-1 when
    // none): true, or what is wrong with it (flow_error adds which stage).
    static result<bool> check_stage(const flow_stage& s, std::size_t i, int send, int poll) noexcept {
        if (s.name_size_ > flow_stage::max_name)
            return unexpected(error::out_of_range("name length", error_value::of(s.name_size_), {},
                                                  error_value::of(flow_stage::max_name)));
        const double lo = s.lo_.count(), hi = s.hi_.count(), drift = s.drift_.count();
        if (s.timed()) {
            if (!detail::isfinite(lo) || lo < 0.0 || lo >= 1e5)
                return unexpected(error::out_of_range("min_seconds", error_value::of_real(lo),
                                                      error_value::of_real(0.0), error_value::of_real(1e5)));
            if (!detail::isfinite(hi) || hi < lo || hi >= 1e5)
                return unexpected(error::out_of_range("max_seconds", error_value::of_real(hi), error_value::of_real(lo),
                                                      error_value::of_real(1e5)));
        } else {
            if (!detail::isfinite(lo) || lo < 0.001 || lo >= 1e5)
                return unexpected(error::out_of_range("period", error_value::of_real(lo), error_value::of_real(0.001),
                                                      error_value::of_real(1e5)));
            if (!detail::isfinite(drift) || drift < 0.0 || drift >= lo)
                return unexpected(error::out_of_range("drift", error_value::of_real(drift), error_value::of_real(0.0),
                                                      error_value::of_real(lo)));
        }
        if (s.locked_ && (s.kind_ != flow_stage_kind::delay || send < 0 || poll >= 0))
            return unexpected(error::unsupported(
                nullptr, "only a delay between the send and the reply-poll can hold the volume group's lock"));
        if (s.kind_ == flow_stage_kind::monitor && i != 0)
            return unexpected(
                error::unsupported(nullptr, "kind monitor (the agent's own detection) can only be the first stage"));
        if (s.kind_ == flow_stage_kind::send && send >= 0)
            return unexpected(error::unsupported(nullptr, "a second send (a flow has at most one)"));
        if (s.kind_ == flow_stage_kind::reply_poll && poll >= 0)
            return unexpected(error::unsupported(nullptr, "a second reply-poll (a flow has at most one)"));
        if (s.kind_ == flow_stage_kind::reply_poll && send < 0)
            return unexpected(
                error::unsupported(nullptr, "a reply-poll counts from the send: put a send stage before it"));
        return true;
    }

    static double draw(const flow_stage& s, random_stream& rng) noexcept {
        return detail::draw_uniform(s.lo_.count(), s.hi_.count(), rng);
    }

    // Splits the stages into A + B (uniforms outside the send-to-poll span) and X (between send and poll).
    result<bool> prepare() noexcept {
        latency_stage ab[max_stages] = {}, x[max_stages] = {};
        std::size_t nab = 0, nx = 0;
        for (std::size_t i = 0; i < count_; ++i) {
            const flow_stage& s = stages_[i];
            if (s.kind_ == flow_stage_kind::reply_poll) {
                period_ = s.lo_.count();
                continue;
            }
            // Unnamed: a pipeline's stage keeps a pointer to its name, and this flow's own copy moves with it.
            const bool clocked = !s.timed();
            const latency_stage u{"", clocked ? seconds(0) : s.lo_, clocked ? s.cycle() : s.hi_, false};
            const bool between = poll_ >= 0 && static_cast<int>(i) > send_ && static_cast<int>(i) < poll_;
            if (between)
                x[nx++] = u;
            else
                ab[nab++] = u;
        }
        const latency_stage zero{"", seconds(0), seconds(0), false};
        if (nab == 0) ab[nab++] = zero;
        if (nx == 0) x[nx++] = zero;
        auto pab = pipeline_latency::make(ab, nab);
        auto px = pipeline_latency::make(x, nx);
        if (!pab || !px) return unexpected(error::unsupported("flow stages", "a stage's times are out of range"));
        ab_ = *pab;
        x_ = *px;
        if (poll_ < 0) {
            base_mean_ = ab_.mean().count();
            base_min_ = ab_.min().count();
            base_max_ = ab_.max().count();
            prepare_stalls();
            return true;
        }
        // K = max(1, ceil(X / T)) ranges over [k_min, k_max].
        const double kx_max = detail::ceil(x_.max().count() / period_);
        if (!(kx_max <= static_cast<double>(max_reply_polls)))
            return unexpected(error::out_of_range("flow reply polls per request", error_value::of_real(kx_max),
                                                  error_value::of(1), error_value::of(max_reply_polls)));
        const double kx_min = detail::floor(x_.min().count() / period_) + 1.0;  // X > min almost surely
        k_max_ = kx_max < 1.0 ? 1 : static_cast<std::uint64_t>(kx_max);
        k_min_ = kx_min < 1.0 ? 1 : static_cast<std::uint64_t>(kx_min);
        if (k_min_ > k_max_) k_min_ = k_max_;
        while (k_min_ < k_max_ && !(shifted_poll_probability(k_min_, 0.0) > 0.0)) ++k_min_;
        while (k_max_ > k_min_ && !(shifted_poll_probability(k_max_, 0.0) > 0.0)) --k_max_;
        double ek = 0.0;
        for (std::uint64_t k = k_min_; k <= k_max_; ++k)
            ek += static_cast<double>(k) * shifted_poll_probability(k, 0.0);
        base_mean_ = ab_.mean().count() + period_ * ek;
        base_min_ = ab_.min().count() + period_ * static_cast<double>(k_min_);
        base_max_ = ab_.max().count() + period_ * static_cast<double>(k_max_);
        prepare_stalls();
        return true;
    }

    // P(K = k) when the time between the send and the reply poll is X + shift (a stall case's time there).
    PROVPOL_NODISCARD double shifted_poll_probability(std::uint64_t k, double shift) const noexcept {
        if (poll_ < 0) return k == 1 ? 1.0 : 0.0;
        if (k < 1) return 0.0;
        const double hi = x_.cdf(seconds(static_cast<double>(k) * period_ - shift));
        const double lo = k == 1 ? 0.0 : x_.cdf(seconds(static_cast<double>(k - 1) * period_ - shift));
        return hi > lo ? hi - lo : 0.0;
    }

    // P(L <= t), or P(L > t) when `upper`, for the flow with `shift_x` added between the send and the reply poll and
    // `shift_ab` outside it, its polls from k_lo to k_hi.
    PROVPOL_NODISCARD double part(double t, double shift_x, double shift_ab, std::uint64_t k_lo, std::uint64_t k_hi,
                                  bool upper) const noexcept {
        const auto tail = [this, upper](double x) {
            return upper ? ab_.exceed_probability(seconds(x)) : ab_.cdf(seconds(x));
        };
        if (poll_ < 0) return tail(t - shift_ab);
        double acc = 0.0;
        for (std::uint64_t k = k_lo; k <= k_hi; ++k) {
            const double pk = shifted_poll_probability(k, shift_x);
            if (pk > 0.0) acc += pk * tail(t - shift_ab - static_cast<double>(k) * period_);
        }
        return acc;
    }

    // Each stall case's times between the send and the reply poll and outside it, the polls it can take, and the
    // mixture's mean, min and max (the flow's own without stalls).
    void prepare_stalls() noexcept {
        double mean = 0.0, lo = base_min_, hi = base_max_;
        bool first = !(stall_p_ < 1.0);
        for (std::size_t c = 0; c < stall_count_; ++c) {
            double x = 0.0, ab = 0.0;
            for (std::size_t i = 0; i < count_; ++i) {
                const bool between = poll_ >= 0 && static_cast<int>(i) > send_ && static_cast<int>(i) < poll_;
                (between ? x : ab) += stalls_[c].extra[i].count();
            }
            stall_x_[c] = x;
            stall_ab_[c] = ab;
            double m = ab_.mean().count() + ab, cmin = ab_.min().count() + ab, cmax = ab_.max().count() + ab;
            if (poll_ >= 0) {
                // K = max(1, ceil((X + x) / T)) over [k_lo, k_hi], trimmed to the polls of some probability.
                const double kx_max = detail::ceil((x_.max().count() + x) / period_);
                const double kx_min = detail::floor((x_.min().count() + x) / period_) + 1.0;
                std::uint64_t k_hi = kx_max < 1.0 ? 1 : static_cast<std::uint64_t>(kx_max);
                std::uint64_t k_lo = kx_min < 1.0 ? 1 : static_cast<std::uint64_t>(kx_min);
                if (k_lo > k_hi) k_lo = k_hi;
                while (k_lo < k_hi && !(shifted_poll_probability(k_lo, x) > 0.0)) ++k_lo;
                while (k_hi > k_lo && !(shifted_poll_probability(k_hi, x) > 0.0)) --k_hi;
                double ek = 0.0;
                for (std::uint64_t k = k_lo; k <= k_hi; ++k)
                    ek += static_cast<double>(k) * shifted_poll_probability(k, x);
                stall_k_min_[c] = k_lo;
                stall_k_max_[c] = k_hi;
                m += period_ * ek;
                cmin += period_ * static_cast<double>(k_lo);
                cmax += period_ * static_cast<double>(k_hi);
            }
            mean += stall_share_[c] * m;
            lo = first || cmin < lo ? cmin : lo;
            hi = first || cmax > hi ? cmax : hi;
            first = false;
        }
        mean_ = (1.0 - stall_p_) * base_mean_ + stall_p_ * mean;
        if (stall_count_ == 0) mean_ = base_mean_;
        min_ = lo;
        max_ = hi;
    }

    flow_stage stages_[max_stages] = {};
    std::size_t count_ = 0;
    int send_ = -1;
    int poll_ = -1;
    int refresh_ = -1;
    flow_resend resend_ = flow_resend::never;
    seconds resend_timeout_ = seconds(2);
    double period_ = 0.0;  // the reply poll's, in seconds
    pipeline_latency ab_{};
    pipeline_latency x_{};
    std::uint64_t k_min_ = 1, k_max_ = 1;
    double base_mean_ = 0.0, base_min_ = 0.0, base_max_ = 0.0;  // the flow without its stalls
    double mean_ = 0.0, min_ = 0.0, max_ = 0.0;                 // the mixture
    // The stalls (with_stalls): the probability, the cases as given, their shares and cumulative shares, and per
    // case its time between the send and the reply poll, its time outside it, and the polls it can take.
    double stall_p_ = 0.0;
    std::size_t stall_count_ = 0;
    flow_stall_case stalls_[max_stall_cases] = {};
    double stall_share_[max_stall_cases] = {};
    double stall_cum_[max_stall_cases] = {};
    double stall_x_[max_stall_cases] = {};
    double stall_ab_[max_stall_cases] = {};
    std::uint64_t stall_k_min_[max_stall_cases] = {};
    std::uint64_t stall_k_max_[max_stall_cases] = {};
};

}  // namespace provpol

#endif  // PROVPOL_FLOW_CLOCKS_HPP
