"""GFX8/GFX9/CDNA instruction decoder (gfx8xx, gfx90x, gfx908, gfx90a, gfx94x, gfx950).

Why table driven: opcode numbers, mnemonics, operand order and register widths differ between
generations but the field layout of each encoding does not. `tables/<generation>.json` (derived by
`_derive.py` from LLVM's disassembler, see there) holds per encoding and opcode the mnemonic and an
operand template: which encoding field prints in which position, how many registers wide, and how
its inline constants print. This module knows the encodings (bit fields, modifiers, DPP/SDWA,
cache-policy bits, waitcnt) and formats operands itself.

Speed: dispatch is on the top bits of the first dword; decoded instructions are cached by their
bytes (compiled code repeats the same words a lot), so the per-address work is building the
`Instruction` record.
"""

from __future__ import annotations

import json
from functools import cache, lru_cache
from pathlib import Path

from amddbg.isa.common import (
    fast_constructor,
    hex_imm,
    inline_text,
    literal_text,
    reg_range,
    unknown_instruction,
)
from amddbg.isa.model import Instruction, MemoryInfo, MemorySpace, Operand, OperandKind

TABLES = Path(__file__).with_name("tables")

GENERATION_OF = {
    "gfx801": "gfx8", "gfx802": "gfx8", "gfx803": "gfx8", "gfx805": "gfx8", "gfx810": "gfx8",
    "gfx900": "gfx9", "gfx902": "gfx9", "gfx904": "gfx9", "gfx906": "gfx9", "gfx909": "gfx9",
    "gfx90c": "gfx9", "gfx9-generic": "gfx9",
    "gfx908": "gfx908", "gfx90a": "gfx90a",
    "gfx940": "gfx940", "gfx941": "gfx940", "gfx942": "gfx940", "gfx9-4-generic": "gfx940",
    "gfx950": "gfx950",
}


def generation_of(processor: str) -> str:
    """Table generation for a processor name ("gfx90a:xnack+" -> "gfx90a")."""
    from amddbg.errors import NotSupported

    name = processor.split(":")[0]
    gen = GENERATION_OF.get(name)
    if gen is None:
        raise NotSupported(f"GFX9-family instruction decoding for processor {processor!r}")
    return gen


class Entry:
    """One opcode of one encoding: mnemonic and operand template."""

    __slots__ = ("mnemonic", "tmpl", "raw", "lit16", "kinds", "fields", "policy", "neg", "abs", "clamp", "omod",
                 "simple",
                 "vop3_neg", "vop3_abs",
                 "dpp_neg", "dpp_abs", "sdwa_negabs", "sdwa_sext", "sdwa_clamp", "sdwa_omod")

    def __init__(self, raw: dict):
        self.raw = raw
        self.mnemonic: str = raw["m"]
        tmpl = []
        for slot in raw["t"]:
            name = slot[0]
            width = slot[1]
            kind = slot[2] if len(slot) > 2 else ""
            style = slot[3] if len(slot) > 3 and not slot[3].startswith("?") else "f32"
            if name.startswith("=s[0:1]"):
                name, width, kind = "sdst", 2, "s"
            tmpl.append((name, width, kind, style))
        # Only src0 was probed with 1/(2*pi) (the constant whose text depends on the width); 64-bit
        # src1/src2 print it like a 64-bit src0 does (packed f32 keeps single precision), else as f64.
        s0 = next((t for t in tmpl if t[0] == "src0"), None)
        for i, (n, w, k, st) in enumerate(tmpl):
            if n in ("src1", "src2") and w == 2 and st == "f32":
                st = s0[3] if s0 is not None and s0[1] == 2 else "f64"
                tmpl[i] = (n, w, k, st)
            elif n == "src0" and w == 2 and st == "f32" and not raw.get("inl"):
                tmpl[i] = (n, w, k, "f64")
        self.tmpl = tmpl
        self.fields = {t[0]: t for t in tmpl}
        # the most common VOP1/VOP2 shapes (`vdst, src0[, src1]`, 32-bit VGPR destination) take a fast path
        shape = [(t[0], t[1], t[2]) for t in tmpl]
        self.simple = shape in ([("vdst", 1, "v"), ("src0", 1, "v"), ("src1", 1, "v")],
                                [("vdst", 1, "v"), ("src0", 1, "v")])
        words: set[str] = set()
        for key in ("pg", "ps", "b15", "sc1", "glc"):
            txt = raw.get(key)
            if txt:
                words.update(w for w in txt.split(" ")[1:] if w in _POLICY_WORDS)
        self.policy = frozenset(words) if any(k in raw for k in ("pg", "ps")) else None

        def has(key: str, needle: str) -> bool:
            txt = raw.get(key)
            return isinstance(txt, str) and needle in txt.partition(" ")[2]

        self.neg = has("neg", "-") or has("mods", "-")
        self.abs = has("abs", "|") or has("mods", "|")
        # VOP3 per-source neg/abs masks (bit i = source i accepts it)
        self.vop3_neg = (self.neg | has("neg1", "-") << 1 | has("neg2", "-") << 2) if "neg1" in raw else 7
        self.vop3_abs = (self.abs | has("abs1", "|") << 1 | has("abs2", "|") << 2) if "abs1" in raw else 7
        self.clamp = has("clamp", "clamp") or has("mods", "clamp") or has("acc", "clamp")
        self.omod = has("omod", "mul:2") or has("mods", "mul:")
        self.dpp_neg = has("dppm", "-")
        self.dpp_abs = has("dppm", "|")
        # per-source DPP modifiers (v_ldexp_f16: float src0, integer src1)
        self.kinds = {}
        dppm = raw.get("dppm")
        if isinstance(dppm, str):
            toks = dppm.partition(" ")[2].split(", ")
            names = [t[0] for t in tmpl]
            for i, n in enumerate(names):
                if n in ("src0", "src1") and i < len(toks):
                    self.kinds[n] = ("-" in toks[i], "|" in toks[i])
        self.sdwa_negabs = has("sdwan", "|")
        self.sdwa_sext = has("sdwas", "sext(")
        self.sdwa_clamp = raw.get("sdwac") is None or has("sdwac", "clamp")
        self.sdwa_omod = raw.get("sdwac") is None or has("sdwac", "mul:")
        lit = raw.get("lit")
        self.lit16 = False
        if isinstance(lit, str):
            toks = lit.partition(" ")[2].split(", ")
            names = [t[0] for t in tmpl]
            if "src0" in names and names.index("src0") < len(toks):
                self.lit16 = toks[names.index("src0")].split(" ")[0] == "0x4321"


_POLICY_WORDS = {"glc", "slc", "scc", "sc0", "sc1", "nt"}


@cache
def load_tables(gen: str) -> dict[str, dict]:
    raw = json.loads((TABLES / f"{gen}.json").read_text())
    out: dict[str, dict] = {}
    for enc, ops in raw.items():
        if enc in ("HWREG", "SENDMSG"):
            out[enc] = {int(k): v for k, v in ops.items()}
            continue
        out[enc] = _LazyTable({int(k): v for k, v in ops.items()})
    return out


class _LazyTable(dict):
    """opcode -> Entry, building each Entry on first use (a decoder for one function touches few)."""

    def __init__(self, raw: dict[int, dict]):
        super().__init__()
        self.raw = raw

    def get(self, op, default=None):
        e = dict.get(self, op)
        if e is None:
            r = self.raw.get(op)
            if r is None:
                return default
            e = Entry(r)
            dict.__setitem__(self, op, e)
        return e

    def _all(self) -> None:
        for op in self.raw:
            self.get(op)

    def __iter__(self):
        return iter(self.raw)

    def __len__(self) -> int:
        return len(self.raw)

    def __contains__(self, op) -> bool:
        return op in self.raw

    def __getitem__(self, op):
        e = self.get(op)
        if e is None:
            raise KeyError(op)
        return e

    def keys(self):
        return self.raw.keys()

    def values(self):
        self._all()
        return [dict.__getitem__(self, k) for k in self.raw]

    def items(self):
        self._all()
        return [(k, dict.__getitem__(self, k)) for k in self.raw]


# ---------------------------------------------------------------- operand text


def sreg_text(code: int, width: int, gen: str) -> str | None:
    """Scalar register space (codes 0..127) as text, or None if not a register."""
    if width == 2:
        code &= ~1  # LLVM decodes 64-bit SGPR operands through the aligned register class
    elif width > 2:
        code &= ~3
    if code < 102:
        return reg_range("s", code, width)
    if gen == "gfx8":
        if 112 <= code <= 123:
            return reg_range("ttmp", code - 112, width)
        if width == 1:
            name = _SPECIAL8_1.get(code)
        else:
            name = _SPECIAL8_2.get(code)
        return name
    if 108 <= code <= 123:
        return reg_range("ttmp", code - 108, width)
    if width == 1:
        return _SPECIAL_1.get(code)
    return _SPECIAL_2.get(code)



_SPECIAL_1 = {125: "null", 102: "flat_scratch_lo", 103: "flat_scratch_hi", 104: "xnack_mask_lo", 105: "xnack_mask_hi",
              106: "vcc_lo", 107: "vcc_hi", 124: "m0", 126: "exec_lo", 127: "exec_hi"}
