#!/usr/bin/env bash
# The large sweep of the recommend and capacity contracts (the small one is in ctest: model_tests and capacity_tests), through the CLI: random
# VDSM per-VM, domain and capacity questions, each answer compared with an exhaustive scan of `provpol plan` under
# the contract the answer states:
#   recommend --max-pauses-per-run N [--hosts ...]   every chunk below the answer (in 128MiB steps) misses the target
#                                                    on the same runs and seed, the answer meets it;
#   capacity                                         every writer count from 1 to the answer meets, one more misses
#                                                    (or the answer is every drive).
# plan's pauses_p50, pauses_p90 and pauses_p99 are the quantiles the targets use (--vm-quantile 0.5, 0.9, 0.99).
# Not in ctest (minutes): run it by hand, docs/domain.md has its figures.
#
# Usage: recommend_sweep.sh path/to/provpol [QUESTIONS] [SEED]    (default 100 questions of each kind, seed 1)
set -u
provpol=${1:?usage: $0 path/to/provpol [QUESTIONS] [SEED]}
questions=${2:-100}
RANDOM=${3:-1}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

profiles=(vdsm-polling-2022 vdsm-mailbox-events vdsm-immediate)
quantiles=(0.5 0.9 0.99)
columns=(pauses_p50 pauses_p90 pauses_p99)
declare -A asked wrong refused
for kind in per-vm domain capacity; do asked[$kind]=0 wrong[$kind]=0 refused[$kind]=0; done
failed=0

# col NAME FILE [ROW]: the value of column NAME in a CSV (no quoted commas before it).
col() { awk -F, -v name="$1" -v row="${3:-1}" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == name) c = i} NR == row + 1 {print $c}' "$2"; }
# configs PERCENT MIB: every chunk from 128 MiB up to MIB in 128 MiB steps, as plan --config reads them.
configs() {
  echo volume_utilization_chunk_mb,volume_utilization_percent
  for ((c = 128; c <= $2; c += 128)); do echo "$c,$1"; done
}
# first_meeting FILE COLUMN MAX: the first row's chunk whose COLUMN is at most MAX (0 when none).
first_meeting() {
  awk -F, -v name="$2" -v m="$3" 'NR == 1 {for (i = 1; i <= NF; i++) {if ($i == name) c = i; if ($i == "chunk_mb") k = i}; next}
    $c + 0 <= m + 0 {print $k; found = 1; exit} END {if (!found) print 0}' "$1"
}
report() {  # report KIND WHAT ANSWER EXPECTED ARGS...
  asked[$1]=$((asked[$1] + 1))
  if [ "$3" != "$4" ]; then wrong[$1]=$((wrong[$1] + 1)); echo "WRONG $1: answered $3, the contract says $4: ${*:5}"; fi
}
answered() {  # answered KIND STATUS ARGS...: whether the command answered (0, or 3: printed and not met)
  [ "$2" -eq 0 ] || [ "$2" -eq 3 ] && return 0
  refused[$1]=$((refused[$1] + 1)); echo "REFUSED $1 (exit $2): ${*:3}: $(head -1 "$scratch/err")"; return 1
}

draw() {  # the question's common draws
  profile=${profiles[RANDOM % 3]} k=$((RANDOM % 3)) quantile=${quantiles[k]} column=${columns[k]}
  max_pauses=$((RANDOM % 3)) percent=$((RANDOM % 100)) seed=$((RANDOM % 1000)) rate=$((100 + RANDOM % 901))
}

