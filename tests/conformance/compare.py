#!/usr/bin/env python3
"""Compares two runs of a conformance program (e.g. softgpu vs a real GPU),
check by check: same form and inputs, are the result bits equal? Both runs
should use --all. Usage: compare.py A.txt[.gz] B.txt[.gz] [--max N]
Prints each differing check (reference verdicts of both sides and both bit
patterns), then "<n> identical, <m> differ, <k> only in one run"."""
import gzip
import re
import sys

LINE = re.compile(r"^(OK|MISMATCH|DATA) (\S+) (\S+) (?:expected=(\S+) )?got=(\S+)")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    rows = {}
    with opener(path, "rt", errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if m:
                kind, form, inputs, _, got = m.groups()
                rows[(form, inputs)] = (kind, got.split("(")[0])
    return rows


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    limit = int(sys.argv[sys.argv.index("--max") + 1]) if "--max" in sys.argv else 200
    if len(args) < 2:
        print(__doc__)
        return 2
    a, b = load(args[0]), load(args[1])
    same = differ = 0
    for key in a:
        if key not in b:
            continue
        if a[key][1] == b[key][1]:
            same += 1
            continue
        differ += 1
        if differ <= limit:
            print("DIFF %s %s %s:%s %s:%s" % (key[0], key[1], a[key][0], a[key][1], b[key][0], b[key][1]))
    only = len(set(a) ^ set(b))
    print("%d identical, %d differ, %d only in one run" % (same, differ, only))
    return 0 if differ == 0 and only == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
