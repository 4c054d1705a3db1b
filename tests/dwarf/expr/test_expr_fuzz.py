"""Bad input never escapes as a Python error: decoding gives FormatError/NotSupported, evaluation gives an
AmddbgError (EvaluationError, UndefinedLocation, Unavailable, NotSupported, AddressSpaceError)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from amddbg.dwarf.expr import Encoding, Evaluator, StaticContext, decode
from amddbg.errors import AmddbgError, FormatError, NotSupported

INTERESTING = [0x03, 0x06, 0x08, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x1A, 0x1B, 0x1C,
               0x1D, 0x1E, 0x22, 0x23, 0x24, 0x25, 0x26, 0x28, 0x2F, 0x30, 0x31, 0x36, 0x50, 0x90, 0x91, 0x92,
               0x93, 0x94, 0x9D, 0x9E, 0x9F, 0xE9, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A,
               0x0B, 0x0C, 0x40, 0x80, 0x14, 0xE1, 0xE2, 0xE3, 0xEA, 0xEB, 0xEC]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(INTERESTING) | st.integers(0, 255), max_size=24),
       st.sampled_from([Encoding.LLVM_USER, Encoding.AMD_DRAFT]))
def test_decode_and_evaluate_never_crash(data, encoding):
    blob = bytes(data)
    try:
        decode(blob, encoding=encoding)
    except (FormatError, NotSupported):
        return
    ctx = StaticContext({32 + n: n * 0x10 for n in range(64)} | {2560: list(range(64)), 16: 0x1000, 17: 3},
                        wave_size=64)
    for lane in (None, 3):
        try:
            ev = Evaluator(ctx, lane=lane, encoding=encoding).run(blob)
            ev.result()
        except AmddbgError:
            pass


def test_negative_shift_counts_are_huge_unsigned_counts():
    """Found by the fuzzer: DW_OP_const1u 3; DW_OP_consts -64; DW_OP_shra raised ValueError."""
    from amddbg.dwarf.expr import StaticContext, evaluate

    for op in (0x24, 0x25, 0x26):  # shl, shr, shra
        res = evaluate(bytes([0x08, 3, 0x11, 0x40, op]), StaticContext())
        assert res is not None
