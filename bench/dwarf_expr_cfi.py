#!/usr/bin/env python3
"""Timing of the DWARF expression decoder/evaluator and the CFI dumper, with ratios against llvm-dwarfdump-22.

    .venv/bin/python bench/dwarf_expr_cfi.py [OBJECT.co]

1. `.debug_frame` parse + rows + llvm-dwarfdump text: ours vs `llvm-dwarfdump-22 --debug-frame`.
2. Decoding + printing every location expression of the object (bytes gathered beforehand) vs
   `llvm-dwarfdump-22 --debug-info --debug-loclists` (which does more: this ratio is an upper bound).
3. Evaluating a uniform expression (fbreg) and a lane-dependent one (push_lane/offset) for 64 lanes.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from amddbg.amdgpu import AddressSpace  # noqa: E402
from amddbg.dwarf.cfi import frame_sections  # noqa: E402
from amddbg.dwarf.cfi.dump import dump_section  # noqa: E402
from amddbg.dwarf.expr import Location, StaticContext, decode, encode, evaluate_lanes, format_ops  # noqa: E402


def timed(fn, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def main() -> int:
    obj = Path(sys.argv[1]) if len(sys.argv) > 1 else max((ROOT / "corefiles" / "co").glob("*.co"),
                                                           key=lambda p: p.stat().st_size)
    print(f"object: {obj.name} ({obj.stat().st_size} bytes)")
    tool = shutil.which("llvm-dwarfdump-22")

    def ours_cfi():
        for sec in frame_sections(obj):
            for _ in dump_section(sec):
                pass

    t_ours = timed(ours_cfi)
    if tool:
        t_llvm = timed(lambda: subprocess.run([tool, "--debug-frame", str(obj)], capture_output=True, check=True))
        print(f"cfi dump: ours {t_ours * 1e3:.1f} ms, llvm-dwarfdump-22 {t_llvm * 1e3:.1f} ms, "
              f"ratio {t_ours / t_llvm:.2f}x")
    else:
        print(f"cfi dump: ours {t_ours * 1e3:.1f} ms (llvm-dwarfdump-22 not installed)")

    sys.path.insert(0, str(ROOT / "tests" / "dwarf" / "expr"))
    from test_expr_corpus import corpus_expressions  # noqa: E402

    exprs = [d for _, _, d in corpus_expressions(obj)]
    from amddbg.dwarf.expr.ops import _decode_cached
    from amddbg.dwarf.expr.printer import _format_cached

    def decode_print():  # cold caches every run: an honest single pass
        _decode_cached.cache_clear()
        _format_cached.cache_clear()
        for d in exprs:
            format_ops(decode(d))

    t_dec = timed(decode_print)
    n_ops = sum(len(decode(d)) for d in exprs)
    line = f"expressions: {len(exprs)} ({n_ops} ops) decoded+printed in {t_dec * 1e3:.1f} ms"
    if tool:
        t_info = timed(lambda: subprocess.run([tool, "--debug-info", "--debug-loclists", str(obj)],
                                              capture_output=True, check=True))
        line += f"; llvm-dwarfdump-22 --debug-info --debug-loclists {t_info * 1e3:.1f} ms, ratio {t_dec / t_info:.2f}x"
    print(line)

    regs = {64 + 1: 0x1000, 2560: list(range(64))}
    ctx = StaticContext(regs, {AddressSpace.PRIVATE_WAVE: {0: bytes(0x10000)}}, wave_size=64,
                        frame_base=Location.memory(AddressSpace.PRIVATE_LANE, 0x40, lane=0))
    uniform = encode([("DW_OP_bregx", 65, 16), ("DW_OP_lit6",), ("DW_OP_swap",), ("DW_OP_xderef",)])
    per_lane = encode([("DW_OP_regx", 2560), ("DW_OP_LLVM_push_lane",), ("DW_OP_lit4",), ("DW_OP_mul",),
                       ("DW_OP_LLVM_offset",)])
    n = 200
    deref_lane = encode([("DW_OP_LLVM_push_lane",), ("DW_OP_lit4",), ("DW_OP_mul",), ("DW_OP_lit6",),
                         ("DW_OP_LLVM_form_aspace_address",), ("DW_OP_deref_size", 4)])
    for label, expr in (("uniform (bregx s33; xderef)", uniform), ("lane-affine (v0 + 4*lane)", per_lane),
                        ("lane-dependent deref", deref_lane)):
        res = evaluate_lanes(expr, ctx, range(64))
        t = timed(lambda e=expr: [evaluate_lanes(e, ctx, range(64)) for _ in range(n)]) / n
        print(f"evaluate 64 lanes, {label}: {t * 1e6:.0f} us, {res.evaluations} evaluation(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
