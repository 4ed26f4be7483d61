// provpol/text.hpp - provpol's text types: text_view, a minimal non-owning view of characters, and
// fixed_string<N>, fixed-capacity text held by value (what error messages and format_size return).
//
// Why not std::string_view: <string_view> alone costs about 0.07 s of compile time per translation unit with
// g++ 12 (measured: tools/compile_cost.sh), a third of provpol's whole budget for the umbrella header (0.25 s).
// As fmt does with its own string_view, provpol takes text through this small type, which converts
// implicitly from string literals, const char*, std::string and std::string_view (anything with data() and
// size()), and explicitly to std::string and std::string_view.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_TEXT_HPP
#define PROVPOL_TEXT_HPP

#include "config.hpp"
#include "detail/traits.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdio>

namespace provpol {

/// A view of `size()` characters at `data()`; it does not own them.
class text_view {
public:
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);

    constexpr text_view() noexcept = default;
    constexpr text_view(const char* data, std::size_t size) noexcept : data_(data), size_(size) {}
    /// From a NUL-terminated string (nullptr is the empty text).
    // NOLINTNEXTLINE(google-explicit-constructor)
    constexpr text_view(const char* s) noexcept : data_(s), size_(s ? length(s) : 0) {}
    /// From std::string, std::string_view or anything else with data() and size().
    template <class S, class = detail::enable_if_t<
                           detail::is_convertible_v<decltype(detail::declval<const S&>().data()), const char*> &&
                           detail::is_integral_v<decltype(detail::declval<const S&>().size())>>>
    // NOLINTNEXTLINE(google-explicit-constructor)
    constexpr text_view(const S& s) noexcept : data_(s.data()), size_(static_cast<std::size_t>(s.size())) {}

    /// To std::string, std::string_view, or any type constructible from (pointer, size).
    template <class S, class = detail::enable_if_t<detail::is_constructible_v<S, const char*, std::size_t>>>
    constexpr explicit operator S() const {
        return S(data_, size_);
    }

    PROVPOL_NODISCARD constexpr const char* data() const noexcept { return data_; }
    PROVPOL_NODISCARD constexpr std::size_t size() const noexcept { return size_; }
    PROVPOL_NODISCARD constexpr bool empty() const noexcept { return size_ == 0; }
    PROVPOL_NODISCARD constexpr const char* begin() const noexcept { return data_; }
    PROVPOL_NODISCARD constexpr const char* end() const noexcept { return data_ + size_; }
    constexpr char operator[](std::size_t i) const noexcept { return data_[i]; }
    PROVPOL_NODISCARD constexpr char back() const noexcept { return data_[size_ - 1]; }

    /// The characters [pos, pos + n), clamped to the text.
    PROVPOL_NODISCARD constexpr text_view substr(std::size_t pos, std::size_t n = npos) const noexcept {
        if (pos > size_) pos = size_;
        if (n > size_ - pos) n = size_ - pos;
        return {data_ + pos, n};
    }
    constexpr void remove_suffix(std::size_t n) noexcept { size_ -= n < size_ ? n : size_; }
    /// The first position of c at or after pos, or npos.
    PROVPOL_NODISCARD constexpr std::size_t find(char c, std::size_t pos = 0) const noexcept {
        for (std::size_t i = pos; i < size_; ++i)
            if (data_[i] == c) return i;
        return npos;
    }
    PROVPOL_NODISCARD constexpr bool starts_with(text_view p) const noexcept {
        return size_ >= p.size_ && substr(0, p.size_) == p;
    }
    PROVPOL_NODISCARD constexpr bool ends_with(text_view p) const noexcept {
        return size_ >= p.size_ && substr(size_ - p.size_) == p;
    }

