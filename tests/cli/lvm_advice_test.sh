#!/usr/bin/env bash
# The thin-pool advice through the CLI: recommend's setting holds its margin contract (its box meets in plan, every
# smaller percent's box has a setting that misses in plan), on the examples where a bisection answered 98 and 809;
# the cause it names when nothing meets (space, the VG, time); the user's own settings, never "nothing needs to
# change" above a block that changes them; the answer at several seeds; a --rate range; the contract in --help;
# the text within 100 columns; and the work bound of plan and recommend.
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
# windowed <max_queued> <span> <percent> <plan args...>: recommend's contract at one threshold, checked with plan:
# every percent from percent to percent + span meets, and every smaller percent has one in its window that misses.
windowed() {
  local q=$1 span=$2 pct=$3 p
  shift 3
  local -a m
  for ((p = 1; p <= pct + span; p++)); do
    if meets "$q" "$@" --extend-percent "$p"; then m[p]=1; else m[p]=0; fi
  done
  checks=$((checks + 1))
  for ((p = pct; p <= pct + span; p++)); do
    [ "${m[p]}" = 1 ] || { fail "percent $p, in recommend's window from $pct, misses in plan ($*)"; return; }
  done
  for ((p = 1; p < pct; p++)); do
    local all=1 x
    for ((x = p; x <= p + span; x++)); do [ "${m[x]}" = 1 ] || all=0; done
    [ "$all" = 0 ] || { fail "every percent from $p to $((p + span)) meets in plan, below recommend's $pct ($*)"; return; }
  done
}
# The block's percent and threshold; the setting recommend found (the block is the user's own when theirs meet with
# the margin).
percent_of() { awk '/thin_pool_autoextend_percent/ { print $3 }' "$out"; }
threshold_of() { awk '/thin_pool_autoextend_threshold/ { print $3 }' "$out"; }
found_percent() { sed -n 's/^# the smallest setting with the margin: threshold [0-9]*, percent \([0-9]*\)$/\1/p' "$out"; }
found_threshold() { sed -n 's/^# the smallest setting with the margin: threshold \([0-9]*\), percent [0-9]*$/\1/p' "$out"; }
# One seed and a margin of percents only: the contract plan can check in a few dozen runs (the box over thresholds
# and seeds is tested against an exhaustive scan in tests/lvm_recommend_test.cpp).
narrow=(--seeds 1 --threshold-margin 0 --percent-margin 3)

# --- 1. the smallest percent with a margin (a bisection printed 98 where 49 met, 809 where 306 met) -------------
one=(--rate 1GiB/s --pool-size 1GiB --write 200GiB)
expect_ok recommend "${lvm[@]}" "${one[@]}" --max-queued 0.25 "${narrow[@]}" --threshold 70
expect_stdout '^# the smallest setting with the margin: threshold 70, percent [0-9]+$'
expect_stdout '^#   every percent from [0-9]+ to [0-9]+ at every threshold from 70 to 70 meets$'
expect_stdout '^# your settings, threshold 70 with percent 20, miss the target: '
windowed 0.25 3 "$(found_percent)" "${one[@]}"
sixteen=(--rate 16GiB/s --pool-size 1GiB --write 200GiB)
expect_ok recommend "${lvm[@]}" "${sixteen[@]}" --max-queued 1 "${narrow[@]}" --threshold 70
windowed 1 3 "$(found_percent)" "${sixteen[@]}"
# The default margin: the block's percent + 5 at its threshold - 5 meets in plan at each of the five seeds.
expect_ok recommend "${lvm[@]}" "${one[@]}" --max-queued 0.25 --runs 20
pct=$(found_percent) th=$(found_threshold)
for s in 1 2 3 4 5; do
  for corner in "$th $pct" "$((th - 5)) $((pct + 5))"; do
    set -- $corner
    checks=$((checks + 1))
    meets 0.25 "${one[@]}" --runs 20 --seed $s --threshold "$1" --extend-percent "$2" ||
      fail "threshold $1 with percent $2, in the answer's box, misses at seed $s"
  done
