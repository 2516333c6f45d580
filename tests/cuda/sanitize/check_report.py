#!/usr/bin/env python3
"""Runs `softgpu sanitize` on a test program and checks its report exactly.

usage: check_report.py SOFTGPU PROG EXPECTED_FILE EXPECT_RC [sanitize options...] [-- program args...]

Every line of the output that starts with "=========" must equal the
expected file's lines, in order, where the expected lines may hold
placeholders: {ADDR} matches a hexadecimal address (0x...), {N} a decimal
number. Lines of the program's own output are ignored, except that
expected lines starting with "OUT: " must be lines of it, in that order.
Expected lines starting with "#" are comments. An expected file whose only line is
{NO_ERRORS} accepts any report whose summary counts 0 errors (warnings
allowed): "ERROR SUMMARY: 0 errors" or, for racecheck, "(0 errors, ...".
"""
import re
import subprocess
import sys


def pattern(line):
    parts = re.split(r"(\{ADDR\}|\{N\})", line)
    out = ""
    for p in parts:
        if p == "{ADDR}":
            out += "0x[0-9a-f]+"
        elif p == "{N}":
            out += "[0-9]+"
        else:
            out += re.escape(p)
    return re.compile(out + r"\Z")


def main():
    softgpu, prog, expected_file, expect_rc = sys.argv[1:5]
    rest = sys.argv[5:]
    opts, args = rest, []
    if "--" in rest:
        i = rest.index("--")
        opts, args = rest[:i], rest[i + 1:]
    cmd = [softgpu, "sanitize"] + opts + ["--", prog] + args
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    print("command:", " ".join(cmd))
    print("exit code:", r.returncode)
    print("--- stdout ---\n" + r.stdout + "--- stderr ---\n" + r.stderr + "--------------")
    got = [l.rstrip("\n") for l in r.stdout.splitlines() if l.startswith("=========")]
    with open(expected_file) as f:
        want = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
    want_out = [l[len("OUT: "):] for l in want if l.startswith("OUT: ")]
    want = [l for l in want if not l.startswith("OUT: ")]
    failures = []
    out = iter(l for l in r.stdout.splitlines() if not l.startswith("========="))
    for w in want_out:
        if not any(pattern(w).match(l) for l in out):
            failures.append(f"program output lacks (in order): {w}")
            break
    if str(r.returncode) != expect_rc:
        failures.append(f"exit code {r.returncode}, expected {expect_rc}")
    if want == ["{NO_ERRORS}"]:
        summary = [l for l in got if "ERROR SUMMARY:" in l or "RACECHECK SUMMARY:" in l]
        if not summary or not re.search(r"ERROR SUMMARY: 0 errors$|\(0 errors, ", summary[-1]):
            failures.append(f"summary: {summary[-1] if summary else '<none>'}, expected 0 errors")
        want = got if not failures else want
    for i in range(max(len(got), len(want))):
        g = got[i] if i < len(got) else "<missing>"
        w = want[i] if i < len(want) else "<nothing more expected>"
        if i >= len(want) or i >= len(got) or not pattern(w).match(g):
            failures.append(f"report line {i + 1}:\n  got:      {g}\n  expected: {w}")
            break
    if failures:
        print("FAILED:\n" + "\n".join(failures))
        return 1
    print(f"OK: {len(got)} report lines as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
