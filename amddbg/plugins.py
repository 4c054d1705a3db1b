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
            held = self._manager.commands.get(name)
            if held is not None and held.plugin != self.plugin:
                self._manager.warn(f"plugin {self.plugin}'s command {name!r} is not added: plugin {held.plugin} "
                                   f"registered it first")
                return func
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
            held = self._manager.pretty_printers.get(type_name)
            if held is not None and held[0] != self.plugin:
                self._manager.warn(f"plugin {self.plugin}'s pretty-printer for {type_name!r} is not added: plugin "
                                   f"{held[0]} registered one first")
                return func
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
            held = self._manager.formats.get(name)
            if held is not None and held.plugin != self.plugin:
                self._manager.warn(f"plugin {self.plugin}'s output format {name!r} is not added: plugin "
                                   f"{held.plugin} registered it first")
                return func
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
        self._warned: set[str] = set()

    # -- discovery --------------------------------------------------------------------------------
    def load(self, *, files: Iterable[str] = (), enabled: bool = True, disabled: Iterable[str] | None = None,
             search_path: str | None = None, entry_points: bool = True) -> PluginManager:
        """Load every configured plugin. `search_path` defaults to ``$AMDDBG_PLUGIN_PATH``.

        ``enabled=False`` (``--no-plugins``) turns discovery off: no entry points, no search path. Files named
        explicitly (``--plugin FILE``) still load: naming one is the user's choice for this run."""
        off = set(disabled) if disabled is not None else _disabled_from_env()
        if enabled and entry_points:
            for name, source, loader in _entry_point_candidates():
                self._load_one(name, source, loader, off)
        path = os.environ.get(PATH_ENV, "") if search_path is None else search_path
        for folder in [p for p in path.split(os.pathsep) if p] if enabled else []:
            if not Path(folder).is_dir():
                self.warn(f"{PATH_ENV} names {folder!r}, which is not a folder: no plugins from it")
                continue
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
    def call(self, plugin: str, func: Callable, *args, default=None, expect: tuple[type, ...] | None = None,
             what: str = "", **kwargs):
        """Run plugin code; on an exception report it once, disable the plugin, and return `default`.

        With `expect`, a result of another type is the plugin's error too (reported once naming the plugin and
        `what` it was asked for, the plugin disabled): a rule that returns a dict or a format that returns None
        must not become an internal error in the run that called it."""
        entry = self.get(plugin)
        if entry is not None and entry.state != "loaded":
            return default
        try:
            result = func(*args, **kwargs)
            if expect is not None and not isinstance(result, expect):
                wanted = " or ".join("None" if t is type(None) else t.__name__ for t in expect)
                raise TypeError(f"{what or getattr(func, '__name__', 'a hook')} returned "
                                f"{type(result).__name__}, expected {wanted}")
            return result
        except (Exception, SystemExit) as exc:  # noqa: BLE001
            if entry is None:
                entry = LoadedPlugin(plugin, "unknown")
                self.plugins.append(entry)
            self._fail(entry, "while running", exc)
            self._unregister(plugin)
            return default

    def warn(self, text: str) -> None:
        """One line on the report channel (stderr by default), said once."""
        if text not in self._warned:
            self._warned.add(text)
            self._report(f"amddbg: warning: {text}")

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
            m = self.call(rule.plugin, rule.func, subject, expect=(TriageMatch, type(None)),
                          what=f"triage rule {rule.name!r}")
            if m is not None:
                out.append((rule.name, m))
        return out

    def pretty(self, type_names: Iterable[str], value) -> str | None:
        """The first registered printer among `type_names` (normalised: no struct/class tag, no const) that
        returns text for `value`; None: the built-in format."""
        from amddbg.dwarf.types import normalize_type_name

        table = {normalize_type_name(k): k for k in self.pretty_printers}
        for t in type_names:
            key = table.get(normalize_type_name(t))
            entry = self.pretty_printers.get(key) if key is not None else None
            if entry is not None:
                text = self.call(entry[0], entry[1], value, expect=(str, type(None)),
                                 what=f"pretty-printer for {key!r}")
                if text is not None:
                    return text
        return None

    def has_printers(self) -> bool:
        return bool(self.pretty_printers)

    def annotate(self, explanation, program=None) -> list[str]:
        lines: list[str] = []
        for plugin, func in list(self.annotations):
            got = self.call(plugin, func, explanation, program, default=None, expect=(list, tuple, type(None)),
                            what="explain annotation")
            for x in got or ():
                if not isinstance(x, str):
                    self.call(plugin, _raise_type, "explain annotation line", x)
                    break
                lines.append(x)
        return lines

    def explanation_lines(self, explanation, program=None) -> list[str]:
        """What plugins add under an explanation, as text: each matching explanation rule
        (``rule NAME: PATTERN: ADVICE``) and then the annotations' lines. `explain`, the REPL's `explain` and
        `triage --explain` print these the same way."""
        lines = [f"rule {rule}: {m.pattern}: {m.advice}" + (f" ({m.detail})" if m.detail else "")
                 for rule, m in self.classify(explanation, applies_to="explanation")]
        return lines + self.annotate(explanation, program)

    def render_format(self, name: str, report: dict) -> str | None:
        """Output format `name` applied to a report; None (reported, plugin disabled) when it fails or
        returns something other than text."""
        fmt = self.formats[name]
        return self.call(fmt.plugin, fmt.func, report, default=None, expect=(str,), what=f"output format {name!r}")

    def registered(self, plugin: str) -> list[str]:
        """What `plugin` registered and still holds, as `info plugins` lists it ("command hello", ...)."""
        out = [f"command {c.name}" for c in self.commands.values() if c.plugin == plugin]
        out += [f"pretty-printer {t}" for t, (p, _) in self.pretty_printers.items() if p == plugin]
        out += [f"triage rule {r.name} ({r.applies_to})" for r in self.triage_rules if r.plugin == plugin]
        out += ["explain annotation" for p, _ in self.annotations if p == plugin]
        out += [f"output format {f.name}" for f in self.formats.values() if f.plugin == plugin]
        return out

    def rows(self) -> list[dict]:
        """`info plugins`: one row per plugin seen, loaded or not, with what it registered."""
        return [{"name": p.name, "state": p.state, "source": p.source, "error": p.error,
                 "registered": self.registered(p.name) if p.state == "loaded" else []} for p in self.plugins]


def _raise_type(what: str, got) -> None:
    raise TypeError(f"{what} is {type(got).__name__}, expected str")


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
