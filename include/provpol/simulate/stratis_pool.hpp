// provpol/simulate/stratis_pool.hpp - what a write burst does to a Stratis pool: stratisd's check() run on the dm
// event and on its 10 s timer, each deciding with extend/stratis.hpp's decide_stratis_check (exact to stratisd, not
// changed here), the backstore's free space limiting growth, the metadata doubling, and error_if_no_space when the
// backstore is exhausted. One run (simulate_stratis_run) and the summary over runs (simulate_stratis_plan), run i
// seeded with run_seed(seed, i) as the LVM and VDSM simulators seed theirs. The check timing is
// stratis_check_timing.hpp's, the burst and one run's answer stratis_pool_run.hpp's, the summary over runs
// stratis_plan_summary.hpp's and the headroom search stratis_recommend.hpp's (this header includes the four).
//
// The model, from stratis-storage/stratisd at 28d8d0757f87b0dc4626c26506700d4ca089adc6 (3.9.2) and Linux's dm-thin:
//   src/stratis/timer.rs check_pool_and_fs: the timed check runs, then sleeps 10 s (its period is 10 s plus the
//       check's own time, and it waits for the pool's lock like any other check).
//   src/stratis/dm.rs dm_event_thread and src/engine/strat_engine/engine.rs pool_evented_dm: a dm event of the pool
//       runs one check as soon as the pool's write lock is free; events arriving while a check runs are coalesced
//       into one check after it (the thread reads the event counters once per wake-up).
//   src/engine/strat_engine/thinpool/thinpool.rs ThinPool::check: decides on self.used(), the pool status cached by
//       the previous check's dump() (the status is read again only at the end of a check), with the devices' sizes
//       and the backstore's free space as they are now; a check whose data part ran (cached free data under
//       DATA_LOWATER) sets the low-water mark and resumes the pool, and a metadata extend suspends and resumes it.
//       set_error_mode puts the table in error_if_no_space, after which the data part is skipped until a data
//       device is added or grown (pool/v2.rs:1021, :1249 set_queue_mode), which a burst here never does.
//   drivers/md/dm-thin.c: check_low_water_mark sends the data event once when a block is allocated with at most
//       the low-water mark free, re-armed by pool_resume; a metadata event when free metadata blocks fall to
//       calc_metadata_threshold, min(1024, a quarter of the device); a pool out of data space changes mode (an
//       event), queues writes (stratisd's new pools do not set error_if_no_space) and fails them with EIO after
//       no_space_timeout (60 s), and with error_if_no_space fails them at once; growing a full pool changes its mode
//       back (an event).
// Assumptions, not stratisd's: writes are a fluid at a steady rate, every byte a new block; a check's service time
// is uniform, [check_min, check_max] when it reloads no table and [extend_min, extend_max] when it does (an
// extend's suspend, reload, resume and metadata save, or setting the low-water mark or error_if_no_space), its
// effects land at its end; metadata use is one 4 KiB block per 126 mapped data blocks (half-full btree leaves, as
// thin-provisioning-tools' metadata_size estimate assumes); the data tier's usable size is the pool's devices plus
// the backstore's free space. The defaults (stratis_check_timing()) are not measured: set them for a real host.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_SIMULATE_STRATIS_POOL_HPP
#define PROVPOL_SIMULATE_STRATIS_POOL_HPP

#include "../bytes.hpp"
#include "../config.hpp"
#include "../extend/stratis.hpp"
#include "../random.hpp"
#include "../time.hpp"
#include "run.hpp"
#include "stratis_check_timing.hpp"  // IWYU pragma: export
#include "stratis_plan_summary.hpp"  // IWYU pragma: export
#include "stratis_pool_run.hpp"      // IWYU pragma: export

#include <cstdint>

