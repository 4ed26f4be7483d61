// provpol/detail/traits.hpp - the few type traits and utilities the decision headers use, as the compilers'
// builtins where g++ and clang have them, so that <type_traits> and <utility> are not included.
//
// Why: with g++ 12, <type_traits> and <utility> add about 0.13 x <string> to every translation unit, and each
// std trait used is a class template instantiated per type (std::is_convertible alone was 45 instantiations in
// provpol.hpp); the budget for the decision umbrella is 1.0 x <string> (tools/compile_cost.sh --instructions). Other
// compilers get the standard library's traits.
//
// SPDX-License-Identifier: MIT
#ifndef PROVPOL_DETAIL_TRAITS_HPP
#define PROVPOL_DETAIL_TRAITS_HPP

#include <cstddef>

#if !defined(__GNUC__) && !defined(__clang__)
#include <type_traits>
#include <utility>
#endif

namespace provpol {
namespace detail {

#if defined(__GNUC__) || defined(__clang__)

template <class T, T V>
struct integral_constant {
    static constexpr T value = V;
    using value_type = T;
    constexpr operator T() const noexcept { return V; }  // NOLINT(google-explicit-constructor): as std's
};
template <bool B>
using bool_constant = integral_constant<bool, B>;
using true_type = bool_constant<true>;
using false_type = bool_constant<false>;

template <bool B, class T = void>
struct enable_if {};
template <class T>
struct enable_if<true, T> {
    using type = T;
};
template <bool B, class T = void>
using enable_if_t = typename enable_if<B, T>::type;

template <class...>
using void_t = void;

template <class A, class B>
inline constexpr bool is_same_v = __is_same(A, B);
template <class A, class B>
struct is_same : bool_constant<__is_same(A, B)> {};

template <class T>
struct remove_reference {
    using type = T;
};
template <class T>
struct remove_reference<T&> {
    using type = T;
};
template <class T>
struct remove_reference<T&&> {
    using type = T;
};
template <class T>
using remove_reference_t = typename remove_reference<T>::type;

template <class T>
struct remove_cv {
    using type = T;
};
template <class T>
struct remove_cv<const T> {
    using type = T;
};
template <class T>
struct remove_cv<volatile T> {
    using type = T;
};
template <class T>
struct remove_cv<const volatile T> {
    using type = T;
};
template <class T>
using remove_cv_t = typename remove_cv<T>::type;
template <class T>
using remove_cvref_t = typename remove_cv<typename remove_reference<T>::type>::type;

template <class T>
inline constexpr bool is_reference_v = false;
template <class T>
inline constexpr bool is_reference_v<T&> = true;
template <class T>
inline constexpr bool is_reference_v<T&&> = true;

template <class T>
T&& declval() noexcept;

template <class T>
constexpr remove_reference_t<T>&& move(T&& t) noexcept {
    return static_cast<remove_reference_t<T>&&>(t);
}
template <class T>
constexpr T&& forward(remove_reference_t<T>& t) noexcept {
    return static_cast<T&&>(t);
}
template <class T>
// NOLINTNEXTLINE(cppcoreguidelines-rvalue-reference-param-not-moved): forwarded, as std::forward
constexpr T&& forward(remove_reference_t<T>&& t) noexcept {
    return static_cast<T&&>(t);
}

template <class T, class... Args>
inline constexpr bool is_constructible_v = __is_constructible(T, Args...);
template <class T, class... Args>
inline constexpr bool is_nothrow_constructible_v = __is_nothrow_constructible(T, Args...);
template <class T>
inline constexpr bool is_copy_constructible_v = __is_constructible(T, const T&);
template <class T>
inline constexpr bool is_move_constructible_v = __is_constructible(T, T&&);
template <class T>
inline constexpr bool is_nothrow_copy_constructible_v = __is_nothrow_constructible(T, const T&);
template <class T>
inline constexpr bool is_nothrow_move_constructible_v = __is_nothrow_constructible(T, T&&);
template <class T>
inline constexpr bool is_nothrow_move_assignable_v = __is_nothrow_assignable(T&, T&&);
template <class T>
inline constexpr bool is_trivially_copyable_v = __is_trivially_copyable(T);
#if defined(__clang__)
template <class T>
inline constexpr bool is_trivially_destructible_v = __is_trivially_destructible(T);
#else
template <class T>
inline constexpr bool is_trivially_destructible_v = __has_trivial_destructor(T);
#endif

// Whether From converts implicitly to To (std::is_convertible for the object and pointer types provpol asks about:
// a function that takes a To called with a From).
template <class To>
void convert_to(To) noexcept;
template <class From, class To, class = void>
inline constexpr bool is_convertible_v = false;
template <class From, class To>
inline constexpr bool is_convertible_v<From, To, decltype(convert_to<To>(declval<From>()))> = true;

// Whether T is an integral type (what a container's size() returns).
template <class T>
inline constexpr bool is_integral_v = __is_same(T, bool) || __is_same(T, char) || __is_same(T, signed char) ||
                                      __is_same(T, unsigned char) || __is_same(T, short) ||
                                      __is_same(T, unsigned short) || __is_same(T, int) || __is_same(T, unsigned) ||
                                      __is_same(T, long) || __is_same(T, unsigned long) || __is_same(T, long long) ||
                                      __is_same(T, unsigned long long);

template <std::size_t... I>
struct index_sequence {};
#if defined(__clang__)
template <class T, T... I>
struct integer_list {
    using type = index_sequence<I...>;
};
template <std::size_t N>
using make_index_sequence = typename __make_integer_seq<integer_list, std::size_t, N>::type;
#else
template <std::size_t N>
using make_index_sequence = index_sequence<__integer_pack(N)...>;
#endif
template <class... T>
using index_sequence_for = make_index_sequence<sizeof...(T)>;

#else  // other compilers: the standard library's

using std::bool_constant;
using std::declval;
using std::enable_if_t;
using std::false_type;
using std::forward;
using std::index_sequence;
using std::index_sequence_for;
using std::is_same;
using std::move;
using std::remove_cv_t;
using std::remove_reference_t;
using std::true_type;
using std::void_t;
template <class T>
using remove_cvref_t = typename std::remove_cv<typename std::remove_reference<T>::type>::type;
template <class A, class B>
inline constexpr bool is_same_v = std::is_same_v<A, B>;
template <class T>
inline constexpr bool is_reference_v = std::is_reference_v<T>;
template <class T, class... Args>
inline constexpr bool is_constructible_v = std::is_constructible_v<T, Args...>;
template <class T, class... Args>
inline constexpr bool is_nothrow_constructible_v = std::is_nothrow_constructible_v<T, Args...>;
template <class T>
inline constexpr bool is_copy_constructible_v = std::is_copy_constructible_v<T>;
template <class T>
inline constexpr bool is_move_constructible_v = std::is_move_constructible_v<T>;
template <class T>
inline constexpr bool is_nothrow_copy_constructible_v = std::is_nothrow_copy_constructible_v<T>;
template <class T>
inline constexpr bool is_nothrow_move_constructible_v = std::is_nothrow_move_constructible_v<T>;
template <class T>
inline constexpr bool is_nothrow_move_assignable_v = std::is_nothrow_move_assignable_v<T>;
template <class T>
inline constexpr bool is_trivially_copyable_v = std::is_trivially_copyable_v<T>;
template <class T>
inline constexpr bool is_trivially_destructible_v = std::is_trivially_destructible_v<T>;
template <class From, class To>
inline constexpr bool is_convertible_v = std::is_convertible_v<From, To>;
template <class T>
inline constexpr bool is_integral_v = std::is_integral_v<T>;

#endif

}  // namespace detail
}  // namespace provpol

#endif  // PROVPOL_DETAIL_TRAITS_HPP
