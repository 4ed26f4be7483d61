#!/usr/bin/env bash
# logsize --mkfs-command: each answer's command line, run through the real tools on a sparse file of the size,
# gives that answer's log back -- mkfs.xfs (this machine's: xfsprogs 6.1 on Debian 12) with -N -f added, and
# mke2fs (e2fsprogs 1.47) formatting the file (mke2fs -n does not print the journal), read back with dumpe2fs -h.
# Exit 77 (skipped, said) without mkfs.xfs or mke2fs: scripts/dev installs xfsprogs and e2fsprogs.
# Usage: logsize_mkfs_command_test.sh path/to/provpol
. "$(dirname "$0")/lib.sh"
for tool in mkfs.xfs mke2fs dumpe2fs; do
  command -v "$tool" >/dev/null || { echo "skipped: $tool is not installed (apt-get install xfsprogs e2fsprogs)"; exit 77; }
done
img="$scratch/dev.img"

json_field() {  # json_field NAME: the field's value in the last run's (one-row) JSON
  sed -n "s/.*\"$1\": \"\{0,1\}\([^\",}]*\)\"\{0,1\}[,}].*/\1/p" "$out" | head -1
}
command_of() { sed -n 's/.*"mkfs_command": "\(.*\)"}.*/\1/p' "$out" | head -1; }

# xfs SIZE PRESET [logsize options...]: the command's mkfs.xfs -N log blocks, agcount and log sunit are the answer's.
xfs() {
  local size=$1 preset=$2; shift 2
  expect_ok logsize --size "$size" --preset "$preset" --mkfs-command --format json "$@"
  local cmd blocks ag lsu; cmd=$(command_of); blocks=$(json_field log_blocks); ag=$(json_field agcount)
  lsu=$(json_field log_sunit_blocks)
  checks=$((checks + 1))
  case "$cmd" in "mkfs.xfs "*" DEVICE") ;; *) fail "$preset $size $*: not a mkfs.xfs command on DEVICE: '$cmd'"; return ;; esac
  rm -f "$img"; truncate -s "$size" "$img"
  local words; read -r -a words <<<"${cmd% DEVICE}"
  local got; got=$("${words[0]}" -N -f "${words[@]:1}" "$img" 2>&1 | awk '
      /^meta-data=/ { for (i = 1; i <= NF; i++) if ($i ~ /^agcount=/) { sub(/agcount=/, "", $i); sub(/,/, "", $i); ag = $i } }
      /^log / { for (i = 1; i <= NF; i++) if ($i ~ /^blocks=/) { sub(/blocks=/, "", $i); sub(/,/, "", $i); lb = $i }; inlog = 1; next }
      inlog { for (i = 1; i <= NF; i++) if ($i ~ /^sunit=/) { sub(/sunit=/, "", $i); lsu = $i }; inlog = 0 }
      END { print lb, ag, lsu }')
  checks=$((checks + 1))
  [ "$got" = "$blocks $ag $lsu" ] || fail "$cmd: mkfs.xfs -N gives log blocks, agcount, log sunit '$got', logsize '$blocks $ag $lsu'"
}

# ext4 SIZE [logsize options...]: the command's journal (dumpe2fs -h) is the answer's log and fast-commit blocks.
ext4() {
  local size=$1; shift
  expect_ok logsize --size "$size" --preset e2fsprogs-1.47 --mkfs-command --format json "$@"
  local cmd blocks fc; cmd=$(command_of); blocks=$(json_field log_blocks); fc=$(json_field fast_commit_blocks)
  checks=$((checks + 1))
  case "$cmd" in "mke2fs "*" DEVICE "*) ;; *) fail "ext4 $size $*: not a mke2fs command on DEVICE: '$cmd'"; return ;; esac
  rm -f "$img"; truncate -s "$size" "$img"
  local words; read -r -a words <<<"${cmd/ DEVICE / $img }"
  # Lazy initialisation and no discard so that a sparse file stays sparse; -F -q: a file, no chatter.
  "${words[0]}" -F -q -E lazy_itable_init=1,lazy_journal_init=1,nodiscard "${words[@]:1}" >"$scratch/mke2fs.out" 2>&1 ||
    { fail "$cmd failed: $(cat "$scratch/mke2fs.out")"; return; }
  local h total fcb; h=$(dumpe2fs -h "$img" 2>/dev/null)
  total=$(echo "$h" | sed -n 's/^Total journal blocks: *//p'); fcb=$(echo "$h" | sed -n 's/^Fast commit length: *//p')
  checks=$((checks + 1))
  [ "$((${total:-0} - ${fcb:-0})) ${fcb:-0}" = "$blocks $fc" ] ||
    fail "$cmd: dumpe2fs gives journal ${total:-0} - fast commit ${fcb:-0}, logsize '$blocks $fc'"
}

xfs 220GiB xfsprogs-6.1
xfs 10GiB xfsprogs-6.1
xfs 2TiB xfsprogs-6.1
xfs 100GiB xfsprogs-6.1 --su 64KiB --sw 4
xfs 100GiB xfsprogs-6.1 --su 512KiB --sw 2 --agcount 8
xfs 50GiB xfsprogs-6.1 --log-su 32KiB
xfs 50GiB xfsprogs-6.1 --agsize 4GiB
xfs 50GiB xfsprogs-6.1 --sector-size 4096
xfs 50GiB xfsprogs-6.1 --block-size 1024
xfs 50GiB xfsprogs-6.1 --features rmapbt=1,nrext64=1
xfs 50GiB xfsprogs-6.5                      # a release: its rmapbt/nrext64 defaults go into the command
xfs 2GiB xfsprogs-6.1 --features reflink=0,finobt=0
xfs 200MiB xfsprogs-6.1 --unsupported
xfs 1GiB xfs-floor-32m --unsupported        # a proposal: its log size is in the command
xfs 300GiB xfs-ratio-256
ext4 511MiB
ext4 20GiB
ext4 20GiB --fast-commit
ext4 2GiB --block-size 2048

# With --path the command names the target read, and no size (mkfs reads it).
rm -f "$img"; truncate -s 50GiB "$img"
expect_ok logsize --path "$img" --preset xfsprogs-6.1 --mkfs-command --format json
checks=$((checks + 1))
[ "$(command_of)" = "mkfs.xfs -b size=4096 -s size=512 $img" ] || fail "--path command: '$(command_of)'"
blocks=$(json_field log_blocks)
checks=$((checks + 1))
mkfs.xfs -N -f -b size=4096 -s size=512 "$img" | grep -Eq "^log +=internal log +bsize=4096 +blocks=$blocks," ||
  fail "mkfs.xfs -N on $img does not make $blocks log blocks"
expect_ok logsize --path "$img" --preset e2fsprogs-1.47 --mkfs-command --format json
checks=$((checks + 1))
[ "$(command_of)" = "mke2fs -t ext4 -b 4096 $img" ] || fail "--path mke2fs command: '$(command_of)'"
finish
