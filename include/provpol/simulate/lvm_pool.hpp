// provpol/simulate/lvm_pool.hpp - what a write burst does to a thin pool under dmeventd (lvm_dmeventd.hpp): one run
// (simulate_lvm_run: extends, times full, seconds writes were queued, EIO after no_space_timeout, the VG running
// out, and, when the metadata is given, its extends and whether it ran out) and the summary over runs
// (simulate_lvm_plan), run i seeded with run_seed(seed, i) as the VDSM and domain simulators seed theirs. The
// decision each lvextend takes is extend/lvm.hpp's decide_lvm_autoextend, exact to lvm2; when dmeventd runs it is
// lvm_dmeventd.hpp's; how the metadata fills is thin_metadata.hpp's. The burst and one run's answer are
// lvm_pool_run.hpp's, the summary over runs lvm_plan_summary.hpp's, the extender lvm_extender.hpp's (this header
// includes the three).
//
// The extender (lvm_extender) is dmeventd by default. The rate-aware extender (extend/lvm_rate_aware.hpp, as
// examples/thinpoold runs it) replaces it: dmeventd's monitoring is off, so there is no low-water event, no poll and
// no mode-change event; a sample every `interval` estimates the fill rate from the pool's used blocks as the daemon
// does (over one interval: the daemon's rate window when its --interval is at least its --rate-window, 1 s by
// default; the rate at once when it is higher, else the previous estimate halved every half_life; after a sample
// that found the pool full, what it took since its last extend returned, over that time, and the estimate kept
// while it stays full) and decides with lvm_rate_aware_config::decide, the service time being the model's
// lvextend_max (the daemon's --lvextend-time). An extend runs `lvextend -L+N` with N fixed at the sample (no
// decision at a status read); its service time is drawn as dmeventd's commands' are, and the next sample is one
// interval after it returns (the daemon waits for it). The metadata grows with the data as lvm2 grows it
// (lvm_metadata_extents_after) and, when no data extend is due, by lvm2's own rule (decide_metadata: the
// threshold and percent of the extender's settings, which plan sets to the pool's), one `lvextend
// --poolmetadatasize +N` at a time; the VG space taken counts against max_vg_take.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_LVM_POOL_HPP
#define PROVPOL_SIMULATE_LVM_POOL_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../extend/lvm.hpp"
#include "../extend/lvm_rate_aware.hpp"
#include "../random.hpp"
#include "../time.hpp"
#include "lvm_dmeventd.hpp"
#include "lvm_extender.hpp"      // IWYU pragma: export
#include "lvm_plan_summary.hpp"  // IWYU pragma: export
#include "lvm_pool_run.hpp"      // IWYU pragma: export
#include "run.hpp"
#include "thin_metadata.hpp"

#include <cmath>
#include <cstdint>

