#!/usr/bin/env bash
# The LVM presets' inputs as an admin types them: a bare number where a percent is meant is refused with
# "did you mean 70%?", a percent of a pool is never read above itself, a size without a unit gets the unit lvm
# would read on every LVM size option of extend, plan and recommend, and a misspelled preset is the error.
. "$(dirname "$0")/lib.sh"

pool=(--preset lvm-thin-autoextend --pool-size 2t --vg-free 500g --rate 1GiB/s --runs 2)

# --- a bare number where a percent is meant ----------------------------------------------------------------------
expect_usage '^provpol plan: --pool-used 70 \(70B for bytes\): a number without a unit is bytes: did you mean 70% \(of --pool-size, as lvs shows it\)\?$' \
  plan "${pool[@]}" --pool-used 70
expect_usage 'did you mean 95% \(of --pool-size' recommend --preset lvm-thin-autoextend --pool-size 2t --rate 1GiB/s --pool-used 95
expect_usage '^provpol extend: --allocation 70 .*did you mean 70% \(of --physical, as lvs shows it\)\?$' \
  extend --preset lvm-thin-autoextend --physical 100GiB --allocation 70
expect_usage '^provpol extend: --metadata-used 60 .*did you mean 60% \(of --metadata-size, as lvs shows it\)\?$' \
  extend --preset lvm-thin-autoextend --physical 100GiB --allocation 1GiB --metadata-size 1GiB --metadata-used 60
expect_usage 'did you mean 99.5% \(of --physical' extend --preset lvm-thin-autoextend --physical 100GiB --allocation 99.5
# Above 100 it cannot be a percent: the unit hint instead. 0 is 0 whatever the unit; bytes are "B".
expect_usage 'did you mean 4096MiB \(4096m' extend --preset lvm-thin-autoextend --physical 100GiB --allocation 4096
expect_ok extend --preset lvm-thin-autoextend --physical 100GiB --allocation 0 --format csv
expect_stdout '^107374182400,0,0,'
expect_ok extend --preset lvm-thin-autoextend --physical 100GiB --allocation 70B --format csv
expect_stdout '^107374182400,70,1,'

# --- a percent is read as lvm2 reads the pool: the most whole blocks at or under it ------------------------------
# 70% of 100 GiB is 1146880 of 1638400 64 KiB blocks, exactly 70.000000%: not above threshold 70.
expect_ok extend --preset lvm-thin-autoextend --physical 100GiB --allocation 70% --format csv
expect_stdout '^107374182400,75161927680,1146880,1638400,70,70,20,0,0,107374182400,,,,,,0,none$'
# 70% of 2 TiB: no whole block count is 70.000000% (23488102 blocks read 69.999998%, 23488103 read 70.000001%
# and would cross threshold 70, as lvs's "70.00" does not).
expect_ok extend --preset lvm-thin-autoextend --physical 2TiB --allocation 70% --format csv
expect_stdout '^2199023255552,1539316252672,23488102,33554432,69.999998,70,20,0,0,2199023255552,,,,,,0,none$'
# The contract on a scan of pool sizes and percents: the blocks read from P% have usage at most P, and one block
# more is above P (usage read back through --used-blocks, as dmsetup status gives it).
usage_of() { # <size> <blocks>: usage_percent of that many used blocks
  run extend --preset lvm-thin-autoextend --physical "$1" --used-blocks "$2" --format csv
  tail -n 1 "$out" | cut -d, -f5
}
for size in 2TiB 100GiB 3076MiB 1004MiB 12GiB; do
  for pct in 1 33.3 50 66.666667 70 85.5 99.999999; do
    checks=$((checks + 1))
    run extend --preset lvm-thin-autoextend --physical "$size" --allocation "$pct%" --format csv
    blocks=$(tail -n 1 "$out" | cut -d, -f3)
    total=$(tail -n 1 "$out" | cut -d, -f4)
    [ "$status" -eq 0 ] && [ -n "$blocks" ] || { fail "$size at $pct%: exit $status"; continue; }
    at=$(usage_of "$size" "$blocks")
    awk -v u="$at" -v p="$pct" 'BEGIN { exit !(u + 0 <= p + 0) }' || fail "$size at $pct%: $blocks blocks read $at%"
    if [ "$blocks" -lt "$total" ]; then
      above=$(usage_of "$size" $((blocks + 1)))
      awk -v u="$above" -v p="$pct" 'BEGIN { exit !(u + 0 > p + 0) }' ||
        fail "$size at $pct%: $((blocks + 1)) blocks still read $above%, at most $pct%"
    fi
  done
