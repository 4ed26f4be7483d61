#!/usr/bin/env bash
# Extracts the growth results that stratisd's own tests state (src/engine/strat_engine/thinpool/thinpool.rs, the v1
# and v2 test modules) into cases.csv (tests/peers/README.md). Reads only the pinned commit of
# stratis-storage/stratisd, through git show.
#   tests/peers/stratisd/extract.sh [GIT_DIR [COMMIT]]
#
# stratisd's tests build with its #[cfg(test)] constants (DATA_ALLOC_SIZE 5 GiB, DATA_LOWATER 4 GiB, read here from
# the file), so the rows say `constants=test` and check.cpp gives provpol those constants. Cases:
#   test_fs_size_limit   a 1200 MiB filesystem with a 1400 MiB limit, 800 MiB written: check_fs grows it to its
#                        limit; limit raised to 1600 MiB, 200 MiB more: to the limit again; no limit, 400 MiB more:
#                        doubled to 3200 MiB; a limit of 50 sectors under its size is refused. The filesystem's
#                        statvfs size is taken as its thin device's and its used bytes as the bytes written (XFS's
#                        own log and metadata are not stated); 800 of 1200, 1000 of 1400 and 1400 of 1600 MiB are
#                        far enough over half that they cannot change the answer.
#   test_lazy_allocation an empty pool (data DATA_ALLOC_SIZE: two 5 GiB devices leave more room than that) is not
#                        extended by check(); once size - used < DATA_LOWATER, check() extends it by
#                        min(DATA_ALLOC_SIZE, available_on_start). available_on_start is measured at run time, so
#                        the size rows take one value on each side of DATA_ALLOC_SIZE; the trigger row is the first
#                        used count under the low water (data 5 GiB: 1025 blocks).
#   test_full_pool       a full pool (used = size) extends once a device is added (any nonzero space in blocks).
# Results stated through thin_metadata_size's run-time output are listed as left out, with why.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
git_dir=${1:-/work/.mirror/stratis-storage+stratisd/repo}
commit=${2:-28d8d0757f87b0dc4626c26506700d4ca089adc6}
g() { git --git-dir="$git_dir" "$@"; }
commit=$(g rev-parse "$commit^{commit}")
date=$(g show -s --format=%cs "$commit")
f=src/engine/strat_engine/thinpool/thinpool.rs
src=$(mktemp)
trap 'rm -f "$src"' EXIT
g show "$commit:$f" > "$src"
# after START REGEX [N]: the line number of the N-th (default 1st) line at or after START matching REGEX.
after() { awk -v s="$1" -v n="${3:-1}" -v re="$2" 'NR >= s && $0 ~ re { if (++k == n) { print NR; exit } }' "$src"; }
# num LINE SED: the number SED extracts from line LINE.
num() { sed -n "$1s/$2/\1/p" "$src"; }
ki() { echo $(($1 * 1024)); }
mib() { echo $(($1 << 20)); }
gib() { echo $(($1 << 30)); }

# The #[cfg(test)] constants, in 1 MiB data blocks (thinpool.rs:61 DATA_BLOCK_SIZE = 2 Ki sectors).
test_mod=$(after 1 '^#\[cfg\(test\)\]$')
alloc_blocks=$(ki "$(num "$(after "$test_mod" 'pub const DATA_ALLOC_SIZE')" '.*DataBlocks(\([0-9]*\) \* IEC::Ki).*')")
lowater_blocks=$(ki "$(num "$(after "$test_mod" 'pub const DATA_LOWATER')" '.*DataBlocks(\([0-9]*\) \* IEC::Ki).*')")
alloc=$((alloc_blocks << 20))

