#!/usr/bin/env bash
# CLI tests of `provpol chunk`: presets, device limits from flags and from --path (checked against sysfs read
# here, not by provpol), samples (xen-api CA-42914's dd tables; the published tables of tests/data/chunk_tables, with
# both rules), rsync's block length, the deadline planner, and bad input (exit 2, exactly one line on stderr,
# nothing on stdout).
#   chunk_test.sh PATH/TO/provpol
set -u
provpol=$1
tables=$(cd "$(dirname "$0")/../data/chunk_tables" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# run ARGS...: runs provpol chunk, leaving $out, $err, $rc.
run() {
  "$provpol" chunk "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  out=$(cat "$tmp/out")
  err=$(cat "$tmp/err")
}

# field NAME: the value of column NAME in the CSV in $out (header + one row).
field() {
  awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i } NR == 2 && c { print $c }' <<<"$out"
}

# expect_csv DESCRIPTION NAME=VALUE... -- ARGS...: runs with --format csv and checks fields.
expect_csv() {
  local what=$1
  shift
  local checks=()
  while [ "$1" != "--" ]; do
    checks+=("$1")
    shift
  done
  shift
  run "$@" --format csv
  if [ "$rc" -ne 0 ]; then
    fail "$what: exit $rc, stderr: $err"
    return
  fi
  [ -z "$err" ] || fail "$what: stderr not empty: $err"
  case "$out" in chunk_size,decided_by,*) ;; *) fail "$what: csv does not start with chunk_size,decided_by" ;; esac
  local c name want got
  for c in "${checks[@]}"; do
    name=${c%%=*}
    want=${c#*=}
    got=$(field "$name")
    [ "$got" = "$want" ] || fail "$what: $name is '$got', expected '$want'"
  done
}

# expect_usage DESCRIPTION PATTERN ARGS...: exit 2, one line on stderr matching PATTERN, nothing on stdout.
expect_usage() {
  local what=$1 pattern=$2
  shift 2
  run "$@"
  [ "$rc" -eq 2 ] || fail "$what: exit $rc, expected 2"
  [ -z "$out" ] || fail "$what: stdout not empty: $out"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "$what: stderr is not one line: $err"
  printf '%s' "$err" | grep -q -- "$pattern" || fail "$what: stderr '$err' does not match '$pattern'"
}

# --- presets on a device that imposes nothing: the tools' own sizes (sources in chunk.hpp) ------------------------
expect_csv "default preset" chunk_size=65536 decided_by=default preset=xapi-redo-log mode=buffered-dsync --
expect_csv "xapi 2010" chunk_size=16384 decided_by=default mode=buffered-dsync -- --preset xapi-redo-log-2010
expect_csv "coreutils" chunk_size=262144 decided_by=default mode=buffered -- --preset coreutils-cp
expect_csv "coreutils 2014" chunk_size=131072 -- --preset coreutils-cp-2014
expect_csv "qemu-img" chunk_size=2097152 mode=buffered -- --preset qemu-img-convert
expect_csv "ovirt-imageio" chunk_size=8388608 mode=direct granularity=4096 buffer_alignment=4096 -- --preset ovirt-imageio
expect_csv "ovirt-imageio client" chunk_size=4194304 mode=direct -- --preset ovirt-imageio-client
# coreutils' releases (IO_BUFSIZE in src/system.h of 7.2, src/ioblksize.h of 8.17, 8.23, 9.2, 9.5, 9.8).
expect_csv "coreutils 2009" chunk_size=32768 mode=buffered -- --preset coreutils-cp-2009
expect_csv "coreutils 2012" chunk_size=65536 -- --preset coreutils-cp-2012
expect_csv "coreutils 2023" chunk_size=131072 -- --preset coreutils-cp-2023
expect_csv "coreutils 2024" chunk_size=262144 -- --preset coreutils-cp-2024
# rsync: sqrt(10^9) = 31622.78, a multiple of 8 below: 31616; 1 GiB: 32768; a small file: 700; 16 GiB and more: 128 KiB.
expect_csv "rsync 1 GB" chunk_size=31616 decided_by=default floor=1 granularity=1 file_size=1000000000 -- \
  --preset rsync --file-size 1GB
