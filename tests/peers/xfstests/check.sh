#!/usr/bin/env bash
# peers.xfstests: every case of cases.csv (xfstests' own expected log sizes, AG geometries and mkfs verdicts)
# asked of provpol logsize, as tests/peers/README.md describes. Rows that differ only in the preset are asked
# in one provpol call with several --preset (one output row each, in the order given).
#   check.sh path/to/provpol path/to/cases.csv [source dir]
source "$(dirname "$0")/../lib.sh"
peers_begin xfstests "$@"

inputs="size_bytes block_size sector_size su sw agcount agsize_bytes data_concurrency log_concurrency features"
# The presets asked for each set of inputs, from a first pass over the file.
declare -A presets_of=() answer_of=()
for name in id status preset $inputs; do
    [ -n "${peers_col[$name]:-}" ] || peers_shape_error "no column '$name'"
done
while IFS=, read -r -a r; do
    [ "${r[${peers_col[status]}]}" = check ] || continue
    key=""
    for name in $inputs; do key+="${r[${peers_col[$name]}]},"; done
    presets_of[$key]+=" ${r[${peers_col[preset]}]}"
done < "$peers_tmp/rows"

while peers_next_row; do
    key=""
    for name in $inputs; do key+="${row[${peers_col[$name]}]},"; done
    args=(logsize --format csv --unsupported --size "$c_size_bytes")
    [ -z "$c_block_size" ] || args+=(--block-size "$c_block_size")
    [ -z "$c_sector_size" ] || args+=(--sector-size "$c_sector_size")
    [ -z "$c_su" ] || args+=(--su "$c_su" --sw "$c_sw")
    [ -z "$c_agcount" ] || args+=(--agcount "$c_agcount")
    [ -z "$c_agsize_bytes" ] || args+=(--agsize "$c_agsize_bytes")
    [ -z "$c_data_concurrency" ] || args+=(--data-concurrency "$c_data_concurrency")
    [ -z "$c_log_concurrency" ] || args+=(--log-concurrency "$c_log_concurrency")
    [ -z "$c_features" ] || args+=(--features "${c_features//;/,}")
    if [ -z "${answer_of[$key]+set}" ]; then
        ask=("${args[@]}")
        for p in ${presets_of[$key]}; do ask+=(--preset "$p"); done
        peers_ask "${ask[@]}"
        answer_of[$key]="exit $peers_status: $peers_err"
        if [ "$peers_status" -eq 0 ]; then
            answer_of[$key]=ok
            peers_csv_rows
            for ((n = 1; n <= out_rows; n++)); do
                p_var=out_preset_$n
                for name in made data_blocks agcount agsize_blocks log_blocks; do
                    v_var=out_${name}_$n
                    answer_of[$key${!p_var}:$name]=${!v_var:-}
                done
            done
        fi
    fi
    if [ "${answer_of[$key]}" != ok ]; then
        peers_fail "provpol ${args[*]} --preset $c_preset: ${answer_of[$key]}"
        continue
    fi
    if [ -z "${answer_of[$key$c_preset:made]+set}" ]; then
        peers_fail "provpol ${args[*]} --preset $c_preset printed no row for the preset"
        continue
    fi
    for name in made data_blocks agcount agsize_blocks log_blocks; do
        want_var=c_expect_$name
        [ -z "${!want_var}" ] ||
            peers_expect "$name (provpol ${args[*]} --preset $c_preset)" "${!want_var}" "${answer_of[$key$c_preset:$name]}"
    done
done
peers_finish
