// provpol/result.hpp - result<T>: a value or an error, shaped like a subset of C++23 std::expected, and
// the error value every provpol validation returns. An error names the setting, the value given and the
// allowed range; its message is formatted on demand, into a buffer held by value (no allocation).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_RESULT_HPP
#define PROVPOL_RESULT_HPP

#include "config.hpp"
#include "detail/format.hpp"

#include <cstdint>
#include <exception>
#include <new>
#include <type_traits>
#include "detail/text_view.hpp"

namespace provpol {

namespace detail {
// std::move and std::forward without <utility> (its cost, for two casts: tools/compile_cost.sh).
template <class T>
constexpr std::remove_reference_t<T>&& move(T&& t) noexcept {
    return static_cast<std::remove_reference_t<T>&&>(t);
}
template <class T>
constexpr T&& forward(std::remove_reference_t<T>& t) noexcept {
    return static_cast<T&&>(t);
}
}  // namespace detail

/// What kind of problem an error reports. The numbering is stable.
enum class errc : unsigned char {
    out_of_range = 1,        ///< "{setting} must be in [{lo}, {hi}], got {value}"
    not_a_multiple = 2,      ///< "{setting} must be a multiple of {lo}, got {value}"
    not_a_power_of_two = 3,  ///< "{setting} must be a power of two, got {value}"
    invalid_syntax = 4,      ///< "{setting}: invalid value '{text}': {detail}"
    overflow = 5,            ///< "{setting}: '{text}' is too large: the largest accepted value is {hi}"
    unknown_name = 6,        ///< "{setting}: unknown value '{text}': expected {detail}"
    conflict = 7,            ///< "{setting} ({value}) {detail} {other} ({lo})"
    unsupported = 8,         ///< "{setting}: {detail}"
    arithmetic = 9,          ///< "{setting}: {a} {op} {b} is outside [0, 2^64 - 1]"
};

/// One number in an error: a setting's value or a bound, remembered with how to print it.
class error_value {
public:
    enum class kind : unsigned char { none, unsigned_integer, signed_integer, real, size };

    constexpr error_value() noexcept = default;
    PROVPOL_NODISCARD static constexpr error_value of(std::uint64_t v) noexcept {
        return error_value(kind::unsigned_integer, v, 0, 0.0);
    }
    PROVPOL_NODISCARD static constexpr error_value of_signed(std::int64_t v) noexcept {
        return error_value(kind::signed_integer, 0, v, 0.0);
    }
    PROVPOL_NODISCARD static constexpr error_value of_real(double v) noexcept {
        return error_value(kind::real, 0, 0, v);
    }
    /// A byte count, printed exactly in IEC units ("2.5GiB") or plain bytes.
    PROVPOL_NODISCARD static constexpr error_value of_size(std::uint64_t v) noexcept {
        return error_value(kind::size, v, 0, 0.0);
    }

    PROVPOL_NODISCARD constexpr kind type() const noexcept { return kind_; }
    PROVPOL_NODISCARD constexpr bool empty() const noexcept { return kind_ == kind::none; }
    PROVPOL_NODISCARD constexpr std::uint64_t as_unsigned() const noexcept { return u_; }
    PROVPOL_NODISCARD constexpr std::int64_t as_signed() const noexcept { return i_; }
    PROVPOL_NODISCARD constexpr double as_real() const noexcept { return d_; }

    template <std::size_t N>
    void append_to(fixed_string<N>& out) const noexcept {
        switch (kind_) {
            case kind::none:
                break;
            case kind::unsigned_integer:
                out.append_uint(u_);
                break;
            case kind::signed_integer:
                out.append_int(i_);
                break;
            case kind::real:
                out.append_double(d_, 15);
                break;
            case kind::size:
                detail::append_size(out, u_);
                break;
        }
    }

private:
    constexpr error_value(kind k, std::uint64_t u, std::int64_t i, double d) noexcept : kind_(k), u_(u), i_(i), d_(d) {}
    kind kind_ = kind::none;
    std::uint64_t u_ = 0;
    std::int64_t i_ = 0;
    double d_ = 0.0;
};

/// A formatted error message.
using error_message = fixed_string<256>;

/// Why a configuration, an input or a parse was rejected. A trivially copyable value: the setting and
/// detail strings must have static storage duration (string literals); text given by the user is copied
/// (up to 63 characters).
class error {
public:
    static constexpr std::size_t max_text = 63;

