#!/usr/bin/env bash
# provpol capacity --format svg: pauses per VM (p50 and p99) against the concurrent writers, one pair of lines per
# latency profile, the target as a horizontal line and max_writers as a vertical one. Checked: well-formed XML; the
# answer marked is capacity's own (its CSV); every point's value is what provpol plan --hosts ... --writers N
# reports for that N on capacity's runs at its first seed (at max_writers, one more, and the last count); the points
# span 1 to beyond max_writers; the points' heights order as their values, and the target line is at the height of
# the points worth the target.
. "$(dirname "$0")/lib.sh"
# The expectations below were worked under the 2022 flow (vdsm-polling-2022), before the default became VDSM 4.50's
# current one: every plan, recommend and capacity run here names it.
pin_latency vdsm-polling-2022

# well_formed: the last run's stdout parses as XML (xmllint, else Python; neither: the other checks only).
well_formed() {
  checks=$((checks + 1))
  if command -v xmllint >/dev/null 2>&1; then
    xmllint --noout "$out" 2>"$scratch/xml.err" || fail "$1: not well-formed XML: $(head -c 300 "$scratch/xml.err")"
  elif command -v python3 >/dev/null 2>&1; then
    python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$out" 2>"$scratch/xml.err" ||
      fail "$1: not well-formed XML: $(tail -c 300 "$scratch/xml.err")"
  else
    echo "neither xmllint nor python3: $1 is checked without a parser"
  fi
}
col() {  # col <name> [row]: the value of column <name> in row (default 1) of the last run's CSV
  awk -F, -v name="$1" -v row="${2:-1}" 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == name) c = i} NR == row + 1 {print $c}' "$out"
}
# points <file> <profile> <quantile>: "writers value cy" per point of that series, from each circle's title.
points() {
  awk -v p="$2" -v q="$3" '
    /<circle / && index($0, "<title>" p " " q " at ") {
      match($0, /cy="[0-9.]+"/); cy = substr($0, RSTART + 4, RLENGTH - 5)
      s = substr($0, index($0, "<title>" p " " q " at ") + length("<title>" p " " q " at "))
      split(s, w, " "); v = s; sub(/^.*: /, "", v); sub(/ pauses per run.*$/, "", v)
      print w[1], v, cy
    }' "$1"
}

grid=(--hosts 4 --drives-per-host 6)
shape=("${grid[@]}" --write 10GiB)
profiles=(vdsm-polling-2022 vdsm-mailbox-events)
args=("${shape[@]}" --rate 300MiB/s --max-pauses-per-run 2 --latency vdsm-polling-2022,vdsm-mailbox-events)

expect_ok capacity "${args[@]}" --format csv
declare -A answer
answer[vdsm-polling-2022]=$(col max_writers 1)
answer[vdsm-mailbox-events]=$(col max_writers 2)
expect_ok capacity "${args[@]}" --format svg
cp "$out" "$scratch/plot.svg"
well_formed "capacity --format svg"
expect_stdout '^<svg xmlns="http://www.w3.org/2000/svg"'
expect_stdout '>pauses per VM against concurrent writers</text>'
expect_stdout '>4 hosts x 6 drives, 300MiB/s each, 10GiB written, vdsm-2022, ceil\(200 / writers\) domain runs per count, seed 1</text>'
expect_stdout '>target: at most 2 pauses</text>'
expect_stdout '>for 99% of VMs</text>'

for p in "${profiles[@]}"; do
  m=${answer[$p]}
  echo "$p: max_writers $m"
  checks=$((checks + 1))
  [ "$m" -gt 0 ] && [ "$m" -lt 24 ] || fail "$p: expected an answer inside (0, 24), got '$m'"
  # The answer marked: a vertical line and the legend, both capacity's CSV answer.
  cp "$scratch/plot.svg" "$out"
  expect_stdout "<title>$p max_writers $m</title></line>"
  expect_stdout ">max_writers $m</text>"
  points "$scratch/plot.svg" "$p" p99 >"$scratch/$p.p99"
  points "$scratch/plot.svg" "$p" p50 >"$scratch/$p.p50"
  counts=$(cut -d' ' -f1 "$scratch/$p.p99" | tr '\n' ' ')
  echo "$p: counts $counts"
  checks=$((checks + 1))
  cmp -s <(cut -d' ' -f1 "$scratch/$p.p99") <(cut -d' ' -f1 "$scratch/$p.p50") || fail "$p: p50 and p99 at different counts"
  # From 1 up to beyond the answer, increasing, with the answer and one more among them.
  checks=$((checks + 1))
  awk -v m="$m" 'NR == 1 && $1 != 1 {bad = 1} $1 <= last {bad = 1} {last = $1} $1 == m {a = 1} $1 == m + 1 {b = 1}
    END {exit !(!bad && a && b && last > m + 1 && NR >= 6)}' "$scratch/$p.p99" ||
    fail "$p: the counts ($counts) do not run from 1 past max_writers $m + 1"
  # Each point's value is plan --hosts's at that count: at the answer, one more, and the last count.
  last=$(tail -1 "$scratch/$p.p99" | cut -d' ' -f1)
  for n in "$m" $((m + 1)) "$last"; do
    expect_ok plan "${shape[@]}" --writers "$n" --runs $(((200 + n - 1) / n)) --rate 300MiB/s --latency "$p" --format csv
    want99=$(col pauses_p99) want50=$(col pauses_p50)
    got99=$(awk -v n="$n" '$1 == n {print $2}' "$scratch/$p.p99")
    got50=$(awk -v n="$n" '$1 == n {print $2}' "$scratch/$p.p50")
    checks=$((checks + 1))
    [ -n "$got99" ] && [ "$got99" = "$want99" ] && [ "$got50" = "$want50" ] ||
      fail "$p at $n writers: the plot says p99 '$got99' p50 '$got50', plan --hosts says $want99 and $want50"
  done
  # The target holds at the answer (capacity's definition at the first seed; one writer later a seed misses, not
  # necessarily the first).
  checks=$((checks + 1))
  awk -v m="$m" '$1 == m {a = ($2 <= 2)} END {exit !a}' "$scratch/$p.p99" ||
    fail "$p: p99 at $m writers is not within the target"
