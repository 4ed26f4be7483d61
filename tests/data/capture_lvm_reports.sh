#!/usr/bin/env bash
# Captures what lvm2 itself prints about a thin pool, for provpol's readers of an operator's system (--lvs,
# --config lvm.conf): boots the LVM e2e guest (tests/e2e/lvm_guest.sh: Debian 12's lvm2 and kernel under QEMU),
# which builds a VG, a thin pool with dmeventd autoextending it (threshold 70, percent 20), fills it past a few
# extends, and runs lvs --reportformat json, lvmconfig and lvm version; with pp_capture=1 and a sparse third disk
# it also reads lvcreate -L's sizes and reports the pool deactivated (lvm_guest_init.sh says what each file holds);
# the outputs are copied unchanged into tests/data/lvm2_<version>/. A file already there is kept (the tests hold the
# values read off it; each run's pool fills a little differently) unless PROVPOL_RECAPTURE=1. Run by hand, as root
# (the guest's packages are fetched with apt-get download):
#   tests/data/capture_lvm_reports.sh [CACHE_DIR]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${1:-$here/../../build/lvm-guest}
guest=$(bash "$here/../e2e/lvm_guest.sh" "$cache")
work=$(mktemp -d /tmp/provpol-lvm-capture.XXXXXX)
trap 'rm -rf "$work"' EXIT
truncate -s 512M "$work/vg.img"
truncate -s 32M "$work/results.img"
truncate -s 8T "$work/sizes.img"  # sparse: lvcreate -L's sizes are read on it (only LVM's metadata is written)
timeout 900 qemu-system-x86_64 -accel tcg,thread=multi -m 512 -smp 2 -display none -no-reboot -monitor none \
  -serial "file:$work/console.log" -kernel "$guest/vmlinuz" -initrd "$guest/initrd.gz" \
  -append "console=ttyS0 loglevel=4 panic=-1 pp_pool_mib=64 pp_thin_mib=1024 pp_rate=16777216 pp_total=104857600 pp_capture=1" \
  -drive "file=$work/vg.img,if=virtio,format=raw,cache=unsafe" \
  -drive "file=$work/results.img,if=virtio,format=raw,cache=unsafe" \
  -drive "file=$work/sizes.img,if=virtio,format=raw,cache=unsafe"
mkdir "$work/r"
tar -xf "$work/results.img" -C "$work/r"
grep -q 'init status 0' "$work/r/init.log" || { echo "the guest did not complete its run" >&2; exit 1; }
version=$(awk '/LVM version/ { print $3; exit }' "$work/r/capture/lvm_version.txt" | cut -d'(' -f1)
out=$here/lvm2_$version
mkdir -p "$out"
for f in "$work/r/capture/"*; do
  if [ -e "$out/${f##*/}" ] && [ "${PROVPOL_RECAPTURE:-0}" != 1 ]; then echo "kept $out/${f##*/}"; else cp "$f" "$out/"; fi
done
echo "captured lvm2 $version into $out"
