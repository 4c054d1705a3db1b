"""Litmus tests as HIP kernels, run by the emulator under bounded exploration (issue 11, litmus-derived kernels).

Why: the memory model (`amddbg litmus`) and the emulator's machine (`amddbg.emu`) are two independent
descriptions of the same hardware. Turning each message-passing, store-buffering and barrier litmus test
into a real clang-built kernel and exploring its schedules and visibility orders checks one against the
other: an outcome the model forbids must never be reached (soundness of the emulator's caches, or a bug in
the compiler mapping); an allowed outcome the machine never reaches says what the emulator cannot produce.

Mapping (one kernel per litmus test, `corefiles/litmus-kernels/src/<name>.hip`):
- Each litmus workgroup is a HIP workgroup; each litmus thread is one wave of it (lane 0 executes the
  thread, the other lanes are off). Threads of one litmus *subgroup* become separate waves, which is exact
  only when no operation has subgroup scope (otherwise the test is skipped).
- Locations are elements of the first buffer argument (`mem`), one 64-byte line each; initial values are
  the test's. Every register (herd) or every read (Khronos) is stored to the second buffer (`out`).
- Scopes: subgroup -> wavefront, workgroup -> workgroup, queue family and device -> agent. Queue family has
  no AMDGPU counterpart; agent includes it, which only adds synchronization (fewer outcomes, never more).
- Atomics: `__hip_atomic_load/store/exchange/fetch_*` with relaxed, acquire, release or acq_rel order at
  the scope. Availability (`st.av`, `avdevice`) is a release fence after the store, visibility (`ld.vis`,
  `visdevice`) an acquire fence before the load, at the operation's scope (device for the device-domain
  operations): the release/acquire that implies them, again only stronger.
  Storage classes share one buffer and fences order all of them (stronger than `semscN`).
- `membar` -> `__builtin_amdgcn_fence`; `cbar` -> release fence, `__builtin_amdgcn_s_barrier`, acquire fence
  (the fences only when the barrier has release/acquire semantics).
- Herd labels, branches (`bne`...), `goto` and local arithmetic are C labels, `if (...) goto` and expressions;
  in such a test plain accesses are relaxed wavefront-scope atomics, so a spin loop's load is not hoisted
  out of the loop (same instructions on AMDGPU, and only stronger for the model).
Not mapped (the test is skipped with the reason): a control barrier inside a loop; control-barrier instances
whose participants are not exactly the threads of one workgroup or whose quorum differs from that count (the
hardware barrier's expected count is the workgroup's wave count);
barriers across workgroups (no device-wide barrier); SSW (system-synchronizes-with: host operations); RMW
functions other than exchange/add/sub/and/or/xor; final-state filters; aliased references; ill-formed tests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from amddbg.amdgpu import Scope

ROOT = Path(__file__).resolve().parents[2] / "corefiles" / "litmus-kernels"


def _litmus_dir() -> Path:
    """The shared litmus oracle: AMDDBG_LITMUS, or ../shared/litmus next to the repository, or /work/shared."""
    import os

    env = os.environ.get("AMDDBG_LITMUS")
    if env:
        return Path(env)
    near = Path(__file__).resolve().parents[3] / "shared" / "litmus"
    return near if near.is_dir() else Path("/work/shared/litmus")


LITMUS_DIR = _litmus_dir()
TARGETS = ("gfx90a", "gfx942", "gfx1100", "gfx1200")
LINE_INTS = 16  # one location per 64-byte line
MAX_THREADS_PER_GROUP = 16

_SCOPE_C = {Scope.WAVEFRONT: "__HIP_MEMORY_SCOPE_WAVEFRONT", Scope.WORKGROUP: "__HIP_MEMORY_SCOPE_WORKGROUP",
            Scope.QUEUE_FAMILY: "__HIP_MEMORY_SCOPE_AGENT", Scope.AGENT: "__HIP_MEMORY_SCOPE_AGENT",
            Scope.SYSTEM: "__HIP_MEMORY_SCOPE_SYSTEM"}
_SCOPE_FENCE = {Scope.WAVEFRONT: "wavefront", Scope.WORKGROUP: "workgroup", Scope.QUEUE_FAMILY: "agent",
                Scope.AGENT: "agent", Scope.SYSTEM: ""}
_RMW_C = {None: "exchange", "xchg": "exchange", "add": "fetch_add", "sub": "fetch_sub", "and": "fetch_and",
          "or": "fetch_or", "xor": "fetch_xor"}


@dataclass
class Op:
    """One litmus instruction in a form both front ends produce."""

    kind: str  # ld | st | rmw | fence | cbar | avdevice | visdevice
    text: str
    loc: str | None = None
    reg: str | None = None  # register written (ld, rmw)
    value: int | str | None = None  # value written (st, rmw): an integer or a register
    fn: str | None = None  # rmw function
    atomic: bool = False
    acq: bool = False
    rel: bool = False
    av: bool = False
    vis: bool = False
    scope: Scope | None = None
    barrier: object = None
    quorum: int | None = None
    flow: dict = field(default_factory=dict)  # label / goto / br / local: name, target, cond, a, b, fn


@dataclass
class LThread:
    index: int
    workgroup: tuple
    subgroup: tuple
    ops: list[Op] = field(default_factory=list)


@dataclass
class LitmusKernel:
    """A litmus test mapped to a kernel, with what is needed to run it and to judge its outcomes."""

    name: str  # kernel symbol
    path: str  # the litmus file
    fmt: str  # khronos | herd
    threads: list[LThread]
    locations: list[str]
    init_mem: dict[str, int]
    init_regs: dict[tuple[int, str], int]
    slots: list[tuple[int, str]]  # out[k] = register slots[k][1] of thread slots[k][0]
    groups: list[tuple]  # litmus workgroups, in HIP workgroup order
    waves_per_group: int
    placement: dict[int, tuple[int, int]]  # thread -> (workgroup index, wave in workgroup)
    test: object = None
    skip: str | None = None
    expected_reads: dict[str, int] = field(default_factory=dict)  # Khronos: the values the test names
    loops: bool = False  # the test has branches: plain accesses become relaxed wavefront-scope atomics

    # -- running -------------------------------------------------------------------------------------
    def args(self) -> list[str]:
        init = [0] * (max(1, len(self.locations)) * LINE_INTS)
        for i, loc in enumerate(self.locations):
            init[i * LINE_INTS] = self.init_mem.get(loc, 0)
        return [f"buf:i32:{len(init)}:values=" + ",".join(map(str, init)), f"buf:i32:{max(1, len(self.slots))}"]

    def launch(self, wave_size: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        block = self.waves_per_group * wave_size
        return (block * len(self.groups), 1, 1), (block, 1, 1)

    def outcome(self, machine) -> tuple[tuple[str, int], ...]:
        """Final registers (`P0:r0`) and locations, as a sorted tuple of (name, value)."""
        from amddbg.emu.args import read_buffer

        mem = read_buffer(machine, machine.buffers[0])
        out = read_buffer(machine, machine.buffers[1])
        vals = {f"P{t}:{r}": int(out[k]) for k, (t, r) in enumerate(self.slots)}
        vals.update({loc: int(mem[i * LINE_INTS]) for i, loc in enumerate(self.locations)})
        return tuple(sorted(vals.items()))

    # -- judging -------------------------------------------------------------------------------------
    def question(self) -> str:
        """The outcome the test asks about, in words."""
        if self.fmt == "khronos":
            return " /\\ ".join(f"{k} == {v}" for k, v in self.expected_reads.items()) or "any outcome"
        q = self.test.quantifier
        return ("~(" + self.test.condition_text + ")") if q == "forall" else self.test.condition_text

    def target(self, outcome) -> bool:
        """Whether an outcome is the one the test asks about (`question`)."""
        o = dict(outcome)
        if self.fmt == "khronos":
            return all(o.get(k) == v for k, v in self.expected_reads.items())
        from amddbg.models.herdcheck import _eval

        def env(x):
            if x[0] == "int":
                return x[1]
            if x[0] == "reg":
                return o.get(f"P{x[1]}:{x[2]}", self.init_regs.get((x[1], x[2]), 0))
            return o.get(self.test.location(x[1]), self.init_mem.get(x[1], 0))

        holds = bool(_eval(self.test.condition, env))
        return not holds if self.test.quantifier == "forall" else holds

    def model_allows_target(self, verdict) -> bool:
        """The model's verdict read as: can some allowed execution end in the `question` outcome?"""
        if self.fmt == "khronos":
            return bool(verdict.condition_holds)
        q = self.test.quantifier
        if q == "exists":
            return bool(verdict.condition_holds)
        return not verdict.condition_holds  # ~exists holds / forall holds: the outcome is forbidden

    def model_allows_outcome(self, outcome) -> bool | None:
        """Whether the model has an allowed execution ending exactly in `outcome` (every register or read
        value, and for herd tests every final location value): the whole-outcome soundness check, stronger
        than the test's own question. Khronos: the test with each read's value set to the outcome's
        (consistent[X]); herd: the test with `exists (outcome)` as its condition. None: the Khronos format
        cannot ask (a value that two writes of the location store, or the initial value also written)."""
        from dataclasses import replace

        from amddbg.models.verdict import decide

        o = dict(outcome)
        if self.fmt == "herd":
            cond = None
            for name, v in sorted(o.items()):
                if ":" in name:
                    t, r = name.split(":")
                    atom = ("cmp", "==", ("reg", int(t[1:]), r), ("int", v))
                else:
                    atom = ("cmp", "==", ("mem", name), ("int", v))
                cond = atom if cond is None else ("and", cond, atom)
            t2 = replace(self.test, quantifier="exists", condition=cond or ("const", True),
                         condition_text=" /\\ ".join(f"{k} == {v}" for k, v in sorted(o.items())))
            return bool(decide(t2).condition_holds)
        from amddbg.models.litmus.khronos import parse

        lines = Path(self.path).read_text().splitlines()
        ev = self.test.scenario.events
        written: dict[str, list] = {}
        for e in ev:
            if e.is_write and e.loc is not None:
                written.setdefault(e.loc, []).append(e.write_value)
        for th in self.threads:
            for op in th.ops:
                if op.reg is None:
                    continue
                e = ev[int(op.reg[1:])]
                n = e.line - 1
                head = lines[n].split("=")[0].rstrip()
                val = o[f"P{th.index}:{op.reg}"]
                # the Khronos translation constrains a read only through the writes of its value (or 0: the
                # initial value); a value nothing writes is out of thin air, and two writes of it are ambiguous
                sources = written.get(e.loc, []).count(val) - (1 if op.kind == "rmw" and e.write_value == val else 0)
                if val != 0 and sources == 0:
                    return False
                if sources > 1 or (val == 0 and sources):
                    return None
                lines[n] = f"{head} = {val}" + (f" {e.write_value}" if op.kind == "rmw" else "")
        t2 = parse("\n".join(lines) + "\n", self.path)
        if t2.scenario.ill_formed:
            return None
        return bool(decide(t2).condition_holds)

    # -- source --------------------------------------------------------------------------------------
    def source(self) -> str:
        try:
            shown = Path(self.path).resolve().relative_to(LITMUS_DIR.resolve()).as_posix()
        except ValueError:
            shown = Path(self.path).name
        lines = [f"// {self.name}: generated by amddbg/replay/litmus_kernels.py from {shown}",
                 f"// {len(self.groups)} workgroup(s) x {self.waves_per_group} wave(s); lane 0 of each wave runs one "
                 "litmus thread", "// locations: " + ", ".join(f"{loc}=mem[{i * LINE_INTS}]"
                                                               for i, loc in enumerate(self.locations)),
                 f'extern "C" __global__ void {self.name}(int *mem, int *out) {{',
                 "  const unsigned ws = __builtin_amdgcn_wavefrontsize();",
                 "  const unsigned tid = __builtin_amdgcn_workitem_id_x();",
                 "  const unsigned wave = __builtin_amdgcn_readfirstlane(tid / ws);",
                 f"  const unsigned t = __builtin_amdgcn_workgroup_id_x() * {self.waves_per_group}u + wave;",
                 "  if (tid % ws != 0) return;",
                 "  switch (t) {"]
        slot_of = {s: k for k, s in enumerate(self.slots)}
        for th in self.threads:
            g, w = self.placement[th.index]
            lines.append(f"  case {g * self.waves_per_group + w}: {{  // P{th.index}")
            regs = sorted({r for (t, r) in self.slots if t == th.index})
            for r in regs:
                lines.append(f"    int {r} = {self.init_regs.get((th.index, r), 0)};")
            for op in th.ops:
                lines += ["    " + c for c in _c_op(op, self.locations, th.index, self.loops)]
            for r in regs:
                lines.append(f"    out[{slot_of[(th.index, r)]}] = {r};")
            lines.append("    break;")
            lines.append("  }")
        lines += ["  default: break;", "  }", "}", ""]
        return "\n".join(lines)


