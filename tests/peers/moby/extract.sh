#!/usr/bin/env bash
# Extracts what moby's own devicemapper tests state about the driver's sizes (daemon/graphdriver/devmapper/
# devmapper_test.go, at the last commit that has the driver) into cases.csv (tests/peers/README.md). Reads only the
# pinned commit of moby/moby, through git show.
#   tests/peers/moby/extract.sh [GIT_DIR [COMMIT]]
#
# The tests replace the loopback defaults in init() (300 MiB data, 200 MiB metadata: read here from the file), start
# the driver, check the pool's data and metadata totals are those sizes, restart it with dm.loopdatasize and
# dm.loopmetadatasize 10 MiB smaller (TestDevmapperReduceLoopBackSize: the files are not shrunk) or larger
# (TestDevmapperIncreaseLoopBackSize: they grow) and check the totals again. Each total is one row: the file's size
# before (0: it does not exist yet), the size asked for, the size the test expects. The other tests exercise the
# graph driver's operations (create, snapshot, teardown, locks, mounts) and state no size: left out.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
git_dir=${1:-/work/.mirror/moby+moby/repo}
commit=${2:-81359cecdf25c08481b378ae7b54bc8d6cbc0476}
g() { git --git-dir="$git_dir" "$@"; }
commit=$(g rev-parse "$commit^{commit}")
date=$(g show -s --format=%cs "$commit")
f=daemon/graphdriver/devmapper/devmapper_test.go
src=$(mktemp)
trap 'rm -f "$src"' EXIT
g show "$commit:$f" > "$src"
line() { grep -n -m1 -E -- "$1" "$src" | cut -d: -f1; }
# size NAME: the bytes init() sets NAME to ("N * 1024 * 1024").
size() { sed -n "s/^[[:space:]]*$1 = \([0-9]*\) \* 1024 \* 1024$/\1/p" "$src" | head -1 | awk '{ print $1 * 1048576 }'; }
data=$(size defaultDataLoopbackSize)
meta=$(size defaultMetaDataLoopbackSize)
ten=$(sed -n 's/^[[:space:]]*tenMB := int64(\([0-9]*\) \* 1024 \* 1024)$/\1/p' "$src" | head -1 | awk '{ print $1 * 1048576 }')
l_before=$(line 's.Data.Total != uint64\(defaultDataLoopbackSize\)')
l_after=$(line 's.Data.Total != uint64\(expectDataSize\)')

out=$here/cases.csv.new
{
echo "# moby/moby at $commit ($date), extracted by tests/peers/moby/extract.sh"
echo "# which: data or metadata loopback file; sizes in bytes; config_*: the test's loopback defaults (init());"
echo "# existing: the file's size before the driver starts (0: none); wanted: dm.loop*size; expect: the pool's total"
echo "id,file,line,status,reason,which,config_data_loopback,config_metadata_loopback,existing,wanted,expect"
for t in Reduce Increase; do
    if [ $t = Reduce ]; then d=$((data - ten)) m=$((meta - ten)) ed=$data em=$meta
    else d=$((data + ten)) m=$((meta + ten)) ed=$((data + ten)) em=$((meta + ten)); fi
    id=TestDevmapper${t}LoopBackSize
    echo "$id:data-created,$f,$l_before,check,,data,$data,$meta,0,$data,$data"
    echo "$id:metadata-created,$f,$l_before,check,,metadata,$data,$meta,0,$meta,$meta"
    echo "$id:data-restarted,$f,$l_after,check,,data,$data,$meta,$data,$d,$ed"
    echo "$id:metadata-restarted,$f,$l_after,check,,metadata,$data,$meta,$meta,$m,$em"
done
for t in Setup CreateEmpty CreateBase CreateSnap Teardown LockReleasedDeviceDeletion MountLeaks; do
    echo "TestDevmapper$t,$f,$(line "^func TestDevmapper$t\("),left_out,graph driver operations (graphtest); no size is stated,,,,,,"
done
} > "$out"
mv "$out" "$here/cases.csv"
echo "wrote $here/cases.csv: $(grep -vc '^#' "$here/cases.csv") lines (with the header)"
