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

finish