    friend constexpr bool operator==(text_view a, text_view b) noexcept {
        if (a.size_ != b.size_) return false;
        for (std::size_t i = 0; i < a.size_; ++i)
            if (a.data_[i] != b.data_[i]) return false;
        return true;
    }
    friend constexpr bool operator!=(text_view a, text_view b) noexcept { return !(a == b); }

private:
    static constexpr std::size_t length(const char* s) noexcept {
        std::size_t n = 0;
        while (s[n] != '\0') ++n;
        return n;
    }
    const char* data_ = "";
    std::size_t size_ = 0;
};

/// A NUL-terminated string of at most N - 1 characters, held by value. Text appended past the capacity is
/// dropped and the last characters replaced by "...", so a truncated message is visibly truncated.
template <std::size_t N>
class fixed_string {
    static_assert(N >= 8, "fixed_string: capacity must be at least 8");

public:
    constexpr fixed_string() noexcept = default;

    /// The text, without the terminating NUL.
    PROVPOL_NODISCARD constexpr text_view view() const noexcept { return {buf_, size_}; }
    PROVPOL_NODISCARD constexpr const char* c_str() const noexcept { return buf_; }
    PROVPOL_NODISCARD constexpr const char* data() const noexcept { return buf_; }
    PROVPOL_NODISCARD constexpr std::size_t size() const noexcept { return size_; }
    PROVPOL_NODISCARD constexpr bool empty() const noexcept { return size_ == 0; }
    PROVPOL_NODISCARD static constexpr std::size_t capacity() noexcept { return N - 1; }

    constexpr fixed_string& append(text_view s) noexcept {
        // One loop over the characters that fit rather than push() for each: the preset lists (registry.hpp) are
        // built in constant expressions when the header is included, where every call and step costs.
        const char* p = s.data();
        const std::size_t room = N - 1 - size_;
        const std::size_t n = s.size() < room ? s.size() : room;
        for (std::size_t i = 0; i < n; ++i) buf_[size_ + i] = p[i];
        size_ += n;
        if (n < s.size()) push(p[n]);  // the first character that does not fit marks the text as truncated
        return *this;
    }
    constexpr fixed_string& append(char c) noexcept {
        push(c);
        return *this;
    }
    /// Appends a decimal unsigned integer.
    constexpr fixed_string& append_uint(std::uint64_t v) noexcept {
        char tmp[20] = {};
        int n = 0;
        do {
            tmp[n++] = static_cast<char>('0' + static_cast<int>(v % 10));
            v /= 10;
        } while (v != 0);
        while (n > 0) push(tmp[--n]);
        return *this;
    }
    /// Appends a decimal signed integer (INT64_MIN included).
    constexpr fixed_string& append_int(std::int64_t v) noexcept {
        if (v < 0) {
            push('-');
            return append_uint(static_cast<std::uint64_t>(-(v + 1)) + 1U);
        }
        return append_uint(static_cast<std::uint64_t>(v));
    }
    /// Appends a floating-point value with `digits` significant digits (printf's %g).
    fixed_string& append_double(double v, int digits = 6) noexcept {
        char tmp[40];
        const int n = std::snprintf(tmp, sizeof tmp, "%.*g", digits, v);
        if (n > 0)
            append(text_view(tmp,
                             static_cast<std::size_t>(n) < sizeof tmp ? static_cast<std::size_t>(n) : sizeof tmp - 1));
        return *this;
    }

    friend constexpr bool operator==(const fixed_string& a, text_view b) noexcept { return a.view() == b; }
    friend constexpr bool operator!=(const fixed_string& a, text_view b) noexcept { return a.view() != b; }

private:
    // buf_ starts as all NULs and size_ never decreases, so the character after the text is always a NUL.
    constexpr void push(char c) noexcept {
        if (size_ < N - 1) {
            buf_[size_++] = c;
        } else if (!truncated_) {
            truncated_ = true;
            for (std::size_t i = N - 4; i < N - 1; ++i) buf_[i] = '.';
        }
    }

    char buf_[N] = {};
    std::size_t size_ = 0;
    bool truncated_ = false;
};

}  // namespace provpol

#endif  // PROVPOL_TEXT_HPP
