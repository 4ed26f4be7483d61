#!/usr/bin/env bash
# provpol extend with the Stratis, Docker and XenServer presets: each answer worked by hand from the
# system's code (stratisd 28d8d0757f87, moby 81359cecdf25, sm v1.15.1; the arithmetic next to each), and every option
# that means nothing to a preset refused with one line and exit 2.
. "$(dirname "$0")/lib.sh"

# --- stratis-data: extended when size - used < 15 GiB (thinpool.rs:1270), by min(backstore, 50 GiB) ----------------
# 100 GiB: 85 GiB used leaves exactly 15 GiB, not under it; one block more is.
expect_ok extend --preset stratis-data --physical 100GiB --allocation 85GiB --format csv
expect_stdout_line 2 '107374182400,87040,16106127360,16106127360,87041,0,0,107374182400,0,0,none'
expect_ok extend --preset stratis-data --physical 100GiB --used-blocks 87041 --format csv
expect_stdout_line 2 '107374182400,87041,16105078784,16106127360,87041,1,53687091200,161061273600,15360,0,extend'
# 20 GiB + 700 KiB in the backstore: 20480 whole 1 MiB blocks (rounded down), 120 GiB after.
expect_ok extend --preset stratis-data --physical 100GiB --used-blocks 90000 --backstore-free 21475552256 --format csv
expect_stdout ',21474836480,128849018880,15360,0,extend$'
# Half a block left: error_if_no_space; already in it: not tried.
expect_ok extend --preset stratis-data --physical 100GiB --used-blocks 90000 --backstore-free 512KiB --format csv
expect_stdout ',0,107374182400,15360,1,error-if-no-space$'
expect_ok extend --preset stratis-data --physical 100GiB --used-blocks 90000 --error-if-no-space --format csv
expect_stdout ',1,skipped$'

# --- stratis-metadata: doubled when free 4 KiB blocks are under the status's mark (thinpool.rs:1254, 1582) ---------
# 64 MiB = 16384 blocks; 15360 used leaves 1024, not under a mark of 1024; 15361 used is.
expect_ok extend --preset stratis-metadata --metadata-size 64MiB --metadata-used 60MiB --metadata-low-water 1024 --format csv
expect_stdout ',none$'
expect_ok extend --preset stratis-metadata --metadata-size 64MiB --metadata-used 62918656 --metadata-low-water 1024 --format csv
expect_stdout_line 2 '67108864,15361,1024,1,134217728,67108864,134217728,134217728,0,extend'
# The spare grows too: 2 x 64 MiB must be free, or the pool goes to error_if_no_space.
expect_ok extend --preset stratis-metadata --metadata-size 64MiB --metadata-used 63MiB --metadata-low-water 1024 --backstore-free 127MiB --format csv
expect_stdout ',1,error-if-no-space$'
# Capped at the data tier: 64 MiB doubled to no more than 100 MiB.
expect_ok extend --preset stratis-metadata --metadata-size 64MiB --metadata-used 63MiB --metadata-low-water 1024 --data-tier 100MiB --format csv
expect_stdout ',104857600,37748736,104857600,'

# --- stratis-filesystem: doubled when 2 x used > size (filesystem.rs:282), up to its limit (:348) --------------------
expect_ok extend --preset stratis-filesystem --physical 1TiB --allocation 512GiB --format csv
expect_stdout_line 2 '1099511627776,1099511627776,549755813888,0,0,1099511627776'
expect_ok extend --preset stratis-filesystem --physical 1TiB --allocation 600GiB --format csv
expect_stdout_line 2 '1099511627776,1099511627776,644245094400,1,1099511627776,2199023255552'
expect_ok extend --preset stratis-filesystem --physical 1TiB --allocation 600GiB --size-limit 1.25TiB --format csv
expect_stdout ',1,274877906944,1374389534720$'
expect_usage '^provpol extend: --size-limit must be at least 1TiB, got 1GiB$' extend --preset stratis-filesystem --physical 1TiB --allocation 1GiB --size-limit 1GiB

