# The daemon scenario of the LVM e2e guest, sourced by /init (lvm_guest_init.sh) when the kernel command line has
# pp_scenario=daemon, after dmeventd is up; lvm_daemon_test.sh appends it to the initramfs as /scenario-daemon.sh
# with provpol-thinpoold (static). It uses /init's helpers ($T, $R, log, run, finish) and its lvm.conf
# (thin_pool_autoextend_threshold = pp_threshold, _percent = pp_percent, dmeventd monitoring).
#
# 1. The bursts, each run once per mode, each on a new pool in VG vg (/dev/vda; the previous pool removed):
#   dmeventd  dmeventd extends the pool with lvm.conf's threshold and percent
#   profile   dmeventd, with the pool's metadata profile's threshold and percent: `provpol recommend`'s for the burst
#   daemon    provpol-thinpoold --take-over extends it (dmeventd's monitoring off while it runs), configured as its
#             unit configures it: /etc/provpol/thinpoold/vg-POOL.conf
# Parameters: pp_bursts=NAME:POOL_MIB:RATE:TOTAL[:RATE2:TOTAL2],... (bytes/s, bytes; 1 MiB writes; RATE2: a second
# phase right after the first), pp_modes=MODE,..., pp_daemon_args (the daemon's settings for every burst, as
# NAME=VALUE joined by '+'), pp_daemon_burst=NAME:NAME=VALUE+...,... (a burst's own), pp_profiles=NAME:T:P,... (a
# burst's recommended threshold and percent; no entry, no profile run).
# Per run, under $R/runs/BURST-MODE: status.log (the pool every 50 ms), writer.log (and the read-back of what it
# wrote), lvs.txt (the pool's size at the end, then again after the daemon stopped: its monitoring), daemon.log and
# daemon.rc; $R/runs.log has each run's start and end on the guest's clock.
#
# 2. The faults (pp_faults=1), on VG fv (/dev/vdc) and VG mv (/dev/vdd, large and sparse), each daemon --take-over
# with the lvm2 guest's real commands; facts into $R/faults/NAME.txt as KEY=VALUE lines, checked by the host:
#   kill      SIGKILL during an lvextend (a wrapper lvextend holds it 2 s), then the unit's ExecStopPost (--restore);
#             then five restarts, each a burst and a SIGTERM, under --max-vg-take
#   hung      every lvextend hangs (the wrapper sleeps): --command-timeout ends each, three failures hand the pool back
#             to dmeventd, which extends it
#   vgfull    the VG runs out: the daemon extends to what it has, then the pool fills and fails writes
#   metadata  a pool whose metadata is past lvm.conf's threshold (its data's space map fills it): lvm2's rule grows it
# and every thin LV written is read back.
pp_bursts=${pp_bursts:-steady:64:8388608:50331648} pp_modes=${pp_modes:-dmeventd,daemon} pp_daemon_args=${pp_daemon_args:-}
pp_daemon_burst=${pp_daemon_burst:-} pp_profiles=${pp_profiles:-} pp_faults=${pp_faults:-0}
TP=/bin/provpol-thinpoold
mkdir -p /etc/provpol/thinpoold /var/lib /run/lock

# conf VG POOL SETTINGS...: the pool's configuration file, as the unit reads it; prints its path.
conf() {
  f=/etc/provpol/thinpoold/$1-$2.conf
  { echo "vg = $1"; echo "pool = $2"; echo "status = ioctl"; echo "take-over = yes"; shift 2
    for kv in "$@"; do [ -n "$kv" ] && echo "${kv%%=*} = ${kv#*=}"; done; } >"$f"
  echo "$f"
}
monitor() { lvs --config log/command_names=0 --noheadings -o seg_monitor "$1" 2>/dev/null | sed 's/^ *//'; }
size_of() { lvs --config log/command_names=0 --noheadings --units b --nosuffix -o "${2:-lv_size}" "$1" 2>/dev/null | tr -d ' '; }
wait_for() {  # wait_for FILE PATTERN [TENTHS]
  local tenth
  for tenth in $(seq "${3:-300}"); do grep -qs "$2" "$1" && return 0; sleep 0.1; done
  return 1
}

run pvcreate -y /dev/vda || finish 1
run vgcreate -s 4M vg /dev/vda || finish 1
mkdir -p /etc/lvm/profile
n=0
for burst in $(echo "$pp_bursts" | tr ',' ' '); do
  name=${burst%%:*} rest=${burst#*:}
  pool_mib=${rest%%:*} rest=${rest#*:}
  rate=${rest%%:*} rest=${rest#*:}
  total=${rest%%:*} rate2="" total2=""
  [ "$rest" != "$total" ] && rest=${rest#*:} && rate2=${rest%%:*} total2=${rest#*:}
  profile=$(echo "$pp_profiles" | tr ',' '\n' | sed -n "s/^$name://p")
  extra=$(echo "$pp_daemon_burst" | tr ',' '\n' | sed -n "s/^$name://p")
  if [ -n "$profile" ]; then
    printf 'activation {\n  thin_pool_autoextend_threshold = %s\n  thin_pool_autoextend_percent = %s\n}\n' \
      "${profile%%:*}" "${profile#*:}" >/etc/lvm/profile/$name.profile
  fi
  for mode in $(echo "$pp_modes" | tr ',' ' '); do
    [ "$mode" = profile ] && [ -z "$profile" ] && continue
    n=$((n + 1))
    id=$name-$mode d=$R/runs/$name-$mode lv=pool$n
    mkdir -p "$d"
    prof=""
    [ "$mode" = profile ] && prof="--metadataprofile $name"
    run lvcreate -y --type thin-pool -L "${pool_mib}M" -c 64K --poolmetadatasize 4M --poolmetadataspare n -Zn $prof \
      -n $lv vg || finish 1
    run lvcreate -y -V 1024M -T vg/$lv -n thin$n || finish 1
    $T dmstatus 0.05 vg-$lv-tpool >"$d/status.log" &
    sp=$!
    dp=""
    if [ "$mode" = daemon ]; then
      c=$(conf vg $lv $(echo "$pp_daemon_args+$extra" | tr '+' ' '))
      $TP --config "$c" >"$d/daemon.log" 2>&1 &
      dp=$!
      wait_for "$d/daemon.log" watching 600
      sleep 2  # its floor and burst room in place, as on a pool it has watched for a while
    fi
    log "run $id: $total bytes at $rate bytes/s on a $pool_mib MiB pool"
    echo "$($T now) run-start $id" >>$R/runs.log
    $T write /dev/vg/thin$n 1048576 "$rate" "$total" >"$d/writer.log" 2>>$R/init.log
    [ -n "$rate2" ] && $T write /dev/vg/thin$n 1048576 "$rate2" "$total2" "$total" >>"$d/writer.log" 2>>$R/init.log
    sleep 2  # a last extend under way lands and is sampled
    echo "$($T now) run-end $id" >>$R/runs.log
    lvs --noheadings --units b --nosuffix -o lv_size,seg_monitor vg/$lv >"$d/lvs.txt" 2>&1
    if [ -n "$dp" ]; then
      kill -TERM "$dp"
      wait "$dp"
      echo $? >"$d/daemon.rc"
      lvs --noheadings --units b --nosuffix -o lv_size,seg_monitor vg/$lv >>"$d/lvs.txt" 2>&1
    fi
    kill "$sp"
    $T verify /dev/vg/thin$n 1048576 $((total + ${total2:-0})) >>"$d/writer.log" 2>&1
    run lvremove -y vg/thin$n vg/$lv || finish 1
  done
done
[ "$pp_faults" = 1 ] && . /scenario-faults.sh
finish 0
