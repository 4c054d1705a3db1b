"""Lift machine instructions to memory-model and barrier operations, per GPU generation.

Why: the hang explainer reasons about *model* operations (an acquire load at agent scope, a release
fence at workgroup scope, a barrier arrive), not about `glc` bits and `buffer_wbinvl1_vol`. The mapping
comes from the LLVM AMDGPU manual's "Memory Model Code Sequences" tables (GFX90A, GFX942, GFX10-GFX11,
GFX12): every row says which instructions the compiler emits for one (operation, ordering, scope, address
space). This module runs the tables backwards.

Ambiguity policy (docs/explain.md "Lifting"): several rows can produce the same bytes (a workgroup acquire
load on gfx90a is a plain load, as is a relaxed wavefront load). A lifted op then claims only the *weakest*
guarantee common to every candidate row (the meet of their orderings and scopes) and lists every candidate
in `rows`. A memory instruction absorbs the write-back / invalidate instructions a row puts around it when
some row explains them exactly; otherwise they are lifted as separate fences. A sequence no row produces is
ordering "unknown" at scope "unknown" with no rows -- never a guess.

Assumptions, stated because the instruction bytes cannot show them: gfx90a/gfx942 kernels run without
threadgroup split (clang's default; `tgsplit=True` selects the tgsplit rows), GFX10-GFX11 in WGP mode
(clang's default), and nothing is outstanding at the first instruction (true for kernels; clang starts
every non-kernel function with a full wait).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from amddbg.errors import NotSupported
from amddbg.isa.model import Instruction, MemorySpace

__all__ = ["ModelOp", "generation", "lift", "lift_at"]


@dataclass(frozen=True)
class ModelOp:
    """One memory-model or barrier operation lifted from a matched instruction sequence."""

    kind: str  # load | store | rmw | fence | barrier_arrive | barrier_wait | barrier_join | barrier_leave
    #            | barrier_init | async_load | async_mark | async_wait
    order: str  # non_atomic | relaxed | acquire | release | acq_rel | seq_cst | unknown
    scope: str  # wavefront | workgroup | agent | system | unknown   (singlethread -> wavefront)
    space: str | None  # global | generic | lds | scratch | None (fences, barriers)
    pcs: tuple[int, ...]  # every instruction address of the matched sequence
    pc: int  # the memory instruction's address (for fences: the first instruction of the fence)
    barrier: int | None = None  # barrier id for barrier ops (-1 = the workgroup barrier)
    rows: tuple[str, ...] = ()  # the manual's rows that produce this sequence


# ---------------------------------------------------------------------------------------------- lattice

SCOPES = ("wavefront", "workgroup", "agent", "system")
_SCOPE_RANK = {s: i for i, s in enumerate(SCOPES)}
ORDERS = ("relaxed", "acquire", "release", "acq_rel", "seq_cst")
_HAS_ACQ = {"acquire", "acq_rel", "seq_cst"}
_HAS_REL = {"release", "acq_rel", "seq_cst"}


def _meet_order(a: str, b: str) -> str:
    """The strongest ordering both `a` and `b` guarantee (relaxed < acquire, release < acq_rel < seq_cst)."""
    if a == b:
        return a
    if "non_atomic" in (a, b):
        return "non_atomic"
    if "seq_cst" in (a, b):
        return b if a == "seq_cst" else a
    acq = a in _HAS_ACQ and b in _HAS_ACQ
    rel = a in _HAS_REL and b in _HAS_REL
    return "acq_rel" if acq and rel else "acquire" if acq else "release" if rel else "relaxed"


def _llvm_order(order: str) -> str:
    return "monotonic" if order == "relaxed" else order


# ---------------------------------------------------------------------------------------------- generations

_GEN_NAMES = {"gfx90a": "GFX90A", "gfx942": "GFX942", "gfx10": "GFX10-GFX11", "gfx11": "GFX10-GFX11",
              "gfx12": "GFX12", "gfx1250": "GFX125x"}
_G12 = ("gfx12", "gfx1250")  # the GFX12 instructions, counters and cache-policy syntax


def generation(processor: str) -> str:
    """'gfx90a', 'gfx942', 'gfx10' or 'gfx11' (the GFX10-GFX11 table) or 'gfx12' for `processor`;
    NotSupported otherwise."""
    name = processor.split(":")[0].lower()
    if name == "gfx90a":
        return "gfx90a"
    if name in ("gfx940", "gfx941", "gfx942", "gfx950", "gfx9-4-generic"):
        return "gfx942"
    if re.fullmatch(r"gfx10[0-9a-f]{2}", name) or name in ("gfx10-1-generic", "gfx10-3-generic"):
        return "gfx10"  # the GFX10-GFX11 table; GFX10 adds dlc to agent/system loads
    if re.fullmatch(r"gfx11[0-9a-f]{2}", name) or name == "gfx11-generic":
        return "gfx11"
    if re.fullmatch(r"gfx120[0-9a-f]", name) or name == "gfx12-generic":
        return "gfx12"
    if re.fullmatch(r"gfx125[0-9a-f]", name):
        return "gfx1250"
    raise NotSupported(f"memory-model lifting for {processor} (tables implemented: gfx90a, gfx942, GFX10-GFX11, GFX12, "
                       "GFX125x)")


# ---------------------------------------------------------------------------------------------- rows

@dataclass(frozen=True)
class _Sig:
    """What one table row emits around (and on) the memory instruction."""

    bits: frozenset[str]  # cache-policy bits on the instruction (the return bit of atomics excluded)
    wb: str | None = None  # write-back before (release at a scope that needs one)
    inv: str | None = None  # invalidate after the completion wait (acquire)
    drain: str | None = None  # "all" | "lgkm": prior operations that must be complete before it (release)
    wait_after: str | None = None  # "all" | "lgkm": counters of the instruction waited for after it (acquire)


def _bits(gen: str, scope: str, kind: str, space: str, tgsplit: bool = False) -> frozenset[str]:
    """Cache-policy bits an atomic row puts on the instruction."""
    if space == "lds":
        return frozenset()
    if gen == "gfx90a":  # glc: bypass the per-CU L1 (a tgsplit workgroup spans CUs)
        far = ("agent", "system", "workgroup") if tgsplit else ("agent", "system")
        return frozenset({"glc"}) if kind == "load" and scope in far else frozenset()
    if gen == "gfx942":
        if kind == "rmw":
            return frozenset({"sc1"}) if scope == "system" else frozenset()
        return {"wavefront": frozenset(), "workgroup": frozenset({"sc0"}), "agent": frozenset({"sc1"}),
                "system": frozenset({"sc0", "sc1"})}[scope]
    if gen in ("gfx10", "gfx11"):  # WGP mode: workgroup loads bypass the per-CU GL0 too
        if kind != "load" or scope == "wavefront":
            return frozenset()
        return frozenset({"glc", "dlc"}) if gen == "gfx10" and scope != "workgroup" else frozenset({"glc"})
    if gen == "gfx1250":  # GFX125x: a workgroup runs in one WGP, whose cache its accesses share: SCOPE_CU
        return {"wavefront": frozenset(), "workgroup": frozenset(), "agent": frozenset({"scope:SCOPE_DEV"}),
                "system": frozenset({"scope:SCOPE_SYS"})}[scope]
    # gfx12: the scope field
    return {"wavefront": frozenset(), "workgroup": frozenset({"scope:SCOPE_SE"}),
            "agent": frozenset({"scope:SCOPE_DEV"}), "system": frozenset({"scope:SCOPE_SYS"})}[scope]


def _wb(gen: str, scope: str, space: str) -> str | None:
    if space == "lds":
        return None
    if gen == "gfx90a":
        return "system" if scope == "system" else None
    if gen == "gfx942":
        return scope if scope in ("agent", "system") else None
    if gen == "gfx12":
        return "system" if scope == "system" else None
    if gen == "gfx1250":  # GFX125x writes back at agent scope too (global_wb scope:SCOPE_DEV)
        return scope if scope in ("agent", "system") else None
    return None


def _inv(gen: str, scope: str, space: str, tgsplit: bool) -> str | None:
    if scope == "wavefront":
        return None
    if gen == "gfx1250":  # GFX125x: nothing to invalidate for a workgroup (or LDS) acquire
        return scope if scope in ("agent", "system") and space != "lds" else None
    if space == "lds":  # LDS is per workgroup; GFX10+ still invalidate the wave's L0 for the global ops after
        return "workgroup" if gen in ("gfx10", "gfx11", "gfx12") else None
    if gen in ("gfx90a", "gfx942") and scope == "workgroup" and not tgsplit:
        return None
    if gen == "gfx90a" and scope == "workgroup":
        return "agent"  # tgsplit: the same buffer_wbinvl1_vol as agent scope
    if gen in ("gfx10", "gfx11") and scope == "system":
        return "agent"  # GFX10-GFX11: system acquire invalidates the same GL1 + GL0 as agent
    return scope


def _drain(gen: str, scope: str, space: str, tgsplit: bool) -> str | None:
    if scope == "wavefront":
        return None
    if gen in ("gfx90a", "gfx942") and (scope == "workgroup" or space == "lds") and not tgsplit:
        return "lgkm"
    return "all"


def _row_sig(gen: str, kind: str, order: str, scope: str, space: str, tgsplit: bool) -> _Sig:
    bits = _bits(gen, scope, "load" if kind == "load" else "store" if kind == "store" else "rmw", space, tgsplit)
    acq = order in _HAS_ACQ and kind != "store"
    rel = order in _HAS_REL and kind != "load" or (kind == "load" and order == "seq_cst")
    wait_after = None
    if acq and scope != "wavefront":
        wait_after = "all"
        if gen in ("gfx90a", "gfx942") and scope == "workgroup" and not tgsplit:
            wait_after = None if space == "global" else "lgkm"  # only an LDS access can be behind
    return _Sig(bits, _wb(gen, scope, space) if rel and kind != "load" else None,
                _inv(gen, scope, space, tgsplit) if acq else None,
                _drain(gen, scope, space, tgsplit) if rel else None, wait_after)


def _nonatomic_sigs(gen: str, kind: str, space: str) -> list[tuple[str, frozenset[str]]]:
    """(qualifier, bits) of the non-atomic rows: plain, volatile and nontemporal."""
    if space == "lds":
        return [("", frozenset())]
    if space == "scratch":
        return [("", frozenset())]
    load = kind == "load"
    vol = {"gfx90a": {"glc"} if load else set(), "gfx942": {"sc0", "sc1"},
           "gfx10": {"glc", "dlc"} if load else set(), "gfx11": {"glc", "dlc"} if load else {"dlc"},
           "gfx12": {"scope:SCOPE_SYS"}, "gfx1250": {"scope:SCOPE_SYS"}}[gen]
    nt = {"gfx90a": {"glc", "slc"}, "gfx942": {"nt"}, "gfx10": {"slc"} if load else {"glc", "slc"},
          "gfx11": {"slc", "dlc"} if load else {"glc", "slc", "dlc"},
          "gfx12": {"th:TH_LOAD_NT" if load else "th:TH_STORE_NT"},
          "gfx1250": {"th:TH_LOAD_NT" if load else "th:TH_STORE_NT"}}[gen]
    return [("", frozenset()), ("volatile", frozenset(vol)), ("nontemporal", frozenset(nt))]


_ROW_SPACE = {"global": "global", "generic": "generic", "lds": "local", "scratch": "private"}
_ROW_KIND = {"load": "load atomic", "store": "store atomic", "rmw": "atomicrmw"}


def _row_name(gen: str, kind: str, order: str, scope: str, space: str) -> str:
    return f"{_GEN_NAMES[gen]} {_ROW_KIND[kind]} {_llvm_order(order)} {scope} {_ROW_SPACE[space]}"


def _rows(gen: str, kind: str, space: str, tgsplit: bool) -> list[tuple[str, str, str, _Sig]]:
    """(row name, order, scope, signature) of every atomic row for one operation kind and space."""
    orders = {"load": ("relaxed", "acquire", "seq_cst"), "store": ("relaxed", "release", "seq_cst"),
              "rmw": ORDERS}[kind]
    out = []
    # the tables stop at workgroup scope for LDS (only a workgroup shares it); LLVM narrows wider LDS scopes
    scopes = ("singlethread", "wavefront", "workgroup") if space == "lds" else ("singlethread", *SCOPES)
    for order in orders:
        for scope in scopes:
            s = "wavefront" if scope == "singlethread" else scope
            name = _row_name(gen, kind, order, scope, space)
            sig = _row_sig(gen, kind, order, s, space, tgsplit)
            out.append((name, order, s, sig))
            legacy = _llvm19_variant(gen, s, space, sig)
            if legacy is not None:
                out.append((name + _LLVM19, order, s, legacy))
    return out


_LLVM19 = " [LLVM 19]"


def _llvm19_variant(gen: str, scope: str, space: str, sig: _Sig) -> _Sig | None:
    """The sequence LLVM 19 emitted for a row where it differs from the current manual's: on GFX12 a
    `global_wb` at the row's scope before every workgroup/agent release (the manual: "global_wb can be omitted
    for scopes other than SCOPE_SYS in gfx120x"); on GFX10-GFX12 no invalidate after an LDS acquire."""
    if gen not in ("gfx10", "gfx11", "gfx12") or scope == "wavefront":
        return None
    if gen == "gfx12" and sig.drain and sig.wb is None and space != "lds" and scope in ("workgroup", "agent"):
        return _Sig(sig.bits, scope, sig.inv, sig.drain, sig.wait_after)
    if space == "lds" and sig.inv is not None:
        return _Sig(sig.bits, sig.wb, None, sig.drain, sig.wait_after)
    return None


