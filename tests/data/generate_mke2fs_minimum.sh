#!/usr/bin/env bash
# The smallest filesystem mke2fs -t ext4 makes, per block size: runs the real mke2fs -n on sparse files of
# 0 bytes and of 50 to 61 blocks, and prints block_size,blocks,verdict (made or refused). Usage:
#   tests/data/generate_mke2fs_minimum.sh > tests/data/mke2fs_1.47_minimum.csv
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# $(mke2fs -V 2>&1 | head -1); mke2fs -n -F -t ext4 -b BLOCK_SIZE on a sparse file of BLOCKS blocks"
echo "block_size,blocks,verdict"
for bs in 1024 2048 4096 8192 16384 32768 65536; do
  for n in 0 50 51 52 53 54 55 56 57 58 59 60 61; do
    truncate -s 0 "$tmp/fs.img"
    truncate -s $((n * bs)) "$tmp/fs.img"
    if mke2fs -n -F -q -t ext4 -b "$bs" "$tmp/fs.img" >/dev/null 2>&1; then v=made; else v=refused; fi
    echo "$bs,$n,$v"
  done
done
