#!/usr/bin/env bash
# Defaults documented = defaults used. Every subcommand's --help is parsed for the defaults it documents, and
# each one that is a value is checked: the command with the option left out prints the same as with the option
# given that value. The forms help uses, inside an option's parentheses:
#   "(default V)", "(default V: why)", "(default V, or ...)"   and   "V (default)", "V (default: why)"
#       (so a default that is prose is written otherwise: "(twice --write by default)")
#       a default that holds in the plain invocation (the first base below);
#   "(...; with --opt X, default V)", "(with --opt, default V)"
#       a default under a condition, checked in every base that has --opt (X).
# A default that is not one value ("default: all", "default twice --write") is prose and is not checked.
. "$(dirname "$0")/lib.sh"

printf 'block_size,mb_per_s\n4096,50\n65536,400\n1048576,900\n4194304,910\n' >"$scratch/samples.csv"
mkdir -p "$scratch/cal"
# subcommand | arguments: the first base of each subcommand is its plain invocation; the others hold conditions.
bases=(
  "extend|--capacity 10GiB --physical 5GiB --allocation 4GiB"
  "extend|--capacity 10GiB --physical 5GiB --allocation 4GiB --preset vdsm-legacy"
  "extend|--capacity 100GiB --physical 50GiB --allocation 40GiB --preset lvm-thin-autoextend"
  "extend|--physical 4GiB --allocation 3500MiB --preset lvm-vdo-autoextend"
  "lvsize|--for new --capacity 10GiB"
  "lvsize|--for new --capacity 10GiB --preset vdsm-legacy"
  "lvsize|--for merge --capacity 10GiB --current 4GiB --required 3GiB"
  "extend|--capacity 10GiB --sequence"
  "plan|--rate 400MiB/s --write 5GiB --runs 20"
  "plan|--rate 400MiB/s --write 5GiB --runs 20 --policy rate-aware"
  "plan|--rate 400MiB/s --write 5GiB --runs 20 --format svg"
  "plan|--rate 400MiB/s --write 5GiB --hosts 2 --drives-per-host 2"
  "recommend|--rate 400MiB/s --write 5GiB --runs 20"
  "recommend|--rate 400MiB/s --write 5GiB --runs 20 --policy rate-aware"
  "recommend|--rate 400MiB/s --write 5GiB --runs 20 --max-pauses-per-run 3"
  "recommend|--rate 400MiB/s --write 5GiB --max-pauses-per-run 1 --hosts 2 --drives-per-host 2"
  "capacity|--hosts 2 --drives-per-host 3 --rate 400MiB/s --write 5GiB --max-pauses-per-run 1"
  "capacity|--hosts 2 --drives-per-host 3 --rate 400MiB/s --write 5GiB --max-pauses-per-run 1 --policy rate-aware"
  "chunk|--logical-block-size 512"
  "chunk|--logical-block-size 512 --samples $scratch/samples.csv"
  "logsize|--size 220GiB"
  "latency|--profile vdsm-polling-2022"
  "calibrate|--path $scratch/cal --bytes 4MiB --runs 1 --sizes 64KiB,1MiB --format csv"
)

# calibrate measures: compare what its options decide (sizes, bytes, runs, mode, fraction), not the timings.
normalize() {
  if [ "$1" != calibrate ]; then cat; return; fi
  awk -F, 'NR == 1 && /^chunk_size,/ {csv = 1; for (i = 1; i <= NF; i++) col[$i] = i}
           csv {print $col["bytes"], $col["runs"], $col["mode"], $col["target_fraction"]; next}
           {split($0, w, " "); print w[1]}'
}

