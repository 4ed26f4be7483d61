// Python's str semantics on UTF-8 text, as far as configparser and VDSM's config.getint/getfloat/getboolean use
// them (CPython 3.11: Objects/unicodeobject.c, Objects/longobject.c, Python/pystrtod.c, Lib/configparser.py), so
// that the CLI reads vdsm.conf as VDSM does: code points, not bytes, for whitespace (str.isspace, str.strip, re's
// \s), indentation and lower-casing (str.lower, with its final sigma), and int() and float() with every Unicode
// decimal digit and PEP 515's underscores. The tables come from Python itself (py_unicode.hpp).
#ifndef PROVPOL_CLI_PY_TEXT_HPP
#define PROVPOL_CLI_PY_TEXT_HPP

#include "py_unicode.hpp"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

namespace provpol::cli::py {

/// The length of the valid UTF-8 sequence at s[i] (1 to 4, as Python's strict decoder takes it: no overlong forms,
/// no surrogates, at most U+10FFFF), 0 when the bytes there are not one, and in `cp` its code point. `need` gets
/// the bytes the sequence would take (for a valid prefix cut by the end of `s`: more than s.size() - i).
inline std::size_t utf8_at(std::string_view s, std::size_t i, char32_t& cp, std::size_t* need = nullptr) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned c = b(i);
    std::size_t n = 0;
    unsigned lo = 0x80, hi = 0xBF;
    if (c < 0x80) {
        cp = c;
        if (need) *need = 1;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, cp = c & 0x0F, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, cp = c & 0x07, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    if (need) *need = n;
    if (n == 0) return 0;
    for (std::size_t k = 1; k < n; ++k) {
        if (i + k >= s.size()) return 0;  // cut short: `need` says it may still be valid
        const unsigned x = b(i + k);
        if (x < (k == 1 ? lo : 0x80) || x > (k == 1 ? hi : 0xBF)) {
            if (need) *need = k;  // invalid at byte k: known as soon as it is seen
            return 0;
        }
        cp = (cp << 6) | (x & 0x3F);
    }
    return n;
}

/// Where Python's UTF-8 decoder, fed `s` in pieces, first fails: the offset of the bad sequence and the offset of
/// the byte that makes it bad (s.size() for a sequence cut by the end), or npos for valid text.
struct utf8_error {
    std::size_t at = std::string_view::npos;
    std::size_t known_at = std::string_view::npos;
};
inline utf8_error first_utf8_error(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        if (static_cast<unsigned char>(s[i]) < 0x80) {
            ++i;
            continue;
        }
        char32_t cp;
        std::size_t need = 0;
        const std::size_t n = utf8_at(s, i, cp, &need);
        if (n > 0) {
            i += n;
            continue;
        }
        if (need == 0) return {i, i};  // an impossible lead byte
        return {i, i + need <= s.size() ? i + need : s.size()};
    }
    return {};
}

/// Appends code point `cp` to `out` as UTF-8.
inline void append_utf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

/// Valid UTF-8 as code points (the caller checked it with first_utf8_error).
inline std::u32string decode(std::string_view s) {
    std::u32string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        char32_t cp = 0xFFFD;
        const std::size_t n = utf8_at(s, i, cp);
        out += cp;
        i += n > 0 ? n : 1;
    }
    return out;
}
inline std::string encode(std::u32string_view s) {
    std::string out;
    for (char32_t c : s) append_utf8(out, c);
    return out;
}

/// str.isspace() of one code point (Py_UNICODE_ISSPACE): what str.strip() removes and re's \s matches.
constexpr bool isspace(char32_t c) {
    if (c < 0x80) return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20);
    return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
           c == 0x202F || c == 0x205F || c == 0x3000;
}

