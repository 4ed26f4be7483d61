#!/usr/bin/env bash
# recommend --max-pauses-per-run, for one VM and with --hosts H --drives-per-host D --writers N for a storage domain:
#   - the answer is the smallest chunk in 128MiB steps under which every writer count from 1 to N meets the target at
#     each of --seed and the next 3 seeds, each count on ceil(200 / writers) domain runs (capacity's check): plan
#     --hosts finds the answer meeting at every count and seed, and the chunk below it missing at one;
#   - "one VM alone needs" is recommend without --hosts (it once came from one simulated run);
#   - the domain's default domain runs add up to at least 200 writing VMs at every count (item 6: it was one run);
#   - a rate no per-extend configuration serves still gets its per-VM answer (item 8: it exited 2).
# Without --hosts the answer says it is for one VM alone. Usage: recommend_domain_test.sh path/to/provpol
. "$(dirname "$0")/lib.sh"

col() {  # col <name> [row]: the value of column <name> in row (default 1) of the last run's CSV
  awk -F, -v name="$1" -v row="${2:-1}" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == name) c = i} NR == row + 1 {print $c}' "$out"
}
# configs PERCENT MIB: every chunk from 128 MiB up to MIB in 128 MiB steps, as plan --config reads them.
configs() {
  echo volume_utilization_chunk_mb,volume_utilization_percent
  for ((c = 128; c <= $2; c += 128)); do echo "$c,$1"; done
}

# The answers below were worked under the 2022 flow (BZ#2051997's polling): each command names it, as the measured
# tables keep their own profile (the default is VDSM 4.50's current flow, vdsm-immediate).
old=(--latency vdsm-polling-2022)
pin_latency vdsm-polling-2022  # the commands that do not give "${old[@]}"
shape=(--hosts 4 --drives-per-host 5 --writers 10 --write 20GiB --rate 500MiB/s "${old[@]}")
expect_ok recommend --max-pauses-per-run 1 "${shape[@]}" --format csv
expect_stdout_line 1 'rate_mib_s,volume_utilization_chunk_mb,volume_utilization_percent,hosts,drives_per_host,writers,runs,max_pauses_per_run,vm_quantile,pauses_at_quantile,pauses_p99,latency_p99_s,spm_utilization,new_disk_size,one_vm_chunk_mb,scope,target_met,seeds,vms_per_count,one_vm_runs'
expect_stdout ',domain,1,4,200,200$'
answer=$(col volume_utilization_chunk_mb) one_vm=$(col one_vm_chunk_mb) runs=$(col runs)
checks=$((checks + 1)); [ "$runs" = 20 ] || fail "10 writers: expected 20 domain runs by default (200 writing VMs), got $runs"
# meets_everywhere <chunk MiB>: plan --hosts at every count from 1 to 10, each on ceil(200 / k) runs, at seeds 1-4.
meets_everywhere() {
  local k s
  for ((k = 1; k <= 10; k++)); do
    for s in 1 2 3 4; do
      run plan --hosts 4 --drives-per-host 5 --writers "$k" --write 20GiB --rate 500MiB/s --chunk "$1MiB" --percent 20 \
        --runs $(((200 + k - 1) / k)) --seed $s --format csv
      [ "$(col pauses_p99)" -le 1 ] || return 1
    done
  done
}
checks=$((checks + 1)); meets_everywhere "$answer" || fail "recommend's $answer MiB misses at a count or seed in plan"
checks=$((checks + 1)); meets_everywhere $((answer - 128)) && fail "$((answer - 128)) MiB, below recommend's $answer, meets everywhere in plan"
# One VM alone: recommend without --hosts says the same at the domain's percent (--hosts fixes 20, VDSM's; without
# it one VM's answer searches the percent too).
expect_ok recommend --max-pauses-per-run 1 --write 20GiB --rate 500MiB/s --percent 20 "${old[@]}" --format csv
checks=$((checks + 1))
[ "$(awk -F, '$18 == "per-vm" {print $3}' "$out")" = "$one_vm" ] || fail "one VM alone: --hosts says $one_vm MiB, recommend without it $(awk -F, '$18 == "per-vm" {print $3}' "$out")"
# Text: the [irs] block for the domain, the runs, the seeds and what one VM alone would need.
expect_ok recommend --max-pauses-per-run 1 "${shape[@]}"
expect_stdout "^volume_utilization_chunk_mb = $answer\$"
expect_stdout '^# per VM: 99% of VMs pause at most 1 time in 20GiB written, at every writer count from 1 to 10 \(ceil\(200 / writers\) domain runs a count\)$'
expect_stdout "^# the smallest chunk in 128MiB steps under which every count from 1 to 10 meets the target at each of seeds 1 to 4$"
expect_stdout "^# one VM alone needs volume_utilization_chunk_mb = $one_vm \\(recommend without --hosts: 200 simulated VMs,$"