_SPECIAL_2 = {102: "flat_scratch", 104: "xnack_mask", 106: "vcc", 126: "exec"}
_SPECIAL8_1 = {**{k: v for k, v in _SPECIAL_1.items() if k != 125},
               108: "tba_lo", 109: "tba_hi", 110: "tma_lo", 111: "tma_hi"}
_SPECIAL8_2 = {**_SPECIAL_2, 108: "tba", 110: "tma"}
_SRC_SPECIAL = {230: "src_flat_scratch_base_lo", 231: "src_flat_scratch_base_hi", 235: "src_shared_base",
                236: "src_shared_limit", 237: "src_private_base", 238: "src_private_limit",
                239: "src_pops_exiting_wave_id", 251: "src_vccz", 252: "src_execz", 253: "src_scc",
                254: "src_lds_direct"}


_VALU_FLAGS = {"rexec": True}
_REG_CACHE: dict[tuple, Operand] = {}
_SRC_CACHE: dict[tuple, Operand] = {}
_REG_KIND = {"v": OperandKind.VGPR, "a": OperandKind.AGPR, "s": OperandKind.SGPR}


def _kind_of(text: str) -> OperandKind:
    c = text[0]
    if c == "v":
        return OperandKind.VGPR if not text.startswith("vcc") else OperandKind.SPECIAL
    if c == "s" and (text[1:2].isdigit() or text[1:2] == "["):
        return OperandKind.SGPR
    if c == "a":
        return OperandKind.AGPR
    if text.startswith("ttmp"):
        return OperandKind.TTMP
    if c.isdigit() or c == "-":
        return OperandKind.INLINE
    if text.startswith("0x"):
        return OperandKind.LITERAL
    return OperandKind.SPECIAL


class Ctx:
    """Per-instruction formatting state: operand records and flags gathered while printing."""

    __slots__ = ("gen", "operands", "literal", "lit_used", "scalar")

    def __init__(self, gen: str, literal: int | None, scalar: bool = False):
        self.scalar = scalar
        self.gen = gen
        self.operands: list[Operand] = []
        self.literal = literal
        self.lit_used = False

    def reg(self, prefix: str, first: int, count: int, dest: bool, mods: tuple[str, ...] = ()) -> str:
        key = (prefix, first, count, dest)
        op = _REG_CACHE.get(key) if not mods else None
        if op is None:
            op = _make_operand(_REG_KIND[prefix], reg_range(prefix, first, count), first, count, None, dest, mods)
            if not mods:
                _REG_CACHE[key] = op
        self.operands.append(op)
        return op.text

    def src(self, code: int, width: int, style: str = "f32", dest: bool = False, lit16: bool = False,
            vprefix: str = "v") -> str:
        """A 9-bit source operand."""
        if code >= 256:
            return self.reg(vprefix, code - 256, width, dest)
        if code != 255:
            # operands are immutable and depend only on these: share them between instructions
            key = (self.gen, code, width, style, dest)
            op = _SRC_CACHE.get(key)
            if op is None:
                n = len(self.operands)
                self._src_uncached(code, width, style, dest, lit16, vprefix)
                op = _SRC_CACHE[key] = self.operands[n]
            else:
                self.operands.append(op)
            return op.text
        return self._src_uncached(code, width, style, dest, lit16, vprefix)

    def _src_uncached(self, code: int, width: int, style: str, dest: bool, lit16: bool, vprefix: str) -> str:
        if code < 128:
            text = sreg_text(code, width, self.gen)
            if text is None:
                text = f"s{code}"  # reserved code; LLVM prints an error marker here
            kind = _kind_of(text)
            self.operands.append(_make_operand(kind, text, code if kind is OperandKind.SGPR else None, width,
                                               None, dest, ()))
            return text
        if code == 255:
            lit = self.literal or 0
            self.lit_used = True
            text = literal_text(lit, 16 if lit16 else 32)
            if lit16:
                if _inlinable(lit, style, True, 1):
                    low = lit & 0xFFFF
                    full = (low - 0x10000 if low & 0x8000 else low) & 0xFFFFFFFF if lit >> 16 == 0 else lit
                    text = f"lit({literal_text(full)})"
            elif _inlinable(lit, style, False, width, self.scalar):
                text = f"lit({text})"
            self.operands.append(Operand(OperandKind.LITERAL, text, None, 1, lit))
            return text
        text = inline_text(code, style)
        if text is not None:
            val: int | float
            try:
                val = int(text, 0)
            except ValueError:
                val = float(text)
            self.operands.append(_make_operand(OperandKind.INLINE, text, None, 1, val, False, ()))
            return text
        text = _SRC_SPECIAL.get(code, f"src_{code}")
        self.operands.append(Operand(OperandKind.SPECIAL, text, None, width, None, dest))
        return text

    def sreg(self, code: int, width: int, dest: bool) -> str:
        return self.src(code, width, dest=dest)

    def imm(self, text: str, value: int, kind: OperandKind = OperandKind.IMMEDIATE) -> str:
        self.operands.append(Operand(kind, text, None, 1, value))
        return text


_INLINE_F32_BITS = {0x3F000000, 0xBF000000, 0x3F800000, 0xBF800000, 0x40000000, 0xC0000000, 0x40800000,
                    0xC0800000, 0x3E22F983}
_INLINE_F64_HI = {0x3FE00000, 0xBFE00000, 0x3FF00000, 0xBFF00000, 0x40000000, 0xC0000000, 0x40100000, 0xC0100000}
_INLINE_F16_BITS = {0x3800, 0xB800, 0x3C00, 0xBC00, 0x4000, 0xC000, 0x4400, 0xC400, 0x3118}


def _inlinable(lit: int, style: str, lit16: bool, width: int, scalar: bool = False) -> bool:
    """Would LLVM have encoded this literal as an inline constant? Then it prints `lit(...)`."""
    if lit16:
        v = lit & 0xFFFF
        sv = v - 0x10000 if v & 0x8000 else v
        return -16 <= sv <= 64 or v in _INLINE_F16_BITS
    if width == 2:
        if scalar or style == "i64":
            return lit <= 64 or lit in _INLINE_F64_HI
        if style == "f64":
            return lit in _INLINE_F64_HI or lit == 0
        return lit <= 64
    sv = lit - 0x100000000 if lit & 0x80000000 else lit
    if -16 <= sv <= 64:
        return True
    return width == 1 and lit in _INLINE_F32_BITS


def _signed_hex(v: int) -> str:
    return f"-0x{-v:x}" if v < 0 else f"0x{v:x}"


def _neg_abs(text: str, neg: int, abs_: int) -> str:
    if abs_:
        text = f"|{text}|"
    if neg:
        text = f"-{text}"
    return text


def _fmt_float_neg(text: str, neg: bool) -> str:
    return f"-{text}" if neg else text


# ---------------------------------------------------------------- encodings

SDWA_SEL = ("BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD", "7")
SDWA_UNUSED = ("UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE", "3")
OMOD = ("", " mul:2", " mul:4", " div:2")


def dpp_ctrl_text(ctrl: int, gen: str) -> str | None:
    if ctrl <= 0xFF:
        return f"quad_perm:[{ctrl & 3},{(ctrl >> 2) & 3},{(ctrl >> 4) & 3},{(ctrl >> 6) & 3}]"
    if 0x101 <= ctrl <= 0x10F:
        return f"row_shl:{ctrl - 0x100}"
    if 0x111 <= ctrl <= 0x11F:
        return f"row_shr:{ctrl - 0x110}"
    if 0x121 <= ctrl <= 0x12F:
        return f"row_ror:{ctrl - 0x120}"
    simple = {0x130: "wave_shl:1", 0x134: "wave_rol:1", 0x138: "wave_shr:1", 0x13C: "wave_ror:1",
              0x140: "row_mirror", 0x141: "row_half_mirror", 0x142: "row_bcast:15", 0x143: "row_bcast:31"}
    if ctrl in simple:
        return simple[ctrl]
    if gen in ("gfx90a", "gfx940", "gfx950") and 0x150 <= ctrl <= 0x15F:
        return f"row_newbcast:{ctrl - 0x150}"
    return None


@lru_cache(maxsize=256)
def _with_widths_cached(e: Entry, items: tuple) -> Entry:
    new = Entry.__new__(Entry)
    for slot in Entry.__slots__:
        if hasattr(e, slot):
            setattr(new, slot, getattr(e, slot))
    widths = dict(items)
    new.tmpl = [(n, widths.get(n, w), k, st) for n, w, k, st in e.tmpl]
    new.fields = {t[0]: t for t in new.tmpl}
    return new


def _with_widths(e: Entry, widths: dict[str, int]) -> Entry:
    """`e` with some operand widths replaced (MFMA f8f6f4 source widths follow cbsz/blgp)."""
    return _with_widths_cached(e, tuple(sorted(widths.items())))


class Proto:
    """Everything about an instruction that depends only on its bytes (cached per byte string)."""

    __slots__ = ("size", "mnemonic", "encoding", "operands", "text", "flags", "memory", "waitcnt", "simm",
                 "setters")

    def __init__(self, size, mnemonic, encoding, operands, text, flags, memory=None, waitcnt=None, simm=None):
        self.size = size
        self.mnemonic = mnemonic
        self.encoding = encoding
        self.operands = operands
        self.text = text
        self.flags = flags
        self.memory = memory
        self.waitcnt = waitcnt
        self.simm = simm  # signed branch offset in dwords for direct branches
        self.setters = None  # slot setters for the address-independent fields (built on first use)


