"""amddbg.replay.lift against what clang really emits: one kernel per memory-model table row
(corefiles/lift/lift_rows.hip, built by corefiles/lift/build.py with clang-22 and clang-19 for gfx90a,
gfx942, gfx1100 and gfx1200, and gfx1030 with clang-22). Kernel names k__<kind>__<order>__<scope>__<space>
give the source operation; lift() must return one op whose rows include that row and which never claims
more than the source; where the manual's sequence distinguishes the row, exactly that op. Hand-assembled
sequences no row produces must lift to "unknown"."""

from __future__ import annotations

from pathlib import Path

import pytest

from amddbg.codeobj import CodeObject
from amddbg.dwarf.unwind import CodeInfo
from amddbg.isa import decoder_for
from amddbg.replay.lift import ModelOp, lift, lift_at

LIFT = Path(__file__).resolve().parents[2] / "corefiles" / "lift"
TARGETS = ("gfx90a", "gfx942", "gfx1100", "gfx1200")
OBJECTS = [(t, "") for t in (*TARGETS, "gfx1030", "gfx1250")] + [(t, "-clang19") for t in TARGETS]  # (clang-22 only)
GEN = {"gfx90a": "GFX90A", "gfx942": "GFX942", "gfx1030": "GFX10-GFX11", "gfx1100": "GFX10-GFX11",
       "gfx1200": "GFX12", "gfx1250": "GFX125x"}
SCOPE_RANK = {"wavefront": 0, "workgroup": 1, "agent": 2, "system": 3}
ROW_KIND = {"load": "load atomic", "store": "store atomic", "rmw": "atomicrmw"}
ROW_SPACE = {"global": "global", "generic": "generic", "lds": "local"}
ORDER_LE = {  # a <= b: b guarantees everything a does
    "relaxed": {"relaxed", "acquire", "release", "acq_rel", "seq_cst"},
    "acquire": {"acquire", "acq_rel", "seq_cst"}, "release": {"release", "acq_rel", "seq_cst"},
    "acq_rel": {"acq_rel", "seq_cst"}, "seq_cst": {"seq_cst"},
}

