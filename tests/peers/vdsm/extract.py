#!/usr/bin/env python3
"""VDSM's own test cases, as rows of tests/peers/vdsm/cases.csv (see tests/peers/README.md).

Reads oVirt/vdsm's test files at one commit (git show COMMIT:path, no work tree) with Python's ast module: every
test function of the nine files the suite covers becomes at least one row. A function whose cases are a VDSM size
rule provpol models gives one `check` row per case, with the provpol command that asks the same question, the
output column compared and the expected value as VDSM's test writes it (evaluated here with the test file's own
constants and VDSM's constants.py, never by provpol). Everything else is `left_out` with the reason.

Usage: extract.py GIT_DIR COMMIT OUT.csv (extract.sh passes the defaults).
"""
import ast
import re
import subprocess
import sys

FILES = [
    "tests/virt/thinp_monitor_test.py",
    "tests/virt/thinp_test.py",
    "tests/virt/vmstorage_test.py",
    "tests/virt/livemerge_test.py",
    "tests/storage/blockvolume_test.py",
    "tests/storage/filevolume_test.py",
    "tests/storage/hsm_test.py",
    "tests/storage/blocksd_test.py",
    "tests/storage/lvm_test.py",
]


def show(git_dir, commit, path):
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout


class Namespace(dict):
    """Names a test's expressions may use: units, VDSM's storage constants, the test module's constants."""


def constants(git_dir, commit):
    ns = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40, "int": int}
    sc = {}
    src = show(git_dir, commit, "lib/vdsm/storage/constants.py")
    for m in re.finditer(r"^([A-Z_0-9]+) = ([0-9][0-9 *.]*|\d+ \* [KMG]iB)$", src, re.M):
        try:
            sc[m.group(1)] = eval(m.group(2), {}, ns)
        except Exception:
            pass
    ns["sc"] = type("sc", (), sc)
    bv = show(git_dir, commit, "lib/vdsm/storage/blockVolume.py")
    qf = float(re.search(r"^QCOW_OVERHEAD_FACTOR = ([0-9.]+)$", bv, re.M).group(1))
    ns["blockVolume"] = type("blockVolume", (), {"QCOW_OVERHEAD_FACTOR": qf})
    cfg = show(git_dir, commit, "lib/vdsm/common/config.py.in")
    chunk = int(re.search(r"\('volume_utilization_chunk_mb', '(\d+)'", cfg).group(1))
    percent = int(re.search(r"\('volume_utilization_percent', '(\d+)'", cfg).group(1))
    ns["DEFAULT_CHUNK_MB"] = chunk
    ns["DEFAULT_PERCENT"] = percent
    return ns


def module_constants(tree, ns):
    """The test module's own simple constants (CHUNK_SIZE_MB = 1024, CHUNK_SIZE = 2560 * MiB, ...)."""
    out = dict(ns)
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = evaluate(node.value, out)
            except Exception:
                pass
    return out


def calls_in(node):
    """The functions an expression calls, other than int() (the names a row must report when it is left out)."""
    names = []
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            f = ast.unparse(n.func)
            if f != "int":
                names.append(f)
    return names


def evaluate(node, ns):
    if calls_in(node):
        raise ValueError("calls " + ", ".join(calls_in(node)))
    return eval(compile(ast.Expression(node), "<vdsm>", "eval"), {"__builtins__": {}}, ns)


def size(v):
    return f"{int(v)}"


def fmt_of(v, ns):
    return "cow" if v == ns["sc"].COW_FORMAT else "raw"


def prealloc_of(v, ns):
    return "sparse" if v == ns["sc"].SPARSE_VOL else "preallocated"


def param_cases(func):
    """(node, elements) for each case of @permutations([...]) or @pytest.mark.parametrize(names, [...])."""
    for d in func.decorator_list:
        if not isinstance(d, ast.Call):
            continue
        name = ast.unparse(d.func)
        if name.endswith("permutations") and d.args:
            table = d.args[0]
        elif name.endswith("parametrize") and len(d.args) >= 2:
            table = d.args[1]
        else:
            continue
        for elt in table.elts:
            inner = elt
            if isinstance(elt, ast.Call) and ast.unparse(elt.func).endswith("param"):
                inner = ast.Tuple(elts=elt.args)
            yield elt, (inner.elts if isinstance(inner, (ast.Tuple, ast.List)) else [inner])


