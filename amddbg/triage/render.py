"""Views of a triage tree: a rich tree for the terminal, the JSON document, Graphviz DOT.

All text that comes from a core (function names, file names) is passed to rich as plain `Text`, never as
markup, and control characters are escaped (amddbg.textsafe).
"""

from __future__ import annotations

from rich.text import Text
from rich.tree import Tree

from amddbg.textsafe import safe
from amddbg.triage.tree import Node, TriageTree, per_workgroup_text

JSON_VERSION = 1
NAMED_OUTLIERS = 8  # cores named under a branch before "+N more"


def _names(tree: TriageTree, cores: list[int], limit: int = NAMED_OUTLIERS) -> str:
    names = [tree.summaries[i].name for i in cores]
    text = ", ".join(names[:limit])
    if len(names) > limit:
        text += f", +{len(names) - limit} more"
    return text


def _leaf_note(tree: TriageTree, leaf: Node) -> str:
    bits = [leaf.label]
    pw = per_workgroup_text(leaf)
    if pw:
        bits.append(pw)
    return ", ".join(bits)


def headline(tree: TriageTree) -> str:
    n = len(tree.readable)
    return f"{tree.root.waves} waves / {n} core{'s' if n != 1 else ''}"


def branch_lines(tree: TriageTree) -> list[str]:
    """One line per kernel: the STAT one-liner, e.g.
    ``stage_handoff -> wg_sync:20 (at barrier, 1 per workgroup) | stage_handoff:35 (spinning, 3 per workgroup)``."""
    out = []
    for kernel in tree.root.children.values():
        parts = []
        for leaf in kernel.leaves():
            path = tree.root.path_to(leaf) or []
            frames = [n.label for n in path if n.kind in ("kernel", "frame")]
            # keep the kernel name once: "k -> f" (drop a leading frame that repeats the kernel)
            if len(frames) > 1 and frames[1].split(":")[0] == frames[0]:
                frames = [frames[1], *frames[2:]]
            parts.append(f"{' -> '.join(frames)} ({_leaf_note(tree, leaf)})")
        out.append(" | ".join(parts))
    return out


def rich_tree(tree: TriageTree) -> Tree:
    root = Tree(Text(f"{headline(tree)}", style="bold"))

    def add(parent: Tree, node: Node) -> None:
        line = Text()
        line.append(safe(node.label), style="cyan" if node.kind != "state" else "magenta")
        line.append(f"  {node.waves} wave{'s' if node.waves != 1 else ''}")
        ncores = len(node.cores)
        line.append(f", {ncores} core{'s' if ncores != 1 else ''}")
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
            label = f"{child.label}\\n{child.waves} waves, {len(child.cores)} cores"
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
    lines.append("}")
    return "\n".join(lines) + "\n"
