"""Text form of CIEs, FDEs, instructions and rows, in llvm-dwarfdump-22's layout.

Matching LLVM's text lets the tests compare our decoding with the stored `llvm-dwarfdump-22 --debug-frame`
output line by line (the oracle), and lets users diff the two tools.
"""

from __future__ import annotations

from collections.abc import Iterator

from amddbg.dwarf.cfi.parser import CIE, FDE, CFAInstruction, FrameSection, cie_instructions, fde_instructions
from amddbg.dwarf.cfi.rows import (
    EXPRESSION,
    OFFSET,
    REGISTER,
    SAME_VALUE,
    UNDEFINED,
    VAL_EXPRESSION,
    VAL_OFFSET,
    CFARule,
    RegisterRule,
    Row,
    compute_rows,
    initial_state,
)
from amddbg.dwarf.expr.ops import Encoding, decode
from amddbg.dwarf.expr.printer import format_ops, llvm_register_name


def reg_name(number: int) -> str:
    return llvm_register_name(number) or f"reg{number}"


def _expr(data: bytes, encoding: Encoding) -> str:
    return format_ops(decode(data, encoding=encoding), style="llvm", encoding=encoding)


def _signed(v: int) -> str:
    return f"+{v}" if v >= 0 else str(v)


def format_instruction(ins: CFAInstruction, cie: CIE, *, loc: int = 0,
                       encoding: Encoding = Encoding.LLVM_USER) -> str:
    n, a = ins.name, ins.operands
    daf, caf = cie.data_alignment, cie.code_alignment
    if n.startswith("DW_CFA_advance_loc"):
        return f"{n}: {a[0] * caf} to {loc + a[0] * caf:#x}"
    if n == "DW_CFA_set_loc":
        return f"{n}: {a[0]:x}"
    if n == "DW_CFA_LLVM_def_aspace_cfa":
        return f"{n}: {reg_name(a[0])} {_signed(a[1])} in addrspace{a[2]}"
    if n == "DW_CFA_LLVM_def_aspace_cfa_sf":
        return f"{n}: {reg_name(a[0])} {a[1] * daf} in addrspace{a[2]}"
    if n == "DW_CFA_def_cfa":
        return f"{n}: {reg_name(a[0])} {_signed(a[1])}"
    if n == "DW_CFA_def_cfa_sf":
        return f"{n}: {reg_name(a[0])} {a[1] * daf}"
    if n == "DW_CFA_def_cfa_offset":
        return f"{n}: {_signed(a[0])}"
    if n == "DW_CFA_def_cfa_offset_sf":
        return f"{n}: {a[0] * daf}"
    if n == "DW_CFA_def_cfa_expression":
        return f"{n}: {_expr(a[0], encoding)}"
    if n in ("DW_CFA_expression", "DW_CFA_val_expression"):
        return f"{n}: {reg_name(a[0])} {_expr(a[1], encoding)}"
    if n in ("DW_CFA_offset", "DW_CFA_offset_extended", "DW_CFA_offset_extended_sf", "DW_CFA_val_offset",
             "DW_CFA_val_offset_sf"):
        return f"{n}: {reg_name(a[0])} {a[1] * daf}"
    if n == "DW_CFA_register":
        return f"{n}: {reg_name(a[0])} {reg_name(a[1])}"
    if n in ("DW_CFA_undefined", "DW_CFA_same_value", "DW_CFA_restore", "DW_CFA_restore_extended",
             "DW_CFA_def_cfa_register"):
        return f"{n}: {reg_name(a[0])}"
    if not a:
        return f"{n}:"
    return f"{n}: " + " ".join(str(x) for x in a)


def format_cfa(cfa: CFARule, encoding: Encoding = Encoding.LLVM_USER) -> str:
    if cfa.is_expression:
        return _expr(cfa.expression, encoding)
    if cfa.register is None:
        return "undefined"
    if cfa.aspace:
        return f"{reg_name(cfa.register)}{_signed(cfa.offset)} in addrspace{cfa.aspace}"
    return reg_name(cfa.register) + (_signed(cfa.offset) if cfa.offset else "")


