#!/usr/bin/env python3
"""Write layouts.json.gz: where AMD's matrix instruction calculator puts every element of A, B and D for each
dense f32/f16/bf16/i8/f64 MFMA instruction of CDNA2 (gfx90a) and CDNA3 (gfx94x) and the f32/i32-result WMMA
instructions of RDNA3 (GFX11) and RDNA4 (GFX12) in wave32 and wave64 (keys "rdna3:w32:..."), the oracle for
amddbg/emu/semantics/matrix.py's layout formulas (tests/emu/test_mfma.py).

    python3 corefiles/mfma/make_layouts.py CALCULATOR [PYTHON]

CALCULATOR is matrix_calculator.py from https://github.com/ROCm/amd_matrix_instruction_calculator (commit 2ef9189
was used); PYTHON runs it (it needs the `tabulate` package). Each instruction maps "A", "B" and "D" to a list of
[block, row, column, register, lane, low bit] cells (the first register of a pair for 64-bit elements), parsed from
the calculator's `--register-layout --csv` tables.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
WMMA = ("v_wmma_f32_16x16x16_f16", "v_wmma_f32_16x16x16_bf16", "v_wmma_i32_16x16x16_iu8")
CELL = re.compile(r"[va](?:\[\d+:)?(\d+)\]?\{(\d+)\}(?:\.\[(\d+):(\d+)\])?")


def layout(py: str, calc: str, arch: str, name: str, matrix: str, wave: str = "64") -> list[list[int]]:
    text = subprocess.run([py, calc, "-a", arch, "-w", wave, "-i", name, f"-{matrix}", "--register-layout", "--csv"],
                          capture_output=True, text=True, check=True).stdout
    cells, block, cols = [], None, None
    for line in text.splitlines():
        m = re.match(r"Block (\d+)", line)
        if m:
            block = int(m.group(1))
        elif line.startswith(f"{matrix}["):
            cols = [int(c) for c in line.split(",")[1:]]
            block = 0 if block is None else block  # (RDNA tables have no block headings)
        elif block is not None and cols is not None and line[:1].isdigit():
            row, *rest = line.split(",")
            for col, cell in zip(cols, rest, strict=True):
                for place in cell.split():  # GFX11 WMMA lists every replicated copy
                    m = CELL.fullmatch(place)
                    cells.append([block, int(row), col, int(m.group(1)), int(m.group(2)), int(m.group(4) or 0)])
    return cells


def main() -> int:
    calc = sys.argv[1]
    py = sys.argv[2] if len(sys.argv) > 2 else sys.executable
    out = {}
    for arch in ("cdna2", "cdna3"):
        names = subprocess.run([py, calc, "-a", arch, "-L"], capture_output=True, text=True, check=True).stdout.split()
        for name in names:
            if name.startswith("v_mfma_") and not any(t in name for t in ("xf32", "bf8", "fp8")):
                out[f"{arch}:{name}"] = {m: layout(py, calc, arch, name, m) for m in ("A", "B", "D")}
    for arch in ("rdna3", "rdna4"):  # GFX11, GFX12 WMMA, wave32 and wave64
        for wave in ("32", "64"):
            for name in WMMA:
                out[f"{arch}:w{wave}:{name}"] = {m: layout(py, calc, arch, name, m, wave) for m in ("A", "B", "D")}
    data = json.dumps({"tool": "amd_matrix_instruction_calculator", "instructions": out}, separators=(",", ":"))
    with gzip.GzipFile(HERE / "layouts.json.gz", "wb", mtime=0) as f:  # (mtime 0: the same bytes each time)
        f.write(data.encode())
    print(f"{len(out)} instructions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
