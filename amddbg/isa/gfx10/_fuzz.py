"""Development tool: differential test of the decoder against llvm-objdump on random encodings.

    python -m amddbg.isa.gfx10._fuzz gfx11 [count-per-encoding] [seed]

For each encoding, opcodes known to the tables get random (plausibly biased) field values; LLVM's
answer for the encodings it accepts is compared with ours.  Prints the agreement rate and the most
frequent mismatch kinds.  Needs llvm-mc-22 / llvm-objdump-22; not used at run time.
"""

from __future__ import annotations

import random
import sys
from collections import Counter

from amddbg.isa.gfx10._gen import encode
from amddbg.isa.gfx10._probe import probe
from amddbg.isa.gfx10.decoder import Decoder, load_tables
from amddbg.isa.gfx10.encodings import FIELDS, PROBE_CPU


def _src(rnd: random.Random, bits: int) -> int:
    r = rnd.random()
    if bits == 9:
        if r < 0.45:
            return 256 + rnd.randrange(0, 250)
        if r < 0.65:
            return rnd.randrange(0, 100)
        if r < 0.75:
            return rnd.choice([106, 124, 125, 126])
        if r < 0.88:
            return rnd.randrange(128, 209)
        if r < 0.95:
            return rnd.randrange(240, 249)
        return 255
    if r < 0.6:
        return rnd.randrange(0, 100)
    if r < 0.7:
        return rnd.choice([106, 124, 125, 126])
    if r < 0.85:
        return rnd.randrange(128, 209)
    if r < 0.92:
        return rnd.randrange(240, 249)
    return 255


def gen_values(rnd: random.Random, gen: str, enc: str, op: int, seg: int | None = None) -> dict[str, int]:
    vals: dict[str, int] = {}
    for name, (_d, _lo, w) in FIELDS[gen][enc].items():
        if name in ("src0", "src1", "src2", "srcx0", "srcy0"):
            vals[name] = _src(rnd, 9)
        elif name in ("ssrc0", "ssrc1"):
            vals[name] = _src(rnd, 8)
        elif name in ("clamp", "omod", "neg", "abs", "opsel", "neg_hi", "glc", "slc", "dlc", "th", "scope",
                      "gds", "tfe", "lds", "opsel_hi", "opsel_hi2"):
            vals[name] = rnd.randrange(1 << w) if rnd.random() < 0.25 else 0
            if name in ("opsel_hi", "opsel_hi2") and rnd.random() < 0.7:
                vals[name] = (1 << w) - 1
        elif name in ("sdst", "sdata", "sbase", "srsrc", "soffset", "saddr"):
            vals[name] = rnd.randrange(0, 50) if rnd.random() < 0.8 else rnd.randrange(1 << w)
        elif name in ("offset", "offset0", "offset1", "simm16"):
            vals[name] = rnd.randrange(1 << w) if rnd.random() < 0.5 else rnd.randrange(0, 64)
        else:
            vals[name] = rnd.randrange(1 << w)
    vals["op" if "op" in FIELDS[gen][enc] else "opx"] = op
    if seg is not None:
        vals["seg"] = seg
    return vals


def main(argv: list[str]) -> int:
    gen = argv[0] if argv else "gfx11"
    n = int(argv[1]) if len(argv) > 1 else 300
    rnd = random.Random(int(argv[2]) if len(argv) > 2 else 1)
    t = load_tables(gen)
    dec = Decoder(PROBE_CPU[gen])
    probes: list[tuple[str, bytes]] = []
    for enc in ("SOP1", "SOP2", "SOPC", "SOPK", "SOPP", "VOP1", "VOP2", "VOPC", "VOP3", "VOP3P", "DS", "SMEM",
                "FLAT", "MUBUF", "MTBUF", "VOPD"):
        if enc not in t:
            continue
        size = {"FLAT": 12, "MUBUF": 12}.get(enc, 8) if gen in ("gfx12", "gfx1250") else 8
        if enc.startswith("SOP") or enc in ("VOP1", "VOP2", "VOPC"):
            size = 4
        for _ in range(n):
            if enc == "FLAT":
                seg = rnd.choice([0, 1, 2])
                ops = list(t["FLAT"][str(seg)])
                if not ops:
                    continue
                vals = gen_values(rnd, gen, enc, int(rnd.choice(ops)), seg)
            elif enc == "VOPD":
                vals = gen_values(rnd, gen, enc, int(rnd.choice(list(t["VOPD"]["X"]))))
                vals["opy"] = int(rnd.choice(list(t["VOPD"]["Y"])))
            else:
                vals = gen_values(rnd, gen, enc, int(rnd.choice(list(t[enc]))))
            raw = bytearray(encode(gen, enc, vals, size))
            raw[size:] = rnd.randbytes(len(raw) - size)
            probes.append((enc, bytes(raw)))
    res = probe(PROBE_CPU[gen], [p for _e, p in probes])
    total = ok = 0
    bad: Counter = Counter()
    ex: dict[str, tuple] = {}
    for (enc, raw), (want, size) in zip(probes, res, strict=True):
        if want is None or "/*" in want:  # LLVM's "invalid operand" annotations: not real code
            continue
        total += 1
        ins = dec.decode(raw, 0, 0)
        got = " ".join(ins.text.split())
        if got == want and ins.size == size:
            ok += 1
            continue
        key = f"{enc}:{want.split(' ')[0]}"
        bad[key] += 1
        ex.setdefault(key, (raw[:size].hex(), want, got, size, ins.size))
    print(f"{gen}: {ok}/{total} = {100.0 * ok / max(total, 1):.2f}% of LLVM-accepted random encodings agree")
    for k, c in bad.most_common(int(argv[3]) if len(argv) > 3 else 40):
        print(f"{c:5d} {k:40s} {ex[k]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
