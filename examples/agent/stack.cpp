// provpol-agent's block stack (see stack.hpp).
#include "stack.hpp"

#include "common/input.hpp"

#include <string>

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

stack::stack(const std::string& workdir, bytes initial_size, bytes capacity) : dir_(workdir) {
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
         "--chardev", "socket,id=monitor0,path=" + qmp_socket + ",server=on,wait=off", "--monitor", "chardev=monitor0"},
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

std::uint64_t stack::allocation() {
    const json stats = qmp_->execute("query-blockstats", {{"query-nodes", true}});
    for (const json& s : stats)
        if (s.value("node-name", "") == file_node) return s["stats"]["wr_highest_offset"].get<std::uint64_t>();
    throw failure("query-blockstats: no node " + std::string(file_node));
}

std::uint64_t stack::set_threshold(std::uint64_t threshold) {
    qmp_->execute("block-set-write-threshold", {{"node-name", file_node}, {"write-threshold", threshold}});
    for (const json& n : qmp_->execute("query-named-block-nodes"))
        if (n.value("node-name", "") == file_node) return n.value("write_threshold", std::uint64_t{0});
    throw failure("query-named-block-nodes: no node " + std::string(file_node));
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
