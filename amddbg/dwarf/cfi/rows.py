"""Executing call frame instructions into rows (the CFA rule and one rule per register column).

AMDGPU specifics (manual "Call Frame Information"; extension A.6.4): the default rule of every column is
*same value*; the CFA may live in any address space (`DW_CFA_LLVM_def_aspace_cfa(_sf)`), and
`def_cfa_register` / `def_cfa_offset(_sf)` keep the previous address space; they are ill-formed after
`def_cfa_expression`. `offset(N)` rules are relative to the CFA *location*, so they inherit its space.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from amddbg.dwarf.cfi.parser import CIE, FDE, CFAInstruction, FrameSection, cie_instructions, fde_instructions
from amddbg.errors import FormatError

UNDEFINED = "undefined"
SAME_VALUE = "same_value"
OFFSET = "offset"
VAL_OFFSET = "val_offset"
REGISTER = "register"
EXPRESSION = "expression"
VAL_EXPRESSION = "val_expression"


@dataclass(frozen=True, slots=True)
class CFARule:
    register: int | None = None  # None for an expression CFA
    offset: int = 0
    aspace: int = 0  # DW_ASPACE number; 0 = DW_ASPACE_LLVM_none
    expression: bytes | None = None

    @property
    def is_expression(self) -> bool:
        return self.expression is not None


@dataclass(frozen=True, slots=True)
class RegisterRule:
    kind: str
    offset: int = 0  # byte offset (already multiplied by the data alignment factor)
    register: int = 0
    expression: bytes = b""


SAME = RegisterRule(SAME_VALUE)


@dataclass
class Row:
    address: int
    end: int
    cfa: CFARule
    rules: dict[int, RegisterRule] = field(default_factory=dict)

    def rule(self, register: int) -> RegisterRule:
        """The rule for a column; AMDGPU's default for every column is same value."""
        return self.rules.get(register, SAME)


