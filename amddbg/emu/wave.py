"""The architectural state of one emulated wave.

SGPRs are a Python list (scalar ALU is scalar); VGPRs are a numpy array ``(registers, lanes)`` of uint32 so
that a VALU instruction is one array operation. EXEC and VCC are Python ints (bit N = lane N).
"""

from __future__ import annotations

import numpy as np

READY, WAITING_BARRIER, SLEEPING, ENDED, TRAPPED, FAULTED, UNSUPPORTED, HALTED = (
    "ready", "at barrier", "sleeping", "ended", "trapped", "faulted", "unsupported", "halted")
STOPPED_STATES = frozenset({ENDED, TRAPPED, FAULTED, UNSUPPORTED, HALTED})


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
        self.scratch_base = 0
        self.private_size = 0
        self.instructions = 0
        self.sleep_until = 0
        self.trap_id = 0

    # -- lanes -----------------------------------------------------------------------------------
    def exec_mask(self) -> np.ndarray:
        e = self.exec
        return np.array([(e >> i) & 1 for i in range(self.lanes)], dtype=bool)

    def active_lanes(self) -> list[int]:
        e = self.exec
        return [i for i in range(self.lanes) if e >> i & 1]

    @staticmethod
    def to_mask(bits: np.ndarray) -> int:
        out = 0
        for i, b in enumerate(bits.tolist()):
            if b:
                out |= 1 << i
        return out

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
        """A digest of the architectural state (hang detection: a state that repeats cannot make progress)."""
        import hashlib

        h = hashlib.blake2b(digest_size=16)
        h.update(self.pc.to_bytes(8, "little"))
        h.update(self.exec.to_bytes(8, "little"))
        h.update(self.vcc.to_bytes(8, "little"))
        h.update(bytes([self.scc]))
        h.update(np.asarray(self.s, dtype=np.uint64).tobytes())
        h.update(self.v.tobytes())
        h.update(self.state.encode())
        return h.digest()
