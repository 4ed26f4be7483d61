#!/usr/bin/env bash
# VDSM's configuration as an oVirt host has it, end to end through the CLI: a directory read as vdsmd reads
# /etc/vdsm (checked against config.py.in's read_configs() run by Python on the same tree), keys VDSM does not have
# named with the nearest one, [mailbox] and [thinp] choosing the latency, the current release's flow by default and
# named in the output, recommend's answers loaded by configparser as VDSM loads them (one file, or one per answer
# with --output-dir), and hostile inputs that end with exit 2 and one line. Expected values come from configparser
# and VDSM's code, never from provpol.
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v python3 >/dev/null || { echo "python3 is needed (scripts/dev deps installs it)"; exit 1; }

check() {  # check <description> <command...>
  local what=$1
  shift
  checks=$((checks + 1))
  "$@" || fail "$what"
}

# vdsm_load ROOT [FILE...]: configparser set up as VDSM's config.py.in load() does (its schema from
# tools/vdsm_conf_corpus.py), reading read_configs()'s files under ROOT (its _SYSCONFDIR and _DROPPIN_BASES moved
# under ROOT), or FILEs; prints chunk-NMiB-Ppct and events_enable, or "refused".
vdsm_load() {
  PYTHONUTF8=1 python3 - "$root/tools" "$@" <<'PY'
import configparser, glob, os, sys
sys.path.insert(0, sys.argv[1])
import vdsm_conf_corpus as v
cfg = v.vdsm_parser()
root, files = sys.argv[2], sys.argv[3:]
try:
    if files:
        cfg.read(files)
    else:
        # config.py.in read_configs(cfg, "vdsm"), under root
        cfg.read(os.path.join(root, "etc", "vdsm", "vdsm.conf"))
        dropins = []
        for base in ("usr/lib", "run", "etc"):
            dropins.extend(glob.glob(os.path.join(root, base, "vdsm", "vdsm.conf.d", "*.conf")))
        dropins.sort(key=os.path.basename)
        cfg.read(dropins)
    print("chunk-%dMiB-%dpct events_enable=%s" % (cfg.getint("irs", "volume_utilization_chunk_mb"),
          cfg.getint("irs", "volume_utilization_percent"), cfg.getboolean("mailbox", "events_enable")))
except (configparser.Error, ValueError) as e:
    print("refused " + type(e).__name__)
PY
}

# --- a directory as vdsmd reads it ---------------------------------------------------------------------------------
host=$scratch/host
mkdir -p "$host/etc/vdsm/vdsm.conf.d" "$host/usr/lib/vdsm/vdsm.conf.d" "$host/run/vdsm/vdsm.conf.d"
printf '[vars]\nssl = true\n\n[addresses]\nmanagement_port = 54321\n\n[irs]\nvolume_utilization_percent = 30\n' \
  >"$host/etc/vdsm/vdsm.conf"
printf '[irs]\nvolume_utilization_chunk_mb = 3072\n' >"$host/usr/lib/vdsm/vdsm.conf.d/50-vendor.conf"
printf '[irs]\nvolume_utilization_chunk_mb = 4096\n' >"$host/etc/vdsm/vdsm.conf.d/50-vendor.conf"   # same name: /etc last
printf '[mailbox]\nevents_enable = false\n' >"$host/run/vdsm/vdsm.conf.d/40-runtime.conf"
printf '[irs]\nvolume_utilization_chunk_mb = 9999\n' >"$host/etc/vdsm/vdsm.conf.d/.hidden.conf"       # glob skips it
printf '[irs]\nvolume_utilization_chunk_mb = 8888\n' >"$host/etc/vdsm/vdsm.conf.d/90-old.conf.rpmsave"  # not *.conf
mkdir "$host/etc/vdsm/vdsm.conf.d/60-dir.conf"                                                          # cfg.read skips it
want=$(vdsm_load "$host")
run plan --config "$host/etc/vdsm" --rate 500MiB/s --runs 3 --write 5GiB --format csv
check "plan --config DIR exits 0 (status $status)" test "$status" -eq 0
check "plan --config DIR reads what vdsmd reads (${want%% *})" grep -q ",${want%% *}," "$out"
check "configparser's reading turns events off" test "${want#* }" = "events_enable=False"
check "stderr lists the files in vdsmd's order" grep -Eq \
  "^provpol plan: --config: .*/host/etc/vdsm: vdsmd reads .*/etc/vdsm/vdsm.conf, .*/run/vdsm/vdsm.conf.d/40-runtime.conf, .*/usr/lib/vdsm/vdsm.conf.d/50-vendor.conf, .*/etc/vdsm/vdsm.conf.d/50-vendor.conf; it skips .*60-dir.conf" "$err"
