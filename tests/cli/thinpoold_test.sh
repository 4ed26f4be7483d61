#!/usr/bin/env bash
# provpol-thinpoold on the host, without device-mapper: fake dmsetup, lvs, lvextend, lvchange and lvmconfig first on
# PATH keep a pool in files ($TP: its size, metadata size, the VG's free space, whether dmeventd monitors it) that
# lvextend grows and lvchange (un)monitors, answer status lines from it (used blocks from a list, one per call, or
# from a writer at a fixed rate), record every command, and misbehave on request: a failing, hung, no-op,
# grow-then-fail lvextend, one that ignores SIGTERM or leaves a child holding its output, a bad status, a failing
# lvchange. Checks the daemon's decisions where the caps bind (so the amounts do not depend on the host's timing),
# and that it fails closed: every stop signal gives dmeventd's monitoring back, SIGPIPE does not kill it, a kill is
# repaired by --restore and by the next start, commands are bounded, every extend is verified and what it really
# took is counted across restarts, bad status and names are refused, one daemon per pool, a full pool catches up.
# Usage: thinpoold_test.sh PROVPOL_THINPOOLD
source "$(dirname "$0")/lib.sh"

fake=$scratch/bin
TP=$scratch/pool
mkdir -p "$fake" "$TP"
export TP
MiB=1048576
cat >"$fake/dmsetup" <<'EOF'
#!/bin/sh
echo "dmsetup $*" >>"$TP/log"
for a; do dev=$a; done
for m in $TP_MISSING; do [ "$dev" = "$m" ] && { echo "Device $dev not found"; exit 1; }; done
[ "$1" = status ] && [ -n "$TP_DMSETUP_HANG" ] && sleep 60
if [ "$1" = info ]; then
  [ -n "$TP_UUID" ] && { echo "$TP_UUID"; exit 0; }
  echo "LVM-$(tr -d - <"$TP/vg_uuid")$(tr -d - <"$TP/lv_uuid")-tpool"
  exit 0
fi
[ -n "$TP_STATUS_RAW" ] && { printf '%b\n' "$TP_STATUS_RAW"; exit 0; }
size=$(cat "$TP/size") meta=$(cat "$TP/meta")
total=$((size / 65536)) mtotal=$((meta / 4096))
if [ -n "$TP_WRITER" ]; then  # bytes queued at the start, then RATE bytes/s from the first call
  now=$(date +%s.%N)
  [ -f "$TP/t0" ] || echo "$now" >"$TP/t0"
  used=$(awk -v t0="$(cat "$TP/t0")" -v now="$now" -v w="$TP_WRITER" 'BEGIN { split(w, a, ":"); printf "%d", (a[1] + a[2] * (now - t0)) / 65536 }')
else
  n=$(($(cat "$TP/n" 2>/dev/null || echo 0) + 1)); echo $n >"$TP/n"
  lines=$(wc -l <"$TP/used"); [ "$n" -gt "$lines" ] && n=$lines
  used=$(sed -n "${n}p" "$TP/used")
fi
[ "$used" -gt "$total" ] && used=$total
mode=rw; [ "$used" -eq "$total" ] && mode=out_of_data_space
echo "0 $((size / 512)) thin-pool 1 ${TP_META_USED:-11}/$mtotal $used/$total - $mode no_discard_passdown queue_if_no_space - 1024"
EOF
cat >"$fake/lvs" <<'EOF'
#!/bin/sh
echo "lvs $*" >>"$TP/log"
[ -f "$TP/lvs_fail" ] && { echo "  Volume group \"vg\" not found" >&2; exit 5; }
echo "  LVM2_LV_SIZE='$(cat "$TP/size")' LVM2_LV_METADATA_SIZE='$(cat "$TP/meta")' LVM2_VG_EXTENT_SIZE='4194304' LVM2_VG_FREE='$(cat "$TP/vgfree")' LVM2_CHUNK_SIZE='65536' LVM2_SEG_MONITOR='$(cat "$TP/monitor")' LVM2_LV_UUID='$(cat "$TP/lv_uuid")' LVM2_VG_UUID='$(cat "$TP/vg_uuid")' LVM2_SEGTYPE='thin-pool' LVM2_LV_PROFILE=''"
EOF
cat >"$fake/lvextend" <<'EOF'
#!/bin/sh
echo "lvextend $*" >>"$TP/log"
mode=${TP_LVEXTEND:-ok}
case $mode in
  hang) sleep 60; exit 0 ;;
  hangterm) trap '' TERM; echo $$ >"$TP/hung.pid"; while :; do sleep 1; done ;;
  fail) echo "  Insufficient free space: 1 extents needed, but only 0 available" >&2; exit 5 ;;
  noop) exit 0 ;;
