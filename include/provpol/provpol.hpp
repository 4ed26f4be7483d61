// provpol/provpol.hpp - the umbrella header: includes every public header, and nothing else.
//
// The vocabulary (bytes, time, result, error, parse, text, registry, random, config), the decision families (extend,
// log_size, chunk) and the model layer (flow, fit, simulate, domain); docs/design.md draws the layers.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_PROVPOL_HPP
#define PROVPOL_PROVPOL_HPP

#include "bytes.hpp"     // IWYU pragma: export
#include "config.hpp"    // IWYU pragma: export
#include "error.hpp"     // IWYU pragma: export
#include "parse.hpp"     // IWYU pragma: export
#include "random.hpp"    // IWYU pragma: export
#include "registry.hpp"  // IWYU pragma: export
#include "result.hpp"    // IWYU pragma: export
#include "text.hpp"      // IWYU pragma: export
#include "time.hpp"      // IWYU pragma: export

#include "chunk.hpp"     // IWYU pragma: export
#include "extend.hpp"    // IWYU pragma: export
#include "log_size.hpp"  // IWYU pragma: export

#include "domain.hpp"    // IWYU pragma: export
#include "fit.hpp"       // IWYU pragma: export
#include "flow.hpp"      // IWYU pragma: export
#include "simulate.hpp"  // IWYU pragma: export

#endif  // PROVPOL_PROVPOL_HPP
