// provpol-agent's options (see options.hpp).
#include "options.hpp"

#include "common/latency_option.hpp"
#include "common/preset_option.hpp"

#include <provpol/domain/shared.hpp>
#include <provpol/parse.hpp>
#include <provpol/simulate/rate_aware.hpp>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace provpol::agent {

using cli::args;
using cli::usage_error;

const char* const usage_text =
    "provpol-agent (--preset vdsm-legacy|vdsm-2022 | --chunk SIZE --percent N) [--extent SIZE]\n"
    "                     [--policy static|rate-aware [--budget-quantile Q]] --rate RATE --write SIZE [--capacity "
    "SIZE]\n"
    "                     [--latency PROFILE] [--seed N] [--runs N] [--workdir DIR] [--csv FILE] [--summary-csv FILE]\n"
    "                     [--extends-csv FILE] [--drives N [--stagger SECONDS]] [--lvm VG]\n"
    "       provpol-agent --check-environment [--workdir DIR]";

std::vector<cli::option> option_list() {
    return {
        {"--preset", "NAME", "the static configuration (or the rate-aware floor): vdsm-legacy (default) or vdsm-2022"},
        {"--chunk", "SIZE", "volume_utilization_chunk_mb as a size, e.g. 128MiB (with --percent)"},
        {"--percent", "N", "volume_utilization_percent, 0-99 (with --chunk)"},
        {"--extent", "SIZE", "the volume group's extent that lvextend rounds to (default 128MiB)"},
        {"--policy", "NAME", "static (default) or rate-aware"},
        {"--budget-quantile", "Q",
         "rate-aware: plan for this quantile of the latency, 0.5-1 (with --policy rate-aware, default 1)"},
        {"--rate", "RATE", "the guest's write rate when not paused, e.g. 50MiB/s"},
        {"--write", "SIZE", "how much the guest writes, sequentially from offset 0 (whole MiB)"},
        {"--capacity", "SIZE", "the disk's virtual size (default: --write)"},
        {"--latency", "PROFILE", cli::latency_spec_names + " (default vdsm-immediate)"},
        {"--seed", "N", "the random seed of the injected extend latencies and of the paired simulation (default 1)"},
        {"--runs", "N", "simulated runs for the predicted distribution of a single drive, 1-100000 (default 1000)"},
        {"--monitor-interval", "SECONDS", "the agent's monitor period when detection is immediate (default 2)"},
        {"--request-size", "SIZE", "the guest's write size, a divisor of 1MiB (default 256KiB)"},
        {"--workdir", "DIR", "where the scratch directory is made and removed (default /tmp)"},
        {"--csv", "FILE", "write every event as CSV"},
        {"--summary-csv", "FILE", "write the summary (measured and predicted) as CSV"},
        {"--drives", "N",
         "a domain: N drives on one host (N loop devices, one daemon, N guests) sharing one mailbox and one SPM "
         "that runs one lvextend at a time, compared with simulate_domain, 1-8"},
        {"--stagger", "SECONDS", "with --drives: drive d starts writing at d x SECONDS, 0-60 (default 0)"},
        {"--extends-csv", "FILE",
         "write every extend of the simulation with the same seed as CSV (with --drives: measured and simulated)"},
        {"--lvm", "VG",
         "real LVs: each drive a new thick LV in volume group VG (removed at the end), every request run at once as "
         "its own `lvextend -L SIZE` (concurrent requests queue on lvm2's own VG lock), then `lvchange --refresh`; "
         "no injected latency; --extends-csv gets every extend's measured times (CLOCK_MONOTONIC)"},
        {"--check-environment", nullptr, "only check that this machine can run the stack (exit 0, or 77 and why)"}};
}

