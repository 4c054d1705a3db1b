#!/usr/bin/env python3
"""`amddbg addr2line -f -i` vs `llvm-addr2line-22 -f -i`: speed ratios and accuracy in one run.

    .venv/bin/python bench/addr2line.py                 # three objects (below), 3000 addresses each
    .venv/bin/python bench/addr2line.py --objects 8     # + accuracy on 8 rocsparse objects
    .venv/bin/python bench/addr2line.py --corpus        # largest corpus object only
    .venv/bin/python bench/addr2line.py --object X.co   # these objects (repeatable)

The three objects (librocsparse0 installed, the Debian package: `apt-get install librocsparse0`): the
largest librocsparse code object (14.1 MB, 10 MB of DWARF), the one whose DWARF is nearest 1 MB, and
the largest corpus object (a few KB of DWARF, where start-up is everything). Without librocsparse,
the corpus object alone.

Speed: the same 3000 instruction addresses (seeded sample of llvm-objdump-22's instruction list) are
piped to both tools; wall time is the best of --repeat runs of the whole process, CPU time (user+sys
of the child) the best too: on a loaded machine CPU time is the steadier figure. "cold" runs with
the on-disk index disabled (--no-cache); "indexed" runs after one run built the index (in a
private cache directory; objects with less DWARF than INDEX_MIN_DEBUG_BYTES build none, and
there "indexed" is a second cold run). PYTHONDONTWRITEBYTECODE is dropped for the amddbg runs so that,
as for an installed package, Python's bytecode cache is used; `python -m amddbg` finds amddbg as
it would (the current directory first): run from the checkout to time it, from elsewhere with a
venv's python to time that venv's copy. "start-up" compares `amddbg --version` with `python -c pass`.
Accuracy: for each sampled rocsparse code object, every instruction address (or --max-addrs of
them) is symbolized in-process and compared block by block with llvm-addr2line-22's output.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
ROCSPARSE = Path("/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1")
LLVM = "llvm-addr2line-22"
OBJDUMP = "llvm-objdump-22"
ADDR = re.compile(r"// ([0-9A-F]{8,16}):")


def rocsparse_objects():
    """(triple, memoryview) of every device code object in librocsparse's .hip_fatbin."""
    from amddbg.codeobj.bundle import iter_bundle_entries
    from amddbg.dwarf.sections import ElfImage

    img = ElfImage.from_path(ROCSPARSE)
    fat = img.data(".hip_fatbin")
    return [(e.entry_id, e.data) for e in iter_bundle_entries(fat, str(ROCSPARSE)) if e.is_device], img


def corpus_objects() -> list[Path]:
    """The corpus's code objects (tests/conftest.py's list, read here without importing pytest)."""
    import json

    co = ROOT / "corefiles" / "co"
    rows = json.loads((co / "manifest.json").read_text())["objects"]
    return [co / r["file"] for r in rows if r.get("kind", "code_object") == "code_object"]


def debug_bytes(data) -> int:
    from amddbg.dwarf.sections import ElfImage

    return sum(s.size for s in ElfImage(data).sections if s.name.startswith(".debug_"))


def instruction_addresses(path: Path) -> list[int]:
    out = subprocess.run([OBJDUMP, "-d", str(path)], capture_output=True, text=True, check=True).stdout
    return [int(a, 16) for a in ADDR.findall(out)]


def best_time(cmd: list[str], stdin: str, repeat: int, env=None) -> tuple[float, float, str]:
    """(best wall time, best CPU time user+sys of the child, output). CPU time is the steadier
    figure when other jobs share the machine."""
    best, best_cpu, out = float("inf"), float("inf"), ""
    for _ in range(repeat):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        r = subprocess.run(cmd, input=stdin, capture_output=True, text=True, env=env)
        best = min(best, time.perf_counter() - t)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        best_cpu = min(best_cpu, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime))
        out = r.stdout
    return best, best_cpu, out


def split_blocks(text: str) -> list[str]:
    return [b for b in re.split(r"(?m)^(?=0x[0-9a-f]+$)", text) if b]


def accuracy(path: Path, addrs: list[int]) -> tuple[int, int]:
    import argparse as ap

    from amddbg.cli.addr2line import _format
    from amddbg.dwarf.demangle import demangle
    from amddbg.dwarf.symbolize import Symbolizer

    ns = ap.Namespace(functions=True, inlines=True, demangle=False, addresses=True, pretty=False,
                      basenames=False)
    sym = Symbolizer.from_path(path, use_cache=False)
    ours = [_format(sym.frames(a, inline=True), a, ns, demangle) for a in addrs]
    r = subprocess.run([LLVM, "-a", "-f", "-i", "-e", str(path)], input="".join(f"0x{a:x}\n" for a in addrs),
                       capture_output=True, text=True, check=True)
    theirs = split_blocks(r.stdout)
    if len(theirs) != len(ours):
        return 0, len(ours)
    return sum(1 for x, y in zip(ours, theirs, strict=True) if x == y), len(ours)