    constexpr error() noexcept = default;

    // --- factories -------------------------------------------------------------------------------------
    /// "{setting} must be in [{lo}, {hi}], got {value}". An empty lo or hi reads "at most" / "at least".
    PROVPOL_NODISCARD static constexpr error out_of_range(const char* setting, error_value value, error_value lo,
                                                          error_value hi) noexcept {
        error e(errc::out_of_range, setting);
        e.value_ = value;
        e.lo_ = lo;
        e.hi_ = hi;
        return e;
    }
    /// "{setting} must be a multiple of {unit}, got {value}".
    PROVPOL_NODISCARD static constexpr error not_a_multiple(const char* setting, error_value value,
                                                            error_value unit) noexcept {
        error e(errc::not_a_multiple, setting);
        e.value_ = value;
        e.lo_ = unit;
        return e;
    }
    /// "{setting} must be a power of two, got {value}".
    PROVPOL_NODISCARD static constexpr error not_a_power_of_two(const char* setting, error_value value) noexcept {
        error e(errc::not_a_power_of_two, setting);
        e.value_ = value;
        return e;
    }
    /// "{setting}: invalid value '{text}': {detail}".
    PROVPOL_NODISCARD static constexpr error invalid_syntax(const char* setting, text_view text,
                                                            const char* detail) noexcept {
        error e(errc::invalid_syntax, setting);
        e.set_text(text);
        e.detail_ = detail;
        return e;
    }
    /// "{setting}: '{text}' is too large: the largest accepted value is {max}".
    PROVPOL_NODISCARD static constexpr error overflow(const char* setting, text_view text, error_value max) noexcept {
        error e(errc::overflow, setting);
        e.set_text(text);
        e.hi_ = max;
        return e;
    }
    /// "{setting}: {value} is too large: the largest accepted value is {max}".
    PROVPOL_NODISCARD static constexpr error overflow(const char* setting, error_value value,
                                                      error_value max) noexcept {
        error e(errc::overflow, setting);
        e.value_ = value;
        e.hi_ = max;
        return e;
    }
    /// "{setting}: unknown value '{text}': expected {expected}".
    PROVPOL_NODISCARD static constexpr error unknown_name(const char* setting, text_view text,
                                                          const char* expected) noexcept {
        error e(errc::unknown_name, setting);
        e.set_text(text);
        e.detail_ = expected;
        return e;
    }
    /// "{setting} ({value}) {relation} {other} ({other_value})", e.g.
    /// "optimal_io_size (512) must be a multiple of logical_block_size (4096)".
    PROVPOL_NODISCARD static constexpr error conflict(const char* setting, error_value value, const char* relation,
                                                      const char* other, error_value other_value) noexcept {
        error e(errc::conflict, setting);
        e.value_ = value;
        e.detail_ = relation;
        e.other_ = other;
        e.lo_ = other_value;
        return e;
    }
    /// "{setting}: {detail}" (with ", got {value}" when a value is given).
    PROVPOL_NODISCARD static constexpr error unsupported(const char* setting, const char* detail,
                                                         error_value value = {}) noexcept {
        error e(errc::unsupported, setting);
        e.detail_ = detail;
        e.value_ = value;
        return e;
    }

    /// "{setting}: {a} {op} {b} is outside [0, 2^64 - 1]": what checked_add/sub/mul report.
    PROVPOL_NODISCARD static constexpr error arithmetic(const char* op, error_value a, error_value b) noexcept {
        error e(errc::arithmetic, nullptr);
        e.detail_ = op;
        e.value_ = a;
        e.lo_ = b;
        return e;
    }

    /// The same error quoting another text (e.g. the whole "400MiB/s" when only "400MiB" was parsed).
    PROVPOL_NODISCARD constexpr error with_text(text_view text) const noexcept {
        error e = *this;
        e.set_text(text);
        return e;
    }

    /// The same error reported under another setting name (e.g. a CLI flag instead of a config key).
    PROVPOL_NODISCARD constexpr error with_setting(const char* setting) const noexcept {
        error e = *this;
        e.setting_ = setting;
        return e;
    }

