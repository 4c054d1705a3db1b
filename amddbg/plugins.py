"""Plugin discovery and the plugin API.

Plugins load only from places the user configured, never from the working directory or a core:

1. the entry-point group ``amddbg.plugins`` of installed packages (the user installed them);
2. the folders listed in ``AMDDBG_PLUGIN_PATH`` (``os.pathsep``-separated; each ``*.py`` file and each
   package folder with an ``__init__.py`` is one plugin — a checkout's ``plugins/`` is used only when the
   user puts it there);
3. files named with ``--plugin FILE.py``.

``AMDDBG_DISABLE_PLUGINS=name,...`` and ``--no-plugins`` turn them off. A plugin is a module with a
function ``amddbg_plugin(api)`` (an entry point may also name that function directly). Through the
`PluginAPI` it registers REPL commands, triage rules, value pretty-printers, explain annotations and
output formats; everything it is handed is the public session API.

Isolation: a plugin that raises while loading or while running is reported once (its name and one line)
and disabled; the session or the triage run goes on. That is why every call into plugin code goes through
`PluginManager.call`.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ENTRY_POINT_GROUP = "amddbg.plugins"
PATH_ENV = "AMDDBG_PLUGIN_PATH"
DISABLE_ENV = "AMDDBG_DISABLE_PLUGINS"
HOOK_NAME = "amddbg_plugin"

__all__ = [
    "Command",
    "LoadedPlugin",
    "OutputFormat",
    "PluginAPI",
    "PluginManager",
    "TriageMatch",
    "TriageRule",
    "load_plugins",
]


@dataclass
class Command:
    """A REPL command a plugin adds: ``func(program, argument_text) -> str | None`` (text to print)."""

    name: str
    func: Callable[..., Any]
    help: str
    plugin: str
    completer: Callable[[Any, str], Iterable[str]] | None = None


@dataclass
class TriageMatch:
    """What a triage rule says about a stack, a wave or an explanation: a named bug pattern with advice."""

    pattern: str
    advice: str
    detail: str = ""


@dataclass
class TriageRule:
    """``func(subject) -> TriageMatch | None``; `subject` is a triage branch or an `Explanation`."""

    name: str
    func: Callable[[Any], TriageMatch | None]
    plugin: str
    applies_to: str = "branch"  # "branch" (a triage stack/wave class) or "explanation"


@dataclass
class OutputFormat:
    """An extra report format: ``func(report: dict) -> str`` where `report` is the JSON document."""

    name: str
    func: Callable[[dict], str]
    suffix: str
    plugin: str
    help: str = ""


@dataclass
class LoadedPlugin:
    name: str
    source: str  # "entry point <dist>:<value>", "path <file>", "--plugin <file>"
    state: str = "loaded"  # loaded | failed | disabled
    error: str | None = None
    module: Any = field(default=None, repr=False)


class PluginAPI:
    """What a plugin's ``amddbg_plugin(api)`` receives. Registration only; no access to internals."""

    def __init__(self, manager: PluginManager, plugin: str) -> None:
        self._manager = manager
        self.plugin = plugin

    def command(self, name: str, *, help: str = "", completer=None):
        """Decorator: ``@api.command("mycmd", help="...")`` on ``def f(program, args: str) -> str | None``."""

        def deco(func):
            self._manager.commands[name] = Command(name, func, help or (func.__doc__ or "").strip(), self.plugin,
                                                   completer)
            return func

        return deco

    def triage_rule(self, name: str, *, applies_to: str = "branch"):
        """Decorator: ``@api.triage_rule("barrier-in-branch")`` on ``def f(subject) -> TriageMatch | None``."""
        if applies_to not in ("branch", "explanation"):
            raise ValueError("applies_to must be 'branch' or 'explanation'")

        def deco(func):
            self._manager.triage_rules.append(TriageRule(name, func, self.plugin, applies_to))
            return func

        return deco

    def pretty_printer(self, type_name: str):
        """Decorator: ``@api.pretty_printer("struct float4")`` on ``def f(value) -> str | None``.

        `type_name` is the DWARF type name as amddbg prints it (typedef names match before the type they
        name). Returning None falls back to the built-in formatting.
        """

        def deco(func):
            self._manager.pretty_printers[type_name] = (self.plugin, func)
            return func

        return deco

    def explain_annotation(self, func=None):
        """Decorator: ``def f(explanation, program) -> list[str]`` — extra lines printed under an explanation."""

        def deco(f):
            self._manager.annotations.append((self.plugin, f))
            return f

        return deco(func) if func is not None else deco

    def output_format(self, name: str, *, suffix: str = ".txt", help: str = ""):
        """Decorator: ``@api.output_format("markdown", suffix=".md")`` on ``def f(report: dict) -> str``."""

        def deco(func):
            self._manager.formats[name] = OutputFormat(name, func, suffix, self.plugin, help)
            return func

        return deco

    TriageMatch = TriageMatch


