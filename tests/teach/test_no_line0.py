"""No line 0 in the divergence views (`amddbg divergence --json`, the text): reconvergence points, loop overhead
and spill code have line-0 rows in the line table; they are counted on gdb's line (the preceding non-zero row,
amddbg.dwarf.attribution). The rows are checked to exist, so the test is not vacuous."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEACH = ROOT / "corefiles" / "teach"
LAUNCH = {"one_lane_branch": ["--arg", "buf:i32:65"], "lane_loop": ["--arg", "buf:i32:64:iota"],
          "divergence_demo": ["--arg", "buf:i32:128:iota"]}


@pytest.mark.parametrize("obj", sorted(p.name for p in TEACH.glob("*.co")))
@pytest.mark.parametrize("kernel", sorted(LAUNCH))
def test_divergence_views_never_say_line_0(obj, kernel):
    dump = shutil.which("llvm-dwarfdump-22")
    if dump is None:
        pytest.skip("llvm-dwarfdump-22 is not installed (shows the object has line-0 rows)")
    rows = subprocess.run([dump, "--debug-line", str(TEACH / obj)], capture_output=True, text=True).stdout
    assert re.search(r"^0x[0-9a-f]{16}\s+0\s", rows, re.M)  # line-0 rows exist in this object
    argv = [sys.executable, "-m", "amddbg", "divergence", str(TEACH / obj), "--kernel", kernel, "--grid", "64",
            "--block", "64", *LAUNCH[kernel]]
    doc = json.loads(subprocess.run([*argv, "--json"], capture_output=True, text=True, check=True).stdout)
    lines = [x["line"] for x in doc["lines"]] + [x["line"] for x in doc["divergences"] + doc["reconvergences"]
                                                 if x.get("file")]
    assert lines and all(lines), doc
    text = subprocess.run(argv, capture_output=True, text=True, check=True,
                          env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"}).stdout
    assert not re.search(r"(\.hip:0\b|at line 0\b)", text), text
