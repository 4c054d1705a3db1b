"""Rebuild an emulator `Machine` from a core, so replay can run the stuck dispatch's waves forward.

The core gives everything a wave needs to continue: the code object (from the runtime's link map, at its load
address), the dispatch packet (grid, workgroup size, kernarg address, private segment size), each wave's saved
registers (SGPRs with the VCC/flat_scratch alias slots, VGPRs, AccVGPRs, EXEC, M0, MODE, STATUS.SCC, TTMPs), its
scratch slot (the debugger's `private_wave` base) and its workgroup's LDS. Global memory is *not* copied: pages are
read from the core the first time the emulator touches them (cores can be 100+ GB), and a page the core does not
hold is unmapped, so an access to it is reported, never invented.

Waves that ended before the dump are absent from a core; their workgroup still counts them (work-group size /
wave size), so they are recreated as ended waves — they drop out of the workgroup barrier as the hardware's ended
waves do.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from amddbg.amdgpu import AddressSpace
from amddbg.emu.limits import check as check_budget
from amddbg.emu.machine import ARCHITECTED_FLAT_SCRATCH, Machine, Workgroup, _startswith_any, family_of
from amddbg.emu.memory import LDS, PAGE
from amddbg.emu.wave import ENDED, FAULTED, READY, TRAPPED, WAITING_BARRIER, Wave
from amddbg.errors import AmddbgError, Unavailable
from amddbg.session.threads import WaveState

# Larger than any AMD GPU's LDS per workgroup (64 KiB GFX9-GFX11, 160 KiB gfx950, 320 KiB gfx1250): a
# packet asking for more is damaged, and replay would allocate it once per workgroup.
LDS_PLAUSIBLE = 1 << 20


class ReplayUnavailable(AmddbgError):
    """The core lacks something replay needs (the dispatch packet, the code object, the kernel descriptor)."""


class CorePages(dict):
    """`GlobalMemory.pages` that reads a page from the core the first time it is touched."""

    def __init__(self, memory, pages: dict, zero_page=None) -> None:
        super().__init__(pages)
        self._memory = memory
        self._zero_page = zero_page  # GlobalMemory.zero_page: lazily mapped zero ranges the core lacks
        self._absent: set[int] = set()
        self.partial: set[int] = set()  # pages of which only some 256-byte chunks are in the core

    def overlay_core(self) -> None:
        """Pages the machine mapped from the code object's file (its loadable segments: code, constants, the
        `__device__` globals' initial values) take the bytes the core holds for them, 256 bytes at a time where
        the core has them: a global the dispatch wrote (`g_go = 1`) has that value in replay, not its initial one."""
        for key, page in list(dict.items(self)):
            base = key * PAGE
            for off in range(0, PAGE, 256):
                try:
                    chunk = self._memory.read(AddressSpace.GLOBAL, base + off, 256)
                except (Unavailable, AmddbgError, ValueError, OverflowError):
                    continue
                if len(chunk) == 256:
                    page[off:off + 256] = chunk

    def _fetch(self, key: int) -> bytearray | None:
        if key in self._absent or key < 0:
            return None
        base = key * PAGE
        try:
            data = bytearray(self._memory.read(AddressSpace.GLOBAL, base, PAGE))
        except (Unavailable, AmddbgError, ValueError, OverflowError):
            data = bytearray(PAGE)
            got = False
            for off in range(0, PAGE, 256):
                try:
                    data[off:off + 256] = self._memory.read(AddressSpace.GLOBAL, base + off, 256)
                    got = True
                except (Unavailable, AmddbgError, ValueError, OverflowError):
                    pass
            if not got:
                zero = self._zero_page(key) if self._zero_page is not None else None
                if zero is None:
                    self._absent.add(key)
                return zero
            self.partial.add(key)
        dict.__setitem__(self, key, data)
        return data

    def get(self, key, default=None):
        try:
            return dict.__getitem__(self, key)
        except KeyError:
            data = self._fetch(key)
            return default if data is None else data

    def __missing__(self, key):
        data = self._fetch(key)
        if data is None:
            raise KeyError(key)
        return data

    def __contains__(self, key) -> bool:
        return dict.__contains__(self, key) or self._fetch(key) is not None


@dataclass
class CoreReplayState:
    """What `machine_from_program` built, and how the machine's waves map back to the core's threads."""

    machine: Machine
    dispatch: object
    threads: dict = field(default_factory=dict)  # emulator Wave -> session WaveThread
    notes: list[str] = field(default_factory=list)


def stuck_dispatch(program, dispatch: int | None = None):
    """The dispatch to replay: the one named (ROCgdb handle or AQL packet id), else the one with most waves."""
    waves = [t for t in program.waves if t.dispatch is not None]
    if dispatch is not None:
        waves = [t for t in waves if dispatch in (t.dispatch_handle, t.dispatch_id)]
    if not waves:
        raise ReplayUnavailable("no wave of the core belongs to a dispatch whose packet is in the core"
                                + (f" (dispatch {dispatch})" if dispatch is not None else ""))
    counts: dict = {}
    for t in waves:
        counts.setdefault(id(t.dispatch), []).append(t)
    return max(counts.values(), key=len)


def machine_from_program(program, *, dispatch: int | None = None, seed: int = 0, only=None) -> CoreReplayState:
    """`only`: rebuild just these workgroups (ids), each at the same position modulo the caches' period
    (`symmetry.LANES_OF_CACHE`) as in the whole dispatch, so it meets the same compute unit's cache (empty
    workgroups pad the gaps); the rest of the dispatch is left out (replay by symmetry)."""
    threads = stuck_dispatch(program, dispatch)
    d = threads[0].dispatch
    if d.packet is None:
        raise ReplayUnavailable("the dispatch packet is not in the core")
    lco = program.code_object_at(threads[0].pc) or program.code_object_at(d.kernel_object or 0)
    if lco is None:
        raise ReplayUnavailable(f"no loaded code object contains the waves' PC {threads[0].pc:#x}")
    m = Machine(lco.codeobj, seed=seed, load_address=lco.load_address)
    m.memory.pages = CorePages(program.core.memory, m.memory.pages, m.memory.zero_page)
    m.memory.pages.overlay_core()
    top = max((k for k in m.memory.pages), default=0) * PAGE
    m.memory.next_alloc = max(m.memory.next_alloc, top + 16 * PAGE)
    kernel = program.dispatch_kernel(d, threads[0].pc)
    state = CoreReplayState(m, d)
    if kernel is None:
        state.notes.append("the dispatch's kernel descriptor is not a kernel of the code object")
    m.kernel = kernel
    grid, block = d.grid_size, d.workgroup_size
    lanes = threads[0].lanes
    m.lanes = lanes
    private = d.packet.get("private_segment_size", 0)
    m.dispatch_info = {"kernel": kernel.name if kernel else None, "grid": grid, "block": block,
                       "packet": d.packet_address, "kernarg": d.kernarg_address, "private_size": private,
                       "group_segment_size": d.packet.get("group_segment_size", 0),
                       "kernel_object": d.kernel_object, "scratch": 0, "from_core": True}
    by_group: dict = {}
    for t in threads:
        if t.workgroup is None or t.wave_in_group is None:
            state.notes.append(f"thread {t.number}: no work-group position in the core; not replayed")
            continue
        by_group.setdefault(tuple(t.workgroup), []).append(t)
    processor = m.processor
    family = family_of(processor)
    vgpr_rows = 0
    index = 0
    lds_size = max(int(m.dispatch_info["group_segment_size"] or 0), 0)  # a u32 from the core's packet
    if lds_size > LDS_PLAUSIBLE:
        raise ReplayUnavailable(f"the dispatch packet's group_segment_size is {lds_size} bytes, more LDS than any "
                                f"AMD GPU has (at most {LDS_PLAUSIBLE >> 10} KiB here)")
    if only is not None:
        from amddbg.replay.symmetry import LANES_OF_CACHE

        only = set(only)
    rebuilt = len(by_group) if only is None else len(only)
    check_budget(lds_size * rebuilt, f"LDS for {rebuilt} workgroups ({lds_size} bytes each)")
    for gi, (g, ts) in enumerate(sorted(by_group.items(), key=lambda kv: (kv[0][2], kv[0][1], kv[0][0]))):
        if only is not None:
            if g not in only:
                continue
            while len(m.groups) % LANES_OF_CACHE != gi % LANES_OF_CACHE:  # keep its compute unit and shader array
                m.groups.append(Workgroup((-1, -1, -1), (0, 0, 0), LDS(0)))
        size = tuple(min(block[i], grid[i] - g[i] * block[i]) for i in range(3))
        items = size[0] * size[1] * size[2]
        expected = -(-items // lanes)
        lds = LDS(lds_size)
        wg = Workgroup(g, size, lds)
        m.groups.append(wg)
        leader = ts[0]
        try:
            data = leader.wave.memory.read(AddressSpace.LOCAL, 0, len(lds.data)) if len(lds.data) else b""
            lds.data[:len(data)] = data
        except AmddbgError as exc:
            state.notes.append(f"workgroup {g}: LDS not in the core ({exc}); replay starts it zeroed")
        present = {t.wave_in_group: t for t in ts}
        for wi in range(max(expected, max(present) + 1)):
            t = present.get(wi)
            rows = len(t.registers.vgprs) if t is not None and t.wave.vgprs_available else 0
            vgpr_rows = max(vgpr_rows, rows)
            w = Wave(family=family, processor=processor, lanes=lanes, vgprs=max(rows, 1), workgroup=g,
                     wave_in_group=wi, group_key=len(m.groups) - 1, index=index)
            w.scratch_id = _dispatch_index(grid, block, lanes, g) + wi  # gfx1250 flat scratch names it so
            index += 1
            w.private_size = private
            if t is None:
                w.state, w.reason = ENDED, "ended before the core was written"
            else:
                _load_wave(w, t, m, state)
                state.threads[w] = t
                if w.state == WAITING_BARRIER:
                    wg.arrived.add(wi)
            wg.waves.append(w)
            m.waves.append(w)
    if not state.threads:
        raise ReplayUnavailable("no wave of the dispatch could be rebuilt from the core")
    if processor.startswith("gfx12"):
        _barrier_complete(m, state)
    if processor.startswith("gfx125"):
        _gfx125_state(m, program, only)
    slot = -(-private * lanes // 1024) * 1024  # the scratch slot granule; each wave's slot is private to it
    m.private_ranges = [(w.scratch_base, w.scratch_base + slot) for w in m.waves if private and w.scratch_base]
    return state


def clustered(threads) -> bool:
    """Whether the dispatch of `threads` ran in workgroup clusters (GFX12.5: a wave's TTMP6 names a cluster of
    more than one workgroup)."""
    for t in threads:
        w = t.wave
        if getattr(w.family, "name", "") == "gfx125" and w.ttmps_valid and w.ttmps[6] >> 24 & 15:
            return True
    return False


def _barrier_complete(m: Machine, state: CoreReplayState) -> None:
    """GFX12 splits the workgroup barrier into `s_barrier_signal -1` and `s_barrier_wait -1`; a wave the core caught
    between the two has arrived. With STATE_PRIV.BARRIER_COMPLETE (RDNA4 ISA 3.4.2: "the barrier has completed but
    the wave has not yet waited on it") its arrival belongs to the completed phase (the other waves went on) and its
    wait must not block; without it, the arrival counts in the current phase, beside the waves waiting. Replaying
    either as 'not arrived' invents a deadlock (a wait without an arrival, one arrival short)."""
    from amddbg.emu.barriers import WORKGROUP
    from amddbg.emu.coredump import STATE_PRIV_BARRIER_COMPLETE

    addrs = None
    for w, t in state.threads.items():
        if w.state != READY:
            continue
        priv = t.wave.hwreg("state_priv") if hasattr(t.wave, "hwreg") else None
        bars = None
        if priv and priv & STATE_PRIV_BARRIER_COMPLETE:
            bars = m.barriers_of(m.groups[w.group_key])
            bars.arrive_phase[(w.wave_in_group, WORKGROUP)] = bars.objects[WORKGROUP].phase - 1
            continue
        addrs = addrs if addrs is not None else sorted(m.instructions)
        if _between_signal_and_wait(m, addrs, w.pc):
            g = m.groups[w.group_key]
            bars = m.barriers_of(g)
            g.arrived.add(w.wave_in_group)
            bars.arrive_phase[(w.wave_in_group, WORKGROUP)] = bars.objects[WORKGROUP].phase


def _barrier_operand(insn) -> int | None:
    """The barrier id of `s_barrier_signal/_wait ID` (a signed 16-bit immediate: -1 the workgroup barrier)."""
    if not insn.operands:
        return None
    v = int(insn.operands[0].value or 0) & 0xFFFF
    return v - 0x10000 if v >> 15 else v


def _between_signal_and_wait(m: Machine, addrs: list, pc: int, reach: int = 64) -> bool:
    """Whether `pc` lies in straight-line code after an `s_barrier_signal[_isfirst] -1` and before its
    `s_barrier_wait -1` (no branch, other barrier instruction or end between): the wave has signalled."""
    from bisect import bisect_left

    i = bisect_left(addrs, pc)
    if i >= len(addrs) or addrs[i] != pc:
        return False

    def stops(insn) -> bool:
        mn = insn.mnemonic
        return mn.startswith("s_barrier") or getattr(insn, "is_branch", False) or mn in ("s_endpgm", "s_setpc_b64",
                                                                                          "s_swappc_b64")
    for a in addrs[i:i + reach]:
        insn = m.instructions[a]
        if insn.mnemonic == "s_barrier_wait" and _barrier_operand(insn) == -1:
            break
        if stops(insn):
            return False
    else:
        return False
    for a in reversed(addrs[max(0, i - reach):i]):
        insn = m.instructions[a]
        if insn.mnemonic.startswith("s_barrier_signal") and _barrier_operand(insn) == -1:
            return True
        if stops(insn):
            return False
    return False


def _gfx125_state(m: Machine, program, only) -> None:
    """GFX12.5: a cluster dispatch's shape comes back from the waves' TTMP6 (amddbg/emu/clusters.py), with
    HW_REG_IB_STS2, which the code reads to rebuild its workgroup id; the named and cluster barrier objects come
    back from the `barrier_state` note `amddbg run --core` writes (amddbg/core/emunotes.py). Without that note (a
    core the hardware wrote) a wave waiting on a named or cluster barrier cannot be continued: the core holds the
    waves, not the barriers' expected and arrive counts, and replaying the wait as a workgroup barrier would answer
    a different question."""
    from amddbg.emu import clusters
    from amddbg.emu.barriers import NAMED_IDS

    live = [w for w in m.waves if w.state != ENDED]
    shape = next((clusters.from_registers(w.ttmp[6]) for w in live if w.ttmp[6] >> 24 & 15), None)
    if shape is not None:
        if only is not None:
            raise ReplayUnavailable("a cluster dispatch is replayed whole, not by symmetry")
        m.clusters = clusters.Clusters(shape)
        for w in live:
            m.clusters.set_registers(w)
    core = getattr(program, "core", None)
    state = next((n for n in (core.emulator_notes if core is not None else []) if n.get("kind") == "barrier_state"),
                 None)
    waiting = {}
    for w in live:
        if w.state != WAITING_BARRIER:
            continue
        insn = m.instructions.get(w.pc)
        bid = _barrier_operand(insn) if insn is not None and insn.mnemonic == "s_barrier_wait" else None
        if bid == -1:
            continue
        if state is None:
            what = "the cluster barrier -3" if bid == -3 else f"named barrier {bid}" if bid else "a barrier"
            raise ReplayUnavailable(f"wave {w.wave_in_group} of workgroup {w.workgroup} waits on {what}: the core "
                                    "holds no barrier arrive counts (a core `amddbg run --core` writes has them), so "
                                    "replay cannot continue it")
        waiting[(tuple(w.workgroup), w.wave_in_group)] = w
    if state is None:
        return
    by_id = {tuple(g.id): g for g in m.groups}
    for rec in state["workgroups"]:
        g = by_id.get(tuple(rec["workgroup"]))
        if g is None:
            continue
        bars = m.barriers_of(g)
        for b in rec["named"]:
            o = bars.objects[b["id"]]
            o.expected, o.initialized = b["expected"], b["initialized"]
            o.arrivals, o.members = set(b["arrivals"]), set(b["members"])
            for wi in b["arrivals"]:
                bars.arrive_phase[(wi, b["id"])] = o.phase
        bars.joined = {wi: bid for wi, bid in rec["joined"] if bid in NAMED_IDS or bid == 0}
        for wi, bid in rec["waiting"]:
            w = waiting.get((tuple(g.id), wi))
            if w is None or bid == -1:
                continue
            g.arrived.discard(wi)  # (machine_from_program counted it at the workgroup barrier)
            bars.waiting[wi] = bid
            if bid == -3 and m.clusters is not None:
                cb = m.clusters.barrier(g.id)
                cb.waiting.add(w.index)
                cb.waits[w.index] = cb.phase
    if m.clusters is not None:
        for rec in state["clusters"]:
            cb = m.clusters.barriers.setdefault(tuple(rec["cluster"]), clusters.ClusterBarrier(m.clusters.size))
            cb.expected = rec["expected"]
            cb.arrivals = {tuple(a) for a in rec["arrivals"]}
            cb.dropped = {tuple(a) for a in rec["dropped"]}


def _load_wave(w: Wave, t, m: Machine, state: CoreReplayState) -> None:
    regs = t.registers
    core = t.wave
    s = list(core.sgpr_slots)  # the slots, alias slots included (flat_scratch at s102 of a 112-SGPR gfx9 wave)
    w.s[:len(s)] = [x & 0xFFFFFFFF for x in s[:128]]
    try:
        w.vcc = regs.vcc
    except AmddbgError:
        w.vcc = 0
        state.notes.append(f"thread {t.number}: VCC is not in the saved SGPRs; replay starts it at 0")
    if w.family == "gfx9" and len(s) >= 104:
        w.flat_scratch = s[102] | s[103] << 32
    if core.vgprs_available:
        w.v = np.array(core.vgprs, dtype=np.uint32).reshape(-1, w.lanes) if core.vgprs else w.v
    else:
        state.notes.append(f"thread {t.number}: the wave released its VGPRs (STATUS.no_vgprs)")
    acc = core.accvgprs
    if acc:
        w.a = np.array(acc, dtype=np.uint32).reshape(-1, w.lanes)
    w.exec = t.exec
    w.m0 = core.m0
    w.mode = core.mode
    w.status = core.status
    w.scc = core.status & 1
    w.trapsts = core.trapsts or 0
    w.ttmp = list(core.ttmps) + [0] * (16 - len(core.ttmps))
    w.pc = t.pc
    w.trap_id = core.trap_id or 0
    if w.private_size:
        try:
            base, _size = core.memory.scratch()
            w.scratch_base = base
            if _startswith_any(w.processor, ARCHITECTED_FLAT_SCRATCH):  # FLAT_SCRATCH is the wave's slot
                w.flat_scratch = base
        except AmddbgError as exc:
            state.notes.append(f"thread {t.number}: scratch slot unknown ({exc}); private accesses will fault")
            w.scratch_base = 1 << 62  # unmapped: an access is reported, never invented
    st = t.state
    if st is WaveState.AT_BARRIER:
        insn = m.instructions.get(t.pc)
        w.state = WAITING_BARRIER
        w.resume_pc = t.pc + (insn.size if insn is not None else 4)
    elif st is WaveState.TRAPPED:
        w.state, w.reason = TRAPPED, t.state_reason
    elif st is WaveState.FAULTED:
        w.state, w.reason = FAULTED, t.state_reason
    else:
        w.state = READY


def _dispatch_index(grid, block, lanes: int, group) -> int:
    """The dispatch position of `group`'s first wave in the emulator's order (workgroups x fastest, then y, z; each
    with ceil(items / lanes) waves): what gfx1250's flat scratch addresses in the core's registers and stacks name
    a wave by (emu/memory.py flat_scratch_base), so a replay that rebuilds only some waves still resolves them."""
    n = [(grid[d] + block[d] - 1) // block[d] for d in range(3)]
    gx, gy, gz = group
    before = 0
    for z in range(gz + 1):
        for y in range(n[1] if z < gz else gy + 1):
            for x in range(n[0] if (z < gz or y < gy) else gx):
                items = 1
                for d, c in enumerate((x, y, z)):
                    items *= min(block[d], grid[d] - c * block[d])
                before += (items + lanes - 1) // lanes
    return before