namespace provpol {

namespace detail {

// What happens next in a run, in the order ties are broken (the earlier kind wins at the same instant).
enum class lvm_event : unsigned char {
    poll,          // dmeventd's alarm, or the rate-aware extender's sample
    status_read,   // the running lvextend reads the pool's status and decides
    command_done,  // the running lvextend returns (its new table live, or its failure)
    low_water,     // a block is allocated at the low-water mark: the kernel's event
    pool_full,     // the last free block is taken with data still to write
    written,       // the last byte of the burst is written
    eio_deadline,  // a full pool's writes have queued no_space_timeout
    metadata_low,  // the free metadata blocks fall below the kernel's metadata low-water mark: a device event
    metadata_out,  // the free metadata blocks reach the kernel's reserve: the pool fails writes
};

// One run of a burst, event by event. The times are doubles in seconds from the burst's start (the arithmetic
// of the run is kept in plain doubles so that runs are the same on every platform); `written` is the pool's
// data in bytes, a fluid.
class lvm_run_simulation {
public:
    lvm_run_simulation(const lvm_autoextend_config& c, const lvm_dmeventd_model& m, const lvm_pool_workload& w,
                       std::uint64_t seed, const lvm_extender& x = lvm_extender::dmeventd()) noexcept
        : c_(c),
          m_(m),
          x_(x),
          rng_(seed),
          chunk_(c.pool_chunk().count()),
          rate_bps_(static_cast<double>(w.write_rate.bytes_per_second())),
          size_(w.pool_size.count()),
          total_(size_ / chunk_),
          vg_free_(w.vg_free),
          written_(static_cast<double>(w.pool_used.count())),
          target_(written_ + static_cast<double>(w.write.count())),
          give_up_((rate_bps_ > 0.0 ? static_cast<double>(w.write.count()) / rate_bps_ : 0.0) + 86400.0),
          lwm_(lvm_low_water_blocks(blocks(total_), c.threshold_percent()).count()),
          armed_(m.low_water_event() && c.enabled() && !x.is_rate_aware()),
          metadata_size_(w.metadata_size),
          metadata_used0_(static_cast<double>(divide(w.metadata_used, bytes(thin_metadata_block), rounding::up))),
          written0_(written_) {
        dso_.known_total = total_;
        set_metadata(w.metadata_size);
        dso_.known_metadata_total = metadata_total_;
        next_poll_ = rng_.uniform() * in_seconds(x.is_rate_aware() ? x.interval() : m.poll_interval());
        // The daemon watched the pool before the burst: its last sample, one interval earlier, saw it idle.
        sample_t_ = next_poll_ - in_seconds(x.interval());
        sample_used_ = used_blocks();
        r_.pool_end = w.pool_size;
        r_.vg_free_end = w.vg_free;
        r_.metadata_end = w.metadata_size;
    }

    lvm_run_result run() noexcept {
        while (!finished()) {
            double next = next_poll_;
            const lvm_event e = next_event(next);
            advance_to(next);
            dispatch(e);
        }
        if (r_.hung) add_queue(t_ - full_since_);
        if (r_.hung) r_.ended_at = seconds(t_);
        r_.pool_end = bytes(size_);
        r_.vg_free_end = vg_free_;
        r_.metadata_end = metadata_size_;
        return r_;
    }

private:
    PROVPOL_NODISCARD bool writing() const noexcept { return written_ < target_ && !full_ && !r_.eio; }

    // The run ends with the last byte written and no command running, at the first EIO, or a day late (hung).
    bool finished() noexcept {
        if (!writing() && !running_ && written_ >= target_) return true;
        if (r_.eio) return true;
        if (t_ > give_up_) r_.hung = true;
        return r_.hung;
    }

    // The earliest event after the poll at `next` (ties go to the kind considered first), and its time in `next`.
    lvm_event next_event(double& next) const noexcept {
        lvm_event what = lvm_event::poll;
        const auto consider = [&](double at, lvm_event kind) {
            if (at < next) {
                next = at;
                what = kind;
            }
        };
        if (running_)
            consider(read_done_ ? done_t_ : read_t_, read_done_ ? lvm_event::command_done : lvm_event::status_read);
        if (writing() && rate_bps_ > 0.0) {
            const double cap = capacity();
            if (armed_ && total_ > lwm_) {
                const double level = static_cast<double>(total_ - lwm_) * static_cast<double>(chunk_);
                consider(written_ >= level ? t_ : t_ + (level - written_) / rate_bps_, lvm_event::low_water);
            }
            if (cap < target_) consider(written_ >= cap ? t_ : t_ + (cap - written_) / rate_bps_, lvm_event::pool_full);
            consider(t_ + (target_ - written_) / rate_bps_, lvm_event::written);
            if (metadata_total_ != 0) {
                const auto at_level = [&](double blocks_used, lvm_event kind) {
                    const double level = metadata_written_at(blocks_used);
                    if (level < target_) consider(written_ >= level ? t_ : t_ + (level - written_) / rate_bps_, kind);
                };
                if (metadata_armed_) at_level(metadata_low_level_, lvm_event::metadata_low);
                at_level(metadata_out_level_, lvm_event::metadata_out);
            }
        }
        if (full_ && !m_.error_when_full() && m_.no_space_timeout() > seconds(0.0))
            consider(full_since_ + in_seconds(m_.no_space_timeout()), lvm_event::eio_deadline);
        return what;
    }

