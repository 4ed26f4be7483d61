#!/usr/bin/env bash
# The thin-pool advice through the CLI: recommend's percent is the smallest that meets its target (checked
# with plan at every smaller percent, on the issue's examples where a bisection answered 98 and 809), the cause it
# names when nothing meets (space, the VG, time), the user's own settings, the answer at other seeds, the contract
# in --help, and the work bound of plan and recommend.
. "$(dirname "$0")/lib.sh"

lvm=(--preset lvm-thin-autoextend)
# meets <max_queued> <plan args...>: plan's worst run queues at most max_queued seconds, no run fails with EIO or
# hangs, and the runs take at most 20 extends on average (recommend's default --max-extends).
meets() {
  local q=$1
  shift
  run plan "${lvm[@]}" "$@" --format csv
  [ "$status" -eq 0 ] || { fail "plan $*: status $status"; return 1; }
  awk -F, -v q="$q" 'NR == 2 { exit !($8 + 0 <= q + 0 && $10 == 0 && $12 == 0 && $4 + 0 <= 20) }' "$out"
}
# smallest <max_queued> <percent> <plan args...>: percent meets in plan, and every smaller percent misses.
smallest() {
  local q=$1 pct=$2 p
  shift 2
  checks=$((checks + 1))
  meets "$q" "$@" --extend-percent "$pct" || fail "recommend's percent $pct does not meet its target in plan ($*)"
  for ((p = 1; p < pct; p++)); do
    if meets "$q" "$@" --extend-percent "$p"; then
      fail "percent $p meets the target in plan, below recommend's $pct ($*)"
      return
    fi
  done
}
percent_of() { awk '/thin_pool_autoextend_percent/ { print $3 }' "$out"; }

# --- 1. the smallest percent that meets (a bisection printed 98 where 49 met, 809 where 306 met) -----------------
one=(--rate 1GiB/s --pool-size 1GiB --write 200GiB)
expect_ok recommend "${lvm[@]}" "${one[@]}" --max-queued 0.25
expect_stdout '^# [0-9]+ is the smallest percent in \[1, 1000\] that meets it at threshold 70: percents 1 to [0-9]+ were simulated and missed$'
expect_stdout '^# your settings, threshold 70 with percent 20, miss the target$'
smallest 0.25 "$(percent_of)" "${one[@]}"
sixteen=(--rate 16GiB/s --pool-size 1GiB --write 200GiB)
expect_ok recommend "${lvm[@]}" "${sixteen[@]}" --max-queued 1
smallest 1 "$(percent_of)" "${sixteen[@]}"

# --- 2. causes, not guesses ------------------------------------------------------------------------------------
# The user's settings keep up: percent 1000's first extend cannot fit in the VG, percent 20 queues nothing.
item2=(--pool-size 2TiB --pool-used 70% --vg-free 500GiB --threshold 80 --rate 1GB/s)
expect_ok recommend "${lvm[@]}" "${item2[@]}" --write 1TB
expect_stdout '^# your settings, threshold 80 with percent 20, already meet the target: nothing needs to change$'
expect_stdout '^    thin_pool_autoextend_threshold = 80$'
pct=$(percent_of)
checks=$((checks + 1))
[ "$pct" -le 20 ] || fail "the smallest percent that meets is above the user's 20: $pct"
smallest 0 "$pct" "${item2[@]}" --write 1TB
# Space, not speed: 1433.6 GiB used + 1117.6 GiB written is more than the 2048 + 500 GiB the pool and the VG hold.
expect_missed recommend "${lvm[@]}" "${item2[@]}" --write 1.2TB
expect_stdout_line 1 'LVM cannot hold this burst at any setting: ~1433.6GiB used + ~1117.6GiB written = ~2551.2GiB, but the pool (2048GiB) and the VG'"'"'s free space (500GiB) hold 2548GiB: ~3.2GiB missing. No autoextend setting and no write rate change that: add at least ~3.2GiB to the VG (vgextend), or write less.'
checks=$((checks + 1))
grep -q 'slower\|cannot keep up' "$out" && fail "a burst the VG cannot hold is blamed on time"
expect_missed recommend "${lvm[@]}" "${item2[@]}" --write 1.2TB --format csv
# space_missing in bytes: 70% of 2 TiB (23488102 of its 33554432 64 KiB blocks, the most lvm2 reads as at most
# 70.000000%) + 1.2e12 written, above 2 TiB + 500 GiB of 4 MiB extents.
missing=$((23488102 * 65536 + 1200000000000 - (524288 + 128000) * 4194304))
expect_stdout "^80,,0,0,,,,,100,1,0,0,0,0,0,0,$missing,,,,0,,\$"
# Every percent of plan agrees that it fails (EIO after no_space_timeout), whatever the rate.
for p in 1 20 1000; do
  for r in 1GB/s 10MB/s; do
    run plan "${lvm[@]}" --pool-size 2TiB --pool-used 70% --vg-free 500GiB --threshold 80 --rate $r --write 1.2TB \
      --runs 3 --extend-percent $p --format csv
    checks=$((checks + 1))
    awk -F, 'NR == 2 { exit !($10 == 3) }' "$out" || fail "plan at percent $p, $r: the burst that cannot fit did not fail"
  done
