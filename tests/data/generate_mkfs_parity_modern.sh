# Sourced by generate_mkfs_parity.sh for its "roots" and "modern" modes (see there); not run on its own.
#
# roots:  debootstraps three Debian roots (needs root, debootstrap and network access to a Debian mirror):
#           $XFS_ROOT_6_13 (default /work/roots/trixie)    Debian 13 with its xfsprogs 6.13.0
#           $XFS_ROOT_7_2  (default /work/roots/sid)       a copy of it with unstable's xfsprogs 7.2.0 (the
#                                                          unstable Release file is past its Valid-Until date)
#           $XFS_ROOT_6_1  (default /work/roots/bookworm)  Debian 12 with xfsprogs 6.1.0
# modern: runs mkfs.xfs -N in each root over the sweep below. Loop devices (for the automatic concurrency path:
#         mkfs.xfs >= 6.8 asks the BLKROTATIONAL ioctl) are set up on this machine, their rotational flag set in
#         /sys/block/loopN/queue/rotational, and /dev and /proc bind-mounted into the root while they run.
: "${XFS_ROOT_6_13:=/work/roots/trixie}" "${XFS_ROOT_7_2:=/work/roots/sid}" "${XFS_ROOT_6_1:=/work/roots/bookworm}"
: "${DEBIAN_MIRROR:=http://deb.debian.org/debian}"

if [ "$mode" = roots ]; then
    [ "$(id -u)" = 0 ] || { echo "roots: run as root" >&2; exit 1; }
    command -v debootstrap >/dev/null || { echo "roots: apt-get install debootstrap" >&2; exit 1; }
    [ -x "$XFS_ROOT_6_13/sbin/mkfs.xfs" ] ||
        debootstrap --variant=minbase --include=xfsprogs trixie "$XFS_ROOT_6_13" "$DEBIAN_MIRROR"
    [ -x "$XFS_ROOT_6_1/sbin/mkfs.xfs" ] ||
        debootstrap --variant=minbase --include=xfsprogs bookworm "$XFS_ROOT_6_1" "$DEBIAN_MIRROR"
    if [ ! -x "$XFS_ROOT_7_2/sbin/mkfs.xfs" ] || ! chroot "$XFS_ROOT_7_2" mkfs.xfs -V | grep -q ' 7\.'; then
        [ -d "$XFS_ROOT_7_2" ] || cp -a "$XFS_ROOT_6_13" "$XFS_ROOT_7_2"
        echo "deb $DEBIAN_MIRROR sid main" > "$XFS_ROOT_7_2/etc/apt/sources.list"
        cp /etc/resolv.conf "$XFS_ROOT_7_2/etc/resolv.conf" 2>/dev/null || true
        chroot "$XFS_ROOT_7_2" apt-get -o Acquire::Check-Valid-Until=false update
        chroot "$XFS_ROOT_7_2" apt-get -o Acquire::Check-Valid-Until=false install -y xfsprogs
    fi
    for r in "$XFS_ROOT_6_1" "$XFS_ROOT_6_13" "$XFS_ROOT_7_2"; do chroot "$r" mkfs.xfs -V; done
    exit 0
fi

[ "$(id -u)" = 0 ] || { echo "modern: run as root (chroot, losetup)" >&2; exit 1; }
cpus=$(getconf _NPROCESSORS_ONLN)  # what mkfs.xfs's nr_cpus() reads (sysconf _SC_NPROCESSORS_ONLN)

