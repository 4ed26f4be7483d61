// The guest writer (see guest.hpp): paced sequential writes through NBD, pausing on ENOSPC.
#include "guest.hpp"

#include "nbd.hpp"
#include "posix.hpp"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include <unistd.h>

namespace provpol::agent {

namespace {

void say(const std::string& line) { write_all(1, line + "\n"); }

// Blocks until the agent sends a line; "" at end of input (the agent is gone).
std::string listen(line_reader& in) {
    std::string line;
    while (!in.next(line))
        if (!in.fill()) return "";
    return line;
}

void sleep_until(double t) {
    for (;;) {
        const double left = t - monotonic_seconds();
        if (left <= 0) return;
        timespec ts{};
        ts.tv_sec = static_cast<time_t>(left);
        ts.tv_nsec = static_cast<long>((left - static_cast<double>(ts.tv_sec)) * 1e9);
        nanosleep(&ts, nullptr);
    }
}

std::uint64_t number(const char* s) { return std::strtoull(s, nullptr, 10); }

}  // namespace

int run_guest(int argc, char** argv) {
    if (argc != 8) {
        std::fprintf(stderr, "usage: provpol-agent guest SOCKET EXPORT RATE_BPS WRITE_BYTES REQUEST_BYTES SEED\n");
        return 2;
    }
    const std::string socket_path = argv[2], export_name = argv[3];
    const double rate = static_cast<double>(number(argv[4]));
    const std::uint64_t total = number(argv[5]);
    const std::uint64_t request = number(argv[6]);
    const std::uint64_t seed = number(argv[7]);
    if (rate <= 0 || request == 0 || request > (32u << 20) || (std::uint64_t{1} << 20) % request != 0) {
        std::fprintf(stderr, "guest: bad rate or request size (a divisor of 1 MiB)\n");
        return 2;
    }
    try {
        nbd_client disk(socket_path, export_name);
        if (disk.size() < total) throw failure("guest: the disk is smaller than the write");
        line_reader in(0);
        say("ready " + std::to_string(disk.size()));
        // "go" starts now; "go T" at CLOCK_MONOTONIC T (the agent staggers the drives of a domain that way).
        const std::string go = listen(in);
        if (go != "go" && go.rfind("go ", 0) != 0) return 1;
        double t0 = go.size() > 3 ? std::strtod(go.c_str() + 3, nullptr) : 0.0;
        if (t0 > 0)
            sleep_until(t0);  // the schedule counts from T: a late wake-up is lateness, as for every write
        else
            t0 = monotonic_seconds();
        say("start " + std::to_string(t0));
        std::vector<unsigned char> buf(request);
        double paused = 0, lateness = 0, last_report = 0, last_late = 0;
        for (std::uint64_t off = 0; off < total; off += request) {
            const std::uint32_t len = static_cast<std::uint32_t>(total - off < request ? total - off : request);
            const unsigned char b = pattern_byte(off >> 20, seed);
            if (buf[0] != b) std::fill(buf.begin(), buf.end(), b);
            // The guest has written `off` bytes at `rate` when not paused: this request is due then.
            const double due = t0 + paused + static_cast<double>(off) / rate;
            sleep_until(due);
            const double late = monotonic_seconds() - due;
            lateness = late > lateness ? late : lateness;
            // Report lateness (at most every 20 ms, or when it grows): the agent logs it, so that a comparison
            // with the simulator knows how far behind its schedule the guest was at each moment.
            if (late > 0.010 && (due - last_report >= 0.020 || late > last_late + 0.010)) {
                char line[96];
                std::snprintf(line, sizeof line, "late %.6f %.6f", due, late);
                say(line);
                last_report = due;
                last_late = late;
            } else if (late <= 0.010) {
                last_late = 0;
            }
            for (;;) {
                const double issued = monotonic_seconds();
                const std::uint32_t err = disk.write(off, buf.data(), len);
                if (err == 0) break;
                if (err != ENOSPC)
                    throw failure("guest: write at " + std::to_string(off) +
                                  " failed: " + std::strerror(static_cast<int>(err)));
                // ENOSPC: the VM pauses until the agent extends the volume and resumes it.
                const double tp = monotonic_seconds();
                char line[128];
                std::snprintf(line, sizeof line, "pause %.6f %" PRIu64 " %.6f", tp, off, issued);
                say(line);
                const std::string cmd = listen(in);
                if (cmd != "resume") return cmd.empty() ? 1 : 0;
                paused += monotonic_seconds() - tp;
            }
        }
        if (const std::uint32_t err = disk.flush(); err != 0)
            throw failure(std::string("guest: flush failed: ") + std::strerror(static_cast<int>(err)));
        char line[160];
        std::snprintf(line, sizeof line, "done %.6f %" PRIu64 " %.6f %.6f", monotonic_seconds(), total, lateness,
                      paused);
        say(line);
        disk.disconnect();
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "guest: %s\n", e.what());
        return 1;
    }
}

}  // namespace provpol::agent
