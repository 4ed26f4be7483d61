#!/usr/bin/env bash
# provpol plan and recommend with --preset stratis-data (examples/cli/stratis_plan.hpp): what each answer must be,
# worked by hand from stratisd's rules (extend by min(backstore, 50 GiB) when free data < 15 GiB; no block left:
# error_if_no_space), recommend's answer checked with plan one GiB either side, and bad input refused with one
# line and exit 2.
. "$(dirname "$0")/lib.sh"

# field NAME: NAME's value in the last run's CSV (header line 1, the first row line 2).
field() {
  awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) col = i } NR == 2 { print $col }' "$out"
}
# expect_field NAME VALUE: the last run's CSV has NAME = VALUE.
expect_field() {
  checks=$((checks + 1))
  local got
  got=$(field "$1")
  [ "$got" = "$2" ] || fail "$1 is '$got', expected '$2'"
}
# expect_field_in NAME LO HI: LO <= NAME <= HI (numbers).
expect_field_in() {
  checks=$((checks + 1))
  local got
  got=$(field "$1")
  awk -v v="$got" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v + 0 >= lo && v + 0 <= hi) }' ||
    fail "$1 is '$got', expected in [$2, $3]"
}

gib=1073741824

# --- the plan of 2 min at 3 GB/s into a 100 GiB pool with 1 TiB behind it ----------------------------------------
# 360e9 bytes = 335.27 GiB written. The pool grows 50 GiB at a time; it must reach 350 GiB to hold the data, and it
# can reach 400 GiB only through a check in the last 0.09 s (under 15 GiB free past 335 GiB): 5 or 6 extends. 1 TiB
# is far more than the data needs: never error_if_no_space, no EIO. The backstore gives what the pool took.
expect_ok plan --preset stratis-data --pool-size 100GiB --backstore-free 1TiB --rate 3GB/s --duration 2min
expect_stdout '^rate +runs +data_extends_mean +metadata_extends_mean'
expect_stdout '^at 3GB/s: 15GiB of low water lasts 5\.37 s, longer than a check that extends \(at most 0\.5 s\)'
expect_ok plan --preset stratis-data --pool-size 100GiB --backstore-free 1TiB --rate 3GB/s --duration 2min --format csv
expect_field rate 3GB/s
expect_field runs 100
expect_field_in data_extends_mean 5 6
expect_field error_if_no_space_runs 0
expect_field eio_runs 0
expect_field metadata_extends_mean 0
pool_end=$(field pool_end_max)
left=$(field backstore_left_min)
checks=$((checks + 1))
{ [ "$pool_end" = $((350 * gib)) ] || [ "$pool_end" = $((400 * gib)) ]; } || fail "pool_end_max $pool_end: not 350 or 400 GiB"
checks=$((checks + 1))
[ "$left" = $((1024 * gib + 100 * gib - pool_end)) ] || fail "backstore_left_min $left is not 1 TiB - (pool_end_max - 100 GiB)"

# --- a burst that must exhaust a small backstore ------------------------------------------------------------------
# 20 GiB pool, 10 GiB free, 100 GiB at 1 GiB/s: one extend of the 10 GiB left (30 GiB), then a check with free data
# under 15 GiB and no block to give: error_if_no_space in every run, and the writes fail when the pool is full.
expect_ok plan --preset stratis-data --pool-size 20GiB --backstore-free 10GiB --rate 1GiB/s --write 100GiB --runs 20 --format csv
expect_field data_extends_mean 1
expect_field error_if_no_space_runs 20
expect_field eio_runs 20
expect_field pool_end_max $((30 * gib))
expect_field backstore_left_min 0
expect_ok plan --preset stratis-data --pool-size 20GiB --backstore-free 10GiB --rate 1GiB/s --write 100GiB --runs 20
expect_stdout '^at 1GiB/s: the backstore had nothing left and the pool went to error_if_no_space in 20 of 20 runs$'
expect_stdout '^at 1GiB/s: writes failed with EIO in 20 of 20 runs$'

