"""Replay by symmetry (amddbg/replay/symmetry.py): a dispatch of many workgroups in the same state is replayed
one workgroup per class, the others proven to follow; the findings are those of replaying every wave, and the
output says which was done. Cores are written at test time by `amddbg run` from the scenario objects."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from amddbg.replay.explain import explain_core

ROOT = Path(__file__).resolve().parents[2]
SC = ROOT / "corefiles" / "scenarios"
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
TARGETS = ("gfx90a", "gfx942", "gfx1100", "gfx1200")


def _core(tmp_path, target: str, kernel: str, groups: int, block: int, args: list[str], *, o0: bool = False,
          stop: int = 400_000) -> str:
    out = tmp_path / f"{kernel}-{target}-{groups}.gpu"
    cmd = [sys.executable, "-m", "amddbg", "run", str(SC / f"scenarios-{target}{'-O0' if o0 else ''}.co"),
           "--kernel", kernel, "--grid", str(groups * block), "--block", str(block), "--core", str(out),
           "--max-instructions", str(stop)]
    for a in args:
        cmd += ["--arg", a]
    subprocess.run(cmd, check=True, capture_output=True, env=ENV, cwd=str(ROOT), timeout=600)
    return str(out)


def _plain(findings) -> list:
    """Findings as JSON without `by_symmetry` (which waves a replay by symmetry did not run: the one difference a
    replay by symmetry may make to a finding)."""
    docs = [f if isinstance(f, dict) else f.to_json() for f in findings]
    return [{k: v for k, v in d.items() if k != "by_symmetry"} for d in docs]


def _explain_json(core: str) -> dict:
    p = subprocess.run([sys.executable, "-m", "amddbg", "explain", core, "--json"], capture_output=True, text=True,
                       env=ENV, cwd=str(ROOT), timeout=600)
    return json.loads(p.stdout)


@pytest.mark.parametrize("target", TARGETS)
def test_spin_wait_of_many_workgroups_by_symmetry(tmp_path, target):
    core = _core(tmp_path, target, "spin_no_writer", 24, 64, ["buf:i32:1", "buf:i32:1536"])
    doc = _explain_json(core)
    assert doc["verdict"] == "hang"
    method = doc["replay"]["method"]
    assert "by symmetry: replayed" in method and "of 24 workgroups" in method
    replayed = int(method.split("by symmetry: replayed ")[1].split(" ")[0])
    assert replayed < 24
    f = doc["findings"][0]
    waves = 24 * (2 if target.startswith(("gfx11", "gfx12")) else 1)  # wave32: two waves per workgroup
    assert (f["kind"], f["cause"]) == ("spin_forever", "no_writer") and len(f["waves"]) == waves
    assert f"the machine state repeats: {waves} wave(s) spin" in method  # every wave counted, not the replayed
    full = explain_core(core, symmetry=False)
    assert "by symmetry" not in full.replay["method"]
    assert _plain(full.findings) == _plain(doc["findings"])
    assert full.verdict == doc["verdict"]
    assert doc["replay"]["status"] == "hang"  # (replaying every wave may not prove it within the budget)


@pytest.mark.parametrize("target", ("gfx90a", "gfx1100"))
def test_barrier_deadlock_of_many_workgroups_by_symmetry(tmp_path, target):
    core = _core(tmp_path, target, "barrier_deadlock", 12, 256, ["buf:i32:1", "buf:i32:3072"])
    sym = explain_core(core)
    full = explain_core(core, symmetry=False)
    assert sym.verdict == full.verdict == "hang"
    assert "by symmetry: replayed" in sym.replay["method"]
    assert _plain(sym.findings) == _plain(full.findings)
    assert {(f.kind, f.cause) for f in sym.findings} == {("barrier_deadlock", "missing_arrivals"),
                                                        ("spin_forever", "writer_blocked")}
    assert [f.details.get("cycle") for f in sym.findings if f.kind == "barrier_deadlock"] == [True]


def _counted(findings) -> list:
    """Findings without the replayed wave-instruction count (a replay by symmetry runs fewer than the whole)."""
    import re

    return [re.sub(r"\(\d+ wave-instructions\)", "(N wave-instructions)", json.dumps(x)) for x in _plain(findings)]


@pytest.mark.parametrize("target", ("gfx90a", "gfx1200"))
def test_symmetry_refused_when_the_waves_write_what_differs(tmp_path, target):
    # slow_loop: each wave counts from its own progress and stores out[lane]: a representative whose class holds its
    # loop registers differently reads them, so the whole dispatch is replayed, and the answer is the same as with
    # symmetry off. (Workgroups stopped at the same point of the loop hold the same registers: they store the same
    # bytes to the same address, which the argument allows.)
    core = _core(tmp_path, target, "slow_loop", 12, 64, ["buf:i32:768", "i32:300"], stop=3000)
    sym = explain_core(core)
    full = explain_core(core, symmetry=False)
    assert sym.verdict == full.verdict == "no_hang"
    method = sym.replay["method"]
    if "by symmetry" in method:
        assert "stored only the same bytes to the same addresses as they do" in method, method
    else:
        assert "replayed the whole dispatch: a representative of" in method
        assert "reads" in method and "differs between the waves" in method, method
    assert _counted(sym.findings) == _counted(full.findings)


def test_symmetry_refused_at_o0_scratch(tmp_path):
    # -O0 keeps the flag pointer on the stack: the representative reads its private memory (each wave's own)
    core = _core(tmp_path, "gfx90a", "spin_no_writer", 12, 64, ["buf:i32:1", "buf:i32:768"], o0=True)
    sym = explain_core(core)
    full = explain_core(core, symmetry=False)
    assert sym.verdict == full.verdict == "hang"
    assert "private (scratch) memory" in sym.replay["method"]
    assert _plain(sym.findings) == _plain(full.findings)


def test_tracker_sees_a_read_of_a_register_that_differs(tmp_path):
    # the plan's own bookkeeping, checked from the other side: mark the SGPRs of the flag's pointer as differing
    # within the class. The tracker must see the reads of them: each member then runs the arithmetic and the loads
    # that read them with its own values (symvalues.py; before 58c4147 the replay refused and replayed every
    # wave). The members really hold the representative's values, so the answer stays the symmetric one.
    import amddbg
    from amddbg.replay import replay as R
    from amddbg.replay.fromcore import stuck_dispatch
    from amddbg.replay.symmetry import plan

    core = _core(tmp_path, "gfx90a", "spin_no_writer", 12, 64, ["buf:i32:1", "buf:i32:768"])
    prog = amddbg.open(core)
    try:
        threads = stuck_dispatch(prog, None)
        p = plan(prog, threads, threads[0].dispatch)
        assert p.reduces and p.dirty
        ok = R.replay(prog)
        assert ok.symmetry.startswith("by symmetry") and ok.status == "hang"
        for d in p.dirty.values():
            d.sgprs.update(range(0, 16))  # the kernarg pointer and the loaded flag address live in s[0:15]
        prog.__dict__["_replay_plans"] = {(None, (), ()): p}
        r = R.replay(prog)
        assert ok.member_instructions == 0 and "read no register they hold differently" in ok.symmetry
        assert r.symmetry.startswith("by symmetry") and r.member_instructions > 0
        assert "computed what differs between them from their own values" in r.symmetry
        assert r.status == ok.status == "hang" and r.reason == ok.reason and r.followed == ok.followed
    finally:
        prog.close()


SYM = ROOT / "corefiles" / "symhangs"


def _sym_core(tmp_path, target: str, kernel: str, groups: int, args: list[str]) -> str:
    wave = 64 if target.startswith("gfx9") else 32
    tmp_path.mkdir(parents=True, exist_ok=True)
    out = tmp_path / f"{kernel}-{target}.gpu"
    cmd = [sys.executable, "-m", "amddbg", "run", str(SYM / f"symhangs-llvm22-{target}-w{wave}-O2.co"),
           "--kernel", kernel, "--grid", str(groups * 64), "--block", "64", "--core", str(out),
           "--max-instructions", "400000"]
    for a in args:
        cmd += ["--arg", a]
    subprocess.run(cmd, check=True, capture_output=True, env=ENV, cwd=str(ROOT), timeout=600)
    return str(out)


@pytest.mark.parametrize("target", TARGETS)
def test_symmetry_for_classes_that_store_to_their_own_words(tmp_path, target):
    """symhangs alive_poll: every work-item stores 1 to alive[global id] while it polls; the address comes from
    registers that differ within a class (computed before the core), the members' words are computed from their
    own registers and no wave reads them: the replay by symmetry stands, and its answer is the whole replay's."""
    core = _sym_core(tmp_path, target, "alive_poll", 12, ["buf:i32:1", "buf:i32:768"])
    doc = _explain_json(core)
    method = doc["replay"]["method"]
    assert doc["verdict"] == "hang"
    assert "by symmetry: replayed" in method and "of 12 workgroups" in method, method
    assert "but for its stores' addresses, and stored only where no wave reads" in method
    full = explain_core(core, symmetry=False)
    assert full.verdict == "hang" and "by symmetry" not in full.replay["method"]
    assert _plain(full.findings) == _plain(doc["findings"])


