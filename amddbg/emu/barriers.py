"""What an emulated wave can be blocked on besides `s_sleep`: barrier objects and memory wait counters.

Barriers follow the execution model of the LLVM AMDGPU manual (`amdgpu-execution-synchronization.rst`):
a barrier *object* has an *expected count* and an *arrive count*; *init* sets the expected count, *drop*
lowers it, *arrive* raises the arrive count, and when the two are equal the barrier completes (the arrive
count goes back to zero and every wave *waiting* on it may go on). Per generation:

* GFX6-11 (gfx9, gfx10, gfx11 here): one *workgroup barrier* (id -1) that the hardware initialises to the
  number of waves of the workgroup; `s_barrier` is arrive-then-wait; a wave that ends drops it.
* GFX12: split barriers. `s_barrier_signal -1` arrives, `s_barrier_wait -1` waits (and
  `s_barrier_signal_isfirst` sets SCC for the first arrival of a phase). -2 is the trap handler's barrier
  (privileged: a shader that names it is a misuse).
* GFX12.5 (gfx1250/gfx1251): named barriers 1..16 (`s_barrier_init`, `_join`, `_leave`, `_signal`, ids from
  M0[4:0] or an immediate, the expected count from M0[22:16]) and the NULL barrier 0. `s_barrier_wait` on a
  named id waits on the last named barrier the wave joined; an ending wave does **not** drop named barriers.
  Cluster barriers (-3, -4) belong to a cluster's workgroups together: amddbg/emu/clusters.py.

What the model calls undefined behaviour is recorded as a *misuse* (a dict: kind, workgroup, wave, pc,
barrier, detail) and execution goes on deterministically; a misuse never raises.

Wait counters: every memory instruction is issued with a completion time (`LATENCY`, in machine clocks) on
the counters its generation gives it (`counters_for`); `s_waitcnt`, `s_waitcnt_vscnt` and GFX12's
`s_wait_*` block the wave until each named counter is at most its value. Results are written at issue.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

WORKGROUP = -1
TRAP_WORKGROUP = -2
CLUSTER_USER = -3
CLUSTER_TRAP = -4
NULL_BARRIER = 0
NAMED_IDS = range(1, 17)

WAITING_COUNTERS = "at waitcnt"  # wave state: blocked in s_waitcnt / s_wait_* until its counters allow

# Deterministic latencies in machine clocks (the machine clock advances by one per executed instruction).
LATENCY = {"smem": 40, "lds": 24, "vmem_load": 160, "vmem_store": 96, "message": 8}

# Counters whose decrements can come back out of issue order (the ISA: scalar memory returns out of order,
# and lgkmcnt mixes LDS, scalar memory and messages); the others return in the order they were issued.
OUT_OF_ORDER = frozenset({"lgkmcnt", "kmcnt"})

_MESSAGES = frozenset({"s_sendmsg_rtn_b32", "s_sendmsg_rtn_b64", "s_memtime", "s_memrealtime", "s_getreg_b64"})
_VMEM_SPACES = frozenset({"global", "flat", "scratch", "buffer"})


def has_named_barriers(processor: str) -> bool:
    """GFX12.5 (gfx1250, gfx1251) has named barriers 1..16 and the NULL barrier (the manual's id table)."""
    return processor.startswith("gfx125")


def counters_for(family: str, insn) -> list[tuple[str, str]]:
    """(counter, latency kind) pairs an instruction increments, per generation.

    GFX9: vmcnt (vector memory loads and stores), lgkmcnt (LDS, scalar memory, messages; FLAT also, since it
    may address LDS). GFX10/11: stores and atomics without return move to vscnt. GFX12: loadcnt, storecnt,
    dscnt, kmcnt (and samplecnt/bvhcnt, which no compute kernel here issues). Cache invalidates and
    write-backs (no load/store flag) increment nothing here."""
    mem = insn.memory
    if mem is None:
        if insn.mnemonic in _MESSAGES:
            return [("kmcnt" if family == "gfx12" else "lgkmcnt", "message")]
        return []
    space = mem.space.value
    if "async_to_lds" in insn.mnemonic:  # GFX12.5 async copies to LDS: ASYNCcnt (semantics/asynclds.py)
        return [("asynccnt", "vmem_load")]
    if space == "scalar":
        return [("kmcnt" if family == "gfx12" else "lgkmcnt", "smem")]
    if space in ("lds", "gds"):
        return [("dscnt" if family == "gfx12" else "lgkmcnt", "lds")]
    if space not in _VMEM_SPACES or not (mem.is_load or mem.is_store or mem.is_atomic):
        return []
    loads = mem.is_load or (mem.is_atomic and mem.returns)
    kind = "vmem_load" if loads else "vmem_store"
    if family == "gfx12":
        out = [("loadcnt" if loads else "storecnt", kind)]
    elif family == "gfx9" or loads:
        out = [("vmcnt", kind)]
    else:
        out = [("vscnt", kind)]
    if space == "flat":
        out.append(("dscnt" if family == "gfx12" else "lgkmcnt", kind))
    return out


class WaitCounters:
    """One wave's outstanding memory operations: per counter, the completion clock of each (issue order)."""

    __slots__ = ("pending",)

    def __init__(self) -> None:
        self.pending: dict[str, list[int]] = {}

    def issue(self, counter: str, now: int, latency: int) -> int:
        """Issue one operation at clock `now`; returns its completion clock. In-order counters cannot
        decrement before the operation issued earlier on the same counter has."""
        q = self.pending.setdefault(counter, [])
        if q and q[0] <= now:  # forget what already completed (a wave that never waits keeps a short list)
            q[:] = [t for t in q if t > now]
        done = now + latency
        if counter not in OUT_OF_ORDER and q:
            done = max(done, q[-1])
        q.append(done)
        return done

    def retire(self, now: int) -> None:
        pending = self.pending
        for c in [c for c, q in pending.items() if min(q) <= now]:  # (a counter with nothing done is left as is)
            q = [t for t in pending[c] if t > now]
            if q:
                pending[c] = q
            else:
                del pending[c]

    def outstanding(self, counter: str, now: int) -> int:
        return sum(1 for t in self.pending.get(counter, ()) if t > now)

    def ready_at(self, limits: dict[str, int], now: int) -> int:
        """The clock at which every counter in `limits` is at most its limit (<= now: no wait)."""
        t = now
        pending = self.pending
        for counter, limit in limits.items():
            q = pending.get(counter)
            if not q:
                continue
            if counter in OUT_OF_ORDER:  # (in-order counters' completions are ascending already: see `issue`)
                q = sorted(q)
            if q[-1] <= now:  # all completed: retired here (the counters a wave waits on are the ones it asks)
                del pending[counter]
                continue
            if len(q) <= limit:  # at most `limit` outstanding even counting the completed ones
                continue
            # ascending: at most `limit` remain after the (limit+1)-th latest completes (<= now: already so)
            done = q[len(q) - limit - 1]
            if done > t:
                t = done
        return t

    def state_bytes(self, now: int) -> bytes:
        """Pending completions relative to `now` (hang detection compares states, not absolute clocks)."""
        out = []
        for c in sorted(self.pending):
            rel = [t - now for t in self.pending[c] if t > now]
            if rel:
                out.append(c.encode() + struct.pack(f"<{len(rel)}q", *rel))
        return b"|".join(out)


# ---------------------------------------------------------------------------------------------- barriers


@dataclass
class BarrierObject:
    """One barrier object of a workgroup (the execution model's expected/arrive counts)."""

    id: int
    expected: int
    arrivals: set  # wave_in_group of the waves that arrived in the current phase
    named: bool = False
    initialized: bool = True
    members: set = field(default_factory=set)  # waves that joined (workgroup barrier: every live wave)
    extra: int = 0  # arrivals beyond one per wave in this phase (a misuse, still counted)
    phase: int = 0  # completions so far

    @property
    def arrived(self) -> int:
        return len(self.arrivals) + self.extra


class WorkgroupBarriers:
    """The barrier objects of one workgroup and which wave arrived, joined or waits where.

    The workgroup barrier's arrival set is the machine `Workgroup.arrived` set itself, so code that
    rebuilds a machine from a core (waves saved at a barrier) and adds to that set is seen here."""

    def __init__(self, group, processor: str, family: str) -> None:
        self.group = group
        self.family = family
        self.named = has_named_barriers(processor)
        live = {w.wave_in_group for w in group.waves if w.state != "ended"}
        self.objects: dict[int, BarrierObject] = {
            WORKGROUP: BarrierObject(WORKGROUP, len(live), group.arrived, members=set(live))}
        if family == "gfx12":
            self.objects[TRAP_WORKGROUP] = BarrierObject(TRAP_WORKGROUP, len(live), set(), members=set(live))
        if self.named:
            self.objects[NULL_BARRIER] = BarrierObject(NULL_BARRIER, 0, set(), named=True)
            for i in NAMED_IDS:
                self.objects[i] = BarrierObject(i, 0, set(), named=True, initialized=False)
        self.joined: dict[int, int] = {}  # wave -> the named barrier it joined last (0: unjoined)
        self.arrive_phase: dict[tuple[int, int], int] = {}  # (wave, barrier) -> phase of its pending arrival
        self.waiting: dict[int, int] = {}  # wave -> barrier it waits on

    # -- operations (each returns the misuses it found as (kind, barrier, detail)) -------------------
    def init(self, bid: int, count: int) -> list:
        b = self.objects[bid]
        out = []
        if count <= 0:
            out.append(("init_zero", bid, "s_barrier_init with an expected count of 0"))
        if any(v == bid for v in self.waiting.values()):
            out.append(("init_while_waiting", bid, "s_barrier_init while waves wait on the barrier"))
        b.expected, b.initialized, b.extra = max(count, 0), True, 0
        b.arrivals.clear()
        return out

    def join(self, wave: int, bid: int) -> list:
        self.joined[wave] = bid
        if bid != NULL_BARRIER:
            self.objects[bid].members.add(wave)
        return []

    def leave(self, wave: int) -> tuple[list, int | None]:
        """Drop the named barrier the wave joined last (`s_barrier_leave`)."""
        bid = self.joined.get(wave, NULL_BARRIER)
        if bid == NULL_BARRIER:
            return [("leave_not_joined", None, "s_barrier_leave without a joined named barrier")], None
        del self.joined[wave]
        return self.drop(wave, bid), bid

    def drop(self, wave: int, bid: int) -> list:
        b = self.objects[bid]
        out = []
        if wave in b.arrivals:
            out.append(("arrive_then_drop", bid, "the wave arrived and dropped the barrier before it completed"))
        b.members.discard(wave)
        if b.expected == 0:
            out.append(("drop_below_zero", bid, "drop with an expected count of 0"))
        else:
            b.expected -= 1
        return out

    def arrive(self, wave: int, bid: int, new_expected: int | None = None) -> tuple[list, bool]:
        """Arrive; returns (misuses, first arrival of the phase)."""
        b = self.objects[bid]
        out = []
        if b.named and not b.initialized:
            out.append(("uninitialized", bid, "arrive on a named barrier no s_barrier_init set up"))
        if new_expected:
            if new_expected < b.arrived + 1:
                out.append(("expected_below_arrived", bid,
                            f"new expected count {new_expected} below the arrive count {b.arrived + 1}"))
            b.expected, b.initialized = new_expected, True
        first = b.arrived == 0
        if wave in b.arrivals:
            out.append(("arrive_twice", bid, "a second arrival by the same wave in one phase"))
            b.extra += 1
        else:
            b.arrivals.add(wave)
        self.arrive_phase[(wave, bid)] = b.phase
        return out, first

    def complete_if_due(self, bid: int) -> bool:
        """Complete the barrier when its arrive count reached its expected count (resets the arrivals)."""
        b = self.objects[bid]
        if b.arrived == 0 or b.arrived < b.expected:
            return False
        b.arrivals.clear()
        b.extra = 0
        b.phase += 1
        return True

    def must_wait(self, wave: int, bid: int) -> tuple[list, bool]:
        """(misuses, block?) for a wait: a wave whose arrival's phase already completed goes on."""
        b = self.objects[bid]
        ph = self.arrive_phase.get((wave, bid))
        if ph is None:
            return [("wait_without_arrive", bid, "wait on a barrier the wave did not arrive at")], True
        if ph < b.phase:
            del self.arrive_phase[(wave, bid)]
            return [], False
        return [], True

    # -- views --------------------------------------------------------------------------------------
    def view(self) -> list[dict]:
        out = []
        for bid, b in sorted(self.objects.items()):
            waiting = sorted(w for w, x in self.waiting.items() if x == bid)
            if b.named and not ((b.initialized and bid) or b.members or waiting) or bid == TRAP_WORKGROUP:
                continue
            out.append({"id": bid, "named": b.named, "initialized": b.initialized, "expected": b.expected,
                        "arrived": b.arrived, "arrivals": sorted(b.arrivals), "members": sorted(b.members),
                        "waiting": waiting, "phase": b.phase})
        return out

    def state_bytes(self) -> bytes:
        """Barrier state for hang detection: counts, sets and joins, not the (ever growing) phase numbers."""
        parts = []
        for bid, b in sorted(self.objects.items()):
            parts.append(repr((bid, b.expected, b.initialized, sorted(b.arrivals), b.extra, sorted(b.members))))
        parts.append(repr(sorted(self.joined.items())))
        parts.append(repr(sorted(self.waiting.items())))
        parts.append(repr(sorted((k, self.objects[k[1]].phase > ph) for k, ph in self.arrive_phase.items())))
        return "|".join(parts).encode()
