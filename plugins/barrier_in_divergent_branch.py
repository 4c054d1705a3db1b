"""Triage rule: a workgroup barrier reached under lane-dependent control flow.

A wave waits at `s_barrier` while EXEC is narrowed by a divergent `if` (a `v_cmp` on lane data, then
`s_and_saveexec`/`s_xor` on EXEC with no restoring `s_or exec` before the barrier): the lanes that took
the other branch - and the waves whose lanes all took it - never reach this barrier, which is undefined
behaviour in HIP/OpenCL and a hang on hardware. The rule says so with the source line of the branch.

Uses only the public API: `amddbg.open`, `Program.disassemble`, `Program.symbolize`.
"""

from __future__ import annotations

import os

CMP_PREFIXES = ("v_cmp", "v_cmpx")


def _is_restore(insn) -> bool:
    """`s_or_b64 exec, exec, s[..]` / `s_or_b32 exec_lo, exec_lo, s..`: the join of an if/else."""
    t = insn.text.replace(",", " ").split()
    return insn.mnemonic.startswith("s_or_b") and len(t) >= 3 and t[1].startswith("exec") and t[2].startswith("exec")


def divergent_branch(program, pc: int):
    """(compare instruction, branch line) of the divergent `if` a barrier at `pc` sits in, or None."""
    insns = program.disassemble(pc)
    before = [i for i in insns if i.address < pc]
    depth_start = None
    for i in before:
        if i.writes_exec and "saveexec" in i.mnemonic and not i.mnemonic.startswith("s_or_saveexec"):
            depth_start = depth_start or i
        elif i.writes_exec and _is_restore(i):
            depth_start = None
    if depth_start is None:
        # an else-part: s_or_saveexec + s_xor exec without a restore yet
        opened = [i for i in before if i.writes_exec and ("saveexec" in i.mnemonic or i.mnemonic.startswith("s_xor"))]
        restored = [i for i in before if i.writes_exec and _is_restore(i)]
        if not opened or (restored and restored[-1].address > opened[-1].address):
            return None
        depth_start = opened[0]
    cmps = [i for i in before if i.mnemonic.startswith(CMP_PREFIXES) and i.address <= depth_start.address]
    anchor = cmps[-1] if cmps else depth_start
    src = program.symbolize(anchor.address)
    line = f"{os.path.basename(src[0].file)}:{src[0].line}" if src and src[0].file else f"{anchor.address:#x}"
    return anchor, line


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
