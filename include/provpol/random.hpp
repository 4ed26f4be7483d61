// provpol/random.hpp - provpol::random_stream, a small seeded generator whose output is the same on every platform and
// standard library (std::*_distribution is not), for the simulator and for the tests' property sweeps.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_RANDOM_HPP
#define PROVPOL_RANDOM_HPP

#include "config.hpp"

#include <cstdint>

namespace provpol {
namespace detail {

// The generators below rely on unsigned arithmetic modulo 2^64 (PROVPOL_MODULAR_ARITHMETIC, config.hpp).

/// SplitMix64 (Steele, Lea and Flood, 2014): seeds xoshiro, and is a fine generator for short sweeps.
class splitmix64 {
public:
    constexpr explicit splitmix64(std::uint64_t seed) noexcept : state_(seed) {}
    PROVPOL_MODULAR_ARITHMETIC constexpr std::uint64_t next() noexcept {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }

private:
    std::uint64_t state_;
};

}  // namespace detail

/// The random stream latency models draw from (flow/clocks.hpp, simulate/agent.hpp): xoshiro256** (Blackman and Vigna,
/// 2018) seeded through SplitMix64, the same sequence on every platform and standard library. simulate_run()
/// seeds one per run; a latency model of one's own draws only from the stream it is given.
class random_stream {
public:
    constexpr explicit random_stream(std::uint64_t seed) noexcept {
        detail::splitmix64 sm(seed);
        for (std::uint64_t& w : s_) w = sm.next();
    }
    PROVPOL_MODULAR_ARITHMETIC constexpr std::uint64_t next() noexcept {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    /// A uniform double in [0, 1) from the top 53 bits: exact and identical everywhere.
    constexpr double uniform() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
    /// A uniform integer in [0, n), by rejection: unbiased and the same everywhere. n == 0 yields 0.
    PROVPOL_MODULAR_ARITHMETIC constexpr std::uint64_t below(std::uint64_t n) noexcept {
        if (n == 0) return 0;
        const std::uint64_t limit = (0 - n) % n;  // 2^64 mod n
        for (;;) {
            const std::uint64_t x = next();
            if (x >= limit) return x % n;
        }
    }

private:
    PROVPOL_MODULAR_ARITHMETIC static constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept {
        return (x << k) | (x >> (64 - k));
    }
    std::uint64_t s_[4] = {};
};

namespace detail {
/// The generator under its algorithm's name (the tests' property sweeps use it).
using xoshiro256 = random_stream;
}  // namespace detail

}  // namespace provpol

#endif  // PROVPOL_RANDOM_HPP
