#!/usr/bin/env python3
"""Emulator speed side by side: amddbg, tinygrad's emulator and a reference loop, per kernel kind, in one run.

    .venv/bin/python bench/emu_vs_tinygrad.py [--tinygrad /work/tinygrad-src] [--targets gfx942,gfx1100,gfx1200]
                                               [--kinds int,fma,div,lds,small] [--waves 32,1024] [--quick]

Issue 22 section 5. The kernels are corefiles/speed/speed.hip, built by clang-22 -O2 for gfx942 (wave64), gfx1100
and gfx1200 (wave32) (corefiles/speed/build.py): one per kind the issue names (integer loop `int_hash`, f32
FMA/packed math `f32_fma`, f32 divide/sqrt `f32_newton`, LDS + barriers `lds_reduce`, small launches `vadd`),
256 work-items per workgroup, launched with 32 and 1,024 waves.

Rates are wave-instructions per CPU second: this process's CPU time plus its children's (tinygrad compiles each
distinct instruction with clang in a child process; amddbg spawns none), because the machine's cores are shared
and wall time measures the neighbours too. The wave-instruction count is amddbg's (`RunResult`); tinygrad runs
the same bytes on the same inputs and its outputs are compared with amddbg's bit for bit (and, for the integer
kinds, with numpy), so it executes the same instruction stream.

- amddbg: `Machine(code object)` + `dispatch` + `run` timed together (what one launch costs, code object
  parsing and wave set-up included). Cold: the per-process decoded code dropped first (`forget_decoded`), as a
  fresh `amddbg run` process sees it; warm: the same launch again in this process.
- tinygrad (test/mockgpu/amd/emu.py of a tinygrad checkout, run as a peer, never imported by amddbg): the code
  object's loadable segments copied into host memory, `run_asm` handed the kernel's entry, the kernarg pointer as
  its user SGPRs and the descriptor's RSRC2 with the LDS size the dispatch packet gives (as the command processor
  does). Cold: its per-instruction program caches emptied and CACHELEVEL=0 (no disk cache), so each distinct
  instruction is compiled again; warm: the same launch again. Absent checkout: skipped, with the reason printed.
- reference loop: the issue's ceiling of a per-instruction Python design, a loop that per wave-instruction
  fetches a decoded tuple and does an EXEC-masked numpy add over the lanes (`np.add(.., where=exec)`), measured
  in the same run for 32 and 64 lanes.

Ratios printed: amddbg/tinygrad (cold and warm) and amddbg warm / reference loop (and tinygrad warm / reference).
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import os
import resource
import shutil
import statistics
import struct
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]  # (amddbg itself comes from PYTHONPATH: a "before" run can point at
# another checkout while the kernels come from this one)
TARGETS = {"gfx942": ("speed-llvm22-gfx942-w64-O2.co", 64, "cdna"),
           "gfx1100": ("speed-llvm22-gfx1100-w32-O2.co", 32, "rdna3"),
           "gfx1200": ("speed-llvm22-gfx1200-w32-O2.co", 32, "rdna4")}
BLOCK = 256
# kind -> (kernel, argument kinds, rounds (full, --quick)); the inputs are drawn by `inputs`
KINDS = {"int": ("int_hash", 40, 12), "fma": ("f32_fma", 24, 8), "div": ("f32_newton", 6, 3),
         "lds": ("lds_reduce", 3, 1), "small": ("vadd", 0, 0)}
LABEL = {"int": "integer loop", "fma": "f32 FMA/packed", "div": "f32 divide/sqrt", "lds": "LDS + barriers",
         "small": "small launches"}
LIMIT = 50_000_000


def cpu() -> float:
    """CPU seconds of this process and its waited-for children (`os.times` ticks are 10 ms: too coarse)."""
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + c.ru_utime + c.ru_stime


def inputs(kind: str, n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(22)
    if kind in ("int", "lds"):
        return [rng.integers(0, 1 << 32, n, dtype=np.uint32), np.zeros(n, np.uint32)]
    if kind == "fma":
        return [rng.uniform(0.5, 1.5, n).astype(np.float32), np.zeros(n, np.float32)]
    if kind == "div":
        return [rng.uniform(1.0, 100.0, n).astype(np.float32), np.zeros(n, np.float32)]
    return [rng.uniform(-1, 1, n).astype(np.float32), rng.uniform(-1, 1, n).astype(np.float32),
            np.zeros(n, np.float32)]


def host_check(kind: str, ins: list[np.ndarray], out: np.ndarray, rounds: int) -> bool | None:
    """numpy's answer for the kinds numpy computes exactly the kernel's way (None: not checked here)."""
    if kind == "int":
        h = ins[0].astype(np.uint64)
        m = np.uint64(0xFFFFFFFF)
        for r in range(rounds):
            h ^= h >> np.uint64(16)
            h = (h * np.uint64(0x7feb352d)) & m
            h ^= h >> np.uint64(15)
            h = (((h << np.uint64(5)) | (h >> np.uint64(27))) + np.uint64(r)) & m
        return bool(np.array_equal(h.astype(np.uint32), out))
    if kind == "small":
        return bool(np.array_equal((ins[0] + ins[1]).view(np.uint32), out.view(np.uint32)))
    if kind == "lds":
        v = ins[0].astype(np.uint64).reshape(-1, BLOCK)
        t = np.arange(BLOCK, dtype=np.uint64)
        acc = np.zeros_like(v)
        for r in range(rounds):
            s0 = (v + np.uint64(r)).sum(axis=1, keepdims=True) & np.uint64(0xFFFFFFFF)
            acc = (acc + (s0 ^ t)) & np.uint64(0xFFFFFFFF)
        return bool(np.array_equal(acc.reshape(-1).astype(np.uint32), out))
    return None


# -- amddbg ------------------------------------------------------------------------------------------------------
def run_amddbg(co: Path, kind: str, waves: int, lanes: int, rounds: int, cold: bool) -> tuple[float, int, np.ndarray,
                                                                                            str]:
    from amddbg.emu import machine as emu_machine

    kernel = KINDS[kind][0]
    n = waves * lanes
    ins = inputs(kind, n)
    specs = [f"buf:{'u32' if a.dtype == np.uint32 else 'f32'}:{n}" for a in ins]
    if kind != "small":
        specs.append(f"u32:{rounds}")
    if cold:
        emu_machine.forget_decoded()
    gc.collect()
    c0 = cpu()
    m = emu_machine.Machine(co)
    m.dispatch(kernel, (n, 1, 1), (BLOCK, 1, 1), specs)
    for b, arr in zip(m.buffers, ins, strict=False):
        m.memory.write(b["address"], arr.tobytes())
    r = m.run(max_instructions=LIMIT)
    t = cpu() - c0
    out = np.frombuffer(m.memory.read(m.buffers[len(ins) - 1]["address"], ins[-1].nbytes), dtype=ins[-1].dtype)
    return t, r.wave_instructions, out.copy(), r.status


# -- tinygrad (a peer, run only: its checkout is put on sys.path by --tinygrad) -----------------------------------
class Tinygrad:
    """tinygrad's emulator (test/mockgpu/amd/emu.py) driven on our code objects, or the reason it cannot be."""

    def __init__(self, path: str | None) -> None:
        self.emu = None
        self.reason = ""
        if not path:
            self.reason = "no --tinygrad checkout given"
            return
        p = Path(path)
        if not (p / "test" / "mockgpu" / "amd" / "emu.py").is_file():
            self.reason = f"{p}/test/mockgpu/amd/emu.py not found (tinygrad's emulator is not in the pip wheel)"
            return
        os.environ["CACHELEVEL"] = "0"  # no on-disk program cache: cold means compiled again
        if shutil.which("clang") is None:  # tinygrad calls `clang`; this machine has clang-22/clang-19 only
            found = shutil.which("clang-22") or shutil.which("clang-19")
            if found is None:
                self.reason = "no clang on PATH (tinygrad compiles each instruction with it)"
                return
            d = tempfile.mkdtemp(prefix="amddbg-bench-clang-")
            os.symlink(found, os.path.join(d, "clang"))
            os.environ["PATH"] = d + os.pathsep + os.environ.get("PATH", "")
        sys.path.insert(0, str(p))
        try:
            from test.mockgpu.amd import emu  # type: ignore[import-not-found]
        except Exception as e:  # noqa: BLE001 (any import failure is a reason to skip the peer, printed)
            self.reason = f"importing tinygrad's emulator failed: {type(e).__name__}: {e}"
            return
        self.emu = emu
        self.keep: list = []

    def forget(self) -> None:
        """Every per-process cache between an instruction's bytes and its compiled program, as a fresh process
        has them (its per-instruction runners, the compiled-program and runtime caches)."""
        from tinygrad.codegen import to_program_cache  # type: ignore[import-not-found]
        from tinygrad.engine.realize import runtime_cache  # type: ignore[import-not-found]

        self.emu._get_runner.cache_clear()
        self.emu._canonical_runner_cache.clear()
        to_program_cache.clear()
        runtime_cache.clear()

    def load(self, co: Path):
        """The code object's PT_LOAD segments at their addresses in one host buffer; (buffer, base address)."""
        data = co.read_bytes()
        phoff, = struct.unpack_from("<Q", data, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
        segs = []
        for i in range(phnum):
            p_type, _flags, off, vaddr, _paddr, filesz, memsz, _align = struct.unpack_from("<IIQQQQQQ", data,
                                                                                          phoff + i * phentsize)
            if p_type == 1:
                segs.append((off, vaddr, filesz, memsz))
        size = max(v + m for _, v, _, m in segs)
        buf = (ctypes.c_char * (size + 4096))()
        base = (ctypes.addressof(buf) + 255) & ~255
        for off, vaddr, filesz, _m in segs:
            ctypes.memmove(base + vaddr, data[off:off + filesz], filesz)
        return buf, base

    def run(self, co: Path, kd, kind: str, waves: int, lanes: int, rounds: int, arch: str,
            cold: bool) -> tuple[float, np.ndarray]:
        emu = self.emu
        n = waves * lanes
        ins = inputs(kind, n)
        arrays = [np.ascontiguousarray(a.copy()) for a in ins]
        kernarg = b"".join(struct.pack("<Q", a.ctypes.data) for a in arrays)
        if kind != "small":
            kernarg += struct.pack("<I", rounds)
        ka = (ctypes.c_char * (len(kernarg) + 64))()
        ctypes.memmove(ka, kernarg, len(kernarg))
        props = kd.kernel_code_properties
        if any(props.get(f) for f in ("enable_sgpr_private_segment_buffer", "enable_sgpr_dispatch_ptr",
                                      "enable_sgpr_queue_ptr", "enable_sgpr_dispatch_id",
                                      "enable_sgpr_flat_scratch_init")):
            raise RuntimeError("the kernel wants user SGPRs besides the kernarg pointer")
        addr = ctypes.addressof(ka)
        user = [addr & 0xFFFFFFFF, addr >> 32]
        rsrc2 = kd.compute_pgm_rsrc2["raw"]
        shift = emu.hsa.AMD_COMPUTE_PGM_RSRC_TWO_GRANULATED_LDS_SIZE_SHIFT
        field = emu.hsa.AMD_COMPUTE_PGM_RSRC_TWO_GRANULATED_LDS_SIZE
        rsrc2 = (rsrc2 & ~field) | ((((kd.group_segment_fixed_size + 511) // 512) << shift) & field)
        buf, base = self.load(co)
        self.keep = [buf, ka, arrays]
        if cold:
            self.forget()
        gc.collect()
        c0 = cpu()
        emu.run_asm(base + kd.entry_address, 1 << 20, n // BLOCK, 1, 1, BLOCK, 1, 1, addr, rsrc2, 0, arch, user)
        t = cpu() - c0
        return t, arrays[-1].copy()


# -- the reference loop ------------------------------------------------------------------------------------------
def reference_rate(lanes: int, n: int = 200_000) -> float:
    """Wave-instructions per CPU second of the minimal per-instruction design: fetch a decoded instruction,
    EXEC-masked numpy add over the lanes, next PC."""
    v = np.zeros((16, lanes), np.uint32)
    v[1], v[2] = np.arange(lanes, dtype=np.uint32), 3
    execm = np.ones(lanes, bool)
    execm[::5] = False
    prog = [(3, 1, 2), (4, 3, 1), (5, 4, 3), (1, 5, 2)]
    add = np.add
    c0 = cpu()
    pc, plen = 0, len(prog)
    for _ in range(n):
        d, a, b = prog[pc]
        add(v[a], v[b], out=v[d], where=execm)
        pc = pc + 1 if pc + 1 < plen else 0
    return n / (cpu() - c0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tinygrad", default=os.environ.get("TINYGRAD_SRC", "/work/tinygrad-src"),
                    help="a tinygrad checkout (its test/mockgpu/amd/emu.py is the peer); '' to skip it")
    ap.add_argument("--targets", default=",".join(TARGETS))
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--waves", default="32,1024")
    ap.add_argument("--warm", type=int, default=2, help="warm runs per cell (the median is printed)")
    ap.add_argument("--quick", action="store_true", help="fewer loop rounds per kernel (a smoke run)")
    a = ap.parse_args()
    from amddbg.emu.machine import Machine

    tg = Tinygrad(a.tinygrad)
    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} CPUs, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at start; "
          "rates are wave-instructions per CPU second (self + children)")
    if tg.emu is None:
        print(f"tinygrad: skipped: {tg.reason}")
    else:
        print(f"tinygrad: {Path(tg.emu.__file__).resolve()}")
    refs = {lanes: statistics.median(reference_rate(lanes) for _ in range(3)) for lanes in (32, 64)}
    print("reference loop (EXEC-masked numpy add per wave-instruction): "
          + ", ".join(f"{lanes} lanes {r:,.0f}/s" for lanes, r in refs.items()))
    hdr = (f"{'target':<8} {'kind':<16} {'waves':>5} {'wave-insns':>10} | {'amddbg cold':>11} {'warm':>9} | "
           f"{'tinygrad cold':>13} {'warm':>9} | {'a/t cold':>8} {'a/t warm':>8} | {'a/ref':>6} {'t/ref':>6} | same")
    print(hdr)
    rows = []
    for target in a.targets.split(","):
        name, lanes, arch = TARGETS[target]
        co = ROOT / "corefiles" / "speed" / name
        kds = {k: Machine(co).find_kernel(KINDS[k][0]).descriptor for k in KINDS}
        for kind in a.kinds.split(","):
            rounds = KINDS[kind][2 if a.quick else 1]
            for waves in (int(x) for x in a.waves.split(",")):
                ac, count, aout, status = run_amddbg(co, kind, waves, lanes, rounds, cold=True)
                warm = [run_amddbg(co, kind, waves, lanes, rounds, cold=False) for _ in range(a.warm)]
                aw = statistics.median(w[0] for w in warm)
                ok = status == "completed" and all(np.array_equal(w[2].view(np.uint32), aout.view(np.uint32))
                                                   for w in warm)
                host = host_check(kind, inputs(kind, waves * lanes), aout, rounds)
                same = ("amddbg " + status) if status != "completed" else ""
                if host is False:
                    same += " numpy-DIFFERS"
                tc = tw = None
                if tg.emu is not None:
                    try:
                        tc, tout = tg.run(co, kds[kind], kind, waves, lanes, rounds, arch, cold=True)
                        tws = [tg.run(co, kds[kind], kind, waves, lanes, rounds, arch, cold=False)
                               for _ in range(a.warm)]
                        tw = statistics.median(x[0] for x in tws)
                        agree = np.array_equal(tout.view(np.uint32), aout.view(np.uint32))
                        same += " identical" if agree else " OUTPUTS-DIFFER"
                    except Exception as e:  # noqa: BLE001 (the peer's failure is printed, the row stays)
                        same += f" tinygrad failed: {type(e).__name__}: {str(e)[:120]}"
                else:
                    same += " (tinygrad skipped)" if ok else ""
                ref = refs[lanes]
                row = {"target": target, "kind": kind, "waves": waves, "n": count, "a_cold": count / ac,
                       "a_warm": count / aw, "t_cold": count / tc if tc else None,
                       "t_warm": count / tw if tw else None, "ref": ref, "same": same.strip() or "ok",
                       "host": host}
                rows.append(row)

                def f(x, w=9):
                    return f"{x:>{w},.0f}" if x is not None else f"{'-':>{w}}"

                def r(x, y, w=8):
                    return f"{x / y:>{w - 1}.2f}x" if x is not None and y else f"{'-':>{w}}"

                print(f"{target:<8} {LABEL[kind]:<16} {waves:>5} {count:>10,} | {f(row['a_cold'], 11)} "
                      f"{f(row['a_warm'])} | {f(row['t_cold'], 13)} {f(row['t_warm'])} | "
                      f"{r(row['a_cold'], row['t_cold'])} {r(row['a_warm'], row['t_warm'])} | "
                      f"{r(row['a_warm'], ref, 6)} {r(row['t_warm'], ref, 6)} | {row['same']}", flush=True)
        # per-dispatch fixed cost: one workgroup of vadd, warm, the median of 9
        if "small" in a.kinds.split(","):
            cold_t = run_amddbg(co, "small", BLOCK // lanes, lanes, 0, cold=True)[0]
            ts = [run_amddbg(co, "small", BLOCK // lanes, lanes, 0, cold=False)[0] for _ in range(9)]
            line = (f"  {target}: one-workgroup vadd launch (Machine + dispatch + run): amddbg cold "
                    f"{cold_t * 1e3:.1f} ms, warm {statistics.median(ts) * 1e3:.1f} ms CPU")
            if tg.emu is not None:
                tts = [tg.run(co, kds["small"], "small", BLOCK // lanes, lanes, 0, arch, cold=False)[0]
                       for _ in range(9)]
                line += f"; tinygrad warm {statistics.median(tts) * 1e3:.1f} ms CPU"
            print(line + " (goal < 50 ms)")
    load = os.getloadavg()
    print(f"load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} at end")
    below = [x for x in rows if x["t_warm"] and x["a_warm"] < x["t_warm"]]
    if below:
        print("below 1.0x tinygrad warm: " + ", ".join(f"{x['target']} {x['kind']} {x['waves']}" for x in below))
    return 1 if any("DIFFER" in x["same"] or x["host"] is False for x in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