done
# Meta% in dm-thin's 4 KiB metadata blocks: 60% of 1 GiB is 157286 of 262144 (59.999847%; 157287 is 60.000228%).
expect_ok extend --preset lvm-thin-autoextend --physical 100GiB --allocation 1GiB --metadata-size 1GiB --metadata-used 60% --format csv
expect_stdout ',1073741824,59.999847,'

# --- every LVM size option: a number without a unit is MiB to lvm ------------------------------------------------
expect_usage '^provpol extend: --physical 2048 \(2048B for bytes\): a number without a unit is bytes: did you mean 2048MiB \(2048m, as lvcreate -L 2048 reads it\)\?$' \
  extend --preset lvm-thin-autoextend --physical 2048 --allocation 70%
for opt in --vg-free --capacity --metadata-size; do
  expect_usage "^provpol extend: $opt 500 .*did you mean 500MiB \\(500m" \
    extend --preset lvm-thin-autoextend --physical 100GiB --allocation 1GiB "$opt" 500
done
expect_usage 'did you mean 4MiB \(4m' extend --preset lvm-thin-autoextend --physical 100GiB --allocation 1GiB --extent 4
expect_usage 'did you mean 64MiB \(64m' extend --preset lvm-thin-autoextend --physical 100GiB --allocation 1GiB --pool-chunk 64
expect_usage 'did you mean 1100MiB \(1100m' extend --preset lvm-snapshot-autoextend --physical 1GiB --used-blocks 80 --total-blocks 100 --cow-max 1100
expect_usage 'did you mean 2048MiB \(2048m' extend --preset lvm-vdo-autoextend --physical 4GiB --used-blocks 80 --total-blocks 100 --vdo-slab 2048
for opt in --vg-free --write --extent --pool-chunk; do
  expect_usage "^provpol plan: $opt 500 .*did you mean 500MiB \\(500m" plan --preset lvm-thin-autoextend --pool-size 2t --rate 1GiB/s "$opt" 500
  expect_usage "^provpol recommend: $opt 500 .*did you mean 500MiB \\(500m" recommend --preset lvm-thin-autoextend --pool-size 2t --rate 1GiB/s "$opt" 500
done
expect_usage '^provpol plan: --pool-size 2048 .*did you mean 2048MiB' plan --preset lvm-thin-autoextend --pool-size 2048

# --- a misspelled preset is the error, in every command ------------------------------------------------------------
for cmd in plan recommend extend; do
  given=(--pool-size 2t --rate 1GiB/s)
  [ "$cmd" = extend ] && given=(--physical 2t --allocation 70%)
  expect_usage "^provpol $cmd: --preset: unknown value 'lvm-thin-autoextnd'.*\\(did you mean lvm-thin-autoextend\\?\\)$" \
    "$cmd" --preset lvm-thin-autoextnd "${given[@]}"
  expect_usage "^provpol $cmd: --preset: unknown value 'lvm'.*\\(did you mean lvm-thin-autoextend, lvm-thin-default, lvm-vdo-autoextend or lvm-snapshot-autoextend\\?\\)$" \
    "$cmd" --preset lvm "${given[@]}"
