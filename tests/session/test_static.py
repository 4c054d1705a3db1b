"""A Program over code objects alone (no core): functions, lines, disassembly, variables and their DWARF
locations — never values. Expected lines and locations come from the stored llvm-addr2line-22 and
llvm-dwarfdump-22 outputs next to the corpus objects."""

from __future__ import annotations

from pathlib import Path

import pytest

import amddbg
from amddbg.errors import Unavailable, UsageError

CO = Path(__file__).resolve().parents[2] / "corefiles" / "co"
O2 = CO / "llvm22-gfx90a-w64-O2-hip.co"


def test_static_frames_list_variables_with_locations_not_values():
    prog = amddbg.open(O2)
    _, sym = prog.lookup_function("third_level(int)")[0]
    (f,) = prog.frames_at(sym.address + 8)
    assert (f.function, f.line, f.method, f.thread) == ("third_level(int)", 33, "static", None)
    (x,) = f.arguments()
    assert x.kind == "arg" and x.location_text() == "DW_OP_bregx VGPR0+0, DW_OP_lit1, DW_OP_swap, DW_OP_xderef"
    # the stored dwarfdump shows the same expression for third_level's x
    dump = (CO / f"{O2.name}.dwarfdump.txt").read_text()
    assert "DW_OP_bregx VGPR0+0, DW_OP_lit1, DW_OP_swap, DW_OP_xderef" in dump
    assert x.value().format() == "<unavailable>"


def test_static_inlined_chain_at_a_barrier():
    prog = amddbg.open(O2)
    _, sym = prog.lookup_function("divergent_barrier")[0]
    barrier = next(i for i in prog.disassemble(sym.address) if i.mnemonic == "s_barrier")
    frames = prog.frames_at(barrier.address)
    assert [(f.function, f.line, f.inlined) for f in frames] == [
        ("workgroup_barrier()", 13, True), ("divergent_barrier(int*, int*)", 86, False)]
    lane = frames[1].variable("lane")
    assert lane is not None and lane.kind == "local" and "VGPR0" in lane.location_text()


def test_static_session_refuses_what_needs_a_core():
    prog = amddbg.open(O2)
    assert prog.waves == [] and prog.current_frame is None
    with pytest.raises(Unavailable):
        prog.frames_at(0xDEAD_0000_0000)
    with pytest.raises(Unavailable):
        prog.read("private_lane", 0, 4)
    with pytest.raises(UsageError):
        prog.evaluate_lanes("1")
    # code bytes are readable from the object itself
    _, sym = prog.lookup_function("third_level")[0]
    assert len(prog.read("global", sym.address, 8)) == 8
