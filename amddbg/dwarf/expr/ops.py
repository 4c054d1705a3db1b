"""DWARF expression operations: the opcode tables and a decoder for both AMD vendor encodings.

Two encodings of the `DW_OP_LLVM_*` heterogeneous operations exist in the wild:

* ``llvm-user``: `DW_OP_LLVM_user` (0xe9) followed by a ULEB128 sub-opcode (LLVM's Dwarf.def, the
  extension's table "DW_OP_LLVM_user Vendor Extension Operation Encodings"). What LLVM 22 and current
  AMD compilers emit, and what llvm-dwarfdump-22 decodes.
* ``amd-draft``: one-byte opcodes 0xe1..0xec of the older AMD drafts (ROCgdb's dwarf2.def, libdwarf).
  In this encoding 0xe9 is `DW_OP_LLVM_aspace_implicit_pointer`. The same bytes mean HP/Intel/AArch64
  operations for other producers, so they are only decoded when the caller says so.

The caller picks the encoding (see `encoding_for`); nothing here guesses from the bytes alone.
Operations are decoded into `Op` records; the evaluator dispatches on `Op.name`, which is the same for both
encodings (``DW_OP_LLVM_offset`` whether it came from ``e3`` or ``e9 04``).
"""

from __future__ import annotations

import enum
import re
import struct
from dataclasses import dataclass
from functools import lru_cache

from amddbg.dwarf.reader import sleb_within, uleb_within
from amddbg.errors import FormatError, NotSupported


def _uleb(data, pos: int, end: int) -> tuple[int, int]:
    return uleb_within(data, pos, end, "DWARF expression")


def _sleb(data, pos: int, end: int) -> tuple[int, int]:
    return sleb_within(data, pos, end, "DWARF expression")



class Encoding(enum.Enum):
    LLVM_USER = "llvm-user"
    AMD_DRAFT = "amd-draft"

    def __str__(self) -> str:
        return self.value


DW_OP_LLVM_user = 0xE9

