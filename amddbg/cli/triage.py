"""`amddbg triage CORE... [--jobs N] [--cluster ADDRESS|local] [--by stack|line|kernel|state] [--json]
[--dot FILE] [--explain] [--format NAME]`: STAT-style merge of many cores (amddbg.triage)."""

from __future__ import annotations

import argparse
import json
import sys

from amddbg.errors import AmddbgError, UsageError


def add_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="CORE", help="cores, or folders of cores")
    p.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="worker processes on this machine")
    p.add_argument("--cluster", metavar="ADDRESS", help="Dask scheduler (tcp://host:8786) or 'local'")
    p.add_argument("--by", choices=("stack", "line", "kernel", "state"), default="stack",
                   help="fold waves by call stack (default), innermost line, kernel or state")
    p.add_argument("--json", action="store_true", help="print the JSON document (docs/triage.md)")
    p.add_argument("--dot", metavar="FILE", help="also write the tree as Graphviz DOT")
    p.add_argument("--explain", action="store_true", help="run the hang explainer once per branch")
    p.add_argument("--format", metavar="NAME", help="an output format a plugin provides (info plugins)")
    p.add_argument("--sysroot", metavar="DIR", help="prefix for file:// code object paths")
    p.add_argument("--solib-search-path", metavar="PATH", help="directories searched for file:// code objects")
    p.add_argument("--plugin", action="append", default=[], metavar="FILE.py", help="load a plugin file")
    p.add_argument("--no-plugins", action="store_true", help="load no plugins")


def run(args: argparse.Namespace) -> int:
    from amddbg.plugins import load_plugins
    from amddbg.triage import triage
    from amddbg.triage.render import compact_names, plural

    if args.jobs < 1 or args.jobs > 512:
        raise UsageError(f"--jobs must be between 1 and 512, not {args.jobs}")
    plugins = load_plugins(files=args.plugin, enabled=not args.no_plugins)
    if args.format and args.format not in plugins.formats:
        have = ", ".join(plugins.formats) or "none"
        raise UsageError(f"--format {args.format}: no plugin provides it (have: {have})")
    report = triage(args.files, by=args.by, jobs=args.jobs, cluster=args.cluster, explain=args.explain,
                    plugins=plugins, sysroot=args.sysroot, solib_search_path=args.solib_search_path)
    tree = report.tree
    if args.dot:
        try:
            with open(args.dot, "w", encoding="utf-8") as f:
                f.write(report.dot())
        except OSError as exc:
            raise AmddbgError(f"{args.dot}: cannot write: {exc.strerror}") from None
    doc = report.document()
    if args.format:
        text = plugins.render_format(args.format, doc)
        if text is None:
            raise AmddbgError(f"--format {args.format}: the plugin failed (see the warning above)")
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    elif args.json:
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        from amddbg.textsafe import console as safe_console

        console = safe_console()  # the summary lines quote kernel names: never markup, never raw escapes
        for line in doc["summary"]:
            console.print(line)
        console.print(report.rich())
        outl = doc["outlier_cores"]
        ordinary = doc["ordinary_cores"]
        console.print(f"{plural(ordinary, 'core')} entirely in the majority branches; "
                      f"{plural(len(outl), 'outlier')}" + (": " + compact_names(outl, 16) if outl else ""),
                      markup=False)
        console.print(f"{plural(len(tree.summaries), 'core')} in {report.seconds:.2f} s", markup=False)
    notices = []  # the REPL's notice for code objects read from host files the cores named, once each
    for summ in tree.summaries:
        notices += [f"{summ.name}: {w}" for w in summ.warnings if "read from host file" in w
                    and f"{summ.name}: {w}" not in notices]
    from amddbg.textsafe import safe

    for n in notices[:20]:
        print(f"amddbg: warning: {safe(n)}", file=sys.stderr)
    if len(notices) > 20:
        print(f"amddbg: warning: ... {len(notices) - 20} more code objects read from host files", file=sys.stderr)
    if not tree.readable:
        raise AmddbgError("no core could be read" + (f": {tree.failed[0].error}" if tree.failed else ""))
    return 0
