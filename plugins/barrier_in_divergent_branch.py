"""Triage rule: a workgroup barrier reached under lane-dependent control flow.

A wave waits at `s_barrier` while EXEC is narrowed by a divergent `if` (a `v_cmp` on lane data, then
`s_and_saveexec`/`s_xor` on EXEC with no restoring `s_or exec` before the barrier): the lanes that took
the other branch - and the waves whose lanes all took it - never reach this barrier, which is undefined
behaviour in HIP/OpenCL and a hang on hardware. The rule says so with the source line of the branch.

Uses only the public API: `amddbg.open` and `amddbg.replay.explain.divergent_branch`.
"""

from __future__ import annotations

import os


def divergent_branch(program, pc: int):
    """(compare instruction, "file:line") of the divergent branch enclosing `pc` (amddbg's public explain API)."""
    from amddbg.replay.explain import divergent_branch as find

    return find(program, pc)


def amddbg_plugin(api):
    @api.triage_rule("barrier-in-divergent-branch")
    def rule(branch):
        if branch.get("state") != "at barrier" or not branch.get("sample"):
            return None
        sample = branch["sample"]
        import amddbg

        path = sample.get("path")
        if not path:
            return None
        prog = amddbg.open(path.split(os.pathsep))
        try:
            hit = divergent_branch(prog, sample["pc"])
        finally:
            prog.close()
        if hit is None:
            return None
        insn, line = hit
        return api.TriageMatch(
            "barrier in divergent branch",
            f"the barrier is inside the lane-dependent branch at {line} ({insn.text}); lanes or waves that take "
            "the other path never arrive - move the barrier out of the branch so every wave of the workgroup "
            "reaches it",
            detail=line)

    @api.command("divergent-barrier", help="Say whether the current wave's barrier is under divergent control flow.")
    def cmd(program, args):
        t = program.current_thread
        if t is None or not t.is_wave:
            return "divergent-barrier: the current thread is not a GPU wave"
        hit = divergent_branch(program, t.pc)
        if hit is None:
            return f"no divergent branch encloses {t.pc:#x}"
        insn, line = hit
        return f"barrier at {t.pc:#x} is inside the lane-dependent branch at {line} ({insn.text})"
