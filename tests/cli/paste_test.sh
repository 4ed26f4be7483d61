#!/usr/bin/env bash
# The operator's CLI, second pass: one block per numbered finding, each with the behaviour it now has.
# The first: every configuration provpol prints can be piped or pasted into the provpol command that uses it.
# Usage: paste_test.sh path/to/provpol
. "$(dirname "$0")/lib.sh"

col() {  # col FILE NAME [ROW]: the field NAME of data row ROW (default 1) of a CSV
  awk -F, -v n="$2" -v r="${3:-1}" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } NR == r + 1 { print $c[n] }' "$1"
}

# 1a. recommend --format csv | plan --config - and | capacity --config -: the configuration comes back unchanged.
expect_ok recommend --rate 400MiB/s --runs 20 --format csv
cp "$out" "$scratch/rec.csv"
mb=$(col "$scratch/rec.csv" volume_utilization_chunk_mb)
pct=$(col "$scratch/rec.csv" volume_utilization_percent)
checks=$((checks + 1))
[ -n "$mb" ] && [ -n "$pct" ] || fail "recommend --format csv has no volume_utilization_chunk_mb/percent"
checks=$((checks + 1))
timeout 60 "$PROVPOL" plan --config - --rate 400MiB/s --runs 20 --format csv <"$scratch/rec.csv" >"$scratch/plan.csv" 2>"$scratch/err" &&
  [ "$(col "$scratch/plan.csv" chunk_mb)" = "$mb" ] && [ "$(col "$scratch/plan.csv" percent)" = "$pct" ] &&
  [ "$(col "$scratch/plan.csv" policy)" = "chunk-${mb}MiB-${pct}pct" ] ||
  { out=$scratch/plan.csv err=$scratch/err; fail "1a: recommend --format csv | plan --config - does not give ${mb}/${pct} back"; }
checks=$((checks + 1))
timeout 60 "$PROVPOL" capacity --config - --rate 400MiB/s --max-pauses-per-run 0 --hosts 1 --drives-per-host 2 \
  --write 5GiB --format csv <"$scratch/rec.csv" >"$scratch/cap.csv" 2>"$scratch/err" &&
  [ "$(col "$scratch/cap.csv" policy)" = "chunk-${mb}MiB-${pct}pct" ] ||
  { out=$scratch/cap.csv err=$scratch/err; fail "1a: recommend --format csv | capacity --config - does not give ${mb}/${pct} back"; }
# The same through the text answer ([irs] block) and JSON, and into extend: the decision is --chunk/--percent's.
expect_ok recommend --rate 400MiB/s --runs 20
cp "$out" "$scratch/rec.txt"
expect_ok recommend --rate 400MiB/s --runs 20 --format json
cp "$out" "$scratch/rec.json"
expect_ok extend --capacity 100GiB --physical 4GiB --allocation 3GiB --chunk "${mb}MiB" --percent "$pct"
cp "$out" "$scratch/ext.want"
for form in txt json csv; do
  expect_ok plan --config "$scratch/rec.$form" --rate 400MiB/s --runs 5 --format csv
  expect_stdout ",chunk-${mb}MiB-${pct}pct,${mb},${pct},"
  expect_ok extend --config "$scratch/rec.$form" --capacity 100GiB --physical 4GiB --allocation 3GiB
  checks=$((checks + 1))
  cmp -s "$out" "$scratch/ext.want" || fail "1a: extend --config rec.$form decides otherwise than --chunk ${mb}MiB --percent $pct"
done
# A vdsm.conf.d file as VDSM reads it: comments, other keys, other sections.
printf '# local\n[irs]\n; old\nvolume_utilization_percent_x = 3\nvolume_utilization_chunk_mb = 2048\nvolume_utilization_percent = 30\n[vars]\nssl = true\n' >"$scratch/50-local.conf"
run plan --config "$scratch/50-local.conf" --rate 400MiB/s --runs 5 --format csv
expect_stdout ',chunk-2048MiB-30pct,2048,30,'
# A key VDSM does not have is named on stderr, with the one it was likely meant to be.
checks=$((checks + 1))
[ "$status" -eq 0 ] && grep -q "50-local.conf:4: \[irs\] volume_utilization_percent_x is not a key VDSM 4.50 has in \[irs\] (did you mean volume_utilization_percent?)" "$err" ||
  fail "plan --config names a key VDSM does not have"
