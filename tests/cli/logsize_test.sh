#!/usr/bin/env bash
# CLI tests of `provpol logsize`: output columns and values (each expected value is what the real mkfs.xfs 6.1.0,
# 6.13.0, 7.2.0 or mke2fs 1.47.0 printed, see tests/data/*.csv; max_tx_bytes is provpol's, checked there through
# the concurrency-sized logs), several presets, formats, and bad input (exit 2, one line on
# stderr, nothing on stdout).
#   tests/cli/logsize_test.sh path/to/provpol
set -uo pipefail
provpol=${1:?usage: logsize_test.sh path/to/provpol}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }

# expect_output NAME EXPECTED ARGS...: exit 0, stdout exactly EXPECTED, stderr empty.
expect_output() {
    local name=$1 want=$2; shift 2
    "$provpol" logsize "$@" > "$tmp/out" 2> "$tmp/err"; local rc=$?
    if [ $rc -ne 0 ]; then bad "$name: exit $rc: $(cat "$tmp/err")"; return; fi
    if [ -s "$tmp/err" ]; then bad "$name: stderr not empty: $(cat "$tmp/err")"; return; fi
    if [ "$(cat "$tmp/out")" != "$want" ]; then
        bad "$name: output differs"; diff <(echo "$want") "$tmp/out" >&2; return
    fi
    ok
}

# expect_usage_error NAME PATTERN ARGS...: exit 2, stdout empty, exactly one stderr line matching PATTERN.
expect_usage_error() {
    local name=$1 pattern=$2; shift 2
    "$provpol" logsize "$@" > "$tmp/out" 2> "$tmp/err"; local rc=$?
    if [ $rc -ne 2 ]; then bad "$name: exit $rc, want 2"; return; fi
    if [ -s "$tmp/out" ]; then bad "$name: stdout not empty: $(cat "$tmp/out")"; return; fi
    if [ "$(wc -l < "$tmp/err")" -ne 1 ]; then bad "$name: stderr is not one line: $(cat "$tmp/err")"; return; fi
    if ! grep -qE -- "$pattern" "$tmp/err"; then bad "$name: stderr '$(cat "$tmp/err")' does not match '$pattern'"; return; fi
    ok
}

header="preset,block_size,data_blocks,agcount,agsize_blocks,log_blocks,log_sunit_blocks,supported,made,reason,fast_commit_blocks,log_size,decided_by,min_log_blocks,min_log_source,max_tx_bytes,log_concurrency,sector_size,sunit_blocks,swidth_blocks"

# The linux-xfs thread's 220 GB example: mkfs.xfs 6.1.0 prints agcount=4, agsize=14417920, blocks=57671680, log blocks=28160
# and, probed with -l size=512b, a minimum of 2580 blocks.
expect_output "220GiB xfsprogs-6.1 csv" "$header
xfsprogs-6.1,4096,57671680,4,14417920,28160,0,1,1,,,115343360,ratio,2580,computed,2890752,0,512,0,0" \
    --size 220GiB --preset xfsprogs-6.1 --format csv

# Several presets, one row each, in the order given; the minimum log given rather than estimated. mkfs.xfs
# 6.1.0 on 10 GiB: agcount=4, agsize=655360, 16384 log blocks; mke2fs 1.47.0 on 8-16 GiB: a 16384-block journal.
expect_output "several presets" "$header
xfs-floor-32m,4096,2621440,4,655360,8192,0,1,1,,,33554432,floor,1986,given,2079744,0,512,0,0
xfsprogs-6.1,4096,2621440,4,655360,16384,0,1,1,,,67108864,floor,1986,given,2079744,0,512,0,0
e2fsprogs-1.47,4096,2621440,,,16384,,1,1,,0,67108864,journal_table,,,,,,0,0" \
    --size 10GiB --preset xfs-floor-32m --preset xfsprogs-6.1,e2fsprogs-1.47 --min-log-blocks 1986 --format csv

# mke2fs 1.47.0 below 512 MiB: 1 KiB blocks, an 8192-block journal; fast_commit adds 1/64.
expect_output "ext4 511MiB fast_commit" "$header
e2fsprogs-1.47,1024,523264,,,8192,,1,1,,128,8519680,journal_table,,,,,,0,0" \
    --size 511MiB --preset e2fsprogs-1.47 --fast-commit --format csv

