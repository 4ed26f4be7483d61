// provpol-agent: a VDSM-like agent that keeps a real thin qcow2 volume alive under a real writer, with provpol's
// policies deciding every extend, and the simulator's prediction for the same configuration next to the run.
//
// The stack, each part real and standing in for its production twin (see README.md, "End to end"):
//   LV             a loop device over a sparse file; lvextend = grow the file to the extent-rounded size, the
//                  host's refresh = LOOP_SET_CAPACITY
//   qcow2 volume   qemu-img create -f qcow2 on the loop device, opened by qemu-storage-daemon as host_device +
//                  qcow2 nodes (cache=none, aio=native, as oVirt opens block volumes), exported over NBD
//   libvirt        QMP: block-set-write-threshold on the host_device node, BLOCK_WRITE_THRESHOLD events,
//                  wr_highest_offset from query-blockstats as the allocation
//   the VM         a child process writing a known pattern through NBD at a controlled rate; ENOSPC pauses it
//                  until the agent resumes it after the extend
//   the SPM        an injected delay drawn from a provpol latency model, with the simulator's random stream, so
//                  that the simulator replays the same run (same seed, same latencies)
//
// Exit status: 0 success; 1 the run failed (including data that did not read back); 2 bad options; 77 this
// machine cannot run the stack (not root, no loop devices, no QEMU tools); 128 + N after signal N (clean-up done).
#include "common/cli.hpp"
#include "common/latency_option.hpp"
#include "common/table.hpp"
#include "guest.hpp"
#include "loop_device.hpp"
#include "posix.hpp"
#include "qmp.hpp"

#include <provpol/extend.hpp>
#include <provpol/latency.hpp>
#include <provpol/rate_aware.hpp>
#include <provpol/simulate.hpp>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <dirent.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