# A drop-in that sets one key: the other is VDSM's default, as configparser over VDSM's defaults gives it
# (tests/cli/vdsm_conf_test.sh checks the layering against configparser itself).
printf '[irs]\nvolume_utilization_chunk_mb = 2048\n' >"$scratch/half.conf"
# stderr says so, as extend's --config does.
checks=$((checks + 1))
run plan --config "$scratch/half.conf" --rate 400MiB/s --runs 5 --format csv
[ "$status" -eq 0 ] && grep -Eq "^provpol plan: --config: volume_utilization_chunk_mb = 2048 from .*half.conf line 2, volume_utilization_percent = 20 from VDSM 4.50's default$" "$err" ||
  fail "plan --config of one key does not say where each value came from"
expect_stdout ',chunk-2048MiB-20pct,2048,20,'
# A file without a [section] is refused as configparser refuses it (vdsmd would not start); an empty file is VDSM's
# defaults, as vdsmd reads it.
printf 'volume_utilization_chunk_mb = 2048\n' >"$scratch/bare.conf"
expect_usage "^provpol plan: --config: .*bare.conf:1: 'volume_utilization_chunk_mb = 2048' before any \[section\] \(MissingSectionHeaderError\)" \
  plan --config "$scratch/bare.conf"
run plan --config /dev/null --rate 400MiB/s --runs 5 --format csv
checks=$((checks + 1))
[ "$status" -eq 0 ] && grep -q ",chunk-2560MiB-20pct," "$out" && grep -q "volume_utilization_percent = 20 from VDSM 4.50's default" "$err" ||
  fail "plan --config of an empty file plans VDSM's defaults and says so"
printf '[irs]\nvolume_utilization_chunk_mb = 2048\nvolume_utilization_percent = 120\n' >"$scratch/bad.conf"
expect_usage 'bad.conf:3: volume_utilization_percent must be in \[0, 99\], got 120' plan --config "$scratch/bad.conf"
# Two rows (recommend --max-pauses-per-run): plan compares both, extend asks for one.
expect_ok recommend --rate 400MiB/s --max-pauses-per-run 1 --write 5GiB --runs 20 --format csv
cp "$out" "$scratch/two.csv"
expect_ok plan --config "$scratch/two.csv" --rate 400MiB/s --runs 5 --format csv
checks=$((checks + 1))
[ "$(wc -l <"$out")" -eq 3 ] || fail "1a: plan --config with two configurations does not plan both"
expect_usage '^provpol extend: --config: 2 configurations in the file; extend decides with one' \
  extend --config "$scratch/two.csv" --capacity 100GiB --physical 4GiB --allocation 3GiB
expect_usage 'give --config or --chunk and --percent, not both' \
  extend --config "$scratch/rec.txt" --chunk 1GiB --percent 20 --capacity 100GiB --physical 4GiB --allocation 3GiB
expect_usage '^provpol extend: --config: .*rec.txt:[0-9]+: .*\(a VDSM configuration\? With an LVM preset --config reads lvm.conf\)$' \
  extend --preset lvm-thin-autoextend --config "$scratch/rec.txt" --physical 1GiB --allocation 1GiB

# 1b. A chunk without a unit, as recommend prints volume_utilization_chunk_mb: a hint, not 6272 bytes.
expect_usage '^provpol plan: --chunk 6272: a number without a unit is bytes, under the least 1MiB; did you mean 6272MiB\?$' \
  plan --chunk 6272 --percent 20
expect_usage 'did you mean 6272MiB\?$' extend --chunk 6272 --capacity 100GiB --physical 4GiB --allocation 3GiB
expect_usage 'did you mean 1024MiB\?$' recommend --policy rate-aware --rate 400MiB/s --chunk 1024 --percent 50

# 1c. recommend --policy rate-aware: stock VDSM has no rate-aware agent, so no [irs] block to paste; the floor is
#     commented out, with what runs it and the stock VDSM command. A missed target exits 3.
expect_missed recommend --policy rate-aware --rate 400MiB/s --runs 20
expect_stdout '^# stock VDSM cannot run this: it needs provpol.s rate-aware agent'
expect_stdout '^# for stock VDSM: provpol recommend --rate 400MiB/s$'
expect_stdout '^# volume_utilization_chunk_mb = 1024$'
expect_stdout 'the longest the latency model gives'
checks=$((checks + 1))
! grep -Eq '^(\[irs\]|volume_utilization)' "$out" || fail "1c: rate-aware prints a block that stock VDSM runs as vdsm-legacy"
checks=$((checks + 1))
! grep -q 'the 1 quantile' "$out" || fail "1c: the garbled 'the 1 quantile'"
run plan --config "$scratch/rec.txt" --rate 400MiB/s --runs 5
checks=$((checks + 1))
[ "$status" -eq 0 ] || fail "1c: plan --config of a static answer"
run recommend --policy rate-aware --rate 400MiB/s --runs 20
cp "$out" "$scratch/ra.txt"
# Its floor is commented out: pasted into vdsm.conf.d, VDSM runs its own defaults, and plan says so.
run plan --config "$scratch/ra.txt" --rate 400MiB/s --runs 5 --format csv
checks=$((checks + 1))
[ "$status" -eq 0 ] && grep -q ",chunk-2560MiB-20pct," "$out" && grep -q "volume_utilization_chunk_mb = 2560 from VDSM 4.50's default" "$err" ||
  fail "1c: plan --config of a rate-aware answer plans what VDSM would run: its defaults"