# ---------------------------------------------------------------------------------------------- classification

_SPACE = {MemorySpace.GLOBAL: "global", MemorySpace.BUFFER: "global", MemorySpace.FLAT: "generic",
          MemorySpace.LDS: "lds", MemorySpace.SCRATCH: "scratch"}
_POLICY = re.compile(r"^(glc|slc|dlc|scc|sc0|sc1|nt|th:\S+|scope:\S+)$")


def _is_wb(ins: Instruction) -> bool:
    return ins.mnemonic in ("buffer_wbl2", "global_wb")


def _is_inv(ins: Instruction) -> bool:
    """Invalidates, and any other cache-maintenance instruction (e.g. global_wbinv): those no row uses make
    their fence "unknown" instead of being skipped."""
    mn = ins.mnemonic
    return not _is_wb(ins) and mn.startswith(("buffer_wb", "buffer_inv", "buffer_gl", "global_inv", "global_wb"))


def _policy_tokens(ins: Instruction) -> set[str]:
    return {t for t in ins.text.replace(",", " ").split() if _POLICY.match(t)}


def _level_of(gen: str, ins_list: list[Instruction], what: str) -> str | None:
    """The scope a run of write-back (`what`='wb') or invalidate instructions covers; 'unrecognised' if none."""
    if not ins_list:
        return None
    names = [i.mnemonic for i in ins_list]
    toks = [_policy_tokens(i) for i in ins_list]
    if gen == "gfx90a":
        if what == "wb":
            return "system" if names == ["buffer_wbl2"] else "unrecognised"
        return {("buffer_wbinvl1_vol",): "agent", ("buffer_invl2", "buffer_wbinvl1_vol"): "system"}.get(
            tuple(names), "unrecognised")
    if gen == "gfx942":
        if len(names) != 1 or names[0] != ("buffer_wbl2" if what == "wb" else "buffer_inv"):
            return "unrecognised"
        return {frozenset({"sc0"}): "workgroup", frozenset({"sc1"}): "agent",
                frozenset({"sc0", "sc1"}): "system"}.get(frozenset(toks[0] - {"nt"}), "unrecognised")
    if gen in ("gfx10", "gfx11"):
        if what == "wb":
            return "unrecognised"
        return {("buffer_gl0_inv",): "workgroup", ("buffer_gl1_inv", "buffer_gl0_inv"): "agent"}.get(
            tuple(names), "unrecognised")
    if len(names) != 1 or names[0] != ("global_wb" if what == "wb" else "global_inv"):
        return "unrecognised"
    return {"scope:SCOPE_SE": "workgroup", "scope:SCOPE_DEV": "agent", "scope:SCOPE_SYS": "system"}.get(
        next(iter(toks[0]), ""), "unrecognised")


