#!/usr/bin/env bash
# VDSM's own test cases into cases.csv (tests/peers/README.md): extract.sh [GIT_DIR [COMMIT]]. The defaults are
# the snapshot `fetch github:oVirt/vdsm` makes and the commit pinned here. Reads files only through git show, never
# runs provpol; regenerating gives the committed file byte for byte (extract.sh && git diff --exit-code cases.csv).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
git_dir=${1:-/work/.mirror/oVirt+vdsm/repo}
commit=${2:-fd4b0df20b9bc79864ba0d11c3c1140fb1de194a}
exec python3 "$here/extract.py" "$git_dir" "$commit" "$here/cases.csv"
