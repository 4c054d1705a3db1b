"""The package's layers, checked by walking every import (module-level and function-local alike): data flows one
way, bytes -> parsed model -> session -> views, so no module imports from a layer above its own. And no new
import cycle between modules: the cycles that remain are listed here by name, so a new one fails this test and
removing one means deleting its line."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "amddbg"

# Lower number = lower layer. A module may import from its own layer's package and from lower layers only.
LAYERS = {
    "errors": 0, "textsafe": 0, "termwidth": 0,
    "amdgpu": 1, "codeobj": 1,
    "isa": 2,
    "dwarf": 3,
    "core": 4,
    "models": 5,
    "emu": 6,
    "session": 7,
    "teach": 8,
    "replay": 9,
    "triage": 10,
    "plugins": 11,
    "repl": 12,
    "cli": 13,
}
# The package's front door and `python -m amddbg` may reach any layer (lazily, for the public API).
ENTRY_POINTS = {"amddbg", "amddbg.__main__"}

# Module import cycles that remain (each a strongly connected component). Remove a line when its cycle goes.
KNOWN_CYCLES = {
    ("amddbg.core.address_spaces", "amddbg.core.model"),
    ("amddbg.session.frames", "amddbg.session.program", "amddbg.session.threads"),
}


def _modules() -> dict[str, Path]:
    out = {}
    for p in PACKAGE.rglob("*.py"):
        name = ".".join(p.relative_to(ROOT).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = p
    return out


def _imports(path: Path) -> list[tuple[str, list[str], int]]:
    """(module, names, line) for every absolute import in the file, at any depth."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(a.name, [], node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.append((node.module, [a.name for a in node.names], node.lineno))
    return out


def _layer(module: str) -> int | None:
    parts = module.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 and parts[0] == "amddbg" else None


def test_every_package_has_a_layer():
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and any(p.rglob("*.py"))}
    packages |= {p.stem for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "__main__")}
    assert packages == set(LAYERS), "a new package needs its place in LAYERS"


def test_no_upward_imports():
    bad = []
    for name, path in _modules().items():
        if name in ENTRY_POINTS:
            continue
        mine = _layer(name)
        for target, _names, line in _imports(path):
            theirs = _layer(target)
            if theirs is not None and theirs > mine:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {target} (layer {theirs} > {mine})")
    assert bad == []


def _cycles() -> set[tuple[str, ...]]:
    mods = _modules()
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for m, path in mods.items():
        for target, names, _line in _imports(path):
            for t in [target, *(f"{target}.{n}" for n in names)]:
                if t in mods and t != m and not m.startswith(t + "."):
                    edges[m].add(t)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: set[tuple[str, ...]] = set()
    counter = [0]

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.add(tuple(sorted(comp)))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_new_import_cycles():
    assert _cycles() == KNOWN_CYCLES


def test_replay_explain_is_the_entry():
    """`amddbg.replay.explain` runs every analysis, so no module of the replay package imports it (findings are
    amddbg.replay.findings, the shared code reading amddbg.replay.code): the analyses depend one way."""
    bad = [f"{path.relative_to(ROOT)}:{line}" for name, path in _modules().items()
           if name.startswith("amddbg.replay.") and name != "amddbg.replay.explain"
           for target, names, line in _imports(path)
           if target == "amddbg.replay.explain" or (target == "amddbg.replay" and "explain" in names)]
    assert bad == []