# --- the 3.1 line by version: stratis-3.3-data, stratis-3.7-metadata, stratis-3.1-filesystem are the current rules ----
expect_ok extend --preset stratis-3.3-data --physical 100GiB --used-blocks 87041 --format csv
expect_stdout_line 2 '107374182400,87041,16105078784,16106127360,87041,1,53687091200,161061273600,15360,0,extend'
expect_ok extend --preset stratis-3.7-metadata --metadata-size 64MiB --metadata-used 62918656 --metadata-low-water 1024 --format csv
expect_stdout_line 2 '67108864,15361,1024,1,134217728,67108864,134217728,134217728,0,extend'
expect_ok extend --preset stratis-3.1-filesystem --physical 1TiB --allocation 600GiB --format csv
expect_stdout_line 2 '1099511627776,1099511627776,644245094400,1,1099511627776,2199023255552'

# --- stratisd 3.0 (v3.0.4 thinpool.rs:574-640, filesystem.rs:242-286): greedy data, metadata at 1/1000 of the tier --
# A new pool on a 100 GiB tier (768 MiB of data; 816 MiB allocated, then 2 x 80 MiB of metadata): its first check
# gives the data device the 101424 MiB left; calc_lowater(0, 102192, 0) = 102192 - 2048 = 100144.
expect_ok extend --preset stratis-3.0-data --physical 768MiB --used-blocks 0 --backstore-free 101424MiB --format csv
expect_stdout_line 2 '805306368,0,805306368,106350772224,106350772224,107156078592,100144,1,extend'
# Half a block left: nothing; the mark is then 5% of the pool (5110 blocks of 102192), 1000 blocks free being less.
expect_ok extend --preset stratis-3.0-data --physical 102192MiB --used-blocks 101192 --backstore-free 512KiB --format csv
expect_stdout_line 2 '107156078592,101192,1048576000,524288,0,107156078592,5110,1,none'
# The metadata's target is 100 GiB / 512 / 1000 / 8 = 26214 blocks; 16 MiB is short by 86.4 MiB, asked as 80 MiB: of
# 50 MiB left the device gets 32 MiB (80 halved, down to 16 MiB) and its spare 16 MiB (of the 18 MiB then left).
expect_ok extend --preset stratis-3.0-metadata --metadata-size 16MiB --data-tier 100GiB --backstore-free 50MiB --format csv
expect_stdout_line 2 '16777216,107374182400,107372544,33554432,16777216,50331648,50331648,extend'
# A filesystem under 8 GiB free doubles; 3 of 10 GiB is under half, which the 3.1 line would leave alone.
expect_ok extend --preset stratis-3.0-filesystem --physical 10GiB --allocation 3GiB --format csv
expect_stdout_line 2 '10737418240,10737418240,3221225472,7516192768,8589934592,1,10737418240,21474836480'
expect_ok extend --preset stratis-filesystem --physical 10GiB --allocation 3GiB --format csv
expect_stdout ',0,0,10737418240$'
expect_ok extend --preset stratis-3.0-filesystem --physical 1TiB --allocation 1016GiB --format csv
expect_stdout ',0,0,1099511627776$'
expect_usage '^provpol extend: --size-limit does not apply to --preset stratis-3.0-filesystem: stratisd 3.0 has no filesystem size limit' extend --preset stratis-3.0-filesystem --physical 1TiB --allocation 1GiB --size-limit 2TiB
expect_usage '^provpol extend: --preset stratis-3.0-data needs --backstore-free' extend --preset stratis-3.0-data --physical 1GiB --used-blocks 1
expect_usage '^provpol extend: --error-if-no-space does not apply to --preset stratis-3.0-data' extend --preset stratis-3.0-data --physical 1GiB --used-blocks 1 --backstore-free 1GiB --error-if-no-space
expect_usage '^provpol extend: --preset stratis-3.0-metadata needs --metadata-size .* and --data-tier' extend --preset stratis-3.0-metadata --metadata-size 16MiB
expect_usage '^provpol extend: --metadata-low-water does not apply to --preset stratis-3.0-metadata$' extend --preset stratis-3.0-metadata --metadata-size 16MiB --data-tier 1TiB --metadata-low-water 10