    void advance_to(double next) noexcept {
        if (next < t_) next = t_;
        if (writing()) {
            written_ += rate_bps_ * (next - t_);
            if (written_ > target_) written_ = target_;
        }
        t_ = next;
    }

    void dispatch(lvm_event e) noexcept {
        switch (e) {
            case lvm_event::poll:
                if (x_.is_rate_aware()) {
                    on_sample();
                    break;
                }
                next_poll_ += in_seconds(m_.poll_interval());
                if (!running_) timeout_path();  // a busy thread skips the alarm
                break;
            case lvm_event::status_read:
                on_status_read();
                break;
            case lvm_event::command_done:
                on_command_done();
                break;
            case lvm_event::low_water:
                armed_ = false;  // once per table load
                device_event();
                break;
            case lvm_event::pool_full:
                on_full();
                break;
            case lvm_event::written:
                written_ = target_;
                r_.ended_at = seconds(t_);
                break;
            case lvm_event::eio_deadline:
                add_queue(t_ - full_since_);
                fail_writes();
                break;
            case lvm_event::metadata_low:
                metadata_armed_ = false;  // until the free blocks rise above the mark again
                device_event();
                break;
            case lvm_event::metadata_out:
                r_.metadata_full = true;
                fail_writes();
                break;
        }
    }

    // The metadata (thin_metadata.hpp): its blocks, the kernel's low-water mark and reserve as used-block levels.
    void set_metadata(bytes size) noexcept {
        metadata_size_ = size;
        metadata_total_ = thin_metadata_blocks(size);
        if (metadata_total_ == 0) return;
        metadata_low_level_ = static_cast<double>(metadata_total_ - thin_metadata_low_water(metadata_total_));
        metadata_out_level_ = static_cast<double>(metadata_total_ - thin_metadata_reserve(metadata_total_));
        metadata_armed_ = metadata_used() < metadata_low_level_;
    }

    // The metadata blocks in use, a fluid: one block per 126 chunks the burst has mapped.
    PROVPOL_NODISCARD double metadata_used() const noexcept {
        return metadata_used0_ + (written_ - written0_) / (static_cast<double>(chunk_) *
                                                           static_cast<double>(thin_chunks_per_metadata_block));
    }

    // The data written when the metadata reaches `blocks_used` blocks (its inverse).
    PROVPOL_NODISCARD double metadata_written_at(double blocks_used) const noexcept {
        return written0_ + (blocks_used - metadata_used0_) * static_cast<double>(chunk_) *
                               static_cast<double>(thin_chunks_per_metadata_block);
    }

    // The metadata as the kernel reports it: whole blocks in use.
    PROVPOL_NODISCARD std::uint64_t metadata_used_blocks() const noexcept {
        const double b = metadata_used();
        const auto u = static_cast<std::uint64_t>(b);
        const std::uint64_t up = static_cast<double>(u) < b ? u + 1 : u;
        return up < metadata_total_ ? up : metadata_total_;
    }

    PROVPOL_NODISCARD double capacity() const noexcept {
        return static_cast<double>(total_) * static_cast<double>(chunk_);
    }

    PROVPOL_NODISCARD std::uint64_t used_blocks() const noexcept {
        const double b = written_ / static_cast<double>(chunk_);
        const auto u = static_cast<std::uint64_t>(b);
        const std::uint64_t up = static_cast<double>(u) < b ? u + 1 : u;
        return up < total_ ? up : total_;
    }

    // A command's service time, drawn uniform in [lvextend_min, lvextend_max].
    double draw_service() noexcept {
        return in_seconds(m_.lvextend_min() + (m_.lvextend_max() - m_.lvextend_min()) * rng_.uniform());
    }

