#!/usr/bin/env bash
# provpol latency: the profiles' statistics, VDSM logs (statistics as contrib/extend-stats computes them, the
# fitted flow model, --latency vdsm-log:FILE in plan and recommend), and bad input.
. "$(dirname "$0")/lib.sh"

# csv_field <file> <row key> <column name>: one value of a CSV table printed by provpol.
csv_field() {
  awk -F, -v key="$2" -v col="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
    $1 == key { print $c; exit }' "$1"
}
# check_awk <description> <awk condition on v>: one numeric check.
check() {
  checks=$((checks + 1))
  awk -v v="$2" "BEGIN { exit !($3) }" || fail "$1: $2 does not satisfy $3"
}

# ---- --profile ------------------------------------------------------------------------------------------------
expect_ok latency --profile vdsm-polling-2022 --format csv
expect_stdout_line 1 'profile,min_s,mean_s,median_s,p90_s,p99_s,max_s'
checks=$((checks + 1)); [ "$(wc -l <"$out")" -eq 2 ] || fail "latency --profile: expected a header and one row"
expect_stdout '^vdsm-polling-2022,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+$'
# Each profile covers what VDSM measured and lies within the stated bounds.
expect_ok latency --profile vdsm-polling-2022,vdsm-mailbox-events --profile vdsm-immediate --format csv
cp "$out" "$scratch/profiles.csv"
checks=$((checks + 1)); [ "$(wc -l <"$out")" -eq 4 ] || fail "latency: expected a header and three rows"
f="$scratch/profiles.csv"
check "polling min" "$(csv_field "$f" vdsm-polling-2022 min_s)" 'v >= 2.0 && v <= 2.2'
check "polling max" "$(csv_field "$f" vdsm-polling-2022 max_s)" 'v >= 6.2 && v <= 6.5'
check "polling mean" "$(csv_field "$f" vdsm-polling-2022 mean_s)" 'v >= 3.65 && v <= 3.75'
check "events min" "$(csv_field "$f" vdsm-mailbox-events min_s)" 'v >= 0.5 && v <= 1.05'
check "events max" "$(csv_field "$f" vdsm-mailbox-events max_s)" 'v >= 3.47 && v <= 4.0'
check "immediate min" "$(csv_field "$f" vdsm-immediate min_s)" 'v >= 0.5 && v <= 0.77'
check "immediate max" "$(csv_field "$f" vdsm-immediate max_s)" 'v >= 1.39 && v <= 1.8'
check "immediate mean" "$(csv_field "$f" vdsm-immediate mean_s)" 'v >= 1.10 && v <= 1.20'
# The statistics are ordered.
checks=$((checks + 1))
awk -F, 'NR > 1 && !($2 <= $4 && $4 <= $5 && $5 <= $6 && $6 <= $7 && $2 <= $3 && $3 <= $7) { bad = 1 } END { exit bad }' \
  "$f" || fail "latency: min <= median <= p90 <= p99 <= max and min <= mean <= max"
expect_ok latency --profile fixed:3.7 --format csv
expect_stdout_line 2 'fixed:3.7,3.7,3.7,3.7,3.7,3.7,3.7'
printf 'seconds\n2.2\n3.1\n6.2\n3.7\n' >"$scratch/lat.txt"
expect_ok latency --profile "samples:$scratch/lat.txt" --format csv
expect_stdout ',2.2,3.8,3.1,6.2,6.2,6.2$'
expect_ok latency --profile vdsm-immediate --format json
expect_stdout '"profile": "vdsm-immediate"'
expect_stdout '"p99_s": '
expect_ok latency --profile vdsm-immediate
expect_stdout '^profile +min_s +mean_s +median_s +p90_s +p99_s +max_s$'

