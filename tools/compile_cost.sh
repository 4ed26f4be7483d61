#!/usr/bin/env bash
# What `#include <provpol/provpol.hpp>` (or any header given) costs a translation unit.
#
#   tools/compile_cost.sh [header ...]
#       the compile time it adds to an empty translation unit, next to what <string> adds: the minimum over RUNS
#       compiles of user+sys CPU time, the empty unit, <string> and each header compiled in turn (interleaved, so
#       that a machine that slows down slows all of them); the ratio column holds across machines where seconds
#       do not.
#   tools/compile_cost.sh --instructions [header ...]
#       deterministic: the instructions the compiler executes (valgrind's callgrind, every process of the driver)
#       for the empty unit, <string> and each header, and the same ratio to <string>; slow (about 10 s a compile)
#   tools/compile_cost.sh --budget
#       deterministic, as --instructions, for the embedder's umbrella provpol/provpol.hpp (the decisions and their
#       vocabulary) and the decision families' umbrellas (provpol/extend.hpp, provpol/log_size.hpp,
#       provpol/chunk.hpp): exits 1 when one costs more than 1.0 x <string> (the ctest perf.compile_budget;
#       docs/design.md, "Compile cost", says what each costs and why). The model layer (provpol/models.hpp: flow,
#       fit, simulate, domain) is measured, not budgeted.
#   tools/compile_cost.sh --includes [--check] [header ...]
#       deterministic: the standard headers it pulls in (transitively) and its preprocessed size; --check exits
#       1 when one of the headers the library must not include is among them (the ctest perf.header_includes)
#
# Default header: provpol/provpol.hpp; with --budget or --includes --check, the decision umbrellas (and, reported
# only, provpol/provpol.hpp with --budget). Environment:
# CXX (default g++), CXXFLAGS (default -std=c++17 -O2), RUNS (default 15). Timing is noisy on a shared machine,
# which is why the tests count instructions and includes instead.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cxx=${CXX:-g++}
flags=${CXXFLAGS:--std=c++17 -O2}
runs=${RUNS:-15}

# The standard headers a decision header must not include (each adds from ~0.05 s to ~0.9 s to every translation
# unit that includes it). <optional>, <variant> and <string_view> are allowed where they make the code plainer
# (their cost is in the ratio to <string>). <type_traits> and <utility> are refused too: detail/traits.hpp has what the
# decisions use, from the compilers' builtins. The model layer may include any of them.
forbidden="string vector cmath algorithm array iostream random functional chrono type_traits utility"

mode=time check=0
while [ $# -gt 0 ]; do
  case "$1" in
    --includes) mode=includes ;;
    --instructions) mode=instructions ;;
    --budget) mode=instructions check=1 ;;
    --check) check=1 ;;
    -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
    --*) echo "compile_cost.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
  shift
