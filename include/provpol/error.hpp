// provpol/error.hpp - the error value every provpol validation returns: it names the setting, the value given
// and the allowed range; its message is formatted on demand, into a buffer held by value (no allocation). A
// trivially copyable value of 112 bytes that owns every name it quotes from its caller, compared by everything it
// says.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_ERROR_HPP
#define PROVPOL_ERROR_HPP

#include "config.hpp"
#include "detail/format.hpp"
#include "text.hpp"

#include <cstddef>
#include <cstdint>

namespace provpol {

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

/// The code's name as written above: "out_of_range", "not_a_multiple", ..., "arithmetic" ("unknown" for 0 or a
/// value that is no code).
PROVPOL_NODISCARD constexpr const char* to_text(errc c) noexcept {
    constexpr const char* names[] = {"unknown",        "out_of_range", "not_a_multiple", "not_a_power_of_two",
                                     "invalid_syntax", "overflow",     "unknown_name",   "conflict",
                                     "unsupported",    "arithmetic"};
    static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(errc::arithmetic) + 1, "a name each");
    return detail::enum_name(names, c);
}

/// One number in an error: a setting's value or a bound, remembered with how to print it.
class error_value {
public:
    enum class kind : unsigned char { none, unsigned_integer, signed_integer, real, size, seconds };