@pytest.mark.parametrize("target", ("gfx90a", "gfx1100"))
def test_symmetry_for_classes_that_store_the_same_word(tmp_path, target):
    core = _sym_core(tmp_path, target, "waiting_poll", 12, ["buf:i32:1", "buf:i32:1"])
    doc = _explain_json(core)
    method = doc["replay"]["method"]
    assert "by symmetry: replayed" in method and "the same bytes to the same addresses" in method, method
    full = explain_core(core, symmetry=False)
    assert _plain(full.findings) == _plain(doc["findings"]) and full.verdict == doc["verdict"] == "hang"


def _member_workgroup(core: str) -> int:
    """The x id of a workgroup that replay by symmetry would not run (a member of a class, not its
    representative), from the plan (amddbg.replay.symmetry.plan) of the core."""
    import amddbg
    from amddbg.replay.fromcore import stuck_dispatch
    from amddbg.replay.symmetry import plan

    prog = amddbg.open(core)
    try:
        threads = stuck_dispatch(prog, None)
        p = plan(prog, threads, threads[0].dispatch)
        return min(t.workgroup[0] for ts in p.members.values() for t in ts)
    finally:
        prog.close()


@pytest.mark.parametrize("target", ("gfx90a", "gfx1200"))
def test_symmetry_refused_when_a_member_store_is_read(tmp_path, target):
    """reader_poll: every wave also polls the word one work-item marks; that work-item is the first of a workgroup
    that is a member of its class (not its representative: found from the plan of a first core, whose classes the
    argument does not change, as it never steers the waves): the members' stores are seen, so the whole dispatch
    is replayed."""
    first = _sym_core(tmp_path, target, "reader_poll", 12, ["buf:i32:1", "buf:i32:768", "i32:704"])
    member = _member_workgroup(first)
    core = _sym_core(tmp_path / "member", target, "reader_poll", 12, ["buf:i32:1", "buf:i32:768",
                                                                       f"i32:{member * 64}"])
    assert _member_workgroup(core) == member
    doc = _explain_json(core)
    method = doc["replay"]["method"]
    assert "replayed the whole dispatch: a representative of" in method and "a replayed wave reads" in method, method
    full = explain_core(core, symmetry=False)
    assert _plain(full.findings) == _plain(doc["findings"]) and full.verdict == doc["verdict"]