def time_object(target: Path, label: str, args, rnd: random.Random, tmpd: Path) -> None:
    """Cold, first-run and indexed timings of one object against LLVM, printed as ratios."""
    addrs = instruction_addresses(target)
    sample = sorted(rnd.sample(addrs, min(args.addresses, len(addrs))))
    stdin = "".join(f"0x{a:x}\n" for a in sample)
    env = dict(os.environ, AMDDBG_CACHE_DIR=str(tmpd / f"cache-{target.name}"))
    # An installed amddbg has compiled bytecode; don't time recompiling our modules on every run.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    amddbg = [sys.executable, "-m", "amddbg", "addr2line", "-f", "-i", "-e", str(target)]
    t_llvm, c_llvm, out_llvm = best_time([LLVM, "-f", "-i", "-e", str(target)], stdin, args.repeat)
    t_cold, c_cold, out_cold = best_time([*amddbg, "--no-cache"], stdin, args.repeat, env)
    t_build, c_build, _ = best_time(amddbg, stdin, 1, env)
    t_warm, c_warm, out_warm = best_time(amddbg, stdin, args.repeat, env)
    print(f"object: {label}; {len(sample)} of {len(addrs)} instruction addresses; best of {args.repeat}")
    print("                               wall s   ratio     cpu s   ratio")
    for what, t, c, goal in (("llvm-addr2line-22 -f -i", t_llvm, c_llvm, ""),
                             ("amddbg cold (--no-cache)", t_cold, c_cold, "  (goal < 3x)"),
                             ("amddbg first run + index", t_build, c_build, ""),
                             ("amddbg with on-disk index", t_warm, c_warm, "  (goal < 1.5x)")):
        print(f"  {what:27s} {t:7.3f}  {t / t_llvm:5.2f}x   {c:7.3f}  {c / max(c_llvm, 1e-9):5.2f}x{goal}")
    print(f"  output identical to LLVM: cold {out_cold == out_llvm}, indexed {out_warm == out_llvm}")


def startup(repeat: int) -> None:
    """`amddbg --version` against the interpreter's own start (`python -c pass`)."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    t_py, c_py, _ = best_time([sys.executable, "-c", "pass"], "", repeat, env)
    t_v, c_v, out = best_time([sys.executable, "-m", "amddbg", "--version"], "", repeat, env)
    print(f"start-up, best of {repeat}:            wall s             cpu s")
    print(f"  python -c pass              {t_py:7.3f}           {c_py:7.3f}")
    print(f"  amddbg --version            {t_v:7.3f}  +{t_v - t_py:.3f}   {c_v:7.3f}  +{c_v - c_py:.3f}"
          f"  ({out.strip()})")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", action="store_true", help="time the largest corpus object only")
    ap.add_argument("--object", action="append", type=Path, default=[], metavar="PATH",
                    help="time this code object (repeatable) instead of the default three")
    ap.add_argument("--addresses", type=int, default=3000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--objects", type=int, default=4, help="rocsparse objects for the accuracy check")
    ap.add_argument("--max-addrs", type=int, default=20000, help="addresses per object for accuracy")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    for tool in (LLVM, OBJDUMP):
        if shutil.which(tool) is None:
            print(f"{tool} is not installed: nothing to compare against")
            return 1
    rnd = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="amddbg-bench-") as tmp:
        tmpd = Path(tmp)
        objs, _keep = ([], None)
        if ROCSPARSE.exists() and not args.corpus:
            objs, _keep = rocsparse_objects()
        targets: list[tuple[Path, str]] = [(p, str(p)) for p in args.object]
        if not targets:
            if objs:
                largest = max(objs, key=lambda o: len(o[1]))
                mid = min(objs, key=lambda o: abs(debug_bytes(o[1]) - 1_000_000))
                for name, (triple, data) in (("largest", largest), ("mid", mid)):
                    p = tmpd / f"{name}.co"
                    p.write_bytes(data)
                    targets.append((p, f"librocsparse {triple} ({len(data) / 1e6:.1f} MB, "
                                       f"{debug_bytes(data) / 1e6:.2f} MB DWARF)"))
            c = max(corpus_objects(), key=lambda p: p.stat().st_size)
            targets.append((c, f"{c.name} ({c.stat().st_size / 1e3:.0f} KB, "
                               f"{debug_bytes(c.read_bytes()) / 1e3:.1f} KB DWARF)"))
        for target, label in targets:
            time_object(target, label, args, rnd, tmpd)
        startup(max(args.repeat, 5))
        if objs and args.objects:
            picks = rnd.sample(objs, min(args.objects, len(objs)))
            good = total = 0
            for i, (triple, data) in enumerate(picks):
                p = tmpd / f"acc{i}.co"
                p.write_bytes(data)
                a = instruction_addresses(p)
                if len(a) > args.max_addrs:
                    a = sorted(rnd.sample(a, args.max_addrs))
                g, n = accuracy(p, a)
                good += g
                total += n
                print(f"  accuracy {triple:45s} {g}/{n}")
            print(f"accuracy on {len(picks)} rocsparse objects: {good}/{total} = {100 * good / max(total, 1):.3f}%"
                  f" (goal >= 99.5%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
