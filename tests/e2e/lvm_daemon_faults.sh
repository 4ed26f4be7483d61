# The faults of the daemon scenario (lvm_daemon_scenario.sh sources it for pp_faults=1; lvm_daemon_test.sh appends it
# to the initramfs as /scenario-faults.sh). Each fault runs provpol-thinpoold --take-over on real lvm2 as its unit
# would (--config, and the unit's ExecStopPost= command where the daemon is killed) and writes what happened to
# $R/faults/NAME.txt as KEY=VALUE lines; lvm_daemon_test.sh checks them. A wrapper lvextend first on the daemon's
# PATH (/fault/bin) holds or hangs the real one on request; the daemon runs lvm2 one process each there
# (lvm-shell = no), so that the wrapper is what it runs.
F=$R/faults
mkdir -p "$F" /fault/bin
# The guest's lvm.conf sees /dev/vda only (every lvm2 command of the bursts scans that disk alone): the fault disks too.
sed -i 's#"a|^/dev/vda\$|", "r|.\*|"#"a|^/dev/vda$|", "a|^/dev/vdc$|", "a|^/dev/vdd$|", "r|.*|"#' /etc/lvm/lvm.conf
cat >/fault/bin/lvextend <<'EOF'
#!/bin/sh
# /run/fault-hang: hang (until killed); /run/fault-hold: say so, hold 2 s, then run lvextend.
[ -e /run/fault-hang ] && exec sleep 600
if [ -e /run/fault-hold ]; then touch /run/fault-held; sleep 2; fi
exec /sbin/lvextend "$@"
EOF
chmod +x /fault/bin/lvextend
fact() { echo "$2=$3" >>"$F/$1.txt"; }
MiB=1048576
run pvcreate -y /dev/vdc || finish 1
run vgcreate -s 4M fv /dev/vdc || finish 1

# --- kill: SIGKILL during an lvextend, the unit's stop command, five restarts ---------------------------------------
run lvcreate -y --type thin-pool -L 64M -c 64K --poolmetadatasize 4M --poolmetadataspare n -Zn -n kp fv || finish 1
run lvcreate -y -V 1024M -T fv/kp -n kt || finish 1
c=$(conf fv kp interval=0.1 rate-window=0.3s lvextend-time=1 horizon=2s min-free=8MiB max-pool-size=256MiB max-vg-take=96MiB \
  lvm-shell=no command-timeout=20s)
fact kill start_size "$(size_of fv/kp)"
fact kill start_meta "$(size_of fv/kp lv_metadata_size)"
touch /run/fault-hold
PATH=/fault/bin:$PATH $TP --config "$c" >"$F/kill-daemon.log" 2>&1 &
dp=$!
wait_for "$F/kill-daemon.log" watching 600
$T write /dev/fv/kt 1048576 $((16 * MiB)) $((64 * MiB)) >"$F/kill-writer.log" 2>&1 &
wp=$!
for i in $(seq 300); do [ -e /run/fault-held ] && break; sleep 0.1; done
fact kill held "$([ -e /run/fault-held ] && echo 1 || echo 0)"
kill -KILL $dp
wait $dp 2>/dev/null
fact kill monitor_after_kill "$(monitor fv/kp)"
rm -f /run/fault-hold
wait $wp
sleep 3  # the lvextend the kill left runs to its end
fact kill after_kill "$(( $(size_of fv/kp) + $(size_of fv/kp lv_metadata_size) ))"
$TP --config "$c" --restore >"$F/kill-restore.log" 2>&1
fact kill restore_rc $?
fact kill monitor_after_restore "$(monitor fv/kp)"
fact kill pending "$(sed -n 's/^pending=//p' /var/lib/provpol-thinpoold/fv-kp.state)"
off=$((64 * MiB))
for k in 1 2 3 4 5; do
  $TP --config "$c" >"$F/kill-daemon-$k.log" 2>&1 &
  dp=$!
  wait_for "$F/kill-daemon-$k.log" watching 600
  [ $k = 1 ] && fact kill taken_first "$(sed -n 's/^taken=//p' /var/lib/provpol-thinpoold/fv-kp.state)"
  sleep 0.5
  $T write /dev/fv/kt 1048576 $((16 * MiB)) $((16 * MiB)) $off >>"$F/kill-writer.log" 2>&1
  off=$((off + 16 * MiB))
  sleep 1
  kill -TERM $dp
  wait $dp
  fact kill "restart${k}_rc" $?
