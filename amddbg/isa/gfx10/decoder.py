"""Table-driven decoder for GFX10.3, GFX11, GFX12 and GFX12.5 machine code.

Dispatch is one list lookup on the top 9 bits of the first dword (every encoding of these
generations is identified there), then a per-encoding function extracts the fields and renders the
opcode's operand template from `tables/<generation>.json`.  Identical instruction bytes decode to
identical text except for PC-relative branches, so results are memoised by raw bytes.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

from amddbg.isa.common import FLOAT_INLINE_TEXT, hex_imm, unknown_instruction
from amddbg.isa.gfx10 import special
from amddbg.isa.gfx10.encodings import FIELDS, MATCH, generation
from amddbg.isa.gfx10.operands import SIG_CLASS, inline_float, literal
from amddbg.isa.model import Instruction, MemoryInfo, MemorySpace, Operand, OperandKind

_TABLES = Path(__file__).with_name("tables")


@cache
def load_tables(gen: str) -> dict:
    return json.loads((_TABLES / f"{gen}.json").read_text())


class _Unknown(Exception):
    """Internal: the bytes are not an instruction this decoder knows (becomes `.long`)."""


_EXEC_NAMES = {"exec", "exec_lo", "exec_hi"}
_BRANCHES = {"s_branch", "s_cbranch_scc0", "s_cbranch_scc1", "s_cbranch_vccz", "s_cbranch_vccnz",
             "s_cbranch_execz", "s_cbranch_execnz", "s_cbranch_cdbgsys", "s_cbranch_cdbguser",
             "s_cbranch_cdbgsys_or_user", "s_cbranch_cdbgsys_and_user"}
_CALLS = {"s_swappc_b64", "s_call_b64", "s_swap_pc_i64", "s_call_i64"}
_SETPC = {"s_setpc_b64", "s_set_pc_i64"}
_DEST_FIELDS = {"vdst", "sdst", "vdstx", "vdsty"}
_DS2 = re.compile(r"2addr|(read|write|wrxchg)2")
_VECTOR_MEM = {"FLAT", "MUBUF", "DS"}
_SRC9 = {"src0", "src1", "src2", "srcx0", "srcy0"}
_OPSEL_BIT = {"src0": 0, "src1": 1, "src2": 2, "vdst": 3}


class _Ctx:
    """Per-instruction scratch: words, literal use, operand list."""

    __slots__ = ("words", "lit", "ops", "size", "extra")

    def __init__(self, words: list[int], size: int):
        self.words = words
        self.lit: int | None = None  # index of the dword holding the literal, once used
        self.ops: list[Operand] = []
        self.size = size
        self.extra: dict = {}


class Decoder:
    """Decoder for one processor of the GFX10.3 .. GFX12.5 families (wave32 register naming, as
    llvm-objdump prints these code objects)."""

    def __init__(self, processor: str):
        self.processor = processor
        self.gen = generation(processor)
        t = load_tables(self.gen)
        self.t = t
        names = t["_names"]
        self.s32: list[str | None] = names["s32"]
        self.s64: list[str | None] = names["s64"]
        self.d32: list[str | None] = names["d32"]
        self.d64: list[str | None] = names["d64"]
        self.null = 125 if self.gen == "gfx10" else 124
        self.sopimm = t["_sopimm"]
        self.fields = {enc: [(n, d, lo, (1 << w) - 1) for n, (d, lo, w) in f.items()]
                       for enc, f in FIELDS[self.gen].items()}
        self.dispatch: list[tuple[str, int] | None] = [None] * 512
        for top in range(512):
            w = top << 23
            for mask, val, enc, size in MATCH[self.gen]:
                if w & mask & 0xFF800000 == val:
                    self.dispatch[top] = (enc, size)
                    break
        self._handlers = {
            "SOP1": self._sop, "SOP2": self._sop, "SOPC": self._sop, "SOPK": self._sopk, "SOPP": self._sopp,
            "VOP1": self._vop, "VOP2": self._vop, "VOPC": self._vop, "VOP3": self._vop3, "VOP3P": self._vop3p,
            "SMEM": self._smem, "DS": self._ds, "FLAT": self._flat, "MUBUF": self._mubuf, "VOPD": self._vopd,
            "VOPD3": self._vopd3,
        }
        self._cache: dict[bytes, tuple] = {}
        self._flat_off_bits = {"gfx10": 12, "gfx11": 13}.get(self.gen, 24)

    # ------------------------------------------------------------------ public API
    def decode(self, data, offset: int, address: int) -> Instruction:
        """Decode one instruction at `offset` of `data` (loaded at `address`); never raises."""
        n = len(data) - offset
        if n < 4:
            return unknown_instruction(data, offset, address, "truncated instruction at end of section")
        w0 = int.from_bytes(data[offset : offset + 4], "little")
        d = self.dispatch[w0 >> 23]
        if d is None:
            return unknown_instruction(data, offset, address, f"no GFX10+ encoding matches 0x{w0:08x}")
        enc, size = d
        # Longest possible form: base + literal (+ 64-bit literal on gfx1250) -> at most 20 bytes.
        raw_max = bytes(data[offset : offset + min(n, size + 8)])
        cached = self._cache.get(raw_max[:size])
        if cached is not None and cached[0] <= len(raw_max) and cached[1] is None:
            # only literal-free, non-PC-relative decodes are cached by base bytes
            return self._make(cached[2], address, raw_max[: cached[0]])
        if size > n:
            return unknown_instruction(data, offset, address, f"truncated {enc} instruction")
        words = [int.from_bytes(raw_max[i : i + 4], "little") for i in range(0, len(raw_max) - 3, 4)]
        ctx = _Ctx(words, size)
        try:
            parts = self._handlers[enc](enc, ctx, address)
        except _Unknown as exc:
            return unknown_instruction(data, offset, address, str(exc))
        except (IndexError, KeyError, TypeError, ValueError) as exc:
            return unknown_instruction(data, offset, address, f"{enc}: cannot decode ({exc.__class__.__name__})")
        if ctx.size > n:
            return unknown_instruction(data, offset, address, f"truncated {enc} instruction (literal)")
        pcrel = parts[-1].get("branch_target") is not None
        if not pcrel and ctx.lit is None:
            self._cache[raw_max[:size]] = (ctx.size, None, parts)
        return self._make(parts, address, raw_max[: ctx.size])

    def decode_all(self, data, address: int) -> list[Instruction]:
        """Decode a whole code section sequentially."""
        out: list[Instruction] = []
        off = 0
        n = len(data)
        while off < n:
            ins = self.decode(data, off, address + off)
            out.append(ins)
            off += ins.size or 4
        return out

    # ------------------------------------------------------------------ construction
    @staticmethod
    def _make(parts: tuple, address: int, raw: bytes) -> Instruction:
        mn, enc, ops, text, flags = parts
        bt = flags.get("branch_rel")
        if bt is not None:
            flags = dict(flags)
            flags["branch_target"] = address + 4 + bt * 4
            del flags["branch_rel"]
        return Instruction(address=address, size=len(raw), raw=raw, mnemonic=mn, encoding=enc, operands=ops,
                           text=text, **flags)

    def _fields(self, enc: str, words: list[int]) -> dict[str, int]:
        return {n: (words[d] >> lo) & m for n, d, lo, m in self.fields[enc]}

    # ------------------------------------------------------------------ operand helpers
    def _lit(self, ctx: _Ctx) -> int:
        if ctx.lit is None:
            ctx.lit = ctx.size // 4
            ctx.size += 4
        if ctx.lit >= len(ctx.words):
            raise _Unknown("truncated literal")
        return ctx.words[ctx.lit]

    def _sreg(self, code: int, width: int, dest: bool = False) -> str:
        if width == 1:
            name = (self.d32 if dest else self.s32)[code] if (code < 128 or not dest) else None
        elif width == 2:
            name = (self.d64 if dest else self.s64)[code] if (code < 128 or not dest) else None
        else:
            name = None
            if code < 106:
                code &= ~3  # LLVM prints wide SGPR tuples at their 4-aligned base
                name = f"s[{code}:{code + width - 1}]"
            elif 108 <= code < 124:
                code = 108 + ((code - 108) & ~3)
                name = f"ttmp[{code - 108}:{code - 108 + width - 1}]"
            elif code == self.null:
                name = "null"
        if name is None:
            raise _Unknown(f"scalar operand code {code} not valid here")
        return name

    def _src(self, ctx: _Ctx, code: int, width: int, cls: str, dest: bool = False) -> Operand:
        """A 9-bit (or 8-bit scalar) source operand."""
        if code >= 256:
            r = code - 256
            text = f"v{r}" if width == 1 else f"v[{r}:{r + width - 1}]"
            return Operand(OperandKind.VGPR, text, register=r, count=width, is_dest=dest)
        if code == 255:
            v = self._lit(ctx)
            return Operand(OperandKind.LITERAL, literal(v, cls), value=v)
        if code == 254 and self.gen == "gfx1250":
            lo = self._lit(ctx)
            ctx.size += 4
            if ctx.lit + 1 >= len(ctx.words):
                raise _Unknown("truncated 64-bit literal")
            v = lo | ctx.words[ctx.lit + 1] << 32
            return Operand(OperandKind.LITERAL, f"lit64({hex_imm(v)})" if v <= 0xFFFFFFFF else hex_imm(v), value=v)
        if 128 <= code <= 208:
            v = code - 128 if code <= 192 else 192 - code
            return Operand(OperandKind.INLINE, str(v), value=v)
        if 240 <= code <= 248:
            text = inline_float(code, cls)
            return Operand(OperandKind.INLINE, text, value=float(FLOAT_INLINE_TEXT[code]))
        text = self._sreg(code, width, dest)
        kind = OperandKind.SGPR if code < 106 else (
            OperandKind.TTMP if 108 <= code < 124 else OperandKind.SPECIAL)
        return Operand(kind, text, register=code if code < 124 else None, count=width, is_dest=dest)

    def _vreg(self, r: int, width: int, dest: bool = False) -> Operand:
        text = f"v{r}" if width == 1 else f"v[{r}:{r + width - 1}]"
        return Operand(OperandKind.VGPR, text, register=r, count=width, is_dest=dest)

    def _render(self, ctx: _Ctx, entry: dict, f: dict[str, int], overrides: dict | None = None,
                opsel: int | None = None) -> list[Operand]:
        """Operands from a template: field references, fixed text, literal constant K.

        True16 operands (template kind `v.l`) print `.l`/`.h`: in 32-bit encodings the high half is
        bit 7 of the register field, in VOP3 it is the operand's op_sel bit (`opsel`)."""
        ty = entry.get("ty", {})
        out: list[Operand] = []
        for tok in entry["t"]:
            k = tok[0]
            if k == "F":
                name, width, rk = tok[1], tok[2], tok[3] if len(tok) > 3 else "v"
                dest = name in _DEST_FIELDS
                if overrides and name in overrides:
                    val = overrides[name]
                else:
                    val = f[name]
                if rk[:2] == "v." and (val >= 256 or name not in _SRC9):
                    r = val - 256 if val >= 256 else val
                    if opsel is None:
                        hi, r = r >> 7, r & 0x7F
                    else:
                        hi = (opsel >> _OPSEL_BIT.get(name, 3)) & 1
                    out.append(Operand(OperandKind.VGPR, f"v{r}.{'h' if hi else 'l'}", register=r, count=1,
                                       is_dest=dest, modifiers=("hi",) if hi else ()))
                    continue
                if name in ("src0", "src1", "src2", "srcx0", "srcy0", "ssrc0", "ssrc1"):
                    cls = SIG_CLASS.get(ty.get(name, ""), "b32")
                    out.append(self._src(ctx, val, width, cls, dest))
                elif name == "sbase":
                    out.append(self._src(ctx, val * 2, width, "b32"))
                elif name == "srsrc":
                    base = val * 4 if self.gen in ("gfx10", "gfx11") else val
                    out.append(self._src(ctx, base, width, "b32"))
                elif rk == "s" or name in ("sdst", "sdata", "soffset", "saddr"):
                    out.append(self._src(ctx, val, width, "b32", dest))
                else:
                    out.append(self._vreg(val, width, dest))
            elif k == "T":
                out.append(Operand(OperandKind.SPECIAL, tok[1]))
            elif k == "K":
                v = self._lit(ctx)
                out.append(Operand(OperandKind.LITERAL, hex_imm(v), value=v))
            elif k == "I":
                out.append(Operand(OperandKind.IMMEDIATE, "?"))
        return out

    def _finish(self, mn: str, enc: str, ops: list[Operand], suffix: str = "", **flags) -> tuple:
        text = mn
        if ops:
            text += " " + ", ".join(o.text for o in ops)
        text += suffix
        if mn.startswith("v_") or enc in _VECTOR_MEM:
            flags.setdefault("reads_exec", True)  # vector ALU and vector memory are masked by EXEC
            if mn.startswith("v_cmpx"):
                flags["writes_exec"] = True
        for o in ops:
            if o.text in _EXEC_NAMES or o.text.startswith("exec"):
                if o.is_dest:
                    flags["writes_exec"] = True
                else:
                    flags["reads_exec"] = True
        if "saveexec" in mn:
            flags["writes_exec"] = True
            flags["reads_exec"] = True
        return (mn, enc, tuple(ops), text, flags)

    def _entry(self, enc: str, op: int) -> dict:
        e = self.t[enc].get(str(op))
        if e is None:
            raise _Unknown(f"{enc} opcode {op} unknown on {self.processor}")
        return e

    # ------------------------------------------------------------------ scalar
    def _sop(self, enc: str, ctx: _Ctx, address: int) -> tuple:
        f = self._fields(enc, ctx.words)
        e = self._entry(enc, f["op"])
        mn = e["m"]
        ops = self._render(ctx, e, f)
        flags: dict = {}
        if mn.startswith("s_sendmsg_rtn") and ops:
            ops[-1] = Operand(OperandKind.IMMEDIATE, special.sendmsg(self.gen, mn, f["ssrc0"]), value=f["ssrc0"])
        if mn in _CALLS:
            flags.update(is_branch=True, is_call=True)
        elif mn in _SETPC:
            flags["is_branch"] = True
            if ops and ops[-1].text == "s[30:31]":
                flags["is_return"] = True
        elif mn.startswith("s_barrier"):
            flags["is_barrier"] = True
        return self._finish(mn, enc, ops, **flags)

    def _sopk(self, enc: str, ctx: _Ctx, address: int) -> tuple:
        f = self._fields(enc, ctx.words)
        op = f["op"]
        e = self._entry(enc, op)
        mn = e["m"]
        imm = f["simm16"]
        cls = self.sopimm["SOPK"].get(str(op), "hex")
        flags: dict = {}
        ops: list[Operand] = []
        if cls == "special":
            if mn in ("s_getreg_b32", "s_setreg_b32", "s_setreg_imm32_b32"):
                hw = Operand(OperandKind.IMMEDIATE, special.hwreg(self.gen, imm), value=imm)
                if mn == "s_getreg_b32":
                    ops = [self._src(ctx, f["sdst"], 1, "b32", True), hw]
                elif mn == "s_setreg_b32":
                    ops = [hw, self._src(ctx, f["sdst"], 1, "b32")]
                else:
                    v = self._lit(ctx)
                    sv = v - (1 << 32) if v & 0x80000000 else v
                    ops = [hw, Operand(OperandKind.LITERAL, str(sv) if -16 <= sv <= 64 else hex_imm(v), value=v)]
            elif mn == "s_version":
                ops = [Operand(OperandKind.IMMEDIATE, special.version(imm), value=imm)]
            else:
                raise _Unknown(f"{mn}: immediate form not supported")
            return self._finish(mn, enc, ops)
        for tok in e["t"]:
            if tok[0] == "F":
                ops.append(self._src(ctx, f[tok[1]], tok[2], "b32", tok[1] == "sdst"))
            elif tok[0] == "I":
                ops.append(Operand(OperandKind.IMMEDIATE, _imm_text(cls, imm), value=imm))
            elif tok[0] == "K":
                v = self._lit(ctx)
                ops.append(Operand(OperandKind.LITERAL, hex_imm(v), value=v))
            else:
                ops.append(Operand(OperandKind.SPECIAL, tok[1]))
        if mn in ("s_call_b64", "s_call_i64"):
            rel = imm - 0x10000 if imm & 0x8000 else imm
            flags.update(is_branch=True, is_call=True, branch_rel=rel)
        if mn.startswith("s_waitcnt_") and f["sdst"] == self.null:
            flags.update(is_waitcnt=True, waitcnt={mn[len("s_waitcnt_"):]: imm})
        # SOPK compares and s_movk write or read the register; s_cmpk writes SCC only.
        if ops and tok_is_dest(mn):
            ops[0] = Operand(ops[0].kind, ops[0].text, ops[0].register, ops[0].count, ops[0].value, True)
        return self._finish(mn, enc, ops, **flags)

    def _sopp(self, enc: str, ctx: _Ctx, address: int) -> tuple:
        w = ctx.words[0]
        op = (w >> 16) & 0x7F
        imm = w & 0xFFFF
        e = self._entry(enc, op)
        mn = e["m"]
        cls = self.sopimm["SOPP"].get(str(op), "hex")
        flags: dict = {}
        ops: list[Operand] = []
        if cls == "special":
            text, info = special.sopp(self.gen, mn, imm)
            ops = [Operand(OperandKind.IMMEDIATE, text, value=imm)]
            if info:
                flags.update(is_waitcnt=True, waitcnt=info)
        elif cls == "none" or (cls == "opt" and imm == 0):
            pass
        else:
            ops = [Operand(OperandKind.LABEL if mn in _BRANCHES else OperandKind.IMMEDIATE, _imm_text(cls, imm),
                           value=imm)]
        if mn in _BRANCHES:
            rel = imm - 0x10000 if imm & 0x8000 else imm
            flags.update(is_branch=True, branch_rel=rel, is_conditional=mn != "s_branch")
        elif mn.startswith("s_endpgm"):
            flags["is_endpgm"] = True
        elif mn.startswith("s_barrier"):
            flags["is_barrier"] = True
        elif mn.startswith("s_wait_") and cls != "special" and mn != "s_wait_event":
            names = mn[len("s_wait_"):].split("_")
            if len(names) == 1:
                flags.update(is_waitcnt=True, waitcnt={names[0]: imm})
            elif len(names) == 2:
                flags.update(is_waitcnt=True, waitcnt={names[0]: imm >> 8, names[1]: imm & 0x3F})
            if mn == "s_barrier_wait":
                flags["is_barrier"] = True
        return self._finish(mn, enc, ops, **flags)

    def _smem(self, enc: str, ctx: _Ctx, address: int) -> tuple:
        f = self._fields(enc, ctx.words)
        e = self._entry(enc, f["op"])
        mn = e["m"]
        ops: list[Operand] = []
        bits = 21 if self.gen in ("gfx10", "gfx11") else 24
        off = f["offset"]
        if off & (1 << (bits - 1)):
            off -= 1 << bits
        soff = f["soffset"]
        is_load = "load" in mn
        for tok in e["t"]:
            if tok[0] == "F":
                name, width = tok[1], tok[2]
                if name == "sdata":
                    ops.append(self._src(ctx, f["sdata"], width, "b32", is_load))
                elif name == "sbase":
                    ops.append(self._src(ctx, f["sbase"] * 2, width, "b32"))
                else:
                    ops.append(self._src(ctx, f[name], width, "b32"))
            elif tok[0] == "T" and tok[1] == "0x10":
                if soff != self.null:
                    o = self._src(ctx, soff, 1, "b32")
                    if off:
                        o = Operand(o.kind, f"{o.text} offset:{_shex(off)}", o.register, o.count, off)
                    ops.append(o)
                elif off == 0 and self.gen in ("gfx10", "gfx11"):
                    ops.append(Operand(OperandKind.SPECIAL, "null"))
                else:
                    ops.append(Operand(OperandKind.OFFSET, _shex(off), value=off))
            elif tok[0] == "T":
                ops.append(Operand(OperandKind.SPECIAL, tok[1]))
            else:
                raise _Unknown(f"{mn}: operand form not supported")
        pol, suffix = self._cpol(f, mn, smem=True)
        if not any(tok[0] == "F" and tok[1] == "sbase" for tok in e["t"]):
            suffix = ""
        if self.gen == "gfx1250" and (ctx.words[1] >> 24) & 1:
            suffix += " scale_offset"
        mem = None
        if is_load or "store" in mn:
            mem = MemoryInfo(MemorySpace.SCALAR, is_load=is_load, is_store="store" in mn, cache_policy=pol)
        return self._finish(mn, enc, ops, suffix, memory=mem)

    # ------------------------------------------------------------------ vector ALU
    def _vop(self, enc: str, ctx: _Ctx, address: int) -> tuple:
        f = self._fields(enc, ctx.words)
        src0 = f["src0"]
        if src0 in (249, 250, 233, 234):
            return self._dpp(enc, ctx, f)
        e = self._entry(enc, f["op"])
        ops = self._render(ctx, e, f)
        return self._finish(e["m"], enc, ops)

    def _vop3(self, enc: str, ctx: _Ctx, address: int) -> tuple:
        f = self._fields(enc, ctx.words)
        e = self._entry(enc, f["op"])
        mn = e["m"]
        dpp = f["src0"] in (250, 233, 234) and self.gen != "gfx10"
        ov = None
        if dpp:
            if len(ctx.words) < 3:
                raise _Unknown("truncated VOP3 DPP")
            w2 = ctx.words[2]
            ctx.size, ctx.lit = 12, -1
            ov = {"src0": 256 + (w2 & 0xFF)}
        ops = self._render(ctx, e, f, ov, opsel=f["opsel"])
        sd = e.get("sd")
        neg = f["neg"] if e.get("ng") else 0
        ab = f["abs"] if e.get("ab") and not sd else 0
        srcs = [i for i, tok in enumerate(e["t"]) if tok[0] == "F" and tok[1].startswith("src")]
        if neg or ab:
            for i in srcs:
                idx = int(e["t"][i][1][-1])
                o = ops[i]
                t = o.text
                mods = []
                if ab >> idx & 1:
                    t = f"|{t}|"
                    mods.append("abs")
                if neg >> idx & 1:
                    t = f"-{t}"
                    mods.append("neg")
                if mods:
                    ops[i] = Operand(o.kind, t, o.register, o.count, o.value, o.is_dest, tuple(mods))
        suffix = ""
        if not sd and f["opsel"] and e.get("os"):
            n = len(srcs)
            bits = [(f["opsel"] >> j) & 1 for j in range(n)] + [(f["opsel"] >> 3) & 1]
            suffix += " op_sel:[" + ",".join(str(b) for b in bits) + "]"
        if f["clamp"]:
            suffix += " clamp"
        if f["omod"]:
            suffix += (" mul:2", " mul:4", " div:2")[f["omod"] - 1]
        if dpp:
            mn = (mn[:-4] if mn.endswith("_e64") else mn) + "_e64_dpp"
            if f["src0"] == 250:
                c = special.dpp_ctrl((w2 >> 8) & 0x1FF)
                if c is None:
                    raise _Unknown("DPP control not valid")
                suffix += f" {c} row_mask:0x{(w2 >> 28) & 0xF:x} bank_mask:0x{(w2 >> 24) & 0xF:x}"
                if (w2 >> 19) & 1:
                    suffix += " bound_ctrl:1"
                if (w2 >> 18) & 1:
                    suffix += " fi:1"
            else:
                suffix += " dpp8:[" + ",".join(str((w2 >> (8 + 3 * i)) & 7) for i in range(8)) + "]"
                if f["src0"] == 234:
                    suffix += " fi:1"
        return self._finish(mn, enc, ops, suffix)

    def _vop3p(self, enc: str, ctx: _Ctx, address: int) -> tuple:
        f = self._fields(enc, ctx.words)
        e = self._entry(enc, f["op"])
        mn = e["m"]
        ops = self._render(ctx, e, f)
        srcs = [tok for tok in e["t"] if tok[0] == "F" and tok[1].startswith("src")]
        n = len(srcs)
        opsel = f["opsel"]
        opsel_hi = f["opsel_hi"] | (f["opsel_hi2"] << 2)
        suffix = ""

        def arr(name: str, v: int) -> str:
            return f" {name}:[" + ",".join(str((v >> j) & 1) for j in range(n)) + "]"

        mask = (1 << n) - 1
        if "mix" in mn:
            # v_fma_mix*: neg_lo/neg_hi are the per-source neg/abs modifiers
            for i in [i for i, tok in enumerate(e["t"]) if tok[0] == "F" and tok[1].startswith("src")]:
                idx = int(e["t"][i][1][-1])
                o = ops[i]
                t = o.text
                if f["neg_hi"] >> idx & 1:
                    t = f"|{t}|"
                if f["neg"] >> idx & 1:
                    t = f"-{t}"
                ops[i] = Operand(o.kind, t, o.register, o.count, o.value, o.is_dest, o.modifiers)
            if opsel & mask:
                suffix += arr("op_sel", opsel)
            if opsel_hi & mask:
                suffix += arr("op_sel_hi", opsel_hi)
        else:
            if opsel & mask and e.get("os"):
                suffix += arr("op_sel", opsel)
            if (opsel_hi & mask) != mask and e.get("osh"):
                suffix += arr("op_sel_hi", opsel_hi)
            if f["neg"] & mask and e.get("nl"):
                suffix += arr("neg_lo", f["neg"])
            if f["neg_hi"] & mask and e.get("nh"):
                suffix += arr("neg_hi", f["neg_hi"])
        if f["clamp"]:
            suffix += " clamp"
        return self._finish(mn, enc, ops, suffix)

    def _vopd(self, enc: str, ctx: _Ctx, address: int) -> tuple:
        f = self._fields(enc, ctx.words)
        tx = self.t["VOPD"]["X"].get(str(f["opx"]))
        ty = self.t["VOPD"]["Y"].get(str(f["opy"]))
        if tx is None or ty is None:
            raise _Unknown("VOPD opcode unknown")
        vdsty = (f["vdsty"] << 1) | ((f["vdstx"] & 1) ^ 1)
        ox = self._render(ctx, tx, f)
        oy = self._render(ctx, ty, f, {"vdsty": vdsty})
        mn = f"{tx['m']}::{ty['m']}"
        text = tx["m"] + " " + ", ".join(o.text for o in ox) + " :: " + ty["m"] + " " + ", ".join(
            o.text for o in oy)
        parts = self._finish(mn, enc, ox + oy)
        return (parts[0], parts[1], parts[2], text, parts[4])

    def _vopd3(self, enc: str, ctx: _Ctx, address: int) -> tuple:
        f = self._fields(enc, ctx.words)
        tabs = self.t.get("VOPD3", {})
        tx = tabs.get("X", {}).get(str(f["opx"]))
        if tx is None and f["opx"] % 2 == 0:
            # the X table is the Y table at twice the opcode; derive missing X entries from Y
            ty_ = tabs.get("Y", {}).get(str(f["opx"] // 2))
            if ty_ is not None:
                ren = {"vdsty": "vdstx", "srcy0": "srcx0", "vsrcy1": "vsrcx1", "srcy2": "srcx2"}
                tx = {"m": ty_["m"], "t": [[t[0], ren.get(t[1], t[1]), *t[2:]] if t[0] == "F" else t
                                           for t in ty_["t"]]}
        ty = tabs.get("Y", {}).get(str(f["opy"]))
        if tx is None or ty is None:
            raise _Unknown("VOPD3 opcode unknown")
        ox = self._render(ctx, tx, f)
        oy = self._render(ctx, ty, f)
        sx = f" bitop3:{hex_imm(f['srcx2'])}" if "bitop2" in tx["m"] and f["srcx2"] else ""
        sy = f" bitop3:{hex_imm(f['srcy2'])}" if "bitop2" in ty["m"] and f["srcy2"] else ""
        text = (tx["m"] + " " + ", ".join(o.text for o in ox) + sx + " :: " + ty["m"] + " "
                + ", ".join(o.text for o in oy) + sy)
        parts = self._finish(f"{tx['m']}::{ty['m']}", enc, ox + oy)
        return (parts[0], parts[1], parts[2], text, parts[4])

    def _dpp(self, enc: str, ctx: _Ctx, f: dict[str, int]) -> tuple:
        e = self._entry(enc, f["op"])
        mn = e["m"]
        if len(ctx.words) < 2:
            raise _Unknown("truncated DPP/SDWA")
        w1 = ctx.words[1]
        ctx.size = 8
        ctx.lit = -1  # the second dword is part of the instruction: never memoise by the first
        src0 = f["src0"]
        base = mn[:-4] if mn.endswith("_e32") else mn
        if src0 == 249:
            return special.sdwa(self, ctx, e, f, base, w1)
        if src0 in (233, 234):
            ctx.size = 8
            vals = [(w1 >> (8 + 3 * i)) & 7 for i in range(8)]
            ops = self._render(ctx, e, f, {"src0": 256 + (w1 & 0xFF)})
            suffix = " dpp8:[" + ",".join(map(str, vals)) + "]"
            if src0 == 234:
                suffix += " fi:1"
            return self._finish(base + "_dpp", enc, ops, suffix)
        ops = self._render(ctx, e, f, {"src0": 256 + (w1 & 0xFF)})
        return special.dpp16(self, enc, ops, base, w1, e)

    # ------------------------------------------------------------------ memory
    def _cpol(self, f: dict[str, int], mn: str, smem: bool = False) -> tuple[dict, str]:
        if self.gen in ("gfx10", "gfx11"):
            pol = {k: bool(f.get(k, 0)) for k in ("glc", "slc", "dlc") if k in f}
            s = "".join(f" {k}" for k in ("glc", "slc", "dlc") if pol.get(k))
            return pol, s
        th, scope = f.get("th", 0), f.get("scope", 0)
        is_atomic = "atomic" in mn
        is_store = "store" in mn
        s = special.th_text(th, scope, is_atomic, is_store) + special.scope_text(scope)
        return {"th": th, "scope": scope}, s

    def _ds(self, enc: str, ctx: _Ctx, address: int) -> tuple:
        f = self._fields(enc, ctx.words)
        e = self._entry(enc, f["op"])
        mn = e["m"]
        ops = self._render(ctx, e, f)
        suffix = ""
        if _DS2.search(mn):
            if f["offset0"]:
                suffix += f" offset0:{f['offset0']}"
            if f["offset1"]:
                suffix += f" offset1:{f['offset1']}"
        else:
            off = f["offset0"] | (f["offset1"] << 8)
            if off:
                suffix += f" offset:{off}"
        if f["gds"]:
            suffix += " gds"
        load = any(x in mn for x in ("load", "read", "_rtn"))
        store = any(x in mn for x in ("store", "write"))
        atomic = not load and not store and not any(x in mn for x in ("swizzle", "permute", "nop", "gws",
                                                                        "append", "consume", "bvh"))
        if "_rtn" in mn:
            atomic = not ("load" in mn or "read" in mn)
        mem = MemoryInfo(MemorySpace.GDS if f["gds"] else MemorySpace.LDS, is_load=load or atomic,
                         is_store=store or atomic, is_atomic=atomic, returns="_rtn" in mn)
        return self._finish(mn, enc, ops, suffix, memory=mem)

    def _flat(self, enc: str, ctx: _Ctx, address: int) -> tuple:
        f = self._fields(enc, ctx.words)
        seg = f["seg"]
        tab = self.t["FLAT"].get(str(seg), {})
        e = tab.get(str(f["op"]))
        if e is None:
            raise _Unknown(f"FLAT seg {seg} opcode {f['op']} unknown on {self.processor}")
        saddr_null = f["saddr"] == self.null or (self.gen == "gfx10" and f["saddr"] == 0x7F)
        if seg == 0:
            key = "n"
        elif seg == 1 and self.gen != "gfx10":
            sve = f["sve"]
            key = ("n" if sve else "nn") if saddr_null else ("sv" if sve else "s")
        else:
            key = "n" if saddr_null else "s"
        ret = f.get("glc") if self.gen in ("gfx10", "gfx11") else f.get("th", 0) & 1
        tm = e["v"].get("g" + key) if ret else None
        if tm is None:
            tm = e["v"].get(key)
        if tm is None:
            raise _Unknown(f"{e['m']}: addressing form {key} unknown")
        mn = e["m"]
        ops = self._render(ctx, {"t": tm}, f)
        off = f["offset"]
        bits = self._flat_off_bits
        if seg != 0 or self.gen not in ("gfx10", "gfx11"):
            if off & (1 << (bits - 1)):
                off -= 1 << bits
        suffix = f" offset:{off}" if off else ""
        pol, cp = self._cpol(f, mn)
        suffix += cp
        if self.gen == "gfx1250" and (ctx.words[1] >> 16) & 1:
            suffix += " scale_offset"
        if f.get("lds"):
            suffix += " lds"
        space = (MemorySpace.FLAT, MemorySpace.SCRATCH, MemorySpace.GLOBAL, MemorySpace.GLOBAL)[seg]
        mem = self._meminfo(space, mn, pol)
        return self._finish(mn, enc, ops, suffix, memory=mem)

    def _meminfo(self, space: MemorySpace, mn: str, pol: dict) -> MemoryInfo:
        atomic = "atomic" in mn
        if atomic:
            ret = bool(pol.get("glc")) if "glc" in pol else bool(pol.get("th", 0) & 1)
            return MemoryInfo(space, is_load=True, is_store=True, is_atomic=True, returns=ret, cache_policy=pol)
        return MemoryInfo(space, is_load="load" in mn, is_store="store" in mn, cache_policy=pol)

    def _mubuf(self, enc: str, ctx: _Ctx, address: int) -> tuple:
        f = self._fields(enc, ctx.words)
        e = self._entry(enc, f["op"])
        mn = e["m"]
        key = f"{f['offen']}{f['idxen']}"
        tm = e["v"].get(key)
        if tm is None:
            raise _Unknown(f"{mn}: addressing form unknown")
        if f.get("tfe"):
            tm = [["F", t[1], t[2] + 1, *t[3:]] if t[0] == "F" and t[1] == "vdata" else t for t in tm]
        ops = self._render(ctx, {"t": tm}, f)
        suffix = ""
        if f["idxen"]:
            suffix += " idxen"
        if f["offen"]:
            suffix += " offen"
        off = f["offset"]
        if self.gen not in ("gfx10", "gfx11") and off & 0x800000:
            off -= 1 << 24
        if off:
            suffix += f" offset:{off}"
        pol, cp = self._cpol(f, mn)
        suffix += cp
        if f.get("lds"):
            suffix += " lds"
        if f.get("tfe"):
            suffix += " tfe"
        mem = None
        if "gl0_inv" not in mn and "gl1_inv" not in mn and "wb" not in mn and "inv" not in mn:
            mem = self._meminfo(MemorySpace.BUFFER, mn, pol)
        return self._finish(mn, enc, ops, suffix, memory=mem)


def tok_is_dest(mn: str) -> bool:
    return mn.startswith(("s_movk", "s_cmovk", "s_addk", "s_mulk", "s_getreg"))


def _imm_text(cls: str, v: int) -> str:
    if cls == "dec":
        return str(v)
    if cls == "small":
        return str(v) if v <= 64 else hex_imm(v)
    if cls == "opt":
        return str(v)
    return hex_imm(v)


def _shex(v: int) -> str:
    return f"-0x{-v:x}" if v < 0 else f"0x{v:x}"
