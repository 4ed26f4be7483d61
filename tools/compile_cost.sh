#!/usr/bin/env bash
# What `#include <provpol/provpol.hpp>` (or any header given) costs a translation unit.
#
#   tools/compile_cost.sh [header ...]
#       the compile time it adds to an empty translation unit: the minimum over RUNS compiles of user+sys CPU
#       time, with and without the include (budget for provpol/provpol.hpp: 0.25 s at g++ -O2)
#   tools/compile_cost.sh --includes [--check] [header ...]
#       deterministic: the standard headers it pulls in (transitively) and its preprocessed size; --check exits
#       1 when one of the headers the library must not include is among them (the ctest perf.header_includes)
#
# Default header: provpol/provpol.hpp. Environment: CXX (default g++), CXXFLAGS (default -std=c++17 -O2),
# RUNS (default 15). Timing is noisy on a shared machine, which is why only --includes is a test.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cxx=${CXX:-g++}
flags=${CXXFLAGS:--std=c++17 -O2}
runs=${RUNS:-15}

# The standard headers a provpol header must not include (the brief's compile-cost rule: each adds from
# ~0.05 s to ~0.9 s to every translation unit that includes provpol).
forbidden="string vector cmath algorithm array iostream random string_view optional variant functional chrono"

mode=time check=0
while [ $# -gt 0 ]; do
  case "$1" in
    --includes) mode=includes ;;
    --check) check=1 ;;
    -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
    --*) echo "compile_cost.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
headers=("$@")
[ ${#headers[@]} -gt 0 ] || headers=(provpol/provpol.hpp)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ "$mode" = includes ]; then
  status=0
  printf '%-32s %10s  %s\n' header lines "standard headers included"
  for h in "${headers[@]}"; do
    printf '#include <%s>\n' "$h" > "$tmp/with.cpp"
    # shellcheck disable=SC2086  # flags are a list
    std=$($cxx $flags -I"$root/include" -M "$tmp/with.cpp" | tr ' \\' '\n\n' |
          grep -E '/c\+\+/[^/]+/[a-z_]+$' | sed 's|.*/||' | sort -u | tr '\n' ' ')
    # shellcheck disable=SC2086
    lines=$($cxx $flags -I"$root/include" -E -P "$tmp/with.cpp" | wc -l)
    printf '%-32s %10s  %s\n' "$h" "$lines" "$std"
    for f in $forbidden; do
      if [[ " $std " == *" $f "* ]]; then
        echo "compile_cost.sh: $h includes <$f>, which provpol's headers must not include (compile cost)" >&2
        status=1
      fi
    done
  done
  [ "$check" = 1 ] && exit $status
  exit 0
fi

best() {  # best <source>: minimum user+sys seconds over $runs compiles
  local src=$1 b=999 t i
  for ((i = 0; i < runs; i++)); do
    # shellcheck disable=SC2086
    t=$( { /usr/bin/time -f "%U %S" $cxx $flags -I"$root/include" -c "$src" -o "$tmp/out.o"; } 2>&1 | tail -1 | awk '{print $1 + $2}')
    b=$(awk -v a="$t" -v b="$b" 'BEGIN { print (a < b) ? a : b }')
  done
  echo "$b"
}

printf 'int main() { return 0; }\n' > "$tmp/empty.cpp"
base=$(best "$tmp/empty.cpp")
printf '%-32s %8s %8s\n' header seconds added
printf '%-32s %8s %8s\n' "(empty translation unit)" "$base" "-"
for h in "${headers[@]}"; do
  printf '#include <%s>\nint main() { return 0; }\n' "$h" > "$tmp/with.cpp"
  t=$(best "$tmp/with.cpp")
  printf '%-32s %8s %8s\n' "$h" "$t" "$(awk -v a="$t" -v b="$base" 'BEGIN { printf "%.2f", a - b }')"
done
