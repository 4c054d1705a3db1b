"""Plugin discovery from the three configured places, disabling, and isolation of failing plugins."""

from __future__ import annotations

import sys
import textwrap

import pytest

from amddbg.plugins import PluginManager

GOOD = textwrap.dedent(
    '''
    def amddbg_plugin(api):
        @api.command("hello", help="say hello")
        def hello(program, args):
            return "hello " + args

        @api.triage_rule("all-at-barrier")
        def rule(branch):
            if branch.get("state") == "at barrier":
                return api.TriageMatch("barrier", "look at the waves that never arrive")

        @api.pretty_printer("struct pair")
        def pair(value):
            return "<pair>"

        @api.output_format("shout", suffix=".txt")
        def shout(report):
            return str(report).upper()
    '''
)


def _write(folder, name, text):
    folder.mkdir(parents=True, exist_ok=True)
    f = folder / name
    f.write_text(text)
    return f


def _manager(**kw):
    lines: list[str] = []
    return PluginManager(report=lines.append).load(entry_points=False, **kw), lines


def test_folder_plugin_registers_everything(tmp_path):
    _write(tmp_path / "p", "greeter.py", GOOD)
    m, lines = _manager(search_path=str(tmp_path / "p"), disabled=[])
    assert [p.name for p in m.loaded()] == ["greeter"]
    assert m.commands["hello"].func(None, "world") == "hello world"
    assert m.classify({"state": "at barrier"})[0][1].pattern == "barrier"
    assert m.classify({"state": "spinning"}) == []
    assert m.pretty(["struct pair"], object()) == "<pair>"
    assert m.formats["shout"].func({"a": 1}) == "{'A': 1}"
    assert lines == []


def test_plugin_file_and_disable(tmp_path):
    f = _write(tmp_path, "greeter.py", GOOD)
    m, _ = _manager(files=[str(f)], search_path="", disabled=["greeter"])
    assert m.loaded() == [] and m.rows()[0]["state"] == "disabled"
    m2, _ = _manager(files=[str(f)], search_path="", disabled=[])
    assert m2.rows()[0]["source"].startswith("--plugin ")
    # --no-plugins turns discovery off; a file the user names with --plugin still loads (issue 21)
    m3 = PluginManager(report=lambda s: None).load(files=[str(f)], enabled=False, search_path=str(tmp_path))
    assert [p.name for p in m3.plugins] == ["greeter"]
    m4 = PluginManager(report=lambda s: None).load(enabled=False, search_path=str(tmp_path))
    assert m4.plugins == []


def test_disable_env(tmp_path, monkeypatch):
    _write(tmp_path / "p", "greeter.py", GOOD)
    monkeypatch.setenv("AMDDBG_DISABLE_PLUGINS", "other, greeter")
    m = PluginManager(report=lambda s: None).load(search_path=str(tmp_path / "p"), entry_points=False)
    assert m.loaded() == []


def test_crash_while_loading_is_isolated(tmp_path):
    _write(tmp_path / "p", "abad.py", "def amddbg_plugin(api):\n    @api.command('x')\n    def x(p, a): pass\n"
           "    raise RuntimeError('boom\\nsecond line')\n")
    _write(tmp_path / "p", "greeter.py", GOOD)
    _write(tmp_path / "p", "nohook.py", "X = 1\n")
    _write(tmp_path / "p", "syntax.py", "def (:\n")
    m, lines = _manager(search_path=str(tmp_path / "p"), disabled=[])
    assert [p.name for p in m.loaded()] == ["greeter"]
    assert "x" not in m.commands  # what the failing plugin registered is rolled back
    assert len(lines) == 3 and all(line.count("\n") == 0 for line in lines)
    assert "plugin abad failed while loading" in lines[0] and "boom second line" in lines[0]


def test_crash_while_running_disables_once(tmp_path):
    _write(tmp_path / "p", "flaky.py", textwrap.dedent(
        '''
        def amddbg_plugin(api):
            @api.triage_rule("explodes")
            def rule(branch):
                raise KeyError("nope")

            @api.command("cmd")
            def cmd(program, args):
                raise SystemExit(3)
        '''))
    m, lines = _manager(search_path=str(tmp_path / "p"), disabled=[])
    assert m.classify({}) == [] and m.classify({}) == []
    assert len(lines) == 1 and "plugin flaky failed while running" in lines[0]
    assert m.commands == {} and m.get("flaky").state == "failed"


def test_entry_point_plugin_from_installed_distribution(tmp_path, monkeypatch):
    """A real distribution (dist-info with entry_points.txt) on sys.path, found by importlib.metadata."""
    site = tmp_path / "site"
    _write(site, "amddbg_demo_plugin.py", GOOD)
    info = site / "amddbg_demo_plugin-0.1.dist-info"
    _write(info, "METADATA", "Metadata-Version: 2.1\nName: amddbg-demo-plugin\nVersion: 0.1\n")
    _write(info, "entry_points.txt", "[amddbg.plugins]\ndemo = amddbg_demo_plugin\n")
    monkeypatch.syspath_prepend(str(site))
    m = PluginManager(report=lambda s: None).load(search_path="", disabled=[])
    demo = m.get("demo")
    assert demo is not None and demo.state == "loaded"
    assert demo.source == "entry point amddbg-demo-plugin:amddbg_demo_plugin"
    assert "hello" in m.commands
    sys.modules.pop("amddbg_demo_plugin", None)


def test_nothing_loads_from_unconfigured_places(tmp_path, monkeypatch):
    _write(tmp_path, "greeter.py", GOOD)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("AMDDBG_PLUGIN_PATH", raising=False)
    m = PluginManager(report=lambda s: None).load(entry_points=False)
    assert m.plugins == []


def test_bad_rule_kind():
    m = PluginManager()
    from amddbg.plugins import PluginAPI

    with pytest.raises(ValueError):
        PluginAPI(m, "x").triage_rule("r", applies_to="nonsense")