namespace provpol {

namespace detail {

// What happens next in a run; at the same instant the earlier kind wins.
enum class stratis_event : unsigned char {
    timer,          // the timer task asks for the pool's lock
    check_done,     // the running check ends: its effects are live, the status is read again
    low_water,      // a data block is allocated at the low-water mark: the kernel's event
    metadata_low,   // free metadata falls to the kernel's metadata threshold: an event
    pool_full,      // the last free data block is taken with data still to write
    metadata_full,  // the last metadata block is taken: the pool fails writes
    written,        // the last byte of the burst is written
    eio_deadline,   // a full pool's writes have queued no_space_timeout
};

// One run, event by event; times are doubles in seconds from the burst's start, `written_` the pool's data in bytes.
class stratis_run_simulation {
public:
    stratis_run_simulation(const stratis_config& c, const stratis_check_timing& m, const stratis_pool_workload& w,
                           std::uint64_t seed) noexcept
        : c_(c),
          m_(m),
          rng_(seed),
          block_(c.data_block().count()),
          rate_bps_(static_cast<double>(w.write_rate.bytes_per_second())),
          size_(w.pool_size.count()),
          meta_(w.metadata_size),
          available_(w.backstore_free),
          usable_(w.pool_size + saturating_mul(w.metadata_size, 2) + c.mdv_size() + w.backstore_free),
          estimate_(w.metadata_sectors),
          written_(static_cast<double>(w.pool_used.count())),
          target_(written_ + static_cast<double>(w.write.count())),
          give_up_(static_cast<double>(w.write.count()) / rate_bps_ + 86400.0) {
        const std::uint64_t half = size_ / block_ / 2;  // a new pool's mark (thinpool.rs:787)
        lwm_ = min(blocks(half), c.lowater_blocks()).count();
        next_timer_ = rng_.uniform() * in_seconds(m.timer());
        read_status();
    }

    stratis_run_result run() noexcept {
        while (!finished()) {
            double next = next_timer_;
            const stratis_event e = next_event(next);
            advance_to(next);
            dispatch(e);
        }
        if (r_.hung) {
            if (t_ > give_up_) t_ = give_up_;  // nothing was left to happen: the day's wait is the queue
            add_queue(t_ - full_since_);
            r_.ended_at = seconds(t_);
        }
        if (r_.error_if_no_space) r_.error_mode = seconds(in_seconds(r_.ended_at) - error_since_);
        r_.pool_end = bytes(size_);
        r_.metadata_end = meta_;
        r_.backstore_end = available_;
        return r_;
    }

private:
    PROVPOL_NODISCARD bool writing() const noexcept { return written_ < target_ && !full_ && !r_.eio; }

    // Ends with the last byte written and no check running, at the first EIO, or a day late (hung).
    bool finished() noexcept {
        if (r_.eio) return true;
        if (written_ >= target_ && !running_) return true;
        if (t_ > give_up_) r_.hung = true;
        return r_.hung;
    }

    PROVPOL_NODISCARD double capacity() const noexcept {
        const std::uint64_t whole = size_ - size_ % block_;  // whole data blocks
        return static_cast<double>(whole);
    }
    PROVPOL_NODISCARD std::uint64_t meta_blocks() const noexcept { return meta_.count() / 4096; }
    // The kernel's metadata threshold (calc_metadata_threshold): min(1024 blocks, a quarter of the device).
    PROVPOL_NODISCARD std::uint64_t meta_threshold() const noexcept {
        return meta_blocks() / 4 < 1024 ? meta_blocks() / 4 : 1024;
    }
    // The data past which the metadata has at most `free_blocks` left: k = blocks - free metadata blocks are in
    // use once more than (k - 1) x 126 data blocks are mapped (read_status's ceil).
    PROVPOL_NODISCARD double meta_level(std::uint64_t free_blocks) const noexcept {
        const std::uint64_t used = meta_blocks() - (free_blocks < meta_blocks() ? free_blocks : meta_blocks());
        return static_cast<double>(used == 0 ? 0 : used - 1) *
               static_cast<double>(stratis_mappings_per_metadata_block * block_);
    }
    // The data past which the metadata has no block left for another leaf: blocks x 126 data blocks.
    PROVPOL_NODISCARD double meta_full_level() const noexcept {
        return static_cast<double>(meta_blocks()) * static_cast<double>(stratis_mappings_per_metadata_block * block_);
    }

