#!/usr/bin/env bash
# Extracts the autoextend results that lvm2's own shell tests state (test/shell/*.sh) into cases.csv
# (tests/peers/README.md). Reads only the pinned commit of lvmteam/lvm2, through git show.
#   tests/peers/lvm2/extract.sh [GIT_DIR [COMMIT]]
#
# The tests fill a pool with dd and check what dmeventd (or lvextend --use-policies) did. The settings, sizes and
# fills come from each script's own lines (lvmconf, vgcreate -s, lvcreate, dd); the extent size of aux prepare_vg
# from test/lib/aux_t.sh. Cases:
#   lvextend-thin-data-dmeventd  a 1 MiB pool of 64 KiB chunks, threshold 75, percent 10: filled to exactly 75%
#                                it must not change, one chunk more and it must grow (its data_percent changes).
#   lvextend-vdo-dmeventd        a 4 GiB VDO pool, threshold 70, percent 20, slab 128 MiB: filled to 70% or more it
#                                grows once, to "4.80g" (the script: 4G * 1.2). The fill is only bounded (>= 70%):
#                                the row asks at the least usage over 70% (the first 4 KiB block past it).
#   lvextend-thin-full           lvextend --use-policies with thin_pool_autoextend_percent = 0 must fail.
# Cases that state a result provpol cannot be given the inputs of are listed as left out, with why.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
git_dir=${1:-/work/.mirror/lvmteam+lvm2/repo}
commit=${2:-d804677c7565bff40c87ed830473674119f23f6a}
g() { git --git-dir="$git_dir" "$@"; }
commit=$(g rev-parse "$commit^{commit}")
date=$(g show -s --format=%cs "$commit")
show() { g show "$commit:$1"; }
# line FILE REGEX: the first line number of FILE matching REGEX (grep -E).
line() { show "$1" | grep -n -m1 -E -- "$2" | cut -d: -f1; }
# conf FILE NAME: the value lvmconf sets NAME to in FILE.
conf() { show "$1" | sed -n "s/.*$2 *= *\([0-9]*\).*/\1/p" | head -1; }
mib() {  # a size as lvm writes it (1M, 4G, 256K) in bytes
    local n=${1%[KkMmGg]} u=${1##*[0-9]}
    case $u in K | k) echo $((n << 10)) ;; M | m) echo $((n << 20)) ;; G | g) echo $((n << 30)) ;; *) exit 1 ;; esac
}

