#!/usr/bin/env bash
# Writes the two published buffer-size tables of tests/data/chunk_tables/ from the projects' own repositories, read
# at pinned commits with `git show` (no work tree), so that the numbers are the projects' bytes, not retyped:
#
#   coreutils_ioblksize.csv     coreutils/coreutils fcfba90d (2024-02-28) src/ioblksize.h, lines 52-62: the
#                               `dd bs=$bs if=/dev/zero of=/dev/null` throughput per block size on 11 systems, in
#                               GB/s (dd's GB: 10^9 bytes), the table behind IO_BUFSIZE = 256 KiB.
#   ovirt_imageio_0bdc698e.csv  oVirt/ovirt-imageio 0bdc698e (2018-06-10), the commit message: throughput per buffer
#                               size on an XtremIO array over iSCSI and over FC, in MiB/s, the table behind
#                               buffer_size = 8 MiB.
#
# How the numbers are transcribed: each table row is split on blanks; the block size column is copied as printed
# (bytes for coreutils; MiB for ovirt-imageio, written with the unit: "8MiB"); each throughput is copied digit for
# digit, except that coreutils' values below 1 are printed without a leading zero (".73") and get one here ("0.73"),
# because provpol reads decimals with a digit before the point. Nothing is converted: the rate column is named after
# the table's unit (gb_per_s, mib_per_s) and `provpol chunk --samples` converts on reading. The `table` column is
# the table's own label: the system number (1 to 11, "#1" to "#9", "10", "11" in coreutils' header) and the
# transport (iSCSI, FC). A row that does not have every column aborts the script.
#
#   extract.sh [COREUTILS_GIT_DIR [OVIRT_IMAGEIO_GIT_DIR]]
# The defaults are the snapshots the tool library's `fetch github:coreutils/coreutils` and
# `fetch github:oVirt/ovirt-imageio` make. Regenerating must give the committed files byte for byte.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
coreutils=${1:-/work/.mirror/coreutils+coreutils/repo}
imageio=${2:-/work/.mirror/oVirt+ovirt-imageio/repo}
coreutils_commit=fcfba90d0d27a1bacf2020bac4dbec74ed181028
imageio_commit=0bdc698e3a9fece4118618632e61a8dd3362255f

# coreutils: lines 52-62 are the 11 block sizes, 1024 to 1048576; line 60 is marked "-> 262144 ... <-".
git --git-dir="$coreutils" show "$coreutils_commit:src/ioblksize.h" | sed -n 52,62p | awk '
  BEGIN { print "table,block_size,gb_per_s" }
  {
    gsub(/->|<-/, "")
    if (NF != 12 || $1 !~ /^[0-9]+$/) { print "unexpected row: " $0 > "/dev/stderr"; exit 1 }
    for (s = 2; s <= 12; s++) row[s - 1, NR] = $1 "," ($s ~ /^\./ ? "0" $s : $s)
    rows = NR
  }
  END { for (s = 1; s <= 11; s++) for (r = 1; r <= rows; r++) print s "," row[s, r] }
' > "$here/coreutils_ioblksize.csv"
[ "$(wc -l < "$here/coreutils_ioblksize.csv")" -eq 122 ] || { echo "coreutils: expected 121 rows" >&2; exit 1; }

# ovirt-imageio: the five rows under "size (MiB)    throughput (MiB/s)" in the commit message.
git --git-dir="$imageio" show -s --format=%B "$imageio_commit" | awk '
  BEGIN { print "table,block_size,mib_per_s" }
  /^ +[0-9]+ +[0-9]+\.[0-9]+ +[0-9]+\.[0-9]+ *$/ {
    iscsi[++n] = $1 "MiB," $2
    fc[n] = $1 "MiB," $3
  }
  END {
    if (n != 5) { print "expected 5 rows, got " n > "/dev/stderr"; exit 1 }
    for (i = 1; i <= n; i++) print "iSCSI," iscsi[i]
    for (i = 1; i <= n; i++) print "FC," fc[i]
  }
' > "$here/ovirt_imageio_0bdc698e.csv"
