#!/usr/bin/env bash
# logsize --path parity with the real mkfs.xfs -N, on loop devices (queue/rotational set to 0 and to 1, 512- and
# 4096-byte sectors) and on image files, for mkfs.xfs 6.13 (Debian 13) and 7.2 (Debian unstable) run in the
# Debian roots that `tests/data/generate_mkfs_parity.sh roots` makes ($XFS_ROOT_6_13, $XFS_ROOT_7_2).
#
#   tests/data/capture_logsize_path.sh                  as root, about 10 s: writes logsize_path_mkfs.csv next to
#                                                       this script: per target and version the facts of the
#                                                       target (blockdev, sysfs, getconf in the root), the mkfs
#                                                       command run and the geometry it printed
#   tests/data/capture_logsize_path.sh --check PROVPOL  as root, about 5 s: runs mkfs.xfs -N and `PROVPOL logsize
#                                                       --path` (copied into the root) on the same targets and
#                                                       compares them (test e2e.logsize_path; exit 77, skipped,
#                                                       without root, a loop device or the roots)
#
# The roots are made once with network access (debootstrap --variant=minbase: 1 min 36 s for trixie here, plus
# 25 s for the unstable copy); no test makes them, since tests run without network. /dev, /proc and /sys are
# bind-mounted into each root while mkfs runs, so it sees the loop devices and their topology as the host does.
set -uo pipefail
export LC_ALL=C
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${XFS_ROOT_6_13:=/work/roots/trixie}" "${XFS_ROOT_7_2:=/work/roots/sid}"
mode=capture provpol=""
if [ "${1:-}" = --check ]; then mode=check provpol=${2:?usage: $0 [--check PROVPOL]}; fi
skip() { echo "skipped: $*"; exit 77; }
if [ "$(id -u)" -ne 0 ]; then [ "$mode" = check ] && skip "needs root (losetup, chroot)"; echo "run as root" >&2; exit 1; fi
for r in "$XFS_ROOT_6_13" "$XFS_ROOT_7_2"; do
    if [ ! -x "$r/sbin/mkfs.xfs" ]; then
        [ "$mode" = check ] && skip "no mkfs.xfs in $r (make the roots with: tests/data/generate_mkfs_parity.sh roots)"
        echo "no mkfs.xfs in $r: run tests/data/generate_mkfs_parity.sh roots" >&2; exit 1
    fi
done
losetup -f >/dev/null 2>&1 || { [ "$mode" = check ] && skip "no free loop device"; echo "no loop device" >&2; exit 1; }

work=/tmp/provpol-logsize-path.$$
loops=() mounts=()
cleanup() {
    local m l
    for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
    for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
    rm -rf "$XFS_ROOT_6_13$work" "$XFS_ROOT_7_2$work"
}
trap cleanup EXIT
for r in "$XFS_ROOT_6_13" "$XFS_ROOT_7_2"; do
    mkdir -p "$r$work"
    [ "$mode" = check ] && cp "$provpol" "$r$work/provpol"  # run in the root, where mkfs runs: the same CPU view
    gcc -O2 -shared -fPIC -o "$r$work/shim.so" "$here/topology_shim.c" -ldl ||
        { [ "$mode" = check ] && skip "cannot build tests/data/topology_shim.c"; exit 1; }
    for d in dev proc sys; do
        mountpoint -q "$r/$d" && continue
        mount --bind "/$d" "$r/$d" && mounts+=("$r/$d")
    done
done

# geometry VERSION_ROOT TARGET: mkfs.xfs -N's answer as "agcount agsize data_blocks sectsz sunit swidth log_blocks
# log_sectsz log_sunit" (the data section's sectsz and stripe, the log section's).
geometry() {
    chroot "$1" "${shim_in_root[@]}" mkfs.xfs -N -f "$2" 2>&1 | awk '
        /^meta-data=/ { for (i = 1; i <= NF; i++) { if ($i ~ /^agcount=/) { sub(/agcount=/, "", $i); sub(/,/, "", $i); ag = $i }
                                                    if ($i ~ /^agsize=/) { sub(/agsize=/, "", $i); agsz = $i } } }
        /sectsz=/ && !sect { for (i = 1; i <= NF; i++) if ($i ~ /^sectsz=/) { sub(/sectsz=/, "", $i); sect = $i } }
        /^data / { for (i = 1; i <= NF; i++) if ($i ~ /^blocks=/) { sub(/blocks=/, "", $i); sub(/,/, "", $i); db = $i }; indata = 1; next }
        indata && /sunit=/ { for (i = 1; i <= NF; i++) { if ($i ~ /^sunit=/) { sub(/sunit=/, "", $i); su = $i }
                                                         if ($i ~ /^swidth=/) { sub(/swidth=/, "", $i); sw = $i } }; indata = 0 }
        /^log / { for (i = 1; i <= NF; i++) if ($i ~ /^blocks=/) { sub(/blocks=/, "", $i); sub(/,/, "", $i); lb = $i }; inlog = 1; next }
        inlog { for (i = 1; i <= NF; i++) { if ($i ~ /^sectsz=/) { sub(/sectsz=/, "", $i); ls = $i }
                                            if ($i ~ /^sunit=/) { sub(/sunit=/, "", $i); lsu = $i } }; inlog = 0 }
        END { if (lb == "") exit 1; print ag, agsz, db, sect, su, sw, lb, ls, lsu }'
}

