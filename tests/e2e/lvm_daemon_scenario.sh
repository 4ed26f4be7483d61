# The daemon scenario of the LVM e2e guest, sourced by /init (lvm_guest_init.sh) when the kernel command line has
# pp_scenario=daemon, after dmeventd is up; lvm_daemon_test.sh appends it to the initramfs as /scenario-daemon.sh
# with provpol-thinpoold (static). It uses /init's helpers ($T, $R, log, run, finish) and its lvm.conf
# (thin_pool_autoextend_threshold = pp_threshold, _percent = pp_percent, dmeventd monitoring).
#
# Every burst runs once per mode, each on a new pool in the same VG (the previous one removed):
#   dmeventd  dmeventd extends the pool with lvm.conf's threshold and percent
#   profile   dmeventd, with the pool's metadata profile's threshold and percent (pp_profile=THRESHOLD:PERCENT)
#   daemon    provpol-thinpoold --take-over extends it (dmeventd's monitoring off while it runs)
# Parameters: pp_bursts=NAME:POOL_MIB:RATE:TOTAL[:RATE2:TOTAL2],... (bytes/s, bytes; 1 MiB writes; RATE2: a second
# phase right after the first), pp_modes=MODE,...,
# pp_daemon_args (the daemon's options, '+' for ' '), pp_profile, pp_profile_bursts=NAME,... (the bursts the profile
# mode runs).
# Per run, under $R/runs/BURST-MODE: status.log (the pool every 50 ms), writer.log, lvs.txt (the pool's size at the
# end, then again after the daemon stopped: its monitoring), daemon.log and daemon.rc; $R/runs.log has each run's
# start and end on the guest's clock.
pp_bursts=${pp_bursts:-steady:64:8388608:50331648} pp_modes=${pp_modes:-dmeventd,daemon} pp_profile=${pp_profile:-}
pp_daemon_args=${pp_daemon_args:-} pp_profile_bursts=${pp_profile_bursts:-}
run pvcreate -y /dev/vda || finish 1
run vgcreate -s 4M vg /dev/vda || finish 1
if [ -n "$pp_profile" ]; then
  mkdir -p /etc/lvm/profile
  printf 'activation {\n  thin_pool_autoextend_threshold = %s\n  thin_pool_autoextend_percent = %s\n}\n' \
    "${pp_profile%%:*}" "${pp_profile#*:}" >/etc/lvm/profile/recommended.profile
fi
n=0
for burst in $(echo "$pp_bursts" | tr ',' ' '); do
  name=${burst%%:*} rest=${burst#*:}
  pool_mib=${rest%%:*} rest=${rest#*:}
  rate=${rest%%:*} rest=${rest#*:}
  total=${rest%%:*} rate2="" total2=""
  [ "$rest" != "$total" ] && rest=${rest#*:} && rate2=${rest%%:*} total2=${rest#*:}
  for mode in $(echo "$pp_modes" | tr ',' ' '); do
    if [ "$mode" = profile ]; then  # only the bursts pp_profile_bursts names
      case ",$pp_profile_bursts," in *",$name,"*) ;; *) continue ;; esac
    fi
    n=$((n + 1))
    id=$name-$mode d=$R/runs/$name-$mode lv=pool$n
    mkdir -p "$d"
    prof=""
    [ "$mode" = profile ] && prof="--metadataprofile recommended"
    run lvcreate -y --type thin-pool -L "${pool_mib}M" -c 64K --poolmetadatasize 4M --poolmetadataspare n -Zn $prof \
      -n $lv vg || finish 1
    run lvcreate -y -V 1024M -T vg/$lv -n thin$n || finish 1
    $T dmstatus 0.05 vg-$lv-tpool >"$d/status.log" &
    sp=$!
    dp=""
    if [ "$mode" = daemon ]; then
      /bin/provpol-thinpoold --vg vg --pool $lv --status ioctl --take-over $(echo "$pp_daemon_args" | tr '+' ' ') \
        >"$d/daemon.log" 2>&1 &
      dp=$!
      for i in $(seq 50); do grep -qs 'watching' "$d/daemon.log" && break; sleep 0.1; done
      sleep 0.3
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
    run lvremove -y vg/thin$n vg/$lv || finish 1
  done
done
finish 0