done
headers=("$@")
decisions=(provpol/provpol.hpp provpol/extend.hpp provpol/log_size.hpp provpol/chunk.hpp)
reported=()  # measured and printed with --budget, not held to it (none now)
if [ ${#headers[@]} -eq 0 ]; then
  if [ "$check" = 1 ]; then headers=("${decisions[@]}"); else headers=(provpol/provpol.hpp); fi
fi

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
        echo "compile_cost.sh: $h includes <$f>, which a decision header must not include (compile cost)" >&2
        status=1
      fi
    done
  done
  [ "$check" = 1 ] && exit $status
  exit 0
fi

if [ "$mode" = instructions ]; then
  if ! command -v valgrind >/dev/null; then
    echo "compile_cost.sh: --instructions needs valgrind" >&2
    [ "$check" = 1 ] && exit 77  # the ctest's skip code
    exit 2
  fi
  count() {  # count <source>: instructions executed by the compiler driver and its children
    rm -f "$tmp"/cg.*
    # shellcheck disable=SC2086
    valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$tmp/cg.%p" \
      $cxx $flags -I"$root/include" -c "$1" -o "$tmp/out.o" >/dev/null 2>&1
    awk '/^summary:/ { s += $2 } END { printf "%.0f\n", s }' "$tmp"/cg.*
  }
  printf 'int main() { return 0; }\n' > "$tmp/empty.cpp"
  printf '#include <string>\nint main() { return 0; }\n' > "$tmp/string.cpp"
  e=$(count "$tmp/empty.cpp")
  s=$(count "$tmp/string.cpp")
  printf '%-32s %16s %14s\n' header "instructions" "x <string>"
  printf '%-32s %16s %14s\n' "<string>" "$((s - e))" "1.00"
  status=0
  for h in "${headers[@]}" ${reported[@]+"${reported[@]}"}; do
    printf '#include <%s>\nint main() { return 0; }\n' "$h" > "$tmp/with.cpp"
    c=$(count "$tmp/with.cpp")
    ratio=$(awk -v a=$((c - e)) -v b=$((s - e)) 'BEGIN { printf "%.3f", a / b }')
    note=""
    [[ " ${reported[*]-} " == *" $h "* ]] && note="  (reported, not budgeted)"
    printf '%-32s %16s %14s%s\n' "$h" "$((c - e))" "$ratio" "$note"
    if [ "$check" = 1 ] && [ -z "$note" ] && awk -v r="$ratio" 'BEGIN { exit !(r > 1.0) }'; then
      echo "compile_cost.sh: $h costs $ratio x <string>, over its budget of 1.0" >&2
      status=1
    fi
  done
  echo "budget: provpol/provpol.hpp and each decision umbrella (extend.hpp, log_size.hpp, chunk.hpp) at most" \
       "1.0 x <string>; the model layer is measured, not budgeted ($cxx $flags; instructions above the empty unit)"
  [ "$check" = 1 ] && [ "$status" = 0 ] && echo "compile_cost.sh: provpol.hpp and every decision umbrella within budget"
  exit $status
fi

seconds() {  # seconds <source>: user+sys CPU seconds of one compile, to the microsecond (getrusage of the child)
  # shellcheck disable=SC2086
  python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.4f" % (r.ru_utime + r.ru_stime))' $cxx $flags -I"$root/include" -c "$1" -o "$tmp/out.o"
}

printf 'int main() { return 0; }\n' > "$tmp/empty.cpp"
printf '#include <string>\nint main() { return 0; }\n' > "$tmp/string.cpp"
srcs=("$tmp/empty.cpp" "$tmp/string.cpp")
for i in "${!headers[@]}"; do
  printf '#include <%s>\nint main() { return 0; }\n' "${headers[$i]}" > "$tmp/with$i.cpp"
  srcs+=("$tmp/with$i.cpp")
done
declare -a min
for ((r = 0; r < runs; r++)); do
  for j in "${!srcs[@]}"; do
    t=$(seconds "${srcs[$j]}")
    min[$j]=$(awk -v a="$t" -v b="${min[$j]:-999}" 'BEGIN { print (a < b) ? a : b }')
  done
done
base=${min[0]}
string_added=$(awk -v a="${min[1]}" -v b="$base" 'BEGIN { printf "%.3f", a - b }')
printf '%-32s %8s %8s %14s\n' header seconds added "x <string>"
printf '%-32s %8s %8s %14s\n' "(empty translation unit)" "$base" "-" "-"
printf '%-32s %8s %8s %14s\n' "<string>" "${min[1]}" "$string_added" "1.00"
for i in "${!headers[@]}"; do
  t=${min[$((i + 2))]}
  added=$(awk -v a="$t" -v b="$base" 'BEGIN { printf "%.3f", a - b }')
  ratio=$(awk -v a="$added" -v s="$string_added" 'BEGIN { if (s > 0) printf "%.2f", a / s; else print "-" }')
  printf '%-32s %8s %8s %14s\n' "${headers[$i]}" "$t" "$added" "$ratio"
done
echo "budget: each decision umbrella at most 1.0 x <string>, measured in instructions (--budget); runs: $runs, $cxx $flags"
