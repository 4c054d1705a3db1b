"""Issue 14, resource bounds: FIFOs, devices, huge sparse files, hostile DWARF expressions and CFI,
litmus searches. No input may hang amddbg or take the machine's memory."""

from __future__ import annotations

import struct

import pytest
from conftest import CO_PATH, CORES, assert_one_line_error, run

from amddbg.dwarf.expr import decode, format_ops
from amddbg.dwarf.expr.context import BaseContext, CallTarget
from amddbg.dwarf.expr.evaluator import EvaluationError, Evaluator
from amddbg.errors import AmddbgError, FormatError

# two stores to x in one thread, a load in another: 2 candidate executions (two coherence orders)
LITMUS = ("NEWWG\nNEWSG\nNEWTHREAD\nst.atom.scopedev.sc0 x = 1\nst.atom.scopedev.sc0 x = 2\n"
          "NEWWG\nNEWSG\nNEWTHREAD\nld.atom.scopedev.sc0 x = 1\n")


@pytest.mark.parametrize("argv", [
    ["info", "{p}"], ["disasm", "{p}"], ["addr2line", "-e", "{p}", "0x0"], ["dwarf", "cfi", "{p}"],
    ["litmus", "{p}"], ["coremerge", "{p}", str(CORES / "gfx942-reduce.gpu"), "-o", "{d}/u.core"],
])
@pytest.mark.parametrize("kind", ["fifo", "directory", "dev_zero", "missing"])
def test_non_regular_inputs_are_refused(argv, kind, fifo, tmp_path):
    p = {"fifo": fifo, "directory": tmp_path, "dev_zero": "/dev/zero", "missing": tmp_path / "nope"}[kind]
    r = run([a.format(p=p, d=tmp_path) for a in argv], timeout=120)
    assert_one_line_error(r)


@pytest.mark.parametrize("argv", [
    ["addr2line", "-e", "{p}", "0x2800"], ["dwarf", "cfi", "{p}"], ["info", "{p}"], ["disasm", "{p}"],
])
def test_huge_sparse_files_are_bounded(sparse_elf, argv):
    # 200 GB file, 50 GB DWARF sections in holes: under 1 GB of heap and 30 s, or a one-line error
    r = run([a.format(p=sparse_elf) for a in argv], timeout=120, data_limit=1 << 30)
    assert r.returncode in (0, 2) and "internal error" not in r.stderr and "Traceback" not in r.stderr
    if argv[0] == "addr2line":
        assert_one_line_error(r)


def test_debug_section_in_a_hole_is_refused(tmp_path):
    """A section under the size cap but lying wholly in a hole of a sparse file."""
    from amddbg.codeobj.elf import check_debug_sections

    d = bytearray(CO_PATH.read_bytes())
    shoff = struct.unpack_from("<Q", d, 0x28)[0]
    _, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
    stroff = struct.unpack_from("<Q", d, shoff + shstrndx * 64 + 24)[0]
    for i in range(shnum):
        nm = struct.unpack_from("<I", d, shoff + i * 64)[0]
        if bytes(d[stroff + nm : stroff + nm + 12]) == b".debug_info\0":
            struct.pack_into("<QQ", d, shoff + i * 64 + 24, 1 << 30, 512 << 20)
    p = tmp_path / "hole.co"
    p.write_bytes(d)
    with open(p, "r+b") as f:
        f.truncate(2 << 30)
    with pytest.raises(FormatError, match="hole of a sparse file"):
        check_debug_sections(p)
    check_debug_sections(CO_PATH)  # the real object passes


@pytest.mark.parametrize("size", ["-1", "0", "3", "16"])
def test_dwarf_expr_address_size_is_validated(size):
    r = run(["dwarf", "expr", "--address-size", size, "03", "00", "00", "00", "00"], timeout=120,
            data_limit=256 << 20)
    assert_one_line_error(r)
    with pytest.raises(FormatError):
        decode(b"\x03\0\0\0\0", address_size=int(size))


def _nested_entry_value(depth: int) -> bytes:
    e = b"\x9c"  # DW_OP_call_frame_cfa
    for _ in range(depth):
        assert len(e) < 0x4000
        n = len(e)
        uleb = bytes([n & 0x7F | 0x80, n >> 7]) if n > 0x7F else bytes([n])
        e = b"\xa3" + uleb + e
    return e


def test_entry_value_nesting_is_bounded():
    deep = _nested_entry_value(200)
    r = run(["dwarf", "expr", deep.hex()], timeout=120)
    assert_one_line_error(r)
    assert "nested more than" in r.stderr
    assert "DW_OP_entry_value(DW_OP_entry_value(" in format_ops(decode(_nested_entry_value(3)))