# Rows whose bytes the manual's sequences (and clang) tell apart: lift must say exactly this
# (kind, order, scope, space) -> (order, scope). Taken from the tables, not from lift's output:
# gfx90a agent/system acquire = glc + wait + buffer_wbinvl1_vol (system adds buffer_invl2), system
# release = buffer_wbl2; gfx942 scope is sc0/sc1 on loads and stores; GFX10-GFX11 acquire = glc +
# buffer_gl0_inv (workgroup, WGP mode) / + buffer_gl1_inv (agent and system alike), stores carry no scope;
# GFX12 scope:SCOPE_SE/DEV/SYS on every access, system release = global_wb.
EXACT = {
    "gfx90a": {
        ("load", "acquire", "agent", "global"): ("acquire", "agent"),
        ("load", "acquire", "system", "global"): ("acquire", "system"),
        ("load", "seq_cst", "system", "generic"): ("acquire", "system"),
        ("load", "relaxed", "agent", "global"): ("relaxed", "agent"),
        ("load", "relaxed", "system", "global"): ("relaxed", "agent"),  # same glc load as agent
        ("load", "acquire", "workgroup", "global"): ("relaxed", "wavefront"),  # a plain load (the brief's case)
        ("store", "release", "system", "global"): ("release", "system"),
        ("store", "release", "agent", "global"): ("relaxed", "wavefront"),  # nothing outstanding: plain store
        ("rmw_add", "acquire", "agent", "generic"): ("acquire", "agent"),
        ("rmw_add", "acq_rel", "system", "global"): ("acq_rel", "system"),
        ("rmw_xchg", "release", "system", "global"): ("release", "system"),
    },
    "gfx942": {
        ("load", "relaxed", "workgroup", "global"): ("relaxed", "workgroup"),
        ("load", "relaxed", "agent", "global"): ("relaxed", "agent"),
        ("load", "relaxed", "system", "generic"): ("relaxed", "system"),
        ("load", "acquire", "system", "global"): ("acquire", "system"),
        ("store", "relaxed", "system", "global"): ("relaxed", "system"),
        ("store", "release", "agent", "global"): ("release", "agent"),
        ("rmw_add", "acq_rel", "agent", "global"): ("acq_rel", "agent"),
        ("rmw_add", "relaxed", "system", "global"): ("relaxed", "system"),
        ("rmw_cas", "acquire", "agent", "global"): ("acquire", "agent"),
    },
    "gfx1100": {
        ("load", "acquire", "workgroup", "global"): ("acquire", "workgroup"),
        ("load", "acquire", "agent", "global"): ("acquire", "agent"),
        ("load", "acquire", "system", "global"): ("acquire", "agent"),
        ("load", "relaxed", "agent", "global"): ("relaxed", "workgroup"),
        ("store", "release", "agent", "global"): ("relaxed", "wavefront"),
        ("rmw_add", "acquire", "agent", "generic"): ("acquire", "agent"),
        ("rmw_add", "acquire", "workgroup", "lds"): ("acquire", "workgroup"),
    },
    "gfx1030": {  # GFX10: agent/system loads are glc dlc, workgroup loads glc
        ("load", "relaxed", "workgroup", "global"): ("relaxed", "workgroup"),
        ("load", "relaxed", "agent", "global"): ("relaxed", "agent"),
        ("load", "relaxed", "system", "global"): ("relaxed", "agent"),
        ("load", "acquire", "agent", "generic"): ("acquire", "agent"),
        ("rmw_add", "acquire", "workgroup", "global"): ("acquire", "workgroup"),
    },
    "gfx1200": {
        ("load", "acquire", "agent", "global"): ("acquire", "agent"),
        ("load", "relaxed", "workgroup", "global"): ("relaxed", "workgroup"),
        ("store", "relaxed", "agent", "global"): ("relaxed", "agent"),
        ("store", "release", "system", "global"): ("release", "system"),
        ("rmw_add", "acq_rel", "system", "generic"): ("acq_rel", "system"),
        ("rmw_add", "acquire", "workgroup", "lds"): ("acquire", "workgroup"),
    },
    "gfx1250": {  # GFX125x: workgroup accesses carry no scope (SCOPE_CU); agent releases write back too
        ("load", "acquire", "agent", "global"): ("acquire", "agent"),
        ("load", "acquire", "system", "global"): ("acquire", "system"),
        ("load", "relaxed", "agent", "global"): ("relaxed", "agent"),
        ("store", "release", "agent", "global"): ("release", "agent"),
        ("store", "release", "system", "global"): ("release", "system"),
        ("rmw_add", "acq_rel", "agent", "global"): ("acq_rel", "agent"),
    },
}
# fences whose table sequence is empty on this generation (no instruction to lift)
EMPTY_FENCES = {"gfx90a": ("singlethread", "wavefront", "workgroup"), "gfx942": ("singlethread", "wavefront",
                                                                                   "workgroup"),
                "gfx1030": ("singlethread", "wavefront"), "gfx1100": ("singlethread", "wavefront"),
                "gfx1200": ("singlethread", "wavefront"), "gfx1250": ("singlethread", "wavefront")}
EXACT_FENCES = {
    "gfx90a": {("acquire", "agent"): ("acquire", "agent"), ("release", "agent"): ("release", "agent"),
               ("release", "system"): ("release", "system"), ("acq_rel", "system"): ("acq_rel", "system")},
    "gfx942": {("release", "agent"): ("release", "agent"), ("acq_rel", "agent"): ("acq_rel", "agent"),
               ("acquire", "system"): ("acquire", "system")},
    "gfx1100": {("acquire", "workgroup"): ("acquire", "workgroup"), ("acquire", "agent"): ("acquire", "agent"),
                ("release", "agent"): ("release", "workgroup")},  # GFX11 release = waits only, at any scope
    "gfx1030": {("acquire", "workgroup"): ("acquire", "workgroup"), ("acquire", "system"): ("acquire", "agent")},
    "gfx1200": {("acquire", "agent"): ("acquire", "agent"), ("release", "system"): ("release", "system"),
                ("seq_cst", "system"): ("acq_rel", "system")},
    "gfx1250": {("acquire", "agent"): ("acquire", "agent"), ("release", "system"): ("release", "system"),
                ("acq_rel", "system"): ("acq_rel", "system")},
}


