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
# One clang-tidy per translation unit, as many at once as there are CPUs; each one's findings go to its own file,
# printed after all have run.
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for f in "${files[@]}"; do
  # A translation unit left from a header since moved or removed (the build directory keeps it) is not checked.
  header=$(sed -n 's/^#include <\(provpol\/[^>]*\)>$/\1/p' "$f" | head -1)
  [ -n "$header" ] && [ ! -f "$root/include/$header" ] && continue
  printf '%s\0' "$f"
done >"$out/list"
export tidy build out
xargs -0 -P "$(nproc 2>/dev/null || echo 2)" -I{} bash -c \
  'f=$1; if ! "$tidy" -p "$build" --quiet "$f" >"$out/$(basename "$f").log" 2>&1; then touch "$out/$(basename "$f").failed"; fi' \
  _ {} <"$out/list"
status=0
for failed in "$out"/*.failed; do
  [ -e "$failed" ] || continue
  status=1
  grep -v '^[0-9]* warnings generated' "${failed%.failed}.log" >&2
done
[ $status -eq 0 ] && echo "clang-tidy: $(tr -cd '\0' <"$out/list" | wc -c) headers clean"
exit $status
