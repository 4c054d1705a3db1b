"""Proving that spin loops can never end, from their exit conditions (docs/emulator.md "Hangs").

The machine-state repeat of `Machine.run` misses a wave that polls a flag no one writes while it counts
(`while (atomic_load(go) == 0) spins += 1;`): a register changes every iteration, so the state never comes back.
Such a loop still can never end: what decides it (the exit branch's operands, the addresses it reads and writes,
EXEC) depends only on values that do not change. `prove_stuck` shows that for every live wave at once:

1. Each wave's PCs are counted over a window; its *head* is the PC of its outermost loop it kept executing (the
   least-visited PC seen at least twice), so an inner delay loop (a back-off) falls inside one iteration.
2. Over a second window every wave is recorded event by event (the instruction, EXEC, its memory operations,
   which scalar registers changed), with a snapshot of its registers and private memory at every head pass.
3. A backward dynamic slice over the last one or two iterations: the roots are the conditions of the conditional
   branches (SCC, VCC, EXEC), indirect branch targets, and the address operands and EXEC of every memory access;
   a location a root depends on (a register, one lane of a VGPR written by `v_writelane`, a word of private,
   global or LDS memory) is followed back through the instructions that wrote it. Only explicit destinations,
   the documented implicit SCC/VCC/EXEC writers and stores through their exact addresses *kill* a location; any
   other possible write keeps it and adds its inputs, so a wrong guess makes the slice larger, never smaller.
   A clock read (`s_memtime`, `s_getreg`, ...) in the slice, a barrier, an indexed register access or an
   instruction without a known shape stops the proof.
4. The slice's live-in locations hold the same values at the iteration's two ends (registers and private memory
   from the snapshots), and every global or LDS word it reads is *frozen*: no wave stored to it in the window,
   no store to it is in flight, and every copy a wave could read (L2 and the cached lines) holds the same bytes
   unless nothing can refresh a stale copy (no random eviction, no invalidate executed in the window).

Then the iteration repeats forever: its decisions and addresses are functions of those values, and no wave can
change them (every other live wave is proven the same way, and its future stores go to the addresses its own
iteration stores to; or it waits at a barrier that one of these loops would have to reach). A wave that waits at
a barrier counts as stuck only if its barrier misses a wave that is proven to loop (or has no live waves left).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from amddbg.emu.wave import ENDED, READY, SLEEPING, WAITING_BARRIER
from amddbg.isa.model import OperandKind

WAITING_COUNTERS = "at waitcnt"
LIVE = (READY, SLEEPING, WAITING_COUNTERS)

_SCC_DEFS = ("s_cmp", "s_cmpk", "s_bitcmp", "s_add_u32", "s_add_i32", "s_sub_u32", "s_sub_i32", "s_addc_", "s_subb_",
             "s_add_co_", "s_sub_co_", "s_and_b", "s_or_b", "s_xor_b", "s_andn2_b", "s_orn2_b", "s_nand_b",
             "s_nor_b", "s_xnor_b", "s_and_not1_b", "s_or_not1_b", "s_lshl_b", "s_lshr_b", "s_ashr_i", "s_bfe_",
             "s_min_", "s_max_", "s_abs_i32", "s_not_b", "s_bcnt0_", "s_bcnt1_")
_SCC_USES = ("s_cselect", "s_addc", "s_subb", "s_cmov", "s_cmovk", "s_cbranch_scc", "s_add_co_ci", "s_sub_co_ci")
_VCC_USES = ("v_cndmask_b32", "v_cndmask_b16", "v_addc_co_u32", "v_add_co_ci_u32", "v_subb_co_u32", "v_sub_co_ci_u32",
             "v_subbrev_co_u32", "v_subrev_co_ci_u32", "v_addc_u32", "v_subb_u32", "v_subbrev_u32", "v_div_fmas")
_CARRY_OUT = ("v_add_co_u32", "v_sub_co_u32", "v_subrev_co_u32", "v_addc_co_u32", "v_subb_co_u32", "v_subbrev_co_u32",
              "v_add_co_ci_u32", "v_sub_co_ci_u32", "v_subrev_co_ci_u32")
_VOLATILE = ("s_memtime", "s_memrealtime", "s_getreg", "s_sendmsg_rtn", "s_get_barrier_state")
_ABORT = ("movrel", "gpr_idx", "s_set_gpr_idx", "s_trap", "s_endpgm", "s_sethalt", "s_setkill", "s_rfe", "s_icache",
          "s_cbranch_cdbg", "s_cbranch_g_fork", "s_cbranch_join", "s_barrier", "s_sendmsg")
_INVALIDATES = ("buffer_wbinvl1", "buffer_inv", "buffer_gl0_inv", "buffer_gl1_inv", "global_inv", "buffer_invl2",
                "s_dcache_inv", "global_wbinv")
_VECTOR_ENC = ("VOP1", "VOP2", "VOP3", "VOP3P", "VOPC", "VOP3B", "VOPD", "DPP", "SDWA", "VINTRP", "MFMA", "WMMA")


LOST = 4096  # instructions without a head pass after which a wave is taken to have left its loop


class NotProvable(Exception):
    """The proof cannot be made for this wave (reason in the message)."""


# -- locations and the shape of an instruction ----------------------------------------------------------------------

def _regs(op, lane=None) -> list:
    k = op.kind
    if k is OperandKind.SGPR:
        return [("s", op.register + i) for i in range(op.count)]
    if k is OperandKind.TTMP:
        return [("t", op.register + i) for i in range(op.count)]
    if k is OperandKind.VGPR:
        return [("v", op.register + i, lane) for i in range(op.count)]
    if k is OperandKind.AGPR:
        return [("a", op.register + i, lane) for i in range(op.count)]
    if k is OperandKind.SPECIAL:
        n = op.text.lower().split("[")[0]
        if n.startswith(("vcc", "src_vccz")):
            return ["vcc"]
        if n.startswith(("exec", "src_execz")):
            return ["exec"]
        if n == "m0":
            return ["m0"]
        if n in ("scc", "src_scc"):
            return ["scc"]
        if n.startswith("flat_scratch"):
            return ["flat_scratch"]
        if n in ("null", "off") or n.startswith(("src_shared", "src_private", "src_pops", "src_flat_scratch")):
            return []
        raise NotProvable(f"operand {op.text}")
    return []  # constants, offsets, labels, immediates


@dataclass
class Shape:
    """What one executed instruction reads and writes, as the slice needs it (locations are tuples/strings)."""

    uses: list = field(default_factory=list)  # inputs of every register result
    must: list = field(default_factory=list)  # register locations certainly written (kill)
    may: list = field(default_factory=list)  # register locations perhaps written (no kill)
    roots: list = field(default_factory=list)  # locations that decide control flow or addresses
    volatile: bool = False  # results do not come from state (clock reads)
    data: list = field(default_factory=list)  # store/atomic data operands (flow into memory)
    addr: list = field(default_factory=list)  # address operands of a memory access
    mem: object = None  # insn.memory
    vdst: list = field(default_factory=list)  # VGPR/AGPR destinations written in the lanes of EXEC
    split: dict | None = None  # destination -> its own inputs, where they are fewer than `uses` (saveexec)


def shape(insn, lanes: int) -> Shape:
    mn = insn.mnemonic
    if mn.startswith(_ABORT) or insn.is_barrier or insn.is_endpgm:
        raise NotProvable(f"{insn.text} in the loop")
    sh = Shape(mem=insn.memory)
    enc = insn.encoding or ""
    if enc == "UNKNOWN" or mn == ".long":
        raise NotProvable(f"unknown instruction {insn.text}")
    dests = [op for op in insn.operands if op.is_dest]
    srcs = [op for op in insn.operands if not op.is_dest]
    vector = enc.startswith(_VECTOR_ENC) or mn.startswith("v_") or insn.memory is not None and not mn.startswith("s_")
    if mn in ("v_readlane_b32", "v_writelane_b32"):
        lane_op = srcs[1] if len(srcs) > 1 else None
        lane = int(lane_op.value) % lanes if lane_op is not None and lane_op.kind in (
            OperandKind.INLINE, OperandKind.LITERAL) and isinstance(lane_op.value, int) else None
        if mn == "v_readlane_b32":
            sh.uses += _regs(srcs[0], lane) + (_regs(lane_op) if lane_op is not None else [])
            sh.must += _regs(dests[0])
        else:
            sh.uses += _regs(srcs[0]) + (_regs(lane_op) if lane_op is not None else [])
            (sh.must if lane is not None else sh.may).extend(_regs(dests[0], lane))
        return sh
    for op in srcs:
        sh.uses += _regs(op)
    partial = enc in ("DPP", "SDWA") or "_dpp" in mn or "_sdwa" in mn or "d16" in mn or any(
        op.text.endswith((".l", ".h")) for op in dests) or mn.startswith(("v_swap", "v_permlane", "v_mfma", "v_wmma",
                                                                          "v_smfmac", "v_swmmac"))
    for op in dests:
        regs = _regs(op)
        if op.kind in (OperandKind.VGPR, OperandKind.AGPR) and not partial:
            sh.vdst += regs  # written in the lanes of EXEC; the others keep their values
        elif op.kind in (OperandKind.VGPR, OperandKind.AGPR):
            sh.may += regs
        else:
            sh.must += regs
    if vector:
        sh.uses += ["exec", "mode", "m0"] if mn.startswith("ds_") else ["exec", "mode"]
    if mn.startswith(_SCC_USES):
        sh.uses.append("scc")
    if mn.startswith(_VCC_USES) and not any(r == "vcc" for r in sh.uses):
        sh.uses.append("vcc")
    if mn.startswith("s_") and insn.memory is None:
        if (mn.startswith(_SCC_DEFS) and not mn.endswith(("_f32", "_f16"))) or "saveexec" in mn:
            sh.must.append("scc")
        else:
            sh.may.append("scc")  # an unlisted SALU instruction may set SCC
    if mn.startswith("v_cmpx") or insn.writes_exec:
        sh.may += ["exec", "vcc"] if mn.startswith("v_cmpx") else ["exec"]
    if enc == "VOPC" and not mn.startswith("v_cmpx"):
        # the 32-bit compare writes VCC (GFX10+ print vcc_lo as its first operand, not as a destination; GFX9 print
        # nothing): it replaces VCC and reads it not
        sh.uses = [r for r in sh.uses if r != "vcc"]
        sh.must.append("vcc")
    elif mn.startswith("v_cmp") and not any(r == "vcc" or isinstance(r, tuple) and r[0] == "s" for r in sh.must):
        sh.may.append("vcc")
    if enc == "VOP2" and mn.startswith(_CARRY_OUT) and "vcc" not in sh.must:
        sh.must.append("vcc")  # the 32-bit carry forms write their carry to VCC, printed or not
    if insn.reads_exec:
        sh.uses.append("exec")
    if mn.startswith("s_setreg") or mn.startswith(("s_round_mode", "s_denorm_mode", "s_setprio")):
        sh.may.append("mode")
    if mn.startswith(_VOLATILE):
        sh.volatile = True
    if "saveexec" in mn and dests and srcs:
        # sN := EXEC; EXEC := EXEC op src (`s_or_saveexec sN, -1`: all ones, from nothing: the -O0 spill dance);
        # SCC := EXEC != 0
        src = srcs[0]
        ones = mn.startswith("s_or_saveexec") and src.kind is OperandKind.INLINE and src.value == -1
        new_exec = [] if ones else ["exec"] + _regs(src)
        sh.split = {"exec": new_exec, "scc": new_exec}
        for loc in _regs(dests[0]):
            sh.split[loc] = ["exec"]
        sh.may = [x for x in sh.may if x != "exec"]
        sh.must += [x for x in ("exec", "scc") if x not in sh.must]
    if insn.is_conditional:
        if "scc" in mn:
            sh.roots.append("scc")
        elif "vcc" in mn:
            sh.roots += ["vcc", "exec"]
        elif "exec" in mn:
            sh.roots.append("exec")
        else:
            raise NotProvable(f"branch {insn.text}")
    if mn.startswith(("s_setpc", "s_swappc", "s_call")) or insn.is_return:
        sh.roots += [r for op in srcs for r in _regs(op)]
    mem = insn.memory
    if mem is not None:
        if mn.startswith(("s_load", "s_buffer_load", "s_scratch_load")):
            sh.addr = list(sh.uses)
        else:
            plain = [op for op in srcs if op.kind in (OperandKind.VGPR, OperandKind.AGPR, OperandKind.SGPR,
                                                     OperandKind.SPECIAL)]
            if mn.startswith("ds_"):
                addr_ops, data_ops = plain[:1], plain[1:]
            elif mn.startswith(("buffer_", "tbuffer_")):
                if mem.is_store or mem.is_atomic:
                    addr_ops, data_ops = plain[1:], plain[:1]
                else:
                    addr_ops, data_ops = plain, []
            elif mn.startswith(("global_", "flat_", "scratch_")):
                if mem.is_store or mem.is_atomic:
                    addr_ops = [plain[0]] + plain[2:] if plain else []  # vaddr, data, saddr (cmpswap: one range)
                    data_ops = plain[1:2]
                else:
                    addr_ops, data_ops = plain, []
            elif mn.startswith("s_store") or mn.startswith("s_atomic") or mn.startswith("s_buffer_"):
                addr_ops, data_ops = plain[1:], plain[:1]
            else:
                raise NotProvable(f"memory instruction {insn.text}")
            sh.addr = [r for op in addr_ops for r in _regs(op)] + (["exec"] if vector else [])
            sh.data = [r for op in data_ops for r in _regs(op)]
            if mn.startswith("ds_"):
                sh.addr.append("m0")
        sh.roots += sh.addr
    return sh


# -- recording ----------------------------------------------------------------------------------------------------

@dataclass
class _Event:
    shape: Shape
    insn: object
    exec: int  # EXEC when it executed
    memops: list
    changed: list  # scalar locations whose value changed at this instruction


@dataclass
class _WaveLog:
    head: int | None
    heads: list = field(default_factory=list)  # snapshots at each head pass (the last three kept)
    segments: list = field(default_factory=list)  # events between head passes (the last two kept)
    current: list = field(default_factory=list)
    scalars: tuple | None = None
    failed: str = ""
    since: int = 0  # instructions since the last head pass


def _snapshot(m, w) -> dict:
    snap = {"s": list(w.s), "t": list(w.ttmp), "v": w.v.copy(), "a": w.a.copy(), "exec": w.exec, "vcc": w.vcc,
            "scc": w.scc, "m0": w.m0, "mode": w.mode, "flat_scratch": w.flat_scratch, "private": b""}
    if w.private_size:
        snap["private"] = bytes(m.memory.read(w.scratch_base, w.private_size * w.lanes))
    return snap


def _scalars(w) -> tuple:
    return (w.s.copy(), w.exec, w.vcc, w.scc, w.m0)


def _changed(before: tuple, after: tuple) -> list:
    out = []
    if before[0] != after[0]:  # (list equality runs in C; the loop only when something changed)
        out += [("s", i) for i, (x, y) in enumerate(zip(before[0], after[0], strict=True)) if x != y]
    for name, i in (("exec", 1), ("vcc", 2), ("scc", 3), ("m0", 4)):
        if before[i] != after[i]:
            out.append(name)
    return out


class Prover:
    """Two recording windows over the running machine (`hook` is chained in front of the caller's), then
    `result()`: the reason the dispatch can never end, or None."""

    def __init__(self, machine) -> None:
        self.m = machine
        self.phase = 1
        self.counted = 0
        self.visits: dict = {}
        self.logs: dict = {}
        self.stores: set = set()  # ('m', word) and ('l', group, word) written by any wave in window 2
        self.invalidated = False
        self.cache = {}
        self.failed = ""  # a wave's proof failed: the probe is over

    def live(self) -> list:
        return [w for w in self.m.waves if w.state in LIVE]

    def hook(self, ev) -> None:
        self.counted += 1
        w = ev.wave
        if self.phase == 1:
            if not ev.instruction.is_waitcnt:  # (a blocked wait is issued again at the same PC: not a loop)
                v = self.visits.setdefault(w, {})
                v[ev.pc] = v.get(ev.pc, 0) + 1
            return
        if self.failed:
            return
        log = self.logs.get(w)
        if log is None or log.failed:
            self._stores(ev)
            return
        insn = ev.instruction
        after = _scalars(w)
        changed = _changed(log.scalars, after) if log.scalars is not None else []
        log.scalars = after
        try:
            sh = self.cache.get(insn.address)
            if sh is None:
                sh = self.cache[insn.address] = shape(insn, w.lanes)
        except NotProvable as exc:
            log.failed = str(exc)
            return
        self._stores(ev)
        if insn.mnemonic.startswith(_INVALIDATES):
            self.invalidated = True
        log.current.append(_Event(sh, insn, ev.exec_before, list(ev.memops), changed))
        log.since += 1
        if log.since > max(LOST, 4 * max((len(x) for x in log.segments), default=0)):
            log.failed = self.failed = "the wave no longer passes its loop head"
            return
        ctx = self.m._ctx
        nxt = insn.address if w.state == WAITING_COUNTERS and insn.is_waitcnt else (
            ctx.next_pc if ctx.next_pc is not None else insn.address + insn.size)
        if nxt == log.head and not (w.state == WAITING_COUNTERS and insn.is_waitcnt):
            log.segments = (log.segments + [log.current])[-2:]
            log.current = []
            log.heads = (log.heads + [_snapshot(self.m, w)])[-3:]
            log.since = 0
            if len(log.heads) == 3:  # a loop that makes progress fails here, and the probe ends at once
                try:
                    self._prove(w, log)
                except NotProvable as exc:
                    log.failed = self.failed = str(exc)

    def _stores(self, ev) -> None:
        for op in ev.memops:
            if op.kind in ("store", "atomic"):
                for loc, _lane in _words(self.m, ev.wave, op):
                    self.stores.add(loc)

    def start_phase2(self) -> None:
        self.phase = 2
        self.counted = 0
        for w in self.live():
            v = self.visits.get(w)
            if not v:
                continue
            again = [(n, pc) for pc, n in v.items() if n >= 2]
            if not again:
                continue
            _n, head = min(again)
            log = self.logs[w] = _WaveLog(head)
            log.since = -sum(v.values())  # (its first head pass may be a whole window away)
            log.scalars = _scalars(w)
            if w.pc == head:
                log.heads.append(_snapshot(self.m, w))

    def ready(self) -> bool:
        """Every live wave has three head passes (or one wave's proof failed)."""
        if self.failed:
            return True
        for w in self.live():
            log = self.logs.get(w)
            if log is None or log.failed:
                return True  # the proof fails anyway
            if len(log.heads) < 3:
                return False
        return True

    def result(self) -> str | None:
        live = self.live()
        if not live:
            return None
        proven = {}
        for w in live:
            log = self.logs.get(w)
            if log is None or log.failed or len(log.heads) < 2:
                return None
            try:
                proven[w] = self._prove(w, log)
            except NotProvable:
                return None
        # a wave waiting at a barrier stays there: the waves it waits for loop forever or ended
        for w in self.m.waves:
            if w.state == WAITING_BARRIER:
                g = self.m.groups[w.group_key]
                if not all(x.state in (ENDED, WAITING_BARRIER) or x in proven for x in g.waves):
                    return None
        waiting = sum(1 for w in self.m.waves if w.state == WAITING_BARRIER)
        return (f"{len(proven)} wave(s) loop forever: each loop's exit condition depends only on values no live "
                f"wave can change" + (f"; {waiting} wave(s) wait at a barrier those waves never reach"
                                     if waiting else ""))

    def _prove(self, w, log: _WaveLog) -> bool:
        reasons = []
        for j in (1, 2):
            if len(log.heads) < j + 1 or len(log.segments) < j:
                break
            events = [e for seg in log.segments[-j:] for e in seg]
            try:
                self._check(w, events, log.heads[-1 - j], log.heads[-1], log.head)
                return True
            except NotProvable as exc:
                reasons.append(str(exc))
        raise NotProvable("; ".join(reasons) or "no iteration recorded")

    def _check(self, w, events: list, first: dict, last: dict, head: int | None = None) -> None:
        """Slice the iteration `events` backwards and compare its live-in locations at both ends. The branches of
        loopregions.internal_branches are no roots, and the events of their regions are left out, as long as
        nothing the region may write is live where its paths meet; a branch for which that fails is a root again
        and the slice is made anew (each round makes one more branch a root, so the rounds end)."""
        regions = dict(self._regions(w, head)) if head is not None else {}
        changed: dict = {}  # region PC -> scalar locations its recorded executions changed (declared or not)
        for e in events:
            if e.changed:
                changed.setdefault(e.insn.address, set()).update(e.changed)
        stores: dict = {}  # branch -> the private words its region's flat stores write
        for b, r in list(regions.items()):
            if r.flat:
                lanes = 0
                for e in events:
                    if e.insn.address == b:
                        lanes |= e.exec
                got = _flat_private(w, r.flat, lanes, last)
                if got is None:
                    del regions[b]
                else:
                    stores[b] = got
        while True:
            live_in, live_at = self._slice(w, events, regions)
            bad = [b for b, r in regions.items() if r.join not in live_at
                   or any(_touches(live_at[r.join], loc) for loc in r.writes)
                   or any(loc in live_at[r.join] for loc in stores.get(b, ()))
                   or any(loc in live_at[r.join] for pc in r.pcs for loc in changed.get(pc, ()))]
            if not bad:
                break
            for b in bad:
                del regions[b]
        for loc in live_in:
            self._same(w, loc, first, last)

    def _regions(self, w, head: int) -> dict:
        key = ("regions", head)
        got = self.cache.get(key)
        if got is None:
            from amddbg.emu.loopregions import internal_branches

            got = self.cache[key] = internal_branches(self.m.instructions, head, lambda i: shape(i, w.lanes))
        return got

    def _slice(self, w, events: list, regions: dict) -> tuple[set, dict]:
        """(the live-in set at the iteration's start, {join PC: locations live on entry to it}) of the backward
        slice, with the internal branches of `regions` and their regions' events left out."""
        m = self.m
        skip = set(regions)
        for r in regions.values():
            skip |= r.pcs
        joins = {r.join for r in regions.values()}
        restores = {r.restore[0]: r.restore[1] for r in regions.values() if r.restore is not None}
        live_in: set = set()
        while True:  # backward slice; the live-in set at the head feeds the iteration's end until it is stable
            need = set(live_in)
            live_at: dict = {}
            for e in reversed(events):
                pc = e.insn.address
                if pc in skip:
                    continue  # an internal branch, or its region: it writes nothing live where its paths meet
                sh = e.shape
                restore = restores.get(pc)
                if restore is not None:
                    # the structurizer's end of a divergent `if` (`s_or exec, exec, sN`): EXEC becomes the mask
                    # saved before the branch (sN holds it, and EXEC a subset of it), whatever the region left in it
                    if "exec" in need or "scc" in need:
                        need.discard("exec")
                        need.discard("scc")
                        need.update(restore)
                    if pc in joins:
                        live_at.setdefault(pc, set()).update(need)
                    continue
                if sh.split is not None:  # (scalar, no memory access)
                    add: set = set()
                    for loc in sh.must:
                        if _hits(need, loc, kill=True):
                            add.update(sh.split.get(loc, sh.uses))
                    for loc in sh.may + e.changed:
                        if _hits(need, loc, kill=False):
                            add.update(sh.uses)
                    need |= add
                    need.update(sh.roots)
                    if pc in joins:
                        live_at.setdefault(pc, set()).update(need)
                    continue
                reads, writes = _mem_access(m, w, e)
                lanes: set = set()  # lanes of the register results that are needed (None: all of them)
                for loc in sh.must:
                    lanes |= _hits(need, loc, kill=True)
                for loc in sh.may + e.changed:
                    lanes |= _hits(need, loc, kill=False)
                for loc in sh.vdst:
                    lanes |= _lane_write(need, loc, e.exec, w.lanes)
                stored: set = set()  # lanes whose stores write a needed word
                for loc, lane, exact in writes:
                    if _hits(need, loc, kill=exact):
                        stored.add(lane)
                if lanes:
                    if sh.volatile:
                        raise NotProvable(f"{e.insn.text} reads the clock or hardware state")
                    need.update(sh.uses)
                    need.update(loc for loc, lane in reads if None in lanes or lane in lanes)
                if stored:
                    need.update(sh.addr)
                    for loc in sh.data:
                        if isinstance(loc, tuple) and loc[0] in ("v", "a") and loc[2] is None:
                            need.update((loc[0], loc[1], lane) for lane in stored)
                        else:
                            need.add(loc)
                    need.update(loc for loc, lane in reads if lane in stored)  # an atomic reads what it writes
                need.update(sh.roots)
                if pc in joins:
                    live_at.setdefault(pc, set()).update(need)
            if need <= live_in:
                return live_in, live_at
            live_in |= need

    def _same(self, w, loc, first: dict, last: dict) -> None:
        if isinstance(loc, str):
            if first[loc] != last[loc]:
                raise NotProvable(f"{loc} changes")
            return
        k = loc[0]
        if k in ("s", "t"):
            if first[k][loc[1]] != last[k][loc[1]]:
                raise NotProvable(f"{k}{loc[1]} changes")
        elif k in ("v", "a"):
            arr0, arr1 = first[k], last[k]
            if loc[1] >= arr0.shape[0] or loc[1] >= arr1.shape[0]:
                return
            a, b = (arr0[loc[1]], arr1[loc[1]]) if loc[2] is None else (arr0[loc[1], loc[2]], arr1[loc[1], loc[2]])
            if not np.array_equal(a, b):
                raise NotProvable(f"{k}{loc[1]} changes")
        elif k == "p":  # a word of the wave's private memory (offset in its backing range)
            off = loc[1] * 4 - w.scratch_base
            if not 0 <= off <= len(first["private"]) - 4:
                raise NotProvable("a private word outside the wave's private segment")
            if first["private"][off:off + 4] != last["private"][off:off + 4]:
                raise NotProvable("a private word changes")
        elif k == "m":
            self._frozen(w, loc)
        elif k == "l":
            if loc in self.stores:
                raise NotProvable("an LDS word the loop reads is written")
        else:
            raise NotProvable(f"location {loc}")

    def _frozen(self, w, loc) -> None:
        m = self.m
        if loc in self.stores:
            raise NotProvable("a word the loop reads is written")
        caches = m.caches
        addr = loc[1] * 4
        for fifo in caches.pending.values():
            for _who, a, data, _lane in fifo:
                if a // 4 <= loc[1] <= (a + max(len(data), 1) - 1) // 4:
                    raise NotProvable("a store to a word the loop reads is in flight")
        try:
            base = bytes(m.memory.read(addr, 4))
        except Exception as exc:  # noqa: BLE001
            raise NotProvable(f"{addr:#x} unreadable") from exc
        stale_ok = caches.rng is None and not self.invalidated
        for level in (caches.lines, caches.gl1, caches.scalar):
            for lines in level.values():
                line = lines.get(addr - addr % 64)
                if line is not None and bytes(line[addr % 64:addr % 64 + 4]) != base and not stale_ok:
                    raise NotProvable("a cached copy of a word the loop reads differs and may be refreshed")


def _words(m, w, op) -> list:
    """(location, lane) of every word one MemOp touches: ('m', word) for global memory, ('p', word) for private
    memory (the word of its backing store, so lanes never alias), ('l', group, word) for LDS."""
    from amddbg.emu.memory import classify_flat, private_address

    out = []
    size = max(op.size, 4)
    for lane, a in op.addresses.items():
        space = op.space
        if space == "generic":
            where, off = classify_flat(a)
            if where in ("local", "private"):
                space, a = where, off
        if space == "local":
            out += [(("l", w.group_key, (a + k) // 4), lane) for k in range(0, size, 4)]
        elif space == "private":
            out += [(("p", private_address(w, a + k, lane) // 4), lane) for k in range(0, size, 4)]
        else:
            out += [(("m", (a + k) // 4), lane) for k in range(0, size, 4)]
    return out


def _mem_access(m, w, e: _Event) -> tuple[list, list]:
    """([(word, lane) read], [(word, lane, certainly replaced)] written) of one event."""
    reads, writes = [], []
    for op in e.memops:
        if op.kind == "cache":
            continue
        words = _words(m, w, op)
        if op.kind in ("load", "atomic"):
            reads += words
        if op.kind in ("store", "atomic"):
            exact = op.size % 4 == 0 and all(a % 4 == 0 for a in op.addresses.values())
            writes += [(x, lane, exact and x[0] != "m") for x, lane in words]
    return reads, writes


def _lane_write(need: set, loc, exec_mask: int, lanes: int) -> set:
    """A vector register written in the lanes of `exec_mask`: those lanes of it are no longer needed before this
    instruction (it replaced them); the lanes it did not write still are. Returns the lanes written that were
    needed (None: all the written lanes)."""
    k, i, _ = loc
    entries = [x for x in need if isinstance(x, tuple) and x[0] == k and x[1] == i]
    out: set = set()
    full = (1 << lanes) - 1
    for x in entries:
        if x[2] is None:
            need.discard(x)
            if exec_mask & full:
                out.add(None)
            if exec_mask & full != full:
                need.update((k, i, lane) for lane in range(lanes) if not exec_mask >> lane & 1)
        elif exec_mask >> x[2] & 1:
            need.discard(x)
            out.add(x[2])
    return out


def _flat_private(w, flat: tuple, lanes: int, snap: dict) -> set | None:
    """The private words the region's flat stores write (its flat loads must read private memory too, in the
    wave's segment: nothing there can fault), from the loop-invariant sources of their addresses
    (loopregions._flat_sources) in the lanes of EXEC at the branch; None when an address is not private."""
    from amddbg.emu.memory import classify_flat, private_address

    words: set = set()
    for _pc, store, size, offset, sources in flat:
        for lane in range(w.lanes):
            if not lanes >> lane & 1:
                continue
            half = []
            for kind, reg, src_lane in sources:
                if kind == "s":
                    half.append(snap["s"][reg] & 0xFFFFFFFF)
                    continue
                arr = snap[kind]
                if reg >= arr.shape[0]:
                    return None
                half.append(int(arr[reg, lane if src_lane is None else src_lane % w.lanes]) & 0xFFFFFFFF)
            where, off = classify_flat((half[0] | half[1] << 32) + offset)
            if where != "private" or off < 0 or off + size > w.private_size:
                return None
            if store:
                words.update(("p", private_address(w, off + k, lane) // 4) for k in range(0, max(size, 4), 4))
    return words


def _touches(live: set, loc) -> bool:
    """Whether a write of `loc` (a whole vector register when its lane is None) may change a location in `live`."""
    if isinstance(loc, tuple) and loc[0] in ("v", "a"):
        k, i, lane = loc
        return any(isinstance(x, tuple) and x[0] == k and x[1] == i and (lane is None or x[2] in (None, lane))
                   for x in live)
    return loc in live


def _hits(need: set, loc, *, kill: bool) -> set:
    """The lanes of `loc` that a needed location depends on (None: every lane; empty: none), removing the needed
    location when this write certainly replaces it."""
    if isinstance(loc, tuple) and loc[0] in ("v", "a"):
        k, i, lane = loc
        if lane is None:
            return {x[2] for x in need if isinstance(x, tuple) and x[0] == k and x[1] == i}
        out = set()
        if (k, i, None) in need:
            out.add(lane)
        if (k, i, lane) in need:
            out.add(lane)
            if kill:
                need.discard((k, i, lane))
        return out
    if loc in need:
        if kill:
            need.discard(loc)
        return {None}
    return set()