def _meet(ops: list[tuple[str, str]]) -> tuple[str, str]:
    order, scope = ops[0]
    for o, s in ops[1:]:
        order = next(x for x in ("seq_cst", "acq_rel", "acquire", "release", "relaxed")
                     if x in ORDER_LE and o in ORDER_LE[x] and order in ORDER_LE[x]) if o != order else o
        scope = min(scope, s, key=SCOPE_RANK.__getitem__)
    return order, scope


def _row_guarantee(row: str) -> tuple[str, str] | None:
    """(order, scope) an atomic or fence row promises, from its name; None for non-atomic rows."""
    words = row.split(" [")[0].split()
    if "atomic" in words or "atomicrmw" in words or "fence" in words:
        i = words.index("fence") + 1 if "fence" in words else words.index("atomicrmw") + 1 if "atomicrmw" in words \
            else words.index("atomic") + 1
        order = "relaxed" if words[i] == "monotonic" else words[i]
        scope = "wavefront" if words[i + 1] == "singlethread" else words[i + 1]
        return order, scope
    return None


@pytest.fixture(scope="module", params=OBJECTS,
                ids=lambda p: p[0] + p[1])
def kernels(request) -> tuple[str, dict[str, list[ModelOp]], Path]:
    target, suffix = request.param
    code = CodeInfo.from_code_object(CodeObject.from_path(LIFT / f"lift-{target}{suffix}.co"))
    dec = decoder_for(code.processor)
    out = {}
    for f in code.functions:
        if f.name.startswith("k__"):
            out[f.name] = lift(dec.decode_all(code.read_code(f.address, f.size), f.address), code.processor)
    return target, out, LIFT / f"lift-{target}{suffix}.co"


def test_every_memory_row(kernels):
    """Each atomic/non-atomic kernel lifts to one op of its kind and space that lists the kernel's row, claims
    at most the source ordering and scope, equals the meet of its atomic rows, and, where the bytes tell the
    rows apart, is exactly the source op."""
    target, table, path = kernels
    checked = 0
    for name, ops in table.items():
        parts = name.split("__")[1:]
        kind, order, scope, space = parts[:4]
        if kind not in ("load", "store", "rmw_add", "rmw_xchg", "rmw_cas"):
            continue
        base = "rmw" if kind.startswith("rmw") else kind
        variant = parts[4] if len(parts) > 4 else ""
        # clang reaches a volatile int through a flat instruction even for a global pointer
        mine = [o for o in ops if o.kind == base and (o.space == space or variant == "volatile")]
        assert len(mine) == 1, (target, name, ops)
        op = mine[0]
        if variant:
            row = f"{GEN[target]} {base} {variant} {ROW_SPACE[op.space]}"
        elif order == "non_atomic":
            row = f"{GEN[target]} {base} {ROW_SPACE[space]}"
        else:  # the manual's LDS rows stop at workgroup: LLVM narrows agent/system LDS atomics to it
            row_scope = "workgroup" if space == "lds" and scope in ("agent", "system") else scope
            row = f"{GEN[target]} {ROW_KIND[base]} {'monotonic' if order == 'relaxed' else order} {row_scope} " \
                  f"{ROW_SPACE[space]}"
        assert any(r == row or r.startswith(row + " [") for r in op.rows), (target, name, op)
        assert op.order != "unknown" and op.scope != "unknown", (target, name, op)
        src_scope = "wavefront" if scope in ("singlethread", "none") else scope
        if order != "non_atomic":
            assert op.order in ORDER_LE and order in ORDER_LE[op.order], (target, name, op)
            assert SCOPE_RANK[op.scope] <= SCOPE_RANK[src_scope], (target, name, op)
        guarantees = [g for g in map(_row_guarantee, op.rows) if g]
        if guarantees:
            assert (op.order, op.scope) == _meet(guarantees), (target, name, op)
        else:  # only non-atomic rows (e.g. nontemporal bits) produce these bytes
            assert (op.order, op.scope) == ("non_atomic", "wavefront") and order == "non_atomic", (target, name, op)
        assert op.pc in op.pcs and list(op.pcs) == sorted(set(op.pcs)), (target, name, op)
        want = EXACT[target].get((kind, order, scope, space))
        if want is not None and not (path.name.endswith("-clang19.co") and space == "lds"):
            # LLVM 19 put no invalidate after an LDS acquire on GFX10+: the plain ds op it is then
            assert (op.order, op.scope) == want, (target, name, op)
        checked += 1
    assert checked >= 248
    hit = sum(1 for k in EXACT[target] if f"k__{'__'.join(k[:3])}__{k[3]}" in table)
    assert hit == len(EXACT[target])


