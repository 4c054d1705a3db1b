"""AMDGPU processors: the EF_AMDGPU_MACH table and what each processor supports.

Facts from the LLVM AMDGPU backend manual ("Processors" and "ELF Header" tables) and LLVM's
`BinaryFormat/ELF.h`. The table is data; decoding e_flags into a target lives in `target.py`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Processor:
    name: str
    mach: int
    family: str  # "R600", "GFX6" ... "GFX12.5", or the family of a generic target
    xnack: bool = False  # supports the xnack target feature
    sramecc: bool = False  # supports the sramecc target feature
    tgsplit: bool = False
    wave64_only: bool = True  # GFX10+ can run wave32 (and usually wave64)
    generic: bool = False

    @property
    def arch(self) -> str:
        return "r600" if self.family == "R600" else "amdgcn"

    @property
    def gfx_version(self) -> tuple[int, int, int] | None:
        """(major, minor, stepping) as in gfx_target_version; None for generic and R600 targets."""
        if self.generic or not self.name.startswith("gfx"):
            return None
        digits = self.name[3:]
        return int(digits[:-2]), int(digits[-2], 16), int(digits[-1], 16)


def _p(name, mach, family, features="", *, generic=False):
    f = set(features.split())
    return Processor(name, mach, family, "xnack" in f, "sramecc" in f, "tgsplit" in f,
                     wave64_only=not family.startswith("GFX1"), generic=generic)


_R600 = ["r600", "r630", "rs880", "rv670", "rv710", "rv730", "rv770", "cedar", "cypress", "juniper",
         "redwood", "sumo", "barts", "caicos", "cayman", "turks"]

PROCESSORS: tuple[Processor, ...] = (
    *(_p(n, i + 1, "R600") for i, n in enumerate(_R600)),
    _p("gfx600", 0x020, "GFX6"), _p("gfx601", 0x021, "GFX6"), _p("gfx602", 0x03A, "GFX6"),
    _p("gfx700", 0x022, "GFX7"), _p("gfx701", 0x023, "GFX7"), _p("gfx702", 0x024, "GFX7"),
    _p("gfx703", 0x025, "GFX7"), _p("gfx704", 0x026, "GFX7"), _p("gfx705", 0x03B, "GFX7"),
    _p("gfx801", 0x028, "GFX8", "xnack"), _p("gfx802", 0x029, "GFX8"), _p("gfx803", 0x02A, "GFX8"),
    _p("gfx805", 0x03C, "GFX8"), _p("gfx810", 0x02B, "GFX8", "xnack"),
    _p("gfx900", 0x02C, "GFX9", "xnack"), _p("gfx902", 0x02D, "GFX9", "xnack"),
    _p("gfx904", 0x02E, "GFX9", "xnack"), _p("gfx906", 0x02F, "GFX9", "sramecc xnack"),
    _p("gfx908", 0x030, "GFX9", "sramecc xnack"), _p("gfx909", 0x031, "GFX9", "xnack"),
    _p("gfx90a", 0x03F, "GFX9", "sramecc tgsplit xnack"), _p("gfx90c", 0x032, "GFX9", "xnack"),
    _p("gfx940", 0x040, "GFX9", "sramecc tgsplit xnack"), _p("gfx941", 0x04B, "GFX9", "sramecc tgsplit xnack"),
    _p("gfx942", 0x04C, "GFX9", "sramecc tgsplit xnack"), _p("gfx950", 0x04F, "GFX9", "sramecc tgsplit xnack"),
    _p("gfx1010", 0x033, "GFX10.1", "xnack"), _p("gfx1011", 0x034, "GFX10.1", "xnack"),
    _p("gfx1012", 0x035, "GFX10.1", "xnack"), _p("gfx1013", 0x042, "GFX10.1", "xnack"),
    _p("gfx1030", 0x036, "GFX10.3"), _p("gfx1031", 0x037, "GFX10.3"), _p("gfx1032", 0x038, "GFX10.3"),
    _p("gfx1033", 0x039, "GFX10.3"), _p("gfx1034", 0x03E, "GFX10.3"), _p("gfx1035", 0x03D, "GFX10.3"),
    _p("gfx1036", 0x045, "GFX10.3"),
    _p("gfx1100", 0x041, "GFX11"), _p("gfx1101", 0x046, "GFX11"), _p("gfx1102", 0x047, "GFX11"),
    _p("gfx1103", 0x044, "GFX11"), _p("gfx1150", 0x043, "GFX11"), _p("gfx1151", 0x04A, "GFX11"),
    _p("gfx1152", 0x055, "GFX11"), _p("gfx1153", 0x058, "GFX11"),
    _p("gfx1200", 0x048, "GFX12"), _p("gfx1201", 0x04E, "GFX12"),
    _p("gfx1250", 0x049, "GFX12.5"), _p("gfx1251", 0x05A, "GFX12.5"),
    _p("gfx9-generic", 0x051, "GFX9", "xnack", generic=True),
    _p("gfx9-4-generic", 0x05F, "GFX9", "sramecc tgsplit xnack", generic=True),
    _p("gfx10-1-generic", 0x052, "GFX10.1", "xnack", generic=True),
    _p("gfx10-3-generic", 0x053, "GFX10.3", generic=True),
    _p("gfx11-generic", 0x054, "GFX11", generic=True),
    _p("gfx12-generic", 0x059, "GFX12", generic=True),
)

BY_MACH: dict[int, Processor] = {p.mach: p for p in PROCESSORS}
BY_NAME: dict[str, Processor] = {p.name: p for p in PROCESSORS}

# Reserved EF_AMDGPU_MACH values (known to be unassigned): shown as such rather than as an error.
RESERVED_MACH = {0x027, 0x04D, 0x050, 0x056, 0x057}


def by_gfx_version(major: int, minor: int, stepping: int) -> Processor | None:
    """Processor for a (major, minor, stepping) triple, e.g. the V2 ISA note or kfd gfx_target_version."""
    return BY_NAME.get(f"gfx{major}{minor:x}{stepping:x}")
