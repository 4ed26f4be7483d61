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
expect_stdout_line 1 'stage,samples,min_s,mean_s,median_s,p90_s,p99_s,max_s,model_min_s,model_mean_s,model_max_s,stalls,stall_min_s,stall_max_s,model'
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
expect_stdout '^fit: detection: watermark monitor every [12][.][0-9]+ s$'
expect_stdout '^fit: mailbox events: .*\(the likeliest of the reply polls scored: 0.2, 0.25, 0.5, .* s\)$'
expect_stdout '^fit: 400 extends of 1 VM: a mailbox flow: 400 of 400 round trips lie 0[.][0-9]+-0[.][0-9]+ s after a 0.5 s reply poll \(chance 1e-[0-9]+ without one\)$'
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
expect_stdout '^fit: detection: event dispatch 0.0[0-9]*-0.0[0-9]* s$'
# Events off: round trips of 2 s polls.
awk 'BEGIN { srand(5); for (i = 0; i < 300; i++) { w = 2 * rand(); e = 2 * (rand() < 0.8 ? 1 : 2) + 0.04 + 0.11 * rand(); r = 0.15 + 0.19 * rand()
  printf "Extend volume v completed <Clock(total=%.2f, wait=%.2f, extend-volume=%.2f, refresh-volume=%.2f)>\n", w + e + r, w, e, r } }' \
  >"$scratch/polling.log"
expect_ok latency --vdsm-log "$scratch/polling.log"
expect_stdout '^fit: mailbox polling: SPM scan every 2.005 s'

# ---- the fit against logs the old median rule got wrong --------------------------------------------------------
# Mailbox events and a slow SPM (lvextend 1.2 to 2 s): round trips of 3 to 5 half-second polls are not polling.
awk 'BEGIN { srand(21); for (i = 0; i < 600; i++) { w = 2 * rand(); c = 0.50125 * rand(); x = c + 1.2 + 0.8 * rand()
  k = int(x / 0.5); if (k * 0.5 < x) k++; e = 0.5 * k + 0.03 + 0.09 * rand(); r = 0.15 + 0.2 * rand()
  printf "Extend volume v completed <Clock(total=%.2f, wait=%.2f, extend-volume=%.2f, refresh-volume=%.2f)>\n", w + e + r, w, e, r } }' \
  >"$scratch/slow_spm.log"
expect_ok latency --vdsm-log "$scratch/slow_spm.log"
expect_stdout '^fit: mailbox events: SPM event check every 0.5012 s, work 1[.][0-9]+-[12][.][0-9]+ s, reply poll 0.5 s \(3 to 5\)'
# A log without wait timers (VDSM before 4.50) is fitted without detection, its statistics all there.
sed 's/, wait=[0-9.]*//' "$log" >"$scratch/nowait.log"
expect_ok latency --vdsm-log "$scratch/nowait.log" --format csv
expect_stdout '^wait,0,,,,,,,,,,,,,$'
expect_stdout '^extend-volume,400,.*,"mailbox events: '
expect_ok latency --vdsm-log "$scratch/nowait.log"
expect_stdout '^fit: detection: no wait timer: the flow starts at the request$'
# A log no mode explains: the statistics, one stderr line, no model; as --latency it is refused.
awk 'BEGIN { srand(4); for (i = 0; i < 500; i++) { w = 2 * rand(); e = 0.5 * (rand() < 0.6 ? 1 : 2) + 0.04 + 0.1 * rand(); r = (i % 2 ? 0.1 : 3.0)
  printf "Extend volume v completed <Clock(total=%.2f, wait=%.2f, extend-volume=%.2f, refresh-volume=%.2f)>\n", w + e + r, w, e, r } }' \
  >"$scratch/unexplained.log"
checks=$((checks + 1))
run latency --vdsm-log "$scratch/unexplained.log" --format csv
{ [ "$status" -eq 0 ] && [ "$(wc -l <"$err")" -eq 1 ] && grep -q '^total,500,' "$out" && grep -q '^refresh-volume,500,0.1,1.55' "$out" &&
  grep -Eq '^provpol latency: --vdsm-log: no mailbox mode explains the log: .*; no model fitted$' "$err"; } ||
  fail "a log no mode explains: statistics on stdout, one line on stderr"
expect_usage '^provpol plan: --latency: no mailbox mode explains the log: .*write a flow:FILE$' plan --latency "vdsm-log:$scratch/unexplained.log" --runs 1
expect_usage '^provpol latency: --save-flow: no mailbox mode explains the log: .*; no flow to save$' latency --vdsm-log "$scratch/unexplained.log" --save-flow "$scratch/none.json"
checks=$((checks + 1)); [ ! -e "$scratch/none.json" ] || fail "--save-flow wrote a file for a log without a fit"

