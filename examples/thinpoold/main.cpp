// provpol-thinpoold: watches one LVM thin pool and extends it before it fills, from the fill rate it observes and
// the time lvextend takes (include/provpol/extend/lvm_rate_aware.hpp decides; thinpoold.hpp is the loop). The
// system is reached here only, through system.hpp: commands run bounded in their own process groups, the status
// read with `dmsetup status` or the DM_TABLE_STATUS ioctl, the monotonic clock, the stop signals, the pool's lock,
// its state file, the metrics file and the log.
#include "options.hpp"
#include "system.hpp"
#include "thinpoold.hpp"

#include <provpol/config.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace {

using namespace provpol;
namespace tp = provpol::thinpoold;

const char* const usage_text =
    R"(usage: provpol-thinpoold --vg VG --pool POOL [options]
       provpol-thinpoold --config FILE [options]
Watches one LVM thin pool and runs `lvextend -L+SIZE -- VG/POOL` before it fills: every --interval it reads the
pool's status (used and total data blocks), estimates the fill rate (the rate over the last --rate-window, or the
previous estimate decayed with --half-life, whichever is higher), and extends when the free space falls under
  the floor + rate x lead,   lead = --lead-factor x max(--lvextend-time, the longest lvextend seen) + --margin
(or the pool is full; the rate is the estimate, or --burst-rate when that is higher), by the fewest whole extents
that leave the floor and the rate's lead + --horizon free,
never past --max-pool-size, never taking more of the VG than --max-vg-take (data and the metadata lvm2 grows with
it) nor more than the VG has. Every lvextend is read back with lvs, whatever its exit status: what the pool grew
by counts against the caps, an extend that grew less than asked is a failure, failures back off (the interval
doubled per failure, up to 60 s) and three in a row hand the pool back to dmeventd. What it took of the VG, and
whether it turned dmeventd's monitoring off, are kept in --state-dir across restarts.

options:
  --vg VG, --pool POOL     the thin pool (required; names as lvm2 accepts them)
  --config FILE            settings, one `name = value` a line, the options' names without "--" (a flag: yes or
                           no); the command line wins (the unit reads /etc/provpol/thinpoold/VG-POOL.conf)
  --dm-name NAME           its device-mapper device (default VG-POOL-tpool, else VG-POOL; its UUID must be the
                           pool's)
  --interval TIME          between samples; [0.01, 3600] s (default 1s)
  --max-pool-size SIZE     the pool's data is never grown past it (default: twice its size when first seen)
  --max-vg-take SIZE       the most VG space the daemon allocates in all, across restarts (default: the pool's size
                           when first seen)
  --min-free SIZE|N%       the floor: free data space kept, a size or a percent of the pool (0 to 50; default 10%)
  --burst-rate RATE        the rate the pool is kept ready for before it is seen (a restore, a VM's first boot):
                           the lead and horizon at this rate are kept free, less when lvextend is quick (default 0)
  --lead-factor K          [1, 100] (default 2)
  --margin TIME            added to the lead; [0, 3600] s (default: the interval)
  --horizon TIME           the free space an extend leaves, in seconds at the rate; [0.1, 86400] s (default 30s)
  --lvextend-time TIME     lvextend's time, an upper bound; [0, 3600] s (default 1s)
  --half-life TIME         how fast the rate estimate falls; [0.1, 86400] s (default 30s)
  --rate-window TIME       the rate is measured over at least this (a 1 MiB write in 50 ms reads as 20 MiB/s);
                           [0, 3600] s (default 1s)
  --min-extend SIZE        the smallest extend (default one extent)
  --metadata-threshold N   with dmeventd's monitoring off, the metadata is grown by lvm2's own rule with this
  --metadata-percent N     thin_pool_autoextend_threshold and _percent (default: lvm.conf's, as lvmconfig reports
                           them with the pool's profile; lvm2's default threshold, 100, leaves it off)
  --command-timeout TIME   each command's bound: then SIGTERM to its process group, SIGKILL 5 s later;
                           [0.1, 3600] s (default 30s)
  --status dmsetup|ioctl   read the status with `dmsetup status` (default) or the DM_TABLE_STATUS ioctl (no fork)
  --lvm-shell yes|no       run lvm2's commands in one long-lived `lvm` shell (default yes): no fork, exec and
                           loading of lvm2 per lvextend, as dmeventd runs lvm2 in its own process
  --take-over              turn dmeventd's monitoring of the pool off (lvchange --monitor n) while running, and
                           back on at every exit the daemon sees; without it dmeventd stays on as the backstop
  --state-dir DIR          where the pool's state is kept (default /var/lib/provpol-thinpoold)
  --lock-dir DIR           where the pool's lock is taken: one daemon per pool (default /run/lock/provpol-thinpoold)
  --metrics-file FILE      the pool's metrics, in node_exporter's textfile format, replaced atomically
  --reset-state            start the accounting of what was taken over (a deliberate act: the caps start again)
  --restore                only give dmeventd's monitoring back if a daemon turned it off and did not (the
                           unit's ExecStopPost=), then exit
  --dry-run                run no lvextend or lvchange and write no state: print what would be run
  --once                   two samples one interval apart, one decision, then exit
  --version                print the version and exit
  -h, --help               this text
Exit status: 0 stopped by SIGTERM, SIGINT, SIGHUP or SIGQUIT (or --once done), the pool as safe as it was found;
1 the pool, its device or its state could not be read or checked, another daemon holds the pool, or a fatal error;
2 bad input; 3 dmeventd's monitoring, turned off by the daemon, could not be turned back on.
Log: one line per decision that extends or changes outcome, per lvextend and per failure; on a stream systemd
connects to the journal, each line carries its syslog priority as sd-daemon's <N> prefix.
)";

struct logger {
    bool out_journal = tp::sys::is_journal_stream(1), err_journal = tp::sys::is_journal_stream(2);
    void operator()(tp::priority p, const std::string& line) const {
        const bool err = p <= tp::priority::warning;
        const bool journal = err ? err_journal : out_journal;
        // The journal names the unit and stamps the time: a priority prefix only. Elsewhere, the program's name.
        const std::string prefix =
            journal ? "<" + std::to_string(static_cast<int>(p)) + ">" : std::string("thinpoold: ");
        std::fprintf(err ? stderr : stdout, "%s%s\n", prefix.c_str(), line.c_str());
    }
};

}  // namespace

