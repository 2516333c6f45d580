#!/usr/bin/env python3
"""softgpu sanitize's --save/--xml/--suppressions workflow (NVIDIA's
compute-sanitizer Suppressions samples' Makefile: gen_supp, run_*_with_supp).

usage: check_suppressions.py SOFTGPU PROG SOURCE WORKDIR CASE
PROG is suppressions.cu built with -lineinfo, SOURCE that file (its
OOB-WRITE and UNINIT-READ markers give the expected source lines). CASE:
memcheck, two_findings, malformed, initcheck, abort, outputs.
"""
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

SOFTGPU, PROG, SOURCE, WORK, CASE = sys.argv[1:6]
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def sanitize(*args):
    cmd = [SOFTGPU, "sanitize", *args]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    print("$ " + " ".join(cmd) + f"\n  exit {r.returncode}\n  stdout: {r.stdout!r}\n  stderr: {r.stderr!r}")
    return r


def report_lines(text):
    return [l for l in text.splitlines() if l.startswith("=========")]


def path(name):
    return os.path.join(WORK, name)


def marker_line(marker):
    with open(SOURCE) as f:
        for i, l in enumerate(f, 1):
            if marker in l:
                return f"{os.path.basename(SOURCE)}:{i}"
    raise SystemExit(f"no {marker} in {SOURCE}")


def records(xml_file, tool):
    """The file's records as dicts (fields and text), after checking its shape."""
    root = ET.parse(xml_file).getroot()  # raises when not well-formed
    check(root.tag == "softgpuSanitizer" and root.get("tool") == tool, f"{xml_file}: root <softgpuSanitizer tool={tool}>")
    recs = [{f.tag: f.text for f in r} for r in root.findall("record")]
    for r in recs:
        ident = {k: v for k, v in r.items() if k != "text"}
        check(not any("0x" in v for v in ident.values()), f"no addresses in the identity {ident}")
        check(r.get("tool") == tool and r.get("kind") and r.get("text"), f"tool, kind and text in {ident}")
    summary = root.findall("summary")
    check(len(summary) == 1 and root[-1].tag == "summary", f"{xml_file}: one <summary>, last")
    if summary:
        errors = int(summary[0].findtext("errors"))
        check(errors == len(recs), f"{xml_file}: <errors>{errors}</errors> counts its {len(recs)} records")
    return root, recs


def clean_report(r, rc, what):
    check(r.returncode == rc, f"{what}: exit {r.returncode}, as a clean run ({rc})")
    lines = report_lines(r.stdout)
    check(lines == ["========= COMPUTE-SANITIZER", "========= ERROR SUMMARY: 0 errors"],
          f"{what}: no report lines, 0 errors ({lines})")


def memcheck():
    # gen_supp: the report goes to the file only.
    r = sanitize("--save", path("supp.xml"), "--xml", PROG, "alloc")
    check(r.returncode == 0 and not report_lines(r.stdout) and "largest allocation" in r.stdout,
          "gen_supp: exit 0, the program's output on stdout, no report lines there")
    _, recs = records(path("supp.xml"), "memcheck")
    check(len(recs) >= 1, f"{len(recs)} records")
    for x in recs:
        check((x["kind"], x.get("function"), x.get("error")) == ("api_error", "cudaMalloc", "2"),
              f"record is cudaMalloc's error 2: {x}")
        check(x["text"] == 'Program hit cudaErrorMemoryAllocation (error 2) due to "out of memory" on CUDA API call '
              "to cudaMalloc.", f"record's text: {x['text']!r}")
    # run_memcheck: the same findings as text.
    r = sanitize("--error-exitcode", "3", PROG, "alloc")
    hits = [l for l in report_lines(r.stdout) if "Program hit cudaErrorMemoryAllocation" in l]
    check(r.returncode == 3 and len(hits) == len(recs) and f"ERROR SUMMARY: {len(recs)} error" in r.stdout,
          f"run_memcheck: exit 3, {len(recs)} reports as text")
    # run_memcheck_with_supp: nothing reported nor counted.
    clean_report(sanitize("--suppressions", path("supp.xml"), "--error-exitcode", "3", PROG, "alloc"), 0,
                 "run_memcheck_with_supp")
    # A memcheck record does not suppress another tool's finding.
    r = sanitize("--tool", "initcheck", "--suppressions", path("supp.xml"), PROG, "alloc")
    check(f"ERROR SUMMARY: {len(recs)} error" in r.stdout, "memcheck records do not suppress initcheck's findings")


