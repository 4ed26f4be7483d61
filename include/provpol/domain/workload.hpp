// provpol/domain/workload.hpp - what one drive of a storage domain writes (domain.hpp): a constant rate from a
// start time, on/off bursts, a trace of (time, bytes written) points followed piecewise linearly, or nothing.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_DOMAIN_WORKLOAD_HPP
#define PROVPOL_DOMAIN_WORKLOAD_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../detail/math.hpp"
#include "../result.hpp"
#include "../simulate/run.hpp"
#include "../time.hpp"

#include <cstddef>
#include <cstdint>

namespace provpol {

/// One point of a write trace: `time` after the drive's start, the guest had written `written` in all.
struct trace_point {
    seconds time = seconds(0);
    bytes written;
};

/// The fastest a trace may write between two points, in bytes per second (1 PiB/s): far above any device, and
/// low enough that a segment's rate and its end stay finite (2^50).
inline constexpr double max_trace_rate = 1125899906842624.0;

/// Checks one point of a trace against the one before it (nullptr for the first point) and the disk's capacity:
/// time finite, in [0, 1e9) s and above the previous point's; written at most the capacity, 0 at the first point
/// (bytes written since the drive's start), at least the previous point's; at most max_trace_rate between the
/// two. The error names the setting ("trace time", "trace bytes_written", "trace rate per second"), the value and
/// the bound.
PROVPOL_NODISCARD inline result<void> check_trace_point(const trace_point& p, const trace_point* previous,
                                                        bytes capacity) noexcept {
    const double t = p.time.count();
    if (!(t >= 0.0 && t < 1e9))
        return unexpected(error::out_of_range("trace time", error_value::of_real(t), error_value::of_real(0.0),
                                              error_value::of_real(1e9)));
    if (previous == nullptr && p.written.count() != 0)
        return unexpected(error::unsupported("trace bytes_written",
                                             "must be 0 at the first point (bytes written since the drive's start)",
                                             error_value::of_size(p.written.count())));
    if (p.written > capacity)
        return unexpected(error::conflict("trace bytes_written", error_value::of_size(p.written.count()),
                                          "must be at most", "capacity", error_value::of_size(capacity.count())));
    if (previous == nullptr) return {};
    if (!(p.time > previous->time))
        return unexpected(error::conflict("trace time", error_value::of_real(t), "must be above the previous point's",
                                          "time", error_value::of_real(previous->time.count())));
    if (p.written < previous->written)
        return unexpected(error::conflict("trace bytes_written", error_value::of_size(p.written.count()),
                                          "must be at least the previous point's", "bytes_written",
                                          error_value::of_size(previous->written.count())));
    const double r =
        static_cast<double>(p.written.count() - previous->written.count()) / (p.time - previous->time).count();
    if (!(r <= max_trace_rate))  // printed as bytes per second, in IEC units
        return unexpected(error::out_of_range(
            "trace rate per second",
            error_value::of_size(r < 0x1p63 ? static_cast<std::uint64_t>(r) : std::uint64_t{1} << 63), {},
            error_value::of_size(std::uint64_t{1} << 50)));
    return {};
}

/// One drive's workload in a domain: simulate.hpp's workload, from `start` on, in bursts of `on_seconds` of writing
/// and `off_seconds` of idling (both 0: constant), or following a trace (make_trace()), or not writing at all
/// (idle()).
struct drive_workload {
    workload base{};
    seconds start = seconds(0);
    seconds on_seconds = seconds(0);
    seconds off_seconds = seconds(0);
    bool writing = true;
    const trace_point* trace = nullptr;  ///< make_trace(): the caller's points, which must outlive the simulation
    std::size_t trace_points = 0;

