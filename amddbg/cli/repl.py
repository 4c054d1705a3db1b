"""`amddbg FILE...` / `amddbg repl FILE...`: the interactive debugger.

The prompt_toolkit REPL is not built yet. Until it is, opening a core or code object shows what
`amddbg info` knows about it (a real answer, not a placeholder) and says on stderr that the interactive
debugger is not available, so scripts and people both get something useful and nothing misleading.
"""

from __future__ import annotations

import argparse
import sys

from amddbg.cli import info


def add_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="+", metavar="FILE", help="core file(s) or code object")
    p.add_argument("--sysroot", metavar="DIR", help="prefix for file:// code object paths")
    p.add_argument("--solib-search-path", metavar="PATH", help="directories searched for file:// code objects")


def run(args: argparse.Namespace) -> int:
    print("amddbg: the interactive debugger is not available yet; showing `amddbg info`", file=sys.stderr)
    ns = argparse.Namespace(files=args.files, json=False, registers=False, kernel=None, args=False, index=None,
                            sysroot=args.sysroot, solib_search_path=args.solib_search_path)
    return info.run(ns)
