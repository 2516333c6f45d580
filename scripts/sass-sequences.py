#!/usr/bin/env python3
"""Counts the SASS instructions ptxas emits for PTX instructions that become
machine-code sequences (the timing model's `[timing.sequences]`, docs/gpus.md).

A documentation tool, not part of the build or of CI. For each form below it
writes a one-instruction PTX kernel whose inputs come from global memory (so
nothing folds), compiles it with the toolkit's ptxas for each architecture,
disassembles it with nvdisasm (`pip install --user nvidia-cuda-nvdisasm`; the
toolkit here lacks it) and walks the code from the entry:

- the kernel's own instructions are left out: constant-bank reads of the
  parameters (LDC, ULDC, moves from c[0x0][...]), the LDG of the inputs, the
  STG of the result, EXIT, NOP and the closing `BRA` to itself;
- everything else on the path is counted, predicated instructions included
  (they issue), and calls are followed into the callee (`CALL`, the
  callee's instructions, `RET`): 64-bit division is a subroutine;
- at a conditional branch where one side makes a call before the paths
  join and the other does not, the side without the call is taken: ptxas's
  special-value path for denormals, zeros, infinities and NaN
  (`__internal_..._slowpath`, `div_rn_f64_full`, `dsqrt_..._mediumpath`,
  behind `FCHK` or an exponent range test). Other conditional branches
  follow the table BRANCHES, read off the listing (`--show`), else fall
  through and are reported as "(N br)" for checking by hand.

Per form it prints the instruction count (`slots`), the longest chain of
instructions each reading a register (or predicate) an earlier one wrote,
ending at the stored result (`depth`, the dependent steps the result waits
for), and the pipe most of them go to (by SASS mnemonic, Nsight Compute's
pipe names). `--show FORM` prints the path it counted, `--mix` the count per
pipe, `--toml ARCH` the [timing.sequences] block of a config.

Usage: scripts/sass-sequences.py [--ptxas PATH] [--nvdisasm PATH] [--arch sm_80,sm_89,sm_90]
                                 [--show FORM] [--mix] [--toml ARCH]
"""
import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

# (name, destination type, source type, number of sources, instruction).
# `name` is the [timing.sequences] key the form is measured for; forms
# measured only to show that they are not sequences start with "-".
FORMS = [
    ("div_rn_f32", "f32", "f32", 2, "div.rn.f32"),
    ("div_full_f32", "f32", "f32", 2, "div.full.f32"),
    ("div_rz_f32", "f32", "f32", 2, "div.rz.f32"),
    ("div_rz_f32", "f32", "f32", 2, "div.rm.f32"),
    ("div_rz_f32", "f32", "f32", 2, "div.rp.f32"),
    ("rcp_f32", "f32", "f32", 1, "rcp.rn.f32"),
    ("rcp_f32", "f32", "f32", 1, "rcp.rz.f32"),
    ("sqrt_rn_f32", "f32", "f32", 1, "sqrt.rn.f32"),
    ("sqrt_rz_f32", "f32", "f32", 1, "sqrt.rz.f32"),
    ("sqrt_rz_f32", "f32", "f32", 1, "sqrt.rm.f32"),
    ("div_f64", "f64", "f64", 2, "div.rn.f64"),
    ("rcp_f64", "f64", "f64", 1, "rcp.rn.f64"),
    ("sqrt_f64", "f64", "f64", 1, "sqrt.rn.f64"),
    ("rsqrt_f64", "f64", "f64", 1, "rsqrt.approx.f64"),
    ("div_u32", "u32", "u32", 2, "div.u32"),
    ("div_s32", "s32", "s32", 2, "div.s32"),
    ("rem_u32", "u32", "u32", 2, "rem.u32"),
    ("rem_s32", "s32", "s32", 2, "rem.s32"),
    ("div_u64", "u64", "u64", 2, "div.u64"),
    ("div_s64", "s64", "s64", 2, "div.s64"),
    ("rem_u64", "u64", "u64", 2, "rem.u64"),
    ("rem_s64", "s64", "s64", 2, "rem.s64"),
    ("mul_lo_64", "u64", "u64", 2, "mul.lo.u64"),
    ("mul_lo_64", "u64", "u64", 3, "mad.lo.u64"),
    ("mul_hi_64", "u64", "u64", 2, "mul.hi.u64"),
    ("mul_hi_64", "u64", "u64", 3, "mad.hi.u64"),
    # Costed as their .rn form (div_f64, rcp_f64, sqrt_f64), though ptxas
    # calls a longer subroutine whose branches this script does not decide:
    ("-div.rz.f64", "f64", "f64", 2, "div.rz.f64"),
    ("-rcp.rz.f64", "f64", "f64", 1, "rcp.rz.f64"),
    ("-sqrt.rz.f64", "f64", "f64", 1, "sqrt.rz.f64"),
    # Not sequences in the model (one machine instruction, or a MUFU with
    # a few fix-ups for denormal inputs when not .ftz):
    ("-", "f32", "f32", 2, "div.approx.f32"),
    ("-", "f32", "f32", 1, "rcp.approx.f32"),
    ("-", "f32", "f32", 1, "rcp.approx.ftz.f32"),
    ("-", "f64", "f64", 1, "rcp.approx.ftz.f64"),
    ("-", "f64", "f64", 1, "rsqrt.approx.ftz.f64"),
    ("-", "f32", "f32", 1, "sqrt.approx.f32"),
    ("-", "f32", "f32", 1, "rsqrt.approx.f32"),
    ("-", "f32", "f32", 1, "ex2.approx.f32"),
    ("-", "f32", "f32", 1, "ex2.approx.ftz.f32"),
    ("-", "f32", "f32", 1, "lg2.approx.f32"),
    ("-", "f32", "f32", 1, "sin.approx.f32"),
    ("-", "f32", "f32", 1, "tanh.approx.f32"),
    ("-", "s64", "s32", 2, "mul.wide.s32"),
    ("-", "u32", "u32", 2, "mul.hi.u32"),
    ("-", "s64", "s64", 2, "add.s64"),
    ("-", "f64", "s64", 1, "cvt.rn.f64.s64"),
    ("-", "s64", "f64", 1, "cvt.rzi.s64.f64"),
    ("-", "f32", "u64", 1, "cvt.rn.f32.u64"),
    ("-", "u64", "f32", 1, "cvt.rzi.u64.f32"),
    ("-", "f32", "f64", 1, "cvt.rn.f32.f64"),
    ("-", "f64", "f16", 1, "cvt.f64.f16"),
    ("-", "f16", "f64", 1, "cvt.rn.f16.f64"),
    ("-", "bf16", "f64", 1, "cvt.rn.bf16.f64"),
    ("-", "f64", "f64", 1, "cvt.rni.f64.f64"),
]

