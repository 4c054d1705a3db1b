"""Compare the decoder with stored `llvm-objdump-22 -d` output of the same code object.

Used by the tests and by hand:

    python -m amddbg.isa.gfx10.accuracy corefiles/co/*gfx1[0-2]*.co [--rocsparse N]

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
    from amddbg.codeobj.processors import BY_MACH

    mach = elf.header["e_flags"] & 0xFF
    p = BY_MACH.get(mach)
    return p.name if p else f"mach{mach:#x}"


def decode_object(path: Path, processor: str | None = None, wave64: bool = False) -> tuple[str, dict[int, str]]:
    with open(path, "rb") as fh:
        data = fh.read()
    import io

    elf = ELFFile(io.BytesIO(data))
    proc = processor or processor_of(elf)
    dec = Decoder(proc, wave64=wave64)
    out: dict[int, str] = {}
    for sec in elf.iter_sections():
        if sec["sh_type"] != "SHT_PROGBITS" or not (sec["sh_flags"] & 0x4):
            continue
        for ins in dec.decode_all(sec.data(), sec["sh_addr"]):
            out[ins.address] = normalise(ins.text)
    return proc, out


def wave64_reference(path: Path) -> dict[int, str]:
    """The `llvm-objdump -d --mattr=+wavefrontsize64` listing of a wave64 GFX10+ object: the stored plain listing
    with the stored wave64 lines (`X.co.objdump-w64.txt`, corefiles/build.py `wave64_delta`) laid over it."""
    ref = reference(Path(str(path) + ".objdump.txt"))
    ref.update(reference(Path(str(path) + ".objdump-w64.txt")))
    return ref


def compare(path: Path, ref_path: Path | None = None,
            wave64: bool = False) -> tuple[str, int, int, list[tuple[int, str, str]]]:
    ref = wave64_reference(path) if wave64 and ref_path is None else reference(ref_path or
                                                                                Path(str(path) + ".objdump.txt"))
    proc, ours = decode_object(path, wave64=wave64)
    bad = [(a, t, ours.get(a, "<none>")) for a, t in ref.items() if ours.get(a) != t]
    return proc, len(ref) - len(bad), len(ref), bad


ROCSPARSE = Path("/usr/lib/x86_64-linux-gnu/librocsparse.so.0")


def rocsparse_objects(limit: int, workdir: Path) -> list[Path]:
    """Extract up to `limit` GFX10+ code objects (spread over sizes) from librocsparse's offload
    bundles into `workdir`, each with a live `llvm-objdump-22 -d` reference beside it."""
    import mmap
    import subprocess

    from amddbg.codeobj.bundle import iter_bundle_entries

    out: list[Path] = []
    with open(ROCSPARSE, "rb") as fh:
        elf = ELFFile(fh)
        sec = elf.get_section_by_name(".hip_fatbin")
        if sec is None:
            return out
        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        view = memoryview(mm)[sec["sh_offset"] : sec["sh_offset"] + sec["sh_size"]]
        ents = [e for e in iter_bundle_entries(view, str(ROCSPARSE))
                if e.is_device and "--gfx1" in e.entry_id]
        ents.sort(key=lambda e: e.size)
        step = max(1, len(ents) // max(limit, 1))
        for e in ents[::step][:limit]:
            tgt = e.target_id.split("--")[-1].split(":")[0]
            p = workdir / f"rocsparse-{tgt}-{e.bundle_index}.co"
            p.write_bytes(bytes(e.data))
            ref = subprocess.run(["llvm-objdump-22", "-d", str(p)], capture_output=True, text=True, check=True)
            Path(str(p) + ".objdump.txt").write_text(ref.stdout)
            out.append(p)
        # entries hold views into the mapping: let the mapping go with them (no explicit close)
    return out


def main(argv: list[str]) -> int:
    import argparse
    import tempfile

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("objects", nargs="*", type=Path, help="code objects with X.co.objdump.txt beside them")
    ap.add_argument("--rocsparse", type=int, default=0, help="also extract N objects from librocsparse")
    ap.add_argument("--show", type=int, default=40, help="mismatch buckets to print")
    args = ap.parse_args(argv)
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    buckets: Counter = Counter()
    examples: dict[str, tuple] = {}
    with tempfile.TemporaryDirectory() as tmp:
        objs = list(args.objects)
        if args.rocsparse:
            objs += rocsparse_objects(args.rocsparse, Path(tmp))
        for p in objs:
            proc, ok, total, bad = compare(Path(p))
            w = "w64" if "w64" in p.name else "w32"
            keys = [proc, f"{proc}-{w}"] if "rocsparse" not in p.name else [proc, f"{proc}-rocsparse"]
            for key in keys:
                per[key][0] += ok
                per[key][1] += total
            for a, want, got in bad:
                k = want.split(" ")[0]
                buckets[k] += 1
                examples.setdefault(k, (p.name, hex(a), want, got))
    for k, (ok, total) in sorted(per.items()):
        print(f"{k:20s} {ok:7d}/{total:7d} = {100.0 * ok / max(total, 1):7.3f}%")
    for k, n in buckets.most_common(args.show):
        print(f"{n:6d} {k:28s} {examples[k]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
