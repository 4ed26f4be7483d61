#!/usr/bin/env bash
# Instruction budgets of provpol's decision paths, counted by callgrind (method: bench/instructions.cpp).
#
#   tools/instruction_budget.sh [--check] [--binary PATH] [--markdown]
#
# Builds bench/instructions.cpp with g++ -std=c++17 -O2 (or runs the binary given by --binary, as the ctest
# test perf.instruction_budget does), runs it once under valgrind --tool=callgrind, and prints one row per
# entry: instructions per decision = (decide loop - walk loop) / N, read from callgrind's per-loop dumps, with
# the entry's budget.
#   --check     exit 1 when an entry is over its budget (the perf test)
#   --markdown  print the table as Markdown (for bench/README.md)
# Exit status 77 (ctest's SKIP_RETURN_CODE) with a message on stderr when the measurement cannot run here:
# no valgrind, no g++, or a binary built without <valgrind/callgrind.h>.
# Environment: CXX (default g++) and CXXFLAGS (default -std=c++17 -O2) when the script builds the program.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

check=0 markdown=0 binary=
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1 ;;
    --markdown) markdown=1 ;;
    --binary) binary=${2:?--binary needs a path}; case $binary in /*) ;; *) binary=$PWD/$binary ;; esac; shift ;;
    -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "instruction_budget.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

skip() { echo "instruction_budget.sh: SKIPPED: $*" >&2; exit 77; }

command -v valgrind >/dev/null 2>&1 || skip "valgrind is not installed (Debian: apt-get install valgrind); instruction budgets are not checked"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -z "$binary" ]; then
  cxx=${CXX:-g++}
  flags=${CXXFLAGS:--std=c++17 -O2}
  command -v "$cxx" >/dev/null 2>&1 || skip "$cxx not found: the budgets are for g++ -O2"
  binary=$tmp/instructions
  # shellcheck disable=SC2086  # flags are a list
  "$cxx" $flags -DPROVPOL_BENCH_FLAGS="\"$flags\"" -I"$root/include" -o "$binary" "$root/bench/instructions.cpp"
else
  [ -x "$binary" ] || { echo "instruction_budget.sh: $binary is not an executable" >&2; exit 2; }
fi

list=$("$binary" --list)
built_with=$(sed -n 's/^flags //p' <<<"$list")
grep -qx 'callgrind-requests yes' <<<"$list" ||
  skip "$binary was built without <valgrind/callgrind.h> (install valgrind's headers and rebuild)"

(cd "$tmp" && valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$binary" >"$tmp/run.log" 2>&1) || {
  echo "instruction_budget.sh: valgrind failed:" >&2
  cat "$tmp/run.log" >&2
  exit 1
}

# One dump per loop: "desc: Trigger: Client Request: provpol:<entry>:<walk|decide>" and "totals: <Ir>".
for f in "$tmp"/cg.out.*; do
  awk '/^desc: Trigger: Client Request: provpol:/ { sub(/^desc: Trigger: Client Request: provpol:/, ""); name = $0 }
       /^totals:/ { total = $2 }
       END { if (name != "") print name, total }' "$f"
done >"$tmp/counts"

compiler=$(sed -n 's/^compiler //p' <<<"$list")
[ -n "$built_with" ] || built_with="flags not recorded"
awk -v check="$check" -v markdown="$markdown" -v compiler="$compiler" -v built_with="$built_with" '
  FNR == NR { split($1, k, ":"); loop = k[length(k)]; sub(/:[^:]*$/, "", $1); count[$1, loop] = $2; next }
  $1 == "entry" { names[++n] = $2; budget[$2] = $3; iters[$2] = $4 }
  END {
    if (markdown) {
      printf "| decision path | instructions per decision | budget | result |\n|---|---:|---:|---|\n"
    } else {
      printf "instructions per decision (callgrind, %s; %s)\n", compiler, built_with
      printf "%-42s %14s %8s  %s\n", "entry", "instructions", "budget", "result"
    }
    over = 0
    for (i = 1; i <= n; ++i) {
      e = names[i]
      if (!((e, "walk") in count) || !((e, "decide") in count)) {
        value = "-"; result = "not run on this CPU"
      } else {
        v = (count[e, "decide"] - count[e, "walk"]) / iters[e]
        value = sprintf("%.1f", v)
        if (budget[e] == 0) result = (e ~ /^extend-batch\//) ? "reported (per drive)" : "reported"
        else if (v <= budget[e]) result = "ok"
        else { result = "OVER BUDGET"; over = 1 }
      }
      b = budget[e] == 0 ? "-" : budget[e]
      if (markdown) printf "| `%s` | %s | %s | %s |\n", e, value, (b == "-" ? "-" : "<= " b), result
      else printf "%-42s %14s %8s  %s\n", e, value, b, result
    }
    exit (check && over) ? 1 : 0
  }' "$tmp/counts" <(grep '^entry ' <<<"$list")
