#!/usr/bin/env bash
# Every public factory of include/provpol is named in the docs: each class's static make() and make_*() (as "T::make") and each
# free make_*() function at namespace scope outside a detail namespace (as its name), somewhere in docs/*.md or
# README.md, so that a user finds every way to build a validated value.
# Usage: factories_test.sh SOURCE_DIR
set -euo pipefail
export LC_ALL=C
src=${1:?usage: factories_test.sh SOURCE_DIR}
mapfile -t headers < <(find "$src/include/provpol" -name '*.hpp' -type f -not -path '*/detail/*' | sort)
factories=$(awk '
  /^namespace [a-z_:]*detail[a-z_]* \{/ || /^namespace detail \{/ { detail++ }
  /^\}  \/\/ namespace [a-z_:]*detail/ { if (detail > 0) detail-- }
  /^(class|struct) [a-z_0-9]+ (final )?[:{]/ || /^(class|struct) [a-z_0-9]+$/ { outer = $2 }
  /^};/ { outer = "" }
  !detail && outer != "" && /^    (PROVPOL_NODISCARD )?static .*[ &*>]make[a-z_0-9]*\(/ {
    name = $0; sub(/\(.*/, "", name); sub(/.*[ &*>]/, "", name); print outer "::" name }
  !detail && /^(PROVPOL_NODISCARD )?(inline )?(constexpr )?[a-z_:<>0-9, ]+ make_[a-z_0-9]+\(/ {
    name = $0; sub(/\(.*/, "", name); sub(/.* /, "", name); print name }
' "${headers[@]}" | sort -u)
[ -n "$factories" ] || { echo "found no factory in $src/include/provpol" >&2; exit 1; }
missing=0 count=0
for f in $factories; do
  count=$((count + 1))
  if ! grep -qF -- "$f" "$src"/docs/*.md "$src/README.md"; then
    echo "factory $f is named in no page of docs/ (nor README.md)" >&2
    missing=$((missing + 1))
  fi
done
[ "$missing" = 0 ] || exit 1
echo "$count public factories, each named in the docs"