# 1d. A target not met is exit status 3, in every format, documented in the man page.
expect_missed recommend --policy rate-aware --rate 400MiB/s --runs 20 --max-pause-probability 0.01 --format csv
expect_stdout ',0,,,$'
expect_ok recommend --rate 400MiB/s --runs 20 --format json
expect_missed recommend --preset lvm-thin-autoextend --rate 16GiB/s --pool-size 10GiB --write 200GiB --runs 10
expect_stdout '^LVM cannot keep up'
expect_missed recommend --preset lvm-thin-autoextend --rate 16GiB/s --pool-size 10GiB --write 200GiB --runs 10 --format json
expect_ok __man
expect_stdout '^\.B 3$'
expect_stdout 'misses the target asked for'

# 2. One grammar: --rate a list in plan, recommend and capacity (--rates its alias), --latency a list in plan,
#    recommend and capacity, and a list parser that keeps a file spec's name whole.
expect_ok recommend --rate 400MiB/s,800MiB/s --runs 5 --format csv
checks=$((checks + 1))
[ "$(wc -l <"$out")" -eq 3 ] && [ "$(col "$out" rate_mib_s 1)" = 400 ] && [ "$(col "$out" rate_mib_s 2)" = 800 ] ||
  fail "2: recommend --rate 400MiB/s,800MiB/s is not one table of two rows"
cp "$out" "$scratch/two_rates.csv"
expect_ok recommend --rates 400MiB/s --rates 800MiB/s --runs 5 --format csv
checks=$((checks + 1)); cmp -s "$out" "$scratch/two_rates.csv" || fail "2: recommend --rates (repeated) is not --rate a,b"
expect_ok recommend --rate 400MiB/s --runs 5 --format csv
checks=$((checks + 1)); [ "$(sed -n 2p "$out")" = "$(sed -n 2p "$scratch/two_rates.csv")" ] || fail "2: a list's row differs from the single answer"
expect_ok recommend --rate 400MiB/s,800MiB/s --runs 5 --format json
expect_stdout '^\[$'
checks=$((checks + 1)); [ "$(grep -c '"rate_mib_s"' "$out")" -eq 2 ] || fail "2: recommend --format json with two rates"
expect_ok recommend --rate 400MiB/s,800MiB/s --runs 5
# One file VDSM loads: one [irs] section (configparser refuses a second), the larger answer's; the other commented.
checks=$((checks + 1)); [ "$(grep -c '^\[irs\]$' "$out")" -eq 1 ] && [ "$(grep -c '^# \[irs\]$' "$out")" -eq 1 ] ||
  fail "2: recommend text with two rates: one [irs] section, the other commented out"
cp "$out" "$scratch/two_rates.txt"
expect_ok plan --config "$scratch/two_rates.txt" --rate 400MiB/s --runs 5 --format csv
checks=$((checks + 1)); [ "$(wc -l <"$out")" -eq 2 ] || fail "2: plan --config of the two rates' text plans the one VDSM loads"
expect_missed recommend --preset lvm-thin-autoextend --rate 100MiB/s,16GiB/s --pool-size 10GiB --write 200GiB --runs 5 --format csv
expect_ok recommend --rate 400MiB/s --latency vdsm-polling-2022,vdsm-immediate --runs 5 --format csv
checks=$((checks + 1))
[ "$(col "$out" latency 1)" = vdsm-polling-2022 ] && [ "$(col "$out" latency 2)" = vdsm-immediate ] ||
  fail "2: recommend --latency LIST has no latency column"
expect_ok plan --rate 400MiB/s --latency vdsm-polling-2022,fixed:3 --runs 5 --format csv
checks=$((checks + 1))
[ "$(col "$out" latency 2)" = fixed:3 ] && [ "$(col "$out" pauses 2)" = 0 ] || fail "2: plan --latency LIST"
expect_usage '^provpol plan: --latency: a list answers once per value and stdin can be read once: give --config a file' \
  plan --config - --latency vdsm-polling-2022,fixed:3
