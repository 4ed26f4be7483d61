// provpol/result.hpp - result<T>: a value or an error (error.hpp), shaped like a subset of C++23 std::expected.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_RESULT_HPP
#define PROVPOL_RESULT_HPP

#include "config.hpp"
#include "detail/traits.hpp"
#include "error.hpp"

#include <cstdint>
#include <new>
#include "text.hpp"

// std::exception, bad_result_access's base: libstdc++ declares it in <new> (bits/exception.h); <exception> adds
// exception_ptr, nested_exception and <typeinfo>, 13 million compiler instructions more per translation unit with
// g++ 12 (tools/compile_cost.sh --instructions). Other standard libraries get <exception>.
#if !defined(__GLIBCXX__)
#include <exception>
#endif

namespace provpol {

// ------------------------------------------------------------------------------------------------------------
// unexpected<E>, bad_result_access<E>

/// Wraps an error so that it converts to any result<T, E> (std::unexpected's role).
template <class E>
class unexpected {
public:
    constexpr explicit unexpected(const E& e) noexcept(noexcept(E(e))) : e_(e) {}
    constexpr explicit unexpected(E&& e) noexcept(noexcept(E(static_cast<E&&>(e)))) : e_(static_cast<E&&>(e)) {}
    PROVPOL_NODISCARD constexpr const E& error() const& noexcept { return e_; }
    PROVPOL_NODISCARD constexpr E& error() & noexcept { return e_; }
    PROVPOL_NODISCARD constexpr E&& error() && noexcept { return static_cast<E&&>(e_); }

private:
    E e_;
};
template <class E>
unexpected(E) -> unexpected<E>;

/// Thrown by result<T, E>::value() on an error (std::bad_expected_access's role). what() is the error's
/// message when E is provpol::error.
template <class E>
class bad_result_access : public std::exception {
public:
    explicit bad_result_access(E e) : e_(detail::move(e)) {
        if constexpr (detail::is_same_v<E, ::provpol::error>) {
            what_ = e_.message();
        } else {
            what_.append("provpol: bad result access");
        }
    }
    PROVPOL_NODISCARD const E& error() const noexcept { return e_; }
    PROVPOL_NODISCARD const char* what() const noexcept override { return what_.c_str(); }

private:
    E e_;
    error_message what_;
};

// ------------------------------------------------------------------------------------------------------------
// result<T, E>

template <class T, class E>
class PROVPOL_NODISCARD result;

namespace detail {

// Whether T is trivially copyable and destructible (detail/traits.hpp: the compilers' builtins, not <type_traits>).
template <class T>
inline constexpr bool is_trivial_value_v = is_trivially_copyable_v<T>&& is_trivially_destructible_v<T>;

// Whether result<T, E>'s value constructor takes a U: T is constructible from it and it is neither the result
// itself nor an unexpected<E> (those have their own constructors). The specializations answer for the latter
// without asking whether T is constructible from them, which every `return unexpected(...)` would otherwise ask.
template <class T, class E, class U, class D = detail::remove_cvref_t<U>>
inline constexpr bool is_value_arg_v = is_constructible_v<T, U&&>;
template <class T, class E, class U>
inline constexpr bool is_value_arg_v<T, E, U, unexpected<E>> = false;
template <class T, class E, class U>
inline constexpr bool is_value_arg_v<T, E, U, result<T, E>> = false;
// A T itself: the non-template constructors take it, without a question to the compiler.
template <class T, class E, class U>
inline constexpr bool is_value_arg_v<T, E, U, T> = false;

// Deletes the copy and move operations that T and E do not have, as an empty base of result: the storage below
// defines all four (it must, for its union), so without this gate result<T> would say it is copyable for a
// move-only T and fail only when the copy is instantiated. Defaulted members keep a trivial T's result trivial.
template <bool Copy, bool Move>
struct copy_move_gate {};
template <>
struct copy_move_gate<false, true> {
    copy_move_gate() = default;
    copy_move_gate(const copy_move_gate&) = delete;
    copy_move_gate(copy_move_gate&&) = default;
    copy_move_gate& operator=(const copy_move_gate&) = delete;
    copy_move_gate& operator=(copy_move_gate&&) = default;
    ~copy_move_gate() = default;
};
template <>
struct copy_move_gate<false, false> {
    copy_move_gate() = default;
    copy_move_gate(const copy_move_gate&) = delete;
    copy_move_gate(copy_move_gate&&) = delete;
    copy_move_gate& operator=(const copy_move_gate&) = delete;
    copy_move_gate& operator=(copy_move_gate&&) = delete;
    ~copy_move_gate() = default;
};
template <class T, class E>
using result_gate = copy_move_gate<detail::is_copy_constructible_v<T> && detail::is_copy_constructible_v<E>,
                                   detail::is_move_constructible_v<T> && detail::is_move_constructible_v<E>>;

struct in_place_value_t {};
struct in_place_error_t {};
// result<void, E>'s value: nothing.
struct void_value {};

// Storage for trivially copyable and destructible T and E: trivially destructible itself, so result is a literal type
// and usable in constant expressions.
template <class T, class E, bool = is_trivial_value_v<T>&& is_trivial_value_v<E>>
struct result_storage {
    // Not templates: each decision's factory instantiates result<T> for its own T, and g++ 12 spends more on
    // deducing a variadic constructor per T than on the rest of this class.
    constexpr result_storage(in_place_value_t, const T& v) noexcept : val_(v), has_(true) {}
    constexpr result_storage(in_place_error_t, const E& e) noexcept : err_(e), has_(false) {}
    union {
        T val_;
        E err_;
    };
    bool has_;
};

template <class T, class E>
struct result_storage<T, E, false> {
    constexpr result_storage(in_place_value_t, const T& v) : val_(v), has_(true) {}
    constexpr result_storage(in_place_value_t, T&& v) : val_(detail::move(v)), has_(true) {}
    constexpr result_storage(in_place_error_t, const E& e) : err_(e), has_(false) {}
    constexpr result_storage(in_place_error_t, E&& e) : err_(detail::move(e)), has_(false) {}
    result_storage(const result_storage& o) : has_(o.has_) {
        if (has_)
            ::new (static_cast<void*>(&val_)) T(o.val_);
        else
            ::new (static_cast<void*>(&err_)) E(o.err_);
    }
    result_storage(result_storage&& o) noexcept(
        detail::is_nothrow_move_constructible_v<T>&& detail::is_nothrow_move_constructible_v<E>)
        : has_(o.has_) {
        if (has_)
            ::new (static_cast<void*>(&val_)) T(detail::move(o.val_));
        else
            ::new (static_cast<void*>(&err_)) E(detail::move(o.err_));
    }
    // Assignment gives the strong guarantee: when the state changes, the new member is built before the old one
    // is destroyed (through a temporary, or by restoring the old one if building throws), so a throwing copy
    // leaves *this as it was. E (provpol::error) copies without throwing.
    result_storage& operator=(const result_storage& o) {
        if (this == &o) return *this;
        if (has_ && o.has_)
            val_ = o.val_;
        else if (!has_ && !o.has_)
            err_ = o.err_;
        else if (o.has_)
            reinit(val_, err_, o.val_);
        else
            reinit(err_, val_, o.err_);
        has_ = o.has_;
        return *this;
    }
    result_storage& operator=(result_storage&& o) noexcept(
        detail::is_nothrow_move_constructible_v<T>&& detail::is_nothrow_move_assignable_v<T>&&
            detail::is_nothrow_move_constructible_v<E>&& detail::is_nothrow_move_assignable_v<E>) {
        if (this == &o) return *this;
        if (has_ && o.has_)
            val_ = detail::move(o.val_);
        else if (!has_ && !o.has_)
            err_ = detail::move(o.err_);
        else if (o.has_)
            reinit(val_, err_, detail::move(o.val_));
        else
            reinit(err_, val_, detail::move(o.err_));
        has_ = o.has_;
        return *this;
    }
    // Replaces the live `old_member` by a New built from `arg`, std::expected's way: directly when that cannot
    // throw; through a temporary when moving cannot; else by moving the old one aside and back on failure.
    template <class New, class Old, class Arg>
    static void reinit(New& new_member, Old& old_member, Arg&& arg) {
        if constexpr (detail::is_nothrow_constructible_v<New, Arg&&>) {
            old_member.~Old();
            ::new (static_cast<void*>(&new_member)) New(detail::forward<Arg>(arg));
        } else if constexpr (detail::is_nothrow_move_constructible_v<New>) {
            New tmp(detail::forward<Arg>(arg));
            old_member.~Old();
            ::new (static_cast<void*>(&new_member)) New(detail::move(tmp));
        } else {
            static_assert(detail::is_nothrow_move_constructible_v<Old>,
                          "result: assignment needs T or E to move without throwing (as std::expected)");
            Old saved(detail::move(old_member));
            old_member.~Old();
#if PROVPOL_HAS_EXCEPTIONS
            try {
                ::new (static_cast<void*>(&new_member)) New(detail::forward<Arg>(arg));
            } catch (...) {
                ::new (static_cast<void*>(&old_member)) Old(detail::move(saved));
                throw;
            }
#else
            ::new (static_cast<void*>(&new_member)) New(detail::forward<Arg>(arg));
#endif
        }
    }
    ~result_storage() { destroy(); }
    void destroy() noexcept {
        if (has_)
            val_.~T();
        else
            err_.~E();
    }
    union {
        T val_;
        E err_;
    };
    bool has_;
};

}  // namespace detail

/// A T or an E: provpol's validation result, shaped like a subset of std::expected<T, E> (has_value,
/// operator bool, value, error, operator*, operator->, value_or, and_then, transform), so that moving to
/// C++23 is mechanical. value() on an error throws bad_result_access<E> through PROVPOL_THROW.
template <class T, class E = error>
class PROVPOL_NODISCARD result : private detail::result_gate<T, E> {
    static_assert(!detail::is_reference_v<T>, "result<T, E>: T must not be a reference");

public:
    using value_type = T;
    using error_type = E;