namespace provpol::agent {

namespace {

using cli::args;
using cli::human_size;
using cli::usage_error;

constexpr int exit_unavailable = 77;  // ctest's SKIP_RETURN_CODE in tests/e2e

/// The machine cannot run the stack: exit 77 with one line saying why.
struct unavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// ============================================================================================================
// Options

struct options {
    std::string label;  // "vdsm-legacy", "rate-aware/chunk-128MiB-50pct", ...
    vdsm_config config = vdsm_legacy().trigger().config;
    bool rate_aware = false;
    std::uint32_t budget_ms = 0;
    rate write_rate{};
    bytes write{};
    bytes capacity{};
    std::string latency_name;
    std::optional<latency_model> latency;
    std::uint64_t seed = 1;
    std::uint32_t runs = 1000;
    double monitor_interval = 2.0;
    bytes request{};
    std::string workdir = "/tmp";
    std::string csv_path, summary_path;
};

const char* const usage_text =
    "provpol-agent (--preset vdsm-legacy|vdsm-2022 | --chunk SIZE --percent N) [--extent SIZE]\n"
    "                     [--policy static|rate-aware [--budget-quantile Q]] --rate RATE --write SIZE [--capacity "
    "SIZE]\n"
    "                     [--latency PROFILE] [--seed N] [--runs N] [--workdir DIR] [--csv FILE] [--summary-csv FILE]\n"
    "       provpol-agent --check-environment [--workdir DIR]";

std::vector<cli::option> option_list() {
    return {
        {"--preset", "NAME", "the static configuration (or the rate-aware floor): vdsm-legacy (default) or vdsm-2022"},
        {"--chunk", "SIZE", "volume_utilization_chunk_mb as a size, e.g. 128MiB (with --percent)"},
        {"--percent", "N", "volume_utilization_percent, 0-99 (with --chunk)"},
        {"--extent", "SIZE", "the volume group's extent that lvextend rounds to (default 128MiB)"},
        {"--policy", "NAME", "static (default) or rate-aware"},
        {"--budget-quantile", "Q", "rate-aware: plan for this quantile of the latency, 0.5-1 (default 1)"},
        {"--rate", "RATE", "the guest's write rate when not paused, e.g. 50MiB/s"},
        {"--write", "SIZE", "how much the guest writes, sequentially from offset 0 (whole MiB)"},
        {"--capacity", "SIZE", "the disk's virtual size (default: --write)"},
        {"--latency", "PROFILE", cli::latency_spec_names + " (default vdsm-immediate)"},
        {"--seed", "N", "the seed of the injected extend latencies and of the paired simulation (default 1)"},
        {"--runs", "N", "simulated runs for the predicted distribution, 1-100000 (default 1000)"},
        {"--monitor-interval", "SECONDS", "the agent's monitor period when detection is immediate (default 2)"},
        {"--request-size", "SIZE", "the guest's write size, a divisor of 1MiB (default 256KiB)"},
        {"--workdir", "DIR", "where the scratch directory is made and removed (default /tmp)"},
        {"--csv", "FILE", "write every event as CSV"},
        {"--summary-csv", "FILE", "write the summary (measured and predicted) as CSV"},
        {"--check-environment", nullptr, "only check that this machine can run the stack (exit 0, or 77 and why)"}};
}

options parse_options(const args& a) {
    options o;
    const std::string policy = a.value("--policy").value_or("static");
    if (policy != "static" && policy != "rate-aware")
        throw usage_error("--policy: unknown value '" + args::printable(policy) + "': expected static or rate-aware");
    o.rate_aware = policy == "rate-aware";
    const bytes extent = a.size("--extent").value_or(bytes(std::uint64_t{128} << 20));
    std::string name = "vdsm-legacy";
    if (a.has("--chunk") || a.has("--percent")) {
        if (!a.has("--chunk") || !a.has("--percent")) throw usage_error("--chunk and --percent go together");
        if (a.has("--preset")) throw usage_error("give --preset or --chunk with --percent, not both");
        const auto c = vdsm_config::make_bytes(*a.size("--chunk"), *a.count("--percent", 0, 99), extent);
        if (!c) cli::fail(c.error(), "--chunk");
        o.config = *c;
        name = "chunk-" + std::to_string(c->chunk_mb()) + "MiB-" + std::to_string(c->percent()) + "pct";
    } else {
        name = a.value("--preset").value_or("vdsm-legacy");
        vdsm_config base = vdsm_legacy().trigger().config;
        if (name == "vdsm-2022")
            base = vdsm_2022().trigger().config;
        else if (name != "vdsm-legacy")
            throw usage_error("--preset: unknown value '" + args::printable(name) +
                              "': expected vdsm-legacy or vdsm-2022");
        const auto c = vdsm_config::make(base.chunk_mb(), base.percent(), extent);
        if (!c) cli::fail(c.error(), "--extent");
        o.config = *c;
    }
    o.label = (o.rate_aware ? "rate-aware/" : "") + name;
    const auto r = a.rate("--rate");
    if (!r) throw usage_error("--rate is required (e.g. --rate 50MiB/s)");
    if (r->bytes_per_second() < (std::uint64_t{1} << 20) || r->bytes_per_second() > (std::uint64_t{1} << 30))
        throw usage_error("--rate must be in [1MiB/s, 1GiB/s], got " + std::string(format_rate(*r).view()));
    o.write_rate = *r;
    const auto w = a.size("--write");
    if (!w) throw usage_error("--write is required (e.g. --write 1GiB)");
    if (w->count() == 0 || w->count() % (std::uint64_t{1} << 20) != 0 || w->count() > (std::uint64_t{64} << 30))
        throw usage_error("--write must be a whole number of MiB in [1MiB, 64GiB], got " +
                          std::string(format_size(*w).view()));
    o.write = *w;
    o.capacity = a.size("--capacity").value_or(o.write);
    if (o.capacity < o.write) throw usage_error("--capacity must be at least --write");
    if (o.capacity.count() > (std::uint64_t{1} << 40)) throw usage_error("--capacity must be at most 1TiB");
    o.latency_name = a.value("--latency").value_or("vdsm-immediate");
    {
        // latency_option reads --latency with the CLI's default; the agent's default is the immediate flow.
        std::vector<std::string> argv_store = {"--latency", o.latency_name};
        std::vector<char*> argv;
        for (auto& s : argv_store) argv.push_back(s.data());
        const args la("agent", "", {{"--latency", "PROFILE", ""}}, static_cast<int>(argv.size()), argv.data());
        o.latency = cli::latency_option(la);
    }
    o.seed = a.count("--seed", 0, ~std::uint64_t{0}).value_or(1);
    o.runs = static_cast<std::uint32_t>(a.count("--runs", 1, 100000).value_or(1000));
    o.monitor_interval = a.decimal("--monitor-interval", 0.1, 3600).value_or(2.0);
    o.request = a.size("--request-size").value_or(bytes(std::uint64_t{256} << 10));
    if (o.request.count() < 4096 || (std::uint64_t{1} << 20) % o.request.count() != 0)
        throw usage_error("--request-size must divide 1MiB and be at least 4KiB, got " +
                          std::string(format_size(o.request).view()));
    if (o.rate_aware) {
        const double q = a.decimal("--budget-quantile", 0.5, 1.0).value_or(1.0);
        o.budget_ms = std::max<std::uint32_t>(1, latency_budget_ms(*o.latency, q));
    } else if (a.has("--budget-quantile")) {
        throw usage_error("--budget-quantile goes with --policy rate-aware");
    }
    o.workdir = a.value("--workdir").value_or("/tmp");
    o.csv_path = a.value("--csv").value_or("");
    o.summary_path = a.value("--summary-csv").value_or("");
    return o;
}

// ============================================================================================================
// The scratch directory and the stack

/// A private directory under the work directory, removed with everything in it.
class scratch_dir {
public:
    explicit scratch_dir(const std::string& parent) {
        std::string t = parent + "/provpol-agent.XXXXXX";
        if (::mkdtemp(t.data()) == nullptr) fail_errno("mkdtemp in " + parent);
        path_ = t;
    }
    scratch_dir(const scratch_dir&) = delete;
    scratch_dir& operator=(const scratch_dir&) = delete;
    ~scratch_dir() {
        if (DIR* d = ::opendir(path_.c_str())) {
            while (dirent* e = ::readdir(d)) {
                const std::string n = e->d_name;
                if (n != "." && n != "..") ::unlink((path_ + "/" + n).c_str());
            }
            ::closedir(d);
        }
        ::rmdir(path_.c_str());
    }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

/// The tail of a file, for error messages (the daemon's log).
std::string tail_of(const std::string& file) {
    std::FILE* f = std::fopen(file.c_str(), "rb");
    if (f == nullptr) return "";
    std::string s;
    char buf[4096];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
    std::fclose(f);
    if (s.size() > 600) s = s.substr(s.size() - 600);
    while (!s.empty() && s.back() == '\n') s.pop_back();
    for (char& c : s)
        if (c == '\n') c = ' ';
    return s;
}

/// The whole stack: LV file, loop device, qcow2, qemu-storage-daemon with its NBD export and QMP monitor. The
/// members are destroyed in reverse order: QMP, daemon (stopped and reaped), loop device (detached), files.
class stack {
public:
    static constexpr const char* file_node = "file0";
    static constexpr const char* format_node = "disk0";

