#!/usr/bin/env bash
# provpol plan --hosts H --drives-per-host D with the domain's workloads: --stagger, --burst ON,OFF, --trace FILE and
# --mix. The expected values come from the policy's arithmetic (vdsm-2022: a new disk of 2560 MiB, an extend of
# 2560 MiB whenever less than 2048 MiB is free) or from another invocation that must agree; bad input exits 2 with
# one line.
. "$(dirname "$0")/lib.sh"
# The expectations below were worked under the 2022 flow (vdsm-polling-2022), before the default became VDSM 4.50's
# current one: every plan, recommend and capacity run here names it.
pin_latency vdsm-polling-2022

col() {  # col <name> [row]: the value of column <name> in row (default 1) of the last run's CSV
  awk -F, -v name="$1" -v row="${2:-1}" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == name) c = i} NR == row + 1 {print $c}' "$out"
}
same() {  # same <what> <got> <expected>
  checks=$((checks + 1))
  [ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
}

# --burst: bursts of 3 s at 600 MiB/s write 1800 MiB, less than the 2048 MiB free when a burst starts (the 60 s
# between bursts leave time for every extend), so no writer ever pauses; 10 GiB crosses the thresholds at 512, 3072,
# 5632 and 8192 MiB (the LV size - 2048 MiB), not 10752: 4 extends per writer. Without the bursts they pause.
expect_ok plan --hosts 2 --drives-per-host 5 --rate 600MiB/s --write 10GiB --burst 3,60 --format csv
same "--burst extends" "$(col extends)" 4
same "--burst pauses" "$(col pauses)" 0
same "--burst pauses_p99" "$(col pauses_p99)" 0
expect_ok plan --hosts 2 --drives-per-host 5 --rate 600MiB/s --write 10GiB --format csv
checks=$((checks + 1))
awk -v p="$(col pauses)" 'BEGIN {exit !(p > 1)}' || fail "without --burst, 10 writers at 600 MiB/s pause (got $(col pauses))"

# --stagger: 10 GiB at 500 MiB/s takes about 21 s (a few more paused); writers 60 s apart never write at once, and a
# static agent has one extend in flight, so no request ever waits for another: queue_p99 0. All at once, they queue.
expect_ok plan --hosts 4 --drives-per-host 5 --rate 500MiB/s --write 10GiB --stagger 60 --format csv
same "--stagger 60 queue_p99" "$(col queue_p99)" 0
expect_ok plan --hosts 4 --drives-per-host 5 --rate 500MiB/s --write 10GiB --format csv
checks=$((checks + 1))
awk -v q="$(col queue_p99)" 'BEGIN {exit !(q >= 5)}' || fail "20 writers at once queue (queue_p99 $(col queue_p99))"

# --trace: one segment of 16 GiB in 32 s is exactly 512 MiB/s (2^34 / 2^5 bytes/s): the same row as --rate
# 512MiB/s --write 16GiB (the capacity is twice the bytes written in both).
printf 'time_s,bytes_written\n0,0\n32,16GiB\n' >"$scratch/constant.csv"
expect_ok plan --hosts 2 --drives-per-host 5 --trace "$scratch/constant.csv" --format csv
cp "$out" "$scratch/traced.csv"
expect_ok plan --hosts 2 --drives-per-host 5 --rate 512MiB/s --write 16GiB --format csv
checks=$((checks + 1))
cmp -s "$out" "$scratch/traced.csv" || fail "a one-segment trace differs from its constant rate: $(diff "$out" "$scratch/traced.csv")"
# The same from stdin.
checks=$((checks + 1))
timeout 60 "$PROVPOL" plan --hosts 2 --drives-per-host 5 --trace - --latency vdsm-polling-2022 --format csv <"$scratch/constant.csv" >"$scratch/stdin.csv" 2>&1
cmp -s "$scratch/stdin.csv" "$scratch/traced.csv" || fail "--trace - (stdin) differs from the file: $(head -c 300 "$scratch/stdin.csv")"

# A trace that stops before the free space runs out: 256 MiB in 10 s, then to 1 GiB in 10 s more. Every writer
# crosses the first threshold (512 MiB) and never the next (3072 MiB): 1 extend, no pause, however slow the SPM
# (40 writers at once).
printf 'time_s,bytes_written\n0,0\n10,256MiB\n20,1GiB\n' >"$scratch/short.csv"
expect_ok plan --hosts 4 --drives-per-host 10 --trace "$scratch/short.csv" --format csv
same "short trace extends" "$(col extends)" 1
same "short trace pauses" "$(col pauses)" 0
same "short trace write" "$(col write)" 1073741824
same "short trace mean rate (1 GiB in 20 s)" "$(col rate_mib_s)" 51.2
# Write 2 GiB, idle a minute, write 4 GiB more: thresholds at 512, 3072 and 5632 MiB crossed, 8192 not: 3 extends;
# at most 102.4 MiB/s uses 2048 MiB free in 20 s, longer than any extend takes here: no pause. Staggered, the same.
printf 'time_s,bytes_written\r\n0,0\r\n40,2GiB\r\n100,2GiB\r\n140,6442450944\r\n' >"$scratch/gap.csv"
for stagger in 0 7.5; do
  expect_ok plan --hosts 4 --drives-per-host 10 --trace "$scratch/gap.csv" --stagger "$stagger" --format csv
  same "gap trace extends (--stagger $stagger)" "$(col extends)" 3
  same "gap trace pauses (--stagger $stagger)" "$(col pauses)" 0
done

# --mix: two configurations that are the same preset make the homogeneous domain: the domain's columns are equal,
# and the two rows' per-VM means (6 writers each) average to the homogeneous row's.
expect_ok plan --hosts 3 --drives-per-host 4 --rate 500MiB/s --write 10GiB --format csv
cut -d, -f15-18 "$out" | tail -1 >"$scratch/homogeneous"
e=$(col extends) p=$(col pauses)
expect_ok plan --hosts 3 --drives-per-host 4 --rate 500MiB/s --write 10GiB --mix --preset vdsm-2022,vdsm-2022 --format csv
checks=$((checks + 1))
[ "$(wc -l <"$out")" -eq 3 ] && [ "$(cut -d, -f15-18 "$out" | sed -n 2p)" = "$(cat "$scratch/homogeneous")" ] &&
  [ "$(cut -d, -f15-18 "$out" | sed -n 3p)" = "$(cat "$scratch/homogeneous")" ] ||
  fail "--mix of one preset: the domain's columns differ from the homogeneous domain's $(cat "$scratch/homogeneous")"
checks=$((checks + 1))
awk -v e="$e" -v p="$p" -v e1="$(col extends 1)" -v e2="$(col extends 2)" -v p1="$(col pauses 1)" -v p2="$(col pauses 2)" \
  'function d(x) {return x < 0 ? -x : x} BEGIN {exit !(d((e1 + e2) / 2 - e) < 1e-4 && d((p1 + p2) / 2 - p) < 1e-4)}' ||
  fail "--mix rows' means $(col pauses 1), $(col pauses 2) do not average to $p"
# A static and a rate-aware configuration: one row each, the rate-aware one with its budget.
expect_ok plan --hosts 3 --drives-per-host 4 --rate 500MiB/s --write 10GiB --mix --policy static,rate-aware --format csv
expect_stdout ',vdsm-2022,2560,20,3,4,12,.*,,[0-9.]*$'
expect_stdout ',rate-aware/vdsm-legacy,1024,50,3,4,12,.*,6\.49,[0-9.]*$'

# Bad input: one line, exit 2; a trace's error names the file, the line and the value.
for o in "--stagger 10" "--burst 10,5" "--trace $scratch/short.csv" "--mix"; do
  # shellcheck disable=SC2086
  expect_usage "^provpol plan: ${o%% *} applies to a storage domain: give --hosts and --drives-per-host$" plan $o
done
expect_usage '^provpol plan: --rate does not apply with --trace' plan --hosts 2 --drives-per-host 2 --trace "$scratch/short.csv" --rate 1MiB/s
expect_usage '^provpol plan: --write does not apply with --trace' plan --hosts 2 --drives-per-host 2 --trace "$scratch/short.csv" --write 1GiB
expect_usage '^provpol plan: give --burst or --trace, not both' plan --hosts 2 --drives-per-host 2 --trace "$scratch/short.csv" --burst 1,1
expect_usage "^provpol plan: --burst: expected ON,OFF times \(e.g. 60,30 or 2s,10s\), got '5'$" plan --hosts 2 --drives-per-host 2 --burst 5
expect_usage '^provpol plan: --burst must be in \[0.001 s, 10000000 s\], got 0 s$' plan --hosts 2 --drives-per-host 2 --burst 0,5
expect_usage '^provpol plan: --mix needs at least two configurations' plan --hosts 2 --drives-per-host 2 --mix
expect_usage '^provpol plan: --stagger 20000 starts the last of 1000 writers after 10000000 s' plan --hosts 10 --drives-per-host 100 --stagger 20000
printf 'time_s,bytes_written\n0,0\n10,1GiB\n5,2GiB\n' >"$scratch/back.csv"
expect_usage "^provpol plan: --trace: $scratch/back.csv:4: trace time \(5\) must be above the previous point's time \(10\)$" plan --hosts 2 --drives-per-host 2 --trace "$scratch/back.csv"
printf 'time_s,bytes_written\n0,0\n10,2GiB\n20,1GiB\n' >"$scratch/shrink.csv"
expect_usage "^provpol plan: --trace: $scratch/shrink.csv:4: trace bytes_written \(1GiB\) must be at least the previous point's bytes_written \(2GiB\)$" plan --hosts 2 --drives-per-host 2 --trace "$scratch/shrink.csv"
printf 'time_s,bytes_written\n0,0\n10,abc\n' >"$scratch/abc.csv"
expect_usage "^provpol plan: --trace: $scratch/abc.csv:3: column 'bytes_written': invalid value 'abc'" plan --hosts 2 --drives-per-host 2 --trace "$scratch/abc.csv"
printf 'time_s,bytes_written\n0,0\n10,2GiB\n' >"$scratch/big.csv"
expect_usage "^provpol plan: --trace: $scratch/big.csv:3: trace bytes_written \(2GiB\) must be at most capacity \(1GiB\)$" plan --hosts 2 --drives-per-host 2 --trace "$scratch/big.csv" --capacity 1GiB
printf 'time_s,bytes_written\n5,1MiB\n10,2GiB\n' >"$scratch/first.csv"
expect_usage "^provpol plan: --trace: $scratch/first.csv:2: trace bytes_written: must be 0 at the first point" plan --hosts 2 --drives-per-host 2 --trace "$scratch/first.csv"
printf 'time_s,bytes_written\n0,0\n' >"$scratch/one.csv"
expect_usage "^provpol plan: --trace: '$scratch/one.csv' has 1 point: a trace needs at least 2$" plan --hosts 2 --drives-per-host 2 --trace "$scratch/one.csv"
printf 'time,bytes_written\n0,0\n' >"$scratch/header.csv"
expect_usage "has no column 'time_s' \(header: time,bytes_written\)$" plan --hosts 2 --drives-per-host 2 --trace "$scratch/header.csv"
expect_usage "^provpol plan: --trace: cannot open '$scratch/none.csv'" plan --hosts 2 --drives-per-host 2 --trace "$scratch/none.csv"
finish
