#!/usr/bin/env bash
# provpol capacity: how many concurrent writers a storage domain holds under a per-VM target, one row per latency
# profile: N such that every count from 1 to N meets the target at each of 4 seeds and N + 1 misses at one of them.
# The answer checked against provpol plan --hosts at every count from 1 to N (each meets at every seed) and N + 1
# (misses at one); the example where 11 and 12 miss and 13 meets; the answer at four seeds in a row within one
# writer at the defaults; recommend --hosts for N writers agreeing with it; a domain that holds none (exit 3); bad
# input.
. "$(dirname "$0")/lib.sh"
# The expectations below were worked under the 2022 flow (vdsm-polling-2022), before the default became VDSM 4.50's
# current one: every plan, recommend and capacity run here names it.
pin_latency vdsm-polling-2022

col() {  # col <name> [row]: the value of column <name> in row (default 1) of the last run's CSV
  awk -F, -v name="$1" -v row="${2:-1}" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == name) c = i} NR == row + 1 {print $c}' "$out"
}
shape=(--hosts 4 --drives-per-host 6)
domain=("${shape[@]}" --write 10GiB)

# The columns, one row per latency profile.
expect_ok capacity "${domain[@]}" --rate 300MiB/s --max-pauses-per-run 2 --vm-quantile 0.99 \
  --latency vdsm-polling-2022,vdsm-mailbox-events --format csv
expect_stdout_line 1 'latency,policy,rate_mib_s,hosts,drives_per_host,max_pauses_per_run,vm_quantile,max_writers,pauses_p99_at_max,latency_p99_s_at_max,spm_utilization_at_max,write,runs,workload,max_writers_min,max_writers_max,seeds,vms_per_count'
expect_stdout '^vdsm-polling-2022,vdsm-2022,300,4,6,2,0\.99,[0-9]+,'
expect_stdout '^vdsm-mailbox-events,vdsm-2022,300,4,6,2,0\.99,[0-9]+,'
checks=$((checks + 1)); [ "$(wc -l <"$out")" -eq 3 ] || fail "capacity: expected a header and 2 rows"
cp "$out" "$scratch/first.csv"
expect_ok capacity "${domain[@]}" --rate 300MiB/s --max-pauses-per-run 2 --vm-quantile 0.99 \
  --latency vdsm-polling-2022,vdsm-mailbox-events --format csv
checks=$((checks + 1)); cmp -s "$out" "$scratch/first.csv" || fail "capacity: the same seed gave another answer"

