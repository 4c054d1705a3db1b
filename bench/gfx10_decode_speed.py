"""Decode speed of the GFX10+ decoder vs `llvm-objdump-22 -d`, printed as ratios in one run.

    python bench/gfx10_decode_speed.py [--repeat N] [CODE_OBJECT ...]

For each object: the full-file CLI (`amddbg disasm` text and `--json`) against `llvm-objdump-22 -d`,
as child processes, best of N wall and CPU (user+sys) times; CPU time is the steadier figure on a
shared machine.  Then in-process: `Decoder.decode_all` and the text-only `Decoder.iter_text` over
every function (cold memo caches, and warm), and the time to decode one function on demand (the
first 4 KiB of code with cold memo caches), which must stay under 20 ms.

Default input: the largest gfx10+/gfx11/gfx12 object of the corpus.  A 2 MB `.text` for the ratio:
the largest gfx1030 code object in librocsparse's .hip_fatbin, e.g. extracted with
`amddbg.codeobj.embedded_code_objects('/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1')` (the goal
is <= 4x objdump for the full-file disassembly).
"""

from __future__ import annotations

import argparse
import gc
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from amddbg.cli.disasm import chunks  # noqa: E402
from amddbg.codeobj import CodeObject  # noqa: E402
from amddbg.isa.gfx10 import decoder as decoder_module  # noqa: E402
from amddbg.isa.gfx10.decoder import Decoder  # noqa: E402


def child(cmd: list[str], repeat: int) -> tuple[float, float]:
    """Best wall and CPU (user+sys) seconds of `cmd` over `repeat` runs, output discarded."""
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True, cwd=ROOT)
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(walls), min(cpus)


def in_process(co, repeat: int) -> dict[str, float]:
    """Best CPU seconds of decode_all / iter_text over every chunk, cold and warm memo caches."""
    parts = [(c.data, c.start) for c in chunks(co)]
    out: dict[str, list[float]] = {}
    for _ in range(repeat):
        for name in ("decode_all", "iter_text"):
            decoder_module._SHARED.clear()  # cold: memo caches empty, tables already loaded
            d = Decoder(co.processor)
            gc.collect()  # free the previous round's caches now, not inside the timed loop
            run = d.decode_all if name == "decode_all" else (lambda b, a, d=d: list(d.iter_text(b, a)))
            for state in ("cold", "warm"):
                t0 = time.process_time()
                for data, start in parts:
                    run(data, start)
                out.setdefault(f"{name} {state}", []).append(time.process_time() - t0)
    return {k: min(v) for k, v in out.items()}


def on_demand(co) -> float:
    """Milliseconds to decode the first 4 KiB of code with cold memo caches."""
    sec = co.code_sections()[0]
    decoder_module._SHARED.clear()
    d = Decoder(co.processor)
    data = bytes(sec.data[:4096])
    t0 = time.perf_counter()
    d.decode_all(data, sec.address)
    return (time.perf_counter() - t0) * 1000


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("objects", nargs="*")
    args = ap.parse_args(argv)
    paths = [Path(a) for a in args.objects]
    if not paths:
        cands = [p for p in (ROOT / "corefiles" / "co").glob("*.co") if "-gfx1" in p.name]
        paths = [max(cands, key=lambda p: p.stat().st_size)]
    py = sys.executable
    objdump = shutil.which("llvm-objdump-22")
    for path in paths:
        co = CodeObject.from_path(str(path))
        size = sum(s.size for s in co.code_sections())
        n = sum(1 for c in chunks(co) for _ in Decoder(co.processor).iter_text(c.data, c.start))
        print(f"{path.name}: {co.processor}, {size} bytes of code, {n} instructions; best of {args.repeat}")
        print(f"  {'':34s} {'wall s':>8s} {'ratio':>7s} {'cpu s':>8s} {'ratio':>7s}")
        base = child([objdump, "-d", str(path)], args.repeat) if objdump else None
        rows = [("llvm-objdump-22 -d", base)] if base else []
        env_cmd = [py, "-m", "amddbg", "disasm"]
        rows.append(("amddbg disasm", child([*env_cmd, str(path)], args.repeat)))
        rows.append(("amddbg disasm --json", child([*env_cmd, "--json", str(path)], args.repeat)))
        for name, (wall, cpu) in rows:
            if base:
                print(f"  {name:34s} {wall:8.3f} {wall / base[0]:6.2f}x {cpu:8.3f} {cpu / base[1]:6.2f}x")
            else:
                print(f"  {name:34s} {wall:8.3f} {'n/a':>7s} {cpu:8.3f} {'n/a':>7s}")
        if not base:
            print("  (llvm-objdump-22 missing: no ratios)")
        for name, cpu in in_process(co, args.repeat).items():
            print(f"  in-process {name:23s} {'':8s} {'':7s} {cpu:8.3f}")
        print(f"  one 4 KiB function on demand (cold memo): {on_demand(co):.1f} ms (goal < 20 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
