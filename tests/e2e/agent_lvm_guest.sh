#!/usr/bin/env bash
# Assembles the guest of the agent-on-LVM e2e test (agent_lvm_test.sh): the LVM guest of lvm_guest.sh (Debian 12's
# kernel, lvm2, busybox) plus a second initramfs archive, appended to its initrd (the kernel unpacks concatenated
# archives in order), holding qemu-storage-daemon, qemu-img and qemu-io with every library they link (Debian's
# packages, fetched with `apt-get download`, checked with readelf as lvm_guest.sh checks lvm2's), provpol-agent
# with the C++ runtime it links (copied from this machine: it is built here), the flock shim agent_lvm_flock.c
# (built here) and agent_lvm_init.sh, which the test boots with rdinit=/agent_lvm_init.
#
# Usage: agent_lvm_guest.sh CACHE_DIR PROVPOL_AGENT
# Prints the directory holding vmlinuz and initrd.gz, cached under CACHE_DIR by a hash of the packages' versions,
# the base guest, the agent binary and the files it is built from.
# Exit status: 0 the guest is ready; 77 this machine cannot build it (the reason on stderr); 1 a failure.
set -euo pipefail
cache=${1:?usage: $0 CACHE_DIR PROVPOL_AGENT}
agent=${2:?usage: $0 CACHE_DIR PROVPOL_AGENT}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

skip() { echo "agent_lvm_guest: skipped: $*" >&2; exit 77; }
for tool in apt-get apt-cache dpkg-deb cpio gzip gcc readelf sha256sum ldd; do
  command -v "$tool" >/dev/null || skip "$tool is not installed"
done
[ -x "$agent" ] || skip "provpol-agent is not built ($agent)"
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)  # lvm_guest.sh works in other directories

base=$(bash "$here/lvm_guest.sh" "$cache") || exit $?

# qemu-storage-daemon (qemu-system-common), qemu-img and qemu-io (qemu-utils), and the libraries they link that the
# LVM guest lacks (checked below).
packages=(qemu-system-common qemu-utils libffi8 libglib2.0-0 libgmp10 libgnutls30 libhogweed6 libidn2-0 libnettle8
          libnuma1 libp11-kit0 libtasn1-6 libunistring2 liburing2 libfuse3-3 libmount1 zlib1g)
binaries=(usr/bin/qemu-storage-daemon usr/bin/qemu-img usr/bin/qemu-io)
versions=$(apt-cache policy "${packages[@]}" 2>/dev/null |
  awk '/^[^ ]/ { sub(/:$/, "", $1); p = $1 } $1 == "Candidate:" && $2 != "(none)" { print p "=" $2 }')
for p in "${packages[@]}"; do
  grep -q "^$p=" <<<"$versions" || skip "package $p has no candidate version (run apt-get update)"
done
key=$( (echo "$versions"; echo "$base"; sha256sum "$agent"; cat "$0" "$here/agent_lvm_init.sh" "$here/agent_lvm_flock.c"
        gcc --version | head -1) | sha256sum | cut -c1-16)
out=$cache/agent-$key
if [ -s "$out/vmlinuz" ] && [ -s "$out/initrd.gz" ]; then
  echo "$out"
  exit 0
fi

work=$(mktemp -d "$cache/agent-build.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/debs" "$work/x" "$work/root"
if ! (cd "$work/debs" && apt-get download -qq "${packages[@]}" 2>"$work/apt.err"); then
  grep -v 'unsandboxed as root' "$work/apt.err" >&2 || true
  skip "apt-get download ${packages[*]} failed (is the Debian mirror reachable?)"
fi
for deb in "$work/debs"/*.deb; do dpkg-deb -x "$deb" "$work/x"; done
root=$work/root
mkdir -p "$root/usr/bin" "$root/usr/lib/x86_64-linux-gnu"
for b in "${binaries[@]}"; do
  [ -x "$work/x/$b" ] || { echo "agent_lvm_guest: the packages hold no $b" >&2; exit 1; }
  cp "$work/x/$b" "$root/usr/bin/"
done
for d in lib/x86_64-linux-gnu usr/lib/x86_64-linux-gnu; do
  [ -d "$work/x/$d" ] && find "$work/x/$d" -maxdepth 1 \( -type f -o -type l \) -name '*.so*' -exec cp -a {} "$root/usr/lib/x86_64-linux-gnu/" \;
done
# The agent, and the libraries of this machine it links that the LVM guest does not have (libstdc++, libgcc_s).
in_base=$(zcat "$base/initrd.gz" | cpio -t --quiet 2>/dev/null | sed -n 's|^\./||; s|^\(usr/\)\{0,1\}lib\(64\)\{0,1\}/\(x86_64-linux-gnu/\)\{0,1\}||p' | sort -u)
cp "$agent" "$root/usr/bin/provpol-agent"
for lib in $(ldd "$agent" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'); do
  grep -qx "$(basename "$lib")" <<<"$in_base" || cp -L "$lib" "$root/usr/lib/x86_64-linux-gnu/"
done
gcc -shared -fPIC -O2 -Wall -Wextra -Werror -o "$root/usr/lib/agent_lvm_flock.so" "$here/agent_lvm_flock.c" -ldl ||
  skip "gcc -shared failed"
install -m 755 "$here/agent_lvm_init.sh" "$root/agent_lvm_init"

# Every library the binaries need must be in one of the two archives.
missing=""
for lib in $(readelf -d "$root/usr/bin/"* "$root/usr/lib/x86_64-linux-gnu/"*.so* "$root/usr/lib/agent_lvm_flock.so" 2>/dev/null |
    sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | sort -u); do
  [ -e "$root/usr/lib/x86_64-linux-gnu/$lib" ] || grep -qx "$lib" <<<"$in_base" || missing+=" $lib"
done
[ -z "$missing" ] || { echo "agent_lvm_guest: libraries missing from the guest:$missing" >&2; exit 1; }

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -1 >"$work/overlay.gz")
mkdir -p "$out.tmp.$$"
cp "$base/vmlinuz" "$out.tmp.$$/"
cat "$base/initrd.gz" "$work/overlay.gz" >"$out.tmp.$$/initrd.gz"
{ cat "$base/versions"; echo "$versions"; } >"$out.tmp.$$/versions"
rm -rf "$out"
mv "$out.tmp.$$" "$out"
echo "$out"
