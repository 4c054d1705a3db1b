#!/usr/bin/env python3
"""Assemble the hand-made DWARF/CFI objects and store the LLVM reference dumps beside them.

    python3 corefiles/handmade/build.py            # regenerate ops_*.s, assemble, link, dump
    python3 corefiles/handmade/build.py --refs-only

Each ``X.s`` becomes ``X.co`` (llvm-mc-22 -triple=amdgcn-amd-amdhsa -mcpu=gfx90a -filetype=obj, then
ld.lld-22 -shared) and ``X.co.dwarfdump.txt`` (llvm-dwarfdump-22 --debug-frame --eh-frame --debug-info
--debug-loclists). The objects and dumps are checked in so tests run without LLVM; tests that need the tools
skip when they are missing.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
MC = "llvm-mc-22"
LLD = "ld.lld-22"
DWARFDUMP = "llvm-dwarfdump-22"
SOURCES = ["cfi_aspace", "cfi_noaspace", "frame_raw", "eh_frame", "ops_user", "ops_draft"]
DUMP_ARGS = ["--debug-frame", "--eh-frame", "--debug-info", "--debug-loclists"]


def assemble(name: str, out_dir: Path) -> Path:
    obj = out_dir / f"{name}.o"
    co = HERE / f"{name}.co"
    subprocess.run([MC, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx90a", "-filetype=obj", str(HERE / f"{name}.s"),
                    "-o", str(obj)], check=True)
    subprocess.run([LLD, "-shared", str(obj), "-o", str(co)], check=True)
    return co


def dump(co: Path) -> None:
    r = subprocess.run([DWARFDUMP, *DUMP_ARGS, co.name], cwd=HERE, capture_output=True, text=True)
    (HERE / f"{co.name}.dwarfdump.txt").write_text(r.stdout + (("\n# stderr:\n" + r.stderr) if r.stderr else ""))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--refs-only", action="store_true", help="only rewrite the reference dumps")
    args = ap.parse_args()
    tools = [DWARFDUMP] if args.refs_only else [MC, LLD, DWARFDUMP]
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        print(f"missing tools: {', '.join(missing)}", file=sys.stderr)
        return 1
    if not args.refs_only:
        subprocess.run([sys.executable, str(HERE / "make_ops.py")], check=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name in SOURCES:
            co = HERE / f"{name}.co" if args.refs_only else assemble(name, Path(tmp))
            dump(co)
            print(f"{co.name}: {co.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
