// provpol/domain/shared.hpp - what the drives of a storage domain share, as VDSM's code has it: each host's mail
// monitor, the SPM's mailbox scan, its thread pool and the volume group's lock. domain.hpp runs the drives on top.
//
// The parts (oVirt/vdsm, lib/vdsm/storage/mailbox.py, sp.py, lvm.py):
//   - one mail monitor per host (HSM_MailMonitor): a 4 KiB outbox of 64-byte messages, so 63 requests in flight
//     per host. Idle, it writes a request at once; while replies are pending it sleeps its reply interval (2 s, or
//     0.5 s with events) and picks up new requests only at its next loop, on the grid of its last idle send. A
//     host that has 63 requests in flight holds a new one until a loop at which a slot is free.
//   - one SPM (SPM_MailMonitor): its scan reads every host's mailbox on a free-running clock (2 s plus its read;
//     the event block every 0.5 s with events) and hands the new requests, host by host and slot by slot, to its
//     thread pool (sp.py: thread_pool_size // 2 = 5 workers by default), whose worker runs lvextend and writes the
//     reply.
//   - one volume group lock (lvm.py takes the VG's lock for every metadata change): the lvextends of a domain run
//     one at a time, first come first served.
//
// How a flow_latency (flow/clocks.hpp) maps onto them, stage by stage, so that a domain of one drive is exactly
// the single-drive flow: the stages before the send run on the drive's host alone; the send goes through the
// host's mail monitor; between the send and the reply poll, the first clock is the SPM's scan (one clock for the
// whole domain, its phase the first drive's draw) and the delays after it are the SPM's work for the request,
// held under the VG lock (its service time); the reply poll is the host's mail monitor's grid; the stages after
// it (inbox read, refresh) run on the host alone. Every request draws all its delays when it is made, in stage
// order, from its drive's stream, as flow_latency::complete does (a flow's stall first, its time added to the stages
// it holds up: a stall of the SPM's work is held under the VG lock): the draws are the single drive's, and only the
// waits depend on the other drives.
//
// The duplicate filter (a request for the same volume and size is ignored; an lvextend to the LV's size returns
// at once) has nothing to drop here: extend_controller never requests a size already pending (simulate/agent.hpp).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_DOMAIN_SHARED_HPP
#define PROVPOL_DOMAIN_SHARED_HPP

#include "../config.hpp"
#include "../detail/math.hpp"
#include "../flow/clocks.hpp"
#include "../random.hpp"
#include "../result.hpp"
#include "../simulate/agent.hpp"
#include "../time.hpp"
#include "mailbox.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace provpol {

/// What a stage of a flow does in a domain (see the header comment).
enum class domain_role : unsigned char {
    monitor,
    host,
    send,
    transport,
    spm_scan,
    spm_service,  ///< the SPM's work under the volume group's lock (lvextend)
    spm_work,     ///< the SPM's work outside the lock, on the worker that took the request (the reply's write)
    reply_poll,
    after
};
/// The role's name as written above: "monitor", "host", ..., "after".
PROVPOL_NODISCARD constexpr const char* to_text(domain_role e) noexcept {
    constexpr const char* names[] = {"monitor",     "host",     "send",       "transport", "spm_scan",
                                     "spm_service", "spm_work", "reply_poll", "after"};
    static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(domain_role::after) + 1, "a name each");
    return detail::enum_name(names, e);
}