def test_every_fence_row(kernels):
    """Fences: none where the table's sequence is empty, else one fence op listing the kernel's row."""
    target, table, path = kernels
    for name, ops in table.items():
        parts = name.split("__")[1:]
        if parts[0] != "fence":
            continue
        order, scope = parts[1], parts[2]
        fences = [o for o in ops if o.kind == "fence"]
        if scope in EMPTY_FENCES[target]:
            assert fences == [], (target, name, fences)
            continue
        assert len(fences) == 1, (target, name, ops)
        f = fences[0]
        row = f"{GEN[target]} fence {order} {scope}"
        assert any(r == row or r.startswith(row + " [") for r in f.rows), (target, name, f)
        assert order in ORDER_LE[f.order] and SCOPE_RANK[f.scope] <= SCOPE_RANK[scope], (target, name, f)
        assert (f.order, f.scope) == _meet([_row_guarantee(r) for r in f.rows])
        want = EXACT_FENCES[target].get((order, scope))
        if want is not None:
            assert (f.order, f.scope) == want, (target, name, f)


def test_barriers(kernels):
    """s_barrier (GFX12: s_barrier_signal -1 / s_barrier_wait) is arrive + wait on barrier -1; HIP's
    __syncthreads() pattern adds the workgroup release before and acquire after where the generation
    needs instructions for them (GFX10+)."""
    target, table, path = kernels
    for name in ("k__barrier__none__workgroup__none", "k__syncthreads__none__workgroup__none",
                 "k__barrier_signal__none__workgroup__none"):
        if name not in table:
            assert target != "gfx1200" and "signal" in name
            continue
        ops = table[name]
        kinds = [o.kind for o in ops if o.kind.startswith("barrier")]
        assert kinds == ["barrier_arrive", "barrier_wait"], (target, name, ops)
        assert all(o.barrier == -1 and o.scope == "workgroup" for o in ops if o.kind.startswith("barrier"))
        if name.startswith("k__syncthreads") and target in ("gfx1030", "gfx1100", "gfx1200"):
            seq = [(o.kind, o.order, o.scope) for o in ops if o.kind in ("fence", "barrier_arrive", "barrier_wait")]
            assert seq == [("fence", "release", "workgroup"), ("barrier_arrive", "relaxed", "workgroup"),
                           ("barrier_wait", "relaxed", "workgroup"), ("fence", "acquire", "workgroup")], seq


def _decode(processor: str, hexbytes: str):
    return decoder_for(processor).decode_all(bytes.fromhex(hexbytes), 0x1000)


