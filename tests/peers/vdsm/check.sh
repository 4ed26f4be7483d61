#!/usr/bin/env bash
# The ctest peers.vdsm (tests/peers/README.md): asks provpol every check row of cases.csv, VDSM's own test cases,
# and compares the row's output column with VDSM's expected value.
#   check.sh path/to/provpol path/to/cases.csv [source dir]
. "$(dirname "$0")/../lib.sh"
peers_begin vdsm "$@"
while peers_next_row; do
  # shellcheck disable=SC2086  # the row's command line, split as a shell would
  peers_ask $c_command --format csv
  if [ "$peers_status" -ne 0 ]; then
    peers_fail "provpol $c_command exited $peers_status: $peers_err"
    continue
  fi
  peers_csv_rows
  if [ "$c_field" = chunked ]; then
    # extend answers a drive VDSM does not extend with one not-chunked row; any other answer is a decision.
    got=1
    [ "${out_action_1:-}" != not-chunked ] || got=0
  else
    name="out_${c_field}_1"
    got=${!name-<no column $c_field>}
  fi
  peers_expect "$c_field ($c_expression)" "$c_expected" "$got"
done
peers_finish
