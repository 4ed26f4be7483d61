#!/usr/bin/env bash
# provpol capacity: the largest number of concurrent writers a storage domain holds under a per-VM target, one row
# per latency profile; the answer checked against provpol plan --hosts at N writers (meets) and N + 1 (misses);
# bad input.
. "$(dirname "$0")/lib.sh"

col() {  # col <name> [row]: the value of column <name> in row (default 1) of the last run's CSV
  awk -F, -v name="$1" -v row="${2:-1}" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == name) c = i} NR == row + 1 {print $c}' "$out"
}
shape=(--hosts 4 --drives-per-host 6)
domain=("${shape[@]}" --write 10GiB)

# The columns, one row per latency profile.
expect_ok capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 --vm-quantile 0.99 \
  --latency vdsm-polling-2022,vdsm-mailbox-events --format csv
expect_stdout_line 1 'latency,policy,rate_mib_s,hosts,drives_per_host,max_pauses_per_run,vm_quantile,max_writers,pauses_p99_at_max,latency_p99_s_at_max,spm_utilization_at_max,write,runs,workload,max_writers_min,max_writers_max'
expect_stdout '^vdsm-polling-2022,vdsm-2022,500,4,6,1,0\.99,[0-9]+,'
expect_stdout '^vdsm-mailbox-events,vdsm-2022,500,4,6,1,0\.99,[0-9]+,'
checks=$((checks + 1)); [ "$(wc -l <"$out")" -eq 3 ] || fail "capacity: expected a header and 2 rows"
cp "$out" "$scratch/first.csv"
expect_ok capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 --vm-quantile 0.99 \
  --latency vdsm-polling-2022,vdsm-mailbox-events --format csv
checks=$((checks + 1)); cmp -s "$out" "$scratch/first.csv" || fail "capacity: the same seed gave another answer"

# check_against_plan <capacity args...>: capacity's answer N meets the target in plan --hosts --writers N (its
# pauses_p99 at most the maximum) and N + 1 misses it; the figures at N are plan's.
check_against_plan() {
  local max_pauses=$1 latency=$2 rate=$3
  shift 3
  expect_ok capacity "${domain[@]}" --rate "$rate" --max-pauses-per-run "$max_pauses" --latency "$latency" --format csv "$@"
  local n p99 lat util total
  n=$(col max_writers) p99=$(col pauses_p99_at_max) lat=$(col latency_p99_s_at_max) util=$(col spm_utilization_at_max)
  total=24
  echo "capacity $latency $rate $* (max $max_pauses pauses): $n writers, pauses_p99 $p99, latency_p99 $lat, spm $util"
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
expect_stdout ',10737418240,1,"constant, every writer starts at once",,$'
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
# The spread: each run alone; run 0 alone is --runs 1's answer, so it lies within [min, max].
expect_ok capacity "${shape[@]}" --rate 500MiB/s --write 10GiB --max-pauses-per-run 1 --runs 4 --format csv
read -r lo hi < <(awk -F, 'NR == 2 { print $(NF - 1), $NF }' "$out")
checks=$((checks + 1))
[ "$lo" -le "$default_answer" ] && [ "$default_answer" -le "$hi" ] ||
  fail "the runs' spread [$lo, $hi] does not hold run 0's answer $default_answer"
expect_usage '^provpol capacity: give --preset or --chunk/--percent, not both' capacity "${shape[@]}" --rate 500MiB/s --max-pauses-per-run 1 --preset vdsm-2022 --chunk 4GiB --percent 20
expect_usage '^provpol capacity: --chunk and --percent go together' capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 --chunk 4GiB
expect_usage '^provpol capacity: --rate does not apply with --trace' capacity "${shape[@]}" --rate 500MiB/s --max-pauses-per-run 1 --trace /dev/null

finish
