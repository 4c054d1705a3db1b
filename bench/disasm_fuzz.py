"""Differential check of the GFX9-family decoder against `llvm-mc-22 --disassemble` on random words.

For each generation and encoding, build random instruction words with a known opcode and plausible
field values (registers, inline constants, literals, modifiers), keep those LLVM accepts, and compare
the text. Prints agreement per encoding and the most frequent disagreements. Breadth check beyond
what the corpus happens to contain.

    .venv/bin/python bench/disasm_fuzz.py [--cpu gfx90a] [--n 400] [--enc VOP3] [--seed 1]
"""

from __future__ import annotations

import argparse
import collections
import random
import re
import struct
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from amddbg.isa.gfx9.decoder import Decoder, load_tables  # noqa: E402

SENTINEL = b"\x00\x00\x80\xbf"
CPUS = {"gfx803": "gfx8", "gfx906": "gfx9", "gfx908": "gfx908", "gfx90a": "gfx90a", "gfx942": "gfx940",
        "gfx950": "gfx950"}


def mc(cpu: str, probes: list[bytes]) -> list[str | None]:
    # Each probe is followed by `s_nop 0` (absorbs a stray 64-bit decode of a rejected probe's tail)
    # and a numbered marker `s_nop 0x8000+i` that closes the probe's group.
    lines = []
    markers = set()
    for i, p in enumerate(probes):
        lines.append(" ".join(f"0x{b:02x}" for b in p))
        lines.append(" ".join(f"0x{b:02x}" for b in SENTINEL))
        mk = struct.pack("<I", 0xBF808000 | (i & 0x7FFF))
        markers.add(mk)
        lines.append(" ".join(f"0x{b:02x}" for b in mk))
    proc = subprocess.run(["llvm-mc-22", "--disassemble", "-show-encoding", "-triple=amdgcn-amd-amdhsa",
                           f"-mcpu={cpu}"], input="\n".join(lines) + "\n", capture_output=True, text=True)
    if proc.returncode != 0:  # llvm-mc crashes on a few odd encodings: bisect the batch
        if len(probes) == 1:
            return [None]
        half = len(probes) // 2
        return mc(cpu, probes[:half]) + mc(cpu, probes[half:])
    out = proc.stdout
    groups: list[list[tuple[str, bytes]]] = [[]]
    for line in out.splitlines():
        if ";" not in line:
            continue
        text, _, enc = line.rpartition("; encoding: ")
        try:
            raw = bytes(int(x, 16) for x in enc.strip().strip("[]").split(",") if x)
        except ValueError:
            continue
        text = text.strip()
        if raw in markers:
            groups.append([])
        elif raw == SENTINEL:
            continue
        else:
            groups[-1].append((text, raw))
    res: list = []
    for p, g in zip(probes, groups, strict=False):
        ok = g and g[0][1][:4] == p[:4] and len(g[0][1]) <= len(p) and "/*" not in g[0][0]
        res.append(g[0] if ok else None)
    return res + [None] * (len(probes) - len(res))


def rsrc(r: random.Random) -> int:
    c = r.random()
    if c < 0.45:
        return 256 + r.randrange(0, 256, 2)
    if c < 0.7:
        return r.randrange(0, 102, 2)
    if c < 0.85:
        return r.choice(list(range(128, 209)) + list(range(240, 249)))
    if c < 0.93:
        return 255
    return r.choice([106, 126, 124, 102, 104, 108, 235, 236, 237, 238, 253])


def lit(r: random.Random) -> int:
    return r.choice([r.getrandbits(32), r.randrange(0, 100), 0xFFFFFFFF, 0x3F800000, r.getrandbits(16)])


def vreg(r: random.Random, width: int) -> int:
    return r.randrange(0, 256 - width, 2 if width > 1 else 1)


def tsrc(r: random.Random, width: int, kind: str) -> int:
    """A source value fitting a template slot (kind 's': scalar-only field)."""
    c = r.random()
    if kind != "s" and c < 0.5:
        return 256 + vreg(r, width)
    if c < 0.75:
        return r.randrange(0, 100 - width, 2 if width > 1 else 1) if width <= 2 else r.randrange(0, 96, 4)
    if c < 0.93:
        return r.choice(list(range(128, 209)) + list(range(240, 249)))
    return r.choice([106, 126, 124]) if width <= 2 else 128