# 600 MiB/s on 8 x 25 drives, where one run's answer differed by seed. The one-VM line is recommend's own answer (4736
# MiB, which plan confirms); the domain answer for 16 writers rests on 13 domain runs at 16 writers (208 writing VMs)
# and meets there at each of seeds 1 to 4.
issue=(--rate 600MiB/s --hosts 8 --drives-per-host 25 --max-pauses-per-run 1)
expect_ok recommend --rate 600MiB/s --max-pauses-per-run 1 --percent 20 --format csv
alone=$(awk -F, '$18 == "per-vm" {print $3}' "$out")
checks=$((checks + 1)); [ "$alone" = 4736 ] || fail "recommend --rate 600MiB/s --max-pauses-per-run 1: expected 4736 MiB, got $alone"
expect_ok plan --chunk 4736MiB --percent 20 --rate 600MiB/s --runs 200 "${old[@]}" --format csv
checks=$((checks + 1)); [ "$(col pauses_p99)" -le 1 ] || fail "plan --chunk 4736MiB: pauses_p99 $(col pauses_p99)"
expect_ok recommend "${issue[@]}"
expect_stdout '^# one VM alone needs volume_utilization_chunk_mb = 4736 '
expect_ok recommend "${issue[@]}" --writers 16 --format csv
read -r chunk runs < <(awk -F, 'NR == 2 {print $2, $7}' "$out")
checks=$((checks + 1)); [ "$runs" = 13 ] || fail "16 writers: expected 13 domain runs by default, got $runs"
for seed in 1 2 3 4; do
  expect_ok plan --hosts 8 --drives-per-host 25 --writers 16 --chunk "${chunk}MiB" --percent 20 --rate 600MiB/s --runs 13 --seed $seed --format csv
  checks=$((checks + 1)); [ "$(col pauses_p99)" -le 1 ] || fail "plan with the 16 writers' answer $chunk MiB on its 13 runs, seed $seed: pauses_p99 $(col pauses_p99)"
done
# The same bytes on any number of threads (--jobs).
expect_ok recommend "${issue[@]}" --writers 16 --seed 3 --jobs 1 --format csv
cp "$out" "$scratch/jobs1.csv"
expect_ok recommend "${issue[@]}" --writers 16 --seed 3 --jobs 3 --format csv
checks=$((checks + 1)); cmp -s "$out" "$scratch/jobs1.csv" || fail "recommend --hosts: --jobs 3 printed other bytes than --jobs 1"

