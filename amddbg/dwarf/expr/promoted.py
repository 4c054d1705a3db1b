"""Upstream clang's address-space annotation on variables that optimisation moved into registers.

Why this exists. clang (`CGDebugInfo::AppendAddressSpaceXDeref`) appends ``DW_OP_constu AS, DW_OP_swap,
DW_OP_xderef`` to the *declare* record of every variable whose type's address space has a DWARF number
(clang <= 21: OpenCL private = 1, local = 2; LLVM 22's ``AMDGPU::DWARFAS``: HIP generic = 1, OpenCL
private_lane = 5, local = 3). On a declare the annotation is right: ``fbreg N; lit1; swap; xderef`` is "the
variable is at frame offset N, an address in space 1". At -O1/-O2, mem2reg/SROA turn the declare into
value records and *keep the declare's expression*; LLVM then describes a value held in register R with a
non-empty expression as ``DW_OP_bregx R, 0`` followed by that expression. The result for ``unsigned lane =
threadIdx.x`` kept in v0 is ``DW_OP_bregx VGPR0+0, DW_OP_lit1, DW_OP_swap, DW_OP_xderef``: read literally
(DWARF 5, or the heterogeneous extension's xderef = form_aspace_address + deref) it says "the 4 bytes at
the address held in v0", i.e. memory at address 0..63. The value is v0 itself.

What we rewrite (producers without the heterogeneous extension only, see ``producer_options``): in each
piece of a location expression, a trailing ``litAS, swap, xderef`` (optionally followed by
``stack_value``) whose address was computed from registers and constants alone (``breg*``, literals,
arithmetic, conversions: nothing that names memory, a frame base or a register *location*):

* ``bregx R, 0; litAS; swap; xderef``  ->  ``regx R`` (the register; a VGPR is the lane's dword; as the
  whole location, zero-extended to 8 bytes as `bregx` reads it: see `_widen`),
* ``<value ops>; litAS; swap; xderef[; stack_value]``  ->  ``<value ops>; stack_value`` (the value).

Why this cannot mistake a real memory location: upstream AMDGPU describes a variable in memory by its
frame index (``fbreg``) or its symbol (``addr``/``addrx``), both left alone; a 64-bit pointer to memory
needs a register pair, which LLVM cannot express as ``bregx`` (it drops such a location), and the -O0
corpus has no ``bregx`` at all. The census in ``corefiles/location-shapes.json`` records every shape of
the corpus and the test that checks each against a core.
"""

from __future__ import annotations

from dataclasses import replace

from amddbg.dwarf.expr.ops import Op
from amddbg.errors import NotSupported

__all__ = ["rewrite_promoted"]

# Operations that compute a value from registers and constants only.
_VALUE_OPS = frozenset({
    "DW_OP_bregx", "DW_OP_constu", "DW_OP_consts", "DW_OP_const1u", "DW_OP_const1s", "DW_OP_const2u",
    "DW_OP_const2s", "DW_OP_const4u", "DW_OP_const4s", "DW_OP_const8u", "DW_OP_const8s", "DW_OP_plus",
    "DW_OP_minus", "DW_OP_mul", "DW_OP_div", "DW_OP_mod", "DW_OP_and", "DW_OP_or", "DW_OP_xor",
    "DW_OP_shl", "DW_OP_shr", "DW_OP_shra", "DW_OP_not", "DW_OP_neg", "DW_OP_abs", "DW_OP_plus_uconst",
    "DW_OP_eq", "DW_OP_ne", "DW_OP_lt", "DW_OP_le", "DW_OP_gt", "DW_OP_ge", "DW_OP_convert",
    "DW_OP_GNU_convert", "DW_OP_dup", "DW_OP_swap", "DW_OP_over", "DW_OP_drop", "DW_OP_regval_type",
})
_PIECES = ("DW_OP_piece", "DW_OP_bit_piece")


def _is_value_op(name: str) -> bool:
    return name in _VALUE_OPS or (name.startswith("DW_OP_lit") and name[9:].isdigit()) or (
        name.startswith("DW_OP_breg") and name[10:].isdigit())


def _is_space_literal(op: Op) -> bool:
    return (op.name.startswith("DW_OP_lit") and op.name[9:].isdigit()) or op.name == "DW_OP_constu"


