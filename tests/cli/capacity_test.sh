#!/usr/bin/env bash
# provpol capacity: how many concurrent writers a storage domain holds under a per-VM target, one row per latency
# profile: N such that every count from 1 to N meets the target and N + 1 does not. The answer checked against
# provpol plan --hosts at every count from 1 to N (each meets) and N + 1 (misses); the example where 11 and 12
# miss and 13 meets; the spread over domain runs; bad input.
. "$(dirname "$0")/lib.sh"

col() {  # col <name> [row]: the value of column <name> in row (default 1) of the last run's CSV
  awk -F, -v name="$1" -v row="${2:-1}" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == name) c = i} NR == row + 1 {print $c}' "$out"
}
shape=(--hosts 4 --drives-per-host 6)
domain=("${shape[@]}" --write 10GiB)

# The columns, one row per latency profile.
expect_ok capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 --vm-quantile 0.99 \
  --latency vdsm-polling-2022,vdsm-mailbox-events --format csv
expect_stdout_line 1 'latency,policy,rate_mib_s,hosts,drives_per_host,max_pauses_per_run,vm_quantile,max_writers,pauses_p99_at_max,latency_p99_s_at_max,spm_utilization_at_max,write,runs,workload,max_writers_min,max_writers_max,spread_runs'
expect_stdout '^vdsm-polling-2022,vdsm-2022,500,4,6,1,0\.99,[0-9]+,'
expect_stdout '^vdsm-mailbox-events,vdsm-2022,500,4,6,1,0\.99,[0-9]+,'
checks=$((checks + 1)); [ "$(wc -l <"$out")" -eq 3 ] || fail "capacity: expected a header and 2 rows"
cp "$out" "$scratch/first.csv"
expect_ok capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 --vm-quantile 0.99 \
  --latency vdsm-polling-2022,vdsm-mailbox-events --format csv
checks=$((checks + 1)); cmp -s "$out" "$scratch/first.csv" || fail "capacity: the same seed gave another answer"

# check_against_plan <capacity args...>: capacity's answer N is what plan --hosts --writers says of every count:
# 1 to N meet the target (pauses_p99 at most the maximum) and N + 1 misses it; the figures at N are plan's.
check_against_plan() {
  local max_pauses=$1 latency=$2 rate=$3
  shift 3
  expect_ok capacity "${domain[@]}" --rate "$rate" --max-pauses-per-run "$max_pauses" --latency "$latency" --format csv "$@"
  local n p99 lat util total k
  n=$(col max_writers) p99=$(col pauses_p99_at_max) lat=$(col latency_p99_s_at_max) util=$(col spm_utilization_at_max)
  total=$(( $(col hosts) * $(col drives_per_host) ))
  echo "capacity $latency $rate $* (max $max_pauses pauses): $n writers, pauses_p99 $p99, latency_p99 $lat, spm $util"
  for ((k = 1; k < n; k++)); do
    expect_ok plan "${domain[@]}" --writers "$k" --rate "$rate" --latency "$latency" --format csv "$@"
    checks=$((checks + 1))
    awk -v p="$(col pauses_p99)" -v m="$max_pauses" 'BEGIN {exit !(p <= m)}' ||
      fail "capacity says every count up to $n meets the target, but plan --writers $k misses it: $(tail -1 "$out")"
  done
  if [ "$n" -gt 0 ]; then
    expect_ok plan "${domain[@]}" --writers "$n" --rate "$rate" --latency "$latency" --format csv "$@"
    checks=$((checks + 1))
    [ "$(col pauses_p99)" = "$p99" ] && [ "$(col latency_p99_s)" = "$lat" ] && [ "$(col spm_utilization)" = "$util" ] &&
      awk -v p="$p99" -v m="$max_pauses" 'BEGIN {exit !(p <= m)}' ||
      fail "capacity says $n writers (pauses_p99 $p99, latency $lat, spm $util); plan --writers $n: $(tail -1 "$out")"
  fi
  if [ "$n" -lt "$total" ]; then
    expect_ok plan "${domain[@]}" --writers $((n + 1)) --rate "$rate" --latency "$latency" --format csv "$@"
    checks=$((checks + 1))
    awk -v p="$(col pauses_p99)" -v m="$max_pauses" 'BEGIN {exit !(p > m)}' ||
      fail "capacity says $n writers, but plan --writers $((n + 1)) meets the target: $(tail -1 "$out")"
  fi
  last_n=$n
}
check_against_plan 1 vdsm-polling-2022 500MiB/s
checks=$((checks + 1)); [ "$last_n" -gt 0 ] && [ "$last_n" -lt 24 ] || fail "capacity: expected an answer inside (0, 24), got $last_n"
check_against_plan 2 vdsm-mailbox-events 500MiB/s --runs 2 --seed 5
check_against_plan 1 vdsm-polling-2022 300MiB/s --policy rate-aware

