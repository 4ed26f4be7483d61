# Assertions for CLI tests, sourced by tests/cli/*_test.sh. Each test script gets the provpol binary as $1.
# Failures are counted and reported; the script exits 1 if any check failed.
set -u
PROVPOL=${1:?usage: $0 path/to/provpol}
failures=0
checks=0
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# pin_latency PROFILE: from here on, run() gives plan, recommend and capacity --latency PROFILE when the command
# names none (and is not an LVM or Stratis one): for a script whose expectations were worked under that profile
# rather than under the default (VDSM 4.50's current flow, vdsm-immediate).
pinned_latency=
pin_latency() { pinned_latency=$1; }
with_pinned_latency() {  # the arguments, --latency PROFILE added after the command when pin_latency applies
  local a
  [ $# -gt 0 ] || return 0
  if [ -n "$pinned_latency" ] && [[ " plan recommend capacity " == *" $1 "* ]]; then
    for a in "$@"; do
      case "$a" in --latency|--latency=*|--help|-h|--preset=lvm-*|--preset=stratis-*|lvm-*|stratis-*) printf '%s\0' "$@"; return ;; esac
    done
    printf '%s\0' "$1" --latency "$pinned_latency" "${@:2}"
    return
  fi
  printf '%s\0' "$@"
}

# run <args...>: runs provpol, capturing status, stdout and stderr (with a timeout: no hang passes).
run() {
  out="$scratch/out" err="$scratch/err"
  local argv=()
  mapfile -d '' -t argv < <(with_pinned_latency "$@")
  timeout 60 "$PROVPOL" "${argv[@]}" >"$out" 2>"$err" </dev/null
  status=$?
}
fail() {
  failures=$((failures + 1))
  echo "FAIL: $*" >&2
  echo "  stdout: $(head -c 400 "$out")" >&2
  echo "  stderr: $(head -c 400 "$err")" >&2
}
# expect_ok <args...>: exit 0, nothing on stderr.
expect_ok() {
  checks=$((checks + 1))
  run "$@"
  [ "$status" -eq 0 ] && [ ! -s "$err" ] || fail "expected success: provpol $*"
}
# expect_missed <args...>: exit 3 (an answer printed that misses the target asked for), the answer on stdout.
expect_missed() {
  checks=$((checks + 1))
  run "$@"
  [ "$status" -eq 3 ] && [ -s "$out" ] || fail "expected exit 3 (target not met) with an answer on stdout (status $status): provpol $*"
}
# expect_usage <regex> <args...>: exit 2, exactly one line on stderr matching regex, nothing on stdout.
expect_usage() {
  local pattern=$1
  shift
  checks=$((checks + 1))
  run "$@"
  local lines
  lines=$(wc -l <"$err")
  if [ "$status" -ne 2 ] || [ "$lines" -ne 1 ] || [ -s "$out" ] || ! grep -Eq -- "$pattern" "$err"; then
    fail "expected exit 2, one stderr line matching /$pattern/, empty stdout (status $status, $lines lines): provpol $*"
  fi
}
# expect_stdout <regex>: the last run's stdout matches.
expect_stdout() {
  checks=$((checks + 1))
  grep -Eq -- "$1" "$out" || fail "stdout does not match /$1/"
}
# expect_stdout_line <n> <exact text>: line n of the last run's stdout is exactly the text.
expect_stdout_line() {
  checks=$((checks + 1))
  local got
  got=$(sed -n "${1}p" "$out")
  [ "$got" = "$2" ] || fail "stdout line $1 is '$got', expected '$2'"
}
# expect_joined <regex>: the last run's stdout, its wrapped lines joined (a line the text wrapped at 100 columns
# goes on under "  ", a comment under "#   "), matches.
expect_joined() {
  checks=$((checks + 1))
  awk 'NR > 1 && /^(  |#   )[^ ]/ { sub(/^(  |#   )/, ""); printf " %s", $0; next } NR > 1 { print "" } { printf "%s", $0 } END { print "" }' "$out" |
    grep -Eq -- "$1" || fail "stdout, its lines joined, does not match /$1/"
}
finish() {
  echo "$checks checks, $failures failed"
  [ "$failures" -eq 0 ]
  exit
}
