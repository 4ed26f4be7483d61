#!/usr/bin/env bash
# Measures what `#include <provpol/provpol.hpp>` (or any header given) adds to the compile time of an empty
# translation unit: the minimum over N runs of user+sys CPU time, with and without the include.
#   tools/compile_cost.sh [header ...]      default: provpol/provpol.hpp
# Environment: CXX (default g++), CXXFLAGS (default -std=c++17 -O2), RUNS (default 15).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cxx=${CXX:-g++}
flags=${CXXFLAGS:--std=c++17 -O2}
runs=${RUNS:-15}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

best() {  # best <source>: minimum user+sys seconds over $runs compiles
  local src=$1 b=999 t i
  for ((i = 0; i < runs; i++)); do
    t=$( { /usr/bin/time -f "%U %S" $cxx $flags -I"$root/include" -c "$src" -o "$tmp/out.o"; } 2>&1 | tail -1 | awk '{print $1 + $2}')
    b=$(awk -v a="$t" -v b="$b" 'BEGIN { print (a < b) ? a : b }')
  done
  echo "$b"
}

printf 'int main() { return 0; }\n' > "$tmp/empty.cpp"
base=$(best "$tmp/empty.cpp")
headers=("$@")
[ ${#headers[@]} -gt 0 ] || headers=(provpol/provpol.hpp)
printf '%-32s %8s %8s\n' header seconds added
printf '%-32s %8s %8s\n' "(empty translation unit)" "$base" "-"
for h in "${headers[@]}"; do
  printf '#include <%s>\nint main() { return 0; }\n' "$h" > "$tmp/with.cpp"
  t=$(best "$tmp/with.cpp")
  printf '%-32s %8s %8s\n' "$h" "$t" "$(awk -v a="$t" -v b="$base" 'BEGIN { printf "%.2f", a - b }')"
done
