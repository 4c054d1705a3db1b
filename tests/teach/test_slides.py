"""Divergence pictures a teacher can put on a slide, made through `amddbg divergence --svg/--html` on the teaching
kernels (corefiles/teach): a viewBox that scales, no text outside it, every line's bar and legend entry with its
source text, bars tall enough that one lane of 64 shows, a palette that does not repeat for 16 lines, axes, the
divergence points marked, the HTML table. Checked as XML here, and in headless Chromium (real font metrics: every
text element's box inside the viewBox, no horizontal overflow at 1,400 px) where Chromium is installed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEACH = ROOT / "corefiles" / "teach"
NS = {"s": "http://www.w3.org/2000/svg"}
CASES = [("divergence-gfx90a-O1.co", "one_lane_branch", "64", ["buf:i32:65"]),
         ("divergence-gfx90a-O1.co", "lane_loop", "128", ["buf:i32:128:iota"]),
         ("divergence-gfx1100-O1.co", "lane_loop", "64", ["buf:i32:64:iota"])]


def _make(tmp_path, co, kernel, grid, args):
    svg, page = tmp_path / f"{kernel}.svg", tmp_path / f"{kernel}.html"
    cmd = [sys.executable, "-m", "amddbg", "divergence", str(TEACH / co), "--kernel", kernel, "--grid", grid,
           "--block", "64", *[x for a in args for x in ("--arg", a)], "--svg", str(svg), "--html", str(page)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return svg, page, r.stdout


@pytest.mark.parametrize("co,kernel,grid,args", CASES, ids=[f"{c[0][11:18]}-{c[1]}" for c in CASES])
def test_svg_fits_its_viewbox_and_shows_every_line(tmp_path, co, kernel, grid, args):
    from amddbg.teach.timeline import CHAR_W, FONT

    svg, page, stdout = _make(tmp_path, co, kernel, grid, args)
    root = ET.parse(svg).getroot()
    x0, y0, w, h = (float(v) for v in root.get("viewBox").split())
    assert (x0, y0) == (0, 0) and root.get("width") == "100%"  # scales to the window or the slide
    texts = root.findall("s:text", NS)
    for t in texts:
        size = float(t.get("font-size") or FONT)
        content = "".join(t.itertext())
        own = content[: len(content) - len("".join(c.text or "" for c in t))] if len(t) else content
        width = len(own) * CHAR_W * size / FONT
        x = float(t.get("x"))
        left = x - width / 2 if t.get("text-anchor") == "middle" else x
        assert left >= 0 and left + width <= w, f"text outside the viewBox: {own!r}"
        assert size <= float(t.get("y")) <= h
    joined = "\n".join("".join(t.itertext()) for t in texts)
    assert f"{kernel}: SIMD efficiency" in joined
    assert "only vector instructions count toward efficiency" in joined            # the rule, in the legend
    assert "vector instructions issued per wave" in joined                         # the time axis
    bars = [r for r in root.findall("s:rect", NS) if r.find("s:title", NS) is not None]
    legend = [r for r in root.findall("s:rect", NS) if r.get("width") == "14"]
    from_bars = {r.get("fill") for r in bars}
    assert {r.get("fill") for r in legend} <= from_bars                           # every line has its bars
    for r in bars:
        if float(r.get("height")) > 0:
            assert float(r.get("height")) >= 3                                     # one lane of 64 shows
    assert "\u25bc" in joined                                                      # divergence marked
    html = page.read_text()
    assert "<th>active lanes (most frequent EXEC)</th>" in html and "Divergence and reconvergence points" in html
    assert "divergence.hip" in html
    if kernel == "one_lane_branch":
        assert "if (lane == 5) {" in joined and "if (lane == 5) {" in html      # the source text beside the bar
        assert "diverged at line 13 (wave 0): lanes 0-63 -&gt; 5" not in html      # escaped, never raw
        assert stdout.count("diverged at line") == 1 and stdout.count("reconverged at line") == 1


def test_lane_loop_text_says_how_many_more(tmp_path):
    _svg, _page, stdout = _make(tmp_path, *CASES[1])
    assert "... 118 more divergence points (126 in all; --json lists every one)" in stdout
    assert "(only vector instructions count toward efficiency" in stdout


def test_palette_does_not_repeat_for_16_lines():
    from amddbg.teach.timeline import line_colours

    class R:
        lines = {("k.hip", n): None for n in range(1, 17)}

    colours = list(line_colours(R).values())
    assert len(set(colours)) == 16


def test_help_lists_only_accepted_options():
    r = subprocess.run([sys.executable, "-m", "amddbg", "divergence", "--help"], capture_output=True, text=True,
                       timeout=120)
    assert "--core" not in r.stdout and "--layout" not in r.stdout and "--svg" in r.stdout


CHECK = """<script>
const svg = document.querySelector('svg'); const vb = svg.viewBox.baseVal; const bad = [];
for (const t of svg.querySelectorAll('text')) {
  const b = t.getBBox();
  if (b.x < vb.x - 0.5 || b.y < vb.y - 0.5 || b.x + b.width > vb.x + vb.width + 0.5 ||
      b.y + b.height > vb.y + vb.height + 0.5) bad.push(t.textContent.slice(0, 60));
}
const r = svg.getBoundingClientRect();
document.body.setAttribute('data-check', JSON.stringify({bad: bad, scroll: document.documentElement.scrollWidth,
  inner: window.innerWidth, svg_right: r.right, texts: svg.querySelectorAll('text').length}));