    void start_command(lvm_trigger trigger) noexcept {
        running_ = true;
        read_done_ = false;
        trigger_ = trigger;
        const double s = draw_service();
        read_t_ = t_ + s * m_.status_read_fraction();
        done_t_ = t_ + s;
    }

    // A device event runs the policy at once, or when the running command returns (no one listens with dmeventd's
    // monitoring off: the rate-aware extender only samples).
    void device_event() noexcept {
        if (x_.is_rate_aware()) return;
        if (running_)
            pending_event_ = true;
        else
            start_command(lvm_trigger::device_event);
    }

    // process_event's status part (the poll's timeout path, or the device path's re-read after a failure).
    void timeout_path() noexcept {
        const bool m = metadata_total_ != 0;
        if (dso_.on_status(lvm_usage(used_blocks(), total_), total_,
                           m ? lvm_usage(metadata_used_blocks(), metadata_total_) : 0, metadata_total_))
            start_command(lvm_trigger::timeout);
    }

    void on_status_read() noexcept {
        read_done_ = true;
        lvm_volume_state s{};
        s.size = bytes(size_);
        s.used = blocks(used_blocks());
        s.total = blocks(total_);
        s.vg_free = vg_free_;
        if (metadata_total_ != 0) {
            s.metadata_size = metadata_size_;
            s.metadata_used = blocks(metadata_used_blocks());
            s.metadata_total = blocks(metadata_total_);
        }
        decision_ = decide_lvm_autoextend(c_, s);
    }

    void on_command_done() noexcept {
        if (x_.is_rate_aware()) {
            on_rate_aware_done();
            return;
        }
        running_ = false;
        ++r_.commands;
        if (decision_.outcome == lvm_outcome::extend) {
            on_extended();
        } else if (failed(decision_.outcome)) {
            ++r_.failed_commands;
            if (decision_.outcome == lvm_outcome::fails_vg_space) r_.vg_exhausted = true;
            // _use_policy sets fails; only the device-event path then reads the status again (and postpones).
            if (dso_.on_command_done(true, trigger_)) timeout_path();
        } else {
            (void)dso_.on_command_done(false, trigger_);
        }
        if (pending_event_ && !running_) {
            pending_event_ = false;
            start_command(lvm_trigger::device_event);
        }
    }

    void on_extended() noexcept {
        if (decision_.new_size.count() != size_) ++r_.extends;
        if (metadata_total_ != 0 && decision_.metadata_new_size != metadata_size_) {
            ++r_.metadata_extends;
            set_metadata(decision_.metadata_new_size);
        }
        size_ = decision_.new_size.count();
        total_ = size_ / chunk_;
        if (vg_free_ != bytes::max()) vg_free_ = saturating_sub(vg_free_, decision_.vg_needed);  // max: unlimited
        lwm_ = lvm_low_water_blocks(blocks(total_), c_.threshold_percent()).count();
        armed_ = m_.low_water_event() && c_.enabled();
        if (full_ && written_ < capacity()) {
            add_queue(t_ - full_since_);
            full_ = false;
            if (m_.mode_change_events()) pending_event_ = true;  // back to writing: a device event
        }
        (void)dso_.on_command_done(false, trigger_);
        if (m_.rerun_after_extend()) pending_event_ = true;
    }