/// A flow_latency read as a domain's stages: which stage is the send, the SPM's scan, the reply poll.
class domain_flow {
public:
    /// Needs a send and a reply poll (the mailbox); between them at most one clock (the SPM's scan).
    PROVPOL_NODISCARD static result<domain_flow> make(const flow_latency& f) noexcept {
        domain_flow d;
        d.flow_ = f;
        int send = -1, scan = -1, poll = -1;
        for (std::size_t i = 0; i < f.size(); ++i) {
            const flow_stage& s = f.stage(i);
            const int k = static_cast<int>(i);
            domain_role r = domain_role::host;
            if (s.kind() == flow_stage_kind::monitor) {
                r = domain_role::monitor;
            } else if (s.kind() == flow_stage_kind::send) {
                r = domain_role::send, send = k;
            } else if (s.kind() == flow_stage_kind::reply_poll) {
                r = domain_role::reply_poll, poll = k;
            } else if (poll >= 0) {
                r = domain_role::after;
            } else if (send >= 0 && s.kind() == flow_stage_kind::clock) {
                if (scan >= 0)
                    return unexpected(error::unsupported("domain flow",
                                                         "at most one clock (the SPM's scan) between "
                                                         "the send and the reply poll"));
                r = domain_role::spm_scan, scan = k;
            } else if (send >= 0) {
                r = scan >= 0 ? domain_role::spm_service : domain_role::transport;
            }
            d.roles_[i] = r;
        }
        if (send < 0 || poll < 0)
            return unexpected(error::unsupported("domain flow",
                                                 "needs the mailbox: a send and a reply poll "
                                                 "(a profile such as vdsm-polling-2022)"));
        // Without a scan the SPM acts on a request as it arrives: the delays after the send are its work. Of its
        // work, the delays marked as holding the lock (flow_stage::locked_delay) are lvextend's; when none is
        // marked (a flow fitted from a log times the SPM's work as one), all of it is held under the lock.
        bool marked = false;
        for (std::size_t i = 0; i < f.size(); ++i) {
            if (scan < 0 && d.roles_[i] == domain_role::transport) d.roles_[i] = domain_role::spm_service;
            marked = marked || (d.roles_[i] == domain_role::spm_service && f.stage(i).locked());
        }
        for (std::size_t i = 0; i < f.size() && marked; ++i)
            if (d.roles_[i] == domain_role::spm_service && !f.stage(i).locked()) d.roles_[i] = domain_role::spm_work;
        d.scan_ = scan;
        d.poll_period_ = f.stage(static_cast<std::size_t>(poll)).period();
        d.scan_cycle_ = scan >= 0 ? f.stage(static_cast<std::size_t>(scan)).cycle() : seconds(0);
        return d;
    }
    PROVPOL_NODISCARD const flow_latency& flow() const noexcept { return flow_; }
    PROVPOL_NODISCARD domain_role role(std::size_t i) const noexcept { return roles_[i]; }
    PROVPOL_NODISCARD std::size_t size() const noexcept { return flow_.size(); }
    /// The SPM scan's stage, or -1 when the SPM acts on a request as it arrives.
    PROVPOL_NODISCARD int scan_stage() const noexcept { return scan_; }
    PROVPOL_NODISCARD seconds poll_period() const noexcept { return poll_period_; }
    PROVPOL_NODISCARD seconds scan_cycle() const noexcept { return scan_cycle_; }

private:
    flow_latency flow_{};
    domain_role roles_[flow_latency::max_stages] = {};
    int scan_ = -1;
    seconds poll_period_ = seconds(0), scan_cycle_ = seconds(0);
};

/// One extend request on its way through the domain (times since the run's start). domain_shared owns them: a
/// driver reads one through domain_shared::request(slot), and writes only the fields of the one just added
/// (last_added()) before it is sent, as simulate_domain does.
struct domain_request {
    enum class state : unsigned char { free, before_send, at_spm };
    seconds requested_at = seconds(0);
    seconds at = seconds(0);    ///< before_send: when the host's mail monitor handles it; at_spm: when the SPM scans it
    seconds grid = seconds(0);  ///< the host's reply-poll grid it was sent on
    seconds sent = seconds(0);  ///< at_spm: when the host's mail monitor wrote it to its outbox (at once when idle,
                                ///< at its grid's next loop while a reply is pending), before the transport
    seconds draws[flow_latency::max_stages] = {};  ///< each delay's and the send's time, drawn when it is made
    seconds exceeded_at = seconds(0);  ///< when the drive crossed its threshold for it: where its latency starts
    std::uint64_t size = 0;            ///< the LV size it asks for: identifies the controller's flight
    std::uint64_t seq = 0;             ///< send order, for the SPM's slot order
    std::uint32_t drive = 0;
    std::uint32_t host = 0;
    state st = state::free;
};

/// "free" (a slot no request holds), "before-send" (waiting for the host's mail monitor) or "at-spm" (sent, waiting
/// for the SPM's scan and service).
PROVPOL_NODISCARD constexpr const char* to_text(domain_request::state e) noexcept {
    constexpr const char* names[] = {"free", "before-send", "at-spm"};
    static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(domain_request::state::at_spm) + 1,
                  "a name each");
    return detail::enum_name(names, e);
}

