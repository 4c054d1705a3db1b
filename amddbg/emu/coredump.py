"""Write an emulator state as a real core through `amddbg.core.writer.CoreBuilder`.

Waves that ended are gone (as on hardware); the others are saved with their registers, their workgroup's
LDS, and the stop the trap handler would record: an `s_trap` as the trap id, a memory violation in
TRAPSTS, the rest halted by the debugger. Global memory (kernargs, buffers, scratch, the code object's
segments) is saved, and the code object is named in the runtime's link map as a memory:// URI.

Layouts: ``split`` (one GPU core holding every segment, host-side ones too, so it stands alone), ``unified`` (one
x86-64 core with the host notes) and ``pair`` (as ROCr and the kernel write them: the GPU core holds agent memory
only, and the host core beside it -- `host_core_path` -- holds the runtime's link map, the code object's bytes, the
queues and the process's notes; a reader needs both files).
"""

from __future__ import annotations

from amddbg.emu.errors import EmulatorError
from amddbg.emu.wave import ENDED, FAULTED, TRAPPED

LAYOUTS = ("split", "unified", "pair")


def host_core_path(path: str) -> str:
    """Where the ``pair`` layout writes the host core beside the GPU core at `path`: ``x.gpu`` -> ``x.host.core``,
    anything else -> ``path.host.core`` (the shipped pair's names: gfx942-reduce.gpu, gfx942-reduce.host.core)."""
    return (path[: -len(".gpu")] if path.endswith(".gpu") else path) + ".host.core"


def write_core(machine, path: str, *, layout: str = "split") -> None:
    from amddbg.core.writer import CoreBuilder

    if layout not in LAYOUTS:
        raise EmulatorError(f"--layout must be one of {', '.join(LAYOUTS)}, not {layout!r}")
    info = machine.dispatch_info
    b = CoreBuilder(arch=machine.processor, pid=4242)
    agent = b.add_agent(machine.processor, gpu_id=0x1002)
    data = bytes(machine.co.data)
    # the loaded segments come from the machine's memory, not the file: __device__/__constant__ globals hold what
    # the launches (and --global) left in them, which the debugger then reads (`print hit_count`)
    b.add_code_object(data, load_address=machine.load, load=False)
    slot = _scratch_slot(machine)
    tmpring, place = _scratch_layout(agent, len(machine.waves), slot)
    q = b.add_queue(agent, queue_id=1, ring_packets=64, read_dispatch_id=0,
                    scratch_backing_memory_location=info.get("scratch", 0) or 0,
                    scratch_backing_memory_byte_size=max(len(machine.waves), 1) * slot,
                    compute_tmpring_size=tmpring)
    d = b.add_dispatch(q, kernel_object=info["kernel_object"], grid=info["grid"], workgroup=info["block"],
                       kernarg_address=info["kernarg"], private_segment_size=info["private_size"],
                       group_segment_size=info["group_segment_size"])
    first_of_group: set[int] = set()
    for w in machine.waves:
        if w.state == ENDED:
            continue
        g = machine.groups[w.group_key]
        lds = None
        if w.group_key not in first_of_group:
            first_of_group.add(w.group_key)
            lds = bytes(g.lds.data) if len(g.lds.data) else None
        se_id, scoreboard = place(w.index) if slot else (0, 0)
        # a cluster dispatch (gfx1250): the wave's TTMP9/TTMP7 hold its cluster id and TTMP6 its place in it
        cluster_ttmps = ({6: w.ttmp[6] & 0x0FFFFFFF, 7: w.ttmp[7], 9: w.ttmp[9]}
                         if getattr(machine, "clusters", None) is not None else None)
        b.add_wave(d, workgroup=w.workgroup, wave_in_group=w.wave_in_group, pc=w.pc, exec=w.exec, ttmps=cluster_ttmps,
                   **_trap_fields(machine, w), scratch_en=bool(slot), se_id=se_id, scoreboard_id=scoreboard,
                   m0=w.m0, mode=w.mode,
                   sgprs=_saved_sgprs(machine, w), sgpr_count=112 if machine.family == "gfx9" else None,
                   vgprs=[row.tolist() for row in w.v],
                   accvgprs=[row.tolist() for row in w.a] if w.a.size else (), lds=lds, wave_size=w.lanes)
    bounds = getattr(machine, "lds_bounds", None)
    notes = [n for n in bounds.warnings() if "lanes" in n] if bounds is not None else []
    state = _barrier_state(machine)
    if state is not None:
        notes.append(state)
    if notes:  # what the run saw that the state does not show: LDS accesses past the allocation (ldsbounds.py)
        from amddbg.core.emunotes import NOTE_NAME, NT_AMDDBG_EMULATOR_NOTES, build

        b.add_note(NOTE_NAME, NT_AMDDBG_EMULATOR_NOTES, build(notes))
    for addr, chunk in machine.memory.segments():
        b.add_memory(addr, chunk)
    if layout == "split":
        b.write_split(path)
    elif layout == "pair":
        b.write_split(path, host_path=host_core_path(path))
    else:
        b.write_unified(path)


