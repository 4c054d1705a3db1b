"""Pictures of a divergence report: a terminal timeline (rich), SVG and one self-contained HTML file.

One row per wave; one column per executed instruction group (consecutive instructions of the same source
line); the colour says which line, the height/density says how many lanes were active.
"""

from __future__ import annotations

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


# Paul Tol's colour-blind-safe qualitative schemes ("muted" then "bright"): 16 colours that do not repeat, each
# distinguishable under the common colour-vision deficiencies within its scheme; lines past 16 cycle (the legend
# and each bar's tooltip still name the line).
PALETTE = ("#332288", "#88CCEE", "#44AA99", "#117733", "#999933", "#DDCC77", "#CC6677", "#882255", "#AA4499",
           "#4477AA", "#EE6677", "#228833", "#CCBB44", "#66CCEE", "#AA3377", "#BBBBBB")
EFFICIENCY_RULE = "only vector instructions count toward efficiency (scalar ones run once per wave, whatever EXEC)"


def line_colours(report) -> dict:
    return {k: PALETTE[i % len(PALETTE)] for i, k in enumerate(sorted(report.lines))}


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
        from amddbg.dwarf.values import lane_ranges

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


CHAR_W = 7.3  # width of one character of the 12 px monospace text (0.6 em), for layout without a renderer
FONT = 12


def source_text(report, key) -> str:
    """The text of a source line, when the file can be found (report.sources, filled by the caller)."""
    return (getattr(report, "sources", None) or {}).get(key) or ""


def _marks(report, wave: int) -> list[tuple[int, str, dict]]:
    """(vector-instruction index, "diverge"|"reconverge", event) for the wave's EXEC changes."""
    at = {}
    n = 0
    for ev in report.events:
        if ev.wave != wave:
            continue
        at[ev.seq] = n
        if ev.vector:
            n += 1
    out = []
    for kind, evs in (("diverge", report.divergences), ("reconverge", report.reconvergences)):
        for d in evs:
            if d["wave"] == wave and d.get("seq") in at:
                out.append((at[d["seq"]], kind, d))
    return out