/// str.strip(), rstrip().
inline std::u32string_view strip(std::u32string_view s) {
    std::size_t b = 0, e = s.size();
    while (b < e && isspace(s[b])) ++b;
    while (e > b && isspace(s[e - 1])) --e;
    return s.substr(b, e - b);
}
inline std::u32string_view rstrip(std::u32string_view s) {
    std::size_t e = s.size();
    while (e > 0 && isspace(s[e - 1])) --e;
    return s.substr(0, e);
}

namespace py_detail {
template <class Range, std::size_t N>
constexpr bool in(const Range (&table)[N], char32_t c) {
    std::size_t lo = 0, hi = N;  // the first range whose last >= c
    while (lo < hi) {
        const std::size_t mid = (lo + hi) / 2;
        if (table[mid].last < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < N && table[lo].first <= c;
}
inline char32_t lower_one(char32_t c) {
    if (c < 0x80) return c >= 'A' && c <= 'Z' ? c + 32 : c;
    for (const py_unicode::lower_run& r : py_unicode::lower_runs)
        if (c >= r.first && c <= r.last && (c - r.first) % r.stride == 0)
            return static_cast<char32_t>(static_cast<long>(c) + r.delta);
    return c;
}
}  // namespace py_detail

/// str.lower(): the one-to-one mappings, U+0130 to "i\u0307", and a capital sigma at a word's end to a final
/// sigma (CPython's handle_capital_sigma).
inline std::u32string lower(std::u32string_view s) {
    std::u32string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char32_t c = s[i];
        if (c == 0x130) {
            out += U"i\u0307";
        } else if (c == 0x3A3) {
            std::size_t j = i;
            while (j > 0 && py_detail::in(py_unicode::case_ignorable, s[j - 1])) --j;
            bool final_sigma = j > 0 && py_detail::in(py_unicode::cased, s[j - 1]);
            if (final_sigma) {
                std::size_t k = i + 1;
                while (k < s.size() && py_detail::in(py_unicode::case_ignorable, s[k])) ++k;
                final_sigma = k == s.size() || !py_detail::in(py_unicode::cased, s[k]);
            }
            out += final_sigma ? char32_t{0x3C2} : char32_t{0x3C3};
        } else {
            out += py_detail::lower_one(c);
        }
    }
    return out;
}

/// The decimal value of a Unicode decimal digit (category Nd), or -1.
inline int decimal(char32_t c) {
    if (c >= '0' && c <= '9') return static_cast<int>(c - '0');
    if (c < 0x80) return -1;
    std::size_t lo = 0, hi = sizeof py_unicode::digit_zeros / sizeof py_unicode::digit_zeros[0];
    while (lo < hi) {  // the last zero <= c
        const std::size_t mid = (lo + hi) / 2;
        if (py_unicode::digit_zeros[mid] <= c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && c - py_unicode::digit_zeros[lo - 1] < 10 ? static_cast<int>(c - py_unicode::digit_zeros[lo - 1])
                                                              : -1;
}

/// _PyUnicode_TransformDecimalAndSpaceToASCII, the ASCII text int() and float() parse: ASCII as it is, every other
/// decimal digit as its ASCII digit and whitespace as ' ', any other character as '?' (which no number holds).
inline std::string numeric_ascii(std::u32string_view s) {
    std::string out;
    for (char32_t c : s) {
        if (c < 0x80)
            out += static_cast<char>(c);
        else if (isspace(c))
            out += ' ';
        else if (const int d = decimal(c); d >= 0)
            out += static_cast<char>('0' + d);
        else
            out += '?';
    }
    return out;
}

namespace py_detail {
// Py_ISSPACE: the whitespace int() and float() skip after the transform (which keeps ASCII as it is: "\x1c5" is no
// number, though str.strip() would remove the \x1c).
inline bool ascii_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
// Digits with single underscores between them (PEP 515), from s[i]; `out` gets the digits. False when none, or an
// underscore is not between two digits.
inline bool digit_run(const std::string& s, std::size_t& i, std::string& out) {
    const std::size_t start = i;
    while (i < s.size() && (s[i] >= '0' && s[i] <= '9')) {
        out += s[i++];
        if (i + 1 < s.size() && s[i] == '_' && s[i + 1] >= '0' && s[i + 1] <= '9') ++i;
    }
    return i > start;
}
}  // namespace py_detail

/// What int() of a str gives: a whole number, saturated at +-2^62 (`huge` says so; Python reads it, but no setting
/// provpol reads holds it), or nothing (ValueError).
struct py_int {
    long long value = 0;
    bool huge = false;
};
inline std::optional<py_int> to_int(std::u32string_view text) {
    const std::string s = numeric_ascii(text);
    std::size_t i = 0, e = s.size();
    while (i < e && py_detail::ascii_space(s[i])) ++i;
    while (e > i && py_detail::ascii_space(s[e - 1])) --e;
    const std::string t = s.substr(i, e - i);
    std::size_t k = 0;
    const bool negative = k < t.size() && t[k] == '-';
    if (k < t.size() && (t[k] == '+' || t[k] == '-')) ++k;
    std::string digits;
    if (!py_detail::digit_run(t, k, digits) || k != t.size()) return std::nullopt;
    py_int r;
    for (char d : digits) {
        if (r.value > (std::int64_t{1} << 62) / 10) {
            r.huge = true;
            r.value = std::int64_t{1} << 62;
            break;
        }
        r.value = r.value * 10 + (d - '0');
    }
    if (negative) r.value = -r.value;
    return r;
}

/// What float() of a str gives, or nothing (ValueError): decimal and exponent forms with PEP 515's underscores,
/// "inf", "infinity" and "nan" in any case, with a sign; no hexadecimal.
inline std::optional<double> to_float(std::u32string_view text) {
    const std::string s = numeric_ascii(text);
    std::size_t i = 0, e = s.size();
    while (i < e && py_detail::ascii_space(s[i])) ++i;
    while (e > i && py_detail::ascii_space(s[e - 1])) --e;
    const std::string t = s.substr(i, e - i);
    std::size_t k = 0;
    std::string clean;
    if (k < t.size() && (t[k] == '+' || t[k] == '-')) clean += t[k++];
    std::string word;
    for (std::size_t w = k; w < t.size(); ++w) word += static_cast<char>(t[w] >= 'A' && t[w] <= 'Z' ? t[w] + 32 : t[w]);
    if (word == "inf" || word == "infinity") return clean == "-" ? -HUGE_VAL : HUGE_VAL;
    if (word == "nan") return std::nan("");
    const bool whole = py_detail::digit_run(t, k, clean);
    bool frac = false;
    if (k < t.size() && t[k] == '.') {
        clean += t[k++];
        frac = py_detail::digit_run(t, k, clean);
    }
    if (!whole && !frac) return std::nullopt;
    if (k < t.size() && (t[k] == 'e' || t[k] == 'E')) {
        clean += t[k++];
        if (k < t.size() && (t[k] == '+' || t[k] == '-')) clean += t[k++];
        if (!py_detail::digit_run(t, k, clean)) return std::nullopt;
    }
    if (k != t.size()) return std::nullopt;
    errno = 0;
    return std::strtod(clean.c_str(), nullptr);  // the C locale's '.': the CLI never calls setlocale
}

/// configparser's _convert_to_boolean: value.lower() in BOOLEAN_STATES (the words are ASCII, and no other
/// character lowers to ASCII letters of theirs), or nothing (ValueError).
inline std::optional<bool> to_bool(std::u32string_view text) {
    std::string w;
    for (char32_t c : text) {
        if (c >= 0x80) return std::nullopt;
        w += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    if (w == "1" || w == "yes" || w == "true" || w == "on") return true;
    if (w == "0" || w == "no" || w == "false" || w == "off") return false;
    return std::nullopt;
}

}  // namespace provpol::cli::py

#endif  // PROVPOL_CLI_PY_TEXT_HPP