# --- recommend: the smallest headroom, checked with plan one GiB either side ----------------------------------------
# By hand: with at most 235 GiB the pool reaches at most 335 GiB < 335.27 GiB written and must fill; with 251 GiB it
# reaches 351 GiB and free data never falls under 15.7 GiB. The answer is in [236, 251].
expect_ok recommend --preset stratis-data --pool-size 100GiB --rate 3GB/s --duration 2min --runs 40 --format csv
expect_field found 1
expect_field_in backstore_free_gib 236 251
answer=$(field backstore_free_gib)
expect_field evaluations "$answer"
expect_field error_if_no_space_runs 0
expect_ok plan --preset stratis-data --pool-size 100GiB --backstore-free "${answer}GiB" --rate 3GB/s --duration 2min --runs 40 --format csv
expect_field error_if_no_space_runs 0
expect_field eio_runs 0
expect_ok plan --preset stratis-data --pool-size 100GiB --backstore-free "$((answer - 1))GiB" --rate 3GB/s --duration 2min --runs 40 --format csv
checks=$((checks + 1))
[ "$(field error_if_no_space_runs)" != 0 ] || [ "$(field eio_runs)" != 0 ] || fail "one GiB under the answer meets too"
expect_ok recommend --preset stratis-data --pool-size 100GiB --rate 3GB/s --duration 2min --runs 40
expect_stdout "^backstore_free ${answer}GiB: the smallest whole GiB in \[1, [0-9]+\]"
# At 30 GB/s 15 GiB last 0.537 s, under a 1 s check that extends: stratisd cannot keep up, whatever the headroom.
expect_ok recommend --preset stratis-data --pool-size 100GiB --rate 30GB/s --write 200GiB --extend-time 0.5,1 --runs 5
expect_stdout "^at 30GB/s: 15GiB of low water lasts 0\.537 s, not longer than a check that extends \(up to 1 s\): stratisd's constants cannot keep up at this rate, whatever the headroom$"

# --- the help lists the Stratis options ----------------------------------------------------------------------------
expect_ok plan --preset stratis-data --help
expect_stdout '--backstore-free'
expect_stdout '--extend-time'
expect_stdout '--timer'
expect_ok plan --help
expect_stdout 'provpol plan --preset stratis-data --help'
expect_ok recommend --help
expect_stdout 'provpol recommend --preset stratis-data --help'

# --- bad input: one line, exit 2 ----------------------------------------------------------------------------------
base=(--preset stratis-data --pool-size 100GiB --rate 3GB/s --duration 2min)
expect_usage '^provpol plan: --backstore-free 70: a size needs a unit, e\.g\. 70GiB' plan "${base[@]}" --backstore-free 70
expect_usage '^provpol plan: --backstore-free -5GiB: a size is 0 to 1PiB, not negative' plan "${base[@]}" --backstore-free -5GiB
expect_usage '^provpol plan: --pool-size must be whole 1MiB data blocks, at least one, got 0' plan --preset stratis-data --pool-size 0GiB --backstore-free 1TiB
expect_usage '^provpol plan: --pool-size 100: a size needs a unit' plan --preset stratis-data --pool-size 100 --backstore-free 1TiB
expect_usage '^provpol plan: --rate: a rate of 0 writes nothing' plan --preset stratis-data --pool-size 100GiB --backstore-free 1TiB --rate 0GB/s
expect_usage '^provpol plan: a Stratis plan needs --backstore-free' plan "${base[@]}"
expect_usage '^provpol plan: --preset stratis-metadata: plan and recommend simulate the whole pool' plan --preset stratis-metadata --pool-size 100GiB --backstore-free 1TiB
expect_usage '^provpol plan: --preset stratis-3.0-data: plan and recommend simulate stratisd 3.1 and later' plan --preset stratis-3.0-data --pool-size 100GiB --backstore-free 1TiB
expect_usage '^provpol recommend: --preset stratis-3.0-metadata: plan and recommend simulate stratisd 3.1 and later' recommend --preset stratis-3.0-metadata --pool-size 100GiB --rate 1GB/s
expect_usage '^provpol plan: --extend-time: expected MIN,MAX with MIN <= MAX' plan "${base[@]}" --backstore-free 1TiB --extend-time 2,1
expect_usage '^provpol recommend: --backstore-free is what recommend answers' recommend "${base[@]}" --backstore-free 1TiB
expect_usage '^provpol recommend: recommend needs one --rate' recommend --preset stratis-data --pool-size 100GiB --duration 2min
expect_usage '^provpol plan: --pool-used \(200GiB\) is more than --pool-size \(100GiB\)' plan "${base[@]}" --backstore-free 1TiB --pool-used 200GiB

finish
