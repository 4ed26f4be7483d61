#!/usr/bin/env bash
# Extracts the journal sizes that e2fsprogs' own tests (tests/*/expect*) state, with what they were made from,
# into cases.csv (tests/peers/README.md). Reads only the pinned commit of tytso/e2fsprogs, through git show.
#   tests/peers/e2fsprogs/extract.sh [GIT_DIR [COMMIT]]
#
# Three kinds of line, each with its inputs from the same expect file (and the test's script):
#   mke2fs  "Creating journal (N blocks): done" after "Creating filesystem with B Xk blocks": mke2fs's journal
#           (journal + fast-commit blocks) for B blocks of X KiB, with -J size=M when the script passes it.
#   e2fsck  "Creating journal (N blocks):" after "Recreate journal? yes": the journal e2fsck re-creates, for the
#           block count Y of the next "files ... X/Y blocks" summary.
#   dumpe2fs "Total journal blocks: N" in an m_* test (mke2fs made the filesystem), with "Block count:" and
#           "Block size:" of the same dumpe2fs -h output.
# Other "Total journal blocks" lines (prepared images, or after tune2fs and resize2fs) state no mke2fs decision
# with its inputs: listed as left out. A test whose script turns fast_commit on is left out too (provpol's
# fast-commit area is the default one; no such test states a size here).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
git_dir=${1:-/work/.mirror/tytso+e2fsprogs/repo}
commit=${2:-a9f482e55f3ca384226e76fceb15f274698cce93}
g() { git --git-dir="$git_dir" "$@"; }
commit=$(g rev-parse "$commit^{commit}")
date=$(g show -s --format=%cs "$commit")

out=$here/cases.csv.new
{
echo "# tytso/e2fsprogs at $commit ($date), extracted by tests/peers/e2fsprogs/extract.sh"
echo "# kind: mke2fs (its journal), e2fsck (the journal it re-creates), dumpe2fs (the journal mke2fs made, as"
echo "# dumpe2fs -h reads it); blocks and block_size: the filesystem's (block_size empty: not stated, irrelevant to"
echo "# the rule, which reads the block count); journal_size_mib: -J size= from the script; expect_journal_blocks:"
echo "# journal and fast-commit blocks together, as mke2fs and e2fsck print them"
echo "id,file,line,status,reason,kind,blocks,block_size,journal_size_mib,expect_journal_blocks,test_command"
g ls-tree --name-only "$commit" tests/ | sed 's|^tests/||' | sort | while read -r t; do
    case $t in [a-z]_*) ;; *) continue ;; esac
    script=$(g show "$commit:tests/$t/script" 2>/dev/null || true)
    jsize=$(sed -n 's/.*-J *size=\([0-9]*\).*/\1/p' <<< "$script" | head -1)
    fc=0
    grep -q 'fast_commit' <<< "$script" && fc=1
    cmd=$(grep -m1 -oE '(\$MKE2FS|MKE2FS_OPTS=)[^>|]*' <<< "$script" | tr ',' ';' | sed 's/[[:space:]]*$//' || true)
    for f in $(g ls-tree --name-only "$commit" "tests/$t/" | grep '/expect' || true); do
        g show "$commit:$f" 2>/dev/null | awk -v t="$t" -v f="$f" -v js="$jsize" -v fc="$fc" -v cmd="$cmd" '
            function emit(kind, n, blocks, bs, j, why) {
                if (why == "" && fc) why = "the script turns fast_commit on"
                printf "%s:%d,%s,%d,%s,%s,%s,%s,%s,%s,%s,%s\n", f, n, f, n, why == "" ? "check" : "left_out", why,
                    kind, blocks, bs, j, $0 ~ /Total journal/ ? jb : nb, kind == "e2fsck" ? "e2fsck -fy" : cmd
            }
            /^Creating filesystem with [0-9]+ [0-9]+k blocks/ { fsb = $4; fsbs = substr($5, 1, length($5) - 1) * 1024 }
            /^Recreate journal\? yes/ { recreate = 1 }
            /^Creating journal \([0-9]+ blocks\):/ {
                nb = $3; sub(/\(/, "", nb)
                if (recreate) { pend_n = NR; pend_nb = nb; recreate = 0; next }
                if (fsb == "") { emit("mke2fs", NR, "", "", js, "no \"Creating filesystem with\" line before it"); next }
                emit("mke2fs", NR, fsb, fsbs, js, "")
            }
            /[0-9]+\/[0-9]+ files .* [0-9]+\/[0-9]+ blocks/ && pend_n {
                match($0, /[0-9]+\/[0-9]+ blocks/); last = substr($0, RSTART, RLENGTH - 7)
                split(last, b, "/"); save = $0; nb = pend_nb
                $0 = ""; emit("e2fsck", pend_n, b[2], "", "", ""); $0 = save; pend_n = 0
            }
            /^Block count:/ { bc = $3 }
            /^Block size:/ { bsz = $3 }
            /^ ?Total journal blocks:/ {
                jb = $NF
                if (t ~ /^m_/ && bc != "" && bsz != "") emit("dumpe2fs", NR, bc, bsz, js, "")
                else emit("dumpe2fs", NR, "", "", "", "the journal of a prepared image or of one changed after mke2fs (tune2fs; resize2fs; debugfs): no mke2fs decision with its inputs")
            }
            END { if (pend_n) { nb = pend_nb; emit("e2fsck", pend_n, "", "", "", "no summary line with the block count after it") } }'
    done
done
} > "$out"
mv "$out" "$here/cases.csv"
echo "wrote $here/cases.csv: $(grep -vc '^#' "$here/cases.csv") lines (with the header)"