expect_usage '^provpol plan: --latency: --format svg plots one value' plan --latency vdsm-polling-2022,fixed:3 --format svg
expect_ok capacity --rate 400MiB/s,800MiB/s --max-pauses-per-run 1 --hosts 1 --drives-per-host 2 --write 5GiB --format csv
checks=$((checks + 1))
[ "$(col "$out" rate_mib_s 2)" = 800 ] || fail "2: capacity --rate LIST"
# vdsm-log:FILE, then another spec: two specs, the file name ending at the comma; a comma in a file name is kept.
awk 'BEGIN { srand(3); for (i = 0; i < 200; i++) { w = sprintf("%.2f", 2 * rand()); e = sprintf("%.2f", 0.6 + 0.1 * rand());
  r = sprintf("%.2f", 0.2 + 0.1 * rand()); t = sprintf("%.2f", w + e + r + 0.005)
  printf "2022-03-23 03:57:59,502+0200 INFO  (mailbox-hsm/3) [virt.vm] (vmId=%c1%c) Extend volume 7d85-%d completed <Clock(total=%s, wait=%s, extend-volume=%s, refresh-volume=%s)> (thinp:567)\n", 39, 39, i, t, w, e, r } }' >"$scratch/a.log"
cp "$scratch/a.log" "$scratch/b,c.log"
expect_ok latency --profile "vdsm-log:$scratch/a.log,vdsm-polling-2022" --format csv
checks=$((checks + 1))
[ "$(wc -l <"$out")" -eq 3 ] && [ "$(col "$out" profile 2)" = vdsm-polling-2022 ] || fail "2: --profile vdsm-log:a.log,vdsm-polling-2022 is not two profiles"
expect_ok latency --profile "vdsm-log:$scratch/b,c.log,fixed:2" --format csv
checks=$((checks + 1))
grep -q "^\"vdsm-log:$scratch/b,c.log\"," "$out" && grep -q '^fixed:2,' "$out" || fail "2: a comma in a vdsm-log file name"
expect_ok capacity --rate 400MiB/s --max-pauses-per-run 1 --hosts 1 --drives-per-host 2 --write 5GiB \
  --latency "vdsm-log:$scratch/a.log,vdsm-polling-2022" --format csv
checks=$((checks + 1)); [ "$(wc -l <"$out")" -eq 3 ] || fail "2: capacity --latency vdsm-log:a.log,vdsm-polling-2022"

# 3. Units as the storage tools spell them: SI (MB = 10^6, as dd and fio), fractional rates, lvm's suffixes on
#    LVM's options, a percent of the pool, and a hint for a number without a unit.
expect_ok plan --rate 500MB/s --runs 2 --write 5GiB --format csv
expect_stdout '^476\.837158203125,'
expect_ok plan --rate 8.2GiB/s --runs 2 --write 5GiB --format csv
expect_stdout '^8396\.8000001'
expect_ok recommend --rate 500MB/s --runs 2 --write 5GiB --format csv
expect_ok plan --rate 400MiB/s --write 5GB --runs 2 --format csv
expect_stdout ',5000000000,'
expect_usage 'unknown unit: use B, KiB, .* kB, MB, GB' plan --rate 400M/s
expect_ok extend --preset lvm-thin-autoextend --physical 100g --allocation 95% --format csv
cp "$out" "$scratch/lvm_pct.csv"
expect_ok extend --preset lvm-thin-autoextend --physical 100GiB --allocation 95GiB --format csv
checks=$((checks + 1)); cmp -s "$out" "$scratch/lvm_pct.csv" || fail "3: --physical 100g --allocation 95% is not 100GiB/95GiB"
expect_ok extend --preset lvm-thin-autoextend --physical 209715200s --allocation 0.5G --format csv
expect_stdout '^107374182400,536870912,'
expect_usage '^provpol extend: --allocation 95%: a percent of --physical, which is not given' extend --preset lvm-thin-autoextend --allocation 95% --input /dev/null
expect_usage '^provpol extend: --allocation: invalid value .95%.' extend --capacity 1GiB --physical 1GiB --allocation 95%
expect_ok plan --preset lvm-thin-autoextend --pool-size 10g --pool-used 50% --rate 1GiB/s --runs 2 --format csv
cp "$out" "$scratch/pool_pct.csv"
expect_ok plan --preset lvm-thin-autoextend --pool-size 10GiB --pool-used 5GiB --rate 1GiB/s --runs 2 --format csv
checks=$((checks + 1)); cmp -s "$out" "$scratch/pool_pct.csv" || fail "3: --pool-size 10g --pool-used 50% is not 10GiB/5GiB"
expect_usage 'a number without a unit is bytes: did you mean 100MiB \(100m, as lvcreate -L 100 reads it\)\?$' \
  plan --preset lvm-thin-autoextend --pool-size 100 --rate 1GiB/s