namespace detail {

/// One host's mail monitor.
struct domain_host {
    seconds grid = seconds(-1e300);       ///< its last idle send: the reply poll's clock counts from there
    seconds max_reply = seconds(-1e300);  ///< the latest reply poll that sees a reply decided so far
    std::uint32_t undecided = 0;          ///< requests sent whose reply time the SPM has not decided yet
};

}  // namespace detail

/// What the SPM queue's step hands back: a request's completion.
struct domain_completion {
    std::uint32_t drive;
    std::uint64_t size;
    seconds requested_at;
    seconds done_at;
    seconds reply_read;  ///< when the host read the reply (the refresh's start), or never without a refresh stage
    seconds lock_start;  ///< when its service under the VG lock began (after any wait for a worker or the lock)
    seconds lock_end;    ///< when it released the lock
    seconds reply_seen;  ///< the host's reply poll that saw the reply: its first poll after the reply was written
};

/// The hosts' mail monitors, the SPM's scan, its workers and the VG lock, with their statistics: the domain's
/// shared state as simulate_domain runs it. Public for drivers that run the same queue against real time, as
/// provpol-agent --drives does; their times are provpol::seconds since the run's start. Made whole by make(),
/// which copies the flow: it holds no pointer to anything of its caller's.
class domain_shared {
public:
    /// The state for the domain, sized for it (allocates: std::bad_alloc propagates). Refuses what
    /// domain_config::make refuses (hosts and drives per host in [1, 10000], at most 1,000,000 drives, workers in
    /// [1, 1000], slots in [1, 63]): serve() takes a worker, and with none it would read past the pool.
    PROVPOL_NODISCARD static result<domain_shared> make(const domain_flow& f, std::uint32_t hosts,
                                                        std::uint32_t drives_per_host, std::uint32_t workers,
                                                        std::uint32_t slots) {
        if (hosts < 1 || hosts > 10000)
            return unexpected(
                error::out_of_range("hosts", error_value::of(hosts), error_value::of(1), error_value::of(10000)));
        if (drives_per_host < 1 || drives_per_host > 10000 || std::uint64_t{hosts} * drives_per_host > 1000000)
            return unexpected(error::out_of_range("drives_per_host", error_value::of(drives_per_host),
                                                  error_value::of(1),
                                                  error_value::of(hosts > 100 ? 1000000 / hosts : 10000)));
        if (workers < 1 || workers > 1000)
            return unexpected(error::out_of_range("spm_workers", error_value::of(workers), error_value::of(1),
                                                  error_value::of(1000)));
        if (slots < 1 || slots > vdsm_mailbox_slots)
            return unexpected(error::out_of_range("host_slots", error_value::of(slots), error_value::of(1),
                                                  error_value::of(vdsm_mailbox_slots)));
        return domain_shared(f, hosts, drives_per_host, workers, slots);
    }

    /// The flow it runs (its own copy of make()'s).
    PROVPOL_NODISCARD const domain_flow& flow() const noexcept { return flow_; }

    /// The drive's clock phases (its start_run draws).
    void start(std::uint32_t drive, const flow_run& run) noexcept { phases_[drive] = run; }
    /// The SPM scan's phase is `drive`'s draw (simulate_domain: the first drive that writes, so that a lone writer
    /// at any index runs its own run's clocks).
    void set_spm_phase_of(std::uint32_t drive) noexcept {
        if (flow_.scan_stage() >= 0) spm_phase_ = phases_[drive].phase[flow_.scan_stage()];
    }