def _rewrite_segment(seg: list[Op]) -> list[Op]:
    tail_stack_value = bool(seg) and seg[-1].name == "DW_OP_stack_value"
    core = seg[:-1] if tail_stack_value else seg
    if len(core) < 4 or core[-1].name != "DW_OP_xderef" or core[-2].name != "DW_OP_swap" \
            or not _is_space_literal(core[-3]):
        return seg
    prefix = core[:-3]
    if not all(_is_value_op(op.name) for op in prefix) or not any(
            op.name.startswith("DW_OP_breg") for op in prefix):
        # constants alone (`consts 0; lit1; swap; xderef; stack_value`) are already values; anything naming
        # memory or a register location keeps its meaning
        if prefix and all(_is_value_op(op.name) for op in prefix) and tail_stack_value:
            return [*prefix, seg[-1]]
        return seg
    if len(prefix) == 1 and not tail_stack_value:
        op = prefix[0]
        number = op.operands[0] if op.name == "DW_OP_bregx" else int(op.name[10:])
        offset = op.operands[-1]
        if offset == 0:
            return [replace(op, name="DW_OP_regx", operands=(number,), code=0x90)]  # (see _widen)
    stack_value = seg[-1] if tail_stack_value else replace(core[-1], name="DW_OP_stack_value", operands=(),
                                                            code=0x9F, size=1, subop=None)
    return [*prefix, stack_value]


def rewrite_promoted(ops: list[Op]) -> list[Op]:
    """`ops` with the promoted-variable annotation resolved (see the module docstring). Expressions with
    control flow are returned unchanged (offsets matter to them)."""
    if not any(op.name == "DW_OP_xderef" for op in ops) or any(op.name in ("DW_OP_skip", "DW_OP_bra")
                                                                for op in ops):
        return ops
    out: list[Op] = []
    seg: list[Op] = []
    for op in ops:
        if op.name in _PIECES:
            out += _rewrite_segment(seg)
            out.append(op)
            seg = []
        else:
            seg.append(op)
    out += _rewrite_segment(seg)
    _refuse_leftovers(out)
    return _widen(out) if len(out) == 1 and out is not ops and out[0].name == "DW_OP_regx" else out


def _widen(ops: list[Op]) -> list[Op]:
    """A whole location rewritten to one 32-bit register (a VGPR: the lane's dword): `bregx` meant its
    contents zero-extended to the generic type, and clang describes 64-bit variables this way too (`size_t
    lid = get_local_id(0)`, 32-bit LDS pointers typed `int *`). A register location would let an 8-byte
    read run into the next lane's dword; `regx R; piece 4; lit0; stack_value; piece 4` reads R's 32 bits
    for narrow types and zero above them, and stays lane-affine (one evaluation for the wave)."""
    op = ops[0]
    piece = replace(op, name="DW_OP_piece", operands=(4,), code=0x93, subop=None)
    zero = replace(op, name="DW_OP_lit0", operands=(), code=0x30, subop=None)
    stack_value = replace(op, name="DW_OP_stack_value", operands=(), code=0x9F, subop=None)
    return [op, piece, zero, stack_value, piece]


_NAMES_MEMORY = ("DW_OP_fbreg", "DW_OP_addr", "DW_OP_addrx", "DW_OP_call_frame_cfa", "DW_OP_deref",
                 "DW_OP_deref_size", "DW_OP_push_object_address")


def _refuse_leftovers(ops: list[Op]) -> None:
    """An annotation this module did not resolve, on an address computed from registers alone (e.g. one in
    the middle of a computation), would read memory at a register's *value*: refuse it by name."""
    seg: list[Op] = []
    for op in [*ops, None]:
        if op is None or op.name in _PIECES:
            names = {o.name for o in seg}
            if "DW_OP_xderef" in names and any(n.startswith("DW_OP_breg") for n in names) \
                    and not names & set(_NAMES_MEMORY):
                from amddbg.dwarf.expr.shapes import shape_of

                raise NotSupported(f"location expression shape {shape_of(ops)} (an address-space annotation "
                                   "inside a value computed from registers)")
            seg = []
        else:
            seg.append(op)
