#!/usr/bin/env bash
# Extracts xfstests' cases that state a log size, an AG geometry or a mkfs verdict for given mkfs.xfs options
# into cases.csv (tests/peers/README.md). Reads only the pinned commit of kdave/xfstests, through git show.
#   tests/peers/xfstests/extract.sh [GIT_DIR [COMMIT]]
#
# What each test states, and how its command line maps to provpol logsize (the options come from the test's
# script, the sizes and expected values from its lines; nothing here runs mkfs.xfs or provpol):
#   xfs/614  tests/xfs/614.out.lba{512,1024,2048,4096}: "sz S cpus C agcount A logblocks L" for
#            mkfs.xfs -N -d concurrency=C -l concurrency=C on a file of S (truncate -s; M/G/T/P are powers of 1024)
#            whose sector size is the .out's lba; the test was added with xfsprogs 6.10's concurrency options
#            (2024) and its outputs last changed in 2025 (xfsprogs 6.13): preset xfsprogs-6.13.
#   xfs/216  tests/xfs/216.out.{classic,64mblog}: "fssize=Ng log ... blocks=L" for mkfs.xfs -b size=4096
#            -l version=2 -d size=Ng -m rmapbt=0 -m reflink=0 on a loop device; classic is mkfs.xfs before 5.15
#            (preset xfsprogs-5.14), 64mblog from 5.15 on (xfsprogs-6.1, -6.13, -7.2, as the test says).
#   xfs/217  tests/xfs/217.out: the same for 512g .. 16383g, default features, one output for every release.
#   xfs/292  tests/xfs/292.out: agcount and agsize of mkfs.xfs on a 256g file, without and with -d su=16k,sw=5.
#   xfs/206  tests/xfs/206.out line 4: agcount, agsize and data blocks for -b size=4096 -l size=32m
#            -d agsize=76288719b,size=3905982455b (the log is given and filtered out: only the AGs are stated).
#   xfs/144  tests/xfs/144: every mkfs.xfs -N -d su=Sk,sw=1,size=Mm must succeed (the .out is "Silence is
#            golden"; a failure would print "FAIL"), and -d agcount=3200,size=6366g -d su=256k,sw=4 -N too.
# xfstests sets TEST_DIR, TEST_DEV and QA_CHECK_FS, under which mkfs.xfs (6.13 validate_supported) skips its
# support checks as --unsupported does: every row is asked with --unsupported.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
git_dir=${1:-/work/.mirror/kdave+xfstests/repo}
commit=${2:-63a29724a85f1999e49bf0a9bf0d22643b6116e5}
g() { git --git-dir="$git_dir" "$@"; }
show() { g show "$commit:$1"; }
commit=$(g rev-parse "$commit^{commit}")
date=$(g show -s --format=%cs "$commit")

# bytes N UNIT: N times the unit (k m g t p, as truncate and mkfs.xfs read them: powers of 1024; b: 4096-byte
# filesystem blocks, the block size these tests give).
bytes() {
    local n=$1 u
    u=$(echo "$2" | tr 'A-Z' 'a-z')
    case $u in
        k) echo $((n << 10)) ;; m) echo $((n << 20)) ;; g) echo $((n << 30)) ;;
        t) echo $((n << 40)) ;; p) echo $((n << 50)) ;; b) echo $((n * 4096)) ;;
        *) echo "bytes: unit '$2'" >&2; exit 1 ;;
    esac
}

