// provpol/registry.hpp - what every family's table of named presets shares: an entry (the id, the name as a
// command line spells it, a one-line description, the public source of its rule), the lookup by name with the
// error that lists every name, and the list itself, built at compile time. The tables are the family headers':
// extend_presets (extend.hpp), latency_profiles (flow/latency.hpp), log_presets (log_size.hpp), chunk_preset_table
// (chunk.hpp). A front end (the provpol CLI, the agent) generates its help, its choices and its errors from them
// and compares no preset name by hand.
//
// Names are kebab-case ("vdsm-2022", "xfsprogs-6.13", "xapi-redo-log"): one spelling in every family.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_REGISTRY_HPP
#define PROVPOL_REGISTRY_HPP

#include "config.hpp"
#include "error.hpp"
#include "result.hpp"
#include "text.hpp"

#include <cstddef>

namespace provpol {

/// One named preset of a family: Id is the family's enum.
template <class Id>
struct preset_info {
    Id id;
    const char* name;         ///< kebab-case, as `provpol ... --preset` takes it
    const char* description;  ///< one line: what it decides
    const char* source;       ///< the public source of its rule (a release, a commit, a function)
};

/// The most characters a family's list of names ("a, b or c") may take (the extend family's 17 take about 340).
inline constexpr std::size_t preset_list_capacity = 512;
/// A family's names as a list: "vdsm-2022, vdsm-legacy, lvm-thin-autoextend".
using preset_list = fixed_string<preset_list_capacity>;

/// The names of a table's entries (anything with a `name`), joined as "a, b, c", at compile time; with
/// `prefix` ("one of ") in front.
template <class Entry, std::size_t N>
PROVPOL_NODISCARD constexpr preset_list preset_names(const Entry (&table)[N], const char* prefix = "") noexcept {
    preset_list out;
    out.append(prefix);
    for (std::size_t i = 0; i < N; ++i) {
        if (i > 0) out.append(", ");
        out.append(table[i].name);
    }
    return out;
}

namespace detail {
/// "one of " and a family's names (preset_names(table, "one of ") from preset_names(table)): the names are copied,
/// not gathered again from the table; the lists are built when the header is included, so that matters.
PROVPOL_NODISCARD constexpr preset_list preset_choices(const preset_list& names) noexcept {
    preset_list out;
    out.append("one of ").append(names.view());
    return out;
}
}  // namespace detail

/// The entry named `name`, or nullptr.
template <class Entry, std::size_t N>
PROVPOL_NODISCARD constexpr const Entry* find_preset(const Entry (&table)[N], text_view name) noexcept {
    for (const Entry& e : table)
        if (name == e.name) return &e;
    return nullptr;
}

/// The id of the preset named `name`; the error lists `choices` (a preset_list with static storage, e.g. the
/// family's extend_preset_choices): "preset: unknown value 'vdsm-2023': expected one of vdsm-2022, ...".
template <class Id, std::size_t N>
PROVPOL_NODISCARD constexpr result<Id> parse_preset(const preset_info<Id> (&table)[N], const preset_list& choices,
                                                    text_view name, const char* setting = "preset") noexcept {
    if (const preset_info<Id>* e = find_preset(table, name)) return e->id;
    return unexpected(error::unknown_name(setting, name, static_text::of_static(choices.c_str())));
}

/// The choices must outlive the error (a family's list, of static storage duration), never a temporary.
template <class Id, std::size_t N>
result<Id> parse_preset(const preset_info<Id> (&)[N], const preset_list&&, text_view, const char* = "") = delete;

/// The entry of `id` (the first entry when the id is not in the table, which a valid Id never is).
template <class Id, std::size_t N>
PROVPOL_NODISCARD constexpr const preset_info<Id>& preset_of(const preset_info<Id> (&table)[N], Id id) noexcept {
    for (const preset_info<Id>& e : table)
        if (e.id == id) return e;
    return table[0];
}

}  // namespace provpol

#endif  // PROVPOL_REGISTRY_HPP