    /// A request made at `t` by `drive`: draws its delays in stage order from the drive's stream (as
    /// flow_latency::complete does) and runs the stages before the send. Returns its slot.
    std::size_t add(std::uint32_t drive, seconds t, random_stream& rng) noexcept {
        std::size_t slot = 2 * std::size_t{drive};
        if (requests_[slot].st != domain_request::state::free) ++slot;
        domain_request& r = requests_[slot];
        r = domain_request{};
        r.requested_at = t;
        r.exceeded_at = t;
        r.drive = drive;
        r.host = drive / per_host_;
        r.st = domain_request::state::before_send;
        ++requests_before_send_;
        const flow_latency& fl = flow_.flow();
        const std::size_t stall = fl.draw_stall(rng);  // first, as flow_latency::complete draws it
        for (std::size_t i = 0; i < fl.size(); ++i) {
            const flow_stage& s = fl.stage(i);
            if (s.kind() == flow_stage_kind::delay || s.kind() == flow_stage_kind::send)
                r.draws[i] =
                    seconds(detail::draw_uniform(s.min().count(), s.max().count(), rng)) + fl.stall_extra(stall, i);
        }
        for (std::size_t i = 0; i < fl.size(); ++i) {
            const domain_role role = flow_.role(i);
            if (role == domain_role::host) t = step(i, drive, t, r.draws[i]);
            if (role == domain_role::send) {
                t += r.draws[i];
                break;
            }
        }
        r.at = t;
        last_ = slot;
        return slot;
    }
    /// The slot of the request add() made last.
    PROVPOL_NODISCARD std::size_t last_added() const noexcept { return last_; }
    domain_request& request(std::size_t slot) noexcept { return requests_[slot]; }

    /// When the drive's next request reaches its host's mail monitor, or never.
    PROVPOL_NODISCARD seconds next_send(std::uint32_t drive) const noexcept {
        seconds n = never;
        for (std::size_t s = 2 * std::size_t{drive}; s < 2 * std::size_t{drive} + 2; ++s)
            if (requests_[s].st == domain_request::state::before_send && requests_[s].at < n) n = requests_[s].at;
        return n;
    }

    /// The host's mail monitor handles the drive's request due now (next_send(drive)). Returns the request's slot:
    /// at_spm when it was sent (its `sent` and `at` say when it was written and when the SPM scans it), still
    /// before_send when the outbox was full (its `at` is the monitor's next try).
    std::size_t send(std::uint32_t drive) noexcept {
        std::size_t slot = 2 * std::size_t{drive};
        const domain_request& a = requests_[slot];
        const domain_request& b = requests_[slot + 1];
        if (a.st != domain_request::state::before_send || (b.st == domain_request::state::before_send && b.at < a.at))
            ++slot;
        domain_request& r = requests_[slot];
        detail::domain_host& h = hosts_[r.host];
        const seconds t = r.at;
        const seconds T = flow_.poll_period();
        if (in_flight(r.host, t) >= slots_) {  // the outbox is full: try again at the monitor's next loop
            r.at = h.grid + (detail::floor((t - h.grid) / T) + 1.0) * T;
            if (!(r.at > t)) r.at = t + T;
            return slot;
        }
        seconds sent = t;
        if (h.undecided > 0 || t < h.max_reply)  // sleeping on a pending reply (flow/clocks.hpp's rule)
            sent = provpol::next_clock_tick(h.grid, T, t);
        else
            h.grid = t;
        r.grid = h.grid;
        r.sent = sent;
        ++h.undecided;
        r.seq = seq_++;
        // The transport to the SPM, then its scan.
        const flow_latency& fl = flow_.flow();
        for (std::size_t i = 0; i < fl.size(); ++i)
            if (flow_.role(i) == domain_role::transport) sent += r.draws[i];
        r.at = flow_.scan_stage() >= 0 ? provpol::next_clock_tick(spm_phase_, flow_.scan_cycle(), sent) : sent;
        r.st = domain_request::state::at_spm;
        --requests_before_send_;
        spm_.push_back(slot);  // reserved for every request slot in make(): never allocates
        std::push_heap(spm_.begin(), spm_.end(), later{this});
        return slot;
    }

    /// When the SPM next takes a request (its scan), or never.
    PROVPOL_NODISCARD seconds next_spm() const noexcept { return spm_.empty() ? never : requests_[spm_[0]].at; }

