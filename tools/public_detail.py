#!/usr/bin/env python3
"""Public names whose types are in provpol::detail: no detail type in a public signature.

    tools/public_detail.py SOURCE_DIR [CLANG]

Dumps clang's AST (JSON) of a translation unit that includes <provpol/models.hpp> (every public header) and walks
every declaration of namespace provpol outside provpol::detail, function bodies and non-public class members: a
function's or method's type (its return and parameters), a parameter, a public data member, a variable or a type
alias whose type names detail:: is reported, one a line. Exit 0 and a summary when there is none, 1 when there is
one, 77 (the ctest's skip) when clang++ is not installed.
"""
import json
import re
import shutil
import subprocess
import sys

FUNCS = {"FunctionDecl", "CXXMethodDecl", "CXXConstructorDecl", "CXXConversionDecl"}
RECORDS = {"CXXRecordDecl", "ClassTemplateSpecializationDecl", "ClassTemplatePartialSpecializationDecl"}
TYPED = FUNCS | {"FieldDecl", "VarDecl", "TypedefDecl", "TypeAliasDecl"}
DETAIL = re.compile(r"(^|[^A-Za-z0-9_])detail::")


def type_of(node):
    t = node.get("type", {})
    return (t.get("qualType", "") + " " + t.get("desugaredQualType", "")).strip()


def walk(node, scope, found, count):
    kind = node.get("kind")
    name = node.get("name", "")
    if node.get("isImplicit") or kind == "CompoundStmt":
        return
    if kind == "NamespaceDecl":
        if name == "detail":
            return
        scope = scope + [name]
    elif kind in RECORDS:
        if not node.get("completeDefinition"):
            return
        access = "private" if node.get("tagUsed") == "class" else "public"
        for child in node.get("inner", []):
            if child.get("kind") == "AccessSpecDecl":
                access = child.get("access")
            elif access == "public":
                walk(child, scope + [name], found, count)
        return
    where = "::".join(s for s in scope if s)
    if kind in TYPED:
        count[0] += 1
        if DETAIL.search(type_of(node)):
            found.add(f"{where}::{name} ({kind}): {type_of(node)}")
    if kind in FUNCS:
        for child in node.get("inner", []):
            if child.get("kind") == "ParmVarDecl" and DETAIL.search(type_of(child)):
                found.add(f"{where}::{name} (parameter {child.get('name', '')}): {type_of(child)}")
        return
    for child in node.get("inner", []):
        walk(child, scope, found, count)


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    src = sys.argv[1]
    clang = sys.argv[2] if len(sys.argv) > 2 else "clang++"
    if shutil.which(clang) is None:
        print(f"public_detail.py: {clang} not found: skipped", file=sys.stderr)
        return 77
    dump = subprocess.run(
        [clang, "-std=c++17", "-fsyntax-only", f"-I{src}/include", "-Xclang", "-ast-dump=json", "-Xclang",
         "-ast-dump-filter=provpol", "-x", "c++", "-"],
        input="#include <provpol/models.hpp>\n", capture_output=True, text=True, check=True).stdout
    decoder = json.JSONDecoder()
    space = re.compile(r"\S")
    found, count, at = set(), [0], 0
    while True:
        m = space.search(dump, at)
        if not m:
            break
        node, at = decoder.raw_decode(dump, m.start())
        walk(node, [], found, count)
    for line in sorted(found):
        print(f"public_detail.py: {line}: a public signature names a provpol::detail type", file=sys.stderr)
    if found:
        return 1
    print(f"no provpol::detail type in a public signature ({count[0]} public declarations read)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
