#!/usr/bin/env python3
"""Writes a seeded corpus of lvm.conf texts that exercise lvm2's config grammar where provpol reads it. Most cases
are files lvm2 accepts, so that the values lvm2 takes are compared broadly: integers in every base and sign as
strtoll(base 0) reads them (decimal, octal 070, a leading zero that stops at 8 or 9, -5, +5, -0, a lone sign, 2^31,
2^32 + 70, 2^63 - 1, -2^63; hexadecimal, which lvm2's tokenizer splits after the 0, only where the rest of the
token makes a key: `x = 0x46 = 1`), floats, double- and single-quoted strings with escapes, bare words, booleans as
strings and words (y/Yes/off/TRUE/...), keys written as paths (/activation/x, activation//x, a/b/c), quoted keys and
section names, sections nested up to four deep (activation inside another section too), sections and settings given
twice, a section and a setting of one name, arrays (with and without commas, empty), comments everywhere, and
`--config` one-liners. About one case in five is broken on purpose, with one defect each (a number that does not
fit, a float out of range, hexadecimal or 1e3 as a value, a bare word in an array, a missing brace, =, value or
quote, an empty key, a comment that swallows a one-liner, a file of comments only), so that the refusals are
compared too. The cases are fed to the real lvm2 (capture.sh), whose answers are the expected values; nothing here
knows them.

    generate.py SEED COUNT > cases.json     (a JSON array of strings: COUNT generated cases, then fixed corners)
"""
import json
import random
import sys

KEYS = ["thin_pool_autoextend_threshold", "thin_pool_autoextend_percent", "vdo_pool_autoextend_threshold",
        "vdo_pool_autoextend_percent", "snapshot_autoextend_threshold", "snapshot_autoextend_percent"]
BOOL = "monitoring"
OTHER_SECTIONS = ["global", "devices", "allocation", "backup", "report", "dmeventd", "config"]
OTHER_KEYS = ["units", "filter", "readahead", "volume_list", "umask", "polling_interval", "thin_pool_zero"]
NUMBERS = [0, 1, 7, 8, 9, 10, 49, 50, 55, 56, 63, 64, 70, 80, 85, 99, 100, 101, 127, 200, 1000, 1000000,
           2**31 - 1, 2**31, 2**32 + 70, 2**32 - 1, 2**62, 2**63 - 1]


def integer(r):
    """An integer token lvm2 accepts, in one of strtoll(base 0)'s forms."""
    n = r.choice(NUMBERS)
    form = r.randrange(12)
    if form in (0, 1):
        return "0%o" % n                      # octal
    if form == 2:
        return "-%d" % n
    if form == 3:
        return "+%d" % n
    if form == 4:
        return "0" + str(n)                   # a leading zero: octal, or strtoll stops at an 8 or 9
    if form == 5:
        return r.choice(["008", "009", "0070", "00077", "001", "-0", "+0", "-", "+", "-9223372036854775808",
                         "-070", "+070", "0777777777777777777777", "-2147483648", "-2147483649", "08.5"])
    return str(n)


def bad_integer(r):
    """An integer token lvm2 refuses: past 64 bits, hexadecimal (the tokenizer stops at the x), an exponent."""
    n = r.choice(NUMBERS + [2**64 + 5])
    return r.choice(["%d" % (2**63 + r.randrange(3)), "-%d" % (2**63 + 1 + r.randrange(3)), str(10**20),
                     "%d" % (2**64 + 5), "0%o" % (2**64 + 5), "0x%x" % n, "0X%X" % n, "0x", "0xg", "-0x10", "1e3",
                     "7e", "70%", "+-5", "--5", "-+5"])


def real(r):
    return r.choice(["7.5", "70.0", "70.", ".5", "-.5", "+.5", "0.0", "100.000001", "-1.0", "3.14159265358979",
                     "+.", "-.", ".", "1" + "0" * 30 + ".0", "0." + "0" * 40 + "1", "70.25"])


def bad_real(r):
    return r.choice(["1.5.3", "1.e5", "1.5e3", "1" + "0" * 320 + ".0", "0." + "0" * 330 + "1"])


