#!/usr/bin/env python3
"""vdsm.conf files as configparser reads them for VDSM: a seeded generator of files (valid ones, and ones configparser
refuses), and the reference reading of each with Python's own configparser set up as VDSM's
lib/vdsm/common/config.py.in load() sets it up: configparser.ConfigParser() with its defaults, the schema's defaults
set first (set_defaults), then cfg.read() of the case's files in order.

  tools/vdsm_conf_corpus.py generate DIR [--seed N] [--count N]   write DIR/corpus/*.conf and DIR/expected.txt
  tools/vdsm_conf_corpus.py check DIR                              read DIR/corpus again with configparser and exit 1
                                                                   unless DIR/expected.txt is what it gives

The schema (sections, keys, defaults) is read from examples/common/vdsm_schema.hpp, itself generated from VDSM
v4.50.6.1's config.py.in (tools/vdsm_conf_data.py). The files are read in UTF-8 mode (PYTHONUTF8=1: an oVirt host's
locale is UTF-8; the script re-runs itself so when needed).

expected.txt, one block per case ("case NAME FILE..." then its lines), what provpol's reader must print the same:
  refused KIND FILE:LINE        configparser's exception and the line it names (UnicodeDecodeError: the line of the
                                first byte Python's decoder refuses, universal newlines counted)
  section NAME                  a section VDSM's schema does not have, in configparser's order
  raw SECTION KEY VALUE         an option a file set to other than the schema's default (DEFAULT for [DEFAULT])
  get VALUE | get !KIND         cfg.get() of it: the interpolated value, or the InterpolationError
  int|float|bool SECTION KEY V  getint, getfloat, getboolean of the keys provpol reads: the value, or !ValueError or
                                !KIND ("huge" for an int beyond 2^62, "nan"; a float as its IEEE bits in hex)
Text is escaped: every byte but printable ASCII, and '\\', as \\xNN.
"""
import configparser
import locale
import os
import random
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_HPP = os.path.join(HERE, "..", "examples", "common", "vdsm_schema.hpp")

# The keys provpol reads, and how VDSM reads each (lib/vdsm: storage/blockVolume.py, virt/vmdevices/storage.py
# getint; storage/mailbox.py getboolean; storage/sp.py, virt/thinp.py getfloat; virt/periodic.py getint).
READ = [("irs", "volume_utilization_chunk_mb", "int"), ("irs", "volume_utilization_percent", "int"),
        ("mailbox", "events_enable", "bool"), ("mailbox", "events_interval", "float"),
        ("thinp", "extend_timeout", "float"), ("vars", "vm_watermark_interval", "int")]


def load_schema():
    text = open(SCHEMA_HPP, encoding="utf-8").read()
    rows = re.findall(r'^\s*\{"((?:[^"\\]|\\.)*)", "((?:[^"\\]|\\.)*)", "((?:[^"\\]|\\.)*)"\},$', text, re.M)
    unescape = lambda s: s.encode("latin-1").decode("unicode_escape")
    schema = {}
    for s, k, v in rows:
        schema.setdefault(unescape(s), []).append((unescape(k), unescape(v)))
    assert len(schema) >= 20 and sum(map(len, schema.values())) >= 150, "schema not found in " + SCHEMA_HPP
    return schema


SCHEMA = load_schema()


def vdsm_parser():
    # config.py.in: load() = ConfigParser(); set_defaults(cfg) (add_section, set); read_configs(cfg, ...)
    cfg = configparser.ConfigParser()
    for section, keys in SCHEMA.items():
        cfg.add_section(section)
        for key, value in keys:
            cfg.set(section, key, value)
    return cfg


def esc(s):
    b = s.encode("utf-8", "surrogateescape") if isinstance(s, str) else s
    return "".join(chr(c) if 0x20 <= c < 0x7F and c != 0x5C else "\\x%02x" % c for c in b)


def line_of(data, at):
    # universal newlines: "\r\n", "\r", "\n" (the byte at `at` is a bad one, never the "\n" of a "\r\n")
    return len(re.findall(rb"\r\n|\r|\n", data[:at])) + 1


def typed(cfg, section, key, kind):
    try:
        if kind == "int":
            v = cfg.getint(section, key)
            return "huge" if abs(v) > 1 << 62 else str(v)
        if kind == "float":
            v = cfg.getfloat(section, key)
            return "nan" if v != v else "%016x" % struct.unpack("<Q", struct.pack("<d", v))[0]
        return "true" if cfg.getboolean(section, key) else "false"
    except (ValueError, configparser.Error) as e:
        return "!" + type(e).__name__