# Classifies mkfs.xfs's complaint into a verdict (the messages of mkfs/xfs_mkfs.c; 7.2 writes "300MiB" and
# "64MiB" where 6.1 and 6.13 write "300MB" and "64MB", and refuses an AG too small for a 64 MiB log on its own).
m_verdict() {
    case "$1" in
        *"Filesystem must be larger than 300M"*) echo fs_too_small ;;
        *"is too small to hold the minimum 64MiB log"*) echo ag_too_small_for_log_floor ;;
        *"Log size must be at least 64M"*) echo log_too_small ;;
        *"at least 2 superblocks for redundancy"*) echo single_ag ;;
        *"smaller than min log size"*) echo error:ag_too_small_for_log ;;
        *"too small, minimum size is"*) echo error:log_below_minimum ;;
        *"Due to stripe alignment, the internal log"*) echo error:log_crosses_ag ;;
        *"of data subvolume is too small"*) echo error:data_too_small ;;
        *agsize*|*"allocation groups"*|*"last AG size"*) echo error:invalid_ag_geometry ;;
        *"block size"*"too small"*|*"Minimum block size for CRC"*) echo error:block_size ;;
        *) echo "error:other" ;;
    esac
}

# Reads the geometry and the features mkfs.xfs printed:
# data_blocks agcount agsize log_blocks log_sunit crc finobt reflink rmapbt nrext64 parent
m_geometry() {
    awk '
        function val(k,   i, v) { for (i = 1; i <= NF; i++) if ($i ~ ("^" k "=")) { v = $i; sub(k "=", "", v); sub(/,$/, "", v); return v } return "" }
        /^meta-data=/ { ag = val("agcount"); agsize = val("agsize") }
        /^data +=/ { d = val("blocks") }
        /^log +=/ { l = val("blocks"); inlog = 1; next }
        inlog && /sunit=/ { ls = val("sunit"); inlog = 0 }
        { for (k in f) ; }
        { split("crc finobt reflink rmapbt nrext64 parent", names, " ")
          for (j in names) { v = val(names[j]); if (v != "") f[names[j]] = v } }
        END { print d, ag, agsize, l, ls, f["crc"], f["finobt"], f["reflink"], f["rmapbt"],
                    (f["nrext64"] == "" ? 0 : f["nrext64"]), (f["parent"] == "" ? 0 : f["parent"]) }'
}

loopdev=""
mounted=""
m_cleanup() {
    [ -z "$loopdev" ] || losetup -d "$loopdev" 2>/dev/null || true
    if [ -n "$mounted" ]; then umount "$mounted/dev" 2>/dev/null || true; umount "$mounted/proc" 2>/dev/null || true; fi
    rm -rf "$work"
    [ -z "${xwork:-}" ] || rm -rf "$xroot$xwork"
}
trap m_cleanup EXIT