expect_csv "rsync 1 GiB" chunk_size=32768 -- --preset rsync --file-size 1GiB
expect_csv "rsync small" chunk_size=700 -- --preset rsync --file-size 100
expect_csv "rsync 16 GiB" chunk_size=131072 -- --preset rsync --file-size 16GiB
expect_csv "rsync on a 4Kn disk" chunk_size=32768 decided_by=alignment -- --preset rsync --file-size 1GB \
  --logical-block-size 4KiB
expect_csv "rsync's largest file" chunk_size=131072 -- --preset rsync --file-size 281474976579584
expect_usage "rsync beyond its largest file" \
  "--file-size must be at most 281474976579584 (2^31 - 1 blocks of 128KiB: rsync refuses a larger file), got 281474976579585" \
  --preset rsync --file-size 281474976579585
expect_usage "rsync without a file size" "--preset rsync needs --file-size" --preset rsync
expect_usage "file size for another preset" "--file-size is only used with --preset rsync" --file-size 1GiB

# --- limits from flags: 512e, 4Kn, RAID -----------------------------------------------------------------------------
expect_csv "512e cap" chunk_size=4194304 decided_by=max_transfer max_chunk=4194304 -- \
  --preset ovirt-imageio --logical-block-size 512 --physical-block-size 4096 --max-io 4MiB --dio-align 512
expect_csv "4Kn with IEC units" chunk_size=16384 decided_by=default granularity=4096 -- \
  --preset xapi-redo-log-2010 --logical-block-size 4KiB --physical-block-size 4KiB --dio-align 4KiB
expect_csv "RAID stripe" chunk_size=196608 decided_by=optimal_io alignment_unit=196608 -- \
  --logical-block-size 512 --physical-block-size 4096 --minimum-io 64KiB --optimal-io 192KiB

# --- contradicting limits: rejected with the limits named -----------------------------------------------------------
expect_usage "optimal below logical" "optimal_io_size (512) must be at least logical_block_size (4KiB)" \
  --logical-block-size 4096 --optimal-io 512
expect_usage "max transfer below the floor" "max_transfer_size (2KiB) must be at least the floor (4KiB)" --max-io 2KiB
expect_usage "non-power-of-two block" "logical_block_size must be a power of two, got 1000" --logical-block-size 1000
expect_usage "physical below logical" "physical_block_size (512) must be at least logical_block_size (4KiB)" \
  --logical-block-size 4KiB --physical-block-size 512

# --- --path: the limits sysfs reports for the device under /tmp (read here with stat and cat) -----------------------
majmin=$(stat -c '%Hd:%Ld' /tmp 2>/dev/null)
sys=/sys/dev/block/$majmin
if [ -n "$majmin" ] && [ -d "$sys" ]; then
  [ -e "$sys/partition" ] && sys=$sys/..
  q=$sys/queue
  lbs=$(cat "$q/logical_block_size") pbs=$(cat "$q/physical_block_size") mio=$(cat "$q/minimum_io_size")
  max=$(($(cat "$q/max_sectors_kb") * 1024))
  expect_csv "--path /tmp" logical_block_size="$lbs" physical_block_size="$pbs" minimum_io_size="$mio" \
    max_transfer_size="$max" device="$majmin" path_kind=directory -- --path /tmp
  # A file there: statx's direct-I/O alignment, where the kernel reports it (compared with the sysfs logical size,
  # which is what ext4 and xfs report for a file on a whole disk).
  echo x >"$tmp/file"
  run --path "$tmp/file" --format csv
  dio=$(field dio_offset_align)
  [ -z "$dio" ] || [ "$dio" = "$lbs" ] || [ $((dio % lbs)) -eq 0 ] || fail "--path file: dio_offset_align $dio vs logical $lbs"
  [ "$(field path_kind)" = "regular file" ] || fail "--path file: path_kind $(field path_kind)"
  # The block device itself, when its node is in /dev.
  devname=$(sed -n 's/^DEVNAME=//p' "/sys/dev/block/$majmin/uevent" 2>/dev/null)
  if [ -n "$devname" ] && [ -b "/dev/$devname" ]; then
    expect_csv "--path /dev/$devname" logical_block_size="$lbs" physical_block_size="$pbs" path_kind="block device" \
      device="$majmin" -- --path "/dev/$devname" --preset ovirt-imageio
  fi
  # Flags override what --path read.
  expect_csv "--path with an override" logical_block_size=4096 -- --path /tmp --logical-block-size 4096