class PluginManager:
    """Discovers, loads and isolates plugins; holds what they registered."""

    def __init__(self, *, report: Callable[[str], None] | None = None) -> None:
        self.plugins: list[LoadedPlugin] = []
        self.commands: dict[str, Command] = {}
        self.triage_rules: list[TriageRule] = []
        self.pretty_printers: dict[str, tuple[str, Callable]] = {}
        self.annotations: list[tuple[str, Callable]] = []
        self.formats: dict[str, OutputFormat] = {}
        self._report = report or (lambda line: print(line, file=sys.stderr))

    # -- discovery --------------------------------------------------------------------------------
    def load(self, *, files: Iterable[str] = (), enabled: bool = True, disabled: Iterable[str] | None = None,
             search_path: str | None = None, entry_points: bool = True) -> PluginManager:
        """Load every configured plugin. `search_path` defaults to ``$AMDDBG_PLUGIN_PATH``."""
        if not enabled:
            return self
        off = set(disabled) if disabled is not None else _disabled_from_env()
        if entry_points:
            for name, source, loader in _entry_point_candidates():
                self._load_one(name, source, loader, off)
        path = os.environ.get(PATH_ENV, "") if search_path is None else search_path
        for folder in [p for p in path.split(os.pathsep) if p]:
            for name, file in _folder_candidates(Path(folder)):
                self._load_one(name, f"path {file}", _file_loader(name, file), off)
        for f in files:
            file = Path(f)
            name = file.stem if file.name != "__init__.py" else file.parent.name
            self._load_one(name, f"--plugin {file}", _file_loader(name, file), off)
        return self

    def _load_one(self, name: str, source: str, loader: Callable[[], Any], off: set[str]) -> None:
        if any(p.name == name and p.state == "loaded" for p in self.plugins):
            self.plugins.append(LoadedPlugin(name, source, "disabled", "a plugin of this name is already loaded"))
            return
        if name in off:
            self.plugins.append(LoadedPlugin(name, source, "disabled", f"disabled by {DISABLE_ENV}"))
            return
        entry = LoadedPlugin(name, source)
        self.plugins.append(entry)
        snapshot = self._snapshot()
        try:
            obj = loader()
            hook = obj if callable(obj) and not hasattr(obj, HOOK_NAME) else getattr(obj, HOOK_NAME, None)
            if hook is None:
                raise AttributeError(f"defines no {HOOK_NAME}(api) function")
            entry.module = obj
            hook(PluginAPI(self, name))
        except (Exception, SystemExit) as exc:  # noqa: BLE001 - isolation is the point
            self._restore(snapshot)
            self._fail(entry, "while loading", exc)

    # -- isolation ----------------------------------------------------------------------------------
    def call(self, plugin: str, func: Callable, *args, default=None, **kwargs):
        """Run plugin code; on an exception report it once, disable the plugin, and return `default`."""
        entry = self.get(plugin)
        if entry is not None and entry.state != "loaded":
            return default
        try:
            return func(*args, **kwargs)
        except (Exception, SystemExit) as exc:  # noqa: BLE001
            if entry is None:
                entry = LoadedPlugin(plugin, "unknown")
                self.plugins.append(entry)
            self._fail(entry, "while running", exc)
            self._unregister(plugin)
            return default

    def _fail(self, entry: LoadedPlugin, when: str, exc: BaseException) -> None:
        text = " ".join(str(exc).split()) or type(exc).__name__
        entry.state = "failed"
        entry.error = f"{type(exc).__name__}: {text}"[:300]
        self._report(f"amddbg: warning: plugin {entry.name} failed {when} and is disabled: {entry.error}")

    def _snapshot(self):
        return (dict(self.commands), list(self.triage_rules), dict(self.pretty_printers), list(self.annotations),
                dict(self.formats))

    def _restore(self, snap) -> None:
        self.commands, self.triage_rules, self.pretty_printers, self.annotations, self.formats = (
            snap[0], snap[1], snap[2], snap[3], snap[4])

    def _unregister(self, plugin: str) -> None:
        self.commands = {k: c for k, c in self.commands.items() if c.plugin != plugin}
        self.triage_rules = [r for r in self.triage_rules if r.plugin != plugin]
        self.pretty_printers = {k: v for k, v in self.pretty_printers.items() if v[0] != plugin}
        self.annotations = [a for a in self.annotations if a[0] != plugin]
        self.formats = {k: f for k, f in self.formats.items() if f.plugin != plugin}

    # -- use ----------------------------------------------------------------------------------------
    def get(self, name: str) -> LoadedPlugin | None:
        for p in self.plugins:
            if p.name == name and p.state == "loaded":
                return p
        return next((p for p in self.plugins if p.name == name), None)

    def loaded(self) -> list[LoadedPlugin]:
        return [p for p in self.plugins if p.state == "loaded"]

    def classify(self, subject, *, applies_to: str = "branch") -> list[tuple[str, TriageMatch]]:
        """Run every triage rule on `subject`; returns (rule name, match) for the rules that matched."""
        out = []
        for rule in list(self.triage_rules):
            if rule.applies_to != applies_to:
                continue
            m = self.call(rule.plugin, rule.func, subject)
            if m is not None:
                out.append((rule.name, m))
        return out

    def pretty(self, type_names: Iterable[str], value) -> str | None:
        for t in type_names:
            entry = self.pretty_printers.get(t)
            if entry is not None:
                text = self.call(entry[0], entry[1], value)
                if text is not None:
                    return str(text)
        return None

    def annotate(self, explanation, program=None) -> list[str]:
        lines: list[str] = []
        for plugin, func in list(self.annotations):
            got = self.call(plugin, func, explanation, program, default=None)
            if got:
                lines.extend(str(x) for x in got)
        return lines

    def rows(self) -> list[dict]:
        """`info plugins`: one row per plugin seen, loaded or not."""
        return [{"name": p.name, "state": p.state, "source": p.source, "error": p.error} for p in self.plugins]


