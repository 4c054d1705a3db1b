"""Issue 14 acceptance: a bounded fuzz test per parser (hypothesis; AMDDBG_FUZZ_EXAMPLES examples
each, 100 by default). Only `AmddbgError` (one line) may escape a parser; views stay escape-free.

Parsers covered here: the KFD core-state note, host notes and NT_PRPSINFO, both code object URI
grammars, DWARF expressions (decode, print, evaluate), CFI (through the hardened ELF reader), the
Khronos and herd litmus front ends, and the terminal-safety escaper. Core files and code objects
have their own fuzz tests (tests/core/test_fuzz.py, tests/codeobj/test_fuzz.py).
"""

from __future__ import annotations

import os
import re
import struct
from pathlib import Path

from conftest import CO_PATH, CORES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amddbg.errors import AmddbgError

N = int(os.environ.get("AMDDBG_FUZZ_EXAMPLES", "100"))
fuzz = settings(max_examples=N, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _one_line(exc: AmddbgError) -> None:
    assert "\n" not in exc.user_message()


def _mutations(seed: bytes, max_edits: int = 12):
    """Byte flips, truncation and growth of `seed`."""
    edits = st.lists(st.tuples(st.integers(0, max(0, len(seed) - 1)), st.integers(0, 255)), max_size=max_edits)

    @st.composite
    def strat(draw):
        d = bytearray(seed)
        for pos, val in draw(edits):
            d[pos] = val
        cut = draw(st.one_of(st.none(), st.integers(0, len(d))))
        if cut is not None:
            d = d[:cut]
        return bytes(d) + draw(st.binary(max_size=16))

    return strat()


def _kfd_seed() -> bytes:
    from amddbg.core.elffile import ElfCore
    from amddbg.core.kfd import NT_AMDGPU_KFD_CORE_STATE

    f = ElfCore(str(CORES / "gfx1100-probe.core"))
    return bytes(next(n.desc for n in f.notes if n.type == NT_AMDGPU_KFD_CORE_STATE))


KFD = _kfd_seed()


@fuzz
@given(_mutations(KFD, 24))
def test_fuzz_kfd_note(desc):
    from amddbg.core.kfd import agent_debuggable_warnings, parse_kfd_note

    try:
        note = parse_kfd_note(desc)
    except AmddbgError as exc:
        _one_line(exc)
        return
    for a in note.agents:
        agent_debuggable_warnings(a)


def _host_seed() -> list:
    from amddbg.core.elffile import ElfCore

    return [(n.name, n.type, bytes(n.desc)) for n in ElfCore(str(CORES / "gfx1100-probe.core")).notes
            if n.name == "CORE"]


HOST_NOTES = _host_seed()


@fuzz
@given(st.integers(0, len(HOST_NOTES) - 1), st.data())
def test_fuzz_host_notes(which, data):
    from types import SimpleNamespace

    from amddbg.core.host import parse_host_notes, parse_prpsinfo

    name, ntype, desc = HOST_NOTES[which]
    desc = data.draw(_mutations(desc, 16))
    host = parse_host_notes([SimpleNamespace(name=name, type=ntype, desc=desc)])
    parse_prpsinfo(desc)
    assert isinstance(host.threads, list)


URI_ALPHABET = st.sampled_from(list("file:/memory#?&=offsetsize0x123456789abcdefABCDEF%.-_~ \x1b[]/..")
                               + ["%zz", "%2F"])


@fuzz
@given(st.lists(URI_ALPHABET, max_size=60).map("".join), st.sampled_from(["", "file://", "memory://"]))
def test_fuzz_uri_parsers(text, prefix):
    from amddbg.codeobj.uri import parse_uri as parse_codeobj_uri
    from amddbg.core.rdebug import parse_uri as parse_core_uri

    for parse in (parse_codeobj_uri, parse_core_uri):
        try:
            u = parse(prefix + text)
        except AmddbgError as exc:
            _one_line(exc)
            continue
        assert u.scheme in ("file", "memory")


@fuzz
@given(st.binary(max_size=64), st.sampled_from([1, 2, 4, 8]), st.sampled_from(["llvm-user", "amd-draft"]))
def test_fuzz_dwarf_expressions(data, address_size, encoding):
    from amddbg.dwarf.expr import Encoding, decode, format_ops
    from amddbg.dwarf.expr.context import StaticContext
    from amddbg.dwarf.expr.evaluator import Evaluator

    try:
        ops = decode(data, encoding=encoding, address_size=address_size)
        format_ops(ops, encoding=Encoding(encoding))
        Evaluator(StaticContext(), encoding=encoding, address_size=address_size).run(data)
    except AmddbgError as exc:
        _one_line(exc)


CO = CO_PATH.read_bytes()


def _frame_range() -> tuple[int, int]:
    from amddbg.codeobj.elf import ElfFile

    sec = ElfFile(CO).section_by_name(".debug_frame")
    return sec.offset, sec.size


FRAME_OFF, FRAME_SIZE = _frame_range()
SHOFF = struct.unpack_from("<Q", CO, 0x28)[0]


@fuzz
@given(st.lists(st.tuples(st.one_of(st.integers(FRAME_OFF, FRAME_OFF + FRAME_SIZE - 1),
                                    st.integers(0, 63), st.integers(SHOFF, len(CO) - 1)),
                          st.integers(0, 255)), max_size=16),
       st.one_of(st.none(), st.integers(0, len(CO))))
def test_fuzz_cfi(edits, cut):
    from amddbg.dwarf.cfi import compute_rows, frame_sections

    d = bytearray(CO)
    for pos, val in edits:
        d[pos] = val
    if cut is not None:
        d = d[:cut]
    try:
        for sec in frame_sections(bytes(d), name="fuzz.co"):
            for fde in sec.fdes[:8]:
                compute_rows(sec, fde)
    except AmddbgError as exc:
        _one_line(exc)


KHRONOS = sorted(Path("/work/shared/litmus/khronos").glob("*.test")) or [None]
HERD = sorted(Path("/work/shared/litmus/dat3m").rglob("*.litmus"))[:40] or [None]
_LITMUS_TOKENS = st.sampled_from(["NEWWG", "NEWSG", "NEWTHREAD", "st.atom.scopedev.sc0 x = 1", "ld.av x = 0",
                                  "SATISFIABLE", "NOSOLUTION", "consistent[X]", "#dr", "=", "(", ")", "&&",
                                  "exists", "P0:r0", "==", "/\\", "~", "|", ";", "{", "}", "\n", " ",
                                  "\x1b[2J", "[bold]"])


def _litmus_texts(paths):
    seeds = [p.read_text() for p in paths if p is not None] or ["NEWWG\n"]

    @st.composite
    def strat(draw):
        text = draw(st.sampled_from(seeds))
        lines = text.splitlines()
        if lines and draw(st.booleans()):
            i = draw(st.integers(0, len(lines) - 1))
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        if draw(st.booleans()):
            lines.insert(draw(st.integers(0, len(lines))), "".join(draw(st.lists(_LITMUS_TOKENS, max_size=8))))
        if lines and draw(st.booleans()):
            lines = lines[: draw(st.integers(0, len(lines)))]
        return "\n".join(lines) + "\n"

    return strat()


@fuzz
@given(_litmus_texts(KHRONOS))
def test_fuzz_khronos_litmus(text):
    from amddbg.models.litmus import load
    from amddbg.models.verdict import decide

    try:
        decide(load("fuzz.test", text), limit=2000)
    except AmddbgError as exc:
        _one_line(exc)


@fuzz
@given(_litmus_texts(HERD))
def test_fuzz_herd_litmus(text):
    from amddbg.models.litmus import load
    from amddbg.models.verdict import decide

    try:
        decide(load("fuzz.litmus", text), limit=2000)
    except AmddbgError as exc:
        _one_line(exc)


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\udc80-\udcff]")


@fuzz
@given(st.text(max_size=80) | st.binary(max_size=40).map(lambda b: b.decode("utf-8", "surrogateescape")))
def test_fuzz_textsafe(text):
    from amddbg.textsafe import safe

    out = safe(text)
    assert not _CONTROL.search(out)
    if not _CONTROL.search(text):
        assert out == text
