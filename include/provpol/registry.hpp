// provpol/registry.hpp - a family's presets in one place: for each preset its id, the name as a command line spells
// it, a one-line description, the public source of its rule and the function that makes it. The table of entries,
// the list of names, the parse and the choice at run time (visit) all come from that one registry, so a preset is in
// every list or in none. The registries are the families': extend_preset_registry (extend/presets.hpp),
// log_preset_registry (log_size/presets.hpp), chunk_preset_registry (chunk/presets.hpp); latency_profiles
// (flow/latency.hpp) is a table of entries of one type. A front end (the provpol CLI, the agent) generates its help,
// its choices and its errors from them and compares no preset name by hand.
//
// Names are kebab-case ("vdsm-2022", "xfsprogs-6.13", "xapi-redo-log"): one spelling in every family.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_REGISTRY_HPP
#define PROVPOL_REGISTRY_HPP

#include "config.hpp"
#include "detail/traits.hpp"
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

/// A family's entries, in its registry's order (what the CLI lists): a range of preset_info<Id>.
template <class Id, std::size_t N>
struct preset_table {
    preset_info<Id> entries[N];

    PROVPOL_NODISCARD static constexpr std::size_t size() noexcept { return N; }
    PROVPOL_NODISCARD constexpr const preset_info<Id>* begin() const noexcept { return entries; }
    PROVPOL_NODISCARD constexpr const preset_info<Id>* end() const noexcept { return entries + N; }
    constexpr const preset_info<Id>& operator[](std::size_t i) const noexcept { return entries[i]; }
};

/// A family's ids, in its registry's order: a range of Id.
template <class Id, std::size_t N>
struct preset_ids {
    Id ids[N];

    PROVPOL_NODISCARD static constexpr std::size_t size() noexcept { return N; }
    PROVPOL_NODISCARD constexpr const Id* begin() const noexcept { return ids; }
    PROVPOL_NODISCARD constexpr const Id* end() const noexcept { return ids + N; }
    constexpr Id operator[](std::size_t i) const noexcept { return ids[i]; }
};
/// The ids of a table's entries, in its order.
template <class Id, std::size_t N>
PROVPOL_NODISCARD constexpr preset_ids<Id, N> ids_of(const preset_table<Id, N>& table) noexcept {
    preset_ids<Id, N> out{};
    for (std::size_t i = 0; i < N; ++i) out.ids[i] = table[i].id;
    return out;
}

/// One preset as its registry holds it: its entry and the function that makes it (a policy, a configuration, a
/// chunk_preset: `Make` is that function's pointer type, one per preset).
template <class Id, class Make>
struct preset_def {
    constexpr preset_def(Id id, const char* name, const char* description, const char* source, Make m) noexcept
        : info{id, name, description, source}, make(m) {}
    preset_info<Id> info;
    Make make;
};
template <class Id, class Make>
preset_def(Id, const char*, const char*, const char*, Make) -> preset_def<Id, Make>;

namespace detail {
// The registry's presets, each of its own type, as the bases of one struct (a tuple without <tuple>).
template <std::size_t I, class Def>
struct registry_slot {
    Def def;
};
template <class Seq, class... Def>
struct registry_slots;
template <std::size_t... I, class... Def>
struct registry_slots<detail::index_sequence<I...>, Def...> : registry_slot<I, Def>... {
    constexpr explicit registry_slots(const Def&... d) noexcept : registry_slot<I, Def>{d}... {}
};
template <std::size_t I, class Def>
constexpr const Def& slot_def(const registry_slot<I, Def>& s) noexcept {
    return s.def;
}
}  // namespace detail

/// A family's presets: the one list its table, its names, its parse and its choice at run time come from.
template <class Id, class... Make>
class preset_registry {
public:
    /// How many presets the family has.
    static constexpr std::size_t size = sizeof...(Make);

    constexpr explicit preset_registry(const preset_def<Id, Make>&... defs) noexcept
        : slots_(defs...), table_{{defs.info...}} {}

