#!/usr/bin/env bash
# clang-tidy on every public header, through the generated one-header translation units of a configured build
# (tests/self_contained/*.cpp), with the committed .clang-tidy. Exits non-zero on any finding.
#   tools/clang_tidy.sh [build directory, default build/dev]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/dev}
tidy=$(command -v clang-tidy || command -v clang-tidy-14 || true)
if [ -z "$tidy" ]; then
  echo "tools/clang_tidy.sh: clang-tidy is not installed (apt-get install clang-tidy)" >&2
  exit 2
fi
[ -f "$build/compile_commands.json" ] || { echo "tools/clang_tidy.sh: configure $build first (cmake --preset dev)" >&2; exit 2; }
files=("$build"/tests/self_contained/*.cpp)
[ -e "${files[0]}" ] || { echo "tools/clang_tidy.sh: no generated translation units in $build/tests/self_contained" >&2; exit 2; }
status=0
checked=0
for f in "${files[@]}"; do
  # A translation unit left from a header since moved or removed (the build directory keeps it) is not checked.
  header=$(sed -n 's/^#include <\(provpol\/[^>]*\)>$/\1/p' "$f" | head -1)
  [ -n "$header" ] && [ ! -f "$root/include/$header" ] && continue
  checked=$((checked + 1))
  if ! out=$("$tidy" -p "$build" --quiet "$f" 2>&1); then
    status=1
    printf '%s\n' "$out" | grep -v '^[0-9]* warnings generated' >&2
  fi
done
[ $status -eq 0 ] && echo "clang-tidy: $checked headers clean"
exit $status
