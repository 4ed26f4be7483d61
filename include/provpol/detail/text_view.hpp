// provpol/detail/text_view.hpp - provpol::text_view, a minimal non-owning view of characters.
//
// Why not std::string_view: <string_view> alone costs about 0.07 s of compile time per translation unit with
// g++ 12 (measured: tools/compile_cost.sh), a third of provpol's whole budget for the umbrella header (0.25 s).
// As fmt does with its own string_view, provpol takes text through this small type, which converts
// implicitly from string literals, const char*, std::string and std::string_view (anything with data() and
// size()), and explicitly to std::string and std::string_view.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_DETAIL_TEXT_VIEW_HPP
#define PROVPOL_DETAIL_TEXT_VIEW_HPP

#include "../config.hpp"

#include <cstddef>
#include <type_traits>

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
    template <class S,
              class = std::enable_if_t<std::is_convertible_v<decltype(std::declval<const S&>().data()), const char*> &&
                                       std::is_integral_v<decltype(std::declval<const S&>().size())>>>
    // NOLINTNEXTLINE(google-explicit-constructor)
    constexpr text_view(const S& s) noexcept : data_(s.data()), size_(static_cast<std::size_t>(s.size())) {}

    /// To std::string, std::string_view, or any type constructible from (pointer, size).
    template <class S, class = std::enable_if_t<std::is_constructible_v<S, const char*, std::size_t>>>
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

}  // namespace provpol

#endif  // PROVPOL_DETAIL_TEXT_VIEW_HPP