# Operand kinds: u1 s1 u2 s2 u4 s4 u8 s8 uleb sleb addr ref (offset size) block (uleb length + bytes)
# "type" is a ULEB CU-relative DIE offset of a base type; "tblock" is a u1 length + bytes (const_type).
_STD: dict[int, tuple[str, tuple[str, ...]]] = {
    0x03: ("DW_OP_addr", ("addr",)),
    0x06: ("DW_OP_deref", ()),
    0x08: ("DW_OP_const1u", ("u1",)),
    0x09: ("DW_OP_const1s", ("s1",)),
    0x0A: ("DW_OP_const2u", ("u2",)),
    0x0B: ("DW_OP_const2s", ("s2",)),
    0x0C: ("DW_OP_const4u", ("u4",)),
    0x0D: ("DW_OP_const4s", ("s4",)),
    0x0E: ("DW_OP_const8u", ("u8",)),
    0x0F: ("DW_OP_const8s", ("s8",)),
    0x10: ("DW_OP_constu", ("uleb",)),
    0x11: ("DW_OP_consts", ("sleb",)),
    0x12: ("DW_OP_dup", ()),
    0x13: ("DW_OP_drop", ()),
    0x14: ("DW_OP_over", ()),
    0x15: ("DW_OP_pick", ("u1",)),
    0x16: ("DW_OP_swap", ()),
    0x17: ("DW_OP_rot", ()),
    0x18: ("DW_OP_xderef", ()),
    0x19: ("DW_OP_abs", ()),
    0x1A: ("DW_OP_and", ()),
    0x1B: ("DW_OP_div", ()),
    0x1C: ("DW_OP_minus", ()),
    0x1D: ("DW_OP_mod", ()),
    0x1E: ("DW_OP_mul", ()),
    0x1F: ("DW_OP_neg", ()),
    0x20: ("DW_OP_not", ()),
    0x21: ("DW_OP_or", ()),
    0x22: ("DW_OP_plus", ()),
    0x23: ("DW_OP_plus_uconst", ("uleb",)),
    0x24: ("DW_OP_shl", ()),
    0x25: ("DW_OP_shr", ()),
    0x26: ("DW_OP_shra", ()),
    0x27: ("DW_OP_xor", ()),
    0x28: ("DW_OP_bra", ("s2",)),
    0x29: ("DW_OP_eq", ()),
    0x2A: ("DW_OP_ge", ()),
    0x2B: ("DW_OP_gt", ()),
    0x2C: ("DW_OP_le", ()),
    0x2D: ("DW_OP_lt", ()),
    0x2E: ("DW_OP_ne", ()),
    0x2F: ("DW_OP_skip", ("s2",)),
    0x90: ("DW_OP_regx", ("uleb",)),
    0x91: ("DW_OP_fbreg", ("sleb",)),
    0x92: ("DW_OP_bregx", ("uleb", "sleb")),
    0x93: ("DW_OP_piece", ("uleb",)),
    0x94: ("DW_OP_deref_size", ("u1",)),
    0x95: ("DW_OP_xderef_size", ("u1",)),
    0x96: ("DW_OP_nop", ()),
    0x97: ("DW_OP_push_object_address", ()),
    0x98: ("DW_OP_call2", ("u2",)),
    0x99: ("DW_OP_call4", ("u4",)),
    0x9A: ("DW_OP_call_ref", ("ref",)),
    0x9B: ("DW_OP_form_tls_address", ()),
    0x9C: ("DW_OP_call_frame_cfa", ()),
    0x9D: ("DW_OP_bit_piece", ("uleb", "uleb")),
    0x9E: ("DW_OP_implicit_value", ("block",)),
    0x9F: ("DW_OP_stack_value", ()),
    0xA0: ("DW_OP_implicit_pointer", ("ref", "sleb")),
    0xA1: ("DW_OP_addrx", ("uleb",)),
    0xA2: ("DW_OP_constx", ("uleb",)),
    0xA3: ("DW_OP_entry_value", ("block",)),
    0xA4: ("DW_OP_const_type", ("type", "tblock")),
    0xA5: ("DW_OP_regval_type", ("uleb", "type")),
    0xA6: ("DW_OP_deref_type", ("u1", "type")),
    0xA7: ("DW_OP_xderef_type", ("u1", "type")),
    0xA8: ("DW_OP_convert", ("type",)),
    0xA9: ("DW_OP_reinterpret", ("type",)),
    0xE0: ("DW_OP_GNU_push_tls_address", ()),
    0xF0: ("DW_OP_GNU_uninit", ()),
    0xF2: ("DW_OP_GNU_implicit_pointer", ("ref", "sleb")),
    0xF3: ("DW_OP_GNU_entry_value", ("block",)),
    0xF4: ("DW_OP_GNU_const_type", ("type", "tblock")),
    0xF5: ("DW_OP_GNU_regval_type", ("uleb", "type")),
    0xF6: ("DW_OP_GNU_deref_type", ("u1", "type")),
    0xF7: ("DW_OP_GNU_convert", ("type",)),
    0xF9: ("DW_OP_GNU_reinterpret", ("type",)),
    0xFA: ("DW_OP_GNU_parameter_ref", ("u4",)),
    0xFB: ("DW_OP_GNU_addr_index", ("uleb",)),
    0xFC: ("DW_OP_GNU_const_index", ("uleb",)),
    0xFD: ("DW_OP_GNU_variable_value", ("ref",)),
}
for _i in range(32):
    _STD[0x30 + _i] = (f"DW_OP_lit{_i}", ())
    _STD[0x50 + _i] = (f"DW_OP_reg{_i}", ())
    _STD[0x70 + _i] = (f"DW_OP_breg{_i}", ("sleb",))

