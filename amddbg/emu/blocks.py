"""Straight-line runs of instructions, executed by the scheduler's turn loop without per-instruction bookkeeping.

Most of what a kernel executes is ALU work between the few instructions the scheduler must see one at a time
(memory operations, which put themselves on the wait counters; waits, barriers and sleeps, which change the
wave's state; branches, which choose the next PC; the instructions that read the machine clock or switch a mode).
The turn loop (`Machine._turn`) spends about as long on each instruction's bookkeeping (plan lookup, step
context reset, instruction and clock counts, PC update, state check) as a simple closure takes to run. A *block*
is the run of *straight* instructions starting at one address, derived once per machine and address: the turn
loop runs as many of its (function, instruction) pairs as the turn has room for in a tight loop, then adds the
instruction count, the clock and the PC once.

Nothing observable changes: a straight instruction reads and writes only its wave's registers (no memory, no
machine clock, no wave state, no PC: the block's addresses are its fall-through chain), so the count, clock and
PC it would have left behind are the block's totals at the next instruction that can see them; the turn still
ends after exactly the instructions it was given (blocks are cut to the room left), and an instruction that
raises (an unsupported form, a wave stop) is reported at its own address with the instructions before it
counted, as the one-at-a-time path does. The step hook (replay, `step`), the delayed-write cache path and GFX9's
VGPR index mode keep the one-at-a-time path. `s_nop`-like instructions (s_delay_alu, s_clause, ...: no effect in
this machine) are counted without being called.
"""

from __future__ import annotations

from amddbg.emu.semantics import lookup, per_insn_cache

MAX_BLOCK = 16  # no turn is longer (machine.QUANTUM): a longer block would never run whole

_VALU_MODULES = frozenset({"amddbg.emu.semantics.valu", "amddbg.emu.semantics.vfloat",
                           "amddbg.emu.semantics.intsat"})
_SALU_ENCODINGS = frozenset({"SOP1", "SOP2", "SOPC", "SOPK"})
# SALU instructions that touch more than their wave's registers (the clock, barriers, sleep, counters, the PC, a
# mode the turn loop reads) or stop the wave: one at a time
_SALU_NOT_STRAIGHT = ("s_endpgm", "s_branch", "s_setpc", "s_swappc", "s_call", "s_trap", "s_sleep", "s_barrier",
                      "s_wait", "s_getreg", "s_setreg", "s_set_gpr_idx", "s_sendmsg", "s_memtime", "s_memrealtime",
                      "s_get_", "s_rfe", "s_cbranch", "s_wakeup", "s_setvskip", "s_subvector", "s_icache",
                      "s_dcache", "s_alloc", "s_setkill", "s_sethalt", "s_ttrace", "s_cbranch")
_NOP: list = []  # salu.s_nop, imported on first use (semantics register themselves at import)
_STRAIGHT: dict = {}  # per_insn_cache: instruction -> None (not straight) | True (run it) | False (count only)


def _kind(insn) -> bool | None:
    """True: a straight instruction to run; False: straight and without effect here (counted, not called);
    None: the turn loop must see it alone."""
    if insn.is_branch or insn.memory is not None or insn.is_waitcnt:
        return None
    fn = lookup(insn)
    if fn is None:
        return None
    if not _NOP:
        from amddbg.emu.semantics.salu import s_nop

        _NOP.append(s_nop)
    if fn is _NOP[0]:
        return False
    module = getattr(fn, "__module__", "")
    m = insn.mnemonic
    if m.startswith("v_"):
        return True if module in _VALU_MODULES else None
    if insn.encoding in _SALU_ENCODINGS and module == "amddbg.emu.semantics.salu" and \
            not m.startswith(_SALU_NOT_STRAIGHT):
        return True
    return None


def straight(insn) -> bool | None:
    """`_kind(insn)`, once per decoded instruction."""
    return per_insn_cache(_STRAIGHT, insn, _kind)


def build(plan_at, pc: int) -> tuple | None:
    """The block at `pc`: (calls, addresses, called) with `calls` the (function, instruction, position) to call in
    order (the no-effect instructions are left out), `addresses` the address of each instruction of the block plus
    the one after the last, and `called[r]` how many of `calls` lie among its first r instructions (for a turn
    with room for r). None: the instruction at `pc` is not straight (or there is none). `plan_at(pc)`: the
    machine's plan (instruction, function, fall-through, counters) or None."""
    calls: list = []
    addrs: list[int] = []
    called = [0]
    p = pc
    while len(addrs) < MAX_BLOCK:
        plan = plan_at(p)
        if plan is None:
            break
        insn, fn, fallthrough, counters = plan
        kind = straight(insn)
        if kind is None or counters:
            break
        if kind:
            calls.append((fn, insn, len(addrs)))
        addrs.append(p)
        called.append(len(calls))
        p = fallthrough
    if not addrs:
        return None
    addrs.append(p)
    return tuple(calls), tuple(addrs), tuple(called)
