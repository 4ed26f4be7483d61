// provpol/domain/setup.hpp - a storage domain's shape for the simulator (domain/simulator.hpp): its hosts, drives per
// host, simulated duration, the SPM's workers and each host's mailbox slots, and which drives are the writers.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_DOMAIN_SETUP_HPP
#define PROVPOL_DOMAIN_SETUP_HPP

#include "../config.hpp"
#include "../result.hpp"
#include "../time.hpp"
#include "mailbox.hpp"

#include <cstdint>

namespace provpol {

/// The domain's shape and its shared parts.
struct domain_config {
    std::uint32_t hosts = 1;
    std::uint32_t drives_per_host = 1;
    seconds duration = seconds(3600);               ///< simulated time at most
    std::uint32_t spm_workers = 5;                  ///< sp.py: thread_pool_size (10) // 2
    std::uint32_t host_slots = vdsm_mailbox_slots;  ///< mailbox.py: requests in flight per host

    /// Validates: 1 to 10,000 hosts, 1 to 10,000 drives per host, at most 1,000,000 drives; duration in (0, 1e9) s;
    /// 1 to 1000 workers; 1 to vdsm_mailbox_slots (63) slots per host.
    PROVPOL_NODISCARD static result<domain_config> make(std::uint32_t hosts, std::uint32_t drives_per_host,
                                                        seconds duration = seconds(3600), std::uint32_t spm_workers = 5,
                                                        std::uint32_t host_slots = vdsm_mailbox_slots) noexcept {
        if (hosts < 1 || hosts > 10000)
            return unexpected(
                error::out_of_range("hosts", error_value::of(hosts), error_value::of(1), error_value::of(10000)));
        if (drives_per_host < 1 || drives_per_host > 10000)
            return unexpected(error::out_of_range("drives_per_host", error_value::of(drives_per_host),
                                                  error_value::of(1), error_value::of(10000)));
        if (std::uint64_t{hosts} * drives_per_host > 1000000)
            return unexpected(error::out_of_range("drives", error_value::of(std::uint64_t{hosts} * drives_per_host),
                                                  error_value::of(1), error_value::of(1000000)));
        if (!(duration.count() > 0.0 && duration.count() < 1e9))
            return unexpected(error::out_of_range("duration", error_value::of_real(duration.count()),
                                                  error_value::of_real(0.0), error_value::of_real(1e9)));
        if (spm_workers < 1 || spm_workers > 1000)
            return unexpected(error::out_of_range("spm_workers", error_value::of(spm_workers), error_value::of(1),
                                                  error_value::of(1000)));
        if (host_slots < 1 || host_slots > vdsm_mailbox_slots)
            return unexpected(error::out_of_range("host_slots", error_value::of(host_slots), error_value::of(1),
                                                  error_value::of(vdsm_mailbox_slots)));
        return domain_config{hosts, drives_per_host, duration, spm_workers, host_slots};
    }
    PROVPOL_NODISCARD std::uint32_t drives() const noexcept { return hosts * drives_per_host; }
    /// Whether drive `d` is among the first `writers`, taken host by host in turn (drive 0 of every host, then
    /// drive 1, ...), so that writers spread over the hosts.
    PROVPOL_NODISCARD bool is_writer(std::uint32_t d, std::uint32_t writers) const noexcept {
        return writer_rank(d) < writers;
    }
    /// Drive `d`'s place in that order: writer 0 is drive 0 of host 0, writer 1 drive 0 of host 1, ... (for a
    /// staggered start, writer i at i x the step).
    PROVPOL_NODISCARD std::uint64_t writer_rank(std::uint32_t d) const noexcept {
        return std::uint64_t{d % drives_per_host} * hosts + d / drives_per_host;
    }
};

}  // namespace provpol

#endif  // PROVPOL_DOMAIN_SETUP_HPP
