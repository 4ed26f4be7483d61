// Tests of provpol/registry.hpp and the families' registries: one list per family, from which the table, the names,
// the parse, the ids and the choice at run time all come; each registry's id -> preset map held to a list written
// here by hand, apart from the registries.
#include <provpol/chunk.hpp>
#include <provpol/extend.hpp>
#include <provpol/log_size.hpp>
#include <provpol/registry.hpp>

#include "test_support.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <type_traits>

using namespace provpol;
using namespace provpol::literals;

namespace {

bool same(const lvm_autoextend_config& a, const lvm_autoextend_config& b) {
    return a.threshold_as_written() == b.threshold_as_written() && a.extend_percent() == b.extend_percent() &&
           a.extent() == b.extent() && a.pool_chunk() == b.pool_chunk() && a.kind() == b.kind();
}

// Every list a family offers holds each registered preset once: the table, the ids, the names, the choices, and
// parse and to_text go both ways.
template <class Registry, class Ids, class Parse>
void check_family(const Registry& registry, const Ids& ids, const preset_list& names, const preset_list& choices,
                  Parse parse) {
    const auto& table = registry.table();
    REQUIRE(table.size() == Registry::size);
    REQUIRE(ids.size() == Registry::size);
    std::set<std::string> seen;
    std::size_t i = 0;
    for (const auto& e : table) {
        CAPTURE(std::string(e.name));
        CHECK(seen.insert(e.name).second);
        CHECK(ids[i] == e.id);
        CHECK(std::string(to_text(e.id)) == e.name);
        CHECK(*parse(e.name) == e.id);
        CHECK(std::string(names.c_str()).find(e.name) != std::string::npos);
        CHECK(std::string(choices.c_str()).find(e.name) != std::string::npos);
        CHECK(std::string(e.description).size() > 10);
        CHECK(std::string(e.source).size() > 10);
        ++i;
    }
    CHECK(std::string(choices.c_str()) == "one of " + std::string(names.c_str()));
}

}  // namespace

TEST_CASE("log sizes: every registered preset is in every list, xfsprogs-5.15 included") {
    check_family(log_preset_registry, all_log_presets, log_preset_names, log_preset_choices,
                 [](text_view n) { return parse_log_preset(n); });
    bool has_5_15 = false;
    for (log_preset p : all_log_presets) has_5_15 = has_5_15 || p == log_preset::xfsprogs_5_15;
    CHECK(has_5_15);
    CHECK(std::string(log_preset_names.c_str()).find("xfsprogs-5.15") != std::string::npos);
}

TEST_CASE("extend: every registered preset is in every list") {
    check_family(extend_preset_registry, ids_of(extend_presets), extend_preset_names, extend_preset_choices,
                 [](text_view n) { return parse_extend_preset(n); });
}

TEST_CASE("chunk: every registered preset is in every list, and each preset says its own name") {
    check_family(chunk_preset_registry, ids_of(chunk_preset_table), chunk_preset_names, chunk_preset_choices,
                 [](text_view n) { return parse_chunk_preset(n); });
    for (const auto& e : chunk_preset_table)
        CHECK(std::string(with_chunk_preset(e.id, [](const auto& preset) { return preset.name; })) == e.name);
}

// The run-time choice against the presets called by name, over a list written here.
TEST_CASE("log sizes: decide_log_size(id) decides as the preset's own function, for every id") {
    const fs_geometry g = fs_geometry::make(fs_geometry_options{220_GiB}).value();
    const fs_geometry small = fs_geometry::make(fs_geometry_options{5_GiB}).value();
    const struct {
        log_preset id;
        log_size_decision (*decide)(const fs_geometry&);
    } by_hand[] = {
        {log_preset::xfsprogs_6_1, [](const fs_geometry& x) { return xfsprogs_6_1().decide(x); }},
        {log_preset::xfsprogs_5_14, [](const fs_geometry& x) { return xfsprogs_5_14().decide(x); }},
        {log_preset::xfs_ratio_256, [](const fs_geometry& x) { return xfs_ratio_256().decide(x); }},
        {log_preset::xfs_floor_32m, [](const fs_geometry& x) { return xfs_floor_32m().decide(x); }},
        {log_preset::e2fsprogs_1_47, [](const fs_geometry& x) { return e2fsprogs_1_47().decide(x); }},
        {log_preset::xfsprogs_6_13, [](const fs_geometry& x) { return xfsprogs_6_13().decide(x); }},
        {log_preset::xfsprogs_7_2, [](const fs_geometry& x) { return xfsprogs_7_2().decide(x); }},
        {log_preset::xfsprogs_5_15, [](const fs_geometry& x) { return xfsprogs_5_15().decide(x); }},
    };
    CHECK(sizeof(by_hand) / sizeof(by_hand[0]) == log_preset_registry.size);
    for (const auto& h : by_hand) {
        CAPTURE(to_text(h.id));
        for (const fs_geometry& x : {g, small}) {
            const log_size_decision a = decide_log_size(h.id, x), b = h.decide(x);
            CHECK(a.log_blocks == b.log_blocks);
            CHECK(a.min_log_blocks == b.min_log_blocks);
            CHECK(a.reason == b.reason);
            CHECK(a.decided_by == b.decided_by);
        }
    }
}

