// provpol/fit/vdsm_log.hpp - VDSM's own extend measurements: its "Extend volume ... completed <Clock(...)>" log lines
// (fit/vdsm_log_parse.hpp), their statistics as oVirt/vdsm's contrib/extend-stats computes them
// (fit/vdsm_log_stats.hpp), and a flow model (flow/clocks.hpp) fitted to them, in the stage structure of the
// built-in profiles (fit/vdsm_log_fit.hpp, with what it reads and reports in fit/vdsm_log_report.hpp, its pieces
// in fit/vdsm_log_modes.hpp, the extends far beyond the flow in fit/vdsm_log_stalls.hpp, and whether the log is a
// mailbox flow at all in fit/vdsm_log_judge.hpp). This header includes them all, and nothing else.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FIT_VDSM_LOG_HPP
#define PROVPOL_FIT_VDSM_LOG_HPP

#include "vdsm_log_fit.hpp"     // IWYU pragma: export
#include "vdsm_log_judge.hpp"   // IWYU pragma: export
#include "vdsm_log_modes.hpp"   // IWYU pragma: export
#include "vdsm_log_parse.hpp"   // IWYU pragma: export
#include "vdsm_log_report.hpp"  // IWYU pragma: export
#include "vdsm_log_stalls.hpp"  // IWYU pragma: export
#include "vdsm_log_stats.hpp"   // IWYU pragma: export

#endif  // PROVPOL_FIT_VDSM_LOG_HPP
