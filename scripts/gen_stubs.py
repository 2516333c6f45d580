#!/usr/bin/env python3
"""Generates the NOT_SUPPORTED stubs of softgpu's libraries from the toolkit's headers.

--api cublas: reads cublas_api.h (and cublas.h / cublasXt.h when given) and
writes one C function per `RET CUBLASWINAPI name(...)` declaration. Each stub
prints "softgpu cublas: <name> is not implemented yet" to stderr once and
returns CUBLAS_STATUS_NOT_SUPPORTED (or a zero value for the legacy API's
functions that return float, int, ...).

--api cuda: reads cuda.h and writes a stub for every `CUresult CUDAAPI
name(...)` declaration and for every symbol its `#define name name_vN`
aliases stand for (`name_vN`, and `name_vN_ptsz` / `_ptds` where the alias
goes through __CUDA_API_PTSZ / __CUDA_API_PTDS: the per-thread-default-stream
entry points), each printing "softgpu cuda: <name> is not implemented yet"
once and returning CUDA_ERROR_NOT_SUPPORTED. It also writes, after the stubs,
the table cuGetProcAddress searches (base name and CUDA version -> the symbol
of that ABI, and its per-thread variant; the versions come from
cudaTypedefs.h's PFN_<name>_v<version> typedefs when it is given) and the
CUresult names with the first sentence of each one's documentation.

The stubs are weak symbols: the functions softgpu implements are ordinary
(strong) definitions in the other sources of the library and replace them at
link time, so this list never has to name what is implemented (and the
tables point at the implementations). Parameters are not declared: on x86-64
a callee that ignores its arguments is ABI-compatible with any caller, and
only the return type matters.

--api cublaslt: the same for cublasLt.h, the stubs calling
softgpu_cublaslt_unimplemented ("softgpu cublasLt: ...").

--api cusparse: the same for cusparse.h: a stub for every `RET CUSPARSEAPI
name(...)` declaration, calling softgpu_cusparse_unimplemented ("softgpu
cusparse: ...") and returning CUSPARSE_STATUS_NOT_SUPPORTED (the legacy
descriptor getters that return an enum return 0).

--api curand: the same for curand.h: a stub for every `curandStatus_t
CURANDAPI name(...)` declaration, calling softgpu_curand_unimplemented
("softgpu curand: ...") and returning CURAND_STATUS_ARCH_MISMATCH ("GPU does
not support requested feature"; curandStatus_t has no NOT_SUPPORTED).

--api cudart: the same for the runtime API (cuda_runtime_api.h and the
interop headers given): a stub for every `cudaError_t CUDARTAPI name(...)`
declaration and for the per-thread-default-stream symbols its
`#define name __CUDART_API_PTDS(name)` / `__CUDART_API_PTSZ` aliases stand
for, calling softgpu_cudart_unimplemented ("softgpu cudart: ...") and
returning cudaErrorNotSupported, so that a program importing a function
softgpu's libcudart does not implement still loads and gets an error code.

Usage: gen_stubs.py --api cublas|cublaslt|cusparse|curand|cuda|cudart OUT.cpp HEADER...
"""
import re
import sys

CUBLAS_DECL = re.compile(r"^\s*((?:const\s+)?[A-Za-z_][A-Za-z_0-9]*(?:\s*\*)*)\s*CUBLASWINAPI\s*(\**)\s*"
                         r"(cublas[A-Za-z_0-9]*)\s*\(", re.M)
CUDA_DECL = re.compile(r"^\s*(?:__CUDA_DEPRECATED\s+)?CUresult\s+CUDAAPI\s+(cu[A-Za-z_0-9]*)\s*\(", re.M)
CUDA_ALIAS = re.compile(r"^\s*#\s*define\s+(cu[A-Za-z_0-9]*)\s+(?:(__CUDA_API_PT(?:DS|SZ))\(\s*(cu[A-Za-z_0-9]*)\s*\)"
                        r"|(cu[A-Za-z_0-9]*))\s*$", re.M)
CUDA_PFN = re.compile(r"\bPFN_(cu[A-Za-z_0-9]*?)_v(\d+)(_ptsz|_ptds)?\b")
CUSPARSE_DECL = re.compile(r"^\s*((?:const\s+)?[A-Za-z_][A-Za-z_0-9]*(?:\s*\*)*)\s*CUSPARSEAPI\s*"
                           r"(cusparse[A-Za-z_0-9]*)\s*\(", re.M)