def _barrier_state(machine) -> dict | None:
    """GFX12.5's named and cluster barrier objects (expected count, arrivals, members, joins, who waits on which),
    for replay: no saved register holds them (amddbg/core/emunotes.py `barrier_state`). None on other targets."""
    from amddbg.emu.barriers import NAMED_IDS, has_named_barriers

    if not has_named_barriers(machine.processor):
        return None
    groups = []
    for g in machine.groups:
        bars = getattr(g, "barriers", None)
        if bars is None:
            continue
        named = [{"id": bid, "expected": b.expected, "initialized": b.initialized, "arrivals": sorted(b.arrivals),
                  "members": sorted(b.members)} for bid, b in sorted(bars.objects.items())
                 if bid in NAMED_IDS and (b.initialized or b.members or b.arrivals)]
        joined = sorted([wi, bid] for wi, bid in bars.joined.items())
        waiting = sorted([wi, bid] for wi, bid in bars.waiting.items()
                         if any(x.wave_in_group == wi and x.state == "at barrier" for x in g.waves))
        if named or joined or waiting:
            groups.append({"workgroup": list(g.id), "named": named, "joined": joined, "waiting": waiting})
    clusters = []
    cl = getattr(machine, "clusters", None)
    for c, b in sorted(cl.barriers.items()) if cl is not None else ():
        clusters.append({"cluster": list(c), "shape": list(cl.dims), "expected": b.expected,
                         "arrivals": sorted(map(list, b.arrivals)), "dropped": sorted(map(list, b.dropped))})
    if not groups and not clusters:
        return None
    return {"kind": "barrier_state", "workgroups": groups, "clusters": clusters}


def _saved_sgprs(machine, w) -> list[int]:
    """s0..s107 as the context save area holds them: the architectural SGPRs, then the alias slots
    (gfx9: flat_scratch, xnack_mask, vcc; gfx10+: vcc), so that `vcc` and `flat_scratch` read back."""
    m32 = 0xFFFFFFFF
    if machine.family == "gfx9":
        return list(w.s[:102]) + [w.flat_scratch & m32, w.flat_scratch >> 32 & m32, 0, 0,
                                  w.vcc & m32, w.vcc >> 32 & m32]
    return list(w.s[:106]) + [w.vcc & m32, w.vcc >> 32 & m32]


def _scratch_slot(machine) -> int:
    """Bytes of one wave's scratch slot (the emulator's per-wave stride; a multiple of 1 KiB)."""
    return (machine.dispatch_info.get("private_size", 0) * machine.lanes + 1023) // 1024 * 1024


def _scratch_layout(agent, waves: int, slot: int):
    """COMPUTE_TMPRING_SIZE and wave index -> (se_id, scoreboard id) such that the debugger's scratch formula
    (amddbg.core.arch `scratch_region`) lands each wave on the slot the emulator gave it (base + index * slot)."""
    if not slot:
        return 0, lambda i: (0, 0)
    fam = agent.family
    e = agent.entry
    spe = e.get("simd_arrays_per_engine") or 1
    se = max(1, (e.get("array_count", 1) * max(1, e.get("num_xcc", 1))) // spe // max(1, e.get("num_xcc", 1)))
    gfx11 = fam.name in ("gfx11", "gfx12", "gfx125")
    unit = 256 if gfx11 else 1024
    lo, hi = getattr(fam, "se_bits", (0, 0))
    max_se = 1 << (hi - lo + 1) if hi >= lo else 1
    max_scoreboard = 512 if fam.name == "gfx9" else 1024
    for per_se in (waves, -(-waves // se)):  # every wave on SE 0 when it fits, else spread over the SEs
        per_se = max(1, per_se)
        field = per_se if gfx11 else per_se * se
        if per_se <= max_scoreboard and field < 4096 and (waves - 1) // per_se < max_se:
            tmpring = field | (slot // unit) << 12
            return tmpring, lambda i, n=per_se: (i // n, i % n)
    raise EmulatorError(f"{waves} waves with scratch do not fit the context save area's scratch slot encoding")


def _trap_fields(machine, w) -> dict:
    """The trap fields of a saved wave. A wave the trap handler stopped (an `s_trap`, a memory violation)
    carries ttmp6.stopped, its trap id and the STATUS and TRAPSTS (GFX12: EXCP_FLAG_PRIV) that
    `enter_trap_handler` left; every other wave was halted by the debugger to write the core: STATUS.HALT,
    ttmp6.stopped clear, as amd-dbgapi leaves the waves it stops."""
    from amddbg.emu.semantics.salu import wave_status

    handler = w.state in (TRAPPED, FAULTED)
    out = {"stopped": handler, "status": w.status if handler else wave_status(w, halted=True),
           "trap_id": (w.trap_id or None) if w.state == TRAPPED else None, "trapsts": w.trapsts}
    hw = {}
    if machine.family == "gfx12" and getattr(w, "excp_flag_priv", 0):
        hw["excp_flag_priv"] = w.excp_flag_priv
    if machine.family in ("gfx12", "gfx125") and barrier_complete(machine, w):
        hw["state_priv"] = STATE_PRIV_BARRIER_COMPLETE
    if hw:
        out["hwregs"] = hw
    return out


# RDNA4 ISA, 3.4.2 STATE_PRIV: bit 2 BARRIER_COMPLETE, "has the barrier completed but wave has not yet waited on
# that barrier": a wave caught between its `s_barrier_signal -1` and its `s_barrier_wait -1` after the other
# waves' arrivals completed the barrier (they went on; its wait will not block). Without it a replay of the core
# sees a wait on a barrier the wave never arrived at, and invents a deadlock.
STATE_PRIV_BARRIER_COMPLETE = 1 << 2


def barrier_complete(machine, w) -> bool:
    """Whether wave `w`'s arrival at its workgroup barrier completed and the wave has not waited on it yet."""
    from amddbg.emu.barriers import WORKGROUP

    if w.state in (ENDED,) or not (0 <= w.group_key < len(machine.groups)):
        return False
    bars = getattr(machine.groups[w.group_key], "barriers", None)
    if bars is None:
        return False
    ph = bars.arrive_phase.get((w.wave_in_group, WORKGROUP))
    return ph is not None and ph < bars.objects[WORKGROUP].phase
