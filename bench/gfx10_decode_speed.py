"""Decode speed of the GFX10+ decoder vs `llvm-objdump-22 -d`, printed as a ratio in one run.

    python bench/gfx10_decode_speed.py [CODE_OBJECT ...]

Default inputs: the largest gfx10+/gfx11/gfx12 object of the corpus.  Also reports the time to decode
one function on demand (the first 4 KiB of code with cold memo caches), which must stay under 20 ms.
A 2 MB `.text` for the ratio: e.g. the largest gfx1030 code object in librocsparse's .hip_fatbin
(`python -m amddbg.isa.gfx10.accuracy --rocsparse N` shows how those are extracted).
"""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import time
from pathlib import Path

from elftools.elf.elffile import ELFFile

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from amddbg.isa.gfx10 import decoder as decoder_module  # noqa: E402
from amddbg.isa.gfx10.accuracy import processor_of  # noqa: E402
from amddbg.isa.gfx10.decoder import Decoder  # noqa: E402


def text_sections(path: Path) -> tuple[str, list[tuple[int, bytes]]]:
    elf = ELFFile(io.BytesIO(path.read_bytes()))
    secs = [(s["sh_addr"], s.data()) for s in elf.iter_sections()
            if s["sh_type"] == "SHT_PROGBITS" and s["sh_flags"] & 0x4]
    return processor_of(elf), secs


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv]
    if not paths:
        cands = [p for p in (ROOT / "corefiles" / "co").glob("*.co") if "-gfx1" in p.name]
        paths = [max(cands, key=lambda p: p.stat().st_size)]
    for path in paths:
        proc, secs = text_sections(path)
        size = sum(len(d) for _a, d in secs)
        t0 = time.perf_counter()
        n = 0
        for addr, data in secs:
            n += len(Decoder(proc).decode_all(data, addr))
        ours = time.perf_counter() - t0
        if shutil.which("llvm-objdump-22"):
            t0 = time.perf_counter()
            subprocess.run(["llvm-objdump-22", "-d", str(path)], stdout=subprocess.DEVNULL, check=True)
            theirs = time.perf_counter() - t0
            ratio = f"{ours / theirs:.2f}x"
        else:
            theirs, ratio = float("nan"), "n/a (llvm-objdump-22 missing)"
        decoder_module._SHARED.clear()  # "on demand": memo caches cold, tables already loaded
        d = Decoder(proc)
        addr, data = secs[0]
        t0 = time.perf_counter()
        d.decode_all(data[:4096], addr)
        one = (time.perf_counter() - t0) * 1000
        print(f"{path.name}: {proc} {size} bytes {n} instructions; amddbg {ours:.3f}s "
              f"llvm-objdump {theirs:.3f}s ratio {ratio}; one 4 KiB function {one:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
