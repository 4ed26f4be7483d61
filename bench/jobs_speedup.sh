#!/usr/bin/env bash
# provpol plan and capacity with --jobs 1 and --jobs N alternated, REPETITIONS times each: wall and CPU seconds per
# run (/usr/bin/time), and the load average before each command. A control after each pair: two --jobs 1 processes
# at once, whose wall time against one alone says how much of a second core was free at that moment (on a shared
# machine, the speed-up --jobs can show is bounded by it). The numbers in bench/README.md ("plan and capacity on
# several threads") come from it. Usage: bench/jobs_speedup.sh path/to/provpol [N, default 2]
set -euo pipefail
provpol=${1:?usage: $0 path/to/provpol [jobs]}
jobs=${2:-2}
repetitions=${REPETITIONS:-3}
[ -x /usr/bin/time ] || { echo "bench/jobs_speedup.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
commands=(
  "plan --runs 100000 --format csv"
  "plan --hosts 50 --drives-per-host 20 --rate 100MiB/s,200MiB/s,300MiB/s,500MiB/s --write 200GiB --format csv"
  "capacity --hosts 20 --drives-per-host 20 --rate 300MiB/s --write 100GiB --max-pauses-per-run 2 --runs 4 --format csv"
)
for c in "${commands[@]}"; do
  echo "== provpol $c   (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
  for ((rep = 1; rep <= repetitions; rep++)); do
    for j in 1 "$jobs"; do
      # shellcheck disable=SC2086  # the command's words
      /usr/bin/time -f "--jobs $j, run $rep: %e s wall, %U s user + %S s system" "$provpol" $c --jobs "$j" >/dev/null
    done
    # shellcheck disable=SC2086,SC2016  # the command's words; $0 and $@ are the inner shell's
    /usr/bin/time -f "control, run $rep: two --jobs 1 at once, %e s wall" bash -c \
      '"$0" "$@" --jobs 1 >/dev/null & "$0" "$@" --jobs 1 >/dev/null & wait' "$provpol" $c
  done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
