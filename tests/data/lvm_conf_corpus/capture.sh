#!/usr/bin/env bash
# Runs the real lvm2 on every case of the generated lvm.conf corpus (generate.py) and writes what lvm2 made of each
# into expected.json, which tests/cli_readers_test.cpp holds provpol's reader to (no lvm2 needed to run the test):
#   - `lvmconfig --type current` with the case as the only lvm.conf (LVM_SYSTEM_DIR): its exit status (4 when the
#     parser refuses the file) and the tree it prints;
#   - the values lvm2's lookups take for the seven autoextend keys: a small C driver calls libdevmapper's own
#     dm_config_parse, dm_config_tree_find_int and dm_config_tree_find_bool (the functions lvm2's
#     find_config_tree_int and find_config_tree_bool call) twice with two different fallbacks, so that "lvm2 takes
#     its default" (absent, a string, a float, ...) is told apart from a value; the driver declares the few
#     libdevmapper prototypes it uses and is linked against the suite's libdevmapper.so.1.02.1.
# For Debian 12's lvm2 2.03.16 and Debian 13's 2.03.31 (lvm2_suite.sh unpacks them). Run by hand:
#   tests/data/lvm_conf_corpus/capture.sh [WORK_DIR]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/../lvm2_suite.sh"
work=${1:-$(mktemp -d /tmp/provpol-lvm-corpus.XXXXXX)}
mkdir -p "$work"
python3 "$here/generate.py" 48 600 >"$work/cases.json"
cat >"$work/oracle.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct dm_config_tree;
struct dm_config_value;
struct dm_config_node { const char *key; struct dm_config_node *parent, *sib, *child; struct dm_config_value *v; int id; };
struct dm_config_tree *dm_config_create(void);
int dm_config_parse(struct dm_config_tree *cft, const char *start, const char *end);
int dm_config_tree_find_int(const struct dm_config_tree *cft, const char *path, int fail);
int dm_config_tree_find_bool(const struct dm_config_tree *cft, const char *path, int fail);
const struct dm_config_node *dm_config_tree_find_node(const struct dm_config_tree *cft, const char *path);
static const char *keys[] = {"thin_pool_autoextend_threshold", "thin_pool_autoextend_percent",
	"vdo_pool_autoextend_threshold", "vdo_pool_autoextend_percent", "snapshot_autoextend_threshold",
	"snapshot_autoextend_percent", NULL};
int main(int argc, char **argv) {
	FILE *f = fopen(argv[1], "rb"); static char buf[1 << 22]; size_t n = fread(buf, 1, sizeof buf - 1, f); buf[n] = 0;
	struct dm_config_tree *t = dm_config_create();
	if (!dm_config_parse(t, buf, buf + n)) { printf("refused\n"); return 0; }
	char path[256];
	for (int i = 0; keys[i]; i++) {
		snprintf(path, sizeof path, "activation/%s", keys[i]);
		int a = dm_config_tree_find_int(t, path, -2147483647), b = dm_config_tree_find_int(t, path, 2147483646);
		if (a == -2147483647 && b == 2147483646) printf("%s default\n", keys[i]); else printf("%s %d\n", keys[i], a);
	}
	const struct dm_config_node *m = dm_config_tree_find_node(t, "activation/monitoring");
	if (m && !m->v) { printf("monitoring section\n"); return 0; } /* lvm2's _find_config_bool would crash */
	int a = dm_config_tree_find_bool(t, "activation/monitoring", 7), b = dm_config_tree_find_bool(t, "activation/monitoring", 8);
	if (a == 7 && b == 8) printf("monitoring default\n"); else printf("monitoring %d\n", a);
	return 0;
}
C
for suite in bookworm trixie; do
  dir=$work/$suite
  [ -x "$dir/root/usr/sbin/lvm" ] || [ -x "$dir/root/sbin/lvm" ] || lvm2_unpack "$suite" "$dir"
  # --allow-shlib-undefined: a newer suite's library needs its own glibc, which it runs with (lvm2_run's loader).
  gcc -O1 -Wl,--allow-shlib-undefined -o "$dir/oracle" "$work/oracle.c" "$dir/root/lib/x86_64-linux-gnu/libdevmapper.so.1.02.1" 2>/dev/null ||
    gcc -O1 -Wl,--allow-shlib-undefined -o "$dir/oracle" "$work/oracle.c" "$dir/root/usr/lib/x86_64-linux-gnu/libdevmapper.so.1.02.1"
done
python3 - "$work" "$here/expected.json" <<'PY'
import json, os, subprocess, sys
work, out = sys.argv[1], sys.argv[2]
cases = json.load(open(os.path.join(work, "cases.json")))
def run(suite, *args, env=None):
    d = os.path.join(work, suite, "root")
    lib = os.path.join(d, "usr/lib/x86_64-linux-gnu")
    loader = os.path.join(lib, "ld-linux-x86-64.so.2")
    if not os.path.exists(loader):
        loader = os.path.join(d, "lib64/ld-linux-x86-64.so.2")
    paths = lib + ":" + os.path.join(d, "lib/x86_64-linux-gnu")
    e = dict(os.environ, LVM_SUPPRESS_FD_WARNINGS="1", **(env or {}))
    return subprocess.run([loader, "--library-path", paths] + list(args), capture_output=True, env=e, timeout=60)
results = []
versions = {}
for suite in ["bookworm", "trixie"]:
    lvm = os.path.join(work, suite, "root/usr/sbin/lvm")
    if not os.path.exists(lvm):
        lvm = os.path.join(work, suite, "root/sbin/lvm")
    v = run(suite, lvm, "version").stdout.decode().split("LVM version:")[1].split("(")[0].strip()
    versions[suite] = (v, lvm)
for i, text in enumerate(cases):
    entry = {"text": text}
    conf = os.path.join(work, "conf")
    os.makedirs(conf, exist_ok=True)
    with open(os.path.join(conf, "lvm.conf"), "w") as f:
        f.write(text)
    for suite, (v, lvm) in versions.items():
        r = run(suite, lvm, "lvmconfig", "--type", "current", env={"LVM_SYSTEM_DIR": conf})
        o = run(suite, os.path.join(work, suite, "oracle"), os.path.join(conf, "lvm.conf"))
        lookups = {}
        for line in o.stdout.decode().splitlines():
            k, _, val = line.partition(" ")
            lookups[k] = val
        entry["lvm2_" + v] = {"status": r.returncode, "current": r.stdout.decode(), "lookups": lookups}
    results.append(entry)
with open(out, "w") as f:
    json.dump({"generator": "generate.py 48 600", "versions": [v for v, _ in versions.values()], "cases": results},
              f, indent=1)
    f.write("\n")
print("%d cases into %s" % (len(results), out))
PY