TEST_CASE("extend: the *_config_of accessors answer from the registry, for every id") {
    CHECK(vdsm_config_of(extend_preset::vdsm_2022).value() == vdsm_2022().trigger().config);
    CHECK(vdsm_config_of(extend_preset::vdsm_legacy).value() == vdsm_legacy().trigger().config);
    CHECK(same(lvm_config_of(extend_preset::lvm_thin_autoextend).value(), lvm_thin_autoextend().trigger().config));
    CHECK(same(lvm_config_of(extend_preset::lvm_thin_default).value(), lvm_thin_default().trigger().config));
    CHECK(same(lvm_config_of(extend_preset::lvm_vdo_autoextend).value(),
               lvm_autoextend_config::make(lvm_threshold(70), lvm_percent(20), lvm_extent_size(4_MiB),
                                           lvm_chunk_size(64_KiB), lvm_volume_kind::vdo_pool)
                   .value()));
    CHECK(same(lvm_config_of(extend_preset::lvm_snapshot_autoextend).value(),
               lvm_autoextend_config::make(lvm_threshold(70), lvm_percent(20), lvm_extent_size(4_MiB),
                                           lvm_chunk_size(64_KiB), lvm_volume_kind::snapshot)
                   .value()));
    CHECK(same(lvm_config_of(extend_preset::docker_devicemapper).value(), docker_devicemapper()));
    for (extend_preset p :
         {extend_preset::stratis_data, extend_preset::stratis_metadata, extend_preset::stratis_filesystem,
          extend_preset::stratis_3_3_data, extend_preset::stratis_3_7_metadata, extend_preset::stratis_3_1_filesystem})
        CHECK(stratis_config_of(p).value() == stratis_data());
    for (extend_preset p :
         {extend_preset::stratis_3_0_data, extend_preset::stratis_3_0_metadata, extend_preset::stratis_3_0_filesystem})
        CHECK(stratis_config_of(p).value() == stratis_3_0());
    // Each preset is of exactly one kind (XenServer's of none of the three).
    for (const auto& e : extend_presets) {
        CAPTURE(std::string(e.name));
        const int kinds = static_cast<int>(vdsm_config_of(e.id).has_value()) +
                          static_cast<int>(lvm_config_of(e.id).has_value()) +
                          static_cast<int>(stratis_config_of(e.id).has_value());
        CHECK(kinds == (e.id == extend_preset::xenserver_thin_lvhd ? 0 : 1));
    }
    // The errors list the presets of the kind asked for, from the registry.
    CHECK(lvm_config_of(extend_preset::vdsm_2022, "--preset").error().message() ==
          "--preset: a VDSM preset is not an LVM configuration (expected one of lvm-thin-autoextend, lvm-thin-default, "
          "lvm-vdo-autoextend, lvm-snapshot-autoextend, docker-devicemapper)");
    CHECK(vdsm_config_of(extend_preset::stratis_data).error().message() ==
          "preset: a Stratis or XenServer preset is not a VDSM configuration (expected one of vdsm-2022, vdsm-legacy)");
    CHECK(stratis_config_of(extend_preset::vdsm_2022).error().message() ==
          "preset: not a Stratis preset (expected one of stratis-data, stratis-metadata, stratis-filesystem, "
          "stratis-3.0-data, stratis-3.0-metadata, stratis-3.0-filesystem, stratis-3.3-data, stratis-3.7-metadata, "
          "stratis-3.1-filesystem)");
    CHECK(stratis_part_of(extend_preset::xenserver_thin_lvhd).error().message() ==
          stratis_config_of(extend_preset::xenserver_thin_lvhd).error().message());
}

