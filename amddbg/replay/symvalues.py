"""Replay by symmetry: each member's own values followed through its representative's arithmetic (issue 20).

A core caught early has waves that have not yet computed their store address: `s_mul_i32 s6, s6, s3` reads the
workgroup id, which differs between the workgroups of a class, and `&alive[id]` is computed only during replay.
Refusing the class there replays the whole dispatch (10,000 waves: minutes). Instead, an instruction of pure
arithmetic (SALU/VALU: no memory, no branch, nothing that gives each wave its own value) that reads a register some
member holds differently is *also* executed, by the emulator's own semantic function, for every member of the
class: on a scratch copy of the representative's state just before the instruction, with the member's own values
in the registers that differ. Comparing each member's result with the representative's (SGPRs, the VGPR rows it
touches, VCC, SCC, M0, EXEC, MODE, the trap temporaries) says exactly which registers now differ, and holds each
member's values of them. What must never differ is checked by the caller (symmetry.Tracker): a member whose EXEC,
MODE or next PC would differ, a branch, a load address, a scalar memory address or an LDS address that reads a
differing value ends the argument (the whole dispatch is replayed); a plain global store whose address differs is
allowed when each member's addresses (computed from these values) are mapped and read by no wave.

The scratch execution runs only while values differ (in the bench's 20-instructions core: five instructions per
member, once), so its cost is members x instructions that read a differing value, not a whole replay.
"""

from __future__ import annotations

import copy

import numpy as np

from amddbg.emu.semantics import Ctx
from amddbg.isa.model import OperandKind

VALU_ENCODINGS = frozenset({"VOP1", "VOP2", "VOP3", "VOP3P", "VOPC", "VOPD", "VOPD3"})
SALU_ENCODINGS = frozenset({"SOP1", "SOP2", "SOPK", "SOPC"})
# SALU mnemonics (their root: s_<root>_...) that only compute: a scalar instruction outside this list (s_setpc,
# s_sendmsg, s_barrier_signal, s_waitcnt_vscnt, s_setreg, s_sleep_var, ...) is never run for the members
SALU_ROOTS = frozenset({
    "mov", "movk", "cmov", "cmovk", "add", "addc", "addk", "sub", "subb", "mul", "mulk", "lshl", "lshr", "ashr", "and",
    "or", "xor", "andn1", "andn2", "orn1", "orn2", "nand", "nor", "xnor", "not", "brev", "bfe", "bfm", "bcnt0", "bcnt1",
    "ff0", "ff1", "flbit", "cls", "clz", "ctz", "sext", "abs", "absdiff", "min", "max", "cselect", "cmp", "cmpk",
    "bitcmp0", "bitcmp1", "bitset0", "bitset1", "bitreplicate", "quadmask", "wqm", "pack", "lshl1", "lshl2", "lshl3",
    "lshl4", "getpc"})
SPECIALS = ("vcc", "scc", "m0")  # wave state outside the register files that an ALU instruction may write
ATOMICS = ("global_atomic", "flat_atomic")
# member-instructions a replay by symmetry may run for members (arithmetic on what differs, and their atomics);
# past it the whole dispatch is replayed: a count, never seconds (an atomic in a loop costs members x iterations)
MEMBER_BUDGET = 2_000_000


LOADS = ("global_load", "flat_load")


def global_load(insn) -> bool:
    """A GLOBAL/FLAT load to VGPRs: a member whose address differs loads its own words (`x = in[id]`), run for it
    right before its representative's; the values it gets are compared like any result."""
    m = insn.memory
    return (m is not None and m.is_load and not m.is_atomic and insn.mnemonic.startswith(LOADS)
            and "lds" not in insn.mnemonic)


def global_atomic(insn) -> bool:
    """A GLOBAL/FLAT atomic: each member's own is run too (its contribution to a shared counter is part of the
    answer), on the machine's memory, right before its representative's."""
    return insn.memory is not None and insn.memory.is_atomic and insn.mnemonic.startswith(ATOMICS)


def followable(insn) -> bool:
    """Pure arithmetic whose result can be computed for each member from its own values."""
    if insn.memory is not None or insn.is_branch or insn.is_call or any(
            o.kind is OperandKind.AGPR for o in insn.operands):  # (AccVGPRs are not followed)
        return False
    name = insn.mnemonic
    if insn.encoding in VALU_ENCODINGS:
        return name.startswith("v_") and not name.startswith(("v_movrel", "v_interp"))
    if insn.encoding in SALU_ENCODINGS:
        return name.startswith("s_") and name[2:].split("_")[0] in SALU_ROOTS
    return False


class Pending:
    """The members' state right after one instruction the representative is about to execute."""

    __slots__ = ("pc", "sgprs", "rows", "specials", "exec_", "mode", "ttmps", "broken", "atomics")

    def __init__(self, pc: int) -> None:
        self.pc = pc
        self.sgprs = None  # (members x 128) uint64
        self.rows: dict = {}  # VGPR row -> (members x lanes) uint32
        self.specials: dict = {}  # name -> (members,) uint64
        self.exec_ = None
        self.mode = None
        self.ttmps = None
        self.broken: str | None = None
        self.atomics: list = []  # per member, ({lane: address}, size) of its atomic or load (global memory)


