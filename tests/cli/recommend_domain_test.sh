#!/usr/bin/env bash
# recommend --hosts H --drives-per-host D --writers N: the smallest VDSM configuration under which N writers on the
# domain meet the per-VM target, checked with plan --hosts (the same domain runs): the answer meets it, one
# extent (128 MiB) less does not, and it is larger than one VM alone needs. Without --hosts the answer says it is
# for one VM alone. Usage: recommend_domain_test.sh path/to/provpol
. "$(dirname "$0")/lib.sh"

shape=(--hosts 4 --drives-per-host 5 --writers 10 --write 20GiB --rate 500MiB/s)
expect_ok recommend --max-pauses-per-run 1 "${shape[@]}" --format csv
expect_stdout_line 1 'rate_mib_s,volume_utilization_chunk_mb,volume_utilization_percent,hosts,drives_per_host,writers,runs,max_pauses_per_run,vm_quantile,pauses_at_quantile,pauses_p99,latency_p99_s,spm_utilization,new_disk_size,one_vm_chunk_mb,scope,target_met'
expect_stdout ',domain,1$'
answer=$(cp "$out" "$scratch/answer.csv"; awk -F, 'NR == 2 { print $2 }' "$scratch/answer.csv")
one_vm=$(awk -F, 'NR == 2 { print $15 }' "$scratch/answer.csv")
checks=$((checks + 1))
[ "$answer" -gt "$one_vm" ] || fail "10 writers on the domain need no more than one VM alone ($answer <= $one_vm MiB)"
# Pasted into plan --hosts: the same domain, the target met.
expect_ok plan --config "$scratch/answer.csv" "${shape[@]}" --format csv
p99=$(awk -F, 'NR == 2 { print $13 }' "$out")
checks=$((checks + 1))
[ "$p99" = 1 ] || fail "plan --hosts with the answer: pauses_p99 $p99, expected at most 1"
expect_ok plan --chunk "$((answer - 128))MiB" --percent 20 "${shape[@]}" --format csv
p99=$(awk -F, 'NR == 2 { print $13 }' "$out")
checks=$((checks + 1))
awk -v p="$p99" 'BEGIN { exit !(p > 1) }' || fail "one extent less ($((answer - 128)) MiB) also meets the target"
# Text: the [irs] block for the domain, and what one VM alone would need.
expect_ok recommend --max-pauses-per-run 1 "${shape[@]}"
expect_stdout "^volume_utilization_chunk_mb = $answer\$"
expect_stdout "^# one VM alone needs volume_utilization_chunk_mb = $one_vm"
# Without --hosts: for one VM alone, and it says so.
expect_ok recommend --rate 800MiB/s
expect_stdout '^# for one VM alone'
# Errors: one line, exit 2.
expect_usage '^provpol recommend: --hosts answers a per-VM target' recommend --rate 500MiB/s --hosts 2 --drives-per-host 2
expect_usage '^provpol recommend: --hosts and --drives-per-host go together' recommend --rate 500MiB/s --max-pauses-per-run 1 --hosts 2
expect_usage '^provpol recommend: --hosts: the domain.s answer is a static' recommend --rate 500MiB/s --max-pauses-per-run 1 --hosts 2 --drives-per-host 2 --policy rate-aware
expect_usage '^provpol recommend: --hosts needs a --latency with the mailbox' recommend --rate 500MiB/s --max-pauses-per-run 1 --hosts 2 --drives-per-host 2 --latency fixed:3
finish