    stratis_event next_event(double& next) const noexcept {
        stratis_event what = stratis_event::timer;
        const auto consider = [&](double at, stratis_event kind) {
            if (at < next) {
                next = at;
                what = kind;
            }
        };
        if (running_) consider(done_t_, stratis_event::check_done);
        if (writing()) {
            const auto when = [&](double level) {
                return written_ >= level ? t_ : t_ + (level - written_) / rate_bps_;
            };
            const std::uint64_t total = size_ / block_;
            if (armed_ && total > lwm_)
                consider(when(static_cast<double>(total - lwm_) * static_cast<double>(block_)),
                         stratis_event::low_water);
            if (meta_armed_) consider(when(meta_level(meta_threshold())), stratis_event::metadata_low);
            if (meta_full_level() < target_) consider(when(meta_full_level()), stratis_event::metadata_full);
            if (capacity() < target_) consider(when(capacity()), stratis_event::pool_full);
            consider(t_ + (target_ - written_) / rate_bps_, stratis_event::written);
        }
        if (full_ && !error_mode_ && m_.no_space_timeout() > seconds(0.0))
            consider(full_since_ + in_seconds(m_.no_space_timeout()), stratis_event::eio_deadline);
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

    void dispatch(stratis_event e) noexcept {
        switch (e) {
            case stratis_event::timer:
                timer_waiting_ = true;
                timer_asked_ = t_;
                next_timer_ = 1e300;  // the timer sleeps again only after its check
                serve();
                break;
            case stratis_event::check_done:
                on_check_done();
                break;
            case stratis_event::low_water:
                armed_ = false;  // once until the pool is resumed
                dm_event();
                break;
            case stratis_event::metadata_low:
                meta_armed_ = false;
                dm_event();
                break;
            case stratis_event::pool_full:
                on_full();
                break;
            case stratis_event::metadata_full:
                fail_writes();
                break;
            case stratis_event::written:
                written_ = target_;
                r_.ended_at = seconds(t_);
                break;
            case stratis_event::eio_deadline:
                add_queue(t_ - full_since_);
                fail_writes();
                break;
        }
    }

    void dm_event() noexcept {
        if (!event_waiting_) event_since_ = t_;
        event_waiting_ = true;
        serve();
    }

    // The pool's lock is free: the waiting request that asked first runs its check.
    void serve() noexcept {
        if (running_ || (!timer_waiting_ && !event_waiting_)) return;
        const bool timer_first = timer_waiting_ && (!event_waiting_ || timer_asked_ <= event_since_);
        by_timer_ = timer_first;
        if (timer_first)
            timer_waiting_ = false;
        else
            event_waiting_ = false;
        start_check();
    }

    // The check decides now, on the status cached at the previous check's end.
    void start_check() noexcept {
        stratis_pool_state s{};
        s.data_size = bytes(size_);
        s.data_used = blocks(cached_used_);
        s.metadata_size = meta_;
        s.metadata_used = blocks(cached_meta_used_);
        s.metadata_low_water = blocks(cached_meta_mark_);
        s.metadata_estimate = estimate_;
        s.available = available_;
        s.datatier_usable = usable_;
        s.error_if_no_space = error_mode_;
        s.out_of_metadata_space = out_of_meta_;
        decision_ = decide_stratis_check(c_, s);
        const bool reload = decision_.metadata == stratis_outcome::extend || decision_.low_water_blocks != blocks(0) ||
                            decision_.error_if_no_space != error_mode_;
        const seconds lo = reload ? m_.extend_min() : m_.check_min(), hi = reload ? m_.extend_max() : m_.check_max();
        running_ = true;
        done_t_ = t_ + in_seconds(lo + (hi - lo) * rng_.uniform());
    }

    void on_check_done() noexcept;
    void read_status() noexcept;
    void on_full() noexcept;

    void fail_writes() noexcept {
        r_.eio = true;
        r_.ended_at = seconds(t_);
    }

    void add_queue(double q) noexcept {
        r_.queued += seconds(q);
        if (seconds(q) > r_.longest_queue) r_.longest_queue = seconds(q);
    }

    const stratis_config& c_;
    const stratis_check_timing& m_;
    random_stream rng_;
    stratis_run_result r_{};
    const std::uint64_t block_;
    const double rate_bps_;
    std::uint64_t size_;
    bytes meta_;
    bytes available_;
    const bytes usable_;
    const blocks estimate_;
    double written_;
    const double target_;
    const double give_up_;
    std::uint64_t lwm_ = 0;
    bool armed_ = true, meta_armed_ = true;
    std::uint64_t cached_used_ = 0, cached_meta_used_ = 0, cached_meta_mark_ = 0;
    bool error_mode_ = false, out_of_meta_ = false;
    double error_since_ = 0.0;
    double next_timer_ = 0.0, timer_asked_ = 0.0, event_since_ = 0.0;
    bool timer_waiting_ = false, event_waiting_ = false, running_ = false, by_timer_ = false;
    double done_t_ = 0.0;
    stratis_check_decision decision_{};
    bool full_ = false;
    double full_since_ = 0.0;
    double t_ = 0.0;
};

// dump(): the pool's status as the kernel has it now, cached for the next check.
inline void stratis_run_simulation::read_status() noexcept {
    const double b = written_ / static_cast<double>(block_);
    auto used = static_cast<std::uint64_t>(b);
    if (static_cast<double>(used) < b) ++used;
    cached_used_ = used < size_ / block_ ? used : size_ / block_;
    const std::uint64_t m = cached_used_ / stratis_mappings_per_metadata_block +
                            (cached_used_ % stratis_mappings_per_metadata_block != 0 ? 1 : 0);
    cached_meta_used_ = m < meta_blocks() ? m : meta_blocks();
    cached_meta_mark_ = meta_threshold();
}

// The check's effects at its end: devices grown, the mark set and the pool resumed, the mode set, the status read.
inline void stratis_run_simulation::on_check_done() noexcept {
    running_ = false;
    ++r_.checks;
    const stratis_check_decision& d = decision_;
    bool resumed = false;
    if (d.metadata == stratis_outcome::extend) {
        ++r_.metadata_extends;
        meta_ = d.metadata_new_size;
        meta_armed_ = true;  // the threshold is set again for the larger device
        resumed = true;
    }
    if (d.data == stratis_outcome::extend) {
        ++r_.data_extends;
        size_ = d.data_new_size.count();
    }
    if (d.low_water_blocks != blocks(0)) {
        lwm_ = d.low_water_blocks.count();
        resumed = true;
    }
    available_ = d.available_after;
    out_of_meta_ = d.out_of_metadata_space;
    if (d.error_if_no_space && !error_mode_) {
        error_mode_ = true;
        r_.error_if_no_space = true;
        error_since_ = t_;
        if (full_) {  // queued writes fail once the table has error_if_no_space
            add_queue(t_ - full_since_);
            fail_writes();
            return;
        }
    }
    if (resumed) armed_ = true;            // pool_resume clears low_water_triggered
    if (full_ && written_ < capacity()) {  // the pool grew under queued writes: back to writing, a mode change
        add_queue(t_ - full_since_);
        full_ = false;
        if (!event_waiting_) event_since_ = t_;
        event_waiting_ = true;
    }
    read_status();
    if (by_timer_) {
        next_timer_ = t_ + in_seconds(m_.timer());
        timer_asked_ = next_timer_;
    }
    serve();
}

// The data device is full with data still to write: EIO in error_if_no_space, else writes queue (a mode change).
inline void stratis_run_simulation::on_full() noexcept {
    written_ = capacity();
    full_ = true;
    full_since_ = t_;
    ++r_.times_full;
    if (error_mode_) {
        fail_writes();
        return;
    }
    dm_event();
}

}  // namespace detail

/// Simulates one burst into a Stratis pool: writes run at the workload's rate while the pool has room and queue
/// while it is full; dm events (low water, metadata threshold, a full pool, a full pool grown) and the 10 s timer
/// run check(), one at a time, each deciding with decide_stratis_check on the status cached at the previous
/// check's end. The run ends when the last byte is written (and the check then running ends), or at the first
/// EIO. Deterministic for a seed: the timer's phase and each check's service time come from random_stream(seed).
/// The model is stratisd 3.1 and later's (its low-water mark at DATA_LOWATER, its events): give it a configuration of
/// that line (stratis_release::v3_1); stratisd 3.0, which gives the data device the whole backstore at each check,
/// is not modelled here.
PROVPOL_NODISCARD inline stratis_run_result simulate_stratis_run(const stratis_config& c, const stratis_check_timing& m,
                                                                 const stratis_pool_workload& w,
                                                                 std::uint64_t seed) noexcept {
    if (w.write.count() == 0 || w.write_rate.bytes_per_second() == 0 || w.pool_size < c.data_block()) {
        stratis_run_result r{};  // nothing is written (or no pool to write to)
        r.pool_end = w.pool_size;
        r.metadata_end = w.metadata_size;
        r.backstore_end = w.backstore_free;
        return r;
    }
    return detail::stratis_run_simulation(c, m, w, seed).run();
}

/// Runs simulate_stratis_run `runs` times, run i seeded with run_seed(seed, i), and adds them up in run order.
PROVPOL_NODISCARD inline stratis_plan_summary simulate_stratis_plan(const stratis_config& c,
                                                                    const stratis_check_timing& m,
                                                                    const stratis_pool_workload& w, std::uint32_t runs,
                                                                    std::uint64_t seed) noexcept {
    stratis_plan_summary s{};
    for (std::uint32_t i = 0; i < runs; ++i) {
        const stratis_run_result r = simulate_stratis_run(c, m, w, run_seed(seed, i));
        ++s.runs;
        s.data_extends_mean += r.data_extends;
        s.metadata_extends_mean += r.metadata_extends;
        s.checks_mean += r.checks;
        s.times_full_mean += r.times_full;
        if (r.error_if_no_space) ++s.error_mode_runs;
        s.error_mode_mean += r.error_mode;
        if (r.error_mode > s.error_mode_max) s.error_mode_max = r.error_mode;
        if (r.eio) ++s.eio_runs;
        if (r.queued > seconds(0)) ++s.queued_runs;
        s.queued_mean += r.queued;
        if (r.queued > s.queued_max) s.queued_max = r.queued;
        if (r.hung) ++s.hung_runs;
        if (r.pool_end > s.pool_end_max) s.pool_end_max = r.pool_end;
        if (r.metadata_end > s.metadata_end_max) s.metadata_end_max = r.metadata_end;
        if (r.backstore_end < s.backstore_end_min) s.backstore_end_min = r.backstore_end;
        s.ended_at_mean += r.ended_at;
    }
    if (s.runs != 0) {
        const auto n = static_cast<double>(s.runs);
        s.data_extends_mean /= n;
        s.metadata_extends_mean /= n;
        s.checks_mean /= n;
        s.times_full_mean /= n;
        s.error_mode_mean /= n;
        s.queued_mean /= n;
        s.ended_at_mean /= n;
    }
    return s;
}

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_STRATIS_POOL_HPP
