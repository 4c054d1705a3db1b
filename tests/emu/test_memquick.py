"""The quick paths of the vector memory instructions (amddbg/emu/semantics/mem.py `_vmem_quick`, `_buffer_quick`)
against the general path they short-cut.

Every GLOBAL/FLAT/SCRATCH load and store and every MUBUF dword access of real clang code objects runs both ways
from the same machine state, with addresses laid out to hit the edges: one address for every lane, lane L at
base + size * L, strided and overlapping lanes, a run crossing a page, a lane on the unmapped guard page after a
buffer (the faulting lane and address), the LDS and private apertures of flat addresses (inside and outside the
allocation, aligned and not), partial and single-lane EXEC, stores of values memory already holds, cache lines
held by the wave's CU, by another CU and by its shader array, stores waiting in a delayed write path. Memory
bytes, `version`, `dirty`, every cache level's lines in their fill order, LDS bytes and `writes`, the wave's
registers, the recorded MemOp and the fault must come out the same.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from amddbg.emu.errors import EmulatorError, MemoryViolation
from amddbg.emu.machine import Machine, Workgroup
from amddbg.emu.memory import LDS, PAGE, PRIVATE_APERTURE, SHARED_APERTURE
from amddbg.emu.semantics import Ctx, lookup, mem, per_insn_cache
from amddbg.emu.wave import Wave

ORACLE = Path(__file__).resolve().parents[2] / "corefiles" / "oracle"
OBJECTS = ["llvm22-gfx90a-w64-O0", "llvm22-gfx90a-w64-O2", "llvm19-gfx942-w64-O0", "llvm22-gfx1100-w32-O0",
           "llvm22-gfx1100-w64-O2", "llvm19-gfx1200-w32-O2", "llvm22-gfx1200-w64-O0"]
PATTERNS = ["uniform", "run", "run-cross", "run-guard", "stride", "overlap", "scatter", "lds", "lds-run",
            "lds-out", "private", "private-lanes", "private-odd", "private-out"]
LDS_SIZE = 2048
PRIVATE = 256


def _memory_insns(m: Machine) -> list:
    """One instruction per (mnemonic, operand layout) of the loads and stores the quick paths cover."""
    seen, out = set(), []
    for insn in m.instructions.values():
        mn = insn.mnemonic
        if not mn.startswith(("global_", "flat_", "scratch_", "buffer_")) or "atomic" in mn or (
                "_load_" not in mn and "_store_" not in mn):
            continue
        key = (mn, tuple((o.kind, o.is_dest, o.count) for o in insn.operands), "offset:" in insn.text)
        if key not in seen and lookup(insn) is not None:
            seen.add(key)
            out.append(insn)
    return out


def _machine(path: Path, lanes: int) -> tuple[Machine, Wave, int]:
    m = Machine(path)
    w = Wave(family=m.family, processor=m.processor, lanes=lanes, vgprs=256, workgroup=(0, 0, 0), wave_in_group=0,
             group_key=1, index=0)
    m.groups = [Workgroup((0, 0, 0), (lanes, 1, 1), LDS(LDS_SIZE)), Workgroup((1, 0, 0), (lanes, 1, 1),
                                                                             LDS(LDS_SIZE))]
    m.waves = [w]
    buf = m.memory.alloc(3 * PAGE, align=PAGE)  # three mapped pages, then the unmapped guard page
    w.private_size = PRIVATE
    w.scratch_base = m.memory.alloc(PRIVATE * lanes, align=PAGE)
    return m, w, buf


def _fill(m: Machine, w: Wave, buf: int, rng: random.Random) -> None:
    gen = np.random.default_rng(rng.getrandbits(64))
    small = rng.random() < 0.5  # few distinct values: stores of what memory holds, uniform data
    for p in list(m.memory.pages):
        vals = gen.integers(0, 4 if small else 256, PAGE, dtype=np.uint8)
        m.memory.pages[p][:] = vals.tobytes()
    for g in m.groups:
        g.lds.data[:] = gen.integers(0, 4 if small else 256, LDS_SIZE, dtype=np.uint8).tobytes()
        g.lds.writes = 0
    m.memory.version = 0
    m.memory.dirty = set()
    w.v = gen.integers(0, 4 if small else 1 << 32, (256, w.lanes), dtype=np.uint32).astype(np.uint32)
    w.s = [int(x) for x in gen.integers(0, 1 << 32, 128)]
    c = m.caches
    c.lines, c.gl1, c.pending = {}, {}, {}
    c.delayed = c.through = False
    for cu in (m.caches.cu_of(w), 0, 2):  # the wave's CU/WGP (stale lines), another CU's lines
        lines = c.lines.setdefault(cu, {})
        for _ in range(rng.randint(0, 12)):
            base = buf + rng.randrange(0, 3 * PAGE, 64)
            lines[base] = bytearray(gen.integers(0, 256, 64, dtype=np.uint8).tobytes())
    if c.two_level:
        for arr in (c.array_of(w), 0):
            lines = c.gl1.setdefault(arr, {})
            for _ in range(rng.randint(0, 8)):
                lines[buf + rng.randrange(0, 3 * PAGE, 64)] = bytearray(gen.integers(0, 256, 64,
                                                                                   dtype=np.uint8).tobytes())
    if rng.random() < 0.15:  # delayed write paths, sometimes with a store of this CU waiting
        c.delayed = True
        c.through = rng.random() < 0.3
        if rng.random() < 0.5:
            c.pending[c.cu_of(w)] = [((1, 0), buf + 4 * rng.randrange(0, 64), b"\xaa\xbb\xcc\xdd", 0)]


def _targets(pattern: str, lanes: int, size: int, buf: int, rng: random.Random) -> tuple[str, list[int]]:
    """(space the addresses are in: global | local | private, one address per lane)."""
    step = max(size, 1)
    if pattern.startswith("private"):
        if pattern == "private":
            a = rng.randrange(0, PRIVATE - 16, 4)
            return "private", [a] * lanes
        if pattern == "private-lanes":
            return "private", [rng.randrange(0, PRIVATE - 16, 4) for _ in range(lanes)]
        if pattern == "private-odd":
            return "private", [rng.randrange(0, PRIVATE - 16) | 1] * lanes
        return "private", [PRIVATE - rng.choice((0, 2, 4))] * lanes
    if pattern.startswith("lds"):
        if pattern == "lds":
            return "local", [rng.randrange(0, LDS_SIZE - 16)] * lanes
        if pattern == "lds-run":
            a = rng.randrange(0, LDS_SIZE - step * lanes)
            return "local", [a + step * ln for ln in range(lanes)]
        a = LDS_SIZE - step * (lanes // 2)
        return "local", [a + step * ln for ln in range(lanes)]
    if pattern == "uniform":
        return "global", [buf + rng.randrange(0, 3 * PAGE - 16)] * lanes
    if pattern == "run":
        a = buf + rng.randrange(0, PAGE - step * lanes) + PAGE * rng.randrange(0, 3)
        return "global", [a + step * ln for ln in range(lanes)]
    if pattern == "run-cross":  # the run crosses from the first page into the second
        a = buf + PAGE - step * rng.randrange(1, lanes) - rng.choice((0, 0, 1))
        return "global", [a + step * ln for ln in range(lanes)]
    if pattern == "run-guard":  # the last lanes are on the unmapped guard page
        a = buf + 3 * PAGE - step * rng.randrange(1, lanes)
        return "global", [a + step * ln for ln in range(lanes)]
    if pattern == "stride":
        k = rng.choice((12, 16, 100))
        a = buf + rng.randrange(0, 3 * PAGE - k * lanes)
        return "global", [a + k * ln for ln in range(lanes)]
    if pattern == "overlap":
        a = buf + rng.randrange(0, 3 * PAGE - 64)
        return "global", [a + rng.choice((0, 1, 2, 4)) * (ln % 3) for ln in range(lanes)]
    return "global", [buf + rng.randrange(0, 3 * PAGE + 64) for _ in range(lanes)]  # some on the guard page


def _place(m: Machine, w: Wave, insn, space: str, targets: list[int], rng: random.Random) -> bool:
    """Set the address registers so that lane L accesses targets[L]; False when the instruction cannot."""
    plan = per_insn_cache(mem._PLANS, insn, mem._vmem_plan)
    kind_space, _, vaddr, _, saddr, off = plan[:6]
    if kind_space == "private" and space != "private" or kind_space == "global" and space != "global":
        return False
    if kind_space == "flat":
        targets = [t | (PRIVATE_APERTURE if space == "private" else SHARED_APERTURE if space == "local" else 0)
                   for t in targets]
    base_s = 0
    if saddr is not None and saddr.kind.name == "SGPR":
        r = saddr.register
        if kind_space == "private":
            base_s = rng.randrange(0, 64)
            w.s[r] = base_s
        else:
            base_s = min(targets) - rng.randrange(0, 64)
            w.s[r], w.s[r + 1] = base_s & 0xFFFFFFFF, base_s >> 32
    elif saddr is not None:
        return False
    if vaddr is None:
        if len(set(targets)) > 1:
            return False
        if kind_space == "private":
            if saddr is None:
                return False
            w.s[saddr.register] = (targets[0] - off) & 0xFFFFFFFF
            return True
        return (base_s + off) & (2**64 - 1) == targets[0]
    for ln, t in enumerate(targets):
        x = (t - base_s - off) & (2**64 - 1)
        if kind_space == "private" or saddr is not None:
            w.v[vaddr.register, ln] = x & 0xFFFFFFFF
        else:
            w.v[vaddr.register, ln] = x & 0xFFFFFFFF
            w.v[vaddr.register + 1, ln] = x >> 32
    return True


def _place_buffer(m: Machine, w: Wave, insn, buf: int, rng: random.Random) -> bool:
    """A private-segment V# (ADD_TID, swizzled or with stride 4) at a base near a page end or the guard page."""
    bp = per_insn_cache(mem._BUF_PLANS, insn, lambda i: mem._buffer_plan(i, "load" if "load" in i.mnemonic
                                                                         else "store"))
    if bp is None:
        return False
    sreg, soff_op = bp[0], bp[1]
    base = buf + rng.choice((0, PAGE - 4 * rng.randrange(1, w.lanes), 3 * PAGE - 4 * rng.randrange(1, w.lanes),
                             rng.randrange(0, PAGE)))
    swizzle = rng.random() < 0.7
    d1 = (base >> 32) | ((0 if swizzle else 4) << 16) | (int(swizzle) << 31)
    d3 = (1 << 23) | (rng.choice((1, 1, 0)) << 19) | (rng.randrange(4) << 21)
    w.s[sreg:sreg + 4] = [base & 0xFFFFFFFF, d1, 0xFFFFFFFF, d3]
    if soff_op is not None and soff_op.kind.name == "SGPR":
        w.s[soff_op.register] = rng.choice((0, 4, 64, 256))
    return True