def find_line(func, lines, pattern, after=0):
    """The first line of func (1-based, after `after`) that matches pattern."""
    for i in range(max(func.lineno, after + 1), func.end_lineno + 1):
        if re.search(pattern, lines[i - 1]):
            return i
    raise LookupError(f"{func.name}: no line matches {pattern!r}")


def kwargs(call, ns, defaults=None):
    out = dict(defaults or {})
    for k in call.keywords:
        try:
            out[k.arg] = evaluate(k.value, ns)
        except Exception:
            out[k.arg] = ast.unparse(k.value)
    return out


rows = []


def check(file, line, test, case, command, field, expected, expression):
    rows.append([f"{file.split('/')[-1][:-3]}:{test}:{case}", file, str(line), "check", "", test,
                 " ".join(command), field, str(expected), expression])


def left_out(file, line, test, case, reason):
    rows.append([f"{file.split('/')[-1][:-3]}:{test}:{case}", file, str(line), "left_out", reason, test, "", "",
                 "", ""])


def clean(text):
    return re.sub(r"\s+", " ", text.replace(",", ";")).strip()


# --- the size rules, function by function -----------------------------------------------------------------------


def blockvolume(file, tree, lines, ns, done):
    chunk = f"--chunk {ns['CHUNK_SIZE_MB']}MiB"
    for func in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        if func.name == "test_block_volume_size":
            done.add(func.name)
            for k, (node, (args, result)) in enumerate(param_cases(func), 1):
                expr = clean(ast.unparse(result))
                try:
                    pre, fm, cap, init = [evaluate(a, ns) for a in args.elts]
                    expected = evaluate(result, ns)
                except ValueError as e:
                    left_out(file, result.lineno, func.name, k,
                             f"the initial size and the expected value are VDSM's own function ({e})")
                    continue
                cmd = ["lvsize", "--for", "new", chunk.split()[0], chunk.split()[1], "--capacity", size(cap),
                       "--volume-format", fmt_of(fm, ns), "--preallocation", prealloc_of(pre, ns)]
                if init:
                    cmd += ["--initial-size", size(init)]
                check(file, result.lineno, func.name, k, cmd, "alloc_size", int(expected), expr)
        elif func.name == "test_fail_invalid_block_volume_size":
            done.add(func.name)
            for k, (node, elts) in enumerate(param_cases(func), 1):
                left_out(file, node.lineno, func.name, k,
                         "the input is VDSM's own BlockVolume.max_size() + 1 (the refusal above the maximum is "
                         "in tests/extend_vdsm_sizes_test.cpp)")
        elif func.name in ("test_max_size_raw", "test_max_size_cow"):
            done.add(func.name)
            line = find_line(func, lines, r"assertEqual|assert ")
            call = next(n for n in ast.walk(func) if isinstance(n, ast.Call) and ast.unparse(n.func).endswith(
                "max_size"))
            cap, fm = [evaluate(a, ns) for a in call.args]
            exp_line = find_line(func, lines, r"\d{6,}|\* GiB\)$|, 1 \* GiB")
            stmt = next(n for n in ast.walk(func) if isinstance(n, ast.Call) and ast.unparse(n.func).endswith(
                "assertEqual"))
            expected = evaluate(stmt.args[1], ns)
            check(file, exp_line, func.name, 1, ["lvsize", "--for", "new", "--capacity", size(cap),
                                                 "--volume-format", fmt_of(fm, ns)], "max_size", expected,
                  clean(ast.unparse(stmt.args[1])))
        elif func.name == "test_optimal_size_cow_internal":
            done.add(func.name)
            for k, (node, elts) in enumerate(param_cases(func), 1):
                virtual, actual, optimal = [evaluate(a, ns) for a in elts]
                check(file, node.lineno, func.name, k,
                      ["lvsize", "--for", "optimal", "--internal", "--capacity", size(virtual), "--actual",
                       size(actual)], "optimal_size", optimal, clean(ast.unparse(node)))
        elif func.name == "test_optimal_size_cow_internal_as_leaf":
            done.add(func.name)
            src = ast.get_source_segment("\n".join(lines), func)
            offset = evaluate(ast.parse(re.search(r"'offset': ([^}]+)\}", src).group(1), mode="eval").body, ns)
            capacity = evaluate(ast.parse(re.search(r"make_qemu_chain\(env, ([^,]+),", src).group(1),
                                          mode="eval").body, ns)
            line = find_line(func, lines, r"optimal_size\(as_leaf=True\)")
            expected = evaluate(ast.parse(re.search(r"as_leaf=True\), (.+)\)$", lines[line - 1]).group(1),
                                          mode="eval").body, ns)
            check(file, line, func.name, 1, ["lvsize", "--for", "optimal", chunk.split()[0], chunk.split()[1],
                                             "--capacity", size(capacity), "--actual", size(offset)],
                  "optimal_size", expected, "1536 * MiB")
        elif func.name == "test_optimal_size_raw":
            done.add(func.name)
            line = find_line(func, lines, r"assertEqual\(vol.optimal_size\(\), GiB\)")
            check(file, line, func.name, 1, ["lvsize", "--for", "optimal", "--volume-format", "raw", "--capacity",
                                             size(ns["GiB"])], "optimal_size", ns["GiB"], "GiB")
        elif func.name in ("test_optimal_size_cow_leaf", "test_optimal_size_cow_leaf_max"):
            done.add(func.name)
            left_out(file, find_line(func, lines, r"assertEqual\(vol.optimal_size\(\)"), func.name, 1,
                     "the expected value is computed from qemu-img check of an image the test writes and VDSM's "
                     "own utils.round() / max_size()")
        elif func.name == "test_can_reduce":
            done.add(func.name)
            for k, (node, elts) in enumerate(param_cases(func), 1):
                fm, pre, can = [evaluate(a, ns) for a in elts]
                check(file, node.lineno, func.name, k,
                      ["lvsize", "--for", "optimal", "--volume-format", fmt_of(fm, ns), "--preallocation",
                       prealloc_of(pre, ns), "--capacity", size(ns["GiB"]), "--actual", size(ns["GiB"])],
                      "can_reduce", int(can), clean(ast.unparse(node)))