    /// Every preset's entry, in the registry's order.
    PROVPOL_NODISCARD constexpr const preset_table<Id, size>& table() const noexcept { return table_; }

    /// f(preset), the preset `id` names as its function makes it, and what f returns (the same type for every
    /// preset: f is usually a generic lambda that tells the presets' types apart with if constexpr). The one way to
    /// choose a preset at run time in every family. A value that is none of Id's enumerators (a cast) visits the
    /// first preset.
    template <class F>
    constexpr decltype(auto) visit(Id id, F&& f) const {
        return visit_from<0>(id, f);
    }

    /// True when the ids are 0, 1, ..., last, each once: with `last` the family's last enumerator, every enumerator
    /// has a preset here and nothing else does (the families static_assert it).
    PROVPOL_NODISCARD constexpr bool holds_every_id_through(Id last) const noexcept {
        if (static_cast<std::size_t>(last) + 1 != size) return false;
        bool seen[size] = {};
        for (const preset_info<Id>& e : table_) {
            const auto i = static_cast<std::size_t>(e.id);
            if (i >= size || seen[i]) return false;
            seen[i] = true;
        }
        return true;
    }

    /// f(entry, make) for each preset, in the registry's order, where make() makes it: what a list of the presets
    /// of one kind is built from (make's return type tells the kind at compile time).
    template <class F>
    constexpr void for_each(F&& f) const {
        for_each_of(f, detail::index_sequence_for<Make...>{});
    }

private:
    template <class F, std::size_t... I>
    constexpr void for_each_of(F& f, detail::index_sequence<I...>) const {
        (f(detail::slot_def<I>(slots_).info, detail::slot_def<I>(slots_).make), ...);
    }
    template <std::size_t I, class F>
    constexpr decltype(auto) visit_from(Id id, F& f) const {
        if constexpr (I == size) {
            return f(detail::slot_def<0>(slots_).make());
        } else {
            const auto& d = detail::slot_def<I>(slots_);
            if (d.info.id == id) return f(d.make());
            return visit_from<I + 1>(id, f);
        }
    }

    detail::registry_slots<detail::index_sequence_for<Make...>, preset_def<Id, Make>...> slots_;
    preset_table<Id, size> table_;
};
template <class Id, class... Make>
preset_registry(const preset_def<Id, Make>&...) -> preset_registry<Id, Make...>;

/// The most characters a family's list of names ("a, b or c") may take (the extend family's 17 take about 340).
/// A family's registry as the family's header declares it: a handle, built (evaluated in a constant expression) only
/// in the translation units that read it. The registries and what their headers built from them at namespace scope
/// took a tenth of what `#include <provpol/provpol.hpp>` costs (tools/compile_cost.sh --instructions). `Family` gives
/// `id_type`, `size` and `get<D>()`, the family's preset_registry (a variable template). The handle reads as the
/// registry (size, table(), visit, for_each) and as its table (begin, end, operator[]).
template <class Family>
class preset_registry_of {
public:
    using id_type = typename Family::id_type;
    /// How many presets the family has.
    static constexpr std::size_t size = Family::size;

    /// The preset_registry itself.
    PROVPOL_NODISCARD constexpr const auto& registry() const noexcept {
        static_assert(Family::template get<void>().holds_every_id_through(static_cast<id_type>(size - 1)),
                      "a family's registry holds one preset per id, each once");
        return Family::template get<void>();
    }
    PROVPOL_NODISCARD constexpr const preset_table<id_type, size>& table() const noexcept { return registry().table(); }
    /// f(the preset `id` makes), as preset_registry::visit.
    template <class F>
    constexpr decltype(auto) visit(id_type id, F&& f) const {
        return registry().visit(id, detail::forward<F>(f));
    }
    /// f(info, maker) for each preset, as preset_registry::for_each.
    template <class F>
    constexpr void for_each(F&& f) const {
        registry().for_each(detail::forward<F>(f));
    }
    PROVPOL_NODISCARD constexpr bool holds_every_id_through(id_type last) const noexcept {
        return registry().holds_every_id_through(last);
    }
    PROVPOL_NODISCARD constexpr const preset_info<id_type>* begin() const noexcept { return table().begin(); }
    PROVPOL_NODISCARD constexpr const preset_info<id_type>* end() const noexcept { return table().end(); }
    constexpr const preset_info<id_type>& operator[](std::size_t i) const noexcept { return table()[i]; }
};

