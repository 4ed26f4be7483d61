// provpol/provpol.hpp - the umbrella header: includes every public header, and nothing else.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_PROVPOL_HPP
#define PROVPOL_PROVPOL_HPP

#include "config.hpp"
#include "bytes.hpp"
#include "result.hpp"
#include "parse.hpp"
#include "extend.hpp"
#include "latency.hpp"
#include "risk.hpp"
#include "simulate.hpp"
#include "rate_aware.hpp"
#include "chunk.hpp"
#include "calibrate.hpp"
#include "log_size.hpp"

#endif  // PROVPOL_PROVPOL_HPP
