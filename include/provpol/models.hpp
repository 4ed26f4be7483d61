// provpol/models.hpp - the models' umbrella: every public header, the decisions' umbrella (provpol.hpp) and the model
// layer on top of it.
//
// The model layer: time and seeded random streams (time.hpp, random.hpp), latency flows and risk (flow/), the VDSM
// log fitter (fit/), the agent contract, the simulators and the planners (simulate/), the storage domain (domain/),
// and VDSM's size rules (extend/vdsm_sizes.hpp). It may use the standard library freely: tools include it, an
// agent includes provpol.hpp. CMake target provpol::models; its compile cost is in docs/design.md.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_MODELS_HPP
#define PROVPOL_MODELS_HPP

#include "provpol.hpp"  // IWYU pragma: export

#include "random.hpp"  // IWYU pragma: export
#include "time.hpp"    // IWYU pragma: export

#include "extend/vdsm_sizes.hpp"  // IWYU pragma: export

#include "domain.hpp"    // IWYU pragma: export
#include "fit.hpp"       // IWYU pragma: export
#include "flow.hpp"      // IWYU pragma: export
#include "simulate.hpp"  // IWYU pragma: export

#endif  // PROVPOL_MODELS_HPP
