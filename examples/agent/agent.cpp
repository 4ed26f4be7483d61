// provpol-agent: a VDSM-like agent that keeps a real thin qcow2 volume alive under a real writer, with provpol's
// policies deciding every extend, and the simulator's prediction for the same configuration next to the run.
//
// The stack, each part real and standing in for its production twin (see docs/agent.md):
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
//
// The code, by role: options.cpp (the command line), stack.cpp (the block stack), event_log.cpp (every event,
// printed and as CSV), driver.cpp (the guest and the agent's loop), report.cpp (the prediction and the summary),
// domain_driver.cpp and domain_report.cpp (the same for --drives N: N drives sharing one mailbox and one SPM);
// this file runs them in order and maps failures to the exit status.
#include "domain_driver.hpp"
#include "domain_report.hpp"
#include "driver.hpp"
#include "event_log.hpp"
#include "guest.hpp"
#include "loop_device.hpp"
#include "lvm_driver.hpp"
#include "options.hpp"
#include "posix.hpp"
#include "report.hpp"
#include "stack.hpp"

#include "common/cli.hpp"
#include "common/latency_option.hpp"
#include "common/table.hpp"

#include <provpol/extend.hpp>
#include <provpol/flow/latency.hpp>
#include <provpol/simulate.hpp>
#include <provpol/simulate/rate_aware.hpp>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace provpol::agent {