def reference(paths):
    cfg = vdsm_parser()
    out = []
    try:
        cfg.read(paths)
    except UnicodeDecodeError:
        for p in paths:
            data = open(p, "rb").read()
            try:
                data.decode("utf-8")
            except UnicodeDecodeError as e:
                return ["refused UnicodeDecodeError %s:%d" % (os.path.basename(p), line_of(data, e.start))]
        raise
    except (configparser.MissingSectionHeaderError, configparser.DuplicateSectionError,
            configparser.DuplicateOptionError) as e:
        return ["refused %s %s:%d" % (type(e).__name__, os.path.basename(e.source), e.lineno)]
    except configparser.ParsingError as e:  # after MissingSectionHeaderError, its subclass
        return ["refused ParsingError %s:%d" % (os.path.basename(e.source), e.errors[0][0])]
    defaults = {(s, k): v for s, keys in SCHEMA.items() for k, v in keys}
    for section in ["DEFAULT"] + cfg.sections():
        options = cfg._defaults if section == "DEFAULT" else cfg._sections[section]
        if section != "DEFAULT" and section not in SCHEMA:
            out.append("section " + esc(section))
        for key, value in options.items():
            if defaults.get((section, key)) == value:
                continue
            out.append("raw %s %s %s" % (esc(section), esc(key), esc(value)))
            try:
                out.append("get " + esc(cfg.get(section, key)))
            except configparser.InterpolationError as e:
                out.append("get !" + type(e).__name__)
    for section, key, kind in READ:
        out.append("%s %s %s %s" % (kind, section, key, typed(cfg, section, key, kind)))
    return out


# ---- the generator ----

PROVPOL_KEYS = [(s, k) for s, k, _ in READ]
OTHER_KEYS = [(s, k) for s, keys in SCHEMA.items() for k, _ in keys]
TYPOS = ["volume_utilisation_chunk_mb", "volume_utilization_chunk", "volume_utilization_percentage",
         "events_enabled", "event_interval", "extend_timout", "vm_watermark_intervall", "chunk_mb"]
ODD_KEYS = ["Volume_Utilization_Chunk_MB", "VOLUME_UTILIZATION_PERCENT", "volume_utilization_chun\u212a_mb",
            "EVENTS_ENABLE", "Events_Interval", "x", "key with spaces", "\u0391\u03a3", "\u03b1\u03c2",
            "\u0130stanbul", "i\u0307stanbul", "caf\u00e9", "CAF\u00c9", "%(x)s", "[irs", "a]b", "#notcomment",
            "\u00e9\u03a3\u0301", "\u03a3", "\u2126mega", "\u03c9mega"]
SECTIONS = ["irs", "irs", "irs", "mailbox", "mailbox", "thinp", "vars", "DEFAULT", "IRS", "Irs", " irs",
            "irs ", "irs]extra", "[irs]", "mailbox ", "thinp", "spm", "addresses", "my section", "\u00fcber",
            "irs\t", "\u03a3ection"]


def rnd_number(rng, kind):
    if kind == "bool":
        return rng.choice(["true", "false", "True", "FALSE", "yes", "no", "on", "Off", "1", "0", "y", "t",
                           "enable", "true ; c", " true", "tru\u212a"])
    if kind == "float":
        return rng.choice(["0.5", "0.25", "2", "2.0", "1e-1", ".5", "5.", "1_0.5", "inf", "-1", "0", "nan",
                           "0x1p-1", "0,5", "\uff10.\uff15", "1e400", "0.5 # c", "+.75", "1__0", "1_.5",
                           "4", "0.001", "100000", "-inf", "in f"])
    return rng.choice(["2560", "20", "1024", "50", "4096", "3200", "25", "0", "99", "100", "-5", "+20", "2_560",
                       "2__560", "_20", "20_", "0x10", "1e3", "20.0", "\uff12\uff15\uff16\uff10", "\u0663\u0660",
                       "20 # c", "20 ; c", "00020", "99999999999999999999999", "", " ", "twenty", "2560MiB",
                       "1" * 30, "\u00a020", "20\u3000", "\x1c20", "\u0e52\u0e50", "7"])


def rnd_key(rng):
    r = rng.random()
    if r < 0.45:
        return rng.choice(PROVPOL_KEYS)
    if r < 0.7:
        return rng.choice(OTHER_KEYS)
    if r < 0.85:
        return (rng.choice(SECTIONS), rng.choice(TYPOS))
    return (rng.choice(SECTIONS), rng.choice(ODD_KEYS))


