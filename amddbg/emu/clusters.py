"""Workgroup clusters (GFX12.5, gfx1250): cluster dispatch, the registers that tell a wave where it is in its
cluster, and the cluster barrier (-3) shared by a cluster's workgroups.

Why a module of its own: clusters exist only on GFX12.5 and touch dispatch, wave state and barriers; keeping the
geometry and the cluster barrier here leaves `machine.py` with a few calls.

Where the facts come from (no ISA manual here; what clang-22 compiles each builtin to, checked with llvm-objdump-22
on gfx1250 code objects, is the oracle):

* `__builtin_amdgcn_cluster_id_{x,y,z}` read TTMP9, TTMP7[15:0] and TTMP7[31:16]: with clusters the architected
  "workgroup id" registers hold the *cluster* id.
* `__builtin_amdgcn_cluster_workgroup_id_{x,y,z}` are TTMP6[3:0], [7:4], [11:8];
  `..._max_id_{x,y,z}` TTMP6[15:12], [19:16], [23:20]; `..._max_flat_id` TTMP6[27:24];
  `..._flat_id` is HW_REG_IB_STS2[24:21].
* `__builtin_amdgcn_workgroup_id_x` in a kernel without `.cluster_dims` reads HW_REG_IB_STS2[9:6]: 0 means "not
  launched in clusters" (the id is TTMP9), anything else means cluster id * (max id + 1) + id in cluster. The
  emulator writes 1 there for a cluster dispatch (the code only compares it with 0; the hardware's other values
  are not known here). A kernel with `.cluster_dims` computes the id the second way without looking.
* The metadata's `.cluster_dims: [x, y, z]` (clang's `__cluster_dims__`, `amdgpu-cluster-dims`) fixes the shape;
  `amddbg run --cluster X,Y,Z` gives it for a kernel without one, as a launch attribute does in HIP.

Cluster barrier -3 (amdgpu-execution-synchronization.rst, "s_barrier GFX12" and "s_barrier IDs GFX12"): initialised
by the hardware to the number of workgroups of the cluster; one wave per workgroup arrives on behalf of its
workgroup (`s_barrier_signal -3`; clang's `__builtin_amdgcn_s_cluster_barrier` lets the workgroup barrier's first
wave do it), any wave of the cluster may wait (`s_barrier_wait -3`). A second arrival of one workgroup in a phase is
a misuse (recorded, counted). The table's *drop* row lists -3 with "when a thread ends, it automatically drops this
barrier object": a workgroup whose waves have all ended drops it (the expected count falls by one). A wave's n-th
wait on the cluster barrier returns once the barrier completed n phases (the waits of one wave pair with the
phases in order). -4 is the trap handler's (privileged: naming it is a misuse, as -2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from amddbg.emu.errors import EmulatorError

MAX_PER_DIM = 16  # 4-bit fields in TTMP6
MAX_WORKGROUPS = 16  # the 4-bit max flat id


def supports_clusters(processor: str) -> bool:
    return processor.startswith("gfx125")


def metadata_dims(meta) -> tuple[int, int, int] | None:
    """The kernel's `.cluster_dims` (None: absent, or 0,0,0 = clusters disabled)."""
    raw = meta.get("cluster_dims") if meta is not None and hasattr(meta, "get") else None
    if not raw:
        return None
    dims = tuple(int(x) for x in list(raw) + [1] * (3 - len(raw)))[:3]
    return None if dims == (0, 0, 0) else dims


