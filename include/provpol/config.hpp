// provpol/config.hpp - language check, version, and the PROVPOL_* macros every header uses.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_CONFIG_HPP
#define PROVPOL_CONFIG_HPP

#if defined(_MSVC_LANG)
#define PROVPOL_CPLUSPLUS _MSVC_LANG
#else
#define PROVPOL_CPLUSPLUS __cplusplus
#endif

#if PROVPOL_CPLUSPLUS < 201703L
#error "provpol needs C++17 or later; compile with -std=c++17 (GCC, Clang) or /std:c++17 (MSVC)."
#endif

#include <cstdint>
#include <cstdio>
#if !defined(__GNUC__) && !defined(__clang__)
#include <cstdlib>
#endif

// Version of the library. tests/version_test.cpp checks these against project(VERSION) in CMakeLists.txt.
#define PROVPOL_VERSION_MAJOR 0
#define PROVPOL_VERSION_MINOR 1
#define PROVPOL_VERSION_PATCH 0
/// The version as one comparable number: major * 10000 + minor * 100 + patch.
#define PROVPOL_VERSION (PROVPOL_VERSION_MAJOR * 10000 + PROVPOL_VERSION_MINOR * 100 + PROVPOL_VERSION_PATCH)
#define PROVPOL_VERSION_STRING "0.1.0"

/// 1 when the translation unit is compiled with exception support, 0 otherwise (-fno-exceptions).
#ifndef PROVPOL_HAS_EXCEPTIONS
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#define PROVPOL_HAS_EXCEPTIONS 1
#else
#define PROVPOL_HAS_EXCEPTIONS 0
#endif
#endif

#define PROVPOL_NODISCARD [[nodiscard]]

#if defined(__GNUC__) || defined(__clang__)
#define PROVPOL_LIKELY(x) __builtin_expect(!!(x), 1)
#define PROVPOL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define PROVPOL_LIKELY(x) (x)
#define PROVPOL_UNLIKELY(x) (x)
#endif

/// PROVPOL_COLD: an out-of-line, rarely taken path (e.g. the saturating path of a decision for sizes near
/// 2^64), kept out of the hot path so that the hot path stays small enough to inline.
/// PROVPOL_ALWAYS_INLINE: a batch kernel that must be compiled inside its caller (e.g. a caller built for AVX2).
/// PROVPOL_RESTRICT: the pointers of a batch do not alias, so that compilers vectorise without run-time checks.
#if defined(__GNUC__) || defined(__clang__)
#define PROVPOL_COLD __attribute__((noinline, cold))
#define PROVPOL_ALWAYS_INLINE __attribute__((always_inline)) inline
#define PROVPOL_RESTRICT __restrict
#elif defined(_MSC_VER)
#define PROVPOL_COLD __declspec(noinline)
#define PROVPOL_ALWAYS_INLINE __forceinline
#define PROVPOL_RESTRICT __restrict
#else
#define PROVPOL_COLD
#define PROVPOL_ALWAYS_INLINE inline
#define PROVPOL_RESTRICT
#endif

/// PROVPOL_MODULAR_ARITHMETIC: the function relies on unsigned arithmetic modulo 2^n by design (random
/// generators, branch-free batch kernels); tells clang's integer sanitizer so.
#if defined(__clang__)
#define PROVPOL_MODULAR_ARITHMETIC __attribute__((no_sanitize("unsigned-integer-overflow", "unsigned-shift-base")))
#else
#define PROVPOL_MODULAR_ARITHMETIC
#endif

namespace provpol::detail {

/// 2^64 - 1: where saturating arithmetic stops (std::numeric_limits without <limits>, see tools/compile_cost.sh).
inline constexpr std::uint64_t max_u64 = ~std::uint64_t{0};

/// The body of the to_text of an enum whose enumerators count from 0: names[e], or "unknown" for a value that is
/// none of them (a cast). The caller static_asserts that N is the number of enumerators.
template <class E, std::size_t N>
PROVPOL_NODISCARD constexpr const char* enum_name(const char* const (&names)[N], E e) noexcept {
    const auto i = static_cast<std::size_t>(e);
    return i < N ? names[i] : "unknown";
}

/// abort() without <cstdlib> where the compiler has it built in.
[[noreturn]] inline void abort_now() noexcept {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_abort();
#else
    std::abort();
#endif
}

/// Prints where an assertion failed and aborts. Never returns; deliberately not constexpr, so a failed
/// PROVPOL_ASSERT inside a constant expression is a compile error.
[[noreturn]] inline void assert_fail(const char* file, int line, const char* message) noexcept {
    static_cast<void>(std::fprintf(stderr, "%s:%d: provpol assertion failed: %s\n", file, line, message));
    abort_now();
}

/// What PROVPOL_THROW does when exceptions are disabled: print the reason and abort.
[[noreturn]] inline void throw_disabled(const char* what) noexcept {
    static_cast<void>(std::fprintf(stderr, "provpol: %s (exceptions are disabled)\n", what));
    abort_now();
}

}  // namespace provpol::detail

/// PROVPOL_ASSERT(condition, message): checks an internal invariant or a documented precondition.
/// Active unless NDEBUG is defined; a user may define it before including any provpol header.
#ifndef PROVPOL_ASSERT
#ifdef NDEBUG
#define PROVPOL_ASSERT(condition, message) static_cast<void>(0)
#else
#define PROVPOL_ASSERT(condition, message) \
    ((condition) ? static_cast<void>(0) : ::provpol::detail::assert_fail(__FILE__, __LINE__, (message)))
#endif
#endif

/// PROVPOL_THROW(exception): every throw in provpol goes through here. Without exception support it prints
/// the exception's what() and aborts, so the library builds with -fno-exceptions. A user may define it.
#ifndef PROVPOL_THROW
#if PROVPOL_HAS_EXCEPTIONS
#define PROVPOL_THROW(exception) throw exception
#else
#define PROVPOL_THROW(exception) ::provpol::detail::throw_disabled((exception).what())
#endif
#endif

#endif  // PROVPOL_CONFIG_HPP
