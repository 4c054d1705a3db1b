"""The REPL's `explain` and `info barriers` over amddbg.replay.explain."""

from __future__ import annotations

from amddbg.textsafe import safe


def run_explain(dbg, args: str) -> None:
    """`explain [--assume CHANGE]... [--budget N]`: the explainer on the loaded core (what-if changes replayed; each
    replay runs at most N wave-instructions)."""
    import shlex

    from amddbg.errors import UsageError
    from amddbg.replay.explain import explain_program
    from amddbg.replay.replay import Assumption

    words = shlex.split(args or "")
    assume = []
    budget = None
    while words:
        w = words.pop(0)
        if w == "--assume" and words:
            assume.append(Assumption.parse(words.pop(0)))
        elif w.startswith("--assume="):
            assume.append(Assumption.parse(w.split("=", 1)[1]))
        elif w in ("--budget", "-b") and words or w.startswith("--budget="):
            text = w.split("=", 1)[1] if "=" in w else words.pop(0)
            try:
                budget = int(text, 0)
            except ValueError:
                budget = 0
            if budget < 1:
                raise UsageError(f"explain: --budget {text!r}: expected a positive number of wave-instructions")
        else:
            raise UsageError(f"explain: unexpected argument {w!r} (usage: explain [--assume CHANGE]... [--budget N])")
    if dbg.pending_summary is not None:
        dbg.pending_summary.cancel()  # this answer is the full one: the summary's shorter one would only repeat it
    exp = explain_program(dbg.program, assume=assume, budget=budget)
    if dbg.json_mode:
        dbg.emit_json({"command": "explain", **exp.to_json()})
        return
    from amddbg.replay.where import text_lines
    from amddbg.termwidth import wrap_at_words

    lines = [*text_lines(exp), *(f"  assumed: {safe(a)}" for a in exp.replay.get("assumed", [])),
             safe(exp.replay_line())]
    if dbg.plugins is not None:
        lines += [f"  {safe(line)}" for line in dbg.plugins.explanation_lines(exp, dbg.program)]
    for line in wrap_at_words(lines, dbg.width()):  # at words to the terminal (or $COLUMNS); whole lines otherwise
        dbg.out(line)


def _named_wait(program, t) -> str | None:
    """'cluster barrier -3' / 'named barrier N' when the wave waits in `s_barrier_wait` on one (GFX12.5), else None
    (the workgroup barrier, described as before)."""
    insn = program.instruction_at(t.pc)
    if insn is None or insn.mnemonic != "s_barrier_wait" or not insn.operands:
        return None
    v = int(insn.operands[0].value or 0) & 0xFFFF
    bid = v - 0x10000 if v >> 15 else v
    if bid == -3:
        return "cluster barrier -3"
    return f"named barrier {bid} (or the one the wave joined last)" if bid > 0 else None


def run_info_barriers(dbg, args: str) -> None:
    """Each workgroup's barrier: expected and arrived waves, where the others are, and why."""
    from amddbg.replay.explain import explain_program

    exp = explain_program(dbg.program)
    rows = [f for f in exp.findings if f.kind == "barrier_deadlock"]
    waiting = [t for t in dbg.program.waves if str(t.state) == "at barrier"]
    if not waiting:
        dbg.out("No wave is waiting at a barrier.")
        return
    groups = {}
    for t in waiting:
        groups.setdefault(tuple(t.workgroup or ()), []).append(t)
    for wg, ts in sorted(groups.items()):
        f = next((r for r in rows if r.waves and tuple(r.waves[0]["workgroup"] or ()) == wg), None)
        exp_n = f.details.get("expected") if f else len(ts)
        named = _named_wait(dbg.program, ts[0])
        if named is not None:  # GFX12.5 named or cluster barrier: which barrier, and the finding says the counts
            dbg.out(f"workgroup {wg}: {named}; waiting: " + ", ".join(f"thread {t.number}" for t in ts))
        else:
            dbg.out(f"workgroup {wg}: barrier 0 (workgroup barrier), expected {exp_n}, arrived {len(ts)}: "
                    + ", ".join(f"thread {t.number}" for t in ts))
        if f:
            dbg.out(f"  {safe(f.summary)}")