# ---- --save-flow and flow:FILE ------------------------------------------------------------------------------------
expect_ok latency --vdsm-log "$log" --save-flow "$scratch/fitted.json" --format csv
checks=$((checks + 1)); cmp -s "$out" "$scratch/log.csv" || fail "--save-flow changed what --vdsm-log prints"
expect_ok latency --profile "vdsm-log:$log" --format csv
sed 's/^[^,]*,//' "$out" >"$scratch/from_log.csv"
expect_ok latency --profile "flow:$scratch/fitted.json" --format csv
sed 's/^[^,]*,//' "$out" >"$scratch/from_flow.csv"
checks=$((checks + 1)); cmp -s "$scratch/from_log.csv" "$scratch/from_flow.csv" ||
  fail "flow:FILE of --save-flow does not read back to the fitted model's quantiles"
expect_stdout_line 1 'profile,min_s,mean_s,median_s,p90_s,p99_s,max_s'
# The same plan, from the log and from the saved flow (the per-run view: the flows' clocks).
expect_ok plan --latency "vdsm-log:$log" --preset vdsm-2022 --rate 400MiB/s --runs 50 --format csv
sed 's/^[^,]*,//' "$out" >"$scratch/plan_log.csv"
expect_ok plan --latency "flow:$scratch/fitted.json" --preset vdsm-2022 --rate 400MiB/s --runs 50 --format csv
checks=$((checks + 1)); cmp -s <(sed 's/^[^,]*,//' "$out") "$scratch/plan_log.csv" || fail "plan: flow:FILE and vdsm-log:FILE differ"
# A user's flow: events_interval 0.2 s and a slower SPM, in plan, recommend, capacity and latency --profile.
cat >"$scratch/user.json" <<'JSON'
{"stages": [
  {"kind": "monitor", "name": "watermark monitor", "period_s": 2},
  {"kind": "send", "name": "host mailbox send"},
  {"kind": "clock", "name": "SPM event block check", "period_s": 0.2, "drift_s": 0.0005},
  {"kind": "delay", "name": "SPM lvextend", "min_s": 0.3, "max_s": 1.5},
  {"kind": "reply-poll", "name": "host mailbox reply poll", "period_s": 0.2},
  {"kind": "delay", "name": "host inbox read", "min_s": 0.04, "max_s": 0.15},
  {"kind": "delay", "name": "LV refresh", "min_s": 0.16, "max_s": 0.31}
]}
JSON
expect_ok latency --profile "flow:$scratch/user.json" --format csv
# By hand: min 0 + 0.2 x ceil(0.3 / 0.2) + 0.04 + 0.16 = 0.6; max 2 + 0.2 x ceil((0.2005 + 1.5) / 0.2) + 0.15 + 0.31 = 4.26.
check "user flow min" "$(csv_field "$out" "flow:$scratch/user.json" min_s)" 'v > 0.5999 && v < 0.6001'
check "user flow max" "$(csv_field "$out" "flow:$scratch/user.json" max_s)" 'v > 4.2599 && v < 4.2601'
expect_ok plan --latency "flow:$scratch/user.json" --preset vdsm-2022 --rate 400MiB/s --runs 20 --format csv
expect_stdout '^400,'
expect_ok recommend --rate 400MiB/s --latency "flow:$scratch/user.json"
expect_stdout '^volume_utilization_chunk_mb = [0-9]+$'
expect_ok capacity --hosts 2 --drives-per-host 2 --write 5GiB --runs 2 --rate 300MiB/s --max-pauses-per-run 1 \
  --latency "flow:$scratch/user.json" --format csv
