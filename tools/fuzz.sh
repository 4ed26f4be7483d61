#!/usr/bin/env bash
# Runs provpol's libFuzzer fuzzers (clang, address + undefined sanitizers) for a set time each, then merges what
# they found into the saved corpus (tests/fuzz/corpus/<fuzzer>, replayed by ctest).
#   tools/fuzz.sh [seconds per fuzzer, default 60] [fuzzer ...]     (FUZZ_MERGE=0: leave the saved corpus as it is)
# Prints one line per fuzzer: executions, executions per second, corpus size, and any crash file.
# FUZZ_SEED_SAMPLE=N starts each fuzzer from N inputs of the saved corpus, drawn at random, instead of all of them:
# libFuzzer runs every seed before it mutates, and cli_fuzz's 2959 saved inputs take longer than a 60 s run (the
# replay ctest runs them all already), so CI's short run seeds from a sample and spends its time on new inputs.
# cli_fuzz (the whole CLI in-process, tests/fuzz/cli_fuzz.cpp) is built from the CLI's sources, so the build has
# the examples on; it runs with a 20 s timeout per input (its work bound).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
shift || true
build="$root/build/fuzz"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPROVPOL_BUILD_FUZZERS=ON -DPROVPOL_BUILD_EXAMPLES=ON -DPROVPOL_BUILD_BENCHMARKS=OFF >/dev/null
fuzzers=("$@")
if [ ${#fuzzers[@]} -eq 0 ]; then
  fuzzers=($(sed -n 's/^provpol_fuzzer(\([a-z_]*\))$/\1/p' "$root/tests/fuzz/CMakeLists.txt") cli_fuzz)
fi
cmake --build "$build" --target "${fuzzers[@]}" >/dev/null
status=0
for f in "${fuzzers[@]}"; do
  corpus="$root/tests/fuzz/corpus/$f"
  work=$(mktemp -d)
  mkdir -p "$corpus" "$work/new" "$work/artifacts"
  log="$work/log"
  extra=()
  if [ "$f" = cli_fuzz ]; then extra=(-timeout=20 -rss_limit_mb=4096); fi
  seeds=$corpus
  if [ -n "${FUZZ_SEED_SAMPLE:-}" ]; then
    seeds="$work/seeds"
    mkdir -p "$seeds"
    find "$corpus" -type f -print0 | shuf -z -n "$FUZZ_SEED_SAMPLE" | xargs -0 -r cp -t "$seeds"
  fi
  if ! "$build/tests/fuzz/$f" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
       -max_len=4096 "${extra[@]}" "$work/new" "$seeds" >"$log" 2>&1; then
    status=1
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  # Keep the corpus small: only inputs that add coverage (not with FUZZ_MERGE=0, as CI runs it).
  if [ "${FUZZ_MERGE:-1}" != 0 ]; then "$build/tests/fuzz/$f" -merge=1 "$corpus" "$work/new" >/dev/null 2>&1 || true; fi
  crash=$(ls "$work/artifacts" 2>/dev/null | head -1)
  printf '%-14s %12s executions %9s/s  corpus %4d files  %s\n' "$f" "${execs:-?}" "${rate:-?}" \
    "$(ls "$corpus" | wc -l)" "${crash:+FINDING: $work/artifacts/$crash}"
  if [ -n "$crash" ]; then tail -30 "$log" >&2; status=1; else rm -rf "$work"; fi
done
exit $status