ARCHS = ["sm_80", "sm_89", "sm_90"]

# Branches where neither direction makes a call, in the order the walk meets
# them: "T" follows the branch, "F" falls through (the default). Read off the
# listing (--show): the common path is the one for normal, in-range operands.
BRANCHES = {
    # __cuda_sm20_div_rz_f32: both exponents in range (@!P0 BRA), then the
    # result's exponent in range (@!P0 BRA to the return).
    "div.rz.f32": "TT",
    "div.rm.f32": "TT",
    "div.rp.f32": "TT",
}

# SASS mnemonic (before the first '.') -> pipe, for the `pipe` column.
PIPES = {
    "FFMA": "fma", "FMUL": "fma", "FADD": "fma", "FCHK": "fma", "IMAD": "fma", "FSWZADD": "fma",
    "DFMA": "fp64", "DMUL": "fp64", "DADD": "fp64", "DSETP": "fp64",
    "MUFU": "xu", "I2F": "xu", "F2I": "xu", "F2F": "xu", "FRND": "xu", "I2FP": "alu", "F2IP": "alu",
    "IADD3": "alu", "VIADD": "alu", "LOP3": "alu", "SHF": "alu", "SEL": "alu", "FSEL": "alu", "ISETP": "alu",
    "FSETP": "alu", "PLOP3": "alu", "LEA": "alu", "MOV": "alu", "IABS": "alu", "FMNMX": "alu", "IMNMX": "alu",
    "SHL": "alu", "SHR": "alu", "FLO": "alu", "POPC": "alu", "BREV": "alu", "PRMT": "alu", "HFMA2": "fp16",
    "BRA": "cbu", "CALL": "cbu", "RET": "cbu", "BSSY": "cbu", "BSYNC": "cbu",
}

HARNESS = {"LDC", "ULDC", "LDG", "STG", "EXIT", "NOP"}

INST = re.compile(r"^\s+/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_.]+)\s*(.*?)\s*;")
LABEL = re.compile(r"^(\S+):\s*$")


