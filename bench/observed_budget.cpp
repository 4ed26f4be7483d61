// Does a drive that has seen its own extends plan better with its own latencies than with the model's longest?
//
// Under the flow model (flow/clocks.hpp) a VM keeps its clocks' phases, so its extends' latencies are related:
// a drive that measured its last extends (the time from the threshold event to the grown LV) might plan for
// those instead of the model's longest latency, and buy the same pauses with less space. This program measures
// it: the rate-aware agent of simulate/rate_aware.hpp with the model's longest latency as its budget, against the same
// agent whose budget, after three extends, is the longest of its last W measured latencies plus a margin, never
// above the model's. 50 GiB written, 1000 seeded runs per cell, the vdsm-legacy floor.
//
//   build/dev/bench/observed_budget [PROFILE...]     (default: the three VDSM flow profiles)
//
// Output: one row per profile, rate and budget rule: pauses per run (mean, 99th percentile, most), and the space
// allocated but unwritten at the end. docs/rate-aware.md quotes it.
#include <provpol/flow/latency.hpp>
#include <provpol/simulate.hpp>
#include <provpol/simulate/rate_aware.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using namespace provpol;

// The rate-aware agent, with the budget taken from the drive's own measured latencies.
class observed_budget_agent {
public:
    observed_budget_agent(vdsm_config floor, milliseconds model_budget, unsigned window, double margin_s)
        : floor_(floor), model_budget_(model_budget), window_(window), margin_s_(margin_s) {}

    bytes initial_size(bytes capacity) const { return policy().initial_size(capacity); }
    unsigned max_in_flight() const { return 2; }
    void observe(const observation& o) {
        agent_.observe(o);
        if (o.kind == observation_kind::threshold) threshold_at_ = o.time.count();
        if (o.kind == observation_kind::extended) {
            if (threshold_at_ >= 0.0) latencies_[seen_++ % ring] = o.time.count() - threshold_at_;
            threshold_at_ = -1.0;
        }
    }
    // The rate-aware agent's decision, with this agent's budget.
    extend_decision decide(const drive_state& s) const { return agent_.decide(s, policy()); }

private:
    static constexpr unsigned ring = 64;
    rate_aware_policy policy() const { return make_rate_aware_policy(floor_, budget()).value(); }
    milliseconds budget() const {
        if (seen_ < 3) return model_budget_;
        double longest = 0.0;
        const unsigned n = std::min(seen_, std::min(window_, ring));
        for (unsigned i = 0; i < n; ++i) longest = std::max(longest, latencies_[(seen_ - 1 - i) % ring]);
        const double ms = (longest + margin_s_) * 1000.0 + 1.0;
        return ms >= static_cast<double>(model_budget_.count()) ? model_budget_
                                                                : milliseconds(static_cast<milliseconds::rep>(ms));
    }

    vdsm_config floor_;
    milliseconds model_budget_;
    unsigned window_;
    double margin_s_;
    rate_aware_agent agent_{make_rate_aware_policy(floor_, model_budget_).value(), 2, seconds(60)};  // its estimator
    double threshold_at_ = -1.0;
    double latencies_[ring] = {};
    unsigned seen_ = 0;
};

template <class Agent>
void row(const char* profile, std::uint64_t mib_s, const std::string& rule, const Agent& agent,
         const latency_model& latency) {
    const workload w =
        workload::make(bytes(std::uint64_t{50} << 30), rate(mib_s << 20), bytes(std::uint64_t{100} << 30)).value();
    run_accumulator acc;
    simulate_each(agent, latency, w, 1000, 1, [&acc](std::uint32_t, const run_result& r) { acc.add(r); });
    const simulation_summary s = acc.summary();
    std::printf("%s,%llu,%s,%.3f,%g,%g,%.2f\n", profile, static_cast<unsigned long long>(mib_s), rule.c_str(), s.pauses,
                s.pauses_p99, s.max_pauses, s.unwritten / static_cast<double>(std::uint64_t{1} << 30));
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> profiles(argv + 1, argv + argc);
    if (profiles.empty()) profiles = {"vdsm-polling-2022", "vdsm-mailbox-events", "vdsm-immediate"};
    std::printf("profile,rate_mib_s,budget,pauses,pauses_p99,max_pauses,unwritten_gib\n");
    const vdsm_config floor = vdsm_legacy().trigger().config;
    for (const std::string& name : profiles) {
        const auto l = latency_profile(name);
        if (!l) {
            std::fprintf(stderr, "observed_budget: %s\n", std::string(l.error().message().view()).c_str());
            return 2;
        }
        const milliseconds model_budget = latency_budget(*l, 1.0);
        for (std::uint64_t r : {100u, 200u, 400u, 700u, 1000u}) {
            row(name.c_str(), r, "model-longest", rate_aware_agent(make_rate_aware_policy(floor, model_budget).value()),
                *l);
            for (double margin : {0.25, 1.0})
                for (unsigned window : {4u, 16u}) {
                    char rule[64];
                    std::snprintf(rule, sizeof rule, "observed-last-%u+%.2fs", window, margin);
                    row(name.c_str(), r, rule, observed_budget_agent(floor, model_budget, window, margin), *l);
                }
        }
    }
    return 0;
}