expect_usage "on LVM's options lvm's suffixes too" plan --preset lvm-thin-autoextend --pool-size 10x --rate 1GiB/s

# 4. No option quietly ignored: logsize's XFS options need an xfsprogs preset, --fast-commit e2fsprogs-1.47.
expect_usage '^provpol logsize: --fast-commit is mke2fs.s .*add --preset e2fsprogs-1.47$' logsize --size 1GiB --preset xfsprogs-6.1 --fast-commit
expect_usage '^provpol logsize: --agcount is mkfs.xfs.s: e2fsprogs-1.47 does not read it' logsize --size 1GiB --preset e2fsprogs-1.47 --agcount 4
expect_usage '^provpol logsize: --rotational is mkfs.xfs.s' logsize --size 1GiB --preset e2fsprogs-1.47 --rotational 1
expect_ok logsize --size 1GiB --preset e2fsprogs-1.47 --preset xfsprogs-6.1 --fast-commit --agcount 4
expect_ok logsize --size 1GiB --fast-commit --agcount 4

# 6. Small things.
# xfsprogs-X.Y for any release from 5.10 to 7.2 decides with the rule set in force in it (6.8 is not 6.1, but
# 6.13's concurrency-sized log), under its own name; outside that range, one line naming the range. Help says
# which releases each rule set covers.
# (--rotational 0 --cpus 16 only where the rule set reads them: asked of an older release alone they are refused.)
for pair in 6.8:6.13 6.17:6.13 5.19:6.1 6.4:6.1 5.10:5.14 5.14:5.14 5.15:5.15 6.18:7.2 7.2:7.2; do
  ssd=(); case ${pair#*:} in 6.13|7.2) ssd=(--rotational 0 --cpus 16) ;; esac
  expect_ok logsize --size 300GiB "${ssd[@]}" --preset "xfsprogs-${pair%:*}" --format csv
  sed 1d "$out" | cut -d, -f2- > "$scratch/release.csv"
  expect_ok logsize --size 300GiB "${ssd[@]}" --preset "xfsprogs-${pair#*:}" --format csv
  checks=$((checks + 1))
  sed 1d "$out" | cut -d, -f2- | cmp -s - "$scratch/release.csv" || fail "xfsprogs-${pair%:*} does not decide as xfsprogs-${pair#*:}"
done
expect_ok logsize --size 300GiB --preset xfsprogs-6.8 --format csv
expect_stdout '^xfsprogs-6\.8,'
expect_usage '^provpol logsize: --preset: xfsprogs-5\.9 is outside the xfsprogs releases provpol knows: xfsprogs-X\.Y takes 5\.10 to 7\.2$' logsize --size 1GiB --preset xfsprogs-5.9
expect_usage 'xfsprogs-X\.Y takes 5\.10 to 7\.2$' logsize --size 1GiB --preset xfsprogs-7.3
expect_ok logsize --help
expect_stdout '5\.10 to 5\.14 xfsprogs-5\.14, 5\.15 to 5\.18 xfsprogs-5\.15, 5\.19 to 6\.4 xfsprogs-6\.1, 6\.5 to 6\.7'
# An error names the option, not the library's field.
expect_usage '^provpol plan: --capacity \(1GiB\) must be at least --write \(2GiB\)$' plan --capacity 1GiB --write 2GiB --rate 1GiB/s --runs 1
# JSON: an absent reason is null, as every other absent field.
expect_ok logsize --size 1GiB --preset e2fsprogs-1.47 --format json
expect_stdout '"reason": null'
checks=$((checks + 1)); ! grep -q '"reason": ""' "$out" || fail "6: \"reason\": \"\" in JSON"
# A non-ASCII file name is printed as given in the header and in the line to paste, as in tables.
cp "$scratch/a.log" "$scratch/vdsm-é.log"
expect_ok latency --vdsm-log "$scratch/vdsm-é.log"
expect_stdout "^# provpol latency --vdsm-log $scratch/vdsm-é.log: 200 extend lines"
expect_stdout "use it with --latency vdsm-log:$scratch/vdsm-é.log\)$"
# capacity --help's usage has no run of spaces inside a line.
expect_ok capacity --help
checks=$((checks + 1)); ! sed -n '1,5p' "$out" | grep -Eq '[^ ] {3,}[^ ]' || fail "6: capacity --help usage has a run of spaces"

finish