check "the latency is the events-off flow, said on stderr" grep -q \
  "^provpol plan: --config: latency vdsm-immediate(events_enable=false): VDSM 4.50's extend flow with events_enable = false from .*40-runtime.conf line 2" "$err"
# The drop-in directory alone, and the same tree given file by file, give the drop-ins' layers.
run plan --config "$host/etc/vdsm/vdsm.conf.d" --rate 500MiB/s --runs 3 --write 5GiB --format csv
check "plan --config vdsm.conf.d reads its drop-ins" grep -q ",chunk-4096MiB-20pct," "$out"
expect_usage "has neither vdsm.conf nor vdsm.conf.d: not VDSM's configuration directory" plan --config "$scratch"

# --- keys VDSM does not have ---------------------------------------------------------------------------------------
printf '[irs]\nvolume_utilisation_chunk_mb = 4096\nvolume_utilization_percent = 25\n[vars]\nvolume_utilization_chunk_mb = 1\n[IRS]\nvolume_utilization_chunk_mb = 2\n' >"$scratch/typo.conf"
run plan --config "$scratch/typo.conf" --rate 500MiB/s --runs 3 --write 5GiB --format csv
check "a typo is read as configparser reads it: the default chunk" grep -q ",$(vdsm_load / "$scratch/typo.conf" | cut -d' ' -f1)," "$out"
check "the typo is named with the key it was meant to be" grep -q \
  "typo.conf:2: \[irs\] volume_utilisation_chunk_mb is not a key VDSM 4.50 has in \[irs\] (did you mean volume_utilization_chunk_mb?): vdsmd ignores it" "$err"
check "a key in the wrong section is named" grep -q "typo.conf:5: volume_utilization_chunk_mb is a key of \[irs\], not of \[vars\]" "$err"
check "a section VDSM does not have is named" grep -q "typo.conf:7: \[IRS\] is not a section VDSM 4.50 has (did you mean \[irs\]?)" "$err"
check "the default is said to be VDSM 4.50's" grep -q "volume_utilization_chunk_mb = 2560 from VDSM 4.50's default" "$err"

# --- what configparser refuses, provpol refuses, with the file and line --------------------------------------------
printf 'volume_utilization_chunk_mb = 4096\n' >"$scratch/noheader.conf"
printf '[irs]\nvolume_utilization_chunk_mb = 4096\n[vars]\nssl = true\n[irs]\nvolume_utilization_percent = 10\n' >"$scratch/twice.conf"
printf '[irs]\nvolume_utilization_chunk_mb = 4096\nVolume_Utilization_Chunk_MB = 2048\n' >"$scratch/keytwice.conf"
printf '[irs]\nvolume_utilization_chunk_mb = 4096 # the new size\n' >"$scratch/inline.conf"
for f in noheader twice keytwice inline; do
  check "configparser refuses $f.conf" grep -q "^refused" <(vdsm_load / "$scratch/$f.conf")
done
expect_usage "noheader.conf:1: 'volume_utilization_chunk_mb = 4096' before any \[section\] \(MissingSectionHeaderError\)" \
  plan --config "$scratch/noheader.conf"
expect_usage "twice.conf:5: \[irs\] again in the same file \(DuplicateSectionError\)" plan --config "$scratch/twice.conf"
expect_usage "keytwice.conf:3: volume_utilization_chunk_mb again in \[irs\] in the same file \(DuplicateOptionError\)" \
  extend --config "$scratch/keytwice.conf" --capacity 100GiB --physical 4GiB --allocation 3GiB
expect_usage "inline.conf:2: \[irs\] volume_utilization_chunk_mb: '4096 # the new size' is not a whole number" \
  capacity --config "$scratch/inline.conf" --rate 500MiB/s --max-pauses-per-run 1 --hosts 1 --drives-per-host 2
# A flow setting VDSM cannot run with.
printf '[mailbox]\nevents_interval = 0\n' >"$scratch/zero.conf"
expect_usage "zero.conf:2: \[mailbox\] events_interval must be in" plan --config "$scratch/zero.conf"
printf '[mailbox]\nevents_enable = maybe\n' >"$scratch/maybe.conf"
expect_usage "maybe.conf:2: \[mailbox\] events_enable: 'maybe' is not a boolean" plan --config "$scratch/maybe.conf"

