// provpol/domain/mailbox.hpp - the size of a host's mailbox in a VDSM storage domain: how many extend requests one
// host can have in flight to the SPM. domain/setup.hpp bounds domain_config::host_slots by it and domain/shared.hpp
// holds new requests when a host's slots are full; neither needs the other for it.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_DOMAIN_MAILBOX_HPP
#define PROVPOL_DOMAIN_MAILBOX_HPP

#include <cstdint>

namespace provpol {

/// The extend requests a host can have in flight to the SPM: 63. oVirt/vdsm, lib/vdsm/storage/mailbox.py: each
/// host's outbox is 4 KiB of 64-byte messages (64 slots), less one slot that is not a request. A host with 63
/// requests in flight holds a new one until a slot is free.
inline constexpr std::uint32_t vdsm_mailbox_slots = 4096 / 64 - 1;

}  // namespace provpol

#endif  // PROVPOL_DOMAIN_MAILBOX_HPP
