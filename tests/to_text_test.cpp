// Every public enum of the library has one way to be named: to_text(e), a NUL-terminated const char* that is safe
// with printf("%s"), distinct for each enumerator, and "unknown" (never null) for a value that is no enumerator.
// tests/cli/enum_names_test.sh checks that no public enum of include/provpol is missing from this list.
#include <provpol/extend/lvm_rate_aware.hpp>  // not in the extend umbrella: it takes times (<chrono>)
#include <provpol/extend/vdsm_sizes.hpp>
#include <provpol/models.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <type_traits>

using namespace provpol;

namespace {

// Names every value from first to last through printf("%s"), and checks them.
template <class E>
void check_names(const char* enum_name, E first, E last) {
    static_assert(std::is_same_v<decltype(to_text(first)), const char*>, "to_text returns const char*");
    CAPTURE(std::string(enum_name));
    std::set<std::string> seen;
    for (auto i = static_cast<unsigned>(first); i <= static_cast<unsigned>(last); ++i) {
        const E e = static_cast<E>(i);
        const char* name = to_text(e);
        REQUIRE(name != nullptr);
        CAPTURE(i);
        CAPTURE(std::string(name));
        char printed[128];
        const int n = std::snprintf(printed, sizeof printed, "%s", to_text(e));
        CHECK(n > 0);
        CHECK(std::string(printed) == name);
        CHECK(std::string(name) != "unknown");
        CHECK(std::strchr(name, ' ') == nullptr);
        CHECK(seen.insert(name).second);  // two enumerators never share a name
    }
    // One fallback for every enum: the value after the last enumerator is "unknown".
    const auto past = static_cast<E>(static_cast<unsigned>(last) + 1);
    CHECK(std::string(to_text(past)) == "unknown");
}

template <class E>
void check_unknown(E past_last) {
    const char* name = to_text(past_last);
    REQUIRE(name != nullptr);
    char printed[32];
    CHECK(std::snprintf(printed, sizeof printed, "%s", name) > 0);
}

}  // namespace

// to_text is constexpr where the enum is (the decisions' enums are named at compile time).
static_assert(to_text(io_mode::direct_dsync)[0] == 'd');
static_assert(to_text(rounding::up)[0] == 'u');
static_assert(to_text(xfsprogs_version::v6_13)[2] == '1');

TEST_CASE("every public enum names each value with to_text, usable with printf(\"%s\")") {
    check_names("observation_kind", observation_kind::sample, observation_kind::extended);
    check_names("rounding", rounding::down, rounding::up);
    check_names("io_mode", io_mode::buffered, io_mode::direct_dsync);
    check_names("chunk_step", chunk_step::default_size, chunk_step::max_transfer);
    check_names("chunk_tool", chunk_tool::xapi_redo_log_2010, chunk_tool::ovirt_imageio);
    check_names("domain_role", domain_role::monitor, domain_role::after);
    check_names("errc", errc::out_of_range, errc::arithmetic);
    check_names("error_value::kind", error_value::kind::none, error_value::kind::seconds);
    check_names("extend_preset", extend_preset::vdsm_2022, extend_preset::stratis_3_1_filesystem);
    check_names("lvm_volume_kind", lvm_volume_kind::thin_pool, lvm_volume_kind::snapshot);
    check_names("lvm_outcome", lvm_outcome::none, lvm_outcome::fails_extent_limit);
    check_names("stratis_outcome", stratis_outcome::none, stratis_outcome::skipped);
    check_names("docker_free_space", docker_free_space::ok, docker_free_space::low_metadata);
    check_names("extend_action", extend_action::none, extend_action::pause_improbable);
    check_names("vdsm_drive_type", vdsm_drive_type::block_cow, vdsm_drive_type::network);
    check_names("vdsm_physical_source", vdsm_physical_source::none, vdsm_physical_source::replica);
    check_names("vdsm_volume_format", vdsm_volume_format::cow, vdsm_volume_format::raw);
    check_names("vdsm_preallocation", vdsm_preallocation::sparse, vdsm_preallocation::preallocated);
    check_names("vdsm_merge_action", vdsm_merge_action::commit, vdsm_merge_action::at_maximum);
    check_names("vdsm_resize_action", vdsm_resize_action::grow, vdsm_resize_action::sparse_cow);
    check_names("latency_model::kind", latency_model::kind::flow, latency_model::kind::empirical);
    check_names("flow_stage_kind", flow_stage_kind::monitor, flow_stage_kind::reply_poll);
    check_names("flow_resend", flow_resend::never, flow_resend::after_timeout);
    check_names("log_preset", log_preset::xfsprogs_6_1, log_preset::xfsprogs_5_15);
    check_names("xfs_device", xfs_device::file, xfs_device::non_rotational);
    check_names("xfsprogs_version", xfsprogs_version::v6_1, xfsprogs_version::v7_2);
    check_names("topology_stripe_use", topology_stripe_use::used, topology_stripe_use::not_block_multiple);
    check_names("log_step", log_step::none, log_step::old_journal);
    check_names("log_reason", log_reason::none, log_reason::journal_too_big);
    check_names("vdsm_stage", vdsm_stage::total, vdsm_stage::refresh_destination_volume);
    check_names("vdsm_extend_record::kind", vdsm_extend_record::kind::none, vdsm_extend_record::kind::replica);
    check_names("vdsm_detection", vdsm_detection::none, vdsm_detection::event);
    check_names("vdsm_verdict", vdsm_verdict::explained, vdsm_verdict::stage_gap);
    check_names("xfs_trans_type", xfs_trans_type::write, xfs_trans_type::atomic_ioend);
    check_names("lvm_rate_aware_outcome", lvm_rate_aware_outcome::none, lvm_rate_aware_outcome::blocked);
    check_names("lvm_rate_aware_limit", lvm_rate_aware_limit::none, lvm_rate_aware_limit::extent_count);
    check_names("domain_request::state", domain_request::state::free, domain_request::state::at_spm);
    check_names("lvm_plan_outcome", lvm_plan_outcome::met, lvm_plan_outcome::extends);
    check_names("stratis_part", stratis_part::data, stratis_part::filesystem);
    check_names("stratis_release", stratis_release::v3_0, stratis_release::v3_1);
}

TEST_CASE("to_text of a value that is no enumerator is a printable name, never null") {
    check_unknown(static_cast<errc>(0));
    check_unknown(static_cast<io_mode>(200));
    check_unknown(static_cast<xfs_trans_type>(200));
    check_unknown(static_cast<domain_role>(200));
    CHECK(std::string(to_text(static_cast<errc>(0))) == "unknown");
    CHECK(std::string(to_text(static_cast<xfs_trans_type>(200))) == "unknown");
    CHECK(std::string(to_text(static_cast<vdsm_detection>(3))) == "unknown");
}

TEST_CASE("names that other tools or the CLI spell are spelled their way") {
    CHECK(std::string(to_text(io_mode::direct_dsync)) == "direct-dsync");
    CHECK(std::string(to_text(xfsprogs_version::v6_13)) == "6.13");
    CHECK(std::string(to_text(xfs_trans_type::create_tmpfile)) == "create_tmpfile");  // struct xfs_trans_resv's tr_
    CHECK(std::string(to_text(errc::not_a_power_of_two)) == "not_a_power_of_two");
    CHECK(std::string(to_text(chunk_step::default_size)) == "default");
}
