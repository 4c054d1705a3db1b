"""A wave's saved registers by DWARF number and by assembler name (`amddbg.amdgpu.Registers`).

Scalar names follow ROCgdb: ``pc``, ``exec``, ``vcc``, ``m0``, ``status``, ``trapsts``, ``mode``, ``sN``,
``ttmpN``; vector ``vN``/``aN`` need a lane. VCC lives in the SGPR file's alias slots (the two SGPRs
below the aliased end: s[min(108, allocated)-2 : -1]), as dbgapi reads it. SGPRs are the ones dbgapi exposes
(`Wave.sgprs`: min(allocated, 102) on gfx9, 106 on gfx10+); `$s107` is no register, as in ROCgdb.
"""

from __future__ import annotations

from functools import cached_property

from amddbg.dwarf.expr.regs import register_info
from amddbg.errors import Unavailable

SCALAR_NAMES = ("pc", "exec", "vcc", "m0", "status", "trapsts", "mode", "scc")


class WaveRegisters:
    """Registers of one saved wave (a `amddbg.core.model.Wave`)."""

    def __init__(self, wave) -> None:
        self.wave = wave
        self.wave_size = wave.wave_size

    @cached_property
    def sgprs(self) -> list[int]:
        return self.wave.sgprs

    @cached_property
    def vgprs(self) -> list[list[int]]:
        return self.wave.vgprs

    def vgpr_row(self, i: int) -> list[int]:
        """VGPR `i`'s lane values: from the whole block when it was read already, else that row alone."""
        if "vgprs" in self.__dict__:
            return self.vgprs[i]
        return self.wave.vgpr_row(i)

    @cached_property
    def accvgprs(self) -> list[list[int]]:
        return self.wave.accvgprs

    @property
    def vcc(self) -> int:
        s = self.wave.sgpr_slots
        end = len(s)
        if end < 2 or end > len(s):
            raise Unavailable("register", 0, 8, "vcc is not in the saved SGPRs")
        lo, hi = s[end - 2], s[end - 1]
        return lo if self.wave_size == 32 else lo | hi << 32

    def names(self) -> list[str]:
        """Every register name this wave answers, in ROCgdb's `info registers` order."""
        out = ["pc", "exec", "vcc", "m0", "status", "mode"]
        if self.wave.trapsts is not None:
            out.append("trapsts")
        out += [f"s{i}" for i in range(self.wave.sgpr_count)]
        try:
            out += [f"v{i}" for i in range(len(self.vgprs))]
        except Unavailable:
            pass
        out += [f"a{i}" for i in range(self.wave.sizes.accvgprs)]
        out += [f"ttmp{i}" for i in range(len(self.wave.ttmps))]
        return out

    def is_vector(self, name: str) -> bool:
        return name[:1] in ("v", "a") and name[1:].isdigit()

    def read_named(self, name: str, *, lane: int | None = None) -> int:
        n = name.lower().lstrip("$")
        w = self.wave
        if n == "pc":
            return w.pc
        if n == "exec":
            return w.exec
        if n == "exec_lo":
            return w.exec & 0xFFFFFFFF
        if n == "exec_hi":
            return w.exec >> 32
        if n == "vcc":
            return self.vcc
        if n == "vcc_lo":
            return self.vcc & 0xFFFFFFFF
        if n == "vcc_hi":
            return self.vcc >> 32
        if n == "m0":
            return w.m0
        if n in ("flat_scratch", "xnack_mask") and w.family.scalar_alias_count == 6:
            # gfx9: flat_scratch is the first alias pair of the SGPR slots; xnack_mask is HWREG 7/8 (dbgapi)
            if n == "xnack_mask":
                return w.hwregs[7] | w.hwregs[8] << 32
            slots = w.sgpr_slots
            if len(slots) < 6:
                raise Unavailable("register", 0, 8, "flat_scratch is not in the saved SGPRs")
            return slots[-6] | slots[-5] << 32
        if n == "status":
            return w.status
        if n == "scc":
            return w.status & 1
        if n == "mode":
            return w.mode
        if n == "trapsts":
            if w.trapsts is None:
                raise Unavailable("register", 0, 4, "this architecture has no TRAPSTS")
            return w.trapsts
        if n.startswith("ttmp") and n[4:].isdigit():
            i = int(n[4:])
            if i >= len(w.ttmps):
                raise KeyError(name)
            return w.ttmps[i]
        kind, idx = n[:1], n[1:]
        if not idx.isdigit():
            v = w.hwreg(n)
            if v is None:
                raise KeyError(name)
            return v
        i = int(idx)
        if kind == "s":
            if i >= len(self.sgprs):
                raise KeyError(name)
            return self.sgprs[i]
        if kind in ("v", "a"):
            regs = self.vgprs if kind == "v" else self.accvgprs
            if i >= len(regs):
                raise KeyError(name)
            if lane is None:
                raise Unavailable("register", i, 4, f"{n} is a vector register: give a lane")
            if not 0 <= lane < self.wave_size:
                raise Unavailable("register", i, 4, f"lane {lane} is outside the wave's {self.wave_size} lanes")
            return regs[i][lane]
        raise KeyError(name)

    def read_register(self, dwarf_number: int, *, lane: int | None = None) -> int:
        info = register_info(dwarf_number)
        if info is None:
            raise Unavailable("register", dwarf_number, 0, "not an AMDGPU DWARF register")
        name = info.name
        if name == "pc32":
            return self.wave.pc & 0xFFFFFFFF
        try:
            return self.read_named(name, lane=lane)
        except KeyError:
            raise Unavailable("register", dwarf_number, 0, f"{name} is not in this wave's saved state") from None
