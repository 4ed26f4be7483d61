#!/usr/bin/env bash
# Writes xenserver_lvhd_cases.csv: XenServer thin LVHD's size rules evaluated by sm's own Python 2 code at the pinned
# tag, for the inputs listed below. Run by hand (needs a python2 and the snapshot of xapi-project/sm that the tool
# library's `fetch github:xapi-project/sm` makes); the CSV is committed and read by tests/xenserver_lvhd_test.cpp.
#   tests/data/thin_systems/generate_xenserver_lvhd.sh [SM_GIT_DIR [TAG]]
# The functions are taken verbatim through git show (util.roundup, util.xlvhd_adjust_allocation_quantum,
# vhdutil.calcOverheadEmpty, vhdutil.calcOverheadBitmap, lvhdutil.calcSizeLV, lvhdutil.calcSizeVHDLV), and so are
# the lines of LVHDVDI.create that size a new xlvhd VDI and the lines of lvutil.write_xenvmd_config that size the
# host's free pool (wrapped in a function each, their indentation removed). Nothing here is provpol's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
git_dir=${1:-/work/.mirror/xapi-project+sm/repo}
tag=${2:-v1.15.1}
py=${PYTHON2:-python2}
commit=$(git --git-dir="$git_dir" rev-parse "$tag^{commit}")
show() { git --git-dir="$git_dir" show "$commit:$1"; }
# fn FILE NAME: the source of top-level function NAME in FILE (from its def to the next top-level line).
fn() { show "$1" | awk -v n="def $2(" 'index($0, n) == 1 { on = 1; print; next } on && /^[^ \t#]/ { exit } on { print }'; }
# lines FILE FROM TO: lines FROM..TO of FILE with their common indentation removed.
lines() { show "$1" | sed -n "$2,$3p" | sed -E 's/^ {16}//; s/^ {4}//'; }

