"""Plugins through the user's door: a pretty-printer changes what `print`, `info locals`, `bt full`, `print -lane
all` and JSON show (on a core of a clang-built kernel, corefiles/particles); broken rules, formats, annotations and
commands are reported once naming the plugin and the run goes on; name clashes are decided and said; `explain`
loads plugins; a plugin package installed by pip is found through its entry point."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CO = ROOT / "corefiles" / "particles" / "particles-gfx90a-O0.co"
SPIN = ROOT / "corefiles" / "scenarios" / "spin-wrong-scope-gfx90a.gpu"

PRINTER = textwrap.dedent('''
    def amddbg_plugin(api):
        @api.pretty_printer("Particle")
        def particle(v):
            if v["id"].int() < 0:
                return None  # the built-in format
            return f"Particle#{v['id'].int()} at ({v['x'].float():g}, {v['y'].float():g}, {v['z'].float():g})"
''')


def amddbg(*args, env_extra=None, cwd=ROOT):
    env = dict(os.environ, NO_COLOR="1", AMDDBG_NO_CACHE="1")
    env.pop("AMDDBG_PLUGIN_PATH", None)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "amddbg", *args], capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=600)


@pytest.fixture(scope="module")
def core(tmp_path_factory):
    """particles() trapped in lane 5 (wave 0): every lane's locals are in private memory (-O0)."""
    d = tmp_path_factory.mktemp("particles")
    data = d / "ps.bin"
    data.write_bytes(b"".join(struct.pack("<fffi", float(i), 0.5, 0.0, i) for i in range(64)))
    out = d / "p.gpu"
    r = amddbg("run", str(CO), "--kernel", "particles", "--grid", "64", "--block", "64",
               "--arg", f"buf:u8:1024:file={data}", "--arg", "buf:i32:64", "--arg", "i32:5", "--core", str(out))
    assert out.exists() and r.stdout.startswith("trap:"), r.stdout + r.stderr
    return out


def _plugin(tmp_path, name, text):
    f = tmp_path / name
    f.write_text(text)
    return f


def test_printer_changes_every_value_display(core, tmp_path):
    plug = _plugin(tmp_path, "particles_printer.py", PRINTER)
    r = amddbg("--plugin", str(plug), "-batch", "-ex", "lane 5", "-ex", "print p", "-ex", "print cell",
               "-ex", "print pair", "-ex", "info locals", "-ex", "bt full", "-ex", "print -lane all p",
               "-ex", "print p.id", str(core))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "$1 = Particle#5 at (5, 0.5, 5.5)" in out                        # print
    assert "$2 = {count = 1, first = Particle#5 at (5, 0.5, 0)}" in out      # a member of another struct
    # an array of a typedef of the struct: the typedef's name is tried first, then the struct's
    assert "$3 = {Particle#5 at (5, 0.5, 0), Particle#5 at (6, 0.5, 0)}" in out
    assert "p = Particle#5 at (5, 0.5, 5.5)" in out                          # info locals / bt full
    assert out.count("cell = {count = 1, first = Particle#5 at (5, 0.5, 0)}") == 2
    assert "lanes 0: Particle#0 at (0, 0.5, 0.5)*" in out                    # print -lane all: each lane's own
    assert "63: Particle#63 at (63, 0.5, 63.5)*" in out
    assert "$5 = 5" in out                                                   # scalars untouched
    # Without the plugin: gdb's built-in format
    r = amddbg("-batch", "-ex", "lane 5", "-ex", "print p", str(core))
    assert "$1 = {x = 5, y = 0.5, z = 5.5, id = 5}" in r.stdout


def test_printer_in_json_and_with_struct_tag_and_fallback(core, tmp_path):
    plug = _plugin(tmp_path, "tagged.py", PRINTER.replace('"Particle"', '"struct Particle"'))
    r = amddbg("--plugin", str(plug), "--json", "-batch", "-ex", "lane 5", "-ex", "print p", str(core))
    docs = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
    assert any(d.get("value") == "Particle#5 at (5, 0.5, 5.5)" for d in docs), r.stdout
    # a printer that returns None falls back to the built-in format
    plug = _plugin(tmp_path, "fallback.py", PRINTER.replace('< 0', '>= 0'))
    r = amddbg("--plugin", str(plug), "-batch", "-ex", "lane 5", "-ex", "print p", str(core))
    assert "$1 = {x = 5, y = 0.5, z = 5.5, id = 5}" in r.stdout and r.stderr == ""