    // The rate-aware extender's sample: the fill rate over the interval since the last sample (fill_rate in
    // examples/thinpoold: the higher of that and the last estimate decayed; after a sample that found the pool full,
    // what it took since it was grown, over the time since, and the estimate kept while it stays full), then the
    // decision: the data's extend, or else lvm2's rule for the metadata. An extend runs at once and the next sample
    // waits for it.
    void on_sample() noexcept {
        const std::uint64_t used = used_blocks();
        const double chunk = static_cast<double>(chunk_);
        // A pool that took nothing since the last sample, and was not full, is not filling: its floor only, as the
        // daemon keeps (fill_rate::still: nothing over a whole rate window; here the interval).
        const bool still = !sample_full_ && used == sample_used_;
        if (t_ > sample_t_) {
            const double since = sample_full_ && grown_at_ > sample_t_ ? grown_at_ : sample_t_;
            if (!sample_full_ || used > sample_used_) {
                const double inst = static_cast<double>(used - sample_used_) * chunk / (t_ - since);
                const double decayed = estimate_ * std::exp2(-(t_ - estimated_at_) / in_seconds(x_.half_life()));
                estimate_ = inst > decayed ? inst : decayed;
                estimated_at_ = t_;
            }
            sample_t_ = t_;
            sample_used_ = used;
        }
        sample_full_ = used >= total_;
        lvm_pool_view v{};
        v.size = bytes(size_);
        v.used = blocks(used);
        v.total = blocks(total_);
        if (metadata_total_ != 0) {
            v.metadata_size = metadata_size_;
            v.metadata_used = blocks(metadata_used_blocks());
            v.metadata_total = blocks(metadata_total_);
        }
        v.vg_free = vg_free_;
        v.taken = taken_;
        const lvm_rate_aware_decision d =
            x_.rate_aware()->decide(v, rate(still ? 0 : static_cast<std::uint64_t>(estimate_)), m_.lvextend_max());
        if (d.limit == lvm_rate_aware_limit::vg_free) r_.vg_exhausted = true;
        ra_metadata_ = lvm_metadata_decision{};
        if (!d.extends()) ra_metadata_ = x_.rate_aware()->decide_metadata(v);
        if (ra_metadata_.limit == lvm_rate_aware_limit::vg_free) r_.vg_exhausted = true;
        if (!d.extends() && !ra_metadata_.extends()) {
            next_poll_ += in_seconds(x_.interval());
            return;
        }
        ra_decision_ = d;
        running_ = true;
        read_done_ = true;  // the size is fixed: lvextend -L+N reads nothing to decide
        done_t_ = t_ + draw_service();
        next_poll_ = done_t_ + in_seconds(x_.interval());
    }

    // lvextend -L+N returns: the data and the metadata lvm2 grew with it are live, the VG space taken (or
    // lvextend --poolmetadatasize +N: the metadata alone).
    void on_rate_aware_done() noexcept {
        running_ = false;
        ++r_.commands;
        grown_at_ = t_;
        if (ra_metadata_.extends()) {
            ++r_.metadata_extends;
            set_metadata(ra_metadata_.new_size);
            if (vg_free_ != bytes::max()) vg_free_ = saturating_sub(vg_free_, ra_metadata_.add);
            taken_ = saturating_add(taken_, ra_metadata_.add);
            return;
        }
        ++r_.extends;
        const bytes e = c_.extent();
        const std::uint64_t new_le = detail::lvm_extents(ra_decision_.new_size, e);
        if (metadata_total_ != 0) {
            const bytes grown(lvm_metadata_extents_after(new_le, metadata_size_, e, c_.pool_chunk()) * e.count());
            if (grown > metadata_size_) {
                ++r_.metadata_extends;
                set_metadata(grown);
            }
        }
        size_ = ra_decision_.new_size.count();
        total_ = size_ / chunk_;
        if (vg_free_ != bytes::max()) vg_free_ = saturating_sub(vg_free_, ra_decision_.vg_needed);
        taken_ = saturating_add(taken_, ra_decision_.vg_needed);
        if (full_ && written_ < capacity()) {
            add_queue(t_ - full_since_);
            full_ = false;
        }
    }

    void on_full() noexcept {
        written_ = capacity();  // no rounding left behind
        full_ = true;
        full_since_ = t_;
        ++r_.times_full;
        if (m_.error_when_full())
            fail_writes();
        else if (m_.mode_change_events())  // out-of-data-space: a device event
            device_event();
    }

    void fail_writes() noexcept {
        r_.eio = true;
        r_.ended_at = seconds(t_);
    }

    void add_queue(double q) noexcept {
        r_.queued += seconds(q);
        if (seconds(q) > r_.longest_queue) r_.longest_queue = seconds(q);
    }