done
# --- --config: lvm.conf and lvmconfig's output (lvm2 2.03.16's own, tests/data/lvm2_2.03.16) -----------------------
data=$(dirname "$0")/../data/lvm2_2.03.16
# expect_noted <args...>: exit 0, with the note of what --config read on stderr.
expect_noted() {
  checks=$((checks + 1))
  run "$@"
  [ "$status" -eq 0 ] && grep -q -- '--config: ' "$err" || fail "expected success with a --config note: provpol $*"
}
thin=(--preset lvm-thin-autoextend --physical 100GiB --allocation 85% --format csv)
# lvm.conf's 70/20: 85% at 70 -> amount ceil(8500 / 70) - 100 = 22%.
expect_noted extend "${thin[@]}" --config "$data/lvm.conf"
expect_stdout '^107374182400,91268055040,1392640,1638400,85,70,20,22,5632,'
checks=$((checks + 1))
grep -q 'thin_pool_autoextend_threshold = 70 from .*lvm.conf line 24, thin_pool_autoextend_percent = 20 from .*lvm.conf line 25' "$err" ||
  fail "--config names the file and line of each setting"
# A later file wins, key by key; monitoring = 0 is said.
printf 'activation {\n  thin_pool_autoextend_threshold = 80\n  monitoring = 0\n}\n' >"$scratch/later.conf"
expect_noted extend "${thin[@]}" --config "$data/lvm.conf" --config "$scratch/later.conf"
expect_stdout ',85,80,20,20,5120,'
checks=$((checks + 1))
grep -q 'monitoring = 0 from .*later.conf line 3: dmeventd does not monitor the volume, so lvm2 never extends it' "$err" ||
  fail "monitoring = 0 says that dmeventd never extends"
# lvmconfig's output, sectioned and bare (lvmconfig activation/KEY), and from stdin.
expect_noted extend "${thin[@]}" --config "$data/lvmconfig_activation.txt"
expect_stdout ',85,70,20,22,'
checks=$((checks + 1))
timeout 60 "$PROVPOL" extend "${thin[@]}" --config - <"$data/lvmconfig_keys.txt" >"$out" 2>"$err" &&
  grep -q ',85,70,20,22,' "$out" &&
  grep -q 'thin_pool_autoextend_threshold = 70 from stdin line 1 (a file of bare settings, as `lvmconfig activation/thin_pool_autoextend_threshold` prints them, read as that section.s; lvm2 itself would ignore a top-level setting)' "$err" ||
  fail "--config - reads lvmconfig's bare keys from stdin, and says it read them as lvmconfig's output"
# A bare key beside a section is what lvm2 makes of it: a top-level setting it ignores (the default applies).
printf 'thin_pool_autoextend_threshold = 70\nglobal {\n  units = "r"\n}\n' >"$scratch/mixed.conf"
expect_noted extend "${thin[@]}" --config "$scratch/mixed.conf" --lvm-version 2.03.16
expect_stdout ',85,100,20,0,'
# The VDO preset reads its own keys.
printf 'activation {\n  vdo_pool_autoextend_threshold = 75\n  vdo_pool_autoextend_percent = 40\n}\n' >"$scratch/vdo.conf"
expect_noted extend --preset lvm-vdo-autoextend --physical 4GiB --used-blocks 80 --total-blocks 100 --config "$scratch/vdo.conf" --format csv
expect_stdout ',80,75,40,40,'
expect_usage '^provpol extend: give --config or --threshold and --extend-percent, not both$' \
  extend "${thin[@]}" --config "$data/lvm.conf" --threshold 80
expect_usage '^provpol plan: give --config or --threshold and --extend-percent, not both$' \
  plan "${pool[@]}" --config "$data/lvm.conf" --extend-percent 30
expect_usage '^provpol extend: --config - and --input - both read stdin' \
  extend --preset lvm-thin-autoextend --input - --config -
