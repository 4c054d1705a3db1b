"""Views of a triage tree: a rich tree for the terminal, the JSON document, Graphviz DOT.

All text that comes from a core (function names, file names) is passed to rich as plain `Text`, never as
markup, and control characters are escaped (amddbg.textsafe).
"""

from __future__ import annotations

import re

from rich.text import Text
from rich.tree import Tree

from amddbg.textsafe import safe
from amddbg.triage.tree import Node, TriageTree, per_workgroup_text

JSON_VERSION = 1
NAMED_OUTLIERS = 8  # cores named under a branch before "+N more"


def plural(n: int, word: str) -> str:
    """``1 wave``, ``2 waves``, ``1 core``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


_NUMBERED = re.compile(r"^(.*?)(\d+)(\D*)$")


def compact_names(names: list[str], limit: int = NAMED_OUTLIERS) -> str:
    """STAT's rank lists: runs of consecutively numbered names collapse (``rank0085.gpu..rank0104.gpu``), and
    past `limit` runs the rest is counted (``(+2 more)``)."""
    runs: list[list[str]] = []
    prev = None
    for name in names:
        m = _NUMBERED.match(name)
        key = (m.group(1), len(m.group(2)), m.group(3), int(m.group(2))) if m else None
        if runs and prev is not None and key is not None and key[:3] == prev[:3] and key[3] == prev[3] + 1:
            runs[-1].append(name)
        else:
            runs.append([name])
        prev = key
    shown = [r[0] if len(r) == 1 else f"{r[0]}, {r[1]}" if len(r) == 2 else f"{r[0]}..{r[-1]}" for r in runs]
    text = ", ".join(shown[:limit])
    if len(shown) > limit:
        rest = sum(len(r) for r in runs[limit:])
        text += f" (+{rest} more)"
    return text


def _names(tree: TriageTree, cores: list[int], limit: int = NAMED_OUTLIERS) -> str:
    return compact_names([tree.summaries[i].name for i in cores], limit)


def _leaf_note(tree: TriageTree, leaf: Node) -> str:
    bits = [f"{plural(leaf.waves, 'wave')} in {plural(len(leaf.cores), 'core')}"]
    pw = per_workgroup_text(leaf)
    if pw:
        bits.append(pw)
    return ", ".join(bits)


def headline(tree: TriageTree) -> str:
    """The root: waves, and every input counted (readable, damaged, unreadable)."""
    total = len(tree.summaries)
    text = f"{plural(tree.root.waves, 'wave')} / {plural(total, 'core')}"
    extra = []
    if tree.damaged:
        extra.append(f"{len(tree.damaged)} damaged")
    if tree.failed:
        extra.append(f"{len(tree.failed)} unreadable")
    return text + (f" ({', '.join(extra)})" if extra else "")


def branch_lines(tree: TriageTree) -> list[str]:
    """One line per kernel: the STAT one-liner with counts, e.g. ``stage_handoff:31 -> wg_sync:20 (at barrier:
    6 waves in 2 cores, 3 per workgroup) | stage_handoff:35 (spinning: 2 waves in 2 cores, 1 per workgroup)``;
    under ``--by state`` one line per state."""
    out = []
    for top in tree.root.children.values():
        parts = []
        for leaf in top.leaves():
            path = tree.root.path_to(leaf) or []
            frames = [n.label for n in path if n.kind in ("kernel", "frame")]
            # keep the kernel name once: "k:31 -> f:20" (drop the kernel node when a frame repeats its name)
            if len(frames) > 1 and frames[1].split(":")[0] == frames[0]:
                frames = frames[1:]
            note = f"{leaf.label}: {_leaf_note(tree, leaf)}"
            parts.append(f"{' -> '.join(frames)} ({note})" if frames else note)
        out.append(" | ".join(parts))
    return out


def rich_tree(tree: TriageTree) -> Tree:
    root = Tree(Text(f"{headline(tree)}", style="bold"))

    def add(parent: Tree, node: Node) -> None:
        line = Text()
        line.append(safe(node.label), style="cyan" if node.kind != "state" else "magenta")
        line.append(f"  {plural(node.waves, 'wave')}, {plural(len(node.cores), 'core')}")
        if node.kind == "state":
            pw = per_workgroup_text(node)
            if pw:
                line.append(f", {pw}")
            if not node.majority:
                line.append(f"  outlier cores: {safe(_names(tree, node.cores))}", style="yellow")
            if node.verdict:
                line.append(f"  [{node.verdict.get('verdict')}] ", style="bold red")
                line.append(safe(node.verdict.get("summary", "")))
                for m in node.verdict.get("matches", []):
                    line.append(f"  <rule {safe(m['rule'])}: {safe(m['pattern'])}: {safe(m['advice'])}>",
                                style="green")
            for m in node.matches:
                line.append(f"  <{safe(m['pattern'])}: {safe(m['advice'])}>", style="green")
        branch = parent.add(line)
        for child in node.children.values():
            add(branch, child)

    for child in tree.root.children.values():
        add(root, child)
    if tree.damaged:
        hurt = root.add(Text(f"damaged cores: {len(tree.damaged)}", style="yellow"))
        for s in tree.damaged:
            hurt.add(Text(f"{safe(s.name)}: damaged: {safe(s.damage or '')}"))
    if tree.failed:
        bad = root.add(Text(f"unreadable cores: {len(tree.failed)}", style="red"))
        for s in tree.failed:
            bad.add(Text(f"{safe(s.name)}: {safe(s.error or '')}"))
    return root


def node_json(tree: TriageTree, node: Node) -> dict:
    d = {
        "label": node.label,
        "kind": node.kind,
        "waves": node.waves,
        "cores": len(node.cores),
        "children": [node_json(tree, c) for c in node.children.values()],
    }
    if node.kind == "state":
        d["majority"] = node.majority
        d["per_workgroup"] = {str(k): v for k, v in sorted(node.per_workgroup.items())}
        d["core_names"] = [tree.summaries[i].name for i in node.cores] if not node.majority else []
        d["sample"] = node.sample
        if node.verdict is not None:
            d["explain"] = node.verdict
        if node.matches:
            d["matches"] = node.matches
    return d


def document(tree: TriageTree, *, seconds: float | None = None) -> dict:
    outliers = tree.outliers()
    return {
        "version": JSON_VERSION,
        "by": tree.by,
        "cores": len(tree.summaries),
        "readable_cores": len(tree.readable),
        "damaged": [{"core": s.name, "path": s.path, "damage": s.damage} for s in tree.damaged],
        "waves": tree.root.waves,
        "summary": branch_lines(tree),
        "ordinary_cores": len(tree.readable) - len(outliers),
        "outlier_cores": [tree.summaries[i].name for i in outliers],
        "tree": [node_json(tree, c) for c in tree.root.children.values()],
        "errors": [{"core": s.name, "path": s.path, "error": s.error} for s in tree.failed],
        "seconds": None if seconds is None else round(seconds, 3),
    }


def _dot_id(path: list[str]) -> str:
    return "n" + str(abs(hash("\x1f".join(path))) % 10**12)


def _dot_str(s: str) -> str:
    return '"' + safe(s).replace("\\", "\\\\").replace('"', '\\"') + '"'


def dot(tree: TriageTree) -> str:
    lines = ["digraph triage {", "  rankdir=LR;", "  node [shape=box, fontname=monospace];",
             f"  root [label={_dot_str(headline(tree))}];"]
    ids: dict[int, str] = {id(tree.root): "root"}
    counter = [0]

    def walk(node: Node) -> None:
        for child in node.children.values():
            counter[0] += 1
            cid = f"n{counter[0]}"
            ids[id(child)] = cid
            label = f"{child.label}\\n{plural(child.waves, 'wave')}, {plural(len(child.cores), 'core')}"
            attrs = ""
            if child.kind == "state":
                pw = per_workgroup_text(child)
                if pw:
                    label += f"\\n{pw}"
                if not child.majority:
                    label += f"\\noutliers: {_names(tree, child.cores, 4)}"
                    attrs = ", color=red"
            esc = safe(label).replace('"', '\\"')
            lines.append(f'  {cid} [label="{esc}"{attrs}];')
            lines.append(f"  {ids[id(node)]} -> {cid} [label=\"{child.waves}\"];")
            walk(child)

    walk(tree.root)
    for title, group, note, color in (("damaged", tree.damaged, "damage", "orange"),
                                      ("unreadable", tree.failed, "error", "red")):
        if not group:
            continue
        lines.append(f'  {title} [label="{title} cores: {len(group)}", color={color}];')
        lines.append(f'  root -> {title} [label="{len(group)}"];')
        for k, s in enumerate(group):
            esc = safe(f"{s.name}: {getattr(s, note) or ''}").replace("\\", "\\\\").replace('"', '\\"')
            lines.append(f'  {title}{k} [label="{esc}", color={color}];')
            lines.append(f"  {title} -> {title}{k};")
    lines.append("}")
    return "\n".join(lines) + "\n"
