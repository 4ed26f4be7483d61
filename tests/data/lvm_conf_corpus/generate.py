#!/usr/bin/env python3
"""Writes a seeded corpus of lvm.conf texts that exercise lvm2's config grammar where provpol reads it: integers in
every base and sign (strtoll base 0: 070, 08, 0x10, -5, +5, 2^31 and 2^63 and past), floats, double- and
single-quoted strings with escapes, bare words, booleans as strings (y/Yes/off/TRUE/...), keys written as paths
(/activation/x, activation//x, a/b/c), quoted keys, nesting, sections and settings given twice, arrays (with and
without commas, empty, nested brackets), comments everywhere, and broken files lvm2 refuses. The cases are meant to
be fed to the real lvmconfig (capture.sh), whose answers are the expected values; nothing here knows them.

    generate.py SEED COUNT > cases.json     (a JSON array of strings)
"""
import json
import random
import sys

KEYS = ["thin_pool_autoextend_threshold", "thin_pool_autoextend_percent", "vdo_pool_autoextend_threshold",
        "vdo_pool_autoextend_percent", "snapshot_autoextend_threshold", "snapshot_autoextend_percent"]
BOOL = "monitoring"
OTHER_SECTIONS = ["global", "devices", "allocation", "backup", "report", "dmeventd", "config"]
OTHER_KEYS = ["units", "filter", "readahead", "volume_list", "umask", "polling_interval", "thin_pool_zero"]


def integer(r):
    n = r.choice([0, 1, 7, 8, 9, 10, 49, 50, 55, 56, 63, 64, 70, 80, 85, 99, 100, 101, 127, 200, 1000, 1000000,
                  2**31 - 1, 2**31, 2**32 + 70, 2**32 - 1, 2**63 - 1, 2**63, 2**64 + 5, 10**20])
    form = r.randrange(14)
    if form == 0:
        return "0%o" % n                      # octal, as strtoll base 0 reads it
    if form == 1:
        return "0x%x" % n                     # hex: the tokenizer stops at the x
    if form == 2:
        return "0X%X" % n
    if form == 3:
        return "-%d" % n
    if form == 4:
        return "+%d" % n
    if form == 5:
        return "0" + str(n)                   # a leading zero: octal, or stops at an 8 or 9
    if form == 6:
        return "00" + r.choice(["8", "9", "70", "077", "1"])
    if form == 7:
        return r.choice(["-", "+", "-0", "+-5", "--5", "-+5", "0x", "0xg", "1e3", "7e", "08.5", "-0x10"])
    return str(n)


def real(r):
    return r.choice(["7.5", "70.0", "70.", ".5", "-.5", "+.5", "0.0", "1.5.3", "1.e5", "1.5e3", "100.000001",
                     "-1.0", "3.14159265358979", "1" + "0" * 320 + ".0", "0." + "0" * 330 + "1", "+.", "-."])


def string(r):
    body = r.choice(["70", "20", "y", "yes", "no", "n", "on", "off", "true", "false", "Y", "YES", "No", "TRUE",
                     "Off", "", " 70", "70 ", "seventy", "a\\\"b", "a\\\\b", "a\\nb", "#70", "{70}", "[70]", "7 0",
                     "a'b", "a=b", "\\\\", "tab\there"])
    q = r.randrange(5)
    if q == 0:
        return "'" + body.replace("'", "") + "'"
    return '"' + body + '"'


def bare(r):
    return r.choice(["yes", "no", "y", "n", "on", "off", "true", "false", "TRUE", "Yes", "maybe", "auto",
                     "seventy", "a,b", "x]", "a[1]", "vg/lv", "70%", "ok;"])


def scalar(r):
    k = r.randrange(10)
    if k < 5:
        return integer(r)
    if k < 6:
        return real(r)
    if k < 8:
        return string(r)
    return bare(r)


