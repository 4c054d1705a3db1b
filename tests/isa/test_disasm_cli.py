"""`amddbg disasm`: JSON Lines against the stored llvm-objdump listing, selection options, errors."""

from __future__ import annotations

import json

import pytest

from amddbg.cli.main import main
from amddbg.codeobj import CodeObject
from amddbg.isa.gfx9.objdump import gfx9_objects, reference


@pytest.fixture(scope="module")
def obj():
    return next(p for p in gfx9_objects() if "llvm22-gfx90a" in p.name and "O2-hip" in p.name)


def _run(capsys, *argv) -> tuple[int, str, str]:
    rc = main(["disasm", *map(str, argv)])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def test_json_lines_match_objdump(capsys, obj):
    rc, out, _ = _run(capsys, obj, "--json")
    assert rc == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["address"] for r in rows] == sorted(r["address"] for r in rows)
    assert set(rows[0]) == {"address", "bytes", "text"}
    by_addr = {r["address"]: r for r in rows}
    ref = reference(obj)
    good = 0
    for line in ref:
        r = by_addr[line.address]
        assert r["bytes"] == line.raw.hex()
        good += " ".join(r["text"].split()) == line.text
    assert good / len(ref) >= 0.995


def test_text_output_has_symbols_and_labels(capsys, obj):
    rc, out, _ = _run(capsys, obj)
    assert rc == 0
    co = CodeObject.from_path(obj)
    for f in co.functions():
        assert f"{f.address:016x} <{f.name}>:" in out
    labelled = [ln for ln in reference(obj) if ln.label]
    assert labelled and f"<{labelled[0].label}>" in out


def test_kernel_function_and_address_selection(capsys, obj):
    co = CodeObject.from_path(obj)
    kernel = next(s for s in co.functions() if s.kind == "kernel")
    func = next(s for s in co.functions() if s.kind == "function")
    rc, out, _ = _run(capsys, obj, "--json", "--kernel", kernel.name)
    rows = [json.loads(x) for x in out.splitlines()]
    assert rc == 0 and rows[0]["address"] == kernel.address
    assert all(kernel.address <= r["address"] < kernel.address + kernel.size for r in rows)
    rc, out, _ = _run(capsys, obj, "--json", "--function", func.name)
    rows = [json.loads(x) for x in out.splitlines()]
    assert rc == 0 and rows[0]["address"] == func.address
    a, b = func.address + 8, func.address + 24
    rc, out, _ = _run(capsys, obj, "--json", "--address", f"{a:#x}:{b:#x}")
    rows = [json.loads(x) for x in out.splitlines()]
    assert rc == 0 and rows and all(a <= r["address"] < b for r in rows)
    rc, out, _ = _run(capsys, obj, "--json", "--address", hex(func.address + 8))
    rows = [json.loads(x) for x in out.splitlines()]
    assert rows[0]["address"] == func.address


def test_errors_are_one_line(capsys, obj, tmp_path):
    rc, _, err = _run(capsys, obj, "--kernel", "no_such_kernel")
    assert rc == 2 and "no kernel named 'no_such_kernel'" in err and "Traceback" not in err
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"not an elf at all")
    rc, _, err = _run(capsys, junk)
    assert rc == 2 and err.startswith("amddbg: error:")


def test_source_lines_or_not_supported(capsys, obj):
    rc, out, err = _run(capsys, obj, "--source", "--function",
                        next(s.name for s in CodeObject.from_path(obj).functions()))
    import amddbg.dwarf as dwarf

    if getattr(dwarf, "lines_for_disasm", None) is None:
        assert rc == 2 and "DWARF line tables" in err
    else:
        assert rc == 0
        assert any(line.strip().startswith(";") for line in out.splitlines())