printf 'activation {\n  thin_pool_autoextend_percent = "20"\n}\n' >"$scratch/string.conf"
# A string where lvm2 wants an integer: lvm2 warns ("has invalid type") and runs with its default, and so does provpol.
expect_noted extend "${thin[@]}" --config "$scratch/string.conf" --lvm-version 2.03.16
checks=$((checks + 1))
grep -q 'thin_pool_autoextend_percent = "20" from .*string.conf line 2 is a string, which lvm2 ignores' "$err" ||
  fail "a string setting is said to be ignored, lvm2's default taken"
# recommend's lvm.conf block reads back through --config: plan with it is plan with the settings it names.
burst=(--preset lvm-thin-autoextend --pool-size 10GiB --rate 1GiB/s --write 20GiB --runs 5)
expect_ok recommend "${burst[@]}" --seeds 1
cp "$out" "$scratch/recommended.conf"
percent=$(sed -n 's/^    thin_pool_autoextend_percent = //p' "$scratch/recommended.conf")
expect_ok plan "${burst[@]}" --threshold 70 --extend-percent "$percent"
cp "$out" "$scratch/plan_flags.txt"
checks=$((checks + 1))
timeout 60 "$PROVPOL" plan "${burst[@]}" --config - <"$scratch/recommended.conf" >"$out" 2>"$err" &&
  [ -n "$percent" ] && cmp -s "$out" "$scratch/plan_flags.txt" &&
  grep -q "thin_pool_autoextend_threshold = 70 from stdin line [0-9]*, thin_pool_autoextend_percent = $percent from stdin" "$err" ||
  fail "recommend | plan --config - is plan --threshold 70 --extend-percent $percent"
# recommend's "your settings" are the file's.
expect_noted recommend "${burst[@]}" --seeds 1 --config "$scratch/later.conf"
expect_stdout '^# your settings turn autoextend off \(monitoring = 0\)'
# --- --lvs: the pool as lvs reports it (lvm2 2.03.16's own report: a 168 MiB pool at Data% 59.52, Meta% 11.62) ----
report=$data/lvs_units_b.json
# Data% 59.52 of 2688 chunks is 1599 (59.486607%; 1600 is 59.523809%, above it); Meta% 11.62 of 1024 4 KiB blocks
# is 118 (11.523437%).
# Without --config the settings are the preset's, and stderr says so.
checks=$((checks + 1))
run extend --preset lvm-thin-autoextend --lvs "$report" --format csv
[ "$status" -eq 0 ] && grep -q -- '--lvs gives the pool, not lvm.conf' "$err" || fail "--lvs without --config names the preset's settings"
expect_stdout '^176160768,104792064,1599,2688,59.486607,70,20,0,0,176160768,4194304,11.523437,70,0,4194304,0,none$'
checks=$((checks + 1))
timeout 60 "$PROVPOL" extend --preset lvm-thin-autoextend --lvs - --lvs-pool vg/pool --threshold 50 --format csv <"$report" >"$out" 2>"$err" &&
  grep -q '^176160768,104792064,1599,2688,59.486607,50,20,20,9,213909504,' "$out" || fail "--lvs - reads stdin"
# plan and recommend: the report is --pool-size 168MiB --pool-used 59.52% --metadata-size 4MiB --metadata-used 11.62%
# --vg-free 336MiB --pool-chunk 64KiB --extent 4MiB, with lvm.conf's settings (the issue's command).
flags=(--pool-size 168MiB --pool-used 59.52% --metadata-size 4MiB --metadata-used 11.62% --vg-free 336MiB --pool-chunk
  64KiB --extent 4MiB)
