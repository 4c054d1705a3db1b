"""Issue 23 section 3: a core whose every string field holds a terminal escape and rich markup, fed to
every command; the bytes written must hold no control sequence and the markup must be shown as written.

The core is a real scenario core (barrier deadlock, gfx90a, split and unified) with its kernel's mangled
name, its DWARF function name, its source file name and the host process name (NT_PRPSINFO) replaced by
same-length hostile strings, and a file name that holds them too. The divergence command gets the
scenario's teaching object with its kernel renamed the same way.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCEN = ROOT / "corefiles" / "scenarios"
TEACH = ROOT / "corefiles" / "teach"

# OSC window title (ESC ] ... BEL), a screen clear (CSI 2J), a C1 CSI (U+009B), rich markup that raises ([/x])
# or vanishes ([b]).
KERNEL = b"\x1b]0;T\x07[/x][b]\xc2\x9b2J"
FUNC = b"\x1b[31m[/y][i]"
FILE = b"\x1b[1m[/z]s.hip"


def _patch(data: bytes, old: bytes, new: bytes) -> bytes:
    new = (new + b"z" * len(old))[: len(old)]
    assert old in data
    return data.replace(old, new)


def _hostile(src: Path, dst: Path) -> Path:
    d = src.read_bytes()
    d = _patch(d, b"_Z16barrier_deadlockPiS_", KERNEL)
    d = _patch(d, b"barrier_deadlock\0", FUNC + b"\0")
    d = _patch(d, b"scenarios.hip", FILE)
    if b"a.out\0" in d:  # the host half: the process name in NT_PRPSINFO
        d = _patch(d, b"a.out\0", b"\x1b[5m\0")
    dst.write_bytes(d)
    return dst


@pytest.fixture(scope="module")
def cores(tmp_path_factory) -> dict[str, Path]:
    t = tmp_path_factory.mktemp("hostile")
    name = "\x1b]2;x\x07[b]"  # the file name too (a name cannot hold "/")
    return {"split": _hostile(SCEN / "barrier-deadlock-gfx90a.gpu", t / f"{name}.gpu"),
            "unified": _hostile(SCEN / "barrier-deadlock-gfx90a.core", t / f"{name}.core"),
            "co": _code_object(t)}


def _code_object(t: Path) -> Path:
    d = (TEACH / "divergence-gfx90a-O1.co").read_bytes()
    d = _patch(d, b"_Z15divergence_demoPi", KERNEL + b"zzzzzzzz")
    d = _patch(d, b"divergence_demo\0", FUNC + b"\0")
    p = t / "hostile.co"
    p.write_bytes(d)
    return p


KERNEL_ARG = (KERNEL + b"zzzz").decode()  # the 21 bytes that replace _Z15divergence_demoPi
# ESC, BEL, and C1 controls as UTF-8: the bytes a terminal would act on.
CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")

REPL_COMMANDS = ["info threads", "info waves", "bt", "thread apply all bt", "info dispatches", "info agents",
                 "info queues", "info sharedlibrary", "info source", "list", "info frame", "info locals",
                 "info lanes", "info barriers", "lanes", "x/4i $pc", "disassemble", "info symbol $pc",
                 "info line *$pc", "explain", "print $pc", "frame 1", "info registers pc",
                 "divergence"]


def _run(argv: list[str], stdin: bytes | None = b"") -> subprocess.CompletedProcess:
    env = dict(os.environ, COLUMNS="100")
    return subprocess.run([sys.executable, "-m", "amddbg", *argv], input=stdin, capture_output=True, timeout=300,
                          env=env)


def _check(r: subprocess.CompletedProcess, *, shows_markup: bool = True) -> None:
    out = r.stdout + r.stderr
    bad = CONTROL.search(out)
    assert bad is None, (bad, out[max(0, bad.start() - 200): bad.end() + 200])
    text = out.decode("utf-8", "replace")
    assert "internal error" not in text and "Traceback" not in text and "MarkupError" not in text, text[-2000:]
    if shows_markup:
        assert "[/x][b]" in text, text[-3000:]  # rich neither ate the markup nor failed on it


@pytest.mark.parametrize("layout", ["split", "unified"])
@pytest.mark.parametrize("argv", [
    ["info", "{f}"], ["info", "--json", "{f}"], ["info", "--registers", "{f}"],
    ["explain", "{f}"], ["explain", "--json", "{f}"],
    ["triage", "{f}"], ["triage", "--json", "{f}"], ["triage", "--by", "line", "{f}"],
    ["triage", "--by", "kernel", "{f}"], ["triage", "--explain", "{f}"],
    ["repl", "{f}"],  # the start-up summary (stdin is not a terminal: the plain loop reads nothing)
    ["repl", "-batch", *[a for c in REPL_COMMANDS for a in ("-ex", c)], "{f}"],
    ["repl", "-batch", "--json", *[a for c in REPL_COMMANDS for a in ("-ex", c)], "{f}"],
], ids=lambda a: " ".join(x for x in a if x != "-ex")[:60])
def test_every_command_escapes_a_hostile_core(cores, layout, argv):
    f = str(cores[layout])
    r = _run([a.format(f=f) for a in argv])
    # JSON escapes control characters itself; the markup is then shown as written in every form
    _check(r, shows_markup=argv[0] != "explain" or "--json" not in argv)


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_divergence_escapes_a_hostile_kernel_name(cores, extra):
    r = _run(["divergence", str(cores["co"]), "--kernel", KERNEL_ARG, "--grid", "64", "--block", "64",
              "--arg", "buf:i32:128:iota", *extra])
    assert r.returncode == 0, r.stderr[-2000:]
    _check(r)


def test_repl_divergence_escapes_a_hostile_kernel_name(cores):
    r = _run(["repl", "-batch", "-ex", f"divergence --kernel {KERNEL_ARG} --grid 64 --block 64 "
              "--arg buf:i32:128:iota", str(cores["co"])])
    assert r.returncode == 0, r.stderr[-2000:]
    _check(r, shows_markup=False)  # its text names source lines, not the kernel
