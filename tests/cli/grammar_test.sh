#!/usr/bin/env bash
# One grammar for help and mistakes: every subcommand takes -h and --help, `provpol help CMD` prints exactly
# what `provpol CMD --help` prints, --version prints the version, and an unknown option, command or name that
# is close to a known one says which ("did you mean --rate?"), still on one line with exit status 2.
. "$(dirname "$0")/lib.sh"

commands=$("$PROVPOL" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 {print $1}')
checks=$((checks + 1))
[ "$(printf '%s\n' $commands | wc -l)" -ge 7 ] || fail "provpol --help lists the commands"
for c in $commands; do
  expect_ok "$c" --help
  cp "$out" "$scratch/long"
  checks=$((checks + 1))
  grep -q "^usage: provpol $c" "$scratch/long" || fail "provpol $c --help starts with its usage"
  for form in "$c -h" "help $c" "$c --format csv -h" "$c --no-such-flag --help"; do
    # shellcheck disable=SC2086
    expect_ok $form
    checks=$((checks + 1))
    cmp -s "$out" "$scratch/long" || fail "provpol $form differs from provpol $c --help"
  done
done
expect_ok --help
cp "$out" "$scratch/top"
for form in -h help "help -h" "help --help"; do
  # shellcheck disable=SC2086
  expect_ok $form
  checks=$((checks + 1))
  cmp -s "$out" "$scratch/top" || fail "provpol $form differs from provpol --help"
done
expect_stdout '--version'
expect_ok --version
expect_stdout '^provpol [0-9]+\.[0-9]+\.[0-9]+$'
checks=$((checks + 1))
[ "$(wc -l <"$out")" -eq 1 ] || fail "--version prints one line"

# Mistakes: one line, exit 2, and the close name when there is one.
# One name per concept: --rate everywhere, the old --rates an alias of it, a list wherever a command
# answers for several.
expect_ok plan --rate 100MiB/s,200MiB/s --runs 2 --write 1GiB --format csv
cp "$out" "$scratch/rate.csv"
expect_ok plan --rates 100MiB/s,200MiB/s --runs 2 --write 1GiB --format csv
checks=$((checks + 1)); cmp -s "$out" "$scratch/rate.csv" || fail "plan --rates is not --rate"
expect_usage "^provpol plan: --rate: invalid value .100MB/S.: expected a rate" plan --rates 100MB/S
expect_ok plan --help
expect_stdout '^  --rate LIST .*\(also --rates\)$'
expect_usage "unknown option '--capcity' \(did you mean --capacity\?\)" extend --capcity 1GiB
expect_usage "unknown option '--Format' \(did you mean --format\?\)" logsize --size 1GiB --Format csv
expect_usage "unknown option '--min-log-block' \(did you mean --min-log-blocks\?\)" logsize --size 1GiB --min-log-block 1
expect_usage "unknown option '--max-pause-prob' \(did you mean --max-pause-probability\?\)" recommend --max-pause-prob 1
expect_usage "unexpected argument '-capacity' \(did you mean --capacity\?\)" extend -capacity 1GiB
expect_usage "^provpol extend: unknown option '--no-such-flag' \(see provpol extend --help\)$" extend --no-such-flag
expect_usage "^provpol: unknown command 'extnd' \(did you mean extend\?\)$" extnd
expect_usage "^provpol: unknown command 'recomend' \(did you mean recommend\?\)$" recomend --rate 1MiB/s
expect_usage "^provpol: unknown command 'frobnicate' \(see provpol --help\)$" frobnicate
expect_usage "^provpol: help: unknown command 'extnd' \(did you mean extend\?\)$" help extnd
expect_usage "^provpol: help takes one command" help extend plan
expect_usage "^provpol: unknown option '--verison' \(did you mean --version\?\)$" --verison
expect_usage "^provpol: a command is needed \(see provpol --help\)$"
expect_usage "^provpol: __man takes no arguments$" __man extend
# Names from the registries: the one-line error keeps the list and adds the close name.
expect_usage "^provpol chunk: --preset: unknown value 'xapi_redo_log': expected one of .*xapi-redo-log-2010, xapi-redo-log, .* \(did you mean xapi-redo-log\?\)$" chunk --preset xapi_redo_log
expect_usage "expected one of vdsm-2022, .* \(did you mean vdsm-2022\?\)$" extend --preset vdsm2022 --capacity 1GiB --sequence
expect_usage "\(did you mean vdsm-legacy\?\)$" plan --preset VDSM_Legacy
expect_usage "\(did you mean xfsprogs-6.1\?\)$" logsize --size 1GiB --preset xfsprogs_6.1
expect_usage "^provpol plan: --latency: unknown value 'vdsm-poling-2022': expected one of .*fixed:SECONDS, samples:FILE, vdsm-log:FILE, flow:FILE \(did you mean vdsm-polling-2022\?\)$" plan --latency vdsm-poling-2022
expect_usage "\(did you mean json\?\)$" extend --format jsn --capacity 1GiB --sequence
# No guess when nothing is close, or two names are equally close.
expect_usage "^provpol extend: --preset: unknown value 'zfs': expected one of vdsm-2022, vdsm-legacy, lvm-thin-autoextend, lvm-thin-default, lvm-vdo-autoextend, lvm-snapshot-autoextend, stratis-data, stratis-metadata, stratis-filesystem, stratis-3.0-data, stratis-3.0-metadata, stratis-3.0-filesystem, stratis-3.3-data, stratis-3.7-metadata, stratis-3.1-filesystem, docker-devicemapper, xenserver-thin-lvhd$" extend --preset zfs --capacity 1GiB --sequence
expect_usage "expected one of [^(]*$" plan --latency vdsm-polling
expect_usage "unknown option '--max-pause' \(see provpol recommend --help\)$" recommend --max-pause 1
finish
