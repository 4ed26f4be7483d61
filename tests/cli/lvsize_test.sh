#!/usr/bin/env bash
# provpol lvsize and extend --drive-type/--replica-type: the columns, hand-worked sizes (VDSM's rules as
# docs/extend.md states them) and bad input: one line on stderr, exit 2, naming the option.
. "$(dirname "$0")/lib.sh"

# new: sparse cow without an initial size is min(chunk, capacity): 2.5 GiB of 10 GiB.
expect_ok lvsize --for new --capacity 10GiB --format csv
expect_stdout_line 1 'for,volume_format,capacity,preallocation,initial_size,volume_capacity,max_size,alloc_size,lv_size'
expect_stdout_line 2 'new,cow,10737418240,sparse,0,10737418240,11811160064,2684354560,2684354560'
# raw defaults to preallocated: the capacity, 1 MiB + 1 -> 4 KiB -> 2 MiB -> one 128 MiB extent.
expect_ok lvsize --for new --volume-format raw --capacity 1048577 --format csv
expect_stdout_line 2 'new,raw,1048577,preallocated,0,1052672,1048577,1048577,134217728'
# optimal: an internal 1023 MiB volume rounds to 1 GiB; a leaf adds the chunk (JSON flags are booleans).
expect_ok lvsize --for optimal --internal --capacity 2GiB --actual 1023MiB --format json
expect_stdout '"optimal_size": 1073741824'
expect_stdout '"leaf": false'
# merge: an internal merge needs no chunk; required == current commits.
expect_ok lvsize --for merge --internal --capacity 10GiB --current 4GiB --required 4GiB --format csv
expect_stdout ',commit,0,0,0$'
expect_ok lvsize --for merge --drive-type file --capacity 10GiB --current 4GiB --required 8GiB --format csv
expect_stdout ',not-chunked,0,0,0$'
# resize: sparse cow is skipped, a smaller capacity refused with both options named.
expect_ok lvsize --for resize --capacity 3GiB --new-capacity 5GiB --format csv
expect_stdout ',sparse-cow,0$'
expect_usage '^provpol lvsize: --new-capacity \(2GiB\) must be at least --capacity \(3GiB\)$' \
  lvsize --for resize --volume-format raw --capacity 3GiB --new-capacity 2GiB

# Bad input.
expect_usage '^provpol lvsize: --for is required' lvsize --capacity 1GiB
expect_usage "^provpol lvsize: --for: unknown value 'old'" lvsize --for old --capacity 1GiB
expect_usage '^provpol lvsize: --for new needs --capacity$' lvsize --for new
expect_usage '^provpol lvsize: --initial-size must be in \[0, 1.125GiB\], got 2GiB$' \
  lvsize --for new --capacity 1GiB --initial-size 2GiB
expect_usage '^provpol lvsize: --initial-size: an initial size is not supported for raw volumes' \
  lvsize --for new --volume-format raw --capacity 1GiB --initial-size 1MiB
expect_usage '^provpol lvsize: --initial-size must be at least 1 byte' lvsize --for new --capacity 1GiB --initial-size 0
expect_usage '^provpol lvsize: --actual must be at least 1, got 0$' \
  lvsize --for optimal --internal --capacity 1GiB --actual 0
expect_usage '^provpol lvsize: --actual does not apply to --for new' lvsize --for new --capacity 1GiB --actual 1GiB
expect_usage '^provpol lvsize: --chunk does not apply to --for resize' \
  lvsize --for resize --capacity 1GiB --new-capacity 2GiB --chunk 1GiB
expect_usage "^provpol lvsize: --volume-format: unknown value 'qcow2'" lvsize --for new --capacity 1GiB --volume-format qcow2
expect_usage '^provpol lvsize: --extent' lvsize --for new --capacity 1GiB --extent 3MiB
expect_usage '^provpol lvsize: --preset' lvsize --for new --capacity 1GiB --preset lvm-thin-autoextend

# extend: a drive VDSM does not extend; a file drive copying to block cow is decided on the replica (chunk doubled:
# 7.5 GiB - 4 GiB = 3.5 GiB).
expect_ok extend --capacity 10GiB --physical 1GiB --allocation 1GiB --drive-type block-raw --format csv
expect_stdout_line 2 'block-raw,,0,not-chunked'
expect_ok extend --capacity 10GiB --physical 7.5GiB --allocation 1GiB --drive-type file --replica-type block-cow --format csv
expect_stdout '^10737418240,8053063680,1073741824,5368709120,4294967296,3758096384,'
expect_usage '^provpol extend: --replica-type: VDSM cannot replicate to a network drive$' \
  extend --capacity 10GiB --physical 1GiB --allocation 1GiB --replica-type network
expect_usage "^provpol extend: --drive-type: unknown value 'nfs'" \
  extend --capacity 10GiB --physical 1GiB --allocation 1GiB --drive-type nfs
expect_usage '^provpol extend: --drive-type applies to VDSM drives, not LVM$' \
  extend --preset lvm-thin-autoextend --physical 4GiB --allocation 1GiB --drive-type file
finish
