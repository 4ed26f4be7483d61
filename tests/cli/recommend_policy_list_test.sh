#!/usr/bin/env bash
# recommend --policy LIST: one answer per policy, joined as --rate and --latency lists are (per_value.hpp): text
# blocks under "# --policy P", one CSV header (the union of the static and rate-aware columns) with a leading
# policy column, one JSON array. Each joined row is that policy's own answer, cell for cell.
# Usage: recommend_policy_list_test.sh path/to/provpol
. "$(dirname "$0")/lib.sh"
common=(--rate 400MiB/s --runs 20)

# cell FILE ROW COLUMN: a cell of a CSV file by column name (no quoted commas in recommend's answers).
cell() { awk -F, -v r="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i } NR == r + 1 { print (k ? $k : "MISSING") }' "$1"; }

run recommend "${common[@]}" --policy static --format csv; cp "$out" "$scratch/static.csv"
run recommend "${common[@]}" --policy rate-aware --format csv; cp "$out" "$scratch/aware.csv"
expect_missed recommend "${common[@]}" --policy static,rate-aware --format csv   # rate-aware misses at p = 0
cp "$out" "$scratch/both.csv"
checks=$((checks + 1)); [ "$(wc -l <"$scratch/both.csv")" -eq 3 ] || fail "two policies: not one header and two rows"
checks=$((checks + 1)); [ "$(cell "$scratch/both.csv" 1 policy)" = static ] || fail "row 1's policy is not static"
checks=$((checks + 1)); [ "$(cell "$scratch/both.csv" 2 policy)" = rate-aware/vdsm-legacy ] || fail "row 2's policy is not rate-aware's own"
for c in $(head -1 "$scratch/static.csv" | tr , ' '); do
  checks=$((checks + 1))
  [ "$(cell "$scratch/both.csv" 1 "$c")" = "$(cell "$scratch/static.csv" 1 "$c")" ] || fail "static row, column $c differs from --policy static"
done
for c in $(head -1 "$scratch/aware.csv" | tr , ' '); do
  checks=$((checks + 1))
  [ "$(cell "$scratch/both.csv" 2 "$c")" = "$(cell "$scratch/aware.csv" 1 "$c")" ] || fail "rate-aware row, column $c differs from --policy rate-aware"
done
checks=$((checks + 1)); [ -z "$(cell "$scratch/both.csv" 2 volume_utilization_chunk_mb)" ] || fail "rate-aware row has a static column's value"

# The same with the option repeated, and in text and JSON.
expect_missed recommend "${common[@]}" --policy static --policy rate-aware --format csv
checks=$((checks + 1)); cmp -s "$out" "$scratch/both.csv" || fail "--policy A --policy B differs from --policy A,B"
expect_missed recommend "${common[@]}" --policy static,rate-aware
expect_stdout_line 1 "# --policy static"
expect_stdout "^# --policy rate-aware$"
expect_stdout "^volume_utilization_chunk_mb = [0-9]+$"
expect_stdout "^# volume_utilization_chunk_mb = 1024$"
expect_missed recommend "${common[@]}" --policy static,rate-aware --format json
checks=$((checks + 1)); [ "$(grep -c '^  {' "$out")" -eq 2 ] && grep -q '^  {"policy": "static", ' "$out" &&
  grep -q '"policy": "rate-aware/vdsm-legacy"' "$out" || fail "json: not two objects with their policy"
# One policy alone is as before (no policy column); a bad one in a list is one line, exit 2, nothing on stdout.
expect_ok recommend "${common[@]}" --policy static --format csv
checks=$((checks + 1)); cmp -s "$out" "$scratch/static.csv" || fail "--policy static alone changed"
expect_usage "^provpol recommend: --policy: unknown value 'bogus': expected static or rate-aware$" recommend "${common[@]}" --policy static,bogus
finish