    const lvm_autoextend_config& c_;
    const lvm_dmeventd_model& m_;
    const lvm_extender x_;
    random_stream rng_;
    lvm_run_result r_{};
    const std::uint64_t chunk_;
    const double rate_bps_;
    std::uint64_t size_;
    std::uint64_t total_;
    bytes vg_free_;
    double written_;
    const double target_;
    const double give_up_;
    std::uint64_t lwm_;
    bool armed_;
    lvm_dso_state dso_{};
    double next_poll_ = 0.0;
    bool running_ = false, read_done_ = false, pending_event_ = false;
    lvm_trigger trigger_ = lvm_trigger::timeout;
    double read_t_ = 0.0, done_t_ = 0.0;
    lvm_autoextend_decision decision_{};
    bool full_ = false;
    double full_since_ = 0.0;
    double t_ = 0.0;
    bytes metadata_size_;
    const double metadata_used0_;  // metadata blocks in use at the start
    const double written0_;        // the data then
    std::uint64_t metadata_total_ = 0;
    double metadata_low_level_ = 0.0, metadata_out_level_ = 0.0;
    bool metadata_armed_ = false;
    // The rate-aware extender: whether its last sample found the pool full, that sample, its estimate (bytes per
    // second) and when it was made, when its last extend returned, the VG space it took, the decision its running
    // lvextend carries out (the data's, or the metadata's when that extends).
    bool sample_full_ = false;
    double sample_t_ = 0.0, estimated_at_ = 0.0, estimate_ = 0.0, grown_at_ = -1.0;
    std::uint64_t sample_used_ = 0;
    bytes taken_{};
    lvm_rate_aware_decision ra_decision_{};
    lvm_metadata_decision ra_metadata_{};
};

}  // namespace detail

/// Simulates one burst into a pool under dmeventd: writes run at the workload's rate while the pool has room
/// and queue while it is full; the kernel's low-water event and the poll run lvextend --use-policies, one at a
/// time, each deciding on the pool's status at its read (decide_lvm_autoextend). The run ends when the last
/// byte is written (and the command then running returns), or at the first EIO (a filesystem on the pool
/// would shut down there). Deterministic for a seed: the poll's phase and each command's service time are
/// drawn from random_stream(seed). With a rate-aware extender `x` the pool is grown as the header says (c then gives
/// only the extent and the chunk; m the service times and the kernel's no_space_timeout and error_when_full).
PROVPOL_NODISCARD inline lvm_run_result simulate_lvm_run(const lvm_autoextend_config& c, const lvm_dmeventd_model& m,
                                                         const lvm_pool_workload& w, std::uint64_t seed,
                                                         const lvm_extender& x = lvm_extender::dmeventd()) noexcept {
    if (w.write.count() == 0 || w.write_rate.bytes_per_second() == 0) {  // nothing is written
        lvm_run_result r{};
        r.pool_end = w.pool_size;
        r.vg_free_end = w.vg_free;
        r.metadata_end = w.metadata_size;
        return r;
    }
    return detail::lvm_run_simulation(c, m, w, seed, x).run();
}

/// Runs simulate_lvm_run `runs` times, run i seeded with run_seed(seed, i) as simulate_runs and the domain
/// simulator seed theirs (so seeds 1, 2 and 3 share no run), and adds them up in run order.
PROVPOL_NODISCARD inline lvm_plan_summary simulate_lvm_plan(const lvm_autoextend_config& c, const lvm_dmeventd_model& m,
                                                            const lvm_pool_workload& w, std::uint32_t runs,
                                                            std::uint64_t seed,
                                                            const lvm_extender& x = lvm_extender::dmeventd()) noexcept {
    lvm_plan_summary s{};
    for (std::uint32_t i = 0; i < runs; ++i) detail::lvm_plan_add(s, simulate_lvm_run(c, m, w, run_seed(seed, i), x));
    detail::lvm_plan_means(s);
    return s;
}

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_LVM_POOL_HPP
