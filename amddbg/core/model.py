"""The parsed model of a GPU core: agents, queues, dispatches, waves, code objects.

Plain objects with lazily read register files: listing 10,000 waves touches only each record's 128
bytes of HWREG+TTMP words; SGPRs, VGPRs and LDS are read from the mapped file when asked for.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from amddbg.core.arch import STATUS_NO_VGPRS, Family, Sizes, WaveWord
from amddbg.errors import Unavailable

if TYPE_CHECKING:
    from amddbg.core.memory import SegmentMap


@dataclass
class Agent:
    gpu_id: int
    processor: str  # "gfx90a"; "gfx?(n)" when the version does not name one
    gfx_target_version: int
    num_xcc: int
    exception_status: int
    exceptions: list[str]
    entry: dict  # every field of kfd_dbg_device_info_entry

    @property
    def shader_engine_count(self) -> int:
        e = self.entry
        spe = e.get("simd_arrays_per_engine") or 0
        return (e.get("array_count", 0) * max(1, self.num_xcc)) // spe if spe else 0


@dataclass
class Queue:
    queue_id: int  # with the KFD error/invalid bits (30, 31) cleared
    gpu_id: int
    queue_type: str
    ring_base_address: int
    ring_size: int  # bytes
    write_pointer_address: int
    read_pointer_address: int
    ctx_save_restore_address: int
    ctx_save_restore_area_size: int  # per XCC
    exception_status: int
    exceptions: list[str]
    error: bool
    invalid: bool
    entry: dict
    read_dispatch_id: int | None = None
    write_dispatch_id: int | None = None
    amd_queue: dict | None = None


@dataclass
class KernelDescriptor:
    address: int
    fields: dict

    @property
    def entry_address(self) -> int:
        return self.address + self.fields["kernel_code_entry_byte_offset"]


@dataclass
class Dispatch:
    gpu_id: int
    queue_id: int
    dispatch_id: int  # the AQL packet id (os_queue_packet_id)
    packet_address: int
    packet: dict | None  # hsa_kernel_dispatch_packet_t fields; None when the ring is not in the core
    kernel_descriptor: KernelDescriptor | None = None
    error: str | None = None

    @property
    def grid_size(self) -> tuple[int, int, int] | None:
        p = self.packet
        return None if p is None else (p["grid_size_x"], p["grid_size_y"], p["grid_size_z"])

    @property
    def workgroup_size(self) -> tuple[int, int, int] | None:
        p = self.packet
        return None if p is None else (p["workgroup_size_x"], p["workgroup_size_y"], p["workgroup_size_z"])

    @property
    def kernel_object(self) -> int | None:
        return None if self.packet is None else self.packet["kernel_object"]

    @property
    def kernarg_address(self) -> int | None:
        return None if self.packet is None else self.packet["kernarg_address"]


@dataclass
class Wave:
    """One wave record of a context save area."""

    agent: Agent
    queue: Queue
    family: Family
    xcc_id: int
    index: int  # position in this XCC's control stack
    context_save_address: int
    sizes: Sizes
    word: WaveWord
    relaunch: tuple[int, int, int]  # (wave word, state0, state1)
    hwregs: list[int]
    ttmps: list[int]
    mem: SegmentMap
    r_version: int
    ttmps_valid: bool
    lds_owner: Wave | None = None  # the first wave of the workgroup (self for a leader)
    dispatch: Dispatch | None = None
    error: str | None = None
    _cache: dict = field(default_factory=dict, repr=False)

    # -- identity --------------------------------------------------------------------------------
    @property
    def gpu_id(self) -> int:
        return self.agent.gpu_id

    @property
    def queue_id(self) -> int:
        return self.queue.queue_id

    @property
    def processor(self) -> str:
        return self.agent.processor

    @property
    def wave_size(self) -> int:
        return self.sizes.lanes

    @property
    def workgroup(self) -> tuple[int, int, int] | None:
        return self.family.group_ids(self.ttmps) if self.ttmps_valid else None

    @property
    def wave_in_group(self) -> int | None:
        return self.family.wave_in_group(self.ttmps) if self.ttmps_valid else None

    @property
    def dispatch_id(self) -> int | None:
        return None if self.dispatch is None else self.dispatch.dispatch_id

    # -- hardware registers ----------------------------------------------------------------------
    def hwreg(self, name: str) -> int | None:
        slot = self.family.hwreg_slots.get(name)
        return None if slot is None else self.hwregs[slot]

    @property
    def hw_pc(self) -> int:
        """The PC in the HWREG block (for a parked wave: the park instruction in the trap handler)."""
        return self.hwregs[1] | self.hwregs[2] << 32

    @property
    def stopped(self) -> bool:
        """Stopped by the trap handler (ttmp6.wave_stopped)."""
        return bool(self.ttmps[6] >> 30 & 1)

    @property
    def parked(self) -> bool:
        return self.stopped and self.family.parks(self.r_version)

    @property
    def pc(self) -> int:
        """The PC a debugger reports: the saved PC of a parked wave, else the HWREG PC."""
        return self.family.parked_pc(self.ttmps) if self.parked else self.hw_pc

    @property
    def exec(self) -> int:
        lo = self.hwregs[3]
        return lo if self.sizes.lanes == 32 else lo | self.hwregs[4] << 32

    @property
    def status(self) -> int:
        return self.hwregs[self.family.hwreg_slots["status"]]

    @property
    def trapsts(self) -> int | None:
        return self.hwregs[6] if self.family.has_trapsts else None

    @property
    def mode(self) -> int:
        return self.hwregs[self.family.hwreg_slots["mode"]]

    @property
    def m0(self) -> int:
        return self.hwregs[0]

    @property
    def trap_id(self) -> int | None:
        tid = self.family.trap_id(self.ttmps)
        return tid if self.stopped and tid else None

    @property
    def stop_reason(self) -> list[str]:
        hw = {n: self.hwregs[s] for n, s in self.family.hwreg_slots.items()}
        return self.family.stop_reasons(hw, self.ttmps)

    # -- register files (lazy) ---------------------------------------------------------------
    def _addrs(self) -> dict:
        a = self._cache.get("addrs")
        if a is None:
            s = self.sizes
            save = self.context_save_address - (s.lds if self.word.first else 0)
            hwregs = save - self.family.hwreg_bytes
            sgprs = hwregs - 4 * s.sgprs
            shared = sgprs - 128 * s.shared_vgprs
            acc = shared - 4 * s.lanes * s.accvgprs
            vgprs = acc - 4 * s.lanes * s.vgprs
            a = {"lds": save, "sgprs": sgprs, "shared": shared, "acc": acc, "vgprs": vgprs}
            self._cache["addrs"] = a
        return a

    @property
    def record_begin(self) -> int:
        return self._addrs()["vgprs"]

    @property
    def sgpr_count(self) -> int:
        """How many SGPRs dbgapi exposes for this wave (`Family.exposed_sgprs`: min(allocated, 102|106))."""
        return self.family.exposed_sgprs(self.sizes)

    @property
    def sgpr_slots(self) -> list[int]:
        """The record's SGPR slots up to the aliased end: s0.. then the alias slots (gfx9: flat_scratch,
        xnack_mask, vcc; gfx10+: vcc). What `vcc`/`flat_scratch` and replay read."""
        n = self.family.aliased_sgpr_end(self.sizes)
        return list(struct.unpack(f"<{n}I", self.mem.read(self._addrs()["sgprs"], 4 * n)))

    @property
    def sgprs(self) -> list[int]:
        """The SGPRs dbgapi exposes, s0..s<sgpr_count-1>: at most s0..s101 on gfx9, s0..s105 on gfx10+. A gfx9
        wave with at most 102 SGPRs shows its alias slots as shadow SGPRs, xnack_mask read from HWREG."""
        n = self.sgpr_count
        out = self.sgpr_slots[:n]
        for i, slot in zip(self.family.xnack_shadow_slots(self.sizes), (7, 8), strict=False):
            out[i] = self.hwregs[slot]
        return out

    def _vector_block(self, addr: int, count: int, lanes: int) -> list[list[int]]:
        if count == 0:
            return []
        raw = self.mem.read(addr, 4 * lanes * count)
        flat = struct.unpack(f"<{lanes * count}I", raw)
        return [list(flat[i * lanes : (i + 1) * lanes]) for i in range(count)]

    @property
    def vgprs_available(self) -> bool:
        return not (self.family.name in ("gfx11", "gfx12", "gfx125") and self.status & STATUS_NO_VGPRS)

    @property
    def vgprs(self) -> list[list[int]]:
        """Architectural VGPRs v0..vN, each a list of `wave_size` lane values (Unavailable after
        `s_sendmsg dealloc_vgprs` on gfx11+)."""
        if not self.vgprs_available:
            raise Unavailable("vgpr", self.record_begin, 0, "the wave released its VGPRs (STATUS.no_vgprs)")
        return self._vector_block(self._addrs()["vgprs"], self.sizes.vgprs, self.sizes.lanes)

    def vector_bytes(self, kind: str = "vgprs") -> bytes:
        """The raw little-endian block of VGPRs ("vgprs") or AccVGPRs ("acc"): rows of `lanes` 32-bit values, for
        comparing thousands of waves without building Python ints."""
        if kind == "vgprs" and not self.vgprs_available:
            raise Unavailable("vgpr", self.record_begin, 0, "the wave released its VGPRs (STATUS.no_vgprs)")
        count = self.sizes.vgprs if kind == "vgprs" else self.sizes.accvgprs
        return self.mem.read(self._addrs()[kind], 4 * self.sizes.lanes * count) if count else b""

    def vgpr_row(self, i: int) -> list[int]:
        """VGPR `i`'s lane values alone (one row of the block: a spin analysis over 10,000 waves needs one
        address register of each, not the whole block)."""
        if not self.vgprs_available:
            raise Unavailable("vgpr", self.record_begin, 0, "the wave released its VGPRs (STATUS.no_vgprs)")
        if not 0 <= i < self.sizes.vgprs:
            raise IndexError(i)
        lanes = self.sizes.lanes
        return self._vector_block(self._addrs()["vgprs"] + 4 * lanes * i, 1, lanes)[0]

    @property
    def accvgprs(self) -> list[list[int]]:
        return self._vector_block(self._addrs()["acc"], self.sizes.accvgprs, self.sizes.lanes)

    @property
    def shared_vgprs(self) -> list[list[int]]:
        """gfx10+ shared VGPRs (32 lanes each), logically numbered after the private VGPRs."""
        if not self.vgprs_available:
            raise Unavailable("vgpr", self.record_begin, 0, "the wave released its VGPRs (STATUS.no_vgprs)")
        return self._vector_block(self._addrs()["shared"], self.sizes.shared_vgprs, 32)

    @property
    def lds_size(self) -> int:
        owner = self.lds_owner
        return owner.sizes.lds if owner is not None else 0

    @property
    def lds(self) -> bytes | None:
        """The workgroup's LDS, saved with its first wave (None when the record holds none)."""
        owner = self.lds_owner
        if owner is None or owner.sizes.lds == 0:
            return None
        return owner.mem.read(owner._addrs()["lds"], owner.sizes.lds)

    @property
    def ttmps_named(self) -> dict[str, int]:
        return {f"ttmp{i}": v for i, v in enumerate(self.ttmps)}

    @property
    def memory(self):
        """This wave's view of memory (LOCAL = its workgroup's LDS, PRIVATE = its scratch)."""
        from amddbg.core.address_spaces import WaveMemory

        return WaveMemory(self)


@dataclass
class CodeObjectRef:
    """One loaded code object from the runtime's `_amdgpu_r_debug` link map."""

    uri: str
    load_address: int
    link_map_address: int
    _loader: object = field(default=None, repr=False)
    _data: bytes | None = field(default=None, repr=False)
    _codeobj: object = field(default=None, repr=False)

    @property
    def data(self) -> bytes:
        """The code object's bytes (file:// read from disk, memory:// read from the core)."""
        if self._data is None:
            self._data = self._loader(self)
        return self._data

    @property
    def codeobj(self):
        """The code object parsed by `amddbg.codeobj.CodeObject.from_bytes` (opened on first use)."""
        if self._codeobj is None:
            from amddbg.codeobj import CodeObject

            self._codeobj = CodeObject.from_bytes(self.data, name=self.uri)
        return self._codeobj
