#!/usr/bin/env bash
# Mutation testing: applies each mutant of tools/mutants.txt to its header (one at a time, in the source tree),
# rebuilds only the mutant's test targets in an existing build directory, runs those tests, and restores the
# header. A mutant is
#   killed     when a test fails (or the mutant does not compile: "killed (build)"),
#   survived   when every test passes: a missing test, unless the list explains it as equivalent,
#   stale      when its text no longer occurs exactly once in the header (refresh the list; not counted).
#   tools/mutate.sh [build dir, default build/dev] [mutant id ...]
# Prints one line per mutant and a summary; writes the same to BUILD/mutate-report.txt. Exit status 1 when a
# mutant not marked equivalent survives. Not in CI: the whole list takes 30 to 60 minutes on 2 cores. Run it alone:
# it edits the headers in the source tree, so another build of this tree meanwhile would compile a mutant.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build/dev}
shift || true
[ -d "$build" ] || { echo "mutate.sh: no build directory $build (cmake --preset dev first)" >&2; exit 2; }
list="$root/tools/mutants.txt"
report="$build/mutate-report.txt"
: >"$report"
only=" $* "

apply() {  # apply <file> <text> <replacement>: 0 applied, 3 stale (the text does not occur exactly once)
  python3 - "$@" <<'EOF'
import sys
path, text, repl = sys.argv[1], sys.argv[2].replace("\\n", "\n"), sys.argv[3].replace("\\n", "\n")
src = open(path).read()
if src.count(text) != 1:
    sys.exit(3)
open(path, "w").write(src.replace(text, repl))
EOF
}

backup=""
target_file=""
restore() {
  # A new mtime (not cp -p): the objects built from the mutant are older than it, so the next build rebuilds them.
  if [ -n "$backup" ]; then cp "$backup" "$target_file"; rm -f "$backup"; backup=""; fi
}
trap restore EXIT
trap 'restore; exit 130' INT TERM

killed=0 survived=0 stale=0 equivalent=0 missing=0 total=0
touched=()  # the targets built from a mutant: rebuilt from the restored headers at the end
start_all=$(date +%s)
while IFS=$'\t' read -r id file text repl targets why; do
  case "$id" in ''|'#'*) continue ;; esac
  if [ "$only" != "  " ] && [[ "$only" != *" $id "* ]]; then continue; fi
  total=$((total + 1))
  case "$file" in
    examples/*) target_file="$root/$file" ;;  # the CLI's readers, from the repository's root
    *) target_file="$root/include/provpol/$file" ;;
  esac
  start=$(date +%s)
  backup=$(mktemp)
  cp "$target_file" "$backup"
  set +e
  apply "$target_file" "$text" "$repl"
  applied=$?
  set -e
  if [ $applied -eq 3 ]; then
    restore
    stale=$((stale + 1))
    printf '%-28s stale (the text no longer occurs exactly once in %s)\n' "$id" "$file" | tee -a "$report"
    continue
  fi
  # Each target is a build target that is also its test's name, or TARGET:TEST (provpol_cli:cli.lvm_inputs).
  IFS=, read -ra entries <<<"$targets"
  tgts=() tests=()
  for e in "${entries[@]}"; do tgts+=("${e%%:*}"); tests+=("${e#*:}"); done
  touched+=("${tgts[@]}")
  verdict=survived
  if ! cmake --build "$build" --target "${tgts[@]}" >/dev/null 2>&1; then
    verdict="killed (build)"
  else
    regex="^($(IFS='|'; echo "${tests[*]}"))\$"
    if ! ctest --test-dir "$build" -R "$regex" --timeout 600 >/dev/null 2>&1; then verdict=killed; fi
  fi
  restore
  case "$verdict" in
    killed*) killed=$((killed + 1)) ;;
    *) if [[ "$why" == equivalent:* ]]; then equivalent=$((equivalent + 1)); verdict="survived (equivalent)";
       else survived=$((survived + 1)); missing=1; fi ;;
  esac
  printf '%-28s %-22s %4ds  %s: %s\n' "$id" "$verdict" $(( $(date +%s) - start )) "$file" "$why" | tee -a "$report"
done <"$list"
# The last mutant's targets were built from it: rebuild them from the restored headers, so that a plain ctest in
# this build directory afterwards tests the code as it is.
if [ ${#touched[@]} -gt 0 ]; then
  mapfile -t unique < <(printf '%s\n' "${touched[@]}" | sort -u)
  if ! cmake --build "$build" --target "${unique[@]}" >/dev/null 2>&1; then
    echo "mutate.sh: rebuilding ${unique[*]} from the restored headers failed" >&2
    missing=1
  fi
fi
counted=$((killed + survived))
score=$(awk -v k=$killed -v c=$counted 'BEGIN { printf "%.1f", c ? 100 * k / c : 0 }')
printf 'mutants %d: killed %d, survived %d, equivalent %d, stale %d; score %s%% (killed / (killed + survived)); %ds\n' \
  $total $killed $survived $equivalent $stale "$score" $(( $(date +%s) - start_all )) | tee -a "$report"
exit $missing