def gen_word(enc: str, op: int, r: random.Random, entry=None) -> bytes:
    L = lit(r)
    if entry is not None and enc in ("VOP3", "VOP3P", "SOP1", "DS", "FLAT", "SCRATCH", "GLOBAL"):
        f = {slot[0]: slot for slot in entry.tmpl}
        if enc in ("VOP3", "VOP3P"):
            w0 = (0xD3800000 if enc == "VOP3P" else 0xD0000000) | op << 16
            vd = f.get("vdst")
            if vd:
                w0 |= (r.randrange(0, 100, 2) if vd[2] == "s" else vreg(r, vd[1]))
            w1 = 0
            for i, nm in enumerate(("src0", "src1", "src2")):
                if nm in f:
                    w1 |= tsrc(r, f[nm][1], f[nm][2]) << (9 * i)
            if "sdst" in f:
                w0 |= r.randrange(0, 100, 2) << 8
            if enc == "VOP3":
                if r.random() < 0.4 and "sdst" not in f:
                    w0 |= r.getrandbits(3) << 8 | r.getrandbits(1) << 15 | (r.getrandbits(4) << 11 if
                                                                            r.random() < 0.3 else 0)
                    w1 |= r.getrandbits(2) << 27 | r.getrandbits(3) << 29
            elif entry.mnemonic.startswith(("v_mfma", "v_smfmac")):
                w0 |= r.getrandbits(1) << 15 | (r.getrandbits(4) << 8 if r.random() < 0.3 else 0)
                w1 |= r.getrandbits(2) << 27 | (r.getrandbits(3) << 29 if r.random() < 0.3 else 0)
            else:
                nsrc = sum(1 for k in ("src0", "src1", "src2") if k in f)
                m = (1 << nsrc) - 1
                w0 |= (r.getrandbits(3) & m) << 11 | (r.getrandbits(3) & m) << 8 * (r.random() < 0.3) \
                    | (r.getrandbits(1) << 14 if nsrc == 3 else 0)
                w1 |= (r.getrandbits(2) & m) << 27 | ((r.getrandbits(3) & m) << 29 if r.random() < 0.3 else 0)
            return struct.pack("<II", w0, w1)
        if enc == "SOP1":
            w0 = 0xBE800000 | op << 8
            if "sdst" in f:
                w0 |= tsrc(r, f["sdst"][1], "s") % 128 << 16
            if "src0" in f:
                w0 |= (tsrc(r, f["src0"][1], "s") if r.random() < 0.9 else 255)
            return struct.pack("<II", w0, L)
        if enc == "DS":
            w0 = 0xD8000000 | op << 17 | r.getrandbits(16) | (r.getrandbits(1) << 25)
            w1 = 0
            for nm, sh in (("addr", 0), ("data0", 8), ("data1", 16), ("vdst", 24)):
                if nm in f:
                    w1 |= vreg(r, f[nm][1]) << sh
            return struct.pack("<II", w0, w1)
        seg = {"FLAT": 0, "SCRATCH": 1, "GLOBAL": 2}[enc]
        saddr = r.choice([0x7F, r.randrange(0, 100, 2)]) if enc != "FLAT" else 0
        w0 = 0xDC000000 | op << 18 | seg << 14 | r.getrandbits(13) | r.getrandbits(2) << 16 | (
            r.getrandbits(1) << 25 if r.random() < 0.2 else 0) | (r.getrandbits(1) << 13 if r.random() < 0.2 else 0)
        w1 = vreg(r, 2) | saddr << 16 | r.getrandbits(1) << 23
        if "data" in f:
            w1 |= vreg(r, f["data"][1]) << 8
        if "vdst" in f or "atomic" in entry.mnemonic:
            w1 |= vreg(r, 4) << 24
        return struct.pack("<II", w0, w1)
    if enc == "SOP2":
        return struct.pack("<II", 0x80000000 | op << 23 | r.randrange(0, 102) << 16 | rsrc(r) % 256 << 8
                           | rsrc(r) % 256, L)
    if enc == "SOP1":
        return struct.pack("<II", 0xBE800000 | r.randrange(0, 128) << 16 | op << 8 | rsrc(r) % 256, L)
    if enc == "SOPC":
        return struct.pack("<II", 0xBF000000 | op << 16 | rsrc(r) % 256 << 8 | rsrc(r) % 256, L)
    if enc == "SOPK":
        return struct.pack("<II", 0xB0000000 | op << 23 | r.randrange(0, 102) << 16 | r.getrandbits(16), L)
    if enc == "SOPP":
        return struct.pack("<I", 0xBF800000 | op << 16 | r.choice([r.getrandbits(16), r.randrange(0, 70)]))
    if enc == "SMEM":
        imm = r.getrandbits(1)
        return struct.pack("<II", 0xC0000000 | op << 18 | imm << 17 | r.getrandbits(1) << 16 | r.getrandbits(1) << 14
                           | r.randrange(0, 25, 4) << 6 | r.randrange(0, 25), r.getrandbits(21) if imm else
                           r.randrange(0, 102))
    if enc == "VOP2":
        return struct.pack("<II", op << 25 | r.getrandbits(8) << 17 | r.getrandbits(8) << 9 | rsrc(r), L)
    if enc == "VOP1":
        return struct.pack("<II", 0x7E000000 | r.getrandbits(8) << 17 | op << 9 | rsrc(r), L)
    if enc == "VOPC":
        return struct.pack("<II", 0x7C000000 | op << 17 | r.getrandbits(8) << 9 | rsrc(r), L)
    if enc in ("VOP2S", "VOP1S", "VOPCS", "VOP2D", "VOP1D"):
        base = {"VOP2": op << 25 | r.getrandbits(8) << 17 | r.getrandbits(8) << 9,
                "VOP1": 0x7E000000 | r.getrandbits(8) << 17 | op << 9,
                "VOPC": 0x7C000000 | op << 17 | r.getrandbits(8) << 9}[enc[:-1]]
        if enc.endswith("S"):
            w1 = r.getrandbits(8) | r.randrange(7) << 8 | r.randrange(3) << 11 | r.randrange(7) << 16 \
                | r.randrange(7) << 24 | (r.getrandbits(32) & 0xB8B8E000 if r.random() < 0.3 else 0)
            return struct.pack("<II", base | 0xF9, w1)
        ctrl = r.choice([r.getrandbits(8), 0x101 + r.randrange(15), 0x111 + r.randrange(15), 0x121 + r.randrange(15),
                         0x130, 0x134, 0x138, 0x13C, 0x140, 0x141, 0x142, 0x143, 0x150 + r.randrange(16)])
        w1 = r.getrandbits(8) | ctrl << 8 | r.getrandbits(1) << 19 | (r.getrandbits(4) << 20 if r.random() < 0.3
                                                                     else 0) | r.getrandbits(8) << 24
        return struct.pack("<II", base | 0xFA, w1)
    if enc == "VOP3":
        w0 = 0xD0000000 | op << 16 | r.getrandbits(8)
        if r.random() < 0.3:
            w0 |= r.getrandbits(3) << 8 | r.getrandbits(1) << 15
        w1 = rsrc(r) % 255 | (rsrc(r) % 255) << 9 | (rsrc(r) % 255) << 18
        if r.random() < 0.3:
            w1 |= r.getrandbits(2) << 27 | r.getrandbits(3) << 29
        return struct.pack("<II", w0, w1)
    if enc == "VOP3P":
        w0 = 0xD3800000 | op << 16 | r.getrandbits(8) | r.getrandbits(1) << 14
        if r.random() < 0.5:
            w0 |= r.getrandbits(3) << 8 | r.getrandbits(3) << 11 | r.getrandbits(1) << 15
        w1 = rsrc(r) % 255 | (rsrc(r) % 255) << 9 | (rsrc(r) % 255) << 18 | r.getrandbits(2) << 27
        if r.random() < 0.4:
            w1 |= r.getrandbits(3) << 29
        return struct.pack("<II", w0, w1)
    if enc == "DS":
        return struct.pack("<II", 0xD8000000 | op << 17 | r.getrandbits(16) | (r.getrandbits(1) << 25),
                           r.getrandbits(32))
    if enc in ("FLAT", "SCRATCH", "GLOBAL"):
        seg = {"FLAT": 0, "SCRATCH": 1, "GLOBAL": 2}[enc]
        saddr = r.choice([0x7F, r.randrange(0, 100, 2), 0])
        return struct.pack("<II", 0xDC000000 | op << 18 | seg << 14 | r.getrandbits(13) | r.getrandbits(2) << 16
                           | (r.getrandbits(1) << 25 if r.random() < 0.2 else 0),
                           r.getrandbits(16) | saddr << 16 | r.getrandbits(1) << 23 | r.getrandbits(8) << 24)
    if enc == "MUBUF":
        return struct.pack("<II", 0xE0000000 | op << 18 | r.getrandbits(16) | r.getrandbits(1) << 17,
                           r.getrandbits(16) | r.randrange(0, 25) << 16 | r.getrandbits(1) << 23
                           | r.choice([r.randrange(0, 102), 128, 129, 124]) << 24)
    if enc == "MTBUF":
        return struct.pack("<II", 0xE8000000 | op << 15 | r.getrandbits(15) | r.getrandbits(7) << 19,
                           r.getrandbits(16) | r.randrange(0, 25) << 16 | r.getrandbits(1) << 23
                           | r.choice([r.randrange(0, 102), 128]) << 24)
    if enc == "MIMG":
        return struct.pack("<II", 0xF0000000 | op << 18 | r.getrandbits(4) << 8 | r.getrandbits(6) << 12
                           | r.getrandbits(1) << 25, r.randrange(0, 250) | r.randrange(0, 250) << 8
                           | r.randrange(0, 24, 2) << 16 | r.randrange(0, 24) << 21 | r.getrandbits(1) << 31)
    raise ValueError(enc)


