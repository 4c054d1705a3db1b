"""Divergence on kernels whose answer is known by hand (corefiles/teach/divergence.hip, clang-22 -O1):

- one_lane_branch: lane 5 of 64 alone runs the branch (lines 14-19): each of those lines runs at 1/64;
  the lines before and after run with all 64 lanes.
- lane_loop: lane L iterates L times. Iteration k (0-based) runs with the lanes above k, 63 - k of them, so
  each instruction inside the loop issues 63 times with sum(63 - k for k in 0..62) = 2016 active lane-slots
  out of 63 * 64 = 4032: efficiency exactly 1/2; EXEC narrows from lanes 0-63 to 1-63, 2-63, ... 63.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.dom.minidom
from pathlib import Path

import pytest

from amddbg.emu.machine import Machine
from amddbg.teach.divergence import record

ROOT = Path(__file__).resolve().parents[2]
CO = ROOT / "corefiles" / "teach" / "divergence-gfx90a-O1.co"


def report(kernel: str):
    m = Machine(CO)
    m.dispatch(kernel, (64, 1, 1), (64, 1, 1), ["buf:i32:65:iota"])
    return record(m)


def test_one_lane_branch_hand_counts():
    rep = report("one_lane_branch")
    assert rep.status == "completed"
    by_line = {k[1]: s for k, s in rep.lines.items()}
    for line in range(14, 20):
        s = by_line[line]
        assert (s.active, s.slots) == (s.issued, 64 * s.issued)  # 1 of 64 lanes, per instruction
        assert s.efficiency == pytest.approx(1 / 64)
        assert [m for m in s.masks] == [1 << 5]
    for line in (12, 21):
        assert by_line[line].efficiency == 1.0
    assert rep.divergences[0]["line"] == 13 and rep.divergences[0]["after"] == "5"
    assert rep.reconvergences[-1]["after"] == "0-63"


def test_lane_loop_hand_counts():
    rep = report("lane_loop")
    assert rep.status == "completed"
    # instructions inside the loop: those that ran under more than one distinct EXEC mask
    per_pc: dict[int, list[int]] = {}
    for ev in rep.events:
        if ev.vector:
            per_pc.setdefault(ev.pc, []).append(ev.active)
    loop = {pc: acts for pc, acts in per_pc.items() if len(set(acts)) > 1}
    assert loop, "no loop instruction found"
    for acts in loop.values():
        assert len(acts) == 63 and sum(acts) == 2016 and sum(acts) / (64 * len(acts)) == 0.5
    narrowing = [d["after"] for d in rep.divergences]
    assert narrowing[:3] == ["1-63", "2-63", "3-63"] and narrowing[-1] == "63"


def test_cli_json_svg_and_html(tmp_path):
    svg, page = tmp_path / "t.svg", tmp_path / "t.html"
    r = subprocess.run([sys.executable, "-m", "amddbg", "divergence", str(CO), "--kernel", "one_lane_branch", "--grid",
                        "64", "--block", "64", "--arg", "buf:i32:65", "--json", "--svg", str(svg), "--html",
                        str(page)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["version"] == 1 and doc["lanes"] == 64
    line14 = next(x for x in doc["lines"] if x["line"] == 14)
    assert line14["efficiency"] == pytest.approx(1 / 64, abs=1e-6) and line14["lanes"][0]["mask"] == "5"
    xml.dom.minidom.parse(str(svg))  # well-formed SVG
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and "<svg" in text and "src=" not in text and "href=" not in text


def test_svg_renders_in_chromium(tmp_path):
    import shutil

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("headless Chromium not installed (apt-get install chromium) - the SVG is checked as XML above")
    from amddbg.teach.timeline import svg

    (tmp_path / "t.svg").write_text(svg(report("lane_loop")))
    shot = tmp_path / "shot.png"
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--window-size=800,400",
                    (tmp_path / "t.svg").as_uri()], capture_output=True, timeout=120)
    assert shot.exists() and shot.stat().st_size > 1000


def test_repl_lanes_and_divergence():
    import os

    demo = ROOT / "corefiles" / "cores" / "gfx90a-divergent-barrier.gpu"
    env = dict(os.environ, NO_COLOR="1")
    r = subprocess.run([sys.executable, "-m", "amddbg", "-batch", "-ex", "lanes -expr $v0 * 2", str(demo)],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].endswith("64 lanes, 64 active, wave PC at probe.hip:13")
    assert lines[1] == "  legend: # active lane, . inactive lane"  # no inactive lane: no '*' to explain
    assert lines[2] == "  lanes  0-7   # # # # # # # #"
    row5 = next(ln for ln in lines if ln.startswith("     5  "))
    assert row5.split() == ["5", "active", "(5,0,0)", "probe.hip:13", "10"]
    r = subprocess.run([sys.executable, "-m", "amddbg", "-batch", "-ex",
                        "divergence --kernel one_lane_branch --grid 64 --block 64 --arg buf:i32:65", str(CO)],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "divergence.hip:14       1.6%  lost 63     lanes 5" in r.stdout


def test_repl_lanes_shows_each_lanes_own_line_where_lane_pcs_differ(monkeypatch):
    """With lane PCs in the DWARF (DW_AT_LLVM_lane_pc; tests/dwarf checks their evaluation), `lanes` shows each
    lane's own line and no wave-PC mark; the lane PCs here are two instructions of the kernel at two lines."""
    import io

    import amddbg
    from amddbg.repl.commands import Debugger
    from amddbg.session.frames import Frame

    prog = amddbg.open(str(ROOT / "corefiles" / "scenarios" / "divergence-demo-gfx1100.gpu"))
    t = prog.threads[0] if prog.threads[0].is_wave else prog.waves[0]
    f0 = t.frames()[0]
    lco = f0.code_object
    lo = lco.function_at(f0.pc)
    insns = lco.instructions(lo.address + lco.load_address, lo.address + lco.load_address + lo.size)
    by_line = {}
    for i in insns:
        src = lco.source_frames(i.address)
        if src and src[0].line and src[0].line not in by_line:
            by_line[src[0].line] = i.address - lco.load_address
    (la, pa), (lb, pb) = sorted(by_line.items())[:2]
    monkeypatch.setattr(Frame, "lane_pcs", lambda self: {ln: (pa if ln % 2 else pb, True) for ln in range(t.lanes)})
    out = io.StringIO()
    dbg = Debugger(prog, out=lambda s: out.write(s + "\n"))
    dbg.execute("lanes")
    text = out.getvalue()
    assert "* the wave PC's line" not in text
    rows = [ln.split() for ln in text.splitlines() if ln[:6].strip().isdigit()]
    assert rows[0][3] == f"divergence.hip:{lb}" and rows[1][3] == f"divergence.hip:{la}"