    stack(const std::string& workdir, bytes initial_size, bytes capacity) : dir_(workdir) {
        lv_file_ = dir_.path() + "/lv.img";
        {
            fd f(::open(lv_file_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
            if (!f) fail_errno("create " + lv_file_);
        }
        grow_file(lv_file_, initial_size.count());
        loop_ = loop_device::attach(lv_file_);
        const tool_result r =
            run_tool({"qemu-img", "create", "-q", "-f", "qcow2", loop_.path(), std::to_string(capacity.count())});
        if (r.code != 0) throw failure("qemu-img create failed: " + r.output);
        nbd_socket_ = dir_.path() + "/nbd.sock";
        const std::string qmp_socket = dir_.path() + "/qmp.sock";
        daemon_log_ = dir_.path() + "/daemon.log";
        fd log(::open(daemon_log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
        if (!log) fail_errno("create " + daemon_log_);
        // cache.direct=on, aio=native: how oVirt opens block volumes. cache.no-flush=on keeps QEMU's flushes (qcow2
        // sends them when it updates metadata) from reaching the loop device: its backing file lives in the host's
        // page cache, and each fsync wrote hundreds of MiB back to this machine's disk, stalling the guest for 0.3
        // to 0.8 s in the middle of a run (measured) - a stall a real LV on a SAN's write cache does not have.
        daemon_ = child::spawn(
            {"qemu-storage-daemon", "--blockdev",
             std::string("driver=host_device,node-name=") + file_node + ",filename=" + loop_.path() +
                 ",cache.direct=on,aio=native,cache.no-flush=on",
             "--blockdev", std::string("driver=qcow2,node-name=") + format_node + ",file=" + file_node, "--nbd-server",
             "addr.type=unix,addr.path=" + nbd_socket_, "--export",
             std::string("type=nbd,id=export0,node-name=") + format_node + ",name=" + format_node + ",writable=on",
             "--chardev", "socket,id=monitor0,path=" + qmp_socket + ",server=on,wait=off", "--monitor",
             "chardev=monitor0"},
            -1, log.get(), log.get());
        try {
            qmp_.emplace(qmp_socket, 10.0);
            // The NBD socket exists once the export is up (QMP answers after the command line is processed).
            struct stat st {};
            if (::stat(nbd_socket_.c_str(), &st) != 0) throw failure("the daemon has no NBD socket");
        } catch (const failure& e) {
            throw failure(std::string(e.what()) + "; daemon log: " + tail_of(daemon_log_));
        }
    }

    qmp_client& qmp() { return *qmp_; }
    loop_device& loop() { return loop_; }
    child& daemon() { return daemon_; }
    const std::string& dir() const { return dir_.path(); }
    const std::string& lv_file() const { return lv_file_; }
    const std::string& nbd_socket() const { return nbd_socket_; }
    std::string daemon_log() const { return tail_of(daemon_log_); }

    /// The allocation libvirt reports: wr_highest_offset of the host_device node.
    std::uint64_t allocation() {
        const json stats = qmp_->execute("query-blockstats", {{"query-nodes", true}});
        for (const json& s : stats)
            if (s.value("node-name", "") == file_node) return s["stats"]["wr_highest_offset"].get<std::uint64_t>();
        throw failure("query-blockstats: no node " + std::string(file_node));
    }

    /// Registers the write threshold on the host_device node and returns what QEMU reports holding.
    std::uint64_t set_threshold(std::uint64_t threshold) {
        qmp_->execute("block-set-write-threshold", {{"node-name", file_node}, {"write-threshold", threshold}});
        for (const json& n : qmp_->execute("query-named-block-nodes"))
            if (n.value("node-name", "") == file_node) return n.value("write_threshold", std::uint64_t{0});
        throw failure("query-named-block-nodes: no node " + std::string(file_node));
    }

    /// Stops the daemon through QMP (flushing the image) and waits for it.
    void stop_daemon() {
        if (!daemon_.running()) return;
        try {
            qmp_->execute("quit");
        } catch (const failure&) {
            // the daemon may close the monitor before answering
        }
        qmp_.reset();
        if (!daemon_.wait_for(10.0)) throw failure("qemu-storage-daemon did not stop");
        if (daemon_.exit_code() != 0)
            throw failure("qemu-storage-daemon exited with status " + std::to_string(daemon_.exit_code()) + ": " +
                          daemon_log());
    }

private:
    scratch_dir dir_;
    std::string lv_file_, nbd_socket_, daemon_log_;
    loop_device loop_;
    child daemon_;
    std::optional<qmp_client> qmp_;
};

// ============================================================================================================
// The event log: printed, and written as CSV

class event_log {
public:
    explicit event_log(const std::string& csv_path) {
        if (csv_path.empty()) return;
        csv_ = std::fopen(csv_path.c_str(), "w");
        if (csv_ == nullptr) fail_errno("open " + csv_path);
        std::fputs("time_s,event,allocation,physical,threshold,requested,lv_size,max_size,delay_s,free_s,rate,detail\n",
                   csv_);
    }
    event_log(const event_log&) = delete;
    event_log& operator=(const event_log&) = delete;
    ~event_log() {
        if (csv_ != nullptr) std::fclose(csv_);
    }

    /// One event. Sizes in bytes (0: not applicable), seconds as doubles (negative: not applicable).
    struct row {
        double time = 0;
        const char* event = "";
        std::uint64_t allocation = 0, physical = 0, threshold = 0, requested = 0, lv_size = 0, max_size = 0;
        double delay = -1, free_s = -1;
        std::uint64_t rate = 0;
        std::string detail;
    };

    void add(const row& r, bool print = true) {
        if (csv_ != nullptr) {
            std::fprintf(csv_, "%.6f,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
                         r.time, r.event, r.allocation, r.physical, r.threshold, r.requested, r.lv_size, r.max_size);
            if (r.delay >= 0) std::fprintf(csv_, "%.6f", r.delay);
            std::fputc(',', csv_);
            if (r.free_s >= 0) std::fprintf(csv_, "%.6f", r.free_s);
            std::fprintf(csv_, ",%" PRIu64 ",%s\n", r.rate, r.detail.c_str());
            std::fflush(csv_);
        }
        if (!print) return;
        std::string s;
        auto sz = [](std::uint64_t b) { return human_size(bytes(b)); };
        auto add_size = [&](const char* k, std::uint64_t v) { s += std::string("  ") + k + " " + sz(v); };
        char t[64];
        std::snprintf(t, sizeof t, "%9.3f  %-18s", r.time, r.event);
        s += t;
        if (r.allocation) add_size("allocation", r.allocation);
        if (r.physical) add_size("lv", r.physical);
        if (r.threshold) add_size("threshold", r.threshold);
        if (r.requested) add_size("request", r.requested);
        if (r.lv_size) add_size("lv-after", r.lv_size);
        if (r.delay >= 0) {
            std::snprintf(t, sizeof t, "  %s %.3f s", std::strcmp(r.event, "resume") == 0 ? "paused" : "delay",
                          r.delay);
            s += t;
        }
        if (!r.detail.empty()) s += "  " + r.detail;
        std::printf("%s\n", s.c_str());
        std::fflush(stdout);
    }

private:
    std::FILE* csv_ = nullptr;
};

// ============================================================================================================
// The run

/// What the run measured.
struct measured {
    std::uint32_t extends = 0, pauses = 0;
    double pause_seconds = 0, duration = 0;
    std::uint64_t final_physical = 0, initial_size = 0;
    double max_lateness = 0, achieved_rate = 0;
    double max_overhead = 0;  // the longest real extend time beyond the injected delay
    std::string check, verify;
};

/// The guest process and its pipes.
struct guest_process {
    child proc;
    fd to, from;
    std::optional<line_reader> reader;

    std::string read_line(double seconds) {
        const double deadline = monotonic_seconds() + seconds;
        std::string line;
        while (!reader->next(line)) {
            pollfd p{from.get(), POLLIN, 0};
            const int n = ::poll(&p, 1, 50);
            if (n < 0 && errno != EINTR) fail_errno("poll");
            check_signals();
            if (n > 0 && !reader->fill()) throw failure("the guest exited before it was ready");
            if (monotonic_seconds() > deadline) throw failure("the guest did not answer");
        }
        return line;
    }
};

guest_process start_guest(const options& o, const std::string& nbd_socket) {
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) fail_errno("pipe2");
    guest_process g;
    fd child_in(in[0]), child_out(out[1]);
    g.to = fd(in[1]);
    g.from = fd(out[0]);
    g.proc = child::spawn(
        {"/proc/self/exe", "guest", nbd_socket, stack::format_node, std::to_string(o.write_rate.bytes_per_second()),
         std::to_string(o.write.count()), std::to_string(o.request.count()), std::to_string(o.seed)},
        child_in.get(), child_out.get(), -1);
    g.reader.emplace(g.from.get());
    return g;
}

/// Whether an agent type exposes its rate estimate (the rate-aware agent does).
template <class A>
std::uint64_t estimate_of(const A& a) {
    if constexpr (std::is_same_v<A, rate_aware_agent>)
        return a.estimator().estimate().bytes_per_second();
    else
        return 0;
}

/// The failure to report when the daemon has exited under the agent: its exit status and the end of its log.
std::string daemon_exited(stack& s, const std::string& context) {
    const std::string log_tail = s.daemon_log();
    return "qemu-storage-daemon exited with status " + std::to_string(s.daemon().exit_code()) + " " + context +
           (log_tail.empty() ? "" : ": " + log_tail);
}

/// Drives the real stack with `agent` through provpol's extend_controller, the same flow code simulate_run runs, so
/// that the simulator with the same seed replays the same run by construction: the monitor's phase, the flow's
/// clocks and every extend's latency come from one stream, drawn in the same order, at the real event times.
template <class Agent, class Latency>
measured run_real(Agent agent, const Latency& latency, const options& o, stack& s, event_log& log) {
    measured m;
    extend_controller<Agent, Latency> c(std::move(agent), latency, o.capacity, o.monitor_interval, o.seed);
    const bytes extent = o.config.extent();
    if (c.initial_size().count() != s.loop().size())
        throw failure("the new LV has " + std::to_string(s.loop().size()) + " bytes, the agent's initial size is " +
                      std::to_string(c.initial_size().count()));
    m.initial_size = s.loop().size();
    bool paused = false, writing = true;
    double pause_start = 0, last_extend_done = -1e300;
    double t0 = 0;  // CLOCK_MONOTONIC of the guest's first write
    auto now = [&]() { return monotonic_seconds() - t0; };
    auto arm = [&](double t, bytes threshold_bytes) {
        const std::uint64_t threshold = threshold_bytes.count();
        const std::uint64_t held = s.set_threshold(threshold);
        if (held != threshold)
            throw failure("QEMU holds write threshold " + std::to_string(held) + ", not " + std::to_string(threshold));
        event_log::row r;
        r.time = t;
        r.event = "threshold-set";
        r.physical = c.physical();
        r.threshold = threshold;
        r.rate = estimate_of(c.agent());
        r.detail = "qemu-write-threshold=" + std::to_string(held);
        log.add(r);
    };
    // Logs the extend the controller requested (nothing when it requested none).
    auto requested = [&](const extend_in_flight* f, double t, std::uint64_t allocation, const std::string& why) {
        if (f == nullptr) return;
        event_log::row r;
        r.time = t;
        r.event = "extend-requested";
        r.allocation = allocation;
        r.physical = f->state.physical.count();
        r.threshold = f->decision.block_threshold.count();
        r.requested = f->decision.next_size.count();
        r.lv_size = f->decision.lv_size_after_extend.count();
        r.max_size = f->decision.max_size.count();
        r.delay = f->done_at - f->requested_at;
        // The time the guest needs, at the nominal rate, to fill what is free now: it pauses if the delay is longer.
        r.free_s = static_cast<double>(f->state.physical.count() > allocation ? f->state.physical.count() - allocation
                                                                              : 0) /
                   static_cast<double>(o.write_rate.bytes_per_second());
        r.rate = estimate_of(c.agent());
        r.detail = why;
        log.add(r);
    };

    guest_process g = start_guest(o, s.nbd_socket());
    {
        const std::string ready = g.read_line(10.0);
        if (ready.rfind("ready ", 0) != 0) throw failure("the guest could not open the disk: " + ready);
    }
    // The controller's monitor already ran before the write started: its last look saw the empty drive.
    arm(0.0, c.threshold(bytes(0)));
    write_all(g.to.get(), "go\n");
    {
        const std::string start = g.read_line(10.0);
        if (start.rfind("start ", 0) != 0) throw failure("the guest did not start: " + start);
        t0 = std::strtod(start.c_str() + 6, nullptr);
    }
    std::uint64_t total = 0;
    double paused_by_guest = 0;
    bool guest_open = true;

    // The guest resumes (VDSM's cont): the pause is over, its length logged.
    auto resume = [&](const char* why) {
        write_all(g.to.get(), "resume\n");
        paused = false;
        const double t_resume = now();
        m.pause_seconds += t_resume - pause_start;
        event_log::row rr;
        rr.time = t_resume;
        rr.event = "resume";
        rr.physical = c.physical();
        rr.delay = t_resume - pause_start;
        rr.detail = why;
        log.add(rr);
    };
    auto complete = [&](unsigned i) {
        const extend_in_flight f = c.flight(i);
        const std::uint64_t request = f.decision.next_size.count();
        // The SPM: lvextend rounds the request up to the extent; then the host refreshes the LV.
        const std::uint64_t lv = (request + extent.count() - 1) / extent.count() * extent.count();
        grow_file(s.lv_file(), lv);
        s.loop().refresh_capacity();
        const std::uint64_t real = s.loop().size();
        if (!extend_succeeded(bytes(request), bytes(real)))
            throw failure("extend to " + std::to_string(request) + " left the LV at " + std::to_string(real));
        const double t = now();
        m.max_overhead = std::max(m.max_overhead, t - f.done_at);
        last_extend_done = t;
        event_log::row r;
        r.time = t;
        r.event = "extend-done";
        r.physical = real;
        r.requested = request;
        r.lv_size = f.decision.lv_size_after_extend.count();
        r.delay = t - f.requested_at;
        char d[96];
        std::snprintf(d, sizeof d, "injected=%.3fs overhead=%.1fms", f.done_at - f.requested_at,
                      (t - f.done_at) * 1000.0);
        r.detail = d;
        log.add(r);
        // The threshold is re-registered from the device's real size, never the requested one.
        arm(t, c.completed(i, t, bytes(s.allocation()), bytes(real)));
        if (paused) resume("");
    };

    json ev;
    std::string line;
    while (writing || c.in_flight() > 0) {
        check_signals();
        // Due extends first (they complete at their time, as the SPM's reply arrives).
        while (c.in_flight() > 0 && c.next_done() <= now()) complete(c.first_done());
        if (writing && c.next_tick() <= now()) {  // the monitor wakes
            const double t = now();
            const std::uint64_t a = s.allocation();
            const extend_in_flight* f = c.tick(t, bytes(a));
            event_log::row r;
            r.time = t;
            r.event = "sample";
            r.allocation = a;
            r.physical = c.physical();
            r.rate = estimate_of(c.agent());
            log.add(r, false);
            requested(f, t, a, "on=monitor");
            if (paused && c.in_flight() == 0)
                throw failure("the guest paused on ENOSPC and the policy requests no extend (at its maximum?)");
        }
        // Events from QEMU.
        while (s.qmp().next_event(ev)) {
            if (ev["event"] != "BLOCK_WRITE_THRESHOLD" || ev["data"].value("node-name", "") != stack::file_node)
                continue;
            const double t = now();
            const std::uint64_t a =
                ev["data"]["write-threshold"].get<std::uint64_t>() + ev["data"]["amount-exceeded"].get<std::uint64_t>();
            const extend_in_flight* f = c.threshold_crossed(t, bytes(a));
            event_log::row r;
            r.time = t;
            r.event = "threshold-crossed";
            r.allocation = a;
            r.physical = c.physical();
            r.threshold = ev["data"]["write-threshold"].get<std::uint64_t>();
            log.add(r);
            // How long QEMU's event took to reach the agent (its timestamp is on the realtime clock).
            timespec rt{};
            clock_gettime(CLOCK_REALTIME, &rt);
            const double sent =
                ev["timestamp"].value("seconds", 0.0) + ev["timestamp"].value("microseconds", 0.0) * 1e-6;
            char why[64];
            std::snprintf(
                why, sizeof why, "on=threshold event-delay=%.6f",
                std::max(0.0, static_cast<double>(rt.tv_sec) + static_cast<double>(rt.tv_nsec) * 1e-9 - sent));
            requested(f, t, a, why);
        }
        // Messages from the guest.
        while (g.reader->next(line)) {
            if (line.rfind("pause ", 0) == 0) {
                const double tp = std::strtod(line.c_str() + 6, nullptr) - t0;
                const std::uint64_t a = s.allocation();
                ++m.pauses;
                event_log::row r;
                r.time = tp;
                r.event = "pause";
                r.allocation = a;
                r.physical = c.physical();
                unsigned long long off = 0;
                double issued = tp + t0, tpa = 0;
                if (std::sscanf(line.c_str() + 6, "%lf %llu %lf", &tpa, &off, &issued) != 3)
                    throw failure("the guest sent '" + line + "'");
                issued -= t0;
                char d[96];
                std::snprintf(d, sizeof d, "guest-offset=%llu write-issued=%.3f", off, issued);
                r.detail = d;
                log.add(r);
                paused = true;
                pause_start = tp;
                if (last_extend_done >= issued) {
                    // The write was sent while the LV still had its old size and failed after the extend
                    // completed: the space is there now, resume at once (VDSM resumes a VM whose drive no longer
                    // needs an extend).
                    resume("the extend completed while the failed write was in flight");
                    continue;
                }
                // The request is made at the pause's time, as the simulator makes it (the agent reads the guest's
                // message a few ms later; the injected latency counts from the pause).
                requested(c.paused(tp, bytes(a)), tp, a, "on=pause");
                if (c.decides_on_events() && c.in_flight() == 0)
                    throw failure("the guest paused on ENOSPC and the policy requests no extend (at its maximum?)");
            } else if (line.rfind("late ", 0) == 0) {
                double t_late = 0, late = 0;
                if (std::sscanf(line.c_str() + 5, "%lf %lf", &t_late, &late) != 2)
                    throw failure("the guest sent '" + line + "'");
                event_log::row r;
                r.time = t_late - t0;
                r.event = "guest-late";
                r.delay = late;
                log.add(r, false);
            } else if (line.rfind("done ", 0) == 0) {
                double t_done = 0;
                unsigned long long written = 0;
                if (std::sscanf(line.c_str() + 5, "%lf %llu %lf %lf", &t_done, &written, &m.max_lateness,
                                &paused_by_guest) != 4)
                    throw failure("the guest sent '" + line + "'");
                m.duration = t_done - t0;
                total = written;
                writing = false;
                const double busy = m.duration - paused_by_guest;
                m.achieved_rate = busy > 0 ? static_cast<double>(total) / busy : 0;
                event_log::row r;
                r.time = m.duration;
                r.event = "write-done";
                r.allocation = s.allocation();
                r.physical = c.physical();
                char d[96];
                std::snprintf(d, sizeof d, "rate=%.1fMiB/s max-lateness=%.1fms", m.achieved_rate / 1048576.0,
                              m.max_lateness * 1000.0);
                r.detail = d;
                log.add(r);
            } else {
                throw failure("the guest sent '" + line + "'");
            }
        }
        if (!writing && c.in_flight() == 0) break;
        // Sleep until the next deadline or something to read.
        const double deadline = std::min(writing ? c.next_tick() : 1e300, c.next_done());
        const double wait = deadline - now();
        // After "done", the guest's end of the pipe closes: stop watching it (poll ignores a negative fd).
        pollfd p[3] = {
            {s.qmp().get(), POLLIN, 0}, {guest_open ? g.from.get() : -1, POLLIN, 0}, {signal_fd(), POLLIN, 0}};
        const int n = ::poll(p, 3, wait <= 0 ? 0 : static_cast<int>(std::ceil(wait * 1000.0)));
        if (n < 0 && errno != EINTR) fail_errno("poll");
        if (n > 0) {
            if ((p[0].revents & (POLLIN | POLLHUP | POLLERR)) && !s.qmp().pump())
                throw failure("QMP: the daemon closed the monitor connection");
            if ((p[1].revents & (POLLIN | POLLHUP | POLLERR)) && !g.reader->fill()) {
                guest_open = false;
                if (!writing) continue;
                g.proc.wait_for(5.0);
                throw failure("the guest exited with status " + std::to_string(g.proc.exit_code()) +
                              (writing ? " before it finished writing" : ""));
            }
        }
        if (s.daemon().poll_exit()) throw failure(daemon_exited(s, "while the guest wrote"));
    }
    if (!g.proc.wait_for(10.0)) throw failure("the guest did not exit");
    if (g.proc.exit_code() != 0) throw failure("the guest exited with status " + std::to_string(g.proc.exit_code()));
    m.final_physical = c.physical();
    m.extends = c.extends();
    return m;
}

/// After the daemon stopped: qemu-img check, then every MiB read back through qemu-io (a separate QEMU process
/// reading the qcow2 image on the device) and compared with the pattern by qemu-io itself (read -P).
void verify(const options& o, stack& s, measured& m) {
    const tool_result check = run_tool({"qemu-img", "check", "-f", "qcow2", s.loop().path()});
    // 0: no errors; 3: leaked clusters only (a write that failed with ENOSPC may leak its clusters).
    if (check.code != 0 && check.code != 3) throw failure("qemu-img check found errors: " + check.output);
    m.check = check.code == 0 ? "no errors" : "leaked clusters only";
    std::vector<std::string> argv = {"qemu-io", "-r", "-t", "none", "-f", "qcow2", s.loop().path()};
    const std::uint64_t mibs = o.write.count() >> 20;
    for (std::uint64_t i = 0; i < mibs; ++i) {
        char cmd[96];
        std::snprintf(cmd, sizeof cmd, "read -q -P 0x%02x %" PRIu64 " 1048576", pattern_byte(i, o.seed), i << 20);
        argv.push_back("-c");
        argv.push_back(cmd);
    }
    const tool_result r = run_tool(argv);
    std::size_t failed = 0;
    for (std::size_t p = r.output.find("Pattern verification failed"); p != std::string::npos;
         p = r.output.find("Pattern verification failed", p + 1))
        ++failed;
    if (r.code != 0 || failed != 0 || r.output.find("fail") != std::string::npos)
        throw failure("data lost: " + std::to_string(failed) + " of " + std::to_string(mibs) +
                      " MiB did not read back as written: " + r.output.substr(0, 400));
    m.verify = std::to_string(mibs) + " MiB read back by qemu-io, all as written";
}

// ============================================================================================================
// The prediction and the summary

struct prediction {
    run_result paired;
    std::vector<double> pauses, pause_seconds, extends, final_physical;
    static double quantile(std::vector<double> v, double q) {
        std::sort(v.begin(), v.end());
        const std::size_t i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
        return v[std::min(v.size() - 1, i == 0 ? 0 : i - 1)];
    }
    static double mean(const std::vector<double>& v) {
        double s = 0;
        for (double x : v) s += x;
        return v.empty() ? 0 : s / static_cast<double>(v.size());
    }
};

template <class Agent, class Latency>
prediction predict(const Agent& agent, const Latency& latency, const options& o) {
    const auto w = workload::make(o.write, o.write_rate, o.capacity, o.monitor_interval);
    if (!w) throw usage_error(std::string(w.error().message().view()));
    prediction p;
    p.paired = simulate_run(agent, latency, *w, o.seed);
    for (std::uint32_t i = 0; i < o.runs; ++i) {
        // Other seeds than the paired run's: the distribution of runs under the model.
        const std::uint64_t seed = o.seed < ~std::uint64_t{0} - o.runs ? o.seed + 1 + i : o.seed - 1 - i;
        const run_result r = simulate_run(agent, latency, *w, seed);
        p.pauses.push_back(r.pauses);
        p.pause_seconds.push_back(r.pause_seconds);
        p.extends.push_back(r.extends);
        p.final_physical.push_back(static_cast<double>(r.final_physical.count()));
    }
    return p;
}

void summarize(const options& o, const measured& m, const prediction& p) {
    std::printf("\nsummary: %s, %s written at %s, latency %s, seed %" PRIu64 "\n", o.label.c_str(),
                human_size(o.write).c_str(), format_rate(o.write_rate).c_str(), o.latency_name.c_str(), o.seed);
    std::printf("%-22s %10s %18s   %s\n", "", "measured", "simulated, seed", "simulated runs: mean [0.5%, 99.5%]");
    auto line = [&](const char* name, const std::string& meas, const std::string& paired, const std::vector<double>& v,
                    const char* fmt) {
        char d[128], q[3][32];
        std::snprintf(q[0], sizeof q[0], fmt, prediction::mean(v));
        std::snprintf(q[1], sizeof q[1], fmt, prediction::quantile(v, 0.005));
        std::snprintf(q[2], sizeof q[2], fmt, prediction::quantile(v, 0.995));
        std::snprintf(d, sizeof d, "%s [%s, %s] (%u runs)", q[0], q[1], q[2], o.runs);
        std::printf("%-22s %10s %18s   %s\n", name, meas.c_str(), paired.c_str(), d);
    };
    auto num = [](double v, const char* fmt) {
        char b[32];
        std::snprintf(b, sizeof b, fmt, v);
        return std::string(b);
    };
    line("extends", num(m.extends, "%.0f"), num(p.paired.extends, "%.0f"), p.extends, "%.2f");
    line("pauses", num(m.pauses, "%.0f"), num(p.paired.pauses, "%.0f"), p.pauses, "%.2f");
    line("total pause time (s)", num(m.pause_seconds, "%.3f"), num(p.paired.pause_seconds, "%.3f"), p.pause_seconds,
         "%.3f");
    std::vector<double> mib;
    for (double b : p.final_physical) mib.push_back(b / 1048576.0);
    line("final LV size (MiB)", num(static_cast<double>(m.final_physical >> 20), "%.0f"),
         num(static_cast<double>(p.paired.final_physical.count() >> 20), "%.0f"), mib, "%.0f");
    std::printf("%-22s %10s %18s\n", "write time (s)", num(m.duration, "%.3f").c_str(),
                num(p.paired.duration, "%.3f").c_str());
    std::printf(
        "\nguest: %.1f MiB/s when not paused (nominal %.1f), at most %.1f ms behind schedule; extend overhead beyond "
        "the "
        "injected delay: at most %.1f ms\n",
        m.achieved_rate / 1048576.0, o.write_rate.mib_per_second(), m.max_lateness * 1000.0, m.max_overhead * 1000.0);
    std::printf("image: qemu-img check: %s; data: %s\n", m.check.c_str(), m.verify.c_str());

    if (o.summary_path.empty()) return;
    std::FILE* f = std::fopen(o.summary_path.c_str(), "w");
    if (f == nullptr) fail_errno("open " + o.summary_path);
    std::fprintf(f, "metric,measured,simulated_seed,simulated_mean,simulated_q005,simulated_q995,runs\n");
    auto row = [&](const char* name, double meas, double paired, const std::vector<double>& v) {
        std::fprintf(f, "%s,%.6f,%.6f,%.6f,%.6f,%.6f,%u\n", name, meas, paired, prediction::mean(v),
                     prediction::quantile(v, 0.005), prediction::quantile(v, 0.995), o.runs);
    };
    row("extends", m.extends, p.paired.extends, p.extends);
    row("pauses", m.pauses, p.paired.pauses, p.pauses);
    row("pause_seconds", m.pause_seconds, p.paired.pause_seconds, p.pause_seconds);
    row("final_lv_size", static_cast<double>(m.final_physical), static_cast<double>(p.paired.final_physical.count()),
        p.final_physical);
    std::fprintf(f, "duration_s,%.6f,%.6f,,,,\n", m.duration, p.paired.duration);
    std::fprintf(f, "achieved_rate,%.1f,%.1f,,,,\n", m.achieved_rate,
                 static_cast<double>(o.write_rate.bytes_per_second()));
    std::fprintf(f, "max_lateness_s,%.6f,,,,,\n", m.max_lateness);
    std::fprintf(f, "max_extend_overhead_s,%.6f,,,,,\n", m.max_overhead);
    std::fprintf(f, "initial_size,%" PRIu64 ",%" PRIu64 ",,,,\n", m.initial_size, p.paired.initial_size.count());
    std::fprintf(f, "limit,%" PRIu64 ",,,,,\n", o.config.limit(false).count());
    std::fprintf(f, "verified_mib,%" PRIu64 ",,,,,\n", o.write.count() >> 20);
    std::fclose(f);
}

template <class Agent>
int run_with(const Agent& agent, const options& o) {
    const bytes initial = agent.initial_size(o.capacity);
    std::printf(
        "provpol-agent: %s, capacity %s, new LV %s, limit %s, extent %s; guest writes %s at %s; latency %s (%s); seed "
        "%" PRIu64 "\n",
        o.label.c_str(), human_size(o.capacity).c_str(), human_size(initial).c_str(),
        human_size(o.config.limit(false)).c_str(), human_size(o.config.extent()).c_str(), human_size(o.write).c_str(),
        format_rate(o.write_rate).c_str(), o.latency_name.c_str(), cli::describe(*o.latency).c_str(), o.seed);
    measured m;
    {
        stack s(o.workdir, initial, o.capacity);
        std::printf("stack: %s over %s, qemu-storage-daemon pid %d, NBD %s\n", s.loop().path().c_str(),
                    s.lv_file().c_str(), static_cast<int>(s.daemon().pid()), s.nbd_socket().c_str());
        std::fflush(stdout);
        event_log log(o.csv_path);
        try {
            m = run_real(agent, *o.latency, o, s, log);
        } catch (const failure& e) {
            // A daemon that dies under the agent breaks the guest's NBD connection and the QMP socket in whatever
            // order the kernel closes them, so the agent may first notice a consequence (the guest failing, a
            // QMP command unanswered): name the cause whichever came first. The 0.5 s covers the moment between
            // the sockets closing and the dead daemon becoming reapable; it is spent only on a failure.
            const std::string seen = e.what();
            if (seen.rfind("qemu-storage-daemon exited", 0) != 0 && s.daemon().wait_for(0.5, false))
                throw failure(daemon_exited(s, "(the agent saw: " + seen + ")"));
            throw;
        }
        s.stop_daemon();
        verify(o, s, m);
    }  // the stack is torn down here: daemon reaped, loop device detached, files removed
    const prediction p = predict(agent, *o.latency, o);
    summarize(o, m, p);
    return 0;
}

int check_environment(const std::string& workdir) {
    if (::geteuid() != 0) throw unavailable("needs root (loop devices, and QEMU opening them)");
    for (const char* tool : {"qemu-storage-daemon", "qemu-img", "qemu-io"}) {
        const tool_result r = run_tool({tool, "--version"});
        if (r.code != 0)
            throw unavailable(std::string(tool) + " is not available (Debian: qemu-system-common and qemu-utils)");
    }
    if (::access("/dev/loop-control", R_OK | W_OK) != 0)
        throw unavailable("no /dev/loop-control: loop devices are unavailable");
    scratch_dir dir(workdir);
    const std::string file = dir.path() + "/probe.img";
    {
        fd f(::open(file.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
        if (!f) fail_errno("create " + file);
    }
    grow_file(file, std::uint64_t{1} << 20);
    try {
        loop_device d = loop_device::attach(file);
        if (d.size() != (std::uint64_t{1} << 20)) throw unavailable("a loop device reports the wrong size");
    } catch (const failure& e) {
        throw unavailable(std::string("loop devices are unavailable: ") + e.what());
    }
    return 0;
}

int run(int argc, char** argv) {
    const args a("agent", usage_text, option_list(), argc, argv, 1);
    install_signal_handlers();
    if (a.has("--check-environment")) {
        check_environment(a.value("--workdir").value_or("/tmp"));
        std::printf("provpol-agent: this machine can run the stack (root, loop devices, qemu-storage-daemon)\n");
        return 0;
    }
    const options o = parse_options(a);
    check_environment(o.workdir);
    if (o.rate_aware) {
        const auto policy = make_rate_aware_policy(o.config, o.budget_ms);
        if (!policy) cli::fail(policy.error(), "--budget-quantile");
        return run_with(rate_aware_agent(*policy), o);
    }
    return run_with(static_agent<vdsm_policy>(make_vdsm_policy(o.config)), o);
}

}  // namespace

}  // namespace provpol::agent

int main(int argc, char** argv) {
    using namespace provpol::agent;
    if (argc > 1 && std::strcmp(argv[1], "guest") == 0) return run_guest(argc, argv);
    try {
        return run(argc, argv);
    } catch (const provpol::cli::help_request& h) {
        std::string text = h.text;
        for (std::size_t p; (p = text.find("provpol agent")) != std::string::npos;)
            text.replace(p, 13, "provpol-agent");
        std::fputs(text.c_str(), stdout);
        return 0;
    } catch (const provpol::cli::usage_error& e) {
        std::string msg = e.what();
        for (std::size_t p; (p = msg.find("provpol agent")) != std::string::npos;) msg.replace(p, 13, "provpol-agent");
        std::fprintf(stderr, "provpol-agent: %s\n", msg.c_str());
        return 2;
    } catch (const unavailable& e) {
        std::fprintf(stderr, "provpol-agent: skipped: %s\n", e.what());
        return exit_unavailable;
    } catch (const interrupted& e) {
        std::fprintf(stderr, "provpol-agent: %s; cleaned up\n", e.what());
        return 128 + e.signal;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "provpol-agent: %s\n", e.what());
        return 1;
    }
}