    /// Validates: start in [0, 1e9) s; on and off both 0, or both in (0, 1e9) s.
    PROVPOL_NODISCARD static result<drive_workload> make(const workload& w, seconds start = seconds(0),
                                                         seconds on_seconds = seconds(0),
                                                         seconds off_seconds = seconds(0)) noexcept {
        const double from = start.count(), on = on_seconds.count(), off = off_seconds.count();
        if (!(from >= 0.0 && from < 1e9))
            return unexpected(error::out_of_range("start", error_value::of_real(from), error_value::of_real(0.0),
                                                  error_value::of_real(1e9)));
        const bool constant = on == 0.0 && off == 0.0;
        if (!constant && !(on > 0.0 && on < 1e9))
            return unexpected(error::out_of_range("on_seconds", error_value::of_real(on), error_value::of_real(0.0),
                                                  error_value::of_real(1e9)));
        if (!constant && !(off > 0.0 && off < 1e9))
            return unexpected(error::out_of_range("off_seconds", error_value::of_real(off), error_value::of_real(0.0),
                                                  error_value::of_real(1e9)));
        return drive_workload{w, start, on_seconds, off_seconds, true};
    }
    /// A drive that writes as a trace says: from `start` + points[0].time on, between points k and k + 1 at
    /// (written[k + 1] - written[k]) / (time[k + 1] - time[k]) (idle when that is 0), until it has written the last
    /// point's bytes. The trace is the guest's own time: a pause on ENOSPC delays the rest of it (a paused VM's
    /// guest does not run), so a segment ends where its bytes are written, and an idle one after its seconds.
    /// Without pauses, the allocation is the trace's at every time. The caller owns the points (a view is kept).
    /// Validates: at least 2 points, each as check_trace_point says; the last point's bytes at least 1; start in
    /// [0, 1e9) s; the monitor interval as workload::make.
    PROVPOL_NODISCARD static result<drive_workload> make_trace(const trace_point* points, std::size_t count,
                                                               bytes capacity, seconds start = seconds(0),
                                                               seconds monitor_interval = seconds(2)) noexcept {
        if (points == nullptr || count < 2)
            return unexpected(error::out_of_range("trace points", error_value::of(points == nullptr ? 0 : count),
                                                  error_value::of(2), {}));
        for (std::size_t k = 0; k < count; ++k)
            if (auto c = check_trace_point(points[k], k == 0 ? nullptr : &points[k - 1], capacity); !c)
                return unexpected(c.error());
        const bytes total = points[count - 1].written;
        if (total.count() == 0)
            return unexpected(error::out_of_range("trace bytes_written at the last point", error_value::of_size(0),
                                                  error_value::of_size(1), {}));
        // The base workload's rate is the trace's mean, rounded up (informational: the segments set the rate).
        const double mean =
            detail::ceil(static_cast<double>(total.count()) / (points[count - 1].time - points[0].time).count());
        const auto w =
            workload::make(total, rate(mean < 1.0 ? 1 : static_cast<std::uint64_t>(mean)), capacity, monitor_interval);
        if (!w) return unexpected(w.error());
        auto d = make(*w, start);
        if (!d) return d;
        d->trace = points;
        d->trace_points = count;
        return d;
    }
    /// A drive that does not write (its agent still watches it).
    PROVPOL_NODISCARD static drive_workload idle(const workload& w) noexcept {
        return {w, seconds(0), seconds(0), seconds(0), false};
    }

    /// Checks a drive_workload however it was built (it is an aggregate): what make(), make_trace() or idle()
    /// would have refused, and a trace whose base write_size is not its last point's bytes (make_trace sets it so:
    /// the drive finishes when it has written write_size, so with more it would never finish, with less it would
    /// stop inside the trace). simulate_domain calls it for every drive.
    PROVPOL_NODISCARD static result<void> check(const drive_workload& d) noexcept {
        const workload& b = d.base;
        if (const auto w = workload::make(b.write_size, b.write_rate, b.capacity, b.monitor_interval); !w)
            return unexpected(w.error());
        if (d.trace != nullptr) {
            if (const auto t = make_trace(d.trace, d.trace_points, b.capacity, d.start, b.monitor_interval); !t)
                return unexpected(t.error());
            const bytes total = d.trace[d.trace_points - 1].written;
            if (b.write_size != total)
                return unexpected(error::conflict("write_size", error_value::of_size(b.write_size.count()),
                                                  "must equal", "the trace's last bytes_written",
                                                  error_value::of_size(total.count())));
            return {};
        }
        if (const auto m = make(b, d.start, d.on_seconds, d.off_seconds); !m) return unexpected(m.error());
        return {};
    }
};

}  // namespace provpol

#endif  // PROVPOL_DOMAIN_WORKLOAD_HPP
