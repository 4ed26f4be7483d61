#!/usr/bin/env bash
# Every public enum of include/provpol (at namespace scope, or nested in a class; not in a detail namespace) has a
# to_text in the headers and a line in tests/to_text_test.cpp, so that a new enum cannot come without its names.
# Usage: enum_names_test.sh SOURCE_DIR
set -euo pipefail
src=${1:?usage: enum_names_test.sh SOURCE_DIR}
mapfile -t headers < <(find "$src/include/provpol" -name '*.hpp' -type f | LC_ALL=C sort)
test_file="$src/tests/to_text_test.cpp"
enums=$(awk '
  /^namespace [a-z_:]*detail[a-z_]* \{/ || /^namespace detail \{/ { detail++ }
  /^\}  \/\/ namespace [a-z_:]*detail/ { if (detail > 0) detail-- }
  /^(class|struct) [a-z_]+ (final )?\{/ { outer = $2 }
  /^enum class [a-z_]+ / { if (!detail) print $3 }
  /^    enum class [a-z_]+ / { if (!detail) print outer "::" $3 }
' "${headers[@]}" | sort -u)
[ -n "$enums" ] || { echo "found no enum in $src/include/provpol" >&2; exit 1; }
missing=0 count=0
for e in $enums; do
  count=$((count + 1))
  if ! grep -q "to_text($e [a-z]*)" "${headers[@]}"; then
    echo "enum $e has no to_text($e) in include/provpol" >&2
    missing=$((missing + 1))
  fi
  if ! grep -qF "check_names(\"$e\"" "$test_file"; then
    echo "enum $e is not checked in tests/to_text_test.cpp" >&2
    missing=$((missing + 1))
  fi
done
echo "public enums: $count, each with to_text and a check; problems: $missing"
[ "$missing" -eq 0 ]