def _snapshot(m: Machine, w: Wave) -> tuple:
    c = m.caches
    return ({p: bytes(b) for p, b in m.memory.pages.items()}, m.memory.version, set(m.memory.dirty),
            {k: [(a, bytes(b)) for a, b in v.items()] for k, v in c.lines.items()},
            {k: [(a, bytes(b)) for a, b in v.items()] for k, v in c.gl1.items()},
            {k: list(v) for k, v in c.pending.items()}, [(bytes(g.lds.data), g.lds.writes) for g in m.groups],
            w.v.tobytes(), w.v.shape, w.a.tobytes(), w.a.shape, list(w.s))


def _restore(m: Machine, w: Wave, snap: tuple) -> None:
    pages, version, dirty, lines, gl1, pending, lds, v, vshape, a, ashape, s = snap
    for p, b in pages.items():
        m.memory.pages[p][:] = b
    m.memory.version, m.memory.dirty = version, set(dirty)
    m.caches.lines = {k: {a_: bytearray(b) for a_, b in v_} for k, v_ in lines.items()}
    m.caches.gl1 = {k: {a_: bytearray(b) for a_, b in v_} for k, v_ in gl1.items()}
    m.caches.pending = {k: list(v_) for k, v_ in pending.items()}
    for g, (data, writes) in zip(m.groups, lds, strict=True):
        g.lds.data[:] = data
        g.lds.writes = writes
    w.v = np.frombuffer(v, dtype=np.uint32).reshape(vshape).copy()
    w.a = np.frombuffer(a, dtype=np.uint32).reshape(ashape).copy()
    w.s = list(s)