m_rows=0
# m_case NAME SIZE [bs=] [sect=] [agcount=] [agsize=] [su= sw=] [lsu=] [f=name=v+name=v] [lc=N] [rot=0|1] [uns]
m_case() {
    local name=$1 size_text=$2; shift 2
    local bs=4096 sect=512 agcount="" agsize="" su="" sw="" lsu="" feats="" lc="" rot="" uns=0 kv
    for kv in "$@"; do
        case "$kv" in
            bs=*) bs=${kv#bs=} ;; sect=*) sect=${kv#sect=} ;; agcount=*) agcount=${kv#agcount=} ;;
            agsize=*) agsize=$(to_bytes "${kv#agsize=}") ;; su=*) su=$(to_bytes "${kv#su=}") ;; sw=*) sw=${kv#sw=} ;;
            lsu=*) lsu=$(to_bytes "${kv#lsu=}") ;; f=*) feats=${kv#f=} ;; lc=*) lc=${kv#lc=} ;; rot=*) rot=${kv#rot=} ;; uns) uns=1 ;;
            *) echo "m_case: bad option $kv" >&2; exit 1 ;;
        esac
    done
    local size; size=$(to_bytes "$size_text")
    # Features given: -m for the btrees, -i nrext64, -n parent.
    local mopt="" iopt="" nopt="" f
    for f in ${feats//+/ }; do
        case "$f" in
            crc=*|finobt=*|reflink=*|rmapbt=*) mopt+=",$f" ;;
            nrext64=*) iopt+=",$f" ;;
            parent=*) nopt+=",$f" ;;
            *) echo "m_case: bad feature $f" >&2; exit 1 ;;
        esac
    done
    local args=(-N -f -b "size=$bs" -s "size=$sect")
    local dopts="" method=sparse dev
    [ -n "$agcount" ] && dopts+=",agcount=$agcount"
    [ -n "$agsize" ] && dopts+=",agsize=$agsize"
    [ -n "$su" ] && dopts+=",su=$su,sw=$sw"
    if [ -n "$rot" ]; then
        method=loop
        truncate -s 0 "$xroot$xwork/dev"; truncate -s "$size" "$xroot$xwork/dev"
        loopdev=$(losetup -f --show "$xroot$xwork/dev")
        echo "$rot" > "/sys/block/${loopdev#/dev/}/queue/rotational"
        dev=$loopdev
        [ -n "$dopts" ] && args+=(-d "${dopts#,}")
    elif [ "$size" -ge $((16 * TiB)) ]; then
        method=dsize; : > "$xroot$xwork/empty"
        dopts+=",file=1,name=$xwork/empty,size=$size"
        args+=(-d "${dopts#,}")
        dev=""
    else
        dev="$xwork/dev"; rm -f "$xroot$dev"; truncate -s "$size" "$xroot$dev"
        [ -n "$dopts" ] && args+=(-d "${dopts#,}")
    fi
    [ -n "$mopt" ] && args+=(-m "${mopt#,}")
    [ -n "$iopt" ] && args+=(-i "${iopt#,}")
    [ -n "$nopt" ] && args+=(-n "${nopt#,}")
    local lopts=""
    [ -n "$lsu" ] && lopts+=",su=$lsu"
    local main_l=()
    [ -n "$lc" ] && main_l=(-l "concurrency=$lc${lopts}") || { [ -n "$lopts" ] && main_l=(-l "${lopts#,}"); }

    local out rc verdict geo="" minlog="" message=""
    [ "$uns" = 1 ] && args+=(--unsupported)
    set +e
    out=$(chroot "$xroot" mkfs.xfs "${args[@]}" "${main_l[@]}" $dev 2>&1); rc=$?
    set -e
    if [ $rc = 0 ]; then
        verdict=ok; geo=$(echo "$out" | m_geometry)
    else
        verdict=$(m_verdict "$out")
        # The tool's reason: the line that gave the verdict (warnings before it skipped), commas made semicolons.
        message=$(echo "$out" | grep -m1 -e 'must be larger than 300M' -e 'too small to hold the minimum' \
                      -e 'must be at least 64M' -e 'superblocks for redundancy' -e 'smaller than min log size' \
                      -e 'minimum size is' -e 'Due to stripe alignment' -e 'of data subvolume is too small' \
                      -e 'agsize' -e 'allocation groups' -e 'last AG size' | sed 's/,/;/g')
        if [ "$verdict" = error:other ]; then echo "unclassified mkfs.xfs error for $name $size_text $*: $out" | head -3 >&2; exit 1; fi
        if [[ "$verdict" != error:* ]]; then
            set +e
            out=$(chroot "$xroot" mkfs.xfs "${args[@]}" "${main_l[@]}" --unsupported $dev 2>&1); rc=$?
            set -e
            [ $rc = 0 ] || { echo "refused case $name also fails with --unsupported: $out" | head -3 >&2; exit 1; }
            geo=$(echo "$out" | m_geometry)
        fi
    fi
    local d="" ag="" agsz="" lb="" ls="" pc="" pf="" pr="" pm="" pn="" pp=""
    if [ -n "$geo" ]; then
        read -r d ag agsz lb ls pc pf pr pm pn pp <<< "$geo"
        # The minimum log: a 2 MiB log (the smallest -l size accepted), a multiple of the log stripe unit, makes
        # mkfs print the minimum it computed for this geometry, unless the minimum is below it (then empty).
        local unit=${ls:-0}; [ "$unit" -gt 0 ] || unit=1
        local probe=$(( (2 * MiB + bs - 1) / bs )); probe=$(( (probe + unit - 1) / unit * unit ))
        set +e
        out=$(chroot "$xroot" mkfs.xfs "${args[@]}" -l "size=${probe}b${lopts}" $dev 2>&1)
        set -e
        minlog=$(echo "$out" | sed -nE 's/.*minimum size is ([0-9]+) blocks.*/\1/p; s/.*smaller than min log size ([0-9]+),.*/\1/p' | head -1)
    elif [ "$verdict" = error:ag_too_small_for_log ]; then
        minlog=$(echo "$out" | sed -nE 's/.*smaller than min log size ([0-9]+),.*/\1/p' | head -1)
    fi
    if [ -n "$loopdev" ]; then losetup -d "$loopdev"; loopdev=""; fi
    echo "$name,$method,$size,$bs,$sect,$agcount,$agsize,$su,$sw,$lsu,${feats},$lc,$rot,$cpus,$uns,$verdict,$message,$d,$ag,$agsz,$lb,$ls,$pc,$pf,$pr,$pm,$pn,$pp,$minlog" >> "$m_csv"
    m_rows=$((m_rows + 1))
}

