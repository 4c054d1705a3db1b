"""`amddbg explain CORE... [--dispatch ID] [--json] [--assume ...] [--budget N]`: why the waves of a core cannot
move. `--budget N` caps each replay at N wave-instructions (never seconds: the verdict must not depend on load).

Exit codes for CI triage: 0 no hang found (or unknown), 3 hang, 4 fault or trap.
"""

from __future__ import annotations

import argparse
import json
import sys


def add_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="CORE", help="a split GPU core, a host + GPU pair, or a unified core")
    p.add_argument("--dispatch", type=int, metavar="ID", help="only this dispatch (ROCgdb dispatch id)")
    p.add_argument("--json", action="store_true", help="print the Explanation as JSON")
    p.add_argument("--assume", action="append", default=[], metavar="CHANGE",
                   help="what-if change applied before replay: acquire|release|scope:SCOPE@FILE:LINE, "
                        "mem:ADDRESS=VALUE[:TYPE], barrier-count:N, skip-barrier@FILE:LINE (repeatable)")
    p.add_argument("--budget", type=_positive, metavar="N",
                   help=f"wave-instructions each replay may run (default {_default_budget()}; the verdict never "
                        "depends on time)")
    p.add_argument("--sysroot", metavar="DIR")
    p.add_argument("--solib-search-path", metavar="PATH")
    p.add_argument("--plugin", action="append", default=[], metavar="FILE.py",
                   help="load a plugin file (its explain annotations and explanation rules are shown)")
    p.add_argument("--no-plugins", action="store_true",
                   help="load no installed or AMDDBG_PLUGIN_PATH plugins (files named with --plugin still load)")


def _default_budget() -> int:
    from amddbg.replay.replay import DEFAULT_BUDGET

    return DEFAULT_BUDGET


def _positive(text: str) -> int:
    try:
        n = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of wave-instructions, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1 wave-instruction, got {n}")
    return n


def run(args: argparse.Namespace) -> int:
    import amddbg
    from amddbg.plugins import load_plugins
    from amddbg.replay.explain import explain_program
    from amddbg.replay.replay import Assumption
    from amddbg.textsafe import safe

    prog = amddbg.open(args.files, sysroot=args.sysroot, solib_search_path=args.solib_search_path)
    exp = explain_program(prog, dispatch=args.dispatch, assume=[Assumption.parse(a) for a in args.assume],
                          budget=args.budget)
    plugins = load_plugins(files=args.plugin, enabled=not args.no_plugins)
    if args.json:
        doc = exp.to_json()
        if plugins.plugins:
            doc["plugins"] = {"matches": [{"rule": rule, "pattern": m.pattern, "advice": m.advice, "detail": m.detail}
                                          for rule, m in plugins.classify(exp, applies_to="explanation")],
                              "annotations": plugins.annotate(exp, prog)}
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return exp.exit_code
    print(f"verdict: {exp.verdict}")
    for f in exp.findings:
        print(f"- {f.kind} ({f.cause}): {safe(f.summary)}")
        for loc in f.locations:
            where = f"{loc['file']}:{loc['line']}" if loc.get("file") else loc.get("pc")
            print(f"    {loc['role']}: {safe(loc.get('function') or '??')} at {safe(where)}")
    for a in exp.replay.get("assumed", []):
        print(f"  assumed: {safe(a)}")
    for line in plugins.explanation_lines(exp, prog):
        print(f"  {safe(line)}")
    print(safe(exp.replay_line()))
    return exp.exit_code
