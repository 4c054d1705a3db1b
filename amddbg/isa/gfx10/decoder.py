"""Table-driven decoder for GFX10.3, GFX11, GFX11.5, GFX12 and GFX12.5 machine code.

Dispatch is one list lookup on the top 9 bits of the first dword (every encoding of these
generations is identified there), then a per-encoding function extracts the fields (a generated
dict display per layout) and renders the opcode's operand template from `tables/<set>.json`.
Identical instruction bytes decode to identical text except for PC-relative branches (whose target
is re-based per address), so decoding memoises by raw bytes: a repeated instruction costs one dict
lookup and a four-slot record over the shared memo entry (`_ProtoInstruction`), and `iter_text` (the
listing fast path `amddbg disasm --json` uses) yields the memoised text without building records.
A 2 MB .text has ~370k instructions but only ~80k distinct encodings.  Bytes no table knows become
`.long 0x…` with a reason; no input raises.
"""

from __future__ import annotations

import dataclasses
import gc
import re
import struct
from functools import cache

from amddbg.isa.common import FLOAT_INLINE_TEXT, fast_constructor, hex_imm, unknown_instruction
from amddbg.isa.gfx10 import special
from amddbg.isa.gfx10.encodings import FIELDS, MATCH, UNSUPPORTED, encoding_generation, table_name
from amddbg.isa.gfx10.operands import SIG_CLASS, inline_float, literal
from amddbg.isa.gfx10.tablefile import UnknownEncoding as _Unknown
from amddbg.isa.gfx10.tablefile import load_tables
from amddbg.isa.model import Instruction, MemoryInfo, MemorySpace, Operand, OperandKind


def _default(f: dataclasses.Field) -> object:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return None


# Instruction fields after (address, size, raw), in declaration order: memo entries hold them in a
# tuple that records read through (see `_ProtoInstruction`).
_REST_FIELDS = [(f.name, _default(f)) for f in dataclasses.fields(Instruction)[3:]]
_BT_INDEX = [n for n, _d in _REST_FIELDS].index("branch_target")
_REST_DEFAULTS = [d for _n, d in _REST_FIELDS]
_V_INDEX = {n: i + 1 for i, (n, _d) in enumerate(_REST_FIELDS)}  # field -> index in a memo entry
assert [n for n, _d in _REST_FIELDS[:4]] == ["mnemonic", "encoding", "operands", "text"]
assert [f.name for f in dataclasses.fields(Instruction)[:3]] == ["address", "size", "raw"]


# Memo entries are `v` tuples: (size, every Instruction field after `raw`, in declaration order, then the
# branch offset in dwords or None). `(0, full_size)` marks bytes whose instruction carries trailing
# literal dwords (looked up again in the second-level cache by its full bytes).
_NFIELDS = 1 + len(_REST_FIELDS)  # size + the fields after raw
_REL = _NFIELDS  # index of the branch offset in a memo entry


class _ProtoInstruction(Instruction):
    """An `Instruction` read through a shared memo entry: creating one sets four slots instead of
    twenty (the frozen dataclass __init__ costs ~4 us, and a 2 MB .text holds 370k instructions).
    `address`, `raw` and `text` (what listings read) are the record's own slots, the other fields
    read the memo entry `_v`; `branch_target` and `unknown_reason` are always None here (branches
    and unknown bytes are plain records). It compares, hashes and prints exactly like the plain
    record; constructing the class (e.g. `dataclasses.replace`) or copying a record yields a plain
    `Instruction`."""

    __slots__ = ("_v",)
    __qualname__ = "Instruction"  # repr like the plain record
    branch_target = None
    unknown_reason = None

    def __new__(cls, *args, **kwargs):
        return Instruction(*args, **kwargs)

    def __eq__(self, other):
        if not isinstance(other, Instruction):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in _FIELD_NAMES)

    def __hash__(self):
        return hash(tuple(getattr(self, n) for n in _FIELD_NAMES))

    def __reduce__(self):  # copy.copy and friends: a plain record with the same fields
        return (Instruction, tuple(getattr(self, n) for n in _FIELD_NAMES))


_FIELD_NAMES = tuple(f.name for f in dataclasses.fields(Instruction))
_OWN_SLOTS = ("address", "raw", "text", "branch_target", "unknown_reason")


def _proto_properties() -> None:
    """Read-only properties over `_v` for the fields that are not the record's own slots."""
    order = ["size", *(n for n, _d in _REST_FIELDS)]
    for i, name in enumerate(order):
        if name not in _OWN_SLOTS:
            setattr(_ProtoInstruction, name, property(lambda self, i=i: self._v[i]))


_proto_properties()
_new = object.__new__
_SET_V = _ProtoInstruction._v.__set__  # type: ignore[attr-defined]
_SET_A = Instruction.address.__set__  # type: ignore[attr-defined]
_SET_R = Instruction.raw.__set__  # type: ignore[attr-defined]
_SET_T = Instruction.text.__set__  # type: ignore[attr-defined]
_make_instruction = fast_constructor(Instruction)

_SHARED: dict[str, tuple] = {}
# Little-endian dword unpackers by byte count: the words of an instruction's longest possible form.
_UNPACK = {4 * k: struct.Struct(f"<{k}I").unpack_from for k in (1, 2, 3, 4, 5)}
_CACHE_LIMIT = 1 << 21  # distinct instruction encodings kept per table set before starting afresh



_EXEC_NAMES = {"exec", "exec_lo", "exec_hi"}
_BRANCHES = {"s_branch", "s_cbranch_scc0", "s_cbranch_scc1", "s_cbranch_vccz", "s_cbranch_vccnz",
             "s_cbranch_execz", "s_cbranch_execnz", "s_cbranch_cdbgsys", "s_cbranch_cdbguser",
             "s_cbranch_cdbgsys_or_user", "s_cbranch_cdbgsys_and_user"}