for cmd in plan recommend; do
  expected_status=0
  [ "$cmd" = recommend ] && expected_status=3 # 20 GiB cannot fit in 504 MiB: recommend says what is missing
  checks=$((checks + 1))
  run "$cmd" --preset lvm-thin-autoextend "${flags[@]}" --threshold 70 --rate 1GB/s --write 20GiB --runs 5
  cp "$out" "$scratch/flags.txt"
  status_flags=$status
  run "$cmd" --preset lvm-thin-autoextend --lvs "$report" --config "$data/lvm.conf" --rate 1GB/s --write 20GiB --runs 5
  # The same, but for the pool's name, which only the report gives (the lines joined: the name moves the wrapping).
  join() { awk 'NR > 1 && /^(  |#   )[^ ]/ { sub(/^(  |#   )/, ""); printf " %s", $0; next } NR > 1 { print "" } { printf "%s", $0 } END { print "" }' "$1"; }
  join "$out" | sed -e 's# in vg/pool:#:#' >"$scratch/lvs.txt"
  join "$scratch/flags.txt" >"$scratch/flags_joined.txt"
  [ "$status" -eq "$expected_status" ] && [ "$status_flags" -eq "$expected_status" ] && [ -s "$out" ] &&
    cmp -s "$scratch/lvs.txt" "$scratch/flags_joined.txt" || fail "$cmd --lvs --config is $cmd with the report's values as flags"
done
expect_usage '^provpol plan: give --lvs or --pool-size, not both: the report gives it$' \
  plan --preset lvm-thin-autoextend --lvs "$report" --pool-size 1GiB --rate 1GB/s
expect_usage '^provpol extend: give --lvs or --allocation, not both' \
  extend --preset lvm-thin-autoextend --lvs "$report" --allocation 1GiB
expect_usage "no thin pool vg/nope in the report \\(thin pools: vg/pool\\)" \
  recommend --preset lvm-thin-autoextend --lvs "$report" --lvs-pool vg/nope --rate 1GB/s
# lvs as admins run it (lvm2 2.03.16's own reports, tests/data/capture_lvm_reports.sh). Its default columns find the
# pool by lv_attr (no segtype), and every missing field is named at once with the command that adds them;
# lvs_plus.json is that command's output, which reads as the -o FIELDS report of the same pool does.
command_plus='run lvs --reportformat json --units b --nosuffix -o \+lv_metadata_size,chunk_size,vg_free,vg_extent_size'
expect_usage "^provpol plan: --lvs: '.*lvs_default[.a-z]*': the report has no lv_metadata_size, chunk_size, vg_free and vg_extent_size fields, and its sizes are lvs's rounded units \(lv_size is '168.00m'\); $command_plus vg/pool\$" \
  plan --preset lvm-thin-autoextend --lvs "$data/lvs_default.json" --rate 1GB/s
expect_usage "lvs_inactive[.a-z]*': the report has no lv_metadata_size, chunk_size, vg_free and vg_extent_size fields, and its sizes are lvs's rounded units \(lv_size is '168.00m'\); $command_plus vg/pool\$" \
  extend --preset lvm-thin-autoextend --lvs "$data/lvs_inactive.json"
for cmd in plan recommend extend; do
  args=(--rate 1GB/s --write 20GiB --runs 5)
  [ "$cmd" = extend ] && args=(--format csv)
  checks=$((checks + 1))
  run "$cmd" --preset lvm-thin-autoextend --lvs "$report" --config "$data/lvm.conf" "${args[@]}"
  cp "$out" "$scratch/units_b.txt"
  run "$cmd" --preset lvm-thin-autoextend --lvs "$data/lvs_plus.json" --config "$data/lvm.conf" "${args[@]}"
  [ -s "$out" ] && cmp -s "$out" "$scratch/units_b.txt" || fail "$cmd --lvs lvs_plus.json is $cmd --lvs lvs_units_b.json"
done
# An inactive pool (lvchange -an: lv_attr twi---t---, Data% and Meta% empty) is said to be inactive; with its usage
# given (--pool-used, --metadata-used; extend's --allocation) it is planned with it, and stderr says whose usage it
# is. The same pool active at 59.52% and 11.62% gives the same answer.
inactive=$data/lvs_plus_inactive.json
expect_usage '^provpol plan: --lvs: vg/pool is inactive \(lv_attr twi---t---, Data% and Meta% empty\): lvs reports a pool.s usage only while it is active; activate it \(lvchange -ay vg/pool\) and run lvs again, or give its usage with --pool-used \(and --metadata-used\)$' \
  plan --preset lvm-thin-autoextend --lvs "$inactive" --rate 1GB/s
