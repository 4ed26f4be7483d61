// provpol/simulate/run_result.hpp - one simulated run's input and outcome: the guest's workload (what it writes, how
// fast, into what disk) and what the run counted (extends, pauses, pause time, the space allocated but not written).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_RUN_RESULT_HPP
#define PROVPOL_SIMULATE_RUN_RESULT_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../error.hpp"
#include "../result.hpp"
#include "../time.hpp"

#include <cstdint>

namespace provpol {

/// The guest's workload.
struct workload {
    bytes write_size;                       ///< how much the guest writes, sequentially from offset 0
    rate write_rate;                        ///< how fast, when not paused
    bytes capacity;                         ///< the disk's virtual size; at least write_size
    seconds monitor_interval = seconds(2);  ///< the agent's monitor period when detection is immediate (VDSM: 2 s)

    /// Validates: write size >= 1 byte, rate >= 1 byte/s, capacity >= write size, interval in (0, 3600] s.
    PROVPOL_NODISCARD static result<workload> make(bytes write_size, rate write_rate, bytes capacity,
                                                   seconds monitor_interval = seconds(2)) noexcept {
        if (write_size.count() == 0)
            return unexpected(error::out_of_range("write_size", error_value::of_size(0), error_value::of_size(1), {}));
        if (write_rate.bytes_per_second() == 0)
            return unexpected(error::out_of_range("rate", error_value::of(0), error_value::of(1), {}));
        if (capacity < write_size)
            return unexpected(error::conflict("capacity", error_value::of_size(capacity.count()), "must be at least",
                                              "write_size", error_value::of_size(write_size.count())));
        if (!(monitor_interval.count() > 0.0 && monitor_interval.count() <= 3600.0))
            return unexpected(error::out_of_range("monitor_interval", error_value::of_real(monitor_interval.count()),
                                                  error_value::of_real(0.0), error_value::of_real(3600.0)));
        return workload{write_size, write_rate, capacity, monitor_interval};
    }
};

/// One run's outcome.
struct run_result {
    std::uint32_t extends = 0;           ///< extends requested (each grew the LV)
    std::uint32_t resent = 0;            ///< re-sent requests that went through and grew nothing (flow/clocks.hpp's
                                         ///< flow_resend); VDSM's log counts them as extends completed
    std::uint32_t pauses = 0;            ///< times the guest paused on ENOSPC
    seconds pause_seconds = seconds(0);  ///< total time paused
    seconds duration = seconds(0);       ///< the time to write everything
    bytes initial_size;                  ///< the new disk's LV size
    bytes final_physical;                ///< the LV size at the end (including an extend still in flight)
    bytes unwritten;                     ///< allocated but not written at the end: final_physical - write_size
    bool truncated = false;              ///< stopped by the event limit (a policy that cannot keep up at all)
    bool stopped = false;  ///< stopped at simulate_run's pause_limit: the figures cover the run up to that pause
};

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_RUN_RESULT_HPP
