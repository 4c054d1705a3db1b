"""Derive the GFX8/GFX9/CDNA opcode tables by probing LLVM's disassembler (development tool).

Not imported at run time. For every encoding and opcode number we build probe words with distinct,
recognisable field values (vdst=10, src0=20, src1=40, src2=60, ...), feed them to
`llvm-mc-22 --disassemble -show-encoding -mcpu=<cpu>`, and record from the printed text:
the mnemonic, which fields appear as operands and in which order, their register widths, and which
modifiers (neg/abs/clamp/omod/op_sel/...) the opcode accepts. These are facts about the ISA; the
decoder (`decoder.py`) reads the resulting JSON tables (`tables/<generation>.json`) and does its own
formatting. Run: `python -m amddbg.isa.gfx9._derive` (needs llvm-mc-22).

Table format (`tables/<gen>.json`): {encoding: {opcode: entry}} plus "HWREG" {id: name} and
"SENDMSG" {simm16 & 0x3ff: text}. An entry has
  m     mnemonic (VOP* with the _e32/_e64 suffix as printed),
  t     operand template: [field, width, kind, inline-style] per printed operand, in order; field is
        an encoding field name (vdst, src0, sdst, addr, data, vdata, srsrc, ...), "lit" for a
        literal operand, or "=text" for fixed text (vcc, off); kind is the register file seen
        (v/s/a); inline-style says how 1/(2*pi) etc. print (f32, f64, h16),
  mods  modifier tokens of the base probe (e.g. offset:16, offen),
  size  encoded size of the base probe,
and the text LLVM printed for variant probes (key = variant name, null = rejected encoding):
sdwa/dpp (form exists), sdwan/sdwas/dppm (source modifiers accepted), neg/abs/clamp/omod,
neg1/abs1/neg2/abs2 (per-source VOP3 modifiers), opsel, pg/ps/b15/sc1/glc (cache-policy words),
acc (AGPR bit), lit/inl (literal and inline-constant printing).
"""

from __future__ import annotations

import json
import re
import struct
import subprocess
from pathlib import Path

GENERATIONS = {
    "gfx8": "gfx803",
    "gfx9": "gfx906",
    "gfx908": "gfx908",
    "gfx90a": "gfx90a",
    "gfx940": "gfx942",
    "gfx950": "gfx950",
}
SENTINEL = b"\x00\x00\x80\xbf"  # s_nop 0
LIT = 0x87654321
TABLES = Path(__file__).with_name("tables")


def words(*ws: int) -> bytes:
    return struct.pack("<" + "I" * len(ws), *ws)