TEST_CASE("a registry knows when it holds every enumerator once") {
    enum class toy : unsigned char { a, b, c };
    constexpr auto one = [] { return 1; };
    constexpr int (*f)() = one;
    constexpr preset_registry whole{preset_def{toy::a, "a", "", "", f}, preset_def{toy::b, "b", "", "", f},
                                    preset_def{toy::c, "c", "", "", f}};
    constexpr preset_registry missing{preset_def{toy::a, "a", "", "", f}, preset_def{toy::c, "c", "", "", f}};
    constexpr preset_registry twice{preset_def{toy::a, "a", "", "", f}, preset_def{toy::a, "a2", "", "", f},
                                    preset_def{toy::c, "c", "", "", f}};
    static_assert(whole.holds_every_id_through(toy::c));
    static_assert(!missing.holds_every_id_through(toy::c));
    static_assert(!missing.holds_every_id_through(toy::b));
    static_assert(!twice.holds_every_id_through(toy::c));
    static_assert(!whole.holds_every_id_through(toy::b));
    CHECK(whole.visit(toy::b, [](int v) { return v + 1; }) == 2);
}

// The lists and the functions that visit a registry are compiled where they are used (registry.hpp's preset_list_of,
// the defaulted `Deferred` parameter): they still answer in constant expressions, and every read of a list is the
// same list of static storage duration (an unknown name's error keeps a pointer to it).
TEST_CASE("the preset lists and the deferred functions answer in constant expressions, from one list each") {
    static_assert(extend_preset_names.view().starts_with("vdsm-2022, vdsm-legacy, "));
    static_assert(log_preset_choices.view().starts_with("one of xfsprogs-7.2, "));
    static_assert(chunk_preset_names.size() + 7 == chunk_preset_choices.size());
    static_assert(*parse_extend_preset("lvm-thin-default") == extend_preset::lvm_thin_default);
    static_assert(*parse_log_preset("xfsprogs-5.15") == log_preset::xfsprogs_5_15);
    static_assert(*parse_chunk_preset("rsync") == chunk_tool::rsync);
    static_assert(vdsm_config_of(extend_preset::vdsm_legacy)->chunk_mb() == 1024);
    static_assert(lvm_config_of(extend_preset::docker_devicemapper)->threshold_as_written() == 80);
    static_assert(*stratis_part_of(extend_preset::stratis_3_7_metadata) == stratis_part::metadata);

    const preset_list& a = extend_preset_choices;
    const preset_list& b = extend_preset_choices.list();
    CHECK(&a == &b);
    const result<extend_preset> unknown = parse_extend_preset("vdsm-2023");
    REQUIRE_FALSE(unknown.has_value());
    CHECK(unknown.error().detail().data() == extend_preset_choices.c_str());
    CHECK(std::string(unknown.error().message().c_str()) ==
          "preset: unknown value 'vdsm-2023': expected " + std::string(extend_preset_choices.c_str()));
}

TEST_CASE("a registry handle reads as its registry and as its table, in constant expressions too") {
    // The handles are what the headers declare; the registry behind each is built where it is first read.
    static_assert(decltype(extend_preset_registry)::size == 17);
    static_assert(decltype(log_preset_registry)::size == log_preset_family::size);
    static_assert(chunk_preset_registry.table()[0].id == chunk_tool::xapi_redo_log_2010);
    static_assert(extend_presets[1].id == extend_preset::vdsm_legacy);
    static_assert(all_log_presets[0] == log_preset::xfsprogs_7_2);
    static_assert(all_log_presets.size() == log_presets.table().size());
    static_assert(text_view(to_text(extend_preset::stratis_3_7_metadata)) == "stratis-3.7-metadata");
    static_assert(&extend_preset_registry.registry().table() == &extend_presets.table());

    // Iterating the handle is iterating its table, entry for entry.
    std::size_t i = 0;
    for (const preset_info<log_preset>& e : log_presets) {
        CHECK(&e == &log_preset_registry.table()[i]);
        CHECK(all_log_presets[i] == e.id);
        ++i;
    }
    CHECK(i == log_preset_family::size);
    CHECK(std::string(preset_name(chunk_preset_table, chunk_tool::rsync)) == "rsync");
    CHECK(find_preset(extend_presets, extend_preset::docker_devicemapper) == &extend_presets[15]);
    CHECK(find_preset(extend_presets, "docker-devicemapper") == &extend_presets[15]);
    CHECK(ids_of(extend_presets)[15] == extend_preset::docker_devicemapper);
    CHECK(*parse_preset(log_presets, log_preset_choices, "e2fsprogs-1.47") == log_preset::e2fsprogs_1_47);
}