# --- docker-devicemapper: lvm2 with Docker's profile, 80/20, 512 KiB chunks (device_setup.go:183-222) --------------
# 100 GiB = 204800 chunks; 80% is 163840 (not above), one more is: grow by 20% = 5120 extents of 4 MiB.
expect_ok extend --preset docker-devicemapper --physical 100g --used-blocks 163840 --format csv
expect_stdout ',none$'
expect_ok extend --preset docker-devicemapper --physical 100g --used-blocks 163841 --format csv
expect_stdout ',163841,204800,80.000488,80,20,20,5120,128849018880,'
# --threshold and --extend-percent are dm.thinp_autoextend_threshold and _percent as dockerd reads them
# (deviceset.go:2760-2777, device_setup.go:183-189): 0 is Docker's 80 and 20 (said on stderr), not lvm2's 0 (which
# would act as 50, and make every extend fail); above 100 dockerd refuses; a trailing % is read as dockerd trims it.
run extend --preset docker-devicemapper --physical 100g --used-blocks 163841 --threshold 0 --extend-percent 0 --format csv
checks=$((checks + 1))
{ [ "$status" -eq 0 ] && grep -q ',163841,204800,80.000488,80,20,20,5120,128849018880,' "$out" &&
  [ "$(wc -l <"$err")" -eq 2 ] && grep -q "^provpol extend: --threshold 0: dm.thinp_autoextend_threshold unset, Docker's default 80$" "$err" &&
  grep -q "^provpol extend: --extend-percent 0: dm.thinp_autoextend_percent unset, Docker's default 20$" "$err"; } ||
  fail "docker-devicemapper --threshold 0 --extend-percent 0: Docker's 80 and 20, said on stderr"
# 51% of 204800 chunks is 104448: one chunk more passes threshold 51 (lvm2 would read 0 as 50, passed at 102401).
expect_ok extend --preset docker-devicemapper --physical 100g --used-blocks 102401 --threshold 51 --format csv
expect_stdout ',none$'
expect_ok extend --preset docker-devicemapper --physical 100g --used-blocks 104449 --threshold 51% --extend-percent 100 --format csv
expect_stdout ',104449,204800,51.000488,51,100,100,25600,214748364800,'
expect_ok extend --preset docker-devicemapper --physical 100g --used-blocks 204800 --threshold 100 --format csv
expect_stdout ',100,100,20,0,0,107374182400,,,,,,0,disabled$'
expect_usage '^provpol extend: --threshold is dm.thinp_autoextend_threshold with --preset docker-devicemapper: it must be in \[0, 100\] \(dockerd refuses more\), got 101$' extend --preset docker-devicemapper --physical 100g --used-blocks 1 --threshold 101
expect_usage '^provpol extend: --extend-percent is dm.thinp_autoextend_percent with --preset docker-devicemapper: it must be in \[0, 100\] \(dockerd refuses more\), got 4294967296$' extend --preset docker-devicemapper --physical 100g --used-blocks 1 --extend-percent 4294967296
expect_usage '^provpol extend: --threshold' extend --preset docker-devicemapper --physical 100g --used-blocks 1 --threshold -1

