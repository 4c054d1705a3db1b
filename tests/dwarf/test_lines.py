"""Line tables against llvm-dwarfdump-22 --debug-line (stored as X.co.dwarfdump.txt by corefiles/build.py)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from amddbg.dwarf import lines_for_disasm
from amddbg.dwarf.context import DwarfInfo
from amddbg.dwarf.lines import END_SEQUENCE, IS_STMT
from amddbg.dwarf.source import SourcePaths

ROOT = Path(__file__).resolve().parents[2]
CO = ROOT / "corefiles" / "co"
SRC = ROOT / "corefiles" / "src"
ROW = re.compile(r"^0x([0-9a-f]{16})\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*(.*)$")


def dwarfdump_rows(co: Path) -> list[tuple]:
    out = []
    for line in (CO / f"{co.name}.dwarfdump.txt").read_text().splitlines():
        m = ROW.match(line)
        if m:
            flags = m.group(8).split()
            out.append((int(m.group(1), 16), int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(6)),
                        "is_stmt" in flags, "end_sequence" in flags))
    return out


def dwarfdump_files(co: Path) -> list[tuple[str, int]]:
    txt = (CO / f"{co.name}.dwarfdump.txt").read_text()
    return [(n, int(d)) for n, d in re.findall(r'file_names\[\s*\d+\]:\n\s+name: "([^"]*)"\n\s+dir_index: (\d+)', txt)]


def our_rows(co: Path) -> list[tuple]:
    d = DwarfInfo.from_path(co)
    out = []
    for u in d.units():
        t = d.line_table(u)
        for a, f, ln, col, fl, disc in t.rows:
            out.append((a, ln, col, f, disc, bool(fl & IS_STMT), bool(fl & END_SEQUENCE)))
    return out


def test_rows_match_dwarfdump(corpus):
    n = 0
    for co in corpus:
        want = dwarfdump_rows(co)
        assert want, co.name
        assert our_rows(co) == want, co.name
        n += len(want)
    assert n > 10_000


def test_file_tables_match_dwarfdump(corpus):
    for co in corpus:
        d = DwarfInfo.from_path(co)
        got = [f for u in d.units() for f in d.line_table(u).files]
        assert [tuple(f) for f in got] == dwarfdump_files(co), co.name


def test_lookup_is_last_row_at_or_below(corpus):
    """Every row start maps back to a row with that address and line (the last one at it)."""
    co = next(c for c in corpus if "O2-hip" in c.name and "llvm22-gfx942" in c.name)
    d = DwarfInfo.from_path(co)
    t = d.line_table(next(d.units()))
    rows = [r for r in dwarfdump_rows(co) if not r[6]]
    last_at = {}
    for r in rows:
        last_at[r[0]] = r
    for a, r in last_at.items():
        got = t.lookup(a)
        assert (got.line, got.column, got.is_stmt) == (r[1], r[2], r[5])
        assert got.file == "/amddbg/corefiles/src/probe.hip"
    assert t.lookup(0) is None


def test_line_to_addresses_round_trip(corpus):
    co = next(c for c in corpus if "O0-hip" in c.name and "llvm19-gfx90a" in c.name)
    d = DwarfInfo.from_path(co)
    t = d.line_table(next(d.units()))
    lines = {r[1] for r in dwarfdump_rows(co) if r[5] and r[1]}
    assert lines
    for ln in sorted(lines):
        addrs = t.addresses_for_line("probe.hip", ln)
        assert addrs, ln
        for a in addrs:
            assert t.lookup(a).line == ln
    assert t.addresses_for_line("nosuchfile.c", 10) == []


def test_lines_for_disasm_reads_corpus_sources(corpus):
    co = next(c for c in corpus if "O2-hip" in c.name and "llvm22-gfx90a" in c.name)
    m = lines_for_disasm(co)
    src = (SRC / "probe.hip").read_text().splitlines()
    d = DwarfInfo.from_path(co)
    t = d.line_table(next(d.units()))
    assert len(m) > 20
    for addr, entry in m.items():
        row = t.lookup(addr)
        assert entry[0] == f"; {row.file}:{row.line}"
        assert entry[1] == ";   " + src[row.line - 1].rstrip()


def test_lines_for_disasm_without_sources_prints_file_line(corpus, tmp_path):
    co = next(c for c in corpus if "O2-cl" in c.name)
    copy = tmp_path / "x.co"
    shutil.copy(co, copy)
    m = lines_for_disasm(copy)  # nothing near tmp_path matches /amddbg/corefiles/src
    assert m and all(len(e) == 1 and e[0].startswith("; /amddbg/corefiles/src/probe.cl:") for e in m.values())
    remapped = lines_for_disasm(copy, SourcePaths([("/amddbg/corefiles/src", str(SRC))]))
    assert all(len(e) == 2 for e in remapped.values())


def test_dwarf4_range_and_location_lists():
    """DWARF 4 §2.17.3/§2.6.2: offsets from the unit's base, a base-address selection entry (first
    address all ones) changes the base, (0, 0) ends the list; location entries add a 2-byte length and
    the expression."""
    import struct
    from types import SimpleNamespace

    import pytest

    from amddbg.dwarf.context import DwarfInfo
    from amddbg.errors import FormatError

    unit = SimpleNamespace(addr_size=8, low_pc=0x1000)
    me = SimpleNamespace(name="x")
    q = lambda *v: struct.pack(f"<{len(v)}Q", *v)  # noqa: E731
    ranges = q(0x10, 0x20, 2**64 - 1, 0x5000, 0x4, 0x8, 0, 0)
    assert DwarfInfo._v4_list(me, ranges, unit, 0, ".debug_ranges", with_expr=False) == [
        (0x1010, 0x1020), (0x5004, 0x5008)]
    loc = q(0x0, 0x4) + struct.pack("<H", 2) + b"\x50\x93" + q(0, 0)
    assert DwarfInfo._v4_list(me, loc, unit, 0, ".debug_loc", with_expr=True) == [(0x1000, 0x1004, b"\x50\x93")]
    with pytest.raises(FormatError, match="unterminated .debug_ranges list"):
        DwarfInfo._v4_list(me, ranges[:-16], unit, 0, ".debug_ranges", with_expr=False)
