// provpol/simulate/stratis_pool.hpp - what a write burst does to a Stratis pool: stratisd's check() run on the dm
// event and on its 10 s timer, each deciding with extend/stratis.hpp's decide_stratis_check (exact to stratisd, not
// changed here), the backstore's free space limiting growth, the metadata doubling, and error_if_no_space when the
// backstore is exhausted. One run (simulate_stratis_run) and the summary over runs (simulate_stratis_plan), run i
// seeded with run_seed(seed, i) as the LVM and VDSM simulators seed theirs.
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
//       set_error_mode puts the table in error_if_no_space, after which the data part is skipped for good.
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
#include "../error.hpp"
#include "../extend/stratis.hpp"
#include "../random.hpp"
#include "../result.hpp"
#include "../time.hpp"
#include "run.hpp"
#include "search.hpp"

#include <cstdint>

namespace provpol {

/// When stratisd's checks run and how long they take, validated.
class stratis_check_timing {
public:
    /// A check that reloads no table takes uniform [check_min, check_max], one that does [extend_min, extend_max]
    /// (0 < min <= max <= 3600 s each); the timer sleeps `timer` (0.1-3600 s) after each timed check;
    /// no_space_timeout 0-86400 s (0: a full pool queues writes forever). Errors name the setting and the range.
    PROVPOL_NODISCARD static constexpr result<stratis_check_timing> make(
        seconds check_min, seconds check_max, seconds extend_min, seconds extend_max, seconds timer = seconds(10.0),
        seconds no_space_timeout = seconds(60.0)) noexcept {
        constexpr seconds zero(0.0), hour(3600.0), day(86400.0), tick(0.1);
        if (!(check_min > zero && within(check_min, zero, hour)))
            return unexpected(error::out_of_range("check_min", error_value_of(check_min), error_value_of(zero),
                                                  error_value_of(hour)));
        if (!within(check_max, check_min, hour))
            return unexpected(error::out_of_range("check_max", error_value_of(check_max), error_value_of(check_min),
                                                  error_value_of(hour)));
        if (!(extend_min > zero && within(extend_min, zero, hour)))
            return unexpected(error::out_of_range("extend_min", error_value_of(extend_min), error_value_of(zero),
                                                  error_value_of(hour)));
        if (!within(extend_max, extend_min, hour))
            return unexpected(error::out_of_range("extend_max", error_value_of(extend_max), error_value_of(extend_min),
                                                  error_value_of(hour)));
        if (!within(timer, tick, hour))
            return unexpected(
                error::out_of_range("timer", error_value_of(timer), error_value_of(tick), error_value_of(hour)));
        if (!within(no_space_timeout, zero, day))
            return unexpected(error::out_of_range("no_space_timeout", error_value_of(no_space_timeout),
                                                  error_value_of(zero), error_value_of(day)));
        return stratis_check_timing(check_min, check_max, extend_min, extend_max, timer, no_space_timeout);
    }

    PROVPOL_NODISCARD constexpr seconds check_min() const noexcept { return check_min_; }
    PROVPOL_NODISCARD constexpr seconds check_max() const noexcept { return check_max_; }
    PROVPOL_NODISCARD constexpr seconds extend_min() const noexcept { return extend_min_; }
    PROVPOL_NODISCARD constexpr seconds extend_max() const noexcept { return extend_max_; }
    PROVPOL_NODISCARD constexpr seconds timer() const noexcept { return timer_; }
    PROVPOL_NODISCARD constexpr seconds no_space_timeout() const noexcept { return no_space_; }

private:
    constexpr stratis_check_timing(seconds cmin, seconds cmax, seconds emin, seconds emax, seconds timer,
                                   seconds no_space) noexcept
        : check_min_(cmin),
          check_max_(cmax),
          extend_min_(emin),
          extend_max_(emax),
          timer_(timer),
          no_space_(no_space) {}

