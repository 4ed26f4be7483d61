// provpol/simulate.hpp - one drive over time (the model layer): the agent contract and the extend controller, agents
// (static, rate-aware, either of two), the single-drive simulator, LVM's thin pool and its metadata under dmeventd,
// a Stratis pool, and the searches behind every recommend.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_HPP
#define PROVPOL_SIMULATE_HPP

#include "simulate/agent.hpp"                 // IWYU pragma: export
#include "simulate/agent_contract.hpp"        // IWYU pragma: export
#include "simulate/either_agent.hpp"          // IWYU pragma: export
#include "simulate/lvm_dmeventd.hpp"          // IWYU pragma: export
#include "simulate/lvm_extender.hpp"          // IWYU pragma: export
#include "simulate/lvm_plan_summary.hpp"      // IWYU pragma: export
#include "simulate/lvm_pool.hpp"              // IWYU pragma: export
#include "simulate/lvm_pool_run.hpp"          // IWYU pragma: export
#include "simulate/lvm_recommend.hpp"         // IWYU pragma: export
#include "simulate/per_vm.hpp"                // IWYU pragma: export
#include "simulate/rate_aware.hpp"            // IWYU pragma: export
#include "simulate/rate_aware_policy.hpp"     // IWYU pragma: export
#include "simulate/run.hpp"                   // IWYU pragma: export
#include "simulate/run_result.hpp"            // IWYU pragma: export
#include "simulate/run_summary.hpp"           // IWYU pragma: export
#include "simulate/search.hpp"                // IWYU pragma: export
#include "simulate/stratis_check_timing.hpp"  // IWYU pragma: export
#include "simulate/stratis_plan_summary.hpp"  // IWYU pragma: export
#include "simulate/stratis_pool.hpp"          // IWYU pragma: export
#include "simulate/stratis_pool_run.hpp"      // IWYU pragma: export
#include "simulate/stratis_recommend.hpp"     // IWYU pragma: export
#include "simulate/thin_metadata.hpp"         // IWYU pragma: export
#include "simulate/write_rate_estimator.hpp"  // IWYU pragma: export

#endif  // PROVPOL_SIMULATE_HPP
