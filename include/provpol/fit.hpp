// provpol/fit.hpp - models fitted to measurements (the model layer): the extend flow from a VDSM log, and the chunk
// size from dd-style samples.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FIT_HPP
#define PROVPOL_FIT_HPP

#include "fit/chunk.hpp"             // IWYU pragma: export
#include "fit/chunk_cost_model.hpp"  // IWYU pragma: export
#include "fit/chunk_deadline.hpp"    // IWYU pragma: export
#include "fit/chunk_samples.hpp"     // IWYU pragma: export
#include "fit/vdsm_log.hpp"          // IWYU pragma: export
#include "fit/vdsm_log_fit.hpp"      // IWYU pragma: export
#include "fit/vdsm_log_judge.hpp"    // IWYU pragma: export
#include "fit/vdsm_log_modes.hpp"    // IWYU pragma: export
#include "fit/vdsm_log_parse.hpp"    // IWYU pragma: export
#include "fit/vdsm_log_report.hpp"   // IWYU pragma: export
#include "fit/vdsm_log_stalls.hpp"   // IWYU pragma: export
#include "fit/vdsm_log_stats.hpp"    // IWYU pragma: export

#endif  // PROVPOL_FIT_HPP