# `Instruction` and `Operand` are frozen slotted dataclasses whose generated __init__ is slow; decoding a
# 14 MB object builds millions of them. Operands are built through `fast_constructor` (same records).
# Instructions decoded from a cached prototype are `_ProtoInstruction`s: an `Instruction` subclass whose
# fields are read-only properties over the shared prototype, so creating one sets three slots instead of
# twenty. They compare, hash and print exactly like the plain record.
_make_operand = fast_constructor(Operand)


def _fields_for(p: Proto) -> tuple:
    """The address-independent field values of `p`, in `Instruction` field order after `address`/`raw`."""
    f = p.flags
    return (p.size, p.mnemonic, p.encoding, p.operands, p.text, f.get("branch", False), f.get("cond", False),
            f.get("call", False), f.get("ret", False), f.get("barrier", False), p.waitcnt is not None,
            f.get("endpgm", False), f.get("rexec", False), f.get("wexec", False), p.memory, p.waitcnt)


class _ProtoInstruction(Instruction):
    __slots__ = ("_v", "_a", "_r")
    __qualname__ = "Instruction"  # repr like the plain record

    def __new__(cls, *args, **kwargs):
        # construction by callers (e.g. dataclasses.replace) yields a plain Instruction
        return Instruction(*args, **kwargs)

    def __eq__(self, other):
        if not isinstance(other, Instruction):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in _FIELD_NAMES)

    def __hash__(self):
        return hash(tuple(getattr(self, n) for n in _FIELD_NAMES))

    address = property(lambda self: self._a)
    raw = property(lambda self: self._r)
    size = property(lambda self: self._v[0])
    mnemonic = property(lambda self: self._v[1])
    encoding = property(lambda self: self._v[2])
    operands = property(lambda self: self._v[3])
    text = property(lambda self: self._v[4])
    is_branch = property(lambda self: self._v[5])
    is_conditional = property(lambda self: self._v[6])
    is_call = property(lambda self: self._v[7])
    is_return = property(lambda self: self._v[8])
    is_barrier = property(lambda self: self._v[9])
    is_waitcnt = property(lambda self: self._v[10])
    is_endpgm = property(lambda self: self._v[11])
    reads_exec = property(lambda self: self._v[12])
    writes_exec = property(lambda self: self._v[13])
    memory = property(lambda self: self._v[14])
    waitcnt = property(lambda self: self._v[15])
    branch_target = property(lambda self: None)
    unknown_reason = property(lambda self: None)


_FIELD_NAMES = tuple(Instruction.__dataclass_fields__)
_new = object.__new__
_SET_V = _ProtoInstruction._v.__set__  # type: ignore[attr-defined]
_SET_A = _ProtoInstruction._a.__set__  # type: ignore[attr-defined]
_SET_R = _ProtoInstruction._r.__set__  # type: ignore[attr-defined]


