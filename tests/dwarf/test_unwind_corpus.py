"""The ABI prologue analysis over every function of the corpus objects a decoder exists for: at every
instruction of every non-kernel function it must produce a row (or say NotSupported), and the row must
agree with the call convention's invariants: the CFA is s32 or s33 based in private_wave, and the return
address comes from s30/s31 or from VGPR lanes they were written to."""

from __future__ import annotations

import pytest

from amddbg.dwarf.expr import decode
from amddbg.dwarf.unwind import CodeInfo, abi_row
from amddbg.errors import NotSupported
from tests import bounded


def _objects(corpus):
    picked = [p for p in corpus if any(t in p.name for t in ("gfx90a", "gfx942", "gfx1100", "gfx1200"))]
    return picked[:bounded.count(4, len(picked))]  # AMDDBG_SLOW_LIMIT=0: every object


@pytest.mark.slow
def test_abi_rows_everywhere(corpus):
    from amddbg.codeobj import CodeObject

    checked = 0
    for path in _objects(corpus):
        code = CodeInfo.from_code_object(CodeObject.from_path(path))
        for func in code.functions:
            if func.is_kernel:
                continue
            for pc in range(func.address, func.address + func.size, 4):
                try:
                    row, _ = abi_row(code, func, pc)
                except NotSupported:
                    continue
                ops = decode(row.rule(16).expression)
                assert ops[0].name == "DW_OP_regx"
                assert ops[0].operands[0] in (62, 63) or ops[0].operands[0] >= 1536
                if row.cfa.is_expression:
                    assert code.swizzled_stack
                else:
                    assert row.cfa.register in (64, 65) and row.cfa.aspace == 6
                checked += 1
    assert checked > 100


def test_second_level_prologue_everywhere_on_gfx9(corpus):
    """In every gfx9-family HIP O2 object, at the call in second_level the caller's PC lives in two lanes of
    one VGPR (v_writelane_b32 vN, s30, 0 / s31, 1) and the CFA is s33 in private_wave (or s33 * wave)."""
    from amddbg.codeobj import CodeObject

    seen = 0
    for path in corpus:
        if "-O2-hip" not in path.name or not any(t in path.name for t in ("gfx906", "gfx908", "gfx90a", "gfx942",
                                                                         "gfx950")):
            continue
        code = CodeInfo.from_code_object(CodeObject.from_path(path))
        func = next(f for f in code.functions if "second_level" in f.name)
        from amddbg.isa import decoder_for

        insns = decoder_for(code.processor).decode_all(code.read_code(func.address, func.size), func.address)
        call = next(i for i in insns if i.mnemonic == "s_swappc_b64")
        row, _ = abi_row(code, func, call.address + call.size)  # the return address of the call
        regs = [op.operands for op in decode(row.rule(16).expression) if op.name == "DW_OP_regx"]
        assert len(regs) == 2 and regs[0] == regs[1] and regs[0][0] >= 2560, path.name
        seen += 1
    assert seen >= 8
