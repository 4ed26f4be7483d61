#!/usr/bin/env bash
# Every time option of the programs under examples/ (the CLI, provpol-agent, provpol-thinpoold) is read as a time:
# through args::time or parse_seconds, so that each takes the same spellings ("90", "90s", "1.5min", "250ms", "2h")
# and gives the same errors. A time option is one whose value is shown as SECONDS or TIME in its help. The check
# reads the sources: an option found in a help table but read any other way (a decimal, an integer) fails it.
# Usage: time_options_test.sh SOURCE_DIR
set -euo pipefail
export LC_ALL=C
src=${1:?usage: time_options_test.sh SOURCE_DIR}
bad=0 count=0
# Each program apart (an option of one is not read by another's code): its own folder and examples/common.
for program in "$src"/examples/*/; do
  [ "$(basename "$program")" = common ] && continue
  files=$(find "$program" "$src/examples/common" -name '*.cpp' -o -name '*.hpp' | sort)
  own=$(find "$program" -name '*.cpp' -o -name '*.hpp' | sort)
  [ -n "$own" ] || continue
  # The options: {"--name", "SECONDS", ...} in an args table, or "  --name TIME  ..." in a usage text.
  options=$( { grep -hoE '\{"--[a-z0-9-]+", "(SECONDS|TIME)"' $own | grep -oE -- '--[a-z0-9-]+' || true
               grep -hoE '^  --[a-z0-9-]+ (SECONDS|TIME) ' $own | grep -oE -- '--[a-z0-9-]+' || true; } | sort -u)
  for o in $options; do
    count=$((count + 1))
    # args::time("--o", ...) or time(a, "--o", ...), or a branch on "--o" whose next line calls parse_seconds.
    if grep -qE "time\((a, )?\"$o\"" $files; then continue; fi
    if grep -hA1 -E "== \"$o\"\)" $files | grep -q 'parse_seconds('; then continue; fi
    echo "$(basename "$program"): $o is shown as a time in its help but not read by args::time or parse_seconds" >&2
    bad=$((bad + 1))
  done
done
[ "$count" -gt 0 ] || { echo "time_options_test.sh: no time option found under $src/examples" >&2; exit 1; }
[ "$bad" = 0 ] || exit 1
echo "$count time options, each read as a time"