def filevolume(file, tree, lines, ns, done):
    for func in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        if func.name in ("test_max_size_raw", "test_max_size_cow"):
            done.add(func.name)
            call = next(n for n in ast.walk(func) if isinstance(n, ast.Call) and ast.unparse(n.func).endswith(
                "max_size"))
            cap, fm = [evaluate(a, ns) for a in call.args]
            line = find_line(func, lines, r"assert max_size == ")
            expected = evaluate(ast.parse(lines[line - 1].split("==")[1].strip(), mode="eval").body, ns)
            # FileVolume aligns to MiB (fileVolume.py align_size = MiB): the extent of the question.
            check(file, line, func.name, 1, ["lvsize", "--for", "new", "--extent", "1MiB", "--capacity", size(cap),
                                             "--volume-format", fmt_of(fm, ns)], "max_size", expected,
                  clean(lines[line - 1].split("==")[1]))
        elif func.name == "test_volume_size_unaligned":
            done.add(func.name)
            src = ast.get_source_segment("\n".join(lines), func)
            cap = evaluate(ast.parse(re.search(r"unaligned_vol_capacity = (.+)", src).group(1), mode="eval").body,
                           ns)
            exp_text = re.search(r"expected_vol_capacity = (.+)", src).group(1)
            line = find_line(func, lines, r"expected_vol_capacity = ")
            check(file, line, func.name, 1, ["lvsize", "--for", "new", "--volume-format", "raw", "--capacity",
                                             size(cap)], "volume_capacity",
                  evaluate(ast.parse(exp_text, mode="eval").body, ns), clean(exp_text))
        elif func.name == "test_extend_volume":
            done.add(func.name)
            src = ast.get_source_segment("\n".join(lines), func)
            cur = evaluate(ast.parse(re.search(r"vol_capacity = (.+)", src).group(1), mode="eval").body, ns)
            new = evaluate(ast.parse(re.search(r"new_capacity = (.+)", src).group(1), mode="eval").body, ns)
            line = find_line(func, lines, r"assert vol_size.apparentsize == new_capacity")
            check(file, line, func.name, 1, ["lvsize", "--for", "resize", "--volume-format", "raw",
                                             "--preallocation", "sparse", "--capacity", size(cur), "--new-capacity",
                                             size(new)], "new_capacity", new, "new_capacity")
        elif func.name in ("test_optimal_size_raw",):
            done.add(func.name)
            line = find_line(func, lines, r"assert vol.optimal_size\(\) == size")
            cap = evaluate(ast.parse(re.search(r"size = (.+)", lines[func.lineno]).group(1), mode="eval").body, ns)
            check(file, line, func.name, 1, ["lvsize", "--for", "optimal", "--volume-format", "raw", "--capacity",
                                             size(cap)], "optimal_size", cap, "size")
        elif func.name == "test_optimal_size_cow":
            done.add(func.name)
            left_out(file, find_line(func, lines, r"assert vol.optimal_size"), func.name, 1,
                     "the expected value is VDSM's own getVolumeSize() (a file volume's size is the file system's)")


