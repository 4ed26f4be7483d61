#!/bin/busybox sh
# /agent_lvm_init of the agent-on-LVM e2e guest (agent_lvm_guest.sh builds it, agent_lvm_test.sh boots it with
# rdinit=/agent_lvm_init). A VG on /dev/vda (no dmeventd: thick LVs), then provpol-agent --lvm once per drive count
# in pp_drives, one after the other: each drive a new thick LV with a qcow2 image that qemu-storage-daemon serves,
# written by the agent's guests, extended by the real lvextend and refreshed by lvchange --refresh. Every lvm2
# command runs with the flock shim (agent_lvm_flock.c): its VG-lock waits go to flock.log. The results are
# written as a tar archive to /dev/vdb; then the guest powers off.
#
# Parameters, from the kernel command line (pp_NAME=VALUE):
#   runs                      the runs, comma-separated NAME:DRIVES:CHUNK_MIB:PERCENT (n1:1:20:20,n4:4:20:20);
#                             each one's results in NAME/
#   extent                    the VG's extent (provpol-agent --extent), N MiB
#   rate write capacity seed  each guest's rate, bytes written and disk size (provpol-agent's syntax)
/bin/busybox mkdir -p /usr/bin /usr/sbin
/bin/busybox --install -s /bin
export PATH=/sbin:/usr/sbin:/bin:/usr/bin
# lvm2 warns of every descriptor it inherits; the agent's children inherit none but their own /dev/null.
export LVM_SUPPRESS_FD_WARNINGS=1
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs run /run
mkdir -p /run/r /run/lock/lvm /run/lvm /run/w /tmp
R=/run/r
T=/bin/lvm_guest_tool

pp_runs=n1:1:20:20 pp_extent=1MiB pp_rate=2MiB/s pp_write=24MiB pp_capacity=64MiB pp_seed=1
for w in $(cat /proc/cmdline); do
  case $w in pp_*=*) eval "${w%%=*}='${w#*=}'" ;; esac
done
log() { echo "$($T now) init $*" >>$R/init.log; echo "guest: $*" >/dev/console; }
finish() {  # finish STATUS: the results to /dev/vdb, then power off
  echo "$($T now) init status $1" >>$R/init.log
  tar -cf /dev/vdb -C $R .
  sync
  echo "guest: results written, status $1" >/dev/console
  poweroff -f
}
set | grep '^pp_' >$R/params

for m in $(cat /lib/modules/order); do
  insmod /lib/modules/$m.ko || { log "insmod $m failed"; finish 1; }
done
for i in $(seq 50); do [ -b /dev/vda ] && [ -b /dev/vdb ] && break; sleep 0.1; done
[ -b /dev/vda ] || { log "no /dev/vda"; finish 1; }

cat >/etc/lvm/lvm.conf <<EOF
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
}
backup { backup = 0 archive = 0 }
log { verbose = 0 syslog = 0 level = 0 command_names = 1 }
activation {
  udev_sync = 0
  udev_rules = 0
  verify_udev_operations = 1
  monitoring = 0
}
EOF
extent_kib=$(echo "$pp_extent" | sed -n 's/^\([0-9]*\)MiB$/\1/p')
[ -n "$extent_kib" ] || { log "pp_extent must be N MiB, got $pp_extent"; finish 1; }
s=$($T now)
pvcreate -y /dev/vda >>$R/cmds.log 2>&1 && vgcreate -s "${extent_kib}M" vg /dev/vda >>$R/cmds.log 2>&1 ||
  { log "pvcreate/vgcreate failed: $(tail -2 $R/cmds.log)"; finish 1; }
log "vg up in $(awk -v a="$s" -v b="$($T now)" 'BEGIN { printf "%.2f", b - a }') s: $(vgs --noheadings -o vg_size,vg_extent_size vg 2>&1)"

export LD_PRELOAD=/usr/lib/agent_lvm_flock.so
status=0
for run in $(echo "$pp_runs" | tr ',' ' '); do
  set -- $(echo "$run" | tr ':' ' ')
  name=$1 n=$2 chunk=$3 percent=$4
  d=$R/$name
  mkdir -p $d
  export PROVPOL_FLOCK_LOG=$d/flock.log
  log "run $name: $n drives, chunk ${chunk}MiB, $percent%, $pp_write each at $pp_rate"
  echo "$($T now) start" >$d/times
  provpol-agent --chunk "${chunk}MiB" --percent "$percent" --extent "$pp_extent" --rate "$pp_rate" \
    --write "$pp_write" --capacity "$pp_capacity" --seed "$pp_seed" --drives "$n" --lvm vg --workdir /run/w \
    --csv $d/events.csv --extends-csv $d/extends.csv >$d/agent.out 2>&1
  rc=$?
  echo "$($T now) end rc=$rc" >>$d/times
  log "run $name: agent exit $rc: $(tail -1 $d/agent.out)"
  [ $rc -eq 0 ] || status=1
  lvs -a vg >>$d/lvs.log 2>&1
done
unset LD_PRELOAD
finish $status