namespace detail {
template <class Family>
inline constexpr preset_ids<typename Family::id_type, Family::size> preset_ids_v =
    ids_of(preset_registry_of<Family>{}.table());
}  // namespace detail

/// A family's ids in its registry's order, built where they are read (as preset_registry_of): begin, end, size(),
/// operator[].
template <class Family>
class preset_ids_of {
public:
    using id_type = typename Family::id_type;
    PROVPOL_NODISCARD static constexpr std::size_t size() noexcept { return Family::size; }
    PROVPOL_NODISCARD constexpr const id_type* begin() const noexcept { return detail::preset_ids_v<Family>.begin(); }
    PROVPOL_NODISCARD constexpr const id_type* end() const noexcept { return detail::preset_ids_v<Family>.end(); }
    constexpr id_type operator[](std::size_t i) const noexcept { return detail::preset_ids_v<Family>[i]; }
};
template <class Family>
PROVPOL_NODISCARD constexpr const preset_ids<typename Family::id_type, Family::size>& ids_of(
    const preset_registry_of<Family>&) noexcept {
    return detail::preset_ids_v<Family>;
}

inline constexpr std::size_t preset_list_capacity = 512;
/// A family's names as a list: "vdsm-2022, vdsm-legacy, lvm-thin-autoextend".
using preset_list = fixed_string<preset_list_capacity>;

