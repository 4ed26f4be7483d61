// provpol-agent's event log (see event_log.hpp).
#include "event_log.hpp"

#include "posix.hpp"

#include "common/csv.hpp"
#include "common/table.hpp"

#include <cstring>
#include <string>

namespace provpol::agent {

namespace {

/// Seconds in the CSV: six decimals (microseconds).
std::string seconds_field(double s) {
    char b[64];
    std::snprintf(b, sizeof b, "%.6f", s);
    return b;
}
/// The same, or "" when not applicable (negative).
std::string optional_seconds_field(double s) { return s < 0 ? std::string() : seconds_field(s); }

}  // namespace

event_log::event_log(const std::string& csv_path) {
    if (csv_path.empty()) return;
    csv_ = std::fopen(csv_path.c_str(), "w");
    if (csv_ == nullptr) fail_errno("open " + csv_path);
    std::fputs(
        "time_s,event,allocation,physical,threshold,requested,lv_size,max_size,delay_s,free_s,rate,detail,drive\n",
        csv_);
}

event_log::~event_log() {
    if (csv_ != nullptr) std::fclose(csv_);
}

void event_log::add(const row& r, bool print) {
    if (csv_ != nullptr) {
        std::string line;
        cli::csv_writer w(line);
        w.field(seconds_field(r.time)).field(r.event);
        for (std::uint64_t v : {r.allocation, r.physical, r.threshold, r.requested, r.lv_size, r.max_size}) w.field(v);
        w.field(optional_seconds_field(r.delay)).field(optional_seconds_field(r.free_s)).field(r.rate).field(r.detail);
        w.field(static_cast<std::uint64_t>(r.drive < 0 ? 0 : r.drive));
        w.end_row();
        std::fputs(line.c_str(), csv_);
        std::fflush(csv_);
    }
    if (!print) return;
    std::string s;
    auto sz = [](std::uint64_t b) { return cli::human_size(bytes(b)); };
    auto add_size = [&](const char* k, std::uint64_t v) { s += std::string("  ") + k + " " + sz(v); };
    char t[64];
    if (r.drive >= 0)
        std::snprintf(t, sizeof t, "%9.3f  d%-2d %-18s", r.time, r.drive, r.event);
    else
        std::snprintf(t, sizeof t, "%9.3f  %-18s", r.time, r.event);
    s += t;
    if (r.allocation) add_size("allocation", r.allocation);
    if (r.physical) add_size("lv", r.physical);
    if (r.threshold) add_size("threshold", r.threshold);
    if (r.requested) add_size("request", r.requested);
    if (r.lv_size) add_size("lv-after", r.lv_size);
    if (r.delay >= 0) {
        std::snprintf(t, sizeof t, "  %s %.3f s", std::strcmp(r.event, "resume") == 0 ? "paused" : "delay", r.delay);
        s += t;
    }
    if (!r.detail.empty()) s += "  " + r.detail;
    std::printf("%s\n", s.c_str());
    std::fflush(stdout);
}

}  // namespace provpol::agent