def _norm_bits(gen: str, ins: Instruction) -> frozenset[str]:
    toks = _policy_tokens(ins)
    mem = ins.memory
    if mem is not None and mem.is_atomic and mem.returns:
        toks -= {"glc"} if gen in ("gfx90a", "gfx10", "gfx11") else {"sc0"} if gen == "gfx942" else set()
    if gen in _G12:
        toks = {t for t in toks if not t.startswith("th:TH_ATOMIC_RETURN")}
        toks.discard("scope:SCOPE_CU")
    return frozenset(toks)


# ---------------------------------------------------------------------------------------------- counters
# Each counter is (n, kinds, ooo): at most n operations may be outstanding, of tag kinds ('w' write,
# 'r' read, 'a' atomic, 's' scalar, 'p' private), and ooo when they may complete out of order (SMEM and
# FLAT in lgkmcnt), in which case only a wait for 0 proves anything. Write-backs and invalidates are not
# counted (as LLVM does not).

_CAP = 64
_EMPTY = (0, frozenset(), False)


def _counters(gen: str) -> tuple[str, ...]:
    return {"gfx90a": ("vmcnt", "lgkmcnt"), "gfx942": ("vmcnt", "lgkmcnt"), "gfx10": ("vmcnt", "vscnt", "lgkmcnt"),
            "gfx11": ("vmcnt", "vscnt", "lgkmcnt"),
            "gfx12": ("loadcnt", "storecnt", "dscnt", "kmcnt"),
            "gfx1250": ("loadcnt", "storecnt", "dscnt", "kmcnt")}[gen]