done

# The heights: a higher value is drawn higher (a smaller y), equal values at one height, and the target line at
# the height of the points worth 2 pauses.
cat "$scratch"/*.p99 "$scratch"/*.p50 >"$scratch/all"
checks=$((checks + 1))
awk '{v[NR] = $2 + 0; y[NR] = $3 + 0} END {
  for (i = 1; i <= NR; i++) for (j = 1; j <= NR; j++) {
    if (v[i] < v[j] && !(y[i] > y[j])) exit 1
    if (v[i] == v[j] && y[i] != y[j]) exit 1
  }
  exit !(NR >= 24) }' "$scratch/all" || fail "the points' heights do not follow their values"
target_y=$(grep -o '<line [^>]*stroke-dasharray="8 4"><title>target' "$scratch/plot.svg" | grep -o 'y1="[0-9.]*"' | cut -d'"' -f2)
one_y=$(awk '$2 == 2 {print $3; exit}' "$scratch/all")
checks=$((checks + 1))
[ -n "$target_y" ] && [ "$target_y" = "$one_y" ] || fail "the target line is at y '$target_y', the points worth 2 pauses at '$one_y'"

# The same plot on any number of threads.
expect_ok capacity "${args[@]}" --format svg --jobs 1
checks=$((checks + 1))
cmp -s "$out" "$scratch/plot.svg" || fail "capacity --format svg --jobs 1 differs from the default"

# Another target and quantile: said in the legend; a domain where every drive meets it: the marker at every drive.
expect_ok capacity "${grid[@]}" --rate 10MiB/s --write 1GiB --max-pauses-per-run 2 --vm-quantile 0.9 --format svg
well_formed "every drive meets the target"
expect_stdout '>target: at most 2 pauses</text>'
expect_stdout '>for 90% of VMs</text>'
expect_stdout '<title>vdsm-polling-2022 max_writers 24</title>'
expect_stdout '<title>vdsm-polling-2022 p99 at 24 writers: 0 pauses per run</title>'
# Even one writer misses: no marker, the points still there, status 3.
expect_missed capacity "${grid[@]}" --rate 500MiB/s --write 50GiB --max-pauses-per-run 0 --vm-quantile 1 --format svg
well_formed "no writer meets the target"
checks=$((checks + 1))
! grep -q 'max_writers 0</title>' "$out" || fail "a max_writers line at 0 writers"
expect_stdout '>max_writers 0</text>'
expect_stdout '<title>vdsm-polling-2022 p99 at 1 writer: [1-9][0-9]* pauses per run</title>'

# A profile named by a file whose name needs every XML escape: the document stays well-formed.
dir="$scratch/a<b&c\"d'e>f"
mkdir -p "$dir"
awk 'BEGIN {
  srand(3)
  for (i = 0; i < 200; i++) {
    w = sprintf("%.2f", 2 * rand()); k = rand() < 0.6 ? 1 : 2
    e = sprintf("%.2f", 0.5 * k + 0.04 + 0.11 * rand()); r = sprintf("%.2f", 0.19 + 0.19 * rand())
    printf "2022-03-23 03:57:59,502+0200 INFO  (mailbox-hsm/3) [virt.vm] (vmId=%c108e%c) Extend volume 7d85-%d " \
      "completed <Clock(total=%.2f, wait=%s, extend-volume=%s, refresh-volume=%s)> (thinp:567)\n", 39, 39, i, \
      w + e + r + 0.005, w, e, r
  }
}' >"$dir/vdsm.log"
run capacity "${shape[@]}" --rate 500MiB/s --max-pauses-per-run 1 --latency "vdsm-log:$dir/vdsm.log" --format svg
well_formed "a profile named by a file with <, &, \", ' and >"
expect_stdout 'vdsm-log:[^<]*a&lt;b&amp;c&quot;d&apos;e&gt;f/vdsm\.log p99 at 1 writer: '
checks=$((checks + 1))
! grep -Fq "a<b&c" "$out" || fail "the raw file name is in the SVG"

# --format svg is capacity's: the option grammar is unchanged otherwise.
expect_usage "^provpol capacity: --format: unknown value 'png'" capacity "${args[@]}" --format png

finish
