"""Shared pieces of the hostile-input suite (issue 14): hostile names, FIFOs, sparse files, and a
runner that gives every amddbg process a time limit and a data-memory limit."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CO_PATH = ROOT / "corefiles" / "co" / "llvm22-gfx90a-w64-O2-hip.co"
CORES = ROOT / "corefiles" / "cores"

# 16 bytes each, the length of the symbol they replace, so a code object can be patched in place.
# An OSC title sequence (ESC ] 0 ; ... BEL), rich markup that would vanish ([b]) or raise ([/x]).
HOSTILE_NAME = b"\x1b]0;T\x07[/x][b]zzz"
assert len(HOSTILE_NAME) == len(b"_Z11third_leveli")


def hostile_code_object() -> bytes:
    """The gfx90a corpus object with device function `_Z11third_leveli` renamed to HOSTILE_NAME
    (symbol table and DWARF strings alike) and its DWARF name `third_level` (11 bytes) to an ESC
    sequence that clears the screen."""
    data = CO_PATH.read_bytes()
    data = data.replace(b"_Z11third_leveli", HOSTILE_NAME)
    return data.replace(b"third_level\0", b"\x1b[2J[bold]x\0")


def run(argv: list[str], *, timeout: float = 30, data_limit: int = 1 << 30, **kw) -> subprocess.CompletedProcess:
    """`python -m amddbg ARGV` with a wall-clock limit and RLIMIT_DATA (heap; file mappings are
    not counted), so a command that reads gigabytes fails the test instead of the machine."""

    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_DATA, (data_limit, data_limit))

    return subprocess.run([sys.executable, "-m", "amddbg", *argv], capture_output=True, text=True,
                          timeout=timeout, preexec_fn=limits, errors="surrogateescape", **kw)


def assert_one_line_error(r: subprocess.CompletedProcess) -> None:
    assert r.returncode == 2, (r.returncode, r.stdout[-500:], r.stderr[-500:])
    assert r.stderr.startswith("amddbg: error: ") and r.stderr.count("\n") == 1, r.stderr
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr


@pytest.fixture
def fifo(tmp_path) -> Path:
    p = tmp_path / "pipe"
    os.mkfifo(p)
    return p


@pytest.fixture
def sparse_elf(tmp_path) -> Path:
    """The corpus object with its DWARF sections moved 100 GB into a 200 GB sparse file, 50 GB each."""
    import struct

    d = bytearray(CO_PATH.read_bytes())
    shoff = struct.unpack_from("<Q", d, 0x28)[0]
    _, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
    stroff = struct.unpack_from("<Q", d, shoff + shstrndx * 64 + 24)[0]
    for i in range(shnum):
        base = shoff + i * 64
        nm = struct.unpack_from("<I", d, base)[0]
        name = bytes(d[stroff + nm : d.index(b"\0", stroff + nm)])
        if name in (b".debug_line", b".debug_info", b".debug_frame", b".debug_abbrev", b".debug_str"):
            struct.pack_into("<QQ", d, base + 24, 100 << 30, 50 << 30)
    p = tmp_path / "sparse.co"
    p.write_bytes(d)
    with open(p, "r+b") as f:
        f.truncate(200 << 30)
    return p
