"""`amddbg litmus [--json] [--nochains] FILE...`: decide litmus tests with the models.

Human output explains each verdict (witness execution, missing availability/visibility chain, barriers
that never complete); `--json` prints one JSON object per file (JSON Lines) with the fields of
`amddbg.models.verdict.Verdict.as_json`.
"""

from __future__ import annotations

import argparse
import json
import sys

from amddbg.models.litmus import load
from amddbg.models.verdict import Verdict, decide
from amddbg.textsafe import safe


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="Khronos .test or VULKAN .litmus files")
    parser.add_argument("--json", action="store_true", help="print JSON Lines verdicts")
    parser.add_argument("--nochains", action="store_true",
                        help="use the model variant without availability/visibility chains")
    parser.add_argument("--limit", type=int, default=None, metavar="N",
                        help="stop after N candidate executions per test without a verdict "
                             "(default 50000, or AMDDBG_LITMUS_LIMIT)")


def render(v: Verdict) -> str:
    out = [f"{v.file}: {v.name}"]
    out.append(f"  condition holds: {'yes' if v.condition_holds else 'no'}   "
               f"data race: {'yes' if v.data_race else 'no'}   "
               f"terminates: {'yes' if v.terminates else ('no' if v.terminates is False else 'undecided')}   "
               f"({v.executions} candidate executions)")
    for q in v.queries:
        got = "SATISFIABLE" if q.sat else "NOSOLUTION"
        mark = "agrees" if q.agrees else "DISAGREES with the file"
        out.append(f"  line {q.line}: {q.text}  ->  {got} ({mark})")
    out += ["  " + ln for ln in v.explanation]
    if v.search_bound is not None:
        out.append(f"  search bound: {v.search_bound} candidate executions (not reached)")
    return "\n".join(safe(ln) for ln in out)  # names and query text come from the file


def _progress(path: str):
    """Progress on stderr while a large search runs (only on a terminal: logs stay clean)."""
    if not sys.stderr.isatty():
        return None

    def show(visited: int, limit: int) -> None:
        sys.stderr.write(f"\ramddbg: litmus: {safe(path)}: {visited} of at most {limit} candidate executions")
        sys.stderr.flush()

    return show


def _end_progress() -> None:
    if sys.stderr.isatty():
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()


def run(args: argparse.Namespace) -> int:
    for path in args.files:
        try:
            v = decide(load(path), nochains=args.nochains, limit=args.limit, progress=_progress(path))
        except Exception as exc:
            from amddbg.errors import AmddbgError

            _end_progress()
            if isinstance(exc, AmddbgError):
                exc.with_file(path)
            raise
        _end_progress()
        if args.json:
            print(json.dumps(v.as_json()))
        else:
            print(render(v))
        sys.stdout.flush()
    return 0