def _issue(gen: str, ins: Instruction) -> list[tuple[str, str, bool]]:
    """(counter, tag, out_of_order) for every counter `ins` increments."""
    mem = ins.memory
    if mem is None or _is_wb(ins) or _is_inv(ins):
        return []
    if mem.space == MemorySpace.SCALAR:
        return [("kmcnt" if gen in _G12 else "lgkmcnt", "s", True)]
    tag = "rwa" if mem.is_atomic and mem.returns else "wa" if mem.is_atomic else "w" if mem.is_store else "r"
    if _is_private_buffer(ins) or mem.space == MemorySpace.SCRATCH:
        tag = "p"  # thread-private: no release or acquire ever waits for it
    if mem.space in (MemorySpace.LDS, MemorySpace.GDS):
        return [("dscnt" if gen in _G12 else "lgkmcnt", tag, False)]
    load_like = mem.is_load and not (mem.is_atomic and not mem.returns) or (mem.is_atomic and mem.returns)
    if gen in _G12:
        out = [("loadcnt" if load_like else "storecnt", tag, False)]
        if mem.space == MemorySpace.FLAT:
            out.append(("dscnt", tag, True))
        return out
    vm = "vmcnt" if gen in ("gfx90a", "gfx942") or load_like else "vscnt"
    out = [(vm, tag, False)]
    if mem.space == MemorySpace.FLAT:
        out.append(("lgkmcnt", tag, True))
    return out


def _is_private_buffer(ins: Instruction) -> bool:
    """A MUBUF access through s[0:3], the private segment (scratch) resource of the AMDHSA ABI: how -O0 and
    spill code reach private memory. (Buffer intrinsics on other resources stay global.)"""
    return ins.memory is not None and ins.memory.space == MemorySpace.BUFFER and any(
        o.text == "s[0:3]" for o in ins.operands)


def _step(gen: str, state: dict, ins: Instruction) -> dict:
    if ins.waitcnt:
        state = dict(state)
        for c, v in ins.waitcnt.items():
            if c not in state:
                continue
            n, kinds, ooo = state[c]
            if v == 0:
                state[c] = _EMPTY
            elif not ooo and n > v:
                state[c] = (v, kinds, ooo)
        return state
    issued = _issue(gen, ins)
    if issued:
        state = dict(state)
        for c, tag, ooo in issued:
            n, kinds, o = state[c]
            state[c] = (min(n + 1, _CAP), kinds | set(tag), o or ooo)
    return state


def _join(a: dict, b: dict) -> dict:
    return {c: (max(a[c][0], b[c][0]), a[c][1] | b[c][1], a[c][2] or b[c][2]) for c in a}


