#!/bin/busybox sh
# /init of the LVM e2e guest (lvm_guest.sh builds the initramfs, lvm_test.sh boots it). One scenario per boot:
# a VG on /dev/vda, a thin pool with a thin LV, dmeventd autoextending the pool, a writer at a fixed rate, and
# every observation timestamped with CLOCK_MONOTONIC (lvm_guest_tool). The results are written as a tar archive
# to /dev/vdb; then the guest powers off.
#
# Parameters, from the kernel command line (pp_NAME=VALUE):
#   pool_mib thin_mib   the pool's initial size and the thin LV's virtual size
#   block rate total    the writer: block bytes, bytes/s, total bytes
#   nst                 dm_thin_pool's no_space_timeout in seconds (queued writes fail after it)
#   threshold percent   activation/thin_pool_autoextend_threshold and _percent
#   interval            seconds between pool status samples
#   probe               1: after the writer, find whether the kernel raises the low-water event at free <= lwm
#                       or at free < lwm (below)
/bin/busybox mkdir -p /usr/bin /usr/sbin
/bin/busybox --install -s /bin
export PATH=/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs run /run
mkdir -p /run/r /run/lock/lvm /run/lvm /tmp
R=/run/r
T=/bin/lvm_guest_tool

pp_pool_mib=64 pp_thin_mib=1024 pp_block=1048576 pp_rate=4194304 pp_total=67108864 pp_nst=60
pp_threshold=70 pp_percent=20 pp_interval=0.05 pp_probe=0
for w in $(cat /proc/cmdline); do
  case $w in pp_*=*) eval "${w%%=*}='${w#*=}'" ;; esac
done

log() { echo "$($T now) init $*" >>$R/init.log; echo "guest: $*" >/dev/console; }
finish() {  # finish STATUS: the results to /dev/vdb, then power off
  echo "$($T now) init status $1" >>$R/init.log
  kill $bg 2>/dev/null
  sleep 0.3
  tar -cf /dev/vdb -C $R .
  sync
  echo "guest: results written, status $1" >/dev/console
  poweroff -f
}
bg=""
$T stamp /dev/kmsg >$R/kmsg.log &
bg="$bg $!"
set | grep '^pp_' >$R/params

for m in $(cat /lib/modules/order); do
  case $m in dm-thin-pool) insmod /lib/modules/$m.ko no_space_timeout=$pp_nst ;; *) insmod /lib/modules/$m.ko ;; esac ||
    { log "insmod $m failed"; finish 1; }
done
for i in $(seq 50); do [ -b /dev/vda ] && [ -b /dev/vdb ] && break; sleep 0.1; done
[ -b /dev/vda ] || { log "no /dev/vda"; finish 1; }

cat >/etc/lvm/lvm.conf <<EOF
config { checks = 1 }
devices {
  dir = "/dev"
  scan = [ "/dev" ]
  filter = [ "a|^/dev/vda\$|", "r|.*|" ]
  obtain_device_list_from_udev = 0
  external_device_info_source = "none"
  use_devicesfile = 0
}
global {
  locking_dir = "/run/lock/lvm"
  use_lvmlockd = 0
  event_activation = 0
  thin_check_executable = ""
  thin_repair_executable = ""
}
backup { backup = 0 archive = 0 }
log { verbose = 0 syslog = 0 level = 0 command_names = 1 }
activation {
  udev_sync = 0
  udev_rules = 0
  verify_udev_operations = 1
  monitoring = 1
  thin_pool_autoextend_threshold = $pp_threshold
  thin_pool_autoextend_percent = $pp_percent
}
dmeventd {
  thin_library = "libdevmapper-event-lvm2thin.so"
}
EOF

# dmeventd in the foreground (-f) with its debug log on stderr (-l; syslog otherwise) (the lvm commands it runs log through it), stamped per line.
(dmeventd -f -l -ddd 2>&1 | $T stamp >$R/dmeventd.log) &
bg="$bg $!"
for i in $(seq 50); do [ -p /run/dmeventd-server ] && break; sleep 0.1; done
log "dmeventd up"

