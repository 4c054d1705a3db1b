"""AMDGPU DWARF register numbers (manual table "AMDGPU DWARF Register Mapping").

The wave size is part of the register number (VGPRn is 1536+n in wave32 code, 2560+n in wave64 code), so a
consumer treats every register as having one fixed size. Vector registers are the whole wave: consecutive
dwords, lane 0 in the least significant bits, so lane N lives at byte offset 4*N.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

PC_32 = 0
EXEC_32 = 1
PC_64 = 16
EXEC_64 = 17
STATUS = 128
VCC_32 = 512
VCC_64 = 768


@dataclass(frozen=True, slots=True)
class RegisterInfo:
    number: int
    name: str  # amddbg's assembler-style name: s33, v4, a0, exec, pc
    bits: int  # size of the whole DWARF register
    lanes: int = 0  # 32 or 64 for vector registers (one dword per lane), 0 for scalar ones

    @property
    def is_vector(self) -> bool:
        return self.lanes > 0

    @property
    def dwarf_name(self) -> str:
        """Name as llvm-dwarfdump-22 prints it for AMDGPU (SGPR33, VGPR0, PC_REG, EXEC)."""
        n = self.name
        if n[0] in "sva" and n[1:].isdigit():
            return {"s": "SGPR", "v": "VGPR", "a": "AGPR"}[n[0]] + n[1:]
        return {"pc": "PC_REG", "exec": "EXEC", "exec_lo": "EXEC_LO"}.get(n, n.upper())


@lru_cache(maxsize=8192)
def register_info(number: int) -> RegisterInfo | None:
    """RegisterInfo for a DWARF register number, None for reserved numbers."""
    n = number
    if n == PC_32:
        return RegisterInfo(n, "pc32", 32)
    if n == EXEC_32:
        return RegisterInfo(n, "exec_lo", 32)
    if n == PC_64:
        return RegisterInfo(n, "pc", 64)
    if n == EXEC_64:
        return RegisterInfo(n, "exec", 64)
    if 32 <= n <= 95:
        return RegisterInfo(n, f"s{n - 32}", 32)
    if n == STATUS:
        return RegisterInfo(n, "status", 32)
    if n == VCC_32:
        return RegisterInfo(n, "vcc_lo", 32)
    if n == VCC_64:
        return RegisterInfo(n, "vcc", 64)
    if 1088 <= n <= 1129:
        return RegisterInfo(n, f"s{n - 1024}", 32)
    if 1536 <= n <= 2047:
        return RegisterInfo(n, f"v{n - 1536}", 32 * 32, 32)
    if 2048 <= n <= 2303:
        return RegisterInfo(n, f"a{n - 2048}", 32 * 32, 32)
    if 2560 <= n <= 2815:
        return RegisterInfo(n, f"v{n - 2560}", 64 * 32, 64)
    if 3072 <= n <= 3327:
        return RegisterInfo(n, f"a{n - 3072}", 64 * 32, 64)
    if 3584 <= n <= 4095:
        return RegisterInfo(n, f"v{n - 3584 + 512}", 32 * 32, 32)
    return None


def dwarf_register(name: str, wave_size: int = 64) -> int:
    """DWARF number of an assembler register name (``s33``, ``v4``, ``a0``, ``exec``, ``pc``)."""
    name = name.lower()
    fixed = {"pc": PC_64, "exec": EXEC_64 if wave_size == 64 else EXEC_32, "exec_lo": EXEC_32,
             "vcc": VCC_64 if wave_size == 64 else VCC_32, "vcc_lo": VCC_32, "status": STATUS}
    if name in fixed:
        return fixed[name]
    kind, idx = name[0], int(name[1:])
    if kind == "s":
        return 32 + idx if idx <= 63 else 1024 + idx
    if kind == "v":
        if wave_size == 64:
            return 2560 + idx
        return 1536 + idx if idx <= 511 else 3072 + idx
    if kind == "a":
        return (3072 if wave_size == 64 else 2048) + idx
    raise KeyError(name)


def register_name(number: int) -> str:
    info = register_info(number)
    return info.dwarf_name if info else f"{number:#x}"
