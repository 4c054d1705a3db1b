"""Cores of a synthetic hung job, written by the core writer from the real gfx90a corpus object: each rank's
core holds `groups` workgroups of the `divergent_barrier` kernel (4 waves each: waves 0 and 2 at the
barrier, 1 and 3 spinning on the flag, as the kernel's `lane & 64` test dictates). Outlier ranks differ
as built: one wave stopped by an assert trap in `probe<int>` at its first global load, or the whole core truncated."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAME = "llvm22-gfx90a-w64-O2-hip.co"
LOAD = 0x7F3A_4000_0000


def _pcs():
    from amddbg.codeobj import CodeObject
    from amddbg.isa import decoder_for

    data = (ROOT / "corefiles" / "co" / NAME).read_bytes()
    co = CodeObject.from_bytes(data, name=NAME)
    text = co.code_sections()[0]
    insns = decoder_for("gfx90a").decode_all(bytes(text.data), text.address)

    def body(kname):
        k = co.kernel(kname)
        lo, hi = k.entry.address, k.entry.address + k.entry.size
        return k, [i for i in insns if lo <= i.address < hi]

    kb, bbody = body("_Z17divergent_barrierPiS_")
    kp, pbody = body("_Z5probeIiEvPT_PiS2_i")
    return data, {
        "barrier": next(i.address for i in bbody if i.mnemonic == "s_barrier"),
        "sleep": next(i.address for i in bbody if i.mnemonic == "s_sleep"),
        "trap": next(i.address for i in pbody if i.mnemonic.startswith("global_load")),
        "kd_barrier": kb.descriptor_symbol.address, "kd_probe": kp.descriptor_symbol.address,
    }


def write_rank(path: Path, *, groups: int = 2, trapped: bool = False, data_pcs=None) -> Path:
    from amddbg.core.writer import CoreBuilder

    data, pcs = data_pcs or _pcs()
    b = CoreBuilder(arch="gfx90a", pid=1000)
    agent = b.add_agent("gfx90a", gpu_id=0xB1A2)
    b.add_code_object(data, load_address=LOAD)
    q = b.add_queue(agent, queue_id=1, ring_packets=64, read_dispatch_id=3)
    d = b.add_dispatch(q, kernel_object=LOAD + pcs["kd_barrier"], grid=(256 * groups, 1, 1), workgroup=(256, 1, 1))
    for g in range(groups):
        for wi in range(4):
            waiting = wi % 2 == 0
            b.add_wave(d, workgroup=(g, 0, 0), wave_in_group=wi, pc=LOAD + pcs["barrier" if waiting else "sleep"],
                       exec=(1 << 64) - 1, stopped=False, status=1 << 13 if waiting else 0, sgprs=[0] * 8,
                       vgprs=[[0] * 64], vgpr_count=4)
    if trapped:
        d2 = b.add_dispatch(q, kernel_object=LOAD + pcs["kd_probe"], grid=(64, 1, 1), workgroup=(64, 1, 1))
        b.add_wave(d2, workgroup=(0, 0, 0), wave_in_group=0, pc=LOAD + pcs["trap"], exec=1, stopped=True,
                   trap_id=2, sgprs=[0] * 8, vgprs=[[0] * 64], vgpr_count=4)
    b.write_split(str(path))
    return path


def write_job(folder: Path, ranks: int, *, groups: int = 2, trapped=(), truncated=()) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    dp = _pcs()
    template = write_rank(folder / "template.tmp", groups=groups, data_pcs=dp)
    paths = []
    for r in range(ranks):
        p = folder / f"rank{r:04d}.gpu"
        if r in trapped:
            write_rank(p, groups=groups, trapped=True, data_pcs=dp)
        else:
            shutil.copyfile(template, p)
        if r in truncated:
            with open(p, "r+b") as f:
                f.truncate(100)
        paths.append(p)
    template.unlink()
    return paths
