"""The arithmetic and comparisons of herd's litmus instructions, shared by the herd checker (amddbg.models.herdcheck)
and the sequentially consistent explorer (amddbg.models.scexplore), which the checker calls: neither imports the
other for them.
"""

from __future__ import annotations


def herd_fn(fn: str, a: int, b: int) -> int:
    """herd's binary operation `fn` (add sub mul div and or xor; division by zero is 0)."""
    if fn == "add":
        return a + b
    if fn == "sub":
        return a - b
    if fn == "mul":
        return a * b
    if fn == "div":
        return a // b if b else 0
    if fn == "and":
        return a & b
    if fn == "or":
        return a | b
    return a ^ b


def herd_cmp(c: str, a: int, b: int) -> bool:
    """herd's branch comparison `c` (beq bne blt bgt ble bge)."""
    return {"beq": a == b, "bne": a != b, "blt": a < b, "bgt": a > b, "ble": a <= b, "bge": a >= b}[c]
