"""`CoreBuilder`: describe a process image (agents, queues, dispatches, waves, memory, code objects) and
write it as a spec-faithful split GPU core (plus, optionally, its host core) or as a unified core.

The builder lays out what the real stack would have in memory: ROCr's `_amdgpu_r_debug` and link map,
`amd_queue_t` with read/write dispatch ids, the AQL ring with kernel dispatch packets, kernel
descriptors, and per-XCC context save areas (header, control stack of COMPUTE_RELAUNCH words, wave
records laid downward with LDS on each workgroup's first wave) encoded per architecture family
(`amddbg.core.arch`). Example::

    b = CoreBuilder(arch="gfx90a")
    q = b.add_queue()
    d = b.add_dispatch(q, entry=0x7000_1000, grid=(256, 1, 1), workgroup=(64, 1, 1))
    b.add_wave(d, pc=0x7000_1010, sgprs=[1, 2, 3], vgprs=[[lane for lane in range(64)]] * 4)
    b.write_split("gpucore.4242")
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from amddbg.core.arch import TTMP6_WAVE_STOPPED, Family, Sizes, WaveWord, family_for
from amddbg.core.host import Mapping, build_auxv, build_nt_file, build_prpsinfo, build_prstatus
from amddbg.core.kfd import (
    AGENT_PROFILES,
    NOTE_NAME,
    NT_AMDGPU_KFD_CORE_STATE,
    build_kfd_note,
    gfx_target_version,
)
from amddbg.core.layouts import (
    AMD_QUEUE,
    CONTEXT_SAVE_AREA_HEADER,
    DEVICE_INFO_ENTRY,
    DISPATCH_PACKET,
    KERNEL_DESCRIPTOR,
    LINK_MAP,
    QUEUE_SNAPSHOT_ENTRY,
    R_DEBUG,
    RUNTIME_INFO,
)
from amddbg.core.rdebug import memory_uri
from amddbg.core.writer.elfwrite import OutSegment, load_flags, write_core

PAGE = 4096
HOST_BASE = 0x7F12_0000_0000
GPU_BASE = 0x7FEE_0000_0000
# A debuggable agent for processors without a board profile: MI250-like geometry, debug firmware.
_GENERIC_AGENT = dict(AGENT_PROFILES["gfx90a"], device_id=0, subsystem_device_id=0, num_xcc=1,
                      debug_prop=6 | 29 << 4)
KFD_IOC_QUEUE_TYPE_COMPUTE_AQL = 2
HSA_PACKET_TYPE_KERNEL_DISPATCH = 2


def _align(x: int, a: int) -> int:
    return (x + a - 1) & ~(a - 1)


@dataclass
class AgentSpec:
    gpu_id: int
    processor: str
    family: Family
    entry: dict


@dataclass
class QueueSpec:
    agent: AgentSpec
    queue_id: int
    ring_packets: int
    ring_address: int
    amd_queue_address: int
    exception_status: int
    read_dispatch_id: int | None
    amd_queue_fields: dict
    ctx_save_address: int = 0
    ctx_save_area_size: int = 0
    dispatches: list = field(default_factory=list)
    waves: list = field(default_factory=list)
    queue_id_flags: int = 0


@dataclass
class DispatchSpec:
    queue: QueueSpec
    packet_id: int
    packet: dict


@dataclass
class WaveSpec:
    dispatch: DispatchSpec | None
    xcc: int
    group_key: tuple
    sizes: Sizes
    word: WaveWord  # first/last filled in at layout time
    hwregs: list[int]
    ttmps: list[int]
    sgprs: list[int]
    vgprs: list[list[int]]
    accvgprs: list[list[int]]
    shared_vgprs: list[list[int]]
    lds: bytes | None


@dataclass
class HostImage:
    """What a host (x86-64) core holds besides the GPU state: threads, NT_FILE mappings, auxv, memory."""

    threads: list[tuple[int, dict, int]] = field(default_factory=lambda: [(4242, {"rip": 0x401000}, 6)])
    mappings: list[Mapping] = field(default_factory=list)
    auxv: list[tuple[int, int]] = field(default_factory=lambda: [(6, PAGE)])
    memory: list[tuple[int, bytes]] = field(default_factory=list)
    fname: str = "a.out"  # NT_PRPSINFO pr_fname (the executable's name, 15 bytes at most)


class CoreBuilder:
    """Builds a GPU core in memory, then writes it split (`write_split`) or unified (`write_unified`)."""

    def __init__(
        self,
        arch: str = "gfx90a",
        *,
        kfd_version: tuple[int, int] = (1, 15),
        r_version: int = 10,
        pid: int = 4242,
        ttmp_setup: bool = True,
        runtime_state: int = 1,
        agent_entry_size: int = DEVICE_INFO_ENTRY.size,
        queue_entry_size: int = QUEUE_SNAPSHOT_ENTRY.size,
        runtime_info_size: int = RUNTIME_INFO.size,
        park_address: int = 0x7FEF_0000_0100,
    ) -> None:
        self.arch = arch
        self.kfd_version = kfd_version
        self.r_version = r_version
        self.pid = pid
        self.ttmp_setup = ttmp_setup
        self.runtime_state = runtime_state
        self.entry_sizes = (runtime_info_size, agent_entry_size, queue_entry_size)
        self.park_address = park_address
        self.agents: list[AgentSpec] = []
        self.queues: list[QueueSpec] = []
        self.code_objects: list[tuple[str, int]] = []  # (uri, load_address)
        self._memory: list[tuple[int, bytes | None, int, bool]] = []  # (addr, data|None, size, host)
        self._unavailable: list[tuple[int, int]] = []
        self._extra_notes: list[tuple[str, int, bytes]] = []  # after the AMDGPU note (amddbg.core.emunotes)
        self._host_next = HOST_BASE
        self._gpu_next = GPU_BASE
        self._r_debug_capacity = PAGE
        self._r_debug_address = self._alloc(PAGE, host=True)  # filled at write time

    # -- allocation ----------------------------------------------------------------------------
    def _alloc(self, size: int, *, host: bool) -> int:
        size = _align(max(size, 1), PAGE)
        if host:
            a, self._host_next = self._host_next, self._host_next + size + PAGE
        else:
            a, self._gpu_next = self._gpu_next, self._gpu_next + size + PAGE
        return a

    # -- public API ----------------------------------------------------------------------------
    def add_agent(
        self,
        processor: str | None = None,
        *,
        gpu_id: int | None = None,
        num_xcc: int = 1,
        exception_status: int = 0,
        **entry: int,
    ) -> AgentSpec:
        processor = processor or self.arch
        fam = family_for(processor)
        gpu_id = gpu_id if gpu_id is not None else 0x1000 + 0x111 * len(self.agents)
        # What a real board of this processor reports (AGENT_PROFILES), else a generic debuggable
        # agent; shader arrays scale with the XCCs.
        profile = dict(AGENT_PROFILES.get(processor.split(":")[0], _GENERIC_AGENT))
        if num_xcc != profile.get("num_xcc", num_xcc):
            per = max(1, profile["array_count"] // profile["num_xcc"])
            profile["array_count"] = per * num_xcc
            profile["simd_count"] = max(1, profile["simd_count"] // profile["num_xcc"]) * num_xcc
        profile.pop("num_xcc", None)
        fields = {
            "gpu_id": gpu_id,
            "gfx_target_version": gfx_target_version(processor),
            "num_xcc": num_xcc,
            "exception_status": exception_status,
            **profile,
            "lds_base": 1 << 48,
            "lds_limit": (1 << 48) | 0xFFFFFFFF,
            "scratch_base": 2 << 48,
            "scratch_limit": (2 << 48) | 0xFFFFFFFF,
            "gpuvm_base": 0x1000000,
            "gpuvm_limit": (1 << 47) - 1,
        }
        fields.update(entry)
        a = AgentSpec(gpu_id, processor, fam, fields)
        self.agents.append(a)
        return a

    def add_queue(
        self,
        agent: AgentSpec | None = None,
        *,
        queue_id: int | None = None,
        ring_packets: int = 64,
        exception_status: int = 0,
        read_dispatch_id: int | None = None,
        queue_id_flags: int = 0,
        **amd_queue_fields,
    ) -> QueueSpec:
        if agent is None:
            agent = self.agents[0] if self.agents else self.add_agent()
        if ring_packets & (ring_packets - 1):
            raise ValueError("ring_packets must be a power of 2")
        ring = self._alloc(ring_packets * 64, host=True)
        aq = self._alloc(AMD_QUEUE.size, host=True)
        q = QueueSpec(
            agent,
            queue_id if queue_id is not None else len(self.queues) + 1,
            ring_packets,
            ring,
            aq,
            exception_status,
            read_dispatch_id,
            amd_queue_fields,
            queue_id_flags=queue_id_flags,
        )
        self.queues.append(q)
        return q

    def add_dispatch(
        self,
        queue: QueueSpec | None = None,
        *,
        kernel_object: int | None = None,
        entry: int | None = None,
        grid: tuple = (64, 1, 1),
        workgroup: tuple = (64, 1, 1),
        kernarg_address: int = 0,
        private_segment_size: int = 0,
        group_segment_size: int = 0,
        packet_id: int | None = None,
        completion_signal: int = 0,
        kernel_descriptor: dict | None = None,
    ) -> DispatchSpec:
        """Put a kernel dispatch packet in the queue's ring. With `kernel_object` None a 64-byte kernel
        descriptor is written in agent memory whose entry point is `entry`."""
        queue = queue or (self.queues[0] if self.queues else self.add_queue())
        if kernel_object is None:
            kernel_object = self._alloc(64, host=False)
            kd = dict(kernel_descriptor or {})
            kd.setdefault("kernel_code_entry_byte_offset", (entry - kernel_object) if entry else 0x100)
            kd.setdefault("group_segment_fixed_size", group_segment_size)
            kd.setdefault("private_segment_fixed_size", private_segment_size)
            self.add_memory(kernel_object, KERNEL_DESCRIPTOR.pack(kd))
        if packet_id is None:
            packet_id = queue.dispatches[-1].packet_id + 1 if queue.dispatches else (queue.read_dispatch_id or 0)
        dims = 3 if grid[2] > 1 else 2 if grid[1] > 1 else 1
        packet = {
            "header": HSA_PACKET_TYPE_KERNEL_DISPATCH | 1 << 8 | 2 << 9 | 2 << 11,
            "setup": dims,
            "workgroup_size_x": workgroup[0],
            "workgroup_size_y": workgroup[1],
            "workgroup_size_z": workgroup[2],
            "grid_size_x": grid[0],
            "grid_size_y": grid[1],
            "grid_size_z": grid[2],
            "private_segment_size": private_segment_size,
            "group_segment_size": group_segment_size,
            "kernel_object": kernel_object,
            "kernarg_address": kernarg_address,
            "completion_signal": completion_signal,
        }
        d = DispatchSpec(queue, packet_id, packet)
        queue.dispatches.append(d)
        return d

    def add_wave(
        self,
        dispatch: DispatchSpec | None = None,
        *,
        queue: QueueSpec | None = None,
        workgroup: tuple = (0, 0, 0),
        wave_in_group: int = 0,
        pc: int = 0,
        exec: int | None = None,
        status: int = 0,
        trapsts: int = 0,
        mode: int = 0,
        m0: int = 0,
        sgprs=(),
        vgprs=(),
        accvgprs=(),
        shared_vgprs=(),
        sgpr_count: int | None = None,
        vgpr_count: int | None = None,
        accvgpr_count: int | None = None,
        shared_vgpr_count: int = 0,
        lds: bytes | None = None,
        stopped: bool = True,
        trap_id: int | None = None,
        xcc: int = 0,
        se_id: int = 0,
        scoreboard_id: int = 0,
        scratch_en: bool = False,
        wave_size: int | None = None,
        hwregs: dict | None = None,
        ttmps: dict | None = None,
        ttmps_valid: bool = True,
    ) -> WaveSpec:
        """Add one wave's saved state. VGPRs are lists of lane values (an int stands for all lanes).
        Register counts default to the values given rounded up to the hardware's granule."""
        if dispatch is None:
            queue = queue or (self.queues[0] if self.queues else self.add_queue())
        else:
            queue = dispatch.queue
        fam = queue.agent.family
        lanes = wave_size or (64 if fam.name in ("gfx9", "gfx908", "gfx90a", "gfx94x") else 32)
        if fam.name in ("gfx9", "gfx908", "gfx90a", "gfx94x") and lanes != 64:
            raise ValueError(f"{fam.processor} waves have 64 lanes")

        def vec(rows, width):
            return [[r] * width if isinstance(r, int) else list(r) + [0] * (width - len(r)) for r in rows]

        vgprs, accvgprs, shared_vgprs = vec(vgprs, lanes), vec(accvgprs, lanes), vec(shared_vgprs, 32)
        gfx10 = fam.two_state_words
        gran = 16 if fam.name == "gfx125" else 8 if (gfx10 and lanes == 32) else 4
        vc = vgpr_count if vgpr_count is not None else max(gran, _align(len(vgprs), gran))
        if fam.name == "gfx908":
            ac = vc
        elif fam.has_accvgprs:
            ac = accvgpr_count if accvgpr_count is not None else _align(len(accvgprs), 4)
            if (vc + ac) % 8:
                ac += 4
        else:
            ac = 0
        if gfx10:
            sc = 128
        else:
            sc = sgpr_count if sgpr_count is not None else _align(len(sgprs) + fam.scalar_alias_count, 16)
        lds = bytes(lds) if lds else None
        lds_size = _align(len(lds), 1024 if fam.name == "gfx125" else 512) if lds else 0
        sizes = Sizes(vc, ac, shared_vgpr_count or _align(len(shared_vgprs), 8), sc, lds_size, lanes)
        fam.encode_state(sizes)  # validates counts
        if len(vgprs) > vc or len(accvgprs) > ac or len(sgprs) > fam.aliased_sgpr_end(sizes):
            raise ValueError("more registers given than the counts allow")
        hw = [0] * 16
        slots = fam.hwreg_slots
        parks = stopped and fam.parks(self.r_version)
        hw_pc = self.park_address if parks else pc
        hw[1], hw[2] = hw_pc & 0xFFFFFFFF, hw_pc >> 32
        e = exec if exec is not None else (1 << lanes) - 1
        hw[3] = e & 0xFFFFFFFF
        if lanes == 64:
            hw[4] = e >> 32
        hw[slots["status"]] = status
        if fam.has_trapsts:
            hw[slots["trapsts"]] = trapsts
        hw[slots["mode"]] = mode
        hw[0] = m0
        for k, v in (hwregs or {}).items():
            hw[slots[k] if isinstance(k, str) else k] = v
        tt = [0] * 16
        ring_index = None
        if dispatch is not None:
            ring_index = dispatch.packet_id % queue.ring_packets
        fam.encode_ttmps(
            tt,
            packet_index=ring_index or 0,
            group=tuple(workgroup),
            wave_in_group=wave_in_group,
            parked_pc=pc if parks else None,
        )
        for k, v in (ttmps or {}).items():  # (the wave's own TTMPs first: the stop state goes on top)
            tt[k] = v
        if stopped:
            tt[6] |= TTMP6_WAVE_STOPPED
            if trap_id:
                fam.store_trap_id(tt, trap_id)
        if not ttmps_valid or dispatch is None:
            tt[6] |= 1 << 31
            if fam.name == "gfx94x":
                tt[11] |= 1 << 31
        key = (id(dispatch), tuple(workgroup), xcc)
        w = WaveSpec(
            dispatch,
            xcc,
            key,
            sizes,
            WaveWord(scoreboard_id, se_id, scratch_en, False, False),
            hw,
            tt,
            list(sgprs),
            vgprs,
            accvgprs,
            shared_vgprs,
            lds,
        )
        queue.waves.append(w)
        return w

    def add_note(self, name: str, ntype: int, desc: bytes) -> None:
        """One more ELF note in the GPU core, after the AMDGPU core-state note (readers skip notes they do not
        know): the emulator's own findings (amddbg.core.emunotes)."""
        self._extra_notes.append((name, ntype, bytes(desc)))

    def add_memory(self, address: int, data: bytes, *, host: bool = False) -> None:
        """Bytes of process memory (agent memory unless `host`)."""
        self._memory.append((address, bytes(data), len(data), host))

    def add_sparse(self, address: int, size: int) -> None:
        """A dumped agent-memory range of zeros, written as a hole of a sparse file (never materialised)."""
        self._memory.append((address, None, size, False))

    def add_unavailable(self, address: int, size: int) -> None:
        """A PT_LOAD with p_filesz 0 (memory the dumper could not read)."""
        self._unavailable.append((address, size))

    def add_code_object(
        self, data: bytes | None = None, *, uri: str | None = None, load_address: int = 0, load: bool = True
    ) -> str:
        """Register a code object in the r_debug link map. With `data` and no `uri`, the bytes are put in
        host memory and named by a memory:// URI; with `load`, its PT_LOAD segments are also placed in agent
        memory at `load_address` (so kernel descriptors and code are readable)."""
        if uri is None:
            if data is None:
                raise ValueError("a code object needs bytes or a URI")
            addr = self._alloc(len(data), host=True)
            self.add_memory(addr, data, host=True)
            uri = memory_uri(self.pid, addr, len(data))
        if data is not None and load:
            for vaddr, seg in _elf_load_segments(data):
                self.add_memory(load_address + vaddr, seg)
        self.code_objects.append((uri, load_address))
        return uri

    # -- layout --------------------------------------------------------------------------------
    def _layout(self) -> tuple[bytes, list[tuple[int, bytes | None, int, bool]]]:
        mem = list(self._memory)
        if not self.agents:
            self.add_agent()
        # r_debug + link map + names, in host memory
        blob = bytearray(R_DEBUG.size)
        nodes = []
        for uri, l_addr in self.code_objects:
            node_off = _align(len(blob), 8)
            blob += bytes(node_off - len(blob)) + bytes(LINK_MAP.size)
            name_off = len(blob)
            blob += uri.encode() + b"\0"
            nodes.append((node_off, name_off, l_addr))
        base = self._r_debug_address
        for i, (node_off, name_off, l_addr) in enumerate(nodes):
            nxt = base + nodes[i + 1][0] if i + 1 < len(nodes) else 0
            prv = base + nodes[i - 1][0] if i else 0
            blob[node_off : node_off + LINK_MAP.size] = LINK_MAP.pack(
                l_addr=l_addr, l_name=base + name_off, l_next=nxt, l_prev=prv
            )
        blob[: R_DEBUG.size] = R_DEBUG.pack(
            r_version=self.r_version,
            r_map=base + nodes[0][0] if nodes else 0,
            r_brk=0x7F12_DEAD_0000,
            r_state=0,
        )
        if len(blob) > self._r_debug_capacity:
            self._r_debug_capacity = _align(len(blob), PAGE)
            self._r_debug_address = self._alloc(self._r_debug_capacity, host=True)
            return self._layout()
        mem.append((base, bytes(blob), len(blob), True))
        queues_note = []
        for q in self.queues:
            mem += self._layout_queue(q)
            queues_note.append(
                {
                    "exception_status": q.exception_status,
                    "ring_base_address": q.ring_address,
                    "write_pointer_address": q.amd_queue_address + AMD_QUEUE.offset("write_dispatch_id"),
                    "read_pointer_address": q.amd_queue_address + AMD_QUEUE.offset("read_dispatch_id"),
                    "ctx_save_restore_address": q.ctx_save_address,
                    "queue_id": q.queue_id | q.queue_id_flags,
                    "gpu_id": q.agent.gpu_id,
                    "ring_size": q.ring_packets * 64,
                    "queue_type": KFD_IOC_QUEUE_TYPE_COMPUTE_AQL,
                    "ctx_save_restore_area_size": q.ctx_save_area_size,
                }
            )
        note = build_kfd_note(
            self.kfd_version,
            {"r_debug": base, "runtime_state": self.runtime_state, "ttmp_setup": int(self.ttmp_setup)},
            [a.entry for a in self.agents],
            queues_note,
            runtime_info_size=self.entry_sizes[0],
            agent_entry_size=self.entry_sizes[1],
            queue_entry_size=self.entry_sizes[2],
        )
        spans = sorted((a, a + size) for a, _, size, _ in mem if size)
        spans += sorted((a, a + size) for a, size in self._unavailable)
        spans.sort()
        for (a0, e0), (a1, _) in zip(spans, spans[1:], strict=False):
            if a1 < e0:
                raise ValueError(f"memory regions overlap: [{a0:#x}, {e0:#x}) and one starting at {a1:#x}")
        return note, mem

    def _layout_queue(self, q: QueueSpec) -> list:
        out = []
        ring = bytearray(q.ring_packets * 64)
        for d in q.dispatches:
            slot = (d.packet_id % q.ring_packets) * 64
            ring[slot : slot + 64] = DISPATCH_PACKET.pack(d.packet)
        out.append((q.ring_address, bytes(ring), len(ring), True))
        if q.dispatches:
            rd = q.read_dispatch_id if q.read_dispatch_id is not None else min(d.packet_id for d in q.dispatches)
            wr = max(d.packet_id for d in q.dispatches) + 1
        else:
            rd = wr = q.read_dispatch_id or 0
        aq = {
            "hsa_queue.type": 0,
            "hsa_queue.base_address": q.ring_address,
            "hsa_queue.size": q.ring_packets,
            "hsa_queue.id": q.queue_id,
            "write_dispatch_id": wr,
            "read_dispatch_id": rd,
        }
        aq.update(q.amd_queue_fields)
        out.append((q.amd_queue_address, AMD_QUEUE.pack(aq), AMD_QUEUE.size, True))
        # context save areas, one per XCC
        num_xcc = max(1, q.agent.entry["num_xcc"])
        areas = [self._layout_csa(q.agent.family, [w for w in q.waves if w.xcc == x]) for x in range(num_xcc)]
        size = _align(max(len(a) for a in areas), PAGE)
        # keep addresses stable across writes (split then unified) unless the area has to grow
        if not q.ctx_save_address or size > q.ctx_save_area_size:
            q.ctx_save_address = self._alloc(size * num_xcc, host=False)
            q.ctx_save_area_size = size
        for x, a in enumerate(areas):
            out.append((q.ctx_save_address + x * size, a, len(a), False))
        return out

    def _layout_csa(self, fam: Family, waves: list[WaveSpec]) -> bytes:
        # group waves by workgroup (first appearance order), mark first/last, emit state words on change
        groups: dict = {}
        for w in waves:
            groups.setdefault(w.group_key, []).append(w)
        words = [0, 0]  # the 2 PM4 packets at the top of the control stack
        records = []
        last_state = None
        for members in groups.values():
            lds = next((m.lds for m in members if m.lds), None)
            lds_size = _align(len(lds), 1024 if fam.name == "gfx125" else 512) if lds else 0
            for i, w in enumerate(members):
                first, last = i == 0, i == len(members) - 1
                sizes = Sizes(
                    w.sizes.vgprs,
                    w.sizes.accvgprs,
                    w.sizes.shared_vgprs,
                    w.sizes.sgprs,
                    lds_size,
                    w.sizes.lanes,
                )
                state = fam.encode_state(sizes)
                if state != last_state:
                    words.extend(state)
                    last_state = state
                words.append(
                    fam.encode_wave(WaveWord(w.word.scoreboard_id, w.word.se_id, w.word.scratch_en, first, last))
                )
                records.append(self._record(fam, w, sizes, first, (lds or b"") if first else None))
        cs = struct.pack(f"<{len(words)}I", *words)
        cs_off = 64
        wave_area = b"".join(reversed(records))  # the first wave is at the top
        wave_state_offset = cs_off + len(cs) + len(wave_area)
        debug_offset = _align(wave_state_offset, 64)
        hdr = CONTEXT_SAVE_AREA_HEADER.pack(
            control_stack_offset=cs_off,
            control_stack_size=len(cs),
            wave_state_offset=wave_state_offset,
            wave_state_size=len(wave_area),
            debug_offset=debug_offset,
            debug_size=64,
        )
        return hdr + bytes(cs_off - len(hdr)) + cs + wave_area + bytes(debug_offset - wave_state_offset + 64)

    @staticmethod
    def _record(fam: Family, w: WaveSpec, s: Sizes, first: bool, lds: bytes | None) -> bytes:
        def rows(rs, count, width):
            flat = [v & 0xFFFFFFFF for r in rs for v in r] + [0] * ((count - len(rs)) * width)
            return struct.pack(f"<{count * width}I", *flat)

        sgprs = [v & 0xFFFFFFFF for v in w.sgprs] + [0] * (s.sgprs - len(w.sgprs))
        if fam.ttmp_offset < 0:  # gfx1250: the TTMPs are the SGPR block's last 16 slots, then a 128-dword HWREG
            sgprs[s.sgprs + fam.ttmp_offset // 4:] = w.ttmps
            tail = [struct.pack("<16I", *w.hwregs), bytes(fam.hwreg_bytes - 64)]
        else:
            tail = [struct.pack("<16I", *w.hwregs), struct.pack("<16I", *w.ttmps)]
        parts = [
            rows(w.vgprs, s.vgprs, s.lanes),
            rows(w.accvgprs, s.accvgprs, s.lanes),
            rows(w.shared_vgprs, s.shared_vgprs, 32),
            struct.pack(f"<{s.sgprs}I", *sgprs),
            *tail,
        ]
        if first:
            parts.append((lds or b"") + bytes(s.lds - len(lds or b"")))
        parts.append(bytes(fam.context_gap))
        return b"".join(parts)

    # -- output ----------------------------------------------------------------------------------
    def write_split(
        self, path: str, host_path: str | None = None, host: HostImage | None = None, *, abiversion: int = 0
    ) -> None:
        """Write the GPU core as ROCr does. Without `host_path` every segment (host-side ones too: r_debug,
        code objects, amd_queue_t, AQL rings) goes in the GPU file so it stands alone; with it, host memory
        goes to an x86-64 host core that also has empty (p_filesz 0) stand-ins for the agent segments."""
        note, mem = self._layout()
        notes = [(NOTE_NAME, NT_AMDGPU_KFD_CORE_STATE, note), *self._extra_notes]
        gpu = [m for m in mem if host_path is None or not m[3]]
        segs = [OutSegment(a, d, s, s, load_flags("rocr")) for a, d, s, _ in sorted(gpu, key=lambda m: m[0])]
        segs += [OutSegment(a, None, s, 0, load_flags("rocr")) for a, s in self._unavailable]
        write_core(path, style="rocr", notes=notes, segments=segs, abiversion=abiversion)
        if host_path is not None:
            host = host or HostImage()
            hmem = [(a, d, s) for a, d, s, h in mem if h] + [(a, d, len(d)) for a, d in host.memory]
            hsegs = [OutSegment(a, d, s, s, load_flags("linux")) for a, d, s in sorted(hmem, key=lambda m: m[0])]
            hsegs += [OutSegment(a, None, s, 0, load_flags("linux")) for a, d, s, h in mem if not h]
            hsegs.sort(key=lambda s: s.vaddr)
            write_core(host_path, style="linux", notes=self._host_notes(host), segments=hsegs)

    def write_unified(self, path: str, host: HostImage | None = None) -> None:
        """One x86-64 core with the host notes, the AMDGPU note, and every segment."""
        note, mem = self._layout()
        host = host or HostImage()
        notes = self._host_notes(host) + [(NOTE_NAME, NT_AMDGPU_KFD_CORE_STATE, note), *self._extra_notes]
        allmem = [(a, d, s) for a, d, s, _ in mem] + [(a, d, len(d)) for a, d in host.memory]
        segs = [OutSegment(a, d, s, s, load_flags("linux")) for a, d, s in sorted(allmem, key=lambda m: m[0])]
        segs += [OutSegment(a, None, s, 0, load_flags("linux")) for a, s in self._unavailable]
        write_core(path, style="linux", notes=notes, segments=segs)

    def _host_notes(self, host: HostImage) -> list[tuple[str, int, bytes]]:
        """Host notes in the Linux kernel's order: the first thread's NT_PRSTATUS, NT_PRPSINFO (gdb takes
        the pid from it), NT_AUXV, NT_FILE, then the other threads' NT_PRSTATUS."""
        threads = [("CORE", 1, build_prstatus(tid, regs, sig)) for tid, regs, sig in host.threads]
        notes = threads[:1]
        notes.append(("CORE", 3, build_prpsinfo(self.pid, host.fname)))
        notes.append(("CORE", 6, build_auxv(host.auxv)))
        if host.mappings:
            notes.append(("CORE", 0x46494C45, build_nt_file(host.mappings)))
        return notes + threads[1:]


def _elf_load_segments(data: bytes) -> list[tuple[int, bytes]]:
    """(p_vaddr, file bytes) of each PT_LOAD of an ELF64 code object (memsz beyond filesz as zeros)."""
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise ValueError("code object is not an ELF64 file")
    phoff = struct.unpack_from("<Q", data, 32)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    out = []
    for i in range(phnum):
        p_type, _fl, off, vaddr, _pa, filesz, memsz, _al = struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize)
        if p_type == 1 and memsz:
            out.append((vaddr, bytes(data[off : off + filesz]) + bytes(memsz - filesz)))
    return out
