"""Frame base and entry values in unwound frames, checked against what the compiled code itself does.

Upstream clang says only `DW_AT_frame_base (DW_OP_regx SGPR33)`; USAGE: "DW_AT_frame_base will be defined
as the swizzled address in the swizzled private address space by dividing the CFA by the wavefront size".
The -O0 code of second_level computes the address of parameter `x` the same way (`s_lshr_b32 s16, s33, 6;
s_add_i32 s16, s16, 4`, then a flat store through src_private_base), so the DWARF location
`DW_OP_fbreg +4, DW_OP_lit1, DW_OP_swap, DW_OP_xderef` must land on that private address.
"""

from __future__ import annotations

from pathlib import Path

from amddbg.amdgpu import AddressSpace
from amddbg.dwarf.expr import Evaluator, Location, StaticContext, encode, producer_options
from amddbg.dwarf.unwind import FrameContext

CO = Path(__file__).resolve().parents[2] / "corefiles" / "co"


def die_location(path: Path, function: str, variable: str) -> tuple[bytes, bytes, str]:
    from elftools.elf.elffile import ELFFile

    with open(path, "rb") as f:
        dwarf = ELFFile(f).get_dwarf_info()
        for cu in dwarf.iter_CUs():
            producer = cu.get_top_DIE().attributes["DW_AT_producer"].value.decode()
            for die in cu.iter_DIEs():
                name = die.attributes.get("DW_AT_name")
                if die.tag == "DW_TAG_subprogram" and name and name.value.decode() == function:
                    fb = bytes(die.attributes["DW_AT_frame_base"].value)
                    for child in die.iter_children():
                        cname = child.attributes.get("DW_AT_name")
                        if cname and cname.value.decode() == variable:
                            return fb, bytes(child.attributes["DW_AT_location"].value), producer
    raise AssertionError((function, variable))


def test_fbreg_matches_the_codes_own_address_computation():
    name = "llvm22-gfx90a-w64-O0-hip.co"
    text = (CO / f"{name}.objdump.txt").read_text()
    body = text.split("<_Z12second_leveliP6Sample>:", 1)[1]
    assert "s_lshr_b32 s16, s33, 6" in body and "s_add_i32 s16, s16, 4" in body  # x at (s33 >> 6) + 4
    fb, loc_expr, producer = die_location(CO / name, "second_level", "x")
    assert fb == encode([("DW_OP_regx", 65)])  # DW_OP_regx SGPR33
    s33 = 0x1800
    frame = FrameContext(StaticContext({65: s33}, wave_size=64))
    frame.use_abi_frame_base(65, swizzled_stack=False)
    loc = Evaluator(frame, lane=7, **producer_options(producer)).run(loc_expr).result()
    assert loc == Location.memory(AddressSpace.PRIVATE_LANE, (s33 >> 6) + 4)


def test_entry_value_of_the_frame_pointer():
    """DWARF5 DW_OP_entry_value(DW_OP_regx SGPR33): the FP on entry, i.e. the rule the frame's row gives s33
    (here: `s_mov_b32 s6, s33` saved it in s6)."""
    from amddbg.codeobj import CodeObject
    from amddbg.dwarf.unwind import CodeInfo, abi_row

    code = CodeInfo.from_code_object(CodeObject.from_path(CO / "llvm22-gfx90a-w64-O2-hip.co"))
    func = next(f for f in code.functions if "second_level" in f.name)
    row, _ = abi_row(code, func, func.address + 0x20)
    frame = FrameContext(StaticContext({32 + 6: 0x1400, 65: 0x1800, 64: 0x1C00}, wave_size=64))
    frame.row = row
    frame.cfa = frame.compute_cfa(row)
    value = Evaluator(frame).run(encode([("DW_OP_entry_value", encode([("DW_OP_regx", 65)])),
                                         ("DW_OP_stack_value",)])).value()
    assert value.bits == 0x1400
