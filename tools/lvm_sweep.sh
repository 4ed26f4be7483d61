#!/usr/bin/env bash
# The large thin-pool recommend sweep (docs/lvm.md quotes its figures): tests/lvm_sweep.cpp built with g++ -O2
# (-ffp-contract=off, as provpol's own targets are) and run over 1,200 random configurations, each answer of
# recommend_lvm_percent compared with an exhaustive scan of the plan over percents 1 to 1000. ctest runs the same
# program on 40 configurations (lvm.sweep).
#
#   tools/lvm_sweep.sh [--configs N] [--seed S] [--include DIR] [--verbose]
#
# --include builds against another include/ tree: that of a commit before the scan, say
# (git worktree add /tmp/old COMMIT; tools/lvm_sweep.sh --include /tmp/old/include), to count its wrong answers.
# Exit status: the program's, 0 when every answer agrees with the scan.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
include="$root/include" configs=1200 seed=1 verbose=()
while [ $# -gt 0 ]; do
  case $1 in
    --configs) configs=${2:?--configs needs a number}; shift 2 ;;
    --seed) seed=${2:?--seed needs a number}; shift 2 ;;
    --include) include=${2:?--include needs a directory}; shift 2 ;;
    --verbose) verbose=(--verbose); shift ;;
    *) echo "usage: $0 [--configs N] [--seed S] [--include DIR] [--verbose]" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"${CXX:-g++}" -std=c++17 -O2 -ffp-contract=off -I"$include" -o "$work/lvm_sweep" "$root/tests/lvm_sweep.cpp"
echo "tests/lvm_sweep.cpp against $include, ${CXX:-g++} -O2, $(uname -m)"
"$work/lvm_sweep" --configs "$configs" --seed "$seed" "${verbose[@]}"
