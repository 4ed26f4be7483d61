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
  grep -q ',85,70,20,22,' "$out" || fail "--config - reads lvmconfig's bare keys from stdin"
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
expect_usage 'string.conf:2: activation/thin_pool_autoextend_percent is a string' extend "${thin[@]}" --config "$scratch/string.conf"
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
expect_stdout '^# your settings, threshold 80 with percent 20'
# --- --lvs: the pool as lvs reports it (lvm2 2.03.16's own report: a 168 MiB pool at Data% 59.52, Meta% 11.62) ----
report=$data/lvs_units_b.json
# Data% 59.52 of 2688 chunks is 1599 (59.486607%; 1600 is 59.523809%, above it); Meta% 11.62 of 1024 4 KiB blocks
# is 118 (11.523437%).
expect_ok extend --preset lvm-thin-autoextend --lvs "$report" --format csv
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
expect_usage 'no segtype field; run lvs --reportformat json --units b --nosuffix -o lv_name,vg_name,segtype,' \
  plan --preset lvm-thin-autoextend --lvs "$data/lvs_default.json" --rate 1GB/s
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
