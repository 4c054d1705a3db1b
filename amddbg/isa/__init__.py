"""AMDGPU instruction decoding: structured instructions (`model.Instruction`) and LLVM-syntax text.

One package per encoding family: `gfx9` (GFX8/GFX9/CDNA: gfx8xx, gfx90x, gfx908, gfx90a, gfx94x, gfx950)
and `gfx10` (GFX10.3, GFX11, GFX12, GFX12.5). `decoder_for(processor)` picks the family.
"""

from __future__ import annotations

import importlib

from amddbg.errors import NotSupported
from amddbg.isa.model import Instruction, MemoryInfo, MemorySpace, Operand, OperandKind

__all__ = ["Instruction", "MemoryInfo", "MemorySpace", "Operand", "OperandKind", "decoder_for", "family_of"]


def family_of(processor: str) -> str:
    """'gfx9' or 'gfx10' (the package that decodes `processor`), from the processor name."""
    name = processor.split(":")[0]
    if not name.startswith("gfx"):
        raise NotSupported(f"instruction decoding for processor {processor!r}")
    digits = name[3:].split("-")[0]
    major = int(digits[:-2]) if len(digits) >= 3 and digits[:-2].isdigit() else int(digits[:1] or 0)
    if name.endswith("-generic"):
        major = int(digits)
    if major in (8, 9):
        return "gfx9"
    if major in (10, 11, 12):
        return "gfx10"
    raise NotSupported(f"instruction decoding for processor {processor}")


def decoder_for(processor: str, wave64: bool = False):
    """Return a decoder for `processor` ("gfx90a", "gfx1100", ...).

    A decoder has `decode(data, offset, address) -> Instruction` (one instruction at `offset` of
    `data`, loaded at `address`) and `decode_all(data, address) -> list[Instruction]`. `wave64` matters for
    GFX10+ only (GFX9 is always wave64): wave64 code names its lane masks as SGPR pairs and `vcc`, as
    `llvm-objdump --mattr=+wavefrontsize64` prints it; without it the wave32 names (plain `llvm-objdump -d`).
    """
    family = family_of(processor)
    try:
        module = importlib.import_module(f"amddbg.isa.{family}")
    except ModuleNotFoundError as exc:
        if exc.name == f"amddbg.isa.{family}":
            raise NotSupported(f"instruction decoding for {processor} ({family} family)") from None
        raise
    return module.Decoder(processor, wave64=True) if wave64 and family == "gfx10" else module.Decoder(processor)