# Refusals: mkfs.xfs 6.1.0 refuses 200 MiB (under 300 MiB), with the minimum log (1368 blocks) as the size.
expect_output "200MiB refused" "$header
xfsprogs-6.1,4096,51200,4,12800,1368,0,0,0,fs_too_small,,5603328,tiny_minimum,1368,given,1268736,0,512,0,0
xfsprogs-5.14,4096,51200,4,12800,1368,0,1,1,,,5603328,legacy_rule,1368,given,1268736,0,512,0,0" \
    --size 200MiB --preset xfsprogs-6.1 --preset xfsprogs-5.14 --min-log-blocks 1368 --format csv
# ... and --unsupported formats it: made, not supported, the reason kept.
"$provpol" logsize --size 200MiB --preset xfsprogs-6.1 --unsupported --format csv > "$tmp/out" 2>&1
if grep -q '^xfsprogs-6.1,4096,51200,4,12800,[0-9]*,0,0,1,fs_too_small,' "$tmp/out"; then ok; else bad "--unsupported: $(cat "$tmp/out")"; fi

# A single AG is refused (mkfs.xfs 6.1.0: "at least 2 superblocks"); a stripe over 256 KiB gives a 32 KiB log
# stripe unit (mkfs.xfs 6.1.0 on 100 GiB, su=512k,sw=2: agcount 16, agsize 1638272, log sunit 8 blocks, data
# sunit=128 swidth=256 blks).
expect_output "single AG" "$header
xfsprogs-6.1,4096,524288,1,524288,16384,0,0,0,single_ag,,67108864,floor,1986,given,2079744,0,512,0,0" \
    --size 2GiB --agcount 1 --preset xfsprogs-6.1 --min-log-blocks 1986 --format csv
expect_output "stripe" "$header
xfsprogs-6.1,4096,26212352,16,1638272,16384,8,1,1,,,67108864,floor,1986,given,2079744,0,512,128,256" \
    --size 100GiB --su 512KiB --sw 2 --preset xfsprogs-6.1 --min-log-blocks 1986 --format csv

# Default: every preset, one row each, in the registry's order (xfsprogs-5.15 was missing from it), and every name
# --help lists has its row.
"$provpol" logsize --size 1TiB --format csv > "$tmp/out" 2> "$tmp/err"
if [ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = "preset xfsprogs-7.2 xfsprogs-6.13 xfsprogs-6.1 xfsprogs-5.15 xfsprogs-5.14 xfs-ratio-256 xfs-floor-32m e2fsprogs-1.47 " ]; then ok
else bad "default presets: $(cat "$tmp/out")"; fi
listed=$("$provpol" logsize --help | sed -n 's/^ *--preset NAME *\([^(]*\) (repeatable.*/\1/p' | tr -d ' ' | tr ',' '\n' | sort)
rows=$(cut -d, -f1 "$tmp/out" | tail -n +2 | sort)
if [ "$(echo "$listed" | wc -l)" -ge 8 ] && [ "$listed" = "$rows" ]; then ok
else bad "--help lists '$(echo $listed)', the default listing has '$(echo $rows)'"; fi

# Text and JSON.
"$provpol" logsize --size 220GiB --preset xfsprogs-6.1 > "$tmp/out" 2>&1
if grep -qE '^xfsprogs-6\.1 +4096 +57671680 +4 +14417920 +28160 +0 +yes +yes +110MiB +ratio +2580 +computed +2890752 +0 +512 +0 +0$' "$tmp/out"; then ok
else bad "text: $(cat "$tmp/out")"; fi
"$provpol" logsize --size 220GiB --preset xfsprogs-6.1 --preset e2fsprogs-1.47 --format json > "$tmp/out" 2>&1
if grep -q '"preset": "xfsprogs-6.1", "block_size": 4096, "data_blocks": 57671680, "agcount": 4' "$tmp/out" &&
   grep -q '"preset": "e2fsprogs-1.47", .*"agcount": null' "$tmp/out"; then ok; else bad "json: $(cat "$tmp/out")"; fi
"$provpol" logsize --help > "$tmp/out" 2>&1 && grep -q -- '--min-log-blocks' "$tmp/out" && ok || bad "--help"