def _states(gen: str, insns: Sequence[Instruction], entry_idle: bool) -> list[dict]:
    """Counter state *before* each instruction (forward dataflow over the function's branches)."""
    n = len(insns)
    index = {ins.address: k for k, ins in enumerate(insns)}
    start = {c: _EMPTY if entry_idle else (_CAP, frozenset({"w", "r"}), True) for c in _counters(gen)}
    before: list[dict | None] = [None] * n
    before[0] = start
    work = [0]
    while work:
        k = work.pop()
        st = before[k]
        while True:
            ins = insns[k]
            after = _step(gen, st, ins)
            succs = []
            if ins.branch_target is not None and ins.branch_target in index:
                succs.append(index[ins.branch_target])
            falls = not (ins.is_endpgm or ins.is_return or (ins.is_branch and not ins.is_conditional))
            if falls and k + 1 < n:
                succs.append(k + 1)
            nxt = None
            for s in succs:
                old = before[s]
                new = after if old is None else _join(old, after)
                if new != old:
                    before[s] = new
                    if s == k + 1 and nxt is None:
                        nxt = s
                    else:
                        work.append(s)
            if nxt is None:
                break
            k, st = nxt, before[nxt]
    return [b if b is not None else start for b in before]


def _pending(state: dict, drain: str, scope: str, acquire: bool = False) -> bool:
    """Whether operations a release (or, with `acquire`, the wait before an acquire's invalidate) at this
    drain class and scope must complete may still be outstanding. Scalar loads and private accesses never
    count (constant data and thread-private memory, per the manual); an acquire waits for the loads and
    atomics it may pair with, not for plain stores; at agent and system scope outstanding LDS *reads* do not
    count: LDS is private to the workgroup, and clang does not wait for them there (LLVM 19 GFX12)."""
    for c, (n, kinds, _ooo) in state.items():
        if n == 0 or c == "kmcnt" or kinds <= {"s", "p"} or (acquire and not kinds & {"r", "a"}):
            continue
        lds = c in ("lgkmcnt", "dscnt")
        if drain == "lgkm" and not lds:
            continue
        if lds and scope in ("agent", "system") and "w" not in kinds:
            continue
        return True
    return False


def _completes(before: dict, after: dict, tags: str) -> bool:
    """Whether a wait taking the counters from `before` to `after` may complete an operation tagged with one
    of `tags` ('r' read, 'w' write)."""
    return any(after[c][0] < n and set(tags) & kinds for c, (n, kinds, _o) in before.items())


# ---------------------------------------------------------------------------------------------- lifting

def _is_mem_op(ins: Instruction) -> bool:
    mem = ins.memory
    return (mem is not None and not _is_wb(ins) and not _is_inv(ins) and not _is_async(ins) and mem.space in _SPACE
            and (mem.is_load or mem.is_store or mem.is_atomic))


def _stops_run(ins: Instruction) -> bool:
    return (_is_mem_op(ins) or ins.is_branch or ins.is_endpgm or ins.is_return or ins.is_call or ins.is_barrier
            or (ins.memory is not None and not (_is_wb(ins) or _is_inv(ins))))


def _sync(ins: Instruction) -> bool:
    return bool(ins.waitcnt) or _is_wb(ins) or _is_inv(ins)


def lift(instructions: Sequence[Instruction], processor: str, *, tgsplit: bool = False,
         entry_idle: bool = True) -> list[ModelOp]:
    """Every memory-model and barrier operation of one function, in address order.

    `instructions` are one function's instructions in address order; `processor` e.g. "gfx90a".
    `tgsplit` selects the gfx90a/gfx942 threadgroup-split rows; `entry_idle` says nothing is outstanding at
    the first instruction (kernels, and clang's functions, which start with a full wait).
    """
    gen = generation(processor)
    insns = list(instructions)
    if not insns:
        return []
    states = _states(gen, insns, entry_idle)
    used: set[int] = set()
    ops: list[tuple[int, ModelOp]] = []
    for k, ins in enumerate(insns):
        if _is_mem_op(ins):
            op, absorbed = _lift_memory(gen, insns, states, k, tgsplit)
            if op is not None:
                used.update(absorbed)
                ops.append((k, op))
        elif ins.is_barrier or ins.mnemonic.startswith("s_barrier"):
            ops.extend(_lift_barrier(insns, k))
    ops.extend(_lift_fences(gen, insns, states, used, tgsplit))
    ops.extend(_lift_async(gen, insns))
    ops.sort(key=lambda t: (t[1].pc, t[0]))
    return [op for _k, op in ops]


def lift_at(instructions: Sequence[Instruction], processor: str, pc: int, **kw: bool) -> ModelOp | None:
    """The op whose matched sequence contains `pc` (for `s_barrier`, the arrive), or None."""
    for op in lift(instructions, processor, **kw):
        if pc in op.pcs:
            return op
    return None


def _run_before(insns: Sequence[Instruction], k: int) -> list[int]:
    """Indexes of the sync instructions (waits, write-backs, invalidates) just before `k`."""
    out = []
    j = k - 1
    while j >= 0 and not _stops_run(insns[j]):
        if _sync(insns[j]):
            out.append(j)
        j -= 1
    return out[::-1]


def _run_after(insns: Sequence[Instruction], k: int) -> list[int]:
    out = []
    j = k + 1
    while j < len(insns) and not _stops_run(insns[j]):
        if _sync(insns[j]):
            out.append(j)
        j += 1
    return out


