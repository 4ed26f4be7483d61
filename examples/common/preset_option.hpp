// The --preset options of the front ends, read through the library's registries (registry.hpp): no preset name is
// compared here, and the errors list what the registry has.
#ifndef PROVPOL_EXAMPLES_PRESET_OPTION_HPP
#define PROVPOL_EXAMPLES_PRESET_OPTION_HPP

#include "common/cli.hpp"

#include <provpol/extend.hpp>

#include <string>

namespace provpol::cli {

/// The VDSM configuration of the extend preset `name` (--preset of plan, recommend and the agent, which simulate
/// VDSM's flow): an unknown name lists the extend presets; lvm-thin-autoextend is refused as not VDSM's.
inline vdsm_config vdsm_preset_option(const std::string& name, const char* option = "--preset") {
    const auto preset = parse_extend_preset(name, option);
    if (!preset) fail(preset.error(), option);
    const auto config = vdsm_config_of(*preset, option);
    if (!config) fail(config.error(), option);
    return *config;
}

}  // namespace provpol::cli

#endif  // PROVPOL_EXAMPLES_PRESET_OPTION_HPP
