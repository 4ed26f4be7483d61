#!/usr/bin/env bash
# cmake --install puts provpol(1) and the bash completion under the prefix; the man page renders with man -l
# and names every subcommand and option; the completion completes subcommands, options and preset names, and
# offers exactly the options each subcommand's --help lists.
#   install_test.sh path/to/provpol <build dir> <cmake>
. "$(dirname "$0")/lib.sh"
build=${2:?usage: $0 provpol build-dir cmake}
cmake=${3:?usage: $0 provpol build-dir cmake}
prefix="$scratch/prefix"

check() {  # check <description> <command...>: counts a check, fails with the description when the command fails
  local what=$1
  shift
  checks=$((checks + 1))
  "$@" || { failures=$((failures + 1)); echo "FAIL: $what" >&2; }
}

"$cmake" --install "$build" --prefix "$prefix" >"$scratch/install.log" 2>&1 || { cat "$scratch/install.log" >&2; }
man1="$prefix/share/man/man1/provpol.1"
completion="$prefix/share/bash-completion/completions/provpol"
check "cmake --install installs share/man/man1/provpol.1" test -s "$man1"
check "cmake --install installs share/bash-completion/completions/provpol" test -s "$completion"

# The man page: renders without warnings, is what the CLI prints, shows every subcommand and option.
check "the installed man page is what 'provpol __man' prints" cmp -s "$man1" <("$PROVPOL" __man)
MANWIDTH=80 MANPAGER=cat PAGER=cat man --warnings -l "$man1" >"$scratch/man.txt" 2>"$scratch/man.err"
check "man -l exits 0" test $? -eq 0
check "man -l prints no warnings: $(head -c 300 "$scratch/man.err")" test ! -s "$scratch/man.err"
check "man -l shows the NAME section" grep -q '^NAME' "$scratch/man.txt"
commands=$("$PROVPOL" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 {print $1}')
check "provpol --help lists commands" test -n "$commands"
for c in $commands; do
  check "man page shows subcommand $c" grep -Eq "^ *$c( |$)" "$scratch/man.txt"
  upper=$(printf '%s' "$c" | tr a-z A-Z)
  check "man page has a section PROVPOL $upper" grep -q "^PROVPOL $upper\$" "$scratch/man.txt"
  for o in $("$PROVPOL" "$c" --help | awk '/^options:/ {on = 1; next} on && $1 ~ /^--/ {print $1}'); do
    check "man page shows provpol $c $o" grep -q -- "$o" "$scratch/man.txt"
  done
done

# complete <words...>: the candidates the completion offers for the last word (COMP_CWORD at it), one line.
complete_words() {
  bash --norc --noprofile -c '
    . "$1"; shift
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    _provpol
    printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' complete "$completion" "$@"
}
expect_completion() {  # expect_completion "<expected, sorted, space-separated>" <words...>
  local want=$1 got
  shift
  got=$(complete_words "$@")
  checks=$((checks + 1))
  [ "$got" = "$want " ] || { failures=$((failures + 1)); echo "FAIL: completing '$*': got '$got', expected '$want'" >&2; }
}
check "the completion registers _provpol for provpol" \
  bash --norc --noprofile -c '. "$1" && complete -p provpol | grep -q _provpol' x "$completion"
expect_completion "extend" provpol ex
expect_completion "extend" provpol help ex
expect_completion "vdsm-2022" provpol extend --preset vdsm-2
expect_completion "vdsm-legacy" provpol extend --preset = vdsm-l   # --preset=vdsm-l, split at '='
expect_completion "vdsm-2022 vdsm-legacy" provpol plan --capacity 1GiB --preset ''
expect_completion "xapi-redo-log xapi-redo-log-2010" provpol chunk --preset xapi
expect_completion "xfsprogs-6.1 xfsprogs-6.13" provpol logsize --preset xfsprogs-6.1
expect_completion "vdsm-polling-2022 vdsm-polling-2022-independent" provpol recommend --latency vdsm-p
expect_completion "csv json svg text" provpol plan --format ''
expect_completion "--rate" provpol recommend --rat
expect_completion "--rate" provpol plan --rat
expect_completion "" provpol recommend --rate ''   # a rate: nothing to offer, not the option list
# Every subcommand's options, exactly as its --help lists them (plus -h); plan and recommend also take those their
# thin-pool forms list (--preset lvm-thin-autoextend --help, --preset stratis-data --help).
for c in $commands; do
  thin=false
  case $c in plan | recommend) thin=true ;; esac
  want=$( ("$PROVPOL" "$c" --help
           if $thin; then "$PROVPOL" "$c" --preset lvm-thin-autoextend --help; "$PROVPOL" "$c" --preset stratis-data --help; fi) |
    awk '/^options:/ {on = 1; next} /^usage:/ {on = 0} on && $1 ~ /^--/ {print $1}' | { cat; echo -h; } | sort -u | tr '\n' ' ')
  got=$(complete_words provpol "$c" -)
  checks=$((checks + 1))
  [ "$got" = "$want" ] || { failures=$((failures + 1)); echo "FAIL: provpol $c -<TAB>: got '$got', expected '$want'" >&2; }
done
finish
