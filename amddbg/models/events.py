"""Typed model events: what the memory, barrier and async models consume.

The litmus front ends and (later) the replay engine both produce these. An event is one dynamic
instance of a memory access, fence, control barrier, device-domain availability/visibility operation,
barrier-object operation or async mark/wait, annotated with everything the models look at: scope,
storage class, semantics, availability/visibility flags, private vs non-private, and the scope
instances (subgroup/wavefront, workgroup, ...) of the thread that performed it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from amddbg.amdgpu import Scope


class Kind(enum.Enum):
    LOAD = "ld"
    STORE = "st"
    RMW = "rmw"
    FENCE = "membar"
    CBAR = "cbar"  # control barrier (Vulkan OpControlBarrier / AMDGPU s_barrier arrive+wait)
    AVDEVICE = "avdevice"  # device-domain availability operation (outside the shader)
    VISDEVICE = "visdevice"
    # barrier-object operations (amdgpu-execution-synchronization.rst)
    BAR_INIT = "barrier.init"
    BAR_JOIN = "barrier.join"
    BAR_ARRIVE = "barrier.arrive"
    BAR_WAIT = "barrier.wait"
    BAR_DROP = "barrier.drop"
    # async operations (amdgpu-async-operations.rst, TVM async queues)
    ASYNC_OP = "async.op"
    ASYNC_MARK = "asyncmark"
    ASYNC_WAIT = "wait.asyncmark"


@dataclass(eq=False)
class Event:
    """One dynamic operation. `thread` indexes the thread; `instances` maps a scope to the id of the
    scope instance the thread belongs to (threads in the same workgroup share instances[WORKGROUP])."""

    kind: Kind
    thread: int
    instances: dict[Scope, object]
    loc: str | None = None  # memory location (same-location relation)
    ref: str | None = None  # reference (Vulkan "same reference"); defaults to loc
    scope: Scope | None = None  # memory scope of atomics/fences/av/vis
    storage_class: int | None = None  # sc0, sc1, ...
    semsc: frozenset[int] = frozenset()  # storage classes named in the memory semantics
    atomic: bool = False
    acquire: bool = False
    release: bool = False
    av: bool = False  # per-instruction availability (st.av / atomic writes)
    vis: bool = False  # per-instruction visibility (ld.vis / atomic reads)
    semav: bool = False  # MakeAvailable in the semantics of a release
    semvis: bool = False  # MakeVisible in the semantics of an acquire
    nonpriv: bool = False  # participates in inter-thread location ordering
    read_value: object = None  # value read (None: decided by reads-from)
    write_value: object = None
    # control barrier: instance key (which dynamic barrier instance) and quorum
    barrier: object = None
    barrier_exec_scope: Scope | None = None
    quorum: int | None = None
    # barrier-object / async operations
    count: int | None = None  # init k, wait.asyncmark N, ...
    queue: int | None = None
    label: str = ""  # source text, for explanations
    line: int | None = None
    extra: dict = field(default_factory=dict)

    @property
    def is_read(self) -> bool:
        return self.kind in (Kind.LOAD, Kind.RMW)

    @property
    def is_write(self) -> bool:
        return self.kind in (Kind.STORE, Kind.RMW)

    @property
    def is_fence(self) -> bool:
        """Fences in the Vulkan sense: membar, and control barriers with acquire/release semantics."""
        return self.kind is Kind.FENCE or (self.kind is Kind.CBAR and (self.acquire or self.release))

    @property
    def private(self) -> bool:
        return (self.is_read or self.is_write) and not (self.nonpriv or self.atomic or self.av or self.vis)

    def describe(self) -> str:
        return self.label or self.kind.value


INIT = -1  # reads-from source meaning "the initial value"