def kernel(dtype, stype, nsrc, inst, arch):
    size = {"f16": 2, "bf16": 2, "f32": 4, "u32": 4, "s32": 4}.get(stype, 8)
    reg = lambda t: {"f16": "b16", "bf16": "b16"}.get(t, t)
    lines = [
        ".version 8.0", f".target {arch}", ".address_size 64",
        ".visible .entry k(.param .u64 p)", "{",
        "  .reg .b64 %rd<2>;", f"  .reg .{reg(stype)} %s<4>;", f"  .reg .{reg(dtype)} %d;",
        "  ld.param.u64 %rd1, [p];",
    ]
    ldt = "b16" if size == 2 else stype
    for i in range(nsrc):
        lines.append(f"  ld.global.{ldt} %s{i}, [%rd1+{i * size}];")
    srcs = ", ".join(f"%s{i}" for i in range(nsrc))
    lines.append(f"  {inst} %d, {srcs};")
    st = "b16" if dtype in ("f16", "bf16") else dtype
    lines += [f"  st.global.{st} [%rd1+32], %d;", "  ret;", "}"]
    return "\n".join(lines) + "\n"


def parse(text):
    """Functions (label -> first index), instructions [(addr, pred, op, args)], labels -> index."""
    insts, labels = [], {}
    for line in text.splitlines():
        m = LABEL.match(line)
        if m:
            labels[m.group(1)] = len(insts)
            continue
        m = INST.match(line)
        if m:
            insts.append((int(m.group(1), 16), (m.group(2) or "").strip(), m.group(3), m.group(4)))
    return insts, labels


def target(args):
    m = re.search(r"`\(([^)]+)\)", args)
    return m.group(1) if m else None


def harness(op, args):
    base = op.split(".")[0]
    if base in HARNESS:
        return True
    # Parameter moves: a move whose only register source is a constant-bank operand.
    if base in ("MOV", "IMAD") and "c[0x0]" in args and (base == "MOV" or "RZ, RZ, c[" in args):
        return True
    return False


def walk(insts, labels, entry, choices=""):
    """The counted path (instruction indices), how many branches it met that
    neither way leads to a slow path, and the index of the result's STG."""
    def reaches_call(i, seen):
        # Whether straight-line execution from i makes a call before EXIT/RET/an unconditional BRA.
        while i < len(insts) and i not in seen:
            seen.add(i)
            _, pred, op, args = insts[i]
            if op.startswith("CALL"):
                return True
            if op.startswith(("EXIT", "RET")) and not pred:
                return False
            if op.startswith("BRA") and not pred:
                t = target(args)
                return reaches_call(labels[t], seen) if t in labels else False
            i += 1
        return False

    path, stack, free, i, guard, store = [], [], 0, entry, 0, None
    while i < len(insts) and guard < 100000:
        guard += 1
        addr, pred, op, args = insts[i]
        base = op.split(".")[0]
        t = target(args)
        if base == "EXIT" and not pred:
            break
        if base == "BRA" and t in labels and labels[t] == i:  # the closing self-loop
            break
        if base == "STG":
            store = i
        if not harness(op, args):
            path.append(i)
        if base == "CALL":
            stack.append(i + 1)
            i = labels[t]
            continue
        if base == "RET":
            if not stack:
                break
            i = stack.pop()
            continue
        if base == "BRA" and t in labels:
            if not pred:
                i = labels[t]
                continue
            taken_call = reaches_call(labels[t], set())
            fall_call = reaches_call(i + 1, set())
            if taken_call != fall_call:  # the side with the call is the slow path
                if fall_call:
                    i = labels[t]
                    continue
            else:
                take = choices[free] if free < len(choices) else "F"
                free += 1
                if take == "T":
                    i = labels[t]
                    continue
        i += 1
    return path, free, store


WIDE = ("DFMA", "DMUL", "DADD", "F2I.U64", "F2I.S64", "I2F.F64", "F2F.F64", "I2F.U64", "I2F.S64", "FRND.F64")


def operands(args):
    return [o.strip() for o in args.split(",")] if args else []