</script>"""


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.skipif(_chromium() is None, reason="headless Chromium not installed (apt-get install chromium): the "
                                                 "SVG is checked as XML above")
@pytest.mark.parametrize("case", CASES[:2], ids=["one_lane_branch", "lane_loop"])
def test_in_chromium_at_1400x900(tmp_path, case):
    svg, page, _ = _make(tmp_path, *case)
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text().replace("</body>", CHECK + "</body>"))
    base = [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1400,900"]
    env = dict(os.environ, HOME=str(tmp_path))
    dom = subprocess.run(base + ["--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=300, env=env)
    marker = 'data-check="'
    assert marker in dom.stdout, dom.stderr[-2000:]
    raw = dom.stdout.split(marker, 1)[1].split('"', 1)[0].replace("&quot;", '"').replace("&amp;", "&")
    check = json.loads(raw)
    assert check["bad"] == [] and check["texts"] > 5          # every text box inside the viewBox, real fonts
    assert check["scroll"] <= check["inner"] == 1400          # no horizontal overflow at 1,400 px
    assert check["svg_right"] <= 1400
    for target in (svg, page):                                 # the pictures a person looks at
        shot = tmp_path / f"{target.name}.png"
        subprocess.run(base + [f"--screenshot={shot}", target.as_uri()], capture_output=True, timeout=300, env=env)
        assert shot.exists() and shot.stat().st_size > 10_000


def test_one_if_at_O0_is_one_divergence_and_one_reconvergence(tmp_path):
    """-O0 code widens EXEC to the whole wave around spills and narrows it straight back: no events of their own.
    Built here from corefiles/teach/divergence.hip (needs clang-22)."""
    if shutil.which("clang-22") is None:
        pytest.skip("clang-22 not installed (apt-get install clang-22 lld-22): the -O0 object is built at test time")
    for target in ("gfx90a", "gfx1100"):
        co = tmp_path / f"div-{target}-O0.co"
        subprocess.run(["clang-22", "-x", "hip", f"--offload-arch={target}", "-nogpulib", "-nogpuinc",
                        "--cuda-device-only", "--no-gpu-bundle-output", "-g", "-O0", "-fdebug-compilation-dir=/amddbg",
                        "-cuid=amddbg-teach", str(TEACH / "divergence.hip"), "-o", str(co)], check=True, timeout=600)
        r = subprocess.run([sys.executable, "-m", "amddbg", "divergence", str(co), "--kernel", "one_lane_branch",
                            "--grid", "64", "--block", "64", "--arg", "buf:i32:65", "--json"], capture_output=True,
                           text=True, timeout=600)
        doc = json.loads(r.stdout)
        assert [(d["line"], d["after"]) for d in doc["divergences"]] == [(13, "5")], target
        assert [d["before"] for d in doc["reconvergences"]] == ["5"], target
