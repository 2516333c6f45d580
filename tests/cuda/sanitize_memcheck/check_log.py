#!/usr/bin/env python3
"""`softgpu sanitize --log-file`: the report goes to the file, stdout keeps
only the program's own output.

usage: check_log.py SOFTGPU PROG EXPECTED_FILE EXPECT_RC LOG_FILE PROGRAM_OUTPUT [-- program args...]

The log file's lines must equal EXPECTED_FILE's (placeholders as in
../sanitize/check_report.py); stdout must hold PROGRAM_OUTPUT and no line
starting with "=========".
"""
import importlib.util
import os
import subprocess
import sys

spec = importlib.util.spec_from_file_location(
    "check_report", os.path.join(os.path.dirname(__file__), "..", "sanitize", "check_report.py"))
check_report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_report)


def main():
    softgpu, prog, expected_file, expect_rc, log, program_output = sys.argv[1:7]
    args = sys.argv[8:] if len(sys.argv) > 7 and sys.argv[7] == "--" else sys.argv[7:]
    if os.path.exists(log):
        os.remove(log)
    cmd = [softgpu, "sanitize", "--tool", "memcheck", "--log-file", log, "--", prog] + args
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    print("command:", " ".join(cmd))
    print("exit code:", r.returncode)
    print("--- stdout ---\n" + r.stdout + "--- stderr ---\n" + r.stderr + "--------------")
    failures = []
    if str(r.returncode) != expect_rc:
        failures.append(f"exit code {r.returncode}, expected {expect_rc}")
    if any(l.startswith("=========") for l in r.stdout.splitlines()):
        failures.append("report lines on stdout")
    if program_output not in r.stdout:
        failures.append(f"stdout lacks the program's output '{program_output}'")
    got = open(log).read().splitlines() if os.path.exists(log) else []
    print("--- log ---\n" + "\n".join(got) + "\n-----------")
    with open(expected_file) as f:
        want = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
    for i in range(max(len(got), len(want))):
        g = got[i] if i < len(got) else "<missing>"
        w = want[i] if i < len(want) else "<nothing more expected>"
        if i >= len(want) or i >= len(got) or not check_report.pattern(w).match(g):
            failures.append(f"log line {i + 1}:\n  got:      {g}\n  expected: {w}")
            break
    if failures:
        print("FAILED:\n" + "\n".join(failures))
        return 1
    print(f"OK: {len(got)} log lines as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