def depth(insts, path, store):
    """Dependent steps from the inputs to the stored result: the longest chain
    of path instructions each reading a register or predicate an earlier one
    wrote, ending at the register the STG stores."""
    reg = re.compile(r"\b(R\d+|P\d)\b")
    ready = {}
    for i in path:
        _, pred, op, args = insts[i]
        ops = operands(args)
        dst = []
        if ops and re.fullmatch(r"R\d+|P\d|PT", ops[0]) and not op.startswith(("BRA", "CALL", "RET")):
            dst.append(ops[0])
            for o in ops[1:]:  # carry-out and second predicate destinations
                if not re.fullmatch(r"P\d|PT", o):
                    break
                dst.append(o)
        names = set()
        for s in ops[len(dst):] + ([pred.lstrip("@!")] if pred else []):
            for m in reg.finditer(s):
                names.add(m.group(1))
            m = re.search(r"R(\d+)\.64", s)
            if m:
                names.add(f"R{int(m.group(1)) + 1}")
        d = 1 + max((ready.get(n, 0) for n in names), default=0)
        if ".WIDE" in op or op.startswith(WIDE):  # writes a register pair
            dst += [f"R{int(x[1:]) + 1}" for x in dst if x.startswith("R")]
        for n in dst:
            # A predicated write keeps the older value's chain too.
            ready[n] = max(d, ready.get(n, 0)) if pred else d
    data = operands(insts[store][3])[-1] if store is not None else ""
    m = re.fullmatch(r"R(\d+)", data)
    if not m:
        return 0
    regs = [data] + ([f"R{int(m.group(1)) + 1}"] if ".64" in insts[store][2] else [])
    return max(ready.get(r, 0) for r in regs)


def pipe_of(insts, path):
    c = collections.Counter(PIPES.get(insts[i][2].split(".")[0], "?") for i in path)
    c.pop("cbu", None)
    return c.most_common(1)[0][0] if c else "-", c


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ptxas", default="/usr/local/cuda/bin/ptxas")
    ap.add_argument("--nvdisasm", default=shutil.which("nvdisasm") or next(iter(glob.glob(os.path.expanduser(
        "~/.local/lib/python3*/site-packages/nvidia/cu*/bin/nvdisasm"))), "nvdisasm"))
    ap.add_argument("--arch", default=",".join(ARCHS))
    ap.add_argument("--show", help="print the counted path of this form")
    ap.add_argument("--mix", action="store_true", help="also print the instructions per pipe")
    ap.add_argument("--toml", metavar="ARCH", help="print the [timing.sequences] table for one architecture")
    a = ap.parse_args()
    archs = a.arch.split(",")
    if a.toml and a.toml not in archs:
        archs.append(a.toml)
    rows = []
    ver = subprocess.run([a.ptxas, "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    print(f"# ptxas {ver}")
    if not a.toml:
        print("| form | key | " + " | ".join(f"{x} slots/depth/pipe" for x in archs) + " |")
        print("|---|---|" + "---|" * len(archs))
    with tempfile.TemporaryDirectory() as tmp:
        for name, dt, st, n, inst in FORMS:
            cells = []
            for arch in archs:
                ptx, cubin = os.path.join(tmp, "k.ptx"), os.path.join(tmp, "k.cubin")
                with open(ptx, "w") as f:
                    f.write(kernel(dt, st, n, inst, arch))
                r = subprocess.run([a.ptxas, f"-arch={arch}", ptx, "-o", cubin], capture_output=True, text=True)
                if r.returncode:
                    cells.append("n/a")
                    continue
                text = subprocess.run([a.nvdisasm, "-c", cubin], capture_output=True, text=True, check=True).stdout
                insts, labels = parse(text)
                path, free, store = walk(insts, labels, labels.get("k", 0), BRANCHES.get(inst, ""))
                p, counts = pipe_of(insts, path)
                cell = f"{len(path)}/{depth(insts, path, store)}/{p}"
                if free > len(BRANCHES.get(inst, "")):
                    cell += f" ({free} br)"  # branches the table does not decide
                if a.mix:
                    cell += " " + ",".join(f"{k}:{v}" for k, v in sorted(counts.items()))
                cells.append(cell)
                if a.show == name or a.show == inst:
                    print(f"## {inst} {arch}: {dict(counts)}", file=sys.stderr)
                    for i in path:
                        print("   ", insts[i][1], insts[i][2], insts[i][3], file=sys.stderr)
            key = "" if name.startswith("-") else name
            rows.append((key, inst, cells))
            if not a.toml:
                print(f"| `{inst}` | {key} | " + " | ".join(cells) + " |")
    if a.toml:
        print("[timing.sequences]")
        done = set()
        for key, inst, cells in rows:
            if key and key not in done:
                done.add(key)
                slots, dep = cells[archs.index(a.toml)].split("/")[:2]
                entry = f"{key} = {{ slots = {slots}, depth = {dep} }}"
                print(f"{entry:<44}# [SASS] {inst}: ptxas -arch={a.toml}, common path")


if __name__ == "__main__":
    main()