def _run(m: Machine, w: Wave, insn, monkeypatch) -> tuple:
    """Execute `insn` on `w` (with whatever `mem` functions the caller patched, undone afterwards); (outcome,
    MemOps, state snapshot)."""
    ctx = Ctx(w, m)
    try:
        with np.errstate(all="ignore"):
            lookup(insn)(ctx, insn)
        outcome = None
    except MemoryViolation as exc:
        outcome = ("fault", exc.address, list(exc.lanes), str(exc))
    except EmulatorError as exc:
        outcome = ("raised", type(exc).__name__, str(exc))
    finally:
        monkeypatch.undo()
    ops = [(op.kind, op.space, op.addresses, op.size, op.policy, op.op) for op in ctx.memops]
    return outcome, ops, _snapshot(m, w)


def _both_ways(m: Machine, w: Wave, insn, quick: str, monkeypatch, taken: dict, trial: int) -> None:
    """Run `insn` from the same state with mem.<quick> refusing (the general path) and as it is, and require the
    same outcome, MemOps and state; count which way the quick path went."""
    before = _snapshot(m, w)
    monkeypatch.setattr(mem, quick, lambda *a: False)
    general = _run(m, w, insn, monkeypatch)
    _restore(m, w, before)
    calls = []
    real = getattr(mem, quick)

    def spy(*a):
        r = real(*a)
        calls.append(r)
        return r

    monkeypatch.setattr(mem, quick, spy)
    got = _run(m, w, insn, monkeypatch)
    taken["quick" if any(calls) else "general"] += 1
    assert got[0] == general[0], (insn.text, trial)
    assert got[1] == general[1], (insn.text, trial)
    for i, (x, y) in enumerate(zip(got[2], general[2], strict=True)):
        assert x == y, (insn.text, trial, ["pages", "version", "dirty", "lines", "gl1", "pending", "lds",
                                           "v", "vshape", "a", "ashape", "s"][i])