class Decoder:
    """Decoder for one processor of the GFX8/GFX9/CDNA family."""

    def __init__(self, processor: str):
        self.processor = processor
        self.gen = generation_of(processor)
        self.t = load_tables(self.gen)
        self.is940 = self.gen in ("gfx940", "gfx950")
        self.has_acc = self.gen in ("gfx90a", "gfx940", "gfx950")
        # Which encodings use the AGPR ("acc") bit, and MUBUF's bit 55 (acc on gfx90a+, tfe before)
        self.acc_enc = {enc: any(isinstance(r.get("acc"), str) and " a" in r["acc"]
                                 for r in getattr(self.t.get(enc), "raw", {}).values())
                        for enc in ("DS", "FLAT", "GLOBAL", "SCRATCH", "MUBUF", "MTBUF")}
        self.acc_enc["MTBUF"] = self.acc_enc["MUBUF"]
        self._cache4: dict[bytes, Proto] = {}
        self._cache8: dict[bytes, Proto] = {}

    # ------------------------------------------------------------ public API

    def decode(self, data: bytes, offset: int = 0, address: int = 0) -> Instruction:
        """Decode one instruction at `offset` of `data`; never raises on bad bytes."""
        if not isinstance(data, bytes):  # memoryview / mmap / bytearray: work on a small copy
            data = bytes(data[offset : offset + 8])
            offset = 0
        if offset + 4 > len(data):
            return unknown_instruction(data, offset, address, "truncated: fewer than 4 bytes left")
        p = self._cache4.get(data[offset : offset + 4]) or self._cache8.get(data[offset : offset + 8])
        if p is None:
            return self._decode_miss(data, offset, address)
        if offset + p.size > len(data):
            return unknown_instruction(data, offset, address, "truncated: instruction runs past the end")
        return self._materialise(p, data, offset, address)

    def _decode_miss(self, data: bytes, offset: int, address: int) -> Instruction:
        """Decode bytes not in the prototype caches (`data` is bytes, at least 4 bytes at `offset`)."""
        if offset + 4 > len(data):
            return unknown_instruction(data, offset, address, "truncated: fewer than 4 bytes left")
        key4 = data[offset : offset + 4]
        key8 = data[offset : offset + 8]
        p = self._cache8.get(key8)
        if p is None:
            try:
                p = self._decode_proto(data, offset)
            except Exception as exc:  # a table gap must never take the debugger down
                p = None
                reason = f"decoder error: {exc.__class__.__name__}: {exc}"
            else:
                reason = "no opcode in the tables for this encoding"
            if p is None:
                return unknown_instruction(data, offset, address, reason)
            if isinstance(p, str):
                return unknown_instruction(data, offset, address, p)
            if p.size == 4:
                self._cache4[key4] = p
            else:
                self._cache8[key8] = p
        if offset + p.size > len(data):
            return unknown_instruction(data, offset, address, "truncated: instruction runs past the end")
        return self._materialise(p, data, offset, address)

    def decode_all(self, data: bytes, address: int = 0) -> list[Instruction]:
        """Decode `data` (loaded at `address`) linearly from its start to its end."""
        if not isinstance(data, bytes):
            data = bytes(data)
        out: list[Instruction] = []
        append = out.append
        c4, c8 = self._cache4, self._cache8
        mat = self._materialise
        n = len(data)
        off = 0
        while off < n:
            p = c4.get(data[off : off + 4])
            if p is None:
                p = c8.get(data[off : off + 8])
                if p is None or off + p.size > n:
                    ins = self._decode_miss(data, off, address + off)
                    append(ins)
                    off += ins.size or 4
                    continue
            append(mat(p, data, off, address + off))
            off += p.size
        return out

    def iter_text(self, data: bytes, address: int = 0):
        """Yield (address, size, text) without building `Instruction` records (fast listing path)."""
        if not isinstance(data, bytes):
            data = bytes(data)
        c4, c8 = self._cache4, self._cache8
        n = len(data)
        off = 0
        while off < n:
            p = c4.get(data[off : off + 4])
            if p is None:
                p = c8.get(data[off : off + 8])
                if p is None or off + p.size > n:
                    ins = self._decode_miss(data, off, address + off)
                    yield address + off, ins.size or 4, ins.text
                    off += ins.size or 4
                    continue
            yield address + off, p.size, p.text
            off += p.size

    # ------------------------------------------------------------ internals

    def _materialise(self, p: Proto, data, offset: int, address: int) -> Instruction:
        v = p.setters
        if v is None:
            v = p.setters = _fields_for(p)
        if p.simm is not None:
            return self._materialise_branch(p, data, offset, address)
        obj = _new(_ProtoInstruction)
        _SET_V(obj, v)
        _SET_A(obj, address)
        _SET_R(obj, data[offset : offset + v[0]])
        return obj

    def _materialise_branch(self, p: Proto, data, offset: int, address: int) -> Instruction:
        f = p.flags
        target = address + 4 + p.simm * 4
        ops = tuple(
            Operand(OperandKind.LABEL, o.text, None, 1, target) if o.kind is OperandKind.LABEL else o
            for o in p.operands
        )
        return Instruction(
            address=address,
            size=p.size,
            raw=bytes(data[offset : offset + p.size]),
            mnemonic=p.mnemonic,
            encoding=p.encoding,
            operands=ops,
            text=p.text,
            is_branch=f.get("branch", False),
            is_conditional=f.get("cond", False),
            is_call=f.get("call", False),
            is_return=f.get("ret", False),
            is_barrier=f.get("barrier", False),
            is_waitcnt=p.waitcnt is not None,
            is_endpgm=f.get("endpgm", False),
            reads_exec=f.get("rexec", False),
            writes_exec=f.get("wexec", False),
            memory=p.memory,
            waitcnt=p.waitcnt,
            branch_target=target,
        )

    def _decode_proto(self, data, offset: int) -> Proto | str | None:
        w0 = int.from_bytes(data[offset : offset + 4], "little")
        w1 = int.from_bytes(data[offset + 4 : offset + 8], "little") if offset + 8 <= len(data) else None
        top = w0 >> 26
        if w0 >> 31 == 0:
            sub = w0 >> 25
            if sub == 0x3F:
                return self._vop1(w0, w1)
            if sub == 0x3E:
                return self._vopc(w0, w1)
            return self._vop2(w0, w1)
        if w0 >> 30 == 2:
            hi9 = w0 >> 23
            if hi9 == 0x17D:
                return self._sop1(w0, w1)
            if hi9 == 0x17E:
                return self._sopc(w0, w1)
            if hi9 == 0x17F:
                return self._sopp(w0)
            if w0 >> 28 == 0xB:
                return self._sopk(w0, w1)
            return self._sop2(w0, w1)
        if w1 is None:
            return "truncated: 64-bit encoding at end of data"
        if top == 0x30:
            return self._smem(w0, w1)
        if top == 0x34:
            if w0 >> 23 == 0x1A7:
                return self._vop3p(w0, w1)
            return self._vop3(w0, w1)
        if top == 0x36:
            return self._ds(w0, w1)
        if top == 0x37:
            return self._flat(w0, w1)
        if top == 0x38:
            return self._mubuf(w0, w1)
        if top == 0x3A:
            return self._mtbuf(w0, w1)
        if top == 0x3C and "MIMG" in self.t:
            return self._mimg(w0, w1)
        return f"encoding {top:#x} (MIMG/EXP/VINTRP or reserved) not decoded for GFX9 family"

    def _finish(self, size, mnem, enc, ctx, ops_text, mods_text="", flags=None, memory=None, waitcnt=None,
                simm=None) -> Proto:
        text = mnem
        if ops_text:
            text += " " + ", ".join(ops_text)
        if mods_text:
            text += mods_text
        fl = flags if flags is not None else {}
        return Proto(size, mnem, enc, tuple(ctx.operands), text, fl, memory, waitcnt, simm)

    # ---- scalar ALU

    def _salu_flags(self, mnem: str, ctx: Ctx, dest_text: str | None) -> dict:
        fl = {}
        if dest_text in ("exec", "exec_lo", "exec_hi") or "saveexec" in mnem or mnem.startswith("s_andn2_wrexec"):
            fl["wexec"] = True
        if "saveexec" in mnem or any(o.text.startswith("exec") for o in ctx.operands if not o.is_dest):
            fl["rexec"] = True
        if mnem in ("s_setpc_b64",):
            # the AMDGPU calling convention returns through s[30:31]; other pairs are tail calls or
            # indirect jumps (still branches, targets unknown statically)
            fl["branch"] = True
            fl["ret"] = any(o.text == "s[30:31]" for o in ctx.operands)
        elif mnem in ("s_swappc_b64",):
            fl["branch"] = True
            fl["call"] = True
        return fl

    def _sop2(self, w0, w1):
        e = self.t["SOP2"].get((w0 >> 23) & 0x7F)
        if e is None:
            return None
        ctx = Ctx(self.gen, w1, True)
        vals = {"sdst": (w0 >> 16) & 0x7F, "src0": w0 & 0xFF, "src1": (w0 >> 8) & 0xFF}
        out, dest = self._fill(e, ctx, vals, scalar=True)
        size = 8 if ctx.lit_used else 4
        if ctx.lit_used and w1 is None:
            return "truncated: literal past end of data"
        return self._finish(size, e.mnemonic, "SOP2", ctx, out, flags=self._salu_flags(e.mnemonic, ctx, dest))

    def _sop1(self, w0, w1):
        e = self.t["SOP1"].get((w0 >> 8) & 0xFF)
        if e is None:
            return None
        ctx = Ctx(self.gen, w1, True)
        vals = {"sdst": (w0 >> 16) & 0x7F, "src0": w0 & 0xFF}
        out, dest = self._fill(e, ctx, vals, scalar=True)
        if ctx.lit_used and w1 is None:
            return "truncated: literal past end of data"
        return self._finish(8 if ctx.lit_used else 4, e.mnemonic, "SOP1", ctx, out,
                            flags=self._salu_flags(e.mnemonic, ctx, dest))

    def _sopc(self, w0, w1):
        e = self.t["SOPC"].get((w0 >> 16) & 0x7F)
        if e is None:
            return None
        ctx = Ctx(self.gen, w1, True)
        mnem = e.mnemonic
        if mnem == "s_set_gpr_idx_on":
            src0 = ctx.src(w0 & 0xFF, 1)
            mode = (w0 >> 8) & 0xFF
            out = [src0, self._gpr_idx(ctx, mode)]
        else:
            vals = {"src0": w0 & 0xFF, "src1": (w0 >> 8) & 0xFF}
            out, _ = self._fill(e, ctx, vals, scalar=True)
        if ctx.lit_used and w1 is None:
            return "truncated: literal past end of data"
        return self._finish(8 if ctx.lit_used else 4, mnem, "SOPC", ctx, out, flags=self._salu_flags(mnem, ctx, None))

    def _gpr_idx(self, ctx: Ctx, mode: int) -> str:
        if mode > 15:
            return ctx.imm(hex_imm(mode), mode)
        names = [n for i, n in enumerate(("SRC0", "SRC1", "SRC2", "DST")) if mode >> i & 1]
        text = "gpr_idx(" + ",".join(names) + ")"
        return ctx.imm(text, mode)

    def _sopk(self, w0, w1):
        op = (w0 >> 23) & 0x1F
        e = self.t["SOPK"].get(op)
        if e is None:
            return None
        ctx = Ctx(self.gen, w1)
        mnem = e.mnemonic
        simm = w0 & 0xFFFF
        sdst = (w0 >> 16) & 0x7F
        out = []
        size = 4
        flags = {}
        simm_branch = None
        if mnem in ("s_getreg_b32", "s_setreg_b32", "s_setreg_imm32_b32"):
            hw = self._hwreg(ctx, simm)
            if mnem == "s_getreg_b32":
                out = [ctx.sreg(sdst, 1, True), hw]
            elif mnem == "s_setreg_b32":
                out = [hw, ctx.sreg(sdst, 1, False)]
            else:
                if w1 is None:
                    return "truncated: literal past end of data"
                sv = w1 - 0x100000000 if w1 & 0x80000000 else w1
                out = [hw, ctx.imm(str(sv) if -16 <= sv <= 64 else hex_imm(w1), w1, OperandKind.LITERAL)]
                size = 8
        else:
            for name, width, _kind, _style in e.tmpl:
                if name == "sdst":
                    out.append(ctx.sreg(sdst, width, mnem.startswith(("s_movk", "s_cmovk", "s_addk", "s_mulk",
                                                                        "s_call", "s_getreg"))))
                elif name == "simm16":
                    out.append(ctx.imm(hex_imm(simm), simm))
                elif name == "simm16d":
                    s = simm - 0x10000 if simm & 0x8000 else simm
                    out.append(ctx.imm(str(simm), s, OperandKind.LABEL))
                    simm_branch = s
                elif name.startswith("="):
                    out.append(name[1:])
            if mnem.startswith("s_call"):
                flags = {"branch": True, "call": True}
            elif mnem.startswith("s_cbranch"):
                flags = {"branch": True, "cond": True}
        return self._finish(size, mnem, "SOPK", ctx, out, flags=flags, simm=simm_branch)

    def _hwreg(self, ctx: Ctx, simm: int) -> str:
        rid = simm & 0x3F
        off = (simm >> 6) & 0x1F
        size = ((simm >> 11) & 0x1F) + 1
        name = self.t["HWREG"].get(rid, str(rid))
        if off == 0 and size == 32:
            text = f"hwreg({name})"
        else:
            text = f"hwreg({name}, {off}, {size})"
        return ctx.imm(text, simm)

    def _sopp(self, w0):
        op = (w0 >> 16) & 0x7F
        e = self.t["SOPP"].get(op)
        if e is None:
            return None
        ctx = Ctx(self.gen, None)
        mnem = e.mnemonic
        simm = w0 & 0xFFFF
        flags: dict = {}
        waitcnt = None
        simm_branch = None
        out: list[str] = []
        if mnem == "s_waitcnt":
            waitcnt, txt = self._waitcnt(simm)
            out = [ctx.imm(txt, simm)]
        elif mnem in ("s_sendmsg", "s_sendmsghalt"):
            out = [ctx.imm(self._sendmsg(simm), simm)]
        elif mnem == "s_set_gpr_idx_mode":
            out = [self._gpr_idx(ctx, simm)]
        elif mnem in ("s_endpgm",):
            flags["endpgm"] = True
            if simm:
                out = [ctx.imm(str(simm), simm)]
        elif mnem.startswith(("s_branch", "s_cbranch")):
            s = simm - 0x10000 if simm & 0x8000 else simm
            out = [ctx.imm(str(simm), s, OperandKind.LABEL)]
            simm_branch = s
            flags["branch"] = True
            if mnem != "s_branch":
                flags["cond"] = True
                if "exec" in mnem:
                    flags["rexec"] = True
        elif e.tmpl:
            out = [ctx.imm(str(simm) if simm <= 64 else hex_imm(simm), simm)]
        if mnem == "s_barrier":
            flags["barrier"] = True
        return self._finish(4, mnem, "SOPP", ctx, out, flags=flags, waitcnt=waitcnt, simm=simm_branch)

    def _waitcnt(self, simm: int) -> tuple[dict, str]:
        if self.gen == "gfx8":
            vm, vmmax = simm & 0xF, 0xF
        else:
            vm, vmmax = (simm & 0xF) | ((simm >> 14) & 3) << 4, 0x3F
        exp = (simm >> 4) & 7
        lgkm = (simm >> 8) & 0xF
        parts = []
        if vm != vmmax:
            parts.append(f"vmcnt({vm})")
        if exp != 7:
            parts.append(f"expcnt({exp})")
        if lgkm != 0xF:
            parts.append(f"lgkmcnt({lgkm})")
        if not parts:
            parts = [f"vmcnt({vm})", f"expcnt({exp})", f"lgkmcnt({lgkm})"]
        return {"vmcnt": vm, "expcnt": exp, "lgkmcnt": lgkm}, " ".join(parts)

    def _sendmsg(self, simm: int) -> str:
        txt = self.t["SENDMSG"].get(simm & 0x3FF)
        if txt is not None and (simm < 0x400 or "MSG_" in txt):
            return txt
        return str(simm)

    def _smem_offset(self, w1: int) -> int:
        """SMEM immediate offset: 20 bits unsigned on GFX8, 21 bits signed on GFX9+."""
        if self.gen == "gfx8":
            return w1 & 0xFFFFF
        off = w1 & 0x1FFFFF
        return off - 0x200000 if off & 0x100000 else off

    def _smem(self, w0, w1):
        op = (w0 >> 18) & 0xFF
        e = self.t["SMEM"].get(op)
        if e is None:
            return None
        ctx = Ctx(self.gen, None)
        mnem = e.mnemonic
        imm = (w0 >> 17) & 1
        soe = (w0 >> 14) & 1
        glc = (w0 >> 16) & 1
        sbase = (w0 & 0x3F) << 1
        sdata = (w0 >> 6) & 0x7F
        is_load = "load" in mnem
        is_store = "store" in mnem
        is_atomic = "atomic" in mnem
        out = []
        if mnem.startswith("s_atc_probe"):
            out.append(ctx.imm(str(sdata), sdata))
        for name, width, _k, _s in e.tmpl:
            if name == "sdst":  # s_memtime/s_memrealtime: the probe's zeroed sdata printed as s[0:1]
                name = "sdata"
            if name == "sdata":
                out.append(ctx.sreg(sdata, width, is_load or (is_atomic and glc) or not (is_store or is_atomic)))
            elif name == "sbase":
                out.append(ctx.sreg(sbase, width, False))
            elif name == "offset":
                if imm:
                    off = self._smem_offset(w1)
                    if soe:
                        out.append(ctx.sreg((w1 >> 25) & 0x7F, 1, False))
                    else:
                        out.append(ctx.imm(_signed_hex(off), off, OperandKind.OFFSET))
                else:
                    # register offset: SOFFSET field when soe is set, else the low offset bits
                    out.append(ctx.sreg((w1 >> 25) & 0x7F if soe else w1 & 0x7F, 1, False))
            elif name.startswith("=") and not name[1:].isdigit():
                out.append(name[1:])
        mods = ""
        if imm and soe and "offset" in e.fields:
            off = self._smem_offset(w1)
            mods += f" offset:{_signed_hex(off)}"
            ctx.imm(_signed_hex(off), off, OperandKind.OFFSET)
        if glc:
            mods += " glc"
        memory = None
        if is_load or is_store or is_atomic:
            space = MemorySpace.SCALAR
            memory = MemoryInfo(space, is_load, is_store, is_atomic, bool(is_atomic and glc), {"glc": bool(glc)})
        return self._finish(8, mnem, "SMEM", ctx, out, mods, memory=memory)

    # ---- vector ALU

    def _fill(self, e: Entry, ctx: Ctx, vals: dict, scalar: bool = False, mods: dict | None = None,
              kinds: dict | None = None):
        """Format template slots from field values; returns (operand texts, destination text)."""
        out = []
        dest = None
        for name, width, kind, style in e.tmpl:
            if name.startswith("="):
                out.append(name[1:])
                continue
            v = vals.get(name)
            if v is None:
                if name == "lit":
                    ctx.lit_used = True
                    lit = ctx.literal or 0
                    txt = literal_text(lit, 32)
                    ctx.operands.append(Operand(OperandKind.LITERAL, txt, None, 1, lit))
                    out.append(txt)
                continue
            if kinds and name in kinds:
                kind = kinds[name]
            is_dest = name in ("sdst", "vdst")
            if scalar:
                txt = ctx.src(v, width, "f64" if width == 2 else style, is_dest, e.lit16)
            elif name in ("vdst",):
                if kind == "s":
                    txt = ctx.src(v, width, dest=True)
                else:
                    txt = ctx.reg(kind or "v", v, width, True)
            elif name == "sdst":
                txt = ctx.src(v, width, dest=True)
            elif name == "src1v":
                txt = ctx.reg("v", v, width, False)
            else:
                st = style
                if width == 2 and v == 255 and "f64" not in e.mnemonic:
                    st = "i64"
                txt = ctx.src(v, width, st, False, e.lit16, "a" if kind == "a" else "v")
            if mods and name in mods:
                neg, ab, ext = mods[name]
                if ext:
                    txt = f"sext({txt})"
                if neg and not ab and ctx.operands and ctx.operands[-1].kind in (OperandKind.INLINE,
                                                                                  OperandKind.LITERAL):
                    txt = f"neg({txt})"
                else:
                    txt = _neg_abs(txt, neg, ab)
            if is_dest and dest is None:
                dest = txt
            out.append(txt)
        return out, dest

    def _valu_flags(self, mnem: str, dest: str | None) -> dict:
        fl = {"rexec": True}
        if mnem.startswith("v_cmpx") or dest in ("exec", "exec_lo", "exec_hi"):
            fl["wexec"] = True
        return fl

    def _vop2(self, w0, w1):
        op = (w0 >> 25) & 0x3F
        e = self.t["VOP2"].get(op)
        if e is None:
            return None
        src0 = w0 & 0x1FF
        if e.simple and src0 < 0xF9:
            return self._vop_simple("VOP2", e, w0, src0, 256 + ((w0 >> 9) & 0xFF))
        vals = {"vdst": (w0 >> 17) & 0xFF, "src0": src0, "src1": 256 + ((w0 >> 9) & 0xFF)}
        return self._vop_general("VOP2", e, w0, w1, vals)

    def _vop_general(self, enc: str, e: Entry, w0, w1, vals: dict):
        """VOP1/VOP2/VOPC in full generality: SDWA (src0 0xF9), DPP (0xFA), or a literal constant."""
        src0 = vals["src0"]
        if src0 == 0xF9:
            return self._sdwa(enc, e, w0, w1, vals)
        if src0 == 0xFA:
            return self._dpp(enc, e, w0, w1, vals)
        ctx = Ctx(self.gen, w1)
        out, dest = self._fill(e, ctx, vals)
        size = 8 if ctx.lit_used else 4
        if size == 8 and w1 is None:
            return "truncated: literal past end of data"
        return self._finish(size, e.mnemonic, enc, ctx, out, flags=self._valu_flags(e.mnemonic, dest))

    def _vop_simple(self, enc: str, e: Entry, w0: int, src0: int, src1: int | None) -> Proto:
        """VOP1/VOP2 `vdst, src0[, src1]` without literal, SDWA or DPP (most VALU code)."""
        ctx = Ctx(self.gen, None)
        d = ctx.reg("v", (w0 >> 17) & 0xFF, 1, True)
        a = ctx.src(src0, 1, e.tmpl[1][3], False, e.lit16)
        if src1 is None:
            text = f"{e.mnemonic} {d}, {a}"
        else:
            text = f"{e.mnemonic} {d}, {a}, {ctx.reg('v', src1 - 256, 1, False)}"
        return Proto(4, e.mnemonic, enc, tuple(ctx.operands), text, _VALU_FLAGS)

    def _vop1(self, w0, w1):
        op = (w0 >> 9) & 0xFF
        e = self.t["VOP1"].get(op)
        if e is None:
            return None
        src0 = w0 & 0x1FF
        if e.simple and src0 < 0xF9:
            return self._vop_simple("VOP1", e, w0, src0, None)
        vals = {"vdst": (w0 >> 17) & 0xFF, "src0": src0}
        return self._vop_general("VOP1", e, w0, w1, vals)

    def _vopc(self, w0, w1):
        op = (w0 >> 17) & 0xFF
        e = self.t["VOPC"].get(op)
        if e is None:
            return None
        src0 = w0 & 0x1FF
        vals = {"src0": src0, "src1": 256 + ((w0 >> 9) & 0xFF)}
        return self._vop_general("VOPC", e, w0, w1, vals)

    @staticmethod
    def _base(mnem: str, suffix: str) -> str:
        """`v_add_f32_e32` -> `v_add_f32` + suffix; opcodes printed without _e32 (v_nop) stay bare."""
        for suf in ("_e32", "_e64"):
            if mnem.endswith(suf):
                return mnem[: -len(suf)] + suffix
        return mnem

    def _sdwa(self, enc, e: Entry, w0, w1, vals):
        if w1 is None:
            return "truncated: SDWA word past end of data"
        sdwa_text = e.raw.get("sdwa")
        if not sdwa_text:
            return f"{enc} opcode {e.mnemonic} has no SDWA form"
        mnem = self._base(e.mnemonic, "_sdwa" if enc != "VOPC" or self.gen != "gfx8" else "")
        ctx = Ctx(self.gen, None)
        vals = dict(vals)
        gfx8 = self.gen == "gfx8"  # GFX8 SDWA: VGPR sources only, no omod, VOPC writes vcc
        vals["src0"] = (w1 & 0xFF) + (0 if (w1 >> 23) & 1 and not gfx8 else 256)
        if enc != "VOP1" and (w1 >> 31) & 1 and not gfx8:
            vals["src1"] = vals["src1"] - 256
        na = 1 if e.sdwa_negabs else 0
        sx = 1 if e.sdwa_sext else 0
        # src1 has its own probes where available (v_ldexp_f16: float src0, integer src1)
        r1n, r1s = e.raw.get("sdwan1", 0), e.raw.get("sdwas1", 0)
        na1 = na if r1n == 0 else int(isinstance(r1n, str) and "|" in r1n.partition(" ")[2])
        sx1 = sx if r1s == 0 else int(isinstance(r1s, str) and "sext(" in r1s)
        mods = {"src0": ((w1 >> 20) & na, (w1 >> 21) & na, (w1 >> 19) & sx),
                "src1": ((w1 >> 28) & na1, (w1 >> 29) & na1, (w1 >> 27) & sx1)}
        tmpl_entry = e
        if enc == "VOPC":
            sd = (w1 >> 15) & 1 if not gfx8 else 0
            sdst = (w1 >> 8) & 0x7F
            # VOPC SDWA on GFX9 writes an SGPR pair (or vcc when sd=0)
            dst_txt = ctx.src(sdst, 2, dest=True) if sd else ctx.src(106, 2, dest=True)
            out, _ = self._fill(tmpl_entry, ctx, vals, mods=mods)
            if out and out[0] == "vcc":
                out = out[1:]
            out = [dst_txt] + out
            dest = dst_txt
        else:
            out, dest = self._fill(tmpl_entry, ctx, vals, mods=mods)
        m = ""
        if enc != "VOPC":
            if (w1 >> 13) & 1 and e.sdwa_clamp:
                m += " clamp"
            omod = (w1 >> 14) & 3 if not gfx8 else 0
            if omod and e.sdwa_omod:
                m += OMOD[omod]
        elif self.gen == "gfx8" and (w1 >> 13) & 1:
            m += " clamp"
        if enc != "VOPC" and "dst_sel:" in sdwa_text:
            m += f" dst_sel:{SDWA_SEL[(w1 >> 8) & 7]} dst_unused:{SDWA_UNUSED[(w1 >> 11) & 3]}"
        m += f" src0_sel:{SDWA_SEL[(w1 >> 16) & 7]}"
        if enc != "VOP1":
            m += f" src1_sel:{SDWA_SEL[(w1 >> 24) & 7]}"
        return self._finish(8, mnem, enc + "_SDWA", ctx, out, m, flags=self._valu_flags(mnem, dest))

    def _dpp(self, enc, e: Entry, w0, w1, vals):
        if w1 is None:
            return "truncated: DPP word past end of data"
        if not e.raw.get("dpp"):
            return f"{enc} opcode {e.mnemonic} has no DPP form"
        ctrl = (w1 >> 8) & 0x1FF
        ctrl_txt = dpp_ctrl_text(ctrl, self.gen)
        if ctrl_txt is None:
            return f"reserved DPP control {ctrl:#x}"
        mnem = self._base(e.mnemonic, "_dpp")
        ctx = Ctx(self.gen, None)
        vals = dict(vals)
        vals["src0"] = 256 + (w1 & 0xFF)
        n0, a0 = e.kinds.get("src0", (e.dpp_neg, e.dpp_abs))
        n1, a1 = e.kinds.get("src1", (e.dpp_neg, e.dpp_abs))
        mods = {"src0": ((w1 >> 20) & n0, (w1 >> 21) & a0, 0), "src1": ((w1 >> 22) & n1, (w1 >> 23) & a1, 0)}
        out, dest = self._fill(e, ctx, vals, mods=mods)
        m = f" {ctrl_txt} row_mask:{hex_imm((w1 >> 28) & 0xF)} bank_mask:{hex_imm((w1 >> 24) & 0xF)}"
        if (w1 >> 19) & 1:
            m += " bound_ctrl:1"
        return self._finish(8, mnem, enc + "_DPP", ctx, out, m, flags=self._valu_flags(mnem, dest))

    def _vop3(self, w0, w1):
        op = (w0 >> 16) & 0x3FF
        e = self.t["VOP3"].get(op)
        if e is None:
            return None
        mnem = e.mnemonic
        ctx = Ctx(self.gen, None)
        vals = {"vdst": w0 & 0xFF, "src0": w1 & 0x1FF, "src1": (w1 >> 9) & 0x1FF, "src2": (w1 >> 18) & 0x1FF}
        if mnem.startswith("v_bitop3"):
            return self._bitop3(e, ctx, w0, w1, vals)
        vop3b = "sdst" in e.fields
        neg = (w1 >> 29) & e.vop3_neg
        if vop3b:
            vals["sdst"] = (w0 >> 8) & 0x7F
            abs_ = 0
        else:
            abs_ = (w0 >> 8) & e.vop3_abs
        mods = {"src0": (neg & 1, abs_ & 1, 0), "src1": (neg >> 1 & 1, abs_ >> 1 & 1, 0),
                "src2": (neg >> 2 & 1, abs_ >> 2 & 1, 0)}
        out, dest = self._fill(e, ctx, vals, mods=mods)
        m = ""
        opsel = (w0 >> 11) & 0xF
        if opsel and not vop3b and e.raw.get("opsel"):
            nsrc = sum(1 for t in e.tmpl if t[0] in ("src0", "src1", "src2"))
            if "op_sel_hi" in (e.raw.get("opsel") or ""):
                bits = [opsel >> i & 1 for i in range(nsrc)]
                m += " op_sel:[" + ",".join(map(str, bits)) + "]"
            else:
                bits = [opsel >> i & 1 for i in range(nsrc)] + [opsel >> 3 & 1]
                m += " op_sel:[" + ",".join(map(str, bits)) + "]"
        if (w0 >> 15) & 1 and e.clamp:
            m += " clamp"
        omod = (w1 >> 27) & 3
        if omod and e.omod:
            m += OMOD[omod]
        if mnem.startswith("v_mfma"):
            return f"VOP3-encoded MFMA {mnem} not supported"
        return self._finish(8, mnem, "VOP3", ctx, out, m, flags=self._valu_flags(mnem, dest))

    def _bitop3(self, e: Entry, ctx: Ctx, w0, w1, vals):
        """gfx950 v_bitop3_*: the 8-bit truth table lives in the neg/abs/omod fields."""
        out, dest = self._fill(e, ctx, vals)
        imm = (w1 >> 29) | ((w0 >> 8) & 7) << 3 | ((w1 >> 27) & 3) << 6
        m = ""
        if imm:
            m += f" bitop3:{imm if imm <= 10 else hex_imm(imm)}"
            ctx.imm(str(imm), imm)
        opsel = (w0 >> 11) & 0xF
        if opsel and e.raw.get("opsel"):
            m += " op_sel:[" + ",".join(str(opsel >> i & 1) for i in range(4)) + "]"
        return self._finish(8, e.mnemonic, "VOP3", ctx, out, m, flags=self._valu_flags(e.mnemonic, dest))

    def _vop3p(self, w0, w1):
        op = (w0 >> 16) & 0x7F
        e = self.t["VOP3P"].get(op)
        if e is None:
            return None
        mnem = e.mnemonic
        ctx = Ctx(self.gen, None)
        vals = {"vdst": w0 & 0xFF, "src0": w1 & 0x1FF, "src1": (w1 >> 9) & 0x1FF, "src2": (w1 >> 18) & 0x1FF}
        if mnem.startswith(("v_mfma", "v_smfmac")):
            return self._mai(e, ctx, w0, w1, vals)
        nsrc = sum(1 for t in e.tmpl if t[0] in ("src0", "src1", "src2"))
        neg = w1 >> 29
        neg_hi = (w0 >> 8) & 7
        mods = None
        is_mix = "_mix" in mnem
        if is_mix:
            mods = {n: (neg >> i & 1, neg_hi >> i & 1, 0) for i, n in enumerate(("src0", "src1", "src2"))}
            neg = neg_hi = 0
        out, dest = self._fill(e, ctx, vals, mods=mods)
        m = ""
        opsel = (w0 >> 11) & 7
        opsel_hi = ((w1 >> 27) & 3) | ((w0 >> 14) & 1) << 2
        dflt_hi = (1 << nsrc) - 1
        ops_probe, negs_probe = e.raw.get("ops"), e.raw.get("negs")
        opsh = e.raw.get("opsh")
        if not is_mix and ((isinstance(ops_probe, str) and "op_sel" not in ops_probe) or (
                isinstance(opsh, str) and "op_sel_hi" not in opsh) or mnem.startswith(("v_dot4_", "v_dot8_"))):
            opsel, opsel_hi = 0, dflt_hi  # accepted but not printed: no op_sel operands (integer dots)
        if isinstance(negs_probe, str) and "neg_lo" not in negs_probe:
            neg = neg_hi = 0
        if opsel & dflt_hi:
            m += " op_sel:[" + ",".join(str(opsel >> i & 1) for i in range(nsrc)) + "]"
        if is_mix:
            if opsel_hi & dflt_hi:
                m += " op_sel_hi:[" + ",".join(str(opsel_hi >> i & 1) for i in range(nsrc)) + "]"
        elif (opsel_hi & dflt_hi) != dflt_hi:
            m += " op_sel_hi:[" + ",".join(str(opsel_hi >> i & 1) for i in range(nsrc)) + "]"
        if neg & dflt_hi:
            m += " neg_lo:[" + ",".join(str(neg >> i & 1) for i in range(nsrc)) + "]"
        if neg_hi & dflt_hi:
            m += " neg_hi:[" + ",".join(str(neg_hi >> i & 1) for i in range(nsrc)) + "]"
        if (w0 >> 15) & 1:
            m += " clamp"
        fl = self._valu_flags(mnem, dest)
        return self._finish(8, mnem, "VOP3P", ctx, out, m, flags=fl)

    def _mai(self, e: Entry, ctx: Ctx, w0, w1, vals):
        mnem = e.mnemonic
        acc_cd = (w0 >> 15) & 1
        if self.gen == "gfx908":
            acc_cd = 1
        if "f8f6f4" in mnem:
            fmt_regs = {0: 8, 1: 8, 2: 6, 3: 6, 4: 4}
            e = _with_widths(e, {"src0": fmt_regs.get((w0 >> 8) & 7, 8), "src1": fmt_regs.get((w1 >> 29) & 7, 8)})
        kinds = {"vdst": "a" if acc_cd else "v", "src2": "a" if acc_cd and not mnem.startswith("v_smfmac") else "v",
                 "src0": "a" if (w1 >> 27) & 1 else "v", "src1": "a" if (w1 >> 28) & 1 else "v"}
        out, dest = self._fill(e, ctx, vals, kinds=kinds)
        m = ""
        cbsz = (w0 >> 8) & 7
        abid = (w0 >> 11) & 0xF
        blgp = (w1 >> 29) & 7
        if cbsz:
            m += f" cbsz:{cbsz}"
        if abid:
            m += f" abid:{abid}"
        if blgp:
            if self.is940 and mnem.endswith("f64"):
                m += " neg:[" + ",".join(str(blgp >> i & 1) for i in range(3)) + "]"
            else:
                m += f" blgp:{blgp}"
        return self._finish(8, mnem, "VOP3P_MAI", ctx, out, m, flags={"rexec": True})

    # ---- vector memory

    def _policy(self, glc: int, slc: int, b3: int, ctx_mods: list[str], allowed=None) -> dict:
        pol = self._policy_all(glc, slc, b3, ctx_mods)
        if allowed is not None:
            ctx_mods[:] = [w for w in ctx_mods if w in allowed]
        return pol

    def _policy_all(self, glc: int, slc: int, b3: int, ctx_mods: list[str]) -> dict:
        if self.is940:
            pol = {"sc0": bool(glc), "nt": bool(slc), "sc1": bool(b3)}
            if glc:
                ctx_mods.append("sc0")
            if slc:
                ctx_mods.append("nt")
            if b3:
                ctx_mods.append("sc1")
        else:
            pol = {"glc": bool(glc), "slc": bool(slc)}
            if glc:
                ctx_mods.append("glc")
            if slc:
                ctx_mods.append("slc")
            if self.gen == "gfx90a":
                pol["scc"] = bool(b3)
                if b3:
                    ctx_mods.append("scc")
        return pol

    def _ds(self, w0, w1):
        op = (w0 >> 17) & 0xFF
        e = self.t["DS"].get(op)
        if e is None:
            return None
        mnem = e.mnemonic
        ctx = Ctx(self.gen, None)
        acc = (w0 >> 25) & 1 if self.acc_enc["DS"] else 0
        k = "a" if acc else "v"
        vals = {"addr": w1 & 0xFF, "data0": (w1 >> 8) & 0xFF, "data1": (w1 >> 16) & 0xFF, "vdst": (w1 >> 24) & 0xFF}
        out = []
        for name, width, _kind, _s in e.tmpl:
            if name == "=v0":  # probe fell back to data0 = 0 (ds_write_addtid_b32)
                name, width = "data0", 1
            if name.startswith("="):
                out.append(name[1:])
                continue
            if name == "addr":
                out.append(ctx.reg("v", vals[name], width, False))
            else:
                txt = ctx.reg(k, vals[name], width, name == "vdst")
                out.append(txt)
        o0 = w0 & 0xFF
        o1 = (w0 >> 8) & 0xFF
        m = ""
        mods = e.raw.get("mods") or []
        if any(x.startswith("offset0") for x in mods):
            if o0:
                m += f" offset0:{o0}"
            if o1:
                m += f" offset1:{o1}"
        elif any(x.startswith("offset") for x in mods):
            off = o0 | o1 << 8
            if mnem == "ds_swizzle_b32":
                sw = _swizzle(off, self.gen)
                m += f" offset:{sw}"
                ctx.imm(sw, off, OperandKind.IMMEDIATE)
            elif off:
                m += f" offset:{off}"
                ctx.imm(str(off), off, OperandKind.OFFSET)
        gds = (w0 >> 16) & 1
        if gds:
            m += " gds"
        is_load = "read" in mnem or "load" in mnem
        is_store = "write" in mnem and "wrxchg" not in mnem or "store" in mnem
        is_atomic = not (is_load or is_store) and not any(x in mnem for x in ("swizzle", "permute", "bpermute",
                                                                              "nop", "barrier", "consume",
                                                                              "append", "gws"))
        space = MemorySpace.GDS if gds else MemorySpace.LDS
        memory = MemoryInfo(space, is_load or ("rtn" in mnem), is_store or is_atomic, is_atomic, "rtn" in mnem)
        fl = {"rexec": True}
        return self._finish(8, mnem, "DS", ctx, out, m, flags=fl, memory=memory)

    def _flat(self, w0, w1):
        seg = (w0 >> 14) & 3
        enc = ("FLAT", "SCRATCH", "GLOBAL", None)[seg]
        if enc is None:
            return "reserved FLAT segment 3"
        op = (w0 >> 18) & 0x7F
        e = self.t[enc].get(op)
        if e is None:
            return None
        mnem = e.mnemonic
        ctx = Ctx(self.gen, None)
        addr = w1 & 0xFF
        data = (w1 >> 8) & 0xFF
        saddr = (w1 >> 16) & 0x7F
        vdst = (w1 >> 24) & 0xFF
        acc = (w1 >> 23) & 1 if self.acc_enc[enc] else 0
        k = "a" if acc else "v"
        lds = (w0 >> 13) & 1
        sve = False
        if enc == "SCRATCH" and self.is940:
            sve = bool(lds)
            lds = 0
        glc = (w0 >> 16) & 1
        slc = (w0 >> 17) & 1
        is_atomic = "atomic" in mnem
        out = []
        vd = e.fields.get("vdst")
        da = e.fields.get("data")
        if vd is not None and not (lds and enc != "FLAT"):
            out.append(ctx.reg(k, vdst, vd[1], True))
        elif is_atomic and glc and da is not None:
            out.append(ctx.reg(k, vdst, self._atomic_ret_width(e), True))
        if enc == "FLAT":
            out.append(ctx.reg("v", addr, 2, False))
        elif enc == "GLOBAL":
            out.append(ctx.reg("v", addr, 2 if saddr == 0x7F else 1, False))
        elif (saddr == 0x7F if not self.is940 else sve):
            out.append(ctx.reg("v", addr, 1, False))
        else:
            out.append("off")
        if da is not None:
            out.append(ctx.reg(k, data, da[1], False))
        if enc != "FLAT":
            out.append("off" if saddr == 0x7F else ctx.src(saddr, 2 if enc == "GLOBAL" else 1))
        if enc == "FLAT":
            off = w0 & 0x1FFF
        else:
            off = w0 & 0x1FFF
            if off & 0x1000:
                off -= 0x2000
        m = ""
        if off:
            m += f" offset:{off}"
            ctx.imm(str(off), off, OperandKind.OFFSET)
        pmods: list[str] = []
        b3 = (w0 >> 25) & 1
        pol = self._policy(glc, slc, b3, pmods, e.policy)
        if pmods:
            m += " " + " ".join(pmods)
        if lds:
            m += " lds"
        space = {"FLAT": MemorySpace.FLAT, "SCRATCH": MemorySpace.SCRATCH, "GLOBAL": MemorySpace.GLOBAL}[enc]
        is_load = "load" in mnem
        is_store = "store" in mnem
        memory = MemoryInfo(space, is_load or (is_atomic and bool(glc)), is_store or is_atomic, is_atomic,
                            bool(is_atomic and glc), pol)
        return self._finish(8, mnem, enc, ctx, out, m, flags={"rexec": True}, memory=memory)

    @staticmethod
    def _atomic_ret_width(e: Entry) -> int:
        for name, width, _k, _s in e.tmpl:
            if name in ("data", "vdata"):
                return width // 2 if "cmpswap" in e.mnemonic else width
        return 1

    def _mubuf(self, w0, w1):
        op = (w0 >> 18) & 0x7F
        e = self.t["MUBUF"].get(op)
        if e is None:
            return None
        return self._buffer(e, "MUBUF", w0, w1, None)

    def _mtbuf(self, w0, w1):
        op = (w0 >> 15) & 0xF
        e = self.t["MTBUF"].get(op)
        if e is None:
            return None
        return self._buffer(e, "MTBUF", w0, w1, ((w0 >> 19) & 0xF, (w0 >> 23) & 7))

    def _buffer(self, e: Entry, enc: str, w0, w1, fmt):
        mnem = e.mnemonic
        ctx = Ctx(self.gen, None)
        offen = (w0 >> 12) & 1
        idxen = (w0 >> 13) & 1
        glc = (w0 >> 14) & 1
        lds = (w0 >> 16) & 1 if enc == "MUBUF" else 0
        slc = (w0 >> 17) & 1 if enc == "MUBUF" else (w1 >> 22) & 1
        b3 = (w0 >> 15) & 1 if enc == "MUBUF" else 0
        acc = (w1 >> 23) & 1 if self.acc_enc[enc] else 0
        tfe = (w1 >> 23) & 1 if not self.acc_enc[enc] else 0
        k = "a" if acc else "v"
        vaddr = w1 & 0xFF
        vdata = (w1 >> 8) & 0xFF
        srsrc = ((w1 >> 16) & 0x1F) << 2
        soffset = (w1 >> 24) & 0xFF
        is_atomic = "atomic" in mnem
        is_load = "load" in mnem
        is_store = "store" in mnem
        out = []
        for name, width, _kind, _s in e.tmpl:
            if name.startswith("="):
                out.append(name[1:])
            elif name == "vdata":
                if lds and is_load:
                    continue
                w = width + tfe
                out.append(ctx.reg(k, vdata, w, is_load or (is_atomic and bool(glc))))
            elif name == "vaddr":
                if offen and idxen:
                    out.append(ctx.reg("v", vaddr, 2, False))
                elif offen or idxen:
                    out.append(ctx.reg("v", vaddr, 1, False))
                else:
                    out.append("off")
            elif name == "srsrc":
                out.append(ctx.sreg(srsrc, 4, False))
            elif name == "soffset":
                out.append(ctx.src(soffset, 1))
        m = ""
        if fmt is not None:
            m += self._mtbuf_format(*fmt)
        if idxen:
            m += " idxen"
        if offen:
            m += " offen"
        off = w0 & 0xFFF
        if off:
            m += f" offset:{off}"
            ctx.imm(str(off), off, OperandKind.OFFSET)
        pmods: list[str] = []
        pol = self._policy(glc, slc, b3, pmods, e.policy)
        if pmods:
            m += " " + " ".join(pmods)
        if lds:
            m += " lds"
        if tfe:
            m += " tfe"
        memory = MemoryInfo(MemorySpace.BUFFER, is_load or (is_atomic and bool(glc)), is_store or is_atomic,
                            is_atomic, bool(is_atomic and glc), pol)
        return self._finish(8, mnem, enc, ctx, out, m, flags={"rexec": True}, memory=memory)

    def _mimg(self, w0, w1):
        """Image instructions (MIMG). LLVM prints vaddr with the opcode's minimal width."""
        op = (w0 >> 18) & 0x7F
        e = self.t["MIMG"].get(op)
        if e is None:
            return None
        mnem = e.mnemonic
        ctx = Ctx(self.gen, None)
        dmask = (w0 >> 8) & 0xF
        unorm, glc, da, r128, tfe, lwe = ((w0 >> b) & 1 for b in (12, 13, 14, 15, 16, 17))
        slc = (w0 >> 25) & 1
        d16 = (w1 >> 31) & 1
        packed = self.gen != "gfx8"  # GFX8 d16 keeps one register per component
        acc = 0
        if self.has_acc:  # gfx90a+: bit 16 selects AGPR data instead of tfe
            acc, tfe = tfe, 0
        is_atomic = "atomic" in mnem
        is_store = "store" in mnem
        out = []
        for name, width, _k, _s in e.tmpl:
            if name == "vdata":
                if "gather4" in mnem:
                    n = 4
                elif is_atomic and not glc:
                    n = width  # no return value: the data operand only
                else:
                    n = max(1, bin(dmask).count("1"))
                extra = tfe
                if d16 and packed:
                    n = (n + 1) // 2
                    if "gather4" in mnem:
                        extra = 0  # LLVM sizes packed gather4 results without the tfe dword
                out.append(ctx.reg("a" if acc else "v", (w1 >> 8) & 0xFF, n + extra, not is_store))
            elif name == "vaddr":
                out.append(ctx.reg("v", w1 & 0xFF, width, False))
            elif name == "srsrc":
                out.append(ctx.sreg(((w1 >> 16) & 0x1F) << 2, 8, False))
            elif name == "ssamp":
                out.append(ctx.sreg(((w1 >> 21) & 0x1F) << 2, 4, False))
            elif name.startswith("="):
                out.append(name[1:])
        m = f" dmask:{hex_imm(dmask)}" if dmask else ""
        for flag, word in ((unorm, "unorm"), (glc, "glc"), (slc, "slc"),
                           (r128, "r128" if self.gen == "gfx8" else "a16"), (tfe, "tfe"), (lwe, "lwe"), (da, "da"),
                           (d16, "d16")):
            if flag:
                m += " " + word
        is_load = not is_store and not is_atomic
        memory = MemoryInfo(MemorySpace.BUFFER, is_load or (is_atomic and bool(glc)), is_store or is_atomic,
                            is_atomic, bool(is_atomic and glc), {"glc": bool(glc), "slc": bool(slc)})
        return self._finish(8, mnem, "MIMG", ctx, out, m, flags={"rexec": True}, memory=memory)

    @staticmethod
    def _mtbuf_format(dfmt: int, nfmt: int) -> str:
        parts = []
        if dfmt != 1:
            parts.append(_DFMT[dfmt])
        if nfmt != 0:
            parts.append(_NFMT[nfmt])
        return f" format:[{','.join(parts)}]" if parts else ""


