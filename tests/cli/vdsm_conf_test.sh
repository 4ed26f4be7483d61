#!/usr/bin/env bash
# provpol extend --config with VDSM's own files (vdsm.conf and vdsm.conf.d drop-ins, layered), checked against
# Python's configparser reading the same files the way VDSM's lib/vdsm/common/config.py.in does: one
# ConfigParser, VDSM's schema defaults set first (set_defaults, tools/vdsm_conf_corpus.py), then cfg.read() of the
# files in order, and config.getint("irs", ...). The expected values come from configparser, never from provpol.
set -euo pipefail
PROVPOL=$1
command -v python3 >/dev/null || { echo "python3 is needed (scripts/dev deps installs it)"; exit 1; }
exec python3 - "$PROVPOL" "$(cd "$(dirname "$0")/../../tools" && pwd)" <<'PY'
import configparser, os, random, re, subprocess, sys, tempfile
sys.path.insert(0, sys.argv[2])
import vdsm_conf_corpus

provpol = sys.argv[1]
MiB = 1 << 20
checks = failures = 0

def vdsm_reading(files, defaults):
    # lib/vdsm/common/config.py.in: load() = ConfigParser(); set_defaults(cfg) (VDSM 4.50's schema, the [irs] chunk
    # and percent of the preset's release); read_configs(cfg, ...)
    cfg = vdsm_conf_corpus.vdsm_parser()
    cfg.set("irs", "volume_utilization_chunk_mb", str(defaults[0]))
    cfg.set("irs", "volume_utilization_percent", str(defaults[1]))
    cfg.read(files)
    return cfg.getint("irs", "volume_utilization_chunk_mb"), cfg.getint("irs", "volume_utilization_percent")

def provpol_reading(files, preset):
    cmd = [provpol, "extend", "--preset", preset, "--capacity", "100GiB", "--physical", "10GiB",
           "--allocation", "1GiB", "--format", "csv"]
    for f in files:
        cmd += ["--config", f]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r
    row = dict(zip(*[line.split(",") for line in r.stdout.splitlines()[:2]]))
    return (int(row["chunk"]), int(row["limit"])), r

def check(name, ok, detail=""):
    global checks, failures
    checks += 1
    if not ok:
        failures += 1
        print("FAIL: %s %s" % (name, detail))

def compare(name, files, preset="vdsm-2022"):
    defaults = (1024, 50) if preset == "vdsm-legacy" else (2560, 20)
    try:
        mb, pct = vdsm_reading(files, defaults)
        want = (mb * MiB, (100 - pct) * mb * MiB // 100) if 1 <= mb and 0 <= pct <= 99 else None
    except (configparser.Error, ValueError):
        want = None  # VDSM fails to start; provpol refuses the files
    got, r = provpol_reading(files, preset)
    detail = "files %s: configparser %s, provpol %s (exit %d, stderr %r)" % (
        [open(f).read() for f in files], want, got, r.returncode, r.stderr)
    if want is None:
        check(name, got is None and r.returncode == 2 and len(r.stderr.splitlines()) == 1, detail)
    else:
        check(name, got == want, detail)
        # stderr names the file of each value (or the default) when there are several files or a default, on one
        # line; the other lines name settings VDSM does not have, with their file and line
        sources = [l for l in r.stderr.splitlines() if re.search(r"--config: volume_utilization_chunk_mb = \d+ from .*, volume_utilization_percent = \d+ from ", l)]
        others = [l for l in r.stderr.splitlines() if l not in sources]
        if len(files) > 1 or sources:
            check(name + " (sources)", len(sources) == 1, detail)
        check(name + " (notes)", all(re.match(r"provpol extend: --config: (.*:\d+: |and \d+ more settings)", l) for l in others), detail)

tmp = tempfile.mkdtemp()
def write(name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path

# The issue's cases: keys in any order, one key per file, vdsm.conf plus two drop-ins.
main = write("vdsm.conf", "[vars]\nssl = true\n\n[irs]\nvolume_utilization_percent = 30\nvolume_utilization_chunk_mb = 4096\n")
d1 = write("50-chunk.conf", "# admin drop-in\n[irs]\nvolume_utilization_chunk_mb = 3072\n")
d2 = write("60-percent.conf", "[irs]\nvolume_utilization_percent: 25\n")
compare("vdsm.conf + two drop-ins", [main, d1, d2])
compare("one drop-in, chunk only", [d1])
compare("one drop-in, percent only, legacy defaults", [d2], "vdsm-legacy")
compare("percent before chunk", [main])
compare("later wins", [d1, write("70-chunk.conf", "[irs]\nvolume_utilization_chunk_mb=1536\n")])

# Random files in the syntax configparser reads: case, delimiters, spacing, comments, other sections and keys,
# continuation lines, [DEFAULT], and now and then what configparser refuses.
rng = random.Random(40)
def random_file(i):
    lines = []
    if rng.random() < 0.05:
        lines.append("volume_utilization_percent = 10")  # before any section: MissingSectionHeaderError
    sections = rng.sample(["irs", "vars", "DEFAULT", "irs2", "IRS"], rng.randint(1, 3))
    if rng.random() < 0.7 and "irs" not in sections:
        sections.append("irs")
    rng.shuffle(sections)
    for s in sections:
        if rng.random() < 0.3:
            lines.append(rng.choice(["# comment", "; comment", "   # indented comment", ""]))
        lines.append("[%s]" % s)
        keys = rng.sample(["volume_utilization_chunk_mb", "volume_utilization_percent", "other_key",
                           "vol_size_sample_interval"], rng.randint(0, 3))
        if rng.random() < 0.03 and keys:
            keys.append(keys[0])  # a key twice in one section: DuplicateOptionError
        for k in keys:
            if rng.random() < 0.3:
                k = "".join(c.upper() if rng.random() < 0.5 else c for c in k)
            if "chunk" in k.lower():
                v = str(rng.choice([512, 1024, 2048, 2560, 3072, 4096, 8192]))
            elif "percent" in k.lower():
                v = str(rng.randint(0, 99))
            else:
                v = rng.choice(["true", "60", "a: b = c"])
            r = rng.random()
            if r < 0.02:
                v = "x" + v  # not a whole number
            elif r < 0.04:
                v = v[:1] + "_" + v[1:] if len(v) > 1 else v  # int() reads 2_560
            elif r < 0.06:
                v = "+" + v
            sep = rng.choice([" = ", "=", ": ", " : ", ":"])
            lines.append(rng.choice(["", "", "  "]) * 0 + k + sep + v)
            if rng.random() < 0.08:
                lines.append("    continued")  # a continuation line: the value spans lines
    return write("r%d.conf" % i, "\n".join(lines) + "\n")

n = 0
for i in range(150):
    files = [random_file(3 * i + j) for j in range(rng.randint(1, 3))]
    compare("random %d" % i, files, rng.choice(["vdsm-2022", "vdsm-legacy"]))
    n += 1

print("%d checks, %d failed" % (checks, failures))
sys.exit(1 if failures else 0)
PY
