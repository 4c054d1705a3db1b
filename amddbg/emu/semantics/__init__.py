"""Instruction semantics, registered by mnemonic.

`lookup(insn)` finds the function for a decoded instruction by its base mnemonic (encoding suffixes such
as ``_e32``/``_e64``/``_sdwa``/``_dpp`` stripped). A mnemonic nobody registered stops the wave with
``unsupported instruction <text> at <pc>`` — never a silent skip.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

import numpy as np

SEMANTICS: dict[str, Callable] = {}
_SUFFIXES = ("_e64_dpp", "_e32", "_e64", "_sdwa", "_dpp", "_vop3")


def semantic(*mnemonics: str):
    def deco(func):
        for m in mnemonics:
            SEMANTICS[m] = func
        return func

    return deco


_QUIET = contextlib.nullcontext()
FP_IGNORED = [0]  # > 0 while Machine.run/step execute under np.errstate(all="ignore")


def fp_errstate(**kwargs):
    """`np.errstate(**kwargs)` for a semantic function, free while the machine already runs with numpy's
    floating-point errors ignored: entering errstate costs more than most VALU operations themselves."""
    return _QUIET if FP_IGNORED[0] else np.errstate(**kwargs)


def base_mnemonic(mnemonic: str) -> str:
    for s in _SUFFIXES:
        if mnemonic.endswith(s):
            return mnemonic[: -len(s)]
    return mnemonic


def lookup(insn) -> Callable | None:
    """The semantic function of `insn` (None: nobody registered its mnemonic)."""
    if "::" in insn.mnemonic:  # VOPD (GFX11+): two VALU operations issued together
        return SEMANTICS.get("v_dual")
    if insn.mnemonic.startswith("v_") and (mod := _modifier_semantic(insn)) is not None:
        return mod  # DPP/SDWA forms: the modifier wraps the base operation (never the base op alone)
    fn = SEMANTICS.get(insn.mnemonic)
    if fn is None:
        fn = SEMANTICS.get(base_mnemonic(insn.mnemonic))
    return fn


def per_insn_cache(table: dict, insn, compute: Callable):
    """`compute(insn)` memoised per instruction object: decoded instructions live as long as their machine and
    execute many times, so what can be derived from the instruction alone (operand layout, offsets, widths) is
    derived once. Keyed by id() with the object kept beside the value, so a recycled id is never mistaken."""
    hit = table.get(id(insn))
    if hit is not None and hit[0] is insn:
        return hit[1]
    if len(table) >= 1 << 16:
        table.clear()
    _TABLES[id(table)] = table
    value = compute(insn)
    table[id(insn)] = (insn, value)
    return value


_TABLES: dict[int, dict] = {}  # every per_insn_cache table (registered at its first miss)


def forget_instructions() -> None:
    """Empty every per-instruction table: what a fresh process starts with (the tables hold their instructions,
    so a dropped code object's instructions are freed now, not at some later miss that finds a table full)."""
    for table in _TABLES.values():
        table.clear()


class Ctx:
    """What a semantic function gets besides the instruction: the wave, the machine and its memory."""

    __slots__ = ("wave", "machine", "mem", "memops", "next_pc")

    def __init__(self, wave, machine) -> None:
        self.wave = wave
        self.machine = machine
        self.mem = machine.memory
        self.memops: list = []
        self.next_pc: int | None = None

    def record(self, op) -> None:
        self.memops.append(op)


_MODIFIER: list = []  # vfloat.modifier_semantic, imported at the first lookup (vfloat imports this module)


def _modifier_semantic(insn):
    if not _MODIFIER:
        from amddbg.emu.semantics.vfloat import modifier_semantic

        _MODIFIER.append(modifier_semantic)
    return _MODIFIER[0](insn)


def load_all() -> None:
    """Import every semantics module (each registers its mnemonics)."""
    from amddbg.emu.semantics import asynclds, gfx1250, intsat, matrix, mem, salu, valu, vfloat  # noqa: F401  (intsat imports vfloat first)
