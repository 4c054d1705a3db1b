"""The structured instruction every decoder produces and every later layer consumes.

Decoders (one per GFX family) fill these; the printer turns them into LLVM AMDGPU assembler text;
the emulator and the replay lifter read the typed operands and flags. Nothing here knows encodings.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class OperandKind(enum.Enum):
    SGPR = "sgpr"  # scalar register range
    VGPR = "vgpr"  # vector register range
    AGPR = "agpr"  # accumulation register range (gfx908+)
    TTMP = "ttmp"  # trap temporaries
    SPECIAL = "special"  # vcc, exec, m0, scc, flat_scratch, null, src_shared_base, ...
    INLINE = "inline"  # inline constant (integer or float)
    LITERAL = "literal"  # 32-bit (or 64-bit on gfx12.5) literal following the instruction
    OFFSET = "offset"  # memory offset field
    LABEL = "label"  # branch target (absolute address in `value`)
    IMMEDIATE = "immediate"  # other immediate fields (simm16, hwreg, sendmsg, waitcnt, ...)


@dataclass(frozen=True, slots=True)
class Operand:
    kind: OperandKind
    text: str  # exactly as llvm-objdump prints this operand
    register: int | None = None  # first register index for register ranges
    count: int = 1  # number of 32-bit registers in the range
    value: int | float | None = None  # constant, offset or target address
    is_dest: bool = False
    modifiers: tuple[str, ...] = ()  # neg, abs, sext, ...


class MemorySpace(enum.Enum):
    GLOBAL = "global"
    FLAT = "flat"  # generic: resolved by apertures at run time
    SCRATCH = "scratch"
    LDS = "lds"
    GDS = "gds"
    BUFFER = "buffer"
    SCALAR = "scalar"  # SMEM loads through the scalar cache (constant/global)


@dataclass(frozen=True, slots=True)
class MemoryInfo:
    space: MemorySpace
    is_load: bool = False
    is_store: bool = False
    is_atomic: bool = False
    returns: bool = False  # atomics that return the pre-op value (glc/sc0/th:RETURN)
    # Cache-policy bits as decoded, e.g. {"glc": True, "slc": False} or {"sc0": True, "nt": False}
    # or {"scope": "SCOPE_DEV", "th": "TH_LOAD_NT"}.
    cache_policy: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Instruction:
    address: int
    size: int
    raw: bytes
    mnemonic: str
    encoding: str  # "SOP1", "VOP3", "DS", "FLAT", ..., or "UNKNOWN"
    operands: tuple[Operand, ...] = ()
    text: str = ""  # full assembler text, as llvm-objdump prints it
    is_branch: bool = False
    is_conditional: bool = False
    is_call: bool = False  # s_swappc / s_call
    is_return: bool = False  # s_setpc_b64 of the return address
    is_barrier: bool = False
    is_waitcnt: bool = False
    is_endpgm: bool = False
    reads_exec: bool = False
    writes_exec: bool = False
    memory: MemoryInfo | None = None
    waitcnt: dict[str, int] | None = None  # counter -> value waited for (vmcnt, lgkmcnt, loadcnt, ...)
    branch_target: int | None = None
    unknown_reason: str | None = None  # set for `.long 0x...` decodes

    @property
    def is_unknown(self) -> bool:
        return self.unknown_reason is not None


def shared_fields(insn: Instruction) -> object | None:
    """The decoder's record of `insn`'s address-independent fields (mnemonic, operands, text...), one object shared
    by every instruction it decoded from the same bytes; None for a plain record (branches, unknown bytes, copies).

    What is derived from those fields alone (the emulator's execution plan of an instruction) can then be derived
    once per distinct encoding instead of once per address: a kernel repeats its `s_waitcnt`s, moves and address
    arithmetic many times."""
    return getattr(insn, "_v", None)
