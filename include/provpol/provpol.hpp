// provpol/provpol.hpp - the umbrella header: includes every public header, and nothing else.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_PROVPOL_HPP
#define PROVPOL_PROVPOL_HPP

#include "agent.hpp"
#include "bytes.hpp"
#include "calibrate.hpp"
#include "chunk.hpp"
#include "config.hpp"
#include "domain.hpp"
#include "domain_capacity.hpp"
#include "domain_shared.hpp"
#include "domain_workload.hpp"
#include "either_agent.hpp"
#include "error.hpp"
#include "extend.hpp"
#include "extend_lvm.hpp"
#include "extend_policy.hpp"
#include "extend_vdsm.hpp"
#include "latency.hpp"
#include "latency_flow.hpp"
#include "latency_pipeline.hpp"
#include "log_size.hpp"
#include "log_size_geometry.hpp"
#include "log_size_result.hpp"
#include "log_size_xfs.hpp"
#include "lvm_flow.hpp"
#include "parse.hpp"
#include "random.hpp"
#include "rate_aware.hpp"
#include "result.hpp"
#include "risk.hpp"
#include "simulate.hpp"
#include "text.hpp"
#include "vdsm_log.hpp"
#include "xfs_reservations.hpp"

#endif  // PROVPOL_PROVPOL_HPP
