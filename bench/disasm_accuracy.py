"""Disassembly accuracy vs llvm-objdump-22 for the GFX8/GFX9/CDNA family.

For each corpus object of the family (stored reference `corefiles/co/*.co.objdump.txt`) and for code
objects extracted from librocsparse's `.hip_fatbin` (clang offload bundles; `llvm-objdump-22 -d` is
run live on them), count the instructions whose address and text equal objdump's (whitespace
normalised, trailing `// comments` dropped). Prints per-object and total figures, and the most
frequent mismatches.

    .venv/bin/python bench/disasm_accuracy.py [--rocsparse N] [--max-bytes M] [--show K] [--family gfx9]
"""

from __future__ import annotations

import argparse
import collections
import mmap
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from amddbg.isa import decoder_for, family_of  # noqa: E402

ROCSPARSE = Path("/usr/lib/x86_64-linux-gnu/librocsparse.so.0")
BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
_LINE = re.compile(r"^\s+(.*?)\s*//\s*([0-9A-Fa-f]+):")
_WS = re.compile(r"\s+")
GFX9_CORPUS = ("gfx803", "gfx900", "gfx906", "gfx908", "gfx90a", "gfx940", "gfx941", "gfx942", "gfx950")


def parse_objdump(text: str) -> dict[int, str]:
    """address -> normalised instruction text from `llvm-objdump -d` output."""
    out = {}
    for line in text.splitlines():
        if not line.startswith("\t"):
            continue
        m = _LINE.match(line)
        if not m:
            continue
        out[int(m.group(2), 16)] = _WS.sub(" ", m.group(1)).strip()
    return out


def processor_of(elf) -> str:
    from amddbg.codeobj.processors import BY_MACH

    return BY_MACH[elf.header["e_flags"] & 0xFF].name


def our_disassembly(path_or_bytes, name: str = "") -> tuple[str, dict[int, str]]:
    """Processor and address -> text for every executable section (decoded per symbol like objdump)."""
    import io

    from elftools.elf.elffile import ELFFile

    data = path_or_bytes if isinstance(path_or_bytes, bytes) else Path(path_or_bytes).read_bytes()
    elf = ELFFile(io.BytesIO(data))
    proc = processor_of(elf)
    dec = decoder_for(proc)
    out: dict[int, str] = {}
    for sec in elf.iter_sections():
        if not sec["sh_flags"] & 0x4 or sec["sh_type"] != "SHT_PROGBITS":
            continue
        base = sec["sh_addr"]
        body = data[sec["sh_offset"] : sec["sh_offset"] + sec["sh_size"]]
        for addr, _size, text in dec.iter_text(body, base):
            out[addr] = _WS.sub(" ", text)
    return proc, out


def compare(ref: dict[int, str], ours: dict[int, str], bucket: collections.Counter) -> tuple[int, int]:
    good = 0
    for addr, text in ref.items():
        got = ours.get(addr)
        if got == text:
            good += 1
        else:
            key = (text.split(" ")[0], (got or "<none>").split(" ")[0])
            bucket[key] += 1
            if bucket[key] <= 3:
                bucket[("example", text, got or "<none>")] += 1
    return good, len(ref)


def bundles(limit: int, max_bytes: int):
    """Yield (name, bytes) of GFX9-family code objects from librocsparse's offload bundles: `limit`
    entries of at most `max_bytes`, spread evenly over the library and its processors."""
    if not ROCSPARSE.exists():
        return
    from elftools.elf.elffile import ELFFile

    with open(ROCSPARSE, "rb") as f:
        sec = ELFFile(f).get_section_by_name(".hip_fatbin")
        if sec is None:
            return
        start, size = sec["sh_offset"], sec["sh_size"]
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        pos, end, n = start, start + size, 0
        found = []
        while True:
            pos = mm.find(BUNDLE_MAGIC, pos, end)
            if pos < 0:
                break
            (count,) = struct.unpack_from("<Q", mm, pos + 24)
            p = pos + 32
            for _ in range(count):
                off, sz, tl = struct.unpack_from("<QQQ", mm, p)
                triple = mm[p + 24 : p + 24 + tl].decode()
                p += 24 + tl
                cpu = triple.split("--")[-1]
                if triple.startswith("hip") and cpu.startswith("gfx") and 0 < sz <= max_bytes \
                        and family_of(cpu.split(":")[0]) == "gfx9":
                    found.append((f"rocsparse#{n}:{cpu}", pos + off, sz))
            n += 1
            pos += len(BUNDLE_MAGIC)
        if not found or limit <= 0:
            return
        # evenly spaced, shifted by i % 7 so consecutive picks rotate through the processors
        picks = sorted({min(len(found) - 1, i * len(found) // limit + i % 7) for i in range(limit)})
        for i in picks:
            name, off, sz = found[i]
            yield name, bytes(mm[off : off + sz])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rocsparse", type=int, default=10, help="number of librocsparse code objects (0: none)")
    ap.add_argument("--max-bytes", type=int, default=3_000_000, help="skip bundle entries larger than this")
    ap.add_argument("--show", type=int, default=25, help="print the K most frequent mismatch buckets")
    ap.add_argument("--corpus-only", action="store_true")
    args = ap.parse_args()
    total_good = total = 0
    per_proc: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    bucket: collections.Counter = collections.Counter()
    for ref_path in sorted((ROOT / "corefiles" / "co").glob("*.co.objdump.txt")):
        co = ref_path.with_name(ref_path.name[: -len(".objdump.txt")])
        if not any(f"-{p}-" in co.name for p in GFX9_CORPUS):
            continue
        proc, ours = our_disassembly(co)
        good, n = compare(parse_objdump(ref_path.read_text()), ours, bucket)
        print(f"{co.name:40s} {proc:10s} {good:7d}/{n:<7d} {100.0 * good / max(n, 1):7.3f}%")
        total_good += good
        total += n
        per_proc[proc][0] += good
        per_proc[proc][1] += n
    objdump = shutil.which("llvm-objdump-22")
    if args.rocsparse and not args.corpus_only:
        if objdump is None:
            print("llvm-objdump-22 not found: skipping librocsparse objects")
        else:
            with tempfile.TemporaryDirectory() as tmp:
                for name, blob in bundles(args.rocsparse, args.max_bytes):
                    path = Path(tmp) / "x.co"
                    path.write_bytes(blob)
                    ref = parse_objdump(subprocess.run([objdump, "-d", str(path)], capture_output=True,
                                                       text=True).stdout)
                    proc, ours = our_disassembly(blob)
                    good, n = compare(ref, ours, bucket)
                    print(f"{name:40s} {proc:10s} {good:7d}/{n:<7d} {100.0 * good / max(n, 1):7.3f}%")
                    total_good += good
                    total += n
                    per_proc[proc.split(':')[0]][0] += good
                    per_proc[proc.split(':')[0]][1] += n
    print()
    for proc, (g, n) in sorted(per_proc.items()):
        print(f"  {proc:10s} {g:8d}/{n:<8d} {100.0 * g / max(n, 1):7.3f}%")
    print(f"TOTAL {total_good}/{total} = {100.0 * total_good / max(total, 1):.3f}%")
    if args.show:
        print("\nmost frequent mismatches (objdump mnemonic, ours):")
        for key, cnt in bucket.most_common(args.show * 3):
            if key[0] == "example":
                continue
            print(f"  {cnt:7d}  {key[0]}  ->  {key[1]}")
        print("\nexamples:")
        ex = [k for k in bucket if k[0] == "example"]
        for k in ex[: args.show * 2]:
            print(f"  objdump: {k[1]}\n  ours:    {k[2]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