done
fact kill end_size "$(size_of fv/kp)"
fact kill end_meta "$(size_of fv/kp lv_metadata_size)"
fact kill taken "$(sed -n 's/^taken=//p' /var/lib/provpol-thinpoold/fv-kp.state)"
fact kill monitor_end "$(monitor fv/kp)"
$T verify /dev/fv/kt 1048576 $off >"$F/kill-verify.log" 2>&1
fact kill verify_rc $?
fact kill written $off
fact kill eio "$(awk '$2 == "w" && $5 != 0' "$F/kill-writer.log" | wc -l)"
run lvremove -y fv/kt fv/kp || finish 1

# --- hung: every lvextend hangs; the timeout ends each; three failures hand the pool back to dmeventd --------------
# A floor near the pool's size: the daemon's extends start with the writer (and hang); the pool, written at 4 MiB/s,
# passes dmeventd's 70% after the hand-back and never fills.
run lvcreate -y --type thin-pool -L 96M -c 64K --poolmetadatasize 4M --poolmetadataspare n -Zn -n hp fv || finish 1
run lvcreate -y -V 1024M -T fv/hp -n ht || finish 1
c=$(conf fv hp interval=0.1 rate-window=0.3s horizon=2s min-free=90MiB lvm-shell=no command-timeout=4s)
touch /run/fault-hang
PATH=/fault/bin:$PATH $TP --config "$c" >"$F/hung-daemon.log" 2>&1 &
dp=$!
wait_for "$F/hung-daemon.log" watching 600
sleep 0.5
$T write /dev/fv/ht 1048576 $((4 * MiB)) $((80 * MiB)) >"$F/hung-writer.log" 2>&1
for k in $(seq 150); do [ "$(size_of fv/hp)" -gt $((96 * MiB)) ] && break; sleep 0.1; done  # dmeventd's poll
fact hung monitor_during "$(monitor fv/hp)"
rm -f /run/fault-hang
sleep 2
t0=$($T now)
kill -TERM $dp
wait $dp
fact hung rc $?
fact hung stop_s "$(awk -v a="$t0" -v b="$($T now)" 'BEGIN { printf "%.2f", b - a }')"
fact hung timeouts "$(grep -c 'timed out' "$F/hung-daemon.log")"
fact hung handed_back "$(grep -c 'handing fv/hp back to dmeventd' "$F/hung-daemon.log")"
fact hung monitor_end "$(monitor fv/hp)"
fact hung end_size "$(size_of fv/hp)"
fact hung left "$(ps | grep -c '[s]leep 600')"
$T verify /dev/fv/ht 1048576 $((80 * MiB)) >"$F/hung-verify.log" 2>&1
fact hung verify_rc $?
fact hung eio "$(awk '$2 == "w" && $5 != 0' "$F/hung-writer.log" | wc -l)"
run lvremove -y fv/ht fv/hp || finish 1

