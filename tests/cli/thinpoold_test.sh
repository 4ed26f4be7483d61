#!/usr/bin/env bash
# provpol-thinpoold on the host, without device-mapper: fake dmsetup, lvs, lvextend and lvchange first on PATH feed
# it status lines (one per call, the last one repeated) and record every command it runs. Checks the decisions it
# acts on (the caps bind, so the amounts do not depend on the host's timing), --dry-run, --take-over (off at
# start, on again at exit, only when dmeventd monitored the pool), a failing lvextend, SIGINT/SIGTERM (exit 0,
# monitoring restored, nothing left running) and bad input (exit 2, one line naming the option).
# Usage: thinpoold_test.sh PROVPOL_THINPOOLD
source "$(dirname "$0")/lib.sh"

fake=$scratch/bin
mkdir -p "$fake"
export THINPOOLD_LOG=$scratch/commands.log THINPOOLD_STATUS=$scratch/status THINPOOLD_N=$scratch/n
export THINPOOLD_LVS="67108864,4194304,4194304,1073741824,monitored" THINPOOLD_LVEXTEND_RC=0 THINPOOLD_MISSING=""
cat >"$fake/dmsetup" <<'EOF'
#!/bin/sh
echo "dmsetup $*" >>"$THINPOOLD_LOG"
for m in $THINPOOLD_MISSING; do [ "$3" = "$m" ] && { echo "Device $m not found"; exit 1; }; done
n=$(cat "$THINPOOLD_N" 2>/dev/null || echo 0); n=$((n + 1)); echo $n >"$THINPOOLD_N"
lines=$(wc -l <"$THINPOOLD_STATUS")
[ "$n" -gt "$lines" ] && n=$lines
sed -n "${n}p" "$THINPOOLD_STATUS"
EOF
cat >"$fake/lvs" <<'EOF'
#!/bin/sh
echo "lvs $*" >>"$THINPOOLD_LOG"
echo "  $THINPOOLD_LVS"
EOF
cat >"$fake/lvextend" <<'EOF'
#!/bin/sh
echo "lvextend $*" >>"$THINPOOLD_LOG"
[ "$THINPOOLD_LVEXTEND_RC" = 0 ] || echo "  Insufficient free space: 1 extents needed, but only 0 available"
exit "$THINPOOLD_LVEXTEND_RC"
EOF
cat >"$fake/lvchange" <<'EOF'
#!/bin/sh
echo "lvchange $*" >>"$THINPOOLD_LOG"
EOF
chmod +x "$fake"/*
export PATH="$fake:$PATH"

# status USED...: one status line per value, a 64 MiB pool of 1024 blocks (64 KiB chunks).
status() {
  : >"$THINPOOLD_STATUS"
  rm -f "$THINPOOLD_N" "$THINPOOLD_LOG"
  touch "$THINPOOLD_LOG"
  for u in "$@"; do
    echo "0 131072 thin-pool 1 11/1024 $u/1024 - rw no_discard_passdown queue_if_no_space - 1024" >>"$THINPOOLD_STATUS"
  done
}
commands() { grep -v '^dmsetup\|^lvs' "$THINPOOLD_LOG" | tr '\n' ';'; }
check_commands() {  # check_commands EXPECTED WHAT
  checks=$((checks + 1))
  local got
  got=$(commands)
  [ "$got" = "$1" ] || fail "$2: commands '$got', expected '$1'"
}
base=(--vg vg --pool pool --interval 0.3)

# 1. A pool that fills fast (100 to 900 of 1024 blocks in 0.3 s, about 160 MiB/s): extend now, by far more than the
#    100 MiB cap leaves: 36 MiB (9 extents), limited by max-pool-size.
status 100 900
expect_ok "${base[@]}" --once --dry-run --max-pool-size 100MiB
expect_stdout ' decide used=900/1024 mode=rw free=8126464 .* outcome=extend-limited limit=max-pool-size add=37748736 new_size=104857600 vg_needed=37748736$'
expect_stdout ' dry-run: lvextend -L\+36864k vg/pool$'
check_commands "" "--dry-run runs nothing"
grep -q 'dmsetup status --noflush vg-pool-tpool' "$THINPOOLD_LOG" && ok=1 || ok=0
checks=$((checks + 1)); [ $ok = 1 ] || fail "the status is read from vg-pool-tpool"

# 2. The same, run, with --take-over: monitoring off, the extend, monitoring on again.
status 100 900
expect_ok "${base[@]}" --once --take-over --max-pool-size 100MiB
check_commands "lvchange --monitor n vg/pool;lvextend --config activation/monitoring=0 -L+36864k vg/pool;lvchange --monitor y vg/pool;" "--take-over"
expect_stdout ' extended: lvextend --config activation/monitoring=0 -L\+36864k vg/pool took=[0-9.]+ taken=37748736$'
# --take-over when dmeventd does not monitor the pool: nothing to turn off or back on.
THINPOOLD_LVS="67108864,4194304,4194304,1073741824,not monitored" status 100 900
THINPOOLD_LVS="67108864,4194304,4194304,1073741824,not monitored" expect_ok "${base[@]}" --once --take-over --max-pool-size 100MiB
check_commands "lvextend --config activation/monitoring=0 -L+36864k vg/pool;" "--take-over of an unmonitored pool"

# 3. The VG budget: --max-vg-take 8MiB takes 2 extents; a VG with 4 MiB free, one.
status 100 900
expect_ok "${base[@]}" --once --max-vg-take 8MiB
check_commands "lvextend -L+8192k vg/pool;" "--max-vg-take 8MiB"
expect_stdout 'outcome=extend-limited limit=max-vg-take'
THINPOOLD_LVS="67108864,4194304,4194304,4194304,monitored" status 100 900
THINPOOLD_LVS="67108864,4194304,4194304,4194304,monitored" expect_ok "${base[@]}" --once
check_commands "lvextend -L+4096k vg/pool;" "a VG with one free extent"
# No room at all (the pool at its cap): blocked, nothing run.
status 100 900
expect_ok "${base[@]}" --once --max-pool-size 64MiB
expect_stdout 'outcome=blocked limit=max-pool-size add=0'
check_commands "" "a pool at its cap"

# 4. A quiet pool: nothing; a full pool that no longer fills (its writes queued): one extent, the smallest extend.
status 500 500
expect_ok "${base[@]}" --once
check_commands "" "a quiet pool"
[ "$(wc -l <"$out")" = 2 ] && ok=1 || ok=0
checks=$((checks + 1)); [ $ok = 1 ] || fail "a quiet pool: only the start and stop lines"
status 1024 1024
expect_ok "${base[@]}" --once
check_commands "lvextend -L+4096k vg/pool;" "a full pool at rate 0"

# 5. lvextend fails: one line on stderr with its exit status and first line; the daemon goes on (--once: exits 0).
status 100 900
THINPOOLD_LVEXTEND_RC=5 run "${base[@]}" --once --max-pool-size 100MiB
checks=$((checks + 1))
[ "$status" = 0 ] && grep -q 'lvextend -L+36864k vg/pool failed (exit 5): *Insufficient free space' "$err" ||
  fail "a failing lvextend: status $status"
expect_stdout 'stopped: 0 extends, 1 failed, 0 bytes taken'

# 6. The device: vg-pool-tpool, else vg-pool (a pool without active thin volumes); names with '-' doubled.
status 100 100
THINPOOLD_MISSING="vg-pool-tpool" expect_ok "${base[@]}" --once
checks=$((checks + 1)); grep -q 'dmsetup status --noflush vg-pool$' "$THINPOOLD_LOG" || fail "the -tpool fallback"
status 100 100
expect_ok --vg my-vg --pool thin-pool --interval 0.1 --once
checks=$((checks + 1)); grep -q 'dmsetup status --noflush my--vg-thin--pool-tpool$' "$THINPOOLD_LOG" || fail "dm name escaping"
status 100
checks=$((checks + 1))
THINPOOLD_MISSING="vg-pool-tpool vg-pool" run "${base[@]}" --once
[ "$status" = 1 ] && [ "$(wc -l <"$err")" = 1 ] && grep -q 'vg-pool: Device vg-pool not found' "$err" ||
  fail "no such device: exit 1 with one line (status $status)"
status 100
checks=$((checks + 1))
printf '0 131072 thin-pool Fail\n' >"$THINPOOLD_STATUS"
run "${base[@]}" --once
[ "$status" = 1 ] && grep -q 'the pool reports Fail' "$err" || fail "a failed pool: exit 1 (status $status)"

# 7. SIGINT and SIGTERM: exit 0 at once, monitoring back on, no child left.
for sig in INT TERM; do
  status 100 100
  "$PROVPOL" --vg vg --pool pool --interval 0.1 --take-over >"$scratch/sig.out" 2>"$scratch/sig.err" &
  pid=$!
  sleep 1
  kill -$sig $pid
  for i in $(seq 30); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  checks=$((checks + 1))
  if kill -0 $pid 2>/dev/null; then
    fail "SIG$sig: still running after 3 s"
    kill -KILL $pid
  fi
  wait $pid
  rc=$?
  out=$scratch/sig.out err=$scratch/sig.err
  checks=$((checks + 1))
  [ $rc = 0 ] || fail "SIG$sig: exit status $rc"
  check_commands "lvchange --monitor n vg/pool;lvchange --monitor y vg/pool;" "SIG$sig"
  expect_stdout 'thinpoold: stopped: 0 extends'
  checks=$((checks + 1))
  pgrep -P $pid >/dev/null 2>&1 && fail "SIG$sig: a child is left"
done

# 8. Bad input: exit 2, one line on stderr naming the option and its range.
expect_usage '^provpol-thinpoold: --interval must be in \[0.01 s, 3600 s\], got 0 s$' --vg v --pool p --interval 0
expect_usage 'lead-factor.*\[1, 100\].*0.5' --vg v --pool p --lead-factor 0.5
expect_usage 'horizon' --vg v --pool p --horizon 0
expect_usage '^provpol-thinpoold: --vg and --pool are required' --pool p
expect_usage '^provpol-thinpoold: unknown option --bogus' --vg v --pool p --bogus 1
expect_usage '^provpol-thinpoold: --status must be dmsetup or ioctl' --vg v --pool p --status x
expect_usage 'max-pool-size' --vg v --pool p --max-pool-size lots
expect_usage '^provpol-thinpoold: --interval needs a value' --vg v --pool p --interval
expect_ok --help
expect_stdout '^usage: provpol-thinpoold --vg VG --pool POOL'
finish
