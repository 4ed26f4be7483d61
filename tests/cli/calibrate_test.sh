#!/usr/bin/env bash
# CLI tests of `provpol calibrate`, one case per property of a calibrator that can never destroy data (a calibrator's safety properties,
# section 4): it refuses every path that is not a directory it can write, never opens an existing file for
# writing, checks free space first, and leaves nothing behind on success, on error, on SIGINT and on SIGTERM.
#   calibrate_test.sh PATH/TO/provpol CASE        exit 0 pass, 1 fail, 77 skipped (says why)
set -u
provpol=$1
case_name=$2
work=$(mktemp -d /tmp/provpol-calibrate-test.XXXXXX)
cleanup() {
  chattr -i "$work/immutable" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
skip() {
  echo "SKIP: $*" >&2
  exit 77
}

# run ARGS...: runs provpol calibrate, leaving $out, $err, $rc.
run() {
  "$provpol" calibrate "$@" >"$work/out" 2>"$work/err"
  rc=$?
  out=$(cat "$work/out")
  err=$(cat "$work/err")
}

# expect_refusal WHAT PATTERN ARGS...: exit 2, one line on stderr matching PATTERN, nothing on stdout.
expect_refusal() {
  local what=$1 pattern=$2
  shift 2
  run "$@"
  [ "$rc" -eq 2 ] || fail "$what: exit $rc, expected 2 (stderr: $err)"
  [ -z "$out" ] || fail "$what: stdout not empty"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "$what: stderr is not one line: $err"
  printf '%s' "$err" | grep -q -- "$pattern" || fail "$what: stderr '$err' does not match '$pattern'"
}

# empty_dir DIR WHAT: DIR has no entries left.
empty_dir() {
  local left
  left=$(ls -A "$1")
  [ -z "$left" ] || fail "$2: left behind in $1: $left"
}

# any_block_device: the first block device node in /dev (never written: calibrate refuses it before opening).
any_block_device() {
  local d
  for d in /dev/loop0 /dev/vda /dev/sda /dev/nvme0n1 /dev/*; do
    [ -b "$d" ] && { echo "$d"; return 0; }
  done
  return 1
}

# LeakSanitizer cannot run under ptrace: traced runs of a sanitized build turn it off.
traced_env=(env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0")

# writes_opened LOG: openat/open calls recorded by strace in LOG that could write.
writes_opened() { grep -E 'open(at)?\(.*O_(WRONLY|RDWR)' "$1"; }

quick=(--bytes 1MiB --sizes 4KiB,64KiB --runs 1 --mode buffered)

case $case_name in
tmp_16MiB)
  # The issue's command, exactly: runs in seconds here and leaves nothing behind in /tmp.
  before=$(ls -A /tmp | grep -c '^\.provpol-calibrate-')
  run --path /tmp --bytes 16MiB
  [ "$rc" -eq 0 ] || fail "exit $rc: $err"
  [ -z "$err" ] || fail "stderr is not a terminal, yet something was printed there: $err"
  printf '%s' "$out" | grep -q '^ *4KiB  *4096  ' || fail "no seed-style row for 4KiB x 4096"
  printf '%s' "$out" | grep -q '^ *4MiB  *4  ' || fail "no seed-style row for 4MiB x 4"
  printf '%s' "$out" | grep -q '^model  t0 = .* us per write, B = .* MB/s' || fail "no fitted model in the output"
  printf '%s' "$out" | grep -q '^rule   .*: the smallest size whose median reaches 95% of the best' || fail "no rule line"
  printf '%s' "$out" | grep -q '^chunk  [0-9.]*[KM]iB (the rule' || fail "no chunk line"
  after=$(ls -A /tmp | grep -c '^\.provpol-calibrate-')
  [ "$after" -le "$before" ] || fail "scratch files left in /tmp: $(ls -A /tmp | grep '^\.provpol-calibrate-')"
  ;;
formats_and_samples)
  mkdir "$work/d"
  run --path "$work/d" "${quick[@]}" --format csv --save-samples "$work/samples.csv"
  [ "$rc" -eq 0 ] || fail "csv: exit $rc: $err"
  case "$out" in chunk_size,decided_by,*) ;; *) fail "csv does not start with chunk_size,decided_by" ;; esac
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 2 ] || fail "csv is not a header and one row"
  [ "$(head -1 "$work/samples.csv")" = "block_size,mb_per_s" ] || fail "saved samples header"
  [ "$(tail -n +2 "$work/samples.csv" | wc -l)" -eq 2 ] || fail "saved samples: expected 2 runs"
  rule=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "rule_block_size") c = i } NR == 2 { print $c }' <<<"$out")
  # The saved samples feed back into provpol chunk, which reaches the same rule.
  chunk_out=$("$provpol" chunk --samples "$work/samples.csv" --format csv) || fail "chunk --samples failed"
  rule2=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "rule_block_size") c = i } NR == 2 { print $c }' <<<"$chunk_out")
  [ -n "$rule" ] && [ "$rule" = "$rule2" ] || fail "rule from calibrate '$rule' vs from the saved samples '$rule2'"
  run --path "$work/d" "${quick[@]}" --format json
  [ "$rc" -eq 0 ] || fail "json: exit $rc: $err"
  if command -v python3 >/dev/null; then
    python3 -c 'import json, sys; d = json.load(sys.stdin); assert isinstance(d, list) and len(d) == 1; assert d[0]["chunk_size"] > 0; assert len(d[0]["runs"]) == 2' \
      <<<"$out" || fail "json is not an array of one object with chunk_size and runs"
  fi
  for mode in direct direct-dsync buffered buffered-dsync; do
    run --path "$work/d" --bytes 256KiB --sizes 4KiB,16KiB --runs 1 --mode "$mode" --format csv
    if [ "$rc" -eq 2 ] && printf '%s' "$err" | grep -q "does not accept O_DIRECT"; then
      echo "note: $mode: $err" >&2
      continue
    fi
    [ "$rc" -eq 0 ] || fail "--mode $mode: exit $rc: $err"
    printf '%s' "$out" | grep -q ",$mode," || fail "--mode $mode: mode not in the csv"
  done
  empty_dir "$work/d" "formats"
  ;;
bad_input)
  mkdir "$work/d"
  expect_refusal "no --path" "--path is required" --bytes 1MiB
  expect_refusal "runs 0" "--runs must be in \[1, 100\], got 0" --path "$work/d" --runs 0
  expect_refusal "mode" "--mode: unknown value 'fast'" --path "$work/d" --mode fast
  expect_refusal "size twice" "--sizes: 4KiB is given twice" --path "$work/d" --sizes 4KiB,4KiB
  expect_refusal "size too small" "--sizes: 100 is below 512 bytes" --path "$work/d" --sizes 100
  expect_refusal "size above bytes" "--sizes: 8MiB is larger than --bytes (1MiB)" --path "$work/d" --bytes 1MiB --sizes 8MiB
  expect_refusal "negative bytes" "sizes cannot be negative" --path "$work/d" --bytes -1
  expect_refusal "fraction" "--target-fraction must be in" --path "$work/d" --target-fraction 2
  expect_refusal "unknown flag" "unknown option '--device'" --device /dev/sda
  expect_refusal "save into a directory" "--save-samples: '$work/d' is a directory" --path "$work/d" --save-samples "$work/d"
  expect_refusal "save under a missing directory" "--save-samples: the directory of" --path "$work/d" \
    --save-samples "$work/missing/s.csv"
  empty_dir "$work/d" "bad input"
  ;;
refuses_block_device)
  dev=$(any_block_device) || skip "no block device node in /dev"
  if command -v strace >/dev/null; then
    "${traced_env[@]}" strace -f -o "$work/trace" -e trace=open,openat,creat "$provpol" calibrate --path "$dev" --bytes 1MiB \
      >"$work/out" 2>"$work/err"
    rc=$?
    [ "$rc" -eq 2 ] || fail "$dev under strace: exit $rc"
    if grep -F "\"$dev\"" "$work/trace" | grep -Eq 'O_(WRONLY|RDWR)'; then fail "$dev was opened for writing"; fi
  fi
  expect_refusal "block device $dev" "'$dev' is a block device" --path "$dev" --bytes 1MiB
  ;;
refuses_symlink_to_block_device)
  dev=$(any_block_device) || skip "no block device node in /dev"
  ln -s "$dev" "$work/link"
  expect_refusal "symlink to $dev" "is a symbolic link to a block device" --path "$work/link" --bytes 1MiB
  ;;
refuses_char_device)
  expect_refusal "/dev/null" "'/dev/null' is a character device" --path /dev/null --bytes 1MiB
  ;;
refuses_regular_file)
  printf 'precious data\n' >"$work/file"
  touch -d '2020-01-01 00:00:00' "$work/file"
  expect_refusal "regular file" "is a regular file; calibrate writes only a new file" --path "$work/file" --bytes 1MiB
  [ "$(cat "$work/file")" = "precious data" ] || fail "the file's content changed"
  [ "$(stat -c %Y "$work/file")" = "$(date -d '2020-01-01 00:00:00' +%s)" ] || fail "the file's mtime changed"
  ln -s "$work/file" "$work/link"
  expect_refusal "symlink to a regular file" "is a symbolic link to a regular file" --path "$work/link" --bytes 1MiB
  ;;
refuses_unwritable_dir)
  mkdir "$work/immutable"
  if [ "$(id -u)" -eq 0 ]; then
    # Root writes anywhere permissions allow nothing; an immutable directory (chattr +i) stops even root.
    chattr +i "$work/immutable" 2>/dev/null || skip "chattr +i is not supported here (filesystem or capability)"
    expect_refusal "immutable directory" "cannot create a file in '$work/immutable': Operation not permitted" \
      --path "$work/immutable" "${quick[@]}"
    chattr -i "$work/immutable"
  else
    chmod 555 "$work/immutable"
    expect_refusal "read-only directory" "cannot create a file in '$work/immutable': Permission denied" \
      --path "$work/immutable" "${quick[@]}"
  fi
  empty_dir "$work/immutable" "unwritable directory"
  ;;
refuses_read_only_filesystem)
  # A read-only tmpfs in a private mount namespace: it vanishes with the namespace, whatever happens.
  mkdir "$work/ro"
  unshare -m true 2>/dev/null || skip "cannot create a mount namespace (unshare -m)"
  unshare -m bash -c 'mount -t tmpfs -o ro,size=1m tmpfs "$1" && exec "$2" calibrate --path "$1" --bytes 64KiB --sizes 4KiB' \
    _ "$work/ro" "$provpol" >"$work/out" 2>"$work/err"
  rc=$?
  err=$(cat "$work/err")
  if [ "$rc" -ne 2 ] && printf '%s' "$err" | grep -q "mount"; then skip "cannot mount a tmpfs: $err"; fi
  [ "$rc" -eq 2 ] || fail "read-only filesystem: exit $rc ($err)"
  printf '%s' "$err" | grep -q "is on a read-only filesystem" || fail "read-only filesystem: stderr '$err'"
  ;;
refuses_when_space_is_short)
  mkdir "$work/d"
  # More than any filesystem has: refused before anything is created.
  expect_refusal "1EiB" "--bytes: writing 1EiB in '$work/d' needs more than the" --path "$work/d" --bytes 1EiB --sizes 1MiB
  empty_dir "$work/d" "1EiB"
  # A filesystem the test owns (an 8 MiB tmpfs in a private mount namespace): 7.8 MiB fits but would leave less
  # than 5% free, 1 MiB is fine. No write can reach a real disk, even if the check were wrong.
  mkdir "$work/small"
  if unshare -m true 2>/dev/null; then
    unshare -m bash -c '
      mount -t tmpfs -o size=8m tmpfs "$1" || exit 99
      "$2" calibrate --path "$1" --bytes 7.75MiB --sizes 64KiB --mode buffered >"$3/out1" 2>"$3/err1"; echo $? >"$3/rc1"
      "$2" calibrate --path "$1" --bytes 1MiB --sizes 64KiB --runs 1 --mode buffered >"$3/out2" 2>"$3/err2"; echo $? >"$3/rc2"
      ls -A "$1" >"$3/left"' _ "$work/small" "$provpol" "$work"
    if [ -f "$work/rc1" ]; then
      [ "$(cat "$work/rc1")" -eq 2 ] || fail "7.75MiB on an 8MiB tmpfs: exit $(cat "$work/rc1")"
      grep -q "would leave .* free, less than 5% of the filesystem" "$work/err1" || fail "margin message: $(cat "$work/err1")"
      [ "$(cat "$work/rc2")" -eq 0 ] || fail "1MiB on an 8MiB tmpfs: exit $(cat "$work/rc2"): $(cat "$work/err2")"
      [ ! -s "$work/left" ] || fail "left on the tmpfs: $(cat "$work/left")"
    else
      echo "note: could not mount a tmpfs; the margin case was not run" >&2
    fi
  else
    echo "note: no mount namespace; the margin case was not run" >&2
  fi
  ;;
cleans_up_on_error)
  # An error after the scratch file exists: a size O_DIRECT cannot use here (checked against statx's alignment
  # once the file is open), or a filesystem without O_DIRECT.
  mkdir "$work/d"
  run --path "$work/d" --bytes 1MiB --sizes 100000 --mode direct
  [ "$rc" -eq 2 ] || fail "misaligned direct size: exit $rc ($err)"
  printf '%s' "$err" | grep -Eq "not a multiple of|does not accept O_DIRECT" || fail "misaligned direct size: stderr '$err'"
  empty_dir "$work/d" "error"
  ;;
cleans_up_on_sigint | cleans_up_on_sigterm)
  sig=INT
  want=130
  if [ "$case_name" = cleans_up_on_sigterm ]; then
    sig=TERM
    want=143
  fi
  mkdir "$work/d"
  # Long enough to be interrupted: O_DSYNC writes of 4 KiB, 256 MiB of them per run.
  "$provpol" calibrate --path "$work/d" --bytes 256MiB --mode buffered-dsync >"$work/out" 2>"$work/err" &
  pid=$!
  sleep 1
  kill -0 "$pid" 2>/dev/null || fail "calibrate ended before the signal: $(cat "$work/err")"
  # While it runs, the scratch file has no name: the directory is already empty.
  empty_dir "$work/d" "while running"
  ls -l "/proc/$pid/fd" 2>/dev/null | grep -q 'provpol-calibrate-.*(deleted)' ||
    echo "note: the open scratch file was not seen in /proc/$pid/fd" >&2
  kill -"$sig" "$pid"
  wait "$pid"
  rc=$?
  [ "$rc" -eq "$want" ] || fail "SIG$sig: exit $rc, expected $want (killed by the signal)"
  [ ! -s "$work/out" ] || fail "SIG$sig: something was printed on stdout"
  empty_dir "$work/d" "SIG$sig"
  ;;
progress_only_on_a_terminal)
  # stderr on a terminal (script(1) provides one): progress lines, cleared at the end; stdout unchanged.
  command -v script >/dev/null || skip "script(1) is not installed"
  mkdir "$work/d"
  script -qec "'$provpol' calibrate --path '$work/d' ${quick[*]} >'$work/out'" "$work/typescript" >/dev/null
  rc=$?
  [ "$rc" -eq 0 ] || fail "under script: exit $rc"
  grep -q 'provpol calibrate: run 1/1, 4KiB writes (1/2)' "$work/typescript" || fail "no progress on the terminal"
  grep -q '^ *4KiB  *256  ' "$work/out" || fail "stdout lacks the table"
  if grep -q 'provpol calibrate: run' "$work/out"; then fail "progress reached stdout"; fi
  # Not a terminal: nothing on stderr (checked with a file).
  run --path "$work/d" "${quick[@]}"
  [ "$rc" -eq 0 ] && [ -z "$err" ] || fail "stderr is a file, yet got: $err"
  empty_dir "$work/d" "progress"
  ;;
never_opens_an_existing_file)
  command -v strace >/dev/null || skip "strace is not installed"
  mkdir "$work/d"
  "${traced_env[@]}" strace -f -o "$work/trace" -e trace=open,openat,creat,unlink,unlinkat \
    "$provpol" calibrate --path "$work/d" "${quick[@]}" >/dev/null 2>"$work/err" || fail "calibrate failed: $(cat "$work/err")"
  opens=$(writes_opened "$work/trace")
  # Exactly one open for writing: the scratch file, new (O_CREAT|O_EXCL), never through a link (O_NOFOLLOW).
  [ "$(printf '%s\n' "$opens" | grep -c .)" -eq 1 ] || fail "opens for writing: $opens"
  printf '%s' "$opens" | grep -q 'O_CREAT' && printf '%s' "$opens" | grep -q 'O_EXCL' &&
    printf '%s' "$opens" | grep -q 'O_NOFOLLOW' || fail "scratch open without O_CREAT|O_EXCL|O_NOFOLLOW: $opens"
  printf '%s' "$opens" | grep -q '\.provpol-calibrate-' || fail "the open for writing is not the scratch file: $opens"
  grep -q 'unlinkat(.*\.provpol-calibrate-.*= 0' "$work/trace" || fail "the scratch file was not unlinked"
  empty_dir "$work/d" "strace run"
  ;;
*)
  echo "unknown case $case_name" >&2
  exit 2
  ;;
esac

if [ "$failures" -ne 0 ]; then
  echo "$case_name: $failures failure(s)" >&2
  exit 1
fi
echo "calibrate $case_name: passed"
