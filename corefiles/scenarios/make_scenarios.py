#!/usr/bin/env python3
"""Build the scenario kernels (clang-22, -O2 -g, gfx90a and gfx1100) and regenerate the scenario cores by
running each kernel with `amddbg run ... --core` (split and unified layouts).

    python3 corefiles/scenarios/make_scenarios.py            # needs clang-22/lld-22 for the objects
    python3 corefiles/scenarios/make_scenarios.py --cores    # cores only, from the checked-in objects
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS = ("gfx90a", "gfx1100", "gfx942", "gfx1200")
# name -> (kernel, grid, block, args, expected status)
SCENARIOS = {
    "barrier-deadlock": ("barrier_deadlock", "256", "256", ["buf:i32:1", "buf:i32:256"], "hang"),
    "spin-no-writer": ("spin_no_writer", "128", "64", ["buf:i32:1", "buf:i32:128"], "hang"),
    "memory-fault": ("memory_fault", "64", "64", ["buf:i32:64", "i32:60"], "fault"),
    "spin-wrong-scope": ("spin_wrong_scope", "128", "64", ["buf:i32:1", "buf:i32:64:iota", "buf:i32:128"], "hang"),
    "spin-right-scope": ("spin_right_scope", "128", "64", ["buf:i32:1", "buf:i32:64:iota", "buf:i32:128"],
                         "completed"),
    "spin-cycle": ("spin_cycle", "128", "64", ["buf:i32:1", "buf:i32:1", "buf:i32:64"], "hang"),
    "assert-trap": ("assert_trap", "64", "64", ["buf:i32:64:values=" + ",".join(
        str(-v if v == 37 else v) for v in range(64)), "buf:i32:64"], "trap"),
    "handshake-wrong-scope": ("handshake_wrong_scope", "128", "64", ["buf:i32:1", "buf:i32:1", "buf:i32:64"], "hang"),
    "lds-spin": ("lds_spin", "128", "128", ["buf:i32:128"], "hang"),
    "trap-in-callee": ("trap_in_callee", "64", "64", ["buf:i32:64:iota", "buf:i32:64"], "trap"),
    "slow-loop": ("slow_loop", "64", "64", ["buf:i32:64", "i32:300"], "limit"),
}
# scenarios whose core is taken part-way (the kernel would finish): instructions to run before writing the core
STOP_AT = {"slow-loop": 1000}
# divergence-demo: corefiles/teach's kernel stopped inside its per-lane loop (max instructions per target), so
# the core shows a wave with part of its lanes active: `amddbg -batch -ex lanes divergence-demo-gfx90a.gpu`
DIVERGENCE_DEMO = {"gfx90a": 53, "gfx1100": 136}


def build() -> None:
    """-O2 objects (the checked-in cores come from them) and -O0 objects (tests run them to cores at test time:
    -O0 code keeps pointers on the stack and barriers in called functions)."""
    for t in TARGETS:
        for opt, out in (("-O2", HERE / f"scenarios-{t}.co"), ("-O0", HERE / f"scenarios-{t}-O0.co")):
            _compile(t, opt, out)


def _compile(t: str, opt: str, out: Path) -> None:
    subprocess.run(["clang-22", "-x", "hip", f"--offload-arch={t}", "-nogpulib", "-nogpuinc", "--cuda-device-only",
                    "--no-gpu-bundle-output", "-g", opt, "-fdebug-compilation-dir=/amddbg",
                    "-cuid=amddbg-scenarios", "corefiles/scenarios/scenarios.hip", "-o", str(out)], check=True,
                   cwd=HERE.parents[1])  # a relative source path keeps the DWARF paths reproducible


def cores() -> None:
    for t in TARGETS:
        for name, (kernel, grid, block, args, _status) in SCENARIOS.items():
            for layout, suffix in (("split", "gpu"), ("unified", "core")):
                out = HERE / f"{name}-{t}.{suffix}"
                cmd = [sys.executable, "-m", "amddbg", "run", str(HERE / f"scenarios-{t}.co"), "--kernel", kernel,
                       "--grid", grid, "--block", block, "--core", str(out), "--layout", layout,
                       "--max-instructions", str(STOP_AT.get(name, 200000))]
                for a in args:
                    cmd += ["--arg", a]
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
                print(out.name)
        for layout, suffix in (("split", "gpu"), ("unified", "core")) if t in DIVERGENCE_DEMO else ():
            out = HERE / f"divergence-demo-{t}.{suffix}"
            subprocess.run([sys.executable, "-m", "amddbg", "run", str(HERE.parent / "teach" / f"divergence-{t}-O1.co"),
                            "--kernel", "divergence_demo", "--grid", "64", "--block", "64", "--arg",
                            "buf:i32:128:iota", "--max-instructions", str(DIVERGENCE_DEMO[t]), "--core", str(out),
                            "--layout", layout], check=True, stdout=subprocess.DEVNULL)
            print(out.name)


if __name__ == "__main__":
    if "--cores" not in sys.argv:
        build()
    cores()