done

# --- 2. causes, not guesses; the user's settings -------------------------------------------------------------
# The user's settings keep up: percent 1000's first extend cannot fit in the VG, percent 20 queues nothing.
item2=(--pool-size 2TiB --pool-used 70% --vg-free 500GiB --threshold 80 --rate 1GB/s)
mine=(--pool-size 2TiB --pool-used 70% --vg-free 500GiB --rate 1GB/s --write 1TB)
# Theirs meet, but percent 25 runs the VG out: no margin, said, and the block has one.
expect_ok recommend "${lvm[@]}" "${item2[@]}" --write 1TB
expect_stdout '^# your settings, threshold 80 with percent 20, meet the target but with no margin: threshold 80 with$'
expect_stdout '^    thin_pool_autoextend_threshold = 80$'
checks=$((checks + 1))
grep -q 'nothing needs to change' "$out" && fail "nothing needs to change, above a block that changes the percent"
expect_ok recommend "${lvm[@]}" "${item2[@]}" --write 1TB "${narrow[@]}"
windowed 0 3 "$(found_percent)" "${item2[@]}" --write 1TB
# Settings that meet with the margin: nothing needs to change, and the block is theirs.
expect_ok recommend "${lvm[@]}" "${item2[@]}" --write 1TB
pct=$(found_percent)
printf 'activation {\n  thin_pool_autoextend_threshold = 80\n  thin_pool_autoextend_percent = %s\n}\n' "$((pct + 1))" >"$scratch/mine.conf"
checks=$((checks + 1))
run recommend "${lvm[@]}" "${mine[@]}" --config "$scratch/mine.conf"
[ "$status" -eq 0 ] && grep -q "^# your settings, threshold 80 with percent $((pct + 1)), meet the target with the margin: nothing" "$out" &&
  [ "$(percent_of)" = "$((pct + 1))" ] && [ "$(found_percent)" = "$pct" ] ||
  fail "settings that meet with the margin: nothing needs to change, and the block is theirs"
# Autoextend off (threshold 100, as lvm2 ships): the thresholds from 99 down, and the block turns it on.
expect_ok recommend "${lvm[@]}" --pool-size 10GiB --rate 100MiB/s --write 20GiB --runs 5 --seeds 1 --threshold 100
expect_joined '^# your settings turn autoextend off \(threshold 100\): lvm2 never grows the pool; .*; the block below turns it on$'
checks=$((checks + 1))
[ "$(threshold_of)" -le 99 ] || fail "recommend's threshold for a host with autoextend off is $(threshold_of)"

