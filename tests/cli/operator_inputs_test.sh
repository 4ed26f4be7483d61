#!/usr/bin/env bash
# The system as the operator has it: each input an operator types or pastes, read as they meant it or refused with
# the fix (the issue "The system as the operator has it"). Each check failed before the change it covers.
. "$(dirname "$0")/lib.sh"

# --latency: the error lists every form --help lists, and for a file that exists, the forms that read one.
touch "$scratch/vdsm.log"
expect_usage "^provpol plan: --latency: unknown value '.*vdsm.log': expected one of vdsm-polling-2022, .*fixed:SECONDS, samples:FILE, vdsm-log:FILE, flow:FILE \(.*vdsm.log is a file: vdsm-log:.*vdsm.log fits VDSM's log" \
  plan --latency "$scratch/vdsm.log"
expect_usage "samples:FILE, vdsm-log:FILE, flow:FILE \(did you mean vdsm-polling-2022\?\)$" plan --latency vdsm-poling-2022
expect_usage "samples:FILE, vdsm-log:FILE, flow:FILE$" capacity --rate 500MiB/s --max-pauses-per-run 1 --hosts 1 --drives-per-host 2 --latency "$scratch/none.log"

# Outputs that paste: a block threshold with no short form is printed once, not "697932186 (697932186)".
expect_ok extend --capacity 10GiB --physical 2845415834 --allocation 0
expect_stdout '^block_threshold +697932186$'
expect_ok extend --capacity 10GiB --physical 5GiB --allocation 0
expect_stdout '^block_threshold +3221225472 \(3GiB\)$'

# latency --vdsm-log - suggests the spelling that works: vdsm-log:- (vdsm-log:stdin is a file named stdin).
logs=$(dirname "$0")/../data/vdsm_logs
out=$scratch/out err=$scratch/err
checks=$((checks + 1))
timeout 60 "$PROVPOL" latency --vdsm-log - <"$logs/polling_pr80.log" >"$out" 2>"$err"
grep -q '(use it with --latency vdsm-log:-)$' "$out" || fail "latency --vdsm-log - does not suggest --latency vdsm-log:-"
checks=$((checks + 1))
timeout 60 "$PROVPOL" plan --latency vdsm-log:- --rate 100MiB/s --runs 5 <"$logs/polling_pr80.log" >"$out" 2>"$err" ||
  fail "the suggested --latency vdsm-log:- does not work"

# A time in hours, as operators write a long burst: --duration 1h is --duration 60min, and a spelling parse_seconds
# does not read is refused naming the ones it does.
run plan --rate 10MB/s --duration 60min --format csv
cp "$out" "$scratch/minutes.csv"
expect_ok plan --rate 10MB/s --duration 1h --format csv
checks=$((checks + 1))
cmp -s "$out" "$scratch/minutes.csv" || fail "--duration 1h does not plan what --duration 60min plans"
expect_usage "^provpol plan: --duration: invalid value '1hr': expected a time such as 2.5, 2.5s, 500ms, 1.5min or 2h$" \
  plan --rate 10MB/s --duration 1hr

finish