def _disabled_from_env() -> set[str]:
    return {s.strip() for s in os.environ.get(DISABLE_ENV, "").split(",") if s.strip()}


def _entry_point_candidates():
    from importlib.metadata import entry_points

    try:
        eps = entry_points(group=ENTRY_POINT_GROUP)
    except Exception:  # noqa: BLE001 - a broken installed distribution must not stop amddbg
        return []
    out = []
    for ep in eps:
        dist = getattr(getattr(ep, "dist", None), "name", None) or "?"
        out.append((ep.name, f"entry point {dist}:{ep.value}", ep.load))
    return out


def _folder_candidates(folder: Path):
    if not folder.is_dir():
        return []
    out = []
    for p in sorted(folder.iterdir()):
        if p.name.startswith(("_", ".")):
            continue
        if p.is_file() and p.suffix == ".py":
            out.append((p.stem, p))
        elif p.is_dir() and (p / "__init__.py").is_file():
            out.append((p.name, p / "__init__.py"))
    return out


def _file_loader(name: str, file: Path):
    def load():
        if not file.is_file():
            raise FileNotFoundError(f"{file}: no such plugin file")
        mod_name = f"amddbg_plugin_{name}"
        search = [str(file.parent)] if file.name == "__init__.py" else None
        spec = importlib.util.spec_from_file_location(mod_name, file, submodule_search_locations=search)
        if spec is None or spec.loader is None:
            raise ImportError(f"{file}: cannot be imported")
        module = importlib.util.module_from_spec(spec)
        sys.modules[mod_name] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(mod_name, None)
            raise
        return module

    return load


def load_plugins(*, files: Iterable[str] = (), enabled: bool = True, report=None) -> PluginManager:
    """Discover and load plugins from the configured places (see the module docstring)."""
    return PluginManager(report=report).load(files=files, enabled=enabled)
