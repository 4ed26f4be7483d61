// lvm2's built-in defaults for the autoextend settings, by version: what lvm2 runs with when no lvm.conf (nor
// lvmlocal.conf, nor a profile) sets a key. Captured from each version's own `lvmconfig --type default` and
// `lvmconfig --type full` (tests/data/lvm2_<version>/, tests/data/capture_lvm_defaults.sh): Debian 12's lvm2
// 2.03.16 and Debian 13's 2.03.31. They come from lib/config/defaults.h (DEFAULT_THIN_POOL_AUTOEXTEND_THRESHOLD 100,
// _PERCENT 20, DEFAULT_VDO_POOL_AUTOEXTEND_* 100 and 20, DEFAULT_SNAPSHOT_AUTOEXTEND_* 100 and 20,
// DEFAULT_DMEVENTD_MONITOR 1), the same at each of lvm2's release tags from 2.02.89, where the thin pool keys
// appeared (config_settings.h: vsn(2, 2, 89)), to 2.03.39; the VDO keys exist from 2.03.0. So the fallback below
// cannot take a wrong value, and stderr says which version it took and why.
//
// Which version: --lvm-version VERSION; else what `lvm version` prints on this host (run with a 5 s bound, its
// stderr discarded); else the newest captured (2.03.31).
#ifndef PROVPOL_CLI_LVM_DEFAULTS_HPP
#define PROVPOL_CLI_LVM_DEFAULTS_HPP

#include "cli.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>

extern char** environ;

namespace provpol::cli {

/// lvm2's built-in values of the autoextend settings.
struct lvm2_defaults {
    std::int64_t thin_pool_threshold = 100, thin_pool_percent = 20;
    std::int64_t vdo_pool_threshold = 100, vdo_pool_percent = 20;
    std::int64_t snapshot_threshold = 100, snapshot_percent = 20;
    std::int64_t monitoring = 1;

    /// The default of "activation/KEY" (one of the seven keys above), or -1.
    std::int64_t of(const std::string& key) const {
        const std::string k = key.substr(key.rfind('/') + 1);
        if (k == "thin_pool_autoextend_threshold") return thin_pool_threshold;
        if (k == "thin_pool_autoextend_percent") return thin_pool_percent;
        if (k == "vdo_pool_autoextend_threshold") return vdo_pool_threshold;
        if (k == "vdo_pool_autoextend_percent") return vdo_pool_percent;
        if (k == "snapshot_autoextend_threshold") return snapshot_threshold;
        if (k == "snapshot_autoextend_percent") return snapshot_percent;
        if (k == "monitoring") return monitoring;
        return -1;
    }
};

/// The lvm2 whose defaults apply, and how it was chosen (for messages).
struct lvm2_version {
    std::string version;  ///< "2.03.16"
    std::string how;      ///< how it was chosen: "the version --lvm-version names", ...
    lvm2_defaults defaults;
};

/// The newest version whose defaults were captured, used when nothing says which lvm2 runs.
inline constexpr const char* lvm2_newest_captured = "2.03.31";

namespace lvm_defaults_detail {

// "2.03.16" -> {2, 3, 16}; false unless three dot-separated numbers.
inline bool parse_version(const std::string& v, unsigned (&n)[3]) {
    std::size_t i = 0;
    for (int k = 0; k < 3; ++k) {
        if (i >= v.size() || v[i] < '0' || v[i] > '9') return false;
        n[k] = 0;
        for (int digits = 0; i < v.size() && v[i] >= '0' && v[i] <= '9'; ++i, ++digits) {
            if (digits == 4) return false;
            n[k] = n[k] * 10 + static_cast<unsigned>(v[i] - '0');
        }
        if (k < 2 && (i >= v.size() || v[i++] != '.')) return false;
    }
    return i == v.size();
}

// `lvm version`'s stdout (at most 64 KiB), or "" when lvm cannot be run or takes over 5 s.
inline std::string run_lvm_version() {
    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) return "";
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    char arg0[] = "lvm", arg1[] = "version";
    char* argv[] = {arg0, arg1, nullptr};
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, "lvm", &fa, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(out[1]);
    std::string text;
    if (rc == 0) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        for (;;) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) break;
            pollfd p{out[0], POLLIN, 0};
            if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
            char buf[4096];
            const ssize_t n = ::read(out[0], buf, sizeof buf);
            if (n <= 0) break;
            if (text.size() < 65536) text.append(buf, static_cast<std::size_t>(n));
        }
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == 0) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
        }
    }
    ::close(out[0]);
    return text;
}

}  // namespace lvm_defaults_detail

/// lvm2's defaults for `version` ("2.03.16"); a usage error outside 2.02.89 (the thin pool keys' first release) to
/// 2.03.x.
inline lvm2_version lvm2_version_of(const std::string& version, std::string how) {
    unsigned n[3];
    if (!lvm_defaults_detail::parse_version(version, n))
        throw usage_error("--lvm-version: expected lvm2's version as `lvm version` prints it, such as 2.03.16, got '" +
                          args::printable(version) + "'");
    const bool known = n[0] == 2 && ((n[1] == 2 && n[2] >= 89) || n[1] == 3);
    if (!known)
        throw usage_error("--lvm-version " + args::printable(version) +
                          ": provpol knows lvm2's defaults from 2.02.89 (the first with thin pool autoextend) to "
                          "2.03.x");
    return {version, std::move(how), lvm2_defaults{}};
}

/// The lvm2 whose defaults apply: --lvm-version, else `lvm version` on this host, else the newest captured.
inline lvm2_version choose_lvm2_version(const args& a) {
    if (const auto v = a.value("--lvm-version")) return lvm2_version_of(*v, "the version --lvm-version names");
    const std::string text = lvm_defaults_detail::run_lvm_version();
    const std::size_t at = text.find("LVM version:");
    if (at != std::string::npos) {
        std::size_t i = text.find_first_not_of(" \t", at + 12);
        std::size_t e = i == std::string::npos ? i : text.find_first_not_of("0123456789.", i);
        if (i != std::string::npos) {
            unsigned n[3];
            const std::string v = text.substr(i, e == std::string::npos ? std::string::npos : e - i);
            if (lvm_defaults_detail::parse_version(v, n) && n[0] == 2 && ((n[1] == 2 && n[2] >= 89) || n[1] == 3))
                return {v, "the version `lvm version` prints here", lvm2_defaults{}};
        }
    }
    return {lvm2_newest_captured,
            std::string("`lvm version` prints no version here, and ") + lvm2_newest_captured +
                " is the newest lvm2 provpol has captured; every lvm2 from 2.02.89 to it has the same autoextend "
                "defaults (lib/config/defaults.h: threshold 100, percent 20, monitoring 1); --lvm-version VERSION "
                "names the host's",
            lvm2_defaults{}};
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_LVM_DEFAULTS_HPP