def _order(op: Op) -> str:
    if op.acq and op.rel:
        return {"ld": "__ATOMIC_ACQUIRE", "st": "__ATOMIC_RELEASE"}.get(op.kind, "__ATOMIC_ACQ_REL")
    if op.acq:
        return "__ATOMIC_ACQUIRE"
    if op.rel:
        return "__ATOMIC_RELEASE"
    return "__ATOMIC_RELAXED"


def _operand(v) -> str:
    return str(v)


def _c_op(op: Op, locations: list[str], thread: int = 0, loops: bool = False) -> list[str]:
    comment = f"  // {op.text.strip()}"
    if op.kind == "label":
        return [f"P{thread}_{op.flow['name']}:;" + comment]
    if op.kind == "goto":
        return [f"goto P{thread}_{op.flow['target']};" + comment]
    if op.kind == "br":
        cmp = {"beq": "==", "bne": "!=", "blt": "<", "bgt": ">", "ble": "<=", "bge": ">="}[op.flow["cond"]]
        return [f"if ({_operand(op.flow['a'])} {cmp} {_operand(op.flow['b'])}) goto P{thread}_{op.flow['target']};"
                + comment]
    if op.kind == "local":
        fn = {"add": "+", "sub": "-", "mul": "*", "div": "/", "and": "&", "or": "|", "xor": "^"}[op.flow["fn"]]
        return [f"{op.reg} = {_operand(op.flow['a'])} {fn} {_operand(op.flow['b'])};" + comment]
    ref = f"&mem[{locations.index(op.loc) * LINE_INTS}]" if op.loc is not None else ""
    val = str(op.value) if op.value is not None else "0"
    if op.kind == "ld":
        if op.atomic:
            return [f"{op.reg} = __hip_atomic_load({ref}, {_order(op)}, {_SCOPE_C[op.scope]});" + comment]
        pre = [f'__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "{_SCOPE_FENCE[op.scope]}");'] if op.vis else []
        if loops:  # a plain load in a loop could be hoisted out of it: a relaxed atomic is not (and is stronger)
            return pre + [f"{op.reg} = __hip_atomic_load({ref}, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WAVEFRONT);"
                          + comment]
        return pre + [f"{op.reg} = *({ref});" + comment]
    if op.kind == "st":
        if op.atomic:
            return [f"__hip_atomic_store({ref}, {val}, {_order(op)}, {_SCOPE_C[op.scope]});" + comment]
        post = [f'__builtin_amdgcn_fence(__ATOMIC_RELEASE, "{_SCOPE_FENCE[op.scope]}");'] if op.av else []
        if loops:
            return [f"__hip_atomic_store({ref}, {val}, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WAVEFRONT);"
                    + comment] + post
        return [f"*({ref}) = {val};" + comment] + post
    if op.kind == "rmw":
        return [f"{op.reg} = __hip_atomic_{_RMW_C[op.fn]}({ref}, {val}, {_order(op)}, {_SCOPE_C[op.scope]});"
                + comment]
    if op.kind == "fence":
        return [f'__builtin_amdgcn_fence({_order(op)}, "{_SCOPE_FENCE[op.scope]}");' + comment]
    if op.kind == "cbar":
        out = []
        if op.rel:
            out.append(f'__builtin_amdgcn_fence(__ATOMIC_RELEASE, "{_SCOPE_FENCE[op.scope]}");')
        out.append("__builtin_amdgcn_s_barrier();" + comment)
        if op.acq:
            out.append(f'__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "{_SCOPE_FENCE[op.scope]}");')
        return out
    if op.kind == "avdevice":
        return ['__builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");' + comment]
    if op.kind == "visdevice":
        return ['__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent");' + comment]
    raise ValueError(op.kind)


