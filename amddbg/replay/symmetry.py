"""Replay by symmetry: run one workgroup per class of workgroups that are in the same state, and prove the rest.

A hang in the field has thousands of waves, most of them in the same place: 10,000 waves polling one flag. Replaying
every one of them costs time in proportion to the waves; replaying one of each kind does not. The argument:

- **Classes.** Two workgroups are in one class when, wave by wave, they are at the same PC in the same state with
  the same EXEC, VCC, M0, MODE, STATUS and TRAPSTS, the same replay instructions (stale line, watched loop), the
  same LDS bytes, the same size, and the same compute unit and shader array of the emulator's caches (the
  workgroup's index modulo `LANES_OF_CACHE`). What may differ are the SGPRs, VGPRs, AccVGPRs and TTMPs: the
  workgroup and work-item ids and whatever was computed from them (addresses of per-thread data).
- **Representatives.** The first workgroup of each class is rebuilt and replayed (`fromcore`, `only=`), at the same
  cache position it has in the full dispatch.
- **The proof.** While the representatives run, the step hook tracks, for each representative of a class with more
  than one member, which registers differ from some member of its class (SGPR indices, VGPR/AccVGPR lanes, TTMPs)
  and when the wave overwrites them. The class is symmetric when its representative never read such a register
  (under its EXEC; any lane for a cross-lane read), never stored to global memory or did an atomic there, never
  touched its private (scratch) memory, and ran no instruction whose value depends on which wave runs it
  (`s_getreg`, `s_memtime`, `s_memrealtime`, `s_sendmsg_rtn`, `movrel`). Then each member, run in lockstep right
  after its representative (a legal schedule of the full dispatch: a member on the same compute unit reads the same
  addresses as its representative, just after it, and writes nothing others read), executes the same instructions
  on the same values and ends where its representative ends: the replay's answer (hang, every wave ends, fault,
  trap) is an answer for the whole dispatch.
- **Otherwise** the whole dispatch is replayed (`ReplayResult.symmetry` says why).

Members appear in the result as `MemberWave`s (the representative's state, their own place in the grid), with the
representative's loop exits, loads and stores; machine-level views (`barrier_view`, the written core of the final
state) show the representatives only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from amddbg.amdgpu import AddressSpace
from amddbg.emu.caches import ARRAYS, CUS
from amddbg.errors import AmddbgError
from amddbg.isa.model import OperandKind

LANES_OF_CACHE = CUS * ARRAYS // np.gcd(CUS, ARRAYS)  # a workgroup's CU and shader array repeat with this period
WAVE_DEPENDENT = ("s_getreg", "s_memtime", "s_memrealtime", "s_sendmsg_rtn", "s_movrel", "v_movrel", "s_rfe")
CROSS_LANE = ("readlane", "writelane", "permlane", "bpermute", "permute", "swizzle", "_dpp", "mov_dpp")
MIN_MEMBERS = 2  # a replay by symmetry pays off only when some class has at least this many workgroups


@dataclass
class ClassPlan:
    """The workgroups to replay and, per representative wave, the registers some member holds differently."""

    groups: list  # the representatives' workgroup ids, in dispatch order
    members: dict = field(default_factory=dict)  # representative core thread number -> [member core threads]
    dirty: dict = field(default_factory=dict)  # representative core thread number -> _Dirty
    classes: int = 0
    workgroups: int = 0

    @property
    def reduces(self) -> bool:
        return len(self.groups) < self.workgroups


@dataclass
class _Dirty:
    sgprs: set = field(default_factory=set)
    vgprs: dict = field(default_factory=dict)  # row -> lane mask
    acc: dict = field(default_factory=dict)
    ttmps: bool = False


class MemberWave:
    """A wave replay did not run because its class's representative did: the representative's state, PC and reason,
    its own place in the grid."""

    def __init__(self, rep, workgroup, wave_in_group: int) -> None:
        self._rep = rep
        self.workgroup = workgroup
        self.wave_in_group = wave_in_group
        self.representative = rep

    def __getattr__(self, name: str):
        return getattr(self._rep, name)


def _lds_key(t, size: int) -> bytes:
    if size <= 0:
        return b""
    try:
        return bytes(t.wave.memory.read(AddressSpace.LOCAL, 0, size))
    except AmddbgError:
        return b"?"


def _wave_key(t, stale: dict, watch: dict) -> tuple:
    w = t.wave
    try:
        vcc = t.registers.vcc
    except AmddbgError:
        vcc = None
    return (t.wave_in_group, str(t.state), t.pc, t.exec, vcc, w.m0, w.mode, w.status, w.trapsts,
            bool(w.vgprs_available), stale.get(t.number), watch.get(t.number))


def _vector(t, kind: str):
    """(rows x lanes) uint32 array of a wave's VGPRs or AccVGPRs, read as raw bytes (no per-value Python ints)."""
    w = t.wave
    try:
        raw = w.vector_bytes(kind)
    except AmddbgError:
        return None
    if not raw:
        return None
    return np.frombuffer(raw, dtype="<u4").reshape(-1, w.sizes.lanes)