    // --- observers -------------------------------------------------------------------------------------
    PROVPOL_NODISCARD constexpr errc code() const noexcept { return code_; }
    /// The setting's name ("" when none was given).
    PROVPOL_NODISCARD constexpr text_view setting() const noexcept { return setting_ ? setting_ : ""; }
    PROVPOL_NODISCARD constexpr const error_value& value() const noexcept { return value_; }
    PROVPOL_NODISCARD constexpr const error_value& lower_bound() const noexcept { return lo_; }
    PROVPOL_NODISCARD constexpr const error_value& upper_bound() const noexcept { return hi_; }
    /// The text the user gave, as far as it was kept (parse errors).
    PROVPOL_NODISCARD constexpr text_view text() const noexcept { return {text_, text_size_}; }
    PROVPOL_NODISCARD constexpr text_view detail() const noexcept { return detail_ ? detail_ : ""; }

    /// The message: lowercase, no trailing period, naming the setting, the value and the allowed range.
    PROVPOL_NODISCARD error_message message() const noexcept {
        error_message m;
        const text_view name = setting();
        switch (code_) {
            case errc::out_of_range:
                m.append(name).append(" must be ");
                if (!lo_.empty() && !hi_.empty()) {
                    m.append("in [");
                    lo_.append_to(m);
                    m.append(", ");
                    hi_.append_to(m);
                    m.append(']');
                } else if (!hi_.empty()) {
                    m.append("at most ");
                    hi_.append_to(m);
                } else {
                    m.append("at least ");
                    lo_.append_to(m);
                }
                append_got(m);
                break;
            case errc::not_a_multiple:
                m.append(name).append(" must be a multiple of ");
                lo_.append_to(m);
                append_got(m);
                break;
            case errc::not_a_power_of_two:
                m.append(name).append(" must be a power of two");
                append_got(m);
                break;
            case errc::invalid_syntax:
                append_prefix(m, name);
                m.append("invalid value '").append(text()).append('\'');
                if (detail_) m.append(": ").append(detail_);
                break;
            case errc::overflow:
                append_prefix(m, name);
                if (text_size_ == 0 && !value_.empty()) {
                    value_.append_to(m);
                    m.append(" is too large");
                } else {
                    m.append('\'').append(text()).append("' is too large");
                }
                if (!hi_.empty()) {
                    m.append(": the largest accepted value is ");
                    hi_.append_to(m);
                }
                break;
            case errc::unknown_name:
                append_prefix(m, name);
                m.append("unknown value '").append(text()).append('\'');
                if (detail_) m.append(": expected ").append(detail_);
                break;
            case errc::conflict:
                m.append(name);
                if (!value_.empty()) {
                    m.append(" (");
                    value_.append_to(m);
                    m.append(')');
                }
                m.append(' ').append(detail()).append(' ').append(other_ ? other_ : "");
                if (!lo_.empty()) {
                    m.append(" (");
                    lo_.append_to(m);
                    m.append(')');
                }
                break;
            case errc::unsupported:
                append_prefix(m, name);
                m.append(detail());
                append_got(m);
                break;
            case errc::arithmetic:
                append_prefix(m, name);
                value_.append_to(m);
                m.append(' ').append(detail()).append(' ');
                lo_.append_to(m);
                m.append(" is outside [0, 2^64 - 1]");
                break;
        }
        return m;
    }

    friend constexpr bool operator==(const error& a, const error& b) noexcept {
        return a.code_ == b.code_ && a.setting() == b.setting() && a.text() == b.text();
    }
    friend constexpr bool operator!=(const error& a, const error& b) noexcept { return !(a == b); }

private:
    constexpr error(errc code, const char* setting) noexcept : code_(code), setting_(setting) {}

    constexpr void set_text(text_view t) noexcept {
        const std::size_t n = t.size() < max_text ? t.size() : max_text;
        for (std::size_t i = 0; i < n; ++i) text_[i] = t[i];
        text_size_ = static_cast<unsigned char>(n);
    }
    void append_got(error_message& m) const noexcept {
        if (!value_.empty()) {
            m.append(", got ");
            value_.append_to(m);
        } else if (text_size_ != 0) {
            m.append(", got '").append(text()).append('\'');
        }
    }
    static void append_prefix(error_message& m, text_view name) noexcept {
        if (!name.empty()) m.append(name).append(": ");
    }