else
  echo "note: /tmp is not on a block device in sysfs ($majmin); --path checks skipped" >&2
fi
expect_usage "--path missing" "--path: cannot examine '$tmp/nope': No such file or directory" --path "$tmp/nope"

# --- --samples: CA-42914's three dd tables (two runs per size; MB/s as dd printed them) -----------------------------
seed() {  # seed NAME: writes the table as CSV
  case $1 in
    lvmoiscsi) rows="1024 7.9 8.5|2048 8.4 8.0|4096 44.0 33.6|16384 52.2 42.3|65536 43.3 51.3" ;;
    nfs) rows="1024 5.7 5.5|2048 5.3 5.3|4096 24.4 21.6|16384 22.7 19.6|65536 20.7 20.7" ;;
    lvm) rows="1024 31.0 10.6|2048 10.7 10.4|4096 67.6 74.0|16384 73.6 76.2|65536 71.8 76.1" ;;
  esac
  echo "block_size,mb_per_s" >"$tmp/$1.csv"
  tr '|' '\n' <<<"$rows" | while read -r bs a b; do printf '%s,%s\n%s,%s\n' "$bs" "$a" "$bs" "$b"; done >>"$tmp/$1.csv"
}
for t in lvmoiscsi nfs lvm; do seed $t; done
expect_csv "seed lvmoiscsi" chunk_size=16384 decided_by=requested requested_by=samples rule_block_size=16384 \
  best_block_size=65536 -- --samples "$tmp/lvmoiscsi.csv"
expect_csv "seed nfs" chunk_size=4096 rule_block_size=4096 best_block_size=4096 -- --samples "$tmp/nfs.csv"
expect_csv "seed lvm" chunk_size=16384 rule_block_size=16384 best_block_size=16384 -- --samples "$tmp/lvm.csv"
expect_csv "seed lvm at 90%" rule_block_size=4096 -- --samples "$tmp/lvm.csv" --target-fraction 0.9
run --samples "$tmp/lvm.csv"
printf '%s' "$out" | grep -q "^block_size  *runs  *median_mb_per_s" || fail "text output lacks the per-size table"
# CRLF line ends are accepted.
sed 's/$/\r/' "$tmp/nfs.csv" >"$tmp/nfs_crlf.csv"
expect_csv "CRLF samples" rule_block_size=4096 -- --samples "$tmp/nfs_crlf.csv"
# The steady rule: 4 KiB on nfs has 2 KiB (5.3 MB/s) within a factor of 2, so it picks 16 KiB, as Xen did.
expect_csv "seed nfs, both picks" rule=smallest rule_block_size=4096 smallest_block_size=4096 steady_block_size=16384 \
  steady_mb_per_s=21.15 -- --samples "$tmp/nfs.csv"
expect_csv "seed nfs, steady" chunk_size=16384 rule=steady rule_block_size=16384 requested_size=16384 \
  best_block_size=4096 -- --samples "$tmp/nfs.csv" --rule steady

# calibrate takes --rule too: whatever this machine measures, the chunk is the chosen rule's pick, and both picks
# are reported.
mkdir "$tmp/cal"
for rule in smallest steady; do
  out=$("$provpol" calibrate --path "$tmp/cal" --bytes 1MiB --runs 1 --sizes 16KiB,32KiB,64KiB --mode buffered \
    --rule "$rule" --format csv 2>"$tmp/err") || fail "calibrate --rule $rule: $(cat "$tmp/err")"
  [ "$(field rule)" = "$rule" ] || fail "calibrate --rule $rule: rule is '$(field rule)'"
  [ "$(field requested_size)" = "$(field "${rule}_block_size")" ] ||
    fail "calibrate --rule $rule: requested $(field requested_size), ${rule}_block_size $(field "${rule}_block_size")"