def plan(program, threads: list, dispatch, *, stale: dict | None = None, watch: dict | None = None) -> ClassPlan:
    """Classes of the dispatch's workgroups (`threads`: its core threads) and what differs inside each."""
    stale, watch = stale or {}, watch or {}
    d = dispatch
    lds_size = int((d.packet or {}).get("group_segment_size", 0) or 0) if d is not None else 0
    by_group: dict = {}
    for t in threads:
        if t.workgroup is None or t.wave_in_group is None:
            return ClassPlan([], workgroups=0)  # a wave without a place: replay everything
        by_group.setdefault(tuple(t.workgroup), []).append(t)
    order = sorted(by_group, key=lambda g: (g[2], g[1], g[0]))
    classes: dict = {}
    for gi, g in enumerate(order):
        ts = sorted(by_group[g], key=lambda t: t.wave_in_group)
        size = tuple(min(d.workgroup_size[i], d.grid_size[i] - g[i] * d.workgroup_size[i]) for i in range(3))
        key = (gi % LANES_OF_CACHE, size, tuple(_wave_key(t, stale, watch) for t in ts), _lds_key(ts[0], lds_size))
        classes.setdefault(key, []).append((g, ts))
    out = ClassPlan([], classes=len(classes), workgroups=len(order))
    for members in classes.values():
        rep_g, rep_ts = members[0]
        out.groups.append(rep_g)
        if len(members) < MIN_MEMBERS:
            continue
        for i, r in enumerate(rep_ts):
            dirty = _Dirty()
            rs = np.asarray(r.wave.sgprs, dtype=np.uint32)
            rv, ra = _vector(r, "vgprs"), _vector(r, "acc")
            rt = list(r.wave.ttmps)
            smask = np.zeros(rs.shape, dtype=bool)
            vmask = np.zeros(rv.shape, dtype=bool) if rv is not None else None
            amask = np.zeros(ra.shape, dtype=bool) if ra is not None else None
            for _g, ts in members[1:]:
                m = ts[i]
                ms = np.asarray(m.wave.sgprs, dtype=np.uint32)
                if ms.shape != rs.shape:
                    smask |= True
                else:
                    smask |= ms != rs
                if vmask is not None:
                    mv = _vector(m, "vgprs")
                    vmask |= True if mv is None or mv.shape != rv.shape else (mv != rv)
                if amask is not None:
                    ma = _vector(m, "acc")
                    amask |= True if ma is None or ma.shape != ra.shape else (ma != ra)
                dirty.ttmps = dirty.ttmps or list(m.wave.ttmps) != rt
            dirty.sgprs = {int(k) for k in np.flatnonzero(smask)}
            for masks, into in ((vmask, dirty.vgprs), (amask, dirty.acc)):
                if masks is None:
                    continue
                for row in np.flatnonzero(masks.any(axis=1)):
                    into[int(row)] = int(sum(1 << int(ln) for ln in np.flatnonzero(masks[row])))
            out.dirty[r.number] = dirty
            out.members[r.number] = [ts[i] for _g, ts in members[1:]]
    return out


class SymmetryBroken(Exception):
    """Raised from the step hook at the first instruction that breaks the symmetry argument."""


