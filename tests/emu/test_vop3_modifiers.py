"""Every VALU source modifier acts on its own operand: a property test over random neg/abs/op_sel bits.

Why: the float helpers read neg/abs from the instruction text where the GFX9 decoder (and the DPP/SDWA forms of
every generation) leave them, and they once matched texts to sources by counting from the end of the line. A
selector or carry-in printed after the sources (`v_cndmask_b32_e64 v1, v1, -v1, vcc`, clang -O2's `v < 0 ? -v : v`)
shifted every modifier one source to the left. Here llvm-mc-22 (the oracle for which bit means what) assembles
instructions with random modifiers on each source, in every encoding that has them (VOP3 on gfx90a/gfx1100/gfx1200,
VOP3 op_sel on 16-bit sources, SDWA and DPP on gfx90a, DPP and VOP3-DPP on GFX11/12), and each is run on a wave
whose sources hold per-lane values; the result is compared with the operation applied in Python to the operands as
the text says they are modified. Values are small multiples of 1/8, nonzero, so every sum, product and fma is
exact and no signed-zero or NaN rule is involved: a difference can only be a modifier on the wrong operand.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from amddbg.emu.machine import Machine
from amddbg.emu.semantics import Ctx, lookup
from amddbg.emu.wave import Wave
from amddbg.isa import decoder_for

EDGES = Path(__file__).resolve().parents[2] / "corefiles" / "emu-edges"
MC = shutil.which("llvm-mc-22")
pytestmark = pytest.mark.skipif(MC is None, reason="llvm-mc-22 is not installed")

# name -> (sources, reference on float64 operands); f32 unless the name says f16
OPS = {
    "v_add_f32": (2, lambda a, b: a + b), "v_sub_f32": (2, lambda a, b: a - b), "v_mul_f32": (2, lambda a, b: a * b),
    "v_max_f32": (2, max), "v_min_f32": (2, min), "v_fma_f32": (3, lambda a, b, c: a * b + c),
    "v_med3_f32": (3, lambda a, b, c: sorted((a, b, c))[1]), "v_cndmask_b32": (2, None), "v_cmp_lt_f32": (2, None),
    "v_fma_f16": (3, lambda a, b, c: a * b + c), "v_add_f16": (2, lambda a, b: a + b),
}


def _mod(reg: int, neg: bool, ab: bool) -> str:
    t = f"|v{reg}|" if ab else f"v{reg}"
    return "-" + t if neg else t


def _forms(target: str, rng: random.Random, n: int) -> list[tuple[str, str, list[tuple[bool, bool, int]]]]:
    """(mnemonic key, assembler text, per source (neg, abs, op_sel)) for n random instructions."""
    gfx9 = target.startswith("gfx9")
    out = []
    for _ in range(n):
        name = rng.choice(sorted(OPS))
        nsrc = OPS[name][0]
        mods = [(rng.random() < 0.5, rng.random() < 0.5, rng.randrange(2) if "f16" in name else 0)
                for _ in range(nsrc)]
        enc = rng.choice(["vop3", "vop3", "dpp", "sdwa"] if gfx9 else ["vop3", "vop3", "dpp", "vop3dpp"])
        if name in ("v_med3_f32", "v_fma_f32", "v_fma_f16") or (enc == "sdwa" and name == "v_cndmask_b32"):
            enc = "vop3"  # (three sources: VOP3 only here)
        if "f16" in name and enc != "vop3":
            enc = "vop3"
        if name == "v_cmp_lt_f32":
            enc = "vop3"
        if name == "v_add_f16" and target != "gfx1100":  # (op_sel on VOP3 v_add_f16: GFX11 only)
            mods = [(ng, ab, 0) for ng, ab, _ in mods]
        srcs = [_mod(2 + k, ng, ab) for k, (ng, ab, _) in enumerate(mods)]
        true16 = "f16" in name and target == "gfx1100"  # GFX11 true16 syntax: the half by name (op_sel bits)
        if true16:
            srcs = [_mod(2 + k, ng, ab).replace(f"v{2 + k}", f"v{2 + k}.{'h' if sl else 'l'}")
                    for k, (ng, ab, sl) in enumerate(mods)]
        if enc == "sdwa" or (enc == "dpp" and gfx9):  # (the e32 DPP/SDWA forms take abs/neg on both sources)
            mods = [(ng, ab, 0) for ng, ab, _ in mods]
        if name == "v_cndmask_b32":
            sel = "vcc" if gfx9 or enc == "dpp" else "s8" if rng.random() < 0.5 else "vcc_lo"
            if gfx9 and enc == "vop3" and rng.random() < 0.5:
                sel = "s[8:9]"
            if not gfx9 and enc == "dpp":
                sel = "vcc_lo"
            text = f"v_cndmask_b32_e64 v1, {srcs[0]}, {srcs[1]}, {sel}" if enc == "vop3" else \
                f"v_cndmask_b32_{'e64_' if enc == 'vop3dpp' else ''}dpp v1, {srcs[0]}, {srcs[1]}, {sel}"
        elif name == "v_cmp_lt_f32":
            sd = "s[8:9]" if gfx9 else "s8"
            text = f"v_cmp_lt_f32_e64 {sd}, {srcs[0]}, {srcs[1]}"
        else:
            suffix = {"vop3": "_e64" if nsrc == 2 else "", "dpp": "_dpp", "vop3dpp": "_e64_dpp", "sdwa": "_sdwa"}[enc]
            text = f"{name}{suffix} {'v1.l' if true16 else 'v1'}, {', '.join(srcs)}"
            if "f16" in name and name == "v_fma_f16" and not true16:
                text += f" op_sel:[{','.join(str(s) for _, _, s in mods)},0]"
        if enc in ("dpp", "vop3dpp"):
            text += " quad_perm:[0,1,2,3] row_mask:0xf bank_mask:0xf"
        if enc == "sdwa":
            text += " dst_sel:DWORD dst_unused:UNUSED_PRESERVE src0_sel:DWORD src1_sel:DWORD"
        out.append((name, text, mods))
    return out


def _assemble(target: str, texts: list[str]) -> list[bytes]:
    r = subprocess.run([MC, "-triple=amdgcn-amd-amdhsa", f"-mcpu={target}", "-show-encoding"],
                       input="\n".join(texts) + "\n", capture_output=True, text=True, check=True)
    enc = [bytes(int(x, 16) for x in m.group(1).split(","))
           for m in re.finditer(r"encoding: \[([^\]]*)\]", r.stdout)]
    assert len(enc) == len(texts), r.stderr
    return enc


def _values(gen: np.random.Generator, lanes: int) -> np.ndarray:
    """Nonzero multiples of 1/8 in [-8, 8] (exact in f16 too)."""
    k = gen.integers(1, 64, lanes) * np.where(gen.random(lanes) < 0.5, -1, 1)
    return k / 8.0


def _f16_bits(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float16).view(np.uint16).astype(np.uint32)


@pytest.mark.parametrize("target", ["gfx90a", "gfx1100", "gfx1200"])
def test_random_modifier_bits_act_on_their_own_operands(target):
    lanes = 64 if target.startswith("gfx9") else 32
    m = Machine(EDGES / f"vop3mods-{target}.co")
    dec = decoder_for(target)
    rng = random.Random(f"mods-{target}")
    forms = _forms(target, rng, 160)
    raws = _assemble(target, [t for _, t, _ in forms])
    gen = np.random.default_rng(22)
    full = (1 << lanes) - 1
    seen = set()
    for (name, text, mods), raw in zip(forms, raws, strict=True):
        insn = dec.decode(raw + b"\0" * 8, 0, 0x1000)
        fn = lookup(insn)
        assert fn is not None, insn.text
        w = Wave(family=m.family, processor=m.processor, lanes=lanes, vgprs=16, workgroup=(0, 0, 0),
                 wave_in_group=0, group_key=0, index=0)
        w.exec, w.mode, w.pc = full, 0x3F0 | (1 << 9) * (not target.startswith("gfx12")), 0x1000
        f16 = "f16" in name
        operands = []
        for k in range(len(mods)):
            a, b = _values(gen, lanes), _values(gen, lanes)
            if f16:
                w.v[2 + k] = (_f16_bits(b) << 16) | _f16_bits(a)
            else:
                w.v[2 + k] = a.astype(np.float32).view(np.uint32)
            operands.append((a, b))
        w.v[1] = 0xDEADBEEF
        sel_bits = rng.getrandbits(lanes) & full
        w.vcc = sel_bits
        w.s[8], w.s[9] = sel_bits & 0xFFFFFFFF, sel_bits >> 32
        fn(Ctx(w, m), insn)
        srcs = []
        for k, (ng, ab, osel) in enumerate(mods):
            v = operands[k][osel]
            v = np.abs(v) if ab else v
            srcs.append(-v if ng else v)
        sel = np.array([(sel_bits >> i) & 1 for i in range(lanes)], dtype=bool)
        if name == "v_cmp_lt_f32":
            got = w.s[8] | (w.s[9] << 32 if lanes == 64 else 0)
            want = sum(1 << i for i in range(lanes) if srcs[0][i] < srcs[1][i])
            assert got == want, f"{target} {insn.text}: {got:#x} != {want:#x}"
        else:
            if name == "v_cndmask_b32":
                ref = np.where(sel, srcs[1], srcs[0])
            else:
                ref = np.array([OPS[name][1](*(s[i] for s in srcs)) for i in range(lanes)])
            if f16:
                got, want = w.v[1] & 0xFFFF, _f16_bits(ref)
            else:
                got, want = w.v[1], ref.astype(np.float32).view(np.uint32)
            bad = np.nonzero(got != want)[0]
            assert not len(bad), (f"{target} {insn.text} (from {text!r}): lane {bad[0]} got {int(got[bad[0]]):#x} "
                                  f"want {int(want[bad[0]]):#x}")
        seen.add((name, insn.encoding))
    assert len(seen) >= 14, sorted(seen)


# ---------------------------------------------------------------------------------------------- VOP3P (packed)

PACKED = {"v_pk_add_f16": (2, lambda a, b: a + b, True), "v_pk_mul_f16": (2, lambda a, b: a * b, True),
          "v_pk_fma_f16": (3, lambda a, b, c: a * b + c, True), "v_pk_add_u16": (2, lambda a, b: a + b, False),
          "v_pk_max_i16": (2, max, False), "v_pk_sub_i16": (2, lambda a, b: a - b, False)}


@pytest.mark.parametrize("target", ["gfx90a", "gfx1100", "gfx1200"])
def test_random_packed_modifier_bits(target):
    """VOP3P: op_sel picks each source's half for the low result, op_sel_hi for the high one; neg_lo/neg_hi negate
    the float halves they feed (integer forms have no neg). 120 random instructions per target."""
    lanes = 64 if target.startswith("gfx9") else 32
    m = Machine(EDGES / f"vop3mods-{target}.co")
    dec = decoder_for(target)
    rng = random.Random(f"packed-{target}")
    gen = np.random.default_rng(3)
    forms = []
    for _ in range(120):
        name = rng.choice(sorted(PACKED))
        n, _, is_float = PACKED[name]
        bits = {k: [rng.randrange(2) for _ in range(n)] for k in ("op_sel", "op_sel_hi", "neg_lo", "neg_hi")}
        if not is_float:
            bits["neg_lo"] = bits["neg_hi"] = [0] * n
        text = f"{name} v1, {', '.join(f'v{2 + k}' for k in range(n))}" + "".join(
            f" {k}:[{','.join(map(str, v))}]" for k, v in bits.items() if any(v) or k == "op_sel_hi")
        forms.append((name, text, bits))
    raws = _assemble(target, [t for _, t, _ in forms])
    full = (1 << lanes) - 1
    for (name, text, bits), raw in zip(forms, raws, strict=True):
        insn = dec.decode(raw + b"\0" * 8, 0, 0x1000)
        n, fn, is_float = PACKED[name]
        w = Wave(family=m.family, processor=m.processor, lanes=lanes, vgprs=16, workgroup=(0, 0, 0),
                 wave_in_group=0, group_key=0, index=0)
        w.exec, w.mode, w.pc = full, 0x3F0 | (1 << 9) * (not target.startswith("gfx12")), 0x1000
        halves = []
        for k in range(n):
            if is_float:  # multiples of 1/4 in [-4, 4]: sums, products and fmas exact in f16
                lo, hi = (gen.integers(-16, 17, lanes) / 4.0 for _ in range(2))
                w.v[2 + k] = (_f16_bits(hi) << 16) | _f16_bits(lo)
            else:
                lo, hi = (gen.integers(0, 1 << 16, lanes) for _ in range(2))
                w.v[2 + k] = (hi.astype(np.uint32) << 16) | lo.astype(np.uint32)
            halves.append((lo, hi))
        lookup(insn)(Ctx(w, m), insn)
        got = w.v[1]
        for part, sel, neg in ((0, "op_sel", "neg_lo"), (1, "op_sel_hi", "neg_hi")):
            ops = []
            for k in range(n):
                v = halves[k][bits[sel][k]]
                ops.append(-v if bits[neg][k] else v)
            ref = np.array([fn(*(o[i] for o in ops)) for i in range(lanes)])
            if is_float:
                want = _f16_bits(ref)
            else:
                s16 = name.endswith("i16")
                if s16 and name != "v_pk_sub_i16":
                    ops = [np.where(o >= 1 << 15, o - (1 << 16), o) for o in ops]
                    ref = np.array([fn(*(o[i] for o in ops)) for i in range(lanes)])
                want = (ref.astype(np.int64) & 0xFFFF).astype(np.uint32)
            have = (got >> (16 * part)) & 0xFFFF
            bad = np.nonzero(have != want)[0]
            assert not len(bad), (f"{target} {insn.text} (from {text!r}) {'hi' if part else 'lo'} half: lane {bad[0]} "
                                  f"got {int(have[bad[0]]):#x} want {int(want[bad[0]]):#x}")
