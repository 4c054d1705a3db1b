"""Pretty-printing of decoded operations.

Two styles: ``llvm`` reproduces llvm-dwarfdump-22's text for AMDGPU (register names SGPR33 / VGPR0 / EXEC /
PC_REG in its wave64 flavour, raw hex for numbers it does not name, ``DW_OP_LLVM_user`` prefixes) so that
our decoding can be compared with the LLVM oracle line by line; ``amddbg`` uses assembler names (s33, v0
with the wave size folded in) and spells out vendor ops without the ``DW_OP_LLVM_user`` prefix.
"""

from __future__ import annotations

from functools import lru_cache

from amddbg.dwarf.expr.ops import REGISTER_OPERAND_OPS, Encoding, Op, decode
from amddbg.dwarf.expr.regs import register_info
from amddbg.errors import FormatError

__all__ = ["format_op", "format_ops", "llvm_register_name"]


def llvm_register_name(number: int) -> str | None:
    """The name llvm-dwarfdump-22 prints for an AMDGPU DWARF register, or None when it prints hex.

    llvm-dwarfdump uses LLVM's default (wave64) DWARF flavour: it names PC_REG, EXEC, EXEC_LO, SGPRs and the
    wave64 VGPR/AGPR ranges, and prints wave32 vector numbers, STATUS and VCC as raw hex.
    """
    if number == 16:
        return "PC_REG"
    if number == 17:
        return "EXEC"
    if number == 1:
        return "EXEC_LO"
    if 32 <= number <= 95:
        return f"SGPR{number - 32}"
    if 1088 <= number <= 1129:
        return f"SGPR{number - 1024}"
    if 2560 <= number <= 2815:
        return f"VGPR{number - 2560}"
    if 3072 <= number <= 3327:
        return f"AGPR{number - 3072}"
    return None


def _reg(number: int, style: str) -> str:
    if style == "llvm":
        name = llvm_register_name(number)
        return name if name is not None else f"{number:#x}"
    info = register_info(number)
    return info.name if info else f"reg{number}"


def _signed(v: int) -> str:
    return f"+{v}" if v >= 0 else str(v)


# DW_OP_entry_value holds an expression that may itself hold DW_OP_entry_value. Producers nest it at
# most once or twice; a bound keeps a hostile nesting from exhausting the Python stack.
MAX_NESTING = 16


def format_op(op: Op, *, style: str = "llvm", encoding: Encoding = Encoding.LLVM_USER, _depth: int = 0) -> str:
    name, args = op.name, op.operands
    llvm = style == "llvm"
    head = name
    if name.startswith("DW_OP_LLVM_") and llvm and op.subop is not None:
        head = f"DW_OP_LLVM_user {name}"
    if name == "DW_OP_bregx":
        return f"{head} {_reg(args[0], style)}{_signed(args[1])}"
    if name == "DW_OP_LLVM_aspace_bregx":
        return f"{head} {_reg(args[0], style)}{_signed(args[1])}"
    if name in REGISTER_OPERAND_OPS:
        rest = [_reg(args[0], style)] + [_operand(name, i + 1, a) for i, a in enumerate(args[1:])]
        if name in ("DW_OP_regval_type", "DW_OP_GNU_regval_type"):
            return f"{head} {rest[0]} <0x{args[1]:x}>"
        return f"{head} {' '.join(rest)}"
    if name.startswith("DW_OP_breg") and name[10:].isdigit():
        number = int(name[10:])
        reg = llvm_register_name(number) if llvm else _reg(number, style)
        return f"{head} {reg or ''}{_signed(args[0])}"
    if name.startswith("DW_OP_reg") and name[9:].isdigit():
        number = int(name[9:])
        reg = llvm_register_name(number) if llvm else _reg(number, style)
        return f"{head} {reg}" if reg else head
    if name in ("DW_OP_entry_value", "DW_OP_GNU_entry_value"):
        if _depth >= MAX_NESTING:
            raise FormatError(f"{name} nested more than {MAX_NESTING} deep", offset=op.offset)
        inner = _format_cached(tuple(decode(args[0], encoding=encoding)), style, encoding, _depth + 1)
        return f"{head}({inner})"
    if name in ("DW_OP_implicit_value",):
        data = args[0]
        return f"{head} {len(data):#x} " + " ".join(f"0x{b:02x}" for b in data)
    if name in ("DW_OP_const_type", "DW_OP_GNU_const_type"):
        return f"{head} <0x{args[0]:x}> " + " ".join(f"0x{b:02x}" for b in args[1])
    if name in ("DW_OP_deref_type", "DW_OP_xderef_type", "DW_OP_GNU_deref_type"):
        return f"{head} {args[0]:#x} <0x{args[1]:x}>"
    if name in ("DW_OP_convert", "DW_OP_reinterpret", "DW_OP_GNU_convert", "DW_OP_GNU_reinterpret"):
        return f"{head} <0x{args[0]:x}>"
    if not args:
        return head
    return head + " " + " ".join(_operand(name, i, a) for i, a in enumerate(args))


_SIGNED_OPS = frozenset({"DW_OP_consts", "DW_OP_fbreg", "DW_OP_bra", "DW_OP_skip", "DW_OP_const1s",
                         "DW_OP_const2s", "DW_OP_const4s", "DW_OP_const8s"})


def _operand(name: str, index: int, value) -> str:
    if isinstance(value, bytes):
        return " ".join(f"0x{b:02x}" for b in value)
    if name in _SIGNED_OPS or (name in ("DW_OP_implicit_pointer", "DW_OP_GNU_implicit_pointer",
                                        "DW_OP_LLVM_aspace_implicit_pointer") and index == 1):
        return _signed(value)
    return f"{value:#x}"


def format_ops(ops: list[Op], *, style: str = "llvm", encoding: Encoding = Encoding.LLVM_USER) -> str:
    return _format_cached(tuple(ops), style, encoding, 0)


@lru_cache(maxsize=1 << 16)
def _format_cached(ops: tuple[Op, ...], style: str, encoding: Encoding, depth: int) -> str:
    return ", ".join(format_op(op, style=style, encoding=encoding, _depth=depth) for op in ops)
