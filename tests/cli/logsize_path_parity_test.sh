#!/usr/bin/env bash
# logsize against mkfs.xfs -N's own answers for the targets of tests/data/logsize_path_mkfs.csv (captured from
# mkfs.xfs 6.13 and 7.2 by tests/data/capture_logsize_path.sh): an image row through --path on a sparse file of
# the same size, a loop-device row through the facts the capture read from the device (size, physical sector,
# rotational flag, CPUs) typed in -- cli.logsize_path checks, as root, that --path on a loop device reads those
# same facts, and e2e.logsize_path runs --path itself against the live mkfs where the Debian roots exist.
# Compared: agcount, agsize, data blocks, sector size, data sunit/swidth, log blocks, log sector size, log sunit.
# (mke2fs's stride columns are tests/log_size_test.cpp's.)
# Usage: logsize_path_parity_test.sh path/to/provpol
. "$(dirname "$0")/lib.sh"
data="$(dirname "$0")/../data/logsize_path_mkfs.csv"

fields() {  # the nine compared fields of a logsize --format csv answer
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
           { print $col["agcount"] "," $col["agsize_blocks"] "," $col["data_blocks"] "," $col["sector_size"] "," \
                   $col["sunit_blocks"] "," $col["swidth_blocks"] "," $col["log_blocks"] "," $col["sector_size"] "," \
                   $col["log_sunit_blocks"] }' "$out"
}
rows=0
while IFS=, read -r version target size logical physical min_io opt_io rot cpus ag agsize data sect su sw lb ls lsu e_stride e_width; do
  case "$version" in \#*|version) continue ;; esac
  rows=$((rows + 1))
  rest="$ag,$agsize,$data,$sect,$su,$sw,$lb,$ls,$lsu"
  # A stripe the device reported (min_io/opt_io) is typed in as the -d su/sw mkfs printed it took (4 KiB blocks);
  # which stripe mkfs takes from the topology is tests/log_size_test.cpp's check, on the same rows.
  stripe=()
  [ "$su" != 0 ] && stripe=(--su $((su * 4096)) --sw $((sw / su)))
  if [ "$target" = image ]; then
    truncate -s 0 "$scratch/img"; truncate -s "$size" "$scratch/img"
    expect_ok logsize --path "$scratch/img" --preset "xfsprogs-$version" --format csv
  elif [ "$rot" = 0 ]; then
    expect_ok logsize --size "$size" --sector-size "$physical" --rotational 0 --cpus "$cpus" "${stripe[@]}" --preset "xfsprogs-$version" --format csv
  else
    expect_ok logsize --size "$size" --sector-size "$physical" --rotational 1 "${stripe[@]}" --preset "xfsprogs-$version" --format csv
  fi
  checks=$((checks + 1))
  got=$(fields)
  [ "$got" = "$rest" ] || fail "$version $target size $size sector $physical rotational ${rot:--} cpus $cpus: mkfs.xfs -N $rest, logsize $got"
done < "$data"
checks=$((checks + 1)); [ "$rows" -ge 78 ] || fail "only $rows rows in $data"
finish
