#!/usr/bin/env bash
# Extracts the buffer sizes that ovirt-imageio's own tests state into cases.csv (tests/peers/README.md). Reads only
# the pinned commit of oVirt/ovirt-imageio, through git show.
#   tests/peers/ovirt-imageio/extract.sh [GIT_DIR [COMMIT]]
#
# Cases:
#   test/client_options_test.py  every `assert args.buffer_size == N * MiB`: the client's buffer (ovirt-img upload
#                                and download) when the test gives no --buffer-size is the default, BUFFER_SIZE
#                                (preset ovirt-imageio-client); a test that passes --buffer-size states the user's
#                                own value, which is left out.
#   test/backends_test.py        `assert len(c1.buffer) == cfg.backend_file.buffer_size` with cfg = config.load([]),
#                                the default configuration: the file backend's buffer is [backend_file] buffer_size
#                                as ovirt_imageio/_internal/config.py sets it (preset ovirt-imageio); the expected
#                                value is read from config.py at the same commit.
# Sizes are written as the tests write them (N * KiB or N * MiB, units.py: powers of 1024) and in bytes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
git_dir=${1:-/work/.mirror/oVirt+ovirt-imageio/repo}
commit=${2:-0eb617cd4d9d7c457c6420dd5267d361b2c6e442}
g() { git --git-dir="$git_dir" "$@"; }
commit=$(g rev-parse "$commit^{commit}")
date=$(g show -s --format=%cs "$commit")
show() { g show "$commit:$1"; }
bytes_of() {  # "4 * MiB" in bytes
    local n=${1%% *} u=${1##* }
    case $u in KiB) echo $((n << 10)) ;; MiB) echo $((n << 20)) ;; *) echo "unknown unit in '$1'" >&2; exit 1 ;; esac
}

out=$here/cases.csv.new
{
echo "# oVirt/ovirt-imageio at $commit ($date), extracted by tests/peers/ovirt-imageio/extract.sh"
echo "# expect_size: the buffer size the test holds ovirt-imageio to, in bytes; expression: as the source writes it"
echo "id,file,line,status,reason,preset,expression,expect_size"

f=test/client_options_test.py
show $f | awk '
  /^def test_/ { name = $2; sub(/\(.*/, "", name); given = 0 }
  /"--buffer-size"/ { given = 1 }
  /assert args\.buffer_size == [0-9]+ \* [KM]iB$/ { print NR "|" name "|" given "|" $4 " * " $6 }
' | while IFS='|' read -r line name given expr; do
    if [ "$given" -eq 1 ]; then
        echo "$name,$f,$line,left_out,the test passes --buffer-size: ovirt-img takes the user's size as given (its range is checked; no rule),ovirt-imageio-client,$expr,$(bytes_of "$expr")"
    else
        echo "$name,$f,$line,check,,ovirt-imageio-client,$expr,$(bytes_of "$expr")"
    fi
done

f=test/backends_test.py
line=$(show $f | grep -n -m1 -F 'assert len(c1.buffer) == cfg.backend_file.buffer_size' | cut -d: -f1)
show $f | grep -q -F 'return config.load([])' || { echo "$f: cfg is no longer the default configuration" >&2; exit 1; }
expr=$(show ovirt_imageio/_internal/config.py | awk '
  /^class / { in_file = ($2 == "backend_file:") }
  in_file && /^    buffer_size = [0-9]+ \* [KM]iB$/ { print $3 " * " $5; exit }')
[ -n "$line" ] && [ -n "$expr" ] || { echo "$f: the case or config.py's value moved" >&2; exit 1; }
echo "test_get_caching,$f,$line,check,,ovirt-imageio,$expr,$(bytes_of "$expr")"
} > "$out"
mv "$out" "$here/cases.csv"