def rnd_value(rng, key):
    kind = next((k for s, n, k in READ if n == key), rng.choice(["int", "float", "bool", "text"]))
    r = rng.random()
    if r < 0.12:
        return rng.choice(["%(x)s", "%(X)s", "%%", "50%%", "%", "%(missing)s", "%(repository)s/x", "%(x)", "%(x)d",
                           "%()s", "%(chunk)s", "%(hsm_tasks)s", "%(a)s%(b)s", "%(self)s", "%(deep0)s",
                           "%(volume_utilization_percent)s", "%(\u212a)s", "%%(x)s", "%(x\ny)s", "a%"])
    if kind == "text":
        return rng.choice(["/rhev/data-center", "a b c", "", "x = y", "[irs]", "value ; c", "\u00e9t\u00e9"])
    return rnd_number(rng, kind)


def rnd_delim(rng):
    return rng.choice([" = ", "=", " : ", ":", "  =  ", "\t=\t", " := ", "==", " =", "= "])


def eol(rng, style):
    return style if style != "mixed" else rng.choice(["\n", "\r\n", "\r"])


def gen_file(rng, section_first=True):
    style = rng.choice(["\n"] * 6 + ["\r\n", "\r", "mixed"])
    lines = []
    if rng.random() < 0.05:
        lines.append("\ufeff" if rng.random() < 0.5 else "\ufeff[irs]")
    if rng.random() < 0.3:
        lines.append(rng.choice(["# VDSM configuration", "; comment", "   # indented comment", ""]))
    if not section_first or rng.random() < 0.06:
        lines.append(rng.choice(["volume_utilization_chunk_mb = 4096", "junk", "  [irs]", "= 1", "key: v"]))
    names = rng.sample(["irs", "mailbox", "thinp", "vars", "spm"], 3)
    if rng.random() < 0.3:
        names[rng.randrange(3)] = rng.choice(SECTIONS)
    for name in names[:rng.choice([1, 1, 2, 2, 3])]:
        header = rng.choice(["[%s]", "[%s]", "[%s]", "  [%s]", "[%s] trailing", "[%s]]", "[%s] # c"]) % name
        if rng.random() < 0.03:
            header = rng.choice(["[]", "[", "[]]", "[ ]", "]irs["])
        lines.append(header)
        keys = [n for sec, n, _ in READ if sec == name] + [rnd_key(rng)[1] for _ in range(4)]
        keys = list({k.lower().strip(): k for k in keys}.values())  # distinct keys: a repeat is chosen below
        rng.shuffle(keys)
        used = []
        for _ in range(rng.randint(0, 6)):
            r = rng.random()
            if r < 0.7:
                k = keys.pop() if keys and rng.random() > 0.04 else rng.choice(used or [rnd_key(rng)[1]])
                used.append(k)
                val = rnd_value(rng, k)
                indent = rng.choice(["", "", "", " ", "\t", "\u00a0", "\u3000"]) if rng.random() < 0.15 else ""
                k2 = k if rng.random() < 0.8 else rng.choice([k.upper(), k.title(), k + " ", " " + k])
                lines.append(indent + k2 + rnd_delim(rng) + val)
                if rng.random() < 0.12:  # a continuation, maybe after an empty or comment line
                    if rng.random() < 0.4:
                        lines.append(rng.choice(["", "  # in a value", "\t"]))
                    lines.append(rng.choice(["  ", "\t", "    ", " \u3000"]) + rnd_value(rng, k))
                    if rng.random() < 0.3:
                        lines.append("")
            elif r < 0.8:
                lines.append(rng.choice(["", "# comment", "; comment", "  ; x", "\t#"]))
            elif r < 0.82:
                lines.append(rng.choice(["no delimiter here", "just_a_key", "= value only", ":", "=", "  =x"]))
            elif r < 0.97:  # interpolation helpers, each once a section (a repeat is chosen above)
                helper = rng.choice(["x = 20", "X: 3200", "a = 1", "b = 2", "chunk = 4096", "self = %(self)s",
                                     "deep0 = %(deep1)s", "deep1 = %(deep2)s", "deep2 = 15"])
                if helper.split()[0].lower() not in used:
                    used.append(helper.split()[0].lower())
                    lines.append(helper)
            else:
                lines.append(rng.choice(["[irs]", "[DEFAULT]", "[mailbox]"]))  # a section again
    if rng.random() < 0.05:
        for i in range(12):
            lines.append("deep%d = %%(deep%d)s" % (i, i + 1))
        lines.append("deep12 = 7")
    text = "".join(l + eol(rng, style) for l in lines)
    if rng.random() < 0.15:
        text = text.rstrip("\r\n")
    data = text.encode("utf-8")
    r = rng.random()
    if r < 0.05:  # near a TextIOWrapper chunk boundary: long comments first
        pad = ("# " + "x" * 100 + "\n") * rng.randint(80, 84)
        data = pad.encode() + data
        if rng.random() < 0.7:
            at = rng.randint(8180, min(8200, len(data)))
            data = data[:at] + rng.choice([b"\xff", b"\xe2\x82", b"\xc3", b"\xed\xa0\x80"]) + data[at:]
    elif r < 0.09:  # the settings first, then comments past the first chunk, a bad byte before or after 8192
        pad = ("# " + "y" * 60 + "\r\n" if b"\r\n" in data else "# " + "y" * 60 + "\n") * rng.randint(120, 200)
        data = data + pad.encode()
        at = rng.choice([rng.randint(len(data) - 500, len(data)), rng.randint(8150, 8250), rng.randint(7000, 8191)])
        at = min(at, len(data))
        data = data[:at] + rng.choice([b"\xff", b"\xe2\x82", b"\xc3", b"\xed\xa0\x80", b"\r\xff"]) + data[at:]
    elif r < 0.13:
        at = rng.randint(0, len(data))
        data = data[:at] + rng.choice([b"\xff", b"\xe2\x82", b"\xc3(", b"\xf4\x90\x80\x80", b"\xc0\xaf"]) + data[at:]
    elif r < 0.14:
        at = rng.randint(0, len(data))
        data = data[:at] + b"\x00" + data[at:]
    return data


