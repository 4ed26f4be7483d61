// provpol/detail/buffer.hpp - detail::deferred, a T constructed later in place, for the domain simulator's drives.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_DETAIL_BUFFER_HPP
#define PROVPOL_DETAIL_BUFFER_HPP

#include "../config.hpp"

#include <cstddef>
#include <new>

namespace provpol::detail {

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