# ---- --vdsm-log: a synthetic log of the events flow (monitor 2 s, 0.5 s mailbox polls) -------------------------
# wait uniform in [0, 2); round trip 1 or 2 polls of 0.5 s plus an inbox read of 0.04 to 0.15 s; refresh 0.19 to
# 0.38 s; every value printed as Clock prints it (%.2f).
gen_log() {  # gen_log <lines> <seed> [crlf]
  awk -v n="$1" -v seed="$2" -v crlf="${3:-}" 'BEGIN {
    srand(seed)
    for (i = 0; i < n; i++) {
      w = sprintf("%.2f", 2 * rand()); k = rand() < 0.6 ? 1 : 2
      e = sprintf("%.2f", 0.5 * k + 0.04 + 0.11 * rand()); r = sprintf("%.2f", 0.19 + 0.19 * rand())
      t = sprintf("%.2f", w + e + r + 0.005)
      printf "2022-03-23 03:57:59,502+0200 INFO  (mailbox-hsm/3) [virt.vm] (vmId=%c108e%c) Extend volume 7d85-%d " \
        "completed <Clock(total=%s, wait=%s, extend-volume=%s, refresh-volume=%s)> (thinp:567)%s\n", 39, 39, i, \
        t, w, e, r, (crlf ? "\r" : "")
      if (i % 7 == 0) printf "2022-03-23 03:57:59,600+0200 DEBUG (periodic/1) [virt.vm] not an extend line\n"
    }
  }'
}
log="$scratch/vdsm.log"
gen_log 400 7 >"$log"
expect_ok latency --vdsm-log "$log" --format csv
cp "$out" "$scratch/log.csv"
expect_stdout_line 1 'stage,samples,min_s,mean_s,median_s,p90_s,p99_s,max_s,model_min_s,model_mean_s,model_max_s,model'
expect_stdout '^total,400,'
expect_stdout '^wait,400,'
expect_stdout '^extend-volume,400,'
expect_stdout '^refresh-volume,400,'
checks=$((checks + 1)); [ "$(wc -l <"$out")" -eq 5 ] || fail "latency --vdsm-log: expected 4 stages"
expect_stdout 'watermark monitor every'
expect_stdout '"mailbox events: SPM event check every 0.5012 s'
# min, avg and max as contrib/extend-stats prints them (%.3f), computed here by awk.
for stage in total wait extend-volume refresh-volume; do
  field=$(case $stage in total) echo 1 ;; wait) echo 2 ;; extend-volume) echo 3 ;; refresh-volume) echo 4 ;; esac)
  expected=$(sed -n 's/.*completed <Clock(total=\([^,]*\), wait=\([^,]*\), extend-volume=\([^,]*\), refresh-volume=\([^)]*\))>.*/\1 \2 \3 \4/p' "$log" |
    awk -v f="$field" '{ v = $f + 0; s += v; if (NR == 1 || v < lo) lo = v; if (NR == 1 || v > hi) hi = v }
      END { printf "min=%.3f avg=%.3f max=%.3f", lo, s / NR, hi }')
  got=$(awk -F, -v s="$stage" '$1 == s { printf "min=%.3f avg=%.3f max=%.3f", $3, $4, $8 }' "$scratch/log.csv")
  checks=$((checks + 1)); [ "$got" = "$expected" ] || fail "$stage: provpol says $got, extend-stats' arithmetic $expected"
done
# Exactly, where Python is there to run the arithmetic itself (sorted; sum()/len(); statistics' median and
# inclusive percentiles).
if command -v python3 >/dev/null 2>&1; then
  checks=$((checks + 1))
  python3 - "$log" "$scratch/log.csv" <<'EOF' || fail "statistics differ from Python's"
import csv, re, statistics, sys
names = ["total", "wait", "extend-volume", "refresh-volume"]
values = {n: [] for n in names}
for line in open(sys.argv[1]):
    m = re.search(r"<Clock\((.*?)\)>", line)
    if m:
        for item in m.group(1).split(", "):
            k, v = item.split("=")
            values[k].append(float(v))
rows = {r["stage"]: r for r in csv.DictReader(open(sys.argv[2]))}
bad = 0
for n in names:
    d = sorted(values[n])
    q = statistics.quantiles(d, n=100, method="inclusive")
    want = [d[0], sum(d) / len(d), statistics.median(d), q[89], q[98], d[-1]]
    got = [float(rows[n][c]) for c in ["min_s", "mean_s", "median_s", "p90_s", "p99_s", "max_s"]]
    if want != got or int(rows[n]["samples"]) != len(d):
        print(n, "python", want, "provpol", got, file=sys.stderr)
        bad = 1
sys.exit(bad)
EOF
else
  echo "python3 not found: the exact comparison with Python's arithmetic is skipped"
fi
# The fitted model next to the log: the per-stage means within 5%.
for stage in wait extend-volume refresh-volume; do
  lm=$(csv_field "$scratch/log.csv" "$stage" mean_s)
  mm=$(csv_field "$scratch/log.csv" "$stage" model_mean_s)
  check "$stage: the model's mean $mm against the log's $lm" "$mm" "v >= 0.95 * $lm && v <= 1.05 * $lm"
done
# The text form: the fit's decisions.
expect_ok latency --vdsm-log "$log"
expect_stdout '^# provpol latency --vdsm-log .*: 400 extend lines of 458 lines \(0 malformed\)$'
expect_stdout '^fit: detection: watermark monitor every [12][.][0-9]+ s \(the waits. median, [0-9.]+ s, is at least 0.25 s\)$'
expect_stdout '^fit: mailbox events: .*\(the round trips. median, [0-9.]+ s, is under 1.5 s\)$'
expect_stdout '^fit: the model.s total: min'
# stdin, and CRLF line endings: the same numbers.
checks=$((checks + 1))
timeout 60 "$PROVPOL" latency --vdsm-log - --format csv <"$log" >"$scratch/stdin.csv" 2>"$scratch/stdin.err" &&
  cmp -s "$scratch/stdin.csv" "$scratch/log.csv" && [ ! -s "$scratch/stdin.err" ] || fail "--vdsm-log - (stdin)"
gen_log 400 7 crlf >"$scratch/crlf.log"
expect_ok latency --vdsm-log "$scratch/crlf.log" --format csv
checks=$((checks + 1)); cmp -s "$out" "$scratch/log.csv" || fail "--vdsm-log: CRLF changed the numbers"

# --latency vdsm-log:FILE: latency --profile, plan and recommend use the fitted model.
expect_ok latency --profile "vdsm-log:$log" --format csv
check "vdsm-log: profile mean = the fit's total model mean" "$(csv_field "$out" "vdsm-log:$log" mean_s)" \
  "v == $(csv_field "$scratch/log.csv" total model_mean_s)"
expect_ok plan --latency "vdsm-log:$log" --preset vdsm-2022 --rate 400MiB/s --runs 20 --format csv
expect_stdout '^400,'
expect_ok recommend --rate 400MiB/s --latency "vdsm-log:$log"
expect_stdout '^volume_utilization_chunk_mb = [0-9]+$'

# Replica lines add their stages; malformed lines are counted on stderr, never fatal.
{
  cat "$log"
  echo "x Extend volume v completed <Clock(total=4.10, wait=0.50, extend-replica=1.20, refresh-replica=0.30, extend-volume=1.80, refresh-volume=0.30)>"
  echo "x Extend replica v completed <Clock(total=2.00, wait=0.50, extend-replica=1.10, refresh-replica=0.20)>"
  echo "x Extend volume v completed <Clock(total=nan, wait=0.50, extend-volume=1.80, refresh-volume=0.30)>"
  echo "x Extend volume v completed <Clock(total=1.50, wait=-0.50, extend-volume=1.80, refresh-volume=0.30)>"
  echo "x Extend volume v completed <Clock(total=1.50, wait=0.50, extend-vol"
} >"$scratch/mixed.log"
checks=$((checks + 1))
run latency --vdsm-log "$scratch/mixed.log" --format csv
{ [ "$status" -eq 0 ] && [ "$(wc -l <"$err")" -eq 1 ] &&
  grep -Eq '^provpol latency: --vdsm-log: 3 malformed extend completion lines ignored \(the first, line 461: Clock total: invalid value .nan.' "$err"; } ||
  fail "mixed log: exit 0 and one stderr line counting 3 malformed lines"
expect_stdout '^total,402,'
expect_stdout '^wait,402,'
expect_stdout '^extend-volume,401,'
expect_stdout '^extend-replica,2,1.1,1.15,1.15,'
expect_stdout '^refresh-replica,2,0.2,0.25,'

# A huge log, streamed from stdin: 200,000 extend lines (about 37 MB).
checks=$((checks + 1))
gen_log 200000 11 | timeout 120 "$PROVPOL" latency --vdsm-log - --format csv >"$scratch/huge.csv" 2>"$scratch/huge.err" &&
  grep -q '^total,200000,' "$scratch/huge.csv" && [ ! -s "$scratch/huge.err" ] || fail "a huge log from stdin"

# Immediate dispatch: waits of 10 to 30 ms.
awk 'BEGIN { srand(3); for (i = 0; i < 300; i++) { w = 0.01 + 0.02 * rand(); e = 0.5 * (rand() < 0.5 ? 1 : 2) + 0.04 + 0.11 * rand(); r = 0.16 + 0.15 * rand()
  printf "Extend volume v completed <Clock(total=%.2f, wait=%.2f, extend-volume=%.2f, refresh-volume=%.2f)>\n", w + e + r, w, e, r } }' \
  >"$scratch/immediate.log"
