import subprocess
import sys

from tests.conftest import ROOT


def test_bare_file_shows_info_and_says_repl_is_missing():
    core = ROOT / "corefiles" / "cores" / "gfx1100-probe.core"
    r = subprocess.run([sys.executable, "-m", "amddbg", str(core)], capture_output=True, text=True)
    assert r.returncode == 0
    assert "interactive debugger is not available yet" in r.stderr
    assert "gfx1100" in r.stdout and "Waves" in r.stdout