done

# --- the published tables (tests/data/chunk_tables; picks argued in tests/calibrate_test.cpp) -----------------------
# ovirt-imageio 0bdc698e, MiB/s: the rule takes FC's 24 MiB (314.55; 8 and 16 MiB miss 95% of it), next to 32 MiB's
# collapse to 123.90; the steady rule sees 32 MiB from 16 and 24 MiB and takes 8 MiB, ovirt-imageio's choice.
expect_csv "ovirt-imageio FC" rule_block_size=25165824 steady_block_size=8388608 best_block_size=25165824 -- \
  --samples "$tables/ovirt_imageio_0bdc698e.csv" --table FC
expect_csv "ovirt-imageio iSCSI" rule_block_size=16777216 steady_block_size=8388608 -- \
  --samples "$tables/ovirt_imageio_0bdc698e.csv" --table iSCSI
expect_csv "ovirt-imageio FC, steady, its preset" chunk_size=8388608 decided_by=requested -- \
  --samples "$tables/ovirt_imageio_0bdc698e.csv" --table FC --rule steady --preset ovirt-imageio
# coreutils fcfba90d, GB/s: system #7 (POWER7) peaks at 128 KiB (54.8) and falls to 40.0 at 256 KiB; #11 (M1) needs
# 512 KiB (43.1 of 44.8); #3 (i7-970) reaches 95% at 64 KiB with the rule, 128 KiB with the steady rule.
expect_csv "coreutils #7" rule_block_size=131072 steady_block_size=131072 best_block_size=131072 -- \
  --samples "$tables/coreutils_ioblksize.csv" --table 7
expect_csv "coreutils #11" rule_block_size=524288 steady_block_size=524288 -- \
  --samples "$tables/coreutils_ioblksize.csv" --table 11
expect_csv "coreutils #3" rule_block_size=65536 steady_block_size=131072 -- \
  --samples "$tables/coreutils_ioblksize.csv" --table 3 --preset coreutils-cp
expect_usage "several tables, none chosen" \
  "holds 2 tables (iSCSI and FC): choose one with --table" --samples "$tables/ovirt_imageio_0bdc698e.csv"
expect_usage "unknown table" "has no table 'SAS' (its tables: iSCSI and FC)" \
  --samples "$tables/ovirt_imageio_0bdc698e.csv" --table SAS
expect_usage "--table without a table column" "has no column 'table'" --samples "$tmp/nfs.csv" --table 1
expect_usage "--table without samples" "--table is only used with --samples" --table 1
expect_usage "--rule without samples" "--rule is only used with --samples" --rule steady
expect_usage "unknown rule" "--rule: unknown value 'fastest': expected smallest or steady" \
  --samples "$tmp/nfs.csv" --rule fastest
printf 'block_size,mb_per_s,gb_per_s\n4096,10,0.01\n' >"$tmp/two_rates.csv"
expect_usage "two rate columns" "has both 'mb_per_s' and 'gb_per_s': give one rate column" --samples "$tmp/two_rates.csv"
printf 'block_size,gb_per_s\n4096,0.5\n8192,1.0\n' >"$tmp/gb.csv"
expect_csv "GB/s read as 10^9 bytes" rule_block_size=8192 rule_mb_per_s=1000 -- --samples "$tmp/gb.csv"