check_against_plan 1 vdsm-mailbox-events 500MiB/s --policy rate-aware-adaptive

# 4 hosts x 4 drives, 10 GiB at 500 MiB/s under mailbox events: counts 11 and 12 miss, 13 meets. The answer
# is 10, every count up to it meets (checked above for each), and the counts beyond are as the issue found them.
domain=(--hosts 4 --drives-per-host 4 --write 10GiB --capacity 20GiB)
check_against_plan 1 vdsm-mailbox-events 500MiB/s --preset vdsm-2022
checks=$((checks + 1)); [ "$last_n" = 10 ] || fail "the 4 x 4 domain: expected 10 writers, got $last_n"
p99s=""
for k in 11 12 13; do
  expect_ok plan "${domain[@]}" --writers $k --rate 500MiB/s --latency vdsm-mailbox-events --preset vdsm-2022 --format csv
  p99s="$p99s $(col pauses_p99)"
done
checks=$((checks + 1)); [ "$p99s" = " 2 2 1" ] || fail "the 4 x 4 domain: pauses_p99 at 11, 12, 13 writers:$p99s, expected 2 2 1"
domain=("${shape[@]}" --write 10GiB)

# A domain where the doubling and bisection that came before answered 8, past count 7, which misses: every count
# from 1 to the answer meets, through plan, at the target's own quantile (pauses_p90); the answer plus one misses.
q=(--hosts 2 --drives-per-host 4 --rate 308MiB/s --write 9GiB --latency vdsm-immediate --chunk 1536MiB --percent 48
  --seed 440)
expect_ok capacity "${q[@]}" --max-pauses-per-run 2 --vm-quantile 0.9 --format csv
n=$(col max_writers)
checks=$((checks + 1)); [ "$n" = 6 ] || fail "capacity ${q[*]}: expected 6 writers (7 misses), got $n"
for ((k = 1; k <= n + 1 && k <= 8; k++)); do
  expect_ok plan "${q[@]}" --writers "$k" --format csv
  checks=$((checks + 1))
  awk -v p="$(col pauses_p90)" -v k="$k" -v n="$n" 'BEGIN {exit !(k <= n ? p <= 2 : p > 2)}' ||
    fail "capacity ${q[*]} says $n writers; plan --writers $k: pauses_p90 $(col pauses_p90)"
done

# Several configurations: one row per configuration and profile, configuration by configuration, each the answer
# the configuration gets alone.
expect_ok capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 --latency vdsm-polling-2022,vdsm-mailbox-events \
  --policy static,rate-aware-adaptive --preset vdsm-legacy,vdsm-2022 --format csv