def _early_core(tmp_path, target: str, kernel: str, groups: int, args: list[str], per_wave: int = 20) -> str:
    """A core of `groups` 64-work-item workgroups stopped after `per_wave` wave-instructions per wave on average
    (bench/explain_scale.py's cut): most waves have not yet computed their store address."""
    wave = 64 if target.startswith("gfx9") else 32
    out = tmp_path / f"{kernel}-{target}-{groups}-{per_wave}.gpu"
    waves = groups * (64 // wave)
    cmd = [sys.executable, "-m", "amddbg", "run", str(SYM / f"symhangs-llvm22-{target}-w{wave}-O2.co"),
           "--kernel", kernel, "--grid", str(groups * 64), "--block", "64", "--core", str(out),
           "--max-instructions", str(per_wave * waves)]
    for a in args:
        cmd += ["--arg", a]
    subprocess.run(cmd, check=True, capture_output=True, env=ENV, cwd=str(ROOT), timeout=600)
    return str(out)


def _explain_cli(core: str, *extra: str) -> dict:
    p = subprocess.run([sys.executable, "-m", "amddbg", "explain", core, "--json", *extra], capture_output=True,
                       text=True, env=ENV, cwd=str(ROOT), timeout=900)
    assert p.returncode in (0, 3, 4), p.stderr
    return json.loads(p.stdout)


def _kernel_args(kernel: str, groups: int) -> list[str]:
    words = groups * 64 * 3 + 1  # stride_poll writes out[(g * 64 + t) * 3 + 1]
    return ["buf:i32:1", f"buf:i32:{words}"] + (["i32:3"] if kernel == "stride_poll" else [])


@pytest.mark.parametrize("target,kernel,groups", [("gfx90a", "alive_poll", 512), ("gfx1200", "stride_poll", 512),
                                                  ("gfx1100", "alive_poll", 128), ("gfx942", "stride_poll", 128)])
def test_symmetry_follows_store_addresses_computed_in_replay(tmp_path, target, kernel, groups):
    """Cores caught before the waves computed `&alive[id]` (issue 20 s1, bench/explain_scale.py --kernel
    alive_poll): the representatives' arithmetic on the workgroup id is run for every member of their class
    (symvalues), each member's store addresses come out of it, and the replay by symmetry stands: a bounded number
    of wave-instructions whatever the waves, and the whole replay's answer (`--no-symmetry`)."""
    core = _early_core(tmp_path, target, kernel, groups, _kernel_args(kernel, groups))
    sym = _explain_cli(core)
    whole = _explain_cli(core, "--no-symmetry")
    method = sym["replay"]["method"]
    assert "by symmetry: replayed" in method and f"of {groups} workgroups" in method, method
    assert "computed what differs between them from their own values" in method, method
    assert "stored only where no wave reads" in method, method
    assert "by symmetry" not in whole["replay"]["method"] and "symmetry_waves" not in whole["replay"]
    assert sym["verdict"] == whole["verdict"] == "hang"
    assert _plain(sym["findings"]) == _plain(whole["findings"])
    # bounded work: one workgroup per class (classes do not grow with the grid), each a bounded replay
    replayed = int(method.split("by symmetry: replayed ")[1].split(" ")[0])
    assert replayed <= 32
    assert sym["replay"]["wave_instructions"] <= 10_000 * replayed
    assert sym["replay"]["wave_instructions"] < whole["replay"]["wave_instructions"]
    counts = sym["replay"]["symmetry_waves"]
    waves = groups * (1 if target.startswith("gfx9") else 2)
    assert counts["replayed"] + counts["followed"] == waves and counts["member_instructions"] > 0
    f = sym["findings"][0]
    assert (f["kind"], f["cause"]) == ("spin_forever", "no_writer") and len(f["waves"]) == waves
    assert f["by_symmetry"]["replayed"] + f["by_symmetry"]["followed"] == waves
    assert f["by_symmetry"]["followed"] == counts["followed"]


def test_symmetry_attribution_in_text(tmp_path):
    core = _early_core(tmp_path, "gfx90a", "alive_poll", 64, _kernel_args("alive_poll", 64))
    p = subprocess.run([sys.executable, "-m", "amddbg", "explain", core], capture_output=True, text=True, env=ENV,
                       cwd=str(ROOT), timeout=600)
    assert p.returncode == 3, p.stderr
    lines = p.stdout.splitlines()
    spin = next(i for i, line in enumerate(lines) if line.startswith("- spin_forever (no_writer): 64 waves"))
    assert "replayed, the rest by symmetry: threads" in lines[spin + 1], lines[spin + 1]
    assert "follow their class's representative" in lines[spin + 1]


@pytest.mark.parametrize("target", ("gfx90a", "gfx1200"))
def test_symmetry_refused_when_a_computed_value_steers(tmp_path, target):
    """mod3_poll: the branch on `group_x() % 3` reads what the members computed differently (VCC or SCC): the
    members would not take the representative's path, so the whole dispatch is replayed (and says why)."""
    core = _early_core(tmp_path, target, "mod3_poll", 24, _kernel_args("mod3_poll", 24))
    sym = _explain_cli(core)
    whole = _explain_cli(core, "--no-symmetry")
    method = sym["replay"]["method"]
    assert "replayed the whole dispatch: a representative of" in method, method
    assert "differs between the waves of its class" in method, method
    assert sym["verdict"] == whole["verdict"] and _plain(sym["findings"]) == _plain(whole["findings"])
    assert "symmetry_waves" not in sym["replay"]


@pytest.mark.parametrize("target", ("gfx942", "gfx1100"))
def test_symmetry_refused_when_a_computed_address_is_loaded(tmp_path, target):
    """neighbour_poll: each wave polls the word its right neighbour marks, at an address computed from the
    workgroup id: each member's load of its own address is run, but the words the members mark are read by
    other waves (their neighbours), so the argument does not stand and the whole dispatch is replayed."""
    core = _early_core(tmp_path, target, "neighbour_poll", 12, _kernel_args("neighbour_poll", 12))
    sym = _explain_cli(core)
    whole = _explain_cli(core, "--no-symmetry")
    method = sym["replay"]["method"]
    assert "replayed the whole dispatch: a representative of" in method, method
    assert sym["verdict"] == whole["verdict"] and _plain(sym["findings"]) == _plain(whole["findings"])


def _grid_args(kernel: str, groups: int, extra: int) -> list[str]:
    expected = f"u32:{groups + extra}"
    if kernel == "grid_poll":
        return ["buf:u32:1", f"buf:i32:{groups * 64}", expected]
    return ["buf:u32:1", "buf:i32:1", expected]


@pytest.mark.parametrize("target,extra,verdict,symmetric", [
    ("gfx90a", 1, "hang", True), ("gfx90a", 0, "no_hang", True), ("gfx1100", 1, "hang", True),
    ("gfx942", 0, "no_hang", True), ("gfx1200", 0, "no_hang", True), ("gfx1200", 0, "no_hang", False)])
def test_symmetry_runs_the_members_atomics(tmp_path, target, extra, verdict, symmetric):
    """grid_poll, a hand-made grid barrier: work-item 0 of each workgroup adds 1 to a counter every wave polls
    until it reaches `expected`. The members' arrivals are part of the answer: each member's atomic is run too
    (symvalues, on the replay's memory), so the counter counts every workgroup and the answer is the whole
    replay's: every wave ends when expected is the grid, a hang when it is one more. (A core that catches waves
    between their poll's load and its compare, each member holding the count it read, has them compare
    differently: the branch differs, and the whole dispatch is replayed, with the same answer; gfx1200 at 20
    instructions per wave does.)"""
    per_wave = 6 if symmetric else 20  # (most waves before their atomic)
    core = _early_core(tmp_path, target, "grid_poll", 64, _grid_args("grid_poll", 64, extra), per_wave=per_wave)
    sym = _explain_cli(core)
    whole = _explain_cli(core, "--no-symmetry")
    method = sym["replay"]["method"]
    if not symmetric:
        assert "replayed the whole dispatch" in method and "reads VCC, which differs" in method, method
        assert sym["verdict"] == whole["verdict"] == verdict
        assert _counted(sym["findings"]) == _counted(whole["findings"])
        return
    assert "by symmetry: replayed" in method and "of 64 workgroups" in method, method
    assert "ran their own global atomics" in method and sym["replay"]["symmetry_waves"]["member_atomics"] > 0
    assert sym["verdict"] == whole["verdict"] == verdict
    assert _counted(sym["findings"]) == _counted(whole["findings"])
    assert sym["replay"]["wave_instructions"] < whole["replay"]["wave_instructions"]
    if verdict == "hang":
        assert [f["kind"] for f in sym["findings"]] == ["spin_forever"]


def test_symmetry_refused_when_an_atomic_result_differs_and_is_used(tmp_path):
    """ticket_poll: each workgroup keeps the ticket its atomic returns (in LDS) and the last to arrive raises the
    flag: the returned values differ between the members and are stored to LDS, so the whole dispatch is
    replayed, with the same answer."""
    core = _early_core(tmp_path, "gfx90a", "ticket_poll", 24, _grid_args("ticket_poll", 24, 1))
    sym = _explain_cli(core)
    whole = _explain_cli(core, "--no-symmetry")
    method = sym["replay"]["method"]
    assert "replayed the whole dispatch: a representative of" in method, method
    assert sym["verdict"] == whole["verdict"] and _plain(sym["findings"]) == _plain(whole["findings"])


def test_findings_read_from_the_replayed_machine_cover_the_members(tmp_path):
    """corefiles/barriers wait_unsignaled (gfx1200: wave 1 of each workgroup waits on the workgroup barrier it never
    signalled), 24 workgroups caught before the waits: the barrier objects and the misuse the replayed machine
    records are the representatives' only, and are extended to the workgroups that follow them, so the findings
    are the whole replay's (every waiting workgroup, every misusing wave), each saying which waves were replayed."""
    core = tmp_path / "wait_unsignaled.gpu"
    subprocess.run([sys.executable, "-m", "amddbg", "run", str(ROOT / "corefiles" / "barriers" / "barriers-gfx1200.co"),
                    "--kernel", "wait_unsignaled", "--grid", str(24 * 128), "--block", "128", "--arg",
                    f"buf:i32:{24 * 128}", "--max-instructions", "200", "--core", str(core)],
                   check=True, capture_output=True, env=ENV, cwd=str(ROOT), timeout=600)
    sym = _explain_cli(str(core))
    whole = _explain_cli(str(core), "--no-symmetry")
    assert "by symmetry: replayed" in sym["replay"]["method"]
    assert sym["verdict"] == whole["verdict"] == "hang"
    assert _plain(sym["findings"]) == _plain(whole["findings"])
    kinds = {f["kind"]: f for f in sym["findings"]}
    assert set(kinds) == {"barrier_deadlock", "barrier_misuse"}
    for f in kinds.values():
        assert f["by_symmetry"]["followed"] > 0
        assert f["by_symmetry"]["replayed"] + f["by_symmetry"]["followed"] == len(f["waves"])
    misuse = kinds["barrier_misuse"]
    assert misuse["summary"].startswith(f"replay: {len(misuse['waves'])} wave(s) misuse barrier -1")


@pytest.mark.parametrize("target", ("gfx90a", "gfx1100"))
def test_symmetry_follows_loads_of_each_members_own_words(tmp_path, target):
    """flag_poll: each workgroup polls its own flag (flags[group id]) and copies in[g] + 1 to out[g]: the loads'
    addresses differ between the members of a class, so each member's loads are run too (its own words, right
    before its representative's), their values followed into the store and the compare; the spin findings name
    each workgroup's own flag, as replaying every wave does."""
    groups = 32
    core = _early_core(tmp_path, target, "flag_poll", groups,
                       [f"buf:i32:{groups}", f"buf:i32:{groups * 64}:iota", f"buf:i32:{groups * 64}"])
    sym = _explain_cli(core)
    whole = _explain_cli(core, "--no-symmetry")
    method = sym["replay"]["method"]
    assert "by symmetry: replayed" in method and "computed what differs between them" in method, method
    assert sym["verdict"] == whole["verdict"] == "hang"
    assert _plain(sym["findings"]) == _plain(whole["findings"])
    flags = {f["details"].get("address") for f in sym["findings"] if f["kind"] == "spin_forever"}
    assert len(flags) >= groups - 1  # (one workgroup's finding may name the other word its loop loads)