out=$here/cases.csv.new
{
echo "# kdave/xfstests at $commit ($date), extracted by tests/peers/xfstests/extract.sh"
echo "# one row per case and preset; the mkfs.xfs command is the test's (commas as ';'); every case runs with"
echo "# --unsupported (xfstests' environment skips mkfs.xfs's support checks); size_bytes is the device (file) size;"
echo "# expect_*: what the test states (empty: not stated): made 1 = mkfs.xfs formats it; blocks in filesystem blocks"
echo "id,file,line,status,reason,preset,size_bytes,block_size,sector_size,su,sw,agcount,agsize_bytes,data_concurrency,log_concurrency,features,expect_made,expect_data_blocks,expect_agcount,expect_agsize_blocks,expect_log_blocks,mkfs_command"

# row ID FILE LINE PRESET SIZE BLOCK SECTOR SU SW AGCOUNT AGSIZE DCONC LCONC FEATURES MADE DBLOCKS AGC AGSZ LOG CMD
row() {
    local id=$1 file=$2 line=$3; shift 3
    local IFS=,
    echo "$id,$file,$line,check,,$*"
}
left_out() { echo "$1,$2,$3,left_out,$4,,,,,,,,,,,,,,,,,$5"; }

# xfs/614
for lba in 512 1024 2048 4096; do
    f=tests/xfs/614.out.lba$lba
    show "$f" | awk '/^sz /{print NR, $2, $4, $6, $8}' | while read -r n sz cpus ag lb; do
        num=${sz%?} unit=${sz#"$num"}
        row "xfs/614.lba$lba:$n" "$f" "$n" xfsprogs-6.13 "$(bytes "$num" "$unit")" 4096 "$lba" "" "" "" "" \
            "$cpus" "$cpus" "" 1 "" "$ag" "" "$lb" "mkfs.xfs -f -N -d concurrency=$cpus -l concurrency=$cpus ($sz file; sector $lba)"
    done
done

# xfs/216: both golden outputs
for variant in classic 64mblog; do
    f=tests/xfs/216.out.$variant
    if [ $variant = classic ]; then presets="xfsprogs-5.14"; else presets="xfsprogs-6.1 xfsprogs-6.13 xfsprogs-7.2"; fi
    show "$f" | awk '/^fssize=/{s=$1; sub(/fssize=/, "", s); b=$0; sub(/.*blocks=/, "", b); sub(/,.*/, "", b); print NR, s, b}' |
        while read -r n sz lb; do
            num=${sz%?} unit=${sz#"$num"}
            for p in $presets; do
                row "xfs/216.$variant:$n:$p" "$f" "$n" "$p" "$(bytes "$num" "$unit")" 4096 "" "" "" "" "" "" "" \
                    "rmapbt=0;reflink=0" 1 "" "" "" "$lb" "mkfs.xfs -f -b size=4096 -l version=2 -d size=$sz -m rmapbt=0 -m reflink=0"
            done
        done
done

# xfs/217
f=tests/xfs/217.out
show "$f" | awk '/^fssize=/{s=$1; sub(/fssize=/, "", s); b=$0; sub(/.*blocks=/, "", b); sub(/,.*/, "", b); print NR, s, b}' |
    while read -r n sz lb; do
        num=${sz%?} unit=${sz#"$num"}
        for p in xfsprogs-5.14 xfsprogs-6.1 xfsprogs-6.13 xfsprogs-7.2; do
            row "xfs/217:$n:$p" "$f" "$n" "$p" "$(bytes "$num" "$unit")" 4096 "" "" "" "" "" "" "" "" 1 "" "" "" "$lb" \
                "mkfs.xfs -f -b size=4096 -l version=2 -d size=$sz"
        done
    done

# xfs/292: the file size from the script's truncate, the stripe from its second mkfs.xfs, values from the .out
f=tests/xfs/292.out
size=$(show tests/xfs/292 | sed -n 's/.*truncate \([0-9]*\)\([kmgtp]\)".*/\1 \2/p' | head -1)
stripe=$(show tests/xfs/292 | sed -n 's/.*mkfs.xfs -f -d su=\([0-9]*\)k,sw=\([0-9]*\) .*/\1 \2/p' | head -1)
read -r snum sunit <<< "$size"
read -r su sw <<< "$stripe"
show "$f" | awk '/^mkfs.xfs without/{c="plain"} /^mkfs.xfs with cmdline/{c="stripe"} /^agcount=/{a[c]=substr($0,9); al[c]=NR} /^agsize=/{s[c]=substr($0,8)}
    END {print "plain", al["plain"], a["plain"], s["plain"]; print "stripe", al["stripe"], a["stripe"], s["stripe"]}' |
    while read -r c n ag agsz; do
        for p in xfsprogs-5.14 xfsprogs-6.1 xfsprogs-6.13 xfsprogs-7.2; do
            if [ "$c" = plain ]; then
                row "xfs/292:$n:$p" "$f" "$n" "$p" "$(bytes "$snum" "$sunit")" 4096 "" "" "" "" "" "" "" "" 1 "" "$ag" "$agsz" "" \
                    "mkfs.xfs -f ($snum$sunit file)"
            else
                row "xfs/292:$n:$p" "$f" "$n" "$p" "$(bytes "$snum" "$sunit")" 4096 "" "$(bytes "$su" k)" "$sw" "" "" "" "" "" 1 "" "$ag" "$agsz" "" \
                    "mkfs.xfs -f -d su=${su}k;sw=$sw ($snum$sunit file)"
            fi
        done
    done

# xfs/206: the mkfs.xfs line of the script, the first meta-data/data lines of the .out
f=tests/xfs/206.out
cmd=$(show tests/xfs/206 | grep -n 'mkfs.xfs -f -bsize=' | head -1)
agsize_b=$(echo "$cmd" | sed -n 's/.*-dagsize=\([0-9]*\)b,size=\([0-9]*\)b.*/\1/p')
size_b=$(echo "$cmd" | sed -n 's/.*-dagsize=\([0-9]*\)b,size=\([0-9]*\)b.*/\2/p')
read -r n ag agsz <<< "$(show "$f" | awk '/^meta-data=/{a=$0; sub(/.*agcount=/, "", a); sub(/,.*/, "", a); s=$0; sub(/.*agsize=/, "", s); sub(/ .*/, "", s); print NR, a, s; exit}')"
dblocks=$(show "$f" | awk '/^data /{b=$0; sub(/.*blocks=/, "", b); sub(/,.*/, "", b); print b; exit}')
for p in xfsprogs-5.14 xfsprogs-6.1 xfsprogs-6.13 xfsprogs-7.2; do
    row "xfs/206:$n:$p" "$f" "$n" "$p" "$(bytes "$size_b" b)" 4096 "" "" "" "" "$(bytes "$agsize_b" b)" "" "" "" 1 "$dblocks" "$ag" "$agsz" "" \
        "mkfs.xfs -f -bsize=4096 -l size=32m -dagsize=${agsize_b}b;size=${size_b}b"
done
show "$f" | awk '/^meta-data=/{c++; if (c > 1) print NR}' | while read -r n; do
    left_out "xfs/206:$n" "$f" "$n" "the geometry after xfs_growfs (xfs_growfs and xfs_info; no mkfs.xfs decision)" \
        "xfs_growfs / xfs_info"
done

# xfs/144: the loops of the script (seq A B, seq A STEP B), then the two single cases
f=tests/xfs/144
script=$(show "$f")
loop_line=$(echo "$script" | grep -n 'test_format "M=\$M S=\$S"' | cut -d: -f1)
msizes=$(echo "$script" | sed -n 's/^for M in `seq \([0-9]*\) \([0-9]*\)` `seq \([0-9]*\) \([0-9]*\)`; do/\1 \2 \3 \4/p')
sseq=$(echo "$script" | sed -n 's/^\tfor S in `seq \([0-9]*\) \([0-9]*\) \([0-9]*\)`; do/\1 \2 \3/p')
read -r a1 b1 a2 b2 <<< "$msizes"
read -r s0 sstep s1 <<< "$sseq"
for M in $(seq "$a1" "$b1") $(seq "$a2" "$b2"); do
    for S in $(seq "$s0" "$sstep" "$s1"); do
        for p in xfsprogs-6.1 xfsprogs-6.13 xfsprogs-7.2; do
            row "xfs/144:M=$M:S=$S:$p" "$f" "$loop_line" "$p" "$(bytes "$M" m)" "" "" "$(bytes "$S" k)" 1 "" "" "" "" "" 1 "" "" "" "" \
                "mkfs.xfs -f -dsu=${S}k;sw=1;size=${M}m -N"
        done
    done
done
n=$(echo "$script" | grep -n 'test_format "log end beyond eoag"' | cut -d: -f1)
for p in xfsprogs-6.1 xfsprogs-6.13 xfsprogs-7.2; do
    row "xfs/144:$n:$p" "$f" "$n" "$p" "$(bytes 6366 g)" "" "" "$(bytes 256 k)" 4 3200 "" "" "" "" 1 "" "" "" "" \
        "mkfs.xfs -f -d agcount=3200;size=6366g -d su=256k;sw=4 -N"
done
n=$(echo "$script" | grep -n 'test_format "log pushes rootdir into AG 1"' | cut -d: -f1)
left_out "xfs/144:$n" "$f" "$n" "-l agnum=0 puts the log in AG 0 and the check runs after the root directory is allocated (provpol has no -l agnum)" \
    "mkfs.xfs -f -d agcount=3200;size=6366g -lagnum=0"

# Tests that name a log size but state no value provpol could be asked for
n=$(show tests/xfs/104 | grep -n '_scratch_find_xfs_min_logblocks' | head -1 | cut -d: -f1)
left_out "xfs/104:$n" tests/xfs/104 "$n" "the expected value is mkfs.xfs's own minimum (_scratch_find_xfs_min_logblocks runs mkfs.xfs)" \
    "mkfs.xfs -l size=<its own minimum>"
n=$(show tests/xfs/143 | grep -n '_scratch_mkfs -r size=' | head -1 | cut -d: -f1)
left_out "xfs/143:$n" tests/xfs/143 "$n" "a realtime device (-r size=1m): provpol models no realtime subvolume" \
    "mkfs.xfs -r size=1m -d size=100m"
} > "$out"
mv "$out" "$here/cases.csv"
echo "wrote $here/cases.csv: $(grep -vc '^#' "$here/cases.csv") lines (with the header)"
