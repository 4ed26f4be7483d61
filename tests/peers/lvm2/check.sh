#!/usr/bin/env bash
# peers.lvm2: the autoextend results lvm2's own shell tests state (cases.csv), asked of provpol extend with the
# LVM presets, as tests/peers/README.md describes.
#   check.sh path/to/provpol path/to/cases.csv [source dir]
source "$(dirname "$0")/../lib.sh"
peers_begin lvm2 "$@"

while peers_next_row; do
    args=(extend --format csv --preset "$c_preset" --threshold "$c_threshold" --extend-percent "$c_extend_percent"
          --extent "${c_extent}B" --physical "${c_physical}B" --used-blocks "$c_used_blocks" --total-blocks "$c_total_blocks")
    # cases.csv's sizes are bytes: B says so (a bare number on an LVM size option is refused, lvm reads MiB).
    [ -z "$c_pool_chunk" ] || args+=(--pool-chunk "${c_pool_chunk}B")
    [ -z "$c_vdo_slab" ] || args+=(--vdo-slab "${c_vdo_slab}B")
    peers_ask "${args[@]}"
    if [ "$peers_status" -ne 0 ]; then
        peers_fail "provpol ${args[*]}: exit $peers_status: $peers_err"
        continue
    fi
    peers_csv_rows
    outcome=${out_outcome_1:-}
    # lvm2's test says only that lvextend fails; provpol names why (fails-percent-zero, ...).
    [ "$c_expect_outcome" != fails ] || outcome=${outcome%%-*}
    peers_expect "outcome (provpol ${args[*]})" "$c_expect_outcome" "$outcome"
    if [ -n "$c_expect_lvs_size" ]; then
        # lvs prints sizes in GiB with two decimals.
        peers_expect "size as lvs prints it (provpol ${args[*]})" "$c_expect_lvs_size" \
            "$(awk -v b="${out_new_size_1:-0}" 'BEGIN { printf "%.2fg", b / 1073741824 }')"
    fi
done
peers_finish
