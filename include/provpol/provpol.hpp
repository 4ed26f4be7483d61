// provpol/provpol.hpp - the embedder's umbrella: the decisions and the vocabulary they speak, nothing of the models.
//
// The vocabulary (bytes, result, error, parse, text, registry, config) and the decision families (extend, log_size,
// chunk): what an agent that owns its I/O, its clock and its state includes in every translation unit. It pulls in
// no model header and none of <string>, <vector>, <chrono>, <cmath> (perf.header_includes checks it); its compile
// cost is measured by tools/compile_cost.sh and reported in docs/design.md. The models (latency flows, the fitter,
// the simulators, the domain, the planners) are <provpol/models.hpp>, CMake target provpol::models.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_PROVPOL_HPP
#define PROVPOL_PROVPOL_HPP

#include "bytes.hpp"     // IWYU pragma: export
#include "config.hpp"    // IWYU pragma: export
#include "error.hpp"     // IWYU pragma: export
#include "parse.hpp"     // IWYU pragma: export
#include "registry.hpp"  // IWYU pragma: export
#include "result.hpp"    // IWYU pragma: export
#include "text.hpp"      // IWYU pragma: export

#include "chunk.hpp"     // IWYU pragma: export
#include "extend.hpp"    // IWYU pragma: export
#include "log_size.hpp"  // IWYU pragma: export

#endif  // PROVPOL_PROVPOL_HPP
