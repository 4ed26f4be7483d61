#!/usr/bin/env bash
# Hostile input to every provpol subcommand: each option that takes a value gets a catalogue of bad values, and
# every subcommand gets unknown flags, missing values, stray arguments and hostile files. Every case must exit
# 2 with exactly one line on stderr naming the problem, print nothing on stdout, not crash and not hang.
#   hostile_test.sh PROVPOL [K/N]: with K/N, part K of N: the subcommand cases whose index is K - 1 modulo N (and
#   the checks after them in part 1), so that ctest runs the parts side by side (cli.hostile.1, cli.hostile.2).
part=${2:-1/1}
part_k=${part%/*} part_n=${part#*/}
[[ "$part_k" =~ ^[1-9][0-9]*$ && "$part_n" =~ ^[1-9][0-9]*$ && part_k -le part_n ]] || {
  echo "hostile_test.sh: part must be K/N with 1 <= K <= N, got '$part'" >&2
  exit 2
}
. "$(dirname "$0")/lib.sh"

long=$(head -c 100000 /dev/zero | tr '\0' '9')
bad_values=("-1" "1e400" "18446744073709551616" "NaN" "-0" "" "5 GB" "abc" $'\x01\xff\xfe' "1.5.5" "0x10" "--" "$long")

# subcommand | base arguments (valid) | options that take a value
cases=(
  "extend|--capacity 10GiB --physical 5GiB --allocation 1GiB|--capacity --physical --allocation --chunk --percent --extent --preset --format"
  "extend|--input /dev/null|--input"
  "extend|--preset lvm-thin-autoextend --capacity 1TiB --physical 100GiB --allocation 1GiB|--threshold --extend-percent"
  "plan|--runs 1 --rate 100MiB/s --write 1GiB|--preset --chunk --latency --rate --write --capacity --runs --seed --format --policy --budget --budget-quantile --svg-metric --max-events --jobs"
  "plan|--runs 1 --rate 100MiB/s --write 1GiB --chunk 1GiB|--percent"
  "plan|--hosts 1 --drives-per-host 2 --runs 1 --rate 100MiB/s --write 1GiB|--hosts --drives-per-host --writers --stagger --burst"
  "plan|--hosts 1 --drives-per-host 2 --runs 1|--trace"
  "recommend|--rate 100MiB/s --runs 0|--rate --max-pause-probability --latency --percent --runs --seed --format --policy --write --max-events"
  "recommend|--rate 100MiB/s --runs 2 --write 1GiB|--max-pauses-per-run --vm-quantile"
  "recommend|--rate 100MiB/s --runs 0 --policy rate-aware --percent 50|--preset --chunk"
  "capacity|--hosts 1 --drives-per-host 2 --rate 100MiB/s --max-pauses-per-run 1 --write 1GiB|--rate --max-pauses-per-run --vm-quantile --hosts --drives-per-host --policy --preset --latency --write --runs --seed --max-events --jobs --format"
  "latency|--profile vdsm-immediate|--profile --vdsm-log --format"
  "chunk|--logical-block-size 512|--preset --logical-block-size --physical-block-size --minimum-io --optimal-io --max-io --dio-align --path --samples --target-fraction --format"
  "chunk|--samples /dev/null --deadline 2 --bytes 1MiB|--deadline --bytes"
  "logsize|--size 220GiB|--size --preset --block-size --sector-size --agcount --agsize --su --sw --log-su --features --min-log-blocks --format"
  "calibrate|--path /tmp --bytes 1MiB --runs 1 --sizes 4KiB|--path --sizes --bytes --runs --mode --target-fraction --format"
)
# (calibrate's --save-samples is an output file name: any text is a valid name, so it has no bad values.)

# with_option <base...> -- <option> <value>: the base arguments with <option> replaced by (or added as) <value>.
for i in "${!cases[@]}"; do
  [ $((i % part_n)) -eq $((part_k - 1)) ] || continue
  IFS='|' read -r cmd base options <<<"${cases[$i]}"
  read -r -a base_args <<<"$base"
  read -r -a opts <<<"$options"
  for opt in "${opts[@]}"; do
    for v in "${bad_values[@]}"; do
      args=()
      skip=0
      for a in "${base_args[@]}"; do
        if [ $skip -eq 1 ]; then skip=0; continue; fi
        if [ "$a" = "$opt" ]; then skip=1; continue; fi
        args+=("$a")
      done
      expect_usage '.' "$cmd" "${args[@]}" "$opt" "$v"
    done
    expect_usage 'needs a value' "$cmd" "${base_args[@]}" "$opt"   # the value is missing at the end
  done
  expect_usage "unknown option '--no-such-flag'" "$cmd" "${base_args[@]}" --no-such-flag
  expect_usage "unexpected argument 'stray'" "$cmd" "${base_args[@]}" stray
  expect_usage 'unknown option' "$cmd" "${base_args[@]}" "--$(printf '\x01\x02')"
done
[ "$part_k" -eq 1 ] || finish
expect_usage "unknown command 'frobnicate'" frobnicate
expect_usage "unknown command" $'\xff\xfe'

# Hostile CSV input to provpol extend --input.
printf 'capacity,physical\n1,1\n' >"$scratch/missing.csv"
expect_usage "has no column 'allocation'" extend --input "$scratch/missing.csv"
printf 'capacity,physical,allocation\n1,1\n' >"$scratch/short.csv"
expect_usage 'has 2 fields, the header has 3' extend --input "$scratch/short.csv"
head -c 4096 /dev/urandom >"$scratch/garbage.csv"
printf '\0' >>"$scratch/garbage.csv"
expect_usage '.' extend --input "$scratch/garbage.csv"
printf 'capacity,physical,allocation\n1,1,"1\n' >"$scratch/quote.csv"
expect_usage 'unterminated quoted field' extend --input "$scratch/quote.csv"
expect_usage "cannot open '$scratch/none.csv'" extend --input "$scratch/none.csv"
expect_usage "cannot open" extend --input "$scratch"
expect_usage "empty file" extend --input /dev/null
# A 1 GB line (streamed, never stored): refused after 64 KiB.
expect_usage 'line longer than 65536 bytes' extend --input <(yes a | tr -d '\n' | head -c 1073741824)
# Extra columns and CRLF line ends are fine.
printf 'vm,capacity,physical,allocation,note\r\nvm1,10GiB,5GiB,0,x\r\n' >"$scratch/extra.csv"
expect_ok extend --input "$scratch/extra.csv" --format csv
expect_stdout '^10737418240,5368709120,0,'
# Hostile traces to provpol plan --hosts --trace: binary, a 1 GB line (streamed, refused after 64 KiB).
expect_usage '.' plan --hosts 1 --drives-per-host 2 --trace "$scratch/garbage.csv"
expect_usage 'line longer than 65536 bytes' plan --hosts 1 --drives-per-host 2 --trace <(yes a | tr -d '\n' | head -c 1073741824)
# A latency samples file that is binary, or empty.
head -c 2048 /dev/urandom >"$scratch/lat.bin"
expect_usage '.' plan --runs 1 --latency "samples:$scratch/lat.bin"
: >"$scratch/empty.txt"
expect_usage 'has no samples' plan --runs 1 --latency "samples:$scratch/empty.txt"
finish