# Space, not speed: 1433.7 GiB used (70% as lvs prints it, up to 70.005003%) + 1117.6 GiB written is more than the 2048 + 500 GiB the pool and the VG hold.
expect_missed recommend "${lvm[@]}" "${item2[@]}" --write 1.2TB
expect_stdout_line 1 'LVM cannot hold this burst at any setting: ~1433.7GiB used + ~1117.6GiB written = ~2551.3GiB, but'
expect_joined '^LVM cannot hold this burst at any setting: ~1433.7GiB used \+ ~1117.6GiB written = ~2551.3GiB, but the pool \(2048GiB\) and the VG'"'"'s free space \(500GiB\) hold 2548GiB: ~3.3GiB missing. No autoextend setting and no write rate change that: add at least ~3.3GiB to the VG \(vgextend\), or write less.$'
checks=$((checks + 1))
grep -q 'slower\|cannot keep up' "$out" && fail "a burst the VG cannot hold is blamed on time"
expect_missed recommend "${lvm[@]}" "${item2[@]}" --write 1.2TB --format csv
# space_missing in bytes: 70% of 2 TiB as lvs prints it, up to 70.005003% (23489781 of its 33554432 64 KiB blocks,
# the most lvm2 reads as at most that) + 1.2e12 written, above 2 TiB + 500 GiB of 4 MiB extents.
missing=$((23489781 * 65536 + 1200000000000 - (524288 + 128000) * 4194304))
expect_stdout "^,,,0,5,5,,,,,100,1,5,953.67431640625,953.67431640625,1,0,0,0,0,0,$missing,80,20,,,,$((23489781 * 65536)),,\$"
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
expect_joined '^LVM cannot hold this burst at any setting: .* but lvm2 grows an LV to at most 2\^32 - 2 extents of 1KiB, ~4096GiB of data: ~4096GiB missing\. .*use a larger extent \(vgcreate -s\), or write less\.$'
# The VG, though the data fits: every percent's extends outgrow what is left of it; no "write slower".
expect_missed recommend "${lvm[@]}" --pool-size 1GiB --rate 1GiB/s --write 10GiB --vg-free 9GiB --runs 20
expect_joined '^LVM cannot keep up at 1GiB/s into a 1GiB pool: at thresholds 70 to 50, every percent from 1 to 1000 misses the target \(21000 settings, 20 runs at each of seeds 1-5\): each runs the VG out, though the data fits \(10GiB of the 10GiB the pool and the VG hold\)'
checks=$((checks + 1))
grep -q 'slower' "$out" && fail "a VG that runs out is blamed on the rate"
run plan "${lvm[@]}" --pool-size 1GiB --rate 1GiB/s --write 10GiB --vg-free 9GiB --runs 20 --extend-percent 1000 --format csv
checks=$((checks + 1))
awk -F, 'NR == 2 { exit !($11 == 20) }' "$out" || fail "plan at percent 1000 does not run the VG out"
# Time: the first extend cannot land before the space above the threshold is written.
expect_missed recommend "${lvm[@]}" --rate 16GiB/s --pool-size 10GiB --write 200GiB --runs 10
expect_joined '^LVM cannot keep up at 16GiB/s into a 10GiB pool: at thresholds 70 to 50, every percent from 1 to 1000 misses the target \(21000 settings, 10 runs at each of seeds 1-5\): 21000 with writes queued longer than 0 s or failed\. The first extend must land before the space above the threshold is written: start with a larger pool, or write slower\.$'

# --- 3. the answer at several seeds: every setting it reads must meet at each of them -------------------------
seeded=(--rate 1GiB/s --pool-size 1GiB --write 100GiB --runs 20)
expect_ok recommend "${lvm[@]}" "${seeded[@]}" --max-queued 0.3 --seed 7 --threshold 70 --percent-margin 0 --threshold-margin 0 --format csv
row=$(sed -n 2p "$out")
pct=$(echo "$row" | cut -d, -f3)
checks=$((checks + 1))
[ "$(echo "$row" | cut -d, -f13)" = 5 ] && [ -n "$pct" ] || fail "recommend at five seeds: $row"
for s in 7 8 9 10 11; do
  checks=$((checks + 1))
  meets 0.3 "${seeded[@]}" --seed $s --extend-percent "$pct" || fail "percent $pct does not meet at seed $s"
done
for ((p = 1; p < pct; p++)); do
  ok=1
  for s in 7 8 9 10 11; do meets 0.3 "${seeded[@]}" --seed $s --extend-percent $p || { ok=0; break; }; done
  checks=$((checks + 1))
  [ "$ok" = 0 ] || fail "percent $p meets at every seed 7-11, below recommend's $pct"
done
expect_ok recommend "${lvm[@]}" "${seeded[@]}" --max-queued 0.3 --seed 7 --threshold 70 --seeds 1
expect_stdout '^#   \(20 runs at seed 7\)$'
expect_usage '^provpol recommend: --seeds must be in \[1, 100\], got 0' recommend "${lvm[@]}" "${seeded[@]}" --seeds 0
expect_usage '^provpol recommend: --percent-margin must be in \[0, 100\], got 101' recommend "${lvm[@]}" "${seeded[@]}" --percent-margin 101
expect_usage '^provpol recommend: --threshold-margin must be in \[0, 49\], got 50' recommend "${lvm[@]}" "${seeded[@]}" --threshold-margin 50