def array(r):
    n = r.randrange(4)
    items = [scalar(r) for _ in range(n)]
    sep = r.choice([", ", ",", " , ", " ", ",\n\t"])
    tail = r.choice(["", "", ",", " ,"])
    return "[" + r.choice(["", " "]) + sep.join(items) + tail + r.choice(["", " "]) + "]"


def value(r, key):
    if key == BOOL and r.random() < 0.5:
        return r.choice([string(r), bare(r), integer(r), "[" + integer(r) + "]"])
    k = r.randrange(12)
    if k == 0:
        return array(r)
    return scalar(r)


def key_name(r, key, in_activation):
    if in_activation:
        form = r.randrange(12)
        if form == 0:
            return '"' + key + '"'
        if form == 1:
            return "'" + key + "'"
        return key
    form = r.randrange(8)
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
    return "activation/" + key


def comment(r):
    return r.choice(["", "", "", " # a comment", "# " + r.choice(KEYS) + " = 90", "#", " #{", " # }"])


def space(r):
    return r.choice([" ", " ", "", "\t", "  ", "\n", " \n "])


def setting(r, in_activation, indent):
    key = r.choice(KEYS + [BOOL] + ([r.choice(OTHER_KEYS)] if r.random() < 0.2 else []))
    s = indent + key_name(r, key, in_activation) + space(r) + "=" + space(r) + value(r, key) + comment(r) + "\n"
    return s


def section(r, depth):
    name = r.choice(["activation", "activation", "activation"] + OTHER_SECTIONS)
    if r.random() < 0.05:
        name = r.choice(['"activation"', "'activation'", "activation/", "/activation"])
    out = name + r.choice([" {", "{", "\n{", " {\n"]) + "\n"
    for _ in range(r.randrange(5)):
        if depth < 4 and r.random() < 0.15:
            out += "\tinner" + str(depth) + " {\n" + "".join(setting(r, True, "\t\t") for _ in range(2)) + "\t}\n"
        out += setting(r, name.strip("\"'/") == "activation", "\t")
        if r.random() < 0.1:
            out += "\t" + comment(r) + "\n"
    return out + "}" + comment(r) + "\n"


def breakage(r, text):
    k = r.randrange(9)
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
    return text + "activation = { }\n"


def case(r):
    text = ""
    if r.random() < 0.3:
        text += "# lvm.conf\n" + comment(r) + "\n"
    for _ in range(1 + r.randrange(3)):
        if r.random() < 0.25:
            text += setting(r, False, "")
        else:
            text += section(r, 0)
    if r.random() < 0.15:
        text += section(r, 0)                                                 # a section given again
    if r.random() < 0.1:
        text = text.replace("\n", " ")                                        # a --config one-liner
    if r.random() < 0.12:
        text = breakage(r, text)
    return text


def main():
    seed, count = int(sys.argv[1]), int(sys.argv[2])
    r = random.Random(seed)
    cases = [case(r) for _ in range(count)]
    # Corners written out, so that every seed has them.
    for k in ["070", "08", "0x10", "-5", "+80", "4294967366", "99999999999999999999", "7.5", '"70"', "'70'",
              "seventy", "[70]", "[70, 80]", "[]", "1e3"]:
        cases.append("activation {\n\tthin_pool_autoextend_threshold = %s\n}\n" % k)
    for b in ['"no"', '"N"', '"Yes"', "off", "TRUE", "0", "2", '"maybe"', '""', "[]", "[0]", "0.0"]:
        cases.append("activation {\n\tmonitoring = %s\n}\n" % b)
    cases.append("/activation//thin_pool_autoextend_threshold = 80\n")
    cases.append("activation { thin_pool_autoextend_threshold = 70 }\nactivation { thin_pool_autoextend_threshold = 80 }\n")
    cases.append("activation {\n\tthin_pool_autoextend_threshold = 70\n\tthin_pool_autoextend_threshold = 90\n}\n")
    json.dump(cases, sys.stdout, indent=0)
    sys.stdout.write("\n")


main()