def _own_counter_drained(gen: str, ins: Instruction, waits: list[Instruction], which: str = "all") -> bool:
    """Whether `waits` (issued after `ins` and before any other memory operation) complete `ins`: all its
    counters, only its LDS side (`which` "lgkm") or only its vector-memory side ("vector", enough before an
    invalidate, which concerns the vector caches only)."""
    lds_side = ("lgkmcnt", "dscnt")
    needed = {c for c, _t, _o in _issue(gen, ins)
              if which == "all" or (c in lds_side) == (which == "lgkm") or ins.memory.space == MemorySpace.LDS}
    done: set[str] = set()
    for w in waits:
        done |= {c for c, v in (w.waitcnt or {}).items() if v == 0}
    return needed <= done


def _first_inv_group(gen: str, insns: Sequence[Instruction], run: list[int]) -> list[int]:
    """The first invalidate sequence of `run` (one of the generation's groups, or a lone unrecognised one);
    a second invalidate after it belongs to a following fence."""
    group: list[int] = []
    for j in run:
        if not _is_inv(insns[j]):
            if group:
                break
            continue
        names = (*(insns[i].mnemonic for i in group), insns[j].mnemonic)
        if group and not any(g[:len(names)] == names for g in _INV_GROUPS[gen]):
            break
        group.append(j)
    return group


def _lift_memory(gen: str, insns: Sequence[Instruction], states: list[dict], k: int,
                 tgsplit: bool) -> tuple[ModelOp | None, list[int]]:
    ins = insns[k]
    mem = ins.memory
    space = "scratch" if _is_private_buffer(ins) else _SPACE[mem.space]
    kind = "rmw" if mem.is_atomic else "store" if mem.is_store and not mem.is_load else "load"
    bits = _norm_bits(gen, ins)
    if space == "scratch":
        name = f"{_GEN_NAMES[gen]} {kind} private"
        return ModelOp(kind, "non_atomic", "wavefront", space, (ins.address,), ins.address, rows=(name,)), [k]

    before = _run_before(insns, k)
    after = _run_after(insns, k)
    wb_idx = [j for j in before if _is_wb(insns[j])]
    wb_level = _level_of(gen, [insns[j] for j in wb_idx], "wb")
    # the invalidates after the instruction, and whether a wait that completes it precedes them
    inv_idx = _first_inv_group(gen, insns, after)
    inv_level = _level_of(gen, [insns[j] for j in inv_idx], "inv")
    first_inv = inv_idx[0] if inv_idx else len(insns)
    waits_before_inv = [insns[j] for j in after if j < first_inv and insns[j].waitcnt]
    waits_after = [insns[j] for j in after if insns[j].waitcnt]
    end = (after[-1] if after else k) + 1
    while end < len(insns) and not _stops_run(insns[end]):
        end += 1
    # nothing follows but the end of the wave: an acquire's "wait before what follows" holds vacuously
    ends_wave = end >= len(insns) or insns[end].is_endpgm
    inv_after_completion = bool(inv_idx) and _own_counter_drained(gen, ins, waits_before_inv, "vector")
    st = states[k]

    exact, loose = [], []
    for name, order, scope, sig in _rows(gen, kind, space, tgsplit):
        if sig.bits != bits:
            continue
        if sig.drain and _pending(st, sig.drain, scope):
            continue
        if sig.wait_after and not ends_wave and not _own_counter_drained(gen, ins, waits_after, sig.wait_after):
            continue
        if sig.wb is not None and sig.wb != wb_level:
            continue
        if sig.inv is not None and (sig.inv != inv_level or not inv_after_completion):
            continue
        (exact if sig.wb == wb_level and sig.inv == inv_level else loose).append((name, order, scope, sig))
    cands = exact or [c for c in loose if c[3].wb is None and c[3].inv is None] or loose
    pcs = [k]
    if cands:
        order, scope = cands[0][1], cands[0][2]
        for _n, o, s, _sig in cands[1:]:
            order = _meet_order(order, o)
            scope = s if _SCOPE_RANK[s] < _SCOPE_RANK[scope] else scope
        rows = tuple(c[0] for c in cands)
        if kind != "rmw" and not any(c[3].wb or c[3].inv for c in cands):
            # the non-atomic rows with the same bytes are candidates too; they do not weaken the claim
            # (an aligned access is single-copy atomic in hardware; docs/explain.md "Lifting")
            rows += tuple(f"{_GEN_NAMES[gen]} {kind}{' ' + q if q else ''} {_ROW_SPACE[space]}"
                          for q, b in _nonatomic_sigs(gen, kind, space) if b == bits)
        if all(c[3].wb is not None for c in cands):
            pcs = [j for j in before if j >= wb_idx[0]] + pcs
        if all(c[3].inv is not None for c in cands):
            pcs += [j for j in after if j <= inv_idx[-1]]
        op = ModelOp(kind, order, scope, space, tuple(insns[j].address for j in pcs), ins.address, rows=rows)
        return op, pcs
    if kind != "rmw":
        na = [q for q, b in _nonatomic_sigs(gen, kind, space) if b == bits]
        if na:
            rows = tuple(f"{_GEN_NAMES[gen]} {kind}{' ' + q if q else ''} {_ROW_SPACE[space]}" for q in na)
            return ModelOp(kind, "non_atomic", "wavefront", space, (ins.address,), ins.address, rows=rows), pcs
    return ModelOp(kind, "unknown", "unknown", space, (ins.address,), ins.address), pcs