# runs_at <k> <capacity args...>: the domain runs capacity checks count k on: --runs, else ceil(200 / k).
runs_at() {
  local k=$1 runs=
  shift
  while [ $# -gt 0 ]; do
    [ "$1" = --runs ] && runs=$2
    shift
  done
  echo "${runs:-$(((200 + k - 1) / k))}"
}
seed_of() { # the --seed in the arguments (default 1)
  local seed=1
  while [ $# -gt 0 ]; do
    [ "$1" = --seed ] && seed=$2
    shift
  done
  echo "$seed"
}
without_runs() { # the arguments without --runs N and --seed N (plan gets its own), one a line
  while [ $# -gt 0 ]; do
    if [ "$1" = --runs ] || [ "$1" = --seed ]; then shift 2; else
      printf '%s\n' "$1"
      shift
    fi
  done
}
# meets_at_seeds <quantile column> <max> <k> <plan args...>: plan --hosts --writers k meets the target at each of the
# 4 seeds from --seed, on capacity's runs for k.
meets_at_seeds() {
  local column=$1 max=$2 k=$3 j seed runs
  shift 3
  seed=$(seed_of "$@") runs=$(runs_at "$k" "$@")
  mapfile -t rest < <(without_runs "$@")
  for j in 0 1 2 3; do
    run plan "${domain[@]}" --writers "$k" --runs "$runs" --seed $((seed + j)) --format csv "${rest[@]}"
    [ "$status" -eq 0 ] || { fail "plan --writers $k: status $status"; return 1; }
    awk -v p="$(col "$column")" -v m="$max" 'BEGIN {exit !(p <= m)}' || return 1
  done
}
# check_against_plan <max_pauses> <latency> <rate> <capacity args...>: capacity's answer N is what plan --hosts
# --writers says of every count at each of the 4 seeds: 1 to N meet the target (pauses_p99 at most the maximum) and
# N + 1 misses it at one of them; the figures at N are plan's at the first seed.
check_against_plan() {
  local max_pauses=$1 latency=$2 rate=$3
  shift 3
  run capacity "${domain[@]}" --rate "$rate" --max-pauses-per-run "$max_pauses" --latency "$latency" --format csv "$@"
  local n p99 lat util total k
  n=$(col max_writers) p99=$(col pauses_p99_at_max) lat=$(col latency_p99_s_at_max) util=$(col spm_utilization_at_max)
  total=$(($(col hosts) * $(col drives_per_host)))
  checks=$((checks + 1))
  [ "$status" -eq "$([ "$n" = 0 ] && echo 3 || echo 0)" ] || fail "capacity: status $status with $n writers"
  echo "capacity $latency $rate $* (max $max_pauses pauses): $n writers, pauses_p99 $p99, latency_p99 $lat, spm $util"
  for ((k = 1; k <= n; k++)); do
    checks=$((checks + 1))
    meets_at_seeds pauses_p99 "$max_pauses" "$k" --rate "$rate" --latency "$latency" "$@" ||
      fail "capacity says every count up to $n meets the target, but plan --writers $k misses it: $(tail -1 "$out")"
  done
  if [ "$n" -gt 0 ]; then
    mapfile -t rest < <(without_runs "$@")
    expect_ok plan "${domain[@]}" --writers "$n" --runs "$(runs_at "$n" "$@")" --seed "$(seed_of "$@")" \
      --rate "$rate" --latency "$latency" --format csv "${rest[@]}"
    checks=$((checks + 1))
    [ "$(col pauses_p99)" = "$p99" ] && [ "$(col latency_p99_s)" = "$lat" ] && [ "$(col spm_utilization)" = "$util" ] ||
      fail "capacity says $n writers (pauses_p99 $p99, latency $lat, spm $util); plan --writers $n: $(tail -1 "$out")"
  fi
  if [ "$n" -lt "$total" ]; then
    checks=$((checks + 1))
    meets_at_seeds pauses_p99 "$max_pauses" $((n + 1)) --rate "$rate" --latency "$latency" "$@" &&
      fail "capacity says $n writers, but plan --writers $((n + 1)) meets the target at every seed"
  fi
  last_n=$n
}
check_against_plan 1 vdsm-mailbox-events 500MiB/s --runs 2
checks=$((checks + 1)); [ "$last_n" -gt 0 ] && [ "$last_n" -lt 24 ] || fail "capacity: expected an answer inside (0, 24), got $last_n"
check_against_plan 2 vdsm-mailbox-events 500MiB/s --runs 2 --seed 5
check_against_plan 1 vdsm-polling-2022 300MiB/s --policy rate-aware --runs 2
check_against_plan 1 vdsm-mailbox-events 500MiB/s --policy rate-aware-adaptive --runs 2
# The default: each count on ceil(200 / writers) domain runs.
check_against_plan 2 vdsm-mailbox-events 500MiB/s --write 4GiB

# 4 hosts x 4 drives, 10 GiB at 500 MiB/s under mailbox events, one domain run at seed 1: counts 11 and 12 miss,
# 13 meets. At seeds 1 to 4 the answer is at most 10, every count up to it meeting at each (checked above for each).
domain=(--hosts 4 --drives-per-host 4 --write 10GiB --capacity 20GiB)
check_against_plan 1 vdsm-mailbox-events 500MiB/s --preset vdsm-2022 --runs 1
checks=$((checks + 1)); [ "$last_n" -le 10 ] && [ "$last_n" -gt 0 ] || fail "the 4 x 4 domain: expected 1 to 10 writers, got $last_n"
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
expect_ok capacity "${q[@]}" --max-pauses-per-run 2 --vm-quantile 0.9 --runs 1 --format csv
n=$(col max_writers)
checks=$((checks + 1)); [ "$n" -ge 1 ] && [ "$n" -le 6 ] || fail "capacity ${q[*]}: expected 1 to 6 writers (7 misses at seed 440), got $n"
domain_was=("${domain[@]}")
domain=()
for ((k = 1; k <= n + 1 && k <= 8; k++)); do
  checks=$((checks + 1))
  if meets_at_seeds pauses_p90 2 "$k" "${q[@]}" --runs 1; then met=1; else met=0; fi
  [ "$met" = "$([ "$k" -le "$n" ] && echo 1 || echo 0)" ] ||
    fail "capacity ${q[*]} says $n writers; plan --writers $k at seeds 440-443: met $met"
done
domain=("${domain_was[@]}")

# Several configurations: one row per configuration and profile, configuration by configuration, each the answer
# the configuration gets alone (vdsm-legacy holds none at this rate: status 3 for the run).
expect_missed capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 --latency vdsm-polling-2022,vdsm-mailbox-events \
  --policy static,rate-aware-adaptive --preset vdsm-legacy,vdsm-2022 --runs 2 --format csv
cp "$out" "$scratch/several.csv"
checks=$((checks + 1)); [ "$(wc -l <"$scratch/several.csv")" -eq 9 ] || fail "capacity: expected a header and 8 rows"
row=1
for policy in static rate-aware-adaptive; do
  for preset in vdsm-legacy vdsm-2022; do
    run capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 \
      --latency vdsm-polling-2022,vdsm-mailbox-events --policy $policy --preset $preset --runs 2 --format csv
    for k in 1 2; do
      checks=$((checks + 1))
      [ "$(sed -n "$((row + 1))p" "$scratch/several.csv")" = "$(sed -n "$((k + 1))p" "$out")" ] ||
        fail "capacity --policy $policy --preset $preset row $k differs in the several-configuration run"
      row=$((row + 1))
    done
  done
done

# The edges: 0 when even one writer misses (status 3, and why), every drive when all of them meet the target.
expect_missed capacity "${shape[@]}" --rate 500MiB/s --write 50GiB --max-pauses-per-run 0 --vm-quantile 1 --format csv
checks=$((checks + 1)); [ "$(col max_writers)" = 0 ] || fail "capacity: a lone writer pauses, expected 0 writers"
expect_missed capacity "${shape[@]}" --rate 500MiB/s --write 50GiB --max-pauses-per-run 0 --vm-quantile 1
expect_stdout '^# vdsm-2022, vdsm-polling-2022: the domain holds no writer: one writer alone pauses [0-9]+ times'
expect_stdout 'no other writer is at the SPM, so the'
expect_ok capacity "${shape[@]}" --rate 10MiB/s --write 1GiB --max-pauses-per-run 0 --format csv
checks=$((checks + 1)); [ "$(col max_writers)" = 24 ] || fail "capacity: nobody pauses, expected all 24 writers"
# Text and JSON; the text within 100 columns, every column with --columns all.
expect_ok capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 --latency vdsm-mailbox-events
expect_stdout '^latency +policy +rate_mib_s +max_writers +max_writers_max +pauses_p99_at_max$'
checks=$((checks + 1))
[ "$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$out")" -le 100 ] || fail "capacity's text is wider than 100 columns"
expect_ok capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 --latency vdsm-mailbox-events --columns all
expect_stdout '^latency +policy +rate_mib_s +hosts +drives_per_host .* vms_per_count$'
expect_ok capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 --latency vdsm-mailbox-events --columns max_writers,policy
expect_stdout '^max_writers +policy$'
expect_usage "^provpol capacity: --columns: unknown column 'writers' \\(all, or some of latency,policy," capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 --columns writers
expect_ok capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 --latency vdsm-mailbox-events --format json
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
expect_usage "^provpol capacity: --rate: '400-600MiB/s': capacity answers for a rate; give a list" capacity "${domain[@]}" --rate 400-600MiB/s --max-pauses-per-run 1
expect_usage '^provpol capacity: .*--format' capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 --format png
expect_usage '^provpol capacity: capacity would replay about [0-9]+ simulated events' capacity --hosts 100 --drives-per-host 100 --rate 500MiB/s --max-pauses-per-run 1 --max-events 1000000


# What the operator asks with: the configuration recommend prints, a staggered or bursting or traced workload, and
# the answer's spread over the runs (each run alone). The row says what it assumed.
mailbox=(--latency vdsm-mailbox-events)
expect_ok capacity "${shape[@]}" "${mailbox[@]}" --rate 500MiB/s --write 10GiB --max-pauses-per-run 1 --chunk 4GiB --percent 20 --format csv
expect_stdout ',chunk-4096MiB-20pct,500,'
expect_stdout ',10737418240,[0-9]+,"constant, every writer starts at once",[0-9]+,[0-9]+,4,200$'
expect_ok capacity "${shape[@]}" "${mailbox[@]}" --rate 500MiB/s --write 10GiB --max-pauses-per-run 1 --chunk 4GiB --percent 20 --format csv
chunked=$(awk -F, 'NR == 2 { print $8 }' "$out")
expect_ok capacity "${shape[@]}" "${mailbox[@]}" --rate 500MiB/s --write 10GiB --max-pauses-per-run 1 --format csv
default_answer=$(awk -F, 'NR == 2 { print $8 }' "$out")
checks=$((checks + 1))
[ "$chunked" -ge "$default_answer" ] || fail "a 4 GiB chunk held fewer writers ($chunked) than vdsm-2022 ($default_answer)"
expect_ok capacity "${shape[@]}" "${mailbox[@]}" --rate 500MiB/s --write 10GiB --max-pauses-per-run 1 --stagger 30 --format csv
expect_stdout '"constant, writer i starts at i x 30 s"'
staggered=$(awk -F, 'NR == 2 { print $8 }' "$out")
checks=$((checks + 1))
[ "$staggered" -ge "$default_answer" ] || fail "writers 30 s apart held fewer ($staggered) than a boot storm ($default_answer)"
expect_ok capacity "${shape[@]}" "${mailbox[@]}" --rate 500MiB/s --write 10GiB --max-pauses-per-run 1 --burst 2,10 --format csv
expect_stdout '"bursts 2 s on, 10 s off, every writer starts at once"'
expect_ok capacity "${shape[@]}" "${mailbox[@]}" --max-pauses-per-run 1 --trace <(printf 'time_s,bytes_written\n0,0\n60,6GiB\n') --format csv
expect_stdout ',102.4,'
expect_stdout ',6442450944,[0-9]+,"trace '
# The spread: the seeds' own answers; the answer is the smallest of them (max_writers_min).
expect_ok capacity "${shape[@]}" "${mailbox[@]}" --rate 500MiB/s --write 10GiB --max-pauses-per-run 1 --format csv
spread() { awk -F, 'NR == 2 { print $8, $(NF - 3), $(NF - 2), $(NF - 1) }' "$out"; } # by position: after the workload
read -r n lo hi seeds < <(spread)
checks=$((checks + 1))
[ "$n" = "$lo" ] && [ "$lo" -le "$hi" ] && [ "$seeds" = 4 ] || fail "the seeds' spread: $(tail -1 "$out")"
# Four seeds in a row answer within one writer of each other, at the defaults (seeds 11 to 14).
stable=(--hosts 4 --drives-per-host 10 --rate 300MiB/s --max-pauses-per-run 1 --latency vdsm-mailbox-events)
answers=""
for s in 11 12 13 14; do
  expect_ok capacity "${stable[@]}" --seed $s --format csv
  answers="$answers $(col max_writers)"
done
checks=$((checks + 1))
# shellcheck disable=SC2086
[ $(($(printf '%s\n' $answers | sort -n | tail -1) - $(printf '%s\n' $answers | sort -n | head -1))) -le 1 ] ||
  fail "capacity at seeds 11 to 14 answers$answers: more than one writer apart"
# recommend --hosts for N writers agrees: no larger than the configuration capacity answered N for, and capacity
# with recommend's chunk holds at least N.
expect_ok capacity "${stable[@]}" --preset vdsm-2022 --format csv
n=$(col max_writers)
expect_ok recommend "${stable[@]}" --writers "$n" --format csv
chunk=$(col volume_utilization_chunk_mb)
checks=$((checks + 1))
[ -n "$chunk" ] && [ "$chunk" -le 2560 ] || fail "capacity: vdsm-2022 holds $n writers, recommend for $n says ${chunk}MiB"
expect_ok capacity "${stable[@]}" --chunk "${chunk}MiB" --percent 20 --format csv
checks=$((checks + 1))
[ "$(col max_writers)" -ge "$n" ] || fail "capacity with recommend's ${chunk}MiB for $n writers holds $(col max_writers)"
expect_usage '^provpol capacity: give --preset or --chunk/--percent, not both' capacity "${shape[@]}" --rate 500MiB/s --max-pauses-per-run 1 --preset vdsm-2022 --chunk 4GiB --percent 20
expect_usage '^provpol capacity: --chunk and --percent go together' capacity "${domain[@]}" --rate 500MiB/s --max-pauses-per-run 1 --chunk 4GiB
expect_usage '^provpol capacity: --rate does not apply with --trace' capacity "${shape[@]}" --rate 500MiB/s --max-pauses-per-run 1 --trace /dev/null

# A target above the pause histogram (1023 pauses) is met or missed by counting the VMs, as check_writers counts
# them, not by the pauses' quantile (above the histogram, the largest count). One drive writing 1 TiB at 50 MiB/s in
# 384 MiB chunks, 4 runs: plan --per-run gives the same runs; half of them paused at most as often as the second
# fewest, so at that target one writer meets --vm-quantile 0.5 (max_writers 1).
# capacity holds the count at 4 seeds: with --vm-quantile 0.25 one of each seed's 4 runs must meet, so the target
# is the most any seed's fewest paused; some runs pause more.
target=0 largest=0
for s in 1 2 3 4; do
  expect_ok plan --latency vdsm-polling-2022 --chunk 384MiB --percent 50 --write 1TiB --rate 50MiB/s --runs 4 --per-run --seed $s --format csv
  x=$(awk -F, 'NR > 1 { print $4 }' "$out" | sort -n | head -1)
  y=$(awk -F, 'NR > 1 { print $4 }' "$out" | sort -n | tail -1)
  [ "$x" -gt "$target" ] && target=$x
  [ "$y" -gt "$largest" ] && largest=$y
done
checks=$((checks + 1))
[ "$target" -gt 1023 ] && [ "$target" -lt "$largest" ] ||
  fail "the runs do not pause above the histogram with a spread (target $target, most $largest)"
one=(--hosts 1 --drives-per-host 1 --runs 4 --chunk 384MiB --percent 50 --write 1TiB --rate 50MiB/s --latency vdsm-polling-2022 --vm-quantile 0.25)
expect_ok capacity "${one[@]}" --max-pauses-per-run "$target" --format csv
expect_stdout ",$target,0.25,1,"
expect_missed capacity "${one[@]}" --max-pauses-per-run $((target - 1)) --format csv
expect_stdout ",$((target - 1)),0.25,0,"
finish
