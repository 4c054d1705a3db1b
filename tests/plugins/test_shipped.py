"""The plugins shipped in plugins/, loaded the way a user configures them (AMDDBG_PLUGIN_PATH)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "corefiles" / "cores" / "gfx90a-divergent-barrier.gpu"


def run(*args):
    env = dict(os.environ, AMDDBG_PLUGIN_PATH=str(ROOT / "plugins"), NO_COLOR="1")
    return subprocess.run([sys.executable, "-m", "amddbg", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=120)


def test_barrier_in_divergent_branch_names_the_branch_line():
    r = run("-batch", "-ex", "divergent-barrier", "-ex", "thread 2", "-ex", "divergent-barrier", str(DEMO))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    # probe.hip:85 is `if (((lane / 64) & 1) == 0) {`, the branch the barrier sits in
    assert lines[0].startswith("barrier at 0x7f3a40002388 is inside the lane-dependent branch at probe.hip:85 (v_cmp")
    assert lines[-1] == "no divergent branch encloses 0x7f3a4000234c" or "probe.hip" in lines[-1]


def test_triage_markdown_report_with_rule_and_reproduce_commands():
    r = run("triage", str(DEMO), "--format", "markdown")
    assert r.returncode == 0, r.stderr
    md = r.stdout
    assert md.startswith("# amddbg triage report")
    assert "**barrier in divergent branch**" in md and "probe.hip:85" in md
    assert f"`amddbg -batch -ex 'thread 1' -ex bt -ex 'info lanes' {DEMO}`" in md


def test_core_report_command_and_info_plugins():
    r = run("-batch", "-ex", "info plugins", "-ex", "report", str(DEMO))
    assert r.returncode == 0, r.stderr
    assert "barrier_in_divergent_branch  loaded" in r.stdout and "triage_report" in r.stdout
    assert "| 2 | at barrier | workgroup_barrier() at " in r.stdout


def test_no_plugins_flag_and_disable_env():
    r = run("-batch", "--no-plugins", "-ex", "info plugins", str(DEMO))
    assert "No plugins loaded" in r.stdout
    env_r = subprocess.run([sys.executable, "-m", "amddbg", "-batch", "-ex", "report", str(DEMO)], capture_output=True,
                           text=True, cwd=ROOT, env=dict(os.environ, AMDDBG_PLUGIN_PATH=str(ROOT / "plugins"),
                                                         AMDDBG_DISABLE_PLUGINS="triage_report"))
    assert env_r.returncode == 1 and 'Undefined command: "report"' in env_r.stderr