# ------------------------------------------------------------------------------------------- front ends
def kernel_name(path: str | Path) -> str:
    p = Path(path)
    return "litmus_" + p.parent.name.lower() + "_" + re.sub(r"\W", "_", p.stem)


def from_file(path: str | Path) -> LitmusKernel:
    """Map one litmus file; `skip` says why it cannot be mapped (the kernel is then not built)."""
    from amddbg.models.litmus import load

    test = load(str(path))
    if test.format == "khronos":
        k = _from_khronos(test)
    else:
        k = _from_herd(test)
    k.test = test
    if k.skip is None:
        k.skip = _check(k)
    return k


def _from_khronos(test) -> LitmusKernel:
    from amddbg.models.events import Kind

    sc = test.scenario
    threads: list[LThread] = []
    slots: list[tuple[int, str]] = []
    expected: dict[str, int] = {}
    skip = None
    if sc.ill_formed:
        skip = f"ill-formed for the model: {sc.ill_formed}"
    if sc.ssw:
        skip = "SSW (system-synchronizes-with between threads: host operations) has no kernel counterpart"
    locs: list[str] = []
    kinds = {Kind.LOAD: "ld", Kind.STORE: "st", Kind.RMW: "rmw", Kind.FENCE: "fence", Kind.CBAR: "cbar",
             Kind.AVDEVICE: "avdevice", Kind.VISDEVICE: "visdevice"}
    for t, evs in enumerate(sc.po_threads):
        first = sc.events[evs[0]]
        inst = first.instances
        th = LThread(t, (inst[Scope.QUEUE_FAMILY], inst[Scope.WORKGROUP]),
                     (inst[Scope.QUEUE_FAMILY], inst[Scope.WORKGROUP], inst[Scope.WAVEFRONT]))
        for j in evs:
            e = sc.events[j]
            if e.kind not in kinds:
                skip = skip or f"{e.label}: {e.kind.value} has no mapping"
                continue
            op = Op(kinds[e.kind], e.label, loc=e.loc, atomic=e.atomic, acq=e.acquire, rel=e.release,
                    av=e.av and not e.atomic, vis=e.vis and not e.atomic, scope=e.scope, barrier=e.barrier)
            if e.loc is not None and e.loc != e.ref:
                skip = skip or "SLOC: two references to one location"
            if e.loc is not None and e.loc not in locs:
                locs.append(e.loc)
            if e.is_read:
                op.reg = f"r{j}"
                slots.append((t, op.reg))
                if e.read_value is not None:
                    expected[f"P{t}:{op.reg}"] = e.read_value
            if e.is_write:
                if e.write_value is None:
                    skip = skip or f"{e.label}: a write without a value"
                op.value = e.write_value
            th.ops.append(op)
        threads.append(th)
    k = _place(kernel_name(test.path), test.path, "khronos", threads, locs, {}, {}, slots)
    k.expected_reads = expected
    k.skip = skip
    return k


