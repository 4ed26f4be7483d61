// The guest: a process that writes a known pattern through the NBD export at a controlled rate, and pauses on
// ENOSPC until the agent resumes it, as a VM paused by QEMU's werror=enospc policy waits for VDSM.
#ifndef PROVPOL_AGENT_GUEST_HPP
#define PROVPOL_AGENT_GUEST_HPP

#include <cstdint>

namespace provpol::agent {

/// The byte every byte of the guest's MiB number `mib` holds: never 0 (an unwritten cluster reads as zeros),
/// and different for neighbouring MiBs and for runs with other seeds (a misplaced or stale MiB reads wrong).
/// 131 is coprime with 255, so two MiBs collide only when 255 MiB apart.
constexpr unsigned char pattern_byte(std::uint64_t mib, std::uint64_t seed) noexcept {
    return static_cast<unsigned char>(1 + ((mib % 255) * 131 + (seed % 255) * 7) % 255);  // no wrap for any seed
}

/// `provpol-agent guest SOCKET EXPORT RATE_BPS WRITE_BYTES REQUEST_BYTES SEED`: the writer the agent starts.
/// Protocol, one line each way: it prints "ready", waits for "go" (or "go T": start at T), prints "start T", then
/// "pause T OFFSET" on ENOSPC (and waits for "resume"), "late T SECONDS" when it runs behind its schedule, and "done T
/// BYTES LATENESS PAUSED" at the end (T: CLOCK_MONOTONIC seconds).
int run_guest(int argc, char** argv);

}  // namespace provpol::agent

#endif  // PROVPOL_AGENT_GUEST_HPP
