#!/usr/bin/env bash
# provpol-thinpoold as cmake --install --component thinpoold lays it out: the program in sbin, the systemd template
# unit (which systemd-analyze verify accepts, in a root holding the host's own units and the program where the unit
# names it), provpol-thinpoold(8) (rendered without warnings, naming every option --help lists) and the example
# configuration, every setting of which the program reads.
#   thinpoold_install_test.sh path/to/provpol-thinpoold <build dir> <cmake>
. "$(dirname "$0")/lib.sh"
build=${2:?usage: $0 provpol-thinpoold build-dir cmake}
cmake=${3:?usage: $0 provpol-thinpoold build-dir cmake}
prefix="$scratch/prefix"
check() {
  local what=$1
  shift
  checks=$((checks + 1))
  "$@" || { failures=$((failures + 1)); echo "FAIL: $what" >&2; }
}

"$cmake" --install "$build" --component thinpoold --prefix "$prefix" >"$scratch/install.log" 2>&1 || cat "$scratch/install.log" >&2
unit=$(find "$prefix" -name 'provpol-thinpoold@.service')
man8="$prefix/share/man/man8/provpol-thinpoold.8"
example=$(find "$prefix" -name pool.conf.example)
check "installs sbin/provpol-thinpoold" test -x "$prefix/sbin/provpol-thinpoold"
check "installs the unit provpol-thinpoold@.service" test -s "$unit"
check "installs share/man/man8/provpol-thinpoold.8" test -s "$man8"
check "installs the example configuration" test -s "$example"

# The unit: ExecStart= and ExecStopPost= run the program with the instance's configuration; systemd accepts it.
exe=$(sed -n 's/^ExecStart=\([^ ]*\) .*/\1/p' "$unit")
check "ExecStart= reads /etc/provpol/thinpoold/%i.conf" grep -q '^ExecStart=/.*/provpol-thinpoold --config /etc/provpol/thinpoold/%i.conf$' "$unit"
check "ExecStopPost= gives the monitoring back (--restore)" grep -q "^ExecStopPost=$exe --config /etc/provpol/thinpoold/%i.conf --restore$" "$unit"
if command -v systemd-analyze >/dev/null && [ -d /lib/systemd/system ]; then
  root=$scratch/root
  mkdir -p "$root/etc/systemd/system" "$root/lib/systemd" "$root$(dirname "$exe")"
  cp -r /lib/systemd/system "$root/lib/systemd/"
  cp "$unit" "$root/etc/systemd/system/"
  cp "$PROVPOL" "$root$exe"
  systemd-analyze verify --root="$root" --man=no provpol-thinpoold@vg0-data.service >"$scratch/verify.out" 2>&1
  check "systemd-analyze verify: exit 0, no complaint ($(head -c 400 "$scratch/verify.out"))" \
    test $? -eq 0 -a ! -s "$scratch/verify.out"
else
  echo "thinpoold_install_test: systemd-analyze or /lib/systemd/system missing: the unit is not verified" >&2
fi

# The man page: renders without warnings, names every option of --help, and --help every option it names.
MANWIDTH=80 MANPAGER=cat PAGER=cat man --warnings -l "$man8" >"$scratch/man.txt" 2>"$scratch/man.err"
check "man -l exits 0 with no warning: $(head -c 300 "$scratch/man.err")" test $? -eq 0 -a ! -s "$scratch/man.err"
# The options: those --help lists in its options table, those the man page's OPTIONS section heads an entry with.
help=$("$PROVPOL" --help | sed -n '/^options:/,/^Exit status/p' | grep -E '^  -' | cut -c1-27 | grep -oE -- '--[a-z][a-z-]+' | sort -u)
manopts=$(sed -n '/^OPTIONS/,/^SIGNALS/p' "$scratch/man.txt" | grep -E '^       -' | grep -oE -- '--[a-z][a-z-]+' | sort -u)
check "--help lists options ($(wc -w <<<"$help"))" test "$(wc -w <<<"$help")" -gt 20
for o in $help; do check "the man page names $o" grep -qx -- "$o" <<<"$manopts"; done
for o in $manopts; do check "--help names $o (in the man page)" grep -qx -- "$o" <<<"$help"; done

# The example configuration: the program reads every setting in it (--dry-run --once stops at the pool's lvs).
sed 's/^# \(metrics-file\)/\1/' "$example" >"$scratch/example.conf"
run --config "$scratch/example.conf" --state-dir "$scratch/state" --lock-dir "$scratch/lock" --dry-run --help
check "the example configuration is read (status $status: $(head -c 200 "$err"))" test "$status" -eq 0
finish
