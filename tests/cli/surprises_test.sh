#!/usr/bin/env bash
# The operator's surprises, one block each as they were reported against the CLI, and the behaviour each now has.
# Usage: surprises_test.sh path/to/provpol
. "$(dirname "$0")/lib.sh"

# 1. recommend --policy rate-aware: the documented default of --max-pause-probability (0 with this policy: plan for
#    the longest latency) is the one used; a target the recommendation misses is said on stderr and in a column.
#    (Its default target, no extend pausing, is missed at this rate, and said so: the first extend of a burst
#    pauses whatever the budget.)
run recommend --policy rate-aware --rate 400MiB/s
cp "$out" "$scratch/default.txt"
cp "$err" "$scratch/default.err"
run recommend --policy rate-aware --rate 400MiB/s --max-pause-probability 0
checks=$((checks + 1))
[ "$status" -eq 3 ] && cmp -s "$out" "$scratch/default.txt" && cmp -s "$err" "$scratch/default.err" ||
  fail "1: the documented default changes the answer"
run recommend --policy rate-aware --rate 400MiB/s --max-pause-probability 0.01 --format csv
checks=$((checks + 1))
[ "$status" -eq 3 ] && grep -q '^provpol recommend: target not met: .* above --max-pause-probability 0.01' "$err" ||
  fail "1: a missed per-extend target is not said on stderr and in exit status 3"
checks=$((checks + 1))
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 2 { exit !($c["target_met"] == 0 && $c["max_pause_probability"] == 0.01) }' "$out" ||
  fail "1: the CSV does not carry the target and target_met 0"

# 2. No option is silently ignored.
expect_usage '--percent with --policy rate-aware' recommend --policy rate-aware --rate 400MiB/s --percent 30
expect_usage '--budget applies to --policy rate-aware' plan --budget 3
expect_usage '--budget-quantile applies to --policy rate-aware' plan --budget-quantile 0.9
expect_usage '--svg-metric applies to --format svg' plan --svg-metric pauses
expect_usage 'give --preset or --chunk with --percent, not both' plan --preset vdsm-2022 --chunk 1GiB --percent 20
expect_usage '--bytes is only used with --deadline' chunk --bytes 1MiB

# 3. Bounded work: refused before simulating, with the estimate; a rate no extend can keep up with is said so.
start=$(date +%s%N)
expect_usage 'would replay about [0-9]+ simulated events .* above --max-events' plan --preset vdsm-2022 --rate 1B/s
checks=$((checks + 1)); [ $(( ($(date +%s%N) - start) / 1000000 )) -lt 1000 ] || fail "3: --rate 1B/s took a second or more"
expect_usage 'above --max-events' plan --rate 10KiB/s
expect_ok plan --rate 10KiB/s --write 10MiB --runs 2 --max-events 100000000 --format csv
expect_usage 'thin provisioning cannot serve this rate' recommend --rate 1TiB/s

# 4. One spelling of preset names, kebab-case, and one wording of the lists.
expect_ok chunk --preset xapi-redo-log --format csv
expect_usage "expected one of .*xapi-redo-log.* \(did you mean xapi-redo-log\?\)" chunk --preset xapi_redo_log
for cmd in "extend --capacity 1GiB --sequence" "logsize --size 1GiB" "plan --rate 100MiB/s"; do
  # shellcheck disable=SC2086
  expect_usage "--preset: unknown value 'no-such': expected one of " $cmd --preset no-such
done
expect_usage "latency: unknown value 'no-such': expected one of " plan --latency no-such

# 5. Help everywhere, and hints for near misses.
expect_ok help extend
cp "$out" "$scratch/help.txt"
expect_ok extend --help
checks=$((checks + 1)); cmp -s "$out" "$scratch/help.txt" || fail "5: provpol help extend differs from extend --help"
expect_ok extend -h
# (--rate and --rates are two names for one thing: --rate is the name, --rates its alias.)
expect_usage "unknown option '--rat' \(did you mean --rate\?\)" plan --rat 100MiB/s