    seconds check_min_, check_max_, extend_min_, extend_max_, timer_, no_space_;
};

/// The defaults, assumed rather than measured: a check that only reads (the pool's status, thin_metadata_size run
/// as a process) 10-50 ms; one that reloads the pool's table (suspend, which waits for in-flight writes, reload,
/// resume, the pool's metadata saved to its devices) 0.1-0.5 s; stratisd's 10 s timer; dm-thin's 60 s
/// no_space_timeout.
PROVPOL_NODISCARD constexpr stratis_check_timing stratis_check_timing_default() noexcept {
    return stratis_check_timing::make(seconds(0.01), seconds(0.05), seconds(0.1), seconds(0.5)).value();
}

/// Mapped data blocks per 4 KiB metadata block: btree leaves half full (thin-provisioning-tools' estimate).
inline constexpr std::uint64_t stratis_mappings_per_metadata_block = 126;

/// thin_metadata_size's answer in sectors in the form of thin-provisioning-tools' metadata_size estimate: a 4 KiB
/// leaf (8 sectors) per 126 data blocks of `usable`, plus one per thin device of `max_thins` (stratisd passes its
/// fs_limit, 100 by default). An input of stratis_metadata_size; give a real pool's metadata size where it differs.
PROVPOL_NODISCARD constexpr std::uint64_t stratis_thin_metadata_sectors(bytes usable, bytes data_block,
                                                                        std::uint64_t max_thins = 100) noexcept {
    const std::uint64_t blocks = usable.count() / data_block.count();
    const std::uint64_t leaves =
        blocks / stratis_mappings_per_metadata_block + (blocks % stratis_mappings_per_metadata_block != 0 ? 1 : 0);
    return saturating_mul(saturating_add(leaves, max_thins), 8);
}

/// A burst of writes into a Stratis pool (every filesystem together: they share the pool's data blocks).
struct stratis_pool_workload {
    bytes pool_size;                     ///< the thin pool's data device when the burst starts
    bytes pool_used{};                   ///< data already in the pool
    bytes backstore_free;                ///< the backstore's unallocated space (available_in_backstore)
    bytes metadata_size{};               ///< the metadata device (its spare is as large)
    std::uint64_t metadata_sectors = 0;  ///< thin_metadata_size's answer for the data tier (0: no growth from it)
    bytes write;                         ///< new data written in all
    rate write_rate;                     ///< bytes per second in all, while the pool has room
};

/// Sizes the metadata as stratisd sizes a new pool's for the data tier the workload implies (its data device, the
/// MDV and the backstore's free space): metadata_sectors is the estimate of stratis_thin_metadata_sectors for it,
/// metadata_size what stratis_metadata_size makes of that (x 8, whole data blocks, at most the cap).
constexpr void stratis_size_metadata(const stratis_config& c, stratis_pool_workload& w) noexcept {
    w.metadata_sectors = stratis_thin_metadata_sectors(w.pool_size + c.mdv_size() + w.backstore_free, c.data_block());
    w.metadata_size = stratis_metadata_size(c, w.metadata_sectors);
}

/// One run of a burst.
struct stratis_run_result {
    std::uint32_t data_extends = 0;      ///< checks that grew the data device
    std::uint32_t metadata_extends = 0;  ///< checks that grew the metadata device (doubled or to the estimate)
    std::uint32_t checks = 0;            ///< check() runs, by the timer and by dm events
    std::uint32_t times_full = 0;        ///< times the data device filled with data still to write
    bool error_if_no_space = false;      ///< a check put the pool in error_if_no_space (the backstore short)
    seconds error_mode = seconds(0);     ///< from that check's end to the run's end
    seconds queued = seconds(0);         ///< how long writes waited on a full pool (queue_if_no_space), in all
    seconds longest_queue = seconds(0);  ///< the longest of those waits
    bool eio =
        false;  ///< writes failed: a full pool in error_if_no_space, queued past no_space_timeout, or metadata full
    bool hung = false;              ///< writes still queued a day after the burst should have ended
    bytes pool_end;                 ///< the data device when the run ended
    bytes metadata_end;             ///< the metadata device then
    bytes backstore_end;            ///< the backstore's free space then
    seconds ended_at = seconds(0);  ///< when the last byte was written, or writes failed
};

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
        lwm_ = half < c.lowater_blocks() ? half : c.lowater_blocks();
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
        s.data_used = cached_used_;
        s.metadata_size = meta_;
        s.metadata_used = cached_meta_used_;
        s.metadata_low_water = cached_meta_mark_;
        s.metadata_estimate = estimate_;
        s.available = available_;
        s.datatier_usable = usable_;
        s.error_if_no_space = error_mode_;
        s.out_of_metadata_space = out_of_meta_;
        decision_ = decide_stratis_check(c_, s);
        const bool reload = decision_.metadata == stratis_outcome::extend || decision_.low_water_blocks != 0 ||
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
    const std::uint64_t estimate_;
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
    if (d.low_water_blocks != 0) {
        lwm_ = d.low_water_blocks;
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

/// What runs of a burst show together.
struct stratis_plan_summary {
    std::uint32_t runs = 0;
    double data_extends_mean = 0.0;
    double metadata_extends_mean = 0.0;
    double checks_mean = 0.0;
    double times_full_mean = 0.0;
    std::uint32_t error_mode_runs = 0;     ///< runs a check put in error_if_no_space
    seconds error_mode_mean = seconds(0);  ///< seconds in error_if_no_space, over all runs
    seconds error_mode_max = seconds(0);
    std::uint32_t eio_runs = 0;     ///< runs whose writes failed (EIO)
    std::uint32_t queued_runs = 0;  ///< runs that queued writes on a full pool
    seconds queued_mean = seconds(0);
    seconds queued_max = seconds(0);
    std::uint32_t hung_runs = 0;
    bytes pool_end_max;
    bytes metadata_end_max;
    bytes backstore_end_min = bytes::max();
    seconds ended_at_mean = seconds(0);
};

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

/// recommend's question: the smallest backstore free space, in whole GiB in [1, max_gib], such that in every one
/// of `runs` runs (seeded as simulate_stratis_plan seeds them) the pool never enters error_if_no_space and no write
/// fails (EIO), the workload's backstore_free replaced by each candidate (and, with `metadata_for_tier`, its
/// metadata sized by stratis_size_metadata for the tier that candidate makes, as a pool created on it has). A scan
/// (search.hpp's smallest_meeting): every smaller candidate was simulated and missed; not found when none in the range
/// meets.
struct stratis_headroom_answer {
    std::uint64_t gib = 0;           ///< the answer (meaningful when found)
    bool found = false;              ///< a candidate in [1, max_gib] meets
    std::uint64_t evaluations = 0;   ///< candidates simulated
    stratis_plan_summary at_answer;  ///< the plan at the answer (at max_gib when not found)
};

/// The largest headroom recommend needs to look at: past it the data side cannot run short (the backstore holds
/// what is written beyond the pool plus DATA_LOWATER) and the metadata and its spare can grow to their cap.
PROVPOL_NODISCARD constexpr std::uint64_t stratis_headroom_bound(const stratis_config& c,
                                                                 const stratis_pool_workload& w) noexcept {
    constexpr std::uint64_t gib = std::uint64_t{1} << 30;
    const bytes need = (w.pool_used + w.write + c.data_lowater()) - w.pool_size;
    const std::uint64_t data = need.count() / gib + (need.count() % gib != 0 ? 1 : 0);
    const bytes meta = saturating_mul(c.max_metadata(), 2);
    return saturating_add(saturating_add(data, meta.count() / gib + 1), 1);
}

/// Answers stratis_headroom_answer's question (see there) with smallest_meeting over [1, max_gib].
PROVPOL_NODISCARD inline stratis_headroom_answer recommend_stratis_headroom(const stratis_config& c,
                                                                            const stratis_check_timing& m,
                                                                            stratis_pool_workload w, std::uint32_t runs,
                                                                            std::uint64_t seed, std::uint64_t max_gib,
                                                                            bool metadata_for_tier = false) noexcept {
    const auto plan_at = [&](std::uint64_t gib) {
        w.backstore_free = bytes(saturating_mul(gib, std::uint64_t{1} << 30));
        if (metadata_for_tier) stratis_size_metadata(c, w);
        return simulate_stratis_plan(c, m, w, runs, seed);
    };
    const auto meets = [&](std::uint64_t gib) {
        const stratis_plan_summary s = plan_at(gib);
        return s.error_mode_runs == 0 && s.eio_runs == 0;
    };
    stratis_headroom_answer a{};
    const result<search_answer<std::uint64_t>> found = smallest_meeting(std::uint64_t{1}, max_gib, meets);
    if (found) {  // meets returns bool: no error to pass on
        a.gib = found->value;
        a.found = found->found;
        a.evaluations = found->evaluations;
    }
    a.at_answer = plan_at(a.found ? a.gib : max_gib);
    return a;
}

}  // namespace provpol

#endif  // PROVPOL_SIMULATE_STRATIS_POOL_HPP
