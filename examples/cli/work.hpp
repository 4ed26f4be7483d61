// Bounded work and visible progress for the simulating subcommands (plan, recommend): the events a simulation will
// replay are estimated before it starts and refused above --max-events; on a terminal, work that runs longer than
// a second shows its progress on stderr (nothing when stderr is not a terminal).
#ifndef PROVPOL_CLI_WORK_HPP
#define PROVPOL_CLI_WORK_HPP

#include "common/cli.hpp"
#include "parallel.hpp"

#include <provpol/bytes.hpp>
#include <provpol/parse.hpp>

#include <unistd.h>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace provpol::cli {

/// The default --max-events: about ten seconds of simulation on one core of the machine bench/README.md names.
inline constexpr std::uint64_t default_max_events = 1000000000;

/// The events one simulated run replays, at most: every monitor tick of the write (every `tick`; 0: VDSM's 2 s),
/// and a threshold, an extend and its completion per `chunk` written (the floor's chunk: a rate-aware chunk is
/// larger), plus a pause each.
inline double events_per_run(bytes write, rate r, bytes chunk, seconds tick) {
    const double writing = static_cast<double>(write.count()) / static_cast<double>(r.bytes_per_second());
    const double extends = static_cast<double>(write.count()) / static_cast<double>(chunk.count()) + 1.0;
    return writing / (tick.count() > 0.0 ? tick.count() : 2.0) + 4.0 * extends + 4.0;
}

/// Refuses work above `max_events` with the estimate in the one-line error.
inline void check_work(const char* command, double events, std::uint64_t max_events, const std::string& what) {
    if (events <= static_cast<double>(max_events)) return;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", events);
    throw usage_error(std::string(command) + " would replay about " + buf + " simulated events (" + what +
                      "), above --max-events " + std::to_string(max_events) +
                      ": lower --runs or --write, raise the rate, or raise --max-events");
}

/// --jobs: the threads a simulating subcommand runs on, 1 to max_jobs (default: every core). The output does not
/// depend on it (parallel.hpp).
inline constexpr const char* jobs_help =
    "threads to simulate on, 1-1024 (every core by default); the output is the same for any number";
inline unsigned jobs_option(const args& a) {
    return static_cast<unsigned>(a.count("--jobs", 1, max_jobs).value_or(default_jobs()));
}

/// Progress on stderr, when stderr is a terminal and the work has run for a second.
class progress {
public:
    explicit progress(const char* command) : command_(command), tty_(::isatty(2) == 1), start_(clock::now()) {}
    progress(const progress&) = delete;
    progress& operator=(const progress&) = delete;
    ~progress() {
        if (shown_) std::fputs("\r\033[K", stderr);  // leave no progress line behind
    }
    /// `done` of `total` units of work.
    void update(std::uint64_t done, std::uint64_t total) {
        if (!tty_) return;
        const auto now = clock::now();
        if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(200)) return;
        last_ = now;
        shown_ = true;
        std::fprintf(stderr, "\r%s: %3.0f%% (%llu of %llu)", command_,
                     total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100.0,
                     static_cast<unsigned long long>(done), static_cast<unsigned long long>(total));
        std::fflush(stderr);
    }

private:
    using clock = std::chrono::steady_clock;
    const char* command_;
    bool tty_;
    bool shown_ = false;
    clock::time_point start_, last_{};
};

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_WORK_HPP
