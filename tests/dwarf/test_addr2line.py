"""`amddbg addr2line` against llvm-addr2line-22 output stored by corefiles/make_addr2line_refs.py.

The stored answers cover every instruction address of every corpus object (-a -f -i); live
comparisons with LLVM for the other flags run when llvm-addr2line-22 is installed; librocsparse
objects are checked in bounded form (AMDDBG_SLOW_LIMIT) when the library is installed.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from amddbg.cli import addr2line as cli
from amddbg.cli.main import main
from amddbg.dwarf.demangle import demangle
from amddbg.dwarf.symbolize import Symbolizer
from tests import bounded

ROOT = Path(__file__).resolve().parents[2]
CO = ROOT / "corefiles" / "co"
LLVM = shutil.which("llvm-addr2line-22")
ROCSPARSE = Path("/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1")


def _ns(**kw) -> argparse.Namespace:
    base = dict(functions=True, inlines=True, demangle=False, addresses=True, pretty=False, basenames=False)
    base.update(kw)
    return argparse.Namespace(**base)


def _reference(co: Path) -> list[tuple[int, str]]:
    data = json.loads((CO / f"{co.name}.addr2line.json").read_text())
    assert data["flags"] == "-a -f -i"
    return [(a, text) for addrs, text in data["groups"] for a in addrs]


def test_every_corpus_instruction_matches_llvm(corpus):
    ns = _ns(addresses=False)
    total = 0
    for co in corpus:
        sym = Symbolizer.from_path(co, use_cache=False)
        bad = [(a, t) for a, t in _reference(co) if cli._format(sym.frames(a, inline=True), a, ns, demangle) != t]
        assert not bad, f"{co.name}: {len(bad)} addresses differ, first {bad[0][0]:#x}"
        total += len(_reference(co))
    assert total > 100_000


def test_reference_has_inlined_frames_and_unknowns(corpus):
    """The stored oracle exercises what matters: inlined chains and ?? answers."""
    texts = [t for co in corpus for _, t in _reference(co)]
    assert any(t.count("\n") >= 4 for t in texts)  # at least two frames
    assert any(t.startswith("??\n") or "\n??:0" in t or ":0\n" in t for t in texts)


def _run_cli(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin, sys.stdout, sys.stderr
    r, w = os.pipe()
    os.write(w, stdin.encode())
    os.close(w)
    sys.stdin = os.fdopen(r)
    sys.stdout, sys.stderr = out, err
    try:
        rc = main(argv)
    finally:
        sys.stdin.close()
        sys.stdin, sys.stdout, sys.stderr = old
    return rc, out.getvalue(), err.getvalue()


def test_cli_stdin_matches_reference(corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("AMDDBG_CACHE_DIR", str(tmp_path))
    co = next(c for c in corpus if "llvm22-gfx90a" in c.name and "O2-hip" in c.name)
    ref = _reference(co)[::7]
    stdin = "".join(f"0x{a:x}\n" for a, _ in ref)
    rc, out, _ = _run_cli(["addr2line", "-a", "-f", "-i", "-e", str(co)], stdin)
    assert rc == 0
    assert out == "".join(f"0x{a:x}\n{t}" for a, t in ref)


def test_cli_arguments_and_bad_tokens(corpus, tmp_path, monkeypatch):
    """Forms observed from llvm-addr2line-22: hex without 0x, first token only, ?? for non-numbers."""
    monkeypatch.setenv("AMDDBG_CACHE_DIR", str(tmp_path))
    co = next(c for c in corpus if "llvm22-gfx90a" in c.name and "O2-hip" in c.name)
    ref = dict(_reference(co))
    a = next(iter(ref))
    rc, out, err = _run_cli(["addr2line", "-a", "-f", "-i", "-e", str(co), f"{a:x}", "zz", "0x"])
    assert rc == 0
    assert out == f"0x{a:x}\n{ref[a]}??\n??:0\n??\n??:0\n"
    assert "'0x': expected a number as module offset" in err


def test_cli_bad_file_is_one_line_error(tmp_path):
    bad = tmp_path / "x.co"
    bad.write_bytes(b"not an elf at all")
    rc, out, err = _run_cli(["addr2line", "-e", str(bad), "0x0"])
    assert rc == 2
    assert err.count("\n") == 1 and "not an ELF file" in err


def test_truncated_object_is_format_error(corpus, tmp_path):
    co = corpus[0]
    cut = tmp_path / "cut.co"
    cut.write_bytes(co.read_bytes()[:3000])
    rc, _, err = _run_cli(["addr2line", "-f", "-e", str(cut), "0x1f00"])
    assert rc == 2 and "amddbg: error:" in err and "Traceback" not in err


def test_demangler_matches_llvm_cxxfilt():
    names = json.loads((CO / "demangle.json").read_text())["names"]
    assert len(names) > 1000
    wrong = {k: (demangle(k), v) for k, v in names.items() if demangle(k) != v}
    assert not wrong, list(wrong.items())[:3]


def test_on_disk_index_is_sqlite_data_and_gives_same_answers(corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("AMDDBG_CACHE_DIR", str(tmp_path))
    co = next(c for c in corpus if "llvm19-gfx90a" in c.name and "O2-hip" in c.name)
    ref = _reference(co)
    first = Symbolizer.from_path(co, use_cache=True)  # the corpus objects are below INDEX_MIN_DEBUG_BYTES
    got1 = [first.frames(a) for a, _ in ref]
    first.close()
    files = list(tmp_path.glob("index-*.sqlite"))
    assert len(files) == 1
    assert files[0].read_bytes()[:16] == b"SQLite format 3\x00"
    with sqlite3.connect(files[0]) as db:
        meta = dict(db.execute("SELECT key, value FROM meta"))
    assert meta["sha256"] in files[0].name and int(meta["size"]) == co.stat().st_size
    second = Symbolizer.from_path(co, use_cache=True)
    assert second._cache is not None and second._cache.loaded
    assert [second.frames(a) for a, _ in ref] == got1


def test_index_is_used_from_a_dwarf_size_up(corpus, tmp_path, monkeypatch):
    """By default the on-disk index is used only for objects with INDEX_MIN_DEBUG_BYTES of DWARF or more:
    below, decoding the few units asked for is cheaper than opening SQLite. Same answers either way."""
    from amddbg.dwarf import symbolize

    monkeypatch.setenv("AMDDBG_CACHE_DIR", str(tmp_path))
    co = next(c for c in corpus if "llvm19-gfx90a" in c.name and "O2-hip" in c.name)
    ref = _reference(co)
    debug = symbolize._debug_bytes(symbolize.ElfImage.from_path(co))
    assert 0 < debug < symbolize.INDEX_MIN_DEBUG_BYTES
    small = Symbolizer.from_path(co)
    assert small._cache is None
    got = [small.frames(a) for a, _ in ref]
    small.close()
    assert not list(tmp_path.iterdir())
    monkeypatch.setattr(symbolize, "INDEX_MIN_DEBUG_BYTES", debug)  # now the object is "large enough"
    for _ in range(2):  # builds the index, then reads it
        big = Symbolizer.from_path(co)
        assert big._cache is not None
        assert [big.frames(a) for a, _ in ref] == got
        big.close()
    assert big._cache.loaded and len(list(tmp_path.glob("index-*.sqlite"))) == 1


def test_cache_can_be_disabled(corpus, tmp_path, monkeypatch):
    from amddbg.dwarf import symbolize

    monkeypatch.setattr(symbolize, "INDEX_MIN_DEBUG_BYTES", 0)  # so that only AMDDBG_NO_CACHE stops it
    monkeypatch.setenv("AMDDBG_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("AMDDBG_NO_CACHE", "1")
    s = Symbolizer.from_path(corpus[0])
    s.frames(0x1f00)
    s.close()
    assert not list(tmp_path.iterdir())


def test_corrupt_cache_file_is_ignored(corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("AMDDBG_CACHE_DIR", str(tmp_path))
    co = corpus[0]
    s = Symbolizer.from_path(co, use_cache=True)
    key = s._cache.key
    (tmp_path / f"index-{key}.sqlite").write_bytes(b"garbage" * 100)
    s2 = Symbolizer.from_path(co, use_cache=True)
    assert not s2._cache.loaded
    a, text = _reference(co)[0]
    assert cli._format(s2.frames(a), a, _ns(addresses=False), demangle) == text


def _maps(co: Path):
    """(DwarfInfo, {cu: (nested map, LLVM-exact map)}) for every unit of ``co`` with code."""
    from amddbg.dwarf.context import DwarfInfo
    from amddbg.dwarf.index import NestedSubroutineMap, build_cu_ranges, exact_map, scan_subroutines

    d = DwarfInfo.from_path(co)
    cus = sorted(set(build_cu_ranges(d).cus))
    return d, {cu: (NestedSubroutineMap(scan_subroutines(d.unit(cu))), exact_map(scan_subroutines(d.unit(cu))))
               for cu in cus}


def test_nested_lookup_equals_llvm_address_die_map(corpus):
    """The cold path descends the DIE tree; the index stores LLVM's replayed AddrDieMap. Same innermost
    subroutine for every instruction address of the corpus, without falling back."""
    from amddbg.dwarf.index import build_cu_ranges

    checked = inlined = 0
    for co in corpus:
        d, maps = _maps(co)
        cr = build_cu_ranges(d)
        for a, _ in _reference(co):
            cu = cr.find(a)
            if cu is None:
                continue
            nested, exact = maps[cu]
            leaf = exact.leaf(a)
            assert nested.leaf(a) == leaf, (co.name, hex(a))
            checked += 1
            inlined += leaf >= 0 and exact.subs[leaf].inlined
        assert all(n._exact is None for n, _ in maps.values()), co.name
    assert checked > 100_000 and inlined > 2_000


@pytest.mark.parametrize("how", ["child outside parent", "overlapping siblings"])
def test_nested_lookup_falls_back_when_ranges_do_not_nest(corpus, how):
    """Ranges that do not nest (made so by editing a real unit's decoded ranges) switch the unit to
    the exact replay, so quirky overlaps still resolve as LLVM's map does."""
    from amddbg.dwarf.index import exact_map

    co = next(c for c in corpus if "llvm19-gfx90a" in c.name and "O2-hip" in c.name)
    _, maps = _maps(co)
    nested, _ = next(m for m in maps.values() if any(s.inlined for s in m[1].subs))
    scan = nested.scan
    kids = nested._children()
    parent = next(p for p, ks in kids.items() if p >= 0 and scan.ranges(p) and
                  sum(1 for k in ks if scan.ranges(k)) >= 2)
    first, second = [k for k in kids[parent] if scan.ranges(k)][:2]
    lo, hi, _ = scan.ranges(first)[0]
    if how == "child outside parent":
        top = max(r[1] for r in scan.ranges(parent))
        scan._ranges[first] = [(lo, top + 0x40, first)]
    else:
        scan._ranges[second] = [(lo, hi, second)] + scan.ranges(second)
    exact = exact_map(scan)
    probe = sorted({lo, hi - 1, hi, *(r[0] for k in kids[parent] for r in scan.ranges(k))})
    assert [nested.leaf(a) for a in probe] == [exact.leaf(a) for a in probe]
    assert nested._exact is not None


# ---------------------------------------------------------------------- live LLVM comparisons
FLAG_SETS = [["-f"], ["-i"], ["-a", "-p", "-f", "-i"], ["-C", "-f", "-i"], ["-a", "-p", "-C", "-f", "-i"],
             ["-s", "-f"], []]


@pytest.mark.skipif(LLVM is None, reason="llvm-addr2line-22 not installed")
@pytest.mark.parametrize("flags", FLAG_SETS, ids=lambda f: "".join(f) or "none")
def test_flags_match_llvm_live(corpus, flags, tmp_path, monkeypatch):
    monkeypatch.setenv("AMDDBG_CACHE_DIR", str(tmp_path))
    rnd = random.Random(4)
    for co in rnd.sample(corpus, 4):
        addrs = [a for a, _ in _reference(co)]
        sample = sorted(rnd.sample(addrs, min(60, len(addrs))))
        tokens = [f"0x{a:x}" for a in sample] + ["0x0", "zz", "1", "0xffffffffff"]
        stdin = "\n".join(tokens) + "\n"
        want = subprocess.run([LLVM, *flags, "-e", str(co)], input=stdin, capture_output=True, text=True).stdout
        rc, out, _ = _run_cli(["addr2line", *flags, "-e", str(co)], stdin)
        assert rc == 0
        assert out == want, co.name


@pytest.mark.skipif(LLVM is None, reason="llvm-addr2line-22 not installed")
def test_symbol_name_inputs_match_llvm_live(corpus, tmp_path, monkeypatch):
    monkeypatch.setenv("AMDDBG_CACHE_DIR", str(tmp_path))
    co = next(c for c in corpus if "llvm22-gfx90a" in c.name and "O2-hip" in c.name)
    sym = Symbolizer.from_path(co, use_cache=False)
    names = sorted({s.name for s in sym.elf.symbols if s.type == 2})[:4]
    tokens = [*names, f"{names[0]}+0x10", "no_such_symbol"]
    stdin = "\n".join(tokens) + "\n"
    want = subprocess.run([LLVM, "-a", "-f", "-e", str(co)], input=stdin, capture_output=True, text=True).stdout
    assert _run_cli(["addr2line", "-a", "-f", "-e", str(co)], stdin)[1] == want


# ---------------------------------------------------------------------- librocsparse (bounded)
def _rocsparse_sample(n: int):
    from amddbg.codeobj.bundle import iter_bundle_entries
    from amddbg.dwarf.sections import ElfImage

    img = ElfImage.from_path(ROCSPARSE)
    objs = []
    for e in iter_bundle_entries(img.data(".hip_fatbin"), str(ROCSPARSE)):  # lazy: only the first bundles
        if e.is_device:
            objs.append(e)
            if len(objs) >= max(3 * n, 12):
                break
    return random.Random(7).sample(objs, min(n, len(objs)))


@pytest.mark.slow
@pytest.mark.skipif(LLVM is None or shutil.which("llvm-objdump-22") is None, reason="LLVM 22 tools not installed")
@pytest.mark.skipif(not ROCSPARSE.exists(), reason="librocsparse0 not installed")
def test_rocsparse_objects_match_llvm(tmp_path):
    limit = bounded.count(1)  # objects of the library (0 keeps 1: the whole library is thousands)
    ns = _ns()
    good = total = 0
    for i, e in enumerate(_rocsparse_sample(limit)):
        p = tmp_path / f"r{i}.co"
        p.write_bytes(bytes(e.data))
        dump = subprocess.run(["llvm-objdump-22", "-d", str(p)], capture_output=True, text=True).stdout
        addrs = [int(x, 16) for x in re.findall(r"// ([0-9A-F]{8,16}):", dump)]
        addrs = sorted(random.Random(i).sample(addrs, min(3000, len(addrs))))
        sym = Symbolizer.from_path(p, use_cache=False)
        ours = [cli._format(sym.frames(a), a, ns, demangle) for a in addrs]
        r = subprocess.run([LLVM, "-a", "-f", "-i", "-e", str(p)], input="".join(f"0x{a:x}\n" for a in addrs),
                           capture_output=True, text=True)
        theirs = [b for b in re.split(r"(?m)^(?=0x[0-9a-f]+$)", r.stdout) if b]
        good += sum(x == y for x, y in zip(ours, theirs, strict=True))
        total += len(addrs)
    assert good / total >= 0.995


def test_corrupt_debug_sections_give_format_errors(corpus, tmp_path):
    """Random byte damage in .debug_* sections: answers or one-line FormatErrors, never other exceptions."""
    from amddbg.dwarf.sections import ElfImage
    from amddbg.errors import AmddbgError

    rnd = random.Random(3)
    co = next(c for c in corpus if "llvm22-gfx90a" in c.name and "O2-hip" in c.name)
    data = co.read_bytes()
    img = ElfImage(data)
    debug = [s for s in img.sections if s.name.startswith(".debug_") and s.size]
    addrs = [a for a, _ in _reference(co)][::40]
    errors = 0
    for trial in range(40):
        buf = bytearray(data)
        sec = rnd.choice(debug)
        for _ in range(rnd.randint(1, 8)):
            buf[sec.offset + rnd.randrange(sec.size)] = rnd.randrange(256)
        if trial % 4 == 0:  # also truncate the section's tail to zeros
            cut = rnd.randrange(sec.size)
            buf[sec.offset + cut:sec.offset + sec.size] = bytes(sec.size - cut)
        try:
            sym = Symbolizer(ElfImage(bytes(buf), name=f"damaged-{trial}.co"), use_cache=False)
            for a in addrs:
                sym.frames(a)
        except AmddbgError as exc:
            errors += 1
            assert "\n" not in exc.user_message()
    assert errors > 0


@pytest.mark.parametrize(("mangled", "llvm"), [  # what llvm-cxxfilt-22 prints for each
    ("_Z4k_bfPKDv2_DF16bS1_Pf", "k_bf(std::bfloat16_t vector[2] const*, std::bfloat16_t vector[2] const*, float*)"),
    ("_Z1fDF16b", "f(std::bfloat16_t)"),
    ("_Z3k_hPKDv2_DF16_S1_PDF16_", "k_h(_Float16 vector[2] const*, _Float16 vector[2] const*, _Float16*)")])
def test_demangles_bf16_and_float16_as_llvm_does(mangled, llvm):
    """__bf16 parameters (HIP's bf16 kernels) mangle as DF16b; without it such a kernel could not be named by
    its demangled name (amddbg run --kernel)."""
    assert demangle(mangled) == llvm