expect_stdout "^flow:$scratch/user.json,"
# Delays alone: the independent-waits model, a sum of uniforms (mean 1 + 0.5 = 1.5, range [0.5, 2.5)).
printf '{"stages": [{"kind": "delay", "name": "a", "min_s": 0, "max_s": 2},\n {"kind": "delay", "name": "b", "min_s": 0.5, "max_s": 0.5}]}\n' >"$scratch/delays.json"
expect_ok latency --profile "flow:$scratch/delays.json" --format csv
expect_stdout ',0.5,1.5,1.5,2[.][0-9]+,2[.][0-9]+,2.5$'
check "delays p90" "$(csv_field "$out" "flow:$scratch/delays.json" p90_s)" 'v > 2.2999 && v < 2.3001'
check "delays p99" "$(csv_field "$out" "flow:$scratch/delays.json" p99_s)" 'v > 2.4799 && v < 2.4801'
# Bad files: exit 2, one line naming the stage (index and name) and the field.
bad_flow() {  # bad_flow <regex> <json>
  printf '%s\n' "$2" >"$scratch/bad.json"
  expect_usage "$1" latency --profile "flow:$scratch/bad.json"
}
bad_flow "^provpol latency: --profile: '$scratch/bad.json': stage 2 \(SPM\): max_s must be in \[0.3, 100000\), got 0.1$" \
  '{"stages": [{"kind": "send", "name": "s"}, {"kind": "delay", "name": "SPM", "min_s": 0.3, "max_s": 0.1}]}'
bad_flow 'stage 1 \(m\): a monitor stage needs period_s$' '{"stages": [{"kind": "monitor", "name": "m"}]}'
bad_flow 'stage 1 \(m\): a monitor stage has no field .min_s. \(it takes period_s\)$' '{"stages": [{"kind": "monitor", "name": "m", "period_s": 2, "min_s": 1}]}'
bad_flow 'stage 1 \(c\): drift_s must be in \[0, 0.5\), got 0.5$' '{"stages": [{"kind": "clock", "name": "c", "period_s": 0.5, "drift_s": 0.5}]}'
bad_flow 'stage 1 \(c\): period_s must be in \[0.001, 100000\), got 0$' '{"stages": [{"kind": "clock", "name": "c", "period_s": 0}]}'
bad_flow 'stage 1 \(p\): period_s must be a number of seconds, got a string$' '{"stages": [{"kind": "reply-poll", "name": "p", "period_s": "2"}]}'
bad_flow 'stage 1 \(p\): a reply-poll counts from the send' '{"stages": [{"kind": "reply-poll", "name": "p", "period_s": 2}]}'
bad_flow 'stage 2 \(m\): kind monitor .* can only be the first stage$' '{"stages": [{"kind": "send", "name": "s"}, {"kind": "monitor", "name": "m", "period_s": 2}]}'
bad_flow 'stage 2 \(t\): a second send' '{"stages": [{"kind": "send", "name": "s"}, {"kind": "send", "name": "t"}]}'
bad_flow "stage 1 \(x\): unknown kind 'wait' \(one of monitor, clock, send, delay, reply-poll\)$" '{"stages": [{"kind": "wait", "name": "x"}]}'
bad_flow 'stage 1: "name" must be a string' '{"stages": [{"kind": "delay", "min_s": 1, "max_s": 2}]}'
# What flow_latency::make refuses is said in the file's words, the stage named as the file has it.
long48=$(printf 'n%.0s' $(seq 48))
bad_flow "^provpol latency: --profile: '$scratch/bad.json': stage 2 \\($long48\\): name length must be at most 47, got 48$" \
  '{"stages": [{"kind": "send", "name": "s"}, {"kind": "delay", "name": "'"$long48"'", "min_s": 0, "max_s": 1}]}'
bad_flow "stage 1 \\(lvextend\\): only a delay between the send and the reply-poll can hold the volume group's lock$" \
  '{"stages": [{"kind": "delay", "name": "lvextend", "min_s": 0, "max_s": 1, "lock": true}]}'
bad_flow '"stages" must hold 1 to 8 stages, got 0$' '{"stages": []}'
# Stalls: the cases' times one per stage, only on a delay or the send; the probability in [0, 1].
two='{"kind": "send", "name": "s"}, {"kind": "delay", "name": "d", "min_s": 1, "max_s": 2}'
bad_flow 'stalls: case 1: "add_s" must be an array of 2 numbers of seconds, one per stage$' \
  '{"stages": ['"$two"'], "stalls": {"probability": 0.1, "cases": [{"weight": 1, "add_s": [0]}]}}'
bad_flow 'stalls: flow stall probability must be in \[0, 1\], got 2$' \
  '{"stages": ['"$two"'], "stalls": {"probability": 2, "cases": [{"add_s": [0, 5]}]}}'
bad_flow 'stalls: stage 2 \(d\): add_s must be in \[0, 100000\), got -5$' \
  '{"stages": ['"$two"'], "stalls": {"probability": 0.1, "cases": [{"add_s": [0, -5]}]}}'
bad_flow "stalls: case 1: unknown member 'extra_s' \(a case has \"weight\" and \"add_s\"\)$" \
  '{"stages": ['"$two"'], "stalls": {"probability": 0.1, "cases": [{"extra_s": [0, 5]}]}}'