def format_rule(rule: RegisterRule, encoding: Encoding = Encoding.LLVM_USER) -> str:
    k = rule.kind
    if k == UNDEFINED:
        return "undefined"
    if k == SAME_VALUE:
        return "same"
    if k == OFFSET:
        return "[CFA" + (_signed(rule.offset) if rule.offset else "") + "]"
    if k == VAL_OFFSET:
        return "CFA" + (_signed(rule.offset) if rule.offset else "")
    if k == REGISTER:
        return reg_name(rule.register)
    if k == EXPRESSION:
        return f"[{_expr(rule.expression, encoding)}]"
    if k == VAL_EXPRESSION:
        return _expr(rule.expression, encoding)
    return k


def format_row(row: Row | None, cfa: CFARule, rules: dict[int, RegisterRule],
               encoding: Encoding = Encoding.LLVM_USER) -> str:
    head = f"{row.address:#x}: " if row is not None else ""
    text = f"{head}CFA={format_cfa(cfa, encoding)}"
    if rules:
        text += ": " + ", ".join(f"{reg_name(r)}={format_rule(rules[r], encoding)}" for r in sorted(rules))
    return text


def dump_section(sec: FrameSection, *, encoding: Encoding | None = None, rows: bool = True) -> Iterator[str]:
    """Lines describing a whole section (CIEs and FDEs in file order), llvm-dwarfdump style."""
    entries: list[CIE | FDE] = sorted([*sec.cies.values(), *sec.fdes], key=lambda e: e.offset)
    for e in entries:
        if isinstance(e, CIE):
            enc = encoding or _encoding_of(e)
            ident = 0 if e.is_eh else (0xFFFFFFFFFFFFFFFF if e.dwarf64 else 0xFFFFFFFF)
            width = 16 if e.dwarf64 else 8
            yield f"{e.offset:08x} {e.length:0{width}x} {ident:0{width}x} CIE"
            yield f"  Format:                {'DWARF64' if e.dwarf64 else 'DWARF32'}"
            yield f"  Version:               {e.version}"
            yield f'  Augmentation:          "{e.augmentation}"'
            if e.version >= 4:
                yield f"  Address size:          {e.address_size}"
                yield f"  Segment desc size:     {e.segment_size}"
            yield f"  Code alignment factor: {e.code_alignment}"
            yield f"  Data alignment factor: {e.data_alignment}"
            yield f"  Return address column: {e.return_address_register}"
            yield ""
            for ins in cie_instructions(sec, e):
                yield "  " + format_instruction(ins, e, encoding=enc)
            cfa, rules = initial_state(sec, e)
            if rows and (cfa.register is not None or cfa.is_expression or rules):
                yield ""
                yield "  " + format_row(None, cfa, rules, enc)
            yield ""
        else:
            enc = encoding or _encoding_of(e.cie)
            width = 16 if e.dwarf64 else 8
            cie_ref = e.cie.offset
            if e.cie.is_eh:  # .eh_frame stores the distance back to the CIE
                cie_ref = e.offset + (12 if e.dwarf64 else 4) - e.cie.offset
            yield (f"{e.offset:08x} {e.length:0{width}x} {cie_ref:0{width}x} FDE cie={e.cie.offset:08x} "
                   f"pc={e.low_pc:08x}...{e.high_pc:08x}")
            yield f"  Format:       {'DWARF64' if e.dwarf64 else 'DWARF32'}"
            loc = e.low_pc
            for ins in fde_instructions(sec, e):
                yield "  " + format_instruction(ins, e.cie, loc=loc, encoding=enc)
                if ins.name.startswith("DW_CFA_advance_loc"):
                    loc += ins.operands[0] * e.cie.code_alignment
                elif ins.name == "DW_CFA_set_loc":
                    loc = ins.operands[0]
            if rows:
                yield ""
                for row in compute_rows(sec, e):
                    if row.cfa.register is None and not row.cfa.is_expression and not row.rules:
                        continue
                    yield "  " + format_row(row, row.cfa, row.rules, enc)
            yield ""


def _encoding_of(cie: CIE) -> Encoding:
    from amddbg.dwarf.expr.ops import encoding_for

    return encoding_for(augmentation=cie.augmentation)