def _swizzle(off: int, gen: str) -> str:
    """ds_swizzle_b32 offset as LLVM prints it (QUAD_PERM / BITMASK_PERM / SWAP / REVERSE / BROADCAST)."""
    if off & 0xE000 == 0xE000 and gen != "gfx8":
        return f"swizzle(FFT,{off & 0x1F})"
    if off & 0xE000 == 0xC000 and gen != "gfx8":
        return f"swizzle(ROTATE,{off >> 10 & 1},{off >> 5 & 0x1F})"
    if off & 0xFF00 == 0x8000:
        return "swizzle(QUAD_PERM," + ",".join(str(off >> (2 * i) & 3) for i in range(4)) + ")"
    if off & 0x8000:
        return str(off)
    and_m, or_m, xor_m = off & 0x1F, (off >> 5) & 0x1F, (off >> 10) & 0x1F
    if and_m == 0x1F and or_m == 0 and xor_m and xor_m & (xor_m - 1) == 0:
        return f"swizzle(SWAP,{xor_m})"
    if and_m == 0x1F and or_m == 0 and xor_m and (xor_m + 1) & xor_m == 0:
        return f"swizzle(REVERSE,{xor_m + 1})"
    group = 0x1F - and_m + 1
    if group > 1 and group & (group - 1) == 0 and or_m < group and xor_m == 0:
        return f"swizzle(BROADCAST,{group},{or_m})"
    bits = []
    p0 = or_m ^ xor_m
    p1 = (and_m | or_m) ^ xor_m
    for i in range(4, -1, -1):
        b0, b1 = p0 >> i & 1, p1 >> i & 1
        if b0 == b1:
            bits.append("1" if b0 else "0")
        else:
            bits.append("i" if b0 else "p")
    return 'swizzle(BITMASK_PERM,"' + "".join(bits) + '")'


