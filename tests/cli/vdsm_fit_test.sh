#!/usr/bin/env bash
# provpol latency --vdsm-log on logs that are not mailbox flows (each refusal said on stderr, its statistics still
# printed, no model, --latency vdsm-log:FILE and --save-flow refused) and on a mailbox flow of twelve VMs that keep
# their clocks' phases (fitted; --save-flow reads back to the same model). The logs are made here with awk.
. "$(dirname "$0")/lib.sh"

# csv_field <file> <key> <column>: the value in the row whose first field is key (the quoted text is the last column).
csv_field() {
  awk -F, -v key="$2" -v col="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
    $1 == key { print $c; exit }' "$1"
}
# check <description> <value> <awk condition on v>: one numeric check.
check() {
  checks=$((checks + 1))
  awk -v v="$2" "BEGIN { exit !($3) }" || fail "$1: $2 does not satisfy $3"
}

# An awk statement printing thinp.py's line of the extend (vm, t, w, e, r).
line='printf "2022-05-01 10:00:00,000+0300 INFO  (mailbox-hsm/1) [virt.vm] (vmId=%cvm-%d%c) Extend volume 7d85 completed <Clock(total=%.2f, wait=%.2f, extend-volume=%.2f, refresh-volume=%.2f)> (thinp:588)\n", 39, vm, 39, t, w, e, r'

# refused <file> <regex>: the statistics on stdout, one line on stderr matching the regex, no model; --latency
# vdsm-log:FILE and --save-flow refuse the log with the same reason.
refused() {
  checks=$((checks + 1))
  run latency --vdsm-log "$1" --format csv
  { [ "$status" -eq 0 ] && [ "$(wc -l <"$err")" -eq 1 ] && grep -q '^total,' "$out" &&
    grep -Eq "^provpol latency: --vdsm-log: no mailbox mode explains the log: $2; no model fitted$" "$err" &&
    ! grep -q 'the fitted flow' "$out"; } || fail "$1: statistics on stdout, one stderr line /$2/, no model"
  expect_usage "^provpol plan: --latency: no mailbox mode explains the log: $2; give its round trips" \
    plan --latency "vdsm-log:$1" --runs 1
  expect_usage "^provpol latency: --save-flow: no mailbox mode explains the log: $2; no flow to save$" \
    latency --vdsm-log "$1" --save-flow "$scratch/none.json"
  checks=$((checks + 1)); [ ! -e "$scratch/none.json" ] || fail "--save-flow wrote a file for $1"
}

# Totals drawn uniformly from 0 to 10 s, the Clock's timers sharing each at random: no reply-poll lattice.
awk "BEGIN { srand(11); for (i = 0; i < 400; i++) { t = 10 * rand(); a = rand(); b = rand(); c = rand(); s = a + b + c
  w = t * a / s; e = t * b / s; r = t * c / s; vm = 1; $line } }" >"$scratch/uniform_totals.log"
refused "$scratch/uniform_totals.log" 'the round trips lie on no reply-poll lattice: at best [0-9]+ of [0-9]+ lie [0-9.-]+ s after a 0.[0-9]+ s reply poll \((chance [0-9.e-]+ without one|no more than chance puts there)\)'
# The same totals next to a mailbox flow's timers: totals shorter than their own timers.
awk "BEGIN { srand(12); for (i = 0; i < 400; i++) { w = 2 * rand(); e = 0.5 * (rand() < 0.6 ? 1 : 2) + 0.05 + 0.07 * rand()
  r = 0.2 + 0.1 * rand(); t = 10 * rand(); vm = 1; $line } }" >"$scratch/short_totals.log"
refused "$scratch/short_totals.log" '[0-9]+ of 400 totals are shorter than their timers \(wait \+ round trip \+ refresh\): VDSM.s Clock never logs that'
# The issue's 300 extends of uniform timers: wait 0-3 s, extend-volume 0-6 s, refresh 0.05-1 s.
awk "BEGIN { srand(13); for (i = 0; i < 300; i++) { w = 3 * rand(); e = 6 * rand(); r = 0.05 + 0.95 * rand()
  t = sprintf(\"%.2f\", w) + sprintf(\"%.2f\", e) + sprintf(\"%.2f\", r); vm = 1; $line } }" >"$scratch/uniform_timers.log"
refused "$scratch/uniform_timers.log" 'the round trips lie on no reply-poll lattice: at best 25 of 290 lie 0.16 s after a 0.2 s reply poll \(no more than chance puts there\)'
# Two SPMs: mailbox events, half the extends served in 0.15-0.45 s of SPM work, half by a loaded SPM in 2.5-3.5 s.
awk "BEGIN { srand(14); for (i = 0; i < 400; i++) { w = 2 * rand(); x = 0.50125 * rand() + (i % 2 ? 0.15 + 0.3 * rand() : 2.5 + rand())
  k = int(x / 0.5); if (k * 0.5 < x) k++; e = 0.5 * k + 0.05 + 0.07 * rand(); r = 0.2 + 0.1 * rand(); t = w + e + r; vm = 1; $line } }" \
  >"$scratch/two_spms.log"
refused "$scratch/two_spms.log" '0 of 400 round trips took 3 to 5 reply polls of 0.5 s, where one SPM puts at least 27% \(chance 1e-52\): two SPMs, or two flows, in one log'
# Three extends: too few to tell.
awk "BEGIN { srand(15); for (i = 0; i < 3; i++) { w = 2 * rand(); e = 1.09; r = 0.28; t = w + e + r; vm = 1; $line } }" >"$scratch/three.log"
refused "$scratch/three.log" '3 extends are too few to show a mailbox flow: its round trips on a 0.5 s reply-poll lattice, with reads as VDSM logs them, show from 9 extends'

