#!/usr/bin/env bash
# Assembles the QEMU guest of the LVM e2e test (lvm_test.sh): Debian 12's kernel and an initramfs holding
# lvm2, dmeventd, dmsetup, busybox, the device-mapper and virtio modules, lvm_guest_tool (built here, static)
# and lvm_guest_init.sh as /init. Nothing is installed on the host: the packages are fetched with
# `apt-get download` and unpacked with `dpkg-deb -x`.
#
# Usage: lvm_guest.sh CACHE_DIR
# Prints the directory holding vmlinuz and initrd.gz. The guest is cached under CACHE_DIR in a directory named by
# a hash of the packages' candidate versions and of the files it is built from, so a second run (and any run
# until apt-get update brings a new version) reuses it.
#
# Exit status: 0 the guest is ready; 77 this machine cannot build it (the reason on stderr); 1 a failure.
set -euo pipefail
cache=${1:?usage: $0 CACHE_DIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

skip() { echo "lvm_guest: skipped: $*" >&2; exit 77; }
for tool in apt-get apt-cache dpkg-deb cpio gzip gcc readelf sha256sum; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done

# The kernel: whatever linux-image-amd64 points at (Debian 12: 6.1.0-N-amd64).
kernel_pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }')
[ -n "$kernel_pkg" ] || skip "apt-cache knows no linux-image-amd64 (run apt-get update)"
# lvm2 and dmeventd with every library their binaries and plugins link (checked below with readelf), and a
# static busybox for the shell, insmod, tar and poweroff.
packages=("$kernel_pkg" lvm2 dmsetup dmeventd libdevmapper1.02.1 libdevmapper-event1.02.1 liblvm2cmd2.03 libaio1
          libblkid1 libc6 libedit2 libselinux1 libsystemd0 libudev1 libpcre2-8-0 libcap2 libgcrypt20
          libgpg-error0 liblz4-1 liblzma5 libzstd1 libbsd0 libtinfo6 libmd0 busybox-static)
# The modules, in load order (each one's depends= comes before it; checked below). libcrc32c asks the crypto
# API for "crc32c", which crc32c_generic provides: there is no modprobe to load it on demand.
modules=(virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci virtio_blk
         crc32c_generic libcrc32c dm-mod dm-bufio dm-persistent-data dm-bio-prison dm-thin-pool)

# One apt-cache call for all (it costs about a second per call): "package=candidate" lines.
versions=$(apt-cache policy "${packages[@]}" 2>/dev/null |
  awk '/^[^ ]/ { sub(/:$/, "", $1); p = $1 } $1 == "Candidate:" && $2 != "(none)" { print p "=" $2 }')
for p in "${packages[@]}"; do
  grep -q "^$p=" <<<"$versions" || skip "package $p has no candidate version (run apt-get update)"
done
key=$( (echo "$versions"; cat "$0" "$here/lvm_guest_init.sh" "$here/lvm_guest_tool.c"; gcc --version | head -1) |
  sha256sum | cut -c1-16)
out=$cache/$key
if [ -s "$out/vmlinuz" ] && [ -s "$out/initrd.gz" ]; then
  echo "$out"
  exit 0
fi

mkdir -p "$cache"
work=$(mktemp -d "$cache/build.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/debs" "$work/root" "$work/kernel"
# apt-get download as root warns that the _apt user cannot write here; the download itself works.
if ! (cd "$work/debs" && apt-get download -qq "${packages[@]}" 2>"$work/apt.err"); then
  grep -v 'unsandboxed as root' "$work/apt.err" >&2 || true
  skip "apt-get download ${packages[*]} failed (is the Debian mirror reachable?)"
fi
for p in "${packages[@]}"; do
  compgen -G "$work/debs/${p}_*.deb" >/dev/null || skip "apt-get download did not fetch $p"
done

for deb in "$work/debs"/*.deb; do
  case ${deb##*/} in
    linux-image-*) ;;
    *) dpkg-deb -x "$deb" "$work/root" ;;
  esac
done
dpkg-deb --fsys-tarfile "$work/debs/${kernel_pkg}"_*.deb |
  tar -x -C "$work/kernel" --wildcards './boot/vmlinuz-*' './lib/modules/*/kernel/drivers/md/*' \
    './lib/modules/*/kernel/drivers/virtio/*' './lib/modules/*/kernel/drivers/block/virtio_blk.ko' \
    './lib/modules/*/kernel/lib/libcrc32c.ko' './lib/modules/*/kernel/crypto/crc32c_generic.ko'

root=$work/root
rm -rf "$root/usr/share" "$root/usr/lib/x86_64-linux-gnu/gconv" "$root/lib/systemd" "$root/lib/udev"
mkdir -p "$root/lib/modules" "$root/proc" "$root/sys" "$root/dev" "$root/run" "$root/tmp" "$root/etc/lvm"
loaded=" "
for m in "${modules[@]}"; do
  ko=$(find "$work/kernel/lib/modules" -name "$m.ko")
  [ -n "$ko" ] || { echo "lvm_guest: $kernel_pkg has no $m.ko" >&2; exit 1; }
  deps=$(tr '\0' '\n' <"$ko" | sed -n 's/^depends=//p' | head -1 | tr ',' ' ')
  for d in $deps; do
    case $loaded in *" $d "*) ;; *) echo "lvm_guest: $m needs $d, which is not loaded before it" >&2; exit 1 ;; esac
  done
  loaded+="$m "
  cp "$ko" "$root/lib/modules/"
done
echo "${modules[*]}" >"$root/lib/modules/order"
cp "$work"/kernel/boot/vmlinuz-* "$work/vmlinuz"

# Every library a binary or a dmeventd plugin needs must be in the initramfs (the dynamic loader finds
# /lib/x86_64-linux-gnu and /usr/lib/x86_64-linux-gnu without a cache).
missing=""
for lib in $(find "$root/sbin" "$root/lib" "$root/usr/lib" -type f \( -perm -u+x -o -name '*.so*' \) -exec readelf -d {} + 2>/dev/null |
    sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | sort -u); do
  [ -e "$root/lib/x86_64-linux-gnu/$lib" ] || [ -e "$root/usr/lib/x86_64-linux-gnu/$lib" ] || [ -e "$root/lib64/$lib" ] ||
    missing+=" $lib"
done
[ -z "$missing" ] || { echo "lvm_guest: libraries missing from the guest:$missing" >&2; exit 1; }

gcc -static -O2 -Wall -Wextra -Werror -o "$root/bin/lvm_guest_tool" "$here/lvm_guest_tool.c" ||
  skip "gcc -static failed (is libc6-dev installed?)"
install -m 755 "$here/lvm_guest_init.sh" "$root/init"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1 >"$work/initrd.gz")

mkdir -p "$out.tmp.$$"
mv "$work/vmlinuz" "$work/initrd.gz" "$out.tmp.$$/"
echo "$versions" >"$out.tmp.$$/versions"
rm -rf "$out"
mv "$out.tmp.$$" "$out"
echo "$out"