    /// A value: `return bytes(42);`, `result<bytes> r = bytes(42);`.
    // NOLINTNEXTLINE(google-explicit-constructor)
    constexpr result(const T& v) : s_(detail::in_place_value_t{}, v) {}
    // NOLINTNEXTLINE(google-explicit-constructor)
    constexpr result(T&& v) : s_(detail::in_place_value_t{}, static_cast<T&&>(v)) {}
    /// A value made from a U, explicit exactly when T's own conversion from U is (std::expected's
    /// explicit(!is_convertible_v<U, T>)): `result<bytes> r = 42;` does not compile, as `bytes b = 42;` does not.
    template <class U,
              detail::enable_if_t<detail::is_value_arg_v<T, E, U> && detail::is_convertible_v<U&&, T>, int> = 0>
    // NOLINTNEXTLINE(google-explicit-constructor, bugprone-forwarding-reference-overload)
    constexpr result(U&& v) : s_(detail::in_place_value_t{}, T(detail::forward<U>(v))) {}
    template <class U,
              detail::enable_if_t<detail::is_value_arg_v<T, E, U> && !detail::is_convertible_v<U&&, T>, int> = 0>
    // NOLINTNEXTLINE(bugprone-forwarding-reference-overload)
    constexpr explicit result(U&& v) : s_(detail::in_place_value_t{}, T(detail::forward<U>(v))) {}