# --- vgfull: the VG runs out -------------------------------------------------------------------------------------
run lvcreate -y --type thin-pool -L 16M -c 64K --poolmetadatasize 4M --poolmetadataspare n -Zn -n op fv || finish 1
run lvcreate -y -V 1024M -T fv/op -n ot || finish 1
free=$(vgs --config log/command_names=0 --noheadings --units b --nosuffix -o vg_free fv | tr -d ' ')
run lvcreate -y -L $((free - 24 * MiB))b -n filler fv || finish 1
fact vgfull vg_free_start "$(vgs --config log/command_names=0 --noheadings --units b --nosuffix -o vg_free fv | tr -d ' ')"
c=$(conf fv op interval=0.1 rate-window=0.3s horizon=2s max-pool-size=1GiB max-vg-take=1GiB)
$TP --config "$c" >"$F/vgfull-daemon.log" 2>&1 &
dp=$!
wait_for "$F/vgfull-daemon.log" watching 600
sleep 0.5
$T write /dev/fv/ot 1048576 $((16 * MiB)) $((64 * MiB)) >"$F/vgfull-writer.log" 2>&1
kill -TERM $dp
wait $dp
fact vgfull rc $?
fact vgfull vg_free_end "$(vgs --config log/command_names=0 --noheadings --units b --nosuffix -o vg_free fv | tr -d ' ')"
fact vgfull end_size "$(size_of fv/op)"
fact vgfull blocked "$(grep -c 'limit=vg-free' "$F/vgfull-daemon.log")"
fact vgfull monitor_end "$(monitor fv/op)"
fact vgfull taken "$(sed -n 's/^taken=//p' /var/lib/provpol-thinpoold/fv-op.state)"
# What was written before the pool ran out reads back; what came after failed (EIO after no_space_timeout).
good=$(awk '$2 == "w" && $5 != 0 { print $3; exit }' "$F/vgfull-writer.log")
fact vgfull first_error "${good:-none}"
$T verify /dev/fv/ot 1048576 "${good:-$((64 * MiB))}" >"$F/vgfull-verify.log" 2>&1
fact vgfull verify_rc $?
run lvremove -y fv/ot fv/op fv/filler || finish 1

# --- metadata: a pool whose metadata is past lvm.conf's threshold (70%) -------------------------------------------
# A large data LV on a sparse disk: its space map's bitmaps (one 4 KiB metadata block per 16320 data blocks) fill
# the 4 MiB metadata to what the first try shows, and a second pool sized by it to about 74%.
run pvcreate -y /dev/vdd || finish 1
run vgcreate -s 4M mv /dev/vdd || finish 1
data=$((600 * 1024))
for try in 1 2; do
  run lvcreate -y --type thin-pool -L ${data}M -c 64K --poolmetadatasize 4M --poolmetadataspare n -Zn -n mp mv || finish 1
  used=$( ($T dmstatus 0 mv-mp-tpool; $T dmstatus 0 mv-mp) 2>/dev/null |
    awk '$2 == "s" && $6 == "thin-pool" { split($8, m, "/"); print m[1]; exit }')
  fact metadata "try${try}_data_mib" $data
  fact metadata "try${try}_used" "$used"
  [ $try = 2 ] && break
  # blocks per MiB of data: 1 per 16320 chunks of 64 KiB (1020 MiB); aim at 758 of 1024
  data=$((data + (758 - used) * 1020))
  run lvremove -y mv/mp || finish 1
done
# lvm2 makes no thin volume in a pool past its threshold: for this one command the threshold is 100 (the metadata is
# then held to lvm2's minimum for it, 75% of 4 MiB).
run lvcreate -y --config activation/thin_pool_autoextend_threshold=100 -V 1024M -T mv/mp -n mt || finish 1
fact metadata meta_start "$(size_of mv/mp lv_metadata_size)"
fact metadata usage_start "$($T dmstatus 0 mv-mp-tpool | awk '$2 == "s" { print $8; exit }')"
c=$(conf mv mp interval=0.1 max-vg-take=64MiB)
$TP --config "$c" >"$F/metadata-daemon.log" 2>&1 &
dp=$!
wait_for "$F/metadata-daemon.log" watching 600
$T write /dev/mv/mt 1048576 $((16 * MiB)) $((32 * MiB)) >"$F/metadata-writer.log" 2>&1
sleep 2
kill -TERM $dp
wait $dp
fact metadata rc $?
fact metadata meta_end "$(size_of mv/mp lv_metadata_size)"
fact metadata usage_end "$($T dmstatus 0 mv-mp-tpool | awk '$2 == "s" { print $8; exit }')"
fact metadata grown "$(grep -c 'extended: lvextend .*--poolmetadatasize' "$F/metadata-daemon.log")"
fact metadata monitor_end "$(monitor mv/mp)"
$T verify /dev/mv/mt 1048576 $((32 * MiB)) >"$F/metadata-verify.log" 2>&1
fact metadata verify_rc $?
