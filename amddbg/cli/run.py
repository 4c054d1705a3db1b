"""`amddbg run CODEOBJ --kernel NAME --grid X[,Y[,Z]] --block X[,Y[,Z]] [--arg SPEC]... [--dynamic-lds BYTES]
[--global NAME=TYPE:COUNT[:INIT]]... [--json] [--core OUT [--layout split|unified|pair]] [--max-instructions N]
[--seed N | --explore N] [--stack-size BYTES]`: run a kernel in the emulator; `amddbg run [CODEOBJ] --script FILE`
runs a sequence of launches sharing buffers (amddbg/emu/launch.py).

Every run returns: without `--max-instructions` a run stops after `DEFAULT_MAX_INSTRUCTIONS` wave-instructions with
status `limit` (a hang the detector does not prove still ends). Budgets are instructions, never seconds, so a run's
answer does not depend on the machine's load."""

from __future__ import annotations

import argparse
import json
import os
import sys

from amddbg.errors import UsageError

# The default bound of one run, in wave-instructions: about three minutes of emulation on one core (250k/s),
# 50x the longest kernel of the differential corpora; a hang the detector misses ends as `limit`.
DEFAULT_MAX_INSTRUCTIONS = 50_000_000


def add_parser(p: argparse.ArgumentParser) -> None:
    from amddbg.emu.args import add_launch_arguments

    add_launch_arguments(p, default_limit=DEFAULT_MAX_INSTRUCTIONS, script=True)
    p.add_argument("--script", metavar="FILE",
                   help="run the launches of a JSON (or YAML) launch script, sharing named buffers and globals, "
                        "instead of --kernel/--grid/--block/--arg")
    p.add_argument("--explore", type=int, default=None, metavar="N",
                   help="run N seeded schedules and cache choices (seeds 0..N-1), report each outcome with its "
                        "seeds, write the first hang's core to --core, exit with the worst outcome's code")
    p.add_argument("--core", metavar="OUT", help="write the final state as a core")
    p.add_argument("--layout", choices=("split", "unified", "pair"), default="split",
                   help="split: one GPU core that stands alone (default); unified: one x86-64 core with the host "
                        "notes; pair: the GPU core at OUT and the host core beside it (OUT.gpu -> OUT.host.core), "
                        "the runtime's link map and code object in the host core, as ROCr and the kernel write them")


def _check_core_target(core: str | None, inputs: list[str], layout: str = "split") -> None:
    """The core goes to a new file or replaces an output, never an input of this run."""
    if not core:
        return
    from amddbg.emu.coredump import host_core_path

    for out in (core, host_core_path(core)) if layout == "pair" else (core,):
        _check_writable(out)
        for path in inputs:
            if path and os.path.exists(out) and os.path.exists(path) and os.path.samefile(path, out):
                raise UsageError(f"{out}: --core would overwrite an input of this run ({path})")


def _check_writable(out: str) -> None:
    """Refuse a --core path that cannot be written before the run, not after minutes of emulation: the directory
    must exist and take new files, and the path must not be a directory."""
    parent = os.path.dirname(os.path.abspath(out))
    if os.path.isdir(out):
        raise UsageError(f"{out}: --core names a directory, not a file")
    if not os.path.isdir(parent):
        raise UsageError(f"{out}: --core: no such directory {parent}")
    if not os.access(parent, os.W_OK | os.X_OK) or (os.path.exists(out) and not os.access(out, os.W_OK)):
        raise UsageError(f"{out}: --core: permission denied")


def _written(core: str, layout: str) -> str:
    """What `core written:` names: the file, or both files of a pair."""
    if layout != "pair":
        return f"{core} ({layout})"
    from amddbg.emu.coredump import host_core_path

    return f"{core} (pair, host core {host_core_path(core)})"