def resolve(processor: str, meta, requested, groups: tuple[int, int, int]) -> tuple[int, int, int] | None:
    """The cluster shape of a dispatch (None: no clusters): the metadata's, or `requested` (--cluster) for a kernel
    without one. `groups`: workgroups per dimension. Every refusal names what to change."""
    fixed = metadata_dims(meta)
    req = tuple(requested) if requested else None
    if req is not None and len(req) != 3:
        req = tuple(list(req) + [1] * (3 - len(req)))
    if fixed is not None and fixed[0] >= 1024:  # "1024,1024,1024": clusters enabled, shape given at launch
        fixed = None if req is not None else fixed
        if fixed is not None:
            raise EmulatorError("the kernel is compiled for clusters of a shape chosen at launch: give it with "
                                "--cluster X,Y,Z")
    if fixed is not None and req is not None and req != fixed:
        raise EmulatorError(f"--cluster {','.join(map(str, req))}: the kernel's metadata fixes clusters of "
                            f"{','.join(map(str, fixed))} workgroups (its __cluster_dims__)")
    dims = fixed or req
    if dims is None:
        return None
    if not supports_clusters(processor):
        raise EmulatorError(f"{processor} has no workgroup clusters (GFX12.5, gfx1250, has them)")
    if any(d < 1 or d > MAX_PER_DIM for d in dims):
        raise EmulatorError(f"cluster {','.join(map(str, dims))}: each dimension must be 1..{MAX_PER_DIM}")
    n = dims[0] * dims[1] * dims[2]
    if n > MAX_WORKGROUPS:
        raise EmulatorError(f"cluster {','.join(map(str, dims))} has {n} workgroups; at most {MAX_WORKGROUPS}")
    for d, axis in enumerate("xyz"):
        if groups[d] % dims[d]:
            raise EmulatorError(f"the grid has {groups[d]} workgroups in {axis}, not a multiple of the cluster's "
                                f"{dims[d]} (HIP requires whole clusters)")
    return dims


@dataclass
class ClusterBarrier:
    """Barrier -3 of one cluster: expected = its workgroups not yet ended, arrivals = workgroups (ids)."""

    expected: int
    arrivals: set = field(default_factory=set)
    extra: int = 0
    phase: int = 0
    dropped: set = field(default_factory=set)  # workgroups that ended (dropped the barrier)
    waits: dict = field(default_factory=dict)  # wave index -> waits it has completed
    waiting: set = field(default_factory=set)  # wave indexes blocked on it

    def view(self, cluster: tuple[int, int, int]) -> dict:
        return {"id": -3, "named": False, "initialized": True, "cluster": list(cluster), "expected": self.expected,
                "arrived": len(self.arrivals) + self.extra, "arrivals": sorted(map(list, self.arrivals)),
                "waiting": sorted(self.waiting), "phase": self.phase}

    def state(self) -> bytes:
        return repr((self.expected, sorted(self.arrivals), self.extra, sorted(self.dropped),
                     sorted((w, self.phase - n) for w, n in self.waits.items()), sorted(self.waiting))).encode()


