"""Issue 14, security: escape sequences and rich markup from inputs, traversal URIs, sysroot
confinement, gigabyte URI sizes."""

from __future__ import annotations

import io
import os
from contextlib import redirect_stderr, redirect_stdout

import pytest
from conftest import CO_PATH, HOSTILE_NAME, hostile_code_object, run

from amddbg.cli.main import main
from amddbg.core import open_core
from amddbg.core.rdebug import encode_file_uri
from amddbg.core.writer import CoreBuilder
from amddbg.errors import FormatError, Unavailable
from amddbg.textsafe import rich_text, safe

ESC = "\x1b"


def test_safe_escapes_controls_and_keeps_text():
    assert safe("plain é [bold]") == "plain é [bold]"
    out = safe("a\x1b]0;title\x07b\x9bc\u202ed\udcff")
    assert ESC not in out and "\x07" not in out and "\u202e" not in out and "\x9b" not in out
    assert out == "a\\x1b]0;title\\x07b\\x9bc\\u202ed\\xff"


def test_rich_text_is_never_markup():
    from rich.console import Console

    con = Console(file=io.StringIO(), width=200, color_system=None)
    con.print(rich_text("x [bold]y[/bold] [/x] \x1b[2J"))
    text = con.file.getvalue()
    assert "[bold]y[/bold] [/x]" in text and ESC not in text


@pytest.fixture
def hostile_co(tmp_path):
    p = tmp_path / "hostile[b].co"
    p.write_bytes(hostile_code_object())
    return p


@pytest.mark.parametrize("argv", [
    ["info", "{f}"],
    ["info", "--json", "{f}"],
    ["disasm", "{f}"],
    ["addr2line", "-f", "-e", "{f}", "0x2034", "0x20e4", "0x2100"],
    ["addr2line", "-f", "-i", "-p", "-e", "{f}", "0x2040"],
])
def test_views_escape_names_from_code_objects(hostile_co, argv):
    r = run([a.format(f=hostile_co) for a in argv])
    assert r.returncode == 0, r.stderr
    assert ESC not in r.stdout and ESC not in r.stderr and "\x07" not in r.stdout
    assert "internal error" not in r.stderr
    if argv[0] in ("info", "disasm") and "--json" not in argv:
        # the escaped name is shown whole, markup included (rich did not eat "[b]" or choke on "[/x]")
        assert safe(HOSTILE_NAME.decode()) in r.stdout
        assert "[b]" in r.stdout


def test_markup_in_file_name_is_shown_literally(hostile_co):
    r = run(["info", str(hostile_co)])
    assert str(hostile_co) in r.stdout  # "[b]" in the path did not vanish


def _core_with_uris(tmp_path, uris: list[str], **agent) -> str:
    b = CoreBuilder(arch="gfx90a")
    b.add_agent("gfx90a", **agent)
    data = CO_PATH.read_bytes()
    for i, u in enumerate(uris):
        b.add_code_object(data, uri=u, load_address=0x7000_0000_0000 + i * 0x1000_0000, load=False)
    p = tmp_path / "uris.gpu"
    b.write_split(str(p))
    return str(p)


def test_core_uris_with_escapes_and_markup(tmp_path):
    # an agent without the firmware bit: the core has a warning to print
    core = _core_with_uris(tmp_path, ["file:///opt/\x1b]0;pwned\x07/[bold]x[/bold]/[/x].co"], capability=0x8000)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert main(["info", core]) == 0
    assert ESC not in out.getvalue() + err.getvalue()
    assert "[bold]x[/bold]/[/x].co" in out.getvalue()
    assert "warning:" not in out.getvalue() and "warning:" in err.getvalue()  # warnings on stderr


def _confined(tmp_path):
    root = tmp_path / "root"
    (root / "opt").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.co"
    secret.write_bytes(CO_PATH.read_bytes())  # a valid object: only confinement can stop the read
    (root / "opt" / "link.co").symlink_to(secret)
    return root, secret


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink"])
def test_sysroot_confines_file_uris(tmp_path, kind):
    root, secret = _confined(tmp_path)
    uri = {"dotdot": encode_file_uri("/../../outside/secret.co"),
           "absolute": encode_file_uri(str(secret)),
           "symlink": encode_file_uri("/opt/link.co")}[kind]
    core = open_core(_core_with_uris(tmp_path, [uri]), sysroot=str(root))
    ref = core.code_objects[0]
    with pytest.raises(Unavailable):
        ref.data  # noqa: B018 - never read from outside the sysroot (no absolute fallback either)
    assert not core._loader.host_files_read
    if kind != "absolute":
        assert any("leaves the sysroot" in w for w in core.warnings)


def test_sysroot_resolves_inside(tmp_path):
    root, _ = _confined(tmp_path)
    (root / "opt" / "real.co").write_bytes(CO_PATH.read_bytes())
    core = open_core(_core_with_uris(tmp_path, [encode_file_uri("/opt/real.co")]), sysroot=str(root))
    assert bytes(core.code_objects[0].data[:4]) == b"\x7fELF"


def test_without_sysroot_host_files_read_are_reported(tmp_path):
    core = open_core(_core_with_uris(tmp_path, [encode_file_uri(str(CO_PATH))]))
    assert core.code_objects[0].codeobj.processor == "gfx90a"
    assert core._loader.host_files_read == [str(CO_PATH)]
    assert any(f"read from host file {CO_PATH}" in w for w in core.warnings)


def test_gigabyte_uri_size_checks_the_header_first(tmp_path):
    small = tmp_path / "small.co"
    small.write_bytes(CO_PATH.read_bytes())
    big = tmp_path / "big.bin"  # 8 GiB of holes: no ELF magic, and must not be read
    with open(big, "wb") as f:
        f.truncate(8 << 30)
    core = open_core(_core_with_uris(tmp_path, [
        encode_file_uri(str(small), offset=0, size=8 << 30),
        encode_file_uri(str(big), offset=0, size=8 << 30),
        "memory://1#offset=0x1000&size=8589934592",
    ]))
    import tracemalloc

    tracemalloc.start()  # reading any of the 8 GiB would allocate it: the bound is memory, not the machine's speed
    try:
        for ref in core.code_objects:
            with pytest.raises(FormatError):
                ref.data  # noqa: B018
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20, peak
    # a whole-file URI is mapped, not copied
    ok = open_core(_core_with_uris(tmp_path, [encode_file_uri(str(small))]))
    assert isinstance(ok.code_objects[0].data, memoryview)


def test_error_lines_are_escaped(tmp_path):
    r = run(["info", str(tmp_path / "no\x1b[2Jsuch")])
    assert r.returncode == 2 and ESC not in r.stderr and "\\x1b[2J" in r.stderr
    assert os.path.exists(CO_PATH)