# --- the latency: the current release's by default, [mailbox] and [thinp] change it, named in the output ------------
expect_ok plan --rate 500MiB/s --runs 3 --write 5GiB
expect_stdout_line 1 "# latency vdsm-immediate: mean 1.17 s, median 1.3 s, 99th percentile 1.46 s, max 1.49 s"
run plan --rate 500MiB/s --runs 3 --write 5GiB --format csv
cp "$out" "$scratch/default.csv"
run plan --rate 500MiB/s --runs 3 --write 5GiB --format csv --latency vdsm-immediate
check "the default latency is vdsm-immediate" cmp -s "$out" "$scratch/default.csv"
printf '[mailbox]\nevents_interval = 0.25\n[thinp]\nextend_timeout = 3\n' >"$scratch/fast.conf"
run plan --config "$scratch/fast.conf" --rate 500MiB/s --runs 3 --write 5GiB
check "events_interval and extend_timeout name the flow" grep -q \
  "^# latency vdsm-immediate(events_interval=0.25,extend_timeout=3): mean" "$out"
run plan --config "$scratch/fast.conf" --latency vdsm-polling-2022 --rate 500MiB/s --runs 3 --write 5GiB
check "an explicit --latency wins, and says so" grep -q "^provpol plan: --latency vdsm-polling-2022: the extend flow --config's \[mailbox\] and \[thinp\] settings give is not used" "$err"
check "... and the text names it" grep -q "^# latency vdsm-polling-2022: " "$out"
run recommend --config "$host/etc/vdsm" --rate 500MiB/s --runs 5
sed -i ':a;N;$!ba;s/\n#   / /g' "$out"  # recommend wraps its comments at 100 columns: one line each again
check "recommend --config: the host's flow" grep -q "latency vdsm-immediate(events_enable=false) (mean" "$out"
check "recommend --config: the host's percent" grep -q "^volume_utilization_percent = 30$" "$out"
check "recommend --config: the host's own configuration, judged" grep -q "^# the host's configuration (--config): volume_utilization_chunk_mb = 4096, volume_utilization_percent = 30" "$out"
run capacity --config "$host/etc/vdsm" --rate 500MiB/s --max-pauses-per-run 1 --hosts 1 --drives-per-host 2 --write 5GiB --format csv
check "capacity --config: the host's flow in the latency column" grep -q "^vdsm-immediate(events_enable=false)," "$out"

