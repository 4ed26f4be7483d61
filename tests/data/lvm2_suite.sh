#!/usr/bin/env bash
# Sourced by the lvm2 capture scripts: unpacks a Debian suite's lvm2 and the libraries it runs on into a directory
# (apt-get download with a private apt state under it, then dpkg-deb -x: nothing is installed on this machine) and
# runs its lvm through that suite's own dynamic loader, so that Debian 13's lvm2 runs on a Debian 12 machine too.
# lvmconfig works without device-mapper. Needs network access to Debian's archive.
#   lvm2_unpack SUITE DIR     e.g. lvm2_unpack trixie /tmp/x
#   lvm2_run DIR ARGS...      runs DIR's lvm (lvm2_run DIR lvmconfig --type default), LVM_SYSTEM_DIR as set

lvm2_unpack() {
  local suite=$1 dir=$2
  mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" "$dir/debs" "$dir/root"
  echo "deb http://deb.debian.org/debian $suite main" >"$dir/apt/sources.list"
  local opts=(-o "Dir::Etc::SourceList=$dir/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache=$dir/apt/cache" -o Dir::State::status=/dev/null
    -o APT::Architecture=amd64 -o APT::Sandbox::User=root)
  apt-get "${opts[@]}" -qq update
  # lvm2 and what its lvm binary links (Depends of lvm2, libdevmapper1.02.1 and libc6, one level down for the
  # libraries those pull in); the names differ between suites, so each is tried and a missing one skipped.
  local pkgs=(lvm2 libdevmapper1.02.1 libdevmapper-event1.02.1 libaio1 libaio1t64 libblkid1 libc6 libedit2
    libselinux1 libsystemd0 libudev1 libpcre2-8-0 libbsd0 libmd0 libtinfo6 libcap2 libgcrypt20 libgpg-error0
    liblz4-1 liblzma5 libzstd1)
  (cd "$dir/debs" && for p in "${pkgs[@]}"; do apt-get "${opts[@]}" -qq download "$p" 2>/dev/null || true; done)
  for d in "$dir"/debs/*.deb; do dpkg-deb -x "$d" "$dir/root"; done
  [ -x "$dir/root/usr/sbin/lvm" ] || [ -x "$dir/root/sbin/lvm" ] || { echo "no lvm in $suite's lvm2" >&2; return 1; }
}

lvm2_run() {
  local dir=$1
  shift
  local root=$dir/root lib=$dir/root/usr/lib/x86_64-linux-gnu lvm=$dir/root/usr/sbin/lvm loader
  [ -x "$lvm" ] || lvm=$root/sbin/lvm
  loader=$lib/ld-linux-x86-64.so.2
  [ -e "$loader" ] || loader=$root/lib64/ld-linux-x86-64.so.2
  [ -e "$loader" ] || loader=$root/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2
  LVM_SUPPRESS_FD_WARNINGS=1 "$loader" --library-path "$lib:$root/lib/x86_64-linux-gnu" "$lvm" "$@"
}
