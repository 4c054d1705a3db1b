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
  (under its EXEC; any lane for a cross-lane read) but as the address of a plain global store (Tracker: the
  members' own words, mapped and read by no wave), stored differing data only there, did no atomic in global
  memory, never touched its private (scratch) memory, and ran no instruction whose value depends on which wave
  runs it (`s_getreg`, `s_memtime`, `s_memrealtime`, `s_sendmsg_rtn`, `movrel`). Then each member, run in lockstep
  right after its representative (a legal schedule of the full dispatch: a member on the same compute unit reads
  the same addresses as its representative, just after it, and writes only the same bytes to the same addresses
  or words no one reads), executes the same instructions on the same values and ends where its representative
  ends: the replay's answer (hang, every wave ends, fault, trap) is an answer for the whole dispatch.
- **Otherwise** the whole dispatch is replayed (`ReplayResult.symmetry` says why).

Members appear in the result as `MemberWave`s (the representative's state, their own place in the grid), with the
representative's loop exits and loads and their own stores; machine-level views (`barrier_view`, the written core
of the final state) show the representatives only.
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
STORES = ("global_store", "flat_store")  # plain stores (no atomics: they read what they write)
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
    special: set = field(default_factory=set)  # of "vcc", "scc", "m0": computed in the replay from what differs


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
    store to global memory where members would not do the same, touch scratch, or run a wave-dependent instruction?
    First violation wins.

    Stores to global memory are part of the argument (issue 20): a store whose address and data the members hold
    like the representative writes the same bytes to the same address right after it (no one can tell); a store
    whose address comes from registers the members hold differently (out[global id] = x, the address computed
    before the core was written) writes each member's own words: they are computed here from each member's
    registers (a register that still differs was never written in the replay, so it holds the core's value), must
    be mapped global memory, and, checked after the replay (`stores_unread`), must be words no replayed wave
    reads. Then the members' stores change nothing any wave sees, and the replay's answer stands for them."""

    def __init__(self, dirty_by_wave: dict, members_by_wave: dict | None = None, memory=None, machine=None) -> None:
        from amddbg.replay.symvalues import MemberValues

        self.dirty = dirty_by_wave  # emulator Wave -> _Dirty (its own copy: writes clean registers)
        self.members = members_by_wave or {}  # emulator Wave -> [member core threads]
        self.memory = memory  # the replay's GlobalMemory (are the members' addresses mapped?)
        self.values = MemberValues(machine, self.members)  # each member's values of what differs
        self.pending: dict = {}  # emulator Wave -> symvalues.Pending (the members' run of the current instruction)
        self.broken: str | None = None
        self._shapes: dict = {}  # pc -> what the instruction reads and writes (decoded once per PC)
        self.read_words: set = set()  # global words any replayed wave loaded (or read by an atomic)
        self.member_words: list = []  # (first word, last word) arrays of the members' global stores
        self.member_stores: dict = {}  # (emulator Wave, pc) -> each member's first active lane's store address
        self.member_loads: dict = {}  # (emulator Wave, pc) -> each member's first active lane's load address
        self._store_cache: dict = {}

    def attach(self, machine) -> None:
        """Run `pre` before every instruction the machine executes (its plans' semantic functions wrapped): the
        members' run of an instruction needs the representative's registers as they are before it."""
        orig = machine._plan
        pre = self.pre

        def plan_with_pre(pc: int):
            p = orig(pc)
            if p is None:
                return None
            insn, fn, fallthrough, counters = p

            def run(ctx, insn, fn=fn) -> None:
                pre(ctx.wave, insn, fn)
                fn(ctx, insn)

            p = machine._plans[pc] = (insn, run, fallthrough, counters)
            return p

        machine._plan = plan_with_pre
        machine._plans.clear()

    def pre(self, w, insn, fn) -> None:
        """Before `w` executes `insn`: when it is arithmetic that reads a value some member holds differently (or
        VCC/SCC/M0 differ), run it for every member too (symvalues); `step` then sees what differs after it."""
        d = self.dirty.get(w)
        if d is None or self.broken is not None:
            return
        if not (d.sgprs or d.vgprs or d.ttmps or d.special) and not (
                insn.memory is not None and insn.memory.is_atomic):
            return
        shape = self._shape_of(insn)
        atomic = shape[8] and bool(self.members.get(w))
        if not shape[6] and not atomic and not shape[9]:
            return
        if not atomic and not d.special and _dirty_read(d, shape, w.exec) is None:
            return
        load = shape[9] and not atomic
        from amddbg.emu.gpr_index import index_mode
        from amddbg.replay.symvalues import Pending

        if index_mode(w):
            p = Pending(insn.address)
            p.broken = "reads a value that differs between the waves of its class in VGPR index mode"
        else:
            try:
                p = self.values.run(w, insn, fn, d, shape[7], atomic, load)
            except (LookupError, ValueError) as exc:
                p = Pending(insn.address)
                p.broken = f"reads a value a member's core does not give ({exc})"
        self.pending[w] = p

    def _member_atomics(self, ev, p, kind: str = "atomic") -> None:
        """The words the members' atomics (or loads) read (no member's plain store may reach them) and, where
        they are not the representative's, each member's addresses (its stores or loads, for the analyses of who
        writes and who polls what)."""
        first = []
        for addrs, size in p.atomics:
            for a in set(addrs.values()):
                self.read_words.update(range(a // 4, (a + size - 1) // 4 + 1))
            first.append(addrs[min(addrs)] if addrs else None)
        mine = [op for op in ev.memops if op.kind == kind]
        rep = mine[0].addresses[min(mine[0].addresses)] if mine and mine[0].addresses else None
        if len(first) == len(self.members.get(ev.wave) or ()) and any(a != rep for a in first):
            (self.member_loads if kind == "load" else self.member_stores)[(ev.wave, ev.pc)] = first

    def _shape_of(self, insn) -> tuple:
        shape = self._shapes.get(insn.address)
        if shape is None or shape[0] is not insn:
            shape = self._shapes[insn.address] = (insn, _shape(insn))
        return shape[1]

    def observe(self, ev) -> None:
        """Every wave's global reads (the words members' own stores must not reach)."""
        for op in ev.memops:
            if op.kind in ("load", "atomic") and op.space in ("global", "generic") and op.addresses:
                size = max(op.size, 4)
                for a in set(op.addresses.values()):
                    self.read_words.update(range(a // 4, (a + size - 1) // 4 + 1))

    def step(self, ev) -> None:
        d = self.dirty.get(ev.wave)
        if d is None or self.broken is not None:
            return
        insn = ev.instruction
        if insn is None:
            return
        p = self.pending.pop(ev.wave, None) if self.pending else None
        if p is not None and p.pc == ev.pc:  # the members ran it too: what differs now
            why = self.values.apply(ev.wave, d, p)
            if why is None and p.atomics:
                self._member_atomics(ev, p, "load" if self._shape_of(insn)[9] else "atomic")
        else:
            why = _check(d, insn, self._shape_of(insn), ev, self)
        if why:
            self.broken = f"{insn.text.strip()} at {ev.pc:#x} {why}"
            raise SymmetryBroken(self.broken)  # no need to run on: the whole dispatch is replayed instead

    def stores_unread(self) -> str | None:
        """After the replay: None when no member's store reaches a word some replayed wave read, else why not.
        (The replayed waves read few words; the members store to many: each member store's first and last word
        is looked up among the sorted read words, with no set of the members' words ever built.)"""
        if not self.member_words or not self.read_words:
            return None
        read = np.sort(np.fromiter(self.read_words, dtype=np.uint64, count=len(self.read_words)))
        for first, last in self.member_words:
            lo = np.searchsorted(read, first, side="left")
            hi = np.searchsorted(read, last, side="right")
            hit = np.flatnonzero(hi > lo)
            if hit.size:
                word = int(read[lo[hit[0]]])
                return (f"stores to global memory at {word * 4:#x}, where a member of its class stores and a "
                        "replayed wave reads")
        return None

    def member_addresses(self, d: _Dirty, insn, shape: tuple, ev, op) -> str | None:
        """Each member's addresses for a store whose address registers differ between the waves of the class:
        recorded in member_words / member_stores, or why that cannot be shown."""
        from amddbg.emu.memory import PAGE, classify_flat

        reads, store_addr = shape[2], shape[5]
        addr_ops = [reads[i] for i in sorted(store_addr)]
        w = ev.wave
        members = self.members.get(w) or []
        if not members:
            return None
        lanes = sorted(op.addresses)
        key = (w, ev.pc, tuple(lanes), tuple(op.addresses[ln] for ln in lanes), self.values.version.get(w, 0),
               tuple((k, lo, hi, _dirty_sig(d, k, lo, hi)) for k, lo, hi, *_t in addr_ops))
        got = self._store_cache.get(key)
        if got is None:
            try:
                self.values.load(w, d)
                rep_base = self._base(w, addr_ops, None, lanes, d)
                bases = self._base(w, addr_ops, members, lanes, d)
            except _Unknown as exc:
                got = str(exc)
            except (LookupError, ValueError) as exc:
                got = f"stores through a register a member's core does not give ({exc})"
            else:
                rep_addr = np.array([op.addresses[ln] for ln in lanes], dtype=np.uint64)
                addrs = rep_addr[None, :] + (bases - rep_base[None, :])  # (uint64: wraps as the hardware adds)
                size = max(op.size, 4)
                got = self._accept(addrs, size, op.space, PAGE, classify_flat)
                if not isinstance(got, str):
                    self.member_stores[(w, ev.pc)] = addrs[:, 0].tolist()
                    self.member_words.append(got)  # (once per distinct store: a loop repeats it)
            self._store_cache[key] = got
        if isinstance(got, str):
            return got
        return None

    def _accept(self, addrs: np.ndarray, size: int, space: str, page: int, classify):
        """The members' store addresses, checked: global memory, mapped (else that member would fault). Returns
        (first word, last word) arrays of the stores, or why not."""
        flat = addrs.ravel()
        if space == "generic":
            for a in np.unique(flat).tolist():
                if classify(int(a))[0] != "global":
                    return "stores through a flat address that is not global memory for a member of its class"
        pages = self.memory.pages if self.memory is not None else None
        if pages is not None and flat.size:
            lo, hi = int(flat.min()) // page, (int(flat.max()) + size - 1) // page
            # every page of the range mapped (the common case: one buffer) or, else, each page a store touches
            if hi - lo > 4096 or any(pages.get(pg) is None for pg in range(lo, hi + 1)):
                for pg in np.unique(np.concatenate([flat // page, (flat + size - 1) // page])).tolist():
                    if pages.get(int(pg)) is None:
                        return (f"stores where a member of its class would fault ({int(pg) * page:#x} is not "
                                "mapped memory)")
        return (flat // np.uint64(4)).astype(np.uint64), ((flat + np.uint64(size - 1)) // np.uint64(4)).astype(
            np.uint64)

    def _regs_of(self, w, kind, lo: int, hi: int, members, lanes, d: _Dirty) -> np.ndarray:
        """Register values as the member(s) hold them now: rows lo..hi-1, (members x rows x lanes) for VGPRs or
        (members x rows) for SGPRs; members=None: the representative's."""
        if kind is OperandKind.SGPR:
            rep = np.array([int(w.s[r]) for r in range(lo, hi)], dtype=np.uint64)
            if members is None:
                return rep
            out = np.repeat(rep[None, :], len(members), axis=0)
            for j, r in enumerate(range(lo, hi)):
                if r in d.sgprs:
                    out[:, j] = self.values.sgpr(w, r)
            return out
        if kind is OperandKind.VGPR:
            rep = np.array([[int(w.v[r][ln]) for ln in lanes] for r in range(lo, hi)], dtype=np.uint64)
            if members is None:
                return rep
            out = np.repeat(rep[None, :, :], len(members), axis=0)
            for j, r in enumerate(range(lo, hi)):
                mask = d.vgprs.get(r, 0)
                cols = [i for i, ln in enumerate(lanes) if mask >> ln & 1]
                if not cols:
                    continue
                rows = self.values.vgpr(w, r)
                out[:, j, cols] = rows[:, [lanes[i] for i in cols]].astype(np.uint64)
            return out
        raise _Unknown("stores through an address register of a kind the symmetry argument does not follow")

    def _base(self, w, addr_ops, members, lanes, d: _Dirty) -> np.ndarray:
        """Per lane the address registers' value: a 64-bit VGPR pair, or a 64-bit SGPR pair plus a 32-bit VGPR."""
        kinds = [(k, lo, hi) for k, lo, hi, *_t in addr_ops]
        if len(kinds) == 1 and kinds[0][0] is OperandKind.VGPR and kinds[0][2] - kinds[0][1] == 2:
            v = self._regs_of(w, *kinds[0], members, lanes, d)
            return v[..., 0, :] | (v[..., 1, :] << np.uint64(32))
        if (len(kinds) == 2 and kinds[0][0] is OperandKind.VGPR and kinds[0][2] - kinds[0][1] == 1
                and kinds[1][0] is OperandKind.SGPR and kinds[1][2] - kinds[1][1] == 2):
            v = self._regs_of(w, *kinds[0], members, lanes, d)[..., 0, :]
            s = self._regs_of(w, *kinds[1], members, lanes, d)
            s64 = s[..., 0] | (s[..., 1] << np.uint64(32))
            return v + s64[..., None]
        raise _Unknown("stores through an address form the symmetry argument does not follow")


class _Unknown(Exception):
    pass


def _dirty_sig(d: _Dirty, kind, lo: int, hi: int) -> tuple:
    if kind is OperandKind.SGPR:
        return tuple(r in d.sgprs for r in range(lo, hi))
    if kind is OperandKind.VGPR:
        return tuple(d.vgprs.get(r, 0) for r in range(lo, hi))
    return ()


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
    # a plain vector store to global memory: its reads are vaddr, vdata[, saddr] in that order
    store_addr = frozenset(i for i in range(len(reads)) if i != 1) if name.startswith(STORES) and reads else None
    from amddbg.replay.symvalues import followable, global_atomic, global_load

    # arithmetic the members can run too (symvalues), the VGPR rows it names (read or written), a global atomic
    follow = followable(insn) and not name.startswith(WAVE_DEPENDENT)
    rows = frozenset(r for k, lo, hi, *_t in reads + writes if k is OperandKind.VGPR for r in range(lo, hi))
    return (name.startswith(WAVE_DEPENDENT), cross, reads, writes, partial, store_addr, follow, rows,
            global_atomic(insn), global_load(insn))


def _dirty_reads(d: _Dirty, shape: tuple, exec_: int):
    """(index into reads, why) for each register the instruction reads that some member holds differently."""
    cross, reads = shape[1], shape[2]
    for i, (kind, lo, hi, *_text) in enumerate(reads):
        why = None
        if kind is OperandKind.SGPR:
            if d.sgprs and not d.sgprs.isdisjoint(range(lo, hi)):
                why = f"reads s{lo}, which differs between the waves of its class"
        elif kind is OperandKind.VGPR or kind is OperandKind.AGPR:
            rows = d.vgprs if kind is OperandKind.VGPR else d.acc
            if rows:
                for r in range(lo, hi):
                    mask = rows.get(r, 0)
                    if mask and (cross or mask & exec_):
                        why = (f"reads {'v' if kind is OperandKind.VGPR else 'a'}{r}, which differs between the "
                               "waves of its class")
                        break
        elif kind is OperandKind.TTMP and d.ttmps:
            why = "reads a trap temporary, which differs between the waves of its class"
        if why is not None:
            yield i, why


def _dirty_read(d: _Dirty, shape: tuple, exec_: int) -> str | None:
    """Why the instruction must be run for the members too (symvalues): it reads a register some member holds
    differently, or writes one only in part (a dirty destination counts: v_fmac, v_writelane, EXEC-masked lanes,
    v_swap's second operand)."""
    for _i, why in _dirty_reads(d, shape, exec_):
        return why
    for kind, lo, hi, *_text in shape[3]:
        if kind is OperandKind.SGPR and d.sgprs and not d.sgprs.isdisjoint(range(lo, hi)):
            return "writes part of a register that differs"
        if kind is OperandKind.VGPR and d.vgprs and any(r in d.vgprs for r in range(lo, hi)):
            return "writes part of a register that differs"
        if kind is OperandKind.TTMP and d.ttmps:
            return "writes a trap temporary"
    return None


_SPECIAL_OK = ("s_waitcnt", "s_wait_", "s_nop", "s_delay_alu", "s_clause", "s_branch", "s_cbranch_exec",
               "s_endpgm", "s_sleep", "s_barrier", "s_inst_prefetch", "s_set_inst_prefetch")


def _special_read(d: _Dirty, insn) -> str | None:
    """A VCC, SCC or M0 the members computed differently, read by an instruction they do not run (a branch, a
    memory instruction that takes M0): the members would not do what the representative does."""
    name = insn.mnemonic
    if "scc" in d.special and name.startswith("s_cbranch_scc"):
        return "branches on SCC, which differs between the waves of its class"
    if "vcc" in d.special and (name.startswith("s_cbranch_vcc") or any(
            o.kind is OperandKind.SPECIAL and o.text.startswith("vcc") for o in insn.operands)):
        return "reads VCC, which differs between the waves of its class"
    if "m0" in d.special and not name.startswith(_SPECIAL_OK):
        return "runs with an M0 that differs between the waves of its class"
    if d.special and not name.startswith(_SPECIAL_OK) and insn.memory is None and insn.encoding in (
            "SOPP", "SOP1", "SOPK"):
        return "runs a scalar control instruction while VCC or SCC differ between the waves of its class"
    return None


def _check(d: _Dirty, insn, shape: tuple, ev, tracker: Tracker | None = None) -> str | None:
    """The instruction ran for the representative only: does it break the argument? Else forget the registers
    it overwrote with what every member computes alike."""
    dependent, cross, reads, writes, partial, store_addr = shape[:6]
    if dependent:
        return "gives each wave its own value"
    if d.special:
        why = _special_read(d, insn)
        if why:
            return why
        if shape[6]:  # (arithmetic while VCC/SCC/M0 differ is run for the members: `pre` did not)
            return "computes from VCC, SCC or M0, which differ between the waves of its class"
    exec_ = ev.exec_before
    addr_differs = data_differs = False
    for i, why in _dirty_reads(d, shape, exec_):
        if store_addr is None or tracker is None:
            return why
        if i in store_addr:
            addr_differs = True
        else:
            data_differs = True
    for op in ev.memops:
        if op.kind == "store" and store_addr is not None and tracker is not None and op.space in ("global",
                                                                                                 "generic"):
            from amddbg.emu.memory import classify_flat

            if op.space == "generic" and any(classify_flat(a)[0] != "global" for a in op.addresses.values()):
                return "touches its private (scratch) memory or LDS through a flat address"
            if addr_differs:  # each member's own words: mapped, and (after the replay) read by no wave
                why = tracker.member_addresses(d, insn, shape, ev, op)
                if why:
                    return why
                continue
            if data_differs:
                return "stores values that differ between the waves of its class to the same address"
            continue  # the same bytes to the same address, right after the representative: no one can tell

        if op.space == "private":
            return "touches its private (scratch) memory"
        if op.space == "generic" and op.addresses:
            from amddbg.emu.memory import classify_flat

            if any(classify_flat(a)[0] == "private" for a in op.addresses.values()):
                return "touches its private (scratch) memory"
        if op.kind in ("store", "atomic") and op.space in ("global", "generic", "scalar"):
            return "writes global memory (its class's other waves would write too)"
    if partial:  # (the rest of the register keeps its value: one that differs would be half the members' own)
        for kind, lo, hi, *_t in writes:
            if (kind is OperandKind.SGPR and d.sgprs and not d.sgprs.isdisjoint(range(lo, hi))) or (
                    kind is OperandKind.VGPR and any(r in d.vgprs for r in range(lo, hi))) or (
                    kind is OperandKind.AGPR and any(r in d.acc for r in range(lo, hi))):
                return "writes part of a register that differs between the waves of its class"
        return None
    # the registers it writes now hold what every member computes the same way (not a partial or conditional
    # write: the rest of the register keeps what it held)
    values = tracker.values if tracker is not None else None
    for kind, lo, hi, text in writes:
        if text.endswith((".h", ".l")):
            continue
        if kind is OperandKind.SGPR:
            if d.sgprs:
                d.sgprs.difference_update(range(lo, hi))
                if values is not None:
                    values.forget_sgprs(ev.wave, range(lo, hi))
        elif kind is OperandKind.VGPR or kind is OperandKind.AGPR:
            rows = d.vgprs if kind is OperandKind.VGPR else d.acc
            for r in range(lo, hi):
                if r in rows:
                    rows[r] &= ~exec_
                    if not rows[r]:
                        del rows[r]
                        if values is not None and kind is OperandKind.VGPR:
                            values.forget_vgpr(ev.wave, r)
        elif kind is OperandKind.TTMP and d.ttmps:
            return "writes a trap temporary, which differs between the waves of its class"
    return None