def test_unknown_sequences():
    """Hand-assembled (llvm-mc-22) sequences no table row produces lift to ordering/scope "unknown"."""
    # gfx90a: global_load_dword v1, v0, s[0:1] glc; s_waitcnt vmcnt(0); buffer_invl2; s_endpgm
    # (a system acquire missing its buffer_wbinvl1_vol): the load is a relaxed agent load, the rest no fence
    ops = lift(_decode("gfx90a", "008051dc00000001700f8cbf0000a4e000000000000081bf"), "gfx90a")
    assert [(o.kind, o.order, o.scope) for o in ops] == [("load", "relaxed", "agent"), ("fence", "unknown", "unknown")]
    assert ops[1].rows == () and ops[1].pcs == (0x1008, 0x100C)
    # gfx942: global_load_dword ... sc1; buffer_inv sc1; s_waitcnt vmcnt(0): invalidate before the load completed
    ops = lift(_decode("gfx942", "008050de000000010080a4e000000000700f8cbf000081bf"), "gfx942")
    assert [(o.kind, o.order, o.scope) for o in ops] == [("load", "relaxed", "agent"), ("fence", "unknown", "unknown")]
    # gfx1100: global_store_b32; buffer_gl1_inv (no buffer_gl0_inv)
    ops = lift(_decode("gfx1100", "00006adc000100000000b0e0000000000000b0bf"), "gfx1100")
    assert [(o.kind, o.order, o.scope) for o in ops][-1] == ("fence", "unknown", "unknown")
    # gfx1200: global_load_b32 ... th:TH_LOAD_NT scope:SCOPE_DEV (nontemporal *and* device scope: no row);
    # s_wait_loadcnt 0; s_mov_b32 m0, 3; s_barrier_signal m0; s_barrier_wait 0xffff; s_endpgm
    ins = _decode("gfx1200", "000005ee01001800000000000000c0bf8300fdbe7d4e80beffff94bf0000b0bf")
    ops = lift(ins, "gfx1200")
    assert (ops[0].kind, ops[0].order, ops[0].scope, ops[0].rows) == ("load", "unknown", "unknown", ())
    # gfx1200: global_store_b32; global_wbinv scope:SCOPE_DEV (no row uses global_wbinv): never skipped
    ops2 = lift(_decode("gfx1200", "008006ee00008000000000007cc013ee00000800000000000000b0bf"), "gfx1200")
    assert [(o.kind, o.order) for o in ops2] == [("store", "relaxed"), ("fence", "unknown")]
    arrive = next(o for o in ops if o.kind == "barrier_arrive")
    assert arrive.barrier == 3  # the id comes from M0
    assert next(o for o in ops if o.kind == "barrier_wait").barrier == -1
    assert lift_at(ins, "gfx1200", arrive.pc) == arrive
    assert lift_at(ins, "gfx1200", ins[1].address) is None  # a data wait belongs to no op


def test_named_barrier_operations():
    """GFX12 barrier init/join/signal/wait/leave with ids from immediates and M0 (llvm-mc-22 -mcpu=gfx1200):
    s_mov_b32 m0, 0x40003; s_barrier_init m0; s_mov_b32 m0, 3; s_barrier_join m0; s_barrier_signal m0;
    s_barrier_wait 1; s_barrier_leave; s_barrier_join -1; s_endpgm"""
    ins = _decode("gfx1200", "ff00fdbe030004007d5180be8300fdbe7d5280be7d4e80be010094bf000095bfc15280be0000b0bf")
    got = [(o.kind, o.barrier) for o in lift(ins, "gfx1200")]
    assert got == [("barrier_init", 3), ("barrier_join", 3), ("barrier_arrive", 3), ("barrier_wait", 1),
                   ("barrier_leave", None), ("barrier_join", -1)]


def test_lift_at_finds_the_whole_sequence(kernels):
    """lift_at on any instruction of an absorbed sequence (write-back, wait, invalidate) returns its op."""
    target, table, path = kernels
    name = "k__rmw_add__acq_rel__system__global"
    op = next(o for o in table[name] if o.kind == "rmw")
    assert len(op.pcs) >= 3 or target in ("gfx1030", "gfx1100")  # GFX10-11 system release: no write-back
    code = CodeInfo.from_code_object(CodeObject.from_path(path))
    f = next(f for f in code.functions if f.name == name)
    ins = decoder_for(code.processor).decode_all(code.read_code(f.address, f.size), f.address)
    for pc in op.pcs:
        assert lift_at(ins, code.processor, pc).pc == lift_at(ins, code.processor, op.pc).pc


def test_async_lds_dma(kernels):
    """gfx942 global_load_lds_dword (clang-22 only; clang-19 crashes on it): two async loads, an explicit
    s_waitcnt vmcnt(1) lifts as the async wait; the copies are not lifted as ordinary loads. Async marks
    lower to no instruction, so none can be lifted."""
    target, table, path = kernels
    name = "k__async_load__non_atomic__wavefront__global"
    if target != "gfx942" or path.name.endswith("-clang19.co"):
        assert name not in table
        return
    ops = table[name]
    assert [o.kind for o in ops if o.kind.startswith("async")] == ["async_load", "async_load", "async_wait"]
    assert [o.space for o in ops if o.kind == "load"] == ["lds"]  # only the ds_read of the copied data
    assert not any(o.kind == "async_mark" for o in ops)