    /// An error: `return unexpected(error::out_of_range(...));`. The non-template constructor takes the common
    /// case, an unexpected<E> prvalue, without template argument deduction (a sixth of what g++ spends on each
    /// such return); the templates take the others.
    // NOLINTNEXTLINE(google-explicit-constructor)
    constexpr result(unexpected<E>&& u) : s_(detail::in_place_error_t{}, static_cast<unexpected<E>&&>(u).error()) {}
    template <class G, class = detail::enable_if_t<detail::is_constructible_v<E, const G&>>>
    // NOLINTNEXTLINE(google-explicit-constructor)
    constexpr result(const unexpected<G>& u) : s_(detail::in_place_error_t{}, E(u.error())) {}
    template <class G, class = detail::enable_if_t<detail::is_constructible_v<E, G&&>>>
    // NOLINTNEXTLINE(google-explicit-constructor)
    constexpr result(unexpected<G>&& u) : s_(detail::in_place_error_t{}, E(detail::move(u).error())) {}

    PROVPOL_NODISCARD constexpr bool has_value() const noexcept { return s_.has_; }
    constexpr explicit operator bool() const noexcept { return s_.has_; }

    /// The value; throws bad_result_access<E> (or aborts without exceptions) on an error.
    PROVPOL_NODISCARD constexpr T& value() & {
        check();
        return s_.val_;
    }
    PROVPOL_NODISCARD constexpr const T& value() const& {
        check();
        return s_.val_;
    }
    PROVPOL_NODISCARD constexpr T&& value() && {
        check();
        return detail::move(s_.val_);
    }

    /// The error. Precondition: !has_value().
    PROVPOL_NODISCARD constexpr const E& error() const& noexcept {
        PROVPOL_ASSERT(!s_.has_, "result::error() called on a value");
        return s_.err_;
    }
    PROVPOL_NODISCARD constexpr E& error() & noexcept {
        PROVPOL_ASSERT(!s_.has_, "result::error() called on a value");
        return s_.err_;
    }