ENCS = ["SOP2", "SOP1", "SOPC", "SOPK", "SOPP", "SMEM", "VOP2", "VOP1", "VOPC", "VOP2S", "VOP1S", "VOPCS",
        "VOP2D", "VOP1D", "VOP3", "VOP3P", "DS", "FLAT", "SCRATCH", "GLOBAL", "MUBUF", "MTBUF", "MIMG"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cpu", action="append")
    ap.add_argument("--enc", action="append")
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", type=int, default=4)
    args = ap.parse_args()
    r = random.Random(args.seed)
    grand = [0, 0]
    for cpu in args.cpu or list(CPUS):
        t = load_tables(CPUS[cpu])
        dec = Decoder(cpu)
        for enc in args.enc or ENCS:
            if enc not in t and enc[-1] not in "SD":
                continue
            ops = list(t[enc.rstrip("SD") if enc[-1] in "SD" and enc[:-1] in ("VOP2", "VOP1", "VOPC") else enc])
            if not ops:
                continue
            tab = t[enc.rstrip("SD") if enc[-1] in "SD" and enc[:-1] in ("VOP2", "VOP1", "VOPC") else enc]
            probes = []
            for _ in range(args.n):
                op = r.choice(ops)
                probes.append(gen_word(enc, op, r, tab[op]))
            ref = mc(cpu, probes)
            good = n = 0
            diffs: collections.Counter = collections.Counter()
            for p, got in zip(probes, ref, strict=True):
                if got is None:
                    continue
                txt, raw = got
                n += 1
                # LLVM decoded `p`; its echoed encoding is re-encoded (ignored fields zeroed), so use `p`
                ours = dec.decode(p[: len(raw)], 0, 0).text
                if re.sub(r"\s+", " ", ours) == re.sub(r"\s+", " ", txt):
                    good += 1
                else:
                    diffs[(txt.split(" ")[0], txt, ours)] += 1
            grand[0] += good
            grand[1] += n
            print(f"{cpu:7s} {enc:8s} {good:5d}/{n:<5d}")
            seen = set()
            for (m, txt, ours), _c in diffs.most_common():
                if m in seen or len(seen) >= args.show:
                    continue
                seen.add(m)
                print(f"    llvm: {txt}\n    ours: {ours}")
    print(f"TOTAL {grand[0]}/{grand[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