# --- xenserver-thin-lvhd: sm's quantum, a new VDI's LV, the host's free pool -----------------------------------------
# 1 TiB SR: 1099511627776 / 10000 = 109951162 (104 MiB for tapdisk); host pool 0.5% = 5242.88 -> 5242, half 2621.
# xenvmd tops the host's free LV up by the quantum in whole 4 MiB extents (freepool.ml:87, Int64.div): 5240 MiB.
expect_ok extend --preset xenserver-thin-lvhd --physical 1TiB --format csv
expect_stdout_line 2 '1099511627776,109951162,104,5242,2621,5240'
# A 1 GiB request is cut to 1 TiB / 4000 = 274877906.
expect_ok extend --preset xenserver-thin-lvhd --physical 1TiB --quantum 1GiB --format csv
expect_stdout_line 2 '1099511627776,274877906,262,5242,2621,5240'
# 34 GiB: 34 x 1024 x 0.005 = 174.08 -> 174 MiB, mark 87; a top-up adds 43 extents, 172 MiB.
expect_ok extend --preset xenserver-thin-lvhd --physical 34GiB --format csv
expect_stdout_line 2 '36507222016,16777216,16,174,87,172'
# A 10 GiB VDI starts at 8 MiB (its metadata for 2 TiB, 4329472 bytes, up to 4 MiB), or its initial allocation.
expect_ok extend --preset xenserver-thin-lvhd --physical 1TiB --capacity 10GiB --format csv
expect_stdout ',10737418240,10737418240,0,8388608,10766778368$'
expect_ok extend --preset xenserver-thin-lvhd --physical 1TiB --capacity 10GiB --initial-allocation 200MiB --format csv
expect_stdout ',10737418240,10737418240,209715200,209715200,10766778368$'
# LVHDVDI.create (LVHDSR.py:1687-1694) raises the size to 2 MiB and rounds it up to 2 MiB before sizing the LV: 1 byte
# is a 2 MiB VDI; 2 MiB + 1 a 4 MiB one, whose full LV (4 MiB + 4329472 + 8 KiB, up to 4 MiB) is 12 MiB.
expect_ok extend --preset xenserver-thin-lvhd --physical 1TiB --capacity 1 --initial-allocation 1TiB --format csv
expect_stdout ',1,2097152,1099511627776,8388608,8388608$'
expect_ok extend --preset xenserver-thin-lvhd --physical 1TiB --capacity 2097153 --initial-allocation 1TiB --format csv
expect_stdout ',2097153,4194304,1099511627776,12582912,12582912$'
# MAX_VDI_SIZE_MB 2093051, in whole MiB: 2093052 MiB - 1 byte passes (and is rounded up to 2093052 MiB); one more
# byte, or 2 TiB, is refused.
expect_ok extend --preset xenserver-thin-lvhd --physical 4TiB --capacity 2194724093951 --format csv
expect_stdout ',2194724093951,2194724093952,0,8388608,2199019061248$'
expect_usage '^provpol extend: --capacity must be in \[0, 2194724093951\], got 2093052MiB: sm refuses a VDI whose size in whole MiB is above MAX_VDI_SIZE_MB, 2093051$' extend --preset xenserver-thin-lvhd --physical 4TiB --capacity 2093052MiB
expect_usage '^provpol extend: --capacity must be in \[0, 2194724093951\], got 2TiB' extend --preset xenserver-thin-lvhd --physical 4TiB --capacity 2TiB

# --- options that mean nothing to a preset ---------------------------------------------------------------------------
expect_usage '^provpol extend: --chunk does not apply to --preset stratis-data$' extend --preset stratis-data --physical 1GiB --allocation 1GiB --chunk 1GiB
expect_usage '^provpol extend: --quantum belongs to the Stratis and XenServer presets' extend --preset vdsm-2022 --capacity 1GiB --physical 1GiB --allocation 1GiB --quantum 1GiB
expect_usage '^provpol extend: --backstore-free belongs to the Stratis and XenServer presets' extend --preset docker-devicemapper --physical 100g --used-blocks 1 --backstore-free 1GiB
expect_usage '^provpol extend: --metadata-size does not apply to --preset stratis-data$' extend --preset stratis-data --physical 1GiB --allocation 1GiB --metadata-size 1GiB
expect_usage '^provpol extend: --allocation does not apply to --preset xenserver-thin-lvhd$' extend --preset xenserver-thin-lvhd --physical 1TiB --allocation 1GiB
expect_usage '^provpol extend: --initial-allocation sizes a new VDI' extend --preset xenserver-thin-lvhd --physical 1TiB --initial-allocation 1GiB
expect_usage '^provpol extend: give --allocation .* or --used-blocks' extend --preset stratis-data --physical 1GiB
expect_usage '^provpol extend: --preset stratis-metadata needs --metadata-size' extend --preset stratis-metadata
finish