# run_norm <cmd> <args...>: runs provpol; status and normalized stdout in $status and $scratch/<n>.
tested=0
compare() {  # compare <cmd> <option> <value> <base args...>
  local cmd=$1 opt=$2 val=$3
  shift 3
  local args=() skip=0 a
  for a in "$@"; do  # the base without the option
    if [ $skip -eq 1 ]; then skip=0; continue; fi
    if [ "$a" = "$opt" ]; then skip=1; continue; fi
    args+=("$a")
  done
  checks=$((checks + 1))
  tested=$((tested + 1))
  run "$cmd" "${args[@]}"
  local s1=$status
  normalize "$cmd" <"$out" >"$scratch/without"
  run "$cmd" "${args[@]}" "$opt" "$val"
  local s2=$status
  normalize "$cmd" <"$out" >"$scratch/with"
  echo "provpol $cmd ${args[*]} [$opt $val]"
  # The same answer, exit status included: 0, or 3 when the answer misses its (default) target.
  if [ "$s1" -ne "$s2" ] || { [ "$s1" -ne 0 ] && [ "$s1" -ne 3 ]; } || ! cmp -s "$scratch/without" "$scratch/with"; then
    failures=$((failures + 1))
    echo "FAIL: provpol $cmd ${args[*]}: leaving $opt out (exit $s1) differs from $opt $val (exit $s2), its documented default" >&2
    diff "$scratch/without" "$scratch/with" | head -6 >&2
    head -c 300 "$err" >&2
  fi
}

# V (default) / V (default: why)
word_default_re='([^ (,]+) [(]default[):]'
# (default V / ; with --opt X, default V / (with --opt, default V  -- V ends at ) ; : or ", " (a list a,b is one V)
default_re='([(;] ?)(with (--[a-z-]+)( [^ ,]+)?, )?default ([^ ;:()]+)([);:]|, )'
commands=$("$PROVPOL" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 {print $1}')
for cmd in $commands; do
  cmd_bases=()
  for b in "${bases[@]}"; do [ "${b%%|*}" = "$cmd" ] && cmd_bases+=("${b#*|}"); done
  checks=$((checks + 1))
  if [ ${#cmd_bases[@]} -eq 0 ]; then
    failures=$((failures + 1))
    echo "FAIL: no base invocation for provpol $cmd: add one to defaults_test.sh" >&2
    continue
  fi
  read -r -a plain <<<"${cmd_bases[0]}"
  before=$tested
  while IFS= read -r line; do
    read -r opt _ <<<"$line"
    [[ $opt == --* ]] || continue
    help=${line#*  }
    rest=$help
    # "V (default)" / "V (default: why)"
    while [[ $rest =~ $word_default_re ]]; do
      compare "$cmd" "$opt" "${BASH_REMATCH[1]}" "${plain[@]}"
      rest=${rest#*"${BASH_REMATCH[0]}"}
    done
    # "(default V...)" and "; with --opt X, default V" / "(with --opt, default V"
    rest=$help
    while [[ $rest =~ $default_re ]]; do
      cond=${BASH_REMATCH[3]} cval=${BASH_REMATCH[4]# } val=${BASH_REMATCH[5]}
      rest=${BASH_REMATCH[6]}${rest#*"${BASH_REMATCH[0]}"}  # the ';' may start the next clause
      if [ -z "$cond" ]; then
        compare "$cmd" "$opt" "$val" "${plain[@]}"
        continue
      fi
      matched=0
      for b in "${cmd_bases[@]}"; do
        read -r -a words <<<"$b"
        for ((i = 0; i < ${#words[@]}; i++)); do
          if [ "${words[i]}" = "$cond" ] && { [ -z "$cval" ] || [ "${words[i + 1]:-}" = "$cval" ]; }; then
            compare "$cmd" "$opt" "$val" "${words[@]}"
            matched=1
            break
          fi
        done
      done
      checks=$((checks + 1))
      [ $matched -eq 1 ] || { failures=$((failures + 1)); echo "FAIL: provpol $cmd $opt documents a default 'with $cond $cval' and no base has it" >&2; }
    done
  done < <("$PROVPOL" "$cmd" --help | sed -n '/^options:/,$p')
  checks=$((checks + 1))
  [ $tested -gt "$before" ] || { failures=$((failures + 1)); echo "FAIL: provpol $cmd --help documents no default that was checked" >&2; }
done
echo "$tested documented defaults checked"
checks=$((checks + 1))
[ $tested -ge 30 ] || { failures=$((failures + 1)); echo "FAIL: only $tested defaults found in the help: is the parser broken?" >&2; }
finish