# mke2fs_stride TARGET: "stride stripe_width" as the host's mke2fs -n prints them (0 0 when it prints none).
mke2fs_stride() {
    shim "$root$work/shim.so" mke2fs -n -v -F -t ext4 "$1" 2>/dev/null |
        awk -F'[=, ]+' '/^Stride=/ { st = $2; sw = $6 } END { print (st == "" ? 0 : st), (sw == "" ? 0 : sw) }'
}

# shim SO COMMAND...: runs COMMAND with the topology shim preloaded when SHIM_MIN/SHIM_OPT are set (the minimum
# and optimal I/O the device is made to report; topology_shim.c), as it is otherwise.
SHIM_MIN="" SHIM_OPT=""
shim() {
    local so=$1; shift
    if [ -n "$SHIM_MIN$SHIM_OPT" ]; then
        env LD_PRELOAD="$so" PROVPOL_SHIM_MIN_IO="$SHIM_MIN" PROVPOL_SHIM_OPT_IO="$SHIM_OPT" "$@"
    else
        "$@"
    fi
}

# provpol_geometry PROVPOL_CSV_LINE: the same nine fields from logsize --format csv (log_sunit from its column).
provpol_geometry() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
             { print $col["agcount"], $col["agsize_blocks"], $col["data_blocks"], $col["sector_size"], $col["sunit_blocks"],
                     $col["swidth_blocks"], $col["log_blocks"], $col["sector_size"], $col["log_sunit_blocks"] }'
}

csv="$here/logsize_path_mkfs.csv"
failures=0 checks=0
if [ "$mode" = capture ]; then
    {
        echo "# mkfs.xfs -N -f TARGET, run by tests/data/capture_logsize_path.sh on $(date -u +%Y-%m-%d) on $(uname -r);"
        echo "# 6.13: $(chroot "$XFS_ROOT_6_13" mkfs.xfs -V), 7.2: $(chroot "$XFS_ROOT_7_2" mkfs.xfs -V)"
        echo "# target: image (a sparse file) or loop (losetup [-b sector] over one); the facts are blockdev --getsize64"
        echo "# --getss --getpbsz --getiomin --getioopt, /sys/block/loopN/queue/rotational as set, getconf"
        echo "# _NPROCESSORS_ONLN in the root; agcount..log_sunit_blocks are mkfs.xfs's (log_sectsz: its log section);"
        echo "# mke2fs_stride, mke2fs_stripe_width: the host's $(mke2fs -V 2>&1 | head -1) -n -t ext4 -v on the same target."
        echo "# Rows with min_io/opt_io other than the loop device's own (512 or 4096, and 0) ran mkfs, mke2fs and blockdev"
        echo "# with tests/data/topology_shim.c preloaded, which makes libblkid and the BLKIOMIN/BLKIOOPT ioctls report them."
        echo "version,target,size,logical_sector,physical_sector,min_io,opt_io,rotational,cpus,agcount,agsize_blocks,data_blocks,sector_size,sunit_blocks,swidth_blocks,log_blocks,log_sector_size,log_sunit_blocks,mke2fs_stride,mke2fs_stripe_width"
    } > "$csv.new"
fi