m_header() {  # version
    echo "# mkfs.xfs version $1 (xfsprogs, $2), $stamp"
    echo "# verdict: ok | fs_too_small | log_too_small | single_ag (refusals, geometry from a re-run with --unsupported)"
    echo "#          | ag_too_small_for_log_floor (7.2: an AG under 64 MiB; refused unless --unsupported)"
    echo "#          | error:<class> (mkfs exits non-zero even with --unsupported; geometry columns empty)"
    echo "# message: the first line mkfs.xfs printed when it refused (commas as semicolons)"
    echo "# features_opt: the features given (-m, -i nrext64, -n parent), '+'-separated; crc..parent: as mkfs printed them"
    echo "# log_concurrency: -l concurrency= (empty: not given); rotational: loop device's flag (empty: a file); cpus: online CPUs"
    echo "case,method,device_size,block_size,sector_size,agcount_opt,agsize_opt,su,sw,log_su,features_opt,log_concurrency,rotational,cpus,unsupported,verdict,message,data_blocks,agcount,agsize_blocks,log_blocks,log_sunit_blocks,crc,finobt,reflink,rmapbt,nrext64,parent,min_log_blocks"
}

m_enter() {  # root: make a work directory inside it, mount /dev and /proc for loop devices
    xroot=$1
    xwork=$(mktemp -d -p "$xroot/tmp" provpol.XXXXXX); xwork=${xwork#$xroot}
    mount --bind /dev "$xroot/dev"; mount -t proc proc "$xroot/proc"; mounted=$xroot
}
m_leave() {
    umount "$xroot/dev"; umount "$xroot/proc"; mounted=""
    rm -rf "${xroot:?}$xwork"; xwork=""
}

# The sweep of one version (6.13 or 7.2).
m_sweep() {
    local s bs n a c m r
    for s in 200M 299M 300M 301M 512M 1023M 1G 2G 4G 16G 64G 220G 220000000000 1T 4T 4097G 16T 64T 100T; do
        m_case default "$s"
    done
    for s in 1G 100G 4T; do for bs in 1024 2048 8192 16384 32768 65536; do m_case bs "$s" bs=$bs; done; done
    for s in 300M 1G 16G 100G 4T 16T; do
        m_case v4-bs512 "$s" bs=512 f=crc=0
        m_case v4 "$s" f=crc=0
    done
    m_case v4-bs1k 1G bs=1024 f=crc=0
    m_case v4-bs512 10G bs=512 f=crc=0 agcount=64
    m_case v4-bs512 100G bs=512 f=crc=0 su=64K sw=4
    for s in 1G 100G 4T; do
        m_case sect4k "$s" sect=4096
        m_case sect4k-bs64k "$s" sect=4096 bs=65536
    done
    for s in 1G 10G 220G 4T; do
        for m in finobt=0 reflink=0 rmapbt=0 rmapbt=0+reflink=0 nrext64=0 parent=0 parent=1 \
                 rmapbt=0+reflink=0+nrext64=0+parent=0 finobt=0+rmapbt=0; do
            m_case features "$s" f=$m
        done
    done
    for m in reflink=0 rmapbt=0+reflink=0 parent=1 crc=0; do
        m_case features-bs1k 1G bs=1024 f=$m
        m_case features-bs64k 100G bs=65536 f=$m
        m_case features-sect4k 100G sect=4096 f=$m
    done
    for s in 10G 1T; do
        for n in 1 2 7 64 1000; do m_case agcount "$s" agcount=$n; done
        for a in 16M 1G 100G; do m_case agsize "$s" agsize=$a; done
    done
    m_case agcount 1T agcount=8192
    m_case agcount 1T agcount=8192 f=rmapbt=0+reflink=0
    for s in 1G 100G 4T; do
        m_case stripe "$s" su=64K sw=4
        m_case stripe "$s" su=512K sw=2
        m_case stripe "$s" su=12K sw=3
        m_case log-su "$s" lsu=32K
        m_case log-su "$s" lsu=256K
    done
    for s in 1023M 1G 4G 64G 1T 16T; do
        for c in 1 2 4 8 16 32 64 128 256; do m_case concurrency "$s" lc=$c; done
    done
    for c in 1 8 64 256; do
        m_case concurrency-bs1k 10G bs=1024 lc=$c
        m_case concurrency-bs64k 10G bs=65536 lc=$c
        m_case concurrency-norefl 10G f=rmapbt=0+reflink=0 lc=$c
        m_case concurrency-parent 10G f=parent=1 lc=$c
        m_case concurrency-stripe 100G su=64K sw=4 lc=$c
        m_case concurrency-lsu 100G lsu=256K lc=$c
        m_case concurrency-v4 10G f=crc=0 lc=$c
        m_case concurrency-agcount 100G agcount=64 lc=$c
        m_case concurrency-sect4k 10G sect=4096 lc=$c
    done
    m_case concurrency 4G lc=0
    for s in 1G 4G 100G 1T; do for r in 0 1; do m_case loop "$s" rot=$r; done; done
    m_case loop 4G rot=0 lc=0
    m_case loop 4G rot=1 lc=16
    m_case loop 512M rot=0
    m_case loop 4G rot=0 f=rmapbt=0+reflink=0
    # Hard errors and refusals overridden by --unsupported.
    m_case errors 100M bs=65536
    m_case errors 100G bs=65536 agcount=6400
    m_case errors 1056M agsize=1G su=64K sw=2
    m_case errors 4T agcount=2
    m_case errors 1675264000 agcount=100 su=12M sw=2
    m_case unsupported 200M uns
    m_case unsupported 10G agsize=16M uns
    m_case unsupported 2G agcount=1 uns
    m_case unsupported 10G agsize=32M lc=64 uns
    # 7.2 refuses an AG that cannot hold 64 MiB of log: 64 MiB AGs are refused, 65 MiB AGs are not.
    m_case ag-floor 10G agsize=64M
    m_case ag-floor 10G agsize=65M
    m_case ag-floor 10G agsize=66M f=rmapbt=0+reflink=0
}

# 6.1: the V4 rows the first sweep lacks (512-byte blocks), over the same kinds of geometry.
m_sweep_6_1_v4() {
    local s
    for s in 300M 1G 4G 16G 100G 1T 4T 16T; do
        m_case v4-bs512 "$s" bs=512 f=crc=0
        m_case v4-bs1k "$s" bs=1024 f=crc=0
    done
    for s in 10G 1T; do
        m_case v4-bs512-agcount "$s" bs=512 f=crc=0 agcount=64
        m_case v4-bs512-agsize "$s" bs=512 f=crc=0 agsize=1G
        m_case v4-bs512-stripe "$s" bs=512 f=crc=0 su=64K sw=4
        m_case v4-bs512-logsu "$s" bs=512 f=crc=0 lsu=32K
    done
    m_case v4-bs512 200M bs=512 f=crc=0
    m_case v4-bs512-agcount 2G bs=512 f=crc=0 agcount=1
}

# Every transaction reservation, as xfs_db's logres command prints them for a real (sparse) filesystem:
# the 26 runtime reservations of xfs_trans_resv_calc and the largest minimum-log reservation ("minlogsize").
# The filesystem is formatted (-K, a log of the minimum size: reservations do not depend on the log size).
r_header() {
    echo "# mkfs.xfs and xfs_db version $1 (xfsprogs, $2), $stamp"
    echo "# xfs_db -r -c logres on a filesystem made with these options: type N logres/logcount, then minlogsize"
    echo "# (type 26, tr_atomic_ioend, exists from 7.x on; empty before)"
    local h="case,device_size,block_size,sector_size,agcount_opt,agsize_opt,log_su,features_opt,agblocks,log_sunit_blocks,crc,finobt,reflink,rmapbt,nrext64,parent" i
    for i in $(seq 0 26); do h+=",r${i}_logres,r${i}_logcount"; done
    echo "$h,minlog_logres,minlog_logcount"
}
r_case() {  # NAME SIZE [bs=] [sect=] [agcount=] [agsize=] [lsu=] [f=...]
    local name=$1 size_text=$2; shift 2
    local bs=4096 sect=512 agcount="" agsize="" lsu="" feats="" kv
    for kv in "$@"; do
        case "$kv" in
            bs=*) bs=${kv#bs=} ;; sect=*) sect=${kv#sect=} ;; agcount=*) agcount=${kv#agcount=} ;;
            agsize=*) agsize=$(to_bytes "${kv#agsize=}") ;; lsu=*) lsu=$(to_bytes "${kv#lsu=}") ;;
            f=*) feats=${kv#f=} ;; *) echo "r_case: bad option $kv" >&2; exit 1 ;;
        esac
    done
    local size; size=$(to_bytes "$size_text")
    local mopt="" iopt="" nopt="" f
    for f in ${feats//+/ }; do
        case "$f" in crc=*|finobt=*|reflink=*|rmapbt=*) mopt+=",$f" ;; nrext64=*) iopt+=",$f" ;; parent=*) nopt+=",$f" ;; esac
    done
    local args=(-f -b "size=$bs" -s "size=$sect") dopts="" lopts=""
    [ -n "$agcount" ] && dopts+=",agcount=$agcount"
    [ -n "$agsize" ] && dopts+=",agsize=$agsize"
    [ -n "$dopts" ] && args+=(-d "${dopts#,}")
    [ -n "$mopt" ] && args+=(-m "${mopt#,}")
    [ -n "$iopt" ] && args+=(-i "${iopt#,}")
    [ -n "$nopt" ] && args+=(-n "${nopt#,}")
    [ -n "$lsu" ] && lopts=",su=$lsu"
    local dev="$xwork/fs" out geo d ag agsz lb ls pc pf pr pm pn pp minlog
    rm -f "$xroot$dev"; truncate -s "$size" "$xroot$dev"
    out=$(chroot "$xroot" mkfs.xfs -N "${args[@]}" ${lopts:+-l "${lopts#,}"} --unsupported "$dev" 2>&1) ||
        { echo "r_case $name: $out" | head -3 >&2; exit 1; }
    read -r d ag agsz lb ls pc pf pr pm pn pp <<< "$(echo "$out" | m_geometry)"
    local unit=${ls:-0}; [ "$unit" -gt 0 ] || unit=1
    local probe=$(( (2 * MiB + bs - 1) / bs )); probe=$(( (probe + unit - 1) / unit * unit ))
    out=$(chroot "$xroot" mkfs.xfs -N "${args[@]}" -l "size=${probe}b${lopts}" --unsupported "$dev" 2>&1 || true)
    minlog=$(echo "$out" | sed -nE 's/.*minimum size is ([0-9]+) blocks.*/\1/p' | head -1)
    [ -n "$minlog" ] || minlog=$probe
    minlog=$(( (minlog + unit - 1) / unit * unit ))
    chroot "$xroot" mkfs.xfs -q -K "${args[@]}" -l "size=${minlog}b${lopts}" --unsupported "$dev" > /dev/null 2>&1 ||
        { echo "r_case $name: mkfs failed" >&2; exit 1; }
    local res
    res=$(chroot "$xroot" xfs_db -r -c logres "$dev" | awk '
        /^type/ { printf ",%s,%s", $4, $6; n++ }
        /^minlogsize/ { for (; n < 27; n++) printf ",,"; printf ",%s,%s", $3, $5 }')
    rm -f "$xroot$dev"
    echo "$name,$size,$bs,$sect,$agcount,$agsize,$lsu,$feats,$agsz,$ls,$pc,$pf,$pr,$pm,$pn,$pp$res" >> "$r_csv"
    r_rows=$((r_rows + 1))
}
r_sweep() {  # the same geometries for every version (parent pointers only where the version has them)
    local bs m
    r_case default 300M
    r_case default 4G
    r_case default 1T
    r_case default 4T
    for bs in 1024 2048 8192 16384 65536; do r_case bs 10G bs=$bs; done
    r_case v4 10G f=crc=0
    r_case v4-bs512 10G bs=512 f=crc=0
    r_case v4-bs1k 10G bs=1024 f=crc=0
    r_case sect4k 10G sect=4096
    r_case log-su 10G lsu=32K
    r_case log-su 10G lsu=256K
    for m in reflink=0 rmapbt=0 rmapbt=0+reflink=0 finobt=0 nrext64=0 rmapbt=1 nrext64=1; do r_case features 10G f=$m; done
    if [ "$1" != 6.1 ]; then
        r_case parent 10G f=parent=1
        r_case parent 10G f=parent=0
        r_case parent-bs64k 10G bs=65536 f=parent=1
        r_case parent-v4 10G f=crc=0
    fi
    r_case agcount 1T agcount=64
    r_case agsize 10G agsize=16M
    r_case agsize 100G agsize=100G
}
r_run() {  # label root version csv
    r_csv=$4; r_rows=0
    r_header "$(chroot "$2" mkfs.xfs -V | sed -n 's/.*version //p')" "$1" > "$r_csv"
    m_enter "$2"
    r_sweep "$3"
    m_leave
    echo "xfs_db logres $3: $r_rows rows -> ${r_csv#$root/}" >&2
}

