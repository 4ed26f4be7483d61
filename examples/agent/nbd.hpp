// A minimal NBD client (fixed newstyle handshake, NBD_OPT_GO, simple replies): the guest's disk, as the
// daemon exports it. It writes and flushes; a write error comes back as an errno value (ENOSPC when the LV is
// full), as a VM's virtio-blk request would see it.
#ifndef PROVPOL_AGENT_NBD_HPP
#define PROVPOL_AGENT_NBD_HPP

#include "posix.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <sys/socket.h>
#include <sys/un.h>

namespace provpol::agent {

/// One NBD connection to an export over a Unix socket.
class nbd_client {
public:
    nbd_client(const std::string& socket_path, const std::string& export_name) {
        sock_ = fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        if (!sock_) fail_errno("socket");
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        if (socket_path.size() >= sizeof addr.sun_path) throw failure("NBD socket path too long: " + socket_path);
        std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
        if (::connect(sock_.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0)
            fail_errno("connect " + socket_path);
        handshake(export_name);
    }

    /// The export's size in bytes.
    std::uint64_t size() const { return size_; }

    /// Writes `len` bytes at `offset`; returns 0 or the server's errno value (e.g. ENOSPC).
    std::uint32_t write(std::uint64_t offset, const void* data, std::uint32_t len) {
        request(1, offset, len);
        send_all(data, len);
        return reply();
    }

    /// Flushes the export to its storage; returns 0 or an errno value.
    std::uint32_t flush() {
        request(3, 0, 0);
        return reply();
    }

    /// Tells the server the client is leaving (NBD_CMD_DISC has no reply).
    void disconnect() {
        if (!sock_) return;
        request(2, 0, 0);
        sock_.reset();
    }

private:
    static constexpr std::uint64_t ihaveopt = 0x49484156454F5054ULL;
    static constexpr std::uint64_t reply_magic = 0x0003e889045565a9ULL;

    void send_all(const void* p, std::size_t n) {
        const char* c = static_cast<const char*>(p);
        while (n > 0) {
            const ssize_t w = ::send(sock_.get(), c, n, MSG_NOSIGNAL);
            if (w < 0) {
                if (errno == EINTR) continue;
                fail_errno("NBD send");
            }
            c += w;
            n -= static_cast<std::size_t>(w);
        }
    }
    void recv_all(void* p, std::size_t n) {
        char* c = static_cast<char*>(p);
        while (n > 0) {
            const ssize_t r = ::recv(sock_.get(), c, n, 0);
            if (r == 0) throw failure("NBD: the server closed the connection");
            if (r < 0) {
                if (errno == EINTR) continue;
                fail_errno("NBD recv");
            }
            c += r;
            n -= static_cast<std::size_t>(r);
        }
    }
    static void put(std::vector<unsigned char>& b, std::uint64_t v, int bytes) {
        for (int i = bytes - 1; i >= 0; --i) b.push_back(static_cast<unsigned char>(v >> (8 * i)));
    }
    static std::uint64_t get(const unsigned char* p, int bytes) {
        std::uint64_t v = 0;
        for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
        return v;
    }
    std::uint64_t read_be(int bytes) {
        unsigned char b[8];
        recv_all(b, static_cast<std::size_t>(bytes));
        return get(b, bytes);
    }

    void handshake(const std::string& name) {
        unsigned char hello[18];
        recv_all(hello, sizeof hello);
        if (std::memcmp(hello, "NBDMAGIC", 8) != 0 || get(hello + 8, 8) != ihaveopt)
            throw failure("NBD: not a newstyle server");
        const std::uint64_t server_flags = get(hello + 16, 2);
        if ((server_flags & 1) == 0) throw failure("NBD: the server does not speak fixed newstyle");
        std::vector<unsigned char> b;
        put(b, 1 | (server_flags & 2), 4);  // NBD_FLAG_C_FIXED_NEWSTYLE, and NO_ZEROES when offered
        put(b, ihaveopt, 8);
        put(b, 7, 4);  // NBD_OPT_GO
        put(b, 4 + name.size() + 2, 4);
        put(b, name.size(), 4);
        b.insert(b.end(), name.begin(), name.end());
        put(b, 0, 2);  // no information requests: the server sends NBD_INFO_EXPORT anyway
        send_all(b.data(), b.size());
        for (;;) {
            if (read_be(8) != reply_magic) throw failure("NBD: bad option reply");
            read_be(4);  // the option
            const std::uint64_t type = read_be(4);
            const std::uint64_t len = read_be(4);
            std::vector<unsigned char> data(len);
            if (len > 0) recv_all(data.data(), len);
            if (type & 0x80000000ULL)
                throw failure("NBD: the server refused export '" + name +
                              "': " + std::string(data.begin(), data.end()));
            if (type == 3 && len >= 12 && get(data.data(), 2) == 0) size_ = get(data.data() + 2, 8);  // NBD_INFO_EXPORT
            if (type == 1) return;  // NBD_REP_ACK: transmission begins
        }
    }

    void request(std::uint64_t type, std::uint64_t offset, std::uint32_t len) {
        std::vector<unsigned char> b;
        put(b, 0x25609513, 4);
        put(b, 0, 2);  // flags
        put(b, type, 2);
        put(b, ++handle_, 8);
        put(b, offset, 8);
        put(b, len, 4);
        send_all(b.data(), b.size());
    }

    std::uint32_t reply() {
        unsigned char r[16];
        recv_all(r, sizeof r);
        if (get(r, 4) != 0x67446698) throw failure("NBD: bad reply magic");
        if (get(r + 8, 8) != handle_) throw failure("NBD: reply to an unknown request");
        return static_cast<std::uint32_t>(get(r + 4, 4));
    }

    fd sock_;
    std::uint64_t size_ = 0;
    std::uint64_t handle_ = 0;
};

}  // namespace provpol::agent

#endif  // PROVPOL_AGENT_NBD_HPP
