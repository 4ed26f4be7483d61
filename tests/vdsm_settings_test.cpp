// flow/vdsm_settings.hpp: VDSM 4.50's extend flow as its [mailbox] and [thinp] settings make it, against VDSM's
// code (lib/vdsm/storage/mailbox.py, lib/vdsm/virt/thinp.py at v4.50.6.1) and the built-in vdsm-immediate profile.
#include <provpol/flow/vdsm_settings.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

using namespace provpol;

namespace {

void same_stages(const flow_latency& a, const flow_latency& b) {
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        CAPTURE(i);
        const flow_stage &x = a.stage(i), &y = b.stage(i);
        CHECK(x.kind() == y.kind());
        CHECK(std::string(x.name().data(), x.name().size()) == std::string(y.name().data(), y.name().size()));
        if (x.kind() == flow_stage_kind::delay || x.kind() == flow_stage_kind::send) {
            CHECK(x.min() == y.min());
            CHECK(x.max() == y.max());
        } else {
            CHECK(x.period() == y.period());
            CHECK(x.drift() == y.drift());
        }
        CHECK(x.locked() == y.locked());
    }
    CHECK(a.resend() == b.resend());
    CHECK(a.resend_timeout() == b.resend_timeout());
}

}  // namespace

TEST_CASE("vdsm_flow_latency: VDSM 4.50's defaults are the vdsm-immediate profile, stage for stage") {
    const auto f = vdsm_flow_latency({});
    REQUIRE(f);
    same_stages(*f, vdsm_immediate_latency());
    CHECK(f->mean() == vdsm_immediate_latency().mean());
}

TEST_CASE("vdsm_flow_latency: events off, both sides wait the 2 s monitor interval; the extend is still immediate") {
    vdsm_flow_settings s;
    s.events_enable = false;
    s.events_interval = seconds(0.25);  // read by VDSM, used only with events on
    const auto f = vdsm_flow_latency(s);
    REQUIRE(f);
    CHECK(f->stage(0).kind() == flow_stage_kind::delay);  // the threshold event, not a 2 s watermark monitor
    CHECK(f->stage(2).kind() == flow_stage_kind::clock);
    CHECK(f->stage(2).period() == seconds(2));
    CHECK(f->stage(2).drift() == seconds(0.005));  // the profiles' SPM drift per 2 s scan
    CHECK(f->stage(5).kind() == flow_stage_kind::reply_poll);
    CHECK(f->stage(5).period() == seconds(2));
    CHECK(f->resend() == flow_resend::after_timeout);
    // Slower than the events flow, faster than the 2022 flow that waited for the watermark monitor too.
    CHECK(f->mean() > vdsm_immediate_latency().mean() + seconds(1));
    CHECK(f->mean() < vdsm_polling_2022_latency().mean());
}

TEST_CASE("vdsm_flow_latency: the SPM takes min(events_interval, 2 s), the host events_interval as it is") {
    vdsm_flow_settings s;
    s.events_interval = seconds(0.2);
    auto f = vdsm_flow_latency(s);
    REQUIRE(f);
    CHECK(f->stage(2).period() == seconds(0.2));
    CHECK(f->stage(5).period() == seconds(0.2));
    CHECK(f->mean() < vdsm_immediate_latency().mean());
    s.events_interval = seconds(5);  // SPM_MailMonitor caps it, HSM_MailMonitor does not
    f = vdsm_flow_latency(s);
    REQUIRE(f);
    CHECK(f->stage(2).period() == seconds(2));
    CHECK(std::string(f->stage(2).name().data(), f->stage(2).name().size()) == "SPM mailbox scan");
    CHECK(f->stage(5).period() == seconds(5));
}

TEST_CASE("vdsm_flow_latency: extend_timeout is the re-send timeout") {
    vdsm_flow_settings s;
    s.extend_timeout = seconds(7.5);
    const auto f = vdsm_flow_latency(s);
    REQUIRE(f);
    CHECK(f->resend() == flow_resend::after_timeout);
    CHECK(f->resend_timeout() == seconds(7.5));
}

TEST_CASE("vdsm_flow_latency: settings VDSM cannot run with are refused, naming the setting") {
    for (const double bad : {0.0, -1.0, 0.0009, 1e5, std::numeric_limits<double>::infinity(), std::nan("")}) {
        CAPTURE(bad);
        vdsm_flow_settings s;
        s.events_interval = seconds(bad);
        const auto f = vdsm_flow_latency(s);
        REQUIRE(!f);
        CHECK(f.error().setting() == text_view("events_interval"));
        s.events_enable = false;  // unused with events off
        CHECK(vdsm_flow_latency(s).has_value());
        s.events_enable = true;
        s.events_interval = seconds(0.5);
        s.extend_timeout = seconds(bad);
        if (bad <= 0.0 || !(bad < 1e5)) {
            const auto g = vdsm_flow_latency(s);
            REQUIRE(!g);
            CHECK(g.error().setting() == text_view("extend_timeout"));
        }
    }
    vdsm_flow_settings edge;
    edge.events_interval = seconds(0.001);
    CHECK(vdsm_flow_latency(edge).has_value());
}