m_run() {  # version-label root expected-version csv sweep
    local label=$1 r=$2 want=$3 sweep=$5
    m_csv=$4
    [ -x "$r/sbin/mkfs.xfs" ] || { echo "no mkfs.xfs in $r: run '$0 roots' first" >&2; exit 1; }
    local v; v=$(chroot "$r" mkfs.xfs -V | sed -n 's/.*version //p')
    [ "$v" = "$want" ] || echo "warning: mkfs.xfs in $r is $v, the CSV names $want" >&2
    m_header "$v" "$label" > "$m_csv"
    m_rows=0
    m_enter "$r"
    "$sweep"
    m_leave
    echo "mkfs.xfs $v: $m_rows rows -> ${m_csv#$root/}" >&2
}

m_run "Debian 13" "$XFS_ROOT_6_13" 6.13.0 "$here/mkfs_xfs_6.13.csv" m_sweep
m_run "Debian unstable" "$XFS_ROOT_7_2" 7.2.0 "$here/mkfs_xfs_7.2.csv" m_sweep
m_run "Debian 12" "$XFS_ROOT_6_1" 6.1.0 "$here/mkfs_xfs_6.1_v4.csv" m_sweep_6_1_v4
r_run "Debian 13" "$XFS_ROOT_6_13" 6.13 "$here/xfs_db_logres_6.13.csv"
r_run "Debian unstable" "$XFS_ROOT_7_2" 7.2 "$here/xfs_db_logres_7.2.csv"
r_run "Debian 12" "$XFS_ROOT_6_1" 6.1 "$here/xfs_db_logres_6.1.csv"
