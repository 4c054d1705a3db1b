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


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="Khronos .test or VULKAN .litmus files")
    parser.add_argument("--json", action="store_true", help="print JSON Lines verdicts")
    parser.add_argument("--nochains", action="store_true",
                        help="use the model variant without availability/visibility chains")


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
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    for path in args.files:
        try:
            v = decide(load(path), nochains=args.nochains)
        except Exception as exc:
            from amddbg.errors import AmddbgError

            if isinstance(exc, AmddbgError):
                exc.with_file(path)
            raise
        if args.json:
            print(json.dumps(v.as_json()))
        else:
            print(render(v))
        sys.stdout.flush()
    return 0