# --- --deadline: samples of an exact model, t0 = 300 us, B = 10^9 bytes/s --------------------------------------------
{
  echo "block_size,mb_per_s"
  for bs in 65536 262144 1048576 4194304; do
    awk -v bs=$bs 'BEGIN { printf "%d,%.12g\n", bs, bs / (300e-6 + bs / 1e9) / 1e6 }'
  done
} >"$tmp/model.csv"
# By hand (see calibrate_test.cpp): 15 MiB in 2 s with the 20% margin needs chunks of 2979 bytes (5280 writes);
# the preset's policy (xapi-redo-log, no limits) raises that to the 4 KiB floor: 3840 writes.
expect_csv "deadline" requested_by=deadline requested_size=2979 chunk_size=4096 decided_by=floor writes=3840 margin=0.2 -- \
  --samples "$tmp/model.csv" --deadline 2 --bytes 15MiB
expect_csv "model fit" fit_latency_us=300 fit_bandwidth_mb_per_s=1000 -- --samples "$tmp/model.csv"
expect_usage "deadline cannot be met" "--deadline: 0.01 s cannot be met on this device" \
  --samples "$tmp/model.csv" --deadline 0.01 --bytes 15MiB
expect_usage "deadline above the device's largest chunk" "needs chunks larger than the device's largest chunk (4MiB)" \
  --samples "$tmp/model.csv" --deadline 1.4 --bytes 1GiB --max-io 4MiB
expect_usage "deadline without bytes" "--deadline needs --bytes" --samples "$tmp/model.csv" --deadline 2
expect_usage "bytes without deadline" "--bytes is only used with --deadline" --bytes 1MiB
expect_usage "deadline without samples" "--deadline needs --samples" --deadline 2 --bytes 1MiB
printf 'block_size,mb_per_s\n4096,10\n4096,11\n' >"$tmp/nfs_one.csv"
expect_usage "deadline with one block size" "--deadline: the samples give no cost model: the cost model needs at least two" \
  --samples "$tmp/nfs_one.csv" --deadline 2 --bytes 1MiB

# --- bad input ----------------------------------------------------------------------------------------------------------
printf 'block_size,rate\n4096,10\n' >"$tmp/nocol.csv"
printf 'block_size,mb_per_s\n' >"$tmp/header_only.csv"
printf 'block_size,mb_per_s\n4096,0\n' >"$tmp/zero.csv"
printf 'block_size,mb_per_s\n4k,10\n' >"$tmp/unit.csv"
printf 'block_size,mb_per_s\n4096,NaN\n' >"$tmp/nan.csv"
: >"$tmp/empty.csv"
expect_usage "missing column" "has no column 'mb_per_s', 'gb_per_s' or 'mib_per_s'" --samples "$tmp/nocol.csv"
expect_usage "no samples" "has a header but no samples" --samples "$tmp/header_only.csv"
expect_usage "zero throughput" "column 'mb_per_s': must be greater than 0" --samples "$tmp/zero.csv"
expect_usage "ambiguous unit" "unknown unit" --samples "$tmp/unit.csv"
expect_usage "NaN throughput" "column 'mb_per_s'" --samples "$tmp/nan.csv"
expect_usage "empty samples file" "empty file" --samples "$tmp/empty.csv"
expect_usage "samples file missing" "cannot open" --samples "$tmp/missing.csv"
expect_usage "samples is a directory" "is a directory, not a CSV file" --samples "$tmp"
expect_usage "samples is binary" "contains a NUL byte" --samples /dev/zero
expect_usage "unknown preset" "--preset: unknown value 'dd': expected one of xapi-redo-log-2010" --preset dd
expect_usage "target fraction" "--target-fraction must be in \[0.01, 0.999\], got 1.5" --target-fraction 1.5
expect_usage "negative size" "sizes cannot be negative" --logical-block-size -512
expect_usage "SI unit" "spaces are not accepted" --max-io "5 GB"
expect_usage "huge size" "is too large" --max-io 18446744073709551616
expect_usage "unknown flag" "unknown option '--mode'" --mode direct
expect_usage "missing value" "--preset needs a value" --preset
expect_usage "format" "--format: unknown value 'xml'" --format xml
expect_usage "zero deadline" "--deadline must be greater than 0" --samples "$tmp/model.csv" --deadline 0 --bytes 1MiB

run --help
[ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q -- "--deadline SECONDS" || fail "--help"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "provpol chunk: all checks passed"
