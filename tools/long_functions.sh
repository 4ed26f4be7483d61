#!/usr/bin/env bash
# Functions longer than the limit (80 lines) in include/ and examples/, each with the reason it must be one.
#
#   tools/long_functions.sh [--max N] [--check] [PATH ...]
#
# Scans every .hpp, .cpp, .h and .c file under the paths (default: include and examples, from the repository
# root) and prints one line per function body longer than N lines (default 80), counted from the line where its
# declaration starts to the line of its closing brace:
#   path:line: name: N lines: <reason>
# The reason is a comment "// long: <reason>" on one of the function's head lines (from the line where its
# declaration starts to the line of its opening brace) or on the line just above them. A function over the limit without one is printed with
# "UNJUSTIFIED" instead; --check (the ctest docs.long_functions) then exits 1. Exit 2 on a file whose braces do not
# balance (the scan cannot be trusted there) or on bad usage.
#
# The scan is a brace matcher over the code with comments, string and character literals (raw strings too) and
# preprocessor lines blanked out. A brace opens a function body when it stands at namespace or class scope and its
# head (the code since the previous ';', '{' or '}' at that scope) has a parenthesis and is no class, struct, union,
# enum or namespace head; constructors with initialiser lists and lambdas assigned at namespace scope count, a
# brace initialiser (no parenthesis in its head) does not, and braces inside the head (a default argument's {}, a
# member's brace initialiser) belong to it. Lambdas and local classes inside a function are part of its body.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

max=80 check=0 paths=()
while [ $# -gt 0 ]; do
  case "$1" in
    --max) max=${2:?--max needs a number}; shift ;;
    --check) check=1 ;;
    -h|--help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
    -*) echo "long_functions.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) paths+=("$1") ;;
  esac
  shift
done
case $max in ''|*[!0-9]*) echo "long_functions.sh: --max must be a whole number of lines, got '$max'" >&2; exit 2 ;; esac
[ ${#paths[@]} -gt 0 ] || paths=(include examples)

cd "$root"
python3 - "$max" "$check" "${paths[@]}" <<'EOF'
import os
import re
import sys

max_lines, check, paths = int(sys.argv[1]), sys.argv[2] == "1", sys.argv[3:]


def blank_code(text):
    """The text with comments, literals and preprocessor lines replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if line_start and c == "#":  # a preprocessor line, with its continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        line_start = False
        if c == "\n":
            out.append(c)
            line_start = True
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('"', i + 1) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")
                                                          or text[i - 1] in "uUL8"):
            m = re.match(r'R"([^()\\ ]{0,16})\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i + m.end())
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and (text[i - 1].isalnum()) and i + 1 < n and text[i + 1].isalnum():
                out.append(" ")  # a digit separator (1'000)
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def head_kind(head):
    h = re.sub(r"\s+", " ", head).strip()
    h = re.sub(r"^(\[\[[^\]]*\]\]\s*)+", "", h)
    h = re.sub(r"^template\s*<.*?>\s*", "", h) if h.startswith("template") else h
    if re.match(r"^(inline\s+)?namespace\b", h) or re.match(r'^extern\s*$', h):
        return "namespace"
    if re.match(r"^(typedef\s+)?(class|struct|union|enum)\b", h) and not re.search(r"\)\s*(const\b|noexcept\b|->|$)", h):
        return "class"
    if "(" in h:
        return "function"
    return "other"


def function_name(head):
    h = re.sub(r"\s+", " ", head)
    h = re.sub(r"^\s*template\s*<", "<", h)
    depth = 0
    for m in re.finditer(r"operator\s*(\(\)|[^\s(]+)\s*\(|[A-Za-z_~][\w:~]*\s*\(|->|<|>", h):
        tok = m.group(0)
        if tok == "->":
            continue
        if tok == "<":
            depth += 1
            continue
        if tok == ">":
            depth = max(0, depth - 1)
            continue
        name = tok.rstrip("( ").strip()
        if depth == 0 and name not in ("decltype", "sizeof", "alignof", "noexcept", "alignas", "__attribute__",
                                       "static_assert", "requires", "PROVPOL_MODULAR_ARITHMETIC"):
            return name
    return "?"


def scan(path):
    raw = open(path, encoding="utf-8", errors="replace").read()
    lines = raw.split("\n")
    code = blank_code(raw)
    found = []
    stack = []  # (kind, start line of the head, brace line, name)
    head_start = None  # offset of the first code character of the current head
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
            continue
        scope = stack[-1][0] if stack else "namespace"
        if c == "{":
            if scope in ("namespace", "class"):
                head = code[head_start:i] if head_start is not None else ""
                if head.count("(") > head.count(")") or (re.search(r"\)[^;{}]*?(?<!:):(?!:)", head) and
                                                         re.search(r"[\w>]\s*$", head)):
                    # a brace inside parentheses (a default argument's {}) or a member's brace initialiser in a
                    # constructor's list: part of the head
                    stack.append(("init", line, line, ""))
                    continue
                kind = head_kind(head)
                start = code.count("\n", 0, head_start) + 1 if head_start is not None else line
                name = function_name(head) if kind == "function" else ""
                if name == "?" and "=" in head:  # a lambda held by a variable: the variable's name
                    name = re.findall(r"([A-Za-z_]\w*)\s*=", head)[0] if re.findall(r"([A-Za-z_]\w*)\s*=", head) else "?"
                stack.append((kind, start, line, name))
            else:
                stack.append(("block", line, line, ""))
            head_start = None
        elif c == "}":
            if not stack:
                return None, f"{path}:{line}: a '}}' closes nothing"
            kind, start, brace, name = stack.pop()
            if kind == "init":
                continue  # the constructor's head goes on
            if kind == "function":
                length = line - start + 1
                if length > max_lines:
                    reason = None
                    for k in range(max(1, start - 1), brace + 1):
                        m = re.search(r"//\s*long:\s*(.*\S)", lines[k - 1])
                        if m:
                            reason = m.group(1)
                            break
                    found.append((path, start, name, length, reason))
            head_start = None
        elif c == ";" or c == ":" and scope == "class" and re.search(r"\b(public|private|protected)\s*$", code[head_start or i:i]):
            if scope in ("namespace", "class"):
                head_start = None
        elif not c.isspace() and head_start is None and scope in ("namespace", "class"):
            head_start = i
    if stack:
        return None, f"{path}:{stack[-1][2]}: a '{{' is never closed"
    return found, None


files = []
for p in paths:
    if os.path.isfile(p):
        files.append(p)
        continue
    for d, _, names in os.walk(p):
        files.extend(os.path.join(d, f) for f in names if f.endswith((".hpp", ".cpp", ".h", ".c")))
bad = unbalanced = 0
for path in sorted(files):
    found, err = scan(path)
    if err:
        print(f"long_functions.sh: {err}: braces do not balance, the file cannot be scanned", file=sys.stderr)
        unbalanced = 1
        continue
    for path_, start, name, length, reason in found:
        if reason is None:
            bad += 1
            print(f"{path_}:{start}: {name}: {length} lines: UNJUSTIFIED (split it, or say why it must be one "
                  f"in a '// long: <reason>' comment on its head or the line above)")
        else:
            print(f"{path_}:{start}: {name}: {length} lines: {reason}")
if unbalanced:
    sys.exit(2)
if check and bad:
    print(f"long_functions.sh: {bad} function(s) over {max_lines} lines without a reason", file=sys.stderr)
    sys.exit(1)
EOF
