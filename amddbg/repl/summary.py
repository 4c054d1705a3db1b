"""The one screen shown when a core opens: agents, dispatches, waves by state and source line, stops."""

from __future__ import annotations

import os
from collections import Counter

from amddbg.dwarf.demangle import plain_name
from amddbg.errors import AmddbgError
from amddbg.textsafe import safe


def summary_lines(program, *, explain: bool = True) -> list[str]:
    """The start-up summary. With `explain` (a pipe, a script) it ends with the first finding of the dispatch's
    explanation (`explain_lines`); the interactive REPL passes False and computes that line in the background
    (amddbg.repl.background) so the prompt never waits for it."""
    out: list[str] = []
    core = program.core
    if core is None:
        for lco in program.code_objects:
            kernels = [k for k in lco.codeobj.kernels]
            more = f", and {len(kernels) - 8} more (info functions)" if len(kernels) > 8 else ""
            out.append(f"Code object {safe(lco.uri)}: {safe(lco.processor)}, {len(kernels)} kernel"
                       f"{'s' if len(kernels) != 1 else ''}"
                       + (": " + ", ".join(safe(plain_name(_dem(k.name))) for k in kernels[:8]) + more
                          if kernels else ""))
        out.append("No core: static session (functions, lines, disassembly, variable locations).")
        return out
    agents = program.agents
    out.append(f"Agents: {len(agents)}" + ("  " + ", ".join(
        f"{safe(a.processor)} (gpu_id {a.gpu_id}{', ' + ', '.join(a.exceptions) if a.exceptions else ''})"
        for a in agents) if agents else ""))
    ds = program.dispatches
    out.append(f"Dispatches: {len(ds)}")
    for d in ds[:8]:
        k = program.kernel_name(d)
        grid = "[" + ",".join(map(str, d.grid_size)) + "]" if d.grid_size else "?"
        wg = "[" + ",".join(map(str, d.workgroup_size)) + "]" if d.workgroup_size else "?"
        out.append(f"  {program.agent_index(d.gpu_id)}:{program.queue_handle(d.gpu_id, d.queue_id)}:"
                   f"{program.dispatch_handle(d)} (PKID {d.dispatch_id})  "
                   f"{safe(plain_name(_dem(k)) if k else '??')}  grid {grid}  workgroup {wg}")
    if len(ds) > 8:
        out.append(f"  ... {len(ds) - 8} more (info dispatches)")
    waves = program.waves
    out.append(f"Waves: {len(waves)}")
    groups: Counter = Counter()
    for w in waves:
        groups[(str(w.state), _where(w))] += 1
    for (state, where), n in sorted(groups.items(), key=lambda kv: (-kv[1], kv[0])):
        out.append(f"  {n:>6}  {state:<11} {where}")
    reasons: Counter = Counter()
    for w in waves:
        for r in w.stop_reason:
            reasons[r] += 1
    if reasons:
        out.append("Stop reasons: " + ", ".join(f"{r} ({n})" for r, n in reasons.most_common()))
    excs = [e for a in agents for e in a.exceptions] + [e for q in program.queues for e in q.exceptions]
    if excs:
        out.append("Exceptions: " + ", ".join(sorted(set(excs))))
    if explain:
        out += explain_lines(program)
    host = [t for t in program.threads if not t.is_wave]
    if host:
        out.append(f"Host threads: {len(host)}")
    return out


# The start-up summary's explanation is computed with replays of at most SUMMARY_BUDGET wave-instructions each (a
# bound in work, not in seconds, so the line is the same on a quiet and on a loaded machine, and the same for a core
# of 4 waves and of 10,000). It never holds up the prompt (issue 20): the interactive REPL computes it in a worker
# process and prints it when ready (amddbg.repl.background); a pipe or script gets it in place, in order.
SUMMARY_BUDGET = 20_000


def has_live_waves(program) -> bool:
    """Whether the core has waves of a dispatch, the only thing the summary's explanation is about."""
    return program.core is not None and any(w.dispatch is not None for w in program.waves)


def explain_lines(program) -> list[str]:
    """The summary's one `Explain:` line (none when nothing was found or the core cannot be explained)."""
    if not has_live_waves(program):
        return []
    try:
        from amddbg.replay.explain import explain_program

        exp = explain_program(program, budget=SUMMARY_BUDGET)
    except AmddbgError:
        return []
    if not exp.findings:
        return []
    return [f"Explain: {exp.verdict}: {safe(exp.findings[0].summary)}  (`explain` for details)"]


def _where(w) -> str:
    # Frame 0's function and line depend only on the PC: symbolize it (cached per (code object, pc)) rather
    # than unwinding every wave, so the summary of a 10,000-wave core stays well under 2 s.
    try:
        frames = w.program.symbolize(w.pc)
    except AmddbgError:
        return "??"
    if not frames:
        return "??"
    f = frames[0]
    loc = f"{os.path.basename(f.file)}:{f.line}" if f.file else f"{w.pc:#x}"
    return f"{safe(loc)} ({safe(plain_name(f.function))})"


def _dem(name):
    from amddbg.dwarf.demangle import demangle

    return demangle(name) or name if name else name
