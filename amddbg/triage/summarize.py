"""One core -> a small `CoreSummary`: every wave folded into (kernel, source call stack, state).

This runs inside workers (processes or Dask tasks): it takes a path and returns plain data, never a core's
bytes. Cores of one job embed the same code objects at the same PCs, so a worker keeps per-process caches
keyed by the code object's digest and the PC: the inlined source chain of a PC and the static part of a
wave's state (the instruction at the PC, whether it is in a polling loop) are computed once per worker,
not once per wave. Waves stopped inside device functions are unwound through the session API.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections import Counter, defaultdict

from amddbg.errors import AmddbgError
from amddbg.triage.tree import CoreSummary, WaveClass

_CHAINS: dict[tuple, tuple[str, ...]] = {}  # (digest, rel pc) -> source chain outermost first
_KERNEL_FUNCS: dict[tuple, bool] = {}  # (digest, rel pc) -> pc is in a kernel (entry) function
_STATES: dict[tuple, tuple[str, str]] = {}
_DIGESTS: dict[tuple, str] = {}


def _digest(lco) -> str:
    key = (lco.uri, lco.load_address, id(lco.codeobj))
    d = _DIGESTS.get(key)
    if d is None:
        d = hashlib.sha1(bytes(lco.codeobj.data)).hexdigest()
        _DIGESTS[key] = d
    return d


def _label(function: str | None, file: str | None, line: int) -> str:
    """``name:line``: the innermost frame's line, and for every outer frame (inlined or called) the line of
    its call site, as `bt` shows them. Two call sites of one helper are two branches (STAT's call paths)."""
    from amddbg.dwarf.demangle import plain_name

    name = plain_name(function)
    return f"{name}:{line}" if line else name


def _stack(thread) -> tuple[str, ...]:
    """Outermost first; every frame carries its line (the call site for outer frames)."""
    prog = thread.program
    pc = thread.pc
    lco = prog.code_object_at(pc)
    if lco is not None:
        dig = _digest(lco)
        rel = pc - lco.load_address
        key = (dig, rel)
        in_kernel = _KERNEL_FUNCS.get(key)
        if in_kernel is None:
            f = lco.function_at(pc)
            in_kernel = f is not None and f.kind == "kernel"
            _KERNEL_FUNCS[key] = in_kernel
        if in_kernel:  # no calls to unwind: the inlined chain at the PC is the whole stack
            chain = _CHAINS.get(key)
            if chain is None:
                srcs = lco.source_frames(pc)
                chain = tuple(_label(s.function, s.file, s.line) for s in srcs)[::-1]
                _CHAINS[key] = chain
            return chain
    try:
        frames = thread.frames()
    except AmddbgError:
        return (f"{pc:#x}",)
    return tuple(_label(f.function, f.file, f.line) for f in frames)[::-1]


def _state(thread) -> str:
    w = thread.wave
    prog = thread.program
    lco = prog.code_object_at(thread.pc)
    if lco is None:
        return str(thread.state)
    key = (_digest(lco), thread.pc - lco.load_address, tuple(w.stop_reason), bool(w.status & (1 << 13)),
           w.stopped)
    hit = _STATES.get(key)
    if hit is None:
        hit = (str(thread.state), thread.state_reason)
        _STATES[key] = hit
    return hit[0]


def summarize_core(path: str | list[str], *, sysroot: str | None = None, solib_search_path=None) -> CoreSummary:
    import amddbg

    t0 = time.perf_counter()
    paths = [path] if isinstance(path, str) else list(path)
    name = os.path.basename(paths[-1])
    s = CoreSummary(path=os.pathsep.join(paths), name=name)
    try:
        prog = amddbg.open(paths, sysroot=sysroot, solib_search_path=solib_search_path)
        try:
            groups: dict[tuple, list] = defaultdict(list)
            for t in prog.waves:
                kernel = t.kernel
                from amddbg.dwarf.demangle import plain_name

                kname = plain_name(_demangle(kernel)) if kernel else "??"
                groups[(kname, _stack(t), _state(t))].append(t)
            for (kname, stack, state), waves in groups.items():
                per_wg = Counter(",".join(map(str, w.workgroup)) if w.workgroup else "?" for w in waves)
                first = waves[0]
                s.classes.append(WaveClass(
                    kname, stack, state, len(waves), dict(sorted(per_wg.items())),
                    {"thread": first.number, "target_id": first.target_id, "pc": first.pc,
                     "workgroup": list(first.workgroup) if first.workgroup else None,
                     "wave_in_group": first.wave_in_group, "exec": first.exec}))
            s.waves = sum(c.count for c in s.classes)
            for d in prog.dispatches:
                k = prog.kernel_name(d)
                s.dispatches.append({"kernel": k, "grid": list(d.grid_size) if d.grid_size else None,
                                     "block": list(d.workgroup_size) if d.workgroup_size else None,
                                     "dispatch_id": d.dispatch_id, "queue_id": d.queue_id})
            s.warnings = [w for w in prog.warnings][:20]
            s.damage = _damage_text(prog.core.damage if prog.core is not None else None)
        finally:
            prog.close()
    except AmddbgError as exc:
        s.error = " ".join(exc.user_message().split())
    except (OSError, ValueError, MemoryError) as exc:
        s.error = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    except Exception as exc:  # noqa: BLE001 - one unreadable core is a line in the report, never the end
        s.error = f"internal error ({type(exc).__name__}: {' '.join(str(exc).split())})"
    s.seconds = time.perf_counter() - t0
    return s


def _damage_text(d: dict | None) -> str | None:
    if d is None:
        return None
    bits = []
    if d.get("truncation"):
        bits.append(d["truncation"])
    expected = d.get("waves_expected")
    bits.append(f"{d['waves_readable']} of {expected if expected is not None else 'an unknown number of'} "
                f"wave{'s' if expected != 1 else ''} readable")
    return ", ".join(bits)


def summarize_to_json(path, **kw) -> dict:
    """What a worker returns across a process or network boundary: plain JSON-able data."""
    return summarize_core(path, **kw).to_json()


def _demangle(name: str) -> str:
    from amddbg.dwarf.demangle import demangle

    return demangle(name) or name
