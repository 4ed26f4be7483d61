// provpol-agent's block stack (see stack.hpp).
#include "stack.hpp"

#include "common/input.hpp"

#include <string>
#include <utility>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace provpol::agent {

scratch_dir::scratch_dir(const std::string& parent) {
    std::string t = parent + "/provpol-agent.XXXXXX";
    if (::mkdtemp(t.data()) == nullptr) fail_errno("mkdtemp in " + parent);
    path_ = t;
}

scratch_dir::~scratch_dir() {
    if (DIR* d = ::opendir(path_.c_str())) {
        while (dirent* e = ::readdir(d)) {
            const std::string n = e->d_name;
            if (n != "." && n != "..") ::unlink((path_ + "/" + n).c_str());
        }
        ::closedir(d);
    }
    ::rmdir(path_.c_str());
}

std::string tail_of(const std::string& file) {
    // Read through the CLI's one input reader, keeping only the end: the lines joined by spaces.
    std::string s, line;
    try {
        cli::text_input::rules rules;
        rules.dash_is_stdin = false;
        cli::text_input in(file, "log", rules);
        while (in.next(line)) {
            if (!s.empty()) s += ' ';
            s += line;
            if (s.size() > 1200) s.erase(0, s.size() - 600);
        }
    } catch (const std::exception&) {
        if (s.empty()) return "";
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    if (s.size() > 600) s.erase(0, s.size() - 600);
    return s;
}

stack::stack(const std::string& workdir, bytes initial_size, bytes capacity, unsigned drives) : dir_(workdir) {
    for (unsigned d = 0; d < drives; ++d) {
        lv_files_.push_back(dir_.path() + (drives == 1 ? std::string("/lv.img") : "/lv" + std::to_string(d) + ".img"));
        const std::string& file = lv_files_.back();
        {
            fd f(::open(file.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
            if (!f) fail_errno("create " + file);
        }
        grow_file(file, initial_size.count());
        loops_.push_back(loop_device::attach(file));
        const tool_result r = run_tool(
            {"qemu-img", "create", "-q", "-f", "qcow2", loops_.back().path(), std::to_string(capacity.count())});
        if (r.code != 0) throw failure("qemu-img create failed: " + r.output);
        devices_.push_back(loops_.back().path());
    }
    start_daemon(10.0);
}

stack::stack(const std::string& workdir, bytes capacity, const std::vector<std::string>& devices)
    : dir_(workdir), devices_(devices) {
    for (const std::string& dev : devices_) {
        const tool_result r =
            run_tool({"qemu-img", "create", "-q", "-f", "qcow2", dev, std::to_string(capacity.count())});
        if (r.code != 0) throw failure("qemu-img create on " + dev + " failed: " + r.output);
    }
    // Real LVs run in the e2e's emulated guest (TCG). There qemu-storage-daemon 7.2 sometimes (4 of about 30 starts,
    // with 1 to 8 drives) accepted the QMP connection and then answered nothing for 30 to 120 s, one of its threads
    // in a socket read; a normal start answers within 2 s. The daemon has served nothing yet, so it is stopped and
    // started once more; restart_note() says why.
    try {
        start_daemon(30.0);
    } catch (const failure& e) {
        restart_note_ = std::string(e.what()) + "; its threads: " + thread_states(daemon_.pid());
        qmp_.reset();
        daemon_.stop();
        start_daemon(60.0);
    }
}

std::string stack::thread_states(int pid) {
    // Each thread's name, state and kernel wait channel, to say where a daemon that does not answer is stuck.
    std::string out;
    const std::string dir = "/proc/" + std::to_string(pid) + "/task";
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return "(gone)";
    while (dirent* e = ::readdir(d)) {
        if (e->d_name[0] == '.') continue;
        std::string comm, wchan, stat;
        for (auto [name, into] :
             {std::pair<const char*, std::string*>{"comm", &comm}, {"wchan", &wchan}, {"stat", &stat}}) {
            fd f(::open((dir + "/" + e->d_name + "/" + name).c_str(), O_RDONLY | O_CLOEXEC));
            char buf[256] = {};
            const ssize_t n = f ? ::read(f.get(), buf, sizeof buf - 1) : -1;
            if (n > 0) into->assign(buf, static_cast<std::size_t>(n));
            while (!into->empty() && into->back() == '\n') into->pop_back();
        }
        const std::size_t paren = stat.rfind(')');
        const char state = paren != std::string::npos && paren + 2 < stat.size() ? stat[paren + 2] : '?';
        out += (out.empty() ? "" : ", ") + comm + " " + state + " " + (wchan.empty() || wchan == "0" ? "-" : wchan);
    }
    ::closedir(d);
    return out;
}

void stack::start_daemon(double qmp_timeout) {
    const auto drives = static_cast<unsigned>(devices_.size());
    nbd_socket_ = dir_.path() + "/nbd.sock";
    const std::string qmp_socket = dir_.path() + "/qmp.sock";
    daemon_log_ = dir_.path() + "/daemon.log";
    fd log(::open(daemon_log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    if (!log) fail_errno("create " + daemon_log_);
    // cache.direct=on, aio=native: how oVirt opens block volumes. cache.no-flush=on keeps QEMU's flushes (qcow2
    // sends them when it updates metadata) from reaching the loop device: its backing file lives in the host's
    // page cache, and each fsync wrote hundreds of MiB back to this machine's disk, stalling the guest for 0.3
    // to 0.8 s in the middle of a run (measured) - a stall a real LV on a SAN's write cache does not have. A real
    // LV (no loop device) gets QEMU's flushes, as in oVirt.
    const std::string flush = loops_.empty() ? "" : ",cache.no-flush=on";
    std::vector<std::string> argv = {"qemu-storage-daemon"};
    for (unsigned d = 0; d < drives; ++d) {
        const std::string file = file_node_of(d), format = format_node_of(d);
        for (const std::string& a : {std::string("--blockdev"),
                                     "driver=host_device,node-name=" + file + ",filename=" + devices_[d] +
                                         ",cache.direct=on,aio=native" + flush,
                                     std::string("--blockdev"), "driver=qcow2,node-name=" + format + ",file=" + file})
            argv.push_back(a);
    }
    for (const std::string& a : {std::string("--nbd-server"), "addr.type=unix,addr.path=" + nbd_socket_})
        argv.push_back(a);
    for (unsigned d = 0; d < drives; ++d) {
        argv.push_back("--export");
        argv.push_back("type=nbd,id=export" + std::to_string(d) + ",node-name=" + format_node_of(d) +
                       ",name=" + format_node_of(d) + ",writable=on");
    }
    for (const std::string& a :
         {std::string("--chardev"), "socket,id=monitor0,path=" + qmp_socket + ",server=on,wait=off",
          std::string("--monitor"), std::string("chardev=monitor0")})
        argv.push_back(a);
    daemon_ = child::spawn(argv, -1, log.get(), log.get());
    try {
        qmp_.emplace(qmp_socket, qmp_timeout);
        // The NBD socket exists once the export is up (QMP answers after the command line is processed).
        struct stat st {};
        if (::stat(nbd_socket_.c_str(), &st) != 0) throw failure("the daemon has no NBD socket");
    } catch (const failure& e) {
        throw failure(std::string(e.what()) + "; daemon log: " + tail_of(daemon_log_));
    }
}

std::vector<std::uint64_t> stack::allocations() {
    std::vector<std::uint64_t> out(devices_.size(), 0);
    std::vector<bool> seen(devices_.size(), false);
    const json stats = qmp_->execute("query-blockstats", {{"query-nodes", true}});
    for (const json& s : stats) {
        const int d = drive_of_file_node(s.value("node-name", ""));
        if (d < 0) continue;
        out[static_cast<unsigned>(d)] = s["stats"]["wr_highest_offset"].get<std::uint64_t>();
        seen[static_cast<unsigned>(d)] = true;
    }
    for (unsigned d = 0; d < seen.size(); ++d)
        if (!seen[d]) throw failure("query-blockstats: no node " + file_node_of(d));
    return out;
}

std::uint64_t stack::allocation(unsigned drive) {
    const json stats = qmp_->execute("query-blockstats", {{"query-nodes", true}});
    const std::string node = file_node_of(drive);
    for (const json& s : stats)
        if (s.value("node-name", "") == node) return s["stats"]["wr_highest_offset"].get<std::uint64_t>();
    throw failure("query-blockstats: no node " + node);
}

std::uint64_t stack::set_threshold(std::uint64_t threshold, unsigned drive) {
    const std::string node = file_node_of(drive);
    qmp_->execute("block-set-write-threshold", {{"node-name", node}, {"write-threshold", threshold}});
    for (const json& n : qmp_->execute("query-named-block-nodes"))
        if (n.value("node-name", "") == node) return n.value("write_threshold", std::uint64_t{0});
    throw failure("query-named-block-nodes: no node " + node);
}

int stack::drive_of_file_node(const std::string& node) const {
    for (unsigned d = 0; d < devices_.size(); ++d)
        if (node == file_node_of(d)) return static_cast<int>(d);
    return -1;
}

void stack::stop_daemon() {
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

}  // namespace provpol::agent
