#!/usr/bin/env bash
# logsize --path: the geometry read as mkfs reads it gives the answer of the same facts typed in --
# an image file, and (as root) a loop device with queue/rotational 0 and 1. Read only; anything else refused.
# (The parity of these answers with mkfs.xfs -N itself is the e2e suite's: mkfs.xfs is not on the build host.)
# Usage: logsize_path_test.sh path/to/provpol
. "$(dirname "$0")/lib.sh"

img="$scratch/disk.img"
truncate -s 300GiB "$img"
expect_ok logsize --size 300GiB --format csv
cp "$out" "$scratch/typed.csv"
expect_ok logsize --path "$img" --format csv
checks=$((checks + 1)); cmp -s "$out" "$scratch/typed.csv" || fail "--path IMAGE differs from --size 300GiB"
expect_ok logsize --path "$img"
expect_stdout "^# read from $img \(image file\): size 322122547200, sectors 512 logical / 512 physical"
expect_ok logsize --path "$img" --size 1GiB --format csv   # an option given overrides what was read
cp "$out" "$scratch/override.csv"
expect_ok logsize --size 1GiB --format csv
checks=$((checks + 1)); cmp -s "$out" "$scratch/override.csv" || fail "--size does not override --path"
checks=$((checks + 1)); [ "$(stat -c %s "$img")" = 322122547200 ] && [ "$(du -k "$img" | cut -f1)" -lt 1024 ] || fail "--path wrote to the image"
expect_usage "^provpol logsize: --path: '/dev/null' is a character device, neither a block device nor a regular file" logsize --path /dev/null
expect_usage "^provpol logsize: --path: '$scratch' is a directory, neither" logsize --path "$scratch"
expect_usage "^provpol logsize: --path: cannot open '$scratch/none'" logsize --path "$scratch/none"

# A loop device over the image, rotational 0 and 1 (root only; skipped, and said so, elsewhere).
loop=""
if [ "$(id -u)" -eq 0 ] && loop=$(losetup -f --show "$img" 2>/dev/null); then
  rot="/sys/block/${loop#/dev/}/queue/rotational"
  trap 'losetup -d "$loop"; rm -rf "$scratch"' EXIT
  for r in 0 1; do
    if echo "$r" >"$rot" 2>/dev/null; then
      expect_ok logsize --path "$loop" --format csv
      cp "$out" "$scratch/read.csv"
      if [ "$r" -eq 0 ]; then
        expect_ok logsize --size 300GiB --sector-size 512 --rotational 0 --cpus "$(getconf _NPROCESSORS_ONLN)" --format csv
      else
        expect_ok logsize --size 300GiB --sector-size 512 --rotational 1 --format csv
      fi
      checks=$((checks + 1)); cmp -s "$out" "$scratch/read.csv" || fail "--path $loop (rotational $r) differs from the facts typed in"
      expect_ok logsize --path "$loop"
      expect_stdout "^# read from $loop \(block device\): size 322122547200, .* rotational $r, [0-9]+ online CPUs; no stripe \\(minimum or optimal I/O is the physical sector\\)$"
    else
      echo "skipped: cannot write $rot"
    fi
  done
else
  echo "skipped: the loop device checks need root and losetup"
fi
finish