    /// The SPM takes its next request (host by host, slot by slot within a scan): a worker, the VG lock for the
    /// request's service time, the reply; the host's next reply poll; the host's own stages. Returns the request's
    /// completion. Allocates when the latencies outgrow their storage (std::bad_alloc propagates).
    domain_completion serve() {
        std::pop_heap(spm_.begin(), spm_.end(), later{this});
        const std::size_t slot = spm_.back();
        spm_.pop_back();
        domain_request& r = requests_[slot];
        const seconds s = r.at;
        // A worker of the pool, first come first served: the earliest free one (a min-heap of their free times).
        seconds t = s;
        if (workers_free_[0] > s) {
            t = workers_free_[0];
            ++worker_waits_;
        }
        // Queue: the requests ahead that wait for the lock or a worker (FIFO, so their starts are after s).
        while (queue_len_ > 0 && !(queue_[queue_head_] > s)) {
            queue_head_ = (queue_head_ + 1) % queue_.size();
            --queue_len_;
        }
        // The SPM's stages in order on that worker: the locked ones one request at a time, in arrival order.
        const flow_latency& fl = flow_.flow();
        seconds start = seconds(-1), lock_end = seconds(-1);
        for (std::size_t i = 0; i < fl.size(); ++i) {
            const domain_role role = flow_.role(i);
            if (role == domain_role::spm_service) {
                if (lock_free_ > t) t = lock_free_;
                if (start < seconds(0)) start = t;
                t += r.draws[i];
                busy_ += r.draws[i];
                lock_free_ = t;
                lock_end = t;
            } else if (role == domain_role::spm_work) {
                t += r.draws[i];
            }
        }
        if (start < seconds(0)) start = t;
        if (lock_end < seconds(0)) lock_end = start;  // a flow without a locked stage holds the lock for no time
        // The queue it joins: the requests waiting just after it arrived, itself included when it waits.
        const std::size_t waiting = queue_len_ + (start > s ? 1 : 0);
        ++queue_hist_[waiting < queue_hist_.size() ? waiting : queue_hist_.size() - 1];
        ++served_;
        queue_[(queue_head_ + queue_len_) % queue_.size()] = start;
        ++queue_len_;
        replace_worker(t);  // the worker is free once the reply is written
        // The host sees the reply at its first poll after the reply is written (flow/clocks.hpp's formula).
        const seconds T = flow_.poll_period();
        const double k = detail::ceil((t - r.grid) / T);
        t = r.grid + (k < 1.0 ? 1.0 : k) * T;
        const seconds reply_seen = t;
        detail::domain_host& h = hosts_[r.host];
        --h.undecided;
        if (t > h.max_reply) h.max_reply = t;
        (void)in_flight(r.host, s);  // drop the replies already seen
        add_reply(r.host, t);
        seconds reply_read = never;
        for (std::size_t i = 0; i < fl.size(); ++i) {
            if (flow_.role(i) != domain_role::after) continue;
            if (static_cast<int>(i) == fl.refresh_stage()) reply_read = t;
            t = step(i, r.drive, t, r.draws[i]);
        }
        const domain_completion c{r.drive, r.size, r.requested_at, t, reply_read, start, lock_end, reply_seen};
        latencies_.push_back(t - r.exceeded_at);  // the span provpol latency reports: the event to the LV
        r.st = domain_request::state::free;
        return c;
    }

    /// Whether no request is on its way: none made and not yet sent, none waiting for the SPM.
    PROVPOL_NODISCARD bool idle() const noexcept { return spm_.empty() && requests_before_send_ == 0; }
    /// How long the VG lock was held, in all.
    PROVPOL_NODISCARD seconds busy() const noexcept { return busy_; }
    /// When the VG lock is next free.
    PROVPOL_NODISCARD seconds lock_free() const noexcept { return lock_free_; }
    PROVPOL_NODISCARD std::uint64_t served() const noexcept { return served_; }
    PROVPOL_NODISCARD std::uint64_t worker_waits() const noexcept { return worker_waits_; }
    /// The extend latency of every request served, in the order served (the simulator sorts them at the end).
    std::vector<seconds>& latencies() noexcept { return latencies_; }
    PROVPOL_NODISCARD const std::vector<std::uint64_t>& queue_histogram() const noexcept { return queue_hist_; }

private:
    domain_shared(const domain_flow& f, std::uint32_t hosts, std::uint32_t drives_per_host, std::uint32_t workers,
                  std::uint32_t slots)
        : flow_(f), per_host_(drives_per_host), slots_(slots) {
        const std::size_t drives = std::size_t{hosts} * drives_per_host;
        reply_cap_ = 2 * std::size_t{drives_per_host};
        workers_free_.assign(workers, seconds(-1e300));
        hosts_.assign(hosts, detail::domain_host{});
        requests_.assign(2 * drives, domain_request{});
        phases_.assign(drives, flow_run{});
        replies_.assign(hosts * reply_cap_, seconds(0));
        reply_count_.assign(hosts, 0);
        spm_.reserve(2 * drives + 1);
        queue_.assign(2 * drives + 1, seconds(0));
        queue_hist_.assign(2 * drives + 2, 0);
        latencies_.reserve(1024);
    }