# DW_OP_LLVM_user sub-opcodes (LLVM Dwarf.def HANDLE_DW_OP_LLVM_USEROP; the extension's encoding table).
# aspace_bregx's displacement is a *signed* LEB128 per the extension text ("a signed LEB128 integer that
# represents a byte displacement B"), although LLVM's decoder declares it unsigned (same byte length).
LLVM_USER_SUBOPS: dict[int, tuple[str, tuple[str, ...]]] = {
    0x01: ("DW_OP_LLVM_nop", ()),
    0x02: ("DW_OP_LLVM_form_aspace_address", ()),
    0x03: ("DW_OP_LLVM_push_lane", ()),
    0x04: ("DW_OP_LLVM_offset", ()),
    0x05: ("DW_OP_LLVM_offset_uconst", ("uleb",)),
    0x06: ("DW_OP_LLVM_bit_offset", ()),
    0x07: ("DW_OP_LLVM_call_frame_entry_reg", ("uleb",)),
    0x08: ("DW_OP_LLVM_undefined", ()),
    0x09: ("DW_OP_LLVM_aspace_bregx", ("uleb", "sleb")),
    0x0A: ("DW_OP_LLVM_piece_end", ()),
    0x0B: ("DW_OP_LLVM_extend", ("uleb", "uleb")),
    0x0C: ("DW_OP_LLVM_select_bit_piece", ("uleb", "uleb")),
}
LLVM_USER_SUBOP_NUMBERS = {name: sub for sub, (name, _) in LLVM_USER_SUBOPS.items()}

# One-byte AMD draft opcodes (libdwarf dwarf.h, ROCgdb dwarf2.def; same values in both).
AMD_DRAFT_OPS: dict[int, tuple[str, tuple[str, ...]]] = {
    0xE1: ("DW_OP_LLVM_form_aspace_address", ()),
    0xE2: ("DW_OP_LLVM_push_lane", ()),
    0xE3: ("DW_OP_LLVM_offset", ()),
    0xE4: ("DW_OP_LLVM_offset_uconst", ("uleb",)),
    0xE5: ("DW_OP_LLVM_bit_offset", ()),
    0xE6: ("DW_OP_LLVM_call_frame_entry_reg", ("uleb",)),
    0xE7: ("DW_OP_LLVM_undefined", ()),
    0xE8: ("DW_OP_LLVM_aspace_bregx", ("uleb", "sleb")),
    0xE9: ("DW_OP_LLVM_aspace_implicit_pointer", ("ref", "sleb")),
    0xEA: ("DW_OP_LLVM_piece_end", ()),
    0xEB: ("DW_OP_LLVM_extend", ("uleb", "uleb")),
    0xEC: ("DW_OP_LLVM_select_bit_piece", ("uleb", "uleb")),
}
AMD_DRAFT_NUMBERS = {name: code for code, (name, _) in AMD_DRAFT_OPS.items()}

# Operations whose value depends on the register numbering (printed with register names).
REGISTER_OPERAND_OPS = frozenset(
    {"DW_OP_regx", "DW_OP_bregx", "DW_OP_regval_type", "DW_OP_GNU_regval_type",
     "DW_OP_LLVM_call_frame_entry_reg", "DW_OP_LLVM_aspace_bregx"}
)


@dataclass(frozen=True, slots=True)
class Op:
    """One decoded operation. `offset` is relative to the start of the expression."""

    offset: int
    code: int  # first byte
    name: str  # canonical name, identical in both encodings
    operands: tuple = ()
    size: int = 1
    subop: int | None = None  # the DW_OP_LLVM_user sub-opcode, when encoded that way

    @property
    def end(self) -> int:
        return self.offset + self.size




_FIXED = {"u1": "<B", "s1": "<b", "u2": "<H", "s2": "<h", "u4": "<I", "s4": "<i", "u8": "<Q", "s8": "<q"}

