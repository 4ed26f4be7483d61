// provpol/detail/buffer.hpp - an owning, growable array allocated without exceptions (new (std::nothrow)), for
// the domain simulator's per-drive and per-request state: no <vector>, no <memory> (compile cost, see
// docs/design.md), and an allocation failure is a value the caller turns into an error, never a throw.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_DETAIL_BUFFER_HPP
#define PROVPOL_DETAIL_BUFFER_HPP

#include "../config.hpp"

#include <cstddef>
#include <new>

namespace provpol::detail {

/// An array of T that owns its storage. T must be default-constructible and copy-assignable without throwing.
template <class T>
class buffer {
public:
    buffer() noexcept = default;
    ~buffer() { delete[] data_; }
    buffer(const buffer&) = delete;
    buffer& operator=(const buffer&) = delete;
    buffer(buffer&& o) noexcept : data_(o.data_), size_(o.size_), capacity_(o.capacity_) {
        o.data_ = nullptr;
        o.size_ = o.capacity_ = 0;
    }
    buffer& operator=(buffer&& o) noexcept {
        if (this != &o) {
            delete[] data_;
            data_ = o.data_;
            size_ = o.size_;
            capacity_ = o.capacity_;
            o.data_ = nullptr;
            o.size_ = o.capacity_ = 0;
        }
        return *this;
    }

    /// Makes room for at least `n` elements, keeping the first size(). False when out of memory.
    PROVPOL_NODISCARD bool reserve(std::size_t n) noexcept {
        if (n <= capacity_) return true;
        T* p = new (std::nothrow) T[n]();
        if (p == nullptr) return false;
        for (std::size_t i = 0; i < size_; ++i) p[i] = data_[i];
        delete[] data_;
        data_ = p;
        capacity_ = n;
        return true;
    }
    /// Sets the size to `n` default-constructed elements (the old ones are dropped). False when out of memory.
    PROVPOL_NODISCARD bool assign(std::size_t n) noexcept {
        size_ = 0;
        if (!reserve(n)) return false;
        for (std::size_t i = 0; i < n; ++i) data_[i] = T();
        size_ = n;
        return true;
    }
    /// Appends `v`, doubling the storage when full. False when out of memory.
    PROVPOL_NODISCARD bool push_back(const T& v) noexcept {
        if (size_ == capacity_ && !reserve(capacity_ < 16 ? 16 : capacity_ * 2)) return false;
        data_[size_++] = v;
        return true;
    }
    void pop_back() noexcept { --size_; }
    void clear() noexcept { size_ = 0; }

    PROVPOL_NODISCARD std::size_t size() const noexcept { return size_; }
    PROVPOL_NODISCARD bool empty() const noexcept { return size_ == 0; }
    PROVPOL_NODISCARD T* data() noexcept { return data_; }
    PROVPOL_NODISCARD const T* data() const noexcept { return data_; }
    T& operator[](std::size_t i) noexcept { return data_[i]; }
    const T& operator[](std::size_t i) const noexcept { return data_[i]; }

private:
    T* data_ = nullptr;
    std::size_t size_ = 0;
    std::size_t capacity_ = 0;
};

/// A T constructed later, in place (std::optional's role where only emplace and access are needed, without
/// <optional>'s compile cost).
template <class T>
class deferred {
public:
    deferred() noexcept {}  // NOLINT(modernize-use-equals-default): the union holds a T with no default
    ~deferred() { reset(); }
    deferred(const deferred& o) {
        if (o.engaged_) emplace(o.value_);
    }
    deferred& operator=(const deferred& o) {
        if (this != &o) {
            if (o.engaged_)
                emplace(o.value_);
            else
                reset();
        }
        return *this;
    }

    template <class... Args>
    T& emplace(Args&&... args) {
        reset();
        T* p = ::new (static_cast<void*>(&value_)) T(static_cast<Args&&>(args)...);
        engaged_ = true;
        return *p;
    }
    void reset() noexcept {
        if (engaged_) value_.~T();
        engaged_ = false;
    }
    PROVPOL_NODISCARD bool has_value() const noexcept { return engaged_; }
    PROVPOL_NODISCARD T* operator->() noexcept { return &value_; }
    PROVPOL_NODISCARD const T* operator->() const noexcept { return &value_; }
    PROVPOL_NODISCARD T& operator*() noexcept { return value_; }
    PROVPOL_NODISCARD const T& operator*() const noexcept { return value_; }

private:
    union {
        T value_;
    };
    bool engaged_ = false;
};

}  // namespace provpol::detail

#endif  // PROVPOL_DETAIL_BUFFER_HPP