CURAND_DECL = re.compile(r"^\s*curandStatus_t\s+CURANDAPI\s+(curand[A-Za-z_0-9]*)\s*\(", re.M)
CUDART_DECL = re.compile(r"cudaError_t\s+CUDARTAPI\s+(cuda[A-Za-z_0-9]*)\s*\(")
CUDART_PT = re.compile(r"#\s*define\s+cuda[A-Za-z_0-9]*\s+__CUDART_API_PT(DS|SZ)\(\s*(cuda[A-Za-z_0-9]*)\s*\)")
CUDA_ERROR = re.compile(r"/\*\*((?:(?!\*/).)*)\*/\s*(CUDA_[A-Z_0-9]+)\s*=\s*(\d+)", re.S)

# Return type as declared -> (C type in the stub, value returned).
CUBLAS_RETURNS = {
    "cublasStatus_t": ("int", "15 /* CUBLAS_STATUS_NOT_SUPPORTED */"),
    "cublasStatus": ("int", "15 /* CUBLAS_STATUS_NOT_SUPPORTED */"),
    "void": ("void", None),
    "int": ("int", "0"),
    "unsigned": ("unsigned", "0"),
    "size_t": ("unsigned long", "0"),
    "float": ("float", "0.0f"),
    "double": ("double", "0.0"),
    "cuComplex": ("sg_complex_f", "sg_complex_f{0.0f, 0.0f}"),
    "cuDoubleComplex": ("sg_complex_d", "sg_complex_d{0.0, 0.0}"),
    "const char*": ("const char*", '"softgpu cublas: not implemented"'),
}


