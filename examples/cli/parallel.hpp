// The simulating subcommands' threads (--jobs): a sequence of independent tasks, numbered 0 to n - 1, computed on
// several threads in any order and handed back to the calling thread in task order. Whatever adds the results up
// (run_accumulator::add, the means over domain runs) then adds them in the same order on one thread as on many, so
// the output does not depend on the number of threads, to the last bit of every floating-point sum. The threads
// live here, in the CLI: the library's simulators are single-threaded functions of a run's index.
#ifndef PROVPOL_CLI_PARALLEL_HPP
#define PROVPOL_CLI_PARALLEL_HPP

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <new>
#include <optional>
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace provpol::cli {

/// The most threads --jobs accepts.
inline constexpr std::uint64_t max_jobs = 1024;

/// What --jobs defaults to: every core the system reports (std::thread::hardware_concurrency), at least one.
inline unsigned default_jobs() noexcept {
    const unsigned n = std::thread::hardware_concurrency();
    return n < 1 ? 1u : (n > max_jobs ? static_cast<unsigned>(max_jobs) : n);
}

/// Runs f(i) for every i in [0, n) on up to `jobs` threads, the calling thread one of them, and returns when all
/// are done. The indices are handed out in increasing order. When an f(i) throws, no index above i starts, and
/// once every thread has stopped the exception of the smallest index that threw is rethrown: the same error
/// whatever the number of threads. `after_each(done)` runs on the calling thread after each task it ran itself,
/// with the number of tasks finished so far (progress). A thread the system refuses to start leaves its share to
/// the others.
template <class F, class AfterEach>
void parallel_for(std::size_t n, unsigned jobs, F&& f, AfterEach&& after_each) {
    std::atomic<std::size_t> next{0}, finished{0}, stop{n};  // stop: the smallest index that threw (n: none)
    std::mutex error_mutex;
    std::exception_ptr error;
    const auto work = [&](bool caller) {
        for (;;) {
            const std::size_t i = next.fetch_add(1, std::memory_order_relaxed);
            if (i >= n || i > stop.load(std::memory_order_acquire)) return;
            try {
                f(i);
                const std::size_t d = finished.fetch_add(1, std::memory_order_relaxed) + 1;
                if (caller) after_each(d);
            } catch (...) {
                const std::lock_guard<std::mutex> lock(error_mutex);
                if (i < stop.load(std::memory_order_relaxed)) {
                    stop.store(i, std::memory_order_release);
                    error = std::current_exception();
                }
            }
        }
    };
    std::vector<std::thread> threads;
    const std::size_t extra = jobs < 1 ? 0 : (n < jobs ? (n > 0 ? n - 1 : 0) : jobs - 1);
    try {
        threads.reserve(extra);
        for (std::size_t t = 0; t < extra; ++t) threads.emplace_back(work, false);
    } catch (const std::system_error&) {  // fewer threads than asked: the others take their share
    } catch (const std::bad_alloc&) {
    }
    work(true);
    for (std::thread& t : threads) t.join();
    if (error) std::rethrow_exception(error);
}

/// Computes compute(i) for every task i in [0, n) with parallel_for, `window` tasks at a time (to bound the
/// results held at once), and hands each result to consume(i, result) on the calling thread, in task order.
/// `progress(done, n)` runs on the calling thread as tasks finish.
template <class Compute, class Consume, class Progress>
void ordered_parallel(std::uint64_t n, unsigned jobs, std::uint64_t window, Compute&& compute, Consume&& consume,
                      Progress&& progress) {
    using value = std::decay_t<decltype(compute(std::uint64_t{}))>;
    if (window < 1) window = 1;
    std::vector<std::optional<value>> results;
    for (std::uint64_t first = 0; first < n; first += window) {
        const std::uint64_t count = n - first < window ? n - first : window;
        results.clear();
        results.resize(static_cast<std::size_t>(count));
        parallel_for(
            static_cast<std::size_t>(count), jobs, [&](std::size_t i) { results[i].emplace(compute(first + i)); },
            [&](std::size_t done) { progress(first + done, n); });
        for (std::size_t i = 0; i < count; ++i) consume(first + i, std::move(*results[i]));
    }
}

}  // namespace provpol::cli

#endif  // PROVPOL_CLI_PARALLEL_HPP