namespace {

using cli::args;
using cli::human_size;

constexpr int exit_unavailable = 77;  // ctest's SKIP_RETURN_CODE in tests/e2e

/// The machine cannot run the stack: exit 77 with one line saying why.
struct unavailable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

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

/// A domain run (--drives): every drive gets a copy of `agent`; the report sets simulate_domain beside it.
template <class Agent>
int run_domain_with(const Agent& agent, const options& o) {
    const bytes initial = agent.initial_size(o.capacity);
    std::printf(
        "provpol-agent: %u drives on one host, one SPM; %s, capacity %s, new LV %s, limit %s, extent %s; each guest "
        "writes %s at %s, drive d from d x %.2f s; latency %s (%s); seed %" PRIu64 "\n",
        o.drives, o.label.c_str(), human_size(o.capacity).c_str(), human_size(initial).c_str(),
        human_size(o.config.limit(false)).c_str(), human_size(o.config.extent()).c_str(), human_size(o.write).c_str(),
        format_rate(o.write_rate).c_str(), o.stagger.count(), o.latency_name.c_str(), cli::describe(*o.latency).c_str(),
        o.seed);
    domain_measured m;
    {
        stack s(o.workdir, initial, o.capacity, o.drives);
        std::printf("stack: %u loop devices (%s ...) over %s/lv*.img, qemu-storage-daemon pid %d, NBD %s\n", o.drives,
                    s.loop(0).path().c_str(), s.dir().c_str(), static_cast<int>(s.daemon().pid()),
                    s.nbd_socket().c_str());
        std::fflush(stdout);
        event_log log(o.csv_path);
        try {
            m = run_domain(agent, *o.latency, o, s, log);
        } catch (const failure& e) {
            const std::string seen = e.what();  // as in run_with: name the daemon when it died first
            if (seen.rfind("qemu-storage-daemon exited", 0) != 0 && s.daemon().wait_for(0.5, false))
                throw failure(daemon_exited(s, "(the agent saw: " + seen + ")"));
            throw;
        }
        s.stop_daemon();
        for (unsigned d = 0; d < o.drives; ++d) {
            const verified v = verify_image(s.loop(d).path(), o.write, o.seed + d);
            m.drives[d].check = v.check;
            m.drives[d].verify = v.verify;
        }
    }  // the stack is torn down here: daemon reaped, loop devices detached, files removed
    summarize_domain(o, m, predict_domain(agent, *o.latency, o));
    return 0;
}

/// An --lvm run: the drives on real LVs of the VG, extended by lvm2 itself; the report is the measurement alone
/// (no latency is injected, so there is no same-seed simulation to set beside it: tests/e2e/agent_lvm_test.sh
/// compares it with provpol plan on the measured service times).
template <class Agent>
int run_lvm_with(const Agent& agent, const options& o) {
    const bytes initial = agent.initial_size(o.capacity);
    std::printf(
        "provpol-agent: %u drives on real LVs in VG %s; %s, capacity %s, new LV %s, limit %s, extent %s; each guest "
        "writes %s at %s, drive d from d x %.2f s\n",
        o.drives, o.lvm_vg.c_str(), o.label.c_str(), human_size(o.capacity).c_str(), human_size(initial).c_str(),
        human_size(o.config.limit(false)).c_str(), human_size(o.config.extent()).c_str(), human_size(o.write).c_str(),
        format_rate(o.write_rate).c_str(), o.stagger.count());
    lvm_measured m;
    {
        lvm_volumes lvs(o.lvm_vg, o.drives, initial);
        stack s(o.workdir, o.capacity, lvs.devices());
        if (!s.restart_note().empty())
            std::printf("stack: qemu-storage-daemon restarted: %s\n", s.restart_note().c_str());
        std::printf("stack: %u LVs (%s ...), qemu-storage-daemon pid %d, NBD %s\n", o.drives, s.device(0).c_str(),
                    static_cast<int>(s.daemon().pid()), s.nbd_socket().c_str());
        std::fflush(stdout);
        event_log log(o.csv_path);
        try {
            m = run_lvm(agent, o, s, lvs, log);
        } catch (const failure& e) {
            const std::string seen = e.what();  // as in run_with: name the daemon when it died first
            if (seen.rfind("qemu-storage-daemon exited", 0) != 0 && s.daemon().wait_for(0.5, false))
                throw failure(daemon_exited(s, "(the agent saw: " + seen + ")"));
            throw;
        }
        s.stop_daemon();
        for (unsigned d = 0; d < o.drives; ++d) {
            const verified v = verify_image(s.device(d), o.write, o.seed + d);
            m.drives[d].check = v.check;
            m.drives[d].verify = v.verify;
        }
    }  // the daemon is reaped and the LVs removed here
    report_lvm(o, m);
    return 0;
}

/// What --lvm needs: root, the QEMU tools, lvm2, and the VG.
void check_lvm_environment(const std::string& vg) {
    if (::geteuid() != 0) throw unavailable("--lvm needs root (lvm2, and QEMU opening the LVs)");
    for (const char* tool : {"qemu-storage-daemon", "qemu-img", "qemu-io"})
        if (run_tool({tool, "--version"}).code != 0)
            throw unavailable(std::string(tool) + " is not available (Debian: qemu-system-common and qemu-utils)");
    if (run_tool({"lvm", "version"}).code != 0) throw unavailable("lvm2 is not available (Debian: lvm2)");
    const tool_result r = run_tool({"vgs", "--noheadings", "-o", "vg_name", vg});
    if (r.code != 0) throw failure("--lvm: no volume group " + vg + ": " + r.output);
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
    cli::flush_warnings();  // every option read: what they warned of (e.g. a log's malformed lines) is said now
    if (!o.lvm_vg.empty()) {
        check_lvm_environment(o.lvm_vg);
        return run_lvm_with(static_agent<vdsm_policy>(make_vdsm_policy(o.config)), o);
    }
    check_environment(o.workdir);
    if (o.rate_aware) {
        const auto policy = make_rate_aware_policy(o.config, o.budget);
        if (!policy) cli::fail(policy.error(), "--budget-quantile");
        if (o.drives > 0) return run_domain_with(rate_aware_agent(*policy), o);
        return run_with(rate_aware_agent(*policy), o);
    }
    if (o.drives > 0) return run_domain_with(static_agent<vdsm_policy>(make_vdsm_policy(o.config)), o);
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