bad_flow 'stalls: flow stall cases must be in \[1, 32\], got 0$' \
  '{"stages": ['"$two"'], "stalls": {"probability": 0.1, "cases": []}}'
bad_flow 'stalls: "probability" must be a number$' '{"stages": ['"$two"'], "stalls": {"cases": []}}'
bad_flow "stage 1 \\(c\\): a stall adds time only to a delay or the send$" \
  '{"stages": [{"kind": "clock", "name": "c", "period_s": 1}], "stalls": {"probability": 0.1, "cases": [{"add_s": [3]}]}}'
# A flow of delays with one stall in ten of 10 s more on its second stage: the mixture's mean and max.
printf '{"stages": [%s],\n "stalls": {"probability": 0.1, "cases": [{"weight": 1, "add_s": [0, 10]}]}}\n' "$two" >"$scratch/stalled.json"
expect_ok latency --profile "flow:$scratch/stalled.json" --format csv
expect_stdout ',1,2.5,1.5[0-9]*,[0-9.]+,11.[0-9]+,12$'
bad_flow "unknown member 'stage'" '{"stage": []}'
bad_flow ":1:12: expected a JSON value$" '{"stages": }'
bad_flow ":2:1: expected ',' or '}' in an object$" '{"stages": []'
bad_flow "member 'stages' appears twice" '{"stages": [], "stages": []}'
expect_usage "^provpol plan: --latency: cannot open '$scratch/nowhere.json'" plan --latency "flow:$scratch/nowhere.json" --runs 1
expect_usage 'flow: needs a file name' latency --profile flow:
expect_usage "is a directory, not a flow file" latency --profile "flow:$scratch"
expect_usage '^provpol latency: --save-flow needs --vdsm-log' latency --profile vdsm-immediate --save-flow "$scratch/x.json"
checks=$((checks + 1))
run latency --vdsm-log "$log" --save-flow "$scratch/nowhere/x.json"
{ [ "$status" -eq 1 ] && [ ! -s "$out" ] && [ "$(wc -l <"$err")" -eq 1 ] &&
  grep -q "^provpol latency: --save-flow: cannot create '$scratch/nowhere/x.json': No such file or directory$" "$err"; } ||
  fail "--save-flow to a missing directory: exit 1, one line"


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
# 12 lines: a log of 1 to 3 extends is too short to show a mailbox flow.
printf 'Extend replica v completed <Clock(total=2.00, wait=0.50, extend-replica=1.10, refresh-replica=0.20)>\n%.0s' $(seq 12) >"$scratch/replica.log"
# A replica-only log is fitted on its replica timers, without detection when it has no wait.
expect_ok latency --vdsm-log "$scratch/replica.log"
expect_stdout '^fit: mailbox '
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

# A flow file with the lock: vdsm-polling-2022 written out stage by stage (lvextend under the VG lock, then the
# reply's write) is that profile, quantile for quantile; "lock" takes a boolean.
cat >"$scratch/polling.json" <<'JSON'
{"stages": [
 {"kind": "monitor", "name": "watermark monitor", "period_s": 2},
 {"kind": "send", "name": "host mailbox send"},
 {"kind": "clock", "name": "SPM mailbox scan", "period_s": 2, "drift_s": 0.005},
 {"kind": "delay", "name": "SPM lvextend (VG lock)", "min_s": 0.145, "max_s": 0.485, "lock": true},
 {"kind": "delay", "name": "SPM reply write", "min_s": 0.005, "max_s": 0.005},
 {"kind": "reply-poll", "name": "host mailbox reply poll", "period_s": 2},
 {"kind": "delay", "name": "host inbox read", "min_s": 0.04, "max_s": 0.15},
 {"kind": "delay", "name": "LV refresh", "min_s": 0.15, "max_s": 0.34}]}
JSON
expect_ok latency --profile "flow:$scratch/polling.json,vdsm-polling-2022" --format csv
checks=$((checks + 1))
[ "$(sed -n 2p "$out" | cut -d, -f2-)" = "$(sed -n 3p "$out" | cut -d, -f2-)" ] ||
  fail "the flow file of vdsm-polling-2022's stages is not that profile: $(cat "$out")"
sed 's/"lock": true/"lock": 1/' "$scratch/polling.json" >"$scratch/lock_number.json"
expect_usage '^provpol latency: --profile: .*stage 4 \(SPM lvextend \(VG lock\)\): lock must be true or false, got a number$' latency --profile "flow:$scratch/lock_number.json"

finish