/// The names of a table's entries (anything with a `name`), joined as "a, b, c", at compile time; with
/// `prefix` ("one of ") in front.
template <class Table>
PROVPOL_NODISCARD constexpr preset_list preset_names(const Table& table, const char* prefix = "") noexcept {
    preset_list out;
    out.append(prefix);
    bool first = true;
    for (const auto& e : table) {
        if (!first) out.append(", ");
        out.append(e.name);
        first = false;
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
template <class Table>
PROVPOL_NODISCARD constexpr auto find_preset(const Table& table, text_view name) noexcept -> decltype(&*table.begin()) {
    for (const auto& e : table)
        if (name == e.name) return &e;
    return nullptr;
}
/// The same for a C array of entries (latency_profiles).
template <class Entry, std::size_t N>
PROVPOL_NODISCARD constexpr const Entry* find_preset(const Entry (&table)[N], text_view name) noexcept {
    for (const Entry& e : table)
        if (name == e.name) return &e;
    return nullptr;
}

namespace detail {
// A family's lists as variable templates: a variable template's initializer is evaluated only where it is used, so
// the lists are built (in a constant expression) in the translation units that read them, not in every one that
// includes the family's header. The three families' lists took a tenth of provpol.hpp's compile cost
// (tools/compile_cost.sh --instructions).
template <const auto& Registry>
inline constexpr preset_list preset_names_v = preset_names(Registry.table());
template <const auto& Registry>
inline constexpr preset_list preset_choices_v = preset_choices(preset_names_v<Registry>);
}  // namespace detail

namespace detail {
// `t`, as an expression that depends on D: in a function template whose only template parameter is D (a defaulted
// `class Deferred = void` that callers never name), the calls it takes part in are compiled when the function is
// called, not when its header is included. The families' parse and accessor functions are written so.
template <class D, class T>
constexpr const T& deferred(const T& t) noexcept {
    return t;
}
// T, as a type that depends on D (as deferred): the families' registries are variable templates over their id type,
// read as X_registry_v<dependent_t<D, Id>>, so that their initializers are built where they are read.
template <class D, class T>
struct dependent_type {
    using type = T;
};
template <class D, class T>
using dependent_t = typename dependent_type<D, T>::type;
}  // namespace detail

/// A family's names as a list ("vdsm-2022, vdsm-legacy, ..."), or with "one of " in front when `Choices` (what an
/// unknown name's error quotes): a handle to a preset_list of static storage duration, made from the registry the
/// first time a translation unit reads it. Usable in constant expressions, and as a `const preset_list&`.
template <const auto& Registry, bool Choices = false>
class preset_list_of {
public:
    /// The list itself, of static storage duration.
    PROVPOL_NODISCARD constexpr const preset_list& list() const noexcept {
        if constexpr (Choices) {
            // An unknown name's error lists every choice: with a long setting name and the name given (up to
            // error::max_text), the message must still hold all of them.
            static_assert(detail::preset_choices_v<Registry>.size() + 4 < preset_list::capacity(),
                          "the choices are not cut short");
            static_assert(detail::preset_choices_v<Registry>.size() + 160 <= error_message::capacity(),
                          "the choices fit an error message");
            return detail::preset_choices_v<Registry>;
        } else {
            return detail::preset_names_v<Registry>;
        }
    }
    // NOLINTNEXTLINE(google-explicit-constructor): the handle stands for its list
    constexpr operator const preset_list&() const noexcept { return list(); }
    PROVPOL_NODISCARD constexpr const char* c_str() const noexcept { return list().c_str(); }
    PROVPOL_NODISCARD constexpr text_view view() const noexcept { return list().view(); }
    PROVPOL_NODISCARD constexpr std::size_t size() const noexcept { return list().size(); }
};

/// The id of the preset named `name`; the error lists `choices` (a preset_list with static storage, e.g. the
/// family's extend_preset_choices): "preset: unknown value 'vdsm-2023': expected one of vdsm-2022, ...".
template <class Id, std::size_t N>
PROVPOL_NODISCARD constexpr result<Id> parse_preset(const preset_table<Id, N>& table, const preset_list& choices,
                                                    text_view name, const char* setting = "preset") noexcept {
    if (const preset_info<Id>* e = find_preset(table, name)) return e->id;
    return unexpected(error::unknown_name(setting, name, static_text::of_static(choices.c_str())));
}
/// The choices must outlive the error (a family's list, of static storage duration), never a temporary.
template <class Id, std::size_t N>
result<Id> parse_preset(const preset_table<Id, N>&, const preset_list&&, text_view, const char* = "") = delete;

/// The entry of `id`, or nullptr for a value that is none of the family's (a cast).
template <class Family>
PROVPOL_NODISCARD constexpr result<typename Family::id_type> parse_preset(const preset_registry_of<Family>& registry,
                                                                          const preset_list& choices, text_view name,
                                                                          const char* setting = "preset") noexcept {
    return parse_preset(registry.table(), choices, name, setting);
}
template <class Family>
result<typename Family::id_type> parse_preset(const preset_registry_of<Family>&, const preset_list&&, text_view,
                                              const char* = "") = delete;

template <class Id, std::size_t N>
PROVPOL_NODISCARD constexpr const preset_info<Id>* find_preset(const preset_table<Id, N>& table, Id id) noexcept {
    for (const preset_info<Id>& e : table)
        if (e.id == id) return &e;
    return nullptr;
}
/// The name of `id` ("unknown" for a value that is none of the family's, as every to_text says).
template <class Id, std::size_t N>
PROVPOL_NODISCARD constexpr const char* preset_name(const preset_table<Id, N>& table, Id id) noexcept {
    const preset_info<Id>* e = find_preset(table, id);
    return e ? e->name : "unknown";
}
template <class Family>
PROVPOL_NODISCARD constexpr const preset_info<typename Family::id_type>* find_preset(
    const preset_registry_of<Family>& registry, typename Family::id_type id) noexcept {
    return find_preset(registry.table(), id);
}
template <class Family>
PROVPOL_NODISCARD constexpr const char* preset_name(const preset_registry_of<Family>& registry,
                                                    typename Family::id_type id) noexcept {
    return preset_name(registry.table(), id);
}

}  // namespace provpol

#endif  // PROVPOL_REGISTRY_HPP