expect_usage '^provpol extend: --lvs: vg/pool is inactive .* give its usage with --allocation \(and --metadata-used\)$' \
  extend --preset lvm-thin-autoextend --lvs "$inactive"
expect_usage '^provpol plan: give --lvs or --pool-used, not both: the report gives it \(vg/pool is active\)$' \
  plan --preset lvm-thin-autoextend --lvs "$report" --pool-used 50% --rate 1GB/s
for cmd in plan recommend extend; do
  args=(--rate 1GB/s --write 20GiB --runs 5)
  used=(--pool-used 59.52% --metadata-used 11.62%)
  [ "$cmd" = extend ] && args=(--format csv) && used=(--allocation 59.52% --metadata-used 11.62%)
  checks=$((checks + 1))
  run "$cmd" --preset lvm-thin-autoextend --lvs "$report" --config "$data/lvm.conf" "${args[@]}"
  cp "$out" "$scratch/active.txt"
  run "$cmd" --preset lvm-thin-autoextend --lvs "$inactive" --config "$data/lvm.conf" "${args[@]}" "${used[@]}"
  [ -s "$out" ] && cmp -s "$out" "$scratch/active.txt" &&
    grep -q "^provpol $cmd: --lvs: vg/pool is inactive (lv_attr twi---t---, Data% and Meta% empty): its usage is ${used[0]}'s and --metadata-used's, the usage it will have once active\$" "$err" ||
    fail "$cmd --lvs INACTIVE ${used[*]} is $cmd --lvs ACTIVE at that usage, and says so"
done
checks=$((checks + 1))
run plan --preset lvm-thin-autoextend --lvs "$inactive" --pool-used 10% --rate 1GB/s --write 1GiB --runs 1
[ "$status" -eq 0 ] && grep -q "its usage is --pool-used's, its metadata is not simulated (no --metadata-used)" "$err" ||
  fail "plan --lvs INACTIVE --pool-used without --metadata-used says the metadata is not simulated"
# --pool-size as lvcreate -L reads it: lvm2 2.03.16's lvcreate made an LV of each -L size on a VG of 4 MiB extents
# (lvcreate_sizes.txt: the -L text, the LV's size in bytes as lvs reported it, and lvcreate's words when it rounded
# up). provpol's pool is that size (plan's pool_end_max with autoextend off), and stderr says so exactly when
# lvcreate said it rounded.
while read -r size lvs_bytes said; do
  checks=$((checks + 1))
  run plan --preset lvm-thin-default --pool-size "$size" --rate 1GiB/s --write 1MiB --runs 1 --format csv
  got=$(sed -n 2p "$out" | cut -d, -f13)
  [ "$status" -eq 0 ] && [ "$got" = "$lvs_bytes" ] || fail "--pool-size $size: provpol's pool is $got bytes, lvcreate's $lvs_bytes"
  if [ -n "$said" ]; then
    grep -q "^provpol plan: --pool-size $size is .*; lvcreate rounds it up to whole extents (4MiB): the pool is .* ($lvs_bytes bytes;" "$err" ||
      fail "--pool-size $size: stderr does not say lvcreate rounds it up to $lvs_bytes bytes"
  else
    [ ! -s "$err" ] || fail "--pool-size $size: lvcreate does not round it, but stderr says something"
  fi
done <"$data/lvcreate_sizes.txt"
expect_usage '^provpol plan: --pool-size 1000b: not a multiple of 512 bytes \(lvcreate refuses it too: try 512b or 1024b\)$' \
  plan --preset lvm-thin-autoextend --pool-size 1000b --rate 1GB/s