class Tracker:
    """The step hook's half of the proof: does a representative read a register some member holds differently,
    store to global memory, touch scratch, or run a wave-dependent instruction? First violation wins."""

    def __init__(self, dirty_by_wave: dict) -> None:
        self.dirty = dirty_by_wave  # emulator Wave -> _Dirty (its own copy: writes clean registers)
        self.broken: str | None = None
        self._shapes: dict = {}  # pc -> what the instruction reads and writes (decoded once per PC)

    def step(self, ev) -> None:
        d = self.dirty.get(ev.wave)
        if d is None or self.broken is not None:
            return
        insn = ev.instruction
        if insn is None:
            return
        shape = self._shapes.get(ev.pc)
        if shape is None or shape[0] is not insn:
            shape = self._shapes[ev.pc] = (insn, _shape(insn))
        why = _check(d, insn, shape[1], ev)
        if why:
            self.broken = f"{insn.text.strip()} at {ev.pc:#x} {why}"
            raise SymmetryBroken(self.broken)  # no need to run on: the whole dispatch is replayed instead


def _shape(insn) -> tuple:
    """(wave-dependent?, cross-lane?, reads, writes, partial write?) of an instruction; reads/writes are
    (kind, first, last + 1) register ranges."""
    name = insn.mnemonic
    reads, writes = [], []
    for o in insn.operands:
        if o.register is None:
            if o.kind is OperandKind.SPECIAL and not o.is_dest and o.text.startswith("flat_scratch"):
                reads.append((OperandKind.SGPR, 102, 104))
            continue
        kind = o.kind
        if kind is OperandKind.SPECIAL:
            continue
        (writes if o.is_dest else reads).append((kind, o.register, o.register + o.count, o.text))
    partial = (name.startswith("s_cmov") or "d16" in name or "writelane" in name or "PRESERVE" in insn.text)
    cross = any(k in name for k in CROSS_LANE) or "quad_perm" in insn.text or "row_" in insn.text
    return name.startswith(WAVE_DEPENDENT), cross, reads, writes, partial


def _check(d: _Dirty, insn, shape: tuple, ev) -> str | None:
    dependent, cross, reads, writes, partial = shape
    if dependent:
        return "gives each wave its own value"
    exec_ = ev.exec_before
    for kind, lo, hi, *_text in reads:
        if kind is OperandKind.SGPR:
            if d.sgprs and not d.sgprs.isdisjoint(range(lo, hi)):
                return f"reads s{lo}, which differs between the waves of its class"
        elif kind is OperandKind.VGPR or kind is OperandKind.AGPR:
            rows = d.vgprs if kind is OperandKind.VGPR else d.acc
            if rows:
                for r in range(lo, hi):
                    mask = rows.get(r, 0)
                    if mask and (cross or mask & exec_):
                        return (f"reads {'v' if kind is OperandKind.VGPR else 'a'}{r}, which differs between the "
                                "waves of its class")
        elif kind is OperandKind.TTMP and d.ttmps:
            return "reads a trap temporary, which differs between the waves of its class"
    for op in ev.memops:
        if op.space == "private":
            return "touches its private (scratch) memory"
        if op.space == "generic" and op.addresses:
            from amddbg.emu.memory import classify_flat

            if any(classify_flat(a)[0] == "private" for a in op.addresses.values()):
                return "touches its private (scratch) memory"
        if op.kind in ("store", "atomic") and op.space in ("global", "generic", "scalar"):
            return "writes global memory (its class's other waves would write too)"
    if partial:
        return None
    # the registers it writes now hold what every member computes the same way (not a partial or conditional
    # write: the rest of the register keeps what it held)
    for kind, lo, hi, text in writes:
        if text.endswith((".h", ".l")):
            continue
        if kind is OperandKind.SGPR:
            if d.sgprs:
                d.sgprs.difference_update(range(lo, hi))
        elif kind is OperandKind.VGPR or kind is OperandKind.AGPR:
            rows = d.vgprs if kind is OperandKind.VGPR else d.acc
            for r in range(lo, hi):
                if r in rows:
                    rows[r] &= ~exec_
                    if not rows[r]:
                        del rows[r]
    return None
