// provpol/simulate/lvm_pool_run.hpp - a write burst into a thin pool (lvm_pool_workload) and what one run of it
// under an extender shows (lvm_run_result): the input and the answer of lvm_pool.hpp's simulate_lvm_run, which
// lvm_plan_summary.hpp adds up over runs.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_LVM_POOL_RUN_HPP
#define PROVPOL_SIMULATE_LVM_POOL_RUN_HPP

#include "../bytes.hpp"
#include "../time.hpp"

#include <cstdint>

namespace provpol {

/// A burst of writes into a thin pool: every writer together (thin LVs share the pool's blocks).
struct lvm_pool_workload {
    bytes pool_size;               ///< the pool's data LV when the burst starts
    bytes pool_used{};             ///< data already in the pool
    bytes vg_free = bytes::max();  ///< the VG's free space (max: unlimited)
    bytes write;                   ///< new data written in all (each new byte takes new blocks)
    rate write_rate;               ///< bytes per second in all, while the pool has room
    /// The pool's metadata LV (0: the metadata is not simulated, as before lvs reported it). Every 126 data chunks
    /// the burst maps take one 4 KiB metadata block (thin_metadata.hpp).
    bytes metadata_size{};
    bytes metadata_used{};  ///< metadata in use when the burst starts (whole 4 KiB blocks, rounded up)
};

/// One run of a burst.
struct lvm_run_result {
    std::uint32_t extends = 0;           ///< lvextends that grew the pool's data
    std::uint32_t commands = 0;          ///< lvextend --use-policies runs, those that found nothing to do included
    std::uint32_t failed_commands = 0;   ///< runs that failed (the VG's space, percent 0; never the rate-aware's)
    std::uint32_t times_full = 0;        ///< times the pool filled with data still to write
    seconds queued = seconds(0);         ///< how long writes waited on a full pool, in all
    seconds longest_queue = seconds(0);  ///< the longest of those waits
    bool eio = false;                    ///< writes failed: queued past no_space_timeout, or error-when-full
    bool hung = false;                   ///< writes still queued a day after the burst should have ended
    bool vg_exhausted = false;      ///< an extend failed for want of VG space (rate-aware: the VG's free space cut one)
    bytes pool_end;                 ///< the pool's size when the run ended
    bytes vg_free_end;              ///< the VG's free space then
    seconds ended_at = seconds(0);  ///< when the last byte was written, or writes failed
    std::uint32_t metadata_extends = 0;  ///< lvextends that grew the metadata LV (with the data or alone)
    bool metadata_full = false;          ///< the metadata ran out: the pool failed writes (EIO, eio is set too)
    bytes metadata_end;                  ///< the metadata LV's size when the run ended (0: not simulated)
};

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_LVM_POOL_RUN_HPP