run() {  # run CMD...: into cmds.log with its time and status
  s=$($T now)
  "$@" >>$R/cmds.log 2>&1
  rc=$?
  echo "$s $($T now) rc=$rc $*" >>$R/cmds.log
  return $rc
}
# Another scenario, appended to the initramfs by its own test (lvm_daemon_test.sh): pp_scenario=NAME runs
# /scenario-NAME.sh here, with this file's helpers; it ends with finish.
[ -n "${pp_scenario:-}" ] && [ -f "/scenario-$pp_scenario.sh" ] && . "/scenario-$pp_scenario.sh"
run pvcreate -y /dev/vda || finish 1
run vgcreate -s 4M vg /dev/vda || finish 1
# No spare metadata LV: the VG's free space is then the disk minus the pool and its 4 MiB metadata. No zeroing:
# the writer writes whole chunks.
run lvcreate -y --type thin-pool -L ${pp_pool_mib}M -c 64K --poolmetadatasize 4M --poolmetadataspare n -Zn \
  -n pool vg || finish 1
run lvcreate -y -V ${pp_thin_mib}M -T vg/pool -n thin || finish 1
run lvs -a -o+seg_monitor,lv_size,seg_size_pe vg
run vgs -o+vg_free_count,vg_extent_count vg
dmsetup table vg-pool-tpool >$R/table0
log "pool up: $(cat $R/table0)"

$T dmstatus "$pp_interval" vg-pool-tpool >$R/status.log &
bg="$bg $!"
sleep 0.5
log "writer: $pp_total bytes at $pp_rate bytes/s in $pp_block-byte writes"
$T write /dev/vg/thin "$pp_block" "$pp_rate" "$pp_total" >$R/writer.log 2>>$R/init.log
echo "$($T now) init writer-rc $?" >>$R/init.log
# Let a last extend that is under way finish and be sampled.
sleep 3

# The low-water probe: with the pool quiet (the last extend done, so the kernel has re-armed the event), write
# single chunks past the writer's data until lwm + 1 blocks are free, then one chunk (its allocation finds lwm + 1
# free, lwm after it), then one more (its allocation finds lwm free: the event fires here if the kernel tests
# free <= lwm before allocating, one chunk later if free < lwm). The kernel logs "reached low water mark" with
# each event; probe.log has that count and the pool's status and table after each step.
lwm_events() { grep -c 'reached low water mark' $R/kmsg.log; }
probe_step() {  # probe_step NAME CHUNKS OFFSET
  [ "$2" -gt 0 ] && $T write /dev/vg/thin 65536 1000000000 $(($2 * 65536)) "$3" >>$R/probe-writes.log
  sleep 0.3
  echo "$1 chunks=$2 events=$(lwm_events) $($T dmstatus 0 vg-pool-tpool | tr '\n' ' ')" >>$R/probe.log
}
if [ "$pp_probe" = 1 ]; then
  st=$($T dmstatus 0 vg-pool-tpool)
  used=$(echo "$st" | awk '$2 == "s" { split($9, d, "/"); print d[1] }')
  total=$(echo "$st" | awk '$2 == "s" { split($9, d, "/"); print d[2] }')
  lwm=$(echo "$st" | awk '$2 == "t" { print $10 }')
  n=$((total - used - lwm - 1))
  log "probe: used $used of $total blocks, lwm $lwm: $n chunks to reach lwm + 1 free"
  if [ "$n" -gt 0 ]; then
    probe_step before 0 0
    probe_step free-after=lwm+1 $n $pp_total
    probe_step free-after=lwm 1 $((pp_total + n * 65536))
    probe_step free-after=lwm-1 1 $((pp_total + (n + 1) * 65536))
    sleep 3
  fi
