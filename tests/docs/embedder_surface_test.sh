#!/usr/bin/env bash
# docs/design.md's "The embedder's surface" lists the names a VDSM-like agent uses of <provpol/provpol.hpp>: a
# translation unit that includes only that header names every one of them (using provpol::NAME; the literals as a
# namespace), so the list cannot name what the header does not give, nor something only the models declare.
# Usage: embedder_surface_test.sh SOURCE_DIR [CXX]
set -euo pipefail
export LC_ALL=C
src=${1:?usage: embedder_surface_test.sh SOURCE_DIR [CXX]}
cxx=${2:-c++}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

table=$(sed -n '/<!-- embedder-surface begin -->/,/<!-- embedder-surface end -->/p' "$src/docs/design.md" |
        grep '^| `' || true)
# shellcheck disable=SC2016 # the backquotes are Markdown's, matched literally
names=$(cut -d'|' -f2 <<<"$table" | grep -oE '`[A-Za-z_][A-Za-z0-9_]*`' | tr -d '`' | sort -u)
count=$(wc -w <<<"$names")
if [ "$count" -lt 10 ]; then
  echo "embedder_surface_test: found $count names between the embedder-surface markers of docs/design.md" >&2
  exit 1
fi
{
  echo '#include <provpol/provpol.hpp>'
  for n in $names; do
    if [ "$n" = literals ]; then echo 'using namespace provpol::literals;'; else echo "using provpol::$n;"; fi
  done
  echo 'int main() { return 0; }'
} >"$tmp/surface.cpp"
if ! "$cxx" -std=c++17 -fsyntax-only -I"$src/include" "$tmp/surface.cpp" 2>"$tmp/err"; then
  grep -E 'error' "$tmp/err" | head -20 >&2
  echo "embedder_surface_test: a name of docs/design.md's embedder surface is not declared by <provpol/provpol.hpp>" >&2
  exit 1
fi
claimed=$(sed -n 's/^That is \([0-9]*\) names\..*/\1/p' "$src/docs/design.md")
if [ "$claimed" != "$count" ]; then
  echo "embedder_surface_test: docs/design.md says 'That is $claimed names', the table holds $count" >&2
  exit 1
fi
echo "the embedder's surface: $count names, each declared by <provpol/provpol.hpp> alone"