def test_broken_printer_is_reported_once_and_printing_goes_on(core, tmp_path):
    plug = _plugin(tmp_path, "bad_printer.py", textwrap.dedent('''
        def amddbg_plugin(api):
            @api.pretty_printer("Particle")
            def particle(v):
                return 42

            @api.command("particle-count")
            def count(program, args):
                return "2"
    '''))
    r = amddbg("--plugin", str(plug), "-batch", "-ex", "lane 5", "-ex", "print p", "-ex", "print p",
               "-ex", "help", "-ex", "particle-count", str(core))
    assert r.stderr.count("plugin bad_printer failed while running and is disabled") == 1, r.stderr
    assert "pretty-printer for 'Particle' returned int, expected str or None" in r.stderr
    assert "$1 = {x = 5, y = 0.5, z = 5.5, id = 5}" in r.stdout and "$2 = {x = 5" in r.stdout
    # its command left with it: not in help, and typing it says so
    assert "particle-count" not in r.stdout
    assert 'Undefined command: "particle-count"' in r.stderr


CLASH = textwrap.dedent('''
    def amddbg_plugin(api):
        @api.command("p", help="shadow print")
        def p(program, args):
            return "plugin p"

        @api.command("hello", help="say hello")
        def hello(program, args):
            return "hello from NAME"
''')


def test_name_clashes_are_decided_and_said(core, tmp_path):
    one = _plugin(tmp_path, "one.py", CLASH.replace("NAME", "one"))
    two = _plugin(tmp_path, "two.py", CLASH.replace("NAME", "two"))
    r = amddbg("--plugin", str(one), "--plugin", str(two), "-batch", "-ex", "p 1 + 1", "-ex", "hello",
               "-ex", "info plugins", str(core))
    assert "$1 = 2" in r.stdout                     # the built-in print wins over a plugin's "p"
    assert "hello from one" in r.stdout             # the first plugin keeps "hello"
    assert "plugin one's command 'p' is not added: the built-in command 'print' answers to that name" in r.stderr
    assert "plugin two's command 'hello' is not added: plugin one registered it first" in r.stderr
    assert "registered: command p, command hello" in r.stdout  # info plugins lists registrations


EXPLAIN_PLUGIN = textwrap.dedent('''
    def amddbg_plugin(api):
        @api.triage_rule("stale-flag", applies_to="explanation")
        def stale(explanation):
            if any(f.cause == "not_visible" for f in explanation.findings):
                return api.TriageMatch("stale-flag", "publish and poll at agent scope")

        @api.explain_annotation
        def note(explanation, program):
            return [f"{len(program.waves)} waves in this core"]
''')


def test_explain_loads_plugins_and_prints_their_lines(tmp_path):
    plug = _plugin(tmp_path, "hints.py", EXPLAIN_PLUGIN)
    r = amddbg("explain", str(SPIN), "--plugin", str(plug))
    assert r.returncode == 3, r.stderr
    assert "rule stale-flag: stale-flag: publish and poll at agent scope" in r.stdout
    assert "waves in this core" in r.stdout
    r = amddbg("explain", str(SPIN), "--plugin", str(plug), "--json")
    doc = json.loads(r.stdout)
    assert doc["plugins"]["matches"][0]["rule"] == "stale-flag"
    # --no-plugins turns discovery off; a file named with --plugin still loads
    folder = tmp_path / "folder"
    folder.mkdir()
    _plugin(folder, "other.py", EXPLAIN_PLUGIN.replace("stale-flag", "from-path"))
    r = amddbg("explain", str(SPIN), "--no-plugins", "--plugin", str(plug),
               env_extra={"AMDDBG_PLUGIN_PATH": str(folder)})
    assert "rule stale-flag" in r.stdout and "from-path" not in r.stdout
    r = amddbg("explain", str(SPIN), env_extra={"AMDDBG_PLUGIN_PATH": str(folder)})
    assert "rule from-path" in r.stdout
    # a missing AMDDBG_PLUGIN_PATH entry is a warning, not silence
    r = amddbg("explain", str(SPIN), env_extra={"AMDDBG_PLUGIN_PATH": str(tmp_path / "nope")})
    assert "AMDDBG_PLUGIN_PATH names" in r.stderr and "which is not a folder" in r.stderr
    assert r.returncode == 3