# --- 3b. a --rate range: the answer meets at its ends, in plan ------------------------------------------------
expect_ok recommend "${lvm[@]}" --pool-size 4GiB --rate 400-600MiB/s --write 40GiB --runs 10 --seeds 1
expect_stdout '^#   \(10 runs at seed 1, at 5 rates across 400-600MiB/s, its ends included\)$'
pct=$(found_percent) th=$(found_threshold)
for r in 400MiB/s 450MiB/s 500MiB/s 550MiB/s 600MiB/s; do
  checks=$((checks + 1))
  meets 0 --pool-size 4GiB --rate $r --write 40GiB --runs 10 --threshold "$th" --extend-percent "$pct" ||
    fail "recommend's setting for 400-600MiB/s misses at $r"
done
expect_ok recommend "${lvm[@]}" --pool-size 4GiB --rate '500MiB/s+-20%' --write 40GiB --runs 10 --seeds 1 --format csv
expect_stdout '^,[0-9]+,[0-9]+,1,5,5,.*,400,600,5,'
expect_ok recommend "${lvm[@]}" --pool-size 4GiB --rate '500MiB/s±20%' --write 40GiB --runs 10 --seeds 1 --format csv
expect_stdout '^,[0-9]+,[0-9]+,1,5,5,.*,400,600,5,'
expect_usage "^provpol recommend: --rate: '600-400MiB/s': the low end is above the high end$" recommend "${lvm[@]}" --pool-size 4GiB --rate 600-400MiB/s
expect_usage "^provpol recommend: --rate: '500MiB/s\+-20': expected RATE\+-P%, such as 500MiB/s\+-20%$" recommend "${lvm[@]}" --pool-size 4GiB --rate '500MiB/s+-20'
expect_usage '^provpol recommend: --rate: ' recommend "${lvm[@]}" --pool-size 4GiB --rate 400-600
# Every line of the text within 100 columns.
expect_ok recommend "${lvm[@]}" "${mine[@]}" --threshold 80
checks=$((checks + 1))
[ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$out")" -le 100 ] || fail "recommend's text is wider than 100 columns"

# --- 4. the contract, in --help (and so in the man page) --------------------------------------------------------
expect_ok recommend "${lvm[@]}" --help
expect_stdout '^The answer, threshold T with percent P: every percent from P to P \+ --percent-margin at every threshold$'
expect_stdout '^from T - --threshold-margin to T meets the target'
expect_stdout 'Every setting above T and$'

# --- 5. bounded work: refused at once, one line naming the option, the estimate and the limit ------------------
expect_usage '^provpol plan: plan would replay about [0-9]+ simulated events \(100 runs x 1 rates of 1GiB, the slowest rate 1/s\), above --max-events 1000000000: ' \
  plan "${lvm[@]}" --pool-size 1GiB --rate 1B/s --write 1GiB
expect_usage '^provpol plan: plan would replay about [0-9]+ simulated events .* above --max-events 1000000000: ' \
  plan "${lvm[@]}" --pool-size 1GiB --rate 1B/s --write 1PiB --runs 1
expect_usage "^provpol recommend: recommend would replay about [0-9]+ simulated events \\(an answer's 36 settings, 100 runs x 5 seeds x 1 burst of 1PiB at 1GiB/s per setting\\), above --max-events 1000000000: " \
  recommend "${lvm[@]}" --pool-size 1GiB --rate 1GiB/s --write 1PiB
expect_usage '^provpol plan: plan would replay about [0-9]+ simulated events .* above --max-events 1000: ' \
  plan "${lvm[@]}" --pool-size 1GiB --rate 1GiB/s --write 10GiB --max-events 1000
expect_ok plan "${lvm[@]}" --pool-size 1GiB --rate 1GiB/s --write 10GiB --max-events 1000000
finish
