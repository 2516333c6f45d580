#!/usr/bin/env python3
"""Checks every src/ folder's #includes against the dependency table in
docs/architecture.md ("| `src/x` | owns | depends on |").

A folder may include its own headers and those of the folders it depends on,
directly or through them (the transitive closure of the table). Every folder
under src/ must have a row, every row must name a real folder, and the table
must have no cycles. Exit status 0 when the tree obeys the table, 1 otherwise,
with one line per violation: file:line: folder includes other (allowed: ...).
"""
import argparse
import pathlib
import re
import sys

ROW = re.compile(r"^\|\s*`src/([a-z_0-9]+)`\s*\|[^|]*\|([^|]*)\|\s*$")
DEP = re.compile(r"[a-z_0-9]+")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_0-9]+)/')
SOURCES = {".h", ".hpp", ".cpp", ".cc", ".inc", ".def", ".cu", ".cuh"}


def read_table(doc: pathlib.Path):
    deps = {}
    for line in doc.read_text().splitlines():
        m = ROW.match(line)
        if not m:
            continue
        cell = m.group(2).strip()
        deps[m.group(1)] = set() if cell in ("", "—", "-") else set(DEP.findall(cell))
    return deps


def closure(deps, folder, stack=()):
    if folder in stack:
        raise ValueError("cycle in the dependency table: " + " -> ".join(stack + (folder,)))
    out = set()
    for d in deps.get(folder, ()):
        out.add(d)
        out |= closure(deps, d, stack + (folder,))
    return out


def check(root: pathlib.Path):
    errors = []
    doc = root / "docs" / "architecture.md"
    deps = read_table(doc)
    if not deps:
        return [f"{doc}: no dependency table rows found"]
    folders = sorted(p.name for p in (root / "src").iterdir() if p.is_dir())
    for f in folders:
        if f not in deps:
            errors.append(f"{doc}: src/{f} has no row in the dependency table")
    for f, ds in deps.items():
        if f not in folders:
            errors.append(f"{doc}: the table names src/{f}, which does not exist")
        for d in ds:
            if d not in deps:
                errors.append(f"{doc}: src/{f} depends on '{d}', which has no row")
    try:
        allowed = {f: closure(deps, f) | {f} for f in deps}
    except ValueError as e:
        return errors + [f"{doc}: {e}"]
    for f in folders:
        if f not in allowed:
            continue
        for path in sorted((root / "src" / f).rglob("*")):
            if path.suffix not in SOURCES or not path.is_file():
                continue
            for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                m = INCLUDE.match(line)
                if not m or m.group(1) not in folders:
                    continue
                if m.group(1) not in allowed[f]:
                    rel = path.relative_to(root)
                    errors.append(f"{rel}:{n}: src/{f} includes src/{m.group(1)} "
                                  f"(allowed: {', '.join(sorted(allowed[f]))})")
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", nargs="?", default=pathlib.Path(__file__).resolve().parents[2],
                    type=pathlib.Path, help="repository root (default: this checkout)")
    errors = check(ap.parse_args().root)
    for e in errors:
        print(e)
    print(f"layers: {len(errors)} violation(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
