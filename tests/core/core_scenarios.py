"""Build core scenarios with the writer and record what the reader must give back.

Expected values are the inputs handed to the builder, plus what the format defines from them (register
counts rounded up to the hardware granule, SGPRs dbgapi exposes, parked PCs reported as the saved PC).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from amddbg.core.arch import FAMILY_EXAMPLES, STOP_REASON_ORDER, family_for
from amddbg.core.writer import CoreBuilder

ARCHS = list(FAMILY_EXAMPLES.values())  # one processor per family: gfx906 ... gfx1201 gfx1250


@dataclass
class ExpectedWave:
    queue_id: int
    dispatch_id: int
    grid: tuple
    wg_size: tuple
    kernel_object: int
    entry: int
    workgroup: tuple
    wave_in_group: int
    pc: int
    exec: int
    status: int
    trapsts: int | None
    mode: int
    stop_reason: list
    sgprs: list
    vgprs: list
    accvgprs: list
    wave_size: int
    lds: bytes | None
    xcc: int


@dataclass
class Scenario:
    builder: CoreBuilder
    arch: str
    gpu_id: int
    num_xcc: int
    queues: list = field(default_factory=list)  # (queue_id, ring_size)
    waves: list = field(default_factory=list)
    code_objects: list = field(default_factory=list)  # (uri, load_address, data)


def build(
    arch: str,
    seed: int = 1,
    *,
    wave_size: int | None = None,
    waves_per_group: int = 2,
    groups: int = 2,
    num_xcc: int = 1,
    code_object: bytes | None = None,
) -> Scenario:
    rnd = random.Random(seed)
    fam = family_for(arch)
    gfx9 = not fam.two_state_words
    lanes = 64 if gfx9 else (wave_size or 32)
    b = CoreBuilder(arch=arch, pid=1000 + seed)
    agent = b.add_agent(arch, gpu_id=0x4000 + seed, num_xcc=num_xcc, exception_status=1 << 1)
    sc = Scenario(b, arch, agent.gpu_id, num_xcc)
    if code_object is not None:
        uri = b.add_code_object(code_object, load_address=0x7000_0000_0000, load=False)
        sc.code_objects.append((uri, 0x7000_0000_0000, code_object))
    for qi in range(2):
        q = b.add_queue(
            agent, queue_id=7 + qi, ring_packets=16, read_dispatch_id=14 if qi else 0, compute_tmpring_size=0
        )
        sc.queues.append((q.queue_id, 16 * 64))
        for di in range(2):
            entry = 0x7100_0000_0000 + 0x1000 * (qi * 2 + di)
            grid = (256 * (di + 1), 2, 1 + qi)
            wg = (64, 1, 1)
            d = b.add_dispatch(q, entry=entry, grid=grid, workgroup=wg, kernarg_address=0x7200_0000_0000 + di)
            for g in range(groups):
                group = (g + di, qi, di)
                granule = 1024 if fam.name == "gfx125" else 512  # (LDS is saved in whole granules)
                lds = bytes(rnd.randrange(256) for _ in range(granule * (1 + g))) if (g + di) % 2 == 0 else None
                for wi in range(waves_per_group):
                    nv = 16 if fam.name == "gfx125" else 8 if lanes == 32 and not gfx9 else 4 * rnd.randint(1, 3)
                    nacc = 0
                    if fam.name == "gfx908":
                        nacc = nv
                    elif fam.has_accvgprs:
                        nacc = 4 * rnd.randint(0, 2)
                        if (nv + nacc) % 8:
                            nacc += 4
                    vg = [[rnd.getrandbits(32) for _ in range(lanes)] for _ in range(nv)]
                    acc = [[rnd.getrandbits(32) for _ in range(lanes)] for _ in range(nacc)]
                    sg_count = 106 if not gfx9 else rnd.choice([10, 26, 42, 102])
                    sg = [rnd.getrandbits(32) for _ in range(sg_count)]
                    pc = entry + 4 * rnd.randrange(1, 100)
                    exec_ = rnd.getrandbits(lanes) | 1
                    stopped = rnd.random() < 0.8
                    trap_id = rnd.choice([None, 1, 2, 3, 7]) if stopped else None
                    xcc = g % num_xcc
                    hw = {}
                    reasons = set()
                    trapsts = mode = 0
                    status = rnd.getrandbits(12)  # low bits only (no halt / no_vgprs semantics)
                    if fam.has_trapsts:
                        trapsts = rnd.choice([0, 1 << 2, 1 << 11, 1 << 8])
                        mode = rnd.choice([0, 1 << 14])
                        if stopped:
                            if trapsts == 1 << 2 and mode:
                                reasons.add("float_divide_by_zero")
                            if trapsts == 1 << 11:
                                reasons.add("illegal_instruction")
                            if trapsts == 1 << 8:
                                reasons.add("address_error")
                    else:
                        mode = rnd.getrandbits(8)
                        priv = rnd.choice([0, 1 << 6, 1 << 4])
                        hw = {"excp_flag_priv": priv, "excp_flag_user": 0, "trap_ctrl": 0}
                        if stopped and priv == 1 << 6:
                            reasons.add("illegal_instruction")
                        if stopped and priv == 1 << 4:
                            reasons.add("address_error")
                    if trap_id:
                        reasons.add({1: "breakpoint", 2: "assert_trap", 3: "debug_trap"}.get(trap_id, "trap"))
                    b.add_wave(
                        d,
                        workgroup=group,
                        wave_in_group=wi,
                        pc=pc,
                        exec=exec_,
                        status=status,
                        trapsts=trapsts,
                        mode=mode,
                        sgprs=sg,
                        vgprs=vg,
                        accvgprs=acc,
                        accvgpr_count=nacc if fam.has_accvgprs else None,
                        lds=lds if wi == 0 else None,
                        stopped=stopped,
                        trap_id=trap_id,
                        xcc=xcc,
                        wave_size=lanes,
                        hwregs=hw,
                        se_id=rnd.randrange(2),
                        scoreboard_id=rnd.randrange(64),
                    )
                    sc.waves.append(
                        ExpectedWave(
                            q.queue_id,
                            d.packet_id,
                            grid,
                            wg,
                            d.packet["kernel_object"],
                            entry,
                            group,
                            wi,
                            pc,
                            exec_,
                            status,
                            trapsts if fam.has_trapsts else None,
                            mode,
                            [r for r in STOP_REASON_ORDER if r in reasons],
                            sg,
                            vg,
                            acc,
                            lanes,
                            (lds + bytes(-len(lds) % 512)) if lds else None,
                            xcc,
                        )
                    )
                    # every wave of the workgroup sees the LDS saved with its first wave
    return sc
