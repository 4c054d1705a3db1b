"""A core of many waves of the demo kernel at the same few PCs (for scale checks and bench/session.py)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def build_scale_core(path: Path, waves: int = 10_000) -> Path:
    from amddbg.codeobj import CodeObject
    from amddbg.core.writer import CoreBuilder
    from amddbg.isa import decoder_for

    name = "llvm22-gfx90a-w64-O2-hip.co"
    data = (ROOT / "corefiles" / "co" / name).read_bytes()
    co = CodeObject.from_bytes(data, name=name)
    k = co.kernel("_Z17divergent_barrierPiS_")
    text = co.code_sections()[0]
    insns = decoder_for("gfx90a").decode_all(bytes(text.data), text.address)
    lo, hi = k.entry.address, k.entry.address + k.entry.size
    body = [i for i in insns if lo <= i.address < hi]
    barrier = next(i.address for i in body if i.mnemonic == "s_barrier")
    sleep = next(i.address for i in body if i.mnemonic == "s_sleep")
    load = 0x7F3A_4000_0000
    b = CoreBuilder(arch="gfx90a", pid=777)
    agent = b.add_agent("gfx90a", gpu_id=0xB1A2)
    b.add_code_object(data, load_address=load)
    q = b.add_queue(agent, queue_id=1, ring_packets=64, read_dispatch_id=1)
    groups = max(1, waves // 4)
    d = b.add_dispatch(q, kernel_object=load + k.descriptor_symbol.address, grid=(256 * groups, 1, 1),
                       workgroup=(256, 1, 1))
    for wi in range(waves):
        waiting = wi % 4 in (0, 2)
        b.add_wave(d, workgroup=(wi // 4, 0, 0), wave_in_group=wi % 4, pc=load + (barrier if waiting else sleep),
                   exec=(1 << 64) - 1, stopped=False, sgprs=[0] * 8, vgprs=[[0] * 64], vgpr_count=4)
    b.write_split(str(path))
    return path
