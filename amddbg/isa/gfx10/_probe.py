"""Development helper: ask LLVM how it prints given encodings (used only to build the opcode tables).

Each probe is placed in its own 32-byte slot of a `.text` section assembled with `llvm-mc`, padded
with `s_nop 0`, and `llvm-objdump` disassembles the whole section once; the instruction that starts
at each slot start is that probe's answer.  This keeps thousands of probes to two tool runs while
every answer stays attributable to its probe.  Not imported at run time.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile

MC = os.environ.get("LLVM_MC", "llvm-mc-22")
OBJDUMP = os.environ.get("LLVM_OBJDUMP", "llvm-objdump-22")
MATTR: list[str] = []  # extra llvm-objdump options: _gen's wave64 overlay sets ["--mattr=+wavefrontsize64"]
SLOT = 32
PAD = (0xBF800000).to_bytes(4, "little")  # s_nop 0 on every GFX10+ generation

_LINE = re.compile(r"^\t(.*?)\s*// ([0-9A-F]+):")


def probe(cpu: str, probes: list[bytes]) -> list[tuple[str | None, int]]:
    """For each probe: (objdump text with trailing comment dropped, or None if invalid; size).

    LLVM's disassembler crashes on a few encodings; such batches are split until the crashing
    probe is isolated and answered with None.
    """
    try:
        return _probe(cpu, probes)
    except subprocess.CalledProcessError:
        if len(probes) == 1:
            return [(None, 0)]
        h = len(probes) // 2
        return probe(cpu, probes[:h]) + probe(cpu, probes[h:])


def _probe(cpu: str, probes: list[bytes]) -> list[tuple[str | None, int]]:
    body = bytearray()
    for p in probes:
        assert len(p) <= SLOT
        chunk = bytes(p) + PAD * ((SLOT - len(p)) // 4 + 1)
        body += chunk[:SLOT]
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "p.s")
        obj = os.path.join(tmp, "p.o")
        with open(src, "w") as f:
            f.write(".text\n")
            for i in range(0, len(body), 16):
                f.write(".byte " + ",".join(str(b) for b in body[i : i + 16]) + "\n")
        subprocess.run([MC, "-triple=amdgcn-amd-amdhsa", f"-mcpu={cpu}", "-filetype=obj", "-o", obj, src],
                       check=True)
        out = subprocess.run([OBJDUMP, "-d", f"--mcpu={cpu}", *MATTR, "--no-show-raw-insn", obj],
                             check=True, capture_output=True, text=True).stdout
    at: dict[int, str] = {}
    order: list[int] = []
    for line in out.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        addr = int(m.group(2), 16)
        at[addr] = m.group(1)
        order.append(addr)
    res: list[tuple[str | None, int]] = []
    nxt = {a: b for a, b in zip(order, order[1:], strict=False)}
    for i in range(len(probes)):
        a = i * SLOT
        t = at.get(a)
        if t is None:
            res.append((None, 0))
            continue
        t = re.sub(r"\s*//.*$", "", t).strip()
        t = re.sub(r"\s+", " ", t)
        size = nxt.get(a, a + 4) - a
        if t.startswith(".long") or t.startswith("<unknown>"):
            res.append((None, size))
        else:
            res.append((t, size))
    return res


if __name__ == "__main__":  # pragma: no cover - manual check
    import sys

    cpu = sys.argv[1]
    words = [bytes.fromhex(w) for w in sys.argv[2:]]
    for (t, s), w in zip(probe(cpu, words), words, strict=True):
        print(w.hex(), s, t)
