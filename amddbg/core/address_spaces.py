"""`amddbg.amdgpu.Memory` over a core: global/generic/constant from the segments, LOCAL from the LDS
saved with a workgroup's first wave, PRIVATE from the wave's scratch slot (per wave only).

Generic addresses are classified with the agent's apertures from the KFD note (`lds_base/limit`,
`scratch_base/limit`), falling back to dbgapi's gfx9+ constants (local 1<<48, private 2<<48).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from amddbg.amdgpu.address_space import AddressSpace, private_lane_to_wave
from amddbg.errors import NotSupported, Unavailable

if TYPE_CHECKING:
    from amddbg.core.model import Wave

APERTURE_MASK = 0xFFFF << 48
LOCAL_APERTURE = 1 << 48
PRIVATE_APERTURE = 2 << 48


def classify_generic(address: int, agent=None) -> tuple[AddressSpace, int]:
    """Generic (flat) address -> (LOCAL|PRIVATE_LANE|GLOBAL, offset in that space)."""
    if agent is not None:
        e = agent.entry
        if e.get("lds_base") and e["lds_base"] <= address <= e.get("lds_limit", 0):
            return AddressSpace.LOCAL, address - e["lds_base"]
        if e.get("scratch_base") and e["scratch_base"] <= address <= e.get("scratch_limit", 0):
            return AddressSpace.PRIVATE_LANE, address - e["scratch_base"]
    top = address & APERTURE_MASK
    if top == LOCAL_APERTURE:
        return AddressSpace.LOCAL, address & ~APERTURE_MASK & 0xFFFFFFFF
    if top == PRIVATE_APERTURE:
        return AddressSpace.PRIVATE_LANE, address & ~APERTURE_MASK & 0xFFFFFFFF
    return AddressSpace.GLOBAL, address


def _read_lds(wave: Wave, address: int, size: int) -> bytes:
    lds = wave.lds
    if lds is None:
        raise Unavailable("local", address, size, "no LDS was saved for this workgroup")
    if address < 0 or address + size > len(lds):
        raise Unavailable("local", address, size, f"outside the workgroup's {len(lds)} bytes of LDS")
    return lds[address : address + size]


class CoreMemory:
    """Memory of the whole core. Per-wave spaces need a wave: use `wave.memory`."""

    def __init__(self, core) -> None:
        self._core = core

    def read(self, space, address: int, size: int, *, lane=None, workgroup=None) -> bytes:
        space = AddressSpace(space) if not isinstance(space, AddressSpace) else space
        if space in (AddressSpace.GLOBAL, AddressSpace.CONSTANT):
            return self._core._segments.read(address, size, str(space))
        if space is AddressSpace.GENERIC:
            agents = self._core.agents
            sub, off = classify_generic(address, agents[0] if len(agents) == 1 else None)
            if sub is AddressSpace.GLOBAL:
                return self._core._segments.read(address, size, "generic")
            return self.read(sub, off, size, lane=lane, workgroup=workgroup)
        if space is AddressSpace.LOCAL:
            if workgroup is None:
                raise Unavailable("local", address, size, "LDS needs a workgroup")
            owners = {
                id(w.lds_owner): w
                for w in self._core.waves
                if w.lds_owner is not None and w.workgroup == tuple(workgroup)
            }
            if not owners:
                raise Unavailable("local", address, size, f"no saved wave of workgroup {tuple(workgroup)}")
            if len(owners) > 1:
                raise Unavailable(
                    "local",
                    address,
                    size,
                    f"workgroup {tuple(workgroup)} exists in several dispatches: use wave.memory",
                )
            return _read_lds(next(iter(owners.values())), address, size)
        if space in (AddressSpace.PRIVATE_LANE, AddressSpace.PRIVATE_WAVE):
            raise Unavailable(str(space), address, size, "private memory needs a wave: use wave.memory")
        raise NotSupported(f"reading {space} memory from a core")


class WaveMemory:
    """Memory as one wave sees it."""

    def __init__(self, wave: Wave) -> None:
        self.wave = wave

    def scratch(self) -> tuple[int, int]:
        """(base address, size) of the wave's private_wave (swizzled scratch) region."""
        w = self.wave
        aq = w.queue.amd_queue
        if aq is None:
            raise Unavailable("private_wave", 0, 0, "the queue's amd_queue_t is not in the core")
        if not w.word.scratch_en:
            raise Unavailable("private_wave", 0, 0, "the wave has no scratch (scratch_en is clear)")
        per_xcc = aq["scratch_backing_memory_byte_size"]
        xccs = max(1, w.agent.num_xcc)
        se_per_xcc = w.agent.shader_engine_count // xccs
        off, size = w.family.scratch_region(aq["compute_tmpring_size"], se_per_xcc, w.word.se_id, w.word.scoreboard_id)
        if size == 0:
            raise Unavailable("private_wave", 0, 0, "compute_tmpring_size does not describe this wave's slot")
        return aq["scratch_backing_memory_location"] + per_xcc * w.xcc_id + off, size

    def read(self, space, address: int, size: int, *, lane=None, workgroup=None) -> bytes:
        space = AddressSpace(space) if not isinstance(space, AddressSpace) else space
        w = self.wave
        if space is AddressSpace.LOCAL:
            return _read_lds(w, address, size)
        if space is AddressSpace.GENERIC:
            sub, off = classify_generic(address, w.agent)
            if sub is AddressSpace.GLOBAL:
                return w.mem.read(address, size, "generic")
            return self.read(sub, off, size, lane=lane)
        if space is AddressSpace.PRIVATE_WAVE:
            base, limit = self.scratch()
            if address + size > limit:
                raise Unavailable("private_wave", address, size, "outside the wave's scratch slot")
            return w.mem.read(base + address, size, "private_wave")
        if space is AddressSpace.PRIVATE_LANE:
            if lane is None:
                raise Unavailable("private_lane", address, size, "private_lane memory needs a lane")
            out = bytearray()
            for i in range(size):  # bytes of one lane are dword-interleaved with the other lanes
                a = private_lane_to_wave(address + i, lane, w.wave_size)
                out += self.read(AddressSpace.PRIVATE_WAVE, a, 1)
            return bytes(out)
        if space in (AddressSpace.GLOBAL, AddressSpace.CONSTANT):
            return w.mem.read(address, size, str(space))
        raise NotSupported(f"reading {space} memory from a core")
