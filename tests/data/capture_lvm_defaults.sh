#!/usr/bin/env bash
# Captures lvm2's built-in defaults and stock /etc/lvm/lvm.conf as Debian ships them, for "absent means lvm2's own
# default" (a key no file sets takes lvm2's built-in value for the version the host runs): for Debian 12 (bookworm)
# and Debian 13 (trixie), unpacks the suite's lvm2 (lvm2_suite.sh: apt-get download, dpkg-deb -x) and writes into
# tests/data/lvm2_<version>/:
#   stock_lvm.conf              the package's /etc/lvm/lvm.conf, unchanged
#   lvm_version_stock.txt       lvm version (the first line names the version)
#   lvmconfig_default.txt       lvmconfig --type default --withversions (every setting's built-in default)
#   lvmconfig_full_empty.txt    lvmconfig --type full, with an lvm.conf that sets nothing (an empty global
#                               section): what lvm2 runs with when no file sets anything
#   lvmconfig_full_stock.txt    lvmconfig --type full activation, with the stock lvm.conf
# LVM_SYSTEM_DIR points lvmconfig at a directory of our own, so this machine's /etc/lvm is never read.
# Run by hand (network access to Debian's archive; root for apt-get's private state is not needed):
#   tests/data/capture_lvm_defaults.sh [WORK_DIR]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lvm2_suite.sh"
work=${1:-$(mktemp -d /tmp/provpol-lvm-defaults.XXXXXX)}
for suite in bookworm trixie; do
  dir=$work/$suite
  [ -x "$dir/root/usr/sbin/lvm" ] || [ -x "$dir/root/sbin/lvm" ] || lvm2_unpack "$suite" "$dir"
  version=$(lvm2_run "$dir" version 2>/dev/null | awk '/LVM version/ { print $3; exit }' | cut -d'(' -f1)
  [ -n "$version" ] || { echo "$suite: lvm version printed no version" >&2; exit 1; }
  out=$here/lvm2_$version
  mkdir -p "$out" "$dir/empty" "$dir/stock"
  cp "$dir/root/etc/lvm/lvm.conf" "$out/stock_lvm.conf"
  cp "$dir/root/etc/lvm/lvm.conf" "$dir/stock/lvm.conf"
  printf 'global {\n}\n' >"$dir/empty/lvm.conf" # lvmconfig cannot print a tree with no node at all
  lvm2_run "$dir" version 2>/dev/null | head -n 1 >"$out/lvm_version_stock.txt"
  LVM_SYSTEM_DIR=$dir/empty lvm2_run "$dir" lvmconfig --type default --withversions >"$out/lvmconfig_default.txt"
  LVM_SYSTEM_DIR=$dir/empty lvm2_run "$dir" lvmconfig --type full >"$out/lvmconfig_full_empty.txt"
  LVM_SYSTEM_DIR=$dir/stock lvm2_run "$dir" lvmconfig --type full activation >"$out/lvmconfig_full_stock.txt"
  echo "$suite: lvm2 $version into $out"
done
