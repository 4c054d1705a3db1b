"""Triage of generated cores grouped as built; --jobs and a 2-worker Dask LocalCluster agree with the local
run; plugins classify branches; unreadable cores are one line each."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import jobcores  # noqa: I001 - tests/triage on sys.path (conftest)
import pytest

from amddbg.triage import triage

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def job(tmp_path_factory):
    folder = tmp_path_factory.mktemp("job")
    paths = jobcores.write_job(folder, 200, trapped={17, 123}, truncated={5})
    return folder, paths


def _leaves(doc):
    out = {}

    def walk(nodes, path):
        for n in nodes:
            p = path + [n["label"]]
            if n["kind"] == "state":
                out[" > ".join(p)] = n
            walk(n["children"], p)

    walk(doc["tree"], [])
    return out


def test_200_cores_grouped_as_built(job):
    folder, paths = job
    report = triage([str(folder)], progress=False)
    doc = report.document()
    assert doc["cores"] == 200 and doc["readable_cores"] == 199
    assert [e["core"] for e in doc["errors"]] == ["rank0005.gpu"]
    leaves = _leaves(doc)
    barrier = leaves["divergent_barrier > divergent_barrier:86 > workgroup_barrier:13 > at barrier"]
    spin = leaves["divergent_barrier > divergent_barrier:90 > spinning"]
    assert barrier["waves"] == 199 * 2 * 2 and barrier["cores"] == 199 and barrier["majority"]
    assert spin["waves"] == 199 * 2 * 2 and barrier["per_workgroup"] == {"2": 398}
    trap = next(v for k, v in leaves.items() if k.startswith("probe<int> > ") and k.endswith("> trapped"))
    assert trap["waves"] == 2 and not trap["majority"] and trap["core_names"] == ["rank0017.gpu", "rank0123.gpu"]
    assert doc["outlier_cores"] == ["rank0017.gpu", "rank0123.gpu"] and doc["ordinary_cores"] == 197
    assert doc["summary"][0] == ("divergent_barrier:86 -> workgroup_barrier:13 (at barrier: 796 waves in 199 cores, "
                                 "2 per workgroup) | divergent_barrier:90 (spinning: 796 waves in 199 cores, "
                                 "2 per workgroup)")


def test_jobs_and_dask_agree_with_local(job):
    folder, paths = job
    subset = [str(p) for p in paths[:24]]
    local = triage(subset, progress=False).document()
    parallel = triage(subset, jobs=2, progress=False).document()
    strip = lambda d: {k: v for k, v in d.items() if k != "seconds"}  # noqa: E731
    assert strip(parallel) == strip(local)
    pytest.importorskip("distributed", reason="Dask distributed is the optional extra amddbg[cluster]")
    dask_doc = triage(subset, jobs=2, cluster="local", progress=False).document()
    assert strip(dask_doc) == strip(local)


def test_cli_json_dot_and_plugin_rule(job, tmp_path):
    folder, paths = job
    plugin = tmp_path / "barrier_rule.py"
    plugin.write_text(textwrap.dedent('''
        def amddbg_plugin(api):
            @api.triage_rule("waits-at-barrier")
            def rule(branch):
                if branch["state"] == "at barrier":
                    return api.TriageMatch("barrier-wait", "find the waves that never arrive")
    '''))
    dotfile = tmp_path / "t.dot"
    env = dict(os.environ, AMDDBG_PLUGIN_PATH="")
    r = subprocess.run([sys.executable, "-m", "amddbg", "triage", *map(str, paths[:10]), "--json", "--dot",
                        str(dotfile), "--plugin", str(plugin)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["version"] == 1 and doc["readable_cores"] == 9
    leaf = _leaves(doc)["divergent_barrier > divergent_barrier:86 > workgroup_barrier:13 > at barrier"]
    assert leaf["matches"][0]["pattern"] == "barrier-wait"
    text = dotfile.read_text()
    assert text.startswith("digraph triage {") and "workgroup_barrier:13" in text
    r = subprocess.run([sys.executable, "-m", "amddbg", "triage", *map(str, paths[:3])], capture_output=True,
                       text=True, env=env)
    assert r.returncode == 0 and "24 waves / 3 cores" in r.stdout and "divergent_barrier:86 -> " in r.stdout


def test_no_readable_core_is_an_error(tmp_path):
    bad = tmp_path / "x.gpu"
    bad.write_bytes(b"nope")
    r = subprocess.run([sys.executable, "-m", "amddbg", "triage", str(bad)], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.startswith("amddbg: error: no core could be read")


def test_explain_without_explainer_says_so_or_runs(job):
    folder, paths = job
    try:
        import amddbg.replay.explain  # noqa: F401
    except ImportError:
        from amddbg.errors import NotSupported

        with pytest.raises(NotSupported):
            triage([str(paths[0])], explain=True, progress=False)
        return
    doc = triage([str(paths[0])], explain=True, progress=False).document()
    assert any("explain" in leaf for leaf in _leaves(doc).values())