    /// The value without a check. Precondition: has_value().
    PROVPOL_NODISCARD constexpr const T& operator*() const& noexcept {
        PROVPOL_ASSERT(s_.has_, "result: dereferenced an error");
        return s_.val_;
    }
    PROVPOL_NODISCARD constexpr T& operator*() & noexcept {
        PROVPOL_ASSERT(s_.has_, "result: dereferenced an error");
        return s_.val_;
    }
    constexpr const T* operator->() const noexcept {
        PROVPOL_ASSERT(s_.has_, "result: dereferenced an error");
        return &s_.val_;
    }
    constexpr T* operator->() noexcept {
        PROVPOL_ASSERT(s_.has_, "result: dereferenced an error");
        return &s_.val_;
    }

    /// The value, or `fallback` on an error; `fallback` must convert to T implicitly (as std::expected mandates), so
    /// `value_or(0)` on a result<bytes> is a compile error, not an explicit constructor called silently.
    template <class U>
    PROVPOL_NODISCARD constexpr T value_or(U&& fallback) const& {
        static_assert(detail::is_convertible_v<U&&, T>,
                      "result::value_or: the fallback must convert to T implicitly (write value_or(T(...)))");
        return s_.has_ ? s_.val_ : static_cast<T>(detail::forward<U>(fallback));
    }

    /// f(value) -> result<U, E> on a value; the same error otherwise.
    template <class F>
    constexpr auto and_then(F&& f) const& {
        using R = detail::remove_cvref_t<decltype(detail::forward<F>(f)(s_.val_))>;
        if (s_.has_) return detail::forward<F>(f)(s_.val_);
        return R(unexpected<E>(s_.err_));
    }
    /// result<U, E>{f(value)} on a value; the same error otherwise.
    template <class F>
    constexpr auto transform(F&& f) const& {
        using U = detail::remove_cvref_t<decltype(detail::forward<F>(f)(s_.val_))>;
        if (s_.has_) return result<U, E>(detail::forward<F>(f)(s_.val_));
        return result<U, E>(unexpected<E>(s_.err_));
    }

private:
    constexpr void check() const {
        if (PROVPOL_UNLIKELY(!s_.has_)) PROVPOL_THROW(bad_result_access<E>(s_.err_));
    }
    detail::result_storage<T, E> s_;
};

/// result<void, E>: success or an error (validation that produces nothing). Success constructs no error: the error's
/// bytes are written only when there is one.
template <class E>
class PROVPOL_NODISCARD result<void, E> : private detail::result_gate<detail::void_value, E> {
public:
    using value_type = void;
    using error_type = E;

    constexpr result() noexcept : s_(detail::in_place_value_t{}, detail::void_value{}) {}
    // NOLINTNEXTLINE(google-explicit-constructor)
    constexpr result(unexpected<E>&& u) : s_(detail::in_place_error_t{}, static_cast<unexpected<E>&&>(u).error()) {}
    template <class G, class = detail::enable_if_t<detail::is_constructible_v<E, const G&>>>
    // NOLINTNEXTLINE(google-explicit-constructor)
    constexpr result(const unexpected<G>& u) : s_(detail::in_place_error_t{}, E(u.error())) {}

    PROVPOL_NODISCARD constexpr bool has_value() const noexcept { return s_.has_; }
    constexpr explicit operator bool() const noexcept { return s_.has_; }
    constexpr void value() const {
        if (PROVPOL_UNLIKELY(!s_.has_)) PROVPOL_THROW(bad_result_access<E>(s_.err_));
    }
    PROVPOL_NODISCARD constexpr const E& error() const& noexcept {
        PROVPOL_ASSERT(!s_.has_, "result::error() called on a value");
        return s_.err_;
    }

private:
    detail::result_storage<detail::void_value, E> s_;
};

namespace detail {
// The value of a result the library itself made from constants it knows are valid (a preset's settings): on an error,
// a bug in provpol, it aborts at run time and is not a constant expression at compile time. Not value(): that would
// compile bad_result_access, and error::message with it, in every translation unit that includes a preset.
template <class T, class E>
constexpr T valid(const result<T, E>& r) noexcept {
    if (!r.has_value()) assert_fail(__FILE__, __LINE__, "a preset's own settings were refused");
    return *r;
}
}  // namespace detail

/// The value of r, or throws bad_result_access with the error's message: the throwing convenience over
/// provpol's non-throwing API (`auto cfg = provpol::value_or_throw(vdsm_config::make(2560_MiB, 20));`).
template <class T, class E>
constexpr T value_or_throw(result<T, E> r) {
    return detail::move(r).value();
}

}  // namespace provpol

#endif  // PROVPOL_RESULT_HPP
