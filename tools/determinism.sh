#!/usr/bin/env bash
# The same numbers on every platform: builds the provpol CLI with g++ -O2 for x86-64-v3 (AVX2 and FMA, where a compiler
# that may contract a * b + c into one rounding would change the simulators' last bits) and compares what it
# prints with the default build's, byte for byte, for plan, plan --hosts, capacity and recommend.
#   tools/determinism.sh REFERENCE_PROVPOL [extra CXXFLAGS for the x86-64-v3 build]
# Exit 0: identical; 1: a difference (the diff is printed); 0 with a note when this CPU cannot run x86-64-v3.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ref=${1:?usage: tools/determinism.sh path/to/provpol [CXXFLAGS]}
extra=${2:-}
if ! grep -qw fma /proc/cpuinfo || ! grep -qw avx2 /proc/cpuinfo; then
  echo "determinism: this CPU has no FMA/AVX2, the x86-64-v3 build cannot run here: skipped"
  exit 0
fi
build="$root/build/x86-64-v3"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=g++ -DCMAKE_BUILD_TYPE=Release \
  "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG" "-DCMAKE_CXX_FLAGS=-march=x86-64-v3 $extra" \
  -DPROVPOL_BUILD_TESTS=OFF -DPROVPOL_BUILD_BENCHMARKS=OFF -DPROVPOL_INSTALL=OFF >/dev/null
cmake --build "$build" --target provpol_cli -- -j"$(nproc 2>/dev/null || echo 2)" >/dev/null
v3="$build/examples/provpol"
status=0
# Today the outputs agree even with contraction on (-ffp-contract=fast gave the same bytes: the shape of the code),
# so the bytes alone would not notice the flag going missing. The instructions do: with -ffp-contract=off the
# compiler emits no fused multiply-add of its own.
if command -v objdump >/dev/null; then
  fused=$(objdump -d "$v3" | grep -cE '\bv?f(n)?m(add|sub)[0-9]{3}' || true)
  if [ "$fused" -eq 0 ]; then
    echo "no fused multiply-add in the x86-64-v3 build"
  else
    echo "DIFFERENT: the x86-64-v3 build has $fused fused multiply-add instructions (-ffp-contract=off missing?)"
    status=1
  fi
fi
cases=(
  "plan --runs 300 --format csv"
  "plan --runs 100 --policy rate-aware --policy rate-aware-adaptive --format csv"
  "plan --hosts 4 --drives-per-host 25 --runs 2 --rates 200MiB/s,500MiB/s --write 20GiB --format csv"
  "capacity --hosts 2 --drives-per-host 16 --rate 400MiB/s --max-pauses-per-run 1 --write 10GiB --runs 2 --format csv"
  "recommend --rate 400MiB/s --runs 300 --format csv"
  "recommend --rate 300MiB/s --policy rate-aware --max-pauses-per-run 1 --runs 100 --format csv"
)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for c in "${cases[@]}"; do
  read -r -a args <<<"$c"
  "$ref" "${args[@]}" >"$tmp/ref" 2>&1 || true
  "$v3" "${args[@]}" >"$tmp/v3" 2>&1 || true
  if cmp -s "$tmp/ref" "$tmp/v3"; then
    printf 'same   %6d bytes  provpol %s\n' "$(wc -c <"$tmp/ref")" "$c"
  else
    printf 'DIFFERENT          provpol %s\n' "$c"
    diff "$tmp/ref" "$tmp/v3" | head -10
    status=1
  fi
done
exit $status