namespace {

/// --policy, --extent and the policy's configuration (--chunk with --percent, or --preset), and the run's label.
void read_policy(const args& a, options& o) {
    const std::string policy = a.value("--policy").value_or("static");
    if (policy != "static" && policy != "rate-aware")
        throw usage_error("--policy: unknown value '" + args::printable(policy) + "': expected static or rate-aware");
    o.rate_aware = policy == "rate-aware";
    const bytes extent = a.size("--extent").value_or(bytes(std::uint64_t{128} << 20));
    std::string name = "vdsm-legacy";
    if (a.has("--chunk") || a.has("--percent")) {
        if (!a.has("--chunk") || !a.has("--percent")) throw usage_error("--chunk and --percent go together");
        if (a.has("--preset")) throw usage_error("give --preset or --chunk with --percent, not both");
        const auto c = vdsm_config::make(*a.size("--chunk"), *a.count("--percent", 0, 99), lvm_extent_size(extent));
        if (!c) cli::fail(c.error(), "--chunk");
        o.config = *c;
        name = "chunk-" + std::to_string(c->chunk_mb()) + "MiB-" + std::to_string(c->percent()) + "pct";
    } else {
        name = a.value("--preset").value_or("vdsm-legacy");
        const vdsm_config base = cli::vdsm_preset_option(name);
        const auto c = vdsm_config::make(base.chunk(), base.percent(), lvm_extent_size(extent));
        if (!c) cli::fail(c.error(), "--extent");
        o.config = *c;
    }
    o.label = (o.rate_aware ? "rate-aware/" : "") + name;
}

/// The guest's write: --rate, --write, --capacity.
void read_write(const args& a, options& o) {
    const auto r = a.rate("--rate");
    if (!r) throw usage_error("--rate is required (e.g. --rate 50MiB/s)");
    if (r->bytes_per_second() < (std::uint64_t{1} << 20) || r->bytes_per_second() > (std::uint64_t{1} << 30))
        throw usage_error("--rate must be in [1MiB/s, 1GiB/s], got " + std::string(format_rate(*r).view()));
    o.write_rate = *r;
    const auto w = a.size("--write");
    if (!w) throw usage_error("--write is required (e.g. --write 1GiB)");
    if (w->count() == 0 || w->count() % (std::uint64_t{1} << 20) != 0 || w->count() > (std::uint64_t{64} << 30))
        throw usage_error("--write must be a whole number of MiB in [1MiB, 64GiB], got " +
                          std::string(format_size(*w).view()));
    o.write = *w;
    o.capacity = a.size("--capacity").value_or(o.write);
    if (o.capacity < o.write) throw usage_error("--capacity must be at least --write");
    if (o.capacity.count() > (std::uint64_t{1} << 40)) throw usage_error("--capacity must be at most 1TiB");
}

/// --latency through the CLI's reader, with the agent's default (the immediate flow).
void read_latency(const args& a, options& o) {
    o.latency_name = a.value("--latency").value_or("vdsm-immediate");
    std::vector<std::string> argv_store = {"--latency", o.latency_name};
    std::vector<char*> argv;
    for (auto& s : argv_store) argv.push_back(s.data());
    const args la("agent", "", {{"--latency", "PROFILE", ""}}, static_cast<int>(argv.size()), argv.data());
    o.latency = cli::latency_option(la);
}

/// --seed, --runs, --monitor-interval, --request-size and the rate-aware policy's --budget-quantile.
void read_run(const args& a, options& o) {
    o.seed = a.count("--seed", 0, ~std::uint64_t{0}).value_or(1);
    o.runs = static_cast<std::uint32_t>(a.count("--runs", 1, 100000).value_or(1000));
    o.monitor_interval = a.time("--monitor-interval", seconds(0.1), seconds(3600.0)).value_or(seconds(2.0));
    o.request = a.size("--request-size").value_or(bytes(std::uint64_t{256} << 10));
    if (o.request.count() < 4096 || (std::uint64_t{1} << 20) % o.request.count() != 0)
        throw usage_error("--request-size must divide 1MiB and be at least 4KiB, got " +
                          std::string(format_size(o.request).view()));
    if (o.rate_aware) {
        const double q = a.decimal("--budget-quantile", 0.5, 1.0).value_or(1.0);
        o.budget = std::max(milliseconds(1), latency_budget(*o.latency, q));
    } else if (a.has("--budget-quantile")) {
        throw usage_error("--budget-quantile goes with --policy rate-aware");
    }
}

/// The domain run's --drives and --stagger.
void read_domain(const args& a, options& o) {
    if (a.has("--drives")) {
        o.drives = static_cast<std::uint32_t>(*a.count("--drives", 1, 8));
        o.stagger = a.time("--stagger", seconds(0.0), seconds(60.0)).value_or(seconds(0.0));
        if (!o.latency->is_flow() || !domain_flow::make(o.latency->flow()))
            throw usage_error(
                "--drives needs a --latency flow with the mailbox (vdsm-polling-2022, "
                "vdsm-mailbox-events, vdsm-immediate), got " +
                args::printable(o.latency_name));
    } else if (a.has("--stagger")) {
        throw usage_error("--stagger goes with --drives");
    }
}

/// --lvm VG: a volume group name as lvm2 accepts it, and none of the options that run the model's latency.
void read_lvm(const args& a, options& o) {
    if (!a.has("--lvm")) return;
    o.lvm_vg = *a.value("--lvm");
    const bool valid =
        !o.lvm_vg.empty() && o.lvm_vg.size() <= 64 && o.lvm_vg[0] != '-' &&
        std::all_of(o.lvm_vg.begin(), o.lvm_vg.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '+';
        });
    if (!valid)
        throw usage_error("--lvm: '" + args::printable(o.lvm_vg) +
                          "' is not a volume group name (1-64 of A-Z a-z 0-9 + _ . -, not starting with -)");
    if (a.has("--latency") || o.rate_aware)
        throw usage_error("--lvm runs the real lvextend: it takes no --latency and no --policy rate-aware");
    if (o.drives == 0) o.drives = 1;
}

}  // namespace

// The steps in the order the checks were made, so that the first error given is the same.
options parse_options(const args& a) {
    options o;
    read_policy(a, o);
    read_write(a, o);
    read_latency(a, o);
    read_run(a, o);
    read_domain(a, o);
    read_lvm(a, o);
    o.extends_csv_path = a.value("--extends-csv").value_or("");
    o.workdir = a.value("--workdir").value_or("/tmp");
    o.csv_path = a.value("--csv").value_or("");
    o.summary_path = a.value("--summary-csv").value_or("");
    return o;
}

}  // namespace provpol::agent