done
# The pool's maximum: lvm2's 2^32 - 1 extents of 1 KiB.
expect_missed recommend "${lvm[@]}" --extent 1KiB --pool-size 1GiB --rate 1GiB/s --write 8TiB
expect_stdout '^LVM cannot hold this burst at any setting: .* but lvm2 grows an LV to at most 2\^32 - 2 extents of 1KiB, ~4096GiB of data: ~4096GiB missing\. .*use a larger extent \(vgcreate -s\), or write less\.$'
# The VG, though the data fits: every percent's extends outgrow what is left of it; no "write slower".
expect_missed recommend "${lvm[@]}" --pool-size 1GiB --rate 1GiB/s --write 10GiB --vg-free 9GiB --runs 20
expect_stdout '^LVM cannot keep up at 1GiB/s into a 1GiB pool: at thresholds 70 to 50, every percent from 1 to 1000 misses the target \(5000 plans, seed 1, 20 runs each\): each runs the VG out, though the data fits \(10GiB of the 10GiB the pool and the VG hold\)'
checks=$((checks + 1))
grep -q 'slower' "$out" && fail "a VG that runs out is blamed on the rate"
run plan "${lvm[@]}" --pool-size 1GiB --rate 1GiB/s --write 10GiB --vg-free 9GiB --runs 20 --extend-percent 1000 --format csv
checks=$((checks + 1))
awk -F, 'NR == 2 { exit !($11 == 20) }' "$out" || fail "plan at percent 1000 does not run the VG out"
# Time: the first extend cannot land before the space above the threshold is written.
expect_missed recommend "${lvm[@]}" --rate 16GiB/s --pool-size 10GiB --write 200GiB --runs 10
expect_stdout '^LVM cannot keep up at 16GiB/s into a 10GiB pool: at thresholds 70 to 50, every percent from 1 to 1000 misses the target \(5000 plans, seed 1, 10 runs each\): 5000 with a run that queues writes longer than 0 s\. The first extend must land before the space above the threshold is written: start with a larger pool, or write slower\.$'

# --- 3. the answer at other seeds ------------------------------------------------------------------------------
seeded=(--rate 1GiB/s --pool-size 1GiB --write 100GiB --runs 20)
expect_ok recommend "${lvm[@]}" "${seeded[@]}" --max-queued 0.3 --seed 7 --threshold 70 --format csv
row=$(sed -n 2p "$out")
pct=$(echo "$row" | cut -d, -f2) meets_at=$(echo "$row" | cut -d, -f19) all=$(echo "$row" | cut -d, -f20)
checks=$((checks + 1))
[ "$(echo "$row" | cut -d, -f18)" = 5 ] && [ -n "$pct" ] && [ -n "$all" ] || fail "recommend's check at five seeds: $row"
n=0
for s in 7 8 9 10 11; do meets 0.3 "${seeded[@]}" --seed $s --extend-percent "$pct" && n=$((n + 1)); done
checks=$((checks + 1))
[ "$n" = "$meets_at" ] || fail "percent $pct meets at $n of seeds 7-11 in plan, recommend says $meets_at"
for s in 7 8 9 10 11; do
  checks=$((checks + 1))
  meets 0.3 "${seeded[@]}" --seed $s --extend-percent "$all" || fail "percent $all does not meet at seed $s"
done
for ((p = pct; p < all; p++)); do
  ok=1
  for s in 7 8 9 10 11; do meets 0.3 "${seeded[@]}" --seed $s --extend-percent $p || { ok=0; break; }; done
  checks=$((checks + 1))
  [ "$ok" = 0 ] || fail "percent $p meets at every seed 7-11, below recommend's $all"
done
expect_ok recommend "${lvm[@]}" "${seeded[@]}" --max-queued 0.3 --seed 7 --threshold 70
expect_stdout "^# at seeds 7-11 \\(20 runs each\\) percent $pct meets at $meets_at of 5; the smallest percent that meets at all of them is $all\$"
expect_ok recommend "${lvm[@]}" "${seeded[@]}" --max-queued 0.3 --seed 7 --threshold 70 --seeds 1
expect_stdout '^# checked at seed 7 only \(--seeds 1\)$'
expect_usage '^provpol recommend: --seeds must be in \[1, 100\], got 0' recommend "${lvm[@]}" "${seeded[@]}" --seeds 0

# --- 4. the contract, in --help (and so in the man page) --------------------------------------------------------
expect_ok recommend "${lvm[@]}" --help
expect_stdout 'the smallest thin_pool_autoextend_percent in$'
expect_stdout '^\[1, 1000\] under which no run of --runs \(from --seed\) queues writes longer than --max-queued or fails with$'
expect_stdout 'Every percent below it was simulated and$'

# --- 5. bounded work: refused at once, one line naming the option, the estimate and the limit ------------------
expect_usage '^provpol plan: plan would replay about [0-9]+ simulated events \(100 runs x 1 rates of 1GiB, the slowest rate 1/s\), above --max-events 1000000000: ' \
  plan "${lvm[@]}" --pool-size 1GiB --rate 1B/s --write 1GiB
expect_usage '^provpol plan: plan would replay about [0-9]+ simulated events .* above --max-events 1000000000: ' \
  plan "${lvm[@]}" --pool-size 1GiB --rate 1B/s --write 1PiB --runs 1
expect_usage '^provpol recommend: recommend would replay about [0-9]+ simulated events \(up to 10000 plans of 100 runs of 1PiB at 1GiB/s\), above --max-events 1000000000: ' \
  recommend "${lvm[@]}" --pool-size 1GiB --rate 1GiB/s --write 1PiB
expect_usage '^provpol plan: plan would replay about [0-9]+ simulated events .* above --max-events 1000: ' \
  plan "${lvm[@]}" --pool-size 1GiB --rate 1GiB/s --write 10GiB --max-events 1000
expect_ok plan "${lvm[@]}" --pool-size 1GiB --rate 1GiB/s --write 10GiB --max-events 1000000
finish