def svg(report, *, bar: int = 40, max_unit: float = 14.0) -> str:
    """The timeline for a slide: scales to its container (viewBox, width 100%), title, axes and legend inside the
    picture, one bar per run of one source line (height: active lanes; at least 3 px when one lane is active, so
    one lane of 64 shows), divergence (▼) and reconvergence (▲) points marked, each line's source text in the
    legend beside its colour."""
    colours = line_colours(report)
    rows = sorted(report.waves.items())
    per_wave = {wi: groups(report, wi) for wi, _ in rows}
    longest = max((sum(n for _k, _f, n in g) for g in per_wave.values()), default=0)
    labels = [str(label) for _wi, (_a, _sl, label) in rows]
    x0 = 16 + (max((len(t) for t in labels), default=4) + 8) * CHAR_W
    unit = max(2.0, min(max_unit, 960 / max(1, longest)))
    plot_w = longest * unit
    legend = []
    for k in sorted(report.lines):
        st = report.lines[k]
        text = source_text(report, k).strip()
        if len(text) > 70:
            text = text[:67] + "..."
        legend.append((k, f"{os.path.basename(st.file)}:{st.line}", f"{st.efficiency:6.1%} efficient, "
                       f"{st.lost} lane-slots lost", text))
    title = f"{report.kernel}: SIMD efficiency {report.efficiency:.1%} ({report.slots - report.active} of " \
            f"{report.slots} lane-slots lost)"
    note = f"bar height = active lanes of {report.lanes}; \u25bc divergence, \u25b2 reconvergence; {EFFICIENCY_RULE}"
    legend_w = (max((len(a) for _k, a, _b, _c in legend), default=0) + max((len(b) for _k, _a, b, _c in legend),
                default=0) + max((len(c) for _k, _a, _b, c in legend), default=0) + 6) * CHAR_W + 40
    width = int(max(x0 + plot_w + 24, len(title) * CHAR_W * 16 / FONT + 32, len(note) * CHAR_W + 32,
                    legend_w + 16, 480))
    row_h = bar + 14
    top = 64
    axis_y = top + len(rows) * row_h + 6
    legend_y = axis_y + 58
    height = int(legend_y + 20 * len(legend) + 16)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" xml:space="preserve" viewBox="0 0 {width} {height}" width="100%" '
           f'preserveAspectRatio="xMinYMin meet" font-family="DejaVu Sans Mono, monospace" font-size="{FONT}" '
           f'style="max-width:{width}px;height:auto">',
           f'<title>{_h(report.kernel)} lane divergence</title>',
           f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
           f'<text x="16" y="24" font-size="16" font-weight="bold">{_h(title)}</text>',
           f'<text x="16" y="44" fill="#444444">{_h(note)}</text>']
    for r, (wi, (a, sl, label)) in enumerate(rows):
        y = top + r * row_h
        eff = f"{a / sl:.0%}" if sl else "-"
        out.append(f'<text x="16" y="{y + bar - 4}">{_h(label)} {eff}</text>')
        out.append(f'<line x1="{x0:.1f}" y1="{y + bar}" x2="{x0 + plot_w:.1f}" y2="{y + bar}" stroke="#cccccc"/>')
        x = x0
        for key, frac, n in per_wave[wi]:
            h = 0.0 if frac <= 0 else max(3.0, bar * frac)
            colour = colours.get(key, "#888888")
            line = f"{os.path.basename(key[0])}:{key[1]}" if key else "no line"
            out.append(f'<rect x="{x:.1f}" y="{y + bar - h:.1f}" width="{max(1.0, n * unit - 1):.1f}" '
                       f'height="{h:.1f}" fill="{colour}"><title>{_h(line)}: {frac:.0%} of lanes active, '
                       f'{n} vector instruction(s)</title></rect>')
            x += n * unit
        for idx, kind, d in _marks(report, wi):
            mx = x0 + idx * unit
            glyph, colour = ("\u25bc", "#CC3311") if kind == "diverge" else ("\u25b2", "#009988")
            out.append(f'<text x="{mx - 4:.1f}" y="{y - 1}" fill="{colour}" font-size="11">{glyph}'
                       f'<title>{kind}d at line {d.get("line")}: lanes {_h(d["before"])} -&gt; {_h(d["after"])}'
                       f'</title></text>')
    # x axis: vector instructions issued, i.e. time
    out.append(f'<line x1="{x0:.1f}" y1="{axis_y}" x2="{x0 + plot_w:.1f}" y2="{axis_y}" stroke="#000000"/>')
    step = max(1, _nice_step(longest))
    for t in range(0, longest + 1, step):
        tx = x0 + t * unit
        out.append(f'<line x1="{tx:.1f}" y1="{axis_y}" x2="{tx:.1f}" y2="{axis_y + 4}" stroke="#000000"/>')
        out.append(f'<text x="{tx:.1f}" y="{axis_y + 16}" text-anchor="middle" font-size="10">{t}</text>')
    out.append(f'<text x="{x0:.1f}" y="{axis_y + 32}">vector instructions issued per wave (time \u2192)</text>')
    col1 = 38 + (max((len(w) for _k, w, _s, _t in legend), default=0) + 2) * CHAR_W
    col2 = col1 + (max((len(st) for _k, _w, st, _t in legend), default=0) + 2) * CHAR_W
    for i, (k, where, stats, text) in enumerate(legend):
        yy = legend_y + 20 * i
        out.append(f'<rect x="16" y="{yy - 11}" width="14" height="14" fill="{colours[k]}"/>')
        out.append(f'<text x="38" y="{yy}">{_h(where)}</text>')
        out.append(f'<text x="{col1:.1f}" y="{yy}">{_h(stats)}</text>')
        if text:
            out.append(f'<text x="{col2:.1f}" y="{yy}" fill="#444444">{_h(text)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


SHOWN_EVENTS = 8
HTML_EVENTS = 100


def event_lines(report, limit: int = SHOWN_EVENTS) -> list[str]:
    """The divergence and reconvergence points as text, `limit` of each kind, then how many more there are."""
    out = []
    for word, noun, evs in (("diverged", "divergence", report.divergences),
                            ("reconverged", "reconvergence", report.reconvergences)):
        for d in evs[:limit]:
            out.append(f"{word} at line {d['line']} (wave {d['wave']}): lanes {d['before']} -> {d['after']}")
        if len(evs) > limit:
            out.append(f"... {len(evs) - limit} more {noun} points ({len(evs)} in all; --json lists every one)")
    return out


def _nice_step(n: int) -> int:
    """Axis tick spacing: about ten ticks, at 1, 2 or 5 times a power of ten."""
    raw = max(1, n / 10)
    mag = 10 ** (len(str(int(raw))) - 1)
    for m in (1, 2, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def html_page(report) -> str:
    """One self-contained page: the SVG (scaled to the window), a table of lines with their source text, active
    lanes and efficiency, and the divergence and reconvergence points."""
    from amddbg.dwarf.values import lane_ranges

    rows = []
    colours = line_colours(report)
    for k in sorted(report.lines):
        s = report.lines[k]
        mask, _ = s.masks.most_common(1)[0]
        rows.append(f"<tr><td><span class=sw style=\"background:{colours[k]}\"></span>"
                    f"{_h(os.path.basename(s.file))}:{s.line}</td><td class=src>{_h(source_text(report, k))}</td>"
                    f"<td>{_h(s.function)}</td><td>{s.issued}</td><td>{s.efficiency:.1%}</td><td>{s.lost}</td>"
                    f"<td>{_h(lane_ranges(mask, report.lanes))}</td></tr>")
    points = []
    for kind, evs in (("divergence", report.divergences), ("reconvergence", report.reconvergences)):
        for d in evs[:HTML_EVENTS]:
            points.append(f"<tr><td>{kind}</td><td>{d['wave']}</td><td>{_h(d.get('line'))}</td>"
                          f"<td>{_h(d['before'])}</td><td>{_h(d['after'])}</td></tr>")
        if len(evs) > HTML_EVENTS:
            points.append(f"<tr><td>{kind}</td><td colspan=4>... {len(evs) - HTML_EVENTS} more "
                          f"({len(evs)} in all; --json lists every one)</td></tr>")
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{_h(report.kernel)} divergence</title>"
            "<style>body{font-family:sans-serif;margin:1em;max-width:100%}svg{display:block;max-width:100%}"
            "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:2px 6px;"
            "text-align:right}td.src{font-family:monospace;text-align:left;white-space:pre}"
            ".sw{display:inline-block;width:12px;height:12px;margin-right:6px;vertical-align:middle}</style>"
            "</head><body>"
            f"<h1>{_h(report.kernel)}</h1><p>SIMD efficiency {report.efficiency:.1%}; "
            f"{report.slots - report.active} of {report.slots} lane-slots lost to divergence; "
            f"{_h(EFFICIENCY_RULE)}.</p>"
            + svg(report) +
            "<h2>Lines</h2><table><tr><th>line</th><th>source</th><th>function</th><th>issued</th><th>efficiency</th>"
            "<th>lost</th><th>active lanes (most frequent EXEC)</th></tr>" + "".join(rows) + "</table>"
            "<h2>Divergence and reconvergence points</h2><table><tr><th>event</th><th>wave</th><th>line</th>"
            "<th>lanes before</th><th>lanes after</th></tr>" + "".join(points) + "</table></body></html>\n")