# 6. Machine formats are exact: no exponent notation in any CSV or JSON cell; sizes printed in text read back.
printf 'block_size,mb_per_s\n1024,7.9\n1024,8.5\n4096,44.0\n4096,33.6\n16384,52.2\n16384,42.3\n65536,43.3\n65536,51.3\n' >"$scratch/s.csv"
printf 'capacity,physical,allocation\n1048576,1048576,0\n' >"$scratch/in.csv"
for f in csv json; do
  for cmd in "plan --rate 1MiB/s,300MiB/s --runs 20 --write 2GiB" "recommend --rate 400MiB/s --runs 20" \
             "recommend --policy rate-aware --rate 1MiB/s --runs 20" "extend --input $scratch/in.csv" \
             "logsize --size 1GiB" "latency --profile vdsm-polling-2022,fixed:0.00001" \
             "chunk --samples $scratch/s.csv --deadline 1 --bytes 15MiB"; do
    # shellcheck disable=SC2086
    run $cmd --format $f
    checks=$((checks + 1))
    if [ "$status" -ne 0 ] || grep -Eq '[0-9]e[+-]?[0-9]' "$out"; then fail "6: provpol $cmd --format $f: exponent or failure"; fi
  done
done
expect_ok chunk --samples "$scratch/s.csv" --deadline 1 --bytes 15MiB
for field in requested_size fit_block_size fit_chunk_size chunk_size; do
  v=$(awk -v k="$field" '$1 == k { print $2 }' "$out")
  checks=$((checks + 1))
  # A size the CLI printed, given back to it as a size (extend parses --capacity with parse_size).
  if [ -z "$v" ] || ! "$PROVPOL" extend --capacity "$v" --physical "$v" --allocation 0 >/dev/null 2>&1; then
    fail "6: $field '$v' does not read back as a size"
  fi
done

# 7. extend: one set of columns in text, CSV and JSON, with the action in each.
expect_ok extend --input "$scratch/in.csv"
head -1 "$out" | tr -s ' ' '\n' | sed '/^$/d' | paste -sd, >"$scratch/text_columns"
expect_ok extend --input "$scratch/in.csv" --format csv
checks=$((checks + 1)); [ "$(head -1 "$out")" = "$(cat "$scratch/text_columns")" ] || fail "7: text and CSV columns differ"
expect_stdout '^capacity,.*,action$'
expect_ok calibrate --help  # calibrate's JSON is an array of objects like every other (tests/cli/calibrate_test.sh)

# 8. Inputs with no meaning: mke2fs refuses an empty device; a block size of 0 is an error.
expect_ok logsize --size 0 --preset e2fsprogs-1.47 --format csv
expect_stdout '^e2fsprogs-1.47,1024,0,,,,,0,0,data_too_small,'
expect_usage '--logical-block-size must be at least 512' chunk --logical-block-size 0

# 9. No contradictory rows: --unsupported is made but not supported; an LVM sequence starts from the pool's size
#    (4 GiB of 64 KiB blocks is 65536; 70% is 45875.2 blocks, so block 45876 passes it, at 70.00122%, as lvm2
#    truncates it to 1e-6 %; amount 20: ceil(1024 x 0.2) = 205 extents more, 5154799616 bytes).
expect_ok logsize --size 100MiB --preset xfsprogs-6.1 --unsupported --format csv
expect_stdout '^xfsprogs-6.1,4096,25600,4,6400,1368,0,0,1,fs_too_small,'
expect_usage '--sequence with an LVM preset needs --physical' extend --preset lvm-thin-autoextend --capacity 10GiB --sequence
expect_ok extend --preset lvm-thin-autoextend --capacity 10GiB --physical 4GiB --sequence --format csv
expect_stdout_line 2 '0,4294967296,45876,70.00122,20,5154799616,extend'
finish
