// provpol-agent's event log: every event of the run printed as a line, and written as CSV (--csv).
#ifndef PROVPOL_AGENT_EVENT_LOG_HPP
#define PROVPOL_AGENT_EVENT_LOG_HPP

#include <cstdint>
#include <cstdio>
#include <string>

namespace provpol::agent {

class event_log {
public:
    /// Writes the CSV header to `csv_path` (no CSV when it is empty).
    explicit event_log(const std::string& csv_path);
    event_log(const event_log&) = delete;
    event_log& operator=(const event_log&) = delete;
    ~event_log();

    /// One event. Sizes in bytes (0: not applicable), seconds as doubles (negative: not applicable).
    struct row {
        double time = 0;
        const char* event = "";
        std::uint64_t allocation = 0, physical = 0, threshold = 0, requested = 0, lv_size = 0, max_size = 0;
        double delay = -1, free_s = -1;
        std::uint64_t rate = 0;
        std::string detail;
        int drive = -1;  ///< the drive of a domain run (-1: the single-drive run, printed without it)
    };

    /// Writes the row to the CSV (flushed: a run that fails leaves its events), and prints it unless `print` is
    /// false (samples and the guest's lateness go to the CSV only).
    void add(const row& r, bool print = true);

private:
    std::FILE* csv_ = nullptr;
};

}  // namespace provpol::agent

#endif  // PROVPOL_AGENT_EVENT_LOG_HPP