expect_usage '^provpol plan: --pool-size 20e: 16EiB or more \(lvm2 refuses it too\)$' \
  plan --preset lvm-thin-autoextend --pool-size 20e --rate 1GB/s
expect_usage "^provpol plan: --pool-size 17t: more than lvm2's 4294967295 extents of 4KiB \(lvcreate refuses it too\)$" \
  plan --preset lvm-thin-autoextend --pool-size 17t --extent 4KiB --rate 1GB/s
expect_usage '^provpol extend: --lvs reads a thin pool' extend --preset lvm-vdo-autoextend --lvs "$report"
expect_usage '^provpol plan: --lvs - and --config - both read stdin' \
  plan --preset lvm-thin-autoextend --lvs - --config - --rate 1GB/s
expect_usage '^provpol plan: --lvs-pool names a pool of the --lvs report, which is not given' \
  plan --preset lvm-thin-autoextend --pool-size 1GiB --lvs-pool vg/pool --rate 1GB/s
# --- plan --preset LIST: one plan per preset, as the README says --preset takes a list in plan ----------------------
one=(--pool-size 10GiB --rate 1GiB/s --write 20GiB --runs 3 --format csv)
expect_ok plan --preset lvm-thin-autoextend "${one[@]}"
tail -n 1 "$out" | sed 's/^/lvm-thin-autoextend,/' >"$scratch/each.csv"
expect_ok plan --preset lvm-thin-default "${one[@]}"
tail -n 1 "$out" | sed 's/^/lvm-thin-default,/' >>"$scratch/each.csv"
expect_ok plan --preset lvm-thin-autoextend,lvm-thin-default "${one[@]}"
expect_stdout_line 1 "preset,$(head -n 1 "$out" | cut -d, -f2-)"
checks=$((checks + 1))
[ "$(head -n 1 "$out" | cut -d, -f1)" = preset ] && tail -n +2 "$out" | cmp -s - "$scratch/each.csv" ||
  fail "plan --preset A,B is plan --preset A and plan --preset B, each row under its preset"
expect_usage '^provpol plan: --preset: a VDSM preset is not an LVM configuration' \
  plan --preset lvm-thin-autoextend,vdsm-2022 --pool-size 10GiB --rate 1GiB/s
# --duration: a burst as a rate for a time, in the LVM commands too: the answer is --write's of rate x TIME.
lvs_data=$(dirname "$0")/../data/lvm2_2.03.16
expect_ok plan --preset lvm-thin-autoextend --pool-size 1GiB --rate 1GB/s,100MB/s --duration 20s --format csv
cp "$out" "$scratch/duration.csv"
expect_ok plan --preset lvm-thin-autoextend --pool-size 1GiB --rate 1GB/s --write 20000000000B --format csv
checks=$((checks + 1))
[ "$(sed -n 2p "$scratch/duration.csv")" = "$(sed -n 2p "$out")" ] || fail "plan --duration 20s at 1GB/s is not --write 20GB"
expect_ok plan --preset lvm-thin-autoextend --pool-size 1GiB --rate 100MB/s --write 2000000000B --format csv
checks=$((checks + 1))
[ "$(sed -n 3p "$scratch/duration.csv")" = "$(sed -n 2p "$out")" ] || fail "plan --duration 20s at 100MB/s is not --write 2GB"
run recommend --preset lvm-thin-autoextend --pool-size 1GiB --rate 1GB/s --duration 20s --format csv
cp "$out" "$scratch/rec_duration.csv"
run recommend --preset lvm-thin-autoextend --pool-size 1GiB --rate 1GB/s --write 20000000000B --format csv
checks=$((checks + 1))
cmp -s "$out" "$scratch/rec_duration.csv" || fail "recommend --duration 20s at 1GB/s is not --write 20GB"
expect_usage "give --write or --duration, not both" plan --preset lvm-thin-autoextend --pool-size 1GiB --write 1GiB --duration 1s
expect_usage "^provpol plan: --duration " plan --preset lvm-thin-autoextend --pool-size 1GiB --duration 0s
expect_usage "^provpol plan: --duration 0.5s at 1/s writes 0 bytes per writer: the writers. total is 1B-1PiB$" \
  plan --preset lvm-thin-autoextend --pool-size 1GiB --rate 1B/s --duration 0.5s

