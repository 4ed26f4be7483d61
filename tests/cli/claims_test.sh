#!/usr/bin/env bash
# Issue 24's CLI findings, each a case that failed before its fix: a crash, errors naming the wrong option or
# unit, and answers that were wrong or silently vacuous. Every bad input: exit 2, one line on stderr.
. "$(dirname "$0")/lib.sh"

# Item 1: a latency longer than the rate-aware budget's hour aborted (bad_result_access, exit 134) with a
# per-VM target; without it, the error named --budget (recommend has none) in milliseconds.
expect_usage '^provpol recommend: --latency: .*4000 s.*3600 s' \
  recommend --rate 100MiB/s --policy rate-aware --max-pauses-per-run 1 --latency fixed:4000 --runs 2
expect_usage '^provpol recommend: --latency: .*4000 s.*3600 s' \
  recommend --rate 100MiB/s --policy rate-aware --latency fixed:4000 --runs 1
expect_usage '^provpol recommend: --latency: .*3600 s' \
  recommend --rate 100MiB/s --policy rate-aware --latency fixed:3600.5 --runs 0
expect_usage '^provpol plan: --latency: .*4000 s.*3600 s' \
  plan --latency fixed:4000 --policy rate-aware --runs 1 --rates 100MiB/s --write 1GiB
# The budget at the limit itself is accepted.
expect_ok recommend --rate 100MiB/s --policy rate-aware --latency fixed:3600 --runs 0

# Item 8: a latency of 0 meets the target at any rate, not "up to 17592186044416.0 MiB/s".
expect_ok recommend --rate 100MiB/s --latency fixed:0 --runs 0
expect_stdout 'meets the target at any rate'
checks=$((checks + 1))
! grep -q '17592186044416' "$out" || fail "a saturated rate printed as a limit"

# Item 8: a configuration whose new disk holds the whole write simulates no extend: the check passed vacuously.
expect_usage '^provpol recommend: .*new disk.*--write' recommend --rate 1000MiB/s --percent 95 --runs 2
expect_usage '^provpol recommend: .*new disk.*--write' recommend --rate 100MiB/s --write 5GiB --percent 90 --runs 2

# Item 8: the limit on hosts x drives names both options, not --drives-per-host alone.
expect_usage '^provpol plan: --hosts x --drives-per-host: at most 1000000 drives, got 1200000' \
  plan --hosts 2000 --drives-per-host 600 --runs 1

finish
