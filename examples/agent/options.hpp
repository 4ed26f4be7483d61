// provpol-agent's options: the configuration under test (a VDSM preset or chunk and percent, static or
// rate-aware), the guest's writes, the injected latency, and where the run's CSV files go.
#ifndef PROVPOL_AGENT_OPTIONS_HPP
#define PROVPOL_AGENT_OPTIONS_HPP

#include "common/cli.hpp"

#include <provpol/extend.hpp>
#include <provpol/flow/latency.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace provpol::agent {

/// One run's settings, validated.
struct options {
    std::string label;  // "vdsm-legacy", "rate-aware/chunk-128MiB-50pct", ...
    vdsm_config config = vdsm_legacy().trigger().config;
    bool rate_aware = false;
    milliseconds budget{0};
    rate write_rate{};
    bytes write{};
    bytes capacity{};
    std::string latency_name;
    std::optional<latency_model> latency;
    std::uint64_t seed = 1;
    std::uint32_t runs = 1000;
    seconds monitor_interval = seconds(2);
    bytes request{};
    std::string workdir = "/tmp";
    std::string csv_path, summary_path;
    // A domain run (--drives): that many drives on one host, one daemon, one SPM; drive d starts at d x stagger.
    std::uint32_t drives = 0;  ///< 0: the single-drive run
    seconds stagger{};
    std::string extends_csv_path;
    // --lvm VG: real LVs in that volume group, extended by lvm2's lvextend and refreshed by lvchange --refresh (no
    // injected latency, no simulated SPM); "" for the loop-device stack.
    std::string lvm_vg;
};

/// The usage line and the options, for --help and the errors.
extern const char* const usage_text;
std::vector<cli::option> option_list();

/// Reads and checks the options of a run (throws cli::usage_error, exit 2).
options parse_options(const cli::args& a);

}  // namespace provpol::agent

#endif  // PROVPOL_AGENT_OPTIONS_HPP
