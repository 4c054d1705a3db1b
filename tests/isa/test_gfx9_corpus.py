"""GFX8/GFX9/CDNA decoder vs the stored `llvm-objdump-22 -d` listings of the corpus (acceptance: at
least 99.5% of instructions with objdump's exact address and text, per processor)."""

from __future__ import annotations

import collections
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from amddbg.cli.disasm import chunks
from amddbg.codeobj import CodeObject
from amddbg.isa import decoder_for
from amddbg.isa.gfx9.objdump import gfx9_objects, processor_of, reference

_WS = re.compile(r"\s+")


def _ours(path: Path) -> tuple[str, dict[int, str]]:
    co = CodeObject.from_path(path)
    dec = decoder_for(co.processor)
    out = {}
    for c in chunks(co):
        for ins in dec.decode_all(c.data, c.start):
            out[ins.address] = _WS.sub(" ", ins.text)
    return co.processor, out


def test_corpus_has_gfx9_objects():
    objs = gfx9_objects()
    assert len(objs) >= 20
    assert {processor_of(p) for p in objs} >= {"gfx906", "gfx908", "gfx90a", "gfx942", "gfx950"}


def test_accuracy_per_processor():
    per = collections.defaultdict(lambda: [0, 0])
    misses = []
    for path in gfx9_objects():
        proc, ours = _ours(path)
        assert proc == processor_of(path)
        for ref in reference(path):
            per[proc][1] += 1
            if ours.get(ref.address) == ref.text:
                per[proc][0] += 1
            elif len(misses) < 10:
                misses.append((path.name, hex(ref.address), ref.text, ours.get(ref.address)))
    assert per, "no GFX9-family objects with reference listings"
    for proc, (good, total) in per.items():
        assert total > 1000, proc
        assert good / total >= 0.995, (proc, good, total, misses)


def test_bytes_and_sizes_match_reference():
    """The raw bytes and instruction sizes agree with objdump's byte column."""
    for path in gfx9_objects()[:6]:
        co = CodeObject.from_path(path)
        dec = decoder_for(co.processor)
        got = {}
        for c in chunks(co):
            for ins in dec.decode_all(c.data, c.start):
                got[ins.address] = ins
        for ref in reference(path):
            ins = got[ref.address]
            assert ins.raw == ref.raw, (path.name, hex(ref.address))
            assert ins.size == len(ref.raw)


def test_branch_targets_match_objdump_labels():
    """Every branch objdump annotates `<sym+0xoff>` resolves to that address."""
    checked = 0
    for path in gfx9_objects():
        co = CodeObject.from_path(path)
        syms = {s.name: s.address for s in co.functions()}
        dec = decoder_for(co.processor)
        for ref in reference(path):
            if not ref.label or not ref.text.startswith("s_"):
                continue
            name, _, off = ref.label.partition("+")
            if name not in syms:
                continue
            want = syms[name] + (int(off, 16) if off else 0)
            ins = dec.decode(ref.raw, 0, ref.address)
            assert ins.is_branch and ins.branch_target == want, (path.name, ref)
            checked += 1
    assert checked > 100


@pytest.mark.slow
def test_rocsparse_sample_live_objdump(tmp_path):
    """Code objects extracted from librocsparse (third-party, clang-15) vs a live llvm-objdump-22."""
    objdump = shutil.which("llvm-objdump-22")
    lib = Path("/usr/lib/x86_64-linux-gnu/librocsparse.so.0")
    if objdump is None or not lib.exists():
        pytest.skip("needs llvm-objdump-22 and librocsparse0 installed")
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "bench"))
    import disasm_accuracy as acc

    from tests import bounded

    limit = bounded.count(2)  # bundles of the library (0 keeps 2: the whole library is thousands)
    good = total = 0
    for _name, blob in acc.bundles(limit, 1_500_000):
        p = tmp_path / "x.co"
        p.write_bytes(blob)
        ref = acc.parse_objdump(subprocess.run([objdump, "-d", str(p)], capture_output=True, text=True).stdout)
        _proc, ours = acc.our_disassembly(blob)
        for addr, text in ref.items():
            total += 1
            good += ours.get(addr) == text
    if total == 0:
        pytest.skip("no GFX9-family bundle entries found")
    assert good / total >= 0.995, (good, total)
