// provpol/log_size.hpp - the filesystem log-size family (a decision): mkfs.xfs's and mke2fs's rules as steps over a
// geometry, and the presets by name.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_LOG_SIZE_HPP
#define PROVPOL_LOG_SIZE_HPP

#include "log_size/ext4.hpp"              // IWYU pragma: export
#include "log_size/geometry.hpp"          // IWYU pragma: export
#include "log_size/policy.hpp"            // IWYU pragma: export
#include "log_size/presets.hpp"           // IWYU pragma: export
#include "log_size/result.hpp"            // IWYU pragma: export
#include "log_size/topology.hpp"          // IWYU pragma: export
#include "log_size/xfs.hpp"               // IWYU pragma: export
#include "log_size/xfs_reservations.hpp"  // IWYU pragma: export
#include "log_size/xfs_trans_resv.hpp"    // IWYU pragma: export

#endif  // PROVPOL_LOG_SIZE_HPP