def string(r):
    body = r.choice(["70", "20", "y", "yes", "no", "n", "on", "off", "true", "false", "Y", "YES", "No", "TRUE",
                     "Off", "", " 70", "70 ", "seventy", "a\\\"b", "a\\\\b", "a\\nb", "#70", "{70}", "[70]", "7 0",
                     "a'b", "a=b", "\\\\", "tab\there", "0x46", "070", "1"])
    if r.randrange(5) == 0:
        return "'" + body.replace("'", "") + "'"
    return '"' + body + '"'


def bare(r):
    return r.choice(["yes", "no", "y", "n", "on", "off", "true", "false", "TRUE", "Yes", "OFF", "maybe", "auto",
                     "seventy", "a,b", "x]", "a[1]", "vg/lv", "ok;"])


def scalar(r, in_array=False):
    k = r.randrange(10)
    if k < 6:
        return integer(r)
    if k < 7:
        return real(r)
    if k < 9 or in_array:
        return string(r)                      # a bare word in an array swallows its comma: lvm2 refuses it
    return bare(r)


def array(r):
    n = r.randrange(4)
    items = [scalar(r, True) for _ in range(n)]
    sep = r.choice([", ", ",", " , ", ",\n\t"]) if any(not i.startswith(("'", '"')) for i in items) else \
        r.choice([", ", ",", " , ", " ", ",\n\t"])  # strings need no comma between them
    tail = r.choice(["", "", ",", " ,"]) if n else ""
    return "[" + r.choice(["", " "]) + sep.join(items) + tail + r.choice(["", " "]) + "]"


def value(r, key):
    if key == BOOL and r.random() < 0.6:
        return r.choice([string(r), bare(r), integer(r), "[" + integer(r) + "]", "[" + string(r) + "]"])
    if r.randrange(10) == 0:
        return array(r)
    return scalar(r)


def key_name(r, key, in_activation):
    if in_activation:
        form = r.randrange(12)
        if form == 0:
            return '"' + key + '"'
        if form == 1:
            return "'" + key + "'"
        if form == 2:
            return "/" + key
        return key
    form = r.randrange(9)
    if form == 0:
        return "/activation/" + key
    if form == 1:
        return "activation//" + key
    if form == 2:
        return "//activation///" + key
    if form == 3:
        return "activation/" + key + "/"
    if form == 4:
        return '"activation/' + key + '"'
    if form == 5:
        return "global/activation/" + key     # a path under another section: not activation/KEY
    return "activation/" + key


def comment(r):
    return r.choice(["", "", "", " # a comment", " # " + r.choice(KEYS) + " = 90", " #", " #{", " # }", "\t# ]["])


def space(r):
    return r.choice([" ", " ", "", "\t", "  ", "\n", " \n "])


def setting(r, in_activation, indent):
    key = r.choice(KEYS + [BOOL] + ([r.choice(OTHER_KEYS)] if r.random() < 0.2 else []))
    v = value(r, key)
    if r.random() < 0.03:
        v = ("0x46" if r.random() < 0.5 else "1e3") + space(r) + "=" + space(r) + str(r.choice([0, 1, 80]))
    return indent + key_name(r, key, in_activation) + space(r) + "=" + space(r) + v + comment(r) + "\n"


def section(r, depth, name=None):
    if name is None:
        name = r.choice(["activation"] * 6 + OTHER_SECTIONS)
        if r.random() < 0.08:
            name = r.choice(['"activation"', "'activation'", "activation/", "/activation"])
    inner = name.strip("\"'/") == "activation"
    indent = "\t" * (depth + 1)
    out = name + r.choice([" {", "{", "\n{", " {\n", "\t{"]) + "\n"
    for _ in range(r.randrange(5)):
        if depth < 3 and r.random() < 0.15:
            sub = r.choice(["inner%d" % depth, "activation", "thin_pool_autoextend_threshold"])
            out += indent + section(r, depth + 1, sub)
        out += setting(r, inner, indent)
        if r.random() < 0.1:
            out += indent + comment(r).strip() + "\n"
    return out + "\t" * depth + "}" + comment(r) + "\n"


