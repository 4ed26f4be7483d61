#!/usr/bin/env bash
# Every transcript of the CLI in README.md and docs/*.md (a ``` block whose first line is `$ provpol ...` on one
# line) is run, and its output must be what the page shows: all of it, or the lines before a line "..." when the
# page shortens it. So the pages cannot drift from the CLI. Usage: docs_transcripts_test.sh path/to/provpol ROOT
. "$(dirname "$0")/lib.sh"
root=${2:?usage: $0 path/to/provpol ROOT}
# The pages name files relative to the source tree (docs/flows/*.json, tests/data/...): run from there.
cd "$root" || exit 1
n=0
for page in "$root/README.md" "$root"/docs/*.md; do
  awk -v dir="$scratch" -v page="$(basename "$page")" '
    /^```/ { if (inblock) { inblock = 0; if (cmd != "") close(file) ; cmd = "" } else { inblock = 1; first = 1 } ; next }
    inblock && first { first = 0; if ($0 ~ /^\$ provpol / && $0 !~ /\\$/) { k++; cmd = substr($0, 3);
        file = dir "/" page "." k ".expected"; print cmd > (dir "/" page "." k ".cmd"); close(dir "/" page "." k ".cmd");
        printf "" > file } ; next }
    inblock && cmd != "" { print >> file }
  ' "$page"
done
for cmdfile in "$scratch"/*.cmd; do
  [ -e "$cmdfile" ] || continue
  n=$((n + 1))
  expected=${cmdfile%.cmd}.expected
  read -r _ args <"$cmdfile"
  # shellcheck disable=SC2086  # the page's command line, split as a shell would
  eval "run $args"
  checks=$((checks + 1))
  if grep -qx '\.\.\.' "$expected"; then
    sed '/^\.\.\.$/,$d' "$expected" >"$expected.head"
    lines=$(wc -l <"$expected.head")
    head -n "$lines" "$out" | cmp -s - "$expected.head" || { fail "$(basename "$cmdfile" .cmd): the page's output is not what provpol $args prints"; diff <(head -n "$lines" "$out") "$expected.head" >&2; }
  else
    cmp -s "$out" "$expected" || { fail "$(basename "$cmdfile" .cmd): the page's output is not what provpol $args prints"; diff "$out" "$expected" >&2; }
  fi
done
echo "$n transcripts"
checks=$((checks + 1)); [ "$n" -ge 3 ] || fail "expected at least 3 transcripts in the pages, found $n"
finish
