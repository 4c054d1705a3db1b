"""Explain why a core's waves cannot move: the entry point (`explain_core`, `explain_program`).

It runs the analyses in order -- what the saved state proves (amddbg.replay.static), then replay of the stuck
dispatch and what it shows (amddbg.replay.analysis, .causes, .cycles) -- adds the emulator's own notes in the core,
and expands every location through inlining (amddbg.replay.where.finish). This module depends on all of them and
none of them on it: findings are data (amddbg.replay.findings), the code reading they share is
amddbg.replay.code. The names below that lived here before the split are re-exported for the Python API.
"""

from __future__ import annotations

import os

from amddbg.replay.analysis import explain_with_replay
from amddbg.replay.code import argument_at, pointer_arguments, variable_at
from amddbg.replay.findings import EXIT_CODES, Explanation, Finding
from amddbg.replay.static import divergent_branch, static_explanation
from amddbg.replay.where import finish

__all__ = ["EXIT_CODES", "Explanation", "Finding", "argument_at", "divergent_branch", "emulator_note_findings",
           "explain_core", "explain_program", "pointer_arguments", "static_explanation", "variable_at"]


def explain_core(paths, *, dispatch: int | None = None, assume=(), budget: int | None = None, symmetry: bool = True,
                 **kw) -> Explanation:
    """`explain_program` on the core(s) at `paths` (opened with `amddbg.open(paths, **kw)`, closed after)."""
    import amddbg

    prog = amddbg.open(paths, **kw)
    try:
        return explain_program(prog, dispatch=dispatch, assume=assume, budget=budget, symmetry=symmetry)
    finally:
        prog.close()


def explain_program(program, *, dispatch: int | None = None, assume=(), budget: int | None = None,
                    symmetry: bool = True) -> Explanation:
    """Static analysis of the core, then replay of its stuck dispatch (see amddbg.replay.analysis); each replay runs
    at most `budget` wave-instructions (default `amddbg.replay.replay.DEFAULT_BUDGET`)."""
    exp = explain_with_replay(program, dispatch=dispatch, assume=assume, budget=budget, symmetry=symmetry)
    exp.findings += emulator_note_findings(program)
    finish(program, exp)  # every location's call sites through inlining (same role, "inlined_from")
    return exp


def emulator_note_findings(program) -> list[Finding]:
    """The emulator's notes in the core (amddbg.core.emunotes) as findings: each out-of-range LDS access `amddbg run`
    recorded (the hardware reads 0 or drops the write, so nothing in the state shows it, and it is nearly always a
    bug). They add to the verdict's findings, never change it."""
    core = getattr(program, "core", None)
    out = []
    for n in (core.emulator_notes if core is not None else []):
        if not n.get("kind", "").startswith("lds_"):
            continue
        src = n.get("source") if isinstance(n.get("source"), dict) else {}
        loc = {"function": src.get("function"), "file": src.get("file"), "line": src.get("line"),
               "role": "out-of-range LDS access", "pc": n["pc"]}
        where = f"{os.path.basename(src['file'])}:{src.get('line')}" if src.get("file") else n["pc"]
        verb = "read" if "read" in n["kind"] else "write"
        lanes = n["lanes"]
        out.append(Finding(
            "lds_out_of_range", verb,
            f"run: LDS {verb} past the workgroup's {n.get('requested')} bytes at {where} ({n.get('instruction')}), "
            f"lane(s) {', '.join(map(str, lanes[:8]))}{' ...' if len(lanes) > 8 else ''} at "
            f"{', '.join(map(str, n['addresses'][:4]))}: {n.get('effect')}",
            [{"workgroup": n.get("workgroup"), "wave_in_group": n.get("wave_in_group"), "lanes": lanes}], [loc],
            {"found_by": "emulator note", "requested": n.get("requested"), "allocated": n.get("allocated")}))
    return out
