#!/usr/bin/env bash
# provpol extend: outputs against VDSM's vectors (from the issue), CSV in and out, and bad input.
. "$(dirname "$0")/lib.sh"

header='capacity,physical,allocation,chunk,limit,block_threshold,needs_extend,improbable_allocation,max_size,can_extend,next_size,lv_size_after_extend,next_block_threshold,max_size_storage,initial_size,action'

# capacity 10 GiB, physical 5 GiB: threshold 3 GiB, next 7.5 GiB (8053063680); max 11811160064.
expect_ok extend --capacity 10GiB --physical 5GiB --allocation 0 --format csv
expect_stdout_line 1 "$header"
expect_stdout_line 2 "10737418240,5368709120,0,2684354560,2147483648,3221225472,0,0,11811160064,1,8053063680,8053063680,5905580032,11811160064,2684354560,none"
# Replicating: the chunk doubles, threshold 1 GiB.
expect_ok extend --capacity 10GiB --physical 5GiB --allocation 0 --replicating --format csv
expect_stdout '^10737418240,5368709120,0,5368709120,4294967296,1073741824,'
# Legacy: 8 GiB capacity, 2 GiB LV -> next 3 GiB; physical 4 GiB -> threshold 3.5 GiB.
expect_ok extend --preset vdsm-legacy --capacity 8GiB --physical 2GiB --allocation 0 --format csv
expect_stdout ',3221225472,3221225472,[0-9]+,[0-9]+,1073741824,none$'
expect_ok extend --preset vdsm-legacy --capacity 8GiB --physical 4GiB --allocation 0 --format csv
expect_stdout '^8589934592,4294967296,0,1073741824,536870912,3758096384,'
# Chunk and percent override the preset; 22 GiB capacity at its maximum.
expect_ok extend --chunk 2560MiB --percent 20 --capacity 22GiB --physical 22GiB --allocation 22GiB --format csv
expect_stdout ',25984761856,1,25984761856,26038239232,'
# CSV and JSON carry the action: 5 GiB free of a 2 GiB limit is none; an allocation above the next size pauses.
expect_ok extend --capacity 10GiB --physical 5GiB --allocation 8053063681 --format json
expect_stdout '"action": "pause-improbable"'
expect_ok extend --capacity 10GiB --physical 11GiB --allocation 0
expect_stdout 'action +at-maximum'
# An LV above the maximum (128 MiB disk, maximum 141 MiB, LV 256 MiB): VDSM's getNextVolumeSize() is 141 MiB
# (147849216), below the LV; an allocation one byte above it pauses the VM (thinp.py's _drive_needs_extend runs
# before _can_extend_drive), one at it does not; next_size stays at the LV (no request at the maximum).
expect_ok extend --capacity 128MiB --physical 256MiB --allocation 147849217 --format csv
expect_stdout '^134217728,268435456,147849217,2684354560,2147483648,1,1,1,147849216,0,268435456,268435456,[0-9]+,[0-9]+,[0-9]+,pause-improbable$'
expect_ok extend --capacity 128MiB --physical 256MiB --allocation 147849216 --format csv
expect_stdout ',1,0,147849216,0,268435456,268435456,[0-9]+,[0-9]+,[0-9]+,at-maximum$'
expect_ok extend --preset vdsm-legacy --capacity 128MiB --physical 256MiB --allocation 147849217 --replicating --format csv
expect_stdout ',pause-improbable$'

# --input: header row, extra columns ignored, CRLF accepted, one output row per input row.
printf 'name,capacity,physical,allocation\r\nvda,10737418240,5368709120,0\r\nvdb,1073741824,1073741824,1073741824\r\n' >"$scratch/in.csv"
expect_ok extend --input "$scratch/in.csv" --format csv
expect_stdout_line 1 "$header"
expect_stdout_line 2 "10737418240,5368709120,0,2684354560,2147483648,3221225472,0,0,11811160064,1,8053063680,8053063680,5905580032,11811160064,2684354560,none"
checks=$((checks + 1)); [ "$(wc -l <"$out")" -eq 3 ] || fail "--input: expected 3 output lines"

# --sequence: a 10 GiB disk goes 2.5, 5, 7.5, 10, 11 GiB.
expect_ok extend --capacity 10GiB --sequence --format csv
expect_stdout_line 2 "0,2684354560,536870912,5368709120,5368709120,extend"
expect_stdout_line 6 "4,11811160064,9663676416,,,at-maximum"

# Bad input: exit 2, one line, nothing on stdout.
expect_usage 'volume_utilization_percent|--percent must be in \[0, 99\], got 120' extend --percent 120 --capacity 1GiB --physical 1GiB --allocation 0
expect_usage '--chunk is given more than once' extend --chunk 1.5GiB --capacity 1GiB --physical 1GiB --allocation 1 --chunk 3
expect_usage '--chunk must be a multiple of 1MiB' extend --chunk 1048577 --capacity 1GiB --physical 1GiB --allocation 0
expect_usage 'unknown unit' extend --capacity 5G --physical 1 --allocation 1
expect_usage 'needs all of' extend --capacity 1GiB --physical 1GiB
expect_usage 'unknown option' extend --capacity 1GiB --physical 1GiB --allocation 0 --frobnicate
expect_usage 'unknown value' extend --preset vdsm-2023 --capacity 1GiB --physical 1GiB --allocation 0
expect_usage 'has no column .allocation.' extend --input <(printf 'capacity,physical\n1,1\n')
printf 'capacity,physical,allocation\n1,1,1\n1,-5,1\n' >"$scratch/bad.csv"
expect_usage 'bad.csv:3: column .physical.: invalid value .-5.' extend --input "$scratch/bad.csv"
expect_usage 'cannot open' extend --input "$scratch/missing.csv"
expect_usage 'too large' extend --capacity 18446744073709551616 --physical 1 --allocation 1
finish
