"""Location-expression *shapes*: an expression with its register numbers, offsets and constants normalised.

Why: a debugger meets the expressions its producers emit, and those come in a few dozen shapes
(`DW_OP_bregx VGPRn+0, DW_OP_litN, DW_OP_swap, DW_OP_xderef` for thousands of variables). The census of
every shape in the corpus (`corefiles/make_location_shapes.py` -> `corefiles/location-shapes.json`) and a
test per shape against a core make "every expression the corpus holds evaluates to what it names" a
checked fact, and a new producer shape fails that test until someone looks at it.

Normalisation keeps what changes the meaning: the register *class* (SGPR, VGPR, AGPR, or the named
register), whether a register offset is zero (the promoted-variable idiom, see `promoted`), the op
sequence. Numbers become ``k``, literals ``litN``, base-type operands ``T``, piece sizes ``n``.
"""

from __future__ import annotations

from collections.abc import Sequence

from amddbg.dwarf.expr.ops import REGISTER_OPERAND_OPS, Op
from amddbg.dwarf.expr.regs import register_info

__all__ = ["register_class", "shape_of"]


def register_class(number: int) -> str:
    info = register_info(number)
    if info is None:
        return "REG?"
    n = info.name
    if n[0] in "sva" and n[1:].isdigit():
        return {"s": "SGPR", "v": "VGPR", "a": "AGPR"}[n[0]]
    return n.upper()


def _op_shape(op: Op) -> str:
    name = op.name
    a = op.operands
    if name.startswith("DW_OP_lit") and name[9:].isdigit():
        return "DW_OP_litN"
    if name.startswith("DW_OP_reg") and name[9:].isdigit():
        return f"DW_OP_regx {register_class(int(name[9:]))}"
    if name.startswith("DW_OP_breg") and name[10:].isdigit():
        return f"DW_OP_bregx {register_class(int(name[10:]))}{'+0' if a[0] == 0 else '+k'}"
    if name in REGISTER_OPERAND_OPS:
        parts = [register_class(a[0])]
        if name in ("DW_OP_bregx", "DW_OP_LLVM_aspace_bregx"):
            parts[0] += "+0" if a[1] == 0 else "+k"
        elif len(a) > 1:
            parts.append("T")
        return f"{name} {' '.join(parts)}"
    if name in ("DW_OP_convert", "DW_OP_GNU_convert", "DW_OP_reinterpret", "DW_OP_deref_type",
                "DW_OP_const_type"):
        return f"{name} T"
    if name in ("DW_OP_piece", "DW_OP_bit_piece"):
        return f"{name} n"
    if name == "DW_OP_implicit_value":
        return f"{name} n"
    if name in ("DW_OP_skip", "DW_OP_bra"):
        return f"{name} target"
    if a:
        return f"{name} k"
    return name


def shape_of(ops: Sequence[Op]) -> str:
    """The normalised text of an expression (``DW_OP_bregx VGPR+0, DW_OP_litN, DW_OP_swap, ...``)."""
    return ", ".join(_op_shape(op) for op in ops) if ops else "<empty>"