class Clusters:
    """A cluster dispatch: the shape, which cluster each workgroup belongs to, and the cluster barriers."""

    def __init__(self, dims: tuple[int, int, int]) -> None:
        self.dims = dims
        self.size = dims[0] * dims[1] * dims[2]
        self.barriers: dict[tuple[int, int, int], ClusterBarrier] = {}

    def cluster_of(self, group: tuple[int, int, int]) -> tuple[int, int, int]:
        return tuple(group[d] // self.dims[d] for d in range(3))

    def position(self, group: tuple[int, int, int]) -> tuple[int, int, int]:
        return tuple(group[d] % self.dims[d] for d in range(3))

    def barrier(self, group: tuple[int, int, int]) -> ClusterBarrier:
        c = self.cluster_of(group)
        b = self.barriers.get(c)
        if b is None:
            b = self.barriers[c] = ClusterBarrier(self.size)
        return b

    def set_registers(self, w) -> None:
        """TTMP9/TTMP7 = the cluster id, TTMP6 = position and shape, IB_STS2 = flat position and 'clustered'."""
        c, p, d = self.cluster_of(w.workgroup), self.position(w.workgroup), self.dims
        w.ttmp[9] = c[0]
        w.ttmp[7] = (c[1] & 0xFFFF) | (c[2] & 0xFFFF) << 16
        w.ttmp[6] = (p[0] | p[1] << 4 | p[2] << 8 | (d[0] - 1) << 12 | (d[1] - 1) << 16 | (d[2] - 1) << 20
                     | (self.size - 1) << 24)
        flat = p[0] + d[0] * (p[1] + d[1] * p[2])
        w.ib_sts2 = 1 << 6 | flat << 21

    def view(self) -> list[dict]:
        return [b.view(c) for c, b in sorted(self.barriers.items())]

    def state_bytes(self) -> bytes:
        return b"|".join(repr(c).encode() + b.state() for c, b in sorted(self.barriers.items()))


def from_registers(ttmp6: int) -> tuple[int, int, int]:
    """The cluster shape a wave's TTMP6 names (replay of a core: the shape is not in the dispatch packet)."""
    return ((ttmp6 >> 12 & 15) + 1, (ttmp6 >> 16 & 15) + 1, (ttmp6 >> 20 & 15) + 1)


# -- the cluster barrier's operations (called by Machine's barrier methods) ------------------------------------


def arrive(machine, w, insn) -> None:
    """`s_barrier_signal[_isfirst] -3`: the wave's workgroup arrives; the barrier completes when every workgroup
    of the cluster not yet ended has (its waiters then go on)."""
    b = machine.clusters.barrier(w.workgroup)
    first = not b.arrivals and not b.extra
    if w.workgroup in b.arrivals:
        machine._misuse(w, insn, [("arrive_twice", -3, "a second arrival by the same workgroup in one phase of the "
                                   "cluster barrier (one wave per workgroup arrives)")])
        b.extra += 1
    else:
        b.arrivals.add(w.workgroup)
    if insn.mnemonic == "s_barrier_signal_isfirst":
        w.scc = int(first)
    _complete_if_due(machine, w.workgroup, b)


def wait(machine, w, insn) -> None:
    """`s_barrier_wait -3`: block until the barrier completed as many phases as this wave has waited plus one."""
    from amddbg.emu.wave import WAITING_BARRIER

    b = machine.clusters.barrier(w.workgroup)
    done = b.waits.get(w.index, 0)
    if b.phase > done:
        b.waits[w.index] = done + 1
        return
    b.waiting.add(w.index)
    machine.barriers_of(machine.groups[w.group_key]).waiting[w.wave_in_group] = -3
    w.state = WAITING_BARRIER


def workgroup_ended(machine, g) -> None:
    """A workgroup whose waves have all ended drops its cluster's barrier (the manual's drop row for -3)."""
    b = machine.clusters.barrier(g.id)
    if g.id in b.dropped:
        return
    b.dropped.add(g.id)
    if g.id in b.arrivals:
        machine.barrier_misuse.append({"kind": "arrive_then_drop", "workgroup": g.id, "wave_in_group": None,
                                       "wave": None, "pc": None, "barrier": -3,
                                       "detail": "the workgroup arrived at the cluster barrier and ended before it "
                                                 "completed"})
    b.expected = max(b.expected - 1, 0)
    _complete_if_due(machine, g.id, b)


def _complete_if_due(machine, group, b: ClusterBarrier) -> None:
    from amddbg.emu.wave import READY, WAITING_BARRIER

    if not (b.arrivals or b.extra) or len(b.arrivals) + b.extra < b.expected:
        return
    b.arrivals.clear()
    b.extra = 0
    b.phase += 1
    c = machine.clusters.cluster_of(group)
    for g in machine.groups:
        if machine.clusters.cluster_of(g.id) != c:
            continue
        bars = getattr(g, "barriers", None)
        for x in g.waves:
            if x.index in b.waiting and x.state == WAITING_BARRIER:
                x.state = READY
                x.pc = getattr(x, "resume_pc", x.pc)
                b.waiting.discard(x.index)
                b.waits[x.index] = b.waits.get(x.index, 0) + 1
                if bars is not None:
                    bars.waiting.pop(x.wave_in_group, None)


def hang_note(machine) -> str:
    """For a hang: which cluster barriers have waiters and which workgroups of their cluster never arrived."""
    if machine.clusters is None:
        return ""
    out = []
    for c, b in sorted(machine.clusters.barriers.items()):
        if not b.waiting:
            continue
        members = [g.id for g in machine.groups if machine.clusters.cluster_of(g.id) == c]
        missing = [g for g in members if g not in b.arrivals and g not in b.dropped]
        out.append(f"cluster {c}: {len(b.waiting)} wave(s) wait on barrier -3, {len(b.arrivals)} of {b.expected} "
                   f"workgroup(s) arrived" + (f", not {', '.join(map(str, missing))}" if missing else ""))
    return "; ".join(out)
