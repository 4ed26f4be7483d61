// provpol/domain.hpp - a VDSM storage domain (the model layer): what its drives share, what each writes, the simulator
// and the capacity search.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_DOMAIN_HPP
#define PROVPOL_DOMAIN_HPP

#include "domain/capacity.hpp"   // IWYU pragma: export
#include "domain/drive.hpp"      // IWYU pragma: export
#include "domain/mailbox.hpp"    // IWYU pragma: export
#include "domain/result.hpp"     // IWYU pragma: export
#include "domain/setup.hpp"      // IWYU pragma: export
#include "domain/shared.hpp"     // IWYU pragma: export
#include "domain/simulator.hpp"  // IWYU pragma: export
#include "domain/workload.hpp"   // IWYU pragma: export

#endif  // PROVPOL_DOMAIN_HPP
