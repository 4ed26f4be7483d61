// provpol/simulate/stratis_plan_summary.hpp - what runs of a burst into a Stratis pool show together
// (stratis_plan_summary): means, maxima and counts over stratis_pool.hpp's runs, added in run order by
// simulate_stratis_plan.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_STRATIS_PLAN_SUMMARY_HPP
#define PROVPOL_SIMULATE_STRATIS_PLAN_SUMMARY_HPP

#include "../bytes.hpp"
#include "../time.hpp"

#include <cstdint>

namespace provpol {

/// What runs of a burst show together.
struct stratis_plan_summary {
    std::uint32_t runs = 0;
    double data_extends_mean = 0.0;
    double metadata_extends_mean = 0.0;
    double checks_mean = 0.0;
    double times_full_mean = 0.0;
    std::uint32_t error_mode_runs = 0;     ///< runs a check put in error_if_no_space
    seconds error_mode_mean = seconds(0);  ///< seconds in error_if_no_space, over all runs
    seconds error_mode_max = seconds(0);
    std::uint32_t eio_runs = 0;     ///< runs whose writes failed (EIO)
    std::uint32_t queued_runs = 0;  ///< runs that queued writes on a full pool
    seconds queued_mean = seconds(0);
    seconds queued_max = seconds(0);
    std::uint32_t hung_runs = 0;
    bytes pool_end_max;
    bytes metadata_end_max;
    bytes backstore_end_min = bytes::max();
    seconds ended_at_mean = seconds(0);
};

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_STRATIS_PLAN_SUMMARY_HPP