def boundary_cases():
    """Files whose line ending falls on TextIOWrapper's 8192-byte chunk boundary: a section repeated on the line that
    ends there, and a bad byte in the next chunk; whether configparser sees the repeat first depends on whether
    readline() needs the next chunk to end that line ("\r\n" and a lone "\r" do, "\n" does not)."""
    out = []
    for ending in (b"\n", b"\r\n", b"\r"):
        for last in (8190, 8191, 8192):  # the offset of the line's last byte before its ending
            head = b"[irs]" + ending + b"volume_utilization_chunk_mb = 4096" + ending
            line = b"[irs]"
            fill = last + 1 - len(line) - len(head)
            comment = b"#" + b"z" * (fill - 1 - len(ending)) + ending
            data = head + comment + line + ending + b"x = 1" + ending + b"# \xff" + ending
            assert data.index(line, len(head)) + len(line) == last + 1
            out.append(data)
    return out


def generate(outdir, seed, count):
    rng = random.Random(seed)
    corpus = os.path.join(outdir, "corpus")
    os.makedirs(corpus, exist_ok=True)
    for f in os.listdir(corpus):
        os.unlink(os.path.join(corpus, f))
    cases = []
    for i in range(count):
        nfiles = 1 if rng.random() < 0.85 else rng.randint(2, 4)
        names = []
        for j in range(nfiles):
            name = "%04d.conf" % i if nfiles == 1 else "%04d.%d.conf" % (i, j)
            with open(os.path.join(corpus, name), "wb") as f:
                f.write(gen_file(rng, section_first=rng.random() > 0.04))
            names.append(name)
        cases.append(names)
    for k, data in enumerate(boundary_cases()):
        name = "b%02d.conf" % k
        with open(os.path.join(corpus, name), "wb") as f:
            f.write(data)
        cases.append([name])
    with open(os.path.join(outdir, "cases.txt"), "w") as f:
        for names in cases:
            f.write(" ".join(names) + "\n")
    write_expected(outdir)


def expected_text(outdir):
    corpus = os.path.join(outdir, "corpus")
    out = []
    for line in open(os.path.join(outdir, "cases.txt")):
        names = line.split()
        out.append("case " + " ".join(names))
        out += ["  " + l for l in reference([os.path.join(corpus, n) for n in names])]
    return "\n".join(out) + "\n"


def write_expected(outdir):
    with open(os.path.join(outdir, "expected.txt"), "w", encoding="utf-8") as f:
        f.write(expected_text(outdir))


def main():
    if locale.getpreferredencoding(False).lower().replace("-", "") != "utf8":
        os.environ["PYTHONUTF8"] = "1"
        os.execv(sys.executable, [sys.executable] + sys.argv)
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "generate":
        seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 48
        count = int(args[args.index("--count") + 1]) if "--count" in args else 600
        generate(args[1], seed, count)
    elif len(args) == 2 and args[0] == "check":
        want = open(os.path.join(args[1], "expected.txt"), encoding="utf-8").read()
        got = expected_text(args[1])
        if got != want:
            import difflib
            sys.stdout.writelines(list(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                                            "expected.txt", "configparser now"))[:60])
            sys.exit(1)
        print("configparser (Python %s) agrees with expected.txt on %d cases" %
              (sys.version.split()[0], want.count("\ncase ") + want.startswith("case ")))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