# --- recommend's answers load in VDSM ------------------------------------------------------------------------------
loads() {  # loads FILE: configparser (as VDSM) reads it; prints chunk-NMiB-Ppct
  vdsm_load / "$1" | cut -d' ' -f1
}
expect_ok recommend --rate 500MiB/s,800MiB/s --runs 5
cp "$out" "$scratch/two.conf"
check "two rates: one active [irs]" test "$(grep -c '^\[irs\]$' "$scratch/two.conf")" -eq 1
check "two rates: the file loads in VDSM" grep -q "^chunk-" <(loads "$scratch/two.conf")
# The answer left active is the one with the largest free-space limit, chunk x (100 - percent) / 100: of the [irs]
# blocks, active or commented out, as the file has them.
big=$(sed 's/^# //' "$scratch/two.conf" | awk '/^volume_utilization_chunk_mb = / {c = $3}
  /^volume_utilization_percent = / {l = c * (100 - $3); if (l >= m) {m = l; b = "chunk-" c "MiB-" $3 "pct"}} END {print b}')
check "two rates: the active one has the largest free-space limit ($big)" test "$(loads "$scratch/two.conf")" = "$big"
run plan --config "$scratch/two.conf" --rate 500MiB/s --runs 3 --write 5GiB --format csv
check "plan --config reads the answer VDSM loads" grep -q ",$big," "$out"
expect_ok recommend --rate 500MiB/s --latency vdsm-immediate,vdsm-polling-2022 --runs 5
check "two latencies: the file loads in VDSM" grep -q "^chunk-" <(loads "$out")
mkdir "$scratch/answers"
run recommend --rate 500MiB/s,800MiB/s --runs 5 --output-dir "$scratch/answers"
check "--output-dir: exit 0 (status $status)" test "$status" -eq 0
for r in 500MiB-s 800MiB-s; do
  check "--output-dir wrote recommend-$r.conf, which VDSM loads" grep -q "^chunk-" <(loads "$scratch/answers/recommend-$r.conf")
done
check "--output-dir: the files on stderr" grep -q "^provpol recommend: --output-dir: wrote .*recommend-500MiB-s.conf, .*recommend-800MiB-s.conf" "$err"
check "--output-dir: stdout is the one file" cmp -s "$out" "$scratch/two.conf"
expect_usage "--output-dir: .* is not a directory" recommend --rate 500MiB/s --output-dir "$scratch/none"
expect_usage "--output-dir writes VDSM's files, the text answer: give no --format" recommend --rate 500MiB/s --output-dir "$scratch/answers" --format csv

# --- hostile inputs: exit 2, one line, bounded -----------------------------------------------------------------------
python3 -c '
import sys
with open(sys.argv[1], "w") as f:
    f.write("[irs]\n")
    for i in range(100000):
        f.write("key_%06d = %d\n" % (i, i))
' "$scratch/100k.conf"
run plan --config "$scratch/100k.conf" --rate 500MiB/s --runs 3 --write 5GiB --format csv
check "100,000 keys: read (status $status)" test "$status" -eq 0
check "100,000 keys: the notes are few" test "$(wc -l <"$err")" -le 10
expect_usage "'/dev/zero' is larger than 4 MiB" plan --config /dev/zero
expect_usage "reading '/proc/self/mem' failed: Input/output error" plan --config /proc/self/mem
expect_usage "reading '/proc/self/mem' failed: Input/output error" latency --vdsm-log /proc/self/mem
expect_usage "reading '/proc/self/mem' failed: Input/output error" plan --latency flow:/proc/self/mem
expect_usage "reading '/proc/self/mem' failed: Input/output error" plan --latency samples:/proc/self/mem
checks=$((checks + 1))
timeout 60 "$PROVPOL" plan --config - >"$scratch/o" 2>"$scratch/e" <&-
status=$?
[ "$status" -eq 2 ] && [ "$(wc -l <"$scratch/e")" -eq 1 ] && grep -q "cannot read stdin: Bad file descriptor" "$scratch/e" ||
  { out=$scratch/o err=$scratch/e; fail "a closed stdin: exit 2, one line (status $status)"; }
expect_usage "'/dev/zero' is binary \(a NUL byte at offset 0\): not a VDSM log" latency --vdsm-log /dev/zero
head -c 300000 /dev/urandom >"$scratch/random.bin"
expect_usage "." latency --vdsm-log "$scratch/random.bin"
expect_usage "." plan --config "$scratch/random.bin"
expect_usage "'/dev/zero' is larger than 1 MiB|NUL byte" plan --latency flow:/dev/zero

# --- logs as logrotate leaves them -----------------------------------------------------------------------------------
# A log of 600 extends over 10 minutes (one VM, 0.5 s reply polls), in three parts as logrotate leaves them.
awk 'BEGIN { srand(7); for (i = 0; i < 600; i++) { w = sprintf("%.2f", 2 * rand()); e = sprintf("%.2f", 0.55 + 0.5 * int(2 * rand()) + 0.1 * rand());
  r = sprintf("%.2f", 0.2 + 0.1 * rand()); t = sprintf("%.2f", w + e + r + 0.005)
  printf "2022-03-23 03:%02d:%02d,502+0200 INFO  (mailbox-hsm/3) [virt.vm] (vmId=%c1%c) Extend volume 7d85-%d completed <Clock(total=%s, wait=%s, extend-volume=%s, refresh-volume=%s)> (thinp:567)\n", 40 + int(i / 60), i % 60, 39, 39, i, t, w, e, r } }' >"$scratch/whole.log"
head -n 200 "$scratch/whole.log" >"$scratch/vdsm.log.2"
sed -n 201,400p "$scratch/whole.log" >"$scratch/vdsm.log.1"
tail -n 200 "$scratch/whole.log" >"$scratch/vdsm.log"
xz -c "$scratch/vdsm.log.2" >"$scratch/vdsm.log.2.xz"
gzip -c "$scratch/vdsm.log.1" >"$scratch/vdsm.log.1.gz"
run latency --vdsm-log "$scratch/whole.log" --format csv
cp "$out" "$scratch/whole.csv"
run latency --vdsm-log "$scratch/vdsm.log.2.xz" --vdsm-log "$scratch/vdsm.log.1.gz" --vdsm-log "$scratch/vdsm.log" --format csv
check "three rotated logs, .xz and .gz among them, read in order are the whole log" cmp -s "$out" "$scratch/whole.csv"
run latency --vdsm-log "$scratch/vdsm.log.2.xz" --format csv
check "one .xz log alone: 200 extend lines" grep -q "^total,200," "$out"
run latency --vdsm-log "$scratch/vdsm.log" --vdsm-log "$scratch/vdsm.log.2.xz" --format csv
check "logs out of order: said on stderr" grep -q "starts (2022-03-23 03:40:00,502) before .*vdsm.log' ends (2022-03-23 03:49:59,502): give the logs oldest first" "$err"
head -c "$(($(wc -c <"$scratch/vdsm.log.2.xz") / 2))" "$scratch/vdsm.log.2.xz" >"$scratch/cut.xz"
expect_usage "cut.xz': xz -dc failed: " latency --vdsm-log "$scratch/cut.xz"
head -c 100000 /dev/zero | gzip -c >"$scratch/zero.gz"
expect_usage "zero.gz' is binary \(a NUL byte at offset 0 once decompressed\): not a VDSM log" latency --vdsm-log "$scratch/zero.gz"
finish
