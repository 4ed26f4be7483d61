// provpol/fit.hpp - models fitted to measurements (the model layer): the extend flow from a VDSM log, and the chunk
// size from dd-style samples.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_FIT_HPP
#define PROVPOL_FIT_HPP

#include "fit/chunk.hpp"     // IWYU pragma: export
#include "fit/vdsm_log.hpp"  // IWYU pragma: export

#endif  // PROVPOL_FIT_HPP
