// How many concurrent writers does a storage domain hold, per policy, and which load adaptation holds most?
//
// For each latency profile, domain shape and number of domain runs below, max_writers() (domain.hpp) searches
// the largest number of drives that can write 50 GiB at 500 MiB/s at once, all starting together (a boot storm:
// the hardest case, every new disk's first extends meet in the same scans), such that 99% of the writing VMs
// pause at most once. Policies: vdsm-legacy and vdsm-2022 as VDSM runs them, the rate-aware agent (its budget
// the model's longest latency; floor vdsm-legacy and vdsm-2022), the rate-aware agent adapting to the load
// (simulate/rate_aware.hpp, adaptive_rate_aware_agent) with its defaults over the vdsm-legacy floor, and over the
// vdsm-2022 floor for a grid of margins and pending weights (the half-life: 600 s, longer than a 50 GiB run at 500
// MiB/s, so it does not matter here).
//
//   build/dev/bench/domain_adaptation [PROFILE...]   (default: vdsm-mailbox-events vdsm-polling-2022)
//
// Output: CSV, one row per profile, shape, runs and policy: max_writers. docs/rate-aware.md quotes it; the
// defaults of load_adaptation::make() are a grid point with the largest smallest ratio to vdsm-2022 under mailbox
// events over the shapes, and among those the largest smallest count under polling.
#include <provpol/domain.hpp>
#include <provpol/domain/capacity.hpp>
#include <provpol/flow/latency.hpp>
#include <provpol/simulate/rate_aware.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using namespace provpol;

struct shape {
    std::uint32_t hosts;
    std::uint32_t drives_per_host;
    std::uint32_t runs;
};

template <class Agent>
std::uint32_t capacity(const domain_config& d, const latency_model& l, const Agent& agent, const workload& w,
                       std::uint32_t runs) {
    const auto m = max_writers(
        d, l, [&agent](std::uint32_t) noexcept { return agent; }, w, per_vm_target::make(1, 0.99).value(), runs, 1);
    if (!m) {
        std::fprintf(stderr, "domain_adaptation: %s\n", std::string(m.error().message().view()).c_str());
        std::exit(1);
    }
    return m->writers;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> profiles(argv + 1, argv + argc);
    if (profiles.empty()) profiles = {"vdsm-mailbox-events", "vdsm-polling-2022"};
    const shape shapes[] = {{10, 20, 1}, {10, 20, 3}, {10, 20, 8}, {4, 6, 3}, {20, 10, 3}, {5, 8, 5}};
    const workload w =
        workload::make(bytes(std::uint64_t{50} << 30), rate(std::uint64_t{500} << 20), bytes(std::uint64_t{100} << 30))
            .value();
    const vdsm_config legacy = vdsm_legacy().trigger().config;
    const vdsm_config v2022 = vdsm_2022().trigger().config;
    std::printf("profile,hosts,drives_per_host,runs,policy,max_writers\n");
    for (const std::string& name : profiles) {
        const auto l = latency_profile(name);
        if (!l) {
            std::fprintf(stderr, "domain_adaptation: %s\n", std::string(l.error().message().view()).c_str());
            return 2;
        }
        const milliseconds model_budget = latency_budget(*l, 1.0);
        for (const shape& s : shapes) {
            const domain_config d = domain_config::make(s.hosts, s.drives_per_host, 1e8_s).value();
            const auto row = [&](const std::string& policy, std::uint32_t n) {
                std::printf("%s,%u,%u,%u,%s,%u\n", name.c_str(), s.hosts, s.drives_per_host, s.runs, policy.c_str(), n);
                std::fflush(stdout);
            };
            row("vdsm-legacy", capacity(d, *l, static_agent<vdsm_policy>(make_vdsm_policy(legacy)), w, s.runs));
            row("vdsm-2022", capacity(d, *l, static_agent<vdsm_policy>(make_vdsm_policy(v2022)), w, s.runs));
            row("rate-aware/vdsm-legacy",
                capacity(d, *l, rate_aware_agent(make_rate_aware_policy(legacy, model_budget).value()), w, s.runs));
            row("rate-aware/vdsm-2022",
                capacity(d, *l, rate_aware_agent(make_rate_aware_policy(v2022, model_budget).value()), w, s.runs));
            row("rate-aware-adaptive/vdsm-legacy (defaults)",
                capacity(d, *l,
                         adaptive_rate_aware_agent(make_rate_aware_policy(legacy, model_budget).value(),
                                                   load_adaptation::make().value()),
                         w, s.runs));
            for (double margin : {1.25, 1.5, 1.75, 2.0})
                for (double pending : {1.0, 1.25, 1.5, 2.0}) {
                    const adaptive_rate_aware_agent agent(make_rate_aware_policy(v2022, model_budget).value(),
                                                          load_adaptation::make(margin, 600.0_s, pending).value());
                    char label[96];
                    std::snprintf(label, sizeof label, "rate-aware-adaptive/vdsm-2022 margin %.2f pending %.2f", margin,
                                  pending);
                    row(label, capacity(d, *l, agent, w, s.runs));
                }
        }
    }
    return 0;
}