_DFMT = ("BUF_DATA_FORMAT_INVALID", "BUF_DATA_FORMAT_8", "BUF_DATA_FORMAT_16", "BUF_DATA_FORMAT_8_8",
         "BUF_DATA_FORMAT_32", "BUF_DATA_FORMAT_16_16", "BUF_DATA_FORMAT_10_11_11", "BUF_DATA_FORMAT_11_11_10",
         "BUF_DATA_FORMAT_10_10_10_2", "BUF_DATA_FORMAT_2_10_10_10", "BUF_DATA_FORMAT_8_8_8_8",
         "BUF_DATA_FORMAT_32_32", "BUF_DATA_FORMAT_16_16_16_16", "BUF_DATA_FORMAT_32_32_32",
         "BUF_DATA_FORMAT_32_32_32_32", "BUF_DATA_FORMAT_RESERVED_15")
_NFMT = ("BUF_NUM_FORMAT_UNORM", "BUF_NUM_FORMAT_SNORM", "BUF_NUM_FORMAT_USCALED", "BUF_NUM_FORMAT_SSCALED",
         "BUF_NUM_FORMAT_UINT", "BUF_NUM_FORMAT_SINT", "BUF_NUM_FORMAT_RESERVED_6", "BUF_NUM_FORMAT_FLOAT")
