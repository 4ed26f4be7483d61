#!/usr/bin/env bash
# --jobs N: plan and capacity run their simulations on N threads (every core by default), and what they print does
# not depend on N: the same plan (several rates, both presets, both policies, per-run rows, CSV, JSON and SVG, a
# storage domain with several runs) with --jobs 1, 2, 3, 7 and the default is the same file, byte for byte; bad
# values of --jobs. (parallel.hpp itself, an exception in a task included, is tested under TSan: concurrency_tests.)
. "$(dirname "$0")/lib.sh"
# The expectations below were worked under the 2022 flow (vdsm-polling-2022), before the default became VDSM 4.50's
# current one: every plan, recommend and capacity run here names it.
pin_latency vdsm-polling-2022

# same_output <what> <args...>: provpol <args> --jobs 1 is the reference; --jobs 2, 3, 7 and no --jobs print it.
same_output() {
  local what=$1
  shift
  expect_ok "$@" --jobs 1
  cp "$out" "$scratch/one"
  checks=$((checks + 1))
  [ -s "$scratch/one" ] || fail "$what: --jobs 1 printed nothing"
  for jobs in 2 3 7 default; do
    if [ "$jobs" = default ]; then expect_ok "$@"; else expect_ok "$@" --jobs "$jobs"; fi
    checks=$((checks + 1))
    cmp -s "$out" "$scratch/one" || fail "$what: --jobs $jobs differs from --jobs 1: $(diff "$scratch/one" "$out" | head -4)"
  done
}

single=(plan --policy static --policy rate-aware --preset vdsm-2022 --preset vdsm-legacy
  --rate 75MiB/s,150MiB/s,300MiB/s,500MiB/s --write 20GiB --runs 301)
same_output "plan, 4 configurations x 4 rates, csv" "${single[@]}" --format csv
# The reference is a real plan: 16 rows, and runs that paused (so the sums being compared are not all zero).
checks=$((checks + 1))
[ "$(wc -l <"$scratch/one")" -eq 17 ] || fail "plan: expected a header and 16 rows, got $(wc -l <"$scratch/one") lines"
checks=$((checks + 1))
awk -F, 'NR > 1 && $3 > 0 {paused++} END {exit !(paused >= 4)}' "$scratch/one" || fail "plan: no configuration paused"
same_output "plan, json" "${single[@]}" --format json
same_output "plan, text" "${single[@]}"
same_output "plan --per-run, csv" "${single[@]}" --per-run --format csv
checks=$((checks + 1))
[ "$(wc -l <"$scratch/one")" -eq $((4 * 4 * 301 + 1)) ] || fail "plan --per-run: expected 4816 rows"
same_output "plan --per-run, json" "${single[@]}" --per-run --format json
same_output "plan, svg" plan --preset vdsm-2022 --preset vdsm-legacy --rate 100MiB/s,300MiB/s --runs 201 --format svg \
  --svg-metric pauses
# More runs than one window of tasks (65536): the windows are added up in order too.
same_output "plan, 70000 runs" plan --rate 500MiB/s --write 2GiB --runs 70000 --format csv

# A storage domain: every domain run of every configuration and rate is a task.
domain=(plan --hosts 3 --drives-per-host 4 --writers 9 --rate 200MiB/s,400MiB/s,600MiB/s --write 10GiB --runs 3
  --policy static --policy rate-aware)
same_output "plan --hosts, csv" "${domain[@]}" --format csv
checks=$((checks + 1))
[ "$(wc -l <"$scratch/one")" -eq 7 ] || fail "plan --hosts: expected a header and 6 rows"
same_output "plan --hosts, json" "${domain[@]}" --format json
# The domain's workloads and mixed configurations (--mix: every configuration in one domain, one accumulator each).
same_output "plan --hosts --mix --stagger, three policies" plan --hosts 3 --drives-per-host 4 --writers 9 \
  --rate 300MiB/s,500MiB/s --write 10GiB --runs 3 --policy static,rate-aware,rate-aware-adaptive --preset vdsm-2022 \
  --mix --stagger 0.5 --format csv
same_output "plan --hosts --burst, rate-aware-adaptive" plan --hosts 3 --drives-per-host 4 --rate 500MiB/s \
  --write 10GiB --runs 4 --policy rate-aware-adaptive --burst 10,5 --format csv
same_output "plan --hosts, one run each" plan --hosts 2 --drives-per-host 5 --rate 300MiB/s,500MiB/s --write 10GiB --format csv

# The figures are those of the runs one by one: a domain of one drive, 200 runs on 3 threads, is plan run by run.
expect_ok plan --hosts 1 --drives-per-host 1 --runs 200 --rate 450MiB/s --format csv --jobs 3
cut -d, -f1-4,11-14 "$out" >"$scratch/domain.csv"
expect_ok plan --runs 200 --rate 450MiB/s --format csv --jobs 1
cut -d, -f1-4,14-17 "$out" >"$scratch/single.csv"
checks=$((checks + 1))
cmp -s "$scratch/domain.csv" "$scratch/single.csv" || fail "plan --hosts 1 --drives-per-host 1 --jobs 3 differs from plan"

# capacity: its search (the domain runs of each count on threads, or the profiles side by side) and its plot.
cap=(capacity --hosts 4 --drives-per-host 6 --write 10GiB --rate 500MiB/s --max-pauses-per-run 3)
same_output "capacity, 2 profiles, 3 runs" "${cap[@]}" --latency vdsm-polling-2022,vdsm-mailbox-events --runs 3 --format csv
same_output "capacity, 2 profiles side by side" "${cap[@]}" --latency vdsm-polling-2022,vdsm-mailbox-events --format csv
same_output "capacity --format svg" "${cap[@]}" --latency vdsm-polling-2022,vdsm-immediate --runs 2 --format svg

# Bad values: one line, exit 2, the range named.
expect_usage '^provpol plan: --jobs must be in \[1, 1024\], got 0$' plan --jobs 0
expect_usage '^provpol plan: --jobs must be in \[1, 1024\], got 1025$' plan --jobs 1025
expect_usage '^provpol capacity: --jobs must be in \[1, 1024\], got 0$' "${cap[@]}" --jobs 0
expect_usage '^provpol plan: --jobs' plan --jobs two
expect_usage "^provpol plan: --jobs needs a value" plan --jobs

finish
