"""GFX12.5 asynchronous operations no public source pins down, in real clang-22 code (corefiles/gfx1250/
asyncops.hip): `amddbg run` must stop each naming the capability it lacks, never run it as something else.

Why: a cluster multicast load (`cluster_load_async_to_lds_b32`: the payload broadcast into the LDS of the cluster's
workgroups M0's mask selects), the tensor data mover (`tensor_load_to_lds`/`tensor_store_from_lds`: a tile per
instruction, addressed by a descriptor in SGPR groups) and `ds_atomic_async_barrier_arrive_b64` (an arrive on a
64-bit LDS barrier object once the wave's async copies complete) have no public definition of the mask bits, the
descriptor fields or the barrier object. Running the multicast as a plain async load, or skipping the tensor copy,
would give a result the hardware may not: a wrong answer. Each case checks the stop names the instruction and the
capability, and that the kernel's output was never written (a silently run instruction would complete and store).
`s_wait_tensorcnt` with nothing in flight waits for nothing: that kernel completes with its values. The tensor
instructions are decoded as llvm-objdump prints them (they were `.long 0xd0710001`).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[2] / "corefiles" / "gfx1250"
OBJECTS = [HERE / f"asyncops-llvm22-gfx1250-w32-{opt}.co" for opt in ("O0", "O2")]
Z16, Z32 = "bytes:" + "00" * 16, "bytes:" + "00" * 32
CASES = {  # kernel -> (arguments, the output buffer's index, the instruction, the capability the stop must name)
    "cluster_multicast": (["--grid", "64", "--arg", "buf:i32:32:iota", "--arg", "buf:i32:64"], 1,
                          "cluster_load_async_to_lds_b32", "cluster multicast async loads"),
    "tensor_load": (["--grid", "32", "--arg", "buf:i32:32:iota", "--arg", "buf:i32:64", "--arg", Z16, "--arg", Z32],
                    1, "tensor_load_to_lds", "tensor data mover"),
    "tensor_store": (["--grid", "32", "--arg", "buf:i32:64", "--arg", Z16, "--arg", Z32], 0,
                     "tensor_store_from_lds", "tensor data mover"),
    "async_arrive": (["--grid", "32", "--arg", "buf:i32:32:iota", "--arg", "buf:i32:64"], 1,
                     "ds_atomic_async_barrier_arrive_b64", "async LDS barrier objects"),
}


def _run(obj: Path, kernel: str, args: list[str]) -> dict:
    r = subprocess.run([sys.executable, "-m", "amddbg", "run", str(obj), "--kernel", kernel, "--block", "32", *args,
                        "--json"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("obj", OBJECTS, ids=lambda p: p.stem.rsplit("-", 1)[1])
@pytest.mark.parametrize("kernel", sorted(CASES))
def test_unpinned_async_operation_stops_naming_the_capability(obj: Path, kernel: str) -> None:
    args, out_index, mnemonic, capability = CASES[kernel]
    doc = _run(obj, kernel, args)
    assert doc["status"] == "unsupported", doc
    assert doc["reason"].startswith(f"unsupported instruction {mnemonic} "), doc["reason"]
    assert capability in doc["reason"] and "not in a public source" in doc["reason"]
    assert set(doc["buffers"][out_index]["values"]) == {0}, "a store past an instruction the emulator cannot run"


@pytest.mark.parametrize("obj", OBJECTS, ids=lambda p: p.stem.rsplit("-", 1)[1])
def test_tensor_wait_with_nothing_in_flight_completes(obj: Path) -> None:
    doc = _run(obj, "tensor_wait_only", ["--grid", "32", "--arg", "buf:i32:32:iota", "--arg", "buf:i32:32"])
    assert doc["status"] == "completed", doc["reason"]
    assert doc["buffers"][1]["values"] == [t + 1 for t in range(32)]


@pytest.mark.skipif(shutil.which("llvm-objdump-22") is None, reason="llvm-objdump-22 not installed")
@pytest.mark.parametrize("obj", OBJECTS, ids=lambda p: p.stem.rsplit("-", 1)[1])
def test_tensor_instructions_disassemble_as_llvm_objdump(obj: Path) -> None:
    ref = subprocess.run(["llvm-objdump-22", "-d", str(obj)], capture_output=True, text=True, check=True).stdout
    want = {int(m.group(2), 16): " ".join(m.group(1).split())
            for m in re.finditer(r"^\t(tensor_\S+ [^/]*?)\s*// ([0-9A-F]+):", ref, re.M)}
    assert len(want) >= 2
    r = subprocess.run([sys.executable, "-m", "amddbg", "disasm", str(obj), "--json"], capture_output=True,
                       text=True, timeout=300)
    got = {row["address"]: " ".join(row["text"].split()) for row in map(json.loads, r.stdout.splitlines())}
    assert {a: got.get(a) for a in want} == want