def _from_herd(test) -> LitmusKernel:
    threads: list[LThread] = []
    slots: list[tuple[int, str]] = []
    skip = None
    if test.filter is not None:
        skip = "a final-state filter"
    if test.aliases:
        skip = skip or "aliased references"
    if test.ssw:
        skip = skip or "SSW (system-synchronizes-with) has no kernel counterpart"
    locs = list(test.init_mem)
    for th in test.threads:
        lt = LThread(th.tid, (th.qf, th.wg), (th.qf, th.wg, th.sg))
        regs = {r for (t, r) in test.init_regs if t == th.tid}
        for ins in th.code:
            a = ins.args
            if ins.op in ("label", "goto", "br", "local"):
                op = Op(ins.op, ins.text, flow=dict(a))
                if ins.op == "local":
                    op.reg = a["rd"]
                    regs.add(op.reg)
                for x in (a.get("a"), a.get("b")):
                    if isinstance(x, str):
                        regs.add(x)
                lt.ops.append(op)
                continue
            if ins.op in ("avdevice", "visdevice"):
                lt.ops.append(Op(ins.op, ins.text))
                continue
            kind = {"membar": "fence"}.get(ins.op, ins.op)
            op = Op(kind, ins.text, atomic=a.get("atomic", False), acq=a.get("acq", False), rel=a.get("rel", False),
                    av=a.get("av", False) and not a.get("atomic"), vis=a.get("vis", False) and not a.get("atomic"),
                    scope=a.get("scope"))
            if kind in ("ld", "st", "rmw"):
                op.loc = test.location(a["loc"])
                if op.loc not in locs:
                    locs.append(op.loc)
            if kind in ("ld", "rmw"):
                op.reg = a["rd"]
                regs.add(op.reg)
            if kind in ("st", "rmw"):
                op.value = a["value"]
                if isinstance(op.value, str):
                    regs.add(op.value)
            if kind == "rmw":
                op.fn = a.get("fn")
                if op.fn not in _RMW_C:
                    skip = skip or f"rmw function {op.fn} has no HIP atomic"
            if kind == "cbar":
                op.barrier = a["instance"]
                op.quorum = a.get("quorum")
                if a.get("resource") not in (None, op.barrier, int(op.barrier)):
                    skip = skip or f"'{ins.text.strip()}': a barrier resource other than its instance"
            lt.ops.append(op)
        slots += [(th.tid, r) for r in sorted(regs)]
        threads.append(lt)
    k = _place(kernel_name(test.path), test.path, "herd", threads, locs, dict(test.init_mem),
               dict(test.init_regs), slots)
    k.skip = skip
    k.loops = any(op.kind in ("goto", "br") for th in threads for op in th.ops)
    return k