# mkfs.xfs 6.13.0 and 7.2.0 on 4 GiB with -l concurrency=64 (tests/data/mkfs_xfs_6.13.csv, mkfs_xfs_7.2.csv):
# 102600 and 50175 log blocks, decided by the concurrency; minimum logs 3693 and 2001 blocks.
expect_output "concurrency 64" "$header
xfsprogs-7.2,4096,1048576,4,262144,50175,0,1,1,,,205516800,concurrency,2001,computed,2140800,64,512,0,0
xfsprogs-6.13,4096,1048576,4,262144,102600,0,1,1,,,420249600,concurrency,3693,computed,4377600,64,512,0,0" \
    --size 4GiB --preset xfsprogs-7.2,xfsprogs-6.13 --log-concurrency 64 --format csv
# A loop device with rotational 0 on the sweep's 2-CPU machine: concurrency 2, the 64 MiB floor decides.
expect_output "non-rotational" "$header
xfsprogs-6.13,4096,1048576,4,262144,16384,0,1,1,,,67108864,floor,3693,computed,4377600,2,512,0,0" \
    --size 4GiB --preset xfsprogs-6.13 --rotational 0 --cpus 2 --format csv
# ... and on a 64-CPU server the issue's 400 MiB log.
expect_output "64-CPU SSD" "$header
xfsprogs-6.13,4096,1048576,4,262144,102600,0,1,1,,,420249600,concurrency,3693,computed,4377600,64,512,0,0" \
    --size 4GiB --preset xfsprogs-6.13 --rotational 0 --cpus 64 --format csv
# mkfs.xfs 6.1.0, V4 with 512-byte blocks on 1 GiB (tests/data/mkfs_xfs_6.1_v4.csv): 131072 blocks, minimum 4806.
expect_output "v4 512" "$header
xfsprogs-6.1,512,2097152,4,524288,131072,0,1,1,,,67108864,floor,4806,computed,276976,0,512,0,0" \
    --size 1GiB --preset xfsprogs-6.1 --block-size 512 --features crc=0 --format csv
# 6.1 has no -l concurrency: mkfs.xfs 6.1 rejects the option.
"$provpol" logsize --size 4GiB --preset xfsprogs-6.1 --log-concurrency 8 --format csv > "$tmp/out" 2>&1
if grep -q '^xfsprogs-6.1,4096,1048576,,,,,0,0,unsupported_option,' "$tmp/out"; then ok; else bad "6.1 concurrency: $(cat "$tmp/out")"; fi

# mkfs.xfs -d concurrency=N (--data-concurrency): xfstests' tests/xfs/614.out.lba512 line 139 (kdave/xfstests
# 63a29724) states 64 AGs and 521728 log blocks for -d concurrency=40 -l concurrency=40 on a 64T file.
"$provpol" logsize --size 64TiB --preset xfsprogs-6.13 --data-concurrency 40 --log-concurrency 40 --format csv > "$tmp/out" 2>&1
if grep -q '^xfsprogs-6.13,4096,[0-9]*,64,[0-9]*,521728,' "$tmp/out"; then ok; else bad "data concurrency: $(cat "$tmp/out")"; fi
"$provpol" logsize --size 64TiB --preset xfsprogs-6.1 --data-concurrency 40 --format csv > "$tmp/out" 2>&1
if grep -q '^xfsprogs-6.1,4096,[0-9]*,,,,,0,0,unsupported_option,' "$tmp/out"; then ok; else bad "6.1 data concurrency: $(cat "$tmp/out")"; fi
expect_usage_error "data concurrency and agcount" "--data-concurrency cannot be given with --agcount" \
    --size 1GiB --data-concurrency 4 --agcount 4
expect_usage_error "data concurrency and agsize" "--data-concurrency cannot be given with --agsize" \
    --size 1GiB --data-concurrency 4 --agsize 256MiB
expect_usage_error "data concurrency range" "--data-concurrency must be in \[0, 2147483647\], got 2147483648" \
    --size 1GiB --data-concurrency 2147483648
expect_usage_error "data concurrency 1 without cpus" "--data-concurrency 1 needs --cpus N" \
    --size 1GiB --data-concurrency 1
expect_usage_error "data concurrency for mke2fs" "--data-concurrency is mkfs.xfs's" \
    --size 1GiB --preset e2fsprogs-1.47 --data-concurrency 4