def run(args: argparse.Namespace) -> int:
    from amddbg.emu.args import parse_arg, parse_dims, read_buffer
    from amddbg.emu.launch import launch_options
    from amddbg.emu.limits import check as check_budget
    from amddbg.emu.machine import Machine
    from amddbg.textsafe import check_regular

    if args.script:
        return _script(args)
    missing = [o for o in ("kernel", "grid", "block") if getattr(args, o) is None] + (
        ["CODEOBJ"] if not args.codeobj else [])
    if missing:
        raise UsageError(f"run needs {', '.join(m if m == 'CODEOBJ' else '--' + m for m in missing)} "
                         "(or --script FILE)")
    check_regular(args.codeobj)
    grid, block = parse_dims(args.grid, "grid"), parse_dims(args.block, "block")
    specs = [parse_arg(a) for a in args.arg]
    launch = launch_options(args)
    _check_core_target(args.core, [args.codeobj] + [a.init[len("file="):] for a in specs
                                                    if a.kind == "buffer" and a.init.startswith("file=")]
                       + [g.init[len("file="):] for g in launch.get("globals", [])
                          if g.init and g.init.startswith("file=")], args.layout)
    if args.json:  # one Python number per element (about 40 bytes each) while the document is written
        check_budget(sum(40 * a.count for a in specs if a.kind == "buffer"), "the --json list of the buffers' values")
    limit = DEFAULT_MAX_INSTRUCTIONS if args.max_instructions is None else args.max_instructions
    if args.explore is not None:
        if args.seed:
            raise UsageError("--explore N runs seeds 0..N-1: it does not take --seed")
        if not 1 <= args.explore <= 4096:
            raise UsageError(f"--explore {args.explore}: expected 1..4096 runs")
        return _explore(args, grid, block, specs, launch, limit)
    m = Machine(args.codeobj, seed=args.seed)
    m.dispatch(args.kernel, grid, block, specs, **launch)
    r = m.run(max_instructions=limit)
    if args.core:
        m.write_core(args.core, layout=args.layout)
    waves = []
    for w in m.waves:
        waves.append({"workgroup": list(w.workgroup), "wave_in_group": w.wave_in_group, "pc": f"{w.pc:#x}",
                      "state": w.state, "source": m.wave_source(w)})
    warnings = m.lds_bounds.warnings()  # accesses past the workgroup's LDS (amddbg/emu/ldsbounds.py)
    from amddbg.emu.globalvars import read_globals

    globals_ = read_globals(m, m.device_globals)
    if args.json:
        buffers = [{"arg": b["arg"], "type": b["type"], "values": read_buffer(m, b)} for b in m.buffers]
        doc = {"status": r.status, "reason": r.reason, "wave_instructions": r.wave_instructions,
               "seconds": round(r.seconds, 4), "buffers": buffers, "globals": globals_, "waves": waves,
               "warnings": warnings}
        json.dump(doc, sys.stdout)
        sys.stdout.write("\n")
        return 0
    from collections import Counter

    from amddbg.textsafe import safe

    print(f"{r.status}: {safe(r.reason)}")
    groups = Counter()
    for w in waves:
        src = w["source"]
        where = f"{src['file'].rsplit('/', 1)[-1]}:{src['line']} ({src['function']})" if src else w["pc"]
        groups[(w["state"], where)] += 1
    for (state, where), n in sorted(groups.items(), key=lambda kv: -kv[1]):
        print(f"  {n:>6} {state:<12} {safe(where)}")
    for rec in warnings:
        if "lanes" in rec:
            print(f"  warning: {safe(m.lds_bounds.describe(rec))}")
        else:
            print(f"  warning: {rec['count']} more out-of-range LDS accesses")
    for g in globals_:
        print(f"  global {safe(g['name'])} ({g['type']} x {len(g['values'])}): {_preview(g['values'])}")
    rate = r.wave_instructions / r.seconds if r.seconds else 0
    print(f"{r.wave_instructions} wave-instructions in {r.seconds:.2f} s ({rate:,.0f}/s)")
    if args.core:
        print(f"core written: {_written(args.core, args.layout)}")
    return 0


def _preview(values: list, n: int = 8) -> str:
    return ", ".join(repr(v) for v in values[:n]) + (f", ... ({len(values)} values)" if len(values) > n else "")


