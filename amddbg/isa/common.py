"""Family-independent pieces of AMDGPU instruction text: register ranges, inline constants, literals,
and the `.long 0x…` stand-in for bytes no table knows.

Both decoder families (`gfx9`, `gfx10`) print operands the way LLVM's AMDGPU instruction printer does;
the rules here are the ones that do not depend on the generation. Keep signatures stable: the other
family imports them.
"""

from __future__ import annotations

from amddbg.isa.model import Instruction, Operand, OperandKind

__all__ = [
    "FLOAT_INLINE_F16_BITS",
    "fast_constructor",
    "FLOAT_INLINE_TEXT",
    "INV2PI_F32_TEXT",
    "INV2PI_F64_TEXT",
    "hex_imm",
    "inline_int",
    "inline_text",
    "literal_text",
    "reg_range",
    "unknown_instruction",
]

# Inline float constants (source operand codes 240..248), as LLVM prints them for 32-bit operands.
FLOAT_INLINE_TEXT: dict[int, str] = {
    240: "0.5",
    241: "-0.5",
    242: "1.0",
    243: "-1.0",
    244: "2.0",
    245: "-2.0",
    246: "4.0",
    247: "-4.0",
    248: "0.15915494",
}
INV2PI_F32_TEXT = "0.15915494"
INV2PI_F64_TEXT = "0.15915494309189532"
# The same constants as IEEE half bit patterns: integer 16-bit operands print these in hex.
FLOAT_INLINE_F16_BITS: dict[int, int] = {
    240: 0x3800,
    241: 0xB800,
    242: 0x3C00,
    243: 0xBC00,
    244: 0x4000,
    245: 0xC000,
    246: 0x4400,
    247: 0xC400,
    248: 0x3118,
}


def fast_constructor(cls):
    """A positional constructor for a frozen, slotted dataclass that skips its generated __init__.

    Why: the frozen `__init__` sets every field through `object.__setattr__` and costs ~10 us for
    `Instruction`; decoders build millions of records. The returned function fills the slots through
    their descriptors (same result, the record stays frozen for its users). Arguments are all fields
    in declaration order; no defaults, no validation.
    """
    import dataclasses

    names = [f.name for f in dataclasses.fields(cls)]
    env = {"_new": object.__new__, "_cls": cls}
    for n in names:
        env[f"_set_{n}"] = getattr(cls, n).__set__
    args = ", ".join(names)
    body = "".join(f"    _set_{n}(o, {n})\n" for n in names)
    src = f"def make({args}):\n    o = _new(_cls)\n{body}    return o\n"
    exec(compile(src, f"<fast_constructor {cls.__name__}>", "exec"), env)  # noqa: S102 - generated from field names
    return env["make"]


def reg_range(prefix: str, first: int, count: int) -> str:
    """`v7`, `s[4:5]`, `a[0:3]`, `ttmp[4:7]`: one register or an inclusive range."""
    if count == 1:
        return f"{prefix}{first}"
    return f"{prefix}[{first}:{first + count - 1}]"


def inline_int(code: int) -> int | None:
    """Value of an inline integer constant code (128..208), else None."""
    if 128 <= code <= 192:
        return code - 128
    if 193 <= code <= 208:
        return 192 - code
    return None


def inline_text(code: int, style: str = "f32") -> str | None:
    """Text of an inline constant code (integer 128..208 or float 240..248).

    `style` says how the operand type prints float constants: "f32" (and f16: LLVM prints the
    value), "f64" (1/(2*pi) with double precision) or "h16" (integer 16-bit operands: the half bit
    pattern in hex). Returns None for codes that are not inline constants.
    """
    v = inline_int(code)
    if v is not None:
        return str(v)
    if 240 <= code <= 248:
        if style == "h16":
            return hex_imm(FLOAT_INLINE_F16_BITS[code])
        if code == 248 and style == "f64":
            return INV2PI_F64_TEXT
        return FLOAT_INLINE_TEXT[code]
    return None


def hex_imm(value: int) -> str:
    """LLVM's formatHex: lowercase `0x…` without leading zeros."""
    return f"0x{value:x}"


def literal_text(value: int, bits: int = 32) -> str:
    """A literal constant as LLVM prints it: hex of the low `bits` bits of the 32-bit literal."""
    if bits == 16:
        value &= 0xFFFF
    return hex_imm(value & 0xFFFFFFFF)


def unknown_instruction(data: bytes, offset: int, address: int, reason: str) -> Instruction:
    """A `.long 0x…` pseudo-instruction covering the next (up to) 4 bytes; never raises.

    At a truncated end of section (fewer than 4 bytes left) the remaining bytes are zero-padded
    for the text and `size` covers only what is there.
    """
    chunk = bytes(data[offset : offset + 4])
    size = len(chunk)
    word = int.from_bytes(chunk.ljust(4, b"\0"), "little")
    text = f".long 0x{word:08x}"
    return Instruction(
        address=address,
        size=size,
        raw=chunk,
        mnemonic=".long",
        encoding="UNKNOWN",
        operands=(Operand(OperandKind.IMMEDIATE, f"0x{word:08x}", value=word),),
        text=text,
        unknown_reason=reason,
    )
