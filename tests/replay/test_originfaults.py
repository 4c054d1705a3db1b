"""Faults name the pointer the address came from (issue 20): corefiles/originfaults (a NULL element of a pointer
table picked by a kernel argument, an index one past the end of an array argument in a `<=` loop, a pointer read
from a field of a struct argument) and inlinehangs' null_entry, built by clang-19/22 for gfx90a, gfx942, gfx1100 and
gfx1200 (wave32/wave64) at -O0 (pointers reloaded from the stack) and -O2 (address registers reused at once).

Each case writes a core with `amddbg run --core` and drives `amddbg explain --json` and the text, as a user would:
the finding, the faulting lanes, the line (from `@marker` comments in the source) and `details.origin`, which the
text quotes. The matrix (4 kernels x 24 objects) is marked slow; CI runs its cover (tests/bounded.py, sample="axes":
six cases that run every kernel, every target, both compilers and -O0 and -O2 somewhere, rotating);
AMDDBG_SLOW_LIMIT=0 runs all of them."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests import bounded

ROOT = Path(__file__).resolve().parents[2]
OF = ROOT / "corefiles" / "originfaults"
IH = ROOT / "corefiles" / "inlinehangs"
OBJECTS = sorted(p.name[len("originfaults-"):-3] for p in OF.glob("originfaults-*.co"))


def _markers(src: Path) -> dict[str, int]:
    out = {}
    for n, text in enumerate(src.read_text().splitlines(), 1):
        for m in re.finditer(r"@([a-z0-9-]+)", text):
            out[m.group(1)] = n
    return out


L = _markers(OF / "originfaults.hip")
LI = _markers(IH / "inlinehangs.hip")


def _case(kernel: str, w: int):
    """(object folder, corpus prefix, launch arguments, faulting lanes, expected origin, line)."""
    all_lanes = list(range(w))
    if kernel == "null_weight":
        return (OF, "originfaults", ["buf:i64:4", f"buf:f32:{w}:iota", f"buf:f32:{w}", "i32:3"], all_lanes,
                "the pointer comes from weights[3], which is NULL", L["weight-load"])
    if kernel == "past_loop":
        return (OF, "originfaults", ["buf:i32:1024:iota", f"buf:i32:{w}", "i32:1024"], [1024 % w],
                "offsets[1024], the first element past the end of the memory of offsets (4096 bytes from its start "
                "are mapped)", L["loop-load"])
    if kernel == "struct_field":
        return (OF, "originfaults", ["buf:i32:4:values=64,3,0,0", f"buf:i32:{w}"], all_lanes,
                "the pointer comes from p->data, which is NULL", L["field-load"])
    return (IH, "inlinehangs", ["buf:i64:4", f"buf:i32:{w}:iota", f"buf:i32:{w}"], list(range(3, w, 4)),
            "the pointer comes from table[3], which is NULL", LI["null-load"])


KERNELS = ["null_weight", "past_loop", "struct_field", "null_entry"]


def _params():
    """The cover of the matrix: every kernel, target, compiler and level somewhere (tests/bounded.py)."""
    cases = bounded.matrix([f"originfaults-{o}.co" for o in OBJECTS], KERNELS, sample="axes")
    return [pytest.param(c.obj[len("originfaults-"):-3], c.kernel, id=f"{c.kernel}-{c.obj[len('originfaults-'):-3]}",
                         marks=[pytest.mark.slow] if c.slow else []) for c in cases]


def _amddbg(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "amddbg", *map(str, args)], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "COLUMNS": "250"})


def _ranges(lanes: list[int]) -> str:
    return f"0-{lanes[-1]}" if lanes == list(range(len(lanes))) and len(lanes) > 1 else ",".join(map(str, lanes))


def test_the_corpus_is_built_for_every_target():
    assert len(OBJECTS) == 24
    assert {re.search(r"gfx\d+\w?", o).group() for o in OBJECTS} == {"gfx90a", "gfx942", "gfx1100", "gfx1200"}
    assert {o[-2:] for o in OBJECTS} == {"O0", "O2"} and {o[4:6] for o in OBJECTS} == {"19", "22"}


@pytest.mark.parametrize("obj,kernel", _params())
def test_fault_names_the_pointer(tmp_path, obj, kernel):
    w = int(re.search(r"-w(\d+)-", obj).group(1))
    folder, corpus, args, lanes, origin, line = _case(kernel, w)
    core = tmp_path / f"{kernel}.gpu"
    cmd = ["run", folder / f"{corpus}-{obj}.co", "--kernel", kernel, "--grid", w, "--block", w, "--core", core]
    for a in args:
        cmd += ["--arg", a]
    r = _amddbg(*cmd)
    assert core.exists(), r.stdout + r.stderr
    r = _amddbg("explain", "--json", core)
    assert r.returncode == 4, r.stdout + r.stderr
    doc = json.loads(r.stdout)
    faults = [f for f in doc["findings"] if f["kind"] == "memory_violation"]
    assert len(faults) == 1, [(f["kind"], f["summary"]) for f in doc["findings"]]
    f = faults[0]
    assert f["details"]["lanes"] == _ranges(lanes), f["details"]
    assert f["details"]["origin"] == origin, f["summary"]
    assert f["summary"].endswith(f"by lane{'s' if len(lanes) > 1 else ''} {_ranges(lanes)}: {origin}")
    assert [loc["line"] for loc in f["locations"]] == [line], f["locations"]
    text = _amddbg("explain", core).stdout
    assert f": {origin}" in " ".join(text.split()), text  # (the text is folded at words to the width)