_CALLS = {"s_swappc_b64", "s_call_b64", "s_swap_pc_i64", "s_call_i64"}
_SETPC = {"s_setpc_b64", "s_set_pc_i64"}
_DEST_FIELDS = {"vdst", "sdst", "vdstx", "vdsty"}
_DS2 = re.compile(r"2addr|(read|write|wrxchg)2")
_VECTOR_MEM = {"FLAT", "MUBUF", "MTBUF", "DS"}
_SRC9 = {"src0", "src1", "src2", "srcx0", "srcy0"}
_OPSEL_BIT = {"src0": 0, "src1": 1, "src2": 2, "vdst": 3}


class _Ctx:
    """Per-instruction scratch: words, literal use, size so far."""

    __slots__ = ("words", "lit", "size")

    def __init__(self, words, size: int):
        self.words = words
        self.lit: int | None = None  # index of the dword holding the literal, once used
        self.size = size


def literal64_text(value: int, cls: str) -> str:
    """A 64-bit literal as LLVM prints it: an FP64 literal whose low dword is zero is shown as its high
    dword (what a 32-bit literal of an f64 operand means); integers that fit 32 bits are marked lit64()."""
    if cls.startswith("f") and value & 0xFFFFFFFF == 0:
        return hex_imm(value >> 32)
    return f"lit64({hex_imm(value)})" if value <= 0xFFFFFFFF else hex_imm(value)


def _negate_sources(ops: list[Operand], mask: int) -> list[Operand]:
    """Apply VOPD3 neg bits (bit i negates source i; operand 0 is the destination)."""
    if not mask:
        return ops
    out = list(ops)
    for i in range(3):
        if mask >> i & 1 and i + 1 < len(out):
            o = out[i + 1]
            out[i + 1] = Operand(o.kind, "-" + o.text, register=o.register, count=o.count, value=o.value,
                                 is_dest=o.is_dest, modifiers=(*o.modifiers, "neg"))
    return out


