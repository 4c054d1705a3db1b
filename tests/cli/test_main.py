import subprocess
import sys

from amddbg.cli.main import main


def test_version(capsys):
    try:
        main(["--version"])
    except SystemExit as exc:
        assert exc.code == 0
    assert "amddbg" in capsys.readouterr().out


def test_unknown_file_is_one_line_error(tmp_path):
    bad = tmp_path / "bad.co"
    bad.write_bytes(b"not an elf")
    r = subprocess.run([sys.executable, "-m", "amddbg", "info", str(bad)], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.startswith("amddbg: error: ")
    assert len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.stderr
