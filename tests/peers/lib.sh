# Shared by tests/peers/*/check.sh (tests/peers/README.md): reads a suite's cases.csv, checks its common
# columns, counts results and checks the counts in docs/peers.md.
#   source "$(dirname "$0")/../lib.sh"; peers_begin SUITE "$@"; then for each row: peers_next_row ... ; peers_finish
set -uo pipefail

# peers_begin SUITE PROVPOL CSV [SOURCE_DIR]: sets provpol, csv, source_dir; checks the file's shape.
peers_begin() {
  peers_suite=$1
  provpol=${2:?usage: check.sh path/to/provpol path/to/cases.csv [source dir]}
  csv=${3:?usage: check.sh path/to/provpol path/to/cases.csv [source dir]}
  source_dir=${4:-}
  peers_checked=0 peers_left_out=0 peers_failed=0 peers_rows=0 peers_shape=0
  peers_row_compared=1 peers_row_failed=0
  peers_tmp=$(mktemp -d)
  trap 'rm -rf "$peers_tmp"' EXIT
  if ! head -1 "$csv" | grep -Eq '^# [A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+ at [0-9a-f]{40} '; then
    peers_shape_error "line 1 must be '# <owner>/<name> at <40-hex commit> ...'"
  fi
  peers_commit=$(head -1 "$csv" | awk '{print $4}')
  grep -v '^#' "$csv" > "$peers_tmp/body"
  IFS=, read -r -a peers_header < "$peers_tmp/body"
  if [ "${peers_header[*]:0:5}" != "id file line status reason" ]; then
    peers_shape_error "the header must start with id,file,line,status,reason, got ${peers_header[*]:0:5}"
  fi
  declare -gA peers_col=()
  local i
  for i in "${!peers_header[@]}"; do peers_col[${peers_header[$i]}]=$i; done
  local dups
  dups=$(tail -n +2 "$peers_tmp/body" | cut -d, -f1 | sort | uniq -d | head -3 | tr '\n' ' ')
  [ -z "$dups" ] || peers_shape_error "duplicate ids: $dups"
  tail -n +2 "$peers_tmp/body" > "$peers_tmp/rows"
  exec 3< "$peers_tmp/rows"
}

peers_shape_error() {
  peers_shape=$((peers_shape + 1))
  echo "FAIL: $csv: $*" >&2
}

# peers_next_row: reads the next row into the array row; returns 1 at the end. Left-out rows are counted and
# checked for a reason here and skipped; only rows with status check are returned.
peers_next_row() {
  peers_row_done
  while IFS= read -r line <&3; do
    peers_rows=$((peers_rows + 1))
    IFS=, read -r -a row <<< "$line,"
    if [ "${#row[@]}" -ne "${#peers_header[@]}" ]; then
      peers_shape_error "row ${row[0]}: ${#row[@]} fields, the header has ${#peers_header[@]}"
      continue
    fi
    case ${row[3]} in
      check)
        [ -z "${row[4]}" ] || peers_shape_error "row ${row[0]}: a check row has no reason"
        [[ ${row[2]} =~ ^[1-9][0-9]*$ ]] || peers_shape_error "row ${row[0]}: line '${row[2]}' is not a line number"
        peers_checked=$((peers_checked + 1)) peers_row_compared=0 peers_row_failed=0 peers_row_id=${row[0]}
        local k
        for k in "${!peers_header[@]}"; do printf -v "c_${peers_header[$k]}" '%s' "${row[$k]}"; done
        return 0 ;;
      left_out)
        [ -n "${row[4]}" ] || peers_shape_error "row ${row[0]}: left_out without a reason"
        peers_left_out=$((peers_left_out + 1)) ;;
      *) peers_shape_error "row ${row[0]}: status '${row[3]}' is neither check nor left_out" ;;
    esac
  done
  return 1
}

# The current row's values are also in the variables c_<column> (c_id, c_file, ...): no subshell per value.
# v NAME: the current row's value in column NAME.
v() {
  local i=${peers_col[$1]:-}
  if [ -z "$i" ]; then
    peers_shape_error "no column '$1'"
    echo ""
    return
  fi
  echo "${row[$i]}"
}

# peers_ask ARGS...: runs provpol ARGS with a timeout; stdout in $peers_out, status in $peers_status, the first
# 300 bytes of stderr in $peers_err.
peers_ask() {
  peers_out=$(timeout 60 "$provpol" "$@" 2> "$peers_tmp/err" < /dev/null)
  peers_status=$?
  peers_err=""
  [ ! -s "$peers_tmp/err" ] || peers_err=$(head -c 300 "$peers_tmp/err")
}

# peers_csv_rows: splits $peers_out (provpol's --format csv: a header, then rows) into out_<column>_<n> variables,
# n counting rows from 1, and out_rows (the row count).
peers_csv_rows() {
  local -a h r
  local line n=0 k
  {
    IFS=, read -r -a h
    while IFS= read -r line; do
      n=$((n + 1))
      IFS=, read -r -a r <<< "$line,"
      for k in "${!h[@]}"; do printf -v "out_${h[$k]}_$n" '%s' "${r[$k]:-}"; done
    done
  } <<< "$peers_out"
  out_rows=$n
}

# A check row that compared nothing is an error: no row passes by being skipped.
peers_row_done() {
  [ "$peers_row_compared" -eq 1 ] || peers_shape_error "row $peers_row_id: nothing was compared"
  peers_row_compared=1
}

# peers_pass / peers_fail MESSAGE: one comparison for the current row; a row fails once however many of its
# comparisons fail.
peers_pass() { peers_row_compared=1; }
peers_fail() {
  peers_row_compared=1
  [ "$peers_row_failed" -eq 1 ] || peers_failed=$((peers_failed + 1))
  peers_row_failed=1
  echo "FAIL: ${row[0]} (${row[1]}:${row[2]}): $*" >&2
}
# peers_expect WHAT PEER PROVPOL: passes when the two strings are equal.
peers_expect() {
  if [ "$2" = "$3" ]; then
    peers_pass
  else
    peers_fail "$1: the peer expects '$2', provpol says '$3'"
  fi
}

# peers_check_docs: docs/peers.md has the row "| <suite> | <commit> | rows | checked | left out |" with this
# file's counts (skipped when no source dir was given).
peers_check_docs() {
  [ -n "$source_dir" ] || return 0
  local want="| $peers_suite | \`${peers_commit:0:12}\` | $peers_rows | $((peers_checked)) | $peers_left_out |"
  if ! grep -Fq -- "$want" "$source_dir/docs/peers.md"; then
    peers_shape_error "docs/peers.md lacks the counts line '$want'"
  fi
}

peers_finish() {
  peers_row_done
  peers_check_docs
  echo "$peers_suite: $peers_rows rows, $peers_checked checked, $peers_left_out left out, $peers_failed failed"
  [ "$peers_failed" -eq 0 ] && [ "$peers_shape" -eq 0 ] && [ "$peers_checked" -gt 0 ]
  exit
}
