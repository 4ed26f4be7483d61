// provpol-agent: the simulator's extends, recorded as it makes them, so that the report can set each real extend
// beside the simulated one (simulate_run and simulate_domain report totals per drive only).
#ifndef PROVPOL_AGENT_SIM_RECORD_HPP
#define PROVPOL_AGENT_SIM_RECORD_HPP

#include <provpol/extend.hpp>
#include <provpol/simulate/agent.hpp>

#include <cstdint>
#include <vector>

namespace provpol::agent {

/// One extend as the simulator made it (seconds since the write started; done -1: it never completed while the
/// simulator watched the drive).
struct simulated_extend {
    double requested = 0, done = -1, pause = 0;
    std::uint64_t lv = 0;
};

/// The simulated extend's latency, or -1.
inline double latency_of(const simulated_extend& e) { return e.done >= 0 ? e.done - e.requested : -1; }

/// What the simulator's controller did with one drive, as its agent sees it.
struct extend_log {
    std::vector<simulated_extend> extends;  ///< reserve() it: the noexcept simulator must never make it allocate
    observation_kind last = observation_kind::extended;
    double last_time = 0, pause_start = -1;
};

/// The run's agent, recording the simulator's extends: extend_controller asks decide() right after the sample,
/// threshold or pause it observed when it requests (and after an `extended` observation only for the threshold),
/// and reports every completion as an `extended` observation. So a decision to extend after any other
/// observation is a request at that observation's time (simulate/agent.hpp's request()).
template <class Agent>
class recording_agent {
public:
    recording_agent(const Agent& a, extend_log* log) noexcept : a_(a), log_(log) {}
    PROVPOL_NODISCARD bytes initial_size(bytes capacity) const noexcept { return a_.initial_size(capacity); }
    void observe(const observation& o) noexcept {
        a_.observe(o);
        const double t = o.time.count();
        if (o.kind == observation_kind::pause) log_->pause_start = t;
        if (o.kind == observation_kind::extended)
            for (simulated_extend& e : log_->extends)
                if (e.done < 0 && e.lv <= o.physical.count()) {
                    e.done = t;
                    if (log_->pause_start >= 0) e.pause += t - log_->pause_start;
                    log_->pause_start = -1;
                    break;
                }
        log_->last = o.kind;
        log_->last_time = t;
    }
    PROVPOL_NODISCARD extend_decision decide(const drive_state& s) const noexcept {
        const extend_decision d = a_.decide(s);
        if (log_->last != observation_kind::extended && d.action == extend_action::extend &&
            d.lv_size_after_extend.count() > s.physical.count() && log_->extends.size() < log_->extends.capacity())
            log_->extends.push_back({log_->last_time, -1, 0, d.lv_size_after_extend.count()});
        return d;
    }
    PROVPOL_NODISCARD unsigned max_in_flight() const noexcept { return provpol::max_in_flight(a_); }

private:
    Agent a_;
    extend_log* log_;
};

}  // namespace provpol::agent

#endif  // PROVPOL_AGENT_SIM_RECORD_HPP
