#!/usr/bin/env bash
# The VDSM commands (plan, capacity, recommend) read the inputs an oVirt admin has as they have them: vdsm.conf and
# its drop-ins layered as VDSM reads them, a burst as a rate for a time. Each check failed before its change.
. "$(dirname "$0")/lib.sh"

# check <description> <command...>: one more check, failed when the command fails.
check() {
  local what=$1
  shift
  checks=$((checks + 1))
  "$@" || fail "$what"
}

# --config given three times in plan and capacity: vdsm.conf (percent before chunk) and two drop-ins of one key
# each, read as VDSM's configparser reads them. The expected label comes from Python's configparser, not provpol.
conf=$scratch/vdsm.conf d1=$scratch/50-chunk.conf d2=$scratch/60-percent.conf
printf '[irs]\nvolume_utilization_percent = 30\nvolume_utilization_chunk_mb = 1024\n' >"$conf"
printf '[irs]\nvolume_utilization_chunk_mb = 3200\n' >"$d1"
printf '# a drop-in\n[irs]\nvolume_utilization_percent = 40\n' >"$d2"
want=$(python3 -c '
import configparser, sys
c = configparser.ConfigParser()
c.read(sys.argv[1:])
print("chunk-%dMiB-%dpct" % (c.getint("irs", "volume_utilization_chunk_mb"), c.getint("irs", "volume_utilization_percent")))
' "$conf" "$d1" "$d2")
sources="--config: volume_utilization_chunk_mb = 3200 from .*50-chunk.conf line 2, volume_utilization_percent = 40 from .*60-percent.conf line 3$"
run plan --config "$conf" --config "$d1" --config "$d2" --rate 500MiB/s --runs 3 --write 5GiB --format csv
check "plan --config x3 exits 0 (status $status)" test "$status" -eq 0
check "plan --config x3 plans $want" grep -q ",$want," "$out"
check "plan --config x3 names the files on stderr" grep -Eq "^provpol plan: $sources" "$err"
run capacity --config "$conf" --config "$d1" --config "$d2" --rate 500MiB/s --write 5GiB --max-pauses-per-run 1 \
  --hosts 1 --drives-per-host 2 --format csv
check "capacity --config x3 exits 0 (status $status)" test "$status" -eq 0
check "capacity --config x3 searches $want" grep -q ",$want," "$out"
check "capacity --config x3 names the files on stderr" grep -Eq "^provpol capacity: $sources" "$err"
expect_usage "^provpol plan: --config - and --trace - both read stdin" plan --config "$conf" --config - --trace - \
  --hosts 1 --drives-per-host 1

# --duration TIME: a burst as a rate for a time. At each rate of a --rate list the write is rate x TIME (1 GB/s for
# 20 s is 20,000,000,000 bytes), and the answer is the one --write of that size gives.
same() {  # same <description> <args A> -- <args B>: both succeed with the same stdout
  local what=$1 a=() b=()
  shift
  while [ "$1" != -- ]; do a+=("$1"); shift; done
  shift
  b=("$@")
  run "${a[@]}"
  cp "$out" "$scratch/a"
  local sa=$status
  run "${b[@]}"
  check "$what (status $sa and $status)" test "$sa" -eq 0 -a "$status" -eq 0
  check "$what: the same answer" cmp -s "$scratch/a" "$out"
}
expect_ok plan --rate 1GB/s,2GB/s --duration 20s --runs 2 --format csv
check "plan --duration 20s writes 1GB/s x 20 s and 2GB/s x 20 s" \
  test "$(cut -d, -f20 "$out" | tr '\n' ' ')" = "write 20000000000 40000000000 "
same "plan --duration 20s = --write 20GB at 1GB/s" plan --rate 1GB/s --duration 20s --runs 3 --format csv -- \
  plan --rate 1GB/s --write 20GB --runs 3 --format csv
same "plan --hosts --duration 1min = --write 30GB at 500MB/s" plan --rate 500MB/s --duration 1min --hosts 1 \
  --drives-per-host 2 --format csv -- plan --rate 500MB/s --write 30GB --hosts 1 --drives-per-host 2 --format csv
same "capacity --duration 10s = --write 10GB at 1GB/s" capacity --rate 1GB/s --duration 10s --max-pauses-per-run 1 \
  --hosts 1 --drives-per-host 2 --latency vdsm-mailbox-events --percent 20 --chunk 8GiB --format csv -- capacity --rate 1GB/s --write 10GB \
  --max-pauses-per-run 1 --hosts 1 --drives-per-host 2 --latency vdsm-mailbox-events --percent 20 --chunk 8GiB --format csv
same "recommend --duration 10s = --write 10GB at 1GB/s" recommend --rate 1GB/s --duration 10s --runs 20 --format csv -- \
  recommend --rate 1GB/s --write 10GB --runs 20 --format csv
expect_usage "^provpol plan: give --write or --duration, not both" plan --rate 1GB/s --write 1GiB --duration 2s
expect_usage "^provpol recommend: give --write or --duration, not both" recommend --rate 1GB/s --write 1GiB \
  --duration 2s
expect_usage "^provpol capacity: give --write or --duration, not both" capacity --rate 1GB/s --write 1GiB \
  --duration 2s --max-pauses-per-run 1 --hosts 1 --drives-per-host 2
for cmd in plan capacity recommend; do
  run $cmd --help
  check "$cmd --help describes --duration as the others do" grep -q -- "--duration TIME *instead of --write: how long each writer writes at its rate" "$out"
done
expect_usage "^provpol plan: --duration: " plan --rate 1GB/s --duration 20minutes
expect_usage "^provpol plan: --duration 0.5s at .* writes 0 bytes: a write is 1B-1PiB$" plan --rate 1B/s --duration 0.5s
printf 'time_s,bytes_written\n0,0\n10,1000000\n' >"$scratch/trace.csv"
expect_usage "^provpol plan: --duration does not apply with --trace" plan --trace "$scratch/trace.csv" --duration 1s \
  --hosts 1 --drives-per-host 1

# --burst reads its two times as every time option does (parse_seconds): 2s,10s is 2,10, 0.5min,500ms is 30,0.5 and
# 500ms,1.5min is 0.5,90.
same "plan --burst 2s,10s = --burst 2,10" plan --hosts 2 --drives-per-host 2 --rate 500MiB/s --write 5GiB \
  --burst 2s,10s --format csv -- plan --hosts 2 --drives-per-host 2 --rate 500MiB/s --write 5GiB --burst 2,10 --format csv
same "capacity --burst 0.5min,500ms = --burst 30,0.5" capacity --hosts 1 --drives-per-host 2 --rate 500MiB/s \
  --write 5GiB --max-pauses-per-run 1 --burst 0.5min,500ms --format csv -- capacity --hosts 1 --drives-per-host 2 \
  --rate 500MiB/s --write 5GiB --max-pauses-per-run 1 --burst 30,0.5 --format csv
same "plan --burst 500ms,1.5min = --burst 0.5,90" plan --hosts 2 --drives-per-host 2 --rate 500MiB/s --write 5GiB \
  --burst 500ms,1.5min --format csv -- plan --hosts 2 --drives-per-host 2 --rate 500MiB/s --write 5GiB --burst 0.5,90 \
  --format csv
expect_usage "^provpol plan: --burst: invalid value 'x': expected a time such as" plan --hosts 2 --drives-per-host 2 \
  --burst 2s,x

# --latency is described with every form it takes in each command's --help (latency_spec_names), and the domain's
# refusals name every form with the mailbox's clocks, flow:FILE among them (capacity takes one).
forms="fixed:SECONDS, samples:FILE, vdsm-log:FILE, flow:FILE"
for cmd in plan capacity recommend; do
  run $cmd --help
  check "$cmd --help lists every --latency form" grep -q -- "--latency LIST .*$forms" "$out"
done
mailbox="vdsm-polling-2022, vdsm-mailbox-events, vdsm-immediate, vdsm-log:FILE or flow:FILE \(a flow with a send and a reply poll\)$"
expect_usage "^provpol capacity: --latency: fixed:3 has no mailbox clocks: a domain needs $mailbox" capacity --rate 1GB/s \
  --max-pauses-per-run 1 --hosts 1 --drives-per-host 2 --latency fixed:3
expect_usage "^provpol plan: --hosts needs a --latency with the mailbox's clocks: $mailbox" plan --hosts 1 \
  --drives-per-host 2 --latency fixed:3
expect_usage "^provpol recommend: --hosts needs a --latency with the mailbox's clocks: $mailbox" recommend --rate 1GB/s \
  --max-pauses-per-run 1 --hosts 1 --drives-per-host 2 --latency fixed:3

# Outputs people paste: a count of 1 in the singular, and the rate as the user typed it (1GB/s, not 976562.5KiB/s).
expect_ok recommend --rate 1GB/s --max-pauses-per-run 1 --hosts 1 --drives-per-host 1 --runs 1
check "recommend --hosts 1: the header says 1GB/s, 1 writer, 1 host, 1 drive" \
  grep -q '^# provpol recommend: 1GB/s per VM, 1 writer at once on 1 host x 1 drive sharing' "$out"
check "recommend --hosts 1 --runs 1: 1 domain run a count" grep -q '(1 domain run a count)$' "$out"
expect_ok recommend --rate 1GB/s --max-pauses-per-run 1 --hosts 1 --drives-per-host 2 --runs 2
check "recommend: 2 writers, 2 drives, 2 domain runs, 4 writing VMs" \
  grep -q '1GB/s per VM, 2 writers at once on 1 host x 2 drives .*' "$out"
check "recommend: 2 domain runs a count" grep -q '(2 domain runs a count)$' "$out"
expect_ok recommend --rate 1GB/s
check "recommend per extend: the header says 1GB/s" grep -q '^# provpol recommend: 1GB/s, at most 0.01 of extends' "$out"
expect_ok recommend --rate 1GB/s --max-pauses-per-run 1 --runs 20
check "recommend per VM: the header says 1GB/s" grep -q '1GB/s' "$out"
check "recommend per VM: no KiB/s" test -z "$(grep 'KiB/s' "$out")"
expect_ok capacity --rate 1GB/s --write 5GiB --max-pauses-per-run 1 --hosts 1 --drives-per-host 2 --format svg
expect_stdout '>1 host x 2 drives, 1GB/s each, 5GiB written, '

finish