int main(int argc, char** argv) {
    tp::options o;
    try {
        const tp::action a = tp::parse_options(argc, argv, o);
        if (a == tp::action::help) return std::fputs(usage_text, stdout) < 0 ? 1 : 0;
        if (a == tp::action::version) return std::printf("provpol-thinpoold %s\n", PROVPOL_VERSION_STRING) < 0 ? 1 : 0;
    } catch (const tp::usage_error& e) {
        std::fprintf(stderr, "provpol-thinpoold: %s\n", e.what.c_str());
        return tp::exit_usage;
    }
    tp::sys::install_signals();
    setvbuf(stdout, nullptr, _IOLBF, 0);
    const logger log;
    const std::string name = tp::dm_name(o.vg, o.pool, "");
    if (!o.dry_run) {
        // --restore runs after the daemon's end (ExecStopPost=): it waits for the lock as long as a command may take.
        const std::string why =
            tp::sys::take_lock(o.lock_dir + "/" + name + ".lock", o.restore ? o.command_timeout.count() : 0.0);
        if (!why.empty()) {
            log(tp::priority::err, "cannot lock " + o.vg + "/" + o.pool + ": " + why);
            return tp::exit_failed;
        }
        if (const std::string w = tp::sys::make_dirs(o.state_dir); !w.empty()) {
            log(tp::priority::err, "cannot make the state directory: " + w);
            return tp::exit_failed;
        }
    }
    const double timeout = o.command_timeout.count();
    const std::string state_path = o.state_dir + "/" + name + ".state";
    tp::thinpoold_io io;
    tp::sys::lvm_shell shell;
    io.run = [&](const std::vector<std::string>& cmd, bool interruptible) {
        const bool lvm = cmd[0] == "lvs" || cmd[0] == "lvextend" || cmd[0] == "lvchange" || cmd[0] == "lvmconfig";
        if (o.lvm_shell && lvm && !shell.broken()) {
            if (auto r = shell.run(cmd, timeout, interruptible)) return *r;
            log(tp::priority::warning,
                "no lvm shell (`lvm` ended before it ran a command): lvm2's commands are run one "
                "process each");
        }
        return tp::sys::run_command(cmd, timeout, interruptible);
    };
    if (o.status_source == "ioctl") {
        io.status = [](const std::string& dev) { return tp::sys::dm_ioctl_call(dev, false); };
        io.uuid = [](const std::string& dev) { return tp::sys::dm_ioctl_call(dev, true); };
    } else {
        io.status = [timeout](const std::string& dev) {
            return tp::sys::run_command({"dmsetup", "status", "--noflush", "--", dev}, timeout, true);
        };
        io.uuid = [timeout](const std::string& dev) {
            return tp::sys::run_command({"dmsetup", "info", "-c", "--noheadings", "-o", "uuid", "--", dev}, timeout,
                                        true);
        };
    }
    io.now = tp::sys::monotonic_now;
    io.sleep_until = tp::sys::sleep_until;
    io.stopping = [] { return tp::sys::stop_signal != 0; };
    io.log = log;
    io.load_state = [state_path] { return tp::sys::read_file(state_path); };
    io.save_state = [state_path](const std::string& text, std::string& why) {
        why = tp::sys::write_atomically(state_path, text, true);
        return why.empty();
    };
    if (!o.metrics_file.empty())
        io.write_metrics = [&o, log](const std::string& text) {
            const std::string why = tp::sys::write_atomically(o.metrics_file, text, false);
            if (!why.empty()) log(tp::priority::warning, "cannot write the metrics: " + why);
        };
    return tp::run(o, io);
}
