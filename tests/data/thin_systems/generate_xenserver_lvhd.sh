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
# (awk reads to the end rather than exit early, which would end git show with SIGPIPE and this script with it.)
fn() { show "$1" | awk -v n="def $2(" 'index($0, n) == 1 { on = 1; print; next } on && /^[^ \t#]/ { on = 0 } on { print }'; }
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
  # LVHDVDI.create: its class constants, the size check and normalisation at its start, then the xlvhd branch that
  # sizes the VDI's first LV from the normalised size and the initial allocation. A refusal raises XenError.
  echo 'class XenError(Exception):'
  echo '    def __init__(self, key, opterr=None): Exception.__init__(self, key, opterr)'
  echo 'xs_errors = NS(); xs_errors.XenError = XenError'
  echo 'self = NS()'
  show drivers/LVHDSR.py | grep -E '^    (MAX_VDI_SIZE_MB|VHD_SIZE_INC|MIN_VIRT_SIZE) = ' | sed -E 's/^    /self./'
  echo 'def vdi_create(size, ia):'
  start=$(show drivers/LVHDSR.py | grep -n 'if size / 1024 / 1024 > self.MAX_VDI_SIZE_MB:' | head -1 | cut -d: -f1)
  show drivers/LVHDSR.py | sed -n "${start},$((start + 7))p"
  start=$(show drivers/LVHDSR.py | grep -n 'fullpr = lvhdutil.calcSizeVHDLV(long(size))' | cut -d: -f1)
  show drivers/LVHDSR.py | sed -n "${start},$((start + 5))p" | sed -E 's/^ {16}/        /'
  echo '        return size, lvSize, fullpr'
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
print("# initial (xlvhd_adjust_initial_allocation: a = requested or 'default'), vdi_create (LVHDVDI.create: a = the")
print("# virtual size asked for, b = initial allocation; expected = virtual size;LV size;full LV size, or 'VDISize'")
print("# when sm refuses it), full_lv (lvhdutil.calcSizeVHDLV: a = virtual size), host_pool")
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
def create(v, ia):
    try:
        return "%d;%d;%d" % vdi_create(v, ia)
    except XenError:
        return "VDISize"
top = self.MAX_VDI_SIZE_MB * MiB
asked = virtual + [3 * MiB, 4 * MiB - 1, 4 * MiB + 1, 100 * MiB + 1, GiB - 1, 2 * TiB + 1, top - 2 * MiB - 1, top - 1,
                   top, top + 1, top + MiB - 1, top + MiB, top + MiB + 1, 4 * TiB, 2 ** 63]
for v in asked:
    for ia in [0, 1, 4 * MiB, 8 * MiB - 1, 8 * MiB, 8 * MiB + 1, 12 * MiB, 200 * MiB, 2 * GiB, 3 * TiB]:
        row("vdi_create", v, ia, create(v, ia))
for vg in [0, 1, GiB, 32 * GiB, 33554432000 - 1, 33554432000, 33554432000 + 1, 100 * GiB, TiB, 7 * TiB + 123,
           123456789012345678, 2 ** 60 + 1, 2 ** 63 - 1]:
    q, low = host_pool(vg)
    row("host_pool", vg, "", "%s;%s" % (q, low))
PY
} > "$prog"
"$py" "$prog" "$tag at $commit ($(git --git-dir="$git_dir" show -s --format=%cs "$commit"))" > "$here/xenserver_lvhd_cases.csv"
echo "wrote $here/xenserver_lvhd_cases.csv: $(grep -vc '^#' "$here/xenserver_lvhd_cases.csv") lines"