expect_ok latency --vdsm-log "$scratch/immediate.log"
expect_stdout '^fit: detection: event dispatch 0.0[0-9]*-0.0[0-9]* s .*is under 0.25 s\)$'
# Events off: round trips of 2 s polls.
awk 'BEGIN { srand(5); for (i = 0; i < 300; i++) { w = 2 * rand(); e = 2 * (rand() < 0.8 ? 1 : 2) + 0.04 + 0.11 * rand(); r = 0.15 + 0.19 * rand()
  printf "Extend volume v completed <Clock(total=%.2f, wait=%.2f, extend-volume=%.2f, refresh-volume=%.2f)>\n", w + e + r, w, e, r } }' \
  >"$scratch/polling.log"
expect_ok latency --vdsm-log "$scratch/polling.log"
expect_stdout '^fit: mailbox polling: SPM scan every 2.005 s'

# ---- bad input: exit 2, one line on stderr, nothing on stdout ----------------------------------------------------
expect_usage "--vdsm-log: cannot open '$scratch/missing.log': No such file or directory" latency --vdsm-log "$scratch/missing.log"
expect_usage "--vdsm-log: '$scratch' is a directory, not a VDSM log" latency --vdsm-log "$scratch"
: >"$scratch/empty.log"
expect_usage 'has no extend completion lines' latency --vdsm-log "$scratch/empty.log"
printf 'line one\nline two\r\n\0binary\n' >"$scratch/other.log"
expect_usage 'has no extend completion lines' latency --vdsm-log "$scratch/other.log"
expect_usage 'has no extend completion lines' latency --vdsm-log -   # stdin is /dev/null
tail -n 3 "$scratch/mixed.log" >"$scratch/bad.log"
expect_usage "has no valid extend completion line \(3 malformed; the first, line 1: Clock total: invalid value 'nan'" \
  latency --vdsm-log "$scratch/bad.log"
