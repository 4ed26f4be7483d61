// The --preset options of the front ends, read through the library's registries (registry.hpp): no preset name is
// compared here, and the errors list what the registry has.
#ifndef PROVPOL_EXAMPLES_PRESET_OPTION_HPP
#define PROVPOL_EXAMPLES_PRESET_OPTION_HPP

#include "common/cli.hpp"

#include <provpol/extend.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace provpol::cli {

/// An unknown --preset `given` (the registry's error `e`) as a usage error: the library's message with its "did
/// you mean", or, for a name that begins several presets ("lvm"), those presets.
[[noreturn]] inline void preset_error(const error& e, std::string_view given, const char* option = "--preset") {
    const std::vector<std::string> names = names_of_list(std::string_view(e.detail().data(), e.detail().size()));
    std::vector<std::string> starting;
    for (const std::string& n : names)
        if (!given.empty() && n.compare(0, given.size(), given) == 0) starting.push_back(n);
    if (starting.size() < 2 || !closest_name(given, names).empty()) fail(e, option);
    std::string m(e.with_setting(option).message().view());
    for (std::size_t i = 0; i < starting.size(); ++i)
        m += (i == 0 ? " (did you mean " : i + 1 == starting.size() ? " or " : ", ") + starting[i];
    throw usage_error(m + "?)");
}

/// The VDSM configuration of the extend preset `name` (--preset of plan, recommend and the agent, which simulate
/// VDSM's flow): an unknown name lists the extend presets; lvm-thin-autoextend is refused as not VDSM's.
inline vdsm_config vdsm_preset_option(const std::string& name, const char* option = "--preset") {
    const auto preset = parse_extend_preset(name, option);
    if (!preset) preset_error(preset.error(), name, option);
    const auto config = vdsm_config_of(*preset, option);
    if (!config) fail(config.error(), option);
    return *config;
}

}  // namespace provpol::cli

#endif  // PROVPOL_EXAMPLES_PRESET_OPTION_HPP