cp "$out" "$scratch/several.csv"
checks=$((checks + 1)); [ "$(wc -l <"$scratch/several.csv")" -eq 9 ] || fail "capacity: expected a header and 8 rows"
row=1
for policy in static rate-aware-adaptive; do
  for preset in vdsm-legacy vdsm-2022; do
    expect_ok capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 \
      --latency vdsm-polling-2022,vdsm-mailbox-events --policy $policy --preset $preset --format csv
    for k in 1 2; do
      checks=$((checks + 1))
      [ "$(sed -n "$((row + 1))p" "$scratch/several.csv")" = "$(sed -n "$((k + 1))p" "$out")" ] ||
        fail "capacity --policy $policy --preset $preset row $k differs in the several-configuration run"
      row=$((row + 1))
    done
  done
done

# The edges: 0 when even one writer misses, every drive when all of them meet the target.
expect_ok capacity "${shape[@]}" --rate 500MiB/s --write 50GiB --max-pauses-per-run 0 --vm-quantile 1 --format csv
checks=$((checks + 1)); [ "$(col max_writers)" = 0 ] || fail "capacity: a lone writer pauses, expected 0 writers"
expect_ok capacity "${shape[@]}" --rate 10MiB/s --write 1GiB --max-pauses-per-run 0 --format csv
checks=$((checks + 1)); [ "$(col max_writers)" = 24 ] || fail "capacity: nobody pauses, expected all 24 writers"
# Text and JSON.
expect_ok capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1
expect_stdout 'max_writers'
expect_ok capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 --format json
expect_stdout '"max_writers": ?[0-9]+'

# Bad input: one line, exit 2.
expect_usage '^provpol capacity: --rate is required' capacity "${domain[@]}" --max-pauses-per-run 1
expect_usage '^provpol capacity: --max-pauses-per-run is required' capacity "${domain[@]}" --rate 500MiB/s
expect_usage '^provpol capacity: --hosts and --drives-per-host are required' capacity --hosts 2 --rate 500MiB/s --max-pauses-per-run 1
expect_usage '^provpol capacity: --hosts must be in \[1, 10000\], got 0$' capacity --hosts 0 --drives-per-host 2 --rate 500MiB/s --max-pauses-per-run 1
expect_usage '^provpol capacity: --latency: fixed:3 has no mailbox clocks' capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 --latency vdsm-polling-2022,fixed:3
expect_usage '^provpol capacity: --policy: unknown value' capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 --policy fast
expect_usage '^provpol capacity: --vm-quantile' capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 --vm-quantile 0
expect_usage '^provpol capacity: --rate: a rate of 0' capacity "${domain[@]}" --rate 0MiB/s --max-pauses-per-run 1
expect_usage '^provpol capacity: .*--format' capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 --format png
expect_usage '^provpol capacity: capacity would replay about [0-9]+ simulated events' capacity --hosts 100 --drives-per-host 100 --rate 500MiB/s --max-pauses-per-run 1 --max-events 1000000