printf 'Extend replica v completed <Clock(total=2.00, wait=0.50, extend-replica=1.10, refresh-replica=0.20)>\n' >"$scratch/replica.log"
expect_usage '--vdsm-log: Clock extend-volume: no samples in the log: cannot fit a flow model' latency --vdsm-log "$scratch/replica.log"
expect_usage "--latency: cannot open '$scratch/missing.log'" plan --latency "vdsm-log:$scratch/missing.log" --runs 1
expect_usage '--profile: .* is a directory' latency --profile "vdsm-log:$scratch"
expect_usage 'has no extend completion lines' recommend --rate 100MiB/s --latency "vdsm-log:$scratch/empty.log"
expect_usage 'needs a file name' latency --profile vdsm-log:
expect_usage 'needs a file name' latency --vdsm-log ''
expect_usage "--profile: unknown value 'vdsm-polling-2023'" latency --profile vdsm-polling-2023
expect_usage 'not both' latency --profile vdsm-immediate --vdsm-log "$log"
expect_usage 'give --profile NAME or --vdsm-log FILE' latency
expect_usage 'unknown option' latency --profiles vdsm-immediate
expect_usage 'needs a value' latency --vdsm-log
expect_usage 'unknown value' latency --profile vdsm-immediate --format xml
# Hostile values, as tests/cli/hostile_test.sh gives every other command.
long=$(head -c 100000 /dev/zero | tr '\0' '9')
for v in "-1" "1e400" "NaN" "" "5 GB" $'\x01\xff\xfe' "--" "$long" "fixed:" "fixed:-1" "samples:" "vdsm-log:" \
  "vdsm-log:/dev/null" "vdsm-log:$scratch/nowhere/x" "samples:/dev/null"; do
  expect_usage '.' latency --profile "$v"
done
for v in "" "$long" $'\x01\xff\xfe' "/dev/null" "$scratch/nowhere/x" "/"; do
  expect_usage '.' latency --vdsm-log "$v"
done
expect_ok latency --vdsm-log "$log" --format json
expect_stdout '"stage": "extend-volume"'
expect_stdout '"model": "mailbox events: '
expect_ok latency --help
expect_stdout 'vdsm-log:FILE'

finish
