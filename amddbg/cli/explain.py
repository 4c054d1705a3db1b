"""`amddbg explain CORE... [--dispatch ID] [--json] [--assume ...] [--budget N] [--no-symmetry]`: why the waves of
a core cannot move. `--budget N` caps each replay at N wave-instructions (never seconds: the verdict must not
depend on load). `--no-symmetry` replays every wave (no replay by symmetry: the reference its answers are checked
against, and a way around a symmetry proof one doubts).

Exit codes for CI triage: 0 no hang found (or unknown), 3 hang, 4 fault or trap.

Several GPU cores (two split ``.gpu`` files, or two unified cores) are explained one after the other, each with
the code objects given beside them; a host core next to several GPU cores cannot be paired and is said to be
ignored. Files that are no core at all (a code object alone) are a one-line error: explain needs the waves'
state.
"""

from __future__ import annotations

import argparse
import json
import sys

EM_AMDGPU = 224


def add_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="CORE", help="a split GPU core, a host + GPU pair, or a unified core "
                                                           "(several GPU cores: each is explained)")
    p.add_argument("--dispatch", type=int, metavar="ID", help="only this dispatch (ROCgdb dispatch id)")
    p.add_argument("--json", action="store_true", help="print the Explanation as JSON")
    p.add_argument("--assume", action="append", default=[], metavar="CHANGE",
                   help="what-if change applied before replay: acquire|release|scope:SCOPE@FILE:LINE, "
                        "mem:ADDRESS=VALUE[:TYPE], barrier-count:N, skip-barrier@FILE:LINE (repeatable)")
    p.add_argument("--budget", type=_positive, metavar="N",
                   help=f"wave-instructions each replay may run (default {_default_budget()}; the verdict never "
                        "depends on time)")
    p.add_argument("--no-symmetry", action="store_true",
                   help="replay every wave of the dispatch (default: one workgroup per class of workgroups in the "
                        "same state, the others proven to follow it: docs/explain.md)")
    p.add_argument("--sysroot", metavar="DIR")
    p.add_argument("--solib-search-path", metavar="PATH")
    p.add_argument("--plugin", action="append", default=[], metavar="FILE.py",
                   help="load a plugin file (its explain annotations and explanation rules are shown)")
    p.add_argument("--no-plugins", action="store_true",
                   help="load no installed or AMDDBG_PLUGIN_PATH plugins (files named with --plugin still load)")


# The words of the core reader's notice for a code object read from a host file (amddbg.core.rdebug).
HOST_FILE_NOTICE = "read from host file"


def _default_budget() -> int:
    from amddbg.replay.budget import DEFAULT_BUDGET

    return DEFAULT_BUDGET


def _positive(text: str) -> int:
    try:
        n = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of wave-instructions, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1 wave-instruction, got {n}")
    return n


def _elf_kind(path: str) -> str:
    """"gpu" (a split AMDGPU core), "core" (a host or unified core), or "other" (a code object, anything else)."""
    from amddbg.errors import FormatError

    try:
        with open(path, "rb") as f:
            head = f.read(20)
    except OSError as exc:
        raise FormatError(f"cannot open: {exc.strerror}", file=path) from None
    if len(head) < 20 or head[:4] != b"\x7fELF" or int.from_bytes(head[16:18], "little") != 4:
        return "other"
    return "gpu" if int.from_bytes(head[18:20], "little") == EM_AMDGPU else "core"


def core_groups(paths: list[str]) -> tuple[list[list[str]], list[str]]:
    """The sets of files to explain one at a time, and notes about files left out."""
    from amddbg.errors import UsageError

    kinds = {p: _elf_kind(p) for p in paths}
    gpus = [p for p in paths if kinds[p] == "gpu"]
    hosts = [p for p in paths if kinds[p] == "core"]
    others = [p for p in paths if kinds[p] == "other"]
    if not gpus and not hosts:
        raise UsageError(f"{paths[0]}: not a core (explain needs a GPU core: write one with `amddbg run ... --core`, "
                         f"or look at a code object with `amddbg info` / `amddbg disassemble`)")
    if len(gpus) == 1 and len(hosts) <= 1 or not gpus and len(hosts) == 1:
        return [paths], []
    if len(gpus) >= 2:
        notes = [f"ignoring host core {h}: with {len(gpus)} GPU cores it cannot be paired with one" for h in hosts]
        return [[g, *others] for g in gpus], notes
    if not gpus:
        return [[h, *others] for h in hosts], []  # unified cores: each stands alone
    return [paths], []  # one GPU core and several host cores: the core reader says which it takes


def run(args: argparse.Namespace) -> int:
    import amddbg
    from amddbg.core.pairing import NOT_A_PAIR
    from amddbg.plugins import load_plugins
    from amddbg.replay.explain import explain_program
    from amddbg.replay.replay import Assumption
    from amddbg.replay.where import text_lines
    from amddbg.termwidth import output_width, wrap_at_words
    from amddbg.textsafe import safe

    groups, notes = core_groups(args.files)
    assume = [Assumption.parse(a) for a in args.assume]
    plugins = load_plugins(files=args.plugin, enabled=not args.no_plugins)
    results = []  # (first file, explanation, JSON document, text lines)
    host_notes: list[str] = []
    for files in groups:
        prog = amddbg.open(files, sysroot=args.sysroot, solib_search_path=args.solib_search_path)
        try:
            exp = explain_program(prog, dispatch=args.dispatch, assume=assume, budget=args.budget,
                                  symmetry=not args.no_symmetry)
            host_notes += [w for w in prog.warnings if (HOST_FILE_NOTICE in w or NOT_A_PAIR in w)
                           and w not in host_notes]
            doc = exp.to_json()
            if args.json and plugins.plugins:
                doc["plugins"] = {"matches": [{"rule": rule, "pattern": m.pattern, "advice": m.advice,
                                               "detail": m.detail}
                                              for rule, m in plugins.classify(exp, applies_to="explanation")],
                                  "annotations": plugins.annotate(exp, prog)}
            text = [] if args.json else [*text_lines(exp), *(f"  assumed: {safe(a)}" for a in exp.replay.get(
                "assumed", [])), *(f"  {safe(line)}" for line in plugins.explanation_lines(exp, prog)),
                safe(exp.replay_line())]
        finally:
            prog.close()
        results.append((files[0], exp, doc, text))
    for n in notes:
        print(f"amddbg: {safe(n)}", file=sys.stderr)
    for n in host_notes:  # the REPL's notices: code objects read from host files a core named, a mismatched pair
        print(f"amddbg: warning: {safe(n)}", file=sys.stderr)
    code = max((exp.exit_code for _f, exp, _d, _t in results), key=lambda c: (c != 0, c))
    if args.json:
        doc = results[0][2] if len(results) == 1 else {"cores": [{"core": f, **d} for f, _e, d, _t in results]}
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return code
    width = output_width(sys.stdout)
    for f, _exp, _doc, text in results:
        if len(results) > 1:
            print(f"== {safe(f)}")
        for line in wrap_at_words(text, width):  # at words to the terminal (or $COLUMNS); whole lines into a pipe
            print(line)
    return code