prog=$(mktemp)
trap 'rm -f "$prog"' EXIT
{
  echo 'class NS(object): pass'
  echo 'util = NS(); vhdutil = NS(); lvhdutil = NS(); lvutil = NS()'
  fn drivers/util.py roundup; echo 'util.roundup = roundup'
  fn drivers/util.py xlvhd_adjust_allocation_quantum
  fn drivers/util.py xlvhd_adjust_initial_allocation
  show drivers/vhdutil.py | grep -E '^VHD_BLOCK_SIZE = '; echo 'vhdutil.VHD_BLOCK_SIZE = VHD_BLOCK_SIZE'
  fn drivers/vhdutil.py calcOverheadEmpty; echo 'vhdutil.calcOverheadEmpty = calcOverheadEmpty'
  fn drivers/vhdutil.py calcOverheadBitmap; echo 'vhdutil.calcOverheadBitmap = calcOverheadBitmap'
  show drivers/lvhdutil.py | grep -E '^(MSIZE_MB|MSIZE|LVM_SIZE_INCREMENT) = '
  echo 'lvhdutil.MSIZE = MSIZE; lvutil.LVM_SIZE_INCREMENT = LVM_SIZE_INCREMENT'
  fn drivers/lvhdutil.py calcSizeLV
  fn drivers/lvhdutil.py calcSizeVHDLV; echo 'lvhdutil.calcSizeVHDLV = calcSizeVHDLV'
  # LVHDVDI.create, the xlvhd branch: the VDI's first LV from its virtual size and initial allocation.
  start=$(show drivers/LVHDSR.py | grep -n 'fullpr = lvhdutil.calcSizeVHDLV(long(size))' | cut -d: -f1)
  echo 'def vdi_lv(size, ia):'
  show drivers/LVHDSR.py | sed -n "${start},$((start + 5))p" | sed -E 's/^ {16}/    /'
  echo '    return lvSize'
  # lvutil.write_xenvmd_config: the host's free pool, as the config file gets it (%d).
  start=$(show drivers/lvutil.py | grep -n 'min_host_allocation_quantum = 160' | cut -d: -f1)
  echo 'def host_pool(vgsize):'
  show drivers/lvutil.py | sed -n "${start},$((start + 6))p" | grep -v '^ *#'
  echo '    return "%d" % host_allocation_quantum, "%d" % host_low_water_mark'
  cat <<'PY'
import sys
MiB = 1024 * 1024
GiB = 1024 * MiB
TiB = 1024 * GiB
PiB = 1024 * TiB
src = sys.argv[1]
print("# xapi-project/sm %s, evaluated by tests/data/thin_systems/generate_xenserver_lvhd.sh (python2) from its own code" % src)
print("# rule: quantum (util.xlvhd_adjust_allocation_quantum: a = physical size, b = requested or 'default'),")
print("# initial (xlvhd_adjust_initial_allocation: a = requested or 'default'), vdi_lv (LVHDVDI.create: a = virtual")
print("# size, b = initial allocation), full_lv (lvhdutil.calcSizeVHDLV: a = virtual size), host_pool")
print("# (lvutil.write_xenvmd_config: a = VG size; expected = quantum MiB;low-water MiB), overhead_empty and")
print("# overhead_bitmap (vhdutil.calcOverheadEmpty, calcOverheadBitmap: a = virtual size). Sizes in bytes.")
print("id,rule,a,b,expected")
n = [0]
def row(rule, a, b, expected):
    n[0] += 1
    print("%d,%s,%s,%s,%s" % (n[0], rule, a, b, expected))
physical = [0, 1, 100 * MiB, 16 * MiB * 4000 - 1, 16 * MiB * 4000, 16 * MiB * 10000 - 1, 16 * MiB * 10000,
            16 * MiB * 10000 + 1, 16 * MiB * 50000, 200 * GiB, TiB, 10 * TiB, 123456789012345, 100 * TiB, PiB,
            2 ** 62 + 12345]
for p in physical:
    row("quantum", p, "default", xlvhd_adjust_allocation_quantum(p))
    for r in [0, 1, 16 * MiB - 1, 16 * MiB, 16 * MiB + 1, p // 50000 - 1, p // 50000, p // 50000 + 1,
              p // 4000 - 1, p // 4000, p // 4000 + 1, 64 * MiB, GiB, 5 * GiB]:
        if r >= 0:
            row("quantum", p, r, xlvhd_adjust_allocation_quantum(p, r))
row("initial", "default", "", xlvhd_adjust_initial_allocation())
for r in [0, 1, 200 * MiB]:
    row("initial", r, "", xlvhd_adjust_initial_allocation(r))
virtual = [0, 1, 2 * MiB - 1, 2 * MiB, 2 * MiB + 1, 100 * MiB, GiB, 10 * GiB, 10 * GiB + 3, 100 * GiB, TiB,
           2 * TiB - 1, 2 * TiB]
for mb in [0, 1, 2, 3, 100, 512, 600, 1000, 1023, 1024, 1536, 2047, 4096, 10240, 65536, 100000, 1048576, 2097152]:
    row("overhead_empty", mb * MiB, "", calcOverheadEmpty(mb * MiB))
for v in [0, 1, 2 * MiB - 1, 2 * MiB, 2 * MiB + 1, 3 * MiB, GiB - 1, GiB, GiB + 1, 2 * TiB]:
    row("overhead_bitmap", v, "", calcOverheadBitmap(v))
for v in virtual:
    row("full_lv", v, "", calcSizeVHDLV(v))
    for ia in [0, 1, 4 * MiB, 8 * MiB - 1, 8 * MiB, 8 * MiB + 1, 200 * MiB, 2 * GiB, 3 * TiB]:
        row("vdi_lv", v, ia, vdi_lv(v, ia))
for vg in [0, 1, GiB, 32 * GiB, 33554432000 - 1, 33554432000, 33554432000 + 1, 100 * GiB, TiB, 7 * TiB + 123,
           123456789012345678, 2 ** 60 + 1, 2 ** 63 - 1]:
    q, low = host_pool(vg)
    row("host_pool", vg, "", "%s;%s" % (q, low))
PY
} > "$prog"
"$py" "$prog" "$tag at $commit ($(git --git-dir="$git_dir" show -s --format=%cs "$commit"))" > "$here/xenserver_lvhd_cases.csv"
echo "wrote $here/xenserver_lvhd_cases.csv: $(grep -vc '^#' "$here/xenserver_lvhd_cases.csv") lines"
