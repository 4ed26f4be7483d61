// provpol/flow/stage.hpp - one stage of the extend flow (flow/clocks.hpp's chain), and the error that names a
// stage: the five kinds and the times each takes, made only by the named factories so that no field means
// something else for another kind, each owning a copy of its name.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FLOW_STAGE_HPP
#define PROVPOL_FLOW_STAGE_HPP

#include "../config.hpp"
#include "../error.hpp"
#include "../text.hpp"
#include "../time.hpp"

#include <cstddef>
#include <cstdint>

namespace provpol {

/// What a stage of the extend flow is (flow/clocks.hpp's header comment says what each kind does).
enum class flow_stage_kind : unsigned char { monitor, clock, send, delay, reply_poll };

/// The stage kind's name: "monitor", "clock", "send", "delay", "reply-poll".
PROVPOL_NODISCARD constexpr const char* to_text(flow_stage_kind k) noexcept {
    switch (k) {
        case flow_stage_kind::monitor:
            return "monitor";
        case flow_stage_kind::clock:
            return "clock";
        case flow_stage_kind::send:
            return "send";
        case flow_stage_kind::delay:
            return "delay";
        case flow_stage_kind::reply_poll:
            return "reply-poll";
    }
    return "unknown";
}

/// One stage of the extend flow, one of five kinds, each with the times it takes and no other (flow/clocks.hpp's header
/// comment): made only by the named factories, `flow_stage::clock("SPM mailbox scan", 2_s)`; read through the
/// accessors of its kind (period() of a delay is a precondition violation, checked by PROVPOL_ASSERT). It owns a
/// copy of its name, at most max_name characters: a longer name is kept cut and flow_latency::make refuses the
/// stage, naming it. A default stage is delay("", 0 s, 0 s), the zero wait, so that arrays of stages can be filled.
/// Trivially copyable, 80 bytes.
class flow_stage {
public:
    /// The longest name a stage keeps, in bytes.
    static constexpr std::size_t max_name = 47;

    constexpr flow_stage() noexcept = default;

    /// The agent's own periodic monitor every `period` (VDSM's watermark monitor: 2 s).
    PROVPOL_NODISCARD static constexpr flow_stage monitor(text_view name, seconds period) noexcept {
        return {flow_stage_kind::monitor, name, false, period, period, seconds(0)};
    }
    /// A free-running clock of `period` + `drift`, its phase drawn once per run.
    PROVPOL_NODISCARD static constexpr flow_stage clock(text_view name, seconds period,
                                                        seconds drift = seconds(0)) noexcept {
        return {flow_stage_kind::clock, name, false, period, period, drift};
    }
    /// The request's send: a time uniform in [min, max), from whose end the reply poll counts.
    PROVPOL_NODISCARD static constexpr flow_stage send(text_view name, seconds min, seconds max) noexcept {
        return {flow_stage_kind::send, name, false, min, max, seconds(0)};
    }
    /// A time uniform in [min, max) (fixed when equal): a service time or an event's dispatch.
    PROVPOL_NODISCARD static constexpr flow_stage delay(text_view name, seconds min, seconds max) noexcept {
        return {flow_stage_kind::delay, name, false, min, max, seconds(0)};
    }
    /// A delay that holds the volume group's lock (the SPM's lvextend): serialized across a domain's drives.
    PROVPOL_NODISCARD static constexpr flow_stage locked_delay(text_view name, seconds min, seconds max) noexcept {
        return {flow_stage_kind::delay, name, true, min, max, seconds(0)};
    }
    /// A poll every `period`, counted from the send.
    PROVPOL_NODISCARD static constexpr flow_stage reply_poll(text_view name, seconds period) noexcept {
        return {flow_stage_kind::reply_poll, name, false, period, period, seconds(0)};
    }

    PROVPOL_NODISCARD constexpr flow_stage_kind kind() const noexcept { return kind_; }
    /// What the stage is ("SPM mailbox scan"): the stage's own copy, NUL-terminated, at most max_name bytes.
    PROVPOL_NODISCARD constexpr text_view name() const noexcept { return {name_, kept_size()}; }
    /// The length of the name it was given (above max_name when it was cut; saturates at 65535).
    PROVPOL_NODISCARD constexpr std::size_t given_name_size() const noexcept { return name_size_; }
    /// A monitor's, a clock's or a reply poll's period. Precondition: the stage is one of those.
    PROVPOL_NODISCARD constexpr seconds period() const noexcept {
        PROVPOL_ASSERT(kind_ != flow_stage_kind::delay && kind_ != flow_stage_kind::send,
                       "flow_stage::period: a delay or a send has a range, not a period");
        return lo_;
    }
    /// A clock's drift, the time added to every cycle (the SPM's mailbox read); 0 for the other kinds.
    PROVPOL_NODISCARD constexpr seconds drift() const noexcept { return drift_; }
    /// A delay's or a send's shortest time. Precondition: the stage is a delay or a send.
    PROVPOL_NODISCARD constexpr seconds min() const noexcept {
        PROVPOL_ASSERT(timed(), "flow_stage::min: a clock has a period, not a range");
        return lo_;
    }
    /// A delay's or a send's longest time (exclusive when above min). Precondition: a delay or a send.
    PROVPOL_NODISCARD constexpr seconds max() const noexcept {
        PROVPOL_ASSERT(timed(), "flow_stage::max: a clock has a period, not a range");
        return hi_;
    }
    /// Whether the stage is a delay that holds the volume group's lock (false for every other kind).
    PROVPOL_NODISCARD constexpr bool locked() const noexcept { return locked_; }
    /// The clock's cycle (period + drift; the period of a monitor or a reply poll), or 0 for a delay or a send.
    PROVPOL_NODISCARD constexpr seconds cycle() const noexcept { return timed() ? seconds(0) : lo_ + drift_; }

private:
    friend class flow_latency;  // its runs read the times without the accessors' checks