# Address and offset sizes a DWARF producer can state (DWARF 5 7.5.1: 4 or 8 for offsets; addresses
# of 1..8 bytes). Anything else would make the decoder step backwards or read gigabytes.
ADDRESS_SIZES = frozenset({1, 2, 4, 8})
OFFSET_SIZES = frozenset({4, 8})
# Expressions live in DIE attributes and location lists; real ones are tens of bytes. A cap keeps a
# hostile block from being copied and decoded at gigabyte scale.
MAX_EXPRESSION_BYTES = 1 << 20


def check_sizes(address_size: int, offset_size: int) -> None:
    """FormatError unless the sizes are ones DWARF can state."""
    if address_size not in ADDRESS_SIZES:
        raise FormatError(f"address size {address_size} is not 1, 2, 4 or 8")
    if offset_size not in OFFSET_SIZES:
        raise FormatError(f"offset size {offset_size} is not 4 or 8")


def decode(
    data: bytes,
    *,
    encoding: Encoding | str = Encoding.LLVM_USER,
    address_size: int = 8,
    offset_size: int = 4,
    file_offset: int = 0,
) -> list[Op]:
    """Decode a whole expression. Raises FormatError (with the file offset of the bad byte) on bad input.

    `file_offset` is where `data` starts in its file, so errors point at the real byte. Results are cached
    by content: real objects repeat the same few thousand expressions (rocsparse gfx90a: 219,186
    location expressions, 7,175 distinct), and `Op`s are immutable.
    """
    check_sizes(address_size, offset_size)
    if len(data) > MAX_EXPRESSION_BYTES:
        raise FormatError(f"DWARF expression of {len(data)} bytes (limit {MAX_EXPRESSION_BYTES})",
                          offset=file_offset)
    try:
        return list(_decode_cached(bytes(data), Encoding(encoding), address_size, offset_size))
    except (FormatError, NotSupported) as exc:
        if exc.offset is not None:
            exc.offset += file_offset
        raise


@lru_cache(maxsize=1 << 16)
def _decode_cached(data: bytes, encoding: Encoding, address_size: int, offset_size: int) -> tuple[Op, ...]:
    file_offset = 0
    ops: list[Op] = []
    pos, end = 0, len(data)
    try:
        while pos < end:
            start = pos
            code = data[pos]
            pos += 1
            subop = None
            if encoding is Encoding.AMD_DRAFT and code in AMD_DRAFT_OPS:
                name, kinds = AMD_DRAFT_OPS[code]
            elif code == DW_OP_LLVM_user and encoding is Encoding.LLVM_USER:
                subop, pos = _uleb(data, pos, end)
                if subop not in LLVM_USER_SUBOPS:
                    if subop == 0x0D:
                        raise NotSupported("DW_OP_LLVM_user sub-op 0x0d (DW_OP_LLVM_NVIDIA_mux) operands",
                                           offset=file_offset + start)
                    raise FormatError(f"unknown DW_OP_LLVM_user sub-opcode {subop:#x}",
                                      offset=file_offset + start)
                name, kinds = LLVM_USER_SUBOPS[subop]
            elif code in _STD:
                name, kinds = _STD[code]
            else:
                raise FormatError(f"unknown DWARF operation {code:#04x} (encoding {encoding})",
                                  offset=file_offset + start)
            operands = []
            for kind in kinds:
                if kind in ("uleb", "type"):
                    v, pos = _uleb(data, pos, end)
                elif kind == "sleb":
                    v, pos = _sleb(data, pos, end)
                elif kind in ("addr", "ref"):
                    n = address_size if kind == "addr" else offset_size
                    if pos + n > end:
                        raise FormatError(f"truncated operand of {name}", offset=file_offset + pos)
                    v = int.from_bytes(data[pos:pos + n], "little")
                    pos += n
                elif kind == "block":
                    n, pos = _uleb(data, pos, end)
                    if pos + n > end:
                        raise FormatError(f"truncated block of {name}", offset=file_offset + pos)
                    v = bytes(data[pos:pos + n])
                    pos += n
                elif kind == "tblock":
                    if pos >= end:
                        raise FormatError(f"truncated operand of {name}", offset=file_offset + pos)
                    n = data[pos]
                    pos += 1
                    if pos + n > end:
                        raise FormatError(f"truncated block of {name}", offset=file_offset + pos)
                    v = bytes(data[pos:pos + n])
                    pos += n
                else:
                    fmt = _FIXED[kind]
                    n = struct.calcsize(fmt)
                    if pos + n > end:
                        raise FormatError(f"truncated operand of {name}", offset=file_offset + pos)
                    (v,) = struct.unpack_from(fmt, data, pos)
                    pos += n
                operands.append(v)
            ops.append(Op(start, code, name, tuple(operands), pos - start, subop))
    except IndexError:
        raise FormatError("truncated DWARF expression", offset=len(data)) from None
    return tuple(ops)


