"""Wave states derived from saved registers, on a core built with the core writer from the real gfx90a -O2
corpus object (kernel divergent_barrier): each wave's TRAPSTS/ttmp6/STATUS/PC chosen to mean one state."""

from __future__ import annotations

from pathlib import Path

import amddbg
from amddbg.session import WaveState

ROOT = Path(__file__).resolve().parents[2]
NAME = "llvm22-gfx90a-w64-O2-hip.co"
LOAD = 0x7F3A_4000_0000


def _build(path: Path) -> dict[str, int]:
    from amddbg.codeobj import CodeObject
    from amddbg.core.writer import CoreBuilder
    from amddbg.isa import decoder_for

    data = (ROOT / "corefiles" / "co" / NAME).read_bytes()
    co = CodeObject.from_bytes(data, name=NAME)
    k = co.kernel("_Z17divergent_barrierPiS_")
    text = co.code_sections()[0]
    insns = [i for i in decoder_for("gfx90a").decode_all(bytes(text.data), text.address)
             if k.entry.address <= i.address < k.entry.address + k.entry.size]
    pcs = {"barrier": next(i.address for i in insns if i.mnemonic == "s_barrier"),
           "sleep": next(i.address for i in insns if i.mnemonic == "s_sleep"),
           "plain": insns[1].address}
    b = CoreBuilder(arch="gfx90a", pid=99)
    agent = b.add_agent("gfx90a", gpu_id=0x77)
    b.add_code_object(data, load_address=LOAD)
    q = b.add_queue(agent, queue_id=3, read_dispatch_id=4)
    d = b.add_dispatch(q, kernel_object=LOAD + k.descriptor_symbol.address, grid=(512, 1, 1),
                       workgroup=(256, 1, 1))
    common = dict(exec=(1 << 64) - 1, sgprs=[0] * 8, vgprs=[list(range(64))], vgpr_count=4)
    # wave in group 0..5: faulted (TRAPSTS.XNACK_ERROR: dbgapi reports memory_violation), trapped (ttmp6 trap id
    # 2: assert), halted (STATUS.HALT), at barrier, spinning (s_sleep in a loop polling memory), running
    b.add_wave(d, workgroup=(0, 0, 0), wave_in_group=0, pc=LOAD + pcs["plain"], stopped=True, trapsts=1 << 28,
               **common)
    b.add_wave(d, workgroup=(0, 0, 0), wave_in_group=1, pc=LOAD + pcs["plain"], stopped=True, trap_id=2, **common)
    b.add_wave(d, workgroup=(0, 0, 0), wave_in_group=2, pc=LOAD + pcs["plain"], stopped=False, status=1 << 13,
               **common)
    b.add_wave(d, workgroup=(0, 0, 0), wave_in_group=3, pc=LOAD + pcs["barrier"], stopped=False, **common)
    b.add_wave(d, workgroup=(1, 0, 0), wave_in_group=0, pc=LOAD + pcs["sleep"], stopped=False, **common)
    b.add_wave(d, workgroup=(1, 0, 0), wave_in_group=1, pc=LOAD + pcs["plain"], stopped=False, **common)
    b.write_split(str(path))
    return pcs


def test_states_from_saved_registers(tmp_path):
    pcs = _build(tmp_path / "states.gpu")
    prog = amddbg.open(tmp_path / "states.gpu")
    got = [(w.target_id, w.state, w.state_reason) for w in prog.waves]
    assert [g[0] for g in got] == [f"AMDGPU Wave 1:1:1:{i + 1} (0,0,0)/{i}" for i in range(4)] + [
        "AMDGPU Wave 1:1:1:5 (1,0,0)/0", "AMDGPU Wave 1:1:1:6 (1,0,0)/1"]  # amd-dbgapi handles, from 1
    assert got[0][1:] == (WaveState.FAULTED, "memory_violation")
    assert got[1][1:] == (WaveState.TRAPPED, "assert_trap")
    assert got[2][1:] == (WaveState.HALTED, "STATUS.HALT is set")
    assert got[3][1] is WaveState.AT_BARRIER and got[3][2] == "waiting at s_barrier"
    assert got[4][1] is WaveState.SPINNING and got[4][2].startswith("s_sleep")
    assert got[5][1] is WaveState.RUNNING
    # every state's wave still has frames at its PC, in the kernel
    for w in prog.waves:
        f = w.frames()
        assert f[-1].function == "divergent_barrier(int*, int*)" and f[0].pc == w.pc
    assert prog.waves[3].pc - LOAD == pcs["barrier"]
    # per-lane register values of a faulted wave are still there
    assert prog.evaluate_lanes("$v0 >= 32").format() == "{lanes 0-31: 0, 32-63: 1}"