    // A host-side stage: a clock of the drive's own phase, or a delay already drawn.
    PROVPOL_NODISCARD seconds step(std::size_t i, std::uint32_t drive, seconds t, seconds draw) const noexcept {
        const flow_stage& s = flow_.flow().stage(i);
        if (s.kind() == flow_stage_kind::clock) return provpol::next_clock_tick(phases_[drive].phase[i], s.cycle(), t);
        return s.kind() == flow_stage_kind::delay ? t + draw : t;
    }
    // Requests of `host` in flight at t: sent and their reply not yet seen.
    std::uint32_t in_flight(std::uint32_t host, seconds t) noexcept {
        seconds* rep = replies_.data() + host * reply_cap_;
        std::size_t& n = reply_count_[host];
        for (std::size_t i = 0; i < n;) {
            if (rep[i] > t)
                ++i;
            else
                rep[i] = rep[--n];
        }
        return hosts_[host].undecided + static_cast<std::uint32_t>(n);
    }
    void add_reply(std::uint32_t host, seconds t) noexcept {
        std::size_t& n = reply_count_[host];
        if (n < reply_cap_) replies_[host * reply_cap_ + n++] = t;  // at most 2 per drive in flight
    }
    // The worker that was free first now is free at `t`: workers_free_ is a min-heap of the workers' free times
    // (std::pop_heap moves the earliest to the back, where it becomes `t`). Only the times matter, not which
    // worker holds one, so ties need no rule.
    void replace_worker(seconds t) noexcept {
        const auto later_free = [](seconds a, seconds b) noexcept { return b < a; };
        std::pop_heap(workers_free_.begin(), workers_free_.end(), later_free);
        workers_free_.back() = t;
        std::push_heap(workers_free_.begin(), workers_free_.end(), later_free);
    }
    // The SPM's pending requests: a heap on (scan time, host, send order), the earliest on top.
    PROVPOL_NODISCARD bool before(std::size_t x, std::size_t y) const noexcept {
        const domain_request& a = requests_[x];
        const domain_request& b = requests_[y];
        if (a.at != b.at) return a.at < b.at;
        if (a.host != b.host) return a.host < b.host;
        return a.seq < b.seq;
    }
    // std::push_heap and std::pop_heap keep the largest on top: the comparator puts the earliest request there. The
    // order is total (send orders are unique), so the requests come off in the same order whatever the heap's
    // layout.
    struct later {
        const domain_shared* shared;
        bool operator()(std::size_t x, std::size_t y) const noexcept { return shared->before(y, x); }
    };

    domain_flow flow_;
    std::uint32_t per_host_ = 1, slots_ = vdsm_mailbox_slots;
    std::size_t reply_cap_ = 2;
    std::vector<detail::domain_host> hosts_;
    std::vector<domain_request> requests_;  // two slots per drive
    std::vector<flow_run> phases_;
    std::vector<seconds> replies_;  // per host: the reply polls decided and not yet passed
    std::vector<std::size_t> reply_count_;
    std::vector<std::size_t> spm_;       // heap of request slots
    std::vector<seconds> queue_;         // ring: service starts of the requests at the SPM
    std::vector<seconds> workers_free_;  // min-heap: when each of the SPM's workers is free
    std::size_t queue_head_ = 0, queue_len_ = 0;
    std::vector<std::uint64_t> queue_hist_;
    std::vector<seconds> latencies_;
    seconds spm_phase_ = seconds(0);
    seconds lock_free_ = seconds(-1e300);
    seconds busy_ = seconds(0);
    std::uint64_t seq_ = 0, served_ = 0, worker_waits_ = 0;
    std::size_t last_ = 0;
    std::size_t requests_before_send_ = 0;
};

}  // namespace provpol

#endif  // PROVPOL_DOMAIN_SHARED_HPP
