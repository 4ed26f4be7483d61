// provpol/flow.hpp - the extend-latency models (the model layer): independent waits and samples (pipeline), a
// flow's stages, the flow as clocks, the run-time latency_model with its profiles, VDSM's flow as its settings make
// it, and the pause risk and its planner.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FLOW_HPP
#define PROVPOL_FLOW_HPP

#include "flow/clocks.hpp"         // IWYU pragma: export
#include "flow/latency.hpp"        // IWYU pragma: export
#include "flow/pipeline.hpp"       // IWYU pragma: export
#include "flow/risk.hpp"           // IWYU pragma: export
#include "flow/stage.hpp"          // IWYU pragma: export
#include "flow/vdsm_settings.hpp"  // IWYU pragma: export

#endif  // PROVPOL_FLOW_HPP
