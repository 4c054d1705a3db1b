"""Start-up cost of the commands that are run many times from scripts (`--version`, `addr2line`), checked
by what they import rather than by seconds (the machine's load must not decide a test).

Issue 23 s4: `amddbg --version` took 0.25 s because, with no subcommand named, every subcommand module
(the emulator, replay, numpy, ...) was imported to build --help; `addr2line` imported the whole `codeobj`
package and `dataclasses` (inspect, ast, dis: ~10 ms) for its debug-section check, and SQLite for
objects whose DWARF is decoded faster than the index opens.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from amddbg import __version__

ROOT = Path(__file__).resolve().parents[2]
CO = ROOT / "corefiles" / "co" / "llvm22-gfx1200-w64-O0-hip.co"  # a few KB of DWARF: no on-disk index

# Never needed by these commands; each one costs milliseconds of import.
HEAVY = {"dataclasses", "inspect", "shutil", "sqlite3", "json", "typing", "numpy", "rich", "msgpack",
         "prompt_toolkit", "importlib.metadata", "elftools", "capstone"}


# `amddbg ARGS` as the console script runs it (`entry()` is `main()` and then an exit that would skip
# our report), then the names of the modules it imported, written to the file named first.
_RUN = """
import sys
from amddbg.cli.main import main
report, args = sys.argv[1], sys.argv[2:]
try:
    main(args)
except SystemExit:
    pass
finally:
    sys.stdout.flush()
    with open(report, "w") as f:
        f.write(" ".join(sorted(sys.modules)))
"""


def _imported(tmp: Path, args: list[str], stdin: str = "", env: dict | None = None):
    report = tmp / "modules.txt"
    r = subprocess.run([sys.executable, "-c", _RUN, str(report), *args], input=stdin, capture_output=True,
                       text=True, env=dict(os.environ, **(env or {})), timeout=120)
    return r, set(report.read_text().split())


def test_version_imports_no_subcommand_and_no_argparse(tmp_path):
    r, mods = _imported(tmp_path, ["--version"])
    assert r.returncode == 0 and r.stdout == f"amddbg {__version__}\n"
    amddbg_mods = {m for m in mods if m.startswith("amddbg")}
    assert amddbg_mods <= {"amddbg", "amddbg.errors", "amddbg.cli", "amddbg.cli.main"}, amddbg_mods
    assert not mods & (HEAVY | {"argparse"}), mods & (HEAVY | {"argparse"})


def test_version_after_debug_and_before_anything_else():
    for argv in (["--debug", "--version"], ["--version", "info"], ["--version", "--no-such-option"]):
        r = subprocess.run([sys.executable, "-m", "amddbg", *argv], capture_output=True, text=True, timeout=120)
        assert (r.returncode, r.stdout, r.stderr) == (0, f"amddbg {__version__}\n", ""), argv


def test_addr2line_imports_only_its_own_modules(tmp_path):
    cache = tmp_path / "cache"
    r, mods = _imported(tmp_path, ["addr2line", "-f", "-i", "-e", str(CO)], stdin="0x1000\n0x1100\n",
                        env={"AMDDBG_CACHE_DIR": str(cache)})
    assert r.returncode == 0 and r.stderr == "" and r.stdout.count("\n") == 4
    assert not mods & HEAVY, mods & HEAVY
    cli = {m for m in mods if m.startswith("amddbg.cli.")}
    assert cli == {"amddbg.cli.main", "amddbg.cli.addr2line"}, cli
    outside = {m for m in mods if m.startswith("amddbg.") and m.split(".")[1] not in ("cli", "dwarf", "codeobj")}
    assert outside <= {"amddbg.errors", "amddbg.textsafe"}, outside
    assert {m for m in mods if m.startswith("amddbg.codeobj")} == {"amddbg.codeobj", "amddbg.codeobj.elf"}
    assert not cache.exists()  # below INDEX_MIN_DEBUG_BYTES: no index written


def test_help_still_lists_every_subcommand():
    from amddbg.cli.main import SUBCOMMANDS

    for argv in (["--help"], ["-h", "addr2line"]):
        r = subprocess.run([sys.executable, "-m", "amddbg", *argv], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0
        for name, (_, help_text) in SUBCOMMANDS.items():
            assert name in r.stdout and help_text.split()[0] in r.stdout, (argv, name)
        assert "not available yet" not in r.stdout, argv


def test_version_into_a_closed_pipe_is_quiet():
    """As argparse's version action: a failed write of the version is ignored, exit 0, no traceback."""
    read, write = os.pipe()
    os.close(read)
    try:
        r = subprocess.run([sys.executable, "-m", "amddbg", "--version"], stdout=write, stderr=subprocess.PIPE,
                           text=True, env=dict(os.environ, PYTHONUNBUFFERED="1"), timeout=120)
    finally:
        os.close(write)
    assert (r.returncode, r.stderr) == (0, "")
