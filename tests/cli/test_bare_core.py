import subprocess
import sys

from tests.conftest import ROOT


def test_bare_core_opens_the_debugger_and_summarises():
    """`amddbg CORE` with no tty prints the one-screen summary (agents, dispatches, waves by state)."""
    core = ROOT / "corefiles" / "cores" / "gfx1100-probe.core"
    r = subprocess.run([sys.executable, "-m", "amddbg", str(core)], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    assert "gfx1100" in r.stdout and "Waves:" in r.stdout and "Dispatches:" in r.stdout
    assert "not available" not in r.stderr