@pytest.mark.parametrize("name", OBJECTS)
def test_quick_memory_paths_match_the_general_path(name, monkeypatch):
    lanes = 32 if "-w32-" in name else 64
    m, w, buf = _machine(ORACLE / f"oracle-{name}.co", lanes)
    rng = random.Random(name)
    insns = _memory_insns(m)
    assert insns
    taken = {"quick": 0, "general": 0}
    for insn in insns:
        buffer = insn.mnemonic.startswith("buffer_")
        size = mem._width(insn.mnemonic)[0]
        for trial in range(24 if not buffer else 10):
            _fill(m, w, buf, rng)
            if buffer:
                if not _place_buffer(m, w, insn, buf, rng):
                    break
            else:
                pattern = PATTERNS[trial % len(PATTERNS)]
                space, targets = _targets(pattern, lanes, size, buf, rng)
                if not _place(m, w, insn, space, targets, rng):
                    continue
            full = (1 << lanes) - 1
            w.exec = rng.choice((full, full, rng.getrandbits(lanes) & full or 1, 1 << rng.randrange(lanes),
                                 full & ~1, full >> 1))
            _both_ways(m, w, insn, "_buffer_quick" if buffer else "_vmem_quick", monkeypatch, taken, trial)
    assert taken["quick"] > 50 and taken["general"] > 20, taken  # both sides are really exercised


