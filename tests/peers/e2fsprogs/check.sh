#!/usr/bin/env bash
# peers.e2fsprogs: every journal size that e2fsprogs' own tests state (cases.csv) asked of provpol logsize
# --preset e2fsprogs-1.47, as tests/peers/README.md describes.
#   check.sh path/to/provpol path/to/cases.csv [source dir]
source "$(dirname "$0")/../lib.sh"
peers_begin e2fsprogs "$@"

while peers_next_row; do
    # The journal rules read the block count only: a row that states no block size is asked in 1 KiB blocks.
    bs=${c_block_size:-1024}
    args=(logsize --format csv --preset e2fsprogs-1.47 --size $((c_blocks * bs)) --block-size "$bs")
    case $c_kind in
        mke2fs | dumpe2fs) [ -z "$c_journal_size_mib" ] || args+=(--journal-size "$c_journal_size_mib") ;;
        # Every filesystem these tests re-create a journal in is under 1 GiB, so its old journal was under
        # 1024 MiB: e2fsck takes the table whatever the superblock's backup said (no --old-journal needed).
        e2fsck) args+=(--e2fsck-recreate) ;;
        *) peers_fail "unknown kind '$c_kind'"; continue ;;
    esac
    peers_ask "${args[@]}"
    if [ "$peers_status" -ne 0 ]; then
        peers_fail "provpol ${args[*]}: exit $peers_status: $peers_err"
        continue
    fi
    peers_csv_rows
    peers_expect "data blocks (provpol ${args[*]})" "$c_blocks" "${out_data_blocks_1:-}"
    peers_expect "made (provpol ${args[*]})" 1 "${out_made_1:-}"
    peers_expect "journal blocks (provpol ${args[*]})" "$c_expect_journal_blocks" \
        "$((${out_log_blocks_1:-0} + ${out_fast_commit_blocks_1:-0}))"
done
peers_finish
