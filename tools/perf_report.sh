#!/usr/bin/env bash
# Measures the numbers of bench/README.md on this machine and prints them as Markdown: every benchmark in
# build-dir/bench (Google Benchmark: ns per decision, the batch's ratio to memcpy), instructions per decision
# (callgrind, tools/instruction_budget.sh), and compile cost (tools/compile_cost.sh).
#
#   tools/perf_report.sh [build-dir]
#
# build-dir (default build/dev) must hold the benchmarks: cmake --preset dev && cmake --build --preset dev.
# Environment: REPETITIONS (default 15) for Google Benchmark. On a shared machine read the minimum (the least
# disturbed run) next to the median; the instruction counts do not depend on the load.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/dev}
reps=${REPETITIONS:-15}
benches=("$build"/bench/*_bench)
[ -x "${benches[0]}" ] || { echo "perf_report.sh: no benchmarks in $build/bench; build the dev preset first" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)
family=$(sed -n 's/^cpu family\s*: //p' /proc/cpuinfo | head -1)
model=$(sed -n 's/^model\s*: //p' /proc/cpuinfo | head -1)
os=$( (. /etc/os-release && echo "$PRETTY_NAME") 2>/dev/null || uname -sr)
echo "## Machine"
echo
echo "- CPU: $cpu (family $family, model $model), $(nproc) cores, $(grep -c ^processor /proc/cpuinfo) logical CPUs"
echo "- OS: $os, kernel $(uname -r)"
echo "- compiler: $(g++ --version | head -1); benchmarks and budgets built at -O2 (bench/CMakeLists.txt, bench/perf.cmake)"
echo "- Google Benchmark $(dpkg-query -W -f='${Version}' libbenchmark-dev 2>/dev/null || echo '?'), valgrind $(valgrind --version 2>/dev/null || echo 'missing')"
echo "- load average when measured: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

echo "## Time (Google Benchmark, CPU time per iteration, $reps repetitions)"
echo
echo "| benchmark | median | min |"
echo "|---|---:|---:|"
: >"$tmp/rows"
for bench in "${benches[@]}"; do
  "$bench" --benchmark_repetitions="$reps" --benchmark_report_aggregates_only=true --benchmark_format=csv \
    >"$tmp/bench.csv" 2>"$tmp/bench.err"
  # name,iterations,real_time,cpu_time,time_unit,...   -> "<name> <stat> <real> <cpu> <unit>"
  awk -F, 'NR > 1 && $1 ~ /_(median|min)"$/ {
             name = $1; gsub(/"/, "", name); stat = name; sub(/.*_/, "", stat); sub(/_[a-z]+$/, "", name)
             print name, stat, $3, $4, $5 }' "$tmp/bench.csv" >"$tmp/one"
  awk '{ key = $1; unit[key] = $5; v[key, $2] = $4; if (!(key in seen)) { seen[key] = 1; order[++n] = key } }
       END { for (i = 1; i <= n; ++i) {
               k = order[i]
               mn = ((k, "min") in v) ? sprintf("%.3g %s", v[k, "min"], unit[k]) : "-"
               printf "| `%s` | %.3g %s | %s |\n", k, v[k, "median"], unit[k], mn } }' \
    "$tmp/one"
  cat "$tmp/one" >>"$tmp/rows"
done
echo
awk '$1 == "bm_decide_batch/vdsm_2022" { b[$2] = $4 }
     $1 == "bm_vdsm_batch_kernel/baseline_isa" { s[$2] = $4 }
     $1 == "bm_memcpy_same_bytes" { m[$2] = $4 }
     $1 == "bm_copy_same_streams" { c[$2] = $4 }
     END { if (!("median" in m)) exit
           printf "- decide_batch (vdsm_2022, 1,048,576 drives) / memcpy of the same bytes: **%.2fx** (medians), %.2fx (minima)\n", b["median"] / m["median"], b["min"] / m["min"]
           if ("median" in s) printf "- the baseline-ISA (SSE2) blocks alone / memcpy: %.2fx (medians), %.2fx (minima)\n", s["median"] / m["median"], s["min"] / m["min"]
           printf "- a plain copy of the same six streams / memcpy: %.2fx (medians), %.2fx (minima)\n", c["median"] / m["median"], c["min"] / m["min"] }' "$tmp/rows"
echo

echo "## Instructions (callgrind)"
echo
"$root/tools/instruction_budget.sh" --markdown
echo

echo "## Compile cost"
echo
echo '```'
"$root/tools/compile_cost.sh" --budget || true  # the decision umbrellas, budgeted; provpol.hpp reported
"$root/tools/compile_cost.sh" --instructions provpol/flow.hpp provpol/fit.hpp provpol/simulate.hpp provpol/domain.hpp \
  provpol/models.hpp  # the model layer, reported
"$root/tools/compile_cost.sh" provpol/extend.hpp provpol/log_size.hpp provpol/chunk.hpp provpol/provpol.hpp \
  provpol/models.hpp
"$root/tools/compile_cost.sh" --includes provpol/extend.hpp provpol/log_size.hpp provpol/chunk.hpp provpol/provpol.hpp \
  provpol/models.hpp
echo '```'