ATOMIC_PATTERNS = ["uniform", "run", "run-guard", "overlap", "scatter", "stride", "lds", "private"]


def _atomic_insns(m: Machine) -> list:
    """One GLOBAL/FLAT atomic per (mnemonic, operand layout)."""
    seen, out = set(), []
    for insn in m.instructions.values():
        mn = insn.mnemonic
        if not mn.startswith(("global_atomic", "flat_atomic")):
            continue
        key = (mn, tuple((o.kind, o.is_dest, o.count) for o in insn.operands))
        if key not in seen and lookup(insn) is not None:
            seen.add(key)
            out.append(insn)
    return out


def _place_atomic(w: Wave, insn, space: str, targets: list[int], rng: random.Random) -> bool:
    plan = per_insn_cache(mem._ATOMIC_PLANS, insn, mem._atomic_plan)
    saddr, vaddr, off = plan[4], plan[5], plan[8]
    flat = insn.mnemonic.startswith("flat_")
    if space != "global" and not flat:
        return False
    if flat:
        targets = [t | (PRIVATE_APERTURE if space == "private" else SHARED_APERTURE if space == "local" else 0)
                   for t in targets]
    if saddr is not None:
        base_s = min(targets) - rng.randrange(0, 64)
        w.s[saddr.register], w.s[saddr.register + 1] = base_s & 0xFFFFFFFF, base_s >> 32
        for ln, t in enumerate(targets):
            w.v[vaddr.register, ln] = (t - base_s - off) & 0xFFFFFFFF
        return True
    for ln, t in enumerate(targets):
        x = (t - off) & (2**64 - 1)
        w.v[vaddr.register, ln] = x & 0xFFFFFFFF
        w.v[vaddr.register + 1, ln] = x >> 32
    return True


@pytest.mark.parametrize("name", ["llvm22-gfx90a-w64-O0", "llvm22-gfx90a-w64-O2", "llvm19-gfx942-w64-O0",
                                  "llvm22-gfx1100-w32-O0", "llvm19-gfx1200-w32-O2", "llvm22-gfx1200-w64-O0"])
def test_atomic_quick_path_matches_the_lane_by_lane_path(name, monkeypatch):
    """`mem._atomic_quick` against the lane-by-lane `_access` loop: lanes at one address (each sees the previous
    lane's result), runs, overlaps, a lane on the guard page (the fault), flat addresses in the LDS and private
    apertures, stale lines of the wave's CU (refreshed even where a compare-and-swap fails), delayed write paths,
    partial EXEC. Memory, version, dirty, caches, registers, the MemOp and the fault must come out the same."""
    lanes = 32 if "-w32-" in name else 64
    m, w, buf = _machine(ORACLE / f"oracle-{name}.co", lanes)
    rng = random.Random("atomic" + name)
    insns = _atomic_insns(m)
    assert insns
    taken = {"quick": 0, "general": 0}
    for insn in insns:
        nb = per_insn_cache(mem._ATOMIC_PLANS, insn, mem._atomic_plan)[1]
        for trial in range(40):
            _fill(m, w, buf, rng)
            space, targets = _targets(ATOMIC_PATTERNS[trial % len(ATOMIC_PATTERNS)], lanes, nb, buf, rng)
            if not _place_atomic(w, insn, space, targets, rng):
                continue
            full = (1 << lanes) - 1
            w.exec = rng.choice((full, full, rng.getrandbits(lanes) & full or 1, 1 << rng.randrange(lanes), 0))
            _both_ways(m, w, insn, "_atomic_quick", monkeypatch, taken, trial)
    assert taken["quick"] > 30 and taken["general"] > 10, taken