# Twelve VMs, each keeping its watermark monitor's and its SPM's phases for the whole log (the SPM's event check
# every 0.50125 s, its work 0.2 to 0.5 s, the host's poll every 0.5 s from the send, read 0.05 to 0.12 s): fitted.
awk "BEGIN { srand(16)
  for (vm = 0; vm < 12; vm++) { mp = 2 * rand(); sp = 0.50125 * rand(); ev = 20 * rand()
    for (i = 0; i < 34; i++) { ev += 3 + 10 * rand()
      q = mp + 2 * int((ev - mp) / 2 + 1); s = sp + 0.50125 * int((q - sp) / 0.50125 + 1); x = s + 0.2 + 0.3 * rand() - q
      k = int(x / 0.5); if (k * 0.5 < x) k++; e = 0.5 * k + 0.05 + 0.07 * rand(); r = 0.15 + 0.2 * rand()
      w = q - ev; t = w + e + r; $line; ev = q + e + r } } }" >"$scratch/twelve.log"
expect_ok latency --vdsm-log "$scratch/twelve.log"
expect_stdout '^fit: 408 extends of 12 VMs: a mailbox flow: [0-9]+ of 408 round trips lie 0.0[0-9]-0.1[0-9] s after a 0.5 s reply poll \(chance 1e-[0-9]+ without one\)$'
expect_ok latency --vdsm-log "$scratch/twelve.log" --save-flow "$scratch/twelve.json" --format csv
expect_ok latency --profile "vdsm-log:$scratch/twelve.log" --format csv
sed 's/^[^,]*,//' "$out" >"$scratch/from_log.csv"
expect_ok latency --profile "flow:$scratch/twelve.json" --format csv
checks=$((checks + 1))
cmp -s <(sed 's/^[^,]*,//' "$out") "$scratch/from_log.csv" || fail "--save-flow of the twelve VMs' fit does not read back to its model"

# The same twelve VMs, 9 of their 408 extends stalled 5 to 95 s in the SPM's work (the reply seen at a later poll):
# the stalls are said (text, CSV, JSON), left out of the flow, and modelled beside it; the saved flow keeps them.
awk "BEGIN { srand(16)
  for (vm = 0; vm < 12; vm++) { mp = 2 * rand(); sp = 0.50125 * rand(); ev = 20 * rand()
    for (i = 0; i < 34; i++) { ev += 3 + 10 * rand()
      q = mp + 2 * int((ev - mp) / 2 + 1); s = sp + 0.50125 * int((q - sp) / 0.50125 + 1); x = s + 0.2 + 0.3 * rand() - q
      if ((vm * 34 + i) % 50 == 7) x += 5 + 90 * rand()
      k = int(x / 0.5); if (k * 0.5 < x) k++; e = 0.5 * k + 0.05 + 0.07 * rand(); r = 0.15 + 0.2 * rand()
      w = q - ev; t = w + e + r; $line; ev = q + e + r } } }" >"$scratch/stalled.log"
expect_ok latency --vdsm-log "$scratch/stalled.log"
expect_stdout '^fit: 399 extends in the flow, on its 0.5 s reply-poll lattice; 9 stalls of [0-9.]+-[0-9.]+ s \(2.21%\): round trip [0-9.]+-[0-9.]+ s \(9\); modelled apart: each extend stalls with probability 0.0221, adding one of the stalls. times to the flow$'
expect_stdout '^fit: 408 extends of 12 VMs: a mailbox flow: [0-9]+ of 399 round trips lie '
expect_ok latency --vdsm-log "$scratch/stalled.log" --format csv
check "stalls in the total row" "$(csv_field "$out" total stalls)" 'v == 9'
check "stalls in the round trips" "$(csv_field "$out" extend-volume stalls)" 'v == 9'
check "no refresh stall" "$(csv_field "$out" refresh-volume stalls)" 'v == 0'
check "the longest stall" "$(csv_field "$out" total stall_max_s)" "v == $(csv_field "$out" total max_s)"
log_mean=$(csv_field "$out" total mean_s)
check "the model's mean against the log's $log_mean" "$(csv_field "$out" total model_mean_s)" \
  "v >= 0.85 * $log_mean && v <= 1.15 * $log_mean"
check "the model's max at least the log's" "$(csv_field "$out" total model_max_s)" "v >= $(csv_field "$out" total max_s)"
expect_ok latency --vdsm-log "$scratch/stalled.log" --format json
expect_stdout '"stalls": 9'
expect_ok latency --vdsm-log "$scratch/stalled.log" --save-flow "$scratch/stalled.json"
checks=$((checks + 1)); grep -q '"stalls": {"probability": ' "$scratch/stalled.json" || fail "--save-flow left the stalls out"
expect_ok latency --profile "vdsm-log:$scratch/stalled.log" --format csv
sed 's/^[^,]*,//' "$out" >"$scratch/stalled_from_log.csv"
expect_ok latency --profile "flow:$scratch/stalled.json" --format csv
checks=$((checks + 1))
cmp -s <(sed 's/^[^,]*,//' "$out") "$scratch/stalled_from_log.csv" || fail "--save-flow of a log with stalls does not read back to its model"
expect_ok recommend --rate 400MiB/s --latency "vdsm-log:$scratch/stalled.log"
expect_joined '^# provpol recommend: .*latency vdsm-log:.*, max [0-9.]+ s, 2.21% of extends stalled\)$'

finish
