// The bound on a search's simulated events, spent as the search goes (`provpol capacity`, `provpol recommend`).
#ifndef PROVPOL_CLI_BUDGET_HPP
#define PROVPOL_CLI_BUDGET_HPP

#include "common/cli.hpp"

#include <provpol/error.hpp>
#include <provpol/result.hpp>

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>

namespace provpol::cli {

/// A bound on the work of searches that run side by side: each candidate adds, before it is simulated, the events
/// its check replays at most (events_per_run for each drive of each of its runs); past --max-events the searches
/// stop with one usage error. What a search costs is not known before it runs (a candidate that misses stops at its
/// miss, and the answer fixes how many candidates there are), so the bound is checked as the searches go; the first
/// candidate is checked before anything runs (work.hpp's check_work). Whether they stop does not depend on the
/// threads' order: it is whether the events of the candidates all searches check add up past the bound.
class work_budget {
public:
    /// `command` names the command in the error, `what` the work being bounded.
    work_budget(const char* command, std::uint64_t max_events, std::string what)
        : command_(command), max_(max_events), what_(std::move(what)) {}

    /// Adds `events`; past the bound, an error for the search to return (then check() throws the usage error).
    result<void> spend(double events) {
        const std::lock_guard<std::mutex> lock(m_);
        used_ += events;
        if (used_ <= static_cast<double>(max_)) return {};
        over_ = true;
        return unexpected(error::out_of_range("max_events", error_value::of(max_), {}, error_value::of(max_)));
    }
    /// Adds `events` and throws the usage error past the bound: for a search that cannot return an error.
    void spend_or_throw(double events) {
        if (!spend(events)) check();
    }
    /// After the searches: the usage error when they passed the bound.
    void check() const {
        const std::lock_guard<std::mutex> lock(m_);
        if (over_)
            throw usage_error(std::string(command_) + " would replay more than --max-events " + std::to_string(max_) +
                              " simulated events (" + what_ +
                              "): lower --runs or --write, raise the rate, or raise --max-events");
    }

private:
    mutable std::mutex m_;
    const char* command_;
    std::uint64_t max_;
    std::string what_;
    double used_ = 0.0;
    bool over_ = false;
};

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_BUDGET_HPP
