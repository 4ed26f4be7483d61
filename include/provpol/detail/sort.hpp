// provpol/detail/sort.hpp - an in-place heap sort for the few places that order caller-owned samples (measured
// latencies, throughput samples): O(n log n) for any input, no recursion, no allocation, and no <algorithm>
// (whose std::sort would add compile time to every translation unit that includes provpol).
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_DETAIL_SORT_HPP
#define PROVPOL_DETAIL_SORT_HPP

#include <cstddef>

namespace provpol::detail {

template <class T, class Less>
constexpr void sift_down(T* a, std::size_t root, std::size_t n, const Less& less) noexcept {
    for (;;) {
        std::size_t child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && less(a[child], a[child + 1])) ++child;
        if (!less(a[root], a[child])) return;
        const T t = a[root];
        a[root] = a[child];
        a[child] = t;
        root = child;
    }
}

/// Sorts a[0, n) in place by `less` (a strict weak order). Not stable.
template <class T, class Less>
constexpr void heap_sort(T* a, std::size_t n, const Less& less) noexcept {
    if (n < 2) return;
    for (std::size_t i = n / 2; i > 0; --i) sift_down(a, i - 1, n, less);
    for (std::size_t end = n - 1; end > 0; --end) {
        const T t = a[0];
        a[0] = a[end];
        a[end] = t;
        sift_down(a, 0, end, less);
    }
}

}  // namespace provpol::detail

#endif  // PROVPOL_DETAIL_SORT_HPP