def _script(args: argparse.Namespace) -> int:
    """`--script FILE`: the launches of a launch script on one machine (amddbg.emu.launch.run_script)."""
    from amddbg.emu.launch import load_script, parse_script, run_script
    from amddbg.textsafe import safe

    single = [o for o in ("kernel", "grid", "block") if getattr(args, o) is not None]
    single += ["arg"] if args.arg else []
    single += ["dynamic-lds"] if args.dynamic_lds else []
    single += ["global"] if args.globals else []
    single += ["stack-size"] if args.stack_size is not None else []
    single += ["cluster"] if getattr(args, "cluster", None) else []
    single += ["explore"] if args.explore is not None else []
    if single:
        raise UsageError("--script gives every launch's options; it does not take "
                         + ", ".join("--" + o for o in single))
    from pathlib import Path

    doc = load_script(args.script)
    plan = parse_script(doc, source=args.script, base=Path(args.script).resolve().parent)
    codeobj = args.codeobj or plan.code_object
    inputs = [args.script, codeobj or ""] + [s.init[5:] for s in plan.buffers.values() if s.init.startswith("file=")]
    inputs += [g.init[5:] for g in plan.globals if g.init and g.init.startswith("file=")]
    _check_core_target(args.core, inputs, args.layout)
    limit = DEFAULT_MAX_INSTRUCTIONS if args.max_instructions is None else args.max_instructions
    res = run_script(codeobj, doc, max_instructions=limit, seed=args.seed, core=args.core, layout=args.layout,
                     base=Path(args.script).resolve().parent)
    if args.json:
        json.dump(res.to_json(), sys.stdout)
        sys.stdout.write("\n")
        return 0
    for x in res.launches:
        shape = f"grid {','.join(map(str, x.grid))} block {','.join(map(str, x.block))}"
        lds = f" dynamic LDS {x.dynamic_lds}" if x.dynamic_lds else ""
        print(f"launch {x.index} {safe(x.kernel)} {shape}{lds}: {x.status}: {safe(x.reason)} "
              f"({x.wave_instructions:,} wave-instructions)")
        for rec in x.warnings:
            if "lanes" in rec:
                print(f"  warning: {safe(res.machine.lds_bounds.describe(rec))}")
    if res.stopped_at is not None:
        left = res.planned - res.stopped_at - 1
        print(f"stopped at launch {res.stopped_at}" + (f": {left} later launch(es) not run" if left else ""))
    for name, b in res.buffers.items():
        print(f"  buffer @{safe(name)} ({b['type']} x {b['count']}): {_preview(res.buffer(name).tolist())}")
    for g in res.global_values():
        print(f"  global {safe(g['name'])} ({g['type']} x {len(g['values'])}): {_preview(g['values'])}")
    if res.core:
        print(f"core written: {_written(res.core, args.layout)}")
    return 0


def _explore(args: argparse.Namespace, grid, block, specs, launch: dict, limit: int | None) -> int:
    """`--explore N`: the dispatch under seeds 0..N-1 (amddbg.emu.explore.explore_dispatch)."""
    from amddbg.emu.explore import explore_dispatch
    from amddbg.textsafe import safe

    ex = explore_dispatch(args.codeobj, args.kernel, grid, block, specs, runs=args.explore, max_instructions=limit,
                          core=args.core, layout=args.layout, launch=launch)
    if args.json:
        json.dump(ex.to_json(), sys.stdout)
        sys.stdout.write("\n")
        return ex.exit_code
    print(ex.summary())
    choice = {r.seed: r.visibility.label() for r in ex.runs}
    for o in ex.outcomes:
        how = choice.get(o.seeds[0], "none")
        print(f"  {o.status}: seed {o.seeds[0]}{f' (caches: {how})' if how != 'none' else ''}: {safe(o.reason)}")
    if ex.schedule_dependent:
        print("the outcome depends on the schedule or the cache choices: rerun an odd seed with `--seed N` (even "
              "seeds also delay stores, and seeds 4, 8, ... pre-fill lines: only --explore replays those)")
    total = sum(r.result.wave_instructions for r in ex.runs)
    print(f"{total} wave-instructions in {len(ex.runs)} runs")
    if ex.core:
        print(f"core of the first hang (seed {ex.first_hang}) written: {_written(ex.core, args.layout)}")
    elif args.core:
        print(f"no run hung: no core written to {args.core}")
    return ex.exit_code
