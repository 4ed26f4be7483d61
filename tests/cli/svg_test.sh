#!/usr/bin/env bash
# provpol plan --format svg: every text the plot embeds is escaped, so the SVG stays well-formed XML whatever the
# title holds. The title names the latency spec, and a samples:FILE or vdsm-log:FILE spec is a file name: one
# with <, &, ", ' and > in it (or a control character, or bytes that are not UTF-8) must not break the document.
. "$(dirname "$0")/lib.sh"

# well_formed: the last run's stdout parses as XML (xmllint, else Python; neither: the grep checks below only).
well_formed() {
  checks=$((checks + 1))
  if command -v xmllint >/dev/null 2>&1; then
    xmllint --noout "$out" 2>"$scratch/xml.err" || fail "$1: not well-formed XML: $(head -c 300 "$scratch/xml.err")"
  elif command -v python3 >/dev/null 2>&1; then
    python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$out" 2>"$scratch/xml.err" ||
      fail "$1: not well-formed XML: $(tail -c 300 "$scratch/xml.err")"
  else
    echo "neither xmllint nor python3: $1 is checked by grep only"
  fi
}

# plot <dir> <what> [plan options...]: a samples file of extend times in <dir> (made), plotted with it as the
# --latency spec; the SVG must be well-formed.
plot() {
  local dir=$1 what=$2
  shift 2
  mkdir -p "$dir"
  printf '1.5\n2.5\n4\n' >"$dir/lat.txt"
  expect_ok plan --preset vdsm-2022 --rate 400MiB/s --runs 5 --format svg --latency "samples:$dir/lat.txt" "$@"
  well_formed "$what"
}

# A plain run: a well-formed document (the reference the cases below are held to).
expect_ok plan --preset vdsm-2022 --rate 400MiB/s --runs 5 --format svg
well_formed "plain plot"

# A latency file whose name needs every XML escape.
dir="$scratch/a<b&c\"d'e>f"
plot "$dir" "a title with < & \" ' >"
expect_stdout 'a&lt;b&amp;c&quot;d&apos;e&gt;f/lat\.txt latency'
checks=$((checks + 1))
! grep -Fq "a<b&c" "$out" || fail "the raw file name is in the SVG"

# Two configurations and the per-run metric: the legend's labels and the other texts stay well-formed too.
expect_ok plan --policy static --policy rate-aware --preset vdsm-legacy --rate 200MiB/s,400MiB/s --runs 5 \
  --format svg --svg-metric pauses --latency "samples:$dir/lat.txt"
well_formed "two configurations, pauses per run"
expect_stdout '>rate-aware/vdsm-legacy</text>'

# A control character and a byte that is not UTF-8: XML 1.0 cannot hold them, escaped or not.
plot "$scratch/$(printf 'ctl\001-bad\377-ok\303\251')" "a title with a control character and invalid UTF-8"
expect_stdout "$(printf 'ctl\357\277\275-bad\357\277\275-ok\303\251')"

# A long spec (a deep path): the title is whole, never cut off in the middle of the document.
plot "$scratch/$(printf 'd%.0s' {1..200})/$(printf 'e%.0s' {1..200})&" "a 450-character title"
expect_stdout 'e&amp;/lat\.txt latency, 5 runs</text>$'

finish