fi
run lvs -a -o+seg_monitor,lv_size,seg_size_pe,data_percent vg
run vgs -o+vg_free_count,vg_extent_count vg
dmsetup status vg-pool-tpool >>$R/cmds.log 2>&1
# What an operator has, as lvm2 prints it (tests/data/capture_lvm_reports.sh keeps these for provpol's readers):
# the pool's report in JSON with the fields --lvs reads, in bytes and in lvs's default units, and the
# configuration as lvmconfig prints it.
# (lvs runs with log/command_names off, as in lvm2's default configuration: this guest's lvm.conf turns it on for its
# logs, and it prefixes every line lvs prints with "lvs"; lvmconfig's output has no such prefix.)
mkdir -p $R/capture
q="log/command_names=0"
lvm version >$R/capture/lvm_version.txt 2>&1
lvs --config "$q" --reportformat json --units b --nosuffix \
  -o lv_name,vg_name,segtype,lv_size,data_percent,lv_metadata_size,metadata_percent,chunk_size,vg_free,vg_extent_size \
  vg >$R/capture/lvs_units_b.json 2>&1
lvs --config "$q" --reportformat json --units b \
  -o lv_name,vg_name,segtype,lv_size,data_percent,lv_metadata_size,metadata_percent,chunk_size,vg_free,vg_extent_size \
  vg/pool >$R/capture/lvs_pool_suffix_b.json 2>&1
lvs --config "$q" --reportformat json vg >$R/capture/lvs_default.json 2>&1
lvmconfig activation >$R/capture/lvmconfig_activation.txt 2>&1
lvmconfig --type full activation >$R/capture/lvmconfig_full_activation.txt 2>&1
lvmconfig activation/thin_pool_autoextend_threshold activation/thin_pool_autoextend_percent \
  >$R/capture/lvmconfig_keys.txt 2>&1
# Whether lvm2 reads a setting written as a path (section/key=value) in a configuration: the value it reports.
lvmconfig --config "activation/thin_pool_autoextend_threshold=85" \
  activation/thin_pool_autoextend_threshold >$R/capture/lvmconfig_path_syntax.txt 2>&1
cp /etc/lvm/lvm.conf $R/capture/lvm.conf
# More for provpol's readers when capture_lvm_reports.sh boots the guest (pp_capture=1, a third disk /dev/vdc):
#   lvs_plus.json         the report provpol's --lvs asks for: lvs's default columns plus -o +FIELDS, in bytes
#   lvcreate_sizes.txt    lvcreate -L's reading of sizes on a VG of 4 MiB extents: each line the -L text, the LV's
#                         size in bytes as lvs reports it, and lvcreate's own words about rounding (the LVs are
#                         made inactive and unzeroed on the sparse third disk, then removed)
#   lvs_inactive.json     the pool deactivated (lvchange -an), in lvs's default columns, and lvs_plus_inactive.json
#                         in the report provpol asks for
if [ "${pp_capture:-0}" = 1 ]; then
  plus="+lv_metadata_size,chunk_size,vg_free,vg_extent_size"
  lvs --config "$q" --reportformat json --units b --nosuffix -o "$plus" vg/pool >$R/capture/lvs_plus.json 2>&1
  if [ -b /dev/vdc ]; then
    f='devices { filter = [ "a|^/dev/vdc$|", "r|.*|" ] }'
    run pvcreate -y --config "$f" /dev/vdc
    run vgcreate --config "$f" -s 4M sizes /dev/vdc
    n=0
    for s in 1.82t 1.82T 1.5g 100.5m 100.5M 1000s 1024b 4096k 2.5k 1.3k .5g 5.m 3.14159g 7.7777m 1.9999999t \
      0.1m 4.000001m 12345.678m 0.0001t 2.4g; do
      n=$((n + 1))
      said=$(lvcreate --config "$f $q" -an -Zn -L "$s" -n s$n sizes 2>&1 | grep -i rounding | tr '\n' ' ')
      b=$(lvs --config "$f $q" --noheadings --units b --nosuffix -o lv_size sizes/s$n 2>/dev/null | tr -d ' ')
      echo "$s ${b:-none} $said" >>$R/capture/lvcreate_sizes.txt
      run lvremove --config "$f" -y sizes/s$n
    done
  fi
  run lvchange -an vg/thin
  run lvchange -an vg/pool
  lvs --config "$q" --reportformat json vg >$R/capture/lvs_inactive.json 2>&1
  lvs --config "$q" --reportformat json --units b --nosuffix -o "$plus" vg/pool >$R/capture/lvs_plus_inactive.json 2>&1
fi
finish 0