    constexpr flow_stage(flow_stage_kind kind, text_view name, bool locked, seconds lo, seconds hi,
                         seconds drift) noexcept
        : lo_(lo),
          hi_(hi),
          drift_(drift),
          name_size_(static_cast<std::uint16_t>(name.size() < 65535 ? name.size() : 65535)),
          kind_(kind),
          locked_(locked) {
        for (std::size_t i = 0; i < kept_size(); ++i) name_[i] = name[i];
    }
    PROVPOL_NODISCARD constexpr bool timed() const noexcept {
        return kind_ == flow_stage_kind::delay || kind_ == flow_stage_kind::send;
    }
    PROVPOL_NODISCARD constexpr std::size_t kept_size() const noexcept {
        return name_size_ < max_name ? name_size_ : max_name;
    }

    seconds lo_ = seconds(0);     // delay, send: the shortest time; monitor, clock, reply poll: the period
    seconds hi_ = seconds(0);     // delay, send: the longest time; the others: the period (unread)
    seconds drift_ = seconds(0);  // clock: the time added to every cycle
    std::uint16_t name_size_ = 0;
    flow_stage_kind kind_ = flow_stage_kind::delay;
    bool locked_ = false;
    char name_[max_name + 1] = {};
};

/// A flow_latency::make error's message: the stage's index and name (at most 8 + 47 bytes) before an error's.
using flow_error_message = fixed_string<error_message::capacity() + 81>;

/// Why flow_latency::make refused a flow: the error and, when it is about one stage, that stage's index and a
/// copy of its name. The cause's setting is the stage's field ("min_seconds", "max_seconds", "period", "drift",
/// "name length"), empty for a stage in the wrong place, "flow stages" or "flow reply polls per request" for the
/// whole flow. Every range a stage's field is checked against is half-open, [lo, hi), and the message says so:
///   flow stage 4 ('SPM lvextend') max_seconds must be in [0.3, 100000), got 0.1
/// (the index counted from 1 in the message, from 0 in stage()).
class flow_error {
public:
    /// stage() of an error about the whole flow.
    static constexpr std::size_t no_stage = static_cast<std::size_t>(-1);

    constexpr flow_error() noexcept = default;
    /// An error about the whole flow.
    constexpr explicit flow_error(const error& cause) noexcept : cause_(cause) {}
    /// An error about stage `index` (from 0).
    constexpr flow_error(const error& cause, std::size_t index, const flow_stage& stage) noexcept
        : cause_(cause), stage_(index), name_size_(stage.name().size()) {
        for (std::size_t i = 0; i < name_size_; ++i) name_[i] = stage.name()[i];
    }

    PROVPOL_NODISCARD constexpr const error& cause() const noexcept { return cause_; }
    PROVPOL_NODISCARD constexpr errc code() const noexcept { return cause_.code(); }
    /// The stage's index, from 0, or no_stage.
    PROVPOL_NODISCARD constexpr std::size_t stage() const noexcept { return stage_; }
    /// The stage's name (as the stage kept it), or "".
    PROVPOL_NODISCARD constexpr text_view stage_name() const noexcept { return {name_, name_size_}; }

    /// What is wrong with the stage, its field spelled `setting` (a reader of a file names the file's field):
    /// "max_s must be in [0.3, 100000), got 0.1"; the cause's message for an error about the whole flow.
    PROVPOL_NODISCARD flow_error_message what(text_view setting) const noexcept {
        flow_error_message m;
        if (stage_ == no_stage) return m.append(cause_.message().view());
        const error_value v = cause_.value(), lo = cause_.lower_bound(), hi = cause_.upper_bound();
        if (cause_.code() != errc::out_of_range) {
            if (!setting.empty()) m.append(setting).append(": ");
            return m.append(cause_.with_setting(nullptr).message().view());
        }
        m.append(setting).append(" must be ");
        if (lo.empty()) {
            m.append("at most ");
            hi.append_to(m);
        } else {
            m.append("in [");
            lo.append_to(m);
            m.append(", ");
            hi.append_to(m);
            m.append(')');
        }
        m.append(", got ");
        v.append_to(m);
        return m;
    }
    /// The message: "flow stage N ('NAME') " before what(setting) (": " when it names no field), or the cause's
    /// message for the whole flow.
    PROVPOL_NODISCARD flow_error_message message() const noexcept {
        flow_error_message m;
        if (stage_ == no_stage) return m.append(cause_.message().view());
        m.append("flow stage ").append_uint(stage_ + 1).append(" ('").append(stage_name()).append("')");
        const text_view setting = cause_.setting();
        m.append(setting.empty() ? ": " : " ");
        return m.append(what(setting).view());
    }

    friend constexpr bool operator==(const flow_error& a, const flow_error& b) noexcept {
        return a.cause_ == b.cause_ && a.stage_ == b.stage_ && a.stage_name() == b.stage_name();
    }
    friend constexpr bool operator!=(const flow_error& a, const flow_error& b) noexcept { return !(a == b); }

private:
    error cause_{};
    std::size_t stage_ = no_stage;
    std::size_t name_size_ = 0;
    char name_[flow_stage::max_name + 1] = {};
};

}  // namespace provpol

#endif  // PROVPOL_FLOW_STAGE_HPP