def read(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    return text, re.sub(r"//[^\n]*", " ", re.sub(r"/\*.*?\*/", " ", text, flags=re.S))


def cublas_declarations(paths):
    found = {}
    for path in paths:
        _, text = read(path)
        for m in CUBLAS_DECL.finditer(text):
            ret = re.sub(r"\s+", " ", (m.group(1) + m.group(2)).strip()).replace(" *", "*")
            name = m.group(3)
            if ret not in CUBLAS_RETURNS:
                sys.exit(f"gen_stubs.py: {path}: {name} returns '{ret}', which the generator does not know")
            if found.setdefault(name, ret) != ret:
                sys.exit(f"gen_stubs.py: {name} declared with two return types ({found[name]}, {ret})")
    return found


def stub_lines(decls, tag, unimplemented):
    """decls: name -> (C type, value returned or None)."""
    lines = []
    for i, (name, (ctype, value)) in enumerate(sorted(decls.items())):
        body = f'{unimplemented}("{name}", &sg_once_{i});'
        if value is not None:
            body += f" return {value};"
        lines.append(f"static int sg_once_{i};")
        lines.append(f"SG_STUB {ctype} {name}(void) {{ {body} }}")
    return lines


def gen_cublas(headers, lt=False):
    decls = cublas_declarations(headers)
    if len(decls) < (40 if lt else 100):
        sys.exit(f"gen_stubs.py: only {len(decls)} declarations found in {headers}; header format changed?")
    helper = "softgpu_cublaslt_unimplemented" if lt else "softgpu_cublas_unimplemented"
    lines = [
        "// Generated by scripts/gen_stubs.py from " + ", ".join(h.rsplit("/", 1)[-1] for h in headers) + ".",
        "// Do not edit: every " + ("cuBLASLt" if lt else "cuBLAS") + " entry point as a weak NOT_SUPPORTED stub.",
        '#include "stubs.h"' if not lt else '#define SG_STUB __attribute__((weak, visibility("default")))',
        "",
        "struct sg_complex_f { float x, y; };",
        "struct sg_complex_d { double x, y; };",
        "",
        'extern "C" {',
    ]
    if lt:
        lines.append(f"void {helper}(const char* name, int* once);")
    lines += stub_lines({n: CUBLAS_RETURNS[r] for n, r in decls.items()}, "cublas", helper)
    return lines + ["}", ""]


def stub_file(headers, what, decls, lib):
    """A library's stubs.cpp: its stubs.h (SG_STUB, softgpu_<lib>_unimplemented), then every stub."""
    lines = [
        "// Generated by scripts/gen_stubs.py from " + ", ".join(h.rsplit("/", 1)[-1] for h in headers) + ".",
        "// Do not edit: every " + what + ".",
        '#include "stubs.h"',
        "",
        'extern "C" {',
    ]
    lines += stub_lines(decls, lib, f"softgpu_{lib}_unimplemented")
    return lines + ["}", ""]


# Return type as declared in cusparse.h -> (C type in the stub, value returned).
CUSPARSE_RETURNS = {
    "cusparseStatus_t": ("int", "10 /* CUSPARSE_STATUS_NOT_SUPPORTED */"),
    "const char*": ("const char*", '"softgpu cusparse: not implemented"'),
    "cusparseMatrixType_t": ("int", "0"),
    "cusparseFillMode_t": ("int", "0"),
    "cusparseDiagType_t": ("int", "0"),
    "cusparseIndexBase_t": ("int", "0"),
}


def gen_cusparse(headers):
    decls = {}
    for path in headers:
        _, text = read(path)
        for m in CUSPARSE_DECL.finditer(text):
            ret, name = re.sub(r"\s+", " ", m.group(1).strip()).replace(" *", "*"), m.group(2)
            if ret not in CUSPARSE_RETURNS:
                sys.exit(f"gen_stubs.py: {path}: {name} returns '{ret}', which the generator does not know")
            decls[name] = CUSPARSE_RETURNS[ret]
    if len(decls) < 200:
        sys.exit(f"gen_stubs.py: only {len(decls)} declarations found in {headers}; header format changed?")
    return stub_file(headers, "cuSPARSE entry point as a weak NOT_SUPPORTED stub", decls, "cusparse")


def gen_curand(headers):
    names = set()
    for path in headers:
        _, text = read(path)
        names.update(CURAND_DECL.findall(text))
    if len(names) < 20:
        sys.exit(f"gen_stubs.py: only {len(names)} declarations found in {headers}; header format changed?")
    return stub_file(headers, "cuRAND host API entry point as a weak ARCH_MISMATCH stub",
                     {n: ("int", "204 /* CURAND_STATUS_ARCH_MISMATCH */") for n in names}, "curand")


def proc_versions(typedefs, symbols):
    """cudaTypedefs.h's PFN_<name>_v<version> typedefs: base name -> [(version,
    symbol)], oldest first. A name's versions, oldest first, belong to its
    symbols name, name_v2, name_v3, ... that exist, aligned from the newest."""
    versions = {}
    for path in typedefs:
        _, text = read(path)
        for name, version, per_thread in CUDA_PFN.findall(text):
            if not per_thread:
                versions.setdefault(name, set()).add(int(version))
    out = {}
    for name, vs in versions.items():
        chain = [name] + [f"{name}_v{k}" for k in range(2, 10) if f"{name}_v{k}" in symbols]
        chain = [c for c in chain if c in symbols]
        vs = sorted(vs)
        if not chain:
            continue
        n = min(len(vs), len(chain))
        out[name] = list(zip(vs[-n:], chain[-n:]))
    return out


def gen_cuda(paths):
    headers = [p for p in paths if not p.endswith("cudaTypedefs.h")]
    typedefs = [p for p in paths if p.endswith("cudaTypedefs.h")]
    declared, aliases, errors = set(), {}, []
    for path in headers:
        raw, text = read(path)
        declared.update(CUDA_DECL.findall(text))
        for m in CUDA_ALIAS.finditer(text):
            base, macro, target = m.group(1), m.group(2), m.group(3) or m.group(4)
            ptds = target + ("_ptds" if macro == "__CUDA_API_PTDS" else "_ptsz") if macro else None
            old = aliases.get(base)
            # A base aliased twice (the per-thread block repeats some): keep the one with a per-thread variant.
            if old is None or (ptds and not old[1]):
                aliases[base] = (target, ptds)
        body = re.search(r"typedef\s+enum\s+cudaError_enum\s*\{(.*?)\}\s*CUresult\s*;", raw, re.S)
        for m in CUDA_ERROR.finditer(body.group(1) if body else ""):
            doc = re.sub(r"\s*\*\s*", " ", m.group(1)).strip()
            doc = re.sub(r"::|\\p |\\ref ", "", doc)
            first = re.split(r"(?<=[a-z)])\.\s", doc + " ")[0].strip().rstrip(".")
            errors.append((int(m.group(3)), m.group(2), first.replace("\\", "\\\\").replace('"', '\\"')))
    if len(declared) < 300 or len(errors) < 50:
        sys.exit(f"gen_stubs.py: only {len(declared)} declarations / {len(errors)} error codes in {headers}; "
                 "header format changed?")
    table = {}
    for name in declared:
        target, ptds = aliases.get(name, (name, None))
        table[name] = (target, ptds)
    for base, (target, ptds) in aliases.items():
        # A function the header declares only under another name
        # (cuGraphInstantiate -> cuGraphInstantiateWithFlags, not a _vN or
        # per-thread form of it) is asked for by its own name too.
        if not re.fullmatch(re.escape(base) + r"(_v\d+)?(_pt[sd][sz])?", target):
            table.setdefault(target, (target, ptds))
        if base in declared:
            continue
        table.setdefault(base, (target, ptds))
    symbols = set(declared)
    for target, ptds in table.values():
        symbols.add(target)
        if ptds:
            symbols.add(ptds)
    symbols = {s for s in symbols if not s.startswith("cuda")}
    lines = [
        "// Generated by scripts/gen_stubs.py from " + ", ".join(h.rsplit("/", 1)[-1] for h in headers) + ".",
        "// Do not edit: every driver API entry point as a weak NOT_SUPPORTED stub, the",
        "// cuGetProcAddress table and the CUresult names.",
        '#include "cudadrv/stubs.h"',
        "",
        'extern "C" {',
    ]
    lines += stub_lines({s: ("int", "801 /* CUDA_ERROR_NOT_SUPPORTED */") for s in symbols}, "cuda",
                        "softgpu_cuda_unimplemented")
    lines += ["}", "", "namespace softgpu::cudadrv {", "", "const ProcEntry kProcTable[] = {"]
    versions = proc_versions(typedefs, symbols)
    suffix = {t: p[len(t):] for t, p in table.values() if p}  # "_ptsz" / "_ptds" per default symbol

    def entry(base, version, target):
        per = None
        for cand in (target + suffix.get(target, ""), target + "_ptsz", target + "_ptds"):
            if cand != target and cand in symbols:
                per = cand
                break
        per_thread = f"reinterpret_cast<void*>(&{per})" if per else "nullptr"
        return f'    {{"{base}", {version}, reinterpret_cast<void*>(&{target}), {per_thread}}},'

    for base in sorted(table):
        target, _ = table[base]
        if target not in symbols:
            continue
        chain = versions.get(base)
        if chain and chain[-1][1] != target and target != base:
            # The header redirects the name to another function
            # (cuGraphInstantiate -> cuGraphInstantiateWithFlags, CUDA 12.0):
            # older versions keep their own ABIs, later ones get the target.
            for version, sym in chain:
                lines.append(entry(base, version, sym))
            lines.append(entry(base, max(chain[-1][0] + 1, 12000), target))
            continue
        if not chain or chain[-1][1] != target:
            lines.append(entry(base, 0, target))  # no version history known: the header's symbol always
            continue
        for version, sym in chain:
            lines.append(entry(base, version, sym))
    lines += ["};", "const size_t kProcTableSize = sizeof kProcTable / sizeof kProcTable[0];", "",
              "const ErrorEntry kErrorTable[] = {"]
    for code, name, text in sorted(set(errors)):
        lines.append(f'    {{{code}, "{name}", "{text}"}},')
    lines += ["};", "const size_t kErrorTableSize = sizeof kErrorTable / sizeof kErrorTable[0];", "",
              "}  // namespace softgpu::cudadrv", ""]
    return lines


def gen_cudart(headers):
    symbols = set()
    for path in headers:
        _, text = read(path)
        symbols.update(CUDART_DECL.findall(text))
        for kind, name in CUDART_PT.findall(text):
            symbols.add(name + ("_ptds" if kind == "DS" else "_ptsz"))
    if len(symbols) < 300:
        sys.exit(f"gen_stubs.py: only {len(symbols)} declarations found in {headers}; header format changed?")
    lines = [
        "// Generated by scripts/gen_stubs.py from " + ", ".join(h.rsplit("/", 1)[-1] for h in headers) + ".",
        "// Do not edit: every runtime API entry point as a weak cudaErrorNotSupported stub.",
        '#define SG_STUB __attribute__((weak, visibility("default")))',
        "",
        'extern "C" {',
        "void softgpu_cudart_unimplemented(const char* name, int* once);",
    ]
    lines += stub_lines({n: ("int", "801 /* cudaErrorNotSupported */") for n in symbols}, "cudart",
                        "softgpu_cudart_unimplemented")
    return lines + ["}", ""]


def main():
    args = sys.argv[1:]
    if len(args) < 4 or args[0] != "--api" or args[1] not in ("cublas", "cublaslt", "cusparse", "curand", "cuda", "cudart"):
        sys.exit(__doc__.split("Usage: ")[1])
    api, out, headers = args[1], args[2], args[3:]
    if api == "cuda":
        lines = gen_cuda(headers)
    elif api == "cudart":
        lines = gen_cudart(headers)
    elif api == "cusparse":
        lines = gen_cusparse(headers)
    elif api == "curand":
        lines = gen_curand(headers)
    else:
        lines = gen_cublas(headers, lt=api == "cublaslt")
    with open(out, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
