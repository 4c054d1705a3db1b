"""Operand text for GFX10+ source operands: registers, inline constants and literals.

LLVM 22 prints a literal as `lit(0x…)` when the same value could have been an inline constant of the
operand's type, so the type of each source operand matters.  The tables record, per operand, the
text LLVM printed for a fixed set of probe values; `SIG_CLASS` maps those signatures to the rule
below that reproduces them.
"""

from __future__ import annotations

import struct

from amddbg.isa.common import FLOAT_INLINE_TEXT, INV2PI_F64_TEXT, hex_imm

F32_INLINE = {0x3F000000, 0xBF000000, 0x3F800000, 0xBF800000, 0x40000000, 0xC0000000, 0x40800000, 0xC0800000,
              0x3E22F983}
F16_INLINE = {0x3800, 0xB800, 0x3C00, 0xBC00, 0x4000, 0xC000, 0x4400, 0xC400, 0x3118}
BF16_INLINE = {0x3F00, 0xBF00, 0x3F80, 0xBF80, 0x4000, 0xC000, 0x4080, 0xC080, 0x3E22}
F16_BITS = {240: 0x3800, 241: 0xB800, 242: 0x3C00, 243: 0xBC00, 244: 0x4000, 245: 0xC000, 246: 0x4400,
            247: 0xC400, 248: 0x3118}
F64_NAMES = {0x3FE00000: "0.5", 0xBFE00000: "-0.5", 0x3FF00000: "1.0", 0xBFF00000: "-1.0", 0x40000000: "2.0",
             0xC0000000: "-2.0", 0x40100000: "4.0", 0xC0100000: "-4.0"}

SIG_CLASS = {
    "-|-|-|-|-|-|-": "b32",
    "0x3c00|0x3118|0x0|lit(0x40)|lit(0x3f800000)|0x3c00|0x0": "i16",
    "1.0|0.15915494309189532|0x3ff00000|lit(0x40)|0x3f800000|0x3c00|0xffff0000": "b64",
    "1.0|0.15915494309189532|1.0|0x40|0x3f800000|0x3c00|0xffff0000": "f64",
    "1.0|0.15915494|0x3ff00000|lit(0x40)|0x3f800000|0x3c00|0xffff0000": "intonly",
    "1.0|0.15915494|0x3ff00000|lit(0x40)|0x3f800000|lit(0x3c00)|0xffff0000": "f16",
    "1.0|0.15915494|0x3ff00000|lit(0x40)|lit(0x3f800000)|0x3c00|0xffff0000": "b32",
    "1.0|0.15915494|lit(0x3ff00000)|lit(0x40)|lit(0x3f800000)|lit(0x3c00)|lit(0xffff0000)": "litall",
    "1.0|0.15915494|lit(0x3ff00000)|lit(0x40)|lit(0x3f800000)|0x3c00|lit(0xffff0000)": "litx",
    "1.0|0.15915494|-|-|-|-|-": "b32",
}


def _int_inline(v: int) -> bool:
    s = v - (1 << 32) if v & 0x80000000 else v
    return -16 <= s <= 64


def literal(v: int, cls: str) -> str:
    """Text of a 32-bit literal `v` in an operand of class `cls`."""
    if cls == "b32":
        return f"lit({hex_imm(v)})" if _int_inline(v) or v in F32_INLINE else hex_imm(v)
    if cls == "b64":
        return f"lit({hex_imm(v)})" if v <= 64 else hex_imm(v)
    if cls == "f64":
        return F64_NAMES.get(v, hex_imm(v))
    if cls == "intonly":
        return f"lit({hex_imm(v)})" if _int_inline(v) else hex_imm(v)
    if cls == "f16":
        return f"lit({hex_imm(v)})" if _int_inline(v) or v in F16_INLINE else hex_imm(v)
    if cls == "i16":
        lo = v & 0xFFFF
        if v <= 0xFFFF or v >= 0xFFFF8000:
            s = lo - 0x10000 if lo & 0x8000 else lo
            return f"lit({hex_imm(v)})" if -16 <= s <= 64 else hex_imm(lo)
        return f"lit({hex_imm(v)})" if _int_inline(v) or v in F32_INLINE else hex_imm(lo)
    if cls in ("litall", "litx"):
        # 16-bit float operand: the literal's low half is the value; LLVM prints it alone unless
        # that half could be an inline constant, then the whole dword as lit(...).
        lo = v & 0xFFFF
        s = lo - 0x10000 if lo & 0x8000 else lo
        inline = -16 <= s <= 64 or lo in (F16_INLINE if cls == "litall" else BF16_INLINE)
        return f"lit({hex_imm(v)})" if inline else hex_imm(lo)
    return hex_imm(v)


def inline_float(code: int, cls: str) -> str:
    """Text of inline float constant code 240..248 in an operand of class `cls`."""
    if cls == "i16":
        return hex_imm(F16_BITS[code])
    if code == 248 and cls in ("b64", "f64"):
        return INV2PI_F64_TEXT
    return FLOAT_INLINE_TEXT[code]


def f32_text(v: int) -> str:
    """Shortest repr of an f32 bit pattern (for comments/values)."""
    return repr(struct.unpack("<f", v.to_bytes(4, "little"))[0])