def test_tgsplit_rows_weaken_gfx90a_agent_acquire(kernels):
    """In threadgroup-split mode a gfx90a workgroup acquire is glc + wait + buffer_wbinvl1_vol, the same
    bytes as an agent acquire: lifted with tgsplit=True the agent-acquire kernel claims only workgroup."""
    target, _table, path = kernels
    if target != "gfx90a":
        return
    code = CodeInfo.from_code_object(CodeObject.from_path(path))
    f = next(f for f in code.functions if f.name == "k__load__acquire__agent__global")
    ins = decoder_for(code.processor).decode_all(code.read_code(f.address, f.size), f.address)
    op = next(o for o in lift(ins, "gfx90a", tgsplit=True) if o.kind == "load")
    assert (op.order, op.scope) == ("acquire", "workgroup")
    assert {"GFX90A load atomic acquire agent global", "GFX90A load atomic acquire workgroup global"} <= set(op.rows)


SCENARIOS = Path(__file__).resolve().parents[2] / "corefiles" / "scenarios"


@pytest.mark.parametrize("target", TARGETS)
def test_scenario_kernels_with_loops(target):
    """The hang scenarios (loops, branches, barriers; corefiles/scenarios) lift without "unknown": the agent
    spin-wait polls with an acquire agent load in every copy of its loop, and the workgroup one with what the
    generation's workgroup acquire is (a plain load on gfx90a, sc0 on gfx942, glc + buffer_gl0_inv on GFX11,
    scope:SCOPE_SE + global_inv on GFX12)."""
    code = CodeInfo.from_code_object(CodeObject.from_path(SCENARIOS / f"scenarios-{target}.co"))
    dec = decoder_for(code.processor)
    lifted = {}
    for f in code.functions:
        ops = lift(dec.decode_all(code.read_code(f.address, f.size), f.address), code.processor)
        assert not [o for o in ops if "unknown" in (o.order, o.scope)], (f.name, ops)
        lifted[f.name] = ops
    spin = [o for o in lifted["_Z14spin_no_writerPiS_"] if o.kind == "load"]
    assert len(spin) >= 1 and all((o.order, o.scope, o.space) == ("acquire", "agent", "global") for o in spin)
    wg = {o[:2] for o in ((o.order, o.scope, o.kind) for o in lifted["_Z16barrier_deadlockPiS_"]) if o[2] == "load"}
    assert wg == {{"gfx90a": ("relaxed", "wavefront"), "gfx942": ("relaxed", "workgroup")}.get(
        target, ("acquire", "workgroup"))}
    kinds = [o.kind for o in lifted["_Z16barrier_deadlockPiS_"] if o.kind.startswith("barrier")]
    assert kinds == ["barrier_arrive", "barrier_wait"] * 2


def test_unknown_entry_state_withdraws_releases(kernels):
    """With entry_idle=False (something may be outstanding at the first instruction) a gfx90a system release
    store whose bytes rely on nothing being outstanding is no release any more: the store is relaxed and its
    buffer_wbl2 a fence no row explains (the vector counter is never waited for)."""
    target, _table, path = kernels
    if target != "gfx90a":
        return
    code = CodeInfo.from_code_object(CodeObject.from_path(path))
    f = next(f for f in code.functions if f.name == "k__store__release__system__global")
    ins = decoder_for(code.processor).decode_all(code.read_code(f.address, f.size), f.address)
    idle = [(o.kind, o.order, o.scope) for o in lift(ins, "gfx90a")]
    busy = [(o.kind, o.order, o.scope) for o in lift(ins, "gfx90a", entry_idle=False)]
    assert idle == [("store", "release", "system")]
    assert busy == [("fence", "unknown", "unknown"), ("store", "relaxed", "wavefront")]
