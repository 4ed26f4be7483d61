#!/usr/bin/env bash
# peers.ovirt-imageio: the buffer sizes ovirt-imageio's own tests hold its client and its file backend to
# (cases.csv), asked of provpol chunk with the ovirt-imageio presets, as tests/peers/README.md describes. On a device
# that imposes nothing the chunk is the preset's own size, so both the default size and the chunk are compared.
#   check.sh path/to/provpol path/to/cases.csv [source dir]
source "$(dirname "$0")/../lib.sh"
peers_begin ovirt-imageio "$@"

while peers_next_row; do
    args=(chunk --format csv --preset "$c_preset")
    peers_ask "${args[@]}"
    if [ "$peers_status" -ne 0 ]; then
        peers_fail "provpol ${args[*]}: exit $peers_status: $peers_err"
        continue
    fi
    peers_csv_rows
    peers_expect "the preset's size, $c_expression (provpol ${args[*]})" "$c_expect_size" "${out_default_size_1:-}"
    peers_expect "the chunk on a device that imposes nothing (provpol ${args[*]})" "$c_expect_size" \
        "${out_chunk_size_1:-}"
done
peers_finish
