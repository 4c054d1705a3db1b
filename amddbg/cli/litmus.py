"""`amddbg litmus [--json] [--nochains] [--emulate [--target GFX] [--seeds N]] FILE...`: decide litmus tests.

Human output explains each verdict (witness execution, missing availability/visibility chain, barriers
that never complete); `--json` prints one JSON object per file (JSON Lines) with the fields of
`amddbg.models.verdict.Verdict.as_json`. `--emulate` also runs the test's kernel in the emulator
(docs/emulator.md "Exploration") and prints the outcomes it reached next to the verdict (JSON: an
"emulator" object); the exit status is 1 when the emulator reached an outcome the model forbids.
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
    parser.add_argument("--emulate", action="store_true",
                        help="also run the test's kernel (corefiles/litmus-kernels) in the emulator under a bounded "
                             "exploration of schedules and visibility orders, and compare its outcomes")
    parser.add_argument("--target", default="gfx90a", metavar="GFX",
                        help="code object for --emulate: gfx90a (default), gfx942, gfx1100, gfx1200")
    parser.add_argument("--seeds", type=int, default=16, metavar="N", help="schedules per visibility order (--emulate)")


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
    status = 0
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
        emu = _emulate(path, v, args) if getattr(args, "emulate", False) else None
        if args.json:
            print(json.dumps(v.as_json() | ({"emulator": emu} if emu is not None else {})))
        else:
            print(render(v))
            if emu is not None:
                print("\n".join(safe(ln) for ln in _render_emulator(emu)))
        sys.stdout.flush()
        if emu is not None and emu.get("sound") is False:
            status = 1
    return status


def _emulate(path: str, v: Verdict, args: argparse.Namespace) -> dict:
    """Run the litmus kernel under explore() and compare with the verdict (amddbg/replay/litmus_kernels.py)."""
    from amddbg.replay import litmus_kernels as lk

    k = lk.from_file(path)
    if k.skip:
        return {"target": args.target, "kernel": None, "skipped": k.skip}
    if args.target not in lk.TARGETS:
        return {"target": args.target, "kernel": k.name, "skipped": f"no litmus code object for {args.target}"}
    runs = lk.explore_kernel(k, args.target, seeds=range(max(1, args.seeds)))
    c = lk.compare(k, args.target, runs, v)
    outs = []
    for o, n in sorted(c.outcomes.items()):
        allowed = k.model_allows_outcome(o)
        outs.append({"outcome": dict(o), "runs": n, "question": k.target(o), "model_allows": allowed})
    sound = c.sound and all(x["model_allows"] is not False for x in outs)
    agrees = sound and c.reached == c.model_allows and c.termination_agrees
    return {"target": args.target, "kernel": k.name, "runs": c.runs, "question": k.question(),
            "model_allows_question": c.model_allows, "reached_question": c.reached, "outcomes": outs,
            "failed_runs": c.failures, "sound": sound, "agrees": agrees,
            "cannot_produce": lk.CANNOT_PRODUCE.get(k.name), "hangs": c.hangs,
            "termination_agrees": c.termination_agrees}


def _render_emulator(e: dict) -> list[str]:
    if e.get("skipped"):
        return [f"  emulator ({e['target']}): not run: {e['skipped']}"]
    out = [f"  emulator ({e['target']}, kernel {e['kernel']}, {e['runs']} runs): question {e['question']}: "
           f"model {'allows' if e['model_allows_question'] else 'forbids'} it, emulator "
           f"{'reached' if e['reached_question'] else 'did not reach'} it -> "
           + ("agrees" if e["agrees"] else ("UNSOUND: a forbidden outcome was reached" if not e["sound"]
                                            else "allowed but not reached"))]
    if e.get("cannot_produce") and not e["reached_question"]:
        out.append(f"    the emulator cannot produce it: {e['cannot_produce']}")
    if e["hangs"]:
        model = ("the model: some execution does not terminate" if e["termination_agrees"]
                 else "DISAGREES: the model says every execution terminates")
        out.append(f"    {e['hangs']} of {e['runs']} runs hang ({model})")
    for x in e["outcomes"]:
        vals = " ".join(f"{k}={v}" for k, v in x["outcome"].items())
        verdict = {True: "allowed", False: "FORBIDDEN", None: "undecided"}[x["model_allows"]]
        out.append(f"    {x['runs']:4d} runs: {vals}  ({verdict}{', the question' if x['question'] else ''})")
    for f in e["failed_runs"][:5]:
        out.append(f"    run did not complete: {f}")
    return out
