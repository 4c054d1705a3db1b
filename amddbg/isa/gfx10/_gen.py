"""Development tool: build the opcode tables (`tables/<generation>.json`) by probing LLVM.

For every encoding and opcode value we place an instruction whose register fields hold distinct
marker values, ask `llvm-objdump` how it prints it, and record the mnemonic plus an operand template:
each printed operand is either a reference to the encoding field it came from (with the register
width LLVM printed) or fixed text (`vcc_lo`, `off`, ...).  Source operands that accept constants are
probed again with an inline float and with literals, which tells the operand's constant type.
The run-time decoder (`decoder.py`) only reads the JSON; LLVM is needed only to regenerate it:

    python -m amddbg.isa.gfx10._gen [generation ...]
    python -m amddbg.isa.gfx10._gen --wave64 [generation ...]   # tables/<generation>.w64.json

The wave64 overlay: the same probes printed by `llvm-objdump --mattr=+wavefrontsize64`; every template item
that prints differently (lane masks: `vcc` for `vcc_lo`, SGPR pairs for the VOPC/VOP3b destinations and the
carry/select sources; WMMA's halved accumulator) is stored as a patch `[index, item]` per encoding and opcode.
VOPD (wave32 only) is left out.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

from amddbg.isa.gfx10._probe import probe
from amddbg.isa.gfx10.encodings import FIELDS, PROBE_CPU, pre12

OUT = Path(os.environ.get("AMDDBG_GEN_OUT") or Path(__file__).with_name("tables"))
LIT = 0x12345678
NULL = {"gfx10": 125, "gfx11": 124, "gfx115": 124, "gfx12": 124, "gfx1250": 124}
PREFIX = {
    "SOP1": 0xBE800000, "SOPC": 0xBF000000, "SOPP": 0xBF800000, "SOPK": 0xB0000000, "SOP2": 0x80000000,
    "VOP1": 0x7E000000, "VOPC": 0x7C000000, "VOP2": 0x00000000, "VOP3": 0xD4000000, "VOP3P": 0xCC000000,
    "DS": 0xD8000000, "SMEM": 0xF4000000, "VOPD": 0xC8000000, "VOPD3": 0xCF000000,
}
# Constant-type probes: (field value, literal) pairs.
TYPE_PROBES = [(242, None), (248, None), (255, 0x3FF00000), (255, 0x40), (255, 0x3F800000), (255, 0x3C00),
               (255, 0xFFFF0000)]


def split_top(s: str, sep: str) -> list[str]:
    out, depth, cur, i = [], 0, "", 0
    while i < len(s):
        c = s[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if depth == 0 and s.startswith(sep, i):
            out.append(cur)
            cur = ""
            i += len(sep)
            continue
        cur += c
        i += 1
    out.append(cur)
    return out


def parse(text: str) -> tuple[str, list[str], list[str]]:
    """mnemonic, operands, trailing modifiers."""
    mn, _, rest = text.partition(" ")
    if not rest:
        return mn, [], []
    ops = [o.strip() for o in split_top(rest, ", ")]
    last = split_top(ops[-1], " ")
    ops[-1] = last[0]
    return mn, ops, [m for m in last[1:] if m]


_REG = re.compile(r"^(s|v|ttmp|a)(?:(\d+)|\[(\d+):(\d+)\])(\.[lh])?$")


def reg_of(tok: str) -> tuple[str, int, int] | None:
    m = _REG.match(tok)
    if not m:
        return None
    if m.group(2) is not None:
        return m.group(1) + (m.group(5) or ""), int(m.group(2)), 1
    lo, hi = int(m.group(3)), int(m.group(4))
    return m.group(1), lo, hi - lo + 1


def encode(gen: str, enc: str, values: dict[str, int], size: int) -> bytes:
    fields = FIELDS[gen][enc]
    words = [0] * (size // 4)
    words[0] = PREFIX.get(enc, 0)
    if enc == "FLAT":
        words[0] |= 0xDC000000 if pre12(gen) else 0xEC000000
    if enc == "MUBUF":
        words[0] |= 0xE0000000 if pre12(gen) else 0xC4000000
    if enc == "MTBUF":
        words[0] |= 0xE8000000
        if "op3" in fields and "op" in values:
            values = {**values, "op3": values["op"] >> 3}
    for name, v in values.items():
        if name not in fields:
            continue
        d, lo, w = fields[name]
        words[d] |= (v & ((1 << w) - 1)) << lo
    return b"".join(x.to_bytes(4, "little") for x in words) + LIT.to_bytes(4, "little") * 2


def template(gen: str, enc: str, text: str, markers: dict[str, int]) -> list | None:
    """Operand template of `text`, or None if an operand cannot be attributed."""
    mn, ops, _mods = parse(text)
    by_reg: dict[int, str] = {}
    for f, v in markers.items():
        if f not in FIELDS[gen][enc] or v == 0:
            continue
        if f in ("src0", "src1", "src2", "srcx0", "srcy0"):
            by_reg[v & 0xFF] = f
        elif f in ("sbase",):
            by_reg[v * 2] = f
        elif f == "srsrc" and pre12(gen):
            by_reg[v * 4] = f
        elif f == "vdsty" and enc == "VOPD":
            by_reg[(v << 1) | 1] = f
        else:
            by_reg[v] = f
    out: list = []
    for tok in ops:
        if "|" in tok or tok.startswith("-") and not tok[1:].isdigit() or "(" in tok and tok[:3] in ("s[", "v["):
            return None  # a modifier crept in from a marker value: use another base
        r = reg_of(tok)
        if r and r[1] == 0 and any(v == 0 for v in markers.values()):
            return None
        if r and r[1] in by_reg:
            out.append(["F", by_reg[r[1]], r[2], r[0]])
        elif tok == hex(LIT):
            out.append(["K"])
        elif tok == str(0x1234) or tok == "0x1234":
            out.append(["I", tok.startswith("0x")])
        else:
            out.append(["T", tok])
    return [mn, out]


def valid(t: str | None) -> bool:
    return t is not None and "/*" not in t


def learn(gen: str, enc: str, ops: list[int], bases: list[dict[str, int]], size: int,
          extra: dict[str, int] | None = None, opfield: str = "op") -> dict[int, tuple[str, list, dict]]:
    """For each opcode, the first base that decodes validly: (mnemonic, template, base values)."""
    out = _learn(gen, enc, ops, bases, size, extra, opfield)
    missing = [op for op in ops if op not in out]
    if missing:
        # LLVM rejects encodings whose unused operand fields are not zero: retry with subsets of the
        # register fields cleared (a cleared field that is still printed makes the template fail).
        regs = [k for k in bases[0] if k in ZEROABLE]
        alt = []
        for mask in range(1, 1 << len(regs)):
            b = dict(bases[0])
            for j, k in enumerate(regs):
                if mask >> j & 1:
                    b[k] = 0
            alt.append(b)
            if len(bases) > 1 and enc not in ("VOP3",):
                b2 = dict(bases[1])
                for j, k in enumerate(regs):
                    if mask >> j & 1:
                        b2[k] = 0
                alt.append(b2)
        out.update(_learn(gen, enc, missing, alt, size, extra, opfield))
    return out


ZEROABLE = {"vdst", "sdst", "src0", "src1", "src2", "vsrc1", "ssrc0", "ssrc1", "data", "data0", "data1", "addr",
            "vaddr", "vdata", "sdata", "sbase", "soffset", "srsrc", "simm16", "vsrcx1", "vsrcy1", "srcx0", "srcy0",
            "srcx2", "srcy2"}


def _learn(gen: str, enc: str, ops: list[int], bases: list[dict[str, int]], size: int,
           extra: dict[str, int] | None = None, opfield: str = "op") -> dict[int, tuple[str, list, dict]]:
    cpu = PROBE_CPU[gen]
    probes, keys = [], []
    for op in ops:
        for bi, b in enumerate(bases):
            vals = {**(extra or {}), **b, opfield: op}
            probes.append(encode(gen, enc, vals, size))
            keys.append((op, bi))
    res = probe(cpu, probes)
    out: dict[int, tuple[str, list, dict]] = {}
    for (op, bi), (t, _sz) in zip(keys, res, strict=True):
        if op in out or not valid(t):
            continue
        if enc in ("VOPD", "VOPD3"):
            t = t.split(" :: ")[0 if opfield == "opx" else 1]
        b = bases[bi]
        tm = template(gen, enc, t, b)
        if tm is None:
            continue
        out[op] = (tm[0], tm[1], {**(extra or {}), **b})
    return out


def type_tags(gen: str, enc: str, table: dict[int, tuple[str, list, dict]], size: int,
              opfield: str = "op") -> dict[tuple[int, str], list]:
    """Probe each constant-capable source field with TYPE_PROBES; record the printed token."""
    cpu = PROBE_CPU[gen]
    probes, keys = [], []
    for op, (_mn, tm, base) in table.items():
        for i, tok in enumerate(tm):
            if tok[0] != "F" or tok[1] not in ("src0", "src1", "src2", "ssrc0", "ssrc1", "srcx0", "srcy0"):
                continue
            for v, lit in TYPE_PROBES:
                vals = {**base, opfield: op, tok[1]: v}
                p = bytearray(encode(gen, enc, vals, size))
                if lit is not None:
                    p[size : size + 4] = lit.to_bytes(4, "little")
                probes.append(bytes(p))
                keys.append((op, tok[1], i))
    res = probe(cpu, probes)
    tags: dict[tuple[int, str], list] = {}
    for (op, f, i), (t, _sz) in zip(keys, res, strict=True):
        lst = tags.setdefault((op, f), [])
        if valid(t) and enc in ("VOPD", "VOPD3"):
            t = t.split(" :: ")[0 if opfield == "opx" else 1]
        if not valid(t):
            lst.append(None)
            continue
        _mn, ops, _m = parse(t)
        lst.append(ops[i] if i < len(ops) else None)
    return tags


def build(gen: str) -> dict:
    null = NULL[gen]
    tables: dict[str, dict] = {}
    sigs: dict[str, int] = {}

    def finish(enc: str, table: dict, size: int, opfield: str = "op", with_types: bool = True) -> dict:
        tags = type_tags(gen, enc, table, size, opfield) if with_types else {}
        out = {}
        for op, (mn, tm, _base) in sorted(table.items()):
            entry = {"m": mn, "t": tm}
            ty = {}
            for (o, f), lst in tags.items():
                if o == op:
                    sig = "|".join(x if x is not None else "-" for x in lst)
                    ty[f] = sig
                    sigs[sig] = sigs.get(sig, 0) + 1
            if ty:
                entry["ty"] = ty
            if enc == "VOP3" and any(t[0] == "F" and t[1] == "sdst" for t in tm):
                entry["sd"] = 1
            out[str(op)] = entry
        return out

    sop = {
        "SOP1": ([{"sdst": 20, "ssrc0": 40}], 256),
        "SOP2": ([{"sdst": 20, "ssrc0": 40, "ssrc1": 60}], 128),
        "SOPC": ([{"ssrc0": 40, "ssrc1": 60}], 128),
        "SOPK": ([{"sdst": 20, "simm16": 0x1234}], 29),
        "SOPP": ([{"simm16": 0x1234}], 128),
    }
    for enc, (bases, n) in sop.items():
        t = learn(gen, enc, list(range(n)), bases, 4)
        tables[enc] = finish(enc, t, 4, with_types=enc in ("SOP1", "SOP2", "SOPC"))
    vbases = [{"vdst": 40, "src0": 256 + 60, "vsrc1": 80}, {"vdst": 40, "src0": 60, "vsrc1": 80}]
    for enc, n in (("VOP1", 256), ("VOP2", 64), ("VOPC", 256)):
        t = learn(gen, enc, list(range(n)), vbases, 4)
        tables[enc] = finish(enc, t, 4)
    v3 = []
    for s0, s1, s2 in ((256, 256, 256), (256, 0, 0), (0, 256, 256), (0, 0, 0), (256, 256, 0), (256, 0, 256),
                       (0, 0, 256), (0, 256, 0)):
        v3.append({"vdst": 40, "src0": s0 + 60, "src1": s1 + 80, "src2": s2 + 100, "sdst": 20})
        v3.append({"vdst": 40, "src0": s0 + 60, "src1": s1 + 80, "src2": s2 + 100})
    t = learn(gen, "VOP3", list(range(1024)), v3, 8)
    tables["VOP3"] = finish("VOP3", t, 8)
    p3 = [{"vdst": 40, "src0": 256 + 60, "src1": 256 + 80, "src2": 256 + 100, "opsel_hi": 3, "opsel_hi2": 1},
          {"vdst": 40, "src0": 256 + 60, "src1": 256 + 80, "src2": 256 + 100}]
    t = learn(gen, "VOP3P", list(range(128)), p3, 8)
    tables["VOP3P"] = finish("VOP3P", t, 8)
    t = learn(gen, "DS", list(range(256)), [{"vdst": 40, "addr": 100, "data0": 60, "data1": 80}], 8)
    tables["DS"] = finish("DS", t, 8, with_types=False)
    smem_off = {"offset": 0x10}
    t = learn(gen, "SMEM", list(range(256)), [{"sdata": 20, "sbase": 20, "soffset": null}], 8, smem_off)
    tables["SMEM"] = finish("SMEM", t, 8, with_types=False)
    fsize = 8 if pre12(gen) else 12
    flat: dict[str, dict] = {}
    for seg in (0, 1, 2):
        variants = {"n": {"saddr": null}, "s": {"saddr": 20}}
        if seg == 1 and gen != "gfx10":  # GFX11+ scratch has the SVE bit
            variants = {"n": {"saddr": null, "sve": 1}, "s": {"saddr": 20, "sve": 0}, "sv": {"saddr": 20, "sve": 1},
                        "nn": {"saddr": null, "sve": 0}}
        if seg == 0:
            variants = {"n": {"saddr": null}}
        ret = {"glc": 1} if pre12(gen) else {"th": 1}
        variants.update({"g" + k: {**v, **ret} for k, v in variants.items()})
        per: dict[str, dict] = {}
        for vk, vv in variants.items():
            base = {"vdst": 40, "data": 60, "addr": 100, "seg": seg, **vv}
            t = learn(gen, "FLAT", list(range(256 if fsize == 12 else 128)), [base], fsize)
            for op, e in finish("FLAT", t, fsize, with_types=False).items():
                if vk.startswith("g") and "atomic" not in e["m"]:
                    continue
                per.setdefault(op, {"m": e["m"], "v": {}})["v"][vk] = e["t"]
        flat[str(seg)] = per
    tables["FLAT"] = flat
    mub: dict[str, dict] = {}
    for vk, (offen, idxen) in {"00": (0, 0), "10": (1, 0), "01": (0, 1), "11": (1, 1)}.items():
        rs = 5 if pre12(gen) else 20
        base = {"vdata": 40, "vaddr": 100, "srsrc": rs, "soffset": 60, "offen": offen, "idxen": idxen}
        if fsize == 12:
            base["format"] = 1
        t = learn(gen, "MUBUF", list(range(256)), [base], fsize)
        for op, e in finish("MUBUF", t, fsize, with_types=False).items():
            mub.setdefault(op, {"m": e["m"], "v": {}})["v"][vk] = e["t"]
    tables["MUBUF"] = mub
    if gen != "gfx10":
        vd = {"vdstx": 40, "srcx0": 256 + 60, "vsrcx1": 82, "vdsty": 21, "srcy0": 256 + 101, "vsrcy1": 123}
        vd2 = {**vd, "srcx0": 60, "srcy0": 101}
        tx = learn(gen, "VOPD", list(range(16)), [vd, vd2], 8, {"opy": 8}, opfield="opx")
        ty = learn(gen, "VOPD", list(range(32)), [vd, vd2], 8, {"opx": 8}, opfield="opy")
        tables["VOPD"] = {"X": finish("VOPD", tx, 8, "opx"), "Y": finish("VOPD", ty, 8, "opy")}
    tables["_sigs"] = sigs
    tables["_names"] = names(gen, tables["SOP1"])
    tables["_sopimm"] = sop_imm(gen, tables)
    return tables


def names(gen: str, sop1: dict) -> dict[str, list]:
    """How LLVM names each 8-bit scalar operand code as a 32-bit and a 64-bit source/destination."""
    cpu = PROBE_CPU[gen]
    out: dict[str, list] = {}
    ops = {v["m"]: int(k) for k, v in sop1.items()}
    m32, m64 = ops["s_mov_b32"], ops["s_mov_b64"]
    for key, op, idx, field in (("s32", m32, 1, "ssrc0"), ("s64", m64, 1, "ssrc0"), ("d32", m32, 0, "sdst"),
                                ("d64", m64, 0, "sdst")):
        other = "sdst" if field == "ssrc0" else "ssrc0"
        ps = [encode(gen, "SOP1", {"op": op, field: v, other: 20}, 4) for v in range(256 if idx else 128)]
        row = []
        for t, _sz in probe(cpu, ps):
            if not valid(t):
                row.append(None)
                continue
            _mn, ops, _m = parse(t)
            row.append(ops[idx])
        out[key] = row
    return out


SIMM_PROBES = [0, 1, 0x40, 0x41, 0x1234, 0xFFFE, 0xFFFF]


def sop_imm(gen: str, tables: dict) -> dict[str, dict[str, str]]:
    """Classify how SOPP/SOPK print simm16: dec, hex, small (dec up to 64), opt, or special."""
    cpu = PROBE_CPU[gen]
    res: dict[str, dict[str, str]] = {}
    for enc in ("SOPP", "SOPK"):
        ops = sorted(int(k) for k in tables[enc])
        ps = [encode(gen, enc, {"op": o, "simm16": v, "sdst": 20}, 4) for o in ops for v in SIMM_PROBES]
        r = probe(cpu, ps)
        cls: dict[str, str] = {}
        for i, o in enumerate(ops):
            outs = [r[i * len(SIMM_PROBES) + j][0] or "" for j in range(len(SIMM_PROBES))]
            last = [o_.rsplit(" ", 1)[-1] if " " in o_ else "" for o_ in outs]
            if last == [str(v) for v in SIMM_PROBES]:
                c = "dec"
            elif last == [hex(v) for v in SIMM_PROBES]:
                c = "hex"
            elif last == [str(v) if v <= 64 else hex(v) for v in SIMM_PROBES]:
                c = "small"
            elif outs[0].count(" ") == 0 and last[1:] == [str(v) for v in SIMM_PROBES[1:]]:
                c = "opt"
            elif all(" " not in o_ for o_ in outs):
                c = "none"
            else:
                c = "special"
            cls[str(o)] = c
        res[enc] = cls
    return res


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--all":
        for g in argv[1:] or ["gfx10", "gfx11", "gfx115", "gfx12", "gfx1250"]:
            t = build(g)
            OUT.mkdir(exist_ok=True)
            (OUT / f"{g}.json").write_text(json.dumps(t, separators=(",", ":"), sort_keys=True))
            print(g, extras(g))
        return 0
    if argv and argv[0] == "--wave64":
        OUT.mkdir(exist_ok=True)
        for g in argv[1:] or ["gfx10", "gfx11", "gfx115", "gfx12"]:
            patches = wave64_overlay(g)
            (OUT / f"{g}.w64.json").write_text(json.dumps(patches, separators=(",", ":"), sort_keys=True))
            print(g, {k: len(v) for k, v in patches.items()})
        return 0
    if argv and argv[0] == "--extras":
        for g in argv[1:] or ["gfx10", "gfx11", "gfx115", "gfx12", "gfx1250"]:
            print(g, extras(g))
        return 0
    gens = argv or ["gfx10", "gfx11", "gfx115", "gfx12", "gfx1250"]
    OUT.mkdir(exist_ok=True)
    for g in gens:
        t = build(g)
        (OUT / f"{g}.json").write_text(json.dumps(t, separators=(",", ":"), sort_keys=True))
        print(g, {k: len(v) for k, v in t.items()})
    return 0


def wave64_overlay(gen: str) -> dict:
    """{encoding: {opcode: [[template index, wave64 item], ...]}}: where wave64 code prints differently."""
    from amddbg.isa.gfx10 import _probe

    w32 = build(gen)
    _probe.MATTR[:] = ["--mattr=+wavefrontsize64"]
    try:
        w64 = build(gen)
    finally:
        _probe.MATTR[:] = []
    return overlay_of(w32, w64)


def overlay_of(w32: dict, w64: dict) -> dict:
    out: dict[str, dict] = {}
    for enc, table in w32.items():
        if enc.startswith("_") or enc == "VOPD" or not isinstance(table, dict):
            continue
        for op, e32 in table.items():
            e64 = w64.get(enc, {}).get(op)
            if not isinstance(e32, dict) or "t" not in e32 or e64 is None or e64.get("t") == e32["t"]:
                continue
            if e64.get("m") != e32.get("m") or len(e64["t"]) != len(e32["t"]):
                raise ValueError(f"{enc} {op}: wave64 prints another instruction: {e32} / {e64}")
            out.setdefault(enc, {})[op] = [[i, b] for i, (a, b) in enumerate(zip(e32["t"], e64["t"], strict=True))
                                           if a != b]
    return out


def depctr_rule(dep: dict[str, str]) -> dict:
    """Reduce the symbolic depctr prints to a rule: bits that must be zero, and (name, lo, width)
    of each field in print order (LLVM prints fields not at their maximum, or all when none is)."""
    if not dep:
        return {}
    ks = [int(k) for k in dep]
    zero = 0
    for b in range(16):
        if all(not (k >> b) & 1 for k in ks):
            zero |= 1 << b
    full = 0xFFFF & ~zero
    order = [m.group(1) for m in re.finditer(r"depctr_(\w+)\(", dep["0"])]
    bits: dict[str, list[int]] = {}
    for b in range(16):
        if zero >> b & 1:
            continue
        t = dep[str(full & ~(1 << b))]
        names = re.findall(r"depctr_(\w+)\(", t)
        if len(names) == 1:
            bits.setdefault(names[0], []).append(b)
    fields = [[n, min(bits[n]), len(bits[n])] for n in order if n in bits]
    return {"zero": zero, "fields": fields}


def extras(gen: str) -> dict:
    """hwreg register names and the s_sendmsg / depctr texts LLVM prints, per generation."""
    cpu = PROBE_CPU[gen]
    path = OUT / f"{gen}.json"
    tables = json.loads(path.read_text())
    sopk = {v["m"]: int(k) for k, v in tables["SOPK"].items()}
    sopp = {v["m"]: int(k) for k, v in tables["SOPP"].items()}
    ps = [encode(gen, "SOPK", {"op": sopk["s_getreg_b32"], "sdst": 20, "simm16": v | (31 << 11)}, 4)
          for v in range(64)]
    hw = []
    for t, _sz in probe(cpu, ps):
        m = re.search(r"hwreg\((\w+)\)", t or "")
        hw.append(m.group(1) if m and not m.group(1).isdigit() else None)
    tables["_hwreg"] = hw
    ver: dict[str, str] = {}
    if "s_version" in sopk:
        ps = [encode(gen, "SOPK", {"op": sopk["s_version"], "simm16": v}, 4) for v in range(256)]
        for v, (t, _sz) in enumerate(probe(cpu, ps)):
            word = (t or "").split(" ", 1)[-1]
            if word.startswith("UC_VERSION_"):
                ver[str(v)] = word
    tables["_ver"] = ver
    if pre12(gen):
        # GFX10/11 MTBUF: opcode templates per addressing form (as MUBUF) and the format names
        mt: dict[str, dict] = {}
        for vk, (offen, idxen) in {"00": (0, 0), "10": (1, 0), "01": (0, 1), "11": (1, 1)}.items():
            base = {"vdata": 40, "vaddr": 100, "srsrc": 5, "soffset": 60, "offen": offen, "idxen": idxen, "format": 1}
            t = learn(gen, "MTBUF", list(range(16)), [base], 8)
            for op, (mn, tm, _b) in t.items():
                mt.setdefault(str(op), {"m": mn, "v": {}})["v"][vk] = tm
        tables["MTBUF"] = mt
        tops = [int(k) for k, v in mt.items() if v["m"] == "tbuffer_load_format_x"]
        fmt: list[str | None] = []
        if tops:
            ps = [encode(gen, "MTBUF", {"op": tops[0], "vdata": 40, "srsrc": 5, "soffset": 60, "format": v}, 8)
                  for v in range(128)]
            for t, _sz in probe(cpu, ps):
                m = re.search(r" (format:\S+)", t or "")
                fmt.append(m.group(1) if m else None)
        tables["_fmt"] = fmt
    if not pre12(gen):
        # GFX12 tbuffer: the unified format names (`format:[BUF_FMT_...]`) per 7-bit format value
        tops = [int(k) for k, v in tables["MUBUF"].items() if v["m"] == "tbuffer_load_format_x"]
        fmt: list[str | None] = []
        if tops:
            ps = [encode(gen, "MUBUF", {"op": tops[0], "vdata": 40, "srsrc": 20, "soffset": 60, "format": v}, 12)
                  for v in range(128)]
            for t, _sz in probe(cpu, ps):
                m = re.search(r" (format:\S+)", t or "")
                fmt.append(m.group(1) if m else None)
        tables["_fmt"] = fmt
    if gen == "gfx1250":
        # GFX12.5 FLAT (segment 0) also takes an SGPR base address like GLOBAL
        for vk, vv in {"s": {"saddr": 20}, "gs": {"saddr": 20, "th": 1}}.items():
            base = {"vdst": 40, "data": 60, "addr": 100, "seg": 0, **vv}
            t = learn(gen, "FLAT", list(range(256)), [base], 12)
            for op, (mn, tm, _b) in t.items():
                if vk.startswith("g") and "atomic" not in mn:
                    continue
                e = tables["FLAT"]["0"].setdefault(str(op), {"m": mn, "v": {}})
                e["v"][vk] = tm
        vd = {"vdstx": 40, "srcx0": 256 + 60, "vsrcx1": 82, "srcx2": 20, "vdsty": 43, "srcy0": 256 + 101,
              "vsrcy1": 123, "srcy2": 22}
        vd2 = {**vd, "srcx2": 84, "srcy2": 125}
        tx = learn(gen, "VOPD3", list(range(128)), [vd, vd2], 12, {"opy": 16}, opfield="opx")
        ty = learn(gen, "VOPD3", list(range(32)), [vd, vd2], 12, {"opx": 32}, opfield="opy")
        tables["VOPD3"] = {"X": {str(k): {"m": m, "t": t} for k, (m, t, _b) in tx.items()},
                           "Y": {str(k): {"m": m, "t": t} for k, (m, t, _b) in ty.items()}}
    tables["_names"] = names(gen, tables["SOP1"])
    modifier_flags(gen, tables)
    msgs: dict[str, str] = {}
    for name in ("s_sendmsg", "s_sendmsg_rtn_b32"):
        if name == "s_sendmsg":
            ps = [encode(gen, "SOPP", {"op": sopp[name], "simm16": v}, 4) for v in range(2048)]
        else:
            op = {v["m"]: int(k) for k, v in tables["SOP1"].items()}.get(name)
            if op is None:
                continue
            ps = [encode(gen, "SOP1", {"op": op, "sdst": 20, "ssrc0": v}, 4) for v in range(256)]
        for v, (t, _sz) in enumerate(probe(cpu, ps)):
            if t and "sendmsg(" in t:
                msgs[f"{name}:{v}"] = t[t.index("sendmsg(") :]
    tables["_sendmsg"] = msgs
    dep: dict[str, str] = {}
    for name in ("s_waitcnt_depctr", "s_wait_alu"):
        if name not in sopp:
            continue
        ps = [encode(gen, "SOPP", {"op": sopp[name], "simm16": v}, 4) for v in range(65536)]
        for v, (t, _sz) in enumerate(probe(cpu, ps)):
            if t and "depctr_" in t:
                dep[str(v)] = t.split(" ", 1)[1]
        break
    tables["_depctr"] = depctr_rule(dep)
    path.write_text(json.dumps(tables, separators=(",", ":"), sort_keys=True))
    return {"hwreg": sum(1 for x in hw if x), "sendmsg": len(msgs), "depctr": tables["_depctr"]}


def _base_from_template(tm: list) -> dict[str, int]:
    marks = {"vdst": 40, "sdst": 20, "src0": 60, "src1": 80, "src2": 100}
    vals: dict[str, int] = {}
    for tok in tm:
        if tok[0] == "F" and tok[1] in marks:
            v = marks[tok[1]]
            if tok[1].startswith("src") and tok[3].startswith("v"):
                v += 256
            vals[tok[1]] = v
    return vals


def modifier_flags(gen: str, tables: dict) -> None:
    """Which VOP3/VOP3P opcodes print op_sel / op_sel_hi / neg_lo / neg_hi / abs / neg (entry flags).

    Bits for sources an opcode does not have make LLVM reject the encoding, so each probe sets only
    the bits of the sources present in the template."""
    cpu = PROBE_CPU[gen]
    for enc in ("VOP3", "VOP3P"):
        keys, ps = [], []
        for op, e in tables[enc].items():
            for k in ("os", "osn", "osm", "osh", "nl", "nh", "ab", "ng"):
                e.pop(k, None)
            base = _base_from_template(e["t"])
            n = sum(1 for tok in e["t"] if tok[0] == "F" and tok[1].startswith("src"))
            m = (1 << n) - 1
            if enc == "VOP3P":
                base.update(opsel_hi=3, opsel_hi2=1)
                # (neg_lo also on A and B alone: the integer WMMA forms take it there only, as signedness, and
                # LLVM rejects the encoding with a bit for C)
                defs = (("os", {"opsel": m}, "op_sel:"), ("osh", {"opsel_hi": 0, "opsel_hi2": 0}, "op_sel_hi:"),
                        ("nl", {"neg": m}, "neg_lo:"), ("nl", {"neg": m & 3}, "neg_lo:"),
                        ("nh", {"neg_hi": m}, "neg_hi:"))
            else:
                defs = (("os", {"opsel": m | 8}, "op_sel:"), ("os", {"opsel": m}, "op_sel:"),
                        ("os", {"opsel": 1}, "op_sel:"),
                        *((f"om{i}", {"opsel": 1 << i}, "op_sel:") for i in range(4)),
                        *((f"ab{i}", {"abs": 1 << i}, "|") for i in range(n)),
                        *((f"ng{i}", {"neg": 1 << i}, "-") for i in range(n)))
            for flag, extra, needle in defs:
                ps.append(encode(gen, enc, {**base, **extra, "op": int(op)}, 8))
                keys.append((op, flag, needle))
        for (op, flag, needle), (t, _sz) in zip(keys, probe(cpu, ps), strict=True):
            if not t or "/*" in t:
                continue
            if needle == "-":
                hit = bool(re.search(r"[ ,]-[sv\[]", t))
            else:
                hit = needle in t
            if hit and flag[:2] == "om":
                # which op_sel bits LLVM shows at all (some opcodes ignore some of them)
                m = re.search(r"op_sel:\[([0-9,]*)\]", t)
                if m and "1" in m.group(1):
                    e = tables[enc][op]
                    e["osm"] = e.get("osm", 0) | 1 << int(flag[2])
            elif hit and flag[:2] in ("ab", "ng") and len(flag) == 3:
                e = tables[enc][op]
                e[flag[:2]] = e.get(flag[:2], 0) | 1 << int(flag[2])
            elif hit:
                tables[enc][op][flag] = 1
                if flag == "os":
                    m = re.search(r"op_sel:\[([0-9,]*)\]", t)
                    if m:
                        tables[enc][op]["osn"] = m.group(1).count(",") + 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