class Decoder:
    """Decoder for one processor of the GFX10.3 .. GFX12.5 families. Registers are named the wave32 way (as
    `llvm-objdump -d` prints every GFX10+ object) unless `wave64`: then as `llvm-objdump -d
    --mattr=+wavefrontsize64` prints wave64 code (lane masks in SGPR pairs, `vcc` not `vcc_lo`)."""

    def __init__(self, processor: str, wave64: bool = False):
        self.processor = processor
        self.wave64 = wave64
        self.tname = table_name(processor)  # opcode tables: gfx10, gfx11, gfx115, gfx12, gfx1250
        self.gen = encoding_generation(self.tname)  # bit layouts: gfx115 encodes like gfx11
        t = load_tables(self.tname, wave64)
        self.t = t
        names = t["_names"]
        self.s32: list[str | None] = names["s32"]
        self.s64: list[str | None] = names["s64"]
        self.d32: list[str | None] = names["d32"]
        self.d64: list[str | None] = names["d64"]
        self.null = 125 if self.gen == "gfx10" else 124
        self.sopimm = t["_sopimm"]
        self._extract, self.dispatch = _layout(self.gen)
        self._handlers = {
            "SOP1": self._sop, "SOP2": self._sop, "SOPC": self._sop, "SOPK": self._sopk, "SOPP": self._sopp,
            "VOP1": self._vop, "VOP2": self._vop, "VOPC": self._vop, "VOP3": self._vop3, "VOP3P": self._vop3p,
            "SMEM": self._smem, "DS": self._ds, "FLAT": self._flat, "MUBUF": self._mubuf, "VOPD": self._vopd,
            "VOPD3": self._vopd3, "MTBUF": self._mubuf,
        }
        # Memo caches depend only on the table set, so decoders of the same set share them (a CLI
        # that opens several objects of one target decodes repeated instructions once).
        key = self.tname + ("/w64" if wave64 else "")
        shared = _SHARED.get(key)
        if shared is None or len(shared[0]) > _CACHE_LIMIT:
            shared = _SHARED[key] = ({}, {}, {}, {}, {}, {}, {})
        self._cache: dict[bytes, tuple] = shared[0]
        self._cache2: dict[bytes, tuple] = shared[1]
        self._opcache: dict[tuple, Operand] = shared[2]
        self._modmask: dict[str, tuple[int, int]] = shared[3]
        self._vop3_by_name: dict[str, dict] = shared[4]
        self._vcache: dict[tuple, Operand] = shared[5]
        self._itab: dict[str, dict[int, dict]] = shared[6]  # opcode tables keyed by int
        self._flat_off_bits = {"gfx10": 12, "gfx11": 13}.get(self.gen, 24)

    # ------------------------------------------------------------------ public API
    def decode(self, data, offset: int, address: int) -> Instruction:
        """Decode one instruction at `offset` of `data` (loaded at `address`); never raises."""
        n = len(data) - offset
        if n < 4:
            return unknown_instruction(data, offset, address, "truncated instruction at end of section")
        d = self.dispatch[(data[offset + 3] << 1) | (data[offset + 2] >> 7)]
        if d is None:
            return self._undispatched(data, offset, address)
        size = d[1]
        key = bytes(data[offset : offset + size])
        hit = self._cache.get(key)
        if hit is not None:
            if hit[0] == 0:  # uses trailing literal dwords: second-level cache on the full bytes
                full = bytes(data[offset : offset + hit[1]])
                hit = self._cache2.get(full)
                if hit is not None:
                    return self._build(hit, address, full)
            else:
                return self._build(hit, address, key)
        return self._slow(data, offset, address, d[0], size, n)

    def _undispatched(self, data, offset: int, address: int) -> Instruction:
        w0 = int.from_bytes(data[offset : offset + 4], "little")
        if self.tname == "gfx1250" and w0 & 0xFC000000 == 0xD0000000 and len(data) - offset >= 12:
            tensor = self._tensor(data, offset, address, w0)
            if tensor is not None:
                return tensor
        for mask, val, enc, _size in UNSUPPORTED.get(self.gen, ()):
            if w0 & mask == val:
                return unknown_instruction(data, offset, address, f"{enc} encoding is not supported")
        return unknown_instruction(data, offset, address, f"no GFX10+ encoding matches 0x{w0:08x}")

    def _tensor(self, data, offset: int, address: int, w0: int) -> Instruction | None:
        """GFX12.5's tensor data mover in the VIMAGE encoding (first dword 0xd0710001 tensor_load_to_lds,
        0xd0714001 tensor_store_from_lds; 12 bytes): four SGPR descriptor groups in the third dword's bytes
        (group 0 four SGPRs, group 1 eight, groups 2 and 3 four each; 124, `null`, leaves a group out, and
        llvm-objdump then prints only the first two), th in bits 22:20 and scope in 19:18 of the second dword.
        Laid out from llvm-mc-22 -mcpu=gfx1250 encodings of every operand form; any other bit set is not this
        instruction."""
        if w0 & ~0x4000 != 0xD0710001:  # the two opcodes (bit 14: store) with the other fields as LLVM sets them
            return None
        op = 197 if w0 & 0x4000 else 196
        w1 = int.from_bytes(data[offset + 4 : offset + 8], "little")
        w2 = int.from_bytes(data[offset + 8 : offset + 12], "little")
        if w1 & ~0x007C0000 != 0x7C000000:
            return None
        regs = [(w2 >> (8 * k)) & 0xFF for k in range(4)]
        widths = (4, 8, 4, 4)
        if regs[0] == 124 or regs[1] == 124 or (regs[2] == 124) != (regs[3] == 124):
            return None
        store = op == 197
        ops = []
        for r, n in zip(regs, widths, strict=True):
            if r == 124:
                continue
            if r + n > 106:
                return None
            ops.append(Operand(OperandKind.SGPR, f"s[{r}:{r + n - 1}]", r, n))
        th, scope = (w1 >> 20) & 7, (w1 >> 18) & 3
        mn = "tensor_store_from_lds" if store else "tensor_load_to_lds"
        text = f"{mn} " + ", ".join(o.text for o in ops) + special.th_text(th, scope, False, store) + \
            special.scope_text(scope)
        return Instruction(address, 12, bytes(data[offset : offset + 12]), mn, "VIMAGE", tuple(ops), text,
                           memory=MemoryInfo(MemorySpace.LDS, is_load=not store, is_store=store))

    def _slow(self, data, offset: int, address: int, enc: str, size: int, n: int) -> Instruction:
        v = self._miss(data, offset, address, enc, size, n)
        if v is None:
            return self._unknown(data, offset, address, enc, size, n)
        return self._build(v, address, bytes(data[offset : offset + v[0]]))

    def _miss(self, data, offset: int, address: int, enc: str, size: int, n: int) -> tuple | None:
        """Decode bytes the memo does not know and remember them; None if they are no instruction
        (`_unknown` then says why: the failure path is rare, so it simply decodes again)."""
        if size > n:
            return None
        # Longest possible form: base + literal (+ 64-bit literal on gfx1250).
        m = size + 8 if n >= size + 8 else n
        unpack = _UNPACK.get(m)
        if unpack is not None:
            words = unpack(data, offset)
        else:
            words = [int.from_bytes(data[offset + i : offset + i + 4], "little") for i in range(0, m - 3, 4)]
        ctx = _Ctx(words, size)
        try:
            parts = self._handlers[enc](enc, ctx, address)
        except (_Unknown, IndexError, KeyError, TypeError, ValueError):
            return None
        csize = ctx.size
        if csize > n:
            return None
        v = self._entry_of(parts, csize)
        if csize == size:
            self._cache[bytes(data[offset : offset + size])] = v
        elif ctx.lit is not None and len(self._cache2) < 1 << 20:
            self._cache[bytes(data[offset : offset + size])] = (0, csize)
            self._cache2[bytes(data[offset : offset + csize])] = v
        return v

    def _unknown(self, data, offset: int, address: int, enc: str, size: int, n: int) -> Instruction:
        """The `.long` record for bytes `_miss` rejected, with the reason."""
        if size > n:
            return unknown_instruction(data, offset, address, f"truncated {enc} instruction")
        raw_max = bytes(data[offset : offset + min(n, size + 8)])
        words = [int.from_bytes(raw_max[i : i + 4], "little") for i in range(0, len(raw_max) - 3, 4)]
        ctx = _Ctx(words, size)
        try:
            self._handlers[enc](enc, ctx, address)
        except _Unknown as exc:
            return unknown_instruction(data, offset, address, str(exc))
        except (IndexError, KeyError, TypeError, ValueError) as exc:
            return unknown_instruction(data, offset, address, f"{enc}: cannot decode ({exc.__class__.__name__})")
        return unknown_instruction(data, offset, address, f"truncated {enc} instruction (literal)")

    def decode_all(self, data, address: int) -> list[Instruction]:
        """Decode a whole code section sequentially (memoised: repeated bytes cost one dict lookup)."""
        if not isinstance(data, bytes):
            data = bytes(data)
        # Hundreds of thousands of small acyclic objects: the cyclic GC would rescan the growing list
        # over and over (measured ~2x of the whole decode), so pause it for the loop.
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return self._decode_all(data, address)
        finally:
            if was_enabled:
                gc.enable()

    def _decode_all(self, data: bytes, address: int) -> list[Instruction]:
        out: list[Instruction] = []
        append = out.append
        cache, cache2, dispatch, build = self._cache, self._cache2, self.dispatch, self._build
        new, set_v, set_a, set_r, set_t, proto = _new, _SET_V, _SET_A, _SET_R, _SET_T, _ProtoInstruction
        off = 0
        n = len(data)
        while off < n:
            if n - off >= 4:
                d = dispatch[(data[off + 3] << 1) | (data[off + 2] >> 7)]
                if d is not None:
                    key = data[off : off + d[1]]
                    v = cache.get(key)
                    if v is not None:
                        if v[0] == 0:
                            key = data[off : off + v[1]]
                            v = cache2.get(key)
                        if v is not None:
                            if v[_REL] is None:
                                ins = new(proto)
                                set_v(ins, v)
                                set_a(ins, address + off)
                                set_r(ins, key)
                                set_t(ins, v[4])
                            else:
                                ins = build(v, address + off, key)
                            append(ins)
                            off += v[0]
                            continue
                    else:
                        v = self._miss(data, off, address + off, d[0], d[1], n - off)
                        if v is not None:
                            append(build(v, address + off, data[off : off + v[0]]))
                            off += v[0]
                            continue
            ins = self.decode(data, off, address + off)
            append(ins)
            off += ins.size or 4
        return out

    def iter_text(self, data, address: int = 0):
        """Yield (address, size, text) per instruction of `data`, like `decode_all` but without building
        `Instruction` records (the listing fast path of `amddbg disasm`). Branch text does not depend on
        the address (the target is only a comment), so memo entries serve every address."""
        if not isinstance(data, bytes):
            data = bytes(data)
        was_enabled = gc.isenabled()
        gc.disable()  # the memo caches grow by thousands of records: no cyclic GC passes meanwhile
        try:
            yield from self._iter_text(data, address)
        finally:
            if was_enabled:
                gc.enable()

    def _iter_text(self, data: bytes, address: int):
        cache, cache2, dispatch = self._cache, self._cache2, self.dispatch
        off = 0
        n = len(data)
        while off < n:
            if n - off >= 4:
                d = dispatch[(data[off + 3] << 1) | (data[off + 2] >> 7)]
                if d is not None:
                    v = cache.get(data[off : off + d[1]])
                    if v is not None:
                        if v[0] == 0:
                            v = cache2.get(data[off : off + v[1]])
                        if v is not None:
                            yield address + off, v[0], v[4]
                            off += v[0]
                            continue
                    else:
                        v = self._miss(data, off, address + off, d[0], d[1], n - off)
                        if v is not None:
                            yield address + off, v[0], v[4]
                            off += v[0]
                            continue
            ins = self.decode(data, off, address + off)
            size = ins.size or 4
            yield address + off, size, ins.text
            off += size

    # ------------------------------------------------------------------ construction
    @staticmethod
    def _entry_of(parts: tuple, size: int) -> tuple:
        """Memo entry: (size, Instruction values after `raw`, branch offset or None)."""
        mn, enc, ops, text, flags = parts
        if not flags:
            return (size, mn, enc, ops, text, *_REST_DEFAULTS[4:], None)
        rel = flags.pop("branch_rel", None)
        v = [size, mn, enc, ops, text, *_REST_DEFAULTS[4:], rel]
        for k, val in flags.items():
            v[_V_INDEX[k]] = val
        return tuple(v)

    @staticmethod
    def _build(v: tuple, address: int, raw: bytes) -> Instruction:
        rel = v[_REL]
        if rel is None:
            ins = _new(_ProtoInstruction)
            _SET_V(ins, v)
            _SET_A(ins, address)
            _SET_R(ins, raw)
            _SET_T(ins, v[4])
            return ins
        r = list(v[1:_REL])
        r[_BT_INDEX] = address + 4 + rel * 4
        return _make_instruction(address, v[0], raw, *r)

    def _fields(self, enc: str, words: list[int]) -> dict[str, int]:
        return self._extract[enc](words)

    # ------------------------------------------------------------------ operand helpers
    def _lit(self, ctx: _Ctx) -> int:
        if ctx.lit is None:
            ctx.lit = ctx.size // 4
            ctx.size += 4
        if ctx.lit >= len(ctx.words):
            raise _Unknown("truncated literal")
        return ctx.words[ctx.lit]

    def _sreg(self, code: int, width: int, dest: bool = False) -> str:
        if code >= 128:
            dest = False  # destination fields that hold source-only codes print like sources
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
        """A 9-bit (or 8-bit scalar) source operand (memoised unless it is a literal)."""
        if code < 254 or code >= 256:
            key = (code, width, cls, dest)
            o = self._opcache.get(key)
            if o is None:
                o = self._opcache[key] = self._src1(ctx, code, width, cls, dest)
            return o
        return self._src1(ctx, code, width, cls, dest)

    def _src1(self, ctx: _Ctx, code: int, width: int, cls: str, dest: bool = False) -> Operand:
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
            return Operand(OperandKind.LITERAL, literal64_text(v, cls), value=v)
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
        key = (r, width, dest)
        o = self._vcache.get(key)
        if o is None:
            text = f"v{r}" if width == 1 else f"v[{r}:{r + width - 1}]"
            o = self._vcache[key] = Operand(OperandKind.VGPR, text, register=r, count=width, is_dest=dest)
        return o

    def _render(self, ctx: _Ctx, entry: dict, f: dict[str, int], overrides: dict | None = None,
                opsel: int | None = None) -> list[Operand]:
        """Operands from a template: field references, fixed text, literal constant K.

        True16 operands (template kind `v.l`) print `.l`/`.h`: in 32-bit encodings the high half is
        bit 7 of the register field, in VOP3 it is the operand's op_sel bit (`opsel`)."""
        comp = entry.get("_c")
        if comp is None:
            comp = self._compile(entry)
            if entry.get("_persist", True):
                entry["_c"] = comp
        out: list[Operand] = []
        opcache, vcache = self._opcache, self._vcache
        for code, name, width, cls, dest, extra in comp:
            # the common cases first, with their memo lookups inline (compiled code 3 carries cls b32)
            if code == 0 or code == 3:
                val = overrides[name] if overrides and name in overrides else f[name]
                o = opcache.get((val, width, cls, dest)) if val < 254 or val >= 256 else None
                out.append(o if o is not None else self._src(ctx, val, width, cls, dest))
                continue
            if code == 4:
                val = overrides[name] if overrides and name in overrides else f[name]
                o = vcache.get((val, width, dest))
                out.append(o if o is not None else self._vreg(val, width, dest))
                continue
            if code == 5:
                out.append(extra)
                continue
            if code == 6:
                v = self._lit(ctx)
                out.append(Operand(OperandKind.LITERAL, hex_imm(v), value=v))
                continue
            if code == 7:
                out.append(extra)
                continue
            if code == 9:
                lo = self._lit(ctx)
                ctx.size += 4
                if ctx.lit + 1 >= len(ctx.words):
                    raise _Unknown("truncated 64-bit constant")
                v = lo | ctx.words[ctx.lit + 1] << 32
                out.append(Operand(OperandKind.LITERAL, literal64_text(v, cls), value=v))
                continue
            val = overrides[name] if overrides and name in overrides else f[name]
            if code == 1:
                out.append(self._src(ctx, val * 2, width, "b32"))
            elif code == 2:
                out.append(self._src(ctx, val * 4 if self.gen in ("gfx10", "gfx11") else val, width, "b32"))
            elif code == 8:
                if val < 256 and extra:  # a 9-bit source holding an SGPR/constant: no .l/.h
                    out.append(self._src(ctx, val, width, cls, dest))
                    continue
                r = val - 256 if val >= 256 else val
                if opsel is None:
                    hi, r = r >> 7, r & 0x7F
                else:
                    hi = (opsel >> _OPSEL_BIT.get(name, 3)) & 1
                out.append(Operand(OperandKind.VGPR, f"v{r}.{'h' if hi else 'l'}", register=r, count=1,
                                   is_dest=dest, modifiers=("hi",) if hi else ()))
        return out

    @staticmethod
    def _compile(entry: dict) -> list[tuple]:
        """Template tokens -> (code, field, width, constant class, is_dest, extra) tuples."""
        ty = entry.get("ty", {})
        comp: list[tuple] = []
        for tok in entry["t"]:
            k = tok[0]
            if k == "F":
                name, width, rk = tok[1], tok[2], tok[3] if len(tok) > 3 else "v"
                dest = name in _DEST_FIELDS
                cls = SIG_CLASS.get(ty.get(name, ""), "b32")
                is_src = name in ("src0", "src1", "src2", "srcx0", "srcy0", "ssrc0", "ssrc1")
                if rk[:2] == "v.":
                    comp.append((8, name, width, cls, dest, name in _SRC9))
                elif is_src:
                    comp.append((0, name, width, cls, dest, None))
                elif name == "sbase":
                    comp.append((1, name, width, "b32", False, None))
                elif name == "srsrc":
                    comp.append((2, name, width, "b32", False, None))
                elif rk == "s" or name in ("sdst", "sdata", "soffset", "saddr"):
                    comp.append((3, name, width, "b32", dest, None))
                else:
                    comp.append((4, name, width, "b32", dest, None))
            elif k == "T" and tok[1] == "0x1234567812345678":  # a 64-bit K constant (gfx12.5)
                comp.append((9, None, 0, "f64", False, None))  # v_fmaak/fmamk_f64: FP64 operands
            elif k == "T":
                comp.append((5, None, 0, "", False, Operand(OperandKind.SPECIAL, tok[1])))
            elif k == "K":
                comp.append((6, None, 0, "", False, None))
            else:
                comp.append((7, None, 0, "", False, Operand(OperandKind.IMMEDIATE, "?")))
        return comp

    def _finish(self, mn: str, enc: str, ops: list[Operand], suffix: str = "", extra: tuple = (),
                **flags) -> tuple:
        """(mnemonic, encoding, operands, text, flags); `extra` operands (memory offsets printed as
        modifiers) are appended to the operand tuple but are already part of `suffix` text."""
        text = f"{mn} {', '.join([o.text for o in ops])}{suffix}" if ops else mn + suffix
        if mn[:2] == "v_" or enc in _VECTOR_MEM:
            flags.setdefault("reads_exec", True)  # vector ALU and vector memory are masked by EXEC
            if mn[:6] == "v_cmpx":
                flags["writes_exec"] = True
        if "exec" in text:
            for o in ops:
                if "exec" in o.text:
                    if o.is_dest:
                        flags["writes_exec"] = True
                    else:
                        flags["reads_exec"] = True
        if "saveexec" in mn:
            flags["writes_exec"] = True
            flags["reads_exec"] = True
        return (mn, enc, tuple(ops) + extra, text, flags)

    def _entry(self, enc: str, op: int) -> dict:
        tab = self._itab.get(enc)
        if tab is None:
            tab = self._itab[enc] = {int(k): v for k, v in self.t[enc].items()}
        e = tab.get(op)
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
            ops[-1] = Operand(OperandKind.IMMEDIATE, special.sendmsg(self.tname, mn, f["ssrc0"]), value=f["ssrc0"])
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
                hw = Operand(OperandKind.IMMEDIATE, special.hwreg(self.tname, imm), value=imm)
                if mn == "s_getreg_b32":
                    ops = [self._src(ctx, f["sdst"], 1, "b32", True), hw]
                elif mn == "s_setreg_b32":
                    ops = [hw, self._src(ctx, f["sdst"], 1, "b32")]
                else:
                    v = self._lit(ctx)
                    sv = v - (1 << 32) if v & 0x80000000 else v
                    ops = [hw, Operand(OperandKind.LITERAL, str(sv) if -16 <= sv <= 64 else hex_imm(v), value=v)]
            elif mn == "s_version":
                ops = [Operand(OperandKind.IMMEDIATE, special.version(imm, self.tname), value=imm)]
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
            text, info = special.sopp(self.tname, mn, imm)
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
            if "exec" in mn:
                flags["reads_exec"] = True
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
        if "prefetch" in mn:
            # s_[buffer_]prefetch_*: sbase (unless PC-relative), offset, soffset, then sdata as a count
            pre = []
            if "pc_rel" not in mn:
                sb = next((t for t in e["t"] if t[0] == "F" and t[1] == "sbase"), None)
                pre.append(self._src(ctx, f["sbase"] * 2, sb[2] if sb else 2, "b32"))
            pre += [Operand(OperandKind.OFFSET, _shex(off), value=off), self._src(ctx, soff, 1, "b32"),
                    Operand(OperandKind.IMMEDIATE, _imm_text("small", f["sdata"]), value=f["sdata"])]
            return self._finish(mn, enc, pre)
        if mn.startswith("s_atc_probe"):
            ops.append(Operand(OperandKind.IMMEDIATE, _imm_text("small", f["sdata"]), value=f["sdata"]))
            sb = next((t for t in e["t"] if t[0] == "F" and t[1] == "sbase"), None)
            ops.append(self._src(ctx, f["sbase"] * 2, sb[2] if sb else 2, "b32"))
            if soff != self.null:
                o = self._src(ctx, soff, 1, "b32")
                if off or self.gen in ("gfx12", "gfx1250"):
                    o = Operand(o.kind, f"{o.text} offset:{_shex(off)}", o.register, o.count, off)
                ops.append(o)
            elif off == 0 and self.gen in ("gfx10", "gfx11"):
                ops.append(Operand(OperandKind.SPECIAL, "null"))
            else:
                ops.append(Operand(OperandKind.OFFSET, _shex(off), value=off))
            return self._finish(mn, enc, ops)
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
                    if off or self.gen in ("gfx12", "gfx1250"):
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
        if self.gen in ("gfx12", "gfx1250") and (ctx.words[0] >> 20) & 1:
            suffix += " nv"
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
        tm = e["t"]
        info = e.get("_v3")
        if info is None:
            info = e["_v3"] = _vop3_info(e)
        has_dst, t16, srcs, sd, ng_mask, ab_mask, osm, os_flag, osn, is_bitop3 = info
        fake16 = False
        if t16 and f["opsel"]:
            nsrc = sum(1 for t in tm if t[0] == "F" and t[1].startswith("src"))
            vdst16 = has_dst and tm[0][1] == "vdst" and len(tm[0]) > 3 and tm[0][3][:1] == "v"
            valid = (1 << nsrc) - 1 | (8 if vdst16 else 0)
            # op_sel bits for operands the opcode lacks: LLVM falls back to its 16-bit-in-32-bit
            # ("fake16") form, printed without .l/.h and without op_sel
            fake16 = bool(f["opsel"] & ~valid)
        if fake16:
            e16 = e.get("_f16")
            if e16 is None:
                e16 = e["_f16"] = {**{k: v for k, v in e.items() if k not in ("_c", "_f16")},
                                   "t": [[*t[:3], "v"] if t[0] == "F" and len(t) > 3 and t[3][:2] == "v." else t
                                         for t in tm]}
            ops = self._render(ctx, e16, f, ov, opsel=f["opsel"])
        else:
            ops = self._render(ctx, e, f, ov, opsel=f["opsel"])
        neg = f["neg"] & ng_mask
        ab = f["abs"] & ab_mask if not sd else 0
        bitop3 = None
        if is_bitop3:
            # GFX12.5 v_bitop3_*: the 8-bit truth table lives in the neg/abs/omod fields
            bitop3 = f["neg"] | f["abs"] << 3 | f["omod"] << 6
            neg = ab = 0
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
                    t = special.neg_text(o, t, bool(ab >> idx & 1))
                    mods.append("neg")
                if mods:
                    ops[i] = Operand(o.kind, t, o.register, o.count, o.value, o.is_dest, tuple(mods))
        suffix = ""
        if bitop3:
            suffix += f" bitop3:{_small_hex(bitop3)}"
        shown = f["opsel"] & osm
        if not sd and shown and os_flag and not fake16:
            n = len(srcs)
            bits = [(shown >> j) & 1 for j in range(n)]
            if has_dst:
                bits.append((shown >> 3) & 1)
            if osn is not None and osn != len(bits):
                bits = [(shown >> j) & 1 for j in range(osn)]
            suffix += " op_sel:[" + ",".join(str(b) for b in bits) + "]"
        if f["clamp"]:
            suffix += " clamp"
        if f["omod"] and bitop3 is None:
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
        reuse = ""
        if self.gen == "gfx1250" and mn.startswith(("v_wmma", "v_swmmac")):
            # GFX12.5 WMMA: op_sel[2] / op_sel_hi[2] are the matrix A / B register-reuse hints
            if opsel & 4:
                reuse += " matrix_a_reuse"
            if f["opsel_hi2"]:
                reuse += " matrix_b_reuse"
            opsel &= 3
            opsel_hi |= 4

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
                    t = special.neg_text(o, t, bool(f["neg_hi"] >> idx & 1))
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
        suffix += reuse
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
        # Source negation: dword 1 bits 9-11 negate X's src0..src2, bits 12-14 Y's (probed with llvm-mc).
        neg = (ctx.words[1] >> 9) & 0x3F
        ox = _negate_sources(self._render(ctx, tx, f), neg & 7)
        oy = _negate_sources(self._render(ctx, ty, f), neg >> 3)
        sx = f" bitop3:{_small_hex(f['srcx2'])}" if "bitop2" in tx["m"] and f["srcx2"] else ""
        sy = f" bitop3:{_small_hex(f['srcy2'])}" if "bitop2" in ty["m"] and f["srcy2"] else ""
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
        # GFX11+ VOPC DPP prints the plain mnemonic (LLVM's VOPC DPP asm names carry no suffix)
        dmn = base if enc == "VOPC" and self.gen != "gfx10" else base + "_dpp"
        if src0 in (233, 234):
            ctx.size = 8
            vals = [(w1 >> (8 + 3 * i)) & 7 for i in range(8)]
            ops = self._render(ctx, e, f, {"src0": 256 + (w1 & 0xFF)})
            suffix = " dpp8:[" + ",".join(map(str, vals)) + "]"
            if src0 == 234:
                suffix += " fi:1"
            return self._finish(dmn, enc, ops, suffix)
        ops = self._render(ctx, e, f, {"src0": 256 + (w1 & 0xFF)})
        return special.dpp16(self, enc, ops, dmn, w1, e)

    def mods_mask(self, mn: str) -> tuple[int, int]:
        """(abs, neg) source masks of a VOP1/VOP2/VOPC opcode, from its VOP3 form's probed flags."""
        m = self._modmask.get(mn)
        if m is None:
            if not self._vop3_by_name:
                self._vop3_by_name.update({v["m"]: v for v in self.t["VOP3"].values()})
            b = mn[:-4] if mn.endswith("_e32") else mn
            v3 = self._vop3_by_name.get(b + "_e64") or self._vop3_by_name.get(b)
            m = self._modmask[mn] = (v3.get("ab", 0), v3.get("ng", 0)) if v3 else (3, 3)
        return m

    # ------------------------------------------------------------------ memory
    def _cpol(self, f: dict[str, int], mn: str, smem: bool = False) -> tuple[dict, str]:
        if self.gen in ("gfx10", "gfx11"):
            pol = {k: bool(f.get(k, 0)) for k in ("glc", "slc", "dlc") if k in f}
            s = "".join(f" {k}" for k in ("glc", "slc", "dlc") if pol.get(k))
            return pol, s
        th, scope = f.get("th", 0), f.get("scope", 0)
        is_atomic = "atomic" in mn
        is_store = "store" in mn
        s = special.th_text(th, scope, is_atomic, is_store, self.gen) + special.scope_text(scope)
        return {"th": th, "scope": scope}, s

    def _ds(self, enc: str, ctx: _Ctx, address: int) -> tuple:
        extra: tuple = ()
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
        elif mn == "ds_swizzle_b32":
            sw = special.swizzle(f["offset0"] | (f["offset1"] << 8))
            suffix += f" {sw}" if sw else ""
        else:
            off = f["offset0"] | (f["offset1"] << 8)
            if off:
                suffix += f" offset:{off}"
                extra = (Operand(OperandKind.OFFSET, f"offset:{off}", value=off),)
        if f["gds"]:
            suffix += " gds"
        if _DS2.search(mn):
            extra = tuple(Operand(OperandKind.OFFSET, f"{k}:{f[k]}", value=f[k]) for k in ("offset0", "offset1"))
        load = any(x in mn for x in ("load", "read", "_rtn"))
        store = any(x in mn for x in ("store", "write"))
        atomic = not load and not store and not any(x in mn for x in ("swizzle", "permute", "nop", "gws",
                                                                        "append", "consume", "bvh"))
        if "_rtn" in mn:
            atomic = not ("load" in mn or "read" in mn)
        mem = MemoryInfo(MemorySpace.GDS if f["gds"] else MemorySpace.LDS, is_load=load or atomic,
                         is_store=store or atomic, is_atomic=atomic, returns="_rtn" in mn)
        return self._finish(mn, enc, ops, suffix, extra, memory=mem)

    def _flat(self, enc: str, ctx: _Ctx, address: int) -> tuple:
        f = self._fields(enc, ctx.words)
        seg = f["seg"]
        tab = self.t["FLAT"].get(str(seg), {})
        e = tab.get(str(f["op"]))
        if e is None:
            raise _Unknown(f"FLAT seg {seg} opcode {f['op']} unknown on {self.processor}")
        saddr_null = f["saddr"] == self.null or (self.gen == "gfx10" and f["saddr"] == 0x7F)
        if seg == 0:
            key = "n" if saddr_null or self.gen != "gfx1250" else "s"
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
        vkey = key if tm is e["v"].get(key) else "g" + key
        if f.get("lds") and "load" in mn:  # LDS DMA form: the data goes to LDS, no VGPR destination
            vkey += "l"
            tm = [t for t in tm if not (t[0] == "F" and t[1] == "vdst")]
        ops = self._render(ctx, _variant(e, vkey, tm), f)
        off = f["offset"]
        bits = self._flat_off_bits
        if seg != 0 or self.gen not in ("gfx10", "gfx11"):
            if off & (1 << (bits - 1)):
                off -= 1 << bits
        suffix = f" offset:{off}" if off else ""
        extra = (Operand(OperandKind.OFFSET, f"offset:{off}", value=off),)
        pol, cp = self._cpol(f, mn)
        suffix += cp
        if self.gen == "gfx1250" and (ctx.words[1] >> 16) & 1:
            suffix += " scale_offset"
        if f.get("lds"):
            suffix += " lds"
        space = (MemorySpace.FLAT, MemorySpace.SCRATCH, MemorySpace.GLOBAL, MemorySpace.GLOBAL)[seg]
        mem = self._meminfo(space, mn, pol)
        return self._finish(mn, enc, ops, suffix, extra, memory=mem)

    def _meminfo(self, space: MemorySpace, mn: str, pol: dict) -> MemoryInfo:
        atomic = "atomic" in mn
        if atomic:
            ret = bool(pol.get("glc")) if "glc" in pol else bool(pol.get("th", 0) & 1)
            return MemoryInfo(space, is_load=True, is_store=True, is_atomic=True, returns=ret, cache_policy=pol)
        return MemoryInfo(space, is_load="load" in mn, is_store="store" in mn, cache_policy=pol)

    def _mubuf(self, enc: str, ctx: _Ctx, address: int) -> tuple:
        f = self._fields(enc, ctx.words)
        if "op3" in f:  # GFX10 MTBUF keeps opcode bit 3 in the second dword
            f["op"] |= f["op3"] << 3
        e = self._entry(enc, f["op"])
        mn = e["m"]
        key = f"{f['offen']}{f['idxen']}"
        tm = e["v"].get(key)
        if tm is None:
            raise _Unknown(f"{mn}: addressing form unknown")
        if f.get("tfe"):
            key += "t"
            tm = [["F", t[1], t[2] + 1, *t[3:]] if t[0] == "F" and t[1] == "vdata" else t for t in tm]
        if f.get("lds") and "load" in mn:  # LDS DMA form: the data goes to LDS, no VGPR destination
            key += "l"
            tm = [t for t in tm if not (t[0] == "F" and t[1] == "vdata")]
        ops = self._render(ctx, _variant(e, key, tm), f)
        if not tm:  # cache-control ops (buffer_gl0_inv, ...) print no fields at all
            return self._finish(mn, enc, ops)
        suffix = ""
        if mn.startswith("tbuffer") and "format" in f:
            fmts = self.t.get("_fmt") or []
            fv = f["format"]
            ft = fmts[fv] if fv < len(fmts) else None
            if ft:
                suffix += " " + ft
        if f["idxen"]:
            suffix += " idxen"
        if f["offen"]:
            suffix += " offen"
        off = f["offset"]
        if self.gen not in ("gfx10", "gfx11") and off & 0x800000:
            off -= 1 << 24
        if off:
            suffix += f" offset:{off}"
        extra = (Operand(OperandKind.OFFSET, f"offset:{off}", value=off),)
        pol, cp = self._cpol(f, mn)
        suffix += cp
        if f.get("lds"):
            suffix += " lds"
        if f.get("tfe"):
            suffix += " tfe"
        mem = None
        if "gl0_inv" not in mn and "gl1_inv" not in mn and "wb" not in mn and "inv" not in mn:
            mem = self._meminfo(MemorySpace.BUFFER, mn, pol)
        return self._finish(mn, enc, ops, suffix, extra, memory=mem)