def test_wrong_return_types_are_one_line_each(tmp_path):
    plug = _plugin(tmp_path, "wrong.py", textwrap.dedent('''
        def amddbg_plugin(api):
            @api.explain_annotation
            def note(explanation, program):
                return "a string, not a list of lines"
    '''))
    r = amddbg("explain", str(SPIN), "--plugin", str(plug))
    assert r.returncode == 3 and "Traceback" not in r.stderr
    assert r.stderr.count("plugin wrong failed while running") == 1
    assert "explain annotation returned str, expected list or tuple or None" in r.stderr
    fmt = _plugin(tmp_path, "nofmt.py", textwrap.dedent('''
        def amddbg_plugin(api):
            @api.output_format("nothing")
            def nothing(report):
                return None

            @api.triage_rule("dict-rule")
            def rule(branch):
                return {"pattern": "not a TriageMatch"}
    '''))
    r = amddbg("triage", str(SPIN), "--plugin", str(fmt), "--format", "nothing")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "triage rule 'dict-rule' returned dict, expected TriageMatch or None" in r.stderr
    assert r.stderr.count("amddbg: error:") == 1


def test_pip_installed_plugin_package(core, tmp_path):
    """A plugin package installed by pip (entry point amddbg.plugins): its printer changes `print`, its broken
    triage rule is isolated."""
    code = PRINTER + textwrap.dedent('''
        def _broken(api):
            @api.triage_rule("crashes")
            def crashes(branch):
                raise RuntimeError("rule bug")


        _hook = amddbg_plugin


        def amddbg_plugin(api):  # noqa: F811
            _hook(api)
            _broken(api)
    ''')
    wheel = _wheel(tmp_path, "particle_tools", "particle-tools", code, "[amddbg.plugins]\nparticles = particle_tools\n")
    site = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--target", str(site),
                        str(wheel)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert list(site.glob("particle_tools-0.1.dist-info/entry_points.txt"))
    env = {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    r = amddbg("-batch", "-ex", "lane 5", "-ex", "print p", "-ex", "info plugins", str(core), env_extra=env)
    assert "$1 = Particle#5 at (5, 0.5, 5.5)" in r.stdout, r.stdout + r.stderr
    assert "entry point particle-tools:particle_tools" in r.stdout
    second = tmp_path / "second.gpu"  # two cores (triage counts one path given twice once)
    second.write_bytes(core.read_bytes())
    r = amddbg("triage", str(core), str(second), env_extra=env)
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("plugin particles failed while running and is disabled: RuntimeError: rule bug") == 1
    assert "2 cores entirely in the majority branches; 0 outliers" in r.stdout


def _wheel(tmp_path, module: str, dist: str, code: str, entry_points: str) -> Path:
    """A wheel of a one-module plugin package, written here (pip installs a wheel without a build backend, so the
    test needs neither the network nor setuptools/wheel in this Python)."""
    import base64
    import hashlib
    import zipfile

    info = f"{module}-0.1.dist-info"
    files = {f"{module}/__init__.py": code,
             f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n",
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: amddbg-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
             f"{info}/entry_points.txt": entry_points}
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(text.encode())}")
    files[f"{info}/RECORD"] = "\n".join(record + [f"{info}/RECORD,,"]) + "\n"
    path = tmp_path / f"{module}-0.1-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return path


def test_the_documented_example_plugin_runs(core, tmp_path):
    """docs/plugins.md's example, taken from the page as it is: every hook it shows works on a real core."""
    text = (ROOT / "docs" / "plugins.md").read_text()
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    plug = _plugin(tmp_path, "doc_example.py", code)
    r = amddbg("--plugin", str(plug), "-batch", "-ex", "lane 5", "-ex", "print p", "-ex", "particles",
               "-ex", "info plugins", str(core))
    assert r.stderr == "", r.stderr
    assert "$1 = Particle#5 at (5, 0.5, 5.5)" in r.stdout
    assert "Particle locals: p" in r.stdout
    assert ("registered: command particles, pretty-printer Particle, triage rule particle-spin (branch), "
            "triage rule particle-fault (explanation), explain annotation, output format markdown") in r.stdout
    r = amddbg("triage", str(core), "--plugin", str(plug), "--format", "markdown")
    assert r.returncode == 0 and r.stdout.startswith("# "), r.stdout + r.stderr
