// provpol/extend.hpp - the thin-volume extend family (a decision): the generic policy, oVirt VDSM's steps, LVM2's
// autoextend, Stratis's, Docker's devicemapper driver's and XenServer's thin LVHD's growth rules, and the presets by
// name. VDSM's size rules (extend/vdsm_sizes.hpp) are included by name.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_EXTEND_HPP
#define PROVPOL_EXTEND_HPP

#include "extend/docker_devmapper.hpp"  // IWYU pragma: export
#include "extend/lvm.hpp"               // IWYU pragma: export
#include "extend/lvm_config.hpp"        // IWYU pragma: export
#include "extend/lvm_usage.hpp"         // IWYU pragma: export
#include "extend/policy.hpp"            // IWYU pragma: export
#include "extend/presets.hpp"           // IWYU pragma: export
#include "extend/stratis.hpp"           // IWYU pragma: export
#include "extend/vdsm.hpp"              // IWYU pragma: export
#include "extend/xenserver_lvhd.hpp"    // IWYU pragma: export

#endif  // PROVPOL_EXTEND_HPP