esac
add=0 madd=0 prev=""
for a; do
  case $a in -L+*k) add=${a#-L+}; add=$((${add%k} * 1024)) ;; esac
  [ "$prev" = --poolmetadatasize ] && { madd=${a#+}; madd=$((${madd%k} * 1024)); }
  prev=$a
done
free=$(cat "$TP/vgfree")
[ $((add + madd)) -gt "$free" ] && { echo "  Insufficient free space" >&2; exit 5; }
echo $(($(cat "$TP/size") + add)) >"$TP/size"
echo $(($(cat "$TP/meta") + madd)) >"$TP/meta"
echo $((free - add - madd)) >"$TP/vgfree"
case $mode in
  growfail) echo "  Failed to update pool vg/pool." >&2; exit 5 ;;
  child) sleep 60 & echo $! >"$TP/child.pid" ;;  # the child keeps stdout and stderr, the daemon's pipe, open
  growhang) echo $$ >"$TP/hung.pid"; exec sleep 60 ;;
esac
exit 0
EOF
cat >"$fake/lvchange" <<'EOF'
#!/bin/sh
echo "lvchange $*" >>"$TP/log"
case " $* " in
  *" --monitor y "*) [ "$TP_LVCHANGE_Y" = fail ] && { echo "  Failed to monitor" >&2; exit 5; }; echo monitored >"$TP/monitor" ;;
  *" --monitor n "*) echo "not monitored" >"$TP/monitor" ;;
esac
EOF
cat >"$fake/lvm" <<'EOF'
#!/bin/sh
# lvm2's shell as the daemon drives it (a pipe on stdin: no prompt): one command a line, run by the fakes here; a
# name no command has says so on stderr.
echo "lvm" >>"$TP/shell.log"
echo $$ >"$TP/shell.pid"
printf 'Cannot read termcap database;\nusing dumb terminal settings.\n' >&2  # what Debian's lvm says first
while IFS= read -r line; do
  set -- $line
  case $1 in
    lvs | lvextend | lvchange | lvmconfig) "$@" ;;
    *) echo "  No such command '$1'.  Try 'help'." >&2 ;;
  esac