def _apply(ins: CFAInstruction, cie: CIE, state: dict, initial: dict[int, RegisterRule] | None,
           stack: list, new_row) -> None:
    name, a = ins.name, ins.operands
    daf, caf = cie.data_alignment, cie.code_alignment
    rules: dict[int, RegisterRule] = state["rules"]
    cfa: CFARule = state["cfa"]
    if name in ("DW_CFA_advance_loc", "DW_CFA_advance_loc1", "DW_CFA_advance_loc2", "DW_CFA_advance_loc4"):
        new_row(state["loc"] + a[0] * caf)
    elif name == "DW_CFA_set_loc":
        new_row(a[0])
    elif name == "DW_CFA_def_cfa":
        state["cfa"] = CFARule(a[0], a[1], 0)
    elif name == "DW_CFA_def_cfa_sf":
        state["cfa"] = CFARule(a[0], a[1] * daf, 0)
    elif name == "DW_CFA_LLVM_def_aspace_cfa":
        state["cfa"] = CFARule(a[0], a[1], a[2])
    elif name == "DW_CFA_LLVM_def_aspace_cfa_sf":
        state["cfa"] = CFARule(a[0], a[1] * daf, a[2])
    elif name in ("DW_CFA_def_cfa_register", "DW_CFA_def_cfa_offset", "DW_CFA_def_cfa_offset_sf"):
        if cfa.is_expression:
            raise FormatError(f"{name} after DW_CFA_def_cfa_expression", offset=ins.offset)
        if name == "DW_CFA_def_cfa_register":
            state["cfa"] = CFARule(a[0], cfa.offset, cfa.aspace)
        elif name == "DW_CFA_def_cfa_offset":
            state["cfa"] = CFARule(cfa.register, a[0], cfa.aspace)
        else:
            state["cfa"] = CFARule(cfa.register, a[0] * daf, cfa.aspace)
    elif name == "DW_CFA_def_cfa_expression":
        state["cfa"] = CFARule(None, 0, 0, a[0])
    elif name == "DW_CFA_undefined":
        rules[a[0]] = RegisterRule(UNDEFINED)
    elif name == "DW_CFA_same_value":
        rules[a[0]] = RegisterRule(SAME_VALUE)
    elif name in ("DW_CFA_offset", "DW_CFA_offset_extended"):
        rules[a[0]] = RegisterRule(OFFSET, offset=a[1] * daf)
    elif name == "DW_CFA_offset_extended_sf":
        rules[a[0]] = RegisterRule(OFFSET, offset=a[1] * daf)
    elif name == "DW_CFA_GNU_negative_offset_extended":
        rules[a[0]] = RegisterRule(OFFSET, offset=-a[1] * daf)
    elif name == "DW_CFA_val_offset":
        rules[a[0]] = RegisterRule(VAL_OFFSET, offset=a[1] * daf)
    elif name == "DW_CFA_val_offset_sf":
        rules[a[0]] = RegisterRule(VAL_OFFSET, offset=a[1] * daf)
    elif name == "DW_CFA_register":
        rules[a[0]] = RegisterRule(REGISTER, register=a[1])
    elif name == "DW_CFA_expression":
        rules[a[0]] = RegisterRule(EXPRESSION, expression=a[1])
    elif name == "DW_CFA_val_expression":
        rules[a[0]] = RegisterRule(VAL_EXPRESSION, expression=a[1])
    elif name in ("DW_CFA_restore", "DW_CFA_restore_extended"):
        if initial is None:
            raise FormatError(f"{name} in a CIE's initial instructions", offset=ins.offset)
        if a[0] in initial:
            rules[a[0]] = initial[a[0]]
        else:
            rules.pop(a[0], None)
    elif name == "DW_CFA_remember_state":
        stack.append((dict(rules), state["cfa"]))
    elif name == "DW_CFA_restore_state":
        if not stack:
            raise FormatError("DW_CFA_restore_state without DW_CFA_remember_state", offset=ins.offset)
        saved_rules, saved_cfa = stack.pop()
        state["rules"] = dict(saved_rules)
        state["cfa"] = saved_cfa
    elif name in ("DW_CFA_nop", "DW_CFA_GNU_args_size", "DW_CFA_GNU_window_save"):
        pass
    else:  # pragma: no cover - every decoded name is handled above
        raise FormatError(f"cannot execute {name}", offset=ins.offset)


def initial_state(sec: FrameSection, cie: CIE) -> tuple[CFARule, dict[int, RegisterRule]]:
    state = {"cfa": CFARule(None, 0, 0), "rules": {}, "loc": 0}
    for ins in cie_instructions(sec, cie):
        _apply(ins, cie, state, None, [], lambda _addr: None)
    return state["cfa"], state["rules"]


def compute_rows(sec: FrameSection, fde: FDE) -> list[Row]:
    """All rows of an FDE, in address order. An FDE without instructions has one row (the CIE's)."""
    cfa, initial = initial_state(sec, fde.cie)
    state = {"cfa": cfa, "rules": dict(initial), "loc": fde.low_pc}
    rows: list[Row] = []
    stack: list = []

    def new_row(address: int) -> None:
        if address < state["loc"]:
            raise FormatError(f"CFI row address {address:#x} goes backwards", offset=fde.offset)
        if address != state["loc"]:
            rows.append(Row(state["loc"], address, state["cfa"], dict(state["rules"])))
        state["loc"] = address

    for ins in fde_instructions(sec, fde):
        _apply(ins, fde.cie, state, initial, stack, new_row)
    rows.append(Row(state["loc"], fde.high_pc, state["cfa"], dict(state["rules"])))
    return rows


def row_for(sec: FrameSection, fde: FDE, pc: int) -> Row:
    for row in compute_rows(sec, fde):
        if row.address <= pc < row.end:
            return row
    raise FormatError(f"no CFI row for {pc:#x} in the FDE at {fde.offset:#x}", offset=fde.offset)
