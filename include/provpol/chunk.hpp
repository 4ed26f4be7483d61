// provpol/chunk.hpp - the I/O chunk-size family (a decision): a chunk policy from a device's limits, and the presets by
// name. Choosing one from measurements is a model (fit/chunk.hpp).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_CHUNK_HPP
#define PROVPOL_CHUNK_HPP

#include "chunk/policy.hpp"   // IWYU pragma: export
#include "chunk/presets.hpp"  // IWYU pragma: export

#endif  // PROVPOL_CHUNK_HPP