# Bad input.
expect_usage_error "no size" "--size or --path is required" --preset xfsprogs-6.1
expect_usage_error "one-letter unit mkfs does not read" "--size: invalid value '5x'" --size 5x
expect_usage_error "unknown preset" "--preset: unknown value 'xfsprogs-9'" --size 1GiB --preset xfsprogs-9
expect_usage_error "agcount and agsize" "agcount \(4\) cannot be given with agsize" --size 1GiB --agcount 4 --agsize 256MiB
expect_usage_error "feature value" "--features: crc must be 0 or 1" --size 1GiB --features crc=2
expect_usage_error "unknown feature" "--features: unknown feature 'bigtime'" --size 1GiB --features bigtime=1
expect_usage_error "block size" "--block-size must be a power of two, got 3000" --size 1GiB --block-size 3000
expect_usage_error "su without sw" "--sw: is needed with stripe_unit" --size 1GiB --su 64KiB
expect_usage_error "su not a multiple" "--su must be a multiple of 4096" --size 1GiB --su 6KiB --sw 2
expect_usage_error "unknown option" "unknown option '--log-size'" --size 1GiB --log-size 64MiB
expect_usage_error "bad format" "--format: unknown value 'xml'" --size 1GiB --format xml
expect_usage_error "agcount 0" "--agcount must be in \[1, 4294967294\], got 0" --size 1GiB --agcount 0
expect_usage_error "rotational without cpus" "--rotational 0 needs --cpus N" --size 1GiB --rotational 0
expect_usage_error "cpus alone" "--cpus is used only with" --size 1GiB --cpus 8
expect_usage_error "concurrency and rotational" "--log-concurrency cannot be given with --rotational" \
    --size 1GiB --log-concurrency 4 --rotational 1
expect_usage_error "rotational 2" "--rotational must be in \[0, 1\], got 2" --size 1GiB --rotational 2
expect_usage_error "concurrency negative" "--log-concurrency" --size 1GiB --log-concurrency -1
expect_usage_error "512 with crc" "--block-size must be in \[1024, 65536\], got 512" --size 1GiB --block-size 512
expect_usage_error "256 without crc" "--block-size must be in \[512, 65536\], got 256" \
    --size 1GiB --block-size 256 --features crc=0
expect_usage_error "sector over block" "--sector-size \(8192\) must not exceed block_size" --size 1GiB --sector-size 8192

# mkfs.xfs's own one-letter suffixes, 1024-based in either case (mkfs.xfs 6.1.0: `mkfs.xfs -N -d
# file,name=x.img,size=20t` and `size=20T` print blocks=5368709100; `size=20g` blocks=5242880).
"$provpol" logsize --size 20t --preset xfsprogs-6.1 --format csv > "$tmp/t1" 2>&1
"$provpol" logsize --size 20TiB --preset xfsprogs-6.1 --format csv > "$tmp/t2" 2>&1
if cmp -s "$tmp/t1" "$tmp/t2" && grep -q '^xfsprogs-6.1,4096,5368709100,' "$tmp/t1"; then ok; else bad "--size 20t: $(cat "$tmp/t1")"; fi
"$provpol" logsize --size 20G --preset xfsprogs-6.1 --format csv > "$tmp/t1" 2>&1
if grep -q '^xfsprogs-6.1,4096,5242880,' "$tmp/t1"; then ok; else bad "--size 20G: $(cat "$tmp/t1")"; fi
expect_usage_error "mkfs suffix too large" "--size: '99999999e' is too large" --size 99999999e
expect_usage_error "sector suffix" "--size: invalid value '40000s'" --size 40000s
# A bare release names its preset; an input the presets asked for do not read is an error, not ignored.
expect_usage_error "bare xfsprogs release" "unknown value '7.2' \(did you mean xfsprogs-7.2\?\)" --size 1GiB --preset 7.2
expect_usage_error "bare e2fsprogs release" "did you mean e2fsprogs-1.47\?" --size 1GiB --preset 1.47
expect_usage_error "rotational before 6.8" "--rotational is read by mkfs.xfs 6.8 and later" \
    --size 20GiB --preset xfsprogs-6.1 --rotational 0 --cpus 4
expect_usage_error "rotational 1 before 6.8" "--rotational is read by mkfs.xfs 6.8 and later" \
    --size 20GiB --preset xfsprogs-5.14 --preset xfs-ratio-256 --rotational 1
"$provpol" logsize --size 20GiB --preset xfsprogs-6.1 --preset xfsprogs-6.8 --rotational 0 --cpus 4 --format csv > "$tmp/t1" 2>&1
if [ "$(wc -l < "$tmp/t1")" -eq 3 ]; then ok; else bad "--rotational with a 6.8 preset among others: $(cat "$tmp/t1")"; fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