def _place(name, path, fmt, threads, locs, init_mem, init_regs, slots) -> LitmusKernel:
    groups: list[tuple] = []
    for th in threads:
        if th.workgroup not in groups:
            groups.append(th.workgroup)
    per = {g: [th for th in threads if th.workgroup == g] for g in groups}
    waves = max(len(v) for v in per.values())
    placement = {th.index: (groups.index(g), i) for g in groups for i, th in enumerate(per[g])}
    return LitmusKernel(name, str(path), fmt, threads, locs, init_mem, init_regs, slots, groups, waves, placement)


def _check(k: LitmusKernel) -> str | None:
    """What the mapping cannot express faithfully (None: the kernel is the test)."""
    if k.waves_per_group > MAX_THREADS_PER_GROUP:
        return f"more than {MAX_THREADS_PER_GROUP} threads in a workgroup"
    subgroups: dict[tuple, int] = {}
    for th in k.threads:
        subgroups[th.subgroup] = subgroups.get(th.subgroup, 0) + 1
    shared = any(n > 1 for n in subgroups.values())
    if shared and any(op.scope is Scope.WAVEFRONT for th in k.threads for op in th.ops):
        return ("two threads share a subgroup and an operation has subgroup scope: the threads would be lanes of "
                "one wave executing in lockstep, which the kernel mapping does not do")
    # control barriers: every instance must be executed by exactly the threads of one workgroup, in the same
    # order by each of them, with a quorum (if any) equal to that number
    members: dict[object, list[int]] = {}
    orders: dict[int, list] = {}
    for th in k.threads:
        for op in th.ops:
            if op.kind == "cbar":
                members.setdefault(op.barrier, []).append(th.index)
                orders.setdefault(th.index, []).append(op.barrier)
                if op.quorum is not None and op.quorum != sum(1 for t in k.threads if t.workgroup == th.workgroup):
                    return (f"barrier quorum {op.quorum} differs from the workgroup's thread count: "
                            "the hardware barrier expects every wave of the workgroup")
    for th in k.threads:  # a barrier inside a loop would need the hardware barrier's count per iteration
        labels = {op.flow["name"]: i for i, op in enumerate(th.ops) if op.kind == "label"}
        for j, op in enumerate(th.ops):
            if op.kind in ("goto", "br"):
                i = labels.get(op.flow["target"])
                if i is None:
                    return f"P{th.index}: branch to an unknown label {op.flow['target']}"
                if i <= j and any(x.kind == "cbar" for x in th.ops[i:j + 1]):
                    return f"P{th.index}: a control barrier inside a loop"
    by_index = {th.index: th for th in k.threads}
    for inst, ts in members.items():
        wgs = {by_index[t].workgroup for t in ts}
        if len(wgs) != 1:
            return f"control barrier {inst} spans workgroups (no device-wide barrier in a kernel)"
        wg = wgs.pop()
        if sorted(ts) != sorted(th.index for th in k.threads if th.workgroup == wg):
            return f"control barrier {inst} is not executed by every thread of its workgroup"
    seqs = {}
    for t, seq in orders.items():
        seqs.setdefault(by_index[t].workgroup, set()).add(tuple(seq))
    if any(len(s) > 1 for s in seqs.values()):
        return "threads of a workgroup execute the control barriers in different orders"
    return None


