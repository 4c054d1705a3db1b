"""`amddbg run CODEOBJ --kernel NAME --grid X[,Y[,Z]] --block X[,Y[,Z]] [--arg SPEC]... [--json]
[--core OUT [--layout split|unified]] [--max-instructions N] [--seed N | --explore N] [--stack-size BYTES]`: run a
kernel in the emulator.

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

    add_launch_arguments(p, default_limit=DEFAULT_MAX_INSTRUCTIONS)
    p.add_argument("--explore", type=int, default=None, metavar="N",
                   help="run N seeded schedules and cache choices (seeds 0..N-1), report each outcome with its "
                        "seeds, write the first hang's core to --core, exit with the worst outcome's code")
    p.add_argument("--core", metavar="OUT", help="write the final state as a core")
    p.add_argument("--layout", choices=("split", "unified"), default="split")


def run(args: argparse.Namespace) -> int:
    from amddbg.emu.args import parse_arg, parse_dims, read_buffer
    from amddbg.emu.limits import check as check_budget
    from amddbg.emu.machine import DYNAMIC_STACK_MAX, Machine
    from amddbg.textsafe import check_regular

    check_regular(args.codeobj)
    grid, block = parse_dims(args.grid, "grid"), parse_dims(args.block, "block")
    specs = [parse_arg(a) for a in args.arg]
    if args.core:  # the core goes to a new file or replaces an output, never an input of this run
        inputs = [args.codeobj] + [a.init[len("file="):] for a in specs
                                   if a.kind == "buffer" and a.init.startswith("file=")]
        for path in inputs:
            if os.path.exists(args.core) and os.path.exists(path) and os.path.samefile(path, args.core):
                raise UsageError(f"{args.core}: --core would overwrite an input of this run ({path})")
    launch = {}
    if args.stack_size is not None:
        if not 0 <= args.stack_size <= DYNAMIC_STACK_MAX:
            raise UsageError(f"--stack-size {args.stack_size}: expected 0..{DYNAMIC_STACK_MAX} bytes")
        launch["stack_size"] = args.stack_size
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
    if args.json:
        buffers = [{"arg": b["arg"], "type": b["type"], "values": read_buffer(m, b)} for b in m.buffers]
        doc = {"status": r.status, "reason": r.reason, "wave_instructions": r.wave_instructions,
               "seconds": round(r.seconds, 4), "buffers": buffers, "waves": waves, "warnings": warnings}
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
    rate = r.wave_instructions / r.seconds if r.seconds else 0
    print(f"{r.wave_instructions} wave-instructions in {r.seconds:.2f} s ({rate:,.0f}/s)")
    if args.core:
        print(f"core written: {args.core} ({args.layout})")
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
    for o in ex.outcomes:
        print(f"  {o.status}: seed {o.seeds[0]}: {safe(o.reason)}")
    if ex.schedule_dependent:
        print("the outcome depends on the schedule: rerun one with `--seed N`")
    total = sum(r.result.wave_instructions for r in ex.runs)
    print(f"{total} wave-instructions in {len(ex.runs)} runs")
    if ex.core:
        print(f"core of the first hang (seed {ex.first_hang}) written: {ex.core} ({args.layout})")
    elif args.core:
        print(f"no run hung: no core written to {args.core}")
    return ex.exit_code
