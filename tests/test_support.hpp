// Shared by provpol's unit tests: doctest printers for provpol's types, so that a failed CHECK shows values.
#ifndef PROVPOL_TESTS_TEST_SUPPORT_HPP
#define PROVPOL_TESTS_TEST_SUPPORT_HPP

#include <provpol/bytes.hpp>
#include <provpol/detail/format.hpp>
#include <provpol/parse.hpp>
#include <provpol/time.hpp>

#include <doctest/doctest.h>

#include <cstdio>
#include <string>

namespace doctest {
template <std::size_t N>
struct StringMaker<provpol::fixed_string<N>> {
    static String convert(const provpol::fixed_string<N>& s) {
        return String(s.data(), static_cast<unsigned>(s.size()));
    }
};
template <>
struct StringMaker<provpol::text_view> {
    static String convert(provpol::text_view s) { return String(s.data(), static_cast<unsigned>(s.size())); }
};
template <>
struct StringMaker<provpol::seconds> {
    static String convert(provpol::seconds t) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.17g s", t.count());
        return String(buf);
    }
};
template <>
struct StringMaker<provpol::bytes> {
    static String convert(provpol::bytes b) {
        const std::string s = std::to_string(b.count()) + " (" + std::string(provpol::format_size(b).view()) + ")";
        return String(s.c_str());
    }
};
}  // namespace doctest

#endif  // PROVPOL_TESTS_TEST_SUPPORT_HPP