def _fence_sig(gen: str, order: str, scope: str, tgsplit: bool) -> _Sig:
    rel = order in _HAS_REL
    acq = order in _HAS_ACQ
    return _Sig(frozenset(), _wb(gen, scope, "global") if rel else None,
                _inv(gen, scope, "global", tgsplit) if acq else None,
                _drain(gen, scope, "global", tgsplit))


def _lift_fences(gen: str, insns: Sequence[Instruction], states: list[dict], used: set[int],
                 tgsplit: bool) -> list[tuple[int, ModelOp]]:
    """Runs of waits / write-backs / invalidates no memory instruction absorbed, matched to fence rows."""
    out = []
    k = 0
    n = len(insns)
    while k < n:
        if k in used or not _sync(insns[k]):
            k += 1
            continue
        run = []
        j = k
        while j < n and not _stops_run(insns[j]):
            if _sync(insns[j]) and j not in used:
                run.append(j)
            j += 1
        k = j
        for seg in _segments(gen, insns, run):
            op = _match_fence(gen, insns, states, seg, tgsplit)
            if op is not None:
                out.append((seg[0], op))
    return out


_INV_GROUPS = {"gfx90a": (("buffer_wbinvl1_vol",), ("buffer_invl2", "buffer_wbinvl1_vol")),
               "gfx942": (("buffer_inv",),), "gfx11": (("buffer_gl0_inv",), ("buffer_gl1_inv", "buffer_gl0_inv")),
               "gfx10": (("buffer_gl0_inv",), ("buffer_gl1_inv", "buffer_gl0_inv")),
               "gfx12": (("global_inv",),), "gfx1250": (("global_inv",),)}


def _segments(gen: str, insns: Sequence[Instruction], run: list[int]) -> list[list[int]]:
    """Split a run of sync instructions into candidate fences: [waits] [write-back] [waits] [invalidates].
    Back-to-back fences (an acquire load's invalidate followed by a fence's own) become separate ones."""
    out: list[list[int]] = []
    seg: list[int] = []
    inv: list[str] = []
    has_wb = False
    for j in run:
        ins = insns[j]
        if _is_wb(ins):
            start = has_wb or bool(inv)
        elif _is_inv(ins):
            names = (*inv, ins.mnemonic)
            start = bool(inv) and not any(g[:len(names)] == names for g in _INV_GROUPS[gen])
        else:
            start = bool(inv)  # waits after an invalidate belong to what follows
        if start and seg:
            out.append(seg)
            seg, inv, has_wb = [], [], False
        seg.append(j)
        if _is_wb(ins):
            has_wb = True
        elif _is_inv(ins):
            inv.append(ins.mnemonic)
    if seg:
        out.append(seg)
    return out


def _match_fence(gen: str, insns: Sequence[Instruction], states: list[dict], run: list[int],
                 tgsplit: bool) -> ModelOp | None:
    wbs = [insns[j] for j in run if _is_wb(insns[j])]
    invs = [insns[j] for j in run if _is_inv(insns[j])]
    # waits that complete nothing, or only scalar loads, are neutral: not part of any fence
    run = [j for j in run if not insns[j].waitcnt or _completes(states[j], _step(gen, states[j], insns[j]), "rw")]
    if not run:
        return None
    waits = [j for j in run if insns[j].waitcnt]
    steps = [(states[j], _step(gen, states[j], insns[j])) for j in waits]
    writes = any(_completes(b, a, "w") for b, a in steps)
    reads = any(_completes(b, a, "r") for b, a in steps)
    if not wbs and not invs and (reads or not writes):
        return None  # a wait that may be for data (or completes nothing): not a fence (docs/explain.md)
    wb_level = _level_of(gen, wbs, "wb")
    inv_level = _level_of(gen, invs, "inv")
    end = _step(gen, states[run[-1]], insns[run[-1]])
    first_inv = next((j for j in run if _is_inv(insns[j])), None)
    cands = []
    variants = []
    for order in ("acquire", "release", "acq_rel", "seq_cst"):
        for scope in ("singlethread", *SCOPES):
            s = "wavefront" if scope == "singlethread" else scope
            sig = _fence_sig(gen, order, s, tgsplit)
            variants.append((f"{_GEN_NAMES[gen]} fence {order} {scope}", order, s, sig))
            legacy = _llvm19_variant(gen, s, "global", sig)
            if legacy is not None:
                variants.append((f"{_GEN_NAMES[gen]} fence {order} {scope}{_LLVM19}", order, s, legacy))
    for name, order, s, sig in variants:
        if sig.wb != wb_level or sig.inv != inv_level:
            continue
        if order in _HAS_REL and sig.drain and _pending(end, sig.drain, s):
            continue
        if sig.inv is not None and sig.drain and _pending(states[first_inv], sig.drain, s, acquire=True):
            continue
        # every wait must complete something this row needs complete
        if not all(_wait_needed(states[j], insns[j], sig.drain) for j in waits):
            continue
        if sig.wb is None and sig.inv is None and not waits:
            continue
        cands.append((name, order, s))
    pcs = tuple(insns[j].address for j in run)
    if not cands:
        if not wbs and not invs:
            return None  # a partial drain (e.g. LDS only while vector loads are outstanding): no fence row
        return ModelOp("fence", "unknown", "unknown", None, pcs, pcs[0])
    order, scope = cands[0][1], cands[0][2]
    for _n, o, s in cands[1:]:
        order = _meet_order(order, o)
        scope = s if _SCOPE_RANK[s] < _SCOPE_RANK[scope] else scope
    return ModelOp("fence", order, scope, None, pcs, pcs[0], rows=tuple(c[0] for c in cands))