# The rate in prose as the user typed it: "at 1GB/s", not "at 976562.5KiB/s".
run plan --preset lvm-thin-autoextend --pool-size 1GiB --vg-free 1GiB --rate 1GB/s,100MB/s --duration 20s
expect_stdout '^at 1GB/s: the VG ran out'
expect_stdout '^at 100MB/s: the VG ran out'
run recommend --preset lvm-thin-autoextend --pool-size 1GiB --rate 1GB/s --write 20GiB
checks=$((checks + 1)); grep -q 'keep up at 1GB/s into a 1GiB pool' "$err" "$out" || fail "recommend does not say the rate as typed"

# --- recommend for every pool of a report: one setting for all (lvm.conf is global), each pool's outcome ----------
pools_json() { # two pools of vg (one fuller than the other), one of vg2
  local row='{"lv_name":"%s", "vg_name":"%s", "segtype":"thin-pool", "lv_size":"%s", "data_percent":"%s", "lv_metadata_size":"0", "metadata_percent":"0.00", "chunk_size":"65536", "vg_free":"%s", "vg_extent_size":"4194304"}'
  printf '{"report": [{"lv": [%s, %s, %s]}]}\n' "$(printf "$row" a vg 10737418240 50.00 107374182400)" \
    "$(printf "$row" b vg 4294967296 70.00 107374182400)" "$(printf "$row" c vg2 21474836480 10.00 53687091200)"
}
pools_json >"$scratch/pools.json"
many=(--preset lvm-thin-autoextend --rate 500MiB/s --write 20GiB --runs 5 --seeds 1 --threshold 70)
expect_ok recommend "${many[@]}" --lvs "$scratch/pools.json" --lvs-pool vg --format csv
expect_stdout '^vg/a,[0-9]+,[0-9]+,1,'
expect_stdout '^vg/b,[0-9]+,[0-9]+,1,'
checks=$((checks + 1))
[ "$(wc -l <"$out")" = 3 ] || fail "recommend --lvs-pool vg: a row per pool of vg"
th=$(sed -n 2p "$out" | cut -d, -f2) pct=$(sed -n 2p "$out" | cut -d, -f3)
# The setting meets for each pool alone in plan, at its threshold and the margin's far corner.
for p in vg/a vg/b; do
  for setting in "$th $pct" "$((th - 5)) $((pct + 5))"; do
    set -- $setting
    checks=$((checks + 1))
    run plan --preset lvm-thin-autoextend --lvs "$scratch/pools.json" --lvs-pool $p --rate 500MiB/s --write 20GiB --runs 5 \
      --threshold "$1" --extend-percent "$2" --format csv
    awk -F, 'NR == 2 { exit !($8 == 0 && $10 == 0 && $4 <= 20) }' "$out" || fail "$p misses at threshold $1, percent $2"
  done
done
expect_ok recommend "${many[@]}" --lvs "$scratch/pools.json"
expect_stdout '^# 500MiB/s into each of 3 pools: '
expect_stdout '^# at it, vg/a: writes queue at most 0 s'
expect_stdout '^# at it, vg2/c: '
expect_stdout "^# vg's 2 pools took the burst one at a time; at once they would take "
expect_stdout '^# vg/b: Data% 70.00% taken as up to 70.00'
# plan answers for one pool: several are refused with their names.
expect_usage '2 thin pools in the report \(vg/a, vg/b\): name one with --lvs-pool VG/POOL' \
  plan --preset lvm-thin-autoextend --lvs "$scratch/pools.json" --lvs-pool vg --rate 1GB/s
finish