    errc code_ = errc::unsupported;
    unsigned char text_size_ = 0;
    const char* setting_ = nullptr;
    const char* detail_ = nullptr;
    const char* other_ = nullptr;
    error_value value_{};
    error_value lo_{};
    error_value hi_{};
    char text_[max_text + 1] = {};
};

// ------------------------------------------------------------------------------------------------------------
// unexpected<E>, bad_result_access<E>

/// Wraps an error so that it converts to any result<T, E> (std::unexpected's role).
template <class E>
class unexpected {
public:
    constexpr explicit unexpected(const E& e) noexcept(std::is_nothrow_copy_constructible_v<E>) : e_(e) {}
    constexpr explicit unexpected(E&& e) noexcept(std::is_nothrow_move_constructible_v<E>) : e_(detail::move(e)) {}
    PROVPOL_NODISCARD constexpr const E& error() const& noexcept { return e_; }
    PROVPOL_NODISCARD constexpr E& error() & noexcept { return e_; }
    PROVPOL_NODISCARD constexpr E&& error() && noexcept { return detail::move(e_); }

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
        if constexpr (std::is_same_v<E, ::provpol::error>) {
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

namespace detail {

// Whether T is trivially copyable and destructible: the compilers' builtins where they have them, because the
// std traits instantiate a tree of helper templates for every result<T> (a fifth of the umbrella header's
// compile time, measured with clang's -ftime-trace).
#if defined(__clang__)
template <class T>
inline constexpr bool is_trivial_value_v = __is_trivially_copyable(T) && __is_trivially_destructible(T);
#elif defined(__GNUC__)
template <class T>
inline constexpr bool is_trivial_value_v = __is_trivially_copyable(T) && __has_trivial_destructor(T);
#else
template <class T>
inline constexpr bool is_trivial_value_v = std::is_trivially_copyable_v<T>&& std::is_trivially_destructible_v<T>;
#endif

struct in_place_value_t {};
struct in_place_error_t {};

// Storage for trivially copyable and destructible T and E: trivially destructible itself, so result is a literal type
// and usable in constant expressions.
template <class T, class E, bool = is_trivial_value_v<T>&& is_trivial_value_v<E>>
struct result_storage {
    template <class... Args>
    constexpr explicit result_storage(in_place_value_t, Args&&... args)
        : val_(detail::forward<Args>(args)...), has_(true) {}
    template <class... Args>
    constexpr explicit result_storage(in_place_error_t, Args&&... args)
        : err_(detail::forward<Args>(args)...), has_(false) {}
    union {
        T val_;
        E err_;
    };
    bool has_;
};

template <class T, class E>
struct result_storage<T, E, false> {
    template <class... Args>
    constexpr explicit result_storage(in_place_value_t, Args&&... args)
        : val_(detail::forward<Args>(args)...), has_(true) {}
    template <class... Args>
    constexpr explicit result_storage(in_place_error_t, Args&&... args)
        : err_(detail::forward<Args>(args)...), has_(false) {}
    result_storage(const result_storage& o) : has_(o.has_) {
        if (has_)
            ::new (static_cast<void*>(&val_)) T(o.val_);
        else
            ::new (static_cast<void*>(&err_)) E(o.err_);
    }
    result_storage(result_storage&& o) noexcept(std::is_nothrow_move_constructible_v<T>) : has_(o.has_) {
        if (has_)
            ::new (static_cast<void*>(&val_)) T(detail::move(o.val_));
        else
            ::new (static_cast<void*>(&err_)) E(detail::move(o.err_));
    }
    result_storage& operator=(const result_storage& o) {
        if (this != &o) {
            destroy();
            has_ = o.has_;
            if (has_)
                ::new (static_cast<void*>(&val_)) T(o.val_);
            else
                ::new (static_cast<void*>(&err_)) E(o.err_);
        }
        return *this;
    }
    result_storage& operator=(result_storage&& o) noexcept(std::is_nothrow_move_constructible_v<T>) {
        if (this != &o) {
            destroy();
            has_ = o.has_;
            if (has_)
                ::new (static_cast<void*>(&val_)) T(detail::move(o.val_));
            else
                ::new (static_cast<void*>(&err_)) E(detail::move(o.err_));
        }
        return *this;
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
class PROVPOL_NODISCARD result {
    static_assert(!std::is_reference_v<T>, "result<T, E>: T must not be a reference");
    static_assert(!std::is_same_v<std::remove_cv_t<T>, detail::in_place_value_t>, "result<T, E>: invalid T");

public:
    using value_type = T;
    using error_type = E;

    /// A value. Implicit, as std::expected's converting constructor: `return bytes(42);`.
    template <class U = T,
              class = std::enable_if_t<std::is_constructible_v<T, U&&> && !std::is_same_v<std::decay_t<U>, result> &&
                                       !std::is_same_v<std::decay_t<U>, unexpected<E>>>>
    // NOLINTNEXTLINE(google-explicit-constructor, bugprone-forwarding-reference-overload)
    constexpr result(U&& v) : s_(detail::in_place_value_t{}, detail::forward<U>(v)) {}

    /// An error: `return unexpected(error::out_of_range(...));`.
    template <class G, class = std::enable_if_t<std::is_constructible_v<E, const G&>>>
    // NOLINTNEXTLINE(google-explicit-constructor)
    constexpr result(const unexpected<G>& u) : s_(detail::in_place_error_t{}, u.error()) {}
    template <class G, class = std::enable_if_t<std::is_constructible_v<E, G&&>>>
    // NOLINTNEXTLINE(google-explicit-constructor)
    constexpr result(unexpected<G>&& u) : s_(detail::in_place_error_t{}, detail::move(u).error()) {}

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

    /// The value, or `fallback` on an error.
    template <class U>
    PROVPOL_NODISCARD constexpr T value_or(U&& fallback) const& {
        return s_.has_ ? s_.val_ : static_cast<T>(detail::forward<U>(fallback));
    }

    /// f(value) -> result<U, E> on a value; the same error otherwise.
    template <class F>
    constexpr auto and_then(F&& f) const& {
        using R = std::remove_cv_t<std::remove_reference_t<decltype(detail::forward<F>(f)(s_.val_))>>;
        if (s_.has_) return detail::forward<F>(f)(s_.val_);
        return R(unexpected<E>(s_.err_));
    }
    /// result<U, E>{f(value)} on a value; the same error otherwise.
    template <class F>
    constexpr auto transform(F&& f) const& {
        using U = std::remove_cv_t<std::remove_reference_t<decltype(detail::forward<F>(f)(s_.val_))>>;
        if (s_.has_) return result<U, E>(detail::forward<F>(f)(s_.val_));
        return result<U, E>(unexpected<E>(s_.err_));
    }

private:
    constexpr void check() const {
        if (PROVPOL_UNLIKELY(!s_.has_)) PROVPOL_THROW(bad_result_access<E>(s_.err_));
    }
    detail::result_storage<T, E> s_;
};

/// result<void, E>: success or an error (validation that produces nothing).
template <class E>
class PROVPOL_NODISCARD result<void, E> {
public:
    using value_type = void;
    using error_type = E;

    constexpr result() noexcept = default;
    template <class G, class = std::enable_if_t<std::is_constructible_v<E, const G&>>>
    // NOLINTNEXTLINE(google-explicit-constructor)
    constexpr result(const unexpected<G>& u) : has_(false), err_(u.error()) {}

    PROVPOL_NODISCARD constexpr bool has_value() const noexcept { return has_; }
    constexpr explicit operator bool() const noexcept { return has_; }
    constexpr void value() const {
        if (PROVPOL_UNLIKELY(!has_)) PROVPOL_THROW(bad_result_access<E>(err_));
    }
    PROVPOL_NODISCARD constexpr const E& error() const& noexcept {
        PROVPOL_ASSERT(!has_, "result::error() called on a value");
        return err_;
    }

private:
    bool has_ = true;
    E err_{};
};

/// The value of r, or throws bad_result_access with the error's message: the throwing convenience over
/// provpol's non-throwing API (`auto cfg = provpol::value_or_throw(vdsm_config::make(2560, 20));`).
template <class T, class E>
constexpr T value_or_throw(result<T, E> r) {
    return detail::move(r).value();
}

}  // namespace provpol

#endif  // PROVPOL_RESULT_HPP
