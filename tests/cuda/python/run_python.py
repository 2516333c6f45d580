#!/usr/bin/env python3
"""Runs a command that starts the tests' Python environment under softgpu,
and checks its exit code and output.

usage: run_python.py PYTHON [--rc N] [--stdout REGEX]... [--stderr REGEX]... -- COMMAND...

PYTHON is the environment's interpreter (build/_deps/pyenv/bin/python);
the word {PY} in COMMAND stands for it. When it does not exist (setup.sh
could not reach PyPI) the test is skipped: exit code 77, with the reason.
"""
import argparse
import os
import re
import subprocess
import sys


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit("usage: run_python.py PYTHON [--rc N] [--stdout RE]... [--stderr RE]... -- COMMAND...")
    split = argv.index("--")
    p = argparse.ArgumentParser()
    p.add_argument("python")
    p.add_argument("--rc", type=int, default=0)
    p.add_argument("--stdout", action="append", default=[])
    p.add_argument("--stderr", action="append", default=[])
    a = p.parse_args(argv[:split])
    if not os.access(a.python, os.X_OK):
        print(f"SKIP: no Python environment at {a.python}: scripts/setup.sh makes it from PyPI "
              "(tests/cuda/python/requirements.txt) and could not reach it")
        return 77
    cmd = [a.python if w == "{PY}" else w for w in argv[split + 1:]]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
    print(f"command: {' '.join(cmd)}\nexit code: {r.returncode}\n--- stdout ---\n{r.stdout}--- stderr ---\n{r.stderr}")
    failures = []
    if r.returncode != a.rc:
        failures.append(f"exit code {r.returncode}, expected {a.rc}")
    failures += [f"stdout does not match {x!r}" for x in a.stdout if not re.search(x, r.stdout, re.M)]
    failures += [f"stderr does not match {x!r}" for x in a.stderr if not re.search(x, r.stderr, re.M)]
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
