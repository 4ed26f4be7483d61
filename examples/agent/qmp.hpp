// A QMP client: what libvirt does for VDSM, on the daemon's monitor socket. Commands are synchronous; events
// that arrive meanwhile are queued for the agent's loop.
#ifndef PROVPOL_AGENT_QMP_HPP
#define PROVPOL_AGENT_QMP_HPP

#include "posix.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <deque>
#include <string>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

namespace provpol::agent {

using json = nlohmann::json;

/// One QMP connection.
class qmp_client {
public:
    /// Connects to the monitor socket at `path`, retrying for up to `seconds` while the daemon starts, and
    /// leaves capabilities negotiation mode.
    qmp_client(const std::string& path, double seconds) : reader_(-1) {
        const double deadline = monotonic_seconds() + seconds;
        for (;;) {
            check_signals();
            fd s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
            if (!s) fail_errno("socket");
            sockaddr_un addr{};
            addr.sun_family = AF_UNIX;
            if (path.size() >= sizeof addr.sun_path) throw failure("QMP socket path too long: " + path);
            std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
            if (::connect(s.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) {
                sock_ = std::move(s);
                break;
            }
            if (monotonic_seconds() > deadline) fail_errno("connect " + path);
            ::usleep(10000);
        }
        reader_ = line_reader(sock_.get());
        const json greeting = read_message(seconds);
        if (!greeting.contains("QMP")) throw failure("QMP: unexpected greeting " + greeting.dump());
        execute("qmp_capabilities", json::object(), seconds);
    }

    int get() const { return sock_.get(); }

    /// Runs a command and returns its "return" value; a QMP error throws a failure naming the command.
    json execute(const std::string& command, const json& arguments = json::object(), double seconds = 30.0) {
        json msg = {{"execute", command}};
        if (!arguments.empty()) msg["arguments"] = arguments;
        write_all(sock_.get(), msg.dump() + "\n");
        for (;;) {
            json r = read_message(seconds);
            if (r.contains("event")) {
                events_.push_back(std::move(r));
                continue;
            }
            if (r.contains("error"))
                throw failure("QMP " + command + ": " + r["error"].value("desc", r["error"].dump()));
            if (r.contains("return")) return r["return"];
        }
    }

    /// Reads what the socket has (after poll() says it is readable) and queues its events; false when the
    /// daemon closed the connection.
    bool pump() {
        if (!reader_.fill()) return false;
        std::string line;
        while (reader_.next(line)) {
            json r = json::parse(line, nullptr, false);
            if (r.is_discarded()) throw failure("QMP: not JSON: " + line);
            if (r.contains("event")) events_.push_back(std::move(r));
        }
        return true;
    }

    /// The next queued event, if any.
    bool next_event(json& e) {
        if (events_.empty()) return false;
        e = std::move(events_.front());
        events_.pop_front();
        return true;
    }

private:
    json read_message(double seconds) {
        const double deadline = monotonic_seconds() + seconds;
        std::string line;
        while (!reader_.next(line)) {
            pollfd p{sock_.get(), POLLIN, 0};
            const double left = deadline - monotonic_seconds();
            if (left <= 0) throw failure("QMP: no answer from the daemon");
            const int n = ::poll(&p, 1, static_cast<int>(left * 1000.0) + 1);
            if (n < 0 && errno == EINTR) {
                check_signals();
                continue;
            }
            if (n < 0) fail_errno("poll");
            if (n > 0 && !reader_.fill()) throw failure("QMP: the daemon closed the monitor connection");
        }
        json r = json::parse(line, nullptr, false);
        if (r.is_discarded()) throw failure("QMP: not JSON: " + line);
        return r;
    }

    fd sock_;
    line_reader reader_;
    std::deque<json> events_;
};

}  // namespace provpol::agent

#endif  // PROVPOL_AGENT_QMP_HPP