def hsm(file, tree, lines, ns, done):
    for func in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        if func.name == "test_extend_volume":
            done.add(func.name)
            for k, (node, elts) in enumerate(param_cases(func), 1):
                sz, mb = [evaluate(a, ns) for a in elts]
                # hsm.py extendVolume's MiB rounding is the request an internal merge's extend sends: with the
                # base at 1 MiB and nothing else to add, request_mb is the rounding alone.
                check(file, node.lineno, func.name, k,
                      ["lvsize", "--for", "merge", "--internal", "--capacity", size(ns["GiB"]), "--current",
                       size(ns["MiB"] // 2), "--required", size(sz)], "request_mb", mb, clean(ast.unparse(node)))


def blocksd(file, tree, lines, ns, done):
    for func in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        src = ast.get_source_segment("\n".join(lines), func) or ""
        if func.name == "test_cow_small_volume":
            done.add(func.name)
            left_out(file, find_line(func, lines, r"initial_size = utils.round"), func.name, 1,
                     "the expected value is VDSM's own utils.round(capacity; sc.VG_EXTENT_SIZE)")
        elif func.name == "test_reduce_volume_called":
            done.add(func.name)
            left_out(file, find_line(func, lines, r"assert new_size == vol.optimal_size"), func.name, 1,
                     "the expected value is VDSM's own optimal_size()")
        elif func.name == "test_reduce_volume_skipped":
            done.add(func.name)
            line = find_line(func, lines, r"apparentsize == vol_capacity")
            check(file, line, func.name, 1, ["lvsize", "--for", "optimal", "--volume-format", "cow",
                                             "--preallocation", "preallocated", "--capacity", "10GiB", "--actual",
                                             "10GiB"], "can_reduce", 0, "apparentsize == vol_capacity (not reduced)")
        elif func.name == "test_extend_volume":
            done.add(func.name)
            cur = evaluate(ast.parse(re.search(r"vol_capacity = (.+)", src).group(1), mode="eval").body, ns)
            new = evaluate(ast.parse(re.search(r"new_capacity = (.+)", src).group(1), mode="eval").body, ns)
            line = find_line(func, lines, r"assert vol_size.apparentsize == new_capacity")
            # One volume per format of the test's own list (it avoids a parametrized test).
            formats = ast.parse(re.search(r"vol_formats = (\[[^]]+\])", src).group(1), mode="eval").body.elts
            for k, node in enumerate(formats, 1):
                fm = evaluate(node, ns)
                check(file, line, func.name, k, ["lvsize", "--for", "resize", "--volume-format", fmt_of(fm, ns),
                                                 "--preallocation", "preallocated", "--capacity", size(cur),
                                                 "--new-capacity", size(new)], "lv_size", new, "new_capacity")
        elif func.name == "test_extend_volume_skipped":
            done.add(func.name)
            cur = evaluate(ast.parse(re.search(r"vol_capacity = (.+)", src).group(1), mode="eval").body, ns)
            new = evaluate(ast.parse(re.search(r"new_capacity = (.+)", src).group(1), mode="eval").body, ns)
            line = find_line(func, lines, r"assert vol_size == initial_vol_size")
            check(file, line, func.name, 1, ["lvsize", "--for", "resize", "--volume-format", "cow",
                                             "--preallocation", "sparse", "--capacity", size(cur), "--new-capacity",
                                             size(new)], "action", "sparse-cow", "vol_size == initial_vol_size")


def drive_type(disk, fmt):
    disk = disk.lower() if isinstance(disk, str) else disk
    if disk == "block":
        return "block-cow" if fmt == "cow" else "block-raw"
    return disk


def vmstorage(file, tree, lines, ns, done):
    ns = dict(ns, DISK_TYPE=type("DISK_TYPE", (), {"BLOCK": "block", "FILE": "file", "NETWORK": "network"}))
    base = ["extend", "--capacity", "10GiB", "--physical", "5GiB", "--allocation", "4GiB"]
    classes = {c.name: c for c in ast.walk(tree) if isinstance(c, ast.ClassDef)}
    for cls, func in [(c, f) for c in classes.values() for f in c.body if isinstance(f, ast.FunctionDef)]:
        key = f"{cls.name}.{func.name}"
        if key == "ChunkedTests.test_drive":
            done.add(key)
            for k, (node, elts) in enumerate(param_cases(func), 1):
                device, disk, fm, chunked = [evaluate(a, ns) for a in elts]
                check(file, node.lineno, key, k, base + ["--drive-type", drive_type(disk, fm)], "chunked",
                      int(chunked), clean(ast.unparse(node)))
        elif key == "ChunkedTests.test_replica":
            done.add(key)
            for k, (node, elts) in enumerate(param_cases(func), 1):
                disk, fm = [evaluate(a, ns) for a in elts]
                # drive_config's format is raw: the drive itself (Drive.chunked) is not chunked.
                check(file, find_line(func, lines, r"assert drive.chunked is False"), key, k,
                      base + ["--drive-type", drive_type(disk, "raw")], "chunked", 0, "drive.chunked is False")
        elif key == "ReplicaChunkedTests.test_replica":
            done.add(key)
            for k, (node, elts) in enumerate(param_cases(func), 1):
                disk, fm, chunked = [evaluate(a, ns) for a in elts]
                check(file, node.lineno, key, k,
                      base + ["--drive-type", drive_type(disk, "raw"), "--replica-type", drive_type(disk, fm)],
                      "chunked", int(chunked), clean(ast.unparse(node)))
        elif key == "ReplicaChunkedTests.test_no_replica":
            done.add(key)
            check(file, find_line(func, lines, r"replicaChunked is False"), key, 1, base + ["--drive-type", "file"],
                  "chunked", 0, "drive.replicaChunked is False")
        elif key == "DriveVolumeSizeTests.test_next_size":
            done.add(key)
            cap = ns["GiB"] * 8
            line = find_line(func, lines, r"== cursize \+ drive.volExtensionChunk")
            for k, (node, elts) in enumerate(param_cases(func), 1):
                cur = evaluate(elts[0], ns)
                # volExtensionChunk is VDSM's default [irs] volume_utilization_chunk_mb (config.py.in), in MiB.
                check(file, line, key, k, ["extend", "--chunk", f"{ns['DEFAULT_CHUNK_MB']}MiB", "--capacity",
                                           size(cap), "--physical", size(cur), "--allocation", size(cur)],
                      "next_size", cur + ns["DEFAULT_CHUNK_MB"] * ns["MiB"], "cursize + drive.volExtensionChunk")
        elif key == "DriveVolumeSizeTests.test_next_size_limit":
            done.add(key)
            left_out(file, find_line(func, lines, r"getMaxVolumeSize"), key, 1,
                     "the expected value is VDSM's own Drive.getMaxVolumeSize()")
        elif key == "DriveVolumeSizeTests.test_max_size":
            done.add(key)
            left_out(file, find_line(func, lines, r"utils.round"), key, 1,
                     "the expected value is VDSM's own utils.round(capacity * VOLWM_COW_OVERHEAD; MiB)")


def thinp_monitor(file, tree, lines, ns, done):
    ns = dict(ns, DISK_TYPE=type("DISK_TYPE", (), {"BLOCK": "block", "FILE": "file", "NETWORK": "network"}))
    ns["BLOCK_THRESHOLD"] = type("B", (), {"UNSET": "UNSET", "SET": "SET", "EXCEEDED": "EXCEEDED"})
    chunk_mb = ns["CHUNK_SIZE"] // ns["MiB"]
    percent = 100 - ns["FREE_PCT"]
    cfg = ["--chunk", f"{chunk_mb}MiB", "--percent", str(percent)]
    info_defaults = {"capacity": 10 * ns["GiB"], "allocation": 0, "physical": 5 * ns["GiB"]}
    for func in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        if func.name == "test_set_new_threshold_when_state_unset":
            done.add(func.name)
            for k, (node, elts) in enumerate(param_cases(func), 1):
                drive_call, info_call = elts[0].elts
                state = evaluate(elts[1], ns)
                conf = kwargs(drive_call, ns)
                info = kwargs(info_call, ns, info_defaults)
                drive = drive_type(conf["diskType"], conf["format"])
                cmd = ["extend"] + cfg + ["--capacity", size(info["capacity"])]
                physical = info["physical"]
                rep = conf.get("diskReplicate")
                if rep is not None:
                    rep_node = next(kw.value for kw in drive_call.keywords if kw.arg == "diskReplicate")
                    rep = {ast.literal_eval(kk): evaluate(vv, ns) for kk, vv in zip(rep_node.keys, rep_node.values)}
                    cmd += ["--drive-type", drive, "--replica-type", drive_type(rep["diskType"], rep["format"])]
                    # thinp.py _amend_block_info: a drive that is not chunked takes the replica's size.
                    if drive != "block-cow":
                        physical = rep["size"]
                else:
                    cmd += ["--drive-type", drive]
                cmd += ["--physical", size(physical), "--allocation", size(info["allocation"])]
                case_id = ast.literal_eval(next(kw.value for kw in node.keywords if kw.arg == "id"))
                if state == "UNSET":
                    check(file, elts[1].lineno, func.name, case_id, cmd, "chunked", 0,
                          "BLOCK_THRESHOLD.UNSET (not monitored)")
                else:
                    threshold = evaluate(elts[2], ns)
                    check(file, elts[2].lineno, func.name, case_id, cmd, "block_threshold", threshold,
                          clean(ast.unparse(elts[2])))
        elif func.name == "test_exceeded_max_size":
            done.add(func.name)
            src = ast.get_source_segment("\n".join(lines), func)
            get = lambda k: evaluate(ast.parse(re.search(rf'vdb\["{k}"\] = (.+)', src).group(1), mode="eval").body,
                                     ns)
            line = find_line(func, lines, r"assert drive.threshold_state == BLOCK_THRESHOLD.DISABLED")
            check(file, line, func.name, 1, ["extend"] + cfg + ["--capacity", size(get("capacity")), "--physical",
                                                                 size(get("physical")), "--allocation",
                                                                 size(get("allocation")), "--threshold-exceeded"],
                  "action", "at-maximum", "BLOCK_THRESHOLD.DISABLED; no extension")
        elif func.name == "test_resize_maxed_drive":
            done.add(func.name)
            src = ast.get_source_segment("\n".join(lines), func)
            alloc = evaluate(ast.parse(re.search(r'vdb\["allocation"\] = (.+)', src).group(1), mode="eval").body, ns)
            phys = evaluate(ast.parse(re.search(r'vdb\["physical"\] = (.+)', src).group(1), mode="eval").body, ns)
            caps = re.findall(r'vdb\["capacity"\] = (.+)', src)
            line = find_line(func, lines, r"assert drive.threshold_state == BLOCK_THRESHOLD.EXCEEDED")
            check(file, line, func.name, 1, ["extend"] + cfg + ["--capacity", size(evaluate(
                ast.parse(caps[1], mode="eval").body, ns)), "--physical", size(phys), "--allocation", size(alloc)],
                "action", "extend", "BLOCK_THRESHOLD.EXCEEDED; one extension")
            line0 = find_line(func, lines, r"assert drive.threshold_state == BLOCK_THRESHOLD.DISABLED")
            check(file, line0, func.name, 2, ["extend"] + cfg + ["--capacity", size(evaluate(
                ast.parse(caps[0], mode="eval").body, ns)), "--physical", size(phys), "--allocation", size(alloc)],
                "action", "at-maximum", "BLOCK_THRESHOLD.DISABLED")
        elif func.name == "test_extend_improbable_allocation":
            done.add(func.name)
            left_out(file, find_line(func, lines, r"getNextVolumeSize"), func.name, 1,
                     "the input is VDSM's own getNextVolumeSize() + 1 (improbable allocation is in "
                     "tests/extend_test.cpp)")


def thinp(file, tree, lines, ns, done):
    for func in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
        if func.name == "test_set_threshold":
            done.add(func.name)
            src = ast.get_source_segment("\n".join(lines), func)
            app = evaluate(ast.parse(re.search(r"apparentsize = (.+)", src).group(1), mode="eval").body, ns)
            chunk = ns["DEFAULT_CHUNK_MB"] * ns["MiB"]
            expected = app - chunk * ((100 - ns["DEFAULT_PERCENT"]) / 100)
            line = find_line(func, lines, r"expected = apparentsize - threshold")
            check(file, line, func.name, 1, ["extend", "--chunk", f"{ns['DEFAULT_CHUNK_MB']}MiB", "--percent",
                                             str(ns["DEFAULT_PERCENT"]), "--capacity", "10GiB", "--physical",
                                             size(app), "--allocation", "0"], "block_threshold", int(expected),
                  "apparentsize - chunk_size * (100 - volume_utilization_percent) / 100 (config.py.in defaults)")
        elif func.name == "test_set_threshold_drive_too_small":
            done.add(func.name)
            src = ast.get_source_segment("\n".join(lines), func)
            app = evaluate(ast.parse(re.search(r"apparentsize = (.+)", src).group(1), mode="eval").body, ns)
            line = find_line(func, lines, r"assert value >= 1")
            check(file, line, func.name, 1, ["extend", "--capacity", "10GiB", "--physical", size(app),
                                             "--allocation", "0"], "block_threshold", 1,
                  "value >= 1 (the smallest threshold: 1)")


# What the functions that are not size rules are, file by file: the reason of their left_out rows.
NOT_SIZE = {
    "tests/virt/thinp_monitor_test.py": "the volume monitor's state machine and event routing (threshold states; "
                                        "extend requests and their callbacks): out of scope",
    "tests/virt/thinp_test.py": "the volume monitor's enable/disable and event routing: out of scope",
    "tests/virt/vmstorage_test.py": "drive XML; leases; iotune; disk type validation: no size decision",
    "tests/virt/livemerge_test.py": "the live merge job's state machine (persistence; retries; cleanup; pivot): "
                                    "out of scope; its extend sizes are VDSM's own getNextVolumeSize() and "
                                    "getMaxVolumeSize() (the rule is in tests/extend_vdsm_sizes_test.cpp)",
    "tests/storage/blockvolume_test.py": "volume metadata repair (updateInvalidatedSize): not a provisioning size",
    "tests/storage/filevolume_test.py": "file volume paths; metadata; leases: no size decision",
    "tests/storage/hsm_test.py": "image verification (format; backing file; qcow2 compat): no size decision",
    "tests/storage/blocksd_test.py": "block storage domain metadata; tags; bitmaps; volume chains: no size "
                                     "decision",
    "tests/storage/lvm_test.py": "LVM command construction; caching and parsing: no size decision",
}

HANDLERS = {
    "tests/storage/blockvolume_test.py": blockvolume,
    "tests/storage/filevolume_test.py": filevolume,
    "tests/storage/hsm_test.py": hsm,
    "tests/storage/blocksd_test.py": blocksd,
    "tests/virt/vmstorage_test.py": vmstorage,
    "tests/virt/thinp_monitor_test.py": thinp_monitor,
    "tests/virt/thinp_test.py": thinp,
}


def main():
    git_dir, commit, out = sys.argv[1:4]
    date = subprocess.run(["git", "--git-dir", git_dir, "show", "-s", "--format=%cs", commit], check=True,
                          capture_output=True, text=True).stdout.strip()
    base = constants(git_dir, commit)
    for file in FILES:
        text = show(git_dir, commit, file)
        tree = ast.parse(text)
        lines = text.split("\n")
        ns = module_constants(tree, base)
        done = set()
        if file in HANDLERS:
            HANDLERS[file](file, tree, lines, ns, done)
        # Every other test function, class methods named Class.method: left out, with the file's reason.
        for node in ast.walk(tree):
            funcs = []
            if isinstance(node, ast.ClassDef):
                funcs = [(f"{node.name}.{f.name}", f) for f in node.body if isinstance(f, ast.FunctionDef)]
            elif isinstance(node, ast.Module):
                funcs = [(f.name, f) for f in node.body if isinstance(f, ast.FunctionDef)]
            for key, f in funcs:
                if f.name.startswith("test") and key not in done and f.name not in done:
                    left_out(file, f.lineno, key, 1, NOT_SIZE[file])
    with open(out, "w") as o:
        o.write(f"# oVirt/vdsm at {commit} ({date}), extracted by tests/peers/vdsm/extract.sh\n")
        o.write("# command: provpol's arguments (--format csv is added); field: the output column compared "
                "(chunked: 0 when provpol answers not-chunked; else 1); expected: VDSM's value (bytes; 0/1; a "
                "word); expression: how the VDSM test writes it\n")
        o.write("id,file,line,status,reason,test,command,field,expected,expression\n")
        for r in rows:
            assert all("," not in x and "\n" not in x for x in r), r
            o.write(",".join(r) + "\n")


if __name__ == "__main__":
    main()