# one VERSION ROOT KIND SIZE SECTOR ROTATIONAL [CPUS]: CPUS, when given, is the online CPU count the root sees (a
# file bind-mounted over its /sys/devices/system/cpu/online, which glibc's sysconf reads for mkfs and provpol
# alike; the host's is not touched), so that a non-rotational device's concurrency-sized log shows.
one() {
    local version=$1 root=$2 kind=$3 size=$4 sector=$5 rot=$6 fake=${7:-}
    if [ -n "$fake" ]; then
        echo "0-$((fake - 1))" > "$root$work/online"
        mount --bind "$root$work/online" "$root/sys/devices/system/cpu/online"
    fi
    local img="$root$work/disk.img" target facts
    rm -f "$img"; truncate -s "$size" "$img"
    if [ "$kind" = image ]; then
        target="$work/disk.img"
        facts="$(stat -c %s "$img"),512,512,0,0,"
    else
        target=$(losetup -f --show ${sector:+-b "$sector"} "$img") || { echo "losetup failed" >&2; exit 1; }
        loops+=("$target")
        echo "$rot" > "/sys/block/${target#/dev/}/queue/rotational"
        local so="$root$work/shim.so"
        facts="$(blockdev --getsize64 "$target"),$(blockdev --getss "$target"),$(blockdev --getpbsz "$target"),$(shim "$so" blockdev --getiomin "$target"),$(shim "$so" blockdev --getioopt "$target"),$rot"
    fi
    shim_in_root=()
    [ -n "$SHIM_MIN$SHIM_OPT" ] &&
        shim_in_root=(env LD_PRELOAD="$work/shim.so" PROVPOL_SHIM_MIN_IO="$SHIM_MIN" PROVPOL_SHIM_OPT_IO="$SHIM_OPT")
    local cpus; cpus=$(chroot "$root" getconf _NPROCESSORS_ONLN)
    local mkfs; mkfs=$(geometry "$root" "$target") || { echo "mkfs.xfs $version failed on $kind $size" >&2; exit 1; }
    local ext; ext=$(mke2fs_stride "$root$target")
    if [ "$mode" = capture ]; then
        echo "$version,$kind,$facts,$cpus,${mkfs// /,},${ext// /,}" >> "$csv.new"
    else
        local got; got=$(chroot "$root" "${shim_in_root[@]}" "$work/provpol" logsize --path "$target" --preset "xfsprogs-$version" --format csv |
            provpol_geometry)
        local got_ext; got_ext=$(chroot "$root" "${shim_in_root[@]}" "$work/provpol" logsize --path "$target" --preset e2fsprogs-1.47 --format csv |
            awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next } { print $col["sunit_blocks"], $col["swidth_blocks"] }')
        checks=$((checks + 2))
        if [ "$got" != "$mkfs" ]; then
            failures=$((failures + 1))
            echo "FAIL: $version $kind $size sector ${sector:-512} rotational ${rot:--} I/O ${SHIM_MIN:--}/${SHIM_OPT:--}: mkfs.xfs -N: $mkfs; logsize --path: $got"
        fi
        if [ "$got_ext" != "$ext" ]; then
            failures=$((failures + 1))
            echo "FAIL: $kind $size I/O ${SHIM_MIN:--}/${SHIM_OPT:--}: mke2fs -n stride/stripe_width $ext; logsize --path: $got_ext"
        fi
    fi
    if [ "$kind" = loop ]; then losetup -d "$target"; unset 'loops[-1]'; fi
    [ -n "$fake" ] && umount "$root/sys/devices/system/cpu/online"
    rm -f "$img"
}

for v in 6.13 7.2; do
    root=$XFS_ROOT_6_13; [ "$v" = 7.2 ] && root=$XFS_ROOT_7_2
    for size in 300GiB 20GiB 2GiB; do
        one "$v" "$root" image "$size" "" ""
        for rot in 0 1; do
            one "$v" "$root" loop "$size" "" "$rot"
            one "$v" "$root" loop "$size" 4096 "$rot"
            one "$v" "$root" loop "$size" "" "$rot" 16
        done
        one "$v" "$root" image "$size" "" "" 16
    done
    # A stripe from the topology (minimum / optimal I/O, in bytes) and mkfs's refusals of it: a valid stripe, one
    # of the two missing, a width not a multiple of the unit, a unit over the width, not a multiple of the block
    # size, the physical sector size, one block; under 1 GiB of data; 4096-byte sectors; an SSD's 16 CPUs.
    for io in 65536/262144 65536/0 0/262144 65536/98304 131072/65536 6144/24576 512/262144 4096/4096 \
              65536/1048576 1048576/4194304; do
        SHIM_MIN=${io%/*} SHIM_OPT=${io#*/}
        one "$v" "$root" loop 300GiB "" 1
    done
    SHIM_MIN=65536 SHIM_OPT=262144
    one "$v" "$root" loop 1000MiB "" 1
    one "$v" "$root" loop 1GiB "" 1
    one "$v" "$root" loop 300GiB 4096 1
    one "$v" "$root" loop 300GiB "" 0 16
    SHIM_MIN=4096 SHIM_OPT=0
    one "$v" "$root" loop 300GiB 4096 1
    SHIM_MIN="" SHIM_OPT=""
done

if [ "$mode" = capture ]; then
    mv "$csv.new" "$csv"
    echo "wrote $csv ($(grep -vc '^#' "$csv") lines)"
else
    echo "$checks checks, $failures failed"
    [ "$failures" -eq 0 ]
fi
