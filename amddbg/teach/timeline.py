"""Pictures of a divergence report: a terminal timeline (rich), SVG and one self-contained HTML file.

One row per wave; one column per executed instruction group (consecutive instructions of the same source
line); the colour says which line, the height/density says how many lanes were active.
"""

from __future__ import annotations

import colorsys
import html
import os

from rich.table import Table
from rich.text import Text

from amddbg.textsafe import rich_text, safe

DENSITY = " ▁▂▃▄▅▆▇█"


def _h(text: object) -> str:
    """Input text for SVG/HTML: control characters escaped (XML forbids them), then HTML-escaped."""
    return html.escape(safe(text))


def groups(report, wave: int) -> list[tuple[tuple | None, float, int]]:
    """(line key, mean active fraction, instructions) per run of same-line vector instructions."""
    out: list[list] = []
    for ev in report.events:
        if ev.wave != wave or not ev.vector:
            continue
        frac = ev.active / ev.lanes
        if out and out[-1][0] == ev.line_key:
            g = out[-1]
            g[1] += frac
            g[2] += 1
        else:
            out.append([ev.line_key, frac, 1])
    return [(k, s / n, n) for k, s, n in out]


def line_colours(report) -> dict:
    keys = sorted(report.lines)
    out = {}
    for i, k in enumerate(keys):
        r, g, b = colorsys.hls_to_rgb((i * 0.61803) % 1.0, 0.5, 0.65)
        out[k] = f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"
    return out


def rich_view(report, *, max_columns: int = 100):
    colours = line_colours(report)
    t = Table(title=rich_text(f"{report.kernel}: SIMD efficiency {report.efficiency:.1%} "
                    f"({report.slots - report.active} of {report.slots} lane-slots lost)"), show_lines=False)
    t.add_column("line", justify="right")
    t.add_column("function")
    t.add_column("issued", justify="right")
    t.add_column("efficiency", justify="right")
    t.add_column("lost", justify="right")
    t.add_column("lanes (most frequent EXEC)")
    for k in sorted(report.lines):
        s = report.lines[k]
        from amddbg.teach.divergence import lane_ranges

        mask, _ = s.masks.most_common(1)[0]
        t.add_row(rich_text(f"{os.path.basename(s.file)}:{s.line}", style=colours[k]), rich_text(s.function),
                  str(s.issued), f"{s.efficiency:.1%}", str(s.lost), Text(lane_ranges(mask, report.lanes)))
    tl = Table(title="timeline (one row per wave, one column per run of one line; height = active lanes)")
    tl.add_column("wave")
    tl.add_column("efficiency", justify="right")
    tl.add_column("timeline")
    for wi, (a, sl, label) in sorted(report.waves.items()):
        row = Text()
        for key, frac, _n in groups(report, wi)[:max_columns]:
            row.append(DENSITY[max(1, round(frac * 8))], style=colours.get(key, "white"))
        tl.add_row(rich_text(label), f"{a / sl:.1%}" if sl else "-", row)
    return t, tl


def svg(report, *, cell: int = 12, row_height: int = 22) -> str:
    colours = line_colours(report)
    rows = sorted(report.waves.items())
    cols = max((len(groups(report, wi)) for wi, _ in rows), default=0)
    label_w = 150
    width = label_w + cols * cell + 20
    legend_h = 18 * (len(report.lines) + 1)
    height = 40 + len(rows) * row_height + legend_h
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="monospace" font-size="11">',
             f'<title>{_h(report.kernel)} lane divergence</title>',
             f'<text x="4" y="16" font-size="13">{_h(report.kernel)}: SIMD efficiency '
             f'{report.efficiency:.1%}</text>']
    for r, (wi, (_a, _sl, label)) in enumerate(rows):
        y = 30 + r * row_height
        parts.append(f'<text x="4" y="{y + row_height - 8}">{_h(label)}</text>')
        for c, (key, frac, n) in enumerate(groups(report, wi)):
            h = max(1.0, (row_height - 4) * frac)
            x = label_w + c * cell
            colour = colours.get(key, "#888888")
            line = f"{os.path.basename(key[0])}:{key[1]}" if key else "?"
            parts.append(f'<rect x="{x}" y="{y + (row_height - 4) - h:.1f}" width="{cell - 1}" height="{h:.1f}" '
                         f'fill="{colour}"><title>{_h(line)}: {frac:.0%} of lanes active, '
                         f'{n} instruction(s)</title></rect>')
    y = 40 + len(rows) * row_height
    for i, k in enumerate(sorted(report.lines)):
        s = report.lines[k]
        yy = y + 18 * i
        parts.append(f'<rect x="4" y="{yy}" width="12" height="12" fill="{colours[k]}"/>')
        parts.append(f'<text x="22" y="{yy + 10}">{_h(os.path.basename(s.file))}:{s.line} '
                     f'{_h(s.function)} — {s.efficiency:.1%} efficient, {s.lost} lane-slots lost</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def html_page(report) -> str:
    rows = []
    for k in sorted(report.lines):
        s = report.lines[k]
        rows.append(f"<tr><td>{_h(os.path.basename(s.file))}:{s.line}</td><td>{_h(s.function)}</td>"
                    f"<td>{s.issued}</td><td>{s.efficiency:.1%}</td><td>{s.lost}</td></tr>")
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            f"<title>{_h(report.kernel)} divergence</title>"
            "<style>body{font-family:sans-serif;margin:1em}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}</style></head><body>"
            f"<h1>{_h(report.kernel)}</h1><p>SIMD efficiency {report.efficiency:.1%}; "
            f"{report.slots - report.active} of {report.slots} lane-slots lost to divergence.</p>"
            + svg(report) +
            "<table><tr><th>line</th><th>function</th><th>issued</th><th>efficiency</th><th>lost</th></tr>"
            + "".join(rows) + "</table></body></html>\n")