def litmus_files(root: Path = LITMUS_DIR) -> list[Path]:
    """The message-passing, store-buffering and barrier litmus tests (Khronos and Dat3M) this suite maps."""
    out = []
    for p in sorted((root / "khronos").glob("*.test")):
        if re.match(r"(mp|noncohmp|qfmp|fencefence|cbar)", p.stem):
            out.append(p)
    for p in sorted((root / "dat3m").glob("*/*.litmus")):
        if re.match(r"(MP|SB|IRIW|barrier|quorum|cbar|xf)", p.stem):
            out.append(p)
    return out


def all_kernels(root: Path = LITMUS_DIR) -> list[LitmusKernel]:
    return [from_file(p) for p in litmus_files(root)]


def code_object(target: str) -> Path:
    return ROOT / f"litmus-{target}.co"


def wave_size(target: str) -> int:
    """HIP's default: wave64 on GFX9, wave32 on GFX10+ (the build passes no -mwavefrontsize64)."""
    return 64 if target.startswith("gfx9") else 32


# What the emulator cannot produce although the model allows it: the test's question is an allowed outcome
# that no schedule and no visibility order of amddbg.emu reaches, and why (tests/replay/test_litmus_kernels.py
# fails if one of these is ever reached, so the table stays true; measured on gfx90a, gfx942, gfx1100, gfx1200).
_SAME_CU = ("all threads are waves of one workgroup, so they share one CU's L1 and its in-order write path: "
            "a wave's stores reach the other waves in issue order, and a load after a store sees it")
