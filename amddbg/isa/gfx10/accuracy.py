"""Compare the decoder with stored `llvm-objdump-22 -d` output of the same code object.

Used by the tests and by hand:

    python -m amddbg.isa.gfx10.accuracy corefiles/co/*gfx1[0-2]*.co

prints, per processor, how many reference instructions have the same address and text (whitespace
normalised, trailing `// comment` dropped), and the most frequent mismatches.
"""

from __future__ import annotations

import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

from elftools.elf.elffile import ELFFile

from amddbg.isa.gfx10.decoder import Decoder

_LINE = re.compile(r"^\t(.*?)\s*// ([0-9A-F]+):")
_WS = re.compile(r"\s+")


def normalise(text: str) -> str:
    return _WS.sub(" ", text).strip()


def reference(path: Path) -> dict[int, str]:
    """address -> text of every instruction line in an llvm-objdump -d listing."""
    out: dict[int, str] = {}
    for line in path.read_text().splitlines():
        m = _LINE.match(line)
        if m:
            out[int(m.group(2), 16)] = normalise(m.group(1))
    return out


def processor_of(elf: ELFFile) -> str:
    mach = elf.header["e_flags"] & 0xFF
    names = {0x36: "gfx1030", 0x41: "gfx1100", 0x48: "gfx1200", 0x4E: "gfx1201", 0x49: "gfx1250",
             0x4A: "gfx1251", 0x37: "gfx1031", 0x38: "gfx1032", 0x39: "gfx1033", 0x3E: "gfx1034",
             0x3D: "gfx1035", 0x45: "gfx1036", 0x42: "gfx1101", 0x43: "gfx1102", 0x44: "gfx1103",
             0x46: "gfx1150", 0x43 + 0x100: "gfx1102", 0x4B: "gfx1151", 0x4C: "gfx1152", 0x55: "gfx1153",
             0x52: "gfx10-3-generic", 0x54: "gfx11-generic", 0x59: "gfx12-generic"}
    return names.get(mach, f"mach{mach:#x}")


def decode_object(path: Path, processor: str | None = None) -> tuple[str, dict[int, str]]:
    with open(path, "rb") as fh:
        data = fh.read()
    import io

    elf = ELFFile(io.BytesIO(data))
    proc = processor or processor_of(elf)
    dec = Decoder(proc)
    out: dict[int, str] = {}
    for sec in elf.iter_sections():
        if sec["sh_type"] != "SHT_PROGBITS" or not (sec["sh_flags"] & 0x4):
            continue
        for ins in dec.decode_all(sec.data(), sec["sh_addr"]):
            out[ins.address] = normalise(ins.text)
    return proc, out


def compare(path: Path, ref_path: Path | None = None) -> tuple[str, int, int, list[tuple[int, str, str]]]:
    ref = reference(ref_path or Path(str(path) + ".objdump.txt"))
    proc, ours = decode_object(path)
    bad = [(a, t, ours.get(a, "<none>")) for a, t in ref.items() if ours.get(a) != t]
    return proc, len(ref) - len(bad), len(ref), bad


def main(argv: list[str]) -> int:
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    buckets: Counter = Counter()
    examples: dict[str, tuple] = {}
    for p in argv:
        proc, ok, total, bad = compare(Path(p))
        w = "w64" if "w64" in p else "w32"
        for key in (proc, f"{proc}-{w}"):
            per[key][0] += ok
            per[key][1] += total
        for a, want, got in bad:
            k = want.split(" ")[0]
            buckets[k] += 1
            examples.setdefault(k, (p, hex(a), want, got))
    for k, (ok, total) in sorted(per.items()):
        print(f"{k:20s} {ok:7d}/{total:7d} = {100.0 * ok / max(total, 1):7.3f}%")
    for k, n in buckets.most_common(40):
        print(f"{n:6d} {k:28s} {examples[k]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
