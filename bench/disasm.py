"""Disassembly speed vs llvm-objdump-22 on the largest gfx90a code object available.

The object is the largest gfx90a entry of librocsparse's `.hip_fatbin` offload bundles (about 12 MB),
or a corpus object with `--file` / when librocsparse is absent. Prints, in one run:
  * full-file disassembly: `llvm-objdump-22 -d` vs ours (structured `Instruction`s for every
    instruction, and the `amddbg disasm --json` listing), as ratios;
  * decoding one function on demand (a large function, decoder already loaded; goal < 20 ms), and
    the cold cost of creating a decoder (loading the opcode tables).

    .venv/bin/python bench/disasm.py [--file X.co] [--repeat N]
"""

from __future__ import annotations

import argparse
import io
import mmap
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ROCSPARSE = Path("/usr/lib/x86_64-linux-gnu/librocsparse.so.0")
MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"


def largest_gfx90a_entry() -> tuple[str, bytes] | None:
    """(name, bytes) of the largest gfx90a entry in librocsparse's offload bundles."""
    if not ROCSPARSE.exists():
        return None
    from elftools.elf.elffile import ELFFile

    with open(ROCSPARSE, "rb") as f:
        sec = ELFFile(f).get_section_by_name(".hip_fatbin")
        if sec is None:
            return None
        start, end = sec["sh_offset"], sec["sh_offset"] + sec["sh_size"]
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        best = None
        pos = start
        while True:
            pos = mm.find(MAGIC, pos, end)
            if pos < 0:
                break
            (count,) = struct.unpack_from("<Q", mm, pos + 24)
            p = pos + 32
            for _ in range(count):
                off, size, tlen = struct.unpack_from("<QQQ", mm, p)
                triple = mm[p + 24 : p + 24 + tlen].decode(errors="replace")
                p += 24 + tlen
                if triple.endswith(("gfx90a", "gfx90a:xnack-", "gfx90a:xnack+")) and (best is None or size > best[2]):
                    best = (triple, pos + off, size)
            pos += len(MAGIC)
        if best is None:
            return None
        return f"librocsparse {best[0]} @{best[1]:#x}", bytes(mm[best[1] : best[1] + best[2]])


def timed(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", help="code object to use instead of the largest librocsparse gfx90a entry")
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs for each side (the machine may be busy)")
    args = ap.parse_args()
    if args.file:
        name, blob = args.file, Path(args.file).read_bytes()
    else:
        found = largest_gfx90a_entry()
        if found is None:
            corpus = sorted((ROOT / "corefiles" / "co").glob("*gfx90a*.co"), key=lambda p: p.stat().st_size)
            name, blob = str(corpus[-1]), corpus[-1].read_bytes()
        else:
            name, blob = found
    objdump = shutil.which("llvm-objdump-22")

    from amddbg.cli.disasm import chunks
    from amddbg.cli.main import main as cli_main
    from amddbg.codeobj import CodeObject
    from amddbg.isa import decoder_for
    from amddbg.isa.gfx9.decoder import load_tables

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "obj.co"
        path.write_bytes(blob)
        co = CodeObject.from_path(path)
        text_bytes = sum(c.size for c in co.code_sections())
        print(f"object: {name}: {len(blob) / 1e6:.1f} MB, {text_bytes / 1e6:.1f} MB of code, {co.processor}")

        t_obj = None
        if objdump:
            def run_objdump():
                subprocess.run([objdump, "-d", str(path)], stdout=subprocess.DEVNULL, check=True)
            t_obj = timed(run_objdump, args.repeat)

        n_ins = 0

        def decode_everything():
            nonlocal n_ins
            dec = decoder_for(co.processor)  # fresh decoder: nothing cached from a previous round
            n_ins = 0
            for c in chunks(co):
                n_ins += len(dec.decode_all(c.data, c.start))

        load_tables.cache_clear()
        t_api = timed(decode_everything, args.repeat)

        def cli_json():
            sink = io.StringIO()
            with redirect_stdout(sink):
                cli_main(["disasm", "--json", str(path)])

        t_json = timed(cli_json, args.repeat)

        def cli_text():
            sink = io.StringIO()
            with redirect_stdout(sink):
                cli_main(["disasm", str(path)])

        t_text = timed(cli_text, args.repeat)

        print(f"instructions: {n_ins}")
        if t_obj:
            print(f"llvm-objdump-22 -d          {t_obj:8.3f} s")
        for label, t in (("ours: decode_all (Instruction records)", t_api), ("ours: amddbg disasm --json", t_json),
                         ("ours: amddbg disasm (text)", t_text)):
            ratio = f"  ratio {t / t_obj:5.2f}x" if t_obj else ""
            print(f"{label:40s} {t:8.3f} s{ratio}")

        # one function on demand: the largest function, decoder already created
        funcs = sorted(co.functions(), key=lambda s: s.size)
        big = funcs[-1]
        dec = decoder_for(co.processor)
        data = co.read_address(big.address, big.size)

        def one():
            dec._cache4.clear()  # noqa: SLF001 - measure without cached prototypes too
            dec._cache8.clear()  # noqa: SLF001
            dec.decode_all(data, big.address)

        t_one_cold = timed(one, 3)
        t_one_warm = timed(lambda: dec.decode_all(data, big.address), 3)
        load_tables.cache_clear()
        t_load = timed(lambda: (load_tables.cache_clear(), decoder_for(co.processor)), 3)
        med = funcs[len(funcs) // 2]
        mdata = co.read_address(med.address, med.size)
        t_med = timed(lambda: decoder_for(co.processor).decode_all(mdata, med.address), 3)
        print(f"one function on demand: largest {big.name[:50]} ({big.size} bytes): "
              f"{t_one_cold * 1e3:.1f} ms (empty cache), {t_one_warm * 1e3:.1f} ms (warm)")
        print(f"median function ({med.size} bytes): {t_med * 1e3:.2f} ms; "
              f"decoder creation (table load): {t_load * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
