"""Write small demo GPU cores into corefiles/cores/ with amddbg's core writer.

Each core embeds or names a real corpus code object and stops waves at real instruction addresses of its
kernels (taken from the stored llvm-objdump reference dump next to the object):

* gfx90a-divergent-barrier.gpu: split GPU core (ROCr style, standalone: host-side structures included),
  one dispatch of `divergent_barrier` from llvm22-gfx90a-w64-O2-hip.co (embedded as memory://). Two waves
  of workgroup (0,0,0) (waves 0 and 2) wait at `s_barrier` while waves 1 and 3 spin in the `s_sleep`
  loop on a flag nobody sets: the hang.
* gfx1100-probe.core: unified core (x86-64 host notes + AMDGPU note + all segments), one dispatch of
  `probe<int>` from llvm22-gfx1100-w32-O2-hip.co (memory://), a wave stopped by an assert trap at a
  global store, and wave32 neighbours.
* gfx942-reduce.host.core + gfx942-reduce.gpu: a split pair (host core with the r_debug map, amd_queue_t
  and ring; GPU core with the context save area) whose code object is a file:// URI naming
  llvm22-gfx942-w64-O0-cl.co (resolve with --solib-search-path corefiles/co); merge with
  `amddbg coremerge`.

Every agent entry is what a real board reports (amddbg.core.kfd.AGENT_PROFILES: MI250X GCD for
gfx90a, MI300X for gfx942, RX 7900 XTX for gfx1100): debug capability with
HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED, debug_prop, fw_version, PCI ids and non-zero shader geometry, so
ROCdbgapi 0.77 would open the cores; host and unified cores carry NT_PRPSINFO.

usage: python corefiles/make_demo_cores.py [--out DIR]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from amddbg.codeobj import CodeObject  # noqa: E402
from amddbg.core.host import Mapping  # noqa: E402
from amddbg.core.rdebug import encode_file_uri  # noqa: E402
from amddbg.core.writer import CoreBuilder, HostImage  # noqa: E402

CO = HERE / "co"
OUT = HERE / "cores"
_INSN = re.compile(r"^\t(\S+).*// ([0-9A-F]{12}):")


def instructions(co_name: str, function: str) -> list[tuple[int, str]]:
    """[(address, mnemonic)] of `function` from the stored llvm-objdump dump."""
    out, inside = [], False
    for line in (CO / f"{co_name}.objdump.txt").read_text().splitlines():
        if line.endswith(">:"):
            inside = line.endswith(f"<{function}>:")
            continue
        m = _INSN.match(line)
        if inside and m:
            out.append((int(m.group(2), 16), m.group(1)))
    if not out:
        raise SystemExit(f"{function} not found in {co_name}.objdump.txt")
    return out


def first(insns, mnemonic: str, nth: int = 0) -> int:
    return [a for a, m in insns if m == mnemonic][nth]


def kernel(co: CodeObject, name: str):
    k = co.kernel(name)
    if k is None or k.descriptor_symbol is None:
        raise SystemExit(f"kernel {name} has no descriptor")
    return k


def gfx90a_divergent_barrier() -> Path:
    name = "llvm22-gfx90a-w64-O2-hip.co"
    data = (CO / name).read_bytes()
    co = CodeObject.from_bytes(data, name=name)
    k = kernel(co, "_Z17divergent_barrierPiS_")
    insns = instructions(name, "_Z17divergent_barrierPiS_")
    load = 0x7F3A_4000_0000
    b = CoreBuilder(arch="gfx90a", pid=31337)
    agent = b.add_agent("gfx90a", gpu_id=0xB1A2, exception_status=0)
    b.add_code_object(data, load_address=load)
    q = b.add_queue(agent, queue_id=1, ring_packets=64, read_dispatch_id=7)
    d = b.add_dispatch(
        q,
        kernel_object=load + k.descriptor_symbol.address,
        grid=(256, 1, 1),
        workgroup=(256, 1, 1),
        kernarg_address=0x7F3A_5000_0000,
        group_segment_size=1024,
    )
    barrier, sleep = first(insns, "s_barrier"), first(insns, "s_sleep")
    # The kernel branches on `lane & 64` (v_and_b32 v1, 64, v0): waves 0 and 2 of the workgroup reach
    # the barrier, waves 1 and 3 spin on the flag, which nobody ever sets.
    stage = b"".join(i.to_bytes(4, "little") for i in range(256))  # stage[lane] = lane, written before
    for wi in range(4):
        waiting = wi % 2 == 0
        lanes = [wi * 64 + lane for lane in range(64)]
        v1 = [((v + 1) * 4) & 0x3FF for v in lanes] if waiting else [0] * 64  # LDS address / zero
        b.add_wave(
            d,
            workgroup=(0, 0, 0),
            wave_in_group=wi,
            pc=load + (barrier if waiting else sleep),
            exec=(1 << 64) - 1,
            stopped=False,
            status=1 << 13 if waiting else 0,
            sgprs=[0x5000_0000, 0x7F3A, 0x5000_0040, 0x7F3A] + [0] * 6,
            vgprs=[lanes, v1, [2] * 64 if waiting else [0] * 64, [0] * 64],
            lds=stage if wi == 0 else None,
        )
    b.add_memory(0x7F3A_5000_0000, (0x5000_0000).to_bytes(8, "little") + (0x5000_0040).to_bytes(8, "little"))
    b.add_memory(0x5000_0000, bytes(64) + (0).to_bytes(4, "little"))  # flag still 0: spinners never leave
    path = OUT / "gfx90a-divergent-barrier.gpu"
    b.write_split(str(path))
    return path


def gfx1100_probe() -> Path:
    name = "llvm22-gfx1100-w32-O2-hip.co"
    data = (CO / name).read_bytes()
    co = CodeObject.from_bytes(data, name=name)
    fn = "_Z5probeIiEvPT_PiS2_i"
    k = kernel(co, fn)
    insns = instructions(name, fn)
    load = 0x7F88_1000_0000
    b = CoreBuilder(arch="gfx1100", pid=4711)
    agent = b.add_agent("gfx1100", gpu_id=0x3E7, exception_status=1 << (2 - 1))
    b.add_code_object(data, load_address=load)
    q = b.add_queue(agent, queue_id=3, exception_status=1 << (2 - 1))
    d = b.add_dispatch(
        q,
        kernel_object=load + k.descriptor_symbol.address,
        grid=(128, 1, 1),
        workgroup=(64, 1, 1),
        kernarg_address=0x7F88_2000_0000,
    )
    stores = [a for a, m in insns if m.startswith("global_store")] or [insns[len(insns) // 2][0]]
    for g in range(2):
        for wi in range(2):
            trap = g == 1 and wi == 0
            b.add_wave(
                d,
                workgroup=(g, 0, 0),
                wave_in_group=wi,
                wave_size=32,
                pc=load + (stores[0] if trap else insns[4 + wi][0]),
                stopped=trap,
                trap_id=2 if trap else None,
                exec=0xFFFFFFFF if not trap else 0x0000FFFF,
                sgprs=[0x2000_0000, 0x7F88, g, wi],
                vgprs=[list(range(wi * 32, wi * 32 + 32))] * 8,
                lds=bytes([g]) * 512 if wi == 0 else None,
            )
    host = HostImage(
        threads=[
            (4711, {"rip": 0x5555_5555_9123, "rsp": 0x7FFF_FFFF_E000, "rbp": 0x7FFF_FFFF_E010}, 6),
            (4712, {"rip": 0x7FFF_F7D9_1234, "rsp": 0x7FFF_F000_0000}, 0),
        ],
        mappings=[Mapping(0x5555_5555_4000, 0x5555_5555_A000, 0, "/opt/demo/bin/probe")],
        auxv=[(6, 4096), (9, 0x5555_5555_9000)],
        # the faulting host thread's code: `ud2; nop` (abort after the GPU exception)
        memory=[(0x5555_5555_9120, bytes.fromhex("90 90 90 0f 0b 90 c3 90".replace(" ", "")))],
    )
    path = OUT / "gfx1100-probe.core"
    b.write_unified(str(path), host=host)
    return path


def gfx942_reduce() -> tuple[Path, Path]:
    name = "llvm22-gfx942-w64-O0-cl.co"
    data = (CO / name).read_bytes()
    co = CodeObject.from_bytes(data, name=name)
    k = kernel(co, "reduce")
    insns = instructions(name, "__clang_ocl_kern_imp_reduce")
    load = 0x7F10_0000_0000
    b = CoreBuilder(arch="gfx942", pid=2024)
    agent = b.add_agent("gfx942", gpu_id=0x942, num_xcc=2)
    # file:// URI: the bytes are not in the core; the loaded image is (agent memory).
    b.add_code_object(data, uri=encode_file_uri(f"/opt/rocm/demo/{name}"), load_address=load)
    q = b.add_queue(agent, queue_id=2)
    d = b.add_dispatch(
        q,
        kernel_object=load + k.descriptor_symbol.address,
        grid=(512, 1, 1),
        workgroup=(128, 1, 1),
        kernarg_address=0x7F10_8000_0000,
    )
    barriers = [a for a, m in insns if m == "s_barrier"]
    for g in range(4):
        for wi in range(2):
            b.add_wave(
                d,
                workgroup=(g, 0, 0),
                wave_in_group=wi,
                xcc=g % 2,
                pc=load + barriers[wi % len(barriers)],
                stopped=False,
                status=1 << 13,
                sgprs=[g, wi],
                vgprs=[[g * 128 + wi * 64 + i for i in range(64)]] * 4,
                lds=bytes(range(256)) * 2 if wi == 0 else None,
            )
    gpu, host = OUT / "gfx942-reduce.gpu", OUT / "gfx942-reduce.host.core"
    b.write_split(
        str(gpu), host_path=str(host), host=HostImage(threads=[(2024, {"rip": 0x4011_20, "rsp": 0x7FFF_0000_1000}, 11)])
    )
    return host, gpu


def main() -> int:
    global OUT
    if len(sys.argv) == 3 and sys.argv[1] == "--out":
        OUT = Path(sys.argv[2])
    OUT.mkdir(exist_ok=True)
    made = [gfx90a_divergent_barrier(), gfx1100_probe(), *gfx942_reduce()]
    for p in made:
        print(f"{p}: {p.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