_AGENT_SEQUENCES = ("the AMDGPU code sequences for an agent-scope release (s_waitcnt vmcnt(0)/vscnt(0), then the "
                    "store) and acquire (a bypassing load, then an L1 invalidate) order every earlier access of the "
                    "wave, whatever its scope; the model lets a workgroup-scope access in another workgroup escape")
_STORAGE_CLASS = ("the release/acquire names only one storage class (semsc1 vs sc0 data); AMDGPU fences and the "
                  "emulator order every access whatever its storage class")
CANNOT_PRODUCE = {
    "litmus_khronos_mpinscope2": _STORAGE_CLASS,
    "litmus_khronos_mpinscope3": _STORAGE_CLASS,
    "litmus_khronos_mpinscope5": _STORAGE_CLASS,
    "litmus_khronos_mpnotinscope2": _AGENT_SEQUENCES,
    "litmus_khronos_mpnotinscope3": _AGENT_SEQUENCES,
    "litmus_khronos_mpnotinscope5": _AGENT_SEQUENCES,
    "litmus_khronos_mpnotinscope6": _AGENT_SEQUENCES,
    "litmus_manual_IRIW": _SAME_CU + " (IRIW needs two readers to see the two writes in opposite orders: "
                          "not multi-copy-atomic behaviour, which one L1 cannot show)",
    "litmus_manual_MP_no_avvis": _SAME_CU + " (message passing without availability/visibility is allowed by the "
                                            "model but one CU never reorders the two stores or the two loads)",
    "litmus_manual_SB_2_wg": _SAME_CU + " (store buffering needs each load to miss the other wave's earlier store; "
                                        "the emulator's write path forwards pending stores to every wave of the CU)",
}


