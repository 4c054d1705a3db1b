"""Corrupted call frame sections give FormatError (with an offset), never a Python error."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from amddbg.dwarf.cfi import compute_rows, frame_sections, parse_frame_section
from amddbg.errors import AmddbgError

HANDMADE = Path(__file__).resolve().parents[3] / "corefiles" / "handmade"
SECTIONS = {}
for _name in ("frame_raw", "cfi_aspace", "eh_frame"):
    _data = (HANDMADE / f"{_name}.co").read_bytes()
    _sec = frame_sections(_data)[0]
    SECTIONS[_name] = (_data[_sec.file_offset:_sec.file_offset + _sec.size], _sec.is_eh)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(SECTIONS)), st.lists(st.tuples(st.integers(0, 4095), st.integers(0, 255)),
                                                   min_size=1, max_size=6),
       st.integers(0, 64))
def test_mutated_sections(name, edits, cut):
    data, is_eh = SECTIONS[name]
    buf = bytearray(data)
    for pos, val in edits:
        buf[pos % len(buf)] = val
    if cut:
        buf = buf[:-cut]
    try:
        sec = parse_frame_section(bytes(buf), file_offset=0, size=len(buf), is_eh=is_eh)
        for fde in sec.fdes:
            compute_rows(sec, fde)
    except AmddbgError as exc:
        assert exc.offset is not None or "CFI" in str(exc) or "row" in str(exc)
