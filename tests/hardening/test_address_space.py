"""Issue 23 section 3: a valid core larger than the address space a process may use (`ulimit -v`, which
clusters set). Mapping the whole file failed with ENOMEM (a raw traceback in info/explain/the REPL, and
triage called the core unreadable); the reader now falls back to reading only what it needs (pread).
"""

from __future__ import annotations

import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "corefiles" / "scenarios" / "barrier-deadlock-gfx90a.gpu"
LIMIT = 2 << 30  # RLIMIT_AS of the child: Python and amddbg need well under this, the file is 32x it


@pytest.fixture(scope="module")
def big_core(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("big") / "big.gpu"
    shutil.copyfile(CORE, p)
    with open(p, "r+b") as f:
        f.truncate(64 << 30)  # sparse: a real 64 GB core holds VRAM segments; this one trailing zeros
    return p


def _run(argv: list[str]) -> subprocess.CompletedProcess:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))

    return subprocess.run([sys.executable, "-m", "amddbg", *argv], capture_output=True, text=True, timeout=300,
                          preexec_fn=limit, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("argv, expect", [
    (["info", "{f}"], "_Z16barrier_deadlockPiS_"),
    (["explain", "{f}"], "verdict: hang"),
    (["repl", "-batch", "-ex", "thread apply all bt", "{f}"], "workgroup_barrier () at"),
    (["repl", "{f}"], "Waves: 4"),  # the start-up summary, which runs the replay
    (["triage", "{f}"], "4 waves / 1 core"),
], ids=lambda a: a[0] if isinstance(a, list) else None)
def test_core_larger_than_the_address_space_limit(big_core, argv, expect):
    r = _run([a.format(f=big_core) for a in argv])
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr, r.stderr[-2000:]
    assert "unreadable" not in r.stdout and "Cannot allocate" not in r.stdout + r.stderr
    assert r.returncode == (3 if argv[0] == "explain" else 0), (r.returncode, r.stderr[-1000:])  # 3: a hang
    assert expect in r.stdout, r.stdout[-2000:]


def test_pread_reader_gives_the_same_core(big_core):
    """The pread path decodes the same waves as the mapping (the in-process reader, forced)."""
    from amddbg.core import elffile, open_core

    with open_core(str(CORE)) as mapped:
        want = [(w.pc, w.exec, w.sgprs[:8]) for w in mapped.waves]
    real = elffile._map
    elffile._map = lambda fd, size: elffile.PreadFile(fd, size)
    try:
        with open_core(str(big_core)) as core:
            assert isinstance(core.files[0].data, elffile.PreadFile)
            assert [(w.pc, w.exec, w.sgprs[:8]) for w in core.waves] == want
            assert [c.uri for c in core.code_objects] and core.kernel_name(core.dispatches[0])
    finally:
        elffile._map = real