def run_mc(cpu: str, probes: list[bytes]) -> list[tuple[str, bytes] | None]:
    """Disassemble each probe; return (text, encoding bytes) of its first instruction or None."""
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
    proc = subprocess.run(
        ["llvm-mc-22", "--disassemble", "-show-encoding", "-triple=amdgcn-amd-amdhsa", f"-mcpu={cpu}"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:  # llvm-mc crashes on a few odd encodings: bisect the batch
        if len(probes) == 1:
            return [None]
        half = len(probes) // 2
        return run_mc(cpu, probes[:half]) + run_mc(cpu, probes[half:])
    out = proc.stdout
    groups: list[list[tuple[str, bytes]]] = [[]]
    for line in out.splitlines():
        if ";" not in line:
            continue
        text, _, enc = line.rpartition("; encoding: ")
        text = re.sub(r"/\*.*?\*/", "", text).strip()
        try:
            raw = bytes(int(x, 16) for x in enc.strip().strip("[]").split(",") if x)
        except ValueError:
            continue
        if raw in markers:
            groups.append([])
        elif raw == SENTINEL:
            continue
        else:
            groups[-1].append((text, raw))
    result: list[tuple[str, bytes] | None] = []
    for p, g in zip(probes, groups, strict=False):
        if g and g[0][1][:4] == p[:4] and len(g[0][1]) <= len(p):
            result.append(g[0])
        else:
            result.append(None)
    result += [None] * (len(probes) - len(result))
    return result


def split_operands(rest: str) -> list[str]:
    """Split on ", " outside parentheses/brackets (hwreg(a, b, c) stays one operand)."""
    out, depth, cur, i = [], 0, [], 0
    while i < len(rest):
        c = rest[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if depth == 0 and rest.startswith(", ", i):
            out.append("".join(cur))
            cur = []
            i += 2
            continue
        cur.append(c)
        i += 1
    out.append("".join(cur))
    return out


def inline_styles(entry: dict) -> None:
    """From the 'inl' probe (src0=248, src1=242, src2=240) record how each source prints inline floats."""
    text = entry.get("inl")
    if not text:
        return
    _, toks, _ = split_text(text)
    expect = {"src0": 248, "src1": 242, "src2": 240}
    for slot, tok in zip(entry["t"], toks, strict=False):
        if slot[0] in expect and len(slot) >= 3:
            tok = tok.split(" ")[0]
            if tok == "0.15915494":
                style = "f32"
            elif tok.startswith("0.1591549430"):
                style = "f64"
            elif tok in ("0x3118", "0x3c00", "0x3800"):
                style = "h16"
            elif tok in ("1.0", "0.5"):
                style = "f32"
            else:
                style = "?" + tok
            slot.append(style)


def split_text(text: str) -> tuple[str, list[str], list[str]]:
    """Mnemonic, operand tokens, trailing modifier tokens."""
    mnem, _, rest = text.partition(" ")
    ops = split_operands(rest) if rest else []
    mods: list[str] = []
    if ops:
        last = ops[-1].split(" ")
        ops[-1] = last[0]
        mods = last[1:]
        # a lone modifier with no operands (e.g. "buffer_wbl2 sc1")
        if len(ops) == 1 and parse_reg(ops[0]) is None and (
                ":" in ops[0] and not ops[0].startswith(("hwreg", "sendmsg")) or ops[0] in MODWORDS):
            mods = [ops[0]] + mods
            ops = []
    return mnem, ops, mods


MODWORDS = {"glc", "slc", "dlc", "nt", "sc0", "sc1", "offen", "idxen", "lds", "gds", "clamp", "tfe", "lwe",
            "da", "unorm", "r128", "a16", "d16", "sve"}
REG_RE = re.compile(r"^(-?\|?)(v|s|a|ttmp)(?:(\d+)|\[(\d+):(\d+)\])(\|?)$")


def parse_reg(tok: str) -> tuple[str, int, int] | None:
    m = REG_RE.match(tok.replace("-", "").replace("|", ""))
    if not m:
        return None
    kind = m.group(2)
    if m.group(3) is not None:
        return kind, int(m.group(3)), 1
    lo, hi = int(m.group(4)), int(m.group(5))
    return kind, lo, hi - lo + 1


def template(ops: list[str], fields: dict[tuple[str, int], str], extra: dict[str, str] | None = None):
    """Map printed operand tokens to field names: [(field, width)] or ("=text", 0) for fixed text."""
    out = []
    for tok in ops:
        r = parse_reg(tok)
        if r and (r[0], r[1]) in fields:
            out.append([fields[(r[0], r[1])], r[2], r[0]])
        elif r and r[0] in "sa" and ("v", r[1]) in fields:
            out.append([fields[("v", r[1])], r[2], r[0]])
        elif extra and tok in extra:
            out.append([extra[tok], 0])
        else:
            out.append(["=" + tok, 0])
    return out


def patch(probe: bytes, v: tuple[int, int, int, int]) -> bytes:
    """Apply a variant (clear/set masks for dword 0 and dword 1) to a probe."""
    w = list(struct.unpack("<" + "I" * (len(probe) // 4), probe))
    w[0] = (w[0] & ~v[0]) | v[1]
    if len(w) > 1:
        w[1] = (w[1] & ~v[2]) | v[3]
    return words(*w)


def probe_family(cpu: str, name: str, ops: range, make, fields, extra=None, variants=None, fallbacks=()):
    """Probe every opcode; `fallbacks` are variants tried when the base probe is rejected (LLVM
    requires unused fields to be zero for some opcodes)."""
    table = {}
    chosen: dict[int, bytes] = {}
    pending = list(ops)
    for fb in ((0, 0, 0, 0), *fallbacks):
        if not pending:
            break
        probes = [patch(make(op), fb) for op in pending]
        res = run_mc(cpu, probes)
        left = []
        for op, p, r in zip(pending, probes, res, strict=True):
            if r is None:
                left.append(op)
                continue
            text, raw = r
            mnem, toks, mods = split_text(text)
            table[op] = {"m": mnem, "t": template(toks, fields, extra), "mods": mods, "size": len(raw)}
            chosen[op] = p
        pending = left
    for vname, v in (variants or {}).items():
        opl = sorted(table)
        vres = run_mc(cpu, [patch(chosen[op], v) if isinstance(v, tuple) else v(op) for op in opl])
        for op, r in zip(opl, vres, strict=True):
            table[op][vname] = r[0] if r else None
    for e in table.values():
        inline_styles(e)
    return dict(sorted(table.items()))


V = 256
F0 = 0xFFFFFFFF


def derive(cpu: str) -> dict:
    t: dict[str, dict] = {}
    sfields = {("s", 10): "sdst", ("s", 20): "src0", ("s", 40): "src1"}
    t["SOP2"] = probe_family(cpu, "SOP2", range(0x60),
                             lambda op: words(0x80000000 | op << 23 | 10 << 16 | 40 << 8 | 20), sfields)
    t["SOPK"] = probe_family(cpu, "SOPK", range(32),
                             lambda op: words(0xB0000000 | op << 23 | 10 << 16 | 0x1234, LIT),
                             sfields, {"0x1234": "simm16", "4660": "simm16d", "0x87654321": "lit"},
                             {"neg": (0xFFFF, 0xFFFE, 0, 0)}, [(0x7F0000, 0, 0, 0)])
    t["SOP1"] = probe_family(cpu, "SOP1", range(256), lambda op: words(0xBE800000 | 10 << 16 | op << 8 | 20),
                             sfields, None, None, [(0x7F0000, 0, 0, 0), (0xFF, 0, 0, 0), (0x7F00FF, 0, 0, 0)])
    t["SOPC"] = probe_family(cpu, "SOPC", range(128), lambda op: words(0xBF000000 | op << 16 | 40 << 8 | 20),
                             sfields, None, None, [(0xFF00, 0, 0, 0), (0xFF00, 0x0F00, 0, 0)])
    t["SOPP"] = probe_family(cpu, "SOPP", range(128), lambda op: words(0xBF800000 | op << 16 | 3), {},
                             {"3": "simm16"},
                             {"big": (0xFFFF, 0x8234, 0, 0), "neg": (0xFFFF, 0xFFFE, 0, 0),
                              "zero": (0xFFFF, 0, 0, 0), "v65": (0xFFFF, 65, 0, 0)},
                             [(0xFFFF, 0, 0, 0)])
    smf = {("s", 12): "sdata", ("s", 20): "sbase", ("s", 30): "soffset"}
    t["SMEM"] = probe_family(cpu, "SMEM", range(256),
                             lambda op: words(0xC0000000 | op << 18 | 1 << 17 | 12 << 6 | 10, 0x10), smf,
                             {"0x10": "offset"},
                             {"glc": (0, 1 << 16, 0, 0), "sgpr": (1 << 17, 0, F0, 30),
                              "soe": (0, 1 << 14, 0, 30 << 25), "nv": (0, 1 << 15, 0, 0)},
                             [(0x3F, 0, 0, 0), (0xFC0, 0, 0, 0), (0xFFF, 0, 0, 0), (0xFFF | 1 << 17, 0, F0, 0)])
    vf = {("v", 10): "vdst", ("v", 20): "src0", ("v", 40): "src1", ("v", 60): "src2", ("s", 30): "sdst"}
    lit = {"0x87654321": "lit", "0x4321": "lit", "0xffffffff87654321": "lit"}
    vop_var = {"lit": (0x1FF, 255, 0, 0), "inl": (0x1FF, 248, 0, 0),
               "sdwa": (0x1FF, 0xF9, F0, 20 | 6 << 8 | 6 << 16 | 6 << 24),
               "dpp": (0x1FF, 0xFA, F0, 20 | 0xE4 << 8 | 0xFF << 24),
               "dppm": (0x1FF, 0xFA, F0, 20 | 0xE4 << 8 | 0xF << 20 | 0xFF << 24),
               "sdwan": (0x1FF, 0xF9, F0, 20 | 6 << 8 | 6 << 16 | 6 << 24 | 3 << 20),
               "sdwas": (0x1FF, 0xF9, F0, 20 | 6 << 8 | 6 << 16 | 6 << 24 | 1 << 19),
               "sdwas1": (0x1FF, 0xF9, F0, 20 | 6 << 8 | 6 << 16 | 6 << 24 | 1 << 27),
               "sdwan1": (0x1FF, 0xF9, F0, 20 | 6 << 8 | 6 << 16 | 6 << 24 | 3 << 28)}
    t["VOP2"] = probe_family(cpu, "VOP2", range(0x3E),
                             lambda op: words(op << 25 | 10 << 17 | 40 << 9 | (V + 20), LIT), vf, lit, vop_var)
    t["VOP1"] = probe_family(cpu, "VOP1", range(256),
                             lambda op: words(0x7E000000 | 10 << 17 | op << 9 | (V + 20), LIT), vf, lit,
                             {**vop_var, "sdwa": (0x1FF, 0xF9, F0, 20 | 6 << 8 | 6 << 16),
                              "dppm": (0x1FF, 0xFA, F0, 20 | 0xE4 << 8 | 0x3 << 20 | 0xFF << 24),
                              "sdwan": (0x1FF, 0xF9, F0, 20 | 6 << 8 | 6 << 16 | 3 << 20),
                              "sdwas": (0x1FF, 0xF9, F0, 20 | 6 << 8 | 6 << 16 | 1 << 19),
                              "sdwac": (0x1FF, 0xF9, F0, 20 | 6 << 8 | 6 << 16 | 1 << 13 | 1 << 14)},
                             [(0x1FE0000, 0, 0, 0), (0x1FF, 0, 0, 0), (0x1FE01FF, 0, 0, 0)])
    t["VOPC"] = probe_family(cpu, "VOPC", range(256),
                             lambda op: words(0x7C000000 | op << 17 | 40 << 9 | (V + 20), LIT), vf, lit,
                             {**vop_var, "sdwa": (0x1FF, 0xF9, F0, 20 | 30 << 8 | 1 << 15 | 6 << 16 | 6 << 24),
                              "sdwan": (0x1FF, 0xF9, F0, 20 | 30 << 8 | 1 << 15 | 6 << 16 | 6 << 24 | 3 << 20),
                              "sdwas": (0x1FF, 0xF9, F0, 20 | 30 << 8 | 1 << 15 | 6 << 16 | 6 << 24 | 1 << 19),
                              "sdwas1": (0x1FF, 0xF9, F0, 20 | 30 << 8 | 1 << 15 | 6 << 16 | 6 << 24 | 1 << 27),
                              "sdwan1": (0x1FF, 0xF9, F0, 20 | 30 << 8 | 1 << 15 | 6 << 16 | 6 << 24 | 3 << 28)})
    src3 = (V + 20) | (V + 40) << 9 | (V + 60) << 18
    s2, s1, s0 = 0x1FF << 18, 0x1FF << 9, 0x1FF
    t["VOP3"] = probe_family(cpu, "VOP3", range(1024), lambda op: words(0xD0000000 | op << 16 | 10, src3), vf, None,
                             {"mods": (0, 1 << 15 | 7 << 8, 0, 1 << 27 | 7 << 29),
                              "neg": (0, 0, 0, 1 << 29), "abs": (0, 1 << 8, 0, 0), "clamp": (0, 1 << 15, 0, 0),
                              "neg1": (0, 0, 0, 1 << 30), "abs1": (0, 1 << 9, 0, 0),
                              "neg2": (0, 0, 0, 1 << 31), "abs2": (0, 1 << 10, 0, 0),
                              "omod": (0, 0, 0, 1 << 27),
                              "opsel": (0, 15 << 11, 0, 0),
                              "sdst": (0x7F00, 30 << 8, 0, 0),
                              "inl": (0, 0, 0x7FFFFFF, 248 | 242 << 9 | 240 << 18)},
                             [(0, 0, s2, 0), (0, 0, s2 | s1, 0), (0xFF, 0, s2, 0), (0xFF, 0, s2 | s1, 0),
                              (0xFF, 0, s2 | s1 | s0, 0), (0, 0, s2 | s1 | s0, 0)])
    t["VOP3P"] = probe_family(cpu, "VOP3P", range(128),
                              lambda op: words(0xD3800000 | op << 16 | 1 << 14 | 10, src3 | 3 << 27), vf, None,
                              {"mods": (1 << 14, 1 << 15 | 7 << 11 | 7 << 8, 3 << 27, 7 << 29),
                               "acc": (0, 1 << 15, 0, 0),
                               "ops": (1 << 14, 7 << 11, 3 << 27, 0), "negs": (0, 0, 0, 1 << 29),
                               "opsh": (1 << 14, 0, 3 << 27, 0),
                               "mai": (0x7F00, 1 << 15 | 5 << 11 | 3 << 8, 0, 2 << 29),
                               "inl": (0, 0, 0x7FFFFFF, 248 | 242 << 9 | 240 << 18)},
                              [(1 << 14, 0, 3 << 27, 0), (0, 0, s2, 0), (1 << 14, 0, s2 | 3 << 27, 0)])
    dsf = {("v", 10): "vdst", ("v", 20): "addr", ("v", 40): "data0", ("v", 60): "data1"}
    d1, d0, dv, da = 0xFF << 16, 0xFF << 8, 0xFF << 24, 0xFF
    t["DS"] = probe_family(cpu, "DS", range(256),
                           lambda op: words(0xD8000000 | op << 17 | 0x20 << 8 | 0x10,
                                            20 | 40 << 8 | 60 << 16 | 10 << 24),
                           dsf, None, {"gds": (0, 1 << 16, 0, 0), "acc": (0, 1 << 25, 0, 0)},
                           [(0, 0, m, 0) for m in (dv, d1, d1 | dv, d1 | d0, d1 | d0 | dv, d1 | d0 | da,
                                                   d1 | d0 | dv | da, dv | da, d1 | da, d1 | da | dv)])
    ff = {("v", 10): "vdst", ("v", 20): "addr", ("v", 40): "data", ("s", 30): "saddr"}
    for seg, nm in ((0, "FLAT"), (1, "SCRATCH"), (2, "GLOBAL")):
        t[nm] = probe_family(cpu, nm, range(128),
                             lambda op, seg=seg: words(0xDC000000 | op << 18 | seg << 14 | 0x10,
                                                       20 | 40 << 8 | 0x7F << 16 | 10 << 24),
                             ff, None,
                             {"saddr": (0, 0, 0x7F << 16, 30 << 16), "glc": (0, 1 << 16 | 1 << 17, 0, 0),
                              "pg": (0, 1 << 16, 0, 0), "ps": (0, 1 << 17, 0, 0),
                              "sc1": (0, 1 << 25, 0, 0), "lds": (0, 1 << 13, 0, 0), "acc": (0, 0, 0, 1 << 23),
                              "neg": (0x1FFF, 0x1FF0, 0, 0), "saddr_noaddr": (0, 0, 0x7F00FF, 30 << 16)},
                             [(0, 0, 0xFF << 24, 0), (0, 0, 0xFF << 8, 0), (0, 0, 0x7F << 16, 0),
                              (0, 0, 0x7F << 16 | 0xFF << 24, 0), (0, 0, 0x7F << 16 | 0xFF << 8, 0)])
    mf = {("v", 10): "vdata", ("v", 20): "vaddr", ("s", 20): "srsrc", ("s", 30): "soffset"}
    t["MUBUF"] = probe_family(cpu, "MUBUF", range(128),
                              lambda op: words(0xE0000000 | op << 18 | 1 << 12 | 0x10,
                                               20 | 10 << 8 | 5 << 16 | 30 << 24),
                              mf, None,
                              {"glc": (0, 1 << 14 | 1 << 17, 0, 0), "b15": (0, 1 << 15, 0, 0),
                               "pg": (0, 1 << 14, 0, 0), "ps": (0, 1 << 17, 0, 0),
                               "lds": (0, 1 << 16, 0, 0), "acc": (0, 0, 0, 1 << 23),
                               "off": (1 << 12, 0, 0xFF << 24, 0x80 << 24), "idx": (0, 1 << 13, 0, 0),
                               "tfe": (0, 0, 0, 1 << 23)},
                              [(0, 0, 0xFF << 8, 0), (0xFFF | 1 << 12, 0, 0xFF | 0xFF << 8, 0)])
    t["MTBUF"] = probe_family(cpu, "MTBUF", range(16),
                              lambda op: words(0xE8000000 | op << 15 | 1 << 12 | 0x10 | 4 << 19 | 7 << 23,
                                               20 | 10 << 8 | 5 << 16 | 30 << 24), mf)
    mif = {("v", 10): "vdata", ("v", 4): "vaddr", ("s", 8): "srsrc", ("s", 16): "ssamp"}
    t["MIMG"] = probe_family(cpu, "MIMG", range(128),
                             lambda op: words(0xF0000000 | op << 18 | 1 << 8, 4 | 10 << 8 | 2 << 16 | 4 << 21), mif,
                             None, {"dm": (0xF00, 0xF00, 0, 0), "d16": (0, 0, 0, 1 << 31)},
                             [(0xF00, 0x300, 0, 0), (0xF00, 0xF00, 0, 0), (0, 1 << 12, 0, 0), (0, 0, 0x1F << 21, 0),
                              (0, 1 << 12, 0x1F << 21, 0), (0xF00, 0x300, 0x1F << 21, 0),
                              (0xF00, 0xF00, 0x1F << 21, 0)])
    names = {}
    res = run_mc(cpu, [words(0xB8800000 | 10 << 16 | i | 31 << 11) for i in range(64)])
    for i, r in enumerate(res):
        if r and "hwreg(" in r[0]:
            nm = re.search(r"hwreg\((\w+)", r[0]).group(1)
            if not nm.isdigit():
                names[i] = nm
    t["HWREG"] = names
    msgs = {}
    res = run_mc(cpu, [words(0xBF900000 | i) for i in range(1024)])
    for i, r in enumerate(res):
        if r:
            msgs[i] = r[0].split(" ", 1)[1]
    t["SENDMSG"] = msgs
    return t


def main() -> None:
    TABLES.mkdir(exist_ok=True)
    for gen, cpu in GENERATIONS.items():
        t = derive(cpu)
        (TABLES / f"{gen}.json").write_text(json.dumps(t, separators=(",", ":"), sort_keys=True))
        print(gen, {k: len(v) for k, v in t.items()})


if __name__ == "__main__":
    main()
