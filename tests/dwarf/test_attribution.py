"""No line 0 reaches a person: line-0 rows get gdb's line (the preceding non-zero row of the sequence, within the
function), checked against llvm-dwarfdump-22's row listing and llvm-nm-22's function bounds (oracles no one here
wrote), on every code object of corefiles/inlinehangs and the -O0 scenario objects; `amddbg addr2line` keeps
llvm-addr2line's 0, and `info line` / `disassemble /s` / `bt` say the attributed line."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from amddbg.dwarf.attribution import user_frames
from amddbg.dwarf.symbolize import Symbolizer

ROOT = Path(__file__).resolve().parents[2]
OBJECTS = sorted((ROOT / "corefiles" / "inlinehangs").glob("inlinehangs-*.co")) + sorted(
    (ROOT / "corefiles" / "scenarios").glob("scenarios-*-O0.co"))
DWARFDUMP = shutil.which("llvm-dwarfdump-22")
NM = shutil.which("llvm-nm-22")
pytestmark = pytest.mark.skipif(DWARFDUMP is None or NM is None, reason="llvm-dwarfdump-22 / llvm-nm-22 not installed")


def _sequences(obj: Path) -> list[list[tuple[int, int]]]:
    """Line-table sequences as llvm-dwarfdump prints them: [(address, line)], the end_sequence row left out."""
    text = subprocess.run([DWARFDUMP, "--debug-line", str(obj)], capture_output=True, text=True, check=True).stdout
    seqs, cur = [], []
    for line in text.splitlines():
        m = re.match(r"0x([0-9a-f]{16})\s+(\d+)\s+\d+", line)
        if not m:
            continue
        if "end_sequence" in line:
            seqs.append(cur)
            cur = []
        else:
            cur.append((int(m.group(1), 16), int(m.group(2))))
    return seqs


def _functions(obj: Path) -> list[tuple[int, int]]:
    text = subprocess.run([NM, "-S", "--defined-only", str(obj)], capture_output=True, text=True, check=True).stdout
    out = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in ("T", "t"):
            out.append((int(parts[0], 16), int(parts[0], 16) + int(parts[1], 16)))
    return out


def _expected(seqs, funcs, address: int) -> int:
    """gdb's line for a line-0 address: the last non-zero row before it in its sequence and function, else the
    first after it in its function."""
    lo, hi = next((a, b) for a, b in funcs if a <= address < b)
    for rows in seqs:
        idx = [k for k, (a, _ln) in enumerate(rows) if a <= address]
        if not idx or not rows[0][0] <= address:
            continue
        k = idx[-1]
        if rows[k][0] > address or (k + 1 < len(rows) and rows[k + 1][0] <= address):
            continue
        before = [ln for a, ln in rows[:k] if ln and a >= lo]
        if before:
            return before[-1]
        after = [ln for a, ln in rows[k + 1:] if ln and a < hi]
        return after[0] if after else 0
    return 0


def _line0_addresses(seqs) -> list[int]:
    return [a for rows in seqs for a, ln in rows if ln == 0]


@pytest.mark.parametrize("obj", OBJECTS, ids=lambda p: p.name)
def test_line0_rows_get_gdbs_line(obj):
    seqs = _sequences(obj)
    funcs = _functions(obj)
    sym = Symbolizer.from_path(obj, use_cache=False)
    zeros = [a for a in _line0_addresses(seqs) if any(lo <= a < hi for lo, hi in funcs)]
    for a in zeros:
        assert sym.frames(a)[0].line == 0  # addr2line's answer stays llvm-addr2line's
        f = user_frames(sym, a)[0]
        assert f.line == _expected(seqs, funcs, a) and f.line, (hex(a), f)
        assert f.how in ("preceding", "following")
        for outer in user_frames(sym, a)[1:]:
            assert outer.line, (hex(a), outer)  # call sites too


def test_the_corpus_has_line0_rows():
    """The test above is not vacuous: -O0 and -O2 objects both have line-0 rows inside functions."""
    for opt in ("O0", "O2"):
        objs = [o for o in OBJECTS if o.name.startswith("inlinehangs") and o.name.endswith(f"-{opt}.co")]
        assert sum(len(_line0_addresses(_sequences(o))) for o in objs) > 20, opt


def _amddbg(*args: str) -> str:
    r = subprocess.run([sys.executable, "-m", "amddbg", *args], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_views_say_the_attributed_line():
    """`info line *ADDR` and `disassemble /s` on a line-0 address (gfx942 -O0, the loop's head), through the CLI."""
    obj = ROOT / "corefiles" / "inlinehangs" / "inlinehangs-llvm19-gfx942-w64-O0.co"
    seqs, funcs = _sequences(obj), _functions(obj)
    a = _line0_addresses(seqs)[0]
    want = _expected(seqs, funcs, a)
    out = _amddbg("-batch", "-ex", f"info line *{a:#x}", "-ex", f"disassemble /s {a - 8:#x},{a + 8:#x}", str(obj))
    assert f"Line {want} of " in out, out
    assert not re.search(r"^0\t", out, re.M) and not re.search(r"\.hip:0\b", out), out
    assert ":0" in subprocess.run([sys.executable, "-m", "amddbg", "addr2line", "-e", str(obj), hex(a)],
                                  capture_output=True, text=True).stdout  # addr2line keeps LLVM's answer


def test_bt_inside_a_loop_at_a_line0_row(tmp_path):
    """gfx942 -O0, a wave stopped on loop code whose row says line 0 (slow_loop's loop): `bt` says the line gdb
    gives (the preceding row's), llvm-addr2line-22 says 0 for the same PC. The stop is found by stepping the
    emulator in-process to the first line-0 PC of the loop; the core is then written by `amddbg run`."""
    from amddbg.emu.machine import Machine

    obj = ROOT / "corefiles" / "scenarios" / "scenarios-gfx942-O0.co"
    seqs, funcs = _sequences(obj), _functions(obj)
    rows = sorted((a, ln) for s in seqs for a, ln in s)
    zero = {a for a, ln in rows if ln == 0}
    args = ["buf:i32:64", "i32:300"]
    m = Machine(obj)
    m.dispatch("slow_loop", (64, 1, 1), (64, 1, 1), args)
    executed: list[int] = []
    m.run(max_instructions=20_000, hook=lambda ev: executed.append(ev.pc - m.load))
    lo, hi = next((a, b) for a, b in funcs if a <= executed[0] < b)

    def row_of(rel: int) -> int:
        return max(a for a, _ln in rows if a <= rel)

    # after n instructions the wave's PC is the n-th executed one: the first line-0 PC it comes back to
    n = next(k for k in range(1, len(executed)) if row_of(executed[k]) in zero and executed[k] in executed[:k])
    rel = executed[n]
    assert lo <= rel < hi
    core = tmp_path / "loop.gpu"
    _amddbg("run", str(obj), "--kernel", "slow_loop", "--grid", "64", "--block", "64", *[x for a in args for x in
                                                                                        ("--arg", a)],
            "--max-instructions", str(n), "--core", str(core))
    bt = _amddbg("-batch", "-ex", "bt", str(core))
    want = _expected(seqs, funcs, rel)
    assert want and f"scenarios.hip:{want}" in bt and f"{m.load + rel:#018x}" in bt, (hex(rel), bt)
    a2l = subprocess.run([shutil.which("llvm-addr2line-22") or "llvm-addr2line-22", "-e", str(obj), hex(rel)],
                         capture_output=True, text=True).stdout
    assert a2l.strip().endswith(":0"), a2l