done
EOF
cat >"$fake/lvmconfig" <<'EOF'
#!/bin/sh
echo "lvmconfig $*" >>"$TP/log"
echo "thin_pool_autoextend_threshold=${TP_THRESHOLD:-100}"
echo "thin_pool_autoextend_percent=${TP_PERCENT:-20}"
EOF
chmod +x "$fake"/*
export PATH="$fake:$PATH" TP_MISSING="" TP_UUID="" TP_STATUS_RAW="" TP_DMSETUP_HANG="" TP_WRITER="" TP_LVCHANGE_Y=""
state=$scratch/state lock=$scratch/lock

# pool SIZE_MIB USED...: a new pool of SIZE MiB (4 MiB of metadata, 1 GiB free in the VG, monitored), its status
# one USED value a call (the last repeated); the state and the log emptied.
pool() {
  echo $(($1 * MiB)) >"$TP/size"
  shift
  echo $((4 * MiB)) >"$TP/meta"
  echo $((1024 * MiB)) >"$TP/vgfree"
  echo monitored >"$TP/monitor"
  echo "Abcdef-1234-5678-9abc-def0-1234-567890" >"$TP/lv_uuid"
  echo "Vgvgvg-1234-5678-9abc-def0-1234-567890" >"$TP/vg_uuid"
  printf '%s\n' "$@" >"$TP/used"
  rm -rf "$TP/n" "$TP/t0" "$TP/lvs_fail" "$state" "$TP/log"
  touch "$TP/log"
}
commands() { grep -v '^dmsetup\|^lvs \|^lvmconfig' "$TP/log" | tr '\n' ';'; }
check() {  # check WHAT COMMAND...: counts a check, fails with WHAT when COMMAND fails
  local what=$1
  shift
  checks=$((checks + 1))
  "$@" || fail "$what"
}
check_commands() { check "$2: commands '$(commands)', expected '$1'" [ "$(commands)" = "$1" ]; }
monitor_is() { [ "$(cat "$TP/monitor")" = "$1" ]; }
state_field() { sed -n "s/^$1=//p" "$state/vg-pool.state"; }
size_mib() { echo $(($(cat "$TP/size") / MiB)); }
base=(--vg vg --pool pool --interval 0.1 --state-dir "$state" --lock-dir "$lock" --min-free 0)

# 1. A pool that fills fast (100 to 900 of 1024 blocks in 0.3 s, about 160 MiB/s): extend now, by far more than the
#    100 MiB cap leaves: 36 MiB (9 extents), limited by max-pool-size. --dry-run runs nothing and writes no state.
pool 64 100 900
expect_ok "${base[@]}" --once --dry-run --max-pool-size 100MiB
expect_stdout 'decide used=900/1024 mode=rw free=8126464 .* outcome=extend-limited limit=max-pool-size add=37748736 new_size=104857600 vg_needed=37748736$'
expect_stdout 'dry-run: lvextend -L\+36864k -- vg/pool$'
check_commands "" "--dry-run runs nothing"
check "--dry-run writes no state" [ ! -e "$state" ]
check "the status is read from vg-pool-tpool, after --" grep -q 'dmsetup status --noflush -- vg-pool-tpool' "$TP/log"
check "lvs is asked for the pool after --" grep -q '^lvs .* -- vg/pool$' "$TP/log"

# 2. The same, run, with --take-over: monitoring off, the extend verified, monitoring on again; the state says what
#    was taken and that the monitoring is back.
pool 64 100 900
expect_ok "${base[@]}" --once --take-over --max-pool-size 100MiB
check_commands "lvchange --monitor n -- vg/pool;lvextend --config activation/monitoring=0 -L+36864k -- vg/pool;lvchange --monitor y -- vg/pool;" "--take-over"
expect_stdout 'extended: lvextend --config activation/monitoring=0 -L\+36864k -- vg/pool took=[0-9.]+ taken=37748736$'
check "--take-over: monitored at the end" monitor_is monitored
check "the state holds what was taken ($(state_field taken))" [ "$(state_field taken)" = 37748736 ]
check "the state says the monitoring is back" [ "$(state_field monitoring_off)" = 0 ]
# --take-over when dmeventd does not monitor the pool: nothing to turn off or back on.
pool 64 100 900
echo "not monitored" >"$TP/monitor"
expect_ok "${base[@]}" --once --take-over --max-pool-size 100MiB
check_commands "lvextend --config activation/monitoring=0 -L+36864k -- vg/pool;" "--take-over of an unmonitored pool"
check "an unmonitored pool stays unmonitored" monitor_is "not monitored"

# 3. The VG budget: --max-vg-take 8MiB takes 2 extents; a VG with 4 MiB free, one; no room, blocked.
pool 64 100 900
expect_ok "${base[@]}" --once --max-vg-take 8MiB
check_commands "lvextend -L+8192k -- vg/pool;" "--max-vg-take 8MiB"
expect_stdout 'outcome=extend-limited limit=max-vg-take'
pool 64 100 900
echo $((4 * MiB)) >"$TP/vgfree"
expect_ok "${base[@]}" --once
check_commands "lvextend -L+4096k -- vg/pool;" "a VG with one free extent"
pool 64 100 900
run "${base[@]}" --once --max-pool-size 64MiB
check "a pool at its cap: blocked, said on stderr, nothing run (status $status)" \
  grep -q 'outcome=blocked limit=max-pool-size add=0' "$err"
check_commands "" "a pool at its cap"

# 4. A quiet pool: nothing. The floor: the default keeps 10% free (a pool 95% used at rate 0 is grown by it).
pool 64 500 500
expect_ok "${base[@]}" --once
check_commands "" "a quiet pool"
pool 64 973 973
expect_ok --vg vg --pool pool --interval 0.3 --state-dir "$state" --lock-dir "$lock" --once
check_commands "lvextend -L+4096k -- vg/pool;" "a quiet pool under its 10% floor: (6.4 - 3.3) MiB / 0.9, one extent"
expect_stdout 'floor=6710886 '
# --burst-rate: a quiet pool is kept ready for a writer that starts at 64 MiB/s. Lead 1 x 0.5 s + 0.1 s: under
# 38.4 MiB free it is grown to 64 MiB/s x (0.6 + 1) s = 102.4 MiB free. 400 of 1024 blocks used leave 39 MiB: none;
# 500 leave 32.75 MiB: 69.65 MiB short, 18 extents (the log's rate is the one decided on). Without --burst-rate the
# same pool is quiet.
burst=(--burst-rate 64MiB/s --lvextend-time 0.5 --lead-factor 1 --horizon 1s --max-vg-take 1GiB --max-pool-size 1GiB)
pool 64 400 400
expect_ok "${base[@]}" --once "${burst[@]}"
check_commands "" "--burst-rate, 39 MiB free"
pool 64 500 500
expect_ok "${base[@]}" --once "${burst[@]}"
check_commands "lvextend -L+73728k -- vg/pool;" "--burst-rate 64MiB/s, 32.75 MiB free"
expect_stdout 'decide used=500/1024 mode=rw free=34340864 floor=0 rate=67108864 '
pool 64 500 500
expect_ok "${base[@]}" --once --lvextend-time 0.5 --lead-factor 1 --horizon 1s
check_commands "" "no --burst-rate, 32.75 MiB free at rate 0"

# 5. Verify, do not trust: every lvextend is read back.
#    A failing lvextend: one line with its exit status and first line, nothing taken, the daemon goes on.
pool 64 100 900
TP_LVEXTEND=fail run "${base[@]}" --once --max-pool-size 100MiB
check "a failing lvextend: exit 0, reported (status $status)" grep -q 'lvextend -L+36864k -- vg/pool grew vg/pool by 0 bytes, less than asked (exit [15]: *Insufficient free space' "$err"
expect_stdout 'stopped: 0 extends, 1 failed, 0 bytes taken'
check "a failing lvextend is read back with lvs" [ "$(grep -c '^lvs ' "$TP/log")" -ge 2 ]
#    A no-op lvextend (exit 0, nothing grown) is a failure, and nothing is booked as taken.
pool 64 100 900
TP_LVEXTEND=noop run "${base[@]}" --once --max-pool-size 100MiB
check "a no-op lvextend is a failure (status $status)" grep -q 'grew vg/pool by 0 bytes, less than asked (exit 0' "$err"
check "a no-op lvextend takes nothing ($(state_field taken))" [ "$(state_field taken)" = 0 ]
#    An lvextend that grows the pool and exits 5: what it grew is taken; it did what was asked.
pool 64 100 900
TP_LVEXTEND=growfail run "${base[@]}" --once --max-pool-size 100MiB
check "grow-then-fail: counted ($(state_field taken))" [ "$(state_field taken)" = 37748736 ]
check "grow-then-fail: said (status $status)" grep -Eq 'exit [15]: *Failed to update pool vg/pool., but the pool grew as asked' "$out"
#    Failures back off (the interval doubled each time) and three in a row hand the pool back to dmeventd.
pool 64 100 900 1000
TP_LVEXTEND=fail "$PROVPOL" "${base[@]}" --interval 0.05 --take-over --max-pool-size 100MiB >"$scratch/b.out" 2>"$scratch/b.err" &
pid=$!
for i in $(seq 150); do grep -q 'handing vg/pool back' "$scratch/b.err" && break; sleep 0.1; done
sleep 0.3
kill -TERM $pid
wait $pid
rc=$?
check "failures back off: the interval doubled each time ($(grep -o 'next extend in [0-9.]* s' "$scratch/b.err" | head -3 | tr '\n' ' '))" \
  [ "$(grep -o 'next extend in [0-9.]* s' "$scratch/b.err" | head -3 | tr '\n' ' ')" = "next extend in 0.100 s next extend in 0.200 s next extend in 0.400 s " ]
check "three failures in a row: an error, the pool handed back" grep -q '3 in a row.*handing vg/pool back to dmeventd' "$scratch/b.err"
check "handed back after the third failure: monitored" monitor_is monitored
check "handed back: the extends after it run with monitoring on" \
  [ "$(sed -n '/--monitor y/,$p' "$TP/log" | grep -c 'lvextend --config')" = 0 ]
check "exit 0 after a SIGTERM ($rc)" [ $rc = 0 ]

# 6. Caps that survive restarts: five --once runs with --max-vg-take 16MiB take 16 MiB in all, not 80; a kill
#    between the state's pending mark and lvs is counted at the next start; --reset-state starts over.
pool 64 100 1000
for i in 1 2 3 4 5; do rm -f "$TP/n"; run "${base[@]}" --once --max-vg-take 16MiB; done
check "five restarts, --max-vg-take 16MiB: the pool grew $(($(size_mib) - 64)) MiB" [ "$(size_mib)" = 80 ]
check "five restarts: the state's taken is 16 MiB ($(state_field taken))" [ "$(state_field taken)" = $((16 * MiB)) ]
check "five restarts: the last is blocked by the cap" grep -q 'outcome=blocked limit=max-vg-take' "$err"
pool 64 100 1000
for i in 1 2 3; do rm -f "$TP/n"; run "${base[@]}" --once; done
check "the default caps are absolute: the pool size when first seen, taken once ($(size_mib) MiB)" [ "$(size_mib)" = 128 ]
rm -f "$TP/n"
run "${base[@]}" --once --reset-state
check "--reset-state: the accounting starts over, the pool may grow again ($(size_mib) MiB)" [ "$(size_mib)" -gt 128 ]
check "--reset-state: the new base is the size it had then" [ "$(state_field first_size)" = $((128 * MiB)) ]
pool 64 100 900
TP_LVEXTEND=growhang "$PROVPOL" "${base[@]}" --take-over --max-pool-size 100MiB >/dev/null 2>&1 &
pid=$!
for i in $(seq 300); do [ -s "$TP/hung.pid" ] && break; sleep 0.1; done
kill -KILL $pid
wait $pid 2>/dev/null
kill "$(cat "$TP/hung.pid")"
check "SIGKILL during an lvextend: the state holds the size before it" [ "$(state_field pending)" = $((68 * MiB)) ]
run "${base[@]}" --once --max-pool-size 100MiB
check "...the next start counts what it grew ($(state_field taken))" [ "$(state_field taken)" = $((36 * MiB)) ]
check "...and gives dmeventd its monitoring back" monitor_is monitored
rm -f "$TP/hung.pid"

# 7. Bounded commands, run one process each (--lvm-shell no) and in the lvm shell. A hung lvextend is killed (its
#    process group) after --command-timeout and the daemon goes on; SIGTERM during one ends the daemon within a
#    second, the monitoring given back; a command that ignores SIGTERM is killed 5 s after it; a child left holding
#    the output pipe holds nothing.
pool 64 100 900
start=$(date +%s.%N)
TP_LVEXTEND=hang run "${base[@]}" --lvm-shell no --once --command-timeout 1 --max-pool-size 100MiB
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
check "a hung lvextend: timed out and reported ($took s)" grep -q 'timed out: after 1 s' "$err"
check "a hung lvextend: the daemon went on (--once done in $took s, the hang is 60 s)" awk -v t="$took" 'BEGIN { exit !(t < 20) }'
pool 64 100 900
for shell in no yes; do
  pool 64 100 900
  TP_LVEXTEND=hang "$PROVPOL" "${base[@]}" --lvm-shell $shell --take-over --max-pool-size 100MiB >"$scratch/o" 2>"$scratch/e" &
  pid=$!
  for i in $(seq 300); do grep -q '^lvextend' "$TP/log" && break; sleep 0.1; done
  sleep 0.2
  t0=$(date +%s.%N)
  kill -TERM $pid
  wait $pid
  rc=$?
  took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
  # Within a second of the signal by the daemon's own clock (stop_grace), the rest its restore; the wall clock of a
  # loaded machine only tells a stop from the 60 s the hang would last.
  check "SIGTERM during a hung lvextend (lvm shell $shell): the command interrupted" grep -q 'interrupted by a stop signal' "$scratch/e"
  check "SIGTERM during a hung lvextend (lvm shell $shell): not waited for ($took s)" awk -v t="$took" 'BEGIN { exit !(t < 15) }'
  check "SIGTERM during a hung lvextend (lvm shell $shell): exit 0 ($rc)" [ $rc = 0 ]
  check "SIGTERM during a hung lvextend (lvm shell $shell): monitoring back" monitor_is monitored
done
#    In the shell, a hung lvextend ends the shell, and the next command starts another.
pool 64 100 900 900
rm -f "$TP/shell.log"
TP_LVEXTEND=hang "$PROVPOL" "${base[@]}" --interval 0.05 --command-timeout 2 --take-over --max-pool-size 100MiB \
  >"$scratch/h.out" 2>"$scratch/h.err" &
pid=$!
for i in $(seq 300); do grep -q 'timed out' "$scratch/h.err" && break; sleep 0.1; done
sleep 0.3
kill -TERM $pid
wait $pid
check "a hung lvextend in the shell: timed out" grep -q 'timed out: after 2 s (the lvm shell ended)' "$scratch/h.err"
check "...and a new shell runs the next command (shells: $(wc -l <"$TP/shell.log"))" [ "$(wc -l <"$TP/shell.log")" -ge 2 ]
check "...the monitoring given back through it" monitor_is monitored
#    A stop as systemd sends it (SIGTERM to the unit's whole control group): the shell ends with the daemon's
#    signal, and a new one gives the monitoring back.
pool 64 100
"$PROVPOL" "${base[@]}" --take-over >"$scratch/g.out" 2>"$scratch/g.err" &
pid=$!
for i in $(seq 300); do grep -q watching "$scratch/g.out" && break; sleep 0.1; done
sleep 0.3
kill -TERM "$(cat "$TP/shell.pid")" $pid
wait $pid
rc=$?
check "SIGTERM to the daemon and its lvm shell at once: exit 0 ($rc), monitored ($(cat "$TP/monitor"))" [ $rc = 0 ] && monitor_is monitored
#    No lvm shell (an lvm that ends at once): every command run one process each, said once.
pool 64 100 900
mv "$fake/lvm" "$fake/lvm.real"
printf '#!/bin/sh\nexit 3\n' >"$fake/lvm"
chmod +x "$fake/lvm"
run "${base[@]}" --once --max-pool-size 100MiB
mv "$fake/lvm.real" "$fake/lvm"
check_commands "lvextend -L+36864k -- vg/pool;" "no lvm shell: the commands run one process each"
check "no lvm shell: said once ($(grep -c 'no lvm shell' "$err"))" [ "$(grep -c 'no lvm shell' "$err")" = 1 ]
pool 64 100 900
start=$(date +%s.%N)
TP_LVEXTEND=hangterm run "${base[@]}" --lvm-shell no --once --command-timeout 2 --max-pool-size 100MiB
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
check "an lvextend that ignores SIGTERM is killed 5 s later ($took s)" grep -q 'timed out: after 2 s (SIGKILL)' "$err"
check "...and is gone" [ -n "$(cat "$TP/hung.pid")" ] && ! kill -0 "$(cat "$TP/hung.pid")" 2>/dev/null
pool 64 100 900
start=$(date +%s.%N)
TP_LVEXTEND=child run "${base[@]}" --lvm-shell no --once --max-pool-size 100MiB
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
check "a child holding lvextend's output: not waited for ($took s; the child lives 60 s)" awk -v t="$took" 'BEGIN { exit !(t < 20) }'
check "a child holding lvextend's output: the lvextend's time is its own ($(grep -o 'took=[0-9.]*' "$out"))" \
  awk -v t="$(grep -o 'took=[0-9.]*' "$out" | cut -d= -f2)" 'BEGIN { exit !(t != "" && t < 20) }'
[ -f "$TP/child.pid" ] && kill "$(cat "$TP/child.pid")" 2>/dev/null
#    A hung dmsetup: bounded too, and --once ends (an error, exit 1 at start).
pool 64 100 900
start=$(date +%s.%N)
TP_DMSETUP_HANG=1 run "${base[@]}" --lvm-shell no --once --command-timeout 0.5
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
check "a hung dmsetup: exit 1 in $took s (the hang is 60 s)" [ "$status" = 1 ] && awk -v t="$took" 'BEGIN { exit !(t < 20) }'

# 8. Every stop signal gives the monitoring back (exit 0); SIGPIPE does not kill the daemon; SIGKILL leaves a record
#    that --restore (the unit's ExecStopPost=) and the next start act on; not given back: exit 3.
for sig in INT TERM HUP QUIT; do
  pool 64 100
  "$PROVPOL" "${base[@]}" --interval 0.1 --take-over >"$scratch/sig.out" 2>"$scratch/sig.err" &
  pid=$!
  for i in $(seq 300); do grep -q 'monitor n' "$TP/log" && break; sleep 0.1; done
  sleep 0.3
  kill -$sig $pid
  for i in $(seq 150); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
  if kill -0 $pid 2>/dev/null; then fail "SIG$sig: still running after 15 s"; kill -KILL $pid; fi
  wait $pid
  rc=$?
  out=$scratch/sig.out err=$scratch/sig.err
  check "SIG$sig: exit 0 ($rc)" [ $rc = 0 ]
  check_commands "lvchange --monitor n -- vg/pool;lvchange --monitor y -- vg/pool;" "SIG$sig"
  check "SIG$sig: monitored" monitor_is monitored
  expect_stdout 'thinpoold: stopped: 0 extends'
done
pool 64 100
mkfifo "$scratch/fifo"
"$PROVPOL" "${base[@]}" --interval 0.1 --take-over >"$scratch/fifo" 2>"$scratch/pipe.err" &
pid=$!
head -1 <"$scratch/fifo" >/dev/null  # the reader goes: the daemon's next line meets a closed pipe
sleep 0.5
check "SIGPIPE: the daemon lives on" kill -0 $pid
kill -TERM $pid
wait $pid
rc=$?
check "SIGPIPE ignored, then SIGTERM: exit 0 ($rc), monitored" [ $rc = 0 ] && monitor_is monitored
pool 64 100
"$PROVPOL" "${base[@]}" --interval 0.1 --take-over >/dev/null 2>&1 &
pid=$!
for i in $(seq 300); do grep -q 'monitor n' "$TP/log" && break; sleep 0.1; done
sleep 0.3
kill -KILL $pid
wait $pid 2>/dev/null
check "SIGKILL: the monitoring is left off, and the state says so" monitor_is "not monitored" && [ "$(state_field monitoring_off)" = 1 ]
expect_ok "${base[@]}" --restore
check "--restore gives it back" monitor_is monitored
check "--restore: the state says so" [ "$(state_field monitoring_off)" = 0 ]
expect_ok "${base[@]}" --restore
check_commands "lvchange --monitor n -- vg/pool;lvchange --monitor y -- vg/pool;" "--restore twice: the second does nothing"
echo "not monitored" >"$TP/monitor"
sed -i 's/^monitoring_off=0/monitoring_off=1/' "$state/vg-pool.state"
expect_ok "${base[@]}" --once
check "a start after a kill repairs it" monitor_is monitored
pool 64 100
TP_LVCHANGE_Y=fail run "${base[@]}" --once --take-over
check "lvchange --monitor y fails: exit 3 ($status), an error" [ "$status" = 3 ] && grep -q 'dmeventd does not monitor vg/pool' "$err"
TP_LVCHANGE_Y=fail run "${base[@]}" --restore
check "--restore that cannot: exit 3 ($status)" [ "$status" = 3 ]

# 9. The status and the names are checked before anything is acted on: exit 1, one reason.
bad_status() {  # bad_status WHAT LINE
  pool 64 100
  TP_STATUS_RAW=$2 run "${base[@]}" --once --take-over
  check "$1: exit 1 ($status), nothing run, monitoring untouched" [ "$status" = 1 ] && [ "$(commands)" = "" ] && monitor_is monitored
}
bad_status "a length that is not lvs's size" "0 262144 thin-pool 1 11/1024 100/2048 - rw no_discard_passdown queue_if_no_space - 1024"
bad_status "used above total" "0 131072 thin-pool 1 11/1024 2000/1024 - rw no_discard_passdown queue_if_no_space - 1024"
bad_status "a negative count" "0 131072 thin-pool 1 11/1024 -5/1024 - rw no_discard_passdown queue_if_no_space - 1024"
bad_status "two targets" "0 131072 thin-pool 1 11/1024 5/1024 - rw - - - 1\n131072 8 linear 8:0 0"
bad_status "an unknown mode" "0 131072 thin-pool 1 11/1024 5/1024 - fast no_discard_passdown queue_if_no_space - 1024"
bad_status "a failed pool" "0 131072 thin-pool Fail"
check "a failed pool: said" grep -q 'the pool reports Fail' "$err"
pool 64 100
TP_UUID="LVM-OtherVgOtherLv-tpool" run "${base[@]}" --once --dm-name vg-other-tpool
check "--dm-name of another pool: exit 1 ($status)" [ "$status" = 1 ] && grep -q 'vg-other-tpool is not vg/pool' "$err"
pool 64 100
TP_MISSING="vg-pool-tpool" expect_ok "${base[@]}" --once
check "the -tpool fallback" grep -q 'dmsetup status --noflush -- vg-pool$' "$TP/log"
pool 64 100
expect_ok --vg my-vg --pool thin-pool --interval 0.1 --once --state-dir "$state" --lock-dir "$lock"
check "dm name escaping" grep -q 'dmsetup status --noflush -- my--vg-thin--pool-tpool$' "$TP/log"
check "the state is named by the dm name" [ -f "$state/my--vg-thin--pool.state" ]
pool 64 100
TP_MISSING="vg-pool-tpool vg-pool" run "${base[@]}" --once
check "no such device: exit 1 with one line (status $status)" [ "$status" = 1 ] && grep -q 'vg-pool: exit 1: Device vg-pool not found' "$err"
pool 64 100
touch "$TP/lvs_fail"
run "${base[@]}" --once
check "lvs fails: exit 1 ($status)" [ "$status" = 1 ] && grep -Eq 'cannot read vg/pool with lvs: exit [15]: *Volume group' "$err"
pool 64 100
run "${base[@]}" --once
echo "Zzzzzz-1234-5678-9abc-def0-1234-567890" >"$TP/lv_uuid"
run "${base[@]}" --once
check "a state of another pool (same name, new LV): exit 1 ($status)" [ "$status" = 1 ] && grep -q 'is for another pool' "$err"
printf 'format=1\ntaken=oops\n' >"$state/vg-pool.state"
run "${base[@]}" --once
check "an unreadable state: exit 1 ($status)" [ "$status" = 1 ] && grep -q 'not readable' "$err"
expect_usage "^provpol-thinpoold: --vg '-fy' starts with '-'$" --vg -fy --pool p
expect_usage "^provpol-thinpoold: --burst-rate" --vg v --pool p --burst-rate fast
expect_usage "^provpol-thinpoold: --pool 'snapshot0' starts with \"snapshot\"" --vg v --pool snapshot0
expect_usage "^provpol-thinpoold: --pool 'p_tmeta' contains \"_tmeta\"" --vg v --pool p_tmeta
expect_usage "^provpol-thinpoold: --vg 'a/b' has a character lvm2 refuses" --vg a/b --pool p
expect_usage "^provpol-thinpoold: --pool '\.\.' is '\.\.'" --vg v --pool ..
expect_usage "^provpol-thinpoold: --vg '$(printf 'v%.0s' $(seq 128))' is longer than lvm2's 127 characters" --vg "$(printf 'v%.0s' $(seq 128))" --pool p
check "127 characters is a name" "$PROVPOL" --vg "$(printf 'v%.0s' $(seq 127))" --pool p --dry-run --help >/dev/null

# 10. One daemon per pool: a second one exits 1, the first goes on.
pool 64 100
"$PROVPOL" "${base[@]}" --interval 0.1 >"$scratch/a.out" 2>&1 &
pid=$!
for i in $(seq 300); do grep -q watching "$scratch/a.out" && break; sleep 0.1; done
run "${base[@]}" --once
check "a second daemon on the pool: exit 1 ($status)" [ "$status" = 1 ] && grep -q 'another provpol-thinpoold holds' "$err"
check "the first goes on" kill -0 $pid
kill -TERM $pid
wait $pid

# 11. A pool full when first seen, its writer queued (64 MiB/s, 8 MiB waiting): it catches up, where a rate of 0
#     (the history restarted on every full sample) grew it one extent a tick and never did.
pool 64 1
TP_WRITER=$((72 * MiB)):$((64 * MiB)) "$PROVPOL" "${base[@]}" --interval 0.1 --min-free 10% --horizon 2s \
  --max-pool-size 4GiB --max-vg-take 4GiB >"$scratch/full.out" 2>"$scratch/full.err" &
pid=$!
sleep 10
kill -TERM $pid
wait $pid
last=$(grep 'decide used=' "$scratch/full.out" | tail -1)
full=$(grep -c 'mode=out_of_data_space' "$scratch/full.out")
check "a full pool catches its writer: not full at the end ($last; full in $full decisions)" \
  grep -q 'mode=rw' <<<"$last"
check "a full pool catches its writer within a few extends ($full decisions full)" [ "$full" -le 6 ]

# 12. Metadata, with dmeventd's monitoring off: lvm2's rule with lvm.conf's threshold and percent (lvmconfig).
#     4 MiB of metadata (1024 blocks), 800 used: 78% > 70%: grown by 21% of its one extent, one extent.
pool 64 100 100
TP_META_USED=800 TP_THRESHOLD=70 TP_PERCENT=20 run "${base[@]}" --once --take-over
check_commands "lvchange --monitor n -- vg/pool;lvextend --config activation/monitoring=0 --poolmetadatasize +4096k -- vg/pool;lvchange --monitor y -- vg/pool;" "the metadata by lvm2's rule"
check "lvm.conf's rule is read with lvmconfig" grep -q '^lvmconfig .*activation/thin_pool_autoextend_threshold' "$TP/log"
pool 64 100 100
TP_META_USED=800 TP_THRESHOLD=100 run "${base[@]}" --once --take-over
check_commands "lvchange --monitor n -- vg/pool;lvchange --monitor y -- vg/pool;" "threshold 100: lvm2 leaves the metadata, so does the daemon"
pool 64 100 100
TP_META_USED=800 TP_THRESHOLD=70 run "${base[@]}" --once
check_commands "" "the metadata is dmeventd's while it monitors the pool"
expect_stdout 'the metadata is dmeventd.s'

# 13. Deployed like a daemon: --version, a configuration file, journal priorities, the metrics file.
run --version
check "--version ($(cat "$out"))" grep -Eq '^provpol-thinpoold [0-9]+\.[0-9]+\.[0-9]+$' "$out"
pool 64 100 900
printf '# a pool\nvg = vg\npool = pool\ninterval = 0.3s\nmax-pool-size = 100MiB\ntake-over = yes\nmin-free = 0\nstate-dir = %s\nlock-dir = %s\n' \
  "$state" "$lock" >"$scratch/vg-pool.conf"
expect_ok --config "$scratch/vg-pool.conf" --once --metrics-file "$scratch/m.prom"
check_commands "lvchange --monitor n -- vg/pool;lvextend --config activation/monitoring=0 -L+36864k -- vg/pool;lvchange --monitor y -- vg/pool;" "--config"
check "metrics: the pool's size" grep -q '^provpol_thinpoold_pool_size_bytes{vg="vg",pool="pool"} 104857600$' "$scratch/m.prom"
check "metrics: extends" grep -q '^provpol_thinpoold_extends_total{vg="vg",pool="pool"} 1$' "$scratch/m.prom"
check "metrics: every sample has its HELP and TYPE" \
  awk '/^# TYPE/ { t[$3] = 1 } /^provpol/ { n = $1; sub(/\{.*/, "", n); if (!(n in t)) bad = 1 } END { exit bad }' "$scratch/m.prom"