out=$here/cases.csv.new
{
echo "# lvmteam/lvm2 at $commit ($date), extracted by tests/peers/lvm2/extract.sh"
echo "# sizes in bytes; used and total blocks in pool chunks (thin) or 4 KiB blocks (VDO); expect_outcome: none,"
echo "# extend or fails (lvextend exits non-zero); expect_lvs_size: the pool's size as lvs prints it"
echo "id,file,line,status,reason,preset,threshold,extend_percent,extent,pool_chunk,vdo_slab,physical,used_blocks,total_blocks,expect_outcome,expect_lvs_size"

f=test/shell/lvextend-thin-data-dmeventd.sh
th=$(conf $f thin_pool_autoextend_threshold)
pc=$(conf $f thin_pool_autoextend_percent)
ext=$(mib "$(show $f | sed -n 's/^vgcreate .*-s \([0-9]*[KMG]\) .*/\1/p')")
pool=$(mib "$(show $f | sed -n 's/^lvcreate -L\([0-9]*[KMG]\) -c [0-9]*k -T .*/\1/p')")
chunk=$(( $(show $f | sed -n 's/^lvcreate -L[0-9]*[KMG] -c \([0-9]*\)k -T .*/\1/p') << 10 ))
fill=$(show $f | sed -n 's/^dd .* bs=\([0-9]*\)c count=1 conv=fdatasync/\1/p')
seek=$(show $f | sed -n 's/^dd .* bs=1c count=1 seek=\([0-9]*\) conv=fdatasync/\1/p')
used0=$(( (fill + chunk - 1) / chunk ))
used1=$(( (seek + 1 + chunk - 1) / chunk ))
echo "lvextend-thin-data-dmeventd:at-threshold,$f,$(line $f 'test_equal_ \$pre \|\| die'),check,,lvm-thin-autoextend,$th,$pc,$ext,$chunk,,$pool,$used0,$((pool / chunk)),none,"
echo "lvextend-thin-data-dmeventd:one-chunk-more,$f,$(line $f 'test_equal_ \$pre && die'),check,,lvm-thin-autoextend,$th,$pc,$ext,$chunk,,$pool,$used1,$((pool / chunk)),extend,"

f=test/shell/lvextend-vdo-dmeventd.sh
th=$(conf $f vdo_pool_autoextend_threshold)
pc=$(conf $f vdo_pool_autoextend_percent)
slab=$(( $(conf $f vdo_slab_size_mb) << 20 ))
ext=$(mib "$(show test/lib/aux_t.sh | sed -n 's/^[[:space:]]*vgcreate $SHARED -s \([0-9]*[KMG]\) "$vg" "${DEVICES\[@\]}"/\1/p' | head -1)")
pool=$(mib "$(show $f | sed -n 's/^lvcreate --vdo -V[0-9]*[KMG] -L\([0-9]*[KMG]\) .*/\1/p')")
size=$(show $f | sed -n 's/^check lv_field $vg\/vpool size "\([0-9.]*g\)"/\1/p')
total=$((pool / 4096))
echo "lvextend-vdo-dmeventd:past-threshold,$f,$(line $f 'check lv_field \$vg/vpool size'),check,,lvm-vdo-autoextend,$th,$pc,$ext,,$slab,$pool,$((total * th / 100 + 1)),$total,extend,$size"

f=test/shell/lvextend-thin-full.sh
echo "lvextend-thin-full:percent-0,$f,$(line $f "not lvextend --use-policies --config 'activation\{thin_pool_autoextend_percent = 0\}'"),check,,lvm-thin-autoextend,$(conf $f thin_pool_autoextend_threshold),0,$(mib "$(show test/lib/aux_t.sh | sed -n 's/^[[:space:]]*vgcreate $SHARED -s \([0-9]*[KMG]\) "$vg" "${DEVICES\[@\]}"/\1/p' | head -1)"),65536,,$(mib 200M),0,3200,fails,"

# Left out: results whose inputs the test does not state.
lo() { echo "$1,$2,$3,left_out,$4,,,,,,,,,,,"; }
f=test/shell/lvextend-thin-full.sh
lo lvextend-thin-full:metadata $f "$(line $f 'check lv_field \$vg/pool_tmeta size "3.00m"')" "the metadata's used blocks come from thin_restore of generated data (aux prepare_thin_metadata 400 0): not stated"
f=test/shell/lvextend-thin-metadata-dmeventd.sh
lo lvextend-thin-metadata-dmeventd:use-policies $f "$(line $f 'test "\$\(meta_percent_\)" -lt "90"')" "the metadata usage is only bounded (over 88%) and comes from thin_restore of generated data"
f=test/shell/thin-foreign-dmeventd.sh
lo thin-foreign-dmeventd:under-threshold $f "$(show $f | grep -n -E 'test "\$\(percent_\)" -lt 75' | tail -1 | cut -d: -f1)" "the pool is filled by mkfs.ext4 to over 95% (a bound; the blocks are not stated) and dmeventd may extend more than once before the check"
f=test/shell/lvextend-snapshot-dmeventd.sh
lo lvextend-snapshot-dmeventd:below $f "$(line $f 'test "\$pre" -gt "\$\(percent_\)"')" "the snapshot usage is measured at run time (COW of a filesystem's writes) and not stated: the check is only 'usage fell'"
f=test/shell/lvextend-snapshot-policy.sh
lo lvextend-snapshot-policy:below $f "$(line $f 'test "\$pre" -gt "\$\(percent\)"')" "the snapshot usage is measured at run time (COW of dd into a mounted filesystem) and not stated: the check is only 'usage fell'"
} > "$out"
mv "$out" "$here/cases.csv"
echo "wrote $here/cases.csv: $(grep -vc '^#' "$here/cases.csv") lines (with the header)"