@cache
def _layout(gen: str) -> tuple[dict, list]:
    """Per generation: field extractors per encoding and the 512-entry dispatch on bits [31:23]."""
    extract = {enc: _extractor(f) for enc, f in FIELDS[gen].items()}
    dispatch: list[tuple[str, int] | None] = [None] * 512
    for top in range(512):
        w = top << 23
        for mask, val, enc, size in MATCH[gen]:
            if w & mask & 0xFF800000 == val:
                dispatch[top] = (enc, size)
                break
    return extract, dispatch


@cache
def _extractor_src(layout: tuple) -> str:
    items = ", ".join(f"{n!r}: (w[{d}] >> {lo}) & {(1 << wd) - 1}" for n, d, lo, wd in layout)
    return f"lambda w: {{{items}}}"


def _extractor(fields: dict[str, tuple[int, int, int]]):
    """A field-extraction function for one encoding layout: one dict display instead of a loop
    (the layout is our own data from encodings.py, so the generated source is fixed)."""
    layout = tuple((n, d, lo, w) for n, (d, lo, w) in fields.items())
    return eval(_extractor_src(layout), {})  # noqa: S307 - source built from constant layout data


def _variant(e: dict, key: str, tm: list) -> dict:
    """A persistent per-addressing-form template dict (so its compiled form is kept)."""
    vs = e.setdefault("_tv", {})
    d = vs.get(key)
    if d is None:
        d = vs[key] = {"t": tm}
    return d


def _vop3_info(e: dict) -> tuple:
    """Per-opcode VOP3 facts that do not depend on the instruction bits, computed once per table entry:
    (has a destination, has True16 operands, template indexes of the sources, sd, neg mask, abs mask,
    op_sel mask, op_sel shown, op_sel count or None, v_bitop3)."""
    tm = e["t"]
    has_dst = bool(tm) and tm[0][0] == "F" and tm[0][1] in ("vdst", "sdst")
    t16 = any(t[0] == "F" and len(t) > 3 and t[3][:2] == "v." for t in tm)
    srcs = [i for i, tok in enumerate(tm) if tok[0] == "F" and tok[1].startswith("src")]
    return (has_dst, t16, srcs, e.get("sd"), e.get("ng", 0), e.get("ab", 0), e.get("osm", 15), e.get("os"),
            e.get("osn"), e["m"].startswith("v_bitop3"))


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


def _small_hex(v: int) -> str:
    """bitop3 values as LLVM prints them: decimal up to 10, hex above (probed over 0..255)."""
    return str(v) if v <= 10 else hex_imm(v)


def _shex(v: int) -> str:
    return f"-0x{-v:x}" if v < 0 else f"0x{v:x}"