# ------------------------------------------------------------------------------------------- exploration
def visibilities(k: LitmusKernel, randomized: int = 4):
    """Visibility orders for one kernel: none; every workgroup's CU holding every location (stale copies);
    delayed write-through; both; and `randomized` seeded mixes (random lines prefilled, random drain
    probability, evictions)."""
    import random

    from amddbg.emu.explore import Visibility

    lines = [(g, 0, i * LINE_INTS * 4) for g in range(len(k.groups)) for i in range(len(k.locations))]
    out = [Visibility(name="none"), Visibility(prefill=tuple(lines), name="prefill"),
           Visibility(delay=True, drain=0.2, seed=1, name="delay"),
           Visibility(prefill=tuple(lines), delay=True, drain=0.2, seed=2, name="prefill+delay")]
    for s in range(randomized):
        rng = random.Random(1000 + s)
        pre = tuple(x for x in lines if rng.random() < 0.5)
        out.append(Visibility(prefill=pre, delay=True, drain=rng.choice((0.05, 0.2, 0.5)), evict=0.05,
                              seed=100 + s, name=f"mix{s}"))
    return out


@dataclass
class Comparison:
    """What the emulator reached against what the model says about the test's question."""

    kernel: LitmusKernel
    target: str
    model_allows: bool
    reached: bool
    outcomes: dict  # outcome -> number of runs
    failures: list[str]  # runs that did not complete, other than hangs (fault, unsupported, limit)
    runs: int
    hangs: int = 0  # runs that ended in a hang (no wave can progress, or the machine state repeats)
    model_terminates: bool | None = None

    @property
    def sound(self) -> bool:
        return self.model_allows or not self.reached

    @property
    def termination_agrees(self) -> bool:
        """A hang only where the model says some execution does not terminate, and there at least one."""
        if self.model_terminates is False:
            return self.hangs > 0
        return self.hangs == 0

    @property
    def agrees(self) -> bool:
        return self.sound and self.reached == self.model_allows and not self.failures and self.termination_agrees


def explore_kernel(k: LitmusKernel, target: str, *, seeds=range(4), vis=None, max_instructions: int = 20_000,
                   co=None) -> list:
    """Run the kernel of `k` from the checked-in `litmus-<target>.co` under seeds x visibilities."""
    from amddbg.codeobj import CodeObject
    from amddbg.emu.explore import explore

    co = co or CodeObject.from_path(code_object(target))
    grid, block = k.launch(wave_size(target))

    def make(seed, _vis):
        m = _machine(co, seed)
        m.dispatch(k.name, grid, block, k.args())
        return m

    return explore(make, seeds=seeds, visibilities=vis if vis is not None else visibilities(k),
                   max_instructions=max_instructions, outcome=lambda m, _r: k.outcome(m))


_DECODED: dict[int, tuple] = {}


def _machine(co, seed: int):
    """A Machine for `co` that reuses the first one's decoded instructions and segment bytes: decoding the
    whole litmus code object (every kernel) for each of hundreds of short runs would cost 80% of the time.
    The instruction table is only read by the machine, so sharing it is safe."""
    from amddbg.emu.machine import Machine

    class _Reuse(Machine):
        def _map_code_object(self) -> None:
            hit = _DECODED.get(id(co))
            if hit is None or hit[0] is not co:
                super()._map_code_object()
                segs = [(self.load + g["p_vaddr"], g["p_memsz"], bytes(g.data())) for g in co.elf.iter_segments()
                        if g["p_type"] == "PT_LOAD"]
                _DECODED[id(co)] = (co, self.load, segs, self.instructions)
                return
            _, load, segs, self.instructions = hit
            if load != self.load:
                raise ValueError("the cached decode is for another load address")
            for addr, size, data in segs:
                self.memory.map(addr, size)
                if data:
                    self.memory.write(addr, data)

    return _Reuse(co, seed=seed)


def compare(k: LitmusKernel, target: str, runs: list, verdict) -> Comparison:
    counts: dict = {}
    failures = []
    hangs = 0
    for r in runs:
        if r.result.status == "hang":
            hangs += 1
            continue
        if r.result.status != "completed":
            failures.append(f"seed {r.seed}, {r.visibility.label()}: {r.result.status}: {r.result.reason}")
            continue
        counts[r.outcome] = counts.get(r.outcome, 0) + 1
    reached = any(k.target(o) for o in counts)
    return Comparison(k, target, k.model_allows_target(verdict), reached, counts, failures, len(runs), hangs,
                      verdict.terminates)