def test_call_nesting_is_bounded():
    class SelfCall(BaseContext):
        def call(self, kind, offset):
            return CallTarget(expression=b"\x98\x00\x00")  # DW_OP_call2 0: calls itself

    with pytest.raises(EvaluationError, match="nested more than"):
        Evaluator(SelfCall()).run(b"\x98\x00\x00")


def test_huge_piece_is_refused():
    with pytest.raises(EvaluationError, match="piece of"):
        Evaluator(BaseContext()).run(b"\x30\x93\x80\x80\x80\x80\x80\x01")  # lit0; DW_OP_piece 2**42


def _elf_with(mutate) -> bytes:
    d = bytearray(CO_PATH.read_bytes())
    mutate(d)
    return bytes(d)


@pytest.mark.parametrize("case", ["truncated_header", "truncated_sections", "bad_shstrndx", "bad_shentsize",
                                  "frame_past_end", "empty", "not_elf"])
def test_dwarf_cfi_uses_the_hardened_reader(tmp_path, case):
    data = CO_PATH.read_bytes()
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    blob = {
        "truncated_header": data[:40],
        "truncated_sections": data[: shoff + 100],
        "bad_shstrndx": _elf_with(lambda d: struct.pack_into("<H", d, 0x3E, 0xFFF0)),
        "bad_shentsize": _elf_with(lambda d: struct.pack_into("<H", d, 0x3A, 3)),
        "frame_past_end": _elf_with(lambda d: struct.pack_into("<Q", d, 0x28, len(d) - 10)),
        "empty": b"",
        "not_elf": b"hello world" * 10,
    }[case]
    p = tmp_path / "x.co"
    p.write_bytes(blob)
    r = run(["dwarf", "cfi", str(p)], timeout=120)
    assert r.returncode in (0, 2) and "internal error" not in r.stderr, r.stderr
    if case != "bad_shstrndx":
        assert_one_line_error(r)


def test_dwarf_cfi_pc_exit_codes():
    ok = run(["dwarf", "cfi", str(CO_PATH), "--pc", "0x2804"])
    assert ok.returncode == 0 and "FDE" in ok.stdout
    none = run(["dwarf", "cfi", str(CO_PATH), "--pc", "0x10"])
    assert none.returncode == 0 and "no FDE covers 0x10" in none.stdout


def test_zero_filled_frame_section_is_bounded():
    from amddbg.dwarf.cfi import parse_frame_section

    with pytest.raises(FormatError, match="zero-length entries"):
        parse_frame_section(bytes(1 << 20), file_offset=0, size=1 << 20)


def test_litmus_search_is_bounded_and_reported(tmp_path):
    from amddbg.models import checker
    from amddbg.models.litmus import load
    from amddbg.models.verdict import decide

    p = tmp_path / "t.test"
    p.write_text(LITMUS + "SATISFIABLE consistent[X]\n")
    seen = []
    v = decide(load(p), limit=1000, progress=lambda n, lim: seen.append(n))
    assert v.search_bound == 1000
    with pytest.raises(checker.SearchBound, match="bound of 1 candidate"):
        decide(load(p), limit=1)
    r = run(["litmus", str(p), "--limit", "1"])
    assert_one_line_error(r)
    assert "--limit" in r.stderr
    r = run(["litmus", str(p)])
    assert r.returncode == 0 and "search bound: 50000" in r.stdout


def test_litmus_progress_is_called(tmp_path, monkeypatch):
    from amddbg.models import checker
    from amddbg.models.litmus import load
    from amddbg.models.verdict import decide

    monkeypatch.setattr(checker, "PROGRESS_EVERY", 1)
    p = tmp_path / "t.test"
    p.write_text(LITMUS + "SATISFIABLE consistent[X]\n")
    seen = []
    decide(load(p), progress=lambda n, lim: seen.append((n, lim)))
    assert seen and seen[0] == (1, checker.DEFAULT_EXECUTION_LIMIT)


@pytest.mark.parametrize("query", ["SATISFIABLE", "SATISFIABLE #dr", "SATISFIABLE #dr =", "NOSOLUTION !",
                                   "SATISFIABLE consistent[X] &&", "SATISFIABLE " + "(" * 5000])
def test_truncated_litmus_queries(tmp_path, query):
    from amddbg.models.litmus import load

    p = tmp_path / "t.test"
    p.write_text(LITMUS + query + "\n")
    with pytest.raises(FormatError):
        load(p)


@pytest.mark.parametrize("cond", ["exists (", "exists (P0:r0 ==", "exists", "exists " + "(" * 5000 + "P0:r0 == 1"])
def test_truncated_herd_conditions(tmp_path, cond):
    from amddbg.models.litmus import load

    p = tmp_path / "t.litmus"
    p.write_text("Vulkan t\n{\nx=0;\n}\n P0@sg 0, wg 0, qf 0 ;\n ld.atom.dv.sc0 r0, x ;\n\n" + cond + "\n")
    with pytest.raises(AmddbgError):
        load(p)
