#!/usr/bin/env python3
"""Store llvm-addr2line-22 / llvm-cxxfilt-22 answers for the corpus, so tests run without LLVM.

    .venv/bin/python corefiles/make_addr2line_refs.py   # all objects in corefiles/co/manifest.json

For each object X.co it writes X.co.addr2line.json: the output of
``llvm-addr2line-22 -a -f -i -e X.co`` for every instruction address listed in the stored
``X.co.objdump.txt`` (llvm-objdump-22 -d), with consecutive addresses whose answer is identical
grouped: {"tool": ..., "flags": "-a -f -i", "groups": [[[addr, ...], "answer text"], ...]}; the
answer text is everything llvm printed after the ``0x<addr>`` line. It also writes
demangle.json: every function name in those answers (plus symbol names from a few rocsparse code
objects when librocsparse is installed) with llvm-cxxfilt-22's demangling.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "co"
ADDR = re.compile(r"// ([0-9A-F]{8,16}):")
TOOL = "llvm-addr2line-22"
ROCSPARSE = Path("/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1")


def instruction_addresses(objdump_txt: Path) -> list[int]:
    return [int(m, 16) for m in ADDR.findall(objdump_txt.read_text())]


def addr2line_blocks(co: Path, addrs: list[int], flags: list[str]) -> list[str]:
    r = subprocess.run([TOOL, "-a", *flags, "-e", str(co)], input="".join(f"0x{a:x}\n" for a in addrs),
                       capture_output=True, text=True, check=True)
    blocks = re.split(r"(?m)^(0x[0-9a-f]+)\n", r.stdout)
    # blocks = ["", "0x..", text, "0x..", text, ...]
    out = []
    it = iter(blocks[1:])
    for head, text in zip(it, it, strict=True):
        out.append((int(head, 16), text))
    if [a for a, _ in out] != addrs:
        raise SystemExit(f"{co}: could not split llvm-addr2line output")
    return [t for _, t in out]


def grouped(addrs: list[int], texts: list[str]) -> list:
    groups: list = []
    for a, t in zip(addrs, texts, strict=True):
        if groups and groups[-1][1] == t:
            groups[-1][0].append(a)
        else:
            groups.append([[a], t])
    return groups


def rocsparse_symbol_names(sample: int = 1500, hard: int = 300) -> list[str]:
    """A seeded sample of the Itanium symbol names of all device code objects in librocsparse's fat
    binary, plus names using the rarer manglings (packs, lambdas, enum literals, dependent arrays)."""
    import random

    sys.path.insert(0, str(HERE.parent))
    from amddbg.codeobj.bundle import iter_bundle_entries
    from amddbg.dwarf.sections import ElfImage

    if not ROCSPARSE.exists():
        return []
    img = ElfImage.from_path(ROCSPARSE)
    names: set[str] = set()
    for e in iter_bundle_entries(img.data(".hip_fatbin"), str(ROCSPARSE)):
        if e.is_device:
            names.update(s.name for s in ElfImage(e.data, name=e.entry_id).symbols if s.name.startswith("_Z"))
    rnd = random.Random(1)
    ordered = sorted(names)
    rare = [n for n in ordered if any(k in n for k in ("Dp", "AT", "Ul", "Ut", "IJ", "ELb", "_.kd"))
            or re.search(r"L\d+[a-z_]+\d+E", n)]
    return sorted(set(rnd.sample(ordered, min(sample, len(ordered)))) | set(rnd.sample(rare, min(hard, len(rare)))))


def main() -> int:
    if shutil.which(TOOL) is None:
        print(f"{TOOL} not installed", file=sys.stderr)
        return 1
    manifest = [r for r in json.loads((OUT / "manifest.json").read_text())["objects"]
                if r.get("kind", "code_object") == "code_object"]
    funcs: set[str] = set()
    for rec in manifest:
        co = OUT / rec["file"]
        addrs = instruction_addresses(OUT / f"{rec['file']}.objdump.txt")
        texts = addr2line_blocks(co, addrs, ["-f", "-i"])
        for t in texts:
            lines = t.splitlines()
            funcs.update(lines[0::2])
        data = {"tool": TOOL, "flags": "-a -f -i", "groups": grouped(addrs, texts)}
        (OUT / f"{rec['file']}.addr2line.json").write_text(json.dumps(data, separators=(",", ":")) + "\n")
    funcs.discard("??")
    names = sorted(funcs | set(rocsparse_symbol_names()))
    r = subprocess.run(["llvm-cxxfilt-22"], input="\n".join(names) + "\n", capture_output=True, text=True,
                       check=True)
    dem = r.stdout.splitlines()
    (OUT / "demangle.json").write_text(json.dumps({"tool": "llvm-cxxfilt-22",
                                                   "names": dict(zip(names, dem, strict=True))}, indent=0) + "\n")
    print(f"{len(manifest)} objects, {len(names)} names")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