# Item 8: no per-extend configuration serves 2 GiB/s within 10 GiB; the per-VM answer is the library's (5120 MiB,
# 99% of VMs pause at most once), for one VM and for a domain.
expect_ok recommend --rate 2GiB/s --max-pauses-per-run 1 --runs 20 --write 10GiB --percent 20 "${old[@]}" --format csv
checks=$((checks + 1)); [ "$(wc -l <"$out")" -eq 2 ] || fail "item 8: expected the per-VM row alone"
expect_stdout '^2048,0\.01,5120,20,.*,per-vm,1,0\.99,1,1,4,'
expect_ok recommend --rate 2GiB/s --max-pauses-per-run 1 --runs 20 --write 10GiB --percent 20 "${old[@]}"
expect_stdout '^volume_utilization_chunk_mb = 5120$'
expect_joined '^# next to it, the per-extend target \(at most 0\.01 of extends pausing\): none: --rate 2GiB/s: the guest writes'
expect_ok plan --chunk 5120MiB --percent 20 --rate 2GiB/s --write 10GiB --runs 20 "${old[@]}" --format csv
checks=$((checks + 1)); [ "$(col pauses_p99)" = 1 ] || fail "item 8: plan --chunk 5120MiB pauses_p99 $(col pauses_p99)"
expect_ok recommend --rate 2GiB/s --max-pauses-per-run 1 --runs 20 --write 10GiB --hosts 2 --drives-per-host 2 "${old[@]}"
expect_stdout '^volume_utilization_chunk_mb = [0-9]+$'
# Without the per-VM target, the per-extend answer alone is refused as before.
expect_usage '^provpol recommend: --rate 2GiB/s: the guest writes .* thin provisioning cannot serve this rate$' \
  recommend --rate 2GiB/s --runs 20 --write 10GiB "${old[@]}"

# --policy rate-aware: the smallest latency budget in 0.01 s steps under which the target holds, each step below
# simulated and missed: plan --policy rate-aware --budget at every step up to the answer (the same 20 runs).
ra=(--policy rate-aware --rate 400MiB/s --runs 20 --write 5GiB --latency vdsm-immediate)
expect_ok recommend "${ra[@]}" --max-pauses-per-run 2 --vm-quantile 0.9 --format csv
budget=$(col budget_s)
expect_stdout ',per-vm,0,[0-9.]+,2,0\.9,[0-9.]+,1,4,[0-9.]+,[0-9.]+$'
steps=$(awk -v b="$budget" 'BEGIN {printf "%d", b * 100 + 0.5}')
for ((k = 1; k <= steps; k++)); do
  expect_ok plan "${ra[@]}" --budget "$(printf '%d.%02d' $((k / 100)) $((k % 100)))" --format csv
  checks=$((checks + 1))
  awk -v p="$(col pauses_p90)" -v last=$((k == steps)) 'BEGIN {exit !(last ? p <= 2 : p > 2)}' ||
    fail "rate-aware: recommend's budget is $budget s; plan --budget $k/100 s: pauses_p90 $(col pauses_p90)"
done
expect_ok recommend "${ra[@]}" --max-pauses-per-run 2 --vm-quantile 0.9
expect_stdout "^# the agent plans for $budget s of latency, the least for which 90% of VMs pause at most 2 times \\(in 0\\.01 s steps; met in"

# Without --hosts: for one VM alone, and it says so.
expect_ok recommend --rate 800MiB/s
expect_stdout '^# for one VM alone'
# Errors: one line, exit 2.
expect_usage '^provpol recommend: --hosts answers a per-VM target' recommend --rate 500MiB/s --hosts 2 --drives-per-host 2
expect_usage '^provpol recommend: --hosts and --drives-per-host go together' recommend --rate 500MiB/s --max-pauses-per-run 1 --hosts 2
expect_usage '^provpol recommend: --hosts: the domain.s answer is a static' recommend --rate 500MiB/s --max-pauses-per-run 1 --hosts 2 --drives-per-host 2 --policy rate-aware
expect_usage '^provpol recommend: --hosts needs a --latency with the mailbox' recommend --rate 500MiB/s --max-pauses-per-run 1 --hosts 2 --drives-per-host 2 --latency fixed:3
# The search's work is bounded as it goes: past --max-events it stops with one line.
expect_usage '^provpol recommend: recommend would replay more than --max-events 30000000 simulated events' \
  recommend "${issue[@]}" --writers 16 --max-events 30000000
finish
