// provpol/extend.hpp - the thin-volume extend family: the generic policy (extend_policy.hpp), oVirt VDSM's
// steps and presets (extend_vdsm.hpp), and LVM2's thin-pool autoextend (extend_lvm.hpp).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_EXTEND_HPP
#define PROVPOL_EXTEND_HPP

#include "extend_lvm.hpp"     // IWYU pragma: export
#include "extend_policy.hpp"  // IWYU pragma: export
#include "extend_vdsm.hpp"    // IWYU pragma: export

#endif  // PROVPOL_EXTEND_HPP