for ((i = 0; i < questions; i++)); do
  # One VM: recommend --max-pauses-per-run on up to 60 simulated VMs.
  draw
  write=$((1 + RANDOM % 16)) runs=$((5 + RANDOM % 56))
  q=(--rate "${rate}MiB/s" --write "${write}GiB" --latency "$profile" --runs "$runs" --seed "$seed")
  "$provpol" recommend "${q[@]}" --percent "$percent" --max-pauses-per-run "$max_pauses" --vm-quantile "$quantile" \
    --format csv >"$scratch/r.csv" 2>"$scratch/err"
  if answered per-vm $? recommend "${q[@]}" --percent "$percent" --max-pauses-per-run "$max_pauses"; then
    answer=$(awk -F, '$18 == "per-vm" {print $3}' "$scratch/r.csv")
    configs "$percent" $((write * 1024)) >"$scratch/all.csv"
    "$provpol" plan --config "$scratch/all.csv" "${q[@]}" --format csv >"$scratch/p.csv" || failed=$((failed + 1))
    report per-vm chunk "$answer" "$(first_meeting "$scratch/p.csv" "$column" "$max_pauses")" recommend "${q[@]}" \
      --percent "$percent" --max-pauses-per-run "$max_pauses" --vm-quantile "$quantile"
  fi

  # A domain: recommend --hosts on up to 3 domain runs of at most 4 x 5 drives.
  draw
  hosts=$((1 + RANDOM % 4)) per=$((1 + RANDOM % 5)) write=$((1 + RANDOM % 8)) runs=$((1 + RANDOM % 3))
  writers=$((1 + RANDOM % (hosts * per)))
  d=(--hosts "$hosts" --drives-per-host "$per" --writers "$writers" --runs "$runs")
  q=(--rate "${rate}MiB/s" --write "${write}GiB" --latency "$profile" --seed "$seed")
  "$provpol" recommend "${q[@]}" "${d[@]}" --percent "$percent" --max-pauses-per-run "$max_pauses" \
    --vm-quantile "$quantile" --format csv >"$scratch/r.csv" 2>"$scratch/err"
  if answered domain $? recommend "${q[@]}" "${d[@]}" --percent "$percent" --max-pauses-per-run "$max_pauses"; then
    answer=$(col volume_utilization_chunk_mb "$scratch/r.csv")
    configs "$percent" $((write * 1024)) >"$scratch/all.csv"
    "$provpol" plan --config "$scratch/all.csv" "${q[@]}" "${d[@]}" --format csv >"$scratch/p.csv" || failed=$((failed + 1))
    report domain chunk "$answer" "$(first_meeting "$scratch/p.csv" "$column" "$max_pauses")" recommend "${q[@]}" \
      "${d[@]}" --percent "$percent" --max-pauses-per-run "$max_pauses" --vm-quantile "$quantile"
  fi

  # Capacity: every writer count of at most 4 x 6 drives, for a chunk of 1 to 5 GiB.
  draw
  hosts=$((1 + RANDOM % 4)) per=$((1 + RANDOM % 6)) write=$((2 + RANDOM % 11)) runs=$((1 + RANDOM % 2))
  chunk=$((128 * (8 + RANDOM % 33)))
  q=(--hosts "$hosts" --drives-per-host "$per" --rate "${rate}MiB/s" --write "${write}GiB" --latency "$profile"
    --chunk "${chunk}MiB" --percent "$percent" --runs "$runs" --seed "$seed")
  "$provpol" capacity "${q[@]}" --max-pauses-per-run "$max_pauses" --vm-quantile "$quantile" --format csv \
    >"$scratch/c.csv" 2>"$scratch/err"
  answered capacity $? capacity "${q[@]}" || continue
  answer=$(col max_writers "$scratch/c.csv")
  run_end=0
  for ((n = 1; n <= hosts * per; n++)); do
    "$provpol" plan "${q[@]}" --writers "$n" --format csv >"$scratch/p.csv" || failed=$((failed + 1))
    awk -v p="$(col "$column" "$scratch/p.csv")" -v m="$max_pauses" 'BEGIN {exit !(p <= m)}' || break
    run_end=$n
  done
  report capacity writers "$answer" "$run_end" capacity "${q[@]}" --max-pauses-per-run "$max_pauses" \
    --vm-quantile "$quantile"
done
total=0
for kind in per-vm domain capacity; do
  echo "$kind: ${asked[$kind]} answers checked against plan, ${wrong[$kind]} wrong; ${refused[$kind]} questions refused"
  total=$((total + wrong[$kind] + refused[$kind]))
done
echo "plan failed $failed times"
[ "$total" -eq 0 ] && [ "$failed" -eq 0 ]