def breakage(r, text):
    """One defect lvm2's parser refuses."""
    k = r.randrange(14)
    if k == 0:
        return text + "activation {\n\tthin_pool_autoextend_threshold = 80\n"     # no closing brace
    if k == 1:
        return text + "}\n"                                                   # a stray brace
    if k == 2:
        return text + "activation { thin_pool_autoextend_threshold 80 }\n"     # no =
    if k == 3:
        return text + 'activation { thin_pool_autoextend_threshold = "80 }\n'  # unterminated string
    if k == 4:
        return text + "activation { thin_pool_autoextend_threshold = }\n"      # no value
    if k == 5:
        return text + 'activation { "" = 1 }\n'                                  # empty key
    if k == 6:
        return text + "activation { [x] = 1 }\n"
    if k == 7:
        return text + "activation { thin_pool_autoextend_threshold = 1, monitoring = 0 }\n"
    if k == 8:
        return text + "activation = { }\n"
    if k == 9:
        return text + "activation { %s = %s }\n" % (r.choice(KEYS), bad_integer(r))
    if k == 10:
        return text + "activation {\n\t%s = %s\n}\n" % (r.choice(KEYS), bad_real(r))
    if k == 11:
        return text + "activation { %s = [%s, 5] }\n" % (r.choice(KEYS), bare(r))
    if k == 12:
        return "# " + text.replace("\n", " ")                                 # a one-liner behind a comment
    return "".join("# " + line + "\n" for line in text.splitlines())         # comments only


def case(r):
    text = ""
    if r.random() < 0.3:
        text += "# lvm.conf\n" + comment(r).strip() + "\n"
    for _ in range(1 + r.randrange(3)):
        if r.random() < 0.25:
            text += setting(r, False, "")
        else:
            text += section(r, 0)
    if r.random() < 0.15:
        text += section(r, 0, "activation")                                   # a section given again
    if r.random() < 0.05:
        text += "activation = 1\n"                                            # a setting and a section of one name
    if r.random() < 0.1 and "#" not in text:
        text = text.replace("\n", " ")                                        # a --config one-liner
    if r.random() < 0.25:
        text = breakage(r, text)
    return text


def main():
    seed, count = int(sys.argv[1]), int(sys.argv[2])
    r = random.Random(seed)
    cases = [case(r) for _ in range(count)]
    # Corners written out, so that every seed has them.
    for k in ["070", "08", "0x10", "-5", "+80", "4294967366", "99999999999999999999", "7.5", '"70"', "'70'",
              "seventy", "[70]", "[70, 80]", "[]", "1e3", "0x46 = 1", "0X46 x = 1", "-2147483649", "0777",
              "9223372036854775807", "-9223372036854775808", "9223372036854775808",
              "1" + "0" * 45 + ".0", "-1" + "0" * 45 + ".5", "0." + "0" * 50 + "1"]:  # float's inf, -inf, 0
        cases.append("activation {\n\tthin_pool_autoextend_threshold = %s\n}\n" % k)
    for b in ['"no"', '"N"', '"Yes"', "off", "TRUE", "0", "2", '"maybe"', '""', "[]", "[0]", "0.0", "-1", "010",
              "on", "'y'", '"1"']:
        cases.append("activation {\n\tmonitoring = %s\n}\n" % b)
    cases.append("/activation//thin_pool_autoextend_threshold = 80\n")
    cases.append("activation { thin_pool_autoextend_threshold = 70 }\nactivation { thin_pool_autoextend_threshold = 80 }\n")
    cases.append("activation {\n\tthin_pool_autoextend_threshold = 70\n\tthin_pool_autoextend_threshold = 90\n}\n")
    cases.append("activation { monitoring { } }\n")
    cases.append("activation { thin_pool_autoextend_threshold { x = 1 } thin_pool_autoextend_threshold = 75 }\n")
    json.dump(cases, sys.stdout, indent=0)
    sys.stdout.write("\n")


main()
