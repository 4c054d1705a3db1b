"""Every GFX11 true16 reader of a `.h` source reads the high half: a metamorphic test over the decoder tables.

Why: 16-bit VALU compares once read `v1.h` as the low half (issue 22), and the audit that followed found more
readers that did (v_ldexp_f16's exponent, v_cmp_class_f16's mask, v_alignbit/alignbyte's shift). For every VALU
mnemonic of the gfx11 decoder table with a 16-bit source, and every such source, llvm-mc-22 (-mattr=+real-true16,
the oracle for the encoding) assembles the instruction twice: once with that source as `vN.h`, once as `vN.l`.
Run on the same random registers, except that the second run's vN has its halves swapped, the two must leave the
same registers, SGPRs, VCC and EXEC (vN itself aside): a reader that ignores `.h` (or op_sel) reads different bits.
No reference model is needed, so every mnemonic with semantics is covered, integer, float and conversion alike.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from amddbg.emu.errors import EmulatorError
from amddbg.emu.machine import Machine
from amddbg.emu.semantics import Ctx, load_all, lookup
from amddbg.emu.wave import Wave
from amddbg.isa import decoder_for

ROOT = Path(__file__).resolve().parents[2]
MC = shutil.which("llvm-mc-22")
pytestmark = pytest.mark.skipif(MC is None, reason="llvm-mc-22 is not installed")
HALF = ("v.l", "v.h")


def _sources(fields):
    return [f for f in fields if f[0] == "F" and not (f[1].startswith("vdst") or f[1] == "sdst")]


def _text(mn: str, fields, hi_src: int) -> str:
    ops, si = [], 0
    for f in fields:
        if f[0] == "T":
            ops.append(f[1])
            continue
        if f[0] == "K":
            ops.append("0x4200")
            continue
        name, kind, n = f[1], (f[3] if len(f) > 3 else "v"), f[2]
        if name.startswith("vdst") or name == "sdst":
            ops.append("v1.l" if kind in HALF else "s8" if kind == "s" else "v1" if n == 1 else f"v[1:{n}]")
            continue
        r = 4 + 4 * si
        if kind in HALF:
            ops.append(f"v{r}.h" if si == hi_src else f"v{r}.l")
        elif "cndmask" in mn and name == "src2":
            ops.append("s8")
        elif kind.startswith("v"):
            ops.append(f"v{r}" if n == 1 else f"v[{r}:{r + n - 1}]")
        else:
            ops.append(f"s{10 + 2 * si}" if n == 1 else f"s[{10 + 2 * si}:{11 + 2 * si}]")
        si += 1
    return f"{mn} {', '.join(ops)}"


def _pairs():
    table = json.loads((ROOT / "amddbg" / "isa" / "gfx10" / "tables" / "gfx11.json").read_text())
    lines, meta = [], []
    for enc in ("VOP1", "VOP2", "VOP3", "VOPC"):
        for v in table[enc].values():
            if not isinstance(v, dict) or "m" not in v:
                continue
            for s, f in enumerate(_sources(v.get("t", []))):
                if len(f) > 3 and f[3] in HALF:
                    lines += [_text(v["m"], v["t"], s), _text(v["m"], v["t"], -1)]
                    meta.append((v["m"], s))
    r = subprocess.run([MC, "-triple=amdgcn-amd-amdhsa", "-mcpu=gfx1100", "-mattr=+real-true16", "-show-encoding"],
                       input="\n".join(f"L{i}:\n{t}" for i, t in enumerate(lines)), capture_output=True, text=True)
    enc, cur = {}, None
    for line in r.stdout.splitlines():
        m = re.match(r"^L(\d+):", line.strip())
        if m:
            cur = int(m.group(1))
            continue
        e = re.search(r"encoding: \[([^\]]*)\]", line)
        if e and cur is not None:
            enc[cur] = bytes(int(x, 16) for x in e.group(1).split(","))
            cur = None
    return [(mn, s, enc.get(2 * j), enc.get(2 * j + 1)) for j, (mn, s) in enumerate(meta)]


def test_every_true16_source_reads_its_named_half():
    load_all()
    m = Machine(ROOT / "corefiles" / "emu-edges" / "vop3mods-gfx1100.co")
    dec = decoder_for("gfx1100")
    gen = np.random.default_rng(16)
    bad, checked, unassembled, unsupported = [], 0, [], set()
    for mn, s, raw_h, raw_l in _pairs():
        if raw_h is None or raw_l is None:
            unassembled.append((mn, s))
            continue
        ih, il = dec.decode(raw_h + b"\0" * 8, 0, 0x1000), dec.decode(raw_l + b"\0" * 8, 0, 0x1000)
        if lookup(ih) is None:
            unsupported.add(mn)
            continue
        halves = np.float16(gen.uniform(-4, 4, (64, 32, 2))).view(np.uint16).astype(np.uint32)
        base = (halves[..., 1] << 16) | halves[..., 0]
        reg = 4 + 4 * s
        swapped = base.copy()
        swapped[reg] = ((base[reg] & 0xFFFF) << 16) | (base[reg] >> 16)

        def run(insn, v, reg=reg):
            w = Wave(family="gfx11", processor="gfx1100", lanes=32, vgprs=64, workgroup=(0, 0, 0), wave_in_group=0,
                     group_key=0, index=0)
            w.v[:64] = v
            w.exec, w.mode, w.pc, w.vcc = (1 << 32) - 1, 0x3F0 | (1 << 9), 0x1000, 0x5555AAAA
            w.s = [0x3C003C00 + i for i in range(128)]
            try:
                with np.errstate(all="ignore"):
                    lookup(insn)(Ctx(w, m), insn)
            except EmulatorError:
                return None
            out = w.v[:64].copy()
            out[reg] = 0
            return out.tobytes(), tuple(w.s[:16]), w.vcc, w.exec

        a, b = run(ih, base), run(il, swapped)
        if a is None or b is None:  # (a form the emulator stops on, with a reason: not a wrong value)
            unsupported.add(mn)
            continue
        checked += 1
        if a != b:
            bad.append(ih.text)
    assert not bad, f"these read the wrong half: {bad}"
    assert not unassembled, unassembled
    assert checked >= 380, (checked, sorted(unsupported))
