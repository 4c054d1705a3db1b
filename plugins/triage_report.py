"""A Markdown (or JSON) report for a bug tracker, with the exact amddbg commands that reproduce each finding.

- output format `markdown` for `amddbg triage ... --format markdown` (a triage run);
- REPL command `report` (one core: dispatches, waves by state and source line, one backtrace per group).

Uses only the public API: the triage JSON document and `amddbg.open`'s Program.
"""

from __future__ import annotations

import json
import shlex


def _cmd(*words: str) -> str:
    return " ".join(shlex.quote(w) for w in words)


def _walk(nodes, path, out):
    for n in nodes:
        p = [*path, n]
        if n["kind"] == "state":
            out.append(p)
        _walk(n["children"], p, out)


def triage_markdown(doc: dict) -> str:
    lines = ["# amddbg triage report", "",
             f"{doc['waves']} waves in {doc['readable_cores']} of {doc['cores']} cores "
             f"(folded by {doc['by']}).", ""]
    lines += ["## Summary", ""] + [f"- `{s}`" for s in doc["summary"]] + [""]
    lines += ["## Branches", "", "| waves | cores | kernel and stack | state | per workgroup | note |",
              "|---:|---:|---|---|---|---|"]
    leaves: list = []
    _walk(doc["tree"], [], leaves)
    for path in leaves:
        leaf = path[-1]
        stack = " → ".join(n["label"] for n in path[:-1])
        pw = ", ".join(f"{k} in {v} workgroup{'s' if v != 1 else ''}"
                       for k, v in leaf.get("per_workgroup", {}).items())
        note = "" if leaf.get("majority") else "outliers: " + ", ".join(leaf.get("core_names", [])[:8])
        for m in leaf.get("matches", []):
            note += f" **{m['pattern']}**: {m['advice']}"
        if leaf.get("explain"):
            note += f" [{leaf['explain'].get('verdict')}] {leaf['explain'].get('summary', '')}"
        lines.append(f"| {leaf['waves']} | {leaf['cores']} | {stack} | {leaf['label']} | {pw} | {note.strip()} |")
    lines += ["", "## Reproduce", ""]
    for path in leaves:
        s = path[-1].get("sample") or {}
        if s.get("path") and s.get("thread"):
            cmd = _cmd("amddbg", "-batch", "-ex", f"thread {s['thread']}", "-ex", "bt", "-ex", "info lanes", s["path"])
            lines.append(f"- {path[-2]['label']} ({path[-1]['label']}): `{cmd}`")
    if doc.get("errors"):
        lines += ["", "## Unreadable cores", ""] + [f"- `{e['core']}`: {e['error']}" for e in doc["errors"]]
    return "\n".join(lines) + "\n"


def core_markdown(program) -> str:
    from collections import defaultdict

    lines = ["# amddbg core report", ""]
    paths = getattr(program, "paths", [])
    lines += [f"Core: `{' '.join(paths)}`", ""]
    lines += ["## Dispatches", ""]
    for d in program.dispatches:
        lines.append(f"- dispatch {d.dispatch_id} on queue {d.queue_id}: `{program.kernel_name(d)}` "
                     f"grid {list(d.grid_size or ())} workgroup {list(d.workgroup_size or ())}")
    groups = defaultdict(list)
    for w in program.waves:
        frames = w.frames()
        top = frames[0] if frames else None
        where = f"{top.function} at {top.file}:{top.line}" if top is not None and top.file else f"{w.pc:#x}"
        groups[(str(w.state), where)].append(w)
    lines += ["", "## Waves by state", "", "| waves | state | where | first thread |", "|---:|---|---|---|"]
    for (state, where), ws in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"| {len(ws)} | {state} | {where} | {ws[0].number} ({ws[0].target_id}) |")
    lines += ["", "## Reproduce", ""]
    for (state, where), ws in groups.items():
        cmd = _cmd("amddbg", "-batch", "-ex", f"thread {ws[0].number}", "-ex", "bt", *paths)
        lines.append(f"- {state} at {where}: `{cmd}`")
    return "\n".join(lines) + "\n"


def amddbg_plugin(api):
    @api.output_format("markdown", suffix=".md", help="Markdown report of a triage run for a bug tracker")
    def markdown(doc):
        return triage_markdown(doc)

    @api.output_format("report-json", suffix=".json", help="the triage JSON document with reproduce commands")
    def report_json(doc):
        leaves: list = []
        _walk(doc["tree"], [], leaves)
        repro = []
        for path in leaves:
            s = path[-1].get("sample") or {}
            if s.get("path") and s.get("thread"):
                repro.append({"branch": [n["label"] for n in path], "command": ["amddbg", "-batch", "-ex",
                              f"thread {s['thread']}", "-ex", "bt", s["path"]]})
        return json.dumps({**doc, "reproduce": repro}, indent=1)

    @api.command("report", help="Markdown report of this core (dispatches, waves by state, reproduce commands).")
    def report(program, args):
        return core_markdown(program)