    constexpr error_value() noexcept = default;
    /// The value from its kind and its 64 bits (as error stores it).
    PROVPOL_NODISCARD static constexpr error_value from_bits(kind k, std::uint64_t bits) noexcept {
        switch (k) {
            case kind::none:
                return {};
            case kind::unsigned_integer:
                return of(bits);
            case kind::signed_integer:
                return of_signed(static_cast<std::int64_t>(bits));
            case kind::real:
                return of_real(__builtin_bit_cast(double, bits));
            case kind::size:
                return of_size(bits);
            case kind::seconds:
                return of_seconds(__builtin_bit_cast(double, bits));
        }
        return {};
    }
    /// Its 64 bits: the integer, or the double's representation.
    PROVPOL_NODISCARD constexpr std::uint64_t bits() const noexcept {
        return kind_ == kind::real || kind_ == kind::seconds ? __builtin_bit_cast(std::uint64_t, d_)
               : kind_ == kind::signed_integer               ? static_cast<std::uint64_t>(i_)
                                                             : u_;
    }
    friend constexpr bool operator==(const error_value& a, const error_value& b) noexcept {
        return a.kind_ == b.kind_ && a.bits() == b.bits();
    }
    friend constexpr bool operator!=(const error_value& a, const error_value& b) noexcept { return !(a == b); }
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
    /// A time in seconds, printed as a decimal followed by " s" ("0.5 s"): what every time in provpol's errors
    /// is quoted in, whatever unit it was given in (provpol/time.hpp).
    PROVPOL_NODISCARD static constexpr error_value of_seconds(double v) noexcept {
        return error_value(kind::seconds, 0, 0, v);
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
            case kind::seconds:
                out.append_double(d_, 15);
                out.append(" s");
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

/// The kind of value an error quotes: "none", "unsigned_integer", "signed_integer", "real", "size" or "seconds".
PROVPOL_NODISCARD constexpr const char* to_text(error_value::kind e) noexcept {
    constexpr const char* names[] = {"none", "unsigned_integer", "signed_integer", "real", "size", "seconds"};
    static_assert(sizeof(names) / sizeof(names[0]) == static_cast<std::size_t>(error_value::kind::seconds) + 1,
                  "a name each");
    return detail::enum_name(names, e);
}

/// A formatted error message: room for the longest the library writes, an unknown preset's name followed by every
/// preset of its family (extend/presets.hpp checks its list fits).
using error_message = fixed_string<512>;

/// Wording an error keeps a pointer to (its detail, a conflict's relation and other setting): a string literal,
/// the only implicit way in, so that a `std::string`'s c_str() is a compile error here rather than a dangling
/// pointer later; or text of static storage duration named as such at the call site (static_text::of_static, e.g. a
/// registry's list of names). What a caller's input or configuration supplies, an error copies instead (the setting's
/// name, the text given).
class static_text {
public:
    constexpr static_text() noexcept = default;
    /// A string literal (or another array of static storage duration).
    template <std::size_t N>
    // NOLINTNEXTLINE(google-explicit-constructor): a literal is what every call site writes
    constexpr static_text(const char (&literal)[N]) noexcept : p_(literal) {}
    /// Text the caller guarantees outlives every error that quotes it (static storage duration).
    PROVPOL_NODISCARD static constexpr static_text of_static(const char* text) noexcept { return static_text(text, 0); }
    /// The text; nullptr when none was given.
    PROVPOL_NODISCARD constexpr const char* c_str() const noexcept { return p_; }

private:
    constexpr static_text(const char* p, int) noexcept : p_(p) {}
    const char* p_ = nullptr;
};

/// Why a configuration, an input or a parse was rejected. A trivially copyable value of 112 bytes that owns what its
/// caller names: the setting's name is copied (up to max_setting characters; a longer name is cut and the message
/// says so with "...", as is the text given by the user, up to max_text characters), so an error made with the name
/// of a configuration key held in a std::string outlives it. The wording (detail, a conflict's relation and other
/// setting) is the library's own: static_text, string literals by type.
class error {
public:
    /// The most characters of a setting's name kept ("activation/thin_pool_autoextend_threshold" is 41).
    static constexpr std::size_t max_setting = 48;
    /// The most characters of the text the user gave kept.
    static constexpr std::size_t max_text = 20;

    constexpr error() noexcept = default;

    // --- factories -------------------------------------------------------------------------------------
    /// "{setting} must be in [{lo}, {hi}], got {value}". An empty lo or hi reads "at most" / "at least".
    PROVPOL_NODISCARD static constexpr error out_of_range(text_view setting, error_value value, error_value lo,
                                                          error_value hi) noexcept {
        error e(errc::out_of_range, setting);
        e.set(slot_value, value);
        e.set(slot_lo, lo);
        e.set(slot_hi, hi);
        return e;
    }
    /// "{setting} must be a multiple of {unit}, got {value}".
    PROVPOL_NODISCARD static constexpr error not_a_multiple(text_view setting, error_value value,
                                                            error_value unit) noexcept {
        error e(errc::not_a_multiple, setting);
        e.set(slot_value, value);
        e.set(slot_lo, unit);
        return e;
    }
    /// "{setting} must be a power of two, got {value}".
    PROVPOL_NODISCARD static constexpr error not_a_power_of_two(text_view setting, error_value value) noexcept {
        error e(errc::not_a_power_of_two, setting);
        e.set(slot_value, value);
        return e;
    }
    /// "{setting}: invalid value '{text}': {detail}".
    PROVPOL_NODISCARD static constexpr error invalid_syntax(text_view setting, text_view text,
                                                            static_text detail) noexcept {
        error e(errc::invalid_syntax, setting);
        e.set_text(text);
        e.detail_ = detail.c_str();
        return e;
    }
    /// "{setting}: '{text}' is too large: the largest accepted value is {max}".
    PROVPOL_NODISCARD static constexpr error overflow(text_view setting, text_view text, error_value max) noexcept {
        error e(errc::overflow, setting);
        e.set_text(text);
        e.set(slot_hi, max);
        return e;
    }
    /// "{setting}: {value} is too large: the largest accepted value is {max}".
    PROVPOL_NODISCARD static constexpr error overflow(text_view setting, error_value value, error_value max) noexcept {
        error e(errc::overflow, setting);
        e.set(slot_value, value);
        e.set(slot_hi, max);
        return e;
    }
    /// "{setting}: unknown value '{text}': expected {expected}".
    PROVPOL_NODISCARD static constexpr error unknown_name(text_view setting, text_view text,
                                                          static_text expected) noexcept {
        error e(errc::unknown_name, setting);
        e.set_text(text);
        e.detail_ = expected.c_str();
        return e;
    }
    /// "{setting} ({value}) {relation} {other} ({other_value})", e.g.
    /// "optimal_io_size (512) must be a multiple of logical_block_size (4096)".
    PROVPOL_NODISCARD static constexpr error conflict(text_view setting, error_value value, static_text relation,
                                                      static_text other, error_value other_value) noexcept {
        error e(errc::conflict, setting);
        e.set(slot_value, value);
        e.detail_ = relation.c_str();
        e.slots_[slot_hi] =
            slot(other.c_str());  // a conflict has no upper bound: the slot holds the other setting's name
        e.set(slot_lo, other_value);
        return e;
    }
    /// "{setting}: {detail}" (with ", got {value}" when a value is given).
    PROVPOL_NODISCARD static constexpr error unsupported(text_view setting, static_text detail,
                                                         error_value value = {}) noexcept {
        error e(errc::unsupported, setting);
        e.detail_ = detail.c_str();
        e.set(slot_value, value);
        return e;
    }

    /// "{setting}: {a} {op} {b} is outside [0, 2^64 - 1]": what checked_add/sub/mul report.
    PROVPOL_NODISCARD static constexpr error arithmetic(static_text op, error_value a, error_value b) noexcept {
        error e(errc::arithmetic, text_view());
        e.detail_ = op.c_str();
        e.set(slot_value, a);
        e.set(slot_lo, b);
        return e;
    }

    /// The same error quoting another text (e.g. the whole "400MiB/s" when only "400MiB" was parsed).
    PROVPOL_NODISCARD constexpr error with_text(text_view text) const noexcept {
        error e = *this;
        e.set_text(text);
        return e;
    }

    /// The same error reported under another setting name (e.g. a CLI flag instead of a config key), copied.
    PROVPOL_NODISCARD constexpr error with_setting(text_view setting) const noexcept {
        error e = *this;
        e.set_setting(setting);
        return e;
    }

    // --- observers -------------------------------------------------------------------------------------
    PROVPOL_NODISCARD constexpr errc code() const noexcept { return code_; }
    /// The setting's name as far as it was kept ("" when none was given).
    PROVPOL_NODISCARD constexpr text_view setting() const noexcept { return {setting_, setting_size_}; }
    /// Whether the setting's name was longer than max_setting and cut.
    PROVPOL_NODISCARD constexpr bool setting_truncated() const noexcept { return (meta_ & setting_truncated_bit) != 0; }
    PROVPOL_NODISCARD constexpr error_value value() const noexcept { return get(slot_value); }
    PROVPOL_NODISCARD constexpr error_value lower_bound() const noexcept { return get(slot_lo); }
    PROVPOL_NODISCARD constexpr error_value upper_bound() const noexcept { return get(slot_hi); }
    /// The text the user gave, as far as it was kept (parse errors).
    PROVPOL_NODISCARD constexpr text_view text() const noexcept { return {text_, text_size_}; }
    /// The other setting a conflict names ("" for every other kind of error).
    PROVPOL_NODISCARD constexpr text_view other() const noexcept {
        return code_ == errc::conflict && slots_[slot_hi].ptr ? text_view(slots_[slot_hi].ptr) : text_view("");
    }
    /// Whether the text was longer than max_text and cut.
    PROVPOL_NODISCARD constexpr bool text_truncated() const noexcept { return (meta_ & truncated_bit) != 0; }
    PROVPOL_NODISCARD constexpr text_view detail() const noexcept { return detail_ ? detail_ : ""; }

    /// The message: lowercase, no trailing period, naming the setting, the value and the allowed range. (A template
    /// only so that the formatting is compiled where a message is read, not in every translation unit that includes the
    /// header: call it as a function.)
    template <class Deferred = void>
    PROVPOL_NODISCARD error_message message() const noexcept {  // long: one case per error kind
        error_message m;
        const error_value value_ = value(), lo_ = lower_bound(), hi_ = upper_bound();
        switch (code_) {
            case errc::out_of_range:
                append_name(m).append(" must be ");
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
                append_name(m).append(" must be a multiple of ");
                lo_.append_to(m);
                append_got(m);
                break;
            case errc::not_a_power_of_two:
                append_name(m).append(" must be a power of two");
                append_got(m);
                break;
            case errc::invalid_syntax:
                append_prefix(m);
                m.append("invalid value '").append(text()).append(ellipsis()).append('\'');
                if (detail_) m.append(": ").append(detail_);
                break;
            case errc::overflow:
                append_prefix(m);
                if (text_size_ == 0 && !value_.empty()) {
                    value_.append_to(m);
                    m.append(" is too large");
                } else {
                    m.append('\'').append(text()).append(ellipsis()).append("' is too large");
                }
                if (!hi_.empty()) {
                    m.append(": the largest accepted value is ");
                    hi_.append_to(m);
                }
                break;
            case errc::unknown_name:
                append_prefix(m);
                m.append("unknown value '").append(text()).append(ellipsis()).append('\'');
                if (detail_) m.append(": expected ").append(detail_);
                break;
            case errc::conflict:
                append_name(m);
                if (!value_.empty()) {
                    m.append(" (");
                    value_.append_to(m);
                    m.append(')');
                }
                m.append(' ').append(detail()).append(' ').append(other());
                if (!lo_.empty()) {
                    m.append(" (");
                    lo_.append_to(m);
                    m.append(')');
                }
                break;
            case errc::unsupported:
                append_prefix(m);
                m.append(detail());
                append_got(m);
                break;
            case errc::arithmetic:
                append_prefix(m);
                value_.append_to(m);
                m.append(' ').append(detail()).append(' ');
                lo_.append_to(m);
                m.append(" is outside [0, 2^64 - 1]");
                break;
        }
        return m;
    }

    /// Equal when they say the same: the kind, the setting, the detail, the text and every value.
    friend constexpr bool operator==(const error& a, const error& b) noexcept {
        if (a.code_ != b.code_ || a.meta_ != b.meta_ || !(a.setting() == b.setting()) || !(a.detail() == b.detail()) ||
            !(text_view(a.text_, a.text_size_) == text_view(b.text_, b.text_size_)))
            return false;
        return a.value() == b.value() && a.lower_bound() == b.lower_bound() && a.upper_bound() == b.upper_bound() &&
               a.other() == b.other();
    }
    friend constexpr bool operator!=(const error& a, const error& b) noexcept { return !(a == b); }

private:
    constexpr error(errc code, text_view setting) noexcept : code_(code) { set_setting(setting); }

    // Three values (the setting's, the lower and the upper bound) as 64 bits each, their kinds in meta_; a
    // conflict's upper-bound slot holds the other setting's name instead (its kind stays none).
    static constexpr int slot_value = 0, slot_lo = 1, slot_hi = 2;
    static constexpr std::uint16_t truncated_bit = 1u << 9;
    static constexpr std::uint16_t setting_truncated_bit = 1u << 10;
    union slot {
        std::uint64_t bits;
        const char* ptr;
        constexpr slot() noexcept : bits(0) {}
        constexpr explicit slot(std::uint64_t b) noexcept : bits(b) {}
        constexpr explicit slot(const char* p) noexcept : ptr(p) {}
    };

    constexpr void set(int i, error_value v) noexcept {
        slots_[i] = slot(v.bits());
        const int shift = 3 * i;
        meta_ = static_cast<std::uint16_t>((meta_ & ~(7u << shift)) | (static_cast<unsigned>(v.type()) << shift));
    }
    PROVPOL_NODISCARD constexpr error_value get(int i) const noexcept {
        const auto k = static_cast<error_value::kind>((meta_ >> (3 * i)) & 7u);
        return k == error_value::kind::none ? error_value() : error_value::from_bits(k, slots_[i].bits);
    }
    constexpr void set_setting(text_view t) noexcept {
        const std::size_t n = t.size() < max_setting ? t.size() : max_setting;
        for (std::size_t i = 0; i < max_setting; ++i) setting_[i] = i < n ? t[i] : '\0';
        setting_size_ = static_cast<unsigned char>(n);
        meta_ = static_cast<std::uint16_t>(t.size() > max_setting ? (meta_ | setting_truncated_bit)
                                                                  : (meta_ & ~setting_truncated_bit));
    }
    constexpr void set_text(text_view t) noexcept {
        const std::size_t n = t.size() < max_text ? t.size() : max_text;
        for (std::size_t i = 0; i < max_text; ++i) text_[i] = i < n ? t[i] : '\0';
        text_size_ = static_cast<unsigned char>(n);
        meta_ = static_cast<std::uint16_t>(t.size() > max_text ? (meta_ | truncated_bit) : (meta_ & ~truncated_bit));
    }
    PROVPOL_NODISCARD constexpr const char* ellipsis() const noexcept { return text_truncated() ? "..." : ""; }
    template <class Message>
    void append_got(Message& m) const noexcept {
        const error_value v = value();
        if (!v.empty()) {
            m.append(", got ");
            v.append_to(m);
        } else if (text_size_ != 0) {
            m.append(", got '").append(text()).append(ellipsis()).append('\'');
        }
    }
    template <class Message>
    Message& append_name(Message& m) const noexcept {
        return m.append(setting()).append(setting_truncated() ? "..." : "");
    }
    template <class Message>
    void append_prefix(Message& m) const noexcept {
        if (setting_size_ != 0) append_name(m).append(": ");
    }

    const char* detail_ = nullptr;
    slot slots_[3] = {};
    char setting_[max_setting] = {};
    char text_[max_text] = {};
    errc code_ = errc::unsupported;
    unsigned char setting_size_ = 0;
    unsigned char text_size_ = 0;
    std::uint16_t meta_ = 0;  // bits 0-8: the three values' kinds; bit 9: the text was cut; bit 10: the setting
};
static_assert(sizeof(error) <= 112, "provpol::error: at most 112 bytes");

}  // namespace provpol

#endif  // PROVPOL_ERROR_HPP