check "metrics: written atomically (no temporary left)" [ ! -e "$scratch/m.prom.tmp" ]
printf 'vg = vg\nfrobnicate = 1\n' >"$scratch/bad.conf"
expect_usage '^provpol-thinpoold: .*/bad.conf:2: unknown setting .frobnicate.$' --config "$scratch/bad.conf"
printf 'vg = vg\npool = p\ninterval = 0\n' >"$scratch/bad.conf"
expect_usage '^provpol-thinpoold: .*/bad.conf:3: --interval must be in \[0.01 s, 3600 s\], got 0 s$' --config "$scratch/bad.conf"
printf 'vg = vg\npool = p\nonce = yes\n' >"$scratch/bad.conf"
expect_usage 'bad.conf:3: once is a command-line flag' --config "$scratch/bad.conf"
pool 64 100
exec 3>"$scratch/journal"
js=$(stat -c '%d:%i' "$scratch/journal")
JOURNAL_STREAM=$js "$PROVPOL" "${base[@]}" --once 2>&3 >"$scratch/plain"
exec 3>&-
check "a stream that is not the journal's: no prefix" grep -q '^thinpoold: watching' "$scratch/plain"
pool 64 100
JOURNAL_STREAM=$(stat -c '%d:%i' "$scratch/journal") "$PROVPOL" "${base[@]}" --once >>"$scratch/journal" 2>&1
check "the journal's stream: <6> on info lines, no time" grep -q '^<6>watching vg/pool' "$scratch/journal"

# 14. Bad input: exit 2, one line on stderr naming the option and its range.
expect_usage '^provpol-thinpoold: --interval must be in \[0.01 s, 3600 s\], got 0 s$' --vg v --pool p --interval 0
expect_usage 'lead-factor.*\[1, 100\].*0.5' --vg v --pool p --lead-factor 0.5
expect_usage 'horizon' --vg v --pool p --horizon 0
expect_usage '^provpol-thinpoold: --vg and --pool are required' --pool p
expect_usage '^provpol-thinpoold: unknown option --bogus' --vg v --pool p --bogus 1
expect_usage '^provpol-thinpoold: --status must be dmsetup or ioctl' --vg v --pool p --status x
expect_usage 'max-pool-size' --vg v --pool p --max-pool-size lots
expect_usage 'min-free.*\[0, 50\]' --vg v --pool p --min-free 60%
expect_usage 'command-timeout' --vg v --pool p --command-timeout 0
expect_usage '^provpol-thinpoold: --interval needs a value' --vg v --pool p --interval
expect_usage '^provpol-thinpoold: --restore takes no' --vg v --pool p --restore --once
expect_ok --help
expect_stdout '^usage: provpol-thinpoold --vg VG --pool POOL'
finish