# What the operator asks with: the configuration recommend prints, a staggered or bursting or traced workload, and
# the answer's spread over the runs (each run alone). The row says what it assumed.
expect_ok capacity "${shape[@]}" --rate 500MiB/s --write 10GiB --max-pauses-per-run 1 --chunk 4GiB --percent 20 --format csv
expect_stdout ',chunk-4096MiB-20pct,500,'
expect_stdout ',10737418240,1,"constant, every writer starts at once",[0-9]+,[0-9]+,4$'
expect_ok capacity "${shape[@]}" --rate 500MiB/s --write 10GiB --max-pauses-per-run 1 --chunk 4GiB --percent 20 --format csv
chunked=$(awk -F, 'NR == 2 { print $8 }' "$out")
expect_ok capacity "${shape[@]}" --rate 500MiB/s --write 10GiB --max-pauses-per-run 1 --format csv
default_answer=$(awk -F, 'NR == 2 { print $8 }' "$out")
checks=$((checks + 1))
[ "$chunked" -ge "$default_answer" ] || fail "a 4 GiB chunk held fewer writers ($chunked) than vdsm-2022 ($default_answer)"
expect_ok capacity "${shape[@]}" --rate 500MiB/s --write 10GiB --max-pauses-per-run 1 --stagger 30 --format csv
expect_stdout '"constant, writer i starts at i x 30 s"'
staggered=$(awk -F, 'NR == 2 { print $8 }' "$out")
checks=$((checks + 1))
[ "$staggered" -ge "$default_answer" ] || fail "writers 30 s apart held fewer ($staggered) than a boot storm ($default_answer)"
expect_ok capacity "${shape[@]}" --rate 500MiB/s --write 10GiB --max-pauses-per-run 1 --burst 2,10 --format csv
expect_stdout '"bursts 2 s on, 10 s off, every writer starts at once"'
expect_ok capacity "${shape[@]}" --max-pauses-per-run 1 --trace <(printf 'time_s,bytes_written\n0,0\n60,6GiB\n') --format csv
expect_stdout ',102.4,'
expect_stdout ',6442450944,1,"trace '
# The spread: each run alone; run 0 alone is --runs 1's answer, so it lies within [min, max]; --runs 1 spreads over
# the first 4 runs alone too, so its spread is --runs 4's.
expect_ok capacity "${shape[@]}" --rate 500MiB/s --write 10GiB --max-pauses-per-run 1 --runs 4 --format csv
spread() { awk -F, 'NR == 2 { print $(NF - 2), $(NF - 1), $NF }' "$out"; }  # after the quoted workload, by position
read -r lo hi _ < <(spread)
checks=$((checks + 1))
[ "$lo" -le "$default_answer" ] && [ "$default_answer" -le "$hi" ] ||
  fail "the runs' spread [$lo, $hi] does not hold run 0's answer $default_answer"
expect_ok capacity "${shape[@]}" --rate 500MiB/s --write 10GiB --max-pauses-per-run 1 --format csv
checks=$((checks + 1))
[ "$(spread)" = "$lo $hi 4" ] ||
  fail "--runs 1: the spread over the first 4 runs alone is not --runs 4's [$lo, $hi]: $(tail -1 "$out")"
expect_usage '^provpol capacity: give --preset or --chunk/--percent, not both' capacity "${shape[@]}" --rate 500MiB/s --max-pauses-per-run 1 --preset vdsm-2022 --chunk 4GiB --percent 20
expect_usage '^provpol capacity: --chunk and --percent go together' capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 --chunk 4GiB
expect_usage '^provpol capacity: --rate does not apply with --trace' capacity "${shape[@]}" --rate 500MiB/s --max-pauses-per-run 1 --trace /dev/null

# A target above the pause histogram (1023 pauses) is met or missed by counting the VMs, as check_writers counts
# them, not by the pauses' quantile (above the histogram, the largest count). One drive writing 1 TiB at 50 MiB/s in
# 384 MiB chunks, 4 runs: plan --per-run gives the same runs; half of them paused at most as often as the second
# fewest, so at that target one writer meets --vm-quantile 0.5 (max_writers 1).
expect_ok plan --latency vdsm-polling-2022 --chunk 384MiB --percent 50 --write 1TiB --rate 50MiB/s --runs 4 --per-run --format csv
second=$(awk -F, 'NR > 1 { print $4 }' "$out" | sort -n | sed -n 2p)
largest=$(awk -F, 'NR > 1 { print $4 }' "$out" | sort -n | tail -1)
checks=$((checks + 1))
[ "$second" -gt 1023 ] && [ "$second" -lt "$largest" ] ||
  fail "the runs do not pause above the histogram with a spread (second fewest $second, most $largest)"
expect_ok capacity --hosts 1 --drives-per-host 1 --runs 4 --chunk 384MiB --percent 50 --write 1TiB --rate 50MiB/s --latency vdsm-polling-2022 --max-pauses-per-run "$second" --vm-quantile 0.5 --format csv
expect_stdout ",$second,0.5,1,"

finish