def two_findings():
    r = sanitize("--save", path("both.xml"), "--xml", PROG, "alloc", "oob")
    root, recs = records(path("both.xml"), "memcheck")
    kinds = [(x["kind"], x.get("function"), x.get("error")) for x in recs]
    oob = [x for x in recs if x["kind"] == "invalid_access"]
    check(("api_error", "cudaMalloc", "2") in kinds and ("api_error", "cudaDeviceSynchronize", "719") in kinds
          and len(oob) == 1, f"cudaMalloc's and cudaDeviceSynchronize's errors and one invalid access: {kinds}")
    if oob:
        want = {"tool": "memcheck", "kind": "invalid_access", "kernel": "fill(int*, int)",
                "location": marker_line("OOB-WRITE"), "access": "write", "space": "global", "size": "4"}
        got = {k: v for k, v in oob[0].items() if k != "text"}
        check(got == want, f"the invalid access's identity {got} == {want}")
        check(oob[0]["text"].startswith("Invalid __global__ write of size 4 bytes\n    at fill(int*, int) in "),
              f"its text: {oob[0]['text']!r}")
    # Keep only cudaMalloc's records: the other findings are still reported.
    for rec in [e for e in root.findall("record") if e.findtext("function") != "cudaMalloc"]:
        root.remove(rec)
    ET.ElementTree(root).write(path("only_alloc.xml"), encoding="UTF-8", xml_declaration=True)
    r = sanitize("--suppressions", path("only_alloc.xml"), "--error-exitcode", "3", PROG, "alloc", "oob")
    lines = report_lines(r.stdout)
    check(r.returncode == 3, f"exit {r.returncode}: the unsuppressed findings count for --error-exitcode")
    check(not any("cudaMalloc" in l for l in lines), "no cudaMalloc report")
    check(sum("Invalid __global__ write of size 4 bytes" in l for l in lines) == 1, "the invalid write is reported")
    check(any("on CUDA API call to cudaDeviceSynchronize." in l for l in lines), "cudaDeviceSynchronize's error too")
    check(lines[-1:] == ["========= ERROR SUMMARY: 2 errors"], f"2 errors counted: {lines[-1:]}")
    clean_report(sanitize("--suppressions", path("both.xml"), "--error-exitcode", "3", PROG, "alloc", "oob"), 0,
                 "every finding suppressed")


def malformed():
    cases = {
        "bad.xml": ("<softgpuSanitizer version=\"1\">\n  <record><tool>memcheck</tool>\n", "not well-formed XML"),
        "field.xml": ("<softgpuSanitizer version=\"1\">\n  <record><tool>memcheck</tool><kind>leak</kind>"
                      "<colour>red</colour></record>\n</softgpuSanitizer>\n", "line 2: unknown field <colour>"),
        "nvidia.xml": ("<?xml version=\"1.0\"?>\n<ComputeSanitizerOutput/>\n", "not compute-sanitizer's files"),
    }
    for name, (text, why) in cases.items():
        with open(path(name), "w") as f:
            f.write(text)
        r = sanitize("--suppressions", path(name), PROG, "alloc")
        check(r.returncode == 2 and f"suppression file '{path(name)}'" in r.stderr and why in r.stderr
              and not r.stdout, f"{name}: a usage error (exit 2) naming the file: {why}")
    r = sanitize("--suppressions", WORK, PROG, "alloc")
    check(r.returncode == 2 and "not a regular file" in r.stderr, "a directory: a usage error")
    r = sanitize("--suppressions", path("missing.xml"), PROG, "alloc")
    check(r.returncode == 2 and "missing.xml" in r.stderr, "a missing file: a usage error")


def initcheck():
    sanitize("--tool", "initcheck", "--save", path("init.xml"), "--xml", PROG, "uninit")
    _, recs = records(path("init.xml"), "initcheck")
    want = {"tool": "initcheck", "kind": "uninitialized_read", "kernel": "doubled(int const*, int*, int)",
            "location": marker_line("UNINIT-READ"), "access": "read", "space": "global", "size": "4"}
    got = [{k: v for k, v in x.items() if k != "text"} for x in recs]
    check(got == [want], f"one uninitialized read: {got} == [{want}]")
    r = sanitize("--tool", "initcheck", "--error-exitcode", "3", PROG, "uninit")
    check(r.returncode == 3 and "Uninitialized __global__ memory read of size 4 bytes" in r.stdout,
          "run_initcheck: reported, exit 3")
    clean_report(sanitize("--tool", "initcheck", "--suppressions", path("init.xml"), "--error-exitcode", "3", PROG,
                          "uninit"), 0, "run_initcheck_with_supp")


def abort():
    r = sanitize("--save", path("abort.xml"), "--xml", "--error-exitcode", "3", PROG, "alloc", "abort")
    check(r.returncode == 3, f"exit {r.returncode}: --error-exitcode after the abort")
    root, recs = records(path("abort.xml"), "memcheck")
    msgs = [m.text for m in root.findall("message")]
    check(len(recs) >= 1 and "Error: process didn't terminate successfully" in msgs,
          f"records and the abort in the well-formed file: {msgs}")
    clean_report(sanitize("--suppressions", path("abort.xml"), "--error-exitcode", "3", PROG, "alloc"), 0,
                 "the aborted run's file suppresses")


def outputs():
    # --xml without --save: XML where the text would go (stdout).
    r = sanitize("--xml", PROG, "alloc")
    out = r.stdout
    check(out.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<softgpuSanitizer version="1" tool="memcheck">')
          and "<kind>api_error</kind>" in out and out.rstrip().endswith("</softgpuSanitizer>")
          and not report_lines(out), "--xml: the XML report on stdout")
    # --save without --xml: the text report in the file.
    r = sanitize("--save", path("report.txt"), PROG, "alloc")
    with open(path("report.txt")) as f:
        text = f.read().splitlines()
    check(not report_lines(r.stdout) and text[0] == "========= COMPUTE-SANITIZER"
          and text[-1].startswith("========= ERROR SUMMARY: ") and any("Program hit" in l for l in text),
          "--save: the text report in the file")
    r = sanitize("--save", path("a.xml"), "--log-file", path("b.log"), PROG, "alloc")
    check(r.returncode == 2 and "--save and --log-file" in r.stderr, "--save with --log-file: a usage error")


globals()[CASE]()
if failures:
    print(f"FAILED: {len(failures)} checks")
    sys.exit(1)
print("all checks passed")