def encode(ops: list[tuple], *, encoding: Encoding | str = Encoding.LLVM_USER, address_size: int = 8,
           offset_size: int = 4) -> bytes:
    """Assemble ``[(name, *operands), ...]`` into bytes (used by tests and by the pretty-printer's round
    trip). The inverse of `decode`."""
    encoding = Encoding(encoding)
    by_name = {name: (code, kinds) for code, (name, kinds) in _STD.items()}
    out = bytearray()

    def uleb(v: int) -> None:
        while True:
            b = v & 0x7F
            v >>= 7
            out.append(b | (0x80 if v else 0))
            if not v:
                return

    def sleb(v: int) -> None:
        while True:
            b = v & 0x7F
            v >>= 7
            done = (v == 0 and not b & 0x40) or (v == -1 and b & 0x40)
            out.append(b | (0 if done else 0x80))
            if done:
                return

    for name, *operands in ops:
        if name.startswith("DW_OP_LLVM_"):
            if encoding is Encoding.LLVM_USER:
                if name not in LLVM_USER_SUBOP_NUMBERS:
                    raise NotSupported(f"{name} has no DW_OP_LLVM_user sub-opcode")
                out.append(DW_OP_LLVM_user)
                uleb(LLVM_USER_SUBOP_NUMBERS[name])
                kinds = LLVM_USER_SUBOPS[LLVM_USER_SUBOP_NUMBERS[name]][1]
            else:
                if name not in AMD_DRAFT_NUMBERS:
                    raise NotSupported(f"{name} has no one-byte AMD draft opcode")
                out.append(AMD_DRAFT_NUMBERS[name])
                kinds = AMD_DRAFT_OPS[AMD_DRAFT_NUMBERS[name]][1]
        else:
            code, kinds = by_name[name]
            out.append(code)
        for kind, v in zip(kinds, operands, strict=True):
            if kind in ("uleb", "type"):
                uleb(v)
            elif kind == "sleb":
                sleb(v)
            elif kind in ("addr", "ref"):
                out += v.to_bytes(address_size if kind == "addr" else offset_size, "little")
            elif kind == "block":
                uleb(len(v))
                out += v
            elif kind == "tblock":
                out.append(len(v))
                out += v
            else:
                out += struct.pack(_FIXED[kind], v)
    return bytes(out)


_CLANG_VERSION = re.compile(r"clang version (\d+)")


def encoding_for(producer: str | None = None, augmentation: str | None = None) -> Encoding:
    """The vendor-op encoding a producer used.

    Rule (INFERRED, see docs/dwarf-expressions.md): the ``[llvm:v0.0]`` augmentation (CU
    `DW_AT_LLVM_augmentation` or CIE augmentation) is what the old AMD fork emitted together with the
    one-byte draft opcodes; everything else — upstream LLVM (llvm-dwarfdump-22 decodes 0xe9 as
    DW_OP_LLVM_user), current AMD compilers (default ``-emit-heterogeneous-dwarf-as-user-ops``) and the
    manual's ``[amd:v0.0]``/``[amdgpu:v0.0]`` — uses DW_OP_LLVM_user.
    """
    if augmentation and "[llvm:" in augmentation:
        return Encoding.AMD_DRAFT
    return Encoding.LLVM_USER
