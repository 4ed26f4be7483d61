#!/usr/bin/env bash
# thin_metadata_size's estimates, from the real tool (Debian 12's thin-provisioning-tools 0.9.0: apt-get install
# thin-provisioning-tools), for the parity test of thin_metadata_estimate_blocks (tests/lvm_metadata_test.cpp).
#
#   tests/data/capture_thin_metadata_size.sh   writes thin_metadata_size/debian12_<version>.csv next to this script:
#                                              block size, pool size and thins in bytes and counts, and the bytes
#                                              `thin_metadata_size -b B -s S -m M -u b -n` printed
# Pool sizes cover whole and partial 126-chunk leaves, chunks from 64 KiB to 1 GiB and 1 to 10000 thins.
set -euo pipefail
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v thin_metadata_size >/dev/null || { echo "thin_metadata_size is not installed (apt-get install thin-provisioning-tools)" >&2; exit 1; }
version=$(dpkg-query -W -f='${Version}' thin-provisioning-tools | sed 's/-.*//')
out=$here/thin_metadata_size/debian12_$version.csv
mkdir -p "$(dirname "$out")"
{
  echo "block_bytes,pool_bytes,thins,metadata_bytes"
  for block in 65536 131072 524288 1048576 1073741824; do
    for chunks in 2 125 126 127 252 253 1000 16384 1638400 16777216 671088640; do
      for thins in 1 7 10000; do
        pool=$((block * chunks))
        [ "$pool" -le $((1 << 50)) ] || continue
        bytes=$(thin_metadata_size -b "$block"b -s "$pool"b -m "$thins" -u b -n)
        echo "$block,$pool,$thins,$bytes"
      done
    done
  done
} >"$out"
echo "wrote $out ($(($(wc -l <"$out") - 1)) rows)"
