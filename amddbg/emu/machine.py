"""The emulated agent: dispatch a kernel as the HSA runtime does, run its waves, say how it ended.

`Machine(code_object)` loads the code object at a fixed address (its PT_LOAD segments mapped into global
memory, so constant data read through `s_getpc` works), `dispatch()` builds what ROCr and the packet
processor would (an AQL packet, the kernarg segment with the hidden arguments the metadata names, scratch,
each wave's initial SGPRs/VGPRs as the manual's "Initial Kernel Execution State" gives them), and `run()`
schedules the waves round-robin, deterministically, until they end, fault, trap, or cannot progress.

Hang detection: no wave can run (all left are waiting at a barrier that can never complete), or the
machine state repeats (a spin loop polling memory nothing will change).
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import heapq
import random
import struct
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from amddbg.codeobj.elf import PT_LOAD
from amddbg.emu.barriers import (
    CLUSTER_TRAP,
    CLUSTER_USER,
    LATENCY,
    NAMED_IDS,
    NULL_BARRIER,
    TRAP_WORKGROUP,
    WAITING_COUNTERS,
    WORKGROUP,
    WaitCounters,
    WorkgroupBarriers,
    counters_for,
)
from amddbg.emu.blocks import build as build_block
from amddbg.emu.errors import EmulatorError, MemoryViolation, ModeSwitch, Unsupported, WaveStop
from amddbg.emu.gpr_index import IndexedPlans, index_mode
from amddbg.emu.limits import check as check_budget
from amddbg.emu.memory import LDS, PAGE, GlobalMemory
from amddbg.emu.semantics import FP_IGNORED, Ctx, load_all, lookup, per_insn_cache
from amddbg.emu.semantics.fastpath import compile_fast
from amddbg.emu.semantics.salu import enter_trap_handler
from amddbg.emu.wave import ENDED, FAULTED, READY, SLEEPING, TRAPPED, UNSUPPORTED, WAITING_BARRIER, Wave
from amddbg.isa.model import OperandKind, shared_fields

LOAD_ADDRESS = 0x7F00_0000_0000
ARCHITECTED_FLAT_SCRATCH = ("gfx940", "gfx941", "gfx942", "gfx950", "gfx11", "gfx12")
PACKED_TID = ("gfx90a", "gfx940", "gfx941", "gfx942", "gfx950", "gfx11", "gfx12")
QUANTUM = 16
ASLEEP = (SLEEPING, WAITING_COUNTERS)  # the states a wave leaves when the clock reaches its sleep_until
LAUNCH_SPREAD = 2048  # seeded schedules: launch-time spread of the waves, in clocks
# A kernel whose metadata says .uses_dynamic_stack (recursion, indirect calls) gets a private segment of
# max(stack size limit, .private_segment_fixed_size) bytes per work-item, capped at 16 KiB: ROCm CLR (ROCm/clr
# f9f995c, rocclr/device/rocm/rocvirtual.cpp, the dispatch packet's private_segment_size) with the limit
# hipDeviceSetLimit(hipLimitStackSize) sets, 1024 bytes by default for HIP (rocclr/device/device.hpp
# `stack_size_{1024}`; only OpenCL raises it to 16 KiB in Device::create), at most 128 KiB - 16, rounded up to 16
# (Device::UpdateStackSize).
DYNAMIC_STACK = 1024  # hipLimitStackSize's default, bytes of private stack per work-item
DYNAMIC_STACK_MAX = 128 * 1024 - 16  # the largest limit hipDeviceSetLimit accepts
DYNAMIC_STACK_CAP = 16 * 1024  # the most the runtime puts in a dynamic-stack dispatch's private_segment_size
SNAPSHOT_INSTRUCTIONS = 512  # sample the state about this often, at a fixed number of scheduler rounds, at first
SAMPLE_BACKOFF = 16  # samples between doublings of the sampling interval
SAMPLE_SPREAD = 8  # the interval grows to at most this many times its first value


def lds_limit(processor: str) -> int:
    """The most LDS one workgroup may address (static + dynamic): LLVM's addressable local memory size features,
    65536 bytes, 163840 on gfx950, 327680 on GFX12.5 (AMDGPU.td FeatureAddressableLocalMemorySize*)."""
    if processor.startswith("gfx950"):
        return 160 * 1024
    if processor.startswith("gfx125"):
        return 320 * 1024
    return 64 * 1024


def family_of(processor: str) -> str:
    digits = processor[3:]
    if len(digits) >= 4 and digits[:2] in ("10", "11", "12"):
        return "gfx" + digits[:2]
    return "gfx9"


def _startswith_any(processor: str, prefixes: Sequence[str]) -> bool:
    return any(processor.startswith(p) for p in prefixes)


class StepEvent(NamedTuple):
    """What the step hook sees for each executed instruction. A named tuple: one is built per instruction, and
    `_turn` builds it with `tuple.__new__` (a third of a slotted class's __init__)."""

    wave: Wave
    pc: int
    instruction: object
    exec_before: int
    memops: list

    def __repr__(self) -> str:
        return f"StepEvent(wave={self.wave.index}, pc={self.pc:#x}, instruction={self.instruction.text!r})"


_new_tuple = tuple.__new__
_UNBUILT = object()  # a block address not looked at yet (None: looked at, not straight)


class _Code(dict):
    """The decoded instructions by address; replacing one (replay's what-ifs) forgets its execution plan and every
    straight-line block (blocks.py: one may run through it)."""

    def __init__(self, plans: dict, blocks: dict) -> None:
        super().__init__()
        self._plans = plans
        self._blocks = blocks

    def __setitem__(self, pc: int, insn) -> None:
        super().__setitem__(pc, insn)
        self._plans.pop(pc, None)
        self._blocks.clear()


_PLANS: dict[tuple[bool, bool], dict] = {(f, w64): {} for f in (False, True) for w64 in (False, True)}  # (fast, wave64)
_SHARED_PARTS: dict[tuple[bool, bool], dict] = {k: {} for k in _PLANS}  # (fast, wave64): per shared_fields record
@contextlib.contextmanager
def _no_cycle_collection():
    """Python's cyclic garbage collector off while the machine runs or decodes, as it was before afterwards.

    A run allocates constantly (events, lane arrays, per-instruction plans and closures) on a heap that holds
    hundreds of thousands of long-lived decoded instructions and operands, so the collector's full passes rescan
    them again and again: measured on the held-out corpus, half of a fresh run's time (93k -> 180k
    wave-instructions per second without them). A run makes next to no cyclic garbage (a fault's exception and
    traceback kept on its wave); what it does is freed by reference counting as before, and anything cyclic is
    collected once the collector is back on."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


_DECODED: dict[bytes, dict] = {}  # code digest -> {address: Instruction}, most recently used last
_DECODED_KEEP = 8


def forget_decoded() -> None:
    """Drop the per-process decoded code and everything derived per instruction: the next machine starts as in a
    fresh process (bench/emu.py's cold passes; a long-lived tool that wants the memory back)."""
    from amddbg.emu.semantics import forget_instructions

    _DECODED.clear()
    forget_instructions()


def _decoded(processor: str, load: int, co) -> dict:
    """The code object's instructions at `load`, decoded once per process for the same code bytes: machines
    made again for one code object (replay's seeds and what-ifs, a test corpus) then share the instruction
    objects, and with them everything the semantics derived from each instruction on its first execution
    (`per_insn_cache`). Instructions are frozen; a machine that replaces one changes only its own table."""
    from amddbg.isa import decoder_for

    sections = [(sec.address, bytes(sec.data)) for sec in co.code_sections()]
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{processor}@{load:#x}".encode())
    for addr, data in sections:
        h.update(addr.to_bytes(8, "little") + len(data).to_bytes(8, "little") + data)
    key = h.digest()
    table = _DECODED.pop(key, None)
    if table is None:
        dec = decoder_for(processor)
        with _no_cycle_collection():
            table = {insn.address: insn for addr, data in sections for insn in dec.decode_all(data, load + addr)}
    _DECODED[key] = table
    while len(_DECODED) > _DECODED_KEEP:
        del _DECODED[next(iter(_DECODED))]
    return table


def _unsupported(ctx, insn) -> None:
    raise Unsupported(insn.text, insn.address)


@dataclass
class RunResult:
    status: str  # completed | hang | fault | trap | limit | unsupported
    reason: str
    wave_instructions: int
    seconds: float
    waves: list = field(default_factory=list)


@dataclass
class Workgroup:
    id: tuple[int, int, int]
    size: tuple[int, int, int]
    lds: LDS
    waves: list[Wave] = field(default_factory=list)
    arrived: set = field(default_factory=set)


# Loop proofs (amddbg/emu/loopproof.py): the first probe starts after this many wave-instructions, the next ones
# after four times the previous gap each time one fails, so a kernel that runs long without hanging pays little.
PROBE_AFTER = 100_000


def _chain(first: Callable, then: Callable | None) -> Callable:
    if then is None:
        return first

    def both(ev) -> None:
        first(ev)
        then(ev)
    return both


def _nth_permutation(items: list, n: int) -> list:
    """The n-th permutation of `items` in lexicographic order of positions (n modulo len(items)!)."""
    import math

    pool, out = list(items), []
    n %= math.factorial(len(pool))
    while pool:
        f = math.factorial(len(pool) - 1)
        i, n = divmod(n, f)
        out.append(pool.pop(i))
    return out



def kernel_names(demangled: str) -> tuple[str, ...]:
    """The names a user may type for a kernel whose demangled name is `demangled`: the name without its parameter
    list (`void ticket<unsigned int>(unsigned int*)` -> `ticket<unsigned int>`; a template instance's demangled name
    starts with its return type, and its template arguments may hold spaces and parentheses), and that name without
    its namespaces or class (`ns::k` -> `k`)."""
    text = demangled.strip()
    depth, cut = 0, len(text)
    for i in range(len(text) - 1, -1, -1):  # the parameter list is the last top-level (...)
        ch = text[i]
        if ch == ")":
            depth += 1
        elif ch == "(":
            depth -= 1
            if depth == 0:
                cut = i
                break
    head = text[:cut].strip()
    depth, start = 0, 0
    for i, ch in enumerate(head):  # the return type ends at the last space outside <...>
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == " " and depth == 0:
            start = i + 1
    name = head[start:]
    depth, last = 0, -1
    for i, ch in enumerate(name):  # the last `::` outside <...>
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0 and name.startswith("::", i):
            last = i + 2
    return (name, name[last:]) if last > 0 else (name,)

class Machine:
    def __init__(self, code_object, *, seed: int = 0, load_address: int = LOAD_ADDRESS) -> None:
        from amddbg.codeobj import CodeObject

        load_all()
        if isinstance(code_object, str | bytes) or hasattr(code_object, "__fspath__"):
            code_object = CodeObject.from_path(code_object)
        self.co = code_object
        self.processor = code_object.processor.split(":")[0]
        self.family = family_of(self.processor)
        self.seed = seed
        self.memory = GlobalMemory()
        from amddbg.emu.caches import VectorCaches

        self.caches = VectorCaches(self.memory, self.family, self.processor)
        self.load = load_address
        self.clock = 0
        self.waves: list[Wave] = []
        self.groups: list[Workgroup] = []
        self._plans: dict[int, tuple] = {}  # address -> `_plan`, filled as instructions first execute
        self.indexed_plans: dict[tuple, tuple] = {}  # GFX9 VGPR index mode: (address, index, mode) -> plan
        self._blocks: dict[int, tuple | None] = {}  # address -> blocks.build, filled as the turn loop meets them
        self.instructions: dict[int, object] = _Code(self._plans, self._blocks)
        self._ctx = Ctx(None, self)
        self.fast = True  # specialised closures for plain frequent instructions (semantics/fastpath.py)
        self.lanes = 64
        self.kernel = None
        self.dispatch_info: dict = {}
        self._stack_note = ""  # appended to a private-segment fault of a dynamic-stack kernel
        self.buffers: list[dict] = []
        self.device_globals: list[dict] = []  # globals set by dispatch(globals=...) (globalvars.py)
        self.private_ranges: list[tuple[int, int]] = []  # scratch: memory only its own wave reads
        self._shared_changes = 0  # samples at which memory other than scratch had changed
        self.prove_loops = True  # run() proves spin loops that can never end (loopproof.py)
        self.barrier_misuse: list[dict] = []  # barrier misuses (barriers.py): kind, wave, pc, barrier id
        self.clusters = None  # clusters.Clusters of a cluster dispatch (GFX12.5)
        self._map_code_object()

    # -- loading -----------------------------------------------------------------------------------
    def _map_code_object(self) -> None:
        """Map the loadable segments (PT_LOAD: memsz bytes at the load address plus vaddr, filesz of them from the
        file), read from the program headers by amddbg's own ELF reader (pyelftools' construct-based parse of the
        same headers cost about a millisecond per machine: a small launch's fixed cost)."""
        reader = getattr(self.co, "reader", None)
        try:
            if reader is None:
                segs = [(seg["p_type"] == "PT_LOAD", seg["p_vaddr"], seg["p_memsz"], seg.data())
                        for seg in self.co.elf.iter_segments()]
            else:
                segs = [(seg.type == PT_LOAD, seg.vaddr, seg.memsz,
                         reader.bytes_at(seg.offset, seg.filesz, "loadable segment") if seg.filesz else b"")
                        for seg in reader.segments]
            for loadable, vaddr, memsz, data in segs:
                if not loadable:
                    continue
                addr = self.load + vaddr
                self.memory.map(addr, memsz)
                if data:
                    self.memory.write(addr, bytes(data))
        except Exception as exc:  # noqa: BLE001 - pyelftools raises its own types on damage
            raise EmulatorError(f"cannot map the code object's segments: {exc}") from None
        dict.update(self.instructions, _decoded(self.processor, self.load, self.co))

    # -- dispatch ----------------------------------------------------------------------------------
    def find_kernel(self, name: str):
        from amddbg.dwarf.demangle import demangle

        ks = self.co.kernels
        for k in ks:
            if k.name == name or (k.name.endswith(".kd") and k.name[:-3] == name):
                return k
        want = " ".join(name.split())
        for k in ks:
            d = demangle(k.name) or k.name
            if want in (d, *kernel_names(d)):
                return k
        # a template's name without its arguments, when one instance has it
        bare = [k for k in ks if want in {n.split("<")[0] for n in kernel_names(demangle(k.name) or k.name)}]
        if len(bare) == 1:
            return bare[0]
        have = "; ".join(kernel_names(demangle(k.name) or k.name)[0] for k in ks)
        raise EmulatorError(f"no kernel named {name!r} (have: {have})")

    def dispatch(self, kernel: str, grid: Sequence[int], block: Sequence[int], args: Sequence = (),
                 dynamic_lds: int = 0, stack_size: int = DYNAMIC_STACK, globals: Sequence = (),  # noqa: A002
                 named: dict | None = None, cluster: Sequence[int] | None = None) -> None:
        """`cluster`: workgroups per cluster (X, Y, Z) for a kernel without `.cluster_dims` metadata (GFX12.5;
        amddbg/emu/clusters.py), as a HIP launch attribute gives it. `dynamic_lds`: bytes of dynamic LDS (HIP's
        sharedMemBytes for `extern __shared__`), placed after the kernel's static LDS (rounded up to 16 bytes) as
        the runtime does; the packet's group segment size and the hidden_dynamic_lds_size argument say it.
        `stack_size`: hipDeviceSetLimit(hipLimitStackSize), bytes per work-item for a kernel with a dynamic stack
        (see DYNAMIC_STACK); other kernels get their fixed size.
        `globals`: `__device__`/`__constant__` globals to set first (`NAME=TYPE:COUNT[:INIT]` or GlobalSpec;
        amddbg/emu/globalvars.py), read back by `read_globals(m, m.device_globals)`. `named`: buffer name ->
        {"address", ...} for `@NAME` arguments (a launch script's buffers, amddbg/emu/launch.py).
        A machine dispatches again after a run: memory (buffers, globals) stays, the waves and workgroups are
        the new dispatch's, and the vector caches start empty (the packet's acquire fence invalidates them)."""
        from amddbg.emu.args import lay_out_kernargs

        if self.waves or self.groups:
            self._next_dispatch()
        k = self.find_kernel(kernel)
        kd = k.descriptor
        if kd is None:
            raise EmulatorError(f"kernel {k.name} has no kernel descriptor")
        meta = k.metadata
        grid = tuple(list(grid) + [1] * (3 - len(grid)))
        block = tuple(list(block) + [1] * (3 - len(block)))
        if any(g <= 0 for g in grid) or any(b <= 0 for b in block):
            raise EmulatorError("grid and block sizes must be positive")
        max_wg = getattr(meta, "max_flat_workgroup_size", None) or 1024
        if block[0] * block[1] * block[2] > max_wg:
            raise EmulatorError(f"block {block} has {block[0] * block[1] * block[2]} work-items; "
                                f"the kernel allows at most {max_wg}")
        lanes = int(getattr(kd, "wavefront_size", None) or (32 if kd.kernel_code_properties.get(
            "enable_wavefront_size32") else 64))
        self.kernel = k
        self.lanes = lanes
        fields = kd.__dict__ if hasattr(kd, "__dict__") else {}
        del fields
        rsrc2 = kd.compute_pgm_rsrc2
        props = kd.kernel_code_properties
        if dynamic_lds < 0:
            raise EmulatorError("dynamic LDS size must not be negative")
        group_fixed = kd.group_segment_fixed_size
        if dynamic_lds:
            group_fixed = (group_fixed + 15) // 16 * 16 + dynamic_lds
            most = lds_limit(self.processor)
            if group_fixed > most:  # hipLaunchKernel fails the launch (hipErrorInvalidValue) the same way
                raise EmulatorError(f"dynamic LDS {dynamic_lds} bytes: with the kernel's {kd.group_segment_fixed_size}"
                                    f" static bytes a workgroup needs {group_fixed}; {self.processor} has {most}")
        private_size = (kd.private_segment_fixed_size + 3) // 4 * 4
        if not 0 <= stack_size <= DYNAMIC_STACK_MAX:
            raise EmulatorError(f"stack size {stack_size}: hipLimitStackSize takes 0..{DYNAMIC_STACK_MAX} bytes")
        self._stack_note = ""
        if getattr(meta, "uses_dynamic_stack", False):  # recursion or indirect calls: the runtime adds a stack
            limit = (stack_size + 15) // 16 * 16
            private_size = min(max(private_size, limit), DYNAMIC_STACK_CAP)
            self._stack_note = (f" (the kernel uses a dynamic stack: {private_size} bytes per work-item, the larger of"
                                f" its fixed {kd.private_segment_fixed_size} bytes and the {limit}-byte stack size"
                                f" limit hipLimitStackSize, at most {DYNAMIC_STACK_CAP}; raise it with --stack-size)")
        # -- runtime structures
        mem = self.memory
        packet = mem.alloc(64, align=64)
        queue = mem.alloc(256, align=64)
        kernarg_size = max(int(kd.kernarg_size or 0), int(getattr(meta, "kernarg_segment_size", 0) or 0))
        kernarg = mem.alloc(max(kernarg_size, 16), align=64)
        # the bounds are checked on the counts before any per-workgroup or per-wave structure is built
        # (`--grid 4294967295` built a list of 4 billion workgroups before this check saw it)
        n_groups = 1
        for d in range(3):
            n_groups *= (grid[d] + block[d] - 1) // block[d]
        wg_items = block[0] * block[1] * block[2]
        waves_per_group = (wg_items + lanes - 1) // lanes
        per_wave_scratch = (private_size * lanes + 1023) // 1024 * 1024  # the hardware's scratch slot granule
        n_waves = n_groups * waves_per_group
        if n_waves > 1 << 16:
            raise EmulatorError(f"{n_waves} waves: the emulator runs at most 65,536 waves per dispatch")
        check_budget(per_wave_scratch * n_waves, f"scratch for {n_waves} waves ({per_wave_scratch} bytes each)")
        check_budget(n_groups * max(group_fixed, 0), f"LDS for {n_groups} workgroups ({group_fixed} bytes each)")
        from amddbg.emu import clusters

        dims = clusters.resolve(self.processor, meta, cluster, tuple((grid[d] + block[d] - 1) // block[d]
                                                                     for d in range(3)))
        self.clusters = clusters.Clusters(dims) if dims else None
        groups = [(gx, gy, gz) for gz in range((grid[2] + block[2] - 1) // block[2])
                  for gy in range((grid[1] + block[1] - 1) // block[1])
                  for gx in range((grid[0] + block[0] - 1) // block[0])]
        if globals:
            from amddbg.emu.globalvars import place_globals

            self.device_globals += place_globals(self, globals)
        scratch = mem.alloc(max(per_wave_scratch * n_waves, 4), align=256) if per_wave_scratch else 0
        self.private_ranges = [(scratch, scratch + per_wave_scratch * n_waves)] if per_wave_scratch else []
        kernargs, self.buffers = lay_out_kernargs(self, k, args, grid=grid, block=block, queue=queue,
                                                  packet=packet, size=kernarg_size, dynamic_lds=dynamic_lds,
                                                  named=named)
        mem.write(kernarg, kernargs)
        dims = 3 if grid[2] > 1 else 2 if grid[1] > 1 else 1
        pkt = struct.pack("<HHHHHHIIIIIQQQQ", 2 | (1 << 8), dims, block[0], block[1], block[2], 0, grid[0], grid[1],
                          grid[2], private_size, group_fixed, self.load + kd.address, kernarg, 0, 0)
        mem.write(packet, pkt)
        self.dispatch_info = {"kernel": k.name, "grid": grid, "block": block, "packet": packet, "queue": queue,
                              "kernarg": kernarg, "scratch": scratch, "private_size": private_size,
                              "group_segment_size": group_fixed, "kernel_object": self.load + kd.address,
                              "entry": self.load + kd.entry_address}
        # -- waves
        architected = _startswith_any(self.processor, ARCHITECTED_FLAT_SCRATCH)
        packed = _startswith_any(self.processor, PACKED_TID)
        vgprs = (kd.compute_pgm_rsrc1["granulated_workitem_vgpr_count"] + 1) * (8 if lanes == 32 and self.family !=
                                                                                 "gfx9" else 4)
        vgprs = max(vgprs, 32)
        index = 0
        from amddbg.emu.ldsbounds import LdsBounds, allocation

        self.lds_bounds = LdsBounds(self)  # LDS in granules; accesses past the requested size noted (ldsbounds.py)
        lds_alloc = allocation(self.processor, group_fixed)
        for gi, g in enumerate(groups):
            size = tuple(min(block[d], grid[d] - g[d] * block[d]) for d in range(3))
            wg = Workgroup(g, size, LDS(max(group_fixed, 0), lds_alloc, self.lds_bounds.note))
            self.groups.append(wg)
            items = size[0] * size[1] * size[2]
            for wi in range((items + lanes - 1) // lanes):
                w = Wave(family=self.family, processor=self.processor, lanes=lanes, vgprs=vgprs, workgroup=g,
                         wave_in_group=wi, group_key=gi, index=index)
                w.private_size = private_size
                w.scratch_base = scratch + index * per_wave_scratch
                if architected:
                    w.flat_scratch = w.scratch_base
                self._initial_state(w, kd, rsrc2, props, packet, queue, kernarg, scratch, index * per_wave_scratch,
                                    private_size, architected, packed, size, wi, items)
                if self.clusters is not None:
                    self.clusters.set_registers(w)
                wg.waves.append(w)
                self.waves.append(w)
                index += 1

    def _next_dispatch(self) -> None:
        """Forget the last dispatch's waves and workgroups before another one on the same memory. Stores still in
        flight reach memory; the CU caches start empty, as the AQL packet's system-scope acquire leaves them."""
        self.caches.drain_all()
        self.caches.lines.clear()
        self.caches.gl1.clear()
        self.caches.scalar.clear()  # "CP invalidates the L1 cache at the start of each kernel dispatch" (scalar too)
        self.waves, self.groups = [], []
        self.barrier_misuse = []
        self.clusters = None
        self._stepped = -1
        self._shared_changes = 0

    def _initial_state(self, w, kd, rsrc2, props, packet, queue, kernarg, scratch, wave_offset, private_size,
                       architected, packed, size, wi, items) -> None:
        s = []
        if props.get("enable_sgpr_private_segment_buffer"):
            stride_code = 3 if w.lanes == 64 else 2
            s += [scratch & 0xFFFFFFFF, ((scratch >> 32) & 0xFFFF) | (1 << 31), 0xFFFFFFFF,
                  (1 << 19) | (stride_code << 21) | (1 << 23)]
        if props.get("enable_sgpr_dispatch_ptr"):
            s += [packet & 0xFFFFFFFF, packet >> 32]
        if props.get("enable_sgpr_queue_ptr"):
            s += [queue & 0xFFFFFFFF, queue >> 32]
        if props.get("enable_sgpr_kernarg_segment_ptr"):
            s += [kernarg & 0xFFFFFFFF, kernarg >> 32]
        if props.get("enable_sgpr_dispatch_id"):
            s += [0, 0]
        if props.get("enable_sgpr_flat_scratch_init"):
            if self.family == "gfx9":
                s += [scratch & 0xFFFFFFFF, scratch >> 32]
            else:
                s += [(scratch + wave_offset) & 0xFFFFFFFF, (scratch + wave_offset) >> 32]
        if props.get("enable_sgpr_private_segment_size"):
            s += [private_size]
        preload = kd.kernarg_preload.get("length", 0) if isinstance(kd.kernarg_preload, dict) else 0
        if preload:
            raw = self.memory.read(kernarg + 4 * kd.kernarg_preload.get("offset", 0), 4 * preload)
            s += list(struct.unpack(f"<{preload}I", raw))
        user = rsrc2.get("user_sgpr_count", len(s))
        s = (s + [0] * user)[:max(user, len(s))]
        n = user
        sysregs = []
        if rsrc2.get("enable_sgpr_workgroup_id_x"):
            sysregs.append(w.workgroup[0])
        if rsrc2.get("enable_sgpr_workgroup_id_y"):
            sysregs.append(w.workgroup[1])
        if rsrc2.get("enable_sgpr_workgroup_id_z"):
            sysregs.append(w.workgroup[2])
        if rsrc2.get("enable_sgpr_workgroup_info"):
            sysregs.append(0)
        if rsrc2.get("enable_private_segment") and not architected:
            sysregs.append(wave_offset)
        if self.family == "gfx12":  # architected SGPRs: workgroup ids in TTMP9 (x) and TTMP7 (y | z << 16)
            w.ttmp[9] = w.workgroup[0]
            w.ttmp[7] = (w.workgroup[1] & 0xFFFF) | (w.workgroup[2] & 0xFFFF) << 16
            sysregs = [r for r in sysregs if False] + ([wave_offset] if rsrc2.get("enable_private_segment") and
                                                       not architected else [])
        for i, v in enumerate(s[:n] + sysregs):
            w.s[i] = v & 0xFFFFFFFF
        # work-item ids
        flat = np.arange(w.lanes) + wi * w.lanes
        valid = flat < items
        x = (flat % size[0]).astype(np.uint32)
        y = ((flat // size[0]) % size[1]).astype(np.uint32)
        z = (flat // (size[0] * size[1])).astype(np.uint32)
        dims = rsrc2.get("enable_vgpr_workitem_id", 0)
        if packed:
            v0 = x | ((y << np.uint32(10)) if dims > 0 else 0) | ((z << np.uint32(20)) if dims > 1 else 0)
            w.v[0] = np.where(valid, v0, 0).astype(np.uint32)
        else:
            w.v[0] = np.where(valid, x, 0)
            if dims > 0:
                w.v[1] = np.where(valid, y, 0)
            if dims > 1:
                w.v[2] = np.where(valid, z, 0)
        w.exec = Wave.to_mask(valid)
        w.pc = self.load + kd.entry_address
        r1 = kd.compute_pgm_rsrc1
        w.mode = (r1.get("float_round_mode_32", 0) | r1.get("float_round_mode_16_64", 0) << 2
                  | r1.get("float_denorm_mode_32", 0) << 4 | r1.get("float_denorm_mode_16_64", 0) << 6
                  | r1.get("enable_dx10_clamp", 0) << 8 | r1.get("enable_ieee_mode", 0) << 9)

    # -- services for semantics ---------------------------------------------------------------------
    def lds_of(self, w: Wave) -> LDS:
        return self.groups[w.group_key].lds

    def sleep(self, w: Wave, n: int) -> None:
        w.state = SLEEPING
        w.sleep_until = self.clock + 64 * max(1, n)

    # -- barriers, wait counters, traps (amddbg/emu/barriers.py; docs/emulator.md "Scheduling and hangs") ---
    def barriers_of(self, g: Workgroup) -> WorkgroupBarriers:
        """The workgroup's barrier objects, made on first use (expected count: its waves not yet ended)."""
        bars = getattr(g, "barriers", None)
        if bars is None:
            bars = g.barriers = WorkgroupBarriers(g, self.processor, self.family)
        return bars

    def _misuse(self, w: Wave, insn, found) -> None:
        for kind, bid, detail in found:
            self.barrier_misuse.append({"kind": kind, "workgroup": w.workgroup, "wave_in_group": w.wave_in_group,
                                        "wave": w.index, "pc": insn.address if insn is not None else w.pc,
                                        "barrier": bid, "detail": detail})

    def _barrier_id(self, w: Wave, insn, bars: WorkgroupBarriers) -> tuple[int | None, int]:
        """(barrier id, expected count or 0) of a barrier instruction, as the manual's GFX12 table says: an
        immediate, or M0 (signal: id in M0[4:0], new expected count in M0[22:16]; init/join: id in the lower
        half, init's count in the upper half). None: the instruction does nothing (the NULL barrier) or names
        a barrier this target lacks (a misuse)."""
        count = 0
        ops = [o for o in insn.operands if not o.is_dest]
        mn = insn.mnemonic
        if not ops:
            bid = WORKGROUP
        elif ops[0].kind is OperandKind.SPECIAL and ops[0].text == "m0":
            if mn.startswith("s_barrier_signal"):
                bid, count = w.m0 & 0x1F, w.m0 >> 16 & 0x7F
            else:
                bid, count = w.m0 & 0xFFFF, (w.m0 >> 16 & 0xFFFF if mn == "s_barrier_init" else 0)
        else:
            v = int(ops[0].value or 0) & 0xFFFF
            bid = v - 0x10000 if v >> 15 else v
            if mn == "s_barrier_init":
                count = w.m0 >> 16 & 0xFFFF
        if bid == CLUSTER_USER and self.clusters is not None:
            return bid, 0
        if bid == CLUSTER_TRAP and self.clusters is not None:
            self._misuse(w, insn, [("privileged_barrier", bid, "barrier -4 belongs to the trap handler")])
            return None, 0
        if bid in (CLUSTER_USER, CLUSTER_TRAP):
            raise Unsupported(f"{insn.text} (cluster barrier in a dispatch without workgroup clusters: give the "
                              f"kernel __cluster_dims__ or run it with --cluster X,Y,Z)", insn.address)
        if bid == TRAP_WORKGROUP and TRAP_WORKGROUP in bars.objects:
            self._misuse(w, insn, [("privileged_barrier", bid, "barrier -2 belongs to the trap handler")])
            return None, 0
        if bid not in bars.objects:
            self._misuse(w, insn, [("bad_barrier_id", bid, f"{self.processor} has no barrier {bid}")])
            return None, 0
        return (None if bid == NULL_BARRIER else bid), count

    def barrier_signal(self, w: Wave, insn) -> None:
        """Arrive (`s_barrier`'s first half, `s_barrier_signal[_isfirst]`); completes the barrier if due."""
        g = self.groups[w.group_key]
        bars = self.barriers_of(g)
        bid, count = self._barrier_id(w, insn, bars)
        if bid is None:
            return
        if bid == CLUSTER_USER:
            from amddbg.emu import clusters

            return clusters.arrive(self, w, insn)
        found, first = bars.arrive(w.wave_in_group, bid, count if bid in NAMED_IDS else None)
        self._misuse(w, insn, found)
        if insn.mnemonic == "s_barrier_signal_isfirst":
            w.scc = int(first)
        self._check_barrier(g, bid)

    def barrier_wait(self, w: Wave, insn) -> None:
        """Wait (`s_barrier`'s second half, `s_barrier_wait`): block unless the wave's arrival completed.
        A named id waits on the named barrier the wave joined last."""
        g = self.groups[w.group_key]
        bars = self.barriers_of(g)
        if insn.mnemonic == "s_barrier":
            bid = WORKGROUP
        else:
            bid, _ = self._barrier_id(w, insn, bars)
            if bid is None:
                return
            if bid == CLUSTER_USER:
                from amddbg.emu import clusters

                return clusters.wait(self, w, insn)
            if bid in NAMED_IDS:
                bid = bars.joined.get(w.wave_in_group, NULL_BARRIER)
                if bid == NULL_BARRIER:
                    self._misuse(w, insn, [("wait_not_joined", None, "s_barrier_wait on a named barrier the "
                                            "wave has not joined (the wait does nothing)")])
                    return
        found, block = bars.must_wait(w.wave_in_group, bid)
        self._misuse(w, insn, found)
        if block:
            bars.waiting[w.wave_in_group] = bid
            w.state = WAITING_BARRIER

    def barrier_init(self, w: Wave, insn) -> None:
        """`s_barrier_init`: a named barrier's expected count from M0[22:16], its arrive count to zero."""
        g = self.groups[w.group_key]
        bars = self.barriers_of(g)
        bid, count = self._barrier_id(w, insn, bars)
        if bid is not None:
            self._misuse(w, insn, bars.init(bid, count))

    def barrier_join(self, w: Wave, insn) -> None:
        """`s_barrier_join`: the wave may wait on this named barrier (joining 0, the NULL barrier, unjoins)."""
        bars = self.barriers_of(self.groups[w.group_key])
        bid, _ = self._barrier_id(w, insn, bars)
        bars.join(w.wave_in_group, NULL_BARRIER if bid is None else bid)

    def barrier_leave(self, w: Wave, insn) -> None:
        """`s_barrier_leave`: drop the named barrier the wave joined last."""
        g = self.groups[w.group_key]
        bars = self.barriers_of(g)
        found, bid = bars.leave(w.wave_in_group)
        self._misuse(w, insn, found)
        if bid is not None:
            self._check_barrier(g, bid)

    def _check_barrier(self, g: Workgroup, bid: int = WORKGROUP) -> None:
        """Complete barrier `bid` if its arrive count reached its expected count, and release its waiters
        (waves restored from a core wait on the workgroup barrier)."""
        bars = self.barriers_of(g)
        if not bars.complete_if_due(bid):
            return
        for x in g.waves:
            if x.state == WAITING_BARRIER and bars.waiting.get(x.wave_in_group, WORKGROUP) == bid:
                x.state = READY
                x.pc = getattr(x, "resume_pc", x.pc)
                bars.waiting.pop(x.wave_in_group, None)
                bars.arrive_phase.pop((x.wave_in_group, bid), None)

    def barrier_view(self) -> list[dict]:
        """Per workgroup, per barrier object: expected and arrive counts, member, arrived and waiting waves
        (wave_in_group numbers), the phase (completions so far); `info barriers` and explain read it."""
        out = [{"workgroup": g.id, "barriers": self.barriers_of(g).view()} for g in self.groups]
        if self.clusters is not None:  # each workgroup lists its cluster's barrier -3 with its own waiting waves
            for g, row in zip(self.groups, out, strict=True):
                b = self.clusters.barrier(g.id)
                v = b.view(self.clusters.cluster_of(g.id))
                v["waiting"] = sorted(x.wave_in_group for x in g.waves if x.index in b.waiting)
                row["barriers"].append(v)
        return out

    def wait_counters(self, w: Wave, limits: dict[str, int]) -> bool:
        """True when the wave must wait for `limits` (counter -> most outstanding allowed): it is then
        `at waitcnt` until the clock at which the counters allow (its s_waitcnt issues again then)."""
        c = w.counters
        if c is None or not c.pending:
            return False
        t = c.ready_at(limits, self.clock)  # (which retires the counters it finds complete)
        if t <= self.clock:
            return False
        w.state = WAITING_COUNTERS
        w.sleep_until = t
        w.blocked_waits = getattr(w, "blocked_waits", 0) + 1  # (waves restored from a core start without it)
        return True

    def _barrier_bytes(self) -> list[bytes]:
        """Each workgroup's barrier state (`WorkgroupBarriers.state_bytes`), for the groups that have barriers."""
        out = []
        for g in self.groups:
            bars = getattr(g, "barriers", None)
            if bars is not None:
                out.append(bars.state_bytes())
        return out

    def sync_state_bytes(self, barrier_bytes: list[bytes] | None = None) -> bytes:
        """Barrier objects and outstanding wait counters, for `fingerprint` (a wave waiting on a counter
        or a barrier phase is not stuck while these change). `barrier_bytes`: `_barrier_bytes()` already taken."""
        parts = list(barrier_bytes) if barrier_bytes is not None else self._barrier_bytes()
        if self.clusters is not None:
            parts.append(self.clusters.state_bytes())
        for w in self.waves:
            if getattr(w, "async_lds", None):
                from amddbg.emu.semantics.asynclds import pending_state

                parts.append(w.index.to_bytes(4, "little") + pending_state(w))
            c = getattr(w, "counters", None)
            if c is not None and c.pending:
                parts.append(w.index.to_bytes(4, "little") + c.state_bytes(self.clock))
        return b"#".join(parts)

    # -- execution ----------------------------------------------------------------------------------
    def _plan(self, pc: int) -> tuple | None:
        """What executing the instruction at `pc` needs besides the wave, derived once per address: (instruction,
        semantic function, fall-through PC, wait counters it increments as (counter, latency) pairs). None: no
        instruction there. Replacing an entry of `instructions` (replay's what-ifs) drops its plan."""
        insn = self.instructions.get(pc)
        if insn is None:
            return None
        plan = self._plans[pc] = per_insn_cache(_PLANS[self.fast, self.lanes == 64], insn, self._make_plan)
        return plan

    def _plan_at(self, pc: int) -> tuple | None:
        """`_plan(pc)`, from the table when it was made before."""
        return self._plans.get(pc) or self._plan(pc)

    def _make_plan(self, insn) -> tuple:
        """The plan of one instruction: a function of the instruction, the generation (fixed by the decoded code
        it belongs to) and the wave size, so it is kept with the instruction across machines. Its semantic
        function and counters depend on the encoding alone (branches aside: their closures hold the target), so
        instructions decoded from the same bytes share them (`shared_fields`)."""
        shared = shared_fields(insn)
        if shared is None or insn.is_branch:
            fn, counters = self._plan_parts(insn)
        else:
            fn, counters = per_insn_cache(_SHARED_PARTS[self.fast, self.lanes == 64], shared,
                                          lambda _shared: self._plan_parts(insn))
        return (insn, fn, insn.address + insn.size, counters)

    def _plan_parts(self, insn) -> tuple:
        """(semantic function, wait counters the instruction increments as (counter, latency) pairs)."""
        fn = lookup(insn)
        if fn is None:
            fn = _unsupported
        elif self.fast:
            fn = compile_fast(insn, fn, self.lanes) or fn
        counters = ()
        if insn.memory is not None or insn.encoding in ("SOP1", "SOPP", "SMEM", "SOPK"):
            counters = tuple((counter, LATENCY[kind]) for counter, kind in counters_for(self.family, insn))
        return fn, counters

    def count_issue(self, w: Wave, insn) -> None:
        """Put an issued memory instruction on the wave's wait counters with its completion clock."""
        if insn.memory is None and insn.encoding not in ("SOP1", "SOPP", "SMEM", "SOPK"):
            return
        for counter, kind in counters_for(self.family, insn):
            self._issue(w, counter, LATENCY[kind])

    def _issue(self, w: Wave, counter: str, latency: int) -> None:
        c = w.counters
        if c is None:
            c = w.counters = WaitCounters()
        c.issue(counter, self.clock, latency)

    def step_wave(self, w: Wave, hook: Callable | None = None) -> None:
        """Execute one instruction of the ready wave `w` (`hook(StepEvent)` after it)."""
        self._turn(w, 1, hook)

    def _raised(self, w: Wave, insn, exc: Exception, exec_before: int, memops: list, hook: Callable | None) -> None:
        """An instruction ended its wave: a memory violation faults it, s_endpgm ends it (counted and shown to the
        hook, its PC left on the s_endpgm), a trap or unsupported instruction stops it; a mode switch completed
        its instruction (the turn ends there)."""
        if isinstance(exc, ModeSwitch):
            w.instructions += 1
            self.clock += 1
            if hook is not None:
                hook(_new_tuple(StepEvent, (w, insn.address, insn, exec_before, memops)))
            w.pc = insn.address + insn.size
            return
        if isinstance(exc, MemoryViolation):
            w.fault = exc  # the access, address and lanes (replay names them after the kernel's arguments)
            stack = self._stack_note if "private segment" in exc.reason else ""  # a dynamic stack overrun
            self._stop(w, FAULTED, exc.reason + stack)
            return
        if exc.state == ENDED:
            w.pc = insn.address
            w.instructions += 1
            self._stop(w, ENDED, exc.reason)
            if hook is not None:
                hook(_new_tuple(StepEvent, (w, insn.address, insn, exec_before, memops)))
            return
        self._stop(w, exc.state, exc.reason)

    def _turn(self, w: Wave, n: int, hook: Callable | None, visits: dict | None = None) -> int:
        """Up to `n` instructions of `w` while it stays ready (the scheduler's hot path: the lookups are hoisted
        out of the loop). Returns how many were stepped, as `run` counts them: an instruction that ends, faults
        or traps the wave counts, and so does a PC outside the code, which faults it. `visits` (PC -> count): the
        loop prover's first window counted here, for every instruction its hook would be shown except
        s_waitcnt (loopproof.Prover.hook, phase 1), without building the step events."""
        indexed = index_mode(w)
        plans = IndexedPlans(self, w) if indexed else self._plans
        ctx = self._ctx  # one context, reset per instruction (semantics never keep it)
        ctx.wave = w
        issue = self._issue
        # straight-line blocks (blocks.py) when nothing watches each instruction; GFX9 index mode renames operands
        blocks = self._blocks if hook is None and not indexed else None
        done = 0
        while done < n and w.state == READY:
            if blocks is not None:
                pc = w.pc
                blk = blocks.get(pc, _UNBUILT)
                if blk is _UNBUILT:
                    blk = blocks[pc] = build_block(self._plan_at, pc)
                if blk is not None:
                    calls, addrs, called = blk
                    k = len(addrs) - 1
                    room = n - done
                    if k > room:  # the turn ends inside the block
                        k = room
                        calls = calls[:called[room]]
                    try:
                        for fn, insn, j in calls:  # noqa: B007  (j: read by the except clause)
                            fn(ctx, insn)
                    except (MemoryViolation, WaveStop) as exc:  # (the instructions before it completed)
                        w.instructions += j
                        self.clock += j
                        done += j
                        if visits is not None:
                            for a in addrs[:j]:
                                visits[a] = visits.get(a, 0) + 1
                            if isinstance(exc, ModeSwitch) or (
                                    not isinstance(exc, MemoryViolation) and exc.state == ENDED):
                                visits[insn.address] = visits.get(insn.address, 0) + 1
                        w.pc = insn.address
                        self._raised(w, insn, exc, w.exec, [], None)
                        return done + 1
                    w.instructions += k
                    self.clock += k
                    done += k
                    if visits is not None:
                        for a in addrs[:k]:
                            visits[a] = visits.get(a, 0) + 1
                    w.pc = addrs[k]
                    continue
            plan = plans.get(w.pc) or self._plan(w.pc)
            if plan is None:
                self._stop(w, FAULTED, f"no instruction at {w.pc:#x} (the PC left the code object)")
                return done + 1
            insn, fn, fallthrough, counters = plan
            ctx.memops = memops = []
            ctx.next_pc = None
            exec_before = w.exec
            try:
                fn(ctx, insn)
                if counters:
                    for counter, latency in counters:
                        issue(w, counter, latency)
            except (MemoryViolation, WaveStop) as exc:
                if visits is not None and not insn.is_waitcnt and (isinstance(exc, ModeSwitch) or (
                        not isinstance(exc, MemoryViolation) and exc.state == ENDED)):  # (the events _raised shows)
                    visits[insn.address] = visits.get(insn.address, 0) + 1
                self._raised(w, insn, exc, exec_before, memops, hook)
                return done + 1
            done += 1
            w.instructions += 1
            self.clock += 1
            if hook is not None:
                hook(_new_tuple(StepEvent, (w, insn.address, insn, exec_before, memops)))
            if visits is not None and not insn.is_waitcnt:
                visits[insn.address] = visits.get(insn.address, 0) + 1
            if w.state == WAITING_BARRIER:
                w.pc = insn.address  # a wave waiting at a barrier is saved with its PC on the barrier
                w.resume_pc = fallthrough
                break
            next_pc = ctx.next_pc
            w.pc = fallthrough if next_pc is None else next_pc
        return done

    def _stop(self, w: Wave, state: str, reason: str) -> None:
        w.state = state
        w.reason = reason
        if state == ENDED:  # the implicit drop: an ending wave drops the workgroup barrier (not named ones)
            if getattr(w, "async_lds", None):  # its async copies to LDS still land (semantics/asynclds.py)
                from amddbg.emu.semantics.asynclds import land

                land(self, w)
            g = self.groups[w.group_key]
            bars = self.barriers_of(g)
            for bid in (WORKGROUP, TRAP_WORKGROUP):
                b = bars.objects.get(bid)
                if b is not None and w.wave_in_group in b.members:
                    self._misuse(w, None, bars.drop(w.wave_in_group, bid))
                    self._check_barrier(g, bid)
            if self.clusters is not None and all(x.state == ENDED for x in g.waves):
                from amddbg.emu import clusters

                clusters.workgroup_ended(self, g)
        elif state in (TRAPPED, FAULTED):
            enter_trap_handler(self, w, state)

    def step(self, hook: Callable | None = None) -> StepEvent | None:
        with np.errstate(all="ignore"), _no_cycle_collection():
            FP_IGNORED[0] += 1
            try:
                return self._step(hook)
            finally:
                FP_IGNORED[0] -= 1

    def run(self, max_instructions: int | None = None, hook: Callable | None = None) -> RunResult:
        """Run the dispatch until every wave ended, one stopped it (fault, trap, unsupported instruction), it
        hangs, or `max_instructions` wave-instructions ran; `hook(StepEvent)` after every instruction.
        numpy's floating-point warnings are off for the whole run (wrapping and NaNs are the semantics)."""
        with np.errstate(all="ignore"), _no_cycle_collection():
            FP_IGNORED[0] += 1
            try:
                return self._run(max_instructions, hook)
            finally:
                FP_IGNORED[0] -= 1

    def _step(self, hook: Callable | None = None) -> StepEvent | None:
        """Execute one instruction of the next ready wave (round-robin from the last one stepped), waking
        sleeping and counter-waiting waves when the clock allows; the `StepEvent`, or None when no wave can run
        (every wave ended, stopped, or waits at a barrier). For scripts and teaching: `run()` is the fast path."""
        if any(w.state in (TRAPPED, FAULTED, UNSUPPORTED) for w in self.waves):
            return None
        while True:
            for w in self.waves:
                if w.state in (SLEEPING, WAITING_COUNTERS) and w.sleep_until <= self.clock:
                    w.state = READY
            ready = [w for w in self.waves if w.state == READY]
            if ready:
                break
            waiting = [w for w in self.waves if w.state in (SLEEPING, WAITING_COUNTERS)]
            if not waiting:
                return None
            self.clock = max(self.clock, min(w.sleep_until for w in waiting))
        last = getattr(self, "_stepped", -1)
        w = next((x for x in ready if x.index > last), ready[0])
        self._stepped = w.index
        seen: list = []
        self.step_wave(w, lambda ev: (seen.append(ev), hook(ev) if hook is not None else None))
        return seen[0] if seen else None

    def _run(self, max_instructions: int | None, hook: Callable | None) -> RunResult:
        t0 = time.perf_counter()
        total = 0
        seen: set[bytes] = set()
        quiet_seen: dict[bytes, tuple] = {}  # quiet_fingerprint -> (shared changes, LDS writes) when sampled
        rounds = 0
        rng = random.Random(self.seed) if self.seed else None  # seed 0: deterministic round-robin
        if rng is not None:  # a seeded schedule also launches the waves at different times, as a dispatcher may:
            fresh = [w for w in self.waves if w.state == READY and w.instructions == 0]
            if self.seed % 2:  # odd seeds: one after another, the (seed // 2)-th launch order (1, 3, 5... cover all)
                fresh = _nth_permutation(fresh, self.seed // 2)
            for k, w in enumerate(fresh):  # even seeds: all within LAUNCH_SPREAD clocks
                delay = k * LAUNCH_SPREAD + rng.randrange(64) if self.seed % 2 else rng.randrange(LAUNCH_SPREAD)
                w.state, w.sleep_until = SLEEPING, self.clock + delay
        caches = self.caches
        sample_every = first_every = samples = 0  # rounds between state samples, set at the first round (below)
        prover, probe_at, probe_gap, phase_end, stretch = None, PROBE_AFTER, PROBE_AFTER, 0, 1  # loop proofs
        user_hook = hook
        counting = None  # the loop prover's first-window PC counts, when `_turn` takes them (below)
        while True:
            stopped = [w for w in self.waves if w.state in (TRAPPED, FAULTED, UNSUPPORTED)]
            if stopped:
                w = stopped[0]
                status = {TRAPPED: "trap", FAULTED: "fault", UNSUPPORTED: "unsupported"}[w.state]
                for x in self.waves:
                    if x.state in (READY, SLEEPING, WAITING_COUNTERS):
                        x.state, x.reason = "halted", "the dispatch stopped (another wave trapped or faulted)"
                return self._result(status, w.reason, total, t0)
            ready = [w for w in self.waves if w.state == READY]
            if not ready:
                sleeping = [w for w in self.waves if w.state in (SLEEPING, WAITING_COUNTERS)]
                if sleeping:
                    self.clock = max(self.clock, min(w.sleep_until for w in sleeping))
                    for w in sleeping:
                        if w.sleep_until <= self.clock:
                            w.state = READY
                    continue
                waiting = [w for w in self.waves if w.state == WAITING_BARRIER]
                if waiting:
                    note = ""
                    if self.clusters is not None:
                        from amddbg.emu.clusters import hang_note

                        note = hang_note(self)
                    return self._result("hang", f"{len(waiting)} wave(s) wait at a barrier that can never complete"
                                        + (f" ({note})" if note else ""), total, t0)
                return self._result("completed", "every wave ended", total, t0)
            if rng is not None:  # a seeded schedule: the turn order and each turn's length are drawn from the seed
                rng.shuffle(ready)
            if prover is None and total >= probe_at and self.prove_loops:
                from amddbg.emu.loopproof import Prover

                live = sum(1 for w in self.waves if w.state in (READY, SLEEPING, WAITING_COUNTERS))
                prover = Prover(self) if live else None
                # long enough to see an outer loop twice; each failed probe lengthens the windows as it lengthens the
                # gap, so a loop whose iteration is long (-O0 code calling helpers: a wave reduction through five
                # __shfl_xor calls is ~1,500 instructions) is seen whole by a later probe, at the same share of the run
                stretch = probe_gap // PROBE_AFTER
                phase_end = total + max(8192, 1024 * live) * stretch
                if prover is not None:
                    hook = _chain(prover.hook, user_hook)
                    # (with no hook of the caller's, the first window's PC counts are taken in `_turn` itself)
                    counting = prover.visits if user_hook is None else None
            elif prover is not None and prover.phase == 1 and total >= phase_end:
                counting = None
                prover.start_phase2()
                phase_end = total + max(16384, 4096 * len(prover.live())) * stretch
            elif prover is not None and prover.phase == 2 and (total >= phase_end or prover.ready()):
                why = prover.result() if prover.ready() else None
                if why is not None:
                    return self._result("hang", why, total, t0)
                prover, hook, counting = None, user_hook, None
                probe_gap *= 4
                probe_at = total + probe_gap
            # Sleeping and counter-waiting waves wake when the clock reaches their time, checked after every turn as
            # a heap of (wake clock, order, wave): only the running wave falls asleep during its turn (s_sleep,
            # s_waitcnt), so the heap holds every sleeper with its current time once the turn's wave is pushed, and
            # each turn costs O(log waves) instead of a pass over every wave (throughput used to fall with the wave
            # count). An entry whose wave woke or slept again since is skipped when it comes out.
            heap = [(x.sleep_until, k, x) for k, x in enumerate(self.waves) if x.state in ASLEEP]
            heapq.heapify(heap)
            order = len(heap) + len(self.waves)
            for w in ready:
                turn = rng.randint(1, QUANTUM) if rng is not None else QUANTUM
                if max_instructions is not None:
                    turn = min(turn, max_instructions - total)
                if caches.delayed:  # the delayed write path acts around every instruction
                    for _ in range(turn):
                        if w.state != READY:
                            break
                        insn = self.instructions.get(w.pc)
                        caches.before_step(w, insn)
                        self.step_wave(w, hook)
                        caches.after_step(w, insn, self.family)
                        total += 1
                elif counting is not None:
                    total += self._turn(w, turn, None, counting.setdefault(w, {}))
                else:
                    total += self._turn(w, turn, hook)
                if max_instructions is not None and total >= max_instructions:
                    return self._result("limit", f"stopped after {total} wave-instructions (the instruction limit)",
                                        total, t0)
                if w.state in ASLEEP:
                    order += 1
                    heapq.heappush(heap, (w.sleep_until, order, w))
                clock = self.clock
                while heap and heap[0][0] <= clock:
                    x = heapq.heappop(heap)[2]
                    if x.state in ASLEEP and x.sleep_until <= clock:
                        x.state = READY
                if w.state in (TRAPPED, FAULTED, UNSUPPORTED):
                    break
            # The state at scheduler-round boundaries is a function of the previous round's state, so sampling every
            # K-th round (K fixed) sees a repeat within one period of the machine: a loop whose state cycles through
            # several values (an -O0 spill slot alternating) is caught as soon as it comes back.
            # K doubles every SAMPLE_BACKOFF samples up to SAMPLE_SPREAD times its first value: every multiple of the
            # new K is one of the old, so the argument holds once K stops growing; a kernel that spins at once is
            # still caught within a few hundred instructions, and a long run does not spend its time hashing.
            rounds += 1
            if not sample_every:
                sample_every = first_every = max(1, SNAPSHOT_INSTRUCTIONS // max(1, total))
            if rounds % sample_every == 0 and not caches.pending_stores():  # stores in flight still change memory
                samples += 1
                if samples % SAMPLE_BACKOFF == 0 and sample_every < SAMPLE_SPREAD * first_every:
                    sample_every *= 2
                if any(not any(lo <= p * PAGE < hi for lo, hi in self.private_ranges) for p in self.memory.dirty):
                    self._shared_changes += 1  # (read before the digests below clear the dirty pages)
                # (only where nothing random acts: a seeded schedule or random cache evictions and drains could
                # still let a wave see something new from the same state)
                parts = self._state_parts()
                quiet = self.quiet_fingerprint(parts) if rng is None and caches.rng is None else None
                mark = (self._shared_changes, self._lds_writes())
                live = [w for w in self.waves if w.state in (READY, SLEEPING, WAITING_COUNTERS)]
                ran = tuple(w.instructions - getattr(w, "blocked_waits", 0) for w in live)
                before = quiet_seen.get(quiet) if quiet is not None else None
                # the same state, and every live wave ran in between: each re-runs the same instructions on the
                # same values (a wave that only waited on a counter for a load still in flight has not re-run
                # anything; the load it waits for may change what it does next). A blocked s_waitcnt is counted
                # in `instructions` but retires nothing (its PC stays on the wait): it is not a re-run. (Counting
                # it let a wave that reached a wait READY at one sample and blocked on it at the next look like
                # a spin: softMax of corefiles/samples, 1,024 waves, was called a hang.)
                if before is not None and before[0] == mark and len(before[1]) == len(ran) and \
                        all(a > b for a, b in zip(ran, before[1], strict=True)):
                    return self._result("hang", f"the machine state repeats: {len(live)} wave(s) spin on memory "
                                        "nothing will change", total, t0)
                if quiet is not None and (before is None or before[0] != mark or len(before[1]) != len(ran)):
                    quiet_seen[quiet] = (mark, ran)  # (kept from its first sighting: a slow sleeper catches up)
                fp = self.fingerprint(parts)
                if fp in seen:
                    spinning = [w for w in self.waves if w.state in (READY, SLEEPING, WAITING_COUNTERS)]
                    return self._result("hang", f"the machine state repeats: {len(spinning)} wave(s) spin on memory "
                                        "nothing will change", total, t0)
                seen.add(fp)

    def fingerprint(self, parts: tuple | None = None) -> bytes:
        """The whole machine state with its timing (sleep clocks, outstanding counters) as a digest: `run`
        calls it a hang when a sampled fingerprint comes back. `parts`: `_state_parts()` already taken."""
        parts = parts or self._state_parts()
        waves, memory = parts[0], parts[1]
        h = hashlib.blake2b(digest_size=16)
        clock = self.clock
        # (one update of the joined bytes is the digest of the same updates one by one, with fewer calls)
        chunks = []
        for w, d in zip(self.waves, waves, strict=True):
            chunks += (d, w.state.encode(), max(0, w.sleep_until - clock).to_bytes(8, "little"))
        h.update(b"".join(chunks))
        h.update(memory)
        h.update(self.sync_state_bytes(parts[2] if len(parts) > 2 else None))
        return h.digest()

    def _state_parts(self) -> tuple[list[bytes], bytes, list[bytes]]:
        """(a digest per wave of what it holds and where it is, the memory-state digest, each workgroup's barrier
        state): computed once per sample and shared by both fingerprints."""
        return [self._wave_digest(w) for w in self.waves], self._memory_digest(), self._barrier_bytes()

    @staticmethod
    def _wave_digest(w: Wave) -> bytes:
        """`w.fingerprint()`, kept while the wave executed nothing and stayed where it was: only a wave's own
        instructions change its registers (a barrier's release moves its PC and state, which the key includes)."""
        key = (w.instructions, w.pc, w.exec, w.state)
        kept = w.kept_digest
        if kept is not None and kept[0] == key:
            return kept[1]
        d = w.fingerprint()
        w.kept_digest = (key, d)
        return d

    def _memory_digest(self) -> bytes:
        """Memory contents, every cached line (address and bytes: a stale line is state), each workgroup's LDS
        and workgroup-barrier arrivals, as one digest."""
        # (one update of the joined bytes is the digest of the updates one by one: the same digest, with one call
        # per sample instead of one per cached line)
        chunks = [self.memory.content_digest().to_bytes(16, "little")]
        add = chunks.append
        for level in (self.caches.lines, self.caches.gl1, self.caches.scalar):
            add(b"|")  # (the levels apart: a scalar line is not the same state as a vector line)
            for k in sorted(level):
                add(k.to_bytes(8, "little", signed=True))
                lines = level[k]
                for base in sorted(lines):
                    add(base.to_bytes(8, "little"))
                    add(lines[base])
        for g in self.groups:
            add(g.lds.digest())
            add(bytes(sorted(g.arrived)))
        return hashlib.blake2b(b"".join(chunks), digest_size=16).digest()

    def _lds_writes(self) -> int:
        return sum(getattr(g.lds, "writes", 0) for g in self.groups)

    def quiet_fingerprint(self, parts: tuple | None = None) -> bytes:
        """The state without its timing (sleep and wait-counter clocks, ready vs. waiting on a counter): what
        the waves hold and where they are, and every byte of memory. Equal twice with no page outside the
        waves' private scratch changed in between and no LDS store (the caller checks), every wave re-runs
        the same instructions on the same values from there on, so nothing can ever change: a hang even when
        the waves' relative timing keeps drifting (the exact state of several -O0 spin loops with wait
        counters comes back only after a long common period)."""
        parts = parts or self._state_parts()
        waves, memory = parts[0], parts[1]
        h = hashlib.blake2b(digest_size=16)
        h.update(b"".join(d + (b"a" if w.state in (READY, SLEEPING, WAITING_COUNTERS) else w.state.encode())
                          for w, d in zip(self.waves, waves, strict=True)))
        h.update(memory)
        h.update(b"".join(parts[2] if len(parts) > 2 else self._barrier_bytes()))
        return h.digest()

    def _result(self, status: str, reason: str, total: int, t0: float) -> RunResult:
        self.caches.drain_all()  # stores still in flight reach memory: the final state is what the kernel left
        return RunResult(status, reason, total, time.perf_counter() - t0, list(self.waves))

    # -- views --------------------------------------------------------------------------------------
    def wave_source(self, w: Wave) -> dict | None:
        return self.wave_source_pc(w.pc)

    def wave_source_pc(self, pc: int) -> dict | None:
        """Innermost source frame of an absolute PC (function, file, line) from the code object's DWARF."""
        sym = getattr(self, "_symbolizer", None)
        if sym is None:
            from amddbg.dwarf.symbolize import Symbolizer

            try:
                sym = Symbolizer.from_code_object(self.co, use_cache=False)
            except Exception:  # noqa: BLE001
                sym = False
            self._symbolizer = sym
        if not sym:
            return None
        try:
            from amddbg.dwarf.attribution import user_frames

            f = user_frames(sym, pc - self.load)[0]  # a line-0 row gets gdb's line (no line 0 on a slide)
        except Exception:  # noqa: BLE001
            return None
        if not f.file:
            return None
        from amddbg.dwarf.demangle import demangle

        return {"function": demangle(f.function) or f.function, "file": f.file, "line": f.line}

    def write_core(self, path: str, *, layout: str = "split") -> None:
        from amddbg.emu.coredump import write_core

        write_core(self, path, layout=layout)
