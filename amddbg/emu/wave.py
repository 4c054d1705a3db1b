"""The architectural state of one emulated wave.

SGPRs are a Python list (scalar ALU is scalar); VGPRs are a numpy array ``(registers, lanes)`` of uint32 so
that a VALU instruction is one array operation. EXEC and VCC are Python ints (bit N = lane N).
"""

from __future__ import annotations

import hashlib
from array import array

import numpy as np

READY, WAITING_BARRIER, SLEEPING, ENDED, TRAPPED, FAULTED, UNSUPPORTED, HALTED = (
    "ready", "at barrier", "sleeping", "ended", "trapped", "faulted", "unsupported", "halted")
STOPPED_STATES = frozenset({ENDED, TRAPPED, FAULTED, UNSUPPORTED, HALTED})


_BOOLS: dict[tuple[int, int], np.ndarray] = {}
_LISTS: dict[tuple[int, int], tuple[int, ...]] = {}
_CACHE_LIMIT = 1 << 14  # distinct (exec, lanes) values kept; a kernel uses a handful, a cap bounds the worst case


def lane_bools(mask: int, lanes: int) -> np.ndarray:
    """`mask` as one bool per lane, shared and read-only: EXEC is converted on nearly every VALU and memory
    instruction, and a kernel only ever has a few distinct EXEC values, so they are converted once."""
    key = (mask, lanes)
    a = _BOOLS.get(key)
    if a is None:
        if len(_BOOLS) >= _CACHE_LIMIT:
            _BOOLS.clear()
        a = np.unpackbits(np.frombuffer((mask & ((1 << lanes) - 1)).to_bytes(lanes // 8 or 1, "little"),
                                        dtype=np.uint8), bitorder="little")[:lanes].astype(bool)
        a.flags.writeable = False
        _BOOLS[key] = a
    return a


_INDEX: dict[tuple[int, int], np.ndarray] = {}


def lane_index(mask: int, lanes: int) -> np.ndarray:
    """The set lanes of `mask` as a shared, read-only index array (cached like `lane_bools`)."""
    key = (mask, lanes)
    a = _INDEX.get(key)
    if a is None:
        if len(_INDEX) >= _CACHE_LIMIT:
            _INDEX.clear()
        a = np.flatnonzero(lane_bools(mask, lanes))
        a.flags.writeable = False
        _INDEX[key] = a
    return a


def lane_tuple(mask: int, lanes: int) -> tuple[int, ...]:
    """The set lanes of `mask` in ascending order, shared (cached like `lane_bools`)."""
    return lane_list(mask, lanes)


def lane_list(mask: int, lanes: int) -> tuple[int, ...]:
    """The set lanes of `mask` in ascending order, shared (cached like `lane_bools`)."""
    key = (mask, lanes)
    t = _LISTS.get(key)
    if t is None:
        if len(_LISTS) >= _CACHE_LIMIT:
            _LISTS.clear()
        t = _LISTS[key] = tuple(i for i in range(lanes) if mask >> i & 1)
    return t


class Wave:
    def __init__(self, *, family: str, processor: str, lanes: int, vgprs: int, workgroup: tuple[int, int, int],
                 wave_in_group: int, group_key: int, index: int) -> None:
        self.family = family  # gfx9 | gfx10 | gfx11 | gfx12
        self.processor = processor
        self.lanes = lanes
        self.mask = (1 << lanes) - 1
        self.s: list[int] = [0] * 128
        self.v = np.zeros((max(vgprs, 1), lanes), dtype=np.uint32)
        self.a = np.zeros((0, lanes), dtype=np.uint32)
        self.exec = 0
        self.vcc = 0
        self.scc = 0
        self.m0 = 0
        self.pc = 0
        self.flat_scratch = 0
        self.mode = 0
        self.status = 0
        self.trapsts = 0
        self.ttmp: list[int] = [0] * 16
        self.state = READY
        self.reason = ""
        self.workgroup = workgroup
        self.wave_in_group = wave_in_group
        self.group_key = group_key  # index of its workgroup in the machine
        self.index = index  # position in the dispatch (scheduling order)
        # gfx1250's flat scratch addresses name a wave by this (memory.flat_scratch_base): its position in the
        # original dispatch, which a replay from a core (that rebuilds only some waves) keeps (replay/fromcore.py)
        self.scratch_id = index
        self.scratch_base = 0
        self.private_size = 0
        self.instructions = 0
        self.blocked_waits = 0  # s_waitcnt issues that blocked (counted in `instructions`; nothing retired)
        self.sleep_until = 0
        self.trap_id = 0
        self.kept_digest = None  # ((instructions, pc, exec, state), fingerprint): see Machine._wave_digest
        self.counters = None  # barriers.WaitCounters, made at the first memory instruction

    # -- lanes -----------------------------------------------------------------------------------
    def exec_mask(self) -> np.ndarray:
        """EXEC as one bool per lane (a fresh array the caller may modify)."""
        return lane_bools(self.exec, self.lanes).copy()

    def active_lanes(self) -> list[int]:
        """The lanes of EXEC in ascending order (a fresh list)."""
        return list(lane_list(self.exec, self.lanes))

    @staticmethod
    def to_mask(bits: np.ndarray) -> int:
        """A lane mask (bit N = lane N) from per-lane truth values."""
        b = np.asarray(bits)
        if b.dtype != np.bool_:
            b = b != 0
        return int.from_bytes(np.packbits(b.ravel(), bitorder="little").tobytes(), "little")

    def ensure_vgprs(self, n: int) -> None:
        if n > self.v.shape[0]:
            grow = np.zeros((n - self.v.shape[0], self.lanes), dtype=np.uint32)
            self.v = np.vstack([self.v, grow])

    def ensure_agprs(self, n: int) -> None:
        if n > self.a.shape[0]:
            grow = np.zeros((n - self.a.shape[0], self.lanes), dtype=np.uint32)
            self.a = np.vstack([self.a, grow]) if self.a.size else grow

    @property
    def running(self) -> bool:
        return self.state == READY

    def fingerprint(self) -> bytes:
        """A digest of the architectural state (hang detection: a state that repeats cannot make progress): PC,
        EXEC, VCC, SCC, SGPRs and VGPRs (the machine adds the scheduling state)."""
        h = hashlib.blake2b(digest_size=16)
        h.update(self.pc.to_bytes(8, "little") + self.exec.to_bytes(8, "little") + self.vcc.to_bytes(8, "little")
                 + bytes([self.scc]))
        h.update(array("Q", self.s).tobytes())  # the bytes np.asarray(self.s, dtype=np.uint64) gives, sooner
        h.update(self.v.data if self.v.flags.c_contiguous else np.ascontiguousarray(self.v))  # hashed in place
        return h.digest()