def _wait_needed(state: dict, ins: Instruction, drain: str | None) -> bool:
    if drain is None:
        return False
    after = {c: v for c, v in (ins.waitcnt or {}).items() if c in state}
    for c, v in after.items():
        n = state[c][0]
        if n > v and c != "kmcnt" and not state[c][1] <= {"s", "p"} and (drain == "all" or c in ("lgkmcnt", "dscnt")):
            return True
    return False


def _m0_value(insns: Sequence[Instruction], k: int) -> int | None:
    """The constant last moved into M0 before `k` in the same straight-line code, if any."""
    j = k - 1
    while j >= 0 and not (insns[j].is_branch or insns[j].is_call) and insns[j].branch_target is None:
        ops = insns[j].operands
        if ops and ops[0].is_dest and ops[0].text == "m0":
            if insns[j].mnemonic in ("s_mov_b32", "s_movk_i32") and len(ops) > 1 and isinstance(ops[1].value, int):
                return ops[1].value
            return None
        j -= 1
    return None


def _barrier_id(insns: Sequence[Instruction], k: int) -> int | None:
    """The barrier object an instruction names: its immediate, or M0 (the manual's "Barriers" table:
    s_barrier_signal* take the id from M0[4:0], s_barrier_init/join from the lower half of M0). None when
    M0 is not a constant set in the same straight-line code."""
    ins = insns[k]
    src = [o for o in ins.operands if not o.is_dest]
    if not src:
        return -1 if ins.mnemonic == "s_barrier" else None
    o = src[0]
    if o.text == "m0":
        v = _m0_value(insns, k)
        if v is None:
            return None
        if ins.mnemonic.startswith("s_barrier_signal"):
            return v & 0x1F
        v &= 0xFFFF
        return v - 0x10000 if v & 0x8000 else v
    if isinstance(o.value, int):
        v = o.value & 0xFFFF
        return v - 0x10000 if v & 0x8000 else v  # s_barrier_wait prints -1 as 0xffff
    return None


def _lift_barrier(insns: Sequence[Instruction], k: int) -> list[tuple[int, ModelOp]]:
    ins = insns[k]
    mn = ins.mnemonic
    pcs = (ins.address,)

    def op(kind: str, bid: int | None) -> tuple[int, ModelOp]:
        return k, ModelOp(kind, "relaxed", "workgroup", None, pcs, ins.address, barrier=bid,
                          rows=(f"{mn} ({kind})",))
    if mn == "s_barrier":
        return [op("barrier_arrive", -1), op("barrier_wait", -1)]
    kinds = {"s_barrier_signal": "barrier_arrive", "s_barrier_signal_isfirst": "barrier_arrive",
             "s_barrier_wait": "barrier_wait", "s_barrier_join": "barrier_join", "s_barrier_leave": "barrier_leave",
             "s_barrier_init": "barrier_init"}
    if mn in kinds:
        # s_barrier_leave names no barrier: it drops the one last joined (not known statically)
        return [op(kinds[mn], None if mn == "s_barrier_leave" else _barrier_id(insns, k))]
    return []


def _is_async(ins: Instruction) -> bool:
    return bool(ins.mnemonic.startswith(("global_load_lds_", "global_load_async_to_lds", "cluster_load_async"))
                or (ins.mnemonic.startswith("buffer_load_") and " lds" in f" {ins.text} "))


def _lift_async(gen: str, insns: Sequence[Instruction]) -> list[tuple[int, ModelOp]]:
    """Async LDS loads and the waits that complete one (async marks lower to no instruction). Vector loads
    complete in order, so a wait for at most N completes every async load with more than N loads issued at
    or after it. (In address order, not along branches.)"""
    out = []
    counter = "loadcnt" if gen in _G12 else "vmcnt"
    ages: list[int] = []  # per outstanding async load: loads issued at or after it
    for k, ins in enumerate(insns):
        if _is_async(ins):
            ages = [a + 1 for a in ages] + [1]
            space = "generic" if ins.mnemonic.startswith("flat") else "global"
            out.append((k, ModelOp("async_load", "non_atomic", "wavefront", space, (ins.address,), ins.address,
                                   rows=("async LDS DMA load",))))
        elif ages and ins.waitcnt and counter in ins.waitcnt:
            n = ins.waitcnt[counter]
            if any(a > n for a in ages):
                out.append((k, ModelOp("async_wait", "non_atomic", "wavefront", None, (ins.address,), ins.address,
                                       rows=(f"wait until at most {n} vector loads are outstanding",))))
            ages = [a for a in ages if a <= n]
        elif ages and any(c == counter for c, _t, _o in _issue(gen, ins)):
            ages = [a + 1 for a in ages]
    return out