class MemberValues:
    """Each member's values of the registers that differ from its representative's, per representative wave.

    A register that differs and was never written in the replay holds the member's core value (read once, for
    all members, at the first need); one written by a followed instruction holds what the member computed."""

    def __init__(self, machine, members_by_wave: dict) -> None:
        self.machine = machine
        self.members = members_by_wave  # emulator Wave -> [member core threads]
        self.sgprs: dict = {}  # (wave, row) -> (members,) uint64
        self.vgprs: dict = {}  # (wave, row) -> (members x lanes) uint32
        self.specials: dict = {}  # (wave, name) -> (members,) uint64
        self.ttmps: dict = {}  # wave -> (members x 16) uint64 (core values: TTMPs are never written here)
        self.version: dict = {}  # wave -> bumped whenever its members' values change (store-address caches)
        self._loaded: set = set()
        self.executed = 0  # member-instructions run on scratch state
        self.atomics = 0  # of which global atomics (on the machine's memory)

    # -- values ---------------------------------------------------------------------------------------------------
    def load(self, w, d) -> None:
        """The core values of every register that differs and holds no computed value yet (once per wave: after
        that, a register only comes to differ through `apply`)."""
        if w in self._loaded:
            return
        self._loaded.add(w)
        members = self.members.get(w) or []
        need_s = sorted(r for r in d.sgprs if (w, r) not in self.sgprs)
        need_v = sorted(r for r in d.vgprs if (w, r) not in self.vgprs)
        if need_s or d.ttmps:
            slots = []
            ttmps = []
            for t in members:
                s = list(t.wave.sgpr_slots)[:128]
                slots.append([x & 0xFFFFFFFF for x in s] + [0] * (128 - len(s)))
                tt = list(t.wave.ttmps)[:16]
                ttmps.append(tt + [0] * (16 - len(tt)))
            arr = np.array(slots, dtype=np.uint64).reshape(len(members), 128)
            for r in need_s:
                self.sgprs[(w, r)] = arr[:, r].copy()
            if d.ttmps:
                self.ttmps[w] = np.array(ttmps, dtype=np.uint64).reshape(len(members), 16)
        if need_v:
            rows = {r: np.zeros((len(members), w.lanes), dtype=np.uint32) for r in need_v}
            for j, t in enumerate(members):
                raw = t.wave.vector_bytes("vgprs")
                vec = np.frombuffer(raw, dtype="<u4").reshape(-1, w.lanes)
                for r in need_v:
                    if r >= vec.shape[0]:
                        raise LookupError("a member's core does not hold a register that differs")
                    rows[r][j] = vec[r]
            for r, a in rows.items():
                self.vgprs[(w, r)] = a

    def sgpr(self, w, r: int) -> np.ndarray:
        return self.sgprs[(w, r)]

    def vgpr(self, w, r: int) -> np.ndarray:
        return self.vgprs[(w, r)]

    def forget_sgprs(self, w, rows) -> None:
        for r in rows:
            self.sgprs.pop((w, r), None)

    def forget_vgpr(self, w, r: int) -> None:
        self.vgprs.pop((w, r), None)

    # -- the members' execution -----------------------------------------------------------------------------------
    def run(self, w, insn, fn, d, rows: set, atomic: bool = False, load: bool = False) -> Pending:
        """Execute `insn` (semantic function `fn`) for every member of `w`'s class on a copy of `w`'s state as it
        is now (before `w` executes it), with the member's own values where they differ. `rows`: the VGPR rows
        the instruction names (read or written). `atomic`: a global atomic, which changes the machine's memory
        for each member (the schedule: each member's atomic right before its representative's). `load`: a global
        load (each member reads its own addresses)."""
        self.load(w, d)
        out = Pending(insn.address)
        members = self.members.get(w) or []
        n = len(members)
        if self.executed + n > MEMBER_BUDGET:
            out.broken = (f"would need more than {MEMBER_BUDGET} instructions run for the members of the classes "
                          "(replay by symmetry's own budget)")
            return out
        sh = copy.copy(w)
        sh.s = list(w.s)
        sh.ttmp = list(w.ttmp)
        sh.v = w.v.copy()
        sh.counters = None
        pre_s = list(w.s)
        pre_t = list(w.ttmp)
        pre_v = {r: w.v[r].copy() for r in rows if r < w.v.shape[0]}
        pre = (w.exec, w.vcc, w.scc, w.m0, w.mode)
        ctx = Ctx(sh, self.machine)
        s_dirty = [(r, self.sgprs[(w, r)]) for r in sorted(d.sgprs)]
        # a row's values that differ are the member's in its differing lanes only: the other lanes hold what the
        # representative holds now (a write under EXEC since may have changed them)
        v_dirty = [(r, self.vgprs[(w, r)], _lanes(d.vgprs[r], w.lanes)) for r in sorted(rows) if r in d.vgprs]
        sp_dirty = [(name, self.specials[(w, name)]) for name in sorted(d.special)]
        tt = self.ttmps.get(w) if d.ttmps else None
        out_s = np.empty((n, 128), dtype=np.uint64)
        out_rows = {r: np.empty((n, w.lanes), dtype=np.uint32) for r in pre_v}
        out_sp = {name: np.empty(n, dtype=np.uint64) for name in (*SPECIALS, "exec", "mode")}
        ttmp_changed = False
        for j in range(n):
            sh.s[:] = pre_s
            for r, a in s_dirty:
                sh.s[r] = int(a[j])
            for r, row in pre_v.items():
                sh.v[r] = row
            for r, a, lanes in v_dirty:
                sh.v[r][lanes] = a[j][lanes]
            sh.exec, sh.vcc, sh.scc, sh.m0, sh.mode = pre
            for name, a in sp_dirty:
                setattr(sh, name, int(a[j]))
            if tt is not None:
                sh.ttmp[:] = [int(x) for x in tt[j]]
            else:
                sh.ttmp[:] = pre_t
            ctx.memops = []
            ctx.next_pc = None
            sh.state = w.state
            try:
                fn(ctx, insn)
            except Exception as exc:  # noqa: BLE001  (a member's instruction that would stop it: not followed)
                out.broken = f"would stop a member of its class ({type(exc).__name__})"
                return out
            if ctx.memops and (atomic or load):
                why = _atomic_ops(ctx.memops, out.atomics, "load" if load else "atomic")
                if why:
                    out.broken = why
                    return out
            elif ctx.memops or ctx.next_pc is not None or sh.state != w.state:
                out.broken = "would do something other than arithmetic for a member of its class"
                return out
            if ctx.next_pc is not None or sh.state != w.state:
                out.broken = "would do something other than arithmetic for a member of its class"
                return out
            out_s[j] = sh.s[:128]
            for r in pre_v:
                out_rows[r][j] = sh.v[r]
            out_sp["vcc"][j] = sh.vcc
            out_sp["scc"][j] = sh.scc
            out_sp["m0"][j] = sh.m0
            out_sp["exec"][j] = sh.exec
            out_sp["mode"][j] = sh.mode
            if tt is None and sh.ttmp != pre_t:
                ttmp_changed = True
        self.executed += n
        if atomic:
            self.atomics += n
        if ttmp_changed or (tt is not None and any(
                k.kind is OperandKind.TTMP and k.is_dest for k in insn.operands)):
            out.broken = "writes a trap temporary a member of its class holds differently"
            return out
        out.sgprs, out.rows = out_s, out_rows
        out.specials = {name: out_sp[name] for name in SPECIALS}
        out.exec_, out.mode = out_sp["exec"], out_sp["mode"]
        return out

    def apply(self, w, d, p: Pending) -> str | None:
        """After the representative executed the instruction: which registers now differ (and the members'
        values of them), or why the members cannot follow (their EXEC or MODE would differ)."""
        if p.broken:
            return p.broken
        if (p.exec_ != np.uint64(w.exec)).any():
            return "computes an EXEC that differs between the waves of its class"
        if (p.mode != np.uint64(w.mode)).any():
            return "computes a MODE that differs between the waves of its class"
        rep_s = np.array(w.s[:128], dtype=np.uint64)
        diff = (p.sgprs != rep_s[None, :]).any(axis=0) if len(p.sgprs) else np.zeros(128, dtype=bool)
        now = {int(r) for r in np.flatnonzero(diff)}
        self.forget_sgprs(w, d.sgprs - now)
        d.sgprs = now
        for r in now:
            self.sgprs[(w, r)] = p.sgprs[:, r].copy()
        for r, a in p.rows.items():
            lanes = (a != w.v[r][None, :]).any(axis=0)
            mask = int(sum(1 << int(ln) for ln in np.flatnonzero(lanes)))
            if mask:
                d.vgprs[r] = mask
                self.vgprs[(w, r)] = a
            else:
                d.vgprs.pop(r, None)
                self.forget_vgpr(w, r)
        for name, a in p.specials.items():
            if (a != np.uint64(getattr(w, name))).any():
                d.special.add(name)
                self.specials[(w, name)] = a
            else:
                d.special.discard(name)
                self.specials.pop((w, name), None)
        self.version[w] = self.version.get(w, 0) + 1
        return None


def _lanes(mask: int, lanes: int) -> np.ndarray:
    return np.array([bool(mask >> ln & 1) for ln in range(lanes)])


def _atomic_ops(memops: list, into: list, kind: str = "atomic") -> str | None:
    """A member's atomic (or load) touched global memory only (recorded in `into`), or why not."""
    from amddbg.emu.memory import classify_flat

    for op in memops:
        if op.kind != kind or op.space not in ("global", "generic"):
            return f"would do something other than a global {kind} for a member of its class"
        if op.space == "generic" and any(classify_flat(a)[0] != "global" for a in op.addresses.values()):
            return f"would do a {kind} outside global memory for a member of its class"
        into.append((dict(op.addresses), max(op.size, 4)))
    return None