out=$here/cases.csv.new
{
echo "# stratis-storage/stratisd at $commit ($date), extracted by tests/peers/stratisd/extract.sh"
echo "# rule: filesystem (check_fs on one filesystem: expect its thin device's size after, sectors), size_limit"
echo "# (set_fs_size_limit: expect error), data (check() on the data device: expect none or extend:<size after, bytes>)."
echo "# constants: test = stratisd's #[cfg(test)] DATA_ALLOC_SIZE $alloc_blocks and DATA_LOWATER $lowater_blocks blocks of 1 MiB"
echo "id,file,line,status,reason,rule,constants,thin_size_sectors,size_limit_sectors,fs_used_bytes,data_size_bytes,data_used_blocks,available_bytes,expect,note"
for module in v1 v2; do
    k=1 && [ $module = v1 ] || k=2
    # test_fs_size_limit
    s=$(after 1 'fn test_fs_size_limit\(' $k)
    size=$(ki "$(num "$(after "$s" 'Sectors::from\([0-9]+ \* IEC::Ki\)')" '.*Sectors::from(\([0-9]*\) \* IEC::Ki).*')")
    limit1=$(ki "$(num "$(after "$s" 'Some\(Sectors\([0-9]+ \* IEC::Ki\)\),$')" '.*Some(Sectors(\([0-9]*\) \* IEC::Ki)).*')")
    w1=$(mib "$(num "$(after "$s" 'Bytes::from\([0-9]+ \* IEC::Mi\)' 1)" '.*Bytes::from(\([0-9]*\) \* IEC::Mi).*')")
    w2=$(mib "$(num "$(after "$s" 'Bytes::from\([0-9]+ \* IEC::Mi\)' 2)" '.*Bytes::from(\([0-9]*\) \* IEC::Mi).*')")
    w3=$(mib "$(num "$(after "$s" 'Bytes::from\([0-9]+ \* IEC::Mi\)' 3)" '.*Bytes::from(\([0-9]*\) \* IEC::Mi).*')")
    limit2=$(ki "$(num "$(after "$s" 'set_fs_size_limit\(fs_uuid, Some\(Sectors\([0-9]+ \* IEC::Ki\)\)\)')" '.*Some(Sectors(\([0-9]*\) \* IEC::Ki))).*')")
    l_first=$(after "$s" 'assert_eq!\(fs.size_limit\(\), Some\(fs.size\(\).sectors\(\)\)\);' 1)
    l_second=$(after "$s" 'assert_eq!\(fs.size_limit\(\), Some\(fs.size\(\).sectors\(\)\)\);' 2)
    l_third=$(after "$s" 'assert_eq!\(fs.size\(\).sectors\(\), Sectors\([0-9]+ \* IEC::Ki\)\);')
    third=$(ki "$(num "$l_third" '.*Sectors(\([0-9]*\) \* IEC::Ki)).*')")
    l_bad=$(after "$s" 'set_fs_size_limit\(fs_uuid, Some\(Sectors\([0-9]+\)\)\).is_err\(\)')
    bad=$(num "$l_bad" '.*Some(Sectors(\([0-9]*\))).*')
    t=$module::test_fs_size_limit
    echo "$t:first-check,$f,$l_first,check,,filesystem,test,$size,$limit1,$w1,,,,$limit1,size limit = size: grown to its limit"
    echo "$t:second-check,$f,$l_second,check,,filesystem,test,$limit1,$limit2,$((w1 + w2)),,,,$limit2,from the size the first check left; limit raised"
    echo "$t:no-limit,$f,$l_third,check,,filesystem,test,$limit2,,$((w1 + w2 + w3)),,,,$third,limit removed: doubled"
    echo "$t:limit-under-size,$f,$l_bad,check,,size_limit,test,$third,$bad,,,,,error,a limit under the size"
    # test_lazy_allocation
    s=$(after 1 'fn test_lazy_allocation\(' $k)
    l_empty=$(after "$s" 'assert_eq!\(init_data_size, pool.thin_pool.data_dev\(\).size\(\)\);' 2)
    l_changed=$(after "$s" 'assert!\(changed\);')
    l_size=$(after "$s" '^ *init_data_size$')
    l_meta=$(after "$l_size" 'pool.thin_pool.meta_dev\(\).size\(\),$')
    l_alloc=$(after "$s" 'backstore.datatier_allocated_size\(\),')
    trig=$(( (alloc_blocks - lowater_blocks) + 1 ))
    t=$module::test_lazy_allocation
    echo "$t:empty-check,$f,$l_empty,check,,data,test,,,,$alloc,0,$(gib 1),none,an empty pool of DATA_ALLOC_SIZE"
    echo "$t:changed,$f,$l_changed,check,,data,test,,,,$alloc,$trig,$((alloc + (1 << 30))),extend:$((2 * alloc)),first used count under DATA_LOWATER"
    echo "$t:size-alloc,$f,$l_size,check,,data,test,,,,$alloc,$trig,$((alloc + (1 << 30))),extend:$((2 * alloc)),available_on_start above DATA_ALLOC_SIZE"
    echo "$t:size-available,$f,$l_size,check,,data,test,,,,$alloc,$trig,$((alloc - (1 << 30))),extend:$((2 * alloc - (1 << 30))),available_on_start under DATA_ALLOC_SIZE"
    echo "$t:metadata,$f,$l_meta,left_out,the expected size is thin_metadata_size's output at run time (thin-provisioning-tools): not stated,,,,,,,,,,"
    echo "$t:allocated,$f,$l_alloc,left_out,backstore accounting whose metadata size is thin_metadata_size's run-time output: not stated,,,,,,,,,,"
    # test_full_pool
    s=$(after 1 'fn test_full_pool\(' $k)
    l_full=$(after "$s" 'ThinPoolStatusSummary::OutOfSpace,')
    l_good=$(after "$s" 'ThinPoolStatusSummary::Good,')
    t=$module::test_full_pool
    echo "$t:out-of-space,$f,$l_full,left_out,the kernel's state after the writes: no decision of stratisd's,,,,,,,,,,"
    echo "$t:extended-after-add,$f,$l_good,check,,data,test,,,,$(gib 1),1024,$(gib 1),extend:$(gib 2),full pool (its size is not stated: any full size gives this); a device added"
done
} > "$out"
mv "$out" "$here/cases.csv"
echo "wrote $here/cases.csv: $(grep -vc '^#' "$here/cases.csv") lines (with the header)"
